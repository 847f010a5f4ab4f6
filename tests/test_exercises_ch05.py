"""Chapter 5 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: the loop closed by hand-written geometry (5.1), finite differences
of the passive angles and the loop's velocity equation written here (5.2), the
determinant of the hand-written passive Jacobian and the library's SingularityError
(5.3), Lagrange's equations derived by sympy from the centres of mass written here
(5.4-5.6), finite differences of the loop closure solved here by scipy's fsolve (5.7, and
both assemblies of 5.8a), and the gradient of the potential energy by finite differences
(5.8b).  The wrong answers are built in this file, not taken from the registry; the
variant exercises are checked at several students' parameters, the function exercise 5.7
on the hidden cases too.  The slow test grades a released class end to end.
"""

import csv
import math
import warnings
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from exercise_helpers import Exploding, assert_correct, assert_hint, assert_never_crashes_never_correct
from scipy.optimize import fsolve

from mbdlib.errors import SingularityError
from mbdlib.exercises import core, evaluate, exercises, get
from mbdlib.exercises.core import judge, practice_exercises
from mbdlib.exercises.grade import grade
from mbdlib.exercises.release import release_variants
from mbdlib.mechanisms import fourbar_arm

Q, QD, QDD = np.array([0.4, 2.0]), np.array([0.5, -1.0]), np.array([1.5, 2.0])
L1, L2, L3, L4 = 0.60, 0.50, 0.15, 0.60
M_ = (8.0, 4.0, 1.0, 1.5)
D_ = (0.30, 0.20, 0.075, 0.30)
I_ = (0.24, 0.12, 0.002, 0.045)
G = 9.81
B2 = np.array([-0.15, 0.0])


def e(a):
    return np.array([math.cos(a), math.sin(a)])


def n(a):
    return np.array([-math.sin(a), math.cos(a)])


def rot(a, v):
    c, s = math.cos(a), math.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def test_chapter_5_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(5)
    assert [x.id for x in exs] == [f"5.{i}" for i in range(1, 8)] + ["5.8a", "5.8b"]
    assert sum(x.points for x in exs) == 16
    for x in exs:
        assert x.points > 0 and len(x.mistakes) >= 2, x.id


# ---------------------------------------------------------------- 5.1, 5.2 the loop
def loop(q, th2, th4):
    """Φ = A + L4 e(θ4) - E - R(θ2) b2, written here."""
    return L3 * e(q[1]) + L4 * e(th4) - L1 * e(q[0]) - rot(th2, B2)


def test_5_1_the_answer_closes_the_loop_on_the_stated_branch():
    answer = np.array([Q[1] + math.pi, Q[0]])
    np.testing.assert_allclose(loop(Q, *answer), 0, atol=1e-14)
    A, E = L3 * e(Q[1]), L1 * e(Q[0])
    B = A + L4 * e(answer[1])
    u, w = E - A, B - A
    assert u[0] * w[1] - u[1] * w[0] > 0  # B to the left of A -> E, as the model's branch
    assert_correct("5.1", answer)
    assert_correct("5.1", answer - [2 * math.pi, 0])


def test_5_1_mistakes():
    assert_hint("5.1", [Q[1], Q[0]], "OTHER way")
    assert_hint("5.1", [Q[1] - Q[0] + math.pi, Q[0]], "ABSOLUTE")
    assert_hint("5.1", [Q[0], Q[1] + math.pi], "order")
    assert_hint("5.1", [Q[1] + math.pi, Q[1]], "parallel to the upper arm")
    assert_hint("5.1", [Q[1] + math.pi, Q[0] + 0.1], "entry [1]")


def test_5_2_rates_by_finite_differences_and_the_velocity_equation():
    arm, h = fourbar_arm(), 1e-6
    fd = (arm.passive_angles(Q + h * QD) - arm.passive_angles(Q - h * QD)) / (2 * h)
    answer = np.array([QD[1], QD[0]])
    np.testing.assert_allclose(fd, answer, atol=1e-7)
    perp = np.array([[0.0, -1.0], [1.0, 0.0]])
    th2, th4 = Q[1] + math.pi, Q[0]
    dphi = L3 * QD[1] * perp @ e(Q[1]) + L4 * answer[1] * perp @ e(th4) - L1 * QD[0] * perp @ e(Q[0]) \
        - answer[0] * perp @ rot(th2, B2)
    np.testing.assert_allclose(dphi, 0, atol=1e-14)
    assert_correct("5.2", answer)


def test_5_2_mistakes():
    assert_hint("5.2", QD, "swapped")
    assert_hint("5.2", [QD[1] - QD[0], QD[0]], "relative to the upper arm")
    assert_hint("5.2", [-QD[1], QD[0]], "does not change its rate")


# ---------------------------------------------------------------- 5.3 change points
def test_5_3_passive_jacobian_is_singular_there_and_the_library_refuses():
    for delta in (0.0, math.pi):
        th2, th4 = delta + math.pi, 0.0  # at q1 = 0
        Jp = np.column_stack([-(np.array([[0, -1], [1, 0]]) @ rot(th2, B2)), L4 * np.array([-math.sin(th4),
                                                                                              math.cos(th4)])])
        assert abs(np.linalg.det(Jp)) < 1e-15
        with pytest.raises(SingularityError, match="change point"):
            fourbar_arm().passive_rates([0.3, 0.3 + delta])
    fourbar_arm().passive_rates([0.3, 0.3 + math.pi / 2])  # and not elsewhere
    assert_correct("5.3", [0.0, math.pi])


