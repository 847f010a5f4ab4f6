"""Build the book's web font: the glyphs of Noto Sans CJK SC that the book's text uses, and no others.

Usage (regenerate after adding Chinese text to any page, then commit the .woff)::

    apt-get install -y fonts-noto-cjk          # or: apt-get download fonts-noto-cjk && dpkg-deb -x ...
    .venv/bin/python tools/subset_font.py      # writes book/_assets/fonts/mbd-cjk.woff
    .venv/bin/python tools/subset_font.py --source PATH/NotoSansCJK-Regular.ttc   # an unpacked .deb
    .venv/bin/python tools/subset_font.py --list   # the characters and where they occur; writes nothing

Why: a reader's machine, like the CI's headless Chromium, may have no CJK font, and the glossary's Chinese
terms then show as boxes. ``book/_assets/course.css`` declares this font (family :data:`FAMILY`) as the last
fallback of the theme's body, heading and code font stacks, restricted by ``unicode-range`` to the CJK
blocks, so Latin text keeps the theme's fonts and a page without Chinese never downloads it.

What goes into the font (:func:`needed_chars`): every CJK character of the book's sources (ideographs, CJK
punctuation, full-width forms: :data:`CJK_RANGES`), plus any other character of the sources that the
reference font, DejaVu Sans (what Debian's fontconfig gives for ``sans-serif``), does not cover. Today
that second set is empty: DejaVu Sans has every Greek letter, arrow, sub- and superscript and combining
accent (U+0307 of q̇, U+0308 of q̈) that the book uses. The sources (:func:`collect_chars`) are every
``.md`` page, every notebook (markdown and code cells, and their stored outputs: what the built page
shows), ``references.bib`` (the bibliography page) and the book's ``_config.yml``/``_toc.yml``; the
glossary is ``book/glossary.md`` itself, not generated from data.

The output is deterministic (same sources, same Noto and DejaVu files, same fontTools: the same bytes):
the characters are sorted, the font's timestamp is the source font's, and WOFF 1.0 uses zlib (WOFF2
would need brotli, which the course does not install). The family is renamed ``MBD CJK`` (the SIL Open
Font License lets a modified version keep the original name only without reserved names; a new name
needs no argument); the copyright and licence records of the source font are kept, and the licence
text is ``book/_assets/fonts/LICENSE-OFL.txt``. ``tests/test_fonts.py`` fails, naming the missing
characters, when the sources use a character the shipped font lacks.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"
OUTPUT = BOOK / "_assets" / "fonts" / "mbd-cjk.woff"
CSS = BOOK / "_assets" / "course.css"
FAMILY = "MBD CJK"
SOURCE_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
SOURCE_FACE = "Noto Sans CJK SC"   # the face of the collection with the simplified-Chinese glyph forms
REFERENCE_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
# Blocks whose characters always go into the web font (inclusive code-point ranges). The same ranges are
# the @font-face's unicode-range in course.css (checked by tests/test_fonts.py).
CJK_RANGES = (
    (0x1100, 0x11FF),    # Hangul Jamo
    (0x2E80, 0x2FFF),    # CJK and Kangxi radicals, ideographic description characters
    (0x3000, 0x33FF),    # CJK symbols and punctuation, kana, bopomofo, Hangul compatibility jamo, ...
    (0x3400, 0x4DBF),    # CJK unified ideographs extension A
    (0x4E00, 0x9FFF),    # CJK unified ideographs
    (0xAC00, 0xD7AF),    # Hangul syllables
    (0xF900, 0xFAFF),    # CJK compatibility ideographs
    (0xFE10, 0xFE1F),    # vertical forms
    (0xFE30, 0xFE4F),    # CJK compatibility forms
    (0xFF00, 0xFFEF),    # half-width and full-width forms: （）：，
    (0x20000, 0x2FA1F),  # CJK unified ideographs extensions B-F, compatibility supplement
)
SKIP_PARTS = {"_build", "_assets", ".ipynb_checkpoints"}
# What a notebook output shows on the built page (images are pixels, not text).
TEXT_MIMES = ("text/plain", "text/html", "text/markdown", "text/latex")


def is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in CJK_RANGES)


def source_files(book: Path = BOOK) -> list[Path]:
    """The book's text sources, sorted: pages (.md, .ipynb), the bibliography and the book's config."""
    files = [p for p in book.rglob("*") if p.suffix in (".md", ".ipynb") and p.is_file()]
    files += [book / name for name in ("references.bib", "_config.yml", "_toc.yml")]
    return sorted(p for p in files if p.is_file() and not SKIP_PARTS & set(p.relative_to(book).parts))


def _notebook_texts(path: Path):
    """(place, text) of every cell source and every stored text output of a notebook."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for number, cell in enumerate(nb.get("cells", [])):
        place = f"cell {number}"
        yield place, "".join(cell.get("source", ""))
        for out in cell.get("outputs", []):
            if "text" in out:
                yield f"{place} output", "".join(out["text"])
            for mime, value in out.get("data", {}).items():
                if mime in TEXT_MIMES:
                    yield f"{place} output", "".join(value) if isinstance(value, list) else str(value)


