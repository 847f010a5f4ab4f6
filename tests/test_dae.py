"""Tests for mbdlib.dae: KKT solve, drift and its cures, augmented Lagrangian through singular positions.

The test systems are written here by hand as ConstrainedSystems (planar bodies in x, y, φ with
revolute joints; a Cartesian point pendulum; a knife edge), so these tests do not depend on
mbdlib.planar.  Reference values come from closed forms, energy, or an independent one-degree-of-freedom
ODE integrated by scipy.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from mbdlib import dae
from mbdlib.dae import cartesian_pendulum, simulate
from mbdlib.errors import MbdError, ModelError, ShapeError, SingularityError
from mbdlib.schemes import ODE, AugmentedLagrangian, Baumgarte, Projection
from mbdlib.system import ConstrainedSystem

G = 9.81


# ----------------------------------------------------------------- systems written by hand
def hand_system(eq) -> ConstrainedSystem:
    """The ConstrainedSystem of an object that writes the equations as methods."""
    return ConstrainedSystem(n=eq.n, M=eq.M, Q=eq.Q, phi=eq.phi, phi_q=eq.phi_q, phi_t=eq.phi_t,
                             gamma=eq.gamma, B=eq.B, b_gamma=eq.b_gamma, energy=eq.energy, q0=eq.q0,
                             qd0=eq.qd0, labels=eq.labels, name=type(eq).__name__)


def rot(phi):
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s], [s, c]])


def drot(phi):                                          # dA/dφ
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[-s, -c], [c, -s]])


class RevoluteSystem:
    """Planar bodies (x, y, φ each) joined by revolutes; gravity −g along y.

    ``joints``: (i, s_i, j, s_j) — body i's point s_i (body frame) coincides with body j's point s_j;
    j = None means ground and s_j is then a global point.  Φ = r_i + A_i s_i − r_j − A_j s_j.
    """

    def __init__(self, masses, inertias, joints, q0, qd0, g=G):
        self.mass, self.inertia, self.joints, self.g = list(masses), list(inertias), joints, g
        self.n = 3 * len(self.mass)
        self.q0, self.qd0 = np.asarray(q0, float), np.asarray(qd0, float)
        self.labels = [f"rev{k} {ax}" for k in range(len(joints)) for ax in "xy"]

    def M(self, q):
        return np.diag(np.concatenate([[m, m, J] for m, J in zip(self.mass, self.inertia, strict=True)]))

    def Q(self, t, q, qd):
        return np.concatenate([[0.0, -m * self.g, 0.0] for m in self.mass])

    def _point(self, q, i, s):
        return q[3 * i:3 * i + 2] + rot(q[3 * i + 2]) @ s

    def phi(self, q, t):
        out = []
        for i, si, j, sj in self.joints:
            pj = np.asarray(sj, float) if j is None else self._point(q, j, sj)
            out.extend(self._point(q, i, si) - pj)
        return np.array(out)

    def phi_q(self, q, t):
        D = np.zeros((2 * len(self.joints), self.n))
        for k, (i, si, j, sj) in enumerate(self.joints):
            for b, s, sign in ((i, si, 1.0), (j, sj, -1.0)):
                if b is not None:
                    D[2 * k:2 * k + 2, 3 * b:3 * b + 2] = sign * np.eye(2)
                    D[2 * k:2 * k + 2, 3 * b + 2] = sign * drot(q[3 * b + 2]) @ s
        return D

    def phi_t(self, q, t):
        return np.zeros(2 * len(self.joints))

    def gamma(self, q, qd, t):                          # γ = A_i s_i φ̇_i² − A_j s_j φ̇_j²
        out = []
        for i, si, j, sj in self.joints:
            g = rot(q[3 * i + 2]) @ si * qd[3 * i + 2] ** 2
            if j is not None:
                g = g - rot(q[3 * j + 2]) @ sj * qd[3 * j + 2] ** 2
            out.extend(g)
        return np.array(out)

    def B(self, q, t):
        return np.zeros((0, self.n))

    def b_gamma(self, q, qd, t):
        return np.zeros(0)

    def energy(self, q, qd):
        return 0.5 * qd @ self.M(q) @ qd + sum(m * self.g * q[3 * i + 1] for i, m in enumerate(self.mass))


def rod_pendulum(theta0=1.0, omega0=0.0, m=1.0, L=1.0):
    """A uniform rod hinged at the origin at its end; θ from the downward vertical, φ = θ − π/2."""
    phi = theta0 - np.pi / 2
    q0 = [0.5 * L * np.sin(theta0), -0.5 * L * np.cos(theta0), phi]
    qd0 = [0.5 * L * omega0 * np.cos(theta0), 0.5 * L * omega0 * np.sin(theta0), omega0]
    return hand_system(RevoluteSystem([m], [m * L**2 / 12], [(0, [-L / 2, 0.0], None, [0.0, 0.0])], q0, qd0))


def parallelograms(n_cells=1, theta0=0.3, omega0=0.0, L=1.0, d=1.0, m_crank=1.0, m_coupler=2.0,
                   middle_bar=False):
    """Cranks (length L) hinged to ground at x = 0, d, 2d, ...; one coupler (length d) per cell joins the
    tips of neighbouring cranks.  Crank angle θ from the +x axis.  With ``middle_bar`` (one cell only) a
    third crank at x = d/2 joins the coupler's midpoint: a redundant bar (Grübler 0, mobility 1).

    Returns the system and the crank/coupler counts.
    """
    c, s = np.cos(theta0), np.sin(theta0)
    xs = [0.5 * d, 0.0, d] if middle_bar else [k * d for k in range(n_cells + 1)]
    masses, inertias, q0, qd0, joints = [], [], [], [], []
    for x in xs:                                        # cranks
        masses.append(m_crank)
        inertias.append(m_crank * L**2 / 12)
        q0 += [x + 0.5 * L * c, 0.5 * L * s, theta0]
        qd0 += [-0.5 * L * s * omega0, 0.5 * L * c * omega0, omega0]
        joints.append((len(masses) - 1, [-L / 2, 0.0], None, [x, 0.0]))
    n_cr = len(xs)
    for k in range(n_cells):                            # couplers, translating
        masses.append(m_coupler)
        inertias.append(m_coupler * d**2 / 12)
        b = len(masses) - 1
        q0 += [(k + 0.5) * d + L * c, L * s, 0.0]
        qd0 += [-L * s * omega0, L * c * omega0, 0.0]
        if middle_bar:
            joints += [(1, [L / 2, 0.0], b, [-d / 2, 0.0]), (2, [L / 2, 0.0], b, [d / 2, 0.0]),
                       (0, [L / 2, 0.0], b, [0.0, 0.0])]
        else:
            joints += [(k, [L / 2, 0.0], b, [-d / 2, 0.0]), (k + 1, [L / 2, 0.0], b, [d / 2, 0.0])]
    return hand_system(RevoluteSystem(masses, inertias, joints, q0, qd0)), n_cr, n_cells


def parallelogram_theta(n_cr, n_k, theta0, omega0, t_eval, L=1.0, m_crank=1.0, m_coupler=2.0):
    """Exact one-DOF motion: every crank turns by θ and every coupler translates on a circle of radius L.

    T = ½ J θ̇²,  J = n_cr (m_c L²/4 + m_c L²/12) + n_k m_k L²;  V = g L sin θ (n_cr m_c / 2 + n_k m_k);
    Lagrange: J θ̈ = −g L (n_cr m_c / 2 + n_k m_k) cos θ.
    """
    J = n_cr * m_crank * L**2 / 3 + n_k * m_coupler * L**2
    k = G * L * (n_cr * m_crank / 2 + n_k * m_coupler)
    sol = solve_ivp(lambda t, y: [y[1], -k * np.cos(y[0]) / J], (0, t_eval[-1]), [theta0, omega0],
                    t_eval=t_eval, rtol=1e-12, atol=1e-12, method="DOP853")
    return sol.y[0]


class KnifeEdge:
    """A free planar body whose point at the centre may not slide sideways: B = [−sin φ, cos φ, 0]."""

    n = 3
    labels = ["knife edge"]

    def __init__(self, v=1.0, w=0.5, m=2.0, J=0.3):
        self.m, self.J = m, J
        self.q0, self.qd0 = np.zeros(3), np.array([v, 0.0, w])

    def M(self, q):
        return np.diag([self.m, self.m, self.J])

    def Q(self, t, q, qd):
        return np.zeros(3)

    def phi(self, q, t):
        return np.zeros(0)

    def phi_q(self, q, t):
        return np.zeros((0, 3))

    def phi_t(self, q, t):
        return np.zeros(0)

    def gamma(self, q, qd, t):
        return np.zeros(0)

    def B(self, q, t):
        return np.array([[-np.sin(q[2]), np.cos(q[2]), 0.0]])

    def b_gamma(self, q, qd, t):                        # −Ḃ q̇ = (ẋ cos φ + ẏ sin φ) φ̇
        return np.array([(qd[0] * np.cos(q[2]) + qd[1] * np.sin(q[2])) * qd[2]])

    def energy(self, q, qd):
        return 0.5 * qd @ self.M(q) @ qd


def double_rod_pendulum(theta=(0.7, -0.4), omega=(0.3, 1.1), L=1.0, m=1.0):
    """Two uniform rods, the second hinged at the tip of the first (for random-state checks)."""
    q0, qd0, tip, tip_v = [], [], np.zeros(2), np.zeros(2)
    for th, w in zip(theta, omega, strict=True):
        e, de = np.array([np.sin(th), -np.cos(th)]), w * np.array([np.cos(th), np.sin(th)])
        q0 += [*(tip + 0.5 * L * e), th - np.pi / 2]
        qd0 += [*(tip_v + 0.5 * L * de), w]
        tip, tip_v = tip + L * e, tip_v + L * de
    joints = [(0, [-L / 2, 0.0], None, [0.0, 0.0]), (1, [-L / 2, 0.0], 0, [L / 2, 0.0])]
    return hand_system(RevoluteSystem([m, m], [m * L**2 / 12] * 2, joints, q0, qd0))


# ----------------------------------------------------------------- KKT
def test_kkt_matrix_blocks_and_symmetry():
    s = double_rod_pendulum()
    K = dae.kkt_matrix(s, s.q0, 0.0)
    n, m = s.n, 4
    assert K.shape == (n + m, n + m)
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_array_equal(K[:n, :n], s.M(s.q0))
    np.testing.assert_array_equal(K[n:, :n], s.phi_q(s.q0, 0.0))
    np.testing.assert_array_equal(K[n:, n:], 0.0)


@pytest.mark.parametrize("seed", range(5))
def test_accelerations_solve_the_kkt_system(seed):
    """Range-space solve = a direct solve of the full KKT matrix; Φ_q q̈ = γ; Φ_q against differences."""
    rng = np.random.default_rng(seed)
    s = double_rod_pendulum(theta=rng.uniform(-2, 2, 2), omega=rng.uniform(-3, 3, 2))
    q, qd = s.q0, s.qd0
    qdd, lam = dae.accelerations(s, 0.0, q, qd)
    K = np.block([[s.M(q), s.phi_q(q, 0).T], [s.phi_q(q, 0), np.zeros((4, 4))]])
    ref = np.linalg.solve(K, np.concatenate([s.Q(0, q, qd), s.gamma(q, qd, 0)]))
    np.testing.assert_allclose(np.concatenate([qdd, lam]), ref, atol=1e-10)
    # the test system itself: Φ_q by central differences, γ = −(Φ_q q̇)_q q̇ by differences
    eps = 1e-6
    D = np.column_stack([(s.phi(q + eps * e, 0) - s.phi(q - eps * e, 0)) / (2 * eps) for e in np.eye(6)])
    np.testing.assert_allclose(s.phi_q(q, 0), D, atol=1e-8)
    dPq = (s.phi_q(q + eps * qd, 0) - s.phi_q(q - eps * qd, 0)) / (2 * eps)
    np.testing.assert_allclose(s.gamma(q, qd, 0), -dPq @ qd, atol=1e-6)


def test_rod_pendulum_acceleration_matches_closed_form():
    """Uniform rod hinged at an end: θ̈ = −(3g / 2L) sin θ."""
    for theta, omega in [(0.4, 0.0), (1.2, 2.0), (-2.5, -1.0)]:
        s = rod_pendulum(theta, omega)
        qdd, _ = dae.accelerations(s, 0.0, s.q0, s.qd0)
        assert qdd[2] == pytest.approx(-1.5 * G * np.sin(theta), rel=1e-12)


def test_static_pendulum_multiplier_is_the_weight():
    """Free body of a hanging rod at rest: the hinge pushes up with m g; the reaction is −Φ_qᵀλ."""
    m = 3.0
    s = rod_pendulum(0.0, 0.0, m=m)
    qdd, lam = dae.accelerations(s, 0.0, s.q0, s.qd0)
    np.testing.assert_allclose(qdd, 0.0, atol=1e-12)
    reaction = -(s.phi_q(s.q0, 0).T @ lam)
    np.testing.assert_allclose(reaction[:2], [0.0, m * G], atol=1e-12)


def test_swinging_pendulum_multiplier_matches_tension():
    """Point pendulum: 2 L λ = T = m g cos θ + m L θ̇², with θ̇² from energy: L θ̇² = 2 g (cos θ − cos θ0)."""
    m, L, th0 = 1.5, 0.8, 1.2
    p = cartesian_pendulum(length=L, mass=m, angle=th0)
    res = simulate(p, 3.0, Projection(), t_eval=np.linspace(0, 3, 61))
    cos_th = -res.q[:, 1] / L
    tension = m * G * cos_th + m * 2 * G * (cos_th - np.cos(th0))
    np.testing.assert_allclose(2 * L * res.lambdas[:, 0], tension, rtol=1e-7, atol=1e-7)


# ----------------------------------------------------------------- drift and its cures
def test_projection_keeps_constraints_and_energy():
    res = simulate(rod_pendulum(1.0, 0.5), 10.0, Projection())
    assert res.violation.max() <= 1e-10
    assert res.violation_velocity.max() <= 1e-10
    assert res.energy_error <= 1e-6
    assert res.newton_iterations > 0 and res.nfev > 0 and res.cpu_time > 0
    assert res.q.shape == (len(res.t), 3) and res.lambdas.shape == (len(res.t), 2)


def test_drift_without_stabilization_is_visible():
    """Same tolerances: the index-1 ODE drifts, projection does not, Baumgarte keeps it bounded."""
    p = cartesian_pendulum(angle=1.5)
    tol, t_eval = dict(rtol=1e-6, atol=1e-6), np.linspace(0, 10, 201)
    none = simulate(p, 10.0, ODE(**tol), t_eval=t_eval)
    proj = simulate(p, 10.0, Projection(**tol), t_eval=t_eval)
    baum = simulate(p, 10.0, Baumgarte(alpha=10.0, beta=10.0, **tol), t_eval=t_eval)
    assert none.violation.max() > 1e3 * proj.violation.max()
    assert none.violation.max() > 10 * baum.violation.max()
    # bounded: Baumgarte's late violation is no larger than its early one; the free drift grows
    half = len(none.t) // 2
    assert baum.violation[half:].max() <= 2 * baum.violation[:half].max()
    assert none.violation[half:].max() > 1.5 * none.violation[:half].max()


def test_projection_outputs_on_t_eval_are_projected():
    t_eval = np.linspace(0.0, 2.0, 7)
    res = simulate(double_rod_pendulum(), 2.0, Projection(rtol=1e-07, atol=1e-07), t_eval=t_eval)
    np.testing.assert_array_equal(res.t, t_eval)
    assert res.violation.max() <= 1e-10 and res.violation_velocity.max() <= 1e-10


@pytest.mark.parametrize("solver", ["RK45", "Radau"])
def test_other_solvers(solver):
    res = simulate(rod_pendulum(0.8), 1.0, Projection(solver=solver, rtol=1e-08, atol=1e-08))
    ref = simulate(rod_pendulum(0.8), 1.0, Projection(rtol=1e-11, atol=1e-11))
    assert res.q[-1] == pytest.approx(ref.q[-1], abs=1e-5)
    assert res.solver == solver and res.violation.max() <= 1e-10


def test_projection_helpers():
    s = double_rod_pendulum()
    rng = np.random.default_rng(1)
    q_bad = s.q0 + 1e-3 * rng.standard_normal(6)
    q, it = dae.project_positions(s, q_bad)
    assert np.abs(s.phi(q, 0)).max() <= 1e-12 and 1 <= it <= 5
    assert np.linalg.norm(q - q_bad) < 1e-2
    qd = dae.project_velocities(s, q, s.qd0 + rng.standard_normal(6))
    np.testing.assert_allclose(s.phi_q(q, 0) @ qd, 0.0, atol=1e-12)
    np.testing.assert_allclose(dae.project_velocities(s, q, qd), qd, atol=1e-12)   # idempotent
    # least mass-weighted change: M (q̇ − q̇*) is a combination of the rows of Φ_q
    qd_star = rng.standard_normal(6)
    dv = s.M(q) @ (dae.project_velocities(s, q, qd_star) - qd_star)
    coef = np.linalg.lstsq(s.phi_q(q, 0).T, dv, rcond=None)[0]
    np.testing.assert_allclose(s.phi_q(q, 0).T @ coef, dv, atol=1e-12)


# ----------------------------------------------------------------- redundancy and singular positions
def test_redundant_rows_names_the_dependency():
    J = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    rank, dependent, involved = dae.redundant_rows(J, ["a", "b", "c", "d"])
    assert rank == np.linalg.matrix_rank(J) == 3
    assert len(dependent) == 1 and set(involved) == {"a", "b", "c"}
    keep = [i for i, name in enumerate("abcd") if name not in dependent]
    assert np.linalg.matrix_rank(J[keep]) == 3
    assert dae.redundant_rows(np.eye(2)) == (2, [], [])


def test_redundant_middle_bar_gives_a_clear_error():
    s, _, _ = parallelograms(1, middle_bar=True)
    assert np.linalg.matrix_rank(s.phi_q(s.q0, 0)) == 11 < 12          # Grübler 0, mobility 1
    with pytest.raises(SingularityError, match=r"numerical rank 11.*rev.*AugmentedLagrangian"):
        dae.accelerations(s, 0.0, s.q0, s.qd0)
    with pytest.raises(SingularityError, match="Rows that become dependent here"):
        simulate(s, 1.0, ODE())


def test_middle_bar_parallelogram_with_augmented_lagrangian():
    """Redundant middle bar, through both flat positions (θ = 0 and θ = −π).

    Step dt = 2e-3: the trapezoidal rule's error is 1.1e-4 (2.8e-5 at dt = 1e-3, 7e-6 at 5e-4: O(h²)).
    """
    theta0, t_eval = 0.3, np.linspace(0.0, 1.2, 61)
    s, n_cr, n_k = parallelograms(1, theta0, middle_bar=True)
    res = simulate(s, 1.2, AugmentedLagrangian(dt=0.002), t_eval=t_eval)
    exact = parallelogram_theta(n_cr, n_k, theta0, 0.0, t_eval)
    assert exact.min() < -np.pi < 0.0 < exact.max()                        # it does pass both
    for k in range(n_cr):
        np.testing.assert_allclose(np.unwrap(res.q[:, 3 * k + 2]), exact, atol=2e-4)
    np.testing.assert_allclose(res.q[:, 3 * n_cr + 2], 0.0, atol=1e-8)      # the coupler translates
    assert res.violation.max() < 1e-8 and res.energy_error < 1e-4
    np.testing.assert_array_equal(res.t, t_eval)
    assert res.n_steps == 600 and res.max_newton_iterations < 10


def test_chain_of_parallelograms_through_the_flat_position():
    """Three cells: Φ_q loses rank 3 when flat; the augmented Lagrangian passes.

    Step dt = 2e-3: error 1.0e-4 (2.4e-5 at dt = 1e-3, 5e-6 at 5e-4).
    """
    theta0, t_eval = 0.3, np.linspace(0.0, 1.25, 51)
    s, n_cr, n_k = parallelograms(3, theta0)
    flat, _, _ = parallelograms(3, 0.0)
    generic_rank = np.linalg.matrix_rank(s.phi_q(s.q0, 0))
    assert generic_rank == s.n - 1 == 20                                      # one DOF
    assert np.linalg.matrix_rank(flat.phi_q(flat.q0, 0)) == generic_rank - 3
    res = simulate(s, 1.25, AugmentedLagrangian(dt=0.002), t_eval=t_eval)
    exact = parallelogram_theta(n_cr, n_k, theta0, 0.0, t_eval)
    assert exact.min() < -np.pi and exact.max() > 0.0
    for k in range(n_cr):
        np.testing.assert_allclose(np.unwrap(res.q[:, 3 * k + 2]), exact, atol=2e-4)
    assert res.energy_error < 1e-4 and res.violation.max() < 1e-6 and res.deferred_steps > 0


# ----------------------------------------------------------------- nonholonomic
@pytest.mark.parametrize("method", ["projection", "augmented_lagrangian"])
def test_knife_edge_rolls_on_a_circle(method):
    """No sideways slip, no force: φ = ω t and the centre runs on a circle of radius v/ω."""
    v, w = 1.2, 0.8
    edge, t_eval = KnifeEdge(v, w), np.linspace(0.0, 3.0, 31)
    s = hand_system(edge)
    scheme = Projection() if method == "projection" else AugmentedLagrangian()
    res = simulate(s, 3.0, scheme, t_eval=t_eval)
    R = v / w
    expected = np.column_stack([R * np.sin(w * t_eval), R * (1 - np.cos(w * t_eval)), w * t_eval])
    tol = 1e-7 if method == "projection" else 2e-6
    np.testing.assert_allclose(res.q, expected, atol=tol)
    assert res.violation_velocity.max() < 1e-9 and res.energy_error < 1e-6
    assert res.lambdas.shape == (31, 1) and res.labels == ("knife edge",)
    # λ is the sideways force that bends the path: m v²/R toward the centre, −λ B gives it
    # (the augmented Lagrangian's multiplier is that of the discrete trapezoidal equations)
    rtol = 1e-5 if method == "projection" else 1e-3
    np.testing.assert_allclose(-res.lambdas[:, 0], edge.m * v**2 / R, rtol=rtol)


# ----------------------------------------------------------------- result and errors
def test_summary_and_energy_error_scale():
    res = simulate(cartesian_pendulum(angle=np.pi / 2), 0.5, Projection())
    text = res.summary()
    assert "Projection" in text and "‖Φ‖" in text and "energy" in text and str(res) == text
    # E(0) = 0 here (released level with the pivot): the error is relative to the largest kinetic energy
    assert res.energy[0] == pytest.approx(0.0, abs=1e-12) and res.kinetic_scale > 1.0
    assert res.energy_error < 1e-8


def test_bad_input_errors():
    p = cartesian_pendulum()
    with pytest.raises(MbdError, match=r"method='rk4' is now a scheme object"):
        simulate(p, 1.0, method="rk4")
    with pytest.raises(MbdError, match=r"scheme=AugmentedLagrangian\(dt=...\)"):
        simulate(p, 1.0, "augmented_lagrangian")
    with pytest.raises(MbdError, match=r"simulate does not take dt=.*AugmentedLagrangian\(dt=...\)"):
        simulate(p, 1.0, Projection(), dt=1e-3)
    with pytest.raises(MbdError, match=r"Projection does not take dt=: it is an option of Augmented"):
        Projection(dt=1e-3)
    with pytest.raises(MbdError, match="rtol and atol choose the steps of adaptive=True"):
        AugmentedLagrangian(rtol=1e-6)
    with pytest.raises(MbdError, match="unknown solver 'LSODA'"):
        Projection(solver="LSODA")
    with pytest.raises(MbdError, match="t_end must be a finite time after t0"):
        simulate(p, -1.0, Projection())
    with pytest.raises(MbdError, match=r"t_end is the end time \(a number\)"):
        simulate(p, (0.0, 1.0))
    with pytest.raises(MbdError, match="t_eval must be increasing"):
        simulate(p, 1.0, Projection(), t_eval=[0.5, 0.2])
    with pytest.raises(ShapeError, match=r"q0 must have 2 components.*shape \(2,\)"):
        simulate(p, 1.0, Projection(), q0=[1.0, 2.0, 3.0])
    with pytest.raises(ShapeError, match=r"q0\[1\] is nan"):
        simulate(p, 1.0, Projection(), q0=[0.0, np.nan])
    with pytest.raises(ModelError, match="violate constraint 'rod length'.*assembled state"):
        simulate(p, 1.0, Projection(), q0=[0.0, -1.5])
    with pytest.raises(MbdError, match="dt must be a positive number"):
        AugmentedLagrangian(dt=0.0)
    with pytest.raises(MbdError, match="dt must be a positive number"):
        AugmentedLagrangian(dt=-1e-3)
    with pytest.raises(MbdError, match="penalty must be a positive number"):
        AugmentedLagrangian(penalty=-1.0)
    with pytest.raises(MbdError, match="Baumgarte: alpha must be a finite number ≥ 0"):
        Baumgarte(alpha=np.inf)
    with pytest.raises(MbdError, match="takes a ConstrainedSystem, got a PlanarModel"):
        simulate(planar_four_bar(crank_speed=0.0), 1.0)
    with pytest.raises(MbdError, match="takes a ConstrainedSystem"):
        simulate(object(), 1.0)
    with pytest.raises(ShapeError, match=r"gamma\(q, qd, t\) has shape \(2,\), expected \(1,\)"):
        ConstrainedSystem(n=2, M=p.M, Q=p.Q, phi=p.phi, phi_q=p.phi_q, gamma=lambda q, qd, t: np.zeros(2),
                          q0=p.q0)
    with pytest.raises(ModelError, match="give phi, phi_q and gamma together"):
        ConstrainedSystem(n=2, M=p.M, Q=p.Q, phi=p.phi, q0=p.q0)
    with pytest.raises(ModelError, match="Q\\(t0, q0, qd0\\) is not finite"):
        simulate(ConstrainedSystem(n=2, M=p.M, Q=lambda t, q, qd: np.array([0.0, np.inf]), phi=p.phi,
                                   phi_q=p.phi_q, gamma=p.gamma, q0=p.q0), 1.0)
    massless = ConstrainedSystem(n=2, M=lambda q: np.zeros((2, 2)), Q=p.Q, phi=p.phi, phi_q=p.phi_q,
                                 gamma=p.gamma, q0=p.q0)
    with pytest.raises(ModelError, match="not positive definite"):
        dae.accelerations(massless, 0.0, [0.0, -1.0], [0.0, 0.0])


def test_a_system_is_immutable_and_a_snapshot_of_its_model():
    m = planar_four_bar(crank_speed=0.0)
    s = m.system()
    with pytest.raises(AttributeError):
        s.n = 3
    with pytest.raises(ValueError, match="read-only"):
        s.q0[0] = 1.0
    m.add_body("extra", 1.0, 0.1, position=(5.0, 5.0))          # the model changes; the system does not
    assert s.n == 9 and s.M(s.q0).shape == (9, 9) and m.n == 12
    assert s.labels == tuple(planar_four_bar(crank_speed=0.0).labels)


def test_system_warns_when_it_changes_the_given_velocities():
    """A crank speed that the loop cannot have as given is changed, and the user is told by how much."""
    from mbdlib.system import ModelWarning

    m = planar_four_bar(crank_speed=2.0)
    m.bodies[2].angular_velocity = 5.0                          # a rocker rate the loop cannot have
    with pytest.warns(ModelWarning, match=r"changed \(least mass-weighted change\) by up to"):
        m.system()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")                          # consistent (at rest): no warning
        assert np.abs(planar_four_bar(crank_speed=0.0).system().qd0).max() == 0.0


# ----------------------------------------------------------------- with mbdlib.planar (the producer)
def planar_four_bar(crank_speed=2.0):
    """Ground pivots (0, 0) and (2, 0); crank 1 m, coupler 2.2 m, rocker 1.5 m (uniform bars, 1 kg/m)."""
    from mbdlib.planar import PlanarModel

    m = PlanarModel(gravity=(0.0, -9.81))
    crank = m.add_body("crank", 1.0, 1.0 / 12, position=(0.0, 0.5), angle=np.pi / 2,
                       velocity=(-0.5 * crank_speed, 0.0), angular_velocity=crank_speed)
    coupler = m.add_body("coupler", 2.2, 2.2 * 2.2**2 / 12, position=(1.0, 1.2), angle=0.3)
    rocker = m.add_body("rocker", 1.5, 1.5 * 1.5**2 / 12, position=(2.0, 0.75), angle=np.pi / 2)
    m.add_revolute(m.ground, crank, (0.0, 0.0), (-0.5, 0.0))
    m.add_revolute(crank, coupler, (0.5, 0.0), (-1.1, 0.0))
    m.add_revolute(coupler, rocker, (1.1, 0.0), (0.75, 0.0))
    m.add_revolute(rocker, m.ground, (-0.75, 0.0), (2.0, 0.0))
    return m


def four_bar_system(crank_speed=2.0):
    """The four-bar's system with the crank turning at ``crank_speed`` (the other rates solved)."""
    m = planar_four_bar(crank_speed)
    return m.system(m.state(speeds={m.joints[0]: crank_speed}))


