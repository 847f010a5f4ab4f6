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
