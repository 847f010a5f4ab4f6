"""Chapter 3 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: loop-closure equations in relative (joint-angle) coordinates and
their rank (3.1-3.2); the revolute joint written with complex numbers and differentiated in
time by sympy (3.3-3.5); explicit first integrals and the Lie bracket of the allowed
motions (3.6); a Baumgarte-stabilized simulation whose violation follows the answer's roots,
and sympy's roots (3.7); Newton-Euler equations of the rod solved with the pin's acceleration
condition (3.8); finite differences of Φ(q(t), t) along the motion that the Baumgarte right
side produces, on a driven model (3.9); the pin-in-slot joint derived by sympy (3.10); the
slider-crank's hand counts, its loop written in sympy, and Newton-Euler equations of its three
bodies with the kinematics differentiated by sympy (3.11).  The wrong answers are built in this
file, not taken from the registry; variant exercises are checked at several students' numbers,
function exercises on their hidden cases too.  The slow test grades a released class end to end.
"""

import math
from functools import cache

import numpy as np
import pytest
import sympy as sp
from exercise_helpers import Exploding, assert_correct, assert_hint, assert_never_crashes_never_correct

from mbdlib.constraints import KnifeEdge, PointOnLine, RackPinion
from mbdlib.dae import accelerations, cartesian_pendulum, simulate
from mbdlib.exercises import check, evaluate, exercises, get
from mbdlib.exercises.ch03 import MECHANISMS, build_mechanism, frobenius_integrable
from mbdlib.exercises.core import _VARIANT, encode_variant, judge, outputs_of, use_variant
from mbdlib.planar import PlanarModel
from mbdlib.schemes import Baumgarte
from mbdlib.system import Assembly

SEEDS = (11, 12, 13)  # three students' variants


def student(exercise_id: str, seed: int) -> dict:
    """The parameters of the variant drawn with ``seed``."""
    return get(exercise_id).params_for(np.random.default_rng(seed))


def verdict(exercise_id: str, answer, params: dict | None = None):
    return evaluate(exercise_id, answer, params)


def correct_at(exercise_id: str, answer, params: dict) -> None:
    v = evaluate(exercise_id, answer, params)
    assert v.verdict == "correct", (exercise_id, params, v)


def hint_at(exercise_id: str, answer, params: dict, *words: str) -> None:
    v = evaluate(exercise_id, answer, params)
    assert v.verdict == "wrong", (exercise_id, params, v)
    for w in words:
        assert w in v.hint, (w, v.hint)


def test_chapter_3_exercises_kinds_and_points():
    exs = exercises(3)
    assert [e.id for e in exs] == [f"3.{i}" for i in range(1, 11)] + ["3.11a", "3.11b", "3.11c"]
    for e in exs:
        assert e.points > 0 and len(e.mistakes) >= 2, e.id
    assert sum(e.points for e in exs) == 25
    # counts and a yes/no classification are the same for everyone; every other exercise has variants
    assert {e.id for e in exs if not e.has_variants} == {"3.1", "3.2", "3.6", "3.11a"}
    functions = [e for e in exs if e.is_function]
    assert [e.id for e in functions] == ["3.9", "3.10"]
    assert all(e.hidden_cases is not None and e.variant is None and not e.params for e in functions)
    assert [e.function_name for e in functions] == ["baumgarte_rhs", "pin_in_slot"]


@pytest.mark.parametrize("exercise_id", ["3.3", "3.4", "3.5", "3.7", "3.8", "3.11b", "3.11c"])
def test_variant_keys_differ_and_a_borrowed_answer_is_wrong(exercise_id):
    ex = get(exercise_id)
    drawn = [ex.params] + [student(exercise_id, s) for s in SEEDS]
    keys = [ex.key(params=p) for p in drawn]
    for a, pa in enumerate(drawn):
        assert verdict(exercise_id, keys[a], pa).verdict == "correct"
        for b, pb in enumerate(drawn):
            if a != b:
                assert pa != pb
                assert verdict(exercise_id, keys[a], pb).verdict == "wrong", (exercise_id, pa, pb)


