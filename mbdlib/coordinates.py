"""Generalized coordinates: one mechanism in relative, Cartesian or mixed coordinates.

Document 001 (§4, §6) of the course: "no coordinate choice is best in general".  A planar
mechanism can be described by

* **Cartesian (absolute) coordinates**, ``(x, y, φ)`` of every body: :class:`mbdlib.PlanarModel`;
  many coordinates, many simple constraints, a constant diagonal mass matrix;
* **relative (joint) coordinates** of a spanning tree of its joints (joint angles, slider
  displacements): :class:`RelativeModel`; an open chain needs no constraint at all, a closed
  loop keeps the equations of its *cut* joints, ``Φ(θ) = 0``; few coordinates, dense ``M(θ)``;
* **mixed coordinates**: some bodies absolute (a ``"free"`` tree joint: ``x, y, φ`` relative to
  the parent, the ground for an absolute body), others relative; also :class:`RelativeModel`.

:class:`RelativeModel` follows the SYSTEM PROTOCOL of :mod:`mbdlib.dae` (so ``dae.simulate``
integrates it) through the *velocity transformation* (Jerkovsky 1978; García de Jalón & Bayo
1994): the body poses ``x = (x_i, y_i, φ_i)`` are functions of ``θ``, ``ẋ = J(θ) θ̇`` and
``ẍ = J θ̈ + c`` with ``c = J̇ θ̇``; Newton-Euler ``M_x ẍ = Q_x + (joint forces)`` premultiplied by
``Jᵀ`` (the tree joints do no virtual work) gives

    M(θ) = Jᵀ M_x J,      Q(θ, θ̇) = Jᵀ (Q_x − M_x c),

and a cut joint with Cartesian equations ``Φ(x) = 0`` (from :mod:`mbdlib.constraints`) has
``Φ_θ = Φ_x J`` and ``γ_θ = γ_x − Φ_x c`` (from ``Φ_x ẍ = γ_x``).

:func:`convert` moves positions and velocities between any two descriptions of the same
mechanism through the body poses; :func:`mechanism` builds the chapter's mechanisms (double
pendulum, slider-crank, four-bar; the spatial 6R arm) in each coordinate set.

>>> m = mechanism("fourbar", coordinates="relative")
>>> m.n, len(m.phi(m.q0)), m.coordinate_names
(3, 2, ['θ_crank', 'θ_coupler', 'θ_rocker'])
>>> c = mechanism("fourbar", coordinates="cartesian")
>>> q, qd = convert(m.q0, m.qd0, m, c)
>>> bool(abs(q[2] - m.q0[0]) < 1e-12)          # the crank's absolute angle is its joint angle
True

References: W. Jerkovsky, "The structure of multibody dynamics equations", J. Guidance and
Control 1(3), 1978.  J. García de Jalón, E. Bayo, *Kinematic and Dynamic Simulation of
Multibody Systems*, 1994.  P. E. Nikravesh, *Computer-Aided Analysis of Mechanical Systems*, 1988.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from . import _validate
from .constraints import Revolute, Translational, newton_solve
from .errors import ModelError, ShapeError

__all__ = ["RelativeModel", "TreeJoint", "body_states", "convert", "mechanism", "n_fourbar_exact",
           "n_fourbar_tip",
           "MECHANISMS", "COORDINATE_SETS"]

KINDS = ("revolute", "prismatic", "free")
_R90 = np.array([[0.0, -1.0], [1.0, 0.0]])          # turns a vector by +90°


def _A(phi):
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s], [s, c]])


def _xy(x, name):
    return _validate.vector(x, 2, name, " (x, y)")


def _positive(x, name):
    return _validate.number(x, name, positive=True)


@dataclass
class TreeJoint:
    """The joint that attaches a body to its parent in the spanning tree.

    ``kind`` "revolute": coordinate ``θ = φ − φ_p``, ``point_parent`` (parent frame) coincides with
    ``point_child``; "prismatic": coordinate ``d``, ``point_child`` slides on the parent's line through
    ``point_parent`` along the unit ``axis``, with ``φ − φ_p = angle``; "free": coordinates ``(x, y, ψ)``,
    the child's centre of mass and angle in the parent frame (absolute coordinates for the ground).
    """

    kind: str
    parent: int                      # -1: the ground
    point_parent: np.ndarray
    point_child: np.ndarray
    axis: np.ndarray
    angle: float
    start: int                       # index of its first coordinate in q

    @property
    def size(self) -> int:
        return 3 if self.kind == "free" else 1


class RelativeModel:
    """A planar mechanism in relative (joint) or mixed coordinates; follows the SYSTEM PROTOCOL.

    Bodies are added parent first, each with the tree joint to its parent; joints that close
    loops are added as *cut joints*.  Body frames have their origin at the centre of mass, as
    in :class:`mbdlib.PlanarModel`, so both describe the same bodies and :func:`convert` maps one
    onto the other.

    Parameters
    ----------
    gravity : array_like, shape (2,)
        Gravitational acceleration [m/s²], explicit.

    Examples
    --------
    A pendulum (a 2 m uniform rod pinned at one end), hanging, at rest:

    >>> m = RelativeModel(gravity=(0.0, -9.81))
    >>> _ = m.add_body("rod", 3.0, 1.0, parent="ground", joint="revolute",
    ...                point_child=(-1.0, 0.0), q=-np.pi / 2)
    >>> m.M(m.q0)                                  # I + m (L/2)² = 1 + 3
    array([[4.]])
    >>> m.pose("rod", m.q0).round(12) + 0.0
    array([ 0.     , -1.     , -1.5708])
    """

    def __init__(self, gravity=(0.0, -9.81)):
        self.gravity = _xy(gravity, "gravity")
        self.names: list[str] = []
        self.masses: list[float] = []
        self.inertias: list[float] = []
        self.tree: list[TreeJoint] = []
        self.cuts: list = []                          # constraints.Joint objects on (x, y, φ) of bodies
        self._cut_index: list[list[int]] = []          # per cut joint: body indices (-1: ground)
        self.coordinate_names: list[str] = []
        self._q_guess: list[float] = []
        self._qd_guess: list[float] = []
        self._assembled = None
        self._cache = None

    # ------------------------------------------------------------------ building
    @property
    def n(self) -> int:
        """Number of coordinates."""
        return len(self.coordinate_names)

    def _body(self, b) -> int:
        if b == "ground":
            return -1
        if b in self.names:
            return self.names.index(b)
        raise ModelError(f"unknown body {b!r}; the bodies are: " + ", ".join(["ground"] + self.names))

    def add_body(self, name, mass, inertia, parent="ground", joint="revolute", point_parent=(0.0, 0.0),
                 point_child=(0.0, 0.0), axis=(1.0, 0.0), angle=0.0, q=None, qd=None) -> TreeJoint:
        """Add a body and its tree joint to ``parent`` (a body added before, or ``"ground"``).

        ``q``, ``qd``: initial guess of the joint coordinate(s) and rate(s) (a number, or 3 numbers
        for ``joint="free"``); made consistent with the cut joints by :meth:`assemble`.
        """
        name = str(name)
        if name == "ground" or name in self.names:
            raise ModelError(f"a body named {name!r} already exists (or is the reserved 'ground')")
        if joint not in KINDS:
            raise ModelError(f"body {name!r}: joint must be one of {KINDS}, got {joint!r}")
        axis = _xy(axis, f"body {name!r}: axis")
        if np.linalg.norm(axis) == 0:
            raise ModelError(f"body {name!r}: the prismatic axis is zero; give a direction such as (1, 0)")
        tj = TreeJoint(joint, self._body(parent), _xy(point_parent, f"body {name!r}: point_parent"),
                       _xy(point_child, f"body {name!r}: point_child"), axis / np.linalg.norm(axis),
                       float(angle), self.n)
        size = tj.size
        q = np.zeros(size) if q is None else np.atleast_1d(np.asarray(q, dtype=float))
        qd = np.zeros(size) if qd is None else np.atleast_1d(np.asarray(qd, dtype=float))
        if q.shape != (size,) or qd.shape != (size,):
            raise ShapeError(f"body {name!r}: a {joint} joint has {size} coordinate(s); q and qd must have "
                             f"{size} value(s), got {q.shape} and {qd.shape}")
        mass, inertia = _positive(mass, f"body {name!r}: mass"), _positive(inertia, f"body {name!r}: inertia")
        self.names.append(name)
        self.masses.append(mass)
        self.inertias.append(inertia)
        self.tree.append(tj)
        self.coordinate_names += {"revolute": [f"θ_{name}"], "prismatic": [f"d_{name}"],
                                  "free": [f"x_{name}", f"y_{name}", f"φ_{name}"]}[joint]
        self._q_guess += list(q)
        self._qd_guess += list(qd)
        self._assembled = self._cache = None
        return tj

    def _add_cut(self, joint, bodies):
        idx = [self._body(b) for b in bodies]
        if idx[0] == idx[1]:
            raise ModelError(f"cut joint {joint.name!r}: needs two different bodies, got {bodies[0]!r} twice")
        self.cuts.append(joint)
        self._cut_index.append(idx)
        self._assembled = None
        return joint

    def add_cut_revolute(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), name=None):
        """Cut revolute joint closing a loop: ``r_i + A_i s'_i − r_j − A_j s'_j = 0`` (2 equations)."""
        name = name or f"cut{len(self.cuts) + 1} {body_i}-{body_j}"
        return self._add_cut(Revolute(name, (str(body_i), str(body_j)), point_i, point_j), (body_i, body_j))

    def add_cut_translational(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), axis_i=(1.0, 0.0),
                              angle=0.0, name=None):
        """Cut translational joint: ``P_j`` on the line of body i, ``φ_j − φ_i = angle`` (2 equations)."""
        name = name or f"cut{len(self.cuts) + 1} {body_i}-{body_j}"
        joint = Translational(name, (str(body_i), str(body_j)), point_i, point_j, axis_i, float(angle))
        return self._add_cut(joint, (body_i, body_j))

    # ------------------------------------------------------------------ tree kinematics
    def _check(self, x, name):
        a = np.asarray(x, dtype=float)
        if a.shape != (self.n,):
            raise ShapeError(f"{name} must have shape ({self.n},) (one value per coordinate "
                             f"{self.coordinate_names}), got {a.shape}")
        return a

    def kinematics(self, q, qd=None):
        """Body poses, their Jacobian and the velocity-product accelerations, by one outward pass.

        Parameters
        ----------
        q : array_like, shape (n,)
        qd : array_like, shape (n,), optional (default zero)

        Returns
        -------
        x : ndarray, shape (3 nb,)
            ``(x_i, y_i, φ_i)`` of each body (centre of mass and angle).
        J : ndarray, shape (3 nb, n)
            ``ẋ = J q̇``.
        c : ndarray, shape (3 nb,)
            ``J̇ q̇``: the body accelerations when ``q̈ = 0``.

        Notes
        -----
        With ``B = ∂A/∂φ`` (``B s = R₉₀ A s``), for body i with parent p (Nikravesh 1988, §4.3):

        * revolute:  ``φ = φ_p + θ``,  ``r = r_p + A_p s_p − A s_c``,
          ``c_r = c_rp − A_p s_p φ̇_p² + A s_c φ̇²``;
        * prismatic: ``φ = φ_p + α``,  ``r = r_p + A_p (s_p + d u) − A s_c``,
          adds ``A_p u ḋ`` to the velocity and ``2 B_p u ḋ φ̇_p`` to ``c_r``;
        * free: ``φ = φ_p + ψ``,  ``r = r_p + A_p ρ``,  ``c_r = c_rp − A_p ρ φ̇_p² + 2 B_p ρ̇ φ̇_p``.

        The angles are sums of coordinates (linear in q), so ``c_φ = 0`` and the terms in ``c_φp``
        drop out.
        """
        q = self._check(q, "q")
        if qd is None:                                # at rest: c = 0 (c is quadratic in the rates)
            if self._cache is not None and self._cache[0][0] == q.tobytes():
                return self._cache[1][0], self._cache[1][1], np.zeros(len(self._cache[1][2]))
            qd = np.zeros(self.n)
        qd = self._check(qd, "qd")
        key = (q.tobytes(), qd.tobytes())             # M, Q, Φ_q, γ at one state: one pass
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        nb = len(self.tree)
        x, J, c = np.zeros(3 * nb), np.zeros((3 * nb, self.n)), np.zeros(3 * nb)
        ground = (np.zeros(2), 0.0, np.zeros((2, self.n)), np.zeros(self.n), np.zeros(2))
        for i, tj in enumerate(self.tree):
            if tj.parent == -1:
                r_p, phi_p, Jr_p, Jphi_p, cr_p = ground
            else:
                k = 3 * tj.parent
                r_p, phi_p, Jr_p, Jphi_p, cr_p = x[k:k + 2], x[k + 2], J[k:k + 2], J[k + 2], c[k:k + 2]
            w_p = Jphi_p @ qd                                 # φ̇_p
            A_p, k0 = _A(phi_p), tj.start
            e = np.zeros(self.n)
            if tj.kind == "free":
                rho, rho_d = q[k0:k0 + 2], qd[k0:k0 + 2]
                phi = phi_p + q[k0 + 2]
                e[k0 + 2] = 1.0
                Jphi = Jphi_p + e
                As = A_p @ rho                                # A_p ρ
                r = r_p + As
                Jr = Jr_p + np.outer(_R90 @ As, Jphi_p)
                Jr[:, k0:k0 + 2] += A_p
                cr = cr_p - As * w_p**2 + 2.0 * _R90 @ A_p @ rho_d * w_p
            else:
                if tj.kind == "revolute":
                    phi = phi_p + q[k0]
                    e[k0] = 1.0
                    w = tj.point_parent
                else:
                    phi = phi_p + tj.angle
                    w = tj.point_parent + q[k0] * tj.axis
                Jphi = Jphi_p + e
                Aw, As_c = A_p @ w, _A(phi) @ tj.point_child
                r = r_p + Aw - As_c
                Jr = Jr_p + np.outer(_R90 @ Aw, Jphi_p) - np.outer(_R90 @ As_c, Jphi)
                w_i = Jphi @ qd                               # φ̇ of this body
                cr = cr_p - Aw * w_p**2 + As_c * w_i**2
                if tj.kind == "prismatic":
                    Au = A_p @ tj.axis
                    Jr[:, k0] += Au
                    cr = cr + 2.0 * _R90 @ Au * qd[k0] * w_p
            k = 3 * i
            x[k:k + 2], x[k + 2], J[k:k + 2], J[k + 2] = r, phi, Jr, Jphi
            c[k:k + 2] = cr                                   # c[k + 2] = c_φ = 0
        for a in (x, J, c):
            a.flags.writeable = False
        self._cache = (key, (x, J, c))
        return x, J, c

    def pose(self, body, q) -> np.ndarray:
        """``(x, y, φ)`` of a body's centre of mass and angle, shape ``(3,)``."""
        k = 3 * self._body(body)
        if k < 0:
            return np.zeros(3)
        return self.kinematics(q)[0][k:k + 3]

    def from_body_states(self, states) -> tuple[np.ndarray, np.ndarray]:
        """Joint coordinates and rates from body poses and velocities (inverse of :meth:`kinematics`).

        ``states`` maps each body name to ``(pose (3,), velocity (3,))``.  Positions joint by joint:
        revolute ``θ = φ − φ_p``; prismatic ``d = uᵀ (A_pᵀ (r + A s_c − r_p) − s_p)``; free
        ``ρ = A_pᵀ (r − r_p)``, ``ψ = φ − φ_p``.  Rates: ``q̇`` solving ``J q̇ = ẋ`` (least squares;
        exact when the velocities respect the tree joints).
        """
        missing = [b for b in self.names if b not in states]
        if missing:
            raise ModelError(f"from_body_states: no pose given for bodies {missing}; both descriptions must "
                             "name the same bodies")
        q = np.zeros(self.n)
        for name, tj in zip(self.names, self.tree, strict=True):
            pose = np.asarray(states[name][0], dtype=float)
            pp = np.zeros(3) if tj.parent == -1 else np.asarray(states[self.names[tj.parent]][0], dtype=float)
            A_p, k0 = _A(pp[2]), tj.start
            if tj.kind == "revolute":
                q[k0] = pose[2] - pp[2]
            elif tj.kind == "prismatic":
                r_point = pose[:2] + _A(pose[2]) @ tj.point_child            # r + A s_c
                q[k0] = tj.axis @ (A_p.T @ (r_point - pp[:2]) - tj.point_parent)
            else:
                q[k0:k0 + 2] = A_p.T @ (pose[:2] - pp[:2])
                q[k0 + 2] = pose[2] - pp[2]
        xd = np.concatenate([np.asarray(states[b][1], dtype=float) for b in self.names])
        J = self.kinematics(q)[1]
        return q, np.linalg.lstsq(J, xd, rcond=None)[0]

    # ------------------------------------------------------------------ the system protocol
    def _local(self, k, x):
        return np.concatenate([np.zeros(3) if b < 0 else x[3 * b:3 * b + 3] for b in self._cut_index[k]])

    def _local_rows(self, k, M):
        return np.vstack([np.zeros((3, M.shape[1])) if b < 0 else M[3 * b:3 * b + 3]
                          for b in self._cut_index[k]])

    @property
    def labels(self) -> list[str]:
        """One label per constraint row (the cut joints' equations)."""
        return [lab for j in self.cuts for lab in j.labels]

    def _Mx(self):
        """Diagonal of the Cartesian mass matrix ``diag(m_1, m_1, J_1, ...)``, shape ``(3 nb,)``."""
        return np.array([[m, m, j] for m, j in zip(self.masses, self.inertias, strict=True)]).ravel()

    def M(self, q) -> np.ndarray:
        """``M(θ) = Jᵀ M_x J``, shape ``(n, n)``, symmetric positive definite, dense in general."""
        J = self.kinematics(q)[1]
        M = J.T @ (self._Mx()[:, None] * J)
        # Jᵀ M_x J is symmetric in exact arithmetic; a BLAS kernel may differ in the last bit between
        # M[i, j] and M[j, i]. Averaging with the transpose makes it symmetric on every machine.
        return (M + M.T) / 2

    def Q(self, t, q, qd) -> np.ndarray:
        """``Q = Jᵀ (Q_x − M_x J̇ q̇)``: gravity and the velocity-product forces, shape ``(n,)``."""
        _, J, c = self.kinematics(q, qd)
        Qx = np.concatenate([[m * self.gravity[0], m * self.gravity[1], 0.0] for m in self.masses] or [[]])
        return J.T @ (Qx - self._Mx() * c)

    def phi(self, q, t=0.0) -> np.ndarray:
        """Cut-joint equations ``Φ(θ)``, shape ``(m,)``."""
        x = self.kinematics(q)[0]
        return np.concatenate([[]] + [j.phi(self._local(k, x), t) for k, j in enumerate(self.cuts)])

    def phi_q(self, q, t=0.0) -> np.ndarray:
        """``Φ_θ = Φ_x J``, shape ``(m, n)``."""
        x, J, _ = self.kinematics(q)
        return np.vstack([np.zeros((0, self.n))] + [j.jacobian(self._local(k, x), t) @ self._local_rows(k, J)
                                                    for k, j in enumerate(self.cuts)])

    def phi_t(self, q, t=0.0) -> np.ndarray:
        """``Φ_t``, shape ``(m,)`` (zero: no drivers)."""
        return np.zeros(len(self.labels))

    def gamma(self, q, qd, t=0.0) -> np.ndarray:
        """``γ_θ = γ_x − Φ_x J̇ θ̇`` of ``Φ_θ θ̈ = γ_θ``, shape ``(m,)``."""
        x, J, c = self.kinematics(q, qd)
        xd = J @ self._check(qd, "qd")
        rows = [[]]
        for k, j in enumerate(self.cuts):
            xl, xdl, cl = self._local(k, x), self._local(k, xd), self._local(k, c)
            rows.append(j.gamma(xl, xdl, t) - j.jacobian(xl, t) @ cl)
        return np.concatenate(rows)

    def B(self, q, t=0.0) -> np.ndarray:
        """No nonholonomic rows: shape ``(0, n)``."""
        return np.zeros((0, self.n))

    def b_gamma(self, q, qd, t=0.0) -> np.ndarray:
        return np.zeros(0)

    def energy(self, q, qd) -> float:
        """``½ q̇ᵀ M q̇ − Σ m_i g·r_i`` [J]."""
        x = self.kinematics(q)[0]
        qd = self._check(qd, "qd")
        V = -sum(m * self.gravity @ x[3 * i:3 * i + 2] for i, m in enumerate(self.masses))
        return float(0.5 * qd @ self.M(q) @ qd + V)

    # ------------------------------------------------------------------ assembly and simulation
    def assemble(self, tol: float = 1e-10, max_iter: int = 50):
        """Close the loops from the guess (least-squares Newton), then project the rates.

        Rates: least mass-weighted change, ``q̇ = q̇_g + M⁻¹ Φ_qᵀ μ``, ``Φ_q M⁻¹ Φ_qᵀ μ = −Φ_q q̇_g``.
        Returns ``(q0, qd0)``.
        """
        q, it, res, ok = newton_solve(self.phi, self.phi_q, np.array(self._q_guess), tol, max_iter)
        if not ok:
            x = self.kinematics(q)[0]
            gap, worst = max(((j.gap(self._local(k, x)), j) for k, j in enumerate(self.cuts)),
                             key=lambda g: g[0])
            raise ModelError(f"cannot assemble: cut joint {worst.name!r} cannot close (gap {gap:.3g} after "
                             f"{it} Newton iterations); check the lengths or start from a closer guess")
        qd = np.array(self._qd_guess)
        C = self.phi_q(q)
        if C.shape[0]:
            MiCt = np.linalg.solve(self.M(q), C.T)
            qd = qd - MiCt @ np.linalg.solve(C @ MiCt, C @ qd)
        self._assembled = (q, qd)
        return q, qd

    @property
    def q0(self) -> np.ndarray:
        """Assembled initial coordinates, shape ``(n,)``."""
        return (self._assembled or self.assemble())[0]

    @property
    def qd0(self) -> np.ndarray:
        """Consistent initial rates, shape ``(n,)``."""
        return (self._assembled or self.assemble())[1]

    def set_initial(self, q, qd=None):
        """Replace the initial guess of the coordinates (and rates); :meth:`assemble` runs on next use."""
        self._q_guess = list(self._check(q, "q"))
        self._qd_guess = list(np.zeros(self.n) if qd is None else self._check(qd, "qd"))
        self._assembled = None

    def simulate(self, t_end, method="projection", rtol=1e-9, atol=1e-9, t_eval=None, **options):
        """Integrate with :func:`mbdlib.dae.simulate` from ``(q0, qd0)``."""
        from . import dae

        return dae.simulate(self, t_end, method=method, rtol=rtol, atol=atol, t_eval=t_eval, **options)


