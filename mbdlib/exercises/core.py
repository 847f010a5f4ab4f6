"""Exercises, the registry, and the check a student runs in a notebook.

An :class:`Exercise` declares

* a **reference**: a function of the test inputs returning the expected answer
  (value exercises have one case with no inputs, so the reference takes no
  argument; function exercises list their test inputs in ``cases``);
* **alternatives**: other answers that are just as correct (``-q`` for a
  quaternion ``q``);
* **mistakes**: functions producing a typical wrong answer, each with the hint
  to show when the student's answer matches it.

:func:`evaluate` turns an answer into a :class:`Verdict`; :func:`check` shows
the verdict in the notebook (one line) together with a machine-readable
record (mimetype :data:`MIME`) that batch grading collects.  Neither ever
raises: a wrong type, a NaN, ``None`` or an exception inside a student's
function all become verdicts.

Chapter modules (``mbdlib.exercises.ch01`` ...) call :func:`register`; they are
imported on demand the first time one of their exercise ids is needed.
"""

from __future__ import annotations

import html
import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .compare import AnswerTypeError, diagnose, normalize, same

MIME = "application/vnd.mbdlib.check+json"
"""Mimetype of the record each check displays (read by :mod:`mbdlib.exercises.grade`)."""

VERDICTS = ("correct", "wrong", "unanswered", "error")


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer and the hint to show when the student's answer is that one.

    Either ``answer(*case)`` produces the wrong answer (it matches when the
    student's answer equals it within the exercise's tolerances), or
    ``test(student, expected)`` recognises it directly from the normalised
    student and expected answers (e.g. "a multiple of the right quaternion").
    """

    answer: Callable[..., Any] | None
    hint: str
    test: Callable[[Any, Any], bool] | None = None

    @classmethod
    def when(cls, test: Callable[[Any, Any], bool], hint: str) -> Mistake:
        """A mistake recognised by a predicate ``test(student, expected) -> bool``."""
        return cls(None, hint, test)


@dataclass
class Exercise:
    """One checkable exercise.

    Parameters
    ----------
    id : str
        ``"<chapter>.<number>"``, e.g. ``"1.3"``.
    title : str
        Short title (used in feedback files).
    points : float
        Points for a correct answer (0 otherwise).
    reference : callable
        ``reference(*case)`` returns the expected answer (a number, an array of
        any shape, or a sympy expression/Matrix).
    cases : sequence of tuples, optional
        Test inputs.  ``None`` (default) means a *value* exercise: one case with
        no inputs, and the student's answer is the value itself.  Otherwise a
        *function* exercise: the student's answer is called with each case.
    mistakes : sequence of Mistake
        Checked in order; the first one that matches gives the hint.
    alternatives : sequence of callables
        Other correct answers, same signature as ``reference``.
    rtol, atol : float
        Tolerances of the comparison (``numpy.allclose``).
    prepare : callable, optional
        Value exercises: turns the student's answer into what is compared (e.g. a corrected
        model into the numbers the exercise grades), so that ``check("6.2", model)`` works.
        It must not raise; ``None`` from it means "not answered".
    """

    id: str
    title: str
    points: float
    reference: Callable[..., Any]
    cases: Sequence[tuple] | None = None
    mistakes: Sequence[Mistake] = ()
    alternatives: Sequence[Callable[..., Any]] = ()
    rtol: float = 1e-6
    atol: float = 1e-9
    prepare: Callable[[Any], Any] | None = None
    chapter: int = field(init=False)

    def __post_init__(self):
        if not re.fullmatch(r"\d+\.\d+[a-z]?", self.id):
            raise ValueError(f"exercise id {self.id!r} must look like '1.3' (chapter.number)")
        self.chapter = int(self.id.split(".")[0])

    @property
    def is_function(self) -> bool:
        return self.cases is not None


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check (also the JSON record batch grading reads)."""

    exercise: str
    verdict: str
    points: float
    max_points: float
    hint: str = ""

    def record(self) -> dict:
        """The machine-readable record, as displayed under :data:`MIME`."""
        return {
            "exercise": self.exercise,
            "verdict": self.verdict,
            "points": self.points,
            "max_points": self.max_points,
            "hint": self.hint,
        }

    def text(self) -> str:
        """One line for people, e.g. ``✓ 1.3 correct (2/2 points)``."""
        pts = f"({_num(self.points)}/{_num(self.max_points)} points)"
        if self.verdict == "correct":
            return f"✓ {self.exercise} correct {pts}"
        if self.verdict == "unanswered":
            return f"… {self.exercise} not answered yet: {self.hint}"
        mark = "✗" if self.verdict == "wrong" else "⚠"
        return f"{mark} {self.exercise} {self.verdict}: {self.hint}"

    def html(self) -> str:
        colour = {"correct": "#1a7f37", "wrong": "#b3261e", "unanswered": "#555", "error": "#9a6700"}
        return (
            f'<div class="mbdlib-check mbdlib-{self.verdict}" '
            f'style="color:{colour[self.verdict]};font-family:sans-serif">{html.escape(self.text())}</div>'
        )

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": self.text(), "text/html": self.html(), MIME: self.record()}


