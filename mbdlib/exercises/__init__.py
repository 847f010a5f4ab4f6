"""Exercises with automatic checks, student versions, and batch grading.

In a notebook::

    from mbdlib.exercises import check
    check("1.3", A)          # -> one line: correct, not answered yet, or a hint

For instructors (see the book's "For instructors" page)::

    python -m mbdlib.exercises generate solutions exercises [--check]
    python -m mbdlib.exercises grade submissions/ --out grades.csv --feedback feedback/

Modules: :mod:`.compare` (answer comparison and generic hints), :mod:`.core`
(exercises, registry, :func:`check`), :mod:`.generate` (student versions),
:mod:`.grade` (batch grading), ``chNN`` (each chapter's exercises).
The checking engine does not import the rest of mbdlib; only the chapter
modules do.
"""

from .core import MIME, Exercise, Mistake, Verdict, check, evaluate, exercises, get, register

__all__ = ["MIME", "Exercise", "Mistake", "Verdict", "check", "evaluate", "exercises", "get", "register"]
