"""Chapter 5 exercises: the four-bar arm (solutions/ch05_fourbar_arm.ipynb).

Each exercise's expected answer comes from mbdlib's public API (the closed-chain Kane
model :func:`mbdlib.mechanisms.fourbar_arm`: passive angles and rates from the loop,
its mass matrix, inverse dynamics, loop Jacobian; :func:`mbdlib.kane_closed.passive_rates`
for a general four-bar at given angles); the typical mistakes are written out
independently below, from the parallelogram's closed forms (θ2 = q2 + π, θ4 = q1) and,
for the general four-bar, from the loop's Jacobian blocks and the virtual work of the
weights, with the hint for each.  The public data are those printed in the exercise
notebook; a notebook released for graded work has each student's own numbers
(``variant``), and the function exercise 5.7 is graded on hidden random four-bars.

=====  ======================================================  ======  ===============
id     exercise                                                points  variant
=====  ======================================================  ======  ===============
5.1    Passive angles of the parallelogram at a pose           1       pose q
5.2    Passive rates from the loop's velocity constraint       1       q, q̇
5.3    The change points (q2 - q1 where J_p is singular)       1       same for all
5.4    The coefficient of M12 and the decoupling mass          2       masses m2, m4
5.5    Gravity torques at a pose                               2       pose q
5.6    Joint torques at a state (recursive formula)            3       q, q̇, q̈
5.7    B = -J_p⁻¹ J_a of a general four-bar (a function)       3       hidden cases
5.8a   General four-bar arm: passive angles at a pose          1       pose q
5.8b   General four-bar arm: holding torques at a pose         2       pose q
=====  ======================================================  ======  ===============

5.3 asks for a property of the parallelogram that no number of the statement changes
(its change points), so it stays the same for everyone.  5.8 is one problem in two
parts; each part draws its own pose in a released notebook (a variant belongs to one
exercise id), so part (b) gives its pose in its own data cell.

Closed forms of the parallelogram used for the mistakes (Lagrange's equations with
``T = ½ M11 q̇1² + ½ M22 q̇2² + c cos(q2 − q1) q̇1 q̇2``)::

    M11 = I1 + m1 d1² + m2 L1² + I4 + m4 d4²,   M22 = I2 + m2 d2² + I3 + m3 d3² + m4 L3²,
    c = m4 L3 d4 − m2 L1 d2,
    τ1 = M11 q̈1 + c cos Δ q̈2 − c sin Δ q̇2² + g cos q1 (m1 d1 + m2 L1 + m4 d4)
    τ2 = M22 q̈2 + c cos Δ q̈1 + c sin Δ q̇1² + g cos q2 (m3 d3 + m4 L3 − m2 d2),   Δ = q2 − q1.

General four-bar (absolute angles θ = (θ1, θ2, θ3, θ4), θ1 = q1, θ3 = q2), from the loop
``Φ = L3 e(θ3) + L4 e(θ4) − L1 e(θ1) − R(θ2) b2``::

    J_a = [−L1 e⊥(θ1),  L3 e⊥(θ3)],   J_p = [−z × R(θ2) b2,  L4 e⊥(θ4)],   B = −J_p⁻¹ J_a,
    G = Σ m_i g ∂y_Ci/∂q,  ∂y_Ci/∂θ_i = (R(θ_i) d_i)_x,  ∂θ_p/∂q = B (virtual work of the weights).

References: H. Asada & J.-J. E. Slotine, *Robot Analysis and Control*, 1986, §6.3
(the parallelogram arm and its decoupling); T. R. Kane & D. A. Levinson, *Dynamics:
Theory and Applications*, 1985 (generalized speeds, partial velocities); B. Ma, Y. Xu
& Z. Li, 1988 (the four-bar arm by Kane's method, the loop kept closed).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from scipy.optimize import minimize_scalar

from .. import kane_closed
from ..errors import ModelError
from ..mechanisms import FOURBAR_DEFAULTS, fourbar_arm
from .core import Exercise, Mistake, register

# ------------------------------------------------------------------ public data (as in the notebook)
Q = (0.4, 2.0)  # rad: q1 (upper arm), q2 (crank)
QD = (0.5, -1.0)  # rad/s
QDD = (1.5, 2.0)  # rad/s²
Q_M12 = (0.3, 0.9)  # 5.4: pose where M12 is read (cos(q2 - q1) far from 0)
TURN = 2 * math.pi

#: 5.8: the general (non-parallelogram) four-bar arm of chapter 5; other data are the defaults.
GENERAL = {"L4": 0.58, "b2": (-0.20, 0.0), "d2": (0.20, 0.02), "d4": (0.30, -0.015)}
Q8_DEG = (30.0, 100.0)  # 5.8a, 5.8b: the public pose, degrees


@cache
def _arm(**params):
    return fourbar_arm(**params)


def _general():
    return _arm(**GENERAL)


def _arr(x):
    return np.asarray(x, dtype=float)


def _e(t):
    return np.array([math.cos(t), math.sin(t)])


def _perp(v):
    """z × v for a planar vector."""
    return np.array([-v[1], v[0]])


def _rot(t, v):
    c, s = math.cos(t), math.sin(t)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _shifted(produce, unit: float = TURN, turns: int = 1) -> list:
    """``produce``'s pair of angles wrapped to [-unit/2, unit/2), then shifted by up to ``turns`` whole
    turns of either angle (arctan2 wraps; a student may not)."""
    def wrapped(**p):
        return np.mod(_arr(produce(**p)) + unit / 2, unit) - unit / 2

    ks = range(-turns, turns + 1)
    return [lambda _k=(k2, k4), **p: wrapped(**p) + unit * _arr(_k) for k2 in ks for k4 in ks]


def _turn_alternatives(produce) -> list:
    """Alternatives: the same angles up to two whole turns of either angle."""
    return _shifted(produce, turns=2)


def _mistakes_mod_turns(produce, hint: str, unit: float = TURN) -> list:
    """One mistake (a pair of angles) recognised up to a whole turn of either angle."""
    return [Mistake(f, hint) for f in _shifted(produce, unit)]


def _looks_like_degrees(answer, **_) -> str | None:
    a = np.asarray(answer, dtype=float).reshape(-1)
    if a.shape == (2,) and np.all(np.isfinite(a)) and np.max(np.abs(a)) > 4 * math.pi:
        return "an angle larger than two turns: are these degrees? give radians"
    return None


def _pose_variant(rng, cos_away: float = 0.0) -> list:
    """q (rad, 2 decimals) on the parallelogram branch: 0.4 < q2 - q1 < π - 0.4, |q1| >= 0.15.

    With ``cos_away`` also |cos q1|, |cos q2| >= cos_away (gravity terms that do not vanish).
    """
    while True:
        q1 = float(rng.choice([-1, 1]) * rng.uniform(0.15, 1.0))
        q2 = q1 + float(rng.uniform(0.4, math.pi - 0.4))
        q = [round(q1, 2), round(q2, 2)]
        if min(abs(math.cos(q[0])), abs(math.cos(q[1]))) >= cos_away and abs(q[0]) >= 0.15:
            return q


def _rates_variant(rng) -> list:
    """Two rates (2 decimals) of either sign, 0.3 to 2, whose magnitudes differ by at least 0.2."""
    while True:
        v = rng.choice([-1, 1], size=2) * rng.uniform(0.3, 2.0, size=2)
        if abs(abs(v[0]) - abs(v[1])) >= 0.2:
            return [round(float(x), 2) for x in v]


# ------------------------------------------------------------------ closed forms (for the mistakes)
def _p(**changes):
    """Scalar parameters of the default parallelogram (x components of d_i), with changes."""
    p = {k: (v[0] if isinstance(v, tuple) else v) for k, v in FOURBAR_DEFAULTS.items()}
    return p | changes


def _closed_torques(q, qd, qdd, g_sign=1, coupler=True, velocity=True, theta2_pi=True, **changes):
    """τ of the parallelogram from the closed form of the module notes, with a chosen mistake."""
    p = _p(**changes)
    m4, I4 = (p["m4"], p["I4"]) if coupler else (0.0, 0.0)
    d2 = p["d2"] if theta2_pi else -p["d2"]  # θ2 = q2 (no π) puts C2 on the other side of E
    M11 = p["I1"] + p["m1"] * p["d1"]**2 + p["m2"] * p["L1"]**2 + I4 + m4 * p["d4"]**2
    M22 = p["I2"] + p["m2"] * d2**2 + p["I3"] + p["m3"] * p["d3"]**2 + m4 * p["L3"]**2
    c = m4 * p["L3"] * p["d4"] - p["m2"] * p["L1"] * d2
    d = q[1] - q[0]
    v = 1.0 if velocity else 0.0
    g = g_sign * p["g"]
    return _arr([
        M11 * qdd[0] + c * math.cos(d) * qdd[1] - v * c * math.sin(d) * qd[1]**2
        + g * math.cos(q[0]) * (p["m1"] * p["d1"] + p["m2"] * p["L1"] + m4 * p["d4"]),
        M22 * qdd[1] + c * math.cos(d) * qdd[0] + v * c * math.sin(d) * qd[0]**2
        + g * math.cos(q[1]) * (p["m3"] * p["d3"] + m4 * p["L3"] - p["m2"] * d2),
    ])


# ------------------------------------------------------------------ 5.1 passive angles
def _passive(q):
    return _arm().passive_angles(q)


def _q_variant(rng) -> dict:
    return {"q": _pose_variant(rng)}


register(
    Exercise(
        "5.1",
        "Passive angles of the parallelogram",
        1,
        reference=_passive,
        alternatives=_turn_alternatives(_passive),
        params={"q": list(Q)},
        variant=_q_variant,
        sanity=lambda answer, q: _loop_sanity(answer, _arr(q), _arm().params),
        mistakes=[
            Mistake(
                lambda q: _arr([q[1], q[0]]),
                "the forearm is parallel to the crank but points the OTHER way: its pin B is behind the "
                "elbow (b2 along -x2), half a turn from the crank's direction",
            ),
            Mistake(
                lambda q: _arr([q[1] - q[0] + math.pi, q[0]]),
                "theta2 is the forearm's ABSOLUTE angle (from +x), not the elbow angle relative to the "
                "upper arm",
            ),
            Mistake(
                lambda q: _arr([q[0], q[1] + math.pi]),
                "the order is (theta2, theta4): first the forearm's angle, then the coupler's",
            ),
            Mistake(
                lambda q: _arr([q[1] + math.pi, q[1]]),
                "the coupler AB is parallel to the upper arm OE (a parallelogram O-A-B-E), not to the crank",
            ),
            Mistake(
                lambda q: np.degrees([q[1] + math.pi, q[0]]),
                "your angles look like degrees: give radians",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 5.2 passive rates
def _rates(q, qd):
    return _arm().passive_rates(q) @ _arr(qd)


def _qd_variant(rng) -> dict:
    return {"q": _pose_variant(rng), "qd": _rates_variant(rng)}


register(
    Exercise(
        "5.2",
        "Passive rates from the loop's velocity constraint",
        1,
        reference=_rates,
        params={"q": list(Q), "qd": list(QD)},
        variant=_qd_variant,
        mistakes=[
            Mistake(
                lambda q, qd: _arr([qd[0], qd[1]]),
                "swapped: the forearm turns with the crank and the coupler with the upper arm (which rate "
                "comes first?)",
            ),
            Mistake(
                lambda q, qd: _arr([qd[1] - qd[0], qd[0]]),
                "theta2_dot is the forearm's ABSOLUTE rate, not the elbow's rate relative to the upper arm",
            ),
            Mistake(
                lambda q, qd: _arr([-qd[1], qd[0]]),
                "the constant pi in the forearm's angle does not change its rate: check the sign of "
                "theta2_dot",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 5.3 change points
def _sigma_min(delta):
    """Smallest singular value of the loop Jacobian's passive block (columns θ2, θ4) at q = (0, delta)."""
    J = _arm().loop_jacobian([0.0, delta])
    return float(np.linalg.svd(J[:, [1, 3]], compute_uv=False)[-1])


