"""The contact problems of chapter 9, ready-made: each function builds a model with its contacts.

* :func:`bouncing_ball` — a disk dropped on the floor (restitution e);
* :func:`rocking_block` — a rectangular block rocking on its two bottom corners (Housner 1963);
* :func:`sliding_disk` — a disk thrown along the floor without spin, sliding then rolling;
* :func:`bowling_ball` — the same in space: a sphere on a plane (Euler parameters);
* :func:`newtons_cradle` — disks in a row on a horizontal line, the first one moving;
* :func:`clearance_slider_crank` — a slider-crank whose wrist pin sits in a slightly larger hole.

The closed forms they are checked against are derived in the chapter and in ``tests/test_contact.py``.

>>> m = bouncing_ball(height=1.0, restitution=0.5)
>>> [c.name for c in m.contacts], round(m.contacts[0].gap(m.q0), 12)
(['floor'], 1.0)
"""

from __future__ import annotations

import numpy as np

from .errors import ModelError
from .planar import PlanarModel
from .spatial import SpatialModel
from .system import Assembly

__all__ = ["bouncing_ball", "rocking_block", "sliding_disk", "bowling_ball", "newtons_cradle",
           "clearance_slider_crank"]


def bouncing_ball(height=1.0, radius=0.1, restitution=0.8, mass=1.0, g=9.81, friction=0.0,
                  velocity=(0.0, 0.0)):
    """A disk (uniform, ``radius``) whose lowest point starts ``height`` above the floor ``y = 0``."""
    m = PlanarModel(gravity=(0.0, -g))
    ball = m.add_body("ball", mass, 0.5 * mass * radius**2, position=(0.0, height + radius),
                      velocity=velocity)
    m.add_circle_line(ball, radius, restitution=restitution, friction=friction, name="floor")
    return m


def rocking_block(half_width=0.1, half_height=0.4, tilt=0.1, restitution=0.0, friction=1.0, mass=1.0,
                  g=9.81, inertia=None):
    """A block ``2b × 2h`` standing on its right corner, turned by ``tilt`` [rad] (> 0: its left corner up,
    at rest; 0 < tilt < α = atan(b/h) so that it falls back).  ``inertia`` about the centre of mass
    defaults to the uniform block's ``m (b² + h²) / 3``.  Contacts ``"left"`` and ``"right"``: its
    corners."""
    b, h = float(half_width), float(half_height)
    if not 0 < tilt < np.arctan2(b, h):
        raise ModelError(f"rocking_block: tilt must lie in (0, atan(b/h) = {np.arctan2(b, h):.4g}) rad, got "
                         f"{tilt!r}")
    c, s = np.cos(-tilt), np.sin(-tilt)
    centre = np.array([b, 0.0]) + np.array([[c, -s], [s, c]]) @ np.array([-b, h])
    m = PlanarModel(gravity=(0.0, -g))
    J = mass * (b * b + h * h) / 3 if inertia is None else inertia
    block = m.add_body("block", mass, J, position=centre, angle=-tilt)
    m.add_point_line(block, (-b, -h), restitution=restitution, friction=friction, name="left")
    m.add_point_line(block, (b, -h), restitution=restitution, friction=friction, name="right")
    return m


def sliding_disk(radius=0.2, speed=3.0, spin=0.0, friction=0.3, mass=2.0, g=9.81):
    """A uniform disk on the floor ``y = 0`` moving at ``speed`` with angular velocity ``spin``."""
    m = PlanarModel(gravity=(0.0, -g))
    disk = m.add_body("disk", mass, 0.5 * mass * radius**2, position=(0.0, radius), velocity=(speed, 0.0),
                      angular_velocity=spin)
    m.add_circle_line(disk, radius, restitution=0.0, friction=friction, name="floor")
    return m


