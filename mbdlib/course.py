"""The course's bookkeeping: which pages a chapter has, how long they take, which exercises they hold.

The book's overview pages, *How to use this book* and the tests read their counts and times from here, so
that a page never types a number that the table of contents or the exercise registry decides::

    >>> from mbdlib import course
    >>> course.chapter_number("chapters/ch03_2_dof_and_rank")
    3

Times are rough guides, computed the same way everywhere: reading at :data:`WORDS_PER_MINUTE` words of
prose a minute (study pace), :data:`MINUTES_PER_EQUATION` per displayed equation (work it through),
:data:`MINUTES_PER_CODE_CELL` per code cell the page shows (read it, run it, look at the output),
:data:`MINUTES_PER_PRACTICE` per practice exercise inside the pages, and :data:`MINUTES_PER_POINT` per point
of the chapter's exercise notebook.

This module reads the repository's ``book/`` folder (it is part of the course, not of the dynamics
library: nothing in :mod:`mbdlib` imports it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import nbformat

BOOK = Path(__file__).resolve().parent.parent / "book"
"""The book's source folder (``book/`` beside the package in the course repository)."""

WORDS_PER_MINUTE = 50
MINUTES_PER_EQUATION = 2
MINUTES_PER_CODE_CELL = 2
MINUTES_PER_PRACTICE = 10
MINUTES_PER_POINT = 10

MAX_PAGE_WORDS = 3000
"""The most prose a page may have (one idea per page: 1,500 to 3,000 words)."""

_FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}


def _book() -> Path:
    if not (BOOK / "_toc.yml").is_file():
        raise FileNotFoundError(f"mbdlib.course reads the course's book/ folder, which is not at {BOOK} "
                                "(use mbdlib from a clone of the course repository)")
    return BOOK


@lru_cache(maxsize=1)
def _toc_entries() -> tuple[tuple[str, int], ...]:
    """(file, depth) of every entry of book/_toc.yml in order: depth 0 chapters, 1 their sections."""
    entries = []
    for line in (_book() / "_toc.yml").read_text(encoding="utf-8").splitlines():
        code = line.split("#", 1)[0].rstrip()
        m = re.match(r"^(\s*)- file:\s*(\S+)", code)
        if m:
            entries.append((m.group(2), len(m.group(1))))
    if not entries:
        raise ValueError("book/_toc.yml lists no `- file:` entries")
    depths = sorted({d for _, d in entries})
    return tuple((f, depths.index(d)) for f, d in entries)


def chapter_number(page: str | Path) -> int | None:
    """The chapter a page belongs to (``chapters/ch03_2_dof`` -> 3), None for other pages."""
    m = re.search(r"(?:^|/)ch(\d\d)_", str(page).replace("\\", "/"))
    return int(m.group(1)) if m else None


def chapter_pages(chapter: int) -> list[str]:
    """The chapter's pages in reading order, as _toc.yml names them: its overview, then its sections."""
    pages = [f for f, _ in _toc_entries() if f.startswith("chapters/") and chapter_number(f) == chapter]
    if not pages:
        raise KeyError(f"book/_toc.yml has no page of chapter {chapter}")
    return pages


def chapters() -> list[int]:
    """The numbers of the chapters in _toc.yml."""
    return sorted({chapter_number(f) for f, _ in _toc_entries() if chapter_number(f) is not None})


def page_path(page: str) -> Path:
    """The source file of a _toc.yml entry (``.ipynb`` or ``.md``)."""
    for suffix in (".ipynb", ".md"):
        path = _book() / (page + suffix)
        if path.is_file():
            return path
    raise FileNotFoundError(f"_toc.yml names {page!r}, but book/{page}.ipynb (or .md) does not exist")


def prose_words(nb) -> int:
    """Words of the Markdown cells, maths not counted (what a reader reads as prose)."""
    words = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            text = re.sub(r"\$\$.*?\$\$", " ", cell.source, flags=re.S)
            text = re.sub(r"\$[^$]*\$", " ", text)
            text = re.sub(r"```.*?```", " ", text, flags=re.S)
            text = re.sub(r"^\s*#+\s", " ", text, flags=re.M)
            words += len(text.split())
    return words


def shown_code_cells(nb) -> int:
    """Code cells whose source the page shows (not folded or removed)."""
    return sum(1 for c in nb.cells if c.cell_type == "code" and not _FOLDED & set(c.metadata.get("tags", [])))


def displayed_equations(nb) -> int:
    """Displayed equations ($$ ... $$ blocks) of the Markdown cells."""
    return sum(len(re.findall(r"\$\$.*?\$\$", c.source, flags=re.S)) for c in nb.cells
               if c.cell_type == "markdown")