# ====================================================================== joint-space chains as systems
class ChainSystem:
    """An open chain (:class:`mbdlib.Chain`) in joint coordinates, with the SYSTEM PROTOCOL.

    No constraints: ``M(q)`` by :func:`mbdlib.mass_matrix`, ``Q = −h(q, q̇)`` by
    :func:`mbdlib.bias_forces` (no joint torques).

    >>> from mbdlib import Chain
    >>> s = ChainSystem(Chain.planar([1.0]), gravity=(0, -9.81, 0), q0=[0.0])
    >>> s.Q(0.0, s.q0, s.qd0)                   # gravity torque −m g L/2
    array([-4.905])
    """

    def __init__(self, chain, gravity=(0.0, 0.0, -9.81), q0=None, qd0=None):
        self.chain, self.gravity, self.n = chain, np.asarray(gravity, dtype=float), chain.n
        self.q0 = np.zeros(self.n) if q0 is None else np.asarray(q0, dtype=float)
        self.qd0 = np.zeros(self.n) if qd0 is None else np.asarray(qd0, dtype=float)
        self.labels: list[str] = []
        self.coordinate_names = list(chain.joint_names)

    def M(self, q):
        from .dynamics import mass_matrix

        return np.asarray(mass_matrix(self.chain, q), dtype=float)

    def Q(self, t, q, qd):
        from .dynamics import bias_forces

        return -np.asarray(bias_forces(self.chain, q, qd, self.gravity), dtype=float)

    def phi(self, q, t=0.0):
        return np.zeros(0)

    def phi_q(self, q, t=0.0):
        return np.zeros((0, self.n))

    def phi_t(self, q, t=0.0):
        return np.zeros(0)

    def gamma(self, q, qd, t=0.0):
        return np.zeros(0)

    B = phi_q
    b_gamma = gamma

    def energy(self, q, qd):
        from .dynamics import energy

        return float(sum(energy(self.chain, q, qd, self.gravity)))