def bowling_ball(radius=0.108, speed=7.0, friction=0.2, mass=7.0, g=9.81):
    """A uniform sphere on the plane ``z = 0`` thrown along x without spin (inertia ``2 m R² / 5``)."""
    m = SpatialModel(gravity=(0.0, 0.0, -g))
    ball = m.add_body("ball", position=(0.0, 0.0, radius), mass=mass, inertia=[0.4 * mass * radius**2] * 3,
                      velocity=(speed, 0.0, 0.0))
    m.add_sphere_plane(ball, radius, restitution=0.0, friction=friction, name="lane")
    return m


def newtons_cradle(n=3, radius=0.05, gap=0.0, speed=1.0, restitution=1.0, mass=1.0):
    """``n`` equal disks on the x axis (no gravity), ``gap`` apart, the first one moving at ``speed``.

    ``restitution``: one number, or one per contact (``n − 1``; contact k joins disks k and k + 1)."""
    e = np.broadcast_to(np.asarray(restitution, dtype=float), (n - 1,))
    m = PlanarModel(gravity=(0.0, 0.0))
    disks = [m.add_body(f"disk{k + 1}", mass, 0.5 * mass * radius**2, position=((2 * radius + gap) * k, 0.0),
                        velocity=(speed if k == 0 else 0.0, 0.0)) for k in range(n)]
    for k in range(n - 1):
        m.add_circle_circle(disks[k], disks[k + 1], radius, radius, restitution=float(e[k]), friction=0.0,
                            name=f"{k + 1}-{k + 2}")
    return m


def clearance_slider_crank(clearance=1e-4, crank=0.1, rod=0.3, speed=20.0, restitution=0.0, friction=0.1,
                           hole=0.01, driven=True, ideal=False):
    """A slider-crank (crank 0.5 kg, rod 1 kg, slider 2 kg; no gravity) whose wrist joint (rod–slider) is a
    pin of radius ``hole − clearance`` in a hole of radius ``hole``: a circle-in-circle contact
    ``"clearance"``.  ``driven``: the crank turns at ``speed`` [rad/s]; else it starts at that rate and
    turns freely.  ``ideal=True`` gives the same mechanism with a revolute wrist ``"wrist"`` instead.

    Returns ``(model, state)``: the model and its start state (crank up, the pin centred in the hole, the
    velocities of the ideal mechanism).
    """
    if not 0 < clearance < hole:
        raise ModelError(f"clearance_slider_crank: need 0 < clearance < hole, got {clearance!r}, {hole!r}")

    def build(with_pin):
        a, b = float(crank), float(rod)
        xs = np.sqrt(b * b - a * a)
        m = PlanarModel(gravity=(0.0, 0.0))
        c = m.add_body("crank", 0.5, 0.5 * a * a / 12, position=(0.0, a / 2), angle=np.pi / 2,
                       angular_velocity=speed)
        r = m.add_body("rod", 1.0, b * b / 12, position=(0.5 * xs, 0.5 * a), angle=np.arctan2(-a, xs))
        s = m.add_body("slider", 2.0, 1e-3, position=(xs, 0.0))
        m.add_revolute(m.ground, c, (0.0, 0.0), (-a / 2, 0.0), name="crank pin")
        m.add_revolute(c, r, (a / 2, 0.0), (-b / 2, 0.0), name="rod pin")
        m.add_translational(m.ground, s, (0.0, 0.0), (0.0, 0.0), (1.0, 0.0), name="slide")
        if driven:
            m.add_driver(c, "phi", speed=speed, name="motor")
        if with_pin:
            m.add_revolute(r, s, (b / 2, 0.0), (0.0, 0.0), name="wrist")
        else:
            m.add_circle_circle(s, r, hole, hole - clearance, (0.0, 0.0), (b / 2, 0.0), inside=True,
                                restitution=restitution, friction=friction, name="clearance")
        return m

    pinned = build(True)
    crank_joint = pinned.joints[0]
    st = pinned.state() if driven else pinned.state(speeds={crank_joint: speed})
    if ideal:
        return pinned, st
    return build(False), Assembly(st.q0, st.qd0)
