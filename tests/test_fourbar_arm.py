"""Tests of the four-bar arm (issue 7): the recursive Kane algorithm with the loop kept closed.

Four formulations must agree at random states (parallelogram and a general
four-bar, with and without a tip force):

(a) mbdlib.kane_closed through FourBarArm.inverse_dynamics / forward_dynamics;
(b) Lagrange multipliers in all four absolute angles (FourBarArm.lagrange_*,
    written out independently of the Kane code);
(c) the planar Cartesian model of chapter 3 (mbdlib.planar.PlanarModel, 4 bodies,
    5 revolute joints, two angle drivers whose multipliers are the torques);
(d) sympy.physics.mechanics.KanesMethod with dependent coordinates and speeds.

Plus closed forms of the parallelogram, energy conservation, positive definite M,
the decoupling condition, change points and bad input.
"""

from functools import cache

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import fourbar_kanes_method

from mbdlib import dae
from mbdlib.bodies import RigidBody
from mbdlib.chain import Chain, Joint
from mbdlib.dae import simulate
from mbdlib.errors import ModelError, ShapeError, SingularityError
from mbdlib.kane_closed import (
    ClosedChain,
    LoopJoint,
    closed_kane_inverse_dynamics,
    loop_bias,
    loop_jacobian,
    loop_residual,
    passive_rates,
    solve_passive,
    trig_canonical,
)
from mbdlib.mechanisms import fourbar_arm
from mbdlib.planar import PlanarModel
from mbdlib.schemes import ODE

GENERAL = dict(L4=0.58, b2=(-0.20, 0.0), d1=(0.30, 0.01), d2=(0.20, -0.015), d3=(0.075, 0.004),
               d4=(0.30, 0.012))
TIP = dict(F_tip=(12.0, -20.0))
CASES = {"parallelogram": {}, "parallelogram+tip": TIP, "general": GENERAL, "general+tip": {**GENERAL, **TIP}}


@cache
def arm_of(case: str):
    return fourbar_arm(**CASES[case])


def random_states(seed: int, k: int = 3):
    """States on the assembly branch, away from the change points (q2 − q1 in (0.3, π − 0.3))."""
    rng = np.random.default_rng(seed)
    for _ in range(k):
        q1 = rng.uniform(-np.pi, np.pi)
        q = np.array([q1, q1 + rng.uniform(0.3, np.pi - 0.3)])
        yield q, rng.uniform(-3, 3, 2), rng.uniform(-5, 5, 2)


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, float(np.max(np.abs(b)))))


# ------------------------------------------------------------------ kinematics of the loop
@pytest.mark.parametrize("case", ["parallelogram", "general"])
def test_passive_angles_close_the_loop_on_the_stated_branch(case):
    arm = arm_of(case)
    for q, _, _ in random_states(1, 5):
        pts = arm.points(q)
        th2, th4 = arm.passive_angles(q)
        b2 = arm.params["b2"]
        B_from_forearm = pts["E"] + np.array([[np.cos(th2), -np.sin(th2)], [np.sin(th2), np.cos(th2)]]) @ b2
        close(B_from_forearm, pts["B"], 1e-12)
        assert np.hypot(*(pts["B"] - pts["A"])) == pytest.approx(arm.params["L4"], abs=1e-12)
        AE, AB = pts["E"] - pts["A"], pts["B"] - pts["A"]
        assert AE[0] * AB[1] - AE[1] * AB[0] > 0                  # B to the left of A -> E
        assert np.hypot(*(pts["P"] - pts["E"])) == pytest.approx(arm.params["L2"])
        close(arm.tip_position(q), pts["P"])


@settings(max_examples=25, deadline=None)
@given(q1=st.floats(-np.pi, np.pi), gap=st.floats(0.05, np.pi - 0.05))
def test_parallelogram_closed_forms(q1, gap):
    q = np.array([q1, q1 + gap])
    th2, th4 = arm_of("parallelogram").passive_angles(q)
    wrap = lambda x: (x + np.pi) % (2 * np.pi) - np.pi   # noqa: E731
    assert wrap(th2 - (q[1] + np.pi)) == pytest.approx(0, abs=1e-9)
    assert wrap(th4 - q[0]) == pytest.approx(0, abs=1e-9)


