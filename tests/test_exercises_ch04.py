"""Chapter 4 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: the counts of document 001 (its closing paragraph: 6, or 42/36;
with Euler parameters 49/43) and hand counts from the mechanisms' parts (4.1-4.2); the
slider-crank's loop written with complex numbers and evaluated at the state of the
library's Cartesian model (4.3); the Jacobian of the four-bar's revolute equations
differentiated by sympy, and the library's Φ_q by finite differences at a random pose
(4.4-4.5).  Wrong answers are built here.
"""

import csv
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from exercise_helpers import Exploding, assert_correct, assert_hint, assert_never_crashes_never_correct
from scipy.linalg import null_space

from mbdlib import dae
from mbdlib.catalogue import mechanism
from mbdlib.exercises import evaluate, exercises, get
from mbdlib.exercises.core import _VARIANT, _pending, encode_variant, judge, use_variant
from mbdlib.exercises.grade import grade, student_params
from mbdlib.exercises.release import release_variants

ROOT = Path(__file__).resolve().parents[1]


def test_chapter_4_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(4)
    # 4.6 is one problem in three parts, each checked and graded on its own
    assert [e.id for e in exs] == ["4.1", "4.2", "4.3", "4.4", "4.5", "4.6a", "4.6b", "4.6c", "4.7", "4.8",
                                   "4.9"]
    for e in exs:
        assert e.points > 0 and len(e.mistakes) >= 2, e.id
    assert sum(e.points for e in exs) == 18
    assert [e.id for e in exs if e.variant is not None] == ["4.6b", "4.6c"]
    assert [e.id for e in exs if e.is_function] == ["4.7", "4.9"]
    assert get("4.7").hidden_cases is not None and get("4.9").hidden_cases is not None


# ---------------------------------------------------------------- 4.1 the 6R arm
def test_4_1_counts_of_document_001():
    assert_correct("4.1", [[6, 0], [42, 36], [49, 43]])
    assert_correct("4.1", np.array([[6, 0], [42, 36], [49, 43]], dtype=int))


def test_4_1_mistakes():
    assert_hint("4.1", [[6, 0], [36, 30], [42, 36]], "base")
    assert_hint("4.1", [[6, 0], [42, 36], [49, 36]], "normalization")
    assert_hint("4.1", [[6, 0], [42, 12], [49, 19]], "removes 5")
    assert_hint("4.1", [[6, 6], [42, 36], [49, 43]], "no constraint")
    assert_hint("4.1", [[6, 0], [42, 36], [49, 44]], "entry [2, 1]")
    assert_hint("4.1", [6, 0, 42, 36, 49, 43], "shape")


# ---------------------------------------------------------------- 4.2 three coordinate sets
PARTS = {"slider_crank": (3, 4), "fourbar": (3, 4)}  # (moving bodies, joints); every joint removes 2


def hand_table():
    rows = []
    for bodies, joints in PARTS.values():
        cut = joints - bodies  # a spanning tree has one joint per body
        for n, m in ((3 * bodies, 2 * joints), (bodies, 2 * cut), (3 + bodies - 1, 2 * (cut + 1))):
            rows.append([n, m, n - m])
    return np.array(rows)


def test_4_2_hand_counts_and_the_library_rank():
    table = hand_table()
    assert table[:, 2].tolist() == [1] * 6  # Grübler: 3·3 - 2·4 = 1 for both mechanisms
    assert_correct("4.2", table)
    for i, (name, c) in enumerate((n, c) for n in PARTS for c in ("cartesian", "relative", "mixed")):
        model = mechanism(name, coordinates=c, gravity=(0.0, -9.81))
        J = model.phi_q(model.q0, 0.0)
        assert J.shape == tuple(table[i, :2][::-1]), (name, c)
        assert model.n - np.linalg.matrix_rank(J) == table[i, 2]


def test_4_2_mistakes():
    t = hand_table()
    wrong = t.copy()
    wrong[[1, 4], 1] = 8
    assert_hint("4.2", wrong, "spanning tree", "CUT joint")
    wrong = t.copy()
    wrong[[2, 5], 1] = 2
    assert_hint("4.2", wrong, "free body", "pin O")
    wrong = t.copy()
    wrong[[0, 3], 0] = 12
    assert_hint("4.2", wrong, "ground")
    wrong = t.copy()
    wrong[[2, 5], 0] = 3
    assert_hint("4.2", wrong, "AND one joint coordinate")
    wrong = t.copy()
    wrong[:, 2] = [1, 3, 1, 1, 3, 1]
    assert_hint("4.2", wrong, "same in every coordinate set")
    wrong = t.copy()
    wrong[3, 1] = 7
    assert_hint("4.2", wrong, "entry [3, 1]")


# ---------------------------------------------------------------- 4.3 loop closure
theta, beta, s = sp.symbols("theta beta s", real=True)
r, l = sp.symbols("r l", positive=True)


def loop_complex(rod=beta, sign=1):
    """O + r e^{iθ} + l e^{iβ} - s = 0 as (real, imaginary) parts."""
    z = r * sp.exp(sp.I * theta) + sign * l * sp.exp(sp.I * rod) - s
    return sp.Matrix([sp.re(sp.expand_complex(z)), sp.im(sp.expand_complex(z))])


def test_4_3_loop_closes_at_the_library_state():
    phi = loop_complex()
    assert_correct("4.3", phi)
    assert_correct("4.3", -phi)
    model = mechanism("slider_crank", coordinates="cartesian", r=0.3, l=1.0, theta=0.6, omega=2.0,
                      gravity=(0.0, -9.81))
    q, qd = model.q0, model.qd0  # crank (x, y, φ), rod (x, y, φ), slider (x, y, φ)
    state = {theta: q[2], beta: q[5], s: q[6], r: 0.3, l: 1.0}
    np.testing.assert_allclose(np.array(phi.subs(state), dtype=float).ravel(), 0, atol=1e-12)
    J = np.array(phi.jacobian([theta, beta, s]).subs(state), dtype=float)
    np.testing.assert_allclose(J @ [qd[2], qd[5], qd[6]], 0, atol=1e-12)  # and so do the velocities
    # the relative-angle mistake does not close there
    wrong = loop_complex(rod=theta + beta)
    assert np.abs(np.array(wrong.subs(state), dtype=float)).max() > 1e-3


