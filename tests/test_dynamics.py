"""Tests of mbdlib.dynamics: mass matrix, bias forces, forward dynamics, energy, the chain as a model.

Independent checks: the CRBA mass matrix against unit-acceleration columns of
the RNEA and against the kinetic energy ½ q̇ᵀ M q̇ (computed from velocities);
a prismatic-revolute (polar) arm in closed form; forward∘inverse round trips;
power balance d(T+V)/dt = τ·q̇ by finite differences; energy conservation of a
torque-free simulation.

The random-chain strategies here are shared by the other dynamics tests.
"""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from mbdlib.bodies import RigidBody
from mbdlib.chain import Chain, Joint
from mbdlib.dae import simulate
from mbdlib.dynamics import (
    ChainModel,
    bias_forces,
    energy,
    forward_dynamics,
    inverse_dynamics_from_mass_matrix,
    mass_matrix,
)
from mbdlib.errors import ModelError, ShapeError, SingularityError
from mbdlib.kane import kane_inverse_dynamics
from mbdlib.newton_euler import rnea
from mbdlib.schemes import ODE

unit = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)
vec3 = st.tuples(unit, unit, unit)
directions = vec3.filter(lambda v: np.linalg.norm(v) > 0.2)


# ------------------------------------------------------------------ shared strategies and helpers
@st.composite
def inertias(draw):
    """A valid central inertia: I = P diag(b + c, a + c, a + b) Pᵀ from second moments a, b, c > 0.

    With a = ∫x² dm etc. in principal axes, the triangle inequalities hold for every draw.
    """
    a, b, c = (draw(st.floats(0.01, 1.0)) for _ in range(3))
    P = Rotation.from_rotvec(np.array(draw(vec3)) * 3).as_matrix()
    return P @ np.diag([b + c, a + c, a + b]) @ P.T


@st.composite
def chains(draw, min_links=1, max_links=5, trees=True):
    """Random spatial chains (trees) mixing revolute and prismatic joints, random bodies."""
    n = draw(st.integers(min_links, max_links))
    chain = Chain(name="random")
    for i in range(n):
        rotation = Rotation.from_rotvec(np.array(draw(vec3)) * 3).as_matrix()
        kind = draw(st.sampled_from(["revolute", "prismatic"]))
        joint = Joint(f"j{i}", kind, draw(directions), draw(vec3), rotation)
        body = RigidBody(draw(st.floats(0.1, 5.0)), com=draw(vec3), inertia=draw(inertias()), name=f"b{i}")
        parent = draw(st.integers(-1, i - 1)) if trees else i - 1
        chain.add_link(f"L{i}", joint, body, parent)
    return chain


def states(n, count=3):
    """count vectors of length n (q, q̇, q̈, τ, ...) with entries in [-2, 2]."""
    return st.tuples(*[st.lists(st.floats(-2.0, 2.0), min_size=n, max_size=n).map(np.array)
                       for _ in range(count)])


gravities = st.tuples(*[st.floats(-10.0, 10.0)] * 3).map(np.array)


def assert_close(actual, expected, rtol=1e-10):
    """Agreement relative to the size of the expected values (absolute near zero)."""
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    scale = max(1.0, float(np.max(np.abs(expected))))
    np.testing.assert_allclose(actual, expected, rtol=0, atol=rtol * scale)


def polar_arm(m1=2.0, a=0.3, I1=0.05, m2=1.5, I2=0.02):
    """Revolute joint about z, then a slider along the arm (x of frame 1): a polar (r, θ) arm."""
    chain = Chain(name="polar arm")
    chain.add_link("arm", Joint("theta", "revolute", (0, 0, 1)),
                   RigidBody(m1, com=(a, 0, 0), inertia=[I1, I1, I1], name="arm"))
    chain.add_link("slider", Joint("r", "prismatic", (1, 0, 0)),
                   RigidBody(m2, com=(0, 0, 0), inertia=[I2, I2, I2], name="slider"))
    return chain


