"""Chapter 7 exercises: spatial mechanisms and rolling (solutions/ch07_spatial.ipynb).

A spatial body in Cartesian coordinates has seven coordinates, its position and four Euler
parameters ``p = (e0, e1, e2, e3)`` (scalar first) tied by the normalization row ``pᵀp - 1 = 0``;
``ω′ = 2 L ṗ`` with ``L = [-e, -ẽ + e0 I]``, and the rotational block of the mass matrix is
``4 Lᵀ J′ L`` (:mod:`mbdlib.spatial`).  The exercises go from one body (7.1-7.3) to joints and counts
(7.4, 7.5) and to steady motions and nonholonomic rows (7.6-7.8).  Every key comes from mbdlib's public
API (``SpatialModel`` and its ``M`` and ``dof_report``, the ranks included; :func:`mbdlib.simulate` of
the system ``model.system()`` builds; :func:`~mbdlib.rotations.omega_from_quat_rates`) or from a closed
form that the tests check against an independent computation (a simulation, a sympy derivation).
Hints say what is wrong (a factor 2 or 4, scalar-last, body vs global components, a missing
normalization row, Grübler instead of the rank ...) without printing the expected value.

7.3 asks for a FUNCTION, ``rotational_mass(p, J)`` returning ``4 Lᵀ J′ L``, graded on hidden random
states and inertias against the block of :meth:`SpatialModel.M` (without its shift ``k p pᵀ``).
7.7a-c take one rolling disk through the chapter's analysis, each part graded on its own: (a) the
counts of coordinates, holonomic and nonholonomic rows and of position and velocity DOF; (b) the radius
of the steady circle for a given speed and lean; (c) the lean one second after a sideways push, by
simulation (:func:`disk_on_circle` builds the model).  7.9 asks for the sleigh's total turn from the
closed form derived on page 7.4; 7.10 for a FUNCTION, ``rolling_rows(q, qd, radius)``, the values of a
disk's two rolling rows (page 7.3), graded on hidden random states against :meth:`SpatialModel.B`.

**Variants.** 7.1, 7.2, 7.4, 7.6, 7.7b, 7.7c, 7.8 and 7.9 draw each student's numbers
(``params``/``variant``; the public numbers are the notebook's); 7.3 and 7.10 draw their hidden cases.
7.5 (the Bricard linkage) and 7.7a grade the topology of one mechanism and are the same for everyone.

=====  ======================================================  ======
id     exercise                                                points
=====  ======================================================  ======
7.1    Euler parameters of a turn about an axis                1
7.2    Angular velocity from Euler-parameter rates (body)      2
7.3    The rotational mass block 4 Lᵀ J′ L (a function)        2
7.4    Counting a spatial chain: coordinates, rows, DOF        2
7.5    The Bricard linkage: Grübler count vs rank              1
7.6    Steady precession rate of a heavy symmetric top         2
7.7a   Rolling disk: rows and DOF                              1
7.7b   Rolling disk: radius of the steady circle               2
7.7c   Rolling disk: the lean after a sideways push            2
7.8    The Chaplygin sleigh's final speed                      2
7.9    The Chaplygin sleigh's total turn (closed form)         2
7.10   The rolling rows of a disk (a function)                 2
=====  ======================================================  ======

References: P. E. Nikravesh, *Computer-Aided Analysis of Mechanical Systems*, 1988, ch. 6, 7 and
11 (Euler parameters, ``L``, ``G``, the spatial joints, the mass matrix in Euler parameters);
E. J. Haug, *Computer Aided Kinematics and Dynamics of Mechanical Systems*, 1989, ch. 9 and 11;
T. R. Kane & D. A. Levinson, *Dynamics: Theory and Applications*, 1985, ch. 4 and 6 (the rolling
disk, nonholonomic systems, independent speeds); J. L. Synge & B. A. Griffith, *Principles of
Mechanics*, 1959, §14 (the heavy symmetric top's steady precession); A. M. Bloch, *Nonholonomic
Mechanics and Control*, 2003, §1.7 (the Chaplygin sleigh); R. Bricard, 1897 (the linkage).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from ..dae import simulate
from ..rotations import _G, dcm_from_axis_angle, dcm_from_quat, omega_from_quat_rates, quat_from_dcm
from ..schemes import Projection
from ..spatial import SpatialModel
from .core import Exercise, Mistake, register

G = 9.81  # m/s²


# ------------------------------------------------------------------ helpers shared by the mistakes
def _L(p):
    """``L(p) = [-e, -ẽ + e0 I]`` (3, 4), body frame: the Euler-parameter matrix SpatialModel uses."""
    return _G(np.asarray(p, dtype=float), "body")


def _Gm(p):
    """``G(p) = [-e, ẽ + e0 I]`` (3, 4), global frame."""
    return _G(np.asarray(p, dtype=float), "global")


def _scalar_last(p):
    """A scalar-first ``p`` read as if it were scalar-last: ``(p[3], p[0], p[1], p[2])`` as (e0, e)."""
    p = np.asarray(p, dtype=float)
    return np.r_[p[3], p[:3]]


def _entries_are(values, tol=1e-9):
    """Predicate: the student's answer equals ``values`` (``None`` entries are not compared)."""
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (len(values),) and all(v is None or abs(s[i] - v) <= tol * (1 + abs(v))
                                                 for i, v in enumerate(values))

    return test


# ------------------------------------------------------------------ 7.1 Euler parameters of a turn
def _turn_quat(axis, angle_deg, half=True, unit=True, order="first", inverse=False):
    u = np.asarray(axis, dtype=float)
    if unit:
        u = u / np.linalg.norm(u)
    phi = math.radians(angle_deg) * (0.5 if half else 1.0)
    e = math.sin(phi) * u * (-1.0 if inverse else 1.0)
    return np.r_[math.cos(phi), e] if order == "first" else np.r_[e, math.cos(phi)]


def _turn_key(axis, angle_deg):
    """Euler parameters of the turn, by mbdlib: the DCM of the axis-angle turn, then its quaternion
    (sign chosen with e0 >= 0; -p is accepted as well)."""
    p = quat_from_dcm(dcm_from_axis_angle(np.asarray(axis, dtype=float), math.radians(angle_deg)))
    return p if p[0] >= 0 else -p


def _turn_variant(rng) -> dict:
    """An axis of small whole numbers (not along a coordinate axis), an angle of 20-160 degrees."""
    while True:
        axis = rng.integers(-3, 4, size=3)
        if np.count_nonzero(axis) >= 2:
            break
    return {"axis": [float(a) for a in axis], "angle_deg": float(rng.integers(2, 17) * 10)}


def _unit_sanity(answer, **_) -> str | None:
    p = np.asarray(answer, dtype=float).reshape(-1)
    if abs(p @ p - 1.0) > 1e-6:
        return "Euler parameters have p^T p = 1 (the normalization row): yours do not"
    return None


