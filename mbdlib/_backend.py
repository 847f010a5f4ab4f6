"""One recursion, two number systems.

The algorithms of mbdlib are written once and run both on numbers (numpy
arrays of floats) and on formulas (sympy ``Matrix``).  They only touch their
inputs through the few helpers below, which pick the right implementation from
the type of the data.

Vectors are numpy arrays of shape ``(3,)`` in numeric mode and sympy column
matrices of shape ``(3, 1)`` in symbolic mode; matrices are ``(n, m)`` numpy
arrays or sympy matrices.  Both support ``+``, ``-``, ``*`` by a scalar and
``@``.
"""

from __future__ import annotations

import numbers

import numpy as np
import sympy as sp

from .errors import ShapeError


def is_symbolic(*values) -> bool:
    """True if any argument is (or contains) a sympy object.

    >>> is_symbolic(1.0, np.zeros(3))
    False
    >>> is_symbolic(sp.Symbol("q"))
    True
    """
    for v in values:
        if isinstance(v, (sp.Basic, sp.MatrixBase)):
            return True
        if isinstance(v, np.ndarray):
            if v.dtype == object and any(isinstance(x, sp.Basic) for x in v.flat):
                return True
        elif isinstance(v, (list, tuple)):
            if is_symbolic(*v):
                return True
    return False


def vector(x, n: int = 3, name: str = "vector"):
    """Return ``x`` as a length-``n`` vector (numpy ``(n,)`` or sympy ``(n, 1)``).

    Raises :class:`ShapeError` naming ``name`` if ``x`` has the wrong size.

    >>> vector([1, 2, 3])
    array([1., 2., 3.])
    >>> vector([1, 2], name="axis")
    Traceback (most recent call last):
    ...
    mbdlib.errors.ShapeError: axis must have 3 components, got shape (2,)
    """
    if is_symbolic(x):
        m = sp.Matrix(x) if not isinstance(x, sp.MatrixBase) else x
        if m.shape not in ((n, 1), (1, n)):
            raise ShapeError(f"{name} must have {n} components, got shape {m.shape}")
        return m.reshape(n, 1)
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"{name} must be {n} numbers, got {x!r}") from exc
    if a.shape != (n,):
        if a.size == n and a.ndim == 2 and 1 in a.shape:
            a = a.reshape(n)
        else:
            raise ShapeError(f"{name} must have {n} components, got shape {a.shape}")
    return a


def matrix(x, shape=(3, 3), name: str = "matrix"):
    """Return ``x`` as a matrix of the given shape (numpy or sympy).

    >>> matrix(np.eye(2), (3, 3), name="A")
    Traceback (most recent call last):
    ...
    mbdlib.errors.ShapeError: A must be a 3x3 matrix, got shape (2, 2)
    """
    if is_symbolic(x):
        m = sp.Matrix(x)
        if m.shape != tuple(shape):
            raise ShapeError(f"{name} must be a {shape[0]}x{shape[1]} matrix, got shape {m.shape}")
        return m
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"{name} must be a {shape[0]}x{shape[1]} matrix of numbers") from exc
    if a.shape != tuple(shape):
        raise ShapeError(f"{name} must be a {shape[0]}x{shape[1]} matrix, got shape {a.shape}")
    return a


def is_scalar(x) -> bool:
    """True for a real number or a sympy scalar expression."""
    return isinstance(x, (numbers.Real, sp.Expr)) or (isinstance(x, np.ndarray) and x.ndim == 0)


def sin(x):
    """Sine of a number (numpy) or a formula (sympy)."""
    return sp.sin(x) if is_symbolic(x) else np.sin(x)


def cos(x):
    """Cosine of a number (numpy) or a formula (sympy)."""
    return sp.cos(x) if is_symbolic(x) else np.cos(x)


def sqrt(x):
    """Square root of a number (numpy) or a formula (sympy)."""
    return sp.sqrt(x) if is_symbolic(x) else np.sqrt(x)


def cross(a, b):
    """Cross product of two 3-vectors of either kind (symbolic if either is)."""
    if is_symbolic(a, b):
        return sp.Matrix(a).reshape(3, 1).cross(sp.Matrix(b).reshape(3, 1))
    # written out: for one pair of 3-vectors this is ~10x faster than np.cross
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def dot(a, b):
    """Dot product of two vectors of either kind."""
    if is_symbolic(a, b):
        return (sp.Matrix(a).reshape(len(a), 1).T * sp.Matrix(b).reshape(len(b), 1))[0, 0]
    return float(np.dot(a, b))


def zeros(n: int, m: int | None = None, symbolic: bool = False):
    """A zero vector (``m`` is None) or an ``n`` x ``m`` zero matrix."""
    if symbolic:
        return sp.zeros(n, 1 if m is None else m)
    return np.zeros(n if m is None else (n, m))


def eye(n: int, symbolic: bool = False):
    """The ``n`` x ``n`` identity matrix."""
    return sp.eye(n) if symbolic else np.eye(n)


def as_backend(x, symbolic: bool):
    """Return the vector/matrix ``x`` in the requested number system.

    In symbolic mode numbers that are whole become sympy Integers (so the
    identity prints as ``1``, not ``1.0``); other floats become sympy Floats.
    Vectors are numpy ``(3,)`` or sympy ``(3, 1)``.

    >>> as_backend(np.array([0.0, 0.5, 1.0]), True).T
    Matrix([[0, 0.5, 1]])
    """
    if not symbolic:
        return x
    if isinstance(x, sp.MatrixBase):
        return x

    def exact(v):
        if isinstance(v, sp.Basic):
            return v
        v = float(v)
        return sp.Integer(int(v)) if v.is_integer() else sp.Float(v)

    a = np.asarray(x, dtype=object)
    if a.ndim == 1:
        return sp.Matrix([exact(v) for v in a])
    return sp.Matrix([[exact(v) for v in row] for row in a])


def stack(rows, symbolic: bool):
    """A matrix (or vector) from nested rows: a sympy Matrix, or a float numpy array."""
    return sp.Matrix(rows) if symbolic else np.array(rows, dtype=float)


def column_stack(cols, symbolic: bool):
    """A 3 x k matrix whose columns are the 3-vectors ``cols``."""
    if symbolic:
        return sp.Matrix.hstack(*[sp.Matrix(c).reshape(3, 1) for c in cols])
    return np.column_stack(cols)


def unit(i: int, symbolic: bool = False):
    """The i-th unit 3-vector e_i."""
    e = [0, 0, 0]
    e[i] = 1
    return sp.Matrix(e) if symbolic else np.array(e, dtype=float)


def object_zeros(shape, symbolic: bool):
    """Zeros that can hold formulas (a numpy object array) in symbolic mode, floats otherwise."""
    return np.zeros(shape, dtype=object) if symbolic else np.zeros(shape)


def entrywise(x, func):
    """``func`` applied to every entry of a symbolic matrix; numbers, and ``func=None``, pass through."""
    return x.applyfunc(func) if func is not None and isinstance(x, sp.MatrixBase) else x


def simplify(x):
    """``sympy.simplify`` applied entry-wise to a symbolic result; numbers pass through."""
    if isinstance(x, sp.MatrixBase):
        return x.applyfunc(sp.simplify)
    if isinstance(x, sp.Basic):
        return sp.simplify(x)
    return x
