"""Spatial bodies in Cartesian coordinates with Euler parameters: DOF by rank, and their dynamics.

Each body has seven coordinates ``q_k = (x, y, z, e0, e1, e2, e3)``: the position of its
reference point and its Euler parameters ``p`` (scalar first), with ``A(p)`` from
:func:`mbdlib.rotations.dcm_from_quat` and the normalization constraint ``pᵀp - 1 = 0``
(Nikravesh 1988, ch. 6-7; Haug 1989, ch. 9).  ``A(p)`` is the formula of ``dcm_from_quat``,
evaluated without its unit-norm check, since Newton steps leave the unit sphere.  The joints
are built from three basic constraints (Nikravesh 1988, §7.2):

* spherical: ``r_i + A_i s'_i - r_j - A_j s'_j = 0`` (3 equations);
* dot-1: ``(A_i a'_i)ᵀ (A_j a'_j) = 0``, two body vectors stay perpendicular;
* dot-2: ``(A_i a'_i)ᵀ d = 0``, ``d = r_Pj - r_Pi``.

The point Jacobian uses ``∂(A s')/∂e0 = 2 (2 e0 s' + ẽ s')`` and
``∂(A s')/∂e = 2 ((eᵀs') I + e s'ᵀ - e0 s̃')`` for ``A = (2e0² - 1) I + 2 (e eᵀ + e0 ẽ)``.

``Φ`` and ``Φ_q`` count coordinates, constraints and degrees of freedom.  With gravity stated and an
inertia per body, the model also follows the SYSTEM PROTOCOL of :mod:`mbdlib.dae` (``M``, ``Q``, ``γ``,
the nonholonomic rows of rolling bodies, ``energy``) and simulates (``system()``, ``simulate()``):
``M`` per body is ``diag(m I₃, 4 Lᵀ J′ L)`` made definite along ``p`` (see :meth:`SpatialModel.M`), and
``γ`` is computed exactly from the polynomial joint equations (:func:`_second_derivative`).

>>> m = SpatialModel()
>>> base = m.add_body("base")
>>> _ = m.fix(base)
>>> bob = m.add_body("bob", position=(0, 0, -1))
>>> _ = m.add_spherical(base, bob, point_i=(0, 0, 0), point_j=(0, 0, 1))
>>> m.dof_report().dof
3
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _validate
from .bodies import RigidBody
from .constraints import DofReport, motion_of
from .errors import ModelError
from .linalg import nearby_rank, rank_analysis
from .model import Model
from .rotations import _G as _euler_matrix
from .rotations import dcm_from_quat, normalize_quat  # noqa: F401 (dcm_from_quat: doctest)
from .system import ConstrainedSystem

__all__ = ["SpatialModel", "SpatialBody", "SpatialJoint", "SpatialDofReport", "point_jacobian"]


def _v3(x, name):
    return _validate.vector(x, 3, name)


def _unit3(x, name):
    return _validate.unit(x, 3, name)


def _perpendiculars(u):
    """Two unit vectors ``f, g`` with ``(u, f, g)`` orthonormal."""
    helper = np.eye(3)[int(np.argmin(np.abs(u)))]
    f = np.cross(u, helper)
    f /= np.linalg.norm(f)
    return f, np.cross(u, f)


def _tilde(v):
    """``ṽ`` with ``ṽ b = v × b`` (numeric, no validation: an inner-loop helper; see rotations.skew)."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _A(p):
    """``A(p) = (2 e0² - 1) I + 2 (e eᵀ + e0 ẽ)``: the formula of :func:`~mbdlib.rotations.dcm_from_quat`,
    evaluated as a polynomial so that it also holds off the unit sphere (Newton steps, finite
    differences) and costs a few flops.

    >>> p = np.array([0.8, 0.2, -0.4, 0.4]) / np.linalg.norm([0.8, 0.2, -0.4, 0.4])
    >>> bool(np.allclose(_A(p), dcm_from_quat(p)))
    True
    """
    e0, e = p[0], p[1:]
    return (2 * e0 * e0 - 1) * np.eye(3) + 2 * (np.outer(e, e) + e0 * _tilde(e))


def point_jacobian(p, s):
    """``∂(A(p) s')/∂p``, shape ``(3, 4)`` (Nikravesh 1988, ch. 6, for the A(p) of dcm_from_quat).

    >>> point_jacobian([1, 0, 0, 0], [1.0, 0, 0])
    array([[ 4.,  0.,  0.,  0.],
           [ 0.,  0.,  0.,  2.],
           [ 0.,  0., -2.,  0.]])
    """
    p, s = np.asarray(p, dtype=float), np.asarray(s, dtype=float)
    e0, e = p[0], p[1:]
    d0 = 2 * (2 * e0 * s + _tilde(e) @ s)
    de = 2 * ((e @ s) * np.eye(3) + np.outer(e, s) - e0 * _tilde(s))
    return np.column_stack([d0, de])


