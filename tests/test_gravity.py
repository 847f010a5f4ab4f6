"""Gravity is never assumed: every function and model that needs it refuses to run without it, with a
message that says what to pass (the Conventions page; issue: ``rnea(Chain.planar([1, 1]), ...)`` once
returned [0, 0] silently, gravity having defaulted to −z for an arm in the x-y plane)."""

import numpy as np
import pytest

from mbdlib import (
    Chain,
    ChainModel,
    PlanarModel,
    RelativeModel,
    bias_forces,
    energy,
    forward_dynamics,
    inverse_dynamics_from_mass_matrix,
    kane_equations,
    kane_inverse_dynamics,
    lagrange_equations,
    mechanism,
    rnea,
)
from mbdlib.errors import ModelError
from mbdlib.kane_closed import closed_kane_inverse_dynamics
from mbdlib.mechanisms import fourbar_arm

ARM = Chain.planar([1.0, 1.0])
Z = [0.0, 0.0]
CALLS = {
    "rnea": lambda: rnea(ARM, Z, Z, Z),
    "kane_inverse_dynamics": lambda: kane_inverse_dynamics(ARM, Z, Z, Z),
    "kane_equations": lambda: kane_equations(ARM),
    "lagrange_equations": lambda: lagrange_equations(ARM),
    "bias_forces": lambda: bias_forces(ARM, Z, Z),
    "forward_dynamics": lambda: forward_dynamics(ARM, Z, Z, Z),
    "inverse_dynamics_from_mass_matrix": lambda: inverse_dynamics_from_mass_matrix(ARM, Z, Z, Z),
    "energy": lambda: energy(ARM, Z, Z),
    "ChainModel": lambda: ChainModel(ARM),
    "PlanarModel": lambda: PlanarModel(),
    "RelativeModel": lambda: RelativeModel(),
    "mechanism('fourbar')": lambda: mechanism("fourbar"),
    "mechanism('arm6r')": lambda: mechanism("arm6r", coordinates="relative"),
}


@pytest.mark.parametrize("who", CALLS)
def test_no_gravity_no_answer(who):
    with pytest.raises(ModelError, match=r"give gravity=.*\(0, 0\)|give gravity=.*\(0, 0, 0\)"):
        CALLS[who]()


def test_closed_chain_functions_need_gravity_too():
    arm = fourbar_arm()
    q = np.array([0.3, 1.2])
    with pytest.raises(ModelError, match="closed_kane_inverse_dynamics: give gravity="):
        closed_kane_inverse_dynamics(arm.closed, q, Z, Z, arm._theta_p(q))


def test_the_issue_example_now_says_what_to_give_and_then_answers():
    """The planar arm lies in the x-y plane: gravity along −y loads its joints, along −z it does not."""
    with pytest.raises(ModelError, match="rnea: give gravity="):
        rnea(ARM, [0.0, 0.0], Z, Z)
    down_y = rnea(ARM, [0.0, 0.0], Z, Z, gravity=(0, -9.81, 0))
    np.testing.assert_allclose(down_y, [9.81 * (0.5 + 1.5), 9.81 * 0.5])   # m g x_C: 1 kg rods of 1 m
    np.testing.assert_allclose(rnea(ARM, [0.0, 0.0], Z, Z, gravity=(0, 0, -9.81)), [0.0, 0.0], atol=1e-12)
