"""An independent oracle for the dynamics of mbdlib: sympy.physics.mechanics.

Random spatial chains and trees (1-5 links, revolute and prismatic joints, random
axes, origins, fixed rotations, masses, centres of mass and inertias) are described as
plain data (:class:`LinkSpec`).  The same description is turned

* into an mbdlib :class:`~mbdlib.chain.Chain` (the code under test), and
* into a sympy.physics.mechanics model, derived with ``KanesMethod`` (Kane & Levinson
  1985) without any mbdlib code: reference frames, points, rigid bodies with inertia
  dyadics, gravity and applied loads.  ``KanesMethod`` gives ``M(q) u̇ = f(q, u)``; the
  joint forces needed for accelerations ``q̈`` are ``τ = M q̈ − f``.

Then ``rnea``, ``kane_inverse_dynamics``, the evaluated Lagrange equations,
``mass_matrix`` and ``forward_dynamics`` must agree with the oracle to ~1e-10 (relative)
at random states.  The oracle itself is first checked against closed forms (pendulum,
vertical slider, planar double pendulum, slider on a turntable).

Frames of the sympy model.  For each link we pick a constant rotation ``Q`` with
``Q e_z = k`` (the joint axis in the link frame) and use the frame ``G = (link frame) Q``,
in which the joint axis is ``G.z``: the parent's ``G`` is turned by the constant
``S = Q_pᵀ R Q`` and then, for a revolute joint, by ``q`` about ``z``.  The link data
(origins, centre of mass, inertia) are re-expressed in ``G`` with ``Q`` by hand.  This
keeps the sympy expressions small (a derivation takes about a second per link).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pytest
import sympy as sp
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation
from sympy.physics import mechanics as me

from mbdlib.bodies import RigidBody
from mbdlib.chain import Chain, Joint

RTOL = 1e-10


# --------------------------------------------------------------------------- plain-data systems
@dataclass(frozen=True)
class LinkSpec:
    """One link: joint to ``parent`` (-1: ground) and the body it carries (SI units).

    ``axis`` (unit) is in the link frame, ``origin`` in the parent frame, ``rotation``
    maps link-frame components to parent-frame ones at q = 0; ``com`` is in the link frame,
    ``inertia`` is the central tensor in the link frame.
    """

    parent: int
    kind: str
    axis: tuple
    origin: tuple
    rotation: tuple
    mass: float
    com: tuple
    inertia: tuple


def _t(a):
    """Hashable copy of an array (specs are cache keys)."""
    a = np.asarray(a, dtype=float)
    return tuple(map(tuple, a)) if a.ndim == 2 else tuple(a)


def random_inertia(rng):
    """A valid central inertia: principal moments B+C, A+C, A+B from second moments
    A, B, C > 0 (so the triangle inequalities hold), turned by a random rotation."""
    A, B, C = rng.uniform(0.01, 0.2, 3)
    Rb = Rotation.random(random_state=rng).as_matrix()
    return Rb @ np.diag([B + C, A + C, A + B]) @ Rb.T


#: The 24 rotations of a cube (signed permutation matrices with det +1).
CUBE = [R for R in (np.diag(s)[list(p)] for p in __import__("itertools").permutations(range(3))
                    for s in __import__("itertools").product((1, -1), repeat=3)) if np.linalg.det(R) > 0]


def random_system(seed: int, n: int, tree: bool = True, cubic: bool = False) -> tuple[LinkSpec, ...]:
    """Random chain (``tree=False``) or tree of ``n`` links.

    ``cubic=True`` draws the fixed rotations from the 24 rotations of a cube and the axes
    from ±x, ±y, ±z (still spatial: successive axes are skew or perpendicular), which keeps
    the symbolic derivation of long chains fast; origins, bodies and states stay random.
    """
    rng = np.random.default_rng(seed)
    links = []
    for i in range(n):
        parent = int(rng.integers(-1, i)) if (tree and i > 0) else i - 1
        if cubic:
            axis = np.eye(3)[rng.integers(3)] * rng.choice([-1, 1])
            rotation = CUBE[rng.integers(len(CUBE))]
        else:
            axis = rng.normal(size=3)
            rotation = Rotation.random(random_state=rng).as_matrix()
        links.append(LinkSpec(
            parent=parent,
            kind="revolute" if rng.random() < 0.6 else "prismatic",
            axis=_t(axis / np.linalg.norm(axis)),
            origin=_t(rng.uniform(-0.5, 0.5, 3)),
            rotation=_t(rotation),
            mass=float(rng.uniform(0.5, 3.0)),
            com=_t(rng.uniform(-0.3, 0.3, 3)),
            inertia=_t(random_inertia(rng)),
        ))
    return tuple(links)


def mbdlib_chain(spec) -> Chain:
    """The system under test, built through mbdlib's public constructors."""
    chain = Chain(name="oracle")
    for i, s in enumerate(spec):
        joint = Joint(f"j{i}", s.kind, axis=s.axis, origin=s.origin, rotation=np.array(s.rotation))
        body = RigidBody(s.mass, com=s.com, inertia=np.array(s.inertia), name=f"b{i}")
        chain.add_link(f"L{i}", joint, body, s.parent)
    return chain


