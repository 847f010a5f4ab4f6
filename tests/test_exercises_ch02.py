"""Chapter 2 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: the rate of change of angular momentum, integrated with scipy and
differentiated by finite differences (Euler's equations, 2.1-2.2); the box's inertia by exact
sympy integration; Lagrange's equations of the double pendulum derived here from positions
written as complex numbers, differentiated in time by sympy (2.3-2.7); the free-body balance of
one link, and mbdlib's ``rnea`` on whole chains that the single step is composed over (2.8); and
Lagrange's equations of the cart-pendulum derived here with sympy (2.9).  The wrong answers are
built in this file, from those derivations, not taken from the registry.  Variant exercises are
checked at several students' numbers, function exercises on the grader's hidden cases too.
"""

import math
import re
from functools import cache

import numpy as np
import pytest
import sympy as sp
from exercise_helpers import (
    VARIANT_SEEDS,
    Exploding,
    assert_correct,
    assert_hint,
    assert_keys_differ,
    assert_never_crashes_never_correct,
    assert_variant_correct,
    assert_variant_hint,
    judged,
    variants,
)
from scipy.integrate import solve_ivp

from mbdlib.exercises import evaluate, exercises, get
from mbdlib.exercises.core import judge


def test_chapter_2_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(2)
    assert len(exs) >= 6
    ids = [e.id for e in exs]
    # 2.1, 2.2, ... in order; a multi-part problem N is 2.Na, 2.Nb, ... (never also a plain 2.N)
    expected, numbers = [], sorted({int(re.match(r"2\.(\d+)", i).group(1)) for i in ids})
    assert numbers == list(range(1, len(numbers) + 1))
    for n in numbers:
        parts = [i for i in ids if re.fullmatch(rf"2\.{n}[a-z]", i)]
        expected += [f"2.{n}{'abcdefgh'[j]}" for j in range(len(parts))] if parts else [f"2.{n}"]
    assert ids == expected
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


def _box_inertia_by_integration(about, mass=6, edges=("0.3", "0.2", "0.1")):
    """Inertia tensor of a uniform box (6 kg, 0.3 x 0.2 x 0.1 m) about the point ``about`` (exact)."""
    x, y, z = sp.symbols("x y z", real=True)
    a, b, c = (sp.Rational(str(e)) for e in edges)
    rho = sp.Rational(str(mass)) / (a * b * c)
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
    np.testing.assert_allclose(get("2.1").key(), dH, atol=1e-6)
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
    np.testing.assert_allclose(get("2.2").key(), alpha_fd, atol=1e-6)
    exact = np.linalg.inv(I22) @ -np.cross(W22, I22 @ W22)
    assert_correct("2.2", exact)
    assert_correct("2.2", exact.reshape(3, 1))  # a column is fine


def test_2_2_mistakes():
    gyro = np.cross(W22, I22 @ W22)
    assert_hint("2.2", np.linalg.inv(I22) @ gyro, "sign")
    assert_hint("2.2", -gyro, "I alpha, not alpha")
    assert_hint("2.2", -gyro / I22.diagonal(), "diagonal")
    assert_hint("2.2", np.zeros(3), "principal axis")


def _rate_of_angular_momentum(I, omega0, alpha):
    """dH/dt at t = 0 (global = body components then), H = A I omega'(t), omega' = omega0 + alpha t."""
    def H(t):
        A = _turn(np.eye(3), lambda time, A: omega0 + alpha * time, t)
        return A @ I @ (omega0 + alpha * t)

    h = 2e-4
    return (H(h) - H(-h)) / (2 * h)


@pytest.mark.parametrize("seed", VARIANT_SEEDS[:3])
def test_2_1_variants_moment_and_hints(seed):
    ex = get("2.1")
    p = ex.params_for(np.random.default_rng(seed))
    edges = [sp.Rational(str(e)) for e in p["edges"]]
    I_C = _box_inertia_by_integration([e / 2 for e in edges], p["mass"], p["edges"])
    I_O = _box_inertia_by_integration((0, 0, 0), p["mass"], p["edges"])
    w, al = np.array(p["omega"]), np.array(p["alpha"])
    np.testing.assert_allclose(ex.key(params=p), _rate_of_angular_momentum(I_C, w, al), atol=1e-6)
    assert_variant_correct("2.1", I_C @ al + np.cross(w, I_C @ w), p)
    assert_variant_hint("2.1", I_C @ al, p, "gyroscopic", "missing")
    assert_variant_hint("2.1", I_C @ al + np.cross(I_C @ w, w), p, "wrong sign")
    assert_variant_hint("2.1", I_O @ al + np.cross(w, I_O @ w), p, "corner", "CENTRAL")
    assert_variant_hint("2.1", np.cross(w, I_C @ w), p, "I alpha", "missing")
    # the public answer is not this student's
    assert_variant_hint("2.1", I_C @ ALPHA21 + np.cross(W21, I_C @ W21), p)


def test_2_1_and_2_2_variants_differ():
    assert_keys_differ("2.1", variants("2.1"))
    assert_keys_differ("2.2", variants("2.2"))


def _alpha_from_conserved_momentum(I, w0):
    """No moment: H = A I omega' is constant, so omega'(t) = I^-1 A(t)^T H0; alpha' = d omega'/dt at 0."""
    H0 = I @ w0

    def omega(t):
        A = _turn(np.eye(3), lambda time, A: np.linalg.solve(I, A.T @ H0), t)
        return np.linalg.solve(I, A.T @ H0)

    h = 2e-4
    return (omega(h) - omega(-h)) / (2 * h)


@pytest.mark.parametrize("seed", VARIANT_SEEDS[:3])
def test_2_2_variants_conserve_angular_momentum_and_hints(seed):
    ex = get("2.2")
    p = ex.params_for(np.random.default_rng(seed))
    I, w = np.array(p["inertia"]), np.array(p["omega"])
    assert np.allclose(I, I.T) and np.linalg.eigvalsh(I)[0] > 0.1
    lam = np.linalg.eigvalsh(I)
    assert lam[0] + lam[1] > lam[2]  # principal moments a real body can have
    np.testing.assert_allclose(ex.key(params=p), _alpha_from_conserved_momentum(I, w), atol=1e-6)
    gyro = np.cross(w, I @ w)
    exact = np.linalg.inv(I) @ -gyro
    assert_variant_correct("2.2", exact, p)
    assert_variant_hint("2.2", np.linalg.inv(I) @ gyro, p, "sign")
    assert_variant_hint("2.2", -gyro, p, "I alpha, not alpha")
    assert_variant_hint("2.2", -gyro / I.diagonal(), p, "diagonal")
    assert_variant_hint("2.2", np.zeros(3), p, "principal axis")
    # the check of a released notebook tests the conservation of T and |H| (no key needed)
    assert ex.sanity(exact, **p) is None
    assert "angular momentum" in ex.sanity(-gyro, **p)  # that is I alpha: it keeps T but not |H|
    assert "kinetic energy" in ex.sanity(-gyro / I.diagonal(), **p)
    assert "kinetic energy" in ex.sanity(exact + np.linalg.inv(I) @ w, **p)


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
    assert_hint("2.4", G - sp.Matrix([m2 * g * L1 * sp.cos(q1), 0]), "first entry", "link 2's weight")
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
    np.testing.assert_allclose(M @ get("2.7").key() + h + G, TAU, rtol=1e-10)
    assert_hint("2.7", np.linalg.solve(M, TAU), "h = C qd + G are missing")
    assert_hint("2.7", np.linalg.solve(M, TAU + h + G), "wrong sign")
    assert_hint("2.7", np.linalg.solve(M, TAU - G), "velocity terms")
    assert_hint("2.7", TAU - h - G, "M qdd, not qdd")
    assert_hint("2.7", [math.nan, 0.0], "NaN")


