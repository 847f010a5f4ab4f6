"""Kinematic constraints of planar bodies in Cartesian coordinates, and DOF by rank.

Each body ``k`` of a planar model has the absolute coordinates ``(x_k, y_k, φ_k)``
(centre of mass and angle).  A point fixed in the body, with body-frame components
``s'``, is at ``r_P = r_k + A_k s'`` with ``A_k = [[cos φ, -sin φ], [sin φ, cos φ]]``;
``∂(A s')/∂φ = B s' = R A s'`` (``R`` turns a vector by +90°) and
``d²(A s')/dt² = B s' φ̈ - A s' φ̇²`` (Haug 1989, §2.4 and §3.1; Nikravesh 1988, ch. 4).

A joint is a small object with

* ``phi(q, t)`` → ``(n_eq,)``: the constraint equations ``Φ = 0``;
* ``jacobian(q, t)`` → ``(n_eq, 3 * len(bodies))``: ``Φ_q``;
* ``phi_t(q, t)`` → ``(n_eq,)``: ``∂Φ/∂t`` (non-zero for drivers only);
* ``gamma(q, qd, t)`` → ``(n_eq,)``: the right side of ``Φ_q q̈ = γ``,
  ``γ = -(Φ_q q̇)_q q̇ - 2 Φ_qt q̇ - Φ_tt``;

where ``q`` and ``qd`` are the *joint's own* coordinates: ``(x, y, φ)`` of each body in
``bodies`` (the ground included, with its fixed pose), shape ``(3 * len(bodies),)``.
The model (:mod:`mbdlib.planar`) gathers them from the system vector and scatters the
Jacobian columns back.  All formulas are analytic; they run on numbers and, for the
time-independent joints, on sympy symbols (the book prints them).

How the formulas are built: every equation is a scalar made of a few *kinematic
primitives* (a body point, a body-fixed vector, a coordinate), combined by a difference
or a dot product, the "basic constraints" of Nikravesh (1988, ch. 5/7).  Each primitive
carries its value, Jacobian, velocity and the quadratic part of its acceleration, and a dot
product ``a·b`` gives ``Φ_q = aᵀ b_q + bᵀ a_q`` and ``γ = -(ä_quad·b + 2 ȧ·ḃ + a·b̈_quad)``.

References: E. J. Haug, *Computer Aided Kinematics and Dynamics of Mechanical Systems*,
1989, ch. 3 (joint library); P. E. Nikravesh, *Computer-Aided Analysis of Mechanical
Systems*, 1988, ch. 4-5.
"""

from __future__ import annotations

import html
import numbers
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from . import _validate
from ._backend import cos, is_symbolic, object_zeros, sin
from .errors import ModelError, ShapeError
from .model import Coordinate, Part

__all__ = [
    "Constraint", "Revolute", "Translational", "PointOnLine", "Rigid", "Distance", "Gear", "RackPinion",
    "CoordinateDriver", "RelativeAngleDriver", "DistanceDriver", "KnifeEdge", "Motion",
    "DofReport",
]


# --------------------------------------------------------------------------- kinematic primitives
class _Vec:
    """A global vector built from body points/vectors: value, Jacobian, velocity, quadratic acceleration
    (the planar 2-vectors here; :mod:`mbdlib.spatial_joints` subclasses it for batches of 3-vectors)."""

    __slots__ = ("val", "jac", "vel", "acc")

    def __init__(self, val, jac, vel=None, acc=None):
        self.val, self.jac, self.vel, self.acc = val, jac, vel, acc

    def __sub__(self, other):
        vel = None if self.vel is None else self.vel - other.vel
        acc = None if self.acc is None else self.acc - other.acc
        return type(self)(self.val - other.val, self.jac - other.jac, vel, acc)

    def component(self, i: int) -> _Scalar:
        return _Scalar(self.val[i], self.jac[i], None if self.acc is None else self.acc[i])


