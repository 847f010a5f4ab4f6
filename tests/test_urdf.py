"""Tests of mbdlib.urdf: the course robot files and the loader.

* the UR5 file against an independent Denavit-Hartenberg computation (the published UR5
  parameters, standard DH matrices) at q = 0 and at random q: joint positions and axes,
  flange pose, centres of mass;
* masses against hand sums, inertias against the cylinder / box formulas;
* merged fixed links (mass, centre of mass, inertia) against a hand computation;
* the URDF conventions (rpy, default axis, inertial frame) against scipy;
* bad files raise ModelError naming the element.
"""

import textwrap

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from mbdlib.dynamics import mass_matrix
from mbdlib.errors import ModelError
from mbdlib.kinematics import forward_kinematics, point_position
from mbdlib.urdf import course_robots, data_path, load_urdf, rpy_to_dcm

# --------------------------------------------------------------------------- UR5 vs DH
# Universal Robots' published UR5 DH parameters (CB3 manual, UR5 series 3).
UR5_D = [0.089159, 0, 0, 0.10915, 0.09465, 0.0823]
UR5_A = [0, -0.425, -0.39225, 0, 0, 0]
UR5_ALPHA = [np.pi / 2, 0, 0, np.pi / 2, -np.pi / 2, 0]
UR5_MASS = [3.7, 8.393, 2.275, 1.219, 1.219, 0.1879]
UR5_COM_DH = [(0, -0.02561, 0.00193), (0.2125, 0, 0.11336), (0.15, 0, 0.0265),
              (0, -0.0018, 0.01634), (0, 0.0018, 0.01634), (0, 0, -0.001159)]


def dh_frames(q):
    """T_0^i, i = 0..6, by the standard DH product T = Rz(θ) Tz(d) Tx(a) Rx(α)."""
    frames = [np.eye(4)]
    for theta, d, a, alpha in zip(q, UR5_D, UR5_A, UR5_ALPHA, strict=True):
        ct, st_, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
        T = np.array([[ct, -st_ * ca, st_ * sa, a * ct],
                      [st_, ct * ca, -ct * sa, a * st_],
                      [0, sa, ca, d],
                      [0, 0, 0, 1]])
        frames.append(frames[-1] @ T)
    return frames


@pytest.fixture(scope="module")
def ur5():
    return load_urdf(data_path("ur5"))


def test_ur5_structure_and_masses(ur5):
    assert ur5.n == 6
    assert ur5.joint_names == ["shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint",
                               "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"]
    assert ur5.parents == [-1, 0, 1, 2, 3, 4]
    assert [lk.joint.kind for lk in ur5.links] == ["revolute"] * 6
    masses = [lk.body.mass for lk in ur5.links]
    np.testing.assert_allclose(masses, UR5_MASS)
    assert sum(masses) == pytest.approx(3.7 + 8.393 + 2.275 + 2 * 1.219 + 0.1879)


