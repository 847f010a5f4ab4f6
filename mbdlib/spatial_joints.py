"""Spatial bodies in Cartesian coordinates with Euler parameters: the joints, as jets, and DOF by rank.

Each body has seven coordinates ``q_k = (x, y, z, e0, e1, e2, e3)``: the position of its centre of mass
and its Euler parameters ``p`` (scalar first), with ``A(p)`` from :func:`mbdlib.rotations.dcm_from_quat`
and the normalization constraint ``pᵀp − 1 = 0`` (Nikravesh 1988, ch. 6-7; Haug 1989, ch. 9).  ``A(p)``
is the formula of ``dcm_from_quat`` evaluated without its unit-norm check, since Newton steps leave the
unit sphere.

**Jets.**  Every joint equation is made of body points ``r_k + A_k s'`` and body vectors ``A_k a'``,
combined by differences and dot products: the basic constraints of Nikravesh (1988, §7.2).  As in
:mod:`mbdlib.constraints` for the plane, each primitive carries its value, its Jacobian, its velocity and
the velocity-product part of its second derivative (``quad``: ``d²/dt² f = f_q q̈ + quad``), and a dot
product combines them: ``(a·b)_q = aᵀ b_q + bᵀ a_q``, ``quad = a_quad·b + 2 ȧ·ḃ + a·b_quad``.  So
``γ = −quad`` is exact and in closed form.  ``A(p) a'`` is a quadratic form in ``p`` plus the constant
``−a'``; with the point Jacobian ``P(p, a') = ∂(A a')/∂p`` (linear in ``p``):

    A a' = ½ P(p, a') p − a',    d/dt (A a') = P(p, a') ṗ,    d²/dt² (A a') = P(p, a') p̈ + P(ṗ, a') ṗ,

where ``∂(A a')/∂e0 = 2 (2 e0 a' + ẽ a')`` and ``∂(A a')/∂e = 2 ((eᵀa') I + e a'ᵀ − e0 ã')`` for
``A = (2 e0² − 1) I + 2 (e eᵀ + e0 ẽ)`` (Nikravesh 1988, §6.3).

**All rows at once.**  The jets work on *batches*: N rows of one kind (every spherical joint of a model,
every dot-1 row, ...) are one numpy evaluation, and the model scatters the batch into ``Φ``, ``Φ_q`` and
``γ`` by index arrays made once (:class:`_Rows`).  A constant global vector or point (a plane's normal, a
fixed pose) is a body vector of the *fixed frame*, body ``−1``: at the origin, unrotated, at rest.

**Joint coordinates** (:class:`~mbdlib.model.Coordinate`, exact gradient and bias from the same jets):
a revolute or cylindrical joint's ``angle`` ``θ = atan2(f_j·g_i, f_j·f_i)``, counted from the initial
poses as :meth:`SpatialMechanism.add_rotational_driver` counts it, and a prismatic or cylindrical
joint's ``slide`` ``(P_j − P_i)·(A_i u'_i)``.

>>> m = SpatialMechanism()
>>> base = m.add_body("base")
>>> _ = m.fix(base)
>>> bob = m.add_body("bob", position=(0, 0, -1))
>>> _ = m.add_spherical(base, bob, point_i=(0, 0, 0), point_j=(0, 0, 1))
>>> m.dof_report().dof
3

References: P. E. Nikravesh, *Computer-Aided Analysis of Mechanical Systems*, 1988, ch. 6-7;
E. J. Haug, *Computer Aided Kinematics and Dynamics of Mechanical Systems*, 1989, ch. 9.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _validate
from .bodies import RigidBody
from .constraints import DofReport, motion_of
from .constraints import _Vec as _PlanarVec
from .errors import ModelError, ShapeError
from .linalg import nearby_rank, numerical_rank, rank_analysis
from .model import Coordinate, Model, Part, kept_answers, state_key
from .rotations import _G as _euler_matrix
from .rotations import dcm_from_quat, normalize_quat  # noqa: F401 (dcm_from_quat: doctest)

__all__ = ["SpatialMechanism", "SpatialBody", "SpatialJoint", "SpatialDriver", "SpatialDofReport",
           "point_jacobian"]

FIXED = -1                                           # the body index of the fixed frame
_FIXED_POSE = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
_I3 = np.eye(3)


def _v3(x, name):
    return _validate.vector(x, 3, name)


def _unit3(x, name):
    return _validate.unit(x, 3, name)


def _perpendiculars(u):
    """Two unit vectors ``f, g`` with ``(u, f, g)`` orthonormal and right-handed."""
    helper = np.eye(3)[int(np.argmin(np.abs(u)))]
    f = np.cross(u, helper)
    f /= np.linalg.norm(f)
    return f, np.cross(u, f)


def _tilde(v):
    """``ṽ`` with ``ṽ b = v × b`` (numeric, no validation: an inner-loop helper; see rotations.skew)."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _tildes(v):
    """``ṽ`` of N vectors at once, shape ``(N, 3, 3)`` from ``(N, 3)``."""
    out = np.zeros((len(v), 3, 3))
    out[:, 0, 1], out[:, 0, 2], out[:, 1, 2] = -v[:, 2], v[:, 1], -v[:, 0]
    out[:, 1, 0], out[:, 2, 0], out[:, 2, 1] = v[:, 2], -v[:, 1], v[:, 0]
    return out


def _cross(a, b):
    """Row-wise ``a × b`` of ``(N, 3)`` arrays (np.cross costs more for small arrays)."""
    return np.stack([a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1], a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
                     a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]], axis=1)


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


def _point_jacobians(p, s):
    """``P(p, s') = ∂(A(p) s')/∂p`` of N rows at once: ``(N, 4)`` and ``(N, 3)`` → ``(N, 3, 4)``.

    ``∂/∂e0 = 2 (2 e0 s' + ẽ s')``, ``∂/∂e = 2 ((eᵀs') I + e s'ᵀ − e0 s̃')`` (Nikravesh 1988, §6.3).
    """
    e0, e = p[:, :1], p[:, 1:]
    out = np.empty((len(p), 3, 4))
    out[:, :, 0] = 2 * (2 * e0 * s + _cross(e, s))
    es = np.einsum("nc,nc->n", e, s)
    out[:, :, 1:] = 2 * (es[:, None, None] * _I3 + e[:, :, None] * s[:, None, :]
                         - e0[:, :, None] * _tildes(s))
    return out


