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
from mbdlib.exercises.__main__ import main
from mbdlib.exercises.answers import serialize
from mbdlib.exercises.core import decode_variant, encode_variant, judge, key_id
from mbdlib.exercises.exports import feedback_markdown
from mbdlib.exercises.grade import (
    MAX_NOTEBOOK_MB,
    Student,
    Submission,
    _chapter_for,
    _judge_value,
    execute,
    grade,
    match_files,
    read_roster,
    records_in,
    student_params,
    variant_rng,
    write_totals,
)
from mbdlib.exercises.release import nbgrader_source, release_variants
from mbdlib.exercises.roster import file_key
from mbdlib.exercises.sandbox import SandboxConfig, isolation_available
from mbdlib.exercises.variants import check_variant, token_in

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
    text = "\n".join(map(str, problems))
    assert "eve.ipynb: matches no student" in text and "s1: 2 files" in text and "s3: no submission" in text
    assert {p.kind for p in problems} == {"unmatched-file", "duplicate", "no-submission"}
    bad = tmp_path / "bad.csv"
    bad.write_text("student_id,name,file\ns1,A,x.ipynb\ns1,B,y.ipynb\n")
    with pytest.raises(ValueError, match="id listed twice: s1"):
        read_roster(bad)
    bad.write_text("student_id,name,file\ns1,A,X.ipynb\ns2,B,x (1).ipynb\n")
    with pytest.raises(ValueError, match="file listed twice: x.ipynb"):
        read_roster(bad)


