"""Tests of mbdlib.newton_euler: single-body equations, RNEA, joint reactions.

Independent checks: Euler's equations in principal axes (Goldstein, Classical
Mechanics, 3rd ed., eq. 5.39); hand-derived pendulum and double pendulum
(Spong, Hutchinson & Vidyasagar 2006, §7.4.1); RNEA = recursive Kane = M q̈ + h
(CRBA) on random spatial trees; free-body balance of the whole chain for the
base reactions; applied loads that cancel gravity.
"""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation
from test_dynamics import assert_close, chains, gravities, inertias, states, vec3

from mbdlib.bodies import RigidBody
from mbdlib.chain import Chain
from mbdlib.dynamics import inverse_dynamics_from_mass_matrix
from mbdlib.errors import ModelError, ShapeError
from mbdlib.kane import kane_inverse_dynamics
from mbdlib.kinematics import forward_kinematics
from mbdlib.newton_euler import newton_euler_body, rnea


# ------------------------------------------------------------------ one body
@settings(max_examples=50, deadline=None)
@given(I=inertias(), rotvec=vec3, w=vec3, al=vec3, a=vec3, m=st.floats(0.1, 5.0))
def test_body_equations_match_euler_in_principal_axes(I, rotvec, w, al, a, m):
    A = Rotation.from_rotvec(np.array(rotvec) * 3).as_matrix()
    body = RigidBody(m, inertia=I)
    F, M = newton_euler_body(body, A, w, al, a)
    # principal axes: I = P diag(I1, I2, I3) Pᵀ; components along them: x_p = (A P)ᵀ x_global
    moments, P = np.linalg.eigh(I)
    P[:, 2] *= np.linalg.det(P)                          # a right-handed set of principal axes
    B = A @ P
    w_p, al_p = B.T @ w, B.T @ al
    I1, I2, I3 = moments
    M_p = np.array([I1 * al_p[0] - (I2 - I3) * w_p[1] * w_p[2],      # Goldstein eq. 5.39
                    I2 * al_p[1] - (I3 - I1) * w_p[2] * w_p[0],
                    I3 * al_p[2] - (I1 - I2) * w_p[0] * w_p[1]])
    assert_close(M, B @ M_p, rtol=1e-12)
    assert_close(F, m * np.array(a), rtol=1e-12)


def test_body_equations_bad_input():
    with pytest.raises(ModelError, match="body must be a RigidBody"):
        newton_euler_body("rod", np.eye(3), (0, 0, 0), (0, 0, 0), (0, 0, 0))
    with pytest.raises(ShapeError, match="omega must have 3 components"):
        newton_euler_body(RigidBody.sphere(1.0, 1.0), np.eye(3), (0, 0), (0, 0, 0), (0, 0, 0))


# ------------------------------------------------------------------ closed forms
@settings(max_examples=30, deadline=None)
@given(s=states(1), m=st.floats(0.1, 5.0), L=st.floats(0.1, 3.0))
def test_single_pendulum(s, m, L):
    # uniform rod about its end, gravity −g ŷ: τ = (m L²/3) θ̈ + m g (L/2) cos θ
    (th,), (thd,), (thdd,) = s
    expected = m * L**2 / 3 * thdd + m * 9.81 * L / 2 * np.cos(th)
    assert_close(rnea(Chain.planar([L], masses=[m]), [th], [thd], [thdd], (0, -9.81, 0)), [expected])


def double_pendulum_torques(q, qd, qdd, L1, L2, m1, m2, g):
    """Spong, Hutchinson & Vidyasagar (2006) §7.4.1, uniform rods: lc = L/2, I = m L²/12, gravity −g ŷ."""
    lc1, lc2, I1, I2 = L1 / 2, L2 / 2, m1 * L1**2 / 12, m2 * L2**2 / 12
    c2, s2 = np.cos(q[1]), np.sin(q[1])
    M = np.array([[m1 * lc1**2 + m2 * (L1**2 + lc2**2 + 2 * L1 * lc2 * c2) + I1 + I2,
                   m2 * (lc2**2 + L1 * lc2 * c2) + I2],
                  [m2 * (lc2**2 + L1 * lc2 * c2) + I2, m2 * lc2**2 + I2]])
    h = -m2 * L1 * lc2 * s2
    C = np.array([[h * qd[1], h * (qd[0] + qd[1])], [-h * qd[0], 0.0]])
    G = np.array([(m1 * lc1 + m2 * L1) * g * np.cos(q[0]) + m2 * lc2 * g * np.cos(q[0] + q[1]),
                  m2 * lc2 * g * np.cos(q[0] + q[1])])
    return M @ qdd + C @ qd + G


