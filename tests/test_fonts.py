"""The book's CJK web font (book/_assets/fonts/mbd-cjk.woff) has every glyph the book's text needs.

A reader's machine, like the CI's headless Chromium, may have no CJK font: the web font is what draws the
glossary's Chinese terms. It is a subset made by ``tools/subset_font.py``; when a page gains a character
that the subset lacks, these tests fail and say to regenerate it. (That the page then really draws every
character, with this font loaded, is checked in the browser by ``tools/check_book.py``.)
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont
from tooling import tool

REPO = Path(__file__).resolve().parent.parent
REGENERATE = "run python tools/subset_font.py (needs Debian's fonts-noto-cjk) and commit the .woff"




subset_font = tool("subset_font")


@pytest.fixture(scope="module")
def shipped() -> TTFont:
    assert subset_font.OUTPUT.is_file(), f"{subset_font.OUTPUT.relative_to(REPO)} is missing: {REGENERATE}"
    return TTFont(subset_font.OUTPUT)


@pytest.fixture(scope="module")
def book_chars() -> dict[str, list[str]]:
    return subset_font.collect_chars()


def _describe(chars, where) -> str:
    return "\n".join(f"  U+{ord(c):04X} {c}  in {', '.join(where[c][:3])}" for c in chars)


def test_every_cjk_character_of_the_book_is_in_the_shipped_font(shipped, book_chars):
    cmap = set(shipped.getBestCmap())
    cjk = [c for c in book_chars if subset_font.is_cjk(c)]
    assert len(cjk) > 100  # the glossary's Chinese terms were found
    missing = [c for c in cjk if ord(c) not in cmap]
    assert not missing, (f"{len(missing)} CJK character(s) of the book are not in the web font: "
                         f"{REGENERATE}\n" + _describe(missing, book_chars))


def test_every_character_the_default_font_lacks_is_in_the_shipped_font(shipped, book_chars):
    """Beyond CJK, the font covers what DejaVu Sans (Debian's sans-serif) lacks; today nothing."""
    if not subset_font.REFERENCE_FONT.is_file():
        pytest.skip(f"no {subset_font.REFERENCE_FONT} (fonts-dejavu-core) to compare with")
    reference = subset_font.font_cmap(subset_font.REFERENCE_FONT)
    cmap = set(shipped.getBestCmap())
    lacking = [c for c in book_chars if not subset_font.is_cjk(c) and ord(c) not in reference]
    missing = [c for c in lacking if ord(c) not in cmap]
    assert not missing, (f"{len(missing)} character(s) of the book are in neither DejaVu Sans nor the web "
                         f"font: {REGENERATE}\n" + _describe(missing, book_chars))


def test_the_sources_scanned_include_glossary_notebooks_and_bibliography(book_chars):
    places = {p.split(" ")[0] for ps in book_chars.values() for p in ps}
    assert {"book/glossary.md", "book/references.bib"} <= places
    assert any(p.startswith("book/chapters/") and p.endswith(".ipynb") for p in places)
    assert "book/glossary.md" in " ".join(book_chars["刚"])          # 刚体, rigid body
    assert "book/references.bib" in " ".join(book_chars["钢"])       # the 1988 paper's journal
    assert not any(p.startswith(("book/_build", "book/_assets")) for p in places)


def test_needed_chars_takes_cjk_and_what_the_reference_font_lacks():
    chars = {"刚": [], "（": [], "é": [], "\u0307": [], "\u2717": []}
    reference = {ord("é"), 0x0307}
    assert subset_font.needed_chars(chars, reference) == sorted(["刚", "（", "\u2717"])
    assert subset_font.needed_chars(chars, None) == sorted(["刚", "（"])


def test_the_font_is_a_small_renamed_woff_with_its_licence(shipped):
    data = subset_font.OUTPUT.read_bytes()
    assert data[:4] == b"wOFF", "WOFF 1.0 (zlib) expected: WOFF2 needs brotli, not installed by the course"
    assert len(data) < 120_000, f"the subset is {len(data)} bytes: it should hold only the book's glyphs"
    assert shipped["name"].getDebugName(1) == subset_font.FAMILY
    assert "Open Font License" in (shipped["name"].getDebugName(13) or "")
    licence = subset_font.OUTPUT.parent / "LICENSE-OFL.txt"
    assert licence.is_file() and "SIL OPEN FONT LICENSE Version 1.1" in licence.read_text(encoding="utf-8")


def test_course_css_declares_the_font_as_the_last_fallback_for_the_cjk_blocks():
    css = subset_font.CSS.read_text(encoding="utf-8")
    assert subset_font.css_unicode_range(css) == list(subset_font.CJK_RANGES)
    assert 'src: url("fonts/mbd-cjk.woff") format("woff")' in css   # relative to _static/course.css
    for var in ("base", "heading", "monospace"):
        system = "monospace" if var == "monospace" else "base"
        assert (f'--pst-font-family-{var}: var(--pst-font-family-{system}-system), "{subset_font.FAMILY}";'
                in css), f"--pst-font-family-{var} should end with the web font"


@pytest.mark.skipif(not Path(os.environ.get("MBD_NOTO_CJK", subset_font.SOURCE_FONT)).is_file(),
                    reason="Noto Sans CJK (fonts-noto-cjk, or MBD_NOTO_CJK=path) is not installed")
def test_regenerating_gives_the_committed_bytes(tmp_path, book_chars):
    """The script is deterministic and the committed font is up to date (when the source font is here)."""
    source = Path(os.environ.get("MBD_NOTO_CJK", subset_font.SOURCE_FONT))
    needed = subset_font.needed_chars(book_chars, subset_font.font_cmap(subset_font.REFERENCE_FONT))
    out = tmp_path / "again.woff"
    subset_font.build(source, needed, out)
    assert out.read_bytes() == subset_font.OUTPUT.read_bytes(), f"the committed font is stale: {REGENERATE}"
