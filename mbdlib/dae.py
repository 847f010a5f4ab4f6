"""Constrained equations of motion: KKT assembly, drift, and its cures.

A multibody system in (redundant) coordinates ``q`` with holonomic constraints
``Φ(q, t) = 0`` and nonholonomic ones ``B(q, t) q̇ = 0`` moves by the index-3
DAE ``M q̈ + Φ_qᵀ λ = Q``, ``Φ = 0``.  Differentiating the constraints twice
(``Φ_q q̈ = γ``; ``B q̈ = b_γ`` for the velocity constraints) gives the KKT
system (Haug 1989, §6.3; Nikravesh 1988, §13.2)::

    [ M    Jᵀ ] [ q̈ ]   [ Q ]          J = [Φ_q; B],   g = [γ; b_γ]
    [ J    0  ] [ λ  ] = [ g ]

With ``M q̈ + Jᵀ λ = Q`` the constraint forces on the bodies are ``−Jᵀ λ``.
Integrating this index-1 form only keeps ``Φ̈ = 0``: ``Φ`` and ``Φ̇`` drift.
:func:`simulate` offers the cures of the source text (document 001, §3):

* ``"none"``: the index-1 ODE as is (the drift is there to be seen);
* ``"baumgarte"``: ``Φ_q q̈ = γ − 2α Φ̇ − β² Φ`` (Baumgarte 1972);
* ``"projection"``: after every accepted step, positions are projected onto
  ``Φ = 0`` and velocities onto ``Φ_q q̇ + Φ_t = 0``, ``B q̇ = 0``, each by the
  mass-weighted least change;
* ``"augmented_lagrangian"``: the index-3 augmented Lagrangian formulation with
  the trapezoidal rule and mass-orthogonal projections of velocities and
  accelerations (Bayo, García de Jalón & Serna 1988; Bayo & Ledesma 1996;
  Cuadrado, Cardenal & Bayo 1997).  It never inverts ``J M⁻¹ Jᵀ``, so it
  tolerates redundant constraints and passes through singular positions.

The system is any object with the SYSTEM PROTOCOL: ``n``, ``M(q)``,
``Q(t, q, qd)``, ``phi(q, t)``, ``phi_q(q, t)``, ``phi_t(q, t)``,
``gamma(q, qd, t)``, ``B(q, t)``, ``b_gamma(q, qd, t)``, ``energy(q, qd)``,
``q0``, ``qd0`` and ``labels`` (one name per constraint row: the ``m``
holonomic rows, optionally followed by the ``k`` nonholonomic ones).
:class:`CartesianPendulum` is the smallest example.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
from scipy.integrate import DOP853, RK23, RK45, Radau
from scipy.linalg.lapack import dpotrf as _potrf
from scipy.linalg.lapack import dpotrs as _potrs

from .errors import MbdError, ModelError, ShapeError, SingularityError

__all__ = ["CartesianPendulum", "SimulationResult", "kkt_matrix", "accelerations", "redundant_rows",
           "project_positions", "project_velocities", "static_equilibrium", "simulate"]

METHODS = ("none", "baumgarte", "projection", "augmented_lagrangian")
SOLVERS = {"RK23": RK23, "RK45": RK45, "DOP853": DOP853, "Radau": Radau}
RANK_TOL = 1e-10          # relative singular-value tolerance for the rank of J
KKT_TOL = 1e-5            # the KKT system is singular when σ_min/σ_max of J M^(-1/2) is below this


# ----------------------------------------------------------------- an example system
class CartesianPendulum:
    """A point mass on a massless rod, in Cartesian coordinates ``q = (x, y)``.

    One constraint, ``Φ = x² + y² − L² = 0`` (pivot at the origin, gravity
    ``−g`` along y); ``λ = T / (2L)`` where T is the rod tension.

    >>> p = CartesianPendulum(length=2.0, angle=0.0)
    >>> p.q0, p.phi(p.q0, 0.0)
    (array([ 0., -2.]), array([0.]))
    """

    def __init__(self, length=1.0, mass=1.0, g=9.81, angle=0.5, angular_velocity=0.0):
        if length <= 0 or mass <= 0:
            raise ModelError(f"CartesianPendulum: length and mass must be positive, got {length}, {mass}")
        self.L, self.m, self.g, self.n = float(length), float(mass), float(g), 2
        s, c = np.sin(angle), np.cos(angle)          # angle from the downward vertical
        self.q0 = self.L * np.array([s, -c])
        self.qd0 = self.L * angular_velocity * np.array([c, s])
        self.labels = ["rod length"]

    def M(self, q):
        return self.m * np.eye(2)

    def Q(self, t, q, qd):
        return np.array([0.0, -self.m * self.g])

    def phi(self, q, t):
        return np.array([q @ q - self.L**2])

    def phi_q(self, q, t):
        return 2.0 * q.reshape(1, 2)

    def phi_t(self, q, t):
        return np.zeros(1)

    def gamma(self, q, qd, t):                       # −(Φ_q q̇)_q q̇ = −2 q̇·q̇
        return np.array([-2.0 * qd @ qd])

    def B(self, q, t):
        return np.zeros((0, 2))

    def b_gamma(self, q, qd, t):
        return np.zeros(0)

    def energy(self, q, qd):
        return 0.5 * self.m * qd @ qd + self.m * self.g * q[1]


# ----------------------------------------------------------------- KKT assembly and solve
def _jacobian(system, q, t):
    """J = [Φ_q; B], shape (m + k, n)."""
    return np.vstack([system.phi_q(q, t), system.B(q, t)])


def _labels(system, rows: int) -> list[str]:
    labels = list(getattr(system, "labels", []))
    return labels + [f"nonholonomic row {i}" for i in range(len(labels), rows)]


def kkt_matrix(system, q, t=0.0):
    """The KKT matrix ``[[M, Jᵀ], [J, 0]]`` with ``J = [Φ_q; B]``.

    Parameters
    ----------
    system : object with the SYSTEM PROTOCOL
    q : array_like, shape (n,)
    t : float

    Returns
    -------
    K : ndarray, shape (n + m + k, n + m + k)
        Symmetric; singular exactly when J has dependent rows (M positive definite).

    >>> kkt_matrix(CartesianPendulum(angle=0.0), [0.0, -1.0])
    array([[ 1.,  0.,  0.],
           [ 0.,  1., -2.],
           [ 0., -2.,  0.]])
    """
    q = np.asarray(q, dtype=float)
    M, J = system.M(q), _jacobian(system, q, t)
    r = J.shape[0]
    return np.block([[M, J.T], [J, np.zeros((r, r))]])


def redundant_rows(J, labels=None, tol: float = RANK_TOL):
    """Rank of a constraint Jacobian and the rows that make it rank deficient.

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
        Rows with a non-zero share in a dependency (left null vector of J).

    >>> redundant_rows([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]], ["a", "b", "c"])
    (2, ['a'], ['a', 'b'])
    """
    J = np.atleast_2d(np.asarray(J, dtype=float))
    r = J.shape[0]
    labels = list(labels) if labels is not None else [f"row {i}" for i in range(r)]
    if r == 0:
        return 0, [], []
    U, s, _ = np.linalg.svd(J)
    rank = int(np.sum(s > tol * max(s[0], 1e-300))) if s.size else 0
    if rank == r:
        return rank, [], []
    _, _, piv = scipy.linalg.qr(J.T, pivoting=True, mode="economic")
    dependent = sorted(int(i) for i in piv[rank:])
    null = U[:, rank:]                               # wᵀ J = 0 for each column w
    involved = [i for i in range(r) if np.linalg.norm(null[i]) > 1e-8]
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
    rank, dependent, involved = redundant_rows(Js, _labels(system, J.shape[0]), tol=max(tol, ratio * 1.0001))
    small = "zero to round-off, of" if ratio < 1e-12 else f"{ratio:.2g} of"

    def names(rows, k=6):
        return str(rows) if len(rows) <= k else f"{rows[:k]} and {len(rows) - k} more ({len(rows)} in all)"

    return SingularityError(
        f"the KKT matrix is singular at t = {t:g}: at this pose the {J.shape[0]} constraint rows have "
        f"numerical rank {rank} (smallest singular value {small} the largest, mass-scaled; the limit "
        f"is {tol:g}). Rows that become dependent here: {names(dependent)}; rows involved in the dependency: "
        f"{names(involved)}. If the constraints are redundant, remove those; if this is a singular position "
        "(a dead point, links in line), use method='augmented_lagrangian', which does not invert J M⁻¹ Jᵀ, "
        "or start from another state.")


def _solve(system, t, q, qd, alpha=0.0, beta=0.0):
    """q̈, λ from the KKT system by the range-space method (Nikravesh 1988, §13.2).

    ``S λ = J M⁻¹ Q − g`` with ``S = J M⁻¹ Jᵀ``, then ``q̈ = M⁻¹ (Q − Jᵀ λ)``.
    Baumgarte (1972): ``g = γ − 2α Φ̇ − β² Φ`` for the holonomic rows and
    ``b_γ − 2α (B q̇)`` for the nonholonomic ones.
    """
    M, Q = system.M(q), system.Q(t, q, qd)
    Phi_q, B = system.phi_q(q, t), system.B(q, t)
    J = np.vstack([Phi_q, B])
    g = np.concatenate([system.gamma(q, qd, t), system.b_gamma(q, qd, t)])
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
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        raise _singular_error(system, J, t, np.linalg.cholesky(M)) from None
    pivots = np.diag(L) ** 2                          # Schur-complement pivots of S: each ≥ λ_min(S)
    if pivots.min() <= KKT_TOL**2 * max(np.diag(S).max(), 1e-300):
        raise _singular_error(system, J, t, np.linalg.cholesky(M))
    lam = _cho_solve((L, True), J @ MiQ - g)
    return MiQ - MiJt @ lam, lam


def accelerations(system, t, q, qd):
    """Accelerations and Lagrange multipliers from the KKT system.

    Parameters
    ----------
    system : object with the SYSTEM PROTOCOL
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

    >>> p = CartesianPendulum(length=1.0, mass=2.0, angle=0.0)   # hanging at rest
    >>> qdd, lam = accelerations(p, 0.0, p.q0, p.qd0)
    >>> qdd.round(12) + 0.0, lam.round(12)       # tension m g = 2 L λ
    (array([0., 0.]), array([9.81]))
    """
    q, qd = _state(system, q, "q"), _state(system, qd, "qd")
    return _solve(system, float(t), q, qd)


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
def _weighted_least_change(M, J, residual):
    """Δ minimizing ½ Δᵀ M Δ subject to J Δ = −residual (minimum-norm if J is rank deficient).

    With M = L Lᵀ and z = Lᵀ Δ: z = −pinv(J L⁻ᵀ) residual, Δ = L⁻ᵀ z.
    """
    L = np.linalg.cholesky(M)
    JL = scipy.linalg.solve_triangular(L, J.T, lower=True).T          # J L⁻ᵀ
    z = -np.linalg.lstsq(JL, residual, rcond=None)[0]
    return scipy.linalg.solve_triangular(L.T, z, lower=False)


def project_positions(system, q, t=0.0, tol=1e-12, max_iter=20):
    """Project q onto Φ(q, t) = 0 by Newton steps of mass-weighted least change.

    Each step solves ``min ½ Δqᵀ M Δq`` subject to ``Φ_q Δq = −Φ`` (Gauss–Newton on the
    constraint manifold; Haug 1989, §6.4 uses the same idea for the position analysis).

    Parameters
    ----------
    system : object with the SYSTEM PROTOCOL
    q : array_like, shape (n,)
    t : float
    tol : float
        Stop when ``‖Φ‖∞ ≤ tol``.
    max_iter : int

    Returns
    -------
    q : ndarray, shape (n,)
    iterations : int

    >>> p = CartesianPendulum(length=1.0)
    >>> q, it = project_positions(p, [0.0, -1.1])
    >>> q.round(12) + 0.0, it
    (array([ 0., -1.]), 4)
    """
    q = _state(system, q, "q").copy()
    M = system.M(q)
    for it in range(max_iter + 1):
        phi = system.phi(q, t)
        if phi.size == 0 or np.max(np.abs(phi)) <= tol:
            return q, it
        if it == max_iter:
            break
        q += _weighted_least_change(M, system.phi_q(q, t), phi)
    worst = int(np.argmax(np.abs(phi)))
    raise MbdError(f"project_positions: Newton did not reach ‖Φ‖ ≤ {tol:g} in {max_iter} iterations at "
                   f"t = {t:g}; worst row {_labels(system, phi.size)[worst]!r} = {phi[worst]:.3g}. "
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
    system : object with the SYSTEM PROTOCOL
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

    >>> p = CartesianPendulum(length=1.0, angle=0.5)    # released at 0.5 rad: hangs straight down
    >>> q, lam, it = static_equilibrium(p, p.q0)
    >>> q.round(12) + 0.0, lam.round(9) + 0.0
    (array([ 0., -1.]), array([4.905]))
    """
    q = _state(system, q, "q").copy()
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