def test_matching_ignores_case_and_a_browsers_redownload_suffix(tmp_path):
    """Issue 24: `Bo_Chen.ipynb` was "no-submission" and `cy_diaz (1).ipynb` ignored; now both match, a
    second copy of one student's file is a duplicate, and a file that is no notebook is reported."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,file\ns1,Ann Lee,ann_lee.ipynb\ns2,Bo Chen,bo_chen.ipynb\n"
                      "s3,Cy Diaz,cy_diaz.ipynb\ns4,Di Ek,di_ek.ipynb\n")
    students = read_roster(roster)
    names = ["Bo_Chen.ipynb", "cy_diaz (1).ipynb", "ann_lee.ipynb", "ANN_LEE (2).IPYNB", "di_ek.pdf",
             "stranger.ipynb"]
    graded, duplicates, problems = match_files([tmp_path / n for n in names], students)
    assert {p.name: s.id for p, s in graded.items()} == {"Bo_Chen.ipynb": "s2", "cy_diaz (1).ipynb": "s3"}
    assert [s.id for s in duplicates] == ["s1"] and len(duplicates[students[0]]) == 2
    kinds = sorted((p.kind, p.student or Path(p.file).name) for p in problems)
    assert kinds == [("duplicate", "s1"), ("no-submission", "s4"), ("not-a-notebook", "di_ek.pdf"),
                     ("unmatched-file", "stranger.ipynb")]
    assert file_key("Cy_Diaz (12).ipynb") == "cy_diaz.ipynb" and file_key("notes.txt") is None


def _released(tmp_path, source, secret=SECRET, roster_text="student_id,name,file\ns1,Ann,ann.ipynb\n"
              "s2,Bo,bo.ipynb\n", **kw):
    roster = tmp_path / "roster.csv"
    roster.write_text(roster_text)
    key = tmp_path / "secret"
    key.write_bytes(secret)
    return release_variants(source, roster, key, tmp_path / "rel", **kw), roster, key


def test_release_refuses_solutions_outputs_and_unmarked_notebooks(tmp_path):
    """Issue 24: releasing solutions/ch03 wrote 13 solution blocks and 28 outputs per student; now refused."""
    with pytest.raises(ValueError, match="contains solutions .*solution block.*exercises/ch03_constraints"):
        _released(tmp_path, ROOT / "solutions" / "ch03_constraints.ipynb")
    assert not (tmp_path / "rel").exists()
    student = nbformat.read(ROOT / "exercises" / "ch03_constraints.ipynb", as_version=4)
    with_outputs = _copy(student)
    with_outputs.cells[1].outputs = [nbformat.v4.new_output("stream", text="a key")] \
        if with_outputs.cells[1].cell_type == "code" else []
    with_outputs.cells.append(new_code_cell("x = 1", outputs=[nbformat.v4.new_output("stream", text="1")]))
    nbformat.write(with_outputs, tmp_path / "outputs.ipynb")
    with pytest.raises(ValueError, match="stored outputs"):
        _released(tmp_path, tmp_path / "outputs.ipynb")
    unmarked = _copy(student)
    del unmarked.metadata["mbdlib"]["student_version"]
    nbformat.write(unmarked, tmp_path / "unmarked.ipynb")
    with pytest.raises(ValueError, match="not marked as a student version"):
        _released(tmp_path, tmp_path / "unmarked.ipynb")
    written, _, _ = _released(tmp_path, ROOT / "exercises" / "ch03_constraints.ipynb")
    assert [p.name for p in written] == ["ann.ipynb", "bo.ipynb"]
    nb = nbformat.read(written[0], as_version=4)
    assert not any("### BEGIN SOLUTION" in c.source or c.get("outputs") for c in nb.cells)
    payload = decode_variant(token_in(nb))
    assert payload["student"] == "s1" and payload["key_id"] == key_id(SECRET) and len(payload["mac"]) == 64
    # the command line says the same and exits 2
    code = main(["release", str(ROOT / "solutions" / "ch03_constraints.ipynb"), "--roster",
                 str(tmp_path / "roster.csv"), "--secret-file", str(tmp_path / "secret"), "--out",
                 str(tmp_path / "rel2")])
    assert code == 2 and not (tmp_path / "rel2").exists()


def test_nbgrader_source_refuses_a_notebook_without_solutions(tmp_path):
    """Issue 24: `release --nbgrader` on exercises/ wrote a source notebook with 0 solution cells."""
    with pytest.raises(ValueError, match="no solution cells"):
        nbgrader_source(ROOT / "exercises" / "ch01_kinematics.ipynb", tmp_path / "ch01.ipynb")
    assert not (tmp_path / "ch01.ipynb").exists()
    assert main(["release", str(ROOT / "exercises" / "ch01_kinematics.ipynb"), "--nbgrader", "--out",
                 str(tmp_path / "src")]) == 2


def test_a_variant_is_verified_before_it_is_graded(tmp_path):
    """No secret, another secret, an edited variant cell, another student's notebook, the public notebook:
    each is recognised from the notebook's token and the grader's own recomputation."""
    written, _, _ = _released(tmp_path, ROOT / "exercises" / "ch01_kinematics.ipynb")
    ann = nbformat.read(written[0], as_version=4)
    chapter = exercises(1)
    assert check_variant(ann, "s1", SECRET, chapter) == ("ok", "")
    status, why = check_variant(ann, "s1", None, chapter)
    assert status == "unverifiable" and "--secret-file" in why
    status, why = check_variant(ann, "s1", SECRET + b"-wrong", chapter)
    assert status == "unverifiable" and "another secret" in why and key_id(SECRET) in why
    status, why = check_variant(ann, "s2", SECRET, chapter)
    assert status == "borrowed" and "'s1'" in why
    edited = _copy(ann)
    cell = next(c for c in edited.cells if "use_variant(" in c.source)
    payload = decode_variant(token_in(ann))
    payload["params"]["1.1"]["angles_deg"] = [0.0, 0.0, 0.0]  # easier numbers, signature kept
    cell.source = cell.source.replace(token_in(ann), encode_variant_payload(payload))
    status, why = check_variant(edited, "s1", SECRET, chapter)
    assert status == "unverifiable" and "edited" in why
    public = nbformat.read(ROOT / "exercises" / "ch01_kinematics.ipynb", as_version=4)
    assert check_variant(public, "s1", SECRET, chapter)[0] == "no-variant"
    assert check_variant(public, "s1", None, chapter) == ("ok", "")
    # a token of the old kind (no fingerprint, no signature): the parameters are compared
    old = _copy(ann)
    plain = {k: v for k, v in payload.items() if k not in ("key_id", "mac")}
    cell = next(c for c in old.cells if "use_variant(" in c.source)
    cell.source = cell.source.replace(token_in(ann), encode_variant_payload(plain))
    assert check_variant(old, "s1", SECRET, chapter)[0] == "unverifiable"
    plain["params"] = decode_variant(token_in(ann))["params"]
    cell.source = cell.source.replace(token_in(old), encode_variant_payload(plain))
    assert check_variant(old, "s1", SECRET, chapter) == ("ok", "")


def encode_variant_payload(payload: dict) -> str:
    import base64

    return base64.urlsafe_b64encode(json.dumps(payload, sort_keys=True).encode()).decode()


def test_unverifiable_variants_are_rows_without_points():
    sub = Submission(Path("ann.ipynb"), Student("s1", "Ann", "ann.ipynb"), 1,
                     {e.id: judge(e, [e.key()], [()]) for e in exercises(1) if not e.is_function})
    sub.variant, sub.variant_detail = "unverifiable", "grade it with --secret-file"
    rows = {r["exercise"]: r for r in sub.rows()}
    for e in exercises(1):
        r = rows[e.id]
        if e.variant is not None:
            assert (r["verdict"], r["points"]) == ("variant-unverifiable", "0")
            assert "--secret-file" in r["hint"]
        elif not e.is_function:
            assert r["verdict"] == "correct"


def test_problems_become_rows_and_a_non_zero_exit_without_running_a_kernel(tmp_path, capsys):
    """An oversized notebook, an unreadable one, a file that is no notebook, a stranger and two files for one
    student: rows in grades.csv or the problems file, "k of N" progress lines, exit status 1."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,file\ns1,Ann,ann.ipynb\ns2,Bo,bo.ipynb\ns3,Cy,cy.ipynb\n"
                      "s4,Di,di.ipynb\n")
    subs = tmp_path / "subs"
    subs.mkdir()
    with (subs / "Ann.ipynb").open("wb") as f:  # larger than a notebook may be (never parsed)
        f.write(b'{"cells": [' + b" " * (MAX_NOTEBOOK_MB * 2**20) + b"]}")
    (subs / "bo.ipynb").write_text('{"cells": [ not json')
    (subs / "cy.ipynb").write_text("{}")
    (subs / "cy (1).ipynb").write_text("{}")
    (subs / "eve.ipynb").write_text("{}")
    (subs / "di.docx").write_bytes(b"PK")
    lines = []
    run = grade([subs], tmp_path / "grades.csv", chapter=1, roster=roster, totals=tmp_path / "totals.csv",
                log=lines.append)
    assert run.exit_status == 1
    rows = list(csv.DictReader((tmp_path / "grades.csv").open(encoding="utf-8")))
    verdicts = {(r["student"], r["verdict"]) for r in rows}
    assert verdicts == {("s1", "invalid-notebook"), ("s2", "invalid-notebook"), ("s3", "duplicate"),
                        ("s4", "no-submission")}
    assert "MB, more than the 20 MB" in next(r["hint"] for r in rows if r["student"] == "s1")
    problems = list(csv.DictReader((tmp_path / "grades.problems.csv").open(encoding="utf-8")))
    assert sorted(p["problem"] for p in problems) == ["duplicate", "invalid-notebook", "invalid-notebook",
                                                      "no-submission", "not-a-notebook", "unmatched-file"]
    assert [x for x in lines if x.startswith("[2 of 2]") and "elapsed" in x and "left" in x]
    totals = {r["student"]: r for r in csv.DictReader((tmp_path / "totals.csv").open(encoding="utf-8"))}
    assert totals["s1"]["points"] == "" and "needs your decision" in totals["s1"]["status"]
    assert totals["s4"]["points"] == "0"  # nothing handed in is a grade; an unreadable file is a question
    # the command line: the same, exit status 1, and --chapter is required
    code = main(["grade", str(subs), "--chapter", "1", "--roster", str(roster), "--out",
                 str(tmp_path / "g2.csv")])
    assert code == 1 and "problem(s) to look at" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["grade", str(subs), "--out", str(tmp_path / "g3.csv")])