register(
    Exercise(
        "7.1",
        "Euler parameters of a turn about an axis",
        1,
        reference=_turn_key,
        alternatives=[lambda **p: -_turn_key(**p)],
        params={"axis": [1.0, 2.0, 2.0], "angle_deg": 60.0},
        variant=_turn_variant,
        sanity=_unit_sanity,
        mistakes=[
            Mistake(lambda **p: _turn_quat(**p, order="last"),
                    "the course's Euler parameters are scalar-first: p = (e0, e1, e2, e3), e0 = cos(phi/2)"),
            Mistake(lambda **p: _turn_quat(**p, half=False),
                    "Euler parameters use HALF the angle: e0 = cos(phi/2), e = sin(phi/2) u"),
            Mistake(lambda **p: _turn_quat(**p, unit=False),
                    "the axis must be a unit vector u: divide it by its length (then p^T p = 1)"),
            Mistake(lambda **p: _turn_quat(**p, inverse=True),
                    "that is the inverse turn (the conjugate (e0, -e)): the vector part is +sin(phi/2) u"),
            Mistake(lambda axis, angle_deg: _turn_quat(axis, math.degrees(angle_deg)),
                    "the angle is in degrees: convert to radians before taking cos and sin"),
        ],
    )
)


# ------------------------------------------------------------------ 7.2 angular velocity from p and p-dot
def _omega_key(p, pd):
    """ω′ = 2 L ṗ, by mbdlib (body components)."""
    return omega_from_quat_rates(np.asarray(p, dtype=float), np.asarray(pd, dtype=float), frame="body")


def _rates_variant(rng) -> dict:
    """A random orientation and a random angular velocity (body components, 1-6 rad/s each)."""
    p = rng.normal(size=4)
    p /= np.linalg.norm(p)
    p *= np.sign(p[0])
    w = rng.uniform(1.0, 6.0, 3) * rng.choice([-1.0, 1.0], 3)
    pd = 0.5 * _L(p).T @ w
    return {"p": [round(float(v), 12) for v in p], "pd": [round(float(v), 12) for v in pd]}


_P72 = np.array([0.8, 0.2, -0.4, 0.4])
_P72 = _P72 / np.linalg.norm(_P72)
_PD72 = 0.5 * _L(_P72).T @ np.array([3.0, -1.0, 5.0])

register(
    Exercise(
        "7.2",
        "Angular velocity in body components from Euler-parameter rates",
        2,
        reference=_omega_key,
        rtol=1e-6,
        atol=1e-6,
        params={"p": [float(v) for v in _P72], "pd": [float(v) for v in _PD72]},
        variant=_rates_variant,
        mistakes=[
            Mistake(lambda p, pd: _L(p) @ np.asarray(pd),
                    "a factor of 2 is missing: omega' = 2 L p_dot"),
            Mistake(lambda p, pd: 2 * _Gm(p) @ np.asarray(pd),
                    "those are GLOBAL components (omega = 2 G p_dot); the body components use L = "
                    "[-e, -e~ + e0 I]: omega' = 2 L p_dot"),
            Mistake(lambda p, pd: 2 * _L(_scalar_last(p)) @ _scalar_last(pd),
                    "p is scalar-first, e0 = p[0]: you read it as scalar-last"),
            Mistake(lambda p, pd: -2 * _L(p) @ np.asarray(pd),
                    "the sign is wrong: omega' = 2 L p_dot with L = [-e, -e~ + e0 I]"),
            Mistake(lambda p, pd: 0.5 * _L(p) @ np.asarray(pd),
                    "p_dot = 1/2 L^T omega' goes the other way: omega' = 2 L p_dot"),
        ],
    )
)


# ---------------------------------------------------------- 7.3 the rotational mass block (a function)
def rotational_mass(p, J):
    """``4 Lᵀ J′ L`` (4, 4): the rotational block of a body's mass matrix, by mbdlib.

    It is read from :meth:`SpatialModel.M` of a one-body model, minus the library's shift
    ``(4 tr J′ / 3) p pᵀ`` (see the method's docstring).

    >>> bool(np.allclose(rotational_mass([1, 0, 0, 0], np.diag([1.0, 2.0, 3.0])),
    ...                  np.diag([0.0, 4.0, 8.0, 12.0])))
    True
    """
    p, J = np.asarray(p, dtype=float), np.asarray(J, dtype=float)
    m = SpatialModel(gravity=(0.0, 0.0, 0.0))
    m.add_body("b", orientation=p, mass=1.0, inertia=J)
    q = m.q_guess()
    pn = q[3:7]
    return m.M(q)[3:7, 3:7] - (4 * np.trace(J) / 3) * np.outer(pn, pn)


def _random_inertia(rng, turned=True) -> np.ndarray:
    """A physically valid central inertia: a box's principal moments, turned by a random rotation."""
    a, b, c = rng.uniform(0.05, 0.6, 3)
    m = rng.uniform(0.5, 5.0)
    principal = np.diag(m / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b]))
    if not turned:
        return principal
    Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return Q @ principal @ Q.T


def _random_p(rng) -> np.ndarray:
    p = rng.normal(size=4)
    return p / np.linalg.norm(p)


_P73 = np.array([0.9, 0.15, -0.2, 0.35])
MASS_CASES = [
    (np.array([1.0, 0.0, 0.0, 0.0]), np.diag([0.02, 0.03, 0.04])),
    (_P73 / np.linalg.norm(_P73), np.array([[0.02, 0.002, 0.0], [0.002, 0.03, 0.0], [0.0, 0.0, 0.04]])),
    (np.array([0.5, 0.5, 0.5, 0.5]), np.diag([1.0, 1.5, 2.0])),
]


def _hidden_mass_cases(rng, n: int = 6, **_) -> list[tuple]:
    """Random unit p and random inertias (turned boxes); one with J′ diagonal, one with p near e0 = 0."""
    cases = [(_random_p(rng), _random_inertia(rng)) for _ in range(n)]
    near = np.r_[0.01, _random_p(rng)[1:]]
    cases.append((near / np.linalg.norm(near), _random_inertia(rng, turned=False)))
    return cases


def _block(p, J, factor=4.0, frame="body", shift=False):
    p, J = np.asarray(p, dtype=float), np.asarray(J, dtype=float)
    M = factor * (_L(p).T @ J @ _L(p) if frame == "body" else _Gm(p).T @ J @ _Gm(p))
    return M + (4 * np.trace(J) / 3) * np.outer(p, p) if shift else M


def _is_3x3(student, expected):
    return np.shape(student) == (3, 3)


def _asymmetric(student, expected):
    s = np.asarray(student, dtype=float)
    return s.shape == (4, 4) and not np.allclose(s, s.T, rtol=1e-6, atol=1e-9 * (1 + np.abs(s).max()))


