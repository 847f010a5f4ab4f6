"""Chapter 1 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: scipy.spatial.transform.Rotation (DCMs, quaternions), finite
differences of hand-written positions (velocities, accelerations, partial velocities,
Jacobians, and the spatial chains of 1.10 and 1.11, whose poses are built with scipy), and
sympy differentiation of a position (the Coriolis exercise). The variants (1.4-1.7) are checked
at several students' numbers, the function exercises (1.10, 1.11) on the grader's hidden cases.
"""

import json
import math
import warnings

import numpy as np
import pytest
import sympy as sp
from exercise_helpers import Exploding, assert_correct, assert_hint, assert_never_crashes_never_correct
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


# ---------------------------------------------------------------- variants of 1.4-1.7
SEEDS = (3, 4, 5, 6)


def _variants(eid):
    ex = get(eid)
    return [ex.params_for(np.random.default_rng(s)) for s in SEEDS]


def hint_at(eid, answer, params, *words):
    """``answer`` is wrong for the student's ``params`` and its hint has every one of ``words``."""
    v = evaluate(eid, answer, params=params)
    assert v.verdict == "wrong", (eid, params, v)
    for w in words:
        assert w in v.hint, (w, v.hint)


def correct_at(eid, answer, params):
    v = evaluate(eid, answer, params=params)
    assert v.verdict == "correct", (eid, params, v)


def test_variants_differ_between_students_and_from_the_public_numbers():
    for eid in ("1.4", "1.5", "1.6", "1.7"):
        ex = get(eid)
        keys = [np.asarray(ex.key(params=p)) for p in [ex.params, *_variants(eid)]]
        for a in range(len(keys)):
            for b in range(a):
                assert not np.allclose(keys[a], keys[b], atol=1e-3), (eid, a, b)
        # the draw is a function of the generator: the grader recomputes the same numbers
        assert ex.params_for(np.random.default_rng(9)) == ex.params_for(np.random.default_rng(9))


def test_1_4_variants():
    for p in _variants("1.4"):
        a, b, c = p["angles"]
        rot = Rotation.from_euler("ZXY", [a, b, c])  # intrinsic: Rz(a) Rx(b) Ry(c)
        e = rot.as_quat(scalar_first=True)
        assert abs(e[0]) >= 0.4  # away from the division by a small e0 of the statement's formula
        np.testing.assert_allclose(abs(get("1.4").key(params=p) @ e), 1.0, atol=1e-12)
        correct_at("1.4", e, p)
        correct_at("1.4", -e, p)
        hint_at("1.4", rot.as_quat(), p, "FIRST")
        hint_at("1.4", rot.inv().as_quat(scalar_first=True), p, "inverse")
        hint_at("1.4", 2 * e, p, "normalised")
        v = rot.as_rotvec()
        angle = np.linalg.norm(v)
        hint_at("1.4", np.concatenate([[np.cos(angle)], np.sin(angle) * v / angle]), p, "HALF")


def test_1_5_and_1_6_variants():
    for p in _variants("1.5"):
        A = Rotation.from_euler("ZYX", p["angles_deg"], degrees=True).as_matrix()
        assert 10 <= abs(p["angles_deg"][1]) <= 70  # pitch away from gimbal lock
        v_i, w, s_body = (np.array(p[x]) for x in ("v_i", "omega", "s_body"))
        s = A @ s_body
        correct_at("1.5", v_i + np.cross(w, s), p)
        hint_at("1.5", v_i + np.cross(w, s_body), p, "body components")
        hint_at("1.5", v_i + np.cross(s, w), p, "wrong way round")
        hint_at("1.5", np.cross(w, s), p, "reference point")
    for p in _variants("1.6"):
        A = Rotation.from_euler("ZYX", p["angles_deg"], degrees=True).as_matrix()
        a_i, w, al, s_body = (np.array(p[x]) for x in ("a_i", "omega", "alpha", "s_body"))
        s = A @ s_body
        centripetal = np.cross(w, np.cross(w, s))
        correct_at("1.6", a_i + np.cross(al, s) + centripetal, p)
        hint_at("1.6", a_i + np.cross(al, s), p, "centripetal", "missing")
        hint_at("1.6", a_i + np.cross(al, s) - centripetal, p, "wrong sign")
        hint_at("1.6", a_i + np.cross(al, s_body) + np.cross(w, np.cross(w, s_body)), p, "body components")
        hint_at("1.6", a_i + np.cross(s, al) + centripetal, p, "tangential")


