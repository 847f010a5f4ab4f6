"""Compare a student's answer with an expected one, and say what is wrong.

Three layers, used by :mod:`mbdlib.exercises.core`:

* :func:`normalize` turns whatever a student typed (a float, a list, a numpy
  array, a sympy expression or ``Matrix``) into one of two canonical forms:
  a float numpy array (numbers) or a sympy ``Matrix`` with free symbols
  (formulas).  Anything else (a string, a dict, a complex number, a ragged
  list) raises :class:`AnswerTypeError` whose message is the hint to show.
* :func:`same` decides equality: numbers with ``numpy.allclose`` tolerances,
  formulas by symbolic equivalence (``simplify(a - b) == 0``) backed by a
  numeric comparison at seeded random points when simplification is
  inconclusive.
* :func:`diagnose` writes the generic hint when the answer is wrong and no
  exercise-specific mistake matched: shape, NaN, transpose, sign flip, a
  factor of 2, degrees, a constant factor, then the entries that are off, by
  name and how (too large, too small, wrong sign, a zero where a term is
  missing) -- never the expected value itself, not even "should be zero".

Vectors are compared as 1-D arrays, so ``(3,)``, ``(3, 1)`` and ``(1, 3)`` are
all accepted where a 3-vector is expected; matrices must have the exact shape.
Entries are named with numpy's 0-based indices (``entry [2, 1]`` is ``A[2, 1]``).
"""

from __future__ import annotations

import numbers

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

N_POINTS = 5
"""How many random points a formula is evaluated at (seeded, deterministic)."""


class AnswerTypeError(TypeError):
    """The answer is not a number, an array or a formula; the message is the hint."""


def _fmt(x: float) -> str:
    """Short, deterministic rendering of a number for hints (``-0.34``, ``1.2e-05``)."""
    x = float(x)
    if x == 0.0:
        return "0"
    return f"{x:.4g}"


def _index(idx: tuple) -> str:
    return "[" + ", ".join(str(int(i)) for i in idx) + "]"


def _symbolize(expr):
    """Replace undefined functions ``q(t)`` by plain symbols named ``q(t)`` (for comparison)."""
    funcs = expr.atoms(AppliedUndef)
    return expr.xreplace({f: sp.Symbol(str(f)) for f in funcs}) if funcs else expr


