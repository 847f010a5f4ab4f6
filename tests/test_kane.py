"""Tests of mbdlib.kane: the recursive Kane algorithm of Ma, Xu & Li (1988).

Independent checks: the textbook double pendulum (Spong, Hutchinson &
Vidyasagar 2006, §7.4.1) derived by hand, symbolically; Kane = RNEA and
M = CRBA on random chains; the source's observation that the driving moment of
joint n does not enter the equations of the joints before it.
"""

import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_dynamics import assert_close, chains, gravities, states

from mbdlib.chain import Chain
from mbdlib.dynamics import mass_matrix
from mbdlib.errors import ShapeError
from mbdlib.kane import kane_equations, kane_inverse_dynamics
from mbdlib.kinematics import forward_kinematics
from mbdlib.newton_euler import rnea


def test_double_pendulum_equations_by_hand():
    L1, L2, m1, m2, g = sp.symbols("L1 L2 m1 m2 g", positive=True)
    eq = kane_equations(Chain.planar([L1, L2], masses=[m1, m2]), gravity=(0, -g, 0))
    q1, q2 = eq.q
    u1, u2 = eq.qd
    # Spong et al. 2006 §7.4.1 with uniform rods: lc = L/2, I = m L²/12
    lc1, lc2, I1, I2 = L1 / 2, L2 / 2, m1 * L1**2 / 12, m2 * L2**2 / 12
    M12 = m2 * (lc2**2 + L1 * lc2 * sp.cos(q2)) + I2
    M = sp.Matrix([[m1 * lc1**2 + m2 * (L1**2 + lc2**2 + 2 * L1 * lc2 * sp.cos(q2)) + I1 + I2, M12],
                   [M12, m2 * lc2**2 + I2]])
    hh = -m2 * L1 * lc2 * sp.sin(q2)
    h = sp.Matrix([[hh * u2, hh * (u1 + u2)], [-hh * u1, 0]]) @ sp.Matrix([u1, u2])
    G = sp.Matrix([(m1 * lc1 + m2 * L1) * g * sp.cos(q1) + m2 * lc2 * g * sp.cos(q1 + q2),
                   m2 * lc2 * g * sp.cos(q1 + q2)])
    for got, expected in ((eq.M, M), (eq.h, h), (eq.G, G)):
        assert sp.simplify(got - expected) == sp.zeros(*expected.shape)


@settings(max_examples=5, deadline=None)
@given(chain=chains(max_links=3), g=gravities, data=st.data())
def test_symbolic_equations_evaluate_to_rnea(chain, g, data):
    eq = kane_equations(chain, gravity=tuple(g))
    f = sp.lambdify([eq.q, eq.qd, eq.qdd], [eq.M, eq.tau], cse=True)
    for q, qd, qdd in (data.draw(states(chain.n)) for _ in range(2)):
        M, tau = f(q, qd, qdd)
        assert_close(M, mass_matrix(chain, q))
        assert_close(np.ravel(tau), rnea(chain, q, qd, qdd, g))


def test_expand_and_trigsimp_flags_give_the_same_equations():
    tidy = kane_equations(Chain.planar([1.0, 0.5]), expand=True, trigsimp=True, gravity=(0, 0, -9.81))
    raw = kane_equations(Chain.planar([1.0, 0.5]), gravity=(0, 0, -9.81))      # the default: expand=False
    rng = np.random.default_rng(2)
    for _ in range(3):
        x = dict(zip(tidy.q + tidy.qd + tidy.qdd, rng.uniform(-2, 2, 6), strict=True))
        np.testing.assert_allclose(np.array(tidy.tau.subs(x), dtype=float),
                                   np.array(raw.tau.subs(x), dtype=float), rtol=1e-12)
    assert sp.count_ops(tidy.h) < sp.count_ops(raw.h)


def test_h_is_quadratic_in_rates_and_G_does_not_depend_on_them():
    eq = kane_equations(Chain.spatial_arm_example(), gravity=(0, 0, -9.81))
    assert not (eq.G.free_symbols | eq.M.free_symbols) & set(eq.qd + eq.qdd)
    h = sp.lambdify([eq.q, eq.qd], eq.h, cse=True)
    rng = np.random.default_rng(5)
    q, qd = rng.uniform(-2, 2, (2, 4))
    assert_close(h(q, -2.5 * qd), 6.25 * h(q, qd))           # h(q, s q̇) = s² h(q, q̇)


@settings(max_examples=30, deadline=None)
@given(chain=chains(min_links=2, trees=False), g=gravities, T=st.floats(-10, 10), data=st.data())
def test_driving_moment_of_joint_n_does_not_enter_earlier_joints(chain, g, T, data):
    # Ma, Xu & Li (1988): the actuator of joint n acts with +T k_n on link n and −T k_n on
    # link n−1.  Applied as external moments, it changes τ_n by −T and no other τ_j.
    assume(chain.links[-1].joint.kind == "revolute")
    q, qd, qdd = data.draw(states(chain.n))
    n = chain.n - 1
    kin = forward_kinematics(chain, q)
    k_n = kin.A[n] @ chain.links[n].joint.axis                # joint axis n, global components
    pair = {n: (np.zeros(3), T * k_n), n - 1: (np.zeros(3), -T * k_n)}
    free = kane_inverse_dynamics(chain, q, qd, qdd, g)
    driven = kane_inverse_dynamics(chain, q, qd, qdd, g, f_ext=pair)
    assert_close(driven[:n], free[:n])
    assert driven[n] == pytest.approx(free[n] - T, abs=1e-9 * (1 + abs(free[n])))


def test_symbolic_inverse_dynamics_and_errors():
    arm = Chain.planar([1.0, 1.0])
    q1, q2 = sp.symbols("q1 q2")
    tau = kane_inverse_dynamics(arm, [q1, q2], [0, 0], [0, 0], gravity=(0, -10, 0))
    assert sp.simplify(tau[0] - (15 * sp.cos(q1) + 5 * sp.cos(q1 + q2))) == 0   # (0.5 + 1) 10, 0.5·10
    with pytest.raises(ShapeError, match=r"qdd must have 2 components"):
        kane_inverse_dynamics(arm, [0, 0], [0, 0], [0], gravity=(0, 0, -9.81))
    with pytest.raises(ShapeError, match="gravity must be a 3-vector"):
        kane_equations(arm, gravity=(0, 9.81))
