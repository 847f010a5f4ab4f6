"""Chapter 6 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: the slider-crank's closed-form velocities and a finite-difference
Jacobian of Φ (6.1-6.3); the rod's inertia by integration and check_model's own verdicts
(6.4, 6.5); the minimum of the potential energy by sympy (6.6); explicit Euler and RK4
stepped by hand across the stability limit (6.7); the integrators written here a second
time, in another form (6.8); sympy's roots of the Baumgarte polynomial (6.9); and the
simulations of 6.10 run at the ends of the accepted range and beyond.  The models handed
in are written out here as a student would (PlanarModel calls), not taken from the module.
"""

import json
import math
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
import sympy as sp
from exercise_helpers import (
    VARIANT_SEEDS,
    Exploding,
    assert_correct,
    assert_hint,
    assert_keys_differ,
    assert_never_crashes_never_correct,
    assert_variant_hint,
    judged,
    variants,
)
from nbformat.v4 import new_code_cell

from mbdlib import PlanarModel
from mbdlib.checks import check_model
from mbdlib.dae import cartesian_pendulum, simulate
from mbdlib.exercises import evaluate, exercises, get
from mbdlib.exercises.ch06 import model_answer
from mbdlib.exercises.core import judge
from mbdlib.exercises.grade import _judge_value, execute, records_in
from mbdlib.schemes import Baumgarte

ROOT = Path(__file__).resolve().parents[1]
G, R, L, THETA0 = 9.81, 0.10, 0.40, math.radians(60.0)
M_CRANK, M_ROD, M_RAM = 2.0, 3.0, 20.0
I_CRANK, I_RAM = M_CRANK * R**2 / 12, M_RAM * (0.2**2 + 0.1**2) / 12
A = R * np.array([math.cos(THETA0), math.sin(THETA0)])
B = np.array([0.0, A[1] - math.sqrt(L**2 - A[0] ** 2)])
PHI_ROD = math.atan2(B[1] - A[1], B[0] - A[0])


# ---------------------------------------------------------------- the press, as a student writes it
def build(guides=("trans",), gravity=(0.0, -G), rod_inertia=M_ROD * L**2 / 12, rod_mass=M_ROD,
          ram_inertia=I_RAM, wrist=True):
    """guides: "trans" (at the pin), "trans_low" (0.1 m below), "line" (point-on-line), "horizontal"."""
    m = PlanarModel(gravity=gravity)
    crank = m.add_body("crank", mass=M_CRANK, inertia=I_CRANK, position=A / 2, angle=THETA0)
    rod = m.add_body("rod", mass=rod_mass, inertia=rod_inertia, position=(A + B) / 2, angle=PHI_ROD)
    ram = m.add_body("ram", mass=M_RAM, inertia=ram_inertia, position=B)
    m.add_revolute("ground", crank, (0, 0), (-R / 2, 0))
    m.add_revolute(crank, rod, (R / 2, 0), (-L / 2, 0))
    if wrist:
        m.add_revolute(rod, ram, (L / 2, 0), (0, 0))
    for g in guides:
        if g == "trans":
            m.add_translational("ground", ram, (0, 0), (0, 0), axis_i=(0, 1))
        elif g == "trans_low":
            m.add_translational("ground", ram, (0, 0), (0, -0.1), axis_i=(0, 1))
        elif g == "line":
            m.add_point_on_line("ground", ram, (0, 0), (0, 0), axis_i=(0, 1))
        elif g == "horizontal":
            m.add_translational("ground", ram, (0, B[1]), (0, 0), axis_i=(1, 0))
        elif g == "weld":
            m.add_rigid("ground", ram)
    return m


def press_velocities():
    """Closed-form slider-crank velocities for θ̇ = 1 (ordered x, y, φ of crank, rod, ram).

    A = R e(θ), B_y = A_y - sqrt(L² - A_x²); Ḃ_y = Ȧ_y + A_x Ȧ_x / sqrt(L² - A_x²).
    """
    s = math.sqrt(L**2 - A[0] ** 2)
    dA = R * np.array([-math.sin(THETA0), math.cos(THETA0)])
    dB = np.array([0.0, dA[1] + A[0] * dA[0] / s])
    d = B - A
    dd = dB - dA
    dphi_rod = (d[0] * dd[1] - d[1] * dd[0]) / (d @ d)  # d/dt atan2(d_y, d_x)
    return np.concatenate([dA / 2, [1.0], (dA + dB) / 2, [dphi_rod], dB, [0.0]])


def fd_jacobian(model, h=1e-7):
    q = model.q0
    cols = [(model.phi(q + h * e) - model.phi(q - h * e)) / (2 * h) for e in np.eye(model.n)]
    return np.column_stack(cols)


def test_chapter_6_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(6)
    assert len(exs) >= 6
    # numbered 6.1, 6.2, ... in order; the parts of a multi-part problem are lettered a, b, c, ... in order
    numbered = [re.fullmatch(r"6\.(\d+)([a-z]?)", x.id) for x in exs]
    assert all(numbered), [x.id for x in exs]
    numbers = [int(m[1]) for m in numbered]
    assert sorted(set(numbers)) == list(range(1, max(numbers) + 1)) and numbers == sorted(numbers)
    for n in set(numbers):
        parts = [m[2] for m in numbered if int(m[1]) == n]
        assert parts == [""] or parts == [chr(ord("a") + i) for i in range(len(parts))], (n, parts)
    for x in exs:
        assert 1 <= x.points <= 3 and len(x.mistakes) >= 2, x.id


# ---------------------------------------------------------------- 6.1 Grübler vs rank
def test_6_1_rank_from_finite_differences_and_the_closed_form_motion():
    two = build(guides=("trans", "trans_low"))
    J = fd_jacobian(two)
    rank = np.linalg.matrix_rank(J, tol=1e-6)
    assert J.shape == (10, 9) and rank == 8
    v = press_velocities()  # the one motion the press has satisfies every equation
    np.testing.assert_allclose(J @ v, 0, atol=1e-6)
    assert_correct("6.1", [3 * 3 - 2 * 3 - 2 * 2, rank, 9 - rank])


