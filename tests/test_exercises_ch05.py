"""Chapter 5 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: the loop closed by hand-written geometry (5.1), finite differences
of the passive angles and the loop's velocity equation written here (5.2), the
determinant of the hand-written passive Jacobian and the library's SingularityError
(5.3), and Lagrange's equations derived by sympy from the centres of mass written here
(5.4-5.6).  The wrong answers are built in this file, not taken from the registry.
"""

import math
from functools import cache

import numpy as np
import pytest
import sympy as sp
from exercise_helpers import Exploding, assert_correct, assert_hint, assert_never_crashes_never_correct

from mbdlib.errors import SingularityError
from mbdlib.exercises import exercises, get
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


def rot(a, v):
    c, s = math.cos(a), math.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def test_chapter_5_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(5)
    assert len(exs) >= 5
    assert [x.id for x in exs] == [f"5.{i}" for i in range(1, len(exs) + 1)]
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
    assert_hint("5.1", [Q[1] + math.pi, Q[1]], "theta4 = q1")
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
    assert_hint("5.2", [QD[1] - QD[0], QD[0]], "relative rate")
    assert_hint("5.2", [-QD[1], QD[0]], "does not change the rate")


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
    m4 = sp.Symbol("m4")
    ev = lambda a: sp.Matrix([sp.cos(a), sp.sin(a)])  # noqa: E731
    centres = [D_[0] * ev(q1), L1 * ev(q1) + D_[1] * ev(q2 + sp.pi), D_[2] * ev(q2),
               L3 * ev(q2) + D_[3] * ev(q1)]
    angles = [q1, q2 + sp.pi, q2, q1]
    masses = [*M_[:3], m4]
    T = sum(m * c.diff(t).dot(c.diff(t)) / 2 + inertia * a.diff(t) ** 2 / 2
            for m, inertia, c, a in zip(masses, I_, centres, angles, strict=True))
    V = sum(m * G * c[1] for m, c in zip(masses, centres, strict=True))
    Lag = T - V
    tau = [sp.diff(Lag.diff(x.diff(t)), t) - Lag.diff(x) for x in (q1, q2)]
    a1, a2, v1, v2, s1, s2 = sp.symbols("a1 a2 v1 v2 s1 s2")
    subs = [(q1.diff(t, 2), a1), (q2.diff(t, 2), a2), (q1.diff(t), v1), (q2.diff(t), v2), (q1, s1), (q2, s2)]
    tau = [sp.expand(x.subs(subs)) for x in tau]
    M12 = sp.simplify(T.subs(subs[2:]).diff(v1).diff(v2))
    return sp.lambdify((s1, s2, v1, v2, a1, a2, m4), tau), M12, (s1, s2, m4)


def tau_lagrange(q, qd, qdd, m4=M_[3]):
    return np.array(lagrange()[0](*q, *qd, *qdd, m4), dtype=float)


def test_5_4_coefficient_and_decoupling_mass_from_the_kinetic_energy():
    _, M12, (s1, s2, m4) = lagrange()
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


# ---------------------------------------------------------------- never crash, never accept junk


JUNK = [None, math.nan, [math.nan] * 2, "answer", 42, True, [True, True], np.zeros((2, 2)),
        np.full(2, np.inf), {"a": 1}, Exploding(), lambda *a: 1 / 0, sp.Symbol("zz"), sp.zeros(2, 1), sp.nan]


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_never_crashes_never_correct(answer):
    assert_never_crashes_never_correct(5, answer)
