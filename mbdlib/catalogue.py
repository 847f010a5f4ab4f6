"""The course's mechanisms, ready-made in every coordinate set (document 001, §4 and §6).

:func:`mechanism` builds the double pendulum, the slider-crank, the four-bar, the IFToMM N-four-bar
(benchmark A02, with its exact motion :func:`n_fourbar_exact` and :func:`n_fourbar_tip`), a car with
rack-and-pinion steering towing a trailer (knife-edge wheels, a steering input :func:`sine_steer`) and the
spatial 6R arm as :class:`~mbdlib.planar.PlanarModel` (Cartesian), :class:`~mbdlib.coordinates.RelativeModel`
(relative or mixed), :class:`~mbdlib.dynamics.ChainModel` or :class:`~mbdlib.spatial.SpatialModel`,
so that one state can be compared across descriptions (:func:`mbdlib.coordinates.convert`).

>>> [mechanism("fourbar", coordinates=c, gravity=(0.0, -9.81)).n for c in COORDINATE_SETS]
[9, 3, 5]
>>> [mechanism("car_trailer", coordinates=c, gravity=(0.0, 0.0)).n for c in COORDINATE_SETS]
[15, 7, 9]

References: IFToMM Technical Committee for Multibody Dynamics, *Library of computational benchmark
problems*, A02 (the N-four-bar mechanism).  R. Rajamani, *Vehicle Dynamics and Control*, 2nd ed., 2012,
§2.2 (the kinematic single-track, "bicycle", model of a car).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from .bodies import RigidBody
from .chain import Chain, Joint
from .coordinates import RelativeModel
from .dynamics import ChainModel
from .errors import ModelError
from .planar import PlanarModel
from .spatial import SpatialModel

__all__ = ["mechanism", "n_fourbar_exact", "n_fourbar_tip", "sine_steer", "MECHANISMS", "COORDINATE_SETS",
           "CAR_TRAILER", "STEERING_GAINS"]

_R90 = np.array([[0.0, -1.0], [1.0, 0.0]])          # turns a vector by +90°


# ====================================================================== the chapter's mechanisms
MECHANISMS = ("double_pendulum", "slider_crank", "fourbar", "n_fourbar", "car_trailer", "arm6r")
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

    >>> m = mechanism("n_fourbar", N=2, gravity=(0.0, -9.81))
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


#: The car towing a trailer of :func:`mechanism` ``("car_trailer")``, top view, SI units: the car's frame has
#: its origin at the car's centre of mass, x' forward, y' to the left.  ``a``, ``b``: centre of mass to the
#: front and rear axle; ``arm``: the steering arm (kingpin to the tie rod's joint, pointing forward at zero
#: steer); ``tie_rod``: its length, across the car at zero steer; ``rack``: the rack's length; ``pinion``:
#: the pinion's pitch radius; ``hitch``: the hitch behind the rear axle; ``trailer``: hitch to the trailer's
#: axle; ``trailer_com``: hitch to the trailer's centre of mass; masses [kg] and inertias about the centres
#: of mass [kg m²] (the knuckle carries the front wheels, the pinion the steering wheel and column).
CAR_TRAILER = dict(a=1.1, b=1.5, arm=0.15, tie_rod=0.3, rack=0.5, pinion=0.01, hitch=0.9, trailer=3.0,
                   trailer_com=2.6, m_car=1300.0, I_car=1800.0, m_knuckle=40.0, I_knuckle=0.8,
                   m_rack=3.0, I_rack=0.06, m_pinion=1.0, I_pinion=0.04, m_trailer=500.0, I_trailer=600.0)
#: The steering controller of the car (the driver's hands): torque ``K (θ_ref − θ) + C (θ̇_ref − θ̇)`` on the
#: steering column, ``K`` [N m/rad], ``C`` [N m s/rad].
STEERING_GAINS = dict(K=20.0, C=1.8)


def sine_steer(amplitude=1.8, period=5.0, start=0.0):
    """A lane change by the steering wheel: one smooth period of ``Θ (sin 2πτ − ½ sin 4πτ)``.

    ``τ = (t − start)/period`` in [0, 1], zero outside; the first two derivatives vanish at both ends
    (the torque of a controller that follows it is continuous) and the mean is zero, so a car at constant
    speed turns left (``amplitude`` > 0), right, and ends on its first heading, moved sideways (to first
    order in the steering angle by ``3 v² Θ T² / (8π L i)``: speed v, period T, wheelbase L, steering
    ratio i).

    Returns
    -------
    callable
        ``reference(t)`` → ``(θ_ref, θ̇_ref)``, the steering-wheel angle [rad] and its rate [rad/s].

    >>> ref = sine_steer(amplitude=1.0, period=4.0, start=0.0)
    >>> [round(v, 12) + 0.0 for v in ref(0.0)], [round(v, 12) + 0.0 for v in ref(4.0)]
    ([0.0, 0.0], [0.0, 0.0])
    """
    amplitude, period, start = float(amplitude), float(period), float(start)
    if not (np.isfinite(amplitude) and np.isfinite(start) and period > 0):
        raise ModelError(f"sine_steer: need a finite amplitude and start and a positive period, got "
                         f"{amplitude!r}, {start!r}, {period!r}")
    w = 2.0 * np.pi / period

    def reference(t):
        tau = (float(t) - start) / period
        if not 0.0 < tau < 1.0:
            return 0.0, 0.0
        x = 2.0 * np.pi * tau
        return (amplitude * (np.sin(x) - 0.5 * np.sin(2 * x)),
                amplitude * w * (np.cos(x) - np.cos(2 * x)))

    return reference


def _car_trailer(speed=5.0, steering="lane change", **dims):
    """A car with rack-and-pinion steering towing a trailer, on a level road (top view): a single-track
    ("bicycle") model, each axle's wheels lumped into one knife edge on the centre line.

    Bodies: car, knuckle (the front wheels, pinned at the kingpin), rack (sliding across the car), pinion
    (the steering column with its wheel), trailer (pinned at the hitch).  The pinion drives the rack
    (a rack-and-pinion pair), the rack pulls the steering arm through a tie rod (a massless link).  The
    start: driving straight along +x at ``speed``; ``steering``: "lane change" (:func:`sine_steer`),
    None (no steering torque) or a callable ``t → (θ_ref, θ̇_ref)`` that the controller
    :data:`STEERING_GAINS` follows.
    """
    unknown = sorted(set(dims) - set(CAR_TRAILER))
    if unknown:
        raise ModelError(f"mechanism 'car_trailer': unknown parameters {unknown}; the parameters are "
                         f"speed, steering and the dimensions {list(CAR_TRAILER)}")
    d = CAR_TRAILER | {k: float(v) for k, v in dims.items()}
    bad = [k for k, v in d.items() if not (np.isfinite(v) and v > 0)]
    if bad:
        raise ModelError("mechanism 'car_trailer': dimensions, masses and inertias must be positive, got "
                         + ", ".join(f"{k}={d[k]!r}" for k in bad))
    if d["trailer_com"] >= d["trailer"]:
        raise ModelError("mechanism 'car_trailer': the trailer's centre of mass must lie ahead of its axle "
                         f"(trailer_com < trailer), got trailer_com={d['trailer_com']}, "
                         f"trailer={d['trailer']}")
    if d["tie_rod"] <= d["arm"]:
        raise ModelError("mechanism 'car_trailer': the tie rod must be longer than the steering arm "
                         f"(tie_rod > arm), got tie_rod={d['tie_rod']}, arm={d['arm']}")
    a, b, v = d["a"], d["b"], float(speed)
    rack_at = np.array([a + d["arm"], d["tie_rod"] + d["rack"] / 2])     # the rack's centre on the car
    column = rack_at - [d["pinion"], 0.0]                                # the pinion behind the rack
    hitch = np.array([-b - d["hitch"], 0.0])
    still = [v, 0.0, 0.0]                                                # every body: (v, 0, 0) at the start
    bodies = [("car", d["m_car"], d["I_car"], [0.0, 0.0, 0.0], still),
              ("knuckle", d["m_knuckle"], d["I_knuckle"], [a, 0.0, 0.0], still),
              ("rack", d["m_rack"], d["I_rack"], [*rack_at, 0.0], still),
              ("pinion", d["m_pinion"], d["I_pinion"], [*column, 0.0], still),
              ("trailer", d["m_trailer"], d["I_trailer"], [hitch[0] - d["trailer_com"], 0.0, 0.0], still)]
    joints = {"kingpin": ("revolute", "car", "knuckle", (a, 0.0), (0.0, 0.0)),
              "rack guide": ("translational", "car", "rack", tuple(rack_at), (0.0, 0.0), (0.0, 1.0)),
              "column": ("revolute", "car", "pinion", tuple(column), (0.0, 0.0)),
              "rack and pinion": ("rack_pinion", "pinion", "rack", (0.0, 0.0), (0.0, 0.0), (0.0, 1.0),
                                  d["pinion"]),
              "tie rod": ("distance", "rack", "knuckle", (0.0, -d["rack"] / 2), (d["arm"], 0.0)),
              "hitch": ("revolute", "car", "trailer", tuple(hitch), (d["trailer_com"], 0.0)),
              "rear wheels": ("knife_edge", "car", (-b, 0.0), (1.0, 0.0)),
              "front wheels": ("knife_edge", "knuckle", (0.0, 0.0), (1.0, 0.0)),
              "trailer wheels": ("knife_edge", "trailer", (d["trailer_com"] - d["trailer"], 0.0), (1.0, 0.0))}
    tree = {"car": "free", "knuckle": "kingpin", "rack": "rack guide", "pinion": "column"}
    trees = {"relative": tree | {"trailer": "hitch"}, "mixed": tree | {"trailer": "free"}}
    if isinstance(steering, str) and steering == "lane change":
        steering = sine_steer()
    if steering is not None and not callable(steering):
        raise ModelError("mechanism 'car_trailer': steering must be 'lane change', None or a callable "
                         f"t -> (angle, rate) of the steering wheel, got {steering!r}")
    loads = {}
    if steering is not None:
        gains = STEERING_GAINS

        def torque(t, angle, rate):
            ref, ref_rate = steering(t)
            return gains["K"] * (ref - angle) + gains["C"] * (ref_rate - rate)

        loads["steering"] = ("joint_torque", "column", torque)
    return bodies, joints, trees, loads


_PLANAR = {"double_pendulum": _double_pendulum, "slider_crank": _slider_crank, "fourbar": _fourbar,
           "n_fourbar": _n_fourbar, "car_trailer": _car_trailer}


def _planar_model(bodies, joints, gravity, loads=None):
    m = PlanarModel(gravity=gravity)
    poses = {"ground": np.zeros(3)}
    for name, mass, inertia, pose, vel in bodies:
        m.add_body(name, mass, inertia, position=pose[:2], angle=pose[2], velocity=vel[:2],
                   angular_velocity=vel[2])
        poses[name] = np.asarray(pose, dtype=float)
    for jname, joint in joints.items():
        _add_joint(m, jname, joint, poses, "add_")
    for lname, (_, jname, torque) in (loads or {}).items():          # joint torques of a controller
        joint = next(j for j in m.joints if j.name == jname)
        m.add_joint_torque(joint, _controlled(torque, joint.angle), name=lname)
    m.assemble()
    return m


def _add_joint(m, jname, joint, poses, prefix):
    """One row of a vehicle's joint table on model ``m``: ``prefix`` "add_" (Cartesian model) or "add_cut_"
    (a loop-closing joint of a relative model); a knife edge is the same call in both."""
    kind, *a = joint
    if kind == "knife_edge":
        m.add_knife_edge(*a, name=jname)
    elif kind == "translational":
        bi, bj, pi, pj, axis = a
        getattr(m, prefix + kind)(bi, bj, pi, pj, axis, angle=poses[bj][2] - poses[bi][2], name=jname)
    elif kind == "rack_pinion":
        pinion, rack, pp, pr, axis, radius = a
        getattr(m, prefix + kind)(pinion, rack, radius, pp, pr, axis, name=jname)
    else:                                               # revolute, distance
        getattr(m, prefix + kind)(*a, name=jname)


def _controlled(torque, angle):
    """``torque(t, θ, θ̇)`` of a joint angle, as the load function ``(t, q, q̇)`` of the model that made
    ``angle`` (a :class:`~mbdlib.model.Coordinate`)."""
    return lambda t, q, qd: torque(t, angle(q), angle.rate(q, qd))


def _relative_model(bodies, joints, tree, gravity, loads=None):
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
        elif kind == "translational":           # the child of a prismatic tree joint is its body j
            m.add_body(name, mass, inertia, parent=bi, joint="prismatic", point_parent=pi, point_child=pj,
                       axis=axis[0], angle=poses[bj][2] - poses[bi][2])
        else:
            raise ModelError(f"the tree joint of body {name!r} is a {kind} joint: a tree joint must be "
                             "revolute, translational or free")
    m.set_initial(*m.from_body_states({b[0]: (b[3], b[4]) for b in bodies}))
    for jname, joint in joints.items():
        if jname not in tree.values():
            _add_joint(m, jname, joint, poses, "add_cut_")
    for lname, (_, jname, torque) in (loads or {}).items():
        body = next((b for b, j in tree.items() if j == jname), None)
        if body is None:
            raise ModelError(f"load {lname!r}: its joint {jname!r} is a cut joint here; a joint torque needs "
                             "a tree joint (choose a tree that contains it)")
        m.add_joint_torque(body, _controlled(torque, m.coordinate(f"θ_{body}")), name=lname)
    m.assemble()
    return m


def _arm6r(coordinates, gravity, masses=(4.0, 3.0, 2.0, 1.0, 0.5, 0.3)):
    """A 6R arm (waist z, shoulder y, elbow y, wrist roll x, pitch y, roll x), base fixed."""
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
        return ChainModel(chain, gravity=gravity)
    m = SpatialModel(gravity=gravity)
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
    name : {"double_pendulum", "slider_crank", "fourbar", "n_fourbar", "car_trailer", "arm6r"}
    coordinates : {"cartesian", "relative", "mixed"}
        Planar: "cartesian" → :class:`mbdlib.PlanarModel` (x, y, φ per body); "relative" →
        :class:`RelativeModel` with joint coordinates of a spanning tree (loop closures as cut
        joints); "mixed" → the first body absolute (x, y, φ), the others relative.  The car with a
        trailer moves freely, so its car is absolute in both: "relative" puts the trailer on the hitch
        angle, "mixed" gives the trailer its own (x, y, φ) and cuts the hitch.  "arm6r" has
        "relative" (a :class:`~mbdlib.dynamics.ChainModel`, 6 joint angles) and "cartesian" (a
        :class:`mbdlib.SpatialModel`, position + Euler parameters per body).
    gravity : array_like
        Required: ``(gx, gy)`` for the planar mechanisms (``(0, -9.81)`` with y up), ``(gx, gy, gz)``
        for the 6R arm (``(0, 0, -9.81)`` with z up).
    **params
        Dimensions and initial state, by mechanism (SI units, angles from +x):
        double_pendulum ``L1, L2, m1, m2, phi1, phi2, omega1, omega2`` (absolute angles and rates);
        slider_crank ``r, l, m_crank, m_rod, m_slider, I_slider, theta, omega`` (crank angle, rate);
        fourbar ``a, b, c, d, m_crank, m_coupler, m_rocker, theta, omega``; n_fourbar ``N, theta, omega``
        (IFToMM benchmark A02, :func:`n_fourbar_exact`); car_trailer ``speed`` (forward, at the start),
        ``steering`` ("lane change", None or ``t → (θ_ref, θ̇_ref)``) and the dimensions of
        :data:`CAR_TRAILER`; arm6r ``masses``.

    Returns
    -------
    model
        Assembled (planar models): ``q0``, ``qd0`` describe the same state in every coordinate set.

    >>> [mechanism("fourbar", coordinates=c, gravity=(0.0, -9.81)).n for c in COORDINATE_SETS]
    [9, 3, 5]
    """
    if name not in MECHANISMS:
        raise ModelError(f"mechanism: unknown mechanism {name!r}; choose one of {MECHANISMS}")
    if name == "arm6r":
        if coordinates not in ("cartesian", "relative"):
            raise ModelError(f"mechanism: the 6R arm comes in 'cartesian' or 'relative' coordinates, got "
                             f"{coordinates!r}")
        if gravity is None:
            raise ModelError("mechanism('arm6r'): give gravity=, e.g. (0, 0, -9.81) (z up), or (0, 0, 0)")
        return _arm6r(coordinates, gravity, **params)
    if coordinates not in COORDINATE_SETS:
        raise ModelError(f"mechanism: coordinates must be one of {COORDINATE_SETS}, got {coordinates!r}")
    builder = _PLANAR[name]
    known = builder.__code__.co_varnames[:builder.__code__.co_argcount] + \
        (tuple(CAR_TRAILER) if name == "car_trailer" else ())
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ModelError(f"mechanism {name!r}: unknown parameters {unknown}; the parameters are "
                         f"{list(known)}")
    if name == "car_trailer":
        bodies, joints, trees, loads = builder(**params)
    else:
        (bodies, joints, trees), loads = builder(**params), None
    if gravity is None:
        raise ModelError(f"mechanism({name!r}): give gravity=, e.g. (0, -9.81) (y up), or (0, 0) for none")
    if coordinates == "cartesian":
        return _planar_model(bodies, joints, gravity, loads)
    return _relative_model(bodies, joints, trees[coordinates], gravity, loads)
