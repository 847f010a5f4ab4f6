"""The integrators of :func:`mbdlib.simulate`: the index-1 ODE schemes and the augmented Lagrangian.

:class:`~mbdlib.schemes.ODE`, :class:`~mbdlib.schemes.Baumgarte` and :class:`~mbdlib.schemes.Projection`
step the ODE ``y = (q, q̇)`` with a scipy solver, ``y' = (q̇, q̈(q, q̇))`` from :func:`mbdlib._kkt._solve`;
:class:`~mbdlib.schemes.AugmentedLagrangian` steps the index-3 equations with the trapezoidal rule
(:class:`_ALStepper`: the textbook step), and what it does near a singular position is kept apart, in
:class:`SingularPassage`, with its constants named.  Each returns ``(ts, qs, qds, lambdas, stats)`` for
:class:`mbdlib.dae.SimulationResult`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import DOP853, RK23, RK45, Radau

from ._banded import BandedSchur
from ._kkt import (
    _al_accelerations,
    _banded,
    _cho,
    _cho_solve,
    _jacobian,
    _solve,
    project_positions,
    project_velocities,
)
from .errors import MbdError, SingularityError
from .schemes import SOLVERS as _SOLVER_NAMES

SOLVERS = dict(zip(_SOLVER_NAMES, (DOP853, RK45, RK23, Radau), strict=True))


def _run_ode(system, t0, t_end, q0, qd0, t_eval, scheme):
    """Index-1 ODE y = (q, q̇) stepped by a scipy OdeSolver; projection after each accepted step."""
    n, nfev = system.n, [0]
    project = scheme.name == "projection"
    damp = project and scheme.singular == "damp"
    alpha, beta = (scheme.alpha, scheme.beta) if scheme.name == "baumgarte" else (0.0, 0.0)
    solver_cls, rtol, atol = SOLVERS[scheme.solver], scheme.rtol, scheme.atol
    newton = [0, 0]

    bs = _banded(system)
    damped = [0] if damp else None
    _solve(system, t0, q0, qd0, alpha, beta, bs)                 # a singular start stops, damped or not

    def rhs(t, y):
        nfev[0] += 1
        qdd, _ = _solve(system, t, y[:n], y[n:], alpha, beta, bs, damped)
        return np.concatenate([y[n:], qdd])

    scale, seen = [abs(system.energy(q0, qd0)) if damp else 0.0], [0]

    def projected(t, y):
        q, it = project_positions(system, y[:n], t, damp=damp)
        newton[0] += it
        newton[1] = max(newton[1], it)
        qd = project_velocities(system, q, y[n:], t, damp=damp)
        if damp:
            _check_damped_passage(system, t, y, q, qd, scale, seen, damped[0])
        return np.concatenate([q, qd])

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
                           f"(scheme {scheme}); try AugmentedLagrangian() or a stiff solver (solver='Radau')")
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
    lams = [_solve(system, t, y[:n], y[n:], alpha, beta, bs, damped)[1] for t, y in zip(ts, ys, strict=True)]
    stats = dict(nfev=nfev[0], newton_iterations=newton[0], max_newton_iterations=newton[1], n_steps=steps)
    return ts, ys[:, :n], ys[:, n:], lams, stats | ({"damped_evaluations": damped[0]} if damp else {})


DAMPED_ENERGY_TOL = 3e-8  # singular="damp": largest energy change of one projection after damped evaluations


def _check_damped_passage(system, t, y, q, qd, scale, seen, count):
    """Stop when a projection that follows damped evaluations changes the energy by more than
    ``DAMPED_ENERGY_TOL`` of its scale (``max(|E(0)|, ½ q̇ᵀ M q̇)`` so far).

    The projections move the state by little more than the integrator's error, so they hardly change
    the energy; a step through a singular position that ended on another branch of the motion needs a
    large correction.  Measured on the IFToMM A02 N-four-bar: 3e-9 where the motion stayed on its branch
    (Cartesian coordinates, N = 40), 3e-6 and 8e-5 where it left it (relative coordinates, N = 5 and 2);
    the limit sits between.
    """
    n = system.n
    scale[0] = max(scale[0], 0.5 * qd @ system.M(q) @ qd)
    if count == seen[0]:
        return
    seen[0] = count
    change = abs(system.energy(q, qd) - system.energy(y[:n], y[n:])) / max(scale[0], 1e-300)
    if change > DAMPED_ENERGY_TOL:
        raise SingularityError(
            f"simulate (Projection(singular='damp')): after passing a singular position at t = {t:.6g} the "
            f"projection changed the energy by {change:.1e} of its scale (the limit is "
            f"{DAMPED_ENERGY_TOL:g}): the damped steps may have left the branch of the motion. Use "
            "scheme=AugmentedLagrangian(), or smaller rtol and atol.")


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


#: Default penalty of the augmented Lagrangian: α h²/4 = PENALTY_SCALE · max(diag M) (α = 4e9 for unit masses
#: and h = 5e-4 s; the 1e7 of Bayo et al. goes with steps near 1e-2 s).
PENALTY_SCALE = 250.0
#: Error-controlled steps: safety factor, and the bounds of one step's change (Hairer, Nørsett & Wanner 1993,
#: §II.4, for the controller).
SAFETY, SHRINK_MIN, GROW_MAX = 0.9, 0.2, 2.0
EPS = np.finfo(float).eps


def _run_augmented_lagrangian(system, t0, t_end, q0, qd0, t_eval, scheme):
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

    Fixed steps ≤ dt on a grid through every output time, α from dt; or, ``adaptive``, steps chosen by
    the local error of the trapezoidal rule, estimated as Zienkiewicz & Xie (1991) do for Newmark's
    method, ``e = (β − 1/6) h² (q̈_{n+1} − q̈_n) = h² (q̈_{n+1} − q̈_n) / 12``, in the RMS norm scaled by
    ``atol + rtol |q|`` (as scipy's solvers do): a step with norm > 1 is taken again, shorter; the next
    step is ``h · min(2, max(0.2, 0.9 norm^(−1/3)))`` (Hairer, Nørsett & Wanner 1993, §II.4), at most dt
    (dt is also the first try), and ends on every output time.  The default penalty then follows h
    (α' = 250 max(diag M) whatever the step), so the matrix P of one step serves the next one too.

    Near a singular position the estimate also sees the part of Φ that was deferred (see ``simulate``)
    come back as a jump of q, which no shorter step removes (it enters q̇ as 2 δq / h and q̈ as
    4 δq / h²).  The estimate leaves out the motions along the weak directions' right singular vectors,
    and a step whose estimate does not fall when it is shortened is accepted at its first, longest try
    (``jump_steps``).  The error made at such a passage is therefore not controlled by rtol and atol.
    """
    dt, penalty, adaptive = scheme.dt, scheme.penalty, scheme.adaptive
    M = system.M(q0)
    mass = float(np.max(np.diag(M)))
    penalty0 = float(penalty) if penalty is not None else 4.0 * PENALTY_SCALE * mass / dt**2
    if not adaptive or penalty is not None:
        def penalty_of(h):
            return penalty0
    else:
        def penalty_of(h):
            return 4.0 * PENALTY_SCALE * mass / h**2
    qdd, lam = _al_accelerations(system, t0, q0, qd0, penalty0)
    m = len(system.phi(q0, t0))
    ops = _al_ops(system, q0, t0)
    state = _ALState(q0.copy(), qd0.copy(), qdd, lam[:m].copy(), lam[m:].copy(), ops.mass(q0),
                     ops.jac(q0, t0), penalty0)
    stepper = _ALStepper(system, m, scheme.newton_tol, scheme.max_newton, dt, ops, SingularPassage())
    if not adaptive:
        ts, qs, qds, lams = [], [], [], []
        h_grid, is_out = _time_grid(t0, t_end, t_eval, dt)
        if is_out[0]:
            _record(system, state, t0, ts, qs, qds, lams, dt, lam)
        for t, t1, record in zip(h_grid[:-1], h_grid[1:], is_out[1:], strict=True):
            state = stepper.step(state, t, t1 - t, penalty0)
            if record:
                _record(system, state, t1, ts, qs, qds, lams, t1 - t)
        return ts, qs, qds, lams, stepper.stats(len(h_grid) - 1)
    return _run_adaptive(system, stepper, state, lam, t0, t_end, t_eval, dt, penalty_of, scheme.rtol,
                         scheme.atol)