def _fold_angle(x: float, tol: float = 1e-6) -> float:
    """``x`` folded into ``[0, 2π)``, with values within ``tol`` below 2π folded to 0.

    A minimiser can land on the change point 0 as −4e-13 on one machine and +4e-13 on another; taken
    modulo 2π the first would become 2π, a key that grades the right answer wrong.

    >>> _fold_angle(-4e-13), _fold_angle(4e-13) < 1e-12, round(_fold_angle(-math.pi), 12)
    (0.0, True, 3.141592653590)
    """
    x = x % (2 * math.pi)
    return 0.0 if 2 * math.pi - x < tol else x


@cache
def _change_points():
    """Values of q2 - q1 in [0, 2π) where J_p loses rank: local minima of σ_min that reach 0."""
    grid = np.linspace(0.0, 2 * math.pi, 720, endpoint=False)
    s = np.array([_sigma_min(d) for d in grid])
    points = []
    for k in range(len(grid)):
        if s[k] <= s[k - 1] and s[k] <= s[(k + 1) % len(grid)]:
            lo, hi = grid[k] - grid[1], grid[k] + grid[1]
            best = minimize_scalar(_sigma_min, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
            x, f = (grid[k], s[k]) if s[k] <= best.fun else (best.x, best.fun)
            if f < 1e-8:
                points.append(_fold_angle(x))
    return _arr(sorted(points))


register(
    Exercise(
        "5.3",
        "The change points of the parallelogram",
        1,
        reference=_change_points,
        rtol=1e-6,
        atol=1e-6,
        mistakes=[
            Mistake(
                lambda: _arr([math.pi / 2, 3 * math.pi / 2]),
                "at q2 - q1 = pi/2 the links are perpendicular, the best-conditioned pose; J_p is "
                "singular where the passive links LINE UP with the active ones",
            ),
            Mistake(
                lambda: _arr([0.0, 180.0]),
                "the angles are in radians, not degrees",
            ),
            Mistake(
                lambda: _change_points()[::-1],
                "your change points are in decreasing order: list them in increasing order of q2 - q1",
            ),
            Mistake(
                lambda: _arr([0.0, 2 * math.pi]),
                "0 and 2 pi are the same configuration; the second change point is elsewhere",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 5.4 M12 and decoupling
def _m12_coefficient(**params):
    """c with M12 = c cos(q2 - q1), read off the library's mass matrix at Q_M12."""
    return _arm(**params).mass_matrix(Q_M12)[0, 1] / math.cos(Q_M12[1] - Q_M12[0])


def _decoupling(m2, m4):
    """[c, m4 that makes c = 0] (c is linear in m4: two evaluations fix the line)."""
    c0, c1 = _m12_coefficient(m2=m2, m4=1.0), _m12_coefficient(m2=m2, m4=2.0)
    return _arr([_m12_coefficient(m2=m2, m4=m4), 1.0 - c0 / (c1 - c0)])


def _masses_variant(rng) -> dict:
    """Forearm mass 3.0-5.0 kg, coupler mass 0.8-2.5 kg (one decimal)."""
    return {"m2": round(float(rng.uniform(3.0, 5.0)), 1), "m4": round(float(rng.uniform(0.8, 2.5)), 1)}


def _first_from_key(wrong_c):
    """A mistake in c, recognised from the key [c, m4*] alone (whatever the student's m4 is).

    With L1, L3, d2, d4 fixed: a = m2 L1 d2 = m4* L3 d4 (the forearm's term) and b = m4 L3 d4 = c + a
    (the coupler's); ``wrong_c(a, b, m2)`` is the student's wrong c.
    """
    p = _p()

    def test(student, expected):
        s, k = np.asarray(student, dtype=float).reshape(-1), np.asarray(expected, dtype=float).reshape(-1)
        if s.shape != (2,) or k.shape != (2,):
            return False
        a = k[1] * p["L3"] * p["d4"]
        wrong = wrong_c(a, k[0] + a, a / (p["L1"] * p["d2"]))
        return bool(np.isclose(s[0], wrong, rtol=1e-4)) and not bool(np.isclose(s[0], k[0], rtol=1e-4))

    return test


def _positive_mass(answer, **_) -> str | None:
    a = np.asarray(answer, dtype=float).reshape(-1)
    if a.shape == (2,) and np.isfinite(a[1]) and a[1] <= 0:
        return "the decoupling coupler mass must be positive (a mass); check the signs in c"
    return None


register(
    Exercise(
        "5.4",
        "The coefficient of M12 and the decoupling condition",
        2,
        reference=_decoupling,
        rtol=1e-5,
        params={"m2": 4.0, "m4": 1.5},
        variant=_masses_variant,
        sanity=_positive_mass,
        mistakes=[
            Mistake.when(
                _first_from_key(lambda a, b, m2: a + b),
                "the sign of the forearm's term: its centre of mass is at E + d2 e(q2 + pi) = E - d2 e(q2), "
                "so the forearm's cross term in M12 is negative",
            ),
            Mistake.when(
                _first_from_key(lambda a, b, m2: a - b),
                "both signs are swapped: the sign of the forearm's term is negative (its centre is behind "
                "the elbow, C2 = L1 e(q1) - d2 e(q2)), the coupler's positive (C4 = L3 e(q2) + d4 e(q1))",
            ),
            Mistake.when(
                _first_from_key(lambda a, b, m2: -a),
                "the coupler is missing: its centre moves with BOTH arms (C4 = L3 e(q2) + d4 e(q1)), "
                "which adds a term m4 L3 d4 cos(q2 - q1) to M12",
            ),
            Mistake.when(
                _first_from_key(lambda a, b, m2: b),
                "the forearm is missing: its centre moves with both arms (C2 = L1 e(q1) - d2 e(q2)), "
                "which adds a term to M12",
            ),
            Mistake.when(
                _first_from_key(lambda a, b, m2: b - m2 * _p()["L1"] * _p()["L2"]),
                "use the forearm's centre of mass d2 = 0.20 m, not its length L2",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 5.5 gravity torques
def _gravity(q):
    return _arm().inverse_dynamics(q, [0.0, 0.0], [0.0, 0.0])


def _gravity_variant(rng) -> dict:
    return {"q": _pose_variant(rng, cos_away=0.25)}


register(
    Exercise(
        "5.5",
        "Gravity torques at a pose",
        2,
        reference=_gravity,
        params={"q": list(Q)},
        variant=_gravity_variant,
        mistakes=[
            Mistake(
                lambda q: _closed_torques(q, (0, 0), (0, 0), g_sign=-1),
                "the sign is wrong: the motors must HOLD the arm, tau = G(q) = +dV/dq with V the potential "
                "energy m g y (y up)",
            ),
            Mistake(
                lambda q: _closed_torques(q, (0, 0), (0, 0), coupler=False),
                "the coupler's weight is missing: it hangs on both arms (its centre moves with q1 AND q2)",
            ),
            Mistake(
                lambda q: _closed_torques(q, (0, 0), (0, 0), theta2_pi=False),
                "the forearm's centre is at E + d2 e(q2 + pi): seen from the crank's actuator it is BEHIND "
                "the elbow; check the sign of the forearm's weight in tau2",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 5.6 joint torques
def _torques(q, qd, qdd):
    return _arm().inverse_dynamics(q, qd, qdd)


def _state_variant(rng) -> dict:
    return {"q": _pose_variant(rng, cos_away=0.25), "qd": _rates_variant(rng), "qdd": _rates_variant(rng)}


register(
    Exercise(
        "5.6",
        "Joint torques from the recursive formula",
        3,
        reference=_torques,
        params={"q": list(Q), "qd": list(QD), "qdd": list(QDD)},
        variant=_state_variant,
        mistakes=[
            Mistake(
                lambda q, qd, qdd: _closed_torques(q, qd, qdd, coupler=False),
                "the coupler's contribution is missing: its partial velocities are not zero (it translates "
                "with the crank pin A and turns with q1), so (m4 a_C4 - F4) . v_C4^(j) + I4 alpha4 "
                "omega4^(j) enters both torques",
            ),
            Mistake(
                lambda q, qd, qdd: _closed_torques(q, qd, qdd, g_sign=-1),
                "the sign of gravity: the gravity force is -m g y0 (y0 up), and in tau_j = sum (m a_C - F) . "
                "v_C^(j) it enters as -F, i.e. +m g along y0",
            ),
            Mistake(
                lambda q, qd, qdd: _closed_torques(q, qd, qdd, velocity=False),
                "the velocity terms are missing: the accelerations of the centres of mass include "
                "centripetal parts (proportional to the squared rates)",
            ),
            Mistake(
                lambda q, qd, qdd: _closed_torques(q, (0, 0), (0, 0)),
                "those are the gravity torques only (5.5); at this state the arm also accelerates and moves",
            ),
        ],
    )
)


# ------------------------------------------------------------------ general four-bar (5.7, 5.8): by hand
def _blocks(L1, L3, L4, b2, theta, rotate=True, forearm_sign=1.0, b2_on_axis=False):
    """J_a (columns θ1, θ3) and J_p (columns θ2, θ4) of Φ = L3 e(θ3) + L4 e(θ4) − L1 e(θ1) − R(θ2) b2.

    The keywords make the typical mistakes: b2 not rotated, the forearm's column with the wrong sign,
    b2 taken as (−|b2|, 0).
    """
    th, b = _arr(theta), _arr(b2)
    if b2_on_axis:
        b = np.array([-math.hypot(*b), 0.0])
    pin = _rot(th[1], b) if rotate else b
    J_a = np.column_stack([-L1 * _perp(_e(th[0])), L3 * _perp(_e(th[2]))])
    J_p = np.column_stack([-forearm_sign * _perp(pin), L4 * _perp(_e(th[3]))])
    return J_a, J_p


def _B_by_hand(L1, L3, L4, b2, theta, **mistake):
    J_a, J_p = _blocks(L1, L3, L4, b2, theta, **mistake)
    return -np.linalg.solve(J_p, J_a)


def _assembly(q, left=True, L1=None, L3=None, L4=None, b2=None):
    """Passive angles (θ2, θ4) by intersecting two circles: B at L4 from A and at |b2| from E.

    ``left``: B to the left of the directed line A -> E (the library's branch); else the crossed one.
    """
    p = _general().params
    L1, L3, L4 = (p[k] if v is None else v for k, v in (("L1", L1), ("L3", L3), ("L4", L4)))
    b2 = p["b2"] if b2 is None else _arr(b2)
    A, E = L3 * _e(q[1]), L1 * _e(q[0])
    c, dist = math.hypot(*b2), math.hypot(*(E - A))
    a = (L4**2 - c**2 + dist**2) / (2 * dist)
    h = math.sqrt(L4**2 - a**2)
    u = (E - A) / dist
    B = A + a * u + (h if left else -h) * _perp(u)
    theta4 = math.atan2(*(B - A)[::-1])
    theta2 = math.atan2(*(B - E)[::-1]) - math.atan2(b2[1], b2[0])  # B − E = R(θ2) b2
    return _arr([theta2, theta4])


# ------------------------------------------------------------------ 5.7 B of a general four-bar
def _passive_rate_matrix(L1, L3, L4, b2, theta):
    """B (absolute angles) from the library's loop Jacobian of the tree at the given angles."""
    arm = fourbar_arm(L1=float(L1), L3=float(L3), L4=float(L4), b2=tuple(float(x) for x in _arr(b2)))
    th = _arr(theta)
    tree = [th[0], th[1] - th[0], th[2], th[3] - th[2]]  # the tree's joint angles
    B_rel = np.asarray(kane_closed.passive_rates(arm.closed, tree), dtype=float)
    return B_rel + np.eye(2)  # θ_p = θ_p^rel + q (chapter 5: B_rel = B − I)


def _fourbar_case(L1, L3, L4, b2, q):
    """A case (L1, L3, L4, b2, θ) at the library's assembly of the active angles ``q``."""
    b2 = _arr(b2)
    theta = fourbar_arm(L1=L1, L3=L3, L4=L4, b2=tuple(b2)).angles(q)
    return (float(L1), float(L3), float(L4), b2, theta)


def _well_conditioned(case, bound: float = 0.3) -> bool:
    """|det J_p| >= bound |b2| L4: far from a change point (det J_p = 0 when E, B, A line up)."""
    L1, L3, L4, b2, theta = case
    return abs(np.linalg.det(_blocks(L1, L3, L4, b2, theta)[1])) >= bound * math.hypot(*b2) * L4


#: public cases: the chapter's general four-bar at two poses, and one whose pin b2 is off the forearm's axis
FOURBAR_CASES = [
    _fourbar_case(0.60, 0.15, 0.58, (-0.20, 0.0), np.radians([20.0, 75.0])),
    _fourbar_case(0.60, 0.15, 0.58, (-0.20, 0.0), np.radians([-40.0, 160.0])),
    _fourbar_case(0.55, 0.12, 0.50, (-0.17, 0.05), np.radians([10.0, 250.0])),
]


def _hidden_fourbars(rng, n: int = 5, **_) -> list[tuple]:
    """``n`` random assemblable four-bars at random poses away from change points, and a parallelogram."""
    cases = []
    while len(cases) < n:
        L1, L3, L4 = (round(float(x), 3) for x in rng.uniform([0.3, 0.08, 0.3], [0.8, 0.3, 0.9]))
        c, phi = float(rng.uniform(0.08, 0.3)), float(rng.uniform(-math.pi, math.pi))
        b2 = [round(c * math.cos(phi), 3), round(c * math.sin(phi), 3)]
        try:
            case = _fourbar_case(L1, L3, L4, b2, rng.uniform(-math.pi, math.pi, 2))
        except ModelError:  # this geometry never closes, or not at this pose
            continue
        if _well_conditioned(case):
            cases.append(case)
    L1, L3 = round(float(rng.uniform(0.4, 0.8)), 3), round(float(rng.uniform(0.1, 0.3)), 3)
    q1 = float(rng.uniform(-math.pi, math.pi))
    cases.append(_fourbar_case(L1, L3, L1, (-L3, 0.0), [q1, q1 + float(rng.uniform(0.4, math.pi - 0.4))]))
    return cases


def _swapped_blocks(*case):
    J_a, J_p = _blocks(*case)
    return -np.linalg.solve(J_a, J_p)


register(
    Exercise(
        "5.7",
        "The passive-rate matrix B = -J_p^-1 J_a of a general four-bar (a function)",
        3,
        reference=_passive_rate_matrix,
        cases=FOURBAR_CASES,
        hidden_cases=_hidden_fourbars,
        function_name="passive_rate_matrix",
        mistakes=[
            Mistake(
                lambda *c: _passive_rate_matrix(*c) - np.eye(2),
                "that is B_rel = B - I, the rates of the tree's JOINT angles (theta2 - theta1, theta4 - "
                "theta3); theta holds ABSOLUTE angles here, and B gives the absolute rates theta2_dot, "
                "theta4_dot",
            ),
            Mistake(
                _swapped_blocks,
                "you inverted the wrong block: B = -J_p^-1 J_a inverts the PASSIVE columns (theta2, theta4) "
                "and multiplies the active ones (theta1 = q1, theta3 = q2)",
            ),
            Mistake(
                lambda *c: -_passive_rate_matrix(*c),
                "the sign is wrong: J_a q_dot + J_p theta_p_dot = 0 gives theta_p_dot = -J_p^-1 J_a q_dot",
            ),
            Mistake(
                lambda *c: _passive_rate_matrix(*c).T,
                "your matrix is transposed: row i is a passive rate (theta2_dot, then theta4_dot), column j "
                "the active rate it multiplies (q1_dot, then q2_dot)",
            ),
            Mistake(
                lambda *c: _passive_rate_matrix(*c)[::-1],
                "the rows are swapped: row 0 is the forearm's rate theta2_dot, row 1 the coupler's "
                "theta4_dot",
            ),
            Mistake(
                lambda *c: _passive_rate_matrix(*c)[:, ::-1],
                "the columns are swapped: column 0 multiplies q1_dot (the upper arm, theta1), column 1 "
                "q2_dot (the crank, theta3)",
            ),
            Mistake(
                lambda *c: _B_by_hand(*c, rotate=False),
                "b2 is given in the forearm's frame: in the loop the pin sits at R(theta2) b2 from E, so "
                "the forearm's column is d/dtheta2 of -R(theta2) b2, which turns with theta2",
            ),
            Mistake(
                lambda *c: _B_by_hand(*c, forearm_sign=-1.0),
                "the forearm's column has the wrong sign: Phi contains -R(theta2) b2 (B is reached from E "
                "along b2), so dPhi/dtheta2 = -z x R(theta2) b2",
            ),
            Mistake(
                lambda *c: _B_by_hand(*c, b2_on_axis=True),
                "b2 is a vector in the forearm's frame, not always (-|b2|, 0): use both of its components "
                "(rotated by theta2)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 5.8 a general four-bar arm end to end
def _pose_deg_variant(rng) -> dict:
    """A pose in whole degrees: 10 <= |q1| <= 70, q2 - q1 = 30 ... 330 mod 360, 10 <= |q2| <= 180."""
    while True:
        q1 = int(rng.choice([-1, 1]) * rng.integers(10, 71))
        q2 = (q1 + int(rng.integers(30, 331)) + 180) % 360 - 180
        if min(q2 % 360, -q2 % 360) >= 10:
            return {"q_deg": [float(q1), float(q2)]}


def _angles_8(q_deg):
    return _general().passive_angles(np.radians(q_deg))


def _loop_sanity(answer, q, params) -> str | None:
    """Sanity without the key: radians, and the angles (θ2, θ4) close the loop of the arm ``params`` at q."""
    problem = _looks_like_degrees(answer)
    if problem:
        return problem
    a = np.asarray(answer, dtype=float).reshape(-1)
    if a.shape != (2,) or not np.all(np.isfinite(a)):
        return None
    p = params
    phi = p["L3"] * _e(q[1]) + p["L4"] * _e(a[1]) - p["L1"] * _e(q[0]) - _rot(a[0], p["b2"])
    if np.max(np.abs(phi)) > 1e-5:
        return ("your angles do not close the loop at this pose (A + L4 e(theta4) is not E + R(theta2) b2): "
                "check the order (theta2, theta4), absolute angles, and the pin's offset b2")
    return None


def _closes_loop(answer, q_deg, **_) -> str | None:
    return _loop_sanity(answer, np.radians(q_deg), _general().params)


def _relative_8(q_deg):
    return _angles_8(q_deg) - np.radians(q_deg)


register(
    Exercise(
        "5.8a",
        "A general four-bar arm: the passive angles at a pose",
        1,
        reference=_angles_8,
        alternatives=_turn_alternatives(_angles_8),
        params={"q_deg": list(Q8_DEG)},
        variant=_pose_deg_variant,
        sanity=_closes_loop,
        mistakes=[
            *_mistakes_mod_turns(
                lambda q_deg: _assembly(np.radians(q_deg), left=False),
                "that is the OTHER assembly of the loop (B mirrored in the line A-E, the crossed four-bar): "
                "the arm's branch has B to the LEFT of the directed line A -> E",
            ),
            *_mistakes_mod_turns(
                _relative_8,
                "theta2, theta4 are ABSOLUTE angles (from +x): you gave the joint angles relative to the "
                "upper arm and the crank",
            ),
            *_mistakes_mod_turns(
                lambda q_deg: _angles_8(q_deg)[::-1],
                "the order is (theta2, theta4): the forearm's angle first, then the coupler's",
            ),
            *_mistakes_mod_turns(
                lambda q_deg: _angles_8(q_deg) + [math.pi, 0.0],
                "theta2 is the direction of the forearm's x axis (E -> P); the pin B is at R(theta2) b2 "
                "from E, and b2 points backwards: the direction of E -> B is not theta2",
            ),
            *_mistakes_mod_turns(
                lambda q_deg: np.degrees(_angles_8(q_deg)),
                "your angles look like degrees: give radians",
                unit=360.0,
            ),
        ],
    )
)


def _holding(q_deg, left=True, rates="B", d_axis=False, passive_weights=True, g_sign=1.0, as_radians=False):
    """Holding torques G(q) of the general arm by the virtual work of the weights, with a chosen mistake.

    τ = Σ m_i g ∂y_Ci/∂q; link i at angle θ_i with C_i = J_i + R(θ_i) d_i has ∂y_Ci/∂θ_i = (R(θ_i) d_i)_x,
    and the passive angles move with q as ∂θ_p/∂q = B. ``rates``: "B", "B-I" (the tree's joint rates)
    or "zero" (passive angles held fixed); ``as_radians``: the pose's degrees read as radians.
    """
    p = _general().params
    q = _arr(q_deg) if as_radians else np.radians(q_deg)
    th2, th4 = _assembly(q, left)
    B = _B_by_hand(p["L1"], p["L3"], p["L4"], p["b2"], [q[0], th2, q[1], th4])
    B = {"B": B, "B-I": B - np.eye(2), "zero": 0 * B}[rates]
    d = {k: (np.array([p[k][0], 0.0]) if d_axis else p[k]) for k in ("d1", "d2", "d3", "d4")}
    g = g_sign * p["g"]
    tau = g * _arr([p["m1"] * _rot(q[0], d["d1"])[0], p["m3"] * _rot(q[1], d["d3"])[0]])
    if passive_weights:
        tau = tau + g * p["m2"] * (p["L1"] * math.cos(q[0]) * _arr([1, 0]) + _rot(th2, d["d2"])[0] * B[0])
        tau = tau + g * p["m4"] * (p["L3"] * math.cos(q[1]) * _arr([0, 1]) + _rot(th4, d["d4"])[0] * B[1])
    return tau


def _torques_8(q_deg):
    return _general().inverse_dynamics(np.radians(q_deg), [0.0, 0.0], [0.0, 0.0])


register(
    Exercise(
        "5.8b",
        "A general four-bar arm: the holding torques at a pose",
        2,
        reference=_torques_8,
        params={"q_deg": list(Q8_DEG)},
        variant=_pose_deg_variant,
        mistakes=[
            Mistake(
                lambda q_deg: _holding(q_deg, g_sign=-1.0),
                "the sign is wrong: the motors must HOLD the arm, tau = G(q) = +dV/dq with V = sum m g y_C "
                "(y up)",
            ),
            Mistake(
                lambda q_deg: _holding(q_deg, rates="B-I"),
                "the passive angles move with q as d(theta2, theta4)/dq = B (ABSOLUTE angles); you used "
                "B_rel = B - I, the rates of the tree's joint angles",
            ),
            Mistake(
                lambda q_deg: _holding(q_deg, left=False),
                "these hold the OTHER assembly of the loop (B mirrored in the line A-E, the crossed "
                "four-bar): the arm's branch has B to the LEFT of the directed line A -> E",
            ),
            Mistake(
                lambda q_deg: _holding(q_deg, rates="zero"),
                "the forearm and the coupler turn when the motors turn: their angles depend on q through "
                "the loop (d theta_p/dq = B), so their weights' moments about E and A enter too",
            ),
            Mistake(
                lambda q_deg: _holding(q_deg, passive_weights=False),
                "the weights of the forearm and the coupler are missing: they hang on the motors through "
                "the loop",
            ),
            Mistake(
                lambda q_deg: _holding(q_deg, d_axis=True),
                "the centres of mass of the forearm and the coupler are off their links' axes (d2 and d4 "
                "have y components in the link frames): rotate the whole vector d_i by theta_i",
            ),
            Mistake(
                lambda q_deg: _holding(q_deg, as_radians=True),
                "the pose is given in degrees: convert it to radians before np.cos / np.sin",
            ),
        ],
    )
)


# ================================================================== practice inside the chapter's pages
# 5.P1 .. 5.P4: no points, never released or graded (public data only, no variants). The keys come from
# the library (Kane's recursion, the closed chain's S, the arm's mass matrix); the mistakes are written
# out here from closed forms.

# ------------------------------------------------------------------ 5.P1 the two-link arm held still
P1 = {"L": (0.5, 0.4), "m": (3.0, 2.0), "g": 9.81, "q_deg": (30.0, 45.0)}  # page 5.1, q2 relative


def _p1_holding():
    from ..chain import Chain
    from ..kane import kane_inverse_dynamics

    chain = Chain.planar(list(P1["L"]), masses=list(P1["m"]), name="two links")
    q = np.radians(P1["q_deg"])
    return _arr(kane_inverse_dynamics(chain, q, [0.0, 0.0], [0.0, 0.0], gravity=(0.0, -P1["g"], 0.0)))


def _p1_closed(half=1.0, outer=True, absolute=True, degrees=False):
    """Holding torques of two uniform rods: τ2 = m2 g c2 L2 cos(q1 + q2), τ1 = g cos q1 (m1 c1 L1 + m2 L1)
    + τ2, with a chosen mistake (``half``: where the centres sit; ``absolute``: link 2's direction q1 + q2
    or, wrongly, q2; ``degrees``: the pose's degrees read as radians)."""
    (L1, L2), (m1, m2), g = P1["L"], P1["m"], P1["g"]
    q1, q2 = P1["q_deg"] if degrees else np.radians(P1["q_deg"])
    tau2 = m2 * g * half * L2 * math.cos(q1 + q2 if absolute else q2)
    tau1 = g * math.cos(q1) * (m1 * half * L1 + (m2 * L1 if outer else 0.0)) + (tau2 if outer else 0.0)
    return _arr([tau1, tau2])


register(
    Exercise(
        "5.P1",
        "Practice: the two-link arm held still",
        0,
        reference=_p1_holding,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: -_p1_closed(half=0.5),
                    "the sign: the motors hold the arm UP against gravity (the rising base puts +g into "
                    "every a_Ci); tau = G(q), positive for a link that reaches out horizontally"),
            Mistake(lambda: _p1_closed(half=0.5, outer=False),
                    "tau_1 sums over the links i >= 1: link 2's weight loads motor 1 as well (through its "
                    "partial velocity v_C2^(1))"),
            Mistake(lambda: _p1_closed(half=0.5, absolute=False),
                    "q2 is the angle of link 2 RELATIVE to link 1: link 2 points along q1 + q2"),
            Mistake(lambda: _p1_closed(half=1.0),
                    "the rods are uniform: their centres of mass are at mid-length, d_i = L_i / 2"),
            Mistake(lambda: _p1_closed(half=0.5, degrees=True),
                    "the pose is given in degrees: convert it to radians before substituting"),
            Mistake(lambda: _p1_closed(half=0.5)[::-1],
                    "the order is [tau_1, tau_2]: the shoulder's torque first"),
        ],
    )
)


# ------------------------------------------------------------------ 5.P2 S of the tree, general four-bar
P2_Q_DEG = (20.0, 75.0)  # page 5.2: the pose q0 of the worked example


def _p2_S():
    q = np.radians(P2_Q_DEG)
    arm = _general()
    rates = kane_closed.closed_rates(arm.closed, q, [0.0, 0.0], None, arm.angles(q)[[1, 3]] - q)
    return _arr(rates.S)


def _p2_by_hand(rows="relative", order="tree"):
    """S of the tree (θ1, θ2 − θ1, θ3, θ4 − θ3) from B written here, with a chosen mistake."""
    p = _general().params
    q = np.radians(P2_Q_DEG)
    th2, th4 = _assembly(q)
    B = _B_by_hand(p["L1"], p["L3"], p["L4"], p["b2"], [q[0], th2, q[1], th4])
    passive = B - np.eye(2) if rows == "relative" else B
    if order == "tree":
        return np.vstack([[1.0, 0.0], passive[0], [0.0, 1.0], passive[1]])
    return np.vstack([np.eye(2), passive])


register(
    Exercise(
        "5.P2",
        "Practice: S of the tree for a general four-bar",
        0,
        reference=_p2_S,
        rtol=1e-6,
        atol=1e-9,
        mistakes=[
            Mistake(lambda: _p2_by_hand(rows="absolute"),
                    "the passive rows hold the rates of the tree's JOINT angles theta2 - theta1 and "
                    "theta4 - theta3, i.e. the rows of B_rel = B - I, not of B (absolute angles)"),
            Mistake(lambda: _p2_by_hand(order="stacked"),
                    "the rows follow the tree's coordinates (theta1, theta2 - theta1, theta3, "
                    "theta4 - theta3): the passive rows are the 2nd and the 4th"),
            Mistake(lambda: _p2_by_hand(rows="absolute", order="stacked"),
                    "two things: the rows follow the tree's coordinates (the passive rows are the 2nd and "
                    "4th), and they are rows of B_rel = B - I (joint angles), not of B"),
            Mistake(lambda: _p2_by_hand().T,
                    "S maps the two motor rates to the four tree rates: shape (4, 2), not its transpose"),
        ],
    )
)


# ------------------------------------------------------------------ 5.P3 the decoupling centre of mass
P3_M2 = 3.0  # page 5.3: the forearm's mass (kg); every other parameter the default


def _p3_d2x():
    """d2x with M12 ≡ 0, from the library's mass matrix (M12 at a pose is linear in d2x)."""
    def m12(x):
        return _arm(m2=P3_M2, d2=(x, 0.0)).mass_matrix(Q_M12)[0, 1]

    a, b = m12(0.0), m12(0.1)
    return -0.1 * a / (b - a)


def _p3_closed(m2=P3_M2, swap_lengths=False, swap_masses=False):
    p = _p()
    L1, L3 = (p["L3"], p["L1"]) if swap_lengths else (p["L1"], p["L3"])
    m2_, m4 = (p["m4"], m2) if swap_masses else (m2, p["m4"])
    return m4 * L3 * p["d4"] / (m2_ * L1)


register(
    Exercise(
        "5.P3",
        "Practice: where the forearm's centre of mass decouples the arm",
        0,
        reference=_p3_d2x,
        rtol=1e-6,
        mistakes=[
            Mistake(lambda: _p3_closed(swap_lengths=True),
                    "L1 and L3 are swapped: the coupler's term carries the CRANK's length L3 (its centre "
                    "moves with the crank pin A), the forearm's the upper arm's L1 (it moves with the "
                    "elbow E)"),
            Mistake(lambda: _p3_closed(swap_masses=True),
                    "the masses are swapped: the forearm's first moment m2 d2x about E must balance the "
                    "coupler's term m4 L3 d4x / L1"),
            Mistake(lambda: _p3_closed(m2=FOURBAR_DEFAULTS["m2"]),
                    "that is the decoupling point of the default forearm (4 kg); here m2 = 3 kg"),
            Mistake(lambda: 1e3 * _p3_closed(),
                    "give d2x in metres, not millimetres"),
            Mistake(lambda: -_p3_closed(),
                    "the sign: c_c = m4 L3 d4x - m2 L1 d2x vanishes for a POSITIVE d2x, the centre of mass "
                    "in front of the elbow (towards the tip)"),
        ],
    )
)


# ------------------------------------------------------------------ 5.P4 the balanced arm after the pulse
P4 = {"peak": 2.0, "duration": 0.5}  # page 5.4: tau_p = peak sin^2(pi t / duration), 0 <= t <= duration


def _balanced():
    d4 = FOURBAR_DEFAULTS["d4"][0]
    p = _p()
    return _arm(d2=(p["m4"] * p["L3"] * d4 / (p["m2"] * p["L1"]), 0.0))


def _p4_impulse():
    from scipy.integrate import quad

    value, _ = quad(lambda t: P4["peak"] * math.sin(math.pi * t / P4["duration"]) ** 2, 0.0, P4["duration"])
    return value


def _p4_rate():
    """q̇1 after the pulse: the balanced arm is two independent pendulums, gravity compensated."""
    return _p4_impulse() / _balanced().mass_matrix([0.3, 1.2])[0, 0]


def _p4_inertias():
    M = _balanced().mass_matrix([0.3, 1.2])
    return M[0, 0], M[1, 1]


register(
    Exercise(
        "5.P4",
        "Practice: the balanced arm's speed after the pulse",
        0,
        reference=_p4_rate,
        rtol=1e-5,
        mistakes=[
            Mistake(lambda: P4["peak"] * P4["duration"] / _p4_inertias()[0],
                    "the pulse's mean is HALF its peak: the integral of sin^2 over its half period is "
                    "duration / 2"),
            Mistake(lambda: (P4["peak"] * P4["duration"] / 2) / _p4_inertias()[1],
                    "motor 1 accelerates q1 against M11; M22 is the crank side's inertia"),
            Mistake(lambda: (P4["peak"] * P4["duration"] / 2) / sum(_p4_inertias()),
                    "the balanced arm is decoupled: motor 1 sees M11 alone, not M11 + M22"),
            Mistake(lambda: P4["peak"] * P4["duration"] / 2,
                    "that is the angular impulse (N m s); divide it by the inertia motor 1 sees, M11"),
            Mistake(lambda: math.degrees((P4["peak"] * P4["duration"] / 2) / _p4_inertias()[0]),
                    "give the rate in rad/s, not deg/s"),
        ],
    )
)


# ------------------------------------------------------------------ 5.P5 change points at a given q1
P5_Q1_DEG = 40.0  # page 5.4


def _p5_change_q2():
    """q2 (degrees, in [0, 360), increasing) at the change points for q1 = P5_Q1_DEG: the values of
    q2 - q1 where the library's loop Jacobian loses rank (:func:`_change_points`), shifted by q1."""
    return np.sort(np.mod(P5_Q1_DEG + np.degrees(_change_points()), 360.0))


register(
    Exercise(
        "5.P5",
        "Practice: where the arm locks up",
        0,
        reference=_p5_change_q2,
        alternatives=[lambda: _p5_change_q2()[::-1]],
        rtol=1e-6,
        atol=1e-4,
        mistakes=[
            Mistake(lambda: _arr([0.0, 180.0]),
                    "0 and 180 deg are the values of q2 - q1 at the change points; the question asks for q2 "
                    "itself, with q1 = 40 deg"),
            Mistake(lambda: np.mod(_arr([P5_Q1_DEG + 90.0, P5_Q1_DEG + 270.0]), 360.0),
                    "with q2 - q1 = 90 deg the crank is perpendicular to the upper arm: the best-conditioned "
                    "pose. The loop locks up where all four links line up"),
            Mistake(lambda: np.radians(_p5_change_q2()),
                    "give the angles in degrees, as asked"),
            Mistake(lambda: _arr([P5_Q1_DEG, P5_Q1_DEG + 360.0]),
                    "q2 = q1 and q2 = q1 + 360 deg are the same pose; the other change point is half a turn "
                    "from the first"),
        ],
    )
)