def test_5_3_key_is_the_closed_form():
    """The parallelogram's J_p is singular where sin(q2 - q1) = 0: the key is [0, π] on every machine."""
    np.testing.assert_allclose(get("5.3").reference(), [0.0, math.pi], atol=1e-6)


def test_5_3_mistakes():
    assert_hint("5.3", [math.pi / 2, 3 * math.pi / 2], "LINE UP")
    assert_hint("5.3", [0.0, 180.0], "radians")
    assert_hint("5.3", [0.0, 2 * math.pi], "same configuration")


# ---------------------------------------------------------------- 5.4-5.6 Lagrange by sympy
@cache
def lagrange():
    """τ(q, q̇, q̈) and M from T and V of the centres of mass written here (parallelogram angles)."""
    t = sp.Symbol("t")
    q1, q2 = sp.Function("q1")(t), sp.Function("q2")(t)
    m2, m4 = sp.symbols("m2 m4")
    ev = lambda a: sp.Matrix([sp.cos(a), sp.sin(a)])  # noqa: E731
    centres = [D_[0] * ev(q1), L1 * ev(q1) + D_[1] * ev(q2 + sp.pi), D_[2] * ev(q2),
               L3 * ev(q2) + D_[3] * ev(q1)]
    angles = [q1, q2 + sp.pi, q2, q1]
    masses = [M_[0], m2, M_[2], m4]
    T = sum(m * c.diff(t).dot(c.diff(t)) / 2 + inertia * a.diff(t) ** 2 / 2
            for m, inertia, c, a in zip(masses, I_, centres, angles, strict=True))
    V = sum(m * G * c[1] for m, c in zip(masses, centres, strict=True))
    Lag = T - V
    tau = [sp.diff(Lag.diff(x.diff(t)), t) - Lag.diff(x) for x in (q1, q2)]
    a1, a2, v1, v2, s1, s2 = sp.symbols("a1 a2 v1 v2 s1 s2")
    subs = [(q1.diff(t, 2), a1), (q2.diff(t, 2), a2), (q1.diff(t), v1), (q2.diff(t), v2), (q1, s1), (q2, s2)]
    tau = [sp.expand(x.subs(subs)) for x in tau]
    M12 = sp.simplify(T.subs(subs[2:]).diff(v1).diff(v2))
    return sp.lambdify((s1, s2, v1, v2, a1, a2, m2, m4), tau), M12, (s1, s2, m2, m4)


def tau_lagrange(q, qd, qdd, m4=M_[3], m2=M_[1]):
    return np.array(lagrange()[0](*q, *qd, *qdd, m2, m4), dtype=float)


def test_5_4_coefficient_and_decoupling_mass_from_the_kinetic_energy():
    _, M12, (s1, s2, m2, m4) = lagrange()
    M12 = M12.subs(m2, M_[1])
    c = M12.subs({s1: 0, s2: 0, m4: M_[3]})
    assert sp.simplify(M12.subs(m4, M_[3]) - c * sp.cos(s2 - s1)) == 0  # M12 = c cos(q2 - q1)
    m4_dec = sp.solve(M12.subs({s1: 0, s2: 0}), m4)[0]
    answer = [float(c), float(m4_dec)]
    assert_correct("5.4", answer)
    arm = fourbar_arm(m4=float(m4_dec))
    rng = np.random.default_rng(5)
    for q1 in rng.uniform(-1, 1, 3):  # on the parallelogram branch: 0 < q2 - q1 < pi
        assert abs(arm.mass_matrix([q1, q1 + rng.uniform(0.3, math.pi - 0.3)])[0, 1]) < 1e-12


def test_5_4_mistakes():
    c = -0.4125
    assert_hint("5.4", [-c, 10.0], "sign of the forearm")
    assert_hint("5.4", [-M_[1] * L1 * D_[1], 10.0], "coupler is missing")
    assert_hint("5.4", [M_[3] * L3 * D_[3], 10.0], "forearm is missing")
    assert_hint("5.4", [M_[3] * L3 * D_[3] - M_[1] * L1 * L2, 10.0], "not its length")
    assert_hint("5.4", [c, 10.0], "entry [1]")


def test_5_5_gravity_by_lagrange():
    G_ = tau_lagrange(Q, [0, 0], [0, 0])
    assert_correct("5.5", G_)
    assert_hint("5.5", -G_, "HOLD")


def test_5_5_mistakes():
    no_coupler = tau_lagrange(Q, [0, 0], [0, 0], m4=0.0)
    assert_hint("5.5", no_coupler, "coupler")
    g1, g2 = tau_lagrange(Q, [0, 0], [0, 0])
    forearm = 2 * M_[1] * D_[1] * G * math.cos(Q[1])  # -m2 d2 -> +m2 d2 in τ2
    assert_hint("5.5", [g1, g2 + forearm], "BEHIND")


def test_5_6_torques_by_lagrange_at_the_state_and_at_random_states():
    assert_correct("5.6", tau_lagrange(Q, QD, QDD))
    arm, rng = fourbar_arm(), np.random.default_rng(7)
    for _ in range(3):
        q = np.array([rng.uniform(-1, 1), 0.0])
        q[1] = q[0] + rng.uniform(0.3, math.pi - 0.3)  # on the parallelogram branch, off the change points
        qd, qdd = rng.normal(size=2), rng.normal(size=2)
        np.testing.assert_allclose(arm.inverse_dynamics(q, qd, qdd), tau_lagrange(q, qd, qdd), atol=1e-10)


