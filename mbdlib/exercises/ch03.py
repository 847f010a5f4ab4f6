"""Chapter 3 exercises: constraints (solutions/ch03_constraints.ipynb).

Each exercise's expected answer comes from mbdlib's public API where the library
computes it (the DOF report of :class:`~mbdlib.planar.PlanarModel`, the analytic
Φ, Φ_q and γ of :class:`~mbdlib.constraints.Revolute`, the KKT solve of
:func:`mbdlib.dae.accelerations`); the typical mistakes are written out
independently (hand counts and closed forms below), with the hint for each.  The
data are the numbers printed in the exercise notebook.

=====  ======================================================  ======
id     exercise                                                points
=====  ======================================================  ======
3.1    Grübler count of four planar mechanisms                 1
3.2    Their true degrees of freedom, by the rank of Φ_q       1
3.3    Φ of a revolute joint between two bodies (formula)      1
3.4    Its Jacobian Φ_q (formula)                              2
3.5    Its γ, the right side of Φ_q q̈ = γ (formula)            2
3.6    Holonomic or nonholonomic? (six velocity constraints)   2
3.7    Baumgarte stabilization: roots and critical damping     2
3.8    The pin force on a pendulum from λ                      3
=====  ======================================================  ======

Sign conventions (decided here, stated in the notebook).  In 3.3 a revolute joint's
``Φ = 0`` and ``-Φ = 0`` are the same constraint, so both signs are accepted.  From
3.4 on the notebook fixes ``Φ = r_1 + A_1 s'_1 - r_2 - A_2 s'_2`` (body 1 minus body 2,
Haug 1989, §3.3), because Φ_q, γ and the multipliers λ change sign with Φ; the
opposite sign then gets a hint that says so.

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

from ..constraints import KnifeEdge, RackPinion, Revolute
from ..dae import accelerations
from ..planar import PlanarModel
from .compare import normalize, same
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
S1, S2 = (0.5, 0.0), (-0.3, 0.2)  # m, the pin in body 1's and in body 2's frame
RHO = 0.3  # 3.6: m, radius of the rolling disk
x, y, z, phi = sp.symbols("x y z phi", real=True)
ALPHA_B, BETA_B = 10.0, 8.0  # 3.7: 1/s
ROD_MASS, ROD_LENGTH, G = 2.0, 1.2, 9.81  # 3.8: kg, m, m/s^2
THETA0_DEG = 40.0  # 3.8: release angle from the downward vertical, degrees


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


def _revolute():
    return Revolute("pin", ("body1", "body2"), S1, S2)


@cache
def _phi_33():
    return sp.ImmutableMatrix(_revolute().phi(list(Q_SYM)))


@cache
def _jacobian_34():
    return sp.ImmutableMatrix(_revolute().jacobian(list(Q_SYM)))


@cache
def _gamma_35():
    return sp.ImmutableMatrix(_revolute().gamma(list(Q_SYM), list(QD_SYM)))


def _A(angle, s, transpose=False):
    """A(φ) s' = (s_x cos φ - s_y sin φ, s_x sin φ + s_y cos φ) (Aᵀ s' with transpose=True)."""
    c, sn = sp.cos(angle), sp.sin(angle)
    sn = -sn if transpose else sn
    return sp.Matrix([s[0] * c - s[1] * sn, s[0] * sn + s[1] * c])


def _B(angle, s):
    """B(φ) s' = dA/dφ s' = (-s_x sin φ - s_y cos φ, s_x cos φ - s_y sin φ)."""
    c, sn = sp.cos(angle), sp.sin(angle)
    return sp.Matrix([-s[0] * sn - s[1] * c, s[0] * c - s[1] * sn])


def _phi_closed(rotate=True, transpose=False, point_sign=1):
    """Φ = r1 + A1 s1 - r2 - A2 s2 written out, with a chosen mistake."""
    def point(angle, s):
        if not rotate:
            return sp.Matrix(s)
        return point_sign * _A(angle, s, transpose)

    return sp.Matrix([x1, y1]) + point(phi1, S1) - sp.Matrix([x2, y2]) - point(phi2, S2)


def _jacobian_closed(phi_columns=1, sign_b2=-1, b_sign=1):
    """Φ_q = [[I, B1 s1, -I, -B2 s2]] written out (columns x1, y1, φ1, x2, y2, φ2), with a mistake."""
    b1, b2 = b_sign * _B(phi1, S1), b_sign * _B(phi2, S2)
    return sp.Matrix([[1, 0, phi_columns * b1[0], -1, 0, phi_columns * sign_b2 * b2[0]],
                      [0, 1, phi_columns * b1[1], 0, -1, phi_columns * sign_b2 * b2[1]]])


def _gamma_closed(factor=1, power=2, along_b=False):
    """γ = A1 s1 φ̇1² - A2 s2 φ̇2² (the centripetal terms), with a mistake."""
    direction = _B if along_b else _A
    return factor * (direction(phi1, S1) * phid1**power - direction(phi2, S2) * phid2**power)


def _either_sign(produce):
    """A predicate: the student's answer is ``produce()`` or its negative (for sign-free mistakes)."""
    def test(student, expected):
        wrong = normalize(produce())
        return same(student, wrong) or same(student, normalize(-sp.Matrix(produce())))

    return test


