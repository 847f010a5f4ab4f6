"""The check engine on toy exercises: verdicts, records, never crashing (mbdlib.exercises.core)."""

import json
import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from mbdlib.exercises import MIME, Exercise, Mistake, check, evaluate, exercises, get, register
from mbdlib.exercises.core import judge

# Toy exercises of a chapter 0 that exists only in the tests: the engine must not need mbdlib's physics.
ROT = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
register(
    Exercise(
        "0.1",
        "A rotation matrix",
        2,
        reference=lambda: ROT,
        mistakes=[Mistake(lambda: ROT.T, "transposed: columns are the body axes")],
    )
)
register(
    Exercise(
        "0.2",
        "Square function",
        3,
        reference=lambda x: np.array([x**2, 2 * x]),
        cases=[(0.5,), (-1.5,), (2.0,)],
        mistakes=[Mistake(lambda x: np.array([x**2, x]), "the derivative of x^2 is 2x")],
    )
)
register(
    Exercise(
        "0.3", "Unit quaternion", 1, reference=lambda: [1.0, 0, 0, 0], alternatives=[lambda: [-1.0, 0, 0, 0]]
    )
)
x = sp.Symbol("x", real=True)
register(Exercise("0.10", "A formula", 1, reference=lambda: sp.Matrix([sp.sin(x) ** 2, 1])))
register(
    Exercise(
        "0.4",
        "Not normalised",
        1,
        reference=lambda: np.array([0.6, 0.8]),
        mistakes=[Mistake.when(lambda s, e: abs(np.linalg.norm(s) - 1) > 1e-3, "normalise it")],
    )
)


def test_correct_wrong_unanswered_with_points():
    assert evaluate("0.1", ROT.tolist()) == evaluate("0.1", ROT)
    v = evaluate("0.1", ROT)
    assert (v.verdict, v.points, v.max_points, v.hint) == ("correct", 2, 2, "")
    w = evaluate("0.1", ROT.T)
    assert (w.verdict, w.points, w.hint) == ("wrong", 0, "transposed: columns are the body axes")
    assert evaluate("0.1", None).verdict == "unanswered"


def test_generic_fallback_names_the_entry():
    B = ROT.copy()
    B[2, 1] = 0.34
    # the direction only: "should be zero" would print the key's entry
    assert evaluate("0.1", B).hint == "entry [2, 1] is too large"
    B[2, 1], B[0, 1] = 0.0, 0.0
    assert evaluate("0.1", B).hint == "entry [0, 1] is zero (too large): a missing term?"


def test_function_answers_are_called_at_every_case():
    assert evaluate("0.2", lambda x: [x * x, 2 * x]).verdict == "correct"
    assert evaluate("0.2", lambda x: np.array([x**2, x])).hint == "the derivative of x^2 is 2x"
    # right only at the first case: the other cases catch it
    v = evaluate("0.2", lambda x: np.array([0.25, 1.0]))
    assert v.verdict == "wrong" and "for input (-1.5)" in v.hint
    e = evaluate("0.2", lambda x: 1 / 0)
    assert e.verdict == "error" and "ZeroDivisionError" in e.hint and "0.5" in e.hint
    assert evaluate("0.2", lambda x: None).verdict == "unanswered"
    assert "expected a function" in evaluate("0.2", 3.0).hint
    assert "string" in evaluate("0.2", lambda x: "abc").hint


def test_alternative_answers_and_predicate_mistakes():
    assert evaluate("0.3", [-1, 0, 0, 0]).verdict == "correct"
    assert evaluate("0.4", [1.2, 1.6]).hint == "normalise it"
    assert evaluate("0.4", [0.6, 0.8]).verdict == "correct"


def test_formula_answers():
    assert evaluate("0.10", sp.Matrix([1 - sp.cos(x) ** 2, 1])).verdict == "correct"
    assert evaluate("0.10", sp.Matrix([sp.cos(x) ** 2, 1])).verdict == "wrong"


def test_unknown_exercise_is_a_verdict_listing_known_ids():
    v = evaluate("0.99", 1.0)
    assert v.verdict == "error" and "0.99" in v.hint and "0.1" in v.hint
    assert evaluate("nonsense", 1.0).verdict == "error"
    with pytest.raises(KeyError, match="no exercise"):
        get("0.99")


def test_registry_orders_ids_numerically():
    ids = [e.id for e in exercises(0)]
    assert ids.index("0.4") < ids.index("0.10")
    with pytest.raises(ValueError, match="must look like"):
        Exercise("one", "bad id", 1, reference=lambda: 0)


def test_verdict_bundle_is_text_and_html_and_deterministic():
    bundle = evaluate("0.1", ROT.T)._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}  # a verdict alone is no record: nothing to grade
    assert bundle["text/plain"] == "✗ 0.1 wrong: transposed: columns are the body axes"
    assert "<div" in bundle["text/html"]
    assert evaluate("0.1", ROT.T)._repr_mimebundle_() == bundle


