"""Chapter 8 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: the spring-held rod built as a PlanarModel with a spring in its hinge and linearized
(8.1); the cart and rod's Lagrangian linearized symbolically by sympy (8.2); the heavy top built as a
SpatialModel, linearized about its steady precession (8.3); the bicycle's matrices from the paper's
appendix-A closed forms (tests/oracles.py), its critical speeds by bisection on their eigenvalues and its most
stable speed by a ternary search (8.4a-c); for the practice exercises: the upright rod's and the crane's
linearizations (8.P1, 8.P2), a sleeping top linearized just below and above its threshold (8.P3) and the
eigenvalues of table 2 of Meijaard et al. (2007) (8.P4, 8.P5).
"""

import math
import re

import numpy as np
import pytest
import sympy as sp
from exercise_helpers import (
    Exploding,
    assert_correct,
    assert_hint,
    assert_keys_differ,
    assert_never_crashes_never_correct,
    assert_variant_correct,
    assert_variant_hint,
    variants,
)
from oracles import MEIJAARD_TABLE2_EIGENVALUES, whipple_matrices

from mbdlib import PlanarModel, SpatialModel, linearize
from mbdlib.exercises import evaluate, exercises, get, practice_exercises
from mbdlib.exercises.ch08 import (
    BIKE,
    CART_CASES,
    PAGE_CRANE,
    PAGE_ROD_L,
    PAGE_SLEEPING,
)
from mbdlib.exercises.core import judge
from mbdlib.vehicles import BENCHMARK

G = 9.81


def test_chapter_8_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(8)
    assert len(exs) >= 4
    numbered = [re.fullmatch(r"8\.(\d+)([a-z]?)", x.id) for x in exs]
    assert all(numbered), [x.id for x in exs]
    for x in exs:
        assert 1 <= x.points <= 3 and len(x.mistakes) >= 2, x.id
    assert any(x.is_function for x in exs) and any(m[2] for m in numbered)
    practice = practice_exercises(8)
    assert [p.id for p in practice] == [f"8.P{k}" for k in range(1, 6)]
    assert all(p.points == 0 and p.mistakes for p in practice)


# ---------------------------------------------------------------- 8.1 a pendulum held upright by a spring
def held_rod(m, L, k):
    """The rod upright on a hinge to the ground, a torsional spring k about the upright (PlanarModel)."""
    model = PlanarModel(gravity=(0.0, -G))
    rod = model.add_body("rod", m, m * L * L / 12, position=(0.0, L / 2), angle=math.pi / 2)
    pin = model.add_revolute(model.ground, rod, (0.0, 0.0), (-L / 2, 0.0), name="pin")
    model.add_joint_torque(pin, lambda t, q, qd: -k * (pin.angle(q) - math.pi / 2), name="spring")
    return model, pin


def test_8_1_key_is_the_linearized_model_and_mistakes():
    for p in [get("8.1").params] + variants("8.1")[:2]:
        model, pin = held_rod(**p)
        lam = linearize(model.system(), [pin.angle]).eigenvalues
        key = get("8.1").key(params=p)
        np.testing.assert_allclose(np.sort(lam.imag), [-key, key], rtol=1e-8)
        np.testing.assert_allclose(lam.real, 0.0, atol=1e-8)
        assert_variant_correct("8.1", key, p)
        m, L, k = p["m"], p["L"], p["k"]
        assert_variant_hint("8.1", math.sqrt((k + m * G * L / 2) / (m * L * L / 3)), p, "AGAINST")
        assert_variant_hint("8.1", math.sqrt((k - m * G * L / 2) / (m * L * L / 12)), p, "m L^2/3")
        assert_variant_hint("8.1", key / (2 * math.pi), p, "hertz")
    assert_keys_differ("8.1", variants("8.1"))
    assert "positive" in get("8.1").sanity(-1.0)


