"""Exercises with automatic checks, student versions, and batch grading an instructor can trust.

In a notebook::

    from mbdlib.exercises import check, params, show_solution
    check("1.3", A)          # -> one line: correct, not answered yet, or a hint (never the key)
    show_solution("1.3")     # the expected answer; the exercise then scores 0 (and later checks say so)

A function exercise right on its public cases says "correct on the public cases; grading also uses unseen
ones". In a notebook released for one student (their own numbers) a value check runs the mistake
detectors on those numbers and gives formative hints, never a verdict: that is the grader's.

For instructors (see the book's "For instructors" page)::

    python -m mbdlib.exercises generate solutions exercises [--check]
    python -m mbdlib.exercises release exercises/ch03_constraints.ipynb --roster roster.csv \
        --secret-file secret --out release/          # refuses notebooks with solutions or outputs
    python -m mbdlib.exercises grade submissions/ --chapter 3 --roster roster.csv \
        --secret-file secret --out grades.csv --totals totals.csv --totals-format canvas \
        --feedback feedback/ --workers 2             # exit status 1: see grades.problems.csv
    python -m mbdlib.exercises release solutions/ch03_constraints.ipynb --nbgrader --out source/

The grader refuses or flags, never guesses: files that match no one, duplicates, unreadable or oversized
notebooks, variants it cannot verify (no or another secret, an edited variant cell) and notebooks released
for someone else are rows and problems, with a non-zero exit status. Each submission runs confined
(:mod:`.sandbox`: namespaces, a user and cgroups of its own, a disk quota, where the machine offers them;
``--require-isolation`` refuses otherwise and names what is missing).

Modules: :mod:`.compare` (answer comparison and generic hints), :mod:`.answers` (answers as inert
records), :mod:`.core` (exercises, registry, :func:`check`, variants in the notebook), :mod:`.generate`
(student versions), :mod:`.variants` (per-student numbers, verification of a released notebook),
:mod:`.roster` (identities and problems), :mod:`.release` (per-student notebooks, nbgrader sources),
:mod:`.grade` (batch grading) with :mod:`.sandbox` (confined kernels), :mod:`.collect` (the grader's
cell), :mod:`.judging` (verdicts in a bounded child process) and :mod:`.exports` (feedback, gradebook
totals for Canvas, Moodle or a spreadsheet, mistake counts), ``chNN`` (each chapter's exercises).
The checking engine does not import the rest of mbdlib; only the chapter modules do.
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