def _numbers_in(text: str) -> set[str]:
    return set(__import__("re").findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", text))


@pytest.mark.parametrize("exercise_id", [e.id for e in exercises(3) if not e.is_function])
def test_hints_never_print_the_key(exercise_id):
    """No hint (registered or generic) shows a non-integer entry of the expected answer."""
    ex = get(exercise_id)
    drawn = [ex.params] + ([student(exercise_id, s) for s in SEEDS] if ex.variant else [])
    for p in drawn:
        key = ex.key(params=p)
        try:
            values = np.asarray(key, dtype=float).reshape(-1)
        except TypeError:  # a formula: its numbers are the statement's data
            continue
        forms = set()
        for v in values:
            if abs(v) > 1e-9 and not float(v).is_integer():
                forms |= {f"{v:.{k}g}" for k in range(3, 8)} | {f"{v:.{k}f}" for k in range(2, 5)}
        forms = {f for f in forms if not float(f).is_integer()}  # "2" is a factor of 2, not a key
        hints = [m.hint for m in ex.mistakes]
        for wrong in (values * 1.1, values + 0.37, -values, values[::-1]):
            hints.append(verdict(exercise_id, wrong.reshape(np.shape(key)), p).hint)
        for h in hints:
            shown = _numbers_in(h)
            assert not (shown & {f.lstrip("-") for f in forms} or shown & forms), (exercise_id, h, forms)


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
PUBLIC_PINS = {"s1": [0.5, 0.0], "s2": [-0.3, 0.2]}  # the statement's numbers


def pins(params=None):
    """The pins as complex numbers s'_x + i s'_y (exact rationals)."""
    p = PUBLIC_PINS if params is None else params
    return tuple(sp.nsimplify(p[k][0]) + sp.I * sp.nsimplify(p[k][1]) for k in ("s1", "s2"))


def phi_complex(params=None, rotate=True, conjugate=False):
    """Φ from complex numbers: pin of body k at z_k + s_k e^{i φ_k} (e^{-i φ} when conjugate)."""
    S1, S2 = pins(params)

    def rot(angle):
        return sp.exp((-1 if conjugate else 1) * sp.I * angle) if rotate else 1

    d = sp.expand_complex(x1 + sp.I * y1 + S1 * rot(phi1) - (x2 + sp.I * y2) - S2 * rot(phi2))
    return sp.Matrix([sp.re(d), sp.im(d)])


def test_3_3_constraint_equations():
    assert get("3.3").params == PUBLIC_PINS
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
    ref = sp.lambdify([Q], sp.Matrix(get("3.4").key()), "numpy")
    q0 = np.random.default_rng(3).uniform(-2, 2, 6)
    np.testing.assert_allclose(ref(q0), fd_jacobian(lambda q: np.asarray(f(q), float).ravel(), q0), atol=1e-8)


def jacobian_mistakes(params=None):
    """(wrong Φ_q, words of its hint), built from the complex-number Φ."""
    Phi_q = phi_complex(params).jacobian(Q)
    no_phi = Phi_q.copy()
    no_phi[:, 2] = no_phi[:, 5] = sp.zeros(2, 1)
    flipped = Phi_q.copy()
    flipped[:, 2], flipped[:, 5] = -Phi_q[:, 2], -Phi_q[:, 5]
    body2 = Phi_q.copy()
    body2[:, 5] = -Phi_q[:, 5]
    return [(no_phi, ("phi columns are missing",)), (-Phi_q, ("-Phi",)), (flipped, ("wrong sign", "dA/dphi")),
            (body2, ("phi2 column",)), (Phi_q.T, ("transposed",)), (Phi_q[:, :3], ("shape (2, 3)",))]


def test_3_4_mistakes():
    for wrong, words in jacobian_mistakes():
        assert_hint("3.4", wrong, *words)


def gamma_by_time_derivatives(params=None):
    """γ = Φ_q q̈ - Φ̈, with Φ̈ from sympy's d/dt of Φ(q(t))."""
    t = sp.Symbol("t")
    funcs = [sp.Function(f"q{i}")(t) for i in range(6)]
    phi_t = phi_complex(params).subs(dict(zip(Q, funcs, strict=True)))
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


def gamma_mistakes(params=None):
    gamma = gamma_by_time_derivatives(params)
    tangential = sp.Matrix([-gamma[1], gamma[0]])  # along B s': the rows of R (A s') phi_d^2
    return [(-gamma, ("sign",)), (2 * gamma, ("factor of 2",)),
            (gamma.subs({phid1: sp.sqrt(phid1), phid2: sp.sqrt(phid2)}), ("SQUARED",)),
            (tangential, ("along A s'",)), (sp.zeros(2, 1), ("not zero",)),
            (gamma + sp.Matrix([xd1, 0]), ("contains xd1",))]


def test_3_5_mistakes():
    for wrong, words in gamma_mistakes():
        assert_hint("3.5", wrong, *words)
    # the sign hint explains where gamma comes from without writing it out
    hint = evaluate("3.5", -gamma_by_time_derivatives()).hint
    assert "phi_d1^2" not in hint and "A1 s1'" not in hint


@pytest.mark.parametrize("seed", SEEDS)
def test_3_3_to_3_5_variants(seed):
    """At a student's own pins: the complex-number formulas are the keys; the mistakes keep their hints."""
    p3, p4, p5 = (student(e, seed) for e in ("3.3", "3.4", "3.5"))
    for p in (p3, p4, p5):
        for s in ("s1", "s2"):
            assert 0.2 <= math.hypot(*p[s]) <= 0.6 and all(round(20 * v, 9).is_integer() for v in p[s])
    correct_at("3.3", phi_complex(p3), p3)
    correct_at("3.3", -phi_complex(p3), p3)
    hint_at("3.3", phi_complex(p3, rotate=False), p3, "not rotated")
    hint_at("3.3", -phi_complex(p3, conjugate=True), p3, "-phi")
    correct_at("3.4", phi_complex(p4).jacobian(Q), p4)
    for wrong, words in jacobian_mistakes(p4):
        hint_at("3.4", wrong, p4, *words)
    correct_at("3.5", gamma_by_time_derivatives(p5), p5)
    for wrong, words in gamma_mistakes(p5):
        hint_at("3.5", wrong, p5, *words)


def test_3_3_to_3_5_sanity_checks_need_no_key():
    """The in-notebook checks of a released variant: the right answers pass, visible problems are named."""
    p = student("3.3", 11)
    phi, jac, gamma = phi_complex(p), phi_complex(p).jacobian(Q), gamma_by_time_derivatives(p)
    assert get("3.3").sanity(phi, **p) is None and get("3.3").sanity(-phi, **p) is None
    assert get("3.4").sanity(jac, **p) is None and get("3.5").sanity(gamma, **p) is None
    assert "r1 - r2" in get("3.3").sanity(phi.subs(x1, 2 * x1), **p)
    assert "contains xd1" in get("3.3").sanity(phi + sp.Matrix([xd1, 0]), **p)
    assert "columns" in get("3.4").sanity(-jac, **p)
    assert "contains x1" in get("3.4").sanity(jac + sp.Matrix([[x1, 0, 0, 0, 0, 0], [0] * 6]), **p)
    assert "contains xd1" in get("3.5").sanity(gamma + sp.Matrix([xd1, 0]), **p)
    assert "not zero when" in get("3.5").sanity(gamma + sp.Matrix([sp.sin(phi1), 0]), **p)
    for ex in ("3.3", "3.4", "3.5"):  # never raises, whatever the answer
        for junk in (None, "x", [1, 2], Exploding(), sp.Symbol("zz")):
            get(ex).sanity(junk, **p)


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
    assert_hint("3.6", [True] * 6, "not every velocity constraint can be integrated")
    for k, word in enumerate(["(a)", "(b)", "(c)", "(d)", "(e)", "(f)"]):
        wrong = list(right)
        wrong[k] = not wrong[k]
        assert_hint("3.6", wrong, word, "misclassified")
        # the hint names the test to apply, never the class of the item
        hint = evaluate("3.6", wrong).hint
        assert "holonomic" not in hint and "integrates to" not in hint, hint
    assert_hint("3.6", right[:5], "shape (5,)")
    assert_hint("3.6", ["holonomic"] * 6, "not numbers")
    assert_hint("3.6", True, "True/False")


# ---------------------------------------------------------------- 3.7 Baumgarte
def violation_of_baumgarte(alpha, beta, t):
    """‖Φ‖ of a Cartesian pendulum started on Φ = 0 with a radial velocity (so Φ̇(0) = −2 L v)."""
    p = cartesian_pendulum(length=1.0, angle=0.0)
    v = 0.01
    qd0 = np.array([0.0, -v])  # down, along the rod: Φ̇ = 2 q·q̇ = 2 v L
    res = simulate(p, t[-1], Baumgarte(alpha=alpha, beta=beta, rtol=1e-11, atol=1e-13), t_eval=t, qd0=qd0)
    return res.violation, 2 * v * 1.0


@pytest.mark.parametrize("params", [None, "variant"])
def test_3_7_roots_predict_the_simulated_violation(params):
    p = get("3.7").params if params is None else student("3.7", 11)
    s1, s2, alpha_c = get("3.7").key(params=p)
    alpha, beta = p["alpha"], p["beta"]
    t = np.linspace(0.0, 1.0, 41)
    viol, rate0 = violation_of_baumgarte(alpha, beta, t)
    # Φ(0) = 0, Φ̇(0) = rate0: Φ(t) = rate0 (e^{s2 t} − e^{s1 t}) / (s2 − s1)
    np.testing.assert_allclose(viol, np.abs(rate0 * (np.exp(s2 * t) - np.exp(s1 * t)) / (s2 - s1)), atol=1e-8)
    # critical damping: a double root −α, Φ = rate0 t e^{−α t}
    viol, rate0 = violation_of_baumgarte(alpha_c, beta, t)
    np.testing.assert_allclose(viol, rate0 * t * np.exp(-alpha_c * t), atol=1e-8)


def baumgarte_by_sympy(alpha, beta):
    s, a = sp.symbols("s a")
    b2 = sp.nsimplify(beta) ** 2
    roots = sorted(float(r) for r in sp.solve(s**2 + 2 * sp.nsimplify(alpha) * s + b2, s))
    critical = [float(v) for v in sp.solve(sp.discriminant(s**2 + 2 * a * s + b2, s), a)]
    return roots, max(critical)


def baumgarte_mistakes(alpha, beta):
    """(wrong answer, words of its hint)."""
    def roots(a1, a0):
        return sorted(np.roots([1.0, a1, a0]).real)

    good = baumgarte_by_sympy(alpha, beta)[0]
    return [(roots(-2 * alpha, beta**2) + [beta], ("GROWS",)),
            (roots(2 * alpha, beta) + [beta], ("squared",)),
            (good + [math.sqrt(beta)], ("squared",)),
            (roots(alpha, beta**2) + [beta], ("factor 2",)),
            (good + [-beta], ("grows",)),
            (good + [2 * beta], ("discriminant",)),
            (good + [beta**2], ("check the powers",)),
            (good, ("shape (2,)",)),
            ([good[0] + 1e-3j, good[1], beta], ("complex",))]


def test_3_7_public_answer_and_mistakes():
    assert get("3.7").params == {"alpha": 10.0, "beta": 8.0}
    assert_correct("3.7", [-16.0, -4.0, 8.0])
    assert_correct("3.7", [-4.0, -16.0, 8.0])  # either order of the roots
    for wrong, words in baumgarte_mistakes(10.0, 8.0):
        assert_hint("3.7", wrong, *words)


@pytest.mark.parametrize("seed", SEEDS)
def test_3_7_variants(seed):
    p = student("3.7", seed)
    assert p["alpha"] > p["beta"] >= 4  # two distinct real roots
    roots, critical = baumgarte_by_sympy(p["alpha"], p["beta"])
    np.testing.assert_allclose(get("3.7").key(params=p), roots + [critical], rtol=1e-12)
    correct_at("3.7", roots[::-1] + [critical], p)
    for wrong, words in baumgarte_mistakes(p["alpha"], p["beta"]):
        hint_at("3.7", wrong, p, *words)
    sanity = get("3.7").sanity
    assert sanity(roots + [critical], **p) is None
    assert "GROWS" in sanity([-roots[0], -roots[1], critical], **p)
    assert "positive alpha" in sanity(roots + [-critical], **p)


# ---------------------------------------------------------------- 3.8 pin force
G = 9.81


def newton_euler_at_release(mass=2.0, length=1.2, theta0_deg=40.0):
    """Unknowns (a_x, a_y, α, F_x, F_y) of the rod at rest: m a = F + m g, J α = d × F, a + α × d = 0.

    d = pin − C (global); at rest the pin's acceleration is a_C + α k × d (no ω² term).
    """
    th = math.radians(theta0_deg)
    d = -length / 2 * np.array([math.sin(th), -math.cos(th)])
    J = mass * length**2 / 12
    K = np.array([
        [mass, 0, 0, -1, 0],
        [0, mass, 0, 0, -1],
        [0, 0, J, d[1], -d[0]],  # J α − (d_x F_y − d_y F_x) = 0
        [1, 0, -d[1], 0, 0],  # pin acceleration, x: a_x − α d_y = 0
        [0, 1, d[0], 0, 0],  # y: a_y + α d_x = 0
    ])
    rhs = np.array([0.0, -mass * G, 0.0, 0.0, 0.0])
    sol = np.linalg.solve(K, rhs)
    return sol[3:], d


def pin_force_mistakes(F, d, mass):
    u = -d / np.linalg.norm(d)  # body x axis: pin -> free end
    body = np.array([u @ F, np.array([-u[1], u[0]]) @ F])
    return [(-F, ("sign",)), (body, ("body-frame",)), (-body, ("body-frame",)),
            ([0.0, mass * G], ("static",)), ([F[0], F[1], d[0] * F[1] - d[1] * F[0]], ("third entry",)),
            ([F[0], 0.0], ("entry [1]",))]


def test_3_8_pin_force():
    assert get("3.8").params == {"mass": 2.0, "length": 1.2, "theta0_deg": 40.0}
    F, d = newton_euler_at_release()
    np.testing.assert_allclose(get("3.8").key(), F, rtol=1e-9)
    assert_correct("3.8", F)
    # sanity: the force balances neither the weight alone nor is it zero
    assert not np.allclose(F, [0.0, 2.0 * G], atol=1e-3)
    for wrong, words in pin_force_mistakes(F, d, 2.0):
        assert_hint("3.8", wrong, *words)


@pytest.mark.parametrize("seed", SEEDS)
def test_3_8_variants(seed):
    p = student("3.8", seed)
    assert 0.5 <= p["mass"] <= 5 and 0.4 <= p["length"] <= 2 and 15 <= p["theta0_deg"] <= 75
    F, d = newton_euler_at_release(**p)
    np.testing.assert_allclose(get("3.8").key(params=p), F, rtol=1e-9)
    correct_at("3.8", F, p)
    for wrong, words in pin_force_mistakes(F, d, p["mass"]):
        hint_at("3.8", wrong, p, *words)
    assert get("3.8").sanity(F, **p) is None
    assert "holds the rod up" in get("3.8").sanity(-F, **p)


def test_released_notebook_checks_variants_without_the_key(capsys):
    """In a released notebook a value check validates what it can (shape, sanity) and defers the verdict."""
    mine = {e: student(e, 11) for e in ("3.7", "3.8")}
    use_variant(encode_variant("s11", 3, mine))
    try:
        roots, critical = baumgarte_by_sympy(mine["3.7"]["alpha"], mine["3.7"]["beta"])
        check("3.7", roots + [critical])
        check("3.7", [-roots[0], -roots[1], critical])
        F, _ = newton_euler_at_release(**mine["3.8"])
        check("3.8", F)
        check("3.8", -F)
        check("3.8", list(F) + [0.0])
    finally:
        _VARIANT.clear()
    lines = capsys.readouterr().out.splitlines()
    assert "verdict comes at grading" in lines[0] and "GROWS" in lines[1]
    assert "verdict comes at grading" in lines[2] and "holds the rod up" in lines[3]
    assert "shape (3,)" in lines[4]


# ---------------------------------------------------------------- 3.9 the Baumgarte right-hand side
def baumgarte_rhs(Phi, Phi_q, Phi_t, gamma, qd, alpha, beta):
    """A student's right answer."""
    return np.asarray(gamma) - 2 * alpha * (np.asarray(Phi_q) @ qd + Phi_t) - beta**2 * np.asarray(Phi)


def driven_slider_crank():
    """A slider-crank whose crank angle is driven by f(t) = 1 + 0.5 sin 2t (Φ_t, Φ_tt not zero)."""
    m = PlanarModel(gravity=(0.0, -9.81))
    m.add_body("crank", 1.0, 0.01, position=(0.05 * math.cos(1.0), 0.05 * math.sin(1.0)), angle=1.0)
    A = np.array([0.1 * math.cos(1.0), 0.1 * math.sin(1.0)])
    B = np.array([A[0] + math.sqrt(0.3**2 - A[1] ** 2), 0.0])
    m.add_body("rod", 2.0, 0.02, position=(A + B) / 2, angle=math.atan2(-A[1], B[0] - A[0]))
    m.add_body("slider", 1.0, 0.001, position=B)
    m.add_revolute(m.ground, "crank", point_j=(-0.05, 0.0))
    m.add_revolute("crank", "rod", point_i=(0.05, 0.0), point_j=(-0.15, 0.0))
    m.add_revolute("rod", "slider", point_i=(0.15, 0.0))
    m.add_translational(m.ground, "slider")
    m.add_driver("crank", f=lambda t: 1.0 + 0.5 * math.sin(2 * t), df=lambda t: math.cos(2 * t),
                 ddf=lambda t: -2.0 * math.sin(2 * t))
    return m


def test_3_9_rhs_makes_the_violation_a_damped_oscillator():
    """Along q(τ) = q + q̇ τ + q̈ τ²/2 with Φ_q q̈ = the answer, Φ(q(τ), t + τ) obeys Φ̈ + 2αΦ̇ + β²Φ = 0."""
    m = driven_slider_crank()
    rng = np.random.default_rng(9)
    t = 0.4
    q = m.q0 + rng.normal(scale=1e-3, size=m.n)  # off the constraints a little (drift)
    qd = rng.normal(size=m.n)
    alpha, beta = 7.0, 4.0
    args = (m.phi(q, t), m.phi_q(q, t), m.phi_t(q, t), m.gamma(q, qd, t), qd, alpha, beta)
    assert np.abs(args[2]).max() > 0.1  # the driver's Φ_t
    g = get("3.9").key(*args)
    qdd = np.linalg.lstsq(m.phi_q(q, t), g, rcond=None)[0]
    h = 1e-4

    def phi_at(tau):
        return m.phi(q + qd * tau + 0.5 * qdd * tau**2, t + tau)

    p0, pp, pm = phi_at(0.0), phi_at(h), phi_at(-h)
    phi_d, phi_dd = (pp - pm) / (2 * h), (pp - 2 * p0 + pm) / h**2
    residual = phi_dd + 2 * alpha * phi_d + beta**2 * p0
    assert np.abs(residual).max() < 1e-5 * (1 + np.abs(phi_dd).max()), residual
    # and without Φ_t in Φ̇ the damping acts on the wrong rate: the residual is not zero
    wrong = baumgarte_rhs(*args) + 2 * alpha * args[2]
    qdd = np.linalg.lstsq(m.phi_q(q, t), wrong, rcond=None)[0]
    p0, pp, pm = phi_at(0.0), phi_at(h), phi_at(-h)
    assert np.abs((pp - 2 * p0 + pm) / h**2 + 2 * alpha * (pp - pm) / (2 * h) + beta**2 * p0).max() > 1e-2


def test_3_9_function_answers_public_and_hidden():
    ex = get("3.9")
    assert_correct("3.9", baumgarte_rhs)
    hidden = ex.grading_cases(np.random.default_rng(5))
    public_sizes = {c[1].shape for c in ex.cases}
    hidden_sizes = {c[1].shape for c in hidden}
    assert len(hidden) == 6 and hidden_sizes - public_sizes, (public_sizes, hidden_sizes)
    assert min(m for m, _ in hidden_sizes) == 1 and max(m for m, _ in hidden_sizes) >= 5
    for case in list(ex.cases) + hidden:
        np.testing.assert_allclose(ex.key(*case), baumgarte_rhs(*case), rtol=1e-12, atol=1e-12)
        assert all(abs(v) >= 0.5 for v in case[2]) and abs(case[5] - case[6]) >= 2  # Φ_t ≠ 0, α far from β
    assert judge(ex, outputs_of(ex, baumgarte_rhs, hidden), hidden).verdict == "correct"
    # a function that only knows the public cases: right in the notebook, wrong at grading
    table = {c[0].tobytes(): ex.key(*c) for c in ex.cases}

    def lookup(Phi, *rest):
        return table.get(np.asarray(Phi).tobytes(), np.zeros(len(Phi)))

    assert_correct("3.9", lookup)
    assert judge(ex, outputs_of(ex, lookup, hidden), hidden).verdict == "wrong"


BAUMGARTE_MISTAKES = [
    (lambda P, J, Pt, g, qd, a, b: g + 2 * a * (J @ qd + Pt) + b**2 * P, ("wrong sign", "decays")),
    (lambda P, J, Pt, g, qd, a, b: g - 2 * a * (J @ qd + Pt) + b**2 * P, ("beta^2 Phi term",)),
    (lambda P, J, Pt, g, qd, a, b: g + 2 * a * (J @ qd + Pt) - b**2 * P, ("2 alpha Phi_d term",)),
    (lambda P, J, Pt, g, qd, a, b: g - 2 * b * (J @ qd + Pt) - a**2 * P, ("swapped",)),
    (lambda P, J, Pt, g, qd, a, b: g - 2 * a * (J @ qd + Pt) - b * P, ("squared",)),
    (lambda P, J, Pt, g, qd, a, b: g - 2 * a * (J @ qd) - b**2 * P, ("Phi_t",)),
    (lambda P, J, Pt, g, qd, a, b: g - a * (J @ qd + Pt) - b**2 * P, ("factor of 2",)),
    (lambda P, J, Pt, g, qd, a, b: -2 * a * (J @ qd + Pt) - b**2 * P, ("gamma is missing",)),
    (lambda P, J, Pt, g, qd, a, b: g - 2 * a * (J @ qd + Pt) - b**2 * P + 0.1, ("for input",)),
    (lambda P, J, Pt, g, qd, a, b: float(np.sum(g)), ("a single number",)),
]


@pytest.mark.parametrize("k", range(len(BAUMGARTE_MISTAKES)))
def test_3_9_mistakes_public_and_hidden(k):
    fn, words = BAUMGARTE_MISTAKES[k]
    assert_hint("3.9", fn, *words)
    ex = get("3.9")
    hidden = ex.grading_cases(np.random.default_rng(k))
    v = judge(ex, outputs_of(ex, fn, hidden), hidden)
    assert v.verdict == "wrong" and (k >= 8 or words[0] in v.hint), v


def test_3_9_errors_and_junk():
    v = evaluate("3.9", lambda *a: a[1] @ a[0])  # (m, n) @ (m,): a shape error
    assert v.verdict == "error" and "ValueError" in v.hint
    assert evaluate("3.9", baumgarte_rhs(*get("3.9").cases[0])).hint.startswith("expected a function")


# ---------------------------------------------------------------- 3.10 the pin-in-slot joint
@cache
def slot_pieces(transpose=False, along=False):
    """The pin-in-slot joint derived by sympy, lambdified: pieces(q, qd, s_i, u_i, s_j) -> dict.

    Φ = n·d, n = A_i R u (A_i transposed with ``transpose``; n = A_i u, the slot's own direction,
    with ``along``), d = r_j + A_j s_j - r_i - A_i s_i; Φ_q by differentiation; the parts of
    Φ̈ without accelerations: n̈·d, 2 ṅ·ḋ and n·d̈ (each a quadratic form in q̇), and the
    part (∂n/∂φ_i)·d of ∂Φ/∂φ_i.
    """
    q = sp.Matrix(sp.symbols("xi yi pi xj yj pj", real=True))
    qd = sp.Matrix(sp.symbols("vxi vyi wi vxj vyj wj", real=True))
    si, ui, sj = (sp.Matrix(sp.symbols(f"{n}x {n}y", real=True)) for n in ("si", "ui", "sj"))

    def A(angle):
        angle = -angle if transpose else angle
        return sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])

    R = sp.Matrix([[0, -1], [1, 0]])
    n = A(q[2]) * (ui if along else R * ui)
    d = q[3:5, 0] + A(q[5]) * sj - q[0:2, 0] - A(q[2]) * si
    Phi = (n.T * d)[0]
    Phi_q = sp.Matrix([Phi]).jacobian(q)

    def rate(v):  # d/dt of v(q): (∂v/∂q) q̇
        return v.jacobian(q) * qd

    def quadratic(v):  # the part of d²v/dt² without q̈
        return rate(v).jacobian(q) * qd

    pieces = {"Phi": Phi, "Phi_q": Phi_q, "nn_d": (quadratic(n).T * d)[0],
              "cross": 2 * (rate(n).T * rate(d))[0], "n_dd": (n.T * quadratic(d))[0],
              "turning": (n.diff(q[2]).T * d)[0]}
    args = [list(q), list(qd), list(si), list(ui), list(sj)]
    f = {k: sp.lambdify(args, v, "numpy") for k, v in pieces.items()}

    def evaluate_pieces(qv, qdv, s_i, u_i, s_j):
        vals = [list(np.asarray(a, dtype=float)) for a in (qv, qdv, s_i, u_i, s_j)]
        return {k: np.asarray(fk(*vals), dtype=float).reshape(-1) for k, fk in f.items()}

    return evaluate_pieces


