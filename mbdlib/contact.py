"""Unilateral contacts: their geometry, the impact laws, the impulse through the mass matrix, a penalty model.

A **contact** is a unilateral constraint ``g(q) ≥ 0``: ``g`` is the gap between two surfaces, and a force
``λ_n ≥ 0`` may push them apart only while the gap is closed, ``0 ≤ λ_n ⊥ g ≥ 0`` (Moreau 1988; Pfeiffer &
Glocker 1996).  A model declares its contacts (``PlanarModel.add_point_line``, ``add_circle_line``,
``add_circle_circle``; ``SpatialModel.add_sphere_plane``); each becomes a :class:`Contact` of the
system, whose :meth:`Contact.kinematics` gives at ``(q, q̇)``

* the gap ``g`` and the contact point, the unit normal ``n`` and tangent(s) ``t``;
* the normal row ``W_n = ∂g/∂q`` (so ``ġ = W_n q̇``, and the contact force on the bodies is ``W_nᵀ λ_n``);
* the tangent rows ``W_t``: the relative velocity of the two material points at the contact along
  ``t``, ``u_t = W_t q̇`` (sliding speed), and friction acts as ``W_tᵀ λ_t``;
* the velocity-product parts of the accelerations, ``g̈ = W_n q̈ + b_n``, ``u̇_t = W_t q̈ + b_t``.

**Impacts** (:func:`impact`).  When a gap closes with ``u_n = ġ < 0`` the velocities jump: an impulse
``P`` acts through the mass matrix and the bilateral joints (the KKT system, Haug 1989, §6.3):
``M (q̇⁺ − q̇⁻) = Hᵀ P − Jᵀ Λ``, ``J q̇⁺ = 0``, so ``q̇⁺ = q̇⁻ + N Hᵀ P`` with ``N = M⁻¹ − M⁻¹ Jᵀ
(J M⁻¹ Jᵀ)⁻¹ J M⁻¹`` (:func:`delassus`).  Newton's law asks ``u_n⁺ = −e u_n⁻`` where the impulse acts,
Poisson's ``P_n = (1 + e) P_compression``; both with Coulomb friction ``‖P_t‖ ≤ μ P_n``
(Pfeiffer & Glocker 1996, ch. 7; Brogliato 2016, ch. 4).  Each is a complementarity problem
(:func:`mbdlib.lcp.solve_contact`).

**Penalty** (:func:`hunt_crossley`): the same contacts as stiff, damped springs, a force element that
:class:`~mbdlib.schemes.ODE` integrates: ``F_n = k δ^p (1 + (3/2) α δ̇)`` for a penetration ``δ = −g > 0``
(Hunt & Crossley 1975), friction smoothed over a small speed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .errors import MbdError, ModelError
from .lcp import solve_contact
from .linalg import cho as _cho
from .linalg import cho_solve as _cho_solve
from .linalg import schur_cholesky
from .system import ConstrainedSystem, as_system

__all__ = ["Contact", "ContactKinematics", "Impact", "impact", "delassus", "hunt_crossley",
           "contact_parameters", "planar_point_line", "planar_circle_line", "planar_circle_circle",
           "sphere_plane"]


# ====================================================================== the contact object
@dataclass(frozen=True)
class ContactKinematics:
    """A contact at one state (see the module notes); vectors in global components.

    Attributes
    ----------
    gap : float
    point : ndarray, shape (2,) or (3,)
    normal : ndarray, shape (2,) or (3,)
        Direction in which the normal force pushes the second body (body j, or the only body).
    tangents : ndarray, shape (dim, 2 or 3)
    Wn : ndarray, shape (n,)
    Wt : ndarray, shape (dim, n)
    bn : float
        ``g̈ − W_n q̈`` (0 without q̇).
    bt : ndarray, shape (dim,)
        ``u̇_t − W_t q̈``.
    """

    gap: float
    point: np.ndarray
    normal: np.ndarray
    tangents: np.ndarray
    Wn: np.ndarray
    Wt: np.ndarray
    bn: float = 0.0
    bt: np.ndarray = field(default_factory=lambda: np.zeros(1))


@dataclass(frozen=True, eq=False)
class Contact:
    """A unilateral contact of a model (built by ``add_point_line`` and the others; immutable).

    Attributes
    ----------
    name : str
    kind : str
        ``"point-line"``, ``"circle-line"``, ``"circle-circle"``, ``"circle-in-circle"`` or
        ``"sphere-plane"``.
    bodies : tuple of str
        The body names (``"ground"`` for a fixed surface).
    restitution : float
        e ∈ [0, 1]: 0 plastic, 1 elastic.
    friction : float
        μ ≥ 0 (Coulomb; one coefficient for sticking and sliding).
    dim : int
        Tangent directions: 1 in the plane, 2 in space.
    geometry : callable
        ``geometry(q, qd)`` → :class:`ContactKinematics` (``qd`` may be None).
    """

    name: str
    kind: str
    bodies: tuple
    restitution: float
    friction: float
    dim: int
    geometry: Callable

    def kinematics(self, q, qd=None) -> ContactKinematics:
        """Gap, point, normal, tangents, rows and velocity-product terms at ``(q, q̇)``."""
        return self.geometry(np.asarray(q, dtype=float), None if qd is None else np.asarray(qd, dtype=float))

    def gap(self, q) -> float:
        """``g(q)`` [m]: > 0 open, 0 touching, < 0 interpenetrating."""
        return self.kinematics(q).gap

    def __repr__(self) -> str:
        return (f"Contact({self.name!r}: {self.kind} of {' and '.join(self.bodies)}, "
                f"e = {self.restitution:g}, μ = {self.friction:g})")


def contact_parameters(name: str, restitution, friction) -> tuple[float, float]:
    """Restitution and friction checked: ``e ∈ [0, 1]`` and ``μ ≥ 0``, finite (else a :class:`ModelError`
    naming the contact)."""
    values = []
    for what, v in (("restitution", restitution), ("friction", friction)):
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating) \
                or not math.isfinite(v):
            raise ModelError(f"contact {name!r}: {what} must be a finite number, got {v!r}")
        values.append(float(v))
    e, mu = values
    if not 0.0 <= e <= 1.0:
        raise ModelError(f"contact {name!r}: restitution must lie in [0, 1] (0 plastic, 1 elastic), got "
                         f"{e:g}; a value above 1 would create energy at every impact")
    if mu < 0.0:
        raise ModelError(f"contact {name!r}: the friction coefficient must be ≥ 0 (0 frictionless), got "
                         f"{mu:g}")
    return e, mu


# ====================================================================== planar geometry
def _perp(v):
    """``v`` turned by +90°: ``(−v_y, v_x)``; ``d/dt (A s') = φ̇ perp(A s')``."""
    return np.array([-v[1], v[0]])


class _PlanarSide:
    """One body of a planar contact: columns ``3k .. 3k+2`` (none for the ground) and a body point ``s'``."""

    def __init__(self, index, point):
        self.k = index
        self.s = np.asarray(point, dtype=float)

    def state(self, q, qd):
        """Point ``r + A s'``, ``A s'``, ``φ̇``, and the point's velocity."""
        if self.k is None:
            return self.s.copy(), np.zeros(2), 0.0, np.zeros(2)
        x, y, phi = q[3 * self.k: 3 * self.k + 3]
        c, sn = math.cos(phi), math.sin(phi)
        As = np.array([c * self.s[0] - sn * self.s[1], sn * self.s[0] + c * self.s[1]])
        if qd is None:
            return np.array([x, y]) + As, As, 0.0, np.zeros(2)
        w = qd[3 * self.k + 2]
        return np.array([x, y]) + As, As, w, qd[3 * self.k: 3 * self.k + 2] + w * _perp(As)

    def add_row(self, row, e, arm, sign=1.0):
        """``row += sign · eᵀ [I, perp(arm)]`` in this body's columns: the velocity of the material point at
        ``r + arm`` along ``e``."""
        if self.k is not None:
            row[3 * self.k: 3 * self.k + 2] += sign * e
            row[3 * self.k + 2] += sign * (e @ _perp(arm))


