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

6.11a-c model one mechanism end to end through the checklist, each part graded on its own: a crane
trolley on a spring-held drive with a load (a bar) hanging from it, pulled sideways by a tag line.
(a) DOF and redundant equations of a colleague's model whose rail joints repeat conditions (by the
report or by rank); (b) the static equilibrium under the tag line, [x, θ]; (c) the two small-oscillation
frequencies about it (the reference linearizes mbdlib's KKT accelerations on the constraint manifold;
the mistakes are closed forms in (x, θ)).  6.12 asks for a FUNCTION, ``stable_step(A, method)``: the
largest fixed step of explicit Euler or RK4 on ẋ = A x, graded on hidden random systems of other sizes.

**Variants.** 6.6-6.9 and 6.11a-c draw each student's numbers (``params``/``variant``; the public
numbers are the notebook's); 6.12 draws its hidden cases.  The others are the same for everyone: 6.1
and 6.2-6.5 grade topology, a formula choice and a convention of the shared press (its numbers do not
change what is graded, and varying them would change the press every exercise builds on), and 6.10's
answer is a range of gains measured by simulation.  A multi-part problem's parts draw their numbers
independently (the grading core seeds each exercise id on its own), so a released notebook gives 6.11b
and 6.11c their own data cells; the student builds the model as a function of the numbers.

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
6.11a  Trolley and load: DOF and redundant equations           1
6.11b  Trolley and load: static equilibrium [x, θ]             2
6.11c  Trolley and load: small-oscillation frequencies         2
6.12   Largest stable step for a linear system (a function)    2
=====  ======================================================  ======

References: document 001 §三 and §五 (Baumgarte stabilization, the modelling checklist);
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

from ..dae import accelerations, static_equilibrium
from ..linalg import null_space
from ..planar import PlanarModel
from ..system import Assembly
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
                         "the press does move (the crank turns): DOF = coordinates - rank(Phi_q)"),
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
                         "you removed too much: the press has more than its crank's one DOF; keep "
                         "exactly one translational guide"),
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
                         "the direction is right now, but 9810 is g in mm/s^2: the model is in metres"),
            Mistake.when(_gravity_is(0.0, G),
                         "SI units now, but gravity still points up (+y): y is up in this model"),
            Mistake.when(lambda s, e: s.shape == (2,) and np.isclose(abs(s[0]), G, rtol=2e-3) and s[1] == 0,
                         "gravity acts along y (vertical) in this model, not along x"),
            Mistake.when(lambda s, e: s.shape == (2,) and np.isclose(s[1], -1.0),
                         "gravity is an acceleration (m/s^2), not a unit direction: its size is g"),
        ],
    )
)


# ------------------------------------------------------------------ 6.6 static position of the ram
def ram_on_spring(load=F_LOAD, stiffness=K_SPRING, rest_length=L0_SPRING) -> PlanarModel:
    """The ram alone on its vertical guide, sitting on a spring from the frame at (0, 0).

    Spring: ``stiffness`` (N/m), ``rest_length`` (m), to the ram's centre; a constant downward
    load ``load`` (N) on the ram; gravity ``-G`` along y.

    >>> ram_on_spring().dof_report().dof
    1
    """
    m = PlanarModel(gravity=(0.0, -G))
    ram = m.add_body("ram", mass=M_RAM, inertia=I_RAM, position=(0.0, rest_length))
    m.add_translational("ground", ram, (0.0, 0.0), (0.0, 0.0), axis_i=(0.0, 1.0), name="guide")
    m.add_spring_damper("ground", ram, stiffness=stiffness, rest_length=rest_length, name="spring")
    if load:
        m.add_force(ram, (0.0, -load), name="pressing load")
    return m


@cache
def _static_height(k=K_SPRING, l0=L0_SPRING, F=F_LOAD):
    """The height y where the library's KKT acceleration of the ram vanishes (brentq)."""
    m = ram_on_spring(F, k, l0)
    system = m.system(Assembly(m.q_guess(), np.zeros(3)))

    def ydd(y):
        return accelerations(system, 0.0, np.array([0.0, y, 0.0]), np.zeros(3))[0][1]

    return float(brentq(ydd, 0.01 * l0, l0 + 0.1, xtol=1e-14))


def _height(k, l0, F, weight=True, load=True, sign=-1.0, scale=1.0, mass=M_RAM):
    """y = l0 - (m g + F)/k, with a chosen mistake."""
    force = (mass * G if weight else 0.0) + (F if load else 0.0)
    return scale * (l0 + sign * force / k)


def _spring_variant(rng) -> dict:
    """Stiffness 10-40 kN/m, rest length 0.20-0.40 m, load 100-600 N (the ram's 20 kg stay)."""
    return {"k": float(rng.integers(20, 81) * 500.0), "l0": float(rng.integers(20, 41) / 100),
            "F": float(rng.integers(10, 61) * 10.0)}


def _height_sanity(answer, k, l0, F) -> str | None:
    y = float(np.asarray(answer, dtype=float).reshape(-1)[0])
    if y > 10 * l0:
        return "the height is far above the spring's rest length: give it in metres"
    if y >= l0:
        return "the ram sits on the spring and is pushed down: at rest it is below the rest length"
    if y <= 0:
        return "the height of the ram's centre above the anchor at (0, 0) is positive"
    return None