def slot_sympy(q, qd, s_i, u_i, s_j, transpose=False, along=False):
    """[Φ, Φ_q, γ] with γ = -(n̈·d + 2 ṅ·ḋ + n·d̈) (velocity parts): sympy's answer."""
    p = slot_pieces(transpose, along)(q, qd, s_i, u_i, s_j)
    return np.concatenate([p["Phi"], p["Phi_q"], -(p["nn_d"] + p["cross"] + p["n_dd"])])


def test_3_10_reference_is_sympy_on_public_and_hidden_cases():
    ex = get("3.10")
    hidden = ex.grading_cases(np.random.default_rng(4))
    assert len(hidden) == 6 and len(ex.cases) == 3
    for case in list(ex.cases) + hidden:
        np.testing.assert_allclose(ex.key(*case), slot_sympy(*case), rtol=1e-10, atol=1e-12)
        assert abs(np.linalg.norm(case[3]) - 1) < 1e-12 and min(abs(case[1][2]), abs(case[1][5])) >= 0.5
        # gamma = -(Phi_q qd)_q qd, also by finite differences of Phi_q(q) qd along qd
        h = 1e-6
        jac = [slot_sympy(case[0] + s * h * case[1], *case[1:])[1:7] for s in (1, -1)]
        fd_gamma = -(jac[0] - jac[1]) @ case[1] / (2 * h)
        np.testing.assert_allclose(ex.key(*case)[7], fd_gamma, rtol=1e-6, atol=1e-7)
    assert_correct("3.10", slot_sympy)
    assert_correct("3.10", lambda *c: -slot_sympy(*c))  # the normal -n: the same constraint
    assert judge(ex, outputs_of(ex, slot_sympy, hidden), hidden).verdict == "correct"
    # a function that only knows the public cases: right in the notebook, wrong at grading
    table = {c[0].tobytes(): ex.key(*c) for c in ex.cases}

    def lookup(q, *rest):
        return table.get(np.asarray(q).tobytes(), np.zeros(8))

    assert_correct("3.10", lookup)
    assert judge(ex, outputs_of(ex, lookup, hidden), hidden).verdict == "wrong"