def _unit2(v, what):
    v = np.asarray(v, dtype=float).reshape(-1)
    if v.shape != (2,) or not np.all(np.isfinite(v)) or np.hypot(*v) == 0:
        raise ModelError(f"{what} must be a non-zero 2-vector, got {v!r}")
    return v / np.hypot(*v)


def planar_point_line(index, point, line_point, normal, radius: float = 0.0):
    """The geometry of a body point (or a circle of ``radius`` about it) against a fixed line.

    ``g = n·(r + A s' − p₀) − R``; the contact point is ``r + A s' − R n``, the tangent ``t = (n_y, −n_x)``
    (so that ``t, n`` turn like ``x, y``).  Rows ``n, t`` times ``[I, perp(arm)]`` with the arm ``A s'``
    (normal) and ``A s' − R n`` (tangent); ``b_n = −φ̇² n·A s'``, ``b_t = −φ̇² t·A s'``.
    """
    side, p0, R = _PlanarSide(index, point), np.asarray(line_point, dtype=float), float(radius)
    nv = _unit2(normal, "normal")
    tv = np.array([nv[1], -nv[0]])

    def geometry(q, qd):
        n = q.size
        p, As, w, _ = side.state(q, qd)
        Wn, Wt = np.zeros(n), np.zeros((1, n))
        side.add_row(Wn, nv, As)
        side.add_row(Wt[0], tv, As - R * nv)
        bn, bt = (-w * w * (nv @ As), np.array([-w * w * (tv @ As)])) if qd is not None \
            else (0.0, np.zeros(1))
        return ContactKinematics(float(nv @ (p - p0) - R), p - R * nv, nv, tv[None, :], Wn, Wt, float(bn), bt)

    return geometry