register(
    Exercise(
        "6.6",
        "The ram's static position on its spring",
        1,
        reference=_static_height,
        params={"k": K_SPRING, "l0": L0_SPRING, "F": F_LOAD},
        variant=_spring_variant,
        sanity=_height_sanity,
        mistakes=[
            Mistake(lambda **p: _height(**p, load=False),
                    "the pressing load is missing: at rest the spring carries the weight AND the load F"),
            Mistake(lambda **p: _height(**p, weight=False),
                    "the ram's weight m g is missing: the spring carries it too"),
            Mistake(lambda **p: _height(**p, sign=1.0),
                    "the spring is compressed, not stretched: the ram sits ON it, below the rest length"),
            Mistake(lambda k, l0, F: (M_RAM * G + F) / k,
                    "that is the spring's deflection; the question asks for the height of the ram's centre "
                    "above the anchor at (0, 0)"),
            Mistake(lambda **p: _height(**p, scale=1000.0), "give the height in metres, not millimetres"),
            Mistake(lambda **p: _height(**p, mass=1.0),
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


def _omega(m, k):
    return math.sqrt(k / m)


@cache
def _steps(m=M_OSC, k=K_OSC):
    """Critically damped: ẍ + 2ω ẋ + ω² x = 0, the eigenvalues of the state matrix are both -ω."""
    c = 2 * math.sqrt(k * m)
    lam = np.linalg.eigvals(np.array([[0.0, 1.0], [-k / m, -c / m]]))
    return np.array([largest_stable_step(lam, _r_euler), largest_stable_step(lam, _r_rk4)])


def _oscillator_variant(rng) -> dict:
    """Mass 0.5-5 kg, stiffness 100-3000 N/m (omega from about 4.5 to 77 rad/s)."""
    return {"m": float(rng.integers(5, 51) / 10), "k": float(rng.integers(2, 61) * 50.0)}


def _positive_steps(answer, **_) -> str | None:
    a = np.asarray(answer, dtype=float).reshape(-1)
    if np.any(a <= 0):
        return "a step size is a positive time (s)"
    return None


def _step_entry(index, factor):
    """Predicate: entry ``index`` is ``factor / omega`` (omega = 2 / the key's Euler step)."""
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        omega = 2.0 / float(np.asarray(expected, dtype=float).reshape(-1)[0])
        return s.shape == (2,) and bool(np.isclose(s[index], factor / omega, rtol=2e-3, atol=0.0))

    return test


RK4_EDGE = 2.785293563405282  # -z of RK4's real stability limit, R(z) = 1 (for the mistakes' closed forms)

register(
    Exercise(
        "6.7",
        "Largest stable step of explicit Euler and RK4",
        2,
        reference=_steps,
        rtol=2e-3,  # 2.785 to four digits is enough
        params={"m": M_OSC, "k": K_OSC},
        variant=_oscillator_variant,
        sanity=_positive_steps,
        mistakes=[
            Mistake(lambda m, k: np.array([2.0, RK4_EDGE]) * 2 * math.pi / _omega(m, k),
                    "you used the frequency f = omega/(2 pi) in Hz; the stability bound needs the "
                    "eigenvalue in rad/s: omega = sqrt(k/m)"),
            Mistake(lambda m, k: np.array([2.0, RK4_EDGE]) / _omega(m, k) ** 2,
                    "omega = sqrt(k/m), not k/m"),
            Mistake(lambda m, k: np.array([RK4_EDGE, 2.0]) / _omega(m, k),
                    "the two values are swapped: (Euler, RK4)"),
            Mistake.when(_step_entry(0, 1.0),
                         "explicit Euler's step is off by a factor of 2: solve |1 + h lambda| <= 1 for the "
                         "real lambda = -omega"),
            Mistake.when(_step_entry(0, 0.0),
                         "explicit Euler is never stable on the UNDAMPED oscillator; this one is critically "
                         "damped: both eigenvalues are -omega (real), and |1 + h lambda| <= 1 has room"),
            Mistake.when(_step_entry(1, 2 * math.sqrt(2)),
                         "2 sqrt(2)/omega is RK4's bound on the imaginary axis (undamped); with "
                         "critical damping lambda = -omega is real: use RK4's interval on the real axis"),
            Mistake.when(_step_entry(1, 2.0),
                         "RK4's step is explicit Euler's bound; RK4's stability polynomial stays within "
                         "|R| <= 1 further out along the negative real axis"),
            Mistake.when(_step_entry(1, 1.0),
                         "RK4's step is too small: find where |1 + z + z^2/2 + z^3/6 + z^4/24| = 1 on the "
                         "negative real axis (between z = -3 and z = -2)"),
        ],
    )
)


# ------------------------------------------------------------------ 6.8 energy drift
def _pendulum_rhs(theta, omega, length=PEND_L):
    return omega, -G / length * math.sin(theta)


def pendulum_energy(theta, omega, datum="bottom", length=PEND_L):
    """½ m L² ω² + m g L (1 - cos θ) (``datum="pivot"``: potential -m g L cos θ) [J]."""
    V = PEND_M * G * length * ((1 - math.cos(theta)) if datum == "bottom" else -math.cos(theta))
    return 0.5 * PEND_M * length**2 * omega**2 + V


def integrate_pendulum(method: str, h=PEND_H, n=PEND_N, theta=PEND_THETA0, omega=0.0, length=PEND_L):
    """(θ, ω) after ``n`` steps of ``method`` in {"euler", "symplectic", "symplectic_qfirst", "rk4"}.

    Explicit Euler: both from the old state; symplectic Euler: ``ω`` first, then ``θ`` with the
    new ``ω`` (``"symplectic_qfirst"``: ``θ`` first, then ``ω`` at the new ``θ``); classical RK4.

    >>> theta, omega = integrate_pendulum("symplectic", n=1)   # ω1 = -h (g/L) sin θ0, θ1 = θ0 + h ω1
    >>> round(omega, 7), round(theta - PEND_THETA0, 9)
    (-0.0825483, -0.000825483)
    """
    def rhs(th, om):
        return _pendulum_rhs(th, om, length)

    for _ in range(int(n)):
        if method == "euler":
            d_theta, d_omega = rhs(theta, omega)
            theta, omega = theta + h * d_theta, omega + h * d_omega
        elif method == "symplectic":
            omega = omega + h * rhs(theta, omega)[1]
            theta = theta + h * omega
        elif method == "symplectic_qfirst":
            theta = theta + h * omega
            omega = omega + h * rhs(theta, omega)[1]
        elif method == "rk4":
            k1 = rhs(theta, omega)
            k2 = rhs(theta + h / 2 * k1[0], omega + h / 2 * k1[1])
            k3 = rhs(theta + h / 2 * k2[0], omega + h / 2 * k2[1])
            k4 = rhs(theta + h * k3[0], omega + h * k3[1])
            theta += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
            omega += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        else:
            raise ValueError(f"unknown method {method!r}")
    return theta, omega


@cache
def _drift(methods=("euler", "symplectic", "rk4"), length=PEND_L, theta0=PEND_THETA0, h=PEND_H, n=PEND_N,
           datum="bottom", relative=True):
    E0 = pendulum_energy(theta0, 0.0, datum, length)
    errors = [pendulum_energy(*integrate_pendulum(m, h, n, theta0, 0.0, length), datum, length) - E0
              for m in methods]
    return np.array(errors) / (E0 if relative else 1.0)


def _pendulum_variant(rng) -> dict:
    """Length 0.5-2 m, release angle 0.5-1.4 rad, step 5-20 ms, 3-8 s of motion (h sqrt(g/L) <= 0.09)."""
    length = float(rng.integers(10, 41) * 0.05)
    steps = [h for h in (0.005, 0.01, 0.015, 0.02) if h * math.sqrt(G / length) <= 0.09]
    h = float(rng.choice(steps))
    return {"length": round(length, 2), "theta0": round(float(rng.integers(10, 29) * 0.05), 2),
            "h": h, "n": int(round(float(rng.integers(3, 9)) / h))}


register(
    Exercise(
        "6.8",
        "Energy drift of explicit Euler, symplectic Euler and RK4",
        3,
        reference=lambda **p: _drift(**p),
        rtol=1e-6,
        atol=1e-12,
        params={"length": PEND_L, "theta0": PEND_THETA0, "h": PEND_H, "n": PEND_N},
        variant=_pendulum_variant,
        alternatives=[lambda **p: _drift(("euler", "symplectic_qfirst", "rk4"), **p)],
        mistakes=[
            Mistake(lambda **p: _drift(datum="pivot", **p),
                    "measure the potential energy from the lowest point as stated, V = m g L (1 - cos "
                    "theta): with V = -m g L cos theta, E0 is different and so is the relative error"),
            Mistake(lambda **p: _drift(relative=False, **p),
                    "those are absolute energy errors (J); divide by E0 for the relative ones"),
            Mistake(lambda **p: -_drift(**p),
                    "the sign is wrong: (E_N - E_0)/E_0 (explicit Euler GAINS energy)"),
            Mistake(lambda **p: _drift(("euler", "euler", "rk4"), **p),
                    "your symplectic Euler is explicit Euler: update omega first, then theta with the NEW "
                    "omega"),
            Mistake(lambda n, **p: _drift(n=n + 1, **p),
                    "one step too many: N steps of h reach t = N h"),
            Mistake(lambda n, **p: _drift(n=n - 1, **p),
                    "one step too few: N steps of h reach t = N h"),
        ],
    )
)


# ------------------------------------------------------------------ 6.9 Baumgarte gains
@cache
def _baumgarte_design(tau=TAU):
    """alpha = beta = 1/τ: s² + 2αs + β² = (s + 1/τ)²; RK4 keeps h·(1/τ) inside its real interval."""
    alpha = 1.0 / tau
    return np.array([alpha, alpha, largest_stable_step([-alpha], _r_rk4)])


def _design(alpha, beta, h_factor):
    return np.array([alpha, beta, h_factor / alpha])


def _gains_are(alpha_of_tau, beta_of_tau):
    """Predicate: the gains are these functions of τ (τ = 1 / the key's alpha); the step is not compared."""
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        tau = 1.0 / float(np.asarray(expected, dtype=float).reshape(-1)[0])
        gains = [alpha_of_tau(tau), beta_of_tau(tau)]
        return s.shape == (3,) and bool(np.allclose(s[:2], gains, rtol=1e-3))

    return test


def _tau_variant(rng) -> dict:
    """Time constants from 10 to 200 ms."""
    return {"tau": round(float(rng.integers(2, 41) * 0.005), 3)}


register(
    Exercise(
        "6.9",
        "Baumgarte gains for a time constant, and the RK4 step they allow",
        2,
        reference=_baumgarte_design,
        rtol=2e-3,
        params={"tau": TAU},
        variant=_tau_variant,
        sanity=_positive_steps,
        mistakes=[
            Mistake.when(_gains_are(lambda t: t, lambda t: t),
                         "alpha and beta are rates (1/s), not times: what are the roots of "
                         "s^2 + 2 alpha s + beta^2 for the time constant tau?"),
            Mistake.when(_gains_are(lambda t: 1 / t, lambda t: 1 / t**2),
                         "beta enters squared (beta^2 Phi): you gave beta^2, not beta"),
            Mistake.when(_gains_are(lambda t: 1 / (2 * t), lambda t: 1 / (2 * t)),
                         "the gains are off by a factor of 2: the damping term is 2 alpha Phi_dot"),
            Mistake.when(_gains_are(lambda t: 1 / t, lambda t: math.sqrt(1 / t)),
                         "beta: critical damping needs beta^2 = alpha^2; you took one square root too many"),
            Mistake(lambda tau: _design(1 / tau, 1 / tau, 2.0),
                    "the step is explicit Euler's bound; for RK4 the mode s = -alpha may take a longer step "
                    "(RK4's real stability interval, 6.7)"),
            Mistake(lambda tau: _design(1 / tau, 1 / tau, 2 * math.sqrt(2)),
                    "2 sqrt(2)/alpha is RK4's bound on the imaginary axis; s = -alpha is real: use RK4's "
                    "interval on the real axis (6.7)"),
            Mistake(lambda tau: _design(1 / tau, 1 / tau, RK4_EDGE * 2 * math.pi),
                    "the step is 2 pi times too long: alpha is already a rate in 1/s"),
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
                         "close: at this gain max ||Phi|| is about the tolerance 3e-7; take a little more"),
            Mistake.when(_range_test(_HI, 100.0),
                         "close: at this gain RK45 needs about 200 steps; take a little less"),
            Mistake.when(_range_test(100.0),
                         "too large: the Baumgarte mode at s = -alpha is much faster than the motion (a "
                         "stiff problem): RK45 shrinks its step roughly as 1/alpha and takes more than 200 "
                         "steps in 1 s; the violation needs far less"),
        ],
    )
)


# ------------------------------------------------------------------ 6.11 a trolley with a hanging load
# A crane trolley (the cart) rolls on a horizontal rail (the line y = 0); its drive holds it like a spring
# from the anchor (0, 0); a load (a uniform bar) hangs from the hook at the cart's centre, and a tag line
# pulls the load's lower end horizontally with the constant force P.  theta is the load's angle from the
# downward vertical (positive when the lower end swings towards +x).
TROLLEY = {"m_cart": 4.0, "m_load": 1.5, "length": 0.6, "k": 300.0, "l0": 0.5, "P": 6.0}  # kg, m, N/m, N
CART_W, CART_H = 0.4, 0.2  # m: the cart is a 0.4 x 0.2 block, centre on the rail; wheels at +-CART_W/2
RAIL_JOINTS = {  # kind -> (PlanarModel method, point on the cart, equations)
    "wheel front": ("add_point_on_line", (CART_W / 2, 0.0), 1),
    "wheel rear": ("add_point_on_line", (-CART_W / 2, 0.0), 1),
    "wheel middle": ("add_point_on_line", (0.0, 0.0), 1),
    "slide": ("add_translational", (0.0, 0.0), 2),
    "slide front": ("add_translational", (CART_W / 2, 0.0), 2),
}
COLLEAGUE_RAILS = (  # 6.11a: the colleague's rail joints (the public one first); all over-constrained
    ("wheel front", "wheel rear", "slide"),
    ("wheel front", "slide"),
    ("slide", "slide front"),
    ("wheel front", "wheel rear", "wheel middle"),
    ("wheel front", "wheel rear", "wheel middle", "slide"),
)


def trolley(m_cart, m_load, length, k, l0, P, rail=("wheel front", "wheel rear")) -> PlanarModel:
    """The trolley of 6.11 as a PlanarModel: bodies "cart" and "load", the given ``rail`` joints.

    The cart starts at x = l0 (spring unstretched), the load hanging straight down (angle -90°).

    >>> r = trolley(**TROLLEY).dof_report()
    >>> r.coordinates, r.constraints, r.rank, r.dof
    (6, 4, 4, 2)
    """
    m = PlanarModel(gravity=(0.0, -G))
    cart = m.add_body("cart", mass=m_cart, inertia=m_cart * (CART_W**2 + CART_H**2) / 12, position=(l0, 0.0))
    load = m.add_body("load", mass=m_load, inertia=m_load * length**2 / 12, position=(l0, -length / 2),
                      angle=-math.pi / 2)
    for kind in rail:
        method, point, _ = RAIL_JOINTS[kind]
        getattr(m, method)("ground", cart, (0.0, 0.0), point, axis_i=(1.0, 0.0), name=kind)
    m.add_revolute(cart, load, (0.0, 0.0), (-length / 2, 0.0), name="hook")
    m.add_spring_damper("ground", cart, stiffness=k, rest_length=l0, name="drive")
    m.add_force(load, (P, 0.0), point=(length / 2, 0.0), name="tag line")
    return m


def _rail_counts(rail) -> dict:
    """Equations, rank and DOF of a trolley with these rail joints, counted by hand (6 coordinates).

    Every rail joint constrains only the cart's y and angle (2 independent conditions at most); with
    two joints that together fix both (two wheels, or any slide) the rank from the rail is 2. The hook
    adds 2 independent equations.
    """
    equations = sum(RAIL_JOINTS[kind][2] for kind in rail) + 2
    wheels = {RAIL_JOINTS[kind][1] for kind in rail if kind.startswith("wheel")}
    slide = any(kind.startswith("slide") for kind in rail)
    rail_rank = 2 if slide or len(wheels) >= 2 else len(wheels)
    rank = rail_rank + 2
    return {"equations": equations, "rank": rank, "dof": 6 - rank, "redundant": equations - rank,
            "grubler": 6 - equations}


@cache
def _colleague_report(rail) -> np.ndarray:
    r = trolley(**TROLLEY, rail=tuple(rail)).dof_report()
    return np.array([r.dof, r.constraints - r.rank], dtype=float)


def _rail_variant(rng) -> dict:
    return {"rail": list(COLLEAGUE_RAILS[int(rng.integers(len(COLLEAGUE_RAILS)))])}


def _whole_numbers(answer, **_) -> str | None:
    a = np.asarray(answer, dtype=float).reshape(-1)
    if np.any(np.abs(a - np.round(a)) > 1e-9) or np.any(a < 0):
        return "degrees of freedom and numbers of equations are whole numbers, 0 or more"
    return None


def _counts(**picks):
    def answer(rail):
        c = _rail_counts(rail)
        return np.array([c[picks["dof"]] if isinstance(picks["dof"], str) else picks["dof"],
                         c[picks["red"]] if isinstance(picks["red"], str) else picks["red"]], dtype=float)

    return answer


register(
    Exercise(
        "6.11a",
        "Trolley and load: DOF and redundant equations of the colleague's model",
        1,
        reference=lambda rail: _colleague_report(tuple(rail)),
        params={"rail": list(COLLEAGUE_RAILS[0])},
        variant=_rail_variant,
        sanity=_whole_numbers,
        mistakes=[
            Mistake(_counts(dof="grubler", red=0),
                    "that is Grübler's count (coordinates minus equations), which takes every equation as "
                    "independent: DOF = coordinates - rank(Phi_q)"),
            Mistake(_counts(dof="grubler", red="redundant"),
                    "the redundant equations are right, but the DOF is not Grübler's count: DOF = "
                    "coordinates - rank(Phi_q)"),
            Mistake(_counts(dof="dof", red=0),
                    "the DOF is right, but the colleague's rail joints repeat conditions: Phi_q has more "
                    "rows than its rank (check_model's 'redundant' item)"),
            Mistake(_counts(dof="rank", red="redundant"),
                    "that first number is rank(Phi_q), the number of independent equations; DOF = "
                    "coordinates - rank"),
            Mistake(_counts(dof="dof", red="equations"),
                    "the second number counts every equation; the redundant ones are equations - "
                    "rank(Phi_q)"),
            Mistake(_counts(dof="dof", red="rank"),
                    "the second number is rank(Phi_q); the redundant equations are equations - rank"),
            Mistake.when(lambda s, e: s.shape == (2,) and s[0] == 1,
                         "the trolley has two independent motions: the cart along the rail AND the load's "
                         "swing"),
        ],
    )
)


@cache
def _trolley_rest(m_cart, m_load, length, k, l0, P):
    """The rest pose (q, model) of a correct trolley: static_equilibrium from the hanging pose."""
    model = trolley(m_cart, m_load, length, k, l0, P)
    q, _, _ = static_equilibrium(model.system(), model.q0)
    return q, model


def _equilibrium(**p):
    """[x of the cart, theta of the load (rad, from the downward vertical)]."""
    q, _ = _trolley_rest(**p)
    return np.array([q[0], q[5] + math.pi / 2])


def _equilibrium_closed(m_cart, m_load, length, k, l0, P, lever=2.0, spring=1.0, theta_from="down",
                        degrees=False, x_part="position"):
    """Closed form x = l0 + P/k, tan θ = 2P/(m g) (moments about the hook), with a chosen mistake."""
    theta = math.atan(lever * P / (m_load * G))
    if theta_from == "horizontal":
        theta = math.pi / 2 - theta
    x = {"position": l0 + spring * P / k, "stretch": P / k, "rest": l0}[x_part]
    return np.array([x, math.degrees(theta) if degrees else theta])


def _trolley_variant(rng) -> dict:
    """Masses (the cart 2.5-5 times the load), length, drive stiffness, rest length; P for a rest angle
    between 15 and 60 degrees."""
    m_load = float(rng.integers(5, 31) / 10)
    theta = math.radians(float(rng.uniform(15.0, 60.0)))
    m_cart = round(2 * m_load * float(rng.uniform(2.5, 5.0))) / 2  # a trolley at least twice the load
    return {"m_cart": m_cart, "m_load": m_load,
            "length": round(float(rng.integers(6, 25) * 0.05), 2), "k": float(rng.integers(10, 101) * 10.0),
            "l0": round(float(rng.integers(6, 17) * 0.05), 2),
            "P": max(0.5, round(m_load * G * math.tan(theta) / 2, 1))}


def _equilibrium_sanity(answer, **p) -> str | None:
    x, theta = np.asarray(answer, dtype=float).reshape(-1)
    if abs(theta) >= math.pi / 2:
        return "the load's angle is 90 degrees or more: give it in radians"
    if x <= 0:
        return "the cart's position x is measured from the anchor at x = 0, on the side of the cart: positive"
    return None


register(
    Exercise(
        "6.11b",
        "Trolley and load: the static equilibrium under the tag line",
        2,
        reference=_equilibrium,
        rtol=1e-6,
        params=dict(TROLLEY),
        variant=_trolley_variant,
        sanity=_equilibrium_sanity,
        mistakes=[
            Mistake(lambda **p: _equilibrium_closed(**p, degrees=True),
                    "give the angle theta in radians, not degrees"),
            Mistake(lambda **p: _equilibrium_closed(**p)[::-1], "the order is [x, theta]"),
            Mistake(lambda **p: _equilibrium_closed(**p, lever=1.0),
                    "theta: the lever arms differ: about the hook the weight acts at the load's centre, "
                    "the tag line at its lower end"),
            Mistake(lambda **p: _equilibrium_closed(**p, lever=0.5),
                    "theta: the lever arms are swapped: the weight acts at the load's centre, the tag line "
                    "at its end"),
            Mistake(lambda **p: _equilibrium_closed(**p, theta_from="horizontal"),
                    "theta is measured from the downward vertical (0 when the load hangs straight down)"),
            Mistake(lambda **p: _equilibrium_closed(**p, spring=-1.0),
                    "x: the tag line pulls towards +x, through the hook onto the cart: the drive's spring "
                    "is stretched, not compressed"),
            Mistake(lambda **p: _equilibrium_closed(**p, x_part="stretch"),
                    "x is the cart's position from the anchor at x = 0, not the spring's stretch"),
            Mistake(lambda **p: _equilibrium_closed(**p, x_part="rest"),
                    "x: the tag line's pull reaches the cart through the hook: at rest the drive's spring "
                    "carries it"),
        ],
    )
)


def _linearized_frequencies(**p) -> np.ndarray:
    """Small-oscillation frequencies (rad/s, ascending) about the equilibrium, linearized numerically.

    On the constraint manifold, in the coordinates z of its tangent space (q = q* + N z, N an orthonormal
    basis of ker Phi_q): z'' = N^T q''(q* + N z) ~ A z, A by central differences of mbdlib's KKT
    accelerations at rest; the frequencies are sqrt(-eig A).
    """
    q, model = _trolley_rest(**p)
    N = null_space(model.phi_q(q))
    rest, eps = np.zeros(model.n), 1e-6
    system = model.system(Assembly(q, rest))
    A = np.column_stack([N.T @ (accelerations(system, 0.0, q + eps * n, rest)[0]
                                - accelerations(system, 0.0, q - eps * n, rest)[0]) / (2 * eps) for n in N.T])
    return np.sort(np.sqrt(-np.linalg.eigvals(A).real))


def _frequencies_closed(m_cart, m_load, length, k, l0, P, about="rest", tag_stiffness=True, coupled=True,
                        inertia="pivot", power=0.5, hertz=False):
    """sqrt of the eigenvalues of K v = w^2 M v in (x, theta), closed form, with a chosen mistake.

    M = [[m_c + m, m l/2 cos th], [m l/2 cos th, J]], J = m l^2/3 about the hook;
    K = diag(k, m g l/2 cos th + P l sin th) (= m g l / (2 cos th) at rest).
    """
    theta = math.atan(2 * P / (m_load * G)) if about == "rest" else 0.0
    J = {"pivot": m_load * length**2 / 3, "centre": m_load * length**2 / 12}[inertia]
    c = m_load * length / 2 * math.cos(theta) if coupled else 0.0
    M = np.array([[m_cart + m_load, c], [c, J]])
    k22 = m_load * G * length / 2 * math.cos(theta) + (P * length * math.sin(theta) if tag_stiffness else 0.0)
    K = np.diag([k, k22])
    w2 = np.sort(np.linalg.eigvals(np.linalg.solve(M, K)).real)
    with np.errstate(invalid="ignore"):  # a mistaken M may be indefinite: NaN, which matches nothing
        return np.power(w2, power) / (2 * math.pi if hertz else 1.0)


def _ascending(answer, **_) -> str | None:
    a = np.asarray(answer, dtype=float).reshape(-1)
    if np.any(a <= 0):
        return "frequencies of small oscillations about a stable rest are positive"
    if a[0] > a[1]:
        return "give the two frequencies in ascending order"
    return None


register(
    Exercise(
        "6.11c",
        "Trolley and load: small-oscillation frequencies about the equilibrium",
        2,
        reference=_linearized_frequencies,
        rtol=1e-5,
        params=dict(TROLLEY),
        variant=_trolley_variant,
        sanity=_ascending,
        mistakes=[
            Mistake(lambda **p: _frequencies_closed(**p)[::-1],
                    "give the two frequencies in ascending order"),
            Mistake(lambda **p: _frequencies_closed(**p, hertz=True),
                    "those are in Hz (cycles per second); give the angular frequencies in rad/s"),
            Mistake(lambda **p: _frequencies_closed(**p, power=1.0),
                    "those are omega^2, the eigenvalues of M^-1 K: take their square roots"),
            Mistake(lambda **p: _frequencies_closed(**p, about="hanging", tag_stiffness=False),
                    "you linearized about the hanging position (theta = 0); the tag line holds the load at "
                    "the equilibrium of (b): linearize there"),
            Mistake(lambda **p: _frequencies_closed(**p, tag_stiffness=False),
                    "a stiffness term is missing: the tag line's moment P l cos(theta) changes with theta, "
                    "so it stiffens the swing too (d^2V/dtheta^2 has a term from P)"),
            Mistake(lambda **p: _frequencies_closed(**p, coupled=False),
                    "cart and load are coupled through the off-diagonal entry of the mass matrix: solve the "
                    "2 x 2 eigenproblem K v = omega^2 M v"),
            Mistake(lambda **p: _frequencies_closed(**p, inertia="centre"),
                    "the load swings about the hook: take its moment of inertia about the pin (parallel "
                    "axis), not about its centre"),
        ],
    )
)


# ------------------------------------------------------------------ 6.12 largest stable step (a function)
def _rk4_reach(direction: complex) -> float:
    """The first r > 0 where |R_RK4(r u)| = 1 along the ray u = ``direction`` (|u| = 1, Re u < 0).

    |R(r u)|^2 - 1 is a real polynomial in r with a root at r = 0; the answer is its smallest positive
    real root after dividing by r (one crossing on every ray of the open left half-plane, at r <= 2.97).
    """
    a = np.array([direction**j / math.factorial(j) for j in range(5)])  # R(r u) = sum a_j r^j
    square = np.convolve(a, a.conj()).real  # |R|^2, ascending powers of r
    square[0] -= 1.0
    roots = np.roots(square[1:][::-1])
    real = roots[(np.abs(roots.imag) <= 1e-7 * np.abs(roots)) & (roots.real > 1e-9)].real
    return float(np.min(real))


def _per_eigenvalue_steps(A, method) -> np.ndarray:
    lam = np.linalg.eigvals(np.asarray(A, dtype=float))
    if method == "euler":  # |1 + h lam| = 1: h = -2 Re(lam) / |lam|^2
        return -2.0 * lam.real / np.abs(lam) ** 2
    if method == "rk4":
        return np.array([_rk4_reach(x / abs(x)) / abs(x) for x in lam])
    raise ValueError(f"method must be 'euler' or 'rk4', got {method!r}")


def stable_step(A, method) -> float:
    """Largest fixed step h of ``method`` ("euler" or "rk4") stable on x' = A x: every step in (0, h]
    keeps |R(h lambda)| <= 1 for every eigenvalue lambda of A (all with Re lambda < 0).

    >>> round(stable_step([[-10.0]], "euler"), 12)
    0.2
    >>> round(stable_step([[-1.0]], "rk4"), 6)
    2.785294
    """
    return float(np.min(_per_eigenvalue_steps(A, method)))


_EDGE = {"euler": 2.0, "rk4": RK4_EDGE}


def _step_real_part(A, method):
    return _EDGE[method] / float(np.max(np.abs(np.linalg.eigvals(np.asarray(A, dtype=float)).real)))


def _step_modulus(A, method):
    return _EDGE[method] / float(np.max(np.abs(np.linalg.eigvals(np.asarray(A, dtype=float)))))


def _step_largest_modulus_only(A, method):
    lam = np.linalg.eigvals(np.asarray(A, dtype=float))
    return float(_per_eigenvalue_steps(A, method)[int(np.argmax(np.abs(lam)))])


A_OSC = np.array([[0.0, 1.0], [-100.0, -4.0]])  # m = 1 kg, c = 4 N s/m, k = 100 N/m: -2 +- 9.8i
A_LAG = np.array([[-30.0, 0.0, 0.0], [0.0, -0.5, 10.0], [0.0, -10.0, -0.5]])  # -30 and -0.5 +- 10i
_K2 = np.array([[200.0, -100.0], [-100.0, 100.0]])  # two carts: springs 100 N/m, masses 1 kg
A_CARTS = np.block([[np.zeros((2, 2)), np.eye(2)], [-_K2, -0.01 * _K2]])  # damping C = 0.01 K
STEP_CASES = [(A_OSC, "euler"), (A_OSC, "rk4"), (A_LAG, "euler"), (A_LAG, "rk4"), (A_CARTS, "rk4")]


def _random_stable(rng, eigen_blocks) -> np.ndarray:
    """A = Q D Q^T: Q a random orthogonal matrix, D block diagonal from ``eigen_blocks`` (a real eigenvalue
    ``(r,)`` or a pair ``(a, b)`` for a +- b i)."""
    n = sum(len(b) for b in eigen_blocks)
    D = np.zeros((n, n))
    at = 0
    for blk in eigen_blocks:
        if len(blk) == 1:
            D[at, at] = blk[0]
        else:
            (a, b), k = blk, slice(at, at + 2)
            D[k, k] = [[a, b], [-b, a]]
        at += len(blk)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return Q @ D @ Q.T


def _hidden_systems(rng, n_random: int = 6, **_) -> list[tuple]:
    """The grading cases: random stable systems of 1 to 6 states (real eigenvalues in [-40, -0.3], pairs
    a +- b i with a in [-30, -0.2], b in [0.5, 40]), and two built so that the limit is set neither by
    the eigenvalue of largest modulus (explicit Euler) nor by the slowest mode (RK4)."""
    lag = [(-rng.uniform(20.0, 40.0),), (-rng.uniform(0.2, 1.0), rng.uniform(8.0, 15.0))]
    carts = [(-rng.uniform(0.5, 2.0), rng.uniform(12.0, 25.0)),
             (-rng.uniform(0.1, 0.5), rng.uniform(3.0, 8.0))]
    cases = [(_random_stable(rng, lag), "euler"), (_random_stable(rng, carts), "rk4")]
    for method in rng.permutation(["euler", "rk4"] * (n_random // 2)):
        n, blocks = int(rng.integers(1, 7)), []
        while sum(len(b) for b in blocks) < n:
            if n - sum(len(b) for b in blocks) >= 2 and rng.random() < 0.6:
                blocks.append((-rng.uniform(0.2, 30.0), rng.uniform(0.5, 40.0)))
            else:
                blocks.append((-rng.uniform(0.3, 40.0),))
        cases.append((_random_stable(rng, blocks), str(method)))
    order = rng.permutation(len(cases))
    return [cases[i] for i in order]


register(
    Exercise(
        "6.12",
        "Largest stable step of explicit Euler or RK4 for a linear system (a function)",
        2,
        reference=stable_step,
        cases=STEP_CASES,
        hidden_cases=_hidden_systems,
        function_name="stable_step",
        rtol=1e-6,
        atol=1e-12,
        mistakes=[
            Mistake(_step_real_part,
                    "you used only the real parts of the eigenvalues: a complex lambda's imaginary part "
                    "counts too, the whole h lambda must lie in the stability region"),
            Mistake(_step_modulus,
                    "you put |lambda| on the negative real axis: for a complex lambda the limit depends on "
                    "its direction; solve |R(h lambda)| = 1 along its ray"),
            Mistake(lambda A, method: stable_step(A, "euler"),
                    "for RK4 you used explicit Euler's stability function 1 + z: RK4's is "
                    "1 + z + z^2/2 + z^3/6 + z^4/24"),
            Mistake(lambda A, method: stable_step(A, {"euler": "rk4", "rk4": "euler"}[method]),
                    "the methods are swapped: 'euler' is R(z) = 1 + z, 'rk4' the fourth-degree polynomial"),
            Mistake(lambda A, method: float(np.max(_per_eigenvalue_steps(A, method))),
                    "you took the largest step over the eigenvalues (the slowest mode); every eigenvalue "
                    "must be stable: take the smallest"),
            Mistake(_step_largest_modulus_only,
                    "the eigenvalue of largest |lambda| does not always set the limit (its direction "
                    "matters): take the smallest step over all eigenvalues"),
            Mistake(lambda A, method: (stable_step(A, method) if method == "euler" else
                                       2 * math.sqrt(2) / float(np.max(np.abs(np.linalg.eigvals(A))))),
                    "2 sqrt(2)/|lambda| is RK4's limit on the imaginary axis only; for a damped lambda "
                    "solve |R(h lambda)| = 1 along its ray"),
        ],
    )
)


# ------------------------------------------------------------------ practice inside the pages (6.P1-6.P5)
# The numbers of the chapter's own press (book/chapters/ch06_press.py; tests/test_exercises_ch06.py checks
# that they agree). Practice is never graded: 0 points, no variants.
PAGE_G = 9.81
PAGE_R = 0.06  # crank radius (m)
PAGE_M = (4.0, 6.0, 40.0)  # crank, rod, ram (kg)
PAGE_K_CB = 5.0e3  # counterbalance stiffness (N/m)
PAGE_M_CROWN = 100.0  # the elastic frame's crown (kg)
PAGE_K_FRAME = 1.0e9  # 6.P4: the frame stiffness (N/m)
PAGE_GAIN = 300.0  # 6.P5: alpha = beta (1/s)


def _delta_level(crank=0.5, rod=1.0, ram=1.0, scale=1.0):
    """(ch6-delta) at theta = 0: y_i'(0)/y_B'(0) = 1/2 (crank), 1 (rod), 1 (ram)."""
    m1, m2, m3 = PAGE_M
    return scale * PAGE_G * (crank * m1 + rod * m2 + ram * m3) / PAGE_K_CB


def _frame_omega(mass=None, root=True, hertz=False):
    """6.P4: the frame's mode at a dead centre, where crank, rod and ram all ride on the crown."""
    m = PAGE_M_CROWN + sum(PAGE_M) if mass is None else mass
    w = math.sqrt(PAGE_K_FRAME / m) if root else PAGE_K_FRAME / m
    return w / (2 * math.pi) if hertz else w


register(
    Exercise(
        "6.P1",
        "Counting the elastic frame: coordinates, equations, DOF",
        0,
        reference=lambda: np.array([12.0, 10.0, 2.0]),
        atol=1e-9,
        mistakes=[
            Mistake(lambda: np.array([12.0, 8.0, 4.0]),
                    "the crown's own joint to the ground is missing from your count: a translational joint "
                    "writes two equations, like a revolute one"),
            Mistake(lambda: np.array([9.0, 8.0, 1.0]),
                    "that is the press without the elastic frame: the crown is a fourth body (three more "
                    "coordinates) with a joint of its own"),
            Mistake(lambda: np.array([12.0, 11.0, 1.0]),
                    "a translational joint writes two equations (the line and the angle), not three"),
            Mistake(lambda: np.array([12.0, 10.0, 1.0]),
                    "coordinates minus equations: 12 - 10; the frame's spring is a force, not a constraint, "
                    "so the crown's slide is a degree of freedom"),
        ],
    )
)

register(
    Exercise(
        "6.P2",
        "The spring compression that holds the crank at theta = 0",
        0,
        reference=_delta_level,
        rtol=2e-3,
        atol=1e-7,
        mistakes=[
            Mistake(lambda: _delta_level(rod=0.5, crank=0.0),
                    "that is how the counterbalance was sized (the ram and half the rod); at theta = 0 the "
                    "rod's centre rises as fast as the ram, and the crank's weight counts too"),
            Mistake(lambda: _delta_level(crank=0.0),
                    "the crank's weight is missing: its centre rises at half the ram's rate at theta = 0"),
            Mistake(lambda: _delta_level(crank=1.0),
                    "each weight counts with y_i'(theta) / y_B'(theta): the crank's centre rises at half the "
                    "ram's rate, not at the same rate"),
            Mistake(lambda: _delta_level(scale=1000.0), "give the compression in metres, not millimetres"),
            Mistake(lambda: _delta_level(scale=1.0 / PAGE_G),
                    "the weights are m g: you used the masses alone"),
        ],
    )
)

register(
    Exercise(
        "6.P3",
        "A point-on-line gib beside the guide: Grübler, DOF by rank, redundant rows",
        0,
        reference=lambda: np.array([0.0, 1.0, 1.0]),
        atol=1e-9,
        mistakes=[
            Mistake(lambda: np.array([0.0, 0.0, 0.0]),
                    "Grübler's count (9 - 9 = 0) trusts that every row is independent; the rank of Phi_q "
                    "says whether they are (press.dof_report())"),
            Mistake(lambda: np.array([1.0, 1.0, 1.0]),
                    "Grübler's count is coordinates minus equations: the gib adds one equation (9 rows)"),
            Mistake(lambda: np.array([0.0, 1.0, 0.0]),
                    "the DOF is right, but 9 rows of rank 8 means one row repeats what the others say"),
            Mistake(lambda: np.array([-1.0, 1.0, 2.0]),
                    "a point-on-line joint writes one equation (the point stays on the line), not two"),
        ],
    )
)

register(
    Exercise(
        "6.P4",
        "The frame's fast mode with the riding mass, at a dead centre",
        0,
        reference=_frame_omega,
        rtol=2e-3,
        mistakes=[
            Mistake(lambda: _frame_omega(mass=PAGE_M_CROWN),
                    "that is the crown alone: at a dead centre the crank, the rod and the ram all move with "
                    "the crown (they ride on it)"),
            Mistake(lambda: _frame_omega(mass=PAGE_M_CROWN + PAGE_M[2]),
                    "the crank and the rod ride on the crown too, not only the ram"),
            Mistake(lambda: _frame_omega(root=False), "omega = sqrt(k / m): the square root is missing"),
            Mistake(lambda: _frame_omega(hertz=True),
                    "that is the frequency in Hz; give the angular frequency omega in rad/s"),
        ],
    )
)

register(
    Exercise(
        "6.P5",
        "The largest fixed RK4 step for the Baumgarte mode at alpha = beta = 300",
        0,
        reference=lambda: RK4_EDGE / PAGE_GAIN,
        rtol=2e-3,
        mistakes=[
            Mistake(lambda: 2.0 / PAGE_GAIN,
                    "2 is explicit Euler's bound (R(z) = 1 + z); RK4's real stability interval reaches "
                    "further"),
            Mistake(lambda: 3.3066 / PAGE_GAIN,
                    "3.3 is RK45's (Dormand-Prince) bound; the question is about classical RK4"),
            Mistake(lambda: RK4_EDGE / (2 * PAGE_GAIN),
                    "for alpha = beta the eigenvalue is a double one at s = -alpha, not -2 alpha"),
            Mistake(lambda: RK4_EDGE / PAGE_GAIN**2,
                    "beta^2 multiplies Phi, but the eigenvalue of the mode is s = -alpha (1/s)"),
            Mistake(lambda: 1000.0 * RK4_EDGE / PAGE_GAIN, "give the step in seconds, not milliseconds"),
        ],
    )
)
