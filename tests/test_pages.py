"""Each chapter page teaches the way the course's pages do (GUIDE §4, issue 12): an overview first, the
mechanics drawn, a motion that plays, a counterpart for every widget, cross-checks folded, and no page too
long to read.

These tests read the notebooks (sources and stored outputs); the built-book test checks what Chromium shows.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((REPO / "book" / "chapters").glob("ch*.ipynb"))
MAX_WORDS = 5000
FOLDED = {"hide-input", "hide-cell", "remove-input", "hide-output"}
# a cell that only verifies (agreement with another method, finite differences, an oracle): folded
CHECK_CALL = re.compile(r"np\.testing\.assert|^\s*assert |assert_allclose", re.M)


def _chapter_groups() -> dict[str, list[Path]]:
    """Chapter number -> its notebooks (a chapter split into sub-pages has several: ch05_*.ipynb)."""
    groups: dict[str, list[Path]] = {}
    for path in CHAPTERS:
        groups.setdefault(path.name[:4], []).append(path)
    return groups


def prose_words(nb) -> int:
    words = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            text = re.sub(r"\$\$.*?\$\$", " ", cell.source, flags=re.S)
            text = re.sub(r"\$[^$]*\$", " ", text)
            words += len(text.split())
    return words


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_page_prose_is_at_most_5000_words(path):
    words = prose_words(nbformat.read(path, as_version=4))
    assert words <= MAX_WORDS, (f"{path.name} has {words} words of prose: split the chapter into a part with "
                                f"sub-pages (_toc.yml sections) of at most {MAX_WORDS} words each")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_page_opens_with_an_overview(path):
    """The first Markdown cell: the title and an overview with the idea, objectives and the time it takes."""
    nb = nbformat.read(path, as_version=4)
    first = next(c.source for c in nb.cells if c.cell_type == "markdown")
    assert first.lstrip().startswith("# "), "the page starts with its title"
    assert re.search(r"you will be able to", first, re.I), \
        "the overview lists what the reader will be able to do"
    assert re.search(r"\d+\s*(–|-|to)?\s*\d*\s*(hours?|minutes|min\b|h\b)", first), \
        "the overview says how long the page takes"


@pytest.mark.parametrize("chapter", sorted(_chapter_groups()), ids=str)
def test_chapter_draws_the_mechanics_and_animates_a_motion(chapter):
    """At least two schematic figures (mbdlib.schematics, with a stored picture) and one animation."""
    schematic_cells = animation_cells = 0
    for path in _chapter_groups()[chapter]:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            outputs = cell.get("outputs", [])
            pictures = any("image/png" in o.get("data", {}) for o in outputs)
            players = any("mbd-player" in o.get("data", {}).get("text/html", "") for o in outputs)
            if re.search(r"\b(schematics|S)\.(draw_|diagram)", cell.source) and pictures:
                schematic_cells += 1
            if "animate(" in cell.source and players:
                animation_cells += 1
    assert schematic_cells >= 2, f"chapter {chapter}: {schematic_cells} schematic figure cells (need 2)"
    assert animation_cells >= 1, f"chapter {chapter}: no animation (mbdlib.frames.animate) with stored frames"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_widget_has_a_static_counterpart(path):
    nb = nbformat.read(path, as_version=4)
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
    nb = nbformat.read(path, as_version=4)
    unfolded = [k for k, c in enumerate(nb.cells) if c.cell_type == "code" and CHECK_CALL.search(c.source)
                and not FOLDED & set(c.metadata.get("tags", []))]
    assert not unfolded, f"cross-check cells not folded (tag them hide-input): {unfolded}"