def point_jacobian(p, s):
    """``∂(A(p) s')/∂p``, shape ``(3, 4)`` (Nikravesh 1988, ch. 6, for the A(p) of dcm_from_quat).

    >>> point_jacobian([1, 0, 0, 0], [1.0, 0, 0])
    array([[ 4.,  0.,  0.,  0.],
           [ 0.,  0.,  0.,  2.],
           [ 0.,  0., -2.,  0.]])
    """
    p, s = np.asarray(p, dtype=float), np.asarray(s, dtype=float)
    return _point_jacobians(p.reshape(1, 4), s.reshape(1, 3))[0]


def _L(p):
    """``L(p) = [−e, −ẽ + e0 I]`` (3, 4), Nikravesh's body-frame matrix (:func:`mbdlib.rotations._G`):
    ``ω' = 2 L ṗ``; ``L p = 0`` and ``L Lᵀ = I`` for a unit ``p``.

    >>> p = np.array([0.8, 0.2, -0.4, 0.4]) / np.linalg.norm([0.8, 0.2, -0.4, 0.4])
    >>> bool(np.allclose(_L(p) @ p, 0.0) and np.allclose(_L(p) @ _L(p).T, np.eye(3)))
    True
    """
    return _euler_matrix(np.asarray(p, dtype=float), "body")


def _euler_matrices(p, frame):
    """``L(p)`` (``frame="body"``, ``ω' = 2 L ṗ``) or ``G(p)`` (``"global"``, ``ω = 2 G ṗ``) of N bodies,
    ``(N, 4)`` → ``(N, 3, 4)``: ``[−e, ∓ẽ + e0 I]`` (Nikravesh 1988, §6.4)."""
    sign = 1.0 if frame == "global" else -1.0
    out = np.empty((len(p), 3, 4))
    out[:, :, 0] = -p[:, 1:]
    out[:, :, 1:] = p[:, 0, None, None] * _I3 + sign * _tildes(p[:, 1:])
    return out


# ====================================================================== jets
class _State:
    """``q`` (and ``q̇``) of every body as rows ``(n_bodies + 1, 3 | 4)``, the fixed frame appended last
    (body −1: at the origin, unrotated, at rest), so a constant global vector is one of its body vectors.
    """

    __slots__ = ("r", "p", "rd", "pd", "qd", "ncols")

    def __init__(self, q, qd=None):
        nb = len(q) // 7
        x = np.empty((nb + 1, 7))
        x[:nb] = np.reshape(q, (nb, 7))
        x[nb] = _FIXED_POSE
        self.r, self.p, self.ncols = x[:, :3], x[:, 3:], 7 * (nb + 1)
        if qd is None:
            self.rd = self.pd = self.qd = None
        else:
            v = np.zeros((nb + 1, 7))
            v[:nb] = np.reshape(qd, (nb, 7))
            self.rd, self.pd, self.qd = v[:, :3], v[:, 3:], v.ravel()


class _Vec(_PlanarVec):
    """A jet of N global 3-vectors made of body points and body vectors (the planar jet's fields, batched).

    ``val`` (N, 3); ``jac`` (N, 3, 14): the derivative with respect to the 7 coordinates of the row's body
    i (columns 0-6) and of its body j (columns 7-13); ``vel`` (N, 3) = ``jac q̇``; ``acc`` (N, 3): the
    second time derivative without its ``q̈`` term.  ``vel`` and ``acc`` are None at position level.
    """

    __slots__ = ()

    def components(self):
        """The three components as rows (element-major: x, y, z of row 0, then of row 1, ...)."""
        n = len(self.val)
        return _Scalar(self.val.reshape(3 * n), self.jac.reshape(3 * n, 14),
                       None if self.vel is None else self.vel.reshape(3 * n),
                       None if self.acc is None else self.acc.reshape(3 * n))


class _Scalar:
    """A jet of N scalar equations: ``val`` (N,), ``jac`` (N, 14), ``vel`` (N,) = ``jac q̇`` and ``quad``
    (N,) = the part of the second derivative without ``q̈`` (both None at position level)."""

    __slots__ = ("val", "jac", "vel", "quad")

    def __init__(self, val, jac, vel=None, quad=None):
        self.val, self.jac, self.vel, self.quad = val, jac, vel, quad

    def square(self):
        """``s²``: ``(s²)_q = 2 s s_q``, ``quad = 2 s s_quad + 2 ṡ²``."""
        s = self.val
        if self.vel is None:
            return _Scalar(s * s, 2 * s[:, None] * self.jac)
        return _Scalar(s * s, 2 * s[:, None] * self.jac, 2 * s * self.vel,
                       2 * s * self.quad + 2 * self.vel * self.vel)

    def combine(self, a, other, b, c=0.0):
        """``a s + b o + c`` for numbers or (N,) arrays a, b, c (c a constant)."""
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        jac = a[..., None] * self.jac + b[..., None] * other.jac
        if self.vel is None:
            return _Scalar(a * self.val + b * other.val + c, jac)
        return _Scalar(a * self.val + b * other.val + c, jac, a * self.vel + b * other.vel,
                       a * self.quad + b * other.quad)


class _Local:
    """N body-frame 3-vectors ``s'`` (``s``, shape (N, 3)) with the constant tensor ``C`` (N, 12, 4) of
    their point Jacobians: ``P(p, s')`` is linear in ``p``, ``P(p, s') = C p`` (reshaped (N, 3, 4)), so
    ``C`` is made once, when the rows are laid out, and each evaluation is one batched product."""

    __slots__ = ("s", "C")

    def __init__(self, s):
        self.s = np.asarray(s, dtype=float).reshape(-1, 3)
        n = len(self.s)
        columns = [_point_jacobians(np.tile(e, (n, 1)), self.s) for e in np.eye(4)]   # P(e_k, s')
        self.C = np.stack(columns, axis=-1).reshape(n, 12, 4)

    def jacobians(self, p):
        """``P(p, s')`` of the N rows, ``(N, 4)`` → ``(N, 3, 4)``."""
        return (self.C @ p[:, :, None]).reshape(len(p), 3, 4)


