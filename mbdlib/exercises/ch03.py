"""Chapter 3 exercises: constraints (solutions/ch03_constraints.ipynb).

Each exercise's expected answer comes from mbdlib's public API where the library
computes it (the DOF report of :class:`~mbdlib.planar.PlanarModel`, the analytic
Φ, Φ_q and γ of :class:`~mbdlib.constraints.Revolute` and
:class:`~mbdlib.constraints.PointOnLine`, the KKT solve of
:func:`mbdlib.dae.accelerations`) or from a closed form; the typical mistakes are
written out independently (hand counts and closed forms below), with the hint for
each.  The public data are the numbers printed in the exercise notebook; exercises
whose answer depends on numbers have per-student variants (``variant``), the
implement-a-function exercises are graded on hidden cases (``hidden_cases``).

======  ======================================================  ======  ==========================
id      exercise                                                points  variants
======  ======================================================  ======  ==========================
3.1     Grübler count of four planar mechanisms                 1       same for all (counts)
3.2     Their true degrees of freedom, by the rank of Φ_q       1       same for all (counts)
3.3     Φ of a revolute joint between two bodies (formula)      1       pin points
3.4     Its Jacobian Φ_q (formula)                              2       pin points
3.5     Its γ, the right side of Φ_q q̈ = γ (formula)            2       pin points
3.6     Holonomic or nonholonomic? (six velocity constraints)   2       same for all (yes/no)
3.7     Baumgarte stabilization: roots and critical damping     2       α, β
3.8     The pin force on a pendulum from λ                      3       mass, length, angle
3.9     Implement the Baumgarte right-hand side (a function)    2       hidden cases (m, n vary)
3.10    Implement Φ, Φ_q, γ of a pin-in-slot joint (function)   3       hidden cases
3.11a   Slider-crank end to end: coordinates, equations, DOF    1       same for all (counts)
3.11b   ... its Lagrange multipliers λ under gravity            3       dimensions, masses, state
3.11c   ... the crank-pin force from λ                          2       dimensions, masses, state
======  ======================================================  ======  ==========================

The practice exercises inside the chapter's pages (0 points, never released or graded; each with its
solution folded on the page) are 3.P1 (page 3.1, γ of the pendulum's pin), 3.P2 (page 3.2, Grübler's count,
the rank and the degrees of freedom of a V-engine), 3.P3 (page 3.3, the violation that Baumgarte's
correction leaves after one second) and 3.P4 (page 3.4, the pin force on a rod held at an angle, from λ).

Sign conventions (decided here, stated in the notebook).  In 3.3 a revolute joint's
``Φ = 0`` and ``-Φ = 0`` are the same constraint, so both signs are accepted.  From
3.4 on the notebook fixes ``Φ = r_1 + A_1 s'_1 - r_2 - A_2 s'_2`` (body 1 minus body 2,
Haug 1989, §3.3), because Φ_q, γ and the multipliers λ change sign with Φ; the
opposite sign then gets a hint that says so.  In 3.10 the pin-in-slot equation may be
written with either normal (Φ, Φ_q and γ all negated is the same constraint).

Variants: the grader seeds each exercise's generator with the student and the problem's id
(:func:`mbdlib.exercises.grade.problem_of`), so the parts 3.11b and 3.11c, which share one
variant function, describe the same mechanism; 3.3, 3.4 and 3.5 are separate exercises and
each has its own pin points in a released notebook (the statement asks for Φ as a function of
the pins, and each data cell reads its own).

References: E. J. Haug, *Computer Aided Kinematics and Dynamics of Mechanical
Systems*, 1989, ch. 3 and §6.3; P. E. Nikravesh, *Computer-Aided Analysis of
Mechanical Systems*, 1988, ch. 4-5 and §13.2; J. Baumgarte, Stabilization of
constraints and integrals of motion in dynamical systems, CMAME 1, 1972; Ju. I.
Neimark & N. A. Fufaev, *Dynamics of Nonholonomic Systems*, 1972 (integrability,
Frobenius' condition).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import sympy as sp

from ..constraints import KnifeEdge, PointOnLine, RackPinion, Revolute
from ..dae import accelerations
from ..planar import PlanarModel
from ..system import Assembly
from .compare import normalize
from .core import Exercise, Mistake, register

# ------------------------------------------------------------------ data (as in the notebook)
# 3.1-3.2: four mechanisms made of bars, each given by its end points (m) in an assembled pose.
# Joints: ("rev", bar_or_ground, end, bar, end), ends "start"/"end"/"mid"; ("slide", body) along x.
MECHANISMS = {
    "slider-crank": {
        "bars": {"crank": ((0.0, 0.0), (0.1, 0.2)), "rod": ((0.1, 0.2), (0.5, 0.0))},
        "blocks": {"slider": (0.5, 0.0)},
        "joints": [("rev", "ground", (0.0, 0.0), "crank", "start"), ("rev", "crank", "end", "rod", "start"),
                   ("rev", "rod", "end", "slider", "mid"), ("slide", "slider")],
    },
    "four-bar": {
        "bars": {"crank": ((0.0, 0.0), (0.1, 0.2)), "coupler": ((0.1, 0.2), (0.5, 0.3)),
                 "rocker": ((0.6, 0.0), (0.5, 0.3))},
        "blocks": {},
        "joints": [("rev", "ground", (0.0, 0.0), "crank", "start"),
                   ("rev", "crank", "end", "coupler", "start"),
                   ("rev", "coupler", "end", "rocker", "end"),
                   ("rev", "ground", (0.6, 0.0), "rocker", "start")],
    },
    "parallelogram": {  # three equal parallel cranks under one coupler: the middle one is redundant
        "bars": {"left": ((0.0, 0.0), (0.2, 0.3)), "middle": ((0.5, 0.0), (0.7, 0.3)),
                 "right": ((1.0, 0.0), (1.2, 0.3)), "coupler": ((0.2, 0.3), (1.2, 0.3))},
        "blocks": {},
        "joints": [("rev", "ground", (0.0, 0.0), "left", "start"),
                   ("rev", "ground", (0.5, 0.0), "middle", "start"),
                   ("rev", "ground", (1.0, 0.0), "right", "start"),
                   ("rev", "left", "end", "coupler", "start"),
                   ("rev", "middle", "end", "coupler", "mid"),
                   ("rev", "right", "end", "coupler", "end")],
    },
    "five-bar": {
        "bars": {"link1": ((0.0, 0.0), (-0.1, 0.3)), "link2": ((-0.1, 0.3), (0.3, 0.5)),
                 "link3": ((0.3, 0.5), (0.7, 0.3)), "link4": ((0.6, 0.0), (0.7, 0.3))},
        "blocks": {},
        "joints": [("rev", "ground", (0.0, 0.0), "link1", "start"), ("rev", "link1", "end", "link2", "start"),
                   ("rev", "link2", "end", "link3", "start"), ("rev", "link3", "end", "link4", "end"),
                   ("rev", "ground", (0.6, 0.0), "link4", "start")],
    },
}
x1, y1, phi1, x2, y2, phi2 = sp.symbols("x1 y1 phi1 x2 y2 phi2", real=True)  # 3.3-3.5
xd1, yd1, phid1, xd2, yd2, phid2 = sp.symbols("xd1 yd1 phid1 xd2 yd2 phid2", real=True)
PINS = {"s1": [0.5, 0.0], "s2": [-0.3, 0.2]}  # 3.3-3.5: m, the pin in body 1's and in body 2's frame
RHO = 0.3  # 3.6: m, radius of the rolling disk
x, y, z, phi = sp.symbols("x y z phi", real=True)
BAUMGARTE = {"alpha": 10.0, "beta": 8.0}  # 3.7: 1/s
G = 9.81  # 3.8, 3.11: m/s^2, along -y
PENDULUM = {"mass": 2.0, "length": 1.2, "theta0_deg": 40.0}  # 3.8: kg, m, release angle (deg)
SLIDER_CRANK = {  # 3.11: m, kg, kg m^2, deg, rad/s
    "r": 0.15, "l": 0.45, "m_crank": 1.0, "m_rod": 2.0, "m_slider": 1.5, "J_slider": 0.002,
    "theta_deg": 60.0, "omega": 8.0,
}


def _safe(sanity):
    """A sanity test that never raises (a check must not crash the notebook)."""
    def test(answer, **params):
        try:
            return sanity(answer, **params)
        except Exception:  # noqa: BLE001 - a malformed answer is judged elsewhere
            return None

    return test


# ------------------------------------------------------------------ 3.1, 3.2 degrees of freedom
def build_mechanism(name: str) -> PlanarModel:
    """The mechanism ``name`` of :data:`MECHANISMS` as a :class:`PlanarModel` (bars of 1 kg/m).

    Each bar's body x axis points from its first to its second end point, so its ends are
    at ``s' = (∓L/2, 0)``; the given pose is assembled (every joint closes there).

    >>> r = build_mechanism("parallelogram").dof_report()
    >>> r.grubler, r.rank, r.dof
    (0, 11, 1)
    """
    spec = MECHANISMS[name]
    m = PlanarModel(gravity=(0.0, -9.81))
    half = {}
    for bar, (P, Q) in spec["bars"].items():
        P, Q = np.asarray(P), np.asarray(Q)
        length = float(np.linalg.norm(Q - P))
        m.add_body(bar, mass=length, inertia=length**3 / 12, position=(P + Q) / 2,
                   angle=math.atan2(*(Q - P)[::-1]))
        half[bar] = length / 2
    for block, position in spec["blocks"].items():
        m.add_body(block, mass=1.0, inertia=0.01, position=position)
    ends = {"start": -1.0, "mid": 0.0, "end": 1.0}
    for joint in spec["joints"]:
        if joint[0] == "slide":
            m.add_translational(m.ground, joint[1], point_i=(0.0, 0.0), point_j=(0.0, 0.0), axis_i=(1.0, 0.0))
            continue
        _, bi, pi, bj, pj = joint
        point_i = pi if bi == "ground" else (ends[pi] * half.get(bi, 0.0), 0.0)
        m.add_revolute(bi, bj, point_i=point_i, point_j=(ends[pj] * half.get(bj, 0.0), 0.0))
    return m


@cache
def _reports():
    return {name: build_mechanism(name).dof_report() for name in MECHANISMS}


def _hand_count(name: str, per_body=3, revolute=2, slide=2, ground_moves=False):
    """Grübler-Kutzbach by hand: per_body × moving bodies - Σ DOF removed by the joints."""
    spec = MECHANISMS[name]
    bodies = len(spec["bars"]) + len(spec["blocks"]) + (1 if ground_moves else 0)
    revs = sum(j[0] == "rev" for j in spec["joints"])
    slides = sum(j[0] == "slide" for j in spec["joints"])
    return per_body * bodies - revolute * revs - slide * slides


def _counts(**kw):
    return np.array([_hand_count(name, **kw) for name in MECHANISMS], dtype=float)


register(
    Exercise(
        "3.1",
        "Grübler count of four planar mechanisms",
        1,
        reference=lambda: np.array([r.grubler for r in _reports().values()], dtype=float),
        mistakes=[
            Mistake(
                lambda: _counts(ground_moves=True),
                "you counted the ground as a moving body: it is fixed and has no coordinates, so only "
                "the moving bodies count 3 each",
            ),
            Mistake(
                lambda: _counts(revolute=1, slide=1),
                "a planar revolute (or prismatic) joint removes 2 degrees of freedom, not 1: it leaves "
                "one relative motion out of three",
            ),
            Mistake(
                lambda: _counts(slide=1),
                "the prismatic joint of the slider removes 2 degrees of freedom (the slider can neither "
                "leave the line nor turn), not 1",
            ),
            Mistake(
                lambda: _counts(per_body=6, revolute=5, slide=5),
                "that is the SPATIAL count (6 per body, 5 per joint); in the plane a body has 3 degrees "
                "of freedom and a revolute or prismatic joint removes 2",
            ),
        ],
    )
)


def _ranks():
    return np.array([r.rank for r in _reports().values()], dtype=float)


def _equations():
    return np.array([r.constraints for r in _reports().values()], dtype=float)


register(
    Exercise(
        "3.2",
        "True degrees of freedom, by the rank of the constraint Jacobian",
        1,
        reference=lambda: np.array([r.dof for r in _reports().values()], dtype=float),
        mistakes=[
            Mistake(
                lambda: _counts(),
                "those are the Grübler counts; they assume independent equations. The parallelogram's "
                "middle crank repeats what the outer ones already impose (a redundant constraint), so "
                "its Phi_q loses rank: DOF = coordinates - rank(Phi_q)",
            ),
            Mistake(
                _ranks,
                "those are the ranks of Phi_q; the degrees of freedom are coordinates - rank",
            ),
            Mistake(
                _equations,
                "those are the numbers of constraint equations; the degrees of freedom are "
                "coordinates - rank(Phi_q)",
            ),
        ],
    )
)

# ------------------------------------------------------------------ 3.3-3.5 a revolute joint, by hand
Q_SYM, QD_SYM = (x1, y1, phi1, x2, y2, phi2), (xd1, yd1, phid1, xd2, yd2, phid2)


def _pin_variant(rng) -> dict:
    """Two pins in multiples of 5 cm, each 0.2-0.6 m from its body's centre of mass (never at it)."""
    def pin():
        while True:
            p = rng.integers(-12, 13, size=2) / 20
            if 0.2 <= math.hypot(*p) <= 0.6:
                return [float(v) for v in p]

    return {"s1": pin(), "s2": pin()}


