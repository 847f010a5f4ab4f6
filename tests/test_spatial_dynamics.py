"""Spatial bodies in motion: Euler-parameter Cartesian coordinates against independent results (issue 15).

* the heavy symmetric top: steady precession at the rate of its closed-form condition, and the three
  conserved quantities (energy, vertical angular momentum, spin);
* the 6R arm: Cartesian coordinates with Euler parameters (49 coordinates, 43 constraints) against
  joint coordinates (Featherstone's recursions, :mod:`mbdlib.dynamics`), same body poses;
* γ of every joint against a finite difference of ``Φ_q q̇``, and the mass matrix's structure;
* rolling without slipping: the disk against sympy.physics.mechanics' KanesMethod, on a tilted plane
  against the rotated motion on z = 0, with an offset centre against the same body built from two welded
  parts, ``b_γ`` against an exact stencil (the benchmark bicycle, two wheels rolling: tests/test_vehicles.py);
* joint torques and forces: the same motion as the pair of body torques, power τ θ̇, inputs of linearize.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import rolling_disk_kanes_method

from mbdlib import ODE, AugmentedLagrangian, Projection, dae, simulate
from mbdlib.catalogue import mechanism
from mbdlib.errors import ModelError, ShapeError, SingularityError
from mbdlib.kinematics import forward_kinematics
from mbdlib.spatial import _A, _L, SpatialModel

M_TOP, L_TOP, G0 = 1.0, 0.1, 9.81
A_CM, C_TOP = 0.004, 0.006


def top(theta, spin, precession, gravity=(0.0, 0.0, -G0)):
    """A symmetric top on a fixed base: tilt ``theta`` about x, spin about its axis relative to the
    precessing frame, precession about the vertical; the pivot is ``L_TOP`` below the centre of mass."""
    p = np.array([np.cos(theta / 2), np.sin(theta / 2), 0.0, 0.0])
    axis = _A(p) @ [0.0, 0.0, 1.0]
    r = L_TOP * axis
    omega = precession * np.array([0.0, 0.0, 1.0]) + spin * axis
    model = SpatialModel(gravity=gravity)
    model.add_body("base", mass=1.0, inertia=np.eye(3))
    model.fix("base")
    model.add_body("top", position=r, orientation=p, mass=M_TOP, inertia=[A_CM, A_CM, C_TOP],
                   velocity=np.cross(omega, r), angular_velocity=omega)
    model.add_spherical("base", "top", (0, 0, 0), (0, 0, -L_TOP))
    return model


def test_heavy_top_precesses_steadily_at_the_analytic_rate():
    """Steady precession needs ``m g l = Ω C ω₃ − A Ω² cos θ`` (A about the pivot); take its slow root."""
    theta, w3 = 0.5, 60.0
    A_piv = A_CM + M_TOP * L_TOP**2
    a, b, c = A_piv * np.cos(theta), -C_TOP * w3, M_TOP * G0 * L_TOP
    rate = (-b - np.sqrt(b * b - 4 * a * c)) / (2 * a)
    model = top(theta, w3 - rate * np.cos(theta), rate)
    res = simulate(model.system(), 2.0, Projection(rtol=1e-10, atol=1e-10), t_eval=np.linspace(0.0, 2.0, 101))
    assert res.violation.max() < 1e-10
    assert res.energy_error < 1e-8
    J = np.diag([A_CM, A_CM, C_TOP])
    Lz, spin, tilt, azimuth = [], [], [], []
    for q, qd in zip(res.q, res.qd, strict=True):
        p, pd = q[10:14], qd[10:14]
        w_body = 2 * _L(p) @ pd
        axis = _A(p) @ [0.0, 0.0, 1.0]
        Lz.append((_A(p) @ (J @ w_body) + M_TOP * np.cross(q[7:10], qd[7:10]))[2])
        spin.append(w_body[2])
        tilt.append(np.arccos(axis[2]))
        azimuth.append(np.arctan2(axis[1], axis[0]))
    np.testing.assert_allclose(Lz, Lz[0], atol=1e-8 * abs(Lz[0]))
    np.testing.assert_allclose(spin, w3, rtol=1e-8)
    np.testing.assert_allclose(tilt, theta, atol=1e-8)
    measured = np.diff(np.unwrap(azimuth)) / np.diff(res.t)
    np.testing.assert_allclose(measured, rate, rtol=1e-7)


def test_heavy_top_steady_precession_is_stable_with_the_closed_form_nutation_frequency():
    """Linearized about steady precession (tilt θ0, precession Ω, spin ω3; both roots of the steady
    condition), in the tilt (the ZXZ middle angle) with the rates of tilt, precession and spin as speeds:
    the eigenvalues are 0, 0 (the conserved momenta about the vertical and the axis) and ±i ω_n with
    ω_n² = Ω² sin²θ0 + ((C ω3 − 2 A Ω cos θ0) / A)² (A about the pivot), by hand from the Routhian of the
    symmetric top: steady precession is stable."""
    from mbdlib import linearize

    theta, w3 = 0.5, 60.0
    A_piv = A_CM + M_TOP * L_TOP**2
    a, b, c = A_piv * np.cos(theta), -C_TOP * w3, M_TOP * G0 * L_TOP
    for rate in ((-b - np.sqrt(b * b - 4 * a * c)) / (2 * a), (-b + np.sqrt(b * b - 4 * a * c)) / (2 * a)):
        model = top(theta, w3 - rate * np.cos(theta), rate)
        tilt, precession, spin = (model.euler_angle("top", "ZXZ", k) for k in (1, 0, 2))
        lin = linearize(model.system(), [tilt], [tilt, precession, spin])
        assert lin.is_equilibrium and lin.stable()
        gyro = (C_TOP * w3 - 2 * A_piv * rate * np.cos(theta)) / A_piv
        w_n = np.sqrt(rate**2 * np.sin(theta) ** 2 + gyro**2)
        lam = lin.eigenvalues
        np.testing.assert_allclose(np.sort(lam.imag), [-w_n, 0.0, 0.0, w_n], rtol=1e-7, atol=1e-7 * w_n)
        np.testing.assert_allclose(lam.real, 0.0, atol=1e-7 * w_n)


def test_top_off_steady_nutates_and_keeps_its_invariants():
    """Started without precession the top nods (the tilt changes), yet E, L_z and the spin stay."""
    model = top(0.4, 40.0, 0.0)
    res = simulate(model.system(), 1.0, Projection(rtol=1e-10, atol=1e-10), t_eval=np.linspace(0.0, 1.0, 51))
    tilt = [np.arccos((_A(q[10:14]) @ [0, 0, 1.0])[2]) for q in res.q]
    assert np.ptp(tilt) > 1e-3                          # it nutates
    assert res.energy_error < 1e-8
    spin = [(2 * _L(q[10:14]) @ qd[10:14])[2] for q, qd in zip(res.q, res.qd, strict=True)]
    np.testing.assert_allclose(spin, 40.0, rtol=1e-8)


def test_6r_arm_cartesian_euler_parameters_equal_joint_coordinates():
    """The 6R arm released with joint rates under gravity: body poses from 49 Cartesian coordinates with
    43 constraints equal those of the 6 joint coordinates (forward dynamics by the recursions)."""
    rel = mechanism("arm6r", coordinates="relative", gravity=(0, 0, -9.81))
    cart = mechanism("arm6r", coordinates="cartesian", gravity=(0, 0, -9.81))
    assert cart.n == 49 and len(cart.labels) == 43
    qd0 = np.array([0.8, -0.5, 1.1, 2.0, -1.5, 3.0])
    fk = forward_kinematics(rel.chain, np.zeros(6), qd0)
    for k in range(6):                                  # the same state: velocities of each link
        body = cart.bodies[k + 1]
        body.velocity, body.angular_velocity = fk.A[k] @ fk.v_c[k], fk.A[k] @ fk.omega[k]
    t_eval = np.linspace(0.0, 0.5, 6)
    joint = simulate(rel.system(), 0.5, ODE(rtol=1e-10, atol=1e-10), t_eval=t_eval, qd0=qd0)
    euler = simulate(cart.system(), 0.5, Projection(rtol=1e-10, atol=1e-10), t_eval=t_eval)
    np.testing.assert_allclose(euler.qd[0][7:], cart.qd_guess()[7:], atol=1e-12)   # consistent as given
    for q, qc in zip(joint.q, euler.q, strict=True):
        f = forward_kinematics(rel.chain, q)
        for k in range(6):
            body = qc[7 * (k + 1): 7 * (k + 2)]
            np.testing.assert_allclose(body[:3], f.r[k] + f.A[k] @ f.d[k], atol=1e-6)
            np.testing.assert_allclose(_A(body[3:]), f.A[k], atol=1e-6)
    assert euler.energy_error < 1e-8 and euler.violation.max() < 1e-9


def _joints_model():
    """Two free bodies joined by each joint type in turn (the joints are evaluated, not assembled)."""
    rng = np.random.default_rng(15)
    out = []
    for kind in ("spherical", "revolute", "universal", "prismatic", "cylindrical"):
        m = SpatialModel(gravity=(0, 0, 0))
        for name in ("a", "b"):
            p = rng.normal(size=4)
            m.add_body(name, rng.normal(size=3), p / np.linalg.norm(p), inertia=[1.0, 2.0, 2.5])
        getattr(m, f"add_{kind}")("a", "b", rng.normal(size=3), rng.normal(size=3))
        out.append((kind, m))
    return out


@pytest.mark.parametrize("kind, model", _joints_model(), ids=lambda x: x if isinstance(x, str) else "")
def test_gamma_is_the_derivative_of_phi_q_qdot(kind, model):
    """γ = −(Φ_q q̇)_q q̇: a central difference of Φ_q(q + s q̇) q̇ in s, at random states."""
    rng = np.random.default_rng(1)
    for _ in range(3):
        q = model.q_guess() + 0.1 * rng.normal(size=model.n)
        qd = rng.normal(size=model.n)
        h = 1e-6
        fd = (model.phi_q(q + h * qd) @ qd - model.phi_q(q - h * qd) @ qd) / (2 * h)
        np.testing.assert_allclose(model.gamma(q, qd), -fd, atol=1e-6 * (1 + np.abs(fd).max()))


def test_mass_matrix_rotational_block_is_singular_alone_and_fixed_by_the_normalization_row():
    model = SpatialModel(gravity=(0, 0, -9.81))
    model.add_body("b", orientation=(0.8, 0.2, -0.4, 0.4), mass=2.0, inertia=[[1.0, 0.1, 0], [0.1, 2.0, 0],
                                                                             [0, 0, 2.5]])
    q = model.q_guess()
    p = q[3:7]
    Mp = 4 * _L(p).T @ model.bodies[0].inertia @ _L(p)
    assert np.allclose(Mp @ p, 0.0) and np.linalg.matrix_rank(Mp) == 3     # p is no rotation
    M = model.M(q)
    assert np.allclose(M, M.T) and np.linalg.eigvalsh(M).min() > 0
    kkt = dae.kkt_matrix(model.system(), q)
    assert np.linalg.matrix_rank(kkt) == kkt.shape[0]                      # regular with the 2 pᵀ row


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).filter(lambda v: np.linalg.norm(v) > 0.1),
       st.lists(st.floats(0.1, 1.0), min_size=3, max_size=3), st.lists(st.floats(-5.0, 5.0), min_size=4,
                                                                        max_size=4))
def test_euler_parameter_mass_matrix_for_all_orientations(p, moments, pd):
    """For every orientation and admissible inertia: L p = 0, L Lᵀ = I, M symmetric positive definite, and
    ½ ṗᵀ (4 Gᵀ J′ G) ṗ is the rotational kinetic energy ½ ω′ᵀ J′ ω′ (ω′ = 2 G ṗ)."""
    moments = sorted(moments)
    moments[2] = min(moments[2], moments[0] + moments[1])   # the triangle inequality
    p = np.asarray(p) / np.linalg.norm(p)
    model = SpatialModel(gravity=(0, 0, 0))
    model.add_body("b", orientation=p, inertia=moments)
    G = _L(model.bodies[0].orientation)
    q = model.q_guess()
    assert np.allclose(G @ q[3:7], 0.0, atol=1e-12) and np.allclose(G @ G.T, np.eye(3), atol=1e-12)
    M = model.M(q)
    assert np.allclose(M, M.T, atol=1e-13) and np.linalg.eigvalsh(M).min() > 0
    pd = np.asarray(pd)
    w = 2 * G @ pd
    Mp = 4 * G.T @ np.diag(moments) @ G
    assert 0.5 * pd @ Mp @ pd == pytest.approx(0.5 * w @ np.diag(moments) @ w, rel=1e-12, abs=1e-12)


def test_spatial_dynamics_bad_input():
    m = SpatialModel()
    m.add_body("b", inertia=[1.0, 1.0, 1.0])
    with pytest.raises(ModelError, match="gravity is not set"):
        m.M(m.q_guess())
    m = SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("b")
    with pytest.raises(ModelError, match="'b' has no inertia"):
        m.system()
    with pytest.raises(ModelError, match="triangle inequality"):
        m.add_body("c", inertia=[1.0, 1.0, 3.0])


def rssr():
    """A spatial RSSR four-bar: crank about z, rocker about x, the SS coupler a distance constraint."""
    m = SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("base", mass=1.0, inertia=[0.1, 0.1, 0.1])
    m.fix("base")
    a, c, D = 0.3, 0.5, np.array([0.2, 0.5, 0.3])
    m.add_body("crank", (a / 2, 0, 0), mass=1.0, inertia=[0.001, 0.0085, 0.0085])
    m.add_body("rocker", D + (0, c / 2, 0), mass=1.5, inertia=[0.032, 0.001, 0.032])
    m.add_revolute("base", "crank", (0, 0, 0), (-a / 2, 0, 0), axis_i=(0, 0, 1), name="crank pin")
    m.add_revolute("base", "rocker", D, (0, -c / 2, 0), axis_i=(1, 0, 0))
    m.add_distance("crank", "rocker", (a / 2, 0, 0), (0, c / 2, 0), name="coupler")
    return m


def rssr_system(model):
    """The RSSR started with the crank turning at 4 rad/s (the rocker's rate follows)."""
    return model.system(model.state(speeds={"crank pin": 4.0}))


def test_rssr_closed_loop_by_two_formulations():
    """The loop stays closed and conserves energy by projection (DOP853) and by the augmented Lagrangian
    (index 3, trapezoidal); the two trajectories agree to the AL's second-order error."""
    model = rssr()
    report = model.dof_report()
    assert report.dof == report.grubler == 1
    t_eval = np.linspace(0.0, 0.5, 11)
    system = rssr_system(model)
    proj = simulate(system, 0.5, Projection(), t_eval=t_eval)
    al = simulate(system, 0.5, AugmentedLagrangian(dt=1e-3), t_eval=t_eval)
    assert proj.energy_error < 1e-8 and proj.violation.max() < 1e-10
    assert al.energy_error < 1e-4 and al.violation.max() < 1e-9
    np.testing.assert_allclose(al.q, proj.q, atol=2e-4)


@pytest.mark.parametrize("kind", ["cylindrical", "distance"])
def test_cylindrical_and_distance_rows(kind):
    """Rows and γ of the two newer joints: Φ = 0 where they are built, Φ_q and γ against differences."""
    m = SpatialModel(gravity=(0, 0, 0))
    m.add_body("a", (0.1, 0.2, 0.3), (0.9, 0.1, 0.3, -0.2), inertia=[1.0, 1.0, 1.5])
    m.add_body("b", (0.5, -0.2, 0.7), (0.7, -0.3, 0.2, 0.5), inertia=[1.0, 1.2, 1.5])
    if kind == "cylindrical":
        pa = np.array([0.0, 0.1, 0.2])
        axis_b = _A(m.bodies[1].orientation).T @ _A(m.bodies[0].orientation) @ [0, 0, 1.0]
        pb = _A(m.bodies[1].orientation).T @ (m.bodies[0].position + _A(m.bodies[0].orientation) @ pa
                                               + 0.3 * _A(m.bodies[0].orientation) @ [0, 0, 1.0]
                                               - m.bodies[1].position)
        m.add_cylindrical("a", "b", pa, pb, axis_i=(0, 0, 1), axis_j=axis_b)
        assert m.joints[0].n_eq == 4
    else:
        m.add_distance("a", "b", (0.1, 0, 0), (0, 0.1, 0))
    q = m.q_guess()
    assert np.abs(m.phi(q)).max() < 1e-12
    rng = np.random.default_rng(3)
    dq, qd = rng.normal(size=m.n), rng.normal(size=m.n)
    h = 1e-6
    np.testing.assert_allclose(m.phi_q(q) @ dq, (m.phi(q + h * dq) - m.phi(q - h * dq)) / (2 * h), atol=1e-8)
    fd = (m.phi_q(q + h * qd) @ qd - m.phi_q(q - h * qd) @ qd) / (2 * h)
    np.testing.assert_allclose(m.gamma(q, qd), -fd, atol=1e-6 * (1 + np.abs(fd).max()))
    with pytest.raises(ModelError, match="length must be positive"):
        m.add_distance("a", "b", length=-1.0)


# ----------------------------------------------------------------- rolling without slipping
R_DISK, M_DISK = 0.3, 2.0


@pytest.fixture(scope="module")
def sympy_disk():
    """The rolling disk by sympy.physics.mechanics' KanesMethod: heading q1, lean q2, spin q3, generalized
    speeds the angular velocity in the lean frame; rolling by the contact point at rest."""
    sp = pytest.importorskip("sympy")
    me = pytest.importorskip("sympy.physics.mechanics")
    disk = rolling_disk_kanes_method(R_DISK, M_DISK, G0)
    KM, N, D, contact, centre = disk["KM"], disk["N"], disk["D"], disk["contact"], disk["centre"]
    q1, q2, q3 = disk["q"]
    u1, u2, u3 = disk["u"]
    ud = me.dynamicsymbols("u1:4", 1)
    args = [q1, q2, q3, u1, u2, u3]
    kin = KM.kindiffdict()
    fields = [D.ang_vel_in(N), centre.vel(N), D.ang_acc_in(N), centre.acc(N), centre.pos_from(contact)]
    exprs = [v.to_matrix(N).subs(kin) for v in fields] + [N.dcm(D)]
    return dict(MM=sp.lambdify(args, KM.mass_matrix), F=sp.lambdify(args, KM.forcing),
                fields=sp.lambdify(args + list(ud), exprs))


def disk_model(position, p, velocity, omega):
    model = SpatialModel(gravity=(0.0, 0.0, -G0))
    model.add_body("disk", position, p, mass=M_DISK, velocity=velocity, angular_velocity=omega,
                   inertia=[M_DISK * R_DISK**2 / 4, M_DISK * R_DISK**2 / 2, M_DISK * R_DISK**2 / 4])
    model.add_rolling_disk("disk", R_DISK, axis=(0, 1, 0))
    return model


def test_the_rolling_disks_report_counts_one_constraint_in_the_singular():
    # one body (6 coordinates without Euler parameters), one holonomic row: the contact point's height
    disk = disk_model((0.0, 0.0, R_DISK), [1.0, 0.0, 0.0, 0.0], (1.0, 0.0, 0.0), (0.0, 2.0, 0.0))
    text = disk.dof_report().text
    assert "6 coordinates (6 per body), 1 constraint\n" in text + "\n", text


def test_rolling_rows_kept_from_the_last_state_are_those_of_the_state_asked():
    """B and b_γ keep their last evaluation (one pass per KKT solve): in any order of calls and states,
    each equals a fresh model's, and changing a returned array changes nothing kept."""
    rng = np.random.default_rng(4)
    model = disk_model((0.0, 0.0, R_DISK), [1.0, 0.0, 0.0, 0.0], (1.0, 0.0, 0.0), (0.0, 2.0, 0.0))
    states = [(rng.normal(size=model.n), rng.normal(size=model.n)) for _ in range(3)]
    for k in [0, 0, 1, 0, 2, 2, 1]:
        q, qd = states[k]
        fresh = disk_model((0.0, 0.0, R_DISK), [1.0, 0.0, 0.0, 0.0], (1.0, 0.0, 0.0), (0.0, 2.0, 0.0))
        b_gamma, B = model.b_gamma(q, qd), model.B(q)
        np.testing.assert_array_equal(B, fresh.B(q))
        np.testing.assert_array_equal(b_gamma, fresh.b_gamma(q, qd))
        B[:], b_gamma[:] = np.nan, np.nan
        assert np.isfinite(model.B(q)).all() and np.isfinite(model.b_gamma(q, qd)).all()


def test_rolling_disk_accelerations_equal_sympy_kanes_method(sympy_disk):
    """At random states: Euler-parameter coordinates with a holonomic height row and two nonholonomic
    rows (multipliers) against Kane's method with independent speeds in Euler angles, to 1e-10."""
    from mbdlib.rotations import quat_from_dcm

    rng = np.random.default_rng(15)
    for _ in range(5):
        q = rng.uniform(-1.2, 1.2, 3)
        u = rng.normal(0.0, 3.0, 3)
        ud = np.linalg.solve(np.asarray(sympy_disk["MM"](*q, *u), dtype=float),
                             np.asarray(sympy_disk["F"](*q, *u), dtype=float).ravel())
        fields = sympy_disk["fields"](*q, *u, *ud)
        omega, vel, alpha, acc, pos, dcm = (np.asarray(x, dtype=float) for x in fields)
        model = disk_model(pos.ravel(), quat_from_dcm(dcm), vel.ravel(), omega.ravel())
        q0, qd0 = model.q_guess(), model.qd_guess()
        assert np.abs(model.phi(q0)).max() < 1e-12 and np.abs(model.B(q0) @ qd0).max() < 1e-12
        qdd, _ = dae.accelerations(model.system(), 0.0, q0, qd0)
        p = q0[3:7]
        alpha_euler = _A(p) @ (2 * _L(p) @ qdd[3:7])           # ω = 2 A G ṗ and Ġ ṗ = 0
        np.testing.assert_allclose(alpha_euler, alpha.ravel(), atol=1e-10 * np.abs(alpha).max())
        np.testing.assert_allclose(qdd[:3], acc.ravel(), atol=1e-10 * np.abs(acc).max())


def test_rolling_disk_circles_steadily_where_kane_says_it_can(sympy_disk):
    """Lean θ and turning rate Ω fix the spin of steady turning (the forcing of Kane's equations vanishes);
    started there, the simulated disk keeps its lean, speed and turning rate, and its energy."""
    from scipy.optimize import brentq

    from mbdlib.rotations import quat_from_dcm

    lean, turn = 0.3, 1.5

    def forcing(spin):           # u = (0, spin + Ω sin θ, Ω cos θ): no lean rate
        u = (0.0, spin + turn * np.sin(lean), turn * np.cos(lean))
        return float(np.asarray(sympy_disk["F"](0.0, lean, 0.0, *u), dtype=float).ravel()[0])

    spin = brentq(forcing, -200.0, -1.0)
    u = (0.0, spin + turn * np.sin(lean), turn * np.cos(lean))
    ud = np.zeros(3)
    fields = sympy_disk["fields"](0.0, lean, 0.0, *u, *ud)
    omega, vel, _, _, pos, dcm = (np.asarray(x, dtype=float) for x in fields)
    np.testing.assert_allclose(np.asarray(sympy_disk["F"](0.0, lean, 0.0, *u), dtype=float).ravel(), 0.0,
                               atol=1e-9)
    model = disk_model(pos.ravel(), quat_from_dcm(dcm), vel.ravel(), omega.ravel())
    res = simulate(model.system(), 3.0, Projection(rtol=1e-10, atol=1e-10), t_eval=np.linspace(0.0, 3.0, 61))
    axis = np.array([_A(q[3:7]) @ [0.0, 1.0, 0.0] for q in res.q])
    np.testing.assert_allclose(np.arcsin(np.abs(axis[:, 2])), lean, atol=1e-7)      # the lean stays
    speed = np.linalg.norm(res.qd[:, :2], axis=1)
    np.testing.assert_allclose(speed, speed[0], rtol=1e-7)
    heading = np.unwrap(np.arctan2(res.qd[:, 1], res.qd[:, 0]))
    np.testing.assert_allclose(np.diff(heading) / np.diff(res.t), turn, rtol=1e-6)
    assert res.energy_error < 1e-8 and res.violation.max() < 1e-10
    assert np.abs(res.violation_velocity).max() < 1e-9              # rolling held: the contact at rest


def test_rolling_disk_linearized_equals_sympy_kanes_method_linearize():
    """The upright disk rolling straight (a steady motion, a nonholonomic system: 7 Euler-parameter
    coordinates, a height row and two rolling rows) linearized in its lean (ZXY middle angle) with the rates
    of lean, spin and heading as speeds, against sympy's KanesMethod.linearize of the disk in Euler angles
    with the angular velocity as generalized speeds (at the upright pose the two sets of speeds agree to
    first order): A to 1e-9, and the stability."""
    from mbdlib import SpatialModel, linearize

    disk = rolling_disk_kanes_method(R_DISK, M_DISK, G0)
    KM, (q1, q2, q3), (u1, u2, u3) = disk["KM"], disk["q"], disk["u"]
    for w in (12.0, 3.0):                                   # stable and unstable (slow) rolling
        op = {q1: 0.0, q2: 0.0, q3: 0.0, u1: 0.0, u2: w, u3: 0.0}
        A_km = np.asarray(KM.linearize(A_and_B=True, op_point=op)[0].subs(op), dtype=float)
        rows = [1, 3, 4, 5]                                 # (q2, u1, u2, u3) of (q1, q2, q3, u1, u2, u3)
        model = SpatialModel(gravity=(0.0, 0.0, -G0))
        model.add_body("disk", (0.0, 0.0, R_DISK), mass=M_DISK, velocity=(w * R_DISK, 0.0, 0.0),
                       angular_velocity=(0.0, w, 0.0),
                       inertia=[M_DISK * R_DISK**2 / 4, M_DISK * R_DISK**2 / 2, M_DISK * R_DISK**2 / 4])
        model.add_rolling_disk("disk", R_DISK, axis=(0, 1, 0))
        lean, spin, heading = (model.euler_angle("disk", "ZXY", k) for k in (1, 2, 0))
        state = model.state(fixed={lean: 0.0}, speeds={lean: 0.0, spin: w, heading: 0.0})
        lin = linearize(model.system(state), [lean], [lean, spin, heading], at=state)
        np.testing.assert_allclose(lin.A, A_km[np.ix_(rows, rows)], atol=1e-9 * np.abs(A_km).max())
        assert lin.is_equilibrium and lin.stable() == (w == 12.0)


def bricard():
    """The orthogonal Bricard linkage (six bars of length 1, consecutive axes at right angles, no offsets),
    assembled on the skew hexagon of a unit cube's edges; link 0 is fixed."""
    V = np.array([(1, 1, 0), (0, 1, 0), (0, 1, 1), (0, 0, 1), (1, 0, 1), (1, 0, 0)], dtype=float)
    axes = [(0, 0, 1), (0, 1, 0), (1, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)]
    m = SpatialModel(gravity=(0, 0, -9.81))
    centres = [(V[k] + V[(k + 1) % 6]) / 2 for k in range(6)]
    for k in range(6):
        along = np.abs(V[(k + 1) % 6] - V[k]) > 0.5               # a slender bar along its edge
        m.add_body(f"link{k}", centres[k], mass=1.0, inertia=np.where(along, 0.001, 1 / 12))
    m.fix("link0")
    for k in range(6):
        i = (k - 1) % 6
        m.add_revolute(f"link{i}", f"link{k}", V[k] - centres[i], V[k] - centres[k], axis_i=axes[k],
                       name=f"J{k}")
    return m


def test_bricard_linkage_moves_although_grubler_says_it_cannot():
    """Grübler: 6·5 − 6·5 = 0 DOF; the rank of Φ_q says 1 (one equation redundant everywhere).
    Projection refuses (J M⁻¹ Jᵀ is singular at every pose); the augmented Lagrangian moves it, the loop
    closed and the energy kept."""
    model = bricard()
    report = model.dof_report()
    assert report.grubler == 0 and report.dof == 1 and report.redundant and not report.singular
    system = model.system(model.state(speeds={"J1": 2.0}))
    with pytest.raises(SingularityError, match="rank 41"):
        simulate(system, 0.1, Projection())
    res = simulate(system, 0.5, AugmentedLagrangian(dt=2e-3), t_eval=np.linspace(0.0, 0.5, 6))
    assert np.abs(res.q[-1] - res.q[0]).max() > 0.1               # it moves
    assert res.violation.max() < 1e-9 and res.energy_error < 1e-4


def test_check_model_accepts_spatial_models():
    """The modelling checklist runs on a SpatialModel (through its system): the RSSR passes its
    DOF and redundancy checks; the Bricard linkage's redundant row is reported."""
    from mbdlib import check_model

    report = check_model(rssr(), expected_dof=1)
    assert report["dof"].status == "pass" and report["redundant"].status == "pass"
    assert report["mass_matrix"].status == "pass"
    report = check_model(bricard(), expected_dof=1)
    assert report["redundant"].status == "fail" and "revolute J1 axis f" in report["redundant"].detail


def test_spring_damper_in_space():
    """A body on a spring from a fixed base: centred, it oscillates at √(k/m) along the spring (closed
    form); attached off centre, translation and rotation exchange energy and the total is kept; with a
    damper the energy only decreases."""
    k, mass, stretch = 40.0, 2.0, 0.05

    def model(point, damping=0.0):
        m = SpatialModel(gravity=(0, 0, 0))
        m.add_body("base", mass=1.0, inertia=[0.1, 0.1, 0.1])
        m.fix("base")
        m.add_body("b", (0.0, 0.0, -1.0 - stretch), mass=mass, inertia=[0.02, 0.03, 0.04])
        m.add_spring_damper("base", "b", (0, 0, 0), point, stiffness=k, damping=damping, rest_length=1.0)
        return m

    t = np.linspace(0.0, 2.0, 41)
    tight, loose = Projection(rtol=1e-11, atol=1e-11), Projection(rtol=1e-10, atol=1e-10)
    res = simulate(model((0, 0, 0)).system(), 2.0, tight, t_eval=t)
    np.testing.assert_allclose(res.q[:, 9], -1.0 - stretch * np.cos(np.sqrt(k / mass) * t), atol=1e-8)
    off = simulate(model((0.05, 0.02, 0.0)).system(), 2.0, tight, t_eval=t)
    assert off.energy_error < 1e-9 and np.ptp(off.q[:, 10]) > 1e-4          # it also turns
    damped = simulate(model((0.05, 0.02, 0.0), damping=2.0).system(), 2.0, loose, t_eval=t)
    assert np.all(np.diff(damped.energy) <= 1e-12) and damped.energy[-1] < 0.5 * damped.energy[0]
    with pytest.raises(ModelError, match="stiffness must be a number"):
        model((0, 0, 0)).add_spring_damper("base", "b", stiffness=-1.0)


def test_rolling_disk_and_tip_bad_input():
    from mbdlib.catalogue import n_fourbar_tip

    m = SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("disk", (0, 0, 0.3), inertia=[1.0, 2.0, 1.0])
    with pytest.raises(ModelError, match="radius must be positive"):
        m.add_rolling_disk("disk", -0.3)
    with pytest.raises(ModelError, match="unknown body 'wheel'"):
        m.add_rolling_disk("wheel", 0.3)
    with pytest.raises(ModelError, match="coordinates must be one of"):
        n_fourbar_tip(np.zeros(9), "polar")


# ------------------------------------------------------------------ drivers
def _driven_models():
    """Two free bodies at random poses with a rotational driver θ(t) = 0.3 sin 2t + 0.7 t and a distance
    driver ℓ(t) = ℓ0 + 0.2 sin 3t (the equations are evaluated, not assembled)."""
    rng = np.random.default_rng(8)
    out = []
    for kind in ("rotational", "distance"):
        m = SpatialModel(gravity=(0, 0, 0))
        for name in ("a", "b"):
            p = rng.normal(size=4)
            m.add_body(name, rng.normal(size=3), p / np.linalg.norm(p), inertia=[1.0, 2.0, 2.5])
        if kind == "rotational":
            m.add_rotational_driver("a", "b", rng.normal(size=3), f=lambda t: 0.3 * np.sin(2 * t) + 0.7 * t,
                                    df=lambda t: 0.6 * np.cos(2 * t) + 0.7,
                                    ddf=lambda t: -1.2 * np.sin(2 * t))
        else:
            m.add_distance_driver("a", "b", rng.normal(size=3), rng.normal(size=3),
                                  f=lambda t: 2.0 + 0.2 * np.sin(3 * t), df=lambda t: 0.6 * np.cos(3 * t),
                                  ddf=lambda t: -1.8 * np.sin(3 * t))
        out.append((kind, m))
    return out


@pytest.mark.parametrize("kind, model", _driven_models(), ids=lambda x: x if isinstance(x, str) else "")
def test_driver_phi_t_and_gamma_against_finite_differences(kind, model):
    """Along q(s) = q + s q̇ + s² q̈/2 at time t + s: dΦ/ds = Φ_q q̇ + Φ_t and d²Φ/ds² = Φ_q q̈ − γ."""
    rng = np.random.default_rng(3)
    for t in (0.0, 0.4, 1.3):
        q = model.q_guess() + 0.1 * rng.normal(size=model.n)
        qd, qdd = rng.normal(size=(2, model.n))

        def along(s, q=q, qd=qd, qdd=qdd, t=t):
            return model.phi(q + s * qd + 0.5 * s * s * qdd, t + s)

        h = 1e-4
        first = (along(h) - along(-h)) / (2 * h)
        second = (along(h) - 2 * along(0.0) + along(-h)) / h**2
        np.testing.assert_allclose(model.phi_q(q, t) @ qd + model.phi_t(q, t), first, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(model.phi_q(q, t) @ qdd - model.gamma(q, qd, t), second, rtol=1e-5,
                                   atol=2e-5)


def test_a_driven_crank_turns_as_prescribed():
    """A bar on a revolute joint to a fixed base, driven at θ(t) = 0.5 t + 0.4 sin t under gravity: the
    bar's centre follows θ(t) and the constraints hold."""
    m = SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("base", inertia=[1.0, 1.0, 1.0])
    m.fix("base")
    m.add_body("bar", position=(0.5, 0.0, 0.0), mass=2.0, inertia=[0.01, 0.2, 0.2],
               angular_velocity=(0.0, 0.9, 0.0), velocity=(0.0, 0.0, -0.45))     # θ̇(0) = 0.9 about +y
    m.add_revolute("base", "bar", (0, 0, 0), (-0.5, 0, 0), axis_i=(0, 1, 0))
    m.add_rotational_driver("base", "bar", axis_i=(0, 1, 0), f=lambda t: 0.5 * t + 0.4 * np.sin(t),
                            df=lambda t: 0.5 + 0.4 * np.cos(t), ddf=lambda t: -0.4 * np.sin(t))
    assert m.dof_report().dof == 0
    t = np.linspace(0, 2.0, 21)
    res = simulate(m.system(), 2.0, Projection(rtol=1e-10, atol=1e-10), t_eval=t)
    theta = 0.5 * t + 0.4 * np.sin(t)
    centre = res.q[:, 7:10]                     # the bar's centre: 0.5 m from the pin, turning about +y
    np.testing.assert_allclose(centre[:, 0], 0.5 * np.cos(theta), atol=1e-7)
    np.testing.assert_allclose(centre[:, 2], -0.5 * np.sin(theta), atol=1e-7)
    assert res.violation.max() < 1e-8


def test_driver_bad_input():
    m = SpatialModel(gravity=(0, 0, 0))
    m.add_body("a")
    m.add_body("b", position=(1, 0, 0))
    with pytest.raises(ModelError, match="give either f .* or speed, not both"):
        m.add_rotational_driver("a", "b", f=lambda t: t, speed=1.0)
    with pytest.raises(ModelError, match="give f, df, ddf"):
        m.add_distance_driver("a", "b")
    with pytest.raises(ModelError, match="two different bodies"):
        m.add_rotational_driver("a", "a", speed=1.0)
    with pytest.raises(ModelError, match="df must be a callable"):
        m.add_rotational_driver("a", "b", f=lambda t: t)
    m.add_distance_driver("a", "b", speed=0.1, name="ram")
    with pytest.raises(ModelError, match="'ram' already exists"):
        m.add_rotational_driver("a", "b", speed=1.0, name="ram")


# ------------------------------------------------------------------ rolling on any plane, offset centre
def disk_state(model, lean=0.35, rates=(0.7, -0.4, -6.0)):
    """A consistent state of a disk model (axis = body y) chosen by its ZXY angles' rates: heading, lean,
    spin (the angles as the bodies were given)."""
    angles = [model.euler_angle("disk", "ZXY", k) for k in range(3)]
    return model.state(speeds=dict(zip(angles, rates, strict=True)))


def lean_pose(lean, radius=R_DISK, center_offset=(0.0, 0.0, 0.0)):
    """A disk (axis body y) leaning by ``lean`` about x, touching z = 0 at the origin; the body's centre
    of mass ``center_offset`` (body frame) from the wheel centre."""
    A = np.array([[1, 0, 0], [0, np.cos(lean), -np.sin(lean)], [0, np.sin(lean), np.cos(lean)]])
    from mbdlib.rotations import quat_from_dcm

    centre = A @ [0.0, 0.0, radius]
    return centre + A @ np.asarray(center_offset, dtype=float), quat_from_dcm(A), A


def rates_of(model, q, qd):
    """(r̈, α) of the first body from the KKT accelerations: α = 2 G p̈ (global; Ġ ṗ = 0)."""
    qdd, _ = dae.accelerations(model._bind(model.state()), 0.0, q, qd)
    from mbdlib.spatial_joints import _euler_matrices

    return qdd[:3], 2 * _euler_matrices(q[None, 3:7], "global")[0] @ qdd[3:7]


def test_rolling_disk_on_a_tilted_plane_is_the_rotated_motion_on_z0():
    """The same disk, state and gravity turned rigidly by R and moved by d (plane through d, normal R ẑ):
    its accelerations are R times those on z = 0 (linear and angular), and the multipliers agree."""
    from mbdlib.rotations import dcm_from_axis_angle, quat_from_dcm, quat_multiply

    g = np.array([0.0, 0.0, -G0])
    pos, p, _ = lean_pose(0.35)
    flat = SpatialModel(gravity=g)
    inertia = [M_DISK * R_DISK**2 / 4, M_DISK * R_DISK**2 / 2, M_DISK * R_DISK**2 / 4]
    flat.add_body("disk", pos, p, mass=M_DISK, inertia=inertia)
    flat.add_rolling_disk("disk", R_DISK, axis=(0, 1, 0))
    s = disk_state(flat)
    q, qd = s.q0, s.qd0
    r_dd, alpha = rates_of(flat, q, qd)
    for axis, angle, d in [((1, 2, -0.5), 0.8, (0.3, -1.0, 2.0)), ((0, 1, 0), np.pi / 2, (0, 0, 0)),
                           ((1, 0, 0), np.pi, (0, 0, 1.5))]:
        R = dcm_from_axis_angle(axis, angle)
        omega = flat.angular_velocities(q, qd)[0]
        tilted = SpatialModel(gravity=R @ g)
        tilted.add_body("disk", R @ q[:3] + d, quat_multiply(quat_from_dcm(R), q[3:7]), mass=M_DISK,
                        inertia=inertia, velocity=R @ qd[:3], angular_velocity=R @ omega)
        tilted.add_rolling_disk("disk", R_DISK, axis=(0, 1, 0), plane_point=d, plane_normal=R @ [0, 0, 1.0])
        q2, qd2 = tilted.q_guess(), tilted.qd_guess()
        assert np.abs(tilted.phi(q2)).max() < 1e-12 and np.abs(tilted.B(q2) @ qd2).max() < 1e-12
        r_dd2, alpha2 = rates_of(tilted, q2, qd2)
        np.testing.assert_allclose(r_dd2, R @ r_dd, atol=1e-10 * np.abs(r_dd).max())
        np.testing.assert_allclose(alpha2, R @ alpha, atol=1e-10 * np.abs(alpha).max())


def test_offset_wheel_centre_equals_the_body_built_from_two_welded_parts():
    """A wheel whose centre is ``center`` from the body's centre of mass (one body, composite mass and
    inertia by the parallel-axis theorem) against the same physical body as two parts welded together (a
    disk with its centre of mass at the wheel centre, rolling as before, and a lump on it; the weld a
    revolute joint plus a rotational driver held at 0): the same accelerations of the composite centre of
    mass and the same angular acceleration, on a tilted plane."""
    from mbdlib.bodies import parallel_axis
    from mbdlib.rotations import dcm_from_axis_angle, quat_from_dcm, quat_multiply

    m_w, J_w = 2.0, np.diag([0.045, 0.09, 0.045])
    m_x, J_x = 0.7, np.diag([0.002, 0.003, 0.004])
    e = np.array([0.05, -0.02, 0.12])                       # the lump's centre of mass, wheel frame
    m = m_w + m_x
    G = m_x * e / m                                         # composite centre of mass, wheel frame
    J = parallel_axis(J_w, m_w, -G) + parallel_axis(J_x, m_x, e - G)
    R = dcm_from_axis_angle((0.3, -1.0, 0.2), 0.5)          # the plane z = 0 turned by R, moved by d
    d, g = np.array([0.1, 0.2, -0.3]), R @ [0.0, 0.0, -G0]
    plane = dict(plane_point=d, plane_normal=R @ [0.0, 0.0, 1.0])
    pos, p0, A0 = lean_pose(0.3, center_offset=G)           # body frame: its CoM is G from the wheel centre
    one = SpatialModel(gravity=g)
    one.add_body("disk", R @ pos + d, quat_multiply(quat_from_dcm(R), p0), mass=m, inertia=J)
    one.add_rolling_disk("disk", R_DISK, axis=(0, 1, 0), center=-G, **plane)
    s = disk_state(one, rates=(0.9, 0.3, -5.0))
    q, qd = s.q0, s.qd0
    r_dd, alpha = rates_of(one, q, qd)
    A, omega, v = _A(q[3:7]), one.angular_velocities(q, qd)[0], qd[:3]
    two = SpatialModel(gravity=g)
    wc, xc = q[:3] - A @ G, q[:3] + A @ (e - G)
    two.add_body("disk", wc, q[3:7], mass=m_w, inertia=J_w, velocity=v + np.cross(omega, wc - q[:3]),
                 angular_velocity=omega)
    two.add_body("lump", xc, q[3:7], mass=m_x, inertia=J_x, velocity=v + np.cross(omega, xc - q[:3]),
                 angular_velocity=omega)
    two.add_revolute("disk", "lump", e, (0, 0, 0), axis_i=(0, 0, 1))
    two.add_rotational_driver("disk", "lump", axis_i=(0, 0, 1), f=0.0)
    two.add_rolling_disk("disk", R_DISK, axis=(0, 1, 0), **plane)
    q2, qd2 = two.q_guess(), two.qd_guess()
    assert np.abs(two.phi(q2)).max() < 1e-12 and np.abs(two.B(q2) @ qd2).max() < 1e-12
    qdd2, _ = dae.accelerations(two._bind(two.state()), 0.0, q2, qd2)
    from mbdlib.spatial_joints import _euler_matrices

    np.testing.assert_allclose((m_w * qdd2[:3] + m_x * qdd2[7:10]) / m, r_dd, atol=1e-10 * np.abs(r_dd).max())
    alpha2 = 2 * _euler_matrices(q2[None, 3:7], "global")[0] @ qdd2[3:7]
    np.testing.assert_allclose(alpha2, alpha, atol=1e-10 * np.abs(alpha).max())
    assert A0 is not None


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-1.5, 1.5), min_size=7, max_size=7), st.lists(st.floats(-3.0, 3.0), min_size=7,
                                                                         max_size=7))
