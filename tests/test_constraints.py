"""Tests of mbdlib.constraints: every joint's Φ_q, Φ_t and γ against finite differences along
random trajectories (hypothesis), against an independent sympy derivation (revolute,
translational, distance), and the rank / Newton helpers against numpy and closed forms."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mbdlib.constraints import (
    CoordinateDriver,
    Distance,
    DistanceDriver,
    DofReport,
    Gear,
    KnifeEdge,
    Motion,
    PointOnLine,
    RackPinion,
    RelativeAngleDriver,
    Revolute,
    Rigid,
    Translational,
)
from mbdlib.errors import ModelError, ShapeError
from mbdlib.linalg import nearby_rank, newton_solve, rank_analysis

SETTINGS = settings(max_examples=15, deadline=None)

# a smooth, non-polynomial driver motion with analytic derivatives
WAVE = Motion(lambda t: 0.7 + 0.3 * np.sin(2 * t), lambda t: 0.6 * np.cos(2 * t),
              lambda t: -1.2 * np.sin(2 * t))

JOINTS = {
    "revolute": lambda: Revolute("r", "ab", (0.3, -0.2), (-0.5, 0.1)),
    "translational": lambda: Translational("t", "ab", (0.2, 0.1), (-0.3, 0.4), (0.6, 0.8), angle=0.3),
    "point_on_line": lambda: PointOnLine("p", "ab", (0.2, 0.1), (-0.3, 0.4), (1.0, -2.0)),
    "rigid": lambda: Rigid("w", "ab", (0.4, 0.0), (0.0, 0.2), angle=-0.5),
    "distance": lambda: Distance("d", "ab", (0.1, 0.2), (-0.3, 0.0), length=1.5),
    "gear": lambda: Gear("g", "abc", -0.4, offset=0.1),
    "rack_pinion": lambda: RackPinion("rp", "ab", (0.1, 0.0), (0.2, -0.1), (0.6, 0.8), 0.25, offset=0.3),
    "coordinate_driver": lambda: CoordinateDriver("cd", "a", 2, WAVE),
    "relative_driver": lambda: RelativeAngleDriver("rd", "ab", WAVE),
    "distance_driver": lambda: DistanceDriver("dd", "ab", (0.1, 0.2), (-0.3, 0.0), WAVE),
}

num = st.floats(-2.0, 2.0, allow_nan=False)


def states(n):
    """Random (q, qd, qdd, t) for a joint with n coordinates."""
    vec = st.lists(num, min_size=n, max_size=n).map(np.array)
    return st.tuples(vec, vec, vec, st.floats(0.0, 3.0))


def fd_jacobian(f, q, h=1e-6):
    return np.column_stack([(f(q + h * e) - f(q - h * e)) / (2 * h) for e in np.eye(len(q))])


@pytest.mark.parametrize("kind", sorted(JOINTS))
@SETTINGS
@given(data=st.data())
def test_jacobian_and_phi_t_equal_central_differences(kind, data):
    joint = JOINTS[kind]()
    q, _, _, t = data.draw(states(3 * len(joint.bodies)))
    J = joint.jacobian(q, t)
    assert J.shape == (joint.n_eq, 3 * len(joint.bodies))
    np.testing.assert_allclose(J, fd_jacobian(lambda x: joint.phi(x, t), q), atol=1e-7)
    h = 1e-6
    fd_t = (joint.phi(q, t + h) - joint.phi(q, t - h)) / (2 * h)
    np.testing.assert_allclose(joint.phi_t(q, t), fd_t, atol=1e-7)


@pytest.mark.parametrize("kind", sorted(JOINTS))
@SETTINGS
@given(data=st.data())
def test_gamma_equals_second_difference_along_a_trajectory(kind, data):
    """Along q(τ) = q + qd τ + qdd τ²/2 at time t + τ: Φ̈ = Φ_q q̈ − γ (definition of γ)."""
    joint = JOINTS[kind]()
    q, qd, qdd, t = data.draw(states(3 * len(joint.bodies)))
    h = 1e-4

    def phi_along(tau):
        return joint.phi(q + qd * tau + 0.5 * qdd * tau**2, t + tau)

    phi_dd = (phi_along(h) - 2 * phi_along(0.0) + phi_along(-h)) / h**2
    expected = joint.jacobian(q, t) @ qdd - phi_dd
    np.testing.assert_allclose(joint.gamma(q, qd, t), expected, atol=2e-5 * (1 + np.abs(expected).max()))


@SETTINGS
@given(states(3))
def test_knife_edge_b_gamma_equals_derivative_of_b_qd(state):
    q, qd, qdd, _ = state
    joint = KnifeEdge("k", ["sled"], (0.3, -0.1), (0.6, 0.8))
    h = 1e-5

    def bqd(tau):
        return joint.B(q + qd * tau + 0.5 * qdd * tau**2) @ (qd + qdd * tau)

    d = (bqd(h) - bqd(-h)) / (2 * h)  # d/dt (B q̇) = B q̈ − b_gamma
    np.testing.assert_allclose(joint.B(q) @ qdd - d, joint.b_gamma(q, qd), atol=1e-6)
    # independent geometry: P may move along the blade u = A(φ) v' at any rate, not across it
    c, sn = np.cos(q[2]), np.sin(q[2])
    Aphi = np.array([[c, -sn], [sn, c]])
    u, As = Aphi @ [0.6, 0.8], Aphi @ [0.3, -0.1]
    omega = qdd[2]
    r_dot = 1.7 * u - omega * np.array([-As[1], As[0]])  # ṙ_P = ṙ + ω R A s' = 1.7 u
    assert abs(joint.B(q) @ np.r_[r_dot, omega]) < 1e-12
    np.testing.assert_allclose(joint.B(q) @ np.r_[np.array([-u[1], u[0]]), 0.0], [1.0], atol=1e-12)
    with pytest.raises(ModelError, match="no position equation"):
        joint.phi(q)


# ----------------------------------------------------------------------------- sympy derivation
x1, y1, f1, x2, y2, f2 = sp.symbols("x1 y1 phi1 x2 y2 phi2", real=True)
Q = sp.Matrix([x1, y1, f1, x2, y2, f2])
QD = sp.Matrix(sp.symbols("xd1 yd1 phid1 xd2 yd2 phid2", real=True))


def A(phi):
    return sp.Matrix([[sp.cos(phi), -sp.sin(phi)], [sp.sin(phi), sp.cos(phi)]])


def point(k, s):
    x, y, phi = Q[3 * k: 3 * k + 3]
    return sp.Matrix([x, y]) + A(phi) * sp.Matrix(s)


def derived(phi):
    """Φ_q and γ = −(Φ_q q̇)_q q̇ by sympy differentiation of a hand-written Φ."""
    Jq = phi.jacobian(Q)
    return Jq, -(Jq * QD).jacobian(Q) * QD


SYMPY_CASES = {
    "revolute": (
        # points exact in binary, so the float-valued joint and the rational derivation agree exactly
        lambda: Revolute("r", "ab", (0.5, -0.25), (-0.5, 0.125)),
        lambda: point(0, [sp.S(1) / 2, -sp.S(1) / 4]) - point(1, [-sp.S(1) / 2, sp.S(1) / 8]),
    ),
    "translational": (
        lambda: Translational("t", "ab", (0, 0), (0, 0), (1, 0), angle=0),
        # the normal of body 1's x axis, dotted with the vector between the centres; relative angle
        lambda: sp.Matrix([(A(f1) * sp.Matrix([0, 1])).dot(point(1, [0, 0]) - point(0, [0, 0])), f2 - f1]),
    ),
    "distance": (
        lambda: Distance("d", "ab", (1, 0), (0, 1), length=2.0),
        lambda: sp.Matrix([sum((point(1, [0, 1]) - point(0, [1, 0])).applyfunc(lambda c: c**2)) - 4]),
    ),
}


@pytest.mark.parametrize("kind", sorted(SYMPY_CASES))
def test_symbolic_jacobian_and_gamma_equal_sympy_derivation(kind):
    make, hand = SYMPY_CASES[kind]
    joint, phi = make(), hand()
    Jq, gamma = derived(phi)
    assert sp.simplify(joint.phi(list(Q)) - phi) == sp.zeros(*phi.shape)
    assert sp.simplify(joint.jacobian(list(Q)) - Jq) == sp.zeros(*Jq.shape)
    assert sp.simplify(joint.gamma(list(Q), list(QD)) - gamma) == sp.zeros(*gamma.shape)
    # and the numeric path agrees with the lambdified derivation
    rng = np.random.default_rng(1)
    q, qd = rng.normal(size=6), rng.normal(size=6)
    f = sp.lambdify([list(Q), list(QD)], [Jq, gamma])
    Jn, gn = f(q, qd)
    np.testing.assert_allclose(joint.jacobian(q), np.array(Jn, dtype=float), atol=1e-12)
    np.testing.assert_allclose(joint.gamma(q, qd), np.array(gn, dtype=float).ravel(), atol=1e-12)


def test_revolute_gamma_is_the_centripetal_closed_form():
    """Haug (1989): γ = A_i s'_i φ̇_i² − A_j s'_j φ̇_j² for the revolute joint."""
    j = JOINTS["revolute"]()
    q, qd = np.array([0.1, 0.2, 0.7, -0.3, 0.5, -1.1]), np.array([0.3, -0.2, 1.5, 0.4, 0.1, -0.8])

    def As(phi, s):
        return np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]]) @ s

    expected = As(q[2], j.point_i) * qd[2] ** 2 - As(q[5], j.point_j) * qd[5] ** 2
    np.testing.assert_allclose(j.gamma(q, qd), expected, atol=1e-14)


# ----------------------------------------------------------------------------- rank, Newton
@SETTINGS
@given(st.integers(2, 6), st.integers(0, 3), st.integers(0, 10_000))
def test_rank_analysis_matches_numpy_and_removing_dependent_rows_leaves_full_rank(cols, extra, seed):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(rng.integers(1, cols + 1), cols))
    combos = rng.normal(size=(extra, base.shape[0])) @ base
    J = rng.permutation(np.vstack([base, combos]))
    rank, dependent, groups = rank_analysis(J)
    assert rank == np.linalg.matrix_rank(J)
    assert len(dependent) == J.shape[0] - rank
    keep = [k for k in range(J.shape[0]) if k not in dependent]
    assert np.linalg.matrix_rank(J[keep]) == rank == len(keep)
    for k, g in zip(dependent, groups, strict=True):
        others = [r for r in g if r != k]
        c = np.linalg.lstsq(J[others].T, J[k], rcond=None)[0]
        np.testing.assert_allclose(J[others].T @ c, J[k], atol=1e-8)


def test_rank_analysis_is_scale_invariant_and_handles_empty():
    J = np.array([[1e-6, 0.0], [0.0, 1e6]])
    assert rank_analysis(J)[0] == 2
    assert rank_analysis(np.zeros((0, 3))) == (0, [], [])


def test_newton_solve_circle_line_and_no_solution():
    phi = lambda q: np.array([q @ q - 1.0, q[0] - q[1]])  # noqa: E731
    jac = lambda q: np.array([2 * q, [1.0, -1.0]])  # noqa: E731
    q, it, res, ok = newton_solve(phi, jac, [1.0, 0.2])
    assert ok and res < 1e-10 and it < 10
    np.testing.assert_allclose(q, [np.sqrt(0.5)] * 2, atol=1e-10)
    # the line x = y + 3 misses the unit circle: a least-squares minimum, not a root
    phi2 = lambda q: np.array([q @ q - 1.0, q[0] - q[1] - 3.0])  # noqa: E731
    assert newton_solve(phi2, jac, [1.0, 0.2])[3] is False


def test_nearby_rank_separates_isolated_rank_drop_from_permanent_one():
    # x² − y² = 0 (two crossing lines): rank drops only at the origin
    phi = lambda q: np.array([q[0] ** 2 - q[1] ** 2])  # noqa: E731
    jac = lambda q: np.array([[2 * q[0], -2 * q[1]]])  # noqa: E731
    assert nearby_rank(phi, jac, np.zeros(2))[0] == 1
    # a repeated equation: rank 1 of 2 everywhere
    phi2 = lambda q: np.array([q[0] - 1.0, 2 * q[0] - 2.0])  # noqa: E731
    jac2 = lambda q: np.array([[1.0, 0.0], [2.0, 0.0]])  # noqa: E731
    rank, dep = nearby_rank(phi2, jac2, np.array([1.0, 0.0]))
    assert rank == 1 and len(dep) == 1


def test_dof_report_text_and_html():
    r = DofReport(grubler=0, coordinates=12, constraints=12, rank=11, dof=1, redundant=["revolute F y"],
                  dependent=["revolute F y"], involved=["A", "F"])
    assert "redundant equations:   revolute F y" in str(r)
    assert "<table" in r._repr_html_() and "revolute F y" in r._repr_html_()


# ----------------------------------------------------------------------------- bad input
def test_bad_joint_input_raises_clear_errors():
    with pytest.raises(ShapeError, match="point_i must have 2 components"):
        Revolute("r", "ab", (0, 0, 0), (0, 0))
    with pytest.raises(ShapeError, match="axis_i is the zero vector"):
        PointOnLine("p", "ab", (0, 0), (0, 0), (0, 0))
    with pytest.raises(ModelError, match="length must be a positive number"):
        Distance("d", "ab", (0, 0), (0, 0), length=-1.0)
    with pytest.raises(ModelError, match="ratio must be a non-zero number"):
        Gear("g", "abc", 0.0)
    with pytest.raises(ModelError, match="radius must be a positive number"):
        RackPinion("rp", "ab", (0, 0), (0, 0), (1, 0), 0.0)
    with pytest.raises(ModelError, match="df must be a callable"):
        Motion(np.sin, None, None, name="crank drive")
    with pytest.raises(ShapeError, match=r"q must hold \(x, y, phi\) of its 2 bodies"):
        Revolute("r", "ab", (0, 0), (0, 0)).phi(np.zeros(5))
