"""Joint forces by auxiliary speeds (mbdlib.kane.auxiliary_reactions), against three other methods.

* the inward force recursion of the RNEA (``rnea(..., return_reactions=True)``), on a spatial arm with
  applied loads and on a tree;
* the Lagrange multipliers of the same mechanism in Cartesian coordinates (``PlanarModel`` and
  ``dae.accelerations``: ``−Φ_qᵀ λ``), the route of chapter 3 — the same forces, reached with other
  coordinates, other equations and another solver;
* sympy.physics.mechanics' ``KanesMethod`` with ``u_auxiliary`` (its own kinematics and Kane's
  equations), on the double pendulum with motors;

and, for the rod pendulum, the hand formula of the book's page (radial and tangential pin force).
"""

from functools import cache

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

from mbdlib import Chain, Joint, PlanarModel, RigidBody, data_path, forward_dynamics, load_urdf, rnea
from mbdlib.dae import accelerations
from mbdlib.errors import ModelError, ShapeError
from mbdlib.kane import auxiliary_reactions

G = 9.81


@pytest.mark.parametrize("seed", range(3))
def test_equal_to_the_rnea_reactions_on_a_spatial_arm_with_loads(seed):
    rng = np.random.default_rng(seed)
    ur5 = load_urdf(data_path("ur5.urdf"))
    q, qd, qdd = rng.uniform(-2.0, 2.0, (3, ur5.n))
    f_ext = {3: (rng.normal(size=3), rng.normal(size=3)), "wrist_3_link": (rng.normal(size=3), np.zeros(3))}
    tau, by_rnea = rnea(ur5, q, qd, qdd, gravity=(0, 0, -G), f_ext=f_ext, return_reactions=True)
    by_aux = auxiliary_reactions(ur5, q, qd, qdd, gravity=(0, 0, -G), f_ext=f_ext)
    for name in ("force", "moment", "force_global", "moment_global"):
        np.testing.assert_allclose(getattr(by_aux, name), getattr(by_rnea, name), atol=1e-10, rtol=1e-12)
    axes = np.array([link.joint.axis for link in ur5.links])
    np.testing.assert_allclose(np.einsum("ij,ij->i", by_aux.moment, axes), tau, atol=1e-10)  # τ_i = n_i·k_i


def test_equal_to_the_rnea_on_a_tree_with_a_prismatic_joint():
    rng = np.random.default_rng(7)
    tree = Chain(name="tree")
    tree.add_link("trunk", Joint("j0", axis=(0, 0, 1)),
                  RigidBody(2.0, com=(0.3, 0.1, 0), inertia=[0.1, 0.2, 0.25]))
    tree.add_link("slide", Joint("j1", "prismatic", axis=(1, 0, 0), origin=(0.5, 0, 0)),
                  RigidBody(1.0, com=(0.1, 0, 0.05), inertia=[0.05, 0.06, 0.07]), parent="trunk")
    tree.add_link("branch", Joint("j2", axis=(0, 1, 0), origin=(0, 0.4, 0)),
                  RigidBody(1.5, com=(0, 0, 0.3), inertia=[0.08, 0.09, 0.03]), parent="trunk")
    q, qd, qdd = rng.uniform(-1.0, 1.0, (3, 3))
    _, by_rnea = rnea(tree, q, qd, qdd, gravity=(0, -G, 0), return_reactions=True)
    by_aux = auxiliary_reactions(tree, q, qd, qdd, gravity=(0, -G, 0))
    np.testing.assert_allclose(by_aux.force_global, by_rnea.force_global, atol=1e-11)
    np.testing.assert_allclose(by_aux.moment_global, by_rnea.moment_global, atol=1e-11)


def test_symbolic_rod_pendulum_is_the_hand_formula():
    """The page's worked example: a uniform rod (m, L) about a pin, angle θ from the downward vertical,
    motor torque τ. Radial (towards the pin) and tangential pin forces by hand: Newton for the centre,
    which moves on a circle of radius L/2."""
    m, L, g, th, w, tau = sp.symbols("m L g theta omega tau", positive=True)
    rod = Chain(name="rod")
    hanging = sp.Matrix([[0, 1, 0], [-1, 0, 0], [0, 0, 1]])            # the rod's x axis points down at θ = 0
    rod.add_link("rod", Joint("pin", axis=(0, 0, 1), rotation=hanging),
                 RigidBody(m, com=(L / 2, 0, 0), inertia=[0, m * L**2 / 12, m * L**2 / 12]))
    alpha = (tau - m * g * L / 2 * sp.sin(th)) / (m * L**2 / 3)  # J_O α = τ − m g L/2 sin θ
    r = auxiliary_reactions(rod, [th], [w], [alpha], gravity=(0, -g, 0))
    f = r.force_global[0, :]
    e_r = sp.Matrix([sp.sin(th), -sp.cos(th), 0])                      # pin -> centre
    e_t = sp.Matrix([sp.cos(th), sp.sin(th), 0])                       # direction of motion for θ̇ > 0
    radial = m * (L / 2) * w**2 + m * g * sp.cos(th)                   # pull towards the pin
    tangential = m * (L / 2) * alpha + m * g * sp.sin(th)
    assert sp.simplify(-(f * e_r)[0] - radial) == 0
    assert sp.simplify((f * e_t)[0] - tangential) == 0
    assert sp.simplify(r.moment_global[0, 2] - tau) == 0


