"""nbgrader's own tools on the notebooks `release --nbgrader` writes (``make test-nbgrader``).

nbgrader is heavy (a Jupyter server extension, a database layer), so it lives in its own environment
(``.venv-nbgrader``, made by the make target) and this test is not collected by ``make test``. It releases
chapter 1 for nbgrader, runs ``nbgrader generate_assignment`` (which strips the solutions), hands in the
solution version for one student and the stripped version for another, runs ``nbgrader autograde`` and
``nbgrader export``, and checks the points nbgrader gives.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mbdlib.exercises import exercises

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(args, cwd):
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # nbgrader calls alembic
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    log = f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, f"{' '.join(map(str, args))} failed:\n{log}"
    return proc


def test_nbgrader_generates_and_autogrades_a_released_chapter(tmp_path):
    nbgrader = BIN / "nbgrader"
    if not nbgrader.exists():
        pytest.fail("nbgrader is not installed in this environment: run `make test-nbgrader`")
    course = tmp_path / "course"
    (course / "source" / "ch01").mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = 'mbd'\nc.CourseDirectory.root = {str(course)!r}\n"
        "c.Execute.timeout = 300\n")
    solution = ROOT / "solutions" / "ch01_kinematics.ipynb"
    _run([sys.executable, "-m", "mbdlib.exercises", "release", str(solution), "--nbgrader", "--out",
          str(course / "source" / "ch01")], course)
    _run([str(nbgrader), "generate_assignment", "ch01", "--force"], course)
    released = course / "release" / "ch01" / "ch01_kinematics.ipynb"
    assert released.is_file() and "### BEGIN SOLUTION" not in released.read_text()
    source = course / "source" / "ch01" / "ch01_kinematics.ipynb"
    for student, notebook in (("alice", source), ("bob", released)):
        folder = course / "submitted" / student / "ch01"
        folder.mkdir(parents=True)
        shutil.copy(notebook, folder / "ch01_kinematics.ipynb")
    _run([str(nbgrader), "autograde", "ch01", "--create", "--force"], course)
    _run([str(nbgrader), "export"], course)
    rows = {r["student_id"]: r for r in csv.DictReader((course / "grades.csv").open())}
    total = float(sum(e.points for e in exercises(1)))
    assert float(rows["alice"]["score"]) == total == float(rows["alice"]["max_score"])
    assert float(rows["bob"]["score"]) == 0.0
