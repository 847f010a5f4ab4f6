"""Tests of mbdlib.kinematics against independent methods.

* positions: closed forms of planar arms;
* velocities and accelerations: central finite differences of positions and
  orientations along a smooth trajectory q(t) of random spatial chains/trees;
* partial velocities: v = Σ v^(j) q̇_j against the (independent) forward
  recursion, Jacobian against finite differences of the position;
* Coriolis: a slider on a rotating body against the textbook formula;
* symbolic = numeric at random points.
"""

import numpy as np
import pytest
import sympy as sp
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from mbdlib.bodies import RigidBody
from mbdlib.chain import JOINT_KINDS, Chain, Joint
from mbdlib.errors import MbdError, ModelError, ShapeError
from mbdlib.kinematics import (
    forward_kinematics,
    jacobian,
    partial_velocities,
    point_acceleration,
    point_position,
    point_velocity,
)

unit = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)
vec3 = st.tuples(unit, unit, unit)
directions = vec3.filter(lambda v: np.linalg.norm(v) > 0.2)
# Random-chain properties: a failing example is reported as drawn, without shrinking, which
# for these float-heavy chains takes minutes.
RANDOM_CHAIN = dict(deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate))
angles = st.floats(-np.pi, np.pi, allow_nan=False)


def unskew(S):
    """Vector of a skew-symmetric matrix (test helper, written independently)."""
    assert np.allclose(S, -S.T, atol=1e-6), S
    return np.array([S[2, 1], S[0, 2], S[1, 0]])


@st.composite
def chains(draw, max_links=5, trees=True):
    """Random spatial chains (or trees) with mixed revolute/prismatic joints."""
    n = draw(st.integers(1, max_links))
    chain = Chain(name="random")
    for i in range(n):
        axis = draw(directions)
        rotation = Rotation.from_rotvec(np.array(draw(vec3)) * 2).as_matrix()
        joint = Joint(f"j{i}", draw(st.sampled_from(JOINT_KINDS)), axis, draw(vec3), rotation)
        body = RigidBody(1.0, com=draw(vec3), inertia=[0.1, 0.1, 0.1], name=f"b{i}")
        parent = draw(st.integers(-1, i - 1)) if trees else i - 1
        chain.add_link(f"L{i}", joint, body, parent)
    return chain


@st.composite
def trajectories(draw, n):
    """Coefficients of q(t) = q0 + b t + c t² + s sin(t): smooth, with non-constant q̈."""
    return [np.array(draw(st.lists(unit, min_size=n, max_size=n))) for _ in range(4)]


def q_of_t(coef, t):
    q0, b, c, s = coef
    return q0 + b * t + c * t**2 + s * np.sin(t), b + 2 * c * t + s * np.cos(t), 2 * c - s * np.sin(t)


# ------------------------------------------------------------------ positions
@settings(max_examples=30, deadline=None)
@given(q=st.lists(angles, min_size=3, max_size=3), L=st.lists(st.floats(0.1, 2.0), min_size=3, max_size=3))
def test_planar_positions_closed_form(q, L):
    kin = forward_kinematics(Chain.planar(L), q)
    phi = np.cumsum(q)  # absolute angle of each link
    joints = np.vstack([[0, 0], np.cumsum(np.c_[L * np.cos(phi), L * np.sin(phi)], axis=0)])
    for i in range(3):
        np.testing.assert_allclose(kin.r[i][:2], joints[i], atol=1e-12)
        np.testing.assert_allclose(kin.r_c(i)[:2], joints[i] + 0.5 * L[i] * np.array(
            [np.cos(phi[i]), np.sin(phi[i])]), atol=1e-12)
        np.testing.assert_allclose(kin.A[i], Rotation.from_euler("z", phi[i]).as_matrix(), atol=1e-12)
    tip = point_position(Chain.planar(L), q, 2, (L[2], 0, 0))
    np.testing.assert_allclose(tip[:2], [np.sum(L * np.cos(phi)), np.sum(L * np.sin(phi))], atol=1e-12)