# ---------------------------------------------------------------- the multipliers of chapter 3
def _cartesian_double_pendulum(masses, lengths, torques):
    """The double pendulum in Cartesian coordinates (x, y, φ per rod), two pins with motors."""
    (m1, m2), (L1, L2) = masses, lengths
    model = PlanarModel(gravity=(0.0, -G))
    rod1 = model.add_body("rod1", m1, m1 * L1**2 / 12, position=(L1 / 2, 0.0))
    rod2 = model.add_body("rod2", m2, m2 * L2**2 / 12, position=(L1 + L2 / 2, 0.0))
    pin1 = model.add_revolute(model.ground, rod1, (0.0, 0.0), (-L1 / 2, 0.0), name="pin1")
    pin2 = model.add_revolute(rod1, rod2, (L1 / 2, 0.0), (-L2 / 2, 0.0), name="pin2")
    model.add_joint_torque(pin1, torques[0])
    model.add_joint_torque(pin2, torques[1])
    return model


def _cartesian_state(lengths, q, qd):
    (L1, L2), (phi1, phi2), (w1, w2) = lengths, np.cumsum(q), np.cumsum(qd)
    e = lambda a: np.array([np.cos(a), np.sin(a)])                       # noqa: E731
    e_perp = lambda a: np.array([-np.sin(a), np.cos(a)])                 # noqa: E731
    c1, c2 = L1 / 2 * e(phi1), L1 * e(phi1) + L2 / 2 * e(phi2)
    v1, v2 = L1 / 2 * w1 * e_perp(phi1), L1 * w1 * e_perp(phi1) + L2 / 2 * w2 * e_perp(phi2)
    return np.r_[c1, phi1, c2, phi2], np.r_[v1, w1, v2, w2]


@pytest.mark.parametrize("seed", range(5))
def test_equal_to_the_lagrange_multipliers_of_the_cartesian_model(seed):
    rng = np.random.default_rng(seed)
    masses, lengths = rng.uniform(0.5, 2.0, 2), rng.uniform(0.5, 1.5, 2)
    q, qd, tau = rng.uniform(-2.0, 2.0, (3, 2))
    chain = Chain.planar(lengths, masses=masses)
    qdd = forward_dynamics(chain, q, qd, tau, gravity=(0, -G, 0))
    by_aux = auxiliary_reactions(chain, q, qd, qdd, gravity=(0, -G, 0))

    model = _cartesian_double_pendulum(masses, lengths, tau)
    system = model.system()
    x, xd = _cartesian_state(lengths, q, qd)
    xdd, lam = accelerations(system, 0.0, x, xd)
    np.testing.assert_allclose(xdd[[2, 5]], np.cumsum(qdd), atol=1e-10)       # the same motion
    J = model.phi_q(x)
    Qc = -J.T @ lam                                                    # constraint forces (ch3-reaction)
    # pin 1 acts on rod 1 only through its rows 0-1; pin 2 on rod 2 through rows 2-3
    on_rod1_from_pin1 = -J[0:2, 0:3].T @ lam[0:2]
    on_rod2_from_pin2 = -J[2:4, 3:6].T @ lam[2:4]
    np.testing.assert_allclose(on_rod1_from_pin1[:2], by_aux.force_global[0, :2], atol=1e-10)
    np.testing.assert_allclose(on_rod2_from_pin2[:2], by_aux.force_global[1, :2], atol=1e-10)
    np.testing.assert_allclose(Qc[3:5], by_aux.force_global[1, :2], atol=1e-10)
    # the pins carry no moment in the Cartesian model; the chain's n_z is the motor torque, applied there
    np.testing.assert_allclose(by_aux.moment_global[:, 2], tau, atol=1e-10)


