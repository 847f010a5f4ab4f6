"""mbdlib: the small multibody-dynamics library behind the course.

The modules follow the chain of ideas of the book, in this order; a module imports only modules
that come before it (``tests/test_layout.py`` checks every import, also those inside functions)::

    errors -> _backend -> _validate -> linalg -> codegen -> system -> model
    -> rotations -> bodies -> chain -> urdf -> kinematics -> newton_euler -> loads -> kane -> dynamics
    -> lagrange -> kane_closed -> mechanisms
    -> constraints -> _banded -> _kkt -> schemes -> _integrators -> lcp -> contact -> _contact_schemes -> dae
    -> linearize
    -> compiled -> planar -> spatial_joints -> spatial -> vehicles
    -> coordinates -> catalogue -> contact_examples
    -> assembly -> checks.views -> checks.items -> checks.motion -> checks
    -> plotting -> schematics -> frames -> widgets -> view3d -> course

The first line is the foundation: errors, the numeric/symbolic helpers, input checks, the linear
algebra (one rank test), the code generator, and the contract between a model and the system an
integrator sees (``system``: :class:`ConstrainedSystem`; ``model``: the base of every model family and
the coordinates a user chooses).  Then joint coordinates (rotations to the closed-chain arm of
chapter 5); then constraints, the KKT system, the schemes, contacts (complementarity solvers ``lcp``, the
contact geometry and impact laws ``contact``, the event-driven and time-stepping schemes) and the one
:func:`simulate`, linearization,
and Cartesian, relative and mixed coordinates (chapters 3, 4, 6, 7) with the ready-made mechanisms
(``catalogue``); then the modelling checklist; then figures, widgets and the 3-D viewer; last
``course``, which reads the book's table of contents and the exercise registry.  ``mbdlib.exercises``
(answer checking and grading) sits above all.  ``import mbdlib`` itself imports none of them: each name
below is loaded from its module when first used (``mbdlib.simulate``, ``from mbdlib import PlanarModel``).

Conventions (stated once, in the book's "Conventions" page):

* SI units; gravity is always an explicit argument.
* A direction cosine matrix ``A`` maps body components to global ones,
  ``r_p = r_i + A @ s_p``.
* Euler sequences are named as in ``scipy.spatial.transform.Rotation``:
  uppercase intrinsic, lowercase extrinsic.
* Quaternions (Euler parameters) are scalar-first ``(e0, e1, e2, e3)``.
"""

import importlib
import importlib.util

# Where each public name lives. A name is imported from its module the first time it is used (PEP 562),
# so a page or a process that needs only the rotations (or the exercise checks) does not pay for sympy's
# printers, scipy's integrators and the contact schemes.
_WHERE = {
    "assembly": ("AssembledSystem", "ModelReport", "assemble_system", "compare_models", "model_report"),
    "bodies": ("RigidBody", "combine", "parallel_axis", "principal_axes", "rotate_inertia"),
    "catalogue": ("mechanism",),
    "chain": ("Chain", "Joint", "Link"),
    "checks": ("CheckItem", "CheckReport", "check_model", "check_simulation"),
    "codegen": ("lambdify_equations", "lambdify_matrix"),
    "constraints": ("DofReport", "Motion"),
    "contact": ("Contact", "Impact", "hunt_crossley", "impact"),
    "coordinates": ("RelativeModel", "body_states", "convert"),
    "dae": ("SimulationResult", "accelerations", "cartesian_pendulum", "kkt_matrix", "project_positions",
            "project_velocities", "redundant_rows", "simulate", "static_equilibrium"),
    "dynamics": ("ChainModel", "bias_forces", "energy", "forward_dynamics",
                 "inverse_dynamics_from_mass_matrix", "mass_matrix"),
    "errors": ("MbdError", "ModelError", "RotationError", "ShapeError", "SingularityError"),
    "kane": ("KaneEquations", "kane_equations", "kane_inverse_dynamics"),
    "kane_closed": ("ClosedChain", "LoopJoint", "closed_kane_equations", "closed_kane_inverse_dynamics"),
    "kinematics": ("ChainKinematics", "PartialVelocities", "forward_kinematics", "jacobian",
                   "partial_velocities", "point_acceleration", "point_position", "point_velocity"),
    "lagrange": ("LagrangeEquations", "check_skew", "lagrange_equations"),
    "linalg": ("rank_analysis",),
    "linearize": ("Linearization", "linearize"),
    "loads": ("coulomb_friction", "generalized_forces", "resultant", "spring_damper"),
    "mechanisms": ("FourBarArm", "fourbar_arm"),
    "model": ("Coordinate",),
    "newton_euler": ("JointReactions", "newton_euler_body", "rnea"),
    "planar": ("PlanarBody", "PlanarModel"),
    "rotations": ("axis_angle_from_dcm", "check_rotation", "dcm_from_axis_angle", "dcm_from_euler",
                  "dcm_from_quat", "dcm_rate", "euler_from_dcm", "euler_rate_matrix",
                  "euler_rates_from_omega", "normalize_quat", "omega_from_dcm_rate",
                  "omega_from_euler_rates", "omega_from_quat_rates", "quat_conjugate", "quat_from_dcm",
                  "quat_multiply", "quat_rate_matrix", "quat_rates", "rot_x", "rot_y", "rot_z", "skew",
                  "unskew"),
    "schemes": ("AugmentedLagrangian", "Baumgarte", "EventDriven", "ODE", "Projection", "TimeStepping"),
    "spatial": ("SpatialDofReport", "SpatialModel"),
    "system": ("Assembly", "ConstrainedSystem", "ModelWarning", "Structure"),
    "urdf": ("data_path", "load_urdf"),
}
_MODULE = {name: module for module, names in _WHERE.items() for name in names}


