"""Constrained equations of motion: the KKT system, drift and its cures, and the one ``simulate``.

A multibody system (a :class:`~mbdlib.system.ConstrainedSystem`, built by ``model.system()``) in
coordinates ``q`` with holonomic constraints ``Φ(q, t) = 0`` and nonholonomic ones ``B(q, t) q̇ = 0``
moves by the index-3 DAE ``M q̈ + Φ_qᵀ λ = Q``, ``Φ = 0``.  Differentiating the constraints twice
(``Φ_q q̈ = γ``; ``B q̈ = b_γ`` for the velocity constraints) gives the KKT system (Haug 1989, §6.3;
Nikravesh 1988, §13.2)::

    [ M    Jᵀ ] [ q̈ ]   [ Q ]          J = [Φ_q; B],   g = [γ; b_γ]
    [ J    0  ] [ λ  ] = [ g ]

With ``M q̈ + Jᵀ λ = Q`` the constraint forces on the bodies are ``−Jᵀ λ``.
Integrating this index-1 form only keeps ``Φ̈ = 0``: ``Φ`` and ``Φ̇`` drift.
:func:`simulate` integrates any system by one of the schemes of :mod:`mbdlib.schemes` (the cures of
the source text, document 001, §3):

* :class:`~mbdlib.schemes.ODE`: the index-1 ODE as is (the drift is there to be seen; for a system
  without constraints, simply its equations of motion);
* :class:`~mbdlib.schemes.Baumgarte`: ``Φ_q q̈ = γ − 2α Φ̇ − β² Φ`` (Baumgarte 1972);
* :class:`~mbdlib.schemes.Projection`: after every accepted step, positions are projected onto
  ``Φ = 0`` and velocities onto ``Φ_q q̇ + Φ_t = 0``, ``B q̇ = 0``, each by the mass-weighted least
  change;
* :class:`~mbdlib.schemes.AugmentedLagrangian`: the index-3 augmented Lagrangian formulation with the
  trapezoidal rule and mass-orthogonal projections of velocities and accelerations (Bayo, García de
  Jalón & Serna 1988; Bayo & Ledesma 1996; Cuadrado, Cardenal & Bayo 1997).  It never inverts
  ``J M⁻¹ Jᵀ``, so it tolerates redundant constraints and passes through singular positions.

:func:`cartesian_pendulum` is the smallest system, written by hand.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ._contact_schemes import _run_event_driven, _run_time_stepping
from ._integrators import _run_augmented_lagrangian, _run_ode
from ._kkt import (  # noqa: F401  (re-exported: the constrained-dynamics API lives in this module)
    _solve,
    accelerations,
    cartesian_pendulum,
    kkt_matrix,
    project_positions,
    project_velocities,
    redundant_rows,
    static_equilibrium,
)
from .errors import MbdError, ModelError
from .schemes import ODE, SCHEMES, AugmentedLagrangian, Baumgarte, EventDriven, Projection, TimeStepping
from .system import as_system

__all__ = ["cartesian_pendulum", "SimulationResult", "kkt_matrix", "accelerations", "redundant_rows",
           "project_positions", "project_velocities", "static_equilibrium", "simulate"]


# ----------------------------------------------------------------- result
@dataclass
class SimulationResult:
    """Trajectory of a simulation with its monitors: what :func:`simulate` returns for every system.

    Attributes
    ----------
    t : ndarray, shape (N,)
    q, qd : ndarray, shape (N, n)
    lambdas : ndarray, shape (N, m + k)
        Lagrange multipliers (``M q̈ + Jᵀ λ = Q``); the joint reactions on the bodies are ``−Jᵀ λ``.
    energy : ndarray, shape (N,)
        ``system.energy(q, qd)`` (NaN when the system has no energy function).
    violation : ndarray, shape (N,)
        ``‖Φ(q, t)‖``.
    violation_velocity : ndarray, shape (N,)
        ``‖[Φ_q q̇ + Φ_t; B q̇]‖``.
    scheme : ODE, Baumgarte, Projection or AugmentedLagrangian
        The scheme that integrated (with its options).
    solver : str
        The integrator underneath: a scipy solver's name, or "trapezoidal".
    nfev : int
        Evaluations of the right-hand side (ODE-type schemes) or of Q (augmented Lagrangian).
    newton_iterations, max_newton_iterations : int
        Newton iterations in all (position projections, or the augmented-Lagrangian steps) and the
        largest count in one step.
    n_steps : int
    cpu_time : float
        Seconds of process time.
    labels : tuple of str
        One name per column of ``lambdas``.
    coordinate_names : tuple of str
        One name per column of ``q``.
    kinetic_scale : float
        Largest kinetic energy ½ q̇ᵀ M q̇ seen; scales ``energy_error`` when E(0) is near zero.
    deferred_steps : int
        Augmented Lagrangian: steps near a singular position in which the components of Φ that Φ_q
        cannot enforce were left for later steps (:class:`mbdlib._integrators.SingularPassage`).
    rejected_steps : int
        Error-controlled augmented Lagrangian: steps taken again, shorter, because their local error
        estimate exceeded the tolerance (or their Newton iteration did not converge).
    jump_steps : int
        Error-controlled augmented Lagrangian: steps accepted above the tolerance because shortening them
        did not lower the estimate (a jump of q, such as the correction of the part of Φ deferred at a
        singular position, is not an error of the rule that a shorter step reduces).
    damped_evaluations : int
        ``Projection(singular="damp")``: evaluations of q̈ at which ``J M⁻¹ Jᵀ`` was singular and the
        damped least-squares solve was used (zero: no singular position was met).
    contact_labels : tuple of str
        The system's contacts (empty without contacts; then the contact fields are empty too).
    gaps : ndarray, shape (N, n_contacts)
        The gap of each contact at each output.
    contact_normal, contact_tangent : ndarray, shape (N, n_contacts) and (N, n_contacts, dim)
        Normal and friction forces [N] of each contact (EventDriven: in the mode at that time; TimeStepping:
        the step's impulse divided by the step).
    impacts : list of mbdlib.contact.Impact
        EventDriven: every impact, in order (time, contacts, impulses, velocities before and after, the
        change of kinetic energy).
    zeno : list of ZenoRecord
        EventDriven: contacts put to rest after an accumulation of impacts (``rest_speed``).
    contact_work : float
        TimeStepping: the work of all contact impulses [J] (≤ 0: dissipated).
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    lambdas: np.ndarray
    energy: np.ndarray
    violation: np.ndarray
    violation_velocity: np.ndarray
    scheme: object
    solver: str
    nfev: int
    newton_iterations: int
    max_newton_iterations: int
    n_steps: int
    cpu_time: float
    labels: tuple = ()
    coordinate_names: tuple = ()
    kinetic_scale: float = 0.0
    deferred_steps: int = 0
    rejected_steps: int = 0
    jump_steps: int = 0
    damped_evaluations: int = 0
    contact_labels: tuple = ()
    gaps: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    contact_normal: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    contact_tangent: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 1)))
    impacts: list = field(default_factory=list)
    zeno: list = field(default_factory=list)
    contact_work: float = 0.0

    @property
    def mean_step(self) -> float:
        """Simulated time per step, ``(t_end − t0) / n_steps`` [s]."""
        return float(self.t[-1] - self.t[0]) / max(self.n_steps, 1)

    @property
    def energy_error(self) -> float:
        """max |E(t) − E(0)| / max(|E(0)|, max T): relative energy error (meaningful without drivers)."""
        scale = max(abs(self.energy[0]), self.kinetic_scale, 1e-300)
        return float(np.max(np.abs(self.energy - self.energy[0])) / scale)

    @property
    def energy_drift(self) -> float:
        """max |E(t) − E(0)| [J]: the absolute energy error."""
        return float(np.max(np.abs(self.energy - self.energy[0])))

    def summary(self) -> str:
        """A few lines for a notebook: scheme, cost, drift and energy error."""
        lines = [f"{self.scheme}, t = {self.t[0]:g} .. {self.t[-1]:g} s, {self.n_steps} steps"
                 + (f" ({self.rejected_steps} rejected)" if self.rejected_steps else "")
                 + (f" ({self.jump_steps} accepted with a jump of q)" if self.jump_steps else "")
                 + f", {len(self.t)} outputs"]
        if self.lambdas.shape[1]:
            lines.append(f"  max ‖Φ‖ = {self.violation.max():.3e}, "
                         f"max ‖Φ̇‖ = {self.violation_velocity.max():.3e}, "
                         f"relative energy error = {self.energy_error:.3e}")
        else:
            lines.append(f"  relative energy error = {self.energy_error:.3e}")
        lines.append(f"  {self.nfev} function evaluations, {self.newton_iterations} Newton iterations "
                     f"(max {self.max_newton_iterations} per step), cpu {self.cpu_time:.3f} s")
        if self.deferred_steps:
            lines.append(f"  {self.deferred_steps} steps at a singular position deferred part of Φ")
        if self.contact_labels:
            closed = int(np.sum(np.any(self.contact_normal > 0, axis=0))) if self.contact_normal.size else 0
            rest = f", {len(self.zeno)} put to rest after an accumulation of impacts" if self.zeno else ""
            lines.append(f"  {len(self.contact_labels)} contacts ({closed} carried a force), "
                         f"{len(self.impacts)} impacts, min gap {self.gaps.min():.3e}{rest}")
        if self.damped_evaluations:
            lines.append(f"  {self.damped_evaluations} evaluations near a singular position used damped "
                         "least squares")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