def project_velocities(system, q, qd, t=0.0):
    """Project q̇ onto Φ_q q̇ + Φ_t = 0 and B q̇ = 0 with the least mass-weighted change.

    Parameters
    ----------
    system : object with the SYSTEM PROTOCOL
    q, qd : array_like, shape (n,)
    t : float

    Returns
    -------
    qd : ndarray, shape (n,)

    >>> p = CartesianPendulum(length=1.0, angle=0.0)
    >>> project_velocities(p, p.q0, [1.0, 1.0])      # the radial part is removed
    array([1., 0.])
    """
    q, qd = _state(system, q, "q"), _state(system, qd, "qd")
    J = _jacobian(system, q, t)
    if J.shape[0] == 0:
        return qd.copy()
    residual = J @ qd + np.concatenate([system.phi_t(q, t), np.zeros(J.shape[0] - len(system.phi_t(q, t)))])
    return qd + _weighted_least_change(system.M(q), J, residual)


# ----------------------------------------------------------------- result
@dataclass
class SimulationResult:
    """Trajectory of a constrained simulation with its monitors.

    Attributes
    ----------
    t : ndarray, shape (N,)
    q, qd : ndarray, shape (N, n)
    lambdas : ndarray, shape (N, m + k)
        Lagrange multipliers (``M q̈ + Jᵀ λ = Q``); the joint reactions on the bodies are ``−Jᵀ λ``.
    energy : ndarray, shape (N,)
        ``system.energy(q, qd)``.
    violation : ndarray, shape (N,)
        ``‖Φ(q, t)‖``.
    violation_velocity : ndarray, shape (N,)
        ``‖[Φ_q q̇ + Φ_t; B q̇]‖``.
    method, solver : str
    nfev : int
        Evaluations of the right-hand side (ODE methods) or of Q (augmented Lagrangian).
    newton_iterations : int
        Total Newton iterations (position projections, or the augmented-Lagrangian steps).
    max_newton_iterations : int
        Largest count in one step.
    n_steps : int
    cpu_time : float
        Seconds of process time.
    labels : list of str
        One name per column of ``lambdas``.
    kinetic_scale : float
        Largest kinetic energy ½ q̇ᵀ M q̇ seen; scales ``energy_error`` when E(0) is near zero.
    deferred_steps : int
        Augmented Lagrangian: steps near a singular position in which the components of Φ that Φ_q
        cannot enforce were left for later steps (see the Notes of :func:`simulate`).
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    lambdas: np.ndarray
    energy: np.ndarray
    violation: np.ndarray
    violation_velocity: np.ndarray
    method: str
    solver: str
    nfev: int
    newton_iterations: int
    max_newton_iterations: int
    n_steps: int
    cpu_time: float
    labels: list = field(default_factory=list)
    kinetic_scale: float = 0.0
    deferred_steps: int = 0
    alpha: float | None = None
    beta: float | None = None
    rtol: float | None = None
    atol: float | None = None

    @property
    def mean_step(self) -> float:
        """Simulated time per step, ``(t_end − t0) / n_steps`` [s] (``alpha``, ``beta``: the Baumgarte
        gains of a ``"baumgarte"`` run, else None; ``rtol``, ``atol``: the ODE tolerances, None for the
        fixed-step augmented Lagrangian)."""
        return float(self.t[-1] - self.t[0]) / max(self.n_steps, 1)

    @property
    def energy_error(self) -> float:
        """max |E(t) − E(0)| / max(|E(0)|, max T): relative energy error (meaningful without drivers)."""
        scale = max(abs(self.energy[0]), self.kinetic_scale, 1e-300)
        return float(np.max(np.abs(self.energy - self.energy[0])) / scale)

    def summary(self) -> str:
        """A few lines for a notebook: method, cost, drift and energy error."""
        return (f"method {self.method} ({self.solver}), t = {self.t[0]:g} .. {self.t[-1]:g} s, "
                f"{self.n_steps} steps, {len(self.t)} outputs\n"
                f"  max ‖Φ‖ = {self.violation.max():.3e}, max ‖Φ̇‖ = {self.violation_velocity.max():.3e}, "
                f"relative energy error = {self.energy_error:.3e}\n"
                f"  {self.nfev} function evaluations, {self.newton_iterations} Newton iterations "
                f"(max {self.max_newton_iterations} per step), cpu {self.cpu_time:.3f} s"
                + (f"\n  {self.deferred_steps} steps at a singular position deferred part of Φ"
                   if self.deferred_steps else ""))

    def __str__(self) -> str:
        return self.summary()


# ----------------------------------------------------------------- checks
def _state(system, x, name):
    a = np.asarray(x, dtype=float)
    if a.shape != (system.n,):
        raise ShapeError(f"{name} must have shape ({system.n},) (the system's n), got {a.shape}")
    return a


def _check_system(system, q, qd, t):
    for attr in ("n", "M", "Q", "phi", "phi_q", "phi_t", "gamma", "B", "b_gamma", "energy"):
        if not hasattr(system, attr):
            raise ModelError(f"the system has no {attr!r}: it must follow the SYSTEM PROTOCOL of mbdlib.dae "
                             "(see the module docstring)")
    n = system.n
    phi, Phi_q, B = system.phi(q, t), system.phi_q(q, t), system.B(q, t)
    m, k = np.shape(phi)[0], np.shape(B)[0]
    for name, value, shape in [("M(q)", system.M(q), (n, n)), ("Q(t, q, qd)", system.Q(t, q, qd), (n,)),
                               ("phi_q(q, t)", Phi_q, (m, n)), ("phi_t(q, t)", system.phi_t(q, t), (m,)),
                               ("gamma(q, qd, t)", system.gamma(q, qd, t), (m,)), ("B(q, t)", B, (k, n)),
                               ("b_gamma(q, qd, t)", system.b_gamma(q, qd, t), (k,))]:
        if np.shape(value) != shape:
            raise ShapeError(f"system.{name} has shape {np.shape(value)}, expected {shape}")
    scale = 1.0 + np.max(np.abs(q))
    if m and np.max(np.abs(phi)) > 1e-6 * scale:
        worst = int(np.argmax(np.abs(phi)))
        raise ModelError(f"the initial positions violate constraint {_labels(system, m + k)[worst]!r} by "
                         f"{phi[worst]:.3g}: assemble the model first (e.g. PlanarModel.assemble)")
    return m, k


# ----------------------------------------------------------------- simulate
def simulate(system, t_end, method="projection", rtol=1e-9, atol=1e-9, t_eval=None, alpha=5.0, beta=5.0,
             solver="DOP853", dt=5e-4, penalty=None, newton_tol=1e-6, max_newton=50, t0=0.0, q0=None,
             qd0=None) -> SimulationResult:
    """Integrate a constrained system from (q0, qd0) at t0 to t_end, with monitors.

    Parameters
    ----------
    system : object with the SYSTEM PROTOCOL
    t_end : float
    method : {"projection", "none", "baumgarte", "augmented_lagrangian"}
    rtol, atol : float
        Tolerances of the ODE solver (not used by the fixed-step augmented Lagrangian).
    t_eval : array_like, optional
        Output times (default: every step).
    alpha, beta : float
        Baumgarte parameters [1/s]: ``Φ_q q̈ = γ − 2α Φ̇ − β² Φ``.
    solver : {"DOP853", "RK45", "RK23", "Radau"}
        The scipy integrator of the ODE methods.
    dt : float
        Fixed step of the augmented Lagrangian (trapezoidal rule) [s].  The default 5e-4 s meets the
        IFToMM A02 benchmark (the N-four-bar, 20 s through its flat singular pose, first crank tip within
        1e-3 m) for N = 2 in Cartesian and relative coordinates (``tests/test_a02.py``); the error falls
        as dt² (1e-3 s gives 2e-3 m there in Cartesian coordinates).
    penalty : float, optional
        Penalty factor α of the augmented Lagrangian; default ``1e3 · max(diag M) / dt²``
        (α h²/4 = 250 · max(diag M): 4e9 for unit masses and dt = 5e-4; the 1e7 of Bayo et al.
        goes with steps near 1e-2).
    newton_tol : float
        Augmented Lagrangian: Newton stops when the change of the accelerations it implies,
        ``(4/h²) ‖Δq‖∞``, is below ``newton_tol (1 + ‖q̈‖∞)``.  (The projections of q̇ and q̈
        iterate to a relative residual of 1e-12, at most 50 times.)
    max_newton : int
    t0 : float
    q0, qd0 : array_like, shape (n,), optional
        Default ``system.q0``, ``system.qd0``.

    Returns
    -------
    SimulationResult

    Notes
    -----
    ``"none"``, ``"baumgarte"`` and ``"projection"`` integrate the index-1 ODE y = (q, q̇) with an
    adaptive scipy solver stepped by hand; ``"projection"`` replaces the solver's state after each
    accepted step by its projection (:func:`project_positions`, then :func:`project_velocities`), and
    projects interpolated ``t_eval`` outputs too.  All three solve the KKT system and stop with a
    :class:`SingularityError` at redundant constraints or singular positions.

    ``"augmented_lagrangian"`` uses fixed steps ≤ ``dt`` that land on every ``t_eval`` time.  Its
    matrix ``M + α' JᵀJ`` is positive definite whatever the rank of J.  At a singular position the
    part of Φ along a left singular vector of Φ_q with a tiny singular value can only be reduced at
    second order: the multiplier update keeps pushing along it and Newton creeps.  When that happens
    (iteration 4 or later, corrections shrinking by less than half) the multiplier update along those
    directions stops for the rest of the step (the multiplier keeps its value there: setting it to zero
    would remove a real constraint force, which cost a factor of 7 in accuracy on the IFToMM A02
    benchmark), counted in ``deferred_steps``; later steps,
    away from the singular position, enforce them again (watch ``violation`` there).

    Examples
    --------
    >>> p = CartesianPendulum(angle=1.0)
    >>> drift = simulate(p, 2.0, method="none", rtol=1e-6, atol=1e-6)
    >>> fixed = simulate(p, 2.0, method="projection", rtol=1e-6, atol=1e-6)
    >>> bool(fixed.violation.max() < 1e-12 < 1e-8 < drift.violation.max())
    True
    """
    if method not in METHODS:
        raise MbdError(f"simulate: unknown method {method!r}; choose one of {METHODS}")
    if method != "augmented_lagrangian" and solver not in SOLVERS:
        raise MbdError(f"simulate: unknown solver {solver!r}; choose one of {tuple(SOLVERS)}")
    t0, t_end = float(t0), float(t_end)
    if not np.isfinite(t_end) or t_end <= t0:
        raise MbdError(f"simulate: t_end must be a finite time after t0 = {t0:g}, got {t_end!r}")
    q0 = _state(system, system.q0 if q0 is None else q0, "q0")
    qd0 = _state(system, system.qd0 if qd0 is None else qd0, "qd0")
    _check_system(system, q0, qd0, t0)
    if t_eval is not None:
        t_eval = np.asarray(t_eval, dtype=float).ravel()
        if t_eval.size == 0 or np.any(np.diff(t_eval) <= 0) or t_eval[0] < t0 or t_eval[-1] > t_end:
            raise MbdError(f"simulate: t_eval must be increasing and inside [{t0:g}, {t_end:g}]")
    start = time.process_time()
    if method == "augmented_lagrangian":
        if dt <= 0:
            raise MbdError(f"simulate: the step dt must be positive, got {dt!r}")
        out = _run_augmented_lagrangian(system, t0, t_end, q0, qd0, t_eval, dt, penalty, newton_tol,
                                        max_newton)
    else:
        out = _run_ode(system, t0, t_end, q0, qd0, t_eval, method, SOLVERS[solver], rtol, atol,
                       alpha if method == "baumgarte" else 0.0, beta if method == "baumgarte" else 0.0)
    ts, qs, qds, lams, stats = out
    cpu = time.process_time() - start
    result = _result(system, ts, qs, qds, lams, method, "trapezoidal" if method == "augmented_lagrangian"
                     else solver, stats, cpu)
    if method == "baumgarte":
        result.alpha, result.beta = float(alpha), float(beta)
    if method != "augmented_lagrangian":
        result.rtol, result.atol = float(rtol), float(atol)
    return result


def _result(system, ts, qs, qds, lams, method, solver, stats, cpu):
    ts, qs, qds = np.asarray(ts), np.asarray(qs), np.asarray(qds)
    viol, viol_v, E, T = [], [], [], 0.0
    for t, q, qd in zip(ts, qs, qds, strict=True):
        phi = system.phi(q, t)
        vel = np.concatenate([system.phi_q(q, t) @ qd + system.phi_t(q, t), system.B(q, t) @ qd])
        viol.append(np.linalg.norm(phi))
        viol_v.append(np.linalg.norm(vel))
        E.append(system.energy(q, qd))
        T = max(T, 0.5 * qd @ system.M(q) @ qd)
    lambdas = np.asarray(lams).reshape(len(ts), -1)
    return SimulationResult(ts, qs, qds, lambdas, np.asarray(E, dtype=float), np.asarray(viol),
                            np.asarray(viol_v), method, solver, cpu_time=cpu,
                            labels=_labels(system, lambdas.shape[1]), kinetic_scale=T, **stats)


def _run_ode(system, t0, t_end, q0, qd0, t_eval, method, solver_cls, rtol, atol, alpha, beta):
    """Index-1 ODE y = (q, q̇) stepped by a scipy OdeSolver; projection after each accepted step."""
    n, nfev = system.n, [0]
    project = method == "projection"
    newton = [0, 0]

    def rhs(t, y):
        nfev[0] += 1
        qdd, _ = _solve(system, t, y[:n], y[n:], alpha, beta)
        return np.concatenate([y[n:], qdd])

    def projected(t, y):
        q, it = project_positions(system, y[:n], t)
        newton[0] += it
        newton[1] = max(newton[1], it)
        return np.concatenate([q, project_velocities(system, q, y[n:], t)])

    y0 = np.concatenate([q0, qd0])
    if project:
        y0 = projected(t0, y0)
    ode = solver_cls(rhs, t0, y0, t_end, rtol=rtol, atol=atol)
    ys, ts, steps, k = [], [], 0, 0
    if t_eval is None or t_eval[0] == t0:
        ts.append(t0)
        ys.append(y0)
        k = 0 if t_eval is None else 1
    while ode.status == "running":
        ode.step()
        if ode.status == "failed":
            raise MbdError(f"simulate: the {solver_cls.__name__} integrator failed at t = {ode.t:g} "
                           f"(method {method!r}); try method='augmented_lagrangian' or a stiffer solver")
        steps += 1
        if t_eval is not None:
            dense = ode.dense_output()
            while k < t_eval.size and t_eval[k] <= ode.t:
                y = dense(t_eval[k])
                ts.append(t_eval[k])
                ys.append(projected(t_eval[k], y) if project else y)
                k += 1
        if project:                                  # restart from the projected state
            ode.y = projected(ode.t, ode.y)
            ode.f = rhs(ode.t, ode.y)
        if t_eval is None:
            ts.append(ode.t)
            ys.append(ode.y.copy())
    ys = np.asarray(ys)
    lams = [_solve(system, t, y[:n], y[n:], alpha, beta)[1] for t, y in zip(ts, ys, strict=True)]
    return ts, ys[:, :n], ys[:, n:], lams, dict(nfev=nfev[0], newton_iterations=newton[0],
                                                max_newton_iterations=newton[1], n_steps=steps)


def _time_grid(t0, t_end, t_eval, dt):
    """Steps ≤ dt that land on every output time; mask of the output points."""
    marks = np.concatenate([[t0], t_eval if t_eval is not None else [t_end]])
    marks = marks[np.concatenate([[True], np.diff(marks) > 0])]
    grid, out = [t0], [t_eval is None or t_eval[0] == t0]
    for a, b in zip(marks[:-1], marks[1:], strict=True):
        k = max(1, int(np.ceil((b - a) / dt - 1e-9)))
        grid.extend(a + (b - a) * np.arange(1, k + 1) / k)
        out.extend([t_eval is None] * (k - 1) + [True])
    return np.asarray(grid), np.asarray(out)


def _run_augmented_lagrangian(system, t0, t_end, q0, qd0, t_eval, dt, penalty, tol, max_newton):
    """Index-3 augmented Lagrangian, trapezoidal rule, mass-orthogonal projections.

    Cuadrado, Cardenal & Bayo (1997), after Bayo, García de Jalón & Serna (1988) and Bayo &
    Ledesma (1996).  Trapezoidal rule (Newmark β = 1/4, γ = 1/2):

        q̇_{n+1} = (2/h) q_{n+1} − q̂̇_n,     q̂̇_n = (2/h) q_n + q̇_n
        q̈_{n+1} = (4/h²) q_{n+1} − q̂̈_n,    q̂̈_n = (4/h²) q_n + (4/h) q̇_n + q̈_n

    Equilibrium at n+1, times h²/4 (α: penalty; λ*: multipliers; α_v = α h/2 for B q̇ = 0):

        f(q) = h²/4 [M q̈ + Φ_qᵀ (α Φ + λ*) + Bᵀ (α_v B q̇ + σ) − Q] = 0
        [M + α' (Φ_qᵀ Φ_q + BᵀB)] Δq = −f,   α' = α h²/4   (tangent without ∂Q/∂q, ∂Q/∂q̇;
                                                          the last step's, refreshed from iteration 3)
        λ* ← λ* + α Φ,  σ ← σ + α_v B q̇    (every iteration)

    Then, with P = M + α' JᵀJ, the mass-orthogonal projections (iterated to convergence):

        P q̇ = M q̇* − α' Φ_qᵀ Φ_t,    P q̈ = M q̈* + α' Jᵀ [γ; b_γ]
    """
    M = system.M(q0)
    constant_M = hasattr(system, "M_diagonal")           # Cartesian coordinates: M does not depend on q
    alpha = float(penalty) if penalty is not None else 1e3 * float(np.max(np.diag(M))) / dt**2
    if not alpha > 0:
        raise MbdError(f"simulate: the penalty must be positive, got {penalty!r}")
    h_grid, is_out = _time_grid(t0, t_end, t_eval, dt)
    nfev, total_it, max_it, deferred = 0, 0, 0, 0
    q, qd = q0.copy(), qd0.copy()
    qdd, lam = _al_accelerations(system, t0, q, qd, alpha)
    m = len(system.phi(q, t0))
    lam_star, sigma = lam[:m].copy(), lam[m:].copy()
    ts, qs, qds, lams = [], [], [], []
    if is_out[0]:
        ts.append(t0)
        qs.append(q.copy())
        qds.append(qd.copy())
        lams.append(lam.copy())
    J, P, P_h = _jacobian(system, q, t0), None, None
    for t, t1, record in zip(h_grid[:-1], h_grid[1:], is_out[1:], strict=True):
        h = t1 - t
        a_pen, a_v = alpha * h * h / 4.0, alpha * h / 2.0
        if h != P_h:                                   # tangent at the last converged state (modified Newton)
            P, P_h = _cho(M + a_pen * J.T @ J), h
        qd_hat = (2.0 / h) * q + qd
        qdd_hat = (4.0 / h**2) * q + (4.0 / h) * qd + qdd
        x = q + h * qd + 0.5 * h * h * qdd             # predictor
        step_prev, W = np.inf, None
        for it in range(1, max_newton + 1):
            v, a = (2.0 / h) * x - qd_hat, (4.0 / h**2) * x - qdd_hat
            phi, Phi_q, B = system.phi(x, t1), system.phi_q(x, t1), system.B(x, t1)
            gv = B @ v
            if it > 1:
                dlam = alpha * phi
                lam_star += dlam if W is None else dlam - W @ (W.T @ dlam)
                sigma += a_v * gv
            Q = system.Q(t1, x, v)
            Mx = M if constant_M else system.M(x)       # the equilibrium at t_{n+1} needs M(q_{n+1})
            nfev += 1
            f = (h * h / 4.0) * (Mx @ a + Phi_q.T @ (alpha * phi + lam_star) + B.T @ (a_v * gv + sigma) - Q)
            if it > 2:                                 # slow: refresh the tangent (full Newton)
                J_it = np.vstack([Phi_q, B])
                P = _cho(Mx + a_pen * J_it.T @ J_it)
            dq = -_cho_solve(P, f)
            x = x + dq
            step = np.max(np.abs(dq))                  # (4/h²) Δq is the change of q̈
            if 4.0 * step / h**2 <= tol * (1.0 + np.max(np.abs(a))):
                break
            if it >= 4 and W is None and step >= 0.5 * step_prev and m:
                W = _weak_directions(Phi_q, a_pen, Mx)  # creeping: a singular position (Notes of simulate)
                if W.shape[1]:                         # keep λ* there (a real force), stop its update
                    deferred += 1
            step_prev = step
        else:
            raise MbdError(f"simulate (augmented_lagrangian): Newton did not converge in {max_newton} "
                           f"iterations at t = {t1:g} (last correction {step:.3g}); reduce dt (now {dt:g}) "
                           f"or change the penalty (now {alpha:g})")
        total_it += it
        max_it = max(max_it, it)
        q = x
        qd_star, qdd_star = (2.0 / h) * q - qd_hat, (4.0 / h**2) * q - qdd_hat
        M, J = system.M(q), _jacobian(system, q, t1)
        P, P_h = _cho(M + a_pen * J.T @ J), h
        phi_t = np.concatenate([system.phi_t(q, t1), np.zeros(J.shape[0] - m)])
        qd = _al_project(P, M, J, qd_star, -phi_t, a_pen)
        g = np.concatenate([system.gamma(q, qd, t1), system.b_gamma(q, qd, t1)])
        qdd = _al_project(P, M, J, qdd_star, g, a_pen)
        phi = system.phi(q, t1)
        if record:
            ts.append(t1)
            qs.append(q.copy())
            qds.append(qd.copy())
            lams.append(np.concatenate([lam_star + alpha * phi, sigma + a_v * (system.B(q, t1) @ qd)]))
    return ts, qs, qds, lams, dict(nfev=nfev, newton_iterations=total_it, max_newton_iterations=max_it,
                                   n_steps=len(h_grid) - 1, deferred_steps=deferred)


def _weak_directions(Phi_q, a_pen, M):
    """Left singular vectors of Φ_q that the penalty cannot enforce within one step, shape (m, r).

    A residual of Φ along a left singular vector u_i is removed by the penalty at the rate
    α' σ_i² / (mass): where α' σ_i² < 10 · max(diag M) (and for σ_i = 0) it only creeps.
    """
    U, s, _ = np.linalg.svd(Phi_q, full_matrices=True)
    s = np.concatenate([s, np.zeros(U.shape[1] - s.size)])
    return U[:, a_pen * s**2 < 10.0 * np.max(np.diag(M))]


def _cho(A):
    """Cholesky factor (lower) by LAPACK ``potrf`` directly: the scipy wrappers cost more than the
    factorization itself for the small matrices of the course (tens of coordinates)."""
    c, info = _potrf(np.asarray(A, dtype=float), lower=True, clean=False)
    if info != 0:
        raise np.linalg.LinAlgError(f"matrix not positive definite (LAPACK potrf info {info})")
    return c, True


def _cho_solve(c, b):
    x, info = _potrs(c[0], b, lower=True)
    if info != 0:
        raise np.linalg.LinAlgError(f"LAPACK potrs info {info}")
    return x


def _al_project(P, M, J, x_star, target, a_pen, tol=1e-12, max_iter=50):
    """Mass-orthogonal projection of x* onto J x = target (Bayo & Ledesma 1996), iterated.

    Minimizes ½ (x − x*)ᵀ M (x − x*) + ½ α' ‖J x − target‖² with multiplier updates
    ``μ ← μ + α' (J x − target)`` until ``J x = target``: ``P x = M x* + α' Jᵀ target − Jᵀ μ``.
    """
    if J.shape[0] == 0:
        return x_star
    mu = np.zeros(J.shape[0])
    rhs = M @ x_star + a_pen * J.T @ target
    scale = 1.0 + np.linalg.norm(target) + np.linalg.norm(J @ x_star)
    for _ in range(max_iter):
        x = _cho_solve(P, rhs - J.T @ mu)
        res = J @ x - target
        if np.linalg.norm(res) <= tol * scale:
            break
        mu += a_pen * res
    return x