register(
    Exercise(
        "7.3",
        "The rotational mass block 4 L^T J' L (a function)",
        2,
        reference=rotational_mass,
        cases=MASS_CASES,
        hidden_cases=_hidden_mass_cases,
        function_name="rotational_mass",
        rtol=1e-7,
        atol=1e-12,
        mistakes=[
            Mistake.when(_is_3x3, "your result is 3 x 3: that is L J' L^T. The block acts on the four rates "
                                  "p_dot: 4 L^T J' L is 4 x 4"),
            Mistake(lambda p, J: _block(p, J, factor=1.0),
                    "the factor 4 is missing: omega' = 2 L p_dot, so T = 1/2 p_dot^T (4 L^T J' L) p_dot"),
            Mistake(lambda p, J: _block(p, J, factor=2.0),
                    "the factor is 4, not 2: omega' = 2 L p_dot enters T squared"),
            Mistake(lambda p, J: _block(p, J, frame="global"),
                    "you used G (global frame); J' is in body components, so the block is 4 L^T J' L with "
                    "L = [-e, -e~ + e0 I]"),
            Mistake(lambda p, J: _block(p, J, shift=True),
                    "you added the library's shift (4 tr J'/3) p p^T; the exercise asks for the bare block "
                    "4 L^T J' L (singular: L p = 0)"),
            Mistake(lambda p, J: _block(_scalar_last(p), J),
                    "p is scalar-first, e0 = p[0]: you read it as scalar-last"),
            Mistake(lambda p, J: _block(p, np.asarray(J).trace() / 3 * np.eye(3)),
                    "you replaced J' by a multiple of the identity: use the full inertia matrix"),
            Mistake.when(_asymmetric, "your block is not symmetric: a mass matrix is; check the transposes "
                                      "(L^T on the left, L on the right)"),
        ],
    )
)


# ------------------------------------------------------------------ 7.4 counting a spatial chain
ROWS = {"spherical": 3, "universal": 4, "revolute": 5, "cylindrical": 4, "prismatic": 5}
CHAIN_GAP = 0.4  # m between the centres of consecutive bodies, along z


def chain(joints) -> SpatialModel:
    """A fixed base and one body per joint, stacked along z; joint k between body k and body k + 1 at
    their midpoint (axes: revolute, prismatic, cylindrical along z; universal x then y).

    >>> r = chain(["revolute"] * 6).dof_report()
    >>> r.coordinates, r.constraints, r.dof
    (49, 43, 6)
    """
    m = SpatialModel()
    m.add_body("base")
    m.fix("base")
    for k, kind in enumerate(joints):
        m.add_body(f"body{k + 1}", position=(0.0, 0.0, (k + 1) * CHAIN_GAP))
        half = (0.0, 0.0, CHAIN_GAP / 2)
        minus = (0.0, 0.0, -CHAIN_GAP / 2)
        getattr(m, f"add_{kind}")(m.bodies[k], m.bodies[k + 1], half, minus)
    return m


def _chain_counts(joints):
    r = chain(list(joints)).dof_report()
    return np.array([r.coordinates, r.constraints, r.dof], dtype=float)


@cache
def _chain_key(joints: tuple):
    return _chain_counts(joints)


def _by_hand(joints, per_body=7, norm=True, base=True, rows=None):
    """[coordinates, equations, DOF] counted by hand, with a chosen mistake."""
    rows = ROWS if rows is None else {**ROWS, **rows}
    n_b = len(joints) + (1 if base else 0)
    n = per_body * n_b
    m = (6 if base else 0) + sum(rows[k] for k in joints) + (n_b if norm else 0)
    return np.array([n, m, n - m], dtype=float)


def _chain_variant(rng) -> dict:
    """Every joint kind once (so each kind's row count is graded), plus none or two more, in a random order
    (not six joints: there 6 (n + 1) = 7 n, and two of the mistakes below would give the same numbers)."""
    kinds = list(ROWS) + [str(k) for k in rng.choice(list(ROWS), size=2 * int(rng.integers(0, 2)))]
    return {"joints": [str(k) for k in rng.permutation(kinds)]}


PUBLIC_CHAIN = ["revolute", "universal", "spherical", "cylindrical", "prismatic"]

register(
    Exercise(
        "7.4",
        "Counting a spatial chain: coordinates, equations and DOF",
        2,
        reference=lambda joints: _chain_key(tuple(joints)),
        params={"joints": list(PUBLIC_CHAIN)},
        variant=_chain_variant,
        mistakes=[
            Mistake(lambda joints: _by_hand(joints, per_body=6, norm=False),
                    "with Euler parameters a body has 7 coordinates (3 + 4), and each body adds its "
                    "normalization row p^T p - 1 = 0"),
            Mistake(lambda joints: _by_hand(joints, norm=False),
                    "the normalization rows are missing: every body (the base too) has p^T p - 1 = 0"),
            Mistake(lambda joints: _by_hand(joints, base=False),
                    "the base is a body of the model too: 7 coordinates, a normalization row, and 6 "
                    "equations that fix it"),
            Mistake(lambda joints: _by_hand(joints, rows={k: 6 - v for k, v in ROWS.items()}),
                    "you counted each joint's remaining DOF; its rows are the DOF it REMOVES (spherical 3, "
                    "universal 4, revolute 5, cylindrical 4, prismatic 5)"),
            Mistake(lambda joints: _by_hand(joints, rows={"universal": 5, "cylindrical": 5}),
                    "a joint has a row too many: a universal joint has 4 rows (spherical + the cross), a "
                    "cylindrical joint 4 (the prismatic joint without its twist row)"),
            Mistake(lambda joints: _by_hand(joints, rows={"revolute": 4, "prismatic": 4}),
                    "a joint has a row too few: a revolute joint has 5 rows (spherical + 2 axis rows), a "
                    "prismatic joint 5 (4 of the cylindrical joint + the twist row)"),
            Mistake.when(lambda s, e: np.shape(s) == (3,) and np.allclose(s[:2], e[:2]) and s[2] != e[2],
                         "coordinates and equations are right; DOF = coordinates - rank(Phi_q) (no row is "
                         "redundant in an open chain)"),
        ],
    )
)


# ------------------------------------------------------------------ 7.5 the Bricard linkage
CUBE = [(1, 1, 0), (0, 1, 0), (0, 1, 1), (0, 0, 1), (1, 0, 1), (1, 0, 0)]  # joint positions
BRICARD_AXES = [(0, 0, 1), (0, 1, 0), (1, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)]


def bricard() -> SpatialModel:
    """The chapter's orthogonal Bricard linkage: six unit bars on the edges of a unit cube, link 0 fixed.

    >>> bricard().dof_report().dof
    1
    """
    V = np.array(CUBE, dtype=float)
    m = SpatialModel()
    centres = [(V[k] + V[(k + 1) % 6]) / 2 for k in range(6)]
    for k in range(6):
        m.add_body(f"link{k}", centres[k])
    m.fix("link0")
    for k in range(6):
        i = (k - 1) % 6
        m.add_revolute(f"link{i}", f"link{k}", V[k] - centres[i], V[k] - centres[k], axis_i=BRICARD_AXES[k],
                       name=f"J{k}")
    return m


@cache
def _bricard_key():
    r = bricard().dof_report()
    return np.array([r.grubler, r.rank, r.dof], dtype=float)


register(
    Exercise(
        "7.5",
        "The Bricard linkage: Grübler count against the rank",
        1,
        reference=_bricard_key,
        mistakes=[
            Mistake.when(_entries_are([6, None, None]),
                         "the fixed link is not a moving body: 6 x 5 moving bodies - 5 x 6 revolute rows"),
            Mistake.when(_entries_are([5, None, None]),
                         "the loop is closed: six revolute joints (J0 to J5) join the six links, not five"),
            Mistake.when(_entries_are([None, 42, None]),
                         "42 is the number of equations; the rank counts the independent ones "
                         "(numpy.linalg.matrix_rank of Phi_q)"),
            Mistake.when(_entries_are([None, 36, None]),
                         "the rank of Phi_q with Euler parameters includes the 6 normalization rows"),
            Mistake.when(_entries_are([None, None, 0]),
                         "the linkage does move: DOF = coordinates - rank(Phi_q), not Grübler's count"),
        ],
    )
)


