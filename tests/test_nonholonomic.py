"""Nonholonomic dynamics: the Chaplygin sleigh three ways (issue 15), its analytic solution, and the rolling
disk's rows against the contact point's velocity (issue 26).

A body on a horizontal plane carries a knife edge at ``P``, a distance ``a`` ahead of its centre of mass
along its axis: ``P`` cannot move across the blade.

1. multipliers: :class:`mbdlib.PlanarModel` with ``add_knife_edge`` (the row ``B q̇ = 0`` in the KKT
   system), integrated by :func:`mbdlib.simulate` (scheme ``Projection``);
2. Kane's method with independent speeds: sympy.physics.mechanics' ``KanesMethod`` with the sideways
   speed dependent (``velocity_constraints``);
3. closed form (Chaplygin 1911; Neimark & Fufaev 1972): with ``v`` the speed along the blade and ``ω``
   the yaw rate, the blade force ``λ e2`` at P gives ``v̇ = −a ω²`` (nothing pushes along the blade, but
   the axis turns under the moving body) and ``(I + m a²) ω̇ = m a v ω``; ``(I + m a²) ω² + m v²`` is twice
   the kinetic energy.  Going forward with the blade ahead is unstable: the sleigh swings round until
   the blade trails, then ``ω → 0`` and ``v → −√(2T/m)``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from mbdlib import PlanarModel, Projection, dae, simulate

MASS, INERTIA, A = 2.0, 0.15, 0.4
V0, W0 = 0.5, 2.0                       # speed of P along the blade, yaw rate


def sleigh():
    model = PlanarModel(gravity=(0.0, 0.0))
    # the centre of mass sits A behind P: its velocity is v e1 − A ω e2 (body axes e1, e2 at angle 0)
    model.add_body("sleigh", MASS, INERTIA, position=(0.0, 0.0), angle=0.0, velocity=(V0, -A * W0),
                   angular_velocity=W0)
    model.add_knife_edge("sleigh", point=(A, 0.0), axis=(1.0, 0.0))
    return model


def closed_form(t):
    def rhs(_, y):
        v, w = y
        return [-A * w * w, MASS * A * v * w / (INERTIA + MASS * A * A)]

    return solve_ivp(rhs, (0.0, t[-1]), [V0, W0], t_eval=t, method="DOP853", rtol=1e-12, atol=1e-12).y


def kane_sleigh():
    """The sleigh by KanesMethod: q = (x, y, θ) of the centre of mass, speeds u1 = ẋ, u2 = ẏ, u3 = θ̇,
    u2 dependent through the blade condition; returns a function (q, u_independent) -> u̇_independent."""
    sp = pytest.importorskip("sympy")
    me = pytest.importorskip("sympy.physics.mechanics")
    x, y, th = me.dynamicsymbols("x y theta")
    u1, u2, u3 = me.dynamicsymbols("u1:4")
    N = me.ReferenceFrame("N")
    Bf = N.orientnew("B", "Axis", [th, N.z])
    Bf.set_ang_vel(N, u3 * N.z)
    G = me.Point("G")
    G.set_vel(N, u1 * N.x + u2 * N.y)
    P = G.locatenew("P", A * Bf.x)
    P.v2pt_theory(G, N, Bf)
    blade = [me.dot(P.vel(N), Bf.y)]                     # no velocity across the blade
    kd = [x.diff() - u1, y.diff() - u2, th.diff() - u3]
    body = me.RigidBody("sleigh", G, Bf, MASS, (me.inertia(Bf, 0, 0, INERTIA), G))
    KM = me.KanesMethod(N, q_ind=[x, y, th], u_ind=[u1, u3], u_dependent=[u2], kd_eqs=kd,
                        velocity_constraints=blade)
    KM.kanes_equations([body], [])
    rhs = KM.rhs()                                       # [q̇; u̇] with u2 eliminated where needed
    solve_u2 = sp.solve(blade[0], u2)[0]
    f = sp.lambdify([x, y, th, u1, u3], rhs.subs(u2, solve_u2))
    dep = sp.lambdify([th, u1, u3], solve_u2)
    return f, dep


def test_chaplygin_sleigh_by_multipliers_equals_the_closed_form():
    t = np.linspace(0.0, 6.0, 61)
    res = simulate(sleigh().system(), 6.0, Projection(rtol=1e-11, atol=1e-11), t_eval=t)
    v_ref, w_ref = closed_form(t)
    theta, w = res.q[:, 2], res.qd[:, 2]
    e1 = np.column_stack([np.cos(theta), np.sin(theta)])
    v_p = np.sum(res.qd[:, :2] * e1, axis=1)            # ṙ_P · e1 = ṙ_G · e1 (ω × a e1 is along e2)
    np.testing.assert_allclose(w, w_ref, atol=1e-8)
    np.testing.assert_allclose(v_p, v_ref, atol=1e-8)
    assert res.energy_error < 1e-9
    assert res.violation_velocity.max() < 1e-9         # the blade holds
    assert abs(w[-1]) < 0.05 * W0 and v_p[-1] < 0       # it swings round: the blade trails


def test_chaplygin_sleigh_multipliers_equal_kane_with_independent_speeds():
    f, dep = kane_sleigh()
    system = sleigh().system()
    rng = np.random.default_rng(11)
    for _ in range(5):
        q = rng.normal(size=3)
        u1, u3 = rng.normal(size=2)
        u2 = float(dep(q[2], u1, u3))
        qd = np.array([u1, u2, u3])
        kane = np.asarray(f(*q, u1, u3), dtype=float).ravel()    # [ẋ, ẏ, θ̇, u̇1, u̇3, (u̇2)]
        qdd, _ = dae.accelerations(system, 0.0, q, qd)
        np.testing.assert_allclose(qdd[[0, 2]], kane[3:5], atol=1e-10 * (1 + np.abs(kane).max()))


# ---------------------------------------------------------------- the analytic solution (page 7.4)
def analytic_sleigh(m, inertia, a, v0, w0, t):
    """v, ω, φ − φ0 of the sleigh in closed form: with I_P = I + m a², v∞ = √(v0² + I_P ω0²/m) (the energy),
    κ = a m v∞ / I_P and tanh κ t0 = v0/v∞: v = −v∞ tanh κ(t − t0), ω = ±v∞ √(m/I_P) sech κ(t − t0),
    φ − φ0 = ±(√(I_P/m)/a) [gd κ(t − t0) + gd κ t0], gd x = atan(sinh x), the sign of ω0."""
    ip = inertia + m * a * a
    v_inf = np.sqrt(v0**2 + ip * w0**2 / m)
    kappa = a * m * v_inf / ip
    t0 = np.arctanh(v0 / v_inf) / kappa
    x = kappa * (np.asarray(t) - t0)
    s = np.sign(w0)
    return (-v_inf * np.tanh(x), s * v_inf * np.sqrt(m / ip) / np.cosh(x),
            s * np.sqrt(ip / m) / a * (np.arctan(np.sinh(x)) + np.arctan(np.sinh(kappa * t0))))


@settings(max_examples=12, deadline=None)
@given(m=st.floats(0.5, 5.0), inertia=st.floats(0.02, 0.5), a=st.floats(0.1, 0.8),
       v0=st.floats(-1.5, 1.5), w0=st.floats(0.3, 4.0), sign=st.sampled_from([-1.0, 1.0]))
def test_sleigh_by_multipliers_follows_the_analytic_solution(m, inertia, a, v0, w0, sign):
    """For any sleigh and start (forwards or backwards, turning either way) the multiplier simulation
    follows the tanh / sech / Gudermannian solution in v, ω and the heading."""
    w0 *= sign
    model = PlanarModel(gravity=(0.0, 0.0))
    model.add_body("sleigh", m, inertia, position=(0.0, 0.0), angle=0.0, velocity=(v0, -a * w0),
                   angular_velocity=w0)
    model.add_knife_edge("sleigh", point=(a, 0.0), axis=(1.0, 0.0))
    t = np.linspace(0.0, 3.0, 7)
    res = simulate(model.system(), 3.0, Projection(rtol=1e-11, atol=1e-11), t_eval=t)
    v_ref, w_ref, phi_ref = analytic_sleigh(m, inertia, a, v0, w0, t)
    theta = res.q[:, 2]
    v = res.qd[:, 0] * np.cos(theta) + res.qd[:, 1] * np.sin(theta)
    scale = 1.0 + abs(v0) + abs(w0)
    np.testing.assert_allclose(v, v_ref, atol=1e-7 * scale)
    np.testing.assert_allclose(res.qd[:, 2], w_ref, atol=1e-7 * scale)
    np.testing.assert_allclose(theta, phi_ref, atol=1e-7 * scale)


# ---------------------------------------------------------------- the rolling rows (page 7.3)
@settings(max_examples=25, deadline=None)
@given(heading=st.floats(-3.0, 3.0), lean=st.floats(-1.2, 1.2), spin=st.floats(-3.0, 3.0),
       radius=st.floats(0.05, 1.0), seed=st.integers(0, 2**16))
def test_rolling_rows_are_the_contact_points_velocity_times_w(heading, lean, spin, radius, seed):
    """On the height row, the disk's two rolling rows B q̇ are |w| times the x, y velocity of its material
    point at the contact — carried along the motion by a central difference, for any rates; and the
    normal component of that velocity is the height row's rate over 2h."""
    from mbdlib import SpatialModel
    from mbdlib.rotations import dcm_from_axis_angle, dcm_from_quat, quat_from_dcm

    e = np.eye(3)
    A = dcm_from_axis_angle(e[2], heading) @ dcm_from_axis_angle(e[0], lean) @ dcm_from_axis_angle(e[1], spin)
    a = A @ e[1]
    w = e[2] - a[2] * a
    model = SpatialModel(gravity=(0.0, 0.0, -9.81))
    model.add_body("disk", (0.3, -0.2, radius * np.linalg.norm(w)), quat_from_dcm(A), inertia=[1, 2, 1])
    model.add_rolling_disk("disk", radius, axis=(0.0, 1.0, 0.0))
    q = model.q_guess()
    rng = np.random.default_rng(seed)
    qd = rng.normal(size=7)
    qd[3:7] -= (qd[3:7] @ q[3:7]) * q[3:7]
    s_body = A.T @ (-radius * w / np.linalg.norm(w))             # the contact point in body coordinates

    def point(h):
        p = q[3:7] + h * qd[3:7]
        return q[:3] + h * qd[:3] + dcm_from_quat(p / np.linalg.norm(p)) @ s_body

    h = 1e-6
    v_P = (point(h) - point(-h)) / (2 * h)
    tol = 1e-7 * (1 + np.abs(qd).max())
    np.testing.assert_allclose(model.B(q) @ qd, np.linalg.norm(w) * v_P[:2], atol=tol)
    height = model.phi_q(q)[0] @ qd
    assert v_P[2] == pytest.approx(height / (2 * q[2]), abs=tol)