def test_6_1_mistakes():
    assert_hint("6.1", [2, 8, 1], "not a moving body")
    assert_hint("6.1", [4, 8, 1], "not 1")
    assert_hint("6.1", [1, 8, 1], "each prismatic guide")
    assert_hint("6.1", [-7, 8, 1], "spatial")
    assert_hint("6.1", [-1, 10, 1], "EQUATIONS")
    assert_hint("6.1", [-1, 8, -1], "negative")
    assert_hint("6.1", [-1, 8, 0], "does move")


# ---------------------------------------------------------------- 6.2 the missing guide
def test_6_2_reference_matches_the_slider_crank():
    model = build()
    J = fd_jacobian(model)
    assert np.linalg.matrix_rank(J, tol=1e-6) == 8
    v = press_velocities()
    np.testing.assert_allclose(J @ v, 0, atol=1e-6)
    assert v[6] == 0 and v[8] == 0  # the ram neither moves sideways nor turns
    assert_correct("6.2", model_answer("6.2", model))
    assert check_model(model, expected_dof=1, small_displacement=False).ok


def test_6_2_the_statement_fails_check_model_and_gets_its_hint():
    model = build(guides=())
    assert check_model(model, expected_dof=1, small_displacement=False)["dof"].status == "fail"
    assert_hint("6.2", model_answer("6.2", model), "still the model", "DOF is 3")


def test_6_2_mistakes():
    line = build(guides=("line",))
    q = line.q0.copy()
    q[8] += 0.3  # turn the ram alone: a point-on-line at its pin does not notice
    assert np.max(np.abs(line.phi(q))) < 1e-12
    assert_hint("6.2", model_answer("6.2", line), "can still rotate", "DOF is 2")
    assert_hint("6.2", model_answer("6.2", build(guides=("horizontal",))), "sideways", "axis_i=(0, 1)")
    assert_hint("6.2", model_answer("6.2", build(guides=("trans", "line"))), "rank deficient")
    assert_hint("6.2", model_answer("6.2", build(guides=("weld",))), "cannot move")


# ---------------------------------------------------------------- 6.3 the redundant guide
def test_6_3_statement_is_redundant_and_the_fix_is_correct():
    two = build(guides=("trans", "trans_low"))
    report = check_model(two, expected_dof=1, small_displacement=False)
    assert report["redundant"].status == "fail" and "ground-ram" in report["redundant"].fix
    assert_hint("6.3", model_answer("6.3", two), "still the model", "rank deficient by 2")
    assert_correct("6.3", model_answer("6.3", build(guides=("trans_low",))))  # either bushing will do
    assert_correct("6.3", model_answer("6.3", build()))


def test_6_3_mistakes():
    mixed = build(guides=("trans", "line"))
    assert np.linalg.matrix_rank(fd_jacobian(mixed), tol=1e-6) == 8  # 9 equations, one dependent
    assert_hint("6.3", model_answer("6.3", mixed), "deficient by 1")
    assert_hint("6.3", model_answer("6.3", build(guides=("line",))), "removed too much", "rotate")
    assert_hint("6.3", model_answer("6.3", build(guides=("trans", "trans_low"), wrist=False)),
                "wrong constraint")
    assert_hint("6.3", model_answer("6.3", build(guides=())), "removed too much")


# ---------------------------------------------------------------- 6.4 inertia
def test_6_4_uniform_rod_by_integration_and_check_model():
    x, m, length = sp.symbols("x m L", positive=True)
    about_centre = sp.integrate(x**2 * m / length, (x, -length / 2, length / 2))
    about_end = sp.integrate(x**2 * m / length, (x, 0, length))
    assert sp.simplify(about_centre - m * length**2 / 12) == 0
    assert sp.simplify(about_end - about_centre - m * (length / 2) ** 2) == 0  # parallel axis
    rod = float(about_centre.subs({m: M_ROD, length: L}))
    cad = build(rod_inertia=float(about_end.subs({m: M_ROD, length: L})))
    fixed = build(rod_inertia=rod)
    assert check_model(cad, small_displacement=False)["inertia_plausibility"].status == "warn"
    assert check_model(fixed, small_displacement=False)["inertia_plausibility"].status == "pass"
    assert_correct("6.4", model_answer("6.4", fixed))
    assert_hint("6.4", model_answer("6.4", cad), "about its end", "m L^2/12")


def test_6_4_mistakes():
    assert_hint("6.4", model_answer("6.4", build(rod_inertia=M_ROD * L**2)), "point mass")
    assert_hint("6.4", model_answer("6.4", build(rod_inertia=M_ROD * L**2 / 4)), "parallel-axis term")
    assert_hint("6.4", model_answer("6.4", build(rod_inertia=M_ROD * L**2 / 2)), "disk")
    assert_hint("6.4", model_answer("6.4", build(rod_inertia=M_ROD * L**2 * 7 / 12)), "other way")
    assert_hint("6.4", model_answer("6.4", build(rod_inertia=M_ROD * L**2 / 3, rod_mass=0.75)), "rod's mass")
    assert_hint("6.4", model_answer("6.4", build(ram_inertia=2 * I_RAM)), "another body")
    assert_hint("6.4", model_answer("6.4", build(rod_inertia=0.05)), "entry [3]")


# ---------------------------------------------------------------- 6.5 gravity
def test_6_5_gravity_and_check_model():
    mm = build(gravity=(0.0, 9810.0))
    report = check_model(mm, small_displacement=False)
    assert report["units"].status == "warn" and report["gravity"].status == "warn"
    fixed = build(gravity=(0.0, -G))
    assert not check_model(fixed, small_displacement=False).warnings
    assert_correct("6.5", model_answer("6.5", fixed))
    assert_correct("6.5", model_answer("6.5", build(gravity=(0.0, -9.80665))))
    assert_hint("6.5", model_answer("6.5", mm), "still the gravity")
    assert_hint("6.5", model_answer("6.5", build(gravity=(0.0, -9810.0))), "mm/s^2")
    assert_hint("6.5", model_answer("6.5", build(gravity=(0.0, 9.81))), "still points up")
    assert_hint("6.5", model_answer("6.5", build(gravity=(-9.81, 0.0))), "along y")
    assert_hint("6.5", model_answer("6.5", build(gravity=(0.0, -1.0))), "acceleration")


# ---------------------------------------------------------------- model answers: junk never crashes
class Broken(PlanarModel):
    def dof_report(self, *a, **k):
        raise RuntimeError("boom")


