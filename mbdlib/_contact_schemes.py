"""The contact schemes of :func:`mbdlib.simulate`: event-driven integration and Moreau–Jean time stepping.

:class:`~mbdlib.schemes.EventDriven` integrates the smooth motion of one *mode* at a time (which contacts
are closed, which of those stick, which slide) with ``scipy.integrate.solve_ivp`` and its events, and
switches modes at the events (Pfeiffer & Glocker 1996): an impact (:func:`mbdlib.contact.impact`), a lift-off,
a transition between sticking and sliding.  The new mode is the solution of the complementarity problem
of the accelerations (:func:`_choose_mode`).  :class:`~mbdlib.schemes.TimeStepping` takes fixed steps
with one complementarity problem of impulses per step (Moreau 1988; Jean 1999).  Both return
``(ts, qs, qds, lambdas, stats)`` like :mod:`mbdlib._integrators`, with the contact data in ``stats``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from ._integrators import _time_grid
from ._kkt import _solve, project_positions, project_velocities
from .contact import _impact, delassus
from .errors import MbdError
from .lcp import LCPError, solve_contact
from .linalg import cho as _cho
from .linalg import cho_solve as _cho_solve
from .linalg import schur_cholesky, weighted_least_change

OPEN, STICK, SLIDE = "open", "stick", "slide"
#: A normal relative velocity below this [m/s] counts as zero when a contact closes (after a plastic impact).
CLOSING_SPEED = 1e-7
#: A sliding speed below this [m/s] counts as zero (the contact may stick).
STICKING_SPEED = 1e-7


@dataclass(frozen=True)
class ZenoRecord:
    """A contact put to rest after an accumulation of impacts (see :func:`mbdlib.simulate`).

    Attributes
    ----------
    contact : str
    t_rest : float
        The time of the last impact, made plastic because it was slower than ``rest_speed``.
    t_accumulation : float or None
        The accumulation point the last three impacts predict, ``t_k + Δ r / (1 − r)`` (Δ the last flight,
        r the ratio of the last two), when the flights shrink; None otherwise.
    impacts : int
        Impacts of this contact up to then.
    """

    contact: str
    t_rest: float
    t_accumulation: float | None
    impacts: int


# ====================================================================== the dynamics of a mode
def _response(system, q, t, F):
    """``N F``: the change of q̈ (or q̇) that forces (impulses) along the columns of F cause when the
    bilateral constraints hold; and the bilateral-only q̈ is computed by :func:`mbdlib._kkt._solve`."""
    Mc = _cho(system.M(q))
    MiF = _cho_solve(Mc, F)
    J = np.vstack([system.phi_q(q, t), system.B(q, t)])
    if J.shape[0]:
        MiJt = _cho_solve(Mc, J.T)
        L = schur_cholesky(J @ MiJt)
        if L is None:
            raise MbdError(f"{system.name}: the bilateral constraints are singular here (t = {t:g}); contact "
                           "schemes need independent joints")
        MiF = MiF - MiJt @ _cho_solve((L, True), J @ MiF)
    return MiF


@dataclass
class _Mode:
    """Which contacts are closed, and of those which stick; a sliding contact's direction (dim,)."""

    state: list          # per contact: OPEN, STICK or SLIDE
    direction: dict      # contact index -> unit sliding direction (of u_t)

    def closed(self):
        return [i for i, s in enumerate(self.state) if s != OPEN]

    def describe(self, contacts):
        return ", ".join(f"{c.name}: {s}" for c, s in zip(contacts, self.state, strict=True))


def _sliding_direction(mode, i, k, qd):
    """The unit direction of sliding: of the current ``u_t`` (in space it turns as the contact slides), or the
    mode's when the speed is too small to give one."""
    if qd is not None:
        ut = k.Wt @ qd
        speed = float(np.linalg.norm(ut))
        if speed > STICKING_SPEED:
            return ut / speed
    return mode.direction[i]


