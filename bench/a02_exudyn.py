"""The IFToMM A02 "N-four-bar" benchmark in Exudyn: the peer of the constrained-simulation benchmark.

N + 1 cranks (1 m, pinned to the ground at x = 0, 1, ..., N) and N couplers (1 m) joining the crank
tips; every bar uniform, 1 kg, centroidal inertia 1/12 kg m^2; gravity 9.81 m/s^2 along -y.  Start:
cranks vertical, couplers horizontal at y = 1, every crank tip moving at +1 m/s in x.  Simulated
for 20 s with Exudyn's generalized-alpha solver (index 3, fixed step h); the error is the largest
distance of the first crank's tip from the exact motion (``mbdlib.catalogue.n_fourbar_exact``).
The benchmark asks for at most 1e-3 m.

The model is planar: per bar a ``NodeRigidBody2D`` (coordinates x, y, angle) and an
``ObjectRigidBody2D``, ``MarkerBodyPosition`` at the bar ends, ``ObjectJointRevolute2D``
for the pins, ``MarkerBodyMass`` + ``LoadMassProportional`` for gravity and a ``SensorBody``
(``storeInternal=True``, no file) at the first crank's tip, read back with
``mbs.GetSensorStoredData``.  The API is the one documented for Exudyn 1.13: the item reference
(docs/RST/items/*.rst of github.com/jgerstmayr/EXUDYN, the same text as the docstrings of the
installed ``exudyn/itemInterface.py``: NodeRigidBody2D, ObjectRigidBody2D, ObjectGround,
ObjectJointRevolute2D, MarkerBodyPosition, MarkerBodyMass, LoadMassProportional, SensorBody),
``exudyn.SimulationSettings`` (``timeIntegration``, ``timeIntegration.generalizedAlpha``,
``linearSolver.solverType``, ``solution.file.write``, ``solution.sensors.writePeriod``, ``show``),
``exudyn.config.printToConsole`` and ``exudyn.solver.SolveDynamic``.  In 1.13 the older names
``linearSolverType``, ``solutionSettings``, ``displayComputationTime``, ``displayStatistics`` and
``exu.SetWriteToConsole`` are deprecated (they warn); the new names are used here.

The flat positions (all cranks horizontal, theta = 0 or pi, passed several times in 20 s) are
singular: the constraint Jacobian loses rank there.  With Exudyn's default Newton settings
(relative tolerance 1e-8, modified Newton, 25 iterations) a step that lands very near a flat position
stalls: the residual stops falling at a round-off floor (about 2e-4, 5e-6 of the step's first
residual), and the solver stops with ``SolverError``.  Measured with exudyn 1.13.6, h = 1e-3 and the
sparse solver: N = 17, 20, 29 and 32 stop (at t = 0.721, 9.100, 9.104 and 4.652 s; N = 20 with the
dense solvers too), while N = 1, 2, 5, 10, 11, 14, 23, 26, 35, 38 and 40 finish with an error of
4.0e-4 m.  Step-size reduction (``adaptiveStep``) does not help (at N = 20 it went down to the
minimum step and stopped at the same t), and the other settings tried only move the failures: a
relative tolerance of 1e-6 stops at N = 30 and 33 instead (all other N of 1..40 finish, 1.1e-4 to
2.1e-4 m); a Newton-increment criterion (``residualMode = 1``, 1e-10) stops at N = 32, a Jacobian
update per step at N = 17, 20 and 29.
So the defaults are kept, and a run that stops is reported as stopped (error ``inf``).

Run: ``.venv/bin/python bench/a02_exudyn.py [N ...]`` (default N = 1 2 5 10 20 40); needs
``pip install "mbdlib[bench]"`` (exudyn==1.13.6).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from mbdlib.catalogue import n_fourbar_exact

G = 9.81
MASS, INERTIA, LENGTH = 1.0, 1.0 / 12.0, 1.0


def _build(N: int):
    """The A02 model in a fresh Exudyn system; returns (SystemContainer, mbs, tip sensor)."""
    import exudyn as exu
    from exudyn.itemInterface import (
        LoadMassProportional,
        MarkerBodyMass,
        MarkerBodyPosition,
        NodeRigidBody2D,
        ObjectGround,
        ObjectJointRevolute2D,
        ObjectRigidBody2D,
        SensorBody,
    )

    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    ground = mbs.AddObject(ObjectGround())
    half = 0.5 * LENGTH

    def bar(pose, vel):
        node = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=list(pose), initialVelocities=list(vel)))
        body = mbs.AddObject(ObjectRigidBody2D(mass=MASS, inertia=INERTIA, nodeNumber=node))
        mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=body)),
                                         loadVector=[0.0, -G, 0.0]))
        return body

    def pin(body_i, p_i, body_j, p_j):
        mi = mbs.AddMarker(MarkerBodyPosition(bodyNumber=body_i, localPosition=[*p_i, 0.0]))
        mj = mbs.AddMarker(MarkerBodyPosition(bodyNumber=body_j, localPosition=[*p_j, 0.0]))
        mbs.AddObject(ObjectJointRevolute2D(markerNumbers=[mi, mj]))

    # crank k: centre (k, 1/2), angle pi/2, the centre moving at half the tip speed, rate -1 rad/s
    cranks = [bar((k, half, 0.5 * np.pi), (0.5, 0.0, -1.0)) for k in range(N + 1)]
    # coupler k: centre (k + 1/2, 1), horizontal, translating at (1, 0) m/s
    couplers = [bar((k + half, LENGTH, 0.0), (1.0, 0.0, 0.0)) for k in range(N)]
    for k, crank in enumerate(cranks):  # local x runs from the pivot (-L/2) to the tip (+L/2)
        pin(ground, (float(k), 0.0), crank, (-half, 0.0))
    for k, coupler in enumerate(couplers):
        pin(cranks[k], (half, 0.0), coupler, (-half, 0.0))
        pin(coupler, (half, 0.0), cranks[k + 1], (half, 0.0))
    sensor = mbs.AddSensor(SensorBody(bodyNumber=cranks[0], localPosition=[half, 0.0, 0.0], writeToFile=False,
                                      outputVariableType=exu.OutputVariableType.Position, storeInternal=True))
    mbs.Assemble()
    return SC, mbs, sensor


def exudyn_a02(N: int, h: float = 1e-3, t_end: float = 20.0, sparse: bool = True) -> dict:
    """Simulate A02 with N four-bars in Exudyn (generalized-alpha, index 3, fixed step h).

    Returns ``dict(N, error, cpu, steps, solver, h)``: error is the largest distance (m) of the first
    crank's tip from the exact solution over [0, t_end], cpu the process CPU seconds of the solve
    alone (``time.process_time``; building the model and the exact solution are not counted), steps
    the steps done.  Exudyn's Newton settings are its defaults.  If the solver stops (``SolverError``,
    see the module docstring), error is ``inf``, steps the steps done before, and the solver text says
    when it stopped.
    """
    import exudyn as exu

    SC, mbs, sensor = _build(N)
    steps = int(round(t_end / h))
    s = exu.SimulationSettings()
    s.timeIntegration.solverType = exu.DynamicSolverType.GeneralizedAlpha
    s.timeIntegration.endTime = steps * h
    s.timeIntegration.numberOfSteps = steps
    s.timeIntegration.adaptiveStep = False              # fixed step h, no step-size reduction
    s.timeIntegration.verboseMode = 0
    s.timeIntegration.generalizedAlpha.useIndex2Constraints = False   # index 3
    s.timeIntegration.generalizedAlpha.useNewmark = False
    s.linearSolver.solverType = exu.LinearSolverType.EigenSparse if sparse else exu.LinearSolverType.EXUdense
    s.solution.file.write = False
    s.solution.sensors.writePeriod = h                  # the sensor stores every step, in memory
    s.show.computationTime = False
    s.show.statistics = False

    quiet = exu.config.printToConsole
    exu.config.printToConsole = False                   # Exudyn's messages at solve time
    failed = None
    try:
        t0 = time.process_time()
        try:
            mbs.SolveDynamic(s)
        except exu.SolverError:                         # Newton stalled near a flat (singular) position
            failed = mbs.sys["dynamicSolver"].it.currentTime
        cpu = time.process_time() - t0
    finally:
        exu.config.printToConsole = quiet

    data = mbs.GetSensorStoredData(sensor)             # columns: t, x, y, z; a row per step and t = 0
    done = len(data) - 1
    t, tip = data[:, 0], data[:, 1:3]
    theta, _ = n_fourbar_exact(N, t)
    exact = np.column_stack([np.cos(theta), np.sin(theta)])
    error = float(np.max(np.linalg.norm(tip - exact, axis=1))) if failed is None else float("inf")
    del SC
    solver = "Exudyn generalized-alpha, " + ("sparse" if sparse else "dense")
    if failed is not None:
        solver += f"; Newton failed at t = {failed:.3f} s"
    return dict(N=N, error=error, cpu=cpu, steps=done, solver=solver, h=h)


def main(argv: list[str]) -> None:
    Ns = [int(a) for a in argv] or [1, 2, 5, 10, 20, 40]
    print("| N | solver | error (m) | within 1e-3 m | CPU (s) | steps |")
    print("|---|---|---|---|---|---|")
    for N in Ns:
        for sparse in (True, False):
            r = exudyn_a02(N, sparse=sparse)
            ok = "yes" if r["error"] <= 1e-3 else "NO"
            print(f"| {r['N']} | {r['solver']} | {r['error']:.2e} | {ok} | {r['cpu']:.2f} | {r['steps']} |",
                  flush=True)

if __name__ == "__main__":
    main(sys.argv[1:])
