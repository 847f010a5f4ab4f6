"""Chapter 2 exercises: equations of motion (solutions/ch02_dynamics.ipynb).

Each exercise's expected answer comes from mbdlib's public API (Newton-Euler,
composite-rigid-body mass matrix, RNEA, Lagrange/Christoffel, forward
dynamics) or from a closed form; the typical mistakes are written out
independently, as closed forms, with the hint for each.  The public data
(``params``) are the numbers printed in the exercise notebook; value exercises
with numeric data draw each student's own numbers (``variant``) for graded work.

======  ======================================================  ======  ================
id      exercise                                                points  variants
======  ======================================================  ======  ================
2.1     Euler's equation: the moment on a tumbling box          1       own numbers
2.2     A torque-free body: its angular acceleration            1       own numbers
2.3     Mass matrix M(q) of a double pendulum (formula)         2       same for all
2.4     Gravity vector G(q) of the double pendulum (formula)    1       same for all
2.5     Joint torques of a two-link arm at a given state        2       own numbers
2.6     Coriolis matrix C(q, qd) from Christoffel symbols       3       same for all
2.7     Forward dynamics: joint accelerations from torques      2       own numbers
2.8     One step of the RNEA's inward pass (a function)         3       hidden cases
2.9a    Cart-pendulum on a spring: its mass matrix M(q)         2       own numbers
2.9b    Cart-pendulum: the gravity and spring vector G(q)       1       own numbers
2.9c    Cart-pendulum: the accelerations from a push            2       own numbers
2.10    A satellite with a solar panel: principal moments       2       own numbers
2.11    A door closer: its generalized force on the door        2       own numbers
2.12a   A hovercraft in body-frame speeds: q_dot = W u          1       own numbers
2.12b   A hovercraft in body-frame speeds: u_dot                2       own numbers
======  ======================================================  ======  ================

Practice inside the chapter's pages (0 points, never released or graded; one set of numbers, the page's):

======  ======================================================  ==========================
id      exercise                                                page
======  ======================================================  ==========================
2.P1    The bearing moment of the tilted box, spun about x      2.2 one rigid body
2.P2    How fast a tossed phone starts to flip                  2.2 one rigid body
2.P3    The double pendulum's accelerations at release          2.4 Lagrange's equations
2.P4    Partial velocities of the second rod's centre           2.5 Kane's equations
2.P5    Mdot - 2C of the double pendulum at one state           2.8 the structure of M, C, G
2.P6    Gravity torques of the UR5 stretched out                2.9 the RNEA
2.P7    Principal moments of the bracket with a bolt            2.1 mass distribution
2.P8    The generalized forces of a tip force, J^T F            2.3 loads
2.P9    The mass matrix in absolute angular speeds              2.6 generalized speeds
2.P10   The pin force of a swinging rod at the bottom           2.7 constraint forces
======  ======================================================  ==========================

The double pendulum (2.3-2.7) is ``Chain.planar``: two uniform rods, relative
joint angles (q1 from the x axis, q2 from link 1), gravity along -y.  Its
closed forms (e.g. Spong, Hutchinson & Vidyasagar, Robot Modeling and
Control, 2006, §7.4, with I_Ci = m_i L_i² / 12 and centres at mid-length):

    M11 = m1 L1²/3 + m2 (L1² + L2²/3 + L1 L2 cos q2)
    M12 = m2 (L2²/3 + L1 L2 cos q2 / 2),     M22 = m2 L2²/3
    G   = g (m1 L1/2 cos q1 + m2 (L1 cos q1 + L2/2 cos(q1 + q2)),  m2 L2/2 cos(q1 + q2))
    C   = b [[-qd2, -(qd1 + qd2)], [qd1, 0]],     b = m2 L1 L2 sin(q2) / 2

One step of the inward pass (2.8), for link i with one child c, every vector in
frame-i components except the child's f_c, n_c (child components), R turning
frame-i components into the child's (the chapter's eq. ch2-rnea, gravity as the
applied load m g at C):

    F = m (a_C - g),   N = I_C α + ω × (I_C ω)
    f_i = F + Rᵀ f_c,  n_i = N + d × F + Rᵀ n_c + l × (Rᵀ f_c),  τ_i = n_i · k

The cart-pendulum (2.9): a cart (mass m_c) on a horizontal rail, held by a
spring k (relaxed at x = 0), carries a pendulum (mass m_p, centre of mass at d
from the pivot, central moment of inertia J_C) hinged at the cart; θ from the
downward vertical, gravity along -y, the push F on the cart.  With q = (x, θ)

    M = [[m_c + m_p, m_p d cos θ], [m_p d cos θ, J_C + m_p d²]]
    h = (-m_p d sin θ θ̇², 0),   G = (k x, m_p g d sin θ),   M q̈ = (F, 0) - h - G
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from ..bodies import RigidBody, combine, parallel_axis, principal_axes
from ..chain import Chain, Joint
from ..dae import accelerations
from ..dynamics import bias_forces, forward_dynamics, mass_matrix
from ..kane import auxiliary_reactions
from ..kinematics import forward_kinematics, partial_velocities, point_position, point_velocity
from ..lagrange import lagrange_equations
from ..loads import generalized_forces, resultant, spring_damper
from ..newton_euler import newton_euler_body, rnea
from ..planar import PlanarModel
from ..rotations import dcm_from_euler, dcm_from_quat, rot_x, rot_y, rot_z
from ..urdf import data_path, load_urdf
from .core import Exercise, Mistake, register

G_ACC = 9.81  # m/s^2, gravity along -y (2.5, 2.7, 2.9)

# ------------------------------------------------------------------ data (as in the notebook)
BOX_21 = {"mass": 6.0, "edges": [0.3, 0.2, 0.1],  # 2.1: kg; edges a, b, c along body x, y, z (m)
          "omega": [1.5, -2.0, 3.0], "alpha": [0.4, 0.0, -1.0]}  # rad/s, rad/s^2, body components
FREE_22 = {"inertia": [[0.30, -0.02, 0.01], [-0.02, 0.45, 0.0], [0.01, 0.0, 0.60]],  # 2.2: kg m^2
           "omega": [2.0, -1.0, 0.5]}  # rad/s, body components
m1, m2, L1, L2, g = sp.symbols("m1 m2 L1 L2 g", positive=True)  # 2.3-2.6
q1, q2, qd1, qd2 = sp.symbols("q1 q2 qd1 qd2", real=True)
# 2.5, 2.7: the double pendulum as a two-link arm: kg, m, rad, rad/s, rad/s^2 (2.5), N m (2.7)
ARM_25 = {"masses": [3.0, 2.0], "lengths": [0.8, 0.6], "q": [0.5, -0.9], "qd": [1.0, 2.0],
          "qdd": [0.5, -1.5]}
ARM_27 = {"masses": [3.0, 2.0], "lengths": [0.8, 0.6], "q": [0.5, -0.9], "qd": [1.0, 2.0],
          "tau": [10.0, 2.0]}
CART_29 = {"m_c": 2.0, "m_p": 0.8, "d": 0.4, "J_C": 0.03, "k": 60.0,  # 2.9: kg, kg, m, kg m^2, N/m
           "q": [0.15, 0.6], "qd": [-0.4, 2.5], "F": 5.0}  # (m, rad), (m/s, rad/s), N


def _vec(x):
    return np.asarray(x, dtype=float)


def _signs(rng, n):
    return rng.choice([-1.0, 1.0], size=n)


# ------------------------------------------------------------------ 2.1 Euler's equation
def _box(mass, edges):
    a, b, c = (float(e) for e in edges)
    return RigidBody.box(float(mass), a, b, c, com=(a / 2, b / 2, c / 2), name="box")  # frame at a corner


def _moment_21(mass, edges, omega, alpha):
    """M_C = I_C α + ω × (I_C ω), body components (A = identity: body = global here)."""
    return newton_euler_body(_box(mass, edges), np.eye(3), _vec(omega), _vec(alpha), np.zeros(3))[1]


def _box_inertia(mass, edges, about_corner=False):
    """Central inertia of the box, diag(m (b² + c²)/12, ...), or about the corner O (parallel axis)."""
    a, b, c = (float(e) for e in edges)
    I = mass / 12 * np.diag([b**2 + c**2, a**2 + c**2, a**2 + b**2])
    if about_corner:
        s = _vec(edges) / 2  # O -> C
        I = I + mass * (s @ s * np.eye(3) - np.outer(s, s))  # I_O = I_C + m (|s|² E − s sᵀ)
    return I


def _euler_moment(mass, edges, omega, alpha, corner=False, inertial=1, gyroscopic=1):
    I, omega, alpha = _box_inertia(mass, edges, corner), _vec(omega), _vec(alpha)
    return inertial * I @ alpha + gyroscopic * np.cross(omega, I @ omega)


def _box_variant(rng) -> dict:
    """Three different edges (0.1-0.5 m), a turn with every component non-zero, a non-zero alpha."""
    edges = rng.choice(np.arange(2, 11) * 0.05, size=3, replace=False)
    omega = _signs(rng, 3) * rng.uniform(0.5, 3.0, 3)
    alpha = _signs(rng, 3) * rng.uniform(0.2, 1.5, 3) * (rng.random(3) < 0.8)
    alpha[rng.integers(3)] = rng.choice([-1.0, 1.0]) * rng.uniform(0.3, 1.5)  # alpha is never zero
    return {"mass": round(float(rng.uniform(2.0, 10.0)), 1), "edges": [round(float(e), 2) for e in edges],
            "omega": [round(float(w), 1) for w in omega], "alpha": [round(float(a), 1) for a in alpha]}


register(
    Exercise(
        "2.1",
        "Euler's equation: the moment on a tumbling box",
        1,
        reference=_moment_21,
        params=BOX_21,
        variant=_box_variant,
        mistakes=[
            Mistake(
                lambda **p: _euler_moment(**p, gyroscopic=0),
                "the gyroscopic term omega x (I omega) is missing: even at constant omega a body "
                "that does not spin about a principal axis needs a moment",
            ),
            Mistake(
                lambda **p: _euler_moment(**p, gyroscopic=-1),
                "the gyroscopic term has the wrong sign: it is omega x (I omega), not (I omega) x omega",
            ),
            Mistake(
                lambda **p: _euler_moment(**p, corner=True),
                "you used the inertia about the corner O; Euler's equation about the centre of mass "
                "needs the CENTRAL inertia I_C = diag(m (b^2 + c^2)/12, ...)",
            ),
            Mistake(
                lambda **p: _euler_moment(**p, inertial=0),
                "the term I alpha is missing: the body also accelerates (alpha is not zero)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.2 torque-free body
def _alpha_22(inertia, omega):
    """α from 0 = I α + ω × (I ω): the moment at α = 0 is ω × I ω, so α = −I⁻¹ (ω × I ω)."""
    body = RigidBody(1.0, inertia=_vec(inertia), name="free body")
    gyro = newton_euler_body(body, np.eye(3), _vec(omega), np.zeros(3), np.zeros(3))[1]
    return np.linalg.solve(body.inertia, -gyro)


def _gyro_22(inertia, omega):
    I, w = _vec(inertia), _vec(omega)
    return np.cross(w, I @ w)


def _free_variant(rng) -> dict:
    """Three different principal-like moments (0.2-0.8 kg m², a possible body), small products, any turn."""
    while True:
        I = np.diag(rng.choice(np.arange(4, 17) * 0.05, size=3, replace=False))
        products = _signs(rng, 3) * rng.integers(1, 4, 3) / 100  # 0.01-0.03 kg m^2
        I[0, 1] = I[1, 0] = products[0]
        I[0, 2] = I[2, 0] = products[1]
        I[1, 2] = I[2, 1] = products[2]
        lam = np.linalg.eigvalsh(I)
        if lam[0] + lam[1] > lam[2] + 0.02:  # a possible body: I1 + I2 > I3, with a margin
            break
    omega = _signs(rng, 3) * rng.uniform(0.5, 2.5, 3)
    return {"inertia": np.round(I, 2).tolist(), "omega": [round(float(w), 1) for w in omega]}


def _conserved(answer, inertia, omega, **_) -> str | None:
    """With no moment T and |H| stay constant: omega . (I alpha) = 0 and (I omega) . (I alpha) = 0."""
    alpha, I, w = np.asarray(answer, dtype=float).reshape(-1), _vec(inertia), _vec(omega)
    if alpha.shape != (3,):
        return None
    scale = 1e-6 * (1 + np.linalg.norm(I @ w) * np.linalg.norm(I @ alpha))
    if abs(w @ (I @ alpha)) > scale:
        return ("with no moment the kinetic energy T = omega . (I omega)/2 must stay constant, but your "
                "alpha gives dT/dt = omega . (I alpha) != 0")
    if abs((I @ w) @ (I @ alpha)) > scale:
        return ("with no moment the angular momentum H = I omega keeps its length (it is constant in space), "
                "but your alpha gives d|H|^2/dt = 2 (I omega) . (I alpha) != 0")
    return None


register(
    Exercise(
        "2.2",
        "A torque-free body: its angular acceleration",
        1,
        reference=_alpha_22,
        params=FREE_22,
        variant=_free_variant,
        sanity=_conserved,
        mistakes=[
            Mistake(
                lambda inertia, omega: np.linalg.solve(_vec(inertia), _gyro_22(inertia, omega)),
                "the sign is wrong: with no moment, I alpha = -omega x (I omega)",
            ),
            Mistake(
                lambda inertia, omega: -_gyro_22(inertia, omega),
                "that is I alpha, not alpha: solve I alpha = -omega x (I omega) for alpha "
                "(np.linalg.solve(I, ...))",
            ),
            Mistake(
                lambda inertia, omega: -_gyro_22(inertia, omega) / np.diag(_vec(inertia)),
                "you divided by the diagonal of I; this I has products of inertia, so solve the "
                "linear system I alpha = -omega x (I omega) (np.linalg.solve)",
            ),
            Mistake(
                lambda inertia, omega: np.zeros(3),
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
                "square of that sum has a cross term in cos(q2)",
            ),
            Mistake(
                lambda: _M_closed(absolute=True),
                "you used ABSOLUTE angles (q2 from the x axis); here q2 is the RELATIVE elbow angle, "
                "so link 2 turns at qd1 + qd2",
            ),
            Mistake(
                lambda: _M_closed(half=1),
                "M12 has the whole L1 L2 cos(q2) coupling term; it gets half of it (M11 gets all of it): "
                "the cross term of T is shared by M12 and M21",
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
                "the sign is wrong: G is the gradient of the potential energy (which grows with height, "
                "y up), and it stands on the LEFT of M qdd + C qd + G = tau: holding the arm level needs "
                "tau_1 > 0",
            ),
            Mistake(
                lambda: _G_closed(second_mass=0),
                "the first entry misses a part of link 2's weight: link 2 hangs on link 1, so raising q1 "
                "also lifts link 2's centre, elbow included (its height is L1 sin q1 + L2/2 sin(q1 + q2))",
            ),
            Mistake(
                lambda: _G_closed(trig=sp.sin),
                "you measured the angles from the vertical; here q1 is measured from the horizontal x "
                "axis (gravity along -y), so the heights are L sin(q), and G has cosines",
            ),
            Mistake(
                lambda: _G_closed(absolute=True),
                "you used ABSOLUTE angles; q2 is relative, so link 2's centre is at height "
                "L1 sin q1 + L2/2 sin(q1 + q2), and its weight also enters G1 (raising q1 turns link 2 too)",
            ),
        ],
    )
)




# ------------------------------------------------------------------ 2.5 inverse dynamics, numbers
@cache
def _closed(name):
    """The closed form ``name`` (M, h, G) as a numeric function of (masses, lengths, g, q, qd)."""
    expr = {"M": _M_closed(), "h": _h_closed(), "G": _G_closed()}[name]
    return sp.lambdify((m1, m2, L1, L2, g, q1, q2, qd1, qd2), expr, "numpy")


def _num(name, masses, lengths, q, qd=(0.0, 0.0)):
    """A closed form at the arm's numbers as a float array."""
    return np.array(_closed(name)(*masses, *lengths, G_ACC, *q, *qd), dtype=float).squeeze()