# ``linearize`` names both a module and the function it defines: the function is bound now, so that the
# module, imported later by another one (``mbdlib.vehicles``), cannot take its place (numpy and scipy.linalg
# only, no sympy).
from .linearize import linearize  # noqa: E402


def __getattr__(name: str):
    module = _MODULE.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    elif name.isidentifier() and importlib.util.find_spec(f"{__name__}.{name}") is not None:  # mbdlib.planar
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'mbdlib' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_MODULE))



__all__ = [
    # errors
    "MbdError", "ModelError", "RotationError", "ShapeError", "SingularityError", "ModelWarning",
    # the contract: a model builds a system; one simulate, its schemes, one result; linearization
    "ConstrainedSystem", "Structure", "Assembly", "Coordinate", "simulate", "SimulationResult", "ODE",
    "Baumgarte", "Projection", "AugmentedLagrangian", "linearize", "Linearization",
    # unilateral contacts and impacts (chapter 9)
    "Contact", "Impact", "impact", "hunt_crossley", "EventDriven", "TimeStepping",
    # rotations
    "skew", "unskew", "rot_x", "rot_y", "rot_z", "check_rotation", "dcm_from_euler", "euler_from_dcm",
    "dcm_from_quat", "quat_from_dcm", "normalize_quat", "quat_multiply", "quat_conjugate",
    "dcm_from_axis_angle", "axis_angle_from_dcm", "euler_rate_matrix", "omega_from_euler_rates",
    "euler_rates_from_omega", "quat_rates", "omega_from_quat_rates", "quat_rate_matrix", "dcm_rate",
    "omega_from_dcm_rate",
    # bodies
    "RigidBody", "parallel_axis", "rotate_inertia", "principal_axes", "combine",
    # chains and kinematics
    "Joint", "Link", "Chain", "ChainKinematics", "PartialVelocities", "forward_kinematics",
    "partial_velocities", "jacobian", "point_position", "point_velocity", "point_acceleration",
    # dynamics
    "newton_euler_body", "rnea", "JointReactions", "kane_inverse_dynamics", "kane_equations", "KaneEquations",
    "lagrange_equations", "LagrangeEquations", "check_skew", "mass_matrix", "bias_forces", "forward_dynamics",
    "inverse_dynamics_from_mass_matrix", "lambdify_equations", "lambdify_matrix", "energy", "ChainModel",
    # loads
    "resultant", "spring_damper", "coulomb_friction", "generalized_forces",
    # URDF
    "load_urdf", "data_path",
    # constraints and Cartesian models
    "DofReport", "Motion", "rank_analysis", "PlanarModel", "PlanarBody", "SpatialModel", "SpatialDofReport",
    # the constrained equations at one instant
    "accelerations", "kkt_matrix", "project_positions", "project_velocities", "redundant_rows",
    "static_equilibrium", "cartesian_pendulum",
    # coordinate choice and system assembly
    "RelativeModel", "body_states", "convert", "mechanism", "AssembledSystem", "ModelReport",
    "assemble_system", "model_report", "compare_models",
    # local closed chains (the 1988 paper's worked example)
    "LoopJoint", "ClosedChain", "closed_kane_inverse_dynamics", "closed_kane_equations", "FourBarArm",
    "fourbar_arm",
    # the modelling checklist
    "CheckItem", "CheckReport", "check_model", "check_simulation",
]
__version__ = "0.1.0"
