"""Loads: forces and couples on bodies, their resultants, force laws, and their generalized forces.

The vocabulary of the book's page on loads (Kane & Levinson 1985, ch. 4; Nikravesh 1988, §6.3):

* a **force** ``F`` acts along a line through a point ``P``; a **couple** is a set of forces whose
  resultant is zero, and has a **torque** ``T``, the same about every point;
* any set of forces and couples acting on one body is **equivalent** to one force, their resultant,
  acting at a chosen point ``O``, together with a couple whose torque is their moment about ``O``::

      F_R = Σ F_k,        M_O = Σ (r_Pk − r_O) × F_k + Σ T_k                      (resultant)

  mbdlib's dynamics take every applied load in this form with ``O`` the centre of mass: ``f_ext =
  {link: (F, M)}``, global components (:mod:`mbdlib.newton_euler`);
* **force laws** give a force from the motion: a linear spring-damper between two points pulls them
  together with the tension ``k (ℓ − ℓ0) + c ℓ̇`` (:func:`spring_damper`); dry friction opposes sliding
  with ``μ N`` (:func:`coulomb_friction`, with the usual regularization near zero speed);
* the **generalized force** of the loads for the coordinate ``q_j`` is their power per unit of
  ``q̇_j``, by the partial velocities of :func:`mbdlib.kinematics.partial_velocities`::

      Q_j = Σ_i ( F_i · v_Ci^(j) + M_i · ω_i^(j) )                              (generalized_forces)

  An interaction between two bodies of a chain (a spring between two links, a motor in a joint) is a
  pair of opposite loads, one on each body; only their relative motion contributes.

Every function runs on numbers; :func:`resultant` and :func:`generalized_forces` also on sympy formulas.
"""

from __future__ import annotations

import numpy as np

from . import _backend as bk
from ._backend import as_backend
from .chain import Chain
from .errors import ModelError, ShapeError, SingularityError
from .kinematics import partial_velocities
from .newton_euler import as_output, external_loads

__all__ = ["resultant", "spring_damper", "coulomb_friction", "generalized_forces"]


def resultant(forces=(), couples=(), about=(0.0, 0.0, 0.0)):
    """The force and the moment about a point that are equivalent to a set of forces and couples.

    ``F_R = Σ F_k`` and ``M_O = Σ (r_Pk − r_O) × F_k + Σ T_k`` (Kane & Levinson 1985, §4.1-4.2).

    Parameters
    ----------
    forces : sequence of (F, r_P)
        Each force ``F`` (3,) and a point ``r_P`` (3,) of its line of action.
    couples : sequence of array_like, shape (3,)
        The torques ``T`` of couples (the same about every point).
    about : array_like, shape (3,)
        The point ``O``; for mbdlib's ``f_ext`` the centre of mass of the body.

    Returns
    -------
    F_R, M_O : ndarray (3,) or sympy Matrix (3, 1)

    Examples
    --------
    Two opposite forces of 10 N, 0.2 m apart, make a couple: no resultant, a torque of 2 N m about
    every point.

    >>> F_R, M_O = resultant([((10, 0, 0), (0, 0.1, 0)), ((-10, 0, 0), (0, -0.1, 0))], about=(5, 5, 0))
    >>> F_R + 0.0, M_O + 0.0
    (array([0., 0., 0.]), array([ 0.,  0., -2.]))
    """
    forces, couples = list(forces), list(couples)
    sym = bk.is_symbolic(about, *[x for pair in forces for x in pair], *couples)
    O = as_backend(bk.vector(about, 3, "about"), sym)
    F_R, M_O = bk.zeros(3, symbolic=sym), bk.zeros(3, symbolic=sym)
    for k, pair in enumerate(forces):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise ShapeError(f"resultant: forces[{k}] must be a pair (F, r_P) of 3-vectors, got {pair!r}")
        F = as_backend(bk.vector(pair[0], 3, f"forces[{k}] F"), sym)
        r = as_backend(bk.vector(pair[1], 3, f"forces[{k}] point r_P"), sym)
        F_R = F_R + F
        M_O = M_O + bk.cross(r - O, F)                       # moment of F about O
    for k, T in enumerate(couples):
        M_O = M_O + as_backend(bk.vector(T, 3, f"couples[{k}]"), sym)
    return F_R, M_O