def test_1_7_variants():
    for p in _variants("1.7"):
        (L1_, L2_), q = p["lengths"], np.radians(p["q_deg"])

        def c2(x, absolute=False, L1_=L1_, L2_=L2_):
            a2 = x[1] if absolute else x[0] + x[1]
            return np.array([L1_ * np.cos(x[0]) + L2_ / 2 * np.cos(a2),
                             L1_ * np.sin(x[0]) + L2_ / 2 * np.sin(a2), 0.0])

        V = _fd_columns(c2, q)
        correct_at("1.7", V, p)
        hint_at("1.7", V[:, ::-1], p, "swapped")
        hint_at("1.7", _fd_columns(lambda x, c2=c2: c2(x, absolute=True), q), p, "RELATIVE")
        hint_at("1.7", Rotation.from_euler("z", q.sum()).as_matrix().T @ V, p, "local")
        no_elbow = V.copy()
        no_elbow[:, 0] = [-L1_ * np.sin(q[0]), L1_ * np.cos(q[0]), 0.0]
        hint_at("1.7", no_elbow, p, "elbow")


def test_sanity_checks_find_problems_without_the_key():
    for p in [get("1.4").params, *_variants("1.4")]:
        e = get("1.4").key(params=p)
        assert get("1.4").sanity(e, **p) is None
        assert "normalised" in get("1.4").sanity(3 * e, **p)
    for p in [get("1.5").params, *_variants("1.5")]:
        v = get("1.5").key(params=p)
        assert get("1.5").sanity(v, **p) is None
        assert "perpendicular" in get("1.5").sanity(v - np.asarray(p["v_i"]), **p)  # v_i not added
    for p in [get("1.7").params, *_variants("1.7")]:
        V = get("1.7").key(params=p)
        assert get("1.7").sanity(V, **p) is None
        assert "third row" in get("1.7").sanity(V + [[0, 0], [0, 0], [0.1, 0]], **p)
        assert "second column" in get("1.7").sanity(V[:, ::-1], **p)


def test_in_a_released_notebook_a_variant_is_checked_without_its_key(capsys):
    from mbdlib.exercises import check, params, use_variant
    from mbdlib.exercises.core import _VARIANT, encode_variant

    mine = {eid: get(eid).params_for(np.random.default_rng(11)) for eid in ("1.4", "1.5", "1.7")}
    use_variant(encode_variant("s1", 1, mine))
    try:
        assert params("1.7")["lengths"].tolist() == mine["1.7"]["lengths"]
        e = get("1.4").key(params=mine["1.4"])
        for answer, expect in [(e, "verdict comes at grading"), (2 * e, "normalised"), (e[:3], "shape")]:
            check("1.4", answer)
            assert expect in capsys.readouterr().out
        v = get("1.5").key(params=mine["1.5"])
        check("1.5", v - np.asarray(mine["1.5"]["v_i"]))
        assert "perpendicular" in capsys.readouterr().out
        check("1.7", get("1.7").key(params=mine["1.7"])[:, ::-1])
        assert "second column" in capsys.readouterr().out
        check("1.6", get("1.6").key())  # not in this variant: judged with the public numbers
        assert "correct" in capsys.readouterr().out
    finally:
        _VARIANT.clear()


# ---------------------------------------------------------------- 1.10, 1.11: a spatial chain
def _poses(k, l, d, theta):
    """Global DCMs A_i (n, 3, 3) and centre-of-mass positions r_Ci (n, 3), built with scipy."""
    A, r, As, rcs = np.eye(3), np.zeros(3), [], []
    for i in range(len(theta)):
        r = r + A @ l[i]  # joint i, global
        A = A @ Rotation.from_rotvec(theta[i] * np.asarray(k[i])).as_matrix()
        As.append(A)
        rcs.append(r + A @ d[i])
    return np.array(As), np.array(rcs)


def _d1(f, x, h):
    return (f(x - 2 * h) - 8 * f(x - h) + 8 * f(x + h) - f(x + 2 * h)) / (12 * h)


def _d2(f, x, h):
    return (-f(x - 2 * h) + 16 * f(x - h) - 30 * f(x) + 16 * f(x + h) - f(x + 2 * h)) / (12 * h * h)