def _body_vector(st: _State, side: int, body, s: _Local, point: bool) -> _Vec:
    """``A_k s'`` (``point=False``) or ``r_k + A_k s'`` of body ``k = body[n]`` for N rows at once.

    ``side`` 0 or 1: the Jacobian goes into the columns of the row's body i or body j; ``body`` (N,) body
    indices of the state (−1: the fixed frame, whose vectors are constants), ``s`` the body-frame
    components.  With ``P = P(p, s')``: ``A s' = ½ P p − s'`` (A is a quadratic form in p plus ``−I``),
    velocity ``P ṗ`` (+ ``ṙ``), and ``P(ṗ, s') ṗ`` the second derivative without ``P p̈`` (module notes).
    """
    n = len(body)
    jac = np.zeros((n, 3, 14))
    if (body == FIXED).all():                                    # constants of the fixed frame
        zero = None if st.pd is None else np.zeros((n, 3))
        return _Vec(s.s, jac, zero, zero)
    p = st.p[body]
    P = s.jacobians(p)
    val = 0.5 * (P @ p[:, :, None])[:, :, 0] - s.s
    c = 7 * side
    jac[:, :, c + 3: c + 7] = P
    if point:
        val = val + st.r[body]
        jac[:, :, c: c + 3] = _I3
    if st.pd is None:
        return _Vec(val, jac)
    pd = st.pd[body]
    vel = (P @ pd[:, :, None])[:, :, 0]
    acc = (s.jacobians(pd) @ pd[:, :, None])[:, :, 0]
    if point:
        vel = vel + st.rd[body]
    return _Vec(val, jac, vel, acc)


def _point(st, side, body, s):
    """Body points ``r_k + A_k s'`` (see :func:`_body_vector`)."""
    return _body_vector(st, side, body, s, True)


def _vector(st, side, body, a):
    """Body vectors ``A_k a'`` (see :func:`_body_vector`)."""
    return _body_vector(st, side, body, a, False)


def _dot(a: _Vec, b: _Vec) -> _Scalar:
    """``a·b`` with ``(a·b)_q = aᵀ b_q + bᵀ a_q`` and ``quad = a_quad·b + 2 ȧ·ḃ + a·b_quad``."""
    val = np.einsum("nc,nc->n", a.val, b.val)
    jac = np.einsum("nc,ncj->nj", a.val, b.jac) + np.einsum("nc,ncj->nj", b.val, a.jac)
    if a.vel is None:
        return _Scalar(val, jac)
    vel = np.einsum("nc,nc->n", a.vel, b.val) + np.einsum("nc,nc->n", a.val, b.vel)
    quad = (np.einsum("nc,nc->n", a.acc, b.val) + 2 * np.einsum("nc,nc->n", a.vel, b.vel)
            + np.einsum("nc,nc->n", a.val, b.acc))
    return _Scalar(val, jac, vel, quad)


# ---------------------------------------------------------------------- the basic constraints
# Each kind evaluates N elements at once: kind(state, i, j, par) -> _Scalar, with i, j (N,) the bodies
# of each element (−1: the fixed frame) and par the elements' parameters stacked (:func:`_stacked`:
# body-frame 3-vectors as a _Local, numbers and matrices as (N, ...) arrays).
def _spherical(st, i, j, par):
    """``r_i + A_i s'_i − r_j − A_j s'_j`` (3 rows per element; Nikravesh 1988, §7.2.3)."""
    return (_point(st, 0, i, par["si"]) - _point(st, 1, j, par["sj"])).components()


def _dot1(st, i, j, par):
    """Dot-1: ``(A_i a'_i)·(A_j a'_j)``, zero for two body vectors that stay perpendicular (§7.2.1)."""
    return _dot(_vector(st, 0, i, par["ai"]), _vector(st, 1, j, par["aj"]))


def _dot2(st, i, j, par):
    """Dot-2: ``(A_i a'_i)·d`` with ``d = r_Pj − r_Pi`` (§7.2.2)."""
    return _dot(_vector(st, 0, i, par["ai"]), _point(st, 1, j, par["sj"]) - _point(st, 0, i, par["si"]))


def _distance(st, i, j, par):
    """``dᵀd − ℓ²`` with ``d = r_Pj − r_Pi`` (Haug 1989, §9.2)."""
    d = _point(st, 1, j, par["sj"]) - _point(st, 0, i, par["si"])
    e = _dot(d, d)
    e.val = e.val - par["length2"]
    return e


def _fixed(st, i, j, par):
    """A body fixed at its initial pose ``(r0, p0)``: ``r − r0`` and the vector part of ``p0* ⊗ p``,
    ``L0 p`` with ``L0 = [−a, a0 I − ã]`` for ``p0 = (a0, a)`` (6 rows per element, linear in q)."""
    n = len(i)
    L0 = par["L0"]
    val = np.concatenate([st.r[i] - par["r0"].s, (L0 @ st.p[i][:, :, None])[:, :, 0]], axis=1)
    jac = np.zeros((n, 6, 14))
    jac[:, :3, :3] = _I3
    jac[:, 3:, 3:7] = L0
    out = _Scalar(val.reshape(6 * n), jac.reshape(6 * n, 14))
    if st.pd is not None:
        out.vel = np.concatenate([st.rd[i], (L0 @ st.pd[i][:, :, None])[:, :, 0]], axis=1).reshape(6 * n)
        out.quad = np.zeros(6 * n)
    return out


def _norm(st, i, j, par):
    """The normalization ``pᵀp − 1`` (Nikravesh 1988, §6.2): ``Φ_p = 2 pᵀ``, ``quad = 2 ṗᵀṗ``."""
    p = st.p[i]
    jac = np.zeros((len(i), 14))
    jac[:, 3:7] = 2 * p
    out = _Scalar(np.einsum("nc,nc->n", p, p) - 1.0, jac)
    if st.pd is not None:
        pd = st.pd[i]
        out.vel, out.quad = 2 * np.einsum("nc,nc->n", p, pd), 2 * np.einsum("nc,nc->n", pd, pd)
    return out


