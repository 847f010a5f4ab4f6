"""Chapter 6 exercises: from mechanism to simulation (solutions/ch06_simulation.ipynb).

Five exercises are "find the modelling error" notebooks.  In four (6.2-6.5) the statement
builds a small, broken model of the chapter's slider-crank press with
:class:`~mbdlib.planar.PlanarModel`,
the student runs ``check_model`` (:mod:`mbdlib.checks`), reads the report, and answers with
the CORRECTED model, ``check("6.2", fixed_guide)``.  A model is not a number, so the check
passes it through :func:`model_answer` (the exercises' ``prepare``), which reads off the
few numbers the exercise grades (degrees of freedom and redundant equations from the
library's :meth:`~mbdlib.planar.PlanarModel.dof_report`, the directions the ram can still
move in from the null space of ``Φ_q``, the bodies' masses and inertias, the gravity
vector).  The expected numbers come from the press built below
with mbdlib's public API; the typical mistakes are recognised from those numbers, each with
its hint.  In 6.10 the error is a simulation setting (a Baumgarte gain far too large: the
stabilized violation obeys Φ̈ + 2αΦ̇ + β²Φ = 0 with the eigenvalue s = -α, a mode much faster than the
motion, so the problem is stiff and the adaptive RK45 shrinks its step roughly as 1/α) and the answer a
gain.  The other exercises are numbers: degrees of freedom, the ram's static position,
stable step sizes, energy drift of three integrators, Baumgarte gains.

=====  ======================================================  ======
id     exercise                                                points
=====  ======================================================  ======
6.1    Grübler count vs rank for the press with two guides     1
6.2    Find the error: the ram without its guide (a model)     2
6.3    Find the error: a redundant guide (a model)             2
6.4    Find the error: inertia about a joint (a model)         2
6.5    Find the error: gravity up and in mm/s² (a model)       1
6.6    The ram's static position on its spring                 1
6.7    Largest stable step of explicit Euler and RK4           2
6.8    Energy drift: explicit Euler, symplectic Euler, RK4     3
6.9    Baumgarte gains for a time constant, and the RK4 step   2
6.10   Find the error: a too-large Baumgarte gain              2
=====  ======================================================  ======

References: document 001 §3 and §5 (the modelling checklist, Baumgarte stabilization);
E. J. Haug, *Computer Aided Kinematics and Dynamics of Mechanical Systems*, 1989, ch. 3
and 6; E. Hairer & G. Wanner, *Solving Ordinary Differential Equations II*, 1996, §IV.2
(stability functions: explicit Euler ``R(z) = 1 + z``, RK4 ``R(z) = 1 + z + z²/2 + z³/6 + z⁴/24``,
real stability interval of RK4 ``[-2.785, 0]``);
E. Hairer, C. Lubich & G. Wanner, *Geometric Numerical Integration*, 2006, §I.1
(symplectic Euler); J. Baumgarte, CMAME 1, 1972.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from scipy.optimize import brentq

from ..dae import accelerations
from ..planar import PlanarModel
from .core import Exercise, Mistake, register

# ------------------------------------------------------------------ data (as in the notebook)
G = 9.81  # m/s²
R, L = 0.10, 0.40  # m: crank radius, connecting-rod length
THETA0 = math.radians(60.0)  # crank angle of the assembled pose, from +x
M_CRANK, M_ROD, M_RAM = 2.0, 3.0, 20.0  # kg
RAM_W, RAM_H = 0.20, 0.10  # m: the ram is a 0.20 x 0.10 block, centre of mass at the wrist pin
GUIDE_GAP = 0.10  # m: 6.1/6.3, the second (lower) guide bushing, below the wrist pin
I_CRANK, I_ROD = M_CRANK * R**2 / 12, M_ROD * L**2 / 12  # uniform bars, about their centres
I_RAM = M_RAM * (RAM_W**2 + RAM_H**2) / 12
K_SPRING, L0_SPRING, F_LOAD = 2.0e4, 0.30, 300.0  # 6.6: N/m, m, N (downwards on the ram)
M_OSC, K_OSC = 2.0, 800.0  # 6.7: kg, N/m; critically damped: c = 2 sqrt(k m)
C_OSC = 2 * math.sqrt(K_OSC * M_OSC)
PEND_L, PEND_M, PEND_THETA0, PEND_H, PEND_N = 1.0, 1.0, 1.0, 0.01, 500  # 6.8: m, kg, rad, s, steps
TAU = 0.05  # 6.9: s, time constant of the violation
GAIN_GIVEN = 500.0  # 6.10: the colleague's alpha = beta, 1/s
VIOLATION_TOL, STEP_BOUND, T_END = 3e-7, 200, 1.0  # 6.10: max ||Phi||, steps of RK45, simulated seconds
GAIN_RANGE = (11.0, 85.0)  # 6.10: gains meeting both (measured; see tests/test_exercises_ch06.py)


# ------------------------------------------------------------------ the press
def press_geometry() -> dict:
    """Crank pin A, wrist pin B, and the bars' angles in the assembled pose (m, rad).

    The crank turns about O = (0, 0); the ram slides on the vertical line x = 0 below it, so
    ``B = (0, A_y - sqrt(L² - A_x²))``.

    >>> g = press_geometry()
    >>> round(float(np.hypot(*(g["B"] - g["A"]))), 12) == L
    True
    """
    A = R * np.array([math.cos(THETA0), math.sin(THETA0)])
    B = np.array([0.0, A[1] - math.sqrt(L**2 - A[0] ** 2)])
    return {"A": A, "B": B, "crank": THETA0, "rod": math.atan2(*(B - A)[::-1])}


def press(guides=("translational",), gravity=(0.0, -G), rod_inertia=I_ROD) -> PlanarModel:
    """The press of the chapter: crank, connecting rod, ram; ``guides`` between ram and frame.

    Each guide is ``"translational"`` (the ram keeps its angle and slides on x = 0) or
    ``"point_on_line"`` (its pin stays on x = 0, the angle is free); the k-th guide grips the
    ram ``k * GUIDE_GAP`` below the wrist pin.

    >>> r = press().dof_report()
    >>> r.coordinates, r.rank, r.dof
    (9, 8, 1)
    """
    g = press_geometry()
    m = PlanarModel(gravity=gravity)
    crank = m.add_body("crank", mass=M_CRANK, inertia=I_CRANK, position=g["A"] / 2, angle=g["crank"])
    rod = m.add_body("rod", mass=M_ROD, inertia=rod_inertia, position=(g["A"] + g["B"]) / 2, angle=g["rod"])
    ram = m.add_body("ram", mass=M_RAM, inertia=I_RAM, position=g["B"])
    m.add_revolute("ground", crank, (0.0, 0.0), (-R / 2, 0.0), name="bearing")
    m.add_revolute(crank, rod, (R / 2, 0.0), (-L / 2, 0.0), name="crank pin")
    m.add_revolute(rod, ram, (L / 2, 0.0), (0.0, 0.0), name="wrist pin")
    for k, kind in enumerate(guides):
        add = m.add_translational if kind == "translational" else m.add_point_on_line
        add("ground", ram, (0.0, 0.0), (0.0, -k * GUIDE_GAP), axis_i=(0.0, 1.0), name=f"guide {k + 1}")
    return m


# ------------------------------------------------------------------ a model as an answer
NOT_A_MODEL, NOT_ANALYSED, NAMES_CHANGED = -1.0, -2.0, -3.0  # one-number codes (features have >= 2)


def _motion_features(model: PlanarModel) -> np.ndarray:
    """[DOF, redundant equations (m - rank), ram can move sideways (0/1), ram can rotate (0/1)]."""
    report = model.dof_report()
    ram = model.body("ram")
    q = model.q0 if not report.notes else model.q_guess()
    J = model.phi_q(q)
    _, s, vt = np.linalg.svd(J) if J.size else (None, np.zeros(0), np.eye(model.n))
    null = vt[report.rank:].T  # columns: the free motions (an orthonormal basis of ker Φ_q)
    k = 3 * ram.index
    free = [float(np.linalg.norm(null[k + i])) > 1e-6 for i in (0, 2)]
    return np.array([report.dof, report.constraints - report.rank, *free], dtype=float)


def _inertia_features(model: PlanarModel) -> np.ndarray:
    """[mass, inertia] of the crank, the rod and the ram (kg, kg m²)."""
    return np.array([v for name in ("crank", "rod", "ram") for b in [model.body(name)]
                     for v in (b.mass, b.inertia)], dtype=float)


def _gravity_features(model: PlanarModel) -> np.ndarray:
    return np.asarray(model.gravity, dtype=float)


FEATURES = {"6.2": _motion_features, "6.3": _motion_features, "6.4": _inertia_features,
            "6.5": _gravity_features}


def model_answer(exercise_id: str, model):
    """The numbers exercise ``exercise_id`` grades of a corrected ``model``.

    6.2, 6.3: ``[DOF, redundant equations, ram moves sideways, ram rotates]`` (shape (4,));
    6.4: ``[m, I]`` of crank, rod, ram (shape (6,)); 6.5: the gravity vector (shape (2,)).
    ``None`` stays ``None`` (not answered); an object that is not a PlanarModel, a model
    mbdlib cannot analyse, or one without the bodies "crank", "rod", "ram" gives a
    one-number code that the check turns into a hint: no answer makes it raise (only an
    ``exercise_id`` that takes no model does, with ``KeyError``).

    >>> model_answer("6.2", press()).tolist()
    [1.0, 0.0, 0.0, 0.0]
    >>> model_answer("6.2", None) is None
    True
    """
    if model is None or model is Ellipsis:
        return None
    if not isinstance(model, PlanarModel):
        return np.array([NOT_A_MODEL])
    try:
        names = {b.name for b in model.bodies}
        if not {"crank", "rod", "ram"} <= names:
            return np.array([NAMES_CHANGED])
        return FEATURES[str(exercise_id)](model)
    except KeyError:
        raise KeyError(f"exercise {exercise_id!r} takes no model; the model exercises are "
                       f"{', '.join(FEATURES)}") from None
    except Exception:  # noqa: BLE001 - a check must not crash on a broken model
        return np.array([NOT_ANALYSED])


def _graded_numbers(exercise_id: str):
    """``prepare`` of the model exercises: a model becomes :func:`model_answer`'s numbers.

    An array (what ``model_answer`` returns) is passed through, so that
    ``check("6.2", model_answer("6.2", fixed))`` and ``check("6.2", fixed)`` are the same.
    """
    def prepare(answer):
        return answer if isinstance(answer, np.ndarray) else model_answer(exercise_id, answer)

    return prepare


def _code(value):
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (1,) and s[0] == value

    return test


_MODEL_MISTAKES = [
    Mistake.when(_code(NOT_A_MODEL), "give the corrected model itself (the PlanarModel you built), "
                                     "not a number or a list"),
    Mistake.when(_code(NOT_ANALYSED), "mbdlib could not analyse your model: run check_model(fixed) and "
                                      "print(fixed.dof_report().text) to see why (does it assemble?)"),
    Mistake.when(_code(NAMES_CHANGED), "keep the bodies of the statement, named 'crank', 'rod' and 'ram'"),
]


def _features_are(*values, tol=1e-9):
    """Predicate: the student's features equal ``values`` (``None`` entries are not compared)."""
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (len(values),) and all(v is None or abs(s[i] - v) <= tol * (1 + abs(v))
                                                 for i, v in enumerate(values))

    return test