# ---------------------------------------------------------------- 8.2 the inverted pendulum on a cart
def lagrange_A(M, m, L, g):
    """A of the cart and uniform rod by sympy: T, V in (x, θ), θ from the upright towards +x; Lagrange's
    equations solved for the accelerations, their Jacobian at the upright rest."""
    x, th, xd, thd = sp.symbols("x theta xd thd")
    l, J = sp.Rational(1, 2) * L, m * L**2 / 12
    vx, vy = xd + l * sp.cos(th) * thd, -l * sp.sin(th) * thd      # the rod's centre: (x + l sinθ, l cosθ)
    T = M * xd**2 / 2 + m * (vx**2 + vy**2) / 2 + J * thd**2 / 2
    V = m * g * l * sp.cos(th)
    Lg = T - V
    q, qd = [x, th], [xd, thd]
    Mq = sp.Matrix(2, 2, lambda i, j: sp.diff(Lg, qd[i], qd[j]))
    rest = sp.Matrix([sum(sp.diff(sp.diff(Lg, qd[i]), q[j]) * qd[j] for j in range(2)) - sp.diff(Lg, q[i])
                      for i in range(2)])
    acc = Mq.LUsolve(-rest)
    f = sp.Matrix([xd, thd, acc[0], acc[1]])
    Ajac = f.jacobian([x, th, xd, thd]).subs({x: 0, th: 0, xd: 0, thd: 0})
    return np.array(Ajac.evalf(), dtype=float)


def student_A(M, m, L, g):
    l, J = L / 2, m * L * L / 12
    M0 = np.array([[M + m, m * l], [m * l, J + m * l * l]])
    K = np.array([[0.0, 0.0], [0.0, -m * g * l]])
    return np.block([[np.zeros((2, 2)), np.eye(2)], [-np.linalg.solve(M0, K), np.zeros((2, 2))]])


def test_8_2_reference_equals_the_lagrangian_linearized_by_sympy():
    ex = get("8.2")
    cases = ex.grading_cases(None) + ex.grading_cases(np.random.default_rng(2))
    for M, m, L, g in cases:
        np.testing.assert_allclose(ex.key(M, m, L, g), lagrange_A(M, m, L, g), atol=1e-8)
    lam = np.linalg.eigvals(ex.key(*CART_CASES[0]))
    assert np.sum(np.abs(lam) < 1e-6) == 2 and np.max(lam.real) > 1.0      # the cart drifts; the rod falls
    assert_correct("8.2", student_A)


def test_8_2_mistakes_on_public_and_hidden_cases():
    ex = get("8.2")

    def judged_fn(fn, rng):
        cases = ex.grading_cases(rng)
        return judge(ex, [fn(*c) for c in cases], cases, ex.params)

    def hanging(M, m, L, g):
        A = student_A(M, m, L, g)
        A[3, 1] *= -1
        A[2, 1] *= -1
        return A

    def point_mass_tip(M, m, L, g):
        M0 = np.array([[M + m, m * L], [m * L, m * L * L]])
        K = np.array([[0.0, 0.0], [0.0, -m * g * L]])
        return np.block([[np.zeros((2, 2)), np.eye(2)], [-np.linalg.solve(M0, K), np.zeros((2, 2))]])

    for rng in (None, np.random.default_rng(5)):
        assert judged_fn(student_A, rng).verdict == "correct"
        for fn, word in ((hanging, "HANGING"), (point_mass_tip, "tip"),
                         (lambda *c: student_A(*c)[:2], "4 x 4"),
                         (lambda *c: student_A(*c) + np.vstack([np.eye(4)[:2] * 0 + 1, np.zeros((2, 4))]),
                          "first two rows")):
            v = judged_fn(fn, rng)
            assert v.verdict == "wrong" and word in v.hint, (word, v)
    junks = (None, "A", [1, 2], Exploding(), lambda *a: 1 / 0, lambda *a: "x",
             lambda *a: np.full((4, 4), np.nan))
    for junk in junks:
        v = evaluate("8.2", junk)
        assert v.verdict in ("wrong", "unanswered", "error") and v.points == 0