def test_generic_loop_quantities_against_finite_differences():
    arm = arm_of("general")
    cc = arm.closed
    q, qd, _ = next(random_states(2))
    theta = np.array(cc.tree_coordinates(q, arm._theta_p(q)))
    assert np.max(np.abs(loop_residual(cc, theta))) < 1e-12
    J, h = loop_jacobian(cc, theta), 1e-6
    fd = np.column_stack([(loop_residual(cc, theta + h * e) - loop_residual(cc, theta - h * e)) / (2 * h)
                          for e in np.eye(4)])
    close(J, fd, 1e-8)
    thd = np.random.default_rng(3).uniform(-2, 2, 4)
    Jdot_thd = (loop_jacobian(cc, theta + h * thd) - loop_jacobian(cc, theta - h * thd)) / (2 * h) @ thd
    close(loop_bias(cc, theta, thd), Jdot_thd, 1e-7)
    # Newton on the generic loop finds the closed-form branch from a nearby guess
    close(solve_passive(cc, q, np.array(arm._theta_p(q)) + 0.05), arm._theta_p(q), 1e-10)
    # passive rates: absolute (θ̇2, θ̇4) from the explicit absolute-angle Jacobian
    Phi = arm.loop_jacobian(q)
    close(arm.passive_rates(q), -np.linalg.solve(Phi[:, [1, 3]], Phi[:, [0, 2]]), 1e-12)
    B = passive_rates(cc, theta)
    assert B.shape == (2, 2)


# ------------------------------------------------------------------ (a) vs (b): Lagrange multipliers
@pytest.mark.parametrize("case", list(CASES))
def test_kane_matches_lagrange_multipliers(case):
    arm = arm_of(case)
    for q, qd, qdd in random_states(10):
        tau = arm.inverse_dynamics(q, qd, qdd)
        close(tau, arm.lagrange_inverse_dynamics(q, qd, qdd)[0])
        close(arm.forward_dynamics(q, qd, tau), qdd, 1e-9)
        close(arm.lagrange_forward_dynamics(q, qd, tau), qdd, 1e-9)


# ------------------------------------------------------------------ (c): the Cartesian model of chapter 3
def planar_model(arm, q, qd, qdd):
    """PlanarModel with 4 bodies, 5 revolute joints and two drivers φ1 = q1(t), φ3 = q2(t) (zero DOF: the
    drivers set every velocity, none is given)."""
    p = arm.params
    th = arm.angles(q)
    model = PlanarModel(gravity=(0.0, -p["g"]))
    pts = arm.points(q)
    joints = (pts["O"], pts["E"], pts["O"], pts["A"])
    rot = lambda t, s: np.array([np.cos(t) * s[0] - np.sin(t) * s[1], np.sin(t) * s[0] + np.cos(t) * s[1]])  # noqa: E731
    bodies = []
    for k in range(4):
        d = p[f"d{k + 1}"]
        c = joints[k] + rot(th[k], d)
        bodies.append(model.add_body(f"link{k + 1}", p[f"m{k + 1}"], p[f"I{k + 1}"], position=c, angle=th[k]))
    d1, d2, d3, d4 = (p[f"d{k}"] for k in range(1, 5))
    model.add_revolute(model.ground, bodies[0], (0, 0), -d1)
    model.add_revolute(bodies[0], bodies[1], np.array([p["L1"], 0]) - d1, -d2)
    model.add_revolute(model.ground, bodies[2], (0, 0), -d3)
    model.add_revolute(bodies[2], bodies[3], np.array([p["L3"], 0]) - d3, -d4)
    model.add_revolute(bodies[3], bodies[1], np.array([p["L4"], 0]) - d4, p["b2"] - d2)   # pin B
    for body, k in ((bodies[0], 0), (bodies[2], 1)):
        a, v, acc = q[k], qd[k], qdd[k]
        model.add_driver(body, "phi", f=lambda t, a=a, v=v, acc=acc: a + v * t + acc * t**2 / 2,
                         df=lambda t, v=v, acc=acc: v + acc * t, ddf=lambda t, acc=acc: acc)
    if np.any(p["F_tip"]):
        model.add_force(bodies[1], p["F_tip"], point=np.array([p["L2"], 0]) - d2)
    return model


