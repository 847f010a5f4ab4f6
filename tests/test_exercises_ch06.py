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
from pathlib import Path

import nbformat
import numpy as np
import pytest
import sympy as sp
from exercise_helpers import Exploding, assert_correct, assert_hint, assert_never_crashes_never_correct
from nbformat.v4 import new_code_cell

from mbdlib import PlanarModel
from mbdlib.checks import check_model
from mbdlib.dae import CartesianPendulum, simulate
from mbdlib.exercises import evaluate, exercises, get
from mbdlib.exercises.ch06 import model_answer
from mbdlib.exercises.grade import _judge_value, execute, records_in

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
    assert [x.id for x in exs] == [f"6.{i}" for i in range(1, len(exs) + 1)]
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
        renamed = PlanarModel()
        renamed.add_body("slider", mass=1.0, inertia=1.0)
        assert_hint(ex, model_answer(ex, renamed), "named 'crank', 'rod' and 'ram'")
    broken = Broken()
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
def _growth(step, h, n=4000):
    """Norm of the state after n steps of ``step`` on x'' + 2ω x' + ω² x = 0 (ω = 20), from (1, 0)."""
    w = 20.0

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
    assert_hint("6.7", [2 / w, 1 / w], "2.785/omega")
    assert_hint("6.7", [2 / 400, 2.785 / 400], "not k/m")


# ---------------------------------------------------------------- 6.8 energy drift
def pendulum_drift(order="vq", n=500, h=0.01, datum=1.0, relative=True):
    """Relative energy errors of explicit Euler, symplectic Euler and RK4 (written a second time here).

    ``order``: "vq" updates ω first (the statement), "qv" θ first; RK4 from its Butcher tableau.
    ``datum``: V = g (datum - cos θ) per unit mass (1: from the lowest point; 0: from the pivot).
    """
    def f(y):
        return np.array([y[1], -G * np.sin(y[0])])

    def energy(y):
        return 0.5 * y[1] ** 2 + G * (datum - np.cos(y[0]))

    a = np.array([[0, 0, 0, 0], [0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1, 0]])
    b = np.array([1, 2, 2, 1]) / 6
    y0 = np.array([1.0, 0.0])
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
    assert_hint("6.9", [20, math.sqrt(20), 0.139], "beta = alpha")
    assert_hint("6.9", [20, 20, 0.1], "Euler")
    assert_hint("6.9", [20, 20, 2 * math.sqrt(2) / 20], "imaginary")
    assert_hint("6.9", [20, 20, 0.139 * 2 * math.pi], "no 2 pi")


# ---------------------------------------------------------------- 6.10 the Baumgarte gain
def _run(gain):
    p = CartesianPendulum(length=1.0, mass=1.0, angle=1.0)
    r = simulate(p, 1.0, method="baumgarte", alpha=gain, beta=gain, solver="RK45", rtol=1e-6, atol=1e-6)
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