def wrong_slot(**kind):
    """A student's function with one mistake, built from sympy's pieces."""
    def fn(q, qd, s_i, u_i, s_j):
        if kind.get("transpose") or kind.get("along"):
            return slot_sympy(q, qd, s_i, u_i, s_j, **kind)
        p = slot_pieces()(q, qd, s_i, u_i, s_j)
        Phi, Phi_q = p["Phi"].copy(), p["Phi_q"].copy()
        parts = {"nn_d": p["nn_d"], "cross": p["cross"], "n_dd": p["n_dd"]}
        for name in kind.get("drop", ()):
            parts[name] = parts[name] * 0.0
        if "cross_factor" in kind:
            parts["cross"] = parts["cross"] * kind["cross_factor"]
        gamma = -(parts["nn_d"] + parts["cross"] + parts["n_dd"]) * kind.get("gamma_sign", 1.0)
        if kind.get("gamma_zero"):
            gamma = gamma * 0.0
        if kind.get("swap"):
            Phi_q = Phi_q[[3, 4, 5, 0, 1, 2]]
        if kind.get("no_turning"):
            Phi_q[2] -= p["turning"][0]
        if kind.get("b_sign"):
            Phi_q[[2, 5]] *= -1
        if kind.get("b_transposed"):  # B' = [[-s, c], [-c, -s]] for dA/dphi: the phi entries change
            def bt(a):
                return np.array([[-math.sin(a), math.cos(a)], [-math.cos(a), -math.sin(a)]])

            def rot(a):
                return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])

            n = rot(q[2]) @ np.array([-u_i[1], u_i[0]])
            d = q[3:5] + rot(q[5]) @ s_j - q[0:2] - rot(q[2]) @ s_i
            Phi_q[2] = (bt(q[2]) @ np.array([-u_i[1], u_i[0]])) @ d - n @ bt(q[2]) @ s_i
            Phi_q[5] = n @ bt(q[5]) @ s_j
        sign = kind.get("phi_sign", 1.0)
        return np.concatenate([sign * Phi, Phi_q, gamma])

    return fn