def test_model_answer_codes_become_hints():
    for ex in ("6.2", "6.3", "6.4", "6.5"):
        assert evaluate(ex, model_answer(ex, None)).verdict == "unanswered"
        assert_hint(ex, model_answer(ex, 42), "corrected model itself")
        assert_hint(ex, model_answer(ex, "model"), "corrected model itself")
        renamed = PlanarModel(gravity=(0.0, -9.81))
        renamed.add_body("slider", mass=1.0, inertia=1.0)
        assert_hint(ex, model_answer(ex, renamed), "named 'crank', 'rod' and 'ram'")
    broken = Broken(gravity=(0.0, -9.81))
    for name in ("crank", "rod", "ram"):
        broken.add_body(name, mass=1.0, inertia=1.0)
    assert_hint("6.2", model_answer("6.2", broken), "could not analyse")
    with pytest.raises(KeyError, match="takes no model"):
        model_answer("6.7", build())


def test_a_model_itself_is_graded_like_its_numbers():
    """check("6.2", fixed) and check("6.2", model_answer("6.2", fixed)) agree (the exercises' prepare)."""
    cases = ((build(), "correct"), (build(guides=("line",)), "wrong"), (build(guides=()), "wrong"))
    for model, verdict in cases:
        direct, via = evaluate("6.2", model), evaluate("6.2", model_answer("6.2", model))
        assert direct.verdict == via.verdict == verdict
        assert direct.hint == via.hint
    assert evaluate("6.3", build()).verdict == "correct"
    assert_hint("6.4", [1.0, 2.0], "corrected model itself")   # a list is not a model
    assert evaluate("6.5", None).verdict == "unanswered"

# ---------------------------------------------------------------- 6.6 statics
def test_6_6_minimum_of_the_potential_energy():
    y = sp.Symbol("y")
    k, l0, F = 2.0e4, 0.30, 300.0
    V = k * (y - l0) ** 2 / 2 + M_RAM * G * y + F * y  # spring + gravity + the constant load
    (y_rest,) = sp.solve(sp.diff(V, y), y)
    assert sp.diff(V, y, 2) > 0
    assert_correct("6.6", float(y_rest))
    assert_hint("6.6", l0 - M_RAM * G / k, "load is missing")
    assert_hint("6.6", l0 - F / k, "weight")
    assert_hint("6.6", l0 + (M_RAM * G + F) / k, "compressed")
    assert_hint("6.6", (M_RAM * G + F) / k, "deflection")
    assert_hint("6.6", 1000 * float(y_rest), "metres")
    assert_hint("6.6", 0.2, "too small")


# ---------------------------------------------------------------- 6.7 stable steps
def _growth(step, h, n=4000, w=20.0):
    """Norm of the state after n steps of ``step`` on x'' + 2ω x' + ω² x = 0 (ω = 20), from (1, 0)."""
    def f(y):
        return np.array([y[1], -2 * w * y[1] - w**2 * y[0]])

    y = np.array([1.0, 0.0])
    for _ in range(n):
        y = step(f, y, h)
    return float(np.linalg.norm(y))


def _euler(f, y, h):
    return y + h * f(y)


def _rk4(f, y, h):
    k1 = f(y)
    k2 = f(y + h / 2 * k1)
    k3 = f(y + h / 2 * k2)
    k4 = f(y + h * k3)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def test_6_7_steps_across_the_stability_limit():
    roots = np.roots([1 / 24, 1 / 6, 1 / 2, 1])  # R(z) = 1, z != 0: z^3/24 + z^2/6 + z/2 + 1 = 0
    z_rk4 = min(r.real for r in roots if abs(r.imag) < 1e-9)
    answer = np.array([2 / 20.0, -z_rk4 / 20.0])
    assert abs(z_rk4 + 2.785) < 1e-3
    for step, h in zip((_euler, _rk4), answer, strict=True):
        assert _growth(step, 0.98 * h) < 1e-3
        assert _growth(step, 1.02 * h) > 1e3
    assert_correct("6.7", answer)


def test_6_7_mistakes():
    w, f = 20.0, 20.0 / (2 * math.pi)
    assert_hint("6.7", [2 / f, 2.785 / f], "frequency f")
    assert_hint("6.7", [2.785 / w, 2 / w], "swapped")
    assert_hint("6.7", [1 / w, 2.785 / w], "factor")
    assert_hint("6.7", [0.0, 2.785 / w], "UNDAMPED")
    assert_hint("6.7", [2 / w, 2 * math.sqrt(2) / w], "imaginary axis")
    assert_hint("6.7", [2 / w, 2 / w], "Euler's bound")
    assert_hint("6.7", [2 / w, 1 / w], "too small", "between z = -3 and z = -2")
    assert_hint("6.7", [2 / 400, 2.785 / 400], "not k/m")


# ---------------------------------------------------------------- 6.8 energy drift
def pendulum_drift(order="vq", n=500, h=0.01, datum=1.0, relative=True, length=1.0, theta0=1.0):
    """Relative energy errors of explicit Euler, symplectic Euler and RK4 (written a second time here).

    ``order``: "vq" updates ω first (the statement), "qv" θ first; RK4 from its Butcher tableau.
    ``datum``: V = g (datum - cos θ) per unit mass (1: from the lowest point; 0: from the pivot).
    """
    def f(y):
        return np.array([y[1], -G / length * np.sin(y[0])])

    def energy(y):
        return 0.5 * length**2 * y[1] ** 2 + G * length * (datum - np.cos(y[0]))

    a = np.array([[0, 0, 0, 0], [0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1, 0]])
    b = np.array([1, 2, 2, 1]) / 6
    y0 = np.array([theta0, 0.0])
    euler, sympl, rk = y0.copy(), y0.copy(), y0.copy()
    for _ in range(n):
        euler = euler + h * f(euler)
        if order == "vq":
            sympl = sympl + [0.0, h * f(sympl)[1]]
            sympl = sympl + [h * sympl[1], 0.0]
        else:
            sympl = sympl + [h * sympl[1], 0.0]
            sympl = sympl + [0.0, h * f(sympl)[1]]
        k = np.zeros((4, 2))
        for i in range(4):
            k[i] = f(rk + h * a[i] @ k)
        rk = rk + h * b @ k
    E0 = energy(y0)
    return np.array([energy(y) - E0 for y in (euler, sympl, rk)]) / (E0 if relative else 1.0)