def test_ur5_zero_pose_flange():
    """At q = 0 the flange is at (a2 + a3, -(d4 + d6), d1 - d5) (UR5 zero pose)."""
    chain = load_urdf(data_path("ur5"))
    flange = point_position(chain, np.zeros(6), 5, point=(0, 0, 0.0823))
    np.testing.assert_allclose(flange, [-0.425 - 0.39225, -(0.10915 + 0.0823), 0.089159 - 0.09465],
                               atol=1e-12)
    np.testing.assert_allclose(dh_frames(np.zeros(6))[6][:3, 3], flange, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ur5_frames_match_dh(ur5, seed):
    q = np.zeros(6) if seed == 0 else np.random.default_rng(seed).uniform(-np.pi, np.pi, 6)
    T = dh_frames(q)
    kin = forward_kinematics(ur5, q)
    for i in range(6):  # joint i+1 turns about z of DH frame i, through its origin
        np.testing.assert_allclose(kin.r[i], T[i][:3, 3], atol=1e-12)
        np.testing.assert_allclose(kin.A[i] @ ur5.links[i].joint.axis, T[i][:3, 2], atol=1e-12)
        # published centre of mass of link i+1 (DH frame i+1) vs the file's link-frame value
        com_dh = T[i + 1][:3, :3] @ UR5_COM_DH[i] + T[i + 1][:3, 3]
        np.testing.assert_allclose(kin.r_c(i), com_dh, atol=1e-12)
    np.testing.assert_allclose(kin.A[5], T[6][:3, :3], atol=1e-12)  # flange orientation


def test_ur5_inertias_are_the_cylinders(ur5):
    """Links 2, 3: cylinders along the arm (x), turned there by the inertial rpy."""
    for i, (m, r, h) in {1: (8.393, 0.06, 0.56), 2: (2.275, 0.06, 0.5)}.items():
        axial, transverse = m * r**2 / 2, m * (3 * r**2 + h**2) / 12
        np.testing.assert_allclose(ur5.links[i].body.inertia, np.diag([axial, transverse, transverse]),
                                   rtol=1e-9, atol=1e-15)
    m, r, h = 3.7, 0.06, 0.15
    np.testing.assert_allclose(ur5.links[0].body.inertia.diagonal(),
                               [m * (3 * r**2 + h**2) / 12] * 2 + [m * r**2 / 2], rtol=1e-9)


# --------------------------------------------------------------------------- other course files
def test_course_files_load():
    assert {"ur5.urdf", "double_pendulum.urdf", "three_link_arm.urdf"} <= set(course_robots())
    for name in course_robots():
        chain = load_urdf(data_path(name))
        assert chain.n >= 2 and all(lk.body.mass > 0 for lk in chain.links)


def test_double_pendulum_kinematics_and_mass_matrix():
    chain = load_urdf(data_path("double_pendulum"))
    assert chain.joint_names == ["shoulder", "elbow"] and chain.name == "double_pendulum"
    q = np.array([0.4, -1.1])
    kin = forward_kinematics(chain, q)
    s1, c1, s12, c12 = np.sin(q[0]), np.cos(q[0]), np.sin(q.sum()), np.cos(q.sum())
    np.testing.assert_allclose(kin.r_c(1), [-s1 - 0.5 * s12, 0, -c1 - 0.5 * c12], atol=1e-12)
    # M of a double pendulum (Spong et al. 2006, §7.3) with l1 = 1, lc = 0.5, m = 1, I = I_yy
    I = (3 * 0.02**2 + 1.0) / 12
    d12 = 0.25 + 0.5 * np.cos(q[1]) + I
    expected = [[2 * I + 0.25 + 1 + 0.25 + np.cos(q[1]), d12], [d12, 0.25 + I]]
    np.testing.assert_allclose(mass_matrix(chain, q), expected, rtol=1e-9)


def test_three_link_arm_merges_the_gripper():
    """forearm (1.5 kg cylinder) + gripper (0.5 kg box, rolled 90° about x) + massless tcp."""
    chain = load_urdf(data_path("three_link_arm"))
    assert chain.joint_names == ["waist", "shoulder", "elbow"]
    assert chain.link_names == ["column", "upper_arm", "forearm"]
    assert sum(lk.body.mass for lk in chain.links) == pytest.approx(4.0 + 2.0 + 1.5 + 0.5)  # ground ignored
    body = chain.links[2].body
    # by hand: centres on the forearm axis at x = 0.15 and 0.3 + 0.03
    m_f, m_g, x_f, x_g = 1.5, 0.5, 0.15, 0.33
    x_c = (m_f * x_f + m_g * x_g) / (m_f + m_g)
    assert body.mass == pytest.approx(2.0)
    np.testing.assert_allclose(body.com, [x_c, 0, 0], atol=1e-15)
    r, L = 0.025, 0.3
    cyl = np.diag([m_f * r**2 / 2] + [m_f * (3 * r**2 + L**2) / 12] * 2)
    a, b, c = 0.06, 0.1, 0.04
    box = m_g / 12 * np.diag([b**2 + c**2, a**2 + c**2, a**2 + b**2])
    box_in_forearm = box[[0, 2, 1]][:, [0, 2, 1]]   # a roll of 90° swaps the y and z moments
    shift = np.diag([0, 1, 1]) * (m_f * (x_f - x_c) ** 2 + m_g * (x_g - x_c) ** 2)  # offsets along x
    np.testing.assert_allclose(body.inertia, cyl + box_in_forearm + shift, rtol=1e-9, atol=1e-15)


# --------------------------------------------------------------------------- conventions
def urdf(body: str, name: str = "t") -> str:
    return f'<robot name="{name}">{textwrap.dedent(body)}</robot>'


def link(name, mass=1.0, xyz="0 0 0", rpy="0 0 0", inertia="0.1 0 0 0.2 0 0.3"):
    ixx, ixy, ixz, iyy, iyz, izz = inertia.split()
    return (f'<link name="{name}"><inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{mass}"/>'
            f'<inertia ixx="{ixx}" ixy="{ixy}" ixz="{ixz}" iyy="{iyy}" iyz="{iyz}" izz="{izz}"/>'
            "</inertial></link>")


def joint(name, parent, child, kind="revolute", xyz="0 0 0", rpy="0 0 0", axis="0 0 1"):
    ax = "" if axis is None else f'<axis xyz="{axis}"/>'
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}" rpy="{rpy}"/>{ax}</joint>')


