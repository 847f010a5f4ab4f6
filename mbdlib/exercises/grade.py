"""Batch grading that decides for itself and flags what it cannot decide.

Each submission runs in a confined kernel (:mod:`.sandbox`: its own folder and user, no network, nothing
of the instructor's visible, memory, process and CPU limits) under one wall-clock budget. The grader
appends one cell that calls the student's functions on hidden cases (:mod:`.collect`), reads the
**answers** the notebook recorded (never its displayed verdicts, and at most :data:`MAX_OUTPUT_MB` of
output), and judges them in a child process with a time and memory limit (:mod:`.judging`) against keys
computed from the exercise's parameters: the public ones, or, with the course secret, the student's
variant (:mod:`.variants`). One CSV row per student per exercise::

    student,name,exercise,verdict,points,max_points,hint,mistake

Verdicts: ``correct``, ``wrong``, ``unanswered``, ``error`` (the student's function raised, or the answer
could not be judged in time), and

* ``missing``: no record of an answer for this exercise (a deleted check cell, or a record without an answer);
* ``solution-shown``: the notebook asked for the solution (``show_solution``); no points;
* ``not-run``: the notebook stopped (an error, or a killed kernel: memory or CPU limit) before the check;
* ``timeout``: the notebook was still running when its time was up;
* ``invalid-notebook``: the file is not a readable notebook, or is larger than the limit;
* ``duplicate``: two files for one student (neither is graded; both are reported);
* ``variant-unverifiable``: the notebook has per-student numbers the grader cannot verify (no secret, another
  secret, an edited variant cell): not graded, no points;
* ``no-submission``: a student of the roster without a file.

Nothing is guessed: every file that matches no one, every duplicate, unreadable or oversized file, every
unverifiable or borrowed variant is a :class:`.roster.Problem` (written to the problems file), and
:attr:`GradingRun.exit_status` is then 1. Rows are written student by student (one write, flushed), so an
interrupted run loses nothing already graded; ``resume`` keeps the students whose rows are complete.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .collect import encode_cases
from .core import MIME, RECORD_SCHEMA, Verdict, exercises, get
from .exports import (
    FIELDS,
    csv_text,
    feedback_markdown,
    mistake_counts,
    write_mistakes,
    write_problems,
    write_totals,
)
from .judging import JUDGE_SECONDS, close_servers, judge_all, judge_function, judge_value
from .roster import BENIGN, Problem, Student, match_files, read_roster
from .sandbox import PYTHON, Jail, SandboxConfig, describe, isolation_available, sweep
from .variants import (
    PUBLIC_SALT,
    check_variant,
    problem_of,
    read_secret,
    student_cases,
    student_params,
    variant_rng,
)

__all__ = ["grade", "run_submission", "execute", "GradingRun", "Submission", "records_in", "chapter_of",
           "FIELDS", "MAX_NOTEBOOK_MB", "MAX_OUTPUT_MB", "PUBLIC_SALT", "problem_of", "read_secret",
           "student_cases", "student_params", "variant_rng", "read_roster", "match_files", "write_totals",
           "feedback_markdown"]

#: Largest notebook file the grader reads (MB); a larger one is reported, not opened.
MAX_NOTEBOOK_MB = 20
#: Output a notebook may send the grader while it runs (MB); beyond it the run is stopped.
MAX_OUTPUT_MB = 64
#: Largest single message from a kernel (MB): ZeroMQ drops the connection beyond it.
MAX_MESSAGE_MB = 64

_judge_value, _judge_function = judge_value, judge_function  # (the names the tests have always used)


# ---------------------------------------------------------------- one graded notebook
@dataclass
class Submission:
    """One graded notebook: who, which chapter, the verdicts, and how the run ended."""

    path: Path
    student: Student
    chapter: int | None = None
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    shown: set[str] = field(default_factory=set)
    status: str = "ok"  # ok | error | timeout | invalid-notebook | duplicate | no-submission
    detail: str = ""
    seconds: float = 0.0
    variant: str = "ok"  # ok | unverifiable | borrowed | no-variant
    variant_detail: str = ""
    flags: list[tuple[str, str]] = field(default_factory=list)  # (problem kind, detail) for the instructor

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
            if self.variant == "unverifiable" and self.status not in ("duplicate", "no-submission",
                                                                      "invalid-notebook") \
                    and _has_variant(i):
                rows.append(self._row(i, "variant-unverifiable", self.variant_detail, 0, max_points))
            elif v is None:
                rows.append(self._row(i, *absent, 0, max_points))
            elif i in self.shown:
                why = f"the solution was shown; the answer was {v.verdict}"
                rows.append(self._row(i, "solution-shown", why, 0, max_points))
            else:
                rows.append(self._row(i, v.verdict, v.hint, v.points, max_points, v.mistake))
        return rows

    def _row(self, exercise: str, verdict: str, hint: str, points, max_points, mistake: str = "") -> dict:
        return {"student": self.student.id, "name": self.student.name, "exercise": exercise,
                "verdict": verdict, "points": _num(points), "max_points": _num(max_points), "hint": hint,
                "mistake": mistake}


def _points(exercise_id: str) -> float:
    try:
        return get(exercise_id).points
    except KeyError:
        return 0


def _has_variant(exercise_id: str) -> bool:
    try:
        return get(exercise_id).variant is not None
    except KeyError:
        return False


def _num(x) -> str:
    try:
        return f"{float(x):g}"
    except (TypeError, ValueError):
        return "0"


def chapter_of(nb) -> int | None:
    """The chapter a notebook says it belongs to (metadata ``mbdlib: {"chapter": N}``): a claim, checked
    against the chapter being graded, never used to choose it."""
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
            rec = data.get(MIME) if isinstance(data, dict) else None
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


# ---------------------------------------------------------------- running a notebook
class OutputFlood(RuntimeError):
    """The notebook sent more output than the grader reads (:data:`MAX_OUTPUT_MB`)."""


def _client_class():
    from nbclient import NotebookClient

    class BoundedClient(NotebookClient):
        """nbclient's client, keeping at most ``max_output_bytes`` of a notebook's outputs."""

        max_output_bytes = MAX_OUTPUT_MB * 1024 * 1024
        received = 0

        def process_message(self, msg, cell, cell_index):
            content = msg.get("content") or {}
            size = sum(len(str(v)) for v in (content.get("data") or {}).values()) + len(str(content.get(
                "text", ""))) + len(str(content.get("traceback", "")))
            self.received += size
            if self.received > self.max_output_bytes:
                raise OutputFlood(f"the notebook printed more than {self.max_output_bytes >> 20} MB")
            return super().process_message(msg, cell, cell_index)

    return BoundedClient


def _manager(jail: Jail):
    import zmq
    import zmq.asyncio
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager

    spec = jail.work.parent / f"{jail.work.name}-spec" / "mbdlib-sandbox"
    spec.mkdir(parents=True)
    argv = jail.kernel_argv([PYTHON, "-m", "ipykernel_launcher", "-f", "{connection_file}"])
    (spec / "kernel.json").write_text(json.dumps({
        "argv": argv, "display_name": "mbdlib grading sandbox", "language": "python", "env": {}}),
        encoding="utf-8")

    class Manager(AsyncKernelManager):
        def client(self, **kwargs):  # a ZeroMQ context that drops oversized messages
            context = zmq.asyncio.Context()
            context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_MB * 1024 * 1024)
            client = super().client(context=context, **kwargs)
            client._created_context = True  # (destroyed with the client)
            return client

    # the asynchronous manager, as nbclient's own default: with a blocking one, waiting for output of a cell
    # that never finishes would block nbclient's event loop and its timeout with it
    ksm = KernelSpecManager(kernel_dirs=[str(spec.parent)])
    return Manager(kernel_name="mbdlib-sandbox", kernel_spec_manager=ksm, transport="ipc", ip=str(jail.ipc),
                   connection_file=str(jail.connection_file))


def execute(nb, cwd: str | Path, timeout: float = 120, store_widget_state: bool = False, km=None,
            always_last: bool = False, on_ready=None) -> tuple[str, str]:
    """Run a notebook's code cells in place, in a fresh kernel, within ``timeout`` seconds (wall clock).

    Each cell gets the time that is left. ``km``: a kernel manager (default: the ``python3`` kernel).
    With ``store_widget_state`` the widgets' state is saved in the notebook's metadata. With
    ``always_last`` the last cell runs even after an earlier cell raised (the grader's cell). ``on_ready``
    is called once the kernel is up, before any cell. Returns ``(status, detail)``: ``"ok"``, ``"error"``
    (a cell raised, the kernel died, or the output exceeded :data:`MAX_OUTPUT_MB`) or ``"timeout"``; the
    outputs of the cells that ran stay in ``nb``.
    """
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    deadline = time.monotonic() + timeout
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    client = _client_class()(
        nb,
        km=km,
        kernel_name="python3" if km is None else km.kernel_name,
        timeout=max(1, math.ceil(timeout)),
        startup_timeout=max(1, math.ceil(min(timeout, 60))),
        shutdown_kernel="immediate",
        # output may come well after the reply on a loaded machine: wait for it (nbclient's 4 s default
        # would let a check's record go missing), and call it a timeout if it never comes
        iopub_timeout=max(1, math.ceil(min(60, timeout))),
        raise_on_iopub_timeout=True,
        allow_errors=False,
        store_widget_state=store_widget_state,
        resources={"metadata": {"path": str(Path(cwd).resolve())}},
    )
    index, status, detail = -1, "ok", ""
    try:
        with client.setup_kernel():
            if on_ready is not None:
                on_ready()
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
    except OutputFlood as exc:
        return "error", f"{exc} in cell {index}: stopped"
    except CellTimeoutError:
        return "timeout", f"{_num(timeout)} s limit reached in cell {index}"
    except CellExecutionError as exc:
        ename = getattr(exc, "ename", type(exc).__name__)
        return "error", f"{ename} in cell {index}: {_short(getattr(exc, 'evalue', ''))}"
    except DeadKernelError:
        return "error", f"the kernel died in cell {index} (memory, process or CPU-time limit reached?)"
    except Exception as exc:  # noqa: BLE001 - kernel start failures, zmq errors ...
        if time.monotonic() >= deadline:
            return "timeout", f"{_num(timeout)} s limit reached in cell {index}"
        return "error", f"{type(exc).__name__} in cell {index}: {_short(str(exc))}"
    finally:
        for cell in nb.cells:
            cell.metadata.pop("execution", None)  # nbclient's timestamps: keep files deterministic
    return status, detail


def coalesce_streams(nb) -> None:
    """Merge consecutive stream outputs of one name in each cell (how the kernel happened to flush a print
    is not part of the result: stored notebooks stay the same from one execution to the next)."""
    for cell in nb.cells:
        merged = []
        for out in cell.get("outputs", []):
            if merged and out.get("output_type") == "stream" and merged[-1].get("output_type") == "stream" \
                    and merged[-1].get("name") == out.get("name"):
                merged[-1]["text"] = merged[-1]["text"] + out["text"]
            else:
                merged.append(out)
        if cell.cell_type == "code":
            cell.outputs = merged


def run_submission(path: str | Path, student: Student | None = None, chapter: int | None = None,
                   timeout: float = 120, secret: bytes | None = None, sandbox: SandboxConfig | None = None,
                   isolate: bool = False, assignment: Path | None = None,
                   judge_seconds: float = JUDGE_SECONDS) -> Submission:
    """Grade one notebook against ``chapter``: run it confined, then judge its answers in a child process."""
    path = Path(path)
    student = student or Student(path.stem, path.stem, path.name)
    sandbox = sandbox or SandboxConfig()
    start = time.monotonic()
    sub = Submission(path, student, chapter)
    try:
        size = path.stat().st_size
        if size > MAX_NOTEBOOK_MB * 1024 * 1024:
            sub.status = "invalid-notebook"
            sub.detail = (f"the file is {size / 2**20:.0f} MB, more than the {MAX_NOTEBOOK_MB} MB a notebook "
                          "may be")
            return sub
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001 - anything unreadable is an invalid notebook
        sub.status = "invalid-notebook"
        sub.detail = f"not a readable notebook ({type(exc).__name__}: {_short(str(exc))})"
        return sub
    if chapter is None:
        sub.status, sub.detail = "invalid-notebook", "no chapter to grade against (give the chapter)"
        return sub
    claimed = chapter_of(nb)
    if claimed is not None and claimed != chapter:
        sub.flags.append(("chapter-mismatch", f"the notebook says chapter {claimed}; graded as chapter "
                                              f"{chapter}, the chapter of this run"))
    try:
        return _run_checked(nb, sub, student, chapter, timeout, secret, sandbox, isolate, assignment,
                            judge_seconds, start)
    except Exception as exc:  # noqa: BLE001 - the flags found so far stay with the student's row
        sub.status, sub.detail = "error", f"grader failure: {type(exc).__name__}: {_short(str(exc))}"
        return sub


def _run_checked(nb, sub, student, chapter, timeout, secret, sandbox, isolate, assignment, judge_seconds,
                 start) -> Submission:
    """:func:`run_submission` once the notebook is read and its chapter claim checked."""
    sub.variant, sub.variant_detail = check_variant(nb, student.id, secret, exercises(chapter))
    if sub.variant != "ok":
        kind = "no-variant" if sub.variant == "no-variant" else f"variant-{sub.variant}"
        sub.flags.append((kind, sub.variant_detail))
    plan = {}
    for ex in exercises(chapter):
        params = student_params(ex, student.id, secret)
        cases = student_cases(ex, student.id, secret, params) if ex.is_function else [()]
        plan[ex.id] = (ex, params, cases)
    nonce = secrets.token_hex(16)
    spec = {i: {"name": ex.function_name, "cases": encode_cases(cases)}
            for i, (ex, _, cases) in plan.items() if ex.is_function}
    nb.cells.append(grader_cell(nonce, spec))
    jail = Jail(sandbox, isolate, assignment)
    try:
        sub.status, sub.detail = execute(nb, jail.work, timeout, km=_manager(jail), always_last=True,
                                         on_ready=jail.seal)
    finally:
        left = jail.close()
        if left:
            sub.detail = (sub.detail + "; " if sub.detail else "") + \
                f"{len(left)} process(es) it left running were killed"
    values = records_in(nb)
    functions = grader_records(nb, nonce)
    sub.shown = solutions_shown(nb)
    jobs = []
    for i, (ex, params, cases) in plan.items():
        record = functions.get(i) if ex.is_function else values.get(i)
        if record is not None:
            jobs.append((i, record, cases, params))
    for i, v in judge_all(jobs, judge_seconds).items():
        if v is not None and not (v.verdict == "missing" and sub.status != "ok"):
            sub.verdicts[i] = v  # (a function missing after an early stop was never defined: not run)
    sub.seconds = time.monotonic() - start
    return sub


def _short(text: str, limit: int = 160) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(text)).replace("\n", " ").strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- the batch
class GradingRun(list):
    """The graded submissions (a list of :class:`Submission`), with what the instructor must look at.

    ``problems``: the :class:`.roster.Problem` list; ``exit_status``: 0 if everything was graded as it is,
    1 if there is a problem to look at (anything but a missing submission); ``mistakes``: the per-mistake
    counts (:func:`.exports.mistake_counts`).
    """

    problems: list[Problem]
    mistakes: list[dict]

    @property
    def exit_status(self) -> int:
        return 1 if any(p.kind not in BENIGN for p in self.problems) else 0


def notebooks_in(paths) -> list[Path]:
    """Expand directories to the files they contain (sorted; hidden files skipped); keep files as given."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.iterdir() if q.is_file() and not q.name.startswith("."))
        else:
            out.append(p)
    return out


def _complete_students(out: Path, chapter: int | None) -> set[str]:
    """Students whose rows in ``out`` are complete; the CSV is rewritten without the others (resume)."""
    import csv

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
            w = csv.DictWriter(f, FIELDS, extrasaction="ignore")
            w.writeheader()
            w.writerows(kept)
        tmp.replace(out)
    return complete


def _chapter_for(files: list[Path], chapter: int | None) -> int:
    """The chapter to grade against: the one given, or the one every readable notebook names (so that a
    notebook's metadata can refuse a run, never choose its own chapter)."""
    if chapter is not None:
        return int(chapter)
    seen: dict[int, list[str]] = {}
    for p in files:
        try:
            if p.stat().st_size <= MAX_NOTEBOOK_MB * 1024 * 1024 and p.suffix.lower() == ".ipynb":
                c = chapter_of(nbformat.read(p, as_version=4))
                if c is not None:
                    seen.setdefault(c, []).append(p.name)
        except Exception:  # noqa: BLE001 - unreadable files are reported when graded
            pass
    if len(seen) != 1:
        named = "; ".join(f"chapter {c}: {', '.join(v[:3])}" for c, v in sorted(seen.items())) or "none"
        raise ValueError(f"give the chapter to grade against (--chapter N): the notebooks do not all name "
                         f"the same one ({named})")
    return next(iter(seen))


def _more_open_files() -> None:
    """Raise this process's open-file limit to its hard limit: each graded notebook leaves about 20
    descriptors of its ZeroMQ contexts to the garbage collector (jupyter_client's), and a desktop's
    default soft limit of 1024 would stop a class of a few hundred part-way."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY else
                                                        max(soft, 1 << 16), hard))
        except (ValueError, OSError):
            pass


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h} h {m:02d} min" if h else f"{m} min {s:02d} s" if m else f"{s} s"


def grade(paths, out: str | Path, timeout: float = 120, workers: int = 1, feedback: str | Path | None = None,
          chapter: int | None = None, resume: bool = False, roster: str | Path | None = None,
          secret_file: str | Path | None = None, totals: str | Path | None = None,
          sandbox: SandboxConfig | None = None, assignment: str | Path | None = None,
          totals_format: str = "plain", assignment_name: str = "", problems: str | Path | None = None,
          mistakes: str | Path | None = None, judge_seconds: float = JUDGE_SECONDS, log=print) -> GradingRun:
    """Grade notebooks (files or directories) into the CSV file ``out``.

    Parameters
    ----------
    paths : iterable of path
        Notebooks, or directories whose files are all considered (a file that is not a notebook is a
        problem).
    out : path
        CSV file; rewritten from its header unless ``resume``.
    timeout : float
        Wall-clock limit per notebook, in seconds (kernel start included).
    workers : int
        Notebooks graded at the same time (each in its own kernel).
    feedback : path, optional
        Directory for one ``<student id>.md`` per student.
    chapter : int, optional
        The chapter to grade against. Without it, every notebook must name the same chapter.
    resume : bool
        Keep the complete students of ``out`` and grade the others.
    roster : path, optional
        CSV of ``student_id,name,file`` (and optional gradebook columns): identities (else each file's
        name is the student id).
    secret_file : path, optional
        The course secret: each student is graded on their own variant (as released with it).
    totals : path, optional
        One total per student, for a gradebook, in ``totals_format`` (``plain``, ``canvas``, ``moodle``)
        with the grade column titled ``assignment_name``.
    sandbox : SandboxConfig, optional
        Limits, and whether complete isolation is required (``isolate=True``: refuse without it).
    assignment : path, optional
        A folder of data files the notebooks need; copied into each submission's own folder.
    problems, mistakes : path, optional
        Where to write the problems found and the per-mistake counts (CSV; default: next to ``out``,
        ``<out>.problems.csv`` and ``<out>.mistakes.csv``).
    judge_seconds : float
        Longest the grader spends judging one answer.

    Returns
    -------
    GradingRun
        The submissions graded, the problems, and the exit status (1 if any problem needs a look).
    """
    files = notebooks_in(paths)
    out = Path(out)
    sandbox = sandbox or SandboxConfig()
    secret = read_secret(secret_file) if secret_file is not None else None
    students = read_roster(roster) if roster is not None else None
    sweep()  # what a grader killed outright long ago left behind
    _more_open_files()
    available, why = isolation_available()
    if sandbox.isolate and not available:
        raise RuntimeError(f"isolation was required but this machine lacks: {why}")
    isolate = sandbox.isolate is not False and not _missing("namespaces")
    chapter = _chapter_for(files, chapter)
    log(f"chapter {chapter}; {describe(isolate)}; limits {sandbox.memory_mb} MB, {sandbox.max_processes} "
        f"processes, {sandbox.cpu_seconds} s CPU, {_num(timeout)} s wall clock, {sandbox.disk_mb} MB disk")
    graded, duplicates, found = match_files(files, students)
    run = GradingRun()
    run.problems = list(found)
    for p in found:
        log(f"problem: {p}")
    done: set[str] = set()
    if resume and out.exists() and out.stat().st_size > 0:
        done = _complete_students(out, chapter)
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(",".join(FIELDS) + "\n", encoding="utf-8")
    if feedback is not None:
        Path(feedback).mkdir(parents=True, exist_ok=True)
    lock = threading.Lock()
    todo = [(p, s) for p, s in graded.items() if s.id not in done]
    total, counter, started = len(todo), [0], time.monotonic()

    def write(sub: Submission, counted: bool) -> None:
        if sub.chapter is None:
            sub.chapter = chapter
        rows = sub.rows()
        with lock:
            if sub.student.id in done:
                return
            with out.open("a", newline="", encoding="utf-8") as f:
                f.write(csv_text(rows))  # one write per student: an interruption leaves whole students only
                f.flush()
                os.fsync(f.fileno())
            done.add(sub.student.id)
            for kind, detail in _problems_of(sub):
                problem = Problem(kind, detail, str(sub.path), sub.student.id, sub.student.name)
                run.problems.append(problem)
                log(f"problem: {problem}")
            run.append(sub)
            if counted:
                counter[0] += 1
        if feedback is not None and sub.status != "no-submission":
            text = feedback_markdown(sub.student, rows, sub.chapter, sub.path.name, sub.status, sub.detail)
            (Path(feedback) / f"{_safe(sub.student.id)}.md").write_text(text, encoding="utf-8")
        points = sum(float(r["points"]) for r in rows)
        most = sum(float(r["max_points"]) for r in rows)
        if counted:
            k = counter[0]
            elapsed = time.monotonic() - started
            left = elapsed / k * (total - k)
            state = sub.status if sub.variant != "unverifiable" else f"{sub.status}, variant unverifiable"
            log(f"[{k} of {total}] {sub.student.id}: {_num(points)}/{_num(most)} points ({state}, "
                f"{sub.seconds:.1f} s); elapsed {_duration(elapsed)}, about {_duration(left)} left")
        else:
            log(f"{sub.student.id}: {sub.status} ({_short(sub.detail, 100)})")

    for s, ps in duplicates.items():
        if s.id not in done:
            write(Submission(ps[0], s, chapter, status="duplicate",
                             detail=f"{len(ps)} files: " + ", ".join(p.name for p in ps)), False)
    if students is not None:
        present = {s.id for s in graded.values()} | {s.id for s in duplicates}
        for s in students:
            if s.id not in present and s.id not in done:
                write(Submission(Path(s.file), s, chapter, status="no-submission",
                                 detail=f"no file {s.file} was handed in"), False)
    log(f"grading {total} notebook(s) on {max(1, int(workers))} worker(s)")
    assignment_dir = Path(assignment) if assignment is not None else None
    with ThreadPoolExecutor(max_workers=max(1, int(workers))) as pool:
        futures = [pool.submit(_run_safely, p, s, chapter, timeout, secret, sandbox, isolate, assignment_dir,
                               judge_seconds) for p, s in todo]
        try:
            for fut in as_completed(futures):
                write(fut.result(), True)
        finally:
            close_servers()  # (the judging servers of this run's threads)
    problems_path = Path(problems) if problems is not None else out.with_name(out.stem + ".problems.csv")
    write_problems(run.problems, problems_path)
    mistakes_path = Path(mistakes) if mistakes is not None else out.with_name(out.stem + ".mistakes.csv")
    run.mistakes = write_mistakes(out, mistakes_path)
    for m in run.mistakes[:12]:
        log(f"mistake: {m['exercise']}: {m['students']} of {m['of']}: {m['mistake']} "
            f"({_short(m['hint'], 80)})")
    if totals is not None:
        write_totals(out, totals, totals_format, students, assignment_name or f"mbdlib chapter {chapter}")
    serious = [p for p in run.problems if p.kind not in BENIGN]
    if serious:
        log(f"{len(serious)} problem(s) need your attention: see {problems_path}")
    return run


def _missing(mechanism: str) -> bool:
    from .sandbox import probe

    return bool(probe()[mechanism])


def _problems_of(sub: Submission) -> list[tuple[str, str]]:
    """The problems one graded submission raises (beyond those of matching files)."""
    out = list(sub.flags)
    if sub.status == "invalid-notebook":
        out.append(("invalid-notebook", sub.detail))
    if sub.status == "error" and sub.detail.startswith("grader failure"):
        out.append(("grader-error", sub.detail))
    return out


def _run_safely(path: Path, student: Student, chapter, timeout, secret, sandbox, isolate, assignment,
                judge_seconds):
    """:func:`run_submission`, with any unexpected failure recorded instead of stopping the batch."""
    try:
        return run_submission(path, student, chapter, timeout, secret, sandbox, isolate, assignment,
                              judge_seconds)
    except Exception as exc:  # noqa: BLE001
        why = f"grader failure: {_short(str(exc))}"
        return Submission(path, student, chapter, status="error", detail=why)


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", name) or "student"


__all__ += ["mistake_counts", "notebooks_in", "grader_cell", "records_in"]