def test_5_6_mistakes():
    I4 = I_[3]
    no_coupler = tau_lagrange(Q, QD, QDD, m4=0.0) - np.array([I4 * QDD[0], 0.0])
    assert_hint("5.6", no_coupler, "coupler's contribution")
    gravity = tau_lagrange(Q, [0, 0], [0, 0])
    assert_hint("5.6", tau_lagrange(Q, QD, QDD) - 2 * gravity, "sign of gravity")
    assert_hint("5.6", tau_lagrange(Q, [0, 0], QDD), "velocity terms")
    assert_hint("5.6", gravity, "gravity torques only")
    assert_hint("5.6", tau_lagrange(Q, QD, QDD) + [0, 0.5], "entry [1]")


# ---------------------------------------------------------------- variants of the value exercises
SEEDS = (101, 202, 303, 404)
VARIANT_IDS = ("5.1", "5.2", "5.4", "5.5", "5.6", "5.8a", "5.8b")


def variant(eid, seed):
    return get(eid).params_for(np.random.default_rng(seed))


def correct_at(eid, answer, params):
    v = judge(get(eid), [answer], [()], params)
    assert v.verdict == "correct", (eid, params, v)


def hint_at(eid, answer, params, *words):
    v = judge(get(eid), [answer], [()], params)
    assert v.verdict == "wrong", (eid, params, v)
    for w in words:
        assert w in v.hint, (eid, params, w, v.hint)


def test_which_exercises_have_variants():
    for eid in VARIANT_IDS:
        assert get(eid).variant is not None and get(eid).params, eid
    assert get("5.3").variant is None  # the parallelogram's change points: the same for everyone
    assert get("5.7").hidden_cases is not None and get("5.7").function_name == "passive_rate_matrix"


@pytest.mark.parametrize("eid", VARIANT_IDS)
def test_variant_keys_differ_between_students_and_from_the_public_key(eid):
    ex = get(eid)
    keys = [np.asarray(ex.key(), dtype=float)] + [np.asarray(ex.key(params=variant(eid, s)), dtype=float)
                                                  for s in SEEDS]
    for i in range(len(keys)):
        for j in range(i):
            assert not np.allclose(keys[i], keys[j], rtol=1e-3), (eid, i, j)


@pytest.mark.parametrize("seed", SEEDS)
def test_5_1_5_2_variants_by_the_loop_written_here(seed):
    p = variant("5.1", seed)
    q = np.asarray(p["q"])
    answer = np.array([q[1] + math.pi, q[0]])
    np.testing.assert_allclose(loop(q, *answer), 0, atol=1e-14)
    A, E = L3 * e(q[1]), L1 * e(q[0])
    u, w = E - A, A + L4 * e(answer[1]) - A
    assert u[0] * w[1] - u[1] * w[0] > 0  # B to the left of A -> E: the model's branch
    correct_at("5.1", answer, p)
    correct_at("5.1", answer - [2 * math.pi, 0], p)
    hint_at("5.1", [q[1], q[0]], p, "OTHER way")
    hint_at("5.1", [q[1] - q[0] + math.pi, q[0]], p, "ABSOLUTE")
    hint_at("5.1", [q[0], q[1] + math.pi], p, "order")
    hint_at("5.1", [q[1] + math.pi, q[1]], p, "parallel to the upper arm")
    hint_at("5.1", np.degrees(answer), p, "degrees")
    assert "degrees" in get("5.1").sanity(np.degrees(answer), **p)
    assert "close the loop" in get("5.1").sanity([q[1] + math.pi, q[1]], **p)
    assert get("5.1").sanity(answer, **p) is None and get("5.1").sanity(answer + 2 * math.pi, **p) is None

    p = variant("5.2", seed)
    q, qd = np.asarray(p["q"]), np.asarray(p["qd"])
    rates = np.array([qd[1], qd[0]])
    perp = np.array([[0.0, -1.0], [1.0, 0.0]])
    th2, th4 = q[1] + math.pi, q[0]
    dphi = L3 * qd[1] * perp @ e(q[1]) + L4 * rates[1] * perp @ e(th4) - L1 * qd[0] * perp @ e(q[0]) \
        - rates[0] * perp @ rot(th2, B2)
    np.testing.assert_allclose(dphi, 0, atol=1e-14)
    correct_at("5.2", rates, p)
    hint_at("5.2", qd, p, "swapped")
    hint_at("5.2", [qd[1] - qd[0], qd[0]], p, "relative")
    hint_at("5.2", [-qd[1], qd[0]], p, "sign")


@pytest.mark.parametrize("seed", SEEDS)
def test_5_4_variants_by_lagrange(seed):
    p = variant("5.4", seed)
    _, M12, (s1, s2, m2, m4) = lagrange()
    c = float(M12.subs({s1: 0, s2: 0, m2: p["m2"], m4: p["m4"]}))
    m4_dec = float(sp.solve(M12.subs({s1: 0, s2: 0, m2: p["m2"]}), m4)[0])
    correct_at("5.4", [c, m4_dec], p)
    a, b = p["m2"] * L1 * D_[1], p["m4"] * L3 * D_[3]  # the forearm's and the coupler's terms
    assert math.isclose(c, b - a, rel_tol=1e-12)
    hint_at("5.4", [a + b, 10.0], p, "sign of the forearm")
    hint_at("5.4", [a - b, 10.0], p, "signs are swapped")
    hint_at("5.4", [-a, 10.0], p, "coupler is missing")
    hint_at("5.4", [b, 10.0], p, "forearm is missing")
    hint_at("5.4", [b - p["m2"] * L1 * L2, 10.0], p, "not its length")
    hint_at("5.4", [c, m4_dec + 1.0], p, "entry [1]")
    assert "positive" in get("5.4").sanity([c, -m4_dec], **p)
    assert get("5.4").sanity([c, m4_dec], **p) is None


