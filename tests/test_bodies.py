"""Tests of mbdlib.bodies against direct sums over point masses and exact integrals (sympy)."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from mbdlib.bodies import RigidBody, parallel_axis, rotate_inertia
from mbdlib.errors import ModelError, ShapeError

SETTINGS = settings(max_examples=40, deadline=None)


def point_inertia(masses, points, about):
    """Direct definition: I = sum m_k (|rho_k|^2 1 - rho_k rho_k^T), rho_k = p_k - about."""
    rho = points - about
    return sum(m * ((r @ r) * np.eye(3) - np.outer(r, r)) for m, r in zip(masses, rho, strict=True))


@st.composite
def clouds(draw):
    n = draw(st.integers(4, 8))
    masses = np.array(draw(st.lists(st.floats(0.1, 5.0), min_size=n, max_size=n)))
    pts = np.array(draw(st.lists(st.tuples(*[st.floats(-2, 2)] * 3), min_size=n, max_size=n)))
    return masses, pts


def cloud_body(masses, pts):
    m = masses.sum()
    com = masses @ pts / m
    return RigidBody(m, com, point_inertia(masses, pts, com), name="cloud", allow_degenerate=True)


# ----------------------------------------------------------------------------- parallel axis, rotation
@SETTINGS
@given(clouds(), st.tuples(*[st.floats(-3, 3)] * 3).map(np.array))
def test_parallel_axis_equals_direct_sum_over_point_masses(cloud, point):
    masses, pts = cloud
    body = cloud_body(masses, pts)
    direct = point_inertia(masses, pts, point)
    np.testing.assert_allclose(body.inertia_about(point), direct, atol=1e-9)
    np.testing.assert_allclose(parallel_axis(body.inertia, body.mass, body.com - point), direct, atol=1e-9)


@SETTINGS
@given(clouds(), st.tuples(*[st.floats(-1, 1)] * 4).filter(lambda q: np.linalg.norm(q) > 0.1))
def test_rotate_inertia_is_the_inertia_of_the_rotated_cloud(cloud, q):
    masses, pts = cloud
    A = Rotation.from_quat(q).as_matrix()
    body = cloud_body(masses, pts)
    rotated = point_inertia(masses, pts @ A.T, A @ body.com)  # points A rho_k
    np.testing.assert_allclose(body.inertia_in(A), rotated, atol=1e-9)
    np.testing.assert_allclose(np.linalg.eigvalsh(rotate_inertia(body.inertia, A)),
                               np.linalg.eigvalsh(body.inertia), atol=1e-9)


def test_rod_as_many_point_masses():
    m, L, n = 3.0, 2.0, 2000
    xs = (np.arange(n) + 0.5) * L / n  # midpoints of n equal segments along x
    pts = np.column_stack([xs, np.zeros(n), np.zeros(n)])
    rod = RigidBody.rod(m, L)
    masses = np.full(n, m / n)
    np.testing.assert_allclose(rod.com, [L / 2, 0, 0])
    # the midpoint sum is exact up to m L^2 / (12 n^2)
    np.testing.assert_allclose(rod.inertia, point_inertia(masses, pts, rod.com), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(rod.inertia_about([0, 0, 0]), point_inertia(masses, pts, np.zeros(3)),
                               rtol=1e-6, atol=1e-12)


def test_rotate_inertia_checks_the_rotation():
    with pytest.raises(Exception, match="reflection"):
        rotate_inertia(np.eye(3), np.diag([1.0, 1.0, -1.0]))


# ----------------------------------------------------------------------------- textbook bodies
m, a, b, c, r, h, L = sp.symbols("m a b c r h L", positive=True)
x, y, z, rho, th, ph = sp.symbols("x y z rho theta phi", real=True)


def exact_inertia(density, coords, bounds, jac):
    """The 3x3 central inertia by exact integration: I_ij = int dens (|p|^2 d_ij - p_i p_j) dV."""
    p = sp.Matrix(coords)
    integrand = density * jac * ((p.T * p)[0, 0] * sp.eye(3) - p * p.T)
    return integrand.applyfunc(lambda f: sp.simplify(sp.integrate(f, *bounds)))


def test_box_cylinder_sphere_rod_match_exact_integrals():
    # box: edges a, b, c centred at the origin
    dens = m / (a * b * c)
    box = exact_inertia(dens, [x, y, z], [(x, -a / 2, a / 2), (y, -b / 2, b / 2), (z, -c / 2, c / 2)], 1)
    assert sp.simplify(RigidBody.box(m, a, b, c).inertia - box) == sp.zeros(3)
    # cylinder along z: x = rho cos th, y = rho sin th
    dens = m / (sp.pi * r**2 * h)
    cyl = exact_inertia(dens, [rho * sp.cos(th), rho * sp.sin(th), z],
                        [(rho, 0, r), (th, 0, 2 * sp.pi), (z, -h / 2, h / 2)], rho)
    assert sp.simplify(RigidBody.cylinder(m, r, h).inertia - cyl) == sp.zeros(3)
    # sphere: spherical coordinates
    dens = m / (sp.Rational(4, 3) * sp.pi * r**3)
    p = [rho * sp.sin(ph) * sp.cos(th), rho * sp.sin(ph) * sp.sin(th), rho * sp.cos(ph)]
    sph = exact_inertia(dens, p, [(rho, 0, r), (ph, 0, sp.pi), (th, 0, 2 * sp.pi)], rho**2 * sp.sin(ph))
    assert sp.simplify(RigidBody.sphere(m, r).inertia - sph) == sp.zeros(3)
    # slender rod along x, from 0 to L: line density m / L, about its centre
    rod = exact_inertia(m / L, [x, 0, 0], [(x, -L / 2, L / 2)], 1)
    assert sp.simplify(RigidBody.rod(m, L).inertia - rod) == sp.zeros(3)
    assert RigidBody.rod(m, L).com.T == sp.Matrix([[L / 2, 0, 0]])


@pytest.mark.parametrize("axis, k", [("x", 0), ("y", 1), ("z", 2)])
def test_rod_and_cylinder_axis(axis, k):
    rod = RigidBody.rod(2.0, 3.0, axis=axis)
    assert rod.com[k] == 1.5 and rod.inertia[k, k] == 0.0
    cyl = RigidBody.cylinder(2.0, 0.5, 1.0, axis=axis)
    assert cyl.inertia[k, k] == pytest.approx(2.0 * 0.5**2 / 2)


def test_numeric_factories_equal_symbolic_ones():
    vals = {m: 2.5, a: 0.3, b: 0.4, c: 0.7, r: 0.2, h: 1.1, L: 0.9}
    pairs = [(RigidBody.box(m, a, b, c), RigidBody.box(2.5, 0.3, 0.4, 0.7)),
             (RigidBody.cylinder(m, r, h), RigidBody.cylinder(2.5, 0.2, 1.1)),
             (RigidBody.sphere(m, r), RigidBody.sphere(2.5, 0.2)),
             (RigidBody.rod(m, L), RigidBody.rod(2.5, 0.9))]
    for sym, num in pairs:
        np.testing.assert_allclose(np.array(sym.inertia.subs(vals), dtype=float), num.inertia, atol=1e-14)


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(mass=-1.0, inertia=[1, 1, 1]), "body 'arm' has negative mass"),
        (dict(mass=0.0, inertia=[1, 1, 1]), "body 'arm' has zero mass but a non-zero inertia"),
        (dict(mass=1.0, inertia=[[1, 0.2, 0], [0.3, 1, 0], [0, 0, 1]]),
         r"body 'arm' is not symmetric: I\[0,1\] = 0.2 but I\[1,0\] = 0.3"),
        (dict(mass=1.0, inertia=[[1, 0, 0], [0, 1, 0], [0, 0, -1]]),
         r"body 'arm' is not positive definite: eigenvalues .*\[-1"),
        (dict(mass=1.0, inertia=[1, 1, 3]),
         r"body 'arm' break the triangle inequality: I1 \+ I2 = 2 < I3 = 3"),
        (dict(mass=1.0, inertia=[0, 1, 1]),
         "body 'arm' is only positive semi-definite.*allow_degenerate=True"),
        (dict(mass=1.0), "only positive semi-definite"),  # a point mass needs the flag
        (dict(mass=np.nan, inertia=[1, 1, 1]), "body 'arm': mass and inertia must be finite"),
    ],
)
def test_invalid_bodies_are_rejected(kwargs, match):
    with pytest.raises(ModelError, match=match):
        RigidBody(name="arm", **kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(mass=1.0, com=[0, 0]), "com of body 'arm' must have 3 components"),
        (dict(mass=1.0, inertia=np.eye(2)), "inertia of body 'arm'.*3x3"),
        (dict(mass="heavy"), "mass of body 'arm' must be a number"),
        (dict(mass=[1.0]), "mass of body 'arm' must be a number"),
    ],
)
def test_badly_shaped_bodies_are_rejected(kwargs, match):
    with pytest.raises(ShapeError, match=match):
        RigidBody(name="arm", **kwargs)


def test_allowed_degenerate_cases():
    rod = RigidBody(1.0, inertia=[0, 1, 1], name="rod", allow_degenerate=True)
    assert rod.inertia[0, 0] == 0
    RigidBody(1.0, name="point", allow_degenerate=True)
    virtual = RigidBody(0.0, name="cross")  # massless virtual link: zero inertia
    assert virtual.mass == 0.0
    RigidBody(1.0, inertia=[1, 1, 2])  # a thin disc: I1 + I2 = I3 exactly


def test_factories_reject_bad_dimensions():
    with pytest.raises(ModelError, match="body 'box': b must be > 0"):
        RigidBody.box(1.0, 1.0, -2.0, 1.0)
    with pytest.raises(ModelError, match="radius must be > 0"):
        RigidBody.sphere(1.0, 0.0)
    with pytest.raises(ModelError, match="negative mass"):
        RigidBody.rod(-1.0, 1.0)
    with pytest.raises(ShapeError, match="axis must be 'x', 'y' or 'z'"):
        RigidBody.rod(1.0, 1.0, axis="w")


def test_symbolic_inertia_checks_structure_only():
    I1, I2, I3, Ixy = sp.symbols("I1 I2 I3 I_xy")
    body = RigidBody(m, inertia=sp.Matrix([[I1, -Ixy, 0], [-Ixy, I2, 0], [0, 0, I3]]), name="sym")
    assert isinstance(body.inertia, sp.MatrixBase)
    with pytest.raises(ModelError, match="inertia of body 'sym' is not symmetric"):
        RigidBody(m, inertia=sp.Matrix([[I1, Ixy, 0], [0, I2, 0], [0, 0, I3]]), name="sym")
    assert body.inertia_about([0, 0, 0]) == body.inertia  # com at the origin


def test_body_is_immutable_and_readable():
    body = RigidBody.box(12.0, 1.0, 2.0, 3.0, name="crate")
    with pytest.raises(AttributeError, match="immutable"):
        body.mass = 3.0
    with pytest.raises(ValueError, match="read-only"):
        body.inertia[0, 0] = 1.0
    assert repr(body) == "RigidBody(name='crate', mass=12, com=[0, 0, 0], inertia=diag[13, 10, 5])"
