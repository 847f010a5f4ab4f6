"""Spatial models in Cartesian coordinates with Euler parameters: the 6R arm against joint coordinates, and
the benchmark bicycle with two rolling wheels (issues 15 and 22).

* 6R arm: both start from the same state (the stretched arm, the same joint rates) and run 0.5 s under
  gravity with DOP853 at rtol = atol = 1e-9: joint coordinates by the recursions
  (``mechanism("arm6r", "relative")``, scheme ``ODE``: no constraints), Cartesian ones by ``Projection``.
  Printed: CPU of each, their ratio, right-hand side evaluations, and the largest difference of the link
  centres of mass between the two.
* Bicycle (Meijaard et al. 2007, 4 bodies, 28 coordinates, 21 holonomic and 4 rolling rows; built by
  ``mbdlib.vehicles.benchmark_bicycle``): pushed sideways (lean rate 0.5 rad/s) at 5 m/s and simulated 3 s by
  ``Projection`` (DOP853, rtol = atol = 1e-9); CPU (``time.process_time``) per simulated second, the
  median of 3 runs (issue 22's target: ≤ 1 s), and the CPU of one linearization about the upright motion.

Run alone: ``.venv/bin/python bench/bench_spatial.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from _timing import machine  # noqa: E402

from mbdlib import ODE, Projection, simulate  # noqa: E402
from mbdlib.catalogue import mechanism  # noqa: E402
from mbdlib.kinematics import forward_kinematics  # noqa: E402
from mbdlib.vehicles import benchmark_bicycle  # noqa: E402

T_END, TOL = 0.5, 1e-9
QD0 = np.array([0.8, -0.5, 1.1, 2.0, -1.5, 3.0])
BIKE_T, BIKE_SPEED, REPEATS = 3.0, 5.0, 3


def run() -> dict:
    rel = mechanism("arm6r", coordinates="relative", gravity=(0, 0, -9.81))
    cart = mechanism("arm6r", coordinates="cartesian", gravity=(0, 0, -9.81))
    fk = forward_kinematics(rel.chain, np.zeros(6), QD0)
    for k in range(6):
        body = cart.bodies[k + 1]
        body.velocity, body.angular_velocity = fk.A[k] @ fk.v_c[k], fk.A[k] @ fk.omega[k]
    t_eval = np.linspace(0.0, T_END, 11)
    joint = simulate(rel.system(), T_END, ODE(rtol=TOL, atol=TOL), t_eval=t_eval, qd0=QD0)
    euler = simulate(cart.system(), T_END, Projection(rtol=TOL, atol=TOL), t_eval=t_eval)
    diff = 0.0
    for q, qc in zip(joint.q, euler.q, strict=True):
        f = forward_kinematics(rel.chain, q)
        for k in range(6):
            diff = max(diff, float(np.abs(qc[7 * (k + 1): 7 * (k + 1) + 3] - f.r[k] - f.A[k] @ f.d[k]).max()))
    return dict(joint=joint, euler=euler, diff=diff, n=cart.n, m=len(cart.labels))


def run_bicycle() -> dict:
    """The pushed bicycle simulated REPEATS times (median CPU), and one linearization."""
    bike = benchmark_bicycle()
    system = bike.system(BIKE_SPEED, lean_rate=0.5)
    runs = [simulate(system, BIKE_T, Projection(rtol=TOL, atol=TOL)) for _ in range(REPEATS)]
    res = runs[0]
    start = time.process_time()
    lin = bike.linearize(BIKE_SPEED)
    lin_cpu = time.process_time() - start
    return dict(cpu=statistics.median(r.cpu_time for r in runs), res=res, n=bike.model.n, m=system.m,
                k=system.k, lin_cpu=lin_cpu, eigenvalues=lin.eigenvalues)


def main() -> str:
    r = run()
    j, e = r["joint"], r["euler"]
    b = run_bicycle()
    res = b["res"]
    weave = [z for z in b["eigenvalues"] if abs(z.imag) > 1e-6]
    return "\n".join([
        f"6R arm, {T_END:g} s under gravity, DOP853 rtol = atol = {TOL:g}; {machine()}",
        "| coordinates | n | constraints | steps | evaluations | CPU [s] |",
        "|---|---:|---:|---:|---:|---:|",
        f"| joint (recursions) | 6 | 0 | {j.n_steps} | {j.nfev} | {j.cpu_time:.2f} |",
        f"| Cartesian + Euler parameters (projection) | {r['n']} | {r['m']} | {e.n_steps} | {e.nfev} "
        f"| {e.cpu_time:.2f} |",
        f"Cartesian / joint CPU: {e.cpu_time / j.cpu_time:.1f}; largest difference of a link's centre of "
        f"mass: {r['diff']:.1e} m",
        "",
        f"Benchmark bicycle (Meijaard et al. 2007) at {BIKE_SPEED:g} m/s, pushed sideways, {BIKE_T:g} s, "
        f"Projection DOP853 rtol = atol = {TOL:g} (median of {REPEATS} runs)",
        "| n | holonomic rows | rolling rows | steps | evaluations | CPU [s] | CPU per simulated second [s] "
        "| per evaluation [ms] | energy error | max ‖Φ‖ |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {b['n']} | {b['m']} | {b['k']} | {res.n_steps} | {res.nfev} | {b['cpu']:.3f} | "
        f"{b['cpu'] / BIKE_T:.3f} | {1e3 * b['cpu'] / res.nfev:.2f} | {res.energy_error:.1e} | "
        f"{res.violation.max():.1e} |",
        f"Linearization about the upright motion (lean, steer; 3 speeds): CPU {b['lin_cpu']:.3f} s; weave "
        f"eigenvalues {weave[0].real:.4f} ± {abs(weave[0].imag):.4f}i (published: -0.7753 ± 4.4649i)"])


if __name__ == "__main__":
    print(main())