def collect_chars(book: Path = BOOK) -> dict[str, list[str]]:
    """Every non-ASCII character of the book's sources -> the places it occurs ("book/x.md", "... cell 3")."""
    where: dict[str, set[str]] = defaultdict(set)
    for path in source_files(book):
        rel = path.relative_to(book.parent).as_posix()
        texts = _notebook_texts(path) if path.suffix == ".ipynb" else [("", path.read_text(encoding="utf-8"))]
        for place, text in texts:
            for ch in set(text):
                if ord(ch) > 0x7F and not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf"):
                    where[ch].add(f"{rel} {place}".strip())
    return {ch: sorted(places) for ch, places in sorted(where.items())}


def font_cmap(path: Path, face: str | None = None) -> set[int]:
    """Code points of a font file's cmap (of the face named ``face`` in a .ttc collection)."""
    from fontTools.ttLib import TTCollection, TTFont

    if path.suffix.lower() in (".ttc", ".otc"):
        for font in TTCollection(path).fonts:
            if font["name"].getDebugName(1) == face:
                return set(font.getBestCmap())
        raise SystemExit(f"subset_font: no face {face!r} in {path}")
    return set(TTFont(path).getBestCmap())


def needed_chars(chars, reference: set[int] | None) -> list[str]:
    """The characters the web font must have: the CJK ones, and those the reference font lacks."""
    return sorted(ch for ch in chars if is_cjk(ch) or (reference is not None and ord(ch) not in reference))


def css_unicode_range(css: str) -> list[tuple[int, int]]:
    """The unicode-range of the @font-face of :data:`FAMILY` in a stylesheet, as inclusive ranges."""
    for block in re.findall(r"@font-face\s*\{([^}]*)\}", css):
        if re.search(rf"font-family:\s*[\"']{re.escape(FAMILY)}[\"']", block):
            found = re.search(r"unicode-range:\s*([^;]+);", block)
            if not found:
                return [(0, 0x10FFFF)]
            ranges = []
            for item in found.group(1).split(","):
                lo, _, hi = item.strip().removeprefix("U+").removeprefix("u+").partition("-")
                ranges.append((int(lo, 16), int(hi or lo, 16)))
            return ranges
    return []


