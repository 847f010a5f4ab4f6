"""How :func:`mbdlib.simulate` integrates a system: one small object per scheme, with its own options.

=========================  =====================================================================
scheme                     what it integrates
=========================  =====================================================================
``ODE(...)``               the index-1 ODE ``y = (q, q̇)`` as it is: the unconstrained equations,
                           or the KKT accelerations with no cure for drift (the drift is there
                           to be seen)
``Baumgarte(alpha, beta)`` ``Φ_q q̈ = γ − 2α Φ̇ − β² Φ`` (Baumgarte 1972)
``Projection(...)``        the index-1 ODE, positions and velocities projected onto the
                           constraints after every accepted step (mass-weighted least change)
``AugmentedLagrangian``    the index-3 equations, trapezoidal rule, penalty and multiplier
                           updates, mass-orthogonal projections (Bayo, García de Jalón & Serna
                           1988; Bayo & Ledesma 1996)
``EventDriven(...)``       a system with unilateral contacts: smooth phases between located
                           events (impacts, lift-off, stick–slip), the mode chosen by a
                           complementarity problem (Pfeiffer & Glocker 1996)
``TimeStepping(dt)``       a system with unilateral contacts: Moreau–Jean steps, impulses from
                           one complementarity problem per step (Moreau 1988; Jean 1999)
=========================  =====================================================================

A scheme takes only its own options and checks them when it is made::

    >>> Projection(rtol=1e-6)
    Projection(solver='DOP853', rtol=1e-06, atol=1e-09, singular='stop')
    >>> AugmentedLagrangian(dt=1e-3, solver="RK45")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mbdlib.errors.MbdError: AugmentedLagrangian does not take solver=: it is an option of ODE, ...
"""

from __future__ import annotations

import dataclasses
import functools

from .errors import MbdError

__all__ = ["ODE", "Baumgarte", "Projection", "AugmentedLagrangian", "EventDriven", "TimeStepping", "SCHEMES",
           "SOLVERS"]

#: The scipy integrators an ODE-type scheme can use.
SOLVERS = ("DOP853", "RK45", "RK23", "Radau")
SCHEMES: dict = {}


def _positive(cls, name, value, allow_none=False):
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < float("inf"):
        raise MbdError(f"{cls}: {name} must be a positive number, got {value!r}")


def _scheme(cls):
    """A frozen, keyword-only dataclass whose constructor names the scheme an unknown option belongs to."""
    cls = dataclasses.dataclass(frozen=True, kw_only=True)(cls)
    SCHEMES[cls.__name__] = cls
    init = cls.__init__

    @functools.wraps(init)
    def checked_init(self, *args, **options):
        if args:
            fields = [f.name for f in dataclasses.fields(cls)]
            raise MbdError(f"{cls.__name__} takes its options by name: {cls.__name__}({fields[0]}=...); "
                           f"its options are {', '.join(fields)}")
        own = {f.name for f in dataclasses.fields(cls)}
        for key in options:
            if key not in own:
                elsewhere = [name for name, other in SCHEMES.items()
                             if key in {f.name for f in dataclasses.fields(other)}]
                where = f": it is an option of {', '.join(elsewhere)}" if elsewhere else ""
                raise MbdError(f"{cls.__name__} does not take {key}={where}. {cls.__name__}'s options are "
                               f"{', '.join(f.name for f in dataclasses.fields(cls))}")
        init(self, **options)

    cls.__init__ = checked_init
    return cls


class _ODEOptions:
    def __str__(self) -> str:
        extra = f"α = {self.alpha:g}, β = {self.beta:g} 1/s; " if self.name == "baumgarte" else ""
        damp = "; singular='damp'" if getattr(self, "singular", "stop") == "damp" else ""
        return f"{type(self).__name__} ({extra}{self.solver}, rtol {self.rtol:g}, atol {self.atol:g}{damp})"

    def _check_ode(self):
        name = type(self).__name__
        if self.solver not in SOLVERS:
            raise MbdError(f"{name}: unknown solver {self.solver!r}; choose one of {SOLVERS}")
        _positive(name, "rtol", self.rtol)
        _positive(name, "atol", self.atol)


@_scheme
class ODE(_ODEOptions):
    """The index-1 ODE ``y = (q, q̇)``, ``q̈`` from the KKT system, stepped by a scipy solver.

    For a system without constraints this is simply its equations of motion.  With constraints
    nothing holds ``Φ`` or ``Φ̇`` at zero: they drift, which is what this scheme is for (chapter 3).

    Parameters
    ----------
    solver : {"DOP853", "RK45", "RK23", "Radau"}
    rtol, atol : float
        The solver's tolerances.
    """

    solver: str = "DOP853"
    rtol: float = 1e-9
    atol: float = 1e-9
    name = "ode"

    def __post_init__(self):
        self._check_ode()