# ====================================================================== conversions
def body_states(model, q, qd=None) -> dict:
    """Pose ``(x, y, φ)`` and velocity of every body of a planar model: ``{name: (pose, velocity)}``.

    Works for :class:`mbdlib.PlanarModel` (the coordinates themselves) and :class:`RelativeModel`
    (``x(q)``, ``ẋ = J q̇``); shapes ``(3,)``.

    >>> m = mechanism("double_pendulum", coordinates="relative", phi1=0.0, phi2=0.0)
    >>> body_states(m, m.q0)["link2"][0]
    array([1.5, 0. , 0. ])
    """
    from .planar import PlanarModel

    if isinstance(model, PlanarModel):
        q = np.asarray(q, dtype=float)
        qd = np.zeros(model.n) if qd is None else np.asarray(qd, dtype=float)
        if q.shape != (model.n,) or qd.shape != (model.n,):
            raise ShapeError(f"body_states: q and qd must have shape ({model.n},), got {q.shape}, {qd.shape}")
        return {b.name: (q[3 * b.index:3 * b.index + 3], qd[3 * b.index:3 * b.index + 3])
                for b in model.bodies}
    if isinstance(model, RelativeModel):
        x, J, _ = model.kinematics(q)
        xd = J @ (np.zeros(model.n) if qd is None else model._check(qd, "qd"))
        return {b: (x[3 * i:3 * i + 3], xd[3 * i:3 * i + 3]) for i, b in enumerate(model.names)}
    raise ModelError(f"body_states: expected a PlanarModel or a RelativeModel, got {type(model).__name__}")