def _unskew(W):
    return np.stack([W[..., 2, 1], W[..., 0, 2], W[..., 1, 0]], axis=-1)


def fd_outward(k, l, d, q, qd, qdd, h=1e-3):
    """omega, alpha, v_C, a_C (frame-i components) by finite differences in time of the poses."""
    def pose(t):
        return _poses(k, l, d, q + qd * t + qdd * t * t / 2)

    def omega(t):  # omega~ = A_dot A^T, global
        return _unskew(_d1(lambda s: pose(s)[0], t, h) @ pose(t)[0].transpose(0, 2, 1))

    A = pose(0.0)[0]
    glob = [omega(0.0), _d1(omega, 0.0, h),
            _d1(lambda s: pose(s)[1], 0.0, h), _d2(lambda s: pose(s)[1], 0.0, h)]
    return np.array([np.einsum("nji,nj->ni", A, x) for x in glob])  # A_i^T x


def fd_partials(k, l, d, q, h=1e-4):
    """omega_i^(j), v_Ci^(j) (frame-i components) by finite differences of the poses in each angle."""
    n = len(q)
    A = _poses(k, l, d, q)[0]
    out = np.zeros((2, n, n, 3))
    for j in range(n):
        def pose(s, j=j):
            return _poses(k, l, d, q + s * np.eye(n)[j])

        dA, dr = _d1(lambda s: pose(s)[0], 0.0, h), _d1(lambda s: pose(s)[1], 0.0, h)
        out[0, :, j] = np.einsum("nji,nj->ni", A, _unskew(dA @ A.transpose(0, 2, 1)))
        out[1, :, j] = np.einsum("nji,nj->ni", A, dr)
    return out


def _hidden(eid, seed):
    return get(eid).grading_cases(np.random.default_rng(seed))


def test_1_10_reference_matches_finite_differences_on_public_and_hidden_cases():
    ex = get("1.10")
    sizes = set()
    for case in list(ex.cases) + [c for s in (1, 2, 3) for c in _hidden("1.10", s)]:
        sizes.add(len(case[3]))
        np.testing.assert_allclose(ex.key(*case), fd_outward(*case), rtol=1e-7, atol=1e-7)
    assert sizes == {2, 3, 4, 5}
    assert [len(c[0]) for c in ex.cases] == [3, 3]  # the public case: the three-link arm


def test_1_11_reference_matches_finite_differences_on_public_and_hidden_cases():
    ex = get("1.11")
    sizes = set()
    for case in list(ex.cases) + [c for s in (1, 2, 3) for c in _hidden("1.11", s)]:
        sizes.add(len(case[3]))
        np.testing.assert_allclose(ex.key(*case), fd_partials(*case), rtol=1e-7, atol=1e-8)
    assert sizes == {2, 3, 4, 5}


def test_1_10_and_1_11_agree_the_partial_velocities_are_the_rates_coefficients():
    for k, l, d, q, qd, qdd in _hidden("1.10", 7):
        w, v_c = get("1.11").key(k, l, d, q)
        omega, _, vel, _ = get("1.10").key(k, l, d, q, qd, qdd)
        np.testing.assert_allclose(np.einsum("ijc,j->ic", w, qd), omega, atol=1e-12)
        np.testing.assert_allclose(np.einsum("ijc,j->ic", v_c, qd), vel, atol=1e-12)


def test_hidden_cases_travel_as_json():
    from mbdlib.exercises.collect import decode_cases, encode_cases

    for eid in ("1.10", "1.11"):
        cases = _hidden(eid, 4)
        back = decode_cases(json.loads(json.dumps(encode_cases(cases))))
        for a, b in zip(cases, back, strict=True):
            np.testing.assert_array_equal(get(eid).key(*a), get(eid).key(*b))


def rot(k_i, theta):
    """Rot(k, theta) of scipy (the DCM of a frame turned by theta about the unit axis k)."""
    return Rotation.from_rotvec(theta * np.asarray(k_i)).as_matrix()


