"""Contact and impact (issue 25): mbdlib's three contact models against MuJoCo, on problems with closed forms.

Same problems, same run, errors against the closed forms and CPU (``time.process_time``, one BLAS thread):

* **ball**: a disk/sphere (radius 0.1 m, 1 kg) dropped from 1 m onto the floor, e = 0.8, 3 s (about 8
  bounces).  Errors of the first three impact times and rebound heights against ``t_k`` and ``e^{2k} h₀``.
* **bowling ball**: a sphere (0.108 m, 7 kg) thrown at 7 m/s without spin, μ = 0.2, 2 s.  Errors of the
  rolling speed ``5 v₀ / 7`` and of the slip-to-roll time ``2 v₀ / (7 μ g)``.
* **rocking block**: a block 0.2 × 0.8 m (0.1 m deep in 3-D) released at 0.6 α on its corner, μ = 1,
  plastic corners; the ratio of angular velocities at the first impact against Housner's
  ``1 − (3/2) sin²α`` (exact for a uniform block).

mbdlib: ``EventDriven()`` (events located to 1e-10), ``TimeStepping(dt=1e-3)`` (Moreau–Jean) and, for the
ball, a Hunt–Crossley penalty model (Hertz stiffness 1e7 N/m^1.5, α chosen for e = 0.8 at the first
impact's speed) integrated by ``ODE``.  MuJoCo (``mujoco`` on PyPI): soft contacts, ``timestep`` 1e-4 s; for
the ball a spring-damper contact given directly (``solref="-k -b"``, k = 1e6 N/m, b = 2ζ√(k m) with
ζ = −ln e / √(π² + ln² e), ``solimp`` 0.99: MuJoCo's default time-constant form with that ζ rebounds to
a tenth of the height), the other problems with MuJoCo's default contact parameters; the elliptic
friction cone, Newton solver; a Python loop of ``mj_step`` (its Python overhead is part of the
CPU, about 1–2 µs per step).

Run: ``.venv/bin/python bench/bench_contact.py`` (writes ``bench/results/contact.json``).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from _timing import machine, table  # noqa: E402

from mbdlib import ODE, EventDriven, TimeStepping, hunt_crossley, simulate  # noqa: E402
from mbdlib.contact_examples import bouncing_ball, bowling_ball, rocking_block  # noqa: E402

G, H0, E, R = 9.81, 1.0, 0.8, 0.1
V0, MU, RB = 7.0, 0.2, 0.108
B, H = 0.1, 0.4
RESULTS = Path(__file__).parent / "results" / "contact.json"
SCHEMES = (("mbdlib EventDriven", EventDriven()), ("mbdlib TimeStepping 1e-3", TimeStepping(dt=1e-3)))


def _damping_ratio(e):
    """ζ of a linear spring-damper whose rebound has restitution e: e = exp(−ζπ/√(1 − ζ²))."""
    return -np.log(e) / np.sqrt(np.pi**2 + np.log(e) ** 2)


def ball_closed_form(k=3):
    t1 = np.sqrt(2 * H0 / G)
    times = t1 + np.concatenate([[0.0], np.cumsum([2 * E**j * t1 for j in range(1, k)])])
    return times, H0 * E ** (2 * np.arange(1, k + 1))


def bounces(t, y, vy):
    """Impact times (the velocity turns up) and the rebound heights (the apex after each) of a trajectory."""
    t, y, vy = map(np.asarray, (t, y, vy))
    turns = np.nonzero((vy[1:] > 0) & (vy[:-1] <= 0))[0] + 1
    times = t[turns]
    heights = [y[a:b].max() for a, b in zip(turns, list(turns[1:]) + [len(t)], strict=True)]
    return times, np.asarray(heights)


def roll_time(t, slip, v0):
    """The slip-to-roll time: the slip speed falls linearly while the body slides; its line over the last
    part of the sliding phase (slip between 30% and 5% of v₀), extended to zero."""
    t, slip = np.asarray(t), np.asarray(slip)
    end = int(np.argmax(slip < 0.01 * v0))
    part = (slip[:end] < 0.3 * v0) & (slip[:end] > 0.05 * v0)
    a, b = np.polyfit(t[:end][part], slip[:end][part], 1)
    return -b / a


def _cpu(f):
    start = time.process_time()
    out = f()
    return out, time.process_time() - start


# ====================================================================== MuJoCo
def mujoco_run(xml, seconds, record):
    import mujoco

    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    steps = int(round(seconds / model.opt.timestep))
    rows = []
    start = time.process_time()
    for _ in range(steps):
        mujoco.mj_step(model, data)
        rows.append(record(data))
    cpu = time.process_time() - start
    return np.array(rows), cpu, model.opt.timestep


def _option():
    return '<option timestep="1e-4" cone="elliptic" solver="Newton" tolerance="1e-10"/>'


def mujoco_ball():
    k = 1e6                                            # N/m; damping for restitution E: 2 ζ √(k m), m = 1 kg
    b = 2 * _damping_ratio(E) * np.sqrt(k)
    xml = f"""<mujoco>{_option()}<worldbody><geom type="plane" size="5 5 0.1"/>
      <body pos="0 0 {H0 + R}"><freejoint/>
        <geom type="sphere" size="{R}" mass="1" solref="{-k:g} {-b:.4f}" solimp="0.99 0.99 0.001"/></body>
      </worldbody></mujoco>"""
    rows, cpu, h = mujoco_run(xml, 3.0, lambda d: (d.time, d.qpos[2], d.qvel[2]))
    return rows, cpu


def mujoco_bowling():
    xml = f"""<mujoco>{_option()}<worldbody><geom type="plane" size="50 5 0.1" friction="{MU} 0 0"/>
      <body pos="0 0 {RB}"><freejoint/>
        <geom type="sphere" size="{RB}" mass="7" friction="{MU} 0 0" condim="3"/></body>
      </worldbody></mujoco>"""
    import mujoco

    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qvel[0] = V0
    steps = int(round(2.0 / model.opt.timestep))
    rows = []
    start = time.process_time()
    for _ in range(steps):
        mujoco.mj_step(model, data)
        rows.append((data.time, data.qvel[0], data.qvel[4]))
    return np.array(rows), time.process_time() - start


def mujoco_block(tilt):
    c, s = np.cos(tilt / 2), np.sin(tilt / 2)
    centre = np.array([B, 0.0, 0.0]) + np.array([-B * np.cos(tilt) + H * np.sin(tilt), 0.0,
                                                   B * np.sin(tilt) + H * np.cos(tilt)])
    xml = f"""<mujoco>{_option()}<worldbody><geom type="plane" size="5 5 0.1" friction="1 0 0"/>
      <body pos="{centre[0]:.12f} 0 {centre[2]:.12f}" quat="{c:.12f} 0 {s:.12f} 0"><freejoint/>
        <geom type="box" size="{B} 0.05 {H}" mass="1" friction="1 0 0" condim="3"/></body>
      </worldbody></mujoco>"""
    rows, cpu, _ = mujoco_run(xml, 0.8, lambda d: (d.time, d.qvel[4], d.ncon))
    return rows, cpu


# ====================================================================== the runs
def run_ball():
    ref_t, ref_h = ball_closed_form()
    out = {}
    system = bouncing_ball(H0, R, E).system()
    for name, scheme in SCHEMES:
        r, cpu = _cpu(lambda s=scheme: simulate(system, 3.0, s))
        t, hts = bounces(r.t, r.q[:, 1] - R, r.qd[:, 1])
        if name.endswith("EventDriven"):            # exact apexes from the impacts (outputs are the steps)
            t = np.array([i.t for i in r.impacts])
            hts = np.array([i.u_plus[0] ** 2 / (2 * G) for i in r.impacts])
        out[name] = dict(cpu=cpu, time_error=float(np.max(np.abs(t[:3] - ref_t))),
                         height_error=float(np.max(np.abs(hts[:3] - ref_h))))
    v1 = np.sqrt(2 * G * H0)
    pen = hunt_crossley(system, stiffness=1e7, exponent=1.5, damping=(1 - E) / v1)
    r, cpu = _cpu(lambda: simulate(pen, 3.0, ODE(rtol=1e-8, atol=1e-10), t_eval=np.linspace(0, 3, 30001)))
    t, hts = bounces(r.t, r.q[:, 1] - R, r.qd[:, 1])
    out["mbdlib Hunt–Crossley (ODE)"] = dict(cpu=cpu, time_error=float(np.max(np.abs(t[:3] - ref_t))),
                                             height_error=float(np.max(np.abs(hts[:3] - ref_h))))
    try:
        rows, cpu = mujoco_ball()
        t, hts = bounces(rows[:, 0], rows[:, 1] - R, rows[:, 2])
        out["MuJoCo (soft, 1e-4 s)"] = dict(cpu=cpu, time_error=float(np.max(np.abs(t[:3] - ref_t))),
                                            height_error=float(np.max(np.abs(hts[:3] - ref_h))))
    except ImportError:
        out["MuJoCo (soft, 1e-4 s)"] = None
    return out


def run_bowling():
    t_s, v_s = 2 * V0 / (7 * MU * G), 5 * V0 / 7
    out = {}
    model = bowling_ball(RB, V0, MU)
    system = model.system()
    t_eval = np.linspace(0, 2.0, 2001)
    for name, scheme in SCHEMES:
        r, cpu = _cpu(lambda s=scheme: simulate(system, 2.0, s, t_eval=t_eval))
        omega = np.array([model.angular_velocities(q, v)[0, 1] for q, v in zip(r.q, r.qd, strict=True)])
        rolling = roll_time(r.t, r.qd[:, 0] - RB * omega, V0)
        out[name] = dict(cpu=cpu, speed_error=float(abs(r.qd[-1, 0] - v_s)),
                         time_error=float(abs(rolling - t_s)))
    try:
        rows, cpu = mujoco_bowling()
        rolling = roll_time(rows[:, 0], rows[:, 1] - RB * rows[:, 2], V0)
        out["MuJoCo (soft, 1e-4 s)"] = dict(cpu=cpu, speed_error=float(abs(rows[-1, 1] - v_s)),
                                            time_error=float(abs(rolling - t_s)))
    except ImportError:
        out["MuJoCo (soft, 1e-4 s)"] = None
    return out


def run_block():
    alpha = np.arctan2(B, H)
    tilt, ratio = 0.6 * alpha, 1 - 1.5 * np.sin(alpha) ** 2
    out = {}
    system = rocking_block(B, H, tilt, friction=1.0).system()
    r, cpu = _cpu(lambda: simulate(system, 0.8, EventDriven()))
    first = r.impacts[0]
    out["mbdlib EventDriven"] = dict(cpu=cpu,
                                     ratio_error=float(abs(first.qd_plus[2] / first.qd_minus[2] - ratio)))
    r, cpu = _cpu(lambda: simulate(system, 0.8, TimeStepping(dt=1e-3)))
    w = r.qd[:, 2]
    k = int(np.argmax(np.abs(w)))                          # the largest speed: just before the first impact
    out["mbdlib TimeStepping 1e-3"] = dict(cpu=cpu, ratio_error=float(abs(abs(w[k + 2] / w[k]) - ratio)))
    try:
        rows, cpu = mujoco_block(tilt)
        w = rows[:, 1]
        k = int(np.argmax(np.abs(w[: int(0.5 / 1e-4)])))
        after = w[k + 1: k + 200]                           # 20 ms after: the impact is over
        out["MuJoCo (soft, 1e-4 s)"] = dict(cpu=cpu,
                                            ratio_error=float(abs(np.max(np.abs(after)) / abs(w[k]) - ratio)))
    except ImportError:
        out["MuJoCo (soft, 1e-4 s)"] = None
    return out


def main():
    results = dict(machine=machine(), ball=run_ball(), bowling=run_bowling(), block=run_block())
    try:
        import mujoco

        results["mujoco"] = mujoco.__version__
    except ImportError:
        results["mujoco"] = None
    rows = []
    for problem, keys in (("ball", ("time_error", "height_error")),
                          ("bowling", ("time_error", "speed_error")), ("block", ("ratio_error",))):
        ref = results[problem]["MuJoCo (soft, 1e-4 s)"]
        for name, r in results[problem].items():
            if r is None:
                rows.append([problem, name, "not installed", "", ""])
                continue
            errors = ", ".join(f"{k.replace('_error', '')} {r[k]:.2g}" for k in keys)
            ratio = f"{r['cpu'] / ref['cpu']:.2g}" if ref else "–"
            rows.append([problem, name, errors, f"{r['cpu']:.3f}", ratio])
    print(f"Contact problems against closed forms; CPU in s and as a ratio to MuJoCo {results['mujoco']} "
          f"({results['machine']})")
    print(table(rows, ["problem", "method", "error vs closed form", "CPU [s]", "CPU / MuJoCo"]))
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    return results


if __name__ == "__main__":
    main()
