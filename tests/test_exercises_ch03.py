"""Chapter 3 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: loop-closure equations in relative (joint-angle) coordinates and
their rank (3.1-3.2); the revolute joint written with complex numbers and differentiated in
time by sympy (3.3-3.5); explicit first integrals and the Lie bracket of the allowed
motions (3.6); a Baumgarte-stabilized simulation whose violation follows the answer's roots
(3.7); Newton-Euler equations of the rod solved with the pin's acceleration condition
(3.8).  The wrong answers are built in this file, not taken from the registry.
"""

import math

import numpy as np
import pytest
import sympy as sp
from exercise_helpers import Exploding, assert_correct, assert_hint, assert_never_crashes_never_correct

from mbdlib.constraints import KnifeEdge, RackPinion
from mbdlib.dae import CartesianPendulum, simulate
from mbdlib.exercises import exercises, get
from mbdlib.exercises.ch03 import MECHANISMS, build_mechanism, frobenius_integrable


def test_chapter_3_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(3)
    assert len(exs) >= 6
    assert [e.id for e in exs] == [f"3.{i}" for i in range(1, len(exs) + 1)]
    for e in exs:
        assert e.points > 0 and len(e.mistakes) >= 2, e.id


# ---------------------------------------------------------------- 3.1, 3.2 degrees of freedom
# the statement's table: (moving bodies, revolute joints, prismatic joints)
TABLE = {"slider-crank": (3, 3, 1), "four-bar": (3, 4, 0), "parallelogram": (4, 6, 0), "five-bar": (4, 5, 0)}


def _e(angle):
    return sp.Matrix([sp.cos(angle), sp.sin(angle)])


def _angle(P, Q):
    return math.atan2(Q[1] - P[1], Q[0] - P[0])


def _length(P, Q):
    return math.hypot(Q[0] - P[0], Q[1] - P[1])


def loop_equations():
    """Each mechanism in relative coordinates (bar angles, slider travel, coupler pose).

    Returns {name: (Φ, q, q at the drawn pose)}.
    """
    O, A, B, C = (0.0, 0.0), (0.1, 0.2), (0.5, 0.3), (0.6, 0.0)
    t1, t2, t3, t4, s, X, Y, psi = sp.symbols("t1 t2 t3 t4 s X Y psi", real=True)
    out = {}
    # slider-crank: O + l1 e(t1) + l2 e(t2) = (s, 0)
    Bs = (0.5, 0.0)
    phi = _length(O, A) * _e(t1) + _length(A, Bs) * _e(t2) - sp.Matrix([s, 0])
    out["slider-crank"] = (phi, [t1, t2, s], [_angle(O, A), _angle(A, Bs), 0.5])
    # four-bar: O + l1 e(t1) + l2 e(t2) = C + l3 e(t3)
    phi = _length(O, A) * _e(t1) + _length(A, B) * _e(t2) - sp.Matrix(C) - _length(C, B) * _e(t3)
    out["four-bar"] = (phi, [t1, t2, t3], [_angle(O, A), _angle(A, B), _angle(C, B)])
    # parallelogram: each crank's tip = a point of the coupler (centre (X, Y), angle psi)
    eqs = []
    for base, top in (((0.0, 0.0), -0.5), ((0.5, 0.0), 0.0), ((1.0, 0.0), 0.5)):
        crank = sp.Matrix(base) + math.hypot(0.2, 0.3) * _e({0.0: t1, 0.5: t2, 1.0: t3}[base[0]])
        eqs.append(crank - sp.Matrix([X, Y]) - top * _e(psi))
    a = math.atan2(0.3, 0.2)
    out["parallelogram"] = (sp.Matrix.vstack(*eqs), [t1, t2, t3, X, Y, psi], [a, a, a, 0.7, 0.3, 0.0])
    # five-bar: O + l1 e1 + l2 e2 + l3 e3 = E + l4 e4
    P = [(0.0, 0.0), (-0.1, 0.3), (0.3, 0.5), (0.7, 0.3)]
    E = (0.6, 0.0)
    phi = sum((_length(P[i], P[i + 1]) * _e(t) for i, t in enumerate((t1, t2, t3))), sp.zeros(2, 1))
    phi = phi - sp.Matrix(E) - _length(E, P[3]) * _e(t4)
    out["five-bar"] = (phi, [t1, t2, t3, t4], [_angle(P[i], P[i + 1]) for i in range(3)] + [_angle(E, P[3])])
    return out


