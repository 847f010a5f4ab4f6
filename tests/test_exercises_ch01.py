"""Chapter 1 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: scipy.spatial.transform.Rotation (DCMs, quaternions), finite
differences of hand-written positions (velocities, accelerations, partial velocities,
Jacobians), and sympy differentiation of a position (the Coriolis exercise).
"""

import math
import warnings

import numpy as np
import pytest
import sympy as sp
from exercise_helpers import Exploding, assert_hint, assert_never_crashes_never_correct
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

from mbdlib.exercises import evaluate, exercises, get


def verdict(exercise, answer):
    return evaluate(exercise, answer)


def test_chapter_1_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(1)
    assert len(exs) >= 6
    assert [e.id for e in exs] == [f"1.{i}" for i in range(1, len(exs) + 1)]
    for e in exs:
        assert e.points > 0 and len(e.mistakes) >= 2, e.id


# ---------------------------------------------------------------- 1.1
A11 = Rotation.from_euler("ZYX", [30, 20, 10], degrees=True).as_matrix()


def test_1_1_dcm():
    assert verdict("1.1", A11).verdict == "correct"
    assert_hint("1.1", A11.T, "transpose")
    assert_hint("1.1", Rotation.from_euler("XYZ", [10, 20, 30], degrees=True).as_matrix(), "reverse order")
    assert_hint("1.1", Rotation.from_euler("ZYX", [30, 20, 10]).as_matrix(), "degrees")
    assert_hint("1.1", Rotation.from_euler("ZYX", [10, 20, 30], degrees=True).as_matrix(), "swapped")
    off = A11.copy()
    off[2, 1] = -off[2, 1]
    assert_hint("1.1", off, "entry [2, 1] has the wrong sign")


# ---------------------------------------------------------------- 1.2, 1.3
psi, theta, phi = sp.symbols("psi theta phi", real=True)


def test_1_2_rate_matrix_matches_finite_differences_of_the_dcm():
    # omega' = A^T dA/dt (skew), with A(t) from scipy and the angles moving at constant rates
    E = sp.lambdify(
        (psi, theta, phi),
        sp.Matrix(
            [
                [-sp.sin(theta), 0, 1],
                [sp.sin(phi) * sp.cos(theta), sp.cos(phi), 0],
                [sp.cos(phi) * sp.cos(theta), -sp.sin(phi), 0],
            ]
        ),
    )
    rng = np.random.default_rng(0)
    for _ in range(3):
        ang, rates, h = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3), 1e-6
        A = [Rotation.from_euler("ZYX", ang + rates * t).as_matrix() for t in (-h, 0.0, h)]
        W = A[1].T @ (A[2] - A[0]) / (2 * h)
        omega_body = np.array([W[2, 1], W[0, 2], W[1, 0]])
        np.testing.assert_allclose(np.asarray(E(*ang), float) @ rates, omega_body, atol=1e-8)
    # ... and that hand-written matrix is what the check accepts, in any equivalent form
    E_body = sp.Matrix(
        [
            [-sp.sin(theta), 0, 1],
            [sp.sin(phi) * sp.cos(theta), sp.cos(phi), 0],
            [sp.cos(phi) * sp.cos(theta), -sp.sin(phi), 0],
        ]
    )
    assert verdict("1.2", E_body).verdict == "correct"
    same_but_longer = E_body.applyfunc(lambda f: sp.expand(f * (sp.sin(psi) ** 2 + sp.cos(psi) ** 2)))
    assert verdict("1.2", same_but_longer).verdict == "correct"


def test_1_2_mistakes():
    E_global = sp.Matrix(
        [
            [0, -sp.sin(psi), sp.cos(psi) * sp.cos(theta)],
            [0, sp.cos(psi), sp.sin(psi) * sp.cos(theta)],
            [1, 0, -sp.sin(theta)],
        ]
    )
    E_body = sp.Matrix(
        [
            [-sp.sin(theta), 0, 1],
            [sp.sin(phi) * sp.cos(theta), sp.cos(phi), 0],
            [sp.cos(phi) * sp.cos(theta), -sp.sin(phi), 0],
        ]
    )
    assert_hint("1.2", E_global, "GLOBAL")
    assert_hint("1.2", E_body[:, ::-1], "reverse order")
    assert_hint("1.2", E_body.T, "transposed")
    assert_hint("1.2", np.eye(3), "formula in")
    wrong = E_body.copy()
    wrong[0, 0] = sp.sin(theta)
    assert_hint("1.2", wrong, "entry [0, 0]", "at ")


