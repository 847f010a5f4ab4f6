"""Spatial multibody dynamics in Cartesian coordinates with Euler parameters, and rolling without slipping.

:class:`SpatialModel` is a :class:`~mbdlib.spatial_joints.SpatialMechanism` (bodies, joints, drivers,
``Φ``, ``Φ_q``, ``Φ_t``, ``γ`` from jets, DOF by rank) with gravity, inertias and loads, so that it builds
the :class:`~mbdlib.system.ConstrainedSystem` that :func:`mbdlib.simulate` and :func:`mbdlib.linearize`
take (``model.system()``):

* ``M`` per body is ``diag(m I₃, 4 Lᵀ J′ L)`` made definite along ``p`` (:meth:`SpatialModel.M`), and
  ``Q`` holds gravity, the gyroscopic term ``8 L̇ᵀ J′ L̇ p``, spring-dampers, forces and torques, and the
  joint torques and forces (``τ ∂θ/∂q``: the virtual work of the pair of torques in the joint);
* a body may roll without slipping on a plane (:meth:`SpatialModel.add_rolling_disk`): a holonomic
  height row and two nonholonomic rows ``B q̇ = 0``, whose ``b_γ`` is in closed form too;
* the coordinates a user chooses: joint angles and slides, a body's ``x, y, z`` and Euler angles
  (:meth:`SpatialModel.coordinate`, :meth:`SpatialModel.euler_angle`).

>>> m = SpatialModel(gravity=(0, 0, -9.81))
>>> base = m.add_body("base", inertia=[1, 1, 1])
>>> _ = m.fix(base)
>>> bar = m.add_body("bar", position=(0.5, 0, 0), inertia=[0.001, 0.02, 0.02])
>>> hinge = m.add_revolute(base, bar, (0, 0, 0), (-0.5, 0, 0), axis_i=(0, 1, 0))
>>> s = m.system()
>>> round(float(hinge.angle(s.q0)), 12) + 0.0, s.n, s.m
(0.0, 14, 13)

References: P. E. Nikravesh, *Computer-Aided Analysis of Mechanical Systems*, 1988, ch. 6-7 and 11;
E. J. Haug, *Computer Aided Kinematics and Dynamics of Mechanical Systems*, 1989, ch. 9 and 11;
J. I. Neimark and N. A. Fufaev, *Dynamics of Nonholonomic Systems*, 1972 (the rolling disk).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _validate
from .contact import Contact, contact_parameters, sphere_plane
from .errors import ModelError
from .model import Coordinate, kept_answers, linear_coordinate, state_key
from .rotations import _intrinsic_form, _parity
from .spatial_joints import (  # noqa: F401 (SpatialBody, _tilde: re-exported, as before the split)
    _A,
    _L,
    FIXED,
    SpatialBody,
    SpatialDofReport,
    SpatialDriver,
    SpatialJoint,
    SpatialMechanism,
    _coordinate,
    _cross,
    _dot,
    _dot1_el,
    _Element,
    _euler_matrices,
    _Local,
    _point,
    _State,
    _tilde,
    _tildes,
    _v3,
    _vector,
    point_jacobian,
)
from .system import ConstrainedSystem

__all__ = ["SpatialModel", "SpatialMechanism", "SpatialBody", "SpatialJoint", "SpatialDriver",
           "SpatialDofReport", "RollingDisk", "point_jacobian"]


def _rolling_height(st, i, j, par):
    """The height row of a rolling disk: ``h² − R² (1 − (a·n)²)`` with ``h = (c − p0)·n`` (one row per
    element; the wheel is body i, the plane's normal ``n`` and point ``p0`` belong to the fixed frame j)."""
    c, a = _point(st, 0, i, par["center"]), _vector(st, 0, i, par["axis"])
    n, p0 = _vector(st, 1, j, par["normal"]), _point(st, 1, j, par["point"])
    h, s = _dot(n, c - p0), _dot(a, n)
    R2 = par["radius"] ** 2
    return h.square().combine(1.0, s.square(), R2, -R2)


@dataclass(frozen=True, eq=False)
class RollingDisk:
    """A body rolling without slipping on a plane (see :meth:`SpatialModel.add_rolling_disk`): radius,
    axis and centre in body components; the plane's point, unit normal and tangent basis ``t1, t2``."""

    body: SpatialBody
    radius: float
    axis: np.ndarray
    center: np.ndarray
    plane_point: np.ndarray
    plane_normal: np.ndarray
    tangents: np.ndarray                       # (2, 3): t1, t2
    name: str


class SpatialModel(SpatialMechanism):
    """A spatial mechanism in Cartesian coordinates with Euler parameters (7 per body), with dynamics.

    Parameters
    ----------
    gravity : array_like, shape (3,), optional
        Gravitational acceleration in global components [m/s²]; needed to simulate (``(0, 0, -9.81)``
        with z up, ``(0, 0, 0)`` for none).  Without it (and without inertias) the model is kinematic:
        DOF, assembly, velocity and acceleration analysis.
    """

    def __init__(self, gravity=None):
        super().__init__()
        self.gravity = None if gravity is None else _v3(gravity, "gravity")
        self.loads: list[dict] = []
        self.springs: list[dict] = []
        self.rolling: list[RollingDisk] = []
        self.contacts: list[Contact] = []
        self._disk_cache = self._rolling_last = None

    def _changed(self):
        super()._changed()
        self._disk_cache = self._rolling_last = None

    # ------------------------------------------------------------------ loads
    def add_force(self, body, force, point=(0.0, 0.0, 0.0), name=None) -> dict:
        """A force (global components; constant or ``force(t, q, qd)``) at ``point`` (body frame)."""
        b = self.body(body)
        name = str(name) if name is not None else f"force{len(self.loads) + 1}"
        value = force if callable(force) else _v3(force, f"force {name!r} on body {b.name!r}")
        return self._add_load(dict(kind="force", name=name, body=b, value=value,
                                   point=_v3(point, f"force {name!r}: point")))

    def add_torque(self, body, torque, name=None) -> dict:
        """A torque (global components, constant or ``torque(t, q, qd)``) on the body."""
        b = self.body(body)
        name = str(name) if name is not None else f"torque{len(self.loads) + 1}"
        value = torque if callable(torque) else _v3(torque, f"torque {name!r} on body {b.name!r}")
        return self._add_load(dict(kind="torque", name=name, body=b, value=value))

    def add_joint_torque(self, joint, torque, name=None) -> dict:
        """A torque ``τ`` [N m] in a revolute or cylindrical joint: ``+τ`` on body j and ``−τ`` on body i,
        about the joint's axis; a number or ``torque(t, q, qd)``.

        Its generalized force is ``τ ∂θ/∂q`` (θ = ``joint.angle``): the virtual work of the pair of
        torques, ``τ (δφ_j − δφ_i)·u = τ δθ`` for every motion the joint allows (the rest of the
        gradient lies along the joint's constraint rows and changes only their multipliers).  Its power
        is ``τ θ̇``.  The load's name is an input of :func:`mbdlib.linearize`.
        """
        return self._add_joint_load(joint, "angle", torque, name, "torque")

    def add_joint_force(self, joint, force, name=None) -> dict:
        """A force ``F`` [N] along a prismatic or cylindrical joint's axis: ``+F`` on body j at ``P_j``,
        ``−F`` on body i; a number or ``force(t, q, qd)``.  Generalized force ``F ∂s/∂q`` (s =
        ``joint.slide``), power ``F ṡ``; its name is an input of :func:`mbdlib.linearize`."""
        return self._add_joint_load(joint, "slide", force, name, "force")

    def _add_joint_load(self, joint, kind, value, name, what):
        if not isinstance(joint, SpatialJoint | str) or not any(joint is j or joint == j.name
                                                                 for j in self.joints):
            raise ModelError(f"add_joint_{what}: {joint!r} is not a joint of this model; the joints are: "
                             + (", ".join(j.name for j in self.joints) or "none"))
        joint = self.joint(joint)
        coordinate = joint._coordinate(kind)
        if not callable(value):
            value = _validate.number(value, f"add_joint_{what} on joint {joint.name!r}: {what}")
        name = str(name) if name is not None else f"{joint.name} {what}"
        return self._add_load(dict(kind=f"joint {what}", name=name, joint=joint, value=value,
                                   coordinate=coordinate))

    def _add_load(self, load):
        if any(x["name"] == load["name"] for x in self.loads):
            raise ModelError(f"a load named {load['name']!r} already exists; give a unique name=")
        self.loads.append(load)
        return load

    def add_spring_damper(self, body_i, body_j, point_i=(0.0, 0.0, 0.0), point_j=(0.0, 0.0, 0.0),
                          stiffness=0.0, damping=0.0, rest_length=None, name=None) -> dict:
        """Translational spring-damper between two points (body frames): tension ``k (ℓ − ℓ0) + c ℓ̇`` along
        the line; ``rest_length`` defaults to the distance at the initial poses.  Its potential
        ``½ k (ℓ − ℓ0)²`` is part of :meth:`energy`."""
        bi, bj = self.body(body_i), self.body(body_j)
        si, sj = _v3(point_i, "point_i"), _v3(point_j, "point_j")
        for value, what in ((stiffness, "stiffness"), (damping, "damping")):
            if not (np.isfinite(value) and value >= 0):
                raise ModelError(f"spring-damper: {what} must be a number ≥ 0, got {value!r}")
        if rest_length is None:
            rest_length = float(np.linalg.norm(self._initial_point(bj, sj) - self._initial_point(bi, si)))
        spring = dict(bodies=(bi, bj), points=(si, sj), k=float(stiffness), c=float(damping),
                      l0=float(rest_length), name=name or f"spring{len(self.springs) + 1}")
        self.springs.append(spring)
        return spring

    def _spring_state(self, s, q, qd):
        """Length, rate, unit vector i → j and the point Jacobians (3, 7) of each end."""
        ends = []
        for b, pt in zip(s["bodies"], s["points"], strict=True):
            k = 7 * b.index
            p = q[k + 3: k + 7]
            J = np.hstack([np.eye(3), point_jacobian(p, pt)])
            ends.append((q[k: k + 3] + _A(p) @ pt, J @ qd[k: k + 7], J))
        d, dv = ends[1][0] - ends[0][0], ends[1][1] - ends[0][1]
        length = float(np.linalg.norm(d))
        if length == 0:
            raise ModelError(f"spring {s['name']!r}: its two points coincide, so its direction is undefined")
        e = d / length
        return length, float(e @ dv), e, ends[0][2], ends[1][2]

    # ------------------------------------------------------------------ dynamics
    def _need_dynamics(self):
        if self.gravity is None:
            raise ModelError("SpatialModel: gravity is not set; create the model with "
                             "SpatialModel(gravity=(0, 0, -9.81)) (or (0, 0, 0) for no gravity)")
        for b in self.bodies:
            if b.inertia is None:
                raise ModelError(f"body {b.name!r} has no inertia: give add_body(..., inertia=...) (central, "
                                 "body components) to simulate")

    def _inertias(self):
        """Masses (nb,) and central inertias (nb, 3, 3) of the bodies."""
        return (np.array([b.mass for b in self.bodies]),
                np.array([b.inertia for b in self.bodies]).reshape(-1, 3, 3))

    def M(self, q) -> np.ndarray:
        """Mass matrix, block-diagonal per body: ``m I₃`` for r and ``4 Lᵀ J′ L + k p pᵀ`` for p.

        ``4 Lᵀ J′ L`` alone is singular: ``L p = 0``, because changing p along itself changes no
        orientation (only its length).  The normalization row ``2 pᵀ`` of Φ_q constrains exactly that
        direction, so the KKT matrix is regular; and ``k p pᵀ`` (``k = 4 tr J′ / 3``) may be added to M
        without changing the motion, because ``k p (pᵀ p̈)`` is a force along the normalization row that
        only shifts its multiplier.  With it M is positive definite, as :mod:`mbdlib.dae` needs
        (Nikravesh 1988, §11.4).
        """
        self._need_dynamics()
        nb = len(self.bodies)
        p = np.asarray(q, dtype=float).reshape(nb, 7)[:, 3:]
        mass, J = self._inertias()
        L = _euler_matrices(p, "body")
        k = 4 * np.trace(J, axis1=1, axis2=2) / 3
        Mp = 4 * L.transpose(0, 2, 1) @ J @ L + k[:, None, None] * p[:, :, None] * p[:, None, :]
        blocks = np.zeros((nb, 7, 7))
        blocks[:, :3, :3] = mass[:, None, None] * np.eye(3)
        blocks[:, 3:, 3:] = Mp
        M = np.zeros((nb, 7, nb, 7))
        M[np.arange(nb), :, np.arange(nb), :] = blocks
        return M.reshape(7 * nb, 7 * nb)

    def Q(self, t, q, qd) -> np.ndarray:
        """Generalized forces: gravity on r, the velocity term ``8 L̇ᵀ J′ L̇ p`` on p (``L̇ = L(ṗ)``: the
        gyroscopic moment ``−ω′ × J′ ω′`` of Euler's equations written for Euler parameters, Nikravesh
        1988, §11.4), spring-dampers, applied forces and torques, joint torques and forces."""
        self._need_dynamics()
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        nb = len(self.bodies)
        mass, J = self._inertias()
        p, pd = q.reshape(nb, 7)[:, 3:], qd.reshape(nb, 7)[:, 3:]
        Ld = _euler_matrices(pd, "body")
        out = np.zeros((nb, 7))
        out[:, :3] = mass[:, None] * self.gravity
        out[:, 3:] = 8 * (Ld.transpose(0, 2, 1) @ (J @ (Ld @ p[:, :, None])))[:, :, 0]
        out = out.reshape(7 * nb)
        for s in self.springs:
            length, rate, e, Ji, Jj = self._spring_state(s, q, qd)
            f = s["k"] * (length - s["l0"]) + s["c"] * rate        # tension pulls the ends together
            for b, Jb, sign in ((s["bodies"][0], Ji, 1.0), (s["bodies"][1], Jj, -1.0)):
                out[7 * b.index: 7 * b.index + 7] += Jb.T @ (sign * f * e)
        for load in self.loads:
            value = load["value"](t, q, qd) if callable(load["value"]) else load["value"]
            if load["kind"].startswith("joint"):           # τ ∂θ/∂q, F ∂s/∂q
                what = load["kind"].split()[1]
                v = _validate.number(_as_float(value), f"{load['name']!r} on joint {load['joint'].name!r}: "
                                                       f"the {what}")
                out += v * load["coordinate"].gradient(q)
                continue
            k = 7 * load["body"].index
            v = _v3(value, f"{load['kind']} {load['name']!r} on body {load['body'].name!r}")
            p_b = q[k + 3: k + 7]
            if load["kind"] == "force":                    # Q_r = F, Q_p = P(p, s')ᵀ F
                out[k: k + 3] += v
                out[k + 3: k + 7] += point_jacobian(p_b, load["point"]).T @ v
            else:                                          # n′ = Aᵀ n in body components, Q_p = 2 Lᵀ n′
                out[k + 3: k + 7] += 2 * _L(p_b).T @ (_A(p_b).T @ v)
        return out

    def angular_velocities(self, q, qd) -> np.ndarray:
        """ω of every body in global components, shape ``(n_bodies, 3)``: ``ω = 2 G ṗ`` (= ``A ω′``)."""
        nb = len(self.bodies)
        p = np.asarray(q, dtype=float).reshape(nb, 7)[:, 3:]
        pd = np.asarray(qd, dtype=float).reshape(nb, 7)[:, 3:]
        return 2 * (_euler_matrices(p, "global") @ pd[:, :, None])[:, :, 0]

    def energy(self, q, qd) -> float:
        """Kinetic energy ``½ m ṙᵀṙ + ½ ω′ᵀ J′ ω′`` plus the potentials of gravity ``−m gᵀ r`` and of the
        springs; applied loads are not included."""
        self._need_dynamics()
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        nb = len(self.bodies)
        mass, J = self._inertias()
        x, v = q.reshape(nb, 7), qd.reshape(nb, 7)
        w = 2 * (_euler_matrices(x[:, 3:], "body") @ v[:, 3:, None])[:, :, 0]          # ω′ = 2 L ṗ
        T = 0.5 * (mass @ np.einsum("nc,nc->n", v[:, :3], v[:, :3]) + np.einsum("ni,nij,nj->", w, J, w))
        E = T - float(mass @ (x[:, :3] @ self.gravity))
        for s in self.springs:
            E += 0.5 * s["k"] * (self._spring_state(s, q, qd)[0] - s["l0"]) ** 2
        return float(E)

    # ------------------------------------------------------------------ rolling without slipping
    def add_rolling_disk(self, body, radius, axis=(0.0, 0.0, 1.0), center=(0.0, 0.0, 0.0),
                         plane_point=(0.0, 0.0, 0.0), plane_normal=(0.0, 0.0, 1.0),
                         name=None) -> SpatialJoint:
        """The body rolls without slipping on a fixed plane on the rim of a disk of ``radius``.

        Parameters
        ----------
        body : SpatialBody or str
        radius : float
            The disk's radius [m], > 0.
        axis : array_like, shape (3,)
            The disk's axis in body components (normal to the disk).
        center : array_like, shape (3,)
            The disk's centre in body components, from the body's centre of mass.
        plane_point, plane_normal : array_like, shape (3,)
            A point of the ground plane and its normal (global), pointing to the side where the wheel is.
        name : str, optional
            The name of the height row's joint (default ``"disk <body>"``).

        Returns
        -------
        SpatialJoint
            The holonomic height row.

        Notes
        -----
        With the centre ``c = r + A c′``, the axis ``a = A a′``, the plane's unit normal ``n`` and
        ``w = n − (a·n) a`` (the direction in the disk's plane towards the plane's side, of length
        ``s = √(1 − (a·n)²)``), the contact point is ``c − R w / s`` (Neimark & Fufaev 1972).  Rows:

        * holonomic: the centre is ``R s`` above the plane, ``h² − R² (1 − (a·n)²) = 0`` with
          ``h = (c − p0)·n``;
        * nonholonomic, the contact point's velocity times ``s = h / R`` in the plane's tangent
          directions ``t1, t2``: ``t_k·((h / R) ċ − R ω × w) = 0`` with ``ω = 2 G(p) ṗ`` (the normal
          component follows from the holonomic row).

        ``γ`` and ``b_γ`` are in closed form (jets; ``d/dt ω = 2 G p̈`` since ``G(ṗ) ṗ = 0``).  The disk
        must not lie flat on the plane (``s > 0``) and its centre must start on the normal's side.
        """
        b = self.body(body)
        who = f"rolling disk on body {b.name!r}"
        if isinstance(radius, bool) or not isinstance(radius, int | float | np.floating | np.integer) \
                or not (np.isfinite(radius) and radius > 0):
            raise ModelError(f"{who}: the radius must be positive, got {radius!r}")
        R = float(radius)
        ax = _unit_or_error(axis, f"{who}: axis")
        cen = _v3(center, f"{who}: center")
        p0 = _v3(plane_point, f"{who}: plane_point")
        n = _unit_or_error(plane_normal, f"{who}: plane_normal")
        a0 = _A(b.orientation) @ ax
        s0 = float(np.sqrt(max(0.0, 1.0 - (a0 @ n) ** 2)))
        if s0 < 1e-6:
            raise ModelError(f"{who}: the disk lies flat on the plane at the start (its axis "
                             f"{a0.round(6).tolist()} is along the plane's normal), where the contact point "
                             "is undefined; give the "
                             "body an orientation with the disk standing on its rim")
        h0 = float((self._initial_point(b, cen) - p0) @ n)
        if h0 <= 0:
            raise ModelError(f"{who}: the wheel centre starts {abs(h0):.4g} m on the wrong side of the plane "
                             "(below it, against plane_normal); place the body above the plane, or reverse "
                             "plane_normal so that it points to the wheel's side")
        tangents = _tangents(n)
        el = _Element(_rolling_height, 1, 0, FIXED, {"center": cen, "axis": ax, "normal": n, "point": p0,
                                                     "radius": R})
        name = str(name) if name is not None else f"disk {b.name}"
        joint = self._add("rolling", name, [b], ["height"], [el])
        self.rolling.append(RollingDisk(b, R, ax, cen, p0, n, tangents, name))
        self._changed()
        return joint

    # ------------------------------------------------------------------ unilateral contacts
    def add_sphere_plane(self, body, radius, center=(0.0, 0.0, 0.0), plane_point=(0.0, 0.0, 0.0),
                         plane_normal=(0.0, 0.0, 1.0), *, restitution, friction, name=None) -> Contact:
        """A unilateral contact of a sphere of ``radius`` about the body point ``center`` (body frame) with a
        fixed plane (``plane_normal`` points to the sphere's side): ``g = n·(c − p₀) − R ≥ 0``, two tangent
        directions for friction.  See :func:`mbdlib.contact.sphere_plane`."""
        b = self.body(body)
        who = f"sphere-plane contact on body {b.name!r}"
        if isinstance(radius, bool) or not isinstance(radius, int | float | np.floating | np.integer) \
                or not (np.isfinite(radius) and radius > 0):
            raise ModelError(f"{who}: the radius must be positive, got {radius!r}")
        name = str(name) if name is not None else f"sphere-plane {len(self.contacts) + 1}"
        if any(c.name == name for c in self.contacts):
            raise ModelError(f"a contact named {name!r} already exists; give a unique name=")
        e, mu = contact_parameters(name, restitution, friction)
        normal = _unit_or_error(plane_normal, f"{who}: plane_normal")
        geometry = sphere_plane(b.index, _v3(center, f"{who}: center"), float(radius),
                                _v3(plane_point, f"{who}: plane_point"), normal)
        contact = Contact(name, "sphere-plane", (b.name, "ground"), e, mu, 2, geometry)
        self.contacts.append(contact)
        return contact

    def _disks(self):
        """The rolling disks' data stacked, (K, ...)."""
        if self._disk_cache is None:
            d = self.rolling
            self._disk_cache = dict(
                body=np.array([x.body.index for x in d], dtype=int), R=np.array([x.radius for x in d]),
                axis=_Local([x.axis for x in d]), center=_Local([x.center for x in d]),
                point=np.array([x.plane_point for x in d]).reshape(-1, 3),
                normal=np.array([x.plane_normal for x in d]).reshape(-1, 3),
                T=np.array([x.tangents for x in d]).reshape(-1, 2, 3),
                rows=np.arange(2 * len(d)),
                cols=(7 * np.repeat(np.array([x.body.index for x in d], dtype=int), 2)[:, None]
                      + np.arange(7)))
        return self._disk_cache

    def _rolling(self, q, qd=None):
        """``B`` (2K, n) and, with ``q̇``, ``b_γ`` (2K,) of the K rolling disks, all at once; the last
        evaluation is kept, so that ``b_γ`` and ``B`` at the same state (one KKT solve) cost one pass."""
        q = np.asarray(q, dtype=float)
        qd = None if qd is None else np.asarray(qd, dtype=float)
        key = state_key(q, qd)
        if self._rolling_last is not None and kept_answers(self._rolling_last[0], key):
            return self._rolling_last[1]
        out = self._rolling_rows(q, qd)
        self._rolling_last = (key, out)
        return out

    def _rolling_rows(self, q, qd):
        d = self._disks()
        K = len(d["R"])
        st = _State(q, qd)
        body, R, n, T = d["body"], d["R"], d["normal"], d["T"]
        c, a = _point(st, 0, body, d["center"]), _vector(st, 0, body, d["axis"])
        h = np.einsum("nc,nc->n", c.val - d["point"], n)
        an = np.einsum("nc,nc->n", a.val, n)
        w = n - an[:, None] * a.val
        G2 = 2 * _euler_matrices(st.p[body], "global")                   # ω = 2 G ṗ
        rows = (h / R)[:, None, None] * c.jac[:, :, :7]
        rows[:, :, 3:7] += R[:, None, None] * (_tildes(w) @ G2)          # R w × ω = R w̃ (2G) ṗ
        B = np.zeros((2 * K, st.ncols))
        B[d["rows"][:, None], d["cols"]] = (T @ rows).reshape(2 * K, 7)
        B = B[:, :-7]
        if qd is None:
            return B, None
        omega = (G2 @ st.pd[body][:, :, None])[:, :, 0]
        h_dot = np.einsum("nc,nc->n", c.vel, n)
        w_dot = -np.einsum("nc,nc->n", a.vel, n)[:, None] * a.val - an[:, None] * a.vel
        quad = (h_dot / R)[:, None] * c.vel + (h / R)[:, None] * c.acc + R[:, None] * _cross(w_dot, omega)
        return B, -(T @ quad[:, :, None]).reshape(2 * K)

    def B(self, q, t=0.0) -> np.ndarray:
        """Nonholonomic rows (rolling without slipping), shape ``(2 × rolling bodies, n)``."""
        if not self.rolling:
            return np.zeros((0, self.n))
        return self._rolling(q)[0].copy()

    def b_gamma(self, q, qd, t=0.0) -> np.ndarray:
        """``b_γ`` of ``B q̈ = b_γ``, shape ``(2 × rolling bodies,)``, in closed form:
        ``−t_k·((ḣ/R) ċ + (h/R) c̈_quad + R ẇ × ω)`` with ``ẇ = −(ȧ·n) a − (a·n) ȧ``."""
        if not self.rolling:
            return np.zeros(0)
        return self._rolling(q, qd)[1].copy()

    @property
    def labels(self) -> list[str]:
        """Holonomic rows (joints, then the normalization of each body), then the nonholonomic ones."""
        return super().labels + [f"rolling {d.body.name} {c}" for d in self.rolling
                                 for c in (("x", "y") if _is_xy(d.tangents) else ("t1", "t2"))]

    # ------------------------------------------------------------------ chosen coordinates
    def coordinate(self, key, component=None) -> Coordinate:
        """A coordinate to choose (for :meth:`state`, :func:`mbdlib.linearize`): ``coordinate(body, "x")``
        (``"x"``, ``"y"`` or ``"z"`` of a body's centre of mass), a joint or a joint's name (its one
        coordinate, ``joint.coordinate()``), or a :class:`~mbdlib.model.Coordinate` as it is.  For a
        body's angles see :meth:`euler_angle`."""
        if component is not None:
            b = self.body(key)
            if component not in ("x", "y", "z"):
                raise ModelError(f"coordinate: a body's coordinate is 'x', 'y' or 'z' (for its angles use "
                                 f"model.euler_angle(body, sequence, index)), got {component!r}")
            k = "xyz".index(component)
            return linear_coordinate(f"{component}_{b.name}", "m", {7 * b.index + k: 1.0})
        if isinstance(key, str):
            if not any(j.name == key for j in self.joints):
                names = ", ".join(j.name for j in self.joints) or "none"
                raise ModelError(f"coordinate: no joint named {key!r} (the joints: {names}); for a body's "
                                 "position give coordinate(body, 'x' | 'y' | 'z')")
            return self.joint(key).coordinate()
        if isinstance(key, SpatialJoint):
            return self.joint(key).coordinate()
        return super().coordinate(key)

    def euler_angle(self, body, sequence: str, index: int) -> Coordinate:
        """Angle ``index`` (0, 1 or 2) of a body's Euler angles in ``sequence`` (named as in
        ``scipy.spatial.transform.Rotation``: uppercase intrinsic, e.g. ``"ZXY"``, lowercase extrinsic;
        Tait–Bryan or proper, e.g. ``"ZXZ"``), as a :class:`~mbdlib.model.Coordinate` with exact gradient
        and bias.

        Writing ``A = R_i(α) R_j(β) R_k(γ)`` (the intrinsic form, axes i ≠ j ≠ k, ε = ±1 their
        parity): the middle angle is ``β = asin(ε A_ik)``, the others ``α = atan2(−ε A_jk, A_kk)`` and
        ``γ = atan2(−ε A_ij, A_ii)``, the same entries as :func:`mbdlib.rotations.euler_from_dcm`.  A
        proper sequence ``R_i(α) R_j(β) R_i(γ)`` (c the third axis, ε the parity of (i, j, c)) has
        ``β = acos(A_ii)``, ``α = atan2(A_ji, −ε A_ci)``, ``γ = atan2(A_ij, ε A_ic)``.  Each DCM entry
        ``A_rc = e_rᵀ A e_c`` is a dot-1 jet of the body vector ``e_c`` and the fixed ``e_r``.  At gimbal
        lock (``β = ±90°``, or ``0°``/``180°`` for a proper sequence) the rates are undefined and an error
        is raised.
        """
        b = self.body(body)
        axes, order = _intrinsic_form(sequence)
        i, j, k = axes
        if isinstance(index, bool) or index not in (0, 1, 2):
            raise ModelError(f"euler_angle: index must be 0, 1 or 2 (the angle's place in {sequence!r}), "
                             f"got {index!r}")
        e = np.eye(3)

        def entry(r, c, sign=1.0):                     # sign · A[r, c] = (A (sign e_c))·e_r
            return _dot1_el(sign * e[c], e[r], 0, FIXED)

        which = order[index]
        if i == k:                                     # proper Euler: R_i(α) R_j(β) R_i(γ), c the third axis
            c = 3 - i - j
            eps = _parity(i, j, c)
            if which == 1:
                elements, outer = (entry(i, i),), "acos"
            elif which == 0:
                elements, outer = (entry(j, i), entry(c, i, -eps)), "atan2"
            else:
                elements, outer = (entry(i, j), entry(i, c, eps)), "atan2"
        else:
            eps = _parity(i, j, k)
            if which == 1:
                elements, outer = (entry(i, k, eps),), "asin"
            elif which == 0:
                elements, outer = (entry(j, k, -eps), entry(k, k)), "atan2"
            else:
                elements, outer = (entry(i, j, -eps), entry(i, i)), "atan2"
        return _coordinate(f"{b.name} {sequence}[{index}]", "rad", [(elements, (b.index,), None)], outer)

    # ------------------------------------------------------------------ the system
    def _velocity_weight(self, q):
        """M where the model has dynamics; a kinematic model (no gravity or inertias) weighs all alike."""
        ready = self.gravity is not None and all(b.inertia is not None for b in self.bodies)
        return self.M(q) if ready else np.eye(self.n)

    def _inputs(self) -> dict:
        return {load["name"]: (lambda t, q, qd, c=load["coordinate"]: c.gradient(q))
                for load in self.loads if "coordinate" in load}

    def system(self, state=None) -> ConstrainedSystem:
        """The model's immutable :class:`~mbdlib.system.ConstrainedSystem` (a snapshot), starting at
        ``state`` (default: :meth:`assemble`'s; see :meth:`mbdlib.model.Model.system`).  It needs gravity
        and every body's inertia."""
        self._need_dynamics()
        return super().system(state)


# ---------------------------------------------------------------------- helpers
def _as_float(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def _unit_or_error(x, name):
    """A unit 3-vector; the zero vector is a :class:`ModelError` naming the argument."""
    v = _v3(x, name)
    norm = float(np.linalg.norm(v))
    if norm == 0:
        raise ModelError(f"{name} is the zero vector; give a direction, e.g. (0, 0, 1)")
    return v / norm


def _tangents(n):
    """A fixed orthonormal basis ``t1, t2`` of the plane with unit normal n, ``t1 × t2 = n``: ``t1`` is the
    global axis least aligned with n, projected onto the plane (``x, y`` for ``n = z``)."""
    helper = np.eye(3)[int(np.argmin(np.abs(n)))]
    t1 = helper - (helper @ n) * n
    t1 /= np.linalg.norm(t1)
    return np.array([t1, np.cross(n, t1)])


def _is_xy(T):
    return bool(np.allclose(T, [[1, 0, 0], [0, 1, 0]]))