def _run_adaptive(system, stepper, state, lam, t0, t_end, t_eval, dt, penalty_of, rtol, atol):
    """The error-controlled loop of :func:`_run_augmented_lagrangian` (see its docstring)."""
    ts, qs, qds, lams = [], [], [], []
    marks = np.asarray([t_end] if t_eval is None else t_eval, dtype=float)
    k = 0
    if t_eval is None or t_eval[0] == t0:
        _record(system, state, t0, ts, qs, qds, lams, dt, lam)
        k = 0 if t_eval is None else 1
    t, h, steps, rejected, kept, tried = t0, float(dt), 0, 0, 0, None
    h_min = 1e-12 * max(1.0, abs(t_end), abs(t0))
    while k < marks.size:
        goal = marks[k]
        h_try = min(h, dt)
        rest = goal - t
        lands = h_try >= rest - 1e-12 * max(1.0, abs(goal))
        if lands:
            h_try = rest
        elif h_try > 0.5 * rest:                             # two halves rather than a sliver at the end
            h_try = 0.5 * rest
        jumped = False
        try:
            new = stepper.step(state, t, h_try, penalty_of(h_try))
        except _NewtonFailed:
            err = np.inf
        else:
            err = _error_norm(state, new, h_try, stepper.passage.weak_motion, rtol, atol)
        if err > 1.0 and np.isfinite(err) and tried is not None and h_try <= 0.7 * tried[0] \
                and err >= 0.5 * tried[1]:
            # shorter, yet no smaller: not the rule's error (∝ h³) but a jump of q that no step removes (the
            # part of Φ deferred at a singular position, enforced again).  The first, longest try is kept:
            # the jump δq enters q̇ as 2 δq / h and q̈ as 4 δq / h², least with the longest step
            kept, jumped = kept + 1, True
            h_try, err, new, lands = tried
        elif err > 1.0:                                      # rejected: try again, shorter
            rejected += 1
            if tried is None and np.isfinite(err):
                tried = (h_try, err, new, lands)             # the first try at this t
            factor = SHRINK_MIN if not np.isfinite(err) else max(SHRINK_MIN, SAFETY * err ** (-1.0 / 3.0))
            h = h_try * factor
            if h < h_min:
                raise MbdError(f"simulate (AugmentedLagrangian): the step fell below {h_min:.1e} s at "
                               f"t = {t:.6g} (rtol {rtol:g}, atol {atol:g}); loosen rtol and atol, or "
                               "use AugmentedLagrangian(adaptive=False) with a small dt")
            continue
        steps, tried = steps + 1, None
        t, state = (goal if lands else t + h_try), new
        if lands or t_eval is None:
            _record(system, state, t, ts, qs, qds, lams, h_try)
        k += lands
        if jumped:                                           # (a shorter step would not have helped)
            grow = 1.0
        else:
            grow = GROW_MAX if err == 0.0 else min(GROW_MAX, max(SHRINK_MIN, SAFETY * err ** (-1.0 / 3.0)))
        # a step shortened only to land on an output time does not shorten the next one
        h = max(h, h_try * grow) if lands else h_try * grow
    return ts, qs, qds, lams, stepper.stats(steps) | {"rejected_steps": rejected, "jump_steps": kept}


