"""How the cost grows with the number of links n: fitted exponents p of ``time ∝ n^p``.

Two tables:

1. **Symbolic**: the derivation times and operation counts of :mod:`bench_symbolic`
   (n-link spatial pendulum; the results of its run in the same process when
   ``run_all`` ran it first, else a shorter run of its own), fitted on a log-log scale.
2. **Numeric**: the same kind of pendulum (joint axes alternating x, y; links hanging along
   -z; revolute joints with wide limits, since Pinocchio gives ``continuous`` joints two
   configuration numbers, cos and sin) written as a URDF file for n = 2 ... 64 and loaded
   by every library from that text:
   mbdlib's RNEA (O(n) expected), recursive Kane inverse dynamics and CRBA mass matrix
   (O(n²) for a serial chain), forward dynamics, modern-robotics ``InverseDynamics`` and
   Pinocchio's ``rnea``.  The torques of every library are compared at each n before timing.

The exponent is the slope of a least-squares line through (log n, log t).  Growth faster
than any power (the symbolic derivations) shows as a local slope, between the last two
points, above the fitted one.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import bench_symbolic  # noqa: E402
from _timing import machine, median_time, table  # noqa: E402

import mbdlib  # noqa: E402
from mbdlib.urdf import load_urdf  # noqa: E402

NUMERIC_N = (2, 4, 8, 16, 32, 64)
TOL = 1e-9
GRAVITY = np.array([0.0, 0.0, -9.81])


# --------------------------------------------------------------------------- fits
def exponent(ns, values) -> tuple[float, float]:
    """Slope of log(values) vs log(ns) by least squares, and the local slope of the last two points.

    >>> exponent([2, 4, 8], [3.0, 12.0, 48.0])
    (2.0, 2.0)
    """
    x, y = np.log(np.asarray(ns, dtype=float)), np.log(np.asarray(values, dtype=float))
    fitted = float(np.polyfit(x, y, 1)[0])
    local = float((y[-1] - y[-2]) / (x[-1] - x[-2]))
    return round(fitted, 6), round(local, 6)


def _fit_row(label, ns, values):
    if len(ns) < 2:
        return [label, "-", "-", "-"]
    p, local = exponent(ns, values)
    return [label, f"{min(ns)}..{max(ns)}", f"{p:.2f}", f"{local:.2f}"]


def symbolic_table(results: dict) -> str:
    rows = []
    for name, cases in results.items():
        done = sorted(n for n, (t, _, _) in cases.items() if t is not None)
        over = [(n, why) for n, (t, _, why) in cases.items() if t is None]
        label = name + (f" (n = {over[0][0]}: {over[0][1]})" if over else "")
        rows.append(_fit_row(label + ", time", done, [cases[n][0] for n in done]))
        rows.append(_fit_row(label + ", ops", done, [cases[n][1] for n in done]))
    return table(rows, ["method, quantity", "n", "fitted exponent p", "local p (last two n)"])


# --------------------------------------------------------------------------- the numeric pendulum
def pendulum_urdf(n: int, seed: int = 0) -> str:
    """URDF text of an n-link spatial pendulum: revolute joints about x, y, x, ...; box links along -z.

    >>> "joint2" in pendulum_urdf(2) and pendulum_urdf(2).count("<link ") == 3
    True
    """
    rng = np.random.default_rng(seed)
    parts = ['<robot name="pendulum">', '<link name="base"/>']
    previous_length = 0.0
    for i in range(1, n + 1):
        length, mass = rng.uniform(0.2, 0.5), rng.uniform(0.5, 2.0)
        a = 0.04                                           # square cross-section a x a
        ixx = iyy = mass * (a * a + length * length) / 12  # box about its centre
        izz = mass * a * a / 6
        parent = "base" if i == 1 else f"link{i - 1}"
        axis = "1 0 0" if i % 2 else "0 1 0"
        parts += [
            f'<link name="link{i}"><inertial><origin xyz="0 0 {-length / 2:.17g}"/>'
            f'<mass value="{mass:.17g}"/><inertia ixx="{ixx:.17g}" ixy="0" ixz="0" iyy="{iyy:.17g}" iyz="0"'
            f' izz="{izz:.17g}"/></inertial></link>',
            f'<joint name="joint{i}" type="revolute"><parent link="{parent}"/><child link="link{i}"/>'
            f'<origin xyz="0 0 {-previous_length:.17g}"/><axis xyz="{axis}"/>'
            '<limit lower="-100" upper="100" effort="100" velocity="100"/></joint>',
        ]
        previous_length = length
    return "\n".join([*parts, "</robot>"])


def numeric_libraries(n: int) -> dict:
    """``(chain, {label: f(q, qd, qdd)})`` for the n-link pendulum; peers not installed are left out."""
    xml = pendulum_urdf(n)
    chain = load_urdf(xml)
    libs = {
        "mbdlib rnea": lambda q, qd, qdd: mbdlib.rnea(chain, q, qd, qdd, GRAVITY),
        "mbdlib kane_inverse_dynamics": lambda q, qd, qdd: mbdlib.kane_inverse_dynamics(chain, q, qd, qdd,
                                                                                        GRAVITY),
        "mbdlib mass_matrix (M q̈)": lambda q, qd, qdd: mbdlib.mass_matrix(chain, q) @ qdd,
        "mbdlib forward_dynamics (q̈ for τ = ID)": None,     # filled below: needs the reference τ
    }
    try:
        import modern_robotics as mr
        from bench_dynamics import modern_robotics_model

        model = modern_robotics_model(chain)
        libs["modern-robotics InverseDynamics"] = lambda q, qd, qdd: mr.InverseDynamics(
            q, qd, qdd, GRAVITY, np.zeros(6), *model)
    except ImportError:
        pass
    try:
        import pinocchio as pin
        pmodel = pin.buildModelFromXML(xml)
        pmodel.gravity.linear = GRAVITY
        pdata = pmodel.createData()
        libs["Pinocchio rnea"] = lambda q, qd, qdd: pin.rnea(pmodel, pdata, q, qd, qdd).copy()
    except ImportError:
        pass
    return chain, libs


def numeric_run(ns=NUMERIC_N) -> dict:
    """``{label: {n: seconds}}``; raises if a library's result disagrees with mbdlib's RNEA."""
    results: dict = {}
    for n in ns:
        chain, libs = numeric_libraries(n)
        rng = np.random.default_rng(n)
        q, qd, qdd = rng.uniform(-1.0, 1.0, (3, n))
        tau = mbdlib.rnea(chain, q, qd, qdd, GRAVITY)
        h = mbdlib.rnea(chain, q, qd, np.zeros(n), GRAVITY)
        libs["mbdlib forward_dynamics (q̈ for τ = ID)"] = (
            lambda q, qd, qdd, chain=chain, tau=tau: mbdlib.forward_dynamics(chain, q, qd, tau, GRAVITY))
        expected = {"mbdlib mass_matrix (M q̈)": tau - h, "mbdlib forward_dynamics (q̈ for τ = ID)": qdd}
        for label, f in libs.items():
            ref = expected.get(label, tau)
            err = np.abs(f(q, qd, qdd) - ref).max() / max(1.0, np.abs(ref).max())
            if err > TOL:
                raise AssertionError(f"{label}, n = {n}: differs from mbdlib's RNEA by {err:.1e}; not timed")
            results.setdefault(label, {})[n] = median_time(lambda f=f, x=(q, qd, qdd): f(*x), repeats=5)
    return results


def numeric_table(results: dict) -> str:
    ns = sorted({n for r in results.values() for n in r})
    rows = []
    for label, cases in results.items():
        p, local = exponent(sorted(cases), [cases[n] for n in sorted(cases)])
        rows.append([label, *(f"{cases[n] * 1e3:.3f}" if n in cases else "-" for n in ns),
                     f"{p:.2f}", f"{local:.2f}"])
    return table(rows, ["method", *(f"n={n} [ms]" for n in ns), "fitted p", "local p"])


def main() -> str:
    if bench_symbolic.LAST_RESULTS:
        symbolic, note = bench_symbolic.LAST_RESULTS, "from the symbolic benchmark above"
    else:
        seconds = 20.0
        symbolic = bench_symbolic.run(range(2, 7), seconds=seconds)
        note = f"own run, n = 2..6, budget {seconds:g} s per case"
    return (f"Cost vs number of links n, fitted time ∝ n^p ({machine()})\n"
            f"Symbolic derivation of the n-link spatial pendulum ({note})\n" + symbolic_table(symbolic)
            + "\n\nNumeric inverse dynamics etc. of the n-link spatial pendulum (same URDF text for every "
              "library; agreement with mbdlib's RNEA checked at every n), ms per call\n"
            + numeric_table(numeric_run()))


if __name__ == "__main__":
    print(main())