def _force_columns(contacts, kins, mode, indices, qd=None):
    """Columns of the contact forces of the closed contacts (normal, with the sliding friction folded in),
    rows H (normals, then the sticking tangents), biases, and the tangents' owners."""
    n_cols, t_cols, n_rows, t_rows, bias_n, bias_t, owners = [], [], [], [], [], [], []
    for i in indices:
        c, k = contacts[i], kins[i]
        col = k.Wn.copy()
        if mode.state[i] == SLIDE:
            col -= c.friction * (k.Wt.T @ _sliding_direction(mode, i, k, qd))
        n_cols.append(col)
        n_rows.append(k.Wn)
        bias_n.append(k.bn)
        if mode.state[i] == STICK and c.friction > 0:
            t_cols.extend(k.Wt)
            t_rows.extend(k.Wt)
            bias_t.extend(k.bt)
            owners.append(i)
    return n_cols, t_cols, n_rows, t_rows, bias_n, bias_t, owners


def _mode_accelerations(system, t, q, qd, mode, kins=None):
    """q̈, the bilateral multipliers, the normal forces of the closed contacts (n_c,) and the tangent forces
    of the sticking ones (dict index → (dim,)) in a mode: ``M q̈ = Q − Jᵀ λ + F x``, ``J q̈ = γ``,
    ``W_n q̈ = −b_n`` (closed), ``W_t q̈ = −b_t`` (sticking).  Where the contact rows are dependent (a block
    standing on two corners with friction at both: statically indeterminate) q̈ is still unique and the
    forces are the least-squares (smallest) ones."""
    contacts = system.contacts
    closed = mode.closed()
    qdd0, lam = _solve(system, t, q, qd)
    if not closed:
        return qdd0, lam, {}, {}
    kins = kins or [c.kinematics(q, qd) for c in contacts]
    n_cols, t_cols, n_rows, t_rows, bn, bt, owners = _force_columns(contacts, kins, mode, closed, qd)
    F = np.array(n_cols + t_cols).T
    H = np.array(n_rows + t_rows)
    NF = _response(system, q, t, F)
    A = H @ NF
    rhs = -np.array(bn + bt) - H @ qdd0
    x, _, rank, _ = np.linalg.lstsq(A, rhs, rcond=1e-10)   # rank < rows: a statically indeterminate support
    if np.linalg.norm(A @ x - rhs) > 1e-8 * (1.0 + np.linalg.norm(rhs)):
        raise MbdError(f"{system.name} at t = {t:g}: the contacts of the mode ({mode.describe(contacts)}) "
                       "cannot all hold (their rows contradict each other); use TimeStepping()")
    qdd = qdd0 + NF @ x
    # the bilateral multipliers of the whole motion: J q̈ = γ holds; λ from M q̈ + Jᵀ λ = Q + F x
    if lam.size:
        J = np.vstack([system.phi_q(q, t), system.B(q, t)])
        resid = system.Q(t, q, qd) + F @ x - system.M(q) @ qdd
        lam = np.linalg.lstsq(J.T, resid, rcond=None)[0]
    normal = dict(zip(closed, x[:len(closed)], strict=True))
    dim = contacts[0].dim
    tangent = {i: x[len(closed) + dim * k: len(closed) + dim * (k + 1)] for k, i in enumerate(owners)}
    return qdd, lam, normal, tangent