# ------------------------------------------------------------------ closed form: polar arm
@settings(max_examples=25, deadline=None)
@given(s=states(2), g=st.floats(0.0, 10.0))
def test_polar_arm_closed_form(s, g):
    # Hand derivation (gravity −g ŷ, motion in the x-y plane), T = ½ (J + m2 r²) θ̇² + ½ m2 ṙ²,
    # J = I1 + m1 a² + I2, V = (m1 a + m2 r) g sin θ:
    #   τ_θ = (J + m2 r²) θ̈ + 2 m2 r ṙ θ̇ + (m1 a + m2 r) g cos θ
    #   f_r = m2 r̈ − m2 r θ̇² + m2 g sin θ
    m1, a, I1, m2, I2 = 2.0, 0.3, 0.05, 1.5, 0.02
    (th, r), (thd, rd), (thdd, rdd) = s
    J = I1 + m1 * a**2 + I2
    expected = [(J + m2 * r**2) * thdd + 2 * m2 * r * rd * thd + (m1 * a + m2 * r) * g * np.cos(th),
                m2 * rdd - m2 * r * thd**2 + m2 * g * np.sin(th)]
    arm, gravity = polar_arm(), (0, -g, 0)
    q, qd, qdd = (np.array(x) for x in ((th, r), (thd, rd), (thdd, rdd)))
    assert_close(rnea(arm, q, qd, qdd, gravity), expected)
    assert_close(kane_inverse_dynamics(arm, q, qd, qdd, gravity), expected)
    assert_close(inverse_dynamics_from_mass_matrix(arm, q, qd, qdd, gravity), expected)
    assert_close(mass_matrix(arm, q), np.diag([J + m2 * r**2, m2]))
    assert_close(forward_dynamics(arm, q, qd, expected, gravity), qdd, rtol=1e-9)


# ------------------------------------------------------------------ mass matrix
@settings(max_examples=40, deadline=None)
@given(chain=chains(), data=st.data())
def test_crba_equals_unit_acceleration_columns(chain, data):
    # column j of M is the RNEA torque for q̈ = e_j with q̇ = 0 and no gravity (an independent path)
    (q,) = data.draw(states(chain.n, 1))
    columns = [rnea(chain, q, np.zeros(chain.n), e, gravity=(0, 0, 0)) for e in np.eye(chain.n)]
    assert_close(mass_matrix(chain, q), np.column_stack(columns))


@settings(max_examples=40, deadline=None)
@given(chain=chains(), data=st.data())
def test_mass_matrix_symmetric_positive_definite_and_kinetic_energy(chain, data):
    q, qd = data.draw(states(chain.n, 2))
    M = mass_matrix(chain, q)
    np.testing.assert_array_equal(M, M.T)
    assert np.linalg.eigvalsh(M).min() > 0
    T, _ = energy(chain, q, qd, gravity=(0, 0, -9.81))        # from the link velocities, not from M
    assert_close(0.5 * qd @ M @ qd, T)


def test_symbolic_mass_matrix_of_double_pendulum():
    L1, L2, m1, m2, q2 = sp.symbols("L1 L2 m1 m2 q2", positive=True)
    M = mass_matrix(Chain.planar([L1, L2], masses=[m1, m2]), [0, q2])
    # textbook (Spong, Hutchinson & Vidyasagar 2006, §7.4.1), uniform rods: lc = L/2, I = m L²/12
    M12 = m2 * (L2**2 / 4 + L1 * L2 / 2 * sp.cos(q2)) + m2 * L2**2 / 12
    M11 = m1 * L1**2 / 3 + m2 * (L1**2 + L2**2 / 4 + L1 * L2 * sp.cos(q2)) + m2 * L2**2 / 12
    expected = sp.Matrix([[M11, M12], [M12, m2 * L2**2 / 3]])
    assert sp.simplify(M - expected) == sp.zeros(2, 2)


# ------------------------------------------------------------------ forward / inverse dynamics
@settings(max_examples=40, deadline=None)
@given(chain=chains(), g=gravities, data=st.data())
def test_forward_inverse_round_trip(chain, g, data):
    q, qd, qdd = data.draw(states(chain.n))
    f_ext = {chain.n - 1: (np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.0, -0.2]))}
    tau = rnea(chain, q, qd, qdd, g, f_ext)
    assert_close(forward_dynamics(chain, q, qd, tau, g, f_ext), qdd, rtol=1e-8)
    assert_close(inverse_dynamics_from_mass_matrix(chain, q, qd, qdd, g, f_ext), tau)
    assert_close(bias_forces(chain, q, qd, g, f_ext), rnea(chain, q, qd, np.zeros(chain.n), g, f_ext))


@settings(max_examples=30, deadline=None)
@given(chain=chains(), g=gravities, data=st.data())
def test_power_balance(chain, g, data):
    # d(T + V)/dt = τ·q̇ along the motion q̈ = FD(q, q̇, τ): central difference of
    # s -> E(q + s q̇, q̇ + s q̈), whose derivative at s = 0 is exactly dE/dt.
    q, qd, tau = data.draw(states(chain.n))
    qdd = forward_dynamics(chain, q, qd, tau, g)
    h = 1e-5

    def E(s):
        return sum(energy(chain, q + s * qd, qd + s * qdd, g))

    dEdt = (E(h) - E(-h)) / (2 * h)
    scale = 1 + np.abs(tau) @ np.abs(qd) + abs(E(0))
    assert abs(dEdt - tau @ qd) < 1e-6 * scale