def _nonnegative(value, what: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ShapeError(f"{what} must be a number, got {value!r}") from None
    if not np.isfinite(x) or x < 0:
        raise ModelError(f"{what} must be a finite number >= 0, got {value!r}")
    return x


def _point(x, name: str, n: int | None = None) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=float).reshape(-1) if np.ndim(x) <= 1 else None
    except (TypeError, ValueError):
        a = None
    if a is None or a.size not in (2, 3) or (n is not None and a.size != n) or not np.all(np.isfinite(a)):
        size = "a 2- or 3-vector" if n is None else f"a {n}-vector"
        raise ShapeError(f"{name} must be {size} of finite numbers, got {x!r}")
    return a


def spring_damper(r_i, r_j, v_i=None, v_j=None, stiffness=0.0, damping=0.0, rest_length=0.0):
    """The force of a linear spring-damper on its end point ``j``; the force on end ``i`` is its negative.

    With ``ℓ = |r_j − r_i|``, ``e = (r_j − r_i)/ℓ`` and the rate of lengthening ``ℓ̇ = e · (v_j − v_i)``,
    the element carries the tension ``t = k (ℓ − ℓ0) + c ℓ̇`` and pulls its ends together::

        F_j = −t e,     F_i = +t e.

    The spring part is conservative, with potential energy ``k (ℓ − ℓ0)² / 2``; the damper part
    dissipates the power ``c ℓ̇²``.

    Parameters
    ----------
    r_i, r_j : array_like, shape (2,) or (3,)
        The two end points (global components, m).
    v_i, v_j : array_like, optional
        Their velocities (m/s); needed only with ``damping > 0``.
    stiffness, damping, rest_length : float
        ``k`` (N/m), ``c`` (N s/m), ``ℓ0`` (m), each ``>= 0``.

    Returns
    -------
    ndarray, shape of ``r_j``
        ``F_j`` (N).

    Raises
    ------
    SingularityError
        The two points coincide: the line of the force is undefined.

    Examples
    --------
    A 100 N/m spring of rest length 1 m stretched to 1.5 m along x pulls its end j back with 50 N:

    >>> spring_damper((0, 0, 0), (1.5, 0, 0), stiffness=100.0, rest_length=1.0)
    array([-50.,  -0.,  -0.])
    """
    r_i, r_j = _point(r_i, "spring_damper: r_i"), _point(r_j, "spring_damper: r_j")
    if r_i.size != r_j.size:
        raise ShapeError(f"spring_damper: r_i and r_j must have the same size, got {r_i.size} and {r_j.size}")
    k = _nonnegative(stiffness, "spring_damper: stiffness")
    c = _nonnegative(damping, "spring_damper: damping")
    l0 = _nonnegative(rest_length, "spring_damper: rest_length")
    d = r_j - r_i
    length = float(np.linalg.norm(d))
    if length == 0.0:
        raise SingularityError("spring_damper: r_i and r_j coincide, so the direction of the force is "
                               "undefined; attach the element to points that stay apart")
    e = d / length
    rate = 0.0
    if c > 0.0:
        if v_i is None or v_j is None:
            raise ShapeError("spring_damper: damping > 0 needs the velocities v_i and v_j of the two points")
        v_i = _point(v_i, "spring_damper: v_i", r_i.size)
        v_j = _point(v_j, "spring_damper: v_j", r_i.size)
        rate = float(e @ (v_j - v_i))
    tension = k * (length - l0) + c * rate
    return -tension * e