def _choose_mode(system, t, q, qd, candidates, method):
    """The mode after an event: the complementarity problem of the accelerations of the candidate contacts
    (closed, not separating): ``0 ≤ λ_n ⊥ g̈ ≥ 0``, and for those not sliding Coulomb's law on the tangential
    acceleration (Pfeiffer & Glocker 1996, ch. 6).  Sliding candidates keep ``−μ λ_n`` along their sliding
    direction.  A problem without solution here is Painlevé's paradox (raised, naming the contacts)."""
    contacts = system.contacts
    state, direction = [OPEN] * len(contacts), {}
    if not candidates:
        return _Mode(state, direction)
    kins = [c.kinematics(q, qd) for c in contacts]
    trial = _Mode(list(state), {})
    for i in candidates:
        ut = kins[i].Wt @ qd
        speed = float(np.linalg.norm(ut))
        if speed > STICKING_SPEED:                          # sliding (with μ = 0 the label does not matter)
            trial.state[i], trial.direction[i] = SLIDE, ut / speed
        else:
            trial.state[i] = STICK
    n_cols, t_cols, n_rows, t_rows, bn, bt, owners = _force_columns(contacts, kins, trial, candidates)
    F = np.array(n_cols + t_cols).T
    H = np.array(n_rows + t_rows)
    qdd0, _ = _solve(system, t, q, qd)
    A = H @ _response(system, q, t, F)
    b = H @ qdd0 + np.array(bn + bt)
    mu = np.array([contacts[i].friction for i in candidates])
    fr = np.array([i in owners for i in candidates])
    sol = None
    for how in (method, "pgs" if method == "lemke" else "lemke"):     # a degenerate support: the other one
        try:
            sol = solve_contact(A, b, mu, fr, contacts[0].dim, method=how)
            break
        except LCPError as exc:
            reason = exc
    if sol is None:
        names = [contacts[i].name for i in candidates]
        sliding = [contacts[i].name for i in candidates
                   if trial.state[i] == SLIDE and contacts[i].friction > 0]
        if sliding:
            raise MbdError(f"{system.name} at t = {t:g}: the contact forces of {names} have no solution (or "
                           f"are not unique) with {sliding} sliding: Painlevé's paradox (friction too large "
                           f"for this geometry, μ = {mu.tolist()}); lower the friction or use "
                           f"TimeStepping(), whose impulses resolve it ({reason})") from None
        raise MbdError(f"{system.name} at t = {t:g}: the contact problem of {names} has no solution either "
                       f"solver reaches ({reason}); use TimeStepping()") from None
    scale = max(1.0, float(np.max(np.abs(sol.normal), initial=0.0)))
    for k, i in enumerate(candidates):
        if sol.normal[k] <= 1e-12 * scale:
            continue                                       # the contact opens (or stays open without force)
        if trial.state[i] == SLIDE or contacts[i].friction == 0:
            state[i] = trial.state[i]
            if state[i] == SLIDE:
                direction[i] = trial.direction[i]
            continue
        lt = sol.tangent[k]
        at = sol.w[len(candidates) + contacts[0].dim * int(np.sum(fr[:k])):][:contacts[0].dim]
        on_cone = np.linalg.norm(lt) >= contacts[i].friction * sol.normal[k] * (1 - 1e-9)
        if on_cone and np.linalg.norm(at) > 1e-12 * scale:
            state[i], direction[i] = SLIDE, at / np.linalg.norm(at)
        else:
            state[i] = STICK
    return _Mode(state, direction)