def normalize(x):
    """Return the answer as a float array or a symbolic ``Matrix``.

    Parameters
    ----------
    x : number, sequence, ndarray, sympy expression or Matrix

    Returns
    -------
    numpy.ndarray or sympy.Matrix
        A float array of shape ``()`` / ``(n,)`` / ``(n, m)``, or, if the answer
        contains free symbols, a sympy ``Matrix`` (a scalar becomes ``1 x 1``).

    Raises
    ------
    AnswerTypeError
        With a message meant for the student.

    Examples
    --------
    >>> normalize([1, 2, 3])
    array([1., 2., 3.])
    >>> normalize(sp.sqrt(2) / 2)
    array(0.70710678)
    >>> normalize("0.5")
    Traceback (most recent call last):
    ...
    mbdlib.exercises.compare.AnswerTypeError: your answer is a string ('0.5'), not a number: remove the quotes
    """
    if isinstance(x, str):
        short = x if len(x) <= 20 else x[:17] + "..."
        raise AnswerTypeError(f"your answer is a string ({short!r}), not a number: remove the quotes")
    if isinstance(x, (bool, np.bool_)):
        raise AnswerTypeError(f"your answer is {x} (a True/False value), not a number")
    if callable(x) and not isinstance(x, (sp.Basic, sp.MatrixBase)):
        raise AnswerTypeError("your answer is a function: call it and give its result (or the value itself)")
    if isinstance(x, (dict, set, frozenset)):
        raise AnswerTypeError(f"your answer is a {type(x).__name__}; give a number, an array or a formula")
    if isinstance(x, numbers.Number) and not isinstance(x, sp.Basic):
        if isinstance(x, numbers.Complex) and not isinstance(x, numbers.Real):
            raise AnswerTypeError(f"your answer is a complex number ({x}); expected a real one")
        return np.asarray(float(x))
    if isinstance(x, (sp.Basic, sp.MatrixBase)):
        m = sp.Matrix(x) if isinstance(x, sp.MatrixBase) else sp.Matrix([[x]])
        return _matrix_or_array(m, scalar=not isinstance(x, sp.MatrixBase))
    try:
        a = np.asarray(x)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        msg = f"your answer could not be read as an array ({exc}); are all rows the same length?"
        raise AnswerTypeError(msg) from None
    if a.dtype == object:
        if a.ndim == 0:
            msg = f"your answer is a {type(x).__name__}; give a number, an array or a formula"
            raise AnswerTypeError(msg)
        holes = [i for i, v in np.ndenumerate(a) if v is None or v is Ellipsis]
        if holes:
            where = ", ".join(_index(i) for i in holes[:3]) + (" ..." if len(holes) > 3 else "")
            raise AnswerTypeError(f"entry {where} of your answer is None: fill in every entry")
        texts = [i for i, v in np.ndenumerate(a) if isinstance(v, (str, bytes))]
        if texts:
            raise AnswerTypeError(f"entry {_index(texts[0])} of your answer is a string, not a number: "
                                  "remove the quotes")
        if any(isinstance(v, numbers.Complex) and not isinstance(v, numbers.Real) for v in a.flat):
            raise AnswerTypeError("your answer contains complex numbers; expected real ones")
        if any(isinstance(v, (sp.Basic, sp.MatrixBase)) for v in a.flat):
            if a.ndim > 2 or any(isinstance(v, sp.MatrixBase) for v in a.flat):
                raise AnswerTypeError("your answer mixes arrays and matrices; give one array or one Matrix")
            m = sp.Matrix(a.tolist()) if a.ndim == 2 else sp.Matrix(a.tolist())
            return _matrix_or_array(m, scalar=False, vector=a.ndim == 1)
        try:
            a = a.astype(float)
        except (TypeError, ValueError) as exc:
            raise AnswerTypeError(f"your answer contains something that is not a number ({exc})") from None
    if np.iscomplexobj(a):
        raise AnswerTypeError("your answer contains complex numbers; expected real ones")
    if a.dtype.kind in "SU":
        raise AnswerTypeError("your answer is an array of strings, not numbers: remove the quotes "
                              "(or convert with float)")
    if a.dtype.kind not in "biuf":
        raise AnswerTypeError(f"your answer is an array of {a.dtype.name} values, not numbers")
    return a.astype(float)


def _matrix_or_array(m: sp.Matrix, scalar: bool, vector: bool = False):
    m = m.applyfunc(_symbolize)
    if not m.free_symbols:
        try:
            a = np.array(m.evalf(), dtype=complex)
        except (TypeError, ValueError) as exc:
            raise AnswerTypeError(f"your answer could not be evaluated to numbers ({exc})") from None
        if np.any(np.abs(a.imag) > 1e-12 * (1 + np.abs(a.real))):
            raise AnswerTypeError("your answer contains complex numbers; expected real ones")
        a = a.real
        if scalar:
            return a.reshape(())
        return a.reshape(-1) if vector else a
    return m


def _as_vector_if_possible(a):
    """A column or row (``(n, 1)``, ``(1, n)``) becomes a 1-D vector; other shapes are kept."""
    if isinstance(a, sp.MatrixBase):
        return a.reshape(a.rows * a.cols, 1) if 1 in a.shape else a
    if a.ndim == 2 and 1 in a.shape:
        return a.reshape(-1)
    return a


def shape_of(a) -> tuple:
    """Shape of a normalised answer, with columns/rows seen as vectors."""
    if isinstance(a, sp.MatrixBase):
        if a.shape == (1, 1):
            return ()
        return (a.rows * a.cols,) if 1 in a.shape else tuple(a.shape)
    return _as_vector_if_possible(a).shape


def _numeric(a, values: dict | None = None) -> np.ndarray:
    """Evaluate a normalised answer (array or formula) to a float array of its :func:`shape_of`."""
    if not isinstance(a, sp.MatrixBase):
        return np.asarray(_as_vector_if_possible(a), dtype=float)
    sub = {}
    for s in a.free_symbols:
        if s.name not in values:
            raise KeyError(s.name)
        sub[s] = values[s.name]
    v = np.array(a.xreplace(sub).evalf(), dtype=complex)
    if np.any(np.abs(v.imag) > 1e-9 * (1 + np.abs(v.real))):
        return np.full(v.shape, np.nan).reshape(shape_of(a))
    return v.real.reshape(shape_of(a))


