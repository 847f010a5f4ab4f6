"""The contract between a model and its system: chosen coordinates, states held by them, joint loads,
linearization (issue 22).

Independent checks: joint coordinates against their definitions and their gradients and rates against
finite differences (hypothesis); states against the constraints they must satisfy; a joint torque against
the pair of body torques it stands for; linearizations against closed forms (a pendulum in three model
families, a double pendulum by its hand-derived M and K, the Chaplygin sleigh's steady motion) and
against each other across coordinate sets.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mbdlib import (
    Chain,
    ChainModel,
    ModelError,
    PlanarModel,
    Projection,
    RelativeModel,
    linearize,
    mechanism,
    simulate,
)
from mbdlib.dae import accelerations

G = 9.81


def finite_gradient(f, q, h=1e-6):
    return np.array([(f(q + h * e) - f(q - h * e)) / (2 * h) for e in np.eye(q.size)])


def pendulum_planar(L=1.0, m=1.0, angle=-np.pi / 2):
    """A uniform rod hinged at its end to the ground at the origin; ``angle`` of the rod from +x."""
    model = PlanarModel(gravity=(0.0, -G))
    rod = model.add_body("rod", m, m * L**2 / 12, position=(0.5 * L * np.cos(angle), 0.5 * L * np.sin(angle)),
                         angle=angle)
    pin = model.add_revolute(model.ground, rod, (0.0, 0.0), (-0.5 * L, 0.0), name="pin")
    return model, pin


# ----------------------------------------------------------------- joint coordinates
@settings(max_examples=20, deadline=None)
@given(st.floats(-3.0, 3.0), st.floats(-2.0, 2.0), st.integers(0, 10**6))
def test_planar_joint_coordinates_values_gradients_and_rates(theta, omega, seed):
    """A revolute joint's angle is φ_j − φ_i; a translational joint's slide the travel along its axis;
    gradients equal finite differences and ċ = c_q q̇; c̈ = c_q q̈ + bias along any motion."""
    model = mechanism("slider_crank", coordinates="cartesian", gravity=(0.0, -G), theta=theta, omega=omega)
    rng = np.random.default_rng(seed)
    q = model.q0 + 0.1 * rng.standard_normal(model.n)
    qd, qdd = rng.standard_normal((2, model.n))
    by_kind = {type(j).__name__: j for j in model.joints}
    crank_pin, slide = model.joints[0], by_kind["Translational"]
    i, j = (model.body(b) for b in crank_pin.bodies)
    phi_i = 0.0 if i.is_ground else q[3 * i.index + 2]
    assert crank_pin.angle(q) == pytest.approx(q[3 * j.index + 2] - phi_i, abs=1e-14)
    b = model.body(slide.bodies[1])
    a = model.body(slide.bodies[0])
    assert a.is_ground                                           # the slider moves on a ground line
    P = q[3 * b.index: 3 * b.index + 2] + np.array([[np.cos(q[3 * b.index + 2]), -np.sin(q[3 * b.index + 2])],
                                                    [np.sin(q[3 * b.index + 2]), np.cos(q[3 * b.index + 2])]]
                                                   ) @ slide.point_j
    assert slide.slide(q) == pytest.approx((P - slide.point_i) @ slide.axis_i, abs=1e-13)
    for c in (crank_pin.angle, slide.slide):
        np.testing.assert_allclose(c.gradient(q), finite_gradient(c, q), atol=1e-8)
        assert c.rate(q, qd) == pytest.approx(c.gradient(q) @ qd, abs=1e-14)
        # c̈ along q(s) = q + s qd + s² qdd / 2 by a central second difference
        h = 1e-4
        path = [c(q + s * qd + 0.5 * s * s * qdd) for s in (-h, 0.0, h)]
        second = (path[0] - 2 * path[1] + path[2]) / h**2
        assert c.gradient(q) @ qdd + c.bias(q, qd) == pytest.approx(second, abs=1e-5)


def test_joint_coordinate_errors_name_the_joint():
    model = mechanism("slider_crank", coordinates="cartesian", gravity=(0.0, -G))
    slider_joint = next(j for j in model.joints if type(j).__name__ == "Translational")
    with pytest.raises(AttributeError, match="has no angle coordinate.*joint.slide"):
        slider_joint.angle  # noqa: B018
    with pytest.raises(ModelError, match="no joint named 'elbow'"):
        model.coordinate("elbow")
    with pytest.raises(ModelError, match="give a moving body and 'x', 'y' or 'phi'"):
        model.coordinate("rod", "z")


# ----------------------------------------------------------------- states held by chosen coordinates
def test_state_holds_the_chosen_angle_and_speed_and_solves_the_rest():
    model = mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -G))
    crank = model.joints[0]
    state = model.state(fixed={crank: 2.0}, speeds={crank: -1.5})
    q, qd = state.q0, state.qd0
    assert crank.angle(q) == pytest.approx(2.0, abs=1e-12) and crank.rate(q, qd) == pytest.approx(-1.5)
    assert np.abs(model.phi(q)).max() < 1e-10 and np.abs(model.phi_q(q) @ qd).max() < 1e-10
    # the same state in relative coordinates: the crank's joint coordinate is θ_crank
    rel = mechanism("fourbar", coordinates="relative", gravity=(0.0, -G))
    s2 = rel.state(fixed={"θ_crank": 2.0}, speeds={"θ_crank": -1.5})
    from mbdlib.coordinates import convert
    q2, qd2 = convert(s2.q0, s2.qd0, rel, model)
    np.testing.assert_allclose(q2, q, atol=1e-9)
    np.testing.assert_allclose(qd2, qd, atol=1e-9)
    # the system starts there, and simulates from there
    system = model.system(state)
    np.testing.assert_allclose(system.q0, q)
    run = simulate(system, 0.1, Projection(), t_eval=[0.0, 0.1])
    assert crank.angle(run.q[0]) == pytest.approx(2.0)


def test_state_refuses_dependent_and_unreachable_choices():
    model = mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -G))
    crank, rocker = model.joints[0], model.joints[3]
    with pytest.raises(ModelError, match=r"chosen coordinates \[.*O angle.*\] are not independent"):
        model.state(fixed={crank: 1.0, rocker: 1.2})              # one DOF: the rocker follows the crank
    with pytest.raises(ModelError, match=r"chosen speeds \[.*\] are not independent"):
        model.state(speeds={crank: 1.0, rocker: 0.3})
    slider = mechanism("slider_crank", coordinates="cartesian", gravity=(0.0, -G))
    track = next(j for j in slider.joints if type(j).__name__ == "Translational")
    with pytest.raises(ModelError, match=r"no configuration satisfies the constraints with .* slide = 5"):
        slider.state(fixed={track: 5.0})                          # the rod is 1 m, the crank 0.3 m
    with pytest.raises(ModelError, match="must be finite"):
        slider.state(fixed={track: np.nan})


def test_chain_model_state_by_joint_names():
    model = ChainModel(Chain.planar([1.0, 1.0]), gravity=(0, -G, 0))
    names = model.coordinate_names
    state = model.state(fixed={names[0]: 0.3, names[1]: -0.2}, speeds={names[1]: 2.0})
    np.testing.assert_allclose(state.q0, [0.3, -0.2], atol=1e-12)
    # the free rate changes as little as possible in kinetic energy: M Δq̇ has no part along joint 1's
    # free direction, i.e. (M Δq̇)[0] = 0 (the given rates were zero)
    M = model.M(state.q0)
    assert state.qd0[1] == pytest.approx(2.0, abs=1e-12)
    assert (M @ state.qd0)[0] == pytest.approx(0.0, abs=1e-12)
    both = model.state(fixed={names[0]: 0.3, names[1]: -0.2}, speeds={names[0]: 0.0, names[1]: 2.0})
    np.testing.assert_allclose(both.qd0, [0.0, 2.0], atol=1e-12)


# ----------------------------------------------------------------- joint loads
def test_a_joint_torque_is_the_pair_of_body_torques_and_its_power_is_tau_theta_dot():
    def model_with(load):
        m = mechanism("double_pendulum", coordinates="cartesian", gravity=(0.0, -G))
        elbow = m.joints[1]
        i, j = elbow.bodies
        if load == "joint":
            m.add_joint_torque(elbow, lambda t, q, qd: 0.7 + 0.2 * t, name="elbow motor")
        else:
            m.add_torque(j, lambda t, q, qd: 0.7 + 0.2 * t)
            m.add_torque(i, lambda t, q, qd: -(0.7 + 0.2 * t))
        return m, elbow

    (a, elbow), (b, _) = model_with("joint"), model_with("bodies")
    sa, sb = a.system(), b.system()
    assert list(sa.inputs) == ["elbow motor"] and not sb.inputs
    rng = np.random.default_rng(2)
    for _ in range(3):
        q, qd = sa.q0 + 0.05 * rng.standard_normal(sa.n), rng.standard_normal(sa.n)
        np.testing.assert_allclose(sa.Q(0.4, q, qd), sb.Q(0.4, q, qd), atol=1e-12)
        power = sa.inputs["elbow motor"](0.4, q, qd) @ qd * (0.7 + 0.2 * 0.4)
        assert power == pytest.approx((0.7 + 0.2 * 0.4) * elbow.rate(q, qd), rel=1e-12)
    other = mechanism("double_pendulum", gravity=(0.0, -G))
    with pytest.raises(ModelError, match="on 'E': torque must be a finite number, got inf"):
        other.add_joint_torque(other.joints[1], np.inf)
    with pytest.raises(ModelError, match="is not a joint of this model"):
        other.add_joint_torque(elbow, 1.0)


# ----------------------------------------------------------------- linearization
def test_pendulum_linearized_in_three_model_families_is_the_closed_form():
    """A uniform rod hinged at one end, hanging: λ = ±i √(3g / 2L); upright: ±√(3g / 2L)."""
    L = 0.8
    w = np.sqrt(1.5 * G / L)
    chain = ChainModel(Chain.planar([L]), gravity=(0, -G, 0), q0=[-np.pi / 2]).system()
    planar, pin = pendulum_planar(L)
    rel = RelativeModel(gravity=(0.0, -G))
    rel.add_body("rod", 1.0, L**2 / 12, parent="ground", joint="revolute", point_child=(-L / 2, 0.0),
                 q=-np.pi / 2)
    cases = [(chain, [0]), (planar.system(), [pin.angle]), (rel.system(), ["θ_rod"])]
    for system, coords in cases:
        lin = linearize(system, coords)
        np.testing.assert_allclose(lin.eigenvalues, [-1j * w, 1j * w], atol=1e-9)
        assert lin.is_equilibrium and lin.accuracy < 1e-8 and lin.coupling < 1e-8
    upright, pin_up = pendulum_planar(L, angle=np.pi / 2)
    lin = linearize(upright.system(), [pin_up.angle])
    np.testing.assert_allclose(lin.eigenvalues, [-w, w], atol=1e-9)
    assert not lin.stable()


def test_double_pendulum_linearized_by_its_hand_derived_mass_and_stiffness():
    """Two uniform rods (m, L), hanging: M = m L² [[4/3, 1/2], [1/2, 1/3]], K = m g L diag(3/2, 1/2)
    (by hand from T and V), ω² the eigenvalues of M⁻¹K; the same in Cartesian and relative coordinates."""
    m = mechanism("double_pendulum", coordinates="cartesian", gravity=(0.0, -G), phi1=-np.pi / 2,
                  phi2=-np.pi / 2)
    M = np.array([[4 / 3, 1 / 2], [1 / 2, 1 / 3]])
    K = np.diag([1.5, 0.5]) * G
    omega = np.sqrt(np.sort(np.linalg.eigvals(np.linalg.solve(M, K)).real))
    shoulder, elbow = m.joints
    angles = [m.coordinate("link1", "phi"), m.coordinate("link2", "phi")]   # absolute angles
    lin = linearize(m.system(), angles)
    expected = np.sort(np.concatenate([omega, -omega]))

    def frequencies(lin):
        assert np.abs(lin.eigenvalues.real).max() < 1e-8
        return np.sort(lin.eigenvalues.imag)

    np.testing.assert_allclose(frequencies(lin), expected, atol=1e-8)
    # in joint angles (θ2 relative) the frequencies are the same; the mode shapes differ by the coordinates
    lin_rel = linearize(m.system(), [shoulder.angle, elbow.angle])
    np.testing.assert_allclose(frequencies(lin_rel), expected, atol=1e-8)
    rel = mechanism("double_pendulum", coordinates="relative", gravity=(0.0, -G), phi1=-np.pi / 2,
                    phi2=-np.pi / 2)
    lin_r = linearize(rel.system(), rel.coordinate_names)
    np.testing.assert_allclose(lin_r.A, lin_rel.A, atol=1e-7)
    with pytest.raises(ModelError, match="2 velocity degrees of freedom; name that many speeds"):
        linearize(m.system(), [shoulder.angle])
    with pytest.raises(ModelError, match="depends on a direction that none of them describes"):
        linearize(m.system(), [shoulder.angle], speeds=[shoulder.angle, elbow.angle])


def test_mode_shapes_are_exact_beside_a_free_coordinates_double_zero():
    """A cart on a rail with a uniform rod hanging from it: the rail is free, so A has a defective double
    zero (drift), and LAPACK's vector of the swing was off in the ninth digit on some machines. The swing's
    shape is x / θ = −m l / (M + m) exactly (first row of M ü + K u = 0 with ü = −ω² u, K's first row 0)."""
    cart_mass, mass, length = 4.0, 1.0, 1.2                    # page 8.2's crane
    model = PlanarModel(gravity=(0.0, -G))
    cart = model.add_body("cart", cart_mass, 0.04)
    rod = model.add_body("rod", mass, mass * length**2 / 12, position=(0.0, -length / 2),
                         angle=-np.pi / 2)
    rail = model.add_translational(model.ground, cart, axis_i=(1.0, 0.0))
    pin = model.add_revolute(cart, rod, (0.0, 0.0), (-length / 2, 0.0))
    lam, V = linearize(model.system(), [rail.slide, pin.angle]).modes()
    assert np.sum(np.abs(lam) < 1e-6) == 2                     # the drift: a double zero
    for k in np.flatnonzero(np.abs(lam) > 1e-6):               # the swing, ±iω
        assert (V[0, k] / V[1, k]).real == pytest.approx(-mass * length / 2 / (cart_mass + mass),
                                                         abs=1e-12)
        assert abs(np.max(np.abs(V[:, k])) - 1.0) < 1e-14       # scaled to a largest entry of 1


def test_a_systems_jacobian_repeated_at_one_state_is_that_states():
    """A system's Φ_q answers a call at the (q, t) of the call before from it (contact schemes ask up to
    three times per right-hand side): at any sequence of states and times it equals the model's own, and a
    caller that changes the returned matrix does not change the next answer."""
    model = mechanism("slider_crank", coordinates="cartesian", gravity=(0.0, -G))
    system = model.system()
    rng = np.random.default_rng(8)
    qs = [system.q0 + rng.normal(0.0, 0.3, system.n) for _ in range(3)]
    for k, t in [(0, 0.0), (0, 0.0), (1, 0.0), (1, 0.5), (0, 0.5), (2, 0.5), (2, 0.5)]:
        J = system.phi_q(qs[k], t)
        np.testing.assert_array_equal(J, model.phi_q(qs[k], t))
        J[:] = np.nan
    assert np.isfinite(system.phi_q(qs[2], 0.5)).all()


def test_inputs_give_the_exact_input_matrix():
    """A joint torque τ at the hinge of a rod: B = (0, 1 / I_hinge)."""
    L, mass = 0.8, 2.0
    model, pin = pendulum_planar(L, mass)
    model.add_joint_torque(pin, 0.0, name="motor")
    lin = linearize(model.system(), [pin.angle], inputs=["motor"])
    np.testing.assert_allclose(lin.B, [[0.0], [1.0 / (mass * L**2 / 3)]], rtol=1e-12, atol=1e-14)
    with pytest.raises(ModelError, match=r"'brake' is not an input of the system; its inputs are \['motor"):
        linearize(model.system(), [pin.angle], inputs=["brake"])


def test_chaplygin_sleigh_steady_motion_linearized_in_closed_form():
    """A knife edge a distance c behind the centre of mass, moving straight at speed v: the yaw rate decays
    at −m c v / (I + m c²) (from m v̇ = m c ω², (I + m c²) ω̇ = −m c v ω), the heading and speed stay."""
    mass, inertia, c, v = 2.0, 0.15, 0.3, 1.5
    model = PlanarModel(gravity=(0.0, 0.0))
    sled = model.add_body("sled", mass, inertia, velocity=(v, 0.0))
    model.add_knife_edge(sled, point=(-c, 0.0), axis=(1.0, 0.0))
    system = model.system()
    heading = model.coordinate(sled, "phi")
    lin = linearize(system, [heading], speeds=[model.coordinate(sled, "x"), heading])
    rate = -mass * c * v / (inertia + mass * c**2)
    np.testing.assert_allclose(np.sort(lin.eigenvalues.real), np.sort([rate, 0.0, 0.0]), atol=1e-8)
    np.testing.assert_allclose(lin.eigenvalues.imag, 0.0, atol=1e-8)
    assert lin.is_equilibrium and lin.stable()
    qdd = accelerations(system, 0.0, system.q0, system.qd0)[0]
    np.testing.assert_allclose(qdd, 0.0, atol=1e-12)          # steady: nothing accelerates


def test_a_body_changed_in_place_after_assembly_is_seen():
    """Changing a body's initial pose or velocity after the model assembled (dof_report, q0) is not
    ignored: the kept assembly is made again from the new guesses, without a warning."""
    import warnings

    from mbdlib import SpatialModel

    model = SpatialModel(gravity=(0.0, 0.0, -G))
    body = model.add_body("b", inertia=[1.0, 1.0, 1.0])
    model.dof_report()
    body.velocity = np.array([1.0, 0.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(model.system().qd0[:3], [1.0, 0.0, 0.0])
    planar, pin = pendulum_planar()
    before = planar.q0.copy()
    planar.bodies[0].angle = -np.pi / 2 + 0.3                    # a guess 0.3 rad away: assembled again
    assert abs(pin.angle(planar.q0) - pin.angle(before)) > 0.1
    assert np.abs(planar.phi(planar.q0)).max() < 1e-10