# ====================================================================== event-driven
def _run_event_driven(system, t0, t_end, q0, qd0, t_eval, scheme):
    contacts, n = system.contacts, system.n
    nc = len(contacts)
    ts, ys, lams, normals, tangents = [], [], [], [], []
    impacts, zeno, history = [], [], {c.name: [] for c in contacts}
    stats = dict(nfev=0, newton_iterations=0, max_newton_iterations=0, n_steps=0)
    dim = contacts[0].dim if contacts else 1
    t, q, qd = t0, np.array(q0, dtype=float), np.array(qd0, dtype=float)

    def closing(q, qd):
        out = []
        for i, c in enumerate(contacts):
            k = c.kinematics(q)
            if k.gap <= scheme.gap_tol and k.Wn @ qd <= CLOSING_SPEED:
                out.append(i)
        return out

    def resolve(t, q, qd, hits=()):
        """Impacts at ``t`` (a gap that closed, or any closed contact still approaching), then the mode."""
        hits = {i for i in hits if contacts[i].kinematics(q).Wn @ qd < -CLOSING_SPEED}
        for _ in range(len(contacts) + 2):
            approaching = [i for i in closing(q, qd) if contacts[i].kinematics(q).Wn @ qd < -CLOSING_SPEED]
            if not (hits or approaching):
                break
            chosen = sorted(set(closing(q, qd)) | hits)
            slow = [i for i in chosen if abs(contacts[i].kinematics(q).Wn @ qd) < scheme.rest_speed]
            used = [dataclasses.replace(contacts[i], restitution=0.0) if i in slow else contacts[i]
                    for i in chosen]
            hit = _impact(system, q, qd, t, used, scheme.law, scheme.method)
            impacts.append(hit)
            qd = hit.qd_plus
            if slow:                # an accumulation ends: touching contacts that separate slowly rest too
                qd = _rest(system, t, q, qd, chosen, scheme.rest_speed)
            for i in sorted(hits | set(approaching)):
                name = contacts[i].name
                history[name].append(t)
                if i in slow:
                    zeno.append(_zeno_record(name, history[name]))
            hits = set()
        mode = _choose_mode(system, t, q, qd, closing(q, qd), scheme.method)
        return _project_mode_velocities(system, t, q, qd, mode), mode

    qd, mode = resolve(t, q, qd)
    events_at = []                                         # times of the recent events (chatter guard)
    k_out = 0 if t_eval is None else int(np.searchsorted(t_eval, t0))

    def record(tt, y, md):
        qdd, lam, normal, tangent = _mode_accelerations(system, tt, y[:n], y[n:], md)
        ts.append(tt)
        ys.append(y.copy())
        lams.append(lam)
        normals.append([normal.get(i, 0.0) for i in range(nc)])
        tg = np.zeros((nc, dim))
        for i, v in tangent.items():
            tg[i] = v
        for i in md.closed():
            if md.state[i] == SLIDE and contacts[i].friction > 0:
                k = contacts[i].kinematics(y[:n])
                tg[i] = -contacts[i].friction * normal[i] * _sliding_direction(md, i, k, y[n:])
        tangents.append(tg)

    if t_eval is None or (k_out < len(t_eval) and t_eval[k_out] == t0):
        record(t0, np.concatenate([q, qd]), mode)
        k_out += 0 if t_eval is None else 1
    n_events = 0
    spurious = set()          # gap events that fired at once on a separating contact (zero-length first step)
    while t < t_end:
        md = mode
        cache = {}

        def evaluate(tt, y, md=md, cache=cache):
            key = (tt, y.tobytes())
            if key not in cache:
                cache.clear()
                stats["nfev"] += 1
                cache[key] = _mode_accelerations(system, tt, y[:n], y[n:], md)
            return cache[key]

        def rhs(tt, y):
            return np.concatenate([y[n:], evaluate(tt, y)[0]])

        touching = {}                    # open contacts that start touching: the level their event fires at
        for i, c in enumerate(contacts):
            k = c.kinematics(q)
            if md.state[i] == OPEN and k.gap <= scheme.gap_tol:
                grazing = k.Wn @ qd <= CLOSING_SPEED or i in spurious
                touching[i] = min(k.gap, 0.0) - (1.0 if grazing else 1e-3) * scheme.gap_tol
        events = _events(system, md, evaluate, n, touching)
        sol = solve_ivp(rhs, (t, t_end), np.concatenate([q, qd]), method=scheme.solver, rtol=scheme.rtol,
                        atol=scheme.atol, events=[e for e, _ in events] or None, dense_output=True)
        if sol.status == -1:
            raise MbdError(f"simulate (EventDriven): the {scheme.solver} integrator failed at t = "
                           f"{sol.t[-1]:g} ({sol.message}); mode {md.describe(contacts)}")
        stats["n_steps"] += len(sol.t) - 1
        fired = [(te[0], k) for k, te in enumerate(sol.t_events or []) if te.size]
        t_stop = min(fired)[0] if fired else sol.t[-1]
        # outputs inside (t, t_stop]
        if t_eval is None:
            for tt, y in zip(sol.t[1:], sol.y.T[1:], strict=True):
                if tt < t_stop:
                    record(tt, y, md)
        else:
            while k_out < len(t_eval) and t_eval[k_out] <= t_stop and not (fired and t_eval[k_out] == t_stop):
                record(t_eval[k_out], sol.sol(t_eval[k_out]), md)
                k_out += 1
        y = sol.sol(t_stop) if fired else sol.y[:, -1]
        t, q, qd = t_stop, y[:n].copy(), y[n:].copy()
        _check_missed(system, scheme, t, q, md, touching)
        if not fired:
            if t_eval is None:
                record(t, y, md)
            break
        n_events += 1
        events_at.append(t)
        _chatter_guard(system, scheme, n_events, events_at, md, [events[k][1] for _, k in fired])
        which = [events[k][1] for tt, k in fired if tt <= t_stop + 1e-12 * max(1.0, abs(t_stop))]
        q = _project_mode_positions(system, t, q, md)
        gaps = [i for kind, i in which if kind == "gap"]
        spurious = {i for i in gaps if contacts[i].kinematics(q).Wn @ qd >= -CLOSING_SPEED}
        qd, mode = resolve(t, q, qd, gaps)
        if t_eval is None:
            record(t, np.concatenate([q, qd]), mode)
        elif k_out < len(t_eval) and t_eval[k_out] == t:
            record(t, np.concatenate([q, qd]), mode)
            k_out += 1
    stats["contact_normal"] = np.array(normals).reshape(len(ts), nc)
    stats["contact_tangent"] = np.array(tangents).reshape(len(ts), nc, dim)
    stats["impacts"] = impacts
    stats["zeno"] = zeno
    ys = np.asarray(ys)
    return ts, ys[:, :n], ys[:, n:], lams, stats