# ------------------------------------------------------------------ 7.6 the heavy symmetric top
TOP = {"m": 1.0, "l": 0.1, "A_c": 0.004, "C": 0.006, "theta_deg": 30.0, "w3": 60.0}  # kg, m, kg m², °, rad/s


def precession_rates(m, l, A_c, C, theta_deg, w3, parallel_axis=True, roots="both"):
    """The two roots of ``A cos θ Ω² - C ω3 Ω + m g l = 0`` (slow, fast), A = A_c + m l² (closed form)."""
    A = A_c + (m * l * l if parallel_axis else 0.0)
    a, b, c = A * math.cos(math.radians(theta_deg)), -C * w3, m * G * l
    disc = math.sqrt(b * b - 4 * a * c)
    return (-b - disc) / (2 * a), (-b + disc) / (2 * a)


def _slow_rate(**p):
    return precession_rates(**p)[0]


def _top_variant(rng, tilts=(15, 20, 25, 30, 35, 40, 50, 55, 60)) -> dict:
    """Mass 0.5-2 kg, centre 5-15 cm up the axis, moments from a disk-like top, a tilt from ``tilts`` (°; not
    45: cos = sin there), a fast spin (at least twice the spin where steady precession stops existing)."""
    m = float(rng.integers(5, 21) / 10)
    l = float(rng.integers(5, 16) / 100)
    C = round(m * float(rng.uniform(0.004, 0.01)), 5)
    A_c = round(C * float(rng.uniform(0.55, 0.9)), 5)
    theta = float(rng.choice(list(tilts)))
    A = A_c + m * l * l
    w_min = math.sqrt(4 * A * math.cos(math.radians(theta)) * m * G * l) / C
    return {"m": m, "l": l, "A_c": A_c, "C": C, "theta_deg": theta,
            "w3": float(math.ceil(max(2.0 * w_min, 40.0) / 5 + rng.integers(0, 8)) * 5)}


register(
    Exercise(
        "7.6",
        "Steady precession rate of a heavy symmetric top",
        2,
        reference=_slow_rate,
        rtol=1e-5,
        params=dict(TOP),
        variant=_top_variant,
        mistakes=[
            Mistake(lambda **p: precession_rates(**p)[1],
                    "that is the FAST root of the quadratic; the top started near its slow precession "
                    "precesses at the smaller root"),
            Mistake(lambda m, l, C, w3, **_: m * G * l / (C * w3),
                    "m g l/(C w3) is the fast-top estimate (the Omega^2 term dropped); solve the quadratic "
                    "A cos(theta) Omega^2 - C w3 Omega + m g l = 0"),
            Mistake(lambda **p: precession_rates(**p, parallel_axis=False)[0],
                    "A is the transverse moment about the PIVOT: A = A_c + m l^2 (parallel axis)"),
            Mistake(lambda theta_deg, **p: precession_rates(theta_deg=90.0 - theta_deg, **p)[0],
                    "theta is the tilt from the vertical: cos(theta), not sin(theta)"),
            Mistake(lambda theta_deg, **p: precession_rates(theta_deg=math.degrees(theta_deg), **p)[0],
                    "you took the cosine of the tilt in degrees: math.cos takes radians "
                    "(math.radians(theta_deg))"),
            Mistake(lambda **p: _slow_rate(**p) / (2 * math.pi),
                    "that is in revolutions per second; give Omega in rad/s"),
        ],
    )
)


# ------------------------------------------------------------------ 7.7 the rolling disk
DISK_MASS = 2.0  # kg (a uniform thin disk: the steady motions do not depend on its mass)


def disk_on_circle(radius, lean, speed, turn, lean_rate=0.0, mass=DISK_MASS) -> SpatialModel:
    """A uniform thin disk (axis = body y) rolling on z = 0, contact point at the origin, heading +x.

    It leans by ``lean`` (rad) towards +y, the centre of its turn; its centre moves at ``speed`` (m/s)
    along +x; its heading turns at ``turn`` (rad/s, about +z); ``lean_rate`` (rad/s) makes the lean grow.
    The spin follows from rolling (the contact point at rest).

    The velocities are consistent with rolling (the contact point at rest): ``model.system()`` keeps them.

    >>> m = disk_on_circle(0.3, 0.35, 1.5, 1.5)
    >>> r = m.dof_report()
    >>> r.coordinates, r.constraints, r.nonholonomic, r.dof, r.velocity_dof
    (7, 2, 2, 5, 3)
    """
    c, s = math.cos(lean), math.sin(lean)
    A = np.array([[1.0, 0.0, 0.0], [0.0, c, s], [0.0, -s, c]])  # columns: heading, axis, up in the disk
    up, axis = A[:, 2], A[:, 1]
    spin = speed / radius + turn * s  # relative to the turning frame
    omega = turn * np.array([0.0, 0.0, 1.0]) + spin * axis - lean_rate * np.array([1.0, 0.0, 0.0])
    model = SpatialModel(gravity=(0.0, 0.0, -G))
    model.add_body("disk", radius * up, quat_from_dcm(A), mass=mass,
                   inertia=[mass * radius**2 / 4, mass * radius**2 / 2, mass * radius**2 / 4],
                   velocity=np.cross(omega, radius * up), angular_velocity=omega)
    model.add_rolling_disk("disk", radius, axis=(0.0, 1.0, 0.0))
    return model


def lean_of(q) -> float:
    """The lean (rad) of the disk of :func:`disk_on_circle` from its coordinates: asin |a_z|, a its axis."""
    p = np.asarray(q, dtype=float)[3:7]
    axis = dcm_from_quat(p / np.linalg.norm(p)) @ np.array([0.0, 1.0, 0.0])
    return float(math.asin(min(1.0, abs(axis[2]))))


@cache
def _disk_counts():
    """The library's counts: position DOF by the rank of Φ_q, velocity DOF by the rank of [Φ_q; B]."""
    r = disk_on_circle(0.3, 0.3, 1.0, 1.0).dof_report()
    return np.array([r.coordinates, r.constraints, r.nonholonomic, r.dof, r.velocity_dof], dtype=float)


register(
    Exercise(
        "7.7a",
        "Rolling disk: coordinates, rows and DOF",
        1,
        reference=_disk_counts,
        mistakes=[
            Mistake.when(_entries_are([7, 1, 2, 6, 4]),
                         "the normalization row p^T p - 1 = 0 is holonomic too: two holonomic rows (height "
                         "and normalization)"),
            Mistake.when(_entries_are([6, 1, 2, 5, 3]),
                         "with Euler parameters the disk has 7 coordinates and 2 holonomic rows (height, "
                         "normalization); the DOF are right"),
            Mistake.when(_entries_are([7, 2, 3, 5, 2]),
                         "two nonholonomic rows: the contact point's x and y velocity; its z velocity "
                         "follows from the height row"),
            Mistake.when(_entries_are([None, None, None, 3, None]),
                         "nonholonomic rows restrict velocities only: they do not remove position DOF "
                         "(x, y, heading, lean and spin can all be reached)"),
            Mistake.when(_entries_are([None, None, None, 5, 5]),
                         "the velocity DOF are fewer: the two rolling rows B q_dot = 0 remove two of them"),
        ],
    )
)

