"""IFToMM multibody benchmark A02, the N-four-bar: mbdlib's methods and Exudyn in one run (issue 14).

N + 1 cranks and N couplers, all 1 m and 1 kg, 20 s under gravity through the flat (singular) pose
many times.  The error is the largest distance of the first crank's tip from the exact 1-DOF motion
(:func:`mbdlib.catalogue.n_fourbar_exact`); the benchmark asks for 1e-3 m.  CPU is process time of
the simulation alone.  Every mbdlib method runs with its defaults; a method that stops (a
``SingularityError`` at the flat pose) is listed with the reason.  Exudyn (generalized-α, index 3,
h = 1e-3 s, sparse solver) runs on the same model in the same process when it is installed
(``pip install -e ".[bench]"``); ratios are mbdlib CPU / Exudyn CPU.

The methods are the schemes of :func:`mbdlib.simulate`; the JSON keeps their names ("none" is ``ODE()``,
the index-1 equations without a cure for drift) and their options as given.

Run alone: ``.venv/bin/python bench/bench_a02.py [N ...] [--save PATH]`` (default N = 1 2 5 10 20 40);
``--save`` also writes the rows as JSON with the date and the machine (the book reads
``bench/results/a02.json``).  ``--kkt`` prints only the time of one KKT solve, dense vs band
factorization, for each N (the crossover of the two paths); ``--al`` the CPU of one augmented-Lagrangian
step, dense vs band storage of M + α'JᵀJ.  BLAS runs on one thread, as Exudyn does.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # one core, as Exudyn uses
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from _timing import machine  # noqa: E402

from mbdlib import ODE, AugmentedLagrangian, Baumgarte, Projection, _kkt, simulate  # noqa: E402
from mbdlib.catalogue import mechanism, n_fourbar_exact, n_fourbar_tip  # noqa: E402
from mbdlib.errors import MbdError  # noqa: E402

#: The scheme of each method name of the table (and of the JSON that chapter 3 reads).
SCHEMES = {"projection": Projection, "augmented_lagrangian": AugmentedLagrangian, "baumgarte": Baumgarte,
           "none": ODE}

N_DEFAULT = (1, 2, 5, 10, 20, 40)
T_END = 20.0
# (coordinates, method, options, largest N tried): the joint-coordinate models evaluate M(q) in Python and
# grow slowly; the augmented Lagrangian takes 40 000 fixed steps (band storage in Cartesian coordinates)
CASES = [("cartesian", "projection", {}, 40), ("cartesian", "projection", {"singular": "damp"}, 40),
         ("mixed", "projection", {}, 5), ("relative", "projection", {}, 5),
         ("relative", "projection", {"singular": "damp"}, 2),
         ("cartesian", "augmented_lagrangian", {}, 40),
         ("cartesian", "augmented_lagrangian", {"adaptive": True}, 2),
         ("relative", "augmented_lagrangian", {}, 2),
         ("mixed", "augmented_lagrangian", {}, 2), ("cartesian", "baumgarte", {}, 2),
         ("cartesian", "none", {}, 2)]


def tip_error(res, coordinates: str, N: int) -> float:
    theta, _ = n_fourbar_exact(N, res.t)
    exact = np.column_stack([np.cos(theta), np.sin(theta)])
    return float(np.max(np.linalg.norm(n_fourbar_tip(res.q, coordinates) - exact, axis=1)))


def run_mbdlib(N: int, coordinates: str, method: str, options: dict | None = None) -> dict:
    system = mechanism("n_fourbar", coordinates=coordinates, N=N, gravity=(0.0, -9.81)).system()
    t0 = time.process_time()
    try:
        res = simulate(system, T_END, SCHEMES[method](**(options or {})))
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
        for coordinates, method, options, n_max in CASES:
            if N > n_max:
                continue
            r = run_mbdlib(N, coordinates, method, options)
            done = r["error"] is not None
            rows.append(dict(N=N, method=method, coordinates=coordinates, error=r["error"], cpu=r["cpu"],
                             options=", ".join(f"{k}={v!r}" for k, v in options.items()),
                             steps=int(r["note"].split()[0]) if done else None,
                             stopped=None if done else r["note"],
                             ratio=r["cpu"] / peer["cpu"] if peer and done else None))
    return rows


def kkt_timings(Ns=N_DEFAULT, repeat: int = 200) -> list[dict]:
    """Time of one KKT solve (q̈, λ) at the start state, dense range-space vs band factorization [µs]."""
    out = []
    for N in Ns:
        model = mechanism("n_fourbar", N=N, gravity=(0.0, -9.81))
        system = model.system()
        q, qd, bs = system.q0, system.qd0, system.structure.band
        times = {}
        for name, banded in (("dense", None), ("banded", bs)):
            k = max(10, repeat // (1 + N // 10))
            best = np.inf
            for _ in range(3):
                t0 = time.perf_counter()
                for _ in range(k):
                    _kkt._solve(system, 0.0, q, qd, bs=banded)
                best = min(best, (time.perf_counter() - t0) / k)
            times[name] = best * 1e6
        out.append(dict(N=N, n=model.n, dense_us=times["dense"], banded_us=times["banded"], half_band=bs.kd))
    return out


def al_step_timings(Ns=N_DEFAULT, t_end: float = 0.25) -> list[dict]:
    """CPU per augmented-Lagrangian step [µs] over the first ``t_end`` s (smooth motion, before the first
    flat pose), band storage of M + α'JᵀJ against the dense matrices, with the largest difference of the
    two results (the crossover of the two paths)."""
    from mbdlib import _integrators

    out = []
    for N in Ns:
        model = mechanism("n_fourbar", N=N, gravity=(0.0, -9.81))
        system = model.system()
        cpu, q = {}, {}
        for name, ops in (("banded", None), ("dense", _integrators._DenseOps)):
            make = _integrators._al_ops
            if ops is not None:
                _integrators._al_ops = lambda system, q0, t0, ops=ops: ops(system)
            try:
                t0 = time.process_time()
                res = simulate(system, t_end, AugmentedLagrangian(), t_eval=[0.0, t_end])
                cpu[name] = (time.process_time() - t0) / res.n_steps * 1e6
                q[name] = res.q[-1]
            finally:
                _integrators._al_ops = make
        out.append(dict(N=N, n=model.n, dense_us=cpu["dense"], banded_us=cpu["banded"],
                        difference=float(np.abs(q["dense"] - q["banded"]).max())))
    return out


def report_al(rows: list[dict]) -> str:
    return _dense_vs_banded("one augmented-Lagrangian step (first 0.25 s) [µs], dense vs band storage of "
                            "M + α'JᵀJ", rows, "max |q difference|", lambda r: f"{r['difference']:.1e}")


def growth(rows: list[dict], coordinates: str, method: str, options: str = "") -> float | None:
    """Exponent p of CPU ∝ N^p, a least-squares line through log CPU vs log N of the runs that passed."""
    pts = [(r["N"], r["cpu"]) for r in rows if r["coordinates"] == coordinates and r["method"] == method
           and r.get("options", "") == options and r["error"] is not None and r["N"] >= 5]
    if len(pts) < 2:
        return None
    N, cpu = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(N, cpu, 1)[0])


def save(rows: list[dict], path: str, kkt: list[dict] | None = None, al: list[dict] | None = None) -> None:
    """Write the rows as JSON with the date and the machine line (the book reads this file)."""
    import json
    import pathlib

    out = dict(benchmark="IFToMM A02 N-four-bar", t_end=T_END, tolerance=1e-3,
               date=time.strftime("%Y-%m-%d"), machine=machine(), rows=rows, kkt=kkt or [], al_step=al or [])
    pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(path).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


def report(rows: list[dict]) -> str:
    """The rows as a plain-text table."""
    lines = [f"IFToMM A02 N-four-bar, {T_END:g} s, error of the first crank tip vs the exact motion "
             f"(benchmark: 1e-3 m); {machine()}",
             f"{'N':>3}  {'method':<60} {'error [m]':>10} {'CPU [s]':>8} {'/Exudyn':>8}  note"]
    for r in rows:
        name = ("Exudyn gen.-α, sparse" if r["coordinates"] == "exudyn"
                else f"mbdlib {r['coordinates']} {r['method']} {r.get('options', '')}".strip())
        err = r["error"]
        e = "stopped" if err is None else f"{err:.2e}{'' if err <= 1e-3 else ' ✗'}"
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}"
        note = r["stopped"] or f"{r['steps']} steps"
        lines.append(f"{r['N']:>3}  {name:<60} {e:>10} {r['cpu']:>8.2f} {ratio:>8}  {note}")
    for label, key in (("mbdlib cartesian projection singular='damp'", ("cartesian", "projection",
                                                                         "singular='damp'")),
                       ("mbdlib cartesian augmented_lagrangian", ("cartesian", "augmented_lagrangian", "")),
                       ("Exudyn gen.-α, sparse", ("exudyn", "generalized-alpha", ""))):
        p = growth(rows, *key)
        if p is not None:
            lines.append(f"CPU grows as N^{p:.2f} from N = 5 ({label})")
    return "\n".join(lines)


def report_kkt(kkt: list[dict]) -> str:
    return _dense_vs_banded("one KKT solve at the start state [µs], dense range-space vs band Cholesky of "
                            "J M⁻¹ Jᵀ", kkt, "half-band", lambda r: f"{r['half_band']}")


def _dense_vs_banded(title: str, rows: list[dict], last: str, cell) -> str:
    """A table of µs per call, dense vs banded, their ratio and one more column (``cell(row)``)."""
    lines = [title, f"{'N':>3} {'n':>4} {'dense':>9} {'banded':>9} {'ratio':>6}  {last}"]
    for r in rows:
        lines.append(f"{r['N']:>3} {r['n']:>4} {r['dense_us']:>9.0f} {r['banded_us']:>9.0f} "
                     f"{r['dense_us'] / r['banded_us']:>6.1f}  {cell(r)}")
    return "\n".join(lines)


def main(Ns=N_DEFAULT, save_to: str | None = None) -> str:
    rows, kkt, al = collect(Ns), kkt_timings(Ns), al_step_timings(Ns)
    if save_to:
        save(rows, save_to, kkt, al)
    return report(rows) + "\n\n" + report_kkt(kkt) + "\n\n" + report_al(al)


if __name__ == "__main__":
    args = sys.argv[1:]
    path = None
    if "--save" in args:
        i = args.index("--save")
        path = args[i + 1]
        del args[i:i + 2]
    if "--kkt" in args:
        args.remove("--kkt")
        print(report_kkt(kkt_timings(tuple(int(a) for a in args) or N_DEFAULT)))
    elif "--al" in args:
        args.remove("--al")
        print(report_al(al_step_timings(tuple(int(a) for a in args) or N_DEFAULT)))
    else:
        print(main(tuple(int(a) for a in args) or N_DEFAULT, save_to=path))