def arm_values(p, q, qd):
    return {m1: p["masses"][0], m2: p["masses"][1], L1: p["lengths"][0], L2: p["lengths"][1], g: 9.81,
            q1: q[0], q2: q[1], qd1: qd[0], qd2: qd[1]}


def at_variant(expr, p):
    return np.array(sp.Matrix(expr).subs(arm_values(p, p["q"], p["qd"])).evalf(), dtype=float).squeeze()


@pytest.mark.parametrize("seed", VARIANT_SEEDS)
def test_2_5_and_2_7_variants(seed):
    p5 = get("2.5").params_for(np.random.default_rng(seed))
    M, h, G = (at_variant(x, p5) for x in equations())
    qdd = np.array(p5["qdd"])
    tau = M @ qdd + h + G
    np.testing.assert_allclose(get("2.5").key(params=p5), tau, rtol=1e-9)
    assert_variant_correct("2.5", tau, p5)
    assert_variant_hint("2.5", M @ qdd + h - G, p5, "gravity", "wrong sign")
    assert_variant_hint("2.5", M @ qdd + G, p5, "Coriolis", "qd = 0")
    assert_variant_hint("2.5", M @ qdd + h, p5, "gravity is missing")
    assert_variant_hint("2.5", tau[::-1], p5, "reverse order")

    p7 = get("2.7").params_for(np.random.default_rng(seed))
    M, h, G = (at_variant(x, p7) for x in equations())
    tau = np.array(p7["tau"])
    qdd = np.linalg.solve(M, tau - h - G)
    np.testing.assert_allclose(get("2.7").key(params=p7), qdd, rtol=1e-9)
    assert_variant_correct("2.7", qdd, p7)
    assert_variant_hint("2.7", np.linalg.solve(M, tau), p7, "h = C qd + G are missing")
    assert_variant_hint("2.7", np.linalg.solve(M, tau + h + G), p7, "wrong sign")
    assert_variant_hint("2.7", np.linalg.solve(M, tau - G), p7, "velocity terms")
    assert_variant_hint("2.7", tau - h - G, p7, "M qdd, not qdd")


def test_2_5_and_2_7_variants_differ():
    assert_keys_differ("2.5", variants("2.5"))
    assert_keys_differ("2.7", variants("2.7"))


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


# ---------------------------------------------------------------- 2.8 one step of the inward pass
def balance_residual(case, out):
    """Newton and Euler (about C) for link i cut free, with the step's f_i, n_i: zero if they balance.

    Loads on link i: f_i and n_i at joint i (at -d from C), -R^T f_c and -R^T n_c at the child's joint (at
    l - d from C), the weight m g at C.
    """
    m, I_C, omega, alpha, a_C, d, l, R, f_c, n_c, g, k = case
    f, n, tau = out[:3], out[3:6], out[6]
    force = f - R.T @ f_c + m * g - m * a_C
    moment = (n + np.cross(-d, f) - R.T @ n_c + np.cross(l - d, -R.T @ f_c)
              - I_C @ alpha - np.cross(omega, I_C @ omega))
    return np.concatenate([force, moment, [tau - n @ k]])


def student_step(m, I_C, omega, alpha, a_C, d, l, R, f_c, n_c, g, k):
    """A right answer written differently: the moments balanced about C first, then moved to the joint."""
    f = m * (a_C - g) + R.T @ f_c
    n_C = I_C @ alpha + np.cross(omega, I_C @ omega) + R.T @ n_c + np.cross(l - d, R.T @ f_c)
    n = n_C + np.cross(d, f)  # the parent's force f acts at the joint, at -d from C
    return np.hstack([f, n, n @ k])


def wrong_step(m, I_C, omega, alpha, a_C, d, l, R, f_c, n_c, g, k, mistake):
    """The typical wrong steps, written out here."""
    back = {"unrotated": np.eye(3), "transposed": R}.get(mistake, R.T)
    sign = -1.0 if mistake == "child sign" else 1.0
    fb, nb = sign * back @ f_c, sign * back @ n_c
    weight = {"gravity sign": m * g, "no gravity": 0 * g}.get(mistake, -m * g)
    F = m * a_C + weight
    gyro = 0 * omega if mistake == "no gyro" else np.cross(omega, I_C @ omega)
    N = I_C @ alpha + gyro
    lever = 0 * l if mistake == "no lever" else np.cross(l, fb)
    n = N + np.cross(d, F) + nb + lever
    if mistake == "about C":
        n = N + nb + np.cross(l - d, fb)
    if mistake == "no d x F":
        n = N + nb + np.cross(l, fb)
    f = F + fb
    return np.hstack([f, n, n @ k])


MISTAKES_28 = {
    "unrotated": ("CHILD's frame", "R^T"),
    "transposed": ("transposed",),
    "child sign": ("wrong sign", "ON the child"),
    "no lever": ("l x (R^T f_c)",),
    "no gyro": ("gyroscopic",),
    "gravity sign": ("gravity has the wrong sign",),
    "no gravity": ("weight is missing",),
    "about C": ("about the centre of mass C",),
    "no d x F": ("d x m (a_C - g)",),
}


def hidden_28(seed):
    return get("2.8").grading_cases(np.random.default_rng(seed))


def test_2_8_reference_balances_the_link_on_public_and_hidden_cases():
    ex = get("2.8")
    cases = ex.grading_cases(None) + hidden_28(1) + hidden_28(2)
    assert len(cases) == 2 + 6 + 6
    for case in cases:
        out = ex.key(*case)
        assert out.shape == (7,)
        np.testing.assert_allclose(balance_residual(case, out), 0, atol=1e-10)
        np.testing.assert_allclose(student_step(*case), out, rtol=1e-12, atol=1e-12)
    assert_correct("2.8", student_step)
    # the hidden cases are new links for every student (and include a tip link without a child)
    a, b = hidden_28(1), hidden_28(2)
    assert not np.allclose(a[0][1], b[0][1])
    assert any(np.all(c[8] == 0) and np.all(c[9] == 0) for c in a)
    assert all(np.allclose(c[7].T @ c[7], np.eye(3)) and np.isclose(np.linalg.norm(c[11]), 1) for c in a)