# ------------------------------------------------------------------ 6.1 Grübler vs rank
TWO_GUIDES = ("translational", "translational")


@cache
def _two_guides_report():
    return press(guides=TWO_GUIDES).dof_report()


def _grubler_rank_dof():
    r = _two_guides_report()
    return np.array([r.grubler, r.rank, r.dof], dtype=float)


def _hand_count(per_body=3, revolute=2, slide=2, ground=0):
    """Grübler by hand: 3 (bodies + ground) - 2 per revolute - 2 per prismatic (3 revolutes, 2 guides)."""
    return per_body * (3 + ground) - 3 * revolute - 2 * slide


register(
    Exercise(
        "6.1",
        "Grübler count and rank for the press with two guides",
        1,
        reference=_grubler_rank_dof,
        mistakes=[
            Mistake.when(_features_are(_hand_count(ground=1), None, None),
                         "the frame (ground) is not a moving body: count 3 coordinates for each of the three "
                         "moving bodies only"),
            Mistake.when(_features_are(_hand_count(revolute=1, slide=1), None, None),
                         "a planar revolute or prismatic joint removes 2 degrees of freedom, not 1"),
            Mistake.when(_features_are(_hand_count(slide=1), None, None),
                         "each prismatic guide removes 2 degrees of freedom (no sideways motion, no "
                         "turning)"),
            Mistake.when(_features_are(_hand_count(per_body=6, revolute=5, slide=5), None, None),
                         "that is the spatial count (6 per body, 5 per joint); the press is planar: 3 "
                         "per body, "
                         "2 per joint"),
            Mistake.when(_features_are(None, 10, None),
                         "10 is the number of constraint EQUATIONS; the rank counts the independent ones "
                         "(numpy.linalg.matrix_rank of Phi_q)"),
            Mistake.when(_features_are(None, None, -1),
                         "a negative Grübler count does not make the DOF negative: the two guides impose the "
                         "same conditions twice, so DOF = coordinates - rank(Phi_q)"),
            Mistake.when(_features_are(None, None, 0),
                         "the press does move (the crank turns): DOF = coordinates - rank(Phi_q) = 9 - 8"),
        ],
    )
)