def planar_circle_line(index, center, radius, line_point, normal):
    """A circle of ``radius`` about a body point against a fixed line (see :func:`planar_point_line`)."""
    return planar_point_line(index, center, line_point, normal, radius)


def planar_circle_circle(index_i, center_i, radius_i, index_j, center_j, radius_j, inside=False):
    """Two circles (centres ``c_i``, ``c_j`` on bodies i and j; None for the ground).

    With ``d = c_j − c_i``, ``L = ‖d‖``, ``e = d / L``: outside contact ``g = L − R_i − R_j`` (normal on
    body j: ``e``); circle j inside circle i (a pin in a hole, ``inside=True``) ``g = R_i − R_j − L``
    (normal ``−e``).
    The tangent is the normal turned by −90°.  The normal turns at ``θ̇ = perp(e)·ḋ / L``, which gives the
    velocity-product terms: ``b_n = ν·d̈₀ + s (perp(e)·ḋ)² / L`` and ``b_t = t·d̈₀ + s' (perp(e)·ḋ)(e·ḋ) / L``
    (``d̈₀ = −φ̇_j² A_j s'_j + φ̇_i² A_i s'_i``; signs s = ±1 for outside / inside).
    """
    si, sj = _PlanarSide(index_i, center_i), _PlanarSide(index_j, center_j)
    Ri, Rj = float(radius_i), float(radius_j)
    sign = -1.0 if inside else 1.0

    def geometry(q, qd):
        n = q.size
        ci, Ai, wi, vi = si.state(q, qd)
        cj, Aj, wj, vj = sj.state(q, qd)
        d = cj - ci
        L = float(np.hypot(*d))
        if L == 0.0:
            if not inside:
                raise MbdError("circle-circle contact: the two centres coincide, so the normal is undefined "
                               "(the circles interpenetrate completely)")
            e = np.array([1.0, 0.0])                         # a centred pin: any direction will do
        else:
            e = d / L
        nu = sign * e                                        # the force on body j pushes along nu
        tv = np.array([nu[1], -nu[0]])
        g = (L - Ri - Rj) if not inside else (Ri - Rj - L)
        p = ci + (Ri * e)                                    # on circle i
        arm_i = Ai + Ri * e                                  # material points at the contact
        arm_j = Aj + (-Rj * e if not inside else Rj * e)
        Wn, Wt = np.zeros(n), np.zeros((1, n))
        sj.add_row(Wn, nu, Aj)
        si.add_row(Wn, nu, Ai, -1.0)
        sj.add_row(Wt[0], tv, arm_j)
        si.add_row(Wt[0], tv, arm_i, -1.0)
        if qd is None:
            return ContactKinematics(float(g), p, nu, tv[None, :], Wn, Wt)
        dd = vj - vi
        dd0 = -wj * wj * Aj + wi * wi * Ai
        rate = (_perp(e) @ dd) / L if L > 0 else 0.0         # θ̇, the turning rate of e
        bn = nu @ dd0 + sign * rate * (_perp(e) @ dd)
        bt = tv @ dd0 + rate * (nu @ dd)                     # ṫ = θ̇ ν for t = ν turned by −90°
        return ContactKinematics(float(g), p, nu, tv[None, :], Wn, Wt, float(bn), np.array([bt]))

    return geometry


