"""Tests of mbdlib.spatial: Φ_q against finite differences, and DOF counts of spatial
mechanisms (free body, spherical pendulum, universal joint, prismatic, the 6R arm of the
source text: 42 Cartesian coordinates and 36 constraints, 49 / 43 with Euler parameters)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from mbdlib.errors import ModelError, ShapeError
from mbdlib.spatial import SpatialModel, point_jacobian

SETTINGS = settings(max_examples=15, deadline=None)
num = st.floats(-1.5, 1.5, allow_nan=False)
quats = st.lists(num, min_size=4, max_size=4).filter(lambda p: np.linalg.norm(p) > 0.3).map(np.array)
vec3 = st.lists(num, min_size=3, max_size=3).map(np.array)


def fd_jacobian(f, q, h=1e-6):
    return np.column_stack([(f(q + h * e) - f(q - h * e)) / (2 * h) for e in np.eye(len(q))])


def A_of(p):
    """A(p) = (2 e0² − 1) I + 2 (e eᵀ + e0 ẽ), written out here (also off the unit sphere)."""
    e0, e = p[0], np.asarray(p[1:])
    et = np.array([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])
    return (2 * e0**2 - 1) * np.eye(3) + 2 * (np.outer(e, e) + e0 * et)


@SETTINGS
@given(quats, vec3)
def test_point_jacobian_equals_central_differences(p, s):
    np.testing.assert_allclose(point_jacobian(p, s), fd_jacobian(lambda x: A_of(x) @ s, p), atol=1e-7)


def test_unit_euler_parameters_give_scipys_rotation():
    p = np.array([0.8, 0.2, -0.4, 0.4]) / np.linalg.norm([0.8, 0.2, -0.4, 0.4])
    np.testing.assert_allclose(A_of(p), Rotation.from_quat([*p[1:], p[0]]).as_matrix(), atol=1e-12)


def two_bodies():
    m = SpatialModel()
    rng = np.random.default_rng(7)
    for name in "ab":
        m.add_body(name, position=rng.normal(size=3), orientation=rng.normal(size=4))
    return m


JOINTS = {
    "fix": lambda m: m.fix("a"),
    "spherical": lambda m: m.add_spherical("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1)),
    "revolute": lambda m: m.add_revolute("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1), (0.3, -0.5, 0.8)),
    "universal": lambda m: m.add_universal("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1), (1, 0, 0), (0, 1, 1)),
    "prismatic": lambda m: m.add_prismatic("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1), (0.3, -0.5, 0.8)),
}


@pytest.mark.parametrize("kind", sorted(JOINTS))
@SETTINGS
@given(st.lists(num, min_size=14, max_size=14).map(np.array))
def test_joint_jacobians_equal_central_differences(kind, q):
    m = two_bodies()
    joint = JOINTS[kind](m)
    local = q[: 7 * len(joint.bodies)]
    J = joint.jacobian(local)
    assert J.shape == (joint.n_eq, 7 * len(joint.bodies))
    np.testing.assert_allclose(J, fd_jacobian(joint.phi, local), atol=1e-6)
    np.testing.assert_allclose(m.phi_q(q), fd_jacobian(m.phi, q), atol=1e-6)


def test_joints_hold_at_the_initial_configuration():
    """Joint defaults (axis_j, twist vector) come from the initial poses, so the guess satisfies Φ."""
    for kind in ("revolute", "prismatic"):
        m = SpatialModel()
        m.add_body("a", orientation=[0.9, 0.1, 0.3, -0.2])
        m.add_body("b", position=(0.1, 0.2, 0.3), orientation=[0.2, 0.7, -0.1, 0.4])
        point_b = A_of(m.bodies[1].orientation).T @ (m.bodies[0].position + A_of(
            m.bodies[0].orientation) @ [0.0, 0.0, 0.5] - m.bodies[1].position)
        add = m.add_revolute if kind == "revolute" else m.add_prismatic
        add("a", "b", (0.0, 0.0, 0.5), point_b, (0.3, -0.5, 0.8))
        np.testing.assert_allclose(m.phi(m.q_guess()), 0.0, atol=1e-12)


# ----------------------------------------------------------------------------- DOF counts
def test_free_body_has_six_dof():
    m = SpatialModel()
    m.add_body("free", orientation=(0.5, 0.5, 0.5, 0.5))
    r = m.dof_report()
    assert (r.coordinates, r.constraints, r.rank, r.dof, r.grubler) == (7, 1, 1, 6, 6)
    assert (r.coordinates_6, r.constraints_6) == (6, 0)


def six_r_arm():
    """Ground + six links stacked along z; axes z, y, y, z, y, z (an anthropomorphic arm)."""
    m = SpatialModel()
    m.add_body("ground")
    m.fix("ground")
    axes = [(0, 0, 1), (0, 1, 0), (0, 1, 0), (0, 0, 1), (0, 1, 0), (0, 0, 1)]
    for k, axis in enumerate(axes, start=1):
        m.add_body(f"link{k}", position=(0.0, 0.0, 0.5 * (k - 1) + 0.25))
        top = (0.0, 0.0, 0.0) if k == 1 else (0.0, 0.0, 0.25)
        m.add_revolute("ground" if k == 1 else f"link{k - 1}", f"link{k}", top, (0.0, 0.0, -0.25), axis)
    return m


def test_six_r_arm_counts_of_the_source_text():
    r = six_r_arm().dof_report()
    assert (r.coordinates_6, r.constraints_6) == (42, 36)  # 7 bodies x 6; fixed base 6 + six revolutes x 5
    assert (r.coordinates, r.constraints, r.rank) == (49, 43, 43)  # with Euler parameters
    assert r.dof == 6 == r.grubler and not r.redundant and not r.singular
    assert "42 coordinates (6 per body), 36 constraints" in r.text


@pytest.mark.parametrize("joint, dof",
                         [("spherical", 3), ("universal", 2), ("revolute", 1), ("prismatic", 1)])
def test_one_joint_to_a_fixed_base(joint, dof):
    m = SpatialModel()
    m.add_body("base", orientation=(0.9, 0.1, -0.3, 0.2))
    m.fix("base")
    m.add_body("bob", position=(0.0, 0.0, -1.0))
    add = {"spherical": m.add_spherical, "universal": m.add_universal, "revolute": m.add_revolute,
           "prismatic": m.add_prismatic}[joint]
    kwargs = {} if joint == "spherical" else {"axis_i": (1.0, 0.0, 0.0)}
    if joint == "universal":
        kwargs["axis_j"] = (0.0, 1.0, 0.0)
    # the joint point of the base, in base components, that sits where the bob's (0, 0, 1) is: the origin
    add("base", "bob", point_i=(0.0, 0.0, 0.0), point_j=(0.0, 0.0, 1.0), **kwargs)
    r = m.dof_report()
    assert (r.dof, r.grubler, r.redundant, r.singular) == (dof, dof, [], False)


def test_repeated_revolute_is_reported_redundant():
    m = SpatialModel()
    m.add_body("base")
    m.fix("base")
    m.add_body("door", position=(0.5, 0.0, 0.0))
    m.add_revolute("base", "door", (0, 0, 0), (-0.5, 0, 0), (0, 0, 1), name="hinge1")
    m.add_revolute("base", "door", (0, 0, 1), (-0.5, 0, 1), (0, 0, 1), name="hinge2")
    r = m.dof_report()
    assert r.grubler == -4 and r.dof == 1 and len(r.redundant) == 5 and not r.singular
    assert {"hinge1", "hinge2"} <= set(r.involved)


# ----------------------------------------------------------------------------- bad input
def test_bad_input_raises_clear_errors():
    m = SpatialModel()
    m.add_body("a")
    with pytest.raises(ModelError, match="unknown body 'b'; the bodies are: a"):
        m.add_spherical("a", "b")
    m.add_body("b", position=(1.0, 0.0, 0.0))
    with pytest.raises(ModelError, match="two different bodies, got 'a' twice"):
        m.add_revolute("a", "a")
    with pytest.raises(ShapeError, match="point_i must have 3 components"):
        m.add_spherical("a", "b", point_i=(0, 0))
    with pytest.raises(ShapeError, match="axis_i is the zero vector"):
        m.add_revolute("a", "b", axis_i=(0, 0, 0))
    with pytest.raises(ModelError, match="mass must be positive"):
        m.add_body("c", mass=-2.0)
    m.fix("a")
    m.fix("b")
    m.add_spherical("a", "b", (0, 0, 0), (0, 0, 0), name="ball")  # 1 m apart, both fixed
    with pytest.raises(ModelError, match="cannot assemble: joint '.*' cannot close"):
        m.assemble()