def student_outward(k, l, d, q, qd, qdd, coriolis=1.0, transposed=False, lever_v=True, lever_a=True,
                    mixed=False, cen_joint=True, cen_com=True, d_first=False, global_=False):
    """A student's recursion, with the mistakes one may make (all off: right)."""
    n = len(q)
    out = np.zeros((4, n, 3))
    w_p = al_p = v_p = a_p = np.zeros(3)
    A = np.eye(3)
    for i in range(n):
        R = rot(k[i], q[i]) if transposed else rot(k[i], q[i]).T
        A = A @ rot(k[i], q[i])
        kk = np.asarray(k[i])
        w = R @ w_p + qd[i] * kk
        al = R @ al_p + coriolis * np.cross(R @ w_p, qd[i] * kk) + qdd[i] * kk
        cj = np.cross(w_p, np.cross(w_p, l[i])) if cen_joint else 0
        if mixed:
            v = R @ v_p + np.cross(R @ w_p, l[i])
            a = R @ a_p + np.cross(R @ al_p, l[i]) + np.cross(R @ w_p, np.cross(R @ w_p, l[i]))
        else:
            v = R @ (v_p + np.cross(w_p, l[i])) if lever_v else R @ v_p
            a = R @ (a_p + np.cross(al_p, l[i]) + cj) if lever_a else R @ a_p
        v_c = v + (np.cross(d[i], w) if d_first else np.cross(w, d[i]))
        a_c = a + np.cross(al, d[i]) + (np.cross(w, np.cross(w, d[i])) if cen_com else 0)
        out[:, i] = [w, al, v_c, a_c]
        if global_:
            out[:, i] = out[:, i] @ A.T
        w_p, al_p, v_p, a_p = w, al, v, a
    return tuple(out)


def with_(**mistakes):
    def f(*case):
        return student_outward(*case, **mistakes)

    return f


def test_1_10_right_answers():
    assert_correct("1.10", student_outward)
    assert_correct("1.10", lambda *c: [x.tolist() for x in student_outward(*c)])  # lists are fine
    assert_correct("1.10", lambda *c: np.array(fd_outward(*c)).round(9))  # within the tolerance


def test_1_10_mistakes():
    assert_hint("1.10", with_(coriolis=0.0), "alpha misses", "(R omega_{i-1}) x theta_dot_i k_i")
    assert_hint("1.10", with_(coriolis=-1.0), "wrong sign")
    assert_hint("1.10", with_(cen_com=False), "a_C misses the centripetal term omega_i x (omega_i x d_i)")
    assert_hint("1.10", with_(cen_com=False, cen_joint=False), "centripetal terms are missing")
    assert_hint("1.10", with_(cen_joint=False), "a_i misses the centripetal term")
    assert_hint("1.10", with_(transposed=True), "transposed", "TRANSPOSE of A_{i-1,i}")
    for lever in ({"lever_v": False}, {"lever_a": False}, {"lever_v": False, "lever_a": False}):
        assert_hint("1.10", with_(**lever), "not carried along l_{i-1}")
    assert_hint("1.10", with_(mixed=True), "PARENT components")
    assert_hint("1.10", with_(global_=True), "global components", "own link frame")
    assert_hint("1.10", with_(d_first=True), "wrong way round", "omega_i x d_i")
    # the shape of the result
    assert_hint("1.10", lambda *c: student_outward(*c)[:3], "four arrays")
    assert_hint("1.10", lambda *c: np.array(student_outward(*c)).transpose(1, 0, 2), "[link, quantity]")
    assert_hint("1.10", lambda *c: student_outward(*c)[0], "shape")


def _off(index, m, amount=0.1):
    """The right result with array m changed (a mistake no specific hint knows)."""
    def f(*case):
        out = np.array(student_outward(*case))
        out[m][index] += amount
        return out

    return f


def test_1_10_hints_say_which_array_is_off_first():
    assert_hint("1.10", _off((1, 0), 0), "omega (the first array) is off")
    assert_hint("1.10", _off((2, 1), 2), "omega is right but v_C is not")
    assert_hint("1.10", _off((0, 2), 1), "omega and v_C are right, alpha is not")
    assert_hint("1.10", _off((2, 2), 3), "omega, alpha and v_C are right, a_C is not")
    # two mistakes at once: the first wrong array in the order of the recursion is named
    assert_hint("1.10", with_(coriolis=0.0, cen_com=False), "omega and v_C are right, alpha is not")
    assert_hint("1.10", with_(d_first=True, coriolis=0.0), "omega is right but v_C is not")
    # no hint gives the expected numbers away
    for f in (_off((1, 0), 0), with_(coriolis=0.0), with_(transposed=True)):
        hint = evaluate("1.10", f).hint
        for case in get("1.10").cases:
            for x in np.asarray(get("1.10").key(*case)).ravel():
                if abs(x) > 1e-3:
                    assert f"{x:.3g}" not in hint and f"{x:.4g}" not in hint, (x, hint)