def test_mechanism_data_match_the_statement_and_close():
    assert list(MECHANISMS) == list(TABLE)
    for name, (bodies, revs, slides) in TABLE.items():
        spec = MECHANISMS[name]
        assert len(spec["bars"]) + len(spec["blocks"]) == bodies
        assert sum(j[0] == "rev" for j in spec["joints"]) == revs
        assert sum(j[0] == "slide" for j in spec["joints"]) == slides
        m = build_mechanism(name)  # the given pose is assembled: every joint closes there
        np.testing.assert_allclose(m.phi(m.q_guess()), 0, atol=1e-12)
    for name, (phi, q, q0) in loop_equations().items():  # and so do the loop equations of this file
        at_pose = np.array(phi.subs(dict(zip(q, q0, strict=True))), dtype=float)
        np.testing.assert_allclose(at_pose, 0, atol=1e-12, err_msg=name)


def test_3_1_grubler_counts():
    grubler = np.array([3 * n - 2 * (r + p) for n, r, p in TABLE.values()])
    assert_correct("3.1", grubler)
    assert_correct("3.1", list(grubler))
    n, r, p = (np.array(v) for v in zip(*TABLE.values(), strict=True))
    assert_hint("3.1", 3 * (n + 1) - 2 * (r + p), "ground")
    assert_hint("3.1", 3 * n - (r + p), "removes 2")
    assert_hint("3.1", 3 * n - 2 * r - p, "prismatic")
    assert_hint("3.1", 6 * n - 5 * (r + p), "SPATIAL")
    assert_hint("3.1", [1, 1, 0], "shape (3,)")


def test_3_2_dof_by_rank_of_the_loop_equations():
    dof = []
    for phi, q, q0 in loop_equations().values():
        J = np.array(phi.jacobian(q).subs(dict(zip(q, q0, strict=True))), dtype=float)
        dof.append(len(q) - np.linalg.matrix_rank(J, tol=1e-9))
    assert dof == [1, 1, 1, 2]
    assert_correct("3.2", dof)
    assert_hint("3.2", [1, 1, 0, 2], "Grübler", "redundant")
    n = np.array([3 * v[0] for v in TABLE.values()])
    assert_hint("3.2", n - np.array(dof), "ranks")
    assert_hint("3.2", [8, 8, 12, 10], "numbers of constraint equations")
    assert_hint("3.2", [1, 1, 2, 2], "entry [2]")


# ---------------------------------------------------------------- 3.3-3.5 the revolute joint
x1, y1, phi1, x2, y2, phi2 = sp.symbols("x1 y1 phi1 x2 y2 phi2", real=True)
xd1, yd1, phid1, xd2, yd2, phid2 = sp.symbols("xd1 yd1 phid1 xd2 yd2 phid2", real=True)
Q, QD = [x1, y1, phi1, x2, y2, phi2], [xd1, yd1, phid1, xd2, yd2, phid2]
S1, S2 = sp.Rational(1, 2), sp.Rational(-3, 10) + sp.I / 5  # the pins as complex numbers s'_x + i s'_y


def phi_complex(rotate=True, conjugate=False):
    """Φ from complex numbers: pin of body k at z_k + s_k e^{i φ_k} (e^{-i φ} when conjugate)."""
    def rot(angle):
        return sp.exp((-1 if conjugate else 1) * sp.I * angle) if rotate else 1

    d = sp.expand_complex(x1 + sp.I * y1 + S1 * rot(phi1) - (x2 + sp.I * y2) - S2 * rot(phi2))
    return sp.Matrix([sp.re(d), sp.im(d)])


def test_3_3_constraint_equations():
    assert_correct("3.3", phi_complex())
    assert_correct("3.3", -phi_complex())  # the other order of the difference: the same constraint
    assert_correct("3.3", [phi_complex()[0], phi_complex()[1]])


