"""Student versions: placeholders, determinism, and exercises/ in sync with solutions/."""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from mbdlib.exercises.generate import GenerateError, generate, strip_solutions, student_version

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "mbdlib.exercises", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_exercises_directory_is_in_sync_with_solutions():
    r = run_cli("generate", "solutions", "exercises", "--check")
    assert r.returncode == 0, r.stderr


def test_assignments_functions_and_returns_get_placeholders():
    src = "\n".join(
        [
            "L = 2.0",
            "### BEGIN SOLUTION",
            "tmp = L * 3",
            "A, (b, c) = tmp, (1, 2)",
            "import math",
            "M[0, 1] = 5",
            "### END SOLUTION",
            "check('1.1', A)",
        ]
    )
    out = strip_solutions(src)
    assert "tmp = None  # your code here" in out and "A = None  # your code here" in out
    assert "c = None" in out and "import math" not in out and "M[0, 1]" not in out
    assert out.startswith("L = 2.0\n") and out.endswith("check('1.1', A)")
    # with the names the rest of the notebook uses, intermediate results are not given away
    assert "tmp" not in strip_solutions(src, used=set())


def test_function_keeps_signature_and_docstring():
    # (x is local to f: no placeholder for it)
    src = 'def f(q, n=3):\n    """Doc."""\n    ### BEGIN SOLUTION\n    x = q * n\n    return x\n'
    src += "    ### END SOLUTION\n"
    assert strip_solutions(src) == 'def f(q, n=3):\n    """Doc."""\n    return None  # your code here\n'
    whole = '### BEGIN SOLUTION\ndef g(a,\n      b):\n    """Sum."""\n    return a + b\n### END SOLUTION'
    assert (
        strip_solutions(whole) == 'def g(a,\n      b):\n    """Sum."""\n    # your code here\n    return None'
    )
    one_line = "### BEGIN SOLUTION\ndef h(x): return x\n### END SOLUTION"
    assert strip_solutions(one_line) == "def h(x):\n    # your code here\n    return None"


@pytest.mark.parametrize(
    ("src", "match"),
    [
        ("### BEGIN SOLUTION\nx = 1", "never closed"),
        ("x = 1\n### END SOLUTION", "without a"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "inside another"),
    ],
)
def test_unbalanced_markers_are_errors_naming_the_place(src, match):
    with pytest.raises(GenerateError, match=match):
        strip_solutions(src, "nb.ipynb, cell 3")


def _solution_notebook():
    nb = new_notebook(
        cells=[
            new_markdown_cell("Explain.\n<!-- BEGIN SOLUTION -->Because.<!-- END SOLUTION -->"),
            new_code_cell("### BEGIN SOLUTION\nanswer = 42\n### END SOLUTION", execution_count=3),
            new_code_cell("check('0.1', answer)"),
        ]
    )
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="secret 42\n")]
    nb.cells[1].metadata["execution"] = {"iopub.status.busy": "2024-01-01T00:00:00"}
    nb.metadata["mbdlib"] = {"chapter": 0}
    for i, c in enumerate(nb.cells):
        c.id = f"c{i}"
    return nb


def test_student_version_clears_outputs_and_written_answers():
    st = student_version(_solution_notebook())
    assert st.cells[0].source == "Explain.\n*Write your answer here.*"
    assert st.cells[1].source == "answer = None  # your code here"
    assert st.cells[1].outputs == [] and st.cells[1].execution_count is None
    assert "execution" not in st.cells[1].metadata
    assert st.metadata["mbdlib"] == {"chapter": 0, "student_version": True}


def test_generation_is_deterministic_and_check_detects_staleness(tmp_path):
    src, dst = tmp_path / "solutions", tmp_path / "exercises"
    src.mkdir()
    nbformat.write(_solution_notebook(), src / "ch00.ipynb")
    assert generate(src, dst) == [str(dst / "ch00.ipynb")]
    first = (dst / "ch00.ipynb").read_bytes()
    assert generate(src, dst) == []  # nothing to rewrite
    (dst / "ch00.ipynb").unlink()
    generate(src, dst)
    assert (dst / "ch00.ipynb").read_bytes() == first
    assert b"secret" not in first and b"42" not in first
    assert generate(src, dst, check=True) == []

    (dst / "ch00.ipynb").write_text(first.decode().replace("your code here", "edited by hand"))
    (dst / "stray.ipynb").write_text("{}")
    problems = generate(src, dst, check=True)
    assert any("ch00.ipynb: out of date" in p for p in problems)
    assert any("stray.ipynb: has no solution notebook" in p for p in problems)

    r = run_cli("generate", str(src), str(dst), "--check")
    assert r.returncode == 1 and "ch00.ipynb" in r.stderr


def test_cli_reports_a_missing_solutions_directory(tmp_path):
    r = run_cli("generate", str(tmp_path / "nowhere"), str(tmp_path / "out"))
    assert r.returncode == 2 and "does not exist" in r.stderr
