"""Assertions shared by the chapter exercise tests (tests/test_exercises_chNN.py)."""

from mbdlib.exercises import evaluate, get


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
