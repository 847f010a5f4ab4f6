"""Exercises, the registry, and the check a student runs in a notebook.

An :class:`Exercise` declares

* a **reference**: a function of the test inputs returning the expected answer
  (value exercises have one case with no inputs, so the reference takes no
  argument; function exercises list their test inputs in ``cases``);
* **alternatives**: other answers that are just as correct (``-q`` for a
  quaternion ``q``);
* **mistakes**: functions producing a typical wrong answer, each with the hint
  to show when the student's answer matches it;
* optionally **parameters**: the public ones (``params``, the numbers of the
  self-study notebooks) and a generator of per-student ones (``variant``);
  function exercises may also generate **hidden cases** for grading.

:func:`evaluate` turns an answer into a :class:`Verdict`; :func:`check` shows
the verdict in the notebook (one line) together with a machine-readable
record (mimetype :data:`MIME`) that batch grading collects.  Neither ever
raises: a wrong type, a NaN, ``None`` or an exception inside a student's
function all become verdicts.

**The record is not a grade.** It carries the student's *answer* as inert data
(:mod:`.answers`), never a verdict that counts: the grader
(:mod:`.grade`) recomputes every verdict from the answer and its own keys, so
a notebook that displays a record of its own making gains nothing it did not
compute. Hints say what is wrong (a sign, a factor, a transpose, which entry)
without printing the expected value; :func:`show_solution` prints it on
request, and its record marks the exercise as "solution shown".

**Variants.** A notebook released for one student (``python -m
mbdlib.exercises release``) starts with :func:`use_variant`; the student's
parameters then come from :func:`params`, and :func:`check` of a value
exercise validates only what needs no key (type, shape, finiteness, and the
exercise's own sanity test, e.g. an orthonormal DCM): its verdict is computed
at grading, from the course secret and the student's id.

Chapter modules (``mbdlib.exercises.ch01`` ...) call :func:`register`; they are
imported on demand the first time one of their exercise ids is needed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import importlib
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from .answers import serialize
from .compare import AnswerTypeError, diagnose, diagnosis, normalize, same, shape_of

MIME = "application/vnd.mbdlib.check+json"
"""Mimetype of the record each check displays (read by :mod:`mbdlib.exercises.grade`)."""

VERDICTS = ("correct", "wrong", "unanswered", "error", "pending")
"""``pending``: a variant's value answer that looks sane; its verdict is computed at grading."""

RECORD_SCHEMA = 2


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
    key: str = ""

    @classmethod
    def when(cls, test: Callable[[Any, Any], bool], hint: str, key: str = "") -> Mistake:
        """A mistake recognised by a predicate ``test(student, expected) -> bool``."""
        return cls(None, hint, test, key)

    @property
    def slug(self) -> str:
        """The mistake's stable key: ``key`` if given, else the hint's first words and a digest of it.

        Grading writes it into ``grades.csv`` so that an instructor can count who made which mistake; it
        stays the same from run to run as long as the hint does, and two different hints never share it.

        >>> Mistake(None, "your matrix is the transpose of A: columns are body axes").slug
        'matrix-transpose-columns-body-axes-9fb511'
        """
        return self.key or f"{_slug(self.hint)}-{hashlib.sha256(self.hint.encode()).hexdigest()[:6]}"


_STOP = {"a", "an", "the", "is", "are", "of", "you", "your", "it", "its", "in", "to", "that", "this", "not",
         "and", "or", "be", "by", "for", "on", "as", "at", "with", "from", "was", "were", "has", "have"}


def _slug(text: str, words: int = 5) -> str:
    kept = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP]
    return "-".join(kept[:words]) or "mistake"