DISK = {"radius": 0.3, "speed": 1.5, "lean_deg": 20.0}  # m, m/s, degrees


def circle_radius(radius, speed, lean_deg, g=G, size=True):
    """Radius of the centre's steady circle of a uniform thin disk (closed form).

    The lean equation ``8 g sin θ + 12 Ω v cos θ - Ω² R sin 2θ = 0`` (the chapter's, with the centre's
    speed ``v = R (s + Ω sin θ)``), turning into the lean (``Ω v = -v²/ρ``), is the quadratic
    ``4 g sin θ ρ² - 6 v² cos θ ρ - v² R sin θ cos θ = 0``; ``size=False`` drops the last term
    (``R → 0``: ``ρ = 3 v² / (2 g tan θ)``).
    """
    th = math.radians(lean_deg)
    c, s, v2 = math.cos(th), math.sin(th), speed * speed
    extra = 16 * g * s * s * v2 * radius * c if size else 0.0
    return (6 * v2 * c + math.sqrt(36 * v2 * v2 * c * c + extra)) / (8 * g * s)


def _disk_variant(rng) -> dict:
    return {"radius": float(rng.integers(15, 51) / 100), "speed": float(rng.integers(8, 31) / 10),
            "lean_deg": float(rng.integers(2, 9) * 5)}


def _positive(answer, **_) -> str | None:
    if float(np.asarray(answer, dtype=float).reshape(-1)[0]) <= 0:
        return "a radius is positive"
    return None


register(
    Exercise(
        "7.7b",
        "Rolling disk: radius of the steady circle for a speed and a lean",
        2,
        reference=circle_radius,
        rtol=1e-5,
        params=dict(DISK),
        variant=_disk_variant,
        sanity=_positive,
        mistakes=[
            Mistake(lambda **p: circle_radius(**p, size=False),
                    "3 v^2/(2 g tan(theta)) is the limit of a small disk (R -> 0); keep the term of the "
                    "disk's radius in the lean equation"),
            Mistake(lambda speed, lean_deg, **_: speed**2 / (G * math.tan(math.radians(lean_deg))),
                    "v^2/(g tan(theta)) balances a leaning point mass (a cyclist); the disk's spin adds a "
                    "gyroscopic moment: use the lean equation of the chapter"),
            Mistake(lambda **p: circle_radius(**p) + p["radius"] * math.sin(math.radians(p["lean_deg"])),
                    "that is the circle of the contact point; give the radius of the CENTRE's circle"),
        ],
    )
)

PUSH = {"radius": 0.3, "speed": 1.5, "lean_deg": 20.0, "lean_rate": 0.5, "t_end": 1.0}


@cache
def _lean_after(radius, speed, lean_deg, lean_rate, t_end, rate_sign=1.0, size=True):
    turn = speed / circle_radius(radius, speed, lean_deg, size=size)
    m = disk_on_circle(radius, math.radians(lean_deg), speed, turn, rate_sign * lean_rate)
    res = simulate(m.system(), t_end, Projection(rtol=1e-10, atol=1e-10), t_eval=[0.0, t_end])
    return lean_of(res.q[-1])


def _push_variant(rng) -> dict:
    return {**_disk_variant(rng), "lean_rate": float(rng.integers(2, 9) / 10), "t_end": 1.0}


def _lean_sanity(answer, **_) -> str | None:
    x = float(np.asarray(answer, dtype=float).reshape(-1)[0])
    if not 0 < x < math.pi / 2:
        return "the lean is an angle between 0 and pi/2 (rad)"
    return None


register(
    Exercise(
        "7.7c",
        "Rolling disk: the lean one second after a sideways push (simulated)",
        2,
        reference=lambda **p: _lean_after(**p),
        rtol=1e-5,
        params=dict(PUSH),
        variant=_push_variant,
        sanity=_lean_sanity,
        mistakes=[
            Mistake(lambda **p: math.degrees(_lean_after(**p)), "give the lean in radians, not degrees"),
            Mistake(lambda lean_deg, **_: math.radians(lean_deg),
                    "that is the lean at the start: simulate the pushed disk to t_end"),
            Mistake(lambda **p: math.pi / 2 - _lean_after(**p),
                    "the lean is measured from the vertical (0 for an upright disk)"),
            Mistake(lambda **p: _lean_after(**p, rate_sign=-1.0),
                    "the push makes the lean GROW at first (lean_rate > 0): check the sign of the initial "
                    "lean rate"),
            Mistake(lambda **p: _lean_after(**p, size=False),
                    "the turning rate of your start is off: use the circle radius of 7.7b (with the term "
                    "of the disk's radius), Omega = v / rho"),
        ],
    )
)


# ------------------------------------------------------------------ 7.8 the Chaplygin sleigh
SLEIGH = {"m": 2.0, "I": 0.15, "a": 0.4, "v0": 0.5, "w0": 2.0}  # kg, kg m², m, m/s, rad/s


def final_speed(m, I, a, v0, w0, inertia="pivot", sign=-1.0):
    """The sleigh's speed along the blade as t → ∞: all the kinetic energy ½ m v² + ½ (I + m a²) ω² ends in
    sliding (ω → 0), backwards (v̇ = -a ω² < 0 throughout)."""
    J = {"pivot": I + m * a * a, "centre": I, "none": 0.0}[inertia]
    return sign * math.sqrt(v0 * v0 + J * w0 * w0 / m)


def _sleigh_variant(rng) -> dict:
    return {"m": float(rng.integers(10, 41) / 10), "I": float(rng.integers(5, 31) / 100),
            "a": float(rng.integers(2, 7) / 10), "v0": float(rng.integers(2, 11) / 10),
            "w0": float(rng.integers(10, 31) / 10)}


register(
    Exercise(
        "7.8",
        "The Chaplygin sleigh's final speed along its blade",
        2,
        reference=final_speed,
        rtol=1e-6,
        params=dict(SLEIGH),
        variant=_sleigh_variant,
        mistakes=[
            Mistake(lambda **p: final_speed(**p, sign=1.0),
                    "the sleigh ends up sliding BACKWARDS: v_dot = -a omega^2 < 0 all the time, so v goes "
                    "negative"),
            Mistake(lambda **p: final_speed(**p, inertia="centre"),
                    "the turning energy is 1/2 (I + m a^2) omega^2 in the speed v of the blade point P "
                    "(the centre of mass moves sideways at a omega)"),
            Mistake(lambda **p: final_speed(**p, inertia="none"),
                    "the turning energy ends up in the sliding too: energy is kept, and omega -> 0"),
            Mistake(lambda m, I, a, v0, w0: -(v0 * v0 + (I + m * a * a) * w0 * w0 / m),
                    "that is v^2: take the square root"),
        ],
    )
)