def build(source: Path, chars: list[str], output: Path) -> int:
    """Subset ``source`` (face :data:`SOURCE_FACE`) to ``chars``, rename it, write WOFF; return its size."""
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    number = next((i for i, f in enumerate(TTCollection(source).fonts)
                   if f["name"].getDebugName(1) == SOURCE_FACE), None)
    if number is None:
        raise SystemExit(f"subset_font: no face {SOURCE_FACE!r} in {source}")
    options = subset.Options()
    options.flavor = "woff"
    # Not "locl": its Japanese, Korean and traditional-Chinese forms would add 177 glyphs (28 KiB) that a
    # page in lang="en" never selects; the SC face's cmap already gives the simplified-Chinese forms.
    options.layout_features = ["ccmp", "kern", "palt", "halt", "vert", "vpal"]
    options.hinting = False               # screen rendering hints of a CFF font: not worth the bytes
    options.desubroutinize = True         # smaller once zlib has compressed it
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 7, 13, 14]   # copyright, names, trademark, licence
    options.name_languages = [0x409]      # English records only
    options.notdef_outline = True
    options.recalc_timestamp = False      # deterministic: keep the source font's head.modified
    options.font_number = number
    font = subset.load_font(str(source), options, dontLoadGlyphNames=True)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars])
    subsetter.subset(font)
    version = font["name"].getDebugName(5) or ""
    for record in font["name"].names:   # the new family name (the subset is a modified version)
        if record.nameID in (1, 4, 16):
            record.string = FAMILY
        elif record.nameID == 3:
            record.string = f"{FAMILY};subset of {SOURCE_FACE} {version.split(';')[0]}"
        elif record.nameID == 6:
            record.string = FAMILY.replace(" ", "-")
    if "CFF " in font:   # the CFF's own font name (shown by some tools), renamed too
        cff = font["CFF "].cff
        cff.fontNames = [FAMILY.replace(" ", "-")]
        top = cff.topDictIndex[0]
        for key in ("FullName", "FamilyName"):
            if hasattr(top, key):
                setattr(top, key, FAMILY)
    output.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(output), options)
    return output.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=SOURCE_FONT,
                        help=f"the Noto Sans CJK collection (default {SOURCE_FONT}, Debian's fonts-noto-cjk)")
    parser.add_argument("--reference", type=Path, default=REFERENCE_FONT,
                        help="the default font whose missing characters also go into the web font")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--list", action="store_true", help="list the characters and where they occur")
    args = parser.parse_args(argv)

    chars = collect_chars()
    if not args.reference.is_file():
        print(f"subset_font: the reference font {args.reference} is missing (apt-get install "
              "fonts-dejavu-core)", file=sys.stderr)
        return 2
    reference = font_cmap(args.reference)
    needed = needed_chars(chars, reference)
    if args.list:
        for ch in needed:
            why = "CJK" if is_cjk(ch) else f"not in {args.reference.name}"
            print(f"U+{ord(ch):04X} {ch} ({why}): {', '.join(chars[ch][:3])}"
                  + (f" and {len(chars[ch]) - 3} more" if len(chars[ch]) > 3 else ""))
        print(f"{len(needed)} characters", file=sys.stderr)
        return 0
    if not args.source.is_file():
        print(f"subset_font: {args.source} not found: apt-get install fonts-noto-cjk (or unpack the .deb "
              "and pass --source)", file=sys.stderr)
        return 2
    available = font_cmap(args.source, SOURCE_FACE)
    missing = [ch for ch in needed if ord(ch) not in available]
    if missing:
        print("subset_font: neither DejaVu Sans nor Noto Sans CJK SC has "
              + ", ".join(f"U+{ord(c):04X} {c} ({chars[c][0]})" for c in missing)
              + ": no font the book ships covers them; write them differently", file=sys.stderr)
        return 1
    ranges = css_unicode_range(CSS.read_text(encoding="utf-8"))
    outside = [ch for ch in needed if not any(lo <= ord(ch) <= hi for lo, hi in ranges)]
    if outside:
        print(f"subset_font: {CSS.relative_to(REPO)} has no @font-face for {FAMILY!r}, or its unicode-range "
              "leaves out " + " ".join(f"U+{ord(c):04X}" for c in outside), file=sys.stderr)
        return 1
    size = build(args.source, needed, args.output)
    print(f"subset_font: {len(needed)} characters -> {args.output.relative_to(REPO)} ({size / 1024:.1f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