def test_3_3_mistakes():
    assert_hint("3.3", phi_complex(rotate=False), "not rotated")
    assert_hint("3.3", -phi_complex(rotate=False), "not rotated")
    assert_hint("3.3", phi_complex(conjugate=True), "-phi")
    d = sp.Matrix([x1, y1]) - sp.Matrix([x2, y2])
    minus_points = 2 * d - phi_complex()  # r1 - A1 s1 - r2 + A2 s2
    assert_hint("3.3", minus_points, "r + A s'")
    assert_hint("3.3", phi_complex().subs(phi2, phi1), "entry")  # one angle for both bodies: generic
    assert_hint("3.3", phi_complex().subs(x1, 1.0), "entry [0]")  # a number where x1 should be
    numbers = dict(zip(Q, (0.1, 0.2, 0.3, 0.4, 0.5, 0.6), strict=True))
    assert_hint("3.3", phi_complex().subs(numbers), "formula in")


def fd_jacobian(f, q, h=1e-6):
    return np.column_stack([(f(q + h * e) - f(q - h * e)) / (2 * h) for e in np.eye(len(q))])


def test_3_4_jacobian():
    Phi_q = phi_complex().jacobian(Q)
    assert_correct("3.4", Phi_q)
    # the reference agrees with finite differences of Phi at a random pose
    f = sp.lambdify([Q], phi_complex(), "numpy")
    ref = sp.lambdify([Q], sp.Matrix(get("3.4").reference()), "numpy")
    q0 = np.random.default_rng(3).uniform(-2, 2, 6)
    np.testing.assert_allclose(ref(q0), fd_jacobian(lambda q: np.asarray(f(q), float).ravel(), q0), atol=1e-8)


def test_3_4_mistakes():
    Phi_q = phi_complex().jacobian(Q)
    no_phi = Phi_q.copy()
    no_phi[:, 2] = no_phi[:, 5] = sp.zeros(2, 1)
    assert_hint("3.4", no_phi, "phi columns are missing")
    assert_hint("3.4", -Phi_q, "-Phi")
    flipped = Phi_q.copy()
    flipped[:, 2], flipped[:, 5] = -Phi_q[:, 2], -Phi_q[:, 5]
    assert_hint("3.4", flipped, "wrong sign", "dA/dphi")
    body2 = Phi_q.copy()
    body2[:, 5] = -Phi_q[:, 5]
    assert_hint("3.4", body2, "phi2 column")
    assert_hint("3.4", Phi_q.T, "transposed")
    assert_hint("3.4", Phi_q[:, :3], "shape (2, 3)")


def gamma_by_time_derivatives():
    """γ = Φ_q q̈ - Φ̈, with Φ̈ from sympy's d/dt of Φ(q(t))."""
    t = sp.Symbol("t")
    funcs = [sp.Function(f"q{i}")(t) for i in range(6)]
    phi_t = phi_complex().subs(dict(zip(Q, funcs, strict=True)))
    acc = phi_t.diff(t, 2)
    second = {f.diff(t, 2): 0 for f in funcs}  # q̈ = 0 leaves −γ
    first = {f.diff(t): v for f, v in zip(funcs, QD, strict=True)}
    back = dict(zip(funcs, Q, strict=True))
    return -acc.subs(second).subs(first).subs(back)


def test_3_5_gamma():
    gamma = gamma_by_time_derivatives()
    assert gamma.free_symbols <= {phi1, phi2, phid1, phid2}
    assert_correct("3.5", gamma)
    assert_correct("3.5", sp.expand(gamma))


def test_3_5_mistakes():
    gamma = gamma_by_time_derivatives()
    assert_hint("3.5", -gamma, "sign")
    assert_hint("3.5", 2 * gamma, "factor of 2")
    assert_hint("3.5", gamma.subs({phid1: sp.sqrt(phid1), phid2: sp.sqrt(phid2)}), "SQUARED")
    # along B s' (the tangential direction): the rows of R (A s') phi_d^2
    tangential = sp.Matrix([-gamma[1], gamma[0]])
    assert_hint("3.5", tangential, "along A s'")
    assert_hint("3.5", sp.zeros(2, 1), "not zero")
    assert_hint("3.5", gamma + sp.Matrix([xd1, 0]), "contains xd1")