@_scheme
class Baumgarte(_ODEOptions):
    """Baumgarte's stabilization (1972): ``Φ_q q̈ = γ − 2α Φ̇ − β² Φ`` (and ``b_γ − 2α B q̇``).

    Parameters
    ----------
    alpha, beta : float
        The gains [1/s] (≥ 0); ``alpha = beta`` damps the drift critically.
    solver, rtol, atol
        As in :class:`ODE`.
    """

    alpha: float = 5.0
    beta: float = 5.0
    solver: str = "DOP853"
    rtol: float = 1e-9
    atol: float = 1e-9
    name = "baumgarte"

    def __post_init__(self):
        self._check_ode()
        for key in ("alpha", "beta"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < float("inf"):
                raise MbdError(f"Baumgarte: {key} must be a finite number ≥ 0 [1/s], got {value!r}")


@_scheme
class Projection(_ODEOptions):
    """The index-1 ODE with positions and velocities projected onto the constraints after every step.

    Parameters
    ----------
    solver, rtol, atol
        As in :class:`ODE`.
    singular : {"stop", "damp"}
        At a singular position, where ``S = J M⁻¹ Jᵀ`` loses rank: ``"stop"`` raises a
        :class:`~mbdlib.errors.SingularityError` naming the rows; ``"damp"`` solves ``S + μ I`` there
        instead (damped least squares, μ = 1e-10 · max(diag S); Nakamura & Hanafusa 1986), in the
        accelerations and in the projections, and stops if a projection after such a passage has to
        change the energy (the passage left the branch of the motion).  See :func:`mbdlib.simulate`.
    """

    solver: str = "DOP853"
    rtol: float = 1e-9
    atol: float = 1e-9
    singular: str = "stop"
    name = "projection"

    def __post_init__(self):
        self._check_ode()
        if self.singular not in ("stop", "damp"):
            raise MbdError(f"Projection: singular must be 'stop' or 'damp', got {self.singular!r}")


@_scheme
class AugmentedLagrangian:
    """The index-3 augmented Lagrangian with the trapezoidal rule (see :mod:`mbdlib._integrators`).

    Parameters
    ----------
    dt : float
        The step [s] (steps ≤ dt that land on every output time), or with ``adaptive`` the first and
        largest step.  The default 5e-4 s meets the IFToMM A02 benchmark for N = 2 in Cartesian,
        relative and mixed coordinates (``tests/test_a02.py``).
    penalty : float, optional
        The penalty factor; default ``1e3 · max(diag M) / dt²`` (with ``adaptive``, the same for each
        step h).
    adaptive : bool
        Choose the steps by the local error estimate of the trapezoidal rule against ``rtol`` and
        ``atol`` (Zienkiewicz & Xie 1991).  Not the default: at a singular position the error is not
        a local error of the rule.
    rtol, atol : float, optional
        The tolerances of ``adaptive`` (default 1e-9 each); refused without it.
    newton_tol : float
        Newton stops when the change of the accelerations it implies, ``(4/h²) ‖Δq‖∞``, is below
        ``newton_tol (1 + ‖q̈‖∞)``.
    max_newton : int
        Newton iterations per step.
    """

    dt: float = 5e-4
    penalty: float | None = None
    adaptive: bool = False
    rtol: float | None = None
    atol: float | None = None
    newton_tol: float = 1e-6
    max_newton: int = 50
    name = "augmented_lagrangian"

    def __str__(self) -> str:
        steps = f"steps ≤ {self.dt:g} s, rtol {self.rtol:g}, atol {self.atol:g}" if self.adaptive \
            else f"dt {self.dt:g} s"
        return f"AugmentedLagrangian ({steps}" + (f", penalty {self.penalty:g})" if self.penalty else ")")

    def __post_init__(self):
        _positive("AugmentedLagrangian", "dt", self.dt)
        _positive("AugmentedLagrangian", "penalty", self.penalty, allow_none=True)
        _positive("AugmentedLagrangian", "newton_tol", self.newton_tol)
        if not isinstance(self.adaptive, bool):
            raise MbdError(f"AugmentedLagrangian: adaptive must be True or False, got {self.adaptive!r}")
        if not self.adaptive and (self.rtol is not None or self.atol is not None):
            raise MbdError("AugmentedLagrangian: rtol and atol choose the steps of adaptive=True; with fixed "
                           "steps the accuracy is set by dt (give adaptive=True, or leave rtol and atol out)")
        if self.adaptive:
            object.__setattr__(self, "rtol", 1e-9 if self.rtol is None else self.rtol)
            object.__setattr__(self, "atol", 1e-9 if self.atol is None else self.atol)
            _positive("AugmentedLagrangian", "rtol", self.rtol)
            _positive("AugmentedLagrangian", "atol", self.atol)
        if isinstance(self.max_newton, bool) or not isinstance(self.max_newton, int) or self.max_newton < 1:
            raise MbdError(f"AugmentedLagrangian: max_newton must be a whole number ≥ 1, "
                           f"got {self.max_newton!r}")


def _check_choice(cls, name, value, choices):
    if value not in choices:
        raise MbdError(f"{cls}: {name} must be one of {choices}, got {value!r}")


@_scheme
class EventDriven(_ODEOptions):
    """Event-driven integration of a system with unilateral contacts (Pfeiffer & Glocker 1996).

    Between events the smooth equations of the current *mode* are integrated (``solve_ivp`` with a
    scipy solver): the closed contacts hold ``g̈ = 0`` with a normal force, the sticking ones also hold
    their tangential velocity, the sliding ones feel ``−μ λ_n`` against their sliding direction.  The
    events are located to the solver's tolerance: a gap closing (an impact, by ``law``), a normal force
    reaching zero (lift-off), friction reaching the cone (stick → slip), a sliding speed reaching zero
    (slip → stick); after each, the mode is chosen by the complementarity problem of the accelerations.

    Parameters
    ----------
    solver, rtol, atol
        As in :class:`ODE` (tolerances of the smooth phases and of the event times).
    law : {"newton", "poisson"}
        The impact law (:func:`mbdlib.contact.impact`).
    method : {"lemke", "pgs"}
        The complementarity solver.
    rest_speed : float
        An impact slower than this (normal approach speed [m/s]) is made plastic: the contact closes.  This
        is how a Zeno accumulation of impacts (a bouncing ball) ends: see :func:`mbdlib.simulate`.
    gap_tol : float
        A gap below this [m] counts as closed.
    max_events : int
        More events than this raise an error (the scheme would chatter).
    """

    solver: str = "DOP853"
    rtol: float = 1e-10
    atol: float = 1e-10
    law: str = "newton"
    method: str = "lemke"
    rest_speed: float = 1e-3
    gap_tol: float = 1e-8
    max_events: int = 20000
    name = "event_driven"

    def __str__(self) -> str:
        return (f"EventDriven ({self.law} impacts, {self.solver}, rtol {self.rtol:g}, atol {self.atol:g}, "
                f"rest speed {self.rest_speed:g} m/s)")

    def __post_init__(self):
        self._check_ode()
        _check_choice("EventDriven", "law", self.law, ("newton", "poisson"))
        _check_choice("EventDriven", "method", self.method, ("lemke", "pgs"))
        _positive("EventDriven", "rest_speed", self.rest_speed)
        _positive("EventDriven", "gap_tol", self.gap_tol)
        if isinstance(self.max_events, bool) or not isinstance(self.max_events, int) or self.max_events < 1:
            raise MbdError(f"EventDriven: max_events must be a whole number ≥ 1, got {self.max_events!r}")


@_scheme
class TimeStepping:
    """Moreau–Jean time stepping: velocities by impulses, one complementarity problem per step.

    Each step of length ``dt`` (Moreau 1988, "midpoint" rule; Jean 1999): ``q_m = q_k + (h/2) q̇_k``; the
    contacts with ``g(q_m) ≤ 0`` are active; ``M (q̇_{k+1} − q̇_k) = h Q(t_m, q_m, q̇_k) + Hᵀ P − Jᵀ Λ``
    with the bilateral joints at the velocity level (``J q̇_{k+1} = −Φ_t``) and the contact impulses P from
    ``0 ≤ P_n ⊥ u_n⁺ + e u_n⁻ ≥ 0`` and Coulomb's law on ``u_t⁺``; then ``q_{k+1} = q_m + (h/2) q̇_{k+1}``,
    projected onto the bilateral constraints (and onto ``g = 0`` where a gap was left negative).  The
    restitution acts at impacts only: a contact already active in the step before, or approaching no faster
    than one step of the smooth forces makes it, is plastic (otherwise a ball at rest would bounce by
    ``e g h`` at every step).  No event is located: impacts, lift-off, stick–slip and an
    accumulation of impacts are all one kind of step, first order in time.

    Parameters
    ----------
    dt : float
        The step [s].
    method : {"lemke", "pgs"}
        The complementarity solver.
    project : bool
        Project the positions onto the bilateral constraints after each step (and the velocities).
    """

    dt: float = 1e-3
    method: str = "lemke"
    project: bool = True
    name = "time_stepping"

    def __str__(self) -> str:
        return f"TimeStepping (Moreau–Jean, dt {self.dt:g} s, {self.method})"

    def __post_init__(self):
        _positive("TimeStepping", "dt", self.dt)
        _check_choice("TimeStepping", "method", self.method, ("lemke", "pgs"))
        if not isinstance(self.project, bool):
            raise MbdError(f"TimeStepping: project must be True or False, got {self.project!r}")