def test_6_8_drift_by_a_second_implementation():
    drift = pendulum_drift()
    assert drift[0] > 0.3 and abs(drift[1]) < 0.05 and abs(drift[2]) < 1e-6  # Euler drifts up
    assert_correct("6.8", drift)
    assert_correct("6.8", pendulum_drift(order="qv"))  # the other symplectic Euler
    # symplectic Euler oscillates, it does not drift: its error over 10x longer stays as small
    assert abs(pendulum_drift(n=5000)[1]) < 0.05


def test_6_8_mistakes():
    drift = pendulum_drift()
    assert_hint("6.8", pendulum_drift(datum=0.0), "lowest point")
    assert_hint("6.8", pendulum_drift(relative=False), "absolute")
    assert_hint("6.8", -drift, "sign")
    assert_hint("6.8", [drift[0], drift[0], drift[2]], "NEW")
    assert_hint("6.8", pendulum_drift(n=501), "too many")
    assert_hint("6.8", pendulum_drift(n=499), "too few")


# ---------------------------------------------------------------- 6.9 Baumgarte design
def test_6_9_double_root_at_minus_one_over_tau():
    s = sp.Symbol("s")
    tau = sp.Rational(1, 20)
    alpha = beta = 1 / tau
    assert sp.roots(s**2 + 2 * alpha * s + beta**2, s) == {-1 / tau: 2}
    alpha = beta = float(alpha)
    h = 2.785293 / alpha  # RK4's real stability limit (6.7)
    assert _growth(_rk4, h * 1.02, 200) > _growth(_rk4, h * 0.98, 200)
    assert_correct("6.9", [alpha, beta, h])


def test_6_9_mistakes():
    assert_hint("6.9", [0.05, 0.05, 0.1], "rates")
    assert_hint("6.9", [20, 400, 0.139], "squared")
    assert_hint("6.9", [10, 10, 0.139], "2 alpha")
    assert_hint("6.9", [20, math.sqrt(20), 0.139], "beta^2 = alpha^2")
    assert_hint("6.9", [20, 20, 0.1], "Euler")
    assert_hint("6.9", [20, 20, 2 * math.sqrt(2) / 20], "imaginary")
    assert_hint("6.9", [20, 20, 0.139 * 2 * math.pi], "2 pi times")


# ---------------------------------------------------------------- 6.10 the Baumgarte gain
def _run(gain):
    p = cartesian_pendulum(length=1.0, mass=1.0, angle=1.0)
    r = simulate(p, 1.0, Baumgarte(alpha=gain, beta=gain, solver="RK45", rtol=1e-6, atol=1e-6))
    return r.violation.max(), r.n_steps


def test_6_10_accepted_gains_meet_both_criteria_and_others_do_not():
    for gain in (11.0, 85.0):  # the ends of what the check accepts
        violation, steps = _run(gain)
        assert violation < 3e-7 and steps < 200, (gain, violation, steps)
        assert_correct("6.10", gain)
    assert _run(5.0)[0] > 3e-7  # "too small"
    assert _run(120.0)[1] > 200  # "too large"
    assert_hint("6.10", 5.0, "too small")
    assert_hint("6.10", 120.0, "too large")


def test_6_10_mistakes():
    assert_hint("6.10", 500.0, "colleague")
    assert_hint("6.10", 0.0, "off")
    assert_hint("6.10", -10.0, "GROW")
    assert_hint("6.10", 9.0, "close", "more")
    assert_hint("6.10", 90.0, "close", "less")
    assert_hint("6.10", [40.0, 40.0], "one number")
    assert_correct("6.10", np.float64(40.0))


# ---------------------------------------------------------------- variants of 6.6-6.9


def test_6_6_variants_minimum_of_the_potential_energy():
    y = sp.Symbol("y")
    ps = variants("6.6")
    for p in ps:
        V = p["k"] * (y - p["l0"]) ** 2 / 2 + M_RAM * G * y + p["F"] * y
        (y_rest,) = sp.solve(sp.diff(V, y), y)
        assert judged("6.6", float(y_rest), p).verdict == "correct"
        assert judged("6.6", float(y_rest), get("6.6").params).verdict == "wrong" or p == get("6.6").params
        assert_variant_hint("6.6", p["l0"] - M_RAM * G / p["k"], p, "load is missing")
        assert_variant_hint("6.6", p["l0"] + (M_RAM * G + p["F"]) / p["k"], p, "compressed")
        assert_variant_hint("6.6", 1000 * float(y_rest), p, "metres")
        assert get("6.6").sanity(float(y_rest), **p) is None
        assert "below the rest length" in get("6.6").sanity(p["l0"] + 0.01, **p)
    assert_keys_differ("6.6", ps)


def test_6_7_variants_step_across_the_limit():
    roots = np.roots([1 / 24, 1 / 6, 1 / 2, 1])
    z_rk4 = min(r.real for r in roots if abs(r.imag) < 1e-9)
    ps = variants("6.7")
    for p in ps:
        w = math.sqrt(p["k"] / p["m"])
        answer = np.array([2 / w, -z_rk4 / w])
        for step, h in zip((_euler, _rk4), answer, strict=True):
            assert _growth(step, 0.98 * h, w=w) < 1e-3 and _growth(step, 1.02 * h, w=w) > 1e3
        assert judged("6.7", answer, p).verdict == "correct"
        assert_variant_hint("6.7", answer[::-1], p, "swapped")
        assert_variant_hint("6.7", [1 / w, answer[1]], p, "factor of 2")
        assert_variant_hint("6.7", answer * w / w**2, p, "not k/m")
        assert_variant_hint("6.7", [2 / w, 2 * math.sqrt(2) / w], p, "imaginary axis")
    assert_keys_differ("6.7", ps)


def test_6_8_variants_by_the_second_implementation():
    ps = variants("6.8")
    for p in ps:
        assert p["h"] * math.sqrt(G / p["length"]) <= 0.09 and isinstance(p["n"], int)
        drift = pendulum_drift(n=p["n"], h=p["h"], length=p["length"], theta0=p["theta0"])
        assert drift[0] > 0 and abs(drift[2]) < 1e-4  # Euler gains energy; RK4 hardly drifts
        assert judged("6.8", drift, p).verdict == "correct"
        again = dict(n=p["n"], h=p["h"], length=p["length"], theta0=p["theta0"])
        assert judged("6.8", pendulum_drift(order="qv", **again), p).verdict == "correct"
        assert_variant_hint("6.8", pendulum_drift(datum=0.0, **again), p, "lowest point")
        assert_variant_hint("6.8", pendulum_drift(**{**again, "n": p["n"] + 1}), p, "too many")
        assert_variant_hint("6.8", [drift[0], drift[0], drift[2]], p, "NEW")
    assert_keys_differ("6.8", ps)


