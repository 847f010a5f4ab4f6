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

A cut joint can be any planar joint of :mod:`mbdlib.constraints` (revolute, translational, a distance
link, a gear or rack-and-pinion pair); knife edges add nonholonomic rows ``B_θ = B_x J`` (a wheel that
rolls without side slip); forces, torques and joint torques add their generalized forces.

:class:`RelativeModel` builds its :class:`~mbdlib.system.ConstrainedSystem` (``model.system()``) through
the *velocity transformation* (Jerkovsky 1978; García de Jalón & Bayo
1994): the body poses ``x = (x_i, y_i, φ_i)`` are functions of ``θ``, ``ẋ = J(θ) θ̇`` and
``ẍ = J θ̈ + c`` with ``c = J̇ θ̇``; Newton-Euler ``M_x ẍ = Q_x + (joint forces)`` premultiplied by
``Jᵀ`` (the tree joints do no virtual work) gives

    M(θ) = Jᵀ M_x J,      Q(θ, θ̇) = Jᵀ (Q_x − M_x c),

and a cut joint with Cartesian equations ``Φ(x) = 0`` (from :mod:`mbdlib.constraints`) has
``Φ_θ = Φ_x J`` and ``γ_θ = γ_x − Φ_x c`` (from ``Φ_x ẍ = γ_x``).

:func:`convert` moves positions and velocities between any two descriptions of the same
mechanism through the body poses; :func:`mbdlib.catalogue.mechanism` builds the chapter's mechanisms
(double pendulum, slider-crank, four-bar; the spatial 6R arm) in each coordinate set.

>>> from mbdlib.catalogue import mechanism
>>> m = mechanism("fourbar", coordinates="relative", gravity=(0.0, -9.81))
>>> m.n, len(m.phi(m.q0)), m.coordinate_names
(3, 2, ['θ_crank', 'θ_coupler', 'θ_rocker'])
>>> c = mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -9.81))
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

from . import _validate
from .constraints import Distance, Gear, KnifeEdge, RackPinion, Revolute, Translational
from .errors import ModelError, ShapeError
from .model import Coordinate, Model, linear_coordinate
from .planar import PlanarModel

__all__ = ["RelativeModel", "TreeJoint", "body_states", "convert"]

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


