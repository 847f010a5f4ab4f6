"""IFToMM multibody benchmark A02, the N-four-bar: mbdlib's methods and Exudyn in one run (issue 14).

N + 1 cranks and N couplers, all 1 m and 1 kg, 20 s under gravity through the flat (singular) pose
many times.  The error is the largest distance of the first crank's tip from the exact 1-DOF motion
(:func:`mbdlib.coordinates.n_fourbar_exact`); the benchmark asks for 1e-3 m.  CPU is process time of
the simulation alone.  Every mbdlib method runs with its defaults; a method that stops (a
``SingularityError`` at the flat pose) is listed with the reason.  Exudyn (generalized-α, index 3,
h = 1e-3 s, sparse solver) runs on the same model in the same process when it is installed
(``pip install -e ".[bench]"``); ratios are mbdlib CPU / Exudyn CPU.

Run alone: ``.venv/bin/python bench/bench_a02.py [N ...] [--save PATH]`` (default N = 1 2 5 10 20 40);
``--save`` also writes the rows as JSON with the date and the machine (the book reads
``bench/results/a02.json``).
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


def collect(Ns=N_DEFAULT) -> list[dict]:
    """One row per (N, method): error [m] or None with the stop reason, CPU [s], steps, CPU / Exudyn."""
    rows = []
    for N in Ns:
        peer = run_exudyn(N)
        if peer is not None:
            done = np.isfinite(peer["error"])
            rows.append(dict(N=N, method="generalized-alpha", coordinates="exudyn",
                             error=peer["error"] if done else None, cpu=peer["cpu"], steps=peer["steps"],
                             stopped=None if done else peer["solver"].split("; ")[-1], ratio=1.0))
            if not done:
                peer = None
        for coordinates, method, n_max in CASES:
            if N > n_max:
                continue
            r = run_mbdlib(N, coordinates, method)
            done = r["error"] is not None
            rows.append(dict(N=N, method=method, coordinates=coordinates, error=r["error"], cpu=r["cpu"],
                             steps=int(r["note"].split()[0]) if done else None,
                             stopped=None if done else r["note"],
                             ratio=r["cpu"] / peer["cpu"] if peer and done else None))
    return rows


def save(rows: list[dict], path: str) -> None:
    """Write the rows as JSON with the date and the machine line (the book reads this file)."""
    import json
    import pathlib

    out = dict(benchmark="IFToMM A02 N-four-bar", t_end=T_END, tolerance=1e-3,
               date=time.strftime("%Y-%m-%d"), machine=machine(), rows=rows)
    pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(path).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


def report(rows: list[dict]) -> str:
    """The rows as a plain-text table."""
    lines = [f"IFToMM A02 N-four-bar, {T_END:g} s, error of the first crank tip vs the exact motion "
             f"(benchmark: 1e-3 m); {machine()}",
             f"{'N':>3}  {'method':<42} {'error [m]':>10} {'CPU [s]':>8} {'/Exudyn':>8}  note"]
    for r in rows:
        name = ("Exudyn gen.-α, sparse" if r["coordinates"] == "exudyn"
                else f"mbdlib {r['coordinates']} {r['method']}")
        err = r["error"]
        e = "stopped" if err is None else f"{err:.2e}{'' if err <= 1e-3 else ' ✗'}"
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}"
        note = r["stopped"] or f"{r['steps']} steps"
        lines.append(f"{r['N']:>3}  {name:<42} {e:>10} {r['cpu']:>8.2f} {ratio:>8}  {note}")
    return "\n".join(lines)


def main(Ns=N_DEFAULT, save_to: str | None = None) -> str:
    rows = collect(Ns)
    if save_to:
        save(rows, save_to)
    return report(rows)


if __name__ == "__main__":
    args = sys.argv[1:]
    path = None
    if "--save" in args:
        i = args.index("--save")
        path = args[i + 1]
        del args[i:i + 2]
    print(main(tuple(int(a) for a in args) or N_DEFAULT, save_to=path))
