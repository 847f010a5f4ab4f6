"""Batch grading that decides for itself: confined kernels, identities from files or a roster, verdicts
recomputed from the answers with the grader's own keys (and per-student variants).

Each submission runs in its own temporary copy of the assignment folder, in a kernel with a memory and a
CPU-time limit, without network and with a read-only view of everything else where this machine allows it
(:mod:`.sandbox`), under one wall-clock budget (each cell gets the time that is left). The grader appends one
cell that calls the student's functions on hidden cases (:mod:`.collect`). It then reads the **answers** the
notebook recorded (never its displayed verdicts), rebuilds them as data (:mod:`.answers`), and judges each
one in this process against keys computed from the exercise's parameters: the public ones, or, with the
course secret, the student's variant (:func:`variant_rng`). One CSV row per student per exercise::

    student,name,exercise,verdict,points,max_points,hint

Verdicts: ``correct``, ``wrong``, ``unanswered``, ``error`` (the student's function raised), and

* ``missing``: no record of an answer for this exercise (a deleted check cell, or a record without an answer);
* ``solution-shown``: the notebook asked for the solution (``show_solution``); no points;
* ``not-run``: the notebook stopped (an error, or a killed kernel: memory or CPU limit) before the check;
* ``timeout``: the notebook was still running when its time was up;
* ``invalid-notebook``: the file is not a readable notebook;
* ``duplicate``: two files for one student (neither is graded; both are reported);
* ``no-submission``: a student of the roster without a file.

Rows are written student by student (one write, flushed), so an interrupted run loses nothing already
graded; ``--resume`` keeps the students whose rows are complete and grades the others. ``--totals`` writes
one row per student (points, maximum, percentage) for a gradebook import.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import numpy as np

from .answers import RecordError, deserialize
from .collect import encode_cases
from .core import MIME, RECORD_SCHEMA, Exercise, Verdict, exercises, get, judge
from .sandbox import SandboxConfig, isolation_available, kernel_argv

FIELDS = ["student", "name", "exercise", "verdict", "points", "max_points", "hint"]
TOTAL_FIELDS = ["student", "name", "points", "max_points", "percent"]
PUBLIC_SALT = b"mbdlib public grading cases"


# ---------------------------------------------------------------- identities
@dataclass(frozen=True)
class Student:
    """A student: id (what the gradebook knows), name, and the file name of their submission."""

    id: str
    name: str
    file: str


def read_roster(path: str | Path) -> list[Student]:
    """Students from a CSV file with the columns ``student_id``, ``name`` and ``file`` (header required).

    ``file`` is the submission's file name (``alice.ipynb``; the ``.ipynb`` may be left out); ids and
    files must be unique.
    """
    with Path(path).open(newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        missing = {"student_id", "name", "file"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"roster {path}: missing column(s) {sorted(missing)} "
                             "(it needs student_id, name, file)")
        students = []
        for n, row in enumerate(reader, start=2):
            sid, name, file = (row["student_id"] or "").strip(), (row["name"] or "").strip(), \
                (row["file"] or "").strip()
            if not sid or not file:
                raise ValueError(f"roster {path}, line {n}: student_id and file must not be empty")
            students.append(Student(sid, name or sid, file if file.endswith(".ipynb") else f"{file}.ipynb"))
    for attr in ("id", "file"):
        seen: dict[str, int] = {}
        for s in students:
            seen[getattr(s, attr)] = seen.get(getattr(s, attr), 0) + 1
        twice = [k for k, v in seen.items() if v > 1]
        if twice:
            raise ValueError(f"roster {path}: {attr} listed twice: {', '.join(sorted(twice))}")
    return students


def match_files(files: list[Path], roster: list[Student] | None) -> tuple[dict[Path, Student], dict, list]:
    """Who each file belongs to, by its name only (never by what the notebook says about itself).

    Returns ``(graded, duplicates, problems)``: files to grade with their student; students with more
    than one file ``{student: [files]}`` (not graded); and a list of messages (files matching no one,
    students without a file, duplicates), for the instructor.
    """
    problems: list[str] = []
    owner: dict[Path, Student] = {}
    if roster is None:
        for p in files:
            owner[p] = Student(p.stem, p.stem, p.name)
    else:
        by_file = {s.file: s for s in roster}
        for p in files:
            s = by_file.get(p.name)
            if s is None:
                problems.append(f"{p}: matches no student of the roster (not graded)")
            else:
                owner[p] = s
    by_student: dict[Student, list[Path]] = {}
    for p, s in owner.items():
        by_student.setdefault(s, []).append(p)
    duplicates = {s: ps for s, ps in by_student.items() if len(ps) > 1}
    for s, ps in duplicates.items():
        problems.append(f"{s.id}: {len(ps)} files ({', '.join(map(str, ps))}); none graded")
    graded = {p: s for p, s in owner.items() if s not in duplicates}
    if roster is not None:
        for s in roster:
            if s not in by_student:
                problems.append(f"{s.id}: no submission (expected {s.file})")
    return graded, duplicates, problems


# ---------------------------------------------------------------- variants and hidden cases
def variant_rng(secret: bytes | None, student: str, exercise: str, purpose: str) -> np.random.Generator:
    """The random generator of one student's variant of one exercise (``purpose``: "params" or "cases").

    Seeded by HMAC-SHA256(secret, student | exercise | purpose): without the secret the seed cannot be
    guessed. Without a secret a fixed public salt is used (self-study grading).
    """
    key = secret if secret else PUBLIC_SALT
    digest = hmac.new(key, f"{student}|{exercise}|{purpose}".encode(), hashlib.sha256).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def read_secret(path: str | Path) -> bytes:
    """The course secret (the file's bytes, surrounding white space removed; at least 16 bytes)."""
    data = Path(path).read_bytes().strip()
    if len(data) < 16:
        raise ValueError(f"secret file {path}: at least 16 bytes please (e.g. `python -c \"import secrets; "
                         f"print(secrets.token_hex(32))\" > {path}`)")
    return data


def problem_of(exercise_id: str) -> str:
    """The problem an exercise belongs to: the parts "5.8a", "5.8b" of a multi-part problem share "5.8".

    >>> problem_of("5.8b"), problem_of("1.10")
    ('5.8', '1.10')
    """
    return re.sub(r"[a-z]$", "", exercise_id)


def student_params(exercise: Exercise, student: str, secret: bytes | None) -> dict:
    """The parameters of ``student``'s variant (the public ones without a secret or without variants).

    The parts of a multi-part problem draw from the same seed (the problem's id): parts that describe their
    mechanism with the same ``variant`` function get the same mechanism.
    """
    if secret is None or exercise.variant is None:
        return dict(exercise.params)
    return exercise.params_for(variant_rng(secret, student, problem_of(exercise.id), "params"))


def student_cases(exercise: Exercise, student: str, secret: bytes | None, params: dict) -> list[tuple]:
    """The cases ``student``'s function is graded on (hidden ones if the exercise generates them)."""
    return exercise.grading_cases(variant_rng(secret, student, exercise.id, "cases"), params)


# ---------------------------------------------------------------- running one notebook
@dataclass
class Submission:
    """One graded notebook: who, which chapter, the records found, the verdicts, and how the run ended."""

    path: Path
    student: Student
    chapter: int | None = None
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    shown: set[str] = field(default_factory=set)
    status: str = "ok"  # ok | error | timeout | invalid-notebook | duplicate | no-submission
    detail: str = ""
    seconds: float = 0.0

    def rows(self) -> list[dict]:
        """One CSV row per exercise of the chapter."""
        ids = [e.id for e in exercises(self.chapter)] if self.chapter is not None else []
        ids += [i for i in self.verdicts if i not in ids]
        absent = {
            "ok": ("missing", "no answer was recorded for this exercise: was its check cell deleted?"),
            "error": ("not-run", f"the notebook stopped before this check: {self.detail}"),
            "timeout": ("timeout", f"the notebook was still running after its time limit: {self.detail}"),
            "invalid-notebook": ("invalid-notebook", self.detail),
            "duplicate": ("duplicate", self.detail),
            "no-submission": ("no-submission", self.detail),
        }[self.status]
        if not ids:
            return [self._row("", absent[0], absent[1] or "no exercises found", 0, 0)]
        rows = []
        for i in ids:
            v = self.verdicts.get(i)
            max_points = _points(i)
            if v is None:
                rows.append(self._row(i, *absent, 0, max_points))
            elif i in self.shown:
                why = f"the solution was shown; the answer was {v.verdict}"
                rows.append(self._row(i, "solution-shown", why, 0, max_points))
            else:
                rows.append(self._row(i, v.verdict, v.hint, v.points, max_points))
        return rows

    def _row(self, exercise: str, verdict: str, hint: str, points, max_points) -> dict:
        return {"student": self.student.id, "name": self.student.name, "exercise": exercise,
                "verdict": verdict, "points": _num(points), "max_points": _num(max_points), "hint": hint}


def _points(exercise_id: str) -> float:
    try:
        return get(exercise_id).points
    except KeyError:
        return 0


def _num(x) -> str:
    try:
        return f"{float(x):g}"
    except (TypeError, ValueError):
        return "0"


def chapter_of(nb) -> int | None:
    """The chapter a notebook belongs to, from its metadata ``mbdlib: {"chapter": N}``."""
    try:
        return int(nb.metadata["mbdlib"]["chapter"])
    except (KeyError, TypeError, ValueError):
        return None


def _records(nb, skip_cells: int = 0):
    """Every record of mimetype MIME in the outputs, in order, as dicts (JSON text is parsed)."""
    cells = nb.cells[:-skip_cells] if skip_cells else nb.cells
    for index, cell in enumerate(cells):
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data = out.get("data", {}) if out.get("output_type") in ("display_data", "execute_result") else {}
            rec = data.get(MIME)
            if isinstance(rec, str):  # some writers store JSON mimetypes as text
                try:
                    rec = json.loads(rec)
                except ValueError:
                    rec = None
            if isinstance(rec, dict) and "exercise" in rec:
                yield index, rec


def records_in(nb) -> dict[str, dict]:
    """The last record of an answer per exercise that the notebook's own cells displayed.

    Only records that carry an answer (or name a function) count: a record that merely claims a verdict
    carries nothing to grade and is ignored, so it cannot hide the student's real answer either.
    """
    found: dict[str, dict] = {}
    for _, rec in _records(nb):
        if rec.get("schema") == RECORD_SCHEMA and ("answer" in rec or "function" in rec) \
                and "grader" not in rec:
            found[str(rec["exercise"])] = dict(rec)
    return found


def solutions_shown(nb) -> set[str]:
    """Exercises whose solution the notebook displayed (``show_solution``)."""
    return {str(rec["exercise"]) for _, rec in _records(nb) if rec.get("solution_shown") is True}


def grader_records(nb, nonce: str) -> dict[str, dict]:
    """The records of the grader's own cell (the last cell), identified by its nonce."""
    found = {}
    if nb.cells:
        for out in nb.cells[-1].get("outputs", []):
            rec = out.get("data", {}).get(MIME) if isinstance(out.get("data"), dict) else None
            if isinstance(rec, dict) and rec.get("grader") == nonce:
                found[str(rec.get("exercise"))] = rec
    return found


def grader_cell(nonce: str, spec: dict) -> nbformat.NotebookNode:
    """The cell appended to a submission: calls the student's functions on the hidden cases."""
    payload = base64.b64encode(json.dumps(spec).encode()).decode()
    source = ("# appended by the grader: your functions on cases you have not seen\n"
              "import base64 as __b64\n"
              "from mbdlib.exercises.collect import collect as __mbdlib_collect\n"
              f"__mbdlib_collect({nonce!r}, __b64.b64decode({payload!r}).decode(), globals())")
    return nbformat.v4.new_code_cell(source)


def _judge_value(ex: Exercise, record: dict | None, params: dict) -> Verdict | None:
    if record is None:
        return None
    if record.get("schema") != RECORD_SCHEMA or "answer" not in record:
        why = "the record carries no answer (only a verdict: not graded)"
        return Verdict(ex.id, "missing", 0, ex.points, why)
    try:
        answer = deserialize(record["answer"])
    except RecordError as exc:
        return Verdict(ex.id, "wrong", 0, ex.points, str(exc))
    if answer is None:
        return Verdict(ex.id, "unanswered", 0, ex.points, "replace None with your answer")
    return judge(ex, [answer], [()], params)


def _judge_function(ex: Exercise, record: dict | None, cases: list[tuple], params: dict) -> Verdict | None:
    if record is None:
        return None
    if "missing" in record:
        return Verdict(ex.id, "missing", 0, ex.points, record["missing"])
    outputs = []
    for out in record.get("outputs", [])[: len(cases)]:
        if out.get("type") == "raised":
            return Verdict(ex.id, "error", 0, ex.points, f"your function raised {out.get('error', '?')} on a "
                                                         "grading case")
        try:
            value = deserialize(out)
        except RecordError as exc:
            return Verdict(ex.id, "wrong", 0, ex.points, f"{exc} (on a grading case)")
        if value is None:
            return Verdict(ex.id, "unanswered", 0, ex.points, "your function returns None")
        outputs.append(value)
    if len(outputs) != len(cases):
        why = record.get("error", "the function did not finish the cases")
        return Verdict(ex.id, "error", 0, ex.points, why)
    v = judge(ex, outputs, cases, params)
    if v.verdict == "wrong":  # the hidden inputs are not shown: say that it was on a grading case
        v = Verdict(ex.id, "wrong", 0, ex.points, "on a grading case: " + re.sub(r"^for input \(.*?\): ", "",
                                                                                    v.hint))
    return v


class _Kernel:
    """A kernel spec directory for one confined kernel (removed with the work folder)."""

    def __init__(self, work: Path, config: SandboxConfig, isolate: bool):
        self.dir = work / ".kernelspec"
        spec = self.dir / "mbdlib-sandbox"
        spec.mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if k == "PYTHONPATH"}
        (spec / "kernel.json").write_text(json.dumps({
            "argv": kernel_argv(work, config, isolate), "display_name": "mbdlib grading sandbox",
            "language": "python", "env": env}), encoding="utf-8")

    def manager(self, work: Path):
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import AsyncKernelManager

        # the asynchronous manager, as nbclient's own default: with a blocking one, waiting for output of a
        # cell that never finishes would block nbclient's event loop and its timeout with it
        ksm = KernelSpecManager(kernel_dirs=[str(self.dir)])
        return AsyncKernelManager(kernel_name="mbdlib-sandbox", kernel_spec_manager=ksm, transport="ipc",
                                  ip=str(work / "ipc"))