def random_state(spec, rng):
    n = len(spec)
    q = np.array([rng.uniform(-np.pi, np.pi) if s.kind == "revolute" else rng.uniform(-0.5, 0.5)
                  for s in spec])
    return q, rng.normal(size=n), rng.normal(size=n)


# --------------------------------------------------------------------------- the oracle
def _z_to(k) -> np.ndarray:
    """A rotation Q with Q e_z = k (columns: a right-handed basis with k last)."""
    z = np.asarray(k, dtype=float) / np.linalg.norm(k)
    helper = np.eye(3)[np.argmin(abs(z))]
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def _exact(x):
    """A sympy number; entries that are whole (0, ±1 of cube rotations) stay exact."""
    x = float(x)
    return sp.Integer(round(x)) if abs(x - round(x)) < 1e-15 else sp.Float(x)


def _vec(frame, v):
    return sum((_exact(c) * e for c, e in zip(v, (frame.x, frame.y, frame.z), strict=True)),
               me.Vector(0))


@dataclass
class Oracle:
    """Numeric functions of a KanesMethod derivation: ``M(q)`` and ``f(q, u, g, F, T)``.

    ``F`` and ``T`` (shape (n, 3)) are the applied force at each centre of mass and the
    applied moment on each link, global components.
    """

    M: callable
    f: callable

    def tau(self, q, qd, qdd, gravity=(0, 0, -9.81), F=None, T=None):
        """Joint forces for the motion: ``τ = M q̈ − f`` (KanesMethod: ``M u̇ = f + τ``)."""
        n = len(q)
        F = np.zeros((n, 3)) if F is None else F
        T = np.zeros((n, 3)) if T is None else T
        f = np.asarray(self.f(q, qd, gravity, F.ravel(), T.ravel()), dtype=float).ravel()
        return np.asarray(self.M(q), dtype=float) @ qdd - f

    def mass_matrix(self, q):
        return np.asarray(self.M(q), dtype=float)


