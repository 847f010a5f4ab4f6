"""Symbolic equations of motion of an n-link spatial pendulum: mbdlib vs sympy.physics.mechanics.

The system: n links hanging from a fixed point, joined by revolute joints whose
axes alternate between x and y (joint 1 about x, joint 2 about y, ...), so the
motion is fully spatial.  Link i is a rigid body with symbolic mass ``m_i``,
length ``l_i`` (from its joint to the next one, along its own -z axis), centre
of mass halfway, and symbolic central principal moments ``Ix_i, Iy_i, Iz_i``;
gravity ``(0, 0, -g)``.  The same model is derived four ways:

* mbdlib recursive Kane (:func:`mbdlib.kane_equations` by default, ``expand=False``: the
  recursion's formulas as they come), and again with ``expand=True``
  (each entry expanded and collected per product of rates),
* mbdlib Lagrange (:func:`mbdlib.lagrange_equations`, its defaults),
* ``sympy.physics.mechanics.KanesMethod`` (frames, points, ``v2pt_theory``,
  ``kanes_equations``),
* ``sympy.physics.mechanics.LagrangesMethod`` (same kinematics, ``Lagrangian``,
  ``form_lagranges_equations``).

Each gives ``M(q) q̈ = forcing(q, q̇)``; time = the whole derivation from the
model parameters (kinematics included).  Size = ``sympy.count_ops`` of the
result of ``sympy.cse`` on the entries of M and forcing (plain symbols
``q_i, qd_i`` substituted for sympy's ``q_i(t), u_i(t)`` first).  Before
anything is reported, the four results are evaluated at one random state and
parameter set and compared with mbdlib's numeric CRBA mass matrix and
``forcing = -RNEA(q, q̇, 0)``.

A method that does not finish a case within the budget (default 60 s) is
reported as "> budget" and not tried at larger n (cost only grows with n).  The
cases run n by n (every method at n = 2, then at n = 3, ...); past a total budget
(default 450 s, so that ``make bench`` stays near 10 minutes) the remaining cases
are reported as "> total budget" / "not run".
"""

from __future__ import annotations

import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import sympy as sp
from sympy.physics import mechanics as me

sys.path.insert(0, str(Path(__file__).parent))

from _timing import machine, table  # noqa: E402

import mbdlib  # noqa: E402

BUDGET = 60.0          # seconds per case (one method, one n)
TOTAL_BUDGET = 450.0   # seconds for the whole run (keeps make bench under ~10 minutes)
N_RANGE = range(2, 9)  # n = 2 ... 8


# --------------------------------------------------------------------------- budgets
class OverBudget(Exception):
    """Raised inside a computation that ran past its time budget."""


@contextmanager
def budget(seconds: float):
    """Interrupt the enclosed (pure Python) computation after ``seconds`` with :class:`OverBudget`.

    Uses SIGALRM, so it only works in the main thread on Unix (where the benchmarks run).
    """
    def stop(signum, frame):
        raise OverBudget(f"over the budget of {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timed(func, seconds: float):
    """``(result, elapsed)`` of ``func()``, or ``(None, None)`` if it ran past ``seconds``."""
    t0 = time.perf_counter()
    try:
        with budget(seconds):
            result = func()
    except OverBudget:
        return None, None
    return result, time.perf_counter() - t0


# --------------------------------------------------------------------------- the model
def parameters(n: int):
    """Symbols ``(m, l, Ix, Iy, Iz)`` (each a tuple of n) and ``g``."""
    names = ("m", "l", "Ix", "Iy", "Iz")
    return tuple(sp.symbols(f"{s}1:{n + 1}", positive=True) for s in names), sp.Symbol("g", positive=True)


def axis_index(i: int) -> int:
    """Joint i (0-based) turns about x (even i) or y (odd i)."""
    return i % 2


def mbdlib_chain(n: int, values=None) -> mbdlib.Chain:
    """The pendulum as an mbdlib Chain; symbolic parameters, or numbers from ``values`` {symbol: float}."""
    (m, l, Ix, Iy, Iz), _ = parameters(n)
    val = (lambda s: s) if values is None else (lambda s: float(values[s]))
    chain = mbdlib.Chain(name=f"{n}-link spatial pendulum")
    for i in range(n):
        axis = np.eye(3)[axis_index(i)]
        origin = (0, 0, 0) if i == 0 else (0, 0, -val(l[i - 1]))
        body = mbdlib.RigidBody(val(m[i]), com=(0, 0, -val(l[i]) / 2),
                                inertia=(val(Ix[i]), val(Iy[i]), val(Iz[i])), name=f"link{i + 1}")
        chain.add_link(f"link{i + 1}", mbdlib.Joint(f"joint{i + 1}", "revolute", axis, origin), body)
    return chain


def _sympy_system(n: int, lagrange: bool):
    """Frames, points and bodies of the pendulum in sympy.physics.mechanics."""
    (m, l, Ix, Iy, Iz), g = parameters(n)
    q = me.dynamicsymbols(f"q1:{n + 1}")
    u = me.dynamicsymbols(f"u1:{n + 1}")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    bodies, loads = [], []
    parent, joint, prev_joint = N, O, O
    for i in range(n):
        axis = (parent.x, parent.y)[axis_index(i)]
        A = parent.orientnew(f"A{i + 1}", "Axis", (q[i], axis))
        if not lagrange:
            A.set_ang_vel(parent, u[i] * axis)
        if i > 0:
            joint = joint.locatenew(f"P{i + 1}", -l[i - 1] * parent.z)
            joint.v2pt_theory(prev_joint, N, parent)          # P_i fixed in the parent link
        C = joint.locatenew(f"C{i + 1}", -l[i] / 2 * A.z)
        C.v2pt_theory(joint, N, A)
        body = me.RigidBody(f"B{i + 1}", C, A, m[i], (me.inertia(A, Ix[i], Iy[i], Iz[i]), C))
        if lagrange:
            body.potential_energy = m[i] * g * C.pos_from(O).dot(N.z)
        bodies.append(body)
        loads.append((C, -m[i] * g * N.z))
        prev_joint, parent = joint, A
    return q, u, N, bodies, loads


def derive_sympy_kane(n: int):
    q, u, N, bodies, loads = _sympy_system(n, lagrange=False)
    kane = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u, strict=True)])
    kane.kanes_equations(bodies, loads)
    return kane.mass_matrix, kane.forcing, q, u