def test_planar_pendulum_matches_the_protocol_pendulum():
    from mbdlib.planar import PlanarModel

    m = PlanarModel(gravity=(0.0, -G))
    rod = m.add_body("rod", 1.0, 1 / 12, position=(0.5 * np.sin(1.0), -0.5 * np.cos(1.0)),
                     angle=1.0 - np.pi / 2)
    m.add_revolute(m.ground, rod, (0.0, 0.0), (-0.5, 0.0))
    t_eval = np.linspace(0, 2, 21)
    ours = simulate(m.system(), 2.0, Projection(), t_eval=t_eval)
    ref = simulate(rod_pendulum(1.0), 2.0, Projection(), t_eval=t_eval)
    np.testing.assert_allclose(ours.q, ref.q, atol=1e-8)
    # the sign of λ depends on how a joint writes Φ; the reaction −Φ_qᵀλ does not
    def reactions(res, system):
        return np.array([-system.phi_q(q, 0).T @ lam for q, lam in zip(res.q, res.lambdas, strict=True)])

    np.testing.assert_allclose(reactions(ours, m.system()), reactions(ref, rod_pendulum(1.0)), atol=1e-6)


def test_planar_four_bar_projection_and_augmented_lagrangian_agree():
    m, system = planar_four_bar(), four_bar_system()
    assert m.joints[0].angle.rate(system.q0, system.qd0) == pytest.approx(2.0, abs=1e-12)
    t_eval = np.linspace(0, 1.0, 11)
    proj = simulate(system, 1.0, Projection(), t_eval=t_eval)
    al = simulate(system, 1.0, AugmentedLagrangian(dt=0.001), t_eval=t_eval)
    assert proj.violation.max() <= 1e-10 and proj.energy_error <= 1e-6
    assert al.violation.max() <= 1e-8 and al.energy_error <= 1e-4
    np.testing.assert_allclose(al.q, proj.q, atol=1e-4)
    assert proj.labels == tuple(m.labels)