class _Scalar:
    """One constraint equation: value, Jacobian row and ``quad`` = Φ̈ - Φ_q q̈ (the part without q̈)."""

    __slots__ = ("val", "jac", "quad")

    def __init__(self, val, jac, quad=None):
        self.val, self.jac, self.quad = val, jac, quad


def _body_vec(q, qd, k: int, s, point: bool, symbolic: bool) -> _Vec:
    """``r_k + A_k s'`` (``point=True``) or ``A_k s'`` of body ``k`` of the joint (Haug 1989, §3.1)."""
    x, y, phi = q[3 * k], q[3 * k + 1], q[3 * k + 2]
    c, sn = cos(phi), sin(phi)
    As = np.array([c * s[0] - sn * s[1], sn * s[0] + c * s[1]], dtype=object if symbolic else float)
    Bs = np.array([-As[1], As[0]])  # B s' = R A s'
    jac = object_zeros((2, len(q)), symbolic)
    jac[:, 3 * k + 2] = Bs
    if point:
        jac[0, 3 * k] = jac[1, 3 * k + 1] = 1
    val = As + np.array([x, y]) if point else As
    if qd is None:
        return _Vec(val, jac)
    w = qd[3 * k + 2]
    return _Vec(val, jac, jac @ qd, -As * w**2)  # d²(A s')/dt² = B s' φ̈ − A s' φ̇²


def _point(q, qd, k: int, s, symbolic: bool) -> _Vec:
    """Position ``r_k + A_k s'`` of a point of body ``k``."""
    return _body_vec(q, qd, k, s, True, symbolic)


def _dot(a: _Vec, b: _Vec) -> _Scalar:
    """``a·b`` with ``(a·b)_q = aᵀ b_q + bᵀ a_q`` and quadratic part ``ä·b + 2 ȧ·ḃ + a·b̈``."""
    quad = None
    if a.vel is not None:
        quad = a.acc @ b.val + 2 * (a.vel @ b.vel) + a.val @ b.acc
    return _Scalar(a.val @ b.val, a.val @ b.jac + b.val @ a.jac, quad)


def _coord(q, qd, k: int, i: int, symbolic: bool) -> _Scalar:
    """Coordinate ``i`` (0: x, 1: y, 2: φ) of body ``k``: linear, so no quadratic term."""
    jac = object_zeros(len(q), symbolic)
    jac[3 * k + i] = 1
    return _Scalar(q[3 * k + i], jac, 0)


def _perp(v):
    """``R v``: ``v`` turned by +90°."""
    return np.array([-v[1], v[0]], dtype=float)


def _vec2(x, name: str, joint: str):
    return _validate.vector(x, 2, f"{joint}: {name}", " (body-frame x, y)")


def _unit2(x, name: str, joint: str):
    return _validate.unit(x, 2, f"{joint}: {name}", " (body-frame x, y)")


