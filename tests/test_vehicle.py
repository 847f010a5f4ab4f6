"""The car with rack-and-pinion steering towing a trailer (``mechanism("car_trailer")``), and what
RelativeModel gained for it: gear pairs, distance links and knife edges as cut rows, applied loads.

Independent checks: finite differences of the new rows (Φ_θ, γ, B, b_γ), closed forms (a gear train, a
rack and pinion, a knife edge at the centre of mass, each driven by a torque), the Cartesian PlanarModel
(its own joints and KKT solve) against the relative and mixed descriptions at random consistent states, a
simulated lane change in the three coordinate sets (agreement within the integrators' own error,
estimated from runs at a hundred times smaller tolerance), and the work-energy balance.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mbdlib import PlanarModel, check_model
from mbdlib.catalogue import CAR_TRAILER, COORDINATE_SETS, mechanism, sine_steer
from mbdlib.coordinates import RelativeModel, body_states, convert
from mbdlib.dae import accelerations, project_velocities, simulate
from mbdlib.errors import ModelError
from mbdlib.schemes import ODE

BODIES = ("car", "knuckle", "rack", "pinion", "trailer")
G0 = (0.0, 0.0)                                    # a level road, seen from above


def car(coordinates, **params):
    return mechanism("car_trailer", coordinates=coordinates, gravity=G0, **params)


def random_state(model, rng):
    """A consistent state of a RelativeModel of the car: pose, pinion and hitch angles held, the loop closed
    by Newton, random rates projected onto Φ_θ θ̇ = 0 and B θ̇ = 0."""
    fixed = {"x_car": rng.uniform(-5, 5), "y_car": rng.uniform(-5, 5), "φ_car": rng.uniform(-np.pi, np.pi),
             "θ_pinion": rng.uniform(-3, 3)}
    if "θ_trailer" in model.coordinate_names:
        fixed["θ_trailer"] = rng.uniform(-0.8, 0.8)
    q = model.state(fixed=fixed).q0
    qd = project_velocities(model.system(), q, rng.normal(scale=3.0, size=model.n))
    return q, qd


def poses(model, q, qd=None):
    """Body poses (and velocities) of the five bodies as one vector (15,) each."""
    s = body_states(model, q, qd)
    return np.concatenate([s[b][0] for b in BODIES]), np.concatenate([s[b][1] for b in BODIES])


# ------------------------------------------------------------------ the model: sizes, check_model
def test_counts_in_three_coordinate_sets_and_the_same_freedom():
    """Cartesian 15 coordinates, mixed 9, relative 7; 10, 4, 2 position rows; 3 knife edges in each; so
    5 configuration and 2 velocity degrees of freedom (drive and steer) in each."""
    expected = {"cartesian": (15, 10), "mixed": (9, 4), "relative": (7, 2)}
    for coordinates, (n, m) in expected.items():
        model = car(coordinates)
        s = model.system()
        assert (s.n, s.m, s.k) == (n, m, 3), coordinates
        assert n - np.linalg.matrix_rank(s.phi_q(s.q0)) == 5
        assert n - np.linalg.matrix_rank(np.vstack([s.phi_q(s.q0), s.B(s.q0)])) == 2
    assert car("relative").coordinate_names == ["x_car", "y_car", "φ_car", "θ_knuckle", "d_rack",
                                                 "θ_pinion", "θ_trailer"]


@pytest.mark.parametrize("coordinates", COORDINATE_SETS)
def test_check_model_passes_in_every_coordinate_set(coordinates):
    report = check_model(car(coordinates), expected_dof=5)
    assert report.ok and not report.warnings, str(report)
    assert report["connectivity"].status == "pass"        # the knife edges hold each body to the road


def test_the_start_is_straight_ahead_in_every_set():
    start = {c: poses(car(c), car(c).q0, car(c).qd0) for c in COORDINATE_SETS}
    for c in ("relative", "mixed"):
        np.testing.assert_allclose(start[c][0], start["cartesian"][0], atol=1e-12)
        np.testing.assert_allclose(start[c][1], start["cartesian"][1], atol=1e-12)
    x, v = start["cartesian"]
    assert np.allclose(x[2::3], 0.0) and np.allclose(v[0::3], 5.0) and np.allclose(v[1::3], 0.0)
    # the trailer's centre: behind the rear axle by the hitch and the hitch-to-centre distance
    d = CAR_TRAILER
    assert x[12] == pytest.approx(-d["b"] - d["hitch"] - d["trailer_com"])


# ------------------------------------------------------------------ the new rows against finite differences
@pytest.mark.parametrize("coordinates", ["relative", "mixed"])
def test_cut_rows_and_knife_edge_rows_match_finite_differences(coordinates):
    m = car(coordinates)
    rng = np.random.default_rng(5)
    q, qd = m.q0 + 0.2 * rng.standard_normal(m.n), rng.standard_normal(m.n)   # any state: no closure needed
    h = 1e-6
    E = np.eye(m.n)
    P_fd = np.column_stack([(m.phi(q + h * e) - m.phi(q - h * e)) / (2 * h) for e in E])
    np.testing.assert_allclose(m.phi_q(q), P_fd, atol=1e-8)
    g_fd = -(m.phi_q(q + h * qd) @ qd - m.phi_q(q - h * qd) @ qd) / (2 * h)
    np.testing.assert_allclose(m.gamma(q, qd), g_fd, atol=1e-7)
    # B θ̇ is the side velocity of each wheel's contact point: from the Cartesian knife edge on the poses
    x, xd = poses(m, q, qd)
    cart = car("cartesian")
    np.testing.assert_allclose(m.B(q) @ qd, cart.B(x) @ xd, atol=1e-12)
    # b_γ = −Ḃ θ̇ = −d/ds [B(θ + s θ̇) θ̇]
    b_fd = -(m.B(q + h * qd) @ qd - m.B(q - h * qd) @ qd) / (2 * h)
    np.testing.assert_allclose(m.b_gamma(q, qd), b_fd, atol=1e-7)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-3.0, 3.0), min_size=7, max_size=7))
def test_the_gear_pair_is_linear_in_relative_coordinates(values):
    """The rack-and-pinion row: Cartesian, it depends on the pose of the car; in relative coordinates it is
    the constant row (−1 at d_rack, ρ at θ_pinion): d = ρ θ up to the mesh offset, at every q."""
    m = car("relative")
    k = [lab.startswith("rack-pinion") for lab in m.labels[:len(m.phi(m.q0))]].index(True)
    row = np.zeros(m.n)
    row[m.coordinate_names.index("d_rack")], row[m.coordinate_names.index("θ_pinion")] = -1.0, CAR_TRAILER[
        "pinion"]
    q = np.asarray(values)
    np.testing.assert_allclose(m.phi_q(q)[k], row, atol=1e-14)
    assert m.phi(q)[k] == pytest.approx(row @ q - row @ m.q0, abs=1e-12)


# ------------------------------------------------------------------ closed forms: gears, rack, knife edge
@pytest.mark.parametrize("ratio", [-0.5, 2.0])
def test_gear_train_on_the_ground_has_the_closed_form_acceleration(ratio):
    """Two gears on fixed axles, ω₂ = r ω₁, torque τ on gear 1: (J₁ + r² J₂) θ̈₁ = τ."""
    J1, J2, tau = 0.3, 0.7, 1.3
    rel = RelativeModel(gravity=G0)
    rel.add_body("g1", 2.0, J1, joint="revolute", point_parent=(0.0, 0.0))
    rel.add_body("g2", 3.0, J2, joint="revolute", point_parent=(0.5, 0.0))
    rel.add_cut_gear("g1", "g2", ratio)
    rel.add_joint_torque("g1", tau, name="motor")
    cart = PlanarModel(gravity=G0)
    g1, g2 = cart.add_body("g1", 2.0, J1), cart.add_body("g2", 3.0, J2, position=(0.5, 0.0))
    pin = cart.add_revolute(cart.ground, g1)
    cart.add_revolute(cart.ground, g2, point_i=(0.5, 0.0))
    cart.add_gear(g1, g2, ratio)
    cart.add_joint_torque(pin, tau)
    closed = tau / (J1 + ratio**2 * J2)
    qdd, _ = accelerations(rel.system(), 0.0, rel.q0, rel.qd0)
    np.testing.assert_allclose(qdd, [closed, ratio * closed], rtol=1e-12)
    qdd_c, _ = accelerations(cart.system(), 0.0, cart.q0, cart.qd0)
    np.testing.assert_allclose(qdd_c[[2, 5]], [closed, ratio * closed], rtol=1e-12)
    assert list(rel.system().inputs) == ["motor"]


def test_rack_and_pinion_on_the_ground_has_the_closed_form_acceleration():
    """Pinion (J, radius ρ) on a fixed axle above a rack of mass m sliding along x, torque τ: the pinion's
    lowest point moves at ρ θ̇ along +x when it turns counter-clockwise, so the rack moves by s = ρ θ, and
    (J + m ρ²) θ̈ = τ."""
    J, m, rho, tau = 0.02, 4.0, 0.05, 0.7
    rel = RelativeModel(gravity=G0)
    rel.add_body("pinion", 0.5, J, joint="revolute", point_parent=(0.0, rho))
    rel.add_body("rack", m, 0.1, joint="prismatic", axis=(1.0, 0.0))
    rel.add_cut_rack_pinion("pinion", "rack", rho, axis_rack=(1.0, 0.0))
    rel.add_joint_torque("pinion", tau)
    qdd, _ = accelerations(rel.system(), 0.0, rel.q0, rel.qd0)
    closed = tau / (J + m * rho**2)
    np.testing.assert_allclose(qdd, [closed, rho * closed], rtol=1e-12)


@settings(max_examples=20, deadline=None)
@given(st.floats(-np.pi, np.pi), st.floats(-3, 3), st.floats(-2, 2), st.floats(-1, 1))
def test_knife_edge_at_the_centre_of_mass_has_the_closed_form_acceleration(phi, v, w, tau):
    """A blade at the centre of mass, torque τ: the speed along the blade is constant, J φ̈ = τ, so
    ẍ = −v ω sin φ, ÿ = v ω cos φ (the sideways force only turns the velocity)."""
    mass, J = 2.0, 0.4
    m = RelativeModel(gravity=G0)
    m.add_body("sled", mass, J, joint="free", q=(0.3, -0.2, phi), qd=(v * np.cos(phi), v * np.sin(phi), w))
    m.add_knife_edge("sled")
    m.add_torque("sled", tau)
    qdd, _ = accelerations(m.system(), 0.0, m.q0, m.qd0)
    np.testing.assert_allclose(qdd, [-v * w * np.sin(phi), v * w * np.cos(phi), tau / J], atol=1e-12)


def test_applied_force_does_the_virtual_work_of_its_point():
    """Q·δθ = F·δr_P for a force at a body point, δr_P by finite differences of the point's position."""
    m = RelativeModel(gravity=G0)
    m.add_body("a", 1.0, 0.1, joint="revolute", point_child=(-0.4, 0.0))
    m.add_body("b", 1.0, 0.1, parent="a", joint="revolute", point_parent=(0.4, 0.0), point_child=(-0.3, 0.1))
    F, s = np.array([0.7, -1.1]), np.array([0.2, 0.05])
    m.add_force("b", F, point=s)
    q = np.array([0.4, -0.9])

    def point(q):
        x, y, phi = m.pose("b", q)
        return np.array([x, y]) + np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]]) @ s

    h = 1e-6
    JP = np.column_stack([(point(q + h * e) - point(q - h * e)) / (2 * h) for e in np.eye(2)])
    np.testing.assert_allclose(m.Q(0.0, q, np.zeros(2)), JP.T @ F, atol=1e-9)