@settings(max_examples=30, deadline=None)
@given(s=states(2), L=st.tuples(st.floats(0.2, 2.0), st.floats(0.2, 2.0)),
       m=st.tuples(st.floats(0.1, 5.0), st.floats(0.1, 5.0)))
def test_double_pendulum(s, L, m):
    q, qd, qdd = s
    arm = Chain.planar(L, masses=m)
    assert_close(rnea(arm, q, qd, qdd, (0, -9.81, 0)), double_pendulum_torques(q, qd, qdd, *L, *m, 9.81))


# ------------------------------------------------------------------ three methods agree
@settings(max_examples=60, deadline=None)
@given(chain=chains(), g=gravities, data=st.data())
def test_rnea_equals_kane_equals_mass_matrix_path(chain, g, data):
    q, qd, qdd = data.draw(states(chain.n))
    i = data.draw(st.integers(0, chain.n - 1))
    f_ext = {chain.link_names[i]: (np.array(data.draw(vec3)) * 5, np.array(data.draw(vec3)))}
    tau = rnea(chain, q, qd, qdd, g, f_ext)
    assert tau.shape == (chain.n,)
    assert_close(kane_inverse_dynamics(chain, q, qd, qdd, g, f_ext), tau)
    assert_close(inverse_dynamics_from_mass_matrix(chain, q, qd, qdd, g, f_ext), tau)


def test_symbolic_rnea_equals_numeric():
    chain = Chain.spatial_arm_example()
    q, qd, qdd = (sp.symbols(f"{x}1:5") for x in ("q", "u", "w"))
    tau = rnea(chain, q, qd, qdd, gravity=(0, 0, -9.81))
    assert isinstance(tau, sp.MatrixBase) and tau.shape == (4, 1)
    f = sp.lambdify([q, qd, qdd], tau)
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = rng.uniform(-2, 2, (3, 4))
        assert_close(np.ravel(f(*x)), rnea(chain, *x, gravity=(0, 0, -9.81)))


@settings(max_examples=30, deadline=None)
@given(chain=chains(), g=gravities, data=st.data())
def test_applied_loads_can_cancel_gravity(chain, g, data):
    # a force −m_i g at every centre of mass is the same as no gravity at all
    q, qd, qdd = data.draw(states(chain.n))
    f_ext = {i: (-link.body.mass * g, np.zeros(3)) for i, link in enumerate(chain.links)}
    assert_close(rnea(chain, q, qd, qdd, g, f_ext), rnea(chain, q, qd, qdd, (0, 0, 0)))


