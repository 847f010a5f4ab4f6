"""Chapter 4 exercises: generalized coordinates (solutions/ch04_coordinates.ipynb).

Each exercise's expected answer comes from mbdlib's public API where the library
computes it (:func:`mbdlib.catalogue.mechanism` builds the chapter's mechanisms in
Cartesian, relative and mixed coordinates, :func:`mbdlib.assembly.model_report` counts
their coordinates, constraints and DOF, :func:`mbdlib.assembly.assemble_system` gives
the sparsity patterns, a :class:`mbdlib.coordinates.RelativeModel` gives the
slider-crank's M, Q, Φ_q and γ, and :func:`mbdlib.dae.accelerations` solves the KKT
system); the typical mistakes are written out independently (hand counts and closed
forms below), with the hint for each.  The data are those printed in the exercise notebook.

=====  ======================================================  ======
id     exercise                                                points
=====  ======================================================  ======
4.1    The 6R arm: coordinates and constraints, three ways     1
4.2    Slider-crank and four-bar: n, m, DOF in three sets      2
4.3    Loop-closure equations of the slider-crank (formula)    2
4.4    Sparsity pattern of Φ_q, four-bar, Cartesian            2
4.5    Non-zeros of M, Φ_q and the KKT matrix                  1
4.6a   Slider-crank end to end: the cut joint's Φ (formula)    1
4.6b   ... its mass matrix M(q) at a position (variants)       2
4.6c   ... its q̈ and λ under gravity, KKT (variants)           2
4.7    The KKT solve for (q̈, λ), any size (a function)         2
4.8    The car towing a trailer: n, m, k, DOF in three sets    1
4.9    The rack-and-pinion pair's Φ, Φ_q, γ (a function)       2
=====  ======================================================  ======

Practice inside the chapter's pages (0 points, never released or graded; each solution folded on its
page): 4.P1 (page 4.1, the relative double pendulum's M = J^T M_x J), 4.P2 (page 4.2, the cut joint's
Jacobian Phi_x J of the relative four-bar), 4.P3 (page 4.3, the block pattern of the slider-crank's Phi_q),
4.P4 (page 4.4, a 3R arm's Cartesian counts with Euler parameters), 4.P5 (page 4.5, the rack-and-pinion
row in relative coordinates), 4.P6 (page 4.5, the steering ratio from the loop's Jacobian).

4.6b and 4.6c have per-student variants (the slider-crank's lengths, masses, crank
angle and rate; both parts draw from the problem's seed, so a student's two parts
describe one mechanism); 4.7 is graded on hidden systems of other sizes, 4.9 on hidden
pairs.  4.1-4.5, 4.6a and 4.8 are the same for everyone: counts and sparsity patterns of named mechanisms,
which do not depend on numbers, and formulas.

References: document 001 of the course (§四, and its closing paragraph after §五: "no
coordinate choice is best in general", the arm with 6, 42/36 or 49/43 coordinates/constraints);
J. García de Jalón & E. Bayo, *Kinematic and Dynamic Simulation of Multibody Systems*, 1994, ch. 2
(Cartesian, relative, natural and mixed coordinates); P. E. Nikravesh,
*Computer-Aided Analysis of Mechanical Systems*, 1988, ch. 4 and 11 (Euler parameters:
7 coordinates and one normalization constraint per body).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from .. import dae
from ..assembly import assemble_system, model_report
from ..catalogue import mechanism
from ..coordinates import RelativeModel
from ..system import Assembly, ConstrainedSystem
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
    return (model_report(mechanism("arm6r", coordinates="relative", gravity=(0, 0, -9.81)), timing=False),
            model_report(mechanism("arm6r", coordinates="cartesian", gravity=(0, 0, -9.81)), timing=False))


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
                "the normalization constraint e0^2 + e1^2 + e2^2 + e3^2 = 1 (one per body, base included)",
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
    return [model_report(mechanism(name, coordinates=c, gravity=(0.0, -9.81)), timing=False)
            for name in PLANAR for c in SETS]


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
                "beta is the angle of the rod measured from A towards B: going O -> A -> B adds the "
                "rod's vector, so the rod's term has a plus sign",
            ),
            Mistake(
                lambda: -_loop(rod_sign=-1),
                "beta is the angle of the rod measured from A towards B: going O -> A -> B adds the "
                "rod's vector, so the rod's term has a plus sign",
            ),
            Mistake(
                lambda: _loop(relative=True),
                "beta is the rod's ABSOLUTE angle (from +x), not its angle relative to the crank",
            ),
            Mistake(
                lambda: _loop(slider=False),
                "the slider's coordinate s is missing: the loop closes at the slider's pin B = (s, 0)",
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
    return assemble_system(mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -9.81)))


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
                "m, m, J on the diagonal, and bodies are not coupled, so M is diagonal",
            ),
            Mistake(
                lambda: _nnz_by_hand(M=27),
                "each body's block diag(m, m, J) is itself diagonal: x, y of the centre of mass and phi "
                "are not coupled in the kinetic energy, so a body's block is not full",
            ),
            Mistake(
                lambda: _nnz_by_hand(K_copies=1),
                "K = [[M, Phi_q^T], [Phi_q, 0]] holds Phi_q TWICE (once transposed): nnz(K) = nnz(M) + "
                "2 nnz(Phi_q)",
            ),
            Mistake(
                lambda: _nnz_by_hand(blocks=True),
                "the position blocks of a revolute joint are identity matrices (x rows do not contain y): "
                "count again the non-zeros of Phi_q, row by row",
            ),
        ],
    )
)


# ------------------------------------------------------------------ 4.6 a slider-crank end to end
# Relative coordinates q = (theta, phi, s): crank angle, rod angle RELATIVE to the crank, slider position;
# the tree joints O (crank), A (rod on the crank) and the guide (slider, a prismatic joint to the ground);
# the pin B between rod and slider is the cut joint: Phi = r e(theta) + l e(theta + phi) - (s, 0).
phi = sp.Symbol("phi", real=True)  # 4.6a: the rod's angle relative to the crank
G = 9.81  # m/s², along -y
# 4.6b and 4.6c, public: lengths, masses, the crank's angle theta and its rate omega (used in 4.6c)
SC_DATA = {"r": 0.3, "l": 1.0, "m1": 1.0, "m2": 2.0, "m3": 1.5, "theta": 0.6, "omega": 2.0}


def _variant_far_from_mistakes(draw, groups, margin=0.002, tries=200):
    """``variant(rng)`` redrawing until each key and its typical wrong answers are clearly apart.

    ``groups``: a callable returning ``(reference, wrong answers)`` pairs, functions of the parameters
    (one pair per part of a problem that shares the variant). In each group the key and every wrong answer
    must differ from each other in some entry by more than ``margin`` relative to that entry (thousands of
    times the checks' tolerance), so that each mistake shows its own hint and none is taken for the key.
    """

    def apart(a, b) -> bool:
        return a.shape != b.shape or float(np.max(np.abs(a - b) / (1e-3 + np.abs(a) + np.abs(b)))) > margin

    def far(p, reference, wrong) -> bool:
        answers = [np.asarray(f(**p), dtype=float) for f in (reference, *wrong)]
        return all(apart(a, b) for i, a in enumerate(answers) for b in answers[i + 1:])

    def variant(rng) -> dict:
        for _ in range(tries):
            p = draw(rng)
            if all(far(p, reference, wrong) for reference, wrong in groups()):
                return p
        raise RuntimeError("no variant far from the typical mistakes was found")  # pragma: no cover

    return variant


def _draw_slider_crank(rng) -> dict:
    """A slider-crank away from the special positions (crank along or across the guide); its crank rate."""
    r = float(np.round(rng.uniform(0.15, 0.4), 2))
    l = float(np.round(r * rng.uniform(2.5, 4.5), 2))
    deg = 90 * rng.integers(0, 4) + rng.uniform(20, 70)  # 20-70° away from the axes, in any quadrant
    return {"r": r, "l": l, "m1": float(np.round(rng.uniform(0.5, 2.0), 1)),
            "m2": float(np.round(rng.uniform(1.0, 3.0), 1)), "m3": float(np.round(rng.uniform(0.5, 3.0), 1)),
            "theta": float(np.round(np.radians(deg), 2)),
            "omega": float(np.round(rng.choice([-1, 1]) * rng.uniform(1.5, 4.5), 1))}


def _sc_state(r, l, theta, omega=0.0, branch=1, rates=True):
    """Closed-form state (theta, phi, s) and rates: the rod goes from A to B on the x axis.

    ``branch=1``: the assembly with the rod pointing towards +x (cos(theta + phi) > 0), as in the
    statement; -1 the other one. ``rates=False``: phi_dot = s_dot = 0 (a typical mistake).
    """
    beta = np.arcsin(-r * np.sin(theta) / l)  # r sin(theta) + l sin(beta) = 0
    if branch < 0:
        beta = np.pi - beta
    s_ = r * np.cos(theta) + l * np.cos(beta)
    beta_d = -r * omega * np.cos(theta) / (l * np.cos(beta))  # d/dt of the y equation
    s_d = -r * omega * np.sin(theta) - l * np.sin(beta) * beta_d
    q = np.array([theta, beta - theta, s_])
    qd = np.array([omega, beta_d - omega, s_d]) if rates else np.array([omega, 0.0, 0.0])
    return q, qd


@cache
def _sc_model(r, l, m1, m2, m3):
    """The slider-crank of 4.6 as a :class:`mbdlib.coordinates.RelativeModel` (uniform bars, centres of mass
    at their middles; the slider does not turn, so its inertia plays no role)."""
    m = RelativeModel(gravity=(0.0, -G))
    m.add_body("crank", m1, m1 * r**2 / 12, parent="ground", joint="revolute", point_child=(-r / 2, 0.0))
    m.add_body("rod", m2, m2 * l**2 / 12, parent="crank", joint="revolute", point_parent=(r / 2, 0.0),
               point_child=(-l / 2, 0.0))
    m.add_body("slider", m3, 0.01, parent="ground", joint="prismatic", axis=(1.0, 0.0))
    m.add_cut_revolute("rod", "slider", (l / 2, 0.0), (0.0, 0.0), name="B")
    return m


def _sc(p):
    """Model, q and qd of the slider-crank with the parameters ``p``."""
    model = _sc_model(*(float(p[k]) for k in ("r", "l", "m1", "m2", "m3")))
    q, qd = _sc_state(p["r"], p["l"], p["theta"], p.get("omega", 0.0))
    return model, q, qd


# ---- 4.6a the loop-closure equations in relative coordinates
def _loop6(absolute=False, slider=1, rod=1, swap=False):
    """Φ(theta, phi, s) = r e(theta) + l e(theta + phi) - (s, 0), with a chosen mistake."""
    def e(angle):
        c, sn = sp.cos(angle), sp.sin(angle)
        return sp.Matrix([sn, c]) if swap else sp.Matrix([c, sn])

    return r * e(theta) + rod * l * e(phi if absolute else theta + phi) - slider * sp.Matrix([s, 0])


@cache
def _loop6_reference():
    return sp.ImmutableMatrix(_loop6())


def _three_rows(student, expected):
    rows = student.shape[0] * student.shape[1] if isinstance(student, sp.MatrixBase) else np.size(student)
    return rows == 3


def _either_sign(wrong, hint):
    """The mistake ``wrong()`` and its negative (Φ = 0 and -Φ = 0 are the same constraint)."""
    return [Mistake(wrong, hint), Mistake(lambda: -wrong(), hint)]


register(
    Exercise(
        "4.6a",
        "A slider-crank in relative coordinates (theta, phi, s): the cut joint's equations",
        1,
        reference=_loop6_reference,
        alternatives=[lambda: -_loop6_reference()],
        mistakes=[
            *_either_sign(
                lambda: _loop6(absolute=True),
                "phi is the rod's angle RELATIVE to the crank: the rod points at theta + phi from +x, not "
                "at phi",
            ),
            *_either_sign(
                lambda: _loop6(slider=0),
                "the slider's coordinate s is missing: the rod's end B must meet the slider's pin at "
                "(s, 0)",
            ),
            *_either_sign(
                lambda: _loop6(rod=-1),
                "the rod's term has the wrong sign: going O -> A -> B adds the crank's vector and then the "
                "rod's vector (from A towards B)",
            ),
            *_either_sign(
                lambda: _loop6(swap=True),
                "cos and sin are swapped: angles are measured from +x, so a link of length L at angle a "
                "spans (L cos a, L sin a)",
            ),
            *_either_sign(
                lambda: _loop6()[::-1, :],
                "the equations are in the wrong order: first the x equation, then the y equation",
            ),
            Mistake.when(
                _three_rows,
                "the guide is a tree joint here (s is its coordinate), so it gives no equation: only the "
                "cut joint B does, with one x and one y equation",
            ),
        ],
    )
)


# ---- 4.6b the mass matrix at the given position
def _M6(**p):
    model, q, _ = _sc(p)
    return model.M(q)


def _M6_by_hand(r, l, m1, m2, m3, theta, omega=0.0, crank=1 / 3, rod=1 / 3, coupling=1.0, coupling12=0.5,
                absolute_coupling=False, slider=True, branch=1, absolute=False, **_):
    """Closed-form M(q) of the slider-crank, q = (theta, phi, s), with a chosen mistake.

    ``crank``: the crank's inertia about O over m1 r²; ``rod``: the rod's inertia about its centre plus the
    centre's share, over m2 l² (1/4 + 1/12); ``coupling`` scales the r l cos(phi) terms, ``coupling12`` is
    the factor of M12's; ``absolute``: M for the coordinates (theta, beta, s) instead.
    """
    q, _ = _sc_state(r, l, theta, branch=branch)
    angle = q[0] + q[1] if absolute_coupling else q[1]
    c = coupling * m2 * r * l * np.cos(angle)
    Ir = rod * m2 * l**2
    if absolute:  # the rod's ABSOLUTE angle beta as coordinate: the rod turns with beta_dot only
        M = np.array([[crank * m1 * r**2 + m2 * r**2, coupling12 * c, 0.0],
                      [coupling12 * c, Ir, 0.0], [0.0, 0.0, m3]])
    else:
        M = np.array([[crank * m1 * r**2 + m2 * r**2 + Ir + c, Ir + coupling12 * c, 0.0],
                      [Ir + coupling12 * c, Ir, 0.0], [0.0, 0.0, m3]])
    if not slider:
        M[2, 2] = 0.0
    return M


def _spd(answer, **_) -> str | None:
    A = np.asarray(answer, dtype=float)
    if A.shape != (3, 3) or not np.all(np.isfinite(A)):
        return None
    if not np.allclose(A, A.T, rtol=1e-6, atol=1e-9):
        return "your M is not symmetric: M[i, j] and M[j, i] come from the same term of the kinetic energy"
    if np.linalg.eigvalsh((A + A.T) / 2).min() <= 0:
        return ("your M is not positive definite: every motion (q_dot not zero) has positive kinetic "
                "energy, so no diagonal entry can be zero or negative")
    return None


_MISTAKES_6B = [
    (dict(crank=1 / 12),
     "the crank turns about O, not about its centre: its inertia about O has the parallel-axis term "
     "m1 (r/2)^2 on top of m1 r^2/12"),
    (dict(rod=1 / 4),
     "the rod's rotation is missing: its kinetic energy is 1/2 m2 |v_G|^2 PLUS 1/2 (m2 l^2/12) "
     "(theta_dot + phi_dot)^2"),
    (dict(rod=1 / 3 + 1 / 4),
     "the rod is counted twice: use its inertia about its CENTRE (m2 l^2/12) together with the centre's "
     "velocity, not its inertia about A on top of the centre's velocity"),
    (dict(coupling=0.0),
     "the coupling between crank and rod is missing: the rod's centre moves with r theta_dot (at A) plus "
     "(l/2)(theta_dot + phi_dot), and the dot product of the two gives terms in r l cos(phi)"),
    (dict(absolute_coupling=True),
     "the crank-rod coupling depends on the angle BETWEEN crank and rod, phi, not on the rod's absolute "
     "angle theta + phi"),
    (dict(coupling12=1.0),
     "M[0, 1] has a factor 2 too much in its r l cos(phi) term: in T = 1/2 q_dot^T M q_dot the cross term "
     "theta_dot phi_dot appears twice (M[0, 1] and M[1, 0])"),
    (dict(slider=False),
     "the slider's mass is missing: s moves the slider, which adds 1/2 m3 s_dot^2 to the kinetic energy"),
    (dict(absolute=True),
     "that is M for the rod's ABSOLUTE angle as coordinate; phi is relative to the crank, so the rod "
     "turns at theta_dot + phi_dot and theta_dot enters all of the rod's terms"),
    (dict(branch=-1),
     "your position is the other assembly of the loop: the rod goes from A to the slider on the RIGHT, "
     "cos(theta + phi) > 0"),
]


def _wrong(by_hand, flags):
    return lambda **p: by_hand(**p, **flags)


register(
    Exercise(
        "4.6b",
        "The slider-crank's mass matrix M(q) at a given position (relative coordinates)",
        2,
        reference=_M6,
        params=dict(SC_DATA),
        variant=lambda rng: _slider_crank_variant(rng),  # one mechanism for 4.6b and 4.6c (defined below)
        sanity=_spd,
        mistakes=[Mistake(_wrong(_M6_by_hand, f), hint) for f, hint in _MISTAKES_6B],
    )
)


# ---- 4.6c accelerations and multipliers under gravity
def _kkt6(**p):
    model, q, qd = _sc(p)
    qdd, lam = dae.accelerations(model.system(Assembly(q, qd)), 0.0, q, qd)
    return np.concatenate([qdd, lam])


def _kkt6_by_hand(r, l, m1, m2, m3, theta, omega, gamma_sign=1, gamma=True, lam_sign=1, velocity=1,
                  gravity=1, rates=True, order="q", crank=1 / 3):
    """Closed-form M, Q, Φ_q, γ of the slider-crank (Lagrange's equations), solved, with a chosen mistake.

    ``velocity`` scales the velocity-product terms of Q, ``gravity`` the weight (-1: pointing up),
    ``rates=False`` leaves phi_dot = s_dot = 0, ``order="lambda"`` puts λ first.
    """
    q, qd = _sc_state(r, l, theta, omega, rates=rates)
    th, ph, _ = q
    w, phd, _ = qd
    be, bed = th + ph, w + phd
    M = _M6_by_hand(r, l, m1, m2, m3, theta, crank=crank)
    h = m2 * r * l / 2 * np.sin(ph)  # -dM[0, 1]/dphi
    Qv = np.array([h * phd * (2 * w + phd), -h * w**2, 0.0])
    Qg = -G * np.array([m1 * r / 2 * np.cos(th) + m2 * (r * np.cos(th) + l / 2 * np.cos(be)),
                        m2 * l / 2 * np.cos(be), 0.0])
    Q = velocity * Qv + gravity * Qg
    Pq = np.array([[-r * np.sin(th) - l * np.sin(be), -l * np.sin(be), -1.0],
                   [r * np.cos(th) + l * np.cos(be), l * np.cos(be), 0.0]])
    g = np.array([r * np.cos(th) * w**2 + l * np.cos(be) * bed**2,
                  r * np.sin(th) * w**2 + l * np.sin(be) * bed**2])
    g = gamma_sign * g if gamma else 0.0 * g
    K = np.block([[M, Pq.T], [Pq, np.zeros((2, 2))]])
    x = np.linalg.solve(K, np.concatenate([Q, g]))
    x[3:] *= lam_sign
    return np.concatenate([x[3:], x[:3]]) if order == "lambda" else x


def _q_and_lambda(student, expected):
    return np.ndim(student) == 1 and np.size(student) == 3


def _satisfies_acceleration_constraint(answer, **p) -> str | None:
    a = np.asarray(answer, dtype=float).reshape(-1)
    if a.size != 5 or not np.all(np.isfinite(a)):
        return None
    model, q, qd = _sc(p)
    Pq, g = model.phi_q(q), model.gamma(q, qd)
    if not np.allclose(Pq @ a[:3], g, rtol=1e-5, atol=1e-6 * (1 + np.abs(g).max())):
        return ("your q_ddot (the first 3 numbers) does not satisfy the acceleration constraint "
                "Phi_q q_ddot = gamma at your position: check gamma (its sign, the rates phi_dot and s_dot "
                "from Phi_q q_dot = 0) and the order [q_ddot, lambda]")
    return None


_MISTAKES_6C = [
    (dict(gamma_sign=-1),
     "gamma has the wrong sign: differentiating Phi_q q_dot = 0 once more gives Phi_q q_ddot = gamma with "
     "gamma = -(Phi_q q_dot)_q q_dot"),
    (dict(lam_sign=-1),
     "lambda has the wrong sign: the course writes M q_ddot + Phi_q^T lambda = Q, with Phi as in (a) (the "
     "rod's end B minus the slider's pin)"),
    (dict(gamma=False),
     "gamma is not zero while the mechanism moves: gamma = -(Phi_q q_dot)_q q_dot holds the squares of the "
     "rates"),
    (dict(rates=False),
     "phi_dot and s_dot are not zero: with theta_dot = omega they follow from the velocity constraint "
     "Phi_q q_dot = 0"),
    (dict(velocity=0),
     "the velocity terms of Q are missing: Q = J^T (Q_x - M_x c) with c = J_dot q_dot, the centres' "
     "accelerations when q_ddot = 0 (in Lagrange's form -M_dot q_dot + 1/2 d(q_dot^T M q_dot)/dq)"),
    (dict(velocity=-1),
     "the velocity terms of Q have the wrong sign: Q = J^T (Q_x - M_x c) SUBTRACTS M_x c, with "
     "c = J_dot q_dot (in Lagrange's form -M_dot q_dot + 1/2 d(q_dot^T M q_dot)/dq)"),
    (dict(gravity=0),
     "gravity is missing from Q: each weight (0, -m_k g) acts at a centre of mass and adds J_k^T (0, -m_k g) "
     "(or -dV/dq with V = g (m1 y_1 + m2 y_2))"),
    (dict(gravity=-1),
     "gravity points the wrong way: it pulls along -y, each weight is (0, -m_k g) "
     "(V = +g (m1 y_1 + m2 y_2))"),
    (dict(order="lambda"),
     "the order is [q_ddot, lambda]: first theta_ddot, phi_ddot, s_ddot, then the two multipliers"),
    (dict(crank=1 / 12),
     "check M as in (b): the crank turns about O, so its inertia about O has the parallel-axis term "
     "m1 (r/2)^2"),
]


# both parts of 4.6 draw from the problem's seed (mbdlib.exercises.grade.problem_of): the same variant
# function gives them the same slider-crank, far from the typical mistakes of either part
_slider_crank_variant = _variant_far_from_mistakes(_draw_slider_crank, lambda: [
    (_M6, [_wrong(_M6_by_hand, f) for f, _ in _MISTAKES_6B]),
    (_kkt6, [_wrong(_kkt6_by_hand, f) for f, _ in _MISTAKES_6C])])


register(
    Exercise(
        "4.6c",
        "The slider-crank's accelerations and multipliers from the KKT system, under gravity",
        2,
        reference=_kkt6,
        params=dict(SC_DATA),
        variant=_slider_crank_variant,
        sanity=_satisfies_acceleration_constraint,
        mistakes=[Mistake(_wrong(_kkt6_by_hand, f), hint) for f, hint in _MISTAKES_6C] + [
            Mistake.when(_q_and_lambda, "give q_ddot AND lambda as one array of 5 numbers: "
                                        "np.concatenate([q_ddot, lam])"),
        ],
    )
)


# ------------------------------------------------------------------ 4.7 the KKT solve as a function
def _given(M, Phi_q, Q, gamma) -> ConstrainedSystem:
    """M, Φ_q, Q and γ given as matrices, as a ConstrainedSystem (constant matrices; Φ is never evaluated
    by the KKT solve of :func:`mbdlib.dae.accelerations`, so it is given as zeros)."""
    M, J = np.asarray(M, dtype=float), np.atleast_2d(np.asarray(Phi_q, dtype=float))
    Q, g = np.atleast_1d(np.asarray(Q, dtype=float)), np.atleast_1d(np.asarray(gamma, dtype=float))
    return ConstrainedSystem(n=M.shape[0], M=lambda q: M, Q=lambda t, q, qd: Q,
                             phi=lambda q, t=0.0: np.zeros(J.shape[0]), phi_q=lambda q, t=0.0: J,
                             gamma=lambda q, qd, t=0.0: g, name="the KKT system given as matrices")


def _solve_kkt(M, Phi_q, Q, gamma):
    """The key: ``[q_ddot, lambda]`` of ``M q_ddot + Phi_q^T lambda = Q``, ``Phi_q q_ddot = gamma``."""
    system = _given(M, Phi_q, Q, gamma)
    qdd, lam = dae.accelerations(system, 0.0, np.zeros(system.n), np.zeros(system.n))
    return np.concatenate([qdd, lam])


def _kkt_by_hand(M, Phi_q, Q, gamma, gamma_sign=1, lam_sign=1, order="q", constraints=True,
                 inverse_on_force=True):
    """[q_ddot, lambda] from the assembled KKT matrix (or without the constraints), with a chosen mistake."""
    M, J = np.asarray(M, dtype=float), np.atleast_2d(np.asarray(Phi_q, dtype=float))
    Q, g = np.atleast_1d(np.asarray(Q, dtype=float)), np.atleast_1d(np.asarray(gamma, dtype=float))
    n, m = len(Q), len(g)
    if not constraints:
        qdd, lam = np.linalg.solve(M, Q), np.zeros(m)
    elif not inverse_on_force:  # range-space method, forgetting M^-1 in front of the constraint force
        Mi = np.linalg.inv(M)
        lam = np.linalg.solve(J @ Mi @ J.T, J @ Mi @ Q - g)
        qdd = Mi @ Q - J.T @ lam
    else:
        x = np.linalg.solve(np.block([[M, J.T], [J, np.zeros((m, m))]]), np.concatenate([Q, gamma_sign * g]))
        qdd, lam = x[:n], x[n:]
    lam = lam_sign * lam
    return np.concatenate([lam, qdd]) if order == "lambda" else np.concatenate([qdd, lam])


def _random_case(rng, n, m):
    """A random SPD M (n x n), a full-rank Φ_q (m x n, m <= n), Q and γ: entries of order 1."""
    while True:
        A = rng.normal(size=(n, n))
        M = A @ A.T / n + rng.uniform(0.5, 2.0) * np.eye(n)
        J = rng.normal(size=(m, n))
        if np.linalg.cond(J) < 1e3 and np.linalg.cond(M) < 1e3:
            return (np.round(M, 3), np.round(J, 3), np.round(rng.normal(size=n), 3),
                    np.round(rng.normal(size=m), 3))


def _kkt_public_cases():
    """The slider-crank of 4.6c (n = 3, m = 2), the same driven at the crank (m = n = 3), a random
    n = 5, m = 2 system."""
    model, q, qd = _sc(SC_DATA)
    M, J, Q, g = model.M(q), model.phi_q(q), model.Q(0.0, q, qd), model.gamma(q, qd)
    driven = (M, np.vstack([J, [1.0, 0.0, 0.0]]), Q, np.append(g, 0.0))  # theta - omega t = 0: gamma 0
    return [(M, J, Q, g), driven, _random_case(np.random.default_rng(47), 5, 2)]


def _kkt_hidden_cases(rng):
    """Other sizes: n from 2 to 8 with 1 <= m < n, and one square Φ_q (a fully driven system)."""
    sizes = []
    for _ in range(4):
        n = int(rng.integers(2, 9))
        sizes.append((n, int(rng.integers(1, n))))
    n = int(rng.integers(2, 7))
    sizes.append((n, n))
    return [_random_case(rng, n, m) for n, m in sizes]


def _only_q_ddot(student, expected):
    return np.ndim(student) == 1 and 0 < np.size(student) < np.size(expected)


register(
    Exercise(
        "4.7",
        "Assemble and solve the KKT system for (q_ddot, lambda), any size (a function)",
        2,
        reference=_solve_kkt,
        cases=_kkt_public_cases(),
        hidden_cases=lambda rng: _kkt_hidden_cases(rng),
        function_name="solve_kkt",
        mistakes=[
            Mistake(
                lambda *c: _kkt_by_hand(*c, gamma_sign=-1),
                "the lower block of the right-hand side has the wrong sign: the constraint rows read "
                "Phi_q q_ddot = gamma, so the right-hand side is [Q, gamma]",
            ),
            Mistake(
                lambda *c: _kkt_by_hand(*c, lam_sign=-1),
                "lambda has the wrong sign: the course writes M q_ddot + Phi_q^T lambda = Q (constraint "
                "forces -Phi_q^T lambda), so the upper right block is +Phi_q^T",
            ),
            Mistake(
                lambda *c: _kkt_by_hand(*c, order="lambda"),
                "the order is [q_ddot, lambda]: the n accelerations first, then the m multipliers",
            ),
            Mistake(
                lambda *c: _kkt_by_hand(*c, constraints=False),
                "the constraints are missing: q_ddot = M^-1 Q is the free motion; the KKT system adds "
                "Phi_q^T lambda to the equations of motion and the rows Phi_q q_ddot = gamma",
            ),
            Mistake(
                lambda *c: _kkt_by_hand(*c, inverse_on_force=False),
                "the constraint force is not divided by the mass: q_ddot = M^-1 (Q - Phi_q^T lambda)",
            ),
            Mistake.when(
                _only_q_ddot,
                "return q_ddot AND lambda as one array of n + m numbers: np.concatenate([q_ddot, lam])",
            ),
        ],
    )
)


# ================================================================== practice inside the pages (0 points)
# 4.P1 (page 4.1): the relative double pendulum's mass matrix by the velocity transformation, at P1_THETA
P1_THETA = (0.4, -0.8)  # joint angles theta_1 (crank from +x), theta_2 (link 2 relative to link 1), rad


@cache
def _double_pendulum(coordinates):
    return mechanism("double_pendulum", coordinates=coordinates, gravity=(0.0, -9.81))


def _p1(transformation=True, masses=True):
    """J^T M_x J at P1_THETA; ``transformation=False``: M in the absolute angles (no T); ``masses=False``:
    J^T J."""
    rel, cart = _double_pendulum("relative"), _double_pendulum("cartesian")
    theta_ = np.asarray(P1_THETA, dtype=float)
    if not transformation:  # M_phi of the absolute angles phi = T theta: M_theta = T^T M_phi T
        T = np.array([[1.0, 0.0], [1.0, 1.0]])
        Ti = np.linalg.inv(T)
        return Ti.T @ rel.M(theta_) @ Ti
    x, J, _ = rel.kinematics(theta_, np.zeros(2))
    Mx = cart.M(x) if masses else np.eye(cart.n)
    return J.T @ Mx @ J


register(
    Exercise(
        "4.P1",
        "The relative double pendulum's mass matrix by the velocity transformation",
        0,
        reference=lambda: _double_pendulum("relative").M(np.asarray(P1_THETA, dtype=float)),
        mistakes=[
            Mistake.when(
                lambda st, ex: np.shape(st) == (6, 6),
                "a 6 x 6 matrix is one of the Cartesian size: J has one row per Cartesian coordinate and one "
                "column per joint angle, so the joint-space mass matrix is J^T M_x J (2 x 2)",
            ),
            Mistake(
                lambda: _p1(transformation=False),
                "that is the mass matrix in the ABSOLUTE angles phi_1, phi_2 (the hand formula before T): "
                "the relative coordinates are theta_1 = phi_1 and theta_2 = phi_2 - phi_1",
            ),
            Mistake(
                lambda: _p1(masses=False),
                "the masses are missing: J^T J weighs every coordinate by 1; the kinetic energy weighs "
                "x and y by m and phi by J, so the product is J^T M_x J",
            ),
        ],
    )
)


# 4.P2 (page 4.2): the cut joint's Jacobian Phi_theta = Phi_x J of the relative four-bar at its start state
@cache
def _fourbar_models():
    return (mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -9.81)),
            mechanism("fourbar", coordinates="relative", gravity=(0.0, -9.81)))


def _p2(rows="D", chain_rule=True):
    cart, rel = _fourbar_models()
    x, J, _ = rel.kinematics(rel.q0, rel.qd0)
    Phi_x = cart.phi_q(x)
    picked = [k for k, label in enumerate(cart.labels) if label.split()[1] in rows]
    return Phi_x[picked] @ J if chain_rule else Phi_x[picked]


register(
    Exercise(
        "4.P2",
        "The cut joint's Jacobian of the relative four-bar by the chain rule",
        0,
        reference=lambda: _fourbar_models()[1].phi_q(_fourbar_models()[1].q0),
        alternatives=[lambda: -_p2()],  # -Phi = 0 is the same joint: its Jacobian changes sign
        mistakes=[
            Mistake.when(
                lambda st, ex: np.ndim(st) == 2 and np.shape(st)[1] == 3 and np.allclose(st, 0.0),
                "a zero matrix: those are rows of the tree joints O, A, B, which the joint angles satisfy "
                "identically (their Phi_x J vanishes); the loop is closed by the rows of the cut joint D",
            ),
            Mistake.when(
                lambda st, ex: np.shape(st) == (8, 3),
                "8 rows: only the cut joint D gives equations in relative coordinates; take its 2 rows of "
                "the Cartesian Phi_x",
            ),
            Mistake.when(
                lambda st, ex: np.shape(st) in ((2, 9), (8, 9)),
                "that is the Jacobian in the Cartesian coordinates x (9 columns); the chain rule "
                "multiplies it by J = dx/dtheta to give one column per joint angle",
            ),
            Mistake.when(
                lambda st, ex: np.shape(st) == (3, 2),
                "your matrix is transposed: one ROW per equation of D (2), one COLUMN per joint angle (3)",
            ),
        ],
    )
)


# 4.P3 (page 4.3): which blocks of the slider-crank's Phi_q are non-zero (joints x moving bodies)
@cache
def _slider_crank_blocks():
    """Rows O, A, B, guide; columns crank, rod, slider: 1 where the joint's rows touch the body's columns."""
    model = mechanism("slider_crank", coordinates="cartesian", gravity=(0.0, -9.81))
    P = assemble_system(model).patterns["Phi_q"]
    blocks, row = np.zeros((len(model.joints), len(model.bodies))), 0
    for i, joint in enumerate(model.joints):
        for k in range(len(model.bodies)):
            blocks[i, k] = float(P[row:row + joint.n_eq, 3 * k:3 * k + 3].any())
        row += joint.n_eq
    return blocks


register(
    Exercise(
        "4.P3",
        "The block pattern of the slider-crank's constraint Jacobian (Cartesian coordinates)",
        0,
        reference=_slider_crank_blocks,
        mistakes=[
            Mistake.when(
                lambda st, ex: np.shape(st) == (4, 4),
                "4 columns: the ground has no coordinates, so it has no block column; the columns are "
                "the three moving bodies crank, rod, slider",
            ),
            Mistake(
                lambda: _slider_crank_blocks().T,
                "your matrix is transposed: one ROW per joint (O, A, B, guide), one COLUMN per body",
            ),
            Mistake(
                lambda: _slider_crank_blocks() + np.array([[0, 0, 0]] * 3 + [[0, 1, 0]]),
                "the guide joins the slider to the GROUND (it keeps the slider on its line): its rows "
                "touch the slider's columns only",
            ),
            Mistake(
                lambda: np.ones((4, 3)),
                "each joint touches only the bodies it connects: at most two blocks per row, one for a "
                "joint to the ground",
            ),
        ],
    )
)


# 4.P4 (page 4.4): a 3R arm (waist z, shoulder y, elbow y) on a fixed base, Euler parameters, as in 4.1
P4_JOINTS = 3


@cache
def _arm3r_report():
    from ..bodies import RigidBody
    from ..spatial import SpatialModel

    axes = [(0, 0, 1), (0, 1, 0), (0, 1, 0)]
    p = np.array([[0, 0, 0.3], [0, 0, 0.5], [0.4, 0, 0.5], [0.7, 0, 0.5]])  # joints 1..3 and the tip
    m = SpatialModel(gravity=(0.0, 0.0, -9.81))
    centres = [p[0] / 2] + [(p[k] + p[k + 1]) / 2 for k in range(P4_JOINTS)]
    masses = (10.0, 4.0, 3.0, 2.0)
    bodies = [m.add_body(name, c, mass=mass, inertia=RigidBody.sphere(mass, 0.05).inertia)
              for name, c, mass in zip(("base", "link1", "link2", "link3"), centres, masses, strict=True)]
    m.fix(bodies[0], name="base fixed")
    for k in range(P4_JOINTS):
        m.add_revolute(bodies[k], bodies[k + 1], p[k] - centres[k], p[k] - centres[k + 1], axis_i=axes[k],
                       name=f"joint{k + 1}")
    return model_report(m, "3R arm, Cartesian")


def _p4_by_hand(per_body=7, base=True, per_joint=5, normalization=True):
    bodies = P4_JOINTS + (1 if base else 0)
    n = per_body * bodies
    m = (6 if base else 0) + per_joint * P4_JOINTS + (bodies if normalization and per_body == 7 else 0)
    return _round([n, m, n - m])


register(
    Exercise(
        "4.P4",
        "A 3R arm in Cartesian coordinates with Euler parameters: coordinates, constraints, DOF",
        0,
        reference=lambda: _round([_arm3r_report().coordinates, _arm3r_report().constraints,
                                  _arm3r_report().dof]),
        mistakes=[
            Mistake(
                lambda: _p4_by_hand(normalization=False),
                "with Euler parameters each body has 7 coordinates for its 6 freedoms: each needs one "
                "normalization constraint (the base too)",
            ),
            Mistake(
                lambda: _p4_by_hand(base=False),
                "count the base as a body, as the source does for the 6R arm: its own 7 coordinates, "
                "6 equations that fix it and its normalization row",
            ),
            Mistake(
                lambda: _p4_by_hand(per_body=6),
                "that is the count with 6 coordinates per body (three rotation angles); with Euler "
                "parameters a body has 7 coordinates and one normalization constraint",
            ),
            Mistake(
                lambda: _p4_by_hand(per_joint=1),
                "a spatial revolute joint leaves one of the six relative motions free, so it removes 5, "
                "not 1",
            ),
            Mistake(
                lambda: _round([P4_JOINTS, 0, P4_JOINTS]),
                "those are the relative (joint) coordinates; the exercise asks for the Cartesian "
                "description with Euler parameters",
            ),
        ],
    )
)


# ================================================================== the car towing a trailer (page 4.5)
# 4.8 (1 point): its counts in three coordinate sets; 4.9 (2 points): the rack-and-pinion pair as a function;
# practice 4.P5 (its row in relative coordinates) and 4.P6 (the steering ratio at a steered pose).
CAR_SETS = ("cartesian", "mixed", "relative")  # 4.8: row order
CAR_ARM, CAR_PINION = 0.15, 0.01  # the steering arm and the pinion's pitch radius of mechanism("car_trailer")


@cache
def _car(coordinates):
    return mechanism("car_trailer", coordinates=coordinates, gravity=(0.0, 0.0))


def _car_counts():
    """Rows cartesian, mixed, relative; columns n, m (position rows), k (velocity rows), DOF, velocity DOF."""
    rows = []
    for c in CAR_SETS:
        s = _car(c).system()
        J = s.phi_q(s.q0)
        dof = s.n - np.linalg.matrix_rank(J)
        rows.append([s.n, s.m, s.k, dof, s.n - np.linalg.matrix_rank(np.vstack([J, s.B(s.q0)]))])
    return _round(rows)


def _car_by_hand(knife_as_position=False, knife_rows=1, gear_rows=1, hitch_cut=True, car_free=True,
                 minus_k=True):
    """The counts from the parts: 5 bodies; kingpin, rack guide, column, hitch (2 rows each), the rack and
    pinion and the tie rod (1 each), 3 knife edges; with a chosen mistake."""
    k = 3 * knife_rows
    loop = gear_rows + 1                                # the rack and pinion, the tie rod
    car = 3 if car_free else 0
    table = [[15, 2 + 2 + 2 + 2 + loop], [car + 3 + 3, loop + (2 if hitch_cut else 0)], [car + 4, loop]]
    rows = []
    for n, m in table:
        if knife_as_position:
            m, kk = m + k, 0
        else:
            kk = k
        rows.append([n, m, kk, n - m, n - m - (kk if minus_k else 0)])
    return _round(rows)


register(
    Exercise(
        "4.8",
        "A car towing a trailer: coordinates, rows and degrees of freedom in three coordinate sets",
        1,
        reference=_car_counts,
        mistakes=[
            Mistake(
                lambda: _car_by_hand(knife_as_position=True),
                "a knife edge restricts a velocity, not a position: its row belongs to B (k), not to Phi "
                "(m), and it removes a velocity degree of freedom only",
            ),
            Mistake(
                lambda: _car_by_hand(minus_k=False),
                "the velocity degrees of freedom are the coordinates minus the rank of Phi_q AND B "
                "stacked: each knife edge removes one more",
            ),
            Mistake(
                lambda: _car_by_hand(hitch_cut=False),
                "in the mixed set the trailer has its own x, y, phi: its hitch to the car is then a cut "
                "joint, two equations",
            ),
            Mistake(
                lambda: _car_by_hand(car_free=False),
                "the car is not pinned anywhere: even in relative coordinates its tree joint to the "
                "ground is a free joint with three coordinates",
            ),
            Mistake(
                lambda: _car_by_hand(gear_rows=2),
                "one position row too many in every set: the rack and pinion (a gear pair: one rotation "
                "tied to one travel) and the tie rod (a massless link: one distance) are one equation "
                "each",
            ),
            Mistake(
                lambda: _car_by_hand(knife_rows=2),
                "a knife edge is one row: the side velocity of its contact point is zero (it may roll "
                "along the blade)",
            ),
        ],
    )
)


# 4.9: the rack and pinion as a function of the two bodies' (x, y, phi), in Cartesian coordinates
def _rp_case(rng) -> tuple:
    """A random state and geometry (q, qd, rho, s'_P, s'_Q, u'); the bodies turn, the state need not close."""
    q = np.concatenate([rng.uniform(-1.0, 1.0, 2), [rng.uniform(-np.pi, np.pi)],
                        rng.uniform(-1.0, 1.0, 2), [rng.uniform(-np.pi, np.pi)]])
    qd = rng.normal(size=6)
    qd[[2, 5]] = rng.choice([-1.0, 1.0], size=2) * rng.uniform(0.5, 3.0, size=2)
    a = rng.uniform(-np.pi, np.pi)
    return (q, qd, float(rng.uniform(0.05, 0.5)), rng.uniform(-0.5, 0.5, 2), rng.uniform(-0.5, 0.5, 2),
            np.array([np.cos(a), np.sin(a)]))


RP_CASES = [_rp_case(np.random.default_rng(490 + k)) for k in range(3)]


def _rack_pinion(q, qd, rho, s_P, s_Q, u):
    """[Φ, Φ_q (6 entries), γ] of the library's RackPinion (offset 0): pinion i, rack j."""
    from ..constraints import RackPinion

    joint = RackPinion("rp", ("i", "j"), np.asarray(s_P, float), np.asarray(s_Q, float),
                       np.asarray(u, float), float(rho), 0.0)
    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    return np.concatenate([joint.phi(q), joint.jacobian(q)[0], joint.gamma(q, qd)])


def _A2(a):
    c, s_ = np.cos(a), np.sin(a)
    return np.array([[c, -s_], [s_, c]])


def _B2(a):
    c, s_ = np.cos(a), np.sin(a)
    return np.array([[-s_, -c], [c, -s_]])


def _rp_closed(q, qd, rho, s_P, s_Q, u, *, rho_sign=1.0, rack_turns=True, rack_angle=True, gamma_sign=1.0,
               gamma=True, coriolis=2.0, centripetal=True, swap=False):
    """Φ = uᵀ e + ρ (φ_i − φ_j), e = r_i + A_i s'_P − r_j − A_j s'_Q, u = A_j u' (defaults: right).

    Φ_q = [uᵀ, uᵀ B_i s'_P + ρ, −uᵀ, (B_j u')ᵀ e − uᵀ B_j s'_Q − ρ];
    γ = φ̇_j² uᵀe − 2 u̇ᵀė − uᵀ(A_j s'_Q φ̇_j² − A_i s'_P φ̇_i²), u̇ = B_j u' φ̇_j.
    ``rack_turns=False``: u treated as constant (no φ_j in u); ``rack_angle=False``: ρ φ_i only.
    """
    q, qd, s_P, s_Q, u_ = (np.asarray(v, dtype=float) for v in (q, qd, s_P, s_Q, u))
    ri, pi, rj, pj = q[0:2], q[2], q[3:5], q[5]
    vi, wi, vj, wj = qd[0:2], qd[2], qd[3:5], qd[5]
    u_g = _A2(pj) @ u_
    e = ri + _A2(pi) @ s_P - rj - _A2(pj) @ s_Q
    r = rho_sign * rho
    value = u_g @ e + r * (pi - (pj if rack_angle else 0.0))
    col_j = ((_B2(pj) @ u_) @ e if rack_turns else 0.0) - u_g @ (_B2(pj) @ s_Q) - (r if rack_angle else 0.0)
    jac = np.concatenate([u_g, [u_g @ (_B2(pi) @ s_P) + r], -u_g, [col_j]])
    if swap:
        jac = jac[[3, 4, 5, 0, 1, 2]]
    u_dot = (_B2(pj) @ u_) * wj if rack_turns else np.zeros(2)
    e_dot = vi + (_B2(pi) @ s_P) * wi - vj - (_B2(pj) @ s_Q) * wj
    g = ((wj**2 * (u_g @ e) if rack_turns else 0.0) - coriolis * (u_dot @ e_dot)
         - (u_g @ (_A2(pj) @ s_Q * wj**2 - _A2(pi) @ s_P * wi**2) if centripetal else 0.0))
    return np.concatenate([[value], jac, [gamma_sign * g if gamma else 0.0]])


register(
    Exercise(
        "4.9",
        "Phi, Phi_q and gamma of a rack-and-pinion pair, as a function",
        2,
        reference=_rack_pinion,
        cases=RP_CASES,
        hidden_cases=lambda rng: [_rp_case(rng) for _ in range(6)],
        function_name="rack_pinion",
        alternatives=[lambda *c: -_rack_pinion(*c)],  # -Phi = 0 is the same pair
        mistakes=[
            Mistake(
                lambda *c: _rp_closed(*c, rho_sign=-1.0),
                "the rolling term has the wrong sign: a pinion on the left of u that turns "
                "counter-clockwise relative to the rack rolls BACK along u, so u.e + rho (phi_i - phi_j) "
                "stays constant",
            ),
            Mistake(
                lambda *c: _rp_closed(*c, rack_angle=False),
                "the rack turns too (with the car it is mounted on): the pinion rolls by its angle "
                "RELATIVE to the rack, rho (phi_i - phi_j)",
            ),
            Mistake(
                lambda *c: _rp_closed(*c, rack_turns=False),
                "the rack's axis u = A_j u' turns with the rack: the phi_j entry of Phi_q has the term "
                "(B_j u').e, and gamma the terms of the turning axis",
            ),
            Mistake(
                lambda *c: _rp_closed(*c, gamma_sign=-1.0),
                "gamma has the wrong sign (Phi and Phi_q are right): it is the right side of "
                "Phi_q qdd = gamma, MINUS the velocity terms of Phi_dd",
            ),
            Mistake(
                lambda *c: _rp_closed(*c, gamma=False),
                "gamma is not zero: u.e is nonlinear in the angles, so the velocities contribute "
                "-(Phi_q qd)_q qd (the rolling term is linear and adds nothing)",
            ),
            Mistake(
                lambda *c: _rp_closed(*c, coriolis=1.0),
                "a factor of 2 is missing in gamma: d2(u.e)/dt2 = u_dd.e + 2 u_d.e_d + u.e_dd",
            ),
            Mistake(
                lambda *c: _rp_closed(*c, centripetal=False),
                "gamma misses the centripetal terms of the two points: d2(A s')/dt2 = B s' phi_dd - "
                "A s' phi_d^2, for the pinion's centre and for the rack's point",
            ),
            Mistake(
                lambda *c: _rp_closed(*c, swap=True),
                "the Phi_q entries of the two bodies are exchanged: entries 1-3 of your array belong to "
                "x_i, y_i, phi_i (the pinion), entries 4-6 to x_j, y_j, phi_j (the rack)",
            ),
        ],
    )
)


# 4.P5 (page 4.5): the rack-and-pinion row of Phi_theta in relative coordinates
def _rp_row(model, q=None):
    q = model.q0 if q is None else q
    k = next(i for i, lab in enumerate(model.labels) if lab.startswith("rack-pinion"))
    return model.phi_q(q)[k]


def _p5_wrong(rho_factor=1.0):
    m = _car("relative")
    row = np.zeros(m.n)
    row[m.coordinate_names.index("d_rack")] = -1.0
    row[m.coordinate_names.index("θ_pinion")] = rho_factor * m.cuts[0].radius
    return row


def _p5_same_signs(student, expected):
    """Predicate: the rack's and the pinion's entries (5th and 6th) have the same sign."""
    st = np.asarray(student, dtype=float).reshape(-1)
    return st.shape == np.shape(expected) and st[4] * st[5] > 0


register(
    Exercise(
        "4.P5",
        "The rack-and-pinion row in relative coordinates",
        0,
        reference=lambda: _rp_row(_car("relative")),
        alternatives=[lambda: -_rp_row(_car("relative"))],  # -Phi = 0 is the same pair
        mistakes=[
            Mistake.when(
                lambda st, ex: np.size(st) == 15,
                "15 entries: that is the row in Cartesian coordinates; in relative ones the row has one "
                "entry per coordinate of car_rel.coordinate_names (7)",
            ),
            Mistake(
                lambda: _p5_wrong(rho_factor=1.0 / _car("relative").cuts[0].radius ** 2),
                "the pinion's entry is its pitch radius rho (the arc that rolls off per radian), not "
                "1/rho",
            ),
            Mistake(
                lambda: _p5_wrong(rho_factor=1.0 / _car("relative").cuts[0].radius),
                "the pinion's angle enters multiplied by its pitch radius rho: rho theta is the arc "
                "that rolls off",
            ),
            Mistake.when(
                _p5_same_signs,
                "the signs of the rack's and the pinion's entries: turning the pinion counter-clockwise "
                "pushes the rack to the car's left, so d grows with theta, and the two entries of the "
                "row have opposite signs",
            ),
            Mistake.when(
                lambda st, ex: np.shape(st) == np.shape(ex) and np.any(np.abs(np.asarray(st)[:3]) > 1e-9),
                "the car's x, y, phi do not appear: pinion and rack are both mounted on the car, so "
                "their relative motion is d and theta alone",
            ),
        ],
    )
)


# 4.P6 (page 4.5): the steering ratio dtheta/ddelta at a steered pose, from Phi_theta
P6_PINION = 2.0  # the steering wheel turned by 2 rad, the car and the trailer straight


@cache
def _p6_state():
    m = _car("relative")
    return m.state(fixed={"x_car": 0.0, "y_car": 0.0, "φ_car": 0.0, "θ_pinion": P6_PINION,
                          "θ_trailer": 0.0}).q0


def _steering_ratio():
    m = _car("relative")
    P = m.phi_q(_p6_state())
    cols = [m.coordinate_names.index(c) for c in ("θ_knuckle", "d_rack", "θ_pinion")]
    delta_dot, _ = np.linalg.solve(P[:, cols[:2]], -P[:, cols[2]])   # with theta_dot = 1
    return 1.0 / delta_dot


register(
    Exercise(
        "4.P6",
        "The steering ratio at a steered pose, from the loop's Jacobian",
        0,
        reference=_steering_ratio,
        rtol=1e-4,
        mistakes=[
            Mistake(
                lambda: _round(CAR_ARM / CAR_PINION),
                "that is the ratio straight ahead (arm / pinion radius); at this pose the tie rod is no "
                "longer across the car: solve Phi_theta theta_dot = 0 here",
            ),
            Mistake(
                lambda: 1.0 / _steering_ratio(),
                "inverted: the ratio is the steering wheel's angle per angle of the wheels, "
                "dtheta / ddelta (large)",
            ),
            Mistake(
                lambda: 1.0 / CAR_PINION,
                "that is dtheta / dd, the pinion's angle per travel of the rack; the ratio asks for the "
                "angle of the wheels, delta",
            ),
        ],
    )
)