def derive_sympy_lagrange(n: int):
    q, _, N, bodies, _ = _sympy_system(n, lagrange=True)
    lm = me.LagrangesMethod(me.Lagrangian(N, *bodies), q)
    lm.form_lagranges_equations()
    return lm.mass_matrix, lm.forcing, q, [qi.diff() for qi in q]


def derive_mbdlib_kane(n: int, expand: bool = False):
    g = parameters(n)[1]
    eq = mbdlib.kane_equations(mbdlib_chain(n), gravity=(0, 0, -g), expand=expand)
    return eq.M, -(eq.h + eq.G), eq.q, eq.qd


def derive_mbdlib_kane_expanded(n: int):
    return derive_mbdlib_kane(n, expand=True)


def derive_mbdlib_lagrange(n: int):
    g = parameters(n)[1]
    eq = mbdlib.lagrange_equations(mbdlib_chain(n), gravity=(0, 0, -g))
    return eq.M, -(eq.C @ sp.Matrix(eq.qd) + eq.G), eq.q, eq.qd


METHODS = {
    "mbdlib Kane": derive_mbdlib_kane,
    "mbdlib Kane, expand=True": derive_mbdlib_kane_expanded,
    "mbdlib Lagrange": derive_mbdlib_lagrange,
    "sympy KanesMethod": derive_sympy_kane,
    "sympy LagrangesMethod": derive_sympy_lagrange,
}


# --------------------------------------------------------------------------- size and check
def plain(M, forcing, q, qd, n: int):
    """M and forcing in plain symbols ``q_i, qd_i`` (no dynamicsymbols, no derivatives)."""
    qs, qds = sp.symbols(f"q1:{n + 1}"), sp.symbols(f"qd1:{n + 1}")
    swap = {}
    for a, b, c, d in zip(q, qd, qs, qds, strict=True):
        if isinstance(a, sp.Function):                     # sympy's q_i(t): replace q_i'(t) and u_i(t) too
            swap[a.diff(me.dynamicsymbols._t)] = d
        swap[b] = d
        swap[a] = c
    return sp.Matrix(M).xreplace(swap), sp.Matrix(forcing).xreplace(swap), qs, qds


def common_subexpressions(M, forcing):
    """``sympy.cse`` of all entries of M (row by row) and forcing: (replacements, reduced)."""
    return sp.cse(list(M) + list(forcing))


def operation_count(replacements, reduced) -> int:
    """``count_ops`` of a cse form: every assignment plus every result."""
    return int(sum(sp.count_ops(rhs) for _, rhs in replacements) + sum(sp.count_ops(e) for e in reduced))


def check(replacements, reduced, qs, qds, n: int, seed: int = 0) -> float:
    """Relative max difference of (M, forcing), given in cse form, to mbdlib's numeric CRBA and
    -RNEA(q, q̇, 0) at a random state and parameter set."""
    (m, l, Ix, Iy, Iz), g = parameters(n)
    rng = np.random.default_rng(seed)
    values = {s: rng.uniform(0.5, 2.0) for s in (*m, *l)}
    for i in range(n):   # principal moments that obey the triangle inequality: a + b >= c
        a, b = rng.uniform(0.1, 0.3, 2)
        values.update({Ix[i]: a, Iy[i]: b, Iz[i]: rng.uniform(abs(a - b), a + b)})
    values[g] = 9.81
    q, qd = rng.uniform(-np.pi, np.pi, (2, n))
    chain = mbdlib_chain(n, values)
    M_ref = mbdlib.mass_matrix(chain, q)
    f_ref = -mbdlib.rnea(chain, q, qd, np.zeros(n), gravity=(0, 0, -9.81))
    point = {**values, **dict(zip(qs, q, strict=True)), **dict(zip(qds, qd, strict=True))}
    symbols = list(point)
    f = sp.lambdify([symbols], reduced, modules="numpy", cse=lambda exprs: (replacements, exprs))
    out = np.array(f([point[s] for s in symbols]), dtype=float)
    M_val, f_val = out[:n * n].reshape(n, n), out[n * n:]
    scale = max(1.0, np.abs(M_ref).max(), np.abs(f_ref).max())
    return max(np.abs(M_val - M_ref).max(), np.abs(f_val - f_ref).max()) / scale


