"""Batch grading: execute submitted notebooks and collect their check records.

Each submission runs in its own fresh kernel (nbclient, kernel ``python3``),
cell by cell, under one wall-clock budget for the whole notebook (each cell
gets the time that is left).  The records that :func:`~mbdlib.exercises.check`
displayed (mimetype :data:`~mbdlib.exercises.core.MIME`) become CSV rows, one
per student per exercise of the chapter::

    student,exercise,verdict,points,max_points,hint

Verdicts are those of the checks (``correct``, ``wrong``, ``unanswered``,
``error``) plus, for exercises without a record:

* ``missing``: the notebook ran to the end but never checked it (a deleted check cell);
* ``not-run``: the notebook stopped with an error before the check;
* ``timeout``: the notebook was still running when its time was up;
* ``invalid-notebook``: the file is not a readable notebook.

Rows are appended and flushed as soon as a student is done, so an
interrupted run loses nothing already graded (``--resume`` continues it).
If a check ran twice for the same exercise, the last record counts.  The
records are what the notebook displayed: a determined student could forge
them, so spot-check surprising results.
"""

from __future__ import annotations

import csv
import json
import math
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .core import MIME, exercises, get

FIELDS = ["student", "exercise", "verdict", "points", "max_points", "hint"]


@dataclass
class Submission:
    """One graded notebook: who, which chapter, the records found, and how the run ended."""

    path: Path
    student: str
    chapter: int | None = None
    records: dict[str, dict] = field(default_factory=dict)
    status: str = "ok"  # ok | error | timeout | invalid-notebook
    detail: str = ""
    seconds: float = 0.0

    def rows(self) -> list[dict]:
        """One CSV row per exercise of the chapter (plus any other exercise that reported)."""
        expected = []
        if self.chapter is not None:
            expected = [e.id for e in exercises(self.chapter)]
        ids = expected + [i for i in self.records if i not in expected]
        if not ids:
            return [
                self._row(
                    "", self.status if self.status != "ok" else "missing", self.detail or "no checks ran"
                )
            ]
        absent = {
            "ok": ("missing", "no check ran for this exercise: was its check cell deleted?"),
            "error": ("not-run", f"the notebook stopped before this check: {self.detail}"),
            "timeout": ("timeout", f"the notebook was still running after its time limit: {self.detail}"),
            "invalid-notebook": ("invalid-notebook", self.detail),
        }[self.status]
        rows = []
        for i in ids:
            r = self.records.get(i)
            if r is None:
                rows.append(self._row(i, *absent))
            else:
                rows.append(
                    self._row(i, r["verdict"], r.get("hint", ""), r.get("points", 0), r.get("max_points"))
                )
        return rows

    def _row(self, exercise: str, verdict: str, hint: str, points: float = 0, max_points=None) -> dict:
        if max_points is None:
            try:
                max_points = get(exercise).points
            except KeyError:
                max_points = 0
        return {
            "student": self.student,
            "exercise": exercise,
            "verdict": verdict,
            "points": _num(points),
            "max_points": _num(max_points),
            "hint": hint,
        }


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


def records_in(nb) -> dict[str, dict]:
    """The check records displayed in an executed notebook (last one per exercise wins)."""
    found: dict[str, dict] = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data = out.get("data", {}) if out.get("output_type") in ("display_data", "execute_result") else {}
            rec = data.get(MIME)
            if isinstance(rec, str):  # some writers store JSON mimetypes as text
                try:
                    rec = json.loads(rec)
                except ValueError:
                    rec = None
            if isinstance(rec, dict) and "exercise" in rec and "verdict" in rec:
                found[str(rec["exercise"])] = dict(rec)
    return found


def _student_name(path: Path, nb=None) -> str:
    name = None
    if nb is not None:
        try:
            name = nb.metadata["mbdlib"]["student"]
        except (KeyError, TypeError):
            name = None
    return str(name) if name else path.stem