def execute(nb, cwd: str | Path, timeout: float = 120, store_widget_state: bool = False, km=None,
            always_last: bool = False) -> tuple[str, str]:
    """Run a notebook's code cells in place, in a fresh kernel, within ``timeout`` seconds (wall clock).

    Each cell gets the time that is left. ``km``: a kernel manager (default: the ``python3`` kernel).
    With ``store_widget_state`` the widgets' state is saved in the notebook's metadata. With
    ``always_last`` the last cell runs even after an earlier cell raised (the grader's cell).
    Returns ``(status, detail)``: ``"ok"``, ``"error"`` (a cell raised, or the kernel died) or
    ``"timeout"``; the outputs of the cells that ran stay in ``nb``.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    deadline = time.monotonic() + timeout
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    client = NotebookClient(
        nb,
        km=km,
        kernel_name="python3" if km is None else km.kernel_name,
        timeout=max(1, math.ceil(timeout)),
        startup_timeout=max(1, math.ceil(min(timeout, 60))),
        shutdown_kernel="immediate",
        allow_errors=False,
        store_widget_state=store_widget_state,
        resources={"metadata": {"path": str(Path(cwd).resolve())}},
    )
    index, status, detail = -1, "ok", ""
    try:
        with client.setup_kernel():
            last = len(nb.cells) - 1
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CellTimeoutError(f"no time left before cell {index}")
                client.timeout = max(1, math.ceil(left))
                try:
                    client.execute_cell(cell, index)
                except CellExecutionError as exc:
                    if not always_last or index == last:
                        raise
                    if status == "ok":
                        ename = getattr(exc, "ename", type(exc).__name__)
                        evalue = _short(getattr(exc, "evalue", ""))
                        status, detail = "error", f"{ename} in cell {index}: {evalue}"
                    # skip to the grader's cell: the student's functions may be defined already
                    left = deadline - time.monotonic()
                    client.timeout = max(1, math.ceil(left))
                    client.execute_cell(nb.cells[last], last)
                    break
            if store_widget_state:
                client.set_widgets_metadata()
    except CellTimeoutError:
        return "timeout", f"{_num(timeout)} s limit reached in cell {index}"
    except CellExecutionError as exc:
        ename = getattr(exc, "ename", type(exc).__name__)
        return "error", f"{ename} in cell {index}: {_short(getattr(exc, 'evalue', ''))}"
    except DeadKernelError:
        return "error", f"the kernel died in cell {index} (memory or CPU-time limit reached?)"
    except Exception as exc:  # noqa: BLE001 - kernel start failures, zmq errors ...
        if time.monotonic() >= deadline:
            return "timeout", f"{_num(timeout)} s limit reached in cell {index}"
        return "error", f"{type(exc).__name__} in cell {index}: {_short(str(exc))}"
    finally:
        for cell in nb.cells:
            cell.metadata.pop("execution", None)  # nbclient's timestamps: keep files deterministic
    return status, detail


def run_submission(path: str | Path, student: Student | None = None, chapter: int | None = None,
                   timeout: float = 120, secret: bytes | None = None, sandbox: SandboxConfig | None = None,
                   isolate: bool = False, assignment: Path | None = None) -> Submission:
    """Grade one notebook: run it confined in a temporary folder, then judge its answers here."""
    path = Path(path)
    student = student or Student(path.stem, path.stem, path.name)
    sandbox = sandbox or SandboxConfig()
    start = time.monotonic()
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001 - anything unreadable is an invalid notebook
        sub = Submission(path, student, chapter, status="invalid-notebook")
        sub.detail = f"not a readable notebook ({type(exc).__name__}: {_short(str(exc))})"
        return sub
    sub = Submission(path, student, chapter_of(nb) or chapter)
    if sub.chapter is None:
        sub.status, sub.detail = "invalid-notebook", "the notebook does not say its chapter; use --chapter"
        return sub
    plan = {}
    for ex in exercises(sub.chapter):
        params = student_params(ex, student.id, secret)
        cases = student_cases(ex, student.id, secret, params) if ex.is_function else [()]
        plan[ex.id] = (ex, params, cases)
    nonce = secrets.token_hex(16)
    spec = {i: {"name": ex.function_name, "cases": encode_cases(cases)}
            for i, (ex, _, cases) in plan.items() if ex.is_function}
    nb.cells.append(grader_cell(nonce, spec))
    work = Path(tempfile.mkdtemp(prefix="mbdlib-grade-"))
    try:
        if assignment is not None:
            shutil.copytree(assignment, work, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.ipynb"))
        kernel = _Kernel(work, sandbox, isolate)
        sub.status, sub.detail = execute(nb, work, timeout, km=kernel.manager(work), always_last=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    values = records_in(nb)
    functions = grader_records(nb, nonce)
    sub.shown = solutions_shown(nb)
    for i, (ex, params, cases) in plan.items():
        v = (_judge_function(ex, functions.get(i), cases, params) if ex.is_function
             else _judge_value(ex, values.get(i), params))
        if v is not None and not (v.verdict == "missing" and sub.status != "ok"):
            sub.verdicts[i] = v  # (a function missing after an early stop was never defined: not run)
    sub.seconds = time.monotonic() - start
    return sub


def _short(text: str, limit: int = 160) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(text)).replace("\n", " ").strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- reports
def feedback_markdown(sub: Submission, rows: list[dict]) -> str:
    """A student's feedback page (markdown)."""
    total = sum(float(r["points"]) for r in rows)
    most = sum(float(r["max_points"]) for r in rows)
    lines = [f"# Feedback for {sub.student.name} ({sub.student.id})", ""]
    if sub.chapter is not None:
        lines += [f"Chapter {sub.chapter}, notebook `{sub.path.name}`.", ""]
    lines += [f"**Total: {_num(total)} / {_num(most)} points**", ""]
    if sub.status != "ok":
        lines += [f"> Your notebook did not run to the end ({sub.status}): {sub.detail}", ""]
    lines += ["| Exercise | Title | Verdict | Points | Hint |", "|---|---|---|---|---|"]
    for r in rows:
        try:
            title = get(r["exercise"]).title
        except KeyError:
            title = ""
        hint = r["hint"].replace("|", "\\|")
        points = f"{r['points']} / {r['max_points']}"
        lines.append(f"| {r['exercise']} | {title} | {r['verdict']} | {points} | {hint} |")
    return "\n".join(lines) + "\n"


