"""Answers as inert data: what a check records and what the grader reads back.

A check in a student's notebook records the student's **answer** (never a verdict that counts) in a form
that carries no code: numbers and arrays as lists of floats with their shape, sympy expressions as their
``srepr`` text. The grader turns a record back into an answer with :func:`deserialize`, which never
evaluates Python code: an ``srepr`` is parsed with :mod:`ast` and only calls of an allow-list of sympy
constructors with literal arguments are rebuilt. A forged or hostile record therefore yields at most a
wrong answer, never code running in the grader.

Examples
--------
>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> deserialize(serialize(sp.sin(x) ** 2 + 1)) == sp.sin(x) ** 2 + 1
True
>>> deserialize(serialize([[1.0, 2.0], [3.0, float("nan")]]))
array([[ 1.,  2.],
       [ 3., nan]])
>>> deserialize({"type": "sympy", "srepr": "__import__('os')"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
mbdlib.exercises.answers.RecordError: a formula in the record uses '__import__', which is not a sympy ...
"""

from __future__ import annotations

import ast
import math
import numbers

import numpy as np
import sympy as sp

__all__ = ["RecordError", "serialize", "deserialize", "MAX_ENTRIES", "MAX_SREPR"]

#: Largest array a record may carry (entries).
MAX_ENTRIES = 100_000
#: Longest formula text a record may carry (characters).
MAX_SREPR = 200_000
#: Largest integer and exponent in a formula of a record (sympy would evaluate 10**10**9 eagerly).
MAX_INTEGER, MAX_EXPONENT = 10**15, 1000


class RecordError(ValueError):
    """A record cannot be read back as an answer (malformed, too large, or not allowed)."""


def _float(x: float):
    x = float(x)
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def serialize(answer) -> dict:
    """The answer as JSON-able, inert data: ``{"type": "none" | "array" | "sympy" | "other", ...}``.

    Numbers, lists and numpy arrays become ``{"type": "array", "shape": [...], "data": [...]}``; sympy
    expressions and matrices ``{"type": "sympy", "srepr": ...}`` (lists mixing numbers and formulas are
    turned into a sympy Matrix); anything else ``{"type": "other", "repr": <short text>}`` (graded as a
    wrong type). Never raises.

    >>> serialize(2)
    {'type': 'array', 'shape': [], 'data': [2.0]}
    >>> serialize(None)
    {'type': 'none'}
    """
    try:
        return _serialize(answer)
    except Exception as exc:  # noqa: BLE001 - a check must never crash the notebook
        return {"type": "other", "repr": f"{type(answer).__name__} ({type(exc).__name__})"}


def _serialize(answer) -> dict:
    if answer is None or answer is Ellipsis:
        return {"type": "none"}
    if isinstance(answer, (sp.Basic, sp.MatrixBase)):
        value = sp.ImmutableMatrix(answer) if isinstance(answer, sp.MatrixBase) else answer
        return {"type": "sympy", "srepr": sp.srepr(value)}
    if isinstance(answer, (str, bytes, dict, set, bool, np.bool_)) or callable(answer):
        return {"type": "other", "repr": type(answer).__name__}
    if isinstance(answer, numbers.Number) and not isinstance(answer, numbers.Real):
        return {"type": "other", "repr": "complex"}
    a = np.asarray(answer, dtype=object)
    if a.dtype == object and any(isinstance(v, (sp.Basic, sp.MatrixBase)) for v in a.flat):
        if a.ndim <= 2 and not any(isinstance(v, sp.MatrixBase) for v in a.flat):
            rows = a.tolist() if a.ndim else [[a.item()]]
            return {"type": "sympy", "srepr": sp.srepr(sp.ImmutableMatrix(rows))}
        return {"type": "other", "repr": "a mix of arrays and formulas"}
    if any(isinstance(v, numbers.Complex) and not isinstance(v, numbers.Real) for v in a.flat):
        # (float() would warn and drop the imaginary part)
        return {"type": "other", "repr": "complex numbers"}
    try:
        f = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return {"type": "other", "repr": type(answer).__name__}
    if f.size > MAX_ENTRIES:
        return {"type": "other", "repr": f"an array of {f.size} entries (too large)"}
    return {"type": "array", "shape": list(f.shape), "data": [_float(x) for x in f.reshape(-1)]}