SLOT_MISTAKES = [
    (wrong_slot(gamma_sign=-1.0), ("gamma has the wrong sign",)),
    (wrong_slot(gamma_zero=True), ("gamma is not zero",)),
    (wrong_slot(drop=("n_dd",)), ("centripetal terms of the two points",)),
    (wrong_slot(drop=("nn_d",)), ("turning normal",)),
    (wrong_slot(drop=("nn_d", "cross")), ("as constant",)),
    (wrong_slot(cross_factor=0.5), ("factor of 2",)),
    (wrong_slot(swap=True), ("exchanged",)),
    (wrong_slot(no_turning=True), ("turning slot",)),
    (wrong_slot(b_sign=True), ("wrong sign", "dA/dphi")),
    (wrong_slot(b_sign=True, gamma_sign=-1.0), ("wrong sign", "dA/dphi")),  # whatever gamma
    (wrong_slot(b_transposed=True), ("transpose",)),
    (wrong_slot(transpose=True), ("A is transposed",)),
    (wrong_slot(along=True), ("ALONG the slot",)),
    (wrong_slot(phi_sign=-1.0), ("opposite sign",)),
    (lambda *c: slot_sympy(*c)[:7], ("shape (7,)",)),
    (lambda *c: slot_sympy(*c) * np.r_[1, 1, 1, 1.1, 1, 1, 1, 1], ("entry [3]",)),
]


@pytest.mark.parametrize("k", range(len(SLOT_MISTAKES)))
def test_3_10_mistakes_public_and_hidden(k):
    fn, words = SLOT_MISTAKES[k]
    assert_hint("3.10", fn, *words)
    ex = get("3.10")
    hidden = ex.grading_cases(np.random.default_rng(100 + k))
    v = judge(ex, outputs_of(ex, fn, hidden), hidden)
    assert v.verdict == "wrong" and (k >= 14 or words[0] in v.hint), v


def test_3_10_library_joint_agrees_with_the_statement():
    """PointOnLine (the reference) is the statement's joint: Φ = n_i·(r_j + A_j s_j - r_i - A_i s_i)."""
    joint = PointOnLine("slot", ("i", "j"), (0.2, -0.1), (0.3, 0.4), (0.6, 0.8))
    q = np.array([0.1, 0.2, 0.3, 0.5, -0.2, 1.1])
    A = [np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) for a in (q[2], q[5])]
    n = A[0] @ np.array([-0.8, 0.6])
    d = q[3:5] + A[1] @ [0.3, 0.4] - q[0:2] - A[0] @ [0.2, -0.1]
    np.testing.assert_allclose(joint.phi(q), [n @ d], atol=1e-14)