def test_4_3_mistakes():
    assert_hint("4.3", loop_complex(sign=-1), "plus sign")
    assert_hint("4.3", -loop_complex(sign=-1), "plus sign")
    assert_hint("4.3", loop_complex(rod=theta + beta), "ABSOLUTE")
    assert_hint("4.3", loop_complex() + sp.Matrix([s, 0]), "s is missing")
    swapped = sp.Matrix([r * sp.sin(theta) + l * sp.sin(beta) - s, r * sp.cos(theta) + l * sp.cos(beta)])
    assert_hint("4.3", swapped, "swapped")
    assert evaluate("4.3", loop_complex() * 2).verdict == "wrong"


# ---------------------------------------------------------------- 4.4, 4.5 sparsity
def symbolic_pattern():
    """Φ_q of the four revolutes, differentiated by sympy; 1 where the entry is not identically 0."""
    q = sp.symbols("x1 y1 p1 x2 y2 p2 x3 y3 p3", real=True)
    a, b = sp.symbols("a b", positive=True)  # generic body-frame pin coordinates

    def point(k, sx, sy):
        if k is None:
            return sp.Matrix([sx, sy])
        x, y, p = q[3 * k: 3 * k + 3]
        return sp.Matrix([x + sx * sp.cos(p) - sy * sp.sin(p), y + sx * sp.sin(p) + sy * sp.cos(p)])

    joints = ((None, 0), (0, 1), (1, 2), (None, 2))
    phi = sp.Matrix.vstack(*(point(i, a, b) - point(j, b, a) for i, j in joints))
    J = phi.jacobian(q)
    return np.array([[0 if sp.simplify(e) == 0 else 1 for e in row] for row in J.tolist()])


def fd_jacobian(model, q, h=1e-6):
    return np.column_stack([(model.phi(q + h * e, 0.0) - model.phi(q - h * e, 0.0)) / (2 * h)
                            for e in np.eye(len(q))])


def test_4_4_pattern_by_sympy_and_finite_differences():
    P = symbolic_pattern()
    assert P.shape == (8, 9)
    assert_correct("4.4", P)
    assert_correct("4.4", P.astype(bool).astype(float))
    model = mechanism("fourbar", coordinates="cartesian", theta=0.7, gravity=(0.0, -9.81))
    J = fd_jacobian(model, model.q0)
    np.testing.assert_array_equal(np.abs(J) > 1e-8, P.astype(bool))


def test_4_4_mistakes():
    P = symbolic_pattern()
    full = P.copy()
    full[np.ix_([0, 1], [0, 1])] = 1
    full[np.ix_([2, 3], [0, 1, 3, 4])] = 1
    full[np.ix_([4, 5], [3, 4, 6, 7])] = 1
    full[np.ix_([6, 7], [6, 7])] = 1
    assert_hint("4.4", full, "identity")
    no_angles = P.copy()
    no_angles[:, [2, 5, 8]] = 0
    assert_hint("4.4", no_angles, "phi columns")
    ground = P.copy()
    ground[[0, 1, 6, 7], 0:3] = 1
    assert_hint("4.4", ground, "ground has no coordinates")
    assert_hint("4.4", P.T, "transposed")
    assert_hint("4.4", np.ones((8, 9)), "sparse")
    one_off = P.copy()
    one_off[7, 0] = 1
    assert_hint("4.4", one_off, "entry [7, 0]")


def test_4_5_nonzeros():
    model = mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -9.81))
    masses = np.diag(model.M(model.q0))
    assert np.all(masses > 0)
    nnz_M = len(masses)  # diagonal, all positive
    nnz_phi = int(symbolic_pattern().sum())
    assert nnz_phi == 2 * (2 + 4 + 4 + 2)  # x and y rows: 2 at the ground joints, 4 between two bodies
    assert_correct("4.5", [nnz_M, nnz_phi, nnz_M + 2 * nnz_phi])


def test_4_5_mistakes():
    assert_hint("4.5", [81, 24, 129], "diagonal")
    assert_hint("4.5", [27, 24, 75], "is not full")
    assert_hint("4.5", [9, 24, 33], "TWICE")
    assert_hint("4.5", [9, 36, 81], "identity")
    assert_hint("4.5", [9, 24, 56], "entry [2]")


# ---------------------------------------------------------------- 4.6 the slider-crank end to end
phi = sp.Symbol("phi", real=True)
m1_, m2_, m3_ = sp.symbols("m1 m2 m3", positive=True)
QD = sp.Matrix(sp.symbols("theta_dot phi_dot s_dot", real=True))
Q6 = sp.Matrix([theta, phi, s])
G = 9.81
SEEDS = (3, 11, 29, 101, 2024)  # five students' variants


def loop6_complex(rod_angle=None, rod=1, slider=1):
    """B reached along crank and rod minus the slider's pin, with complex numbers: (real, imaginary)."""
    rod_angle = theta + phi if rod_angle is None else rod_angle
    z = sp.expand_complex(r * sp.exp(sp.I * theta) + rod * l * sp.exp(sp.I * rod_angle) - slider * s)
    return sp.Matrix([sp.re(z), sp.im(z)])


