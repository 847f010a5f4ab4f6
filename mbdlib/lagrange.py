"""Symbolic Lagrange equations of a chain: T, V -> M(q), C(q, q̇), G(q).

The source's second route to the equations of motion (document 001, §2):

    d/dt(∂T/∂q̇) − ∂T/∂q + ∂V/∂q = Q      rearranged as      M(q) q̈ + C(q, q̇) q̇ + G(q) = Q.

Here everything comes from the two energies, with no forces at all:

* ``T = ½ Σ_i ( m_i v_Ci · v_Ci + ω_i · I_i ω_i )`` (velocities from
  :func:`mbdlib.kinematics.forward_kinematics`, in any frame: dots are
  invariant), and ``V = −Σ_i m_i g · r_Ci``;
* ``M_kj = ∂²T / ∂q̇_k ∂q̇_j`` (T is a quadratic form in q̇);
* ``C_kj = Σ_i c_ijk q̇_i`` with the Christoffel symbols of the first kind
  ``c_ijk = ½ (∂M_kj/∂q_i + ∂M_ki/∂q_j − ∂M_ij/∂q_k)`` (Spong, Hutchinson &
  Vidyasagar, Robot Modeling and Control, 2006, §7.3).  With this choice
  ``Ṁ − 2C`` is skew-symmetric (:func:`check_skew`);
* ``G_k = ∂V/∂q_k``; ``Q`` are the joint forces (symbols ``tau1 ...``).

Formulas become fast numeric functions with ``sympy.lambdify(..., cse=True)``
(:meth:`LagrangeEquations.numeric`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import sympy as sp

from .chain import Chain
from .codegen import lambdify_matrix
from .dynamics import energy
from .errors import ModelError
from .newton_euler import gravity_vector

__all__ = ["lagrange_equations", "LagrangeEquations", "NumericEquations", "check_skew"]


class NumericEquations(NamedTuple):
    """Fast numeric versions of the Lagrange terms: ``M(q)``, ``C(q, qd)``, ``G(q)``."""

    M: object
    C: object
    G: object


# ----------------------------------------------------------------- the equations
@dataclass
class LagrangeEquations:
    """Result of :func:`lagrange_equations`: ``M q̈ + C q̇ + G = Q``.

    Attributes
    ----------
    M : sympy Matrix (n, n)
    C : sympy Matrix (n, n)
    G : sympy Matrix (n, 1)
    q, qd, qdd : tuple of Symbol, length n
        ``q1 ...``, ``qd1 ...``, ``qdd1 ...``.
    T, V : sympy expressions
        Kinetic and potential energy.
    Q : sympy Matrix (n, 1)
        Generalized (joint) forces, symbols ``tau1 ...``.
    """

    M: sp.Matrix
    C: sp.Matrix
    G: sp.Matrix
    q: tuple
    qd: tuple
    qdd: tuple
    T: sp.Expr
    V: sp.Expr
    Q: sp.Matrix

    @property
    def eom(self) -> sp.Matrix:
        """The residual ``M q̈ + C q̇ + G − Q`` (zero along a motion), shape (n, 1)."""
        return self.M @ sp.Matrix(self.qdd) + self.C @ sp.Matrix(self.qd) + self.G - self.Q

    def numeric(self, params=None, cse: bool = True) -> NumericEquations:
        """Fast callables ``M(q)`` -> (n, n), ``C(q, qd)`` -> (n, n), ``G(q)`` -> (n,).

        ``params`` gives values to any other symbols (symbolic lengths, g, ...).

        >>> eq = lagrange_equations(Chain.planar([1.0]), gravity=(0, -9.81, 0))
        >>> num = eq.numeric()
        >>> num.M([0.3]), num.G([0.0])
        (array([[0.33333333]]), array([4.905]))
        """
        return NumericEquations(lambdify_matrix(self.M, [self.q], params, cse, matrix=True),
                                lambdify_matrix(self.C, [self.q, self.qd], params, cse, matrix=True),
                                lambdify_matrix(self.G, [self.q], params, cse))


def _expand_trigsimp(x, simplify: bool):
    """``trigsimp(expand(x))`` when asked (``simplify=True``), else ``x`` as it is."""
    return sp.trigsimp(sp.expand(x)) if simplify else x


def lagrange_equations(chain: Chain, gravity=None, simplify: bool = False) -> LagrangeEquations:
    """Equations of motion of a chain from its kinetic and potential energy.

    Parameters
    ----------
    chain : Chain
        Numeric or symbolic parameters.
    gravity : array_like, shape (3,)
        Required (no default: gravity is never assumed).
        Numbers or formulas (global components).
    simplify : bool
        Expand and trig-simplify T, V and each entry of M, C, G (readable
        formulas; slow beyond two or three links).

    Returns
    -------
    LagrangeEquations

    Examples
    --------
    A pendulum (uniform rod, m = 1 kg, L = 1 m) swinging in the vertical x-y plane:

    >>> g = sp.Symbol("g")
    >>> eq = lagrange_equations(Chain.planar([1]), gravity=(0, -g, 0), simplify=True)
    >>> eq.T, eq.V
    (0.166666666666667*qd1**2, 0.5*g*sin(q1))
    >>> eq.eom[0]
    0.5*g*cos(q1) + 0.333333333333333*qdd1 - tau1
    """
    n = chain.n
    q = sp.symbols(f"q1:{n + 1}")
    qd = sp.symbols(f"qd1:{n + 1}")
    qdd = sp.symbols(f"qdd1:{n + 1}")
    gravity = gravity_vector(gravity, "lagrange_equations")
    T, V = energy(chain, q, qd, gravity)         # T = ½ Σ (m v_C·v_C + ω·I ω),  V = −Σ m g·r_C
    T, V = _expand_trigsimp(sp.sympify(T), simplify), _expand_trigsimp(sp.sympify(V), simplify)

    # M_kj = ∂²T/∂q̇_k∂q̇_j
    M = sp.zeros(n, n)
    for k in range(n):
        dT_k = sp.diff(T, qd[k])
        for j in range(k, n):
            M[k, j] = M[j, k] = _expand_trigsimp(sp.diff(dT_k, qd[j]), simplify)

    # c_ijk = ½ (∂M_kj/∂q_i + ∂M_ki/∂q_j − ∂M_ij/∂q_k),  C_kj = Σ_i c_ijk q̇_i
    dM = [M.diff(q[i]) for i in range(n)]                  # dM[i][a, b] = ∂M_ab/∂q_i
    C = sp.zeros(n, n)
    for k in range(n):
        for j in range(n):
            christoffel = sum((dM[i][k, j] + dM[j][k, i] - dM[k][i, j]) / 2 * qd[i] for i in range(n))
            C[k, j] = _expand_trigsimp(christoffel, simplify)

    G = sp.Matrix([_expand_trigsimp(sp.diff(V, q[k]), simplify) for k in range(n)])   # G_k = ∂V/∂q_k
    Q = sp.Matrix(sp.symbols(f"tau1:{n + 1}"))
    return LagrangeEquations(M, C, G, q, qd, qdd, T, V, Q)


def check_skew(M, C, q, qd, points=None, tol: float = 1e-9, seed: int = 0) -> bool:
    """Is ``Ṁ − 2C`` skew-symmetric?  (It is when C comes from Christoffel symbols.)

    ``Ṁ = Σ_i ∂M/∂q_i q̇_i``.  With ``points=None`` the check is symbolic
    (every entry of ``N + Nᵀ``, ``N = Ṁ − 2C``, simplifies to zero);
    with ``points=k`` it is made at k random points, every free symbol
    (q, q̇ and any parameter) drawn uniformly from [−π, π], passing when
    ``max|N + Nᵀ| <= tol · max(1, max|N|)``.

    Parameters
    ----------
    M, C : sympy Matrix (n, n)
    q, qd : sequence of Symbol, length n
    points : int, optional
    tol : float
    seed : int
        Seed of the random points.

    Returns
    -------
    bool

    Examples
    --------
    >>> eq = lagrange_equations(Chain.planar([1, 1]), gravity=(0, -9.81, 0))
    >>> check_skew(eq.M, eq.C, eq.q, eq.qd), check_skew(eq.M, 2 * eq.C, eq.q, eq.qd, points=5)
    (True, False)
    """
    M, C = sp.Matrix(M), sp.Matrix(C)
    n = len(q)
    if M.shape != (n, n) or C.shape != (n, n) or len(qd) != n:
        raise ModelError(f"check_skew: M {M.shape} and C {C.shape} must be {n}x{n}, like q and qd "
                         f"({n} symbols)")
    Mdot = sum((M.diff(q[i]) * qd[i] for i in range(n)), sp.zeros(n, n))   # Ṁ = Σ ∂M/∂q_i q̇_i
    N = Mdot - 2 * C
    S = N + N.T                                                            # zero iff N is skew
    if points is None:
        return all(sp.trigsimp(sp.expand(x)) == 0 or sp.simplify(x) == 0 for x in S)
    symbols = sorted((N.free_symbols | set(q) | set(qd)), key=str)
    f = sp.lambdify([symbols], [N, S], modules="numpy", cse=True)
    rng = np.random.default_rng(seed)
    for _ in range(int(points)):
        N_val, S_val = (np.asarray(x, dtype=float) for x in f(rng.uniform(-np.pi, np.pi, len(symbols))))
        if np.max(np.abs(S_val)) > tol * max(1.0, np.max(np.abs(N_val))):
            return False
    return True
