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

The system is any object with the SYSTEM PROTOCOL, written down as :class:`System` (a
``typing.Protocol``: ``isinstance(model, System)`` tells whether a model has every member).
:class:`CartesianPendulum` is the smallest example; ``PlanarModel``, ``RelativeModel``,
``ChainSystem``, ``CompiledPlanarModel`` and ``SpatialModel`` (after ``system()``) follow it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
from scipy.integrate import DOP853, RK23, RK45, Radau

from ._integrators import _run_augmented_lagrangian, _run_ode
from ._kkt import (  # noqa: F401  (re-exported: the constrained-dynamics API lives in this module)
    DAMPING,
    KKT_TOL,
    CartesianPendulum,
    _labels,
    _least_change,
    _solve,
    _state,
    _weighted_least_change,
    accelerations,
    kkt_matrix,
    project_positions,
    project_velocities,
    redundant_rows,
    static_equilibrium,
)
from .errors import MbdError, ModelError, ShapeError

__all__ = ["CartesianPendulum", "SimulationResult", "kkt_matrix", "accelerations", "redundant_rows",
           "project_positions", "project_velocities", "static_equilibrium", "simulate"]

METHODS = ("none", "baumgarte", "projection", "augmented_lagrangian")
SOLVERS = {"RK23": RK23, "RK45": RK45, "DOP853": DOP853, "Radau": Radau}
SINGULAR = ("stop", "damp")


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
    rejected_steps : int
        Error-controlled augmented Lagrangian: steps taken again, shorter, because their local error
        estimate exceeded the tolerance (or their Newton iteration did not converge).
    jump_steps : int
        Error-controlled augmented Lagrangian: steps accepted above the tolerance because shortening them
        did not lower the estimate (a jump of q, such as the correction of the part of Φ deferred at a
        singular position, is not an error of the rule that a shorter step reduces).
    damped_evaluations : int
        ``singular="damp"``: evaluations of q̈ at which ``J M⁻¹ Jᵀ`` was singular and the damped
        least-squares solve was used (zero: no singular position was met).
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
    rejected_steps: int = 0
    jump_steps: int = 0
    damped_evaluations: int = 0
    alpha: float | None = None
    beta: float | None = None
    rtol: float | None = None
    atol: float | None = None

    @property
    def mean_step(self) -> float:
        """Simulated time per step, ``(t_end − t0) / n_steps`` [s] (``alpha``, ``beta``: the Baumgarte
        gains of a ``"baumgarte"`` run, else None; ``rtol``, ``atol``: the tolerances that chose the steps,
        None for the fixed-step augmented Lagrangian)."""
        return float(self.t[-1] - self.t[0]) / max(self.n_steps, 1)

    @property
    def energy_error(self) -> float:
        """max |E(t) − E(0)| / max(|E(0)|, max T): relative energy error (meaningful without drivers)."""
        scale = max(abs(self.energy[0]), self.kinetic_scale, 1e-300)
        return float(np.max(np.abs(self.energy - self.energy[0])) / scale)

    def summary(self) -> str:
        """A few lines for a notebook: method, cost, drift and energy error."""
        return (f"method {self.method} ({self.solver}), t = {self.t[0]:g} .. {self.t[-1]:g} s, "
                f"{self.n_steps} steps"
                + (f" ({self.rejected_steps} rejected)" if self.rejected_steps else "")
                + (f" ({self.jump_steps} accepted with a jump of q)" if self.jump_steps else "")
                + f", {len(self.t)} outputs\n"
                f"  max ‖Φ‖ = {self.violation.max():.3e}, max ‖Φ̇‖ = {self.violation_velocity.max():.3e}, "
                f"relative energy error = {self.energy_error:.3e}\n"
                f"  {self.nfev} function evaluations, {self.newton_iterations} Newton iterations "
                f"(max {self.max_newton_iterations} per step), cpu {self.cpu_time:.3f} s"
                + (f"\n  {self.deferred_steps} steps at a singular position deferred part of Φ"
                   if self.deferred_steps else "")
                + (f"\n  {self.damped_evaluations} evaluations near a singular position used damped least "
                   "squares" if self.damped_evaluations else ""))

    def __str__(self) -> str:
        return self.summary()