@functools.cache
def oracle(spec: tuple[LinkSpec, ...]) -> Oracle:
    """Derive the equations of motion of ``spec`` with sympy's KanesMethod (cached)."""
    n = len(spec)
    q, u = me.dynamicsymbols(f"q0:{n}"), me.dynamicsymbols(f"u0:{n}")
    g = sp.symbols("g0:3")
    Fs, Ts = sp.symbols(f"F0:{3 * n}"), sp.symbols(f"T0:{3 * n}")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    G, points, Qs, bodies, loads = [], [], [], [], []
    for i, s in enumerate(spec):
        P = N if s.parent == -1 else G[s.parent]            # the parent's G frame
        Po = O if s.parent == -1 else points[s.parent]      # the parent's joint point
        Qp = np.eye(3) if s.parent == -1 else Qs[s.parent]
        Q = _z_to(s.axis)
        Qs.append(Q)
        S = Qp.T @ np.array(s.rotation) @ Q                 # this G at q = 0, in the parent's G
        r = _vec(P, Qp.T @ np.array(s.origin))              # parent joint -> this joint
        Gi, Oi = me.ReferenceFrame(f"G{i}"), me.Point(f"O{i}")
        if s.kind == "revolute":
            F0 = me.ReferenceFrame(f"F{i}")
            F0.orient_explicit(P, sp.Matrix(S).applyfunc(_exact))
            Gi.orient_axis(F0, F0.z, q[i])                  # turn by q about the axis
            Gi.set_ang_vel(F0, u[i] * F0.z)
            Oi.set_pos(Po, r)
            Oi.set_vel(N, Po.vel(N) + P.ang_vel_in(N).cross(r))
        else:
            Gi.orient_explicit(P, sp.Matrix(S).applyfunc(_exact))
            Oi.set_pos(Po, r + q[i] * Gi.z)                 # slide by q along the axis
            Oi.set_vel(N, Po.vel(N) + P.ang_vel_in(N).cross(r + q[i] * Gi.z) + u[i] * Gi.z)
        C = me.Point(f"C{i}")
        C.set_pos(Oi, _vec(Gi, Q.T @ np.array(s.com)))
        C.v2pt_theory(Oi, N, Gi)
        I_G = Q.T @ np.array(s.inertia) @ Q                 # central inertia in G components
        E = (Gi.x, Gi.y, Gi.z)
        dyadic = sum((sp.Float(float(I_G[a, b])) * (E[a] | E[b]) for a in range(3) for b in range(3)),
                     me.Dyadic(0))
        bodies.append(me.RigidBody(f"B{i}", C, Gi, sp.Float(s.mass), (dyadic, C)))
        force = s.mass * (g[0] * N.x + g[1] * N.y + g[2] * N.z) + _sym_vec(N, Fs[3 * i:3 * i + 3])
        loads += [(C, force), (Gi, _sym_vec(N, Ts[3 * i:3 * i + 3]))]
        G.append(Gi)
        points.append(Oi)
    km = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u, strict=True)])
    km.kanes_equations(bodies, loads)
    return Oracle(M=sp.lambdify([q], km.mass_matrix, cse=True),
                  f=sp.lambdify([q, u, g, Fs, Ts], km.forcing, cse=True))


def _sym_vec(frame, v):
    return v[0] * frame.x + v[1] * frame.y + v[2] * frame.z


def assert_close(actual, expected, what: str, rtol: float = RTOL):
    """Relative agreement, scaled by the largest entry of the expected value (at least 1)."""
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    err = float(np.max(np.abs(actual - expected)))
    scale = max(1.0, float(np.max(np.abs(expected))))
    assert err <= rtol * scale, f"{what}: max error {err:.3e} (scale {scale:.3g})\n{actual}\n{expected}"


# --------------------------------------------------------------------------- the oracle vs closed forms
def _spec(parent, kind, axis, origin=(0, 0, 0), rotation=None, mass=1.0, com=(0, 0, 0), inertia=(1, 1, 1)):
    rotation = np.eye(3) if rotation is None else rotation
    inertia = np.diag(inertia) if np.ndim(inertia) == 1 else inertia
    return LinkSpec(parent, kind, _t(axis), _t(origin), _t(rotation), float(mass), _t(com), _t(inertia))


STATES = np.random.default_rng(7).normal(size=(4, 3, 2))  # 4 states (q, qd, qdd) of 2 joints


def test_oracle_pendulum():
    """Hanging pendulum about y: τ = (I_yy + m l²) q̈ + m g l sin q."""
    m, l, Iyy, g = 2.0, 0.7, 0.05, 9.81
    orc = oracle((_spec(-1, "revolute", (0, 1, 0), mass=m, com=(0, 0, -l), inertia=(0.06, Iyy, 0.02)),))
    for q, qd, qdd in STATES[:, :, :1]:
        expected = (Iyy + m * l**2) * qdd + m * g * l * np.sin(q)
        assert_close(orc.tau(q, qd, qdd), expected, "pendulum")


