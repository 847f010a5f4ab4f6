"""Model views and the items of the checklist (private helpers of :mod:`mbdlib.checks`).

A :class:`ModelView` gathers what the checks need from any supported model (bodies with their
attachment points, joints, gravity, a SYSTEM PROTOCOL object, the configuration), so that each
step of document 001 §5 is written once.  The step functions return lists of dicts with the
fields of :class:`mbdlib.checks.CheckItem`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from . import dae
from .constraints import nearby_rank, rank_analysis
from .errors import MbdError, ModelError, ShapeError

G_EARTH = 9.81


def f3(x) -> str:
    """A number with 3 significant digits (deterministic output)."""
    x = float(x)
    return "0" if x == 0 else f"{x:.3g}"


def plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else (words or word + 's')}"


def vec(v) -> str:
    return "(" + ", ".join(f3(c) for c in np.asarray(v, dtype=float)) + ")"


def item(key, step, title, status, detail, fix="", **values) -> dict:
    return dict(
        key=key,
        step=step,
        title=title,
        status=status,
        detail=detail,
        fix=fix if status in ("warn", "fail") else "",
        values=values,
    )


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
    system: object  # SYSTEM PROTOCOL (coordinates of the checks of steps 4-6)
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
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ShapeError(f"check_model: {what} must be {n} numbers, got {x!r}") from None
    if a.shape != (n,) or not np.all(np.isfinite(a)):
        raise ShapeError(
            f"check_model: {what} must have shape ({n},) with finite numbers, got shape {a.shape}"
        )
    return a


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
    from .chain import Chain
    from .coordinates import RelativeModel
    from .mechanisms import FourBarArm
    from .planar import PlanarModel

    if isinstance(model, PlanarModel):
        return _planar_view(model, q, gravity, name)
    if isinstance(model, Chain):
        return _chain_view(model, q, gravity, name)
    if isinstance(model, FourBarArm):
        return _fourbar_view(model, q, gravity, name)
    if all(
        hasattr(model, a)
        for a in ("n", "M", "Q", "phi", "phi_q", "phi_t", "gamma", "B", "b_gamma", "energy", "q0", "qd0")
    ):
        return _system_view(model, q, gravity, name, isinstance(model, RelativeModel))
    raise ModelError(
        f"check_model: unsupported model type {type(model).__name__}; supported are "
        "mbdlib.PlanarModel, mbdlib.Chain (with gravity=), mbdlib.mechanisms.FourBarArm and any "
        "object with the SYSTEM PROTOCOL of mbdlib.dae (n, M, Q, phi, phi_q, phi_t, gamma, B, "
        "b_gamma, energy, q0, qd0)"
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
        name or "PlanarModel",
        "PlanarModel",
        m,
        2,
        g,
        source,
        note,
        bodies,
        joints,
        edges,
        "ground",
        m,
        q,
        qd,
        row_joint,
        not reasons,
        "; ".join(reasons),
        not np.any(g) and not m.springs and not m.loads,
        lambda x: m.M(x),
        q,
        "Cartesian (x, y, φ per body)",
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
    from .coordinates import ChainSystem
    from .dynamics import mass_matrix
    from .newton_euler import gravity_vector

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
    system = ChainSystem(chain, gravity=np.zeros(3) if g is None else g, q0=q)
    names = ["base"] + chain.link_names
    joints = [
        JointInfo(lk.joint.name, lk.joint.kind, (names[lk.parent + 1], lk.name), 0) for lk in chain.links
    ]
    edges = [(names[lk.parent + 1], lk.name) for lk in chain.links]
    return ModelView(
        name or chain.name,
        "Chain",
        chain,
        3,
        g,
        source,
        "",
        _chain_bodies(chain),
        joints,
        edges,
        "base",
        system,
        q,
        np.zeros(chain.n),
        [],
        True,
        "",
        g is not None and not np.any(g),
        lambda x: np.asarray(mass_matrix(chain, x), dtype=float),
        q,
        "joint coordinates",
        horizon=0.2,
    )


class FourBarAngles:
    """The four-bar arm in its four absolute angles θ with the loop at pin B as constraint (SYSTEM PROTOCOL).

    Built from the arm's Lagrange-multiplier formulation (:meth:`FourBarArm.lagrange_forward_dynamics`):
    ``M_θ``, the velocity terms ``c`` and ``Q_θ`` of the free links, ``Φ = A + L4 e(θ4) − E − R(θ2) b2``.
    """

    def __init__(self, arm, q):
        self.arm, self.n = arm, 4
        self.q0 = arm.angles(q)
        self.qd0 = np.zeros(4)
        self.labels = ["pin B x", "pin B y"]

    def M(self, th):
        return self.arm._lagrange_terms(th, np.zeros(4))[0]

    def Q(self, t, th, thd):
        _, c, Q = self.arm._lagrange_terms(th, thd)
        return Q - c

    def phi(self, th, t=0.0):
        p = self.arm.params
        e = [np.array([np.cos(a), np.sin(a)]) for a in th]
        c, s = np.cos(th[1]), np.sin(th[1])
        b2 = np.array([c * p["b2"][0] - s * p["b2"][1], s * p["b2"][0] + c * p["b2"][1]])
        return p["L3"] * e[2] + p["L4"] * e[3] - p["L1"] * e[0] - b2

    def phi_q(self, th, t=0.0):
        p = self.arm.params
        perp = [np.array([-np.sin(a), np.cos(a)]) for a in th]
        c, s = np.cos(th[1]), np.sin(th[1])
        b2 = np.array([c * p["b2"][0] - s * p["b2"][1], s * p["b2"][0] + c * p["b2"][1]])
        return np.column_stack(
            [-p["L1"] * perp[0], -np.array([-b2[1], b2[0]]), p["L3"] * perp[2], p["L4"] * perp[3]]
        )

    def phi_t(self, th, t=0.0):
        return np.zeros(2)

    def gamma(self, th, thd, t=0.0):
        return self.arm._loop_gamma(th, thd)

    def B(self, th, t=0.0):
        return np.zeros((0, 4))

    def b_gamma(self, th, thd, t=0.0):
        return np.zeros(0)

    def energy(self, th, thd):
        p = self.arm.params
        T = 0.5 * thd @ self.M(th) @ thd
        V = sum(p[f"m{k + 1}"] * p["g"] * r[1] for k, (r, _) in enumerate(self.arm._centres(th, np.zeros(4))))
        tip = p["L1"] * np.array([np.cos(th[0]), np.sin(th[0])]) + p["L2"] * np.array(
            [np.cos(th[1]), np.sin(th[1])]
        )
        return float(T + V - p["F_tip"] @ tip)


def _fourbar_view(arm, q, gravity, name) -> ModelView:
    p = arm.params
    g = np.array([0.0, -p["g"], 0.0])
    note = ""
    if gravity is not None:
        given = _state(gravity, 3, "gravity")
        if not np.allclose(given, g):
            note = f"the gravity argument {vec(given)} differs from the arm's {vec(g)} (parameter g)"
    q = np.array([0.0, np.pi / 2]) if q is None else _state(q, 2, "q")
    system = FourBarAngles(arm, q)
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
        name or "four-bar arm",
        "FourBarArm",
        arm,
        2,
        g[:2],
        "model",
        note,
        _chain_bodies(arm.chain, extra),
        joints,
        edges,
        "base",
        system,
        system.q0,
        np.zeros(4),
        ["pin B", "pin B"],
        True,
        "",
        False,
        arm.mass_matrix,
        q,
        "absolute angles θ1..θ4; the arm's own q = (θ1, θ3)",
        statics=statics,
        extra={"q_model_label": "(q1, q2)"},
    )


def _system_view(model, q, gravity, name, relative) -> ModelView:
    n = model.n
    if q is None:
        q, qd = np.asarray(model.q0, dtype=float), np.asarray(model.qd0, dtype=float)
    else:
        q, qd = _state(q, n, "q"), np.zeros(n)
    g, source, note = None, "", ""
    if hasattr(model, "gravity"):
        g, source, note = _planar_gravity(model, gravity)
    elif gravity is not None:
        g, source = np.asarray(gravity, dtype=float).ravel(), "argument"
    phi_t = np.asarray(model.phi_t(q, 0.0), dtype=float)
    Q0, Q1 = model.Q(0.0, q, qd), model.Q(1.0, q, qd)
    reasons = (["Φ_t ≠ 0 (drivers)"] if np.any(phi_t) else []) + (
        ["Q depends on t"] if not np.allclose(Q0, Q1) else []
    )
    bodies = joints = edges = None
    if relative:
        bodies, joints, edges = _relative_structure(model)
    rows = list(getattr(model, "labels", []))
    return ModelView(
        name or type(model).__name__,
        type(model).__name__,
        model,
        None if g is None else len(g),
        g,
        source,
        note,
        bodies,
        joints,
        edges,
        "ground",
        model,
        q,
        qd,
        rows,
        not reasons,
        "; ".join(reasons),
        g is not None and not np.any(g) and not np.any(model.Q(0.0, q, np.zeros(n))),
        lambda x: np.asarray(model.M(x), dtype=float),
        q,
        "relative/mixed (joint coordinates)" if relative else "the system's coordinates",
    )


def _relative_structure(m):
    names = list(m.names)
    points = {b: [] for b in names}
    joints, edges = [], []
    for i, tj in enumerate(m.tree):
        parent = "ground" if tj.parent < 0 else names[tj.parent]
        joints.append(JointInfo(f"{parent}-{names[i]}", f"{tj.kind} (tree)", (parent, names[i]), 0))
        edges.append((parent, names[i]))
        if tj.kind != "free":
            points[names[i]].append(np.asarray(tj.point_child, dtype=float))
            if parent in points:
                points[parent].append(np.asarray(tj.point_parent, dtype=float))
    for j in m.cuts:
        joints.append(JointInfo(j.name, f"{j.kind} (cut)", tuple(j.bodies), j.n_eq))
        edges.extend((a, b) for a in j.bodies for b in j.bodies if a < b)
        for b, attr in zip(j.bodies, ("point_i", "point_j"), strict=False):
            if b in points and hasattr(j, attr):
                points[b].append(np.asarray(getattr(j, attr), dtype=float))
    bodies = [
        BodyInfo(b, float(mass), float(J), points[b])
        for b, mass, J in zip(names, m.masses, m.inertias, strict=True)
    ]
    return bodies, joints, edges


# ====================================================================== step 1: frame, gravity, units
_EXPECTED_G = {"SI": G_EARTH, "mm": 1000 * G_EARTH}
_UNIT_HINTS = (
    (1000.0, "millimetres (mm/s²)"),
    (32.17 / G_EARTH, "feet (ft/s²)"),
    (386.1 / G_EARTH, "inches (in/s²)"),
)


def step1(v: ModelView, units) -> list:
    units = str(units)
    out = []
    g = v.gravity
    if g is None:
        out.append(
            item(
                "units",
                1,
                "one unit system",
                "info",
                f"unit system as stated: {units}; gravity "
                "not stated, its magnitude cannot be checked against the units",
            )
        )
    else:
        mag = float(np.linalg.norm(g))
        expected = _EXPECTED_G.get(
            "mm" if "mm" in units.lower() else units.upper().split()[0] if units else "", None
        )
        if mag == 0 or expected is None or abs(mag / expected - 1) < 0.02:
            out.append(
                item(
                    "units",
                    1,
                    "one unit system",
                    "info",
                    f"unit system as stated: {units}; |g| = {f3(mag)}",
                    g=mag,
                )
            )
        else:
            ratio = mag / G_EARTH
            hint = next((h for r, h in _UNIT_HINTS if abs(ratio / r - 1) < 0.02), None)
            suggests = f"suggests {hint}" if hint else f"is {f3(ratio)} times Earth's {G_EARTH}"
            out.append(
                item(
                    "units",
                    1,
                    "one unit system",
                    "warn",
                    f"unit system as stated: {units}, but |g| = {f3(mag)} {suggests}",
                    f"write every quantity in {units}: g = {f3(expected)} (lengths, masses and inertias "
                    "in the same units)",
                    g=mag,
                )
            )
    title = "inertial frame and gravity"
    if g is None:
        status = "fail" if v.kind == "Chain" else "warn"
        where = (
            "a Chain does not store gravity" if v.kind == "Chain" else "the model has no 'gravity' attribute"
        )
        out.append(
            item(
                "gravity",
                1,
                title,
                status,
                f"gravity not stated ({where})",
                "state gravity explicitly, e.g. check_model(model, gravity=(0, 0, -9.81)); use zeros "
                "for a mechanism in a horizontal plane",
            )
        )
        return out
    up = np.zeros(len(g))
    up[-1 if len(g) == 3 else 1] = 1.0
    axis = "+z" if len(g) == 3 else "+y"
    mag = float(np.linalg.norm(g))
    detail = f"g = {vec(g)} m/s² ({'from the model' if v.gravity_source == 'model' else 'as given'})"
    if mag == 0:
        status, fix, detail = "info", "", detail + ": no gravity"
    elif g @ up > 0.5 * mag:
        status, fix = "warn", f"gravity points up ({axis}): sign? Use g = {vec(-g)} if {axis} is up"
        detail += f", pointing up ({axis})"
    else:
        status, fix = "info", ""
        detail += f", direction {vec(g / mag)}"
    if v.gravity_note:
        status, fix = (
            "warn",
            fix or "pass the gravity of the model, or rebuild the model with the intended one",
        )
        detail += "; " + v.gravity_note
    out.append(item("gravity", 1, title, status, detail, fix, gravity=np.array(g)))
    return out


# ====================================================================== step 2: mass and inertia
def _no_structure(key, step, title):
    return item(
        key,
        step,
        title,
        "info",
        "not available: the model exposes only the SYSTEM PROTOCOL (no bodies or joints to inspect)",
    )


def step2(v: ModelView) -> list:
    if v.bodies is None:
        return [
            _no_structure(k, 2, t)
            for k, t in (
                ("mass", "masses"),
                ("inertia", "inertia tensors"),
                ("inertia_plausibility", "inertia plausibility"),
            )
        ]
    bad = [b for b in v.bodies if not (np.isfinite(b.mass) and b.mass > 0)]
    masses = ", ".join(f"{b.name} {f3(b.mass)}" for b in v.bodies)
    if bad:
        mass = item(
            "mass",
            2,
            "masses",
            "fail",
            f"masses [kg]: {masses}",
            f"give body {bad[0].name!r} a positive mass (massless links only as virtual links with zero "
            "inertia, and then expect a singular mass matrix if nothing beyond them has mass)",
        )
    else:
        mass = item(
            "mass", 2, "masses", "pass", f"{plural(len(v.bodies), 'body', 'bodies')}, masses [kg]: {masses}"
        )
    return [mass, _inertia(v), _plausibility(v)]


def _inertia(v: ModelView) -> dict:
    title = "inertia tensors"
    frame = "about the centre of mass, body-frame components"
    notes = []
    for b in v.bodies:
        I = np.asarray(b.inertia, dtype=float)
        if I.ndim == 0:
            if not (np.isfinite(I) and I > 0):
                return item(
                    "inertia",
                    2,
                    title,
                    "fail",
                    f"body {b.name!r}: polar moment {f3(I)} kg m² ({frame})",
                    f"give body {b.name!r} a positive moment of inertia about its centre of mass",
                )
            continue
        scale = max(float(np.max(np.abs(I))), 1e-300)
        if np.max(np.abs(I - I.T)) > 1e-9 * scale:
            return item(
                "inertia",
                2,
                title,
                "fail",
                f"body {b.name!r}: the tensor is not symmetric",
                f"make the inertia of body {b.name!r} symmetric (I_xy = I_yx, ...)",
            )
        lam = np.linalg.eigvalsh(I)
        if lam[0] < -1e-9 * scale:
            return item(
                "inertia",
                2,
                title,
                "fail",
                f"body {b.name!r}: principal moments {vec(lam)} kg m²",
                f"give body {b.name!r} a positive semi-definite inertia (products enter as −I_xy)",
            )
        if lam[0] + lam[1] < lam[2] - 1e-9 * scale:
            return item(
                "inertia",
                2,
                title,
                "fail",
                f"body {b.name!r}: principal moments {vec(lam)} break the triangle inequality I1 + I2 ≥ I3",
                f"recompute the inertia of body {b.name!r}: no real body has these principal moments",
            )
        if lam[0] <= 1e-9 * scale:
            notes.append(b.name)
    detail = (
        f"{plural(len(v.bodies), 'body', 'bodies')}: positive definite"
        + (
            " (3D: triangle inequality holds)"
            if v.dim == 3 or any(np.ndim(b.inertia) for b in v.bodies)
            else ""
        )
        + f"; tensors {frame}"
    )
    if notes:
        detail += f"; slender (a zero principal moment): {', '.join(notes)}"
    return item("inertia", 2, title, "pass", detail)


def _plausibility(v: ModelView) -> dict:
    title = "inertia plausibility"
    for b in v.bodies:
        I = np.asarray(b.inertia, dtype=float)
        extent = max((float(np.linalg.norm(p)) for p in b.points), default=0.0)
        if b.mass <= 0 or extent <= 1e-12:
            continue
        big = float(I) if I.ndim == 0 else float(np.max(np.linalg.eigvalsh(I)))
        k = np.sqrt(big / b.mass)  # radius of gyration about the com
        if k > extent:
            return item(
                "inertia_plausibility",
                2,
                title,
                "warn",
                f"body {b.name!r}: radius of gyration about the centre of mass {f3(k)} m exceeds its "
                f"extent {f3(extent)} m from the centre of mass to its joints: the inertia looks as if "
                "given about a joint, not about the centre of mass (parallel-axis term added twice?)",
                f"body {b.name!r}: give the moment of inertia about the centre of mass (a uniform rod: "
                "m L²/12), not about a joint",
                body=b.name,
                radius=k,
                extent=extent,
            )
    for b in v.bodies:
        I = np.asarray(b.inertia, dtype=float)
        if I.ndim != 2 or b.direction is None:
            continue
        lam, axes = np.linalg.eigh(I)
        if lam[0] >= 0.5 * lam[1]:  # no clear long axis
            continue
        d = b.direction / np.linalg.norm(b.direction)
        angle = float(np.degrees(np.arccos(min(1.0, abs(float(axes[:, 0] @ d))))))
        if angle > 30:
            return item(
                "inertia_plausibility",
                2,
                title,
                "warn",
                f"body {b.name!r}: the axis of its smallest principal moment is {f3(angle)}° from the "
                f"link direction {vec(d)}: the inertia components look as if given in another frame",
                f"body {b.name!r}: give the inertia in the link's own body frame (rotate it: A I Aᵀ)",
                body=b.name,
                angle=angle,
            )
    return item(
        "inertia_plausibility",
        2,
        title,
        "pass",
        "radii of gyration within each body's extent" + ("; long axes along the links" if v.dim == 3 else ""),
    )


# ====================================================================== step 3: joints and connectivity
def step3(v: ModelView) -> list:
    if v.joints is None:
        return [_no_structure("joints", 3, "joints"), _no_structure("connectivity", 3, "connectivity")]
    rows = [
        f"{j.name} ({j.kind}, {'-'.join(j.bodies)}, "
        + (f"{j.n_eq} eq.)" if j.n_eq else "in the coordinates)")
        for j in v.joints
    ]
    joints = item(
        "joints",
        3,
        "joints",
        "info",
        f"{plural(len(v.joints), 'joint')}: " + "; ".join(rows) if rows else "no joints",
        joints=[j.name for j in v.joints],
    )
    names = [b.name for b in v.bodies]
    adj = {b: set() for b in [v.ground] + names}
    for a, b in v.edges:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    seen, todo = {v.ground}, [v.ground]
    while todo:
        for nb in adj[todo.pop()] - seen:
            seen.add(nb)
            todo.append(nb)
    loose = [b for b in names if not adj[b]]
    floating = [b for b in names if b not in seen and b not in loose]
    v.extra["loose"] = loose + floating
    if loose or floating:
        b = (loose or floating)[0]
        what = "has no joint" if loose else f"is not connected to the {v.ground}"
        conn = item(
            "connectivity",
            3,
            "connectivity",
            "warn",
            f"body {b!r} {what}"
            + (f" (also: {', '.join((loose + floating)[1:])})" if len(loose + floating) > 1 else ""),
            f"body {b!r} is not connected to the {v.ground}: a joint is missing? Add it (e.g. a revolute "
            "to its neighbour) or fix the body",
            bodies=loose + floating,
        )
    else:
        conn = item(
            "connectivity",
            3,
            "connectivity",
            "pass",
            f"{plural(len(names), 'body', 'bodies')} connected to the {v.ground}",
            bodies=[],
        )
    return [joints, conn]


# ====================================================================== step 4: DOF and redundancy
def _dof_numbers(v: ModelView):
    if v.dof_report is not None:
        r = v.dof_report(v.q)
        return dict(
            coordinates=r.coordinates,
            constraints=r.constraints,
            rank=r.rank,
            dof=r.dof,
            grubler=r.grubler,
            redundant=list(r.redundant),
            singular=bool(r.singular),
            dependent=list(r.dependent),
            involved=list(r.involved),
        )
    s = v.system
    J = np.asarray(s.phi_q(v.q, 0.0), dtype=float)
    n, m = s.n, J.shape[0]
    rank, dependent, groups = rank_analysis(J) if m else (0, [], [])
    labels = list(getattr(s, "labels", [])) or [f"row {i}" for i in range(m)]
    redundant, singular = [], False
    if dependent:
        g_rank, g_dep = nearby_rank(lambda x: s.phi(x, 0.0), lambda x: s.phi_q(x, 0.0), v.q)
        singular = g_rank > rank
        redundant = [labels[r] for r in g_dep] if not singular else []
    rows = v.row_joint or labels
    involved = sorted({rows[r] for g in groups for r in g}, key=rows.index)
    return dict(
        coordinates=n,
        constraints=m,
        rank=rank,
        dof=n - rank,
        grubler=n - m,
        redundant=redundant,
        singular=singular,
        dependent=[labels[r] for r in dependent],
        involved=involved,
    )


def step4(v: ModelView, expected_dof) -> list:
    d = _dof_numbers(v)
    v.extra["dof"] = d
    detail = (
        f"{d['coordinates']} coordinates ({v.coordinate_kind}), {d['constraints']} constraint equations "
        f"(Grübler count {d['grubler']}), rank of Φ_q {d['rank']}: DOF = {d['coordinates']} − {d['rank']} "
        f"= {d['dof']}"
    )
    values = {k: d[k] for k in ("coordinates", "constraints", "rank", "dof", "grubler")}
    if expected_dof is None:
        dof = item("dof", 4, "degrees of freedom", "info", detail, **values)
    else:
        if not isinstance(expected_dof, numbers.Integral) or expected_dof < 0:
            raise ModelError(
                f"check_model: expected_dof must be a non-negative integer, got {expected_dof!r}"
            )
        e = int(expected_dof)
        if d["dof"] == e:
            dof = item("dof", 4, "degrees of freedom", "pass", detail + ", as expected", expected=e, **values)
        elif d["dof"] < e:
            culprit = d["redundant"] or d["dependent"]
            dof = item(
                "dof",
                4,
                "degrees of freedom",
                "fail",
                detail + f", expected {e}: over-constrained or redundant",
                "remove or relax a constraint"
                + (f" (dependent: {', '.join(culprit)})" if culprit else "")
                + f": the model has {e - d['dof']} DOF fewer than expected",
                expected=e,
                **values,
            )
        else:
            loose = v.extra.get("loose", [])
            dof = item(
                "dof",
                4,
                "degrees of freedom",
                "fail",
                detail + f", expected {e}: a constraint is missing",
                f"add the missing joint(s): {d['dof'] - e} DOF more than expected"
                + (f" (unconnected: {', '.join(loose)})" if loose else ""),
                expected=e,
                **values,
            )
    rows = v.row_joint or []
    labels = list(getattr(v.system, "labels", []))

    def joint_of(label):
        return rows[labels.index(label)] if label in labels and len(rows) == len(labels) else label

    if d["redundant"]:
        joints = list(dict.fromkeys(joint_of(lab) for lab in d["redundant"]))
        red = item(
            "redundant",
            4,
            "redundant constraints",
            "fail",
            f"rank deficient at a regular configuration: dependent rows {', '.join(d['redundant'])}; "
            f"joints involved: {', '.join(d['involved'])}",
            f"replace joint {joints[0]!r} by a lower pair/point-on-line, or remove it (it repeats what "
            "the other joints already impose)",
            rows=d["redundant"],
            joints=joints,
            involved=d["involved"],
        )
    elif d["singular"]:
        red = item(
            "redundant",
            4,
            "redundant constraints",
            "warn",
            f"singular configuration: rank {d['rank']} here but full nearby; dependent here: "
            f"{', '.join(d['dependent'])}",
            "check the model at a configuration away from the singular "
            f"position (joints {', '.join(d['involved'])} line up)",
            rows=d["dependent"],
        )
    else:
        red = item(
            "redundant",
            4,
            "redundant constraints",
            "pass",
            "independent constraint equations" if d["constraints"] else "no constraint equations",
            rows=[],
        )
    return [dof, red]


# ====================================================================== step 5: M, Q, Φ_q
def _coordinate_owner(v: ModelView, k: int) -> str:
    if v.kind == "PlanarModel":
        return f"body {v.bodies[k // 3].name!r} ({'x y φ'.split()[k % 3]})"
    if v.kind == "Chain":
        return f"joint {v.model.joint_names[k]!r} (link {v.model.link_names[k]!r})"
    return f"coordinate {k}"


def step5(v: ModelView) -> list:
    M = np.asarray(v.mass_matrix(v.q_model), dtype=float)
    n = M.shape[0]
    scale = max(float(np.max(np.abs(M))), 1e-300)
    asym = float(np.max(np.abs(M - M.T))) / scale
    title = "mass matrix: symmetric, positive definite"
    try:
        np.linalg.cholesky(M)
        pd = True
    except np.linalg.LinAlgError:
        pd = False
    cond = float(np.linalg.cond(M)) if pd else np.inf
    values = dict(asymmetry=asym, positive_definite=pd, cond=cond)
    if asym > 1e-12:
        i, j = np.unravel_index(np.argmax(np.abs(M - M.T)), M.shape)
        mm = item(
            "mass_matrix",
            5,
            title,
            "fail",
            f"M ({n}×{n}) is not symmetric: relative asymmetry {f3(asym)} at M[{i},{j}]",
            f"check the terms coupling {_coordinate_owner(v, int(i))} and "
            f"{_coordinate_owner(v, int(j))}: M must equal Mᵀ",
            **values,
        )
    elif not pd:
        k = int(np.argmin(np.diag(M)))
        mm = item(
            "mass_matrix",
            5,
            title,
            "fail",
            f"M ({n}×{n}) is not positive definite (Cholesky fails; "
            f"smallest eigenvalue {f3(np.linalg.eigvalsh(M)[0])})",
            f"give {_coordinate_owner(v, k)} mass and inertia: some coordinate moves no mass",
            **values,
        )
    else:
        status = "warn" if cond > 1e12 else "pass"
        mm = item(
            "mass_matrix",
            5,
            title,
            status,
            f"M ({n}×{n}) symmetric (relative asymmetry {f3(asym)}), "
            f"positive definite (Cholesky), condition number {f3(cond)}",
            "rescale the model (units) or check for a tiny mass or inertia: M is nearly singular",
            **values,
        )
    J = np.asarray(v.system.phi_q(v.q, 0.0), dtype=float)
    nnz_M = int(np.count_nonzero(M))
    fill_M = nnz_M / n**2
    if J.size:
        nnz_J = int(np.count_nonzero(J))
        fill_J = nnz_J / J.size
        jac = f"Φ_q ({J.shape[0]}×{J.shape[1]}): {nnz_J} non-zeros, fill {f3(fill_J)}"
    else:
        nnz_J, fill_J, jac = 0, 0.0, "no constraint Jacobian"
    sp_ = item(
        "sparsity",
        5,
        "sparsity of M and Φ_q",
        "info",
        f"M: {nnz_M} non-zeros of {n * n}, fill {f3(fill_M)}; {jac}",
        nnz_M=nnz_M,
        fill_M=fill_M,
        nnz_Phi_q=nnz_J,
        fill_Phi_q=fill_J,
    )
    return [mm, sp_]


# ====================================================================== step 6: statics, small motion, gains
def kkt_accelerations(system, q, qd, t=0.0):
    """q̈ from the KKT system by least squares (any rank of J) and its relative residual."""
    n = system.n
    M, Q = system.M(q), system.Q(t, q, qd)
    J = np.vstack([system.phi_q(q, t), system.B(q, t)])
    g = np.concatenate([system.gamma(q, qd, t), system.b_gamma(q, qd, t)])
    r = J.shape[0]
    K = np.block([[M, J.T], [J, np.zeros((r, r))]])
    rhs = np.concatenate([Q, g])
    x = np.linalg.lstsq(K, rhs, rcond=None)[0]
    res = float(np.linalg.norm(K @ x - rhs)) / max(float(np.linalg.norm(rhs)), 1e-300)
    return x[:n], res if np.linalg.norm(rhs) > 0 else 0.0


def _statics(v: ModelView) -> dict:
    title = "static start: the mechanism falls the way gravity pulls"
    if v.gravity is None and v.kind == "Chain":
        return item("statics", 6, title, "info", "skipped: gravity not stated (step 1)")
    t = 0.0
    if v.statics is not None:
        qdd, potential = v.statics(v.q_model)
        q, res = v.q_model, 0.0
    else:
        q = v.q
        qdd, res = kkt_accelerations(v.system, q, np.zeros(v.system.n), t)

        def potential(x):
            return v.system.energy(x, np.zeros(v.system.n))

    if res > 1e-8:
        return item(
            "statics",
            6,
            title,
            "fail",
            f"the KKT system at rest is not solvable (relative residual {f3(res)})",
            "check the constraints at this configuration (step 4) and assemble the model first",
            residual=res,
        )
    size = float(np.max(np.abs(qdd)))
    if v.force_free:
        if size > 1e-9:
            return item(
                "statics",
                6,
                title,
                "fail",
                f"no applied forces, yet q̈ = {vec(qdd)} at rest",
                "check Q: with no gravity, springs or loads it must vanish at rest",
                qdd_max=size,
            )
        return item("statics", 6, title, "pass", "no applied forces: q̈ = 0 at rest", qdd_max=size)
    if size <= 1e-9 * max(1.0, float(np.max(np.abs(q)))):
        return item("statics", 6, title, "pass", "in static equilibrium: q̈ = 0 at rest", qdd_max=size)
    d = qdd / np.linalg.norm(qdd)
    eps = 1e-6 * max(1.0, float(np.max(np.abs(q))))
    dV = (potential(q + eps * d) - potential(q - eps * d)) / (2 * eps)
    detail = f"KKT solvable at rest; |q̈| = {f3(np.linalg.norm(qdd))}; dV/ds along q̈ = {f3(dV)} J per unit"
    if not v.conservative:
        return item("statics", 6, title, "info", detail + f" (not judged: {v.nonconservative})", dV=dV)
    scale = abs(potential(q + eps * d) - potential(q)) / eps + abs(potential(q)) * 1e-9 + 1e-12
    if dV < 0:
        return item("statics", 6, title, "pass", detail + ": the potential energy decreases", dV=dV)
    if abs(dV) <= 1e-6 * scale:
        return item(
            "statics",
            6,
            title,
            "warn",
            detail + ": the potential energy does not change",
            "check that the forces in Q derive from the energy function",
            dV=dV,
        )
    return item(
        "statics",
        6,
        title,
        "fail",
        detail + ": the potential energy increases — the mechanism "
        "starts to move against the forces that the energy function describes",
        "sign of gravity or of a force? Q and the energy disagree: check the sign of gravity in Q, "
        "or of the force elements",
        dV=dV,
    )


def tangent_basis(system, q):
    J = np.vstack([system.phi_q(q, 0.0), system.B(q, 0.0)])
    if J.shape[0] == 0:
        return np.eye(system.n)
    _, s, Vt = np.linalg.svd(J)
    rank = int(np.sum(s > 1e-10 * max(s[0], 1e-300)))
    return Vt[rank:].T


def natural_frequency(v: ModelView) -> float:
    """The fastest rate of the mechanism's own motion [rad/s], in the tangent coordinates z (q = q0 + N z).

    The largest of: the eigenvalues of the motion linearized on the constraint manifold
    (``z̈ ≈ A_q z + A_v ż``, by central differences), ``sqrt(|z̈|)`` (the time scale of a start from
    rest, e.g. a horizontal pendulum, where the linearized stiffness vanishes) and ``|ż|``.
    """
    s = v.system
    N = tangent_basis(s, v.q)
    d = N.shape[1]
    if d == 0:
        return 0.0
    qd = v.qd if len(v.qd) == s.n else np.zeros(s.n)
    rates = [np.sqrt(np.max(np.abs(N.T @ kkt_accelerations(s, v.q, qd)[0]))), np.max(np.abs(N.T @ qd))]
    eps = 1e-6 * max(1.0, float(np.max(np.abs(v.q))))
    Aq, Av = np.zeros((d, d)), np.zeros((d, d))
    for k in range(d):
        for A, dq, dv in ((Aq, eps * N[:, k], 0.0), (Av, 0.0, eps * N[:, k])):
            plus = kkt_accelerations(s, v.q + dq, qd + dv)[0]
            minus = kkt_accelerations(s, v.q - dq, qd - dv)[0]
            A[:, k] = N.T @ (plus - minus) / (2 * eps)
    lam = np.linalg.eigvals(np.block([[np.zeros((d, d)), np.eye(d)], [Aq, Av]]))
    return float(max(np.max(np.abs(lam)), *rates))


def _stabilization(v: ModelView, alpha, beta, step, result) -> dict:
    title = "Baumgarte gains against the step and the mechanism"
    alpha = beta if alpha is None else alpha
    beta = alpha if beta is None else beta
    alpha, beta = float(alpha), float(beta)
    if not (alpha >= 0 and beta >= 0):
        raise ModelError(f"check_model: alpha and beta must be non-negative numbers, got {alpha!r}, {beta!r}")
    if v.system.phi_q(v.q, 0.0).shape[0] == 0:
        return item(
            "stabilization",
            6,
            title,
            "info",
            f"α = {f3(alpha)}, β = {f3(beta)}: no constraint equations, nothing to stabilize",
            alpha=alpha,
            beta=beta,
        )
    poles = np.roots([1.0, 2 * alpha, beta**2])  # s² + 2α s + β² = 0
    s_max = float(np.max(np.abs(poles)))
    decay = float(np.min(-poles.real))
    omega = natural_frequency(v)
    h = (
        step
        if step is not None
        else (result.t[-1] - result.t[0]) / max(result.n_steps, 1)
        if result is not None and hasattr(result, "n_steps")
        else None
    )
    suggest = max(1.0, 5 * omega)
    if h:
        suggest = min(suggest, 1.0 / h)
    values = dict(alpha=alpha, beta=beta, poles=poles, s_max=s_max, omega=omega, h=h, suggest=suggest)
    detail = (
        f"α = {f3(alpha)}, β = {f3(beta)}: poles of s² + 2αs + β² at |s| ≤ {f3(s_max)} 1/s; fastest "
        f"motion of the mechanism {f3(omega)} rad/s"
        + (f"; step h = {f3(h)} s, |s| h = {f3(s_max * h)}" if h else "")
    )
    fix = f"use α = β ≈ {f3(suggest)} 1/s (a few times the mechanism's fastest motion, below 1/h)"
    if h and s_max * h > 2:
        return item(
            "stabilization",
            6,
            title,
            "warn",
            detail + ": an explicit Runge-Kutta step is limited by the stiffness of the stabilization",
            fix,
            **values,
        )
    if omega > 0 and s_max > 100 * omega:
        return item(
            "stabilization",
            6,
            title,
            "warn",
            detail + f": the poles are {f3(s_max / omega)} times "
            "faster than the mechanism (stiff: explicit solvers need h < 2/|s|)",
            fix,
            **values,
        )
    if omega > 0 and decay < 0.1 * omega:
        return item(
            "stabilization",
            6,
            title,
            "warn",
            detail + ": the drift is corrected far more slowly than the mechanism moves",
            fix,
            **values,
        )
    return item("stabilization", 6, title, "pass", detail, **values)


def _small_displacement(v: ModelView, statics_status: str, singular: bool) -> dict:
    title = "small displacement: short projection simulation"
    s = v.system
    if singular:
        return item(
            "small_displacement",
            6,
            title,
            "info",
            "skipped: redundant constraints or a singular "
            "configuration (step 4); the index-1 solvers need independent constraints",
        )
    N = tangent_basis(s, v.q)
    rng = np.random.default_rng(0)
    qd = np.asarray(v.qd, dtype=float) if len(v.qd) == s.n else np.zeros(s.n)
    if N.shape[1]:
        dv = N @ rng.standard_normal(N.shape[1])
        qd = qd + 0.01 * dv / np.max(np.abs(dv))
    try:
        qd = dae.project_velocities(s, v.q, qd) if s.phi_q(v.q, 0.0).shape[0] else qd
        r = dae.simulate(s, v.horizon, method="projection", rtol=v.rtol, atol=v.rtol, q0=v.q, qd0=qd)
    except MbdError as exc:
        return item(
            "small_displacement",
            6,
            title,
            "fail",
            f"the simulation failed: {exc}",
            "fix the items above; then simulate a short time from rest",
            error=str(exc),
        )
    viol = float(max(r.violation.max(), r.violation_velocity.max()))
    err = r.energy_error
    detail = (
        f"{f3(v.horizon)} s from a perturbed state (rtol {f3(v.rtol)}): max ‖Φ‖, ‖Φ̇‖ = {f3(viol)}, "
        f"relative energy error {f3(err)}, {r.n_steps} steps"
    )
    values = dict(violation=viol, energy_error=err, n_steps=r.n_steps)
    if viol > 1e-8:
        return item(
            "small_displacement",
            6,
            title,
            "fail",
            detail,
            "check γ and Φ_q of the constraints (the projection cannot hold Φ = 0)",
            **values,
        )
    if not v.conservative:
        return item(
            "small_displacement",
            6,
            title,
            "pass",
            detail + f" (energy not judged: {v.nonconservative})",
            **values,
        )
    if statics_status == "fail":
        return item(
            "small_displacement", 6, title, "pass", detail + " (energy not judged: see statics)", **values
        )
    if err > 1e-4:
        return item(
            "small_displacement",
            6,
            title,
            "fail" if err > 1e-2 else "warn",
            detail + ": energy is not conserved",
            "check that Q derives from the energy (gravity, springs) and that nothing dissipates",
            **values,
        )
    return item("small_displacement", 6, title, "pass", detail, **values)


def step6(v: ModelView, small_displacement, alpha, beta, step, result) -> list:
    out = [_statics(v)]
    d = v.extra.get("dof", {})
    if small_displacement:
        if v.gravity is None and v.kind == "Chain":
            out.append(
                item(
                    "small_displacement",
                    6,
                    "small displacement: short projection simulation",
                    "info",
                    "skipped: gravity not stated (step 1)",
                )
            )
        else:
            out.append(
                _small_displacement(v, out[0]["status"], bool(d.get("redundant") or d.get("singular")))
            )
    if alpha is not None or beta is not None:
        out.append(_stabilization(v, alpha, beta, step, result))
    return out


# ====================================================================== step 7: a simulation
def step7(v: ModelView, result, alpha, beta) -> list:
    from .mechanisms import FourBarSimulation

    if isinstance(result, FourBarSimulation):
        return _step7_fourbar(v, result)
    if not isinstance(result, dae.SimulationResult):
        raise ModelError(
            f"check_model: result must be a mbdlib.dae.SimulationResult or a FourBarSimulation, "
            f"got {type(result).__name__}"
        )
    T = float(result.t[-1] - result.t[0])
    viol, viol_v = float(result.violation.max()), float(result.violation_velocity.max())
    detail = f"{result.method} ({result.solver}), {f3(T)} s: max ‖Φ‖ = {f3(viol)}, max ‖Φ̇‖ = {f3(viol_v)}"
    if max(viol, viol_v) > 1e-6:
        out = [
            item(
                "violation",
                7,
                "constraint violation",
                "fail",
                detail + " > 1e-6",
                "use projection / lower rtol / Baumgarte (method='projection' holds Φ = 0 to 1e-12)",
                violation=viol,
                violation_velocity=viol_v,
            )
        ]
    else:
        out = [
            item(
                "violation",
                7,
                "constraint violation",
                "pass",
                detail,
                violation=viol,
                violation_velocity=viol_v,
            )
        ]
    out.append(_energy_item(v, result.energy_error, f"{result.method} ({result.solver})"))
    out.append(_effort(v, result, alpha, beta))
    return out


def _energy_item(v: ModelView, err: float, what: str) -> dict:
    title = "energy"
    detail = f"relative energy error {f3(err)} ({what})"
    if not v.conservative:
        return item(
            "energy", 7, title, "info", detail + f"; not judged: {v.nonconservative}", energy_error=err
        )
    if err > 1e-4:
        return item(
            "energy",
            7,
            title,
            "fail" if err > 1e-2 else "warn",
            detail + " of a conservative model",
            "lower rtol/atol, or check that Q derives from the energy function",
            energy_error=err,
        )
    return item("energy", 7, title, "pass", detail, energy_error=err)


def _effort(v: ModelView, result, alpha, beta) -> dict:
    title = "solver effort"
    T = float(result.t[-1] - result.t[0])
    per_s = result.nfev / T if T > 0 else float("nan")
    detail = (
        f"{result.n_steps} steps, {f3(per_s)} function evaluations per simulated second, "
        f"{result.newton_iterations} Newton iterations (max {result.max_newton_iterations} per step)"
    )
    values = dict(n_steps=result.n_steps, nfev_per_second=per_s, newton=result.newton_iterations)
    if result.method != "baumgarte" or T <= 0:
        return item("solver_effort", 7, title, "info", detail, **values)
    a = result.alpha if alpha is None else alpha
    b = result.beta if beta is None else beta
    a, b = (b if a is None else a), (a if b is None else b)
    h = T / max(result.n_steps, 1)
    s_max = float(np.max(np.abs(np.roots([1.0, 2 * a, b**2])))) if a is not None else 0.0
    ref = dae.simulate(
        v.system,
        result.t[-1],
        method="none",
        solver=result.solver,
        rtol=result.rtol or 1e-9,
        atol=result.atol or 1e-9,
        t0=result.t[0],
        q0=result.q[0],
        qd0=result.qd[0],
    )
    ratio = result.n_steps / max(ref.n_steps, 1)
    values.update(reference_steps=ref.n_steps, ratio=ratio, s_h=s_max * h)
    detail += f"; without stabilization {ref.n_steps} steps (ratio {f3(ratio)}); |s| h = {f3(s_max * h)}"
    if ratio >= 10 or s_max * h >= 0.5:
        return item(
            "solver_effort",
            7,
            title,
            "warn",
            detail + ": the step is limited by the Baumgarte gain",
            f"lower α, β (now {f3(a)}, {f3(b)}) to a few times the mechanism's fastest motion, or use "
            "method='projection'",
            **values,
        )
    return item("solver_effort", 7, title, "pass", detail, **values)


def _step7_fourbar(v: ModelView, r) -> list:
    arm = v.model
    out = [
        item(
            "violation",
            7,
            "constraint violation",
            "pass",
            "the loop is closed in closed form at every "
            "step (passive angles from the active ones): no drift in q = (q1, q2)",
            violation=0.0,
            violation_velocity=0.0,
        )
    ]
    T = [
        0.5 * qd @ arm.mass_matrix(q) @ qd
        for q, qd in zip(r.q[:: max(1, len(r.t) // 20)], r.qd[:: max(1, len(r.t) // 20)], strict=True)
    ]
    scale = max(abs(float(r.energy[0])), max(T), 1e-300)
    err = float(np.max(np.abs(r.energy - r.energy[0]))) / scale
    out.append(_energy_item(v, err, "closed-chain Kane, DOP853"))
    dur = float(r.t[-1] - r.t[0])
    out.append(
        item(
            "solver_effort",
            7,
            "solver effort",
            "info",
            f"{r.nfev} function evaluations, {f3(r.nfev / dur if dur else 0)} per simulated second",
            nfev=r.nfev,
        )
    )
    return out
