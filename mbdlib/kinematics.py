"""Recursive kinematics of chains: pose, velocity, acceleration, partial velocities, Jacobians.

The recursions run from the base outwards (parent before child) and follow
Ma, Xu & Li (1988) line by line.  For link i with parent p (the source's i-1),
all vectors in LOCAL frame components (frame i on the left, frame p inside R(...)):

====================  =====================================================================
angular velocity      ω_i = R ω_p + θ̇_i k_i
angular acceleration  α_i = R α_p + (R ω_p) × θ̇_i k_i + θ̈_i k_i
joint velocity        v_i = R (v_p + ω_p × l_p)
joint acceleration    a_i = R (a_p + α_p × l_p + ω_p × (ω_p × l_p))
centre of mass        v_Ci = v_i + ω_i × d_i,   a_Ci = a_i + α_i × d_i + ω_i × (ω_i × d_i)
partial ang. vel.     ω_i^(j) = R ω_p^(j) (j < i),  k_i (j = i),  0 (j > i)
partial velocities    v_i^(j) = R (v_p^(j) + ω_p^(j) × l_p) (j < i),  0 (j >= i)
                      v_Ci^(j) = v_i^(j) + ω_i^(j) × d_i
====================  =====================================================================

``R`` = R^i_{p} = A_{p,i}ᵀ turns parent components into frame-i components.
Prismatic joints (not in the source) are handled by the same rigid-body
kinematics: ω_i = R ω_p, α_i = R α_p, and the sliding adds ``q̇ k`` to v_i,
``2 ω_i × q̇ k + q̈ k`` to a_i; their partial velocities are ω_i^(i) = 0,
v_i^(i) = k_i.  In a tree the terms for j not on the path to link i vanish by
themselves (the parent's partial velocities for j are zero).

The base frame is the global frame and is at rest; ``base_acceleration``
(global components) is added to its linear acceleration, which is how gravity
enters: a base accelerating upwards with g (Ma, Xu & Li 1988).

The same code serves numbers (numpy) and formulas (sympy): if ``q``, its
rates or any chain parameter is symbolic, every result is a sympy Matrix.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from . import _backend as bk
from ._backend import as_backend
from .chain import Chain
from .errors import MbdError, ShapeError

__all__ = [
    "ChainKinematics",
    "PartialVelocities",
    "forward_kinematics",
    "partial_velocities",
    "jacobian",
    "point_position",
    "point_velocity",
    "point_acceleration",
]


def _coordinates(x, chain: Chain, name: str, symbolic: bool):
    """Validate a vector of joint coordinates/rates of shape (n,) and return its n entries."""
    try:
        x = bk.vector(x, chain.n, name=name)
    except ShapeError as exc:
        raise ShapeError(f"{exc} (chain {chain.name!r} has n = {chain.n} joints: {chain.joint_names}); "
                         f"give {name} of shape ({chain.n},)") from None
    x = as_backend(x, symbolic)
    return [x[i] for i in range(chain.n)]


def _local_to_global(obj, name, i, j=None):
    """Global components A_i @ x of a local vector field ``name`` of link i."""
    i = obj.chain.index(i)
    x = getattr(obj, name)
    if x is None:
        raise MbdError(f"{name} was not computed: pass qd (and qdd for accelerations) to forward_kinematics")
    return obj.A[i] @ (x[i] if j is None else x[i][j])


@dataclass
class ChainKinematics:
    """Result of :func:`forward_kinematics`: one entry per link in each list.

    Vector fields are in LOCAL frame-i components, as in the source; use
    :meth:`global_` (or the ``*_global`` shortcuts) for global components.
    Velocity fields are None when ``qd`` was not given, acceleration fields
    when ``qdd`` was not given.

    Attributes
    ----------
    R : list of (3, 3)
        R^i_{parent}: parent components -> frame-i components.
    A : list of (3, 3)
        Global DCM of frame i (frame-i components -> global).
    r : list of (3,)
        Global position of joint i (the origin of frame i).
    l : list of (3,)
        Vector from the parent's joint to joint i, parent components (source's l_{i-1}).
    d : list of (3,)
        Vector from joint i to the centre of mass C_i, frame-i components.
    omega, alpha : list of (3,)
        Angular velocity and acceleration of link i (frame i).
    v, a : list of (3,)
        Velocity and acceleration of joint i's origin (frame i).
    v_c, a_c : list of (3,)
        Velocity and acceleration of the centre of mass C_i (frame i).
    """

    chain: Chain
    q: list
    qd: list | None
    qdd: list | None
    R: list
    A: list
    r: list
    l: list
    d: list
    omega: list | None = None
    alpha: list | None = None
    v: list | None = None
    a: list | None = None
    v_c: list | None = None
    a_c: list | None = None

    def global_(self, name: str, i):
        """Global components ``A_i @ name[i]`` of a local vector (``"omega"``, ``"v_c"``, ...)."""
        return _local_to_global(self, name, i)

    def r_c(self, i):
        """Global position of the centre of mass of link i: r_i + A_i d_i."""
        i = self.chain.index(i)
        return self.r[i] + self.A[i] @ self.d[i]

    def omega_global(self, i):
        return self.global_("omega", i)

    def alpha_global(self, i):
        return self.global_("alpha", i)

    def v_c_global(self, i):
        return self.global_("v_c", i)

    def a_c_global(self, i):
        return self.global_("a_c", i)

    def simplify(self) -> ChainKinematics:
        """A copy with every symbolic entry simplified (numbers pass through)."""
        out = {}
        for f in fields(self):
            val = getattr(self, f.name)
            if f.name not in ("chain", "q", "qd", "qdd") and val is not None:
                val = [bk.simplify(x) for x in val]
            out[f.name] = val
        return replace(self, **out)


def forward_kinematics(chain: Chain, q, qd=None, qdd=None, base_acceleration=None,
                       symbolic: bool = False) -> ChainKinematics:
    """Pose, velocity and acceleration of every link, by the outward recursion.

    Parameters
    ----------
    chain : Chain
    q : array_like, shape (n,)
        Joint coordinates.
    qd, qdd : array_like, shape (n,), optional
        Joint rates and accelerations; without them the velocity (resp.
        acceleration) fields of the result are None.  ``qdd`` needs ``qd``.
    base_acceleration : array_like, shape (3,), optional
        Linear acceleration of the base, global components (default 0).  For
        gravity g pointing along -z pass ``(0, 0, g)``.
    symbolic : bool
        Return sympy Matrices even if every input is a number (default: sympy
        only when ``q``, its rates or a chain parameter is symbolic).

    Returns
    -------
    ChainKinematics

    Examples
    --------
    >>> import numpy as np
    >>> arm = Chain.planar([1.0, 1.0])
    >>> kin = forward_kinematics(arm, [0.0, np.pi / 2], qd=[1.0, 0.0])
    >>> np.round(kin.r[1], 12) + 0.0, np.round(kin.r_c(1), 12) + 0.0
    (array([1., 0., 0.]), array([1. , 0.5, 0. ]))
    >>> np.round(kin.v_c_global(1), 12) + 0.0
    array([-0.5,  1. ,  0. ])
    """
    if qdd is not None and qd is None:
        raise MbdError("forward_kinematics: qdd was given without qd; accelerations need both")
    sym = symbolic or bk.is_symbolic(q, qd, qdd, base_acceleration) or chain.is_symbolic
    q = _coordinates(q, chain, "q", sym)
    qd = None if qd is None else _coordinates(qd, chain, "qd", sym)
    qdd = None if qdd is None else _coordinates(qdd, chain, "qdd", sym)
    a0 = bk.zeros(3) if base_acceleration is None else bk.vector(base_acceleration, 3, "base_acceleration")
    zero = as_backend(bk.zeros(3), sym)
    n = chain.n
    # one entry per link, plus the base at index n (= -1, the parent index of a root link):
    # the global frame, at rest, with linear acceleration a0
    R, l, d = [None] * n, [None] * n, [None] * n
    A, r = [None] * n + [as_backend(bk.eye(3), sym)], [None] * n + [zero]
    moving, accelerating = qd is not None, qdd is not None
    omega, v, v_c = ([None] * n + [zero] for _ in range(3)) if moving else (None, None, None)
    alpha, a, a_c = ([None] * n + [zero] for _ in range(3)) if accelerating else (None, None, None)
    if accelerating:
        a[n] = as_backend(a0, sym)
    for i, link in enumerate(chain.links):
        p = link.parent                                     # -1: the base
        A_pi, l[i] = link.joint.transform(q[i], symbolic=sym)  # frame i in parent; l = source's l_{i-1}
        R[i] = A_pi.T                                       # R^i_{i-1}
        k = as_backend(link.joint.axis, sym)                # k_i
        d[i] = as_backend(bk.vector(link.body.com, 3, f"com of body of link {link.name!r}"), sym)  # d_i
        revolute = link.joint.kind == "revolute"
        A[i] = A[p] @ A_pi                                  # A_i = A_{i-1} A_{i-1,i}
        r[i] = r[p] + A[p] @ l[i]                           # r_i = r_{i-1} + A_{i-1} l_{i-1}
        if not moving:
            continue
        w_p = R[i] @ omega[p]                               # R ω_{i-1}
        v[i] = R[i] @ (v[p] + bk.cross(omega[p], l[i]))     # v_i = R (v_{i-1} + ω_{i-1} × l_{i-1})
        if revolute:
            omega[i] = w_p + qd[i] * k                      # ω_i = R ω_{i-1} + θ̇_i k_i
        else:
            omega[i] = w_p                                  # ω_i = R ω_{i-1}
            v[i] = v[i] + qd[i] * k                         # ... + q̇_i k_i (sliding)
        v_c[i] = v[i] + bk.cross(omega[i], d[i])            # v_Ci = v_i + ω_i × d_i
        if not accelerating:
            continue
        # a_i = R (a_{i-1} + α_{i-1} × l_{i-1} + ω_{i-1} × (ω_{i-1} × l_{i-1}))
        a[i] = R[i] @ (a[p] + bk.cross(alpha[p], l[i]) + bk.cross(omega[p], bk.cross(omega[p], l[i])))
        if revolute:
            # α_i = R α_{i-1} + (R ω_{i-1}) × θ̇_i k_i + θ̈_i k_i
            alpha[i] = R[i] @ alpha[p] + bk.cross(w_p, qd[i] * k) + qdd[i] * k
        else:
            alpha[i] = R[i] @ alpha[p]                      # α_i = R α_{i-1}
            a[i] = a[i] + 2 * bk.cross(omega[i], qd[i] * k) + qdd[i] * k  # + Coriolis 2 ω_i × q̇ k + q̈ k
        # a_Ci = a_i + α_i × d_i + ω_i × (ω_i × d_i)
        a_c[i] = a[i] + bk.cross(alpha[i], d[i]) + bk.cross(omega[i], bk.cross(omega[i], d[i]))

    def links_only(x):                                     # drop the base entry; None: not computed
        return None if x is None else x[:n]

    return ChainKinematics(chain, q, qd, qdd, R=R, A=A[:n], r=r[:n], l=l, d=d, omega=links_only(omega),
                           v=links_only(v), v_c=links_only(v_c), alpha=links_only(alpha), a=links_only(a),
                           a_c=links_only(a_c))


@dataclass
class PartialVelocities:
    """Result of :func:`partial_velocities`: ``omega[i][j]`` = ∂ω_i/∂q̇_j, and so on.

    Local frame-i components as in the source; :meth:`global_` gives global ones.

    Attributes
    ----------
    A : list of (3, 3)
        Global DCM of each link frame.
    omega : list of list of (3,)
        Partial angular velocities ω_i^(j).
    v : list of list of (3,)
        Partial velocities v_i^(j) of joint i's origin.
    v_c : list of list of (3,)
        Partial velocities v_Ci^(j) of the centre of mass.
    """

    chain: Chain
    q: list
    R: list
    A: list
    omega: list
    v: list
    v_c: list

    def global_(self, name: str, i, j: int):
        """Global components ``A_i @ name[i][j]`` (``name`` in ``"omega"``, ``"v"``, ``"v_c"``)."""
        return _local_to_global(self, name, i, j)


def partial_velocities(chain: Chain, q, symbolic: bool = False) -> PartialVelocities:
    """Partial angular velocities and partial velocities of every link, by recursion.

    Parameters
    ----------
    chain : Chain
    q : array_like, shape (n,)
    symbolic : bool
        Force sympy results (as in :func:`forward_kinematics`).

    Returns
    -------
    PartialVelocities
        ``omega[i][j]``, ``v[i][j]``, ``v_c[i][j]`` for links i and joints j.

    Examples
    --------
    >>> pv = partial_velocities(Chain.planar([1.0, 1.0]), [0.0, 0.0])
    >>> pv.v_c[1][0]          # moving joint 1 moves C_2 (1.5 m out) along y
    array([0. , 1.5, 0. ])
    """
    sym = symbolic or bk.is_symbolic(q) or chain.is_symbolic
    kin = forward_kinematics(chain, q, symbolic=sym)
    zero = as_backend(bk.zeros(3), sym)
    n = chain.n
    omega, v, v_c = [], [], []
    for i, link in enumerate(chain.links):
        R, l, d, p = kin.R[i], kin.l[i], kin.d[i], link.parent
        k = as_backend(link.joint.axis, sym)
        revolute = link.joint.kind == "revolute"
        w_i, v_i = [], []
        for j in range(n):
            if j == i:
                w_i.append(k if revolute else zero)         # ω_i^(i) = k_i   (0 for a slider)
                v_i.append(zero if revolute else k)         # v_i^(i) = 0     (k_i for a slider)
            elif j > i or p == -1:
                w_i.append(zero)                            # ω_i^(j) = 0, v_i^(j) = 0  (j > i)
                v_i.append(zero)
            else:
                w_i.append(R @ omega[p][j])                 # ω_i^(j) = R ω_{i-1}^(j)
                # v_i^(j) = R (v_{i-1}^(j) + ω_{i-1}^(j) × l_{i-1})
                v_i.append(R @ (v[p][j] + bk.cross(omega[p][j], l)))
        omega.append(w_i)
        v.append(v_i)
        # v_Ci^(j) = v_i^(j) + ω_i^(j) × d_i
        v_c.append([v_i[j] + bk.cross(w_i[j], d) for j in range(n)])
    return PartialVelocities(chain, kin.q, kin.R, kin.A, omega, v, v_c)


def _point(point, symbolic: bool):
    return as_backend(bk.vector(point, 3, name="point"), symbolic)


def jacobian(chain: Chain, q, link, point=(0, 0, 0)):
    """Geometric Jacobian of a point of a link, global components.

    Parameters
    ----------
    chain : Chain
    q : array_like, shape (n,)
    link : int or str
        Index or name of the link.
    point : array_like, shape (3,)
        The point in the link frame (default: the joint, origin of the frame).

    Returns
    -------
    J : ndarray or sympy.Matrix, shape (6, n)
        Rows 0-2 give the point's velocity, rows 3-5 the link's angular
        velocity: ``[v_P; ω] = J q̇``.  Column j is
        ``[A_i (v_i^(j) + ω_i^(j) × s); A_i ω_i^(j)]``.

    Examples
    --------
    >>> J = jacobian(Chain.planar([1.0, 1.0]), [0.0, 0.0], link=1, point=(1, 0, 0))
    >>> J[[1, 5]]
    array([[2., 1.],
           [1., 1.]])
    """
    i = chain.index(link)
    sym = bk.is_symbolic(q, point) or chain.is_symbolic
    pv = partial_velocities(chain, q, symbolic=sym)
    s = _point(point, sym)
    J = bk.zeros(6, chain.n, symbolic=sym)
    for j in range(chain.n):
        J[0:3, j] = pv.A[i] @ (pv.v[i][j] + bk.cross(pv.omega[i][j], s))   # A_i (v_i^(j) + ω_i^(j) × s)
        J[3:6, j] = pv.A[i] @ pv.omega[i][j]                                # A_i ω_i^(j)
    return J


def point_position(chain: Chain, q, link, point=(0, 0, 0)):
    """Global position r_i + A_i s of a point ``s`` (link-frame components) of a link.

    >>> from math import pi
    >>> point_position(Chain.planar([1.0, 1.0]), [pi / 2, 0.0], "link2", (1, 0, 0)).round(12) + 0.0
    array([0., 2., 0.])
    """
    sym = bk.is_symbolic(q, point) or chain.is_symbolic
    kin = forward_kinematics(chain, q, symbolic=sym)
    i = chain.index(link)
    return kin.r[i] + kin.A[i] @ _point(point, sym)


def point_velocity(chain: Chain, q, qd, link, point=(0, 0, 0)):
    """Global velocity A_i (v_i + ω_i × s) of a point ``s`` of a link (forward recursion).

    >>> point_velocity(Chain.planar([1.0]), [0.0], [2.0], 0, (1, 0, 0))
    array([0., 2., 0.])
    """
    sym = bk.is_symbolic(q, qd, point) or chain.is_symbolic
    kin = forward_kinematics(chain, q, qd, symbolic=sym)
    i = chain.index(link)
    s = _point(point, sym)
    return kin.A[i] @ (kin.v[i] + bk.cross(kin.omega[i], s))


def point_acceleration(chain: Chain, q, qd, qdd, link, point=(0, 0, 0), base_acceleration=None):
    """Global acceleration A_i (a_i + α_i × s + ω_i × (ω_i × s)) of a point ``s`` of a link.

    >>> point_acceleration(Chain.planar([1.0]), [0.0], [2.0], [0.0], 0, (1, 0, 0))
    array([-4.,  0.,  0.])
    """
    sym = bk.is_symbolic(q, qd, qdd, point, base_acceleration) or chain.is_symbolic
    kin = forward_kinematics(chain, q, qd, qdd, base_acceleration, symbolic=sym)
    i = chain.index(link)
    s = _point(point, sym)
    w = kin.omega[i]
    return kin.A[i] @ (kin.a[i] + bk.cross(kin.alpha[i], s) + bk.cross(w, bk.cross(w, s)))
