"""Chapter 4 exercises: generalized coordinates (solutions/ch04_coordinates.ipynb).

Each exercise's expected answer comes from mbdlib's public API where the library
computes it (:func:`mbdlib.coordinates.mechanism` builds the chapter's mechanisms in
Cartesian, relative and mixed coordinates, :func:`mbdlib.assembly.model_report` counts
their coordinates, constraints and DOF, :func:`mbdlib.assembly.assemble_system` gives
the sparsity patterns); the typical mistakes are written out independently (hand counts
below), with the hint for each.  The data are those printed in the exercise notebook.

=====  ======================================================  ======
id     exercise                                                points
=====  ======================================================  ======
4.1    The 6R arm: coordinates and constraints, three ways     1
4.2    Slider-crank and four-bar: n, m, DOF in three sets      2
4.3    Loop-closure equations of the slider-crank (formula)    2
4.4    Sparsity pattern of Φ_q, four-bar, Cartesian            2
4.5    Non-zeros of M, Φ_q and the KKT matrix                  1
=====  ======================================================  ======

References: document 001 of the course (§4, §6: "no coordinate choice is best in
general", the 6R arm with 6, 42/36 or 49/43 coordinates/constraints); J. García de
Jalón & E. Bayo, *Kinematic and Dynamic Simulation of Multibody Systems*, 1994, ch. 2
(Cartesian, relative, natural and mixed coordinates); P. E. Nikravesh,
*Computer-Aided Analysis of Mechanical Systems*, 1988, ch. 4 and 11 (Euler parameters:
7 coordinates and one normalization constraint per body).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from ..assembly import assemble_system, model_report
from ..coordinates import mechanism
from .core import Exercise, Mistake, register

# ------------------------------------------------------------------ data (as in the notebook)
ARM_JOINTS = 6  # 4.1: revolute joints of the arm; bodies: a fixed base and 6 links
SETS = ("cartesian", "relative", "mixed")  # 4.2: column order of the table's rows, per mechanism
PLANAR = ("slider_crank", "fourbar")  # 4.2: row blocks
theta, beta, s = sp.symbols("theta beta s", real=True)  # 4.3: crank angle, rod angle, slider x
r, l = sp.symbols("r l", positive=True)  # 4.3: crank and rod lengths


def _round(a):
    return np.asarray(a, dtype=float)


# ------------------------------------------------------------------ 4.1 the 6R arm
@cache
def _arm_reports():
    return (model_report(mechanism("arm6r", coordinates="relative"), timing=False),
            model_report(mechanism("arm6r", coordinates="cartesian"), timing=False))


def _arm():
    """Rows: relative, Cartesian with 6 per body, Euler parameters; columns: coordinates, constraints."""
    rel, cart = _arm_reports()
    return _round([[rel.coordinates, rel.constraints], [cart.coordinates_6, cart.constraints_6],
                   [cart.coordinates, cart.constraints]])


def _arm_by_hand(base=True, per_joint=5, normalization=True, chain_constraints=0, per_body=6):
    """Hand count: bodies x 6 (or 7), base fixed (6), joints x 5, one normalization per body."""
    bodies = ARM_JOINTS + (1 if base else 0)
    fixed = 6 if base else 0
    cart = [per_body * bodies, fixed + per_joint * ARM_JOINTS]
    euler = [(per_body + 1) * bodies, cart[1] + (bodies if normalization else 0)]
    return _round([[ARM_JOINTS, chain_constraints], cart, euler])


register(
    Exercise(
        "4.1",
        "The 6R arm: coordinates and constraints in three coordinate sets",
        1,
        reference=_arm,
        mistakes=[
            Mistake(
                lambda: _arm_by_hand(base=False),
                "the base is a body too: in Cartesian coordinates it has its own 6 (or 7) coordinates, and "
                "fixing it to the ground takes 6 constraints",
            ),
            Mistake(
                lambda: _arm_by_hand(normalization=False),
                "with Euler parameters each body has 7 coordinates for 6 degrees of freedom: each needs "
                "the normalization constraint e0^2 + e1^2 + e2^2 + e3^2 = 1 (7 of them, base included)",
            ),
            Mistake(
                lambda: _arm_by_hand(per_joint=1),
                "a spatial revolute joint removes 5 degrees of freedom (it leaves one rotation), not 1",
            ),
            Mistake(
                lambda: _arm_by_hand(chain_constraints=ARM_JOINTS),
                "in relative (joint) coordinates an open chain needs no constraint at all: each joint "
                "angle is a free coordinate",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 4.2 counts in three coordinate sets
@cache
def _planar_reports():
    return [model_report(mechanism(name, coordinates=c), timing=False) for name in PLANAR for c in SETS]


def _counts():
    """Rows: (slider-crank, four-bar) x (cartesian, relative, mixed); columns: n, m, DOF."""
    return _round([[rep.coordinates, rep.constraints, rep.dof] for rep in _planar_reports()])


def _entry_is(rows, column, value):
    """Predicate: the student's table has the right shape and ``value`` in ``column`` of each of ``rows``."""
    def test(student, expected):
        st = np.asarray(student, dtype=float)
        return st.shape == expected.shape and all(np.isclose(st[i, column], value) for i in rows)

    return test


