"""Four-bar arm (issue 7): recursive Kane with the loop kept closed vs its peers.

Symbolic: derivation time and operation count (``count_ops`` after ``cse``) of
mbdlib's closed-chain Kane equations (M, h + G in q, q̇ and the passive angles)
vs ``sympy.physics.mechanics.KanesMethod`` with dependent coordinates and
speeds (its mass matrix and forcing, constraint rows included).
Numeric: time per call of inverse and forward dynamics, mbdlib's readable
recursion and its compiled equations vs the Lagrange-multiplier formulation in
all four angles (KKT).  Results are checked to agree before timing.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import sympy as sp
from _timing import machine, median_time, table

from mbdlib.mechanisms import fourbar_arm

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from oracles import fourbar_kanes_method  # noqa: E402  (the sympy KanesMethod peer lives with the tests)

CASES = {"parallelogram": {}, "general": dict(L4=0.58, b2=(-0.20, 0.0), d2=(0.20, -0.015), d4=(0.30, 0.012),
                                               F_tip=(12.0, -20.0))}


def _ops_after_cse(exprs) -> int:
    replacements, reduced = sp.cse([sp.Matrix(e) for e in exprs])
    return int(sum(sp.count_ops(rhs) for _, rhs in replacements) + sum(sp.count_ops(r) for r in reduced))


def _symbolic_rows():
    rows = []
    for name, params in CASES.items():
        arm = fourbar_arm(**params)
        t0 = time.perf_counter()
        eq = arm.equations()
        t_ours = time.perf_counter() - t0
        ops_ours = _ops_after_cse([eq.M, eq.h + eq.G])
        t0 = time.perf_counter()
        km = fourbar_kanes_method(arm)["km"]
        t_km = time.perf_counter() - t0
        ops_km = _ops_after_cse([km.mass_matrix, km.forcing])
        rows.append([name, f"{t_ours:.2f}", f"{t_km:.2f}", str(ops_ours), str(ops_km),
                     f"{ops_ours / ops_km:.2f}"])
    return rows


def _calls(arm, q, qd, qdd, tau):
    """The inverse- and forward-dynamics calls to time, by formulation."""
    M_f, hG_f = arm.compiled()
    inverse = {"Kane recursion": lambda: arm.inverse_dynamics(q, qd, qdd),
               "Kane compiled": lambda: M_f(q) @ qdd + hG_f(q, qd),
               "Lagrange multipliers": lambda: arm.lagrange_inverse_dynamics(q, qd, qdd)[0]}
    forward = {"Kane recursion": lambda: arm.forward_dynamics(q, qd, tau),
               "Kane compiled": lambda: np.linalg.solve(M_f(q), tau - hG_f(q, qd)),
               "Lagrange multipliers": lambda: arm.lagrange_forward_dynamics(q, qd, tau)}
    return inverse, forward


def _numeric_rows():
    rows = []
    rng = np.random.default_rng(0)
    for name, params in CASES.items():
        arm = fourbar_arm(**params)
        q = np.array([0.3, 1.7])
        qd, qdd, tau = rng.uniform(-2, 2, 2), rng.uniform(-2, 2, 2), rng.uniform(-20, 20, 2)
        inverse, forward = _calls(arm, q, qd, qdd, tau)
        for label, funcs in (("inverse", inverse), ("forward", forward)):
            results = [f() for f in funcs.values()]
            for r in results[1:]:                            # agreement before timing
                np.testing.assert_allclose(r, results[0], rtol=1e-9, atol=1e-9)
            times = {k: median_time(f, repeats=5, min_time=0.02) for k, f in funcs.items()}
            ref = times["Lagrange multipliers"]
            rows.append([name, label, *(f"{t * 1e6:.0f} ({t / ref:.2f})" for t in times.values())])
    return rows


def _simulation_rows(t_end=3.0, tol=1e-10):
    """CPU of the torque-free simulation from rest at q = (0.3, 1.2) rad (chapter 5's arm) through
    ``mbdlib.simulate`` (ODE, DOP853): the first run of a new arm (deriving and compiling its equations
    included) and a second run, and the numeric recursion for comparison; with the energy drift."""
    from mbdlib import ODE, simulate

    rows = []
    for name, params in CASES.items():
        for label, compiled in (("compiled equations", True), ("recursion", False)):
            arm = fourbar_arm(**params)
            t0 = time.process_time()
            system = arm.system(compiled=compiled)
            first = simulate(system, t_end, ODE(rtol=tol, atol=tol), q0=[0.3, 1.2])
            cpu_first = time.process_time() - t0
            again = simulate(system, t_end, ODE(rtol=tol, atol=tol), q0=[0.3, 1.2])
            rows.append([name, label, f"{cpu_first:.2f}", f"{again.cpu_time:.2f}", str(again.nfev),
                         f"{first.energy_drift:.1e}"])
    return rows


def main() -> str:
    sym = table(_symbolic_rows(), ["four-bar", "mbdlib Kane [s]", "KanesMethod [s]", "mbdlib ops (cse)",
                                   "KanesMethod ops (cse)", "ratio ops"])
    num = table(_numeric_rows(), ["four-bar", "dynamics", "Kane recursion [µs] (ratio)",
                                  "Kane compiled [µs] (ratio)", "Lagrange multipliers [µs] (1)"])
    sim = table(_simulation_rows(), ["four-bar", "equations", "first run CPU [s]", "second run CPU [s]",
                                     "evaluations", "energy drift [J]"])
    return (f"Four-bar arm: closed-chain Kane vs peers ({machine()})\n"
            "Symbolic derivation (M and h + G; KanesMethod: mass matrix and forcing with constraint rows)\n"
            + sym + "\n\nNumeric, time per call (ratio to the Lagrange-multiplier formulation)\n" + num
            + "\n\nA 3 s torque-free simulation from rest (DOP853, rtol = atol = 1e-10; target: 1 s CPU)\n"
            + sim)


if __name__ == "__main__":
    print(main())