def _chain_for_2_8():
    """A spatial arm with tilted joint axes, turned joint frames and bodies off their link lines."""
    from mbdlib import Chain, Joint, RigidBody
    from mbdlib.rotations import rot_x, rot_y, rot_z

    chain = Chain(name="test arm")
    specs = [((0, 0, 1), (0, 0, 0), np.eye(3), 3.0, (0.05, 0.02, 0.2), (0.04, 0.05, 0.03)),
             ((0, 1, 0), (0.0, 0.1, 0.4), rot_x(0.3), 2.0, (0.25, 0.0, 0.03), (0.01, 0.04, 0.045)),
             ((1, 1, 0), (0.5, 0.0, 0.0), rot_z(0.7) @ rot_y(-0.4), 1.5, (0.2, 0.05, 0.0),
              (0.01, 0.02, 0.025)),
             ((0, 0, 1), (0.4, 0.0, 0.05), rot_x(np.pi / 2), 0.7, (0.1, 0.0, 0.02), (0.002, 0.003, 0.004))]
    for i, (axis, origin, rotation, m, com, moments) in enumerate(specs):
        tilt = rot_y(0.2 * i) @ rot_x(-0.1 * i)  # principal axes not along the frame's
        inertia = tilt @ np.diag(moments) @ tilt.T
        chain.add_link(f"link{i + 1}", Joint(f"j{i + 1}", "revolute", axis, origin, rotation),
                       RigidBody(m, com=com, inertia=inertia, name=f"link{i + 1}"))
    return chain


