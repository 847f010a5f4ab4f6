"""No hint gives the key away, in any chapter (extends the chapters' own no-reveal tests, issue 24).

For every registered exercise (graded and practice), at the public numbers and at two students' numbers,
every text a wrong answer can produce is collected: each mistake's hint, the verdict on each mistake's
answer, the generic diagnoses of nudged keys (10 % off, shifted, negated, rounded, scaled entry by entry),
the sanity message of a released notebook and the formative line a released notebook shows. None may
contain

* a number of the key as it could be printed (3 or more significant digits);
* a formula of the key (an entry of a symbolic key, or the whole key as text);
* a formula for the answer itself: ``<name> = ...`` where ``<name>`` is the variable the solution notebook
  hands to ``check`` (``A = Rz(psi) Ry(theta) Rx(phi)`` gave 1.1's key away);
* "should be zero" / "should be one" (or 0 / 1), which is the expected value of an entry.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import nbformat
import numpy as np
import pytest
import sympy as sp

from mbdlib.exercises import exercises, get, practice_exercises
from mbdlib.exercises.core import formative, judge

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = range(1, 10)
IDS = [e.id for c in CHAPTERS for e in exercises(c) + practice_exercises(c)]
SHOULD_BE = re.compile(r"should (?:be|equal) (?:zero|one|0|1)\b|must be (?:zero|one|0|1) here", re.I)


@cache
def answer_names() -> dict[str, str]:
    """Exercise id -> the name of the variable the solution notebooks pass to ``check``."""
    names = {}
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                for m in re.finditer(r"""check\(\s*["'](\d+\.\d+[a-z]?)["']\s*,\s*([A-Za-z_]\w*)\s*\)""",
                                     cell.source):
                    names[m.group(1)] = m.group(2)
    return names


def formula_for(name: str) -> re.Pattern:
    """``<name> = <a formula>`` in a hint: the answer written out (not ``det A = ...``, which is about the
    student's answer, nor ``p = (e0, e1, e2, e3)``, a notation)."""
    notation = r"\((?:\s*[A-Za-z_]\w*\s*,)+\s*[A-Za-z_]\w*\s*\)"
    return re.compile(rf"(?<![\w'.])(?<![\w+*/-] ){re.escape(name)}\s*=\s*(?!{notation})[^=\s]")


def printed_forms(x: float) -> set[str]:
    """How a hint could print the number ``x`` (2-3 decimals, 3-5 significant digits), if specific enough."""
    forms = {f"{x:.2f}", f"{x:.3f}", f"{x:.3g}", f"{x:.4g}", f"{x:.5g}", f"{abs(x):.3g}", f"{abs(x):.4g}"}
    return {f for f in forms if sum(ch.isdigit() for ch in f.strip("-0.")) >= 3}


def settings_of(ex) -> list[dict]:
    extra = [ex.params_for(np.random.default_rng(s)) for s in (3, 4)] if ex.variant is not None else []
    return [dict(ex.params), *extra]


def texts_for(ex, params: dict) -> tuple[list[str], list]:
    """Every text a wrong answer can get at ``params``, and the keys."""
    cases = ex.grading_cases(None) if ex.is_function else [()]
    keys = [ex.key(*c, params=params) for c in cases]
    outputs = []
    for m in ex.mistakes:
        if m.answer is not None:
            try:
                outputs.append([m.answer(*c, **params) for c in cases])
            except Exception:  # noqa: BLE001 - a mistake that does not apply at these numbers
                pass
    numeric = not any(isinstance(k, (sp.Basic, sp.MatrixBase)) for k in keys)
    if numeric:
        for nudge in (lambda k: 1.1 * k, lambda k: k + 0.05, lambda k: -k, lambda k: np.round(k, 1),
                      lambda k: k * np.linspace(0.9, 1.2, k.size).reshape(k.shape), lambda k: 0 * k):
            try:
                outputs.append([nudge(np.asarray(k, dtype=float)) for k in keys])
            except (TypeError, ValueError):
                pass
    texts = [m.hint for m in ex.mistakes]
    for out in outputs:
        texts.append(judge(ex, out, cases, params).hint)
        if ex.sanity is not None and not ex.is_function:
            try:
                texts.append(ex.sanity(out[0], **params) or "")
            except Exception:  # noqa: BLE001
                pass
        if not ex.is_function:
            texts.append(formative(ex, out[0], params).text())
    return texts, keys


def forbidden_in(keys: list) -> tuple[set[str], set[str]]:
    """(numbers, formulas) of the keys, as a hint could print them."""
    numbers, formulas = set(), set()
    for k in keys:
        if isinstance(k, (sp.Basic, sp.MatrixBase)):
            m = sp.Matrix(k) if isinstance(k, sp.MatrixBase) else sp.Matrix([k])
            formulas |= {str(e) for e in m if len(str(e)) > 8}
            formulas.add(str(k))
            continue
        a = np.asarray(k, dtype=float)
        numbers |= {f for v in a.ravel() if abs(v) > 1e-3 for f in printed_forms(float(v))}
    return numbers, formulas


@pytest.mark.parametrize("exercise_id", IDS)
def test_no_hint_gives_the_key_away(exercise_id):
    ex = get(exercise_id)
    name = answer_names().get(exercise_id)
    answer_formula = formula_for(name) if name else None
    for params in settings_of(ex):
        texts, keys = texts_for(ex, params)
        numbers, formulas = forbidden_in(keys)
        for text in texts:
            assert not SHOULD_BE.search(text), (exercise_id, text)
            assert not [n for n in numbers if re.search(rf"(?<![\d.]){re.escape(n)}(?!\d)", text)], \
                (exercise_id, text)
            assert not [f for f in formulas if f in text], (exercise_id, text)
            if answer_formula is not None:
                assert not answer_formula.search(text), (exercise_id, name, text)


def test_the_detector_catches_what_it_should():
    """The test above fails on the hints of issue 24 (1.1's product formula, "entry [2] should be zero")."""
    assert SHOULD_BE.search("entry [2] should be zero") and SHOULD_BE.search("entry [0] should be one")
    name = formula_for("A")
    assert name.search("for the intrinsic ZYX sequence: A = Rz(psi) Ry(theta) Rx(phi)")
    assert name.search("(A = Rz(psi) Ry(theta) Rx(phi))")
    assert not name.search("A maps body components to global ones (r = A s')")
    assert not name.search("det A = -1: a reflection")                # a property of the student's answer
    assert not formula_for("G").search("on the left of M qdd + C qd + G = tau")  # a term of an equation
    assert not formula_for("p").search("scalar-first: p = (e0, e1, e2, e3)")  # notation, not a formula
    assert {"1.23", "1.234", "1.2345"} <= printed_forms(1.2345)
    assert not printed_forms(1.0) and not printed_forms(0.5)
