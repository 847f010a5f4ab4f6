"""Complementarity problems of contact mechanics: Lemke's method, projected Gauss–Seidel, the contact problem.

A **linear complementarity problem** LCP(A, b) asks for ``z`` with

    z ≥ 0,    w = A z + b ≥ 0,    zᵀ w = 0                                  (each pair: one of them is zero)

— the algebra of a unilateral contact: a force that only pushes (z ≥ 0), a gap or a relative velocity
that only opens (w ≥ 0), and never both at once.  :func:`lemke` solves it by complementary pivoting
(Lemke 1965; Cottle, Pang & Stone 1992, §4.4), :func:`pgs` by projected Gauss–Seidel sweeps (Moreau's
"relaxation"; Jean 1999).  :func:`solve_contact` poses the **contact problem** with Coulomb friction that
impacts, sustained contacts and time steps all lead to, for either solver:

    w = A λ + b;   0 ≤ λ_n − o ⊥ w_n ≥ 0;   ‖λ_t‖ ≤ μ λ_n, and λ_t = −μ λ_n w_t / ‖w_t‖ when w_t ≠ 0

(``o`` an optional offset of the normal force: Poisson's expansion phase).  Lemke takes the friction
cone as a polygon of ``2 × dim`` generators (exact in the plane), projected Gauss–Seidel as the disk.

>>> z, w = lemke(np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-1.0, 1.0]))
>>> z.round(12).tolist(), w.round(12).tolist()
([0.5, 0.0], [0.0, 1.5])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import MbdError

__all__ = ["lemke", "pgs", "solve_contact", "ContactSolution", "LCPError"]


class LCPError(MbdError):
    """A complementarity problem has no solution the method can reach (ray termination, no convergence)."""


# ----------------------------------------------------------------- Lemke
def lemke(A, b, max_pivots: int | None = None, tol: float = 1e-12):
    """Solve LCP(A, b) by Lemke's complementary pivoting with the covering vector ``d = 1``.

    The tableau ``[I, −A, −d | b]`` holds ``w − A z − d z₀ = b``; ``z₀`` enters, and each variable that
    leaves the basis lets its complement enter, until ``z₀`` leaves (a solution) or no row limits the
    entering column (ray termination: no solution reachable, raised as :class:`LCPError`).  Ties of the
    ratio test are broken lexicographically, so degenerate problems (resting contacts) do not cycle.
    A P-matrix (e.g. symmetric positive definite) always has one solution; so has a positive semidefinite
    ``A`` with a feasible problem.

    Parameters
    ----------
    A : array_like, shape (n, n)
    b : array_like, shape (n,)
    max_pivots : int, optional
        Default ``50 n + 50``.

    Returns
    -------
    z, w : ndarray, shape (n,)
    """
    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float).ravel()
    n = b.size
    if A.shape != (n, n):
        raise MbdError(f"lemke: A must be ({n}, {n}) for b of size {n}, got {A.shape}")
    if n == 0 or np.all(b >= 0):
        return np.zeros(n), b.copy()
    T = np.hstack([np.eye(n), -A, -np.ones((n, 1)), b[:, None]])
    z0 = 2 * n
    basis = list(range(n))                                   # the w's are basic at the start
    entering = z0
    row = _ratio_row(T, entering, candidates=range(n), first=True, tol=tol)
    for _ in range(max_pivots or 50 * n + 50):
        _pivot(T, row, entering)
        leaving, basis[row] = basis[row], entering
        if leaving == z0:
            break
        entering = leaving + n if leaving < n else leaving - n   # the complement of what left
        row = _ratio_row(T, entering, candidates=range(n), first=False, tol=tol, basis=basis, z0=z0)
        if row is None:
            raise LCPError("lemke: ray termination (the problem has no solution that Lemke's path reaches: "
                           "A is not copositive-plus here)")
    else:
        raise LCPError(f"lemke: no solution after {max_pivots or 50 * n + 50} pivots")
    x = np.zeros(2 * n + 1)
    x[basis] = T[:, -1]
    z = np.maximum(x[n:2 * n], 0.0)
    return z, A @ z + b


def _ratio_row(T, col, candidates, first, tol, basis=None, z0=None):
    """The pivot row of the entering column: the minimum ratio (lexicographic on ties)."""
    c = T[:, col]
    if first:                                                # z₀ enters: the most negative b
        rhs = T[:, -1]
        return int(np.argmin(rhs))
    rows = [i for i in candidates if c[i] > tol]
    if not rows:
        return None
    ratios = np.array([T[i, -1] / c[i] for i in rows])
    best = ratios.min()
    tied = [i for i, r in zip(rows, ratios, strict=True) if r <= best + tol * max(1.0, abs(best))]
    if len(tied) == 1:
        return tied[0]
    for i in tied:                                           # leaving with z₀ ends the path: take it
        if basis[i] == z0:
            return i
    n = T.shape[0]                                           # lexicographic: rows of B⁻¹ / c
    keys = {i: tuple(T[i, :n] / c[i]) for i in tied}
    return min(tied, key=lambda i: keys[i])


def _pivot(T, r, c):
    T[r] /= T[r, c]
    for i in range(T.shape[0]):
        if i != r and T[i, c] != 0.0:
            T[i] -= T[i, c] * T[r]


# ----------------------------------------------------------------- the contact problem
@dataclass(frozen=True)
class ContactSolution:
    """The solution of the contact problem for ``k`` contacts.

    Attributes
    ----------
    normal : ndarray, shape (k,)
        λ_n (a force, or an impulse at the velocity level).
    tangent : ndarray, shape (k, dim)
        λ_t (zeros for contacts without friction unknowns).
    w : ndarray, shape (k + k_f dim,)
        ``A λ + b`` in the layout of the unknowns (normals, then the tangents of the friction contacts).
    iterations : int
        Pivots (Lemke) or sweeps (PGS).
    """

    normal: np.ndarray
    tangent: np.ndarray
    w: np.ndarray
    iterations: int


def _generators(dim, sides):
    """The friction polygon's edges: ``sides`` unit directions of the dim-dimensional tangent plane."""
    if dim == 1:
        return np.array([[1.0, -1.0]])
    angles = 2 * np.pi * np.arange(sides) / sides
    return np.array([np.cos(angles), np.sin(angles)])


