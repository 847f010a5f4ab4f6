"""PlanarModel.system(compiled=True): the compiled equations equal the joint-by-joint ones and obey calculus.

Independent checks: Φ_q against central finite differences of the compiled Φ; γ against the
finite-difference time derivative of Φ_q q̇ + Φ_t along a straight path q(t) = q + q̇ t (on which
q̈ = 0, so d/dt(Φ_q q̇ + Φ_t) = −γ); a simulation of a driven mechanism gives the same trajectory.
"""

import math

import numpy as np
import pytest

from mbdlib import PlanarModel, Projection, simulate
from mbdlib.catalogue import mechanism
from mbdlib.compiled import CompiledConstraints


def every_joint_kind() -> PlanarModel:
    """Bodies tied by every holonomic joint kind, drivers included (not meant to move: only evaluated)."""
    m = PlanarModel(gravity=(0.0, -9.81))
    a = m.add_body("a", 1.0, 0.1, position=(0.5, 0.0), angle=0.2)
    b = m.add_body("b", 2.0, 0.2, position=(1.2, 0.4), angle=-0.3)
    c = m.add_body("c", 1.5, 0.1, position=(2.0, -0.2), angle=0.5)
    d = m.add_body("d", 0.5, 0.05, position=(0.3, 1.0), angle=1.0)
    m.add_revolute(m.ground, a, (0.0, 0.0), (-0.5, 0.0))
    m.add_distance(a, b, (0.5, 0.0), (-0.3, 0.1))
    m.add_translational(m.ground, c, (0.0, -0.2), (0.0, 0.0), axis_i=(1.0, 0.0))
    m.add_point_on_line(b, d, (0.0, 0.0), (0.1, 0.0), axis_i=(0.0, 1.0))
    m.add_gear(a, d, ratio=-2.0)
    m.add_driver(a, "phi", f=lambda t: 0.2 + 0.3 * math.sin(2 * t), df=lambda t: 0.6 * math.cos(2 * t),
                 ddf=lambda t: -1.2 * math.sin(2 * t))
    m.add_distance_driver(b, c, (0.2, 0.0), (0.0, 0.0), f=lambda t: 1.0 + 0.1 * t * t, df=lambda t: 0.2 * t,
                          ddf=lambda t: 0.2)
    return m


@pytest.fixture(scope="module")
def pair():
    model = every_joint_kind()
    return model, CompiledConstraints(model)


def test_compiled_equals_the_joint_by_joint_equations(pair):
    model, fast = pair
    rng = np.random.default_rng(7)
    for _ in range(20):
        q, qd, t = rng.normal(0, 1, model.n), rng.normal(0, 2, model.n), rng.uniform(0, 3)
        np.testing.assert_allclose(fast.phi(q, t), model.phi(q, t), atol=1e-12)
        np.testing.assert_allclose(fast.phi_q(q, t), model.phi_q(q, t), atol=1e-12)
        np.testing.assert_allclose(fast.phi_t(q, t), model.phi_t(q, t), atol=1e-12)
        np.testing.assert_allclose(fast.gamma(q, qd, t), model.gamma(q, qd, t), atol=1e-11)


def test_compiled_jacobian_and_gamma_obey_calculus(pair):
    _, fast = pair
    rng = np.random.default_rng(8)
    q, qd, t = rng.normal(0, 1, fast.n), rng.normal(0, 1, fast.n), 0.4
    h = 1e-6
    J_fd = np.column_stack([(fast.phi(q + h * e, t) - fast.phi(q - h * e, t)) / (2 * h)
                            for e in np.eye(fast.n)])
    np.testing.assert_allclose(fast.phi_q(q, t), J_fd, atol=1e-7)
    phi_t_fd = (fast.phi(q, t + h) - fast.phi(q, t - h)) / (2 * h)
    np.testing.assert_allclose(fast.phi_t(q, t), phi_t_fd, atol=1e-7)

    def velocity_residual(s):                      # Φ_q q̇ + Φ_t along q(s) = q + q̇ s, time t + s
        return fast.phi_q(q + qd * s, t + s) @ qd + fast.phi_t(q + qd * s, t + s)

    d_dt = (velocity_residual(h) - velocity_residual(-h)) / (2 * h)
    np.testing.assert_allclose(fast.gamma(q, qd, t), -d_dt, atol=1e-6)


def test_compiled_model_simulates_the_same_trajectory():
    model = mechanism("slider_crank", coordinates="cartesian", gravity=(0.0, -9.81))
    plain, fast = model.system(), model.system(compiled=True)
    assert "compiled" in fast.name and fast.n == plain.n and fast.labels == plain.labels
    t_eval = np.linspace(0, 0.5, 6)
    a, b = simulate(plain, 0.5, Projection(), t_eval=t_eval), simulate(fast, 0.5, Projection(), t_eval=t_eval)
    np.testing.assert_allclose(b.q, a.q, atol=1e-10)
    assert b.violation.max() < 1e-9


def test_compiled_band_storage_reads_the_compiled_jacobian():
    """A revolute-only chain keeps its band storage when compiled, and the band's values are the compiled
    Φ_q's (not the model's own: a compiled system must not fall back on the uncompiled Jacobian)."""
    model = mechanism("n_fourbar", coordinates="cartesian", gravity=(0.0, -9.81), N=3)
    fast = model.system(compiled=True)
    band = fast.structure.band
    assert band is not None
    rng = np.random.default_rng(9)
    q = fast.q0 + 0.01 * rng.standard_normal(fast.n)
    np.testing.assert_allclose(fast.structure.jacobian_values(q), fast.phi_q(q)[band.rows, band.cols],
                               atol=1e-14)
    np.testing.assert_allclose(fast.structure.jacobian_values(q), model.jacobian_values(q), atol=1e-12)


def test_compiled_constraints_know_their_size(pair):
    model, fast = pair
    assert fast.n == model.n and fast.m == len(model.labels)
    assert "coordinates" in repr(fast) and fast.backend in ("llvm", "sympy")