def page_title(nb) -> str:
    """The page's title: the first ``# `` heading of its first Markdown cell."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            m = re.search(r"^#\s+(.+)$", cell.source, re.M)
            if m:
                return m.group(1).strip()
    return ""


@dataclass(frozen=True)
class Page:
    """One page of a chapter: its _toc.yml name, title, size and the practice exercises it holds."""

    name: str
    title: str
    words: int
    equations: int
    code_cells: int
    practice: tuple[str, ...]

    @property
    def minutes(self) -> int:
        """Reading and running time, rounded to 5 minutes (at least 5)."""
        raw = (self.words / WORDS_PER_MINUTE + self.equations * MINUTES_PER_EQUATION
               + self.code_cells * MINUTES_PER_CODE_CELL + len(self.practice) * MINUTES_PER_PRACTICE)
        return max(5, int(5 * round(raw / 5)))


_PRACTICE_CHECK = re.compile(r"""\bcheck\(\s*["'](\d+\.P\d+[a-z]?)["']""")


def page(name: str) -> Page:
    """The :class:`Page` of a _toc.yml entry."""
    path = page_path(name)
    if path.suffix != ".ipynb":
        text = path.read_text(encoding="utf-8")
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text)])
    else:
        nb = nbformat.read(path, as_version=4)
    practice = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            for ex in _PRACTICE_CHECK.findall(cell.source):
                if ex not in practice:
                    practice.append(ex)
    return Page(name, page_title(nb), prose_words(nb), displayed_equations(nb), shown_code_cells(nb),
                tuple(practice))


def exercise_minutes(chapter: int) -> int:
    """Time for the chapter's exercise notebook: :data:`MINUTES_PER_POINT` per point."""
    from .exercises import exercises

    return int(round(sum(e.points for e in exercises(chapter)) * MINUTES_PER_POINT))


def reading_minutes(chapter: int) -> int:
    """Time to read and run the chapter's pages, practice included."""
    return sum(page(p).minutes for p in chapter_pages(chapter))


def hours(minutes: float) -> str:
    """``95`` -> ``"1 h 35 min"``, ``120`` -> ``"2 h"``, ``40`` -> ``"40 min"``."""
    minutes = int(5 * round(minutes / 5))
    h, m = divmod(minutes, 60)
    if not h:
        return f"{m} min"
    return f"{h} h" if not m else f"{h} h {m} min"


def contents(chapter: int) -> str:
    """A Markdown table of the chapter's pages with their times and practice, for its overview page."""
    names = chapter_pages(chapter)
    rows = ["| Page | Reading and running | Practice |", "| --- | --- | --- |"]
    for k, name in enumerate(names[1:], start=1):
        pg = page(name)
        link = f"[{chapter}.{k} {pg.title}]({Path(name).name}.ipynb)"
        practice = ", ".join(pg.practice) if pg.practice else "—"
        rows.append(f"| {link} | {hours(pg.minutes)} | {practice} |")
    return "\n".join(rows)


def problems(chapter: int) -> list[str]:
    """The problems of a chapter's exercise notebook (the parts 3.11a, 3.11b of one problem count once)."""
    from .exercises import exercises

    ids = {e.id.rstrip("abcdefgh") for e in exercises(chapter)}
    return sorted(ids, key=lambda i: int(i.split(".")[1]))


def study_table() -> str:
    """The study order of *How to use this book*: every chapter's time, practice and exercises (Markdown)."""
    from .exercises import exercises
    from .exercises.core import practice_exercises

    rows = ["| Step | Chapter | Reading and running | Practice in the pages | Exercise notebook |",
            "| --- | --- | --- | --- | --- |"]
    front = [n for n in ("intro/modelling_chain", "conventions") if any(f == n for f, _ in _toc_entries())]
    if front:
        links = ", ".join(f"[{page(n).title}]({n}{page_path(n).suffix})" for n in front)
        rows.append(f"| 0 | {links} | {hours(sum(page(n).minutes for n in front))} | — | — |")
    for n in chapters():
        overview = chapter_pages(n)[0]
        exs = exercises(n)
        points = sum(e.points for e in exs)
        functions = sum(e.is_function for e in exs)
        link = f"[{page(overview).title}]({overview}.ipynb)"
        pages = len(chapter_pages(n)) - 1
        reading = hours(reading_minutes(n)) + (f" ({pages} pages)" if pages else "")
        practice = len(practice_exercises(n))
        written = (f"{functions} of them functions to write" if functions != 1
                   else "one of them a function to write")
        work = (f"{len(problems(n))} problems ({len(exs)} checks, {written}), "
                f"{points:g} points, about {hours(exercise_minutes(n))}")
        rows.append(f"| {n} | {link} | {reading} | {practice or '—'} | {work} |")
    return "\n".join(rows)
