"""The numeric/symbolic helpers agree with numpy and sympy."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mbdlib import _backend as bk
from mbdlib.errors import ShapeError

vec3 = arrays(np.float64, 3, elements=st.floats(-1e3, 1e3))


@given(vec3, vec3)
def test_cross_matches_numpy(a, b):
    np.testing.assert_allclose(bk.cross(a, b), np.cross(a, b), rtol=1e-12, atol=1e-9)


def test_cross_symbolic_equals_numeric():
    x, y = sp.symbols("x y")
    a, b = sp.Matrix([x, 1, y]), np.array([2.0, -1.0, 0.5])
    sym = bk.cross(a, b)
    assert sym.shape == (3, 1)
    num = np.array(sym.subs({x: 0.3, y: -1.2}), dtype=float).ravel()
    np.testing.assert_allclose(num, np.cross([0.3, 1, -1.2], b), rtol=1e-14)


def test_dot_and_shapes():
    assert bk.dot([1, 2, 3], [4, 5, 6]) == 32.0
    assert bk.is_symbolic(np.array([sp.Symbol("q"), 1], dtype=object))
    with pytest.raises(ShapeError, match="axis must have 3 components"):
        bk.vector([1, 2], name="axis")
    with pytest.raises(ShapeError, match="A must be a 3x3 matrix"):
        bk.matrix(np.eye(2), name="A")


@given(vec3, vec3, vec3)
def test_constructors_give_the_same_numbers_in_both_systems(a, b, c):
    """stack, column_stack, as_backend and unit: the sympy result, evaluated, is the numpy result."""
    for symbolic_result, numeric_result in [
        (bk.stack([a, b], True), bk.stack([a, b], False)),
        (bk.column_stack([a, b, c], True), bk.column_stack([a, b, c], False)),
        (bk.as_backend(np.array([a, b]), True), bk.as_backend(np.array([a, b]), False)),
    ]:
        assert isinstance(symbolic_result, sp.MatrixBase) and isinstance(numeric_result, np.ndarray)
        np.testing.assert_allclose(np.array(symbolic_result, dtype=float), numeric_result, rtol=1e-15)
    np.testing.assert_array_equal(bk.column_stack([a, b, c], False)[:, 1], b)


def test_unit_zeros_and_entrywise():
    for i in range(3):
        assert [float(v) for v in bk.unit(i, True)] == list(np.eye(3)[i]) == list(bk.unit(i))
    z = bk.object_zeros((2, 2), True)
    z[0, 1] = sp.Symbol("x")                        # object zeros hold formulas
    assert z.dtype == object and bk.object_zeros(3, False).dtype == float
    assert bk.as_backend(np.array([1.0, 0.5]), True)[0].is_Integer   # whole numbers become Integers
    x = sp.Symbol("x")
    m = sp.Matrix([sp.sin(x) ** 2 + sp.cos(x) ** 2, x])
    assert bk.entrywise(m, sp.simplify) == sp.Matrix([1, x])
    assert bk.entrywise(m, None) is m and bk.entrywise(2.0, sp.simplify) == 2.0