@pytest.mark.parametrize("seed", SEEDS)
def test_5_5_5_6_variants_by_lagrange(seed):
    p = variant("5.5", seed)
    q = np.asarray(p["q"])
    G_ = tau_lagrange(q, [0, 0], [0, 0])
    correct_at("5.5", G_, p)
    hint_at("5.5", -G_, p, "HOLD")
    hint_at("5.5", tau_lagrange(q, [0, 0], [0, 0], m4=0.0), p, "coupler")
    hint_at("5.5", G_ + [0, 2 * M_[1] * D_[1] * G * math.cos(q[1])], p, "BEHIND")

    p = variant("5.6", seed)
    q, qd, qdd = (np.asarray(p[k]) for k in ("q", "qd", "qdd"))
    tau = tau_lagrange(q, qd, qdd)
    correct_at("5.6", tau, p)
    gravity = tau_lagrange(q, [0, 0], [0, 0])
    hint_at("5.6", tau_lagrange(q, qd, qdd, m4=0.0) - [I_[3] * qdd[0], 0.0], p, "coupler's contribution")
    hint_at("5.6", tau - 2 * gravity, p, "sign of gravity")
    hint_at("5.6", tau_lagrange(q, [0, 0], qdd), p, "velocity terms")
    hint_at("5.6", gravity, p, "gravity torques only")


# ---------------------------------------------------------------- general four-bars, written here (5.7, 5.8)
L4G, B2G = 0.58, np.array([-0.20, 0.0])
D2G, D4G = np.array([0.20, 0.02]), np.array([0.30, -0.015])


def phi_general(th_p, q, L1=L1, L3=L3, L4=L4G, b2=B2G):
    """Φ = A + L4 e(θ4) − E − R(θ2) b2 at the active angles q."""
    return L3 * e(q[1]) + L4 * e(th_p[1]) - L1 * e(q[0]) - rot(th_p[0], b2)


def polish(x, q, **geom):
    """Newton steps on Φ(θ_p) = 0 with the passive Jacobian written here (to full precision)."""
    L4_, b2 = geom.get("L4", L4G), geom.get("b2", B2G)
    for _ in range(4):
        pin = rot(x[0], b2)
        J_p = np.column_stack([[pin[1], -pin[0]], L4_ * n(x[1])])
        x = x - np.linalg.solve(J_p, phi_general(x, q, **geom))
    return x


def solve_near(q, guess, **geom):
    """The passive angles that close the loop, by scipy's fsolve from ``guess`` (stays on its branch)."""
    x = polish(fsolve(lambda t: phi_general(t, q, **geom), guess), q, **geom)
    assert np.max(np.abs(phi_general(x, q, **geom))) < 1e-14
    return x


def assemblies(q, **geom):
    """Both assemblies at q, from a grid of starting points: {"left": θ_p, "right": θ_p} (B vs A -> E)."""
    found = {}
    for g2 in np.linspace(-math.pi, math.pi, 6, endpoint=False):
        for g4 in np.linspace(-math.pi, math.pi, 6, endpoint=False):
            with warnings.catch_warnings():  # some starting points lead nowhere: expected
                warnings.simplefilter("ignore", RuntimeWarning)
                x = fsolve(lambda t: phi_general(t, q, **geom), [g2, g4])
            if np.max(np.abs(phi_general(x, q, **geom))) > 1e-8:
                continue
            x = polish(x, q, **geom)
            L1_, L3_, L4_ = geom.get("L1", L1), geom.get("L3", L3), geom.get("L4", L4G)
            A, E = L3_ * e(q[1]), L1_ * e(q[0])
            B = A + L4_ * e(x[1])
            side = "left" if (E - A)[0] * (B - A)[1] - (E - A)[1] * (B - A)[0] > 0 else "right"
            found[side] = np.mod(x + math.pi, 2 * math.pi) - math.pi
    assert set(found) == {"left", "right"}
    return found


def same_angles(a, b, atol=1e-9):
    d = np.mod(np.asarray(a) - np.asarray(b) + math.pi, 2 * math.pi) - math.pi
    return bool(np.all(np.abs(d) < atol))


def B_by_differences(L1, L3, L4, b2, theta, h=1e-6):
    """∂θ_p/∂q by central differences of the closure solved here, from the case's assembly."""
    geom = {"L1": L1, "L3": L3, "L4": L4, "b2": np.asarray(b2)}
    q, th_p = np.asarray(theta)[[0, 2]], np.asarray(theta)[[1, 3]]
    cols = []
    for dq in np.eye(2) * h:
        cols.append((solve_near(q + dq, th_p, **geom) - solve_near(q - dq, th_p, **geom)) / (2 * h))
    return np.column_stack(cols)


def B_cramer(L1, L3, L4, b2, theta):
    """A student's B: the loop differentiated by hand, the 2 x 2 system solved by Cramer's rule."""
    t1, t2, t3, t4 = theta
    bx, by = b2
    px, py = math.cos(t2) * bx - math.sin(t2) * by, math.sin(t2) * bx + math.cos(t2) * by  # R(θ2) b2
    Jp = [[py, -L4 * math.sin(t4)], [-px, L4 * math.cos(t4)]]  # columns -z x R b2, L4 e⊥(θ4)
    Ja = [[L1 * math.sin(t1), -L3 * math.sin(t3)], [-L1 * math.cos(t1), L3 * math.cos(t3)]]
    det = Jp[0][0] * Jp[1][1] - Jp[0][1] * Jp[1][0]
    inv = [[Jp[1][1] / det, -Jp[0][1] / det], [-Jp[1][0] / det, Jp[0][0] / det]]
    return np.array([[-sum(inv[i][k] * Ja[k][j] for k in range(2)) for j in range(2)] for i in range(2)])


