"""Chapter 2 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: the rate of change of angular momentum, integrated with scipy and
differentiated by finite differences (Euler's equations, 2.1-2.2); the box's inertia by exact
sympy integration; and Lagrange's equations of the double pendulum derived here from
positions written as complex numbers, differentiated in time by sympy (2.3-2.7).  The wrong
answers are built in this file, from those derivations, not taken from the registry.
"""

import math
from functools import cache

import numpy as np
import pytest
import sympy as sp
from exercise_helpers import Exploding, assert_correct, assert_hint, assert_never_crashes_never_correct
from scipy.integrate import solve_ivp

from mbdlib.exercises import exercises, get


def test_chapter_2_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(2)
    assert len(exs) >= 6
    assert [e.id for e in exs] == [f"2.{i}" for i in range(1, len(exs) + 1)]
    for e in exs:
        assert e.points > 0 and len(e.mistakes) >= 2, e.id


# ---------------------------------------------------------------- 2.1, 2.2: Euler's equations
def _skew(w):
    return np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])


def _turn(A0, omega_body, t):
    """A(t) from dA/dt = A skew(omega'(t)) (omega' in body components), A(0) = A0."""
    if t == 0:
        return A0

    def rhs(time, y):
        A = y.reshape(3, 3)
        return (A @ _skew(omega_body(time, A))).ravel()

    return solve_ivp(rhs, (0.0, t), A0.ravel(), rtol=1e-12, atol=1e-14).y[:, -1].reshape(3, 3)


def _box_inertia_by_integration(about):
    """Inertia tensor of the 6 kg, 0.3 x 0.2 x 0.1 m box about the point ``about`` (exact integrals)."""
    x, y, z = sp.symbols("x y z", real=True)
    a, b, c = sp.Rational(3, 10), sp.Rational(2, 10), sp.Rational(1, 10)
    rho = 6 / (a * b * c)
    r = sp.Matrix([x, y, z]) - sp.Matrix(about)
    density = rho * (r.dot(r) * sp.eye(3) - r * r.T)  # I = ∫ rho (|r|² E − r rᵀ) dV
    I = density.applyfunc(lambda f: sp.integrate(f, (x, 0, a), (y, 0, b), (z, 0, c)))
    return np.array(I, dtype=float)


W21, ALPHA21 = np.array([1.5, -2.0, 3.0]), np.array([0.4, 0.0, -1.0])
I_C = _box_inertia_by_integration((sp.Rational(15, 100), sp.Rational(1, 10), sp.Rational(5, 100)))
I_O = _box_inertia_by_integration((0, 0, 0))


def test_2_1_moment_is_the_rate_of_angular_momentum():
    # H = A I_C omega' about C (global components); the moment about C is dH/dt (A(0) = identity)
    def H(t):
        A = _turn(np.eye(3), lambda time, A: W21 + ALPHA21 * time, t)
        return A @ I_C @ (W21 + ALPHA21 * t)

    h = 1e-3
    dH = (H(h) - H(-h)) / (2 * h)
    np.testing.assert_allclose(get("2.1").reference(), dH, atol=1e-6)
    assert_correct("2.1", I_C @ ALPHA21 + np.cross(W21, I_C @ W21))


def test_2_1_mistakes():
    assert_hint("2.1", I_C @ ALPHA21, "gyroscopic", "missing")
    assert_hint("2.1", I_C @ ALPHA21 + np.cross(I_C @ W21, W21), "wrong sign")
    assert_hint("2.1", I_O @ ALPHA21 + np.cross(W21, I_O @ W21), "corner", "CENTRAL")
    assert_hint("2.1", np.cross(W21, I_C @ W21), "I alpha", "missing")
    assert_hint("2.1", [0.0, 0.0], "shape (2,)")


I22 = np.array([[0.30, -0.02, 0.01], [-0.02, 0.45, 0.0], [0.01, 0.0, 0.60]])
W22 = np.array([2.0, -1.0, 0.5])


