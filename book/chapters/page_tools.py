"""Small helpers shared by the chapter pages (book/chapters/ch*_*.ipynb): printing that gives the same digits
on every machine (a difference that should be round-off is printed as the bound it stays below) and
numbers for the prose.  Chapter-specific helpers live beside it (ch07_tools.py: poses for the 3-D view).
"""

from __future__ import annotations

import textwrap

import numpy as np

G0 = 9.81  # m/s^2
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def rnd(x, decimals=4):
    """Round for printing: the same digits on every machine (-0.0 prints 0.0)."""
    return np.round(np.asarray(x, dtype=float), decimals) + 0.0


def under(x, limit):
    """For the text: the bound a small result is asserted to stay below, as "10⁻⁹"."""
    assert x < limit, (x, limit)
    return "10" + str(round(np.log10(limit))).translate(SUPERSCRIPT)


def small(x, below):
    """A difference that should be (near) round-off: print the bound only."""
    return f"< {below:.0e}" if x < below else f"{x:.2e}  (LARGER than {below:.0e}!)"


def say(*parts):
    """Print, wrapped to the width of the page's column."""
    print(textwrap.fill(" ".join(str(p) for p in parts), 78, subsequent_indent="    "))


def fmt(x, digits=3):
    """A number for the prose, to ``digits`` significant digits (``-0`` printed as ``0``)."""
    return f"{float(f'{x:.{digits}g}') + 0.0:g}"