def _num(x: float) -> str:
    return f"{x:g}"


# ---------------------------------------------------------------- registry
_REGISTRY: dict[str, Exercise] = {}


def register(exercise: Exercise) -> Exercise:
    """Add an exercise to the registry (re-registering the same id replaces it)."""
    _REGISTRY[exercise.id] = exercise
    return exercise


def _load_chapter(chapter: int) -> None:
    try:
        importlib.import_module(f"mbdlib.exercises.ch{chapter:02d}")
    except ModuleNotFoundError as exc:
        if exc.name != f"mbdlib.exercises.ch{chapter:02d}":
            raise


def get(exercise_id: str) -> Exercise:
    """The registered exercise ``exercise_id`` (loading its chapter module if needed).

    Raises ``KeyError`` with the list of known ids if there is none.
    """
    exercise_id = str(exercise_id)
    if exercise_id not in _REGISTRY and re.match(r"\d+\.", exercise_id):
        _load_chapter(int(exercise_id.split(".")[0]))
    if exercise_id not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY, key=_sort_key)) or "none loaded"
        raise KeyError(f"there is no exercise {exercise_id!r} (known: {known})")
    return _REGISTRY[exercise_id]


def exercises(chapter: int) -> list[Exercise]:
    """All exercises of a chapter, in order (``1.2`` before ``1.10``)."""
    _load_chapter(int(chapter))
    return sorted((e for e in _REGISTRY.values() if e.chapter == int(chapter)), key=lambda e: _sort_key(e.id))


def _sort_key(exercise_id: str):
    chapter, number = exercise_id.split(".", 1)
    digits = re.match(r"\d+", number)
    return (int(chapter), int(digits.group()) if digits else 0, number)


# ---------------------------------------------------------------- checking
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _clean(text: str, limit: int = 200) -> str:
    """Exception text without memory addresses, cut to ``limit`` characters (deterministic output)."""
    text = _ADDRESS.sub("", text).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(case: tuple) -> str:
    parts = []
    for x in case:
        try:
            parts.append(np.array2string(np.asarray(x, dtype=float), precision=4, separator=", "))
        except (TypeError, ValueError):
            parts.append(_clean(repr(x), 60))
    return "(" + ", ".join(parts) + ")"


def _unanswered(answer) -> bool:
    return answer is None or answer is Ellipsis


def evaluate(exercise_id: str, answer: Any) -> Verdict:
    """Judge ``answer`` for exercise ``exercise_id``; never raises.

    Examples
    --------
    >>> ex = register(Exercise("0.91", "Two times three", 1, reference=lambda: 6.0,
    ...                        mistakes=[Mistake(lambda: 5.0, "that is 2 + 3, not 2 x 3")]))
    >>> evaluate("0.91", 6).verdict
    'correct'
    >>> evaluate("0.91", 5).hint
    'that is 2 + 3, not 2 x 3'
    >>> evaluate("0.91", None).verdict
    'unanswered'
    >>> evaluate("0.91", "six").verdict
    'wrong'
    """
    try:
        exercise = get(exercise_id)
    except Exception as exc:  # noqa: BLE001 - a check must never crash the notebook
        return Verdict(str(exercise_id), "error", 0, 0, _clean(str(exc).strip("'\"")))
    try:
        return _evaluate(exercise, answer)
    except Exception as exc:  # noqa: BLE001
        hint = f"the checker itself failed ({type(exc).__name__}: {_clean(str(exc))}); tell your instructor"
        return Verdict(exercise.id, "error", 0, exercise.points, hint)