def test_the_chapter_is_the_instructors_never_a_notebooks(tmp_path):
    """A notebook's metadata cannot choose its chapter: given, it is the run's; not given, every notebook
    must name the same one (a notebook that names another one stops the run instead of choosing)."""
    sol = nbformat.read(ROOT / "exercises" / "ch01_kinematics.ipynb", as_version=4)
    other = _copy(sol)
    other.metadata["mbdlib"]["chapter"] = 3
    nbformat.write(sol, tmp_path / "a.ipynb")
    nbformat.write(other, tmp_path / "b.ipynb")
    with pytest.raises(ValueError, match="give the chapter"):
        grade([tmp_path], tmp_path / "g.csv", log=lambda *a: None)
    assert _chapter_for([tmp_path / "a.ipynb"], None) == 1
    assert _chapter_for([tmp_path / "a.ipynb", tmp_path / "b.ipynb"], 1) == 1
    sub = Submission(tmp_path / "b.ipynb", Student("b", "b", "b.ipynb"), 1)
    assert [r["exercise"] for r in sub.rows()] == [e.id for e in exercises(1)]


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
    assert (tmp_path / "t.csv").read_text().splitlines()[0] == "student,name,points,max_points,percent,status"


def test_feedback_markdown_totals_escapes_and_multi_line_hints():
    rows = [{"student": "s1", "name": "Ann", "exercise": "1.1", "verdict": "wrong", "points": "0",
             "max_points": "1", "hint": "a|b\nsecond line\n\nthird"},
            {"student": "s1", "name": "Ann", "exercise": "1.2", "verdict": "correct", "points": "2",
             "max_points": "2", "hint": ""}]
    md = feedback_markdown(Student("s1", "Ann", "ann.ipynb"), rows, 1, "ann.ipynb", "timeout", "60 s\nlimit")
    assert "**Total: 2 / 3 points**" in md and "a\\|b" in md and "timeout" in md and "Ann (s1)" in md
    table = [line for line in md.splitlines() if line.startswith("|")]
    assert len(table) == 2 + len(rows)  # a multi-line hint stays in its row
    assert "a\\|b <br>second line <br>third" in table[2]


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
    if not available:  # then a run that requires isolation is refused, naming what is missing
        with pytest.raises(RuntimeError, match="isolation was required but this machine lacks"):
            grade([], tmp_path / "g.csv", chapter=1, sandbox=SandboxConfig(isolate=True), log=lambda *a: None)
        return
    instructor = tmp_path / "instructor"
    instructor.mkdir()
    (instructor / "grades-so-far.csv").write_text("keep me\n")
    subs = tmp_path / "subs"
    _make_submissions(subs, instructor)
    (tmp_path / "truncated.ipynb").write_bytes((DATA / "truncated.ipynb.txt").read_bytes())
    before = (_folder_digest(subs), _folder_digest(instructor))
    out, fb, totals = tmp_path / "grades.csv", tmp_path / "feedback", tmp_path / "totals.csv"
    done = grade([subs, tmp_path / "truncated.ipynb"], out, timeout=40, workers=2, feedback=fb, totals=totals,
                 sandbox=SandboxConfig(memory_mb=1500, cpu_seconds=60, isolate=True), log=lambda *a: None)
    assert len(done) == 13
    assert sorted(p.student for p in done.problems) == ["corrupt", "truncated"] and done.exit_status == 1
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
    released = release_variants(solution, roster, secret, tmp_path / "rel", allow_solutions=True)
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
    run = grade([subs], out, timeout=60, workers=2, roster=roster, secret_file=secret, log=lambda *a: None)
    table = {(r["student"], r["exercise"]): r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert table["s1", "1.1"]["verdict"] == "correct" and table["s1", "1.1"]["name"] == "Ann"
    assert table["s2", "1.1"]["verdict"] == "wrong"   # Ann's numbers are not Bo's
    assert [(p.kind, p.student) for p in run.problems] == [("variant-borrowed", "s2")]
    assert "released for 's1'" in run.problems[0].detail and run.exit_status == 1
    # issue 24: graded without the secret, or with another one, two perfect students got 10/25 and exit 0;
    # now their variant exercises are "variant-unverifiable" (no points), each one a problem, exit status 1
    (subs / "bo.ipynb").write_bytes(released[1].read_bytes())
    wrong_secret = tmp_path / "other-secret"
    wrong_secret.write_bytes(SECRET + b"-not-the-one")
    for key, says in ((None, "--secret-file"), (wrong_secret, "another secret")):
        logged = []
        run = grade([subs], out, timeout=60, workers=2, roster=roster, secret_file=key, log=logged.append)
        rows = list(csv.DictReader(out.open(encoding="utf-8")))
        for r in rows:
            varied = get(r["exercise"]).variant is not None
            assert r["verdict"] == ("variant-unverifiable" if varied else "correct"), r
            assert not varied or (says in r["hint"] and r["points"] == "0")
        assert sorted((p.kind, p.student) for p in run.problems) == [("variant-unverifiable", "s1"),
                                                                      ("variant-unverifiable", "s2")]
        assert run.exit_status == 1 and any("need your attention" in line for line in logged)
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
