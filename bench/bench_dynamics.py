"""Numeric dynamics of real arms (UR5, Panda): mbdlib vs modern-robotics vs Pinocchio, one process.

For each robot the same URDF text gives every library its model: ``mbdlib/data/ur5.urdf``, and
``mbdlib/data/panda.urdf`` when it exists, else the Panda of the optional ``example-robot-data``
package (``pip install "mbdlib[robots]"``) with its two finger joints locked (``fixed``), so that
the 7-joint arm with its hand is a serial chain that modern-robotics can take too:

* **mbdlib readable**: :func:`mbdlib.rnea` (inverse dynamics), :func:`mbdlib.mass_matrix`
  (CRBA), :func:`mbdlib.forward_dynamics` on the :class:`~mbdlib.Chain` of
  :func:`mbdlib.urdf.load_urdf`;
* **mbdlib generated**: the robot's symbolic equations ``τ = M q̈ + h + G`` from
  :func:`mbdlib.kane_equations` (``expand=False``), M(q) and (h + G)(q, q̇) made numeric with
  :func:`mbdlib.lambdify_matrix` (``backend="llvm"``: symengine compiles them to machine code) as
  τ(q, q̇, q̈) = M q̈ + h + G, M(q) and [M | h + G](q, q̇) (forward dynamics: its Cholesky solve);
* **generated, numpy**: the same formulas through ``lambdify_matrix(backend="sympy")`` (NumPy code
  from ``sympy.lambdify``, what mbdlib falls back to without symengine);
* **modern-robotics** (``pip install modern-robotics``): ``InverseDynamics``, ``MassMatrix``,
  ``ForwardDynamics`` with ``Mlist, Glist, Slist`` built from the mbdlib Chain at q = 0
  (:func:`modern_robotics_model`);
* **Pinocchio** (``pip install pin``): ``buildModelFromXML`` on the same text, ``rnea``,
  ``crba``, ``aba``.

Gravity is (0, 0, -9.81) m/s² for everyone.  Before timing, every library is evaluated at a
few random states and compared with mbdlib readable; a library that differs by more than
1e-9 (relative to the largest entry) is not timed ("disagrees").  Times are medians of
repeats (:func:`_timing.median_time`), per call, in µs.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys
import time
from pathlib import Path

import numpy as np
import sympy as sp
from scipy.linalg.lapack import dposv

sys.path.insert(0, str(Path(__file__).parent))

from _timing import machine, median_time, table  # noqa: E402
from bench_symbolic import OverBudget, budget  # noqa: E402

import mbdlib  # noqa: E402
from mbdlib.kinematics import forward_kinematics  # noqa: E402
from mbdlib.urdf import course_robots, data_path, load_urdf  # noqa: E402

EXAMPLE_PANDA = "robots/panda_description/urdf/panda.urdf"   # in example-robot-data
GRAVITY = np.array([0.0, 0.0, -9.81])
TOL = 1e-9                 # relative agreement required before timing
DERIVE_BUDGET = 180.0      # seconds for the symbolic derivation + lambdify of one robot
OPERATIONS = ("inverse dynamics", "mass matrix", "forward dynamics")


# --------------------------------------------------------------------------- the robots
def _example_robot_file(suffix: str):
    """Path of a file of the optional example-robot-data package, or None."""
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in dist.files or ():
        if str(f).replace("\\", "/").endswith(suffix):
            return Path(dist.locate_file(f))
    return None


def robots() -> list:
    """``[(label, urdf_text or None, where it comes from or why it is missing)]``."""
    out = [("UR5", data_path("ur5").read_text(), "mbdlib/data/ur5.urdf")]
    if "panda.urdf" in course_robots():
        out.append(("Panda", data_path("panda").read_text(), "mbdlib/data/panda.urdf"))
    elif (path := _example_robot_file(EXAMPLE_PANDA)) is not None:
        finger = r'(<joint name="panda_finger_joint\d" type=)"prismatic"'
        text = re.sub(finger, r'\1"fixed"', path.read_text())
        out.append(("Panda", text, "example-robot-data panda.urdf, finger joints locked"))
    else:
        out.append(("Panda", None, "no mbdlib/data/panda.urdf and example-robot-data not installed"))
    return out


# --------------------------------------------------------------------------- mbdlib
def readable(chain: mbdlib.Chain) -> dict:
    """mbdlib's recursive algorithms: ``{operation: f(q, qd, x)}`` (x = q̈ or τ; M ignores qd, x)."""
    return {"inverse dynamics": lambda q, qd, qdd: mbdlib.rnea(chain, q, qd, qdd, GRAVITY),
            "mass matrix": lambda q, qd, x: mbdlib.mass_matrix(chain, q),
            "forward dynamics": lambda q, qd, tau: mbdlib.forward_dynamics(chain, q, qd, tau, GRAVITY)}