def _L(p):
    """``L(p) = [−e, −ẽ + e0 I]`` (3, 4), Nikravesh's body-frame matrix (:func:`mbdlib.rotations._G`):
    ``ω' = 2 L ṗ``; ``L p = 0`` and ``L Lᵀ = I`` for a unit ``p``.

    >>> p = np.array([0.8, 0.2, -0.4, 0.4]) / np.linalg.norm([0.8, 0.2, -0.4, 0.4])
    >>> bool(np.allclose(_L(p) @ p, 0.0) and np.allclose(_L(p) @ _L(p).T, np.eye(3)))
    True
    """
    return _euler_matrix(np.asarray(p, dtype=float), "body")


def _second_derivative(f, q, v):
    """``d²/ds² f(q + s v)`` at ``s = 0``, exactly for a polynomial ``f`` of degree ≤ 5 in ``q``.

    The central five-point stencil ``(−f₂ + 16 f₁ − 30 f₀ + 16 f₋₁ − f₋₂) / (12 h²)`` has no truncation
    error up to degree 5, and every joint equation here is a polynomial of degree ≤ 4 in ``q`` (``A(p)``
    is quadratic in ``p``).  The step ``h`` scales ``v`` to about unit size, so round-off stays at a
    few ulps of ``f``: this is the exact ``γ = −(Φ_q q̇)_q q̇``, not a finite-difference estimate.
    """
    h = 1.0 / max(float(np.max(np.abs(v))), 1e-300)
    vals = [np.asarray(f(q + k * h * v), dtype=float) for k in (2, 1, 0, -1, -2)]
    return (-vals[0] + 16 * vals[1] - 30 * vals[2] + 16 * vals[3] - vals[4]) / (12 * h * h)


_D1 = np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0.0, 4 / 5, -1 / 5, 4 / 105, -1 / 280])


def _first_derivative(f, q, v):
    """``d/ds f(q + s v)`` at ``s = 0``, exactly for a polynomial ``f`` of degree ≤ 8 in ``q`` (the central
    nine-point stencil has no truncation error up to degree 8; the rolling rows are of degree 7)."""
    h = 0.25 / max(float(np.max(np.abs(v))), 1e-300)
    terms = [c * np.asarray(f(q + k * h * v), dtype=float)
             for c, k in zip(_D1, range(-4, 5), strict=True) if c]
    return sum(terms) / h


@dataclass(eq=False)  # bodies compare by identity
class SpatialBody:
    """A body of a :class:`SpatialModel`: initial position (3,), Euler parameters (4,), mass, central
    inertia in body components (3, 3; None: kinematics only), initial velocity and angular velocity
    (global components)."""

    name: str
    position: np.ndarray
    orientation: np.ndarray
    mass: float
    index: int
    inertia: np.ndarray | None = None
    velocity: np.ndarray | None = None
    angular_velocity: np.ndarray | None = None


class SpatialJoint:
    """Equations ``Φ`` (``phi``) and ``Φ_q`` (``jacobian``) on the joint's own coordinates.

    ``q`` holds the 7 coordinates of each body in ``bodies``, shape ``(7 * len(bodies),)``.
    """

    def __init__(self, kind, name, bodies, labels, build):
        self.kind, self.name, self.bodies = kind, name, tuple(bodies)
        self.labels = [f"{kind} {name} {lab}".rstrip() for lab in labels]
        self._build = build

    @property
    def n_eq(self) -> int:
        return len(self.labels)

    def phi(self, q, t=0.0):
        """``Φ``, shape ``(n_eq,)`` (the rows of Φ_q are not formed)."""
        return np.array([v for v, _ in self._build(np.asarray(q, dtype=float), False)], dtype=float)

    def jacobian(self, q, t=0.0):
        """``Φ_q``, shape ``(n_eq, 7 * len(bodies))``."""
        return np.vstack([row for _, row in self._build(np.asarray(q, dtype=float), True)])

    def __repr__(self):
        return f"SpatialJoint({self.kind!r}, {self.name!r}, bodies={self.bodies})"


class SpatialDriver(SpatialJoint):
    """One driving equation ``Φ(q, t) = Σ_k a_k(q) c_k(t) = 0``: parts ``a_k`` polynomial in ``q`` (so the
    stencil gives their second derivatives exactly) times known functions of time with their derivatives.

    ``Φ_t = Σ a_k ċ_k`` and ``γ = −Σ_k (ä_k c_k + 2 ȧ_k ċ_k + a_k c̈_k)``, where ``ȧ_k = (a_k)_q q̇`` and
    ``ä_k = (a_k)_qq(q̇, q̇)``: the second time derivative of Φ without the ``Φ_q q̈`` term (Haug 1989, §3.5).
    """

    def __init__(self, kind, name, bodies, parts, coef):
        super().__init__(kind, name, bodies, ["driver"], None)
        self.parts, self.coef = parts, coef      # parts(q, jac) -> [(a_k, row_k)]; coef(t) -> (c, ċ, c̈)

    def phi(self, q, t=0.0):
        c = self.coef(t)[0]
        return np.array([sum(ck * a for ck, (a, _) in zip(c, self.parts(q, False), strict=True))])

    def jacobian(self, q, t=0.0):
        c = self.coef(t)[0]
        return np.array([sum(ck * row for ck, (_, row) in zip(c, self.parts(q, True), strict=True))])

    def phi_t(self, q, t=0.0):
        cd = self.coef(t)[1]
        return np.array([sum(ck * a for ck, (a, _) in zip(cd, self.parts(q, False), strict=True))])

    def gamma(self, q, qd, t=0.0):
        c, cd, cdd = self.coef(t)
        parts = self.parts(q, True)
        a = np.array([v for v, _ in parts])
        a_dot = np.array([row @ qd for _, row in parts])
        a_ddot = _second_derivative(lambda x: np.array([v for v, _ in self.parts(x, False)]), q, qd) \
            if np.any(qd) else np.zeros(len(parts))
        return np.array([-(a_ddot @ c + 2 * a_dot @ cd + a @ cdd)])


