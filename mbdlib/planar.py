"""Planar multibody models in Cartesian (absolute) coordinates.

Every moving body has three coordinates, the position of its centre of mass and its
angle, ``q = (x_1, y_1, φ_1, x_2, y_2, φ_2, ...)`` in the order the bodies were added;
``m.ground`` is fixed and has none.  Joints come from :mod:`mbdlib.constraints`; the
model gathers their equations into ``Φ(q, t)``, ``Φ_q``, ``Φ_t``, ``γ``, adds the
nonholonomic rows ``B(q) q̇ = 0``, the mass matrix ``M = diag(m_1, m_1, J_1, ...)`` and the
applied forces ``Q`` (gravity, spring-dampers, loads), which is what the integrators in
:mod:`mbdlib.dae` consume (Haug 1989, ch. 6; Nikravesh 1988, ch. 13).

>>> from math import pi
>>> m = PlanarModel(gravity=(0.0, -9.81))
>>> rod = m.add_body("rod", mass=1.0, inertia=1 / 12, position=(0.5, 0.0))
>>> pin = m.add_revolute(m.ground, rod, point_i=(0.0, 0.0), point_j=(-0.5, 0.0))
>>> m.dof_report().dof
1
>>> round(float(m.M(m.q0)[2, 2]), 4)
0.0833
"""

from __future__ import annotations

import copy
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse

from . import _validate
from ._banded import BandedSchur
from .compiled import CompiledConstraints
from .constraints import (
    Constraint,
    CoordinateDriver,
    Distance,
    DistanceDriver,
    DofReport,
    Gear,
    KnifeEdge,
    Motion,
    PointOnLine,
    RackPinion,
    RelativeAngleDriver,
    Revolute,
    Rigid,
    Translational,
    motion_of,
)
from .contact import Contact, contact_parameters, planar_circle_circle, planar_point_line
from .errors import ModelError, ShapeError, SingularityError
from .linalg import nearby_rank, numerical_rank, rank_analysis
from .model import Coordinate, Model, linear_coordinate
from .system import Assembly, ConstrainedSystem, Structure

__all__ = ["PlanarModel", "PlanarBody"]


@dataclass(eq=False)  # bodies compare by identity
class PlanarBody:
    """A rigid body in the plane; ``inertia`` is the moment of inertia about the centre of mass."""

    name: str
    mass: float
    inertia: float
    position: np.ndarray
    angle: float
    velocity: np.ndarray
    angular_velocity: float
    index: int | None  # None for the ground

    @property
    def is_ground(self) -> bool:
        return self.index is None


def _number(x, name: str, positive: bool = False) -> float:
    return _validate.number(x, name, positive)


def _xy(x, name: str) -> np.ndarray:
    return _validate.vector(x, 2, name, " (x, y)")


def _rot(phi: float, s) -> np.ndarray:
    c, sn = np.cos(phi), np.sin(phi)
    return np.array([c * s[0] - sn * s[1], sn * s[0] + c * s[1]])