def test_rpy_is_fixed_axis_xyz():
    rpy = [0.3, -0.7, 1.9]
    np.testing.assert_allclose(rpy_to_dcm(rpy), Rotation.from_euler("xyz", rpy).as_matrix(), atol=1e-14)


def test_joint_origin_rpy_axis_default_and_continuous():
    xml = urdf(link("base") + link("a") + joint("j", "base", "a", "continuous", "1 2 3", "0.1 0.2 0.3", None))
    j = load_urdf(xml).links[0].joint
    assert j.kind == "revolute"
    np.testing.assert_allclose(j.axis, [1, 0, 0])          # URDF default axis
    np.testing.assert_allclose(j.origin, [1, 2, 3])
    R = Rotation.from_euler("xyz", [0.1, 0.2, 0.3]).as_matrix()
    np.testing.assert_allclose(j.rotation, R, atol=1e-14)


def test_inertial_frame_is_turned_into_the_link_frame():
    rpy, I_in = [0.4, 0.1, -0.8], np.array([[0.2, 0.01, 0.0], [0.01, 0.25, 0.02], [0.0, 0.02, 0.3]])
    xml = urdf(link("base") + link("a", 2.0, "0.1 0 -0.2", " ".join(map(str, rpy)),
                                   "0.2 0.01 0 0.25 0.02 0.3") + joint("j", "base", "a"))
    body = load_urdf(xml).links[0].body
    R = Rotation.from_euler("xyz", rpy).as_matrix()
    np.testing.assert_allclose(body.com, [0.1, 0, -0.2])
    np.testing.assert_allclose(body.inertia, R @ I_in @ R.T, atol=1e-15)


def test_fixed_joint_between_moving_joints_composes_the_transforms():
    """base -(fixed xyz1 rpy1)-> mid -(revolute xyz2 rpy2)-> tip: joint at xyz1 + R1 xyz2."""
    xyz1, rpy1, xyz2, rpy2 = [0.2, 0, 0.5], [0, 0.3, 0.2], [0.1, -0.4, 0.3], [0.5, 0, -0.2]
    s = " ".join
    xml = urdf(link("base") + link("mid") + link("tip")
               + joint("f", "base", "mid", "fixed", s(map(str, xyz1)), s(map(str, rpy1)))
               + joint("j", "mid", "tip", "revolute", s(map(str, xyz2)), s(map(str, rpy2)), "0 1 1"))
    chain = load_urdf(xml)
    assert chain.n == 1 and chain.link_names == ["tip"]
    R1, R2 = (Rotation.from_euler("xyz", a).as_matrix() for a in (rpy1, rpy2))
    kin = forward_kinematics(chain, [0.7])
    np.testing.assert_allclose(kin.r[0], np.array(xyz1) + R1 @ xyz2, atol=1e-14)
    spin = Rotation.from_rotvec(0.7 * np.array([0, 1, 1]) / np.sqrt(2)).as_matrix()
    np.testing.assert_allclose(kin.A[0], R1 @ R2 @ spin, atol=1e-14)


def test_tree_order_parents_before_children():
    """Joints listed child-first in the file still give parents before children."""
    xml = urdf(link("base") + link("a") + link("b") + link("c")
               + joint("jc", "a", "c", "prismatic") + joint("ja", "base", "a") + joint("jb", "base", "b"))
    chain = load_urdf(xml)
    assert chain.link_names == ["a", "c", "b"] and chain.parents == [-1, 0, -1]
    assert chain.links[1].joint.kind == "prismatic"