# ------------------------------------------------------------------ the three descriptions agree
def test_accelerations_agree_with_the_cartesian_model_at_random_states():
    """At random consistent states and times (the steering torque acting), the relative and mixed models'
    body accelerations J θ̈ + J̇ θ̇ equal the Cartesian model's q̈ from its own KKT solve."""
    rng = np.random.default_rng(26)
    cart = car("cartesian")
    s_cart = cart.system()
    for coordinates in ("relative", "mixed"):
        m = car(coordinates)
        s = m.system()
        for _ in range(4):
            q, qd = random_state(m, rng)
            t = rng.uniform(0.0, 5.0)
            assert np.abs(s.B(q) @ qd).max() < 1e-9 and np.abs(s.phi(q)).max() < 1e-9
            x, xd = convert(q, qd, m, cart)
            qdd, _ = accelerations(s, t, q, qd)
            _, J, c = m.kinematics(q, qd)
            xdd, _ = accelerations(s_cart, t, x, xd)
            np.testing.assert_allclose(J @ qdd + c, xdd, rtol=1e-8, atol=1e-8 * np.abs(xdd).max())
            assert m.energy(q, qd) == pytest.approx(cart.energy(x, xd), rel=1e-12)


def _run(coordinates, tol, t_end):
    m = car(coordinates)
    t = np.linspace(0.0, t_end, 31)
    r = simulate(m.system(), t_end, ODE(rtol=tol, atol=tol), t_eval=t)
    return np.array([poses(m, q)[0] for q in r.q])