def _error_norm(s, new, h, weak, rtol, atol):
    """RMS of ``h² (q̈_{n+1} − q̈_n) / 12`` over ``atol + rtol |q|``, without its part along the right
    singular vectors ``weak`` (the motions a weak direction's correction makes: :func:`_weak_directions`)."""
    e = (h**2 / 12.0) * (new.qdd - s.qdd)
    if weak is not None:
        e = e - weak @ (weak.T @ e)
    scale = atol + rtol * np.maximum(np.abs(s.q), np.abs(new.q))
    return float(np.sqrt(np.mean((e / scale) ** 2)))


class _NewtonFailed(MbdError):
    """Newton of one augmented-Lagrangian step did not converge (error control shortens the step)."""


@dataclass
class _ALState:
    """The state after a step: q, q̇, q̈, the multipliers λ* and σ, and M, J at q (as the stepper's
    linear algebra stores them: dense arrays, or a diagonal and the non-zeros of a fixed pattern)."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    lam_star: np.ndarray
    sigma: np.ndarray
    M: np.ndarray
    J: np.ndarray
    penalty: float        # the penalty factor α of the step that ended here


class _DenseOps:
    """M, J = [Φ_q; B] and P = M + α' JᵀJ as dense arrays, P by Cholesky (any system)."""

    def __init__(self, system):
        self.system = system

    def mass(self, q):
        return self.system.M(q)

    def jac(self, q, t):
        return _jacobian(self.system, q, t)

    def factor(self, M, J, a_pen):
        return _cho(M + a_pen * J.T @ J)

    def solve(self, P, b):
        return _cho_solve(P, b)

    def mul(self, M, x):
        return M @ x

    def jmul(self, J, x):
        return J @ x

    def jtmul(self, J, y):
        return J.T @ y

    def dense(self, J):
        return J

    def project(self, P, M, J, x_star, target, a_pen):
        return _al_project(self, P, M, J, x_star, target, a_pen)