def solve_contact(A, b, mu, friction=None, dim: int = 1, offset=None, method: str = "lemke",
                  tol: float = 1e-12, max_iter: int = 10000, sides: int = 8) -> ContactSolution:
    """The contact problem with Coulomb friction (see the module notes) for ``k`` contacts.

    Parameters
    ----------
    A : array_like, shape (r, r)
        The Delassus matrix (``H N Fᵀ``: how each unknown changes each w); the unknowns are the k normal
        forces, then ``dim`` tangent forces of each contact with ``friction`` True.
    b : array_like, shape (r,)
        ``w`` when every force is zero.
    mu : array_like, shape (k,)
        Friction coefficients.
    friction : array_like of bool, shape (k,), optional
        Which contacts have tangent unknowns (default: those with μ > 0).
    dim : int
        Tangent directions per contact (1 planar, 2 spatial).
    offset : array_like, shape (k,), optional
        ``o`` of ``λ_n − o ≥ 0`` (default zero).
    method : {"lemke", "pgs"}
        Lemke on the polygonal cone (``sides`` edges in 3-D; exact in the plane), or projected
        Gauss–Seidel on the round cone.
    """
    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float).ravel()
    mu = np.atleast_1d(np.asarray(mu, dtype=float))
    k = mu.size
    fr = (mu > 0) if friction is None else np.asarray(friction, dtype=bool)
    kf = int(fr.sum())
    r = k + kf * dim
    if A.shape != (r, r) or b.size != r:
        raise MbdError(f"solve_contact: {k} contacts ({kf} with friction, dim {dim}) need A ({r}, {r}) and b "
                       f"({r},), got {A.shape} and {b.shape}")
    off = np.zeros(k) if offset is None else np.asarray(offset, dtype=float)
    if method == "pgs":
        x, it = _pgs_contact(A, b, mu, fr, dim, off, tol, max_iter)
    elif method == "lemke":
        x, it = _lemke_contact(A, b, mu, fr, dim, off, sides)
    else:
        raise MbdError(f"solve_contact: method must be 'lemke' or 'pgs', got {method!r}")
    tangent = np.zeros((k, dim))
    tangent[fr] = x[k:].reshape(kf, dim)
    return ContactSolution(x[:k], tangent, A @ x + b, it)


