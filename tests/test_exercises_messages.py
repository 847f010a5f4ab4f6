"""What a student is told is so (issue 24).

* a function exercise right on its public cases is "correct on the public cases; grading also uses unseen
  ones" (it was "correct (3/3 points)" and then 0/3 at grading);
* ``show_solution`` says the exercise will score 0, and every later check of it says so too (a check
  said "correct (2/2 points)" while the grader gave 0); every notebook imports it in its first cell;
* in a released notebook the mistake detectors run on the student's own numbers: a recognised mistake
  gets its hint, formative, without a verdict; a right answer and an unrecognised wrong one get the same
  line;
* no raw warning (ComplexWarning) ever precedes a hint.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pytest

from mbdlib.exercises import MIME, Exercise, Mistake, check, core, exercises, get, register, show_solution
from mbdlib.exercises.core import PUBLIC_ONLY, encode_variant, formative, use_variant

ROOT = Path(__file__).resolve().parents[1]

register(Exercise("0.71", "Double it", 2, reference=lambda x: 2 * x, cases=[(1.0,), (2.0,)],
                  hidden_cases=lambda rng: [(float(x),) for x in rng.uniform(-5, 5, 4)]))
register(Exercise("0.72", "Double it, public cases only", 1, reference=lambda x: 2 * x, cases=[(1.0,)]))
register(Exercise("0.73", "A number", 2, reference=lambda k=3.0: k * k, params={"k": 3.0},
                  variant=lambda rng: {"k": float(rng.integers(4, 9))},
                  mistakes=[Mistake(lambda k=3.0: 2 * k, "you doubled k instead of squaring it")]))
register(Exercise("0.P7", "Practice", 0, reference=lambda x: x + 1, cases=[(1.0,)]))


@pytest.fixture
def shown(monkeypatch):
    """Collect what check/show_solution display (text and records), outside a notebook."""
    out = []
    monkeypatch.setattr(core, "_show", lambda bundle, text: out.append((text, bundle.get(MIME))))
    core._SHOWN.clear()
    core._VARIANT.clear()
    yield out
    core._SHOWN.clear()
    core._VARIANT.clear()


def test_a_function_right_on_the_public_cases_is_not_called_correct_without_saying_so(shown):
    check("0.71", lambda x: 2 * x)
    assert shown[-1][0] == f"✓ 0.71 correct {PUBLIC_ONLY} (2 points)"
    assert "(2/2 points)" not in shown[-1][0]
    check("0.72", lambda x: 2 * x)      # graded on the public cases: then "correct" is the whole truth
    assert shown[-1][0] == "✓ 0.72 correct (1/1 points)"
    check("0.P7", lambda x: x + 1)      # practice is never graded
    assert shown[-1][0] == "✓ 0.P7 correct"


def test_show_solution_says_zero_and_later_checks_repeat_it(shown):
    show_solution("0.73")
    text, record = shown[-1]
    assert "will score 0 points at grading" in text and record["solution_shown"] is True
    check("0.73", 9.0)
    assert shown[-1][0].startswith("✓ 0.73 correct but its solution was shown") and "0 points" in shown[-1][0]
    assert "(2/2 points)" not in shown[-1][0]
    check("0.73", 6.0)
    assert shown[-1][0].startswith("✗ 0.73 wrong: you doubled k") and "scores 0 points" in shown[-1][0]
    show_solution("0.P7")               # practice: the answer, no talk of points, no record
    assert "points" not in shown[-1][0] and shown[-1][1] is None


def test_in_a_released_notebook_known_mistakes_get_their_hint_and_nothing_is_a_verdict(shown):
    p = get("0.73").params_for(np.random.default_rng(5))
    use_variant(encode_variant("s1", 0, {"0.73": p}))
    right, doubled, other = p["k"] ** 2, 2 * p["k"], p["k"] ** 2 + 1.0
    lines = []
    for answer in (right, doubled, other):
        check("0.73", answer)
        lines.append(shown[-1][0])
        assert shown[-1][1]["answer"]["data"] == [answer]  # the answer is recorded for the grader
    assert "a hint on your numbers: you doubled k" in lines[1] and "verdict comes at grading" in lines[1]
    assert lines[0] == lines[2]         # right and (unrecognised) wrong look alike: no verdict
    assert not any(re.search(r"\b(correct|points)\b", line) for line in lines)
    assert formative(get("0.73"), doubled, p).verdict == "pending"
    # the public numbers' mistake is not this student's: judged on the student's own numbers
    assert "a hint" not in formative(get("0.73"), 2 * 3.0, p).hint


def test_no_raw_warning_before_a_hint(shown):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for answer in (np.array([1 + 0j, 2.0]), [1, 2j], np.array(["1.0", "2.0"]), [1.0, None]):
            check("0.73", answer)
            assert shown[-1][0].startswith("✗ 0.73 wrong: ")


NOTEBOOKS = sorted((ROOT / "solutions").glob("*.ipynb")) + sorted((ROOT / "exercises").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[f"{p.parent.name}/{p.stem}" for p in NOTEBOOKS])
def test_every_exercise_notebook_imports_show_solution_in_its_first_code_cell(path):
    nb = nbformat.read(path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert re.search(r"from mbdlib\.exercises import [^\n]*\bshow_solution\b", first.source), first.source


def test_the_exercise_registry_has_function_exercises_with_hidden_cases():
    """(The public-cases wording applies to real exercises: those that the grader calls on unseen cases.)"""
    hidden = [e.id for c in range(1, 8) for e in exercises(c) if e.is_function and e.hidden_cases]
    assert len(hidden) >= 7