# ====================================================================== spatial geometry (Euler parameters)
def _A(p):
    e0, e = p[0], p[1:]
    return (2 * e0 * e0 - 1) * np.eye(3) + 2 * (np.outer(e, e) + e0 * _skew(e))


def _skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _P(p, s):
    """``∂(A(p) s')/∂p`` (3, 4): ``∂/∂e0 = 2 (2 e0 s' + e × s')``, ``∂/∂e = 2 ((eᵀs') I + e s'ᵀ − e0 s̃')``
    (Nikravesh 1988, §6.3)."""
    e0, e = p[0], p[1:]
    out = np.empty((3, 4))
    out[:, 0] = 2 * (2 * e0 * s + np.cross(e, s))
    out[:, 1:] = 2 * ((e @ s) * np.eye(3) + np.outer(e, s) - e0 * _skew(s))
    return out


def _G(p):
    """``G(p) = [−e, ẽ + e0 I]``: ``ω = 2 G ṗ`` (global components)."""
    return np.column_stack([-p[1:], _skew(p[1:]) + p[0] * np.eye(3)])


def plane_tangents(normal):
    """An orthonormal basis ``t1, t2`` of a plane with unit normal n, ``t1 × t2 = n`` (``x, y`` for ``z``)."""
    helper = np.eye(3)[int(np.argmin(np.abs(normal)))]
    t1 = helper - (helper @ normal) * normal
    t1 /= np.linalg.norm(t1)
    return np.array([t1, np.cross(normal, t1)])


def sphere_plane(index, center, radius, plane_point, normal):
    """A sphere of ``radius`` about a body point ``s'`` (body components) against a fixed plane.

    ``g = n·(r + A s' − p₀) − R``; ``W_n = [nᵀ, nᵀ P(p, s')]`` (the gradient); the tangent rows give the
    velocity of the material contact point (arm ``ρ = A s' − R n``): ``t·(ṙ + ω × ρ)``, i.e.
    ``[tᵀ, 2 (ρ × t)ᵀ G(p)]``; ``b_n = nᵀ P(ṗ, s') ṗ`` and ``b_t = t·(ω × (ω × A s'))``.
    """
    k, s, R = int(index), np.asarray(center, dtype=float), float(radius)
    p0, nv = np.asarray(plane_point, dtype=float), np.asarray(normal, dtype=float)
    T = plane_tangents(nv)

    def geometry(q, qd):
        n = q.size
        r, p = q[7 * k: 7 * k + 3], q[7 * k + 3: 7 * k + 7]
        As = _A(p) @ s
        rho = As - R * nv
        Wn, Wt = np.zeros(n), np.zeros((2, n))
        Wn[7 * k: 7 * k + 3] = nv
        Wn[7 * k + 3: 7 * k + 7] = nv @ _P(p, s)
        G2 = 2 * _G(p)
        for a in range(2):
            Wt[a, 7 * k: 7 * k + 3] = T[a]
            Wt[a, 7 * k + 3: 7 * k + 7] = np.cross(rho, T[a]) @ G2
        gap, point = float(nv @ (r + As - p0) - R), r + rho
        if qd is None:
            return ContactKinematics(gap, point, nv, T, Wn, Wt, 0.0, np.zeros(2))
        pd = qd[7 * k + 3: 7 * k + 7]
        w = G2 @ pd
        bn = float(nv @ (_P(pd, s) @ pd))
        bt = T @ np.cross(w, np.cross(w, As))
        return ContactKinematics(gap, point, nv, T, Wn, Wt, bn, bt)

    return geometry