@pytest.mark.parametrize("case", list(CASES))
def test_kane_matches_planar_cartesian_model_with_drivers(case):
    arm = arm_of(case)
    for q, qd, qdd in random_states(20, 2):
        model = planar_model(arm, q, qd, qdd)
        system = model.system()
        x_dd, lam = dae.accelerations(system, 0.0, model.q0, model.qd0)
        assert x_dd[2] == pytest.approx(qdd[0], abs=1e-9) and x_dd[8] == pytest.approx(qdd[1], abs=1e-9)
        # M ẍ + Φ_qᵀ λ = Q: a driver row e_φ carries the generalized force −λ_driver = the motor torque
        tau = -lam[-2:]
        close(tau, arm.inverse_dynamics(q, qd, qdd), 1e-9)


# ------------------------------------------------------------------ (d): sympy KanesMethod, dependent speeds
@cache
def kanes_method_functions(case: str):
    d = fourbar_kanes_method(arm_of(case))
    km = d["km"]
    args = [*d["q"], *d["u"], *d["tau"]]
    MM = sp.lambdify(args, km.mass_matrix, cse=True)
    forcing = sp.lambdify(args, km.forcing, cse=True)
    # velocity constraints, linear in the dependent speeds: C_dep u_dep = −C_ind u_ind
    vc = sp.Matrix(d["velocity_constraints"])
    C = sp.lambdify(args, vc.jacobian(d["u"]), cse=True)
    return MM, forcing, C


def kanes_method_forward(case, q, qd, tau):
    MM, forcing, C = kanes_method_functions(case)
    th = arm_of(case).angles(q)
    args = [th[0], th[2], th[1], th[3], qd[0], qd[1], 0, 0, *tau]
    Cm = np.asarray(C(*args), dtype=float)
    u_dep = np.linalg.solve(Cm[:, 2:], -Cm[:, :2] @ qd)
    args[6:8] = u_dep
    rhs = np.asarray(forcing(*args), dtype=float).ravel()
    udot = np.linalg.solve(np.asarray(MM(*args), dtype=float), rhs)
    return udot[:2]


@pytest.mark.slow
@pytest.mark.parametrize("case", ["parallelogram+tip", "general+tip"])
def test_kane_matches_sympy_kanes_method(case):
    arm = arm_of(case)
    for q, qd, qdd in random_states(30, 2):
        tau = np.random.default_rng(4).uniform(-20, 20, 2)
        close(kanes_method_forward(case, q, qd, tau), arm.forward_dynamics(q, qd, tau), 1e-9)
        # inverse dynamics: q̈(τ) is affine in τ, so τ = K⁻¹ (q̈ − q̈(0)) with K's columns q̈(e_k) − q̈(0)
        a0 = kanes_method_forward(case, q, qd, (0, 0))
        K = np.column_stack([kanes_method_forward(case, q, qd, e) - a0 for e in np.eye(2)])
        close(np.linalg.solve(K, qdd - a0), arm.inverse_dynamics(q, qd, qdd), 1e-8)


# ------------------------------------------------------------------ symbolic equations
def test_parallelogram_equations_in_closed_form():
    arm = arm_of("parallelogram")
    eq = arm.equations()
    q1, q2 = eq.q
    p = arm.params
    sq = lambda v: float(v @ v)     # noqa: E731
    M11 = p["m1"] * sq(p["d1"]) + p["I1"] + p["m2"] * p["L1"] ** 2 + p["m4"] * sq(p["d4"]) + p["I4"]
    M22 = p["I2"] + p["m2"] * sq(p["d2"]) + p["m3"] * sq(p["d3"]) + p["I3"] + p["m4"] * p["L3"] ** 2
    c = p["m4"] * p["L3"] * p["d4"][0] - p["m2"] * p["L1"] * p["d2"][0]      # derived by hand (see chapter)
    expected = sp.Matrix([[M11, c * sp.cos(q2 - q1)], [c * sp.cos(q2 - q1), M22]])
    assert all(abs(float(x)) < 1e-12 for x in (eq.M - expected).applyfunc(trig_canonical))
    assert eq.M[0, 0].free_symbols == set() and eq.M[1, 1].free_symbols == set()   # constants
    assert eq.passive == ()