def convert(q, qd, from_model, to_model, check: bool = True, tol: float = 1e-8):
    """Positions and velocities of one mechanism from one coordinate set to another.

    Parameters
    ----------
    q, qd : array_like, shape (n,) or (N, n)
        Coordinates and rates of ``from_model`` (one state, or N states of a trajectory).
    from_model, to_model : PlanarModel or RelativeModel
        Two descriptions of the same mechanism (bodies matched by name).
    check : bool
        Raise if the converted positions violate ``to_model``'s constraints by more than ``tol``
        (the two models do not describe the same mechanism).

    Returns
    -------
    q, qd : ndarray, shape (n',) or (N, n')

    Notes
    -----
    Through the body poses: ``x = x_from(q)``, ``ẋ = J_from q̇``; then ``q' = x`` (Cartesian) or the
    joint coordinates of the tree (:meth:`RelativeModel.from_body_states`).  Angles are not wrapped:
    a trajectory stays continuous.

    >>> rel = mechanism("slider_crank", coordinates="relative")
    >>> mix = mechanism("slider_crank", coordinates="mixed")
    >>> q, qd = convert(rel.q0, rel.qd0, rel, mix)
    >>> q2, qd2 = convert(q, qd, mix, rel)
    >>> bool(np.allclose(q2, rel.q0, atol=1e-12) and np.allclose(qd2, rel.qd0, atol=1e-12))
    True
    """
    from .planar import PlanarModel

    q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
    if q.ndim == 2:
        if qd.shape != q.shape:
            raise ShapeError(f"convert: q and qd must have the same shape, got {q.shape} and {qd.shape}")
        pairs = [convert(a, b, from_model, to_model, check, tol) for a, b in zip(q, qd, strict=True)]
        return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    states = body_states(from_model, q, qd)
    if isinstance(to_model, PlanarModel):
        missing = [b.name for b in to_model.bodies if b.name not in states]
        if missing:
            raise ModelError(f"convert: the source model has no bodies {missing}; both descriptions must "
                             "name the same bodies")
        q2 = np.concatenate([states[b.name][0] for b in to_model.bodies])
        qd2 = np.concatenate([states[b.name][1] for b in to_model.bodies])
    elif isinstance(to_model, RelativeModel):
        q2, qd2 = to_model.from_body_states(states)
    else:
        raise ModelError("convert: to_model must be a PlanarModel or a RelativeModel, got "
                         f"{type(to_model).__name__}")
    if check:
        phi = to_model.phi(q2)
        if phi.size and np.max(np.abs(phi)) > tol * (1.0 + np.max(np.abs(q2))):
            worst = int(np.argmax(np.abs(phi)))
            raise ModelError(f"convert: the converted positions violate {to_model.labels[worst]!r} by "
                             f"{phi[worst]:.3g}; the two models do not describe the same mechanism")
    return q2, qd2


