"""The recursive Kane algorithm of Ma, Xu & Li (1988) for open chains.

Kane's equations say that for every generalized speed q̇_j the generalized
active and inertia forces balance.  With the partial velocities of
:func:`mbdlib.kinematics.partial_velocities` this gives the torque (or force)
of joint j directly (Ma, Xu & Li 1988, Kane & Levinson 1985 ch. 6):

    τ_j = Σ_i ( (m_i a_Ci − F_i) · v_Ci^(j) + (N_i − M_i) · ω_i^(j) ),
    N_i = I_i α_i + ω_i × (I_i ω_i),

the sum running over link j and its descendants (for other links the partial
velocities vanish).  Gravity enters, as in the source, through an upward
acceleration g of the base; F_i and M_i are the applied loads reduced to C_i.
Joint (constraint) forces do no work in the partial velocities and never
appear; the driving moment of a joint does not enter the equations of the
joints before it (the source's observation, checked in the tests).
:func:`auxiliary_reactions` brings them back with *auxiliary speeds*: motions
that a joint forbids, in which its force does work (Kane & Levinson 1985, §5.7).

The algorithm is meant for symbolic derivation.  :func:`kane_equations` builds
the equations of motion ``τ = M(q) q̈ + h(q, q̇) + G(q)`` piece by piece, so
that no huge expression is ever simplified as a whole:

* ``M_jk = Σ_i ( m_i v_Ci^(j) · v_Ci^(k) + ω_i^(j) · I_i ω_i^(k) )``, the
  coefficient of q̈_k in τ_j (a_Ci and α_i are linear in q̈, with coefficients
  v_Ci^(k) and ω_i^(k));
* ``h`` = τ with q̈ = 0 and no gravity (centripetal and Coriolis terms),
  collected per product q̇_a q̇_b;
* ``G`` = τ with q̇ = q̈ = 0 and gravity.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from . import _backend as bk
from ._backend import as_backend
from .chain import Chain
from .kinematics import forward_kinematics, partial_velocities
from .newton_euler import JointReactions, _body_equations, _rows, as_output, external_loads, gravity_vector

__all__ = ["kane_inverse_dynamics", "auxiliary_reactions", "kane_equations", "KaneEquations"]


# The two sums of Kane's method, written once for open chains (this module) and closed chains
# (mbdlib.kane_closed). ``omega_p[i][j]``, ``v_c_p[i][j]``: partial velocities of link i for
# coordinate j, frame-i components; ``moved_by(i)``: the coordinates j whose partial velocities of
# link i may be non-zero (an open chain: joint i and its ancestors; a closed loop: every coordinate).
def kane_sum(links, kin, omega_p, v_c_p, loads, sym: bool, n: int, moved_by) -> list:
    """τ_j = Σ_i ((m_i a_Ci − F_i)·v_Ci^(j) + (N_i − M_i)·ω_i^(j)), local frame-i components
    (Ma, Xu & Li 1988; Kane & Levinson 1985, §6.1: F_j + F_j* = 0 solved for the joint force)."""
    tau = [0] * n
    for i, link in enumerate(links):
        body = link.body
        F_ext, M_ext = (kin.A[i].T @ x for x in loads[i])    # applied loads at C_i, frame i
        F, N = _body_equations(body.mass, as_backend(body.inertia, sym), kin.omega[i], kin.alpha[i],
                               kin.a_c[i])                   # m_i a_Ci,  N_i = I_i α_i + ω_i × I_i ω_i
        for j in moved_by(i):                                # ω_i^(j) = v_Ci^(j) = 0 for other j
            tau[j] = tau[j] + bk.dot(F - F_ext, v_c_p[i][j]) + bk.dot(N - M_ext, omega_p[i][j])
    return tau


def kane_mass_matrix(links, omega_p, v_c_p, sym: bool, n: int, moved_by):
    """M_jk = Σ_i ( m_i v_Ci^(j)·v_Ci^(k) + ω_i^(j)·I_i ω_i^(k) ): the coefficient of q̈_k in τ_j."""
    M = bk.zeros(n, n, symbolic=sym)
    for i, link in enumerate(links):
        m, I = link.body.mass, as_backend(link.body.inertia, sym)
        js = list(moved_by(i))
        for j in js:
            for k in js:
                if k >= j:
                    M[j, k] += m * bk.dot(v_c_p[i][j], v_c_p[i][k]) + bk.dot(omega_p[i][j], I @ omega_p[i][k])
    for j in range(n):
        for k in range(j + 1, n):
            M[k, j] = M[j, k]
    return M


def _path(chain: Chain):
    return lambda i: [*chain.ancestors(i), i]


def kane_inverse_dynamics(chain: Chain, q, qd, qdd, gravity=None, f_ext=None):
    """Inverse dynamics by the recursive Kane algorithm (Ma, Xu & Li 1988).

    Same inputs and result as :func:`mbdlib.newton_euler.rnea`, by a
    different route: partial velocities instead of an inward force recursion.

    Parameters
    ----------
    chain : Chain
    q, qd, qdd : array_like, shape (n,)
    gravity : array_like, shape (3,)
        Required (no default: gravity is never assumed).
        Gravitational acceleration, global components.
    f_ext : dict, optional
        ``{link: (F, M)}``: applied force at the centre of mass and moment,
        global components (link given by index or name).

    Returns
    -------
    tau : ndarray (n,) or sympy Matrix (n, 1)

    Examples
    --------
    >>> arm = Chain.planar([1.0, 1.0])
    >>> kane_inverse_dynamics(arm, [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], gravity=(0, -10, 0))
    array([20.,  5.])
    >>> q = sp.symbols("q1 q2")
    >>> tau = kane_inverse_dynamics(arm, q, [0, 0], [0, 0], gravity=(0, -10, 0))
    >>> sp.trigsimp(sp.expand(tau[1]))
    5.0*cos(q1 + q2)
    """
    sym = bk.is_symbolic(q, qd, qdd, gravity) or chain.is_symbolic
    g = gravity_vector(gravity, "kane_inverse_dynamics")
    loads = external_loads(chain, f_ext, sym)
    kin = forward_kinematics(chain, q, qd, qdd, base_acceleration=-g, symbolic=sym)  # base rises with g
    pv = partial_velocities(chain, q, symbolic=sym)
    tau = kane_sum(chain.links, kin, pv.omega, pv.v_c, loads, sym, chain.n, _path(chain))
    return as_output(tau, sym)



def auxiliary_reactions(chain: Chain, q, qd, qdd, gravity=None, f_ext=None) -> JointReactions:
    """The joint forces of a chain by Kane's method with auxiliary speeds (Kane & Levinson 1985, §5.7).

    A joint's force does no work in the motions the joint allows, so Kane's equations never show it.
    To expose the force ``f_i`` and the moment ``n_i`` (about the joint point ``r_i``) that joint i
    exerts on link i, give link i and every link it carries (the subtree S_i) six *auxiliary speeds*
    relative to the parent, motions the joint forbids: translations ``u_k`` along the global axes
    ``e_k`` and turns ``u_{3+k}`` about axes ``e_k`` through ``r_i``.  Their partial velocities are,
    for every link b of S_i (zero for the other links),

        translation k:  v_Cb^(k) = e_k,                    ω_b^(k) = 0
        turn k:         v_Cb^(k) = e_k × (r_Cb − r_i),     ω_b^(k) = e_k

    In them the joint's force on link i contributes ``f_i·e_k`` and ``n_i·e_k`` (its reaction acts on
    the parent, which does not move), every force between two links of S_i cancels in pairs, and
    Kane's equation of each auxiliary speed, at the real motion (auxiliary speeds zero), reads

        f_i·e_k + Σ_b ( F_b·v_Cb^(k) + M_b·ω_b^(k) ) − Σ_b ( m_b a_Cb·v_Cb^(k) + N_b·ω_b^(k) ) = 0,

    with the applied loads ``F_b, M_b`` (weights ``m_b g`` included) and ``N_b = I_b α_b + ω_b × I_b ω_b``.
    One equation per auxiliary speed gives one component of ``f_i`` or ``n_i``.  The actuator's part
    is included: ``τ_i = n_i·k_i`` (revolute) or ``f_i·k_i`` (prismatic); the rest is carried by the
    joint's structure.  The result equals the inward pass of :func:`mbdlib.newton_euler.rnea`, reached
    without a recursion (O(n²): each joint sums over the links it carries).

    Parameters
    ----------
    chain : Chain
    q, qd, qdd : array_like, shape (n,)
        The motion (numbers or sympy formulas).
    gravity : array_like, shape (3,)
        Required (no default: gravity is never assumed).
    f_ext : dict, optional
        ``{link: (F, M)}``: applied force at the centre of mass and moment, global components.

    Returns
    -------
    JointReactions
        As from ``rnea(..., return_reactions=True)``: ``force[i]``, ``moment[i]`` in frame-i
        components, ``force_global``, ``moment_global`` in global ones.

    Examples
    --------
    A 2 kg, 1 m rod held horizontal: the pivot carries the weight, and its moment about the pivot is
    the torque that holds the rod, m g L / 2.

    >>> r = auxiliary_reactions(Chain.planar([1.0], masses=[2.0]), [0.0], [0.0], [0.0], (0, -9.81, 0))
    >>> r.force_global.round(12) + 0.0, r.moment_global.round(12) + 0.0
    (array([[ 0.  , 19.62,  0.  ]]), array([[0.  , 0.  , 9.81]]))
    """
    sym = bk.is_symbolic(q, qd, qdd, gravity) or chain.is_symbolic
    g = as_backend(gravity_vector(gravity, "auxiliary_reactions"), sym)
    loads = external_loads(chain, f_ext, sym)
    kin = forward_kinematics(chain, q, qd, qdd, symbolic=sym)      # the real motion, gravity as a load
    carried = [[b for b in range(chain.n) if b == i or i in chain.ancestors(b)] for i in range(chain.n)]
    # what each link needs beyond its applied loads, global components: m a_C − F − m g, and N − M
    need_F, need_M = [], []
    for b, link in enumerate(chain.links):
        F_b, N_b = _body_equations(link.body.mass, as_backend(link.body.inertia, sym), kin.omega[b],
                                   kin.alpha[b], kin.a_c[b])      # m a_C, N = I α + ω × I ω (frame b)
        need_F.append(kin.A[b] @ F_b - loads[b][0] - link.body.mass * g)
        need_M.append(kin.A[b] @ N_b - loads[b][1])
    f, n, f_global, n_global = [], [], [], []
    for i in range(chain.n):
        r_i = kin.r[i]
        f_i, n_i = bk.zeros(3, symbolic=sym), bk.zeros(3, symbolic=sym)
        for k in range(3):
            e_k = bk.unit(k, symbolic=sym)
            for b in carried[i]:
                # translation k: v^(k) = e_k, ω^(k) = 0;  turn k: v^(k) = e_k × (r_Cb − r_i), ω^(k) = e_k
                f_i[k] = f_i[k] + bk.dot(need_F[b], e_k)
                n_i[k] = n_i[k] + bk.dot(need_F[b], bk.cross(e_k, kin.r_c(b) - r_i)) + bk.dot(need_M[b], e_k)
        f_global.append(f_i)
        n_global.append(n_i)
        f.append(kin.A[i].T @ f_i)
        n.append(kin.A[i].T @ n_i)
    return JointReactions(_rows(f, sym), _rows(n, sym), _rows(f_global, sym), _rows(n_global, sym))


@dataclass
class KaneEquations:
    """Equations of motion ``τ = M q̈ + h + G`` from :func:`kane_equations`.

    Attributes
    ----------
    M : sympy Matrix (n, n)
        Generalized inertia (mass) matrix, M(q).
    h : sympy Matrix (n, 1)
        Centripetal and Coriolis terms, h(q, q̇) (no gravity).
    G : sympy Matrix (n, 1)
        Gravity terms, G(q).
    q, qd, qdd : tuple of sympy Symbol, length n
        The symbols used for q, q̇, q̈ (``q1 ...``, ``qd1 ...``, ``qdd1 ...``).
    """

    M: sp.Matrix
    h: sp.Matrix
    G: sp.Matrix
    q: tuple
    qd: tuple
    qdd: tuple

    @property
    def tau(self) -> sp.Matrix:
        """The joint forces ``M q̈ + h + G`` as a formula, shape (n, 1)."""
        return self.M @ sp.Matrix(self.qdd) + self.h + self.G


def _expand_collect(expr, products, expand: bool, trigsimp: bool):
    """Expand, collect per product of rates (if any) and trig-simplify each coefficient (if asked)."""
    if not isinstance(expr, sp.Basic):
        return sp.sympify(expr)
    if not expand:
        return sp.trigsimp(expr) if trigsimp else expr
    expr = sp.expand(expr)
    func = sp.trigsimp if trigsimp else None
    if products:
        return sp.collect(expr, products, func=func) if func else sp.collect(expr, products)
    return func(expr) if func else expr


def kane_equations(chain: Chain, gravity=None, expand: bool = False,
                   trigsimp: bool = False) -> KaneEquations:
    """Symbolic equations of motion ``τ = M(q) q̈ + h(q, q̇) + G(q)`` by the recursive Kane algorithm.

    Parameters
    ----------
    chain : Chain
        Numeric or symbolic parameters.
    gravity : array_like, shape (3,)
        Required (no default: gravity is never assumed).
        Numbers or formulas, e.g. ``(0, 0, -sp.Symbol("g"))``.
    expand : bool
        Expand each entry and collect ``h`` per product q̇_a q̇_b: readable terms for two or three
        links, but the expansion then costs more than the derivation (``make bench``: slower than
        sympy's KanesMethod from n = 3). Default: the recursion's formulas as they come, nested
        products that common-subexpression elimination (:func:`~mbdlib.dynamics.lambdify_matrix`)
        turns into fast code.
    trigsimp : bool
        Also apply ``sympy.trigsimp`` to each coefficient: tidier, slower
        (seconds for 3 spatial links).

    Returns
    -------
    KaneEquations

    Examples
    --------
    The planar double pendulum of uniform rods (m = 1 kg, L = 1 m):

    >>> eq = kane_equations(Chain.planar([1, 1]), gravity=(0, -sp.Symbol("g"), 0), trigsimp=True)
    >>> eq.M[0, 1]
    0.5*cos(q2) + 0.333333333333333
    >>> eq.h[1]
    0.5*qd1**2*sin(q2)
    >>> eq.G[1]
    0.5*g*cos(q1 + q2)
    """
    n = chain.n
    q = sp.symbols(f"q1:{n + 1}")
    qd = sp.symbols(f"qd1:{n + 1}")
    qdd = sp.symbols(f"qdd1:{n + 1}")
    g = gravity_vector(gravity, "kane_equations")
    zeros = [0] * n
    no_loads = external_loads(chain, None, True)
    pv = partial_velocities(chain, q, symbolic=True)

    M = kane_mass_matrix(chain.links, pv.omega, pv.v_c, True, n, _path(chain))
    products = [qd[a] * qd[b] for a in range(n) for b in range(a, n)]
    for j in range(n):
        for k in range(j, n):
            M[j, k] = M[k, j] = _expand_collect(M[j, k], [], expand, trigsimp)

    # h = τ(q, q̇, q̈ = 0) without gravity;  G = τ(q, 0, 0) with gravity (base rising with g)
    kin_h = forward_kinematics(chain, q, qd, zeros, symbolic=True)
    kin_g = forward_kinematics(chain, q, zeros, zeros, base_acceleration=-g, symbolic=True)
    h = kane_sum(chain.links, kin_h, pv.omega, pv.v_c, no_loads, True, n, _path(chain))
    G = kane_sum(chain.links, kin_g, pv.omega, pv.v_c, no_loads, True, n, _path(chain))
    h = sp.Matrix([_expand_collect(x, products, expand, trigsimp) for x in h])
    G = sp.Matrix([_expand_collect(x, [], expand, trigsimp) for x in G])
    return KaneEquations(M, h, G, q, qd, qdd)