def student_partials(k, l, d, q, transposed=False, rotate=True, lever_l=True, lever_d=True, self_term=True,
                     global_=False, swap=False, beyond=False):
    """A student's partial velocities (n, n, 3) x 2, with the mistakes one may make."""
    n = len(q)
    w, v = np.zeros((n, n, 3)), np.zeros((n, n, 3))
    w_c, v_c = np.zeros((n, n, 3)), np.zeros((n, n, 3))
    A = np.eye(3)
    for i in range(n):
        R = rot(k[i], q[i]) if transposed else rot(k[i], q[i]).T
        R = R if rotate else np.eye(3)
        A = A @ rot(k[i], q[i])
        for j in range(n):
            if j < i:
                w[i, j] = R @ w[i - 1, j]
                v[i, j] = R @ (v[i - 1, j] + (np.cross(w[i - 1, j], l[i]) if lever_l else 0))
            elif j == i:
                w[i, j] = k[i]
            elif beyond:  # "every joint moves every link": its axis, seen from frame i
                w[i, j] = k[j]
            lever = np.cross(w[i, j], d[i]) if lever_d and (self_term or j != i) else 0
            w_c[i, j], v_c[i, j] = w[i, j], v[i, j] + lever
            if global_:
                w_c[i, j], v_c[i, j] = A @ w_c[i, j], A @ v_c[i, j]
    if swap:
        return w_c.transpose(1, 0, 2), v_c.transpose(1, 0, 2)
    return w_c, v_c


def partials_with(**mistakes):
    def f(*case):
        return student_partials(*case, **mistakes)

    return f


def test_1_11_answers_and_mistakes():
    assert_correct("1.11", student_partials)
    assert_correct("1.11", lambda *c: fd_partials(*c).round(10))
    assert_hint("1.11", partials_with(swap=True), "indexed [j, i]")
    assert_hint("1.11", partials_with(beyond=True), "j > i must be zero")
    assert_hint("1.11", partials_with(global_=True), "global components")
    assert_hint("1.11", partials_with(transposed=True), "TRANSPOSE")
    assert_hint("1.11", partials_with(rotate=False), "not turned into frame i")
    assert_hint("1.11", partials_with(lever_d=False), "not of C_i", "d_i")
    assert_hint("1.11", partials_with(self_term=False), "v_Ci^(i) is not zero")
    assert_hint("1.11", partials_with(lever_l=False), "not carried along l_{i-1}")
    assert_hint("1.11", lambda *c: student_partials(*c)[0], "two arrays")

    def off(m, index):
        def f(*case):
            out = np.array(student_partials(*case))
            out[m][index] += 0.1
            return out

        return f

    assert_hint("1.11", off(0, (2, 1)), "partial angular velocities (the first array) are off")
    assert_hint("1.11", off(1, (2, 0)), "partial angular velocities are right")


def _graded_on_hidden(eid, fn, seed=0):
    """The verdict of ``fn`` on the grader's hidden cases of one student (drawn with ``seed``)."""
    from mbdlib.exercises.core import _Answered, judge, outputs_of

    ex = get(eid)
    cases = ex.grading_cases(np.random.default_rng(seed))
    try:
        outputs = outputs_of(ex, fn, cases)
    except _Answered as a:
        return a.kind
    return judge(ex, outputs, cases).verdict


@pytest.mark.parametrize("eid, right", [("1.10", student_outward), ("1.11", student_partials)])
def test_right_only_on_the_public_cases_is_wrong_on_hidden_ones(eid, right):
    ex = get(eid)
    table = {tuple(np.round(c[3], 12)): right(*c) for c in ex.cases}

    def lookup(*case):  # a table of the public cases' results
        return table.get(tuple(np.round(case[3], 12)), next(iter(table.values())))

    arm = [np.array(x) for x in ex.cases[0][:3]]

    def three_link_arm_only(k, l, d, *rest):  # ignores the chain it is given: the public arm's data
        return right(*arm, *rest)

    for fn in (lookup, three_link_arm_only):
        assert evaluate(eid, fn).verdict == "correct"
        for seed in (0, 1, 2):
            assert _graded_on_hidden(eid, fn, seed) in ("wrong", "error")
    for seed in (0, 1, 2):  # while the right function is right on them
        assert _graded_on_hidden(eid, right, seed) == "correct"
    # a mistake is still recognised on the hidden cases
    wrong = with_(coriolis=0.0) if eid == "1.10" else partials_with(lever_d=False)
    assert _graded_on_hidden(eid, wrong) == "wrong"


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