@pytest.mark.slow
@pytest.mark.parametrize("case", ["general+tip"])
def test_symbolic_equations_evaluate_to_the_numeric_recursion(case):
    arm = arm_of(case)
    eq = arm.equations()
    assert eq.passive
    f = sp.lambdify([eq.q, eq.qd, eq.qdd, eq.passive], [eq.M, eq.tau], cse=True)
    for q, qd, qdd in random_states(40, 2):
        M, tau = f(q, qd, qdd, arm.passive_angles(q))
        close(np.asarray(M, dtype=float), arm.mass_matrix(q))
        close(np.ravel(tau).astype(float), arm.lagrange_inverse_dynamics(q, qd, qdd)[0])


def test_symbolic_closed_chain_equals_numeric_on_the_rhombus():
    """The generic code in symbolic mode, with symbolic parameters, evaluates to the numeric one."""
    L, m, g = sp.symbols("L m g", positive=True)
    tree = Chain(name="rhombus")
    for name, parent, x in (("a", "base", 0), ("b", "a", L), ("c", "base", 0), ("d", "c", L)):
        rod = RigidBody(m, com=(L / 2, 0, 0), inertia=(0, m * L**2 / 12, m * L**2 / 12), name=name)
        tree.add_link(name, Joint(name, origin=(x, 0, 0)), rod, parent)
    cc = ClosedChain(tree, ["a", "c"], [LoopJoint("b", (L, 0, 0), "d", (L, 0, 0))])
    q, qd, qdd = sp.symbols("q1 q2"), sp.symbols("qd1 qd2"), sp.symbols("qdd1 qdd2")
    tau = closed_kane_inverse_dynamics(cc, q, qd, qdd, [q[1] - q[0], q[0] - q[1]], (0, -g, 0),
                                       simplify=trig_canonical)
    # a rhombus: b ∥ c, d ∥ a.  By hand (Lagrange), per actuator: crank-like rod m L²/3, the rod it carries
    # m L², the parallel rod m L²/4 + m L²/12; coupling m L² cos(q2 − q1); V = 2 m g L (sin q1 + sin q2).
    J0, c = m * L**2 * sp.Rational(5, 3), m * L**2
    cs, sn = sp.cos(q[1] - q[0]), sp.sin(q[1] - q[0])
    expected = sp.Matrix([J0 * qdd[0] + c * cs * qdd[1] - c * sn * qd[1] ** 2 + 2 * m * g * L * sp.cos(q[0]),
                          J0 * qdd[1] + c * cs * qdd[0] + c * sn * qd[0] ** 2 + 2 * m * g * L * sp.cos(q[1])])
    assert (tau - expected).applyfunc(lambda e: sp.simplify(trig_canonical(e))) == sp.zeros(2, 1)


# ------------------------------------------------------------------ properties
@settings(max_examples=20, deadline=None)
@given(q1=st.floats(-np.pi, np.pi), gap=st.floats(0.1, np.pi - 0.1), case=st.sampled_from(["parallelogram",
                                                                                              "general"]))
def test_mass_matrix_symmetric_positive_definite_and_equal_to_lagrange(q1, gap, case):
    arm = arm_of(case)
    q = np.array([q1, q1 + gap])
    M = arm.mass_matrix(q)
    np.testing.assert_allclose(M, M.T, atol=1e-14)
    assert np.all(np.linalg.eigvalsh(M) > 0)
    # kinetic energy ½ q̇ᵀ M q̇ against the energy of the links (explicit absolute-angle kinematics)
    qd = np.array([0.7, -1.3])
    T = arm.energy(q, qd) - arm.energy(q, np.zeros(2))
    assert 0.5 * qd @ M @ qd == pytest.approx(T, rel=1e-12)


@pytest.mark.parametrize("case", ["general+tip", "parallelogram"])
def test_energy_is_conserved_without_torques(case):
    arm = arm_of(case)
    sim = simulate(arm.system(), 0.3, ODE(rtol=1e-10, atol=1e-10), q0=[-1.2, 0.4], qd0=[0.5, -0.4])
    for q in sim.q:                                              # stayed away from the change points
        assert np.linalg.svd(arm.loop_jacobian(q)[:, [1, 3]], compute_uv=False)[-1] > 0.02
    assert sim.energy_drift < 1e-7 * max(1.0, abs(sim.energy[0]))
    assert np.ptp(sim.q[:, 0]) > 0.05                            # it did move