def _lemke_contact(A, b, mu, fr, dim, off, sides):
    """The friction LCP (Stewart & Trinkle 1996; Anitescu & Potra 1997): λ_t = D β, β ≥ 0, and the slack σ
    (the sliding speed) with ``Dᵀ w_t + σ ≥ 0 ⊥ β``, ``μ λ_n − Σ β ≥ 0 ⊥ σ``."""
    k, kf = mu.size, int(fr.sum())
    D1 = _generators(dim, sides)                             # (dim, g)
    g = D1.shape[1]
    D = np.kron(np.eye(kf), D1)                              # (kf dim, kf g)
    E = np.kron(np.eye(kf), np.ones((g, 1)))                 # (kf g, kf)
    Ann, Ant, Atn, Att = A[:k, :k], A[:k, k:], A[k:, :k], A[k:, k:]
    if not kf:
        z, _ = lemke(Ann, b + Ann @ off)
        return z + off, 0
    muf = mu[fr]
    sel = np.eye(k)[fr]                                      # (kf, k): the friction contacts' rows
    L = np.block([
        [Ann, Ant @ D, np.zeros((k, kf))],
        [D.T @ Atn, D.T @ Att @ D, E],
        [np.diag(muf) @ sel, -E.T, np.zeros((kf, kf))]])
    q = np.concatenate([b[:k] + Ann @ off, D.T @ (b[k:] + Atn @ off), muf * off[fr]])
    z, _ = lemke(L, q)
    lam_n = z[:k] + off
    lam_t = D @ z[k:k + kf * g]
    return np.concatenate([lam_n, lam_t]), 0


def _pgs_contact(A, b, mu, fr, dim, off, tol, max_iter):
    """Projected Gauss–Seidel, one contact at a time: the normal force projected on ``λ_n ≥ o``, then the
    tangent force on the disk ``‖λ_t‖ ≤ μ λ_n`` (each from its own diagonal block)."""
    k = mu.size
    x = np.zeros(b.size)
    x[:k] = off
    tcols, c = [], k
    for i in range(k):
        tcols.append(list(range(c, c + dim)) if fr[i] else [])
        c += dim if fr[i] else 0
    diag = np.diag(A).copy()
    if np.any(diag[:k] <= 0):
        raise LCPError("pgs: a contact has no effective mass along its normal (a zero or negative diagonal "
                       "of the Delassus matrix); use method='lemke'")
    for sweep in range(1, max_iter + 1):
        change = 0.0
        for i in range(k):
            old = x[i]
            x[i] = max(off[i], x[i] - (A[i] @ x + b[i]) / diag[i])
            change = max(change, abs(x[i] - old))
            if tcols[i]:
                t = tcols[i]
                blk = A[np.ix_(t, t)]
                old_t = x[t].copy()
                wt = A[t] @ x + b[t]
                trial = old_t - np.linalg.solve(blk, wt)
                norm, radius = np.linalg.norm(trial), mu[i] * x[i]
                x[t] = trial if norm <= radius else trial * (radius / norm)
                change = max(change, float(np.max(np.abs(x[t] - old_t))))
        if change <= tol * max(1.0, float(np.max(np.abs(x)))):
            return x, sweep
    raise LCPError(f"pgs: no convergence in {max_iter} sweeps (last change {change:.3g}); use "
                   "method='lemke', or more iterations")


def pgs(A, b, tol: float = 1e-12, max_iter: int = 10000):
    """Solve LCP(A, b) by projected Gauss–Seidel: ``z_i ← max(0, z_i − w_i / A_ii)``, sweep after sweep
    (converges for symmetric positive definite A).  Returns ``z, w``.

    >>> z, w = pgs(np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-1.0, 1.0]))
    >>> z.round(9).tolist()
    [0.5, 0.0]
    """
    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float).ravel()
    sol = solve_contact(A, b, np.zeros(b.size), friction=np.zeros(b.size, dtype=bool), method="pgs", tol=tol,
                        max_iter=max_iter)
    return sol.normal, sol.w