# ---------------------------------------------------------------- reading back
_ALLOWED = {
    # atoms and containers
    "Symbol", "Dummy", "Integer", "Rational", "Float", "Half", "One", "Zero", "NegativeOne",
    "Pi", "E", "ImaginaryUnit", "Infinity", "NegativeInfinity", "NaN", "ComplexInfinity",
    "Tuple", "ImmutableDenseMatrix", "ImmutableMatrix", "MutableDenseMatrix", "Matrix",
    # arithmetic and functions of the course
    "Add", "Mul", "Pow", "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "exp", "log", "sqrt", "Abs", "sign", "re", "im", "Min", "Max",
    "Function", "Derivative", "AppliedUndef", "UndefinedFunction",
}


_CONSTANTS = {"pi": sp.pi, "E": sp.E, "I": sp.I, "oo": sp.oo, "zoo": sp.zoo, "nan": sp.nan,
              "true": sp.true, "false": sp.false}


def _build(node):
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _build(node.operand)
        if isinstance(value, (int, float)):
            return -value
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [_build(e) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name not in _ALLOWED:
            raise RecordError(f"a formula in the record uses {name!r}, which is not a sympy constructor")
        args = [_build(a) for a in node.args]
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise RecordError("a formula in the record uses ** arguments")
            kwargs[kw.arg] = _build(kw.value)
        if name == "Function":  # Function('q') -> an undefined function class; called later with args
            return sp.Function(*args, **kwargs)
        if name in ("Integer", "Rational") and any(isinstance(a, int) and abs(a) > MAX_INTEGER for a in args):
            raise RecordError("a formula in the record has an integer too large for an answer")
        big_power = len(args) == 2 and isinstance(args[1], sp.Number) and abs(args[1]) > MAX_EXPONENT
        if name == "Pow" and big_power:
            raise RecordError("a formula in the record has a power too large for an answer")
        return getattr(sp, name)(*args, **kwargs)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Call):  # Function('q')(Symbol('t'))
        f = _build(node.func)
        if not isinstance(f, sp.core.function.UndefinedFunction):
            raise RecordError("a formula in the record calls something that is not a function")
        return f(*[_build(a) for a in node.args])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        raise RecordError(f"a formula in the record uses an attribute ({node.func.attr!r}): not allowed")
    what = node.id if isinstance(node, ast.Name) else type(node).__name__
    raise RecordError(f"a formula in the record uses {what!r}, which is not a sympy constructor")


def _parse_srepr(text: str):
    if not isinstance(text, str) or len(text) > MAX_SREPR:
        raise RecordError("the formula in the record is missing or too long")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise RecordError(f"the formula in the record is not readable ({exc.msg})") from None
    except (RecursionError, MemoryError):
        raise RecordError("the formula in the record is nested too deeply") from None
    try:
        return _build(tree.body)
    except RecordError:
        raise
    except Exception as exc:  # noqa: BLE001 - a sympy constructor refused its arguments, too deep, ...
        raise RecordError(f"the formula in the record could not be rebuilt ({type(exc).__name__})") from None


def deserialize(record):
    """The answer a record carries: None, a float array, a sympy object, or a :class:`RecordError`.

    Raises :class:`RecordError` for a malformed record (the grader then grades the exercise as
    ``invalid-record``). Never evaluates code.
    """
    if not isinstance(record, dict) or "type" not in record:
        raise RecordError("the record carries no answer")
    kind = record["type"]
    if kind == "none":
        return None
    if kind == "other":
        raise RecordError(f"the answer is not a number, an array or a formula ({record.get('repr', '?')})")
    if kind == "array":
        shape, data = record.get("shape"), record.get("data")
        if not (isinstance(shape, list) and all(isinstance(n, int) and n >= 0 for n in shape)
                and isinstance(data, list) and len(data) == int(np.prod(shape)) <= MAX_ENTRIES):
            raise RecordError("the array in the record is malformed")
        try:
            values = [float(x) for x in data]  # accepts "nan", "inf", "-inf"
        except (TypeError, ValueError):
            raise RecordError("the array in the record contains something that is not a number") from None
        return np.array(values, dtype=float).reshape(shape)
    if kind == "sympy":
        value = _parse_srepr(record.get("srepr"))
        if not isinstance(value, (sp.Basic, sp.MatrixBase)):
            raise RecordError("the formula in the record is not a sympy expression")
        return value
    raise RecordError(f"unknown answer type {kind!r} in the record")