def _dof_not_one(student, expected):
    st = np.asarray(student, dtype=float)
    return st.shape == expected.shape and np.allclose(st[:, :2], expected[:, :2]) and not np.allclose(
        st[:, 2], expected[:, 2])


register(
    Exercise(
        "4.2",
        "Slider-crank and four-bar: coordinates, constraints and DOF in three coordinate sets",
        2,
        reference=_counts,
        mistakes=[
            Mistake.when(
                _entry_is((1, 4), 1, 8),
                "in relative coordinates the joints of the spanning tree are built into the coordinates "
                "(a joint angle cannot violate its joint): only the CUT joint that closes the loop gives "
                "equations, 2 for a planar revolute or prismatic joint",
            ),
            Mistake.when(
                _entry_is((2, 5), 1, 2),
                "in the mixed set the crank is a free body (x, y, phi relative to the ground): nothing in "
                "its coordinates pins it at O any more, so the pin O is a cut joint too (2 more "
                "equations)",
            ),
            Mistake.when(
                _entry_is((0, 3), 0, 12),
                "the ground is fixed and has no coordinates: Cartesian coordinates are 3 per MOVING body",
            ),
            Mistake.when(
                _entry_is((2, 5), 0, 3),
                "the mixed set has the crank's 3 absolute coordinates (x, y, phi) AND one joint coordinate "
                "for each of the other two bodies",
            ),
            Mistake.when(
                _dof_not_one,
                "the degrees of freedom belong to the mechanism, not to its description: n - rank(Phi_q) "
                "is the same in every coordinate set",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 4.3 loop closure of the slider-crank
def _loop(rod_sign=1, relative=False, slider=True, swap=False):
    """Φ = O + r e(θ) + l e(β) - (s, 0) with e(a) = (cos a, sin a), with a chosen mistake."""
    def e(angle):
        c, sn = sp.cos(angle), sp.sin(angle)
        return sp.Matrix([sn, c]) if swap else sp.Matrix([c, sn])

    rod = theta + beta if relative else beta
    return r * e(theta) + rod_sign * l * e(rod) - (sp.Matrix([s, 0]) if slider else sp.zeros(2, 1))


@cache
def _loop_reference():
    return sp.ImmutableMatrix(sp.Matrix([r * sp.cos(theta) + l * sp.cos(beta) - s,
                                         r * sp.sin(theta) + l * sp.sin(beta)]))


register(
    Exercise(
        "4.3",
        "Loop-closure equations of the slider-crank in (theta, beta, s)",
        2,
        reference=_loop_reference,
        alternatives=[lambda: -_loop_reference()],  # Φ = 0 and -Φ = 0: the same constraint
        mistakes=[
            Mistake(
                lambda: _loop(rod_sign=-1),
                "beta is the angle of the rod measured from A towards B, so B = A + l (cos beta, sin beta): "
                "the rod's term has a plus sign",
            ),
            Mistake(
                lambda: -_loop(rod_sign=-1),
                "beta is the angle of the rod measured from A towards B, so B = A + l (cos beta, sin beta): "
                "the rod's term has a plus sign",
            ),
            Mistake(
                lambda: _loop(relative=True),
                "beta is the rod's ABSOLUTE angle (from +x), not its angle relative to the crank: the rod "
                "points along (cos beta, sin beta)",
            ),
            Mistake(
                lambda: _loop(slider=False),
                "the slider's coordinate s is missing: the loop closes at B = (s, 0), so the x equation "
                "is r cos(theta) + l cos(beta) - s = 0",
            ),
            Mistake(
                lambda: _loop(swap=True),
                "cos and sin are swapped: angles are measured from +x, so a link of length L at angle a "
                "spans (L cos a, L sin a)",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 4.4, 4.5 sparsity, Cartesian four-bar
@cache
def _fourbar_system():
    return assemble_system(mechanism("fourbar", coordinates="cartesian"))


def _pattern():
    return _fourbar_system().patterns["Phi_q"].astype(float)


# joints of the four-bar in the notebook's row order: (body i, body j), bodies 0 crank, 1 coupler, 2 rocker
FOURBAR_JOINTS = (("ground", 0), (0, 1), (1, 2), ("ground", 2))


def _pattern_by_hand(dense_blocks=False, angle_columns=True, ground_column=False):
    """Hand pattern: a revolute row x depends on x_i, φ_i, x_j, φ_j (row y on y_i, φ_i, y_j, φ_j)."""
    P = np.zeros((8, 9))
    for k, (bi, bj) in enumerate(FOURBAR_JOINTS):
        for row in (0, 1):
            for b in (bi, bj):
                if b == "ground":
                    if ground_column:
                        P[2 * k + row, :3] = 1.0  # as if the ground were body 0
                    continue
                cols = [3 * b, 3 * b + 1] if dense_blocks else [3 * b + row]
                cols += [3 * b + 2] if angle_columns else []
                P[2 * k + row, cols] = 1.0
    return P


register(
    Exercise(
        "4.4",
        "Sparsity pattern of the four-bar's constraint Jacobian (Cartesian coordinates)",
        2,
        reference=_pattern,
        mistakes=[
            Mistake(
                lambda: _pattern_by_hand(dense_blocks=True),
                "the x equation of a revolute joint, x_i + (A_i s_i')_x - x_j - (A_j s_j')_x, does not "
                "contain y_i or y_j: the position blocks are identity matrices I and -I, not full 2x2 "
                "blocks",
            ),
            Mistake(
                lambda: _pattern_by_hand(angle_columns=False),
                "the phi columns are missing: the pins are at r + A(phi) s', so every joint equation "
                "depends on the angles of its bodies (d(A s')/dphi = B s' is not zero)",
            ),
            Mistake(
                lambda: _pattern_by_hand(ground_column=True),
                "the ground has no coordinates: a joint to the ground (O, D) has entries only in the "
                "columns of its one moving body",
            ),
            Mistake(
                lambda: _pattern_by_hand().T,
                "your matrix is transposed: Phi_q has one ROW per equation (8) and one COLUMN per "
                "coordinate (9)",
            ),
            Mistake(
                lambda: np.ones((8, 9)),
                "Phi_q is sparse: each joint equation involves only the coordinates of the two bodies it "
                "connects",
            ),
        ],
    )
)


def _nnz():
    nnz = _fourbar_system().nnz
    return _round([nnz["M"], nnz["Phi_q"], nnz["K"]])


def _nnz_by_hand(M=9, blocks=False, K_copies=2):
    phi = _pattern_by_hand(dense_blocks=blocks).sum()
    return _round([M, phi, M + K_copies * phi])


register(
    Exercise(
        "4.5",
        "Non-zeros of M, Phi_q and the KKT matrix (Cartesian four-bar)",
        1,
        reference=_nnz,
        mistakes=[
            Mistake(
                lambda: _nnz_by_hand(M=81),
                "M is not full: in Cartesian coordinates of the centres of mass each body contributes "
                "m, m, J on the diagonal, and bodies are not coupled, so M is diagonal (9 non-zeros)",
            ),
            Mistake(
                lambda: _nnz_by_hand(M=27),
                "each body's block diag(m, m, J) is itself diagonal (x, y of the centre of mass and phi "
                "are not coupled in the kinetic energy): 3 non-zeros per body, not 9",
            ),
            Mistake(
                lambda: _nnz_by_hand(K_copies=1),
                "K = [[M, Phi_q^T], [Phi_q, 0]] holds Phi_q TWICE (once transposed): nnz(K) = nnz(M) + "
                "2 nnz(Phi_q)",
            ),
            Mistake(
                lambda: _nnz_by_hand(blocks=True),
                "the position blocks of a revolute joint are identity matrices (x rows do not contain y): "
                "a joint row has 4 non-zeros between two bodies and 2 at the ground",
            ),
        ],
    )
)