# ====================================================================== the chapter's mechanisms
MECHANISMS = ("double_pendulum", "slider_crank", "fourbar", "n_fourbar", "arm6r")
COORDINATE_SETS = ("cartesian", "relative", "mixed")


def _e(phi):
    return np.array([np.cos(phi), np.sin(phi)])


def _double_pendulum(L1=1.0, L2=1.0, m1=1.0, m2=1.0, phi1=-1.0, phi2=-0.3, omega1=0.0, omega2=0.0):
    """Two uniform rods; absolute angles from +x and their rates."""
    e1, e2, n1, n2 = _e(phi1), _e(phi2), _R90 @ _e(phi1), _R90 @ _e(phi2)
    bodies = [("link1", m1, m1 * L1**2 / 12, [*(L1 / 2 * e1), phi1], [*(omega1 * L1 / 2 * n1), omega1]),
              ("link2", m2, m2 * L2**2 / 12, [*(L1 * e1 + L2 / 2 * e2), phi2],
               [*(omega1 * L1 * n1 + omega2 * L2 / 2 * n2), omega2])]
    joints = {"O": ("revolute", "ground", "link1", (0, 0), (-L1 / 2, 0)),
              "E": ("revolute", "link1", "link2", (L1 / 2, 0), (-L2 / 2, 0))}
    trees = {"relative": {"link1": "O", "link2": "E"}, "mixed": {"link1": "free", "link2": "E"}}
    return bodies, joints, trees