# ---------------------------------------------------------------- sympy's KanesMethod with u_auxiliary
@cache
def _sympy_double_pendulum():
    q1, q2, u1, u2 = me.dynamicsymbols("q1 q2 u1 u2")
    ua = me.dynamicsymbols("ua1:5")
    m1, m2, L1, L2, g, T1, T2 = sp.symbols("m1 m2 L1 L2 g T1 T2")
    R = sp.symbols("R1:5")
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (q1, N.z))
    B = A.orientnew("B", "Axis", (q2, A.z))
    A.set_ang_vel(N, u1 * N.z)
    B.set_ang_vel(A, u2 * A.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    P1 = O.locatenew("P1", 0 * N.x)                       # rod 1's point at pin 1, free to slide (auxiliary)
    P1.set_vel(N, ua[0] * N.x + ua[1] * N.y)
    C1 = P1.locatenew("C1", L1 / 2 * A.x)
    C1.v2pt_theory(P1, N, A)
    E = P1.locatenew("E", L1 * A.x)                       # rod 1's end
    E.v2pt_theory(P1, N, A)
    P2 = E.locatenew("P2", 0 * N.x)                       # rod 2's point at pin 2 (auxiliary slide)
    P2.set_vel(N, E.vel(N) + ua[2] * N.x + ua[3] * N.y)
    C2 = P2.locatenew("C2", L2 / 2 * B.x)
    C2.v2pt_theory(P2, N, B)
    rod1 = me.RigidBody("rod1", C1, A, m1, (me.inertia(A, 0, 0, m1 * L1**2 / 12), C1))
    rod2 = me.RigidBody("rod2", C2, B, m2, (me.inertia(B, 0, 0, m2 * L2**2 / 12), C2))
    loads = [(C1, -m1 * g * N.y), (C2, -m2 * g * N.y), (A, (T1 - T2) * N.z), (B, T2 * N.z),
             (P1, R[0] * N.x + R[1] * N.y), (P2, R[2] * N.x + R[3] * N.y), (E, -R[2] * N.x - R[3] * N.y)]
    kane = me.KanesMethod(N, q_ind=[q1, q2], u_ind=[u1, u2], kd_eqs=[q1.diff() - u1, q2.diff() - u2],
                          u_auxiliary=list(ua))
    kane.kanes_equations([rod1, rod2], loads)
    ud = sp.symbols("ud1 ud2")
    aux = kane.auxiliary_eqs.subs({u1.diff(): ud[0], u2.diff(): ud[1]})
    args = [q1, q2, u1, u2, m1, m2, L1, L2, g, T1, T2]
    return (sp.lambdify(args, kane.mass_matrix), sp.lambdify(args, kane.forcing),
            sp.lambdify(args + list(ud), aux.jacobian(R)),
            sp.lambdify(args + list(ud), aux.subs(dict.fromkeys(R, 0))))


@pytest.mark.parametrize("seed", range(4))
def test_equal_to_sympy_kanes_method_with_auxiliary_speeds(seed):
    rng = np.random.default_rng(100 + seed)
    masses, lengths = rng.uniform(0.5, 2.0, 2), rng.uniform(0.5, 2.0, 2)
    q, qd, tau = rng.uniform(-2.0, 2.0, (3, 2))
    M, F, AR, bR = _sympy_double_pendulum()
    args = [*q, *qd, *masses, *lengths, G, *tau]
    ud = np.linalg.solve(np.array(M(*args), float), np.array(F(*args), float).ravel())
    R = np.linalg.solve(np.array(AR(*args, *ud), float), -np.array(bR(*args, *ud), float).ravel())

    chain = Chain.planar(lengths, masses=masses)
    qdd = forward_dynamics(chain, q, qd, tau, gravity=(0, -G, 0))
    np.testing.assert_allclose(qdd, ud, atol=1e-10)
    by_aux = auxiliary_reactions(chain, q, qd, qdd, gravity=(0, -G, 0))
    np.testing.assert_allclose(by_aux.force_global[:, :2].ravel(), R, atol=1e-10)


def test_bad_input_gets_a_clear_error():
    arm = Chain.planar([1.0, 1.0])
    with pytest.raises(ModelError, match="gravity"):
        auxiliary_reactions(arm, [0, 0], [0, 0], [0, 0])
    with pytest.raises(ShapeError):
        auxiliary_reactions(arm, [0, 0, 0], [0, 0], [0, 0], gravity=(0, -G, 0))
    with pytest.raises(ShapeError, match="f_ext"):
        auxiliary_reactions(arm, [0, 0], [0, 0], [0, 0], gravity=(0, -G, 0), f_ext=[1, 2])
