"""What grading writes for people and gradebooks: feedback pages, totals, mistake counts, problems.

``grades.csv`` (one row per student per exercise, :data:`FIELDS`) is the record; everything here is
derived from it:

* :func:`feedback_markdown`: one page per student (total, verdicts, hints);
* :func:`write_totals`: one row per student, in the columns a gradebook imports (:data:`TOTALS_FORMATS`);
  a student whose grade needs the instructor's decision (a variant that cannot be verified, two files, an
  unreadable notebook) gets an **empty** grade, which both gradebooks read as "no grade", never a guess;
* :func:`write_mistakes`: per exercise, how many students made each recognised mistake ("12 of 40:
  transposed A"), counted by the mistakes' stable keys;
* :func:`write_problems`: the problems the run found (:class:`.roster.Problem`).

Gradebook formats, as documented by each system (**not tested against a live Canvas or Moodle** here):

``canvas``
    Canvas's Gradebook CSV import (Instructure, *Canvas Instructor Guide: How do I import grades in the
    Gradebook?*, https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807):
    the columns ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``, in that order (the
    order of Canvas's own export), then one column per assignment, titled as the assignment; a title that
    matches no assignment creates a new one, so the file carries exactly one grade column. Students are
    matched by ``ID`` (Canvas's user id) or ``SIS User ID`` or ``SIS Login ID``: the roster's
    ``student_id`` is written as the SIS User ID, and the optional roster columns ``canvas_id``,
    ``sis_login_id`` and ``section`` fill the others. An empty grade leaves the gradebook's cell as it is.
``moodle``
    Moodle's grade import from a CSV file (Moodle documentation, *Grade import*,
    https://docs.moodle.org/en/Grade_import; ``grade/import/csv`` in Moodle's source): the teacher maps
    one column to a user field (user id, username, ID number or email address) and each grade column to a
    grade item; an empty or ``-`` grade is "no grade", any other text that is not a number stops the whole
    import. Written: ``ID number`` (the roster's ``student_id``; map it to "ID number"), ``Full name``
    (ignore it), ``Email address`` and ``Username`` when the roster has them, and one grade column titled
    as the assignment.
``plain``
    ``student,name,points,max_points,percent,status``: for a spreadsheet.
"""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from pathlib import Path

from .core import get
from .roster import PROBLEM_FIELDS, Problem, Student

__all__ = ["FIELDS", "TOTALS_FORMATS", "UNSURE", "feedback_markdown", "write_totals", "write_mistakes",
           "write_problems", "csv_text"]

FIELDS = ["student", "name", "exercise", "verdict", "points", "max_points", "hint", "mistake"]
TOTALS_FORMATS = {
    "plain": ["student", "name", "points", "max_points", "percent", "status"],
    "canvas": ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"],   # + the assignment's column
    "moodle": ["ID number", "Full name"],                                     # (+ email, username) + grade
}
#: Verdicts after which a student's total is left empty for the instructor to decide.
UNSURE = ("variant-unverifiable", "duplicate", "invalid-notebook")
#: Verdicts of a student who handed in something graded (the denominator of the mistake counts).
GRADED = ("correct", "wrong", "unanswered", "error", "missing", "solution-shown", "not-run", "timeout")


def _num(x) -> str:
    try:
        return f"{float(x):g}"
    except (TypeError, ValueError):
        return "0"


def csv_text(rows: list[dict], fields: list[str] = FIELDS) -> str:
    buf = io.StringIO()
    csv.DictWriter(buf, fields, extrasaction="ignore").writerows(rows)
    return buf.getvalue()


def _cell(text: str) -> str:
    """A markdown table cell: ``|`` escaped, line breaks as ``<br>`` (a multi-line hint stays in its row)."""
    lines = (line.strip() for line in str(text).replace("|", "\\|").splitlines())
    return " <br>".join(line for line in lines if line)


def feedback_markdown(student: Student, rows: list[dict], chapter: int | None = None, notebook: str = "",
                      status: str = "ok", detail: str = "") -> str:
    """A student's feedback page (markdown)."""
    total = sum(float(r["points"]) for r in rows)
    most = sum(float(r["max_points"]) for r in rows)
    lines = [f"# Feedback for {student.name} ({student.id})", ""]
    if chapter is not None:
        lines += [f"Chapter {chapter}, notebook `{notebook}`.", ""]
    lines += [f"**Total: {_num(total)} / {_num(most)} points**", ""]
    if status != "ok":
        lines += [f"> Your notebook did not run to the end ({status}): {_cell(detail)}", ""]
    lines += ["| Exercise | Title | Verdict | Points | Hint |", "|---|---|---|---|---|"]
    for r in rows:
        try:
            title = get(r["exercise"]).title
        except KeyError:
            title = ""
        points = f"{r['points']} / {r['max_points']}"
        lines.append(f"| {r['exercise']} | {_cell(title)} | {r['verdict']} | {points} | {_cell(r['hint'])} |")
    return "\n".join(lines) + "\n"