def test_planar_redundant_parallelogram_names_its_joints():
    from mbdlib.planar import PlanarModel

    m = PlanarModel(gravity=(0.0, -9.81))
    bars = [m.add_body(f"crank{k}", 1.0, 1 / 12, position=(x, 0.5), angle=np.pi / 2)
            for k, x in enumerate([0.0, 0.5, 1.0])]
    coupler = m.add_body("coupler", 1.0, 1 / 12, position=(0.5, 1.0))
    for bar, x in zip(bars, [0.0, 0.5, 1.0], strict=True):
        m.add_revolute(m.ground, bar, (x, 0.0), (-0.5, 0.0))
        m.add_revolute(bar, coupler, (0.5, 0.0), (x - 0.5, 0.0))
    with pytest.raises(SingularityError, match="Rows that become dependent here.*AugmentedLagrangian"):
        simulate(m.system(), 0.5, ODE())
    res = simulate(m.system(), 0.5, AugmentedLagrangian(dt=0.002))
    assert res.violation.max() < 1e-8 and res.energy_error < 1e-5


# ----------------------------------------------------------------- static equilibrium
def _hanging_block(k=2000.0, l0=0.3, m=5.0, y0=-0.9):
    """A block on a vertical guide x = 0, hung from the ground point (0, 0) by a spring (k, l0)."""
    from mbdlib import PlanarModel

    model = PlanarModel(gravity=(0.0, -9.81))
    block = model.add_body("block", mass=m, inertia=0.01, position=(0.0, y0))
    model.add_translational(model.ground, block, axis_i=(0.0, 1.0))
    model.add_spring_damper(model.ground, block, stiffness=k, rest_length=l0)
    return model