def _cholesky_solve(M, b):
    """x of M x = b for a symmetric positive definite M: LAPACK's dposv (Cholesky and solve) called
    directly, which skips the ~20 µs of checks that ``scipy.linalg.cho_factor``/``cho_solve`` add."""
    _, x, info = dposv(M, b)
    if info:
        raise np.linalg.LinAlgError(f"the generated mass matrix is not positive definite (dposv info {info})")
    return x


def derive(chain: mbdlib.Chain, seconds: float = DERIVE_BUDGET):
    """Symbolic equations and the two generated variants, or None past the budget.

    One derivation (``kane_equations(..., expand=False)``: ``τ = M q̈ + h + G``), made numeric twice by
    :func:`mbdlib.lambdify_matrix`, with ``backend="llvm"`` (symengine compiles to machine code) and
    ``backend="sympy"`` (NumPy code), as three functions: τ(q, q̇, q̈) = M q̈ + h + G (inverse
    dynamics), M(q), and [M | h + G](q, q̇), whose Cholesky solve (LAPACK ``dposv``) is forward dynamics.

    Returns ``(generated, generated_numpy, times)``: two ``{operation: f}`` dicts and
    ``{"derive": s, "llvm": s, "numpy": s}`` (seconds to derive and to build each variant).
    """
    n = chain.n
    try:
        with budget(seconds):
            t0 = time.perf_counter()
            eq = mbdlib.kane_equations(chain, gravity=GRAVITY, expand=False)   # τ = M q̈ + h + G
            h = eq.h + eq.G
            formulas = ((eq.M * sp.Matrix(eq.qdd) + h, [eq.q, eq.qd, eq.qdd], False),
                        (eq.M, [eq.q], True), (eq.M.row_join(h), [eq.q, eq.qd], True))
            t1 = time.perf_counter()
            fast = [mbdlib.lambdify_matrix(e, a, matrix=m, backend="llvm") for e, a, m in formulas]
            t2 = time.perf_counter()
            slow = [mbdlib.lambdify_matrix(e, a, matrix=m, backend="sympy") for e, a, m in formulas]
            t3 = time.perf_counter()
    except OverBudget:
        return None

    def operations(tau_f, M_f, Mh_f):
        def forward(q, qd, tau):
            Mh = Mh_f(q, qd)
            return _cholesky_solve(Mh[:, :n], tau - Mh[:, n])

        return {"inverse dynamics": tau_f, "mass matrix": lambda q, qd, x: M_f(q),
                "forward dynamics": forward}

    return operations(*fast), operations(*slow), {"derive": t1 - t0, "llvm": t2 - t1, "numpy": t3 - t2}