# ====================================================================== impulse through the mass matrix
def delassus(system, q, H, t: float = 0.0):
    """``N Hᵀ`` and ``W = H N Hᵀ`` for rows H (r, n): how impulses along Hᵀ change q̇ and H q̇ when the
    bilateral constraints ``J = [Φ_q; B]`` hold (``J q̇`` unchanged).

    ``N = M⁻¹ − M⁻¹ Jᵀ S⁻¹ J M⁻¹`` with ``S = J M⁻¹ Jᵀ``: the KKT system
    ``[[M, Jᵀ], [J, 0]] [Δq̇; Λ] = [Hᵀ P; 0]`` solved by the range-space method.

    >>> from mbdlib.dae import cartesian_pendulum
    >>> NHt, W = delassus(cartesian_pendulum(angle=0.0), [0.0, -1.0], np.array([[1.0, 0.0]]))
    >>> W.tolist()          # a horizontal impulse on the hanging bob: the rod does not resist it
    [[1.0]]
    """
    system = as_system(system, "delassus")
    q = system.state(q)
    H = np.atleast_2d(np.asarray(H, dtype=float))
    try:
        Mc = _cho(system.M(q))
    except np.linalg.LinAlgError:
        raise ModelError("the mass matrix M(q) is not positive definite: check that every body has a "
                         "positive mass and inertia") from None
    MiHt = _cho_solve(Mc, H.T)
    J = np.vstack([system.phi_q(q, t), system.B(q, t)])
    if J.shape[0]:
        MiJt = _cho_solve(Mc, J.T)
        L = schur_cholesky(J @ MiJt)
        if L is None:
            raise MbdError(f"{system.name}: the bilateral constraints are redundant or singular at this pose "
                           "(J M⁻¹ Jᵀ is singular), so the impulse through them is not unique; remove the "
                           "redundant joints (model.dof_report() names them)")
        MiHt = MiHt - MiJt @ _cho_solve((L, True), J @ MiHt)
    return MiHt, H @ MiHt


@dataclass(frozen=True)
class Impact:
    """One impact: the velocity jump at time ``t`` of the contacts that took part.

    Attributes
    ----------
    t : float
    contacts : tuple of str
        The contacts of the impact problem (closed and not separating).
    normal, tangent : ndarray, shape (k,) and (k, dim)
        Impulses P_n ≥ 0 and P_t [N s].
    u_minus, u_plus : ndarray, shape (k,)
        Normal relative velocities before and after.
    energy_change : float
        ``½ q̇⁺ᵀ M q̇⁺ − ½ q̇⁻ᵀ M q̇⁻`` [J] (≤ 0 for a dissipative law).
    law : str
    qd_plus, qd_minus : ndarray, shape (n,)
        The velocities after and before.
    """

    t: float
    contacts: tuple
    normal: np.ndarray
    tangent: np.ndarray
    u_minus: np.ndarray
    u_plus: np.ndarray
    energy_change: float
    law: str
    qd_plus: np.ndarray = field(repr=False, default=None)
    qd_minus: np.ndarray = field(repr=False, default=None)