@pytest.mark.slow
def test_decoupling_condition_gives_zero_M12():
    coeffs = arm_of("parallelogram").decoupling_coefficients()
    s = coeffs["symbols"]
    expected = s["m4"] * s["L3"] * s["d4"][0] - s["m2"] * s["L1"] * s["d2"][0]
    assert sp.simplify(coeffs["cos"] - expected) == 0
    assert sp.simplify(coeffs["sin"] - (s["m2"] * s["L1"] * s["d2"][1] + s["m4"] * s["L3"] * s["d4"][1])) == 0
    assert not arm_of("parallelogram").decoupled()
    # choose the coupler's centre of mass from the condition: m4 L3 d4x = m2 L1 d2x
    p = arm_of("parallelogram").params
    d4x = float(sp.solve(coeffs["cos"], s["d4"][0])[0].subs({s["m2"]: p["m2"], s["L1"]: p["L1"],
                                                              s["d2"][0]: p["d2"][0], s["m4"]: p["m4"],
                                                              s["L3"]: p["L3"]}))
    arm = fourbar_arm(d4=(d4x, 0.0))
    assert arm.decoupled()
    for q, _, _ in random_states(5):
        assert abs(arm.mass_matrix(q)[0, 1]) < 1e-12
        tau_acc = arm.lagrange_inverse_dynamics(q, [0, 0], [1.0, 0])[0] - arm.lagrange_inverse_dynamics(
            q, [0, 0], [0, 0])[0]
        assert abs(tau_acc[1]) < 1e-12                           # q̈1 needs no torque at the crank


# ------------------------------------------------------------------ singular configurations and bad input
@pytest.mark.parametrize("gap", [0.0, np.pi])
def test_change_points_raise_singularity_error(gap):
    arm = arm_of("parallelogram")
    q = np.array([0.4, 0.4 + gap])
    for call in (lambda: arm.inverse_dynamics(q, [1, 0], [0, 0]), lambda: arm.mass_matrix(q),
                 lambda: arm.passive_rates(q), lambda: arm.forward_dynamics(q, [0, 0], [0, 0])):
        with pytest.raises(SingularityError, match=r"change point.*q2 − q1 = 0 or π"):
            call()


def test_bad_parameters_and_arguments():
    with pytest.raises(ModelError, match="m2 is a mass and must be positive"):
        fourbar_arm(m2=-1.0)
    with pytest.raises(ModelError, match="I3 is a moment of inertia"):
        fourbar_arm(I3=0.0)
    with pytest.raises(ModelError, match="L1 is a length"):
        fourbar_arm(L1=0.0)
    with pytest.raises(ModelError, match=r"unknown parameter\(s\) \['L5'\]"):
        fourbar_arm(L5=1.0)
    with pytest.raises(ModelError, match=r"never close.*\|AE\|.*L4 = 2"):
        fourbar_arm(L4=2.0)
    with pytest.raises(ShapeError, match="b2 must be 2 finite numbers"):
        fourbar_arm(b2=(1.0, 2.0, 3.0))
    with pytest.raises(ShapeError, match="q must have 2 components"):
        arm_of("general").inverse_dynamics([0.1], [0, 0], [0, 0])
    arm = fourbar_arm(L4=0.50, b2=(-0.15, 0.0))                   # closes only for part of the workspace
    with pytest.raises(ModelError, match=r"cannot close at q.*L4 = 0.5"):
        arm.passive_angles([0.0, np.pi])                         # |AE| = L1 + L3 = 0.75 > L4 + |b2| = 0.65
    with pytest.raises(ModelError, match="not a parallelogram"):
        arm_of("general").equations(parallelogram=True)
    with pytest.raises(ModelError, match="active joints repeat"):
        ClosedChain(arm.chain, ["upper_arm", "upper_arm"], [])
    with pytest.raises(ModelError, match="give 0 equations but there are 2 passive"):
        ClosedChain(arm.chain, ["upper_arm", "crank"], [])
