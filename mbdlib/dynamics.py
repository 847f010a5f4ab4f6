"""Joint-space dynamics of a chain: mass matrix, bias forces, forward dynamics, energy; the chain as a model.

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
* :class:`ChainModel` is a chain as a model: its system (``ChainModel(...).system()``) is what
  :func:`mbdlib.simulate` and :func:`mbdlib.linearize` take.

Applied loads ``f_ext`` are ``{link: (F, M)}`` dicts (force at the centre of
mass, moment; global components) as in :mod:`mbdlib.newton_euler`.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from . import _backend as bk
from ._backend import as_backend
from .chain import Chain
from .errors import ModelError, ShapeError, SingularityError
from .kinematics import forward_kinematics
from .model import Coordinate, UnconstrainedModel, linear_coordinate
from .newton_euler import _inward_pass, as_output, external_loads, gravity_vector, rnea
from .rotations import skew

__all__ = ["mass_matrix", "bias_forces", "forward_dynamics", "inverse_dynamics_from_mass_matrix", "energy",
           "ChainModel"]


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
        a = bk.vector(x, chain.n, name=name)
    except ShapeError:
        raise ShapeError(f"{name} must have shape ({chain.n},) for chain {chain.name!r} "
                         f"(joints {chain.joint_names}), got shape {np.shape(x)}") from None
    if not np.all(np.isfinite(a)):
        i = int(np.flatnonzero(~np.isfinite(a))[0])
        raise ShapeError(f"{name}[{i}] is {float(a[i])!r} (joint {chain.joint_names[i]!r} of chain "
                         f"{chain.name!r}): give finite numbers")
    return a


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


# ----------------------------------------------------------------- the chain as a model
class ChainModel(UnconstrainedModel):
    """An open chain (:class:`mbdlib.Chain`) in joint coordinates as a model.

    No constraints: ``M(q)`` by :func:`mass_matrix` (CRBA) and ``Q = τ − h(q, q̇) − G(q)`` by
    :func:`bias_forces` (RNEA); the energy is ``T + V`` of :func:`energy`.

    Parameters
    ----------
    chain : Chain
    gravity : array_like, shape (3,)
        Required (no default: gravity is never assumed).
    tau : None, array_like (n,) or callable ``tau(t, q, qd) -> (n,)``
        Joint torques/forces (default zero: a free chain under gravity).  Each joint's torque is also an
        input of :func:`mbdlib.linearize`, named after the joint.
    q0, qd0 : array_like, shape (n,), optional
        The start state (default zeros); :meth:`set_initial` changes it.

    >>> from mbdlib import simulate
    >>> model = ChainModel(Chain.planar([1.0]), gravity=(0, -9.81, 0))
    >>> system = model.system()
    >>> system.Q(0.0, system.q0, system.qd0)                   # gravity torque −m g L/2
    array([-4.905])
    >>> run = simulate(system, 1.0, t_eval=[0.0, 1.0])
    >>> bool(run.energy_drift < 1e-8)                         # energy is conserved
    True
    """

    def __init__(self, chain: Chain, gravity=None, tau=None, q0=None, qd0=None):
        if not isinstance(chain, Chain):
            raise ModelError(f"ChainModel: chain must be a mbdlib.Chain, got {type(chain).__name__}")
        self.chain, self.n = chain, chain.n
        self.gravity = np.asarray(gravity_vector(gravity, "ChainModel"), dtype=float)
        if tau is not None and not callable(tau):
            tau = _numeric_vector(tau, chain, "tau")
        self.tau = tau
        self.coordinate_names = list(chain.joint_names)
        self._assembly = None
        self.set_initial(np.zeros(self.n) if q0 is None else q0, qd0)

    def set_initial(self, q, qd=None):
        """The start state (:meth:`assemble` has nothing to solve: an open chain has no constraints)."""
        self._q = _numeric_vector(q, self.chain, "q0")
        self._qd = np.zeros(self.n) if qd is None else _numeric_vector(qd, self.chain, "qd0")
        self._assembly = None

    def q_guess(self):
        return self._q.copy()

    def qd_guess(self, q=None):
        return self._qd.copy()

    def coordinate(self, key) -> Coordinate:
        """A joint coordinate by joint name or index (or a :class:`~mbdlib.model.Coordinate` as it is)."""
        if isinstance(key, str | int | np.integer) and not isinstance(key, bool):
            names = self.coordinate_names
            k = names.index(key) if isinstance(key, str) and key in names else key
            if isinstance(k, str) or not 0 <= int(k) < self.n:
                raise ModelError(f"coordinate: no joint {key!r} in chain {self.chain.name!r}; its joints: "
                                 f"{names}")
            joint = self.chain.links[int(k)].joint
            return linear_coordinate(names[int(k)], "rad" if joint.kind == "revolute" else "m", {int(k): 1.0})
        return super().coordinate(key)

    def _describe(self) -> str:
        return f"ChainModel {self.chain.name!r}"

    def _inputs(self) -> dict:
        unit = np.eye(self.n)
        return {name: (lambda t, q, qd, e=unit[k]: e) for k, name in enumerate(self.coordinate_names)}

    def _torque(self, t, q, qd):
        if self.tau is None:
            return np.zeros(self.n)
        if callable(self.tau):
            return _numeric_vector(self.tau(t, q, qd), self.chain, "tau(t, q, qd)")
        return self.tau

    def M(self, q):
        return np.asarray(mass_matrix(self.chain, q), dtype=float)

    def Q(self, t, q, qd):
        return self._torque(t, q, qd) - np.asarray(bias_forces(self.chain, q, qd, self.gravity), dtype=float)

    def energy(self, q, qd):
        return float(sum(energy(self.chain, q, qd, self.gravity)))