# ---------------------------------------------------------------- 8.3 nutation about steady precession
def top_model(m, l, A_c, C, theta, spin, precession):
    p = np.array([np.cos(theta / 2), np.sin(theta / 2), 0.0, 0.0])
    axis = np.array([0.0, -np.sin(theta), np.cos(theta)])            # A(p) e_z for a turn theta about x
    omega = precession * np.array([0.0, 0.0, 1.0]) + spin * axis
    model = SpatialModel(gravity=(0.0, 0.0, -G))
    model.add_body("base", mass=1.0, inertia=np.eye(3))
    model.fix("base")
    model.add_body("top", position=l * axis, orientation=p, mass=m, inertia=[A_c, A_c, C],
                   velocity=np.cross(omega, l * axis), angular_velocity=omega)
    model.add_spherical("base", "top", (0, 0, 0), (0, 0, -l))
    return model


def test_8_3_key_is_the_linearized_spatial_top_and_mistakes():
    for p in [get("8.3").params] + variants("8.3")[:2]:
        th = math.radians(p["theta_deg"])
        A = p["A_c"] + p["m"] * p["l"] ** 2
        a, b, c = A * math.cos(th), -p["C"] * p["w3"], p["m"] * G * p["l"]
        rate = (-b - math.sqrt(b * b - 4 * a * c)) / (2 * a)
        model = top_model(p["m"], p["l"], p["A_c"], p["C"], th, p["w3"] - rate * math.cos(th), rate)
        tilt, precession, spin = (model.euler_angle("top", "ZXZ", k) for k in (1, 0, 2))
        lam = linearize(model.system(), [tilt], [tilt, precession, spin]).eigenvalues
        key = get("8.3").key(params=p)
        assert np.max(lam.imag) == pytest.approx(key, rel=1e-7)
        assert_variant_correct("8.3", key, p)
        assert_variant_hint("8.3", p["C"] * p["w3"] / A, p, "fast-top")
        assert_variant_hint("8.3", key / (2 * math.pi), p, "hertz")
    assert_keys_differ("8.3", variants("8.3"))


# ---------------------------------------------------------------- 8.4 the bicycle's speeds
def oracle_speeds(params):
    """Weave and capsize speeds by bisection, the most stable speed by ternary search, on the eigenvalues of
    the paper's closed-form matrices (tests/oracles.py) for the bicycle of ``params``."""
    mat = whipple_matrices(dict(BENCHMARK, **params))
    Minv = np.linalg.inv(mat["M"])

    def growth(v):
        A = np.block([[np.zeros((2, 2)), np.eye(2)],
                      [-Minv @ (G * mat["K0"] + v * v * mat["K2"]), -v * Minv @ mat["C1"]]])
        return np.linalg.eigvals(A).real.max()

    def bisect(a, b):
        fa = growth(a)
        for _ in range(60):
            mid = 0.5 * (a + b)
            if np.sign(growth(mid)) == np.sign(fa):
                a = mid
            else:
                b = mid
        return 0.5 * (a + b)

    grid = np.arange(0.5, 10.0, 0.1)
    s = np.sign([growth(v) for v in grid])
    k = np.flatnonzero(np.diff(s))
    v_w, v_c = bisect(grid[k[0]], grid[k[0] + 1]), bisect(grid[k[1]], grid[k[1] + 1])
    a, b = v_w, v_c
    for _ in range(100):
        m1, m2 = a + (b - a) / 3, b - (b - a) / 3
        a, b = (a, m2) if growth(m1) < growth(m2) else (m1, b)
    return v_w, v_c, 0.5 * (a + b)