@pytest.mark.parametrize("step", ["reference", "student"])
def test_2_8_the_step_composed_over_a_chain_is_rnea(step):
    from mbdlib import forward_kinematics, rnea

    one_step = get("2.8").reference if step == "reference" else student_step
    chain = _chain_for_2_8()
    rng = np.random.default_rng(28)
    gravity = np.array([0.0, 0.0, -9.81])
    for _ in range(3):
        q, qd, qdd = rng.uniform(-2, 2, (3, chain.n))
        kin = forward_kinematics(chain, q, qd, qdd)  # motion only: the step adds the weight itself
        f_c, n_c, R, l = np.zeros(3), np.zeros(3), np.eye(3), np.zeros(3)
        taus, forces, moments = [], [], []
        for i in reversed(range(chain.n)):
            link = chain.links[i]
            out = one_step(link.body.mass, link.body.inertia, kin.omega[i], kin.alpha[i], kin.a_c[i],
                           kin.d[i], l, R, f_c, n_c, kin.A[i].T @ gravity, link.joint.axis)
            f_c, n_c = out[:3], out[3:6]
            R, l = kin.R[i], kin.l[i]  # for the parent: frame parent -> frame i, and joint i from its joint
            taus.append(out[6])
            forces.append(f_c)
            moments.append(n_c)
        tau, reactions = rnea(chain, q, qd, qdd, gravity=gravity, return_reactions=True)
        np.testing.assert_allclose(taus[::-1], tau, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(forces[::-1], reactions.force, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(moments[::-1], reactions.moment, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("mistake", sorted(MISTAKES_28))
def test_2_8_each_mistake_gets_its_hint_on_public_and_hidden_cases(mistake):
    ex = get("2.8")

    def wrong(*case):
        return wrong_step(*case, mistake=mistake)

    assert_hint("2.8", wrong, *MISTAKES_28[mistake])
    hidden = hidden_28(7)
    v = judge(ex, [wrong(*c) for c in hidden], hidden, {})
    assert v.verdict == "wrong" and all(w in v.hint for w in MISTAKES_28[mistake]), v


def test_2_8_a_function_right_only_on_the_public_cases_fails_on_hidden_ones():
    ex = get("2.8")
    public = ex.grading_cases(None)
    keys = [ex.key(*c) for c in public]

    def lookup(*case):  # the public answers, looked up by the link's mass
        for c, key in zip(public, keys, strict=True):
            if np.isclose(case[0], c[0]):
                return key
        return np.zeros(7)

    assert evaluate("2.8", lookup).verdict == "correct"
    hidden = hidden_28(3)
    v = judge(ex, [lookup(*c) for c in hidden], hidden, {})
    assert v.verdict == "wrong"
    assert judge(ex, [student_step(*c) for c in hidden], hidden, {}).verdict == "correct"


def test_2_8_the_shape_and_type_of_the_result():
    assert_hint("2.8", lambda *c: student_step(*c)[:6], "shape (6,)", "shape (7,)")
    v = evaluate("2.8", lambda *c: (student_step(*c)[:3], student_step(*c)[3:6], student_step(*c)[6]))
    assert v.verdict == "wrong"
    assert evaluate("2.8", lambda *c: None).verdict == "unanswered"
    assert evaluate("2.8", lambda *c: 1 / 0).verdict == "error"
    nudged = evaluate("2.8", lambda *c: student_step(*c) + np.r_[0, 0, 0, 0, 0, 0.1, 0.1])
    assert nudged.verdict == "wrong" and "entry [5]" in nudged.hint


# ---------------------------------------------------------------- 2.9 the cart-pendulum, by Lagrange
xc, th, xcd, thd = sp.symbols("x theta xdot thetadot", real=True)
m_c, m_p, dc, J_C, kc, gc = sp.symbols("m_c m_p d J_C k g", positive=True)


@cache
def cart_lagrange(J_pivot=False, hanging_from="down"):
    """M, h, G of the cart-pendulum from T and V written here (q = (x, theta), theta from the downward
    vertical, counterclockwise); ``J_pivot``: the student's T with the pivot's J in the rotation term;
    ``hanging_from="horizontal"``: theta read from the horizontal (the sin/cos mix-up)."""
    q, qd = sp.Matrix([xc, th]), sp.Matrix([xcd, thd])
    phi = th - sp.pi / 2 if hanging_from == "down" else th  # angle of the pendulum from the x axis
    r_C = sp.Matrix([xc + dc * sp.cos(phi), dc * sp.sin(phi)])
    v_C = r_C.jacobian(q) * qd
    J = J_C + m_p * dc**2 if J_pivot else J_C
    T = m_c * xcd**2 / 2 + m_p * v_C.dot(v_C) / 2 + J * thd**2 / 2
    V = kc * xc**2 / 2 + m_p * gc * r_C[1]
    M = sp.hessian(T, qd).applyfunc(sp.simplify)
    p = sp.Matrix([T]).jacobian(qd).T
    h = (p.jacobian(q) * qd - sp.Matrix([T]).jacobian(q).T).applyfunc(sp.simplify)
    G = sp.Matrix([V]).jacobian(q).T.applyfunc(sp.simplify)
    return M, h, G


def cart_numbers(expr, p):
    values = {m_c: p["m_c"], m_p: p["m_p"], dc: p["d"], J_C: p["J_C"], kc: p["k"], gc: 9.81,
              xc: p["q"][0], th: p["q"][1], xcd: p["qd"][0], thd: p["qd"][1]}
    return np.array(sp.Matrix(expr).subs(values).evalf(), dtype=float).squeeze()


def cart_solution(p, **kw):
    M, h, G = (cart_numbers(x, p) for x in cart_lagrange(**kw))
    return M, h, G, np.linalg.solve(M, np.array([p["F"], 0.0]) - h - G)


def cart_params():
    return [dict(get("2.9a").params)] + variants("2.9a")


def test_2_9_the_parts_share_one_mechanism_and_the_public_numbers():
    assert get("2.9a").params == get("2.9b").params == get("2.9c").params
    p = get("2.9a").params
    assert (p["m_c"], p["m_p"], p["d"], p["J_C"], p["k"], p["F"]) == (2.0, 0.8, 0.4, 0.03, 60.0, 5.0)
    assert [e.points for e in exercises(2) if e.id.startswith("2.9")] == [2, 1, 2]


@pytest.mark.parametrize("index", range(1 + len(VARIANT_SEEDS)))
def test_2_9_references_are_lagrange_at_public_and_variant_numbers(index):
    p = cart_params()[index]
    M, h, G, qdd = cart_solution(p)
    np.testing.assert_allclose(get("2.9a").key(params=p), M, rtol=1e-10)
    np.testing.assert_allclose(get("2.9b").key(params=p), G, rtol=1e-10)
    np.testing.assert_allclose(get("2.9c").key(params=p), qdd, rtol=1e-9)
    for eid, answer in (("2.9a", M), ("2.9b", G), ("2.9c", qdd)):
        assert_variant_correct(eid, answer, p)
    # energy: with no push and no damping, T + V of a short simulation stays put (an independent check of
    # the signs of h and G together): integrate M qdd = -h - G by scipy and compare the energy
    Mf, hf, Gf = (sp.lambdify((xc, th, xcd, thd), x.subs({m_c: p["m_c"], m_p: p["m_p"], dc: p["d"],
                                                              J_C: p["J_C"], kc: p["k"], gc: 9.81}))
                  for x in cart_lagrange())

    def rhs(t, y):
        M_, h_, G_ = (np.array(f(*y), dtype=float).reshape(-1) for f in (Mf, hf, Gf))
        return np.concatenate([y[2:], np.linalg.solve(M_.reshape(2, 2), -h_ - G_)])

    def energy(y):
        M_ = np.array(Mf(*y), dtype=float).reshape(2, 2)
        V = p["k"] * y[0] ** 2 / 2 - p["m_p"] * 9.81 * p["d"] * np.cos(y[1])
        return y[2:] @ M_ @ y[2:] / 2 + V

    y0 = np.array([*p["q"], *p["qd"]])
    sol = solve_ivp(rhs, (0, 1.0), y0, rtol=1e-10, atol=1e-12)
    assert abs(energy(sol.y[:, -1]) - energy(y0)) < 1e-6 * (1 + abs(energy(y0)))


def test_2_9_variants_differ():
    for eid in ("2.9a", "2.9b", "2.9c"):
        assert_keys_differ(eid, variants(eid))


@pytest.mark.parametrize("index", range(1 + len(VARIANT_SEEDS)))
def test_2_9_mistakes_get_their_hints(index):
    p = cart_params()[index]
    M, h, G, qdd = cart_solution(p)
    Q = np.array([p["F"], 0.0])
    m, d, J = p["m_p"], p["d"], p["J_C"]
    # (a) the mass matrix
    about_C = M.copy()
    about_C[1, 1] = J
    assert_variant_hint("2.9a", about_C, p, "parallel-axis")
    assert_variant_hint("2.9a", cart_numbers(cart_lagrange(J_pivot=True)[0], p), p, "twice")
    point = M.copy()
    point[1, 1] = m * d**2
    assert_variant_hint("2.9a", point, p, "own inertia J_C")
    assert_variant_hint("2.9a", np.diag(np.diag(M)), p, "coupling", "missing")
    assert_variant_hint("2.9a", M * [[1, -1], [-1, 1]], p, "coupling has the wrong sign")
    from_horizontal = cart_numbers(cart_lagrange(hanging_from="horizontal")[0], p)  # -m_p d sin(theta)
    assert_variant_hint("2.9a", from_horizontal, p, "sin(theta) where cos(theta)")
    assert_variant_hint("2.9a", from_horizontal * [[1, -1], [-1, 1]], p, "sin(theta) where cos(theta)")
    cart_only = M.copy()
    cart_only[0, 0] = p["m_c"]
    assert_variant_hint("2.9a", cart_only, p, "misses the pendulum's mass")
    # (b) gravity and spring
    assert_variant_hint("2.9b", G * [-1, 1], p, "spring's entry has the wrong sign")
    assert_variant_hint("2.9b", G * [1, -1], p, "weight's entry has the wrong sign")
    assert_variant_hint("2.9b", -G, p, "sign is wrong everywhere")
    assert_variant_hint("2.9b", cart_numbers(cart_lagrange(hanging_from="horizontal")[2], p), p,
                        "downward vertical")
    assert_variant_hint("2.9b", G * [0, 1], p, "spring is missing")
    assert_variant_hint("2.9b", G * [1, 0], p, "weight is missing")
    # (c) the accelerations
    assert_variant_hint("2.9c", np.linalg.solve(M, Q - G), p, "velocity term h is missing")
    assert_variant_hint("2.9c", np.linalg.solve(M, Q + h - G), p, "velocity term h has the wrong sign")
    assert_variant_hint("2.9c", np.linalg.solve(M, Q - h), p, "G of (b) is missing")
    assert_variant_hint("2.9c", np.linalg.solve(M, Q - h + G), p, "G has the wrong sign")
    assert_variant_hint("2.9c", np.linalg.solve(M, Q[::-1] - h - G), p, "acts on the cart")
    assert_variant_hint("2.9c", Q - h - G, p, "M qdd, not qdd")
    assert_variant_hint("2.9c", (Q - h - G) / np.diag(M), p, "diagonal of M")
    # another student's answer is wrong here (the public one, at a variant)
    if index:
        public = cart_solution(cart_params()[0])
        for eid, answer in (("2.9a", public[0]), ("2.9b", public[2]), ("2.9c", public[3])):
            assert judged(eid, answer, p).verdict == "wrong"


def test_2_9a_sanity_in_a_released_notebook():
    sanity = get("2.9a").sanity
    M = cart_solution(get("2.9a").params)[0]
    assert sanity(M) is None
    assert "symmetric" in sanity(M + [[0, 0.1], [0, 0]])
    assert "positive definite" in sanity(M * [[1, 5], [5, 1]])
    assert sanity([1.0, 2.0]) is None  # a wrong shape is said by the check itself


def test_a_released_notebook_checks_variants_without_the_key(capsys):
    """With a student's variant loaded, a value check says "pending" (or a sane-looking problem), never
    the verdict; a function check still judges on the public cases."""
    from mbdlib.exercises import check
    from mbdlib.exercises.core import _VARIANT, encode_variant, use_variant

    p = variants("2.9a")[0]
    token = encode_variant("s1", 2, {e.id: e.params_for(np.random.default_rng(VARIANT_SEEDS[0]))
                                     for e in exercises(2) if e.variant is not None})
    try:
        use_variant(token)
        M = cart_solution(p)[0]
        check("2.9a", M)
        check("2.9a", M + [[0, 0.1], [0, 0]])
        check("2.9c", cart_solution(p)[3])
        check("2.8", student_step)
    finally:
        _VARIANT.clear()
    lines = capsys.readouterr().out.splitlines()
    assert "verdict comes at grading" in lines[0] and "correct" not in lines[0]
    assert "symmetric" in lines[1]
    assert "verdict comes at grading" in lines[2]
    assert lines[3].startswith("✓ 2.8 correct")


# ---------------------------------------------------------------- hints never give the key away
def _shown(x):
    """How a number might be printed (2 decimals, 3 and 4 significant digits), if specific enough."""
    forms = {f"{x:.2f}", f"{x:.3g}", f"{x:.4g}", f"{abs(x):.3g}", f"{abs(x):.4g}"}
    return {f for f in forms if len(f.strip("-0.").replace(".", "")) >= 3}


@pytest.mark.parametrize("exercise", [e.id for e in exercises(2)])
def test_no_hint_prints_a_key(exercise):
    """Every hint a wrong answer can get (each mistake's, the generic ones for nudged keys, a released
    notebook's sanity test), at the public numbers and two students', holds no number of the key."""
    ex = get(exercise)
    settings = [dict(ex.params)] + ([ex.params_for(np.random.default_rng(s)) for s in VARIANT_SEEDS[:2]]
                                    if ex.variant is not None else [])
    for params in settings:
        cases = ex.grading_cases(None) if ex.is_function else [()]
        keys = [ex.key(*c, params=params) for c in cases]
        if isinstance(keys[0], sp.MatrixBase):
            numbers = set()
            shown_formulas = {str(e) for k in keys for e in k if len(str(e)) > 8}
        else:
            numbers = {f for k in keys for v in np.ravel(k) if abs(v) > 1e-3 for f in _shown(float(v))}
            shown_formulas = set()
        texts = [m.hint for m in ex.mistakes]
        wrongs = []
        for m in ex.mistakes:
            if m.answer is not None:
                wrongs.append([m.answer(*c, **params) for c in cases])
        if not isinstance(keys[0], sp.MatrixBase):
            for f in (lambda k: 1.1 * k, lambda k: k + 0.05, lambda k: -k, lambda k: np.round(k, 1),
                      lambda k: k * np.linspace(0.9, 1.2, np.size(k)).reshape(np.shape(k))):
                wrongs.append([f(np.asarray(k, dtype=float)) for k in keys])
        for outs in wrongs:
            texts.append(judge(ex, outs, cases, params).hint)
            if ex.sanity is not None:
                texts.append(ex.sanity(outs[0], **params) or "")
        for text in texts:
            assert not any(n in text for n in numbers), (exercise, text, numbers)
            assert not any(f in text for f in shown_formulas), (exercise, text)


# ---------------------------------------------------------------- graded as a class would
@pytest.mark.slow
def test_two_students_released_graded_and_a_borrowed_notebook(tmp_path):
    """Release the solution notebook for two students, grade it with the secret: everything correct for
    both; Bo hands in Ann's notebook: every exercise with its own numbers becomes wrong for him."""
    import csv
    from pathlib import Path

    from mbdlib.exercises.grade import grade
    from mbdlib.exercises.release import release_variants

    root = Path(__file__).resolve().parents[1]
    roster, secret = tmp_path / "roster.csv", tmp_path / "secret"
    roster.write_text("student_id,name,file\ns1,Ann,ann.ipynb\ns2,Bo,bo.ipynb\n")
    secret.write_bytes(b"chapter-2-secret-for-the-tests-0123456789")
    released = release_variants(root / "solutions" / "ch02_dynamics.ipynb", roster, secret, tmp_path / "rel",
                                allow_solutions=True)
    subs = tmp_path / "subs"
    subs.mkdir()
    for p in released:
        (subs / p.name).write_bytes(p.read_bytes())
    (tmp_path / "borrowed").mkdir()
    (tmp_path / "borrowed" / "bo.ipynb").write_bytes(released[0].read_bytes())  # Ann's, under Bo's name

    def table(folder, out):
        grade([folder], out, timeout=120, workers=2, roster=roster, secret_file=secret, log=lambda *a: None)
        return {(r["student"], r["exercise"]): r for r in csv.DictReader(out.open(encoding="utf-8"))}

    ids = [e.id for e in exercises(2)]
    honest = table(subs, tmp_path / "grades.csv")
    for s in ("s1", "s2"):
        assert [honest[s, i]["verdict"] for i in ids] == ["correct"] * len(ids), s
    borrowed = table(tmp_path / "borrowed", tmp_path / "borrowed.csv")
    for e in exercises(2):
        expected = "wrong" if e.variant is not None else "correct"  # functions and formulas are the same
        assert borrowed["s2", e.id]["verdict"] == expected, (e.id, borrowed["s2", e.id])


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


# ---------------------------------------------------------------- practice inside the pages (2.P1 ...)
# Each key checked against an independent computation; each typical mistake, built here, gets its hint.
from scipy.spatial.transform import Rotation  # noqa: E402

from mbdlib.exercises.core import practice_exercises  # noqa: E402


def test_practice_exercises_are_registered_with_no_points_and_a_mistake_each():
    exs = practice_exercises(2)
    assert [e.id for e in exs] == [f"2.P{k}" for k in range(1, len(exs) + 1)] and len(exs) >= 3
    for e in exs:
        assert e.points == 0 and e.practice and len(e.mistakes) >= 1, e.id


def _box_central(mass, a, b, c):
    return mass / 12 * np.diag([b**2 + c**2, a**2 + c**2, a**2 + b**2])


def test_2_P1_moment_is_the_rate_of_angular_momentum():
    """M = dH/dt by finite differences of H(t) = A(t) I' A(t)^T omega, A(t) a turn about omega (scipy)."""
    I_body = _box_central(0.5, 0.05, 0.15, 0.25)
    A0 = Rotation.from_euler("ZYX", [20, 30, 10], degrees=True).as_matrix()
    omega = np.array([6.0, 0.0, 0.0])

    def H(t):
        A = Rotation.from_rotvec(omega * t).as_matrix() @ A0
        return A @ I_body @ A.T @ omega

    h = 1e-6
    M = (H(h) - H(-h)) / (2 * h)
    assert_correct("2.P1", M)
    assert_hint("2.P1", np.cross(omega, I_body @ omega), "body-frame inertia")
    assert_hint("2.P1", np.cross(omega, A0.T @ I_body @ A0 @ omega), "wrong way round")
    assert_hint("2.P1", -M, "sign")


def test_2_P2_growth_rate_is_the_unstable_eigenvalue():
    """lambda = the largest real part of the eigenvalues of the torque-free Euler equations linearised about
    the spin, for the axis whose spin is unstable (the phone: 0.2 kg, 7.5 x 15 x 0.8 cm, 10 rad/s)."""
    I = np.diag(_box_central(0.2, 0.075, 0.15, 0.008))

    def growth(axis):
        w0 = 10.0 * np.eye(3)[axis]

        def f(w):
            return np.array([(I[1] - I[2]) * w[1] * w[2] / I[0], (I[2] - I[0]) * w[2] * w[0] / I[1],
                             (I[0] - I[1]) * w[0] * w[1] / I[2]])

        J = np.column_stack([(f(w0 + 1e-6 * e) - f(w0 - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
        return np.linalg.eigvals(J)

    rates = [growth(k).real.max() for k in range(3)]
    unstable = int(np.argmax(rates))
    assert unstable == 0 and rates[1] < 1e-6 and rates[2] < 1e-6  # x' (across the screen) is the middle axis
    lam = rates[0]
    assert_correct("2.P2", lam)
    assert_hint("2.P2", lam**2, "square root")
    assert_hint("2.P2", lam / 10.0, "Omega is missing")
    assert_hint("2.P2", np.abs(growth(1).imag).max(), "y'", "smallest")
    assert_hint("2.P2", np.abs(growth(2).imag).max(), "z'", "largest")


def test_2_P3_release_accelerations_from_lagrange():
    """q̈ = −M(0)⁻¹ G(0) with M and G of this file's own Lagrange derivation (1 kg, 1 m rods)."""
    values = {m1: 1, m2: 1, L1: 1, L2: 1, g: 9.81, q1: 0, q2: 0}
    M = np.array(mass().subs(values), dtype=float)
    G = np.array(gravity().subs(values), dtype=float).ravel()
    qdd = np.linalg.solve(M, -G)
    assert qdd[0] < 0 < qdd[1]  # rod 1 falls; rod 2 turns up relative to it
    assert_correct("2.P3", qdd)
    assert_hint("2.P3", -qdd, "sign")
    assert_hint("2.P3", -G, "solve")
    assert_hint("2.P3", -G / np.diag(M), "diagonal")
    assert_hint("2.P3", np.array([qdd[0], qdd[0] + qdd[1]]), "ABSOLUTE")


def test_2_P4_partial_velocities_are_derivatives_of_the_position():
    """v_C2^(j) = ∂r_C2/∂q_j by central differences of r_C2(q) (L1 = 1, L2 = 0.8, q = (−40°, 75°))."""
    def r_c2(q, absolute=False, lever=0.5):
        phi2 = q[1] if absolute else q[0] + q[1]
        return np.array([np.cos(q[0]), np.sin(q[0])]) + lever * 0.8 * np.array([np.cos(phi2), np.sin(phi2)])

    q = np.radians([-40.0, 75.0])

    def partials(**kw):
        return np.array([(r_c2(q + 1e-6 * e, **kw) - r_c2(q - 1e-6 * e, **kw)) / 2e-6 for e in np.eye(2)])

    V = partials()
    assert_correct("2.P4", V)
    assert_hint("2.P4", np.array([V[1], V[1]]), "elbow")
    assert_hint("2.P4", partials(absolute=True), "RELATIVE")
    assert_hint("2.P4", partials(lever=1.0), "centre C2")
    assert_hint("2.P4", V[::-1], "swapped")
    rod2 = 0.4 * np.array([np.cos(q.sum()), np.sin(q.sum())])
    along = np.array([[np.cos(q[0]), np.sin(q[0])], [0.0, 0.0]]) + rod2
    assert_hint("2.P4", along, "e_perp")


def test_2_P5_mdot_minus_2c_from_finite_differences_of_M():
    """Ṁ and the Christoffel C from central differences of this file's M(q) (1 kg, 1 m rods)."""
    values = {m1: 1, m2: 1, L1: 1, L2: 1}
    M_of = sp.lambdify((q1, q2), mass().subs(values), "numpy")
    q, qd, h = np.array([0.3, 0.8]), np.array([1.0, 0.5]), 1e-6
    dM = [(np.array(M_of(*(q + h * e))) - np.array(M_of(*(q - h * e)))) / (2 * h) for e in np.eye(2)]
    Mdot = dM[0] * qd[0] + dM[1] * qd[1]
    C = np.zeros((2, 2))
    for k in range(2):
        for j in range(2):
            C[k, j] = sum(0.5 * (dM[i][k, j] + dM[j][k, i] - dM[k][i, j]) * qd[i] for i in range(2))
    N = Mdot - 2 * C
    np.testing.assert_allclose(N, -N.T, atol=1e-8)  # skew, as the page says
    assert_correct("2.P5", N)
    assert_hint("2.P5", -N, "negative")
    assert_hint("2.P5", Mdot - C, "factor 2")
    assert_hint("2.P5", -2 * C, "Mdot is missing")
    assert_hint("2.P5", Mdot, "Mdot alone")
    assert_hint("2.P5", dM[1] - 2 * C, "chain rule")


def test_2_P6_gravity_torques_are_the_gradient_of_the_potential():
    """G = ∂V/∂q by central differences of V from mbdlib.dynamics.energy (another code path than rnea)."""
    from mbdlib.dynamics import energy
    from mbdlib.urdf import data_path, load_urdf

    ur5, zero = load_urdf(data_path("ur5.urdf")), np.zeros(6)

    def G(gravity):
        return np.array([(energy(ur5, h * e, zero, gravity=gravity)[1]
                          - energy(ur5, -h * e, zero, gravity=gravity)[1]) / (2 * h) for e in np.eye(6)])

    h = 1e-6
    down = G((0, 0, -9.81))
    assert abs(down[1]) > 10  # the shoulder holds the stretched-out arm
    assert_correct("2.P6", down)
    assert_hint("2.P6", np.zeros(6), "gravity is missing")
    assert_hint("2.P6", -down, "sign")
    assert_hint("2.P6", G((0, -9.81, 0)), "z up")


PRACTICE_JUNK = [j for j in JUNK if not callable(j) or isinstance(j, Exploding)]
PRACTICE_JUNK += [np.zeros(6), np.ones((3, 3))]


@pytest.mark.parametrize("answer", PRACTICE_JUNK, ids=range(len(PRACTICE_JUNK)))
def test_practice_never_crashes_never_correct(answer):
    for ex in practice_exercises(2):
        v = evaluate(ex.id, answer)
        assert v.verdict in ("wrong", "unanswered", "error"), (ex.id, v)
        assert (v.verdict == "unanswered") == (answer is None)


# ---------------------------------------------------------------- mass distribution (page 2.1): 2.P7, 2.10
def _gauss_points(mass, edges, centre=(0, 0, 0), A=None):
    """A uniform box as 8 point masses at the 2-point Gauss-Legendre nodes: exact for the quadratic
    integrands of the inertia, so the definition I = sum m (r.r 1 - r r^T) holds exactly (no parallel
    axes)."""
    A = np.eye(3) if A is None else A
    half = np.asarray(edges, dtype=float) / 2 / np.sqrt(3.0)
    nodes = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * half
    return [(mass / 8, np.asarray(centre, dtype=float) + A @ p) for p in nodes]


def _inertia_of_points(points):
    m = sum(w for w, _ in points)
    c = sum(w * r for w, r in points) / m
    return sum(w * ((r - c) @ (r - c) * np.eye(3) - np.outer(r - c, r - c)) for w, r in points)


def test_gauss_points_reproduce_a_box():
    box = _gauss_points(12.0, (1.0, 2.0, 3.0))
    np.testing.assert_allclose(_inertia_of_points(box), np.diag([13.0, 10.0, 5.0]), atol=1e-12)


def test_2_P7_bracket_with_bolt_from_point_masses():
    from mbdlib.exercises.ch02 import BOLT_P7, BRACKET_LEGS, BRACKET_RHO, BRACKET_T

    points = [p for a, b, c in BRACKET_LEGS
              for p in _gauss_points(BRACKET_RHO * a * b * BRACKET_T, (a, b, BRACKET_T), (*c, 0.0))]
    with_bolt = points + [(BOLT_P7["mass"], np.asarray(BOLT_P7["at"], dtype=float))]
    moments = np.linalg.eigvalsh(_inertia_of_points(with_bolt))
    assert_correct("2.P7", moments)
    assert_hint("2.P7", moments[::-1], "ascending")
    assert_hint("2.P7", np.linalg.eigvalsh(_inertia_of_points(points)), "bolt is missing")
    assert_hint("2.P7", np.sort(np.diag(_inertia_of_points(with_bolt))), "eigenvalues")
    m_all = sum(w for w, _ in with_bolt)
    c = sum(w * r for w, r in with_bolt) / m_all
    d = np.asarray(BOLT_P7["at"]) - c
    not_moved = _inertia_of_points(points) + BOLT_P7["mass"] * (d @ d * np.eye(3) - np.outer(d, d))
    assert_hint("2.P7", np.linalg.eigvalsh(not_moved), "moved to the new centre")


def _satellite_points(p, tilted=True):
    A = rot_y_(math.radians(p["tilt_deg"])) if tilted else np.eye(3)
    return (_gauss_points(p["bus_mass"], p["bus_edges"])
            + _gauss_points(p["panel_mass"], p["panel_edges"], p["panel_at"], A))


def rot_y_(a):
    return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])


@pytest.mark.parametrize("seed", [None, *VARIANT_SEEDS])
def test_2_10_satellite_from_point_masses_and_hints(seed):
    ex = get("2.10")
    p = ex.params if seed is None else ex.params_for(np.random.default_rng(seed))
    moments = np.linalg.eigvalsh(_inertia_of_points(_satellite_points(p)))
    assert_variant_correct("2.10", moments, p)
    assert ex.sanity(moments, **p) is None
    assert_variant_hint("2.10", np.linalg.eigvalsh(_inertia_of_points(_satellite_points(p, tilted=False))), p,
                        "turned about y")
    assert_variant_hint("2.10", moments[::-1], p, "ascending")
    assert "ascending" in ex.sanity(moments[::-1], **p)
    assert_variant_hint("2.10", np.sort(np.diag(_inertia_of_points(_satellite_points(p)))), p, "eigenvalues")
    # about the bus's centre instead of the satellite's: the definition with r measured from the origin
    pts = _satellite_points(p)
    I_bus = sum(w * (r @ r * np.eye(3) - np.outer(r, r)) for w, r in pts)
    assert_variant_hint("2.10", np.linalg.eigvalsh(I_bus), p, "whole satellite")


def test_2_10_variants_differ():
    assert_keys_differ("2.10", variants("2.10"))


# ---------------------------------------------------------------- loads (page 2.3): 2.P8, 2.11
def test_2_P8_tip_force_by_the_power_of_the_force():
    """Q_j = F . d r_tip / d q_j, by finite differences of the tip position written here."""
    from mbdlib.exercises.ch02 import ARM_P8

    (L1_, L2_), q, F = ARM_P8["lengths"], np.radians(ARM_P8["q_deg"]), np.array(ARM_P8["F_tip"][:2])

    def tip(x, lever2=L2_):
        return np.array([L1_ * np.cos(x[0]) + lever2 * np.cos(x[0] + x[1]),
                         L1_ * np.sin(x[0]) + lever2 * np.sin(x[0] + x[1])])

    h = 1e-6
    cols = [(tip(q + h * e) - tip(q - h * e)) / (2 * h) for e in np.eye(2)]
    Q = np.array([F @ c for c in cols])
    assert_correct("2.P8", Q)
    assert_hint("2.P8", -Q, "sign")
    assert_hint("2.P8", [0.0, Q[1]], "joint 1")
    cols_c = [(tip(q + h * e, L2_ / 2) - tip(q - h * e, L2_ / 2)) / (2 * h) for e in np.eye(2)]
    assert_hint("2.P8", [F @ c for c in cols_c], "centre of mass")


def _door_Q_by_energy_and_damper(p):
    """Q of the closer from the spring's energy (finite differences of V(theta)) plus the damper's power
    divided by theta_dot: two facts of page 2.3, not the projection the registry uses."""
    A, b = np.asarray(p["anchor"], dtype=float), p["b"]

    def length(th):
        return np.linalg.norm(b * np.array([np.cos(th), np.sin(th)]) - A)

    th, h = math.radians(p["theta_deg"]), 1e-6
    dl = (length(th + h) - length(th - h)) / (2 * h)             # d l / d theta
    spring = -p["stiffness"] * (length(th) - p["rest_length"]) * dl
    damper = -p["damping"] * (dl * p["theta_dot"]) ** 2 / p["theta_dot"]
    return spring + damper, spring, dl


@pytest.mark.parametrize("seed", [None, *VARIANT_SEEDS])
def test_2_11_door_closer_by_energy_and_power(seed):
    ex = get("2.11")
    p = ex.params if seed is None else ex.params_for(np.random.default_rng(seed))
    Q, spring, dl = _door_Q_by_energy_and_damper(p)
    assert Q < 0 and dl > 0                                      # the hints: it pulls the opening door shut
    assert_variant_correct("2.11", Q, p)
    assert_variant_hint("2.11", spring, p, "damper is missing")
    assert_variant_hint("2.11", -Q, p, "sign")
    A, th = np.asarray(p["anchor"], dtype=float), math.radians(p["theta_deg"])
    whole = -p["stiffness"] * np.linalg.norm(p["b"] * np.array([np.cos(th), np.sin(th)]) - A) * dl
    assert_variant_hint("2.11", whole + (Q - spring), p, "free length")
    about_centre = (1 - p["width"] / (2 * p["b"])) * Q                 # lever b - w/2 instead of b
    assert_variant_hint("2.11", about_centre, p, "centre of mass")


def test_2_11_variants_differ():
    assert_keys_differ("2.11", variants("2.11"))


# ---------------------------------------------------------------- generalized speeds (page 2.6): 2.P9, 2.12
def test_2_P9_mass_matrix_in_absolute_speeds_from_the_kinetic_energy():
    """T = 1/2 u^T M_u u with the rods' velocities written in the absolute angular speeds u (by hand)."""
    from mbdlib.exercises.ch02 import Q2_P9_DEG

    q2 = math.radians(Q2_P9_DEG)
    u1_, u2_ = sp.symbols("u1 u2")
    q1 = 0.0
    phi2 = q1 + q2                                 # rod 2's absolute angle; its rate is u2
    e_perp = lambda a: sp.Matrix([-sp.sin(a), sp.cos(a)])          # noqa: E731
    v1 = sp.Rational(1, 2) * u1_ * e_perp(q1)
    v2 = u1_ * e_perp(q1) + sp.Rational(1, 2) * u2_ * e_perp(phi2)
    T = (v1.dot(v1) + v2.dot(v2)) / 2 + (u1_**2 + u2_**2) / 24      # 1 kg, 1 m rods: I_C = 1/12
    M_u = np.array(sp.hessian(T, (u1_, u2_)), dtype=float)
    assert_correct("2.P9", M_u)
    W = np.array([[1.0, 0.0], [-1.0, 1.0]])
    M_q = np.linalg.inv(W).T @ M_u @ np.linalg.inv(W)                # back to the relative rates
    assert_hint("2.P9", M_q, "relative rates")
    Y = np.linalg.inv(W)
    assert_hint("2.P9", Y.T @ M_q @ Y, "transforms with Y")
    assert_hint("2.P9", W @ M_q @ W.T, "wrong side")


def _hover_by_newton(p):
    """q_dot and u_dot from the global equations: v = A (u1, u2); m a = A F; u_dot = d/dt (A^T v) by finite
    differences along a short motion integrated in global coordinates (scipy)."""
    th0, (u1_, u2_, u3_) = math.radians(p["theta_deg"]), p["u"]

    def A(th):
        return np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])

    v0 = A(th0) @ [u1_, u2_]

    def rhs(t, x):
        return [*x[3:], *(A(x[2]) @ p["force"] / p["mass"]), p["torque"] / p["J"]]

    def u_at(t):
        if t == 0:
            x = np.array([0.0, 0.0, th0, *v0, u3_])
        else:
            x = solve_ivp(rhs, (0, t), [0.0, 0.0, th0, *v0, u3_], rtol=1e-12, atol=1e-13).y[:, -1]
        return np.array([*(A(x[2]).T @ x[3:5]), x[5]])

    h = 1e-4
    u_dot = (u_at(h) - u_at(0.0)) / h                              # forward difference (t >= 0 only)
    u_dot2 = (u_at(2 * h) - u_at(0.0)) / (2 * h)
    return np.array([*v0, u3_]), 2 * u_dot - u_dot2                # Richardson: second order


@pytest.mark.parametrize("seed", [None, *VARIANT_SEEDS])
def test_2_12_hovercraft_against_the_global_equations(seed):
    p = get("2.12a").params if seed is None else get("2.12a").params_for(np.random.default_rng(seed))
    same = get("2.12b").params if seed is None else get("2.12b").params_for(np.random.default_rng(seed))
    assert p == same
    q_dot, u_dot = _hover_by_newton(p)
    assert_variant_correct("2.12a", q_dot, p)
    assert_variant_correct("2.12b", u_dot, p)
    exact = get("2.12b").key(params=p)
    th, (u1_, u2_, u3_) = math.radians(p["theta_deg"]), p["u"]
    A = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
    assert_variant_hint("2.12a", [*(A.T @ [u1_, u2_]), u3_], p, "wrong way round")
    assert_variant_hint("2.12a", [*q_dot[:2], 0.0], p, "theta_dot is missing")
    (F1, F2), m = p["force"], p["mass"]
    assert_variant_hint("2.12b", [F1 / m, F2 / m, exact[2]], p, "transport term")
    assert_variant_hint("2.12b", [F1 / m - u3_ * u2_, F2 / m + u3_ * u1_, exact[2]], p, "wrong sign")


def test_2_12_variants_differ():
    assert_keys_differ("2.12b", variants("2.12b"))


# ---------------------------------------------------------------- constraint forces (page 2.7): 2.P10
def test_2_P10_pin_force_from_newton_for_the_centre():
    """Newton for the centre of mass on its circle: the pin pulls with m g + m (L/2) w^2 at the bottom, where
    w^2 follows from the energy of a rod turning about its end (m L^2 / 3)."""
    from mbdlib.exercises.ch02 import ROD_P10

    m, L, th0 = ROD_P10["mass"], ROD_P10["length"], math.radians(ROD_P10["release_deg"])
    w2 = m * 9.81 * (L / 2) * (1 - math.cos(th0)) / (0.5 * m * L**2 / 3)
    pull = m * 9.81 + m * (L / 2) * w2
    assert_correct("2.P10", [0.0, pull])
    assert_hint("2.P10", [0.0, m * 9.81], "centripetal")
    assert_hint("2.P10", [0.0, -pull], "sign")
    bob_w2 = 2 * 9.81 * (1 - math.cos(th0)) / L                    # a point mass at L on a massless rod
    assert_hint("2.P10", [0.0, m * 9.81 + m * L * bob_w2], "point mass")
    assert_hint("2.P10", [0.0, m * 9.81 + m * L * w2], "L/2")
