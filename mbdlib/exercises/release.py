"""Release notebooks for a class: one per student with their own numbers, or nbgrader source notebooks.

``release`` (per-student variants)
    For each student of the roster, a copy of the student version of a chapter's exercise notebook with one
    cell added after the title: ``use_variant("<token>")``. The token carries the student's *parameters*
    (drawn from the course secret and the student's id, :func:`mbdlib.exercises.variants.variant_rng`),
    never a key, with a fingerprint of the secret and a signature (the grader checks both); the notebook's
    data cells read them with ``params("1.1")``. Only a student version is released: a notebook with
    solution blocks or stored outputs, or without the mark ``generate`` puts in its metadata, is refused.
    Without the secret nothing in the released notebook or in the installed package gives a variant's
    expected answers: the grader recomputes them (``grade --secret-file``). The file is named as the roster
    says (its ``file`` column), which is also how the grader knows whose it is.

``nbgrader``
    Source notebooks for instructors who run nbgrader (on JupyterHub): the solution notebook with nbgrader's
    cell metadata: each cell with ``### BEGIN SOLUTION`` becomes an autograded-answer cell, each ``check``
    cell a locked autograder-test cell worth the exercise's points that calls :func:`assert_correct` (which
    raises when the answer is not correct), every other cell read-only; a notebook without solution cells
    (the student version) is refused. nbgrader's own ``generate_assignment`` strips the solutions and
    ``autograde`` runs the tests. In that workflow the tests run in the student's kernel with the public
    parameters, nbgrader's trust model, not this package's.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat

from .core import encode_variant, exercises, get
from .generate import BEGIN, render
from .grade import chapter_of
from .roster import read_roster
from .variants import read_secret, student_params

__all__ = ["release_variants", "nbgrader_source", "check_releasable", "solutions_in", "VARIANT_MARK"]

VARIANT_MARK = "# mbdlib: your own variant of this assignment"
_CHECK = re.compile(r"""^\s*check\(\s*(["'])(?P<id>\d+\.\d+[a-z]?)\1\s*,(?P<rest>.*)\)\s*$""", re.S)


def _variant_cell(token: str) -> nbformat.NotebookNode:
    source = (f"{VARIANT_MARK} (do not edit this cell: your numbers come from it)\n"
              "from mbdlib.exercises import use_variant\n"
              f'use_variant("{token}")')
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["tags"] = ["mbdlib-variant"]
    cell.metadata["editable"] = False
    cell.metadata["deletable"] = False
    return cell


def solutions_in(nb) -> list[str]:
    """What in a notebook gives answers away: solution blocks, stored outputs (as "cell k: ...")."""
    found = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and BEGIN in cell.source:
            found.append(f"cell {k}: a solution block ({BEGIN})")
        elif cell.cell_type == "markdown" and "<!-- BEGIN SOLUTION -->" in cell.source:
            found.append(f"cell {k}: a written solution")
        elif cell.cell_type == "code" and cell.get("outputs"):
            found.append(f"cell {k}: stored outputs")
    return found


def check_releasable(nb, notebook: Path) -> None:
    """Refuse (``ValueError``) a notebook that is not a student version: solutions, outputs, or no mark."""
    leaks = solutions_in(nb)
    if leaks:
        more = f" and {len(leaks) - 3} more" if len(leaks) > 3 else ""
        raise ValueError(f"{notebook} contains solutions ({'; '.join(leaks[:3])}{more}): release the student "
                         f"version, exercises/{notebook.name} (python -m mbdlib.exercises generate solutions "
                         "exercises writes it)")
    if not (nb.metadata.get("mbdlib") or {}).get("student_version"):
        raise ValueError(f"{notebook} is not marked as a student version (metadata mbdlib.student_version): "
                         f"release exercises/{notebook.name}, which generate writes")


def release_variants(notebook: str | Path, roster: str | Path, secret_file: str | Path, out: str | Path,
                     course: str = "", allow_solutions: bool = False) -> list[Path]:
    """Write one copy of ``notebook`` per student of ``roster`` into ``out``, each with its variant cell.

    The notebook must be a student version (:func:`check_releasable`); ``allow_solutions=True`` skips that
    check, for tests that release a solved notebook to make right submissions.
    """
    notebook, out = Path(notebook), Path(out)
    nb = nbformat.read(notebook, as_version=4)
    chapter = chapter_of(nb)
    if chapter is None:
        raise ValueError(f"{notebook}: the notebook does not say its chapter (metadata mbdlib.chapter)")
    if any(VARIANT_MARK in c.source for c in nb.cells):
        raise ValueError(f"{notebook} already has a variant cell: release from the student version in "
                         "exercises/")
    if not allow_solutions:
        check_releasable(nb, notebook)
    secret = read_secret(secret_file)
    students = read_roster(roster)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for s in students:
        params = {ex.id: student_params(ex, s.id, secret)
                  for ex in exercises(chapter) if ex.variant is not None}
        copy_nb = copy.deepcopy(nb)
        at = next((k + 1 for k, c in enumerate(copy_nb.cells) if c.cell_type == "markdown"), 0)
        copy_nb.cells.insert(at, _variant_cell(encode_variant(s.id, chapter, params, course, secret)))
        copy_nb.metadata.setdefault("mbdlib", {})["released_for"] = s.id
        path = out / s.file
        path.write_text(render(copy_nb), encoding="utf-8")
        written.append(path)
    return written


def nbgrader_source(solution: str | Path, out: str | Path) -> Path:
    """Write the nbgrader source version of a solution notebook (see the module docstring)."""
    solution, out = Path(solution), Path(out)
    nb = nbformat.read(solution, as_version=4)
    src = copy.deepcopy(nb)
    n_sol = 0
    for cell in src.cells:
        meta = {"schema_version": 3, "locked": True, "solution": False, "grade": False}
        if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source:
            n_sol += 1
            meta.update(locked=False, solution=True, grade_id=f"answer-{n_sol}")
        elif cell.cell_type == "code" and (m := _CHECK.match(cell.source)):
            ex = get(m.group("id"))
            cell.source = (f"from mbdlib.exercises import assert_correct\n"
                           f"assert_correct({m.group('id')!r},{m.group('rest')})")
            grade_id = "check-" + ex.id.replace(".", "_")  # nbgrader ids: letters, digits, _ and -
            meta.update(grade=True, grade_id=grade_id, points=float(ex.points))
        elif cell.cell_type == "markdown" and "<!-- BEGIN SOLUTION -->" in cell.source:
            n_sol += 1
            meta.update(locked=False, solution=True, grade=True, grade_id=f"written-{n_sol}", points=0.0)
        else:
            meta["grade_id"] = f"cell-{id(cell) % 10**8}"  # placeholder, replaced below by a stable id
        cell.metadata["nbgrader"] = meta
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    if n_sol == 0:
        raise ValueError(f"{solution} has no solution cells (### BEGIN SOLUTION): --nbgrader needs the "
                         f"solution notebook, solutions/{solution.name}, not the student version")
    for k, cell in enumerate(src.cells):  # stable, unique ids for the read-only cells
        if cell.metadata["nbgrader"]["grade_id"].startswith("cell-"):
            cell.metadata["nbgrader"]["grade_id"] = f"cell-{k}"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(src), encoding="utf-8")
    return out