def _one(st, i, j, par):
    """The constant 1 (the part of a driver that only time multiplies)."""
    n = len(i)
    out = _Scalar(np.ones(n), np.zeros((n, 14)))
    if st.pd is not None:
        out.vel, out.quad = np.zeros(n), np.zeros(n)
    return out


@dataclass(frozen=True, eq=False)
class _Element:
    """``rows`` equations of one kind between the joint's bodies ``i`` and ``j`` (positions in the joint's
    body list; −1: the fixed frame), with their parameters (arrays of body-frame components)."""

    kind: object
    rows: int
    i: int
    j: int
    par: dict = field(default_factory=dict)


def _spherical_el(si, sj):
    return _Element(_spherical, 3, 0, 1, {"si": si, "sj": sj})


def _dot1_el(ai, aj, i=0, j=1):
    return _Element(_dot1, 1, i, j, {"ai": ai, "aj": aj})


def _dot2_el(ai, si, sj):
    return _Element(_dot2, 1, 0, 1, {"ai": ai, "si": si, "sj": sj})


def _stacked(values):
    """Parameters of N elements stacked: body-frame 3-vectors as a :class:`_Local`, the rest as arrays."""
    a = np.array(values, dtype=float)
    return _Local(a) if a.shape[1:] == (3,) else a


class _Rows:
    """The rows of many elements, evaluated with one call per kind and scattered by fixed index arrays.

    Built from ``(elements, body indices, driver)`` entries, in row order: each entry's elements give
    consecutive rows, except a driver's, whose parts are combined into one row
    ``Σ_k c_k(t) a_k(q)`` (:class:`SpatialDriver`); the parts sit in extra rows after the ``m`` real ones.
    """

    def __init__(self, entries):
        self.m = sum(1 if driver else sum(e.rows for e in elements) for elements, _, driver in entries)
        groups, self.drivers = {}, []
        row, extra = 0, self.m                         # the next real row, the next extra (driver part) row
        for elements, index, driver in entries:
            parts = []
            for e in elements:
                i = index[e.i] if e.i >= 0 else FIXED
                j = index[e.j] if e.j >= 0 else FIXED
                first = extra if driver else row
                groups.setdefault(e.kind, []).append((e, i, j, first))
                parts.extend(range(first, first + e.rows))
                if driver:
                    extra += e.rows
                else:
                    row += e.rows
            if driver:
                self.drivers.append((row, np.array(parts), driver))
                row += 1
        self.size = extra
        self.groups = []                               # per kind: (kind, i, j, par, rows, cols)
        for kind, items in groups.items():
            k = items[0][0].rows
            i = np.array([b_i for _, b_i, _, _ in items], dtype=int)
            j = np.array([b_j for _, _, b_j, _ in items], dtype=int)
            par = {key: _stacked([e.par[key] for e, _, _, _ in items]) for key in items[0][0].par}
            rows = np.concatenate([np.arange(first, first + k) for _, _, _, first in items])
            # the 14 columns of each row: body i's 7 coordinates, then body j's (the fixed frame, −1, owns
            # the last 7 columns of the evaluation's matrix, which are dropped)
            seven = np.arange(7)
            cols = np.repeat(np.hstack([7 * i[:, None] + seven, 7 * j[:, None] + seven]), k, axis=0)
            self.groups.append((kind, i, j, par, rows, cols))

    def evaluate(self, q, qd=None, t=0.0):
        """``(Φ (m,), Φ_q (m, n), Φ_t (m,), quad (m,) or None)`` at ``q`` (and ``q̇``), time ``t``."""
        st = _State(q, qd)
        val, jac = np.empty(self.size), np.zeros((self.size, st.ncols))
        quad = None if qd is None else np.empty(self.size)
        for kind, i, j, par, rows, cols in self.groups:
            s = kind(st, i, j, par)
            val[rows] = s.val
            jac[rows[:, None], cols] = s.jac
            if quad is not None:
                quad[rows] = s.quad
        phi_t = np.zeros(self.m)
        for row, parts, driver in self.drivers:        # Φ = Σ c_k a_k (Haug 1989, §3.5)
            c, cd, cdd = driver.coef(t)
            a = val[parts]
            if quad is not None:                       # quad = Σ (c_k ä_k + 2 ċ_k ȧ_k + c̈_k a_k)
                quad[row] = c @ quad[parts] + 2 * cd @ (jac[parts] @ st.qd) + cdd @ a
            val[row], phi_t[row], jac[row] = c @ a, cd @ a, c @ jac[parts]
        n = st.ncols - 7
        return val[: self.m], jac[: self.m, :n], phi_t, None if quad is None else quad[: self.m]


# ====================================================================== bodies and joints
@dataclass(eq=False)  # bodies compare by identity
class SpatialBody:
    """A body of a :class:`SpatialMechanism`: initial position of its centre of mass (3,), Euler
    parameters (4,), mass, central inertia in body components (3, 3; None: kinematics only), initial
    velocity and angular velocity (global components)."""

    name: str
    position: np.ndarray
    orientation: np.ndarray
    mass: float
    index: int
    inertia: np.ndarray | None = None
    velocity: np.ndarray | None = None
    angular_velocity: np.ndarray | None = None


