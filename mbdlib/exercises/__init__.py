"""Exercises with automatic checks, student versions, and batch grading.

In a notebook::

    from mbdlib.exercises import check, show_solution
    check("1.3", A)          # -> one line: correct, not answered yet, or a hint
    show_solution("1.3")     # the expected answer (the record marks it as shown)

For instructors (see the book's "For instructors" page)::

    python -m mbdlib.exercises generate solutions exercises [--check]
    python -m mbdlib.exercises release exercises/ch01_kinematics.ipynb --roster roster.csv \
        --secret-file secret --out release/
    python -m mbdlib.exercises grade submissions/ --roster roster.csv --secret-file secret \
        --out grades.csv --totals totals.csv --feedback feedback/

Modules: :mod:`.compare` (answer comparison and generic hints), :mod:`.answers`
(answers as inert records), :mod:`.core` (exercises, registry, :func:`check`,
variants), :mod:`.generate` (student versions), :mod:`.release` (per-student
notebooks, nbgrader sources), :mod:`.grade` (batch grading) with
:mod:`.sandbox` (confined kernels) and :mod:`.collect` (the grader's cell),
``chNN`` (each chapter's exercises).
The checking engine does not import the rest of mbdlib; only the chapter
modules do.
"""

from .core import (
    MIME,
    Exercise,
    Mistake,
    Verdict,
    assert_correct,
    check,
    evaluate,
    exercises,
    get,
    params,
    practice_exercises,
    register,
    show_solution,
    use_variant,
)

__all__ = ["MIME", "Exercise", "Mistake", "Verdict", "assert_correct", "check", "evaluate", "exercises",
           "get", "params", "practice_exercises", "register", "show_solution", "use_variant"]
