"""The integrators of :func:`mbdlib.dae.simulate`: the index-1 ODE methods and the augmented Lagrangian.

``"none"``, ``"baumgarte"`` and ``"projection"`` step the ODE ``y = (q, q̇)`` with a scipy solver,
``y' = (q̇, q̈(q, q̇))`` from :func:`mbdlib._kkt._solve`; ``"augmented_lagrangian"`` steps the index-3
equations with the trapezoidal rule.  Each returns ``(ts, qs, qds, lambdas, stats)`` for
:class:`mbdlib.dae.SimulationResult`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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


def _run_ode(system, t0, t_end, q0, qd0, t_eval, method, solver_cls, rtol, atol, alpha, beta, damp=False):
    """Index-1 ODE y = (q, q̇) stepped by a scipy OdeSolver; projection after each accepted step."""
    n, nfev = system.n, [0]
    project = method == "projection"
    newton = [0, 0]

    bs = _banded(system)
    damped = [0] if damp else None
    _solve(system, t0, q0, qd0, alpha, beta, bs)                 # a singular start stops, damped or not

    def rhs(t, y):
        nfev[0] += 1
        qdd, _ = _solve(system, t, y[:n], y[n:], alpha, beta, bs, damped)
        return np.concatenate([y[n:], qdd])

    scale, seen = [abs(system.energy(q0, qd0))], [0]

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
            f"simulate(singular='damp'): after passing a singular position at t = {t:.6g} the projection "
            f"changed the energy by {change:.1e} of its scale (the limit is {DAMPED_ENERGY_TOL:g}): the "
            "damped steps may have left the branch of the motion. Use method='augmented_lagrangian', or "
            "smaller rtol and atol.")


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

    Fixed steps ≤ dt on a grid through every output time.
    """
    M = system.M(q0)
    alpha = float(penalty) if penalty is not None else 1e3 * float(np.max(np.diag(M))) / dt**2
    if not alpha > 0:
        raise MbdError(f"simulate: the penalty must be positive, got {penalty!r}")
    qdd, lam = _al_accelerations(system, t0, q0, qd0, alpha)
    m = len(system.phi(q0, t0))
    state = _ALState(q0.copy(), qd0.copy(), qdd, lam[:m].copy(), lam[m:].copy(), M, _jacobian(system, q0, t0))
    stepper = _ALStepper(system, alpha, m, tol, max_newton, dt)
    h_grid, is_out = _time_grid(t0, t_end, t_eval, dt)
    ts, qs, qds, lams = [], [], [], []
    if is_out[0]:
        _record(stepper, state, t0, ts, qs, qds, lams, dt, lam)
    for t, t1, record in zip(h_grid[:-1], h_grid[1:], is_out[1:], strict=True):
        state = stepper.step(state, t, t1 - t)
        if record:
            _record(stepper, state, t1, ts, qs, qds, lams, t1 - t)
    return ts, qs, qds, lams, stepper.stats(len(h_grid) - 1)


