"""Notebooks run end to end, and batch grading of good, empty, wrong and broken submissions."""

import csv
import json
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from mbdlib.exercises import exercises
from mbdlib.exercises.grade import Submission, execute, feedback_markdown, grade, records_in

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
DATA = Path(__file__).parent / "data" / "submissions"


def _chapter(nb):
    return nb.metadata["mbdlib"]["chapter"]


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_solution_notebook_passes_every_check(path):
    # The stored outputs are read, not re-made: `make test` runs nbval in strict mode on solutions/,
    # which re-executes every solution notebook and fails if an output (these records included) changed.
    nb = nbformat.read(path, as_version=4)
    records = records_in(nb)
    expected = [e.id for e in exercises(_chapter(nb))]
    assert sorted(records) == sorted(expected)
    assert {r["verdict"] for r in records.values()} == {"correct"}
    assert all(r["points"] == r["max_points"] > 0 for r in records.values())


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_exercise_notebook_runs_and_reports_unanswered(path):
    exercise = ROOT / "exercises" / path.name
    nb = nbformat.read(exercise, as_version=4)
    assert execute(nb, exercise.parent, timeout=180) == ("ok", "")
    records = records_in(nb)
    assert sorted(records) == sorted(e.id for e in exercises(_chapter(nb)))
    assert {r["verdict"] for r in records.values()} == {"unanswered"}


# ---------------------------------------------------------------- rows without running kernels
def test_rows_name_missing_not_run_timeout_and_invalid():
    recs = {"1.1": {"exercise": "1.1", "verdict": "correct", "points": 1, "max_points": 1, "hint": ""}}
    n = len(exercises(1))
    for status, absent in [("ok", "missing"), ("error", "not-run"), ("timeout", "timeout")]:
        rows = Submission(Path("ann.ipynb"), "ann", 1, dict(recs), status, "why").rows()
        assert [r["verdict"] for r in rows] == ["correct"] + [absent] * (n - 1)
        assert rows[0]["points"] == "1"
    rows = Submission(Path("bob.ipynb"), "bob", 1, {}, "invalid-notebook", "not JSON").rows()
    assert {r["verdict"] for r in rows} == {"invalid-notebook"} and len(rows) == n
    # unknown chapter and no records: still one row, never nothing
    assert Submission(Path("x.ipynb"), "x", None, {}, "invalid-notebook", "bad").rows()[0]["verdict"] == (
        "invalid-notebook"
    )


def test_last_record_per_exercise_wins_and_text_json_is_read():
    nb = nbformat.v4.new_notebook(cells=[new_code_cell("x"), new_code_cell("y")])
    rec = {"exercise": "1.1", "verdict": "wrong", "points": 0, "max_points": 1, "hint": "h"}
    nb.cells[0].outputs = [
        nbformat.v4.new_output("display_data", data={"application/vnd.mbdlib.check+json": rec})
    ]
    rec2 = dict(rec, verdict="correct", points=1)
    nb.cells[1].outputs = [
        nbformat.v4.new_output("display_data", data={"application/vnd.mbdlib.check+json": json.dumps(rec2)})
    ]
    assert records_in(nb)["1.1"]["verdict"] == "correct"


def test_feedback_markdown_totals_and_escapes():
    sub = Submission(Path("ann.ipynb"), "ann", 1, {}, "timeout", "60 s limit")
    rows = [
        {
            "student": "ann",
            "exercise": "1.1",
            "verdict": "wrong",
            "points": "0",
            "max_points": "1",
            "hint": "a|b",
        },
        {
            "student": "ann",
            "exercise": "1.2",
            "verdict": "correct",
            "points": "2",
            "max_points": "2",
            "hint": "",
        },
    ]
    md = feedback_markdown(sub, rows)
    assert "**Total: 2 / 3 points**" in md and "a\\|b" in md and "timeout" in md