@dataclass
class Exercise:
    """One checkable exercise.

    Parameters
    ----------
    id : str
        ``"<chapter>.<number>"``, e.g. ``"1.3"``; a *practice* exercise, the short one inside a
        chapter's page with its folded solution, is ``"<chapter>.P<number>"``, e.g. ``"3.P2"``:
        it has no points and is never released or graded (:func:`practice_exercises`).
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
    params : dict
        The public parameters (keyword arguments of ``reference``, the mistakes and the
        alternatives): the numbers of the self-study notebook. Empty for an exercise without any.
    variant : callable, optional
        ``variant(rng) -> dict``: parameters for one student, drawn from a
        ``numpy.random.Generator`` seeded by the course secret and the student's id.
    hidden_cases : callable, optional
        Function exercises: ``hidden_cases(rng, **params) -> list of tuples``, the cases the
        grader calls the student's function on (random states, other sizes); the student
        never sees them. Default: the public ``cases``.
    sanity : callable, optional
        ``sanity(answer, **params) -> str or None``: a problem that can be seen without the
        key (e.g. "not orthonormal"), for the in-notebook check of a variant.
    function_name : str, optional
        Function exercises: the name the notebook gives the function (the grader looks it up
        when the student never called check for it).
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
    params: dict = field(default_factory=dict)
    variant: Callable[[np.random.Generator], dict] | None = None
    hidden_cases: Callable[..., list] | None = None
    sanity: Callable[..., str | None] | None = None
    function_name: str | None = None
    chapter: int = field(init=False)

    def __post_init__(self):
        if not re.fullmatch(r"\d+\.P?\d+[a-z]?", self.id):
            raise ValueError(f"exercise id {self.id!r} must look like '1.3' (chapter.number) or, for a "
                             "practice exercise inside a page, '1.P3'")
        if self.practice and self.points != 0:
            raise ValueError(f"practice exercise {self.id}: points must be 0 (practice is never graded)")
        self.chapter = int(self.id.split(".")[0])

    @property
    def practice(self) -> bool:
        """True for a practice exercise inside a chapter's page (``"3.P2"``): no points, never graded."""
        return ".P" in self.id

    @property
    def is_function(self) -> bool:
        return self.cases is not None

    @property
    def has_variants(self) -> bool:
        """True if each student can get their own parameters (or hidden cases)."""
        return self.variant is not None or self.hidden_cases is not None

    def key(self, *case, params: dict | None = None):
        """The expected answer for ``case`` with ``params`` (default: the public parameters)."""
        return self.reference(*case, **(self.params if params is None else params))

    def params_for(self, rng: np.random.Generator | None) -> dict:
        """The parameters of a variant drawn with ``rng`` (the public ones without a generator)."""
        if rng is None or self.variant is None:
            return dict(self.params)
        return dict(self.variant(rng))

    def grading_cases(self, rng: np.random.Generator | None, params: dict | None = None) -> list[tuple]:
        """The cases a function exercise is graded on: hidden ones drawn with ``rng``, else the public."""
        if not self.is_function:
            return [()]
        if rng is None or self.hidden_cases is None:
            return [tuple(c) for c in self.cases]
        return [tuple(c) for c in self.hidden_cases(rng, **(self.params if params is None else params))]


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check (also the JSON record batch grading reads)."""

    exercise: str
    verdict: str
    points: float
    max_points: float
    hint: str = ""
    mistake: str = ""
    """The key of the mistake recognised, if any: ``Mistake.slug``, or ``generic:<kind>``, ``type:<kind>``."""

    def text(self) -> str:
        """One line for people, e.g. ``✓ 1.3 correct (2/2 points)`` (``✓ 3.P1 correct`` for practice)."""
        if self.verdict == "correct":
            if not self.max_points:
                return f"✓ {self.exercise} correct"
            if self.hint:  # a function exercise (the public cases only), or its solution was shown
                at_stake = f" ({_num(self.max_points)} points)" if self.points else ""
                return f"✓ {self.exercise} correct {self.hint}{at_stake}"
            return f"✓ {self.exercise} correct ({_num(self.points)}/{_num(self.max_points)} points)"
        if self.verdict == "unanswered":
            return f"… {self.exercise} not answered yet: {self.hint}"
        if self.verdict == "pending":
            return f"○ {self.exercise} {self.hint}"
        mark = "✗" if self.verdict == "wrong" else "⚠"
        return f"{mark} {self.exercise} {self.verdict}: {self.hint}"

    def html(self) -> str:
        colour = {"correct": "#1a7f37", "wrong": "#b3261e", "unanswered": "#555", "error": "#9a6700",
                  "pending": "#0b5cad"}
        return (
            f'<div class="mbdlib-check mbdlib-{self.verdict}" '
            f'style="color:{colour[self.verdict]};font-family:sans-serif">{html.escape(self.text())}</div>'
        )

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": self.text(), "text/html": self.html()}


def _num(x: float) -> str:
    return f"{x:g}"


# ---------------------------------------------------------------- registry
_REGISTRY: dict[str, Exercise] = {}
_COURSE_IDS: set[str] = set()   # ids registered by the chapter modules


_COURSE_MODULE = re.compile(r"mbdlib\.exercises\.ch\d\d$")   # the chapter modules: the course's own exercises


def register(exercise: Exercise, replace: bool = False) -> Exercise:
    """Add an exercise to the registry.

    An id the course's chapter modules already use (``python -m mbdlib.exercises list N`` shows them) is
    refused with a ``ValueError``, since replacing it would change what every notebook and the grader ask
    for that id; ``replace=True`` replaces it on purpose. An id of your own can be registered again (a
    notebook cell run twice): the new definition replaces the old.
    """
    chapter = re.match(r"(\d+)\.", exercise.id)
    caller = sys._getframe(1).f_globals.get("__name__", "")
    if not _COURSE_MODULE.match(caller):
        if chapter:
            _load_chapter(int(chapter.group(1)))   # so that the course's ids of that chapter are known
        if exercise.id in _COURSE_IDS and not replace:
            old = _REGISTRY[exercise.id]
            raise ValueError(f"register: exercise {exercise.id} is the course's {old.title!r}; give yours an "
                             f"id chapter {old.chapter} does not use (python -m mbdlib.exercises list "
                             f"{old.chapter}), or pass replace=True to replace it")
    else:
        _COURSE_IDS.add(exercise.id)
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
    """The exercises of a chapter's exercise notebook, in order (``1.2`` before ``1.10``).

    Practice exercises (the ones inside the chapter's pages) are not among them: see
    :func:`practice_exercises`.
    """
    _load_chapter(int(chapter))
    return sorted((e for e in _REGISTRY.values() if e.chapter == int(chapter) and not e.practice),
                  key=lambda e: _sort_key(e.id))


def practice_exercises(chapter: int) -> list[Exercise]:
    """The practice exercises inside a chapter's pages (``3.P1``, ``3.P2``, ...), in order."""
    _load_chapter(int(chapter))
    return sorted((e for e in _REGISTRY.values() if e.chapter == int(chapter) and e.practice),
                  key=lambda e: _sort_key(e.id))


def _sort_key(exercise_id: str):
    chapter, number = exercise_id.split(".", 1)
    digits = re.match(r"P?(\d+)", number)
    return (int(chapter), number.startswith("P"), int(digits.group(1)) if digits else 0, number)


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


class _Answered(Exception):
    """Raised inside :func:`outputs_of` when the answer already decides the verdict (unanswered, bad type)."""

    def __init__(self, kind: str, hint: str):
        super().__init__(hint)
        self.kind, self.hint = kind, hint


def outputs_of(ex: Exercise, answer: Any, cases: Sequence[tuple]) -> list:
    """The student's results, one per case (the answer itself for a value exercise), not yet normalised.

    Raises :class:`_Answered` when the answer decides the verdict by itself (not answered, not a
    function, an exception in the student's function).
    """
    if _unanswered(answer):
        what = "a function" if ex.is_function else "your answer"
        raise _Answered("unanswered", f"replace None with {what}")
    if not ex.is_function:
        out = answer if ex.prepare is None else ex.prepare(answer)
        if _unanswered(out):
            raise _Answered("unanswered", "replace None with your answer")
        return [out]
    if not callable(answer):
        raise _Answered("wrong", f"expected a function (def ...), got a {type(answer).__name__}")
    given = []
    for case in cases:
        try:
            out = answer(*case)
        except Exception as exc:  # noqa: BLE001 - the student's code may raise anything
            why = f"{type(exc).__name__}: {_clean(str(exc))}"
            raise _Answered("error", f"your function raised {why} for input {_describe(case)}") from None
        if out is None:
            raise _Answered("unanswered", "your function returns None: write its body (and a return)")
        given.append(out)
    return given


def judge(ex: Exercise, outputs: Sequence, cases: Sequence[tuple], params: dict | None = None) -> Verdict:
    """The verdict on the student's results ``outputs`` (one per case) against the keys for ``params``.

    This is the whole decision: :func:`check` calls it in the notebook (public parameters), the grader
    calls it in its own process with the answers read from the records and the student's parameters
    and hidden cases. Hints never print an expected value.
    """
    params = dict(ex.params if params is None else params)

    def verdict(kind: str, hint: str = "", mistake: str = "") -> Verdict:
        return Verdict(ex.id, kind, ex.points if kind == "correct" else 0, ex.points, hint, mistake)

    cases = list(cases)
    if len(outputs) != len(cases):
        return verdict("error", f"{len(outputs)} results for {len(cases)} cases")
    given = []
    for out, case in zip(outputs, cases, strict=True):
        try:
            given.append(normalize(out))
        except AnswerTypeError as exc:
            where = f" for input {_describe(case)}" if ex.is_function else ""
            msg = str(exc)
            if ex.is_function:
                msg = msg.replace("your answer", "your function's result", 1)
            return verdict("wrong", msg + where, "type:" + _slug(str(exc), 3))
    keys = _keys(ex, cases, params)
    if _all_same(ex, given, keys) or any(_all_same(ex, given, a) for a in _alternatives(ex, cases, params)):
        return verdict("correct")
    mistake = _known_mistake(ex, given, keys, cases, params)
    if mistake is not None:
        return verdict("wrong", mistake.hint, mistake.slug)
    for i, (g, k, c) in enumerate(zip(given, keys, cases, strict=True)):
        if not same(g, k, ex.rtol, ex.atol, seed=i):
            kind, hint = diagnosis(g, k, ex.rtol, ex.atol, seed=i)
            if ex.is_function:
                hint = f"for input {_describe(c)}: {hint}"
            return verdict("wrong", hint, "generic:" + kind)
    return verdict("wrong", "your answer is not the expected one")  # pragma: no cover - unreachable


def _keys(ex: Exercise, cases: Sequence[tuple], params: dict) -> list:
    return [normalize(ex.reference(*c, **params)) for c in cases]


def _alternatives(ex: Exercise, cases: Sequence[tuple], params: dict):
    for alt in ex.alternatives:
        try:
            yield [normalize(alt(*c, **params)) for c in cases]
        except Exception:  # noqa: BLE001 - an alternative that does not apply here does not match
            continue


def _all_same(ex: Exercise, given: list, expected: list) -> bool:
    pairs = enumerate(zip(given, expected, strict=True))
    return all(same(g, e, ex.rtol, ex.atol, seed=i) for i, (g, e) in pairs)


def _known_mistake(ex: Exercise, given: list, keys: list, cases: Sequence[tuple],
                   params: dict) -> Mistake | None:
    """The first of the exercise's mistakes that the normalised results ``given`` match, if any."""
    for mistake in ex.mistakes:
        try:
            if mistake.test is not None:
                hit = all(bool(mistake.test(g, k)) for g, k in zip(given, keys, strict=True))
            else:
                hit = _all_same(ex, given, [normalize(mistake.answer(*c, **params)) for c in cases])
        except Exception:  # noqa: BLE001 - a mistake that cannot be produced here does not match
            hit = False
        if hit:
            return mistake
    return None


def evaluate(exercise_id: str, answer: Any, params: dict | None = None) -> Verdict:
    """Judge ``answer`` for exercise ``exercise_id`` with the public parameters (or ``params``); never raises.

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
        cases = exercise.grading_cases(None)
        try:
            outputs = outputs_of(exercise, answer, cases)
        except _Answered as a:
            return Verdict(exercise.id, a.kind, 0, exercise.points, a.hint)
        return judge(exercise, outputs, cases, params)
    except Exception as exc:  # noqa: BLE001
        hint = f"the checker itself failed ({type(exc).__name__}: {_clean(str(exc))}); tell your instructor"
        return Verdict(exercise.id, "error", 0, exercise.points, hint)


# ---------------------------------------------------------------- variants in a released notebook
_VARIANT: dict = {}       # {"student": ..., "params": {exercise id: params}} of a released notebook
_SUBMITTED: dict = {}     # exercise id -> the function handed to check() (read by the grader's cell)
_SHOWN: set = set()       # exercises whose solution this kernel has shown (later checks say so)


def encode_variant(student: str, chapter: int, params: dict, course: str = "",
                   secret: bytes | None = None) -> str:
    """The token a released notebook passes to :func:`use_variant`: the student's parameters, no keys.

    With the course ``secret`` the token also carries ``key_id``, a fingerprint of the secret (so that the
    grader can tell a wrong ``--secret-file`` from a wrong answer), and ``mac``, an HMAC of the rest (so
    that an edited variant cell is recognised); neither says anything about the secret or a key.
    """
    payload = {"student": str(student), "chapter": int(chapter), "course": str(course),
               "params": {k: _jsonable(v) for k, v in params.items()}}
    if secret is not None:
        payload["key_id"] = key_id(secret)
        payload["mac"] = variant_mac(secret, payload)
    return base64.urlsafe_b64encode(json.dumps(payload, sort_keys=True).encode()).decode()


def key_id(secret: bytes) -> str:
    """A short public fingerprint of the course secret (HMAC of a constant): which secret, not the secret."""
    return hmac.new(secret, b"mbdlib variant key id", hashlib.sha256).hexdigest()[:12]


def variant_mac(secret: bytes, payload: dict) -> str:
    """The HMAC-SHA256 (hex) of a variant token's payload without its ``mac``."""
    body = json.dumps({k: v for k, v in payload.items() if k != "mac"}, sort_keys=True).encode()
    return hmac.new(secret, body, hashlib.sha256).hexdigest()


def decode_variant(token: str) -> dict:
    """The payload of a variant token (``ValueError`` if it is not one)."""
    try:
        payload = json.loads(base64.urlsafe_b64decode(str(token).encode()))
        if not (isinstance(payload, dict) and isinstance(payload.get("params"), dict)):
            raise ValueError("no parameters")
        return payload
    except Exception as exc:  # noqa: BLE001
        raise ValueError("not a variant token") from exc


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    return x


def use_variant(token: str) -> None:
    """Load the parameters of a released notebook (its first code cell calls this; do not edit it)."""
    try:
        payload = decode_variant(token)
        params = {str(k): dict(v) for k, v in payload["params"].items()}
    except Exception as exc:  # noqa: BLE001
        raise ValueError("this notebook's variant cell was changed: ask your instructor for a new "
                         "copy") from exc
    _VARIANT.clear()
    _VARIANT.update(student=str(payload.get("student", "")), params=params)


def params(exercise_id: str) -> dict:
    """The parameters of exercise ``exercise_id`` in this notebook: the student's variant, or the public ones.

    >>> register(Exercise("0.95", "Scaled", 1, reference=lambda k=2.0: k, params={"k": 2.0})).id
    '0.95'
    >>> params("0.95")
    {'k': 2.0}
    """
    exercise = get(exercise_id)
    found = _VARIANT.get("params", {}).get(exercise.id)
    return _restore(found) if found is not None else dict(exercise.params)


def _restore(p: dict) -> dict:
    return {k: (np.asarray(v, dtype=float) if isinstance(v, list) and v and not isinstance(v[0], str) else v)
            for k, v in p.items()}


def _in_variant(exercise: Exercise) -> bool:
    return exercise.id in _VARIANT.get("params", {}) and not exercise.is_function


def _pending(exercise: Exercise, answer: Any) -> Verdict:
    """A variant's value answer in a released notebook: :func:`formative` with this notebook's numbers."""
    return formative(exercise, answer, params(exercise.id))


def formative(exercise: Exercise, answer: Any, params: dict | None = None) -> Verdict:
    """What a released notebook says about a value answer: problems and known mistakes, never the verdict.

    It checks what needs no key (type, shape, finite numbers, the exercise's sanity test: a wrong answer
    for sure, shown as such), then runs the exercise's mistake detectors on the student's own numbers
    ``params``: a recognised mistake gives its hint, as formative feedback. Otherwise (a right answer, or a
    wrong one no detector knows) it says only that the answer is recorded: the verdict comes at grading.
    Withholding the hints would protect nothing (the library computes the key of any numbers), while the
    verdict stays the grader's.
    """
    params = dict(exercise.params if params is None else params)

    def verdict(kind: str, hint: str, mistake: str = "") -> Verdict:
        return Verdict(exercise.id, kind, 0, exercise.points, hint, mistake)

    try:
        [out] = outputs_of(exercise, answer, [()])
    except _Answered as a:
        return verdict(a.kind, a.hint)
    try:
        given = normalize(out)
    except AnswerTypeError as exc:
        return verdict("wrong", str(exc), "type:" + _slug(str(exc), 3))
    public = normalize(exercise.key())
    shape = shape_of(public)  # the public key has the variant's shape
    if shape_of(given) != shape:
        return verdict("wrong", diagnose(given, public).split(":")[0], "generic:shape")
    if not isinstance(given, sp.MatrixBase) and not np.all(np.isfinite(given)):
        return verdict("wrong", "your answer contains NaN or an infinite value", "generic:nan")
    if exercise.sanity is not None:
        try:
            problem = exercise.sanity(out, **params)
        except Exception:  # noqa: BLE001 - a sanity test that cannot run says nothing
            problem = None
        if problem:
            return verdict("wrong", problem, "sanity:" + _slug(problem, 3))
    what = "a single number" if shape == () else f"shape {shape}"
    at_grading = "the verdict comes at grading (your variant)"
    try:
        keys = _keys(exercise, [()], params)
        right = _all_same(exercise, [given], keys) or any(
            _all_same(exercise, [given], alt) for alt in _alternatives(exercise, [()], params))
        mistake = None if right else _known_mistake(exercise, [given], keys, [()], params)
    except Exception:  # noqa: BLE001 - no formative hint rather than a crash
        mistake = None
    if mistake is not None:
        hint = f"recorded; a hint on your numbers: {mistake.hint}. The {at_grading[4:]}"
        return verdict("pending", hint, mistake.slug)
    return verdict("pending", f"recorded: {what}, none of the common mistakes we check for; {at_grading}")


def _record(exercise: Exercise, answer: Any) -> dict:
    record = {"schema": RECORD_SCHEMA, "exercise": exercise.id,
              "variant": _VARIANT.get("student", "") or "public"}
    if exercise.is_function:
        _SUBMITTED[exercise.id] = answer if callable(answer) else None
        record["function"] = getattr(answer, "__name__", None) if callable(answer) else None
        return record
    try:
        value = answer if exercise.prepare is None or _unanswered(answer) else exercise.prepare(answer)
    except Exception:  # noqa: BLE001 - the verdict line says what went wrong
        value = None
    record["answer"] = serialize(value)
    return record


def _show(bundle: dict, text: str) -> None:
    try:
        from IPython import get_ipython
        from IPython.display import display

        in_ipython = get_ipython() is not None
    except ImportError:  # pragma: no cover - IPython comes with the notebook tools
        in_ipython = False
    if in_ipython:
        display(bundle, raw=True)
    else:
        print(text)


def check(exercise_id: str, answer: Any) -> None:
    """Check ``answer`` for exercise ``exercise_id`` and show one short verdict.

    In a notebook the output carries the verdict as text and HTML plus a
    machine-readable record of the *answer* (mimetype :data:`MIME`) that
    batch grading judges again; in a plain Python session the text is printed.
    In a released variant, a value answer is checked for what needs no key and
    its verdict comes at grading. Never raises.

    Examples
    --------
    >>> _ = register(Exercise("0.92", "Pi", 1, reference=lambda: 3.14159, rtol=1e-3))
    >>> check("0.92", 3.1416)
    ✓ 0.92 correct (1/1 points)
    """
    try:
        exercise = get(exercise_id)
    except Exception:  # noqa: BLE001
        v = evaluate(exercise_id, answer)
        _show(v._repr_mimebundle_(), v.text())
        return
    v = _pending(exercise, answer) if _in_variant(exercise) else evaluate(exercise.id, answer)
    if v.verdict == "correct" and exercise.is_function and exercise.hidden_cases is not None \
            and not exercise.practice:
        v = Verdict(v.exercise, v.verdict, v.points, v.max_points, PUBLIC_ONLY)
    if exercise.id in _SHOWN:
        v = Verdict(v.exercise, v.verdict, 0, v.max_points, _after_solution(v))
    if exercise.practice:
        # practice inside a book page is never graded: no record of the answer (the book renders the
        # verdict's text/html; an unknown record type would be a build warning, and its digits would vary
        # between machines)
        _show(v._repr_mimebundle_(), v.text())
        return
    try:
        record = _record(exercise, answer)
    except Exception:  # noqa: BLE001 - never crash the notebook
        record = {"schema": RECORD_SCHEMA, "exercise": exercise.id, "answer": {"type": "other", "repr": "?"}}
    _show({**v._repr_mimebundle_(), MIME: record}, v.text())


PUBLIC_ONLY = "on the public cases; grading also uses unseen ones"
"""What a function exercise's check adds to "correct": the grader calls the function on other cases too."""


def _after_solution(v: Verdict) -> str:
    return (f"{v.hint} — " if v.hint else "") + ("but its solution was shown in this notebook: it scores 0 "
                                                 "points at grading")


def assert_correct(exercise_id: str, answer: Any) -> None:
    """Raise ``AssertionError`` (with the hint) unless ``answer`` is correct: the test of an nbgrader cell.

    >>> _ = register(Exercise("0.93", "One", 1, reference=lambda: 1.0))
    >>> assert_correct("0.93", 1.0)
    ✓ 0.93 correct (1/1 points)
    """
    v = evaluate(exercise_id, answer)
    print(v.text())
    if v.verdict != "correct":
        raise AssertionError(v.text())


def show_solution(exercise_id: str) -> None:
    """Show the expected answer of a (public) exercise; it then scores 0 points at grading, and says so.

    The record marks the exercise "solution shown" (the grader gives it no points) and later checks in the
    same notebook repeat it. Practice exercises (never graded) just show their answer. In a released
    variant the key of the student's own numbers is not shown (nothing is recorded).
    """
    try:
        exercise = get(exercise_id)
    except Exception as exc:  # noqa: BLE001
        _show({"text/plain": str(exc)}, str(exc))
        return
    if exercise.id in _VARIANT.get("params", {}):
        text = (f"{exercise.id}: no solution is shown for your own numbers (your variant); your answer is "
                "judged at grading. Nothing was recorded: the exercise still counts.")
        _show({"text/plain": text}, text)
        return
    if exercise.is_function:
        lines = [f"{exercise.id} solution: for input {_describe(c)} the result is "
                 f"{_format(exercise.key(*c))}" for c in exercise.grading_cases(None)]
    else:
        lines = [f"{exercise.id} solution: {_format(exercise.key())}"]
    if not exercise.practice:
        _SHOWN.add(exercise.id)
        lines.insert(0, f"{exercise.id}: solution shown, so this exercise will score 0 points at grading")
    text = "\n".join(lines)
    record = {"schema": RECORD_SCHEMA, "exercise": exercise.id, "solution_shown": True,
              "variant": _VARIANT.get("student", "") or "public"}
    _show({"text/plain": text, MIME: record} if not exercise.practice else {"text/plain": text}, text)


def _format(x) -> str:
    try:
        a = normalize(x)
    except AnswerTypeError:
        return repr(x)
    if isinstance(a, sp.MatrixBase):
        return str(a if a.shape != (1, 1) else a[0, 0])
    return np.array2string(np.round(a, 6) + 0.0, separator=", ")
