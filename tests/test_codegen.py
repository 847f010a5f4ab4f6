"""Tests of mbdlib.codegen: formulas compiled to fast functions (symengine LLVM, or NumPy code).

Independent checks: the compiled Kane equations against the recursive RNEA and CRBA at random states;
the two backends against each other.
"""

import numpy as np
import pytest
import sympy as sp
from test_dynamics import assert_close

from mbdlib.chain import Chain
from mbdlib.codegen import lambdify_equations, lambdify_matrix
from mbdlib.dynamics import mass_matrix
from mbdlib.errors import ModelError, ShapeError
from mbdlib.kane import kane_equations
from mbdlib.newton_euler import rnea


def test_lambdified_kane_equations_match_rnea():
    chain = Chain.spatial_arm_example()
    eq = kane_equations(chain, gravity=(0, 0, -sp.Symbol("g")))
    M_f, h_f = lambdify_equations(eq.M, eq.h + eq.G, eq.q, eq.qd, params={sp.Symbol("g"): 9.81})
    rng = np.random.default_rng(4)
    for _ in range(3):
        q, qd, qdd = rng.uniform(-2, 2, (3, 4))
        assert_close(M_f(q) @ qdd + h_f(q, qd), rnea(chain, q, qd, qdd, gravity=(0, 0, -9.81)))
        assert_close(M_f(q), mass_matrix(chain, q))
    with pytest.raises(ModelError, match=r"still contains \['g'\]"):
        lambdify_equations(eq.M, eq.h + eq.G, eq.q, eq.qd)
    with pytest.raises(ShapeError, match="argument 0"):
        M_f([1.0, 2.0])


@pytest.mark.parametrize("backend", ["llvm", "sympy"])
def test_lambdify_matrix_constant_and_scalar(backend):
    x = sp.Symbol("x")
    f = lambdify_matrix(x**2, [(x,)], backend=backend)
    assert f([3.0]) == 9.0 and f.backend == backend
    column = lambdify_matrix(sp.Matrix([1, 2]), [(x,)], backend=backend)
    np.testing.assert_array_equal(column([0.0]), [1.0, 2.0])
    np.testing.assert_array_equal(lambdify_matrix(sp.Matrix([[1, x]]), [(x,)], matrix=True,
                                                  backend=backend)([5.0]), [[1.0, 5.0]])


def test_lambdify_backends_agree_on_the_kane_equations():
    """The compiled (symengine LLVM) and the NumPy (sympy.lambdify) functions of one formula agree with
    each other and with the recursive algorithm, at random states."""
    chain = Chain.spatial_arm_example()
    eq = kane_equations(chain, gravity=(0, 0, -9.81))
    llvm = lambdify_equations(eq.M, eq.h + eq.G, eq.q, eq.qd)
    numpy_ = lambdify_equations(eq.M, eq.h + eq.G, eq.q, eq.qd, backend="sympy")
    assert (llvm[0].backend, numpy_[0].backend) == ("llvm", "sympy")
    rng = np.random.default_rng(11)
    for _ in range(4):
        q, qd = rng.uniform(-3, 3, (2, 4))
        assert_close(llvm[0](q), numpy_[0](q))
        assert_close(llvm[1](q, qd), numpy_[1](q, qd))
        assert_close(llvm[1](q, qd), rnea(chain, q, qd, np.zeros(4), gravity=(0, 0, -9.81)))


def test_lambdify_backend_errors_and_fallback(monkeypatch):
    x = sp.Symbol("x")
    with pytest.raises(ModelError, match="backend must be one of"):
        lambdify_matrix(x, [(x,)], backend="fortran")
    with pytest.raises(ModelError, match="give cse=True or False"):
        lambdify_matrix(x, [(x,)], backend="llvm", cse=lambda e: sp.cse(e))
    assert lambdify_matrix(sp.sin(x), [(x,)], cse=sp.cse).backend == "sympy"   # a cse function: numpy code
    import mbdlib.codegen as dyn
    monkeypatch.setitem(__import__("sys").modules, "symengine", None)      # symengine not installed
    monkeypatch.setattr(dyn, "_fallback_noted", False)
    with pytest.raises(ModelError, match="pip install symengine"):
        lambdify_matrix(x, [(x,)], backend="llvm")
    with pytest.warns(UserWarning, match="pip install symengine"):
        f = lambdify_matrix(2 * x, [(x,)])
    assert f.backend == "sympy" and f([1.5]) == 3.0
