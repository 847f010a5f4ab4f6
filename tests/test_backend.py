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