def run(n_range=N_RANGE, seconds: float = BUDGET, methods=None, total: float = TOTAL_BUDGET) -> dict:
    """``{method: {n: (time, ops, error)}}``, n outer so that every method gets each n in turn.

    A derivation over the per-case budget gives ``(None, None, "> budget")`` and the method is
    not tried at larger n; a case cut short by the ``total`` budget gives ``"> total budget"``,
    and once ``total`` seconds have passed the remaining cases get ``"not run"``.  Each case
    starts with sympy's cache cleared, so no method profits from an earlier one.
    """
    names = list(methods or METHODS)
    results = {name: {} for name in names}
    start = time.perf_counter()
    for n in n_range:
        for name in names:
            stopped = [e[2] for e in results[name].values() if e[0] is None]
            if stopped:                                    # over budget at a smaller n: only costlier now
                results[name][n] = (None, None, stopped[0])
                continue
            remaining = total - (time.perf_counter() - start)
            if remaining <= 0:
                results[name][n] = (None, None, "not run")
                continue
            sp.core.cache.clear_cache()
            out, dt = timed(lambda derive=METHODS[name], n=n: derive(n), min(seconds, remaining))
            if out is None:
                results[name][n] = (None, None, "> budget" if remaining > seconds else "> total budget")
                continue
            M, forcing, qs, qds = plain(*out, n)
            cse, _ = timed(lambda M=M, forcing=forcing: common_subexpressions(M, forcing), seconds)
            if cse is None:
                raise AssertionError(f"{name}, n = {n}: sympy.cse of the result ran over the budget, so "
                                     "the result cannot be checked; lower n_range")
            err = check(*cse, qs, qds, n)
            if err > 1e-9:
                raise AssertionError(f"{name}, n = {n}: the equations disagree with mbdlib's numeric "
                                     f"CRBA/RNEA by {err:.2e} (relative); not reporting timings")
            results[name][n] = (dt, operation_count(*cse), err)
    return results


def _fmt_time(entry) -> str:
    if entry is None:
        return "> budget"                                  # over budget at a smaller n
    return entry[2] if entry[0] is None else f"{entry[0]:.2f}"


def _fmt_ops(entry) -> str:
    if entry is None or entry[0] is None:
        return "-"
    return str(entry[1])


SHORT = {"mbdlib Kane": "mbdlib Kane", "mbdlib Kane, expand=True": "mbdlib Kane expand",
         "mbdlib Lagrange": "mbdlib Lagrange", "sympy KanesMethod": "KanesMethod",
         "sympy LagrangesMethod": "LagrangesMethod"}


def _ratio(results, n, name, ref="sympy KanesMethod", field=0) -> str:
    ours, theirs = results[name].get(n), results[ref].get(n)
    if ours is None or theirs is None or ours[field] is None or theirs[field] is None:
        return "-"
    return f"{theirs[field] / ours[field]:.2f}"


def report(results: dict, seconds: float = BUDGET, total: float = TOTAL_BUDGET) -> str:
    ns = sorted({n for r in results.values() for n in r})
    names = list(results)
    kanes = [name for name in names if name.startswith("mbdlib Kane")]
    times = [[str(n), *(_fmt_time(results[name].get(n)) for name in names),
              *(_ratio(results, n, name) for name in kanes)] for n in ns]
    sizes = [[str(n), *(_fmt_ops(results[name].get(n)) for name in names),
              *(_ratio(results, n, name, field=1) for name in kanes)] for n in ns]
    errs = [e[2] for r in results.values() for e in r.values() if e[0] is not None]
    ratio_cols = [f"KanesMethod / {SHORT[name]}" for name in kanes]
    return (f"Symbolic equations of motion M q̈ = forcing, n-link spatial pendulum, per-case budget "
            f"{seconds:g} s, total {total:g} s ({machine()})\n"
            "Derivation time [s] (ratio above 1: mbdlib is faster)\n"
            + table(times, ["n", *(SHORT[name] for name in names), *ratio_cols])
            + "\n\nOperation count after cse of M and forcing (ratio above 1: mbdlib is smaller)\n"
            + table(sizes, ["n", *(SHORT[name] for name in names), *ratio_cols])
            + f"\nEvery result agrees with mbdlib's numeric CRBA/RNEA at a random state (max relative "
              f"difference {max(errs):.1e}).")


#: results of the last :func:`main` in this process (bench_scaling fits exponents to them)
LAST_RESULTS: dict = {}


def main(seconds: float = BUDGET, total: float = TOTAL_BUDGET) -> str:
    LAST_RESULTS.clear()
    LAST_RESULTS.update(run(seconds=seconds, total=total))
    return report(LAST_RESULTS, seconds, total)


if __name__ == "__main__":
    print(main())
