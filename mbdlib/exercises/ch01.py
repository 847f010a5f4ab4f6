"""Chapter 1 exercises: rigid-body kinematics (solutions/ch01_kinematics.ipynb).

Each exercise's expected answer comes from mbdlib's public API; the typical
mistakes are written out independently (closed forms) with the hint for each.
The data below are the numbers printed in the exercise notebook.

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
=====  ======================================================  ======
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..bodies import RigidBody
from ..chain import Chain, Joint
from ..kinematics import jacobian, partial_velocities, point_acceleration
from ..rotations import (
    axis_angle_from_dcm,
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
                "you multiplied in the reverse order (Rx Ry Rz, an extrinsic xyz sequence): for the "
                "intrinsic ZYX sequence each new rotation multiplies on the right: A = Rz(psi) Ry(theta) "
                "Rx(phi)",
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
                "for ZYX det E' = -cos(theta): where is it zero?",
            ),
            Mistake(lambda: np.pi, "at theta = pi, det E' = -cos(pi) = 1: the rates are still fine there"),
        ],
    )
)


# ------------------------------------------------------------------ 1.4
def _A_q():
    return rot_z(Q_ANGLES[0]) @ rot_x(Q_ANGLES[1]) @ rot_y(Q_ANGLES[2])


def _unit_multiple(student, expected) -> bool:
    """A multiple (not +-1) of the right quaternion: right direction, not normalised."""
    s = np.asarray(student, dtype=float).reshape(-1)
    n = np.linalg.norm(s)
    return (
        abs(n - 1) > 1e-3
        and 1e-12 < n < 1e12
        and min(np.linalg.norm(s / n - expected), np.linalg.norm(s / n + expected)) < 1e-6
    )


def _quat_full_angle():
    u, a = axis_angle_from_dcm(_A_q())
    return np.concatenate([[np.cos(a)], np.sin(a) * u])


register(
    Exercise(
        "1.4",
        "Euler parameters of a DCM",
        2,
        reference=lambda: quat_from_dcm(_A_q()),
        alternatives=[lambda: -quat_from_dcm(_A_q())],  # e and -e are the same rotation
        mistakes=[
            Mistake(
                lambda: np.roll(quat_from_dcm(_A_q()), -1),
                "the scalar part e0 goes FIRST in this course: (e0, e1, e2, e3), not (e1, e2, e3, e0)",
            ),
            Mistake(
                lambda: -np.roll(quat_from_dcm(_A_q()), -1),
                "the scalar part e0 goes FIRST in this course: (e0, e1, e2, e3), not (e1, e2, e3, e0)",
            ),
            Mistake(
                lambda: quat_from_dcm(_A_q().T),
                "that is the quaternion of A^T (the inverse rotation): the vector part has the wrong sign; "
                "use e1 = (A[2, 1] - A[1, 2]) / (4 e0) ...",
            ),
            Mistake(
                lambda: -quat_from_dcm(_A_q().T),
                "that is the quaternion of A^T (the inverse rotation): the vector part has the wrong sign; "
                "use e1 = (A[2, 1] - A[1, 2]) / (4 e0) ...",
            ),
            Mistake(
                _quat_full_angle,
                "Euler parameters use HALF the rotation angle: "
                "e0 = cos(angle/2), (e1, e2, e3) = sin(angle/2) u",
            ),
            Mistake.when(_unit_multiple, "right direction, but Euler parameters must be normalised: |e| = 1"),
        ],
    )
)


# ------------------------------------------------------------------ 1.5, 1.6
def _A_body():
    return dcm_from_euler("ZYX", np.radians(A_BODY_DEG))


def _s():
    return _A_body() @ S_BODY  # s_P = A s'_P, global components


register(
    Exercise(
        "1.5",
        "Velocity of a point of a spinning body",
        1,
        reference=lambda: V_REF + skew(OMEGA) @ _s(),  # v_P = v_i + omega x (A s'_P)
        mistakes=[
            Mistake(
                lambda: V_REF + np.cross(OMEGA, S_BODY),
                "you used s'_P in body components; omega is global, so use the global s_P = A s'_P",
            ),
            Mistake(
                lambda: V_REF + np.cross(_s(), OMEGA),
                "the cross product is the wrong way round: v_P = v_i + omega x s_P (not s_P x omega)",
            ),
            Mistake(
                lambda: np.cross(OMEGA, _s()),
                "add the velocity of the reference point: v_P = v_i + omega x s_P",
            ),
        ],
    )
)

register(
    Exercise(
        "1.6",
        "Acceleration of a point of a spinning body",
        2,
        # a_P = a_i + alpha x s_P + omega x (omega x s_P)
        reference=lambda: A_REF + skew(ALPHA) @ _s() + skew(OMEGA) @ skew(OMEGA) @ _s(),
        mistakes=[
            Mistake(
                lambda: A_REF + np.cross(ALPHA, _s()),
                "the centripetal term omega x (omega x s_P) is missing",
            ),
            Mistake(
                lambda: A_REF + np.cross(ALPHA, S_BODY) + np.cross(OMEGA, np.cross(OMEGA, S_BODY)),
                "you used s'_P in body components; omega and alpha are global, so use s_P = A s'_P",
            ),
            Mistake(
                lambda: A_REF + np.cross(ALPHA, _s()) - np.cross(OMEGA, np.cross(OMEGA, _s())),
                "the centripetal term has the wrong sign: it is + omega x (omega x s_P), which points "
                "towards the axis",
            ),
            Mistake(
                lambda: A_REF + np.cross(_s(), ALPHA) + np.cross(OMEGA, np.cross(OMEGA, _s())),
                "the tangential term is the wrong way round: alpha x s_P, not s_P x alpha",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 1.7
def _arm2():
    return Chain.planar(ARM2_L)


def _pv_c2():
    q = np.radians(ARM2_Q_DEG)
    pv = partial_velocities(_arm2(), q)
    return np.column_stack([pv.global_("v_c", 1, j) for j in range(2)])


def _pv_c2_closed_form(absolute=False, elbow=True, local=False):
    """Closed-form partial velocities of C2 with a chosen mistake (for the hints)."""
    (L1, L2), (q1, q2) = ARM2_L, np.radians(ARM2_Q_DEG)
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


register(
    Exercise(
        "1.7",
        "Partial velocities of a two-link planar arm",
        2,
        reference=_pv_c2,
        mistakes=[
            Mistake(
                lambda: _pv_c2_closed_form(elbow=False),
                "column 1 misses the elbow-to-C2 part: turning joint 1 swings the whole arm, so "
                "dv_C2/dq1_dot = k x (r_C2 - r_O), not k x (r_elbow - r_O)",
            ),
            Mistake(
                lambda: _pv_c2_closed_form(local=True),
                "these are link-2 (local) components; give global ones (multiply by A_2 = Rz(q1 + q2))",
            ),
            Mistake(
                lambda: _pv_c2_closed_form(absolute=True),
                "q2 is the RELATIVE elbow angle: link 2 points at q1 + q2 from the x axis, not q2",
            ),
            Mistake(
                lambda: _pv_c2()[:, ::-1],
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
                lambda q: _J3(q)[:, ::-1], "the columns are in reverse order: column j is d(x, y, phi)/dq_j"
            ),
            Mistake(
                lambda q: _J3(q)[:2],
                "a row is missing: the third row is phi_dot = q1_dot + q2_dot + q3_dot (all ones)",
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
