"""Each chapter page teaches the way the course's pages do (GUIDE §4, issues 12 and 23): a chapter is an
overview page and short pages of one idea each; the mechanics drawn, in numbered and captioned figures cited
by number; a motion that plays; a counterpart for every widget; practice inside the pages with a check, a
hint and a folded solution; plumbing and cross-checks folded; short visible code cells whose lines fit.

These tests read the notebooks (sources and stored outputs); the built-book test (tools/check_book.py)
checks what Chromium shows: figures numbered, no raw TeX, no table or code line wider than the column.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from mbdlib import course
from mbdlib.exercises import get
from mbdlib.exercises.core import practice_exercises

REPO = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((REPO / "book" / "chapters").glob("ch*.ipynb"))
UNSPLIT_MAX_WORDS = 5000   # a chapter still on one page (it is being divided into pages)
FOLDED = {"hide-input", "hide-cell", "remove-input", "remove-cell"}
# a cell that only verifies (agreement with another method, finite differences, an oracle): folded
CHECK_CALL = re.compile(r"np\.testing\.assert|^\s*assert |assert_allclose", re.M)
MAX_LINE = 88          # characters of a visible code line (the column shows about 90)
MAX_VISIBLE_LINES = 15  # non-blank lines of a visible code cell
# what a reader never needs to see: output-comparison markers, glue calls, JSON reading, generated Markdown
PLUMBING = re.compile(r"NBVAL_|\bglue\(|json\.load|\bMarkdown\(")
IMPORT_LINE = re.compile(r"^\s*(from\s+\S+\s+)?import\s")
PRACTICE_CHECK = re.compile(r"""\bcheck\(\s*["'](\d+\.P\d+[a-z]?)["']""")
TYPED_TIME_OR_COUNT = re.compile(r"\b\d+(?:[–-]\d+)?\s*(?:h|hours?|min|minutes)\b"
                                 r"|\b\d+\s+(?:exercises|problems)\b")
NUMREF = re.compile(r"\{numref\}`(?:[^`<]*<)?(fig-[\w\-]+)>?`")


def _groups() -> dict[int, list[Path]]:
    """Chapter number -> its notebooks (the overview chNN_<name> first, then its pages chNN_<k>_<name>)."""
    groups: dict[int, list[Path]] = {}
    for path in CHAPTERS:
        groups.setdefault(int(path.name[2:4]), []).append(path)
    for paths in groups.values():  # the overview (no page number) first, then the pages by number
        paths.sort(key=lambda p: (m := re.match(r"ch\d\d_(\d+)_", p.name)) and int(m.group(1)) or 0)
    return groups


def _is_split(chapter: int) -> bool:
    return len(_groups()[chapter]) > 1


def _read(path: Path):
    return nbformat.read(path, as_version=4)


def _tags(cell) -> set:
    return set(cell.metadata.get("tags", []))


def _visible_code(nb):
    return [(k, c) for k, c in enumerate(nb.cells) if c.cell_type == "code" and not FOLDED & _tags(c)]


SPLIT_PAGES = [p for p in CHAPTERS if _is_split(int(p.name[2:4]))]
# the engineering appendix and the front pages follow the same rules for figures and code
OTHER_PAGES = sorted(p for folder in ("appendix", "intro") for p in (REPO / "book" / folder).glob("*.ipynb"))
SPLIT_CHAPTERS = sorted(n for n in _groups() if _is_split(n))


def _ids(paths):
    return [p.stem for p in paths] or ["none"]


# ---------------------------------------------------------------- every chapter page
@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_page_length(path):
    words = course.prose_words(_read(path))
    limit = course.MAX_PAGE_WORDS if _is_split(int(path.name[2:4])) else UNSPLIT_MAX_WORDS
    assert words <= limit, (f"{path.name} has {words} words of prose (limit {limit}): one idea per page; "
                            "divide it (a new page chNN_<k>_<name>.ipynb, listed in _toc.yml)")


@pytest.mark.parametrize("chapter", sorted(_groups()), ids=str)
def test_chapter_draws_the_mechanics_and_animates_a_motion(chapter):
    """At least two schematic figures (mbdlib.schematics, with a stored picture) and one animation."""
    schematic_cells = animation_cells = 0
    for path in _groups()[chapter]:
        for cell in _read(path).cells:
            if cell.cell_type != "code":
                continue
            outputs = cell.get("outputs", [])
            pictures = any("image/png" in o.get("data", {}) for o in outputs)
            players = any("mbd-player" in o.get("data", {}).get("text/html", "") for o in outputs)
            if re.search(r"\b(schematics|S)\.(draw_|diagram)", cell.source) and pictures:
                schematic_cells += 1
            if re.search(r"\b(animate|play)\(", cell.source) and players:
                animation_cells += 1
    assert schematic_cells >= 2, f"chapter {chapter}: {schematic_cells} schematic figure cells (need 2)"
    assert animation_cells >= 1, f"chapter {chapter}: no animation (mbdlib.frames.animate) with stored frames"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_widget_has_a_static_counterpart(path):
    nb = _read(path)
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "interactive_figure(" in cell.source:
            bundles = [o.get("data", {}) for o in cell.get("outputs", [])]
            live = [b for b in bundles if "application/vnd.jupyter.widget-view+json" in b]
            assert live, f"cell {k}: interactive_figure shows no widget (stored outputs missing?)"
            assert all('data-mbd-widget="1"' in b.get("text/html", "") for b in live), \
                f"cell {k}: a live widget without its static counterpart (interactive_figure(static=...))"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_verification_cells_are_folded(path):
    """A cell that asserts an agreement is a cross-check: folded in the HTML (hide-input), still executed."""
    nb = _read(path)
    unfolded = [k for k, c in enumerate(nb.cells) if c.cell_type == "code" and CHECK_CALL.search(c.source)
                and not FOLDED & _tags(c)]
    assert not unfolded, f"cross-check cells not folded (tag them hide-input): {unfolded}"


# ---------------------------------------------------------------- the pages of a divided chapter
@pytest.mark.parametrize("path", SPLIT_PAGES, ids=_ids(SPLIT_PAGES))
def test_page_opens_with_its_title_and_objectives(path):
    nb = _read(path)
    first = next(c.source for c in nb.cells if c.cell_type == "markdown")
    assert first.lstrip().startswith("# "), "the page starts with its title"
    assert not re.match(r"#\s*Chapter\s+\d", first.lstrip()), \
        "no 'Chapter N:' in the title: the book numbers the chapter and its pages itself"
    assert re.search(r"you will be able to|you can\b", first, re.I), \
        "the opening says what the reader will be able to do after the page"


@pytest.mark.parametrize("chapter", SPLIT_CHAPTERS or [0], ids=str)
def test_overview_shows_the_pages_and_times_from_the_registry(chapter):
    if not chapter:
        pytest.skip("no chapter is divided into pages yet")
    overview = _read(_groups()[chapter][0])
    first = next(c.source for c in overview.cells if c.cell_type == "markdown")
    assert re.search(r"you will be able to", first, re.I), "the overview lists the chapter's objectives"
    calls = [c for c in overview.cells if c.cell_type == "code" and f"contents({chapter})" in c.source]
    assert calls and calls[0].get("outputs"), \
        f"the overview shows its pages with their times: a cell displaying course.contents({chapter})"
    # the stored outputs are today's: a page's prose changed its reading time, so re-execute the overview
    # (nbval would fail on it, later and with less to say)
    shown = [o["data"]["text/markdown"] for o in calls[0].outputs if "text/markdown" in o.get("data", {})]
    stale = f"re-execute {_groups()[chapter][0].name}: its stored reading times are out of date"
    assert shown == [course.contents(chapter)], stale
    glued = {o["data"]["application/papermill.record/text/plain"]
             for c in overview.cells if c.cell_type == "code" for o in c.get("outputs", [])
             if "application/papermill.record/text/plain" in o.get("data", {})}
    for minutes in (course.reading_minutes(chapter), course.exercise_minutes(chapter)):
        assert repr(course.hours(minutes)) in glued, stale
    for k, cell in enumerate(overview.cells):
        if cell.cell_type == "markdown":
            text = re.sub(r"\{glue:text\}`[^`]*`", "", cell.source)
            typed = TYPED_TIME_OR_COUNT.findall(text)
            assert not typed, f"cell {k}: a time or count typed ({typed}); glue the computed one"
    pages = [p.stem for p in _groups()[chapter]]
    assert pages == [Path(p).name for p in course.chapter_pages(chapter)], \
        "the chapter's notebooks and its _toc.yml entries differ (order or names)"


def test_how_to_use_stores_todays_study_table():
    # make book recomputes the table; the stored one is what the tests' build and a reader of the notebook see
    nb = _read(REPO / "book" / "how_to_use.ipynb")
    cells = [c for c in nb.cells if c.cell_type == "code" and "study_table" in c.source]
    shown = [o["data"]["text/markdown"] for c in cells for o in c.get("outputs", [])
             if "text/markdown" in o.get("data", {})]
    assert shown == [course.study_table()], "re-execute book/how_to_use.ipynb: its stored times are stale"


@pytest.mark.parametrize("path", SPLIT_PAGES + OTHER_PAGES, ids=_ids(SPLIT_PAGES + OTHER_PAGES))
def test_figures_are_numbered_and_captioned(path):
    """Every picture, animation and widget is a figure: the cell's mystnb.figure metadata gives it a caption
    and a name (so the book numbers it 3.2 and the prose cites it as {numref}`fig-...`), and the cell shows
    that one output only."""
    nb = _read(path)
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "remove-output" in _tags(cell) or "remove-cell" in _tags(cell):
            continue
        shown = [o for o in cell.get("outputs", [])
                 if o.get("output_type") in ("display_data", "execute_result")]
        visual = [o for o in shown if "image/png" in o.get("data", {}) or "mbd-player" in
                  o.get("data", {}).get("text/html", "") or "application/vnd.jupyter.widget-view+json"
                  in o.get("data", {})]
        if not visual:
            continue
        figure = cell.metadata.get("mystnb", {}).get("figure", {})
        assert figure.get("caption", "").strip() and figure.get("name", "").startswith("fig-"), \
            f"cell {k}: a picture without a figure caption and name (cell metadata mystnb.figure)"
        assert len(shown) == 1, f"cell {k}: a figure cell shows {len(shown)} outputs; keep one per figure"
        assert len(figure["caption"]) >= 30, \
            f"cell {k}: the caption says what the figure shows, in a sentence"


@pytest.mark.parametrize("chapter", SPLIT_CHAPTERS or [0], ids=str)
def test_every_figure_is_cited_by_number(chapter):
    if not chapter:
        pytest.skip("no chapter is divided into pages yet")
    names, cited = [], set()
    for path in _groups()[chapter]:
        for cell in _read(path).cells:
            if cell.cell_type == "code":
                name = cell.metadata.get("mystnb", {}).get("figure", {}).get("name")
                if name:
                    names.append(name)
            else:
                cited |= set(NUMREF.findall(cell.source))
                names += re.findall(r":name:\s*(fig-[\w\-]+)", cell.source)
    twice = sorted({n for n in names if names.count(n) > 1})
    assert not twice, f"figure names used twice: {twice}"
    uncited = [n for n in names if n not in cited]
    assert not uncited, f"figures the prose never cites ({{numref}}`name`): {uncited}"


@pytest.mark.parametrize("path", SPLIT_PAGES, ids=_ids(SPLIT_PAGES))
def test_visible_code_is_short_and_fits(path):
    nb = _read(path)
    for k, cell in _visible_code(nb):
        lines = cell.source.splitlines()
        long = [ln for ln in lines if len(ln) > MAX_LINE]
        assert not long, \
            f"cell {k}: a line of {len(long[0])} characters (at most {MAX_LINE}): {long[0][:60]}..."
        n = sum(1 for ln in lines if ln.strip())
        assert n <= MAX_VISIBLE_LINES, (f"cell {k}: {n} visible lines (at most {MAX_VISIBLE_LINES}): split "
                                        "it, or move the helper into the library or a folded cell")
        assert not PLUMBING.search(cell.source), \
            f"cell {k}: plumbing in a visible cell ({PLUMBING.search(cell.source).group(0)}): fold it"
        code = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
        assert not code or not all(IMPORT_LINE.match(ln) or ln.startswith((" ", ")")) for ln in code), \
            f"cell {k}: a cell of imports only: fold it (hide-input)"


def _inline_maths_broken(markdown: str) -> list[str]:
    """Lines that start a list item while an inline formula ($...$) of the paragraph is still open."""
    bad = []
    text = re.sub(r"\$\$.*?\$\$", "", re.sub(r"```.*?```", "", markdown, flags=re.S), flags=re.S)
    for para in re.split(r"\n\s*\n", text):
        open_ = False
        for line in para.splitlines():
            if open_ and re.match(r"\s*([-+*]|\d+[.)])\s", line):
                bad.append(line.strip()[:60])
            open_ ^= line.replace(r"\$", "").count("$") % 2 == 1
    return bad


@pytest.mark.parametrize("path", SPLIT_PAGES + OTHER_PAGES, ids=_ids(SPLIT_PAGES + OTHER_PAGES))
def test_inline_maths_never_starts_a_line_with_a_list_marker(path):
    nb = _read(path)
    for k, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            bad = _inline_maths_broken(cell.source)
            assert not bad, (f"cell {k}: inside an inline formula a line starts with a list marker, so "
                             f"Markdown breaks the formula into a list: {bad}; move the '+'/'-' up a line")


def test_the_broken_maths_detector():
    assert _inline_maths_broken("a $x\n+ y$ b") == ["+ y$ b"]
    assert _inline_maths_broken("a $x +\ny$ b\n\n- item $z$") == []


@pytest.mark.parametrize("chapter", SPLIT_CHAPTERS or [0], ids=str)
def test_practice_inside_the_pages(chapter):
    """At least three practice exercises (registry ids N.Pk), each after its worked example: a cell the
    reader fills in and checks, then the solution folded (hide-input, and collapsed in JupyterLab) whose
    stored check says correct; each exercise knows a typical mistake and its hint."""
    if not chapter:
        pytest.skip("no chapter is divided into pages yet")
    registered = [e.id for e in practice_exercises(chapter)]
    assert len(registered) >= 3, f"chapter {chapter}: {len(registered)} practice exercises (need 3)"
    found: dict[str, dict] = {}
    for path in _groups()[chapter]:
        for k, cell in enumerate(_read(path).cells):
            if cell.cell_type != "code":
                continue
            for ex in PRACTICE_CHECK.findall(cell.source):
                text = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "")
                               for o in cell.get("outputs", []))
                entry = found.setdefault(ex, {"reader": False, "solution": False})
                if FOLDED & _tags(cell):
                    assert cell.metadata.get("jupyter", {}).get("source_hidden"), \
                        f"{path.name} cell {k}: the solution of {ex} is not collapsed in JupyterLab " \
                        "(metadata jupyter.source_hidden)"
                    assert f"✓ {ex} correct" in text, \
                        f"{path.name} cell {k}: the solution of {ex} is not correct"
                    entry["solution"] = True
                else:
                    assert "not answered yet" in text, \
                        f"{path.name} cell {k}: the reader's cell for {ex} should be stored unanswered"
                    entry["reader"] = entry["reader"] or not entry["solution"]
    assert sorted(found) == sorted(registered), \
        f"practice in the pages {sorted(found)} and in the registry {sorted(registered)} differ"
    for ex, entry in found.items():
        assert entry["reader"] and entry["solution"], f"{ex}: a reader's cell then a folded solution"
        assert get(ex).mistakes, f"{ex}: no typical mistake, so no hint beyond 'wrong'"