# ---------------------------------------------------------------- end to end, as a class would
@pytest.mark.slow
def test_released_chapter_graded_end_to_end(tmp_path):
    """Release the solution notebook for a roster, grade it with the secret: every exercise is correct for
    each student's own copy; a copy handed in under another name fails exactly the variant exercises."""
    import csv
    from pathlib import Path

    from mbdlib.exercises.grade import grade
    from mbdlib.exercises.release import release_variants

    root = Path(__file__).resolve().parents[1]
    roster, secret = tmp_path / "roster.csv", tmp_path / "secret"
    roster.write_text("student_id,name,file\ns1,Ann,ann.ipynb\ns2,Bo,bo.ipynb\ns3,Cy,cy.ipynb\n")
    secret.write_text("a course secret of the chapter 1 test, 0123456789abcdef\n")
    solution = root / "solutions" / "ch01_kinematics.ipynb"
    released = release_variants(solution, roster, secret, tmp_path / "rel", allow_solutions=True)
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("ann.ipynb", "bo.ipynb"):
        (subs / name).write_bytes((tmp_path / "rel" / name).read_bytes())
    (subs / "cy.ipynb").write_bytes(released[0].read_bytes())  # Cy hands in Ann's notebook
    out = tmp_path / "grades.csv"
    grade([subs], out, timeout=120, workers=2, roster=roster, secret_file=secret, log=lambda *a: None)
    table = {(r["student"], r["exercise"]): r for r in csv.DictReader(out.open(encoding="utf-8"))}
    ids = [e.id for e in exercises(1)]
    for s in ("s1", "s2"):
        assert [table[s, i]["verdict"] for i in ids] == ["correct"] * len(ids), s
    variants = [e.id for e in exercises(1) if e.variant is not None]
    assert variants == ["1.1", "1.4", "1.5", "1.6", "1.7", "1.12", "1.13"]
    assert {i for i in ids if table["s3", i]["verdict"] == "wrong"} == set(variants)
    # the function exercises: graded on Cy's own hidden cases, which Ann's (right) functions pass
    assert all(table["s3", i]["verdict"] == "correct" for i in ids if i not in variants)


# ---------------------------------------------------------------- practice inside the pages (1.P1-1.P5)
def test_practice_exercises_are_registered_with_no_points_and_a_mistake_each():
    from mbdlib.exercises import practice_exercises

    ids = [e.id for e in practice_exercises(1)]
    assert ids == ["1.P1", "1.P2", "1.P3", "1.P4", "1.P5", "1.P6"]
    for e in practice_exercises(1):
        assert e.points == 0 and e.mistakes, e.id
        assert e.id not in [x.id for x in exercises(1)]  # never released or graded


def test_1_p1_extrinsic_zyx_against_scipy():
    A = Rotation.from_euler("zyx", [35, 25, -20], degrees=True).as_matrix()  # scipy: lowercase = extrinsic
    assert verdict("1.P1", A).text() == "✓ 1.P1 correct"
    intrinsic = Rotation.from_euler("ZYX", [35, 25, -20], degrees=True).as_matrix()
    assert_hint("1.P1", intrinsic, "intrinsic ZYX", "left")
    assert_hint("1.P1", A.T, "transpose")
    assert_hint("1.P1", Rotation.from_euler("zyx", [35, 25, -20]).as_matrix(), "degrees")  # 35 "radians"
    assert_hint("1.P1", Rotation.from_euler("zyx", [-20, 25, 35], degrees=True).as_matrix(), "own axis")


def test_1_p2_quarter_turn_against_scipy():
    x, y, z, w = Rotation.from_rotvec(np.radians(90) * np.array([0.0, 0.6, 0.8])).as_quat()
    p = np.array([w, x, y, z])
    assert verdict("1.P2", p).verdict == "correct"
    assert verdict("1.P2", -p).verdict == "correct"          # -p is the same orientation
    assert_hint("1.P2", np.array([x, y, z, w]), "scalar part comes first")
    assert_hint("1.P2", [0.0, 0.0, 0.6, 0.8], "HALF the angle")
    assert_hint("1.P2", np.r_[np.cos(45.0), np.array([0.0, 0.6, 0.8]) * np.sin(45.0)], "degrees")