# ------------------------------------------------------------------ joint reactions
@settings(max_examples=30, deadline=None)
@given(chain=chains(), g=gravities, data=st.data())
def test_base_reactions_balance_the_whole_chain(chain, g, data):
    # Free body of the whole chain: the base's forces on the links attached to it equal
    # Σ m_i (a_Ci − g), and their moment about the global origin equals
    # Σ (r_Ci × m_i (a_Ci − g) + dH_i/dt); static pose: total weight and its moment.
    q, qd, qdd = data.draw(states(chain.n))
    for rates in ((np.zeros(chain.n), np.zeros(chain.n)), (qd, qdd)):
        tau, reac = rnea(chain, q, *rates, g, return_reactions=True)
        kin = forward_kinematics(chain, q, *rates)
        roots = [i for i, link in enumerate(chain.links) if link.parent == -1]
        force = sum(reac.force_global[i] for i in roots)
        moment = sum(reac.moment_global[i] + np.cross(kin.r[i], reac.force_global[i]) for i in roots)
        exp_force, exp_moment = np.zeros(3), np.zeros(3)
        for i, link in enumerate(chain.links):
            m, I = link.body.mass, kin.A[i] @ link.body.inertia @ kin.A[i].T        # I in global axes
            ma = m * (kin.a_c_global(i) - g)
            w, al = kin.omega_global(i), kin.alpha_global(i)
            exp_force += ma
            exp_moment += np.cross(kin.r_c(i), ma) + I @ al + np.cross(w, I @ w)
        assert_close(force, exp_force)
        assert_close(moment, exp_moment)
    # the torques are the reactions' components along the joint axes
    for i, link in enumerate(chain.links):
        along = reac.moment[i] if link.joint.kind == "revolute" else reac.force[i]
        assert along @ link.joint.axis == pytest.approx(tau[i], rel=1e-10, abs=1e-10)
        np.testing.assert_allclose(kin.A[i] @ reac.force[i], reac.force_global[i], atol=1e-12)


def test_static_reactions_of_a_horizontal_arm():
    # two uniform rods (2 kg, 1 m; 1 kg, 1 m) straight along x, gravity −9.81 ŷ:
    # the pivot carries the weight 3 g; its moment is 2 g · 0.5 + 1 g · 1.5 = 2.5 g about z
    tau, reac = rnea(Chain.planar([1.0, 1.0], masses=[2.0, 1.0]), [0, 0], [0, 0], [0, 0], (0, -9.81, 0),
                     return_reactions=True)
    np.testing.assert_allclose(reac.force_global[0], [0, 3 * 9.81, 0], atol=1e-12)
    np.testing.assert_allclose(reac.moment_global[0], [0, 0, 2.5 * 9.81], atol=1e-12)
    np.testing.assert_allclose(reac.force_global[1], [0, 9.81, 0], atol=1e-12)
    np.testing.assert_allclose(tau, [2.5 * 9.81, 0.5 * 9.81], atol=1e-12)


# ------------------------------------------------------------------ errors
def test_bad_inputs_name_the_argument():
    arm = Chain.planar([1.0, 1.0])
    with pytest.raises(ShapeError, match=r"qd must have 2 components.*n = 2 joints"):
        rnea(arm, [0, 0], [0, 0, 0], [0, 0], gravity=(0, 0, -9.81))
    with pytest.raises(ShapeError, match=r"gravity must be a 3-vector"):
        rnea(arm, [0, 0], [0, 0], [0, 0], gravity=9.81)
    with pytest.raises(ShapeError, match="gravity must be finite"):
        rnea(arm, [0, 0], [0, 0], [0, 0], gravity=(0, np.nan, 0))
    with pytest.raises(ModelError, match=r"has no link 'link3'.*\['link1', 'link2'\]"):
        rnea(arm, [0, 0], [0, 0], [0, 0], f_ext={"link3": ((0, 0, 1), (0, 0, 0))}, gravity=(0, 0, -9.81))
    with pytest.raises(ModelError, match="n = 2"):
        rnea(arm, [0, 0], [0, 0], [0, 0], f_ext={5: ((0, 0, 1), (0, 0, 0))}, gravity=(0, 0, -9.81))
    with pytest.raises(ShapeError, match=r"f_ext\['link1'\] must be a pair \(F, M\)"):
        rnea(arm, [0, 0], [0, 0], [0, 0], f_ext={"link1": (0, 0, 1)}, gravity=(0, 0, -9.81))
    with pytest.raises(ShapeError, match=r"f_ext\['link1'\] moment must have 3 components"):
        rnea(arm, [0, 0], [0, 0], [0, 0], f_ext={"link1": ((0, 0, 1), (0, 0))}, gravity=(0, 0, -9.81))
    with pytest.raises(ShapeError, match="f_ext must be a dict"):
        rnea(arm, [0, 0], [0, 0], [0, 0], f_ext=np.zeros((2, 3)), gravity=(0, 0, -9.81))