# --------------------------------------------------------------------------- base class
class Constraint:
    """A holonomic constraint ``Φ(q, t) = 0`` between the bodies in ``bodies``.

    Subclasses give the time-independent equations (``_equations``); drivers add a
    time function ``g(t)``, so that ``Φ = S(q) - g(t)``, ``Φ_t = -ġ``, ``γ = -S_quad + g̈``
    (no ``Φ_qt`` term, since ``g`` does not depend on ``q``).
    """

    kind = "joint"
    nonholonomic = False
    #: The joint's own coordinates (``"angle"``, ``"slide"``): :class:`~mbdlib.model.Coordinate` attributes.
    coordinates: tuple = ()
    #: Set by the model that owns the joint: the indices of its bodies' (x, y, φ) in ``(q, ground pose)``.
    _local_index = None

    def __init__(self, name: str, bodies, labels):
        self.name = str(name)
        self.bodies = tuple(bodies)
        self.labels = [f"{self.kind} {self.name} {lab}".rstrip() for lab in labels]

    @property
    def n_eq(self) -> int:
        """Number of equations (= degrees of freedom removed)."""
        return len(self.labels)

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, bodies={self.bodies})"

    # every joint class defines its equations; the base class alone is not a joint
    def _equations(self, q, qd, symbolic):  # pragma: no cover - abstract
        raise TypeError(f"{type(self).__name__} is not a complete joint: it must define _equations "
                        "(see Revolute for an example)")

    def _g(self, t):
        """``(g, ġ, g̈)`` of the time-dependent part, or None."""
        return None

    def _prepare(self, q, name="q"):
        symbolic = is_symbolic(q)
        n = 3 * len(self.bodies)
        arr = np.array(list(q), dtype=object) if symbolic else np.asarray(q, dtype=float).reshape(-1)
        if arr.shape != (n,):
            raise ShapeError(f"{self.name}: {name} must hold (x, y, phi) of its {len(self.bodies)} bodies, "
                             f"shape ({n},), got {np.shape(q)}")
        return arr, symbolic

    @staticmethod
    def _out(values, symbolic):
        return sp.Matrix(list(values)) if symbolic else np.array(values, dtype=float)

    def phi(self, q, t=0.0):
        """Constraint equations ``Φ(q, t)``, shape ``(n_eq,)``."""
        q, symbolic = self._prepare(q)
        val = np.array([e.val for e in self._equations(q, None, symbolic)], dtype=object)
        g = self._g(t)
        return self._out(val if g is None else val - g[0], symbolic)

    def jacobian(self, q, t=0.0):
        """``Φ_q``, shape ``(n_eq, 3 * len(bodies))``."""
        q, symbolic = self._prepare(q)
        rows = [e.jac for e in self._equations(q, None, symbolic)]
        return sp.Matrix(np.vstack(rows).tolist()) if symbolic else np.vstack(rows).astype(float)

    def phi_t(self, q, t=0.0):
        """``∂Φ/∂t``, shape ``(n_eq,)``."""
        g = self._g(t)
        return np.zeros(self.n_eq) if g is None else -np.asarray(g[1], dtype=float)

    def gamma(self, q, qd, t=0.0):
        """``γ = -(Φ_q q̇)_q q̇ - 2 Φ_qt q̇ - Φ_tt``, shape ``(n_eq,)``."""
        q, symbolic = self._prepare(q)
        qd, sym2 = self._prepare(qd, "qd")
        symbolic = symbolic or sym2
        quad = np.array([e.quad for e in self._equations(q, qd, symbolic)], dtype=object)
        g = self._g(t)
        return self._out(-quad if g is None else -quad + g[2], symbolic)

    def gap(self, q, t=0.0) -> float:
        """Size of the violation in length units (for assembly messages): ``‖Φ‖``."""
        return float(np.linalg.norm(self.phi(q, t)))

    # ------------------------------------------------------------ joint coordinates
    def _coordinate(self, kind: str) -> Coordinate:
        """The joint coordinate ``kind`` as a function of the model's q (exact gradient and rate)."""
        if kind not in self.coordinates:
            have = f"its coordinates are {', '.join(self.coordinates)}" if self.coordinates else "it has none"
            raise ModelError(f"joint {self.name!r} ({self.kind}) has no {kind} coordinate; {have}")
        if self._local_index is None:
            raise ModelError(f"joint {self.name!r}: add it to a model first (its coordinates are the "
                             "model's)")
        idx = self._local_index

        def pieces(q, qd):
            pad = np.zeros(3)
            ql = np.concatenate([q, pad])[idx]
            qdl = None if qd is None else np.concatenate([qd, pad])[idx]
            e = self._coordinate_scalar(kind, ql, qdl)
            grad = np.zeros(q.size + 3)
            np.add.at(grad, idx, np.asarray(e.jac, dtype=float))
            return [Part(e.val, grad[: q.size], 0.0 if qd is None or e.quad is None else e.quad)]

        return Coordinate(f"{self.name} {kind}", "rad" if kind == "angle" else "m", pieces)

    def _coordinate_scalar(self, kind, q, qd) -> _Scalar:  # pragma: no cover - only joints with coordinates
        raise ModelError(f"joint {self.name!r} has no {kind} coordinate")

    def _relative_angle(self, q, qd):
        rj, ri = _coord(q, qd, 1, 2, False), _coord(q, qd, 0, 2, False)
        return _Scalar(rj.val - ri.val, rj.jac - ri.jac, 0.0)

    def coordinate(self) -> Coordinate:
        """The joint's one coordinate (its angle or slide); an error if it has none or two."""
        if len(self.coordinates) != 1:
            have = ", ".join(f"joint.{c}" for c in self.coordinates) or "none"
            raise ModelError(f"joint {self.name!r} ({self.kind}) has {len(self.coordinates)} coordinates "
                             f"({have}): name the one you mean")
        return self._coordinate(self.coordinates[0])

    def rate(self, q, qd) -> float:
        """The rate of the joint's one coordinate (``joint.angle.rate`` or ``joint.slide.rate``)."""
        return self.coordinate().rate(q, qd)