# --------------------------------------------------------------------------- modern-robotics
def modern_robotics_model(chain: mbdlib.Chain):
    """``(Mlist, Glist, Slist)`` of Modern Robotics (Lynch & Park 2017, §8.3.2) for a serial chain.

    Link frame {i} of Modern Robotics sits at the centre of mass of link i with the axes of
    mbdlib's body frame i, so its spatial inertia is ``G_i = diag(I_Ci, m_i 1)`` (eq. 8.32,
    I_Ci the central inertia in body axes).  At q = 0 (mbdlib's forward kinematics) frame {i}
    has the pose ``T_i = (A_i, r_i + A_i d_i)``; ``Mlist[i] = T_{i-1}^{-1} T_i`` (``T_0 = 1``)
    plus a last identity for the end-effector frame.  Screw axis of joint i in the space frame
    (eq. 4.1): revolute ``S_i = (ω_i, -ω_i × r_i)`` with ``ω_i = A_i k_i``, prismatic
    ``S_i = (0, A_i k_i)``.

    Parameters
    ----------
    chain : Chain
        A serial chain (link i's parent is link i - 1) with numeric parameters.

    Returns
    -------
    Mlist : list of ndarray (4, 4), length n + 1
    Glist : list of ndarray (6, 6), length n
    Slist : ndarray (6, n)
    """
    n = chain.n
    if chain.parents != list(range(-1, n - 1)):
        raise mbdlib.ModelError(f"chain {chain.name!r} is a tree (parents {chain.parents}); Modern Robotics "
                                "handles serial chains only")
    kin = forward_kinematics(chain, np.zeros(n))
    T = [np.eye(4)]
    Glist, Slist = [], np.zeros((6, n))
    for i, link in enumerate(chain.links):
        A = kin.A[i]
        Ti = np.eye(4)
        Ti[:3, :3], Ti[:3, 3] = A, kin.r[i] + A @ kin.d[i]
        T.append(Ti)
        G = np.zeros((6, 6))
        G[:3, :3], G[3:, 3:] = link.body.inertia, link.body.mass * np.eye(3)   # G_i = diag(I_C, m 1)
        Glist.append(G)
        axis = A @ link.joint.axis
        if link.joint.kind == "revolute":
            Slist[:, i] = np.concatenate([axis, -np.cross(axis, kin.r[i])])    # S = (ω, -ω × r)
        else:
            Slist[:, i] = np.concatenate([np.zeros(3), axis])                  # S = (0, v)
    Mlist = [np.linalg.solve(T[i - 1], T[i]) for i in range(1, n + 1)] + [np.eye(4)]
    return Mlist, Glist, Slist


def modern_robotics(chain: mbdlib.Chain):
    """``{operation: f}`` of the modern-robotics package, or a string saying why there is none."""
    try:
        import modern_robotics as mr
    except ImportError:
        return "not installed"
    try:
        Mlist, Glist, Slist = modern_robotics_model(chain)
    except mbdlib.ModelError:
        return "tree: serial chains only"
    model = (Mlist, Glist, Slist)
    F_tip = np.zeros(6)                          # no wrench at the end effector
    return {"inverse dynamics": lambda q, qd, qdd: mr.InverseDynamics(q, qd, qdd, GRAVITY, F_tip, *model),
            "mass matrix": lambda q, qd, x: mr.MassMatrix(q, *model),
            "forward dynamics": lambda q, qd, tau: mr.ForwardDynamics(q, qd, tau, GRAVITY, F_tip, *model)}


# --------------------------------------------------------------------------- Pinocchio
def pinocchio(urdf: str, n: int):
    """``{operation: f}`` of Pinocchio from the URDF text, or a string saying why there is none."""
    try:
        import pinocchio as pin
    except ImportError:
        return "not installed"
    model = pin.buildModelFromXML(urdf)
    if model.nv != n or model.nq != n:
        return f"nq = {model.nq}, nv = {model.nv} in Pinocchio, n = {n} in mbdlib"
    model.gravity.linear = GRAVITY
    data = model.createData()

    M = pin.crba(model, data, np.ones(n))
    if not np.any(np.tril(M, -1)):                   # Pinocchio 2 filled the upper triangle only
        def crba(q):
            M = pin.crba(model, data, q)
            return np.triu(M) + np.triu(M, 1).T
    else:
        def crba(q):
            return pin.crba(model, data, q).copy()

    return {"inverse dynamics": lambda q, qd, qdd: pin.rnea(model, data, q, qd, qdd).copy(),
            "mass matrix": lambda q, qd, x: crba(q),
            "forward dynamics": lambda q, qd, tau: pin.aba(model, data, q, qd, tau).copy()}


# --------------------------------------------------------------------------- agreement and timing
def states(n: int, count: int = 3, seed: int = 0):
    """Random (q, q̇, q̈ or τ) triples, entries in [-1, 1]."""
    rng = np.random.default_rng(seed)
    return [tuple(rng.uniform(-1.0, 1.0, (3, n))) for _ in range(count)]


