"""Oracles for the tests and the benchmarks: the same systems written with another library.

``rolling_disk_kanes_method``: a thin disk rolling without slipping on the plane z = 0, in
``sympy.physics.mechanics.KanesMethod`` (heading, lean, spin; independent speeds), the peer of
:meth:`mbdlib.spatial.SpatialModel.add_rolling_disk` (tests/test_spatial_dynamics.py) and of the
chapter 7 exercises' keys (tests/test_exercises_ch07.py).

``fourbar_kanes_method``: chapter 5's four-bar arm in ``sympy.physics.mechanics.KanesMethod`` with
dependent coordinates and speeds, the peer against which the recursive Kane algorithm of
:mod:`mbdlib.mechanisms` is checked (tests/test_fourbar_arm.py) and timed (bench/bench_fourbar.py).
It is not part of the library: mbdlib never needs sympy.physics.mechanics.
"""

from __future__ import annotations

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