# --------------------------------------------------------------------------- joints
class Revolute(Constraint):
    """Revolute (pin) joint: ``Φ = r_i + A_i s'_i - r_j - A_j s'_j = 0`` (2 equations; Haug 1989, §3.3).

    >>> j = Revolute("pin", ("ground", "crank"), (0, 0), (-0.5, 0))
    >>> j.phi([0, 0, 0, 0.0, 0.5, np.pi / 2]).round(12) + 0.0
    array([0., 0.])
    >>> j.jacobian([0, 0, 0, 0.0, 0.5, np.pi / 2]).round(12) + 0.0
    array([[ 1. ,  0. ,  0. , -1. , -0. , -0.5],
           [ 0. ,  1. ,  0. , -0. , -1. ,  0. ]])
    """

    kind = "revolute"
    coordinates = ("angle",)

    def __init__(self, name, bodies, point_i, point_j):
        super().__init__(name, bodies, ["x", "y"])
        self.point_i, self.point_j = _vec2(point_i, "point_i", name), _vec2(point_j, "point_j", name)

    def _equations(self, q, qd, symbolic):
        d = _point(q, qd, 0, self.point_i, symbolic) - _point(q, qd, 1, self.point_j, symbolic)
        return [d.component(0), d.component(1)]

    @property
    def angle(self) -> Coordinate:
        """The joint angle ``φ_j − φ_i`` [rad] (the coordinate a relative-angle driver prescribes)."""
        return self._coordinate("angle")

    def _coordinate_scalar(self, kind, q, qd):
        return self._relative_angle(q, qd)


class PointOnLine(Constraint):
    """Point ``P_j`` of body j stays on the line of body i through ``P_i`` along ``axis_i`` (1 equation).

    ``Φ = n_iᵀ (r_j + A_j s'_j - r_i - A_i s'_i) = 0`` with the normal ``n_i = A_i R v'_i``
    (Haug 1989, §3.3, the first equation of the translational joint).
    """

    kind = "point-on-line"
    coordinates = ("slide", "angle")

    def __init__(self, name, bodies, point_i, point_j, axis_i):
        super().__init__(name, bodies, ["normal"])
        self.point_i, self.point_j = _vec2(point_i, "point_i", name), _vec2(point_j, "point_j", name)
        self.axis_i = _unit2(axis_i, "axis_i", name)

    def _normal_eq(self, q, qd, symbolic):
        d = _point(q, qd, 1, self.point_j, symbolic) - _point(q, qd, 0, self.point_i, symbolic)
        n = _body_vec(q, qd, 0, _perp(self.axis_i), False, symbolic)
        return _dot(n, d)

    def _equations(self, q, qd, symbolic):
        return [self._normal_eq(q, qd, symbolic)]

    @property
    def slide(self) -> Coordinate:
        """The travel of ``P_j`` along the line: ``(r_Pj − r_Pi) · A_i u'_i`` [m]."""
        return self._coordinate("slide")

    @property
    def angle(self) -> Coordinate:
        """The relative angle ``φ_j − φ_i`` [rad]."""
        return self._coordinate("angle")

    def _coordinate_scalar(self, kind, q, qd):
        if kind == "angle":
            return self._relative_angle(q, qd)
        d = _point(q, qd, 1, self.point_j, False) - _point(q, qd, 0, self.point_i, False)
        return _dot(_body_vec(q, qd, 0, self.axis_i, False, False), d)


