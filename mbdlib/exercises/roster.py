"""Who handed in what: the roster, file names matched to students, and the problems an instructor must see.

Identity comes from a file's **name** (or the roster's ``file`` column), never from what a notebook says
about itself. Names are compared without regard to case, Unicode form or the " (1)", " (2)" a browser adds
to a file downloaded twice (:func:`file_key`). Everything that cannot be graded as it is becomes a
:class:`Problem`: a file that matches no one, a file that is not a notebook, two files for one student, an
unreadable or oversized notebook, a variant that cannot be verified, a notebook released for someone else.
The grader writes them to a problems file and exits non-zero, so that nothing is skipped in silence.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Problem", "Student", "file_key", "match_files", "read_roster", "ROSTER_EXTRAS"]

#: Optional roster columns, carried into the gradebook exports (Canvas: ``canvas_id``, ``sis_login_id``,
#: ``section``; Moodle: ``email``, ``username``).
ROSTER_EXTRAS = ("canvas_id", "sis_login_id", "section", "email", "username")

#: Problem kinds that do not by themselves make the run fail (a missing submission is an ordinary event).
BENIGN = {"no-submission"}


@dataclass(frozen=True)
class Student:
    """A student: id (what the gradebook knows), name, the file name of their submission, extra columns."""

    id: str
    name: str
    file: str
    extra: tuple = ()

    def get(self, column: str, default: str = "") -> str:
        """An optional roster column (:data:`ROSTER_EXTRAS`), or ``default``."""
        return dict(self.extra).get(column, default)


@dataclass(frozen=True)
class Problem:
    """Something the instructor must look at: ``kind`` (a stable key), the file and student concerned."""

    kind: str
    detail: str
    file: str = ""
    student: str = ""
    name: str = ""

    def __str__(self) -> str:
        who = self.student or self.file
        return f"{who}: {self.detail}"

    def row(self) -> dict:
        return {"problem": self.kind, "file": self.file, "student": self.student, "name": self.name,
                "detail": self.detail}


PROBLEM_FIELDS = ["problem", "file", "student", "name", "detail"]


def file_key(name: str) -> str | None:
    """The form in which file names are compared, or None for a file that is not a notebook.

    >>> file_key("Bo_Chen.IPYNB"), file_key("cy_diaz (1).ipynb"), file_key("notes.pdf")
    ('bo_chen.ipynb', 'cy_diaz.ipynb', None)
    """
    name = unicodedata.normalize("NFC", str(name)).strip()
    stem, dot, ext = name.rpartition(".")
    if not dot or ext.lower() != "ipynb":
        return None
    stem = re.sub(r"\s*\(\d{1,3}\)$", "", stem.strip())  # a browser's "name (1).ipynb"
    return f"{stem.casefold()}.ipynb"


def read_roster(path: str | Path) -> list[Student]:
    """Students from a CSV file with the columns ``student_id``, ``name`` and ``file`` (header required).

    ``file`` is the submission's file name (``alice.ipynb``; the ``.ipynb`` may be left out); ids and
    files must be unique (files compared as :func:`file_key` does). Optional columns
    (:data:`ROSTER_EXTRAS`) are kept for the gradebook exports.
    """
    with Path(path).open(newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        missing = {"student_id", "name", "file"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"roster {path}: missing column(s) {sorted(missing)} "
                             "(it needs student_id, name, file)")
        students = []
        for n, row in enumerate(reader, start=2):
            sid, name, file = ((row.get(k) or "").strip() for k in ("student_id", "name", "file"))
            if not sid or not file:
                raise ValueError(f"roster {path}, line {n}: student_id and file must not be empty")
            file = file if file.lower().endswith(".ipynb") else f"{file}.ipynb"
            extra = tuple((k, v) for k in ROSTER_EXTRAS if (v := (row.get(k) or "").strip()))
            students.append(Student(sid, name or sid, file, extra))
    for what, key in (("id", lambda s: s.id), ("file", lambda s: file_key(s.file))):
        seen: dict[str, int] = {}
        for s in students:
            seen[key(s)] = seen.get(key(s), 0) + 1
        twice = [k for k, v in seen.items() if v > 1]
        if twice:
            raise ValueError(f"roster {path}: {what} listed twice: {', '.join(sorted(twice))}")
    return students


def match_files(files: list[Path], roster: list[Student] | None) -> tuple[dict[Path, Student], dict, list]:
    """Who each file belongs to, by its name only (never by what the notebook says about itself).

    Returns ``(graded, duplicates, problems)``: files to grade with their student; students with more
    than one file ``{student: [files]}`` (not graded); and the :class:`Problem` list (files matching no
    one or not notebooks, duplicates, students without a file).
    """
    problems: list[Problem] = []
    owner: dict[Path, Student] = {}
    by_key = {file_key(s.file): s for s in roster} if roster is not None else {}
    for p in files:
        key = file_key(p.name)
        if key is None:
            problems.append(Problem("not-a-notebook", "not a notebook (.ipynb); not graded", str(p)))
        elif roster is None:
            stem = key[: -len(".ipynb")]
            owner[p] = Student(stem, stem, p.name)
        elif key in by_key:
            owner[p] = by_key[key]
        else:
            problems.append(Problem("unmatched-file", "matches no student of the roster (not graded)",
                                    str(p)))
    by_student: dict[Student, list[Path]] = {}
    for p, s in owner.items():
        by_student.setdefault(s, []).append(p)
    duplicates = {s: ps for s, ps in by_student.items() if len(ps) > 1}
    for s, ps in duplicates.items():
        problems.append(Problem("duplicate", f"{len(ps)} files ({', '.join(map(str, ps))}); none graded",
                                "; ".join(map(str, ps)), s.id, s.name))
    graded = {p: s for p, s in owner.items() if s not in duplicates}
    for s in roster or []:
        if s not in by_student:
            problems.append(Problem("no-submission", f"no submission (expected {s.file})", "", s.id, s.name))
    return graded, duplicates, problems