# ------------------------------------------------------------------ 6.2, 6.3 joints
@cache
def _press_motion():
    return _motion_features(press())


register(
    Exercise(
        "6.2",
        "Find the modelling error: the ram without its guide",
        2,
        reference=_press_motion,
        prepare=_graded_numbers("6.2"),
        mistakes=[
            *_MODEL_MISTAKES,
            Mistake.when(_features_are(3, 0, 1, 1),
                         "this is still the model of the statement: DOF is 3, expected 1 (check_model's "
                         "'dof' "
                         "item). The ram hangs from the rod like a pendulum: what holds it on its line?"),
            Mistake.when(_features_are(2, 0, 0, 1),
                         "the ram can still rotate: DOF is 2, expected 1. A point-on-line joint keeps "
                         "its pin "
                         "on the guide but not its angle: which joint fixes its angle? (add_translational)"),
            Mistake.when(_features_are(2, 0, 1, 0),
                         "the ram can no longer turn but still moves sideways: DOF is 2, expected 1; the "
                         "guide must also keep it on the line x = 0"),
            Mistake.when(_features_are(1, 0, 1, None),
                         "the ram slides sideways: its guide is the vertical line x = 0, axis_i=(0, 1)"),
            Mistake.when(lambda s, e: s.shape == (4,) and s[0] == 1 and s[1] > 0,
                         "DOF is 1 but Phi_q is rank deficient: you added a condition twice (a guide and a "
                         "second guide or driver): check_model's 'redundant' item names it"),
            Mistake.when(lambda s, e: s.shape == (4,) and s[0] == 0,
                         "the press cannot move any more (DOF 0): the guide must let the ram slide along y"),
        ],
    )
)