def _arm_numbers(masses, lengths):
    return Chain.planar([float(x) for x in lengths], [float(x) for x in masses], name="two-link arm")


def _gravity_arm():
    return (0.0, -G_ACC, 0.0)


def _tau_25(masses, lengths, q, qd, qdd):
    return rnea(_arm_numbers(masses, lengths), _vec(q), _vec(qd), _vec(qdd), gravity=_gravity_arm())


def _tau_closed(masses, lengths, q, qd, qdd, coriolis=1, gravity=1):
    """τ = M q̈ + C q̇ + G from the closed forms, with terms switched off or flipped."""
    M, h, G = (_num(x, masses, lengths, q, qd) for x in ("M", "h", "G"))
    return M @ _vec(qdd) + coriolis * h + gravity * G


def _arm_variant(rng, last: str) -> dict:
    """A two-link arm and a state away from the special ones: sin q2, cos q1, cos(q1 + q2) not small."""
    while True:
        a, b = rng.uniform(-np.pi, np.pi), rng.choice([-1.0, 1.0]) * rng.uniform(0.3, 2.6)
        if abs(np.cos(a)) > 0.2 and abs(np.cos(a + b)) > 0.2:
            break
    p = {"masses": [round(float(m), 1) for m in rng.uniform(1.0, 5.0, 2)],
         "lengths": [round(float(L), 2) for L in rng.uniform(0.3, 1.0, 2)],
         "q": [round(float(a), 2), round(float(b), 2)],
         "qd": [round(float(v), 1) for v in _signs(rng, 2) * rng.uniform(0.5, 3.0, 2)]}
    if last == "qdd":
        p["qdd"] = [round(float(v), 1) for v in _signs(rng, 2) * rng.uniform(0.2, 3.0, 2)]
    else:
        p["tau"] = [round(float(v), 1) for v in _signs(rng, 2) * rng.uniform([2.0, 0.5], [20.0, 8.0])]
    return p