class Translational(PointOnLine):
    """Translational (prismatic) joint: point-on-line plus ``φ_j - φ_i - angle = 0`` (2 equations).

    (Haug 1989, §3.3.)  ``angle`` is the constant relative angle, usually that of the
    initial configuration.
    """

    kind = "translational"
    coordinates = ("slide",)

    def __init__(self, name, bodies, point_i, point_j, axis_i, angle=0.0):
        super().__init__(name, bodies, point_i, point_j, axis_i)
        self.labels = [f"{self.kind} {self.name} normal", f"{self.kind} {self.name} angle"]
        self.fixed_angle = angle

    def _equations(self, q, qd, symbolic):
        rel = _coord(q, qd, 1, 2, symbolic)
        fi = _coord(q, qd, 0, 2, symbolic)
        return [self._normal_eq(q, qd, symbolic),
                _Scalar(rel.val - fi.val - self.fixed_angle, rel.jac - fi.jac, 0)]

    @property
    def angle(self):
        raise AttributeError(f"translational joint {self.name!r} has no angle coordinate: its relative angle "
                             f"is fixed ({self.fixed_angle:g} rad, joint.fixed_angle); its coordinate is "
                             "joint.slide")


class Rigid(Revolute):
    """Rigid (weld) joint: a revolute plus ``φ_j - φ_i - angle = 0`` (3 equations; Haug 1989, §3.3)."""

    kind = "rigid"
    coordinates = ()

    def __init__(self, name, bodies, point_i, point_j, angle=0.0):
        super().__init__(name, bodies, point_i, point_j)
        self.labels.append(f"{self.kind} {self.name} angle")
        self.fixed_angle = angle

    @property
    def angle(self):
        raise AttributeError(f"rigid joint {self.name!r} has no coordinates (its relative angle is fixed: "
                             "joint.fixed_angle)")

    def _equations(self, q, qd, symbolic):
        rj, ri = _coord(q, qd, 1, 2, symbolic), _coord(q, qd, 0, 2, symbolic)
        angle = _Scalar(rj.val - ri.val - self.fixed_angle, rj.jac - ri.jac, 0)
        return super()._equations(q, qd, symbolic) + [angle]


class Distance(Constraint):
    """Distance constraint (a massless link): ``Φ = dᵀd - L² = 0``, ``d = r_Pj - r_Pi`` (Haug 1989, §3.2).

    >>> j = Distance("link", ("ground", "bob"), (0, 0), (0, 0), length=2.0)
    >>> float(j.phi([0, 0, 0, 0, -2.0, 0])[0])
    0.0
    """

    kind = "distance"

    def __init__(self, name, bodies, point_i, point_j, length):
        super().__init__(name, bodies, [""])
        self.point_i, self.point_j = _vec2(point_i, "point_i", name), _vec2(point_j, "point_j", name)
        if not (isinstance(length, numbers.Real) and length > 0):
            raise ModelError(f"{name}: length must be a positive number, got {length!r}")
        self.length = float(length)

    def _d(self, q, qd, symbolic):
        return _point(q, qd, 1, self.point_j, symbolic) - _point(q, qd, 0, self.point_i, symbolic)

    def _equations(self, q, qd, symbolic):
        d = self._d(q, qd, symbolic)
        e = _dot(d, d)
        return [_Scalar(e.val - self.length**2, e.jac, e.quad)]

    def gap(self, q, t=0.0) -> float:
        """``| ‖d‖ - L |`` in length units."""
        q, _ = self._prepare(q)
        d = self._d(q, None, False).val
        return abs(float(np.hypot(*d)) - self.length)