register(
    Exercise(
        "6.3",
        "Find the modelling error: a redundant guide",
        2,
        reference=_press_motion,
        prepare=_graded_numbers("6.3"),
        mistakes=[
            *_MODEL_MISTAKES,
            Mistake.when(_features_are(1, 2, 0, 0),
                         "this is still the model of the statement: two prismatic guides on one line repeat "
                         "each other, Phi_q is rank deficient by 2 and the KKT matrix is singular"),
            Mistake.when(_features_are(1, 1, 0, 0),
                         "the rank is still deficient by 1: with its angle fixed by one guide, a point "
                         "of the "
                         "ram on a second parallel line is implied too; remove the second guide"),
            Mistake.when(_features_are(2, 0, 0, 1),
                         "you removed too much: the point-on-line left lets the ram rotate (DOF 2); keep one "
                         "translational guide"),
            Mistake.when(lambda s, e: s.shape == (4,) and s[0] > 1 and s[1] > 0,
                         "you removed the wrong constraint: the rank is still deficient (both guides are "
                         "there) and the press now has more than one DOF; put it back and remove one guide"),
            Mistake.when(lambda s, e: s.shape == (4,) and s[0] > 1,
                         "you removed too much: DOF should be 1 (the crank angle); keep exactly one "
                         "translational guide"),
        ],
    )
)


# ------------------------------------------------------------------ 6.4 inertia
def _inertias(rod=I_ROD, rod_mass=M_ROD):
    return np.array([M_CRANK, I_CRANK, rod_mass, rod, M_RAM, I_RAM])


def _rod_inertia_is(value, mass=M_ROD):
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (6,) and bool(np.isclose(s[3], value, rtol=1e-6)) and bool(np.isclose(s[2], mass))

    return test