def test_massless_intermediate_link_is_fine():
    xml = urdf('<link name="base"/><link name="cross"/>' + link("fork")
               + joint("j1", "base", "cross", axis="1 0 0") + joint("j2", "cross", "fork", axis="0 1 0"))
    chain = load_urdf(xml)
    assert chain.links[0].body.mass == 0 and chain.links[1].body.mass == 1.0


def test_from_path():
    path = data_path("double_pendulum.urdf")
    assert load_urdf(str(path)).n == load_urdf(path).n == 2
    assert load_urdf(path, name="dp").name == "dp"
    assert load_urdf(path).joint_names == ["shoulder", "elbow"]


# --------------------------------------------------------------------------- bad files
BASE_A = link("base") + link("a")


@pytest.mark.parametrize("xml, match", [
    (urdf(BASE_A + link("b") + joint("j1", "base", "a") + joint("j2", "b", "a") + joint("j3", "base", "b")),
     r"link 'a' is the child of two joints \('j1' and 'j2'\).*closed loop"),
    (urdf(BASE_A + joint("j", "base", "a", "floating")), r"joint 'j': type 'floating' is not supported"),
    (urdf(BASE_A + joint("j", "base", "a", "planar")), r"joint 'j': type 'planar' is not supported"),
    (urdf(BASE_A + joint("j", "base", "a", "ball")), r"joint 'j': unknown type 'ball'"),
    (urdf(link("base") + '<link name="a"><inertial><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" '
          'izz="1"/></inertial></link>' + joint("j", "base", "a")), r"link 'a': <inertial> has no <mass"),
    (urdf(link("base") + '<link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" '
          'iyy="1"/></inertial></link>' + joint("j", "base", "a")), r"link 'a'.*lacks.*\['iyz', 'izz'\]"),
    (urdf(BASE_A + joint("j", "base", "a", xyz="0 0 x")), r"joint 'j': <origin> xyz='0 0 x' is not 3"),
    (urdf(BASE_A + joint("j", "base", "a", xyz="0 0")), r"joint 'j': <origin> xyz='0 0' is not 3"),
    (urdf(BASE_A + joint("j", "base", "a", axis="0 0 nan")), r"joint 'j': <axis> xyz"),
    (urdf(link("base") + link("a", mass="heavy") + joint("j", "base", "a")),
     r"link 'a'.*<mass> value='heavy'"),
    (urdf(BASE_A + joint("j", "ground", "a")), r"joint 'j': parent link 'ground' is not a <link>"),
    (urdf(BASE_A + joint("j", "base", "arm")), r"joint 'j': child link 'arm' is not a <link>"),
    (urdf(BASE_A + link("b") + joint("j", "base", "a")), r"2 root links \['base', 'b'\]"),
    (urdf(BASE_A + joint("j1", "base", "a") + joint("j2", "a", "base")), r"child of two joints|no root"),
    (urdf(BASE_A + joint("j1", "base", "a") + joint("j1", "a", "base", "fixed")), r"child of two|twice"),
    (urdf(BASE_A + link("b") + link("c") + joint("j", "base", "a") + joint("k", "b", "c")
          + joint("m", "c", "b")), r"child of two joints|closed loop"),
    (urdf(link("base") + link("a") + link("a") + joint("j", "base", "a")), r"link 'a' is defined twice"),
    (urdf('<link name="base"/><link name="a"/>' + joint("j", "base", "a")),
     r"joint 'j' moves only massless links"),
    (urdf(BASE_A + joint("j", "base", "a", axis="0 0 0")), r"joint 'j'.*axis.*zero"),
    (urdf(link("base") + link("a", inertia="1 0 0 1 0 5") + joint("j", "base", "a")),
     r"link 'a': <inertial>.*triangle inequality"),
    ("<robot><link name='a'>", r"not well-formed XML"),
    ("<model name='x'/>", r"top element is <model>, expected <robot>"),
    ('<robot xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:property name="a" value="1"/></robot>',
     r"xacro"),
])
def test_bad_files_name_the_element(xml, match):
    with pytest.raises(ModelError, match=match):
        load_urdf(xml)


def test_bad_paths():
    with pytest.raises(ModelError, match=r"does not exist"):
        load_urdf("/no/such/robot.urdf")
    with pytest.raises(ModelError, match=r"no robot file 'r2d2.urdf'.*ur5.urdf"):
        data_path("r2d2")
    with pytest.raises(ModelError, match=r"file path or an XML string, got int"):
        load_urdf(42)