def hidden(seed):
    return get("5.7").grading_cases(np.random.default_rng(seed))


# ---------------------------------------------------------------- 5.7
@pytest.mark.parametrize("where", ["public", 1, 2, 3])
def test_5_7_reference_is_the_derivative_of_the_closure(where):
    cases = get("5.7").grading_cases(None) if where == "public" else hidden(where)
    for case in cases:
        L1_, L3_, L4_, b2, theta = case
        residual = phi_general(theta[[1, 3]], theta[[0, 2]], L1_, L3_, L4_, b2)
        np.testing.assert_allclose(residual, 0, atol=1e-12)
        B = get("5.7").key(*case)
        np.testing.assert_allclose(B, B_by_differences(*case), atol=1e-7)
        np.testing.assert_allclose(B, B_cramer(*case), atol=1e-12)


def test_5_7_hidden_cases_are_random_four_bars_away_from_change_points():
    a, b = hidden(1), hidden(2)
    assert len(a) == 6 and not np.allclose(a[0][4], b[0][4])
    for case in a + b:
        L1_, L3_, L4_, b2, theta = case
        J_p = np.column_stack([-(np.array([[0, -1], [1, 0]]) @ rot(theta[1], b2)), L4_ * n(theta[3])])
        assert abs(np.linalg.det(J_p)) >= 0.3 * np.hypot(*b2) * L4_ - 1e-12
    assert any(abs(c[3][1]) > 0.01 for c in a)  # pins off the forearm's axis
    L1_, L3_, L4_, b2, theta = a[-1]  # a parallelogram: B is the swap
    assert L4_ == L1_ and np.allclose(b2, [-L3_, 0])
    np.testing.assert_allclose(get("5.7").key(*a[-1]), [[0, 1], [1, 0]], atol=1e-12)
    assert [type(x) for x in a[0]] == [float, float, float, np.ndarray, np.ndarray]  # JSON-able inputs


def test_5_7_a_right_function_is_correct_on_the_public_and_the_hidden_cases():
    assert_correct("5.7", B_cramer)
    ex = get("5.7")
    for seed in (1, 2, 3):
        cases = hidden(seed)
        assert judge(ex, [B_cramer(*c) for c in cases], cases, {}).verdict == "correct"


def test_5_7_a_function_right_only_on_the_public_cases_is_wrong_on_the_hidden_ones():
    table = {tuple(np.round(c[4], 12)): get("5.7").key(*c) for c in get("5.7").grading_cases(None)}

    def lookup(L1, L3, L4, b2, theta):
        return table.get(tuple(np.round(theta, 12)), np.eye(2))

    assert_correct("5.7", lookup)
    cases = hidden(4)
    assert judge(get("5.7"), [lookup(*c) for c in cases], cases, {}).verdict == "wrong"


WRONG_B = {
    "B_rel = B - I": lambda *c: B_cramer(*c) - np.eye(2),
    "wrong block": lambda L1, L3, L4, b2, th: -np.linalg.solve(
        np.column_stack([-L1 * n(th[0]), L3 * n(th[2])]),
        np.column_stack([-(np.array([[0, -1], [1, 0]]) @ rot(th[1], b2)), L4 * n(th[3])])),
    "sign is wrong": lambda *c: -B_cramer(*c),
    "transposed": lambda *c: B_cramer(*c).T,
    "rows are swapped": lambda *c: B_cramer(*c)[::-1],
    "columns are swapped": lambda *c: B_cramer(*c)[:, ::-1],
    "R(theta2) b2 from E": lambda L1, L3, L4, b2, th: B_cramer(L1, L3, L4, rot(-th[1], b2), th),
    "forearm's column has the wrong sign": lambda L1, L3, L4, b2, th: B_cramer(L1, L3, L4, -np.asarray(b2),
                                                                                [th[0], th[1], th[2], th[3]]),
    "both of its components": lambda L1, L3, L4, b2, th: B_cramer(L1, L3, L4, [-np.hypot(*b2), 0.0], th),
}


@pytest.mark.parametrize("words", list(WRONG_B))
def test_5_7_mistakes_on_the_public_and_the_hidden_cases(words):
    wrong = WRONG_B[words]
    assert_hint("5.7", wrong, words)
    for seed in (1, 2):
        cases = hidden(seed)
        v = judge(get("5.7"), [wrong(*c) for c in cases], cases, {})
        assert v.verdict == "wrong" and words in v.hint, v


def test_5_7_other_wrong_functions():
    v = evaluate("5.7", lambda *c: B_cramer(*c)[0])
    assert v.verdict == "wrong" and "shape" in v.hint
    v = evaluate("5.7", lambda *c: B_cramer(*c) + np.array([[0, 0], [0, 0.3]]))
    assert v.verdict == "wrong" and "entry [1, 1]" in v.hint
    assert evaluate("5.7", lambda *c: None).verdict == "unanswered"
    assert evaluate("5.7", lambda L1, L3: 1).verdict == "error"


# ---------------------------------------------------------------- 5.8a
def q_of(params):
    return np.radians(params["q_deg"])