register(
    Exercise(
        "3.3",
        "Constraint equations of a revolute joint",
        1,
        reference=_phi_33,
        alternatives=[lambda: -_phi_33()],  # Φ = 0 and -Φ = 0: the same constraint
        mistakes=[
            Mistake.when(
                _either_sign(lambda: _phi_closed(rotate=False)),
                "the body-frame points are not rotated: the pin is at r + A(phi) s', with s' given in "
                "the BODY frame, so it turns with the body",
            ),
            Mistake.when(
                _either_sign(lambda: _phi_closed(transpose=True)),
                "you rotated the points by -phi (A transposed): A(phi) = [[cos, -sin], [sin, cos]] maps "
                "body components to global ones",
            ),
            Mistake.when(
                _either_sign(lambda: _phi_closed(point_sign=-1)),
                "a body point is at r + A s', not r - A s': the pin of each body is its centre of mass "
                "plus the rotated s'",
            ),
        ],
    )
)

register(
    Exercise(
        "3.4",
        "Jacobian of the revolute joint",
        2,
        reference=_jacobian_34,
        mistakes=[
            Mistake(
                lambda: _jacobian_closed(phi_columns=0),
                "the phi columns are missing: the pins move when the bodies turn, "
                "d(A s')/dphi = B s' with B = dA/dphi = [[-sin, -cos], [cos, -sin]]",
            ),
            Mistake(
                lambda: -_jacobian_closed(),
                "that is the Jacobian of -Phi (body 2 minus body 1); use Phi = r1 + A1 s1' - r2 - A2 s2' "
                "as stated (flip the sign of your 3.3 answer if you wrote the other difference)",
            ),
            Mistake(
                lambda: _jacobian_closed(b_sign=-1),
                "the phi columns have the wrong sign: dA/dphi = [[-sin, -cos], [cos, -sin]] "
                "(d cos/dphi = -sin, d sin/dphi = cos)",
            ),
            Mistake(
                lambda: _jacobian_closed(sign_b2=1),
                "the phi2 column has the wrong sign: body 2 enters Phi with a minus, so its columns "
                "are -I and -B2 s2'",
            ),
            Mistake(
                lambda: _jacobian_closed().T,
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
        mistakes=[
            Mistake(
                lambda: -_gamma_closed(),
                "the sign is wrong: Phi_dd = Phi_q qdd - gamma = 0 with d2(A s')/dt2 = B s' phi_dd - "
                "A s' phi_d^2, so gamma = + A1 s1' phi_d1^2 - A2 s2' phi_d2^2 (for Phi as stated)",
            ),
            Mistake(
                lambda: _gamma_closed(factor=2),
                "a factor of 2 too much: differentiating A s' twice gives A s' phi_d^2 once (the 2 of "
                "-2 Phi_qt qd belongs to time-dependent constraints; here Phi_qt = 0)",
            ),
            Mistake(
                lambda: _gamma_closed(power=1),
                "gamma is an acceleration: the centripetal terms go with phi_d SQUARED",
            ),
            Mistake(
                lambda: _gamma_closed(along_b=True),
                "the centripetal terms point along A s' (towards the centre of mass), not along B s' "
                "(that direction goes with the angular acceleration, in Phi_q qdd)",
            ),
            Mistake(
                lambda: sp.zeros(2, 1),
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
                "some of these cannot be integrated: the knife edge (b) can reach every (x, y, phi) by "
                "manoeuvring, so no relation f(x, y, phi) = const holds",
            ),
            Mistake.when(
                _item(0, True),
                "(a) the disk rolling on a line is holonomic: xd + rho phid = 0 integrates to "
                "x + rho phi = const (a rack and pinion)",
            ),
            Mistake.when(
                _item(1, True),
                "(b) the knife edge is nonholonomic: -xd sin(phi) + yd cos(phi) = 0 is not the derivative "
                "of any f(x, y, phi) (Frobenius: omega ^ d omega != 0), think of parallel parking",
            ),
            Mistake.when(
                _item(2, True),
                "(c) y xd - x yd = 0 is holonomic: divide by y^2, it is d(x/y)/dt = 0 (with two "
                "coordinates one constraint is always integrable)",
            ),
            Mistake.when(
                _item(3, True),
                "(d) x xd + y yd + z zd = 0 is d/dt (x^2 + y^2 + z^2)/2 = 0: a sphere, holonomic",
            ),
            Mistake.when(
                _item(4, True),
                "(e) zd - y xd = 0 is nonholonomic: test Frobenius' condition "
                "a1 (d2 a3 - d3 a2) + a2 (d3 a1 - d1 a3) + a3 (d1 a2 - d2 a1) = 0 with a = (-y, 0, 1)",
            ),
            Mistake.when(
                _item(5, True),
                "(f) zd - y xd - x yd = 0 is d/dt (z - x y) = 0: holonomic",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 3.7 Baumgarte
def _roots(a2, a1, a0):
    """Roots of a2 s² + a1 s + a0 = 0, ascending (real parts if complex)."""
    return np.sort(np.roots([a2, a1, a0]).real)


def _baumgarte():
    """Φ̈ + 2α Φ̇ + β² Φ = 0: s = -α ± sqrt(α² - β²); critical damping when α = β."""
    d = math.sqrt(ALPHA_B**2 - BETA_B**2)
    return np.array([-ALPHA_B - d, -ALPHA_B + d, BETA_B])


def _roots_are(values):
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (3,) and np.allclose(np.sort(s[:2]), np.sort(values), rtol=1e-4, atol=1e-6)

    return test


def _alpha_is(value):
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (3,) and bool(np.isclose(s[2], value, rtol=1e-4))

    return test


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
        alternatives=[lambda: _baumgarte()[[1, 0, 2]]],  # the roots in either order
        mistakes=[
            Mistake.when(_roots_are(_roots(1, -2 * ALPHA_B, BETA_B**2)), _SIGN_HINT),
            Mistake.when(_roots_are(_roots(1, 2 * ALPHA_B, BETA_B)), _BETA2_HINT),
            Mistake.when(
                _roots_are(_roots(1, ALPHA_B, BETA_B**2)),
                "the factor 2 is missing: the damping term is 2 alpha Phi_d, so s = -alpha +- "
                "sqrt(alpha^2 - beta^2) (with alpha = 10, beta = 8 both roots are real)",
            ),
            Mistake.when(
                _alpha_is(-BETA_B),
                "alpha = -beta gives a double root s = +beta: the violation grows; critical damping "
                "needs alpha = +beta",
            ),
            Mistake.when(_alpha_is(math.sqrt(BETA_B)), _BETA2_HINT),
            Mistake.when(
                _alpha_is(2 * BETA_B),
                "the damping term is 2 alpha Phi_d: s^2 + 2 alpha s + beta^2 has a double root when "
                "alpha^2 = beta^2, i.e. alpha = beta",
            ),
            Mistake.when(
                _alpha_is(BETA_B**2),
                "critical damping: the discriminant alpha^2 - beta^2 is zero, so alpha = beta, "
                "not beta^2",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 3.8 pin force from λ
def _theta0():
    return math.radians(THETA0_DEG)


def pendulum() -> PlanarModel:
    """The rod of 3.8: pinned at its end at the origin, at rest at θ0 from the downward vertical.

    Body x axis from the pin to the free end (φ = θ0 - π/2), so the pin is at s' = (-L/2, 0);
    the joint is ``add_revolute(rod, ground)``: Φ = r + A s' - 0 (rod minus ground).

    >>> m = pendulum()
    >>> m.n, m.labels
    (3, ['revolute pin x', 'revolute pin y'])
    """
    th, L = _theta0(), ROD_LENGTH
    m = PlanarModel(gravity=(0.0, -G))
    rod = m.add_body("rod", mass=ROD_MASS, inertia=ROD_MASS * L**2 / 12,
                     position=(L / 2 * math.sin(th), -L / 2 * math.cos(th)), angle=th - math.pi / 2)
    m.add_revolute(rod, m.ground, point_i=(-L / 2, 0.0), point_j=(0.0, 0.0), name="pin")
    return m


def _pin_force():
    """F = -(Φ_qᵀ λ)[x, y]: the pin's force on the rod, global components (M q̈ + Φ_qᵀ λ = Q)."""
    m = pendulum()
    _, lam = accelerations(m, 0.0, m.q0, m.qd0)
    return -(m.phi_q(m.q0).T @ lam)[:2]


def _pin_force_closed():
    """At rest: θ̈ = -(3g/2L) sin θ, a_C = (L/2) θ̈ (cos θ, sin θ), F = m a_C + (0, m g)."""
    th = _theta0()
    return ROD_MASS * G * np.array([-0.75 * math.sin(th) * math.cos(th), 1 - 0.75 * math.sin(th) ** 2])


def _in_body_frame(F):
    phi_rod = _theta0() - math.pi / 2
    c, s = math.cos(phi_rod), math.sin(phi_rod)
    return np.array([c * F[0] + s * F[1], -s * F[0] + c * F[1]])  # Aᵀ F


def _with_moment():
    """All of -Φ_qᵀ λ: the force and its moment about the centre, (A s') × F with A s' = pin - C."""
    F, th, L = _pin_force_closed(), _theta0(), ROD_LENGTH
    d = -L / 2 * np.array([math.sin(th), -math.cos(th)])
    return np.array([F[0], F[1], d[0] * F[1] - d[1] * F[0]])


register(
    Exercise(
        "3.8",
        "The pin force on a pendulum from the Lagrange multipliers",
        3,
        reference=_pin_force,
        rtol=1e-5,
        mistakes=[
            Mistake(
                lambda: -_pin_force_closed(),
                "the sign is wrong: with M qdd + Phi_q^T lambda = Q the constraint force on the bodies "
                "is -Phi_q^T lambda (your answer is the rod's force on the pin)",
            ),
            Mistake.when(
                lambda s, e: same(s, normalize(_in_body_frame(_pin_force_closed())))
                or same(s, normalize(-_in_body_frame(_pin_force_closed()))),
                "those are the rod's body-frame components; the rows x, y of -Phi_q^T lambda are "
                "GLOBAL components (r is global)",
            ),
            Mistake(
                lambda: np.array([0.0, ROD_MASS * G]),
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