def test_the_lane_change_agrees_in_the_three_coordinate_sets():
    """The body poses of the three descriptions agree within the integrators' own error.

    Each description is integrated over the first 2 s (the car turns left and starts back) at 1e-7 and at
    1e-9 (DOP853, rtol = atol); the difference of the two runs estimates the error of the first. The three
    runs at 1e-7 must agree within three times the sum of their estimated errors (and the estimates must be
    small: the motion is resolved)."""
    t_end, runs, errors = 2.0, {}, {}
    for c in COORDINATE_SETS:
        runs[c], fine = _run(c, 1e-7, t_end), _run(c, 1e-9, t_end)
        errors[c] = np.abs(runs[c] - fine).max(axis=0) + 1e-12
    assert np.ptp(runs["cartesian"][:, 1]) > 0.2                   # the car does move sideways
    assert max(e.max() for e in errors.values()) < 1e-4
    for c in ("relative", "mixed"):
        diff = np.abs(runs[c] - runs["cartesian"]).max(axis=0)
        assert np.all(diff <= 3 * (errors[c] + errors["cartesian"])), (c, diff, errors[c])


@pytest.mark.parametrize("coordinates", COORDINATE_SETS)
def test_the_power_of_the_steering_torque_is_the_rate_of_energy(coordinates):
    """The joints and the knife edges do no work: Ė = τ θ̇_pinion at random states and times, with q̈ from
    the KKT solve and Ė by a central difference of the energy along (q̇, q̈)."""
    m = car(coordinates)
    s, rng = m.system(), np.random.default_rng(7)
    rel = car("relative")
    angle = m.coordinate("column") if coordinates == "cartesian" else m.coordinate("θ_pinion")
    tau = m.loads[0]["value"]                                             # the steering torque
    for _ in range(4):
        q, qd = random_state(rel, rng)
        if coordinates != "relative":
            q, qd = convert(q, qd, rel, m)
        t = rng.uniform(0.0, 5.0)
        qdd, _ = accelerations(s, t, q, qd)
        h = 1e-6
        E_dot = (s.energy(q + h * qd, qd + h * qdd) - s.energy(q - h * qd, qd - h * qdd)) / (2 * h)
        power = tau(t, q, qd) * angle.rate(q, qd)
        assert abs(power) > 1e-3
        assert E_dot == pytest.approx(power, rel=1e-6)