def test_2_2_torque_free_body_conserves_angular_momentum():
    # no moment: H = A I omega' is constant, so omega'(t) = I^-1 A(t)^T H0; alpha' = d omega'/dt
    H0 = I22 @ W22

    def omega(t, A=None):
        A = _turn(np.eye(3), lambda time, A: np.linalg.solve(I22, A.T @ H0), t) if A is None else A
        return np.linalg.solve(I22, A.T @ H0)

    h = 1e-3
    alpha_fd = (omega(h) - omega(-h)) / (2 * h)
    np.testing.assert_allclose(get("2.2").reference(), alpha_fd, atol=1e-6)
    exact = np.linalg.inv(I22) @ -np.cross(W22, I22 @ W22)
    assert_correct("2.2", exact)
    assert_correct("2.2", exact.reshape(3, 1))  # a column is fine


def test_2_2_mistakes():
    gyro = np.cross(W22, I22 @ W22)
    assert_hint("2.2", np.linalg.inv(I22) @ gyro, "sign")
    assert_hint("2.2", -gyro, "I alpha, not alpha")
    assert_hint("2.2", -gyro / I22.diagonal(), "diagonal")
    assert_hint("2.2", np.zeros(3), "principal axis")


# ---------------------------------------------------------------- the double pendulum, by Lagrange
m1, m2, L1, L2, g = sp.symbols("m1 m2 L1 L2 g", positive=True)
q1, q2, qd1, qd2 = sp.symbols("q1 q2 qd1 qd2", real=True)
t = sp.Symbol("t", real=True)


@cache
def lagrange(kind="rods"):
    """T and V of the double pendulum, from positions written as complex numbers z = x + i y.

    Lagrange's equations d/dt ∂T/∂q̇ − ∂T/∂q + ∂V/∂q = τ then give M, h, G (below).
    kind: "rods" (the exercise: relative angles from the x axis, uniform rods),
    "absolute" (q2 read as link 2's absolute angle), "centres" (point masses at the rod
    centres: no own inertia), "tips" (point masses at the link ends), "vertical" (angles
    from the downward vertical).  Then M = ∂²T/∂q̇², G = ∂V/∂q, and h = (∂p/∂q) q̇ − ∂T/∂q
    with p = ∂T/∂q̇ (the chain rule for d/dt p at q̈ = 0).
    """
    q, qd = sp.Matrix([q1, q2]), sp.Matrix([qd1, qd2])
    phi1, phi2 = (q1, q2) if kind == "absolute" else (q1, q1 + q2)  # absolute link angles
    e1, e2 = sp.exp(sp.I * phi1), sp.exp(sp.I * phi2)
    if kind == "vertical":
        e1, e2 = -sp.I * e1, -sp.I * e2  # angle 0 points down (−y)
    f = 1 if kind == "tips" else sp.Rational(1, 2)
    own = 0 if kind in ("centres", "tips") else 1
    T, V = 0, 0
    for m, L, z, w in ((m1, L1, f * L1 * e1, phi1), (m2, L2, L1 * e1 + f * L2 * e2, phi2)):
        z = sp.expand_complex(z)
        r = sp.Matrix([sp.re(z), sp.im(z)])
        v = r.jacobian(q) * qd
        w_dot = sp.Matrix([w]).jacobian(q).dot(qd)
        T += (m * v.dot(v) + own * m * L**2 / 12 * w_dot**2) / 2
        V += m * g * r[1]
    return T, V


def _tidy(f):
    """Polynomial in sines and cosines of q1, q2, with sin² written 1 − cos² (cheap, canonical enough)."""
    f = sp.expand(sp.expand_trig(f))
    return sp.expand(f.subs({sp.sin(q1) ** 2: 1 - sp.cos(q1) ** 2, sp.sin(q2) ** 2: 1 - sp.cos(q2) ** 2}))


@cache
def mass(kind="rods"):
    T, _ = lagrange(kind)
    return sp.hessian(T, (qd1, qd2)).applyfunc(_tidy)


@cache
def gravity(kind="rods"):
    _, V = lagrange(kind)
    return sp.Matrix([V]).jacobian((q1, q2)).T.applyfunc(_tidy)


@cache
def bias(kind="rods"):
    T, _ = lagrange(kind)
    p, qd = sp.Matrix([T]).jacobian((qd1, qd2)).T, sp.Matrix([qd1, qd2])
    return (p.jacobian((q1, q2)) * qd - sp.Matrix([T]).jacobian((q1, q2)).T).applyfunc(_tidy)