def test_4_6a_cut_joint_closes_at_the_library_state():
    Phi = loop6_complex()
    assert_correct("4.6a", Phi)
    assert_correct("4.6a", -Phi)
    model = mechanism("slider_crank", coordinates="cartesian", r=0.3, l=1.0, theta=0.6, omega=2.0,
                      gravity=(0.0, -9.81))
    x, xd = model.q0, model.qd0  # crank (x, y, φ), rod (x, y, φ), slider (x, y, φ)
    state = {theta: x[2], phi: x[5] - x[2], s: x[6], r: 0.3, l: 1.0}
    np.testing.assert_allclose(np.array(Phi.subs(state), dtype=float).ravel(), 0, atol=1e-12)
    J = Phi.jacobian([theta, phi, s])
    Jn = np.array(J.subs(state), dtype=float)
    np.testing.assert_allclose(Jn @ [xd[2], xd[5] - xd[2], xd[6]], 0, atol=1e-12)
    # n = 3, m = 2 and rank 2 (DOF 1) wherever the loop closes: the (phi, s) minor is l cos(theta + phi)
    assert np.linalg.matrix_rank(Jn) == 2
    assert sp.simplify(J[:, 1:].det() - l * sp.cos(theta + phi)) == 0


def test_4_6a_mistakes():
    Phi = loop6_complex()
    swapped = sp.Matrix([Phi[1] - s, Phi[0] + s])  # cos and sin exchanged
    for sign in (1, -1):
        assert_hint("4.6a", sign * loop6_complex(rod_angle=phi), "RELATIVE")
        assert_hint("4.6a", sign * loop6_complex(slider=0), "s is missing")
        assert_hint("4.6a", sign * loop6_complex(rod=-1), "rod's term has the wrong sign")
        assert_hint("4.6a", sign * swapped, "swapped")
        assert_hint("4.6a", sign * sp.Matrix([Phi[1], Phi[0]]), "wrong order")
    guide_too = Phi.col_join(sp.Matrix([r * sp.sin(theta) + l * sp.sin(theta + phi)]))
    assert_hint("4.6a", guide_too, "tree joint", "cut joint B")
    assert evaluate("4.6a", 2 * Phi).verdict == "wrong"
    assert evaluate("4.6a", loop_complex()).verdict == "wrong"  # 4.3's absolute beta is not phi


@cache
def lagrange(absolute=False, crank_about_centre=False):
    """T and V of the slider-crank by sympy, in (theta, phi, s); with ``absolute`` phi is the rod's
    absolute angle; with ``crank_about_centre`` the crank only spins about its centre (a mistake)."""
    rod_angle = phi if absolute else theta + phi
    centres = [r / 2 * e2(theta), r * e2(theta) + l / 2 * e2(rod_angle), sp.Matrix([s, 0])]

    def rate(x):
        return x.jacobian(Q6) * QD

    v = [rate(c) for c in centres]
    T = (m2_ * v[1].dot(v[1]) + m3_ * v[2].dot(v[2])) / 2
    T += (0 if crank_about_centre else m1_ * v[0].dot(v[0]) / 2) + m1_ * r**2 / 24 * QD[0] ** 2
    T += m2_ * l**2 / 24 * rate(sp.Matrix([rod_angle]))[0] ** 2
    V = G * (m1_ * centres[0][1] + m2_ * centres[1][1])
    return T, V


def e2(a):
    return sp.Matrix([sp.cos(a), sp.sin(a)])


def cartesian_state(p):
    """The library's Cartesian slider-crank at the data p, and its state in (theta, phi, s)."""
    model = mechanism("slider_crank", coordinates="cartesian", r=p["r"], l=p["l"], m_crank=p["m1"],
                      m_rod=p["m2"], m_slider=p["m3"], theta=p["theta"], omega=p.get("omega", 0.0),
                      gravity=(0.0, -9.81))
    x, xd = model.q0, model.qd0
    return model, np.array([x[2], x[5] - x[2], x[6]]), np.array([xd[2], xd[5] - xd[2], xd[6]])


def values(p, q, qd=(0.0, 0.0, 0.0)):
    return {r: p["r"], l: p["l"], m1_: p["m1"], m2_: p["m2"], m3_: p["m3"],
            **dict(zip(Q6, q, strict=True)), **dict(zip(QD, qd, strict=True))}


@cache
def mass_function(**how):
    T, _ = lagrange(**how)
    args = list(values({k: 0.0 for k in ("r", "l", "m1", "m2", "m3")}, [0.0] * 3, [0.0] * 3))
    return sp.lambdify(args, sp.hessian(T, QD), "numpy")


def sympy_M(p, q, **how):
    return np.asarray(mass_function(**how)(*values(p, q).values()), dtype=float)


def variants(exercise_id):
    ex = get(exercise_id)
    return [ex.params] + [ex.params_for(np.random.default_rng(seed)) for seed in SEEDS]


def test_4_6_parts_describe_one_mechanism_per_student():
    secret = b"a course secret of 32 bytes ....."
    for student in ("s1", "s2", "s3"):
        b_, c_ = (student_params(get(i), student, secret) for i in ("4.6b", "4.6c"))
        assert b_ == c_ and b_ != get("4.6b").params
    assert student_params(get("4.6b"), "s1", secret) != student_params(get("4.6b"), "s2", secret)
    assert get("4.6b").params == get("4.6c").params


def test_4_6b_mass_matrix_by_sympy_and_the_cartesian_kinetic_energy():
    keys = []
    for p in variants("4.6b"):
        model, q, _ = cartesian_state(p)
        M = sympy_M(p, q)
        key = get("4.6b").key(params=p)
        np.testing.assert_allclose(key, M, rtol=1e-10, atol=1e-12)
        assert np.all(np.linalg.eigvalsh(M) > 0) and get("4.6b").sanity(M, **p) is None
        # T = 1/2 qd^T M qd is the Cartesian model's kinetic energy for any motion it allows
        moving = cartesian_state({**p, "omega": 1.7})
        xd, qd = moving[0].qd0, moving[2]
        np.testing.assert_allclose(qd @ M @ qd, xd @ moving[0].M(moving[0].q0) @ xd, rtol=1e-9)
        keys.append(key)
    assert all(not np.allclose(a, b) for i, a in enumerate(keys) for b in keys[i + 1:])