# ---------------------------------------------------------------- the batch
def _make_submissions(folder: Path) -> None:
    solution = nbformat.read(ROOT / "solutions" / "ch01_kinematics.ipynb", as_version=4)
    empty = nbformat.read(ROOT / "exercises" / "ch01_kinematics.ipynb", as_version=4)
    folder.mkdir()

    def put(name, nb):
        nbformat.write(nb, folder / f"{name}.ipynb")

    def copy(nb):
        return nbformat.from_dict(json.loads(json.dumps(nb)))

    def index_of(nb, text):
        return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and text in c.source)

    put("correct", solution)
    put("empty", empty)
    wrong = copy(solution)  # 1.1 transposed
    i = index_of(wrong, 'check("1.1"')
    wrong.cells.insert(i, new_code_cell("A = A.T"))
    put("wrong", wrong)
    syntax = copy(solution)
    syntax.cells.insert(index_of(syntax, 'check("1.4"'), new_code_cell("e = [1, 0, 0, 0"))
    put("syntax", syntax)
    loop = copy(solution)
    loop.cells.insert(index_of(loop, 'check("1.3"'), new_code_cell("while True:\n    pass"))
    put("loop", loop)
    deleted = copy(solution)
    del deleted.cells[index_of(deleted, 'check("1.2"')]
    deleted.metadata["mbdlib"]["student"] = "dora"
    put("deleted", deleted)
    (folder / "corrupt.ipynb").write_text('{"cells": [ this is not json')


@pytest.mark.slow
def test_batch_grading(tmp_path):
    subs = tmp_path / "subs"
    _make_submissions(subs)
    # a stored fixture too: a notebook cut off mid-file (stored as .txt so that linters skip it)
    (tmp_path / "truncated.ipynb").write_bytes((DATA / "truncated.ipynb.txt").read_bytes())
    out, fb = tmp_path / "grades.csv", tmp_path / "feedback"
    start = time.monotonic()
    done = grade(
        [subs, tmp_path / "truncated.ipynb"], out, timeout=20, workers=2, feedback=fb, log=lambda *a: None
    )
    elapsed = time.monotonic() - start
    assert elapsed < 90, elapsed
    assert len(done) == 8

    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    ids = [e.id for e in exercises(1)]
    table = {(r["student"], r["exercise"]): r for r in rows}
    assert len(rows) == 8 * len(ids) and len(table) == len(rows)

    def verdicts(student):
        return [table[student, i]["verdict"] for i in ids]

    assert verdicts("correct") == ["correct"] * len(ids)
    assert verdicts("empty") == ["unanswered"] * len(ids)
    assert verdicts("wrong")[0] == "wrong" and "transpose" in table["wrong", "1.1"]["hint"]
    assert verdicts("wrong")[1:] == ["correct"] * (len(ids) - 1)
    k = ids.index("1.4")
    assert verdicts("syntax") == ["correct"] * k + ["not-run"] * (len(ids) - k)
    assert "SyntaxError" in table["syntax", "1.4"]["hint"]
    k = ids.index("1.3")
    assert verdicts("loop") == ["correct"] * k + ["timeout"] * (len(ids) - k)
    assert table["dora", "1.2"]["verdict"] == "missing"  # student name from notebook metadata
    assert [v for i, v in zip(ids, verdicts("dora"), strict=True) if i != "1.2"] == ["correct"] * (
        len(ids) - 1
    )
    assert verdicts("corrupt") == ["invalid-notebook"] * len(ids)
    assert verdicts("truncated") == ["invalid-notebook"] * len(ids)
    assert sum(float(table["correct", i]["points"]) for i in ids) == sum(e.points for e in exercises(1))

    assert sorted(p.name for p in fb.iterdir()) == sorted(
        f"{s}.md" for s in ["correct", "empty", "wrong", "syntax", "loop", "dora", "corrupt", "truncated"]
    )
    assert "timeout" in (fb / "loop.md").read_text()

    # --resume grades nobody twice; rows already written stay
    before = out.read_text()
    again = grade([subs], out, timeout=20, workers=1, resume=True, log=lambda *a: None)
    assert again == [] and out.read_text() == before


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