@pytest.mark.parametrize("seed", (None, *SEEDS))
def test_5_8a_passive_angles_by_the_closure_solved_here(seed):
    p = dict(get("5.8a").params) if seed is None else variant("5.8a", seed)
    both = assemblies(q_of(p))
    assert same_angles(get("5.8a").key(params=p), both["left"])
    answer = both["left"]
    correct_at("5.8a", answer, p)
    correct_at("5.8a", answer + [2 * math.pi, -2 * math.pi], p)
    hint_at("5.8a", both["right"], p, "OTHER assembly")
    hint_at("5.8a", both["right"] + [2 * math.pi, 0], p, "OTHER assembly")
    hint_at("5.8a", answer - q_of(p), p, "ABSOLUTE")
    hint_at("5.8a", answer[::-1], p, "order")
    hint_at("5.8a", answer + [math.pi, 0], p, "b2 points backwards")
    hint_at("5.8a", answer - [math.pi, 0], p, "b2 points backwards")
    hint_at("5.8a", np.degrees(answer), p, "degrees")
    hint_at("5.8a", np.degrees(answer) + [360, 0], p, "degrees")
    hint_at("5.8a", answer + [0, 0.01], p, "entry [1]")


def test_5_8a_sanity_needs_no_key():
    p = variant("5.8a", 7)
    both, sanity = assemblies(q_of(p)), get("5.8a").sanity
    assert sanity(both["left"], **p) is None and sanity(both["right"], **p) is None  # both close the loop
    assert "close the loop" in sanity(both["left"] - q_of(p), **p)
    assert "close the loop" in sanity(both["left"][::-1], **p)
    assert "degrees" in sanity(np.degrees(both["left"]) + 400, **p)


def test_5_8a_pending_check_in_a_released_notebook():
    p = variant("5.8a", 8)
    both = assemblies(q_of(p))
    core.use_variant(core.encode_variant("s1", 5, {"5.8a": p}))
    try:
        assert np.allclose(core.params("5.8a")["q_deg"], p["q_deg"])
        v = core._pending(get("5.8a"), both["left"])
        assert v.verdict == "pending" and "at grading" in v.hint
        v = core._pending(get("5.8a"), both["left"] - q_of(p))
        assert v.verdict == "wrong" and "close the loop" in v.hint
    finally:
        core._VARIANT.clear()


# ---------------------------------------------------------------- 5.8b
MASSES = dict(zip(("m1", "m2", "m3", "m4"), M_, strict=True))


def potential(q, branch="left", d2=D2G, d4=D4G, guess=None):
    """V = g Σ m y_C of the general arm, its passive angles solved here (near ``guess`` if given)."""
    th2, th4 = assemblies(q)[branch] if guess is None else solve_near(q, guess)
    y = [rot(q[0], [D_[0], 0])[1], L1 * math.sin(q[0]) + rot(th2, d2)[1], rot(q[1], [D_[2], 0])[1],
         L3 * math.sin(q[1]) + rot(th4, d4)[1]]
    return G * sum(m * yy for m, yy in zip(M_, y, strict=True))


def G_by_differences(q, branch="left", h=1e-6, **kw):
    guess = assemblies(q)[branch]
    out = []
    for dq in np.eye(2) * h:
        plus = potential(q + dq, guess=guess, **kw)
        minus = potential(q - dq, guess=guess, **kw)
        out.append((plus - minus) / (2 * h))
    return np.array(out)


@pytest.mark.parametrize("seed", (None, *SEEDS[:3]))
def test_5_8b_holding_torques_are_the_gradient_of_the_potential(seed):
    p = dict(get("5.8b").params) if seed is None else variant("5.8b", seed)
    q = q_of(p)
    tau = G_by_differences(q)
    np.testing.assert_allclose(get("5.8b").key(params=p), tau, atol=1e-6)
    tau = get("5.8b").key(params=p)  # (the differences carry ~1e-8 of round-off)
    correct_at("5.8b", tau, p)
    th2, th4 = assemblies(q)["left"]
    x = lambda a, d: rot(a, d)[0]  # noqa: E731 - dy_C/dθ of R(θ) d
    own = G * np.array([M_[0] * x(q[0], [D_[0], 0]), M_[2] * x(q[1], [D_[2], 0])])
    hint_at("5.8b", -tau, p, "HOLD")
    hint_at("5.8b", tau - G * np.array([M_[1] * x(th2, D2G), M_[3] * x(th4, D4G)]), p, "B_rel")
    hint_at("5.8b", G_by_differences(q, "right"), p, "OTHER assembly")
    hint_at("5.8b", own + G * np.array([M_[1] * L1 * math.cos(q[0]), M_[3] * L3 * math.cos(q[1])]), p,
            "turn when the motors turn")
    hint_at("5.8b", own, p, "weights of the forearm and the coupler are missing")
    hint_at("5.8b", G_by_differences(q, d2=D2G * [1, 0], d4=D4G * [1, 0]), p, "off their links' axes")
    hint_at("5.8b", G_by_differences(np.asarray(p["q_deg"])), p, "degrees")
    hint_at("5.8b", tau + [0, 0.5], p, "entry [1]")


# ---------------------------------------------------------------- hints never give the key away
def _numbers_of(key) -> set[str]:
    """The key's entries as a hint could print them (3 to 5 significant digits, at least 3 digits)."""
    texts = {f"{x:.{k}g}" for x in np.ravel(key) for k in (3, 4, 5)}
    return {t for t in texts if sum(ch.isdigit() for ch in t) >= 3}