def _vector(q, k, a, point, jac=True):
    """Value (3,) and Jacobian (3, len(q); None without ``jac``) of ``r_k + A_k a'`` (point) or ``A_k a'``."""
    r, p = q[7 * k: 7 * k + 3], q[7 * k + 3: 7 * k + 7]
    val = _A(p) @ a
    if not jac:
        return (val + r if point else val), None
    jac = np.zeros((3, len(q)))
    jac[:, 7 * k + 3: 7 * k + 7] = point_jacobian(p, a)
    if point:
        val = val + r
        jac[:, 7 * k: 7 * k + 3] = np.eye(3)
    return val, jac


def _spherical(q, si, sj, jac=True):
    (pi, Ji), (pj, Jj) = _vector(q, 0, si, True, jac), _vector(q, 1, sj, True, jac)
    return [(pi[c] - pj[c], Ji[c] - Jj[c] if jac else None) for c in range(3)]


def _dot1(q, ai, aj, jac=True):
    (u, Ju), (v, Jv) = _vector(q, 0, ai, False, jac), _vector(q, 1, aj, False, jac)
    return u @ v, (u @ Jv + v @ Ju) if jac else None


def _dot2(q, ai, si, sj, jac=True):
    (u, Ju) = _vector(q, 0, ai, False, jac)
    (pi, Ji), (pj, Jj) = _vector(q, 0, si, True, jac), _vector(q, 1, sj, True, jac)
    d = pj - pi
    return u @ d, (u @ (Jj - Ji) + d @ Ju) if jac else None


@dataclass
class SpatialDofReport(DofReport):
    """:class:`DofReport` plus the counts without Euler parameters (6 per body, no normalization)."""

    coordinates_6: int = 0
    constraints_6: int = 0


