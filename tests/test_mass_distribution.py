"""Mass distribution: principal axes (mbdlib.bodies.principal_axes) and composite bodies (combine).

Independent references: the inertia of an L-shaped body and of a body with a hole by exact sympy
integration over its volume (the definition I = ∫ (r·r 1 − r rᵀ) dm, not the parallel-axis theorem);
a cloud of point masses summed directly; for principal axes, the defining properties (Aᵀ I A diagonal,
a rotation, moments ascending) for any symmetric matrix (hypothesis), and the extremal property: the
moment about any axis n, nᵀ I n, lies between the smallest and the largest principal moment.
"""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mbdlib import RigidBody, combine, dcm_from_euler, principal_axes, rotate_inertia
from mbdlib.errors import ModelError, RotationError, ShapeError

angles = st.tuples(*[st.floats(-np.pi, np.pi, allow_nan=False)] * 3).map(np.array)
moments = st.tuples(*[st.floats(0.01, 10.0)] * 3).map(np.array)


@settings(max_examples=80, deadline=None)
@given(moments, angles)
def test_principal_axes_diagonalize_any_inertia(I_diag, euler):
    R = dcm_from_euler("ZYX", euler)
    I = R @ np.diag(I_diag) @ R.T
    m, A = principal_axes(I)
    np.testing.assert_allclose(m, np.sort(I_diag), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(A.T @ A, np.eye(3), atol=1e-12)
    assert np.isclose(np.linalg.det(A), 1.0)
    np.testing.assert_allclose(A.T @ I @ A, np.diag(m), atol=1e-9 * I_diag.max())
    np.testing.assert_allclose(A @ np.diag(m) @ A.T, I, atol=1e-9 * I_diag.max())


@settings(max_examples=60, deadline=None)
@given(moments, angles, st.tuples(*[st.floats(-1, 1)] * 3))
def test_moment_about_any_axis_lies_between_the_extreme_principal_moments(I_diag, euler, n):
    n = np.array(n)
    if np.linalg.norm(n) < 1e-3:
        n = np.array([1.0, 0.0, 0.0])
    n = n / np.linalg.norm(n)
    I = rotate_inertia(np.diag(I_diag), dcm_from_euler("ZYX", euler))
    m, _ = principal_axes(I)
    assert m[0] * (1 - 1e-9) <= n @ I @ n <= m[2] * (1 + 1e-9)


def test_principal_axes_sign_convention_and_a_body_of_revolution():
    _, A = principal_axes(np.diag([3.0, 1.0, 2.0]))
    np.testing.assert_allclose(A, [[0, 0, 1], [1, 0, 0], [0, 1, 0]], atol=1e-12)   # columns y, z, x
    m, A = principal_axes(np.diag([2.0, 2.0, 1.0]))                                 # a cylinder
    np.testing.assert_allclose(A[:, 0], [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(m, [1, 2, 2])


def test_principal_axes_errors():
    with pytest.raises(ModelError, match="not symmetric"):
        principal_axes([[1, 0.5, 0], [0, 1, 0], [0, 0, 1]])
    with pytest.raises(ModelError, match="symbolic"):
        principal_axes(sp.diag(*sp.symbols("a b c")))
    with pytest.raises(ShapeError):
        principal_axes(np.eye(2))
    with pytest.raises(ShapeError, match="finite"):
        principal_axes(np.diag([1.0, np.nan, 1.0]))


def _inertia_by_integration(boxes, about):
    """∫ (r·r 1 − r rᵀ) ρ dV over boxes [(x0, x1, y0, y1, z0, z1, density)], r from ``about`` (exact)."""
    x, y, z = sp.symbols("x y z", real=True)
    total, mass, first = sp.zeros(3, 3), 0, sp.zeros(3, 1)
    for x0, x1, y0, y1, z0, z1, rho in boxes:
        lim = ((x, x0, x1), (y, y0, y1), (z, z0, z1))
        r = sp.Matrix([x, y, z]) - sp.Matrix(about)
        total += (rho * (r.dot(r) * sp.eye(3) - r * r.T)).applyfunc(lambda f, lim=lim: sp.integrate(f, *lim))
        mass += sp.integrate(rho, *lim)
        first += sp.Matrix([sp.integrate(rho * c, *lim) for c in (x, y, z)])
    return float(mass), np.array(first / mass, dtype=float).ravel(), np.array(total, dtype=float)


def test_combine_an_l_shaped_bracket_equals_integration_over_its_volume():
    R = sp.Rational
    # two plates of steel-like density: a 0.4 x 0.05 x 0.1 m leg along x and a 0.05 x 0.3 x 0.1 m leg along y
    rho = 7800
    boxes = [(0, R(2, 5), 0, R(1, 20), 0, R(1, 10), rho), (0, R(1, 20), R(1, 20), R(7, 20), 0, R(1, 10), rho)]
    m_exact, c_exact, _ = _inertia_by_integration(boxes, (0, 0, 0))
    _, _, I_exact = _inertia_by_integration(boxes, tuple(sp.nsimplify(c) for c in c_exact))
    legs = []
    for x0, x1, y0, y1, z0, z1, _ in boxes:
        a, b, c = (float(v) for v in (x1 - x0, y1 - y0, z1 - z0))
        legs.append((RigidBody.box(rho * a * b * c, a, b, c), [float(x0 + x1) / 2, float(y0 + y1) / 2,
                                                              float(z0 + z1) / 2]))
    bracket = combine(legs, name="bracket")
    assert bracket.mass == pytest.approx(m_exact, rel=1e-12)
    np.testing.assert_allclose(bracket.com, c_exact, atol=1e-12)
    np.testing.assert_allclose(bracket.inertia, I_exact, atol=1e-9 * np.abs(I_exact).max())
    assert abs(bracket.inertia[0, 1]) > 0.01 * bracket.inertia[0, 0]     # a product of inertia: not principal


def test_combine_with_turned_parts_and_a_point_cloud():
    rng = np.random.default_rng(3)
    points = rng.normal(size=(5, 3))
    masses = rng.uniform(0.5, 2.0, 5)
    dot = RigidBody(1.0, name="dot", allow_degenerate=True)
    parts = [(RigidBody(m, name="p", allow_degenerate=True), r) for m, r in zip(masses, points, strict=True)]
    cloud = combine(parts, name="cloud")
    c = masses @ points / masses.sum()
    d = points - c
    I = sum(m * (r @ r * np.eye(3) - np.outer(r, r)) for m, r in zip(masses, d, strict=True))  # by definition
    np.testing.assert_allclose(cloud.com, c, atol=1e-12)
    np.testing.assert_allclose(cloud.inertia, I, atol=1e-12)
    # a turned part: a rod along its own x, turned to lie along y, moved to (1, 0, 0)
    rod = RigidBody.rod(3.0, 2.0)                                      # com at (1, 0, 0) of its frame
    A = dcm_from_euler("ZYX", [np.pi / 2, 0, 0])
    both = combine([(rod, (1.0, 0.0, 0.0), A), dot], allow_degenerate=True)
    np.testing.assert_allclose(both.com, (np.array([1.0, 1.0, 0.0]) * 3 + 0) / 4, atol=1e-12)


def test_combine_errors():
    box = RigidBody.box(1.0, 1.0, 1.0, 1.0)
    with pytest.raises(ModelError, match="no parts"):
        combine([])
    with pytest.raises(ShapeError, match="part 1"):
        combine([box, ("box", (0, 0, 0))])
    with pytest.raises(ShapeError):
        combine(box)
    with pytest.raises(RotationError):
        combine([(box, (0, 0, 0), 2 * np.eye(3))])
    with pytest.raises(ModelError, match="symbolic"):
        combine([RigidBody(sp.Symbol("m"), inertia=[1, 1, 1])])
    massless = RigidBody(0.0, name="virtual")
    with pytest.raises(ModelError, match="no mass"):
        combine([massless])
