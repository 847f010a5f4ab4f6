"""Oracles for the tests and the benchmarks: the same systems written with another library.

``rolling_disk_kanes_method``: a thin disk rolling without slipping on the plane z = 0, in
``sympy.physics.mechanics.KanesMethod`` (heading, lean, spin; independent speeds), the peer of
:meth:`mbdlib.spatial.SpatialModel.add_rolling_disk` (tests/test_spatial_dynamics.py) and of the
chapter 7 exercises' keys (tests/test_exercises_ch07.py).

``fourbar_kanes_method``: chapter 5's four-bar arm in ``sympy.physics.mechanics.KanesMethod`` with
dependent coordinates and speeds, the peer against which the recursive Kane algorithm of
:mod:`mbdlib.mechanisms` is checked (tests/test_fourbar_arm.py) and timed (bench/bench_fourbar.py).
It is not part of the library: mbdlib never needs sympy.physics.mechanics.

``second_derivative_along`` / ``first_derivative_along``: stencils that are exact for polynomials, the
oracle of the closed-form γ and b_γ of :mod:`mbdlib.spatial_joints` and :mod:`mbdlib.spatial`.

``meijaard_bicycle_matrices``, ``MEIJAARD_TABLE2_*`` and ``whipple_matrices``: the benchmark bicycle of
Meijaard et al. (2007) — its published linearized equations, eigenvalues and critical speeds, and the
paper's closed-form matrices for any parameters — against which the library's spatial model
(:func:`mbdlib.vehicles.benchmark_bicycle`) is checked (tests/test_vehicles.py); ``whipple_kanes_method``:
the same bicycle derived in ``sympy.physics.mechanics.KanesMethod`` (tests/extended/test_bicycle_sympy.py).
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from sympy.physics import mechanics as me

from mbdlib.mechanisms import _VECTORS, FourBarArm, _exact


# ---------------------------------------------------------------------- the peer: sympy.physics.mechanics
def fourbar_kanes_method(arm: FourBarArm):
    """The same arm in ``sympy.physics.mechanics.KanesMethod`` with dependent coordinates and speeds.

    The peer formulation for the tests and the benchmark: four absolute angles
    (q1, q2 independent; th2, th4 dependent), the loop as two configuration
    constraints and their time derivatives as velocity constraints (Kane &
    Levinson 1985, §2.13; sympy's "nonholonomic" KanesMethod).

    Returns
    -------
    dict
        ``km`` (the KanesMethod after ``kanes_equations``), ``fr``, ``frstar``,
        ``q`` (q1, q2, th2, th4), ``u`` (u1, u2, u3, u4: rates of the same),
        ``tau`` (tau1, tau2), ``velocity_constraints`` (list of 2).
    """
    p = {k: [_exact(x) for x in v] if k in _VECTORS else _exact(v) for k, v in arm.params.items()}
    q1, q2, th2, th4 = q = me.dynamicsymbols("q1 q2 th2 th4")
    u = me.dynamicsymbols("u1 u2 u3 u4")
    tau = sp.symbols("tau1 tau2")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    frames = []
    for k, (angle, rate) in enumerate(zip((q1, th2, q2, th4), (u[0], u[2], u[1], u[3]), strict=True)):
        F = N.orientnew(f"F{k + 1}", "Axis", (angle, N.z))
        F.set_ang_vel(N, rate * N.z)
        frames.append(F)
    F1, F2, F3, F4 = frames
    E = O.locatenew("E", p["L1"] * F1.x)
    A = O.locatenew("A", p["L3"] * F3.x)
    E.v2pt_theory(O, N, F1)
    A.v2pt_theory(O, N, F3)
    joints = (O, E, O, A)
    bodies, loads = [], []
    for k, (J, F) in enumerate(zip(joints, frames, strict=True)):
        d = p[f"d{k + 1}"]
        C = J.locatenew(f"C{k + 1}", d[0] * F.x + d[1] * F.y)
        C.v2pt_theory(J, N, F)
        m = p[f"m{k + 1}"]
        bodies.append(me.RigidBody(f"link{k + 1}", C, F, m, (me.inertia(F, 0, 0, p[f"I{k + 1}"]), C)))
        loads.append((C, -m * p["g"] * N.y))
    P = E.locatenew("P", p["L2"] * F2.x)
    P.v2pt_theory(E, N, F2)
    loads += [(F1, tau[0] * N.z), (F3, tau[1] * N.z), (P, p["F_tip"][0] * N.x + p["F_tip"][1] * N.y)]
    loop = (A.pos_from(O) + p["L4"] * F4.x) - (E.pos_from(O) + p["b2"][0] * F2.x + p["b2"][1] * F2.y)
    config = [loop.dot(N.x), loop.dot(N.y)]
    qdot = {sp.diff(qi, me.dynamicsymbols._t): ui for qi, ui in zip(q, u, strict=True)}
    velocity = [sp.diff(c, me.dynamicsymbols._t).subs(qdot) for c in config]
    kd = [sp.diff(qi, me.dynamicsymbols._t) - ui for qi, ui in zip(q, u, strict=True)]
    km = me.KanesMethod(N, q_ind=[q1, q2], u_ind=u[:2], kd_eqs=kd, q_dependent=[th2, th4],
                        configuration_constraints=config, u_dependent=u[2:], velocity_constraints=velocity)
    fr, frstar = km.kanes_equations(bodies, loads)
    return {"km": km, "fr": fr, "frstar": frstar, "q": tuple(q), "u": tuple(u), "tau": tau,
            "velocity_constraints": velocity}


def rolling_disk_kanes_method(radius, mass, g):
    """The rolling disk by Kane's method: heading q1 about N.z, lean q2 about Y.x, spin q3 about L.y (the
    disk's axis); generalized speeds u = the disk's angular velocity in the lean frame L; the contact point
    at rest (rolling), the centre at ``radius`` along L.z; uniform thin disk; weight ``mass g`` along −N.z.
    ``radius``, ``mass``, ``g``: numbers or sympy symbols.

    Returns ``{"KM", "q", "u", "N", "L", "D", "contact", "centre"}`` with ``kanes_equations`` done.
    """
    q1, q2, q3 = me.dynamicsymbols("q1:4")
    u1, u2, u3 = me.dynamicsymbols("u1:4")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    D = L.orientnew("D", "Axis", [q3, L.y])
    w_of_qd = D.ang_vel_in(N)
    D.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    contact = me.Point("C")
    contact.set_vel(N, 0)
    centre = contact.locatenew("O", radius * L.z)
    centre.v2pt_theory(contact, N, D)
    inertia = me.inertia(L, mass * radius**2 / 4, mass * radius**2 / 2, mass * radius**2 / 4)
    disk = me.RigidBody("disk", centre, D, mass, (inertia, centre))
    KM = me.KanesMethod(N, q_ind=[q1, q2, q3], u_ind=[u1, u2, u3],
                        kd_eqs=[me.dot(D.ang_vel_in(N) - w_of_qd, e) for e in L])
    KM.kanes_equations([disk], [(centre, -mass * g * N.z)])
    return {"KM": KM, "q": [q1, q2, q3], "u": [u1, u2, u3], "N": N, "L": L, "D": D, "contact": contact,
            "centre": centre}


# ---------------------------------------------------------------------- exact stencils for polynomials
def second_derivative_along(f, q, v):
    """``d²/ds² f(q + s v)`` at ``s = 0``, exactly for a polynomial ``f`` of degree ≤ 5 in ``q``.

    The central five-point stencil ``(−f₂ + 16 f₁ − 30 f₀ + 16 f₋₁ − f₋₂) / (12 h²)`` has no truncation
    error up to degree 5; the step scales ``v`` to about unit size, so round-off stays at a few ulps of f.
    Every spatial joint equation is a polynomial of degree ≤ 4 in q (``A(p)`` is quadratic in p), so this
    is ``(Φ_q q̇)_q q̇`` exactly: the oracle of the closed-form γ (it was the library's γ before issue 22).
    """
    h = 1.0 / max(float(np.max(np.abs(v))), 1e-300)
    vals = [np.asarray(f(q + k * h * v), dtype=float) for k in (2, 1, 0, -1, -2)]
    return (-vals[0] + 16 * vals[1] - 30 * vals[2] + 16 * vals[3] - vals[4]) / (12 * h * h)


_D1 = np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0.0, 4 / 5, -1 / 5, 4 / 105, -1 / 280])


def first_derivative_along(f, q, v, scale=0.25):
    """``d/ds f(q + s v)`` at ``s = 0``, exactly for a polynomial ``f`` of degree ≤ 8 (the central
    nine-point stencil has no truncation error up to degree 8; the rolling rows ``B(q) q̇`` are of degree
    ≤ 5 in q).  For a smooth non-polynomial f (a driver's time function) it is of eighth order."""
    h = scale / max(float(np.max(np.abs(v))), 1e-300)
    terms = [c * np.asarray(f(q + k * h * v), dtype=float)
             for c, k in zip(_D1, range(-4, 5), strict=True) if c]
    return sum(terms) / h


# ---------------------------------------------------------------------- the benchmark bicycle
# The reference values of the benchmark bicycle of Meijaard, Papadopoulos, Ruina & Schwab (2007, Proc. R.
# Soc. A 463, 1955-1982), carried over as published; the model itself is mbdlib.vehicles.benchmark_bicycle.
def meijaard_bicycle_matrices():
    """The linearized equations of the benchmark bicycle, ``M q̈ + v C1 q̇ + (g K0 + v² K2) q = f`` in
    q = (lean φ, steer δ), as published by Meijaard et al. (2007) for the parameters of their table 1
    (the entries printed to 14 decimals); g = 9.81.

    Returns ``{"M", "C1", "K0", "K2"}``, each (2, 2).
    """
    return {"M": np.array([[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]]),
            "C1": np.array([[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]]),
            "K0": np.array([[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]]),
            "K2": np.array([[0.0, 76.59734589573222], [0.0, 2.65431523794604]])}


# Meijaard et al. (2007), table 2 (p. 1971): the eigenvalues of the benchmark at v = 0, 1, ..., 10 m/s, as
# printed (14 decimals): per speed the real eigenvalues and one of each complex pair (the other is its
# conjugate).
MEIJAARD_TABLE2_EIGENVALUES = {
    0: [3.13164324790656, -3.13164324790656, 5.53094371765393, -5.53094371765393],
    1: [-3.13423125066578, -7.11008014637442, 3.52696170990070 + 0.80774027519930j],
    2: [-3.07158645641514, -8.67387984831735, 2.68234517512745 + 1.68066296590675j],
    3: [-2.63366137253667, -10.35101467245920, 1.70675605663975 + 2.31582447384325j],
    4: [-1.42944427361326, -12.15861426576450, 0.41325331521125 + 3.07910818603206j],
    5: [-0.32286642900409, -14.07838969279820, -0.77534188219585 + 4.46486771378823j],
    6: [-0.00406690076970, -16.08537123098030, -1.52644486584142 + 5.87673060598709j],
    7: [0.10268170574766, -18.15788466125262, -2.13875644258362 + 7.19525913329805j],
    8: [0.14327879765713, -20.27940894394569, -2.69348683581097 + 8.46037971396931j],
    9: [0.15790184030917, -22.43788559040858, -3.21675402252485 + 9.69377351531791j],
    10: [0.16105338653172, -24.62459635017404, -3.72016840437287 + 10.90681139476287j],
}
# Meijaard et al. (2007), table 2: the critical speeds (m/s) and the eigenvalues there. Below v_d the four
# eigenvalues are real; at v_d two of them meet (3.78290405129320 twice) and become the weave pair; at the
# weave speed v_w the pair crosses the imaginary axis at +-3.43503384866144i; at the capsize speed v_c the
# capsize eigenvalue crosses zero.
MEIJAARD_TABLE2_SPEEDS = {"v_d": 0.68428307889246, "v_w": 4.29238253634111, "v_c": 6.02426201538837}
MEIJAARD_TABLE2_AT_SPEEDS = {"v_d": 3.78290405129320, "v_w": 3.43503384866144j}


def whipple_matrices(p):
    """M, C1, K0, K2 of a Whipple bicycle from its table-1 parameters ``p`` (the names of
    ``mbdlib.vehicles.BENCHMARK``) by the closed-form expressions of Meijaard et al. (2007), appendix A,
    (A 1)-(A 27), written here from the paper: an oracle for other parameters than the benchmark's."""
    w, c, lam = p["w"], p["c"], p["lam"]
    rR, rF, mR, mB, mH, mF = p["rR"], p["rF"], p["mR"], p["mB"], p["mH"], p["mF"]
    xB, zB, xH, zH = p["xB"], p["zB"], p["xH"], p["zH"]
    sl, cl = np.sin(lam), np.cos(lam)
    mT = mR + mB + mH + mF                                                           # (A 1)
    xT = (xB * mB + xH * mH + w * mF) / mT                                           # (A 2)
    zT = (-rR * mR + zB * mB + zH * mH - rF * mF) / mT                               # (A 3)
    ITxx = (p["IRxx"] + p["IBxx"] + p["IHxx"] + p["IFxx"] + mR * rR**2 + mB * zB**2 + mH * zH**2
            + mF * rF**2)                                                            # (A 4)
    ITxz = p["IBxz"] + p["IHxz"] - mB * xB * zB - mH * xH * zH + mF * w * rF         # (A 5)
    IRzz, IFzz = p["IRxx"], p["IFxx"]                                                # (A 6)
    ITzz = IRzz + p["IBzz"] + p["IHzz"] + IFzz + mB * xB**2 + mH * xH**2 + mF * w**2  # (A 7)
    mA = mH + mF                                                                     # (A 8)
    xA, zA = (xH * mH + w * mF) / mA, (zH * mH - rF * mF) / mA                       # (A 9)
    IAxx = p["IHxx"] + p["IFxx"] + mH * (zH - zA) ** 2 + mF * (rF + zA) ** 2         # (A 10)
    IAxz = p["IHxz"] - mH * (xH - xA) * (zH - zA) + mF * (w - xA) * (rF + zA)        # (A 11)
    IAzz = p["IHzz"] + IFzz + mH * (xH - xA) ** 2 + mF * (w - xA) ** 2               # (A 12)
    uA = (xA - w - c) * cl - zA * sl                                                 # (A 13)
    IAll = mA * uA**2 + IAxx * sl**2 + 2 * IAxz * sl * cl + IAzz * cl**2             # (A 14)
    IAlx = -mA * uA * zA + IAxx * sl + IAxz * cl                                     # (A 15)
    IAlz = mA * uA * xA + IAxz * sl + IAzz * cl                                      # (A 16)
    mu = c / w * cl                                                                  # (A 17)
    SR, SF = p["IRyy"] / rR, p["IFyy"] / rF                                          # (A 18)
    ST = SR + SF
    SA = mA * uA + mu * mT * xT                                                      # (A 19)
    M = np.array([[ITxx, IAlx + mu * ITxz], [IAlx + mu * ITxz, IAll + 2 * mu * IAlz + mu**2 * ITzz]])
    K0 = np.array([[mT * zT, -SA], [-SA, -SA * sl]])
    K2 = np.array([[0.0, (ST - mT * zT) / w * cl], [0.0, (SA + SF * sl) / w * cl]])
    C1 = np.array([[0.0, mu * ST + SF * cl + ITxz / w * cl - mu * mT * zT],
                   [-(mu * ST + SF * cl), IAlz / w * cl + mu * (SA + ITzz / w * cl)]])
    return {"M": M, "C1": C1, "K0": K0, "K2": K2}


# ---------------------------------------------------------------------- the Whipple bicycle by Kane's method
def _triangular_solver(A, b):
    """Solve the bicycle's velocity constraints for (yaw rate, pitch rate, front-wheel rate), exactly.

    The rows are ordered (the rate of the front contact's height, its velocity across the wheel's heading,
    its velocity along it).  The first cannot contain the yaw rate (the height does not depend on the
    heading) nor the front wheel's spin, the second not the spin (a spinning wheel moves its contact
    point along its heading only): the matrix is lower triangular in (pitch, yaw, spin), and forward
    substitution is exact.  The zeros are asserted, not assumed.
    """
    import sympy as sp

    zeros = (A[0, 0], A[0, 2], A[1, 2])
    if any(sp.sympify(z) != 0 for z in zeros):
        raise AssertionError(f"the velocity constraints are not triangular: {zeros}")
    pitch = b[0, :] / A[0, 1]
    yaw = (b[1, :] - A[1, 1] * pitch) / A[1, 0]
    spin = (b[2, :] - A[2, 0] * yaw - A[2, 1] * pitch) / A[2, 2]
    return sp.Matrix.vstack(yaw, pitch, spin)


def exact_solver(A, b):
    """The bicycle's linear solver for ``KanesMethod.linearize``: the 1 x 1 configuration constraint by a
    division, the 3 x 3 velocity constraints by :func:`_triangular_solver` (both symbolic, exact), and the
    final system at the operating point, all numbers, by LAPACK with pivoting (sympy's LU of floats does not
    pivot on small entries)."""
    import sympy as sp

    if all(x.is_number for x in A) and all(x.is_number for x in b):
        return sp.Matrix(np.linalg.solve(np.array(A, dtype=float), np.array(b, dtype=float)))
    if A.shape == (1, 1):
        return b / A[0, 0]
    return _triangular_solver(A, b)


def whipple_kanes_method(p):
    """The Whipple bicycle with the parameters ``p`` (the names and axes of ``mbdlib.vehicles.BENCHMARK``)
    derived with ``sympy.physics.mechanics.KanesMethod``, independently of the library's spatial model.

    Frames: yaw q1 about the vertical, roll (lean) q2 about the yaw frame's x, pitch q3 about the rolled
    frame's y (the rear frame C is pitched back by the steer axis tilt λ so that C.z is the steer axis,
    upwards), steer q4 about the steer axis pointing down (right positive); the wheels turn on their hubs at
    the rates u5 (rear) and u6 (front), their angles ignorable and left out.  Speeds: u_i = q̇_i (i ≤ 4).
    The rear wheel rolls by construction (its contact point P has zero velocity and its centre moves by
    the two-point formula about it); the front contact Q, the lowest point of the front wheel, gives the
    holonomic constraint (its height is zero: q3 dependent) and three velocity constraints (the rate of the
    height, the velocity across and along the wheel's heading: u1, u3, u6 dependent), solved by
    :func:`_triangular_solver`.  Numbers (floats) replace the parameters from the start: the expressions stay
    small enough for ``KanesMethod.linearize``.  A steer torque T acts between frame and fork.

    Returns ``{"KM", "q", "u", "T"}`` with ``kanes_equations`` done.
    """
    import sympy as sp

    lam = p["lam"]
    q1, q2, q3, q4 = q = me.dynamicsymbols("q1:5")
    u1, u2, u3, u4, u5, u6 = u = me.dynamicsymbols("u1:7")
    T = me.dynamicsymbols("T")                              # an input: a function of time
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (q1, N.z))
    B = A.orientnew("B", "Axis", (q2, A.x))
    C = B.orientnew("C", "Axis", (q3 - lam, B.y))           # C.z: the steer axis, upwards
    E = C.orientnew("E", "Axis", (-q4, C.z))                # the fork
    for frame, parent, rate in ((A, N, u1 * N.z), (B, A, u2 * A.x), (C, B, u3 * B.y), (E, C, -u4 * C.z)):
        frame.set_ang_vel(parent, rate)
    C_axes = C.orientnew("C_axes", "Axis", (lam, C.y))      # the paper's axes on the frame (x forward)
    E_axes = E.orientnew("E_axes", "Axis", (lam, E.y))      # and on the fork
    R, F = me.ReferenceFrame("R"), me.ReferenceFrame("F")   # the wheels
    R.set_ang_vel(C, u5 * C.y)
    F.set_ang_vel(E, u6 * E.y)
    # points, upright reference pose in the model's axes (x forward, y left, z up; rear contact at 0)
    c, s = np.cos(lam), np.sin(lam)
    Cx, Cz = np.array([c, 0.0, s]), np.array([-s, 0.0, c])  # C.x and C.z in the reference pose
    rear_hub = np.array([0.0, 0.0, p["rR"]])
    d = (p["w"] + p["c"]) * c - p["rR"] * s                 # rear hub to the steer axis, along C.x
    on_axis = rear_hub + d * Cx

    def offset(point, origin, frame):
        r = np.asarray(point, dtype=float) - origin
        return float(r @ Cx) * frame.x + float(r @ Cz) * frame.z

    P = me.Point("P")
    P.set_vel(N, 0)
    Ro = P.locatenew("Ro", p["rR"] * B.z)
    Ro.v2pt_theory(P, N, R)
    Bo = Ro.locatenew("Bo", offset((p["xB"], 0.0, -p["zB"]), rear_hub, C))
    Bo.v2pt_theory(Ro, N, C)
    S = Ro.locatenew("S", d * C.x)
    S.v2pt_theory(Ro, N, C)
    Fo = S.locatenew("Fo", offset((p["w"], 0.0, p["rF"]), on_axis, E))
    Fo.v2pt_theory(S, N, E)
    Ho = S.locatenew("Ho", offset((p["xH"], 0.0, -p["zH"]), on_axis, E))
    Ho.v2pt_theory(S, N, E)
    e_z = E.y.dot(A.z)
    Q = Fo.locatenew("Q", p["rF"] * (e_z * E.y - A.z) / sp.sqrt(1 - e_z**2))   # the lowest point
    Q.v2pt_theory(Fo, N, F)
    height = Q.pos_from(P).dot(A.z)
    t = me.dynamicsymbols._t
    rates = {sp.diff(qi, t): ui for qi, ui in zip(q, u, strict=False)}
    heading = E.y.cross(A.z)                                 # horizontal, in the front wheel's plane
    velocity = [sp.diff(height, t).subs(rates), Q.vel(N).dot(A.z.cross(heading)), Q.vel(N).dot(heading)]
    g = p["g"]
    bodies = [
        me.RigidBody("rear", Ro, R, p["mR"], (me.inertia(C, p["IRxx"], p["IRyy"], p["IRxx"]), Ro)),
        me.RigidBody("frame", Bo, C, p["mB"],
                     (me.inertia(C_axes, p["IBxx"], p["IByy"], p["IBzz"], 0, 0, -p["IBxz"]), Bo)),
        me.RigidBody("fork", Ho, E, p["mH"],
                     (me.inertia(E_axes, p["IHxx"], p["IHyy"], p["IHzz"], 0, 0, -p["IHxz"]), Ho)),
        me.RigidBody("front", Fo, F, p["mF"], (me.inertia(E, p["IFxx"], p["IFyy"], p["IFxx"]), Fo)),
    ]
    loads = [(Ro, -p["mR"] * g * A.z), (Bo, -p["mB"] * g * A.z), (Ho, -p["mH"] * g * A.z),
             (Fo, -p["mF"] * g * A.z), (E, -T * C.z), (C, T * C.z)]
    kinematics = [sp.diff(qi, t) - ui for qi, ui in zip(q, u, strict=False)]
    KM = me.KanesMethod(N, q_ind=[q1, q2, q4], u_ind=[u2, u4, u5], q_dependent=[q3],
                        configuration_constraints=[height], u_dependent=[u1, u3, u6],
                        velocity_constraints=velocity, kd_eqs=kinematics,
                        constraint_solver=_triangular_solver)
    KM.kanes_equations(bodies, loads)
    return {"KM": KM, "q": q, "u": u, "T": T}