# ---------------------------------------------------------------- 3.11 the slider-crank, end to end
PUBLIC_CRANK = {"r": 0.15, "l": 0.45, "m_crank": 1.0, "m_rod": 2.0, "m_slider": 1.5, "J_slider": 0.002,
                "theta_deg": 60.0, "omega": 8.0}


def test_3_11a_counts_by_hand_and_by_a_sympy_loop():
    # by hand: 3 moving bodies, 3 revolutes (2 equations each) and a translational joint (2)
    n, m = 3 * 3, 3 * 2 + 2
    # the same model written out in sympy: q = (crank, rod, slider), rank of Φ_q at the public pose
    q = sp.symbols("xc yc pc xr yr pr xs ys ps", real=True)
    r, l = 0.15, 0.45

    def A(a):
        return sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])

    def point(k, s):
        return sp.Matrix(q[3 * k: 3 * k + 2]) + A(q[3 * k + 2]) * sp.Matrix(s)

    phi = sp.Matrix.vstack(
        -point(0, (-r / 2, 0)),  # ground point O minus the crank's end
        point(0, (r / 2, 0)) - point(1, (-l / 2, 0)),
        point(1, (l / 2, 0)) - point(2, (0, 0)),
        sp.Matrix([q[7], q[8]]),  # the slider on y = 0, not turning
    )
    th = math.radians(60.0)
    Ap = r * np.array([math.cos(th), math.sin(th)])
    Bp = np.array([Ap[0] + math.sqrt(l**2 - Ap[1] ** 2), 0.0])
    pose = [*(Ap / 2), th, *((Ap + Bp) / 2), math.atan2(-Ap[1], Bp[0] - Ap[0]), Bp[0], 0.0, 0.0]
    at = dict(zip(q, pose, strict=True))
    assert np.abs(np.array(phi.subs(at), dtype=float)).max() < 1e-12
    rank = np.linalg.matrix_rank(np.array(phi.jacobian(q).subs(at), dtype=float))
    assert (phi.shape[0], rank) == (m, 8)
    assert_correct("3.11a", [n, m, rank, n - rank])
    assert_hint("3.11a", [12, 8, 8, 4], "ground")
    assert_hint("3.11a", [12, 11, 11, 1], "ground")
    assert_hint("3.11a", [9, 7, 7, 2], "translational joint removes 2")
    assert_hint("3.11a", [9, 5, 5, 4], "2 equations")
    assert_hint("3.11a", [6, 5, 5, 1], "three moving bodies")
    assert_hint("3.11a", [9, 8, 9, 0], "cannot exceed")
    assert_hint("3.11a", [9, 8, 8, 0], "not coordinates - rank")
    assert_hint("3.11a", [9, 8, 7, 2], "entry [2]")
    assert_hint("3.11a", [9, 8, 8], "shape (3,)")


@cache
def _crank_kinematics():
    """Positions and accelerations of the crank's, rod's and slider's centres, and ψ̈, by sympy.

    Functions of (r, l, θ, θ̇, θ̈): the crank at θ(t), the rod's angle ψ from r sin θ + l sin ψ = 0
    (B on the x axis, to the right of A).
    """
    t, r, l, th, thd, thdd = sp.symbols("t r l th thd thdd", real=True)
    T = sp.Function("T")(t)
    A = r * sp.Matrix([sp.cos(T), sp.sin(T)])
    sin_psi = -r * sp.sin(T) / l
    e_rod = sp.Matrix([sp.sqrt(1 - sin_psi**2), sin_psi])
    B = A + l * e_rod
    points = {"A": A, "B": B, "C1": A / 2, "C2": A + l / 2 * e_rod, "C3": B}

    def at(expr):
        return expr.subs(T.diff(t, 2), thdd).subs(T.diff(t), thd).subs(T, th)

    state = (r, l, th, thd, thdd)
    accel = {k: sp.lambdify(state, at(points[k].diff(t, 2)), "numpy") for k in ("C1", "C2", "C3")}
    pos = {k: sp.lambdify(state[:3], at(v), "numpy") for k, v in points.items()}
    psi_dd = sp.lambdify(state, at(sp.asin(sin_psi).diff(t, 2)), "numpy")
    return accel, pos, psi_dd


def slider_crank_newton_euler(r, l, m_crank, m_rod, m_slider, J_slider, theta_deg, omega, g=9.81,
                              J_crank=None):
    """Free-body diagrams of the three bodies; returns (λ in the statement's order, θ̈, forces).

    Unknowns: θ̈, F_O (on the crank at O), F_A (on the rod at A, from the crank), F_B (on the
    slider at B, from the rod), N and M (the guide's force and moment on the slider). The library's
    multipliers are λ_O = F_O, λ_A = F_A, λ_B = F_B (the second body of each revolute receives +λ)
    and, for the guide's rows φ = y_s and φ_s, λ = (-N, -M).
    """
    accel, pos, psi_dd = _crank_kinematics()
    th = math.radians(theta_deg)
    J1 = m_crank * r**2 / 12 if J_crank is None else J_crank
    J2 = m_rod * l**2 / 12
    Ap, Bp = (np.asarray(pos[k](r, l, th), float).ravel() for k in ("A", "B"))
    C1, C2 = (np.asarray(pos[k](r, l, th), float).ravel() for k in ("C1", "C2"))

    def acc(k, thdd):
        return np.asarray(accel[k](r, l, th, omega, thdd), dtype=float).ravel()

    def cross(a, f):  # 2-D cross product a × f as a row acting on f = (fx, fy)
        return np.array([-a[1], a[0]])

    # unknowns x = [thdd, FOx, FOy, FAx, FAy, FBx, FBy, N, M]; everything is linear in them
    a1, a2, a3 = (acc(k, 1.0) - acc(k, 0.0) for k in ("C1", "C2", "C3"))  # coefficients of thdd
    b1, b2, b3 = (acc(k, 0.0) for k in ("C1", "C2", "C3"))  # velocity parts
    p1, p0 = float(psi_dd(r, l, th, omega, 1.0)), float(psi_dd(r, l, th, omega, 0.0))
    K, rhs = np.zeros((9, 9)), np.zeros(9)
    I2 = np.eye(2)
    # crank: m1 a1 = F_O - F_A + m1 g;  J1 thdd = (O - C1) x F_O + (A - C1) x (-F_A)
    K[0:2, 0], K[0:2, 1:3], K[0:2, 3:5] = m_crank * a1, -I2, I2
    rhs[0:2] = -m_crank * b1 + m_crank * np.array([0.0, -g])
    K[2, 0], K[2, 1:3], K[2, 3:5] = J1, -cross(-C1, None), cross(Ap - C1, None)
    # rod: m2 a2 = F_A - F_B + m2 g;  J2 psi_dd = (A - C2) x F_A + (B - C2) x (-F_B)
    K[3:5, 0], K[3:5, 3:5], K[3:5, 5:7] = m_rod * a2, -I2, I2
    rhs[3:5] = -m_rod * b2 + m_rod * np.array([0.0, -g])
    K[5, 0], K[5, 3:5], K[5, 5:7] = J2 * (p1 - p0), -cross(Ap - C2, None), cross(Bp - C2, None)
    rhs[5] = -J2 * p0
    # slider: m3 a3 = F_B + (0, N) + m3 g;  0 = M (it does not turn)
    K[6:8, 0], K[6:8, 5:7], K[7, 7] = m_slider * a3, -I2, -1.0
    rhs[6:8] = -m_slider * b3 + m_slider * np.array([0.0, -g])
    K[8, 8] = 1.0
    x = np.linalg.solve(K, rhs)
    F_O, F_A, F_B, N, M = x[1:3], x[3:5], x[5:7], x[7], x[8]
    lam = np.concatenate([F_O, F_A, F_B, [-N, -M]])
    return lam, x[0], {"O": F_O, "A": F_A, "B": F_B, "C1": C1, "A_pin": Ap}