# ----------------------------------------------------------------- the protocol
@runtime_checkable
class System(Protocol):
    """What :func:`simulate` integrates: ``M(q) q̈ = Q − Φ_qᵀ λ − Bᵀ μ`` with ``Φ(q, t) = 0`` (m rows) and
    ``B(q, t) q̇ = 0`` (k nonholonomic rows).

    Shapes: ``n`` coordinates; ``M (n, n)``, ``Q (n,)``, ``phi (m,)``, ``phi_q (m, n)``, ``phi_t (m,)``,
    ``gamma (m,)`` = ``Φ_q q̈ − Φ̈`` (the part of the second derivative without q̈, negated), ``B (k, n)``,
    ``b_gamma (k,)`` likewise for ``B q̇``; ``labels``: one name per row, the m holonomic ones first.
    """

    n: int
    q0: np.ndarray
    qd0: np.ndarray
    labels: list

    def M(self, q) -> np.ndarray: ...
    def Q(self, t, q, qd) -> np.ndarray: ...
    def phi(self, q, t) -> np.ndarray: ...
    def phi_q(self, q, t) -> np.ndarray: ...
    def phi_t(self, q, t) -> np.ndarray: ...
    def gamma(self, q, qd, t) -> np.ndarray: ...
    def B(self, q, t) -> np.ndarray: ...
    def b_gamma(self, q, qd, t) -> np.ndarray: ...
    def energy(self, q, qd) -> float: ...