register(
    Exercise(
        "2.5",
        "Joint torques of a two-link arm at a given state",
        2,
        reference=_tau_25,
        params=ARM_25,
        variant=lambda rng: _arm_variant(rng, "qdd"),
        mistakes=[
            Mistake(
                lambda **p: _tau_closed(**p, gravity=-1),
                "the gravity terms have the wrong sign: gravity points along -y, and the motors must "
                "hold the arm up (G = dV/dq on the left of M qdd + C qd + G = tau)",
            ),
            Mistake(
                lambda **p: _tau_closed(**p, coriolis=0),
                "the Coriolis and centripetal terms C(q, qd) qd are missing: your answer is the torque "
                "at qd = 0",
            ),
            Mistake(
                lambda **p: _tau_closed(**p, gravity=0),
                "gravity is missing: add G(q) (the arm moves in a vertical plane, g = 9.81 m/s^2 "
                "along -y)",
            ),
            Mistake(
                lambda **p: _tau_25(**p)[::-1],
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
                "taking C as Mdot/2 makes Mdot - 2C skew (zero), but C qd must also be the Coriolis and "
                "centripetal forces; use the Christoffel symbols",
            ),
        ],
    )
)




# ------------------------------------------------------------------ 2.7 forward dynamics
def _qdd_27(masses, lengths, q, qd, tau):
    return forward_dynamics(_arm_numbers(masses, lengths), _vec(q), _vec(qd), _vec(tau),
                            gravity=_gravity_arm())


def _qdd_closed(masses, lengths, q, qd, tau, coriolis=1, gravity=1, solve=True):
    """q̈ from M q̈ = τ − (coriolis C q̇ + gravity G), closed forms; without ``solve``, M q̈ itself."""
    M, h, G = (_num(x, masses, lengths, q, qd) for x in ("M", "h", "G"))
    rhs = _vec(tau) - coriolis * h - gravity * G
    return np.linalg.solve(M, rhs) if solve else rhs