# ---------------------------------------------------------------- 3.6 holonomic or not
x, y, z, phi = sp.symbols("x y z phi", real=True)
RHO = sp.Rational(3, 10)
FORMS = [  # (a, coordinates), as in the statement
    ((1, RHO), (x, phi)),
    ((-sp.sin(phi), sp.cos(phi), 0), (x, y, phi)),
    ((y, -x), (x, y)),
    ((x, y, z), (x, y, z)),
    ((-y, 0, 1), (x, y, z)),
    ((-y, -x, 1), (x, y, z)),
]
# holonomic ones: an integrating factor mu and a first integral f with mu a = grad f
INTEGRALS = {0: (1, x + RHO * phi), 2: (1 / y**2, x / y), 3: (1, (x**2 + y**2 + z**2) / 2), 5: (1, z - x * y)}


def _bracket(X, Y, q):
    """Lie bracket [X, Y] = (∂Y/∂q) X − (∂X/∂q) Y."""
    return Y.jacobian(q) * X - X.jacobian(q) * Y


def test_3_6_classification_by_first_integrals_and_lie_brackets():
    expected = []
    for k, (a, q) in enumerate(FORMS):
        a = sp.Matrix(a)
        if k in INTEGRALS:
            mu, f = INTEGRALS[k]
            assert sp.simplify(mu * a - sp.Matrix([f]).jacobian(q).T) == sp.zeros(len(q), 1), k
            expected.append(True)
            continue
        # the allowed velocities span the null space of a; if [X, Y] leaves it, every q is reachable (Chow)
        X, Y = a.T.nullspace()
        det = sp.simplify(sp.Matrix.hstack(X, Y, _bracket(X, Y, sp.Matrix(q))).det())
        assert det != 0, k
        expected.append(False)
    assert_correct("3.6", expected)
    assert_correct("3.6", np.array(expected, dtype=int))
    # the module's own Frobenius test and the library's joints agree
    assert [frobenius_integrable(a, q) for a, q in FORMS] == expected
    assert RackPinion.nonholonomic is False and KnifeEdge.nonholonomic is True
    knife = KnifeEdge("k", ("b",), (0.0, 0.0), (1.0, 0.0))
    for th in (0.3, 2.0):
        np.testing.assert_allclose(knife.B([0.1, 0.2, th])[0], [-math.sin(th), math.cos(th), 0], atol=1e-14)


def test_3_6_mistakes():
    right = [True, False, True, True, False, True]
    assert_hint("3.6", [False] * 6, "not every constraint")
    assert_hint("3.6", [True] * 6, "knife edge")
    for k, word in enumerate(["(a)", "(b)", "(c)", "(d)", "(e)", "(f)"]):
        wrong = list(right)
        wrong[k] = not wrong[k]
        assert_hint("3.6", wrong, word)
    assert_hint("3.6", right[:5], "shape (5,)")
    assert_hint("3.6", ["holonomic"] * 6, "not numbers")
    assert_hint("3.6", True, "True/False")


# ---------------------------------------------------------------- 3.7 Baumgarte
def violation_of_baumgarte(alpha, beta, t):
    """‖Φ‖ of a Cartesian pendulum started on Φ = 0 with a radial velocity (so Φ̇(0) = −2 L v)."""
    p = CartesianPendulum(length=1.0, angle=0.0)
    v = 0.01
    qd0 = np.array([0.0, -v])  # down, along the rod: Φ̇ = 2 q·q̇ = 2 v L
    res = simulate(p, t[-1], method="baumgarte", alpha=alpha, beta=beta, rtol=1e-11, atol=1e-13, t_eval=t,
                   qd0=qd0)
    return res.violation, 2 * v * p.L


