"""The grader's decision on one submission's records, in a child process with a time and memory limit.

The answers a notebook recorded are data (:mod:`.answers`), but data can still be expensive: a formula of
200 000 characters that equals the key at every test point sends ``sympy.simplify`` into minutes; a deep
expression can exhaust memory. The grader therefore judges each exercise in a child process, forked from a
server (``python -m mbdlib.exercises.judging``, one per grading thread) that has the chapters' modules
loaded, so that a child starts in milliseconds. The child has an address-space limit, and the grader waits
at most ``seconds`` for each verdict: an answer that takes longer is graded ``error`` ("the grader gave up
comparing this answer"), the child is killed, and a new one judges the rest. The time and memory the
grader spends on a submission's records are bounded whatever they contain.

:func:`judge_value` and :func:`judge_function` are the decisions themselves (also called directly by the
tests).
"""

from __future__ import annotations

import atexit
import json
import os
import pickle
import re
import resource
import select
import signal
import struct
import subprocess
import sys
import threading
from dataclasses import asdict

from .answers import RecordError, deserialize
from .core import RECORD_SCHEMA, Exercise, Verdict, exercises, get, judge

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


def get_chapter(chapter: int) -> None:
    """Load a chapter's exercises (its module) into this process."""
    exercises(chapter)


def _one(job: tuple) -> Verdict | None:
    exercise_id, record, cases, params = job
    ex = get(exercise_id)
    if ex.is_function:
        return judge_function(ex, record, cases, params)
    return judge_value(ex, record, params)


# ---------------------------------------------------------------- the judging server and its children
# Frames on the pipes: 4 bytes of length, then the payload. Requests (grader -> server) are pickled (the
# grader's own data: parameters and cases with their exact types); answers (child -> grader) are JSON.
def _write(fd: int, data: bytes) -> None:
    view = memoryview(struct.pack(">I", len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _read(fd: int, timeout: float | None = None) -> bytes | None:
    """One frame, or None at end of file; ``TimeoutError`` if nothing comes within ``timeout`` seconds."""
    if timeout is not None:  # poll, not select: a grader with many files open has descriptors past 1023
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        if not poller.poll(max(0, int(timeout * 1000))):
            raise TimeoutError
    head = _exactly(fd, 4)
    return None if head is None else _exactly(fd, struct.unpack(">I", head)[0])


def _exactly(fd: int, n: int) -> bytes | None:
    chunks, left = [], n
    while left:
        chunk = os.read(fd, left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _child(jobs: list[tuple], memory_mb: int) -> None:  # pragma: no cover - runs in a forked child
    import ctypes

    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: gone with the server
    try:
        with open("/proc/self/statm") as f:
            inherited = int(f.read().split()[0]) * resource.getpagesize()
        limit = inherited + memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (OSError, ValueError):
        pass
    _write(1, json.dumps({"pid": os.getpid()}).encode())
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
        _write(1, json.dumps({"exercise": job[0],
                              "verdict": None if verdict is None else asdict(verdict)}).encode())


def serve() -> None:  # pragma: no cover - the server process (python -m mbdlib.exercises.judging)
    """For each request, load its chapters (once), then fork a child that judges it (the server stays
    clean)."""
    import mbdlib.exercises.core  # noqa: F401 - the registry, before any chapter

    while True:
        frame = _read(0)
        if frame is None:
            return
        jobs, memory_mb = pickle.loads(frame)
        for chapter in sorted({str(j[0]).split(".")[0] for j in jobs}):
            if chapter.isdigit():
                get_chapter(int(chapter))
        pid = os.fork()
        if pid == 0:
            try:
                _child(jobs, memory_mb)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        _write(1, json.dumps({"done": status}).encode())


class _Server:
    """A judging server for one grading thread (started on first use, ended with :func:`close_servers`)."""

    def __init__(self):
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        self.proc = subprocess.Popen([sys.executable, "-m", "mbdlib.exercises.judging"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    def request(self, jobs: list[tuple], memory_mb: int) -> None:
        _write(self.proc.stdin.fileno(), pickle.dumps((jobs, memory_mb)))

    def frame(self, timeout: float | None) -> dict | None:
        data = _read(self.proc.stdout.fileno(), timeout)
        if data is None:
            raise RuntimeError("the judging server stopped")
        return json.loads(data)

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


_LOCAL = threading.local()
_SERVERS: list[_Server] = []
_LOCK = threading.Lock()


def _server() -> _Server:
    server = getattr(_LOCAL, "server", None)
    if server is None or server.proc.poll() is not None:
        server = _LOCAL.server = _Server()
        with _LOCK:
            _SERVERS.append(server)
    return server


def close_servers() -> None:
    """End the judging servers (the grader calls it when a run is over; also at exit)."""
    with _LOCK:
        servers, _SERVERS[:] = list(_SERVERS), []
    for s in servers:
        s.close()


atexit.register(close_servers)


def judge_all(jobs: list[tuple], seconds: float = JUDGE_SECONDS,
              memory_mb: int = JUDGE_MEMORY_MB) -> dict[str, Verdict | None]:
    """Verdicts for ``jobs`` = ``[(exercise id, record, cases, params), ...]``, each within ``seconds``.

    An answer whose judging takes longer, or exhausts the child's memory, gets an ``error`` verdict that
    says so; the other exercises are judged by a new child.
    """
    results: dict[str, Verdict | None] = {}
    todo = list(jobs)
    server = _server()
    while todo:
        server.request(todo, int(memory_mb))
        pid = server.frame(60)["pid"]
        while todo:
            exercise_id = todo[0][0]
            try:
                frame = server.frame(seconds)
            except TimeoutError:
                os.kill(pid, signal.SIGKILL)
                results[exercise_id] = Verdict(
                    exercise_id, "error", 0, get(exercise_id).points,
                    f"the grader gave up comparing this answer after {seconds:g} s (a formula far larger "
                    "than needed?)")
                todo.pop(0)
                while "done" not in server.frame(60):
                    pass
                break
            if "done" in frame:  # the child died (memory): the answer it was judging is the cause
                results[exercise_id] = Verdict(
                    exercise_id, "error", 0, get(exercise_id).points,
                    "the grader ran out of memory comparing this answer (a formula far larger than needed?)")
                todo.pop(0)
                break
            v = frame["verdict"]
            results[frame["exercise"]] = None if v is None else Verdict(**v)
            todo = [j for j in todo if j[0] != frame["exercise"]]
        else:
            server.frame(60)  # the child's "done"
    return results


if __name__ == "__main__":
    serve()
