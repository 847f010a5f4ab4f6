"""Chapter 4 exercises: each expected answer cross-checked independently, each mistake's hint triggered.

Independent references: the counts of document 001 (§4: the 6R arm with 6, 42/36 and 49/43)
and hand counts from the mechanisms' parts (4.1-4.2); the slider-crank's loop written with
complex numbers and evaluated at the state of the library's Cartesian model (4.3); the
Jacobian of the four-bar's revolute equations differentiated by sympy, and the library's
Φ_q by finite differences at a random pose (4.4-4.5).  Wrong answers are built here.
"""

import math

import numpy as np
import pytest
import sympy as sp
from exercise_helpers import Exploding, assert_correct, assert_hint, assert_never_crashes_never_correct

from mbdlib.coordinates import mechanism
from mbdlib.exercises import evaluate, exercises


def test_chapter_4_has_graded_exercises_with_two_mistakes_each():
    exs = exercises(4)
    assert len(exs) >= 5
    assert [e.id for e in exs] == [f"4.{i}" for i in range(1, len(exs) + 1)]
    for e in exs:
        assert e.points > 0 and len(e.mistakes) >= 2, e.id


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
        model = mechanism(name, coordinates=c)
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
    model = mechanism("slider_crank", coordinates="cartesian", r=0.3, l=1.0, theta=0.6, omega=2.0)
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
    model = mechanism("fourbar", coordinates="cartesian", theta=0.7)
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
    model = mechanism("fourbar", coordinates="cartesian")
    masses = np.diag(model.M(model.q0))
    assert np.all(masses > 0)
    nnz_M = len(masses)  # diagonal, all positive
    nnz_phi = int(symbolic_pattern().sum())
    assert nnz_phi == 2 * (2 + 4 + 4 + 2)  # x and y rows: 2 at the ground joints, 4 between two bodies
    assert_correct("4.5", [nnz_M, nnz_phi, nnz_M + 2 * nnz_phi])


def test_4_5_mistakes():
    assert_hint("4.5", [81, 24, 129], "diagonal")
    assert_hint("4.5", [27, 24, 75], "3 non-zeros per body")
    assert_hint("4.5", [9, 24, 33], "TWICE")
    assert_hint("4.5", [9, 36, 81], "identity")
    assert_hint("4.5", [9, 24, 56], "entry [2]")


# ---------------------------------------------------------------- never crash, never accept junk


JUNK = [None, math.nan, [math.nan] * 3, "answer", 42, True, [True, True], np.zeros((8, 9)),
        np.full(3, np.inf), {"a": 1}, Exploding(), lambda *a: 1 / 0, sp.Symbol("zz"), sp.zeros(2, 1),
        sp.Matrix([theta, s]), sp.nan]


@pytest.mark.parametrize("answer", JUNK, ids=range(len(JUNK)))
def test_never_crashes_never_correct(answer):
    assert_never_crashes_never_correct(4, answer)