def test_rolling_rows_b_gamma_equals_the_exact_stencil(q, qd):
    """b_γ = −(B q̇)_q q̇: B q̇ is a polynomial of degree ≤ 5 in q (also off the unit sphere), so the
    nine-point stencil of d/ds B(q + s q̇) q̇ is exact; the closed form agrees to round-off, on a tilted
    plane with an offset centre.  γ of the height row likewise (five-point stencil)."""
    from oracles import first_derivative_along, second_derivative_along

    model = SpatialModel(gravity=(0, 0, -G0))
    model.add_body("disk", (0.1, 0.0, 1.0), mass=M_DISK, inertia=[0.05, 0.09, 0.05])
    model.add_rolling_disk("disk", R_DISK, axis=(0.2, 1, 0.1), center=(0.05, -0.1, 0.2),
                           plane_point=(0.3, 0.1, -0.2), plane_normal=(0.2, -0.3, 1.0))
    q, qd = np.array(q), np.array(qd)
    expected = -first_derivative_along(lambda x: model.B(x) @ qd, q, qd)
    scale = max(1.0, np.abs(expected).max())
    np.testing.assert_allclose(model.b_gamma(q, qd), expected, rtol=0, atol=1e-10 * scale)
    expected = -second_derivative_along(model.phi, q, qd)
    scale = max(1.0, np.abs(expected).max())
    np.testing.assert_allclose(model.gamma(q, qd), expected, rtol=0, atol=1e-10 * scale)