def test_oracle_tilted_slider_and_applied_force():
    """Slider along a tilted axis k (global): τ = m q̈ − (m g + F)·k."""
    m, R = 3.0, Rotation.from_rotvec([0.3, 0.0, 0.2]).as_matrix()
    orc = oracle((_spec(-1, "prismatic", (0, 0, 1), rotation=R, mass=m),))
    k = R[:, 2]                              # the axis e_z of the slider frame, globally
    g, F = np.array([0.0, 0.0, -9.81]), np.array([[1.0, -2.0, 5.0]])
    for q, qd, qdd in STATES[:, :, :1]:
        assert_close(orc.tau(q, qd, qdd, gravity=g, F=F), m * qdd - (m * g + F[0]) @ k, "slider")


def test_oracle_planar_double_pendulum():
    """Two links in the x-y plane, gravity −y (Spong, Hutchinson & Vidyasagar 2006, §7.3)."""
    m1, m2, l1, lc1, lc2, I1, I2, g = 1.2, 0.8, 0.9, 0.4, 0.35, 0.07, 0.05, 9.81
    orc = oracle((_spec(-1, "revolute", (0, 0, 1), mass=m1, com=(lc1, 0, 0), inertia=(0.03, 0.05, I1)),
                  _spec(0, "revolute", (0, 0, 1), origin=(l1, 0, 0), mass=m2, com=(lc2, 0, 0),
                        inertia=(0.02, 0.04, I2))))
    for q, qd, qdd in STATES:
        c2, h = np.cos(q[1]), -m2 * l1 * lc2 * np.sin(q[1])
        d11 = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2) + I1 + I2
        d12 = m2 * (lc2**2 + l1 * lc2 * c2) + I2
        d22 = m2 * lc2**2 + I2
        g1 = (m1 * lc1 + m2 * l1) * g * np.cos(q[0]) + m2 * lc2 * g * np.cos(q[0] + q[1])
        g2 = m2 * lc2 * g * np.cos(q[0] + q[1])
        expected = [d11 * qdd[0] + d12 * qdd[1] + h * (2 * qd[0] * qd[1] + qd[1] ** 2) + g1,
                    d12 * qdd[0] + d22 * qdd[1] - h * qd[0] ** 2 + g2]
        assert_close(orc.tau(q, qd, qdd, gravity=(0, -g, 0)), expected, "double pendulum")
        assert_close(orc.mass_matrix(q), [[d11, d12], [d12, d22]], "double pendulum M")


def test_oracle_slider_on_turntable():
    """Turntable (about z) carrying a radial slider (along x): Coriolis and centrifugal terms.

    T = ½ (J0 + Jz) θ̇² + ½ m (ṙ² + r² θ̇²):  τ1 = (J0 + Jz + m r²) θ̈ + 2 m r ṙ θ̇,
    τ2 = m (r̈ − r θ̇²).
    """
    J0, Jz, m = 0.4, 0.1, 1.5
    orc = oracle((_spec(-1, "revolute", (0, 0, 1), mass=2.0, inertia=(0.3, 0.3, J0)),
                  _spec(0, "prismatic", (1, 0, 0), mass=m, inertia=(0.05, 0.08, Jz))))
    for q, qd, qdd in STATES:
        r = q[1]
        expected = [(J0 + Jz + m * r**2) * qdd[0] + 2 * m * r * qd[1] * qd[0], m * (qdd[1] - r * qd[0] ** 2)]
        assert_close(orc.tau(q, qd, qdd), expected, "turntable")


def test_oracle_gravity_is_the_gradient_of_the_potential():
    """At rest τ = ∂V/∂q, V = −Σ m g·r_C, with r_C from plain numpy (rotation vectors)."""
    spec = random_system(11, 2, tree=False)
    g = np.array([0.0, 0.0, -9.81])

    def potential(q):
        V, frames = 0.0, []
        for s, qi in zip(spec, q, strict=True):
            A_p, r_p = frames[s.parent] if s.parent >= 0 else (np.eye(3), np.zeros(3))
            R, k = np.array(s.rotation), np.array(s.axis)
            if s.kind == "revolute":
                A, r = A_p @ R @ Rotation.from_rotvec(qi * k).as_matrix(), r_p + A_p @ np.array(s.origin)
            else:
                A, r = A_p @ R, r_p + A_p @ (np.array(s.origin) + R @ (qi * k))
            frames.append((A, r))
            V -= s.mass * g @ (r + A @ np.array(s.com))
        return V

    q0, h = np.array([0.3, -0.2]), 1e-6
    dV = [(potential(q0 + h * e) - potential(q0 - h * e)) / (2 * h) for e in np.eye(2)]
    assert_close(oracle(spec).tau(q0, np.zeros(2), np.zeros(2), gravity=g), dV, "gravity torque", rtol=1e-7)


