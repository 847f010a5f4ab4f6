"""The benchmark bicycle (mbdlib.vehicles) against the paper and against independent derivations.

The library's bicycle is a SpatialModel of 4 bodies in 28 Euler-parameter coordinates with 2 rolling wheels;
nothing in it knows the paper's linearized equations.  It is checked against:

* the eigenvalues Meijaard, Papadopoulos, Ruina & Schwab (2007) print in their table 2 at v = 0, 1, ...,
  10 m/s and the critical speeds of the same table (v_d, v_w, v_c), by root finding on the model's own
  linearization (tests/oracles.py: MEIJAARD_TABLE2_*);
* the matrices M, C1, K0, K2 they publish for the benchmark, and their closed-form expressions (appendix A,
  (A 1)-(A 27), written out in tests/oracles.py) for other bicycles;
* the same bicycle derived with sympy.physics.mechanics' KanesMethod (dependent pitch, yaw and front-wheel
  rates; the holonomic front contact and the two rolling wheels as constraints) and linearized by its
  Linearizer (tests/oracles.py: whipple_kanes_method): tests/extended/test_bicycle_sympy.py, run by
  ``make test-extended`` (sympy's symbolic Jacobians take five to ten minutes);
* a nonlinear ride: inside the stable range a sideways push dies out, with energy and constraints kept.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracles import (
    MEIJAARD_TABLE2_AT_SPEEDS,
    MEIJAARD_TABLE2_EIGENVALUES,
    MEIJAARD_TABLE2_SPEEDS,
    meijaard_bicycle_matrices,
    whipple_matrices,
)
from scipy.optimize import brentq

from mbdlib import Projection, simulate
from mbdlib.errors import ModelError
from mbdlib.vehicles import BENCHMARK, LeanSteerEquations, benchmark_bicycle

G = 9.81
OTHER = {"c": 0.05, "lam": 0.3, "mB": 60.0, "zB": -1.0, "xH": 0.92, "rF": 0.33, "IHxz": 0.003, "IBxz": -1.0}


@pytest.fixture(scope="module")
def bike():
    return benchmark_bicycle()


@pytest.fixture(scope="module")
def equations(bike):
    return bike.linear_equations()


def _table(v):
    """The four eigenvalues of table 2 at speed v, the conjugates added."""
    lam = []
    for z in MEIJAARD_TABLE2_EIGENVALUES[v]:
        lam += [z, np.conj(z)] if isinstance(z, complex) else [z]
    return np.sort_complex(np.array(lam, dtype=complex))


def test_the_model_has_the_whipple_bicycles_counts(bike):
    report = bike.model.dof_report()
    counts = (bike.model.n, report.constraints, report.dof, report.nonholonomic, report.velocity_dof)
    assert counts == (28, 21, 7, 4, 3)
    assert "nonholonomic rows      4 -> velocity DOF 3" in report.text
    assert [b.name for b in bike.model.bodies] == ["frame", "fork", "rear wheel", "front wheel"]
    s = bike.state(5.0, lean=0.1, steer=-0.2, lean_rate=0.3, steer_rate=0.4)
    assert bike.lean(s.q0) == pytest.approx(0.1, abs=1e-12) and bike.steer(s.q0) == pytest.approx(-0.2)
    assert bike.lean.rate(s.q0, s.qd0) == pytest.approx(0.3)
    assert bike.steer.rate(s.q0, s.qd0) == pytest.approx(0.4)
    assert bike.wheel.rate(s.q0, s.qd0) == pytest.approx(5.0 / 0.3)


@pytest.mark.parametrize("v", sorted(MEIJAARD_TABLE2_EIGENVALUES))
def test_eigenvalues_equal_table_2_of_the_paper(bike, v):
    """Linearized in lean and steer (rear-hub rate the third speed) at v = 0, 1, ..., 10 m/s: the four
    eigenvalues are those of Meijaard et al. (2007), table 2, to 1e-8 (the fifth is 0: the speed)."""
    lin = bike.linearize(float(v))
    assert lin.is_equilibrium and lin.accuracy < 1e-8
    np.testing.assert_allclose(lin.A[4], 0.0, atol=1e-8)                 # the speed stays: no coupling
    np.testing.assert_allclose(lin.A[:, 4], 0.0, atol=1e-8)
    np.testing.assert_allclose(np.sort_complex(bike.eigenvalues(float(v))), _table(v), rtol=0, atol=1e-8)


def test_critical_speeds_by_root_finding_equal_table_2(bike, equations):
    """The weave speed (the weave pair's real part through zero) and the capsize speed (the capsize
    eigenvalue through zero), by Brent's method on the 28-coordinate model's own linearization, equal table 2
    of Meijaard et al. (2007) to 1e-8 m/s; so do those of the matrices read off the model; at v_w the weave
    pair is ±3.43503384866144i (table 2)."""
    def weave(v):
        return bike.eigenvalues(v).real[-1]                 # the weave pair has the largest real part here

    def capsize(v):
        return float(np.max(np.linalg.eigvals(bike.linearize(v).A[:4, :4]).real))

    v_w = brentq(weave, 4.0, 4.5, xtol=1e-12)
    v_c = brentq(capsize, 5.8, 6.2, xtol=1e-12)
    assert v_w == pytest.approx(MEIJAARD_TABLE2_SPEEDS["v_w"], abs=1e-8)
    assert v_c == pytest.approx(MEIJAARD_TABLE2_SPEEDS["v_c"], abs=1e-8)
    np.testing.assert_allclose(equations.stable_speeds(),
                               [MEIJAARD_TABLE2_SPEEDS["v_w"], MEIJAARD_TABLE2_SPEEDS["v_c"]], atol=1e-8)
    at_w = equations.eigenvalues(MEIJAARD_TABLE2_SPEEDS["v_w"])
    assert np.abs(at_w.imag).max() == pytest.approx(MEIJAARD_TABLE2_AT_SPEEDS["v_w"].imag, abs=1e-8)
    assert equations.modes(5.0)["weave"].real < 0 < equations.modes(7.0)["capsize"]


def test_the_weave_pair_is_born_at_v_d_of_table_2(equations):
    """Below v_d = 0.68428307889246 m/s (table 2) all four eigenvalues are real; just above, two of them,
    near 3.78290405129320, are a complex pair."""
    v_d, double = MEIJAARD_TABLE2_SPEEDS["v_d"], MEIJAARD_TABLE2_AT_SPEEDS["v_d"]
    below, above = equations.eigenvalues(v_d - 1e-6), equations.eigenvalues(v_d + 1e-6)
    assert np.abs(below.imag).max() == 0.0 and np.abs(above.imag).max() > 0.0
    assert np.sort(below.real)[-2:] == pytest.approx([double, double], abs=2e-3)   # a square-root branch
    with pytest.raises(ModelError, match="not one complex pair and two real ones"):
        equations.modes(0.5)


def test_linear_equations_equal_the_published_matrices(equations):
    """M (kinetic energy), K0 (linearized at rest), C1 and K2 (at 5 m/s) read off the 28-coordinate model
    equal the numbers Meijaard et al. (2007) publish for the benchmark, to 1e-9 of each matrix."""
    published = meijaard_bicycle_matrices()
    for name, ref in published.items():
        np.testing.assert_allclose(getattr(equations, name), ref, rtol=0, atol=1e-9 * np.abs(ref).max(),
                                   err_msg=name)
    assert equations.g == G


def test_linear_equations_hold_at_every_speed_and_give_the_steer_input(bike, equations):
    """The form M q̈ + v C1 q̇ + (g K0 + v² K2) q = f is not assumed but holds: the model's A at 2.5 and
    8 m/s equals the one built from the matrices (read at 0 and 5 m/s); the steer-torque column of B is
    M⁻¹ (0, 1)."""
    for v in (2.5, 8.0):
        np.testing.assert_allclose(bike.linearize(v).A[:4, :4], equations.A(v), atol=1e-8)
    lin = bike.linearize(5.0, inputs=["steer torque"])
    np.testing.assert_allclose(lin.B[2:4, 0], np.linalg.solve(equations.M, [0.0, 1.0]), rtol=1e-9)
    np.testing.assert_allclose(lin.B[[0, 1, 4], 0], 0.0, atol=1e-12)


def test_another_bicycle_matches_the_papers_closed_form_matrices():
    """A bicycle with eight parameters changed (trail, tilt, rider, fork, front wheel): the model's M, C1,
    K0, K2 equal the paper's appendix-A expressions (A 1)-(A 27) for those parameters."""
    bike = benchmark_bicycle(**OTHER)
    eq = bike.linear_equations()
    ref = whipple_matrices(bike.params)
    for name in ("M", "C1", "K0", "K2"):
        np.testing.assert_allclose(getattr(eq, name), ref[name], rtol=0, atol=1e-9 * np.abs(ref[name]).max(),
                                   err_msg=name)
    assert bike.params["c"] == 0.05 and BENCHMARK["c"] == 0.08           # the benchmark is not changed