class _BandOps(_DenseOps):
    """Cartesian coordinates with a fixed sparse Φ_q and no B rows (``system.structure``): M is its diagonal,
    J the non-zeros of Φ_q, and ``P = M + α' JᵀJ`` lives in band storage (reverse Cuthill–McKee order, the
    pattern of JᵀJ) and is factored by LAPACK's band Cholesky: O(n) work per step on a chain of bodies,
    where the dense P costs O(n³)."""

    def __init__(self, system, bs):
        super().__init__(system)
        self.bs = bs
        self.band = BandedSchur(bs.cols, bs.rows, bs.n, bs.m)     # Jᵀ's pattern: Jᵀ diag(α') J + diag(M)

    def mass(self, q):
        return self.system.structure.mass_diagonal()

    def jac(self, q, t):
        return self.system.structure.jacobian_values(q, t)

    def factor(self, M, J, a_pen):
        self.band.factor(J, np.full(self.bs.m, a_pen), diag=M)
        return self.band._chol

    def solve(self, P, b):
        return self.band.solve(b, P)

    def mul(self, M, x):
        return M * x

    def jmul(self, J, x):
        return self.bs.matvec(J, x)

    def jtmul(self, J, y):
        return self.bs.rmatvec(J, y)

    def project(self, P, M, J, x_star, target, a_pen):
        """The mass-orthogonal projection in closed form, ``x* − M⁻¹Jᵀ S⁻¹ (J x* − target)`` with the band
        Cholesky of ``S = J M⁻¹ Jᵀ``, where S is well conditioned (``SingularPassage.CLOSED_FORM_RATIO``:
        one solve instead of the iteration); near a singular position, the iteration of
        :func:`_al_project`."""
        w = 1.0 / M
        ok, ratio = self.bs.factor(J, w)
        if ok and ratio > SingularPassage.CLOSED_FORM_RATIO:
            return x_star - w * self.bs.rmatvec(J, self.bs.solve(self.bs.matvec(J, x_star) - target))
        return super().project(P, M, J, x_star, target, a_pen)

    def dense(self, J):
        out = np.zeros((self.bs.m, self.bs.n))
        out[self.bs.rows, self.bs.cols] = J
        return out


def _al_ops(system, q0, t0):
    """The band path where it applies (see :class:`_BandOps`), else the dense one."""
    bs, st = _banded(system), system.structure
    if bs is not None and st.mass_diagonal is not None and system.k == 0:
        return _BandOps(system, bs)
    return _DenseOps(system)


