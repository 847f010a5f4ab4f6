"""IFToMM multibody benchmark A02, the N-four-bar: mbdlib's methods and Exudyn in one run (issue 14).

N + 1 cranks and N couplers, all 1 m and 1 kg, 20 s under gravity through the flat (singular) pose
many times.  The error is the largest distance of the first crank's tip from the exact 1-DOF motion
(:func:`mbdlib.coordinates.n_fourbar_exact`); the benchmark asks for 1e-3 m.  CPU is process time of
the simulation alone.  Every mbdlib method runs with its defaults; a method that stops (a
``SingularityError`` at the flat pose) is listed with the reason.  Exudyn (generalized-α, index 3,
h = 1e-3 s, sparse solver) runs on the same model in the same process when it is installed
(``pip install -e ".[bench]"``); ratios are mbdlib CPU / Exudyn CPU.

Run alone: ``.venv/bin/python bench/bench_a02.py [N ...]`` (default N = 1 2 5 10 20 40).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _timing import machine

from mbdlib import dae
from mbdlib.coordinates import mechanism, n_fourbar_exact
from mbdlib.errors import MbdError

N_DEFAULT = (1, 2, 5, 10, 20, 40)
T_END = 20.0
# (coordinates, method, largest N tried): the joint-coordinate models evaluate M(q) in Python and grow slowly
CASES = [("cartesian", "projection", 40), ("mixed", "projection", 5), ("relative", "projection", 5),
         ("cartesian", "augmented_lagrangian", 5), ("relative", "augmented_lagrangian", 2),
         ("mixed", "augmented_lagrangian", 2), ("cartesian", "baumgarte", 2), ("cartesian", "none", 2)]


def tip_error(res, coordinates: str, N: int) -> float:
    theta, _ = n_fourbar_exact(N, res.t)
    if coordinates == "cartesian":
        x, y, phi = res.q[:, 0], res.q[:, 1], res.q[:, 2]
        tip = np.column_stack([x + 0.5 * np.cos(phi), y + 0.5 * np.sin(phi)])
    else:
        angle = res.q[:, 0] if coordinates == "relative" else res.q[:, 2]
        tip = np.column_stack([np.cos(angle), np.sin(angle)])
    return float(np.max(np.linalg.norm(tip - np.column_stack([np.cos(theta), np.sin(theta)]), axis=1)))


def run_mbdlib(N: int, coordinates: str, method: str) -> dict:
    model = mechanism("n_fourbar", coordinates=coordinates, N=N)
    t0 = time.process_time()
    try:
        res = dae.simulate(model, T_END, method=method)
    except MbdError as exc:
        return dict(error=None, cpu=time.process_time() - t0, note=type(exc).__name__ + ": " +
                    str(exc).split(". ")[0][:90])
    cpu = time.process_time() - t0
    return dict(error=tip_error(res, coordinates, N), cpu=cpu, note=f"{res.n_steps} steps")


def run_exudyn(N: int) -> dict | None:
    try:
        from a02_exudyn import exudyn_a02
    except ImportError:
        return None
    return exudyn_a02(N, h=1e-3, t_end=T_END, sparse=True)


def main(Ns=N_DEFAULT) -> str:
    rows, peer = [], {}
    for N in Ns:
        peer[N] = run_exudyn(N)
        if peer[N] is not None:
            rows.append((N, "Exudyn gen.-α, sparse", peer[N]["error"], peer[N]["cpu"], "1.00",
                         f"{peer[N]['steps']} steps"))
        for coordinates, method, n_max in CASES:
            if N > n_max:
                continue
            r = run_mbdlib(N, coordinates, method)
            ratio = f"{r['cpu'] / peer[N]['cpu']:.2f}" if peer[N] and r["error"] is not None else "-"
            rows.append((N, f"mbdlib {coordinates} {method}", r["error"], r["cpu"], ratio, r["note"]))
    lines = [f"IFToMM A02 N-four-bar, {T_END:g} s, error of the first crank tip vs the exact motion "
             f"(benchmark: 1e-3 m); {machine()}",
             f"{'N':>3}  {'method':<42} {'error [m]':>10} {'CPU [s]':>8} {'/Exudyn':>8}  note"]
    for N, name, err, cpu, ratio, note in rows:
        e = "stopped" if err is None else f"{err:.2e}{'' if err <= 1e-3 else ' ✗'}"
        lines.append(f"{N:>3}  {name:<42} {e:>10} {cpu:>8.2f} {ratio:>8}  {note}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(main(tuple(int(a) for a in sys.argv[1:]) or N_DEFAULT))
