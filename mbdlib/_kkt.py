"""The constrained equations at one instant: the KKT system, its solves, the projections.

The formulations behind :mod:`mbdlib.dae` (which re-exports the public names): the KKT matrix
``[[M, Jᵀ], [J, 0]]``, its range-space solve (dense, or with ``J M⁻¹ Jᵀ`` in band storage,
:mod:`mbdlib._banded`), the singularity diagnosis, the augmented-Lagrangian accelerations, and the
mass-weighted projections of positions and velocities.  The integrators that step them in time are
in :mod:`mbdlib._integrators`.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .errors import MbdError, ModelError, SingularityError
from .linalg import DAMPING, KKT_TOL, RANK_RTOL, rank_analysis, schur_cholesky, weighted_least_change
from .linalg import cho as _cho
from .linalg import cho_solve as _cho_solve
from .system import ConstrainedSystem, as_system


# ----------------------------------------------------------------- an example system
def cartesian_pendulum(length=1.0, mass=1.0, g=9.81, angle=0.5, angular_velocity=0.0) -> ConstrainedSystem:
    """A point mass on a massless rod in Cartesian coordinates ``q = (x, y)``: a system written by hand.

    One constraint, ``Φ = x² + y² − L² = 0`` (pivot at the origin, gravity ``−g`` along y), so
    ``Φ_q = 2 qᵀ`` and ``γ = −(Φ_q q̇)_q q̇ = −2 q̇·q̇``; ``λ = T / (2L)`` where T is the rod tension.
    ``angle`` is measured from the downward vertical.

    >>> p = cartesian_pendulum(length=2.0, angle=0.0)
    >>> p.q0, p.phi(p.q0, 0.0)
    (array([ 0., -2.]), array([0.]))
    """
    if not (length > 0 and mass > 0):
        raise ModelError(f"cartesian_pendulum: length and mass must be positive, got {length}, {mass}")
    L, m = float(length), float(mass)
    s, c = np.sin(angle), np.cos(angle)
    return ConstrainedSystem(
        n=2, name="Cartesian pendulum",
        M=lambda q: m * np.eye(2),
        Q=lambda t, q, qd: np.array([0.0, -m * g]),
        phi=lambda q, t=0.0: np.array([q @ q - L**2]),
        phi_q=lambda q, t=0.0: 2.0 * np.reshape(q, (1, 2)),
        gamma=lambda q, qd, t=0.0: np.array([-2.0 * qd @ qd]),
        energy=lambda q, qd: 0.5 * m * qd @ qd + m * g * q[1],
        q0=L * np.array([s, -c]), qd0=L * angular_velocity * np.array([c, s]),
        labels=["rod length"], coordinate_names=["x", "y"])


# ----------------------------------------------------------------- KKT assembly and solve
def _jacobian(system, q, t):
    """J = [Φ_q; B], shape (m + k, n)."""
    return np.vstack([system.phi_q(q, t), system.B(q, t)])


def kkt_matrix(system, q, t=0.0):
    """The KKT matrix ``[[M, Jᵀ], [J, 0]]`` with ``J = [Φ_q; B]``.

    Parameters
    ----------
    system : ConstrainedSystem
    q : array_like, shape (n,)
    t : float

    Returns
    -------
    K : ndarray, shape (n + m + k, n + m + k)
        Symmetric; singular exactly when J has dependent rows (M positive definite).

    >>> kkt_matrix(cartesian_pendulum(angle=0.0), [0.0, -1.0])
    array([[ 1.,  0.,  0.],
           [ 0.,  1., -2.],
           [ 0., -2.,  0.]])
    """
    system = as_system(system, "kkt_matrix")
    q = system.state(q)
    M, J = system.M(q), _jacobian(system, q, t)
    r = J.shape[0]
    return np.block([[M, J.T], [J, np.zeros((r, r))]])


def redundant_rows(J, labels=None, tol: float = RANK_RTOL):
    """Rank of a constraint Jacobian and the rows that make it rank deficient, by name.

    :func:`mbdlib.linalg.rank_analysis` (rows as given, not rescaled) with the row indices
    turned into labels.

    Parameters
    ----------
    J : array_like, shape (r, n)
    labels : list of str, optional
        One name per row (default ``"row i"``).
    tol : float
        Singular values below ``tol * s_max`` count as zero.

    Returns
    -------
    rank : int
    dependent : list of str
        Rows that a QR factorization with column pivoting of ``Jᵀ`` leaves out of
        an independent set: removing them removes the redundancy.
    involved : list of str
        Rows with a non-zero share in a dependency (a left null vector of J).

    >>> redundant_rows([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]], ["a", "b", "c"])
    (2, ['a'], ['a', 'b'])
    """
    J = np.atleast_2d(np.asarray(J, dtype=float))
    labels = list(labels) if labels is not None else [f"row {i}" for i in range(J.shape[0])]
    rank, dependent, groups = rank_analysis(J, tol, scale_rows=False)
    involved = sorted(set().union(*groups)) if groups else []
    return rank, [labels[i] for i in dependent], [labels[i] for i in involved]


def _singular_error(system, J, t, M_chol=None, tol: float = KKT_TOL) -> SingularityError:
    """The error for a singular KKT system, with the rows that are dependent at this pose.

    The rank is taken of the mass-scaled Jacobian ``J L⁻ᵀ`` (``M = L Lᵀ``), whose squared singular values
    are the eigenvalues of ``S = J M⁻¹ Jᵀ`` that the solve found too small: one test, one tolerance,
    so the message can never report full rank.
    """
    Js = J if M_chol is None else scipy.linalg.solve_triangular(M_chol, J.T, lower=True).T
    s = np.linalg.svd(Js, compute_uv=False)
    ratio = float(s[-1] / s[0]) if s.size and s[0] > 0 else 0.0
    rank, dependent, involved = redundant_rows(Js, list(system.labels), tol=max(tol, ratio * 1.0001))
    small = "zero to round-off, of" if ratio < 1e-12 else f"{ratio:.2g} of"

    def names(rows, k=6):
        return str(rows) if len(rows) <= k else f"{rows[:k]} and {len(rows) - k} more ({len(rows)} in all)"

    return SingularityError(
        f"the KKT matrix is singular at t = {t:g}: at this pose the {J.shape[0]} constraint rows have "
        f"numerical rank {rank} (smallest singular value {small} the largest, mass-scaled; the limit "
        f"is {tol:g}). Rows that become dependent here: {names(dependent)}; rows involved in the dependency: "
        f"{names(involved)}. If the constraints are redundant, remove those; if this is a singular position "
        "(a dead point, links in line) met during a simulation, use scheme=AugmentedLagrangian(), which "
        "does not invert J M⁻¹ Jᵀ, or Projection(singular='damp'), which damps that solve (check the "
        "result), or start from another state.")


def _banded(system):
    """The system's band factorization of ``S = J M⁻¹ Jᵀ`` (diagonal M, fixed sparse Φ_q, no B rows) when
    it has one, else None (the dense path).  On the N-four-bar it is faster from N = 1 (9 coordinates:
    74 µs against 134 µs per KKT solve) and 30× faster at N = 40 (``bench/bench_a02.py --kkt``)."""
    structure = system.structure
    return structure.band if structure is not None else None


def _solve_banded(system, bs, t, q, qd, alpha=0.0, beta=0.0, damp=None):
    """:func:`_solve` with ``S`` factored in band storage (``M`` diagonal, ``J = Φ_q`` sparse)."""
    st = system.structure
    w, Q = 1.0 / st.mass_diagonal(), system.Q(t, q, qd)
    vals, g = st.jacobian_values(q, t), system.gamma(q, qd, t)
    if alpha or beta:
        g = g - 2.0 * alpha * (bs.matvec(vals, qd) + system.phi_t(q, t)) - beta**2 * system.phi(q, t)
    ok, ratio = bs.factor(vals, w)
    if not ok or ratio <= KKT_TOL**2:
        if damp is None:
            raise _singular_error(system, system.phi_q(q, t), t, np.diag(np.sqrt(1.0 / w)))
        damp[0] += 1
        bs.factor(vals, w, shift=DAMPING)
    MiQ = w * Q
    lam = bs.solve(bs.matvec(vals, MiQ) - g)
    return MiQ - w * bs.rmatvec(vals, lam), lam


def _solve(system, t, q, qd, alpha=0.0, beta=0.0, bs=None, damp=None):
    """q̈, λ from the KKT system by the range-space method (Nikravesh 1988, §13.2).

    ``S λ = J M⁻¹ Q − g`` with ``S = J M⁻¹ Jᵀ``, then ``q̈ = M⁻¹ (Q − Jᵀ λ)``.
    Baumgarte (1972): ``g = γ − 2α Φ̇ − β² Φ`` for the holonomic rows and
    ``b_γ − 2α (B q̇)`` for the nonholonomic ones.  With ``bs`` (:func:`_banded`) S is factored in
    band storage.  Where S is singular (pivot ratio ≤ KKT_TOL²) a SingularityError is raised, or, when
    ``damp`` is a counter (a one-element list), ``S + DAMPING·max(diag S)·I`` is solved instead (damped
    least squares) and the counter goes up by one.
    """
    if bs is not None:
        return _solve_banded(system, bs, t, q, qd, alpha, beta, damp)
    M, Q = system.M(q), system.Q(t, q, qd)
    # γ before Φ_q: a model that keeps its last evaluation (the spatial ones) then answers Φ_q from it
    g = np.concatenate([system.gamma(q, qd, t), system.b_gamma(q, qd, t)])
    Phi_q, B = system.phi_q(q, t), system.B(q, t)
    J = np.vstack([Phi_q, B])
    if alpha or beta:
        m = Phi_q.shape[0]
        phi_dot = Phi_q @ qd + system.phi_t(q, t)
        g[:m] -= 2.0 * alpha * phi_dot + beta**2 * system.phi(q, t)
        g[m:] -= 2.0 * alpha * (B @ qd)
    try:
        Mc = _cho(M)
    except np.linalg.LinAlgError:
        raise ModelError("the mass matrix M(q) is not positive definite: check that every body has a "
                         "positive mass and inertia") from None
    if J.shape[0] == 0:
        return _cho_solve(Mc, Q), np.zeros(0)
    MiJt, MiQ = _cho_solve(Mc, J.T), _cho_solve(Mc, Q)
    S = J @ MiJt
    L = schur_cholesky(S)
    if L is None:
        if damp is None:
            raise _singular_error(system, J, t, np.linalg.cholesky(M))
        damp[0] += 1
        L = np.linalg.cholesky(S + DAMPING * np.diag(S).max() * np.eye(len(S)))
    lam = _cho_solve((L, True), J @ MiQ - g)
    return MiQ - MiJt @ lam, lam


def accelerations(system, t, q, qd):
    """Accelerations and Lagrange multipliers from the KKT system.

    Parameters
    ----------
    system : ConstrainedSystem
    t : float
    q, qd : array_like, shape (n,)

    Returns
    -------
    qdd : ndarray, shape (n,)
    lam : ndarray, shape (m + k,)
        Multipliers of ``M q̈ + Φ_qᵀ λ = Q``: the constraint forces are ``−Jᵀ λ``.

    Raises
    ------
    SingularityError
        If ``[Φ_q; B]`` has dependent rows (redundant constraints, singular position); the
        message names the rows through ``system.labels``.

    >>> p = cartesian_pendulum(length=1.0, mass=2.0, angle=0.0)   # hanging at rest
    >>> qdd, lam = accelerations(p, 0.0, p.q0, p.qd0)
    >>> qdd.round(12) + 0.0, lam.round(12)       # tension m g = 2 L λ
    (array([0., 0.]), array([9.81]))
    """
    system = as_system(system, "accelerations")
    q, qd = system.state(q, "q"), system.state(qd, "qd")
    return _solve(system, float(t), q, qd, bs=_banded(system))


def _al_accelerations(system, t, q, qd, penalty, tol=1e-12, max_iter=100):
    """q̈ and λ by the augmented Lagrangian iteration (Bayo et al. 1988), any rank of J.

    ``(M + α JᵀJ) q̈ = Q + α Jᵀ g − Jᵀ λ_i``,  ``λ_{i+1} = λ_i + α (J q̈ − g)``.
    """
    M, Q, J = system.M(q), system.Q(t, q, qd), _jacobian(system, q, t)
    g = np.concatenate([system.gamma(q, qd, t), system.b_gamma(q, qd, t)])
    P = scipy.linalg.cho_factor(M + penalty * J.T @ J)
    lam = np.zeros(J.shape[0])
    for _ in range(max_iter):
        qdd = scipy.linalg.cho_solve(P, Q + penalty * J.T @ g - J.T @ lam)
        res = J @ qdd - g
        lam = lam + penalty * res
        if np.linalg.norm(res) <= tol * (1.0 + np.linalg.norm(g)):
            break
    return qdd, lam


# ----------------------------------------------------------------- projections
def _least_change(system, q, t, residual, damp=False, bs=None):
    """:func:`mbdlib.linalg.weighted_least_change` for ``J = Φ_q(q)``, through the band factorization of
    ``S`` when the system has one (``Δ = −M⁻¹ Jᵀ S⁻¹ residual``); the dense path where S is singular and
    not damped."""
    if bs is not None:
        st = system.structure
        w, vals = 1.0 / st.mass_diagonal(), st.jacobian_values(q, t)
        ok, ratio = bs.factor(vals, w)
        if ok and ratio > KKT_TOL**2 or damp and bs.factor(vals, w, shift=DAMPING)[0]:
            return -w * bs.rmatvec(vals, bs.solve(residual))
    J = _jacobian(system, q, t)[: len(residual)]              # Φ_q for positions, [Φ_q; B] for velocities
    return weighted_least_change(system.M(q), J, residual, damp)


def project_positions(system, q, t=0.0, tol=1e-12, max_iter=20, damp=False):
    """Project q onto Φ(q, t) = 0 by Newton steps of mass-weighted least change.

    Each step solves ``min ½ Δqᵀ M Δq`` subject to ``Φ_q Δq = −Φ`` (Gauss–Newton on the
    constraint manifold; Haug 1989, §6.4 uses the same idea for the position analysis).

    Parameters
    ----------
    system : ConstrainedSystem
    q : array_like, shape (n,)
    t : float
    tol : float
        Stop when ``‖Φ‖∞ ≤ tol``.
    max_iter : int
    damp : bool
        Where ``Φ_q M⁻¹ Φ_qᵀ`` is singular (a singular position), take damped least-squares steps
        that leave its weak directions alone (``Projection(singular="damp")``).

    Returns
    -------
    q : ndarray, shape (n,)
    iterations : int

    >>> p = cartesian_pendulum(length=1.0)
    >>> q, it = project_positions(p, [0.0, -1.1])
    >>> q.round(12) + 0.0, it
    (array([ 0., -1.]), 4)
    """
    system = as_system(system, "project_positions")
    q, bs = system.state(q, "q").copy(), _banded(system)
    for it in range(max_iter + 1):
        phi = system.phi(q, t)
        if phi.size == 0 or np.max(np.abs(phi)) <= tol:
            return q, it
        if it == max_iter:
            break
        q += _least_change(system, q, t, phi, damp, bs)
    worst = int(np.argmax(np.abs(phi)))
    raise MbdError(f"project_positions: Newton did not reach ‖Φ‖ ≤ {tol:g} in {max_iter} iterations at "
                   f"t = {t:g}; worst row {system.labels[worst]!r} = {phi[worst]:.3g}. "
                   "Reduce the tolerances (rtol, atol) so that each step drifts less.")


def static_equilibrium(system, q, t=0.0, tol=1e-11, max_iter=30, step=1e-6):
    """A configuration at rest where the applied forces balance the joint forces.

    Newton on the unknowns ``(q, λ)`` of the equilibrium equations (the dynamic equations with
    ``q̇ = q̈ = 0``; Haug 1989, §5.3)::

        Q(t, q, 0) − Φ_qᵀ λ = 0,    Φ(q, t) = 0,

    with the Jacobian by central differences (``Q`` of springs and loads has no analytic
    derivative in the protocol), starting from ``q`` projected onto ``Φ = 0`` and the least-squares
    multipliers there.  Newton finds the equilibrium nearest ``q``, stable or not.

    Parameters
    ----------
    system : ConstrainedSystem
    q : array_like, shape (n,)
        Starting guess (need not satisfy the constraints).
    t : float
    tol : float
        Stop when every residual is ≤ ``tol`` in magnitude.
    max_iter : int
    step : float
        Finite-difference step of the Jacobian.

    Returns
    -------
    q : ndarray, shape (n,)
    lam : ndarray, shape (m,)
        Multipliers: the joint forces on the bodies are ``−Φ_qᵀ λ``.
    iterations : int

    >>> p = cartesian_pendulum(length=1.0, angle=0.5)    # released at 0.5 rad: hangs straight down
    >>> q, lam, it = static_equilibrium(p, p.q0)
    >>> q.round(12) + 0.0, lam.round(9) + 0.0
    (array([ 0., -1.]), array([4.905]))
    """
    system = as_system(system, "static_equilibrium")
    q = system.state(q, "q").copy()
    n, m = system.n, len(system.phi(q, t))
    rest = np.zeros(n)
    if m:  # start on the constraints, with the multipliers that balance Q best there
        q = project_positions(system, q, t)[0]
        lam0 = np.linalg.lstsq(system.phi_q(q, t).T, system.Q(t, q, rest), rcond=None)[0]
    else:
        lam0 = np.zeros(0)

    def residual(x):
        qx, lam = x[:n], x[n:]
        return np.concatenate([system.Q(t, qx, rest) - system.phi_q(qx, t).T @ lam, system.phi(qx, t)])

    x = np.concatenate([q, lam0])
    for it in range(max_iter + 1):
        r = residual(x)
        if np.max(np.abs(r), initial=0.0) <= tol:
            return x[:n], x[n:], it
        if it == max_iter:
            break
        J = np.column_stack([(residual(x + step * e) - residual(x - step * e)) / (2 * step)
                             for e in np.eye(n + m)])
        try:
            x = x - np.linalg.solve(J, r)
        except np.linalg.LinAlgError:
            raise SingularityError("static_equilibrium: the equilibrium equations are singular at the "
                                   "current guess (redundant constraints, or a body no force or joint "
                                   "holds); check the model with mbdlib.check_model") from None
    raise MbdError(f"static_equilibrium: Newton did not converge in {max_iter} iterations (largest "
                   f"residual {np.max(np.abs(r)):.3g}); start from a guess nearer the equilibrium")


def project_velocities(system, q, qd, t=0.0, damp=False):
    """Project q̇ onto Φ_q q̇ + Φ_t = 0 and B q̇ = 0 with the least mass-weighted change.

    Parameters
    ----------
    system : ConstrainedSystem
    q, qd : array_like, shape (n,)
    t : float
    damp : bool
        As in :func:`project_positions`.

    Returns
    -------
    qd : ndarray, shape (n,)

    >>> p = cartesian_pendulum(length=1.0, angle=0.0)
    >>> project_velocities(p, p.q0, [1.0, 1.0])      # the radial part is removed
    array([1., 0.])
    """
    system = as_system(system, "project_velocities")
    q, qd = system.state(q, "q"), system.state(qd, "qd")
    J = _jacobian(system, q, t)
    if J.shape[0] == 0:
        return qd.copy()
    residual = J @ qd + np.concatenate([system.phi_t(q, t), np.zeros(J.shape[0] - len(system.phi_t(q, t)))])
    return qd + _least_change(system, q, t, residual, damp, _banded(system))