def _key(s) -> tuple:
    return tuple(float(v) for v in np.asarray(s, dtype=float).reshape(-1))


@cache
def _revolute_formulas(s1: tuple, s2: tuple):
    """(Φ, Φ_q, γ) of the library's Revolute between body 1 and body 2, as sympy matrices."""
    joint = Revolute("pin", ("body1", "body2"), s1, s2)
    return (sp.ImmutableMatrix(joint.phi(list(Q_SYM))), sp.ImmutableMatrix(joint.jacobian(list(Q_SYM))),
            sp.ImmutableMatrix(joint.gamma(list(Q_SYM), list(QD_SYM))))


def _phi_33(s1, s2):
    return _revolute_formulas(_key(s1), _key(s2))[0]


def _jacobian_34(s1, s2):
    return _revolute_formulas(_key(s1), _key(s2))[1]


def _gamma_35(s1, s2):
    return _revolute_formulas(_key(s1), _key(s2))[2]


def _A(angle, s, transpose=False):
    """A(φ) s' = (s_x cos φ - s_y sin φ, s_x sin φ + s_y cos φ) (Aᵀ s' with transpose=True)."""
    c, sn = sp.cos(angle), sp.sin(angle)
    sn = -sn if transpose else sn
    return sp.Matrix([s[0] * c - s[1] * sn, s[0] * sn + s[1] * c])


def _B(angle, s):
    """B(φ) s' = dA/dφ s' = (-s_x sin φ - s_y cos φ, s_x cos φ - s_y sin φ)."""
    c, sn = sp.cos(angle), sp.sin(angle)
    return sp.Matrix([-s[0] * sn - s[1] * c, s[0] * c - s[1] * sn])


def _phi_closed(s1, s2, rotate=True, transpose=False, point_sign=1):
    """Φ = r1 + A1 s1 - r2 - A2 s2 written out, with a chosen mistake."""
    s1, s2 = _key(s1), _key(s2)

    def point(angle, s):
        if not rotate:
            return sp.Matrix(s)
        return point_sign * _A(angle, s, transpose)

    return sp.Matrix([x1, y1]) + point(phi1, s1) - sp.Matrix([x2, y2]) - point(phi2, s2)


def _jacobian_closed(s1, s2, phi_columns=1, sign_b2=-1, b_sign=1):
    """Φ_q = [[I, B1 s1, -I, -B2 s2]] written out (columns x1, y1, φ1, x2, y2, φ2), with a mistake."""
    b1, b2 = b_sign * _B(phi1, _key(s1)), b_sign * _B(phi2, _key(s2))
    return sp.Matrix([[1, 0, phi_columns * b1[0], -1, 0, phi_columns * sign_b2 * b2[0]],
                      [0, 1, phi_columns * b1[1], 0, -1, phi_columns * sign_b2 * b2[1]]])


def _gamma_closed(s1, s2, factor=1, power=2, along_b=False):
    """γ = A1 s1 φ̇1² - A2 s2 φ̇2² (the centripetal terms), with a mistake."""
    direction = _B if along_b else _A
    return factor * (direction(phi1, _key(s1)) * phid1**power - direction(phi2, _key(s2)) * phid2**power)


def _symbols_of(answer) -> set[str] | None:
    a = normalize(answer)
    return {s.name for s in a.free_symbols} if isinstance(a, sp.MatrixBase) else None


def _position_columns(answer) -> np.ndarray | None:
    """∂(answer)/∂(x1, y1, x2, y2) of a formula, as numbers (None if it depends on more than that)."""
    a = normalize(answer)
    if not isinstance(a, sp.MatrixBase) or a.shape not in ((2, 1), (1, 2)):
        return None
    J = a.reshape(2, 1).jacobian([x1, y1, x2, y2])
    if J.free_symbols:
        return None
    return np.array(J.evalf(), dtype=float)


_POSITIONS = np.array([[1.0, 0.0, -1.0, 0.0], [0.0, 1.0, 0.0, -1.0]])


@_safe
def _phi_sanity(answer, **_):
    """Φ of a revolute joint: r1 - r2 (or r2 - r1) plus terms in the angles only."""
    names = _symbols_of(answer)
    if names is None:
        return None
    extra = sorted(names - {s.name for s in Q_SYM})
    if extra:
        return f"your Phi contains {', '.join(extra)}: it depends only on x1, y1, phi1, x2, y2, phi2"
    J = _position_columns(answer)
    if J is None or not (np.allclose(J, _POSITIONS) or np.allclose(J, -_POSITIONS)):
        return ("the positions enter Phi as r1 - r2 (each pin is at r + A s', the rest depends on the angles "
                "only): check the x and y terms")
    return None


@_safe
def _jacobian_sanity(answer, **_):
    """Φ_q of a revolute joint: the x, y columns are [I, -I] (stated), the rest depends on the angles."""
    a = normalize(answer)
    if not isinstance(a, sp.MatrixBase) or a.shape != (2, 6):
        return None
    extra = sorted({s.name for s in a.free_symbols} - {"phi1", "phi2"})
    if extra:
        return (f"your Phi_q contains {', '.join(extra)}: a revolute joint's Jacobian depends on the angles "
                "only")
    cols = a[:, [0, 1, 3, 4]]
    if cols.free_symbols or not np.allclose(np.array(cols.evalf(), dtype=float), _POSITIONS):
        return "the x1, y1, x2, y2 columns should be the blocks I and -I (for Phi = body 1 minus body 2)"
    return None