def test_3_11_model_closes_and_turns_at_omega():
    from mbdlib.exercises.ch03 import slider_crank

    model, q, qd = slider_crank(**PUBLIC_CRANK)
    assert np.abs(model.phi(q)).max() < 1e-12 and np.abs(model.phi_q(q) @ qd).max() < 1e-12
    assert qd[2] == pytest.approx(8.0)
    lam, thdd, _ = slider_crank_newton_euler(**PUBLIC_CRANK)
    qdd = accelerations(model.system(Assembly(q, qd)), 0.0, q, qd)[0]
    assert qdd[2] == pytest.approx(thdd, rel=1e-9)
    # the library holds the crank speed itself: model.state(speeds=...) gives the same velocities
    held = model.state(speeds={"O": PUBLIC_CRANK["omega"]})
    np.testing.assert_allclose(held.qd0, qd, atol=1e-12)


def student_lambda(p, velocities="consistent"):
    """A student's λ with PlanarModel: the crank's ω given as a guess (projected) or alone (crank)."""
    th = math.radians(p["theta_deg"])
    Ap = p["r"] * np.array([math.cos(th), math.sin(th)])
    Bp = np.array([Ap[0] + math.sqrt(p["l"] ** 2 - Ap[1] ** 2), 0.0])
    m = PlanarModel(gravity=(0.0, -9.81))
    m.add_body("crank", p["m_crank"], p["m_crank"] * p["r"] ** 2 / 12, position=Ap / 2, angle=th,
               angular_velocity=p["omega"])
    m.add_body("rod", p["m_rod"], p["m_rod"] * p["l"] ** 2 / 12, position=(Ap + Bp) / 2,
               angle=math.atan2(-Ap[1], Bp[0] - Ap[0]))
    m.add_body("slider", p["m_slider"], p["J_slider"], position=Bp)
    m.add_revolute(m.ground, "crank", point_j=(-p["r"] / 2, 0.0))
    m.add_revolute("crank", "rod", point_i=(p["r"] / 2, 0.0), point_j=(-p["l"] / 2, 0.0))
    m.add_revolute("rod", "slider", point_i=(p["l"] / 2, 0.0))
    m.add_translational(m.ground, "slider")
    state = m.assemble()
    qd = state.qd0 if velocities == "projected" else np.r_[0, 0, p["omega"], np.zeros(6)]
    return accelerations(m.system(Assembly(state.q0, qd)), 0.0, state.q0, qd)[1]


def lambda_mistakes(p):
    lam = slider_crank_newton_euler(**p)[0]
    one_flipped = lam.copy()
    one_flipped[2:4] *= -1  # joint A added as (rod, crank)
    return [(-lam, ("sign is wrong everywhere",)),
            (slider_crank_newton_euler(**p, g=0.0)[0], ("gravity is missing",)),
            (slider_crank_newton_euler(**p, g=-9.81)[0], ("wrong way",)),
            (slider_crank_newton_euler(**{**p, "omega": 0.0})[0], ("at rest",)),
            (student_lambda(p, "crank"), ("not consistent",)),
            (student_lambda(p, "projected"), ("assemble()",)),
            (slider_crank_newton_euler(**p, J_crank=p["m_crank"] * p["r"] ** 2 / 3)[0], ("about O",)),
            (one_flipped, ("some multipliers have the wrong sign",)),
            (lam[:7], ("shape (7,)",)),
            (lam * np.r_[1, 1, 1.2, 1, 1, 1, 1, 1], ("entry [2]",))]


def pin_force_at_A_mistakes(p):
    lam, _, f = slider_crank_newton_euler(**p)
    F = -f["A"]  # the rod's force on the crank
    th = math.radians(p["theta_deg"])
    c, s = math.cos(th), math.sin(th)
    body = np.array([c * F[0] + s * F[1], -s * F[0] + c * F[1]])
    d = f["A_pin"] - f["C1"]
    rest = -slider_crank_newton_euler(**{**p, "omega": 0.0})[2]["A"]
    no_g = -slider_crank_newton_euler(**p, g=0.0)[2]["A"]
    return F, [(-F, ("crank's force on the rod",)), (f["O"], ("force at O",)), (-f["O"], ("force at O",)),
               (f["B"], ("force at B",)), (-f["B"], ("force at B",)), (body, ("body frame",)),
               (-body, ("body frame",)), (rest, ("at rest",)), (no_g, ("gravity is missing",)),
               (np.r_[F, d[0] * F[1] - d[1] * F[0]], ("third entry",)), (F * [1.0, 1.3], ("entry [1]",))]


@pytest.mark.parametrize("seed", [None, *SEEDS])
def test_3_11b_multipliers_by_newton_euler(seed):
    p = PUBLIC_CRANK if seed is None else student("3.11b", seed)
    assert get("3.11b").params == PUBLIC_CRANK
    assert 2.5 * p["r"] - 0.01 <= p["l"] <= 4.5 * p["r"] + 0.01 and 25 <= p["theta_deg"] % 180 <= 155
    lam = slider_crank_newton_euler(**p)[0]
    np.testing.assert_allclose(get("3.11b").key(params=p), lam, rtol=1e-8, atol=1e-9)
    correct_at("3.11b", lam, p)
    for wrong, words in lambda_mistakes(p):
        hint_at("3.11b", wrong, p, *words)


@pytest.mark.parametrize("seed", [None, *SEEDS])
def test_3_11c_crank_pin_force_by_newton_euler(seed):
    p = PUBLIC_CRANK if seed is None else student("3.11c", seed)
    F, mistakes = pin_force_at_A_mistakes(p)
    np.testing.assert_allclose(get("3.11c").key(params=p), F, rtol=1e-8, atol=1e-9)
    correct_at("3.11c", F, p)
    for wrong, words in mistakes:
        hint_at("3.11c", wrong, p, *words)


def test_3_11_parts_describe_one_mechanism_and_3_3_to_3_5_their_own_pins():
    """The grader seeds the parts of a problem with the problem's id: (b) and (c) get the same slider-crank
    for a student; the separate exercises 3.3, 3.4 and 3.5 get their own pins."""
    from mbdlib.exercises.grade import student_params

    secret = b"a course secret of the chapter 3 test, 0123456789abcdef"
    drawn = {}
    for who in ("s1", "s2"):
        b, c = (student_params(get(e), who, secret) for e in ("3.11b", "3.11c"))
        assert b == c and set(b) == set(PUBLIC_CRANK)
        drawn[who] = b
        pins_of = [student_params(get(e), who, secret) for e in ("3.3", "3.4", "3.5")]
        assert pins_of[0] != pins_of[1] != pins_of[2]
    assert drawn["s1"] != drawn["s2"]