# ------------------------------------------------------------------ velocities/accelerations vs FD
@settings(max_examples=30, **RANDOM_CHAIN)
@given(data=st.data())
def test_rates_match_finite_differences(data):
    chain = data.draw(chains())
    coef = data.draw(trajectories(chain.n))
    q, qd, qdd = q_of_t(coef, 0.0)
    kin = forward_kinematics(chain, q, qd, qdd)

    h = 1e-5
    before, after = (forward_kinematics(chain, *q_of_t(coef, t)) for t in (-h, h))

    def rate(f):
        """Central difference d/dt of f(kinematics) at t = 0."""
        return (f(after) - f(before)) / (2 * h)

    for i in range(chain.n):
        # ω from Ȧ Aᵀ = ω̃ (global components)
        Adot = rate(lambda k, i=i: k.A[i])
        np.testing.assert_allclose(kin.omega_global(i), unskew(Adot @ kin.A[i].T), atol=1e-6)
        # velocities of the joint and of the centre of mass: d r / dt
        np.testing.assert_allclose(kin.global_("v", i), rate(lambda k, i=i: k.r[i]), atol=1e-6)
        np.testing.assert_allclose(kin.v_c_global(i), rate(lambda k, i=i: k.r_c(i)), atol=1e-6)
        # accelerations: derivatives of the (global) velocities
        np.testing.assert_allclose(kin.alpha_global(i), rate(lambda k, i=i: k.omega_global(i)), atol=1e-6)
        np.testing.assert_allclose(kin.global_("a", i), rate(lambda k, i=i: k.global_("v", i)), atol=1e-6)
        np.testing.assert_allclose(kin.a_c_global(i), rate(lambda k, i=i: k.v_c_global(i)), atol=1e-6)


@settings(max_examples=20, **RANDOM_CHAIN)
@given(chain=chains(), g=vec3, data=st.data())
def test_base_acceleration_adds_to_every_point(chain, g, data):
    # A base translating with acceleration g (no rotation) adds g to every point's acceleration.
    q, qd, qdd = q_of_t(data.draw(trajectories(chain.n)), 0.0)
    kin0 = forward_kinematics(chain, q, qd, qdd)
    kin_g = forward_kinematics(chain, q, qd, qdd, base_acceleration=g)
    for i in range(chain.n):
        np.testing.assert_allclose(kin_g.a_c_global(i), kin0.a_c_global(i) + g, atol=1e-12)
        np.testing.assert_allclose(kin_g.alpha_global(i), kin0.alpha_global(i), atol=1e-12)


def test_fields_not_computed_are_none():
    kin = forward_kinematics(Chain.planar([1.0]), [0.3])
    assert kin.omega is None and kin.v_c is None and kin.a_c is None
    kin = forward_kinematics(Chain.planar([1.0]), [0.3], [1.0])
    assert kin.omega is not None and kin.alpha is None and kin.a_c is None
    with pytest.raises(MbdError, match=r"a_c was not computed: pass qd \(and qdd"):
        kin.a_c_global(0)


# ------------------------------------------------------------------ partial velocities, Jacobian
@settings(max_examples=30, **RANDOM_CHAIN)
@given(chain=chains(), data=st.data())
def test_partial_velocities_give_the_velocities(chain, data):
    q, qd, _ = q_of_t(data.draw(trajectories(chain.n)), 0.0)
    kin = forward_kinematics(chain, q, qd)
    pv = partial_velocities(chain, q)
    for i in range(chain.n):
        # velocity is linear in q̇: v = Σ_j v^(j) q̇_j  (forward recursion is the independent side)
        for name in ("omega", "v", "v_c"):
            total = sum(pv.global_(name, i, j) * qd[j] for j in range(chain.n))
            np.testing.assert_allclose(total, kin.global_(name, i), atol=1e-12)
        for j in range(chain.n):
            # ∂v/∂q̇_j: the velocities produced by the unit rate q̇ = e_j
            unit_rate = forward_kinematics(chain, q, np.eye(chain.n)[j])
            np.testing.assert_allclose(pv.v_c[i][j], unit_rate.v_c[i], atol=1e-12)
            np.testing.assert_allclose(pv.omega[i][j], unit_rate.omega[i], atol=1e-12)
            # Jacobian columns of the centre of mass are the global partial velocities
            J = jacobian(chain, q, i, point=chain.links[i].body.com)
            np.testing.assert_allclose(J[:3, j], pv.global_("v_c", i, j), atol=1e-12)
            np.testing.assert_allclose(J[3:, j], pv.global_("omega", i, j), atol=1e-12)
        # partial velocities vanish for joints that are not on the path base -> link i
        on_path = set(chain.ancestors(i)) | {i}
        for j in set(range(chain.n)) - on_path:
            assert not np.any(pv.omega[i][j]) and not np.any(pv.v_c[i][j])


