"""``S = J M⁻¹ Jᵀ`` in band storage, for a Jacobian with a fixed sparsity pattern and a diagonal ``M``.

The range-space solve of the KKT system (``S λ = J M⁻¹ Q − γ``) and the mass-weighted projections all
factor ``S``.  For a chain of bodies in Cartesian coordinates ``J`` has a handful of non-zeros per row
and ``M`` is diagonal, so ``S`` is sparse: two constraint rows are coupled only when they share a
coordinate.  Numbering the rows in reverse Cuthill–McKee order (Cuthill & McKee 1969) gathers the
non-zeros of ``S`` into a narrow band around the diagonal, and LAPACK's band Cholesky (``dpbtrf``)
factors it in ``O(m k²)`` operations for half-bandwidth ``k``, instead of ``O(m³)`` dense.

Everything that depends only on the pattern (which entry of ``J`` meets which, where each product lands
in the band) is worked out once in :class:`BandedSchur`; each evaluation is then a product, a
``bincount`` and one LAPACK call.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse
from scipy.linalg.lapack import dpbtrf, dpbtrs
from scipy.sparse.csgraph import reverse_cuthill_mckee


class BandedSchur:
    """Band Cholesky of ``S = J diag(w) Jᵀ`` for the fixed pattern ``(rows, cols)`` of ``J`` (shape m × n).

    Parameters
    ----------
    rows, cols : array_like of int
        Row and column of each structural non-zero of ``J`` (each pair at most once).
    m, n : int
        Shape of ``J``.

    >>> J = np.array([[1.0, 2.0, 0.0], [0.0, 3.0, 4.0]])
    >>> r, c = np.nonzero(J)
    >>> bs = BandedSchur(r, c, 2, 3)
    >>> ok, _ = bs.factor(J[r, c], np.ones(3))
    >>> x = bs.solve(np.array([1.0, 1.0]))             # S = [[5, 6], [6, 25]]: x = [19, −1] / 89
    >>> bool(ok), bool(np.allclose(x * 89, [19.0, -1.0]))
    (True, True)
    """

    def __init__(self, rows, cols, m: int, n: int):
        rows, cols = np.asarray(rows, dtype=int), np.asarray(cols, dtype=int)
        self.rows, self.cols, self.m, self.n = rows, cols, int(m), int(n)
        # every pair of entries (a, b) in the same column contributes J_a J_b w_col to S[row_a, row_b]
        order = np.argsort(cols, kind="stable")
        starts = np.searchsorted(cols[order], np.arange(n + 1))
        a, b = [], []
        for c in range(n):
            k = order[starts[c]: starts[c + 1]]
            a.append(np.repeat(k, k.size))
            b.append(np.tile(k, k.size))
        a = np.concatenate(a) if a else np.zeros(0, dtype=int)
        b = np.concatenate(b) if b else np.zeros(0, dtype=int)
        pattern = scipy.sparse.csr_matrix((np.ones(a.size), (rows[a], rows[b])), shape=(m, m))
        perm = reverse_cuthill_mckee(pattern, symmetric_mode=True) if m else np.zeros(0, dtype=int)
        self.perm = np.asarray(perm, dtype=int)                  # new position → row
        self.pos = np.empty(m, dtype=int)
        self.pos[self.perm] = np.arange(m)                       # row → new position
        pa, pb = self.pos[rows[a]], self.pos[rows[b]]
        lower = pa >= pb                                         # band storage holds the lower triangle
        self.a, self.b, self.col = a[lower], b[lower], cols[a[lower]]
        self.kd = int(np.max(pa - pb)) if a.size else 0          # half-bandwidth
        # lower band storage: S[i, j] (i ≥ j) sits at ab[i − j, j]
        self.target = (pa[lower] - pb[lower]) * m + pb[lower]
        self._chol = None

    def factor(self, values, w, shift: float = 0.0, diag=None):
        """Factor ``S + shift·max(diag S)·I (+ diag(diag))`` for the non-zeros ``values`` of ``J`` and the
        diagonal ``w`` (``M⁻¹``; or, for the pattern of ``Jᵀ``, ``α'`` with ``diag`` the diagonal of ``M``:
        the augmented Lagrangian's ``M + α' JᵀJ``).

        Returns ``(ok, ratio)``: ``ok`` is False when the Cholesky factorization breaks down, and
        ``ratio`` is the smallest pivot over the largest diagonal entry of ``S`` (≥ λ_min / λ_max).
        """
        prod = values[self.a] * values[self.b] * w[self.col]
        ab = np.bincount(self.target, prod, minlength=(self.kd + 1) * self.m).reshape(self.kd + 1, self.m)
        scale = float(ab[0].max()) if self.m else 1.0
        if shift:
            ab[0] += shift * scale
        if diag is not None:
            ab[0] += diag[self.perm]
        c, info = dpbtrf(ab, lower=1)
        if info != 0:
            self._chol = None
            return False, 0.0
        self._chol = c
        return True, float((c[0] ** 2).min() / max(scale, 1e-300)) if self.m else 1.0

    def solve(self, rhs, chol=None):
        """``S⁻¹ rhs`` with the last factorization, or with ``chol`` (an earlier one), rows in the original
        order."""
        x, info = dpbtrs(self._chol if chol is None else chol, rhs[self.perm][:, None], lower=1)
        out = np.empty(self.m)
        out[self.perm] = x[:, 0]
        return out

    def matvec(self, values, x):
        """``J x``."""
        return np.bincount(self.rows, values * x[self.cols], minlength=self.m)

    def rmatvec(self, values, y):
        """``Jᵀ y``."""
        return np.bincount(self.cols, values * y[self.rows], minlength=self.n)