def test_rolling_disk_bad_input_names_the_body():
    m = SpatialModel(gravity=(0, 0, -9.81))
    m.add_body("disk", (0, 0, 0.3), inertia=[1.0, 2.0, 1.0])
    with pytest.raises(ModelError, match="rolling disk on body 'disk': plane_normal is the zero vector"):
        m.add_rolling_disk("disk", 0.3, axis=(0, 1, 0), plane_normal=(0, 0, 0))
    with pytest.raises(ModelError, match="'disk': the disk lies flat"):
        m.add_rolling_disk("disk", 0.3, axis=(0, 0, 1))
    with pytest.raises(ModelError, match="'disk': the wheel centre starts 0.7 m on the wrong side"):
        m.add_rolling_disk("disk", 0.3, axis=(0, 1, 0), plane_point=(0, 0, 1.0))
    with pytest.raises(ModelError, match="'disk': the wheel centre starts .* wrong side"):
        m.add_rolling_disk("disk", 0.3, axis=(0, 1, 0), plane_normal=(0, 0, -1))
    with pytest.raises(ModelError, match="'disk': axis is the zero vector"):
        m.add_rolling_disk("disk", 0.3, axis=(0, 0, 0))
    with pytest.raises(ShapeError, match="center must have 3 components"):
        m.add_rolling_disk("disk", 0.3, axis=(0, 1, 0), center=(0, 0))
    assert not m.rolling and not m.joints                    # nothing half-added