register(
    Exercise(
        "6.4",
        "Find the modelling error: an inertia about a joint",
        2,
        reference=lambda: _inertias(),
        prepare=_graded_numbers("6.4"),
        rtol=1e-6,
        mistakes=[
            *_MODEL_MISTAKES,
            Mistake.when(_rod_inertia_is(M_ROD * L**2 / 3),
                         "the rod's inertia is m L^2/3: that is about its end (the crank pin); the centre of "
                         "mass needs m L^2/12 (parallel axis: m L^2/3 - m (L/2)^2)"),
            Mistake.when(_rod_inertia_is(M_ROD * L**2),
                         "m L^2 is a point mass at distance L; a uniform bar about its centre has m L^2/12"),
            Mistake.when(_rod_inertia_is(M_ROD * L**2 / 4),
                         "m (L/2)^2 is only the parallel-axis term; about the centre of mass a uniform "
                         "bar has "
                         "m L^2/12"),
            Mistake.when(_rod_inertia_is(M_ROD * L**2 / 2),
                         "m r^2/2 is a disk; the rod is a slender bar: m L^2/12 about its centre"),
            Mistake.when(_rod_inertia_is(M_ROD * L**2 / 3 + M_ROD * L**2 / 4),
                         "the parallel-axis term goes the other way: I_C = I_end - m d^2, so the rod needs "
                         "m L^2/3 - m (L/2)^2 = m L^2/12"),
            Mistake.when(lambda s, e: s.shape == (6,) and not np.isclose(s[2], M_ROD),
                         "keep the rod's mass (3 kg): it is its moment of inertia that was given about the "
                         "wrong point"),
            Mistake.when(lambda s, e: s.shape == (6,) and np.isclose(s[3], e[3])
                         and not np.allclose(s[[1, 5]], e[[1, 5]]),
                         "the rod is right now, but you changed another body's inertia: the crank and "
                         "the ram "
                         "were given about their centres already"),
        ],
    )
)


# ------------------------------------------------------------------ 6.5 gravity
def _gravity_is(*g):
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (2,) and bool(np.allclose(s, g, rtol=2e-3, atol=1e-9))

    return test


register(
    Exercise(
        "6.5",
        "Find the modelling error: gravity up and in mm/s²",
        1,
        reference=lambda: np.array([0.0, -G]),
        prepare=_graded_numbers("6.5"),
        rtol=2e-3,  # 9.80665 is as good as 9.81
        atol=1e-9,
        mistakes=[
            *_MODEL_MISTAKES,
            Mistake.when(_gravity_is(0.0, 1000 * G),
                         "this is still the gravity of the statement: check_model warns twice (units: 9810 "
                         "suggests mm/s^2; gravity points up)"),
            Mistake.when(_gravity_is(0.0, -1000 * G),
                         "the direction is right now, but 9810 is g in mm/s^2: the model is in metres, so "
                         "g = 9.81 m/s^2"),
            Mistake.when(_gravity_is(0.0, G),
                         "SI units now, but gravity still points up (+y): y is up in this model, so g = (0, "
                         "-9.81)"),
            Mistake.when(lambda s, e: s.shape == (2,) and np.isclose(abs(s[0]), G, rtol=2e-3) and s[1] == 0,
                         "gravity acts along y (vertical) in this model, not along x"),
            Mistake.when(lambda s, e: s.shape == (2,) and np.isclose(s[1], -1.0),
                         "gravity is an acceleration (m/s^2), not a unit direction: (0, -9.81)"),
        ],
    )
)


# ------------------------------------------------------------------ 6.6 static position of the ram
def ram_on_spring(load=F_LOAD) -> PlanarModel:
    """The ram alone on its vertical guide, sitting on a spring from the frame at (0, 0).

    Spring: stiffness ``K_SPRING``, rest length ``L0_SPRING``, to the ram's centre; a constant
    downward load ``load`` on the ram; gravity ``-G`` along y.

    >>> ram_on_spring().dof_report().dof
    1
    """
    m = PlanarModel(gravity=(0.0, -G))
    ram = m.add_body("ram", mass=M_RAM, inertia=I_RAM, position=(0.0, L0_SPRING))
    m.add_translational("ground", ram, (0.0, 0.0), (0.0, 0.0), axis_i=(0.0, 1.0), name="guide")
    m.add_spring_damper("ground", ram, stiffness=K_SPRING, rest_length=L0_SPRING, name="spring")
    if load:
        m.add_force(ram, (0.0, -load), name="pressing load")
    return m


@cache
def _static_height():
    """The height y where the library's KKT acceleration of the ram vanishes (brentq)."""
    m = ram_on_spring()

    def ydd(y):
        return accelerations(m, 0.0, np.array([0.0, y, 0.0]), np.zeros(3))[0][1]

    return float(brentq(ydd, 0.01, L0_SPRING + 0.1, xtol=1e-14))


def _height(weight=True, load=True, sign=-1.0, scale=1.0, mass=M_RAM):
    """y = l0 - (m g + F)/k, with a chosen mistake."""
    force = (mass * G if weight else 0.0) + (F_LOAD if load else 0.0)
    return scale * (L0_SPRING + sign * force / K_SPRING)