class SingularPassage:
    """What the augmented Lagrangian does near a singular position, apart from its textbook step.

    At a singular position the part of Φ along a left singular vector of Φ_q with a tiny singular value
    can only be reduced at second order: the multiplier update keeps pushing along it and Newton
    creeps.  When the corrections of iteration :data:`CREEP_START` or later shrink by less than
    :data:`CREEP_RATIO`, the multiplier update along the weak directions (:func:`_weak_directions`,
    :data:`WEAK_FACTOR`) stops for the rest of the step; the multiplier keeps its value there (setting
    it to zero would remove a real constraint force, which cost a factor of 7 in accuracy on the IFToMM
    A02 benchmark).  Later steps, away from the singular position, enforce those rows again.  On the
    band path the projections of q̇ and q̈ are taken in closed form only while the smallest pivot of
    ``S = J M⁻¹ Jᵀ`` is above :data:`CLOSED_FORM_RATIO` of its largest diagonal entry.

    The constants were tuned on IFToMM A02 (the N-four-bar through its flat pose; ``tests/test_a02.py``).
    """

    #: Newton iteration from which slow progress counts as creeping.
    CREEP_START = 4
    #: A correction that is not below this share of the previous one creeps.
    CREEP_RATIO = 0.5
    #: A direction u_i is weak when α' σ_i² < WEAK_FACTOR · max(diag M): the penalty cannot enforce it in
    #: one step.
    WEAK_FACTOR = 10.0
    #: Band path: closed-form projections above this pivot ratio of S.  Nearer a singular position the
    #: iteration, which leaves the weak directions alone: on A02 (N = 2) the closed form down to
    #: KKT_TOL² = 1e-10 kicked the linkage onto the other branch (2 m error); with 1e-4 the motion is the
    #: iteration's (8.2e-4 m), 15 % faster.
    CLOSED_FORM_RATIO = 1e-4

    def __init__(self):
        self.deferred = 0           # steps in which part of Φ was deferred
        self.start_step()

    def start_step(self):
        self.W = None               # weak left singular vectors of this step (their update stopped)
        self.weak_motion = None     # right singular vectors of the weak directions met in this step
        self.step_prev = np.inf

    def update(self, dlam):
        """The multiplier update ``α Φ`` without its part along the weak directions."""
        return dlam if self.W is None else dlam - self.W @ (self.W.T @ dlam)

    def observe(self, it, step, jacobian, a_pen, M, m):
        """After Newton iteration ``it`` with correction ``step`` (not converged): detect creeping
        (``jacobian()``: the dense J; ``M``: the mass matrix, or its diagonal)."""
        if it >= self.CREEP_START and self.W is None and step >= self.CREEP_RATIO * self.step_prev and m:
            mass = float(np.max(M if np.ndim(M) == 1 else np.diag(M)))
            W, V = _weak_directions(jacobian()[:m], a_pen, mass, self.WEAK_FACTOR)
            self.W = W
            self.weak_motion = V if V.shape[1] else None
            if W.shape[1]:
                self.deferred += 1
        self.step_prev = step


class _ALStepper:
    """One trapezoidal step of the augmented Lagrangian (see :func:`_run_augmented_lagrangian`); the
    behaviour near a singular position is the :class:`SingularPassage` it is given."""

    def __init__(self, system, m, tol, max_newton, dt, ops, passage):
        self.system, self.m, self.tol, self.ops, self.passage = system, m, tol, ops, passage
        self.max_newton, self.dt = max_newton, dt
        st = system.structure                                    # Cartesian coordinates: constant M
        self.constant_M = st is not None and st.mass_diagonal is not None
        self.nfev = self.total_it = self.max_it = 0
        self._P, self._P_a = None, None

    def stats(self, n_steps):
        return dict(nfev=self.nfev, newton_iterations=self.total_it, max_newton_iterations=self.max_it,
                    n_steps=n_steps, deferred_steps=self.passage.deferred)

    def step(self, s: _ALState, t, h, penalty) -> _ALState:
        """Newton on the equilibrium at t + h with penalty α, then the projections of q̇ and q̈; ``s`` is
        not changed."""
        system, m, tol, ops, passage = self.system, self.m, self.tol, self.ops, self.passage
        t1 = t + h
        a_pen, a_v = penalty * h * h / 4.0, penalty * h / 2.0
        # tangent at the last converged state (modified Newton): the last step's, if α' is the same
        P = self._P if self._P_a == a_pen else ops.factor(s.M, s.J, a_pen)
        lam_star, sigma = s.lam_star.copy(), s.sigma.copy()
        qd_hat = (2.0 / h) * s.q + s.qd
        qdd_hat = (4.0 / h**2) * s.q + (4.0 / h) * s.qd + s.qdd
        x = s.q + h * s.qd + 0.5 * h * h * s.qdd       # predictor
        passage.start_step()
        for it in range(1, self.max_newton + 1):
            v, a = (2.0 / h) * x - qd_hat, (4.0 / h**2) * x - qdd_hat
            Q = system.Q(t1, x, v)                     # first: a model that caches its kinematics at
            phi, J = system.phi(x, t1), ops.jac(x, t1)  # (q, q̇) serves Φ and J from the same pass
            gv = ops.jmul(J, v)[m:]                     # B q̇
            if it > 1:
                lam_star += passage.update(penalty * phi)
                sigma += a_v * gv
            Mx = s.M if self.constant_M else ops.mass(x)  # the equilibrium at t_{n+1} needs M(q_{n+1})
            self.nfev += 1
            forces = np.concatenate([penalty * phi + lam_star, a_v * gv + sigma])
            f = (h * h / 4.0) * (ops.mul(Mx, a) + ops.jtmul(J, forces) - Q)
            if it > 2:                                 # slow: refresh the tangent (full Newton)
                P = ops.factor(Mx, J, a_pen)
            dq = -ops.solve(P, f)
            x = x + dq
            step = np.max(np.abs(dq))                  # (4/h²) Δq is the change of q̈
            if (4.0 * step / h**2 <= tol * (1.0 + np.max(np.abs(a)))
                    or step <= 8.0 * EPS * (1.0 + np.max(np.abs(x)))):   # (round-off, for short steps)
                break
            passage.observe(it, step, lambda J=J: ops.dense(J), a_pen, Mx, m)
        else:
            raise _NewtonFailed(f"simulate (AugmentedLagrangian): Newton did not converge in "
                                f"{self.max_newton} iterations at t = {t1:g} (last correction {step:.3g}); "
                                f"reduce dt (now {self.dt:g}) or change the penalty (now {penalty:g})")
        self.total_it += it
        self.max_it = max(self.max_it, it)
        q = x
        qd_star, qdd_star = (2.0 / h) * q - qd_hat, (4.0 / h**2) * q - qdd_hat
        M, J = ops.mass(q), ops.jac(q, t1)
        P = ops.factor(M, J, a_pen)
        k = lam_star.size + sigma.size - m
        phi_t = np.concatenate([system.phi_t(q, t1), np.zeros(k)])
        qd = ops.project(P, M, J, qd_star, -phi_t, a_pen)
        g = np.concatenate([system.gamma(q, qd, t1), system.b_gamma(q, qd, t1)])
        qdd = ops.project(P, M, J, qdd_star, g, a_pen)
        self._P, self._P_a = P, a_pen                   # the next step with the same α' reuses it
        return _ALState(q, qd, qdd, lam_star, sigma, M, J, penalty)