def _events(system, mode, evaluate, n, touching):
    """The event functions of a mode, each with what it means: ("gap", i), ("liftoff", i), ("slip", i),
    ("stop", i).  All are terminal and fire when the function falls through zero.  An open contact that
    starts the segment touching (``touching``: contact → level) fires when its gap falls through the level:
    ``gap_tol / 1000`` below its gap at the start (or zero) when it separates, ``gap_tol`` below when it
    grazes: a gap of zero at the start is not an impact."""
    out = []
    contacts = system.contacts
    for i, c in enumerate(contacts):
        if mode.state[i] == OPEN:
            shift = -touching.get(i, 0.0)

            def gap(tt, y, c=c, shift=shift):
                return c.kinematics(y[:n]).gap + shift
            out.append((gap, ("gap", i)))
        else:
            def liftoff(tt, y, i=i):
                return evaluate(tt, y)[2][i]
            out.append((liftoff, ("liftoff", i)))
            if mode.state[i] == STICK and c.friction > 0:
                def slip(tt, y, i=i, c=c):
                    _, _, normal, tangent = evaluate(tt, y)
                    return c.friction * normal[i] - float(np.linalg.norm(tangent[i]))
                out.append((slip, ("slip", i)))
            elif mode.state[i] == SLIDE and c.friction > 0:
                def stop(tt, y, i=i, c=c):
                    return float(mode.direction[i] @ (c.kinematics(y[:n]).Wt @ y[n:]))
                out.append((stop, ("stop", i)))
    for f, _ in out:
        f.terminal, f.direction = True, -1
    return out


def _check_missed(system, scheme, t, q, mode, touching):
    """An open contact deep inside at the end of a segment means an impact the events did not see."""
    for i, c in enumerate(system.contacts):
        g = c.gap(q)
        if mode.state[i] == OPEN and g < touching.get(i, 0.0) - max(1e-6, 100 * scheme.gap_tol):
            raise MbdError(f"simulate (EventDriven): contact {c.name!r} is {-g:.3g} m inside at t = {t:.6g}: "
                           "an impact was missed (the gap crossed zero within one step and came back, or the "
                           "motion grazes the surface). Use smaller rtol and atol, or TimeStepping()")


def _rest(system, t, q, qd, chosen, rest_speed):
    """After an impact slower than ``rest_speed``: the velocities projected (mass-weighted least change, which
    only removes kinetic energy) onto ``u_n = 0`` for every contact of the impact that separates slower than
    ``rest_speed``, and ``u_t = 0`` where such a contact with friction slides slower than it — a rocking
    block's corners settle together, as a ball settles on the floor."""
    slow = []
    for i in chosen:
        c, k = system.contacts[i], system.contacts[i].kinematics(q)
        if k.Wn @ qd < rest_speed:
            slow.append(k.Wn[None, :])
            if c.friction > 0 and np.linalg.norm(k.Wt @ qd) < rest_speed:      # slow sliding stops too
                slow.append(k.Wt)
    if not slow:
        return qd
    C = np.vstack([system.phi_q(q, t), system.B(q, t)] + slow)
    c = np.concatenate([-system.phi_t(q, t), np.zeros(C.shape[0] - system.m)])
    return qd + weighted_least_change(system.M(q), C, C @ qd - c)