# --------------------------------------------------------------------------- mbdlib vs the oracle
# (seed, number of links, tree?, cubic?)  A fixed set; the slower ones are marked slow.
SEEDED = [(1, 1, False, False), (2, 2, False, False), (3, 3, True, False), (7, 5, False, True)]
SEEDED_SLOW = [(4, 3, False, False), (5, 4, True, False), (8, 5, True, True), (9, 4, False, True)]


def compare_inverse_dynamics(spec, states: int = 3, seed: int = 0, lagrange: bool = False):
    """rnea, Kane, (Lagrange), mass_matrix and forward_dynamics against the oracle."""
    from mbdlib.dynamics import forward_dynamics, mass_matrix
    from mbdlib.kane import kane_inverse_dynamics
    from mbdlib.newton_euler import rnea

    chain, orc = mbdlib_chain(spec), oracle(spec)
    rng = np.random.default_rng(seed)
    gravity = rng.normal(size=3) * 5
    lag = None
    if lagrange:
        from mbdlib.lagrange import lagrange_equations
        lag = lagrange_equations(chain, gravity=tuple(gravity)).numeric()
    for _ in range(states):
        q, qd, qdd = random_state(spec, rng)
        label = f"{len(spec)}-link chain (parents {[s.parent for s in spec]}, kinds " \
                f"{[s.kind[0] for s in spec]}) at q={np.round(q, 3)}"
        tau = orc.tau(q, qd, qdd, gravity=gravity)
        assert_close(rnea(chain, q, qd, qdd, gravity=gravity), tau, f"rnea, {label}")
        assert_close(kane_inverse_dynamics(chain, q, qd, qdd, gravity=gravity), tau, f"Kane, {label}")
        assert_close(mass_matrix(chain, q), orc.mass_matrix(q), f"mass_matrix, {label}")
        if lag is not None:
            tau_l = lag.M(q) @ qdd + lag.C(q, qd) @ qd + lag.G(q)
            assert_close(tau_l, tau, f"Lagrange, {label}")
        # forward dynamics: the accelerations that the oracle's torques produce
        assert_close(forward_dynamics(chain, q, qd, tau, gravity=gravity), qdd,
                     f"forward_dynamics, {label}", rtol=1e-8)
        # applied loads: random force at each centre of mass and moment on each link
        F, T = rng.normal(size=(2, len(spec), 3))
        f_ext = {i: (F[i], T[i]) for i in range(len(spec))}
        tau_ext = orc.tau(q, qd, qdd, gravity=gravity, F=F, T=T)
        assert_close(rnea(chain, q, qd, qdd, gravity=gravity, f_ext=f_ext), tau_ext, f"rnea f_ext, {label}")
        assert_close(kane_inverse_dynamics(chain, q, qd, qdd, gravity=gravity, f_ext=f_ext), tau_ext,
                     f"Kane f_ext, {label}")


@pytest.mark.parametrize("seed, n, tree, cubic", SEEDED)
def test_dynamics_match_the_oracle(seed, n, tree, cubic):
    compare_inverse_dynamics(random_system(seed, n, tree, cubic), seed=seed, lagrange=n <= 2)


@pytest.mark.slow
@pytest.mark.parametrize("seed, n, tree, cubic", SEEDED_SLOW)
def test_dynamics_match_the_oracle_larger(seed, n, tree, cubic):
    compare_inverse_dynamics(random_system(seed, n, tree, cubic), seed=seed, lagrange=n == 3)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 5), tree=st.booleans())
def test_dynamics_match_the_oracle_random(seed, n, tree):
    """General rotations and axes up to 2 links, cube rotations and ±x/±y/±z axes beyond."""
    compare_inverse_dynamics(random_system(seed, n, tree, cubic=n > 2), states=2, seed=seed)