@_safe
def _gamma_sanity(answer, **_):
    """γ of a revolute joint: depends on the angles and angular velocities only, zero at rest."""
    a = normalize(answer)
    if not isinstance(a, sp.MatrixBase):
        return None
    extra = sorted({s.name for s in a.free_symbols} - {"phi1", "phi2", "phid1", "phid2"})
    if extra:
        return f"your gamma contains {', '.join(extra)}: which velocities can it depend on?"
    at_rest = a.subs({phid1: 0, phid2: 0})
    if any(sp.simplify(e) != 0 for e in at_rest):
        return ("your gamma is not zero when the bodies do not turn (phid1 = phid2 = 0): a velocity term is "
                "off")
    return None


_NOT_ROTATED = ("the body-frame points are not rotated: the pin is at r + A(phi) s', with s' given in the "
                "BODY frame, so it turns with the body")
_TRANSPOSED = ("you rotated the points by -phi (A transposed): A(phi) = [[cos, -sin], [sin, cos]] maps body "
               "components to global ones")
_MINUS_POINT = ("a body point is at r + A s', not r - A s': the pin of each body is its centre of mass plus "
                "the rotated s'")

register(
    Exercise(
        "3.3",
        "Constraint equations of a revolute joint",
        1,
        reference=_phi_33,
        params=dict(PINS),
        variant=_pin_variant,
        sanity=_phi_sanity,
        alternatives=[lambda s1, s2: -_phi_33(s1, s2)],  # Φ = 0 and -Φ = 0: the same constraint
        mistakes=[
            Mistake(
                lambda s1, s2: _phi_closed(s1, s2, rotate=False),
                _NOT_ROTATED,
            ),
            Mistake(lambda s1, s2: -_phi_closed(s1, s2, rotate=False), _NOT_ROTATED),
            Mistake(
                lambda s1, s2: _phi_closed(s1, s2, transpose=True),
                _TRANSPOSED,
            ),
            Mistake(lambda s1, s2: -_phi_closed(s1, s2, transpose=True), _TRANSPOSED),
            Mistake(
                lambda s1, s2: _phi_closed(s1, s2, point_sign=-1),
                _MINUS_POINT,
            ),
            Mistake(lambda s1, s2: -_phi_closed(s1, s2, point_sign=-1), _MINUS_POINT),
        ],
    )
)

register(
    Exercise(
        "3.4",
        "Jacobian of the revolute joint",
        2,
        reference=_jacobian_34,
        params=dict(PINS),
        variant=_pin_variant,
        sanity=_jacobian_sanity,
        mistakes=[
            Mistake(
                lambda s1, s2: _jacobian_closed(s1, s2, phi_columns=0),
                "the phi columns are missing: the pins move when the bodies turn, "
                "d(A s')/dphi = B s' with B = dA/dphi = [[-sin, -cos], [cos, -sin]]",
            ),
            Mistake(
                lambda s1, s2: -_jacobian_closed(s1, s2),
                "that is the Jacobian of -Phi (body 2 minus body 1); use Phi = r1 + A1 s1' - r2 - A2 s2' "
                "as stated (flip the sign of your 3.3 answer if you wrote the other difference)",
            ),
            Mistake(
                lambda s1, s2: _jacobian_closed(s1, s2, b_sign=-1),
                "the phi columns have the wrong sign: dA/dphi = [[-sin, -cos], [cos, -sin]] "
                "(d cos/dphi = -sin, d sin/dphi = cos)",
            ),
            Mistake(
                lambda s1, s2: _jacobian_closed(s1, s2, sign_b2=1),
                "the phi2 column has the wrong sign: body 2 enters Phi with a minus, so its columns "
                "are -I and -B2 s2'",
            ),
            Mistake(
                lambda s1, s2: _jacobian_closed(s1, s2).T,
                "your matrix is transposed: Phi_q has one ROW per equation (2) and one COLUMN per "
                "coordinate x1, y1, phi1, x2, y2, phi2 (6)",
            ),
        ],
    )
)