def wrong_M(p, q, kind):
    """Typical wrong mass matrices, built here from the sympy M."""
    M = sympy_M(p, q)
    rr, ll, m1, m2 = p["r"], p["l"], p["m1"], p["m2"]
    rod = np.array([[1.0, 1, 0], [1, 1, 0], [0, 0, 0]])
    coupling = np.array([[1.0, 0.5, 0], [0.5, 0, 0], [0, 0, 0]])
    if kind == "crank":
        M[0, 0] -= m1 * rr**2 / 4
    elif kind == "rod rotation":
        M -= m2 * ll**2 / 12 * rod
    elif kind == "rod twice":
        M += m2 * ll**2 / 4 * rod
    elif kind == "coupling":
        M -= m2 * rr * ll * np.cos(q[1]) * coupling
    elif kind == "absolute angle":
        M += m2 * rr * ll * (np.cos(q[0] + q[1]) - np.cos(q[1])) * coupling
    elif kind == "factor 2":
        M[[0, 1], [1, 0]] += m2 * rr * ll * np.cos(q[1]) / 2
    elif kind == "slider":
        M[2, 2] = 0.0
    elif kind == "absolute coordinates":
        M = sympy_M(p, [q[0], q[0] + q[1], q[2]], absolute=True)
    elif kind == "branch":
        M = sympy_M(p, [q[0], np.pi - 2 * q[0] - q[1], q[2]])  # beta -> pi - beta
    return M


HINTS_6B = {"crank": "parallel-axis", "rod rotation": "rotation is missing", "rod twice": "counted twice",
            "coupling": "coupling between crank and rod is missing", "absolute angle": "angle BETWEEN",
            "factor 2": "factor 2", "slider": "slider's mass", "absolute coordinates": "ABSOLUTE angle as",
            "branch": "other assembly"}


def test_4_6b_mistakes_in_every_variant():
    ex = get("4.6b")
    for p in variants("4.6b"):
        q = cartesian_state(p)[1]
        for kind, words in HINTS_6B.items():
            v = judge(ex, [wrong_M(p, q, kind)], [()], p)
            assert v.verdict == "wrong" and words in v.hint, (p, kind, v)
        off = sympy_M(p, q)
        off[1, 1] *= 1.5
        assert "entry [1, 1] is too large" in judge(ex, [off], [()], p).hint
    assert_hint("4.6b", wrong_M(ex.params, cartesian_state(ex.params)[1], "crank"), "parallel-axis")


def test_4_6b_sanity_without_the_key():
    p = get("4.6b").params_for(np.random.default_rng(7))
    q = cartesian_state(p)[1]
    sanity = get("4.6b").sanity
    M = sympy_M(p, q)
    assert sanity(M, **p) is None
    lower = np.tril(M)
    assert "not symmetric" in sanity(lower, **p)
    assert "not positive definite" in sanity(wrong_M(p, q, "slider"), **p)
    # in a released notebook the check says what it can see, and leaves the verdict to grading
    try:
        use_variant(encode_variant("s1", 4, {"4.6b": p}))
        assert _pending(get("4.6b"), M).verdict == "pending"
        v = _pending(get("4.6b"), wrong_M(p, q, "slider"))
        assert v.verdict == "wrong" and "not positive definite" in v.hint
        assert _pending(get("4.6b"), wrong_M(p, q, "crank")).verdict == "pending"  # needs the key
    finally:
        _VARIANT.clear()


@cache
def kkt_pieces(crank_about_centre=False):
    """M, Q (velocity terms, gravity), Phi_q and gamma by sympy, as functions of the values() in order."""
    T, V = lagrange(crank_about_centre=crank_about_centre)
    dT = sp.Matrix([T])
    Phi_q = loop6_complex().jacobian(Q6)
    pieces = (sp.hessian(T, QD), dT.jacobian(Q6).T - dT.jacobian(QD).T.jacobian(Q6) * QD,
              -sp.Matrix([V]).jacobian(Q6).T, Phi_q, -(Phi_q * QD).jacobian(Q6) * QD)
    args = list(values({k: 0.0 for k in ("r", "l", "m1", "m2", "m3")}, [0.0] * 3, [0.0] * 3))
    return [sp.lambdify(args, x, "numpy") for x in pieces]


def sympy_kkt(p, gamma_sign=1, lam_sign=1, gamma=True, rates=True, velocity=1, gravity=1, order="q",
              crank_about_centre=False):
    """[q_ddot, lambda] from Lagrange's equations (sympy) and the complex-number loop, solved by numpy."""
    _, q, qd = cartesian_state(p)
    if not rates:
        qd = np.array([qd[0], 0.0, 0.0])
    at = values(p, q, qd)
    M, Qv, Qg, Phi_q, gam = (np.asarray(f(*at.values()), dtype=float) for f in kkt_pieces(crank_about_centre))
    K = np.block([[M, Phi_q.T], [Phi_q, np.zeros((2, 2))]])
    rhs = np.concatenate([(velocity * Qv + gravity * Qg).ravel(), gamma_sign * gamma * gam.ravel()])
    x = np.linalg.solve(K, rhs)
    x[3:] *= lam_sign
    return np.concatenate([x[3:], x[:3]]) if order == "lambda" else x


def test_4_6c_by_lagrange_and_by_the_cartesian_model():
    keys = []
    for p in variants("4.6c"):
        key = get("4.6c").key(params=p)
        np.testing.assert_allclose(key, sympy_kkt(p), rtol=1e-9, atol=1e-9)
        # the same instant in Cartesian coordinates: same accelerations, and the pin B's multipliers are the
        # same numbers (the same equations, rod's end minus slider's pin)
        model, _, _ = cartesian_state(p)
        xdd, lam = dae.accelerations(model.system(), 0.0, model.q0, model.qd0)
        np.testing.assert_allclose(key[:3], [xdd[2], xdd[5] - xdd[2], xdd[6]], rtol=1e-8, atol=1e-8)
        pin_B = [i for i, label in enumerate(model.labels) if label.startswith("revolute B")]
        np.testing.assert_allclose(key[3:], lam[pin_B], rtol=1e-8, atol=1e-8)
        assert get("4.6c").sanity(key, **p) is None
        keys.append(key)
    assert all(not np.allclose(a, b) for i, a in enumerate(keys) for b in keys[i + 1:])
    assert_correct("4.6c", sympy_kkt(get("4.6c").params))