# ------------------------------------------------------------------ joint torques and forces
def double_pendulum(joint_torque=None, body_torques=None):
    """Two links under gravity: link 1 on a ball joint to a fixed base, link 2 on a hinge (axis tilted, in
    link 1's frame) to link 1; the hinge loaded by a joint torque or by the pair of body torques."""
    m = SpatialModel(gravity=(0, 0, -9.81))
    base = m.add_body("base", inertia=[1.0, 1.0, 1.0])
    m.fix(base)
    l1 = m.add_body("link1", (0.0, 0.0, -0.4), mass=1.5, inertia=[0.03, 0.03, 0.002])
    l2 = m.add_body("link2", (0.0, 0.0, -1.0), mass=1.0, inertia=[0.02, 0.02, 0.001])
    m.add_spherical(base, l1, (0, 0, 0), (0, 0, 0.4))
    u = np.array([1.0, 0.4, 0.2]) / np.linalg.norm([1.0, 0.4, 0.2])
    hinge = m.add_revolute(l1, l2, (0, 0, -0.4), (0, 0, 0.2), axis_i=u, name="hinge")
    if joint_torque is not None:
        m.add_joint_torque(hinge, joint_torque, name="motor")
    if body_torques is not None:                       # +τ A_1 u on link 2, −τ A_1 u on link 1
        def on(sign):
            return lambda t, q, qd: sign * body_torques(t, q, qd) * (_A(q[10:14]) @ u)
        m.add_torque(l2, on(1.0))
        m.add_torque(l1, on(-1.0))
    return m, hinge


