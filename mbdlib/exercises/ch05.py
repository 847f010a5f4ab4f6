"""Chapter 5 exercises: the four-bar arm (solutions/ch05_fourbar_arm.ipynb).

Each exercise's expected answer comes from mbdlib's public API (the closed-chain Kane
model :func:`mbdlib.mechanisms.fourbar_arm`: passive angles and rates from the loop,
its mass matrix, inverse dynamics, loop Jacobian); the typical mistakes are written out
independently below from the parallelogram's closed forms (θ2 = q2 + π, θ4 = q1), with
the hint for each.  The data are those printed in the exercise notebook.

=====  ======================================================  ======
id     exercise                                                points
=====  ======================================================  ======
5.1    Passive angles of the parallelogram at a pose           1
5.2    Passive rates from the loop's velocity constraint       1
5.3    The change points (q2 - q1 where J_p is singular)       1
5.4    The coefficient of M12 and the decoupling mass          2
5.5    Gravity torques at a pose                               2
5.6    Joint torques at a state (recursive formula)            3
=====  ======================================================  ======

Closed forms of the parallelogram used for the mistakes (Lagrange's equations with
``T = ½ M11 q̇1² + ½ M22 q̇2² + c cos(q2 − q1) q̇1 q̇2``)::

    M11 = I1 + m1 d1² + m2 L1² + I4 + m4 d4²,   M22 = I2 + m2 d2² + I3 + m3 d3² + m4 L3²,
    c = m4 L3 d4 − m2 L1 d2,
    τ1 = M11 q̈1 + c cos Δ q̈2 − c sin Δ q̇2² + g cos q1 (m1 d1 + m2 L1 + m4 d4)
    τ2 = M22 q̈2 + c cos Δ q̈1 + c sin Δ q̇1² + g cos q2 (m3 d3 + m4 L3 − m2 d2),   Δ = q2 − q1.

References: H. Asada & J.-J. E. Slotine, *Robot Analysis and Control*, 1986, §6.3
(the parallelogram arm and its decoupling); T. R. Kane & D. A. Levinson, *Dynamics:
Theory and Applications*, 1985 (generalized speeds, partial velocities).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from scipy.optimize import minimize_scalar

from ..mechanisms import FOURBAR_DEFAULTS, fourbar_arm
from .core import Exercise, Mistake, register

# ------------------------------------------------------------------ data (as in the notebook)
Q = (0.4, 2.0)  # rad: q1 (upper arm), q2 (crank)
QD = (0.5, -1.0)  # rad/s
QDD = (1.5, 2.0)  # rad/s²
Q_M12 = (0.3, 0.9)  # 5.4: pose where M12 is read (cos(q2 - q1) far from 0)


@cache
def _arm(**params):
    return fourbar_arm(**params)


def _arr(x):
    return np.asarray(x, dtype=float)


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
def _passive():
    return _arm().passive_angles(Q)


def _wrapped(produce):
    """Alternatives: the same angles up to whole turns of θ2 (arctan2 wraps to (-π, π])."""
    return [lambda k=k: produce() + [2 * math.pi * k, 0.0] for k in (-1, 1)]


register(
    Exercise(
        "5.1",
        "Passive angles of the parallelogram",
        1,
        reference=_passive,
        alternatives=_wrapped(_passive),
        mistakes=[
            Mistake(
                lambda: _arr([Q[1], Q[0]]),
                "the forearm is parallel to the crank but points the OTHER way: its pin B is behind the "
                "elbow (b2 along -x2), so theta2 = q2 + pi",
            ),
            Mistake(
                lambda: _arr([Q[1] - Q[0] + math.pi, Q[0]]),
                "theta2 is the forearm's ABSOLUTE angle (from +x), not the elbow angle relative to the "
                "upper arm",
            ),
            Mistake(
                lambda: _arr([Q[0], Q[1] + math.pi]),
                "the order is (theta2, theta4): first the forearm (parallel to the crank, theta2 = q2 + pi), "
                "then the coupler (parallel to the upper arm, theta4 = q1)",
            ),
            Mistake(
                lambda: _arr([Q[1] + math.pi, Q[1]]),
                "the coupler AB is parallel to the upper arm OE (a parallelogram O-A-B-E), so theta4 = q1",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 5.2 passive rates
def _rates():
    return _arm().passive_rates(Q) @ _arr(QD)


register(
    Exercise(
        "5.2",
        "Passive rates from the loop's velocity constraint",
        1,
        reference=_rates,
        mistakes=[
            Mistake(
                lambda: _arr([QD[0], QD[1]]),
                "swapped: the forearm turns with the crank (theta2_dot = q2_dot) and the coupler with the "
                "upper arm (theta4_dot = q1_dot)",
            ),
            Mistake(
                lambda: _arr([QD[1] - QD[0], QD[0]]),
                "theta2_dot is the forearm's ABSOLUTE rate, not the elbow's relative rate theta2_dot - "
                "q1_dot",
            ),
            Mistake(
                lambda: _arr([-QD[1], QD[0]]),
                "the constant pi in theta2 = q2 + pi does not change the rate: theta2_dot = +q2_dot",
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
                "singular where the passive links LINE UP with the active ones (sin(q2 - q1) = 0)",
            ),
            Mistake(
                lambda: _arr([0.0, 180.0]),
                "the angles are in radians: give 0 and pi",
            ),
            Mistake(
                lambda: _arr([0.0, 2 * math.pi]),
                "0 and 2 pi are the same configuration; the second change point is half a turn away",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 5.4 M12 and decoupling
def _m12_coefficient(**params):
    """c with M12 = c cos(q2 - q1), read off the library's mass matrix at Q_M12."""
    return _arm(**params).mass_matrix(Q_M12)[0, 1] / math.cos(Q_M12[1] - Q_M12[0])