def test_static_equilibrium_of_a_block_on_a_spring_matches_the_closed_form():
    k, l0, m = 2000.0, 0.3, 5.0
    model = _hanging_block(k, l0, m)
    q, lam, _ = dae.static_equilibrium(model.system(), model.q_guess())
    # by hand: the spring stretches until k (ℓ − ℓ0) = m g, so y = −(ℓ0 + m g / k)
    assert q[1] == pytest.approx(-(l0 + m * 9.81 / k), abs=1e-10)
    np.testing.assert_allclose(model.Q(0.0, q, np.zeros(3)), model.phi_q(q).T @ lam, atol=1e-9)


def test_static_equilibrium_of_a_pendulum_hangs_straight_down():
    from mbdlib import PlanarModel

    model = PlanarModel(gravity=(0.0, -9.81))
    rod = model.add_body("rod", mass=2.0, inertia=2.0 / 12, position=(0.5 * np.cos(0.4), 0.5 * np.sin(0.4)),
                         angle=0.4)
    model.add_revolute(model.ground, rod, (0.0, 0.0), (-0.5, 0.0))
    q, lam, _ = dae.static_equilibrium(model.system(), model.q_guess())
    np.testing.assert_allclose(q[:2], [0.0, -0.5], atol=1e-9)
    assert np.cos(q[2]) == pytest.approx(0.0, abs=1e-9) and np.sin(q[2]) == pytest.approx(-1.0)  # φ ≡ −π/2
    # the pin carries the weight: joint force −Φ_qᵀλ on the rod is (0, +m g, 0)
    np.testing.assert_allclose(-model.phi_q(q).T @ lam, [0.0, 2.0 * 9.81, 0.0], atol=1e-8)