def tau(t, q, qd):
    return 0.8 * np.cos(2 * t) + 0.3 * qd[8]


def test_joint_torque_moves_the_links_as_the_pair_of_body_torques():
    """τ ∂θ/∂q and the pair ±τ A_1 u' of global torques give the same accelerations at random consistent
    states and the same motion; with a constant τ the energy grows by τ (θ − θ0) (power τ θ̇)."""
    joint_model, hinge = double_pendulum(joint_torque=tau)
    pair_model, _ = double_pendulum(body_torques=tau)
    rng = np.random.default_rng(3)
    for _ in range(3):
        s = joint_model.state(fixed={hinge: rng.uniform(-1, 1)},
                              speeds={hinge: rng.normal(), joint_model.euler_angle("link1", "zyx", 0): 0.5})
        t = rng.uniform(0, 2)
        a, _ = dae.accelerations(joint_model._bind(s), t, s.q0, s.qd0)
        b, _ = dae.accelerations(pair_model._bind(s), t, s.q0, s.qd0)
        np.testing.assert_allclose(a, b, atol=1e-10 * np.abs(a).max())
        assert joint_model.Q(t, s.q0, s.qd0) @ s.qd0 - pair_model.Q(t, s.q0, s.qd0) @ s.qd0 == \
            pytest.approx(0.0, abs=1e-12)
    s = joint_model.state(speeds={hinge: 1.0})
    t_eval = np.linspace(0.0, 1.0, 11)
    run = [simulate(mm.system(s), 1.0, Projection(rtol=1e-10, atol=1e-10), t_eval=t_eval)
           for mm in (joint_model, pair_model)]
    np.testing.assert_allclose(run[0].q, run[1].q, atol=1e-8)
    constant, hinge = double_pendulum(joint_torque=1.5)
    start = constant.state(speeds={hinge: 1.0})
    res = simulate(constant.system(start), 1.0, Projection(rtol=1e-11, atol=1e-11), t_eval=t_eval)
    theta = np.unwrap([hinge.angle(q) for q in res.q])
    np.testing.assert_allclose(res.energy - res.energy[0], 1.5 * (theta - theta[0]), atol=1e-8)
    q, qd = res.q[5], res.qd[5]
    assert (constant.Q(0.0, q, qd) - double_pendulum()[0].Q(0.0, q, qd)) @ qd == \
        pytest.approx(1.5 * hinge.rate(q, qd), rel=1e-12)