def _decoupling():
    """[c, m4 that makes c = 0] (c is linear in m4: two evaluations fix the line)."""
    c0, c1 = _m12_coefficient(m4=1.0), _m12_coefficient(m4=2.0)
    return _arr([_m12_coefficient(), 1.0 - c0 / (c1 - c0)])


def _decoupling_by_hand(forearm=1.0, coupler=1.0, d2=None):
    p = _p()
    d2 = p["d2"] if d2 is None else d2
    c = coupler * p["m4"] * p["L3"] * p["d4"] - forearm * p["m2"] * p["L1"] * d2
    m4 = p["m2"] * p["L1"] * d2 / (p["L3"] * p["d4"]) if coupler and forearm else math.nan
    return _arr([c, m4])


def _first_is(value):
    def test(student, expected):
        s = np.asarray(student, dtype=float).reshape(-1)
        return s.shape == (2,) and bool(np.isclose(s[0], value, rtol=1e-4))

    return test


register(
    Exercise(
        "5.4",
        "The coefficient of M12 and the decoupling condition",
        2,
        reference=_decoupling,
        rtol=1e-5,
        mistakes=[
            Mistake.when(
                _first_is(-_decoupling_by_hand()[0]),
                "the sign of the forearm's term: its centre of mass is at E + d2 e(q2 + pi) = E - d2 e(q2), "
                "so the forearm contributes -m2 L1 d2 cos(q2 - q1)",
            ),
            Mistake.when(
                _first_is(_decoupling_by_hand(coupler=0.0)[0]),
                "the coupler is missing: its centre moves with BOTH arms (C4 = L3 e(q2) + d4 e(q1)), "
                "which adds m4 L3 d4 cos(q2 - q1) to M12",
            ),
            Mistake.when(
                _first_is(_decoupling_by_hand(forearm=0.0)[0]),
                "the forearm is missing: its centre moves with both arms (C2 = L1 e(q1) - d2 e(q2)), "
                "which adds -m2 L1 d2 cos(q2 - q1) to M12",
            ),
            Mistake.when(
                _first_is(_decoupling_by_hand(d2=_p()["L2"])[0]),
                "use the forearm's centre of mass d2 = 0.20 m, not its length L2",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 5.5 gravity torques
def _gravity():
    return _arm().inverse_dynamics(Q, [0.0, 0.0], [0.0, 0.0])


register(
    Exercise(
        "5.5",
        "Gravity torques at a pose",
        2,
        reference=_gravity,
        mistakes=[
            Mistake(
                lambda: _closed_torques(Q, (0, 0), (0, 0), g_sign=-1),
                "the sign is wrong: the motors must HOLD the arm, tau = G(q) = +dV/dq with V the potential "
                "energy m g y (y up)",
            ),
            Mistake(
                lambda: _closed_torques(Q, (0, 0), (0, 0), coupler=False),
                "the coupler's weight is missing: it hangs on both arms (its centre moves with q1 AND q2), "
                "adding g m4 (d4 cos q1, L3 cos q2)",
            ),
            Mistake(
                lambda: _closed_torques(Q, (0, 0), (0, 0), theta2_pi=False),
                "the forearm's centre is at E + d2 e(q2 + pi): seen from the crank's actuator it is BEHIND "
                "the elbow, so its weight enters tau2 with -m2 d2 g cos q2",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 5.6 joint torques
def _torques():
    return _arm().inverse_dynamics(Q, QD, QDD)


register(
    Exercise(
        "5.6",
        "Joint torques from the recursive formula",
        3,
        reference=_torques,
        mistakes=[
            Mistake(
                lambda: _closed_torques(Q, QD, QDD, coupler=False),
                "the coupler's contribution is missing: its partial velocities are not zero (it translates "
                "with the crank pin A and turns with q1), so (m4 a_C4 - F4) . v_C4^(j) + I4 alpha4 "
                "omega4^(j) enters both torques",
            ),
            Mistake(
                lambda: _closed_torques(Q, QD, QDD, g_sign=-1),
                "the sign of gravity: the gravity force is -m g y0 (y0 up), and in tau_j = sum (m a_C - F) . "
                "v_C^(j) it enters as -F, i.e. +m g along y0",
            ),
            Mistake(
                lambda: _closed_torques(Q, QD, QDD, velocity=False),
                "the velocity terms are missing: the accelerations of the centres of mass include the "
                "centripetal parts (-c sin(q2 - q1) q2_dot^2 in tau1, +c sin(q2 - q1) q1_dot^2 in tau2)",
            ),
            Mistake(
                lambda: _closed_torques(Q, (0, 0), (0, 0)),
                "those are the gravity torques only (5.5); at this state the arm also accelerates and moves",
            ),
        ],
    )
)