def test_sine_steer_is_smooth_with_zero_mean():
    ref = sine_steer(amplitude=1.5, period=4.0, start=0.5)
    t = np.linspace(0.0, 5.0, 40001)
    a, rate = np.array([ref(x) for x in t]).T
    np.testing.assert_allclose(np.gradient(a, t), rate, atol=2e-3)     # the rate is the angle's derivative
    assert abs(np.trapezoid(a, t)) < 1e-6                               # the heading comes back
    assert a[0] == rate[0] == a[-1] == rate[-1] == 0.0
    assert a.max() == pytest.approx(1.5 * (np.sin(2 * np.pi / 3) - 0.5 * np.sin(4 * np.pi / 3)), rel=1e-6)


# ------------------------------------------------------------------ bad input
def test_bad_input_gives_clear_errors():
    with pytest.raises(ModelError, match="unknown parameters"):
        car("mixed", wheelbase=2.0)
    with pytest.raises(ModelError, match="must be positive"):
        car("mixed", m_car=-1.0)
    with pytest.raises(ModelError, match="ahead of its axle"):
        car("mixed", trailer_com=4.0)
    with pytest.raises(ModelError, match="steering must be"):
        car("mixed", steering="left")
    with pytest.raises(ModelError, match="positive period"):
        sine_steer(period=0.0)
    m = RelativeModel(gravity=G0)
    m.add_body("a", 1.0, 0.1, joint="free")
    m.add_body("b", 1.0, 0.1, parent="a", joint="prismatic")
    with pytest.raises(ModelError, match="ground does not move"):
        m.add_knife_edge("ground")
    with pytest.raises(ModelError, match="not revolute; use add_joint_force"):
        m.add_joint_torque("b", 1.0)
    with pytest.raises(ModelError, match="not prismatic; use add_joint_torque"):
        m.add_joint_force("a", 1.0)
    with pytest.raises(ModelError, match="three bodies"):
        m.add_cut_gear("a", "b", 2.0, carrier="a")
    with pytest.raises(ModelError, match="a load on the ground"):
        m.add_torque("ground", 1.0)
    m.add_knife_edge("a", name="blade")
    with pytest.raises(ModelError, match="already exists"):
        m.add_knife_edge("b", name="blade")
    with pytest.raises(ModelError, match="unknown body 'c'"):
        m.add_force("c", (1.0, 0.0))