def test_1_3_gimbal_lock():
    with warnings.catch_warnings(record=True) as caught:  # scipy agrees where ZYX locks
        warnings.simplefilter("always")
        Rotation.from_euler("ZYX", [0.3, np.pi / 2, 0.2]).as_euler("ZYX")
    assert any("Gimbal lock" in str(w.message) for w in caught)
    assert verdict("1.3", np.pi / 2).verdict == "correct"
    assert verdict("1.3", sp.pi / 2).verdict == "correct"
    assert verdict("1.3", 1.5708).verdict == "correct"
    assert_hint("1.3", 90, "radians")
    assert_hint("1.3", 0, "PROPER")
    assert_hint("1.3", 1.2, "too small")


# ---------------------------------------------------------------- 1.4
ROT14 = Rotation.from_euler("ZXY", [0.7, -0.4, 1.1])  # = rot_z(0.7) @ rot_x(-0.4) @ rot_y(1.1)


def test_1_4_quaternion_sign_is_free():
    e = ROT14.as_quat(scalar_first=True)
    assert verdict("1.4", e).verdict == "correct"
    assert verdict("1.4", -e).verdict == "correct"


def test_1_4_mistakes():
    e = ROT14.as_quat(scalar_first=True)
    assert_hint("1.4", ROT14.as_quat(), "FIRST")  # scipy's default is scalar last
    assert_hint("1.4", -ROT14.as_quat(), "FIRST")
    assert_hint("1.4", ROT14.inv().as_quat(scalar_first=True), "inverse")
    assert_hint("1.4", 3 * e, "normalised")
    v = ROT14.as_rotvec()
    angle = np.linalg.norm(v)
    assert_hint("1.4", np.concatenate([[np.cos(angle)], np.sin(angle) * v / angle]), "HALF")
    assert_hint("1.4", e[:3], "shape (3,)")


# ---------------------------------------------------------------- 1.5, 1.6
A15 = Rotation.from_euler("ZYX", [40, -15, 25], degrees=True).as_matrix()
V_I, A_I = np.array([0.3, 0.0, -0.1]), np.array([0.0, 0.2, -0.4])
W0, ALPHA = np.array([0.5, -1.0, 2.0]), np.array([0.1, 0.3, -0.5])
S_BODY = np.array([0.4, 0.1, -0.2])


def _point_path(t):
    """r_P(t) - r_P(0): the body turns with omega(t) = W0 + ALPHA t (dA/dt = skew(omega) A)."""

    def rhs(time, y):
        w = W0 + ALPHA * time
        W = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        return (W @ y.reshape(3, 3)).ravel()

    A = solve_ivp(rhs, (0.0, t), A15.ravel(), rtol=1e-12, atol=1e-14).y[:, -1].reshape(3, 3) if t else A15
    return V_I * t + A_I * t**2 / 2 + A @ S_BODY


def test_1_5_and_1_6_match_finite_differences():
    h = 1e-3
    r = [_point_path(t) for t in (-h, 0.0, h)]
    v_fd = (r[2] - r[0]) / (2 * h)
    a_fd = (r[2] - 2 * r[1] + r[0]) / h**2
    # the check's expected answers agree with the finite differences to O(h^2)
    np.testing.assert_allclose(get("1.5").key(), v_fd, atol=1e-5)
    np.testing.assert_allclose(get("1.6").key(), a_fd, atol=1e-4)


def test_1_5_mistakes():
    s = A15 @ S_BODY
    assert verdict("1.5", V_I + np.cross(W0, s)).verdict == "correct"
    assert_hint("1.5", V_I + np.cross(W0, S_BODY), "body components")
    assert_hint("1.5", V_I + np.cross(s, W0), "wrong way round")
    assert_hint("1.5", np.cross(W0, s), "reference point")


def test_1_6_mistakes():
    s = A15 @ S_BODY
    centripetal = np.cross(W0, np.cross(W0, s))
    assert verdict("1.6", A_I + np.cross(ALPHA, s) + centripetal).verdict == "correct"
    assert_hint("1.6", A_I + np.cross(ALPHA, s), "centripetal", "missing")
    assert_hint("1.6", A_I + np.cross(ALPHA, s) - centripetal, "wrong sign")
    assert_hint("1.6", A_I + np.cross(ALPHA, S_BODY) + np.cross(W0, np.cross(W0, S_BODY)), "body components")
    assert_hint("1.6", A_I + np.cross(s, ALPHA) + centripetal, "tangential")


# ---------------------------------------------------------------- 1.7
L1, L2 = 1.0, 0.8
Q17 = np.radians([30.0, 45.0])


def _c2(q, absolute=False):
    a2 = q[1] if absolute else q[0] + q[1]
    return np.array([L1 * np.cos(q[0]) + L2 / 2 * np.cos(a2), L1 * np.sin(q[0]) + L2 / 2 * np.sin(a2), 0.0])