def _record(system, s: _ALState, t, ts, qs, qds, lams, h, lam=None):
    """Append one output point; the multipliers are λ* + α Φ and σ + α_v B q̇ (or ``lam`` at the start)."""
    penalty = s.penalty
    ts.append(t)
    qs.append(s.q.copy())
    qds.append(s.qd.copy())
    lams.append(lam.copy() if lam is not None else
                np.concatenate([s.lam_star + penalty * system.phi(s.q, t),
                                s.sigma + penalty * h / 2.0 * (system.B(s.q, t) @ s.qd)]))


def _weak_directions(Phi_q, a_pen, mass, factor):
    """Left singular vectors of Φ_q that the penalty cannot enforce within one step, shape (m, r), and
    the right singular vectors of the non-zero ones among them, shape (n, r').

    A residual of Φ along a left singular vector u_i is removed by the penalty at the rate
    α' σ_i² / (mass): where α' σ_i² < factor · max(diag M) (and for σ_i = 0) it only creeps, and the
    correction, when it comes, moves q along v_i.
    """
    U, s, Vt = np.linalg.svd(Phi_q, full_matrices=True)
    weak = a_pen * s**2 < factor * mass
    left = np.concatenate([weak, np.ones(U.shape[1] - s.size, dtype=bool)])
    return U[:, left], Vt[: s.size][weak].T


def _al_project(ops, P, M, J, x_star, target, a_pen, tol=1e-12, max_iter=50):
    """Mass-orthogonal projection of x* onto J x = target (Bayo & Ledesma 1996), iterated.

    Minimizes ½ (x − x*)ᵀ M (x − x*) + ½ α' ‖J x − target‖² with multiplier updates
    ``μ ← μ + α' (J x − target)`` until ``J x = target``: ``P x = M x* + α' Jᵀ target − Jᵀ μ``.
    """
    if target.size == 0:
        return x_star
    mu = np.zeros(target.size)
    rhs = ops.mul(M, x_star) + a_pen * ops.jtmul(J, target)
    scale = 1.0 + np.linalg.norm(target) + np.linalg.norm(ops.jmul(J, x_star))
    for _ in range(max_iter):
        x = ops.solve(P, rhs - ops.jtmul(J, mu))
        res = ops.jmul(J, x) - target
        if np.linalg.norm(res) <= tol * scale:
            break
        mu += a_pen * res
    return x