def test_3_7_roots_predict_the_simulated_violation():
    s1, s2, alpha_c = get("3.7").reference()
    t = np.linspace(0.0, 1.0, 41)
    viol, rate0 = violation_of_baumgarte(10.0, 8.0, t)
    # Φ(0) = 0, Φ̇(0) = rate0: Φ(t) = rate0 (e^{s2 t} − e^{s1 t}) / (s2 − s1)
    np.testing.assert_allclose(viol, np.abs(rate0 * (np.exp(s2 * t) - np.exp(s1 * t)) / (s2 - s1)), atol=1e-8)
    # critical damping: a double root −α, Φ = rate0 t e^{−α t}
    viol, rate0 = violation_of_baumgarte(alpha_c, 8.0, t)
    np.testing.assert_allclose(viol, rate0 * t * np.exp(-alpha_c * t), atol=1e-8)
    assert_correct("3.7", [-16.0, -4.0, 8.0])
    assert_correct("3.7", [-4.0, -16.0, 8.0])  # either order of the roots


def test_3_7_mistakes():
    assert_hint("3.7", [4.0, 16.0, 8.0], "GROWS")
    d = math.sqrt(100 - 8)
    assert_hint("3.7", [-10 - d, -10 + d, 8.0], "squared")
    assert_hint("3.7", [-16.0, -4.0, math.sqrt(8)], "squared")
    assert_hint("3.7", [-5.0, -5.0, 8.0], "factor 2")
    assert_hint("3.7", [-16.0, -4.0, -8.0], "grows")
    assert_hint("3.7", [-16.0, -4.0, 16.0], "alpha = beta")
    assert_hint("3.7", [-16.0, -4.0, 64.0], "not beta^2")
    assert_hint("3.7", [-16.0, -4.0], "shape (2,)")
    assert_hint("3.7", [-16.0 + 1e-3j, -4.0, 8.0], "complex")


# ---------------------------------------------------------------- 3.8 pin force
M_ROD, L_ROD, G, TH0 = 2.0, 1.2, 9.81, math.radians(40.0)


def newton_euler_at_release():
    """Unknowns (a_x, a_y, α, F_x, F_y) of the rod at rest: m a = F + m g, J α = d × F, a + α × d = 0.

    d = pin − C (global); at rest the pin's acceleration is a_C + α k × d (no ω² term).
    """
    d = -L_ROD / 2 * np.array([math.sin(TH0), -math.cos(TH0)])
    J = M_ROD * L_ROD**2 / 12
    K = np.array([
        [M_ROD, 0, 0, -1, 0],
        [0, M_ROD, 0, 0, -1],
        [0, 0, J, d[1], -d[0]],  # J α − (d_x F_y − d_y F_x) = 0
        [1, 0, -d[1], 0, 0],  # pin acceleration, x: a_x − α d_y = 0
        [0, 1, d[0], 0, 0],  # y: a_y + α d_x = 0
    ])
    rhs = np.array([0.0, -M_ROD * G, 0.0, 0.0, 0.0])
    sol = np.linalg.solve(K, rhs)
    return sol[3:], d


def test_3_8_pin_force():
    F, _ = newton_euler_at_release()
    np.testing.assert_allclose(get("3.8").reference(), F, rtol=1e-9)
    assert_correct("3.8", F)
    # sanity: the force balances neither the weight alone nor is it zero
    assert not np.allclose(F, [0.0, M_ROD * G], atol=1e-3)


def test_3_8_mistakes():
    F, d = newton_euler_at_release()
    assert_hint("3.8", -F, "sign")
    u = -d / np.linalg.norm(d)  # body x axis: pin -> free end
    body = np.array([u @ F, np.array([-u[1], u[0]]) @ F])
    assert_hint("3.8", body, "body-frame")
    assert_hint("3.8", -body, "body-frame")
    assert_hint("3.8", [0.0, M_ROD * G], "static")
    assert_hint("3.8", [F[0], F[1], d[0] * F[1] - d[1] * F[0]], "third entry")
    assert_hint("3.8", [F[0], 0.0], "entry [1]")


# ---------------------------------------------------------------- never crash, never accept junk


JUNK = [
    None,
    math.nan,
    [math.nan] * 3,
    "answer",
    42,
    True,
    [True, True],
    np.zeros((2, 6)),
    np.full(4, np.inf),
    {"a": 1},
    Exploding(),
    lambda *a: 1 / 0,
    sp.Symbol("zz"),
    sp.zeros(2, 1),
    sp.Matrix([phi1, phid2]),
    sp.nan,
]


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_never_crashes_never_correct(answer):
    assert_never_crashes_never_correct(3, answer)