# ---------------------------------------------------------------- never crash, never accept junk
phi1_, phid2_ = sp.symbols("phi1 phid2", real=True)

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
    lambda *a: "x",
    lambda *a: np.full(8, np.nan),
    sp.Symbol("zz"),
    sp.zeros(2, 1),
    sp.Matrix([phi1_, phid2_]),
    sp.nan,
]


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_never_crashes_never_correct(answer):
    assert_never_crashes_never_correct(3, answer)


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
    secret.write_text("a course secret of the chapter 3 test, 0123456789abcdef\n")
    solution = root / "solutions" / "ch03_constraints.ipynb"
    released = release_variants(solution, roster, secret, tmp_path / "rel", allow_solutions=True)
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("ann.ipynb", "bo.ipynb"):
        (subs / name).write_bytes((tmp_path / "rel" / name).read_bytes())
    (subs / "cy.ipynb").write_bytes(released[0].read_bytes())  # Cy hands in Ann's notebook
    out = tmp_path / "grades.csv"
    grade([subs], out, timeout=180, workers=2, roster=roster, secret_file=secret, log=lambda *a: None)
    table = {(r["student"], r["exercise"]): r for r in csv.DictReader(out.open(encoding="utf-8"))}
    ids = [e.id for e in exercises(3)]
    for s in ("s1", "s2"):
        assert [table[s, i]["verdict"] for i in ids] == ["correct"] * len(ids), s
    variants = [e.id for e in exercises(3) if e.variant is not None]
    assert variants == ["3.3", "3.4", "3.5", "3.7", "3.8", "3.11b", "3.11c"]
    assert {i for i in ids if table["s3", i]["verdict"] == "wrong"} == set(variants)
    # the function exercises: graded on Cy's own hidden cases, which Ann's (right) functions pass
    assert all(table["s3", i]["verdict"] == "correct" for i in ids if i not in variants)


# ---------------------------------------------------------------- practice inside the pages (3.P1-3.P4)
# Each key is checked against an independent derivation; each typical mistake is built here and gives its
# own hint; junk is judged without a crash and never correct.
def test_practice_exercises_are_registered_with_no_points_and_a_mistake_each():
    from mbdlib.exercises.core import practice_exercises

    exs = practice_exercises(3)
    assert [e.id for e in exs] == ["3.P1", "3.P2", "3.P3", "3.P4"]
    assert all(e.points == 0 and e.practice and e.mistakes and not e.has_variants for e in exs)
    assert not any(e.practice for e in exercises(3)), "practice is not part of the exercise notebook"


def test_3P1_gamma_of_the_pendulum_pin():
    """γ = Φ_q q̈ − Φ̈ of Φ = −(x − L/2 cos φ, y − L/2 sin φ), differentiated along a path by sympy."""
    t = sp.symbols("t")
    f = sp.Function("phi")(t)
    L = 1.0
    x, y = L / 2 * sp.cos(f), L / 2 * sp.sin(f)          # the centre on the circle: Φ = 0 along the path
    X, Y, F = sp.symbols("X Y F")
    Phi = -sp.Matrix([X - L / 2 * sp.cos(F), Y - L / 2 * sp.sin(F)])
    Phi_q = Phi.jacobian([X, Y, F])
    on = {X: x, Y: y, F: f}
    qdd = sp.Matrix([x.diff(t, 2), y.diff(t, 2), f.diff(t, 2)])
    phi_dd = Phi.subs(on).diff(t, 2)                     # zero along an admissible path
    gamma = (Phi_q.subs(on) * qdd - phi_dd).applyfunc(sp.simplify)
    state = {f.diff(t, 2): 0.7, f.diff(t): 2.0, f: math.radians(-50.0)}  # γ must not depend on φ̈
    expected = np.array([float(g.subs(state)) for g in gamma])
    assert_correct("3.P1", expected)
    phi, w = math.radians(-50.0), 2.0
    assert np.allclose(expected, 0.5 * w**2 * np.array([math.cos(phi), math.sin(phi)]))
    assert_hint("3.P1", -expected, "sign")
    assert_hint("3.P1", expected / w, "squared")
    assert_hint("3.P1", 2 * expected, "L/2")
    assert_hint("3.P1", 0.5 * w**2 * np.array([math.cos(-50.0), math.sin(-50.0)]), "degrees")
    assert_hint("3.P1", 0.5 * w**2 * np.array([-math.sin(phi), math.cos(phi)]), "across the rod")


def test_3P2_v_engine_by_hand_and_by_a_finite_difference_rank():
    from mbdlib.exercises.ch03 import v_engine

    model = v_engine()
    bodies, pins, guides = 5, 5, 2
    grubler = 3 * bodies - 2 * (pins + guides)
    q, h = model.q0, 1e-6                                # Φ_q by central differences of Φ
    J = np.column_stack([(model.phi(q + h * e) - model.phi(q - h * e)) / (2 * h) for e in np.eye(model.n)])
    rank = np.linalg.matrix_rank(J, tol=1e-6)
    assert (grubler, rank) == (1, 14)
    assert_correct("3.P2", [grubler, rank, model.n - rank])
    assert_hint("3.P2", [grubler + 3, rank, 1], "ground")
    assert_hint("3.P2", [3 * bodies - (pins + guides), rank, 1], "removes 2")
    assert_hint("3.P2", [3 * bodies - 2 * pins - guides, rank, 1], "prismatic")
    assert_hint("3.P2", [1, model.n, 1], "cannot exceed")
    assert_hint("3.P2", [1, rank, rank], "coordinates - rank")


def test_3P3_baumgarte_violation_by_integration():
    """Φ̈ + 2αΦ̇ + β²Φ = 0 integrated numerically from Φ(0) = 1 mm, Φ̇(0) = 0 (α = β = 5 1/s)."""
    from scipy.integrate import solve_ivp

    a = 5.0
    sol = solve_ivp(lambda t, y: [y[1], -2 * a * y[1] - a**2 * y[0]], (0.0, 1.0), [1e-3, 0.0],
                    rtol=1e-11, atol=1e-15)
    value = sol.y[0, -1]
    assert_correct("3.P3", value)
    assert_hint("3.P3", 1e-3 * math.exp(-a), "DOUBLE root")
    assert_hint("3.P3", 1e-3 * (1 - a) * math.exp(-a), "derivative at t = 0")
    assert_hint("3.P3", 1e-3 * math.exp(-(a**2)), "beta^2")
    assert_hint("3.P3", 1e3 * value, "metres")


def test_3P4_held_rod_by_its_free_body_diagram():
    """The rod at rest: Σ F = 0 gives the pin's force (0, m g); Σ M about the centre gives the pin's moment
    -(L/2) cos φ m g, and the driver's torque is its opposite."""
    m, L, g, phi = 2.0, 1.0, 9.81, math.radians(-30.0)
    arm = -L / 2 * np.array([math.cos(phi), math.sin(phi)])   # from the centre to the pin
    force = np.array([0.0, m * g])
    moment = arm[0] * force[1] - arm[1] * force[0]
    expected = np.array([*force, moment])
    assert_correct("3.P4", expected)
    assert_hint("3.P4", -expected, "sign")
    assert_hint("3.P4", [0.0, m * g, 0.0], "centre of mass")
    assert_hint("3.P4", [0.0, m * g, -L / 2 * math.sin(phi) * m * g], "cos(phi)")
    assert_hint("3.P4", [0.0, m * g, 2 * moment], "L/2")
    assert_hint("3.P4", [0.0, 0.0, -moment], "driver")


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
@pytest.mark.parametrize("exercise_id", ["3.P1", "3.P2", "3.P3", "3.P4"])
def test_practice_never_crashes_never_correct(exercise_id, answer):
    v = evaluate(exercise_id, answer)
    assert v.verdict in ("wrong", "unanswered", "error"), (exercise_id, v)
    assert (v.verdict == "unanswered") == (answer is None)
    assert v.points == 0
