"""A vehicle in three coordinate sets (issue 26): the car with rack-and-pinion steering towing a trailer.

``mechanism("car_trailer", coordinates=c)`` for c = cartesian (every body x, y, φ), mixed (car and trailer
x, y, φ; knuckle, rack and pinion relative to the car; the hitch cut) and relative (the car x, y, φ, every
other body on its joint): the lane change of the chapter 4 page (``sine_steer``, 7 s, the steering wheel
turned by a controller), integrated from the same state by ``ODE`` and by ``Projection`` (DOP853,
rtol = atol = 1e-8).  Printed per coordinate set: coordinates n, position rows m, velocity rows k; steps
and right-hand side evaluations; CPU per simulated second (``time.process_time``, the median of
``REPEATS`` runs) and its ratio to the Cartesian model's; the CPU of one evaluation (the KKT solve,
``dae.accelerations``, median of repeats); the largest difference of the body poses from the Cartesian
run at the same instants (agreement, not a timing); and the largest ``‖Φ‖`` left by each scheme.

Absolute times are of this machine, one process; the numbers are printed as measured.  Run alone:
``.venv/bin/python bench/bench_vehicle.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import statistics  # noqa: E402

import numpy as np  # noqa: E402
from _timing import machine, median_time, table  # noqa: E402

from mbdlib import ODE, Projection, simulate  # noqa: E402
from mbdlib.catalogue import COORDINATE_SETS, mechanism  # noqa: E402
from mbdlib.coordinates import body_states  # noqa: E402
from mbdlib.dae import accelerations  # noqa: E402

T_END, TOL, REPEATS = 7.0, 1e-8, 3
BODIES = ("car", "knuckle", "rack", "pinion", "trailer")
SCHEMES = {"ODE": ODE(rtol=TOL, atol=TOL), "Projection": Projection(rtol=TOL, atol=TOL)}


def poses(model, q):
    s = body_states(model, q)
    return np.concatenate([s[b][0] for b in BODIES])


def run() -> dict:
    t_eval = np.linspace(0.0, T_END, 71)
    out = {}
    for c in COORDINATE_SETS:
        model = mechanism("car_trailer", coordinates=c, gravity=(0.0, 0.0))
        system = model.system()
        q, qd = system.q0, system.qd0
        eval_cpu = median_time(lambda s=system, q=q, qd=qd: accelerations(s, 0.5, q, qd))
        for name, scheme in SCHEMES.items():
            runs = [simulate(system, T_END, scheme, t_eval=t_eval) for _ in range(REPEATS)]
            r = runs[0]
            out[c, name] = dict(n=system.n, m=system.m, k=system.k, nfev=r.nfev, steps=r.n_steps,
                                cpu=statistics.median(x.cpu_time for x in runs) / T_END, eval_cpu=eval_cpu,
                                poses=np.array([poses(model, x) for x in r.q]),
                                violation=float(r.violation.max()) if system.m else 0.0)
    for (_, name), row in out.items():
        row["diff"] = float(np.abs(row["poses"] - out["cartesian", name]["poses"]).max())
    return out


def main() -> str:
    out = run()
    rows = []
    for (c, name), r in out.items():
        ref = out["cartesian", name]["cpu"]
        rows.append([c, name, r["n"], r["m"], r["k"], r["steps"], r["nfev"], f"{r['cpu']:.2f}",
                     f"{r['cpu'] / ref:.2f}", f"{1e6 * r['eval_cpu']:.0f}", f"{r['diff']:.1e}",
                     f"{r['violation']:.1e}"])
    header = ["coordinates", "scheme", "n", "m", "k", "steps", "evaluations", "CPU s per s", "ratio to cart.",
              "µs per evaluation", "max pose diff.", "max ‖Φ‖"]
    return (f"## A car towing a trailer, lane change of {T_END:g} s, DOP853 rtol = atol = {TOL:g}\n\n"
            f"{machine()}; CPU per simulated second: median of {REPEATS} runs\n\n" + table(rows, header))


if __name__ == "__main__":
    print(main())