def equations():
    """M, h, G of the exercise's pendulum."""
    return mass(), bias(), gravity()


def test_2_3_mass_matrix():
    M = mass()
    assert_correct("2.3", M)
    # any equivalent form: half-angle cosines, plain symbols (no assumptions)
    assert_correct("2.3", M.subs(sp.cos(q2), 1 - 2 * sp.sin(q2 / 2) ** 2))
    plain = {s: sp.Symbol(s.name) for s in (m1, m2, L1, L2, q1, q2)}
    assert_correct("2.3", M.xreplace(plain))


def test_2_3_mistakes():
    M = mass()
    assert_hint("2.3", mass("centres"), "own rotational inertia")
    assert_hint("2.3", M.subs(sp.cos(q2), 0), "cos(q2) coupling")
    assert_hint("2.3", mass("absolute"), "ABSOLUTE")
    doubled = M.copy()
    doubled[0, 1] = doubled[1, 0] = m2 * (L2**2 / 3 + L1 * L2 * sp.cos(q2))
    assert_hint("2.3", doubled, "M12")
    assert_hint("2.3", mass("tips"), "tips")
    assert_hint("2.3", M.subs({m1: 3, m2: 2, L1: 0.8, L2: 0.6, q2: 0.3}), "formula in")
    wrong = M.copy()
    wrong[1, 1] = m2 * L2**2
    assert_hint("2.3", wrong, "entry [1, 1]")


def test_2_4_gravity_vector():
    G = gravity()
    assert_correct("2.4", G)
    assert_correct("2.4", list(G))  # a list of formulas is a vector too
    # G is also the torque that holds the pendulum still (finite differences of V)
    V = g * (m1 * L1 / 2 * sp.sin(q1) + m2 * (L1 * sp.sin(q1) + L2 / 2 * sp.sin(q1 + q2)))
    Vf = sp.lambdify((q1, q2, m1, m2, L1, L2, g), V)
    p, eps = (0.4, -1.1, 3.0, 2.0, 0.8, 0.6, 9.81), 1e-6
    fd = [(Vf(*(np.add(p, d))) - Vf(*(np.subtract(p, d)))) / (2 * eps) for d in np.eye(7)[:2] * eps]
    Gf = sp.lambdify((q1, q2, m1, m2, L1, L2, g), get("2.4").reference())
    np.testing.assert_allclose(np.asarray(Gf(*p), float).ravel(), fd, rtol=1e-7)


def test_2_4_mistakes():
    G = gravity()
    assert_hint("2.4", -G, "sign")
    assert_hint("2.4", G - sp.Matrix([m2 * g * L1 * sp.cos(q1), 0]), "m2 g L1 cos(q1)")
    assert_hint("2.4", gravity("vertical"), "vertical")
    assert_hint("2.4", gravity("absolute"), "ABSOLUTE")
    assert_hint("2.4", G[0], "a single number", "shape (2,)")


# ---------------------------------------------------------------- 2.5, 2.7: numbers
ARM = {m1: 3.0, m2: 2.0, L1: 0.8, L2: 0.6, g: 9.81}
Q, QD, QDD, TAU = np.array([0.5, -0.9]), np.array([1.0, 2.0]), np.array([0.5, -1.5]), np.array([10.0, 2.0])


def at_state(expr):
    values = {**ARM, q1: Q[0], q2: Q[1], qd1: QD[0], qd2: QD[1]}
    return np.array(sp.Matrix(expr).subs(values).evalf(), dtype=float).squeeze()


def test_2_5_joint_torques():
    M, h, G = (at_state(x) for x in equations())
    tau = M @ QDD + h + G
    assert_correct("2.5", tau)
    assert_correct("2.5", tuple(tau))
    assert_hint("2.5", M @ QDD + h - G, "gravity", "wrong sign")
    assert_hint("2.5", M @ QDD + G, "Coriolis", "qd = 0")
    assert_hint("2.5", M @ QDD + h, "gravity is missing")
    assert_hint("2.5", tau[::-1], "reverse order")
    assert_hint("2.5", tau * 2, "2 times")