def test_lean_steer_equations_closed_forms():
    """Two uncoupled inverted pendulums (M = I, K0 = −diag(1, 4), g = 1): eigenvalues ±1, ±2 at any speed
    without C1 and K2; with K2 = diag(0, 1) the steer is stiffened: ±√(v² − 4) once v > 2."""
    eq = LeanSteerEquations(np.eye(2), np.zeros((2, 2)), -np.diag([1.0, 4.0]), np.zeros((2, 2)), 1.0)
    np.testing.assert_allclose(eq.eigenvalues(7.0), [-2, -1, 1, 2], atol=1e-12)
    stiff = LeanSteerEquations(np.eye(2), np.zeros((2, 2)), -np.diag([1.0, 4.0]), np.diag([0.0, 1.0]), 1.0)
    np.testing.assert_allclose(np.sort(stiff.eigenvalues(3.0).imag), [-np.sqrt(5), 0, 0, np.sqrt(5)],
                               atol=1e-12)
    with pytest.raises(ModelError, match="no single self-stable speed range"):
        stiff.stable_speeds()


def test_a_sideways_push_dies_out_inside_the_stable_range(bike):
    """At 5 m/s (inside 4.29-6.02 m/s) a lean rate of 0.5 rad/s dies out in the nonlinear model; energy and
    constraints are kept (rolling without slipping does no work)."""
    res = simulate(bike.system(5.0, lean_rate=0.5), 3.0, Projection(rtol=1e-9, atol=1e-9),
                   t_eval=np.linspace(0, 3, 31))
    leans = np.array([bike.lean(q) for q in res.q])
    assert np.abs(leans).max() > 0.02 and np.abs(leans[-5:]).max() < 0.3 * np.abs(leans).max()
    assert res.energy_error < 1e-7 and res.violation.max() < 1e-10 and res.violation_velocity.max() < 1e-9


def test_bad_parameters_are_refused_with_their_name():
    with pytest.raises(ModelError, match=r"unknown parameter\(s\) \['trail'\]"):
        benchmark_bicycle(trail=0.1)
    with pytest.raises(ModelError, match="benchmark_bicycle: mB must be a positive number, got -85.0"):
        benchmark_bicycle(mB=-85.0)
    with pytest.raises(ModelError, match="lam must lie between"):
        benchmark_bicycle(lam=2.0)
    with pytest.raises(ModelError, match="inertia of the fork is not positive definite"):
        benchmark_bicycle(IHxz=1.0)
    with pytest.raises(ModelError, match="frame's centre of mass must be above the ground"):
        benchmark_bicycle(zB=0.9)
    with pytest.raises(ModelError, match="c must be a finite number, got nan"):
        benchmark_bicycle(c=float("nan"))
    with pytest.raises(ModelError, match="speed must be a positive number"):
        benchmark_bicycle().linear_equations(speed=0.0)
