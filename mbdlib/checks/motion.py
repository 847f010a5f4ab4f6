"""Items of steps 6-7 of the checklist: statics, small motion, stabilization, a simulation's monitors.

Private helper of :mod:`mbdlib.checks`; each step function returns dicts built by
:func:`mbdlib.checks.items.item`.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import dae
from ..errors import MbdError, ModelError
from ..linalg import null_space
from ..schemes import ODE, Projection
from .items import item
from .views import ModelView, f3, vec


# ====================================================================== step 6: statics, small motion, gains
def kkt_accelerations(system, q, qd, t=0.0):
    """q̈ from the KKT system by least squares and its relative residual: a diagnostic, not the dynamics.

    The equations of motion are solved by :func:`mbdlib.dae.accelerations` (which refuses dependent
    rows); the checklist asks a different question, "is the KKT system solvable at all here?", whose
    answer for redundant but consistent constraints is yes, so it takes the least-squares solution of
    the whole KKT matrix and reports how well it satisfies the equations."""
    n = system.n
    K = dae.kkt_matrix(system, q, t)
    rhs = np.concatenate([system.Q(t, q, qd), system.gamma(q, qd, t), system.b_gamma(q, qd, t)])
    x = np.linalg.lstsq(K, rhs, rcond=None)[0]
    res = float(np.linalg.norm(K @ x - rhs)) / max(float(np.linalg.norm(rhs)), 1e-300)
    return x[:n], res if np.linalg.norm(rhs) > 0 else 0.0


def _statics(v: ModelView) -> dict:
    if v.gravity is None and v.kind == "Chain":
        return item("statics", "info", "skipped: gravity not stated (step 1)")
    t = 0.0
    if v.statics is not None:
        qdd, potential = v.statics(v.q_model)
        q, res = v.q_model, 0.0
    else:
        q = v.q
        qdd, res = kkt_accelerations(v.system, q, np.zeros(v.system.n), t)

        def potential(x):
            return v.system.energy(x, np.zeros(v.system.n))

    if res > 1e-8:
        return item(
            "statics",
            "fail",
            f"the KKT system at rest is not solvable (relative residual {f3(res)})",
            "check the constraints at this configuration (step 4) and assemble the model first",
            residual=res,
        )
    size = float(np.max(np.abs(qdd)))
    if v.force_free:
        if size > 1e-9:
            return item(
                "statics",
                "fail",
                f"no applied forces, yet q̈ = {vec(qdd)} at rest",
                "check Q: with no gravity, springs or loads it must vanish at rest",
                qdd_max=size,
            )
        return item("statics", "pass", "no applied forces: q̈ = 0 at rest", qdd_max=size)
    if size <= 1e-9 * max(1.0, float(np.max(np.abs(q)))):
        return item("statics", "pass", "in static equilibrium: q̈ = 0 at rest", qdd_max=size)
    d = qdd / np.linalg.norm(qdd)
    eps = 1e-6 * max(1.0, float(np.max(np.abs(q))))
    dV = (potential(q + eps * d) - potential(q - eps * d)) / (2 * eps)
    detail = f"KKT solvable at rest; |q̈| = {f3(np.linalg.norm(qdd))}; dV/ds along q̈ = {f3(dV)} J per unit"
    if not v.conservative:
        return item("statics", "info", detail + f" (not judged: {v.nonconservative})", dV=dV)
    scale = abs(potential(q + eps * d) - potential(q)) / eps + abs(potential(q)) * 1e-9 + 1e-12
    if dV < 0:
        return item("statics", "pass", detail + ": the potential energy decreases", dV=dV)
    if abs(dV) <= 1e-6 * scale:
        return item(
            "statics",
            "warn",
            detail + ": the potential energy does not change",
            "check that the forces in Q derive from the energy function",
            dV=dV,
        )
    return item(
        "statics",
        "fail",
        detail + ": the potential energy increases — the mechanism "
        "starts to move against the forces that the energy function describes",
        "sign of gravity or of a force? Q and the energy disagree: check the sign of gravity in Q, "
        "or of the force elements",
        dV=dV,
    )


def tangent_basis(system, q):
    """An orthonormal basis of the admissible velocities at q (the null space of [Φ_q; B])."""
    return null_space(np.vstack([system.phi_q(q, 0.0), system.B(q, 0.0)]))


def natural_frequency(v: ModelView) -> float:
    """The fastest rate of the mechanism's own motion [rad/s], in the tangent coordinates z (q = q0 + N z).

    The largest of: the eigenvalues of the motion linearized on the constraint manifold
    (``z̈ ≈ A_q z + A_v ż``, by central differences), ``sqrt(|z̈|)`` (the time scale of a start from
    rest, e.g. a horizontal pendulum, where the linearized stiffness vanishes) and ``|ż|``.
    """
    s = v.system
    N = tangent_basis(s, v.q)
    d = N.shape[1]
    if d == 0:
        return 0.0
    qd = v.qd if len(v.qd) == s.n else np.zeros(s.n)
    rates = [np.sqrt(np.max(np.abs(N.T @ kkt_accelerations(s, v.q, qd)[0]))), np.max(np.abs(N.T @ qd))]
    eps = 1e-6 * max(1.0, float(np.max(np.abs(v.q))))
    Aq, Av = np.zeros((d, d)), np.zeros((d, d))
    for k in range(d):
        for A, dq, dv in ((Aq, eps * N[:, k], 0.0), (Av, 0.0, eps * N[:, k])):
            plus = kkt_accelerations(s, v.q + dq, qd + dv)[0]
            minus = kkt_accelerations(s, v.q - dq, qd - dv)[0]
            A[:, k] = N.T @ (plus - minus) / (2 * eps)
    lam = np.linalg.eigvals(np.block([[np.zeros((d, d)), np.eye(d)], [Aq, Av]]))
    return float(max(np.max(np.abs(lam)), *rates))


def _stabilization(v: ModelView, alpha, beta, step, result) -> dict:
    alpha = beta if alpha is None else alpha
    beta = alpha if beta is None else beta
    alpha, beta = float(alpha), float(beta)
    if not (alpha >= 0 and beta >= 0):
        raise ModelError(f"check_model: alpha and beta must be non-negative numbers, got {alpha!r}, {beta!r}")
    if v.system.phi_q(v.q, 0.0).shape[0] == 0:
        return item(
            "stabilization",
            "info",
            f"α = {f3(alpha)}, β = {f3(beta)}: no constraint equations, nothing to stabilize",
            alpha=alpha,
            beta=beta,
        )
    poles = np.roots([1.0, 2 * alpha, beta**2])  # s² + 2α s + β² = 0
    s_max = float(np.max(np.abs(poles)))
    decay = float(np.min(-poles.real))
    omega = natural_frequency(v)
    h = (
        step
        if step is not None
        else (result.t[-1] - result.t[0]) / max(result.n_steps, 1)
        if result is not None and hasattr(result, "n_steps")
        else None
    )
    suggest = max(1.0, 5 * omega)
    if h:
        suggest = min(suggest, 1.0 / h)
    values = dict(alpha=alpha, beta=beta, poles=poles, s_max=s_max, omega=omega, h=h, suggest=suggest)
    detail = (
        f"α = {f3(alpha)}, β = {f3(beta)}: poles of s² + 2αs + β² at |s| ≤ {f3(s_max)} 1/s; fastest "
        f"motion of the mechanism {f3(omega)} rad/s"
        + (f"; step h = {f3(h)} s, |s| h = {f3(s_max * h)}" if h else "")
    )
    fix = f"use α = β ≈ {f3(suggest)} 1/s (a few times the mechanism's fastest motion, below 1/h)"
    if h and s_max * h > 2:
        return item(
            "stabilization",
            "warn",
            detail + ": an explicit Runge-Kutta step is limited by the stiffness of the stabilization",
            fix,
            **values,
        )
    if omega > 0 and s_max > 100 * omega:
        return item(
            "stabilization",
            "warn",
            detail + f": the poles are {f3(s_max / omega)} times "
            "faster than the mechanism (stiff: explicit solvers need h < 2/|s|)",
            fix,
            **values,
        )
    if omega > 0 and decay < 0.1 * omega:
        return item(
            "stabilization",
            "warn",
            detail + ": the drift is corrected far more slowly than the mechanism moves",
            fix,
            **values,
        )
    return item("stabilization", "pass", detail, **values)


def _small_displacement(v: ModelView, statics_status: str, singular: bool) -> dict:
    s = v.system
    if getattr(s, "contacts", ()):                 # the smooth equations: contacts are checked in step 3
        s = dataclasses.replace(s, contacts=())
    if singular:
        return item(
            "small_displacement",
            "info",
            "skipped: redundant constraints or a singular "
            "configuration (step 4); the index-1 solvers need independent constraints",
        )
    N = tangent_basis(s, v.q)
    rng = np.random.default_rng(0)
    qd = np.asarray(v.qd, dtype=float) if len(v.qd) == s.n else np.zeros(s.n)
    if N.shape[1]:
        dv = N @ rng.standard_normal(N.shape[1])
        qd = qd + 0.01 * dv / np.max(np.abs(dv))
    try:
        qd = dae.project_velocities(s, v.q, qd) if s.phi_q(v.q, 0.0).shape[0] else qd
        r = dae.simulate(s, v.horizon, Projection(rtol=v.rtol, atol=v.rtol), q0=v.q, qd0=qd)
    except MbdError as exc:
        return item(
            "small_displacement",
            "fail",
            f"the simulation failed: {exc}",
            "fix the items above; then simulate a short time from rest",
            error=str(exc),
        )
    viol = float(max(r.violation.max(), r.violation_velocity.max()))
    err = r.energy_error
    detail = (
        f"{f3(v.horizon)} s from a perturbed state (rtol {f3(v.rtol)}): max ‖Φ‖, ‖Φ̇‖ = {f3(viol)}, "
        f"relative energy error {f3(err)}, {r.n_steps} steps"
    )
    values = dict(violation=viol, energy_error=err, n_steps=r.n_steps)
    if viol > 1e-8:
        return item(
            "small_displacement",
            "fail",
            detail,
            "check γ and Φ_q of the constraints (the projection cannot hold Φ = 0)",
            **values,
        )
    if not v.conservative:
        return item(
            "small_displacement", "pass", detail + f" (energy not judged: {v.nonconservative})", **values
        )
    if statics_status == "fail":
        return item("small_displacement", "pass", detail + " (energy not judged: see statics)", **values)
    if _energy_status(err) != "pass":
        return item(
            "small_displacement",
            _energy_status(err),
            detail + ": energy is not conserved",
            "check that Q derives from the energy (gravity, springs) and that nothing dissipates",
            **values,
        )
    return item("small_displacement", "pass", detail, **values)


def step6(v: ModelView, small_displacement, alpha, beta, step, result) -> list:
    out = [_statics(v)]
    d = v.extra.get("dof", {})
    if small_displacement:
        if v.gravity is None and v.kind == "Chain":
            out.append(item("small_displacement", "info", "skipped: gravity not stated (step 1)"))
        else:
            out.append(
                _small_displacement(v, out[0]["status"], bool(d.get("redundant") or d.get("singular")))
            )
    if alpha is not None or beta is not None:
        out.append(_stabilization(v, alpha, beta, step, result))
    return out


# ====================================================================== step 7: a simulation
def step7(v: ModelView, result, alpha, beta) -> list:
    if not isinstance(result, dae.SimulationResult):
        raise ModelError(
            f"check_model: result must be a mbdlib.SimulationResult (from mbdlib.simulate), "
            f"got {type(result).__name__}"
        )
    if v.kind == "FourBarArm":
        return _step7_fourbar(v, result)
    T = float(result.t[-1] - result.t[0])
    viol, viol_v = float(result.violation.max()), float(result.violation_velocity.max())
    what = f"{result.scheme.name} ({result.solver})"
    detail = f"{what}, {f3(T)} s: max ‖Φ‖ = {f3(viol)}, max ‖Φ̇‖ = {f3(viol_v)}"
    if max(viol, viol_v) > 1e-6:
        out = [
            item(
                "violation",
                "fail",
                detail + " > 1e-6",
                "use Projection() / lower rtol / Baumgarte (Projection() holds Φ = 0 to 1e-12)",
                violation=viol,
                violation_velocity=viol_v,
            )
        ]
    else:
        out = [item("violation", "pass", detail, violation=viol, violation_velocity=viol_v)]
    out.append(_energy_item(v, result.energy_error, what))
    out.append(_effort(v, result, alpha, beta))
    return out


def _energy_status(err: float) -> str:
    """A conservative model's relative energy error: pass up to 1e-4, warn up to 1e-2, else fail."""
    return "pass" if err <= 1e-4 else "warn" if err <= 1e-2 else "fail"