@settings(max_examples=30, **RANDOM_CHAIN)
@given(chain=chains(), point=vec3, data=st.data())
def test_jacobian_vs_finite_differences(chain, point, data):
    q, qd, _ = q_of_t(data.draw(trajectories(chain.n)), 0.0)
    i = data.draw(st.integers(0, chain.n - 1))
    J = jacobian(chain, q, i, point)
    assert J.shape == (6, chain.n)
    h = 1e-6
    for j in range(chain.n):
        dq = np.zeros(chain.n)
        dq[j] = h
        # linear rows: ∂r_P/∂q_j
        dr = (point_position(chain, q + dq, i, point) - point_position(chain, q - dq, i, point)) / (2 * h)
        np.testing.assert_allclose(J[:3, j], dr, atol=1e-6)
        # angular rows: unskew(∂A/∂q_j Aᵀ)
        dA = (forward_kinematics(chain, q + dq).A[i] - forward_kinematics(chain, q - dq).A[i]) / (2 * h)
        np.testing.assert_allclose(J[3:, j], unskew(dA @ forward_kinematics(chain, q).A[i].T), atol=1e-6)
    np.testing.assert_allclose(J[:3] @ qd, point_velocity(chain, q, qd, i, point), atol=1e-12)
    np.testing.assert_allclose(J[3:] @ qd, forward_kinematics(chain, q, qd).omega_global(i), atol=1e-12)


def test_partial_velocities_of_a_two_link_arm_textbook():
    # Planar 2R arm (lengths L1, L2, com at L/2): v_C2 = J q̇ with the textbook Jacobian.
    L1, L2, q1, q2 = 1.3, 0.7, 0.4, -1.1
    pv = partial_velocities(Chain.planar([L1, L2]), [q1, q2])
    s1, c1, s12, c12 = np.sin(q1), np.cos(q1), np.sin(q1 + q2), np.cos(q1 + q2)
    np.testing.assert_allclose(pv.global_("v_c", 1, 0), [-L1 * s1 - L2 / 2 * s12, L1 * c1 + L2 / 2 * c12, 0])
    np.testing.assert_allclose(pv.global_("v_c", 1, 1), [-L2 / 2 * s12, L2 / 2 * c12, 0])
    np.testing.assert_allclose(pv.omega[0][1], 0)       # ω_1^(2) = 0 (j > i)
    np.testing.assert_allclose(pv.v[1][1], 0)           # v_2^(2) = 0 (j >= i)
    np.testing.assert_allclose(pv.omega[1][0], [0, 0, 1])


