"""Chapter 1 exercises: rigid-body kinematics (solutions/ch01_kinematics.ipynb).

Each exercise's expected answer comes from mbdlib's public API; the typical
mistakes are written out independently (closed forms) with the hint for each.
The data below are the public numbers of the exercise notebook; the value
exercises with numeric data (1.1, 1.4-1.7, 1.12, 1.13) also draw each student's own numbers
(``variant``), the function exercises (1.8, 1.10, 1.11) are graded on hidden
cases (random states, and for 1.10 and 1.11 chains of 2 to 5 links). 1.2, 1.3
and 1.9 (a formula, a fact) are the same for everyone.

=====  ======================================================  ======
id     exercise                                                points
=====  ======================================================  ======
1.1    DCM of a yaw-pitch-roll (ZYX) sequence                  1
1.2    Euler-angle rate matrix, body components (formula)      2
1.3    Pitch angle of gimbal lock                              1
1.4    Euler parameters (quaternion) of a DCM                  2
1.5    Velocity of a point of a spinning body                  1
1.6    Acceleration of that point                              2
1.7    Partial velocities of a two-link planar arm             2
1.8    Jacobian of a three-link planar arm (a function of q)   3
1.9    A slider on a rotating rod: Coriolis (formula)          2
1.10   Outward recursion of a spatial chain (a function)       3
1.11   Partial velocities of a spatial chain (a function)      2
1.12   A pan-tilt head: the camera's angular velocity          1
1.13   A pan-tilt head: the camera's angular acceleration      2
=====  ======================================================  ======

The practice exercises inside the chapter's pages (0 points, never released or graded; each with its
solution folded on the page) are 1.P1 (page 1.1, the DCM of an extrinsic sequence), 1.P2 (page 1.1, the
Euler parameters of a quarter turn), 1.P3 (page 1.2, the angular velocity from ZXZ rates), 1.P6 (page 1.3,
the angular acceleration of a wheel on a turntable), 1.P4 (page 1.4, a bead on a spinning rod) and 1.P5
(page 1.5, a column of the Jacobian from the geometry).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..bodies import RigidBody
from ..chain import Chain, Joint
from ..kinematics import forward_kinematics, jacobian, partial_velocities, point_acceleration
from ..rotations import (
    axis_angle_from_dcm,
    dcm_from_axis_angle,
    dcm_from_euler,
    euler_rate_matrix,
    quat_from_dcm,
    rot_x,
    rot_y,
    rot_z,
    skew,
)
from .core import Exercise, Mistake, register

# ------------------------------------------------------------------ data (as in the notebook)
YPR_DEG = (30.0, 20.0, 10.0)  # 1.1: yaw psi, pitch theta, roll phi, degrees
psi, theta, phi = sp.symbols("psi theta phi", real=True)  # 1.2
Q_ANGLES = (0.7, -0.4, 1.1)  # 1.4: A_q = rot_z(0.7) @ rot_x(-0.4) @ rot_y(1.1)
A_BODY_DEG = (40.0, -15.0, 25.0)  # 1.5-1.6: the body's ZYX angles, degrees
V_REF = np.array([0.3, 0.0, -0.1])  # m/s, velocity of the reference point O_i
A_REF = np.array([0.0, 0.2, -0.4])  # m/s^2, its acceleration
OMEGA = np.array([0.5, -1.0, 2.0])  # rad/s, global components
ALPHA = np.array([0.1, 0.3, -0.5])  # rad/s^2, global components
S_BODY = np.array([0.4, 0.1, -0.2])  # m, s'_P in body components
ARM2_L, ARM2_Q_DEG = (1.0, 0.8), (30.0, 45.0)  # 1.7: lengths (m), relative joint angles (deg)
ARM3_L = (1.0, 0.7, 0.4)  # 1.8: lengths (m)
ARM3_CASES = [(q,) for q in np.random.default_rng(2024).uniform(-np.pi, np.pi, size=(4, 3))]
th, r, w, rd, rdd = sp.symbols("theta r omega rdot rddot", real=True)  # 1.9

K = np.array([0.0, 0.0, 1.0])


# ------------------------------------------------------------------ 1.1
def _dcm_ypr(angles_deg, order="ZYX"):
    return dcm_from_euler(order, np.radians(np.asarray(angles_deg, dtype=float)))


def _ypr_variant(rng) -> dict:
    """Yaw and roll anywhere but near ±180°, pitch away from ±90° (gimbal lock) and from 0."""
    yaw, roll = rng.integers(-170, 171, size=2)
    pitch = rng.choice([-1, 1]) * rng.integers(10, 76)
    return {"angles_deg": [float(yaw), float(pitch), float(roll)]}


def _orthonormal(answer, **_) -> str | None:
    A = np.asarray(answer, dtype=float)
    if A.shape == (3, 3) and not np.allclose(A.T @ A, np.eye(3), atol=1e-6):
        return ("your matrix is not orthonormal (A^T A is not I): a DCM's columns are unit vectors at "
                "right angles")
    if A.shape == (3, 3) and np.linalg.det(A) < 0:
        return "det A = -1: that is a reflection, not a rotation (a sign or an axis is wrong)"
    return None


register(
    Exercise(
        "1.1",
        "DCM of a yaw-pitch-roll (ZYX) sequence",
        1,
        reference=lambda angles_deg: _dcm_ypr(angles_deg),
        params={"angles_deg": list(YPR_DEG)},
        variant=_ypr_variant,
        sanity=_orthonormal,
        mistakes=[
            Mistake(
                lambda angles_deg: _dcm_ypr(angles_deg).T,
                "your matrix is the transpose of A: A maps body components to global ones (r = A s'), "
                "so its columns are the body axes in global components",
            ),
            Mistake(
                lambda angles_deg: rot_x(np.radians(angles_deg[2])) @ rot_y(np.radians(angles_deg[1]))
                @ rot_z(np.radians(angles_deg[0])),
                "you multiplied in the reverse order (an extrinsic xyz sequence): in an intrinsic sequence "
                "each new rotation is about an axis of the turned frame, so it multiplies on the right",
            ),
            Mistake(
                lambda angles_deg: dcm_from_euler("ZYX", np.array(angles_deg, dtype=float)),
                "you used degrees: np.sin and np.cos take radians (np.radians(30) ...)",
            ),
            Mistake(
                lambda angles_deg: _dcm_ypr(angles_deg[::-1]),
                "yaw and roll are swapped: psi goes with Rz (first), phi with Rx (last)",
            ),
        ],
    )
)

# ------------------------------------------------------------------ 1.2
register(
    Exercise(
        "1.2",
        "Euler-angle rate matrix of ZYX, body components",
        2,
        reference=lambda: euler_rate_matrix("ZYX", [psi, theta, phi], frame="body"),
        mistakes=[
            Mistake(
                lambda: euler_rate_matrix("ZYX", [psi, theta, phi], frame="global"),
                "that is the matrix for GLOBAL components of omega; the body components are "
                "omega' = A^T omega, so each column is a rotation axis seen from the body",
            ),
            Mistake(
                lambda: euler_rate_matrix("ZYX", [psi, theta, phi], frame="body")[:, ::-1],
                "the columns are in reverse order: column 1 multiplies psi_dot, column 3 phi_dot",
            ),
            Mistake(
                lambda: euler_rate_matrix("ZYX", [psi, theta, phi], frame="body").T,
                "your matrix is transposed: omega' = E' [psi_dot, theta_dot, phi_dot], so column j is "
                "the axis of the j-th rotation in body components",
            ),
        ],
    )
)

# ------------------------------------------------------------------ 1.3
register(
    Exercise(
        "1.3",
        "Pitch angle of gimbal lock (ZYX)",
        1,
        reference=lambda: np.pi / 2,
        rtol=1e-4,
        mistakes=[
            Mistake(lambda: 90.0, "give the angle in radians, not degrees"),
            Mistake(
                lambda: 0.0,
                "theta = 0 locks the PROPER Euler sequences (ZXZ ...), where det E = sin(theta); "
                "work out det E' of the ZYX sequence and find where it vanishes",
            ),
            Mistake(lambda: np.pi, "at theta = pi the determinant of E' is not zero: the rates are still "
                                   "fine there"),
        ],
    )
)


# ------------------------------------------------------------------ variants: helpers
def _far_from_mistakes(draw, reference, wrong, alternatives=(), margin=0.05, tries=200):
    """``variant(rng)`` that redraws until every typical wrong answer is clearly off the key.

    ``draw(rng) -> params``; ``reference(**params)`` the key; ``wrong``: functions of the params giving
    the typical wrong answers, each of which must differ from the key and from its ``alternatives`` by
    more than ``margin`` (relative, in norm), so that each mistake still shows its own hint in every
    variant (and none is taken for a right answer).
    """

    def variant(rng) -> dict:
        for _ in range(tries):
            p = draw(rng)
            keys = [np.asarray(f(**p), dtype=float) for f in (reference, *alternatives)]
            scale = margin * (1.0 + np.linalg.norm(keys[0]))
            wrongs = [np.asarray(f(**p), dtype=float) for f in wrong]
            if all(np.linalg.norm(x - key) > scale for x in wrongs for key in keys):
                return p
        raise RuntimeError("no variant far from the typical mistakes was found")  # pragma: no cover

    return variant


def _floats(x) -> list:
    return [float(v) for v in x]


def _round(x, digits=2) -> list:
    return [float(v) for v in np.round(np.asarray(x, dtype=float), digits)]


def _vector(rng, low, high, min_norm, digits=1) -> list:
    """A random 3-vector with entries in [low, high], rounded, of norm at least ``min_norm``."""
    while True:
        v = _round(rng.uniform(low, high, 3), digits)
        if np.linalg.norm(v) >= min_norm:
            return v


# ------------------------------------------------------------------ 1.4
def _A_q(angles):
    a, b, c = angles
    return rot_z(a) @ rot_x(b) @ rot_y(c)


def _quat(angles):
    return quat_from_dcm(_A_q(angles))


def _unit_multiple(student, expected) -> bool:
    """A multiple (not +-1) of the right quaternion: right direction, not normalised."""
    s = np.asarray(student, dtype=float).reshape(-1)
    n = np.linalg.norm(s)
    return (
        abs(n - 1) > 1e-3
        and 1e-12 < n < 1e12
        and min(np.linalg.norm(s / n - expected), np.linalg.norm(s / n + expected)) < 1e-6
    )


def _quat_full_angle(angles):
    u, a = axis_angle_from_dcm(_A_q(angles))
    return np.concatenate([[np.cos(a)], np.sin(a) * u])


def _draw_q_angles(rng) -> dict:
    """Three angles (rad, 2 decimals) with e0 = cos(angle/2) >= 0.4 (the statement's formula divides by e0)
    and a turn of at least 0.5 rad (so that A and A^T are clearly different)."""
    while True:
        angles = _round(rng.uniform(-1.4, 1.4, 3))
        e = _quat(angles)
        if abs(e[0]) >= 0.4 and np.linalg.norm(e[1:]) >= 0.25:
            return {"angles": angles}


def _unit_quaternion(answer, **_) -> str | None:
    e = np.asarray(answer, dtype=float).reshape(-1)
    if e.shape == (4,) and abs(np.linalg.norm(e) - 1) > 1e-6:
        return "|e| is not 1: Euler parameters are normalised, e0^2 + e1^2 + e2^2 + e3^2 = 1"
    return None


_Q_WRONG = [
    lambda angles: np.roll(_quat(angles), -1),
    lambda angles: -np.roll(_quat(angles), -1),
    lambda angles: quat_from_dcm(_A_q(angles).T),
    lambda angles: -quat_from_dcm(_A_q(angles).T),
    _quat_full_angle,
]

register(
    Exercise(
        "1.4",
        "Euler parameters of a DCM",
        2,
        reference=_quat,
        alternatives=[lambda angles: -_quat(angles)],  # e and -e are the same rotation
        params={"angles": list(Q_ANGLES)},
        variant=_far_from_mistakes(_draw_q_angles, _quat, _Q_WRONG,
                                   alternatives=[lambda angles: -_quat(angles)]),
        sanity=_unit_quaternion,
        mistakes=[
            Mistake(
                _Q_WRONG[0],
                "the scalar part e0 goes FIRST in this course: (e0, e1, e2, e3), not (e1, e2, e3, e0)",
            ),
            Mistake(
                _Q_WRONG[1],
                "the scalar part e0 goes FIRST in this course: (e0, e1, e2, e3), not (e1, e2, e3, e0)",
            ),
            Mistake(
                _Q_WRONG[2],
                "that is the quaternion of A^T (the inverse rotation): the vector part has the wrong sign; "
                "use e1 = (A[2, 1] - A[1, 2]) / (4 e0) ...",
            ),
            Mistake(
                _Q_WRONG[3],
                "that is the quaternion of A^T (the inverse rotation): the vector part has the wrong sign; "
                "use e1 = (A[2, 1] - A[1, 2]) / (4 e0) ...",
            ),
            Mistake(
                _Q_WRONG[4],
                "Euler parameters use HALF the rotation angle: "
                "e0 = cos(angle/2), (e1, e2, e3) = sin(angle/2) u",
            ),
            Mistake.when(_unit_multiple, "right direction, but Euler parameters must be normalised: |e| = 1"),
        ],
    )
)


# ------------------------------------------------------------------ 1.5, 1.6
def _s(angles_deg, s_body):
    """s_P = A s'_P, global components."""
    return dcm_from_euler("ZYX", np.radians(np.asarray(angles_deg, dtype=float))) @ np.asarray(s_body, float)


def _draw_body(rng) -> dict:
    """The body's ZYX angles (whole degrees, pitch away from gimbal lock), omega and s'_P."""
    yaw, roll = (float(rng.choice([-1, 1]) * rng.integers(15, 171)) for _ in range(2))
    pitch = float(rng.choice([-1, 1]) * rng.integers(10, 71))
    return {"angles_deg": [yaw, pitch, roll], "omega": _vector(rng, -2.0, 2.0, 1.0),
            "s_body": _vector(rng, -0.5, 0.5, 0.25, digits=2)}


def _v_p(angles_deg, v_i, omega, s_body):
    return np.asarray(v_i, float) + skew(omega) @ _s(angles_deg, s_body)  # v_P = v_i + omega x (A s'_P)


def _v_p_sanity(answer, v_i, omega, **_) -> str | None:
    v = np.asarray(answer, dtype=float).reshape(-1)
    w = np.asarray(omega, dtype=float)
    if v.shape == (3,) and abs(np.dot(v - v_i, w)) > 1e-6 * (1 + np.linalg.norm(v) * np.linalg.norm(w)):
        return ("v_P - v_i is not perpendicular to omega: the rotation adds omega x s_P, which always is; "
                "did you add v_i?")
    return None


_V_WRONG = [
    lambda angles_deg, v_i, omega, s_body: np.asarray(v_i) + np.cross(omega, s_body),
    lambda angles_deg, v_i, omega, s_body: np.asarray(v_i) + np.cross(_s(angles_deg, s_body), omega),
    lambda angles_deg, v_i, omega, s_body: np.cross(omega, _s(angles_deg, s_body)),
]


def _draw_15(rng) -> dict:
    return {**_draw_body(rng), "v_i": _vector(rng, -0.5, 0.5, 0.2)}


register(
    Exercise(
        "1.5",
        "Velocity of a point of a spinning body",
        1,
        reference=_v_p,
        params={"angles_deg": list(A_BODY_DEG), "v_i": _floats(V_REF), "omega": _floats(OMEGA),
                "s_body": _floats(S_BODY)},
        variant=_far_from_mistakes(_draw_15, _v_p, _V_WRONG),
        sanity=_v_p_sanity,
        mistakes=[
            Mistake(
                _V_WRONG[0],
                "you used s'_P in body components; omega is global, so use the global s_P = A s'_P",
            ),
            Mistake(
                _V_WRONG[1],
                "the cross product is the wrong way round: omega x s_P, not s_P x omega",
            ),
            Mistake(
                _V_WRONG[2],
                "the velocity of the reference point is missing: the whole body also moves with v_i",
            ),
        ],
    )
)


def _a_p(angles_deg, a_i, omega, alpha, s_body, centripetal=1.0, tangential=1.0, body=False):
    """a_P = a_i + alpha x s_P + omega x (omega x s_P), with chosen mistakes (s'_P for s_P if ``body``)."""
    s = np.asarray(s_body, float) if body else _s(angles_deg, s_body)
    w = np.asarray(omega, float)
    return (np.asarray(a_i, float) + tangential * np.cross(alpha, s)
            + centripetal * np.cross(w, np.cross(w, s)))


_A_WRONG = [
    lambda **p: _a_p(**p, centripetal=0.0),
    lambda **p: _a_p(**p, body=True),
    lambda **p: _a_p(**p, centripetal=-1.0),
    lambda **p: _a_p(**p, tangential=-1.0),
]


def _draw_16(rng) -> dict:
    return {**_draw_body(rng), "a_i": _vector(rng, -0.5, 0.5, 0.2), "alpha": _vector(rng, -1.0, 1.0, 0.4)}


register(
    Exercise(
        "1.6",
        "Acceleration of a point of a spinning body",
        2,
        reference=_a_p,
        params={"angles_deg": list(A_BODY_DEG), "a_i": _floats(A_REF), "omega": _floats(OMEGA),
                "alpha": _floats(ALPHA), "s_body": _floats(S_BODY)},
        variant=_far_from_mistakes(_draw_16, _a_p, _A_WRONG),
        mistakes=[
            Mistake(_A_WRONG[0], "the centripetal term omega x (omega x s_P) is missing"),
            # (not in _A_WRONG, which variants are drawn away from: released variants stay as they were)
            Mistake(lambda **p: _a_p(**p, tangential=0.0),
                    "the tangential term is missing: the body's angular velocity changes (alpha), and that "
                    "adds alpha x s_P"),
            Mistake(
                _A_WRONG[1],
                "you used s'_P in body components; omega and alpha are global, so use s_P = A s'_P",
            ),
            Mistake(
                _A_WRONG[2],
                "the centripetal term has the wrong sign: it is + omega x (omega x s_P), which points "
                "towards the axis",
            ),
            Mistake(
                _A_WRONG[3],
                "the tangential term is the wrong way round: alpha x s_P, not s_P x alpha",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 1.7
def _pv_c2(lengths, q_deg):
    pv = partial_velocities(Chain.planar(list(lengths)), np.radians(q_deg))
    return np.column_stack([pv.global_("v_c", 1, j) for j in range(2)])


def _pv_c2_closed_form(lengths, q_deg, absolute=False, elbow=True, local=False):
    """Closed-form partial velocities of C2 with a chosen mistake (for the hints)."""
    (L1, L2), (q1, q2) = lengths, np.radians(q_deg)
    a2 = q2 if absolute else q1 + q2  # absolute angle of link 2
    r_j2 = L1 * np.array([np.cos(q1), np.sin(q1), 0.0])
    r_c2 = r_j2 + L2 / 2 * np.array([np.cos(a2), np.sin(a2), 0.0])
    # reading q2 as absolute, link 2 no longer turns with q1: d r_C2/dq1 = k x r_elbow
    col1 = np.cross(K, r_c2 if elbow and not absolute else r_j2)
    col2 = np.cross(K, r_c2 - r_j2)
    J = np.column_stack([col1, col2])
    if local:
        J = rot_z(a2).T @ J
    return J


_PV_WRONG = [
    lambda **p: _pv_c2_closed_form(**p, elbow=False),
    lambda **p: _pv_c2_closed_form(**p, local=True),
    lambda **p: _pv_c2_closed_form(**p, absolute=True),
    lambda **p: _pv_c2(**p)[:, ::-1],
]


def _draw_17(rng) -> dict:
    """Lengths (m, 2 decimals) and relative angles (whole degrees): link 2 well away from the x axis and
    from folding back onto link 1."""
    while True:
        q1 = float(rng.choice([-1, 1]) * rng.integers(15, 76))
        q2 = float(rng.choice([-1, 1]) * rng.integers(20, 136))
        if 15 <= abs(q1 + q2) <= 165:
            return {"lengths": _round(rng.uniform(0.5, 1.5, 2)), "q_deg": [q1, q2]}


def _planar_columns(answer, lengths, **_) -> str | None:
    V = np.asarray(answer, dtype=float)
    if V.shape != (3, 2):
        return None
    if np.any(np.abs(V[2]) > 1e-9):
        return "the third row (z) must be zero: the arm moves in the xy plane"
    if abs(np.linalg.norm(V[:, 1]) - lengths[1] / 2) > 1e-6 * (1 + lengths[1]):
        return ("the second column (joint 2) must have length L2/2: turning joint 2 swings C2 on a circle "
                "of radius L2/2 about the elbow")
    return None


register(
    Exercise(
        "1.7",
        "Partial velocities of a two-link planar arm",
        2,
        reference=_pv_c2,
        params={"lengths": list(ARM2_L), "q_deg": list(ARM2_Q_DEG)},
        variant=_far_from_mistakes(_draw_17, _pv_c2, _PV_WRONG),
        sanity=_planar_columns,
        mistakes=[
            Mistake(
                _PV_WRONG[0],
                "column 1 misses the elbow-to-C2 part: turning joint 1 swings the whole arm, so "
                "dv_C2/dq1_dot = k x (r_C2 - r_O), not k x (r_elbow - r_O)",
            ),
            Mistake(
                _PV_WRONG[1],
                "these are link-2 (local) components; give global ones (multiply by A_2 = Rz(q1 + q2))",
            ),
            Mistake(
                _PV_WRONG[2],
                "q2 is the RELATIVE elbow angle: link 2 points at q1 + q2 from the x axis, not q2",
            ),
            Mistake(
                _PV_WRONG[3],
                "the columns are swapped: column j is dv_C2/dq_j_dot, j = 1 first",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 1.8
def _arm3():
    return Chain.planar(ARM3_L)


def _J3(q):
    J = jacobian(_arm3(), q, link=2, point=(ARM3_L[2], 0.0, 0.0))
    return J[[0, 1, 5]]  # rows x_dot, y_dot, phi_dot (rows 0, 1 linear, 5 angular about z)


def _J3_absolute_sums(q):
    """Column j summed over the links from j to the tip (as for relative angles) but with q_k read as each
    link's ABSOLUTE angle: x_dot = -sum_k>=j L_k sin(q_k) ..."""
    L = np.asarray(ARM3_L)
    q = np.asarray(q, dtype=float)
    tail = np.tril(np.ones((3, 3)))  # tail[k, j] = 1 for k >= j
    return np.vstack([-(L * np.sin(q)) @ tail, (L * np.cos(q)) @ tail, np.ones(3)])


def _J3_absolute(q):
    """The Jacobian a student gets by reading q as ABSOLUTE link angles: x = sum L_i cos q_i."""
    L = np.asarray(ARM3_L)
    q = np.asarray(q, dtype=float)
    return np.vstack([-L * np.sin(q), L * np.cos(q), np.ones(3)])


register(
    Exercise(
        "1.8",
        "Jacobian of a three-link planar arm, as a function of q",
        3,
        reference=_J3,
        cases=ARM3_CASES,
        hidden_cases=lambda rng: [(q,) for q in rng.uniform(-np.pi, np.pi, size=(6, 3))],
        function_name="planar_jacobian",
        mistakes=[
            Mistake(
                _J3_absolute,
                "you treated q as absolute link angles; they are RELATIVE joint angles: link k points at "
                "q1 + ... + qk, so column j collects the links from j to the tip",
            ),
            Mistake(
                _J3_absolute_sums,
                "your columns sum the right links but use q_k as link k's angle: q is RELATIVE, link k "
                "points at the absolute angle q1 + ... + qk (np.cumsum(q)); use that in the sines and "
                "cosines",
            ),
            Mistake(
                lambda q: _J3(q)[:, ::-1], "the columns are in reverse order: column j is d(x, y, phi)/dq_j"
            ),
            Mistake(
                lambda q: _J3(q)[:2],
                "a row is missing: the third row gives phi_dot, the rate of the absolute angle of link 3",
            ),
            Mistake(
                lambda q: _J3(q)[[1, 0, 2]],
                "rows 1 and 2 are swapped: row 1 is x_dot, row 2 is y_dot",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 1.9
def _rod_slider():
    """A rod turning about z, with a slider along it (a revolute then a prismatic joint)."""
    c = Chain(name="rod with slider")
    c.add_link(
        "rod", Joint("pivot", "revolute", (0, 0, 1)), RigidBody(1.0, name="rod", allow_degenerate=True)
    )
    slider = RigidBody(1.0, name="slider", allow_degenerate=True)
    c.add_link("slider", Joint("slide", "prismatic", (1, 0, 0)), slider, parent=0)
    return c


def _a_slider(coriolis=2, centripetal=1):
    """Closed form in polar components, a = (rdd - r w^2) e_r + 2 w rd e_theta, with chosen mistakes."""
    e_r = sp.Matrix([sp.cos(th), sp.sin(th), 0])
    e_t = sp.Matrix([-sp.sin(th), sp.cos(th), 0])
    return (rdd - centripetal * r * w**2) * e_r + coriolis * w * rd * e_t


register(
    Exercise(
        "1.9",
        "A slider on a rotating rod: the Coriolis term",
        2,
        # constant rate: q = (theta, r), qd = (omega, rdot), qdd = (0, rddot)
        reference=lambda: point_acceleration(_rod_slider(), [th, r], [w, rd], [0, rdd], "slider"),
        mistakes=[
            Mistake(
                lambda: _a_slider(coriolis=0),
                "the Coriolis term 2 omega x v_rel is missing (v_rel = rdot along the rod)",
            ),
            Mistake(
                lambda: _a_slider(coriolis=1),
                "the Coriolis term is 2 omega x v_rel: one omega x v_rel from turning the relative "
                "velocity, one from the growing radius",
            ),
            Mistake(
                lambda: _a_slider(centripetal=0),
                "the centripetal term -r omega^2 (along the rod, towards the axis) is missing",
            ),
            Mistake(
                lambda: _a_slider(centripetal=-1),
                "the centripetal term points towards the axis: -r omega^2 along the rod",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 1.10, 1.11: a spatial chain
# The chain's data as plain arrays, row i for link i + 1 (counting from 0 in Python):
#   k[i]  unit axis of joint i + 1 in frame i + 1 (frame i + 1 turns about it relative to frame i:
#         A_{i,i+1} = Rot(k, theta), the identity at theta = 0),
#   l[i]  vector from joint i to joint i + 1 in frame-i components (l[0]: from the base origin, global),
#   d[i]  vector from joint i + 1 to the centre of mass of link i + 1, in its own frame,
#   q, qd, qdd  joint angles, rates and accelerations; the base is at rest.
ARM_K = [(0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (0.0, 1.0, 0.0)]  # waist about z, shoulder and elbow about y
ARM_L = [(0.0, 0.0, 0.3), (0.1, 0.0, 0.4), (0.5, 0.0, 0.05)]  # m
ARM_D = [(0.05, 0.0, 0.2), (0.25, 0.0, 0.0), (0.2, 0.0, 0.02)]  # m
ARM_STATES = [  # q (rad), qd (rad/s), qdd (rad/s^2)
    ((0.4, -0.6, 1.1), (0.8, -0.5, 1.2), (0.3, 0.6, -0.4)),
    ((-1.2, 0.3, -0.7), (-0.6, 1.1, 0.4), (-0.5, 0.2, 0.9)),
]


def _arrays(*xs):
    return [np.asarray(x, dtype=float) for x in xs]


def _spatial_chain(k, l, d) -> Chain:
    """The mbdlib chain of the arrays (the reference): revolute joints, frame i + 1 = frame i at q = 0."""
    chain = Chain(name="spatial chain")
    for i, (k_i, l_i, d_i) in enumerate(zip(*_arrays(k, l, d), strict=True)):
        body = RigidBody(1.0, com=d_i, name=f"link{i + 1}", allow_degenerate=True)
        chain.add_link(f"link{i + 1}", Joint(f"joint{i + 1}", "revolute", k_i, l_i), body)
    return chain


def _outward_reference(k, l, d, q, qd, qdd):
    """(omega, alpha, v_c, a_c), each (n, 3), frame-i components: mbdlib's forward_kinematics."""
    kin = forward_kinematics(_spatial_chain(k, l, d), q, qd, qdd)
    return np.array([np.array(x, dtype=float) for x in (kin.omega, kin.alpha, kin.v_c, kin.a_c)])


def _outward_written_out(k, l, d, q, qd, qdd, coriolis=1.0, transpose=False, lever_v=1.0, lever_a=1.0,
                         rotate_l=True, centripetal_joint=1.0, centripetal_com=1.0, d_first=False,
                         frame="local"):
    """The outward recursion written out here, with chosen mistakes (for the hints)."""
    k, l, d, q, qd, qdd = _arrays(k, l, d, q, qd, qdd)
    w_p, al_p, v_p, a_p, A_p = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3), np.eye(3)
    out = np.zeros((4, len(q), 3))
    for i in range(len(q)):
        A_pi = dcm_from_axis_angle(k[i], q[i])  # frame i in its parent
        R = A_pi if transpose else A_pi.T       # R^i_{i-1}: parent components -> frame i
        wr = R @ w_p
        w = wr + qd[i] * k[i]
        al = R @ al_p + coriolis * np.cross(wr, qd[i] * k[i]) + qdd[i] * k[i]
        if rotate_l:  # R (x + ...): the cross products with l_{i-1} in parent components
            v = R @ (v_p + lever_v * np.cross(w_p, l[i]))
            a = R @ (a_p + lever_a * (np.cross(al_p, l[i])
                                      + centripetal_joint * np.cross(w_p, np.cross(w_p, l[i]))))
        else:  # frames mixed: frame-i vectors crossed with the parent-frame l_{i-1}
            v = R @ v_p + np.cross(wr, l[i])
            a = R @ a_p + np.cross(R @ al_p, l[i]) + centripetal_joint * np.cross(wr, np.cross(wr, l[i]))
        v_c = v + (np.cross(d[i], w) if d_first else np.cross(w, d[i]))
        a_c = a + np.cross(al, d[i]) + centripetal_com * np.cross(w, np.cross(w, d[i]))
        A_i = A_p @ A_pi
        for m, x in enumerate((w, al, v_c, a_c)):
            out[m, i] = A_i @ x if frame == "global" else x
        w_p, al_p, v_p, a_p, A_p = w, al, v, a, A_i
    return out


def _random_chain(rng, n: int):
    """A random chain of ``n`` links: unit axes in any direction, links up to 0.6 m, and a random state."""
    k = rng.normal(size=(n, 3))
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    l = rng.uniform(-0.6, 0.6, size=(n, 3))
    d = rng.uniform(-0.3, 0.3, size=(n, 3))
    return k, l, d, rng.uniform(-np.pi, np.pi, n), rng.uniform(-2.0, 2.0, n), rng.uniform(-3.0, 3.0, n)


def _arm_case(state):
    return (np.array(ARM_K), np.array(ARM_L), np.array(ARM_D), *(np.array(x) for x in state))


def _hidden_outward(rng):
    """Chains of 2, 3, 4 and 5 links in random order, and the public arm in a random state."""
    cases = [_random_chain(rng, int(n)) for n in rng.permutation([2, 3, 4, 5])]
    state = (rng.uniform(-np.pi, np.pi, 3), rng.uniform(-2.0, 2.0, 3), rng.uniform(-3.0, 3.0, 3))
    return cases + [_arm_case(state)]


def _per_link(s, e, n_arrays):
    """Student and expected arrays as (n_arrays, n, ...) of the same shape, else None."""
    s, e = np.asarray(s), np.asarray(e)
    if s.shape != e.shape or s.ndim < 3 or s.shape[0] != n_arrays or isinstance(s, sp.MatrixBase):
        return None
    return s, e


def _close(a, b) -> bool:
    return bool(np.all(np.isfinite(a))) and bool(np.allclose(a, b, rtol=1e-6, atol=1e-9))


def _first_off(order):
    """Tests that locate the first wrong array of a result of several arrays (omega, alpha, ...).

    ``order``: the arrays' indices in the order the recursion builds them on one another. The test
    ``_first_off(order)(m)`` holds when, in every case with a mistake, the first array off in that order
    is ``m`` (a case without a mistake passes).
    """

    def test_for(m):
        def test(s, e) -> bool:
            pair = _per_link(s, e, len(order))
            if pair is None:
                return False
            s, e = pair
            wrong = [j for j in order if not _close(s[j], e[j])]
            return not wrong or wrong[0] == m

        return test

    return test_for


def _stacked_per_link(s, e) -> bool:
    """(n, 4, 3) instead of (4, n, 3): the four vectors of each link stacked together."""
    s, e = np.asarray(s), np.asarray(e)
    return s.ndim == 3 and e.ndim == 3 and s.shape == (e.shape[1], e.shape[0], 3) and _close(
        s.transpose(1, 0, 2), e)


def _not_four(s, e) -> bool:
    s, e = np.asarray(s), np.asarray(e)
    return s.ndim == 3 and e.ndim == 3 and s.shape[1:] == e.shape[1:] and s.shape[0] != e.shape[0]


_R_HINT = ("R is applied the wrong way (transposed): R = R^i_{i-1} turns parent components into frame-i "
           "components, so it is the TRANSPOSE of A_{i-1,i} = Rot(k_i, theta_i), the DCM of frame i in its "
           "parent")
_GLOBAL_HINT = ("these are global components; give each vector in the components of its own link frame i, "
                "as the recursion produces them (do not multiply by A_i)")
_LEVER_HINT = ("the parent's motion is not carried along l_{i-1}: v_i = R (v_{i-1} + omega_{i-1} x l_{i-1}), "
               "and a_i = R (a_{i-1} + alpha_{i-1} x l_{i-1} + omega_{i-1} x (omega_{i-1} x l_{i-1}))")
_MIX_HINT = ("l_{i-1} is in PARENT components: form omega_{i-1} x l_{i-1} (and alpha_{i-1} x l_{i-1} ...) "
             "before R turns the sum into frame i; (R omega_{i-1}) x l_{i-1} mixes two frames")
_first_outward = _first_off([0, 2, 1, 3])  # omega, then v_C (needs omega), alpha, a_C (needs all)

register(
    Exercise(
        "1.10",
        "Outward recursion of a spatial chain (omega, alpha, v_C, a_C)",
        3,
        reference=_outward_reference,
        cases=[_arm_case(state) for state in ARM_STATES],
        hidden_cases=_hidden_outward,
        function_name="outward_recursion",
        mistakes=[
            Mistake.when(_not_four, "return four arrays: omega, alpha, v_c, a_c (each of shape (n, 3))"),
            Mistake.when(
                _stacked_per_link,
                "your result is indexed [link, quantity]: return the tuple (omega, alpha, v_c, a_c), each "
                "an array of shape (n, 3) with one row per link",
            ),
            Mistake(lambda *c: _outward_written_out(*c, frame="global"), _GLOBAL_HINT),
            Mistake(lambda *c: _outward_written_out(*c, transpose=True), _R_HINT),
            Mistake(
                lambda *c: _outward_written_out(*c, coriolis=0.0),
                "alpha misses the term (R omega_{i-1}) x theta_dot_i k_i: the axis k_i turns with the "
                "parent link, and that adds this term to alpha_i",
            ),
            Mistake(
                lambda *c: _outward_written_out(*c, coriolis=-1.0),
                "the term (R omega_{i-1}) x theta_dot_i k_i of alpha has the wrong sign: the cross product "
                "is the wrong way round",
            ),
            Mistake(
                lambda *c: _outward_written_out(*c, centripetal_com=0.0),
                "a_C misses the centripetal term omega_i x (omega_i x d_i)",
            ),
            Mistake(
                lambda *c: _outward_written_out(*c, centripetal_com=0.0, centripetal_joint=0.0),
                "the centripetal terms are missing: omega_{i-1} x (omega_{i-1} x l_{i-1}) in a_i and "
                "omega_i x (omega_i x d_i) in a_Ci",
            ),
            Mistake(
                lambda *c: _outward_written_out(*c, centripetal_joint=0.0),
                "a_i misses the centripetal term omega_{i-1} x (omega_{i-1} x l_{i-1})",
            ),
            Mistake(lambda *c: _outward_written_out(*c, lever_v=0.0, lever_a=0.0), _LEVER_HINT),
            Mistake(lambda *c: _outward_written_out(*c, lever_v=0.0), _LEVER_HINT),
            Mistake(lambda *c: _outward_written_out(*c, lever_a=0.0), _LEVER_HINT),
            Mistake(lambda *c: _outward_written_out(*c, rotate_l=False), _MIX_HINT),
            Mistake(
                lambda *c: _outward_written_out(*c, d_first=True),
                "the cross product in v_Ci is the wrong way round: v_Ci = v_i + omega_i x d_i",
            ),
            Mistake.when(
                _first_outward(0),
                "omega (the first array) is off: omega_i = R omega_{i-1} + theta_dot_i k_i, with R the "
                "transpose of Rot(k_i, theta_i) and omega_0 = 0",
            ),
            Mistake.when(
                _first_outward(2),
                "omega is right but v_C is not: v_i = R (v_{i-1} + omega_{i-1} x l_{i-1}), "
                "v_Ci = v_i + omega_i x d_i, v_0 = 0",
            ),
            Mistake.when(
                _first_outward(1),
                "omega and v_C are right, alpha is not: alpha_i = R alpha_{i-1} + (R omega_{i-1}) x "
                "theta_dot_i k_i + theta_ddot_i k_i",
            ),
            Mistake.when(
                _first_outward(3),
                "omega, alpha and v_C are right, a_C is not: a_i = R (a_{i-1} + alpha_{i-1} x l_{i-1} + "
                "omega_{i-1} x (omega_{i-1} x l_{i-1})), "
                "a_Ci = a_i + alpha_i x d_i + omega_i x (omega_i x d_i)",
            ),
        ],
    )
)


def _partials_reference(k, l, d, q):
    """(omega_i^(j), v_Ci^(j)) as two (n, n, 3) arrays, frame-i components: mbdlib's partial_velocities."""
    pv = partial_velocities(_spatial_chain(k, l, d), q)
    return np.array([np.array(pv.omega, dtype=float), np.array(pv.v_c, dtype=float)])


def _partials_written_out(k, l, d, q, transpose=False, rotate=True, lever_l=True, lever_d=True,
                          self_term=True, frame="local"):
    """Partial velocities by the recursion written out here, with chosen mistakes (for the hints)."""
    k, l, d, q = _arrays(k, l, d, q)
    n = len(q)
    w, v, out = np.zeros((n, n, 3)), np.zeros((n, n, 3)), np.zeros((2, n, n, 3))
    A_p = np.eye(3)
    for i in range(n):
        A_pi = dcm_from_axis_angle(k[i], q[i])
        R = A_pi if transpose else A_pi.T
        R = R if rotate else np.eye(3)
        for j in range(i):  # j < i: carried from the parent; j > i: zero
            w[i, j] = R @ w[i - 1, j]
            v[i, j] = R @ (v[i - 1, j] + (np.cross(w[i - 1, j], l[i]) if lever_l else 0.0))
        w[i, i] = k[i]
        A_i = A_p @ A_pi
        for j in range(n):
            v_c = v[i, j] + (np.cross(w[i, j], d[i]) if lever_d and (self_term or j != i) else 0.0)
            out[0, i, j], out[1, i, j] = (A_i @ w[i, j], A_i @ v_c) if frame == "global" else (w[i, j], v_c)
        A_p = A_i
    return out


def _swapped_ij(s, e) -> bool:
    pair = _per_link(s, e, 2)
    return pair is not None and pair[0].ndim == 4 and _close(pair[0].transpose(0, 2, 1, 3), pair[1])


def _beyond_link(s, e) -> bool:
    """Some entry [., i, j] with j > i is not zero."""
    pair = _per_link(s, e, 2)
    if pair is None or pair[0].ndim != 4:
        return False
    n = pair[0].shape[1]
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    return bool(np.any(~np.isclose(pair[0][:, upper], 0.0, atol=1e-9)))


_first_partial = _first_off([0, 1])

register(
    Exercise(
        "1.11",
        "Partial velocities of a spatial chain",
        2,
        reference=_partials_reference,
        cases=[_arm_case(state)[:4] for state in ARM_STATES],
        hidden_cases=lambda rng: [case[:4] for case in _hidden_outward(rng)],
        function_name="partial_velocities_of",
        mistakes=[
            Mistake.when(
                lambda s, e: np.asarray(s).shape == np.asarray(e).shape[1:],
                "return two arrays: the partial angular velocities AND the partial velocities of C_i",
            ),
            Mistake.when(
                _swapped_ij,
                "your arrays are indexed [j, i]: index them [i, j], link i first, joint j second",
            ),
            Mistake.when(
                _beyond_link,
                "the entries with j > i must be zero: joint j lies beyond link i and does not move it",
            ),
            Mistake(lambda *c: _partials_written_out(*c, frame="global"), _GLOBAL_HINT),
            Mistake(lambda *c: _partials_written_out(*c, transpose=True), _R_HINT),
            Mistake(
                lambda *c: _partials_written_out(*c, rotate=False),
                "the parent's partial velocities are not turned into frame i: "
                "omega_i^(j) = R omega_{i-1}^(j) (and R (...) for v_i^(j)), with R the transpose of "
                "Rot(k_i, theta_i)",
            ),
            Mistake(
                lambda *c: _partials_written_out(*c, lever_d=False),
                "these are the partial velocities of joint i (the frame origin), not of C_i: add the lever "
                "d_i, v_Ci^(j) = v_i^(j) + omega_i^(j) x d_i",
            ),
            Mistake(
                lambda *c: _partials_written_out(*c, self_term=False),
                "v_Ci^(i) is not zero: turning joint i moves C_i with k_i x d_i (v_i^(i) is zero, v_Ci^(i) "
                "is not)",
            ),
            Mistake(
                lambda *c: _partials_written_out(*c, lever_l=False),
                "the parent's partial velocity is not carried along l_{i-1}: "
                "v_i^(j) = R (v_{i-1}^(j) + omega_{i-1}^(j) x l_{i-1})",
            ),
            Mistake.when(
                _first_partial(0),
                "the partial angular velocities (the first array) are off: omega_i^(j) = R omega_{i-1}^(j) "
                "for j < i, k_i for j = i",
            ),
            Mistake.when(
                _first_partial(1),
                "the partial angular velocities are right, the partial velocities of C_i are not: "
                "v_i^(j) = R (v_{i-1}^(j) + omega_{i-1}^(j) x l_{i-1}), "
                "v_Ci^(j) = v_i^(j) + omega_i^(j) x d_i",
            ),
        ],
    )
)


# ================================================================== practice inside the pages (0 points)
# 1.P1 (page 1.1): the extrinsic sequence "zyx", turns about FIXED z, y, x by P1_DEG
P1_DEG = (35.0, 25.0, -20.0)


def _rad(*angles_deg):
    return [float(np.radians(a)) for a in angles_deg]


register(
    Exercise(
        "1.P1",
        "DCM of the extrinsic sequence zyx",
        0,
        reference=lambda: dcm_from_euler("zyx", _rad(*P1_DEG)),
        sanity=_orthonormal,
        mistakes=[
            Mistake(
                lambda: rot_z(_rad(P1_DEG[0])[0]) @ rot_y(_rad(P1_DEG[1])[0]) @ rot_x(_rad(P1_DEG[2])[0]),
                "that is Rz Ry Rx, the intrinsic ZYX (turns about the body's axes); about FIXED axes each "
                "later turn multiplies from the left: the first turn stands rightmost",
            ),
            Mistake(
                lambda: dcm_from_euler("zyx", _rad(*P1_DEG)).T,
                "your matrix is the transpose of A: A maps body components to global ones, so its "
                "columns are the body axes in global components",
            ),
            Mistake(
                lambda: rot_x(float(P1_DEG[2])) @ rot_y(float(P1_DEG[1])) @ rot_z(float(P1_DEG[0])),
                "you used degrees: rot_x, rot_y, rot_z take radians (np.radians(35) ...)",
            ),
            Mistake(
                lambda: rot_x(_rad(P1_DEG[0])[0]) @ rot_y(_rad(P1_DEG[1])[0]) @ rot_z(_rad(P1_DEG[2])[0]),
                "each angle goes with its own axis: 35 degrees about z, 25 about y, -20 about x",
            ),
        ],
    )
)

# 1.P2 (page 1.1): Euler parameters of a quarter turn about P2_AXIS
P2_AXIS, P2_DEG = (0.0, 0.6, 0.8), 90.0


def _quarter_turn(half=True, scalar_first=True, radians=True):
    angle = np.radians(P2_DEG) if radians else P2_DEG
    a = angle / 2 if half else angle
    p = np.concatenate([[np.cos(a)], np.asarray(P2_AXIS) * np.sin(a)])
    return p if scalar_first else np.roll(p, -1)


register(
    Exercise(
        "1.P2",
        "Euler parameters of a quarter turn",
        0,
        reference=lambda: _quarter_turn(),
        alternatives=[lambda: -_quarter_turn()],  # p and -p: the same orientation
        mistakes=[
            Mistake(
                lambda: _quarter_turn(half=False),
                "use HALF the angle: p = (cos(chi/2), u sin(chi/2)); with the whole angle, p is not the "
                "turn's Euler parameters",
            ),
            Mistake(
                lambda: _quarter_turn(scalar_first=False),
                "the scalar part comes first in mbdlib: p = (e0, e1, e2, e3) with e0 = cos(chi/2) "
                "(scipy's as_quat puts it last)",
            ),
            Mistake(
                lambda: _quarter_turn(radians=False),
                "you used degrees: np.cos and np.sin take radians (np.radians(45) ...)",
            ),
        ],
    )
)

# 1.P3 (page 1.2): angular velocity (global) from the rates of the proper Euler sequence ZXZ
P3_DEG, P3_RATES = (30.0, 50.0, 10.0), (0.2, -0.1, 0.4)


def _p3_all_fixed():
    z, x = np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])
    r1, r2, r3 = P3_RATES
    return r1 * z + r2 * x + r3 * z


register(
    Exercise(
        "1.P3",
        "Angular velocity from ZXZ Euler-angle rates",
        0,
        reference=lambda: euler_rate_matrix("ZXZ", _rad(*P3_DEG)) @ np.array(P3_RATES),
        mistakes=[
            Mistake(
                lambda: euler_rate_matrix("ZXZ", _rad(*P3_DEG), frame="body") @ np.array(P3_RATES),
                "that is omega' in BODY components; the task asks for global components, omega = A omega'",
            ),
            Mistake(
                lambda: euler_rate_matrix("zxz", _rad(*P3_DEG)) @ np.array(P3_RATES),
                "you read the sequence as extrinsic (turns about fixed axes); for the intrinsic ZXZ the "
                "FIRST rate turns about the fixed Z, the third about the body's own z axis",
            ),
            Mistake(
                _p3_all_fixed,
                "only the first rate turns about a fixed axis: the second turns about x' (x carried by the "
                "first turn), the third about the body's z'' (the z axis carried by both turns)",
            ),
        ],
    )
)

# 1.P4 (page 1.4): a bead sliding out along a rod that spins at a constant rate (rod along x at this instant)
P4_OMEGA, P4_RHO, P4_RHO_DOT = 3.0, 0.5, 0.4  # rad/s, m, m/s (both rates constant)


def _bead(coriolis=2.0, centripetal=-1.0):
    return np.array([centripetal * P4_RHO * P4_OMEGA**2, coriolis * P4_RHO_DOT * P4_OMEGA, 0.0])


register(
    Exercise(
        "1.P4",
        "Acceleration of a bead on a spinning rod",
        0,
        reference=lambda: _bead(),
        mistakes=[
            Mistake(
                lambda: _bead(coriolis=1.0),
                "the Coriolis term is 2 omega x v_rel: twice Omega times rho_dot (one half comes from the "
                "growing arm, one from the turning direction of the slide)",
            ),
            Mistake(
                lambda: _bead(coriolis=0.0),
                "the bead moves in the rod, so the Coriolis term 2 omega x v_rel is not zero: it points "
                "across the rod",
            ),
            Mistake(
                lambda: _bead(centripetal=1.0),
                "the centripetal term omega x (omega x s) points at the axis (towards the pivot), not away "
                "from it",
            ),
        ],
    )
)

# 1.P5 (page 1.5): the Jacobian column of joint 2 for the tip of a planar three-link arm, from the geometry
P5_LENGTHS, P5_DEG = (1.0, 0.8, 0.5), (30.0, -45.0, 60.0)


def _p5_points():
    """Positions (global) of joints 1, 2, 3 and the tip, written out from the cumulative angles."""
    phi = np.cumsum(np.radians(P5_DEG))
    steps = [L * np.array([np.cos(p), np.sin(p), 0.0]) for L, p in zip(P5_LENGTHS, phi, strict=True)]
    return np.vstack([np.zeros(3), np.cumsum(steps, axis=0)])


def _p5_column(joint, flip=False):
    r = _p5_points()
    lever = r[3] - r[joint]
    return np.cross(lever, K) if flip else np.cross(K, lever)


def _p5_reference():
    chain = Chain.planar(list(P5_LENGTHS))
    return jacobian(chain, np.radians(P5_DEG), 2, (P5_LENGTHS[2], 0.0, 0.0))[:3, 1]


register(
    Exercise(
        "1.P5",
        "A column of the Jacobian of a planar arm",
        0,
        reference=_p5_reference,
        mistakes=[
            Mistake(
                lambda: _p5_column(0),
                "that is the column of joint 1 (the lever from the origin): for theta_2 the arm turns about "
                "joint 2, so the lever is r_tip - r_2",
            ),
            Mistake(
                lambda: _p5_column(2),
                "that is the column of joint 3: for theta_2 the lever runs from joint 2 to the tip",
            ),
            Mistake(
                lambda: _p5_column(1, flip=True),
                "the cross product is the wrong way round: k x (r_tip - r_2), so that a positive rate turns "
                "the arm counter-clockwise",
            ),
        ],
    )
)


# ================================================================== vectors in moving frames (page 1.3)
# 1.P6 (page 1.3): the angular acceleration of a wheel spinning on an axle that a turntable carries round
P6 = {"phi_deg": 120.0, "Omega": 0.5, "Omega_dot": 0.0, "s": 6.0, "s_dot": 2.0}  # deg, rad/s, rad/s^2


def _turntable_wheel() -> Chain:
    """Turntable about the vertical z, the wheel on an axle along the turntable's x (mbdlib's recursion)."""
    c = Chain(name="wheel on a turntable")
    c.add_link("turntable", Joint("table", "revolute", (0, 0, 1)), RigidBody(5.0, inertia=[1.0, 1.0, 2.0]))
    c.add_link("wheel", Joint("axle", "revolute", (1, 0, 0), (0.6, 0.0, 0.3)),
               RigidBody(1.0, inertia=[0.02, 0.01, 0.01]))
    return c


def _alpha_p6():
    kin = forward_kinematics(_turntable_wheel(), [np.radians(P6["phi_deg"]), 0.0], [P6["Omega"], P6["s"]],
                             [P6["Omega_dot"], P6["s_dot"]])
    return np.asarray(kin.alpha_global(1), dtype=float)


def _alpha_p6_written(carried=1.0, turned=True, frame="global"):
    """alpha = Omega_dot Z + s_dot x_B + Omega s Z x x_B, written out, with a chosen mistake."""
    A_B = rot_z(np.radians(P6["phi_deg"])) if turned else np.eye(3)
    x_B = A_B @ np.array([1.0, 0.0, 0.0])
    alpha = P6["Omega_dot"] * K + P6["s_dot"] * x_B + carried * P6["Omega"] * P6["s"] * np.cross(K, x_B)
    return A_B.T @ alpha if frame == "turntable" else alpha


register(
    Exercise(
        "1.P6",
        "The angular acceleration of a wheel on a turntable",
        0,
        reference=_alpha_p6,
        mistakes=[
            Mistake(
                lambda: _alpha_p6_written(carried=0.0),
                "the spin axis is carried round by the turntable: the term Omega Z x s x_B of "
                "(ch1-alpha-add) is missing (angular accelerations do not simply add)",
            ),
            Mistake(
                lambda: _alpha_p6_written(carried=-1.0),
                "the carried term has the wrong sign: it is (omega of the turntable) x (relative spin), "
                "Omega Z x s x_B, not the other way round",
            ),
            Mistake(
                lambda: _alpha_p6_written(turned=False),
                "the axle is fixed in the turntable, so at phi = 120 deg it points along the turntable's "
                "x axis turned by 120 deg about Z, not along the global x",
            ),
            Mistake(
                lambda: _alpha_p6_written(frame="turntable"),
                "those are the components in the turntable's frame B; give global components",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 1.12 a pan-tilt camera head
# Pan psi about the vertical Z (frame B), then tilt theta about B's y axis (frame C, the camera).
PAN_TILT = {"q_deg": (35.0, -20.0), "qd": (0.8, -1.5), "qdd": (0.4, 2.0)}  # deg; rad/s; rad/s^2


def _pan_tilt() -> Chain:
    c = Chain(name="pan-tilt head")
    c.add_link("pan", Joint("pan", "revolute", (0, 0, 1)), RigidBody(1.0, inertia=[0.01, 0.01, 0.01]))
    c.add_link("camera", Joint("tilt", "revolute", (0, 1, 0), (0.0, 0.0, 0.1)),
               RigidBody(0.5, inertia=[0.002, 0.003, 0.003]))
    return c


def _vec1(x):
    return np.asarray(x, dtype=float)


def _signs_1(rng):
    return rng.choice([-1.0, 1.0], size=2)


def _camera_kin(q_deg, qd, qdd):
    return forward_kinematics(_pan_tilt(), np.radians(np.asarray(q_deg, dtype=float)), _vec1(qd), _vec1(qdd))


def _omega_12(q_deg, qd, qdd):
    """omega of the camera, global components: mbdlib's recursion (the addition theorem)."""
    return np.asarray(_camera_kin(q_deg, qd, qdd).omega_global(1), dtype=float)


def _alpha_12(q_deg, qd, qdd):
    """alpha of the camera, global components: mbdlib's recursion."""
    return np.asarray(_camera_kin(q_deg, qd, qdd).alpha_global(1), dtype=float)


def _pan_tilt_written(q_deg, qd, qdd, what="omega", tilt_axis="carried", carried=1.0, frame="global"):
    """omega = psi_d Z + theta_d y_B; alpha = psi_dd Z + theta_dd y_B + psi_d Z x theta_d y_B (mistakes)."""
    (psi_, theta_), (pd, td), (pdd, tdd) = np.radians(np.asarray(q_deg, dtype=float)), _vec1(qd), _vec1(qdd)
    A_B = rot_z(psi_)
    y_B = A_B @ np.array([0.0, 1.0, 0.0]) if tilt_axis == "carried" else np.array([0.0, 1.0, 0.0])
    if what == "omega":
        out = pd * K + td * y_B
    else:
        out = pdd * K + tdd * y_B + carried * np.cross(pd * K, td * y_B)
    return (A_B @ rot_y(theta_)).T @ out if frame == "camera" else out


def _pan_tilt_variant(rng) -> dict:
    """Pan anywhere, tilt within ±60°, rates and accelerations of either sign, none near zero."""
    pan = float(rng.integers(-170, 171))
    tilt = float(rng.choice([-1, 1]) * rng.integers(5, 61))
    qd = [round(float(x), 1) for x in _signs_1(rng) * rng.uniform(0.3, 2.0, 2)]
    qdd = [round(float(x), 1) for x in _signs_1(rng) * rng.uniform(0.2, 2.5, 2)]
    return {"q_deg": [pan, tilt], "qd": qd, "qdd": qdd}


register(
    Exercise(
        "1.12",
        "A pan-tilt head: the camera's angular velocity",
        1,
        reference=_omega_12,
        params=PAN_TILT,
        variant=_pan_tilt_variant,
        mistakes=[
            Mistake(
                lambda **p: _pan_tilt_written(**p, tilt_axis="fixed"),
                "the tilt axis turns with the pan: it is the pan frame's y axis, y_B = Rz(psi) (0, 1, 0), "
                "not the global Y",
            ),
            Mistake(
                lambda **p: _pan_tilt_written(**p, frame="camera"),
                "those are the components in the camera's own frame; give global components",
            ),
        ],
    )
)

register(
    Exercise(
        "1.13",
        "A pan-tilt head: the camera's angular acceleration",
        2,
        reference=_alpha_12,
        params=PAN_TILT,
        variant=_pan_tilt_variant,
        mistakes=[
            Mistake(
                lambda **p: _pan_tilt_written(**p, what="alpha", carried=0.0),
                "the tilt axis is carried round by the pan: the term (omega of the pan) x (tilt rate), "
                "psi_dot Z x theta_dot y_B, is missing (angular accelerations do not simply add)",
            ),
            Mistake(
                lambda **p: _pan_tilt_written(**p, what="alpha", carried=-1.0),
                "the carried term has the wrong sign: it is psi_dot Z x theta_dot y_B (the frame that "
                "carries the axis first)",
            ),
            Mistake(
                lambda **p: _pan_tilt_written(**p, what="alpha", tilt_axis="fixed"),
                "the tilt axis turns with the pan: it is the pan frame's y axis y_B = Rz(psi) (0, 1, 0), "
                "and it also contributes the carried term psi_dot Z x theta_dot y_B",
            ),
            Mistake(
                lambda **p: _pan_tilt_written(**p, what="alpha", frame="camera"),
                "those are the components in the camera's own frame; give global components",
            ),
        ],
    )
)