class Gear(Constraint):
    """Gear pair on a carrier: ``(φ_j - φ_c) - ratio (φ_i - φ_c) - offset = 0`` (1 equation).

    ``ratio = ω_j / ω_i`` relative to the carrier (``-r_i / r_j`` for external spur
    gears of pitch radii ``r_i, r_j``; ``+r_i / r_j`` for an internal gear).  The gears'
    revolute joints to the carrier are separate joints (Haug 1989, §3.4 treats the
    general gear; with the centres fixed on the carrier it reduces to this linear form).
    ``bodies = (gear_i, gear_j, carrier)``.
    """

    kind = "gear"

    def __init__(self, name, bodies, ratio, offset=0.0):
        super().__init__(name, bodies, [""])
        if not (isinstance(ratio, numbers.Real) and np.isfinite(ratio) and ratio != 0):
            raise ModelError(f"{name}: ratio must be a non-zero number (ω_j / ω_i), got {ratio!r}")
        self.ratio, self.offset = float(ratio), offset

    def _equations(self, q, qd, symbolic):
        fi, fj, fc = (_coord(q, qd, k, 2, symbolic) for k in range(3))
        val = (fj.val - fc.val) - self.ratio * (fi.val - fc.val) - self.offset
        return [_Scalar(val, (fj.jac - fc.jac) - self.ratio * (fi.jac - fc.jac), 0)]


class RackPinion(Constraint):
    """Rack and pinion: ``Φ = u_jᵀ (r_Pi - r_Qj) + ρ (φ_i - φ_j) - offset = 0`` (1 equation).

    Body i is the pinion (pitch radius ``ρ``, centre ``P_i``), body j the rack with the
    pitch line through ``Q_j`` along ``u_j = A_j v'_j``.  The pinion lies on the left of
    ``u_j`` (the side of ``R u_j``); reverse the axis for the other side.  With the
    ground as rack this is a disc rolling without slip: in the plane that constraint is
    integrable (``x + ρ φ = const``), hence holonomic.
    """

    kind = "rack-pinion"

    def __init__(self, name, bodies, point_i, point_j, axis_j, radius, offset=0.0):
        super().__init__(name, bodies, [""])
        self.point_i, self.point_j = _vec2(point_i, "point_pinion", name), _vec2(point_j, "point_rack", name)
        self.axis_j = _unit2(axis_j, "axis_rack", name)
        if not (isinstance(radius, numbers.Real) and radius > 0):
            raise ModelError(f"{name}: radius must be a positive number, got {radius!r}")
        self.radius, self.offset = float(radius), offset

    def _equations(self, q, qd, symbolic):
        e = _point(q, qd, 0, self.point_i, symbolic) - _point(q, qd, 1, self.point_j, symbolic)
        u = _body_vec(q, qd, 1, self.axis_j, False, symbolic)
        s = _dot(u, e)
        fi, fj = _coord(q, qd, 0, 2, symbolic), _coord(q, qd, 1, 2, symbolic)
        val = s.val + self.radius * (fi.val - fj.val) - self.offset
        return [_Scalar(val, s.jac + self.radius * (fi.jac - fj.jac), s.quad)]


# --------------------------------------------------------------------------- drivers
class Motion:
    """A prescribed function of time with its derivatives: ``f(t)``, ``f'(t)``, ``f''(t)``.

    >>> m = Motion.constant_speed(0.5, 2.0)
    >>> m(1.0)
    (2.5, 2.0, 0.0)
    """

    def __init__(self, f, df, ddf, name: str = "driver"):
        for arg, label in ((f, "f"), (df, "df"), (ddf, "ddf")):
            if not callable(arg):
                raise ModelError(f"{name}: {label} must be a callable of t (give f, df and ddf: the library "
                                 f"uses the analytic derivatives), got {arg!r}")
        self.f, self.df, self.ddf = f, df, ddf

    @classmethod
    def constant_speed(cls, start: float, speed: float) -> Motion:
        """``f(t) = start + speed t``."""
        start, speed = float(start), float(speed)
        return cls(lambda t: start + speed * t, lambda t: speed, lambda t: 0.0)

    @classmethod
    def constant(cls, value: float) -> Motion:
        """``f(t) = value``."""
        value = float(value)
        return cls(lambda t: value, lambda t: 0.0, lambda t: 0.0)

    def __call__(self, t):
        return float(self.f(t)), float(self.df(t)), float(self.ddf(t))