def symbol_names(*answers) -> list[str]:
    """Sorted names of the free symbols of the symbolic answers among ``answers``."""
    names = set()
    for a in answers:
        if isinstance(a, sp.MatrixBase):
            names |= {s.name for s in a.free_symbols}
    return sorted(names)


def sample_points(names: list[str], seed: int = 0, n: int = N_POINTS) -> list[dict]:
    """``n`` seeded random points, one value in (0.2, 1.3) per symbol name (away from 0 and pi/2)."""
    rng = np.random.default_rng(seed)
    return [{name: float(rng.uniform(0.2, 1.3)) for name in names} for _ in range(n)]


def _allclose(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    return (
        a.shape == b.shape
        and bool(np.all(np.isfinite(a)))
        and bool(np.all(np.isfinite(b)))
        and bool(np.allclose(a, b, rtol=rtol, atol=atol))
    )


def same(student, expected, rtol: float = 1e-6, atol: float = 1e-9, seed: int = 0) -> bool:
    """True if two normalised answers are equal within tolerance, or equivalent as formulas.

    Formulas are first compared numerically at :data:`N_POINTS` seeded random
    points (a cheap disproof); if they agree, ``sympy.simplify(a - b) == 0``
    proves it; if simplification is inconclusive, the numeric agreement is
    accepted.  Symbols are matched by name; a student's formula may contain a
    symbol the answer does not depend on if it cancels (``x + y - y`` for ``x``).

    Examples
    --------
    >>> x = sp.Symbol("x")
    >>> same(normalize(sp.sin(x)**2), normalize(1 - sp.cos(x)**2))
    True
    >>> same(normalize([1.0, 2.0]), normalize([[1.0], [2.0 + 1e-12]]))
    True
    >>> same(normalize(x), normalize(2.0))
    False
    """
    if shape_of(student) != shape_of(expected):
        return False
    s_sym, e_sym = isinstance(student, sp.MatrixBase), isinstance(expected, sp.MatrixBase)
    if not (s_sym or e_sym):
        return _allclose(_numeric(student), _numeric(expected), rtol, atol)
    if e_sym and not s_sym:
        return False  # numbers where a formula is expected
    names = symbol_names(student, expected)
    for point in sample_points(names, seed):
        if not _allclose(_numeric(student, point), _numeric(expected, point), rtol, atol):
            return False
    if e_sym:
        by_name = {s.name: s for s in expected.free_symbols}
        s = student.xreplace({x: by_name[x.name] for x in student.free_symbols if x.name in by_name})
        e = expected
    else:  # a formula that should be a constant (sin(x)**2 + cos(x)**2 for 1)
        s, e = student, sp.Matrix(np.atleast_2d(np.asarray(expected, dtype=float)).tolist())
    try:
        if (s.reshape(*e.shape) - e).applyfunc(sp.simplify).is_zero_matrix:
            return True
    except (TypeError, ValueError, NotImplementedError, AttributeError):  # pragma: no cover - sympy internals
        pass
    return True  # simplification inconclusive, numeric agreement at every point


def diagnose(student, expected, rtol: float = 1e-6, atol: float = 1e-9, seed: int = 0) -> str:
    """The generic hint for a wrong answer (no exercise-specific mistake matched): :func:`diagnosis`'s text.

    Examples
    --------
    >>> A = np.array([[0.0, -1.0], [1.0, 0.0]])
    >>> diagnose(normalize(A.T), normalize(A))
    'your matrix is the transpose of the expected one'
    >>> B = A.copy(); B[1, 0] = 0.5
    >>> diagnose(normalize(B), normalize(A))
    'entry [1, 0] is too small'
    >>> diagnose(normalize(np.degrees([0.5, 1.0])), normalize([0.5, 1.0]))
    'your answer looks like degrees: give radians'
    >>> diagnose(normalize([1.0, 2.0]), normalize(A))
    'your answer has shape (2,), expected shape (2, 2)'
    """
    return diagnosis(student, expected, rtol, atol, seed)[1]


def diagnosis(student, expected, rtol: float = 1e-6, atol: float = 1e-9, seed: int = 0) -> tuple[str, str]:
    """``(kind, hint)`` for a wrong answer: a stable key of the kind of mistake, and :func:`diagnose`'s hint.

    Kinds: ``shape``, ``numbers-for-formula``, ``extra-symbol``, ``nan``, ``transpose``, ``sign``,
    ``factor-2``, ``degrees``, ``radians``, ``multiple``, ``too-large``, ``too-small``, ``entries``.

    >>> diagnosis(normalize([2.0, 4.0]), normalize([1.0, 2.0]))
    ('factor-2', 'your answer is 2 times the expected one: check a factor of 2')
    """
    s_shape, e_shape = shape_of(student), shape_of(expected)
    if s_shape != e_shape:
        what = "a single number" if s_shape == () else f"shape {s_shape}"
        want = "a single number" if e_shape == () else f"shape {e_shape}"
        return "shape", f"your answer has {what}, expected {want}"
    s_sym, e_sym = isinstance(student, sp.MatrixBase), isinstance(expected, sp.MatrixBase)
    names = symbol_names(expected)
    if e_sym and not s_sym:
        return "numbers-for-formula", (f"expected a formula in {', '.join(names)} (sympy symbols), you gave "
                                       "numbers")
    extra = sorted(set(symbol_names(student)) - set(names))
    if extra:
        return "extra-symbol", (f"your formula contains {', '.join(extra)}, which the answer does not "
                                "depend on")
    where = ""
    if e_sym:
        point = sample_points(names, seed, 1)[0]
        where = " at " + ", ".join(f"{k} = {_fmt(v)}" for k, v in sorted(point.items()))
        s, e = _numeric(student, point), _numeric(expected, point)
    else:
        point, s, e = None, _numeric(student), _numeric(expected)
    return _diagnose_numbers(s, e, rtol, atol, where)


def _diagnose_numbers(s: np.ndarray, e: np.ndarray, rtol: float, atol: float,
                      where: str = "") -> tuple[str, str]:
    """Say how the numbers are wrong (which entries, sign, factor, units) without printing expected values."""
    bad = ~np.isfinite(s)
    if bad.any():
        kind = "NaN" if np.isnan(s).any() else "an infinite value"
        at = "" if s.ndim == 0 else f" (entry {_index(np.argwhere(bad)[0])})"
        return "nan", (f"your answer contains {kind}{at}{where}: look for 0/0, a division by zero or "
                       "arccos(>1)")

    def close(a, b):
        return bool(np.allclose(a, b, rtol=rtol, atol=atol))

    if s.ndim == 2 and s.shape[0] == s.shape[1] and close(s, e.T):
        return "transpose", "your matrix is the transpose of the expected one" + where
    if close(s, -e):
        everywhere = "" if s.ndim == 0 else " everywhere (your answer is minus the expected one)"
        return "sign", "the sign is wrong" + everywhere + where
    nz = np.abs(e) > atol
    if nz.any():
        ratio = s[nz] / e[nz] if s.ndim else np.asarray([s / e])
        c = float(np.median(ratio))
        if c != 0 and not np.isclose(c, 1.0, rtol=rtol) and close(s, c * e):
            for label, value in (("2", 2.0), ("1/2", 0.5), ("-2", -2.0), ("-1/2", -0.5)):
                if np.isclose(c, value, rtol=1e-6):
                    return "factor-2", (f"your answer is {label} times the expected one{where}: check a "
                                        "factor of 2")
            if np.isclose(abs(c), 180 / np.pi, rtol=1e-4):
                return "degrees", f"your answer looks like degrees{where}: give radians"
            if np.isclose(abs(c), np.pi / 180, rtol=1e-4):
                return "radians", f"your answer looks like radians where degrees are expected{where}"
            if s.size > 1:  # (any single wrong number is a multiple of the right one)
                return "multiple", (f"your answer is a constant multiple of the expected one{where}: check "
                                    "units, scale")
    if s.ndim == 0:
        side = "too large" if s > e else "too small"
        return side.replace(" ", "-"), f"your value{where} is {side}"
    off = ~np.isclose(s, e, rtol=rtol, atol=atol)
    idx = [tuple(i) for i in np.argwhere(off)]
    parts = []
    for i in idx[:3]:
        # direction only: never "should be zero" (that is the expected value itself)
        side = "too large" if s[i] > e[i] else "too small"
        if abs(e[i]) > atol and np.isclose(s[i], -e[i], rtol=rtol, atol=atol):
            how = "has the wrong sign"
        elif abs(s[i]) <= atol:
            how = f"is zero ({side}): a missing term?"
        else:
            how = f"is {side}"
        parts.append(f"entry {_index(i)} {how}")
    text = "; ".join(parts)
    if len(idx) > 3:
        text = f"{len(idx)} of {s.size} entries are off, e.g. " + text
    return "entries", text + where