def execute(nb, cwd: str | Path, timeout: float = 120, store_widget_state: bool = False) -> tuple[str, str]:
    """Run a notebook's code cells in place, in a fresh ``python3`` kernel, within ``timeout`` seconds.

    The budget is wall-clock for the whole notebook: each cell gets the time
    that is left.  With ``store_widget_state`` the widgets' state is saved in the
    notebook's metadata (so that a rendered page can draw them).  Returns
    ``(status, detail)`` with status ``"ok"``,
    ``"error"`` (a cell raised, or the kernel died) or ``"timeout"``; the
    outputs of the cells that ran stay in ``nb``.
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
        kernel_name="python3",
        timeout=max(1, math.ceil(timeout)),
        startup_timeout=max(1, math.ceil(min(timeout, 60))),
        shutdown_kernel="immediate",
        allow_errors=False,
        store_widget_state=store_widget_state,
        resources={"metadata": {"path": str(Path(cwd).resolve())}},
    )
    index = -1
    try:
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    raise CellTimeoutError(f"no time left before cell {index}")
                client.timeout = max(1, math.ceil(left))
                client.execute_cell(cell, index)
            if store_widget_state:
                client.set_widgets_metadata()
    except CellTimeoutError:
        return "timeout", f"{_num(timeout)} s limit reached in cell {index}"
    except CellExecutionError as exc:
        ename = getattr(exc, "ename", type(exc).__name__)
        return "error", f"{ename} in cell {index}: {_short(getattr(exc, 'evalue', ''))}"
    except DeadKernelError:
        return "error", f"the kernel died in cell {index}"
    except Exception as exc:  # noqa: BLE001 - kernel start failures, zmq errors ...
        if time.monotonic() >= deadline:
            return "timeout", f"{_num(timeout)} s limit reached in cell {index}"
        return "error", f"{type(exc).__name__} in cell {index}: {_short(str(exc))}"
    finally:
        for cell in nb.cells:
            cell.metadata.pop("execution", None)  # nbclient's timestamps: keep files deterministic
    return "ok", ""


def run_submission(path: str | Path, timeout: float = 120, chapter: int | None = None) -> Submission:
    """Execute one notebook in a fresh kernel within ``timeout`` seconds and collect its records."""
    path = Path(path)
    start = time.monotonic()
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # noqa: BLE001 - anything unreadable is an invalid notebook
        sub = Submission(path, path.stem, chapter, status="invalid-notebook")
        sub.detail = f"not a readable notebook ({type(exc).__name__}: {_short(str(exc))})"
        return sub
    sub = Submission(path, _student_name(path, nb), chapter_of(nb) or chapter)
    sub.status, sub.detail = execute(nb, path.parent, timeout)
    sub.records = records_in(nb)
    if sub.chapter is None and sub.records:
        sub.chapter = int(next(iter(sub.records)).split(".")[0])
    sub.seconds = time.monotonic() - start
    return sub


def _short(text: str, limit: int = 160) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(text)).replace("\n", " ").strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def feedback_markdown(sub: Submission, rows: list[dict]) -> str:
    """A student's feedback page (markdown)."""
    total = sum(float(r["points"]) for r in rows)
    most = sum(float(r["max_points"]) for r in rows)
    lines = [f"# Feedback for {sub.student}", ""]
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
        lines.append(
            f"| {r['exercise']} | {title} | {r['verdict']} | {r['points']} / {r['max_points']} | {hint} |"
        )
    return "\n".join(lines) + "\n"


def notebooks_in(paths) -> list[Path]:
    """Expand directories to the ``.ipynb`` files they contain (sorted); keep files as given."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.glob("*.ipynb") if not q.name.startswith("."))
        else:
            out.append(p)
    return out


def grade(
    paths,
    out: str | Path,
    timeout: float = 120,
    workers: int = 1,
    feedback: str | Path | None = None,
    chapter: int | None = None,
    resume: bool = False,
    log=print,
) -> list[Submission]:
    """Grade notebooks (files or directories) into the CSV file ``out``.

    Parameters
    ----------
    paths : iterable of path
        Notebooks, or directories whose ``*.ipynb`` are all graded.
    out : path
        CSV file; rewritten from its header unless ``resume`` (then students
        already in it are skipped and new rows appended).
    timeout : float
        Wall-clock limit per notebook, in seconds (kernel start included).
    workers : int
        Notebooks graded at the same time (each in its own kernel).
    feedback : path, optional
        Directory for one ``<student>.md`` per student.
    chapter : int, optional
        Chapter to grade against when a notebook does not say (in its metadata).

    Returns
    -------
    list of Submission
        In the order they finished.
    """
    files = notebooks_in(paths)
    out = Path(out)
    done: set[str] = set()
    if resume and out.exists():
        with out.open(newline="", encoding="utf-8") as f:
            done = {row["student"] for row in csv.DictReader(f)}
    if not (resume and out.exists() and out.stat().st_size > 0):
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", newline="", encoding="utf-8") as f:
            csv.DictWriter(f, FIELDS).writeheader()
    if feedback is not None:
        Path(feedback).mkdir(parents=True, exist_ok=True)
    # a notebook that cannot be read still needs the chapter's exercise list: take the batch's
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
    todo = [p for p in files if p.stem not in done]
    lock = threading.Lock()
    finished: list[Submission] = []

    def write(sub: Submission) -> None:
        if sub.student in done:
            return
        if sub.chapter is None:
            sub.chapter = chapter
        rows = sub.rows()
        with lock, out.open("a", newline="", encoding="utf-8") as f:
            csv.DictWriter(f, FIELDS).writerows(rows)
            f.flush()
        if feedback is not None:
            (Path(feedback) / f"{_safe(sub.student)}.md").write_text(
                feedback_markdown(sub, rows), encoding="utf-8"
            )
        total = sum(float(r["points"]) for r in rows)
        log(f"{sub.student}: {_num(total)} points ({sub.status}, {sub.seconds:.1f} s)")
        finished.append(sub)

    with ThreadPoolExecutor(max_workers=max(1, int(workers))) as pool:
        futures = [pool.submit(_run_safely, p, timeout, chapter) for p in todo]
        for fut in as_completed(futures):
            write(fut.result())
    return finished


def _run_safely(path: Path, timeout: float, chapter: int | None) -> Submission:
    """:func:`run_submission`, with any unexpected failure recorded instead of stopping the batch."""
    try:
        return run_submission(path, timeout, chapter)
    except Exception as exc:  # noqa: BLE001
        return Submission(
            path, path.stem, chapter, status="error", detail=f"grader failure: {_short(str(exc))}"
        )


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", name) or "student"