def impact(system, q, qd, t: float = 0.0, contacts=None, law: str = "newton", method: str = "lemke",
           gap_tol: float = 1e-8) -> Impact:
    """The velocity jump of an impact through the mass matrix and the bilateral joints.

    Parameters
    ----------
    system : ConstrainedSystem
        With contacts (``model.system()`` of a model with ``add_point_line`` ... ).
    q, qd : array_like, shape (n,)
        Positions at the impact and velocities just before.
    contacts : sequence of str, optional
        The contacts that take part (default: every contact with ``g ≤ gap_tol`` that is not separating).
    law : {"newton", "poisson"}
        Newton: ``0 ≤ P_n ⊥ u_n⁺ + e u_n⁻ ≥ 0`` with Coulomb friction on ``u_t⁺`` (one problem; a contact
        given that separates, ``u_n⁻ > 0``, only keeps ``u_n⁺ ≥ 0``).  Without friction, for contacts that
        approach or rest (the default choice), the kinetic energy changes by ``½ Σ P_n (1 − e) u_n⁻ ≤ 0``.
        Poisson: compression ``0 ≤ P_c ⊥ u_n ≥ 0`` (with friction), then expansion ``P_n = e P_c + x``,
        ``0 ≤ x ⊥ u_n⁺ ≥ 0`` (Pfeiffer & Glocker 1996, §7.2).
    method : {"lemke", "pgs"}
        The solver of each complementarity problem.

    Returns
    -------
    Impact

    Examples
    --------
    A point mass falling at 2 m/s on a floor, e = 0.5:

    >>> from mbdlib import PlanarModel
    >>> m = PlanarModel(gravity=(0.0, -9.81))
    >>> ball = m.add_body("ball", mass=1.0, inertia=0.1, velocity=(0.0, -2.0))
    >>> floor = m.add_point_line(ball, restitution=0.5, friction=0.0, name="floor")
    >>> s = m.system()
    >>> hit = impact(s, s.q0, s.qd0)
    >>> hit.normal.round(12).tolist(), hit.u_plus.round(12).tolist(), round(hit.energy_change, 12)
    ([3.0], [1.0], -1.5)
    """
    system = as_system(system, "impact")
    if not system.contacts:
        raise MbdError(f"impact: {system.name} has no contacts; declare them on the model (add_point_line, "
                       "...)")
    q, qd = system.state(q), system.state(qd, "qd")
    if law not in ("newton", "poisson"):
        raise MbdError(f"impact: law must be 'newton' or 'poisson', got {law!r}")
    by_name = {c.name: c for c in system.contacts}
    if contacts is None:
        chosen = []
        for c in system.contacts:
            k = c.kinematics(q)
            if k.gap <= gap_tol and k.Wn @ qd <= gap_tol:
                chosen.append(c)
    else:
        unknown = [x for x in contacts if x not in by_name]
        if unknown:
            raise MbdError(f"impact: unknown contacts {unknown}; the system's contacts are {list(by_name)}")
        chosen = [by_name[x] for x in contacts]
    return _impact(system, q, qd, t, chosen, law, method)


def _impact(system, q, qd, t, chosen, law, method):
    M = system.M(q)
    T0 = 0.5 * qd @ M @ qd
    if not chosen:
        return Impact(t, (), np.zeros(0), np.zeros((0, 1)), np.zeros(0), np.zeros(0), 0.0, law, qd.copy(),
                      qd.copy())
    kins = [c.kinematics(q) for c in chosen]
    dim = chosen[0].dim
    mu = np.array([c.friction for c in chosen])
    e = np.array([c.restitution for c in chosen])
    fr = mu > 0
    Hn = np.vstack([k.Wn for k in kins])
    Ht = np.vstack([k.Wt for k, f in zip(kins, fr, strict=True) if f]) if fr.any() \
        else np.zeros((0, system.n))
    H = np.vstack([Hn, Ht])
    NHt, W = delassus(system, q, H, t)
    u = H @ qd
    kc = len(chosen)
    if law == "newton":                  # restitution of approach only: a separating contact keeps u⁺ ≥ 0
        b = u.copy()
        b[:kc] += e * np.minimum(u[:kc], 0.0)
        sol = solve_contact(W, b, mu, fr, dim, method=method)
        P = np.concatenate([sol.normal, sol.tangent[fr].ravel()])
    else:
        comp = solve_contact(W, u, mu, fr, dim, method=method)
        Pc = np.concatenate([comp.normal, comp.tangent[fr].ravel()])
        uc = u + W @ Pc
        exp = solve_contact(W, uc, mu, fr, dim, offset=e * comp.normal, method=method)
        P = Pc + np.concatenate([exp.normal, exp.tangent[fr].ravel()])
    qd_plus = qd + NHt @ P
    u_plus = Hn @ qd_plus
    tangent = np.zeros((kc, dim))
    tangent[fr] = P[kc:].reshape(-1, dim)
    dT = 0.5 * qd_plus @ M @ qd_plus - T0
    return Impact(float(t), tuple(c.name for c in chosen), P[:kc].copy(), tangent, u[:kc].copy(), u_plus,
                  float(dT), law, qd_plus, qd.copy())


