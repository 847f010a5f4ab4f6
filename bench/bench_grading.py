"""Grading throughput: a class of 100 synthetic submissions of one chapter on 2 workers (issues 13, 24).

The submissions are copies of chapter 1's solution notebook (all correct), of its student version (nothing
answered) and of the solution with one answer spoiled, in the proportions 2 : 1 : 1; each is graded as in
class: its own confined kernel (namespaces, a user and cgroups of its own where the machine offers them:
the run's first line says which), a hidden-case cell appended, the answers judged in a bounded child
process. Reported: submissions per minute, the time of a worker per submission, the load of the machine
before and after (the course machine is shared: a load above its 2 cores slows every figure), and the
grader's own "k of N" progress lines at 10 %, 50 % and the end.

Run alone: ``.venv/bin/python bench/bench_grading.py [N] [workers]`` (default 100 submissions, 2 workers).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from _timing import machine

ROOT = Path(__file__).resolve().parent.parent
N_DEFAULT = 100


def _submissions(folder: Path, n: int) -> None:
    solution = nbformat.read(ROOT / "solutions" / "ch01_kinematics.ipynb", as_version=4)
    empty = nbformat.read(ROOT / "exercises" / "ch01_kinematics.ipynb", as_version=4)
    spoiled = nbformat.from_dict(json.loads(json.dumps(solution)))
    at = next(i for i, c in enumerate(spoiled.cells) if c.cell_type == "code" and 'check("1.1"' in c.source)
    spoiled.cells.insert(at, nbformat.v4.new_code_cell("A = A.T"))
    kinds = [solution, solution, empty, spoiled]
    for k in range(n):
        nbformat.write(kinds[k % 4], folder / f"s{k:03d}.ipynb")


def main(n: int = N_DEFAULT, workers: int = 2) -> str:
    from mbdlib.exercises.grade import grade
    from mbdlib.exercises.sandbox import describe, isolation_available

    work = Path(tempfile.mkdtemp(prefix="bench-grading-"))
    logged: list[str] = []
    try:
        subs = work / "subs"
        subs.mkdir()
        _submissions(subs, n)
        load_before = os.getloadavg()
        t0 = time.perf_counter()
        done = grade([subs], work / "grades.csv", chapter=1, timeout=180, workers=workers, log=logged.append)
        seconds = time.perf_counter() - t0
        load_after = os.getloadavg()
        rows = (work / "grades.csv").read_text(encoding="utf-8").splitlines()[1:]
        correct = sum(",correct," in r for r in rows)
        isolated = isolation_available()[0]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rate = 60 * len(done) / seconds
    progress = [line for line in logged if line.startswith("[")]
    picks = {max(0, len(progress) // 10 - 1), max(0, len(progress) // 2 - 1), len(progress) - 1}
    marks = [progress[k] for k in sorted(picks)] if progress else []
    return "\n".join([
        f"Grading throughput (chapter 1, solution : empty : one wrong answer = 2 : 1 : 1), {n} submissions",
        f"  {machine()}, {os.cpu_count()} cores",
        f"  {describe(True) if isolated else 'NOT fully confined: ' + describe(True)}",
        f"  {len(done)} submissions on {workers} workers in {seconds:.0f} s: {rate:.1f} submissions per "
        f"minute, {seconds / len(done) * workers:.1f} s of a worker per submission",
        f"  load average (1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} after",
        f"  ({correct} correct rows of {len(rows)})",
        *[f"  progress: {line}" for line in marks],
    ])


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else N_DEFAULT,
               int(sys.argv[2]) if len(sys.argv) > 2 else 2))