# ------------------------------------------------------------------ practice inside the pages (7.P1-7.P5)
# The numbers of the chapter's pages (book/chapters/ch07_*.ipynb; tests/test_exercises_ch07.py rebuilds each
# answer another way). Practice is never graded: 0 points, no variants.
PAGE_P = np.array([0.9, 0.15, -0.2, 0.35]) / np.linalg.norm([0.9, 0.15, -0.2, 0.35])  # 7.P1: the block
PAGE_OMEGA = np.array([3.0, -1.0, 5.0])  # its angular velocity, global components (rad/s)
PAGE_J = np.array([[0.02, 0.002, 0.0], [0.002, 0.03, 0.0], [0.0, 0.0, 0.04]])  # central inertia (kg m²)
PAGE_DISK_R = 0.3  # 7.P4: the rolling disk's radius (m), page 7.5
PAGE_LEAN, PAGE_TURN = math.radians(30.0), 2.0  # its lean (rad) and turning rate (rad/s)
PAGE_TOP = {"m": 1.0, "l": 0.1, "A_c": 0.004, "C": 0.006, "theta": 0.5}  # 7.P5: the top of page 7.6


def page_rates():
    """ṗ of the block of page 7.1: ½ Gᵀ ω (global components)."""
    return 0.5 * _Gm(PAGE_P).T @ PAGE_OMEGA


def _rot_energy(frame="body", factor=2.0, half=True):
    """7.P1: ½ ω′ᵀ J′ ω′ with ω′ = 2 L ṗ, or a typical slip (a factor, the global G, no ½)."""
    G_or_L = _L(PAGE_P) if frame == "body" else _Gm(PAGE_P)
    w = factor * G_or_L @ page_rates()
    return (0.5 if half else 1.0) * float(w @ PAGE_J @ w)


def _lean_spin(lean=PAGE_LEAN, centripetal=True):
    """7.P4: the spin ω_s (relative to the lean frame) that keeps the page's disk circling: the root of
    the lean equation (5/8) Ω² R sin 2θ + (3/2) Ω R ω_s cos θ + g sin θ = 0."""
    R, W = PAGE_DISK_R, PAGE_TURN
    extra = 5 / 8 * W * W * R * math.sin(2 * lean) if centripetal else 0.0
    return -(G * math.sin(lean) + extra) / (1.5 * W * R * math.cos(lean))


def _min_spin(pivot=True, cosine=True, four=True):
    """7.P5: the spin ω3 below which the top of page 7.4 has no steady precession (double root)."""
    t = PAGE_TOP
    A = t["A_c"] + (t["m"] * t["l"] ** 2 if pivot else 0.0)
    return math.sqrt((4.0 if four else 1.0) * A * (math.cos(t["theta"]) if cosine else 1.0) * t["m"] * G
                     * t["l"]) / t["C"]


register(
    Exercise(
        "7.P1",
        "The rotational kinetic energy of a block from p and its rate",
        0,
        reference=_rot_energy,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _rot_energy(factor=1.0),
                    "a factor 2 is missing: omega' = 2 L p_dot (your energy is a quarter of the right one)"),
            Mistake(lambda: _rot_energy(frame="global"),
                    "2 G p_dot gives GLOBAL components, but J' is in body axes: use omega' = 2 L p_dot, "
                    "L = [-e, -e~ + e0 I]"),
            Mistake(lambda: _rot_energy(half=False), "T = 1/2 omega'^T J' omega': the 1/2 is missing"),
            Mistake(lambda: _rot_energy(factor=math.sqrt(2.0)),
                    "the rotational block is 4 L^T J' L, not 2 L^T J' L (omega' = 2 L p_dot enters T "
                    "squared)"),
        ],
    )
)

register(
    Exercise(
        "7.P2",
        "A body on a cylindrical joint and a rod: coordinates, equations, DOF",
        0,
        reference=lambda: np.array([14.0, 13.0, 1.0]),
        atol=1e-9,
        mistakes=[
            Mistake(lambda: np.array([12.0, 11.0, 1.0]),
                    "with Euler parameters each body has 7 coordinates, and each brings its normalization "
                    "row"),
            Mistake(lambda: np.array([14.0, 11.0, 3.0]),
                    "the normalization rows are missing: both bodies (the fixed ground too) have "
                    "p^T p - 1 = 0"),
            Mistake(lambda: np.array([14.0, 12.0, 2.0]),
                    "one normalization row is missing: the fixed ground is a body of the model and has one "
                    "too"),
            Mistake(lambda: np.array([14.0, 14.0, 0.0]),
                    "a cylindrical joint writes 4 rows (axes parallel, point on the axis): it leaves the "
                    "slide and the turn; 5 rows is the prismatic joint"),
            Mistake(lambda: np.array([14.0, 15.0, -1.0]),
                    "a rod with a ball joint at each end is one equation, d^T d - l^2 = 0 (the distance "
                    "joint), not a spherical joint"),
            Mistake(lambda: np.array([7.0, 6.0, 1.0]),
                    "count the ground as the page does: a body (7 coordinates, a normalization row) fixed "
                    "by 6 equations (model.fix)"),
        ],
    )
)

register(
    Exercise(
        "7.P3",
        "The Bricard linkage without its redundant row: Grübler, rank, DOF",
        0,
        reference=lambda: np.array([1.0, 41.0, 1.0]),
        atol=1e-9,
        mistakes=[
            Mistake.when(_entries_are([0, None, None]),
                         "as a universal joint J1 writes 4 rows, not 5: Grübler's count is now coordinates "
                         "minus 41 rows"),
            Mistake.when(_entries_are([None, 40, None]),
                         "the row left out was the dependent one: the 41 rows that remain are independent"),
            Mistake.when(_entries_are([None, 42, None]),
                         "there are 41 rows now, and the rank cannot exceed the number of rows"),
            Mistake.when(_entries_are([1, 35, 1]),
                         "with Euler parameters: 42 coordinates, and the 6 normalization rows count in the "
                         "rank"),
            Mistake.when(_entries_are([None, None, 0]),
                         "DOF = coordinates - rank(Phi_q): the linkage still moves as before"),
            Mistake.when(_entries_are([None, None, 2]),
                         "DOF = coordinates - rank(Phi_q) with 42 coordinates and rank 41"),
        ],
    )
)

register(
    Exercise(
        "7.P4",
        "The spin that keeps the rolling disk circling at 30 degrees",
        0,
        reference=_lean_spin,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _lean_spin(lean=30.0), "the lean goes in radians: np.radians(30)"),
            Mistake(lambda: -_lean_spin(),
                    "mind the sign: in the page's lean frame this spin is negative (steady_circle returns it "
                    "signed)"),
            Mistake(lambda: _lean_spin(centripetal=False),
                    "the term (5/8) Omega^2 R sin(2 theta) is missing (it comes from the centre's "
                    "acceleration towards the turn)"),
            Mistake(lambda: _lean_spin() + PAGE_TURN * math.sin(PAGE_LEAN),
                    "that is the disk's whole angular velocity along its axis, omega_s + Omega sin(theta); "
                    "omega_s is the spin relative to the lean frame"),
        ],
    )
)

register(
    Exercise(
        "7.P5",
        "The slowest spin at which the heavy top can precess steadily",
        0,
        reference=_min_spin,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _min_spin(pivot=False),
                    "A is the transverse moment about the PIVOT, A = A_c + m l^2 (parallel axis)"),
            Mistake(lambda: _min_spin(cosine=False),
                    "the quadratic's first coefficient is A cos(theta): the cosine is missing"),
            Mistake(lambda: _min_spin(four=False),
                    "the double root is where the discriminant (C w3)^2 - 4 A cos(theta) m g l vanishes: "
                    "the factor 4 is missing"),
            Mistake(lambda: _min_spin() / (2 * math.pi),
                    "give the spin in rad/s, not revolutions per second"),
        ],
    )
)


