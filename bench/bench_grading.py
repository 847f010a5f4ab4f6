"""Grading throughput: 100 synthetic submissions of one chapter on 2 workers (issue 13).

The submissions are copies of chapter 1's solution notebook (all correct), of its student version (nothing
answered) and of the solution with one answer spoiled, in the proportions 2 : 1 : 1; each is graded as in
class: its own confined kernel (no network and read-only elsewhere where the machine allows it), a hidden
case cell appended, the answers judged in the grader's process. Reported: submissions per minute and the
mean time per submission, with the machine.

Run alone: ``.venv/bin/python bench/bench_grading.py [N]`` (default N = 100).
"""

from __future__ import annotations

import json
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
    from mbdlib.exercises.sandbox import isolation_available

    work = Path(tempfile.mkdtemp(prefix="bench-grading-"))
    try:
        subs = work / "subs"
        subs.mkdir()
        _submissions(subs, n)
        isolated, why = isolation_available()
        t0 = time.perf_counter()
        done = grade([subs], work / "grades.csv", timeout=120, workers=workers, log=lambda *a: None)
        seconds = time.perf_counter() - t0
        rows = (work / "grades.csv").read_text(encoding="utf-8").splitlines()[1:]
        correct = sum(",correct," in r for r in rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rate = 60 * len(done) / seconds
    return "\n".join([
        "Grading throughput (chapter 1, solution : empty : one wrong answer = 2 : 1 : 1)",
        f"  {machine()}",
        f"  kernels {'confined (no network, read-only elsewhere)' if isolated else 'NOT confined: ' + why}",
        f"  {len(done)} submissions on {workers} workers in {seconds:.0f} s: {rate:.0f} submissions per "
        f"minute, {seconds / len(done) * workers:.1f} s of a worker per submission",
        f"  ({correct} correct rows of {len(rows)})",
    ])


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else N_DEFAULT))