register(
    Exercise(
        "6.6",
        "The ram's static position on its spring",
        1,
        reference=_static_height,
        mistakes=[
            Mistake(lambda: _height(load=False),
                    "the pressing load is missing: at rest the spring carries the weight AND the 300 N load"),
            Mistake(lambda: _height(weight=False),
                    "the ram's weight m g is missing: the spring carries it too"),
            Mistake(lambda: _height(sign=1.0),
                    "the spring is compressed, not stretched: the ram sits ON it, so y = l0 - (m g + F)/k"),
            Mistake(lambda: (M_RAM * G + F_LOAD) / K_SPRING,
                    "that is the deflection (m g + F)/k; the question asks for the ram's height y = l0 - "
                    "deflection"),
            Mistake(lambda: _height(scale=1000.0), "give the height in metres, not millimetres"),
            Mistake(lambda: _height(mass=1.0),
                    "the weight is m g = 20 kg x 9.81 m/s^2 (you used g alone, as a force)"),
        ],
    )
)


# ------------------------------------------------------------------ 6.7 stable step sizes
def _r_euler(z):
    return 1 + z


def _r_rk4(z):
    return 1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24


def largest_stable_step(eigenvalues, stability_function) -> float:
    """Largest h with ``|R(h λ)| <= 1`` for every eigenvalue λ (first crossing from h = 0, brentq).

    >>> round(largest_stable_step([-10.0], lambda z: 1 + z), 12)
    0.2
    """
    lam = np.asarray(eigenvalues, dtype=complex).reshape(-1)

    def excess(h):
        return np.max(np.abs(stability_function(np.multiply.outer(h, lam))), axis=-1) - 1.0

    grid = np.linspace(1e-3, 10.0, 10001) / float(np.max(np.abs(lam)))
    k = int(np.argmax(excess(grid) > 0))  # the first unstable step on the grid
    return float(brentq(lambda h: float(excess(h)), grid[k - 1], grid[k], xtol=1e-15))


def _oscillator_eigenvalues():
    A = np.array([[0.0, 1.0], [-K_OSC / M_OSC, -C_OSC / M_OSC]])
    return np.linalg.eigvals(A)


@cache
def _steps():
    lam = _oscillator_eigenvalues()
    return np.array([largest_stable_step(lam, _r_euler), largest_stable_step(lam, _r_rk4)])


OMEGA = math.sqrt(K_OSC / M_OSC)


def _step_entry(index, value):
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (2,) and bool(np.isclose(s[index], value, rtol=2e-3))

    return test


register(
    Exercise(
        "6.7",
        "Largest stable step of explicit Euler and RK4",
        2,
        reference=_steps,
        rtol=2e-3,  # 2.785 to four digits is enough
        mistakes=[
            Mistake(lambda: np.array([2.0, 2.785]) * 2 * math.pi / OMEGA,
                    "you used the frequency f = omega/(2 pi) in Hz; the bound h <= 2/|lambda| needs the "
                    "eigenvalue in rad/s: omega = sqrt(k/m)"),
            Mistake(lambda: np.array([2.0, 2.785]) / OMEGA**2,
                    "omega = sqrt(k/m), not k/m"),
            Mistake(lambda: np.array([2.785, 2.0]) / OMEGA, "the two values are swapped: (Euler, RK4)"),
            Mistake.when(_step_entry(0, 1.0 / OMEGA),
                         "explicit Euler: |1 + h lambda| <= 1 with lambda = -omega gives h <= 2/omega "
                         "(the factor "
                         "2)"),
            Mistake.when(_step_entry(0, 0.0),
                         "explicit Euler is never stable on the UNDAMPED oscillator; this one is critically "
                         "damped: both eigenvalues are -omega (real), so h <= 2/omega"),
            Mistake.when(_step_entry(1, 2 * math.sqrt(2) / OMEGA),
                         "2 sqrt(2)/omega is RK4's bound on the imaginary axis (undamped); with "
                         "critical damping "
                         "lambda = -omega is real and RK4's real interval is [-2.785, 0]"),
            Mistake.when(_step_entry(1, 2.0 / OMEGA),
                         "2/omega is explicit Euler's bound; RK4's stability polynomial stays below 1 "
                         "down to "
                         "z = -2.785 on the real axis"),
            Mistake.when(_step_entry(1, 1.0 / OMEGA),
                         "RK4: |1 + z + z^2/2 + z^3/6 + z^4/24| <= 1 for -2.785 <= z <= 0, so h <= "
                         "2.785/omega"),
        ],
    )
)


