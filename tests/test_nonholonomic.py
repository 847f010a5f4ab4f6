"""Nonholonomic dynamics in the plane: the Chaplygin sleigh three ways (issue 15).

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