def difference(reference: dict, other: dict, n: int) -> dict:
    """Max |other - reference| per operation over :func:`states`, relative to max(1, max |reference|)."""
    out = {}
    for op in OPERATIONS:
        worst = 0.0
        for q, qd, x in states(n):
            ref = np.asarray(reference[op](q, qd, x), dtype=float)
            val = np.asarray(other[op](q, qd, x), dtype=float).reshape(ref.shape)
            worst = max(worst, np.abs(val - ref).max() / max(1.0, np.abs(ref).max()))
        out[op] = worst
    return out


def measure(urdf: str, seconds: float = DERIVE_BUDGET) -> dict:
    """Everything for one robot: ``{"times": {lib: {op: s or str}}, "diff": {lib: {op: d}}, ...}``."""
    chain = load_urdf(urdf)
    n = chain.n
    libs = {"mbdlib readable": readable(chain)}
    gen = derive(chain, seconds)
    if gen is None:
        libs["mbdlib generated"] = libs["generated, numpy"] = f"derivation > {seconds:g} s"
        derive_times = None
    else:
        libs["mbdlib generated"], libs["generated, numpy"], derive_times = gen
    libs["modern-robotics"] = modern_robotics(chain)
    libs["Pinocchio"] = pinocchio(urdf, n)
    q, qd, x = states(n, 1, seed=1)[0]
    times, diffs = {}, {}
    for name, funcs in libs.items():
        if isinstance(funcs, str):
            times[name] = {op: funcs for op in OPERATIONS}
            continue
        if name != "mbdlib readable":
            diffs[name] = difference(libs["mbdlib readable"], funcs, n)
        times[name] = {}
        for op in OPERATIONS:
            if diffs.get(name, {}).get(op, 0.0) > TOL:
                times[name][op] = "disagrees"                  # refuse to time a different answer
            else:
                times[name][op] = median_time(lambda f=funcs[op]: f(q, qd, x))
    return {"times": times, "diff": diffs, "derive": derive_times, "n": n}


def _versions() -> str:
    out = []
    for dist in ("modern-robotics", "pin"):
        try:
            out.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{dist} not installed")
    return ", ".join(out)


def _us(t) -> str:
    return t if isinstance(t, str) else f"{t * 1e6:.1f}"


def _ratio(a, b) -> str:
    return "-" if isinstance(a, str) or isinstance(b, str) else f"{a / b:.1f}"


def report(robot: str, source: str, result: dict) -> str:
    times, diffs, n = result["times"], result["diff"], result["n"]
    libs = list(times)
    rows = [[op, *(_us(times[lib][op]) for lib in libs),
             _ratio(times["modern-robotics"][op], times["mbdlib readable"][op]),
             _ratio(times["mbdlib generated"][op], times["Pinocchio"][op]),
             _ratio(times["generated, numpy"][op], times["Pinocchio"][op])] for op in OPERATIONS]
    header = ["operation", *(f"{lib} [µs]" for lib in libs), "MR / readable (target >= 2)",
              "generated / Pinocchio (target <= 20)", "generated numpy / Pinocchio"]
    d = result["derive"]
    derived = ("symbolic equations over budget" if d is None else
               f"generated path: kane_equations {d['derive']:.1f} s, compiled by symengine/LLVM in "
               f"{d['llvm']:.1f} s (NumPy variant by sympy.lambdify: {d['numpy']:.1f} s)")
    agree = [[op, *(f"{diffs[lib][op]:.1e}" if lib in diffs else "-" for lib in libs[1:])]
             for op in OPERATIONS]
    return (f"{robot} ({source}): n = {n} joints; {derived}\n" + table(rows, header)
            + "\nmax relative difference to mbdlib readable (3 random states)\n"
            + table(agree, ["operation", *libs[1:]]))


def main(seconds: float = DERIVE_BUDGET) -> str:
    parts = [f"Dynamics of real arms, same URDF everywhere, µs per call ({machine()}; {_versions()})"]
    for robot, urdf, source in robots():
        parts.append(f"{robot}: skipped ({source})" if urdf is None
                     else report(robot, source, measure(urdf, seconds)))
    return "\n\n".join(parts)


if __name__ == "__main__":
    print(main())