def _energy_item(v: ModelView, err: float, what: str) -> dict:
    detail = f"relative energy error {f3(err)} ({what})"
    if not v.conservative:
        return item("energy", "info", detail + f"; not judged: {v.nonconservative}", energy_error=err)
    if _energy_status(err) != "pass":
        return item(
            "energy",
            _energy_status(err),
            detail + " of a conservative model",
            "lower rtol/atol, or check that Q derives from the energy function",
            energy_error=err,
        )
    return item("energy", "pass", detail, energy_error=err)


def _effort(v: ModelView, result, alpha, beta) -> dict:
    T = float(result.t[-1] - result.t[0])
    per_s = result.nfev / T if T > 0 else float("nan")
    detail = (
        f"{result.n_steps} steps, {f3(per_s)} function evaluations per simulated second, "
        f"{result.newton_iterations} Newton iterations (max {result.max_newton_iterations} per step)"
    )
    values = dict(n_steps=result.n_steps, nfev_per_second=per_s, newton=result.newton_iterations)
    scheme = result.scheme
    if scheme.name != "baumgarte" or T <= 0:
        return item("solver_effort", "info", detail, **values)
    a = scheme.alpha if alpha is None else alpha
    b = scheme.beta if beta is None else beta
    a, b = (b if a is None else a), (a if b is None else b)
    h = T / max(result.n_steps, 1)
    s_max = float(np.max(np.abs(np.roots([1.0, 2 * a, b**2])))) if a is not None else 0.0
    ref = dae.simulate(
        v.system,
        result.t[-1],
        ODE(solver=scheme.solver, rtol=scheme.rtol, atol=scheme.atol),
        t0=result.t[0],
        q0=result.q[0],
        qd0=result.qd[0],
    )
    ratio = result.n_steps / max(ref.n_steps, 1)
    values.update(reference_steps=ref.n_steps, ratio=ratio, s_h=s_max * h)
    detail += f"; without stabilization {ref.n_steps} steps (ratio {f3(ratio)}); |s| h = {f3(s_max * h)}"
    if ratio >= 10 or s_max * h >= 0.5:
        return item(
            "solver_effort",
            "warn",
            detail + ": the step is limited by the Baumgarte gain",
            f"lower α, β (now {f3(a)}, {f3(b)}) to a few times the mechanism's fastest motion, or use "
            "Projection()",
            **values,
        )
    return item("solver_effort", "pass", detail, **values)


def _step7_fourbar(v: ModelView, r) -> list:
    arm = v.model
    out = [
        item(
            "violation",
            "pass",
            "the loop is closed in closed form at every "
            "step (passive angles from the active ones): no drift in q = (q1, q2)",
            violation=0.0,
            violation_velocity=0.0,
        )
    ]
    T = [
        0.5 * qd @ arm.mass_matrix(q) @ qd
        for q, qd in zip(r.q[:: max(1, len(r.t) // 20)], r.qd[:: max(1, len(r.t) // 20)], strict=True)
    ]
    scale = max(abs(float(r.energy[0])), max(T), 1e-300)
    err = float(np.max(np.abs(r.energy - r.energy[0]))) / scale
    out.append(_energy_item(v, err, "closed-chain Kane, DOP853"))
    dur = float(r.t[-1] - r.t[0])
    out.append(
        item(
            "solver_effort",
            "info",
            f"{r.nfev} function evaluations, {f3(r.nfev / dur if dur else 0)} per simulated second",
            nfev=r.nfev,
        )
    )
    return out