HINTS_6C = [({"gamma_sign": -1}, "gamma has the wrong sign"), ({"lam_sign": -1}, "lambda has the wrong sign"),
            ({"gamma": False}, "gamma is not zero"), ({"rates": False}, "phi_dot and s_dot are not zero"),
            ({"velocity": 0}, "velocity terms of Q are missing"),
            ({"velocity": -1}, "velocity terms of Q have the wrong sign"),
            ({"gravity": 0}, "gravity is missing"), ({"gravity": -1}, "gravity points the wrong way"),
            ({"order": "lambda"}, "the order is"), ({"crank_about_centre": True}, "check M as in (b)")]


def test_4_6c_mistakes_in_every_variant():
    ex = get("4.6c")
    for p in variants("4.6c"):
        for how, words in HINTS_6C:
            v = judge(ex, [sympy_kkt(p, **how)], [()], p)
            assert v.verdict == "wrong" and words in v.hint, (p, how, v)
        assert "AND lambda" in judge(ex, [sympy_kkt(p)[:3]], [()], p).hint
    assert_hint("4.6c", sympy_kkt(ex.params, gamma_sign=-1), "gamma has the wrong sign")


def test_4_6c_sanity_sees_the_acceleration_constraint_only():
    p = get("4.6c").params_for(np.random.default_rng(5))
    sanity = get("4.6c").sanity
    assert sanity(sympy_kkt(p), **p) is None
    assert "acceleration constraint" in sanity(sympy_kkt(p, gamma_sign=-1), **p)
    assert "acceleration constraint" in sanity(sympy_kkt(p, rates=False), **p)
    assert sanity(sympy_kkt(p, lam_sign=-1), **p) is None  # lambda needs the key


# ---------------------------------------------------------------- 4.7 the KKT solve as a function
def kkt_lu(M, Phi_q, Q, gamma):
    """The KKT matrix assembled and solved by LU (numpy)."""
    m = len(gamma)
    K = np.block([[M, Phi_q.T], [Phi_q, np.zeros((m, m))]])
    return np.linalg.solve(K, np.concatenate([Q, gamma]))


def kkt_null_space(M, Phi_q, Q, gamma):
    """Null-space method: q_ddot = q_p + N z with Phi_q N = 0; lambda from Phi_q^T lambda = Q - M q_ddot."""
    q_p = np.linalg.lstsq(Phi_q, gamma, rcond=None)[0]
    N = null_space(Phi_q)
    z = np.linalg.solve(N.T @ M @ N, N.T @ (Q - M @ q_p)) if N.size else np.zeros(0)
    qdd = q_p + N @ z
    lam = np.linalg.lstsq(Phi_q.T, Q - M @ qdd, rcond=None)[0]
    return np.concatenate([qdd, lam])


def test_4_7_reference_by_the_null_space_method_on_public_and_hidden_cases():
    ex = get("4.7")
    public = ex.grading_cases(None)
    assert [c[1].shape for c in public] == [(2, 3), (3, 3), (2, 5)]
    sizes = set()
    for case in public + [c for seed in SEEDS for c in ex.grading_cases(np.random.default_rng(seed))]:
        M, J, Q, g = case
        n, m = len(Q), len(g)
        assert M.shape == (n, n) and J.shape == (m, n) and np.allclose(M, M.T)
        assert np.linalg.eigvalsh(M).min() > 0 and np.linalg.matrix_rank(J) == m
        np.testing.assert_allclose(ex.key(*case), kkt_null_space(*case), rtol=1e-8, atol=1e-9)
        sizes.add((n, m))
    assert len(sizes) >= 8 and any(n == m for n, m in sizes) and max(n for n, _ in sizes) > 5
    # the first public case is 4.6c's slider-crank; driven at the crank (gamma 0) it cannot accelerate
    np.testing.assert_allclose(ex.key(*public[0]), get("4.6c").key(), rtol=1e-12)
    assert abs(ex.key(*public[1])[0]) < 1e-10


def test_4_7_function_answers():
    assert_correct("4.7", kkt_lu)
    assert_correct("4.7", kkt_null_space)

    def gamma_negated(M, J, Q, g):
        return kkt_lu(M, J, Q, -g)

    def lambda_opposite(M, J, Q, g):  # M q_ddot - Phi_q^T lambda = Q
        m = len(g)
        return np.linalg.solve(np.block([[M, -J.T], [J, np.zeros((m, m))]]), np.concatenate([Q, g]))

    def lambda_first(M, J, Q, g):
        x = kkt_lu(M, J, Q, g)
        return np.concatenate([x[len(Q):], x[:len(Q)]])

    def free(M, J, Q, g):
        return np.concatenate([np.linalg.solve(M, Q), np.zeros(len(g))])

    def range_space_without_inverse(M, J, Q, g):
        Mi = np.linalg.inv(M)
        lam = np.linalg.solve(J @ Mi @ J.T, J @ Mi @ Q - g)
        return np.concatenate([Mi @ Q - J.T @ lam, lam])

    def only_q_ddot(M, J, Q, g):
        return kkt_lu(M, J, Q, g)[:len(Q)]

    assert_hint("4.7", gamma_negated, "Phi_q q_ddot = gamma")
    assert_hint("4.7", lambda_opposite, "lambda has the wrong sign", "+Phi_q^T")
    assert_hint("4.7", lambda_first, "the order is")
    assert_hint("4.7", free, "constraints are missing")
    assert_hint("4.7", range_space_without_inverse, "not divided by the mass")
    assert_hint("4.7", only_q_ddot, "q_ddot AND lambda")
    assert_hint("4.7", lambda M, J, Q, g: 1.5 * kkt_lu(M, J, Q, g), "for input", "constant multiple")

    def not_transposed(M, J, Q, g):  # Phi_q in the upper right: numpy refuses unless m = n
        m = len(g)
        return np.linalg.solve(np.block([[M, J], [J, np.zeros((m, m))]]), np.concatenate([Q, g]))

    v = evaluate("4.7", not_transposed)
    assert v.verdict == "error" and "ValueError" in v.hint and "dimensions" in v.hint


