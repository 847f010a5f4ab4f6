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


def sci(x, digits=2):
    """A number for the prose in powers of ten, to ``digits`` significant digits: ``sci(3.04e-5)`` is
    "3.0 × 10⁻⁵"; a mantissa of exactly 1 is left out, ``sci(1e-9, 1)`` is "10⁻⁹"; ``digits=None`` keeps
    the digits ``x`` has, ``sci(2.5e-3, None)`` is "2.5 × 10⁻³"."""
    mantissa, exponent = (f"{x:e}" if digits is None else f"{x:.{digits - 1}e}").split("e")
    if digits is None:
        mantissa = mantissa.rstrip("0").rstrip(".")
    power = "10" + str(int(exponent)).translate(SUPERSCRIPT)
    return power if mantissa == "1" else f"{mantissa} × {power}"


def under(x, limit):
    """For the text: the bound a small result is asserted to stay below, as given: "10⁻⁹", "2 × 10⁻³"."""
    assert x < limit, (x, limit)
    return sci(limit, None)


def small(x, below):
    """A difference that should be (near) round-off: print the bound only."""
    return f"< {below:.0e}" if x < below else f"{x:.2e}  (LARGER than {below:.0e}!)"


def say(*parts):
    """Print, wrapped to the width of the page's column."""
    print(textwrap.fill(" ".join(str(p) for p in parts), 78, subsequent_indent="    "))


def fmt(x, digits=3):
    """A number for the prose, to ``digits`` significant digits (``-0`` printed as ``0``)."""
    return f"{float(f'{x:.{digits}g}') + 0.0:g}"