def _fd_columns(f, q, h=1e-6):
    q = np.asarray(q, float)
    return np.column_stack([(f(q + h * e) - f(q - h * e)) / (2 * h) for e in np.eye(len(q))])


def test_1_7_partial_velocities():
    V = _fd_columns(_c2, Q17)
    assert verdict("1.7", V).verdict == "correct"
    assert_hint("1.7", V[:, ::-1], "swapped")
    assert_hint("1.7", _fd_columns(lambda q: _c2(q, absolute=True), Q17), "RELATIVE")
    local = Rotation.from_euler("z", Q17.sum()).as_matrix().T @ V
    assert_hint("1.7", local, "local")
    no_elbow = V.copy()
    no_elbow[:, 0] = [-L1 * np.sin(Q17[0]), L1 * np.cos(Q17[0]), 0.0]
    assert_hint("1.7", no_elbow, "elbow")
    assert_hint("1.7", V[:2], "shape (2, 2)")


# ---------------------------------------------------------------- 1.8
L3 = np.array([1.0, 0.7, 0.4])


def _tip(q, absolute=False):
    a = np.asarray(q) if absolute else np.cumsum(q)
    return np.array([L3 @ np.cos(a), L3 @ np.sin(a), a[-1] if not absolute else np.sum(q)])


def fd_jacobian(q):
    return _fd_columns(_tip, q)


def test_1_8_function_answers():
    assert verdict("1.8", fd_jacobian).verdict == "correct"
    assert_hint("1.8", lambda q: _fd_columns(lambda x: _tip(x, absolute=True), q), "absolute")
    assert_hint("1.8", lambda q: fd_jacobian(q)[:, ::-1], "reverse order")
    assert_hint("1.8", lambda q: fd_jacobian(q)[:2], "row is missing")
    assert_hint("1.8", lambda q: fd_jacobian(q)[[1, 0, 2]], "swapped")
    # right at q = 0 only: a function that ignores q is caught at the random test inputs
    assert_hint("1.8", lambda q: fd_jacobian(np.zeros(3)), "for input")
    err = evaluate("1.8", lambda q: q[5])
    assert err.verdict == "error" and "IndexError" in err.hint
    assert evaluate("1.8", fd_jacobian(np.zeros(3))).hint.startswith("expected a function")


# ---------------------------------------------------------------- 1.9
def _slider_acceleration():
    """Differentiate r(t) (cos th(t), sin th(t), 0) twice with sympy; th'' = 0."""
    t = sp.Symbol("t")
    r, th = sp.Function("r")(t), sp.Function("theta")(t)
    acc = (r * sp.Matrix([sp.cos(th), sp.sin(th), 0])).diff(t, 2)
    s = sp.symbols("theta r omega rdot rddot", real=True)
    acc = acc.subs({th.diff(t, 2): 0, r.diff(t, 2): s[4]}).subs({th.diff(t): s[2], r.diff(t): s[3]})
    return acc.subs({th: s[0], r: s[1]})


def test_1_9_coriolis():
    theta_, r, omega, rdot, rddot = sp.symbols("theta r omega rdot rddot", real=True)
    a = _slider_acceleration()
    assert verdict("1.9", a).verdict == "correct"
    assert verdict("1.9", sp.simplify(a)).verdict == "correct"
    e_r = sp.Matrix([sp.cos(theta_), sp.sin(theta_), 0])
    e_t = sp.Matrix([-sp.sin(theta_), sp.cos(theta_), 0])
    assert_hint("1.9", (rddot - r * omega**2) * e_r, "Coriolis", "missing")
    assert_hint("1.9", (rddot - r * omega**2) * e_r + omega * rdot * e_t, "2 omega")
    assert_hint("1.9", rddot * e_r + 2 * omega * rdot * e_t, "centripetal")
    t = sp.Symbol("t")
    assert_hint("1.9", a * (1 + 0 * t) + sp.Matrix([t, 0, 0]), "contains t")
    assert_hint("1.9", [1.0, 2.0, 0.0], "formula in")


# ---------------------------------------------------------------- never crash, never accept junk


JUNK = [
    None,
    math.nan,
    [math.nan] * 4,
    "answer",
    42,
    [1, 2],
    np.zeros((3, 3)),
    np.full((3, 3), np.inf),
    {"a": 1},
    Exploding(),
    lambda *a: 1 / 0,
    lambda *a: "x",
    sp.Symbol("zz"),
    sp.nan,
]


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_never_crashes_never_correct(answer):
    assert_never_crashes_never_correct(1, answer)