class RelativeModel(Model):
    """A planar mechanism in relative (joint) or mixed coordinates.

    Bodies are added parent first, each with the tree joint to its parent; joints that close
    loops are added as *cut joints*.  Body frames have their origin at the centre of mass, as
    in :class:`mbdlib.PlanarModel`, so both describe the same bodies and :func:`convert` maps one
    onto the other.

    Parameters
    ----------
    gravity : array_like, shape (2,)
        Gravitational acceleration [m/s²]; required (``(0, -9.81)`` with y up, ``(0, 0)`` for none).

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

    def __init__(self, gravity=None):
        self.gravity = _validate.planar_gravity(gravity, "RelativeModel")
        self.names: list[str] = []
        self.masses: list[float] = []
        self.inertias: list[float] = []
        self.tree: list[TreeJoint] = []
        self.cuts: list = []                          # constraints.Constraint objects on (x, y, φ) of bodies
        self._cut_index: list[list[int]] = []          # per cut joint: body indices (-1: ground)
        self.knife_edges: list[KnifeEdge] = []        # nonholonomic rows B q̇ = 0, one per knife edge
        self._knife_index: list[int] = []              # per knife edge: its body's index
        self.loads: list[dict] = []                   # applied forces and torques, joint torques and forces
        self.coordinate_names: list[str] = []
        self._q_guess: list[float] = []
        self._qd_guess: list[float] = []
        self._assembly = None
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
        self._assembly = self._cache = None
        return tj

    def _add_cut(self, joint, bodies):
        idx = [self._body(b) for b in bodies]
        if len(set(idx)) < len(idx):
            what = "two different bodies" if len(idx) == 2 else "two gears and a carrier (three bodies)"
            raise ModelError(f"cut joint {joint.name!r}: needs {what}, got {', '.join(map(repr, bodies))}")
        self._unique_name(joint.name)
        self.cuts.append(joint)
        self._cut_index.append(idx)
        self._assembly = None
        return joint

    def _unique_name(self, name):
        if any(j.name == name for j in self.cuts + self.knife_edges):
            raise ModelError(f"a joint named {name!r} already exists; give a unique name=")

    def _guess_pose(self, body) -> np.ndarray:
        """``(x, y, φ)`` of a body (or the ground) in the initial guess of the coordinates."""
        k = self._body(body)
        return np.zeros(3) if k < 0 else self.kinematics(self.q_guess())[0][3 * k:3 * k + 3]

    def _guess_point(self, body, point) -> np.ndarray:
        x, y, phi = self._guess_pose(body)
        return np.array([x, y]) + _A(phi) @ _xy(point, "point")

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

    def add_cut_distance(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), length=None,
                         name=None):
        """Cut distance constraint, a massless link (a tie rod): ``dᵀd − L² = 0``, ``d = r_Pj − r_Pi``
        (1 equation); the default ``length`` is the distance in the initial guess."""
        name = name or f"cut{len(self.cuts) + 1} {body_i}-{body_j}"
        if length is None:
            d = self._guess_point(body_j, point_j) - self._guess_point(body_i, point_i)
            length = float(np.linalg.norm(d))
        joint = Distance(name, (str(body_i), str(body_j)), point_i, point_j, length)
        return self._add_cut(joint, (body_i, body_j))

    def add_cut_rack_pinion(self, pinion, rack, radius, point_pinion=(0.0, 0.0), point_rack=(0.0, 0.0),
                            axis_rack=(1.0, 0.0), offset=None, name=None):
        """Cut rack-and-pinion pair (:class:`~mbdlib.constraints.RackPinion`, 1 equation):
        ``u_jᵀ (r_Pi − r_Qj) + ρ (φ_i − φ_j) − offset = 0``, the pinion on the left of ``axis_rack``;
        the default ``offset`` is the value in the initial guess (the teeth mesh there)."""
        name = name or f"cut{len(self.cuts) + 1} {pinion}-{rack}"
        joint = RackPinion(name, (str(pinion), str(rack)), point_pinion, point_rack, axis_rack, radius, 0.0)
        if offset is None:
            offset = float(joint.phi(np.concatenate([self._guess_pose(pinion), self._guess_pose(rack)]))[0])
        joint.offset = _validate.number(offset, f"{name}: offset")
        return self._add_cut(joint, (pinion, rack))

    def add_cut_gear(self, body_i, body_j, ratio, carrier="ground", offset=None, name=None):
        """Cut gear pair (:class:`~mbdlib.constraints.Gear`, 1 equation): ``(φ_j − φ_c) − ratio (φ_i − φ_c)
        − offset = 0`` on the ``carrier`` (default the ground); ``ratio = −r_i / r_j`` for external
        gears; the default ``offset`` is the value in the initial guess."""
        name = name or f"cut{len(self.cuts) + 1} {body_i}-{body_j}"
        joint = Gear(name, (str(body_i), str(body_j), str(carrier)), ratio, 0.0)
        if offset is None:
            poses = [self._guess_pose(b) for b in (body_i, body_j, carrier)]
            offset = float(joint.phi(np.concatenate(poses))[0])
        joint.offset = _validate.number(offset, f"{name}: offset")
        return self._add_cut(joint, (body_i, body_j, carrier))

    def add_knife_edge(self, body, point=(0.0, 0.0), axis=(1.0, 0.0), name=None) -> KnifeEdge:
        """Nonholonomic knife edge (a wheel that rolls without side slip): ``point`` of ``body`` cannot move
        across ``axis`` (body frame), one row of ``B(θ) θ̇ = 0`` with ``B_θ = B_x J`` (like a cut joint's
        ``Φ_θ = Φ_x J``)."""
        k = self._body(body)
        if k < 0:
            raise ModelError("add_knife_edge: the ground does not move; give a moving body")
        name = str(name) if name is not None else f"knife{len(self.knife_edges) + 1} {body}"
        self._unique_name(name)
        joint = KnifeEdge(name, (str(body),), point, axis)
        self.knife_edges.append(joint)
        self._knife_index.append(k)
        self._assembly = None
        return joint

    # ------------------------------------------------------------------ applied loads
    def _load(self, kind, body, value, name, what, point=None):
        k = self._body(body)
        if k < 0:
            raise ModelError(f"add_{what}: a load on the ground does nothing; apply it to a moving body")
        if not callable(value):
            value = _xy(value, f"add_{what} on {body!r}: force") if kind == "force" \
                else _validate.number(value, f"add_{what} on {body!r}: {what}")
        name = str(name) if name is not None else f"{what}{len(self.loads) + 1} {body}"
        if any(load["name"] == name for load in self.loads):
            raise ModelError(f"add_{what}: a load named {name!r} already exists; give a unique name=")
        load = dict(name=name, kind=kind, body=k, value=value,
                    point=None if point is None else _xy(point, f"add_{what} on {body!r}: point"))
        self.loads.append(load)
        return load

    def add_force(self, body, force, point=(0.0, 0.0), name=None) -> dict:
        """Applied force (global components) at a body point: a (2,) constant or ``force(t, q, qd)``;
        generalized force ``J_Pᵀ F`` with ``J_P`` the Jacobian of the point."""
        return self._load("force", body, force, name, "force", point)

    def add_torque(self, body, torque, name=None) -> dict:
        """Applied torque on a body [N m]: a number or ``torque(t, q, qd)``; generalized force ``τ J_φ``."""
        return self._load("torque", body, torque, name, "torque")

    def add_joint_torque(self, body, torque, name=None) -> dict:
        """A torque ``τ`` [N m] in the revolute tree joint of ``body``: ``+τ`` on the body, ``−τ`` on its
        parent, so that its generalized force is ``τ`` on the joint angle alone; a number or
        ``torque(t, q, qd)``.  Its name is an input of :func:`mbdlib.linearize`."""
        k = self._body(body)
        if k >= 0 and self.tree[k].kind != "revolute":
            raise ModelError(f"add_joint_torque: the tree joint of body {body!r} is {self.tree[k].kind}, not "
                             "revolute; use add_joint_force for a prismatic joint")
        return self._load("joint", body, torque, name or f"{body} joint torque", "joint_torque")

    def add_joint_force(self, body, force, name=None) -> dict:
        """A force ``F`` [N] along the prismatic tree joint of ``body`` (``+F`` on the body, ``−F`` on its
        parent): generalized force ``F`` on the slide alone; a number or ``force(t, q, qd)``."""
        k = self._body(body)
        if k >= 0 and self.tree[k].kind != "prismatic":
            raise ModelError(f"add_joint_force: the tree joint of body {body!r} is {self.tree[k].kind}, not "
                             "prismatic; use add_joint_torque for a revolute joint")
        return self._load("joint", body, force, name or f"{body} joint force", "joint_force")

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

    # ------------------------------------------------------------------ the equations (the system binds them)
    def _local(self, k, x):
        return np.concatenate([np.zeros(3) if b < 0 else x[3 * b:3 * b + 3] for b in self._cut_index[k]])

    def _local_rows(self, k, M):
        return np.vstack([np.zeros((3, M.shape[1])) if b < 0 else M[3 * b:3 * b + 3]
                          for b in self._cut_index[k]])

    @property
    def labels(self) -> list[str]:
        """One label per constraint row: the cut joints' equations, then the knife edges' velocity rows."""
        return [lab for j in self.cuts + self.knife_edges for lab in j.labels]

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
        """``Q = Jᵀ (Q_x − M_x J̇ q̇)`` plus the applied loads: gravity, the velocity-product forces, the
        forces and torques of :meth:`add_force`, :meth:`add_torque`, :meth:`add_joint_torque`,
        :meth:`add_joint_force`; shape ``(n,)``."""
        x, J, c = self.kinematics(q, qd)
        Qx = np.concatenate([[m * self.gravity[0], m * self.gravity[1], 0.0] for m in self.masses] or [[]])
        Q = J.T @ (Qx - self._Mx() * c)
        for load in self.loads:
            value = load["value"](t, q, qd) if callable(load["value"]) else load["value"]
            k = 3 * load["body"]
            if load["kind"] == "force":
                F = _xy(value, f"{load['name']}: force")
                Bs = _R90 @ _A(x[k + 2]) @ load["point"]               # ∂(A s')/∂φ
                Q = Q + (J[k:k + 2] + np.outer(Bs, J[k + 2])).T @ F    # J_Pᵀ F
            else:
                v = _validate.number(float(value), load["name"])
                Q = Q + v * (J[k + 2] if load["kind"] == "torque" else self._joint_unit(load["body"]))
        return Q

    def _joint_unit(self, b) -> np.ndarray:
        """The generalized force of a unit torque (force) in the tree joint of body ``b``: ``e_k``."""
        e = np.zeros(self.n)
        e[self.tree[b].start] = 1.0
        return e

    def _inputs(self) -> dict:
        def unit(e):
            return lambda t, q, qd: e

        return {load["name"]: unit(self._joint_unit(load["body"]))
                for load in self.loads if load["kind"] == "joint"}

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
        return np.zeros(sum(j.n_eq for j in self.cuts))

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
        """Knife-edge rows ``B_θ = B_x J`` of ``B θ̇ = 0``, shape ``(k, n)``."""
        if not self.knife_edges:
            return np.zeros((0, self.n))
        x, J, _ = self.kinematics(q)
        return np.vstack([j.B(x[3 * b:3 * b + 3], t) @ J[3 * b:3 * b + 3]
                          for j, b in zip(self.knife_edges, self._knife_index, strict=True)])

    def b_gamma(self, q, qd, t=0.0) -> np.ndarray:
        """``b_γθ = b_γx − B_x J̇ θ̇`` of ``B θ̈ = b_γ`` (from ``B_x ẍ = b_γx``), shape ``(k,)``."""
        if not self.knife_edges:
            return np.zeros(0)
        x, J, c = self.kinematics(q, qd)
        xd = J @ self._check(qd, "qd")
        rows = []
        for j, b in zip(self.knife_edges, self._knife_index, strict=True):
            s = slice(3 * b, 3 * b + 3)
            rows.append(j.b_gamma(x[s], xd[s], t) - j.B(x[s], t) @ c[s])
        return np.concatenate(rows)

    def energy(self, q, qd) -> float:
        """``½ q̇ᵀ M q̇ − Σ m_i g·r_i`` [J] (applied loads are not included)."""
        x = self.kinematics(q)[0]
        qd = self._check(qd, "qd")
        V = -sum(m * self.gravity @ x[3 * i:3 * i + 2] for i, m in enumerate(self.masses))
        return float(0.5 * qd @ self.M(q) @ qd + V)

    # ------------------------------------------------------------------ guesses, coordinates, the system
    def q_guess(self) -> np.ndarray:
        """The initial guess of the coordinates (as given to :meth:`add_body` or :meth:`set_initial`)."""
        return np.array(self._q_guess, dtype=float)

    def qd_guess(self, q=None) -> np.ndarray:
        """The given initial rates."""
        return np.array(self._qd_guess, dtype=float)

    def set_initial(self, q, qd=None):
        """Replace the initial guess of the coordinates (and rates); :meth:`assemble` runs on next use."""
        self._q_guess = list(self._check(q, "q"))
        self._qd_guess = list(np.zeros(self.n) if qd is None else self._check(qd, "qd"))
        self._assembly = None

    def coordinate(self, key) -> Coordinate:
        """A coordinate to choose: one of :attr:`coordinate_names` (``"θ_crank"``) or its index, or a
        :class:`~mbdlib.model.Coordinate` as it is."""
        if isinstance(key, str | int | np.integer) and not isinstance(key, bool):
            k = self.coordinate_names.index(key) if isinstance(key, str) and key in self.coordinate_names \
                else key if not isinstance(key, str) else None
            if k is None or not 0 <= int(k) < self.n:
                raise ModelError(f"coordinate: no coordinate {key!r}; the coordinates are "
                                 f"{self.coordinate_names}")
            name = self.coordinate_names[int(k)]
            return linear_coordinate(name, "m" if name[0] in "dxy" else "rad", {int(k): 1.0})
        return super().coordinate(key)

    def _describe(self) -> str:
        return f"RelativeModel ({len(self.names)} bodies)"

    def _assembly_failure(self, q, iterations, residual) -> ModelError:
        x = self.kinematics(q)[0]
        gap, worst = max(((j.gap(self._local(k, x)), j) for k, j in enumerate(self.cuts)), key=lambda g: g[0])
        return ModelError(f"cannot assemble: cut joint {worst.name!r} cannot close (gap {gap:.3g} after "
                          f"{iterations} Newton iterations); check the lengths or start from a closer guess")


# ====================================================================== conversions
def body_states(model, q, qd=None) -> dict:
    """Pose ``(x, y, φ)`` and velocity of every body of a planar model: ``{name: (pose, velocity)}``.

    Works for :class:`mbdlib.PlanarModel` (the coordinates themselves) and :class:`RelativeModel`
    (``x(q)``, ``ẋ = J q̇``); shapes ``(3,)``.

    >>> from mbdlib.catalogue import mechanism
    >>> m = mechanism("double_pendulum", coordinates="relative", phi1=0.0, phi2=0.0, gravity=(0.0, -9.81))
    >>> body_states(m, m.q0)["link2"][0]
    array([1.5, 0. , 0. ])
    """
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

    >>> from mbdlib.catalogue import mechanism
    >>> rel = mechanism("slider_crank", coordinates="relative", gravity=(0.0, -9.81))
    >>> mix = mechanism("slider_crank", coordinates="mixed", gravity=(0.0, -9.81))
    >>> q, qd = convert(rel.q0, rel.qd0, rel, mix)
    >>> q2, qd2 = convert(q, qd, mix, rel)
    >>> bool(np.allclose(q2, rel.q0, atol=1e-12) and np.allclose(qd2, rel.qd0, atol=1e-12))
    True
    """
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