def motion_of(name: str, f=None, df=None, ddf=None, speed=None, start: float = 0.0) -> Motion:
    """The :class:`Motion` a driver's arguments describe: ``speed`` (from ``start``), a number ``f``
    (a constant), or the callables ``f, df, ddf``.

    >>> motion_of("motor", speed=2.0, start=0.5)(1.0)
    (2.5, 2.0, 0.0)
    """
    if speed is not None:
        if f is not None:
            raise ModelError(f"{name}: give either f (with df, ddf) or speed, not both")
        return Motion.constant_speed(start, _validate.number(speed, f"{name}: speed"))
    if f is None:
        raise ModelError(f"{name}: give f, df, ddf (callables of t) or speed=")
    if isinstance(f, numbers.Real) and df is None and ddf is None:
        return Motion.constant(f)
    return Motion(f, df, ddf, name)


class CoordinateDriver(Constraint):
    """Absolute coordinate driver: ``q_k - f(t) = 0`` for ``x``, ``y`` or ``φ`` of a body (Haug §3.5)."""

    kind = "driver"

    def __init__(self, name, bodies, coordinate: int, motion: Motion):
        super().__init__(name, bodies, ["xyφ"[coordinate]])
        self.coordinate, self.motion = coordinate, motion

    def _equations(self, q, qd, symbolic):
        return [_coord(q, qd, 0, self.coordinate, symbolic)]

    def _g(self, t):
        return [np.array([v]) for v in self.motion(t)]


class RelativeAngleDriver(Constraint):
    """Relative angle driver: ``φ_j - φ_i - f(t) = 0`` (Haug 1989, §3.5)."""

    kind = "driver"

    def __init__(self, name, bodies, motion: Motion):
        super().__init__(name, bodies, ["relative angle"])
        self.motion = motion

    def _equations(self, q, qd, symbolic):
        fj, fi = _coord(q, qd, 1, 2, symbolic), _coord(q, qd, 0, 2, symbolic)
        return [_Scalar(fj.val - fi.val, fj.jac - fi.jac, 0)]

    def _g(self, t):
        return [np.array([v]) for v in self.motion(t)]


class DistanceDriver(Distance):
    """Distance driver: ``dᵀd - f(t)² = 0`` (an actuator).

    ``g = f²``, ``ġ = 2 f f'``, ``g̈ = 2 (f'² + f f'')``.
    """

    kind = "driver"

    def __init__(self, name, bodies, point_i, point_j, motion: Motion):
        super().__init__(name, bodies, point_i, point_j, length=1.0)
        self.labels = [f"{self.kind} {self.name} distance"]
        self.motion = motion

    def _equations(self, q, qd, symbolic):
        e = _dot(*[self._d(q, qd, symbolic)] * 2)
        return [e]

    def _g(self, t):
        f, df, ddf = self.motion(t)
        return [np.array([f * f]), np.array([2 * f * df]), np.array([2 * (df * df + f * ddf)])]

    def gap(self, q, t=0.0) -> float:
        q, _ = self._prepare(q)
        return abs(float(np.hypot(*self._d(q, None, False).val)) - abs(self.motion(t)[0]))