class SpatialModel(Model):
    """Spatial mechanism in Cartesian coordinates with Euler parameters (7 per body)."""

    def __init__(self, gravity=None):
        self._assembly = None
        self.bodies: list[SpatialBody] = []
        self.joints: list[SpatialJoint] = []
        self._index: list[np.ndarray] = []
        self.gravity = None if gravity is None else _v3(gravity, "gravity")
        self.forces: list[tuple] = []
        self.springs: list[dict] = []
        self.rolling: list[tuple] = []                 # (body, radius, axis′): rows of B q̇ = 0

    @property
    def n(self) -> int:
        """Number of coordinates, ``7 * len(bodies)``."""
        return 7 * len(self.bodies)

    def add_body(self, name, position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0), mass=1.0,
                 inertia=None, velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0)):
        """Add a body: initial position of its centre of mass, Euler parameters (normalised here), mass,
        central inertia in body components (3 × 3, or the 3 principal moments; needed for dynamics),
        and the initial velocity of the centre of mass and angular velocity, in global components."""
        name = str(name)
        if any(b.name == name for b in self.bodies):
            raise ModelError(f"a body named {name!r} already exists; pick another name")
        if not (np.isfinite(mass) and mass > 0):
            raise ModelError(f"body {name!r}: mass must be positive, got {mass!r}")
        J = None if inertia is None else \
            np.asarray(RigidBody(float(mass), inertia=inertia, name=name).inertia, dtype=float)
        body = SpatialBody(name, _v3(position, f"body {name!r}: position"),
                           normalize_quat(orientation), float(mass), len(self.bodies), J,
                           _v3(velocity, f"body {name!r}: velocity"),
                           _v3(angular_velocity, f"body {name!r}: angular_velocity"))
        self.bodies.append(body)
        self._changed()
        return body

    def add_force(self, body, force, point=(0.0, 0.0, 0.0), name=None):
        """A force (global components; constant or ``force(t, q, qd)``) at ``point`` (body frame)."""
        self.forces.append(("force", self.body(body), force, _v3(point, "point"), name))

    def add_torque(self, body, torque, name=None):
        """A torque (global components, constant or ``torque(t, q, qd)``) on the body."""
        self.forces.append(("torque", self.body(body), torque, None, name))

    def add_spring_damper(self, body_i, body_j, point_i=(0.0, 0.0, 0.0), point_j=(0.0, 0.0, 0.0),
                          stiffness=0.0, damping=0.0, rest_length=None, name=None):
        """Translational spring-damper between two points (body frames): tension ``k (ℓ − ℓ0) + c ℓ̇`` along
        the line; ``rest_length`` defaults to the distance at the initial poses.  Its potential
        ``½ k (ℓ − ℓ0)²`` is part of :meth:`energy`."""
        bi, bj = self.body(body_i), self.body(body_j)
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        for value, what in ((stiffness, "stiffness"), (damping, "damping")):
            if not (np.isfinite(value) and value >= 0):
                raise ModelError(f"spring-damper: {what} must be a number ≥ 0, got {value!r}")
        if rest_length is None:
            rest_length = float(np.linalg.norm(bj.position + _A(bj.orientation) @ sj
                                               - bi.position - _A(bi.orientation) @ si))
        self.springs.append(dict(bodies=(bi, bj), points=(si, sj), k=float(stiffness), c=float(damping),
                                 l0=float(rest_length), name=name or f"spring{len(self.springs) + 1}"))

    def _spring_state(self, s, q, qd):
        """Length, rate, unit vector i → j and the point Jacobians (3, 7) of each end."""
        ends = []
        for b, pt in zip(s["bodies"], s["points"], strict=True):
            k = 7 * b.index
            p = q[k + 3: k + 7]
            J = np.hstack([np.eye(3), point_jacobian(p, pt)])
            ends.append((q[k: k + 3] + _A(p) @ pt, J @ qd[k: k + 7], J))
        d, dv = ends[1][0] - ends[0][0], ends[1][1] - ends[0][1]
        length = float(np.linalg.norm(d))
        if length == 0:
            raise ModelError(f"spring {s['name']!r}: its two points coincide, so its direction is undefined")
        e = d / length
        return length, float(e @ dv), e, ends[0][2], ends[1][2]

    def body(self, b) -> SpatialBody:
        if isinstance(b, SpatialBody) and b in self.bodies:
            return b
        for body in self.bodies:
            if body.name == b:
                return body
        raise ModelError(f"unknown body {getattr(b, 'name', b)!r}; the bodies are: "
                         + ", ".join(x.name for x in self.bodies))

    def _add(self, kind, name, bodies, labels, build, make=SpatialJoint):
        """Check the bodies and the name, then ``make(kind, name, body names, labels, build)``."""
        bodies = [self.body(b) for b in bodies]
        if len(bodies) == 2 and bodies[0] is bodies[1]:
            raise ModelError(f"{kind}: a joint needs two different bodies, got {bodies[0].name!r} twice")
        name = str(name) if name is not None else f"{kind}{len(self.joints) + 1}"
        if any(j.name == name for j in self.joints):
            raise ModelError(f"a joint named {name!r} already exists; give a unique name=")
        joint = make(kind, name, [b.name for b in bodies], labels, build)
        self.joints.append(joint)
        self._index.append(np.array([7 * b.index + k for b in bodies for k in range(7)]))
        self._changed()
        return joint

    def fix(self, body, name=None) -> SpatialJoint:
        """Fix a body at its initial pose: ``r - r0 = 0``, vector part of ``p0* ⊗ p`` = 0 (6 equations).

        The vector part of ``p0* ⊗ p`` is ``a0 e - e0 a - ã e`` (``p0 = (a0, a)``), linear in ``p``.
        """
        b = self.body(body)
        r0, a0, a = b.position.copy(), b.orientation[0], b.orientation[1:]
        L = np.column_stack([-a, a0 * np.eye(3) - _tilde(a)])

        def build(q, jac=True):
            rows = []
            for c in range(3):
                row = np.zeros(7)
                row[c] = 1.0
                rows.append((q[c] - r0[c], row))
            for c in range(3):
                row = np.zeros(7)
                row[3:] = L[c]
                rows.append((L[c] @ q[3:7], row))
            return rows

        return self._add("fix", name, [b], ["x", "y", "z", "rx", "ry", "rz"], build)

    def add_spherical(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), name=None):
        """Ball joint: ``point_i`` of body i = ``point_j`` of body j (3 equations)."""
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        return self._add("spherical", name, [body_i, body_j], ["x", "y", "z"],
                         lambda q, jac: _spherical(q, si, sj, jac))

    def add_revolute(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), axis_i=(0, 0, 1),
                     axis_j=None, name=None):
        """Revolute joint: spherical + ``h_j ⊥ f_i, g_i`` (axes stay parallel; 5 equations).

        ``axis_j`` defaults to ``axis_i`` carried into body j by the initial orientations.
        """
        ui = _unit3(axis_i, "axis_i")
        hj = self._carry(body_i, body_j, ui) if axis_j is None else _unit3(axis_j, "axis_j")
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        fi, gi = _perpendiculars(ui)
        return self._add("revolute", name, [body_i, body_j], ["x", "y", "z", "axis f", "axis g"],
                         lambda q, jac: _spherical(q, si, sj, jac) + [_dot1(q, fi, hj, jac),
                                                                     _dot1(q, gi, hj, jac)])

    def add_universal(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), axis_i=(1, 0, 0),
                      axis_j=(0, 1, 0), name=None):
        """Universal (Hooke) joint: spherical + ``(A_i h_i)ᵀ (A_j h_j) = 0`` (the cross; 4 equations)."""
        hi, hj = _unit3(axis_i, "axis_i"), _unit3(axis_j, "axis_j")
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        return self._add("universal", name, [body_i, body_j], ["x", "y", "z", "cross"],
                         lambda q, jac: _spherical(q, si, sj, jac) + [_dot1(q, hi, hj, jac)])

    def add_prismatic(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), axis_i=(0, 0, 1),
                      axis_j=None, name=None):
        """Prismatic joint (5 equations; Haug 1989, §9.3): axes parallel (2 dot-1), ``P_j`` on the
        axis of body i (2 dot-2), and no rotation about the axis (1 dot-1 with a body-j vector that
        is perpendicular to ``f_i`` in the initial configuration)."""
        ui = _unit3(axis_i, "axis_i")
        hj = self._carry(body_i, body_j, ui) if axis_j is None else _unit3(axis_j, "axis_j")
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        fi, gi = _perpendiculars(ui)
        gj = self._carry(body_i, body_j, gi)
        return self._add(
            "prismatic", name, [body_i, body_j], ["axis f", "axis g", "line f", "line g", "twist"],
            lambda q, jac: [_dot1(q, fi, hj, jac), _dot1(q, gi, hj, jac), _dot2(q, fi, si, sj, jac),
                            _dot2(q, gi, si, sj, jac), _dot1(q, fi, gj, jac)])

    def add_cylindrical(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), axis_i=(0, 0, 1),
                        axis_j=None, name=None):
        """Cylindrical joint: the prismatic joint without its twist row (4 equations: axes parallel,
        ``P_j`` on the axis of body i); it slides along and turns about the axis."""
        ui = _unit3(axis_i, "axis_i")
        hj = self._carry(body_i, body_j, ui) if axis_j is None else _unit3(axis_j, "axis_j")
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        fi, gi = _perpendiculars(ui)
        return self._add(
            "cylindrical", name, [body_i, body_j], ["axis f", "axis g", "line f", "line g"],
            lambda q, jac: [_dot1(q, fi, hj, jac), _dot1(q, gi, hj, jac), _dot2(q, fi, si, sj, jac),
                            _dot2(q, gi, si, sj, jac)])

    def add_distance(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), length=None, name=None):
        """Distance ``|P_j − P_i| = length`` written as ``dᵀd − length² = 0`` (1 equation; a massless
        rod with a ball joint at each end).  ``length`` defaults to the distance at the initial poses."""
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        bi, bj = self.body(body_i), self.body(body_j)
        if length is None:
            length = float(np.linalg.norm(bj.position + _A(bj.orientation) @ sj
                                          - bi.position - _A(bi.orientation) @ si))
        if not (np.isfinite(length) and length > 0):
            raise ModelError(f"distance: the length must be positive, got {length!r}")
        L2 = float(length) ** 2

        def build(q, jac=True):
            (pi, Ji), (pj, Jj) = _vector(q, 0, si, True, jac), _vector(q, 1, sj, True, jac)
            d = pj - pi
            return [(d @ d - L2, 2 * d @ (Jj - Ji) if jac else None)]

        return self._add("distance", name, [bi, bj], [""], build)

    def add_rotational_driver(self, body_i, body_j, axis_i=(0, 0, 1), f=None, df=None, ddf=None, speed=None,
                              name=None) -> SpatialDriver:
        """Prescribe the turn ``θ(t)`` of body j relative to body i about ``axis_i`` (body-i frame), counted
        from the initial poses (1 equation; add it to a revolute or cylindrical joint about that axis).

        With ``f_i, g_i ⊥ axis_i`` on body i and ``f_j`` = ``f_i`` carried into body j at the initial
        poses, the turn puts ``f_j = cos θ f_i + sin θ g_i``, so
        ``Φ = (f_jᵀ g_i) cos θ − (f_jᵀ f_i) sin θ = 0``: one smooth equation whose derivative in θ is
        −1 at the solution (no singular angle, unlike ``θ − atan2(...)``).  ``f, df, ddf`` are θ(t) and
        its derivatives (rad, rad/s, rad/s²); ``speed`` is the shortcut θ = speed·t.
        """
        ui = _unit3(axis_i, "axis_i")
        fi, gi = _perpendiculars(ui)
        fj = self._carry(body_i, body_j, fi)
        name = str(name) if name is not None else f"rotational driver{len(self.joints) + 1}"
        motion = motion_of(name, f, df, ddf, speed, 0.0)

        def parts(q, jac=True):
            return [_dot1(q, gi, fj, jac), _dot1(q, fi, fj, jac)]

        def coef(t):
            th, thd, thdd = motion(t)
            c, s = np.cos(th), np.sin(th)
            return (np.array([c, -s]), np.array([-s, -c]) * thd,
                    np.array([-s, -c]) * thdd - np.array([c, -s]) * thd ** 2)

        return self._add_driver("rotational driver", name, [body_i, body_j], parts, coef)

    def add_distance_driver(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), f=None, df=None,
                            ddf=None, speed=None, name=None) -> SpatialDriver:
        """Prescribe the distance ``ℓ(t)`` between two points (body frames): ``dᵀd − ℓ(t)² = 0`` (1 equation;
        e.g. a linear actuator between two ball joints).  ``speed``: ℓ = ℓ(0) + speed·t from the initial
        distance."""
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        bi, bj = self.body(body_i), self.body(body_j)
        start = float(np.linalg.norm(bj.position + _A(bj.orientation) @ sj - bi.position
                                     - _A(bi.orientation) @ si))
        name = str(name) if name is not None else f"distance driver{len(self.joints) + 1}"
        motion = motion_of(name, f, df, ddf, speed, start)

        def parts(q, jac=True):
            (pi, Ji), (pj, Jj) = _vector(q, 0, si, True, jac), _vector(q, 1, sj, True, jac)
            d = pj - pi
            return [(d @ d, 2 * d @ (Jj - Ji) if jac else None), (1.0, np.zeros(len(q)) if jac else None)]

        def coef(t):
            ell, elld, elldd = motion(t)               # (ℓ²)' = 2ℓℓ̇, (ℓ²)'' = 2(ℓ̇² + ℓℓ̈)
            return (np.array([1.0, -ell ** 2]), np.array([0.0, -2 * ell * elld]),
                    np.array([0.0, -2 * (elld ** 2 + ell * elldd)]))

        return self._add_driver("distance driver", name, [bi, bj], parts, coef)

    def _add_driver(self, kind, name, bodies, parts, coef) -> SpatialDriver:
        def make(kind, name, names, labels, build):
            return SpatialDriver(kind, name, names, parts, coef)

        return self._add(kind, name, bodies, ["driver"], None, make=make)

    def _carry(self, body_i, body_j, v):
        """Body-i vector ``v`` expressed in body j at the initial orientations: ``A_j0ᵀ A_i0 v``."""
        bi, bj = self.body(body_i), self.body(body_j)
        return _A(bj.orientation).T @ _A(bi.orientation) @ v

    # ------------------------------------------------------------------ equations
    def q_guess(self) -> np.ndarray:
        """Initial positions and Euler parameters, shape ``(7 n_bodies,)``."""
        return np.concatenate([np.r_[b.position, b.orientation] for b in self.bodies] or [np.zeros(0)])

    @property
    def labels(self) -> list[str]:
        """Holonomic rows (joints, then the normalization of each body), then the nonholonomic ones."""
        return [lab for j in self.joints for lab in j.labels] + [f"norm {b.name}" for b in self.bodies] + \
               [f"rolling {b.name} {c}" for b, _, _ in self.rolling for c in "xy"]

    def phi(self, q, t=0.0) -> np.ndarray:
        """Joint equations, then ``pᵀp - 1`` of each body, shape ``(m,)``."""
        q = np.asarray(q, dtype=float)
        joint_rows = [j.phi(q[idx], t) for j, idx in zip(self.joints, self._index, strict=True)]
        norms = [q[7 * k + 3: 7 * k + 7] @ q[7 * k + 3: 7 * k + 7] - 1 for k in range(len(self.bodies))]
        return np.concatenate(joint_rows + [np.array(norms)])

    def phi_q(self, q, t=0.0) -> np.ndarray:
        """``Φ_q``, shape ``(m, 7 n_bodies)``."""
        q = np.asarray(q, dtype=float)
        blocks = []
        for j, idx in zip(self.joints, self._index, strict=True):
            full = np.zeros((j.n_eq, self.n))
            full[:, idx] = j.jacobian(q[idx], t)
            blocks.append(full)
        norm = np.zeros((len(self.bodies), self.n))
        for k in range(len(self.bodies)):
            norm[k, 7 * k + 3: 7 * k + 7] = 2 * q[7 * k + 3: 7 * k + 7]
        return np.vstack(blocks + [norm])

    @property
    def coordinate_names(self) -> list[str]:
        """``x_body, y_body, z_body, e0_body, ..., e3_body`` for each body in order."""
        return [f"{c}_{b.name}" for b in self.bodies for c in ("x", "y", "z", "e0", "e1", "e2", "e3")]

    def _assembly_failure(self, q, iterations, residual) -> ModelError:
        off = [(float(np.linalg.norm(j.phi(q[idx]))), j)
               for j, idx in zip(self.joints, self._index, strict=True)]
        gap, worst = max(off, key=lambda g: g[0])
        return ModelError(f"cannot assemble: joint {worst.name!r} cannot close, distance {gap:.4g} "
                          f"after {iterations} Newton iterations; check its points and axes")

    def _describe(self) -> str:
        return f"SpatialModel ({len(self.bodies)} bodies)"

    def _velocity_weight(self, q):
        """M where the model has dynamics; a kinematic model (no gravity or inertias) weighs all alike."""
        ready = self.gravity is not None and all(b.inertia is not None for b in self.bodies)
        return self.M(q) if ready else np.eye(self.n)

    def dof_report(self, q=None, rtol: float = 1e-8) -> SpatialDofReport:
        """DOF by rank of ``Φ_q`` (with normalization) and by Grübler's count ``6 n - Σ removed``."""
        q = self.q0 if q is None else np.asarray(q, dtype=float)
        J, labels = self.phi_q(q), self.labels
        m, n_b = J.shape[0], len(self.bodies)
        rank, dependent, groups = rank_analysis(J, rtol)
        redundant, singular = [], False
        if dependent:
            g_rank, g_dep = nearby_rank(self.phi, self.phi_q, q, rtol)
            singular, redundant = g_rank > rank, [labels[r] for r in g_dep]
        owners = [j.name for j in self.joints for _ in j.labels] + [f"norm {b.name}" for b in self.bodies]
        return SpatialDofReport(
            grubler=6 * n_b - (m - n_b), coordinates=self.n, constraints=m, rank=rank, dof=self.n - rank,
            redundant=redundant, singular=singular, dependent=[labels[r] for r in dependent],
            involved=sorted({owners[r] for g in groups for r in g}, key=owners.index),
            notes=[f"without Euler parameters: {6 * n_b} coordinates (6 per body), {m - n_b} constraints"],
            coordinates_6=6 * n_b, constraints_6=m - n_b)

    # ------------------------------------------------------------------ dynamics
    def _need_dynamics(self):
        if self.gravity is None:
            raise ModelError("SpatialModel: gravity is not set; create the model with "
                             "SpatialModel(gravity=(0, 0, -9.81)) (or (0, 0, 0) for no gravity)")
        for b in self.bodies:
            if b.inertia is None:
                raise ModelError(f"body {b.name!r} has no inertia: give add_body(..., inertia=...) (central, "
                                 "body components) to simulate")

    def M(self, q) -> np.ndarray:
        """Mass matrix, block-diagonal per body: ``m I₃`` for r and ``4 Lᵀ J′ L + k p pᵀ`` for p.

        ``4 Lᵀ J′ L`` alone is singular: ``L p = 0``, because changing p along itself changes no
        orientation (only its length).  The normalization row ``2 pᵀ`` of Φ_q constrains exactly that
        direction, so the KKT matrix is regular; and ``k p pᵀ`` (``k = 4 tr J′ / 3``) may be added to M
        without changing the motion, because ``k p (pᵀ p̈)`` is a force along the normalization row that
        only shifts its multiplier.  With it M is positive definite, as :mod:`mbdlib.dae` needs.
        """
        self._need_dynamics()
        q = np.asarray(q, dtype=float)
        M = np.zeros((self.n, self.n))
        for b in self.bodies:
            k = 7 * b.index
            p = q[k + 3: k + 7]
            L = _L(p)
            M[k: k + 3, k: k + 3] = b.mass * np.eye(3)
            M[k + 3: k + 7, k + 3: k + 7] = (4 * L.T @ b.inertia @ L
                                             + (4 * np.trace(b.inertia) / 3) * np.outer(p, p))
        return M

    def Q(self, t, q, qd) -> np.ndarray:
        """Generalized forces: gravity on r, applied forces and torques, and the velocity term
        ``8 L̇ᵀ J′ L̇ p`` on p (``L̇ = L(ṗ)``): the gyroscopic moment ``−ω′ × J′ ω′`` of Euler's equations
        written for Euler parameters (Nikravesh 1988, §11.4)."""
        self._need_dynamics()
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        out = np.zeros(self.n)
        for b in self.bodies:
            k = 7 * b.index
            p, pd = q[k + 3: k + 7], qd[k + 3: k + 7]
            Ld = _L(pd)
            out[k: k + 3] = b.mass * self.gravity
            out[k + 3: k + 7] = 8 * Ld.T @ b.inertia @ Ld @ p
        for s in self.springs:
            length, rate, e, Ji, Jj = self._spring_state(s, q, qd)
            f = s["k"] * (length - s["l0"]) + s["c"] * rate        # tension pulls the ends together
            for b, J, sign in ((s["bodies"][0], Ji, 1.0), (s["bodies"][1], Jj, -1.0)):
                out[7 * b.index: 7 * b.index + 7] += J.T @ (sign * f * e)
        for kind, b, value, point, _ in self.forces:
            k = 7 * b.index
            v = _v3(value(t, q, qd) if callable(value) else value, f"{kind} on {b.name!r}")
            p = q[k + 3: k + 7]
            if kind == "force":
                out[k: k + 3] += v
                out[k + 3: k + 7] += point_jacobian(p, point).T @ v
            else:                                      # n′ = Aᵀ n in body components, Q_p = 2 Lᵀ n′
                out[k + 3: k + 7] += 2 * _L(p).T @ (_A(p).T @ v)
        return out

    def phi_t(self, q, t=0.0) -> np.ndarray:
        """``Φ_t``: the drivers' rows (:class:`SpatialDriver`), zero for the joints and normalizations."""
        q = np.asarray(q, dtype=float)
        rows = [j.phi_t(q[idx], t) if isinstance(j, SpatialDriver) else np.zeros(j.n_eq)
                for j, idx in zip(self.joints, self._index, strict=True)]
        return np.concatenate(rows + [np.zeros(len(self.bodies))])

    def gamma(self, q, qd, t=0.0) -> np.ndarray:
        """``γ = −(Φ_q q̇)_q q̇`` of every joint (exact, :func:`_second_derivative`), then ``−2 ṗᵀṗ``."""
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        rows = [j.gamma(q[idx], qd[idx], t) if isinstance(j, SpatialDriver)
                else -_second_derivative(j.phi, q[idx], qd[idx]) if np.any(qd[idx]) else np.zeros(j.n_eq)
                for j, idx in zip(self.joints, self._index, strict=True)]
        norms = [-2 * qd[7 * k + 3: 7 * k + 7] @ qd[7 * k + 3: 7 * k + 7] for k in range(len(self.bodies))]
        return np.concatenate(rows + [np.array(norms)])

    def add_rolling_disk(self, body, radius, axis=(0.0, 0.0, 1.0), name=None):
        """The body rolls without slipping on the ground plane ``z = 0`` on the rim of a disk of ``radius``
        about its centre of mass, normal to ``axis`` (body frame).

        With the disk's axis ``a = A a′`` and ``w = ẑ − a_z a`` (the up direction in the disk's plane,
        of length ``s = √(1 − a_z²)``), the contact point is ``c = r − R w / s``.  Rows:

        * holonomic (a joint named ``name``): the centre is ``R s`` high, ``r_z² − R² (1 − a_z²) = 0``;
        * nonholonomic, x and y of the contact point's velocity times ``s = r_z / R``:
          ``(r_z / R) ṙ − R ω × w = 0`` with ``ω = 2 A L ṗ`` (the z row follows from the holonomic one).

        Both are polynomials in ``q`` (degree 4 and 7), so γ and ``b_γ`` are computed exactly
        (:func:`_second_derivative`, :func:`_first_derivative`).  The body must not lie flat (``s > 0``).
        """
        b = self.body(body)
        if not (np.isfinite(radius) and radius > 0):
            raise ModelError(f"rolling disk on {b.name!r}: the radius must be positive, got {radius!r}")
        R, ax = float(radius), _unit3(axis, "axis")

        def build(q, jac=True):
            p = q[3:7]
            a, z = _A(p) @ ax, q[2]
            val = z * z - R * R * (1 - a[2] ** 2)
            if not jac:
                return [(val, None)]
            row = np.zeros(7)
            row[2] = 2 * z
            row[3:7] = 2 * R * R * a[2] * point_jacobian(p, ax)[2]
            return [(val, row)]

        joint = self._add("rolling", name if name is not None else f"disk {b.name}", [b], ["height"], build)
        self.rolling.append((b, R, ax))
        return joint

    def _rolling_rows(self, q, b, R, ax):
        """The two rows (2, n) of B for one rolling body."""
        k = 7 * b.index
        p, z = q[k + 3: k + 7], q[k + 2]
        A = _A(p)
        a = A @ ax
        w = np.array([0.0, 0.0, 1.0]) - a[2] * a
        rows = np.zeros((2, self.n))
        rows[:, k: k + 2] = (z / R) * np.eye(2)
        rows[:, k + 3: k + 7] = (R * _tilde(w) @ (2 * A @ _L(p)))[:2]
        return rows

    def B(self, q, t=0.0) -> np.ndarray:
        """Nonholonomic rows (rolling without slipping), shape ``(2 × rolling bodies, n)``."""
        q = np.asarray(q, dtype=float)
        return np.vstack([np.zeros((0, self.n))] + [self._rolling_rows(q, *r) for r in self.rolling])

    def b_gamma(self, q, qd, t=0.0) -> np.ndarray:
        """``b_γ = −(B q̇)_q q̇`` of ``B q̈ = b_γ`` (exact: :func:`_first_derivative`)."""
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        if not self.rolling or not np.any(qd):
            return np.zeros(2 * len(self.rolling))
        return -_first_derivative(lambda x: self.B(x) @ qd, q, qd)

    def angular_velocities(self, q, qd) -> np.ndarray:
        """ω of every body in global components, shape ``(n_bodies, 3)`` (``ω = A ω′``,
        ``ω′ = 2 L ṗ``)."""
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        out = []
        for k in range(len(self.bodies)):
            p, pd = q[7 * k + 3: 7 * k + 7], qd[7 * k + 3: 7 * k + 7]
            out.append(_A(p) @ (2 * _L(p) @ pd))
        return np.array(out).reshape(-1, 3)

    def energy(self, q, qd) -> float:
        """Kinetic energy ``½ m ṙᵀṙ + ½ ω′ᵀ J′ ω′`` plus the potentials of gravity ``−m gᵀ r`` and of the
        springs."""
        self._need_dynamics()
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        E = 0.0
        for b in self.bodies:
            k = 7 * b.index
            w = 2 * _L(q[k + 3: k + 7]) @ qd[k + 3: k + 7]
            v = qd[k: k + 3]
            E += 0.5 * b.mass * v @ v + 0.5 * w @ b.inertia @ w - b.mass * self.gravity @ q[k: k + 3]
        for s in self.springs:
            E += 0.5 * s["k"] * (self._spring_state(s, q, qd)[0] - s["l0"]) ** 2
        return float(E)

    def qd_guess(self, q=None) -> np.ndarray:
        """Initial velocities from the bodies' ``velocity`` and ``angular_velocity``: ``ṗ = ½ Lᵀ Aᵀ ω``."""
        q = self.q_guess() if q is None else np.asarray(q, dtype=float)
        out = []
        for b in self.bodies:
            p = q[7 * b.index + 3: 7 * b.index + 7]
            out.append(np.r_[b.velocity, 0.5 * _L(p).T @ (_A(p).T @ b.angular_velocity)])
        return np.concatenate(out or [np.zeros(0)])

    def system(self, state=None) -> ConstrainedSystem:
        """The model's immutable :class:`~mbdlib.system.ConstrainedSystem` (a snapshot), starting at
        ``state`` (default: :meth:`assemble`'s; see :meth:`mbdlib.model.Model.system`).  It needs gravity
        and every body's inertia."""
        self._need_dynamics()
        return super().system(state)
