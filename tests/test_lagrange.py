"""Tests of mbdlib.lagrange: M, C (Christoffel), G from T and V.

Independent checks: the hand-derived double pendulum (Spong, Hutchinson &
Vidyasagar 2006, §7.4.1); Lagrange (evaluated) = RNEA on random spatial chains;
Ṁ − 2C skew (symbolic for two links, at random points for three and four) and
the check failing for a wrong C; the residual d/dt(∂L/∂q̇) − ∂L/∂q built
directly with sympy from T and V.
"""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dynamics import assert_close, chains, gravities, states

from mbdlib.chain import Chain
from mbdlib.errors import ModelError, ShapeError
from mbdlib.lagrange import check_skew, lagrange_equations
from mbdlib.newton_euler import rnea


@pytest.fixture(scope="module")
def double_pendulum():
    L1, L2, m1, m2, g = sp.symbols("L1 L2 m1 m2 g", positive=True)
    eq = lagrange_equations(Chain.planar([L1, L2], masses=[m1, m2]), gravity=(0, -g, 0))
    return eq, (L1, L2, m1, m2, g)


def test_double_pendulum_by_hand(double_pendulum):
    eq, (L1, L2, m1, m2, g) = double_pendulum
    q1, q2 = eq.q
    u1, u2 = eq.qd
    lc1, lc2, I1, I2 = L1 / 2, L2 / 2, m1 * L1**2 / 12, m2 * L2**2 / 12
    M12 = m2 * (lc2**2 + L1 * lc2 * sp.cos(q2)) + I2
    M = sp.Matrix([[m1 * lc1**2 + m2 * (L1**2 + lc2**2 + 2 * L1 * lc2 * sp.cos(q2)) + I1 + I2, M12],
                   [M12, m2 * lc2**2 + I2]])
    hh = -m2 * L1 * lc2 * sp.sin(q2)
    C = sp.Matrix([[hh * u2, hh * (u1 + u2)], [-hh * u1, 0]])           # Spong et al. eq. 7.87
    G = sp.Matrix([(m1 * lc1 + m2 * L1) * g * sp.cos(q1) + m2 * lc2 * g * sp.cos(q1 + q2),
                   m2 * lc2 * g * sp.cos(q1 + q2)])
    for got, expected in ((eq.M, M), (eq.C, C), (eq.G, G)):
        assert sp.simplify(got - expected) == sp.zeros(*expected.shape)
    assert sp.simplify(eq.V - g * ((m1 * lc1 + m2 * L1) * sp.sin(q1) + m2 * lc2 * sp.sin(q1 + q2))) == 0


def test_skew_symmetry_symbolic_two_links(double_pendulum):
    eq, _ = double_pendulum
    assert check_skew(eq.M, eq.C, eq.q, eq.qd)
    # the check can fail: adding a non-skew term to C breaks the property
    wrong = eq.C + sp.Matrix([[0, eq.qd[0]], [0, 0]])
    assert not check_skew(eq.M, wrong, eq.q, eq.qd)
    assert not check_skew(eq.M, wrong, eq.q, eq.qd, points=3)


def test_skew_symmetry_numeric_spatial_arm():
    eq = lagrange_equations(Chain.spatial_arm_example(), gravity=(0, 0, -9.81))            # 4 links, R R R P
    assert check_skew(eq.M, eq.C, eq.q, eq.qd, points=4)
    assert not check_skew(eq.M, 2 * eq.C, eq.q, eq.qd, points=4)   # (Cᵀ would pass: Ṁ = C + Cᵀ)


@settings(max_examples=4, deadline=None)
@given(chain=chains(max_links=3), g=gravities, data=st.data())
def test_lagrange_evaluated_equals_rnea(chain, g, data):
    eq = lagrange_equations(chain, gravity=tuple(g))
    M, C, G = eq.numeric()
    for q, qd, qdd in (data.draw(states(chain.n)) for _ in range(3)):
        assert_close(M(q) @ qdd + C(q, qd) @ qd + G(q), rnea(chain, q, qd, qdd, g))
    if chain.n == 3:
        assert check_skew(eq.M, eq.C, eq.q, eq.qd, points=2)


def test_equations_match_euler_lagrange_operator():
    # build d/dt(∂L/∂q̇) − ∂L/∂q directly with sympy functions of time, from the returned T and V
    chain = Chain(links=Chain.spatial_arm_example().links[:3], name="3-link spatial arm")
    eq = lagrange_equations(chain, gravity=(0, 0, -9.81))
    t = sp.Symbol("t")
    qt = [sp.Function(f"x{i}")(t) for i in range(3)]
    to_t = {**dict(zip(eq.q, qt, strict=True)), **dict(zip(eq.qd, [x.diff(t) for x in qt], strict=True))}
    Lt = (eq.T - eq.V).subs(to_t, simultaneous=True)
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.uniform(-2, 2, (3, 3))
    at = {}
    for i, x in enumerate(qt):
        at.update({x.diff(t, 2): qdd[i], x.diff(t): qd[i]})
    at_q = {x: q[i] for i, x in enumerate(qt)}
    for k in range(3):
        el = sp.diff(sp.diff(Lt, qt[k].diff(t)), t) - sp.diff(Lt, qt[k])
        value = float(el.subs(at).subs(at_q))
        assert value == pytest.approx(rnea(chain, q, qd, qdd, gravity=(0, 0, -9.81))[k], rel=1e-10, abs=1e-10)


def test_residual_and_numeric_parameters(double_pendulum):
    eq, (L1, L2, m1, m2, g) = double_pendulum
    assert eq.eom.shape == (2, 1) and set(eq.Q) <= eq.eom.free_symbols
    values = {L1: 1.0, L2: 0.5, m1: 2.0, m2: 1.0, g: 9.81}
    M, C, G = eq.numeric(params=values)
    q, qd, qdd = np.array([0.3, -0.4]), np.array([1.0, 2.0]), np.array([-0.5, 0.7])
    chain = Chain.planar([1.0, 0.5], masses=[2.0, 1.0])
    assert_close(M(q) @ qdd + C(q, qd) @ qd + G(q), rnea(chain, q, qd, qdd, (0, -9.81, 0)))
    with pytest.raises(ModelError, match=r"still contains \['L1', 'L2', 'm1', 'm2'\]"):
        eq.numeric()
    with pytest.raises(ShapeError, match="argument 0"):
        M([0.1])


def test_simplify_flag_and_errors():
    eq = lagrange_equations(Chain.planar([1, 1]), gravity=(0, -sp.Symbol("g"), 0), simplify=True)
    q2 = eq.q[1]
    assert sp.count_ops(eq.M[0, 1]) <= 4                     # a tidy formula: a + b cos(q2)
    assert float((eq.M[0, 1] - (sp.Rational(1, 3) + sp.cos(q2) / 2)).subs(q2, 0.7)) == pytest.approx(0)
    with pytest.raises(ShapeError, match="gravity must be a 3-vector"):
        lagrange_equations(Chain.planar([1.0]), gravity=(0, 1))
    with pytest.raises(ModelError, match="must be 2x2"):
        check_skew(eq.M, sp.zeros(3, 3), eq.q, eq.qd)