register(
    Exercise(
        "2.7",
        "Forward dynamics: joint accelerations from torques",
        2,
        reference=_qdd_27,
        params=ARM_27,
        variant=lambda rng: _arm_variant(rng, "tau"),
        mistakes=[
            Mistake(
                lambda **p: _qdd_closed(**p, coriolis=0, gravity=0),
                "you solved M qdd = tau: the bias forces h = C qd + G are missing, M qdd = tau - h",
            ),
            Mistake(
                lambda **p: _qdd_closed(**p, coriolis=-1, gravity=-1),
                "h has the wrong sign: M qdd + h = tau, so M qdd = tau - h",
            ),
            Mistake(
                lambda **p: _qdd_closed(**p, coriolis=0),
                "the velocity terms C(q, qd) qd are missing from h (the arm is moving: qd is not zero)",
            ),
            Mistake(
                lambda **p: _qdd_closed(**p, solve=False),
                "that is M qdd, not qdd: solve the linear system M qdd = tau - h (np.linalg.solve)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.8 one step of the inward pass
def _step(m, I_C, omega, alpha, a_C, d, l, R, f_c, n_c, g, k, back="RT", child=1.0, lever=True,
          gyro=1.0, weight=1.0, about="joint"):
    """f_i, n_i, τ_i of one inward step (the chapter's eq. ch2-rnea), with a chosen mistake.

    back: how the child's load is brought into frame i ("RT" right, "R" transposed, "none");
    child: its sign; lever: l × (Rᵀ f_c) kept; gyro: factor of ω × (I ω); weight: the factor of g in
    m (a_C − weight g); about: "joint" (right), "C" (moment about the centre of mass), "noF" (d × F missing).
    """
    I_C, omega, alpha, a_C, d, l, R, f_c, n_c, g, k = (
        _vec(x) for x in (I_C, omega, alpha, a_C, d, l, R, f_c, n_c, g, k))
    F = float(m) * (a_C - weight * g)                      # what the link needs besides its weight
    N = I_C @ alpha + gyro * np.cross(omega, I_C @ omega)  # Euler's equation about C
    E = {"RT": R.T, "R": R, "none": np.eye(3)}[back]
    f_back, n_back = child * E @ f_c, child * E @ n_c      # the child's load, frame i
    f = F + f_back
    if about == "joint":
        n = N + np.cross(d, F) + n_back + (np.cross(l, f_back) if lever else 0.0)
    elif about == "C":
        n = N + n_back + np.cross(l - d, f_back)
    else:
        n = N + n_back + np.cross(l, f_back)
    return np.concatenate([f, n, [n @ k]])


def _inward_reference(m, I_C, omega, alpha, a_C, d, l, R, f_c, n_c, g, k):
    """The step through mbdlib: Newton-Euler of the link (``newton_euler_body``) plus the child's load."""
    body = RigidBody(float(m), com=_vec(d), inertia=_vec(I_C), name="link i", allow_degenerate=True)
    g = _vec(g)
    F, N = newton_euler_body(body, np.eye(3), _vec(omega), _vec(alpha), _vec(a_C) - g)  # frame i = "global"
    f_back, n_back = _vec(R).T @ _vec(f_c), _vec(R).T @ _vec(n_c)
    f = F + f_back
    n = N + np.cross(_vec(d), F) + n_back + np.cross(_vec(l), f_back)
    return np.concatenate([f, n, [n @ _vec(k)]])


def _link_28():
    """The public link: the forearm of a spatial arm, its child joint turned by rot_x(pi/2) rot_z(0.8)."""
    return (2.0,
            np.array([[0.03, 0.0, 0.0], [0.0, 0.06, 0.01], [0.0, 0.01, 0.05]]),  # I_C, kg m^2
            np.array([0.5, -1.0, 2.0]), np.array([1.0, 0.5, -0.5]),  # omega (rad/s), alpha (rad/s^2)
            np.array([0.3, -1.2, 0.8]),                                # a_C (m/s^2)
            np.array([0.25, 0.0, 0.05]), np.array([0.5, 0.0, 0.0]),    # d, l (m)
            (rot_x(np.pi / 2) @ rot_z(0.8)).T,                         # R: frame i -> child
            np.array([1.5, -4.0, 2.0]), np.array([0.3, 0.1, -0.6]),    # f_c (N), n_c (N m), child comps
            np.array([2.94, -9.36, 0.0]), np.array([0.0, 0.0, 1.0]))   # g (m/s^2), k


def _tip_28():
    """The public tip link: no child (f_c = n_c = 0)."""
    return (0.8, np.diag([0.001, 0.004, 0.004]), np.array([-0.6, 0.2, 1.5]), np.array([0.0, -2.0, 0.7]),
            np.array([-0.4, 0.9, 0.1]), np.array([0.15, 0.0, 0.0]), np.array([0.3, 0.0, 0.0]),
            np.eye(3), np.zeros(3), np.zeros(3), np.array([0.0, -6.94, -6.93]), np.array([0.0, 1.0, 0.0]))


CASES_28 = [_link_28(), _tip_28()]


def _random_rotation(rng):
    e = rng.normal(size=4)
    return dcm_from_quat(e / np.linalg.norm(e))


def _random_link(rng, tip=False):
    """A random link (a box turned in its frame) in a random state, a random child's load and joint."""
    Q = _random_rotation(rng)
    m = float(rng.uniform(0.5, 5.0))
    a, b, c = rng.uniform(0.05, 0.6, 3)
    I_C = Q @ np.diag(m / 12 * np.array([b**2 + c**2, a**2 + c**2, a**2 + b**2])) @ Q.T
    k = rng.normal(size=3)
    gdir = rng.normal(size=3)
    return (m, I_C, *(rng.uniform(-3.0, 3.0, (3, 3))), rng.uniform(-0.5, 0.5, 3), rng.uniform(-1.0, 1.0, 3),
            _random_rotation(rng), *((np.zeros(3), np.zeros(3)) if tip else rng.uniform(-20.0, 20.0, (2, 3))),
            G_ACC * gdir / np.linalg.norm(gdir), k / np.linalg.norm(k))


def _hidden_28(rng) -> list[tuple]:
    """Five random links with a child and one tip link; every link and state new."""
    return [_random_link(rng) for _ in range(5)] + [_random_link(rng, tip=True)]


register(
    Exercise(
        "2.8",
        "One step of the RNEA's inward pass",
        3,
        reference=_inward_reference,
        cases=CASES_28,
        hidden_cases=_hidden_28,
        function_name="inward_step",
        mistakes=[
            Mistake(
                lambda *c: _step(*c, back="none"),
                "the child's force and moment are in the CHILD's frame components: bring them into frame "
                "i with R^T (R turns frame-i components into the child's) before adding them",
            ),
            Mistake(
                lambda *c: _step(*c, back="R"),
                "the rotation is transposed: R turns frame-i components into the child's, so the child's "
                "force comes back into frame i as R^T f_c, not R f_c",
            ),
            Mistake(
                lambda *c: _step(*c, child=-1.0),
                "the child's load has the wrong sign: f_c, n_c are what link i exerts ON the child, so "
                "link i feels -f_c, -n_c and its parent must supply + R^T f_c (and + R^T n_c)",
            ),
            Mistake(
                lambda *c: _step(*c, lever=False),
                "the moment of the child's force about joint i is missing: the child's joint is at l from "
                "joint i, so n_i also gets l x (R^T f_c)",
            ),
            Mistake(
                lambda *c: _step(*c, gyro=0.0),
                "the gyroscopic term omega x (I_C omega) of Euler's equation is missing from N",
            ),
            Mistake(
                lambda *c: _step(*c, weight=-1.0),
                "gravity has the wrong sign: the parent carries the weight, so the force the link needs "
                "is m (a_C - g), with g the gravitational acceleration (pointing down)",
            ),
            Mistake(
                lambda *c: _step(*c, weight=0.0),
                "the weight is missing: besides m a_C the parent must carry m g, so use m (a_C - g)",
            ),
            Mistake(
                lambda *c: _step(*c, about="C"),
                "your n_i is the moment about the centre of mass C; it is about joint i (the origin of "
                "frame i): measure the levers from the joint (d to C, l to the child's joint)",
            ),
            Mistake(
                lambda *c: _step(*c, about="noF"),
                "the moment about joint i of the link's own force is missing: m (a_C - g) acts at C, at d "
                "from the joint, so n_i also gets d x m (a_C - g)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.9 a cart-pendulum on a spring
def _cart_chain(m_c, m_p, d, J_C):
    """Cart on a rail along x (prismatic), pendulum hinged to it (revolute about z), hanging down at 0."""
    chain = Chain(name="cart-pendulum")
    chain.add_link("cart", Joint("rail", "prismatic", (1, 0, 0)),
                   RigidBody(float(m_c), name="cart", allow_degenerate=True))
    body = RigidBody(float(m_p), com=(float(d), 0.0, 0.0), inertia=(0.0, float(J_C), float(J_C)),
                     name="pendulum", allow_degenerate=True)  # only J_C (about z) matters in the plane
    chain.add_link("pendulum", Joint("pivot", "revolute", (0, 0, 1), rotation=rot_z(-np.pi / 2)), body)
    return chain


def _spring(k, q):
    return {"cart": ((-float(k) * float(q[0]), 0.0, 0.0), (0.0, 0.0, 0.0))}  # -k x on the cart, at its centre


def _M_29(m_c, m_p, d, J_C, q, **_):
    return mass_matrix(_cart_chain(m_c, m_p, d, J_C), _vec(q))


def _G_29(m_c, m_p, d, J_C, k, q, **_):
    """Gravity and spring: the joint forces that hold the cart-pendulum still at q (RNEA at rest)."""
    return bias_forces(_cart_chain(m_c, m_p, d, J_C), _vec(q), np.zeros(2), gravity=_gravity_arm(),
                       f_ext=_spring(k, q))


def _qdd_29(m_c, m_p, d, J_C, k, q, qd, F, **_):
    return forward_dynamics(_cart_chain(m_c, m_p, d, J_C), _vec(q), _vec(qd), np.array([float(F), 0.0]),
                            gravity=_gravity_arm(), f_ext=_spring(k, q))


def _M_cart(m_c, m_p, d, J_C, q, J22="J_C + m d^2", coupling=1.0, trig=np.cos, cart=1.0, **_):
    """The closed form of M, with a chosen mistake (J22: what stands in M[1, 1])."""
    th = float(q[1])
    M12 = coupling * m_p * d * trig(th)
    M22 = {"J_C + m d^2": J_C + m_p * d**2, "J_C": J_C, "m d^2": m_p * d**2,
           "J_C + 2 m d^2": J_C + 2 * m_p * d**2}[J22]
    return np.array([[m_c + cart * m_p, M12], [M12, M22]])


def _G_cart(m_p, d, k, q, spring=1.0, gravity=1.0, trig=np.sin, **_):
    x, th = (float(v) for v in q)
    return np.array([spring * k * x, gravity * m_p * G_ACC * d * trig(th)])


def _qdd_cart(m_c, m_p, d, J_C, k, q, qd, F, centripetal=1.0, gravity=1.0, on="cart", solve="M", **_):
    """q̈ from M q̈ = Q − h − G in closed form, with a chosen mistake."""
    M = _M_cart(m_c, m_p, d, J_C, q)
    h = centripetal * np.array([-m_p * d * np.sin(q[1]) * qd[1] ** 2, 0.0])
    Q = np.array([F, 0.0]) if on == "cart" else np.array([0.0, F])
    rhs = Q - h - gravity * _G_cart(m_p, d, k, q)
    if solve == "none":
        return rhs
    if solve == "diagonal":
        return rhs / np.diag(M)
    return np.linalg.solve(M, rhs)


def _cart_variant(rng) -> dict:
    """A cart-pendulum and a state: J_C well apart from m_p d^2, theta away from 0 and from 45 degrees."""
    m_p, d = round(float(rng.uniform(0.3, 1.5)), 2), round(float(rng.uniform(0.2, 0.6)), 2)
    J_C = round(float(m_p * (rng.uniform(0.3, 0.7) * d) ** 2), 4)  # radius of gyration 0.3 d - 0.7 d
    theta = rng.choice([-1.0, 1.0]) * (rng.uniform(0.3, 0.6) if rng.random() < 0.5 else rng.uniform(1.0, 1.4))
    return {"m_c": round(float(rng.uniform(1.0, 4.0)), 1), "m_p": m_p, "d": d, "J_C": J_C,
            "k": float(round(rng.uniform(20.0, 150.0))),
            "q": [round(float(rng.choice([-1.0, 1.0]) * rng.uniform(0.05, 0.3)), 2), round(float(theta), 2)],
            "qd": [round(float(rng.choice([-1.0, 1.0]) * rng.uniform(0.2, 1.5)), 1),
                   round(float(rng.choice([-1.0, 1.0]) * rng.uniform(1.0, 4.0)), 1)],
            "F": round(float(rng.choice([-1.0, 1.0]) * rng.uniform(2.0, 15.0)), 1)}


def _mass_matrix_sane(answer, **_) -> str | None:
    M = np.asarray(answer, dtype=float)
    if M.shape != (2, 2):
        return None
    if not np.allclose(M, M.T, rtol=1e-9, atol=1e-12):
        return "a mass matrix is symmetric (M[0, 1] = M[1, 0]); yours is not"
    if np.linalg.eigvalsh(M)[0] <= 0:
        return "a mass matrix is positive definite (T > 0 in every motion); yours is not"
    return None


register(
    Exercise(
        "2.9a",
        "Cart-pendulum on a spring: its mass matrix M(q)",
        2,
        reference=_M_29,
        params=CART_29,
        variant=_cart_variant,
        sanity=_mass_matrix_sane,
        mistakes=[
            Mistake(
                lambda **p: _M_cart(**p, J22="J_C"),
                "M[1, 1] is the inertia about the centre of mass C, but the pendulum turns about the "
                "pivot O: J_O = J_C + m_p d^2 (parallel-axis theorem)",
            ),
            Mistake(
                lambda **p: _M_cart(**p, J22="J_C + 2 m d^2"),
                "M[1, 1] counts m_p d^2 twice: in T = 1/2 m_p v_C.v_C + 1/2 J omega^2 the J is the CENTRAL "
                "J_C (the v_C term already brings m_p d^2)",
            ),
            Mistake(
                lambda **p: _M_cart(**p, J22="m d^2"),
                "M[1, 1] misses the pendulum's own inertia J_C: it is a body, not a point mass at C",
            ),
            Mistake(
                lambda **p: _M_cart(**p, coupling=0.0),
                "the coupling M[0, 1] = M[1, 0] is missing: the pendulum's centre moves with the cart AND "
                "swings, so v_C.v_C has a cross term in x_dot theta_dot",
            ),
            Mistake(
                lambda **p: _M_cart(**p, coupling=-1.0),
                "the coupling has the wrong sign: theta turns counterclockwise from hanging down (theta > 0 "
                "swings C towards +x)",
            ),
            *(Mistake(
                lambda _s=sign, **p: _M_cart(**p, trig=np.sin, coupling=_s),
                "the coupling has sin(theta) where cos(theta) belongs: theta is measured from the downward "
                "vertical (the centre is at (x + d sin(theta), -d cos(theta)))",
            ) for sign in (1.0, -1.0)),  # (-sin: theta read from the horizontal)
            Mistake(
                lambda **p: _M_cart(**p, cart=0.0),
                "M[0, 0] misses the pendulum's mass: the whole pendulum moves with the cart",
            ),
        ],
    )
)

register(
    Exercise(
        "2.9b",
        "Cart-pendulum: the gravity and spring vector G(q)",
        1,
        reference=_G_29,
        params=CART_29,
        variant=_cart_variant,
        mistakes=[
            Mistake(
                lambda **p: _G_cart(**p, spring=-1.0),
                "the spring's entry has the wrong sign: G = +dV/dq with V = k x^2/2 (the spring's force "
                "moved to the left of M qdd + h + G = Q)",
            ),
            Mistake(
                lambda **p: _G_cart(**p, gravity=-1.0),
                "the weight's entry has the wrong sign: G = +dV/dq, and the centre's height is "
                "-d cos(theta) (the weight pulls the pendulum back down)",
            ),
            Mistake(
                lambda **p: -_G_cart(**p),
                "the sign is wrong everywhere: G = +dV/dq stands on the LEFT of M qdd + h + G = Q",
            ),
            Mistake(
                lambda **p: _G_cart(**p, trig=np.cos),
                "theta is measured from the downward vertical: the centre's height is -d cos(theta); "
                "differentiate that",
            ),
            Mistake(
                lambda **p: _G_cart(**p, spring=0.0),
                "the spring is missing: V also has the spring's energy k x^2/2",
            ),
            Mistake(
                lambda **p: _G_cart(**p, gravity=0.0),
                "the weight is missing: V also has the pendulum's potential energy (its centre rises as "
                "it swings)",
            ),
        ],
    )
)

register(
    Exercise(
        "2.9c",
        "Cart-pendulum: the accelerations from a push",
        2,
        reference=_qdd_29,
        params=CART_29,
        variant=_cart_variant,
        mistakes=[
            Mistake(
                lambda **p: _qdd_cart(**p, centripetal=0.0),
                "the velocity term h is missing: the swinging pendulum pulls on the cart (the cart's "
                "momentum holds a theta_dot term whose coefficient changes as theta turns)",
            ),
            Mistake(
                lambda **p: _qdd_cart(**p, centripetal=-1.0),
                "the velocity term h has the wrong sign: it stands on the left of M qdd + h + G = Q",
            ),
            Mistake(
                lambda **p: _qdd_cart(**p, gravity=0.0),
                "the gravity and spring vector G of (b) is missing: M qdd = Q - h - G",
            ),
            Mistake(
                lambda **p: _qdd_cart(**p, gravity=-1.0),
                "G has the wrong sign: it stands on the left of M qdd + h + G = Q, so M qdd = Q - h - G",
            ),
            Mistake(
                lambda **p: _qdd_cart(**p, on="pivot"),
                "the push acts on the cart: its generalized force is Q = (F, 0) (F does work only through "
                "x), not (0, F)",
            ),
            Mistake(
                lambda **p: _qdd_cart(**p, solve="none"),
                "that is M qdd, not qdd: solve the linear system M qdd = Q - h - G (np.linalg.solve)",
            ),
            Mistake(
                lambda **p: _qdd_cart(**p, solve="diagonal"),
                "you divided by the diagonal of M: the coupling M[0, 1] links the two equations, so solve "
                "the linear system M qdd = Q - h - G",
            ),
        ],
    )
)



# ================================================================== practice inside the pages
# Short exercises right after a worked example of the chapter's pages (2.P1 ...): 0 points, the page's own
# numbers, a hint for each typical mistake. The expected answers come from mbdlib's public API; the mistakes
# are written out as closed forms.

# ------------------------------------------------------------------ 2.P1 the tilted box, spun about x
BOX_P1 = {"mass": 0.5, "edges": (0.05, 0.15, 0.25), "zyx_deg": (20.0, 30.0, 10.0), "omega": (6.0, 0.0, 0.0)}


def _box_p1():
    return RigidBody.box(BOX_P1["mass"], *BOX_P1["edges"], name="box")


def _A_p1():
    return dcm_from_euler("ZYX", np.radians(BOX_P1["zyx_deg"]))


def _moment_p1():
    """M = I α + ω × (I ω) with α = 0, a_C = 0, global components (newton_euler_body)."""
    zero = np.zeros(3)
    return newton_euler_body(_box_p1(), _A_p1(), _vec(BOX_P1["omega"]), zero, zero)[1]


def _moment_p1_wrong(inertia="A I' A^T", sign=1.0):
    I_body, A, w = _box_p1().inertia, _A_p1(), _vec(BOX_P1["omega"])
    I = {"A I' A^T": A @ I_body @ A.T, "I'": I_body, "A^T I' A": A.T @ I_body @ A}[inertia]
    return sign * np.cross(w, I @ w)


register(
    Exercise(
        "2.P1",
        "The bearing moment of the tilted box, spun about x",
        0,
        reference=_moment_p1,
        mistakes=[
            Mistake(
                lambda: _moment_p1_wrong(inertia="I'"),
                "your moment is zero: you used the body-frame inertia I' as if it were in global "
                "components. The box is tilted: in global components its inertia is A I' A^T",
            ),
            Mistake(
                lambda: _moment_p1_wrong(inertia="A^T I' A"),
                "the rotation is the wrong way round: A maps body components to global ones, so the "
                "inertia in global components is A I' A^T, not A^T I' A",
            ),
            Mistake(
                lambda: _moment_p1_wrong(sign=-1.0),
                "the sign is wrong: the moment the bearings supply is omega x (I omega), "
                "not (I omega) x omega",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.P2 a tossed phone
PHONE_P2 = {"mass": 0.2, "edges": (0.075, 0.15, 0.008), "Omega": 10.0}  # kg; m along x', y', z'; rad/s


def _phone_moments():
    return np.diag(RigidBody.box(PHONE_P2["mass"], *PHONE_P2["edges"], name="phone").inertia)


def _rate_about(axis, squared=False, omega=True):
    """(ch2-intermediate) with body axis ``axis`` as the spin axis: sqrt(|λ²|), or λ² itself."""
    I = _phone_moments()
    i, j = (k for k in range(3) if k != axis)
    lam2 = (I[i] - I[axis]) * (I[axis] - I[j]) / (I[i] * I[j]) * (PHONE_P2["Omega"] ** 2 if omega else 1.0)
    return lam2 if squared else float(np.sqrt(abs(lam2)))


def _lambda_p2():
    """The growth rate of a disturbance of a spin about the intermediate axis (the middle moment)."""
    return _rate_about(int(np.argsort(_phone_moments())[1]))


def _other_axis_hint(axis):
    I = _phone_moments()
    which = "smallest" if axis == int(np.argmin(I)) else "largest"
    name = "x'y'z'"[2 * axis: 2 * axis + 2]
    return (f"that is the rate for a spin about {name}, the axis of the {which} moment: there lambda^2 < 0, "
            "and sqrt(|lambda^2|) is the frequency of a harmless wobble. Find the axis of the MIDDLE moment")


register(
    Exercise(
        "2.P2",
        "How fast a tossed phone starts to flip",
        0,
        reference=_lambda_p2,
        mistakes=[
            *(Mistake(lambda _a=a: _rate_about(_a), _other_axis_hint(a))
              for a in range(3) if a != int(np.argsort(_phone_moments())[1])),
            Mistake(
                lambda: _rate_about(int(np.argsort(_phone_moments())[1]), squared=True),
                "that is lambda^2: the disturbance grows like exp(lambda t), so take the square root",
            ),
            Mistake(
                lambda: _rate_about(int(np.argsort(_phone_moments())[1]), omega=False),
                "Omega is missing: lambda is proportional to the spin rate (lambda^2 has the factor Omega^2)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.P3 the double pendulum released
def _pendulum_p3():
    return Chain.planar([1.0, 1.0], [1.0, 1.0], name="double pendulum")


def _qdd_p3():
    """q̈ at release from rest at q = 0: M q̈ = −G (forward_dynamics)."""
    zero = np.zeros(2)
    return forward_dynamics(_pendulum_p3(), zero, zero, zero, gravity=(0.0, -G_ACC, 0.0))


def _release_closed(how="solve", sign=-1.0):
    M = np.array([[8 / 3, 5 / 6], [5 / 6, 1 / 3]])  # M(0) of two uniform 1 kg, 1 m rods
    G = G_ACC * np.array([2.0, 0.5])               # G(0): both rods horizontal
    if how == "diagonal":
        return sign * G / np.diag(M)
    if how == "none":
        return sign * G
    return np.linalg.solve(M, sign * G)


register(
    Exercise(
        "2.P3",
        "The double pendulum's accelerations at release",
        0,
        reference=_qdd_p3,
        mistakes=[
            Mistake(
                lambda: _release_closed(sign=1.0),
                "the sign is wrong: at rest M qdd + G = 0, so qdd = -M^-1 G (both rods fall, q1 decreases)",
            ),
            Mistake(
                lambda: _release_closed(how="none"),
                "that is M qdd = -G, not qdd: solve the linear system (np.linalg.solve(M, -G))",
            ),
            Mistake(
                lambda: _release_closed(how="diagonal"),
                "you divided by the diagonal of M: the coupling M12 links the two equations, so solve "
                "the linear system M qdd = -G",
            ),
            Mistake(
                lambda: np.cumsum(_release_closed()),  # (qdd1, qdd1 + qdd2)
                "your second entry is the acceleration of rod 2's ABSOLUTE angle q1 + q2; q2 is the angle "
                "relative to rod 1, so give qdd2 itself",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.P4 partial velocities of C2
PENDULUM_P4 = {"lengths": (1.0, 0.8), "q_deg": (-40.0, 75.0)}


def _v_c2_p4():
    """Rows j = 1, 2: the partial velocity v_C2^(j), x and y components (kinematics.partial_velocities)."""
    chain = Chain.planar(list(PENDULUM_P4["lengths"]), [1.0, 1.0], name="double pendulum")
    pv = partial_velocities(chain, np.radians(PENDULUM_P4["q_deg"]))
    return np.array([pv.global_("v_c", 1, j)[:2] for j in range(2)])


def _v_c2_closed(absolute=False, perp=True, lever=0.5, elbow=True, swap=False, absolute_coords=False):
    """The rows (v_C2^(1), v_C2^(2)) written out, with a chosen mistake (absolute: q2 put for phi2 in the
    page's formulas; absolute_coords: the partial velocities of r_C2 written with q2 as rod 2's own angle)."""
    L1, L2 = PENDULUM_P4["lengths"]
    q1, q2 = np.radians(PENDULUM_P4["q_deg"])
    phi2 = q2 if absolute or absolute_coords else q1 + q2

    def e(a):
        return np.array([-np.sin(a), np.cos(a)]) if perp else np.array([np.cos(a), np.sin(a)])

    v2 = lever * L2 * e(phi2)
    v1 = (L1 * e(q1) if elbow else 0.0) + (0.0 if absolute_coords else v2)
    rows = np.array([v1, v2])
    return rows[::-1] if swap else rows


register(
    Exercise(
        "2.P4",
        "Partial velocities of the second rod's centre",
        0,
        reference=_v_c2_p4,
        mistakes=[
            Mistake(
                lambda: _v_c2_closed(elbow=False),
                "your two rows are equal: with qd1 = 1 (and qd2 = 0) the elbow moves too, so v_C2^(1) also "
                "has the elbow's velocity L1 e_perp(q1)",
            ),
            Mistake(
                lambda: _v_c2_closed(absolute=True),
                "q2 is the angle of rod 2 RELATIVE to rod 1: rod 2's direction is phi2 = q1 + q2",
            ),
            Mistake(
                lambda: _v_c2_closed(absolute_coords=True),
                "q2 is the angle of rod 2 RELATIVE to rod 1: rod 2's direction is phi2 = q1 + q2, so turning "
                "q1 turns rod 2 too",
            ),
            Mistake(
                lambda: _v_c2_closed(perp=False),
                "those are directions along the rods, e(phi); a point turning about a joint moves "
                "across the rod, along e_perp(phi) = (-sin phi, cos phi)",
            ),
            Mistake(
                lambda: _v_c2_closed(lever=1.0),
                "you used the tip of rod 2; its centre C2 is at L2/2 from the elbow",
            ),
            Mistake(
                lambda: _v_c2_closed(swap=True),
                "the rows are swapped: row 0 is v_C2^(1) (speed qd1), row 1 is v_C2^(2)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.P5 Mdot - 2C at one state
STATE_P5 = {"q": (0.3, 0.8), "qd": (1.0, 0.5)}  # rad, rad/s; two uniform 1 kg, 1 m rods


@cache
def _lagrange_p5():
    return lagrange_equations(_pendulum_p3(), gravity=(0.0, -G_ACC, 0.0))


def _skew_p5():
    """Ṁ − 2C with Ṁ = Σ_i ∂M/∂q_i q̇_i and the Christoffel C of lagrange_equations, at STATE_P5."""
    eq = _lagrange_p5()
    Mdot = sum((eq.M.diff(q) * v for q, v in zip(eq.q, eq.qd, strict=True)), sp.zeros(2, 2))
    at = dict(zip((*eq.q, *eq.qd), (*STATE_P5["q"], *STATE_P5["qd"]), strict=True))
    return np.array((Mdot - 2 * eq.C).subs(at).evalf(), dtype=float)


def _skew_closed(mdot=1.0, c=2.0, chain_rule=True, transpose=False):
    """mdot Ṁ − c C in closed form (b = m2 L1 L2 sin q2 / 2), with a chosen mistake."""
    (_, q2), (v1, v2) = STATE_P5["q"], STATE_P5["qd"]
    b = np.sin(q2) / 2
    rate = v2 if chain_rule else 1.0                       # Ṁ = ∂M/∂q2 q̇2
    Mdot = -b * rate * np.array([[2.0, 1.0], [1.0, 0.0]])
    C = b * np.array([[-v2, -(v1 + v2)], [v1, 0.0]])
    return mdot * Mdot - c * (C.T if transpose else C)


register(
    Exercise(
        "2.P5",
        "Mdot - 2C of the double pendulum at one state",
        0,
        reference=_skew_p5,
        mistakes=[
            Mistake(
                lambda: _skew_closed(transpose=True),
                "your matrix is the negative of Mdot - 2C: C is transposed (C_kj = sum_i c_ijk qd_i, row k "
                "is the equation of joint k), or you computed 2C - Mdot",
            ),
            Mistake(
                lambda: _skew_closed(c=1.0),
                "the factor 2 is missing: the matrix is Mdot - 2C",
            ),
            Mistake(
                lambda: _skew_closed(mdot=0.0),
                "Mdot is missing: it is the time derivative of M along the motion, sum_i dM/dq_i qd_i, "
                "not zero (M depends on q2)",
            ),
            Mistake(
                lambda: _skew_closed(c=0.0),
                "that is Mdot alone: subtract 2C",
            ),
            Mistake(
                lambda: _skew_closed(chain_rule=False),
                "Mdot is the TIME derivative of M: by the chain rule sum_i dM/dq_i qd_i, so dM/dq2 times qd2",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.P6 the UR5 stretched out
@cache
def _ur5():
    return load_urdf(data_path("ur5.urdf"))


def _G_ur5(gravity=(0.0, 0.0, -G_ACC)):
    zero = np.zeros(6)
    return rnea(_ur5(), zero, zero, zero, gravity=gravity)


register(
    Exercise(
        "2.P6",
        "Gravity torques of the UR5 stretched out",
        0,
        reference=_G_ur5,
        mistakes=[
            Mistake(
                lambda: np.zeros(6),
                "all zero: gravity is missing. rnea(..., gravity=(0, 0, 0)) computes the torques of a "
                "weightless arm; the UR5's base frame has z up, so gravity=(0, 0, -9.81)",
            ),
            Mistake(
                lambda: _G_ur5((0.0, 0.0, G_ACC)),
                "the sign is wrong: gravity points down, along -z of the UR5's base frame: "
                "gravity=(0, 0, -9.81)",
            ),
            Mistake(
                lambda: _G_ur5((0.0, -G_ACC, 0.0)),
                "gravity along -y is the convention of the planar chains; the UR5's base frame has z up, "
                "so gravity=(0, 0, -9.81)",
            ),
        ],
    )
)


# ================================================================== the new topic pages of chapter 2
# ------------------------------------------------------------------ 2.P7 (page 2.1) the bracket with a bolt
# the L-shaped steel bracket of page 2.1: two plates 10 mm thick, (length x, width y, centre x, y) in m
BRACKET_LEGS = ((0.4, 0.05, (0.2, 0.025)), (0.05, 0.3, (0.025, 0.2)))
BRACKET_RHO, BRACKET_T = 7800.0, 0.01
BOLT_P7 = {"mass": 0.2, "at": (0.025, 0.35, 0.0)}


def _bracket():
    parts = [(RigidBody.box(BRACKET_RHO * a * b * BRACKET_T, a, b, BRACKET_T), (*c, 0.0))
             for a, b, c in BRACKET_LEGS]
    return combine(parts, name="bracket")


def _bolted(move_bracket=True):
    """Inertia of bracket + bolt about their common centre of mass (or with the bracket's not moved)."""
    b, m = _bracket(), BOLT_P7["mass"]
    r = _vec(BOLT_P7["at"])
    c = (b.mass * b.com + m * r) / (b.mass + m)
    I = parallel_axis(b.inertia, b.mass, (b.com - c) if move_bracket else np.zeros(3))
    return I + parallel_axis(np.zeros((3, 3)), m, r - c)


def _moments_p7():
    """The principal moments, ascending, of bracket + bolt (combine, principal_axes)."""
    bolt = RigidBody(BOLT_P7["mass"], name="bolt", allow_degenerate=True)
    return principal_axes(combine([_bracket(), (bolt, BOLT_P7["at"])], name="bracket with bolt").inertia)[0]


register(
    Exercise(
        "2.P7",
        "The principal moments of the bracket with a bolt",
        0,
        reference=_moments_p7,
        mistakes=[
            Mistake(
                lambda: np.sort(np.linalg.eigvalsh(_bolted(move_bracket=False))),
                "the bolt moves the centre of mass, so the bracket's own inertia must be moved to the new "
                "centre too (parallel-axis theorem)",
            ),
            Mistake(
                lambda: principal_axes(_bracket().inertia)[0],
                "those are the bracket's own principal moments: the bolt is missing (a point mass has no "
                "inertia about its own centre, but m d^2 about the common centre of mass)",
            ),
            Mistake(
                lambda: np.sort(np.diag(_bolted())),
                "those are the diagonal entries (moments about x, y, z); the bracket has a product of "
                "inertia, so the principal moments are the eigenvalues",
            ),
            Mistake(
                lambda: np.sort(np.linalg.eigvalsh(_bolted()))[::-1],
                "the order: give the principal moments ascending, I1 <= I2 <= I3",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.10 a satellite with a solar panel
# the bus: a uniform box centred at the origin of the satellite frame; the panel: a uniform plate (box) whose
# centre is at `panel_at` and which is turned by `tilt_deg` about the satellite's y axis (its long axis)
SATELLITE_10 = {"bus_mass": 40.0, "bus_edges": (0.6, 0.5, 0.8), "panel_mass": 6.0,
                "panel_edges": (0.02, 1.2, 0.5), "panel_at": (0.0, 0.95, 0.1), "tilt_deg": 30.0}


def _satellite_parts(bus_mass, bus_edges, panel_mass, panel_edges, panel_at, tilt_deg, tilted=True):
    bus = RigidBody.box(float(bus_mass), *(float(e) for e in bus_edges), name="bus")
    panel = RigidBody.box(float(panel_mass), *(float(e) for e in panel_edges), name="panel")
    A = rot_y(np.radians(float(tilt_deg))) if tilted else np.eye(3)
    return [bus, (panel, _vec(panel_at), A)]


def _moments_10(**p):
    """The principal moments (ascending) of bus + panel about their common centre of mass."""
    return principal_axes(combine(_satellite_parts(**p), name="satellite").inertia)[0]


def _satellite_inertia(about_bus=False, tilted=True, steiner=True, **p):
    """The inertia of the satellite written out (parallel axes by hand), with a chosen mistake."""
    parts = _satellite_parts(**p, tilted=tilted)
    bus, (panel, r_p, A) = parts
    m = bus.mass + panel.mass
    c = np.zeros(3) if about_bus else panel.mass * r_p / m
    I_panel = A @ panel.inertia @ A.T
    I = parallel_axis(bus.inertia, bus.mass, -c) + (parallel_axis(I_panel, panel.mass, r_p - c) if steiner
                                                   else I_panel)
    return I


def _satellite_variant(rng) -> dict:
    """Own masses, sizes, panel position and tilt (a real, asymmetric satellite)."""
    bus_edges = [round(float(e), 2) for e in rng.uniform(0.4, 0.9, 3)]
    panel_edges = [0.02, round(float(rng.uniform(0.8, 1.6)), 2), round(float(rng.uniform(0.3, 0.6)), 2)]
    reach = bus_edges[1] / 2 + panel_edges[1] / 2 + round(float(rng.uniform(0.0, 0.1)), 2)
    return {"bus_mass": round(float(rng.uniform(25.0, 60.0)), 1), "bus_edges": bus_edges,
            "panel_mass": round(float(rng.uniform(3.0, 9.0)), 1), "panel_edges": panel_edges,
            "panel_at": [0.0, round(reach, 2), round(float(rng.uniform(-0.2, 0.2)), 2)],
            "tilt_deg": float(rng.choice([-1, 1]) * rng.integers(15, 61))}


def _ascending(answer, **_) -> str | None:
    m = np.asarray(answer, dtype=float).reshape(-1)
    if m.shape == (3,) and np.all(np.isfinite(m)):
        if np.any(np.diff(m) < 0):
            return "give the principal moments in ascending order, I1 <= I2 <= I3"
        if m[0] + m[1] < m[2] * (1 - 1e-9):
            return ("I1 + I2 < I3: no real body has such principal moments (the triangle inequality); check "
                    "the parallel-axis terms")
    return None


register(
    Exercise(
        "2.10",
        "A satellite with a solar panel: its principal moments of inertia",
        2,
        reference=_moments_10,
        params=SATELLITE_10,
        variant=_satellite_variant,
        sanity=_ascending,
        mistakes=[
            Mistake(
                lambda **p: np.linalg.eigvalsh(_satellite_inertia(tilted=False, **p)),
                "the panel is turned about y: turn its central inertia into the satellite frame first, "
                "A I' A^T with A = rot_y(tilt)",
            ),
            Mistake(
                lambda **p: np.linalg.eigvalsh(_satellite_inertia(about_bus=True, **p)),
                "that is the inertia about the bus's centre; the principal moments are taken about the "
                "centre of mass of the whole satellite (the panel moves it)",
            ),
            Mistake(
                lambda **p: np.linalg.eigvalsh(_satellite_inertia(steiner=False, **p)),
                "the panel's central inertia must also be moved to the satellite's centre of mass: add "
                "m (d.d 1 - d d^T) (parallel-axis theorem)",
            ),
            Mistake(
                lambda **p: np.sort(np.diag(_satellite_inertia(**p))),
                "those are the diagonal entries (moments about x, y, z); with products of inertia the "
                "principal moments are the eigenvalues of I_C",
            ),
            Mistake(
                lambda **p: np.linalg.eigvalsh(_satellite_inertia(**p))[::-1],
                "the order: give the principal moments ascending, I1 <= I2 <= I3",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.P8 (page 2.3) a tip force through J^T
ARM_P8 = {"lengths": (0.8, 0.6), "masses": (3.0, 2.0), "q_deg": (40.0, -70.0), "F_tip": (20.0, -10.0, 0.0)}


def _arm_p8():
    return Chain.planar(list(ARM_P8["lengths"]), masses=list(ARM_P8["masses"]), name="two-link arm")


def _Q_p8():
    """Q of the tip force: reduced to link 2's centre of mass and projected (loads.generalized_forces)."""
    arm, q = _arm_p8(), np.radians(ARM_P8["q_deg"])
    tip = (ARM_P8["lengths"][1], 0.0, 0.0)
    r_tip = point_position(arm, q, 1, tip)
    r_c2 = forward_kinematics(arm, q).r_c(1)
    return generalized_forces(arm, q, {1: resultant([(_vec(ARM_P8["F_tip"]), r_tip)], about=r_c2)})


def _Q_p8_written(point="tip", sign=1.0, joints=(0, 1)):
    """J^T F written out from the cumulative angles, with a chosen mistake."""
    (L1_, L2_), q = ARM_P8["lengths"], np.radians(ARM_P8["q_deg"])
    phi1, phi2 = q[0], q[0] + q[1]
    lever2 = L2_ if point == "tip" else L2_ / 2
    perp = lambda a: np.array([-np.sin(a), np.cos(a), 0.0])       # noqa: E731
    cols = [L1_ * perp(phi1) + lever2 * perp(phi2), lever2 * perp(phi2)]
    F = _vec(ARM_P8["F_tip"])
    return np.array([sign * F @ cols[j] if j in joints else 0.0 for j in range(2)])


register(
    Exercise(
        "2.P8",
        "The generalized forces of a tip force, J^T F",
        0,
        reference=_Q_p8,
        mistakes=[
            Mistake(
                lambda: _Q_p8_written(point="centre"),
                "that is the Jacobian of link 2's centre of mass: the force acts at the tip, so use the "
                "tip's Jacobian (point (0.6, 0, 0) of link 2)",
            ),
            Mistake(
                lambda: _Q_p8_written(sign=-1.0),
                "the sign is wrong: Q = J^T F is the power of the force per unit rate (-Q would hold the arm "
                "against it)",
            ),
            Mistake(
                lambda: _Q_p8_written(joints=(1,)),
                "the force acts on link 2, but turning joint 1 moves the tip as well: Q_1 = F . (column 1 of "
                "the Jacobian) is not zero",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.11 a door closer: a generalized force
# Seen from above: the door turns about the vertical hinge axis z at the origin, by theta from the closed
# position along +x, opening towards +y; a closer (spring-damper) runs from the anchor A on the wall (y < 0)
# to the point B of the door at b from the hinge, and pulls the door shut.
DOOR_11 = {"width": 0.9, "mass": 25.0, "anchor": (0.4, -0.05), "b": 0.3, "stiffness": 300.0,
           "damping": 40.0, "rest_length": 0.05, "theta_deg": 55.0, "theta_dot": 0.8}


def _door_chain(width, mass):
    return Chain.planar([float(width)], masses=[float(mass)], name="door")


def _Q_11(width, mass, anchor, b, stiffness, damping, rest_length, theta_deg, theta_dot):
    """The closer's generalized force on theta: force on B reduced to the door's centre, projected."""
    door, q, qd = _door_chain(width, mass), [np.radians(float(theta_deg))], [float(theta_dot)]
    B = (float(b), 0.0, 0.0)
    r_B, v_B = point_position(door, q, 0, B), point_velocity(door, q, qd, 0, B)
    A = np.array([*anchor, 0.0], dtype=float)
    F_B = spring_damper(A, r_B, np.zeros(3), v_B, stiffness, damping, rest_length)
    r_c = forward_kinematics(door, q).r_c(0)
    return float(generalized_forces(door, q, {0: resultant([(F_B, r_B)], about=r_c)})[0])


def _Q_11_written(width, mass, anchor, b, stiffness, damping, rest_length, theta_deg, theta_dot,
                  damper=1.0, stretch=True, sign=1.0, about="hinge"):
    """Q = (b e(theta) x F_B) . z written out, with a chosen mistake."""
    th = np.radians(float(theta_deg))
    e, e_perp = np.array([np.cos(th), np.sin(th)]), np.array([-np.sin(th), np.cos(th)])
    r_B, v_B = float(b) * e, float(b) * float(theta_dot) * e_perp
    d = r_B - np.asarray(anchor, dtype=float)
    length = np.hypot(*d)
    u = d / length
    tension = float(stiffness) * (length - (float(rest_length) if stretch else 0.0)) \
        + damper * float(damping) * (u @ v_B)
    F_B = -tension * u
    lever = r_B - (float(width) / 2 * e if about == "centre" else 0.0)
    return sign * float(lever[0] * F_B[1] - lever[1] * F_B[0])


def _door_variant(rng) -> dict:
    def u(lo, hi, digits=2):
        return round(float(rng.uniform(lo, hi)), digits)

    return {"width": u(0.75, 1.0), "mass": u(15.0, 40.0, 1), "anchor": [u(0.3, 0.5), u(-0.1, -0.02)],
            "b": u(0.2, 0.4), "stiffness": float(rng.integers(15, 50) * 10),
            "damping": float(rng.integers(2, 9) * 10), "rest_length": u(0.02, 0.06),
            "theta_deg": float(rng.integers(20, 91)), "theta_dot": u(0.3, 1.5, 1)}


register(
    Exercise(
        "2.11",
        "A door closer: its generalized force on the door",
        2,
        reference=_Q_11,
        params=DOOR_11,
        variant=_door_variant,
        mistakes=[
            Mistake(
                lambda **p: _Q_11_written(**p, damper=0.0),
                "the damper is missing: the closer's tension is k (l - l0) + c l_dot, and the door is "
                "opening, so l_dot is not zero",
            ),
            Mistake(
                lambda **p: _Q_11_written(**p, stretch=False),
                "the spring's force is k (l - l0): it pulls with the stretch beyond its free length, not "
                "with its whole length",
            ),
            Mistake(
                lambda **p: _Q_11_written(**p, sign=-1.0),
                "the sign is wrong: the closer pulls the door shut, so its generalized force on the opening "
                "angle is negative here (Q is the closer's power per unit theta_dot)",
            ),
            Mistake(
                lambda **p: _Q_11_written(**p, about="centre"),
                "that is the moment about the door's centre of mass; the door turns about its hinge, so Q is "
                "the moment about the hinge axis (or: F . v_C^(1) + M_C . omega^(1))",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.P9 (page 2.6) M in new speeds
# the double pendulum (1 kg, 1 m rods) in the absolute angular speeds u = (q1_dot, q1_dot + q2_dot)
Q2_P9_DEG = 60.0
W_P9 = np.array([[1.0, 0.0], [-1.0, 1.0]])      # q_dot = W u
Y_P9 = np.array([[1.0, 0.0], [1.0, 1.0]])       # u = Y q_dot


def _M_q_p9():
    return mass_matrix(_pendulum_p3(), np.array([0.0, np.radians(Q2_P9_DEG)]))


register(
    Exercise(
        "2.P9",
        "The double pendulum's mass matrix in absolute angular speeds",
        0,
        reference=lambda: W_P9.T @ _M_q_p9() @ W_P9,
        mistakes=[
            Mistake(
                lambda: Y_P9.T @ _M_q_p9() @ Y_P9,
                "that transforms with Y (u = Y q_dot); the mass matrix transforms with W, the matrix of "
                "q_dot = W u: M_u = W^T M W",
            ),
            Mistake(
                lambda: W_P9 @ _M_q_p9() @ W_P9.T,
                "the transposes are on the wrong side: M_u = W^T M W (the partial velocities for u_r are the "
                "columns of W combined)",
            ),
            Mistake(
                lambda: _M_q_p9(),
                "that is the mass matrix in the relative rates q_dot; transform it to the speeds u with "
                "M_u = W^T M W",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.12 a hovercraft in body-frame speeds
# A planar rigid body (mass m, central moment J about the vertical) with coordinates q = (x, y, theta) and the
# generalized speeds u = (u1, u2, u3): the velocity of its centre of mass in its own axes (forward, sideways)
# and its turning rate. Thrusters give a force (F1, F2) in body axes at the centre of mass and a torque T.
HOVER_12 = {"mass": 120.0, "J": 30.0, "theta_deg": 35.0, "u": (4.0, -0.6, 0.5), "force": (200.0, 80.0),
            "torque": 15.0}


def _hover_qd(theta_deg, u, transpose=False, turn=True, **_):
    """q_dot = W(q) u: (x_dot, y_dot) = A(theta) (u1, u2), theta_dot = u3 (with a chosen mistake)."""
    th = np.radians(float(theta_deg))
    A = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    u = _vec(u)
    return np.array([*((A.T if transpose else A) @ u[:2]), u[2] if turn else 0.0])


def _hover_model(mass, J, force):
    """mbdlib's Cartesian planar body with the thrust turning with it (global components of A f)."""
    model = PlanarModel(gravity=(0.0, 0.0))
    body = model.add_body("hovercraft", float(mass), float(J))
    f = _vec(force)
    model.add_force(body, lambda t, q, qd: np.array([[np.cos(q[2]), -np.sin(q[2])],
                                                     [np.sin(q[2]), np.cos(q[2])]]) @ f)
    return model


def _hover_udot(mass, J, theta_deg, u, force, torque):
    """u_dot from mbdlib's Cartesian model: q_dd from the model, then u = A^T (x_dot, y_dot) differentiated,
    u_dot = A^T a + (dA^T/dt) v = A^T a + theta_dot (u2, -u1)."""
    model = _hover_model(mass, J, force)
    model.add_torque("hovercraft", float(torque))
    th = np.radians(float(theta_deg))
    q, qd = np.array([0.0, 0.0, th]), _hover_qd(theta_deg, u)
    qdd, _ = accelerations(model.system(), 0.0, q, qd)
    A = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    u = _vec(u)
    lin = A.T @ qdd[:2] + u[2] * np.array([u[1], -u[0]])   # d/dt (A^T v) = A^T a + (dA^T/dt) v
    return np.array([*lin, qdd[2]])


def _hover_udot_written(mass, J, u, force, torque, transport=1.0, **_):
    """m (u1_dot - u2 u3) = F1, m (u2_dot + u1 u3) = F2, J u3_dot = T (with a chosen mistake)."""
    (u1, u2, u3), (F1, F2) = _vec(u), _vec(force)
    m, J = float(mass), float(J)
    return np.array([F1 / m + transport * u2 * u3, F2 / m - transport * u1 * u3, float(torque) / J])


def _hover_variant(rng) -> dict:
    def u(lo, hi, digits=1):
        return round(float(rng.uniform(lo, hi)), digits)

    return {"mass": u(80.0, 200.0, 0), "J": u(15.0, 60.0, 0), "theta_deg": float(rng.integers(-170, 171)),
            "u": [u(2.0, 6.0), u(-1.0, 1.0), rng.choice([-1, 1]) * u(0.3, 0.9)],
            "force": [u(50.0, 300.0, 0), u(-150.0, 150.0, 0)], "torque": u(-30.0, 30.0, 0)}


register(
    Exercise(
        "2.12a",
        "A hovercraft in body-frame speeds: the kinematic differential equations",
        1,
        reference=lambda **p: _hover_qd(p["theta_deg"], p["u"]),
        params=HOVER_12,
        variant=_hover_variant,
        mistakes=[
            Mistake(
                lambda **p: _hover_qd(p["theta_deg"], p["u"], transpose=True),
                "the rotation is the wrong way round: u1, u2 are body components, so the global velocity is "
                "A(theta) (u1, u2) (A maps body to global components)",
            ),
            Mistake(
                lambda **p: _hover_qd(p["theta_deg"], p["u"], turn=False),
                "theta_dot is missing: the third kinematic differential equation is theta_dot = u3",
            ),
        ],
    )
)

register(
    Exercise(
        "2.12b",
        "A hovercraft in body-frame speeds: the accelerations of the speeds",
        2,
        reference=lambda **p: _hover_udot(**p),
        params=HOVER_12,
        variant=_hover_variant,
        mistakes=[
            Mistake(
                lambda **p: _hover_udot_written(**p, transport=0.0),
                "the body axes turn: the rate of the body components of the velocity is not the "
                "acceleration; add the transport term of the turning frame (u3 times the other component)",
            ),
            Mistake(
                lambda **p: _hover_udot_written(**p, transport=-1.0),
                "the transport terms have the wrong sign: m (u1_dot - u2 u3) = F1 and "
                "m (u2_dot + u1 u3) = F2 (a = u_dot + omega x u in body axes)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 2.P10 (page 2.7) a pin force
ROD_P10 = {"mass": 1.0, "length": 1.0, "release_deg": 60.0}


def _hanging_rod():
    """A uniform rod about a pin, its x axis pointing down at theta = 0 (theta from the downward vertical)."""
    m, L = ROD_P10["mass"], ROD_P10["length"]
    down = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    rod = Chain(name="rod")
    rod.add_link("rod", Joint("pin", axis=(0, 0, 1), rotation=down),
                 RigidBody(m, com=(L / 2, 0, 0), inertia=[0, m * L**2 / 12, m * L**2 / 12],
                           allow_degenerate=True))
    return rod


def _pin_p10():
    """The pin's force on the rod at the bottom, by auxiliary speeds (kane.auxiliary_reactions); the swing
    speed there from the energy, theta_dot^2 = 3 g (1 - cos theta0) / L."""
    w = np.sqrt(3 * G_ACC * (1 - np.cos(np.radians(ROD_P10["release_deg"]))) / ROD_P10["length"])
    return auxiliary_reactions(_hanging_rod(), [0.0], [w], [0.0], gravity=(0, -G_ACC, 0)).force_global[0, :2]


def _pin_written(centripetal=1.0, lever=0.5, point_mass=False, sign=1.0):
    m, L, c0 = ROD_P10["mass"], ROD_P10["length"], np.cos(np.radians(ROD_P10["release_deg"]))
    if point_mass:                                  # a bob at L: w^2 = 2 g (1 - cos) / L, pull m g + m L w^2
        return np.array([0.0, sign * m * G_ACC * (3 - 2 * c0)])
    w2 = 3 * G_ACC * (1 - c0) / L
    return np.array([0.0, sign * (m * G_ACC + centripetal * m * lever * L * w2)])


register(
    Exercise(
        "2.P10",
        "The pin force of a swinging rod at the bottom",
        0,
        reference=_pin_p10,
        mistakes=[
            Mistake(
                lambda: _pin_written(centripetal=0.0),
                "that is the weight alone: at the bottom the rod is moving, and the pin must also supply "
                "the centripetal force of its centre, m (L/2) theta_dot^2",
            ),
            Mistake(
                lambda: _pin_written(point_mass=True),
                "that is the force for a point mass at the end of a massless rod; a uniform rod has its "
                "centre at L/2 and turns about the pin with m L^2 / 3",
            ),
            Mistake(
                lambda: _pin_written(lever=1.0),
                "the centre of mass is at L/2 from the pin: its centripetal acceleration is "
                "(L/2) theta_dot^2",
            ),
            Mistake(
                lambda: _pin_written(sign=-1.0),
                "the sign: that is the force of the rod on the pin; the pin pulls the rod up",
            ),
        ],
    )
)