class PlanarModel(Model):
    """A planar mechanism in absolute coordinates (x, y, φ per body).

    Parameters
    ----------
    gravity : array_like, shape (2,)
        Gravitational acceleration in global components [m/s²]; required (``(0, -9.81)`` with y up,
        ``(0, 0)`` for a horizontal mechanism): gravity is never assumed.
    """

    def __init__(self, gravity=None):
        self.gravity = _validate.planar_gravity(gravity, "PlanarModel")
        self.ground = PlanarBody("ground", np.inf, np.inf, np.zeros(2), 0.0, np.zeros(2), 0.0, None)
        self.bodies: list[PlanarBody] = []
        self.joints: list[Constraint] = []
        self.springs: list[dict] = []
        self.loads: list[dict] = []
        self.contacts: list[Contact] = []
        self._index: list[np.ndarray] = []  # per joint: indices into (q, ground pose)
        self._assembly: Assembly | None = None
        self._layout_cache: _Layout | None = None  # the revolute joints' index arrays (built on first use)

    def _changed(self):
        self._assembly = self._layout_cache = None

    # ------------------------------------------------------------------ bodies
    @property
    def n(self) -> int:
        """Number of coordinates, ``3 * len(bodies)``."""
        return 3 * len(self.bodies)

    def add_body(self, name: str, mass: float, inertia: float, position=(0.0, 0.0), angle: float = 0.0,
                 velocity=(0.0, 0.0), angular_velocity: float = 0.0) -> PlanarBody:
        """Add a body; ``position``/``angle`` are the initial guess of its centre of mass and angle.

        ``inertia`` is the polar moment about the centre of mass [kg m²]; ``velocity`` and
        ``angular_velocity`` the initial velocities (made consistent by :meth:`assemble`).
        """
        name = str(name)
        if name == "ground" or any(b.name == name for b in self.bodies):
            raise ModelError(f"a body named {name!r} already exists (or is the reserved 'ground'); "
                             "pick another name")
        body = PlanarBody(
            name, _number(mass, f"body {name!r}: mass", True),
            _number(inertia, f"body {name!r}: inertia", True),
            _xy(position, f"body {name!r}: position"), _number(angle, f"body {name!r}: angle"),
            _xy(velocity, f"body {name!r}: velocity"),
            _number(angular_velocity, f"body {name!r}: angular_velocity"), len(self.bodies))
        self.bodies.append(body)
        self._changed()
        return body

    def body(self, b) -> PlanarBody:
        """The body given by object or name; unknown bodies raise :class:`ModelError`."""
        if isinstance(b, PlanarBody):
            if b is self.ground or (b.index is not None and b in self.bodies):
                return b
            raise ModelError(f"body {b.name!r} belongs to another model; add it to this one with add_body")
        if b == "ground":
            return self.ground
        for body in self.bodies:
            if body.name == b:
                return body
        names = ", ".join(["ground"] + [x.name for x in self.bodies])
        raise ModelError(f"unknown body {b!r}; the bodies are: {names}")

    def q_guess(self) -> np.ndarray:
        """The initial guess (positions and angles as given), shape ``(n,)``."""
        return np.array([v for b in self.bodies for v in (*b.position, b.angle)], dtype=float)

    def qd_guess(self, q=None) -> np.ndarray:
        """The given initial velocities, shape ``(n,)`` (they do not depend on ``q``)."""
        return np.array([v for b in self.bodies for v in (*b.velocity, b.angular_velocity)], dtype=float)

    @property
    def coordinate_names(self) -> list[str]:
        """``x_body``, ``y_body``, ``φ_body`` for each body in order."""
        return [f"{c}_{b.name}" for b in self.bodies for c in ("x", "y", "φ")]

    def coordinate(self, key, component=None) -> Coordinate:
        """A coordinate to choose (for :meth:`state`, :func:`mbdlib.linearize`): ``coordinate(body, "x")``
        (``"x"``, ``"y"`` or ``"phi"`` of a body), a joint (or its name) for its angle or slide, or a
        :class:`~mbdlib.model.Coordinate` as it is."""
        if component is not None:
            b = self.body(key)
            coords = {"x": 0, "y": 1, "phi": 2, "φ": 2, "angle": 2}
            if b.is_ground or component not in coords:
                raise ModelError(f"coordinate: give a moving body and 'x', 'y' or 'phi', got {key!r}, "
                                 f"{component!r}")
            k = coords[component]
            return linear_coordinate(f"{('x', 'y', 'φ')[k]}_{b.name}", "rad" if k == 2 else "m",
                                     {3 * b.index + k: 1.0})
        if isinstance(key, str):
            for j in self.joints:
                if j.name == key:
                    return j.coordinate()
            names = ", ".join(j.name for j in self.joints)
            raise ModelError(f"coordinate: no joint named {key!r} (the joints: {names}); for a body's "
                             "coordinate give coordinate(body, 'x' | 'y' | 'phi')")
        return super().coordinate(key)

    def _pose(self, body: PlanarBody, q) -> np.ndarray:
        return np.zeros(3) if body.is_ground else np.asarray(q[3 * body.index: 3 * body.index + 3])

    def point_position(self, body, point, q=None) -> np.ndarray:
        """Global position ``r + A s'`` of a body point, shape ``(2,)`` (default ``q``: the assembled one)."""
        b = self.body(body)
        x, y, phi = self._pose(b, self.q0 if q is None else q)
        return np.array([x, y]) + _rot(phi, _xy(point, "point"))

    # ------------------------------------------------------------------ joints
    def _add(self, joint: Constraint, bodies) -> Constraint:
        if any(j.name == joint.name for j in self.joints):
            raise ModelError(f"a joint named {joint.name!r} already exists; give a unique name=")
        # the ground's pose sits after q: indices -3, -2, -1 of (q, 0, 0, 0), valid however many bodies follow
        idx = [3 * b.index + k if not b.is_ground else k - 3 for b in bodies for k in range(3)]
        self.joints.append(joint)
        self._index.append(np.array(idx, dtype=int))
        joint._local_index = self._index[-1]
        self._changed()
        return joint

    def _pair(self, body_i, body_j, kind: str):
        bi, bj = self.body(body_i), self.body(body_j)
        if bi is bj:
            raise ModelError(f"{kind}: a joint needs two different bodies, got {bi.name!r} twice")
        if bi.is_ground and bj.is_ground:
            raise ModelError(f"{kind}: both bodies are the ground")
        return bi, bj

    def _name(self, name, kind: str, *bodies) -> str:
        if name is not None:
            return str(name)
        return f"{kind}{len(self.joints) + 1} " + "-".join(b.name for b in bodies)

    def add_revolute(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), name=None) -> Revolute:
        """Revolute joint at ``point_i`` of body i (body frame) = ``point_j`` of body j (2 equations)."""
        bi, bj = self._pair(body_i, body_j, "add_revolute")
        name = self._name(name, "rev", bi, bj)
        return self._add(Revolute(name, (bi.name, bj.name), point_i, point_j), (bi, bj))

    def add_translational(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), axis_i=(1.0, 0.0),
                          angle=None, name=None) -> Translational:
        """Prismatic joint: ``point_j`` slides on the line of body i through ``point_i`` along ``axis_i``.

        ``angle`` (the fixed ``φ_j - φ_i``) defaults to its value in the initial guess.
        """
        bi, bj = self._pair(body_i, body_j, "add_translational")
        name = self._name(name, "trans", bi, bj)
        angle = bj.angle - bi.angle if angle is None else _number(angle, f"{name}: angle")
        return self._add(Translational(name, (bi.name, bj.name), point_i, point_j, axis_i, angle), (bi, bj))

    def add_point_on_line(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), axis_i=(1.0, 0.0),
                          name=None) -> PointOnLine:
        """``point_j`` of body j stays on the line of body i through ``point_i`` along ``axis_i`` (1 eq.)."""
        bi, bj = self._pair(body_i, body_j, "add_point_on_line")
        name = self._name(name, "line", bi, bj)
        return self._add(PointOnLine(name, (bi.name, bj.name), point_i, point_j, axis_i), (bi, bj))

    def add_rigid(self, body_i, body_j, point_i=None, point_j=(0.0, 0.0), angle=None, name=None) -> Rigid:
        """Weld body j to body i (3 equations); ``point_i`` and ``angle`` default to the initial guess."""
        bi, bj = self._pair(body_i, body_j, "add_rigid")
        name = self._name(name, "rigid", bi, bj)
        if point_i is None:
            pj = bj.position + _rot(bj.angle, _xy(point_j, f"{name}: point_j"))
            point_i = _rot(-bi.angle, pj - bi.position)
        angle = bj.angle - bi.angle if angle is None else _number(angle, f"{name}: angle")
        return self._add(Rigid(name, (bi.name, bj.name), point_i, point_j, angle), (bi, bj))

    add_weld = add_rigid

    def add_distance(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), length=None,
                     name=None) -> Distance:
        """Keep two points at ``length`` (a massless link); the default length is the initial one."""
        bi, bj = self._pair(body_i, body_j, "add_distance")
        name = self._name(name, "dist", bi, bj)
        if length is None:
            length = float(np.linalg.norm(self._guess_point(bj, point_j) - self._guess_point(bi, point_i)))
        return self._add(Distance(name, (bi.name, bj.name), point_i, point_j, length), (bi, bj))

    def add_gear(self, body_i, body_j, ratio, carrier=None, offset=None, name=None) -> Gear:
        """Gear pair ``ω_j = ratio · ω_i`` relative to ``carrier`` (default ground); external ``-r_i/r_j``."""
        bi, bj = self._pair(body_i, body_j, "add_gear")
        bc = self.ground if carrier is None else self.body(carrier)
        if bc is bi or bc is bj:
            raise ModelError("add_gear: the carrier must differ from both gears")
        name = self._name(name, "gear", bi, bj)
        if offset is None:
            rel_i, rel_j = bi.angle - bc.angle, bj.angle - bc.angle
            offset = rel_j - ratio * rel_i if isinstance(ratio, numbers.Real) else 0.0
        return self._add(Gear(name, (bi.name, bj.name, bc.name), ratio, offset), (bi, bj, bc))

    def add_rack_pinion(self, pinion, rack, radius, point_pinion=(0.0, 0.0), point_rack=(0.0, 0.0),
                        axis_rack=(1.0, 0.0), offset=None, name=None) -> RackPinion:
        """Rack and pinion (pinion on the left of ``axis_rack``); the ground as rack: rolling without slip."""
        bi, bj = self._pair(pinion, rack, "add_rack_pinion")
        name = self._name(name, "rack", bi, bj)
        joint = RackPinion(name, (bi.name, bj.name), point_pinion, point_rack, axis_rack, radius, 0.0)
        if offset is None:
            offset = float(joint.phi(np.concatenate([self._guess_pose(bi), self._guess_pose(bj)]))[0])
        joint.offset = offset
        return self._add(joint, (bi, bj))

    def _guess_pose(self, b: PlanarBody) -> np.ndarray:
        return np.array([*b.position, b.angle])

    def _guess_point(self, b: PlanarBody, point) -> np.ndarray:
        return b.position + _rot(b.angle, _xy(point, "point"))

    # ------------------------------------------------------------------ drivers
    def _motion(self, name, f, df, ddf, speed, start) -> Motion:
        return motion_of(name, f, df, ddf, speed, start)

    def add_driver(self, body, coordinate: str = "phi", f=None, df=None, ddf=None, speed=None,
                   relative_to=None, name=None) -> Constraint:
        """Prescribe a coordinate of ``body``: ``q_k = f(t)`` (or ``φ - φ_ref = f(t)`` with ``relative_to``).

        ``coordinate`` is ``"x"``, ``"y"`` or ``"phi"``; ``f, df, ddf`` are ``f(t), f'(t), f''(t)``
        (a number ``f`` means a constant); ``speed`` is the shortcut ``f = start + speed·t``
        with ``start`` the value in the initial guess.  A driver that repeats what the joints
        already fix raises :class:`ModelError`.
        """
        b = self.body(body)
        if b.is_ground:
            raise ModelError("add_driver: the ground cannot be driven")
        coords = {"x": 0, "y": 1, "phi": 2, "φ": 2, "angle": 2}
        if coordinate not in coords:
            raise ModelError(f"add_driver: coordinate must be 'x', 'y' or 'phi', got {coordinate!r}")
        k = coords[coordinate]
        if relative_to is not None:
            if k != 2:
                raise ModelError("add_driver: relative_to drives a relative angle; use coordinate='phi'")
            ref = self.body(relative_to)
            if ref is b:
                raise ModelError(f"add_driver: relative_to is the driven body {b.name!r} itself")
            name = self._name(name, "drive", ref, b)
            motion = self._motion(name, f, df, ddf, speed, b.angle - ref.angle)
            joint, bodies = RelativeAngleDriver(name, (ref.name, b.name), motion), (ref, b)
        else:
            name = self._name(name, "drive", b)
            motion = self._motion(name, f, df, ddf, speed, self._guess_pose(b)[k])
            joint, bodies = CoordinateDriver(name, (b.name,), k, motion), (b,)
        return self._add_driver(joint, bodies)

    def add_distance_driver(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), f=None, df=None,
                            ddf=None, speed=None, name=None) -> DistanceDriver:
        """Prescribe the distance of two points (a linear actuator): ``|d| = f(t)``."""
        bi, bj = self._pair(body_i, body_j, "add_distance_driver")
        name = self._name(name, "drive", bi, bj)
        start = float(np.linalg.norm(self._guess_point(bj, point_j) - self._guess_point(bi, point_i)))
        motion = self._motion(name, f, df, ddf, speed, start)
        return self._add_driver(DistanceDriver(name, (bi.name, bj.name), point_i, point_j, motion), (bi, bj))

    def _add_driver(self, joint, bodies):
        q = self._best_q()
        before = rank_analysis(self.phi_q(q))[0] if self.joints else 0
        self._add(joint, bodies)
        J = self.phi_q(q)
        rank, _, groups = rank_analysis(J)
        if rank < before + joint.n_eq:
            rows = self.labels
            others = {rows[r] for g in groups for r in g if r < J.shape[0] - joint.n_eq}
            self.joints.pop()
            self._index.pop()
            self._changed()
            raise ModelError(
                f"driver {joint.name!r} is redundant: the joints already fix that motion "
                f"({', '.join(sorted(others)) or 'rank unchanged'}); remove the driver or the joint that "
                "fixes it")
        return joint

    def _best_q(self):
        return self._kept().q0 if self._assembly is not None else self.q_guess()

    def add_knife_edge(self, body, point=(0.0, 0.0), axis=(1.0, 0.0), name=None) -> KnifeEdge:
        """Nonholonomic knife edge: ``point`` of ``body`` cannot move across ``axis`` (``B q̇ = 0``)."""
        b = self.body(body)
        if b.is_ground:
            raise ModelError("add_knife_edge: the ground does not move; give a moving body")
        name = self._name(name, "knife", b)
        return self._add(KnifeEdge(name, (b.name,), point, axis), (b,))

    # ------------------------------------------------------------------ force elements
    def add_spring_damper(self, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), stiffness=0.0,
                          damping=0.0, rest_length=None, name=None) -> dict:
        """Translational spring-damper between two points: tension ``k (ℓ - ℓ0) + c ℓ̇`` along the line."""
        bi, bj = self._pair(body_i, body_j, "add_spring_damper")
        name = str(name) if name is not None else f"spring{len(self.springs) + 1}"
        pi, pj = _xy(point_i, f"{name}: point_i"), _xy(point_j, f"{name}: point_j")
        if rest_length is None:
            rest_length = float(np.linalg.norm(self._guess_point(bj, pj) - self._guess_point(bi, pi)))
        k, c, l0 = (_number(v, f"{name}: {lab}") for v, lab in
                    ((stiffness, "stiffness"), (damping, "damping"), (rest_length, "rest_length")))
        if k < 0 or c < 0 or l0 < 0:
            raise ModelError(f"{name}: stiffness, damping and rest_length must be >= 0")
        spring = dict(name=name, bodies=(bi, bj), points=(pi, pj), k=k, c=c, l0=l0)
        self.springs.append(spring)
        return spring

    def add_force(self, body, force, point=(0.0, 0.0), name=None) -> dict:
        """Applied force (global components) at a body point: a (2,) constant or ``force(t, q, qd)``."""
        b = self.body(body)
        if b.is_ground:
            raise ModelError("add_force: a force on the ground does nothing; apply it to a moving body")
        if not callable(force):
            force = _xy(force, "force")
        load = dict(name=name or f"force{len(self.loads) + 1}", body=b, force=force,
                    point=_xy(point, "point"), torque=None)
        self.loads.append(load)
        return load

    def add_torque(self, body, torque, name=None) -> dict:
        """Applied torque on a body [N m]: a number or ``torque(t, q, qd)``."""
        b = self.body(body)
        if b.is_ground:
            raise ModelError("add_torque: a torque on the ground does nothing; apply it to a moving body")
        if not callable(torque):
            torque = _number(torque, "torque")
        load = dict(name=name or f"torque{len(self.loads) + 1}", body=b, force=None, point=None,
                    torque=torque)
        self.loads.append(load)
        return load

    def add_joint_torque(self, joint, torque, name=None) -> dict:
        """A torque ``τ`` [N m] in a revolute joint: ``+τ`` on body j, ``−τ`` on body i, about the joint
        (generalized force ``τ ∂θ/∂q``, θ the joint angle); a number or ``torque(t, q, qd)``.  Its name is
        an input of :func:`mbdlib.linearize`."""
        return self._add_joint_load(joint, "angle", torque, name, "torque")

    def add_joint_force(self, joint, force, name=None) -> dict:
        """A force ``F`` [N] along a translational (or point-on-line) joint's slide: ``+F`` on body j,
        ``−F`` on body i (generalized force ``F ∂s/∂q``); a number or ``force(t, q, qd)``."""
        return self._add_joint_load(joint, "slide", force, name, "force")

    def _add_joint_load(self, joint, kind, value, name, what):
        if not any(joint is j for j in self.joints):
            raise ModelError(f"add_joint_{what}: {joint!r} is not a joint of this model")
        coordinate = joint._coordinate(kind)
        if not callable(value):
            value = _number(value, f"add_joint_{what} on {joint.name!r}: {what}")
        name = str(name) if name is not None else f"{joint.name} {what}"
        if any(load["name"] == name for load in self.loads):
            raise ModelError(f"add_joint_{what}: a load named {name!r} already exists; give a unique name=")
        load = dict(name=name, body=None, force=None, point=None, torque=None, joint=joint, value=value,
                    coordinate=coordinate, unit=lambda t, q, qd, c=coordinate: c.gradient(q))
        self.loads.append(load)
        return load

    # ------------------------------------------------------------------ unilateral contacts
    def _add_contact(self, kind, bodies, geometry, restitution, friction, name) -> Contact:
        name = str(name) if name is not None else f"{kind} {len(self.contacts) + 1}"
        if any(c.name == name for c in self.contacts):
            raise ModelError(f"a contact named {name!r} already exists; give a unique name=")
        e, mu = contact_parameters(name, restitution, friction)
        contact = Contact(name, kind, tuple(b.name for b in bodies), e, mu, 1, geometry)
        self.contacts.append(contact)
        return contact

    def _moving(self, body, what):
        b = self.body(body)
        if b.is_ground:
            raise ModelError(f"{what}: the ground cannot touch a fixed line; give a moving body")
        return b

    def add_point_line(self, body, point=(0.0, 0.0), line_point=(0.0, 0.0), normal=(0.0, 1.0), *,
                       restitution, friction, name=None) -> Contact:
        """A unilateral contact of a body point with a fixed line: ``g = n·(r + A s' − p₀) ≥ 0``.

        ``point`` is in the body frame; ``line_point`` and the unit ``normal`` (pointing to the side where
        the point may be) are global.  ``restitution`` e ∈ [0, 1] and ``friction`` μ ≥ 0 are required
        (no default hides them).  See :func:`mbdlib.contact.planar_point_line`.
        """
        b = self._moving(body, "add_point_line")
        point = _xy(point, "add_point_line: point")
        geometry = planar_point_line(b.index, point, _xy(line_point, "line_point"), _xy(normal, "normal"))
        return self._add_contact("point-line", (b, self.ground), geometry, restitution, friction, name)

    def add_circle_line(self, body, radius, center=(0.0, 0.0), line_point=(0.0, 0.0), normal=(0.0, 1.0), *,
                        restitution, friction, name=None) -> Contact:
        """A circle of ``radius`` about the body point ``center`` against a fixed line (a wheel on the
        floor): ``g = n·(c − p₀) − R ≥ 0``; friction acts at the contact point ``c − R n``."""
        b = self._moving(body, "add_circle_line")
        R = _number(radius, "add_circle_line: radius", True)
        geometry = planar_point_line(b.index, _xy(center, "center"), _xy(line_point, "line_point"),
                                     _xy(normal, "normal"), R)
        return self._add_contact("circle-line", (b, self.ground), geometry, restitution, friction, name)

    def add_circle_circle(self, body_i, body_j, radius_i, radius_j, center_i=(0.0, 0.0), center_j=(0.0, 0.0),
                          inside=False, *, restitution, friction, name=None) -> Contact:
        """Two circles, on bodies i and j (either may be the ground), centres in body frames.

        Outside (two disks, Newton's cradle): ``g = ‖c_j − c_i‖ − R_i − R_j``.  ``inside=True``: circle j
        moves inside circle i (a pin in a hole: a joint with clearance ``R_i − R_j``),
        ``g = R_i − R_j − ‖c_j − c_i‖``.
        """
        bi, bj = self._pair(body_i, body_j, "add_circle_circle")
        Ri = _number(radius_i, "add_circle_circle: radius_i", True)
        Rj = _number(radius_j, "add_circle_circle: radius_j", True)
        if inside and Rj >= Ri:
            raise ModelError(f"add_circle_circle: the inner circle (radius_j = {Rj:g}) must be smaller than "
                             f"the outer one (radius_i = {Ri:g}) for inside=True (a pin in a larger hole)")
        geometry = planar_circle_circle(bi.index, _xy(center_i, "center_i"), Ri, bj.index,
                                        _xy(center_j, "center_j"), Rj, bool(inside))
        return self._add_contact("circle-in-circle" if inside else "circle-circle", (bi, bj), geometry,
                                 restitution, friction, name)

    # ------------------------------------------------------------------ the equations (the system binds them)
    def _local(self, x, k):
        return np.concatenate([x, np.zeros(3)])[self._index[k]]

    def _holonomic(self):
        return [(k, j) for k, j in enumerate(self.joints) if not j.nonholonomic]

    def _nonholonomic(self):
        return [(k, j) for k, j in enumerate(self.joints) if j.nonholonomic]

    def _stack_rows(self, q, pairs, block):
        q = np.asarray(q, dtype=float)
        rows = [np.zeros((0, self.n))]
        for k, j in pairs:
            local = np.asarray(block(j, self._local(q, k)), dtype=float)
            full = np.zeros((local.shape[0], self.n + 3))
            np.add.at(full, (slice(None), self._index[k]), local)
            rows.append(full[:, : self.n])
        return np.vstack(rows)

    def _layout(self) -> _Layout:
        if self._layout_cache is None:
            self._layout_cache = _Layout(self)
        return self._layout_cache

    @property
    def labels(self) -> list[str]:
        """One label per constraint row: holonomic rows, then the nonholonomic ones."""
        return [lab for _, j in self._holonomic() for lab in j.labels] + \
               [lab for _, j in self._nonholonomic() for lab in j.labels]

    def phi(self, q, t=0.0) -> np.ndarray:
        """``Φ(q, t)``, shape ``(m,)``: the revolute joints all at once, the other joints one by one."""
        lay, q = self._layout(), np.asarray(q, dtype=float)
        out = np.empty(lay.m)
        if lay.n_rev:
            out[lay.rows_x], out[lay.rows_y] = lay.phi(q)
        for k, j, rows in lay.others:
            out[rows] = j.phi(self._local(q, k), t)
        return out

    def phi_q(self, q, t=0.0) -> np.ndarray:
        """``Φ_q``, shape ``(m, n)`` (dense; :meth:`phi_q_sparse` gives the same matrix in CSR form)."""
        lay, q = self._layout(), np.asarray(q, dtype=float)
        J = np.zeros((lay.m, self.n))
        if lay.n_rev:
            J[lay.rev_rows, lay.rev_cols] = lay.jacobian_values(q)[lay.keep]
        for k, j, rows in lay.others:
            J[rows] = self._stack_rows(q, [(k, j)], lambda j, ql: j.jacobian(ql, t))
        return J

    def phi_q_sparse(self, q, t=0.0) -> scipy.sparse.csr_matrix:
        """``Φ_q`` as a ``scipy.sparse`` CSR matrix, shape ``(m, n)``: ≤ 4 non-zeros per revolute row."""
        lay, q = self._layout(), np.asarray(q, dtype=float)
        if not lay.others:
            data = lay.jacobian_values(q)[lay.keep][lay.perm]
            return scipy.sparse.csr_matrix((data, lay.indices, lay.indptr), shape=(lay.m, self.n))
        return scipy.sparse.csr_matrix(self.phi_q(q, t))

    def banded_schur(self):
        """The band factorization of ``S = Φ_q M⁻¹ Φ_qᵀ`` (:class:`mbdlib._banded.BandedSchur`) when every
        joint is a revolute joint, else None; :mod:`mbdlib.dae` uses it with :meth:`jacobian_values`."""
        lay = self._layout()
        if lay.others or not lay.n_rev or self._nonholonomic():
            return None
        if lay.banded is None:
            lay.banded = BandedSchur(lay.rev_rows, lay.rev_cols, lay.m, self.n)
        return lay.banded

    def jacobian_values(self, q, t=0.0) -> np.ndarray:
        """The non-zeros of ``Φ_q`` in the order of :meth:`banded_schur`'s pattern (revolute joints only)."""
        lay = self._layout()
        return lay.jacobian_values(np.asarray(q, dtype=float))[lay.keep]

    def phi_t(self, q, t=0.0) -> np.ndarray:
        """``Φ_t``, shape ``(m,)`` (zero for every joint that is not a driver)."""
        lay = self._layout()
        out = np.zeros(lay.m)
        for k, j, rows in lay.others:
            out[rows] = j.phi_t(self._local(q, k), t)
        return out

    def gamma(self, q, qd, t=0.0) -> np.ndarray:
        """``γ`` of ``Φ_q q̈ = γ``, shape ``(m,)``."""
        lay, q, qd = self._layout(), np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        out = np.empty(lay.m)
        if lay.n_rev:
            out[lay.rows_x], out[lay.rows_y] = lay.gamma(q, qd)
        for k, j, rows in lay.others:
            out[rows] = j.gamma(self._local(q, k), self._local(qd, k), t)
        return out

    def B(self, q, t=0.0) -> np.ndarray:
        """Nonholonomic rows ``B(q)`` of ``B q̇ = 0``, shape ``(k, n)``."""
        return self._stack_rows(q, self._nonholonomic(), lambda j, ql: j.B(ql, t))

    def b_gamma(self, q, qd, t=0.0) -> np.ndarray:
        """Right side of ``B q̈ = b_gamma``, shape ``(k,)``."""
        return np.concatenate([[]] + [j.b_gamma(self._local(q, k), self._local(qd, k), t)
                                      for k, j in self._nonholonomic()])

    def M(self, q=None) -> np.ndarray:
        """Mass matrix ``diag(m_1, m_1, J_1, ...)``, shape ``(n, n)`` (constant)."""
        return np.diag(self.M_diagonal())

    def M_diagonal(self, q=None) -> np.ndarray:
        """The diagonal of ``M`` (``M`` is diagonal in Cartesian coordinates), shape ``(n,)``."""
        return np.array([v for b in self.bodies for v in (b.mass, b.mass, b.inertia)], dtype=float)

    def _gravity_force(self) -> np.ndarray:
        G = np.zeros(self.n)
        masses = np.array([b.mass for b in self.bodies], dtype=float)
        G[0::3], G[1::3] = masses * self.gravity[0], masses * self.gravity[1]
        return G

    def _spring(self, s, q, qd):
        """Length, rate, unit vector and the point Jacobians ``[I, B s']`` of a spring."""
        out = []
        for b, p in zip(s["bodies"], s["points"], strict=True):
            x, y, phi = self._pose(b, q)
            As = _rot(phi, p)
            r = np.array([x, y]) + As
            J = np.array([[1.0, 0.0, -As[1]], [0.0, 1.0, As[0]]])  # [I, B s']
            v = np.zeros(2) if b.is_ground or qd is None else J @ self._pose(b, qd)
            out.append((r, v, J))
        d, dv = out[1][0] - out[0][0], out[1][1] - out[0][1]
        length = float(np.hypot(*d))
        if length == 0:
            raise SingularityError(f"spring {s['name']!r}: its two points coincide, so the direction of its "
                                   "force is undefined; attach it to points that stay apart")
        e = d / length
        return length, float(e @ dv), e, out[0][2], out[1][2]

    def Q(self, t, q, qd) -> np.ndarray:
        """Generalized applied forces: gravity, spring-dampers, loads, shape ``(n,)`` (Haug 1989, §6.1)."""
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        Q = self._gravity_force()
        for s in self.springs:
            length, rate, e, Ji, Jj = self._spring(s, q, qd)
            f = s["k"] * (length - s["l0"]) + s["c"] * rate  # tension pulls P_i towards P_j
            for b, J, sign in ((s["bodies"][0], Ji, 1.0), (s["bodies"][1], Jj, -1.0)):
                if not b.is_ground:
                    Q[3 * b.index: 3 * b.index + 3] += J.T @ (sign * f * e)
        for load in self.loads:
            if load.get("coordinate") is not None:             # a joint torque or force
                v = load["value"](t, q, qd) if callable(load["value"]) else load["value"]
                Q += _number(float(v), f"{load['name']}") * load["coordinate"].gradient(q)
                continue
            k = 3 * load["body"].index
            if load["torque"] is not None:
                tau = load["torque"](t, q, qd) if callable(load["torque"]) else load["torque"]
                Q[k + 2] += _number(float(tau), f"{load['name']}: torque")
            else:
                F = _xy(load["force"](t, q, qd), f"{load['name']}: force") if callable(load["force"]) \
                    else load["force"]
                As = _rot(q[k + 2], load["point"])
                Q[k: k + 2] += F
                Q[k + 2] += As[0] * F[1] - As[1] * F[0]  # (B s')ᵀ F = (A s') × F
        return Q

    def energy(self, q, qd) -> float:
        """Kinetic + potential energy (gravity and springs) [J]; applied loads are not included."""
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        T = 0.5 * qd @ (self.M_diagonal() * qd)
        V = -float(self._gravity_force() @ q)
        for s in self.springs:
            V += 0.5 * s["k"] * (self._spring(s, q, None)[0] - s["l0"]) ** 2
        return float(T + V)

    # ------------------------------------------------------------------ assembly and the system
    def _assembly_failure(self, q, iterations, residual) -> ModelError:
        gaps = [(j.gap(self._local(q, k), 0.0), j) for k, j in self._holonomic()]
        gap, worst = max(gaps, key=lambda g: g[0])
        return ModelError(
            f"cannot assemble: joint {worst.name!r} cannot close, distance {gap:.4g} "
            f"(largest residual after {iterations} Newton iterations, max |Φ| = {residual:.3g}); check its "
            "points and the link lengths, or start from a closer guess")

    def _describe(self) -> str:
        return f"PlanarModel ({len(self.bodies)} bodies)"

    def _structure(self):
        M = self.M_diagonal()
        bs = self.banded_schur()
        values = self.jacobian_values if bs else None
        return Structure(mass_diagonal=lambda: M, band=bs, jacobian_values=values)

    def _inputs(self) -> dict:
        return {load["name"]: load["unit"] for load in self.loads if load.get("unit") is not None}

    def system(self, state: Assembly | None = None, compiled: bool = False) -> ConstrainedSystem:
        """The immutable :class:`~mbdlib.system.ConstrainedSystem` of the model (a snapshot), starting at
        ``state`` (default: :meth:`assemble`'s state; see :meth:`mbdlib.model.Model.system`).

        ``compiled``: ``Φ``, ``Φ_q``, ``Φ_t``, ``γ`` derived once by sympy and compiled
        (:class:`mbdlib.compiled.CompiledConstraints`): faster calls for a model simulated long; the
        band storage, when the model has one, then reads the compiled Jacobian.
        """
        state = self._start(state)
        model = copy.deepcopy(self)
        if not compiled:
            return model._bind(state)
        c = CompiledConstraints(model)
        bs, M = model.banded_schur(), model.M_diagonal()
        values = None
        if bs is not None:
            rows, cols = bs.rows, bs.cols

            def values(q, t=0.0):
                return c.phi_q(q, t)[rows, cols]
        return ConstrainedSystem(
            n=model.n, M=model.M, Q=model.Q, phi=c.phi, phi_q=c.phi_q, phi_t=c.phi_t, gamma=c.gamma,
            B=model.B, b_gamma=model.b_gamma, energy=model.energy, q0=state.q0, qd0=state.qd0, t0=state.t0,
            labels=model.labels, coordinate_names=model.coordinate_names,
            structure=Structure(mass_diagonal=lambda: M, band=bs, jacobian_values=values),
            inputs=model._inputs(), name=f"{model._describe()}, compiled ({c.backend})",
            contacts=model._contacts())

    def dof_report(self, q=None, t: float = 0.0, rtol: float = 1e-8) -> DofReport:
        """Degrees of freedom by Grübler's count and by the rank of ``Φ_q`` at ``q`` (default: assembled).

        When the rank is deficient, the model is moved a little along the null space of
        ``Φ_q`` and closed again (Newton) at a few nearby configurations: if the rank comes
        back there, this configuration is *singular*; if not, the dependent equations are
        *redundant*.
        """
        notes = []
        if q is None:
            try:
                q = self.q0
            except ModelError as exc:
                q = self.q_guess()
                notes.append(f"note: not assembled ({exc}); rank taken at the initial guess")
        q = np.asarray(q, dtype=float)
        if q.shape != (self.n,):
            raise ShapeError(f"dof_report: q must have shape ({self.n},), got {q.shape}")
        J, labels = self.phi_q(q, t), self.labels
        m = J.shape[0]
        rank, dependent, groups = rank_analysis(J, rtol)
        names = [j.name for _, j in self._holonomic() for _ in j.labels]
        redundant, singular = [], False
        if dependent:
            g_rank, g_dep = nearby_rank(lambda x: self.phi(x, t), lambda x: self.phi_q(x, t), q, rtol)
            singular = g_rank > rank
            redundant = [labels[r] for r in g_dep]
        k = len(self.B(q, t))
        velocity_rank = numerical_rank(np.vstack([J, self.B(q, t)]), rtol) if k else rank
        return DofReport(
            grubler=self.n - m, coordinates=self.n, constraints=m, rank=rank, dof=self.n - rank,
            redundant=redundant, singular=singular, dependent=[labels[r] for r in dependent],
            involved=sorted({names[r] for g in groups for r in g}, key=names.index), nonholonomic=k,
            velocity_dof=self.n - int(velocity_rank), notes=notes)


