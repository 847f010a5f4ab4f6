"""Helpers of chapter 7's pages (book/chapters/ch07_*.ipynb): the poses of a SpatialModel's bodies in the form
mbdlib.view3d takes.  The printing helpers all pages share are in page_tools.py; the models themselves are
built on the pages, where the reader sees them.
"""

from __future__ import annotations

import numpy as np


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