def _zeno_record(name, times):
    t_acc = None
    if len(times) >= 3:
        d1, d2 = times[-1] - times[-2], times[-2] - times[-3]
        if d2 > 0 and 0 < d1 / d2 < 1:
            r = d1 / d2
            t_acc = float(times[-1] + d1 * r / (1 - r))
    return ZenoRecord(name, float(times[-1]), t_acc, len(times))


def _chatter_guard(system, scheme, n_events, events_at, mode, kinds):
    names = sorted({system.contacts[i].name for _, i in kinds})
    if n_events > scheme.max_events:
        raise MbdError(f"simulate (EventDriven): {n_events} events (the limit is max_events = "
                       f"{scheme.max_events}), the last at contacts {names}: the scheme would chatter. Use "
                       "TimeStepping(), raise rest_speed (impacts slower than it close the contact), or "
                       "raise max_events")
    if len(events_at) >= 200 and events_at[-1] - events_at[-200] <= 1e-9 * max(1.0, abs(events_at[-1])):
        raise MbdError(f"simulate (EventDriven): 200 events within {events_at[-1] - events_at[-200]:.2g} s "
                       f"at t = {events_at[-1]:.6g} (contacts {names}): the mode switches back and forth "
                       "without time passing, so the event-driven scheme would chatter. Use TimeStepping(), "
                       "or raise rest_speed")


def _project_mode_positions(system, t, q, mode, tol=1e-12, max_iter=20):
    """Project q onto ``Φ = 0`` and ``g = 0`` of the closed contacts (mass-weighted least change, Newton)."""
    return _project_gaps(system, t, q, mode.closed(), tol, max_iter)


def _project_gaps(system, t, q, closed, tol=1e-12, max_iter=20):
    """Project q onto ``Φ = 0`` and ``g_i = 0`` for the contacts ``closed`` (mass-weighted, Newton)."""
    if system.m == 0 and not closed:
        return q
    M = system.M(q)
    for _ in range(max_iter):
        kins = [system.contacts[i].kinematics(q) for i in closed]
        r = np.concatenate([system.phi(q, t), [k.gap for k in kins]])
        if r.size == 0 or np.max(np.abs(r)) <= tol:
            break
        C = np.vstack([system.phi_q(q, t)] + [k.Wn[None, :] for k in kins])
        q = q + weighted_least_change(M, C, r)
    return q


def _project_mode_velocities(system, t, q, qd, mode):
    """Project q̇ onto the bilateral velocity constraints, ``W_n q̇ = 0`` (closed) and ``W_t q̇ = 0``
    (sticking)."""
    closed = mode.closed()
    if not closed:
        return project_velocities(system, q, qd, t) if system.rows else qd
    kins = {i: system.contacts[i].kinematics(q) for i in closed}
    rows = [system.phi_q(q, t), system.B(q, t)] + [kins[i].Wn[None, :] for i in closed]
    rows += [kins[i].Wt for i in closed if mode.state[i] == STICK and system.contacts[i].friction > 0]
    C = np.vstack(rows)
    c = np.concatenate([-system.phi_t(q, t), np.zeros(C.shape[0] - system.m)])
    return qd + weighted_least_change(system.M(q), C, C @ qd - c)