def coulomb_friction(v, normal_force, mu, v_slip=1e-3):
    """Dry (Coulomb) friction on a sliding contact, regularized near zero speed.

    The force opposes the sliding velocity ``v`` with the size ``μ N`` (Coulomb's law); below the
    speed ``v_slip`` it falls smoothly to zero, so that an integrator never meets the jump of the
    ideal law at ``v = 0``::

        F = −μ N tanh(|v| / v_slip) v / |v|          (F = 0 at v = 0)

    A smaller ``v_slip`` is closer to the ideal law and stiffer to integrate; the regularized law cannot
    hold a body still against a load (it creeps at a speed of order ``v_slip``).

    Parameters
    ----------
    v : float or array_like, shape (2,) or (3,)
        The sliding velocity of the contact point relative to the surface (m/s).
    normal_force : float
        The size ``N >= 0`` of the normal force pressing the surfaces together (N).
    mu : float
        The coefficient of friction ``μ >= 0``.
    v_slip : float
        The regularization speed (m/s), ``> 0``.

    Returns
    -------
    float or ndarray
        The friction force on the sliding body (N), the shape of ``v``.

    Examples
    --------
    Sliding at 1 m/s, far above ``v_slip``, with N = 20 N and μ = 0.3: a force of 6 N against the motion.

    >>> round(coulomb_friction(1.0, 20.0, 0.3), 12)
    -6.0
    >>> coulomb_friction((0.0, 0.0), 20.0, 0.3)
    array([0., 0.])
    """
    N = _nonnegative(normal_force, "coulomb_friction: normal_force (its size N)")
    mu = _nonnegative(mu, "coulomb_friction: mu")
    v_slip = _nonnegative(v_slip, "coulomb_friction: v_slip")
    if v_slip == 0.0:
        raise ModelError("coulomb_friction: v_slip must be > 0 (the ideal law jumps at v = 0; "
                         "choose a small regularization speed such as 1e-3 m/s)")
    if np.ndim(v) == 0:
        try:
            s = float(v)
        except (TypeError, ValueError):
            raise ShapeError(f"coulomb_friction: v must be a number or a 2- or 3-vector, got {v!r}") from None
        if not np.isfinite(s):
            raise ShapeError(f"coulomb_friction: v must be finite, got {v!r}")
        return -mu * N * float(np.tanh(s / v_slip))
    v = _point(v, "coulomb_friction: v")
    speed = float(np.linalg.norm(v))
    if speed == 0.0:
        return np.zeros_like(v)
    return -mu * N * np.tanh(speed / v_slip) * v / speed


def generalized_forces(chain: Chain, q, f_ext):
    """The generalized forces of applied loads on a chain: ``Q_j = Σ_i (F_i·v_Ci^(j) + M_i·ω_i^(j))``.

    Each load is projected on the partial velocities of the link it acts on (Kane & Levinson 1985,
    §5.4): ``Q_j`` is the power of the loads per unit of ``q̇_j``, so ``Qᵀ q̇`` is their power.  For a
    conservative load ``Q = −∂V/∂q``.  Gravity is not included (give it as loads ``m_i g`` if wanted);
    the equations of motion are ``M q̈ + C q̇ + G = τ + Q``.

    Parameters
    ----------
    chain : Chain
    q : array_like, shape (n,)
    f_ext : dict
        ``{link: (F, M)}``: the loads on each link reduced to its centre of mass (a force ``F`` there
        and the moment ``M`` about it, global components; :func:`resultant` reduces forces at other
        points).  An interaction between two links is a pair: ``(F, M)`` on one, ``(−F, ...)`` on the
        other, each reduced to its own centre of mass.

    Returns
    -------
    Q : ndarray (n,) or sympy Matrix (n, 1)
        N m for a revolute joint's coordinate, N for a prismatic one's.

    Examples
    --------
    A 1 m rod along x, pushed down with 10 N at its centre: ``Q_1 = −5`` N m.

    >>> rod = Chain.planar([1.0])
    >>> generalized_forces(rod, [0.0], {0: ((0, -10.0, 0), (0, 0, 0))})
    array([-5.])
    """
    sym = bk.is_symbolic(q) or chain.is_symbolic
    loads = external_loads(chain, f_ext, sym)
    pv = partial_velocities(chain, q, symbolic=sym)
    Q = [0] * chain.n
    for i in range(chain.n):
        F, M = loads[i]
        for j in [*chain.ancestors(i), i]:                 # the other partial velocities of link i vanish
            Q[j] = Q[j] + bk.dot(F, pv.global_("v_c", i, j)) + bk.dot(M, pv.global_("omega", i, j))
    return as_output(Q, sym)