# ====================================================================== the penalty model
def hunt_crossley(system, stiffness: float, exponent: float = 1.5, damping: float = 0.0,
                  friction_speed: float = 1e-3) -> ConstrainedSystem:
    """The system with its contacts replaced by Hunt–Crossley force elements (a penalty model).

    Each contact with penetration ``δ = −g > 0`` pushes with ``F_n = k δ^p (1 + (3/2) α δ̇)`` (≥ 0: it never
    pulls), Hunt & Crossley (1975); ``p = 3/2`` is Hertz's law for spheres, ``α`` [s/m] their damping,
    related to a restitution coefficient by ``e ≈ 1 − α v⁻`` for an impact speed ``v⁻``.  Friction is
    Coulomb's smoothed over ``friction_speed`` v_s: ``F_t = −μ F_n u_t / √(‖u_t‖² + v_s²)``.  The generalized
    force is ``W_nᵀ F_n + W_tᵀ F_t``; the energy adds the elastic part ``k δ^{p+1} / (p + 1)``.

    Returns a new :class:`ConstrainedSystem` without contacts, for :class:`~mbdlib.schemes.ODE` (or
    Projection, with joints); stiff: use ``ODE(solver="Radau")`` or small tolerances.
    """
    system = as_system(system, "hunt_crossley")
    for what, v in (("stiffness", stiffness), ("friction_speed", friction_speed)):
        if not (isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v > 0):
            raise ModelError(f"hunt_crossley: {what} must be a positive number, got {v!r}")
    if not (isinstance(exponent, int | float) and exponent >= 1):
        raise ModelError(f"hunt_crossley: exponent must be ≥ 1 (1 linear, 1.5 Hertz), got {exponent!r}")
    if not (isinstance(damping, int | float) and damping >= 0):
        raise ModelError(f"hunt_crossley: damping α must be ≥ 0 [s/m], got {damping!r}")
    if not system.contacts:
        raise MbdError(f"hunt_crossley: {system.name} has no contacts to replace")
    contacts, k, p = system.contacts, float(stiffness), float(exponent)
    a, vs = float(damping), float(friction_speed)
    Q0, E0 = system.Q, system.energy

    def Q(t, q, qd):
        out = np.array(Q0(t, q, qd), dtype=float)
        for c in contacts:
            kin = c.kinematics(q, qd)
            Fn, Ft = hunt_crossley_force(c, kin, qd, k, p, a, vs)
            if Fn > 0.0:
                out += kin.Wn * Fn + kin.Wt.T @ Ft
        return out

    def energy(q, qd):
        V = sum(k * max(-c.gap(q), 0.0) ** (p + 1) / (p + 1) for c in contacts)
        return (E0(q, qd) if E0 is not None else 0.5 * qd @ system.M(q) @ qd) + V

    return ConstrainedSystem(
        n=system.n, M=system.M, Q=Q, phi=system.phi, phi_q=system.phi_q, phi_t=system.phi_t,
        gamma=system.gamma, B=system.B, b_gamma=system.b_gamma, energy=energy, q0=system.q0, qd0=system.qd0,
        t0=system.t0,
        labels=system.labels, coordinate_names=system.coordinate_names, structure=system.structure,
        inputs=system.inputs, name=f"{system.name} with Hunt–Crossley contacts (k = {k:g}, p = {p:g})")


def hunt_crossley_force(contact, kin, qd, stiffness, exponent, damping, friction_speed):
    """``F_n`` and ``F_t`` (dim,) of one contact in the penalty model (see :func:`hunt_crossley`)."""
    delta = -kin.gap
    if delta <= 0.0:
        return 0.0, np.zeros(contact.dim)
    rate = -(kin.Wn @ qd)
    with np.errstate(over="ignore", invalid="ignore"):       # a trial step far inside: inf, rejected
        Fn = max(stiffness * float(np.power(delta, exponent)) * (1.0 + 1.5 * damping * rate), 0.0)
    ut = kin.Wt @ qd
    Ft = -contact.friction * Fn * ut / math.sqrt(ut @ ut + friction_speed**2)
    return Fn, Ft
