"""Tests of mbdlib.chain: joints, chains/trees, builders, and their validation."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from mbdlib.bodies import RigidBody
from mbdlib.chain import Chain, Joint, Link
from mbdlib.errors import ModelError, RotationError, ShapeError

finite = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)
vec3 = st.tuples(finite, finite, finite)
axes = vec3.filter(lambda v: np.linalg.norm(v) > 0.1)


def rod(name="rod"):
    return RigidBody.rod(1.0, 1.0, name=name)


# ------------------------------------------------------------------ Joint
@settings(max_examples=40, deadline=None)
@given(axis=axes, origin=vec3, rotvec=vec3, q=finite)
def test_revolute_transform_matches_scipy(axis, origin, rotvec, q):
    # Independent: rotation @ Rot(axis, q), with Rot from scipy's rotation vector.
    rotation = Rotation.from_rotvec(rotvec).as_matrix()
    A, p = Joint("j", "revolute", axis, origin, rotation).transform(q)
    u = np.asarray(axis) / np.linalg.norm(axis)
    expected = rotation @ Rotation.from_rotvec(u * q).as_matrix()
    np.testing.assert_allclose(A, expected, atol=1e-12)
    np.testing.assert_allclose(p, origin, atol=0)


@settings(max_examples=40, deadline=None)
@given(axis=axes, origin=vec3, rotvec=vec3, q=finite)
def test_prismatic_transform_slides_along_the_axis(axis, origin, rotvec, q):
    rotation = Rotation.from_rotvec(rotvec).as_matrix()
    A, p = Joint("j", "prismatic", axis, origin, rotation).transform(q)
    np.testing.assert_allclose(A, rotation, atol=0)
    # the child origin moved by q along the axis, the axis being given in child components
    u = np.asarray(axis) / np.linalg.norm(axis)
    np.testing.assert_allclose(np.linalg.norm(p - origin), abs(q), atol=1e-12)
    np.testing.assert_allclose(p - np.asarray(origin), q * (rotation @ u), atol=1e-12)


def test_axis_is_normalised_and_elementary_axes_give_clean_formulas():
    j = Joint("j", axis=(0, 3, 4))
    np.testing.assert_allclose(j.axis, [0, 0.6, 0.8])
    q = sp.Symbol("q")
    A, _ = Joint("z", axis=(0, 0, 1)).transform(q)
    assert A == sp.Matrix([[sp.cos(q), -sp.sin(q), 0], [sp.sin(q), sp.cos(q), 0], [0, 0, 1]])


def test_symbolic_joint_parameters():
    a, q = sp.symbols("a q")
    A, p = Joint("j", "prismatic", axis=(1, 0, 0), origin=(a, 0, 0)).transform(q)
    assert p == sp.Matrix([a + q, 0, 0])
    assert A == sp.eye(3)


def test_joint_bad_input():
    with pytest.raises(ModelError, match=r"joint 'hinge': unknown kind 'ball'"):
        Joint("hinge", kind="ball")
    with pytest.raises(ModelError, match=r"joint 'hinge': the axis .* is zero"):
        Joint("hinge", axis=(0, 0, 0))
    with pytest.raises(ShapeError, match=r"axis of joint 'hinge' must have 3 components"):
        Joint("hinge", axis=(0, 1))
    with pytest.raises(ShapeError, match=r"origin of joint 'hinge'"):
        Joint("hinge", origin=(0, 1, 2, 3))
    with pytest.raises(RotationError, match=r"rotation of joint 'hinge' has det = -1"):
        Joint("hinge", rotation=np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(RotationError, match=r"rotation of joint 'hinge' is not orthonormal"):
        Joint("hinge", rotation=2 * np.eye(3))
    with pytest.raises(ModelError, match=r"joint 'hinge': the axis is zero"):
        Joint("hinge", axis=sp.Matrix([0, 0, 0]) * sp.Symbol("a"))


# ------------------------------------------------------------------ Chain
def test_serial_chain_by_default_and_queries():
    c = Chain(name="arm")
    assert c.add_link("a", Joint("ja"), rod("a")) == 0
    assert c.add_link("b", Joint("jb", origin=(1, 0, 0)), rod("b")) == 1
    assert c.add_link("c", Joint("jc", "prismatic", axis=(1, 0, 0)), rod("c")) == 2
    assert c.parents == [-1, 0, 1]
    assert len(c) == c.n == 3
    assert c.joint_names == ["ja", "jb", "jc"]
    assert c.link_names == ["a", "b", "c"]
    assert c.index("b") == 1 and c.index(-1) == 2
    assert c.ancestors("c") == [0, 1]
    assert repr(c) == "Chain('arm', n=3: a <- base, b <- a, c <- b)"
    assert "jc' (prismatic)" in str(c)
    assert all(isinstance(link, Link) for link in c.links)
    # the chain can be rebuilt from its links
    assert Chain(c.links, name="copy").parents == c.parents


def test_tree_by_parent_index_or_name():
    c = Chain(name="tree")
    c.add_link("trunk", Joint("j0"), rod())
    c.add_link("left", Joint("j1", origin=(1, 0, 0)), rod(), parent="trunk")
    c.add_link("right", Joint("j2", origin=(1, 0, 0)), rod(), parent=0)
    c.add_link("leaf", Joint("j3"), rod(), parent="base")
    assert c.parents == [-1, 0, 0, -1]
    assert c.ancestors("right") == [0]


def test_chain_bad_input():
    c = Chain(name="arm")
    c.add_link("a", Joint("ja"), rod())
    with pytest.raises(ModelError, match=r"link 'b': parent index 3 does not exist yet .*add the parent"):
        c.add_link("b", Joint("jb"), rod(), parent=3)
    with pytest.raises(ModelError, match=r"link 'b': parent 'nope' is not a link"):
        c.add_link("b", Joint("jb"), rod(), parent="nope")
    with pytest.raises(ModelError, match=r"a link named 'a' already exists"):
        c.add_link("a", Joint("jb"), rod())
    with pytest.raises(ModelError, match=r"a joint named 'ja' already exists"):
        c.add_link("b", Joint("ja"), rod())
    with pytest.raises(ModelError, match=r"link 'b': body must be a RigidBody"):
        c.add_link("b", Joint("jb"), body=1.0)
    with pytest.raises(ModelError, match=r"link 'b': joint must be a Joint"):
        c.add_link("b", "revolute", rod())
    with pytest.raises(ModelError, match=r"chain 'arm' has no link 'zz'"):
        c.index("zz")
    with pytest.raises(ModelError, match=r"link 5 is not an index"):
        c.index(5)
    with pytest.raises(ModelError, match=r"expected Link objects"):
        Chain([1, 2])
    # a failed add leaves the chain unchanged
    assert c.n == 1


# ------------------------------------------------------------------ builders
def test_planar_builder_uniform_rods():
    c = Chain.planar([2.0, 1.0], masses=[3.0, 6.0])
    assert c.n == 2 and c.name == "planar arm"
    b0, b1 = (link.body for link in c.links)
    np.testing.assert_allclose(b0.com, [1.0, 0, 0])
    np.testing.assert_allclose(b1.com, [0.5, 0, 0])
    # uniform rod about its centre: m L^2 / 12 (Meriam & Kraige, table D/4)
    assert b0.inertia[2, 2] == pytest.approx(3.0 * 4.0 / 12)
    assert b1.inertia[2, 2] == pytest.approx(6.0 * 1.0 / 12)
    np.testing.assert_allclose(c.links[0].joint.origin, 0)
    np.testing.assert_allclose(c.links[1].joint.origin, [2.0, 0, 0])
    assert all(np.allclose(link.joint.axis, [0, 0, 1]) for link in c.links)


def test_planar_builder_given_inertias_and_symbols():
    L1, L2, m1, m2, I1, I2 = sp.symbols("L1 L2 m1 m2 I1 I2", positive=True)
    c = Chain.planar([L1, L2], [m1, m2], [I1, I2])
    assert c.is_symbolic
    assert c.links[1].body.inertia[2, 2] == I2
    assert c.links[1].body.com == sp.Matrix([L2 / 2, 0, 0])
    assert Chain.planar([1.0, 1.0], inertias=[0.5, 0.25]).links[1].body.inertia[2, 2] == 0.25
    with pytest.raises(ModelError, match=r"Chain.planar: got 2 lengths, 3 masses; give one per link"):
        Chain.planar([1, 1], masses=[1, 1, 1])


def test_spatial_arm_example():
    c = Chain.spatial_arm_example()
    assert c.n == 4
    assert [link.joint.kind for link in c.links] == ["revolute"] * 3 + ["prismatic"]
    assert not c.is_symbolic
