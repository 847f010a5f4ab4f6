"""Generalized coordinates: one mechanism in Cartesian, relative and mixed coordinates.

Independent checks: finite differences of the tree kinematics, Chain.planar's mass matrix and
bias forces (CRBA/RNEA) and the closed form of the double pendulum, the Cartesian PlanarModel
(its own joints, diagonal M and KKT solve) for accelerations and trajectories.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mbdlib import Chain, PlanarModel, bias_forces, mass_matrix
from mbdlib.catalogue import COORDINATE_SETS, mechanism
from mbdlib.coordinates import RelativeModel, body_states, convert
from mbdlib.dae import accelerations, simulate
from mbdlib.errors import ModelError, ShapeError
from mbdlib.schemes import ODE

PLANAR = ("double_pendulum", "slider_crank", "fourbar")
MOBILITY = {"double_pendulum": 2, "slider_crank": 1, "fourbar": 1}
FIRST = {"double_pendulum": ("link1", "link2"), "slider_crank": ("crank", "rod"),
         "fourbar": ("crank", "coupler")}
angles = st.floats(-np.pi, np.pi)
rates = st.floats(-5.0, 5.0)


def models(name, **params):
    return {c: mechanism(name, coordinates=c, gravity=(0.0, -9.81), **params) for c in COORDINATE_SETS}


# ------------------------------------------------------------------ tree kinematics
@pytest.mark.parametrize("name", PLANAR)
@pytest.mark.parametrize("coords", ["relative", "mixed"])
def test_jacobian_and_velocity_product_match_finite_differences(name, coords):
    m = mechanism(name, coordinates=coords, gravity=(0.0, -9.81))
    rng = np.random.default_rng(1)
    q = m.q0 + 0.3 * rng.standard_normal(m.n)          # any q: the tree map needs no closure
    qd = rng.standard_normal(m.n)
    x, J, c = m.kinematics(q, qd)
    h = 1e-6
    J_fd = np.column_stack([(m.kinematics(q + h * e)[0] - m.kinematics(q - h * e)[0]) / (2 * h)
                            for e in np.eye(m.n)])
    np.testing.assert_allclose(J, J_fd, atol=1e-8)
    # c = J̇ q̇ = d/ds [J(q + s q̇) q̇] at s = 0
    c_fd = (m.kinematics(q + h * qd)[1] @ qd - m.kinematics(q - h * qd)[1] @ qd) / (2 * h)
    np.testing.assert_allclose(c, c_fd, atol=1e-7)


@pytest.mark.parametrize("name", ["slider_crank", "fourbar"])
@pytest.mark.parametrize("coords", ["relative", "mixed"])
def test_cut_joint_jacobian_and_gamma_match_finite_differences(name, coords):
    m = mechanism(name, coordinates=coords, gravity=(0.0, -9.81))
    rng = np.random.default_rng(2)
    q, qd = m.q0 + 0.2 * rng.standard_normal(m.n), rng.standard_normal(m.n)
    h = 1e-6
    P_fd = np.column_stack([(m.phi(q + h * e) - m.phi(q - h * e)) / (2 * h) for e in np.eye(m.n)])
    np.testing.assert_allclose(m.phi_q(q), P_fd, atol=1e-8)
    # γ = −(Φ_q q̇)_q q̇ = −d/ds [Φ_q(q + s q̇) q̇]
    g_fd = -(m.phi_q(q + h * qd) @ qd - m.phi_q(q - h * qd) @ qd) / (2 * h)
    np.testing.assert_allclose(m.gamma(q, qd), g_fd, atol=1e-7)


# ------------------------------------------------------------------ the double pendulum against Chain.planar
@settings(max_examples=30, deadline=None)
@given(angles, angles, rates, rates)
def test_relative_double_pendulum_equals_chain_planar_and_closed_form(t1, t2, w1, w2):
    L1, L2, m1, m2, g = 0.8, 1.3, 1.5, 0.7, 9.81
    m = mechanism("double_pendulum", coordinates="relative", L1=L1, L2=L2, m1=m1, m2=m2, gravity=(0.0, -9.81))
    chain = Chain.planar([L1, L2], [m1, m2])
    q, qd = np.array([t1, t2]), np.array([w1, w2])
    M = m.M(q)
    np.testing.assert_allclose(M, mass_matrix(chain, q), rtol=1e-12, atol=1e-12)
    I1, I2 = m1 * L1**2 / 12, m2 * L2**2 / 12                 # closed form (uniform rods)
    M12 = I2 + m2 * (L2**2 / 4 + L1 * L2 / 2 * np.cos(t2))
    closed = [[I1 + m1 * L1**2 / 4 + I2 + m2 * (L1**2 + L2**2 / 4 + L1 * L2 * np.cos(t2)), M12],
              [M12, I2 + m2 * L2**2 / 4]]
    np.testing.assert_allclose(M, closed, rtol=1e-12, atol=1e-12)
    # Q = −h(q, q̇): velocity products and gravity as the RNEA gives them (gravity along −y)
    np.testing.assert_allclose(m.Q(0.0, q, qd), -bias_forces(chain, q, qd, gravity=(0, -g, 0)),
                               rtol=1e-10, atol=1e-10)


def test_pendulum_built_by_hand_has_the_closed_form_acceleration():
    mass, L, phi = 2.0, 1.5, 0.4
    m = RelativeModel(gravity=(0.0, -9.81))
    m.add_body("rod", mass, mass * L**2 / 12, parent="ground", joint="revolute", point_child=(-L / 2, 0),
               q=phi)
    qdd, _ = accelerations(m.system(), 0.0, m.q0, m.qd0)
    # (m L²/3) φ̈ = −m g (L/2) cos φ
    np.testing.assert_allclose(qdd, [-1.5 * 9.81 * np.cos(phi) / L], rtol=1e-12)
    assert m.coordinate_names == ["θ_rod"]


# ------------------------------------------------------------------ the same state, three coordinate sets
@settings(max_examples=15, deadline=None)
@given(st.sampled_from(PLANAR), angles, rates)
def test_conversions_round_trip_and_reproduce_the_builders(name, theta, omega):
    params = dict(phi1=theta, omega1=omega) if name == "double_pendulum" else dict(theta=theta, omega=omega)
    ms = models(name, **params)
    for a, ma in ms.items():
        for b, mb in ms.items():
            q, qd = convert(ma.q0, ma.qd0, ma, mb)
            np.testing.assert_allclose(q, mb.q0, atol=1e-9, err_msg=f"{a} -> {b}")
            np.testing.assert_allclose(qd, mb.qd0, atol=1e-8, err_msg=f"{a} -> {b}")
            np.testing.assert_allclose(mb.phi_q(q) @ qd, 0.0, atol=1e-9)
            q2, qd2 = convert(q, qd, mb, ma)
            np.testing.assert_allclose(q2, ma.q0, atol=1e-9)
            np.testing.assert_allclose(qd2, ma.qd0, atol=1e-8)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(PLANAR), angles, rates)
def test_energy_and_accelerations_agree_with_the_cartesian_model(name, theta, omega):
    params = dict(phi1=theta, omega1=omega) if name == "double_pendulum" else dict(theta=theta, omega=omega)
    ms = models(name, **params)
    cart = ms["cartesian"]
    qdd_c, _ = accelerations(cart.system(), 0.0, cart.q0, cart.qd0)
    for coords in ("relative", "mixed"):
        m = ms[coords]
        assert m.energy(m.q0, m.qd0) == pytest.approx(cart.energy(cart.q0, cart.qd0), rel=1e-10, abs=1e-10)
        qdd, _ = accelerations(m.system(), 0.0, m.q0, m.qd0)
        _, J, c = m.kinematics(m.q0, m.qd0)            # ẍ = J q̈ + J̇ q̇
        np.testing.assert_allclose(J @ qdd + c, qdd_c, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("name", PLANAR)
def test_identical_trajectories_in_the_three_coordinate_sets(name):
    """Crank (first link) angle and coupler (second body) centre agree to 1e-7 over 2 s."""
    ms = models(name)
    t_eval = np.linspace(0.0, 2.0, 21)
    out = {}
    for coords, m in ms.items():
        r = simulate(m.system(), 2.0, ODE(rtol=1e-10, atol=1e-10), t_eval=t_eval)
        q, _ = convert(r.q, r.qd, m, ms["cartesian"], check=False)
        crank, coupler = (ms["cartesian"].body(b).index for b in FIRST[name])
        out[coords] = np.column_stack([q[:, 3 * crank + 2], q[:, 3 * coupler: 3 * coupler + 2]])
    assert np.ptp(out["cartesian"][:, 0]) > 0.5            # it does move
    for coords in ("relative", "mixed"):
        np.testing.assert_allclose(out[coords], out["cartesian"], atol=1e-7, err_msg=coords)


@pytest.mark.parametrize("name", PLANAR)
@pytest.mark.parametrize("coords", COORDINATE_SETS)
def test_dof_by_rank_is_the_known_mobility(name, coords):
    m = mechanism(name, coordinates=coords, gravity=(0.0, -9.81))
    J = m.phi_q(m.q0)
    assert m.n - np.linalg.matrix_rank(J) == MOBILITY[name]
    if coords == "cartesian":
        assert isinstance(m, PlanarModel) and m.dof_report().dof == MOBILITY[name]


def test_body_states_of_the_double_pendulum_in_line():
    m = mechanism("double_pendulum", coordinates="mixed", phi1=0.0, phi2=0.0, omega1=1.0, omega2=1.0,
                  gravity=(0.0, -9.81))
    s = body_states(m, m.q0, m.qd0)
    np.testing.assert_allclose(s["link2"][0], [1.5, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(s["link2"][1], [0.0, 1.5, 1.0], atol=1e-12)   # v = ω × r


# ------------------------------------------------------------------ bad input
def test_bad_input_gives_clear_errors():
    with pytest.raises(ModelError, match="unknown mechanism"):
        mechanism("threebar", gravity=(0.0, -9.81))
    with pytest.raises(ModelError, match="coordinates must be one of"):
        mechanism("fourbar", coordinates="natural", gravity=(0.0, -9.81))
    with pytest.raises(ModelError, match="unknown parameters.*'L'"):
        mechanism("fourbar", L=1.0, gravity=(0.0, -9.81))
    with pytest.raises(ModelError, match="6R arm comes in"):
        mechanism("arm6r", coordinates="mixed", gravity=(0, 0, -9.81))
    with pytest.raises(ModelError, match="0 < r < l"):
        mechanism("slider_crank", r=2.0, l=1.0, gravity=(0.0, -9.81))
    with pytest.raises(ModelError, match="cannot close"):
        mechanism("fourbar", a=0.5, b=0.5, c=0.5, d=3.0, gravity=(0.0, -9.81))
    m = RelativeModel(gravity=(0.0, -9.81))
    with pytest.raises(ModelError, match="joint must be one of"):
        m.add_body("a", 1.0, 1.0, joint="spherical")
    with pytest.raises(ModelError, match="unknown body 'nowhere'"):
        m.add_body("a", 1.0, 1.0, parent="nowhere")
    with pytest.raises(ModelError, match="mass must be a positive"):
        m.add_body("a", -1.0, 1.0)
    with pytest.raises(ShapeError, match="3 value"):
        m.add_body("a", 1.0, 1.0, joint="free", q=0.0)
    m.add_body("a", 1.0, 1.0)
    with pytest.raises(ModelError, match="already exists"):
        m.add_body("a", 1.0, 1.0)
    with pytest.raises(ShapeError, match=r"shape \(1,\)"):
        m.M([0.0, 1.0])
    with pytest.raises(ModelError, match="two different bodies"):
        m.add_cut_revolute("a", "a")


def test_convert_refuses_different_mechanisms():
    four = mechanism("fourbar", coordinates="relative", gravity=(0.0, -9.81))
    with pytest.raises(ModelError, match="no pose given for bodies"):
        convert(four.q0, four.qd0, four,
                mechanism("slider_crank", coordinates="relative", gravity=(0.0, -9.81)))
    longer = mechanism("fourbar", coordinates="relative", c=1.6, gravity=(0.0, -9.81))
    with pytest.raises(ModelError, match="do not describe the same mechanism"):
        convert(four.q0, four.qd0, four, longer)
    with pytest.raises(ModelError, match="PlanarModel or a RelativeModel"):
        convert(four.q0, four.qd0, four, object())


def test_prismatic_and_free_joints_on_a_moving_parent_match_finite_differences():
    """Coriolis terms 2 B_p u ḋ φ̇_p and 2 B_p ρ̇ φ̇_p only appear when the parent turns."""
    m = RelativeModel(gravity=(0.0, -9.81))
    m.add_body("arm", 2.0, 0.3, joint="revolute", point_child=(-0.5, 0.1))
    m.add_body("sleeve", 1.0, 0.05, parent="arm", joint="prismatic", point_parent=(0.2, 0.0),
               point_child=(0.0, 0.05), axis=(1.0, 0.5), angle=0.3)
    m.add_body("drone", 0.5, 0.02, parent="sleeve", joint="free")
    assert m.coordinate_names == ["θ_arm", "d_sleeve", "x_drone", "y_drone", "φ_drone"]
    rng = np.random.default_rng(3)
    q, qd = rng.standard_normal(m.n), rng.standard_normal(m.n)
    _, J, c = m.kinematics(q, qd)
    h = 1e-6
    J_fd = np.column_stack([(m.kinematics(q + h * e)[0] - m.kinematics(q - h * e)[0]) / (2 * h)
                            for e in np.eye(m.n)])
    np.testing.assert_allclose(J, J_fd, atol=1e-8)
    c_fd = (m.kinematics(q + h * qd)[1] @ qd - m.kinematics(q - h * qd)[1] @ qd) / (2 * h)
    np.testing.assert_allclose(c, c_fd, atol=1e-7)
    # the inverse map: joint coordinates back from the body poses
    q2, qd2 = m.from_body_states(body_states(m, q, qd))
    np.testing.assert_allclose(q2, q, atol=1e-12)
    np.testing.assert_allclose(qd2, qd, atol=1e-12)
    # ½ q̇ᵀ M q̇ is the kinetic energy of the bodies
    velocities = [v for _, v in body_states(m, q, qd).values()]
    T = 0.5 * sum(mi * (v[0] ** 2 + v[1] ** 2) + Ii * v[2] ** 2
                  for mi, Ii, v in zip(m.masses, m.inertias, velocities, strict=True))
    assert 0.5 * qd @ m.M(q) @ qd == pytest.approx(T, rel=1e-12)