register(
    Exercise(
        "3.5",
        "gamma of the revolute joint",
        2,
        reference=_gamma_35,
        params=dict(PINS),
        variant=_pin_variant,
        sanity=_gamma_sanity,
        mistakes=[
            Mistake(
                lambda s1, s2: -_gamma_closed(s1, s2),
                "the sign is wrong: gamma is the right side of Phi_q qdd = gamma, so it is MINUS the "
                "velocity terms of Phi_dd (use d2(A s')/dt2 = B s' phi_dd - A s' phi_d^2)",
            ),
            Mistake(
                lambda s1, s2: _gamma_closed(s1, s2, factor=2),
                "a factor of 2 too much: differentiating A s' twice gives A s' phi_d^2 once (the 2 of "
                "-2 Phi_qt qd belongs to time-dependent constraints; here Phi_qt = 0)",
            ),
            Mistake(
                lambda s1, s2: _gamma_closed(s1, s2, power=1),
                "gamma is an acceleration: the centripetal terms go with phi_d SQUARED",
            ),
            Mistake(
                lambda s1, s2: _gamma_closed(s1, s2, along_b=True),
                "the centripetal terms point along A s' (towards the centre of mass), not along B s' "
                "(that direction goes with the angular acceleration, in Phi_q qdd)",
            ),
            Mistake(
                lambda s1, s2: sp.zeros(2, 1),
                "gamma is not zero: Phi is nonlinear in phi1 and phi2, so the velocities contribute "
                "centripetal terms -(Phi_q qd)_q qd",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 3.6 holonomic or not
# Each velocity constraint a(q)·q̇ = 0 as (coefficients a, coordinates q); "holonomic" means integrable.
PFAFF = [
    ((1, RHO), (x, phi)),  # (a) disk rolling on a line: ẋ + ρ φ̇ = 0
    ((-sp.sin(phi), sp.cos(phi), 0), (x, y, phi)),  # (b) knife edge: -ẋ sin φ + ẏ cos φ = 0
    ((y, -x), (x, y)),  # (c) y ẋ - x ẏ = 0
    ((x, y, z), (x, y, z)),  # (d) x ẋ + y ẏ + z ż = 0
    ((-y, 0, 1), (x, y, z)),  # (e) ż - y ẋ = 0
    ((-y, -x, 1), (x, y, z)),  # (f) ż - y ẋ - x ẏ = 0
]


def frobenius_integrable(a, q) -> bool:
    """True if one Pfaffian constraint ``a(q)·dq = 0`` is integrable (holonomic).

    Frobenius: ``ω ∧ dω = 0``, i.e. for every ``i < j < k``
    ``a_i (∂_j a_k - ∂_k a_j) + a_j (∂_k a_i - ∂_i a_k) + a_k (∂_i a_j - ∂_j a_i) = 0``
    (with two coordinates there is no such triple: every single constraint is integrable,
    possibly after an integrating factor).

    >>> frobenius_integrable((-y, 0, 1), (x, y, z))
    False
    """
    a = [sp.sympify(c) for c in a]
    n = len(q)
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                e = (a[i] * (a[k].diff(q[j]) - a[j].diff(q[k])) + a[j] * (a[i].diff(q[k]) - a[k].diff(q[i]))
                     + a[k] * (a[j].diff(q[i]) - a[i].diff(q[j])))
                if sp.simplify(e) != 0:
                    return False
    return True


@cache
def _integrable_flags() -> tuple:
    flags = tuple(frobenius_integrable(a, q) for a, q in PFAFF)
    # the library's joints agree: rolling on a line is a rack and pinion, the knife edge is not integrable
    if flags[0] != (not RackPinion.nonholonomic) or flags[1] != (not KnifeEdge.nonholonomic):
        raise AssertionError("3.6: the Frobenius test disagrees with RackPinion/KnifeEdge.nonholonomic")
    return flags


def _holonomic():
    return np.array(_integrable_flags(), dtype=float)


def _item(index: int, wrong: bool):
    """Predicate: item ``index`` of the answer is ``not expected`` (``wrong``), the shape being right."""
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == expected.shape and bool(round(s[index]) != expected[index]) == wrong

    return test


def _all(value: float):
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == expected.shape and bool(np.all(s == value))

    return test


def _misclassified(letter: str, form: str, coords: str) -> str:
    """The hint for one misclassified item: the test to apply, not its outcome."""
    return (f"({letter}) is misclassified: ask whether {form} = 0 is the time derivative of some "
            f"f({coords}) = const, possibly after multiplying by a factor; with three coordinates, test "
            "Frobenius' condition a . curl(a) = 0")


register(
    Exercise(
        "3.6",
        "Holonomic or nonholonomic?",
        2,
        reference=_holonomic,
        mistakes=[
            Mistake.when(
                _all(0.0),
                "not every constraint written with velocities is nonholonomic: a holonomic one also has "
                "a velocity form (differentiate Phi(q) = 0). Ask: is a(q).qd = 0 the time derivative of "
                "some f(q) = const (maybe after multiplying by a factor)?",
            ),
            Mistake.when(
                _all(1.0),
                "not every velocity constraint can be integrated: some restrict the velocities while every "
                "configuration can still be reached (think of parallel parking); test each one",
            ),
            Mistake.when(_item(0, True), _misclassified("a", "xd + rho phid", "x, phi")),
            Mistake.when(_item(1, True), _misclassified("b", "-xd sin(phi) + yd cos(phi)", "x, y, phi")),
            Mistake.when(
                _item(2, True),
                "(c) is misclassified: with two coordinates, one velocity constraint a(q).qd = 0 always has "
                "an integrating factor: look for it",
            ),
            Mistake.when(_item(3, True), _misclassified("d", "x xd + y yd + z zd", "x, y, z")),
            Mistake.when(_item(4, True), _misclassified("e", "zd - y xd", "x, y, z")),
            Mistake.when(_item(5, True), _misclassified("f", "zd - y xd - x yd", "x, y, z")),
        ],
    )
)


# ------------------------------------------------------------------ 3.7 Baumgarte
def _baumgarte_variant(rng) -> dict:
    """beta from 4 to 12 1/s, alpha above it (two distinct real roots), at most 2 beta."""
    beta = int(rng.integers(4, 13))
    return {"alpha": float(beta + rng.integers(1, beta + 1)), "beta": float(beta)}


def _roots(a2, a1, a0):
    """Roots of a2 s² + a1 s + a0 = 0, ascending (real parts if complex)."""
    return np.sort(np.roots([a2, a1, a0]).real)


def _baumgarte(alpha, beta):
    """Φ̈ + 2α Φ̇ + β² Φ = 0: s = -α ± sqrt(α² - β²); critical damping when α = β."""
    d = math.sqrt(alpha**2 - beta**2)
    return np.array([-alpha - d, -alpha + d, beta])


def _alpha_beta(expected):
    """α and β back from a key (s1, s2, α_c): s1 + s2 = -2α, α_c = β (for the predicates below)."""
    e = np.asarray(expected, dtype=float).reshape(-1)
    return -(e[0] + e[1]) / 2, e[2]


def _roots_are(coefficients):
    """Predicate: the two roots are those of the polynomial ``coefficients(alpha, beta)``, in any order."""
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        values = _roots(*coefficients(*_alpha_beta(expected)))
        return s.shape == (3,) and np.allclose(np.sort(s[:2]), values, rtol=1e-4, atol=1e-6)

    return test


def _alpha_is(value):
    """Predicate: the third entry is ``value(beta)``."""
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (3,) and bool(np.isclose(s[2], value(_alpha_beta(expected)[1]), rtol=1e-4))

    return test


@_safe
def _baumgarte_sanity(answer, **_):
    a = np.asarray(normalize(answer), dtype=float).reshape(-1)
    if a.shape != (3,):
        return None
    if np.any(a[:2] > 0):
        return ("a positive root means a violation that GROWS; Baumgarte's terms are meant to make it decay "
                "(check the signs of the characteristic equation)")
    if a[2] <= 0:
        return "an alpha <= 0 does not damp the violation: critical damping needs a positive alpha"
    return None


_SIGN_HINT = ("positive roots mean a violation that GROWS: the violation obeys Phi_dd + 2 alpha Phi_d + "
              "beta^2 Phi = 0 (it decays), so s^2 + 2 alpha s + beta^2 = 0")
_BETA2_HINT = "beta enters squared: Phi_dd + 2 alpha Phi_d + beta^2 Phi = 0 (beta is a frequency, 1/s)"

register(
    Exercise(
        "3.7",
        "Baumgarte stabilization: roots and critical damping",
        2,
        reference=_baumgarte,
        rtol=1e-4,
        params=dict(BAUMGARTE),
        variant=_baumgarte_variant,
        sanity=_baumgarte_sanity,
        alternatives=[lambda alpha, beta: _baumgarte(alpha, beta)[[1, 0, 2]]],  # the roots in either order
        mistakes=[
            Mistake.when(_roots_are(lambda a, b: (1, -2 * a, b**2)), _SIGN_HINT),
            Mistake.when(_roots_are(lambda a, b: (1, 2 * a, b)), _BETA2_HINT),
            Mistake.when(
                _roots_are(lambda a, b: (1, a, b**2)),
                "the factor 2 is missing: the damping term is 2 alpha Phi_d, so the characteristic "
                "equation is s^2 + 2 alpha s + beta^2 = 0 (with alpha > beta both of its roots are real)",
            ),
            Mistake.when(
                _alpha_is(lambda b: -b),
                "a negative alpha gives a double root s > 0: the violation grows; of the two solutions "
                "for critical damping take the one that damps",
            ),
            Mistake.when(_alpha_is(math.sqrt), _BETA2_HINT),
            Mistake.when(
                _alpha_is(lambda b: 2 * b),
                "the damping term is 2 alpha Phi_d: the double root of s^2 + 2 alpha s + beta^2 = 0 comes "
                "where its discriminant vanishes; solve that for alpha",
            ),
            Mistake.when(
                _alpha_is(lambda b: b**2),
                "critical damping: the discriminant of s^2 + 2 alpha s + beta^2 = 0 is zero; solve it for "
                "alpha and check the powers",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 3.8 pin force from λ
def _pendulum_variant(rng) -> dict:
    """0.5-5 kg, 0.4-2 m, released 15-75° from the vertical (whole degrees)."""
    return {"mass": float(rng.integers(5, 51)) / 10, "length": float(rng.integers(4, 21)) / 10,
            "theta0_deg": float(rng.integers(15, 76))}


def pendulum(mass=2.0, length=1.2, theta0_deg=40.0) -> PlanarModel:
    """The rod of 3.8: pinned at its end at the origin, at rest at θ0 from the downward vertical.

    Body x axis from the pin to the free end (φ = θ0 - π/2), so the pin is at s' = (-L/2, 0);
    the joint is ``add_revolute(rod, ground)``: Φ = r + A s' - 0 (rod minus ground).

    >>> m = pendulum()
    >>> m.n, m.labels
    (3, ['revolute pin x', 'revolute pin y'])
    """
    th, L = math.radians(theta0_deg), length
    m = PlanarModel(gravity=(0.0, -G))
    rod = m.add_body("rod", mass=mass, inertia=mass * L**2 / 12,
                     position=(L / 2 * math.sin(th), -L / 2 * math.cos(th)), angle=th - math.pi / 2)
    m.add_revolute(rod, m.ground, point_i=(-L / 2, 0.0), point_j=(0.0, 0.0), name="pin")
    return m


def _pin_force(mass, length, theta0_deg):
    """F = -(Φ_qᵀ λ)[x, y]: the pin's force on the rod, global components (M q̈ + Φ_qᵀ λ = Q)."""
    m = pendulum(mass, length, theta0_deg)
    _, lam = accelerations(m.system(), 0.0, m.q0, m.qd0)
    return -(m.phi_q(m.q0).T @ lam)[:2]


def _pin_force_closed(mass, length, theta0_deg):
    """At rest: θ̈ = -(3g/2L) sin θ, a_C = (L/2) θ̈ (cos θ, sin θ), F = m a_C + (0, m g)."""
    th = math.radians(theta0_deg)
    return mass * G * np.array([-0.75 * math.sin(th) * math.cos(th), 1 - 0.75 * math.sin(th) ** 2])


def _in_body_frame(mass, length, theta0_deg):
    F = _pin_force_closed(mass, length, theta0_deg)
    phi_rod = math.radians(theta0_deg) - math.pi / 2
    c, s = math.cos(phi_rod), math.sin(phi_rod)
    return np.array([c * F[0] + s * F[1], -s * F[0] + c * F[1]])  # Aᵀ F


def _with_moment(mass, length, theta0_deg):
    """All of -Φ_qᵀ λ: the force and its moment about the centre, (A s') × F with A s' = pin - C."""
    F, th = _pin_force_closed(mass, length, theta0_deg), math.radians(theta0_deg)
    d = -length / 2 * np.array([math.sin(th), -math.cos(th)])
    return np.array([F[0], F[1], d[0] * F[1] - d[1] * F[0]])


@_safe
def _pin_force_sanity(answer, **_):
    a = np.asarray(normalize(answer), dtype=float).reshape(-1)
    if a.shape == (2,) and a[1] <= 0:
        return ("the pin holds the rod up: the vertical component of its force on the rod is positive "
                "(check the sign, and that the components are global)")
    return None


_BODY_FRAME = ("those are the rod's body-frame components; the rows x, y of -Phi_q^T lambda are GLOBAL "
               "components (r is global)")

register(
    Exercise(
        "3.8",
        "The pin force on a pendulum from the Lagrange multipliers",
        3,
        reference=_pin_force,
        rtol=1e-5,
        params=dict(PENDULUM),
        variant=_pendulum_variant,
        sanity=_pin_force_sanity,
        mistakes=[
            Mistake(
                lambda **p: -_pin_force_closed(**p),
                "the sign is wrong: with M qdd + Phi_q^T lambda = Q the constraint force on the bodies "
                "is -Phi_q^T lambda (your answer is the rod's force on the pin)",
            ),
            Mistake(_in_body_frame, _BODY_FRAME),
            Mistake(lambda **p: -_in_body_frame(**p), _BODY_FRAME),
            Mistake(
                lambda mass, **_: np.array([0.0, mass * G]),
                "that is the static answer (the pin holds the weight); the rod is released from rest "
                "away from the vertical, so it accelerates: solve the KKT system for lambda",
            ),
            Mistake(
                _with_moment,
                "the third entry of -Phi_q^T lambda is the moment of the pin force about the centre of "
                "mass; the force is the first two entries (x, y)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 3.9 the Baumgarte right-hand side
def _baumgarte_case(rng, m: int, n: int) -> tuple:
    """One state of a model with m constraints and n coordinates: (Φ, Φ_q, Φ_t, γ, q̇, α, β).

    Φ is a small violation (drift), Φ_t is away from zero in every row (a driven model),
    α and β are 2-20 1/s, at least 2 apart (so that swapping them shows) and never 1.
    """
    alpha = float(np.round(rng.uniform(2.0, 20.0), 2))
    beta = alpha
    while abs(beta - alpha) < 2.0:
        beta = float(np.round(rng.uniform(2.0, 20.0), 2))
    phi_t = rng.choice([-1.0, 1.0], size=m) * rng.uniform(0.5, 2.0, size=m)
    return (rng.normal(scale=0.02, size=m), rng.normal(size=(m, n)), phi_t, rng.normal(size=m),
            rng.normal(size=n), alpha, beta)


BAUMGARTE_CASES = [_baumgarte_case(np.random.default_rng(309), m, n) for m, n in ((1, 3), (2, 6), (4, 9))]


def _baumgarte_hidden(rng) -> list[tuple]:
    """Six states with other sizes: one constraint, and up to 8 constraints on up to 15 coordinates."""
    ms = [1, int(rng.integers(5, 9)), 3, 2, *(int(m) for m in rng.integers(1, 9, size=2))]
    return [_baumgarte_case(rng, m, m + int(rng.integers(1, 8))) for m in ms]


def _baumgarte_rhs(Phi, Phi_q, Phi_t, gamma, qd, alpha, beta, *, damping=1.0, stiffness=1.0,
                   power=2, swap=False, with_phi_t=True, with_gamma=True, factor=2.0):
    """γ - 2α Φ̇ - β² Φ with Φ̇ = Φ_q q̇ + Φ_t (Baumgarte 1972), with a chosen mistake.

    ``damping``/``stiffness``: signs of the two feedback terms; ``power``: of β; ``swap``: α and β
    exchanged; ``with_phi_t``: Φ_t in Φ̇; ``with_gamma``: γ kept; ``factor``: of α Φ̇.
    """
    if swap:
        alpha, beta = beta, alpha
    Phi, Phi_q, Phi_t, gamma, qd = (np.asarray(v, dtype=float) for v in (Phi, Phi_q, Phi_t, gamma, qd))
    phi_dot = Phi_q @ qd + (Phi_t if with_phi_t else 0.0)
    rhs = (gamma if with_gamma else 0.0) - damping * factor * alpha * phi_dot - stiffness * beta**power * Phi
    return np.asarray(rhs, dtype=float).reshape(-1)


register(
    Exercise(
        "3.9",
        "The Baumgarte right-hand side, as a function",
        2,
        reference=_baumgarte_rhs,
        cases=BAUMGARTE_CASES,
        hidden_cases=_baumgarte_hidden,
        function_name="baumgarte_rhs",
        mistakes=[
            Mistake(
                lambda *c: _baumgarte_rhs(*c, damping=-1.0, stiffness=-1.0),
                "the feedback has the wrong sign: the violation must obey Phi_dd + 2 alpha Phi_d + "
                "beta^2 Phi = 0 (it decays), and Phi_dd = Phi_q qdd - gamma: solve that for Phi_q qdd",
            ),
            Mistake(
                lambda *c: _baumgarte_rhs(*c, stiffness=-1.0),
                "the beta^2 Phi term has the wrong sign: a violation Phi > 0 must be pulled back, so the "
                "stabilized equation is Phi_dd + 2 alpha Phi_d + beta^2 Phi = 0",
            ),
            Mistake(
                lambda *c: _baumgarte_rhs(*c, damping=-1.0),
                "the 2 alpha Phi_d term has the wrong sign: it damps, so the stabilized equation is "
                "Phi_dd + 2 alpha Phi_d + beta^2 Phi = 0",
            ),
            Mistake(
                lambda *c: _baumgarte_rhs(*c, swap=True),
                "alpha and beta are swapped: alpha goes with the velocity violation (2 alpha Phi_d), "
                "beta with the position violation (beta^2 Phi)",
            ),
            Mistake(
                lambda *c: _baumgarte_rhs(*c, power=1),
                "beta enters squared: the position feedback is beta^2 Phi (beta is a frequency, 1/s)",
            ),
            Mistake(
                lambda *c: _baumgarte_rhs(*c, with_phi_t=False),
                "Phi_d is the TOTAL time derivative of Phi(q, t): Phi_q qd + Phi_t. Your result misses "
                "Phi_t (it is not zero for a driven model)",
            ),
            Mistake(
                lambda *c: _baumgarte_rhs(*c, factor=1.0),
                "a factor of 2 is missing: the damping term is 2 alpha Phi_d",
            ),
            Mistake(
                lambda *c: _baumgarte_rhs(*c, with_gamma=False),
                "gamma is missing: Baumgarte ADDS the feedback to the right side gamma of Phi_q qdd = gamma",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 3.10 a pin-in-slot joint
_R = np.array([[0.0, -1.0], [1.0, 0.0]])  # turns a vector by +90°


def _rot(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def _drot(angle):
    """B = dA/dφ."""
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[-s, -c], [c, -s]])


def _slot_case(rng) -> tuple:
    """A random state and geometry: (q, q̇, s'_i, u'_i, s'_j); the bodies turn, the state need not close."""
    q = np.concatenate([rng.uniform(-1.0, 1.0, 2), [rng.uniform(-np.pi, np.pi)],
                        rng.uniform(-1.0, 1.0, 2), [rng.uniform(-np.pi, np.pi)]])
    qd = rng.normal(size=6)
    qd[[2, 5]] = rng.choice([-1.0, 1.0], size=2) * rng.uniform(0.5, 3.0, size=2)
    slot_angle = rng.uniform(-np.pi, np.pi)
    return (q, qd, rng.uniform(-0.5, 0.5, 2), np.array([math.cos(slot_angle), math.sin(slot_angle)]),
            rng.uniform(-0.5, 0.5, 2))


SLOT_CASES = [_slot_case(np.random.default_rng(310 + k)) for k in range(3)]


def _pin_in_slot(q, qd, s_i, u_i, s_j):
    """[Φ, Φ_q (6 entries), γ] of the library's PointOnLine (the pin s'_j of body j on body i's slot)."""
    joint = PointOnLine("slot", ("i", "j"), np.asarray(s_i, float), np.asarray(s_j, float),
                        np.asarray(u_i, float))
    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    return np.concatenate([joint.phi(q), joint.jacobian(q)[0], joint.gamma(q, qd)])


def _slot_closed(q, qd, s_i, u_i, s_j, *, A=_rot, B=_drot, B_gamma=None, centripetal=True,
                 normal_centripetal=True, coriolis=2.0, rotating_column=True, swap=False, gamma_sign=1.0,
                 phi_sign=1.0, direction=False):
    """The pin-in-slot joint written out, with a chosen mistake (defaults: right).

    Φ = nᵀd with n = A_i R u'_i and d = r_j + A_j s'_j - r_i - A_i s'_i;
    Φ_q = [-nᵀ, n_φᵀd - nᵀB_i s'_i, nᵀ, nᵀB_j s'_j] with n_φ = B_i R u'_i;
    γ = φ̇_i² nᵀd - 2 ṅᵀḋ + nᵀ(A_j s'_j φ̇_j² - A_i s'_i φ̇_i²) with ṅ = n_φ φ̇_i.
    """
    q, qd, s_i, u, s_j = (np.asarray(v, dtype=float) for v in (q, qd, s_i, u_i, s_j))
    if direction:  # the slot's direction where its normal belongs: A R (Rᵀ u) = A u
        u = _R.T @ u
    Bg = B if B_gamma is None else B_gamma
    ri, pi, rj, pj = q[0:2], q[2], q[3:5], q[5]
    vi, wi, vj, wj = qd[0:2], qd[2], qd[3:5], qd[5]
    Ai, Aj = A(pi), A(pj)
    n = Ai @ _R @ u
    d = rj + Aj @ s_j - ri - Ai @ s_i
    value = n @ d
    col_i = ((B(pi) @ _R @ u) @ d if rotating_column else 0.0) - n @ (B(pi) @ s_i)
    jac = np.concatenate([-n, [col_i], n, [n @ (B(pj) @ s_j)]])
    if swap:
        jac = jac[[3, 4, 5, 0, 1, 2]]
    n_dot = (Bg(pi) @ _R @ u) * wi
    d_dot = vj + (Bg(pj) @ s_j) * wj - vi - (Bg(pi) @ s_i) * wi
    gamma = ((wi**2 * value if normal_centripetal else 0.0) - coriolis * (n_dot @ d_dot)
             + (n @ (Aj @ s_j * wj**2 - Ai @ s_i * wi**2) if centripetal else 0.0))
    return np.concatenate([[phi_sign * value], jac, [gamma_sign * gamma]])


def _transposed(angle):
    return _rot(-angle)


def _transposed_derivative(angle):
    return _drot(angle).T


def _phi_columns_negated(student, expected) -> bool:
    """Predicate: the two φ entries of Φ_q have the wrong sign, its x and y entries are right (any Φ, γ)."""
    e = np.asarray(expected, dtype=float).reshape(-1)
    if e.shape != (8,) or np.allclose(e[[3, 6]], 0.0, atol=1e-9):
        return False
    for s in (np.asarray(student, dtype=float).reshape(-1), -np.asarray(student, dtype=float).reshape(-1)):
        if s.shape == (8,) and np.allclose(s[[1, 2, 4, 5]], e[[1, 2, 4, 5]], rtol=1e-6, atol=1e-9) \
                and np.allclose(s[[3, 6]], -e[[3, 6]], rtol=1e-6, atol=1e-9):
            return True
    return False


def _with_gamma(value):
    def answer(*case):
        out = _pin_in_slot(*case)
        out[7] = value
        return out

    return answer


_B_TRANSPOSED = ("B is not dA/dphi: differentiate A = [[cos, -sin], [sin, cos]] entry by entry, "
                 "B = [[-sin, -cos], [cos, -sin]] (yours is its transpose)")

register(
    Exercise(
        "3.10",
        "Phi, Phi_q and gamma of a pin-in-slot joint, as a function",
        3,
        reference=_pin_in_slot,
        cases=SLOT_CASES,
        hidden_cases=lambda rng: [_slot_case(rng) for _ in range(6)],
        function_name="pin_in_slot",
        alternatives=[lambda *c: -_pin_in_slot(*c)],  # the other normal, -n: the same constraint
        mistakes=[
            Mistake(
                lambda *c: _slot_closed(*c, gamma_sign=-1.0),
                "gamma has the wrong sign (Phi and Phi_q are right): gamma is the right side of "
                "Phi_q qdd = gamma, MINUS the velocity terms of Phi_dd",
            ),
            Mistake(
                _with_gamma(0.0),
                "gamma is not zero: Phi is nonlinear in the angles, so the velocities contribute "
                "-(Phi_q qd)_q qd",
            ),
            Mistake(
                lambda *c: _slot_closed(*c, centripetal=False),
                "gamma misses the centripetal terms of the two points: d2(A s')/dt2 = B s' phi_dd - "
                "A s' phi_d^2, for the pin (body j) and for the slot's point (body i)",
            ),
            Mistake(
                lambda *c: _slot_closed(*c, normal_centripetal=False),
                "gamma misses a term of the turning normal: n = A_i R u' has n_dd = B_i R u' phi_dd_i - "
                "n phi_d_i^2, and its velocity part multiplies d",
            ),
            Mistake(
                lambda *c: _slot_closed(*c, normal_centripetal=False, coriolis=0.0),
                "gamma treats the slot's normal n as constant: it turns with body i (n_d = B_i R u' "
                "phi_d_i), so Phi_dd = d2(n.d)/dt2 has the terms n_dd.d and 2 n_d.d_d as well",
            ),
            Mistake(
                lambda *c: _slot_closed(*c, coriolis=1.0),
                "a factor of 2 is missing in gamma: d2(n.d)/dt2 = n_dd.d + 2 n_d.d_d + n.d_dd",
            ),
            Mistake(
                lambda *c: _slot_closed(*c, swap=True),
                "the Phi_q entries of the two bodies are exchanged: entries 1-3 of your array belong to "
                "x_i, y_i, phi_i (the slot's body i), entries 4-6 to x_j, y_j, phi_j (the pin's body j)",
            ),
            Mistake(
                lambda *c: _slot_closed(*c, rotating_column=False),
                "the phi_i entry of Phi_q misses the turning slot: the normal n = A_i R u' depends on "
                "phi_i too, dn/dphi_i = B_i R u', which adds (dn/dphi_i).d",
            ),
            Mistake.when(
                _phi_columns_negated,
                "the phi entries of Phi_q have the wrong sign: B = dA/dphi = [[-sin, -cos], [cos, -sin]] "
                "(d cos/dphi = -sin, d sin/dphi = cos)",
            ),
            Mistake(lambda *c: _slot_closed(*c, B=_transposed_derivative, B_gamma=_drot), _B_TRANSPOSED),
            Mistake(lambda *c: _slot_closed(*c, B=_transposed_derivative), _B_TRANSPOSED),
            Mistake(
                lambda *c: _slot_closed(*c, A=_transposed, B=_transposed_derivative),
                "A is transposed (you rotated by -phi): A(phi) = [[cos, -sin], [sin, cos]] maps body "
                "components to global ones",
            ),
            Mistake(
                lambda *c: _slot_closed(*c, direction=True),
                "you constrained the component ALONG the slot (A_i u'): the pin may slide along the slot; "
                "the equation is on the NORMAL component, n = A_i R u' with R = [[0, -1], [1, 0]]",
            ),
            Mistake(
                lambda *c: _slot_closed(*c, phi_sign=-1.0),
                "your Phi has the opposite sign of your Phi_q and gamma: all three belong to the same "
                "equation (Phi_q = dPhi/dq)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 3.11 a slider-crank, end to end
def _slider_crank_variant(rng) -> dict:
    """Crank 8-25 cm, rod 2.5-4.5 cranks long, masses in 0.1 kg, the crank 25-155° from the guide (or
    that plus 180°, away from the dead centres), turning at 3-12 rad/s either way."""
    r = int(rng.integers(8, 26)) / 100
    return {"r": r, "l": round(r * float(rng.uniform(2.5, 4.5)), 2),
            "m_crank": int(rng.integers(5, 21)) / 10, "m_rod": int(rng.integers(10, 41)) / 10,
            "m_slider": int(rng.integers(5, 31)) / 10, "J_slider": 0.002,
            "theta_deg": float(int(rng.integers(25, 156)) + int(rng.choice([0, 180]))),
            "omega": float(rng.choice([-1.0, 1.0]) * int(rng.integers(6, 25)) / 2)}


def slider_crank(r, l, m_crank, m_rod, m_slider, J_slider, theta_deg, omega, *, gravity=-G,
                 crank_inertia=None, velocities="consistent"):
    """The slider-crank of 3.11 as a :class:`PlanarModel` with its state ``(model, q, q̇)``.

    Bodies in this order: the crank (a uniform bar from O = (0, 0) to the crank pin A, body x axis
    from O to A), the connecting rod (a uniform bar from A to the slider pin B, x axis from A to B)
    and the slider (a block at B on the global x axis, angle 0). Joints in this order: revolute
    ground-crank at O, revolute crank-rod at A, revolute rod-slider at B, translational
    ground-slider along x. The crank is at ``theta_deg`` from the x axis and turns at ``omega``.

    ``velocities``: "consistent" (Φ_q q̇ = 0 with φ̇_crank = ω, the right state), "rest" (q̇ = 0),
    "crank" (only φ̇_crank = ω, the rest 0) or "projected" (ω given to the crank as a guess and
    made consistent by :meth:`~mbdlib.planar.PlanarModel.assemble`, a least-change projection that
    does not keep φ̇_crank = ω). ``gravity``: the y component; ``crank_inertia``: default m r²/12.

    >>> model, q, qd = slider_crank(**SLIDER_CRANK)
    >>> model.n, len(model.labels), round(float(qd[2]), 12)
    (9, 8, 8.0)
    """
    th = math.radians(theta_deg)
    A = r * np.array([math.cos(th), math.sin(th)])
    B = np.array([A[0] + math.sqrt(l**2 - A[1] ** 2), 0.0])
    model = PlanarModel(gravity=(0.0, gravity))
    J_crank = m_crank * r**2 / 12 if crank_inertia is None else crank_inertia
    crank = model.add_body("crank", m_crank, J_crank, position=A / 2, angle=th,
                           angular_velocity=omega if velocities == "projected" else 0.0)
    rod = model.add_body("rod", m_rod, m_rod * l**2 / 12, position=(A + B) / 2,
                         angle=math.atan2(B[1] - A[1], B[0] - A[0]))
    slider = model.add_body("slider", m_slider, J_slider, position=B)
    model.add_revolute(model.ground, crank, point_i=(0.0, 0.0), point_j=(-r / 2, 0.0), name="O")
    model.add_revolute(crank, rod, point_i=(r / 2, 0.0), point_j=(-l / 2, 0.0), name="A")
    model.add_revolute(rod, slider, point_i=(l / 2, 0.0), point_j=(0.0, 0.0), name="B")
    model.add_translational(model.ground, slider, axis_i=(1.0, 0.0), name="guide")
    q = model.q_guess()  # the closed-form pose: every joint closes
    if velocities == "projected":
        state = model.assemble()
        return model, state.q0, state.qd0
    qd = np.zeros(model.n)
    if velocities == "crank":
        qd[2] = omega
    elif velocities == "consistent":
        drive = np.zeros((1, model.n))
        drive[0, 2] = 1.0
        qd = np.linalg.solve(np.vstack([model.phi_q(q), drive]), np.r_[np.zeros(8), omega])
    return model, q, qd


def _dof_counts() -> np.ndarray:
    report = slider_crank(**SLIDER_CRANK)[0].dof_report()
    return np.array([report.coordinates, report.constraints, report.rank, report.dof], dtype=float)


def _own_dof_inconsistent(student, expected) -> bool:
    s = np.asarray(student, dtype=float).reshape(-1)
    return s.shape == (4,) and bool(np.all(np.isfinite(s))) and not np.isclose(s[3], s[0] - s[2])


def _rank_too_large(student, expected) -> bool:
    s = np.asarray(student, dtype=float).reshape(-1)
    return s.shape == (4,) and bool(np.all(np.isfinite(s))) and bool(s[2] > min(s[0], s[1]))


_GROUND = ("the ground is fixed and has no coordinates: only the moving bodies (crank, rod, slider) have "
           "x, y, phi")

register(
    Exercise(
        "3.11a",
        "Slider-crank end to end: coordinates, constraint equations, rank and DOF",
        1,
        reference=_dof_counts,
        mistakes=[
            Mistake(lambda: np.array([12.0, 8.0, 8.0, 4.0]), _GROUND),
            Mistake(lambda: np.array([12.0, 11.0, 11.0, 1.0]), _GROUND),
            Mistake(
                lambda: np.array([9.0, 7.0, 7.0, 2.0]),
                "the translational joint removes 2 degrees of freedom (2 equations): the slider can "
                "neither leave the guide nor turn",
            ),
            Mistake(
                lambda: np.array([9.0, 5.0, 5.0, 4.0]),
                "a planar revolute joint has 2 equations (the two pins coincide in x and in y), not 1",
            ),
            Mistake(
                lambda: np.array([6.0, 5.0, 5.0, 1.0]),
                "the model of the statement has three moving bodies: the slider is a body of its own, "
                "with its own x, y, phi",
            ),
            Mistake.when(
                _rank_too_large,
                "the rank of Phi_q cannot exceed its number of rows (equations) or of columns "
                "(coordinates)",
            ),
            Mistake.when(
                _own_dof_inconsistent,
                "your DOF is not coordinates - rank(Phi_q) of your own numbers: the rank counts the "
                "independent equations, each removes one degree of freedom",
            ),
        ],
    )
)


def _multipliers(**p) -> np.ndarray:
    """λ of M q̈ + Φ_qᵀ λ = Q at the state of ``p`` (keywords of :func:`slider_crank`)."""
    model, q, qd = slider_crank(**p)
    return accelerations(model.system(Assembly(q, qd)), 0.0, q, qd)[1]


def _some_signs_flipped(student, expected) -> bool:
    s, e = np.asarray(student, dtype=float).reshape(-1), np.asarray(expected, dtype=float).reshape(-1)
    if s.shape != e.shape or not np.allclose(np.abs(s), np.abs(e), rtol=1e-6, atol=1e-9):
        return False
    return bool(np.any(~np.isclose(s, e, rtol=1e-6, atol=1e-9)))


register(
    Exercise(
        "3.11b",
        "Slider-crank end to end: the Lagrange multipliers under gravity",
        3,
        reference=_multipliers,
        rtol=1e-5,
        atol=1e-7,
        params=dict(SLIDER_CRANK),
        variant=_slider_crank_variant,
        mistakes=[
            Mistake(
                lambda **p: -_multipliers(**p),
                "the sign is wrong everywhere: the equations of motion are M qdd + Phi_q^T lambda = Q "
                "(the constraint forces are -Phi_q^T lambda)",
            ),
            Mistake(
                lambda **p: _multipliers(**p, gravity=0.0),
                "gravity is missing: the model needs gravity = (0, -9.81) m/s^2 (PlanarModel(gravity=...))",
            ),
            Mistake(
                lambda **p: _multipliers(**p, gravity=G),
                "gravity points the wrong way: it is along -y, (0, -9.81) m/s^2",
            ),
            Mistake(
                lambda **p: _multipliers(**p, velocities="rest"),
                "those are the multipliers at rest: the crank turns at omega, and the velocities add "
                "centripetal terms to gamma (hence to lambda)",
            ),
            Mistake(
                lambda **p: _multipliers(**p, velocities="crank"),
                "your velocities are not consistent: only phi_d of the crank is omega, but the crank's "
                "centre, the rod and the slider move too; solve Phi_q qd = 0 together with "
                "phi_d_crank = omega",
            ),
            Mistake(
                lambda **p: _multipliers(**p, velocities="projected"),
                "the crank no longer turns at omega: assemble() makes guessed velocities consistent by "
                "the least mass-weighted change, which changes phi_d of the crank too; hold it: "
                "model.state(speeds={pin_O: omega}), or solve Phi_q qd = 0 with phi_d_crank = omega",
            ),
            Mistake(
                lambda **p: _multipliers(**p, crank_inertia=p["m_crank"] * p["r"] ** 2 / 3),
                "the crank's inertia is about its centre of mass (m r^2 / 12 for a uniform bar), not "
                "about O: the coordinates are those of the centre of mass",
            ),
            Mistake.when(
                _some_signs_flipped,
                "some multipliers have the wrong sign: each joint's lambda belongs to its Phi = (body i) - "
                "(body j) with the bodies in the order stated; a joint added the other way round flips "
                "its lambda",
            ),
        ],
    )
)


def _joint_force(joint: str, body_columns: slice, **p) -> np.ndarray:
    """-(Φ_q of one joint, columns of one body)ᵀ λ of that joint: its force (and moment) on that body."""
    model, q, qd = slider_crank(**p)
    lam = accelerations(model.system(Assembly(q, qd)), 0.0, q, qd)[1]
    rows = [k for k, label in enumerate(model.labels) if label.startswith(f"revolute {joint} ")]
    return -(model.phi_q(q)[rows][:, body_columns].T @ lam[rows])


def _crank_pin_force(**p) -> np.ndarray:
    """The rod's force on the crank at A (global x, y): the crank is body i of joint A."""
    return _joint_force("A", slice(0, 2), **p)


def _crank_frame(**p) -> np.ndarray:
    th = math.radians(p["theta_deg"])
    return _rot(th).T @ _crank_pin_force(**p)


_AT_O = ("that is the force at O (the ground's bearing on the crank); the crank pin is A, between the crank "
         "and the rod")
_AT_B = ("that is the force at B (between the rod and the slider); the crank pin is A, between the crank "
         "and the rod")
_CRANK_FRAME = ("those are components in the crank's body frame; give GLOBAL x, y components (the rows x, y "
                "of -Phi_q^T lambda are global)")

register(
    Exercise(
        "3.11c",
        "Slider-crank end to end: the crank-pin force from lambda",
        2,
        reference=_crank_pin_force,
        rtol=1e-5,
        atol=1e-7,
        params=dict(SLIDER_CRANK),
        variant=_slider_crank_variant,
        mistakes=[
            Mistake(
                lambda **p: -_crank_pin_force(**p),
                "the sign is wrong: that is the crank's force on the rod; the rod's force on the crank is "
                "its opposite (the crank is body i of joint A: its rows of -Phi_q^T lambda)",
            ),
            Mistake(
                lambda **p: _joint_force("O", slice(0, 2), **p),
                _AT_O,
            ),
            Mistake(lambda **p: -_joint_force("O", slice(0, 2), **p), _AT_O),
            Mistake(
                lambda **p: _joint_force("B", slice(6, 8), **p),
                _AT_B,
            ),
            Mistake(lambda **p: -_joint_force("B", slice(6, 8), **p), _AT_B),
            Mistake(
                _crank_frame,
                _CRANK_FRAME,
            ),
            Mistake(lambda **p: -_crank_frame(**p), _CRANK_FRAME),
            Mistake(
                lambda **p: _crank_pin_force(**p, velocities="rest"),
                "that is the force at rest: the crank turns at omega, and the centripetal accelerations "
                "change the pin force",
            ),
            Mistake(
                lambda **p: _crank_pin_force(**p, gravity=0.0),
                "gravity is missing: the model needs gravity = (0, -9.81) m/s^2",
            ),
            Mistake(
                lambda **p: _joint_force("A", slice(0, 3), **p),
                "the third entry is the moment of the pin force about the crank's centre of mass; the "
                "force is the first two (x, y)",
            ),
        ],
    )
)


# ================================================================== practice inside the pages (0 points)
# The short exercises of the chapter's pages, each after the worked example it practises; 0 points, never
# released or graded, the solution folded on the page. Their numbers are the page's own.

# 3.P1 (page 3.1): γ of the pendulum's pin, the rod at P1_PHI_DEG turning at P1_RATE
P1_LENGTH, P1_PHI_DEG, P1_RATE = 1.0, -50.0, 2.0  # m, deg (the rod's angle φ), rad/s (φ̇)


def _p1_model() -> PlanarModel:
    """The page's pendulum: a rod of length L pinned at the origin by its end s' = (-L/2, 0)."""
    L, phi = P1_LENGTH, math.radians(P1_PHI_DEG)
    m = PlanarModel(gravity=(0.0, -G))
    rod = m.add_body("rod", mass=2.0, inertia=2.0 * L**2 / 12,
                     position=(L / 2 * math.cos(phi), L / 2 * math.sin(phi)), angle=phi)
    m.add_revolute(m.ground, rod, point_i=(0.0, 0.0), point_j=(-L / 2, 0.0), name="pin")
    return m


def _p1_gamma() -> np.ndarray:
    """γ of the library's model at the state (q, q̇) with φ̇ = P1_RATE and Φ_q q̇ = 0."""
    m, phi, w = _p1_model(), math.radians(P1_PHI_DEG), P1_RATE
    q = m.q0
    qd = np.array([-P1_LENGTH / 2 * math.sin(phi) * w, P1_LENGTH / 2 * math.cos(phi) * w, w])
    return m.gamma(q, qd)


def _p1_closed(factor=0.5, power=2, radians=True, across=False) -> np.ndarray:
    """factor · L φ̇^power · (cos φ, sin φ), or across the rod (-sin φ, cos φ), with a chosen mistake."""
    phi = math.radians(P1_PHI_DEG) if radians else P1_PHI_DEG
    along = np.array([math.cos(phi), math.sin(phi)])
    direction = np.array([-along[1], along[0]]) if across else along
    return factor * P1_LENGTH * P1_RATE**power * direction


register(
    Exercise(
        "3.P1",
        "The acceleration right-hand side of the pendulum's pin",
        0,
        reference=_p1_gamma,
        mistakes=[
            Mistake(
                lambda: _p1_closed(factor=-0.5),
                "the sign: gamma is defined by Phi_q qdd = gamma, so gamma = Phi_q qdd - (d/dt)^2 Phi; "
                "the page's Phi is the ground's point minus the rod's end, -(r + A s')",
            ),
            Mistake(
                lambda: _p1_closed(power=1),
                "gamma of a joint that does not depend on time is quadratic in the velocities: the rate "
                "phi_dot appears squared",
            ),
            Mistake(
                lambda: _p1_closed(factor=1.0),
                "the pin is at the rod's end, L/2 from its centre of mass (s' = (-L/2, 0)), not L",
            ),
            Mistake(
                lambda: _p1_closed(radians=False),
                "you used degrees: np.cos and np.sin take radians (np.radians(-50))",
            ),
            Mistake(
                lambda: _p1_closed(across=True),
                "that vector points across the rod; gamma of a pin is the centripetal part, A s' phi_dot^2 "
                "up to its sign, which lies along the rod",
            ),
        ],
    )
)

# 3.P2 (page 3.2): a V-engine, the page's slider-crank with a second rod and slider on a vertical guide
P2_CRANK, P2_ROD, P2_THETA_DEG = 0.2, 0.6, 60.0  # m, m, deg: the page's slider-crank


def v_engine() -> PlanarModel:
    """The page's slider-crank (crank OA, rod AB, slider B on the x axis) plus a second rod, pinned to the
    crank at A, whose end drives a second slider on the y axis: 5 moving bodies, 5 pins, 2 guides.

    >>> r = v_engine().dof_report()
    >>> r.coordinates, r.constraints, r.grubler, r.rank, r.dof
    (15, 14, 1, 14, 1)
    """
    r, l, th = P2_CRANK, P2_ROD, math.radians(P2_THETA_DEG)
    a = r * np.array([math.cos(th), math.sin(th)])
    b = np.array([a[0] + math.sqrt(l**2 - a[1] ** 2), 0.0])
    c = np.array([0.0, a[1] + math.sqrt(l**2 - a[0] ** 2)])
    m = PlanarModel(gravity=(0.0, -G))
    m.add_body("crank", mass=1.0, inertia=r**2 / 12, position=a / 2, angle=th)
    m.add_body("rod", mass=2.0, inertia=2.0 * l**2 / 12, position=(a + b) / 2,
               angle=math.atan2(b[1] - a[1], b[0] - a[0]))
    m.add_body("slider", mass=1.5, inertia=0.01, position=b)
    m.add_body("rod2", mass=2.0, inertia=2.0 * l**2 / 12, position=(a + c) / 2,
               angle=math.atan2(c[1] - a[1], c[0] - a[0]))
    m.add_body("slider2", mass=1.5, inertia=0.01, position=c)
    m.add_revolute(m.ground, "crank", (0.0, 0.0), (-r / 2, 0.0), name="O")
    m.add_revolute("crank", "rod", (r / 2, 0.0), (-l / 2, 0.0), name="A")
    m.add_revolute("rod", "slider", (l / 2, 0.0), (0.0, 0.0), name="B")
    m.add_translational(m.ground, "slider", axis_i=(1.0, 0.0), name="guide")
    m.add_revolute("crank", "rod2", (r / 2, 0.0), (-l / 2, 0.0), name="A2")
    m.add_revolute("rod2", "slider2", (l / 2, 0.0), (0.0, 0.0), name="B2")
    m.add_translational(m.ground, "slider2", axis_i=(0.0, 1.0), name="guide2")
    m.assemble()
    return m


def _p2_counts() -> np.ndarray:
    rep = v_engine().dof_report()
    return np.array([rep.grubler, rep.rank, rep.dof], dtype=float)


def _entry(k: int, *values: float):
    """A mistake test: entry k of a 3-vector answer is one of ``values`` (and the answer is not right)."""
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (3,) and any(math.isclose(s[k], v) for v in values) and not np.allclose(s, expected)

    return test


register(
    Exercise(
        "3.P2",
        "Grübler count, rank and degrees of freedom of a V-engine",
        0,
        reference=_p2_counts,
        mistakes=[
            Mistake.when(
                _entry(0, 4.0),
                "the Grübler count: the ground is fixed and has no coordinates; only the five moving "
                "bodies count, 3 each",
            ),
            Mistake.when(
                _entry(0, 8.0),
                "the Grübler count: a planar revolute or prismatic joint removes 2 degrees of freedom, "
                "not 1 (it leaves one relative motion of three)",
            ),
            Mistake.when(
                _entry(0, 3.0),
                "the Grübler count: each prismatic guide removes 2 degrees of freedom (the slider can "
                "neither leave its line nor turn), not 1",
            ),
            Mistake.when(
                _entry(1, 15.0),
                "the rank of Phi_q cannot exceed its number of rows, the 14 constraint equations "
                "(15 is the number of coordinates)",
            ),
            Mistake.when(
                _entry(2, 14.0),
                "the degrees of freedom are coordinates - rank(Phi_q), not the rank itself",
            ),
        ],
    )
)

# 3.P3 (page 3.3): how fast Baumgarte's correction removes a violation
P3_GAIN, P3_PHI0, P3_TIME = 5.0, 1e-3, 1.0  # 1/s (alpha = beta), m (Φ(0), with Φ̇(0) = 0), s


def _p3_violation(rate=1.0, with_t=True) -> float:
    """Φ(t) of Φ̈ + 2αΦ̇ + α²Φ = 0 from Φ(0) = Φ0, Φ̇(0) = 0: Φ0 (1 + αt) e^{-αt} (double root s = -α)."""
    a, t = P3_GAIN * rate, P3_TIME
    return P3_PHI0 * ((1.0 + a * t) if with_t else 1.0) * math.exp(-a * t)


register(
    Exercise(
        "3.P3",
        "The violation left by Baumgarte's correction after one second",
        0,
        reference=_p3_violation,
        rtol=1e-4,
        atol=1e-12,
        mistakes=[
            Mistake(
                lambda: _p3_violation(with_t=False),
                "alpha = beta gives a DOUBLE root s = -alpha: the solutions are e^(st) and t e^(st), and "
                "the start Phi_dot(0) = 0 needs both",
            ),
            Mistake(
                lambda: P3_PHI0 * (1.0 - P3_GAIN * P3_TIME) * math.exp(-P3_GAIN * P3_TIME),
                "check your formula against the start: its derivative at t = 0 must be 0 (Phi_dot(0) = 0)",
            ),
            Mistake(
                lambda: P3_PHI0 * math.exp(-P3_GAIN**2 * P3_TIME),
                "beta^2 multiplies Phi, it is not the decay rate: the rate is a root s of "
                "s^2 + 2 alpha s + beta^2 = 0",
            ),
            Mistake(
                lambda: 1e3 * _p3_violation(),
                "give the violation in metres (the start is 1 mm = 0.001 m)",
            ),
        ],
    )
)

# 3.P4 (page 3.4): the pendulum rod held still at P4_PHI_DEG by an angle driver
P4_MASS, P4_LENGTH, P4_PHI_DEG = 2.0, 1.0, -30.0  # kg, m, deg (the rod's angle φ from the x axis)


def held_rod(phi_deg: float = P4_PHI_DEG) -> PlanarModel:
    """The page's held pendulum: a rod pinned at the origin by its end, its angle held by a driver.

    >>> [j.name for j in held_rod().joints]
    ['pin', 'hold']
    """
    L, phi = P4_LENGTH, math.radians(phi_deg)
    m = PlanarModel(gravity=(0.0, -G))
    m.add_body("rod", mass=P4_MASS, inertia=P4_MASS * L**2 / 12,
               position=(L / 2 * math.cos(phi), L / 2 * math.sin(phi)), angle=phi)
    m.add_revolute(m.ground, "rod", (0.0, 0.0), (-L / 2, 0.0), name="pin")
    m.add_driver("rod", "phi", f=phi, name="hold")
    return m


def _p4_pin() -> np.ndarray:
    """(F_x, F_y, τ) of the pin on the rod: the pin's rows and the rod's columns of -Φ_qᵀ λ."""
    m = held_rod()
    system = m.system()
    _, lam = accelerations(system, 0.0, system.q0, np.zeros(system.n))
    return -(m.phi_q(system.q0)[:2].T @ lam[:2])


def _p4_closed(sign=1.0, moment="centre", trig=math.cos, length_factor=0.5) -> np.ndarray:
    """Statics: the pin carries the weight, m g up; its moment about the centre is -(L/2) cos φ · m g."""
    w, phi = P4_MASS * G, math.radians(P4_PHI_DEG)
    tau = 0.0 if moment == "pin" else -length_factor * P4_LENGTH * trig(phi) * w
    return sign * np.array([0.0, w, tau])


register(
    Exercise(
        "3.P4",
        "The pin force on a rod held at an angle, from lambda",
        0,
        reference=_p4_pin,
        rtol=1e-6,
        atol=1e-8,
        mistakes=[
            Mistake(
                lambda: _p4_closed(sign=-1.0),
                "the sign: with M qdd + Phi_q^T lambda = Q the joint's force on the bodies is "
                "-Phi_q^T lambda (yours is the rod's force on the pin)",
            ),
            Mistake(
                lambda: _p4_closed(moment="pin"),
                "the third entry is the moment about the rod's centre of mass, not about the pin: the "
                "pin's force acts at the rod's end, L/2 from the centre",
            ),
            Mistake(
                lambda: _p4_closed(trig=math.sin),
                "the moment arm of a vertical force is the horizontal distance from the centre to the "
                "pin: (L/2) cos(phi), not (L/2) sin(phi)",
            ),
            Mistake(
                lambda: _p4_closed(length_factor=1.0),
                "the pin is L/2 from the rod's centre of mass, not L",
            ),
            Mistake(
                lambda: np.array([0.0, 0.0, -_p4_closed()[2]]),
                "that is the driver's row (its torque on the rod); the pin's are the rows of the "
                "revolute joint",
            ),
        ],
    )
)
