"""The grader's decision on one submission's records, in a child process with a time and memory limit.

The answers a notebook recorded are data (:mod:`.answers`), but data can still be expensive: a formula of
200 000 characters that equals the key at every test point sends ``sympy.simplify`` into minutes; a deep
expression can exhaust memory. The grader therefore judges each exercise in a child process (forked from a
server that has the chapters' modules loaded, so a child starts in milliseconds) with an address-space
limit, and waits at most ``seconds`` for each verdict: an answer that takes longer is graded ``error``
("the grader gave up comparing this answer"), the child is killed, and a new one judges the rest. The time
and memory the grader spends on a submission's records are bounded whatever they contain.

:func:`judge_value` and :func:`judge_function` are the decisions themselves (also called directly by the
tests).
"""

from __future__ import annotations

import multiprocessing as mp
import re
import resource
from pathlib import Path

from .answers import RecordError, deserialize
from .core import RECORD_SCHEMA, Exercise, Verdict, get, judge

__all__ = ["judge_value", "judge_function", "judge_all", "JUDGE_SECONDS", "JUDGE_MEMORY_MB"]

#: Longest the grader waits for the verdict on one exercise's answer (seconds).
JUDGE_SECONDS = 30.0
#: Memory a judging child may add to what it inherits (MB).
JUDGE_MEMORY_MB = 1536


def judge_value(ex: Exercise, record: dict | None, params: dict) -> Verdict | None:
    """The verdict on a value exercise's record (None when there is no record)."""
    if record is None:
        return None
    if record.get("schema") != RECORD_SCHEMA or "answer" not in record:
        why = "the record carries no answer (only a verdict: not graded)"
        return Verdict(ex.id, "missing", 0, ex.points, why)
    try:
        answer = deserialize(record["answer"])
    except RecordError as exc:
        return Verdict(ex.id, "wrong", 0, ex.points, str(exc), "type:record")
    if answer is None:
        return Verdict(ex.id, "unanswered", 0, ex.points, "replace None with your answer")
    return judge(ex, [answer], [()], params)


def judge_function(ex: Exercise, record: dict | None, cases: list[tuple], params: dict) -> Verdict | None:
    """The verdict on a function exercise's results on the grading cases (the grader cell's record)."""
    if record is None:
        return None
    if "missing" in record:
        return Verdict(ex.id, "missing", 0, ex.points, str(record["missing"])[:300])
    outputs = []
    for out in (record.get("outputs") or [])[: len(cases)]:
        if not isinstance(out, dict):
            return Verdict(ex.id, "wrong", 0, ex.points, "the grader's record is malformed", "type:record")
        if out.get("type") == "raised":
            return Verdict(ex.id, "error", 0, ex.points,
                           f"your function raised {str(out.get('error', '?'))[:200]} on a grading case")
        try:
            value = deserialize(out)
        except RecordError as exc:
            return Verdict(ex.id, "wrong", 0, ex.points, f"{exc} (on a grading case)", "type:record")
        if value is None:
            return Verdict(ex.id, "unanswered", 0, ex.points, "your function returns None")
        outputs.append(value)
    if len(outputs) != len(cases):
        why = str(record.get("error", "the function did not finish the cases"))[:300]
        return Verdict(ex.id, "error", 0, ex.points, why)
    v = judge(ex, outputs, cases, params)
    if v.verdict == "wrong":  # the hidden inputs are not shown: say that it was on a grading case
        hint = "on a grading case: " + re.sub(r"^for input \(.*?\): ", "", v.hint)
        v = Verdict(ex.id, "wrong", 0, ex.points, hint, v.mistake)
    return v


def _one(job: tuple) -> Verdict | None:
    exercise_id, record, cases, params = job
    ex = get(exercise_id)
    if ex.is_function:
        return judge_function(ex, record, cases, params)
    return judge_value(ex, record, params)


def _worker(conn, jobs: list[tuple], memory_mb: int) -> None:  # pragma: no cover - runs in the child
    try:
        with open("/proc/self/statm") as f:
            inherited = int(f.read().split()[0]) * resource.getpagesize()
        limit = inherited + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (OSError, ValueError):
        pass
    for job in jobs:
        try:
            verdict = _one(job)
        except MemoryError:
            verdict = Verdict(job[0], "error", 0, get(job[0]).points,
                              "the grader ran out of memory comparing this answer (a formula far larger than "
                              "needed?)")
        except Exception as exc:  # noqa: BLE001 - a verdict, never a crash of the grader
            verdict = Verdict(job[0], "error", 0, get(job[0]).points,
                              f"the grader could not compare this answer ({type(exc).__name__})")
        conn.send((job[0], verdict))
    conn.close()


def _chapter_modules() -> list[str]:
    here = Path(__file__).parent
    return [f"mbdlib.exercises.{p.stem}" for p in sorted(here.glob("ch[0-9][0-9].py"))]


_CONTEXT = None


def _context():
    global _CONTEXT
    if _CONTEXT is None:
        ctx = mp.get_context("forkserver")
        # loaded once by the server, so that each judging child starts without importing sympy & co.
        ctx.set_forkserver_preload(["mbdlib.exercises.judging", *_chapter_modules()])
        _CONTEXT = ctx
    return _CONTEXT


def judge_all(jobs: list[tuple], seconds: float = JUDGE_SECONDS,
              memory_mb: int = JUDGE_MEMORY_MB) -> dict[str, Verdict | None]:
    """Verdicts for ``jobs`` = ``[(exercise id, record, cases, params), ...]``, each within ``seconds``.

    An answer whose judging takes longer, or exhausts the child's memory, gets an ``error`` verdict that
    says so; the other exercises are judged by a new child.
    """
    results: dict[str, Verdict | None] = {}
    todo = list(jobs)
    ctx = _context()
    while todo:
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_worker, args=(child, todo, int(memory_mb)), daemon=True)
        proc.start()
        child.close()
        try:
            while todo:
                exercise_id = todo[0][0]
                if not parent.poll(seconds):
                    points = get(exercise_id).points
                    results[exercise_id] = Verdict(
                        exercise_id, "error", 0, points,
                        f"the grader gave up comparing this answer after {seconds:g} s (a formula far larger "
                        "than needed?)")
                    todo.pop(0)
                    break
                try:
                    got, verdict = parent.recv()
                except (EOFError, OSError):  # the child died (memory): this answer is the cause
                    points = get(exercise_id).points
                    results[exercise_id] = Verdict(
                        exercise_id, "error", 0, points,
                        "the grader ran out of memory comparing this answer (a formula far larger than "
                        "needed?)")
                    todo.pop(0)
                    break
                results[got] = verdict
                todo = [j for j in todo if j[0] != got]
        finally:
            if proc.is_alive():
                proc.kill()
            proc.join(5)
            parent.close()
    return results