class SpatialJoint:
    """A joint: its equations ``Φ``, ``Φ_q`` and ``γ`` on the joint's own coordinates, and its coordinates.

    ``q`` of :meth:`phi`, :meth:`jacobian` and :meth:`gamma` holds the 7 coordinates of each body in
    ``bodies``, shape ``(7 * len(bodies),)``.  ``joint.angle`` and ``joint.slide`` (where the joint has
    them) are :class:`~mbdlib.model.Coordinate` objects on the *model's* coordinates.
    """

    def __init__(self, kind, name, bodies, labels, elements, coordinates=None):
        self.kind, self.name, self.bodies = kind, name, tuple(bodies)
        self.labels = [f"{kind} {name} {lab}".rstrip() for lab in labels]
        self.elements = tuple(elements)
        self._coordinates = dict(coordinates or {})    # name -> (elements, outer function)
        self._index = None                              # the model's body indices, set when added
        self._local, self._made = None, {}

    @property
    def n_eq(self) -> int:
        return len(self.labels)

    def _entry(self, index):
        return (self.elements, index, None)

    def _evaluate(self, q, qd=None, t=0.0):
        q = np.asarray(q, dtype=float)
        if q.shape != (7 * len(self.bodies),):
            raise ShapeError(f"joint {self.name!r}: q must hold the 7 coordinates of its {len(self.bodies)} "
                             f"bodies, shape ({7 * len(self.bodies)},), got {q.shape}")
        if self._local is None:
            self._local = _Rows([self._entry(tuple(range(len(self.bodies))))])
        return self._local.evaluate(q, None if qd is None else np.asarray(qd, dtype=float), t)

    def phi(self, q, t=0.0):
        """``Φ``, shape ``(n_eq,)``."""
        return self._evaluate(q, None, t)[0]

    def jacobian(self, q, t=0.0):
        """``Φ_q``, shape ``(n_eq, 7 * len(bodies))``."""
        return self._evaluate(q, None, t)[1]

    def phi_t(self, q, t=0.0):
        """``∂Φ/∂t``, shape ``(n_eq,)`` (zero but for drivers)."""
        return self._evaluate(q, None, t)[2]

    def gamma(self, q, qd, t=0.0):
        """``γ = −(Φ_q q̇)_q q̇ − 2 Φ_qt q̇ − Φ_tt``, shape ``(n_eq,)``, in closed form from the jets."""
        return -self._evaluate(q, qd, t)[3]

    # ------------------------------------------------------------ joint coordinates
    @property
    def coordinates(self) -> tuple:
        """The names of the joint's coordinates (``"angle"``, ``"slide"``)."""
        return tuple(self._coordinates)

    def _coordinate(self, kind: str) -> Coordinate:
        if kind not in self._coordinates:
            have = (f"its coordinates are {', '.join(self._coordinates)}" if self._coordinates
                    else "it has none")
            raise ModelError(f"joint {self.name!r} ({self.kind}) has no {kind} coordinate; {have}")
        if self._index is None:
            raise ModelError(f"joint {self.name!r}: add it to a model first (its coordinates are the "
                             "model's)")
        made = self._made.get(kind)
        if made is None:                               # made once: its row layout is reused on each call
            elements, outer = self._coordinates[kind]
            made = self._made[kind] = _coordinate(f"{self.name} {kind}", "rad" if kind == "angle" else "m",
                                                  [(elements, self._index, None)], outer)
        return made

    @property
    def angle(self) -> Coordinate:
        """The joint angle θ [rad] (revolute, cylindrical): ``f_j = cos θ f_i + sin θ g_i`` with
        ``f_i, g_i ⊥ axis_i`` on body i and ``f_j`` = ``f_i`` carried into body j at the initial poses,
        ``θ = atan2(f_j·g_i, f_j·f_i)``: the angle a rotational driver about the same axis prescribes."""
        return self._coordinate("angle")

    @property
    def slide(self) -> Coordinate:
        """The slide [m] (prismatic, cylindrical): ``(r_Pj − r_Pi)·(A_i u'_i)``, the travel of ``P_j``
        along the axis of body i (zero at the initial poses when ``P_j`` starts at ``P_i``)."""
        return self._coordinate("slide")

    def coordinate(self) -> Coordinate:
        """The joint's one coordinate (its angle or slide); an error if it has none or two."""
        if len(self._coordinates) != 1:
            have = ", ".join(f"joint.{c}" for c in self._coordinates) or "none"
            raise ModelError(f"joint {self.name!r} ({self.kind}) has {len(self._coordinates)} coordinates "
                             f"({have}): name the one you mean")
        return self._coordinate(next(iter(self._coordinates)))

    def rate(self, q, qd) -> float:
        """The rate of the joint's one coordinate (``joint.angle.rate`` or ``joint.slide.rate``)."""
        return self.coordinate().rate(q, qd)

    def __repr__(self):
        return f"{type(self).__name__}({self.kind!r}, {self.name!r}, bodies={self.bodies})"


def _coordinate(name, unit, entries, outer):
    """A :class:`Coordinate` whose pieces are the rows of ``entries`` (see :class:`_Rows`), one row each,
    evaluated on a model's full ``q``: value, gradient (the Jacobian row) and quad."""
    rows = _Rows(entries)

    def pieces(q, qd):
        phi, J, _, quad = rows.evaluate(q, qd)
        return [Part(phi[k], J[k], 0.0 if quad is None else quad[k]) for k in range(len(phi))]

    return Coordinate(name, unit, pieces, outer)


class SpatialDriver(SpatialJoint):
    """One driving equation ``Φ(q, t) = Σ_k c_k(t) a_k(q) = 0``: parts ``a_k`` (basic constraints, jets)
    times known functions of time ``coef(t) → (c, ċ, c̈)``, each shape ``(n_parts,)``.

    ``Φ_q = Σ c_k (a_k)_q``, ``Φ_t = Σ ċ_k a_k`` and ``γ = −Σ_k (c_k ä_k + 2 ċ_k ȧ_k + c̈_k a_k)``, with
    ``ȧ_k = (a_k)_q q̇`` and ``ä_k`` the velocity-product part of the second derivative of ``a_k``: the
    second time derivative of Φ without the ``Φ_q q̈`` term (Haug 1989, §3.5).
    """

    def __init__(self, kind, name, bodies, parts, coef):
        super().__init__(kind, name, bodies, ["driver"], parts)
        self.coef = coef

    def _entry(self, index):
        return (self.elements, index, self)


@dataclass
class SpatialDofReport(DofReport):
    """:class:`DofReport` plus the counts without Euler parameters (6 per body, no normalization)."""

    coordinates_6: int = 0
    constraints_6: int = 0