# --------------------------------------------------------------------------- nonholonomic
class KnifeEdge(Constraint):
    """Knife edge (skate, sled runner): point P of the body cannot move across ``axis``.

    Velocity constraint ``n_kᵀ ṙ_P = 0`` with ``n_k = A_k R v'`` and
    ``ṙ_P = ṙ_k + B_k s' φ̇_k``, i.e. ``B(q) q̇ = 0`` with ``B = n_kᵀ [I, B_k s']``
    (Neimark & Fufaev 1972; Haug 1989, §3.6 on nonholonomic constraints).  It is not
    integrable: the body can reach every ``(x, y, φ)``, so it removes a velocity
    degree of freedom but no configuration one.  Differentiating,
    ``B q̈ = b_gamma = -(ṅ·ṙ_P + n·(r̈_P)_quad)``.
    """

    kind = "knife-edge"
    nonholonomic = True

    def __init__(self, name, bodies, point, axis):
        super().__init__(name, bodies, [""])
        self.point, self.axis = _vec2(point, "point", name), _unit2(axis, "axis", name)

    def B(self, q, t=0.0):
        """Velocity-constraint matrix, shape ``(1, 3)``."""
        q, _ = self._prepare(q)
        n = _body_vec(q, None, 0, _perp(self.axis), False, False)
        p = _body_vec(q, None, 0, self.point, True, False)
        return (n.val @ p.jac)[None, :]

    def b_gamma(self, q, qd, t=0.0):
        """Right side of ``B q̈ = b_gamma``, shape ``(1,)``."""
        q, _ = self._prepare(q)
        qd, _ = self._prepare(qd, "qd")
        n = _body_vec(q, qd, 0, _perp(self.axis), False, False)
        p = _body_vec(q, qd, 0, self.point, True, False)
        return np.array([-(n.vel @ p.vel + n.val @ p.acc)])

    def _equations(self, q, qd, symbolic):
        raise ModelError(f"{self.name}: a knife edge has no position equation Φ(q) = 0; use B(q) and b_gamma")


# --------------------------------------------------------------------------- the DOF report
@dataclass
class DofReport:
    """Degrees of freedom by counting (Grübler) and by rank of ``Φ_q``.

    ``dof = coordinates - rank``; ``redundant`` lists the equations that depend on the
    others at every nearby admissible configuration; ``singular`` is True when the rank
    drops at this configuration only (it is full again nearby, e.g. a four-bar with all
    links aligned); ``dependent`` lists the equations dependent *here* (from a QR
    factorisation with column pivoting of ``Φ_qᵀ``) and ``involved`` the joints that take
    part in those dependencies.  ``velocity_dof`` also removes the nonholonomic rows.
    """

    grubler: int
    coordinates: int
    constraints: int
    rank: int
    dof: int
    redundant: list = field(default_factory=list)
    singular: bool = False
    dependent: list = field(default_factory=list)
    involved: list = field(default_factory=list)
    nonholonomic: int = 0
    velocity_dof: int | None = None
    notes: list = field(default_factory=list)

    @property
    def text(self) -> str:
        lines = [
            f"coordinates            {self.coordinates}",
            f"constraint equations   {self.constraints}",
            f"Grübler count          {self.grubler}",
            f"rank of Phi_q          {self.rank}",
            f"DOF (coordinates-rank) {self.dof}",
        ]
        if self.nonholonomic:
            lines.append(f"nonholonomic rows      {self.nonholonomic} -> velocity DOF {self.velocity_dof}")
        if self.redundant:
            lines.append("redundant equations:   " + ", ".join(self.redundant))
        if self.singular:
            lines.append("singular configuration: the rank drops here only; dependent here: "
                         + ", ".join(self.dependent))
        if self.involved:
            lines.append("joints involved:       " + ", ".join(self.involved))
        if self.grubler != self.dof and not (self.redundant or self.singular):
            lines.append("note: Grübler's count differs from the rank count")
        lines.extend(self.notes)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        cells = (line.split("  ", 1) if "  " in line else (line, "") for line in self.text.splitlines())
        rows = "".join(f"<tr><td>{html.escape(a)}</td><td>{html.escape(b.strip())}</td></tr>"
                       for a, b in cells)
        return f"<table class='mbd-dof-report'>{rows}</table>"