def _evaluate(ex: Exercise, answer: Any) -> Verdict:
    def verdict(kind: str, hint: str = "") -> Verdict:
        return Verdict(ex.id, kind, ex.points if kind == "correct" else 0, ex.points, hint)

    if _unanswered(answer):
        what = "a function" if ex.is_function else "your answer"
        return verdict("unanswered", f"replace None with {what}")
    cases = list(ex.cases) if ex.is_function else [()]
    if ex.is_function and not callable(answer):
        return verdict("wrong", f"expected a function (def ...), got a {type(answer).__name__}")

    # the student's answers, one per case
    given = []
    for case in cases:
        if ex.is_function:
            try:
                out = answer(*case)
            except Exception as exc:  # noqa: BLE001
                why = f"{type(exc).__name__}: {_clean(str(exc))}"
                return verdict("error", f"your function raised {why} for input {_describe(case)}")
            if out is None:
                return verdict("unanswered", "your function returns None: write its body (and a return)")
        else:
            out = answer if ex.prepare is None else ex.prepare(answer)
            if _unanswered(out):
                return verdict("unanswered", "replace None with your answer")
        try:
            given.append(normalize(out))
        except AnswerTypeError as exc:
            where = f" for input {_describe(case)}" if ex.is_function else ""
            msg = str(exc)
            if ex.is_function:
                msg = msg.replace("your answer", "your function's result", 1)
            return verdict("wrong", msg + where)

    def matches(produce: Callable) -> bool:
        try:
            return _all_same(produce)
        except Exception:  # noqa: BLE001 - a mistake that cannot be produced here does not match
            return False

    def _all_same(produce: Callable) -> bool:
        return all(
            same(g, normalize(produce(*c)), ex.rtol, ex.atol, seed=i)
            for i, (g, c) in enumerate(zip(given, cases, strict=True))
        )

    if _all_same(ex.reference) or any(matches(alt) for alt in ex.alternatives):
        return verdict("correct")
    def recognised(test: Callable) -> bool:
        try:
            return all(bool(test(g, normalize(ex.reference(*c)))) for g, c in zip(given, cases, strict=True))
        except Exception:  # noqa: BLE001 - a predicate that does not apply does not match
            return False

    for mistake in ex.mistakes:
        if recognised(mistake.test) if mistake.test else matches(mistake.answer):
            return verdict("wrong", mistake.hint)
    for i, (g, c) in enumerate(zip(given, cases, strict=True)):
        expected = normalize(ex.reference(*c))
        if not same(g, expected, ex.rtol, ex.atol, seed=i):
            hint = diagnose(g, expected, ex.rtol, ex.atol, seed=i)
            if ex.is_function:
                hint = f"for input {_describe(c)}: {hint}"
            return verdict("wrong", hint)
    return verdict("wrong", "your answer is not the expected one")  # pragma: no cover - unreachable


def check(exercise_id: str, answer: Any) -> None:
    """Check ``answer`` for exercise ``exercise_id`` and show one short verdict.

    In a notebook the output carries the verdict as text and HTML plus a
    machine-readable record (mimetype :data:`MIME`); in a plain Python
    session the text is printed.  Never raises.

    Examples
    --------
    >>> _ = register(Exercise("0.92", "Pi", 1, reference=lambda: 3.14159, rtol=1e-3))
    >>> check("0.92", 3.1416)
    ✓ 0.92 correct (1/1 points)
    """
    v = evaluate(exercise_id, answer)
    try:
        from IPython import get_ipython
        from IPython.display import display

        in_ipython = get_ipython() is not None
    except ImportError:  # pragma: no cover - IPython comes with the notebook tools
        in_ipython = False
    if in_ipython:
        display(v._repr_mimebundle_(), raw=True)
    else:
        print(v.text())
