"""The recursive Kane algorithm for a chain with a local closed loop, without cutting the loop.

Ma, Xu & Li (1988) treat a manipulator that contains a four-bar linkage by
taking the ACTIVE (driven) joint angles as generalized coordinates and letting
the loop's velocity constraint give the rates and partial velocities of the
PASSIVE joints.  No joint is cut into two bodies with reaction forces; the loop
only enters through kinematics, and the Kane sum of :mod:`mbdlib.kane` runs
unchanged over every link.

The choice made here (documented once): the links form a *spanning tree*, an
ordinary :class:`~mbdlib.chain.Chain` with one joint coordinate per link (the
tree coordinates θ, relative joint angles).  The joints left out of the tree
are :class:`LoopJoint` objects: a point of one link coincides with a point of
another, ``Φ(θ) = r_b − r_a = 0`` (the chosen components, x and y for a planar
loop).  The tree coordinates split into active ones, θ_a = q, and passive ones
θ_p, and with ``Φ_θ = [J_a, J_p]`` (Haug 1989, §3.3; Ma, Xu & Li 1988):

====================  ===================================================================
velocity constraint   J_a q̇ + J_p θ̇_p = 0            ⇒  θ̇_p = B q̇,  B = −J_p⁻¹ J_a
all tree rates        θ̇ = S q̇,  S = rows of I (active) and B (passive)
acceleration          J_a q̈ + J_p θ̈_p + (Φ_θ θ̇)_θ θ̇ = 0
                      ⇒  θ̈_p = B q̈ − J_p⁻¹ (J̇ θ̇),   J̇ θ̇ = Φ̈ at θ̈ = 0
partial velocities    ω_i^(j) = Σ_k ω_i^(θ_k) S_kj,   v_Ci^(j) = Σ_k v_Ci^(θ_k) S_kj
Kane                  τ_j = Σ_i ( (m_i a_Ci − F_i) · v_Ci^(j) + (N_i − M_i) · ω_i^(j) )
mass matrix           M_jk = Σ_i ( m_i v_Ci^(j) · v_Ci^(k) + ω_i^(j) · I_i ω_i^(k) )
====================  ===================================================================

The tree partial velocities ω_i^(θ_k), v_Ci^(θ_k) come from the recursion of
:func:`mbdlib.kinematics.partial_velocities`, the accelerations a_Ci, α_i from
:func:`mbdlib.kinematics.forward_kinematics` fed with θ, θ̇, θ̈ (gravity as an
upward acceleration of the base, as in the source), the loop Jacobians from
:func:`mbdlib.kinematics.jacobian` and J̇θ̇ from
:func:`mbdlib.kinematics.point_acceleration`.  τ_j is the generalized force of
active joint j: the actuator torque.  The code runs on numbers and formulas;
in symbolic mode the passive angles are whatever formulas (or symbols) the
caller gives, since they have no closed form in general.

A singular J_p (a *change point* or dead position: the passive links line up)
leaves the passive rates undetermined: :func:`passive_rates` raises
:class:`~mbdlib.errors.SingularityError` there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from . import _backend as bk
from ._backend import as_backend, entrywise
from .chain import Chain
from .errors import ModelError, ShapeError, SingularityError
from .kane import KaneEquations, kane_mass_matrix, kane_sum
from .kinematics import forward_kinematics, partial_velocities, point_position
from .newton_euler import as_output, external_loads, gravity_vector

__all__ = ["LoopJoint", "ClosedChain", "ClosedKaneEquations", "loop_residual", "loop_jacobian", "loop_bias",
           "trig_canonical", "passive_rates", "solve_passive", "closed_rates", "closed_partial_velocities",
           "closed_kane_inverse_dynamics", "closed_mass_matrix", "closed_kane_equations"]

#: relative tolerance on the smallest singular value of J_p below which the loop is called singular
SINGULAR_TOL = 1e-9


@dataclass(frozen=True)
class LoopJoint:
    """A loop-closing (cut) revolute joint: ``point_a`` of ``link_a`` coincides with ``point_b`` of ``link_b``

    Points are in the links' frames (shape (3,)); ``rows`` picks the global
    components that the loop fixes: ``(0, 1)`` for a planar loop in the xy
    plane (2 equations), ``(0, 1, 2)`` for a spherical cut joint.
    """

    link_a: int | str
    point_a: tuple
    link_b: int | str
    point_b: tuple
    rows: tuple = (0, 1)
    name: str = "loop"


class ClosedChain:
    """A spanning-tree chain, its active joints and the joints that close its loops.

    Parameters
    ----------
    chain : Chain
        The spanning tree: every link, every joint except the loop-closing ones.
    active : sequence of int or str
        The driven tree joints (links given by index or name): their
        coordinates are the generalized coordinates q, in this order.
    loops : sequence of LoopJoint
        The cut joints; together they must give one equation per passive joint.

    Examples
    --------
    >>> from mbdlib.chain import Joint
    >>> from mbdlib.bodies import RigidBody
    >>> tree = Chain(name="rhombus")
    >>> for name, parent, x in (("a", "base", 0), ("b", "a", 1), ("c", "base", 0), ("d", "c", 1)):
    ...     _ = tree.add_link(name, Joint(name, origin=(x, 0, 0)), RigidBody.rod(1.0, 1.0, name=name),
    ...                   parent)
    >>> cc = ClosedChain(tree, active=["a", "c"], loops=[LoopJoint("b", (1, 0, 0), "d", (1, 0, 0))])
    >>> cc.n, cc.passive
    (2, (1, 3))
    """

    def __init__(self, chain: Chain, active, loops, name: str | None = None):
        if not isinstance(chain, Chain):
            raise ModelError(f"ClosedChain: chain must be a Chain (the spanning tree), "
                             f"got {type(chain).__name__}")
        self.chain = chain
        self.name = chain.name if name is None else str(name)
        self.active = tuple(chain.index(a) for a in active)
        if len(set(self.active)) != len(self.active):
            raise ModelError(f"ClosedChain {self.name!r}: active joints repeat: {list(active)}")
        self.passive = tuple(i for i in range(chain.n) if i not in self.active)
        self.loops = tuple(loops)
        for lp in self.loops:
            if not isinstance(lp, LoopJoint):
                raise ModelError(f"ClosedChain {self.name!r}: loops must be LoopJoint objects, got {lp!r}")
            chain.index(lp.link_a), chain.index(lp.link_b)   # raise ModelError naming unknown links
        m = sum(len(lp.rows) for lp in self.loops)
        if m != len(self.passive):
            raise ModelError(
                f"ClosedChain {self.name!r}: the loops give {m} equations but there are {len(self.passive)} "
                f"passive joints {[chain.joint_names[i] for i in self.passive]}; choose the active joints so "
                "that #passive = #loop equations")

    @property
    def n(self) -> int:
        """Number of generalized coordinates (active joints)."""
        return len(self.active)

    def tree_coordinates(self, q, theta_p) -> list:
        """Merge active values ``q`` (n,) and passive values ``theta_p`` into the tree vector θ (list)."""
        q, theta_p = list(_entries(q, self.n, "q")), list(_entries(theta_p, len(self.passive), "theta_p"))
        theta = [0] * self.chain.n
        for k, i in enumerate(self.active):
            theta[i] = q[k]
        for k, i in enumerate(self.passive):
            theta[i] = theta_p[k]
        return theta

    def __repr__(self) -> str:
        names = self.chain.joint_names
        return (f"ClosedChain({self.name!r}, active={[names[i] for i in self.active]}, "
                f"passive={[names[i] for i in self.passive]}, loops={len(self.loops)})")


def _entries(x, n: int, name: str) -> list:
    """The n entries of a vector given as list, array or sympy Matrix."""
    if isinstance(x, sp.MatrixBase):
        x = list(x)
    if bk.is_symbolic(x):
        x = list(x)
        if len(x) != n:
            raise ShapeError(f"{name} must have {n} entries, got {len(x)}")
        return [sp.sympify(v) for v in x]
    a = np.asarray(x, dtype=float).reshape(-1)
    if a.shape != (n,):
        raise ShapeError(f"{name} must have shape ({n},), got {np.shape(x)}")
    return list(a)


def trig_canonical(expr):
    """A canonical form of a trigonometric polynomial: fast where ``trigsimp`` is slow.

    ``expand_trig`` and ``expand`` give a polynomial in sin and cos of the single
    symbols; then every ``cos(x)**n`` (n >= 2) becomes ``cos(x)**(n-2) (1 − sin(x)**2)``
    until none is left.  Equal trigonometric polynomials get the same form.

    >>> x, y = sp.symbols("x y")
    >>> trig_canonical(sp.sin(x + y) - sp.sin(x) * sp.cos(y) + sp.cos(x) ** 2)
    -sin(x)**2 + sin(y)*cos(x) + 1
    """
    def is_cos_power(e):
        return e.is_Pow and isinstance(e.base, sp.cos) and e.exp.is_Integer and e.exp >= 2

    expr = sp.expand(sp.expand_trig(sp.sympify(expr)))
    while True:
        new = sp.expand(expr.replace(is_cos_power,
                                     lambda e: e.base ** (e.exp - 2) * (1 - sp.sin(e.base.args[0]) ** 2)))
        if new == expr:
            return new
        expr = new


def _point_rows(pv, i: int, s, rows):
    """Velocity rows ``A_i (v_i^(k) + ω_i^(k) × s)``, one column per tree joint k (kinematics.jacobian)."""
    cols = [pv.A[i] @ (pv.v[i][k] + bk.cross(pv.omega[i][k], s)) for k in range(len(pv.omega[i]))]
    return [[c[r] for c in cols] for r in rows]


def _loop_jacobian(cc: ClosedChain, pv, sym: bool):
    rows = []
    for lp in cc.loops:
        a, b = cc.chain.index(lp.link_a), cc.chain.index(lp.link_b)
        Jb = _point_rows(pv, b, as_backend(bk.vector(lp.point_b, 3, "point_b"), sym), lp.rows)
        Ja = _point_rows(pv, a, as_backend(bk.vector(lp.point_a, 3, "point_a"), sym), lp.rows)
        rows += [[x - y for x, y in zip(rb, ra, strict=True)] for rb, ra in zip(Jb, Ja, strict=True)]
    return sp.Matrix(rows) if sym else np.array(rows, dtype=float)


def loop_residual(cc: ClosedChain, theta):
    """``Φ(θ) = r_b − r_a`` (chosen components) of every loop joint, shape (m,).

    ``theta`` holds all tree coordinates, shape (n_tree,).
    """
    out = []
    for lp in cc.loops:
        d = (point_position(cc.chain, theta, lp.link_b, lp.point_b)
             - point_position(cc.chain, theta, lp.link_a, lp.point_a))
        out += [d[r] for r in lp.rows]
    return bk.stack(out, bk.is_symbolic(*out))


def loop_jacobian(cc: ClosedChain, theta):
    """``Φ_θ`` of the loop equations, shape (m, n_tree): column k is ∂Φ/∂θ_k.

    Row block of a loop joint: ``J_b − J_a``, the point Jacobians of
    :func:`mbdlib.kinematics.jacobian` (velocity rows), from one pass of
    :func:`mbdlib.kinematics.partial_velocities`.
    """
    sym = bk.is_symbolic(theta) or cc.chain.is_symbolic
    return _loop_jacobian(cc, partial_velocities(cc.chain, theta, symbolic=sym), sym)


def loop_bias(cc: ClosedChain, theta, thetad):
    """``J̇ θ̇ = (Φ_θ θ̇)_θ θ̇``: the loop's relative acceleration at θ̈ = 0, shape (m,).

    Point acceleration ``A_i (a_i + α_i × s + ω_i × (ω_i × s))`` of each loop point
    (:func:`mbdlib.kinematics.point_acceleration`) from one outward recursion.
    """
    sym = bk.is_symbolic(theta, thetad) or cc.chain.is_symbolic
    kin = forward_kinematics(cc.chain, theta, thetad, [0] * cc.chain.n, symbolic=sym)

    def acc(link, point):
        i, s = cc.chain.index(link), as_backend(bk.vector(point, 3, "point"), sym)
        w = kin.omega[i]
        return kin.A[i] @ (kin.a[i] + bk.cross(kin.alpha[i], s) + bk.cross(w, bk.cross(w, s)))

    out = []
    for lp in cc.loops:
        d = acc(lp.link_b, lp.point_b) - acc(lp.link_a, lp.point_a)
        out += [d[r] for r in lp.rows]
    return bk.stack(out, sym)


def _split(cc: ClosedChain, J):
    cols = lambda idx: J[:, list(idx)]   # noqa: E731
    return cols(cc.active), cols(cc.passive)


def _passive_solve(cc: ClosedChain, J_p, rhs, simplify=None):
    """``J_p⁻¹ rhs``, refusing a singular J_p (numeric: smallest singular value; symbolic: det = 0).

    Symbolic: ``adj(J_p) rhs / det J_p``, each numerator and the determinant passed
    through ``simplify`` and the quotient through ``sympy.cancel``.
    """
    names = [cc.chain.joint_names[i] for i in cc.passive]
    if isinstance(J_p, sp.MatrixBase):
        tidy = simplify or (lambda e: e)
        det = tidy(J_p.det())
        if det == 0:
            raise SingularityError(f"closed chain {cc.name!r}: the loop Jacobian of the passive joints "
                                   f"{names} is singular for every configuration; choose other active joints")
        return (J_p.adjugate() @ sp.Matrix(rhs)).applyfunc(lambda e: sp.cancel(tidy(e) / det))
    s = np.linalg.svd(J_p, compute_uv=False)
    if s[-1] <= SINGULAR_TOL * max(s[0], 1e-300):
        # values below the tolerance are zero as far as the test goes: print them as 0 (their round-off
        # digits differ from one machine's floating-point kernels to another's)
        shown = np.array2string(np.where(s <= SINGULAR_TOL * max(s[0], 1e-300), 0.0, s), precision=3,
                                suppress_small=True)
        raise SingularityError(
            f"closed chain {cc.name!r}: the loop Jacobian J_p = ∂Φ/∂θ_passive of the passive joints "
            f"{names} is singular here (singular values {shown}): a change point "
            "or dead position where the passive links line up, so the active rates do not determine the "
            "passive ones; move the active joints away from this configuration")
    return np.linalg.solve(J_p, rhs)


def passive_rates(cc: ClosedChain, theta):
    """``B = −J_p⁻¹ J_a``, so that θ̇_p = B q̇; shape (n_passive, n).

    Raises
    ------
    SingularityError
        At a change point (J_p singular).
    """
    J_a, J_p = _split(cc, loop_jacobian(cc, theta))
    return _passive_solve(cc, J_p, -J_a)


def solve_passive(cc: ClosedChain, q, guess, tol: float = 1e-12, max_iter: int = 30) -> np.ndarray:
    """Passive coordinates that close the loops for active ``q``, by Newton from ``guess`` (numeric).

    The assembly branch is the one the iteration falls into: start near the wanted one.

    Returns
    -------
    theta_p : ndarray, shape (n_passive,)
    """
    theta_p = np.asarray(_entries(guess, len(cc.passive), "guess"), dtype=float)
    for _ in range(max_iter):
        theta = cc.tree_coordinates(q, theta_p)
        phi = np.asarray(loop_residual(cc, theta), dtype=float)
        if np.max(np.abs(phi)) < tol:
            return theta_p
        theta_p = theta_p - _passive_solve(cc, _split(cc, loop_jacobian(cc, theta))[1], phi)
    raise ModelError(f"closed chain {cc.name!r}: the loops did not close from the guess {guess!r} "
                     f"(|Φ| = {np.max(np.abs(phi)):.3g} after {max_iter} Newton steps); check the link "
                     "lengths or start nearer the wanted assembly")


@dataclass
class ClosedRates:
    """Tree coordinates and rates of a closed chain (from :func:`closed_rates`).

    ``theta, thetad, thetadd`` have the tree's length; ``S`` (n_tree, n) maps
    q̇ to θ̇; ``thetadd`` is None when q̈ was not given; ``pv`` are the tree's
    partial velocities at θ (:class:`~mbdlib.kinematics.PartialVelocities`).
    """

    theta: list
    thetad: list
    thetadd: list | None
    S: object
    pv: object
    subs: list


def closed_rates(cc: ClosedChain, q, qd, qdd, theta_p, simplify=None) -> ClosedRates:
    """θ̇ = S q̇ and θ̈ = S q̈ − [0; J_p⁻¹ J̇ θ̇] from the loop's velocity and acceleration constraints.

    Symbolic mode: the passive rates and accelerations are placeholder symbols
    in ``thetad``/``thetadd`` (kept small through the recursion); ``subs`` lists
    the substitutions, in order, that give them as formulas.  ``simplify``
    (e.g. :func:`trig_canonical`) is applied to the loop Jacobian, J̇θ̇ and the
    passive rates.
    """
    theta = cc.tree_coordinates(q, theta_p)
    sym = bk.is_symbolic(theta, qd, qdd) or cc.chain.is_symbolic
    pv = partial_velocities(cc.chain, theta, symbolic=sym)
    J_a, J_p = _split(cc, entrywise(_loop_jacobian(cc, pv, sym), simplify))
    B = _passive_solve(cc, J_p, -J_a, simplify)                 # θ̇_p = B q̇,  B = −J_p⁻¹ J_a
    S = bk.zeros(cc.chain.n, cc.n, symbolic=sym)
    for k, i in enumerate(cc.active):
        S[i, k] = 1
    for k, i in enumerate(cc.passive):
        S[i, :] = B[k, :]
    thetad = list(S @ bk.stack(_entries(qd, cc.n, "qd"), sym))
    subs = []
    if sym:                                                     # placeholders u_k for θ̇_p, w_k for θ̈_p
        u = sp.symbols(f"u_1:{len(cc.passive) + 1}", cls=sp.Dummy)
        subs.append({u[k]: thetad[i] for k, i in enumerate(cc.passive)})
        for k, i in enumerate(cc.passive):
            thetad[i] = u[k]
    if qdd is None:
        return ClosedRates(theta, thetad, None, S, pv, subs)
    bias = _passive_solve(cc, J_p, entrywise(loop_bias(cc, theta, thetad), simplify), simplify)  # J_p⁻¹ J̇ θ̇
    thetadd = list(S @ bk.stack(_entries(qdd, cc.n, "qdd"), sym))
    for k, i in enumerate(cc.passive):
        thetadd[i] = thetadd[i] - bias[k]                       # θ̈_p = B q̈ − J_p⁻¹ J̇ θ̇
    if sym:
        w = sp.symbols(f"w_1:{len(cc.passive) + 1}", cls=sp.Dummy)
        subs.insert(0, {w[k]: thetadd[i] for k, i in enumerate(cc.passive)})
        for k, i in enumerate(cc.passive):
            thetadd[i] = w[k]
    return ClosedRates(theta, thetad, thetadd, S, pv, subs)


def _substitute(x, subs):
    for d in subs:
        x = x.xreplace(d)
    return x


def closed_partial_velocities(cc: ClosedChain, rates: ClosedRates):
    """Partial velocities w.r.t. the generalized speeds: ``omega[i][j]``, ``v_c[i][j]`` (frame-i components).

    ω_i^(j) = Σ_k ω_i^(θ_k) S_kj and v_Ci^(j) = Σ_k v_Ci^(θ_k) S_kj, the tree's
    partial velocities (:func:`mbdlib.kinematics.partial_velocities`) chained
    with the loop's rate matrix S.
    """
    pv, S = rates.pv, rates.S
    n_tree = cc.chain.n
    omega = [[sum((pv.omega[i][k] * S[k, j] for k in range(n_tree)), 0 * pv.omega[i][0])
              for j in range(cc.n)] for i in range(n_tree)]
    v_c = [[sum((pv.v_c[i][k] * S[k, j] for k in range(n_tree)), 0 * pv.v_c[i][0])
            for j in range(cc.n)] for i in range(n_tree)]
    return omega, v_c


def closed_kane_inverse_dynamics(cc: ClosedChain, q, qd, qdd, theta_p, gravity=None, f_ext=None,
                                 simplify=None):
    """Actuator forces of the active joints by the recursive Kane algorithm, loop kept closed.

    Parameters
    ----------
    cc : ClosedChain
    q, qd, qdd : array_like, shape (n,)
        Active coordinates, rates, accelerations.
    theta_p : array_like, shape (n_passive,)
        Passive tree coordinates closing the loop at ``q`` (e.g. from
        :func:`solve_passive`); formulas or symbols in symbolic mode.
    gravity : array_like, shape (3,)
        Required (no default: gravity is never assumed).
    f_ext : dict, optional
        ``{link: (F, M)}`` at the centres of mass, global components.
    simplify : callable, optional
        Symbolic mode: applied to the loop quantities (see :func:`closed_rates`).

    Returns
    -------
    tau : ndarray (n,) or sympy Matrix (n, 1)

    Examples
    --------
    A rhombus of four 1 m, 1 kg rods hanging from one pivot, crank-like rods
    ``a`` and ``c`` driven, held still at right angles (gravity −10 along y):

    >>> from mbdlib.chain import Joint
    >>> from mbdlib.bodies import RigidBody
    >>> tree = Chain(name="rhombus")
    >>> for name, parent, x in (("a", "base", 0), ("b", "a", 1), ("c", "base", 0), ("d", "c", 1)):
    ...     _ = tree.add_link(name, Joint(name, origin=(x, 0, 0)), RigidBody.rod(1.0, 1.0, name=name),
    ...                   parent)
    >>> cc = ClosedChain(tree, ["a", "c"], [LoopJoint("b", (1, 0, 0), "d", (1, 0, 0))])
    >>> q = [0.0, np.pi / 2]                      # a along x, c along y: b along y, d along x
    >>> tau = closed_kane_inverse_dynamics(cc, q, [0, 0], [0, 0], [np.pi / 2, -np.pi / 2], (0, -10, 0))
    >>> tau.round(12) + 0.0      # = ∂V/∂q: d stays parallel to a, b to c; V = 10 (2 sin q1 + 2 sin q2)
    array([20.,  0.])
    """
    sym = bk.is_symbolic(q, qd, qdd, theta_p, gravity) or cc.chain.is_symbolic
    g = gravity_vector(gravity, "closed_kane_inverse_dynamics")
    rates = closed_rates(cc, q, qd, qdd, theta_p, simplify)
    kin = forward_kinematics(cc.chain, rates.theta, rates.thetad, rates.thetadd, base_acceleration=-g,
                             symbolic=sym)                    # the base rises with g (Ma, Xu & Li 1988)
    omega_p, v_c_p = closed_partial_velocities(cc, rates)
    every = range(cc.n)                                   # a loop couples every link to every q_j
    tau = kane_sum(cc.chain.links, kin, omega_p, v_c_p, external_loads(cc.chain, f_ext, sym), sym, cc.n,
                   lambda i: every)
    return _substitute(as_output(tau, sym), rates.subs) if sym else as_output(tau, sym)


def closed_mass_matrix(cc: ClosedChain, q, theta_p, simplify=None):
    """``M_jk = Σ_i ( m_i v_Ci^(j) · v_Ci^(k) + ω_i^(j) · I_i ω_i^(k) )``, shape (n, n)."""
    rates = closed_rates(cc, q, [0] * cc.n, None, theta_p, simplify)
    sym = bk.is_symbolic(rates.theta) or cc.chain.is_symbolic
    omega_p, v_c_p = closed_partial_velocities(cc, rates)
    return kane_mass_matrix(cc.chain.links, omega_p, v_c_p, sym, cc.n, lambda i: range(cc.n))  # every q_j


@dataclass
class ClosedKaneEquations(KaneEquations):
    """``τ = M q̈ + h + G`` of a closed chain (from :func:`closed_kane_equations`).

    As :class:`mbdlib.kane.KaneEquations` (``M`` (n, n), ``h`` (n, 1) velocity terms, ``G`` (n, 1)
    gravity and applied loads, ``tau``), plus the passive formulas ``theta_p`` the entries contain.
    """

    theta_p: tuple


def closed_kane_equations(cc: ClosedChain, theta_p, gravity=None, f_ext=None, q=None,
                          simplify=None, final=None) -> ClosedKaneEquations:
    """Symbolic ``τ = M(q) q̈ + h(q, q̇) + G(q)`` of a closed chain by the recursive Kane algorithm.

    Parameters
    ----------
    cc : ClosedChain
    theta_p : sequence of sympy expressions, length n_passive
        The passive tree coordinates: symbols standing for θ_p(q) (the loop
        closure has no closed form in general) or closed-form formulas in ``q``.
    gravity, f_ext : as in :func:`closed_kane_inverse_dynamics`
    q : sequence of Symbol, optional
        Symbols of the generalized coordinates (default ``q1 ... qn``); rates are ``qd1 ...``.
    simplify : callable, optional
        Applied to the loop quantities (Jacobian, J̇θ̇, passive rates); default
        :func:`trig_canonical`.
    final : callable, optional
        Applied to each entry of M, h, G (e.g. ``sympy.trigsimp`` when the
        passive angles are closed-form formulas); default none: the passive
        rates stay nested in h.

    Returns
    -------
    ClosedKaneEquations
    """
    n = cc.n
    q = sp.symbols(f"q1:{n + 1}") if q is None else tuple(q)
    qd = sp.symbols(f"qd1:{n + 1}")
    qdd = sp.symbols(f"qdd1:{n + 1}")
    theta_p = tuple(sp.sympify(t) for t in theta_p)
    simplify = trig_canonical if simplify is None else simplify
    zeros = [0] * n
    M = entrywise(closed_mass_matrix(cc, q, theta_p, simplify), final)
    h = entrywise(closed_kane_inverse_dynamics(cc, q, qd, zeros, theta_p, (0, 0, 0), None, simplify), final)
    gravity = gravity_vector(gravity, "closed_kane_equations")
    G = entrywise(closed_kane_inverse_dynamics(cc, q, zeros, zeros, theta_p, gravity, f_ext, simplify), final)
    return ClosedKaneEquations(M, h, G, q, qd, qdd, theta_p)
