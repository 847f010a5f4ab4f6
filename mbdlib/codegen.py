"""Formulas -> fast numeric functions: the library's one code generator.

:func:`lambdify_matrix` turns a sympy scalar, vector or matrix into a function of numpy arrays.  With
symengine built with LLVM (``pip install symengine``, in the course's requirements) the formulas are
compiled to machine code (a call costs a few µs whatever the formula's size); otherwise they become
NumPy code through ``sympy.lambdify(..., cse=True)`` (every operation then pays Python's per-call
cost), with a note saying what to install.  Every compiled path of the library goes through here:
the symbolic equations of chains (:func:`lambdify_equations`, :mod:`mbdlib.lagrange`), the compiled
constraint equations of planar models (:mod:`mbdlib.compiled`) and the four-bar arm's equations
(:mod:`mbdlib.mechanisms`).
"""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp

from . import _backend as bk
from .errors import ModelError, ShapeError

__all__ = ["lambdify_matrix", "lambdify_equations", "BACKENDS"]


BACKENDS = ("auto", "llvm", "sympy")
_fallback_noted = False


def _compile(groups, expr, cse, backend: str):
    """``(f, how)``: ``f(x)`` of the concatenated arguments -> the flat entries of ``expr``.

    ``llvm``: ``symengine.Lambdify(..., backend="llvm", cse=True)`` compiles the formulas to machine
    code (one call costs a few µs whatever the size). ``sympy``: ``sympy.lambdify`` writes NumPy code
    (every operation then costs Python's per-call overhead). ``auto``: llvm when symengine with LLVM
    is installed and ``cse`` is not a function, else sympy (with a note, once, saying what to install).
    """
    global _fallback_noted
    symbols = [s for g in groups for s in g]
    flat = list(expr) if isinstance(expr, sp.MatrixBase) else [expr]
    if backend not in BACKENDS:
        raise ModelError(f"lambdify: backend must be one of {BACKENDS}, got {backend!r}")
    if backend != "sympy" and not callable(cse):
        try:
            import symengine as se  # optional (mbdlib[fast]): imported only when asked for
            f = se.Lambdify(symbols, flat, backend="llvm", cse=bool(cse), real=True)
        except (ImportError, RuntimeError, TypeError, ValueError, NotImplementedError) as exc:
            if backend == "llvm":
                raise ModelError(f"lambdify: backend='llvm' needs symengine built with LLVM "
                                 f"(pip install symengine); here: {type(exc).__name__}: {exc}") from exc
            if not _fallback_noted:
                _fallback_noted = True
                warnings.warn("lambdify: symengine with LLVM is not available, so formulas become NumPy code "
                              f"(sympy.lambdify; {type(exc).__name__}: {exc}); pip install symengine for "
                              "compiled functions (10-100x faster per call)", stacklevel=3)
        else:
            size = len(flat)

            def compiled(x):          # x: a contiguous float64 array of len(symbols), checked by the caller
                out = np.empty(size)
                f.unsafe_real(x, out)   # the compiled code without symengine's per-call checks (~1 µs)
                return out

            return compiled, "llvm"
    elif backend == "llvm":
        raise ModelError("lambdify: backend='llvm' does its own common-subexpression elimination; "
                         "give cse=True or False, not a function")
    f = sp.lambdify([symbols], flat, modules="numpy", cse=cse)
    return (lambda x: np.array(f(x), dtype=float)), "sympy"


def lambdify_matrix(expr, args, params=None, cse: bool = True, matrix: bool = False, backend: str = "auto"):
    """A fast numeric function of a symbolic scalar, vector or matrix.

    Parameters
    ----------
    expr : sympy expression or Matrix
    args : sequence of sequences of Symbol
        One group per argument of the returned function, e.g. ``(q, qd)``;
        each argument is then an array of the group's length.
    params : dict, optional
        Values of every other free symbol (lengths, masses, g, ...).
    cse : bool or callable
        Common-subexpression elimination (much faster for large formulas). A function (as
        ``sympy.lambdify`` takes it) selects the sympy backend.
    matrix : bool
        Keep the Matrix shape; by default an ``(n, 1)`` Matrix gives ``(n,)`` arrays.
    backend : {"auto", "llvm", "sympy"}
        ``"llvm"``: machine code through symengine's LLVM backend (a few µs per call);
        ``"sympy"``: NumPy code from ``sympy.lambdify``; ``"auto"`` (default): llvm when symengine
        is installed, else sympy with a note. The chosen one is the function's ``backend`` attribute.

    Returns
    -------
    callable
        ``f(*arrays)`` -> float, ``(n,)`` array (for an ``(n, 1)`` Matrix) or
        ``(n, m)`` array.

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> f = lambdify_matrix(sp.Matrix([[x * y, 1], [0, x]]), [(x, y)])
    >>> f([2.0, 3.0])
    array([[6., 1.],
           [0., 2.]])
    >>> lambdify_matrix(x + y, [(x,), (y,)], backend="sympy")([1.0], [2.0])
    3.0
    """
    groups = [tuple(a) for a in args]
    expr = sp.sympify(expr).subs(params) if params else sp.sympify(expr)
    free = expr.free_symbols - {s for group in groups for s in group}
    if free:
        raise ModelError(f"lambdify: the formula still contains {sorted(map(str, free))}; give their values "
                         "in params={symbol: value}")
    f, how = _compile(groups, expr, cse, backend)
    full = expr.shape if isinstance(expr, sp.MatrixBase) else ()
    shape = (full[0],) if len(full) == 2 and full[1] == 1 and not matrix else full  # columns -> (n,)
    sizes = [len(g) for g in groups]
    names = [f"argument {a} (length {k})" for a, k in enumerate(sizes)]

    def argument(v, k, name):
        a = np.asarray(v, dtype=float)
        return a if a.shape == (k,) else bk.vector(v, k, name=name)   # bk.vector reshapes or names the error

    def numeric(*values):
        if len(values) != len(groups):
            raise ShapeError(f"expected {len(groups)} argument(s) of lengths {sizes}, got {len(values)}")
        parts = [argument(v, k, nm) for v, k, nm in zip(values, sizes, names, strict=True)]
        if len(parts) == 1:                   # the compiled code reads a writable, contiguous buffer
            x = parts[0] if parts[0].flags.writeable and parts[0].flags.c_contiguous else np.array(parts[0])
        else:
            x = np.concatenate(parts or [np.zeros(0)])
        out = f(x)
        return float(out[0]) if not shape else out.reshape(shape)

    numeric.backend = how
    return numeric


def lambdify_equations(M, h, q, qd, params=None, cse: bool = True, backend: str = "auto"):
    """Fast numeric ``M(q)`` -> (n, n) and ``b(q, qd)`` -> (n,) from symbolic results.

    For example from :func:`mbdlib.kane.kane_equations` (pass ``h + G`` as ``h``); ``backend`` as in
    :func:`lambdify_matrix`.

    >>> q, qd = sp.symbols("q1 q2"), sp.symbols("qd1 qd2")
    >>> M_f, h_f = lambdify_equations(sp.diag(2, 1), sp.Matrix([qd[0] ** 2, sp.sin(q[1])]), q, qd)
    >>> M_f([0, 0]), h_f([0, np.pi / 2], [3, 0])
    (array([[2., 0.],
           [0., 1.]]), array([9., 1.]))
    """
    return (lambdify_matrix(M, [q], params, cse, matrix=True, backend=backend),
            lambdify_matrix(h, [q, qd], params, cse, backend=backend))
