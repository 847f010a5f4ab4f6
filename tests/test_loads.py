"""Loads (mbdlib.loads): resultants, force laws and generalized forces, each against another route.

* ``resultant``: the transfer law M_O' = M_O + (r_O − r_O') × F_R and a couple's torque, for all inputs
  (hypothesis);
* ``spring_damper``: the spring force is minus the gradient of k (ℓ − ℓ0)²/2 (finite differences), and
  the damper's power on its two ends is −c ℓ̇²;
* ``coulomb_friction``: always against the motion, of size μN far from zero speed (hypothesis);
* ``generalized_forces``: equal to minus the torques the RNEA needs to hold the chain against the loads
  (an inward force recursion instead of a projection), their power Qᵀq̇ equal to Σ F·v_C + M·ω from the
  forward kinematics, and for a spring between two links equal to −∂V/∂q (finite differences).
"""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mbdlib import (
    Chain,
    coulomb_friction,
    data_path,
    forward_kinematics,
    generalized_forces,
    load_urdf,
    point_position,
    point_velocity,
    resultant,
    rnea,
    spring_damper,
)
from mbdlib.errors import ModelError, ShapeError, SingularityError

finite = st.floats(-10.0, 10.0, allow_nan=False)
vec3 = st.tuples(finite, finite, finite).map(np.array)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(vec3, vec3), min_size=1, max_size=4), st.lists(vec3, max_size=2), vec3, vec3)
def test_resultant_moves_from_point_to_point_by_the_transfer_law(forces, couples, O, P):
    F_O, M_O = resultant(forces, couples, about=O)
    F_P, M_P = resultant(forces, couples, about=P)
    np.testing.assert_allclose(F_O, sum(F for F, _ in forces), atol=1e-12)
    np.testing.assert_allclose(F_P, F_O, atol=1e-12)
    np.testing.assert_allclose(M_P, M_O + np.cross(O - P, F_O), atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(vec3, vec3, vec3)
def test_a_couple_has_the_same_torque_about_every_point(F, r, O):
    d = np.array([0.3, -0.2, 0.5])
    F_R, M_O = resultant([(F, r), (-F, r + d)], about=O)
    np.testing.assert_allclose(F_R, 0.0, atol=1e-12)
    np.testing.assert_allclose(M_O, np.cross(-d, F) + 0.0, atol=1e-9)    # r × F + (r + d) × (−F)


def test_resultant_on_formulas():
    a, F = sp.symbols("a F")
    F_R, M_O = resultant([((0, F, 0), (a, 0, 0))], couples=[(0, 0, 1)])
    assert F_R == sp.Matrix([0, F, 0]) and sp.simplify(M_O - sp.Matrix([0, 0, a * F + 1])) == sp.zeros(3, 1)


def test_spring_force_is_minus_the_gradient_of_its_energy():
    rng = np.random.default_rng(0)
    k, l0, h = 250.0, 0.4, 1e-6
    for _ in range(5):
        r_i, r_j = rng.normal(size=(2, 3))
        V = lambda rj, ri=r_i: 0.5 * k * (np.linalg.norm(rj - ri) - l0) ** 2        # noqa: E731
        grad = np.array([(V(r_j + h * e) - V(r_j - h * e)) / (2 * h) for e in np.eye(3)])
        np.testing.assert_allclose(spring_damper(r_i, r_j, stiffness=k, rest_length=l0), -grad, atol=1e-6)


def test_damper_dissipates_c_times_the_rate_squared():
    rng = np.random.default_rng(1)
    c = 12.0
    for _ in range(5):
        r_i, r_j, v_i, v_j = rng.normal(size=(4, 2))
        F_j = spring_damper(r_i, r_j, v_i, v_j, damping=c)
        rate = (r_j - r_i) @ (v_j - v_i) / np.linalg.norm(r_j - r_i)
        np.testing.assert_allclose(F_j @ v_j + (-F_j) @ v_i, -c * rate**2, rtol=1e-12)


def test_spring_damper_errors():
    with pytest.raises(SingularityError, match="coincide"):
        spring_damper((1, 2, 3), (1, 2, 3), stiffness=1.0)
    with pytest.raises(ModelError, match="stiffness"):
        spring_damper((0, 0), (1, 0), stiffness=-1.0)
    with pytest.raises(ShapeError, match="velocities"):
        spring_damper((0, 0), (1, 0), damping=2.0)
    with pytest.raises(ShapeError, match="same size"):
        spring_damper((0, 0), (1, 0, 0), stiffness=1.0)
    with pytest.raises(ShapeError, match="r_j"):
        spring_damper((0, 0), "far", stiffness=1.0)


@settings(max_examples=60, deadline=None)
@given(vec3, st.one_of(st.just(0.0), st.floats(1e-6, 100.0)), st.one_of(st.just(0.0), st.floats(1e-6, 1.5)))
def test_friction_opposes_the_motion_and_has_the_size_mu_n_when_sliding(v, N, mu):
    F = coulomb_friction(v, N, mu, v_slip=1e-3)
    assert F @ v <= 1e-12                                      # it never drives the motion
    speed = np.linalg.norm(v)
    assert np.linalg.norm(F) <= mu * N * (1 + 1e-12)
    if speed > 0.02:                                          # far above v_slip: Coulomb's law itself
        np.testing.assert_allclose(np.linalg.norm(F), mu * N, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.cross(F, v), 0.0, atol=1e-9 * (1 + mu * N * speed))


def test_friction_scalar_odd_and_zero_at_rest():
    assert coulomb_friction(0.0, 10.0, 0.5) == 0.0
    assert coulomb_friction(-2.0, 10.0, 0.5) == pytest.approx(5.0)
    assert coulomb_friction(1e-4, 10.0, 0.5, v_slip=1e-3) == pytest.approx(-5.0 * np.tanh(0.1))


def test_friction_errors():
    with pytest.raises(ModelError, match="normal_force"):
        coulomb_friction(1.0, -3.0, 0.5)
    with pytest.raises(ModelError, match="v_slip"):
        coulomb_friction(1.0, 3.0, 0.5, v_slip=0.0)
    with pytest.raises(ModelError, match="mu"):
        coulomb_friction(1.0, 3.0, -0.5)
    with pytest.raises(ShapeError):
        coulomb_friction("fast", 3.0, 0.5)
    with pytest.raises(ShapeError):
        coulomb_friction(np.nan, 3.0, 0.5)


@pytest.mark.parametrize("seed", range(3))
def test_generalized_forces_equal_minus_the_rnea_holding_torques_and_give_the_power(seed):
    rng = np.random.default_rng(seed)
    ur5 = load_urdf(data_path("ur5.urdf"))
    q, qd = rng.uniform(-2.0, 2.0, (2, ur5.n))
    f_ext = {i: (rng.normal(size=3), rng.normal(size=3)) for i in (1, 3, 5)}
    Q = generalized_forces(ur5, q, f_ext)
    zero = np.zeros(ur5.n)
    np.testing.assert_allclose(Q, -rnea(ur5, q, zero, zero, gravity=(0, 0, 0), f_ext=f_ext), atol=1e-10)
    fk = forward_kinematics(ur5, q, qd)
    power = sum(F @ fk.v_c_global(i) + M @ fk.omega_global(i) for i, (F, M) in f_ext.items())
    np.testing.assert_allclose(Q @ qd, power, atol=1e-10)


def test_a_spring_between_two_links_gives_minus_the_gradient_of_its_energy():
    """A spring from a point of link 1 to a point of link 3 of a planar arm: each end's force reduced to
    its link's centre of mass with resultant(), projected by generalized_forces(), is −∂V/∂q."""
    arm = Chain.planar([1.0, 0.8, 0.6])
    k, l0, h = 40.0, 0.3, 1e-6
    s1, s3 = (0.4, 0.1, 0.0), (0.5, -0.05, 0.0)

    def ends(q):
        return point_position(arm, q, 0, s1), point_position(arm, q, 2, s3)

    def V(q):
        a, b = ends(q)
        return 0.5 * k * (np.linalg.norm(b - a) - l0) ** 2

    q = np.array([0.4, -0.9, 1.3])
    a, b = ends(q)
    F_b = spring_damper(a, b, stiffness=k, rest_length=l0)
    fk = forward_kinematics(arm, q)
    f_ext = {0: resultant([(-F_b, a)], about=fk.r_c(0)), 2: resultant([(F_b, b)], about=fk.r_c(2))}
    Q = generalized_forces(arm, q, f_ext)
    grad = np.array([(V(q + h * e) - V(q - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(Q, -grad, atol=1e-6)
    # with velocities: the damper's power through the generalized forces is −c ℓ̇²
    qd, c = np.array([0.5, -0.2, 0.9]), 3.0
    va, vb = point_velocity(arm, q, qd, 0, s1), point_velocity(arm, q, qd, 2, s3)
    F_b = spring_damper(a, b, va, vb, damping=c)
    f_ext = {0: resultant([(-F_b, a)], about=fk.r_c(0)), 2: resultant([(F_b, b)], about=fk.r_c(2))}
    rate = (b - a) @ (vb - va) / np.linalg.norm(b - a)
    np.testing.assert_allclose(generalized_forces(arm, q, f_ext) @ qd, -c * rate**2, rtol=1e-10)


def test_generalized_forces_symbolic():
    th = sp.symbols("theta")
    Q = generalized_forces(Chain.planar([2.0]), [th], {0: ((0, -10, 0), (0, 0, 3))})
    assert sp.simplify(Q[0] - (-10 * sp.cos(th) + 3)) == 0


def test_generalized_forces_errors():
    arm = Chain.planar([1.0, 1.0])
    with pytest.raises(ShapeError, match="f_ext"):
        generalized_forces(arm, [0, 0], [(0, 0, 0)])
    with pytest.raises(ShapeError):
        generalized_forces(arm, [0, 0, 0], {})
    with pytest.raises(ShapeError):
        resultant([((1, 0, 0),)])