def _read(grades: str | Path) -> list[dict]:
    with Path(grades).open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def student_totals(grades: str | Path) -> list[dict]:
    """``[{student, name, points, max_points, unsure}]`` from ``grades.csv``, sorted by student id."""
    totals: dict[str, dict] = {}
    for row in _read(grades):
        t = totals.setdefault(row["student"], {"student": row["student"], "name": row["name"], "points": 0.0,
                                               "max_points": 0.0, "unsure": ""})
        t["points"] += float(row["points"] or 0)
        t["max_points"] += float(row["max_points"] or 0)
        if row["verdict"] in UNSURE and not t["unsure"]:
            t["unsure"] = row["verdict"]
    return sorted(totals.values(), key=lambda t: t["student"])


def write_totals(grades: str | Path, out: str | Path, fmt: str = "plain",
                 students: list[Student] | None = None, assignment: str = "") -> list[dict]:
    """One row per student of ``grades`` in gradebook format ``fmt`` (see the module docstring).

    ``students``: the roster (for the optional columns the gradebooks match on); ``assignment``: the title
    of the grade column (the assignment's name in the gradebook). Returns the rows written.
    """
    if fmt not in TOTALS_FORMATS:
        raise ValueError(f"totals format {fmt!r}: choose one of {', '.join(TOTALS_FORMATS)}")
    roster = {s.id: s for s in students or []}
    column = assignment or "mbdlib exercises"
    rows = []
    extras = [c for c, k in (("Email address", "email"), ("Username", "username"))
              if any(s.get(k) for s in roster.values())]
    for t in student_totals(grades):
        s = roster.get(t["student"], Student(t["student"], t["name"], ""))
        points = "" if t["unsure"] else _num(t["points"])
        if fmt == "plain":
            pct = "" if t["unsure"] or not t["max_points"] else f"{100 * t['points'] / t['max_points']:.1f}"
            if not t["unsure"] and not t["max_points"]:
                pct = "0.0"
            rows.append({"student": t["student"], "name": t["name"], "points": points,
                         "max_points": _num(t["max_points"]), "percent": pct,
                         "status": (f"needs your decision ({t['unsure']}): see the problems file"
                                    if t["unsure"] else "")})
        elif fmt == "canvas":
            rows.append({"Student": t["name"], "ID": s.get("canvas_id"), "SIS User ID": t["student"],
                         "SIS Login ID": s.get("sis_login_id"), "Section": s.get("section"), column: points})
        else:
            row = {"ID number": t["student"], "Full name": t["name"], column: points}
            row.update({c: s.get(k) for c, k in (("Email address", "email"), ("Username", "username"))
                        if c in extras})
            rows.append(row)
    header = list(TOTALS_FORMATS[fmt])
    if fmt == "moodle":
        header += extras
    if fmt != "plain":
        if column in header:
            raise ValueError(f"the assignment title {column!r} is one of the gradebook's own columns")
        header.append(column)
    out = Path(out)
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, header)
        w.writeheader()
        w.writerows(rows)
    tmp.replace(out)
    return rows


def mistake_counts(grades: str | Path) -> list[dict]:
    """Per exercise and recognised mistake: how many students made it, out of how many graded.

    Rows ``{exercise, mistake, students, of, hint}``, the most frequent first within each exercise (in the
    registry's order); ``hint`` is the hint of the first student who got it (generic hints vary by entry).
    """
    rows = _read(grades)
    graded: Counter = Counter()
    made: dict[tuple, set] = defaultdict(set)
    hint: dict[tuple, str] = {}
    order: list[str] = []
    for r in rows:
        if r["exercise"] and r["exercise"] not in order:
            order.append(r["exercise"])
        if r["verdict"] in GRADED:
            graded[r["exercise"]] += 1
        key = (r["exercise"], r.get("mistake") or "")
        if r["verdict"] == "wrong" and key[1]:
            made[key].add(r["student"])
            hint.setdefault(key, r["hint"])
    out = []
    for e in order:
        for (ex, m), who in sorted(made.items(), key=lambda kv: (-len(kv[1]), kv[0][1])):
            if ex == e:
                out.append({"exercise": e, "mistake": m, "students": len(who), "of": graded[e],
                            "hint": hint[ex, m]})
    return out


def write_mistakes(grades: str | Path, out: str | Path) -> list[dict]:
    """:func:`mistake_counts` as a CSV file; returns its rows."""
    rows = mistake_counts(grades)
    with Path(out).open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, ["exercise", "mistake", "students", "of", "hint"])
        w.writeheader()
        w.writerows(rows)
    return rows


def write_problems(problems: list[Problem], out: str | Path) -> None:
    """The problems of a run as a CSV file (:data:`.roster.PROBLEM_FIELDS`), header even when empty."""
    with Path(out).open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, PROBLEM_FIELDS)
        w.writeheader()
        w.writerows(p.row() for p in problems)
