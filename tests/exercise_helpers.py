"""Assertions shared by the chapter exercise tests (tests/test_exercises_chNN.py)."""

import numpy as np

from mbdlib.exercises import evaluate, get
from mbdlib.exercises.core import judge


def assert_hint(exercise: str, answer, *words: str) -> None:
    """``answer`` is judged wrong, and its hint contains every one of ``words``."""
    v = evaluate(exercise, answer)
    assert v.verdict == "wrong", v
    for w in words:
        assert w in v.hint, (w, v.hint)


def assert_correct(exercise: str, answer) -> None:
    """``answer`` is judged correct and earns the exercise's points."""
    v = evaluate(exercise, answer)
    assert v.verdict == "correct", v
    assert v.points == get(exercise).points


class Exploding:
    """A junk answer that raises as soon as the checker tries to read it as numbers."""

    def __array__(self, *a, **k):
        raise RuntimeError("boom")

    def __float__(self):
        raise RuntimeError("boom")


def assert_never_crashes_never_correct(chapter: int, answer) -> None:
    """Every exercise of ``chapter`` judges the junk ``answer`` without raising and gives it no points."""
    from mbdlib.exercises import exercises

    for ex in exercises(chapter):
        v = evaluate(ex.id, answer)
        assert v.verdict in ("wrong", "unanswered", "error"), (ex.id, v)
        assert v.points == 0 and v.max_points == ex.points
        assert (v.verdict == "unanswered") == (answer is None)


# ---------------------------------------------------------------- per-student variants
#: Seeds of five students' independent generators.
VARIANT_SEEDS = (3, 4, 5, 6, 7)


def judged(exercise, answer, params):
    """The grader's verdict on a value ``answer`` for a student with ``params``."""
    return judge(get(exercise), [answer], [()], params)


def assert_variant_correct(exercise, answer, params):
    """``answer`` is correct for the student with ``params``."""
    v = judged(exercise, answer, params)
    assert v.verdict == "correct", (exercise, params, v)


def assert_variant_hint(exercise, answer, params, *words):
    """``answer`` is wrong for the student with ``params``, and the hint contains every one of ``words``."""
    v = judged(exercise, answer, params)
    assert v.verdict == "wrong", (exercise, params, v)
    for w in words:
        assert w in v.hint, (w, v.hint)


def variants(exercise):
    """The parameters of five students (independent generators)."""
    ex = get(exercise)
    assert ex.variant is not None and ex.params, exercise
    return [ex.params_for(np.random.default_rng(seed)) for seed in VARIANT_SEEDS]


def assert_keys_differ(exercise, params_list):
    """The answer keys of the students (and of the public numbers) differ: at most one coincidence."""
    ex = get(exercise)
    keys = [np.asarray(ex.key(params=p), dtype=float) for p in params_list + [ex.params]]
    distinct = {tuple(np.round(k.reshape(-1), 9)) for k in keys}
    assert len(distinct) >= len(keys) - 1, (exercise, keys)
