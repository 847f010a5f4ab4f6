"""The 6R arm simulated in two coordinate sets: 6 joint angles against 49 Cartesian coordinates with Euler
parameters and 43 constraints (issue 15).

Both start from the same state (the stretched arm, the same joint rates) and run 0.5 s under gravity with
DOP853 at rtol = atol = 1e-9: joint coordinates by the recursions (``mechanism("arm6r", "relative")``,
method "none": no constraints), Cartesian ones by projection.  Printed: CPU of each, their ratio, right-hand
side evaluations, and the largest difference of the link centres of mass between the two.  Run alone:
``.venv/bin/python bench/bench_spatial.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from _timing import machine  # noqa: E402

from mbdlib import dae  # noqa: E402
from mbdlib.catalogue import mechanism  # noqa: E402
from mbdlib.kinematics import forward_kinematics  # noqa: E402

T_END, TOL = 0.5, 1e-9
QD0 = np.array([0.8, -0.5, 1.1, 2.0, -1.5, 3.0])


def run() -> dict:
    rel = mechanism("arm6r", coordinates="relative", gravity=(0, 0, -9.81))
    cart = mechanism("arm6r", coordinates="cartesian", gravity=(0, 0, -9.81))
    fk = forward_kinematics(rel.chain, np.zeros(6), QD0)
    for k in range(6):
        body = cart.bodies[k + 1]
        body.velocity, body.angular_velocity = fk.A[k] @ fk.v_c[k], fk.A[k] @ fk.omega[k]
    t_eval = np.linspace(0.0, T_END, 11)
    joint = dae.simulate(rel, T_END, method="none", rtol=TOL, atol=TOL, t_eval=t_eval, qd0=QD0)
    euler = cart.simulate(T_END, rtol=TOL, atol=TOL, t_eval=t_eval)
    diff = 0.0
    for q, qc in zip(joint.q, euler.q, strict=True):
        f = forward_kinematics(rel.chain, q)
        for k in range(6):
            diff = max(diff, float(np.abs(qc[7 * (k + 1): 7 * (k + 1) + 3] - f.r[k] - f.A[k] @ f.d[k]).max()))
    return dict(joint=joint, euler=euler, diff=diff, n=cart.n, m=len(cart.labels))


def main() -> str:
    r = run()
    j, e = r["joint"], r["euler"]
    return "\n".join([
        f"6R arm, {T_END:g} s under gravity, DOP853 rtol = atol = {TOL:g}; {machine()}",
        "| coordinates | n | constraints | steps | evaluations | CPU [s] |",
        "|---|---:|---:|---:|---:|---:|",
        f"| joint (recursions) | 6 | 0 | {j.n_steps} | {j.nfev} | {j.cpu_time:.2f} |",
        f"| Cartesian + Euler parameters (projection) | {r['n']} | {r['m']} | {e.n_steps} | {e.nfev} "
        f"| {e.cpu_time:.2f} |",
        f"Cartesian / joint CPU: {e.cpu_time / j.cpu_time:.1f}; largest difference of a link's centre of "
        f"mass: "
        f"{r['diff']:.1e} m"])


if __name__ == "__main__":
    print(main())
