"""Joint-space dynamics of a chain: mass matrix, bias forces, forward dynamics, energy, simulation.

The equations of motion in joint coordinates (Featherstone 2008, eq. 6.1):

    M(q) q̈ + h(q, q̇) + G(q) = τ        (h: centripetal and Coriolis; G: gravity; applied loads join G)

``h`` has this one meaning in the whole library (Notation page), as in :mod:`mbdlib.kane`; the
*bias forces* ``b = h + G`` are what the RNEA returns with q̈ = 0.

* :func:`mass_matrix` builds M by the composite-rigid-body algorithm
  (Featherstone 2008, §6.2, Table 6.2), written with 3-vectors: the subtree
  below joint i moves as one rigid body when only q̇_i is non-zero, and M_ij
  is the momentum of that composite body projected on joint j's freedom.
* :func:`bias_forces` is b = h + G = RNEA(q, q̇, 0) (Featherstone 2008, §6.1, where it is called C).
* :func:`forward_dynamics` solves M q̈ = τ − (h + G) by Cholesky (M is symmetric
  positive definite for a physical chain).
* :func:`energy` gives T = ½ Σ (m v_C·v_C + ω·I ω) and V = −Σ m g·r_C
  (zero where g·r_C = 0 for every centre of mass, e.g. all at the height of the global origin).
* :func:`simulate` integrates the motion with ``scipy.integrate.solve_ivp``.

Applied loads ``f_ext`` are ``{link: (F, M)}`` dicts (force at the centre of
mass, moment; global components) as in :mod:`mbdlib.newton_euler`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import sympy as sp
from scipy.integrate import solve_ivp

from . import _backend as bk
from ._backend import as_backend
from .chain import Chain
from .errors import MbdError, ModelError, ShapeError, SingularityError
from .kinematics import forward_kinematics
from .newton_euler import _inward_pass, as_output, external_loads, gravity_vector, rnea
from .rotations import skew

__all__ = ["mass_matrix", "bias_forces", "forward_dynamics", "inverse_dynamics_from_mass_matrix",
           "lambdify_matrix", "lambdify_equations", "energy", "simulate", "Simulation"]


# ----------------------------------------------------------------- mass matrix (CRBA)
def mass_matrix(chain: Chain, q):
    """Joint-space mass matrix M(q) by the composite-rigid-body algorithm.

    Parameters
    ----------
    chain : Chain
        Serial chain or tree.
    q : array_like, shape (n,)

    Returns
    -------
    M : ndarray or sympy Matrix, shape (n, n)
        Symmetric; positive definite for a physical chain.

    Notes
    -----
    Composite body of joint i (link i and all its descendants), about joint i
    in frame-i components: mass ``m^c``, first moment ``h^c = m^c c`` and
    inertia ``I^c`` about joint i.  A child's composite joins its parent's with
    ``E = R_cᵀ`` (child -> parent components) and ``l_c`` (child joint in the
    parent frame):

        h_p += E h_c + m_c l_c,     I_p += E I_c Eᵀ − m_c l̃ l̃ − (l̃ h̃ + h̃ l̃),  h = E h_c

    (parallel-axis theorem for a body whose centre is not at its origin).
    A unit rate of joint i, motion ``(ω, v) = (k_i, 0)`` (revolute) or
    ``(0, k_i)`` (prismatic), gives the composite the angular momentum about
    joint i ``n = I^c ω + h^c × v`` and the momentum ``f = m^c v − h^c × ω``;
    carried inwards like a force, ``M_ij = k_j · n`` (revolute j) or ``k_j · f``
    (prismatic j) for j = i and each ancestor of i.

    Examples
    --------
    Two uniform 1 kg, 1 m rods, straight: ``M_11 = 1/3 + (1/12 + 1 + 1/4 + 1)``,
    ``M_12 = 1/12 + 1/4 + 1/2``, ``M_22 = 1/3``:

    >>> mass_matrix(Chain.planar([1.0, 1.0]), [0.0, 0.0]).round(6)
    array([[2.666667, 0.833333],
           [0.833333, 0.333333]])
    """
    sym = bk.is_symbolic(q) or chain.is_symbolic
    return _crba(chain, forward_kinematics(chain, q, symbolic=sym), sym)


def _crba(chain: Chain, kin, sym: bool):
    """The composite-rigid-body algorithm on the poses ``kin`` (R, l, d of each link)."""
    links, n = chain.links, chain.n
    # each link alone: mass, first moment m d_i, inertia about joint i (parallel axis), frame i
    m_c = [link.body.mass for link in links]
    h_c = [m_c[i] * kin.d[i] for i in range(n)]
    I_c = [as_backend(link.body.inertia_about((0, 0, 0)), sym) for link in links]
    for i in reversed(range(n)):                          # children (higher index) before parents
        p = links[i].parent
        if p == -1:
            continue
        E, l = kin.R[i].T, kin.l[i]                       # frame i -> frame p;  joint i in frame p
        h = E @ h_c[i]                                    # child's first moment about its joint, frame p
        L, H = skew(l), skew(h)
        m_c[p] = m_c[p] + m_c[i]
        h_c[p] = h_c[p] + h + m_c[i] * l
        I_c[p] = I_c[p] + E @ I_c[i] @ E.T - m_c[i] * (L @ L) - (L @ H + H @ L)

    M = bk.zeros(n, n, symbolic=sym)
    zero = as_backend(bk.zeros(3), sym)
    for i in range(n):
        k = as_backend(links[i].joint.axis, sym)
        omega, v = (k, zero) if links[i].joint.kind == "revolute" else (zero, k)   # S_i q̇_i, q̇_i = 1
        n_i = I_c[i] @ omega + bk.cross(h_c[i], v)       # angular momentum about joint i
        f_i = m_c[i] * v - bk.cross(h_c[i], omega)       # linear momentum
        M[i, i] = _project(links[i].joint, n_i, f_i, sym)
        j = i
        while links[j].parent != -1:                      # carry (n, f) inwards like a force
            f_i = kin.R[j].T @ f_i
            n_i = kin.R[j].T @ n_i + bk.cross(kin.l[j], f_i)
            j = links[j].parent
            M[i, j] = M[j, i] = _project(links[j].joint, n_i, f_i, sym)
    return M


def _project(joint, n, f, sym):
    """S_jᵀ (n, f): k_j·n for a revolute joint, k_j·f for a prismatic one."""
    k = as_backend(joint.axis, sym)
    return bk.dot(k, n) if joint.kind == "revolute" else bk.dot(k, f)


# ----------------------------------------------------------------- bias forces, forward and inverse dynamics
def bias_forces(chain: Chain, q, qd, gravity=None, f_ext=None):
    """Bias forces h(q, q̇) + G(q) = RNEA(q, q̇, 0): centripetal, Coriolis, gravity and applied loads.

    Returns an ``(n,)`` array (sympy ``(n, 1)`` Matrix for formulas).

    >>> bias_forces(Chain.planar([1.0]), [0.0], [0.0], gravity=(0, -9.81, 0))
    array([4.905])
    """
    return rnea(chain, q, qd, [0] * chain.n, gravity_vector(gravity, "bias_forces"), f_ext)


def _numeric_vector(x, chain: Chain, name: str):
    if bk.is_symbolic(x):
        raise ModelError(f"{name} is symbolic: forward_dynamics works on numbers; for formulas use "
                         "mbdlib.kane.kane_equations or mbdlib.lagrange.lagrange_equations")
    try:
        return bk.vector(x, chain.n, name=name)
    except ShapeError:
        raise ShapeError(f"{name} must have shape ({chain.n},) for chain {chain.name!r} "
                         f"(joints {chain.joint_names}), got shape {np.shape(x)}") from None


def forward_dynamics(chain: Chain, q, qd, tau, gravity=None, f_ext=None):
    """Joint accelerations q̈ from M(q) q̈ = τ − h(q, q̇) − G(q) (numbers only).

    Parameters
    ----------
    chain : Chain
    q, qd, tau : array_like, shape (n,)
        Coordinates, rates and joint torques/forces.
    gravity : array_like, shape (3,)
        Required (no default: gravity is never assumed).
    f_ext : dict, optional
        Applied loads ``{link: (F, M)}``, global components.

    Returns
    -------
    qdd : ndarray, shape (n,)

    Raises
    ------
    SingularityError
        If M is not positive definite (a link that can move without mass or
        inertia, e.g. a massless end link or a rod spinning about its axis).

    Examples
    --------
    A pendulum (uniform 1 m rod) released horizontally: q̈ = −3 g / (2 L).

    >>> forward_dynamics(Chain.planar([1.0]), [0.0], [0.0], [0.0], gravity=(0, -9.81, 0))
    array([-14.715])
    """
    q, qd, tau = (_numeric_vector(x, chain, name) for x, name in ((q, "q"), (qd, "qd"), (tau, "tau")))
    g = gravity_vector(gravity, "forward_dynamics")
    kin = forward_kinematics(chain, q, qd, np.zeros(chain.n), base_acceleration=-g)  # one outward pass
    M = _crba(chain, kin, False)                                                    # M(q)
    b = np.array(_inward_pass(chain, kin, external_loads(chain, f_ext, False), False)[0])  # h + G (RNEA)
    try:
        factor = scipy.linalg.cho_factor(M)              # M = L Lᵀ
    except np.linalg.LinAlgError:
        raise SingularityError(
            f"the mass matrix of chain {chain.name!r} is not positive definite at q = {np.round(q, 6)} "
            f"(eigenvalues {np.round(np.linalg.eigvalsh(M), 9)}): some joint moves no mass or inertia; "
            "give the links beyond it mass and non-degenerate inertia") from None
    return scipy.linalg.cho_solve(factor, tau - b)       # q̈ = M⁻¹ (τ − h − G)


def inverse_dynamics_from_mass_matrix(chain: Chain, q, qd, qdd, gravity=None, f_ext=None):
    """τ = M(q) q̈ + h(q, q̇) + G(q): inverse dynamics through the mass matrix (a second path to RNEA).

    >>> inverse_dynamics_from_mass_matrix(Chain.planar([1.0]), [0.0], [0.0], [3.0], gravity=(0, 0, -9.81))
    array([1.])
    """
    M = mass_matrix(chain, q)
    gravity = gravity_vector(gravity, "inverse_dynamics_from_mass_matrix")
    b = bias_forces(chain, q, qd, gravity, f_ext)                                          # h + G
    sym = bk.is_symbolic(M, b, qdd)
    qdd = as_backend(bk.vector(qdd, chain.n, name="qdd"), sym)
    return (M @ qdd + b) if sym else as_output(M @ qdd + b, False)


# ----------------------------------------------------------------- formulas -> fast functions
BACKENDS = ("auto", "llvm", "sympy")
_fallback_noted = False


def _compile(groups, expr, cse, backend: str):
    """``(f, how)``: ``f(x)`` of the concatenated arguments -> the flat entries of ``expr``.

    ``llvm``: ``symengine.Lambdify(..., backend="llvm", cse=True)`` compiles the formulas to machine
    code (one call costs a few µs whatever the size). ``sympy``: ``sympy.lambdify`` writes NumPy code
    (every operation then costs Python's per-call overhead). ``auto``: llvm when symengine with LLVM
    is installed and ``cse`` is not a function, else sympy (with a note, once, saying what to install).
    """
    global _fallback_noted
    symbols = [s for g in groups for s in g]
    flat = list(expr) if isinstance(expr, sp.MatrixBase) else [expr]
    if backend not in BACKENDS:
        raise ModelError(f"lambdify: backend must be one of {BACKENDS}, got {backend!r}")
    if backend != "sympy" and not callable(cse):
        try:
            import symengine as se  # optional (mbdlib[fast]): imported only when asked for
            f = se.Lambdify(symbols, flat, backend="llvm", cse=bool(cse), real=True)
        except (ImportError, RuntimeError, TypeError, ValueError, NotImplementedError) as exc:
            if backend == "llvm":
                raise ModelError(f"lambdify: backend='llvm' needs symengine built with LLVM "
                                 f"(pip install symengine); here: {type(exc).__name__}: {exc}") from exc
            if not _fallback_noted:
                _fallback_noted = True
                warnings.warn("lambdify: symengine with LLVM is not available, so formulas become NumPy code "
                              f"(sympy.lambdify; {type(exc).__name__}: {exc}); pip install symengine for "
                              "compiled functions (10-100x faster per call)", stacklevel=3)
        else:
            size = len(flat)

            def compiled(x):          # x: a contiguous float64 array of len(symbols), checked by the caller
                out = np.empty(size)
                f.unsafe_real(x, out)   # the compiled code without symengine's per-call checks (~1 µs)
                return out

            return compiled, "llvm"
    elif backend == "llvm":
        raise ModelError("lambdify: backend='llvm' does its own common-subexpression elimination; "
                         "give cse=True or False, not a function")
    f = sp.lambdify([symbols], flat, modules="numpy", cse=cse)
    return (lambda x: np.array(f(x), dtype=float)), "sympy"


def lambdify_matrix(expr, args, params=None, cse: bool = True, matrix: bool = False, backend: str = "auto"):
    """A fast numeric function of a symbolic scalar, vector or matrix.

    Parameters
    ----------
    expr : sympy expression or Matrix
    args : sequence of sequences of Symbol
        One group per argument of the returned function, e.g. ``(q, qd)``;
        each argument is then an array of the group's length.
    params : dict, optional
        Values of every other free symbol (lengths, masses, g, ...).
    cse : bool or callable
        Common-subexpression elimination (much faster for large formulas). A function (as
        ``sympy.lambdify`` takes it) selects the sympy backend.
    matrix : bool
        Keep the Matrix shape; by default an ``(n, 1)`` Matrix gives ``(n,)`` arrays.
    backend : {"auto", "llvm", "sympy"}
        ``"llvm"``: machine code through symengine's LLVM backend (a few µs per call);
        ``"sympy"``: NumPy code from ``sympy.lambdify``; ``"auto"`` (default): llvm when symengine
        is installed, else sympy with a note. The chosen one is the function's ``backend`` attribute.

    Returns
    -------
    callable
        ``f(*arrays)`` -> float, ``(n,)`` array (for an ``(n, 1)`` Matrix) or
        ``(n, m)`` array.

    Examples
    --------
    >>> x, y = sp.symbols("x y")
    >>> f = lambdify_matrix(sp.Matrix([[x * y, 1], [0, x]]), [(x, y)])
    >>> f([2.0, 3.0])
    array([[6., 1.],
           [0., 2.]])
    >>> lambdify_matrix(x + y, [(x,), (y,)], backend="sympy")([1.0], [2.0])
    3.0
    """
    groups = [tuple(a) for a in args]
    expr = sp.sympify(expr).subs(params) if params else sp.sympify(expr)
    free = expr.free_symbols - {s for group in groups for s in group}
    if free:
        raise ModelError(f"lambdify: the formula still contains {sorted(map(str, free))}; give their values "
                         "in params={symbol: value}")
    f, how = _compile(groups, expr, cse, backend)
    full = expr.shape if isinstance(expr, sp.MatrixBase) else ()
    shape = (full[0],) if len(full) == 2 and full[1] == 1 and not matrix else full  # columns -> (n,)
    sizes = [len(g) for g in groups]
    names = [f"argument {a} (length {k})" for a, k in enumerate(sizes)]

    def argument(v, k, name):
        a = np.asarray(v, dtype=float)
        return a if a.shape == (k,) else bk.vector(v, k, name=name)   # bk.vector reshapes or names the error

    def numeric(*values):
        if len(values) != len(groups):
            raise ShapeError(f"expected {len(groups)} argument(s) of lengths {sizes}, got {len(values)}")
        parts = [argument(v, k, nm) for v, k, nm in zip(values, sizes, names, strict=True)]
        x = np.ascontiguousarray(parts[0]) if len(parts) == 1 else np.concatenate(parts or [np.zeros(0)])
        out = f(x)
        return float(out[0]) if not shape else out.reshape(shape)

    numeric.backend = how
    return numeric


def lambdify_equations(M, h, q, qd, params=None, cse: bool = True, backend: str = "auto"):
    """Fast numeric ``M(q)`` -> (n, n) and ``b(q, qd)`` -> (n,) from symbolic results.

    For example from :func:`mbdlib.kane.kane_equations` (pass ``h + G`` as ``h``); ``backend`` as in
    :func:`lambdify_matrix`.

    >>> q, qd = sp.symbols("q1 q2"), sp.symbols("qd1 qd2")
    >>> M_f, h_f = lambdify_equations(sp.diag(2, 1), sp.Matrix([qd[0] ** 2, sp.sin(q[1])]), q, qd)
    >>> M_f([0, 0]), h_f([0, np.pi / 2], [3, 0])
    (array([[2., 0.],
           [0., 1.]]), array([9., 1.]))
    """
    return (lambdify_matrix(M, [q], params, cse, matrix=True, backend=backend),
            lambdify_matrix(h, [q, qd], params, cse, backend=backend))


# ----------------------------------------------------------------- energy and simulation
def energy(chain: Chain, q, qd, gravity=None):
    """Kinetic and potential energy (T, V) of a chain.

    ``T = ½ Σ_i (m_i v_Ci·v_Ci + ω_i·I_i ω_i)``, ``V = −Σ_i m_i g·r_Ci``.
    Numbers in -> floats out; formulas in -> sympy expressions.

    >>> energy(Chain.planar([1.0]), [np.pi / 2], [3.0], gravity=(0, -9.81, 0))   # (I ω²/2, m g L/2)
    (1.5, 4.905)
    """
    sym = bk.is_symbolic(q, qd, gravity) or chain.is_symbolic
    g = as_backend(gravity_vector(gravity, "energy"), sym)
    kin = forward_kinematics(chain, q, qd, symbolic=sym)
    T, V = 0, 0
    for i, link in enumerate(chain.links):
        m, I = link.body.mass, as_backend(link.body.inertia, sym)
        v_c, omega = kin.v_c[i], kin.omega[i]
        T = T + (m * bk.dot(v_c, v_c) + bk.dot(omega, I @ omega)) / 2     # ½ (m v_C·v_C + ω·I ω)
        V = V - m * bk.dot(g, kin.r_c(i))                                 # −m g·r_C
    return (T, V) if sym else (float(T), float(V))


@dataclass
class Simulation:
    """Result of :func:`simulate`: samples k = 0 ... K-1.

    Attributes
    ----------
    t : ndarray (K,)
    q, qd : ndarray (K, n)
    T, V : ndarray (K,)
        Kinetic and potential energy at each sample.
    solution : scipy OdeResult
        The raw ``solve_ivp`` result (status, nfev, ...).
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    T: np.ndarray
    V: np.ndarray
    solution: object

    @property
    def E(self) -> np.ndarray:
        """Total energy T + V, shape (K,)."""
        return self.T + self.V


def simulate(chain: Chain, q0, qd0, t_span, tau=None, gravity=None, rtol: float = 1e-9,
             atol: float = 1e-9, t_eval=None, method: str = "DOP853") -> Simulation:
    """Integrate M q̈ = τ − h − G from (q0, qd0) with ``scipy.integrate.solve_ivp``.

    Parameters
    ----------
    chain : Chain
    q0, qd0 : array_like, shape (n,)
    t_span : (float, float)
    tau : None, array_like (n,), or callable ``tau(t, q, qd) -> (n,)``
        Joint torques/forces (default zero: a free chain under gravity).
    gravity : array_like, shape (3,)
        Required (no default: gravity is never assumed).
    rtol, atol : float
    t_eval : array_like, optional
        Sample times (default: the integrator's steps).
    method : str
        Any ``solve_ivp`` method.

    Returns
    -------
    Simulation

    Examples
    --------
    >>> sim = simulate(Chain.planar([1.0]), [0.0], [0.0], (0, 1), gravity=(0, -9.81, 0), t_eval=[0, 1])
    >>> bool(abs(sim.E[-1] - sim.E[0]) < 1e-8)   # energy is conserved
    True
    """
    n = chain.n
    q0, qd0 = _numeric_vector(q0, chain, "q0"), _numeric_vector(qd0, chain, "qd0")
    gravity_vector(gravity, "simulate")
    if tau is None:
        def torque(t, q, qd):
            return np.zeros(n)
    elif callable(tau):
        def torque(t, q, qd):
            return _numeric_vector(tau(t, q, qd), chain, "tau(t, q, qd)")
    else:
        tau_const = _numeric_vector(tau, chain, "tau")

        def torque(t, q, qd):
            return tau_const

    def rhs(t, y):                                         # y = (q, q̇),  ẏ = (q̇, q̈)
        q, qd = y[:n], y[n:]
        return np.concatenate([qd, forward_dynamics(chain, q, qd, torque(t, q, qd), gravity)])

    sol = solve_ivp(rhs, t_span, np.concatenate([q0, qd0]), method=method, rtol=rtol, atol=atol,
                    t_eval=t_eval)
    if sol.status < 0:
        raise MbdError(f"simulate: the integration of chain {chain.name!r} failed: {sol.message}")
    q, qd = sol.y[:n].T, sol.y[n:].T
    TV = np.array([energy(chain, q[k], qd[k], gravity) for k in range(len(sol.t))]).reshape(-1, 2)
    return Simulation(sol.t, q, qd, TV[:, 0], TV[:, 1], sol)
