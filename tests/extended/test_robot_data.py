"""Real robot descriptions from the optional extra ``example-robot-data`` (``pip install
"mbdlib[robots]"``, about 400 MB of URDF and mesh files; only the URDF text is read here).

The package installs its files under ``cmeel.prefix/share/example-robot-data/robots`` of
site-packages (versions >= 4.4 ship no Python module).  Run with ``make test-extended`` (which
installs it); ``make test`` does not collect this folder. A missing package or file fails the test.
"""

import xml.etree.ElementTree as ET
from importlib import metadata

import numpy as np
import pytest

from mbdlib.kinematics import forward_kinematics
from mbdlib.urdf import load_urdf

FILES = {"ur5": "ur_description/urdf/ur5_robot.urdf", "panda": "panda_description/urdf/panda.urdf"}


def robot_file(robot: str):
    try:
        dist = metadata.distribution("example-robot-data")
    except metadata.PackageNotFoundError:
        pytest.fail("example-robot-data is not installed: run `make test-extended` "
                    '(or pip install "mbdlib[robots]")')
    for f in dist.files or ():
        if str(f).replace("\\", "/").endswith("robots/" + FILES[robot]):
            return dist.locate_file(f)
    pytest.fail(f"example-robot-data {dist.version} has no {FILES[robot]}")


def hand_mass(path) -> float:
    """Sum of <mass value> over the links that move: all but the root and the links fixed to it
    (the UR5 file hangs base_link from a "world" root by a fixed joint), read with ElementTree."""
    robot = ET.parse(path).getroot()
    joints = [(j.find("parent").get("link"), j.find("child").get("link"), j.get("type"))
              for j in robot.findall("joint")]
    children = {c for _, c, _ in joints}
    ground = {lk.get("name") for lk in robot.findall("link")} - children     # the root
    grew = True
    while grew:
        new = {c for p, c, kind in joints if p in ground and kind == "fixed"} - ground
        ground |= new
        grew = bool(new)
    return sum(float(lk.find("inertial/mass").get("value")) for lk in robot.findall("link")
               if lk.get("name") not in ground and lk.find("inertial") is not None)


def gravity_torque_by_potential(chain, q, g=(0, 0, -9.81), h=1e-6):
    """τ_g = ∂V/∂q with V = −Σ m g·r_C (central differences of the kinematics)."""
    g = np.asarray(g)

    def V(q):
        kin = forward_kinematics(chain, q)
        return -sum(lk.body.mass * g @ kin.r_c(i) for i, lk in enumerate(chain.links))

    return np.array([(V(q + h * e) - V(q - h * e)) / (2 * h) for e in np.eye(chain.n)])


@pytest.mark.parametrize("robot, n_arm", [("ur5", 6), ("panda", 7)])
def test_load_real_robot(robot, n_arm):
    path = robot_file(robot)
    chain = load_urdf(path)
    kinds = [lk.joint.kind for lk in chain.links]
    assert kinds[:n_arm] == ["revolute"] * n_arm
    assert kinds[n_arm:] in ([], ["prismatic", "prismatic"])      # the Panda's two fingers, if present
    assert sum(lk.body.mass for lk in chain.links) == pytest.approx(hand_mass(path), rel=1e-12)

    from mbdlib.newton_euler import rnea
    rng = np.random.default_rng(1)
    q = rng.uniform(-1, 1, chain.n) * np.where(np.array(kinds) == "revolute", 1.0, 0.02)
    tau = rnea(chain, q, np.zeros(chain.n), np.zeros(chain.n), gravity=(0, 0, -9.81))
    assert np.all(np.isfinite(tau))
    np.testing.assert_allclose(tau, gravity_torque_by_potential(chain, q), atol=1e-6)
    tau = rnea(chain, q, rng.normal(size=chain.n), rng.normal(size=chain.n), gravity=(0, 0, -9.81))
    assert tau.shape == (chain.n,) and np.all(np.isfinite(tau))