def test_static_equilibrium_errors_are_clear():
    from mbdlib import PlanarModel

    free = PlanarModel(gravity=(0.0, -9.81))
    free.add_body("stone", mass=1.0, inertia=0.1)
    with pytest.raises(SingularityError, match="no force or joint holds"):
        dae.static_equilibrium(free.system(), np.zeros(3))
    with pytest.raises(ShapeError):
        dae.static_equilibrium(_hanging_block().system(), np.zeros(2))
    with pytest.raises(MbdError, match="did not converge"):
        dae.static_equilibrium(_hanging_block().system(), np.array([0.0, -0.9, 0.0]), max_iter=1, tol=1e-30)


def test_every_model_builds_the_system_object_and_mbdlib_has_one_simulate():
    """The contract: every model family builds an immutable ConstrainedSystem (no model is a system
    itself), there is one simulate in mbdlib (no model has its own), and one result type."""
    import inspect

    import mbdlib
    from mbdlib.catalogue import mechanism
    from mbdlib.model import Model

    models = [mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -9.81)),
              mechanism("fourbar", coordinates="relative", gravity=(0.0, -9.81)),
              mechanism("fourbar", coordinates="mixed", gravity=(0.0, -9.81)),
              mechanism("arm6r", coordinates="relative", gravity=(0, 0, -9.81)),
              mechanism("arm6r", coordinates="cartesian", gravity=(0, 0, -9.81)),
              mbdlib.fourbar_arm()]
    families = {type(m) for m in models}
    assert families == {mbdlib.PlanarModel, mbdlib.RelativeModel, mbdlib.ChainModel, mbdlib.SpatialModel,
                        mbdlib.FourBarArm}
    systems = [m.system() for m in models] + [models[0].system(compiled=True), cartesian_pendulum()]
    assert all(isinstance(s, ConstrainedSystem) for s in systems)
    assert all(isinstance(m, Model) and not isinstance(m, ConstrainedSystem) for m in models)
    for s in systems:                                   # each simulates through the one simulate
        res = simulate(s, 0.01, t_eval=[0.0, 0.01])
        assert isinstance(res, dae.SimulationResult) and res.q.shape == (2, s.n)
    # one simulate: no module of mbdlib defines another, no class has a simulate method
    import pkgutil
    for info in pkgutil.walk_packages(mbdlib.__path__, "mbdlib."):
        if info.name.startswith(("mbdlib.exercises", "mbdlib.widgets", "mbdlib.frames", "mbdlib.plotting",
                                 "mbdlib.schematics")):
            continue
        module = __import__(info.name, fromlist=["_"])
        for name, obj in vars(module).items():
            if name == "simulate" and inspect.isfunction(obj):
                assert obj is mbdlib.simulate, f"{info.name}.simulate is another simulate"
            if inspect.isclass(obj) and obj.__module__ == info.name:
                assert not hasattr(obj, "simulate"), f"{info.name}.{name} has a simulate method"