# ------------------------------------------------------------------ practice of pages 7.3-7.5 (7.P6-7.P8)
PAGE_ROLL = {"radius": 0.3, "lean": 0.35, "velocity": (0.6, 0.2, 0.05),
             "angular_velocity": (0.5, -1.0, 4.0)}  # 7.P6: a disk of page 7.3 that slips (m, rad, m/s, rad/s)


def page_slipping_disk() -> SpatialModel:
    """7.P6: the disk of page 7.3, axis = body y, leaning by ``PAGE_ROLL["lean"]`` towards +y, its contact
    point at the origin, with a centre velocity and an angular velocity (global) that do NOT roll.

    >>> m = page_slipping_disk()
    >>> bool(abs(m.B(m.q_guess()) @ m.qd_guess()).max() > 0.1)     # it slips: the rows are not zero
    True
    """
    R, lean = PAGE_ROLL["radius"], PAGE_ROLL["lean"]
    c, s = math.cos(lean), math.sin(lean)
    A = np.array([[1.0, 0.0, 0.0], [0.0, c, s], [0.0, -s, c]])  # columns: heading, axis, up in the disk
    model = SpatialModel(gravity=(0.0, 0.0, -G))
    model.add_body("disk", R * A[:, 2], quat_from_dcm(A), mass=DISK_MASS,
                   inertia=[DISK_MASS * R**2 / 4, DISK_MASS * R**2 / 2, DISK_MASS * R**2 / 4],
                   velocity=PAGE_ROLL["velocity"], angular_velocity=PAGE_ROLL["angular_velocity"])
    model.add_rolling_disk("disk", R, axis=(0.0, 1.0, 0.0))
    return model


def _rows_by_hand(scale=True, frame="global", side=-1.0, turn=True):
    """7.P6 by the page's steps, with a chosen slip: ``|w| t_k·(ċ + ω × (−R w/|w|))`` for k = x, y."""
    m = page_slipping_disk()
    q, qd = m.q_guess(), m.qd_guess()
    p, pd = q[3:7], qd[3:7]
    R = PAGE_ROLL["radius"]
    a = dcm_from_quat(p) @ np.array([0.0, 1.0, 0.0])
    w = np.array([0.0, 0.0, 1.0]) - a[2] * a
    omega = 2 * (_Gm(p) if frame == "global" else _L(p)) @ pd
    v = qd[:3] + (np.cross(omega, side * R * w / np.linalg.norm(w)) if turn else 0.0)
    return (np.linalg.norm(w) if scale else 1.0) * v[:2]


register(
    Exercise(
        "7.P6",
        "The two rolling rows of a slipping disk",
        0,
        reference=lambda: (lambda m: m.B(m.q_guess()) @ m.qd_guess())(page_slipping_disk()),
        rtol=1e-6,
        atol=1e-9,
        mistakes=[
            Mistake(lambda: _rows_by_hand(scale=False),
                    "those are the contact point's velocity components; the library's rows are them times "
                    "|w| = h/R, which keeps them polynomial"),
            Mistake(lambda: _rows_by_hand(frame="body"),
                    "2 L p_dot gives the angular velocity in BODY components; the cross product with w "
                    "(global) needs omega = 2 G p_dot"),
            Mistake(lambda: _rows_by_hand(side=1.0),
                    "that is the top of the disk: the contact point is c - R w/|w|, below the centre"),
            Mistake(lambda: _rows_by_hand(turn=False),
                    "the disk's turning moves its contact point too: add omega x (P - c) to the centre's "
                    "velocity"),
        ],
    )
)

PAGE_SLEIGH = dict(SLEIGH)  # 7.P7: the sleigh of page 7.4 (the numbers of 7.8's notebook)


def _sleigh_peak(inertia="pivot", energy=True):
    """7.P7: when the sleigh turns fastest and how fast: ``[t0, ω_max]`` of the closed form
    ``ω = ±V √(m/J) sech(k (t − t0))``, ``V = √(2E/m)``, ``k = a m V / J``, ``tanh(k t0) = v0 / V``."""
    m, I, a, v0, w0 = (PAGE_SLEIGH[k] for k in ("m", "I", "a", "v0", "w0"))
    J = I + m * a * a if inertia == "pivot" else I
    V = math.sqrt(v0 * v0 + J * w0 * w0 / m) if energy else abs(v0)
    k = a * m * V / J
    return np.array([math.atanh(v0 / V) / k if V > abs(v0) else math.inf, V * math.sqrt(m / J)])


register(
    Exercise(
        "7.P7",
        "When the Chaplygin sleigh turns fastest, and how fast",
        0,
        reference=_sleigh_peak,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _sleigh_peak(inertia="centre"),
                    "the sleigh turns about its blade point, not its centre of mass: I_P = I + m a^2 in both "
                    "the energy and kappa"),
            Mistake(lambda: np.array([0.0, PAGE_SLEIGH["w0"]]),
                    "the yaw rate does not start at its largest: while v > 0 it grows "
                    "((I + m a^2) omega_dot = m a v omega)"),
            Mistake(lambda: np.array([_sleigh_peak()[0], _sleigh_peak()[1] / (2 * math.pi)]),
                    "give the yaw rate in rad/s, not revolutions per second"),
        ],
    )
)

PAGE_KANE = {"radius": 0.3, "heading": 0.5}  # 7.P8: the disk of page 7.5 and its heading q1 (m, rad)


def _spin_partial(kind="nonholonomic"):
    """7.P8: the partial velocity of the disk's centre for the speed u2 (global components): zero as an
    ordinary partial velocity, ``R L.x = R (cos q1, sin q1, 0)`` once the dependent speeds are eliminated."""
    R, q1 = PAGE_KANE["radius"], PAGE_KANE["heading"]
    if kind == "ordinary":
        return np.zeros(3)
    if kind == "lean frame":
        return np.array([R, 0.0, 0.0])
    return np.array([R * math.cos(q1), R * math.sin(q1), 0.0])


register(
    Exercise(
        "7.P8",
        "The nonholonomic partial velocity of the disk's centre for its spin speed",
        0,
        reference=_spin_partial,
        rtol=1e-6,
        atol=1e-9,
        mistakes=[
            Mistake(lambda: _spin_partial("ordinary"),
                    "that is the ordinary partial velocity (u2 does not appear in v_O); the nonholonomic one "
                    "adds the dependent speeds' partial velocities times K: v_2 + v_4 K_42 + v_5 K_52"),
            Mistake(lambda: _spin_partial("lean frame"),
                    "those are the components in the lean frame L; give them in N (L.x is turned by the "
                    "heading q1)"),
            Mistake(lambda: -_spin_partial(),
                    "mind the sign: a positive spin speed rolls the disk forwards, along +L.x"),
        ],
    )
)


