"""Model views for the checklist (private helper of :mod:`mbdlib.checks`).

A :class:`ModelView` gathers what the checks need from any supported model: bodies with their
attachment points, joints, gravity, the model's :class:`~mbdlib.system.ConstrainedSystem` and the
configuration, so that each
step of document 001 §5 is written once (:mod:`mbdlib.checks.items`, :mod:`mbdlib.checks.motion`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _validate
from ..chain import Chain
from ..coordinates import RelativeModel
from ..dynamics import ChainModel, mass_matrix
from ..errors import ModelError
from ..mechanisms import FourBarArm
from ..newton_euler import gravity_vector
from ..planar import PlanarModel
from ..spatial import SpatialModel
from ..system import Assembly, ConstrainedSystem

G_EARTH = 9.81


def f3(x) -> str:
    """A number with 3 significant digits (deterministic output)."""
    x = float(x)
    return "0" if x == 0 else f"{x:.3g}"


def vec(v) -> str:
    return "(" + ", ".join(f3(c) for c in np.asarray(v, dtype=float)) + ")"


# ====================================================================== model views
@dataclass
class BodyInfo:
    """Mass, central inertia (planar: a number; 3D: (3, 3) in body-frame components), attachment
    points relative to the centre of mass (body frame) and, in 3D, the link direction."""

    name: str
    mass: float
    inertia: object
    points: list
    direction: np.ndarray | None = None


@dataclass
class JointInfo:
    name: str
    kind: str
    bodies: tuple
    n_eq: int


@dataclass
class ModelView:
    name: str
    kind: str
    model: object
    dim: int | None
    gravity: np.ndarray | None
    gravity_source: str  # "model", "argument", "" (not stated)
    gravity_note: str
    bodies: list | None
    joints: list | None
    edges: list | None  # body pairs joined by a joint or a force element
    ground: str
    system: ConstrainedSystem  # the coordinates of the checks of steps 4-6
    q: np.ndarray  # configuration in the system's coordinates
    qd: np.ndarray
    row_joint: list  # joint name of each holonomic row
    conservative: bool
    nonconservative: str  # why not ("" if conservative)
    force_free: bool  # no gravity, springs or loads: Q = 0 at rest
    mass_matrix: object  # q_model -> M of the model's own coordinates
    q_model: np.ndarray
    coordinate_kind: str
    statics: object = None  # optional (q_model) -> (qdd, V(q ± ε d) function)
    horizon: float = 0.5
    rtol: float = 1e-6
    dof_report: object = None
    extra: dict = field(default_factory=dict)


def _state(x, n, what):
    return _validate.vector(x, n, f"check_model: {what}")


def _planar_gravity(model, gravity):
    g = np.asarray(model.gravity, dtype=float)
    note = ""
    if gravity is not None:
        given = _state(gravity, len(g), "gravity")
        if not np.allclose(given, g):
            note = f"the gravity argument {vec(given)} differs from the model's {vec(g)}"
    return g, "model", note


def view_of(model, q=None, gravity=None, name=None, need_gravity=True) -> ModelView:
    """A :class:`ModelView` of a supported model (ModelError for others)."""

    if isinstance(model, PlanarModel):
        return _planar_view(model, q, gravity, name)
    if isinstance(model, Chain):
        return _chain_view(model, q, gravity, name)
    if isinstance(model, FourBarArm):
        return _fourbar_view(model, q, gravity, name)
    if isinstance(model, RelativeModel):
        if q is None:
            q, qd = model.q0, model.qd0
        else:
            q, qd = _state(q, model.n, "q"), np.zeros(model.n)
        return _system_view(model._bind(Assembly(q, qd)), q, gravity, name, model)
    if isinstance(model, SpatialModel | ChainModel):   # assembled, velocities projected: then its system
        g = model.gravity
        return _system_view(model.system(), q, gravity, name, model_gravity=g, kind=type(model).__name__)
    if isinstance(model, ConstrainedSystem):
        return _system_view(model, q, gravity, name)
    raise ModelError(
        f"check_model: unsupported model type {type(model).__name__}; supported are "
        "mbdlib.PlanarModel, mbdlib.RelativeModel, mbdlib.SpatialModel (with gravity and inertias), "
        "mbdlib.ChainModel, mbdlib.Chain (with gravity=), mbdlib.mechanisms.FourBarArm and any "
        "mbdlib.ConstrainedSystem (model.system())"
    )


def _planar_view(m, q, gravity, name) -> ModelView:
    g, source, note = _planar_gravity(m, gravity)
    if q is None:
        q = m.q0
        qd = m.qd0
    else:
        q = _state(q, m.n, "q")
        qd = np.zeros(m.n)
    points = {b.name: [] for b in m.bodies}
    joints, edges = [], []
    for j in m.joints:
        joints.append(JointInfo(j.name, j.kind, tuple(j.bodies), j.n_eq))
        for b, attr in zip(j.bodies, ("point_i", "point_j"), strict=False):
            if b in points and hasattr(j, attr):
                points[b].append(np.asarray(getattr(j, attr), dtype=float))
        edges.extend((a, b) for a in j.bodies for b in j.bodies if a < b)
        if len(j.bodies) == 1:  # drivers and knife edges act relative to the ground
            edges.append(("ground", j.bodies[0]))
    for s in m.springs:
        edges.append((s["bodies"][0].name, s["bodies"][1].name))
    bodies = [BodyInfo(b.name, b.mass, b.inertia, points[b.name]) for b in m.bodies]
    drivers = [j.name for j in m.joints if j.kind == "driver"]
    dampers = [s["name"] for s in m.springs if s["c"] > 0]
    loads = [ld["name"] for ld in m.loads]
    reasons = (
        ([f"drivers {drivers}"] if drivers else [])
        + ([f"dampers {dampers}"] if dampers else [])
        + ([f"applied loads {loads}"] if loads else [])
    )
    row_joint = [j.name for j in m.joints if not j.nonholonomic for _ in j.labels]
    return ModelView(
        name=name or "PlanarModel",
        kind="PlanarModel",
        model=m,
        dim=2,
        gravity=g,
        gravity_source=source,
        gravity_note=note,
        bodies=bodies,
        joints=joints,
        edges=edges,
        ground="ground",
        system=m._bind(Assembly(q, qd)),
        q=q,
        qd=qd,
        row_joint=row_joint,
        conservative=not reasons,
        nonconservative="; ".join(reasons),
        force_free=not np.any(g) and not m.springs and not m.loads,
        mass_matrix=lambda x: m.M(x),
        q_model=q,
        coordinate_kind="Cartesian (x, y, φ per body)",
        dof_report=m.dof_report,
    )


def _chain_points(chain):
    """Attachment points (joint origin, child joint origins) of each link, relative to its centre of mass."""
    out = []
    for i, link in enumerate(chain.links):
        com = np.asarray(link.body.com, dtype=float)
        pts = [np.zeros(3)] + [np.asarray(c.joint.origin, dtype=float) for c in chain.links if c.parent == i]
        out.append([p - com for p in pts])
    return out


def _chain_bodies(chain, extra_points=None):
    bodies = []
    for link, pts in zip(chain.links, _chain_points(chain), strict=True):
        com = np.asarray(link.body.com, dtype=float)
        pts = pts + [np.asarray(p, dtype=float) - com for p in (extra_points or {}).get(link.name, [])]
        absolute = [p + com for p in pts[1:]] + [com]  # towards the children, else the com
        direction = next((a for a in absolute if np.linalg.norm(a) > 1e-9), None)
        bodies.append(
            BodyInfo(
                link.name, float(link.body.mass), np.asarray(link.body.inertia, dtype=float), pts, direction
            )
        )
    return bodies


def _chain_view(chain, q, gravity, name) -> ModelView:

    if chain.is_symbolic:
        raise ModelError(
            f"check_model: chain {chain.name!r} has symbolic parameters; the checks work on "
            "numbers: substitute values first"
        )
    source = ""
    if gravity is not None:
        g = np.asarray(gravity_vector(gravity), dtype=float)
        source = "argument"
    else:
        g = None
    q = np.zeros(chain.n) if q is None else _state(q, chain.n, "q")
    system = ChainModel(chain, gravity=np.zeros(3) if g is None else g, q0=q).system()
    names = ["base"] + chain.link_names
    joints = [
        JointInfo(lk.joint.name, lk.joint.kind, (names[lk.parent + 1], lk.name), 0) for lk in chain.links
    ]
    edges = [(names[lk.parent + 1], lk.name) for lk in chain.links]
    return ModelView(
        name=name or chain.name,
        kind="Chain",
        model=chain,
        dim=3,
        gravity=g,
        gravity_source=source,
        gravity_note="",
        bodies=_chain_bodies(chain),
        joints=joints,
        edges=edges,
        ground="base",
        system=system,
        q=q,
        qd=np.zeros(chain.n),
        row_joint=[],
        conservative=True,
        nonconservative="",
        force_free=g is not None and not np.any(g),
        mass_matrix=lambda x: np.asarray(mass_matrix(chain, x), dtype=float),
        q_model=q,
        coordinate_kind="joint coordinates",
        horizon=0.2,
    )


def fourbar_angles(arm, q) -> ConstrainedSystem:
    """The four-bar arm in its four absolute angles θ with the loop at pin B as constraint.

    Built from the arm's Lagrange-multiplier formulation (:meth:`FourBarArm.lagrange_forward_dynamics`):
    ``M_θ``, the velocity terms ``c`` and ``Q_θ`` of the free links, ``Φ = A + L4 e(θ4) − E − R(θ2) b2``.
    """
    p = arm.params

    def b2(th):
        c, s = np.cos(th[1]), np.sin(th[1])
        return np.array([c * p["b2"][0] - s * p["b2"][1], s * p["b2"][0] + c * p["b2"][1]])

    def M(th):
        return arm._lagrange_terms(th, np.zeros(4))[0]

    def Q(t, th, thd):
        _, c, Q = arm._lagrange_terms(th, thd)
        return Q - c

    def phi(th, t=0.0):
        e = [np.array([np.cos(a), np.sin(a)]) for a in th]
        return p["L3"] * e[2] + p["L4"] * e[3] - p["L1"] * e[0] - b2(th)

    def phi_q(th, t=0.0):
        perp = [np.array([-np.sin(a), np.cos(a)]) for a in th]
        b = b2(th)
        return np.column_stack([-p["L1"] * perp[0], -np.array([-b[1], b[0]]), p["L3"] * perp[2],
                                p["L4"] * perp[3]])

    def energy(th, thd):
        T = 0.5 * thd @ M(th) @ thd
        V = sum(p[f"m{k + 1}"] * p["g"] * r[1] for k, (r, _) in enumerate(arm._centres(th, np.zeros(4))))
        tip = p["L1"] * np.array([np.cos(th[0]), np.sin(th[0])]) + p["L2"] * np.array(
            [np.cos(th[1]), np.sin(th[1])]
        )
        return float(T + V - p["F_tip"] @ tip)

    def gamma(th, thd, t=0.0):
        return arm._loop_gamma(th, thd)

    return ConstrainedSystem(n=4, M=M, Q=Q, phi=phi, phi_q=phi_q, gamma=gamma, energy=energy,
                             q0=arm.angles(q), labels=["pin B x", "pin B y"],
                             coordinate_names=["θ1", "θ2", "θ3", "θ4"], name="four-bar arm in four angles")


def _fourbar_view(arm, q, gravity, name) -> ModelView:
    p = arm.params
    g = np.array([0.0, -p["g"], 0.0])
    note = ""
    if gravity is not None:
        given = _state(gravity, 3, "gravity")
        if not np.allclose(given, g):
            note = f"the gravity argument {vec(given)} differs from the arm's {vec(g)} (parameter g)"
    q = np.array([0.0, np.pi / 2]) if q is None else _state(q, 2, "q")
    system = fourbar_angles(arm, q)
    extra = {
        "forearm": [(p["b2"][0], p["b2"][1], 0.0), (p["L2"], 0.0, 0.0)],
        "coupler": [(p["L4"], 0.0, 0.0)],
    }
    names = ["base"] + arm.chain.link_names
    joints = [
        JointInfo(lk.joint.name, "revolute", (names[lk.parent + 1], lk.name), 0) for lk in arm.chain.links
    ]
    joints.append(JointInfo("pin B", "revolute (cut joint)", ("forearm", "coupler"), 2))
    edges = [(j.bodies[0], j.bodies[1]) for j in joints]

    def statics(x):
        qdd = arm.forward_dynamics(x, np.zeros(2), np.zeros(2))
        return qdd, lambda y: arm.energy(y, np.zeros(2))

    return ModelView(
        name=name or "four-bar arm",
        kind="FourBarArm",
        model=arm,
        dim=2,
        gravity=g[:2],
        gravity_source="model",
        gravity_note=note,
        bodies=_chain_bodies(arm.chain, extra),
        joints=joints,
        edges=edges,
        ground="base",
        system=system,
        q=system.q0,
        qd=np.zeros(4),
        row_joint=["pin B", "pin B"],
        conservative=True,
        nonconservative="",
        force_free=False,
        mass_matrix=arm.mass_matrix,
        q_model=q,
        coordinate_kind="absolute angles θ1..θ4; the arm's own q = (θ1, θ3)",
        statics=statics,
        extra={"q_model_label": "(q1, q2)"},
    )


def _system_view(system, q, gravity, name, relative=None, model_gravity=None, kind=None) -> ModelView:
    """A view of a system; ``relative``: the RelativeModel it was built from (for its joints)."""
    n = system.n
    if q is None:
        q, qd = np.asarray(system.q0, dtype=float), np.asarray(system.qd0, dtype=float)
    else:
        q, qd = _state(q, n, "q"), np.zeros(n)
    g, source, note = None, "", ""
    if relative is not None:
        g, source, note = _planar_gravity(relative, gravity)
    elif model_gravity is not None:
        g, source = np.asarray(model_gravity, dtype=float).ravel(), "model"
        if gravity is not None:
            given = _state(gravity, len(g), "gravity")
            if not np.allclose(given, g):
                note = f"the gravity argument {vec(given)} differs from the model's {vec(g)}"
    elif gravity is not None:
        g, source = np.asarray(gravity, dtype=float).ravel(), "argument"
    phi_t = np.asarray(system.phi_t(q, 0.0), dtype=float)
    Q0, Q1 = system.Q(0.0, q, qd), system.Q(1.0, q, qd)
    reasons = (["Φ_t ≠ 0 (drivers)"] if np.any(phi_t) else []) + (
        ["Q depends on t"] if not np.allclose(Q0, Q1) else []
    )
    loads = [ld["name"] for ld in getattr(relative, "loads", [])]
    if loads:                               # a RelativeModel's applied loads: its energy leaves them out
        reasons = [f"applied loads {loads}"] + [r for r in reasons if r != "Q depends on t"]
    bodies = joints = edges = None
    if relative is not None:
        bodies, joints, edges = _relative_structure(relative)
    kind = kind or (type(relative).__name__ if relative is not None else "ConstrainedSystem")
    return ModelView(
        name=name or (system.name if relative is None and model_gravity is None else kind),
        kind=kind,
        model=relative if relative is not None else system,
        dim=None if g is None else len(g),
        gravity=g,
        gravity_source=source,
        gravity_note=note,
        bodies=bodies,
        joints=joints,
        edges=edges,
        ground="ground",
        system=system,
        q=q,
        qd=qd,
        row_joint=list(system.labels[: system.m]),
        conservative=not reasons,
        nonconservative="; ".join(reasons),
        force_free=(g is not None and not np.any(g) and not loads
                    and not np.any(system.Q(0.0, q, np.zeros(n)))),
        mass_matrix=lambda x: np.asarray(system.M(x), dtype=float),
        q_model=q,
        coordinate_kind="relative/mixed (joint coordinates)" if relative is not None
        else "the system's coordinates",
    )


def _relative_structure(m):
    names = list(m.names)
    points = {b: [] for b in names}
    joints, edges = [], []
    for i, tj in enumerate(m.tree):
        parent = "ground" if tj.parent < 0 else names[tj.parent]
        joints.append(JointInfo(f"{parent}-{names[i]}", f"{tj.kind} (tree)", (parent, names[i]), 0))
        if tj.kind != "free":  # a free joint constrains nothing: it does not connect
            edges.append((parent, names[i]))
            points[names[i]].append(np.asarray(tj.point_child, dtype=float))
            if parent in points:
                points[parent].append(np.asarray(tj.point_parent, dtype=float))
    for j in m.cuts:
        joints.append(JointInfo(j.name, f"{j.kind} (cut)", tuple(j.bodies), j.n_eq))
        edges.extend((a, b) for a in j.bodies for b in j.bodies if a < b)
        for b, attr in zip(j.bodies, ("point_i", "point_j"), strict=False):
            if b in points and hasattr(j, attr):
                points[b].append(np.asarray(getattr(j, attr), dtype=float))
    for j in m.knife_edges:                 # a velocity row to the ground, as in the Cartesian view
        joints.append(JointInfo(j.name, j.kind, tuple(j.bodies), j.n_eq))
        edges.append(("ground", j.bodies[0]))
    bodies = [
        BodyInfo(b, float(mass), float(J), points[b])
        for b, mass, J in zip(names, m.masses, m.inertias, strict=True)
    ]
    return bodies, joints, edges