def test_6_9_variants_double_root():
    s = sp.Symbol("s")
    roots = np.roots([1 / 24, 1 / 6, 1 / 2, 1])
    z_rk4 = min(r.real for r in roots if abs(r.imag) < 1e-9)
    ps = variants("6.9")
    for p in ps:
        tau = sp.nsimplify(p["tau"])
        assert sp.roots(s**2 + 2 * s / tau + 1 / tau**2, s) == {-1 / tau: 2}
        alpha = 1 / p["tau"]
        assert judged("6.9", [alpha, alpha, -z_rk4 / alpha], p).verdict == "correct"
        assert_variant_hint("6.9", [p["tau"], p["tau"], 0.1], p, "rates")
        assert_variant_hint("6.9", [alpha, alpha**2, 0.1], p, "squared")
        assert_variant_hint("6.9", [alpha / 2, alpha / 2, 0.1], p, "factor of 2")
        assert_variant_hint("6.9", [alpha, alpha, 2 / alpha], p, "Euler")
    assert_keys_differ("6.9", ps)


def test_value_exercises_without_variants_are_the_same_for_all():
    """6.1-6.5 grade topology, a formula choice and a convention of the shared press; 6.10 a range."""
    for eid in ("6.1", "6.2", "6.3", "6.4", "6.5", "6.10"):
        assert get(eid).variant is None and not get(eid).has_variants, eid


# ---------------------------------------------------------------- 6.11 the trolley, end to end
TROLLEY = {"m_cart": 4.0, "m_load": 1.5, "length": 0.6, "k": 300.0, "l0": 0.5, "P": 6.0}


def trolley_model(rail, m_cart=4.0, m_load=1.5, length=0.6, k=300.0, l0=0.5, P=6.0):
    """The trolley as a student writes it: ``rail`` names the cart's joints with the rail."""
    m = PlanarModel(gravity=(0.0, -G))
    cart = m.add_body("cart", mass=m_cart, inertia=m_cart * 0.2 / 12 * 1.0, position=(l0, 0.0))
    load = m.add_body("load", mass=m_load, inertia=m_load * length**2 / 12, position=(l0, -length / 2),
                      angle=-math.pi / 2)
    for joint in rail:
        if joint == "wheel front":
            m.add_point_on_line("ground", cart, (0, 0), (0.2, 0), axis_i=(1, 0))
        elif joint == "wheel rear":
            m.add_point_on_line("ground", cart, (0, 0), (-0.2, 0), axis_i=(1, 0))
        elif joint == "wheel middle":
            m.add_point_on_line("ground", cart, (0, 0), (0, 0), axis_i=(1, 0))
        elif joint == "slide":
            m.add_translational("ground", cart, (0, 0), (0, 0), axis_i=(1, 0))
        elif joint == "slide front":
            m.add_translational("ground", cart, (0, 0), (0.2, 0), axis_i=(1, 0))
    m.add_revolute(cart, load, (0, 0), (-length / 2, 0))
    m.add_spring_damper("ground", cart, stiffness=k, rest_length=l0)
    m.add_force(load, (P, 0.0), point=(length / 2, 0.0))
    return m


def test_6_11a_every_colleague_model_by_finite_difference_rank_and_the_report():
    from mbdlib.exercises.ch06 import COLLEAGUE_RAILS

    seen = set()
    for rail in COLLEAGUE_RAILS:
        model = trolley_model(rail)
        J = fd_jacobian(model)
        rank = np.linalg.matrix_rank(J, tol=1e-6)
        dof, redundant = model.n - rank, J.shape[0] - rank
        assert dof == 2 and redundant >= 1, rail  # every variant repeats a condition
        report = check_model(model, small_displacement=False)
        assert report["redundant"].status == "fail" and f"DOF = 6 − {rank} = 2" in report["dof"].detail
        p = {"rail": list(rail)}
        assert judged("6.11a", [dof, redundant], p).verdict == "correct"
        grubler = model.n - J.shape[0]
        assert_variant_hint("6.11a", [grubler, 0], p, "Grübler")
        assert_variant_hint("6.11a", [dof, 0], p, "repeat conditions")
        assert_variant_hint("6.11a", [rank, redundant], p, "rank(Phi_q)")
        assert_variant_hint("6.11a", [dof, J.shape[0]], p, "every equation")
        assert_variant_hint("6.11a", [dof, rank], p, "equations - rank")
        assert get("6.11a").sanity([2.5, 1], **p) and get("6.11a").sanity([dof, redundant], **p) is None
        seen.add(redundant)
    assert len(seen) >= 3  # the variants do not all have the same answer
    # the corrected model (two wheels, no slide) has no redundant equations
    fixed = trolley_model(("wheel front", "wheel rear"))
    assert np.linalg.matrix_rank(fd_jacobian(fixed), tol=1e-6) == 4 and check_model(fixed).ok


def test_6_11a_public_and_mistakes():
    assert_correct("6.11a", [2, 2])
    assert_hint("6.11a", [0, 0], "Grübler")
    assert_hint("6.11a", [0, 2], "not Grübler's count")
    assert_hint("6.11a", [2, 0], "repeat conditions")
    assert_hint("6.11a", [4, 2], "rank(Phi_q)")
    assert_hint("6.11a", [2, 6], "every equation")
    assert_hint("6.11a", [2, 4], "equations - rank")
    assert_hint("6.11a", [1, 2], "two independent motions")
    assert {tuple(get("6.11a").key(params=p)) for p in variants("6.11a")} >= {(2.0, 1.0), (2.0, 2.0)}