# ------------------------------------------------------------------ 7.9 the sleigh's total turn
def total_turn(m, I, a, v0, w0, inertia="pivot", start=True, degrees=False):
    """The heading the sleigh turns through from t = 0 to t → ∞ (rad, the sign of ω0), from the closed form
    of page 7.4: ``φ(∞) − φ(0) = ±(√(J/m)/a) (π/2 + gd(k t0))``, ``gd x = atan(sinh x)``,
    ``tanh(k t0) = v0/V``, ``J = I + m a²``, ``V = √(v0² + J ω0²/m)``, ``k = a m V / J``
    (``start=False`` drops gd(k t0), as if the sleigh started at its peak yaw rate; ``inertia="centre"``
    uses I for J)."""
    J = I + m * a * a if inertia == "pivot" else I
    V = math.sqrt(v0 * v0 + J * w0 * w0 / m)
    k = a * m * V / J
    t0 = math.atanh(v0 / V) / k
    turn = math.copysign(math.sqrt(J / m) / a * (math.pi / 2 + (math.atan(math.sinh(k * t0)) if start
                                                                  else 0.0)), w0)
    return math.degrees(turn) if degrees else turn


def _turn_variant(rng) -> dict:
    """As 7.8's, with either sign of the yaw rate and of the initial speed."""
    p = _sleigh_variant(rng)
    p["w0"] *= float(rng.choice([-1.0, 1.0]))
    p["v0"] *= float(rng.choice([-1.0, 1.0]))
    return p


TURN = {"m": 2.0, "I": 0.15, "a": 0.4, "v0": 0.5, "w0": 2.0}  # the sleigh of page 7.4

register(
    Exercise(
        "7.9",
        "The Chaplygin sleigh's total turn (closed form)",
        2,
        reference=total_turn,
        rtol=1e-6,
        params=dict(TURN),
        variant=_turn_variant,
        mistakes=[
            Mistake(lambda **p: total_turn(**p, inertia="centre"),
                    "the sleigh turns about its blade point: I_P = I + m a^2 in the energy, in kappa and in "
                    "the factor sqrt(I_P/m)/a"),
            Mistake(lambda **p: total_turn(**p, start=False),
                    "pi/2 alone is the turn after the yaw rate's peak; from t = 0 add the turn before it, "
                    "gd(kappa t0) (t0 < 0 if the sleigh starts backwards)"),
            Mistake(lambda **p: total_turn(**p, degrees=True), "give the turn in radians, not degrees"),
            Mistake(lambda **p: -total_turn(**p),
                    "the sleigh keeps turning the way it started: the sign of omega_0 (omega never changes "
                    "sign, since omega_dot is proportional to omega)"),
        ],
    )
)


# ------------------------------------------------------------------ 7.10 the rolling rows (a function)
def rolling_rows(q, qd, radius):
    """The values ``B q̇`` (2,) of the two rolling rows of a disk on the ground ``z = 0``, by mbdlib.

    The disk is a body of seven coordinates ``q = (x, y, z, e0, e1, e2, e3)`` with its centre at the centre
    of mass and its axis along body ``y``; the rows are the contact point's velocity in ``x`` and ``y``
    times ``|w| = h / R`` (:meth:`SpatialModel.add_rolling_disk`).

    >>> q = np.r_[0.0, 0.0, 0.3, 1.0, 0.0, 0.0, 0.0]          # upright, the axis along y
    >>> qd = np.r_[1.5, 0.0, 0.0, 0.0, 0.0, 2.5, 0.0]         # rolling at 1.5 m/s, spinning 5 rad/s
    >>> np.round(rolling_rows(q, qd, 0.3), 12) + 0.0
    array([0., 0.])
    """
    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    m = SpatialModel(gravity=(0.0, 0.0, -G))
    m.add_body("disk", q[:3], q[3:7], mass=1.0, inertia=[0.25, 0.5, 0.25])
    m.add_rolling_disk("disk", float(radius), axis=(0.0, 1.0, 0.0))
    return m.B(q) @ qd


def _rows(q, qd, radius, scale=True, frame="global", side=-1.0, turn=True):
    """The rows by the page's steps, with a chosen slip (see 7.P6)."""
    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    p, pd = q[3:7], qd[3:7]
    a = dcm_from_quat(p / np.linalg.norm(p)) @ np.array([0.0, 1.0, 0.0])
    w = np.array([0.0, 0.0, 1.0]) - a[2] * a
    omega = 2 * (_Gm(p) if frame == "global" else _L(p)) @ pd
    v = qd[:3] + (np.cross(omega, side * radius * w / np.linalg.norm(w)) if turn else 0.0)
    return (np.linalg.norm(w) if scale else 1.0) * v[:2]


def _disk_state(rng, radius):
    """A disk standing on z = 0 (its lean below 60°, any heading and spin angle), with rates that slip."""
    heading, lean, spin = rng.uniform(-math.pi, math.pi, 3) * np.array([1.0, 1.0 / math.pi, 1.0])
    e = np.eye(3)
    A = dcm_from_axis_angle(e[2], heading) @ dcm_from_axis_angle(e[0], lean) @ dcm_from_axis_angle(e[1], spin)
    p = quat_from_dcm(A)
    a = A @ np.array([0.0, 1.0, 0.0])
    w = np.array([0.0, 0.0, 1.0]) - a[2] * a
    q = np.r_[rng.normal(size=2), radius * np.linalg.norm(w), p]
    omega = rng.normal(0.0, 3.0, 3)
    qd = np.r_[rng.normal(0.0, 1.0, 3), 0.5 * _Gm(p).T @ omega]  # p_dot = 1/2 G^T omega
    return q, qd


def _rows_cases(seed):
    rng = np.random.default_rng(seed)
    return [(*_disk_state(rng, r), r) for r in (0.3, 0.5, 0.25)]


ROWS_CASES = _rows_cases(710)


def _hidden_rows_cases(rng, n: int = 6, **_) -> list[tuple]:
    """Random disks (leans up to 57°, any heading), radii and slipping rates."""
    return [(*_disk_state(rng, r), r) for r in rng.uniform(0.1, 0.8, n)]


register(
    Exercise(
        "7.10",
        "The rolling rows of a disk (a function)",
        2,
        reference=rolling_rows,
        cases=ROWS_CASES,
        hidden_cases=_hidden_rows_cases,
        function_name="rolling_rows",
        rtol=1e-7,
        atol=1e-10,
        mistakes=[
            Mistake(lambda q, qd, radius: _rows(q, qd, radius, scale=False),
                    "those are the contact point's velocity components; the rows are them times |w| = h/R "
                    "(which keeps them polynomial in q)"),
            Mistake(lambda q, qd, radius: _rows(q, qd, radius, frame="body"),
                    "2 L p_dot is the angular velocity in BODY components; omega x w needs global ones, "
                    "omega = 2 G p_dot"),
            Mistake(lambda q, qd, radius: _rows(q, qd, radius, side=1.0),
                    "that is the top of the disk: the contact point is c - R w/|w|, below the centre"),
            Mistake(lambda q, qd, radius: _rows(q, qd, radius, turn=False),
                    "the disk's rotation moves its contact point too: v_P = c_dot + omega x (P - c)"),
            Mistake.when(lambda s, e: np.shape(s) == (3,),
                         "give the two rows (x and y); the third component follows from the height row"),
        ],
    )
)