# ====================================================================== the mechanism
class SpatialMechanism(Model):
    """A spatial mechanism in Cartesian coordinates with Euler parameters (7 per body): bodies, joints,
    drivers, ``Φ``, ``Φ_q``, ``Φ_t``, ``γ`` (all rows at once, :class:`_Rows`) and DOF by rank.

    :class:`mbdlib.spatial.SpatialModel` adds the dynamics (mass matrix, forces, rolling, the system).
    """

    def __init__(self):
        self._assembly = None
        self.bodies: list[SpatialBody] = []
        self.joints: list[SpatialJoint] = []
        self._rows_cache = None
        self._last = None                              # (key, evaluation) of the last (q, q̇, t)

    def _changed(self):
        super()._changed()
        self._rows_cache = self._last = None

    @property
    def n(self) -> int:
        """Number of coordinates, ``7 * len(bodies)``."""
        return 7 * len(self.bodies)

    # ------------------------------------------------------------------ bodies
    def add_body(self, name, position=(0.0, 0.0, 0.0), orientation=(1.0, 0.0, 0.0, 0.0), mass=1.0,
                 inertia=None, velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0)) -> SpatialBody:
        """Add a body: initial position of its centre of mass, Euler parameters (normalised here), mass,
        central inertia in body components (3 × 3, or the 3 principal moments; needed for dynamics),
        and the initial velocity of the centre of mass and angular velocity, in global components."""
        name = str(name)
        if any(b.name == name for b in self.bodies):
            raise ModelError(f"a body named {name!r} already exists; pick another name")
        if isinstance(mass, bool) or not isinstance(mass, int | float | np.floating | np.integer) \
                or not (np.isfinite(mass) and mass > 0):
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

    def body(self, b) -> SpatialBody:
        """The body given by object or name; an unknown one raises :class:`ModelError`."""
        if isinstance(b, SpatialBody) and b in self.bodies:
            return b
        for body in self.bodies:
            if body.name == b:
                return body
        raise ModelError(f"unknown body {getattr(b, 'name', b)!r}; the bodies are: "
                         + ", ".join(x.name for x in self.bodies))

    def joint(self, j) -> SpatialJoint:
        """The joint given by object or name."""
        for joint in self.joints:
            if joint is j or joint.name == j:
                return joint
        raise ModelError(f"unknown joint {getattr(j, 'name', j)!r}; the joints are: "
                         + (", ".join(x.name for x in self.joints) or "none"))

    def _carry(self, body_i, body_j, v):
        """Body-i vector ``v`` expressed in body j at the initial orientations: ``A_j0ᵀ A_i0 v``."""
        bi, bj = self.body(body_i), self.body(body_j)
        return _A(bj.orientation).T @ _A(bi.orientation) @ v

    def _initial_point(self, body, s):
        return body.position + _A(body.orientation) @ s

    # ------------------------------------------------------------------ joints
    def _add(self, kind, name, bodies, labels, elements, coordinates=None, make=None) -> SpatialJoint:
        """Check the bodies and the name, then add the joint (``make`` builds it, default SpatialJoint)."""
        bodies = [self.body(b) for b in bodies]
        if len(bodies) == 2 and bodies[0] is bodies[1]:
            raise ModelError(f"{kind}: a joint needs two different bodies, got {bodies[0].name!r} twice")
        name = str(name) if name is not None else f"{kind}{len(self.joints) + 1}"
        if any(j.name == name for j in self.joints):
            raise ModelError(f"a joint named {name!r} already exists; give a unique name=")
        names = [b.name for b in bodies]
        joint = make(name, names) if make else SpatialJoint(kind, name, names, labels, elements, coordinates)
        joint._index = tuple(b.index for b in bodies)
        self.joints.append(joint)
        self._changed()
        return joint

    def fix(self, body, name=None) -> SpatialJoint:
        """Fix a body at its initial pose: ``r − r0 = 0``, vector part of ``p0* ⊗ p`` = 0 (6 equations).

        The vector part of ``p0* ⊗ p`` is ``a0 e − e0 a − ã e`` (``p0 = (a0, a)``), linear in ``p``.
        """
        b = self.body(body)
        a0, a = b.orientation[0], b.orientation[1:]
        L0 = np.column_stack([-a, a0 * np.eye(3) - _tilde(a)])
        el = _Element(_fixed, 6, 0, FIXED, {"r0": b.position.copy(), "L0": L0})
        return self._add("fix", name, [b], ["x", "y", "z", "rx", "ry", "rz"], [el])

    def add_spherical(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), name=None) -> SpatialJoint:
        """Ball joint: ``point_i`` of body i = ``point_j`` of body j (3 equations)."""
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        return self._add("spherical", name, [body_i, body_j], ["x", "y", "z"], [_spherical_el(si, sj)])

    def _who(self, kind, body_i, body_j, name):
        """How messages name a joint being added: by its name, else by its bodies."""
        if name is not None:
            return f"{kind} {str(name)!r}"
        return f"{kind} between {self.body(body_i).name!r} and {self.body(body_j).name!r}"

    def _axes(self, body_i, body_j, axis_i, axis_j, who=""):
        """``u_i``, its perpendiculars ``f_i, g_i`` and body j's axis ``h_j`` (default: ``u_i`` carried)."""
        ui = _unit3(axis_i, f"{who}: axis_i" if who else "axis_i")
        hj = self._carry(body_i, body_j, ui) if axis_j is None else \
            _unit3(axis_j, f"{who}: axis_j" if who else "axis_j")
        fi, gi = _perpendiculars(ui)
        return ui, fi, gi, hj

    def _angle(self, body_i, body_j, fi, gi):
        """The elements of the joint angle ``atan2(f_j·g_i, f_j·f_i)``, ``f_j`` = ``f_i`` carried."""
        fj = self._carry(body_i, body_j, fi)
        return ((_dot1_el(gi, fj), _dot1_el(fi, fj)), "atan2")

    def add_revolute(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), axis_i=(0, 0, 1),
                     axis_j=None, name=None) -> SpatialJoint:
        """Revolute joint: spherical + ``h_j ⊥ f_i, g_i`` (axes stay parallel; 5 equations; Nikravesh
        1988, §7.3).  ``axis_j`` defaults to ``axis_i`` carried into body j by the initial orientations.
        Its coordinate is ``joint.angle``."""
        who = self._who("revolute", body_i, body_j, name)
        _, fi, gi, hj = self._axes(body_i, body_j, axis_i, axis_j, who)
        si, sj = _v3(point_i, f"{who}: point_i"), _v3(point_j, f"{who}: point_j")
        return self._add("revolute", name, [body_i, body_j], ["x", "y", "z", "axis f", "axis g"],
                         [_spherical_el(si, sj), _dot1_el(fi, hj), _dot1_el(gi, hj)],
                         {"angle": self._angle(body_i, body_j, fi, gi)})

    def add_universal(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), axis_i=(1, 0, 0),
                      axis_j=(0, 1, 0), name=None) -> SpatialJoint:
        """Universal (Hooke) joint: spherical + ``(A_i h_i)ᵀ (A_j h_j) = 0`` (the cross; 4 equations)."""
        who = self._who("universal", body_i, body_j, name)
        hi, hj = _unit3(axis_i, f"{who}: axis_i"), _unit3(axis_j, f"{who}: axis_j")
        si, sj = _v3(point_i, f"{who}: point_i"), _v3(point_j, f"{who}: point_j")
        return self._add("universal", name, [body_i, body_j], ["x", "y", "z", "cross"],
                         [_spherical_el(si, sj), _dot1_el(hi, hj)])

    def _slide(self, ui, si, sj):
        return ((_dot2_el(ui, si, sj),), "identity")

    def add_prismatic(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), axis_i=(0, 0, 1),
                      axis_j=None, name=None) -> SpatialJoint:
        """Prismatic joint (5 equations; Haug 1989, §9.3): axes parallel (2 dot-1), ``P_j`` on the
        axis of body i (2 dot-2), and no rotation about the axis (1 dot-1 with a body-j vector that
        is perpendicular to ``f_i`` in the initial configuration).  Its coordinate is ``joint.slide``."""
        who = self._who("prismatic", body_i, body_j, name)
        ui, fi, gi, hj = self._axes(body_i, body_j, axis_i, axis_j, who)
        si, sj = _v3(point_i, f"{who}: point_i"), _v3(point_j, f"{who}: point_j")
        gj = self._carry(body_i, body_j, gi)
        return self._add(
            "prismatic", name, [body_i, body_j], ["axis f", "axis g", "line f", "line g", "twist"],
            [_dot1_el(fi, hj), _dot1_el(gi, hj), _dot2_el(fi, si, sj), _dot2_el(gi, si, sj),
             _dot1_el(fi, gj)], {"slide": self._slide(ui, si, sj)})

    def add_cylindrical(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), axis_i=(0, 0, 1),
                        axis_j=None, name=None) -> SpatialJoint:
        """Cylindrical joint: the prismatic joint without its twist row (4 equations: axes parallel,
        ``P_j`` on the axis of body i); it slides along and turns about the axis: ``joint.slide`` and
        ``joint.angle``."""
        who = self._who("cylindrical", body_i, body_j, name)
        ui, fi, gi, hj = self._axes(body_i, body_j, axis_i, axis_j, who)
        si, sj = _v3(point_i, f"{who}: point_i"), _v3(point_j, f"{who}: point_j")
        return self._add(
            "cylindrical", name, [body_i, body_j], ["axis f", "axis g", "line f", "line g"],
            [_dot1_el(fi, hj), _dot1_el(gi, hj), _dot2_el(fi, si, sj), _dot2_el(gi, si, sj)],
            {"slide": self._slide(ui, si, sj), "angle": self._angle(body_i, body_j, fi, gi)})

    def add_distance(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), length=None,
                     name=None) -> SpatialJoint:
        """Distance ``|P_j − P_i| = length`` written as ``dᵀd − length² = 0`` (1 equation; a massless
        rod with a ball joint at each end).  ``length`` defaults to the distance at the initial poses."""
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        bi, bj = self.body(body_i), self.body(body_j)
        if length is None:
            length = float(np.linalg.norm(self._initial_point(bj, sj) - self._initial_point(bi, si)))
        if not (np.isfinite(length) and length > 0):
            raise ModelError(f"distance: the length must be positive, got {length!r}")
        el = _Element(_distance, 1, 0, 1, {"si": si, "sj": sj, "length2": float(length) ** 2})
        return self._add("distance", name, [bi, bj], [""], [el])

    # ------------------------------------------------------------------ drivers
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

        def coef(t):
            th, thd, thdd = motion(t)
            c, s = np.cos(th), np.sin(th)
            return (np.array([c, -s]), np.array([-s, -c]) * thd,
                    np.array([-s, -c]) * thdd - np.array([c, -s]) * thd ** 2)

        return self._add_driver("rotational driver", name, [body_i, body_j],
                                [_dot1_el(gi, fj), _dot1_el(fi, fj)], coef)

    def add_distance_driver(self, body_i, body_j, point_i=(0, 0, 0), point_j=(0, 0, 0), f=None, df=None,
                            ddf=None, speed=None, name=None) -> SpatialDriver:
        """Prescribe the distance ``ℓ(t)`` between two points (body frames): ``dᵀd − ℓ(t)² = 0`` (1 equation;
        e.g. a linear actuator between two ball joints).  ``speed``: ℓ = ℓ(0) + speed·t from the initial
        distance."""
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        bi, bj = self.body(body_i), self.body(body_j)
        start = float(np.linalg.norm(self._initial_point(bj, sj) - self._initial_point(bi, si)))
        name = str(name) if name is not None else f"distance driver{len(self.joints) + 1}"
        motion = motion_of(name, f, df, ddf, speed, start)

        def coef(t):                                   # Φ = 1·(dᵀd) − ℓ²·1
            ell, elld, elldd = motion(t)               # (ℓ²)' = 2ℓℓ̇, (ℓ²)'' = 2(ℓ̇² + ℓℓ̈)
            return (np.array([1.0, -ell ** 2]), np.array([0.0, -2 * ell * elld]),
                    np.array([0.0, -2 * (elld ** 2 + ell * elldd)]))

        parts = [_Element(_distance, 1, 0, 1, {"si": si, "sj": sj, "length2": 0.0}), _Element(_one, 1, 0, 1)]
        return self._add_driver("distance driver", name, [bi, bj], parts, coef)

    def _add_driver(self, kind, name, bodies, parts, coef) -> SpatialDriver:
        def make(name, names):
            return SpatialDriver(kind, name, names, parts, coef)

        return self._add(kind, name, bodies, ["driver"], None, make=make)

    # ------------------------------------------------------------------ equations
    def q_guess(self) -> np.ndarray:
        """Initial positions and Euler parameters, shape ``(7 n_bodies,)``."""
        return np.concatenate([np.r_[b.position, b.orientation] for b in self.bodies] or [np.zeros(0)])

    def qd_guess(self, q=None) -> np.ndarray:
        """Initial velocities from the bodies' ``velocity`` and ``angular_velocity``: ``ṗ = ½ Lᵀ Aᵀ ω``."""
        q = self.q_guess() if q is None else np.asarray(q, dtype=float)
        out = []
        for b in self.bodies:
            p = q[7 * b.index + 3: 7 * b.index + 7]
            out.append(np.r_[b.velocity, 0.5 * _L(p).T @ (_A(p).T @ b.angular_velocity)])
        return np.concatenate(out or [np.zeros(0)])

    @property
    def labels(self) -> list[str]:
        """Holonomic rows: the joints, then the normalization of each body."""
        return [lab for j in self.joints for lab in j.labels] + [f"norm {b.name}" for b in self.bodies]

    @property
    def coordinate_names(self) -> list[str]:
        """``x_body, y_body, z_body, e0_body, ..., e3_body`` for each body in order."""
        return [f"{c}_{b.name}" for b in self.bodies for c in ("x", "y", "z", "e0", "e1", "e2", "e3")]

    def _rows(self) -> _Rows:
        """All holonomic rows (joints, then normalizations), built once per model change."""
        if self._rows_cache is None:
            norm = _Element(_norm, 1, 0, FIXED)
            self._rows_cache = _Rows([j._entry(j._index) for j in self.joints]
                                     + [((norm,), (b.index,), None) for b in self.bodies])
        return self._rows_cache

    def _evaluate(self, q, qd=None, t=0.0):
        """``(Φ, Φ_q, Φ_t, quad)`` at ``(q, q̇, t)``; the last evaluation is kept, so that ``Φ_q`` and
        ``γ`` at the same state (one KKT solve asks for both) cost one pass."""
        q = np.asarray(q, dtype=float)
        if q.shape != (self.n,):
            raise ShapeError(f"{self._describe()}: q must have shape ({self.n},), got {q.shape}")
        qd = None if qd is None else np.asarray(qd, dtype=float)
        key = state_key(q, qd, float(t))
        if self._last is not None and kept_answers(self._last[0], key):
            return self._last[1]
        out = self._rows().evaluate(q, qd, float(t))
        self._last = (key, out)
        return out

    def phi(self, q, t=0.0) -> np.ndarray:
        """Joint equations, then ``pᵀp − 1`` of each body, shape ``(m,)``."""
        return self._evaluate(q, None, t)[0].copy()

    def phi_q(self, q, t=0.0) -> np.ndarray:
        """``Φ_q``, shape ``(m, 7 n_bodies)``."""
        return self._evaluate(q, None, t)[1].copy()

    def phi_t(self, q, t=0.0) -> np.ndarray:
        """``Φ_t``: the drivers' rows (:class:`SpatialDriver`), zero for the joints and normalizations."""
        return self._evaluate(q, None, t)[2].copy()

    def gamma(self, q, qd, t=0.0) -> np.ndarray:
        """``γ = −(Φ_q q̇)_q q̇ − 2 Φ_qt q̇ − Φ_tt`` of every row, shape ``(m,)``, in closed form from the
        jets (the normalization rows: ``−2 ṗᵀṗ``)."""
        return -self._evaluate(q, qd, t)[3]

    def B(self, q, t=0.0) -> np.ndarray:
        """Velocity constraints ``B q̇ = 0``: none in a mechanism, shape ``(0, n)``."""
        return np.zeros((0, self.n))

    def b_gamma(self, q, qd, t=0.0) -> np.ndarray:
        """``b_γ`` of ``B q̈ = b_γ``: none, shape ``(0,)``."""
        return np.zeros(0)

    def _assembly_failure(self, q, iterations, residual) -> ModelError:
        off = [(float(np.linalg.norm(j.phi(self._local_q(q, j)))), j) for j in self.joints]
        gap, worst = max(off, key=lambda g: g[0])
        return ModelError(f"cannot assemble: joint {worst.name!r} cannot close, distance {gap:.4g} "
                          f"after {iterations} Newton iterations; check its points and axes")

    def _local_q(self, q, joint):
        return np.concatenate([q[7 * k: 7 * k + 7] for k in joint._index])

    def _describe(self) -> str:
        return f"{type(self).__name__} ({len(self.bodies)} bodies)"

    def _velocity_weight(self, q):
        """A kinematic model has no mass matrix: every coordinate weighs alike."""
        return np.eye(self.n)

    def dof_report(self, q=None, rtol: float = 1e-8) -> SpatialDofReport:
        """DOF by rank of ``Φ_q`` (with normalization) and by Grübler's count ``6 n − Σ removed``; with
        velocity constraints (rolling), the velocity DOF by the rank of ``[Φ_q; B]``."""
        q = self.q0 if q is None else np.asarray(q, dtype=float)
        J, labels = self.phi_q(q), self.labels
        m, n_b = J.shape[0], len(self.bodies)
        rank, dependent, groups = rank_analysis(J, rtol)
        redundant, singular = [], False
        if dependent:
            g_rank, g_dep = nearby_rank(self.phi, self.phi_q, q, rtol)
            singular, redundant = g_rank > rank, [labels[r] for r in g_dep]
        owners = [j.name for j in self.joints for _ in j.labels] + [f"norm {b.name}" for b in self.bodies]
        B = self.B(q)
        velocity_rank = numerical_rank(np.vstack([J, B]), rtol) if len(B) else rank
        return SpatialDofReport(
            grubler=6 * n_b - (m - n_b), coordinates=self.n, constraints=m, rank=rank, dof=self.n - rank,
            redundant=redundant, singular=singular, dependent=[labels[r] for r in dependent],
            involved=sorted({owners[r] for g in groups for r in g}, key=owners.index), nonholonomic=len(B),
            velocity_dof=self.n - velocity_rank,
            notes=[f"without Euler parameters: {6 * n_b} coordinates (6 per body), "
                   f"{_validate.plural(m - n_b, 'constraint')}"],
            coordinates_6=6 * n_b, constraints_6=m - n_b)
