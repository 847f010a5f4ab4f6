"""Tests of mbdlib.planar: DOF by rank on mechanisms of known mobility, assembly, velocity
projection, forces against energy/power, and dynamics (own KKT solve and mbdlib.dae) against
closed-form one-degree-of-freedom equations."""

from math import pi

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from mbdlib.dae import simulate
from mbdlib.errors import ModelError, ShapeError, SingularityError
from mbdlib.planar import PlanarModel
from mbdlib.schemes import Projection

SETTINGS = settings(max_examples=20, deadline=None)
G = 9.81


def kkt(m, q, qd, t=0.0):
    """Our own KKT solve, independent of mbdlib.dae: [[M, Jᵀ], [J, 0]] [q̈; λ] = [Q; γ; b_γ]."""
    M, J = m.M(q), np.vstack([m.phi_q(q, t), m.B(q, t)])
    rhs = np.concatenate([m.Q(t, q, qd), m.gamma(q, qd, t), m.b_gamma(q, qd, t)])
    K = np.block([[M, J.T], [J, np.zeros((len(J), len(J)))]])
    return np.linalg.solve(K, rhs)[: m.n]


# ----------------------------------------------------------------------------- mechanisms
def pendulum(phi=-pi / 2, omega=0.0, lc=0.5, mass=1.0, inertia=1 / 12):
    m = PlanarModel(gravity=(0.0, -G))
    rod = m.add_body("rod", mass, inertia, position=(lc * np.cos(phi), lc * np.sin(phi)), angle=phi,
                     velocity=(-lc * omega * np.sin(phi), lc * omega * np.cos(phi)), angular_velocity=omega)
    m.add_revolute(m.ground, rod, (0.0, 0.0), (-lc, 0.0), name="pivot")
    return m


def double_pendulum():
    m = PlanarModel(gravity=(0.0, -9.81))
    a = m.add_body("upper", 1.0, 0.1, position=(0.5, 0.0))
    b = m.add_body("lower", 1.0, 0.1, position=(1.5, 0.0))
    m.add_revolute(m.ground, a, (0, 0), (-0.5, 0))
    m.add_revolute(a, b, (0.5, 0), (-0.5, 0))
    return m


R_CRANK, L_ROD = 0.5, 1.5


def slider_x(theta):
    return R_CRANK * np.cos(theta) + np.sqrt(L_ROD**2 - (R_CRANK * np.sin(theta)) ** 2)


def slider_crank(theta=0.6, rough=0.0, speed=None):
    """Crank r from the origin, rod l, slider on the x axis; ``rough`` spoils the initial guess."""
    m = PlanarModel(gravity=(0.0, -9.81))
    B = R_CRANK * np.array([np.cos(theta), np.sin(theta)])
    C = np.array([slider_x(theta), 0.0])
    beta = np.arctan2(*(C - B)[::-1])
    crank = m.add_body("crank", 1.0, 0.02, position=B / 2 + rough, angle=theta + rough)
    rod = m.add_body("rod", 1.0, 0.2, position=(B + C) / 2 - rough, angle=beta - rough)
    slider = m.add_body("slider", 1.0, 0.01, position=C + rough, angle=rough)
    m.add_revolute(m.ground, crank, (0, 0), (-R_CRANK / 2, 0), name="O")
    m.add_revolute(crank, rod, (R_CRANK / 2, 0), (-L_ROD / 2, 0), name="A")
    m.add_revolute(rod, slider, (L_ROD / 2, 0), (0, 0), name="B")
    m.add_translational(m.ground, slider, (0, 0), (0, 0), (1, 0), angle=0.0, name="guide")
    if speed is not None:
        m.add_driver(crank, "phi", speed=speed, name="motor")
    return m