# ------------------------------------------------------------------ 6.8 energy drift
def _pendulum_rhs(theta, omega):
    return omega, -G / PEND_L * math.sin(theta)


def pendulum_energy(theta, omega, datum="bottom"):
    """½ m L² ω² + m g L (1 - cos θ) (``datum="pivot"``: potential -m g L cos θ) [J]."""
    V = PEND_M * G * PEND_L * ((1 - math.cos(theta)) if datum == "bottom" else -math.cos(theta))
    return 0.5 * PEND_M * PEND_L**2 * omega**2 + V


def integrate_pendulum(method: str, h=PEND_H, n=PEND_N, theta=PEND_THETA0, omega=0.0):
    """(θ, ω) after ``n`` steps of ``method`` in {"euler", "symplectic", "symplectic_qfirst", "rk4"}.

    Explicit Euler: both from the old state; symplectic Euler: ``ω`` first, then ``θ`` with the
    new ``ω`` (``"symplectic_qfirst"``: ``θ`` first, then ``ω`` at the new ``θ``); classical RK4.

    >>> theta, omega = integrate_pendulum("symplectic", n=1)   # ω1 = -h (g/L) sin θ0, θ1 = θ0 + h ω1
    >>> round(omega, 7), round(theta - PEND_THETA0, 9)
    (-0.0825483, -0.000825483)
    """
    for _ in range(n):
        if method == "euler":
            d_theta, d_omega = _pendulum_rhs(theta, omega)
            theta, omega = theta + h * d_theta, omega + h * d_omega
        elif method == "symplectic":
            omega = omega + h * _pendulum_rhs(theta, omega)[1]
            theta = theta + h * omega
        elif method == "symplectic_qfirst":
            theta = theta + h * omega
            omega = omega + h * _pendulum_rhs(theta, omega)[1]
        elif method == "rk4":
            k1 = _pendulum_rhs(theta, omega)
            k2 = _pendulum_rhs(theta + h / 2 * k1[0], omega + h / 2 * k1[1])
            k3 = _pendulum_rhs(theta + h / 2 * k2[0], omega + h / 2 * k2[1])
            k4 = _pendulum_rhs(theta + h * k3[0], omega + h * k3[1])
            theta += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
            omega += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        else:
            raise ValueError(f"unknown method {method!r}")
    return theta, omega


@cache
def _drift(methods=("euler", "symplectic", "rk4"), n=PEND_N, datum="bottom", relative=True):
    E0 = pendulum_energy(PEND_THETA0, 0.0, datum)
    errors = [pendulum_energy(*integrate_pendulum(m, n=n), datum) - E0 for m in methods]
    return np.array(errors) / (E0 if relative else 1.0)


register(
    Exercise(
        "6.8",
        "Energy drift of explicit Euler, symplectic Euler and RK4",
        3,
        reference=_drift,
        rtol=1e-6,
        atol=1e-12,
        alternatives=[lambda: _drift(("euler", "symplectic_qfirst", "rk4"))],
        mistakes=[
            Mistake(lambda: _drift(datum="pivot"),
                    "measure the potential energy from the lowest point as stated, V = m g L (1 - cos "
                    "theta): "
                    "with V = -m g L cos theta, E0 is different and so is the relative error"),
            Mistake(lambda: _drift(relative=False),
                    "those are absolute energy errors (J); divide by E0 for the relative ones"),
            Mistake(lambda: -_drift(), "the sign is wrong: (E_N - E_0)/E_0 (explicit Euler GAINS energy)"),
            Mistake(lambda: _drift(("euler", "euler", "rk4")),
                    "your symplectic Euler is explicit Euler: update omega first, then theta with the NEW "
                    "omega"),
            Mistake(lambda: _drift(n=PEND_N + 1), "one step too many: N = 500 steps reach t = 5 s"),
            Mistake(lambda: _drift(n=PEND_N - 1), "one step too few: N = 500 steps reach t = 5 s"),
        ],
    )
)


# ------------------------------------------------------------------ 6.9 Baumgarte gains
@cache
def _baumgarte_design():
    """alpha = beta = 1/τ: s² + 2αs + β² = (s + 1/τ)²; RK4 keeps h·(1/τ) inside [-2.785, 0]."""
    alpha = 1.0 / TAU
    return np.array([alpha, alpha, largest_stable_step([-alpha], _r_rk4)])