# ----------------------------------------------------------------- simulate
_OLD_METHODS = {"none": "ODE()", "baumgarte": "Baumgarte(alpha=..., beta=...)", "projection": "Projection()",
                "augmented_lagrangian": "AugmentedLagrangian(dt=...)"}


def _refuse_options(options):
    """``simulate(..., method=..., dt=...)``: say which scheme takes what."""
    if "method" in options:
        method = options["method"]
        raise MbdError(f"simulate: method={method!r} is now a scheme object: scheme="
                       f"{_OLD_METHODS.get(method, 'Projection()')} (from mbdlib import "
                       f"{_OLD_METHODS.get(method, 'Projection()').split('(')[0]})")
    key = next(iter(options))
    owners = [name for name, cls in SCHEMES.items() if key in {f for f in cls.__dataclass_fields__}]
    if owners:
        raise MbdError(f"simulate does not take {key}=: it is an option of the scheme, give it there, "
                       f"e.g. scheme={owners[0]}({key}=...)")
    raise MbdError(f"simulate does not take {key}=; its arguments are system, t_end, scheme, t_eval, t0, q0, "
                   "qd0")


def simulate(system, t_end, scheme=None, *, t_eval=None, t0=None, q0=None, qd0=None,
             **options) -> SimulationResult:
    """Integrate a system from its start state to ``t_end`` by a scheme, with monitors.

    Parameters
    ----------
    system : ConstrainedSystem
        From ``model.system()`` (or written by hand).
    t_end : float
        End time [s], after the start time.
    scheme : ODE, Baumgarte, Projection, AugmentedLagrangian, EventDriven or TimeStepping, optional
        How to integrate (:mod:`mbdlib.schemes`, each with its own options).  Default: ``Projection()``
        for a system with constraints, ``ODE()`` for one without; a system with contacts needs
        ``EventDriven()`` or ``TimeStepping()`` (or :func:`mbdlib.contact.hunt_crossley` first).
    t_eval : array_like, optional
        Output times, increasing, inside ``[t0, t_end]`` (default: every step).
    t0 : float, optional
        Start time (default ``system.t0``).
    q0, qd0 : array_like, shape (n,), optional
        Start state (default ``system.q0``, ``system.qd0``); ``q0`` must satisfy the constraints.

    Returns
    -------
    SimulationResult

    Notes
    -----
    The ODE-type schemes integrate the index-1 ODE y = (q, q̇) with an adaptive scipy solver stepped
    by hand; ``Projection`` replaces the solver's state after each accepted step by its projection
    (:func:`project_positions`, then :func:`project_velocities`), and projects interpolated ``t_eval``
    outputs too.  All three solve the KKT system by the range-space method (with ``J M⁻¹ Jᵀ`` in band
    storage when ``system.structure`` offers it) and stop with a :class:`SingularityError` at redundant
    constraints or singular positions, unless ``Projection(singular="damp")`` carries them through
    singular positions: it cannot tell which branch the exact motion takes at a bifurcation and follows
    the one the step lands on, so check the result.  On the IFToMM A02 N-four-bar in Cartesian
    coordinates it stays within 1e-5 m of the exact motion for N = 2, 5 and 40 (``tests/test_a02.py``).

    ``AugmentedLagrangian`` uses fixed steps ≤ ``dt`` that land on every ``t_eval`` time; with
    ``adaptive=True`` it chooses them (≤ ``dt``) by the local error of the trapezoidal rule,
    ``h² (q̈_{n+1} − q̈_n) / 12`` (Zienkiewicz & Xie 1991), against ``atol + rtol |q|``.  In Cartesian
    coordinates with revolute joints its matrix ``M + α' JᵀJ`` is kept in band storage and factored once
    per step (O(n)).  The matrix is positive definite whatever the rank of J; near a singular position
    it defers part of Φ (``deferred_steps``; :class:`mbdlib._integrators.SingularPassage`).

    Examples
    --------
    >>> p = cartesian_pendulum(angle=1.0)
    >>> drift = simulate(p, 2.0, ODE(rtol=1e-6, atol=1e-6))
    >>> fixed = simulate(p, 2.0, Projection(rtol=1e-6, atol=1e-6))
    >>> bool(fixed.violation.max() < 1e-12 < 1e-8 < drift.violation.max())
    True
    """
    if options:
        _refuse_options(options)
    system = as_system(system, "simulate")
    if scheme is None:
        scheme = Projection() if system.rows else ODE()
    if scheme is None and system.contacts:
        scheme = EventDriven()
    if not isinstance(scheme, ODE | Baumgarte | Projection | AugmentedLagrangian | EventDriven
                      | TimeStepping):
        hint = (f" (method={scheme!r} is now scheme={_OLD_METHODS[scheme]})" if isinstance(scheme, str)
                and scheme in _OLD_METHODS else "")
        raise MbdError(f"simulate: scheme must be ODE(...), Baumgarte(...), Projection(...), "
                       f"AugmentedLagrangian(...), EventDriven(...) or TimeStepping(...) from "
                       f"mbdlib.schemes, got {scheme!r}{hint}")
    contact_scheme = isinstance(scheme, EventDriven | TimeStepping)
    if system.contacts and not contact_scheme:
        names = [c.name for c in system.contacts]
        raise MbdError(f"simulate: {system.name} has unilateral contacts {names}, which {scheme} ignores: "
                       "use scheme=EventDriven() or TimeStepping(), or replace them by penalty forces, "
                       "mbdlib.contact.hunt_crossley(system, stiffness=...), and integrate that")
    t0 = system.t0 if t0 is None else t0
    if isinstance(t_end, tuple | list | np.ndarray):
        raise MbdError(f"simulate: t_end is the end time (a number), got {t_end!r}; the start time is t0= "
                       "(default: the system's t0)")
    try:
        t0, t_end = float(t0), float(t_end)
    except (TypeError, ValueError):
        raise MbdError(f"simulate: t0 and t_end must be numbers, got {t0!r} and {t_end!r}") from None
    if not (np.isfinite(t_end) and np.isfinite(t0)) or t_end <= t0:
        raise MbdError(f"simulate: t_end must be a finite time after t0 = {t0:g}, got {t_end!r}")
    q0 = system.state(system.q0 if q0 is None else q0, "q0")
    qd0 = system.state(system.qd0 if qd0 is None else qd0, "qd0")
    if scheme.name == "projection" and scheme.singular == "damp" and system.energy is None:
        raise ModelError("simulate: Projection(singular='damp') checks each singular passage by the energy; "
                         "this system has no energy function")
    phi = system.phi(q0, t0)
    if phi.size and np.max(np.abs(phi)) > 1e-6 * (1.0 + np.max(np.abs(q0))):
        worst = int(np.argmax(np.abs(phi)))
        raise ModelError(f"simulate: the start positions violate constraint {system.labels[worst]!r} by "
                         f"{phi[worst]:.3g}: start from an assembled state (model.assemble() or "
                         "model.state(...), then model.system(state))")
    for what, value in (("Q(t0, q0, qd0)", system.Q(t0, q0, qd0)), ("M(q0)", system.M(q0))):
        if not np.all(np.isfinite(value)):
            raise ModelError(f"simulate: {what} is not finite at the start state ({system.name}): check the "
                             "loads (a torque or force of inf or NaN?) and the masses")
    if t_eval is not None:
        t_eval = np.asarray(t_eval, dtype=float).ravel()
        if t_eval.size == 0 or np.any(np.diff(t_eval) <= 0) or t_eval[0] < t0 or t_eval[-1] > t_end:
            raise MbdError(f"simulate: t_eval must be increasing and inside [{t0:g}, {t_end:g}]")
    if system.contacts:
        _check_start_gaps(system, q0, scheme)
    start = time.process_time()
    if scheme.name == "event_driven":
        out = _run_event_driven(system, t0, t_end, q0, qd0, t_eval, scheme)
    elif scheme.name == "time_stepping":
        out = _run_time_stepping(system, t0, t_end, q0, qd0, t_eval, scheme)
    elif scheme.name == "augmented_lagrangian":
        out = _run_augmented_lagrangian(system, t0, t_end, q0, qd0, t_eval, scheme)
    else:
        out = _run_ode(system, t0, t_end, q0, qd0, t_eval, scheme)
    ts, qs, qds, lams, stats = out
    cpu = time.process_time() - start
    solver = {"augmented_lagrangian": "trapezoidal", "time_stepping": "Moreau–Jean"}.get(scheme.name) \
        or scheme.solver
    return _result(system, ts, qs, qds, lams, scheme, solver, stats, cpu)


