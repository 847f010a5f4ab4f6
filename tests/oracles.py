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

``meijaard_bicycle_matrices`` and ``meijaard_bicycle``: the benchmark bicycle of Meijaard et al. (2007),
its published linearized equations and the same bicycle as a spatial model in 28 coordinates
(tests/test_spatial_dynamics.py, bench/bench_spatial.py).
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
def meijaard_bicycle_matrices():
    """The linearized equations of the benchmark bicycle, ``M q̈ + v C1 q̇ + (g K0 + v² K2) q = f`` in
    q = (lean φ, steer δ), as published (Meijaard, Papadopoulos, Ruina & Schwab 2007, Proc. R. Soc. A
    463, eq. (A 20)-(A 23) with the parameters of their table 1); g = 9.81.  Its weave speed is
    4.292 m/s and its capsize speed 6.024 m/s (their §6).

    Returns ``{"M", "C1", "K0", "K2"}``, each (2, 2).
    """
    return {"M": np.array([[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]]),
            "C1": np.array([[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]]),
            "K0": np.array([[-80.95, -2.59951685249872], [-2.59951685249872, -0.80329488458618]]),
            "K2": np.array([[0.0, 76.59734589573222], [0.0, 2.65431523794604]])}


def meijaard_bicycle(speed=5.0, gravity=9.81):
    """The benchmark bicycle of Meijaard et al. (2007, table 1) as an :class:`mbdlib.SpatialModel`: a rear
    frame with the rider, a front fork on a steer revolute (axis tilted back by λ = π/10, trail 0.08 m),
    two wheels on revolute hubs, each rolling on z = 0 (4 bodies, 28 coordinates).  Axes: x forward,
    y left, z up (the paper's y points right and z down: its products of inertia I_xz change sign).
    The bodies start upright at ``speed`` forward (the wheels spinning to roll).

    Returns ``(model, joints)`` with ``joints = {"steer", "rear hub", "front hub"}``.
    """
    from mbdlib.spatial import SpatialModel

    w, c, lam, rR, rF = 1.02, 0.08, np.pi / 10, 0.3, 0.35

    def inertia(xx, yy, zz, xz):             # the paper's tensor in axes (x, −y, −z)
        return np.array([[xx, 0.0, -xz], [0.0, yy, 0.0], [-xz, 0.0, zz]])

    v = (speed, 0.0, 0.0)
    m = SpatialModel(gravity=(0.0, 0.0, -gravity))
    frame = m.add_body("frame", (0.3, 0.0, 0.9), mass=85.0, inertia=inertia(9.2, 11.0, 2.8, 2.4), velocity=v)
    fork = m.add_body("fork", (0.9, 0.0, 0.7), mass=4.0, inertia=inertia(0.05892, 0.06, 0.00708, -0.00756),
                      velocity=v)
    rear = m.add_body("rear wheel", (0.0, 0.0, rR), mass=2.0, inertia=[0.0603, 0.12, 0.0603], velocity=v,
                      angular_velocity=(0.0, speed / rR, 0.0))
    front = m.add_body("front wheel", (w, 0.0, rF), mass=3.0, inertia=[0.1405, 0.28, 0.1405], velocity=v,
                       angular_velocity=(0.0, speed / rF, 0.0))
    down = np.array([np.sin(lam), 0.0, -np.cos(lam)])      # the steer axis, pointing down (steer right > 0)
    pivot = np.array([w + c, 0.0, 0.0]) - (rF / np.cos(lam)) * down    # on the axis, at the hub's height
    joints = {
        "steer": m.add_revolute(frame, fork, pivot - frame.position, pivot - fork.position, axis_i=down,
                                name="steer"),
        "rear hub": m.add_revolute(frame, rear, rear.position - frame.position, (0, 0, 0), axis_i=(0, 1, 0),
                                   name="rear hub"),
        "front hub": m.add_revolute(fork, front, front.position - fork.position, (0, 0, 0),
                                    axis_i=(0, 1, 0), name="front hub")}
    m.add_rolling_disk(rear, rR, axis=(0, 1, 0))
    m.add_rolling_disk(front, rF, axis=(0, 1, 0))
    return m, joints