def test_joint_loads_are_inputs_of_linearize():
    """A bar hanging on a hinge: B = (0, 1/I_pivot) for the hinge torque; a block on an inclined prismatic
    joint: B = (0, 1/m) for the joint force (closed forms)."""
    from mbdlib import linearize

    m = SpatialModel(gravity=(0, 0, -9.81))
    base = m.add_body("base", inertia=[1, 1, 1])
    m.fix(base)
    bar = m.add_body("bar", (0.0, 0.0, -0.5), mass=2.0, inertia=[0.05, 0.05, 0.001])
    hinge = m.add_revolute(base, bar, (0, 0, 0), (0, 0, 0.5), axis_i=(0, 1, 0))
    m.add_joint_torque(hinge, lambda t, q, qd: 0.0, name="motor")
    lin = linearize(m.system(), [hinge.angle], inputs=["motor"])
    I_pivot = 0.05 + 2.0 * 0.25
    np.testing.assert_allclose(lin.B[:, 0], [0.0, 1 / I_pivot], rtol=1e-12)
    np.testing.assert_allclose(sorted(lin.eigenvalues.imag), [-np.sqrt(2 * 9.81 * 0.5 / I_pivot),
                                                             np.sqrt(2 * 9.81 * 0.5 / I_pivot)], rtol=1e-8)
    m = SpatialModel(gravity=(0, 0, -9.81))
    base = m.add_body("base", inertia=[1, 1, 1])
    m.fix(base)
    block = m.add_body("block", (0.0, 0.0, 0.0), mass=3.0, inertia=[0.1, 0.1, 0.1])
    rail = m.add_prismatic(base, block, axis_i=(1.0, 0.0, 1.0))
    m.add_joint_force(rail, 0.0, name="push")
    lin = linearize(m.system(), [], [rail.slide], inputs=["push"])
    np.testing.assert_allclose(lin.B[:, 0], [1 / 3.0], rtol=1e-12)
    np.testing.assert_allclose(lin.rate0, [-9.81 / np.sqrt(2)], rtol=1e-12)   # sliding down the incline


def test_joint_load_bad_input_names_the_joint():
    m, hinge = double_pendulum()
    with pytest.raises(ModelError, match="add_joint_torque on joint 'hinge': torque must be a finite number, "
                                         "got inf"):
        m.add_joint_torque(hinge, np.inf)
    with pytest.raises(ModelError, match="joint 'hinge' \\(revolute\\) has no slide coordinate"):
        m.add_joint_force(hinge, 1.0)
    with pytest.raises(ModelError, match="'elbow' is not a joint of this model; the joints are: fix1, "
                                         "spherical2, hinge"):
        m.add_joint_torque("elbow", 1.0)
    m.add_joint_torque("hinge", lambda t, q, qd: np.nan, name="broken")
    with pytest.raises(ModelError, match="'broken' on joint 'hinge': the torque must be a finite number, "
                                         "got nan"):
        m.Q(0.0, m.q_guess(), np.zeros(m.n))
    with pytest.raises(ModelError, match="a load named 'broken' already exists"):
        m.add_joint_torque("hinge", 1.0, name="broken")
    other, elbow = double_pendulum()
    with pytest.raises(ModelError, match="not a joint of this model"):
        m.add_joint_torque(elbow, 1.0)