# ----------------------------------------------------------------- checks
def _check_system(system, q, qd, t):
    for attr in ("n", "M", "Q", "phi", "phi_q", "phi_t", "gamma", "B", "b_gamma", "energy"):
        if not hasattr(system, attr):
            raise ModelError(f"the system has no {attr!r}: it must follow the SYSTEM PROTOCOL of mbdlib.dae "
                             "(mbdlib.dae.System)")
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
             qd0=None, singular="stop", adaptive=False) -> SimulationResult:
    """Integrate a constrained system from (q0, qd0) at t0 to t_end, with monitors.

    Parameters
    ----------
    system : object with the SYSTEM PROTOCOL
    t_end : float
    method : {"projection", "none", "baumgarte", "augmented_lagrangian"}
    rtol, atol : float
        Tolerances of the ODE solver, and of the augmented Lagrangian's local error estimate when
        ``adaptive``.
    t_eval : array_like, optional
        Output times (default: every step).
    alpha, beta : float
        Baumgarte parameters [1/s]: ``Φ_q q̈ = γ − 2α Φ̇ − β² Φ``.
    solver : {"DOP853", "RK45", "RK23", "Radau"}
        The scipy integrator of the ODE methods.
    dt : float
        Step of the augmented Lagrangian [s] (steps ≤ dt that land on every output time), or with
        ``adaptive=True`` its first and largest step.  The default 5e-4 s meets the IFToMM A02 benchmark
        (the N-four-bar, 20 s through its flat singular pose, first crank tip within 1e-3 m) for N = 2 in
        Cartesian, relative and mixed coordinates (8.2e-4, 2.8e-4, 5.3e-4 m in ``bench/bench_a02.py``;
        ``tests/test_a02.py`` checks the first two, and N = 5 in relative coordinates).
    adaptive : bool
        Augmented Lagrangian: choose the step by the local error estimate against ``rtol`` and ``atol``
        (see the Notes).  Not the default: the error made at a singular position is not a local error
        of the rule, and on A02 (N = 2, Cartesian) the controlled run with the same largest step measured
        1.2e-3 m against the fixed step's 8.2e-4 m.
    penalty : float, optional
        Penalty factor α of the augmented Lagrangian; default ``1e3 · max(diag M) / dt²``
        (α dt²/4 = 250 · max(diag M): 4e9 for unit masses and dt = 5e-4; the 1e7 of Bayo et al.
        goes with steps near 1e-2), with ``adaptive`` the same for each step h.  A given penalty stays
        fixed.
    newton_tol : float
        Augmented Lagrangian: Newton stops when the change of the accelerations it implies,
        ``(4/h²) ‖Δq‖∞``, is below ``newton_tol (1 + ‖q̈‖∞)``.  (The projections of q̇ and q̈
        iterate to a relative residual of 1e-12, at most 50 times.)
    max_newton : int
    t0 : float
    q0, qd0 : array_like, shape (n,), optional
        Default ``system.q0``, ``system.qd0``.
    singular : {"stop", "damp"}
        Method "projection" at a singular position, where ``S = J M⁻¹ Jᵀ`` loses rank: ``"stop"`` raises a
        :class:`SingularityError` naming the rows; ``"damp"`` solves ``S + μ I`` there instead, with
        ``μ = 1e-10 · max(diag S)`` (damped least squares: Nakamura & Hanafusa 1986; Wampler 1986), in
        the accelerations and in the projections, so the weak directions are left alone for the few
        evaluations that land near the pose; ``damped_evaluations`` counts them.  The start state must
        be regular (redundant constraints still stop).  On the IFToMM A02 N-four-bar in Cartesian
        coordinates ``"projection"`` with ``"damp"`` stays within 1e-5 m of the exact motion for
        N = 2, 5 and 40 (``tests/test_a02.py``).  It cannot tell which branch the exact motion takes
        at a bifurcation: it follows the one the integrator's step lands on, so check the result.

    Returns
    -------
    SimulationResult

    Notes
    -----
    ``"none"``, ``"baumgarte"`` and ``"projection"`` integrate the index-1 ODE y = (q, q̇) with an
    adaptive scipy solver stepped by hand; ``"projection"`` replaces the solver's state after each
    accepted step by its projection (:func:`project_positions`, then :func:`project_velocities`), and
    projects interpolated ``t_eval`` outputs too.  All three solve the KKT system (by the range-space
    method; with ``J M⁻¹ Jᵀ`` in band storage when the system offers ``banded_schur``) and stop with a
    :class:`SingularityError` at redundant constraints or singular positions, unless ``singular="damp"``
    carries them through singular positions.

    ``"augmented_lagrangian"`` uses fixed steps ≤ ``dt`` that land on every ``t_eval`` time; with
    ``adaptive=True`` it chooses them (≤ ``dt``) by the local error of the trapezoidal rule,
    ``h² (q̈_{n+1} − q̈_n) / 12`` (Zienkiewicz & Xie 1991), against ``atol + rtol |q|``: a step above
    it is taken again, shorter (``rejected_steps``).  In Cartesian coordinates with revolute joints its
    matrix ``M + α' JᵀJ`` is kept in band storage and factored once per step (O(n)); elsewhere dense.  Its
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
    if singular not in SINGULAR:
        raise MbdError(f"simulate: unknown singular={singular!r}; choose one of {SINGULAR}")
    if singular == "damp" and method != "projection":
        raise MbdError(f"simulate: singular='damp' works with method='projection' only (the check that a "
                       f"passage stayed on its branch runs after each projection), got method={method!r}")
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
        if adaptive and not (rtol > 0 and atol > 0):
            raise MbdError(f"simulate: rtol and atol must be positive, got {rtol!r} and {atol!r}")
        out = _run_augmented_lagrangian(system, t0, t_end, q0, qd0, t_eval, dt, penalty, newton_tol,
                                        max_newton, rtol, atol, bool(adaptive))
    else:
        out = _run_ode(system, t0, t_end, q0, qd0, t_eval, method, SOLVERS[solver], rtol, atol,
                       alpha if method == "baumgarte" else 0.0, beta if method == "baumgarte" else 0.0,
                       singular == "damp")
    ts, qs, qds, lams, stats = out
    cpu = time.process_time() - start
    result = _result(system, ts, qs, qds, lams, method, "trapezoidal" if method == "augmented_lagrangian"
                     else solver, stats, cpu)
    if method == "baumgarte":
        result.alpha, result.beta = float(alpha), float(beta)
    if method != "augmented_lagrangian" or adaptive:
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
