"""Newton-Euler equations: one rigid body, and the recursive algorithm for chains (RNEA).

One body (the source's "dynamics" step, Nikravesh 1988 ch. 6): the force and
the moment about the centre of mass C that the body *needs* to move as it does,

    F = m a_C                       (Newton)
    M = I α + ω × (I ω)             (Euler; I the central inertia)

A chain: the recursive Newton-Euler algorithm (Luh, Walker & Paul 1980;
Featherstone 2008, §5.3, Table 5.1, written here with 3-vectors instead of
spatial vectors).  Two passes:

1. outwards, base -> tips: velocities and accelerations of every link, by
   :func:`mbdlib.kinematics.forward_kinematics` (the recursion of Ma, Xu & Li
   1988).  Gravity enters as an *upward* acceleration of the base, ``-g``, so
   every a_C already includes it (Ma, Xu & Li 1988).
2. inwards, tips -> base: the force f_i and moment n_i that the parent exerts
   on link i through joint i (reduced to the joint point, the origin of frame
   i) balance what link i needs plus what its children need,

       f_i = m_i a_Ci - F_i^ext + Σ_c R_cᵀ f_c
       n_i = N_i - M_i^ext + d_i × (m_i a_Ci - F_i^ext) + Σ_c (R_cᵀ n_c + l_c × R_cᵀ f_c)

   and the joint force is the component along the joint's freedom,
   ``τ_i = n_i · k_i`` (revolute) or ``τ_i = f_i · k_i`` (prismatic).

Every vector is in LOCAL frame-i components, as in :mod:`mbdlib.kinematics`;
``R_c`` turns frame-i components into child-frame components, so ``R_cᵀ``
brings a child's force back, and ``l_c`` is the child's joint in frame i.

Applied loads ``f_ext`` are, everywhere in mbdlib's dynamics, a dict
``{link: (F, M)}``: a force F acting at the centre of mass and a moment M,
both in GLOBAL components; ``link`` is a link's index or name.

Like the kinematics, the code runs on numbers and on formulas: sympy in ->
sympy out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from . import _backend as bk
from ._backend import as_backend
from .bodies import RigidBody
from .chain import Chain
from .errors import ModelError, ShapeError
from .kinematics import forward_kinematics

__all__ = ["newton_euler_body", "rnea", "JointReactions"]


# ----------------------------------------------------------------- input checks shared by the dynamics
def gravity_vector(gravity, who: str = "this function"):
    """Validate ``gravity`` (3 numbers or formulas, global components) and return it.

    Gravity is never assumed: ``None`` (the default of every function that takes it) is an error
    that says what to pass.

    >>> gravity_vector((0, 0, -9.81))
    array([ 0.  ,  0.  , -9.81])
    >>> gravity_vector(None, "rnea")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mbdlib.errors.ModelError: rnea: give gravity=, the gravitational acceleration ... (0, 0, 0) for none
    >>> gravity_vector(-9.81)
    Traceback (most recent call last):
    ...
    mbdlib.errors.ShapeError: gravity must be a 3-vector in global components such as (0, 0, -9.81), got -9.81
    """
    if gravity is None:
        raise ModelError(f"{who}: give gravity=, the gravitational acceleration in global components: "
                         "(0, 0, -9.81) for the Earth along -z, (0, -9.81, 0) for a planar chain in the x-y "
                         "plane, (0, 0, 0) for none")
    try:
        g = bk.vector(gravity, 3, name="gravity")
    except ShapeError:
        raise ShapeError(f"gravity must be a 3-vector in global components such as (0, 0, -9.81), "
                         f"got {gravity!r}") from None
    if not bk.is_symbolic(g) and not np.all(np.isfinite(g)):
        raise ShapeError(f"gravity must be finite, got {gravity!r}")
    return g


def external_loads(chain: Chain, f_ext, symbolic: bool) -> list:
    """Per-link applied loads ``[(F_i, M_i), ...]`` (global components) from the ``f_ext`` dict.

    Links absent from the dict get zero loads; ``None`` means no loads at all.

    >>> loads = external_loads(Chain.planar([1.0, 1.0]), {"link2": ((0, 1, 0), (0, 0, 0))}, False)
    >>> loads[1][0]
    array([0., 1., 0.])
    """
    zero = as_backend(bk.zeros(3), symbolic)
    loads = [(zero, zero) for _ in range(chain.n)]
    if f_ext is None:
        return loads
    if not isinstance(f_ext, dict):
        raise ShapeError(f"f_ext must be a dict {{link: (F, M)}} (link index or name; F, M 3-vectors in "
                         f"global components at the centre of mass), got {type(f_ext).__name__}")
    for key, value in f_ext.items():
        i = chain.index(key)  # raises ModelError naming the chain and its links
        name = chain.link_names[i]
        try:
            F, M = value
        except (TypeError, ValueError):
            raise ShapeError(f"f_ext[{key!r}] must be a pair (F, M) of 3-vectors (force at the centre "
                             f"of mass of link {name!r} and moment, global components)") from None
        F = as_backend(bk.vector(F, 3, name=f"f_ext[{key!r}] force"), symbolic)
        M = as_backend(bk.vector(M, 3, name=f"f_ext[{key!r}] moment"), symbolic)
        loads[i] = (F, M)
    return loads


def as_output(values, symbolic: bool):
    """A list of n scalars as an ``(n,)`` float array, or a sympy ``(n, 1)`` Matrix."""
    if symbolic:
        return sp.Matrix(values)
    return np.array([float(v) for v in values])


# ----------------------------------------------------------------- one body
def _body_equations(mass, I, omega, alpha, a_c):
    """F = m a_C, N = I α + ω × (I ω), all vectors and I in the same (body) frame."""
    F = mass * a_c                                        # Newton: F = m a_C
    N = I @ alpha + bk.cross(omega, I @ omega)            # Euler:  N = I α + ω × (I ω)
    return F, N


def newton_euler_body(body: RigidBody, A, omega, alpha, a_c):
    """Force and moment a rigid body needs for a given motion (Newton-Euler equations).

    ``F = m a_C`` and ``M = I_g α + ω × (I_g ω)`` with ``I_g = A I Aᵀ`` the
    central inertia in global components.  The moment is about the centre of
    mass.  F is the resultant of ALL forces; for the force needed besides the
    weight, pass ``a_c - g`` (as :func:`rnea` does, following Ma, Xu & Li 1988).

    Parameters
    ----------
    body : RigidBody
    A : array_like, shape (3, 3)
        DCM of the body frame (body components -> global components).
    omega, alpha : array_like, shape (3,)
        Angular velocity and acceleration, global components.
    a_c : array_like, shape (3,)
        Acceleration of the centre of mass, global components.

    Returns
    -------
    F, M : ndarray (3,) or sympy Matrix (3, 1)
        Required force and moment about the centre of mass, global components.

    Examples
    --------
    A box spinning about its middle principal axis with a small tumble needs a
    gyroscopic moment ``ω × I ω``:

    >>> box = RigidBody.box(12.0, 1.0, 2.0, 3.0)          # I = diag(13, 10, 5)
    >>> F, M = newton_euler_body(box, np.eye(3), (1.0, 1.0, 0.0), (0, 0, 0), (0, 0, 2.0))
    >>> F, M
    (array([ 0.,  0., 24.]), array([ 0.,  0., -3.]))
    """
    if not isinstance(body, RigidBody):
        raise ModelError(f"newton_euler_body: body must be a RigidBody, got {type(body).__name__}")
    sym = bk.is_symbolic(A, omega, alpha, a_c, body.mass, body.inertia)
    A = as_backend(bk.matrix(A, (3, 3), "A"), sym)
    omega, alpha, a_c = (as_backend(bk.vector(x, 3, name), sym)
                         for x, name in ((omega, "omega"), (alpha, "alpha"), (a_c, "a_c")))
    I = as_backend(body.inertia, sym)
    # work in body components (where I is constant), then return to global ones
    F, N = _body_equations(body.mass, I, A.T @ omega, A.T @ alpha, A.T @ a_c)
    return A @ F, A @ N


# ----------------------------------------------------------------- chains
@dataclass
class JointReactions:
    """Joint forces from :func:`rnea` (``return_reactions=True``).

    ``force[i]`` and ``moment[i]`` are the force and the moment (about the
    joint point, the origin of frame i) that the parent of link i (or the
    base) exerts on link i through joint i.  They include the actuator's part:
    ``τ_i = moment[i] · k_i`` for a revolute joint, ``force[i] · k_i`` for a
    prismatic one; the rest is carried by the joint's structure.

    Attributes
    ----------
    force, moment : ndarray (n, 3) or sympy Matrix (n, 3)
        Row i in frame-i (link) components.
    force_global, moment_global : ndarray (n, 3) or sympy Matrix (n, 3)
        Row i in global components.
    """

    force: object
    moment: object
    force_global: object
    moment_global: object


def _rows(vectors, symbolic: bool):
    if symbolic:
        return sp.Matrix.vstack(*[sp.Matrix(v).T for v in vectors])
    return np.array(vectors, dtype=float).reshape(len(vectors), 3)


def rnea(chain: Chain, q, qd, qdd, gravity=None, f_ext=None, return_reactions: bool = False):
    """Inverse dynamics by the recursive Newton-Euler algorithm: τ = ID(q, q̇, q̈).

    Parameters
    ----------
    chain : Chain
        Serial chain or tree.
    q, qd, qdd : array_like, shape (n,)
        Joint coordinates, rates and accelerations.
    gravity : array_like, shape (3,)
        Required (no default: gravity is never assumed).
        Gravitational acceleration, global components (m/s²).
    f_ext : dict, optional
        Applied loads ``{link: (F, M)}``: force at the centre of mass and
        moment, global components (see the module notes).
    return_reactions : bool
        Also return the joint forces (:class:`JointReactions`).

    Returns
    -------
    tau : ndarray (n,) or sympy Matrix (n, 1)
        Joint torques (revolute, N m) and forces (prismatic, N).
    reactions : JointReactions
        Only if ``return_reactions``.

    Examples
    --------
    A 2 kg, 1 m rod held horizontal (τ = m g L / 2) and a static arm:

    >>> rnea(Chain.planar([1.0], masses=[2.0]), [0.0], [0.0], [0.0], gravity=(0, -9.81, 0))
    array([9.81])
    >>> tau, r = rnea(Chain.planar([1.0], masses=[2.0]), [0.0], [0.0], [0.0], (0, -9.81, 0),
    ...               return_reactions=True)
    >>> r.force_global                    # the pivot carries the weight
    array([[ 0.  , 19.62,  0.  ]])
    """
    sym = bk.is_symbolic(q, qd, qdd, gravity) or chain.is_symbolic
    g = gravity_vector(gravity, "rnea")
    loads = external_loads(chain, f_ext, sym)
    # outward pass (Ma, Xu & Li 1988): the base accelerates upwards with g
    kin = forward_kinematics(chain, q, qd, qdd, base_acceleration=-g, symbolic=sym)

    tau, f, n = _inward_pass(chain, kin, loads, sym)     # inward pass, tips -> base
    tau = as_output(tau, sym)
    if not return_reactions:
        return tau
    reactions = JointReactions(_rows(f, sym), _rows(n, sym),
                               _rows([kin.A[i] @ f[i] for i in range(chain.n)], sym),   # A_i f_i
                               _rows([kin.A[i] @ n[i] for i in range(chain.n)], sym))   # A_i n_i
    return tau, reactions


def _inward_pass(chain: Chain, kin, loads, sym: bool):
    """The RNEA's inward pass on outward-pass kinematics ``kin``: joint torques, forces, moments.

    O(n): each link, once its children have pushed their forces into it, pushes its own into its
    parent (Featherstone 2008, Table 5.1, ``f_λ(i) = f_λ(i) + λ(i)X_i* f_i``).
    """
    links = chain.links
    f = [None] * chain.n                                   # f_i: force of parent on link i, frame i
    n = [None] * chain.n                                   # n_i: moment of parent on link i about joint i
    f_in = [bk.zeros(3, symbolic=sym) for _ in range(chain.n)]   # pushed in by link i's children (frame i)
    n_in = [bk.zeros(3, symbolic=sym) for _ in range(chain.n)]
    tau = [None] * chain.n
    for i in reversed(range(chain.n)):                     # inward pass, children before parents
        body = links[i].body
        A, d = kin.A[i], kin.d[i]
        F_ext, M_ext = (A.T @ x for x in loads[i])         # applied loads in frame i
        F, N = _body_equations(body.mass, as_backend(body.inertia, sym), kin.omega[i], kin.alpha[i],
                               kin.a_c[i])
        f_i = F - F_ext + f_in[i]                          # f_i = m_i a_Ci - F_i + Σ_c R_cᵀ f_c
        n_i = N - M_ext + bk.cross(d, F - F_ext) + n_in[i]  # n_i = N_i - M_i + d_i × (...) + Σ_c (...)
        f[i], n[i] = f_i, n_i
        p = links[i].parent
        if p >= 0:                                         # push into the parent, in its frame
            f_p = kin.R[i].T @ f_i
            f_in[p] = f_in[p] + f_p
            n_in[p] = n_in[p] + kin.R[i].T @ n_i + bk.cross(kin.l[i], f_p)
        k = as_backend(links[i].joint.axis, sym)
        tau[i] = bk.dot(n_i, k) if links[i].joint.kind == "revolute" else bk.dot(f_i, k)  # τ_i = n_i·k_i
    return tau, f, n