def write_totals(grades: str | Path, out: str | Path) -> list[dict]:
    """One row per student from ``grades`` (the per-exercise CSV): student, name, points, max_points, percent.

    The columns map onto gradebook imports: Moodle ("ID number" <- student, grade <- points), Canvas
    ("SIS User ID" <- student, the assignment's column <- points); see the book's *For instructors* page.
    """
    totals: dict[str, dict] = {}
    with Path(grades).open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            t = totals.setdefault(row["student"], {"student": row["student"], "name": row["name"],
                                                   "points": 0.0, "max_points": 0.0})
            t["points"] += float(row["points"] or 0)
            t["max_points"] += float(row["max_points"] or 0)
    rows = []
    for t in sorted(totals.values(), key=lambda t: t["student"]):
        pct = 100 * t["points"] / t["max_points"] if t["max_points"] else 0.0
        rows.append({**t, "points": _num(t["points"]), "max_points": _num(t["max_points"]),
                     "percent": f"{pct:.1f}"})
    tmp = Path(out).with_suffix(".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, TOTAL_FIELDS)
        w.writeheader()
        w.writerows(rows)
    tmp.replace(out)
    return rows


def notebooks_in(paths) -> list[Path]:
    """Expand directories to the ``.ipynb`` files they contain (sorted); keep files as given."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.glob("*.ipynb") if not q.name.startswith("."))
        else:
            out.append(p)
    return out


def _complete_students(out: Path, chapter: int | None) -> set[str]:
    """Students whose rows in ``out`` are complete; the CSV is rewritten without the others (resume)."""
    with out.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    expected = {e.id for e in exercises(chapter)} if chapter is not None else None
    by_student: dict[str, list[dict]] = {}
    for row in rows:
        by_student.setdefault(row["student"], []).append(row)
    complete = set()
    for sid, rs in by_student.items():
        ids = [r["exercise"] for r in rs]
        if len(ids) == len(set(ids)) and (expected is None or set(ids) == expected or ids == [""]):
            complete.add(sid)
    kept = [r for r in rows if r["student"] in complete]
    if len(kept) != len(rows):
        tmp = out.with_suffix(".tmp")
        with tmp.open("w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, FIELDS)
            w.writeheader()
            w.writerows(kept)
        tmp.replace(out)
    return complete


def grade(paths, out: str | Path, timeout: float = 120, workers: int = 1, feedback: str | Path | None = None,
          chapter: int | None = None, resume: bool = False, roster: str | Path | None = None,
          secret_file: str | Path | None = None, totals: str | Path | None = None,
          sandbox: SandboxConfig | None = None, assignment: str | Path | None = None,
          log=print) -> list[Submission]:
    """Grade notebooks (files or directories) into the CSV file ``out``.

    Parameters
    ----------
    paths : iterable of path
        Notebooks, or directories whose ``*.ipynb`` are all graded.
    out : path
        CSV file; rewritten from its header unless ``resume``.
    timeout : float
        Wall-clock limit per notebook, in seconds (kernel start included).
    workers : int
        Notebooks graded at the same time (each in its own kernel).
    feedback : path, optional
        Directory for one ``<student id>.md`` per student.
    chapter : int, optional
        Chapter to grade against when a notebook does not say (in its metadata).
    resume : bool
        Keep the complete students of ``out`` and grade the others.
    roster : path, optional
        CSV of ``student_id,name,file``: identities (else each file's name is the student id).
    secret_file : path, optional
        The course secret: each student is graded on their own variant (as released with it).
    totals : path, optional
        CSV of one total per student, for a gradebook.
    sandbox : SandboxConfig, optional
        Memory and CPU limits, and whether isolation (no network, read-only elsewhere) is required.
    assignment : path, optional
        A folder of data files the notebooks need; copied into each submission's own folder.
    """
    files = notebooks_in(paths)
    out = Path(out)
    sandbox = sandbox or SandboxConfig()
    secret = read_secret(secret_file) if secret_file is not None else None
    students = read_roster(roster) if roster is not None else None
    available, why = isolation_available()
    if sandbox.isolate and not available:
        raise RuntimeError(f"isolation was required but is not available here: {why}")
    isolate = available and sandbox.isolate is not False
    log("sandbox: " + ("each kernel without network, read-only outside its own folder" if isolate else
                       f"NOT isolated ({why or 'disabled'}): kernels have the network and the file system")
        + f"; limits {sandbox.memory_mb} MB, {sandbox.cpu_seconds} s CPU, {_num(timeout)} s wall clock")
    if chapter is None:
        seen = set()
        for p in files:
            try:
                c = chapter_of(nbformat.read(p, as_version=4))
            except Exception:  # noqa: BLE001
                c = None
            if c is not None:
                seen.add(c)
        chapter = seen.pop() if len(seen) == 1 else None
    graded, duplicates, problems = match_files(files, students)
    for msg in problems:
        log(f"problem: {msg}")
    done: set[str] = set()
    if resume and out.exists() and out.stat().st_size > 0:
        done = _complete_students(out, chapter)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", newline="", encoding="utf-8") as f:
            csv.DictWriter(f, FIELDS).writeheader()
    if feedback is not None:
        Path(feedback).mkdir(parents=True, exist_ok=True)
    lock = threading.Lock()
    finished: list[Submission] = []

    def write(sub: Submission) -> None:
        if sub.chapter is None:
            sub.chapter = chapter
        rows = sub.rows()
        with lock:
            if sub.student.id in done:
                return
            with out.open("a", newline="", encoding="utf-8") as f:
                buf = _csv_text(rows)
                f.write(buf)  # one write per student: an interruption leaves whole students only
                f.flush()
                os.fsync(f.fileno())
            done.add(sub.student.id)
        if feedback is not None and sub.status not in ("no-submission",):
            (Path(feedback) / f"{_safe(sub.student.id)}.md").write_text(feedback_markdown(sub, rows),
                                                                        encoding="utf-8")
        total = sum(float(r["points"]) for r in rows)
        log(f"{sub.student.id}: {_num(total)} points ({sub.status}, {sub.seconds:.1f} s)")
        finished.append(sub)

    for s, ps in duplicates.items():
        write(Submission(ps[0], s, chapter, status="duplicate", detail=f"{len(ps)} files: "
                                                                        + ", ".join(p.name for p in ps)))
    if students is not None:
        present = {s.id for s in graded.values()} | {s.id for s in duplicates}
        for s in students:
            if s.id not in present:
                write(Submission(Path(s.file), s, chapter, status="no-submission",
                                 detail=f"no file {s.file} was handed in"))
    todo = [(p, s) for p, s in graded.items() if s.id not in done]
    assignment_dir = Path(assignment) if assignment is not None else None
    with ThreadPoolExecutor(max_workers=max(1, int(workers))) as pool:
        futures = [pool.submit(_run_safely, p, s, chapter, timeout, secret, sandbox, isolate, assignment_dir)
                   for p, s in todo]
        for fut in as_completed(futures):
            write(fut.result())
    if totals is not None:
        write_totals(out, totals)
    return finished


def _csv_text(rows: list[dict]) -> str:
    import io

    buf = io.StringIO()
    csv.DictWriter(buf, FIELDS).writerows(rows)
    return buf.getvalue()


def _run_safely(path: Path, student: Student, chapter, timeout, secret, sandbox, isolate, assignment):
    """:func:`run_submission`, with any unexpected failure recorded instead of stopping the batch."""
    try:
        return run_submission(path, student, chapter, timeout, secret, sandbox, isolate, assignment)
    except Exception as exc:  # noqa: BLE001
        why = f"grader failure: {_short(str(exc))}"
        return Submission(path, student, chapter, status="error", detail=why)


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", name) or "student"