@pytest.mark.parametrize("part", ["8.4a", "8.4b", "8.4c"])
def test_8_4_keys_equal_the_papers_closed_form_bicycle_and_mistakes(part):
    k = "abc".index(part[-1])
    bench = oracle_speeds({})
    for p in [get(part).params] + variants(part)[:2]:
        ref = oracle_speeds(p)
        key = get(part).key(params=p)
        assert key == pytest.approx(ref[k], abs=1e-7 if k < 2 else 1e-5)
        assert_variant_correct(part, key, p)
        assert_variant_hint(part, bench[k], p, "benchmark bicycle")
        assert_variant_hint(part, 3.6 * key, p, "km/h")
        other = ref[1 - k] if k < 2 else 0.5 * (ref[0] + ref[1])
        assert_variant_hint(part, other, p, "CAPSIZE" if k == 0 else "WEAVE" if k == 1 else "middle")
    assert ref[0] < ref[2] < ref[1]
    assert_keys_differ(part, variants(part))
    assert "m/s" in get(part).sanity(45.0)
    assert BIKE["c"] != BENCHMARK["c"]


def test_never_crashes_on_junk():
    for junk in (None, "x", [1, 2, 3], float("nan"), {"a": 1}, Exploding(), np.full((4, 4), np.inf)):
        assert_never_crashes_never_correct(8, junk)


# ---------------------------------------------------------------- practice 8.P1-8.P5
def test_practice_8_p1_the_fall_time_from_the_linearized_rod():
    model = PlanarModel(gravity=(0.0, -G))
    rod = model.add_body("rod", 1.0, PAGE_ROD_L**2 / 12, position=(0.0, PAGE_ROD_L / 2), angle=math.pi / 2)
    pin = model.add_revolute(model.ground, rod, (0.0, 0.0), (-PAGE_ROD_L / 2, 0.0))
    rate = linearize(model.system(), [pin.angle]).eigenvalues.real.max()
    assert_correct("8.P1", math.log(100.0) / rate)
    assert_hint("8.P1", 2.0 / rate, "natural logarithm")
    assert_hint("8.P1", 1.0 / rate, "factor e")


def test_practice_8_p2_the_crane_mode_shape_from_its_eigenvector():
    """The crane (cart on a rail, a uniform rod hanging from a pin) linearized: in its oscillating mode the
    cart's travel per radian of swing (θ towards +x) is the ratio of the eigenvector's entries."""
    M, m, L = PAGE_CRANE["M"], PAGE_CRANE["m"], PAGE_CRANE["L"]
    model = PlanarModel(gravity=(0.0, -G))
    cart = model.add_body("cart", M, 0.01 * M)
    rod = model.add_body("rod", m, m * L * L / 12, position=(0.0, -L / 2), angle=-math.pi / 2)
    rail = model.add_translational(model.ground, cart, axis_i=(1.0, 0.0))
    pin = model.add_revolute(cart, rod, (0.0, 0.0), (-L / 2, 0.0))
    lam, V = linearize(model.system(), [rail.slide, pin.angle]).modes()
    k = int(np.argmax(lam.imag))
    ratio = (V[0, k] / V[1, k]).real                          # per radian of pin angle = +θ towards +x
    assert_correct("8.P2", ratio)
    assert_hint("8.P2", -ratio, "AGAINST")


def test_practice_8_p3_the_sleeping_top_changes_stability_at_the_threshold():
    p = PAGE_SLEEPING
    key = get("8.P3").key()
    for factor, stable in ((0.98, False), (1.02, True)):
        model = top_model(p["m"], p["l"], p["A_c"], p["C"], 0.0, factor * key, 0.0)
        coords = [model.euler_angle("top", "XYZ", k) for k in (0, 1)]
        lin = linearize(model.system(), coords, coords + [model.euler_angle("top", "XYZ", 2)])
        assert (lin.eigenvalues.real.max() < 1e-6) == stable, (factor, lin.eigenvalues)
    assert_hint("8.P3", key / (2 * math.pi), "rad/s")


def test_practice_8_p4_p5_from_table_2_of_the_paper():
    assert_correct("8.P4", max(MEIJAARD_TABLE2_EIGENVALUES[0]))
    assert_hint("8.P4", max(MEIJAARD_TABLE2_EIGENVALUES[0]) ** 2, "lambda^2")
    capsize = MEIJAARD_TABLE2_EIGENVALUES[7][0]
    assert_correct("8.P5", math.log(2.0) / capsize)
    assert_hint("8.P5", 1.0 / capsize, "ln(2)")