def _slider_crank(r=0.3, l=1.0, m_crank=1.0, m_rod=2.0, m_slider=1.5, I_slider=0.01, theta=0.6, omega=2.0):
    """Crank r pinned at the origin, rod l, slider on the x axis; crank angle θ and rate ω."""
    if not 0 < r < l:
        raise ModelError(f"slider_crank: need 0 < r < l (the crank must turn fully), got r={r}, l={l}")
    A, Ad = r * _e(theta), r * omega * _R90 @ _e(theta)
    xB = r * np.cos(theta) + np.sqrt(l**2 - (r * np.sin(theta))**2)
    beta = np.arctan2(-r * np.sin(theta), xB - r * np.cos(theta))
    beta_d = -r * omega * np.cos(theta) / (l * np.cos(beta))        # from r sinθ + l sinβ = 0
    xB_d = -r * omega * np.sin(theta) - l * np.sin(beta) * beta_d
    bodies = [("crank", m_crank, m_crank * r**2 / 12, [*(A / 2), theta], [*(Ad / 2), omega]),
              ("rod", m_rod, m_rod * l**2 / 12, [*((A + [xB, 0]) / 2), beta],
               [*((Ad + [xB_d, 0]) / 2), beta_d]),
              ("slider", m_slider, I_slider, [xB, 0.0, 0.0], [xB_d, 0.0, 0.0])]
    joints = {"O": ("revolute", "ground", "crank", (0, 0), (-r / 2, 0)),
              "A": ("revolute", "crank", "rod", (r / 2, 0), (-l / 2, 0)),
              "B": ("revolute", "rod", "slider", (l / 2, 0), (0, 0)),
              "guide": ("translational", "ground", "slider", (0, 0), (0, 0), (1, 0))}
    trees = {"relative": {"crank": "O", "rod": "A", "slider": "B"},
             "mixed": {"crank": "free", "rod": "A", "slider": "guide"}}
    return bodies, joints, trees


def _fourbar(a=0.6, b=2.0, c=1.5, d=2.0, m_crank=1.0, m_coupler=2.0, m_rocker=1.5, theta=1.0, omega=3.0):
    """Crank a (pinned at O), coupler b, rocker c (pinned at D = (d, 0)); B left of the line A → D."""
    A, D = a * _e(theta), np.array([d, 0.0])
    dist = np.linalg.norm(D - A)
    u = (D - A) / dist
    along = (dist**2 + b**2 - c**2) / (2 * dist)
    if b**2 - along**2 <= 0:
        raise ModelError(f"fourbar: the loop cannot close at theta={theta} (a={a}, b={b}, c={c}, d={d})")
    B = A + along * u + np.sqrt(b**2 - along**2) * _R90 @ u
    phi2, phi3 = np.arctan2(*(B - A)[::-1]), np.arctan2(*(B - D)[::-1])
    n1, n2, n3 = (_R90 @ _e(p) for p in (theta, phi2, phi3))
    # loop velocity: a ω n1 + b ω2 n2 − c ω3 n3 = 0
    omega2, omega3 = np.linalg.solve(np.column_stack([b * n2, -c * n3]), -a * omega * n1)
    Ad = a * omega * n1
    bodies = [("crank", m_crank, m_crank * a**2 / 12, [*(A / 2), theta], [*(Ad / 2), omega]),
              ("coupler", m_coupler, m_coupler * b**2 / 12, [*((A + B) / 2), phi2],
               [*(Ad + omega2 * b / 2 * n2), omega2]),
              ("rocker", m_rocker, m_rocker * c**2 / 12, [*((B + D) / 2), phi3],
               [*(omega3 * c / 2 * n3), omega3])]
    joints = {"O": ("revolute", "ground", "crank", (0, 0), (-a / 2, 0)),
              "A": ("revolute", "crank", "coupler", (a / 2, 0), (-b / 2, 0)),
              "B": ("revolute", "coupler", "rocker", (b / 2, 0), (c / 2, 0)),
              "D": ("revolute", "ground", "rocker", (d, 0), (-c / 2, 0))}
    trees = {"relative": {"crank": "O", "coupler": "A", "rocker": "B"},
             "mixed": {"crank": "free", "coupler": "A", "rocker": "B"}}
    return bodies, joints, trees