def test_4_7_right_only_on_the_public_cases_is_wrong_on_hidden_ones():
    ex = get("4.7")
    public = ex.grading_cases(None)
    table = {tuple(np.concatenate([np.ravel(a) for a in c])): ex.key(*c) for c in public}

    def lookup(M, J, Q, g):
        key = tuple(np.concatenate([np.ravel(a) for a in (M, J, Q, g)]))
        return table.get(key, np.zeros(len(Q) + len(g)))

    def two_constraints(M, J, Q, g):  # a zero block of the public slider-crank's size
        K = np.block([[M, J.T], [J, np.zeros((2, 2))]])
        return np.linalg.solve(K, np.concatenate([Q, g]))

    assert evaluate("4.7", lookup).verdict == "correct"
    for seed in SEEDS:
        hidden = ex.grading_cases(np.random.default_rng(seed))
        assert judge(ex, [kkt_lu(*c) for c in hidden], hidden).verdict == "correct"
        assert judge(ex, [lookup(*c) for c in hidden], hidden).verdict == "wrong"
    assert evaluate("4.7", two_constraints).verdict == "error"  # the driven case has three


@pytest.mark.slow
def test_chapter_4_graded_end_to_end_with_variants(tmp_path):
    """Released for two students: every exercise correct for both; one's notebook under the other's name
    gets the variant parts wrong (4.6b, 4.6c), the rest right."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,file\ns1,Ann,ann.ipynb\ns2,Bo,bo.ipynb\n")
    secret = tmp_path / "secret"
    secret.write_bytes(b"chapter four test secret, 32 bytes or so")
    solution = ROOT / "solutions" / "ch04_coordinates.ipynb"
    released = release_variants(solution, roster, secret, tmp_path / "rel", allow_solutions=True)
    assert [p.name for p in released] == ["ann.ipynb", "bo.ipynb"]
    out = tmp_path / "grades.csv"
    grade([tmp_path / "rel"], out, timeout=120, workers=2, roster=roster, secret_file=secret,
          log=lambda *a: None)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    ids = [e.id for e in exercises(4)]
    assert {(r["student"], r["exercise"]): r["verdict"] for r in rows} == {
        (st, i): "correct" for st in ("s1", "s2") for i in ids}
    swapped = tmp_path / "swapped"
    swapped.mkdir()
    (swapped / "bo.ipynb").write_bytes(released[0].read_bytes())  # Ann's notebook, handed in as Bo's
    grade([swapped], out, timeout=120, workers=1, roster=roster, secret_file=secret, log=lambda *a: None)
    verdicts = {r["exercise"]: r["verdict"] for r in csv.DictReader(out.open(encoding="utf-8"))
                if r["student"] == "s2"}
    assert {i for i, v in verdicts.items() if v != "correct"} == {"4.6b", "4.6c"}
    assert verdicts["4.6b"] == verdicts["4.6c"] == "wrong"


# ---------------------------------------------------------------- hints never give the key away
def printed_forms(x):
    """Ways a number of the key could be printed in a hint, if specific enough (3 digits or more)."""
    forms = {f"{x:.2f}", f"{x:.3f}", f"{x:.3g}", f"{x:.4g}", f"{abs(x):.3g}", f"{abs(x):.4g}"}
    return {f for f in forms if len(f.strip("-0.").replace(".", "")) >= 3}


@pytest.mark.parametrize("exercise", [e.id for e in exercises(4)])
def test_no_hint_prints_the_key(exercise):
    """The hints of the mistakes, the generic hints of nudged keys and the sanity messages, at the public
    numbers and at two students' numbers: none holds a number (or a row of a formula) of the key."""
    ex = get(exercise)
    settings = [dict(ex.params)] + ([ex.params_for(np.random.default_rng(s)) for s in SEEDS[:2]]
                                    if ex.variant is not None else [])
    for p in settings:
        cases = ex.grading_cases(None) if ex.is_function else [()]
        keys = [ex.key(*c, params=p) for c in cases]
        symbolic = isinstance(keys[0], sp.MatrixBase)
        numbers = set() if symbolic else {f for k in keys for v in np.ravel(k) if abs(v) > 1e-3
                                          for f in printed_forms(float(v))}
        formulas = {str(e) for k in keys for e in k if len(str(e)) > 8} if symbolic else set()
        outputs = [[m.answer(*c, **p) for c in cases] for m in ex.mistakes if m.answer is not None]
        if not symbolic:
            for nudge in (lambda k: 1.1 * k, lambda k: k + 0.05, lambda k: -k, lambda k: np.round(k, 1),
                          lambda k: k * np.linspace(0.9, 1.2, k.size).reshape(k.shape)):
                outputs.append([nudge(np.asarray(k, dtype=float)) for k in keys])
        texts = [m.hint for m in ex.mistakes]
        for out in outputs:
            texts.append(judge(ex, out, cases, p).hint)
            if ex.sanity is not None:
                texts.append(ex.sanity(out[0], **p) or "")
        for text in texts:
            assert not any(n in text for n in numbers), (exercise, text)
            assert not any(f in text for f in formulas), (exercise, text)


# ---------------------------------------------------------------- never crash, never accept junk


JUNK = [None, math.nan, [math.nan] * 3, "answer", 42, True, [True, True], np.zeros((8, 9)),
        np.full(3, np.inf), {"a": 1}, Exploding(), lambda *a: 1 / 0, sp.Symbol("zz"), sp.zeros(2, 1),
        sp.Matrix([theta, s]), sp.nan]


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_never_crashes_never_correct(answer):
    assert_never_crashes_never_correct(4, answer)