def _check_start_gaps(system, q0, scheme):
    """A contact that starts interpenetrated is an error naming it (a contact scheme cannot undo it)."""
    tol = getattr(scheme, "gap_tol", 1e-8)
    for c in system.contacts:
        g = c.gap(q0)
        if g < -tol:
            raise ModelError(f"simulate: contact {c.name!r} starts interpenetrated (gap {g:.4g} m < 0): move "
                             f"the bodies apart (or {c.bodies[0]!r} to touch at gap 0) in the start state")


def _result(system, ts, qs, qds, lams, scheme, solver, stats, cpu):
    ts, qs, qds = np.asarray(ts), np.asarray(qs), np.asarray(qds)
    viol, viol_v, E, T = [], [], [], 0.0
    for t, q, qd in zip(ts, qs, qds, strict=True):
        if system.rows:
            phi = system.phi(q, t)
            vel = np.concatenate([system.phi_q(q, t) @ qd + system.phi_t(q, t), system.B(q, t) @ qd])
            viol.append(np.linalg.norm(phi))
            viol_v.append(np.linalg.norm(vel))
        E.append(np.nan if system.energy is None else system.energy(q, qd))
        T = max(T, 0.5 * qd @ system.M(q) @ qd)
    zeros = np.zeros(len(ts))
    lambdas = np.asarray(lams).reshape(len(ts), -1)
    if system.contacts:
        stats = dict(stats)
        stats["contact_labels"] = tuple(c.name for c in system.contacts)
        stats["gaps"] = np.array([[c.gap(q) for c in system.contacts] for q in qs]).reshape(len(ts), -1)
    return SimulationResult(ts, qs, qds, lambdas, np.asarray(E, dtype=float),
                            np.asarray(viol) if viol else zeros, np.asarray(viol_v) if viol else zeros,
                            scheme, solver, cpu_time=cpu, labels=system.labels,
                            coordinate_names=system.coordinate_names, kinetic_scale=T, **stats)
