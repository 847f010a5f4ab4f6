"""The library's linear algebra: one rank test, Newton on constraints, Cholesky, least change.

Every decision "is this set of constraint rows independent?" in the library goes through
:func:`rank_analysis` with its one tolerance :data:`RANK_RTOL` (the DOF reports, the checklist, the
assembly of states, :func:`mbdlib.dae.redundant_rows`); :func:`null_space` uses the same test.  The KKT
solve of the constrained equations has a second, named limit, :data:`KKT_TOL`: it refuses to invert
``S = J M⁻¹ Jᵀ`` when the mass-scaled Jacobian is worse conditioned than that, because the
accelerations would carry large errors long before the rank is lost.  Its error message reports the
rank at that limit, so the two never contradict each other in one message.

Also here, because every model family uses them: :func:`newton_solve` (Newton–Raphson on
``Φ(q) = 0`` with least-squares steps), :func:`nearby_rank` (is a rank drop a singular position or a
redundancy?), :func:`weighted_least_change` (the mass-weighted least change that every projection of
positions and velocities takes) and LAPACK's Cholesky called directly (:func:`cho`, :func:`cho_solve`).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.linalg.lapack import dpotrf as _potrf
from scipy.linalg.lapack import dpotrs as _potrs

from .errors import SingularityError

__all__ = ["RANK_RTOL", "KKT_TOL", "DAMPING", "rank_analysis", "numerical_rank", "null_space",
           "newton_solve", "nearby_rank", "weighted_least_change", "cho", "cho_solve", "schur_cholesky"]

#: The one rank tolerance: singular values ≤ RANK_RTOL · s_max (rows scaled to unit length) count as zero.
RANK_RTOL = 1e-8
#: The KKT system is too ill-conditioned to solve when σ_min/σ_max of the mass-scaled J M^(-1/2) is below
#: this.
KKT_TOL = 1e-5
#: Damped least squares near a singular position: S + DAMPING · max(diag S) · I (Tikhonov).
DAMPING = KKT_TOL**2


# ----------------------------------------------------------------- rank
def _scaled(J, scale_rows):
    J = np.atleast_2d(np.asarray(J, dtype=float))
    if scale_rows and J.size:
        norms = np.linalg.norm(J, axis=1)
        J = J / np.where(norms > 0, norms, 1.0)[:, None]
    return J


def numerical_rank(J, rtol: float = RANK_RTOL, scale_rows: bool = True) -> int:
    """Rank of ``J``: singular values above ``rtol · s_max`` (rows scaled to unit length first).

    >>> numerical_rank([[1.0, 0.0], [1e6, 0.0], [0.0, 1e-3]])   # row scaling: units do not matter
    2
    """
    J = _scaled(J, scale_rows)
    if J.size == 0:
        return 0
    s = np.linalg.svd(J, compute_uv=False)
    return int(np.sum(s > rtol * max(s[0], np.finfo(float).tiny))) if s[0] > 0 else 0


def null_space(J, rtol: float = RANK_RTOL) -> np.ndarray:
    """An orthonormal basis of the null space of ``J`` (shape ``(n, n − rank)``), by the same rank test.

    >>> null_space([[1.0, 1.0, 0.0]]).shape
    (3, 2)
    """
    J = np.atleast_2d(np.asarray(J, dtype=float))
    n = J.shape[1]
    if J.shape[0] == 0:
        return np.eye(n)
    rank = numerical_rank(J, rtol)
    Js = _scaled(J, True)
    return np.linalg.svd(Js)[2][rank:].T


def rank_analysis(Phi_q, rtol: float = RANK_RTOL, scale_rows: bool = True):
    """Rank of ``Φ_q`` (SVD, relative tolerance) and the dependent rows (pivoted QR of ``Φ_qᵀ``).

    The one rank analysis of the library: the models' ``dof_report``, the checks, the assembly of a
    chosen state and :func:`mbdlib.dae.redundant_rows` (which names the rows) all call it.

    Parameters
    ----------
    Phi_q : array_like, shape (m, n)
    rtol : float
        Singular values ≤ ``rtol · s_max`` count as zero.
    scale_rows : bool
        Scale each row to unit length first, so that equations in m, m² and rad weigh alike (the rank
        in exact arithmetic is unchanged).  :mod:`mbdlib.dae` passes a mass-scaled Jacobian whose
        singular values it has already compared, and keeps them (False).

    Returns
    -------
    rank : int
    dependent : list of int
        Rows that are linear combinations of the others (the rows left over when the pivoting has
        picked ``rank`` independent ones; on ties it keeps the earlier row).
    groups : list of list of int
        ``groups[k]``: the rows taking part in the dependency of ``dependent[k]`` (least squares on
        the independent rows).

    >>> rank_analysis(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]))
    (2, [2], [[0, 1, 2]])
    """
    Phi_q = _scaled(Phi_q, scale_rows)
    m = Phi_q.shape[0]
    if m == 0 or Phi_q.size == 0:
        return 0, [], []
    rank = numerical_rank(Phi_q, rtol, scale_rows=False)
    if rank == m:
        return rank, [], []
    _, _, piv = scipy.linalg.qr(Phi_q.T, pivoting=True, mode="economic")
    indep, dependent = sorted(piv[:rank]), sorted(int(k) for k in piv[rank:])
    groups = []
    for k in dependent:
        c = np.linalg.lstsq(Phi_q[indep].T, Phi_q[k], rcond=None)[0] if indep else np.zeros(0)
        big = np.abs(c) > 1e-8 * max(np.max(np.abs(c), initial=0.0), 1e-300)
        groups.append(sorted([int(indep[i]) for i in np.flatnonzero(big)] + [k]))
    return rank, dependent, groups


# ----------------------------------------------------------------- Newton on constraint equations
def newton_solve(phi, jac, q, tol: float = 1e-10, max_iter: int = 50):
    """Solve ``Φ(q) = 0`` by Newton-Raphson with least-squares steps and step halving.

    Each step is the minimum-norm least-squares solution of ``Φ_q Δq = -Φ`` (so redundant
    and underdetermined sets work), halved until ``‖Φ‖`` decreases (Haug 1989, §4.4).
    Returns ``(q, iterations, residual, converged)`` with ``residual = max |Φ|``.

    >>> q, it, res, ok = newton_solve(lambda x: np.array([x @ x - 1.0]), lambda x: 2 * x[None, :], [2.0, 0])
    >>> q.round(12) + 0.0, ok
    (array([1., 0.]), True)
    """
    q = np.array(q, dtype=float)
    f = np.asarray(phi(q), dtype=float)
    norm = float(np.linalg.norm(f))
    for it in range(max_iter + 1):
        if f.size == 0 or np.max(np.abs(f)) <= tol:
            return q, it, float(np.max(np.abs(f), initial=0.0)), True
        if it == max_iter:
            break
        J = np.asarray(jac(q), dtype=float)
        if not np.all(np.isfinite(J)):
            raise SingularityError("Newton iteration: the constraint Jacobian is not finite")
        dq = np.linalg.lstsq(J, -f, rcond=None)[0]
        step = 1.0
        while step > 1e-6:
            q_new = q + step * dq
            f_new = np.asarray(phi(q_new), dtype=float)
            n_new = float(np.linalg.norm(f_new))
            if n_new < (1 - 1e-4 * step) * norm:
                break
            step /= 2
        else:  # no decrease along the Gauss-Newton direction: a least-squares minimum, not a root
            return q, it, float(np.max(np.abs(f))), False
        q, f, norm = q_new, f_new, n_new
    return q, max_iter, float(np.max(np.abs(f))), False


def nearby_rank(phi, jac, q, rtol: float = RANK_RTOL, probes: int = 3, step: float = 1e-3):
    """Highest rank of ``Φ_q`` at a few admissible configurations near ``q``, and its dependent rows.

    Each probe moves ``q`` by ``step · max(1, |q|∞)`` along a random direction of the null
    space of ``Φ_q`` and closes the loops again by :func:`newton_solve` (seeded, so the
    report is reproducible).  A rank that comes back nearby means ``q`` is a singular
    configuration; a rank that stays low means redundant equations.  Returns
    ``(rank, dependent)``.
    """
    q = np.asarray(q, dtype=float)
    J = np.asarray(jac(q), dtype=float)
    rank, dependent, _ = rank_analysis(J, rtol)
    null = np.linalg.svd(J)[2][rank:]
    if len(null) == 0 or not dependent:
        return rank, dependent
    rng = np.random.default_rng(0)
    scale = step * max(1.0, float(np.max(np.abs(q))))
    best = (rank, dependent)
    for _ in range(probes):
        dq = null.T @ rng.standard_normal(len(null))
        q1, _, _, ok = newton_solve(phi, jac, q + scale * dq / np.linalg.norm(dq), 1e-12, 50)
        if ok:
            r, dep, _ = rank_analysis(jac(q1), rtol)
            if r > best[0]:
                best = (r, dep)
    return best


# ----------------------------------------------------------------- Cholesky and the least change
def cho(A):
    """Cholesky factor (lower) by LAPACK ``potrf`` directly: the scipy wrappers cost more than the
    factorization itself for the small matrices of the course (tens of coordinates).

    Raises ``numpy.linalg.LinAlgError`` when ``A`` is not positive definite.
    """
    c, info = _potrf(np.asarray(A, dtype=float), lower=True, clean=False)
    if info != 0:
        raise np.linalg.LinAlgError(f"matrix not positive definite (LAPACK potrf info {info})")
    return c, True


def cho_solve(c, b):
    """``A⁻¹ b`` with the factor ``c`` of :func:`cho`."""
    x, info = _potrs(c[0], b, lower=True)
    if info != 0:
        raise np.linalg.LinAlgError(f"LAPACK potrs info {info}")
    return x


def schur_cholesky(S):
    """Lower Cholesky factor of ``S = J M⁻¹ Jᵀ``, or None when S is singular: the factorization breaks
    down or a pivot (each ≥ λ_min(S)) is below ``KKT_TOL² · max(diag S)``."""
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        return None
    return None if (np.diag(L) ** 2).min() <= KKT_TOL**2 * max(np.diag(S).max(), 1e-300) else L


def weighted_least_change(M, J, residual, damp=False):
    """Δ minimizing ½ Δᵀ M Δ subject to J Δ = −residual (minimum-norm if J is rank deficient).

    With M = L Lᵀ and z = Lᵀ Δ: z = −pinv(J L⁻ᵀ) residual, Δ = L⁻ᵀ z.  With ``damp``, where
    ``S = (J L⁻ᵀ)(J L⁻ᵀ)ᵀ`` is singular, z = −(J L⁻ᵀ)ᵀ (S + DAMPING·max(diag S)·I)⁻¹ residual instead:
    the directions that a singular position makes weak are not forced.

    >>> weighted_least_change(np.diag([1.0, 3.0]), np.array([[1.0, 1.0]]), np.array([-4.0]))
    array([3., 1.])
    """
    L = np.linalg.cholesky(M)
    JL = scipy.linalg.solve_triangular(L, J.T, lower=True).T          # J L⁻ᵀ
    S = JL @ JL.T if damp and J.shape[0] else None
    if S is not None and schur_cholesky(S) is None:
        C = np.linalg.cholesky(S + DAMPING * np.diag(S).max() * np.eye(len(S)))
        z = -JL.T @ cho_solve((C, True), residual)
    else:
        z = -np.linalg.lstsq(JL, residual, rcond=None)[0]
    return scipy.linalg.solve_triangular(L.T, z, lower=False)