class _Layout:
    """Index arrays that evaluate all revolute joints of a model at once (numpy, no loop over joints).

    Revolute joint r between bodies i and j (ground: index −1, whose pose is the zeros after q):
    ``Φ = r_i + A_i s'_i − r_j − A_j s'_j``; its Jacobian rows have the non-zeros
    ``[1, 0, −(A_i s'_i)_y | −1, 0, (A_j s'_j)_y]`` and ``[0, 1, (A_i s'_i)_x | 0, −1, −(A_j s'_j)_x]`` in
    the columns ``x_i, y_i, φ_i | x_j, y_j, φ_j`` (ground columns dropped); ``γ = A_i s'_i φ̇_i² −
    A_j s'_j φ̇_j²``.  Other joints keep their own (looped) equations.
    """

    def __init__(self, model: PlanarModel):
        n, rows, rev, self.others = model.n, 0, [], []
        for k, j in model._holonomic():
            if type(j) is Revolute:
                rev.append((k, j, rows))
            else:
                self.others.append((k, j, slice(rows, rows + j.n_eq)))
            rows += j.n_eq
        self.m, self.n_rev = rows, len(rev)
        base = [model._index[k] for k, _, _ in rev]             # the 6 pose indices of (i, j), ground < 0
        self.i_pose = np.array([b[:3] for b in base], dtype=int).reshape(-1, 3)
        self.j_pose = np.array([b[3:] for b in base], dtype=int).reshape(-1, 3)
        self.s_i = np.array([j.point_i for _, j, _ in rev], dtype=float).reshape(-1, 2)
        self.s_j = np.array([j.point_j for _, j, _ in rev], dtype=float).reshape(-1, 2)
        self.rows_x = np.array([r for _, _, r in rev], dtype=int)
        self.rows_y = self.rows_x + 1
        # Jacobian values in the order (row x: xi, φi, xj, φj; row y: yi, φi, yj, φj) per joint
        rx, ry = self.rows_x[:, None], self.rows_y[:, None]
        ip, jp = self.i_pose, self.j_pose
        r_all = np.hstack([np.repeat(rx, 4, axis=1), np.repeat(ry, 4, axis=1)]).ravel()
        c_all = np.hstack([ip[:, [0]], ip[:, [2]], jp[:, [0]], jp[:, [2]],
                           ip[:, [1]], ip[:, [2]], jp[:, [1]], jp[:, [2]]]).ravel()
        self.keep = c_all >= 0                                   # ground columns dropped
        self._values = np.zeros((self.n_rev, 8))
        self._values[:, [0, 4]], self._values[:, [2, 6]] = 1.0, -1.0
        self._last_q, self._last_points, self.banded = None, None, None
        self.rev_rows, self.rev_cols = r_all[self.keep], c_all[self.keep]
        if self.n_rev and not self.others:
            order = scipy.sparse.csr_matrix((np.arange(1, self.rev_rows.size + 1, dtype=float),
                                             (self.rev_rows, self.rev_cols)), shape=(self.m, n))
            order.sort_indices()
            self.perm = order.data.astype(int) - 1
            self.indices, self.indptr = order.indices.copy(), order.indptr.copy()

    def _points(self, q):
        """Poses of both bodies of every revolute joint and ``A s'`` of both points (last q remembered)."""
        if self._last_q is not None and np.array_equal(q, self._last_q):
            return self._last_points
        qx = np.concatenate([q, np.zeros(3)])
        pi, pj = qx[self.i_pose], qx[self.j_pose]
        ci, si, cj, sj = np.cos(pi[:, 2]), np.sin(pi[:, 2]), np.cos(pj[:, 2]), np.sin(pj[:, 2])
        (ui, vi), (uj, vj) = self.s_i.T, self.s_j.T
        ai, aj = np.empty((self.n_rev, 2)), np.empty((self.n_rev, 2))
        ai[:, 0], ai[:, 1] = ci * ui - si * vi, si * ui + ci * vi          # A_i s'_i
        aj[:, 0], aj[:, 1] = cj * uj - sj * vj, sj * uj + cj * vj
        self._last_q, self._last_points = np.array(q, dtype=float), (pi, pj, ai, aj)
        return self._last_points

    def phi(self, q):
        pi, pj, ai, aj = self._points(q)
        d = pi[:, :2] + ai - pj[:, :2] - aj
        return d[:, 0], d[:, 1]

    def jacobian_values(self, q):
        _, _, ai, aj = self._points(q)
        v = self._values
        v[:, 1], v[:, 3], v[:, 5], v[:, 7] = -ai[:, 1], aj[:, 1], ai[:, 0], -aj[:, 0]
        return v.ravel()

    def gamma(self, q, qd):
        _, _, ai, aj = self._points(q)
        qdx = np.concatenate([qd, np.zeros(3)])
        wi, wj = qdx[self.i_pose[:, 2]], qdx[self.j_pose[:, 2]]
        g = ai * (wi**2)[:, None] - aj * (wj**2)[:, None]
        return g[:, 0], g[:, 1]