@dataclass
class _ALState:
    """The state after a step: q, q̇, q̈, the multipliers λ* and σ, and M, J at q."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    lam_star: np.ndarray
    sigma: np.ndarray
    M: np.ndarray
    J: np.ndarray


class _ALStepper:
    """One trapezoidal step of the augmented Lagrangian (see :func:`_run_augmented_lagrangian`)."""

    def __init__(self, system, alpha, m, tol, max_newton, dt):
        self.system, self.alpha, self.m, self.tol = system, alpha, m, tol
        self.max_newton, self.dt = max_newton, dt
        self.constant_M = hasattr(system, "M_diagonal")  # Cartesian coordinates: M does not depend on q
        self.nfev = self.total_it = self.max_it = self.deferred = 0
        self._P, self._P_h = None, None

    def stats(self, n_steps):
        return dict(nfev=self.nfev, newton_iterations=self.total_it, max_newton_iterations=self.max_it,
                    n_steps=n_steps, deferred_steps=self.deferred)

    def step(self, s: _ALState, t, h) -> _ALState:
        """Newton on the equilibrium at t + h, then the projections of q̇ and q̈; ``s`` is not changed."""
        system, alpha, m, tol = self.system, self.alpha, self.m, self.tol
        t1 = t + h
        a_pen, a_v = alpha * h * h / 4.0, alpha * h / 2.0
        # tangent at the last converged state (modified Newton): the last step's, if h is the same
        P = self._P if self._P_h == h else _cho(s.M + a_pen * s.J.T @ s.J)
        lam_star, sigma = s.lam_star.copy(), s.sigma.copy()
        qd_hat = (2.0 / h) * s.q + s.qd
        qdd_hat = (4.0 / h**2) * s.q + (4.0 / h) * s.qd + s.qdd
        x = s.q + h * s.qd + 0.5 * h * h * s.qdd       # predictor
        step_prev, W = np.inf, None
        for it in range(1, self.max_newton + 1):
            v, a = (2.0 / h) * x - qd_hat, (4.0 / h**2) * x - qdd_hat
            phi, Phi_q, B = system.phi(x, t1), system.phi_q(x, t1), system.B(x, t1)
            gv = B @ v
            if it > 1:
                dlam = alpha * phi
                lam_star += dlam if W is None else dlam - W @ (W.T @ dlam)
                sigma += a_v * gv
            Q = system.Q(t1, x, v)
            Mx = s.M if self.constant_M else system.M(x)  # the equilibrium at t_{n+1} needs M(q_{n+1})
            self.nfev += 1
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
                    self.deferred += 1
            step_prev = step
        else:
            raise MbdError(f"simulate (augmented_lagrangian): Newton did not converge in {self.max_newton} "
                           f"iterations at t = {t1:g} (last correction {step:.3g}); reduce dt (now "
                           f"{self.dt:g}) or change the penalty (now {alpha:g})")
        self.total_it += it
        self.max_it = max(self.max_it, it)
        q = x
        qd_star, qdd_star = (2.0 / h) * q - qd_hat, (4.0 / h**2) * q - qdd_hat
        M, J = system.M(q), _jacobian(system, q, t1)
        P = _cho(M + a_pen * J.T @ J)
        phi_t = np.concatenate([system.phi_t(q, t1), np.zeros(J.shape[0] - m)])
        qd = _al_project(P, M, J, qd_star, -phi_t, a_pen)
        g = np.concatenate([system.gamma(q, qd, t1), system.b_gamma(q, qd, t1)])
        qdd = _al_project(P, M, J, qdd_star, g, a_pen)
        self._P, self._P_h = P, h                       # the next step of the same size reuses it
        return _ALState(q, qd, qdd, lam_star, sigma, M, J)


def _record(stepper, s: _ALState, t, ts, qs, qds, lams, h, lam=None):
    """Append one output point; the multipliers are λ* + α Φ and σ + α_v B q̇ (or ``lam`` at the start)."""
    system, alpha = stepper.system, stepper.alpha
    ts.append(t)
    qs.append(s.q.copy())
    qds.append(s.qd.copy())
    lams.append(lam.copy() if lam is not None else
                np.concatenate([s.lam_star + alpha * system.phi(s.q, t),
                                s.sigma + alpha * h / 2.0 * (system.B(s.q, t) @ s.qd)]))


def _weak_directions(Phi_q, a_pen, M):
    """Left singular vectors of Φ_q that the penalty cannot enforce within one step, shape (m, r).

    A residual of Φ along a left singular vector u_i is removed by the penalty at the rate
    α' σ_i² / (mass): where α' σ_i² < 10 · max(diag M) (and for σ_i = 0) it only creeps.
    """
    U, s, _ = np.linalg.svd(Phi_q, full_matrices=True)
    s = np.concatenate([s, np.zeros(U.shape[1] - s.size)])
    return U[:, a_pen * s**2 < 10.0 * np.max(np.diag(M))]


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