@pytest.mark.parametrize("eid", [e.id for e in exercises(5) if not e.is_function])
def test_no_hint_prints_the_key(eid):
    ex = get(eid)
    for params in [dict(ex.params)] + ([variant(eid, s) for s in SEEDS[:2]] if ex.variant else []):
        key = np.asarray(ex.key(params=params), dtype=float)
        hints = [m.hint for m in ex.mistakes]
        for scale in (1.1, -1.0, 2.0, 0.5):  # generic diagnoses of wrong answers
            hints.append(judge(ex, [key * scale + 0.01], [()], params).hint)
        numbers = _numbers_of(key)
        for h in hints:
            for number in numbers:
                assert number not in h, (eid, number, h)


# ---------------------------------------------------------------- a class graded end to end
@pytest.mark.slow
def test_released_chapter_graded_for_a_class(tmp_path):
    """Release the solution for three students, grade with the secret: each own notebook is correct
    everywhere; a student who hands in another's notebook is wrong on every variant exercise."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,file\ns1,Ann,ann.ipynb\ns2,Bo,bo.ipynb\ns3,Cy,cy.ipynb\n")
    secret = tmp_path / "secret"
    secret.write_text("a-course-secret-for-chapter-5-0123456789")
    solution = Path(__file__).resolve().parents[1] / "solutions" / "ch05_fourbar_arm.ipynb"
    released = release_variants(solution, roster, secret, tmp_path / "rel", allow_solutions=True)
    subs = tmp_path / "subs"
    subs.mkdir()
    for path in released[:2]:
        (subs / path.name).write_bytes(path.read_bytes())
    (subs / "cy.ipynb").write_bytes(released[0].read_bytes())  # Cy hands in Ann's notebook
    out = tmp_path / "grades.csv"
    grade([subs], out, timeout=120, workers=2, roster=roster, secret_file=secret, log=lambda *a: None)
    rows = {(r["student"], r["exercise"]): r["verdict"] for r in csv.DictReader(out.open(encoding="utf-8"))}
    ids = [x.id for x in exercises(5)]
    for s in ("s1", "s2"):
        assert [rows[s, i] for i in ids] == ["correct"] * len(ids), s
    for i in ids:
        expected = "wrong" if get(i).variant is not None else "correct"  # 5.3 is the same for all; 5.7 a
        assert rows["s3", i] == expected, i                              # function graded on hidden cases


# ---------------------------------------------------------------- never crash, never accept junk


JUNK = [None, math.nan, [math.nan] * 2, "answer", 42, True, [True, True], np.zeros((2, 2)),
        np.full(2, np.inf), {"a": 1}, Exploding(), lambda *a: 1 / 0, sp.Symbol("zz"), sp.zeros(2, 1), sp.nan]


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_never_crashes_never_correct(answer):
    assert_never_crashes_never_correct(5, answer)


# ---------------------------------------------------------------- practice inside the pages (5.P1-5.P5)
def test_chapter_5_practice_exercises():
    exs = practice_exercises(5)
    assert [x.id for x in exs] == [f"5.P{k}" for k in range(1, 6)]
    for x in exs:
        assert x.points == 0 and x.variant is None and x.mistakes, x.id


P1_Q = np.radians([30.0, 45.0])
P1_L, P1_M = (0.5, 0.4), (3.0, 2.0)


def two_link_potential(q, d=(0.25, 0.2), absolute=True):
    """V of the two rods of 5.P1 (centres at d along them), written here; q2 relative to link 1."""
    y1 = d[0] * math.sin(q[0])
    y2 = P1_L[0] * math.sin(q[0]) + d[1] * math.sin(q[0] + q[1])
    return G * (P1_M[0] * y1 + P1_M[1] * y2)


def gradient(f, q, h=1e-6):
    return np.array([(f(q + h * dq) - f(q - h * dq)) / (2 * h) for dq in np.eye(2)])


def test_5_P1_holding_torques_are_the_gradient_of_the_potential():
    tau = gradient(two_link_potential, P1_Q)
    assert_correct("5.P1", tau)
    assert_correct("5.P1", [float(t) for t in tau])


def test_5_P1_mistakes():
    tau = gradient(two_link_potential, P1_Q)
    assert_hint("5.P1", -tau, "sign")
    link1_alone = G * P1_M[0] * 0.25 * math.cos(P1_Q[0])
    assert_hint("5.P1", [link1_alone, tau[1]], "link 2's weight")
    # the student's formulas with link 2 pointing along q2 (its relative angle) instead of q1 + q2
    wrong2 = P1_M[1] * G * 0.2 * math.cos(P1_Q[1])
    wrong1 = G * math.cos(P1_Q[0]) * (P1_M[0] * 0.25 + P1_M[1] * P1_L[0]) + wrong2
    assert_hint("5.P1", [wrong1, wrong2], "RELATIVE")
    tips = gradient(lambda q: two_link_potential(q, d=P1_L), P1_Q)  # centres at the ends
    assert_hint("5.P1", tips, "mid-length")
    assert_hint("5.P1", gradient(two_link_potential, np.array([30.0, 45.0])), "degrees")
    assert_hint("5.P1", tau[::-1], "order")


P2_Q = np.radians([20.0, 75.0])


def S_by_differences(rows="relative"):
    """S of the general four-bar's tree at P2_Q: B by differences of the closure solved here."""
    th_p = assemblies(P2_Q)["left"]
    B = B_by_differences(L1, L3, L4G, B2G, [P2_Q[0], th_p[0], P2_Q[1], th_p[1]])
    passive = B - np.eye(2) if rows == "relative" else B
    return np.vstack([[1.0, 0.0], passive[0], [0.0, 1.0], passive[1]]), passive


