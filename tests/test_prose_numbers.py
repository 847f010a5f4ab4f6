"""Numbers in prose that a cell computes are inserted by the cell, never typed.

A number typed next to the output that computed it will one day disagree with it (a rerun, another machine,
a changed parameter). The chapters therefore insert computed numbers with myst-nb's ``{glue:text}`` role or
write the sentence from the cell (``display(Markdown(...))``). This test reads every chapter's Markdown
cells, takes each number in running text (outside maths, code and roles) that carries information — a
decimal with two or more significant digits, or an integer with three or more (trailing zeros not counted: 313
and 1303 count, 200 and 90 do not); not a year, not a section or exercise number — and fails if the same
number, to the digits typed, appears in an output of the same notebook: a computed number copied by hand.
Numbers inside maths are derivations (``mL^2/12``, ``M_{11}``) and are left to review.

Inputs typed in prose (a link length of the model, a tolerance the text chooses) also appear in outputs when a
cell prints them; a notebook lists such numbers in its metadata, each with the reason::

    "metadata": {"mbdlib": {"typed_inputs": {"9.81": "standard gravity, an input of the model"}}}
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p for folder in ("chapters", "appendix", "intro")
                   for p in (REPO / "book").glob(f"{folder}/*.ipynb"))

NUMBER = re.compile(r"(?<![\w.\-])[-−]?(\d+(?:\.\d+)?(?:[eE][-+−]?\d+)?)(?![\w])")
# what is not prose: code spans, roles ({glue:text}`x`), labels, links, html tags, citations
STRIP = [
    re.compile(r"```.*?```", re.S), re.compile(r"`[^`]*`"), re.compile(r"\{[a-z:\-]+\}"),
    re.compile(r"\]\([^)]*\)"), re.compile(r"\(\w[\w\-:]*\)="), re.compile(r"<[^>]+>"),
    re.compile(r"\$\$.*?\$\$", re.S), re.compile(r"\$[^$]*\$"),
]
# references to parts of the book or of a source: "exercise 6.10", "§3.2", "chapter 5", "eq. (12)", "Fig. 3"
REFERENCE_BEFORE = re.compile(r"(exercises?|§|chapters?|ch|sections?|eq\.?|equation|fig\.?|figure|table|"
                              r"step|steps|question|Q|part|page|issue|version|v)\s*$", re.I)


def significant_digits(text: str) -> int:
    mantissa = re.split(r"[eE]", text)[0].replace(".", "").lstrip("0")
    return len(mantissa)


def prose_numbers(markdown: str) -> list[tuple[str, str]]:
    """(number as typed, context) for the informative numbers of a Markdown cell."""
    text = markdown
    for pattern in STRIP:
        text = pattern.sub(" ", text)
    found = []
    for m in NUMBER.finditer(text):
        token = m.group(1)
        before = text[max(0, m.start() - 12):m.start()]
        if REFERENCE_BEFORE.search(before):
            continue
        if re.fullmatch(r"(19|20)\d\d", token):          # a year
            continue
        is_integer = re.fullmatch(r"\d+", token) is not None
        if significant_digits(token.rstrip("0") if is_integer else token) < (3 if is_integer else 2):
            continue
        value = float(token.replace("−", "-"))
        if value != 0 and math.log10(abs(value)).is_integer():   # 10, 100, 1e-6: round numbers chosen
            continue
        found.append((token, text[max(0, m.start() - 40):m.end() + 20].replace("\n", " ")))
    return found


def output_text(nb) -> str:
    parts = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                parts.append(out.get("text", ""))
            data = out.get("data", {})
            for mime in ("text/plain", "text/markdown", "text/latex"):
                if mime in data:
                    parts.append(data[mime])
            if "text/html" in data and "mbd-player" not in data["text/html"]:
                parts.append(html.unescape(re.sub(r"<[^>]+>", " ", data["text/html"])))
    return "\n".join(parts)


def matches(typed: str, outputs: str) -> bool:
    """True if ``typed`` appears in the outputs as the same number (same digits, or rounded to them)."""
    if re.search(r"(?<![\d.])" + re.escape(typed) + r"(?![\d])", outputs):
        return True
    value = float(typed)
    decimals = len(typed.split(".")[1]) if "." in typed and "e" not in typed.lower() else None
    if decimals is None:
        return False
    for m in re.finditer(r"(?<![\w.])-?\d+\.\d+(?![\d])", outputs):
        shown = m.group(0)
        if len(shown.split(".")[1]) > decimals and round(float(shown), decimals) == value:
            return True
    return False


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_computed_numbers_are_not_typed_in_prose(path):
    nb = nbformat.read(path, as_version=4)
    outputs = output_text(nb)
    allowed = nb.metadata.get("mbdlib", {}).get("typed_inputs", {})
    assert all(isinstance(why, str) and why.strip() for why in allowed.values()), \
        "every typed input in the notebook metadata needs its reason"
    typed = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for token, context in prose_numbers(cell.source):
            if token in allowed:
                continue
            if matches(token, outputs):
                typed.append(f"cell {k}: {token!r} in ...{context}...")
    assert not typed, ("numbers typed in prose that a cell of this notebook computes (insert them "
                       "with {glue:text} or generate the sentence; or list an input in the notebook's "
                       "metadata mbdlib.typed_inputs with its reason):\n  " + "\n  ".join(typed))


def test_the_detector_finds_a_typed_number_and_ignores_glue_and_references():
    outputs = "steps: 315\nratio 0.5312\n"
    md = ("The run took 315 steps (exercise 6.10), |s|h ≈ 0.53, glued: {glue:text}`steps`, in 2026; "
          "a gain of 500, $J = mL^2/12$.")
    found = [t for t, _ in prose_numbers(md) if matches(t, outputs)]
    assert found == ["315", "0.53"]
    assert prose_numbers("Chapter 3.2 and § 6.10 and eq. 12, $x_{11} = 0.53$") == []