def _design(alpha, beta, h_factor=None):
    h = largest_stable_step([-alpha], _r_rk4) if h_factor is None else h_factor / alpha
    return np.array([alpha, beta, h])


def _gains_are(alpha, beta):
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (3,) and bool(np.allclose(s[:2], [alpha, beta], rtol=1e-3))

    return test


register(
    Exercise(
        "6.9",
        "Baumgarte gains for a time constant, and the RK4 step they allow",
        2,
        reference=_baumgarte_design,
        rtol=2e-3,
        mistakes=[
            Mistake.when(_gains_are(TAU, TAU), "alpha and beta are rates (1/s): the roots are s = -1/tau, so "
                                               "alpha = beta = 1/tau"),
            Mistake.when(_gains_are(1 / TAU, 1 / TAU**2),
                         "beta enters squared (beta^2 Phi): for a double root at -1/tau, beta = 1/tau"),
            Mistake.when(_gains_are(1 / (2 * TAU), 1 / (2 * TAU)),
                         "the damping term is 2 alpha Phi_dot: s^2 + 2 alpha s + beta^2 = (s + 1/tau)^2 "
                         "gives "
                         "alpha = 1/tau"),
            Mistake.when(_gains_are(1 / TAU, math.sqrt(1 / TAU)),
                         "beta^2 = alpha^2 (critical damping), so beta = alpha = 1/tau"),
            Mistake(lambda: _design(1 / TAU, 1 / TAU, 2.0),
                    "2/alpha is explicit Euler's bound; for RK4 the mode s = -alpha is stable while "
                    "h alpha <= 2.785"),
            Mistake(lambda: _design(1 / TAU, 1 / TAU, 2 * math.sqrt(2)),
                    "2 sqrt(2)/alpha is RK4's bound on the imaginary axis; s = -alpha is real: h alpha <= "
                    "2.785"),
            Mistake(lambda: _design(1 / TAU, 1 / TAU, 2.785 * 2 * math.pi),
                    "h alpha <= 2.785 with alpha in 1/s; no 2 pi"),
        ],
    )
)


# ------------------------------------------------------------------ 6.10 a too-large Baumgarte gain
def _range_test(lo=-math.inf, hi=math.inf):
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (1,) and lo <= s[0] < hi

    return test


_LO, _HI = GAIN_RANGE

register(
    Exercise(
        "6.10",
        "Find the modelling error: a too-large Baumgarte gain",
        2,
        # every gain in GAIN_RANGE is correct: the midpoint, accepted within half the width
        reference=lambda: (_LO + _HI) / 2,
        rtol=0.0,
        atol=(_HI - _LO) / 2,
        mistakes=[
            Mistake.when(lambda s, e: np.asarray(s).shape not in ((), (1,)),
                         "give one number, alpha (beta = alpha)"),
            Mistake.when(_range_test(GAIN_GIVEN, GAIN_GIVEN * (1 + 1e-9)),
                         "that is the colleague's gain: the Baumgarte mode at s = -alpha is far faster "
                         "than the pendulum, the problem is stiff, and RK45 shrinks its step roughly as "
                         "1/alpha: far more than 200 steps"),
            Mistake.when(_range_test(hi=0.0), "a negative gain makes the violation GROW: alpha > 0"),
            Mistake.when(_range_test(0.0, 1e-12),
                         "alpha = beta = 0 switches the stabilization off: the violation drifts to "
                         "about 3e-6"),
            Mistake.when(_range_test(1e-12, 8.0),
                         "too small: the drift is not corrected fast enough, max ||Phi|| stays above 3e-7 "
                         "(at alpha = 5 it is about 2e-6)"),
            Mistake.when(_range_test(8.0, _LO),
                         f"close: at this gain max ||Phi|| is about the tolerance 3e-7; take a little more "
                         f"(the check accepts {_LO:g} to {_HI:g})"),
            Mistake.when(_range_test(_HI, 100.0),
                         f"close: at this gain RK45 needs about 200 steps; take a little less (the check "
                         f"accepts {_LO:g} to {_HI:g})"),
            Mistake.when(_range_test(100.0),
                         "too large: the Baumgarte mode at s = -alpha is much faster than the motion (a "
                         "stiff problem): RK45 shrinks its step roughly as 1/alpha and takes more than 200 "
                         "steps in 1 s; the violation needs far less"),
        ],
    )
)