def four_bar(a=2.0, b=0.8, c=2.0, d=1.5, theta=1.0, flat=False, middle=False):
    """Ground AD = a, crank AB = b, coupler BC = c, rocker DC = d; the guess is closed when the
    lengths make a parallelogram (b = d, a = c), else rough."""
    m = PlanarModel(gravity=(0.0, -9.81))
    th = 0.0 if flat else theta
    u = np.array([np.cos(th), np.sin(th)])
    B, C = b * u, np.array([a, 0.0]) + d * u
    cr = m.add_body("crank", 1.0, 0.1, position=B / 2, angle=th)
    co = m.add_body("coupler", 1.0, 0.1, position=(B + C) / 2, angle=np.arctan2(*(C - B)[::-1]))
    ro = m.add_body("rocker", 1.0, 0.1, position=(np.array([a, 0.0]) + C) / 2, angle=th)
    m.add_revolute(m.ground, cr, (0, 0), (-b / 2, 0), name="A")
    m.add_revolute(cr, co, (b / 2, 0), (-c / 2, 0), name="B")
    m.add_revolute(co, ro, (c / 2, 0), (d / 2, 0), name="C")
    m.add_revolute(m.ground, ro, (a, 0), (-d / 2, 0), name="D")
    if middle:  # a third parallel bar from the middle of AD to the middle of BC
        mid = m.add_body("middle", 1.0, 0.1, position=(np.array([a / 2, 0.0]) + (B + C) / 2) / 2, angle=th)
        m.add_revolute(m.ground, mid, (a / 2, 0), (-b / 2, 0), name="E")
        m.add_revolute(mid, co, (b / 2, 0), (0, 0), name="F")
    return m


# ----------------------------------------------------------------------------- DOF by rank
@pytest.mark.parametrize("make, dof, grubler", [
    (pendulum, 1, 1), (double_pendulum, 2, 2), (slider_crank, 1, 1),
    (four_bar, 1, 1), (lambda: four_bar(b=1.5), 1, 1), (lambda: slider_crank(speed=2.0), 0, 0),
])
def test_dof_of_mechanisms_with_known_mobility(make, dof, grubler):
    r = make().dof_report()
    assert (r.dof, r.grubler, r.singular, r.redundant) == (dof, grubler, False, [])
    assert r.coordinates - r.rank == dof and "DOF (coordinates-rank) " + str(dof) in r.text


def test_parallelogram_with_a_redundant_middle_bar():
    r = four_bar(b=1.5, d=1.5, middle=True).dof_report()
    assert (r.coordinates, r.constraints, r.grubler, r.rank, r.dof) == (12, 12, 0, 11, 1)
    assert not r.singular and len(r.redundant) == 1
    assert r.redundant[0].split()[1] in "BCEF"  # the extra bar's pins or a parallel bar's upper pins
    assert {"E", "F"} <= set(r.involved)
    assert "redundant equations" in str(r) and "<table" in r._repr_html_()


def test_flat_four_bar_is_a_singular_configuration():
    m = four_bar(b=1.5, d=1.5, flat=True)  # parallelogram with every link on the x axis
    r = m.dof_report()
    assert (r.grubler, r.rank, r.dof, r.singular, r.redundant) == (1, 7, 2, True, [])
    assert r.dependent and "singular configuration" in r.text
    # away from the flat position the rank is full again
    assert four_bar(b=1.5, d=1.5, theta=0.3).dof_report().rank == 8


def test_knife_edge_counts_configuration_and_velocity_dof():
    m = PlanarModel(gravity=(0.0, 0.0))
    sled = m.add_body("sled", 2.0, 0.1, velocity=(1.0, 0.5), angular_velocity=0.3)
    m.add_knife_edge(sled, point=(0.2, 0.0), axis=(1.0, 0.0))
    r = m.dof_report()
    assert (r.coordinates, r.constraints, r.nonholonomic, r.rank, r.dof, r.velocity_dof) == (3, 0, 1, 0, 3, 2)
    assert m.B(m.q0).shape == (1, 3) and m.phi(m.q0).shape == (0,) and m.phi_q(m.q0).shape == (0, 3)
    assert abs(m.B(m.q0) @ m.qd0)[0] < 1e-12


def test_knife_edge_sled_keeps_its_speed_and_no_side_slip():
    m = PlanarModel(gravity=(0.0, 0.0))
    sled = m.add_body("sled", 2.0, 0.1, velocity=(1.0, 0.0), angular_velocity=0.8)
    m.add_knife_edge(sled, point=(0.0, 0.0), axis=(1.0, 0.0))
    res = simulate(m.system(), 3.0, Projection(), t_eval=np.linspace(0, 3, 31))
    side = [m.B(q) @ qd for q, qd in zip(res.q, res.qd, strict=True)]
    assert np.max(np.abs(side)) < 1e-7
    # with the point at the centre of mass: constant speed and spin, so the centre runs on a circle
    # of radius v/ω about a fixed point (the closed form of the Chaplygin sleigh with c = 0)
    centre = res.q[:, :2] + (1.0 / 0.8) * np.column_stack([-np.sin(res.q[:, 2]), np.cos(res.q[:, 2])])
    np.testing.assert_allclose(centre, np.tile(centre[0], (len(centre), 1)), atol=1e-6)