def test_5_P2_S_from_the_closure_solved_here():
    S, passive = S_by_differences()
    np.testing.assert_allclose(passive.sum(axis=1), 0.0, atol=1e-8)  # both motors together: rigid
    assert_correct("5.P2", S)


def test_5_P2_mistakes():
    S_abs, B = S_by_differences(rows="absolute")
    assert_hint("5.P2", S_abs, "JOINT angles")
    _, B_rel = S_by_differences()
    assert_hint("5.P2", np.vstack([np.eye(2), B_rel]), "2nd and the 4th")
    assert_hint("5.P2", np.vstack([np.eye(2), B]), "two things")
    assert_hint("5.P2", S_by_differences()[0].T, "shape (4, 2)")


@cache
def mass_matrix_by_energy():
    """M(q2 - q1; m2, d2) of the parallelogram from T of the centres of mass written here."""
    t = sp.Symbol("t")
    q1, q2 = sp.Function("q1")(t), sp.Function("q2")(t)
    m2, d2 = sp.symbols("m2 d2")
    ev = lambda a: sp.Matrix([sp.cos(a), sp.sin(a)])  # noqa: E731
    centres = [D_[0] * ev(q1), L1 * ev(q1) + d2 * ev(q2 + sp.pi), D_[2] * ev(q2),
               L3 * ev(q2) + D_[3] * ev(q1)]
    angles = [q1, q2 + sp.pi, q2, q1]
    masses = [M_[0], m2, M_[2], M_[3]]
    T = sum(m * c.diff(t).dot(c.diff(t)) / 2 + inertia * a.diff(t) ** 2 / 2
            for m, inertia, c, a in zip(masses, I_, centres, angles, strict=True))
    v1, v2, s1, s2 = sp.symbols("v1 v2 s1 s2")
    T = T.subs([(q1.diff(t), v1), (q2.diff(t), v2), (q1, s1), (q2, s2)])
    M = sp.hessian(T, (v1, v2)).applyfunc(sp.simplify)
    return M, (s1, s2, m2, d2)


def test_5_P3_decoupling_centre_from_the_kinetic_energy():
    M, (s1, s2, m2, d2) = mass_matrix_by_energy()
    root = sp.solve(M[0, 1].subs({s1: 0.3, s2: 1.2, m2: 3.0}), d2)
    assert len(root) == 1
    assert_correct("5.P3", float(root[0]))
    assert abs(float(root[0]) - 0.0375) < 1e-12  # m4 L3 d4 / (m2 L1) with the chapter's numbers


def test_5_P3_mistakes():
    m4, d4 = M_[3], D_[3]
    assert_hint("5.P3", m4 * L1 * d4 / (3.0 * L3), "swapped")
    assert_hint("5.P3", 3.0 * L3 * d4 / (m4 * L1), "masses")
    assert_hint("5.P3", m4 * L3 * d4 / (M_[1] * L1), "default")
    assert_hint("5.P3", 37.5, "millimetres")
    assert_hint("5.P3", -0.0375, "sign")


def test_5_P4_rate_after_the_pulse_from_the_impulse_and_M11():
    M, (s1, s2, m2, d2) = mass_matrix_by_energy()
    balanced_d2 = M_[3] * L3 * D_[3] / (M_[1] * L1)
    M11 = float(M[0, 0].subs({m2: M_[1], d2: balanced_d2}))
    assert abs(float(M[0, 1].subs({s1: 0.3, s2: 1.2, m2: M_[1], d2: balanced_d2}))) < 1e-12  # decoupled
    t = np.linspace(0.0, 0.5, 20001)
    impulse = np.trapezoid(2.0 * np.sin(np.pi * t / 0.5) ** 2, t)
    assert_correct("5.P4", impulse / M11)
    M22 = float(M[1, 1].subs({m2: M_[1], d2: balanced_d2}))
    assert_hint("5.P4", 1.0 / M11, "HALF")
    assert_hint("5.P4", impulse / M22, "M11")
    assert_hint("5.P4", impulse / (M11 + M22), "decoupled")
    assert_hint("5.P4", impulse, "impulse")
    assert_hint("5.P4", math.degrees(impulse / M11), "rad/s")


def test_5_P5_change_points_where_the_passive_jacobian_is_singular():
    q1 = math.radians(40.0)
    for q2_deg in (40.0, 220.0):
        q2 = math.radians(q2_deg)
        J_p = np.column_stack([[0.0, 0.0], L4 * n(q1)])  # columns -z x R(θ2) b2 and L4 e⊥(θ4), θ4 = q1
        pin = rot(q2 + math.pi, B2)
        J_p[:, 0] = [pin[1], -pin[0]]
        assert abs(np.linalg.det(J_p)) < 1e-12
        with pytest.raises(SingularityError):
            fourbar_arm().inverse_dynamics([q1, q2], [0.0, 0.0], [0.0, 0.0])
    assert_correct("5.P5", [40.0, 220.0])
    assert_correct("5.P5", [220.0, 40.0])
    assert_hint("5.P5", [0.0, 180.0], "q2 itself")
    assert_hint("5.P5", [130.0, 310.0], "best-conditioned")
    assert_hint("5.P5", np.radians([40.0, 220.0]), "degrees")
    assert_hint("5.P5", [40.0, 400.0], "same pose")


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_practice_never_crashes_never_correct(answer):
    for ex in practice_exercises(5):
        v = evaluate(ex.id, answer)
        assert v.verdict in ("wrong", "unanswered", "error"), (ex.id, v)
        assert v.points == 0 and (v.verdict == "unanswered") == (answer is None)