# ---------------------------------------------------------------- 4.8, 4.9 the car towing a trailer
def car_counts_by_parts():
    """Bodies car, knuckle, rack, pinion, trailer; joints kingpin, rack guide, column, hitch (2 equations
    each: revolute or translational), the rack and pinion and the tie rod (1 each); 3 knife edges. A tree
    joint costs no equation; the car's (and in the mixed set the trailer's) free joint has 3 coordinates."""
    two, one, knives = 4, 2, 3
    cart = [5 * 3, 2 * two + one]
    mixed = [3 + 1 + 1 + 1 + 3, one + 2]                 # the hitch cut
    rel = [3 + 1 + 1 + 1 + 1, one]
    return np.array([[n, m, knives, n - m, n - m - knives] for n, m in (cart, mixed, rel)])


def test_4_8_counts_by_parts_and_by_rank():
    table = car_counts_by_parts()
    assert_correct("4.8", table)
    for row, c in zip(table, ("cartesian", "mixed", "relative"), strict=True):
        s = mechanism("car_trailer", coordinates=c, gravity=(0.0, 0.0)).system()
        J = s.phi_q(s.q0)
        assert J.shape == (row[1], row[0]) and s.B(s.q0).shape == (row[2], row[0])
        assert s.n - np.linalg.matrix_rank(J) == row[3]
        assert s.n - np.linalg.matrix_rank(np.vstack([J, s.B(s.q0)])) == row[4]


def test_4_8_mistakes():
    t = car_counts_by_parts()
    knives_as_phi = t.copy()
    knives_as_phi[:, 1] += 3
    knives_as_phi[:, 2] = 0
    knives_as_phi[:, 3] -= 3
    assert_hint("4.8", knives_as_phi, "velocity, not a position")
    no_k = t.copy()
    no_k[:, 4] = t[:, 3]
    assert_hint("4.8", no_k, "AND B")
    no_hitch = t.copy()
    no_hitch[1, [1, 3, 4]] += [-2, 2, 2]
    assert_hint("4.8", no_hitch, "hitch")
    pinned = t.copy()
    pinned[1:, [0, 3, 4]] -= 3
    assert_hint("4.8", pinned, "free joint")
    assert_hint("4.8", t + [0, 1, 0, -1, -1], "one equation each")       # the tie rod as two rows
    two_per_knife = t.copy()
    two_per_knife[:, 2] = 6
    two_per_knife[:, 4] = t[:, 3] - 6
    assert_hint("4.8", two_per_knife, "one row")
    assert_hint("4.8", t[:, :4], "shape")


def rack_pinion_by_sympy(q, qd, rho, s_P, s_Q, u):
    """Φ = u_jᵀ(r_P − r_Q) + ρ (φ_i − φ_j) written with symbols, Φ_q by differentiation, γ = −(Φ_q q̇)_q q̇."""
    x = sp.symbols("x_i y_i phi_i x_j y_j phi_j", real=True)
    v = sp.symbols("v0:6", real=True)

    def A(a):
        return sp.Matrix([[sp.cos(a), -sp.sin(a)], [sp.sin(a), sp.cos(a)]])

    rP = sp.Matrix(x[0:2]) + A(x[2]) * sp.Matrix(s_P)
    rQ = sp.Matrix(x[3:5]) + A(x[5]) * sp.Matrix(s_Q)
    Phi = ((A(x[5]) * sp.Matrix(u)).T * (rP - rQ))[0] + rho * (x[2] - x[5])
    jac = sp.Matrix([Phi]).jacobian(x)
    gamma = -(jac * sp.Matrix(v)).jacobian(x) * sp.Matrix(v)
    subs = dict(zip(x, q, strict=True)) | dict(zip(v, qd, strict=True))
    return np.array([float(Phi.subs(subs))] + [float(e.subs(subs)) for e in jac]
                    + [float(gamma[0].subs(subs))])


def test_4_9_reference_by_sympy_on_public_and_hidden_cases():
    ex = get("4.9")
    cases = ex.grading_cases(None) + ex.grading_cases(np.random.default_rng(SEEDS[0]))[:2]
    for case in cases:
        np.testing.assert_allclose(ex.key(*case), rack_pinion_by_sympy(*case), rtol=1e-10, atol=1e-12)


def test_4_9_function_answers():
    from mbdlib.exercises.ch04 import _rp_closed

    assert_correct("4.9", rack_pinion_by_sympy)
    assert_correct("4.9", lambda *c: -rack_pinion_by_sympy(*c))           # -Phi = 0: the same pair
    for flags, words in ((dict(rho_sign=-1.0), "wrong sign: a pinion"), (dict(rack_angle=False), "RELATIVE"),
                         (dict(rack_turns=False), "turns with the rack"), (dict(gamma_sign=-1.0), "MINUS"),
                         (dict(gamma=False), "not zero"), (dict(coriolis=1.0), "factor of 2"),
                         (dict(centripetal=False), "centripetal"), (dict(swap=True), "exchanged")):
        assert_hint("4.9", lambda *c, f=flags: _rp_closed(*c, **f), words)
    assert_hint("4.9", lambda *c: rack_pinion_by_sympy(*c)[:7], "shape")


# ---------------------------------------------------------------- practice inside the pages (4.P1-4.P6)
PRACTICE = ["4.P1", "4.P2", "4.P3", "4.P4", "4.P5", "4.P6"]


def test_practice_exercises_are_registered_with_no_points_and_a_mistake_each():
    from mbdlib.exercises import practice_exercises

    assert [e.id for e in practice_exercises(4)] == PRACTICE
    for e in practice_exercises(4):
        assert e.points == 0 and e.mistakes, e.id
        assert e.id not in [x.id for x in exercises(4)]  # never released or graded