def test_1_p3_omega_from_zxz_rates_by_finite_differences():
    angles, rates, h = np.radians([30.0, 50.0, 10.0]), np.array([0.2, -0.1, 0.4]), 1e-6

    def A(t):
        return Rotation.from_euler("ZXZ", angles + t * rates).as_matrix()

    W = (A(h) - A(-h)) / (2 * h) @ A(0.0).T                   # skew(omega) = A_dot A^T
    omega = np.array([W[2, 1], W[0, 2], W[1, 0]])
    assert verdict("1.P3", omega).verdict == "correct"
    assert_hint("1.P3", A(0.0).T @ omega, "BODY components")
    assert_hint("1.P3", [-0.1, 0.0, 0.6], "only the first rate")
    ext = Rotation.from_euler("zxz", angles)

    def A_ext(t):
        return Rotation.from_euler("zxz", angles + t * rates).as_matrix()

    W_ext = (A_ext(h) - A_ext(-h)) / (2 * h) @ ext.as_matrix().T
    assert_hint("1.P3", [W_ext[2, 1], W_ext[0, 2], W_ext[1, 0]], "extrinsic")


def test_1_p4_bead_by_finite_differences_of_its_position():
    Omega, rho0, rho_dot, h = 3.0, 0.5, 0.4, 1e-4

    def r(t):
        rho = rho0 + rho_dot * t
        return rho * np.array([np.cos(Omega * t), np.sin(Omega * t), 0.0])

    a = (r(h) - 2 * r(0.0) + r(-h)) / h**2
    assert np.allclose(a, [-4.5, 2.4, 0.0], atol=1e-5)
    assert verdict("1.P4", np.round(a, 9)).verdict == "correct"
    assert_hint("1.P4", [-4.5, 1.2, 0.0], "twice")
    assert_hint("1.P4", [-4.5, 0.0, 0.0], "not zero")
    assert_hint("1.P4", [4.5, 2.4, 0.0], "towards the pivot")


def test_1_p5_jacobian_column_by_finite_differences():
    L, q, h = np.array([1.0, 0.8, 0.5]), np.radians([30.0, -45.0, 60.0]), 1e-6

    def tip(q):
        phi = np.cumsum(q)
        return np.array([L @ np.cos(phi), L @ np.sin(phi), 0.0])

    column = (tip(q + [0, h, 0]) - tip(q - [0, h, 0])) / (2 * h)
    assert verdict("1.P5", column).verdict == "correct"
    assert_hint("1.P5", (tip(q + [h, 0, 0]) - tip(q - [h, 0, 0])) / (2 * h), "joint 1")
    assert_hint("1.P5", (tip(q + [0, 0, h]) - tip(q - [0, 0, h])) / (2 * h), "joint 3")
    assert_hint("1.P5", -column, "wrong way round")


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_practice_never_crashes_never_correct(answer):
    from mbdlib.exercises import practice_exercises

    for ex in practice_exercises(1):
        v = evaluate(ex.id, answer)
        assert v.verdict in ("wrong", "unanswered", "error"), (ex.id, v)
        assert v.points == 0 and (v.verdict == "unanswered") == (answer is None)


def test_practice_check_shows_the_verdict_without_a_grading_record(monkeypatch):
    """A practice check (never graded) shows text and HTML only; a graded one also carries the record."""
    from mbdlib.exercises import core

    shown = []
    monkeypatch.setattr(core, "_show", lambda bundle, text: shown.append(bundle))
    core.check("1.P4", [-4.5, 2.4, 0.0])
    core.check("1.1", A11)
    assert set(shown[0]) == {"text/plain", "text/html"} and shown[0]["text/plain"] == "✓ 1.P4 correct"
    assert core.MIME in shown[1]