def _n_fourbar(N=2, theta=np.pi / 2, omega=-1.0):
    """IFToMM benchmark A02: N four-bars in a row (N + 1 cranks, N couplers, all 1 m, 1 kg).

    Crank k is pinned to the ground at (k, 0); coupler k joins the tips of cranks k and k + 1.
    Every crank turns alike (angle θ from +x, rate ω); the couplers stay horizontal.  The default
    state is the benchmark's start: cranks vertical, tips moving at +1 m/s along x.
    """
    if int(N) != N or N < 1:
        raise ModelError(f"n_fourbar: N must be a positive whole number of four-bars, got {N!r}")
    N, e, n = int(N), _e(theta), _R90 @ _e(theta)
    bodies, joints = [], {}
    for k in range(N + 1):
        bodies.append((f"crank{k}", 1.0, 1.0 / 12, [k + e[0] / 2, e[1] / 2, theta],
                       [*(omega / 2 * n), omega]))
        joints[f"O{k}"] = ("revolute", "ground", f"crank{k}", (k, 0), (-0.5, 0))
    for k in range(N):
        bodies.append((f"coupler{k}", 1.0, 1.0 / 12, [k + 0.5 + e[0], e[1], 0.0], [*(omega * n), 0.0]))
        joints[f"A{k}"] = ("revolute", f"crank{k}", f"coupler{k}", (0.5, 0), (-0.5, 0))
        joints[f"B{k}"] = ("revolute", f"coupler{k}", f"crank{k + 1}", (0.5, 0), (0.5, 0))
    relative = {f"crank{k}": f"O{k}" for k in range(N + 1)} | {f"coupler{k}": f"A{k}" for k in range(N)}
    mixed = {f"crank{k}": "free" for k in range(N + 1)} | {f"coupler{k}": f"A{k}" for k in range(N)}
    return bodies, joints, {"relative": relative, "mixed": mixed}


def n_fourbar_exact(N, t, g=9.81, theta=np.pi / 2, omega=-1.0):
    """The exact motion of the N-four-bar (IFToMM A02): every crank angle θ(t) and rate θ̇(t).

    All cranks turn alike, so the mechanism has one degree of freedom and Lagrange's equation in θ
    is ``J θ̈ = −K g cos θ`` with ``J = (N + 1)/3 + N`` (cranks about their pivots, couplers in
    translation) and ``K = (N + 1)/2 + N`` (the heights of the centres of mass are sin θ / 2 and
    sin θ).  Integrated here to a tolerance of 1e-12 (DOP853).  The first crank's tip is
    ``(cos θ, sin θ)``.

    >>> th, om = n_fourbar_exact(2, [0.0])
    >>> float(th[0]), float(om[0])
    (1.5707963267948966, -1.0)
    """
    t = np.atleast_1d(np.asarray(t, dtype=float))
    J, K = (N + 1) / 3 + N, (N + 1) / 2 + N
    sol = solve_ivp(lambda _, y: [y[1], -K * g * np.cos(y[0]) / J], (0.0, max(float(t[-1]), 1e-12)),
                    [theta, omega], method="DOP853", rtol=1e-12, atol=1e-12, t_eval=t)
    return sol.y[0], sol.y[1]


def n_fourbar_tip(q, coordinates="cartesian"):
    """The first crank's tip of ``mechanism("n_fourbar", coordinates=...)`` from rows of coordinates.

    Crank 0 comes first in every coordinate set: its centre and angle ``(x, y, φ)`` in Cartesian
    coordinates, its pin angle first in relative ones, its ``(x, y, φ)`` again in mixed ones.

    Parameters
    ----------
    q : array_like, shape (n,) or (k, n)
    coordinates : {"cartesian", "relative", "mixed"}

    Returns
    -------
    ndarray, shape (k, 2)

    >>> m = mechanism("n_fourbar", N=2)
    >>> n_fourbar_tip(m.q0).round(12) + 0.0                # the crank stands vertical
    array([[0., 1.]])
    """
    q = np.atleast_2d(np.asarray(q, dtype=float))
    if coordinates not in COORDINATE_SETS:
        raise ModelError(f"n_fourbar_tip: coordinates must be one of {COORDINATE_SETS}, got {coordinates!r}")
    if coordinates == "cartesian":
        x, y, phi = q[:, 0], q[:, 1], q[:, 2]
        return np.column_stack([x + 0.5 * np.cos(phi), y + 0.5 * np.sin(phi)])
    angle = q[:, 0] if coordinates == "relative" else q[:, 2]
    return np.column_stack([np.cos(angle), np.sin(angle)])


_PLANAR = {"double_pendulum": _double_pendulum, "slider_crank": _slider_crank, "fourbar": _fourbar,
           "n_fourbar": _n_fourbar}


def _planar_model(bodies, joints, gravity):
    from .planar import PlanarModel

    m = PlanarModel(gravity=gravity)
    poses = {"ground": np.zeros(3)}
    for name, mass, inertia, pose, vel in bodies:
        m.add_body(name, mass, inertia, position=pose[:2], angle=pose[2], velocity=vel[:2],
                   angular_velocity=vel[2])
        poses[name] = np.asarray(pose, dtype=float)
    for jname, (kind, bi, bj, pi, pj, *axis) in joints.items():
        if kind == "revolute":
            m.add_revolute(bi, bj, pi, pj, name=jname)
        else:
            m.add_translational(bi, bj, pi, pj, axis[0], angle=poses[bj][2] - poses[bi][2], name=jname)
    m.assemble()
    return m