def test_4_p1_mass_matrix_by_the_hand_formula():
    """M(theta) of (ch4-double-pendulum-M): unit rods, unit masses, at theta = (0.4, -0.8)."""
    L1 = L2 = m1 = m2 = 1.0
    J1, J2 = m1 * L1**2 / 12, m2 * L2**2 / 12
    theta_ = np.array([0.4, -0.8])
    c = np.cos(theta_[1])
    M_phi = np.array([[J1 + m1 * L1**2 / 4 + m2 * L1**2, m2 * L1 * L2 / 2 * c],
                      [m2 * L1 * L2 / 2 * c, J2 + m2 * L2**2 / 4]])
    T = np.array([[1.0, 0.0], [1.0, 1.0]])
    assert evaluate("4.P1", T.T @ M_phi @ T).text() == "✓ 4.P1 correct"
    assert_hint("4.P1", M_phi, "ABSOLUTE")
    rel = mechanism("double_pendulum", coordinates="relative", gravity=(0.0, -9.81))
    x, J, _ = rel.kinematics(theta_, np.zeros(2))
    assert_hint("4.P1", J @ J.T, "J^T M_x J")
    assert_hint("4.P1", J.T @ J, "masses")


def test_4_p2_cut_joint_jacobian_by_finite_differences():
    rel = mechanism("fourbar", coordinates="relative", gravity=(0.0, -9.81))
    q0, h = rel.q0, 1e-6
    fd = np.column_stack([(rel.phi(q0 + h * e) - rel.phi(q0 - h * e)) / (2 * h) for e in np.eye(3)])
    assert fd.shape == (2, 3)
    assert evaluate("4.P2", np.round(fd, 8)).verdict == "correct"
    assert evaluate("4.P2", -np.round(fd, 8)).verdict == "correct"  # -Phi = 0 is the same joint
    assert_hint("4.P2", np.zeros((2, 3)), "tree joints")
    assert_hint("4.P2", np.ones((8, 3)), "only the cut joint")
    assert_hint("4.P2", np.ones((2, 9)), "chain rule")
    assert_hint("4.P2", fd.T, "transposed")


def test_4_p3_block_pattern_from_the_joints_by_hand():
    # rows O (ground-crank), A (crank-rod), B (rod-slider), guide (ground-slider); columns crank, rod, slider
    hand = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1], [0, 0, 1]])
    assert evaluate("4.P3", hand).verdict == "correct"
    assert evaluate("4.P3", hand.astype(bool)).verdict == "correct"
    assert_hint("4.P3", np.c_[[1, 0, 0, 1], hand], "ground")
    assert_hint("4.P3", hand.T, "transposed")
    assert_hint("4.P3", np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1], [0, 1, 1]]), "GROUND")
    assert_hint("4.P3", np.ones((4, 3)), "only the bodies it connects")


def test_4_p4_counts_by_hand():
    bodies, joints = 4, 3  # base + 3 links
    assert evaluate("4.P4", [7 * bodies, 6 + 5 * joints + bodies, 3]).verdict == "correct"
    assert_hint("4.P4", [28, 21, 7], "normalization")
    assert_hint("4.P4", [21, 18, 3], "base")
    assert_hint("4.P4", [24, 21, 3], "6 coordinates per body")
    assert_hint("4.P4", [28, 13, 15], "removes 5")
    assert_hint("4.P4", [3, 0, 3], "relative")


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_practice_never_crashes_never_correct(answer):
    for pid in PRACTICE:
        v = evaluate(pid, answer)
        assert v.verdict in ("wrong", "unanswered", "error"), (pid, v)
        assert (v.verdict == "unanswered") == (answer is None), (pid, v)


def test_4_p5_gear_row_by_finite_differences():
    rel = mechanism("car_trailer", coordinates="relative", gravity=(0.0, 0.0))
    k = rel.labels.index("rack-pinion rack and pinion")
    q0, h = rel.q0 + np.random.default_rng(5).normal(size=rel.n), 1e-6     # anywhere: the row is constant
    fd = np.array([(rel.phi(q0 + h * e)[k] - rel.phi(q0 - h * e)[k]) / (2 * h) for e in np.eye(rel.n)])
    assert evaluate("4.P5", np.round(fd, 8)).verdict == "correct"
    assert evaluate("4.P5", -np.round(fd, 8)).verdict == "correct"        # -Phi = 0 is the same pair
    cart = mechanism("car_trailer", coordinates="cartesian", gravity=(0.0, 0.0))
    assert_hint("4.P5", cart.phi_q(cart.q0)[cart.labels.index("rack-pinion rack and pinion")], "Cartesian")
    row = np.round(fd, 8)
    assert_hint("4.P5", row * [1, 1, 1, 1, 1, 1 / 0.01**2, 1], "not 1/rho")
    assert_hint("4.P5", row * [1, 1, 1, 1, 1, 1 / 0.01, 1], "multiplied by its pitch radius")
    assert_hint("4.P5", row * [1, 1, 1, 1, -1, 1, 1], "opposite signs")
    assert_hint("4.P5", row + [0.3, 0, 0, 0, 0, 0, 0], "do not appear")


def test_4_p6_steering_ratio_by_finite_differences_of_the_assembled_pose():
    """Turn the steering wheel a little either side of 2 rad, close the loop again, and divide."""
    rel = mechanism("car_trailer", coordinates="relative", gravity=(0.0, 0.0))
    k = rel.coordinate_names.index("θ_knuckle")
    h = 1e-5

    def delta(theta):
        return rel.state(fixed={"x_car": 0.0, "y_car": 0.0, "φ_car": 0.0, "θ_pinion": theta,
                                "θ_trailer": 0.0}, tol=1e-13).q0[k]

    ratio = 2 * h / (delta(2.0 + h) - delta(2.0 - h))
    assert 14.0 < ratio < 15.0                     # the linkage's ratio falls from 15 as it steers
    assert evaluate("4.P6", ratio).verdict == "correct"
    assert_hint("4.P6", 15.0, "straight ahead")
    assert_hint("4.P6", 1 / ratio, "inverted")
    assert_hint("4.P6", 100.0, "travel of the rack")