def test_check_records_the_answer_not_the_verdict(monkeypatch):
    shown = []
    monkeypatch.setattr("mbdlib.exercises.core._show", lambda bundle, text: shown.append(bundle))
    check("0.1", ROT.T)
    rec = shown[0][MIME]
    assert json.loads(json.dumps(rec)) == rec
    assert "verdict" not in rec and rec["exercise"] == "0.1" and rec["schema"] == 2
    assert np.allclose(np.array(rec["answer"]["data"]).reshape(rec["answer"]["shape"]), ROT.T)
    assert shown[0]["text/plain"].startswith("✗ 0.1 wrong")


def test_error_text_has_no_memory_address():
    class Thing:
        pass

    def f(x):
        raise ValueError(repr(Thing()))

    hint = evaluate("0.2", f).hint
    assert "0x" not in hint and "Thing" in hint


def test_check_prints_one_line_outside_a_notebook(capsys):
    assert check("0.1", ROT) is None
    assert capsys.readouterr().out == "✓ 0.1 correct (2/2 points)\n"


def test_a_broken_mistake_or_reference_never_escapes():
    register(
        Exercise("0.5", "Broken mistake", 1, reference=lambda: 1.0, mistakes=[Mistake(lambda: 1 / 0, "x")])
    )
    assert evaluate("0.5", 2.0).verdict == "wrong"
    register(Exercise("0.6", "Broken reference", 1, reference=lambda: 1 / 0))
    v = evaluate("0.6", 2.0)
    assert v.verdict == "error" and "checker itself failed" in v.hint


class Weird:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("no array for you")


NASTY = [
    None,
    ...,
    math.nan,
    [math.nan] * 3,
    math.inf,
    "A",
    b"bytes",
    {},
    set(),
    object(),
    Weird(),
    [[1, 2], [3]],
    1j,
    True,
    print,
    lambda: 1,
    np.array([]),
    np.zeros((3, 3, 3)),
    sp.Symbol("y"),
    sp.Matrix([[sp.Symbol("x")]]),
    [sp.Matrix([1]), sp.Matrix([1, 2])],
    sp.zoo,
    sp.nan,
]


@pytest.mark.parametrize("answer", NASTY, ids=range(len(NASTY)))
@pytest.mark.parametrize("exercise", ["0.1", "0.2", "0.3", "0.4", "0.10"])
def test_never_crashes(exercise, answer):
    v = evaluate(exercise, answer)
    assert v.verdict in ("correct", "wrong", "unanswered", "error")
    assert v.verdict != "correct" or answer is not None


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(
        st.none(),
        st.text(max_size=5),
        st.floats(),
        st.lists(st.floats(), max_size=10),
        st.lists(st.lists(st.floats(), max_size=4), max_size=4),
        st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    )
)
def test_never_crashes_on_anything(answer):
    for ex in ("0.1", "0.2", "0.10"):
        assert evaluate(ex, answer).verdict in ("correct", "wrong", "unanswered", "error")


@pytest.mark.parametrize("chapter", range(1, 9))
def test_every_registered_mistake_is_wrong_and_shows_its_own_hint(chapter):
    # a mistake equal to the reference (or shadowed by an earlier one) would never show its hint
    registered = exercises(chapter)
    assert registered, f"chapter {chapter} has no exercises"
    for e in registered:
        # with the public parameters, and with two students' own (variants)
        variants = [dict(e.params)] + ([e.params_for(np.random.default_rng(s)) for s in (1, 2)]
                                       if e.variant is not None else [])
        for params in variants:
            for mistake in e.mistakes:
                if mistake.answer is None:
                    continue
                if e.is_function:  # a function exercise's mistake is itself the wrong function
                    def wrong(*case, _m=mistake, _p=params):
                        return _m.answer(*case, **_p)
                    cases = e.grading_cases(None)
                    v = judge(e, [wrong(*c) for c in cases], cases, params)
                else:
                    v = judge(e, [mistake.answer(**params)], [()], params)
                assert (v.verdict, v.hint) == ("wrong", mistake.hint), (e.id, params, mistake.hint)


def test_register_refuses_a_course_id_unless_told_to_replace_it():
    course_1_12 = get("1.12")
    refused = r"exercise 1\.12 is the course's .*mbdlib\.exercises list 1.*replace=True"
    with pytest.raises(ValueError, match=refused):
        register(Exercise("1.12", "An instructor's own", 1, reference=lambda: 1.0))
    assert get("1.12") is course_1_12  # nothing changed
    # an id of one's own: a cell run twice replaces its first definition
    register(Exercise("0.81", "Mine", 1, reference=lambda: 1.0))
    register(Exercise("0.81", "Mine, corrected", 1, reference=lambda: 2.0))
    assert get("0.81").title == "Mine, corrected"
    try:
        assert register(Exercise("1.12", "On purpose", 1, reference=lambda: 1.0), replace=True) is get("1.12")
    finally:
        register(course_1_12, replace=True)
    assert get("1.12") is course_1_12
