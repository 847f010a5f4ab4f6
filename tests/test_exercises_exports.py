"""Gradebook exports against the rules each gradebook documents, and mistake counts (issue 24).

The rules, as documented (see ``mbdlib/exercises/exports.py`` for the sources):

* Canvas (Instructor Guide, "How do I import grades in the Gradebook?"): the columns ``Student``, ``ID``,
  ``SIS User ID``, ``SIS Login ID``, ``Section`` first and in that order; every other column is an
  assignment, and a title that matches none creates a new assignment, so exactly one grade column, titled as
  the assignment; a student is identified by ``ID``, ``SIS User ID`` or ``SIS Login ID``; a grade is a
  number or empty.
* Moodle (grade/import/csv, ``map_user_data_with_value``, ``update_grade_item``): one column mapped to a
  user field (``useridnumber`` here: "ID number"), every value of it non-empty; each grade value a number,
  ``""`` or ``-`` (no grade), anything else aborts the import; no two columns with the same title.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from mbdlib.exercises import Mistake, exercises
from mbdlib.exercises.exports import TOTALS_FORMATS, mistake_counts, write_mistakes, write_totals
from mbdlib.exercises.roster import Student

CANVAS_FIRST = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_USER_FIELDS = {"ID number", "Username", "Email address"}

GRADES = """student,name,exercise,verdict,points,max_points,hint,mistake
s1,"Lee, Ann",3.1,correct,1,1,,
s1,"Lee, Ann",3.2,wrong,0,1,"your matrix is the transpose",matrix-transpose
s2,Bo Chen,3.1,wrong,0,1,"you counted the ground",counted-ground-moving-body
s2,Bo Chen,3.2,wrong,0,1,"your matrix is the transpose",matrix-transpose
s3,Cy Diaz,3.1,variant-unverifiable,0,1,grade it with --secret-file,
s3,Cy Diaz,3.2,correct,1,1,,
s4,Di Ek,3.1,no-submission,0,1,no file,
s4,Di Ek,3.2,no-submission,0,1,no file,
s5,Ed Fu,3.1,wrong,0,1,"entry [1] is too large",generic:entries
s5,Ed Fu,3.2,wrong,0,1,"your matrix is the transpose",matrix-transpose
"""

ROSTER = [Student("s1", "Lee, Ann", "ann.ipynb", (("canvas_id", "101"), ("section", "A"))),
          Student("s2", "Bo Chen", "bo.ipynb", (("sis_login_id", "bchen"), ("email", "bo@uni.edu"))),
          Student("s3", "Cy Diaz", "cy.ipynb"), Student("s4", "Di Ek", "di.ipynb"),
          Student("s5", "Ed Fu", "ed.ipynb")]


def _write(tmp_path: Path, fmt: str, assignment: str = "Chapter 3") -> tuple[list[str], list[list[str]]]:
    grades = tmp_path / "grades.csv"
    grades.write_text(GRADES, encoding="utf-8")
    write_totals(grades, tmp_path / f"{fmt}.csv", fmt, ROSTER, assignment)
    with (tmp_path / f"{fmt}.csv").open(newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    return table[0], table[1:]


def _number_or_empty(value: str) -> bool:
    if value == "":
        return True
    try:
        float(value)
    except ValueError:
        return False
    return True


def test_canvas_header_rules(tmp_path):
    header, rows = _write(tmp_path, "canvas")
    assert header[:5] == CANVAS_FIRST                      # Canvas's own columns, in its order
    assert header[5:] == ["Chapter 3"]                     # exactly one assignment column, as titled
    assert len(set(header)) == len(header)
    by = {r[2]: dict(zip(header, r, strict=True)) for r in rows}
    assert all(r["ID"] or r["SIS User ID"] or r["SIS Login ID"] for r in by.values())  # identifiable
    assert all(_number_or_empty(r["Chapter 3"]) for r in by.values())
    assert by["s1"] == {"Student": "Lee, Ann", "ID": "101", "SIS User ID": "s1", "SIS Login ID": "",
                        "Section": "A", "Chapter 3": "1"}
    assert by["s2"]["SIS Login ID"] == "bchen" and by["s2"]["Chapter 3"] == "0"
    assert by["s3"]["Chapter 3"] == ""     # an unverifiable variant: no grade rather than a guess
    assert by["s4"]["Chapter 3"] == "0"    # nothing handed in
    with pytest.raises(ValueError, match="gradebook's own columns"):
        _write(tmp_path, "canvas", "Section")


def test_moodle_header_rules(tmp_path):
    header, rows = _write(tmp_path, "moodle")
    assert len(set(header)) == len(header)
    assert "ID number" in header and header[-1] == "Chapter 3"
    user = [h for h in header if h in MOODLE_USER_FIELDS]
    assert user and all(r[header.index("ID number")] for r in rows)  # the user column is never empty
    grade = [r[header.index("Chapter 3")] for r in rows]
    assert all(v in ("", "-") or _number_or_empty(v) for v in grade)  # else Moodle aborts the import
    by = {r[header.index("ID number")]: dict(zip(header, r, strict=True)) for r in rows}
    assert by["s2"]["Email address"] == "bo@uni.edu" and by["s3"]["Chapter 3"] == ""
    assert set(header) - MOODLE_USER_FIELDS - {"Full name", "Chapter 3"} == set()


def test_plain_totals_and_the_formats_known(tmp_path):
    header, rows = _write(tmp_path, "plain")
    assert header == TOTALS_FORMATS["plain"]
    by = {r[0]: dict(zip(header, r, strict=True)) for r in rows}
    assert by["s1"]["points"] == "1" and by["s1"]["percent"] == "50.0"
    assert by["s3"]["points"] == "" and "variant-unverifiable" in by["s3"]["status"]
    with pytest.raises(ValueError, match="choose one of"):
        _write(tmp_path, "blackboard")


def test_mistake_counts_per_exercise(tmp_path):
    """"2 of 4: transposed" from the stable keys in grades.csv; unverifiable and absent students are not
    counted among the graded."""
    grades = tmp_path / "grades.csv"
    grades.write_text(GRADES, encoding="utf-8")
    counts = {(m["exercise"], m["mistake"]): (m["students"], m["of"]) for m in mistake_counts(grades)}
    assert counts == {("3.1", "counted-ground-moving-body"): (1, 3), ("3.1", "generic:entries"): (1, 3),
                      ("3.2", "matrix-transpose"): (3, 4)}
    rows = write_mistakes(grades, tmp_path / "m.csv")
    assert rows[0]["exercise"] == "3.1" and rows[-1] == {"exercise": "3.2", "mistake": "matrix-transpose",
                                                         "students": 3, "of": 4,
                                                         "hint": "your matrix is the transpose"}


@pytest.mark.parametrize("chapter", range(1, 8))
def test_mistake_keys_are_stable_and_tell_mistakes_apart(chapter):
    """Each mistake's key is made from its hint (or given): the same every run, and two mistakes of one
    exercise with different hints never share a key (their counts would merge)."""
    for ex in exercises(chapter):
        keys: dict[str, str] = {}
        for m in ex.mistakes:
            assert m.slug == Mistake(m.answer, m.hint, m.test, m.key).slug  # deterministic
            assert keys.setdefault(m.slug, m.hint) == m.hint, (ex.id, m.slug, m.hint, keys[m.slug])