# ----------------------------------------------------------------------------- assembly
def test_slider_crank_assembles_from_a_rough_guess():
    m = slider_crank(theta=0.6, rough=0.15)
    a = m.assemble()
    assert a.residual < 1e-10 and 1 <= a.iterations < 20
    theta = a.q0[2]  # the crank angle it settled on; every other coordinate follows from it
    np.testing.assert_allclose(a.q0[6:8], [slider_x(theta), 0.0], atol=1e-9)
    np.testing.assert_allclose(m.point_position("rod", (-L_ROD / 2, 0)), R_CRANK * np.array(
        [np.cos(theta), np.sin(theta)]), atol=1e-9)


def test_impossible_four_bar_names_the_joint_that_cannot_close():
    m = four_bar(a=5.0, b=0.5, c=1.0, d=0.5)  # 0.5 + 1 + 0.5 < 5: the loop cannot close
    with pytest.raises(ModelError, match=r"cannot assemble: joint '[ABCD]' cannot close, distance \d"):
        m.assemble()


def test_driven_slider_crank_velocities_are_projected_consistently():
    omega = 2.0
    m = slider_crank(theta=0.6, speed=omega)
    a = m.assemble()
    J, phi_t = m.phi_q(a.q0), m.phi_t(a.q0)
    np.testing.assert_allclose(J @ a.qd0 + phi_t, 0.0, atol=1e-12)
    theta = a.q0[2]
    assert theta == pytest.approx(0.6)
    # slider speed from differentiating the closed-form position
    s, c = np.sin(theta), np.cos(theta)
    x_dot = -R_CRANK * omega * s - R_CRANK**2 * s * c * omega / np.sqrt(L_ROD**2 - (R_CRANK * s) ** 2)
    assert a.qd0[6] == pytest.approx(x_dot, rel=1e-12)


@SETTINGS
@given(st.lists(st.floats(-3, 3), min_size=9, max_size=9))
def test_velocity_projection_is_the_least_mass_weighted_change(guess):
    m = slider_crank(theta=0.6)
    for body, k in zip(m.bodies, range(3), strict=True):
        body.velocity, body.angular_velocity = np.array(guess[3 * k: 3 * k + 2]), guess[3 * k + 2]
    a = m.assemble()
    J, M = m.phi_q(a.q0), m.M()
    np.testing.assert_allclose(J @ a.qd0, 0.0, atol=1e-10)
    # optimality: the change M (q̇ − q̇_g) is orthogonal to every admissible velocity (null space of J)
    null = np.linalg.svd(J)[2][np.linalg.matrix_rank(J):]
    np.testing.assert_allclose(null @ (M @ (a.qd0 - np.asarray(guess))), 0.0, atol=1e-10)


# ----------------------------------------------------------------------------- forces
def test_spring_force_is_minus_gradient_of_its_energy_and_damper_dissipates():
    m = PlanarModel(gravity=(0.0, 0.0))
    a = m.add_body("a", 1.0, 0.1, position=(0.3, 0.1), angle=0.4)
    b = m.add_body("b", 2.0, 0.2, position=(1.5, -0.4), angle=-0.2)
    m.add_spring_damper(a, b, (0.1, 0.2), (-0.3, 0.05), stiffness=40.0, damping=0.0, rest_length=0.6)
    m.add_spring_damper(m.ground, a, (0.0, 0.0), (0.2, 0.0), stiffness=10.0)  # rest length from the guess
    rng = np.random.default_rng(3)
    q, qd = m.q_guess() + 0.1 * rng.normal(size=6), np.zeros(6)
    h = 1e-6
    grad = [(m.energy(q + h * e, qd) - m.energy(q - h * e, qd)) / (2 * h) for e in np.eye(6)]
    np.testing.assert_allclose(m.Q(0.0, q, qd), -np.array(grad), atol=1e-6)
    # a pure damper: power Q·q̇ = −c ℓ̇², with ℓ̇ by differences of the length
    d = PlanarModel(gravity=(0.0, 0.0))
    a2 = d.add_body("a", 1.0, 0.1, position=(0.3, 0.1), angle=0.4)
    d.add_spring_damper(d.ground, a2, (0.0, 0.0), (0.2, 0.0), stiffness=0.0, damping=3.0)
    q, qd = np.array([0.3, 0.1, 0.4]), np.array([0.5, -1.0, 2.0])
    length = lambda x: np.linalg.norm(d.point_position(a2, (0.2, 0.0), x))  # noqa: E731
    l_dot = (length(q + h * qd) - length(q - h * qd)) / (2 * h)
    assert d.Q(0.0, q, qd) @ qd == pytest.approx(-3.0 * l_dot**2, rel=1e-6)