def _relative_model(bodies, joints, tree, gravity):
    m = RelativeModel(gravity=gravity)
    poses = {"ground": np.zeros(3)} | {b[0]: np.asarray(b[3], dtype=float) for b in bodies}
    for name, mass, inertia, _, _ in bodies:
        if tree[name] == "free":
            m.add_body(name, mass, inertia, parent="ground", joint="free")
            continue
        kind, bi, bj, pi, pj, *axis = joints[tree[name]]
        if kind == "revolute":
            parent, sp_, sc_ = (bi, pi, pj) if bj == name else (bj, pj, pi)
            m.add_body(name, mass, inertia, parent=parent, joint="revolute", point_parent=sp_,
                       point_child=sc_)
        else:                                   # the child of a prismatic tree joint is its body j
            m.add_body(name, mass, inertia, parent=bi, joint="prismatic", point_parent=pi, point_child=pj,
                       axis=axis[0], angle=poses[bj][2] - poses[bi][2])
    for jname, (kind, bi, bj, pi, pj, *axis) in joints.items():
        if jname in tree.values():
            continue
        if kind == "revolute":
            m.add_cut_revolute(bi, bj, pi, pj, name=jname)
        else:
            m.add_cut_translational(bi, bj, pi, pj, axis[0], angle=poses[bj][2] - poses[bi][2], name=jname)
    m.set_initial(*m.from_body_states({b[0]: (b[3], b[4]) for b in bodies}))
    m.assemble()
    return m


def _arm6r(coordinates, masses=(4.0, 3.0, 2.0, 1.0, 0.5, 0.3), g=9.81):
    """A 6R arm (waist z, shoulder y, elbow y, wrist roll x, pitch y, roll x), base fixed."""
    from .bodies import RigidBody
    from .chain import Chain, Joint
    from .spatial import SpatialModel

    axes = [(0, 0, 1), (0, 1, 0), (0, 1, 0), (1, 0, 0), (0, 1, 0), (1, 0, 0)]
    p = np.array([[0, 0, 0.3], [0, 0, 0.5], [0.4, 0, 0.5], [0.7, 0, 0.5], [0.8, 0, 0.5], [0.9, 0, 0.5],
                  [1.0, 0, 0.5]])                        # joints 1..6 and the tool point, at q = 0
    if len(masses) != 6:
        raise ModelError(f"arm6r: give 6 masses, got {len(masses)}")
    if coordinates == "relative":
        chain = Chain(name="6R arm")
        for k in range(6):
            origin = p[k] - (p[k - 1] if k else 0.0)
            body = RigidBody.sphere(masses[k], 0.05, com=(p[k + 1] - p[k]) / 2, name=f"link{k + 1}")
            chain.add_link(f"link{k + 1}", Joint(f"joint{k + 1}", "revolute", axes[k], origin), body)
        return ChainSystem(chain, gravity=(0.0, 0.0, -g))
    m = SpatialModel(gravity=(0.0, 0.0, -g))
    centres = [p[0] / 2] + [(p[k] + p[k + 1]) / 2 for k in range(6)]
    sphere = [RigidBody.sphere(mass, 0.05).inertia for mass in (10.0, *masses)]   # as the chain's links
    bodies = [m.add_body("base", centres[0], mass=10.0, inertia=sphere[0])]
    bodies += [m.add_body(f"link{k + 1}", centres[k + 1], mass=masses[k], inertia=sphere[k + 1])
               for k in range(6)]
    m.fix(bodies[0], name="base fixed")
    for k in range(6):
        m.add_revolute(bodies[k], bodies[k + 1], p[k] - centres[k], p[k] - centres[k + 1], axis_i=axes[k],
                       name=f"joint{k + 1}")
    return m


def mechanism(name: str, coordinates: str = "cartesian", gravity=None, **params):
    """A ready-made model of one of the chapter's mechanisms in the chosen coordinate set.

    Parameters
    ----------
    name : {"double_pendulum", "slider_crank", "fourbar", "n_fourbar", "arm6r"}
    coordinates : {"cartesian", "relative", "mixed"}
        Planar: "cartesian" → :class:`mbdlib.PlanarModel` (x, y, φ per body); "relative" →
        :class:`RelativeModel` with joint coordinates of a spanning tree (loop closures as cut
        joints); "mixed" → the first body absolute (x, y, φ), the others relative.  "arm6r" has
        "relative" (a :class:`ChainSystem`, 6 joint angles) and "cartesian" (a
        :class:`mbdlib.SpatialModel`, position + Euler parameters per body).
    gravity : array_like, optional
        Default ``(0, -9.81)`` (planar); the 6R arm takes ``g=`` (along −z).
    **params
        Dimensions and initial state, by mechanism (SI units, angles from +x):
        double_pendulum ``L1, L2, m1, m2, phi1, phi2, omega1, omega2`` (absolute angles and rates);
        slider_crank ``r, l, m_crank, m_rod, m_slider, I_slider, theta, omega`` (crank angle, rate);
        fourbar ``a, b, c, d, m_crank, m_coupler, m_rocker, theta, omega``; n_fourbar ``N, theta, omega``
        (IFToMM benchmark A02, :func:`n_fourbar_exact`); arm6r ``masses, g``.

    Returns
    -------
    model
        Assembled (planar models): ``q0``, ``qd0`` describe the same state in every coordinate set.

    >>> [mechanism("fourbar", coordinates=c).n for c in COORDINATE_SETS]
    [9, 3, 5]
    """
    if name not in MECHANISMS:
        raise ModelError(f"mechanism: unknown mechanism {name!r}; choose one of {MECHANISMS}")
    if name == "arm6r":
        if coordinates not in ("cartesian", "relative"):
            raise ModelError(f"mechanism: the 6R arm comes in 'cartesian' or 'relative' coordinates, got "
                             f"{coordinates!r}")
        return _arm6r(coordinates, **params)
    if coordinates not in COORDINATE_SETS:
        raise ModelError(f"mechanism: coordinates must be one of {COORDINATE_SETS}, got {coordinates!r}")
    builder = _PLANAR[name]
    known = builder.__code__.co_varnames[:builder.__code__.co_argcount]
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ModelError(f"mechanism {name!r}: unknown parameters {unknown}; the parameters are "
                         f"{list(known)}")
    bodies, joints, trees = builder(**params)
    gravity = (0.0, -9.81) if gravity is None else gravity
    if coordinates == "cartesian":
        return _planar_model(bodies, joints, gravity)
    return _relative_model(bodies, joints, trees[coordinates], gravity)
