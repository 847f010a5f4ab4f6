"""Chapter 2 exercises: equations of motion (solutions/ch02_dynamics.ipynb).

Each exercise's expected answer comes from mbdlib's public API (Newton-Euler,
composite-rigid-body mass matrix, RNEA, Lagrange/Christoffel, forward
dynamics); the typical mistakes are written out independently, as closed
forms of the double pendulum below, with the hint for each.  The data are the
numbers printed in the exercise notebook.

=====  ======================================================  ======
id     exercise                                                points
=====  ======================================================  ======
2.1    Euler's equation: the moment on a tumbling box          1
2.2    A torque-free body: its angular acceleration            1
2.3    Mass matrix M(q) of a double pendulum (formula)         2
2.4    Gravity vector G(q) of the double pendulum (formula)    1
2.5    Joint torques of a two-link arm at a given state        2
2.6    Coriolis matrix C(q, qd) from Christoffel symbols       3
2.7    Forward dynamics: joint accelerations from torques      2
=====  ======================================================  ======

The double pendulum (2.3-2.7) is ``Chain.planar``: two uniform rods, relative
joint angles (q1 from the x axis, q2 from link 1), gravity along -y.  Its
closed forms (e.g. Spong, Hutchinson & Vidyasagar, Robot Modeling and
Control, 2006, §7.4, with I_Ci = m_i L_i² / 12 and centres at mid-length):

    M11 = m1 L1²/3 + m2 (L1² + L2²/3 + L1 L2 cos q2)
    M12 = m2 (L2²/3 + L1 L2 cos q2 / 2),     M22 = m2 L2²/3
    G   = g (m1 L1/2 cos q1 + m2 (L1 cos q1 + L2/2 cos(q1 + q2)),  m2 L2/2 cos(q1 + q2))
    C   = b [[-qd2, -(qd1 + qd2)], [qd1, 0]],     b = m2 L1 L2 sin(q2) / 2
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from ..bodies import RigidBody
from ..chain import Chain
from ..dynamics import forward_dynamics, mass_matrix
from ..lagrange import lagrange_equations
from ..newton_euler import newton_euler_body, rnea
from .core import Exercise, Mistake, register

# ------------------------------------------------------------------ data (as in the notebook)
BOX_MASS, BOX_EDGES = 6.0, (0.3, 0.2, 0.1)  # 2.1: kg; edges a, b, c along body x, y, z (m)
OMEGA_21 = np.array([1.5, -2.0, 3.0])  # rad/s, body components
ALPHA_21 = np.array([0.4, 0.0, -1.0])  # rad/s^2, body components
INERTIA_22 = np.array([[0.30, -0.02, 0.01], [-0.02, 0.45, 0.0], [0.01, 0.0, 0.60]])  # 2.2: kg m^2
OMEGA_22 = np.array([2.0, -1.0, 0.5])  # rad/s, body components
m1, m2, L1, L2, g = sp.symbols("m1 m2 L1 L2 g", positive=True)  # 2.3-2.6
q1, q2, qd1, qd2 = sp.symbols("q1 q2 qd1 qd2", real=True)
ARM = {m1: 3.0, m2: 2.0, L1: 0.8, L2: 0.6, g: 9.81}  # 2.5, 2.7: kg, m, m/s^2
Q_ARM = np.array([0.5, -0.9])  # rad
QD_ARM = np.array([1.0, 2.0])  # rad/s
QDD_ARM = np.array([0.5, -1.5])  # rad/s^2 (2.5)
TAU_ARM = np.array([10.0, 2.0])  # N m (2.7)


# ------------------------------------------------------------------ 2.1 Euler's equation
def _box():
    a, b, c = BOX_EDGES
    return RigidBody.box(BOX_MASS, a, b, c, com=(a / 2, b / 2, c / 2), name="box")  # frame at a corner


def _moment_21():
    """M_C = I_C α + ω × (I_C ω), body components (A = identity: body = global here)."""
    return newton_euler_body(_box(), np.eye(3), OMEGA_21, ALPHA_21, np.zeros(3))[1]


def _box_inertia(about_corner=False):
    """Central inertia of the box, diag(m (b² + c²)/12, ...), or about the corner O (parallel axis)."""
    a, b, c = BOX_EDGES
    I = BOX_MASS / 12 * np.diag([b**2 + c**2, a**2 + c**2, a**2 + b**2])
    if about_corner:
        s = np.array(BOX_EDGES) / 2  # O -> C
        I = I + BOX_MASS * (s @ s * np.eye(3) - np.outer(s, s))  # I_O = I_C + m (|s|² E − s sᵀ)
    return I


def _euler_moment(I, inertial=1, gyroscopic=1):
    return inertial * I @ ALPHA_21 + gyroscopic * np.cross(OMEGA_21, I @ OMEGA_21)


register(
    Exercise(
        "2.1",
        "Euler's equation: the moment on a tumbling box",
        1,
        reference=_moment_21,
        mistakes=[
            Mistake(
                lambda: _euler_moment(_box_inertia(), gyroscopic=0),
                "the gyroscopic term omega x (I omega) is missing: even at constant omega a body "
                "that does not spin about a principal axis needs a moment",
            ),
            Mistake(
                lambda: _euler_moment(_box_inertia(), gyroscopic=-1),
                "the gyroscopic term has the wrong sign: it is omega x (I omega), not (I omega) x omega",
            ),
            Mistake(
                lambda: _euler_moment(_box_inertia(about_corner=True)),
                "you used the inertia about the corner O; Euler's equation about the centre of mass "
                "needs the CENTRAL inertia I_C = diag(m (b^2 + c^2)/12, ...)",
            ),
            Mistake(
                lambda: _euler_moment(_box_inertia(), inertial=0),
                "the term I alpha is missing: the body also accelerates (alpha is not zero)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.2 torque-free body
def _alpha_22():
    """α from 0 = I α + ω × (I ω): the moment at α = 0 is ω × I ω, so α = −I⁻¹ (ω × I ω)."""
    body = RigidBody(1.0, inertia=INERTIA_22, name="free body")
    gyro = newton_euler_body(body, np.eye(3), OMEGA_22, np.zeros(3), np.zeros(3))[1]
    return np.linalg.solve(body.inertia, -gyro)


def _gyro_22():
    return np.cross(OMEGA_22, INERTIA_22 @ OMEGA_22)


register(
    Exercise(
        "2.2",
        "A torque-free body: its angular acceleration",
        1,
        reference=_alpha_22,
        mistakes=[
            Mistake(
                lambda: np.linalg.solve(INERTIA_22, _gyro_22()),
                "the sign is wrong: with no moment, I alpha = -omega x (I omega)",
            ),
            Mistake(
                lambda: -_gyro_22(),
                "that is I alpha, not alpha: solve I alpha = -omega x (I omega) for alpha "
                "(np.linalg.solve(I, ...))",
            ),
            Mistake(
                lambda: -_gyro_22() / np.diag(INERTIA_22),
                "you divided by the diagonal of I; this I has products of inertia, so solve the "
                "linear system I alpha = -omega x (I omega) (np.linalg.solve)",
            ),
            Mistake(
                lambda: np.zeros(3),
                "no moment does not mean no angular acceleration: omega keeps constant only about a "
                "principal axis; use I alpha + omega x (I omega) = 0",
            ),
        ],
    )
)


# ------------------------------------------------------------------ the double pendulum, closed forms
def _arm():
    return Chain.planar([L1, L2], [m1, m2], name="double pendulum")


@cache
def _M_23():
    return sp.ImmutableMatrix(mass_matrix(_arm(), [q1, q2]))


@cache
def _G_24():
    return sp.ImmutableMatrix(rnea(_arm(), [q1, q2], [0, 0], [0, 0], gravity=(0, -g, 0)))  # τ at rest = G(q)


THIRD, HALF = sp.Rational(1, 3), sp.Rational(1, 2)


def _M_closed(k=THIRD, coupling=1, half=HALF, absolute=False, tips=False):
    """M(q) written out, with a chosen mistake.

    k: m L²/3 about the joint (k = 1/4 drops the rods' own inertia m L²/12);
    coupling: 0 drops the cos(q2) terms; half: factor of L1 L2 cos q2 in M12;
    absolute: q2 read as link 2's absolute angle; tips: point masses at the link ends.
    """
    if tips:
        c = sp.cos(q2)
        return sp.Matrix([[(m1 + m2) * L1**2 + m2 * L2**2 + 2 * m2 * L1 * L2 * c, m2 * (L2**2 + L1 * L2 * c)],
                          [m2 * (L2**2 + L1 * L2 * c), m2 * L2**2]])
    if absolute:
        c12 = m2 * L1 * L2 / 2 * sp.cos(q2 - q1)
        return sp.Matrix([[k * m1 * L1**2 + m2 * L1**2, c12], [c12, k * m2 * L2**2]])
    c = coupling * sp.cos(q2)
    M12 = m2 * (k * L2**2 + half * L1 * L2 * c)
    return sp.Matrix([[k * m1 * L1**2 + m2 * (L1**2 + k * L2**2 + L1 * L2 * c), M12], [M12, k * m2 * L2**2]])


def _G_closed(sign=1, second_mass=1, trig=sp.cos, absolute=False):
    """G(q) = ∂V/∂q written out, with a chosen mistake (sin: angles from the downward vertical)."""
    a2 = q2 if absolute else q1 + q2
    G2 = m2 * g * L2 / 2 * trig(a2)
    G1 = g * (m1 * L1 / 2 + second_mass * m2 * L1) * trig(q1) + (0 if absolute else G2)
    return sign * sp.Matrix([G1, G2])


def _b():
    return m2 * L1 * L2 * sp.sin(q2) / 2


def _C_closed():
    b = _b()
    return sp.Matrix([[-b * qd2, -b * (qd1 + qd2)], [b * qd1, 0]])


def _h_closed():
    """Coriolis and centripetal forces C q̇ = (−b (2 qd1 qd2 + qd2²), b qd1²)."""
    b = _b()
    return sp.Matrix([-b * (2 * qd1 * qd2 + qd2**2), b * qd1**2])


# ------------------------------------------------------------------ 2.3 mass matrix
register(
    Exercise(
        "2.3",
        "Mass matrix M(q) of a double pendulum",
        2,
        reference=_M_23,
        mistakes=[
            Mistake(
                lambda: _M_closed(k=sp.Rational(1, 4)),
                "each rod's own rotational inertia m L^2/12 about its centre is missing (you treated the "
                "links as point masses at their centres): T_i = 1/2 m_i v_Ci^2 + 1/2 I_Ci omega_i^2",
            ),
            Mistake(
                lambda: _M_closed(coupling=0),
                "the cos(q2) coupling is missing: v_C2 = v_elbow + omega_2 x (C2 - elbow), and the "
                "square of that sum has the cross term L1 L2/2 cos(q2) (qd1^2 + qd1 qd2)",
            ),
            Mistake(
                lambda: _M_closed(absolute=True),
                "you used ABSOLUTE angles (q2 from the x axis); here q2 is the RELATIVE elbow angle, "
                "so link 2 turns at qd1 + qd2",
            ),
            Mistake(
                lambda: _M_closed(half=1),
                "M12 has the whole L1 L2 cos(q2) coupling term; it gets half of it (M11 gets all of it): "
                "M12 = m2 (L2^2/3 + L1 L2 cos(q2)/2)",
            ),
            Mistake(
                lambda: _M_closed(tips=True),
                "the links are uniform rods (centre at mid-length, I_C = m L^2/12), not point masses at "
                "their tips",
            ),
        ],
    )
)

# ------------------------------------------------------------------ 2.4 gravity vector
register(
    Exercise(
        "2.4",
        "Gravity vector G(q) of the double pendulum",
        1,
        reference=_G_24,
        mistakes=[
            Mistake(
                lambda: _G_closed(sign=-1),
                "the sign is wrong: G = dV/dq with V = m1 g y_C1 + m2 g y_C2 (y up), and it stands on "
                "the LEFT of M qdd + C qd + G = tau: holding the arm level needs tau_1 > 0",
            ),
            Mistake(
                lambda: _G_closed(second_mass=0),
                "the first entry misses m2 g L1 cos(q1): link 2 hangs on link 1, so raising q1 also "
                "lifts link 2 (its centre is at y = L1 sin q1 + L2/2 sin(q1 + q2))",
            ),
            Mistake(
                lambda: _G_closed(trig=sp.sin),
                "you measured the angles from the vertical; here q1 is measured from the horizontal x "
                "axis (gravity along -y), so the heights are L sin(q), and G has cosines",
            ),
            Mistake(
                lambda: _G_closed(absolute=True),
                "you used ABSOLUTE angles; q2 is relative, so link 2's centre is at height "
                "L1 sin q1 + L2/2 sin(q1 + q2) and G1 also gets m2 g L2/2 cos(q1 + q2)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.5 inverse dynamics, numbers
def _num(expr, q=Q_ARM, qd=QD_ARM):
    """A closed form at the arm's numbers (ARM, q, q̇) as a float array."""
    values = {**ARM, q1: q[0], q2: q[1], qd1: qd[0], qd2: qd[1]}
    return np.array(sp.Matrix(expr).subs(values).evalf(), dtype=float).squeeze()


def _arm_numbers():
    return Chain.planar([ARM[L1], ARM[L2]], [ARM[m1], ARM[m2]], name="two-link arm")


def _gravity_arm(sign=1):
    return (0.0, -sign * ARM[g], 0.0)


def _tau_25():
    return rnea(_arm_numbers(), Q_ARM, QD_ARM, QDD_ARM, gravity=_gravity_arm())


def _tau_closed(coriolis=1, gravity=1):
    """τ = M q̈ + C q̇ + G from the closed forms, with terms switched off or flipped."""
    return _num(_M_closed()) @ QDD_ARM + coriolis * _num(_h_closed()) + gravity * _num(_G_closed())


register(
    Exercise(
        "2.5",
        "Joint torques of a two-link arm at a given state",
        2,
        reference=_tau_25,
        mistakes=[
            Mistake(
                lambda: _tau_closed(gravity=-1),
                "the gravity terms have the wrong sign: gravity points along -y, and the motors must "
                "hold the arm up (G = dV/dq on the left of M qdd + C qd + G = tau)",
            ),
            Mistake(
                lambda: _tau_closed(coriolis=0),
                "the Coriolis and centripetal terms C(q, qd) qd are missing: your answer is the torque "
                "at qd = 0",
            ),
            Mistake(
                lambda: _tau_closed(gravity=0),
                "gravity is missing: add G(q) (the arm moves in a vertical plane, g = 9.81 m/s^2 "
                "along -y)",
            ),
            Mistake(
                lambda: _tau_25()[::-1],
                "the joints are in reverse order: tau[0] is the torque of joint 1 (the shoulder)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.6 Coriolis matrix
@cache
def _C_26():
    return sp.ImmutableMatrix(lagrange_equations(_arm(), gravity=(0, -g, 0), simplify=True).C)


_SKEW_SYMBOLS = (q1, q2, qd1, qd2, m1, m2, L1, L2)


def _by_name(M):
    """The formula with its symbols replaced by this module's symbols of the same name."""
    ours = {s.name: s for s in _SKEW_SYMBOLS}
    return sp.Matrix(M).xreplace({s: ours[s.name] for s in sp.Matrix(M).free_symbols if s.name in ours})


def _points(n=4, seed=26):
    rng = np.random.default_rng(seed)
    values = rng.uniform(0.2, 1.3, (n, len(_SKEW_SYMBOLS)))
    return [dict(zip(_SKEW_SYMBOLS, row, strict=True)) for row in values]


def _at(M, point):
    return np.array(M.xreplace(point).evalf(), dtype=float)


def _right_h_not_skew(student, expected) -> bool:
    """C q̇ is right (same forces) but Ṁ − 2C is not skew: a valid-looking C, not the Christoffel one."""
    C = _by_name(student)
    if C.shape != (2, 2) or C.free_symbols - set(_SKEW_SYMBOLS):
        return False
    qd = sp.Matrix([qd1, qd2])
    M = _M_closed()
    N = sum((M.diff(q) * v for q, v in ((q1, qd1), (q2, qd2))), sp.zeros(2, 2)) - 2 * C   # Ṁ − 2C
    same_h = all(np.allclose(_at(C @ qd, p), _at(_h_closed(), p)) for p in _points())
    skew = all(np.allclose(_at(N + N.T, p), 0) for p in _points())
    return same_h and not skew


def _Mdot_half():
    """Ṁ / 2 (Ṁ − 2C = 0 is trivially skew, but its C q̇ is not the Coriolis force)."""
    b = _b()
    return sp.Matrix([[-b * qd2, -b * qd2 / 2], [-b * qd2 / 2, 0]])


register(
    Exercise(
        "2.6",
        "Coriolis matrix C(q, qd) from Christoffel symbols",
        3,
        reference=_C_26,
        mistakes=[
            Mistake(
                lambda: 2 * _C_closed(),
                "your C is twice the Christoffel one: c_ijk = 1/2 (dM_kj/dq_i + dM_ki/dq_j - dM_ij/dq_k) "
                "has a factor 1/2",
            ),
            Mistake(
                lambda: _C_closed().T,
                "your C is transposed: C_kj = sum_i c_ijk qd_i, row k is the equation of joint k",
            ),
            Mistake.when(
                _right_h_not_skew,
                "C qd gives the right forces, but Mdot - 2C is not skew-symmetric: C is not unique, "
                "build it from the Christoffel symbols c_ijk = 1/2 (dM_kj/dq_i + dM_ki/dq_j - dM_ij/dq_k)",
            ),
            Mistake(
                _Mdot_half,
                "C = Mdot/2 makes Mdot - 2C skew (zero), but C qd must also be the Coriolis and "
                "centripetal forces; use the Christoffel symbols",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.7 forward dynamics
def _qdd_27():
    return forward_dynamics(_arm_numbers(), Q_ARM, QD_ARM, TAU_ARM, gravity=_gravity_arm())


def _qdd_closed(rhs):
    return np.linalg.solve(_num(_M_closed()), rhs)


def _h_num(coriolis=1, gravity=1):
    """The bias forces h = C q̇ + G at the state of 2.7, from the closed forms."""
    return coriolis * _num(_h_closed()) + gravity * _num(_G_closed())


register(
    Exercise(
        "2.7",
        "Forward dynamics: joint accelerations from torques",
        2,
        reference=_qdd_27,
        mistakes=[
            Mistake(
                lambda: _qdd_closed(TAU_ARM),
                "you solved M qdd = tau: the bias forces h = C qd + G are missing, M qdd = tau - h",
            ),
            Mistake(
                lambda: _qdd_closed(TAU_ARM + _h_num()),
                "h has the wrong sign: M qdd + h = tau, so M qdd = tau - h",
            ),
            Mistake(
                lambda: _qdd_closed(TAU_ARM - _h_num(coriolis=0)),
                "the velocity terms C(q, qd) qd are missing from h (the arm is moving: qd is not zero)",
            ),
            Mistake(
                lambda: TAU_ARM - _h_num(),
                "that is M qdd, not qdd: solve the linear system M qdd = tau - h (np.linalg.solve)",
            ),
        ],
    )
)
