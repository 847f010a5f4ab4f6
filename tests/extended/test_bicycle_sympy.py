"""The benchmark bicycle against sympy.physics.mechanics' KanesMethod.linearize (``make test-extended``).

sympy differentiates the bicycle's full nonlinear equations symbolically before it substitutes the operating
point: five to ten minutes on two cores, so ``make test`` leaves this proof out (it checks the same
linearization against the paper's table 2, its published matrices and its closed-form expressions:
tests/test_vehicles.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/oracles.py

from oracles import exact_solver, whipple_kanes_method  # noqa: E402

from mbdlib.vehicles import BENCHMARK, benchmark_bicycle  # noqa: E402


def test_linearization_equals_sympys_kanes_method_linearize():
    """The Whipple bicycle derived independently with sympy.physics.mechanics' KanesMethod (tests/oracles.py:
    yaw, lean, pitch and steer angles, the pitch dependent through the front contact's height; yaw, pitch and
    front-wheel rates dependent through three velocity constraints, solved exactly by forward substitution)
    and linearized by its Linearizer (with the same exact solver) about upright running at 5 m/s: the state
    matrix in (lean, steer, their rates, the rear hub's rate) and the steer-torque column of B equal those
    of the 28-coordinate model, and the heading is ignorable (its column is zero)."""
    bike = benchmark_bicycle()
    kane = whipple_kanes_method(dict(BENCHMARK))
    q, u, T = kane["q"], kane["u"], kane["T"]
    v = 5.0
    op = {**{qi: 0.0 for qi in q}, u[0]: 0.0, u[1]: 0.0, u[2]: 0.0, u[3]: 0.0,
          u[4]: v / BENCHMARK["rR"], u[5]: v / BENCHMARK["rF"], T: 0.0,
          **{ui.diff(): 0.0 for ui in u}}                  # steady: no accelerations
    A, B, inputs = kane["KM"].linearize(op_point=op, A_and_B=True, simplify=False, linear_solver=exact_solver)
    assert list(inputs) == [T]
    A, B = np.array(A.evalf(), dtype=float), np.array(B.evalf(), dtype=float)
    states = [1, 2, 3, 4, 5]                  # of (yaw, lean, steer, lean rate, steer rate, rear hub rate)
    lin = bike.linearize(v, inputs=["steer torque"])
    np.testing.assert_allclose(lin.A, A[np.ix_(states, states)], rtol=0, atol=1e-8 * np.abs(A).max())
    np.testing.assert_allclose(lin.B[:, 0], B[states, 0], rtol=0, atol=1e-9 * np.abs(B).max())
    np.testing.assert_allclose(A[:, 0], 0.0, atol=1e-12)