# ------------------------------------------------------------------ Coriolis / centripetal
@settings(max_examples=30, deadline=None)
@given(th=angles, r=unit, thd=unit, rd=unit, thdd=unit, rdd=unit)
def test_slider_on_rotating_arm_polar_formula(th, r, thd, rd, thdd, rdd):
    # Bead on a rod turning about z: a = (r̈ − r θ̇²) e_r + (r θ̈ + 2 ṙ θ̇) e_θ.
    c = Chain(name="bead")
    c.add_link("rod", Joint("turn", "revolute", (0, 0, 1)), RigidBody.rod(1.0, 1.0))
    c.add_link("bead", Joint("slide", "prismatic", (1, 0, 0)), RigidBody(0.1, inertia=[1e-4] * 3))
    a = point_acceleration(c, [th, r], [thd, rd], [thdd, rdd], "bead")
    e_r, e_t = np.array([np.cos(th), np.sin(th), 0]), np.array([-np.sin(th), np.cos(th), 0])
    np.testing.assert_allclose(a, (rdd - r * thd**2) * e_r + (r * thdd + 2 * rd * thd) * e_t, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(axis=directions, slide=directions, origin=vec3, rotvec=vec3,
       q=st.tuples(unit, unit), qd=st.tuples(unit, unit), qdd=st.tuples(unit, unit))
def test_moving_point_on_a_spinning_body(axis, slide, origin, rotvec, q, qd, qdd):
    # a_P = α × ρ + ω × (ω × ρ) + 2 ω × v_rel + a_rel  (body spinning about a fixed axis u through 0)
    rotation = Rotation.from_rotvec(rotvec).as_matrix()
    c = Chain(name="spin")
    c.add_link("body", Joint("spin", "revolute", axis), RigidBody.sphere(1.0, 0.1))
    c.add_link("slider", Joint("slide", "prismatic", slide, origin, rotation), RigidBody.sphere(1.0, 0.1))
    u = np.asarray(axis) / np.linalg.norm(axis)
    A1 = Rotation.from_rotvec(u * q[0]).as_matrix()
    w, al = qd[0] * u, qdd[0] * u
    e = A1 @ rotation @ (np.asarray(slide) / np.linalg.norm(slide))       # sliding direction, global
    rho = A1 @ origin + q[1] * e
    expected = np.cross(al, rho) + np.cross(w, np.cross(w, rho)) + 2 * np.cross(w, qd[1] * e) + qdd[1] * e
    np.testing.assert_allclose(point_acceleration(c, q, qd, qdd, "slider"), expected, atol=1e-12)
    np.testing.assert_allclose(point_velocity(c, q, qd, "slider"), np.cross(w, rho) + qd[1] * e, atol=1e-12)


# ------------------------------------------------------------------ symbolic = numeric
def test_symbolic_equals_numeric_random_chain():
    rng = np.random.default_rng(7)
    chain = Chain(name="sym")
    kinds = ["revolute", "prismatic", "revolute"]
    for i, kind in enumerate(kinds):
        chain.add_link(f"L{i}", Joint(f"j{i}", kind, rng.normal(size=3), rng.normal(size=3),
                                      Rotation.from_rotvec(rng.normal(size=3)).as_matrix()),
                       RigidBody(1.0, com=rng.normal(size=3), inertia=[0.1] * 3))
    q, qd, qdd = (sp.symbols(f"{x}0:3") for x in ("q", "u", "w"))
    sym = forward_kinematics(chain, q, qd, qdd, base_acceleration=(0, 0, sp.Symbol("g")))
    J = jacobian(chain, q, 2, point=(0.1, 0.2, 0.3))
    assert isinstance(sym.a_c[2], sp.MatrixBase) and isinstance(J, sp.MatrixBase)
    args = [*q, *qd, *qdd, sp.Symbol("g")]
    keys = [(name, i) for name in ("A", "r", "omega", "alpha", "v", "a", "v_c", "a_c") for i in range(3)]
    f = sp.lambdify(args, [getattr(sym, name)[i] for name, i in keys] + [J], cse=True)
    for _ in range(3):
        vals = rng.uniform(-1, 1, size=(3, 3))
        num = forward_kinematics(chain, *vals, base_acceleration=(0, 0, 9.81))
        *got, got_J = f(*vals.ravel(), 9.81)
        for (name, i), value in zip(keys, got, strict=True):
            expected = getattr(num, name)[i]
            value = np.asarray(value, dtype=float).reshape(np.shape(expected))
            np.testing.assert_allclose(value, expected, atol=1e-10, err_msg=f"{name}[{i}]")
        J_num = jacobian(chain, vals[0], 2, point=(0.1, 0.2, 0.3))
        np.testing.assert_allclose(got_J, J_num, atol=1e-10)


def test_symbolic_planar_arm_closed_form():
    L1, L2 = sp.symbols("L1 L2", positive=True)
    q1, q2, u1, u2 = sp.symbols("q1 q2 u1 u2")
    kin = forward_kinematics(Chain.planar([L1, L2]), [q1, q2], [u1, u2]).simplify()
    expected = sp.Matrix([L1 * sp.cos(q1) + L2 / 2 * sp.cos(q1 + q2),
                          L1 * sp.sin(q1) + L2 / 2 * sp.sin(q1 + q2), 0])
    assert sp.simplify(kin.r_c(1) - expected) == sp.zeros(3, 1)
    assert sp.simplify(kin.v_c_global(1) - expected.diff(q1) * u1 - expected.diff(q2) * u2) == sp.zeros(3, 1)
    assert sp.simplify(kin.omega[1] - sp.Matrix([0, 0, u1 + u2])) == sp.zeros(3, 1)
    # numeric q with a symbolic chain also gives formulas
    assert isinstance(forward_kinematics(Chain.planar([L1, L2]), [0.0, 0.0]).r[1], sp.MatrixBase)


# ------------------------------------------------------------------ trees and bad input
def test_tree_branches_match_their_serial_paths():
    def body():
        return RigidBody(1.0, com=(0.1, 0.2, 0.3), inertia=[0.1] * 3)

    joints = [Joint("a", axis=(0, 1, 1)), Joint("b", axis=(1, 0, 0), origin=(1, 0, 0)),
              Joint("c", "prismatic", axis=(0, 0, 1), origin=(0, 1, 0))]
    tree = Chain(name="tree")
    tree.add_link("trunk", joints[0], body())
    tree.add_link("left", joints[1], body())
    tree.add_link("right", joints[2], body(), parent="trunk")
    path = Chain(name="path")
    path.add_link("trunk", joints[0], body())
    path.add_link("right", joints[2], body())
    q, qd, qdd = np.array([0.3, -0.5, 0.2]), np.array([1.0, 2.0, -1.0]), np.array([0.5, 0.1, 0.7])
    kt = forward_kinematics(tree, q, qd, qdd)
    kp = forward_kinematics(path, q[[0, 2]], qd[[0, 2]], qdd[[0, 2]])
    for name in ("A", "r", "omega", "alpha", "v_c", "a_c"):
        np.testing.assert_allclose(getattr(kt, name)[2], getattr(kp, name)[1], atol=1e-14)


def test_bad_input():
    arm = Chain.planar([1.0, 1.0, 1.0], name="arm3")
    with pytest.raises(ShapeError, match=r"q must have 3 components, got shape \(2,\).*'arm3' has n = 3"):
        forward_kinematics(arm, [0.0, 0.0])
    with pytest.raises(ShapeError, match=r"qd must have 3 components"):
        forward_kinematics(arm, [0.0] * 3, qd=np.zeros((3, 3)))
    with pytest.raises(ShapeError, match=r"qdd must have 3 components"):
        forward_kinematics(arm, [0.0] * 3, [0.0] * 3, [0.0])
    with pytest.raises(ShapeError, match=r"q must have 3 components"):
        partial_velocities(arm, sp.symbols("q0:2"))
    with pytest.raises(MbdError, match=r"qdd was given without qd"):
        forward_kinematics(arm, [0.0] * 3, qdd=[0.0] * 3)
    with pytest.raises(ShapeError, match=r"base_acceleration must have 3 components"):
        forward_kinematics(arm, [0.0] * 3, [0.0] * 3, [0.0] * 3, base_acceleration=(0, 9.81))
    with pytest.raises(ShapeError, match=r"point must have 3 components"):
        jacobian(arm, [0.0] * 3, 0, point=(1, 0))
    with pytest.raises(ModelError, match=r"chain 'arm3' has no link 'hand'"):
        jacobian(arm, [0.0] * 3, "hand")
