"""Small helpers shared by the pages of chapter 7 (book/chapters/ch07_*.ipynb).

Printing that gives the same digits on every machine (a number that should be round-off is printed as
the bound it stays below), and the poses of a SpatialModel's bodies in the form mbdlib.view3d takes.
The models themselves are built on the pages, where the reader sees them.
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


def body_poses(q, k, offset=(0.0, 0.0, 0.0), decimals=9):
    """(positions (N, 3), Euler parameters (N, 4)) of body k of a SpatialModel from coordinates q (N, n).

    The Euler parameters are normalised (a drawing needs unit ones) and both are rounded, so that the
    3-D player stores the same integers on every machine.
    """
    q = np.atleast_2d(np.asarray(q, dtype=float))
    r = q[:, 7 * k: 7 * k + 3] + np.asarray(offset, dtype=float)
    p = q[:, 7 * k + 3: 7 * k + 7]
    p = p / np.linalg.norm(p, axis=1, keepdims=True)
    return np.round(r, decimals), np.round(p, decimals)