def test_applied_force_and_torque_do_the_virtual_power_of_their_point():
    m = PlanarModel(gravity=(0.0, 0.0))
    b = m.add_body("b", 1.0, 0.1, position=(0.3, 0.1), angle=0.4)
    F = np.array([2.0, -1.0])
    m.add_force(b, lambda t, q, qd: F * (1 + t), point=(0.4, -0.2))
    m.add_torque(b, 0.7)
    q, qd, t, h = np.array([0.3, 0.1, 0.4]), np.array([0.5, -1.0, 2.0]), 0.5, 1e-6
    p = lambda x: m.point_position(b, (0.4, -0.2), x)  # noqa: E731
    v_p = (p(q + h * qd) - p(q - h * qd)) / (2 * h)
    assert m.Q(t, q, qd) @ qd == pytest.approx(F * 1.5 @ v_p + 0.7 * qd[2], rel=1e-7)


# ----------------------------------------------------------------------------- dynamics
@SETTINGS
@given(st.floats(-pi, pi), st.floats(-3, 3))
def test_pendulum_kkt_gives_the_compound_pendulum_equation(phi, omega):
    m = pendulum(phi, omega)
    a = m.assemble()
    qdd = kkt(m, a.q0, a.qd0)
    lc, I = 0.5, 1 / 12
    # (I + m lc²) φ̈ = −m g lc cos φ  (angle of the rod from the x axis; y up)
    assert qdd[2] == pytest.approx(-G * lc * np.cos(phi) / (I + lc**2), abs=1e-10)
    # the centre accelerates like a point on a circle: tangential lc φ̈ and centripetal lc φ̇²
    e, n = np.array([np.cos(phi), np.sin(phi)]), np.array([-np.sin(phi), np.cos(phi)])
    np.testing.assert_allclose(qdd[:2], lc * qdd[2] * n - lc * omega**2 * e, atol=1e-10)


def one_dof(rhs, y0, t_end, t_eval):
    return solve_ivp(rhs, (0, t_end), y0, t_eval=t_eval, rtol=1e-11, atol=1e-11).y


def test_pendulum_simulation_matches_the_one_dof_ode_and_conserves_energy():
    m = pendulum(phi=-0.3, omega=0.0)
    t_eval = np.linspace(0.0, 2.0, 41)
    res = simulate(m.system(), 2.0, Projection(), t_eval=t_eval)
    assert res.q.shape == (41, 3) and res.qd.shape == (41, 3)
    ref = one_dof(lambda t, y: [y[1], -G * 0.5 * np.cos(y[0]) / (1 / 12 + 0.25)], [-0.3, 0.0], 2.0, t_eval)
    np.testing.assert_allclose(res.q[:, 2], ref[0], atol=1e-6)
    assert np.max(np.abs(res.energy - res.energy[0])) < 1e-6 * abs(res.energy[0])
    assert np.max(res.violation) < 1e-9


def test_driven_slider_crank_follows_the_closed_form():
    m = slider_crank(theta=0.2, speed=3.0)
    t_eval = np.linspace(0.0, 1.0, 11)
    res = simulate(m.system(), 1.0, Projection(), t_eval=t_eval)
    np.testing.assert_allclose(res.q[:, 2], 0.2 + 3.0 * t_eval, atol=1e-8)
    np.testing.assert_allclose(res.q[:, 6], slider_x(0.2 + 3.0 * t_eval), atol=1e-7)


def test_disc_rolling_down_an_incline_accelerates_at_g_sin_over_one_plus_k():
    alpha, radius, mass, inertia = 0.3, 0.2, 2.0, 0.5 * 2.0 * 0.2**2
    m = PlanarModel(gravity=(G * np.sin(alpha), -G * np.cos(alpha)))  # x along the incline
    disc = m.add_body("disc", mass, inertia, position=(0.0, radius))
    m.add_point_on_line(m.ground, disc, (0.0, radius), (0.0, 0.0), (1.0, 0.0), name="centre height")
    m.add_rack_pinion(disc, m.ground, radius, name="no slip")
    assert m.dof_report().dof == 1
    qdd = kkt(m, m.q0, m.qd0)
    a = G * np.sin(alpha) / (1 + inertia / (mass * radius**2))
    np.testing.assert_allclose(qdd, [a, 0.0, -a / radius], atol=1e-12)


