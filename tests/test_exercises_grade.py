"""Grading decides for itself: forged records, spoofed names, borrowed answers and hostile notebooks cannot
change a grade; identities come from files or a roster; variants need the secret; --resume is exact."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell

from mbdlib.exercises import MIME, exercises, get
from mbdlib.exercises.answers import serialize
from mbdlib.exercises.core import encode_variant, judge
from mbdlib.exercises.grade import (
    Student,
    Submission,
    _judge_value,
    execute,
    feedback_markdown,
    grade,
    match_files,
    read_roster,
    records_in,
    student_params,
    variant_rng,
    write_totals,
)
from mbdlib.exercises.release import nbgrader_source, release_variants
from mbdlib.exercises.sandbox import isolation_available

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
DATA = Path(__file__).parent / "data" / "submissions"
SECRET = b"course-secret-for-the-tests-0123456789"


def _chapter(nb):
    return nb.metadata["mbdlib"]["chapter"]


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_solution_notebook_records_correct_answers(path):
    """The answers stored in each solution notebook are judged correct by the grader's own keys.

    (`make test` runs nbval in strict mode on solutions/, which re-executes them: these records are current.)
    """
    nb = nbformat.read(path, as_version=4)
    records = records_in(nb)
    assert sorted(records) == sorted(e.id for e in exercises(_chapter(nb)))
    for eid, rec in records.items():
        ex = get(eid)
        if ex.is_function:  # judged on hidden cases at grading; here the check's own line says correct
            assert rec.get("function"), eid
            continue
        v = _judge_value(ex, rec, dict(ex.params))
        assert v.verdict == "correct", (eid, v.hint)


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_exercise_notebook_runs_and_records_no_answer(path):
    exercise = ROOT / "exercises" / path.name
    nb = nbformat.read(exercise, as_version=4)
    assert execute(nb, exercise.parent, timeout=180) == ("ok", "")
    records = records_in(nb)
    assert sorted(records) == sorted(e.id for e in exercises(_chapter(nb)))
    for eid, rec in records.items():
        assert rec.get("answer", {"type": "none"}) == {"type": "none"} or get(eid).is_function


# ---------------------------------------------------------------- pieces, without kernels
def test_rows_name_missing_not_run_timeout_invalid_and_shown():
    ex = get("1.1")
    v = judge(ex, [ex.key()], [()])
    n = len(exercises(1))
    for status, absent in [("ok", "missing"), ("error", "not-run"), ("timeout", "timeout")]:
        rows = Submission(Path("ann.ipynb"), Student("ann", "Ann", "ann.ipynb"), 1, {"1.1": v}, set(), status,
                          "why").rows()
        assert [r["verdict"] for r in rows] == ["correct"] + [absent] * (n - 1)
        assert rows[0]["points"] == "1" and rows[0]["name"] == "Ann"
    shown = Submission(Path("a.ipynb"), Student("a", "a", "a.ipynb"), 1, {"1.1": v}, {"1.1"}).rows()
    assert shown[0]["verdict"] == "solution-shown" and shown[0]["points"] == "0"
    rows = Submission(Path("bob.ipynb"), Student("bob", "bob", "bob.ipynb"), 1, status="invalid-notebook",
                      detail="not JSON").rows()
    assert {r["verdict"] for r in rows} == {"invalid-notebook"} and len(rows) == n


def test_a_record_that_only_claims_a_verdict_is_not_graded():
    ex = get("1.1")
    forged = {"exercise": "1.1", "verdict": "correct", "points": 1, "max_points": 1, "hint": ""}
    assert _judge_value(ex, forged, ex.params).verdict == "missing"
    claims_correct_but_wrong = {"schema": 2, "exercise": "1.1", "verdict": "correct",
                                "answer": serialize(np.eye(3))}
    assert _judge_value(ex, claims_correct_but_wrong, ex.params).verdict == "wrong"
    hostile = {"schema": 2, "exercise": "1.1", "answer": {"type": "sympy", "srepr": "__import__('os')"}}
    v = _judge_value(ex, hostile, ex.params)
    assert v.verdict == "wrong" and "not a sympy constructor" in v.hint


def test_last_record_per_exercise_wins_and_text_json_is_read():
    nb = nbformat.v4.new_notebook(cells=[new_code_cell("x"), new_code_cell("y")])
    rec = {"schema": 2, "exercise": "1.1", "answer": serialize(1.0)}
    nb.cells[0].outputs = [nbformat.v4.new_output("display_data", data={MIME: rec})]
    rec2 = dict(rec, answer=serialize(2.0))
    nb.cells[1].outputs = [nbformat.v4.new_output("display_data", data={MIME: json.dumps(rec2)})]
    assert records_in(nb)["1.1"]["answer"]["data"] == [2.0]


def test_roster_identities_duplicates_and_strangers(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,file\ns1,Ann Lee,ann.ipynb\ns2,Bo Chen,bo\ns3,Cy Diaz,cy.ipynb\n")
    students = read_roster(roster)
    assert [s.file for s in students] == ["ann.ipynb", "bo.ipynb", "cy.ipynb"]
    files = [tmp_path / "a" / "ann.ipynb", tmp_path / "b" / "ann.ipynb", tmp_path / "bo.ipynb",
             tmp_path / "eve.ipynb"]
    graded, duplicates, problems = match_files(files, students)
    assert {p.name: s.id for p, s in graded.items()} == {"bo.ipynb": "s2"}
    assert list(duplicates) == [students[0]]
    text = "\n".join(problems)
    assert "eve.ipynb: matches no student" in text and "s1: 2 files" in text and "s3: no submission" in text
    bad = tmp_path / "bad.csv"
    bad.write_text("student_id,name,file\ns1,A,x.ipynb\ns1,B,y.ipynb\n")
    with pytest.raises(ValueError, match="id listed twice: s1"):
        read_roster(bad)


def test_variants_need_the_secret_and_differ_between_students():
    ex = get("1.1")
    a = student_params(ex, "s1", SECRET)
    assert a == student_params(ex, "s1", SECRET)              # reproducible
    assert a != student_params(ex, "s2", SECRET)              # one per student
    assert a != student_params(ex, "s1", SECRET + b"x")       # the secret matters
    assert student_params(ex, "s1", None) == ex.params        # no secret: the public numbers
    r1, r2 = variant_rng(SECRET, "s1", "1.1", "cases"), variant_rng(SECRET, "s1", "1.1", "params")
    assert r1.integers(1 << 30) != r2.integers(1 << 30)
    # an answer computed with another student's numbers is wrong for this student
    key_s2 = ex.key(params=student_params(ex, "s2", SECRET))
    assert judge(ex, [key_s2], [()], a).verdict == "wrong"
    assert judge(ex, [ex.key(params=a)], [()], a).verdict == "correct"


def test_totals_for_a_gradebook(tmp_path):
    grades = tmp_path / "g.csv"
    grades.write_text("student,name,exercise,verdict,points,max_points,hint\n"
                      "s1,Ann,1.1,correct,1,1,\ns1,Ann,1.2,wrong,0,2,h\ns2,Bo,1.1,correct,1,1,\n"
                      "s2,Bo,1.2,correct,2,2,\n")
    rows = write_totals(grades, tmp_path / "t.csv")
    assert [(r["student"], r["points"], r["max_points"], r["percent"]) for r in rows] == [
        ("s1", "1", "3", "33.3"), ("s2", "3", "3", "100.0")]
    assert (tmp_path / "t.csv").read_text().splitlines()[0] == "student,name,points,max_points,percent"


def test_feedback_markdown_totals_and_escapes():
    sub = Submission(Path("ann.ipynb"), Student("s1", "Ann", "ann.ipynb"), 1, status="timeout",
                     detail="60 s limit")
    rows = [{"student": "s1", "name": "Ann", "exercise": "1.1", "verdict": "wrong", "points": "0",
             "max_points": "1", "hint": "a|b"},
            {"student": "s1", "name": "Ann", "exercise": "1.2", "verdict": "correct", "points": "2",
             "max_points": "2", "hint": ""}]
    md = feedback_markdown(sub, rows)
    assert "**Total: 2 / 3 points**" in md and "a\\|b" in md and "timeout" in md and "Ann (s1)" in md


def test_nbgrader_source_marks_answers_and_tests(tmp_path):
    out = nbgrader_source(ROOT / "solutions" / "ch01_kinematics.ipynb", tmp_path / "ch01.ipynb")
    nb = nbformat.read(out, as_version=4)
    metas = [c.metadata["nbgrader"] for c in nb.cells]
    tests = [m for m in metas if m["grade"] and not m["solution"]]
    ids = sorted(m["grade_id"] for m in tests)
    assert ids == sorted("check-" + e.id.replace(".", "_") for e in exercises(1))
    assert sum(m["points"] for m in tests) == sum(e.points for e in exercises(1))
    assert all(m["schema_version"] == 3 for m in metas)
    assert len({m["grade_id"] for m in metas}) == len(metas)  # unique ids
    answers = [c for c in nb.cells if c.metadata["nbgrader"]["solution"] and c.cell_type == "code"]
    assert answers and all("### BEGIN SOLUTION" in c.source for c in answers)
    assert all("assert_correct(" in c.source for c in nb.cells if c.metadata["nbgrader"]["grade"]
               and c.cell_type == "code")


# ---------------------------------------------------------------- the batch, in confined kernels
def _copy(nb):
    return nbformat.from_dict(json.loads(json.dumps(nb)))


def _index_of(nb, text):
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and text in c.source)


def _folder_digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode() + p.read_bytes())
    return h.hexdigest()


def _make_submissions(folder: Path, instructor: Path) -> None:
    solution = nbformat.read(ROOT / "solutions" / "ch01_kinematics.ipynb", as_version=4)
    empty = nbformat.read(ROOT / "exercises" / "ch01_kinematics.ipynb", as_version=4)
    folder.mkdir()

    def put(name, nb):
        nbformat.write(nb, folder / f"{name}.ipynb")

    put("correct", solution)
    put("empty", empty)
    wrong = _copy(solution)  # 1.1 transposed
    wrong.cells.insert(_index_of(wrong, 'check("1.1"'), new_code_cell("A = A.T"))
    put("wrong", wrong)
    syntax = _copy(solution)
    syntax.cells.insert(_index_of(syntax, 'check("1.4"'), new_code_cell("e = [1, 0, 0, 0"))
    put("syntax", syntax)
    loop = _copy(solution)
    loop.cells.insert(_index_of(loop, 'check("1.3"'), new_code_cell("while True:\n    pass"))
    put("loop", loop)
    spoof = _copy(solution)  # claims to be someone else in its metadata: graded under its file name
    del spoof.cells[_index_of(spoof, 'check("1.2"')]
    spoof.metadata["mbdlib"]["student"] = "correct"
    put("spoof", spoof)
    forged = _copy(empty)  # answers nothing, displays records that claim "correct" for every exercise
    claims = "".join(f"display({{{MIME!r}: {{'exercise': {e.id!r}, 'verdict': 'correct', 'points': "
                     f"{e.points}, 'max_points': {e.points}}}}}, raw=True)\n" for e in exercises(1))
    forged.cells.append(new_code_cell("from IPython.display import display\n" + claims))
    put("forged", forged)
    hog = _copy(solution)  # allocates far beyond the memory limit before 1.5
    hog.cells.insert(_index_of(hog, 'check("1.5"'), new_code_cell("import numpy as np\nx = np.ones(10**10)"))
    put("hog", hog)
    vandal = _copy(solution)  # deletes its working folder's files and tries the instructor's
    vandal.cells.insert(1, new_code_cell(
        "import os, pathlib\n"
        "for p in pathlib.Path('.').glob('*'):\n    p.unlink() if p.is_file() else None\n"
        f"try:\n    os.remove({str(instructor / 'grades-so-far.csv')!r})\nexcept OSError as e:\n"
        "    print('blocked:', e)\n"
        f"try:\n    open({str(folder / 'correct.ipynb')!r}, 'w').write('x')\nexcept OSError as e:\n"
        "    print('blocked:', e)\n"))
    put("vandal", vandal)
    online = _copy(solution)  # opens a network connection before 1.9
    online.cells.insert(_index_of(online, 'check("1.9"'), new_code_cell(
        "import socket\ns = socket.create_connection(('192.0.2.1', 80), timeout=3)"))
    put("online", online)
    lookup = _copy(solution)  # 1.8 answered by a table of the public cases' results
    at = _index_of(lookup, 'check("1.8"')
    lookup.cells.insert(at, new_code_cell(
        "from mbdlib.exercises import get as _get\n"
        "_table = {tuple(np.round(c[0], 12)): planar_jacobian(c[0]) for c in _get('1.8').cases}\n"
        "def planar_jacobian(q):\n"
        "    return _table.get(tuple(np.round(q, 12)), next(iter(_table.values())))"))
    put("lookup", lookup)
    (folder / "corrupt.ipynb").write_text('{"cells": [ this is not json')


@pytest.mark.slow
def test_batch_grading_in_confined_kernels(tmp_path):
    available, why = isolation_available()
    assert available, f"this machine cannot confine kernels ({why}); the sandbox test needs it"
    instructor = tmp_path / "instructor"
    instructor.mkdir()
    (instructor / "grades-so-far.csv").write_text("keep me\n")
    subs = tmp_path / "subs"
    _make_submissions(subs, instructor)
    (tmp_path / "truncated.ipynb").write_bytes((DATA / "truncated.ipynb.txt").read_bytes())
    before = (_folder_digest(subs), _folder_digest(instructor))
    out, fb, totals = tmp_path / "grades.csv", tmp_path / "feedback", tmp_path / "totals.csv"
    from mbdlib.exercises.sandbox import SandboxConfig

    done = grade([subs, tmp_path / "truncated.ipynb"], out, timeout=40, workers=2, feedback=fb, totals=totals,
                 sandbox=SandboxConfig(memory_mb=1500, cpu_seconds=60, isolate=True), log=lambda *a: None)
    assert len(done) == 13
    assert (_folder_digest(subs), _folder_digest(instructor)) == before  # nothing of the instructor touched

    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    ids = [e.id for e in exercises(1)]
    table = {(r["student"], r["exercise"]): r for r in rows}
    assert len(rows) == 13 * len(ids) and len(table) == len(rows)

    def verdicts(student):
        return [table[student, i]["verdict"] for i in ids]

    assert verdicts("correct") == ["correct"] * len(ids)
    assert verdicts("empty") == ["unanswered"] * len(ids)
    assert verdicts("forged") == ["unanswered"] * len(ids)        # graded by the answers it really carries
    assert verdicts("wrong")[0] == "wrong" and "transpose" in table["wrong", "1.1"]["hint"]
    assert verdicts("wrong")[1:] == ["correct"] * (len(ids) - 1)
    k = ids.index("1.4")
    assert verdicts("syntax")[:k] == ["correct"] * k and "SyntaxError" in table["syntax", "1.4"]["hint"]
    assert verdicts("syntax")[k:] == ["not-run"] * (len(ids) - k)  # 1.8's function comes after the error
    k = ids.index("1.3")
    assert verdicts("loop") == ["correct"] * k + ["timeout"] * (len(ids) - k)
    assert table["spoof", "1.2"]["verdict"] == "missing"           # under its file's name, not "correct"
    k = ids.index("1.5")
    assert verdicts("hog")[:k] == ["correct"] * k and "MemoryError" in table["hog", "1.5"]["hint"]
    assert verdicts("vandal") == ["correct"] * len(ids)           # its own copy only
    k = ids.index("1.9")
    assert verdicts("online")[k] == "not-run" and "Network is unreachable" in table["online", "1.9"]["hint"]
    # right on the public cases only (a lookup table): wrong on the grader's hidden cases
    assert table["lookup", "1.8"]["verdict"] == "wrong" and "grading case" in table["lookup", "1.8"]["hint"]
    assert verdicts("corrupt") == ["invalid-notebook"] * len(ids)
    assert verdicts("truncated") == ["invalid-notebook"] * len(ids)
    total = {r["student"]: r for r in csv.DictReader(totals.open(encoding="utf-8"))}
    assert total["correct"]["points"] == f"{sum(e.points for e in exercises(1)):g}"
    assert total["correct"]["percent"] == "100.0" and total["empty"]["points"] == "0"
    assert "timeout" in (fb / "loop.md").read_text()

    # --resume after an interruption: a student cut off mid-way is regraded, nobody twice, nothing lost
    full = out.read_text(encoding="utf-8").splitlines()
    header, body = full[0], full[1:]
    keep = [r for r in body if not r.startswith(("wrong,", "empty,"))]
    partial = [r for r in body if r.startswith("wrong,")][:3]   # interrupted while writing "wrong"
    out.write_text("\n".join([header, *keep, *partial]) + "\n", encoding="utf-8")
    again = grade([subs], out, timeout=40, workers=2, resume=True, log=lambda *a: None)
    assert sorted(s.student.id for s in again) == ["empty", "wrong"]
    after = out.read_text(encoding="utf-8").splitlines()
    assert after[0] == header and sorted(after[1:]) == sorted(body)


@pytest.mark.slow
def test_released_variants_are_graded_with_the_secret(tmp_path):
    """Two students' released notebooks: each correct for their own numbers; swapping answers fails."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,file\ns1,Ann,ann.ipynb\ns2,Bo,bo.ipynb\n")
    secret = tmp_path / "secret"
    secret.write_bytes(SECRET)
    # release the SOLUTION notebook (its answers are computed from params(...), so each copy is right for
    # its student); the student versions are released the same way
    solution = ROOT / "solutions" / "ch01_kinematics.ipynb"
    released = release_variants(solution, roster, secret, tmp_path / "rel")
    assert [p.name for p in released] == ["ann.ipynb", "bo.ipynb"]
    ann = nbformat.read(released[0], as_version=4)
    token_cell = next(c for c in ann.cells if "use_variant(" in c.source)
    assert "reference" not in token_cell.source and "key" not in token_cell.source
    subs = tmp_path / "subs"
    subs.mkdir()
    for p in released:
        (subs / p.name).write_bytes(p.read_bytes())
    # Bo hands in Ann's notebook (her numbers, her answers) under his own name
    (subs / "bo.ipynb").write_bytes(released[0].read_bytes())
    out = tmp_path / "grades.csv"
    grade([subs], out, timeout=60, workers=2, roster=roster, secret_file=secret, log=lambda *a: None)
    table = {(r["student"], r["exercise"]): r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert table["s1", "1.1"]["verdict"] == "correct" and table["s1", "1.1"]["name"] == "Ann"
    assert table["s2", "1.1"]["verdict"] == "wrong"   # Ann's numbers are not Bo's
    # without the secret, the released notebook's check does not judge 1.1: it only checks what it can
    nb = nbformat.read(released[1], as_version=4)
    assert execute(nb, tmp_path, timeout=120)[0] == "ok"
    texts = [o.get("data", {}).get("text/plain", "") for c in nb.cells if 'check("1.1"' in c.source
             for o in c.outputs]
    assert any("verdict comes at grading" in t for t in texts), texts


def test_variant_token_carries_parameters_only():
    token = encode_variant("s1", 1, {"1.1": {"angles_deg": [1.0, 2.0, 3.0]}})
    import base64

    payload = json.loads(base64.urlsafe_b64decode(token))
    assert payload == {"chapter": 1, "course": "", "params": {"1.1": {"angles_deg": [1.0, 2.0, 3.0]}},
                       "student": "s1"}


@pytest.mark.parametrize("store", [True, False])
def test_execute_saves_widget_state_only_when_asked(tmp_path, store):
    nb = nbformat.v4.new_notebook()
    nb.cells = [new_code_cell("import ipywidgets as w\nw.IntSlider(value=3, min=0, max=9)")]
    status, detail = execute(nb, tmp_path, timeout=120, store_widget_state=store)
    assert status == "ok", detail
    saved = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    state = saved.get("state", {})
    sliders = [m for m in state.values() if m.get("model_name") == "IntSliderModel"]
    assert len(sliders) == (1 if store else 0)
    if store:
        assert sliders[0]["state"]["value"] == 3
