"""Input checks shared by the numeric modules: one place, one wording.

Every check returns the value in the form the caller computes with (a float array, a unit
vector, a float) or raises an error that names the argument and says what it must be:
:class:`~mbdlib.errors.ShapeError` for arrays, :class:`~mbdlib.errors.ModelError` for the
numbers of a model (masses, lengths, radii).  ``what`` adds the meaning of the entries, e.g.
``" (body-frame x, y)"``.

>>> vector([1, 2], 2, "point_i", " (body-frame x, y)")
array([1., 2.])
>>> vector([1, 2, 3], 2, "point_i", " (x, y)")
Traceback (most recent call last):
...
mbdlib.errors.ShapeError: point_i must have 2 components (x, y), shape (2,); got shape (3,): [1.0, 2.0, 3.0]
>>> vector([0.1, float("nan")], 2, "q")
Traceback (most recent call last):
...
mbdlib.errors.ShapeError: q[1] is nan: q must be 2 finite numbers
>>> unit((0, 0, 2), 3, "axis_i")
array([0., 0., 1.])
>>> unit(np.zeros(3), 3, "axis_i")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
mbdlib.errors.ShapeError: axis_i is the zero vector [0.0, 0.0, 0.0]; give the direction of the axis, ...
>>> number(-1.0, "radius", positive=True)
Traceback (most recent call last):
...
mbdlib.errors.ModelError: radius must be a positive number, got -1.0
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import ModelError, ShapeError


def vector(x, n: int, name: str, what: str = "", flatten: bool = False) -> np.ndarray:
    """``x`` as a float array of shape ``(n,)`` with finite entries.

    ``flatten``: also accept a row or column of n numbers (e.g. a ``(2, 1)`` array).
    """
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"{name} must be {n} numbers{what}, got {_show(x)}") from exc
    if flatten and a.size == n:
        a = a.reshape(n)
    if a.shape != (n,):
        raise ShapeError(f"{name} must have {n} components{what}, shape ({n},); got shape {a.shape}: "
                         f"{_show(x)}")
    if not np.all(np.isfinite(a)):
        i = int(np.flatnonzero(~np.isfinite(a))[0])
        raise ShapeError(f"{name}[{i}] is {float(a[i])!r}: {name} must be {n} finite numbers{what}")
    return a


def _show(x) -> str:
    """``x`` for a message: plain numbers (``[1.0, 2.0]``, not ``array([...])`` or ``np.float64(...)``)."""
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return repr(x)
    return repr(a.tolist()) if a.size <= 12 else f"an array of shape {a.shape}"


def plural(n: int, word: str, words: str | None = None) -> str:
    """``n`` and the noun for it, for a message.

    >>> plural(1, "constraint"), plural(0, "warning"), plural(3, "body", "bodies")
    ('1 constraint', '0 warnings', '3 bodies')
    """
    return f"{n} {word if n == 1 else (words or word + 's')}"


def unit(x, n: int, name: str, what: str = "") -> np.ndarray:
    """``x / |x|`` for a direction ``x`` of n finite numbers; the zero vector is refused."""
    a = vector(x, n, name, what)
    norm = np.linalg.norm(a)
    if norm == 0:
        example = "(1, 0)" if n == 2 else "(0, 0, 1)"
        raise ShapeError(f"{name} is the zero vector {_show(a)}; give the direction of the axis, "
                         f"e.g. {example}")
    return a / norm


def number(x, name: str, positive: bool = False) -> float:
    """``x`` as a float: a finite real number (and > 0 if ``positive``)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not np.isfinite(x):
        kind = "a positive number" if positive else "a finite number"
        raise ModelError(f"{name} must be {kind}, got {_number_text(x)}")
    if positive and not x > 0:
        raise ModelError(f"{name} must be a positive number, got {_number_text(x)}")
    return float(x)


def _number_text(x) -> str:
    return repr(float(x)) if isinstance(x, numbers.Real) and not isinstance(x, bool) else repr(x)


def planar_gravity(gravity, who: str) -> np.ndarray:
    """The gravity vector of a planar model: required (never assumed), 2 finite numbers.

    >>> planar_gravity(None, "PlanarModel")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mbdlib.errors.ModelError: PlanarModel: give gravity=, ... in a horizontal plane
    """
    if gravity is None:
        raise ModelError(f"{who}: give gravity=, the gravitational acceleration in the plane: (0, -9.81) "
                         "with y up, (0, 0) for a mechanism moving in a horizontal plane")
    return vector(gravity, 2, "gravity", " (x, y)")


def state(x, n: int, name: str, owner: str = "") -> np.ndarray:
    """A state vector (q, q̇, ...) of a model with ``n`` coordinates: shape ``(n,)``, finite.

    ``owner`` names the model or function the vector belongs to, so the message can say whose n.
    """
    return vector(x, n, name, f" ({owner}'s n = {n})" if owner else "")