def trolley_by_sympy(m_cart, m_load, length, k, l0, P):
    """Equilibrium [x, θ] (minimum of V) and the frequencies from M, K of the Lagrangian in (x, θ)."""
    from scipy.linalg import eigh

    x, th, xd, thd = sp.symbols("x theta xdot thetadot", real=True)
    gx, gy = x + length / 2 * sp.sin(th), -length / 2 * sp.cos(th)  # the load's centre
    gxd, gyd = sp.diff(gx, x) * xd + sp.diff(gx, th) * thd, sp.diff(gy, th) * thd
    T = (m_cart * xd**2 + m_load * (gxd**2 + gyd**2) + m_load * length**2 / 12 * thd**2) / 2
    V = k * (x - l0) ** 2 / 2 + m_load * G * gy - P * (x + length * sp.sin(th))  # P at the lower end
    rest = sp.nsolve([sp.diff(V, x), sp.diff(V, th)], [x, th], [l0, 0.3], prec=30)
    at = {x: rest[0], th: rest[1]}
    M = np.array(sp.hessian(T, (xd, thd)).subs(at), dtype=float)
    K = np.array(sp.hessian(V, (x, th)).subs(at), dtype=float)
    assert np.all(np.linalg.eigvalsh(K) > 0)  # a minimum: a stable rest
    return np.array([float(rest[0]), float(rest[1])]), np.sqrt(eigh(K, M, eigvals_only=True))


def test_6_11b_c_public_by_sympy_and_mistakes():
    rest, w = trolley_by_sympy(**TROLLEY)
    assert_correct("6.11b", rest)
    assert_correct("6.11c", w)
    x, th = rest
    p, m = TROLLEY["P"], TROLLEY["m_load"]
    assert_hint("6.11b", [x, math.degrees(th)], "radians")
    assert_hint("6.11b", [th, x], "order")
    assert_hint("6.11b", [x, math.atan(p / (m * G))], "lever arms differ")
    assert_hint("6.11b", [x, math.atan(p / (2 * m * G))], "swapped")
    assert_hint("6.11b", [x, math.pi / 2 - th], "downward vertical")
    assert_hint("6.11b", [2 * TROLLEY["l0"] - x, th], "stretched")
    assert_hint("6.11b", [x - TROLLEY["l0"], th], "not the spring's stretch")
    assert_hint("6.11b", [TROLLEY["l0"], th], "carries it")
    assert_hint("6.11b", [x, 1.1 * th], "entry [1]")
    assert_hint("6.11c", w[::-1], "ascending")
    assert_hint("6.11c", w / (2 * math.pi), "Hz")
    assert_hint("6.11c", w**2, "omega^2")
    hanging, _ = trolley_by_sympy(**{**TROLLEY, "P": 0.0})  # P = 0: the frequencies about theta = 0
    assert abs(hanging[1]) < 1e-12
    assert_hint("6.11c", _frequencies_hanging(**TROLLEY), "hanging position")
    assert_hint("6.11c", _frequencies_without(**TROLLEY, tag=False), "stiffness term is missing")
    assert_hint("6.11c", _frequencies_without(**TROLLEY, coupling=False), "coupled")
    assert_hint("6.11c", _frequencies_without(**TROLLEY, inertia=1 / 12), "parallel axis")


def _frequencies_hanging(m_cart, m_load, length, k, l0, P):
    """Linearized about theta = 0 (the tag line forgotten): sympy with P = 0."""
    return trolley_by_sympy(m_cart, m_load, length, k, l0, 0.0)[1]


def _frequencies_without(m_cart, m_load, length, k, l0, P, tag=True, coupling=True, inertia=1 / 3):
    """The 2 x 2 problem at the true rest angle, written out with one term changed."""
    from scipy.linalg import eigh

    th = math.atan(2 * P / (m_load * G))
    c = m_load * length / 2 * math.cos(th) if coupling else 0.0
    M = np.array([[m_cart + m_load, c], [c, inertia * m_load * length**2]])
    K = np.diag([k, m_load * G * length / 2 * math.cos(th) + (P * length * math.sin(th) if tag else 0.0)])
    return np.sqrt(eigh(K, M, eigvals_only=True))


def test_6_11b_c_variants_by_sympy():
    ps_b, ps_c = variants("6.11b"), variants("6.11c")
    for p in ps_b + ps_c:
        rest, w = trolley_by_sympy(**p)
        assert math.radians(14) < rest[1] < math.radians(61) and p["m_cart"] >= 2 * p["m_load"]
        assert judged("6.11b", rest, p).verdict == "correct"
        assert judged("6.11c", w, p).verdict == "correct"
        assert_variant_hint("6.11b", [rest[0], math.degrees(rest[1])], p, "radians")
        assert_variant_hint("6.11b", [p["l0"], rest[1]], p, "carries it")
        assert_variant_hint("6.11c", w**2, p, "omega^2")
        assert_variant_hint("6.11c", _frequencies_without(**p, tag=False), p, "stiffness term is missing")
        assert_variant_hint("6.11c", _frequencies_without(**p, coupling=False), p, "coupled")
        assert get("6.11b").sanity(rest, **p) is None and get("6.11c").sanity(w, **p) is None
        assert "radians" in get("6.11b").sanity([rest[0], math.degrees(rest[1])], **p)
        assert "ascending" in get("6.11c").sanity(w[::-1], **p)
    assert_keys_differ("6.11b", ps_b)
    assert_keys_differ("6.11c", ps_c)


def test_6_11_hints_print_no_expected_value():
    for eid in ("6.11a", "6.11b", "6.11c", "6.12"):
        ex = get(eid)
        for mistake in ex.mistakes:
            assert not re.search(r"\d\.\d", mistake.hint), (eid, mistake.hint)


# ---------------------------------------------------------------- 6.12 the largest stable step, a function
def _step_matrix(A, h, method):
    """One step of explicit Euler or classical RK4 on x' = A x, as a matrix (applied to each unit vector)."""
    A = np.asarray(A, dtype=float)

    def f(x):
        return A @ x

    cols = []
    for x in np.eye(len(A)):
        if method == "euler":
            cols.append(x + h * f(x))
        else:
            k1 = f(x)
            k2 = f(x + h / 2 * k1)
            k3 = f(x + h / 2 * k2)
            k4 = f(x + h * k3)
            cols.append(x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4))
    return np.column_stack(cols)


def _radius(A, h, method):
    return float(np.max(np.abs(np.linalg.eigvals(_step_matrix(A, h, method)))))


def brute_force_step(A, method):
    """The first h where the step matrix's spectral radius exceeds 1: a scan, then bisection."""
    hs = np.geomspace(1e-5, 10.0, 300)  # the stable steps form one interval (0, h]: a coarse scan will do
    k = next(i for i, h in enumerate(hs) if _radius(A, h, method) > 1 + 1e-13)
    lo, hi = hs[k - 1], hs[k]
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _radius(A, mid, method) <= 1 + 1e-13 else (lo, mid)
    return (lo + hi) / 2