def test_energy_of_a_pendulum_closed_form():
    # rod of mass m, length L, at angle θ below... in the x-y plane with g along −y
    m, L, th, w = 2.0, 1.5, 0.7, -1.3
    T, V = energy(Chain.planar([L], masses=[m]), [th], [w], gravity=(0, -9.81, 0))
    assert T == pytest.approx(0.5 * m * L**2 / 3 * w**2)
    assert V == pytest.approx(m * 9.81 * L / 2 * np.sin(th))


@pytest.mark.slow
def test_torque_free_simulation_conserves_energy():
    arm = Chain.spatial_arm_example()
    chain = Chain(name="3-link spatial")
    for link in arm.links[:3]:
        chain.add_link(link.name, link.joint, link.body, link.parent)
    system = ChainModel(chain, gravity=(0, 0, -9.81), q0=[0.2, 0.8, -0.5], qd0=[1.0, -0.5, 2.0]).system()
    sim = simulate(system, 1.0, ODE(rtol=1e-11, atol=1e-11), t_eval=np.linspace(0, 1.0, 11))
    E = sim.energy
    T = np.array([energy(chain, q, qd, (0, 0, -9.81))[0] for q, qd in zip(sim.q, sim.qd, strict=True)])
    assert sim.q.shape == (11, 3) and sim.coordinate_names == tuple(chain.joint_names)
    assert np.max(np.abs(E - E[0])) < 1e-8 * (np.max(T) + abs(E[0]))
    assert np.ptp(T) > 1.0                                  # energy did flow between T and V


def test_chain_model_torque_forms_agree_and_bad_torques_are_named():
    arm = Chain.planar([1.0, 0.5])
    tau0 = np.array([0.5, -0.2])
    g = (0, -9.81, 0)

    def run(tau):
        system = ChainModel(arm, gravity=g, tau=tau, q0=[0.1, 0.2]).system()
        return simulate(system, 0.2, ODE(rtol=1e-8, atol=1e-8), t_eval=[0.2])

    a, b, c = run(tau0), run(lambda t, q, qd: tau0), run(None)
    np.testing.assert_allclose(a.q, b.q, rtol=1e-12)
    assert not np.allclose(a.q, c.q)
    with pytest.raises(ShapeError, match=r"tau\(t, q, qd\) must have shape \(2,\)"):
        run(lambda t, q, qd: [1.0])
    with pytest.raises(ShapeError, match=r"tau\[1\] is inf"):
        ChainModel(arm, gravity=g, tau=[0.0, np.inf])


def test_chain_model_equals_forward_dynamics_and_names_its_inputs():
    """The system's KKT solve (no constraints: M q̈ = Q) gives forward_dynamics; each joint is an input."""
    arm = Chain.planar([1.0, 0.5])
    g, tau = (0, -9.81, 0), np.array([0.3, -0.1])
    system = ChainModel(arm, gravity=g, tau=tau).system()
    from mbdlib.dae import accelerations
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, qd = rng.uniform(-2, 2, (2, 2))
        assert_close(accelerations(system, 0.0, q, qd)[0], forward_dynamics(arm, q, qd, tau, gravity=g))
    assert list(system.inputs) == arm.joint_names
    assert system.m == system.k == 0


# ------------------------------------------------------------------ errors
def test_forward_dynamics_singular_mass_matrix_names_chain():
    chain = Chain(name="ghost arm")
    chain.add_link("ghost", Joint("j1", "revolute", (0, 0, 1)), RigidBody(0.0, name="ghost"))
    with pytest.raises(SingularityError, match="chain 'ghost arm' is not positive definite"):
        forward_dynamics(chain, [0.0], [0.0], [1.0], gravity=(0, 0, -9.81))


def test_bad_inputs():
    arm = Chain.planar([1.0, 1.0])
    with pytest.raises(ShapeError, match=r"tau must have shape \(2,\) for chain 'planar arm'"):
        forward_dynamics(arm, [0, 0], [0, 0], [1, 2, 3], gravity=(0, 0, -9.81))
    with pytest.raises(ShapeError, match="q must have 2 components"):
        mass_matrix(arm, [0.0])
    with pytest.raises(ShapeError, match="gravity must be a 3-vector"):
        forward_dynamics(arm, [0, 0], [0, 0], [0, 0], gravity=(0, -9.81))
    with pytest.raises(ModelError, match="has no link 'hand'"):
        bias_forces(arm, [0, 0], [0, 0], f_ext={"hand": ((0, 0, 1), (0, 0, 0))}, gravity=(0, 0, -9.81))
    with pytest.raises(ModelError, match="forward_dynamics works on numbers"):
        forward_dynamics(arm, sp.symbols("q1 q2"), [0, 0], [0, 0], gravity=(0, 0, -9.81))