def test_gear_pair_reflects_the_inertia_through_the_ratio():
    m = PlanarModel(gravity=(0.0, 0.0))
    g1 = m.add_body("g1", 1.0, 0.3, position=(0.0, 0.0))
    g2 = m.add_body("g2", 1.0, 0.8, position=(1.0, 0.0))
    m.add_revolute(m.ground, g1, (0.0, 0.0))
    m.add_revolute(m.ground, g2, (1.0, 0.0))
    ratio = -0.4  # r1/r2 = 0.4, external mesh
    m.add_gear(g1, g2, ratio)
    m.add_torque(g1, 2.0)
    assert m.dof_report().dof == 1
    qdd = kkt(m, m.q0, m.qd0)
    alpha1 = 2.0 / (0.3 + ratio**2 * 0.8)
    np.testing.assert_allclose(qdd[[2, 5]], [alpha1, ratio * alpha1], atol=1e-12)


def test_weld_makes_one_body_and_distance_driver_moves_it():
    m = PlanarModel(gravity=(0.0, 0.0))
    a = m.add_body("a", 1.0, 0.1, position=(1.0, 0.0))
    b = m.add_body("b", 1.0, 0.1, position=(1.0, 0.5), angle=0.3)
    m.add_translational(m.ground, a, (0, 0), (0, 0), (1, 0))
    m.add_weld(a, b)
    assert m.dof_report().dof == 1
    m.add_distance_driver(m.ground, a, f=lambda t: 1.0 + t**2, df=lambda t: 2 * t, ddf=lambda t: 2.0)
    res = simulate(m.system(), 1.0, Projection(), t_eval=[0.0, 0.5, 1.0])
    np.testing.assert_allclose(res.q[:, 0], [1.0, 1.25, 2.0], atol=1e-8)
    np.testing.assert_allclose(res.q[:, 3:6], np.column_stack([res.q[:, 0], [0.5] * 3, [0.3] * 3]), atol=1e-8)


# ----------------------------------------------------------------------------- bad input
def test_bad_input_raises_clear_errors():
    m = PlanarModel(gravity=(0.0, -9.81))
    a = m.add_body("a", 1.0, 0.1)
    with pytest.raises(ModelError, match="unknown body 'nope'; the bodies are: ground, a"):
        m.add_revolute(m.ground, "nope")
    with pytest.raises(ShapeError, match="point_i must have 2 components"):
        m.add_revolute(m.ground, a, point_i=(0, 0, 0))
    with pytest.raises(ModelError, match="mass must be a positive number"):
        m.add_body("b", -1.0, 0.1)
    with pytest.raises(ModelError, match="inertia must be a positive number"):
        m.add_body("b", 1.0, -0.1)
    with pytest.raises(ModelError, match="two different bodies, got 'a' twice"):
        m.add_revolute(a, a)
    with pytest.raises(ModelError, match="already exists"):
        m.add_body("a", 1.0, 0.1)
    other = PlanarModel(gravity=(0.0, -9.81)).add_body("a", 1.0, 0.1)
    with pytest.raises(ModelError, match="body 'a' belongs to another model"):
        m.add_revolute(m.ground, other)
    with pytest.raises(ShapeError, match="gravity must have 2 components"):
        PlanarModel(gravity=(0, 0, -9.81))
    with pytest.raises(ModelError, match="coordinate must be 'x', 'y' or 'phi'"):
        m.add_driver(a, "z", speed=1.0)
    with pytest.raises(ModelError, match="give f, df, ddf"):
        m.add_driver(a, "x")


def test_redundant_driver_is_refused_with_the_joints_named():
    m = slider_crank(speed=1.0)
    with pytest.raises(ModelError, match=r"driver 'again' is redundant: .*driver motor"):
        m.add_driver("crank", "phi", speed=1.0, name="again")
    with pytest.raises(ModelError, match=r"driver 'slider y' is redundant: .*translational guide"):
        m.add_driver("slider", "y", f=0.0, name="slider y")
    assert [j.name for j in m.joints] == ["O", "A", "B", "guide", "motor"]  # nothing half-added
    assert m.dof_report().dof == 0


def test_spring_with_coincident_points_raises_singularity():
    m = PlanarModel(gravity=(0.0, 0.0))
    a = m.add_body("a", 1.0, 0.1, position=(0.0, 0.0))
    m.add_spring_damper(m.ground, a, stiffness=1.0, rest_length=0.5)
    with pytest.raises(SingularityError, match="two points coincide"):
        m.Q(0.0, np.zeros(3), np.zeros(3))