def step_function(A, method):
    """A student's solution: Euler in closed form, RK4 by brentq on each eigenvalue's ray."""
    from scipy.optimize import brentq

    lam = np.linalg.eigvals(np.asarray(A, dtype=float))
    if method == "euler":
        return float(np.min(-2 * lam.real / np.abs(lam) ** 2))

    def excess(h, x):
        z = h * x
        return abs(1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24) - 1

    return float(min(brentq(excess, 1e-9 / abs(x), 3 / abs(x), args=(x,), xtol=1e-15) for x in lam))


def test_6_12_reference_by_brute_force_on_public_and_hidden_cases():
    ex = get("6.12")
    cases = ex.grading_cases(None)
    for seed in (3, 4):
        cases += ex.grading_cases(np.random.default_rng(seed))
    sizes = {len(A) for A, _ in cases}
    assert sizes - {2, 3, 4}, sizes  # hidden cases have other sizes than the public ones
    for A, method in cases:
        key = ex.key(A, method)
        assert key == pytest.approx(brute_force_step(A, method), rel=1e-7), (A, method)
        grid = np.linspace(0.01, 1.0, 60) * key
        assert all(_radius(A, h, method) <= 1 + 1e-12 for h in grid)  # every smaller step is stable
        assert _radius(A, 1.001 * key, method) > 1
    assert_correct("6.12", step_function)


def test_6_12_rk4_region_along_every_ray():
    from mbdlib.exercises.ch06 import _rk4_reach

    def R(z):
        return 1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24

    r = np.linspace(1e-6, 3.2, 32001)
    for phi in np.linspace(0.501 * np.pi, 1.499 * np.pi, 301):
        u = np.exp(1j * phi)
        outside = np.abs(R(r * u)) > 1
        first = r[np.argmax(outside)]
        assert np.all(np.diff(outside.astype(int)) >= 0)  # one crossing: stable, then unstable for good
        assert _rk4_reach(u) == pytest.approx(first, abs=2e-4)


def test_6_12_mistakes_on_public_and_hidden_cases():
    ex = get("6.12")

    def real_only(A, method):
        lam = np.linalg.eigvals(A)
        return {"euler": 2.0, "rk4": 2.785293563}[method] / np.max(np.abs(lam.real))

    def modulus(A, method):
        return {"euler": 2.0, "rk4": 2.785293563}[method] / np.max(np.abs(np.linalg.eigvals(A)))

    def slowest(A, method):
        return max(step_function(np.array([[x.real, x.imag], [-x.imag, x.real]]), method)
                   for x in np.linalg.eigvals(A))

    def fastest_only(A, method):
        lam = np.linalg.eigvals(A)
        x = lam[np.argmax(np.abs(lam))]
        return step_function(np.array([[x.real, x.imag], [-x.imag, x.real]]), method)

    def euler_for_rk4(A, method):
        return step_function(A, "euler")

    def swapped(A, method):
        return step_function(A, "rk4" if method == "euler" else "euler")

    def imaginary_axis(A, method):
        return step_function(A, "euler") if method == "euler" else 2 * math.sqrt(2) / np.max(
            np.abs(np.linalg.eigvals(A)))

    expect = [(real_only, "only the real parts"), (modulus, "negative real axis"),
              (euler_for_rk4, "explicit Euler's stability function"), (swapped, "swapped"),
              (slowest, "slowest mode"), (fastest_only, "largest |lambda| does not always"),
              (imaginary_axis, "imaginary axis only")]
    for wrong, words in expect:
        assert_hint("6.12", wrong, words)
        for seed in VARIANT_SEEDS:  # the grader's hidden cases give the same hint
            cases = ex.grading_cases(np.random.default_rng(seed))
            v = judge(ex, [wrong(*c) for c in cases], cases, {})
            assert v.verdict == "wrong" and words in v.hint, (seed, words, v)
    assert_hint("6.12", lambda A, method: 2 * step_function(A, method), "factor of 2")
    err = evaluate("6.12", lambda A, method: A[7, 7])
    assert err.verdict == "error" and "IndexError" in err.hint
    assert evaluate("6.12", lambda A, method: None).verdict == "unanswered"


def test_6_12_right_only_on_the_public_cases_is_wrong_on_hidden_ones():
    ex = get("6.12")
    table = [(A, method, ex.key(A, method)) for A, method in ex.grading_cases(None)]

    def lookup(A, method):
        for B, m, h in table:
            if m == method and np.shape(A) == B.shape and np.allclose(A, B):
                return h
        return 0.01

    assert_correct("6.12", lookup)
    for seed in VARIANT_SEEDS:
        cases = ex.grading_cases(np.random.default_rng(seed))
        assert judge(ex, [lookup(*c) for c in cases], cases, {}).verdict == "wrong"
        assert judge(ex, [step_function(*c) for c in cases], cases, {}).verdict == "correct"
    # the hidden cases differ between students
    one, two = (ex.grading_cases(np.random.default_rng(s)) for s in (1, 2))
    assert not np.allclose(one[0][0].reshape(-1)[:1], two[0][0].reshape(-1)[:1])


# ---------------------------------------------------------------- never crash, never accept junk


JUNK = [None, math.nan, [math.nan] * 3, "answer", True, [True, True], np.zeros((2, 2)), np.full(3, np.inf),
        {"a": 1}, Exploding(), lambda *a: 1 / 0, sp.Symbol("zz"), sp.zeros(2, 1), sp.nan, np.zeros(0)]


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_never_crashes_never_correct(answer):
    assert_never_crashes_never_correct(6, answer)