# ====================================================================== Moreau–Jean
def _run_time_stepping(system, t0, t_end, q0, qd0, t_eval, scheme):
    contacts = system.contacts
    nc = len(contacts)
    dim = contacts[0].dim if contacts else 1
    grid, out = _time_grid(t0, t_end, t_eval, scheme.dt)
    q, v = np.array(q0, dtype=float), np.array(qd0, dtype=float)
    zero_n, zero_t = np.zeros(nc), np.zeros((nc, dim))
    ts, qs, vs, lams, normals, tangents = [], [], [], [], [], []
    newton = [0, 0]
    lam_dummy = np.zeros(system.rows)
    work = 0.0
    was_active = set()
    if out[0]:
        ts.append(t0), qs.append(q.copy()), vs.append(v.copy()), lams.append(lam_dummy)
        normals.append(zero_n), tangents.append(zero_t)
    for k in range(1, len(grid)):
        ta, tb = grid[k - 1], grid[k]
        h = tb - ta
        qm, tm = q + 0.5 * h * v, ta + 0.5 * h
        M = system.M(qm)
        Mc = _cho(M)
        vhat = v + h * _cho_solve(Mc, system.Q(tm, qm, v))
        J = np.vstack([system.phi_q(qm, tb), system.B(qm, tb)])
        lam = np.zeros(J.shape[0])
        if J.shape[0]:
            MiJt = _cho_solve(Mc, J.T)
            L = schur_cholesky(J @ MiJt)
            if L is None:
                raise MbdError(f"simulate (TimeStepping): the bilateral constraints are singular at t = "
                               f"{tm:g}; remove redundant joints")
            rhs = J @ vhat + np.concatenate([system.phi_t(qm, tb), np.zeros(system.k)])
            lam = _cho_solve((L, True), rhs)
            vfree = vhat - MiJt @ lam
            lam = lam / h
        else:
            vfree = vhat
        Pn, Pt = zero_n.copy(), zero_t.copy()
        active = [i for i, c in enumerate(contacts) if c.gap(qm) <= 0.0]
        vnew = vfree
        if active:
            kins = [contacts[i].kinematics(qm) for i in active]
            mu = np.array([contacts[i].friction for i in active])
            e = np.array([contacts[i].restitution for i in active])
            fr = mu > 0
            H = np.vstack([np.vstack([kk.Wn for kk in kins])]
                          + [kk.Wt for kk, f in zip(kins, fr, strict=True) if f])
            NHt, W = delassus(system, qm, H, tb)
            b = H @ vfree
            un, un_free = H[:len(active)] @ v, H[:len(active)] @ vfree
            # restitution for impacts only: a contact that was already active, or whose approach is no more
            # than what one step of the smooth forces gives, is plastic (else a resting ball bounces by e g h)
            new = np.array([i not in was_active for i in active]) & (-un > 2.0 * np.abs(un_free - un))
            b[:len(active)] += np.where(new, e, 0.0) * np.minimum(un, 0.0)
            sol = solve_contact(W, b, mu, fr, dim, method=scheme.method)
            P = np.concatenate([sol.normal, sol.tangent[fr].ravel()])
            vnew = vfree + NHt @ P
            work += 0.5 * (vnew - v) @ M @ (vnew + v) - 0.5 * (vfree - v) @ M @ (vfree + v)
            Pn[active], Pt[active] = sol.normal, sol.tangent
        was_active = set(active)
        qn = qm + 0.5 * h * vnew
        if scheme.project:                  # drift of Φ, gaps left negative (Acary 2013): onto Φ = 0, g = 0
            deep = [i for i in active if contacts[i].gap(qn) < 0.0]
            if deep:
                qn = _project_gaps(system, tb, qn, deep)
            elif system.m:
                qn, it = project_positions(system, qn, tb)
                newton[0] += it
                newton[1] = max(newton[1], it)
            if system.rows:
                vnew = project_velocities(system, qn, vnew, tb)
        q, v = qn, vnew
        if out[k]:
            ts.append(tb), qs.append(q.copy()), vs.append(v.copy()), lams.append(lam)
            normals.append(Pn / h), tangents.append(Pt / h)
    stats = dict(nfev=len(grid) - 1, newton_iterations=newton[0], max_newton_iterations=newton[1],
                 n_steps=len(grid) - 1, contact_normal=np.array(normals).reshape(len(ts), nc),
                 contact_tangent=np.array(tangents).reshape(len(ts), nc, dim), impacts=[], zeno=[],
                 contact_work=work)
    return ts, np.array(qs), np.array(vs), lams, stats