# ---------------------------------------------------------------- frames that turn on frames (page 1.3)
def _omega_alpha_exact(first, second, q, qd, qdd):
    """omega and alpha at t = 0 of A(t) = R_first(q1(t)) R_second(q2(t)), q(t) = q + qd t + qdd t^2/2, from
    the definition omega~ = A_dot A^T, differentiated exactly by sympy (rotation matrices written here)."""
    t = sp.symbols("t", real=True)

    def R(axis, a):
        c, s_ = sp.cos(a), sp.sin(a)
        return {"X": sp.Matrix([[1, 0, 0], [0, c, -s_], [0, s_, c]]),
                "Y": sp.Matrix([[c, 0, s_], [0, 1, 0], [-s_, 0, c]]),
                "Z": sp.Matrix([[c, -s_, 0], [s_, c, 0], [0, 0, 1]])}[axis]

    angle = [sp.nsimplify(a) + sp.nsimplify(b) * t + sp.nsimplify(c) * t**2 / 2
             for a, b, c in zip(q, qd, qdd, strict=True)]
    A = R(first, angle[0]) * R(second, angle[1])
    W = A.diff(t) * A.T
    omega = sp.Matrix([W[2, 1], W[0, 2], W[1, 0]])
    at0 = {t: 0}
    return (np.array(omega.subs(at0).evalf(30), dtype=float).ravel(),
            np.array(omega.diff(t).subs(at0).evalf(30), dtype=float).ravel(),
            np.array(A.subs(at0).evalf(30), dtype=float))


def test_1_P6_the_wheel_on_a_turntable_from_the_definition():
    from mbdlib.exercises.ch01 import P6

    phi = math.radians(P6["phi_deg"])
    rates, accelerations = [P6["Omega"], P6["s"]], [P6["Omega_dot"], P6["s_dot"]]
    _, alpha, _ = _omega_alpha_exact("Z", "X", [phi, 0.3], rates, accelerations)
    assert evaluate("1.P6", alpha).verdict == "correct"
    x_B = np.array([math.cos(phi), math.sin(phi), 0.0])                  # the axle: the turntable's x axis
    assert_hint("1.P6", P6["s_dot"] * x_B, "carried")
    assert_hint("1.P6", alpha - 2 * P6["Omega"] * P6["s"] * np.cross([0, 0, 1.0], x_B), "wrong sign")
    assert_hint("1.P6", Rotation.from_euler("Z", phi).as_matrix().T @ alpha, "global")
    assert_hint("1.P6", P6["s_dot"] * np.array([1.0, 0, 0]) + P6["Omega"] * P6["s"] * np.array([0, 1.0, 0]),
                "fixed in the turntable")


@pytest.mark.parametrize("seed", [None, *SEEDS])
def test_1_12_and_1_13_pan_tilt_from_the_definition(seed):
    rng = None if seed is None else np.random.default_rng(seed)
    params = get("1.12").params_for(rng)
    assert params == get("1.13").params_for(None if seed is None else np.random.default_rng(seed))
    q = np.radians(params["q_deg"])
    omega, alpha, A0 = _omega_alpha_exact("Z", "Y", q, params["qd"], params["qdd"])
    correct_at("1.12", omega, params)
    correct_at("1.13", alpha, params)
    y_B = np.array([-math.sin(q[0]), math.cos(q[0]), 0.0])               # the tilt axis, carried by the pan
    (psi_d, theta_d), theta_dd = params["qd"], params["qdd"][1]
    carried = np.cross([0.0, 0.0, psi_d], theta_d * y_B)
    hint_at("1.12", omega - theta_d * y_B + [0.0, theta_d, 0.0], params, "global Y")
    hint_at("1.12", A0.T @ omega, params, "global components")
    hint_at("1.13", alpha - carried, params, "carried")
    hint_at("1.13", alpha - 2 * carried, params, "wrong sign")
    hint_at("1.13", A0.T @ alpha, params, "global components")
    fixed = alpha - carried - theta_dd * y_B + [0.0, theta_dd, 0.0] + np.cross([0, 0, psi_d], [0, theta_d, 0])
    hint_at("1.13", fixed, params, "turns with the pan")


def test_1_12_variants_differ_and_are_reproducible():
    keys = [np.asarray(get("1.13").key(params=p)) for p in [get("1.13").params, *_variants("1.13")]]
    for a in range(len(keys)):
        for b in range(a):
            assert not np.allclose(keys[a], keys[b], atol=1e-3)
    draw = [get("1.13").params_for(np.random.default_rng(4)) for _ in range(2)]
    assert draw[0] == draw[1]