# ---------------------------------------------------------------- the student notebook, as handed out
def test_exercise_notebook_handed_out_and_with_the_colleagues_models():
    """Blank: every check says "not answered". Handing in the broken models gives their hints."""
    nb = nbformat.read(ROOT / "exercises" / "ch06_simulation.ipynb", as_version=4)
    answers = {"6.2": "fixed_guide = no_guide", "6.3": "fixed_redundant = two_guides",
               "6.4": "fixed_inertia = cad", "6.5": "fixed_gravity = mm", "6.10": "gain = 500.0"}
    for ex, line in answers.items():
        i = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and f'check("{ex}"' in c.source)
        nb.cells.insert(i, new_code_cell(line))
    assert execute(nb, ROOT / "exercises", timeout=240) == ("ok", "")
    records = records_in(nb)
    assert sorted(records) == sorted(x.id for x in exercises(6))
    # a function exercise records the function's name (the grader calls it on its own cases); its check
    # line in the notebook says that the placeholder is not written yet
    for ex in [x.id for x in exercises(6) if x.is_function]:
        assert records.pop(ex).get("function") == get(ex).function_name, ex
        cell = next(c for c in nb.cells if c.cell_type == "code" and f'check("{ex}"' in c.source)
        texts = [o.get("data", {}).get("text/plain", "") for o in cell.outputs]
        assert any(f"{ex} not answered yet" in t for t in texts), texts
    # the grader's judgement of the recorded answers (a record carries the answer, never a verdict)
    verdicts = {ex: _judge_value(get(ex), rec, get(ex).params) for ex, rec in records.items()}
    for ex, v in verdicts.items():
        json.dumps(records[ex])
        if ex in answers:
            assert v.verdict == "wrong" and v.points == 0, (ex, v)
        else:
            assert v.verdict == "unanswered", (ex, v)
    assert "still the model" in verdicts["6.2"].hint and "still the gravity" in verdicts["6.5"].hint
    assert "about its end" in verdicts["6.4"].hint and "colleague" in verdicts["6.10"].hint


# ---------------------------------------------------------------- a class graded end to end
@pytest.mark.slow
def test_released_chapter_6_graded_for_two_students_and_a_borrowed_notebook(tmp_path):
    """Release the solution notebook for two students, grade: all correct; Bo hands in Ann's notebook:
    every exercise whose key differs between them becomes wrong (the others, and 6.12's function, stay)."""
    import csv

    from mbdlib.exercises.grade import grade, read_secret, student_params
    from mbdlib.exercises.release import release_variants

    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,file\ns1,Ann,ann.ipynb\ns2,Bo,bo.ipynb\n")
    secret = tmp_path / "secret"
    secret.write_bytes(b"chapter-6-secret-for-the-tests-0123456789")
    solution = ROOT / "solutions" / "ch06_simulation.ipynb"
    released = release_variants(solution, roster, secret, tmp_path / "rel", allow_solutions=True)
    out = tmp_path / "grades.csv"
    options = dict(timeout=120, workers=2, roster=roster, secret_file=secret, log=lambda *a: None)
    grade([tmp_path / "rel"], out, **options)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 2 * len(exercises(6))
    assert all(r["verdict"] == "correct" for r in rows), [r for r in rows if r["verdict"] != "correct"]
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("ann.ipynb", "bo.ipynb"):
        (subs / name).write_bytes(released[0].read_bytes())  # Ann's numbers and answers, twice
    grade([subs], out, **options)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    bo = {r["exercise"]: r["verdict"] for r in rows if r["student"] == "s2"}
    key = read_secret(secret)
    changed = []
    for ex in exercises(6):
        if ex.variant is None:
            assert bo[ex.id] == "correct", ex.id  # same for all (6.12: a right function is right anywhere)
            continue
        keys = [np.asarray(ex.key(params=student_params(ex, s, key)), dtype=float) for s in ("s1", "s2")]
        same = keys[0].shape == keys[1].shape and np.allclose(keys[0], keys[1], rtol=1e-9)
        assert bo[ex.id] == ("correct" if same else "wrong"), (ex.id, keys)
        changed += [] if same else [ex.id]
    assert {"6.6", "6.7", "6.8", "6.9", "6.11b", "6.11c"} <= set(changed)


# ---------------------------------------------------------------- practice inside the pages (6.P1-6.P5)
PRACTICE_RIGHT = {
    "6.P1": [12, 10, 2],
    "6.P2": 9.81 * (4.0 / 2 + 6.0 + 40.0) / 5.0e3,
    "6.P3": [0, 1, 1],
    "6.P4": math.sqrt(1e9 / 150.0),
    "6.P5": 2.785293563405282 / 300.0,
}


def _practice_verdict(exercise_id, answer):
    return evaluate(exercise_id, answer)


@pytest.mark.parametrize("exercise_id", sorted(PRACTICE_RIGHT))
def test_practice_right_answer_is_correct(exercise_id):
    ex = get(exercise_id)
    assert ex.practice and ex.points == 0 and ex.mistakes
    assert _practice_verdict(exercise_id, PRACTICE_RIGHT[exercise_id]).verdict == "correct"


@pytest.mark.parametrize("exercise_id", sorted(PRACTICE_RIGHT))
def test_practice_each_mistake_gives_its_hint(exercise_id):
    ex = get(exercise_id)
    for mistake in ex.mistakes:
        v = _practice_verdict(exercise_id, mistake.answer())
        assert v.verdict == "wrong" and v.hint == mistake.hint, (exercise_id, mistake.hint, v)


@pytest.mark.parametrize("exercise_id", sorted(PRACTICE_RIGHT))
@pytest.mark.parametrize("junk", [None, "x", float("nan"), [1, 2], {"a": 1}, np.ones((3, 3))])
def test_practice_junk_never_crashes(exercise_id, junk):
    v = _practice_verdict(exercise_id, junk)
    assert v.verdict in ("wrong", "unanswered", "error")


def test_practice_numbers_are_the_chapter_press():
    """The practice keys use the press of book/chapters/ch06_press.py: the same numbers."""
    import importlib.util

    from mbdlib.exercises import ch06

    spec = importlib.util.spec_from_file_location("ch06_press", ROOT / "book" / "chapters" / "ch06_press.py")
    press = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(press)
    assert (ch06.PAGE_G, ch06.PAGE_R, ch06.PAGE_K_CB, ch06.PAGE_M_CROWN) == (press.g, press.r, press.k_cb,
                                                                           press.m_crown)
    assert ch06.PAGE_M == (press.m_crank, press.m_rod, press.m_ram)
    rep = press.build_press(crown_k=1e8).dof_report()
    assert [rep.coordinates, rep.constraints, rep.dof] == PRACTICE_RIGHT["6.P1"]
    rep = press.build_press(gib="point_on_line").dof_report()
    assert [rep.grubler, rep.dof, rep.constraints - rep.rank] == PRACTICE_RIGHT["6.P3"]