def test_2_7_forward_dynamics():
    M, h, G = (at_state(x) for x in equations())
    qdd = np.linalg.solve(M, TAU - h - G)
    assert_correct("2.7", qdd)
    # round trip: the inverse dynamics of the answer gives back the torques
    np.testing.assert_allclose(M @ get("2.7").reference() + h + G, TAU, rtol=1e-10)
    assert_hint("2.7", np.linalg.solve(M, TAU), "h = C qd + G are missing")
    assert_hint("2.7", np.linalg.solve(M, TAU + h + G), "wrong sign")
    assert_hint("2.7", np.linalg.solve(M, TAU - G), "velocity terms")
    assert_hint("2.7", TAU - h - G, "M qdd, not qdd")
    assert_hint("2.7", [math.nan, 0.0], "NaN")


# ---------------------------------------------------------------- 2.6 Coriolis matrix
def ours(M):
    """M with its symbols replaced by this file's symbols of the same name (assumptions may differ)."""
    mine = {s.name: s for s in (m1, m2, L1, L2, q1, q2, qd1, qd2)}
    return M.xreplace({s: mine.get(s.name, s) for s in M.free_symbols})


def _mdot(M):
    return M.diff(q1) * qd1 + M.diff(q2) * qd2


def _is_skew(N):
    return (N + N.T).applyfunc(sp.simplify).is_zero_matrix


def test_2_6_reference_is_the_skew_compatible_factorisation_of_h():
    M, h = mass(), bias()
    C = ours(sp.Matrix(get("2.6").reference()))
    qd = sp.Matrix([qd1, qd2])
    assert (C * qd - h).applyfunc(sp.simplify).is_zero_matrix  # C q̇ = Coriolis and centripetal forces
    assert _is_skew(_mdot(M) - 2 * C)
    # For n = 2 these two properties fix C: another C' = C + S needs S q̇ = 0 with S skew (so that
    # Ṁ − 2C' stays skew), and a 2x2 skew S = s [[0, 1], [-1, 0]] has S q̇ = s (qd2, -qd1) = 0 only for s = 0.
    b = m2 * L1 * L2 * sp.sin(q2) / 2
    assert_correct("2.6", sp.Matrix([[-b * qd2, -b * (qd1 + qd2)], [b * qd1, 0]]))
    assert_correct("2.6", sp.expand(C))


def test_2_6_mistakes():
    M, h = mass(), bias()
    b = m2 * L1 * L2 * sp.sin(q2) / 2
    C = sp.Matrix([[-b * qd2, -b * (qd1 + qd2)], [b * qd1, 0]])
    assert_hint("2.6", 2 * C, "1/2")
    assert_hint("2.6", C.T, "transposed")
    # the "textbook by inspection" factorisation: right forces, not skew-compatible
    naive = sp.Matrix([[-2 * b * qd2, -b * qd2], [b * qd1, 0]])
    assert (naive * sp.Matrix([qd1, qd2]) - h).applyfunc(sp.simplify).is_zero_matrix
    assert not _is_skew(_mdot(M) - 2 * naive)
    assert_hint("2.6", naive, "right forces", "not skew")
    assert_hint("2.6", _mdot(M) / 2, "Mdot/2")
    wrong = C.copy()
    wrong[1, 0] = -wrong[1, 0]
    assert_hint("2.6", wrong, "entry [1, 0]", "wrong sign")
    assert_hint("2.6", C + sp.Matrix([[t, 0], [0, 0]]), "contains t")


# ---------------------------------------------------------------- never crash, never accept junk


JUNK = [
    None,
    math.nan,
    [math.nan] * 3,
    "answer",
    42,
    [1, 2],
    np.zeros((2, 2)),
    np.full((2, 2), np.inf),
    {"a": 1},
    Exploding(),
    lambda *a: 1 / 0,
    sp.Symbol("zz"),
    sp.zeros(2, 2),
    sp.Matrix([[sp.Symbol("q2"), 0], [0, sp.Symbol("qd1")]]),
    sp.nan,
]


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_never_crashes_never_correct(answer):
    assert_never_crashes_never_correct(2, answer)
