"""The benchmark bicycle of Meijaard, Papadopoulos, Ruina & Schwab (2007) as a spatial model.

The Whipple bicycle: a rear frame with the rider rigidly attached (``"frame"``), a front frame of
handlebar and fork (``"fork"``) on a steer axis tilted back by λ, and two wheels on revolute hubs, each
rolling without slipping on level ground.  :func:`benchmark_bicycle` builds it with
:class:`~mbdlib.spatial.SpatialModel` in Cartesian coordinates with Euler parameters: 4 bodies, 28
coordinates, 3 revolute joints and 2 rolling wheels (a height row and two nonholonomic rows each), so 7
position and 3 velocity degrees of freedom (lean rate, steer rate, rear-wheel rate) — nothing in it is
special to bicycles.

The parameters are the paper's table 1, in its names and axes: x forward, y to the right, z down, the
origin at the rear contact point in the upright reference pose (so ``zB = -0.9`` is 0.9 m above the
ground).  The model's axes are x forward, y to the left, z up; a product of inertia ``I_xz`` changes sign
between the two.  Lean φ (the rear frame's roll, the middle angle of its ``"ZXY"`` Euler angles) and
steer δ (the steer joint's angle about the axis pointing down) are positive to the right, as in the paper.

Linearized about upright straight running at speed v, lean and steer obey the paper's

    M q̈ + v C1 q̇ + (g K0 + v² K2) q = f,        q = (φ, δ),  f = (lean torque, steer torque),

and :meth:`Bicycle.linear_equations` reads M, C1, K0, K2 off the spatial model: M from its kinetic energy
at zero speed, K0 from its linearization at rest, C1 and K2 from one at speed.  The numbers are the
model's; the tests compare them with the paper's (and with sympy's ``KanesMethod``).

>>> bike = benchmark_bicycle()
>>> bike.model.n, bike.model.dof_report().velocity_dof
(28, 3)
>>> eq = bike.linear_equations()
>>> [round(v, 3) for v in eq.stable_speeds()]          # the self-stable range (m/s)
[4.292, 6.024]

Reference: J. P. Meijaard, J. M. Papadopoulos, A. Ruina and A. L. Schwab, Linearized dynamics equations
for the balance and steer of a bicycle: a benchmark and review, *Proc. R. Soc. A* 463 (2007) 1955–1982
(table 1: the parameters; the form of the linearized equations; table 2: eigenvalues and critical speeds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from scipy.optimize import brentq

from . import _validate
from .errors import ModelError
from .linearize import Linearization, linearize
from .spatial import SpatialModel
from .system import Assembly, ConstrainedSystem

__all__ = ["BENCHMARK", "Bicycle", "LeanSteerEquations", "benchmark_bicycle"]

BENCHMARK = MappingProxyType({
    "w": 1.02, "c": 0.08, "lam": math.pi / 10, "g": 9.81,                       # wheel base, trail, tilt
    "rR": 0.3, "mR": 2.0, "IRxx": 0.0603, "IRyy": 0.12,                         # rear wheel
    "xB": 0.3, "zB": -0.9, "mB": 85.0, "IBxx": 9.2, "IByy": 11.0, "IBzz": 2.8, "IBxz": 2.4,   # frame, rider
    "xH": 0.9, "zH": -0.7, "mH": 4.0,                                          # handlebar and fork
    "IHxx": 0.05892, "IHyy": 0.06, "IHzz": 0.00708, "IHxz": -0.00756,
    "rF": 0.35, "mF": 3.0, "IFxx": 0.1405, "IFyy": 0.28,                        # front wheel
})
"""The benchmark's parameters (Meijaard et al. 2007, table 1), SI units, the paper's axes (z down)."""

_POSITIVE = ("w", "g", "rR", "mR", "IRxx", "IRyy", "mB", "IBxx", "IByy", "IBzz", "mH", "IHxx", "IHyy", "IHzz",
             "rF", "mF", "IFxx", "IFyy")


def _parameters(changes) -> dict:
    unknown = sorted(set(changes) - set(BENCHMARK))
    if unknown:
        raise ModelError(f"benchmark_bicycle: unknown parameter(s) {unknown}; the parameters are the paper's "
                         f"table 1: {', '.join(BENCHMARK)}")
    p = dict(BENCHMARK)
    for name, value in changes.items():
        p[name] = _validate.number(value, f"benchmark_bicycle: {name}", positive=name in _POSITIVE)
    if not abs(p["lam"]) < math.pi / 2:
        raise ModelError(f"benchmark_bicycle: the steer axis tilt lam must lie between -pi/2 and pi/2 (rad), "
                         f"got {p['lam']!r}")
    for body in ("B", "H"):
        xx, yy, zz, xz = (p[f"I{body}{k}"] for k in ("xx", "yy", "zz", "xz"))
        if xx * zz <= xz * xz:
            which = "the frame" if body == "B" else "the fork"
            raise ModelError(f"benchmark_bicycle: the inertia of {which} is not positive definite "
                             f"(I{body}xx I{body}zz <= I{body}xz^2)")
    for body, z in (("frame", p["zB"]), ("fork", p["zH"])):
        if z >= 0:
            raise ModelError(f"benchmark_bicycle: the {body}'s centre of mass must be above the ground: "
                             f"z{'B' if body == 'frame' else 'H'} < 0 (the paper's z points down), got {z!r}")
    return p


def _inertia(xx, yy, zz, xz):
    """The paper's tensor (x forward, y right, z down) in the model's axes (x forward, y left, z up)."""
    return np.array([[xx, 0.0, -xz], [0.0, yy, 0.0], [-xz, 0.0, zz]])


class Bicycle:
    """A Whipple bicycle as a :class:`~mbdlib.spatial.SpatialModel` (made by :func:`benchmark_bicycle`).

    Attributes
    ----------
    params : dict
        The parameters (the paper's table 1 names and axes).
    model : SpatialModel
        Bodies ``"frame"``, ``"fork"``, ``"rear wheel"``, ``"front wheel"``; a zero steer torque
        ``"steer torque"`` (an input of :func:`~mbdlib.linearize`); gravity ``(0, 0, -g)``.
    joints : dict
        ``"steer"``, ``"rear hub"``, ``"front hub"`` (revolute joints).
    lean, steer, wheel : Coordinate
        Lean φ and steer δ (rad, positive to the right) and the rear wheel's angle on its hub (rad).
    """

    def __init__(self, params: dict):
        self.params = p = dict(params)
        w, c, lam, rR, rF = p["w"], p["c"], p["lam"], p["rR"], p["rF"]
        m = SpatialModel(gravity=(0.0, 0.0, -p["g"]))
        frame = m.add_body("frame", (p["xB"], 0.0, -p["zB"]), mass=p["mB"],
                           inertia=_inertia(p["IBxx"], p["IByy"], p["IBzz"], p["IBxz"]))
        fork = m.add_body("fork", (p["xH"], 0.0, -p["zH"]), mass=p["mH"],
                          inertia=_inertia(p["IHxx"], p["IHyy"], p["IHzz"], p["IHxz"]))
        rear = m.add_body("rear wheel", (0.0, 0.0, rR), mass=p["mR"],
                          inertia=[p["IRxx"], p["IRyy"], p["IRxx"]])
        front = m.add_body("front wheel", (w, 0.0, rF), mass=p["mF"],
                           inertia=[p["IFxx"], p["IFyy"], p["IFxx"]])
        down = np.array([math.sin(lam), 0.0, -math.cos(lam)])     # the steer axis, pointing down
        pivot = np.array([w + c, 0.0, 0.0]) - (rF / math.cos(lam)) * down   # on the axis, at the hub's height
        self.joints = {
            "steer": m.add_revolute(frame, fork, pivot - frame.position, pivot - fork.position, axis_i=down,
                                    name="steer"),
            "rear hub": m.add_revolute(frame, rear, rear.position - frame.position, (0.0, 0.0, 0.0),
                                       axis_i=(0.0, 1.0, 0.0), name="rear hub"),
            "front hub": m.add_revolute(fork, front, front.position - fork.position, (0.0, 0.0, 0.0),
                                        axis_i=(0.0, 1.0, 0.0), name="front hub")}
        m.add_rolling_disk(rear, rR, axis=(0.0, 1.0, 0.0))
        m.add_rolling_disk(front, rF, axis=(0.0, 1.0, 0.0))
        m.add_joint_torque(self.joints["steer"], 0.0, name="steer torque")
        self.model = m
        self.lean = m.euler_angle("frame", "ZXY", 1)
        self.steer = self.joints["steer"].angle
        self.wheel = self.joints["rear hub"].angle

    def __repr__(self) -> str:
        return f"Bicycle(w={self.params['w']:g}, c={self.params['c']:g}, lam={self.params['lam']:.4g})"

    # ------------------------------------------------------------------ states
    def state(self, speed: float, lean: float = 0.0, steer: float = 0.0, lean_rate: float = 0.0,
              steer_rate: float = 0.0) -> Assembly:
        """A consistent state: the given lean and steer (rad), their rates (rad/s), and the rear wheel
        rolling at ``speed`` (m/s: its hub rate is ``speed / rR``); the heading is straight along x."""
        speed = _validate.number(speed, "Bicycle.state: speed")
        return self.model.state(fixed={self.lean: lean, self.steer: steer},
                                speeds={self.lean: lean_rate, self.steer: steer_rate,
                                        self.wheel: speed / self.params["rR"]})

    def system(self, speed: float, **state) -> ConstrainedSystem:
        """The model's :class:`~mbdlib.system.ConstrainedSystem`, starting at :meth:`state` ``(speed, ...)``.
        """
        return self.model.system(self.state(speed, **state))

    # ------------------------------------------------------------------ linearization
    def linearize(self, speed: float, inputs=()) -> Linearization:
        """The linearization about upright straight running at ``speed``, in the states
        (lean, steer, lean rate, steer rate, rear hub rate); ``inputs=["steer torque"]`` for ``B``."""
        at = self.state(speed)
        return linearize(self.model.system(at), [self.lean, self.steer], [self.lean, self.steer, self.wheel],
                         at=at, inputs=list(inputs))

    def eigenvalues(self, speed: float) -> np.ndarray:
        """The four eigenvalues of lean and steer at ``speed`` (the fifth, 0, belongs to the speed itself),
        sorted by real part, then imaginary part [1/s]."""
        A = self.linearize(speed).A[:4, :4]
        return _sorted(np.linalg.eigvals(A))

    def linear_equations(self, speed: float = 5.0) -> LeanSteerEquations:
        """M, C1, K0 and K2 of the model: M from its kinetic energy at zero speed (lean and steer rates 1,
        0 / 0, 1 / 1, 1), K0 from its linearization at rest, C1 and K2 from its linearization at ``speed``
        (any nonzero speed gives the same matrices, up to the accuracy of the linearization)."""
        speed = _validate.number(speed, "linear_equations: speed", positive=True)
        energy, g = self.model.energy, self.params["g"]

        def kinetic(a, b):
            s = self.state(0.0, lean_rate=a, steer_rate=b)
            return energy(s.q0, s.qd0) - energy(s.q0, np.zeros_like(s.qd0))

        t10, t01, t11 = kinetic(1.0, 0.0), kinetic(0.0, 1.0), kinetic(1.0, 1.0)
        M = np.array([[2 * t10, t11 - t10 - t01], [t11 - t10 - t01, 2 * t01]])
        rest, moving = self.linearize(0.0).A, self.linearize(speed).A
        K0 = -M @ rest[2:4, :2] / g
        K2 = (-M @ moving[2:4, :2] - g * K0) / speed**2
        C1 = -M @ moving[2:4, 2:4] / speed
        return LeanSteerEquations(M, C1, K0, K2, g)


def benchmark_bicycle(**changes) -> Bicycle:
    """The benchmark bicycle of Meijaard et al. (2007, table 1), with any parameter changed by keyword
    (the names of :data:`BENCHMARK`: ``benchmark_bicycle(c=0.05)`` has a shorter trail).

    Raises
    ------
    ModelError
        For an unknown parameter, a mass, length or moment that is not positive, a steer axis tilt outside
        (-π/2, π/2), a frame or fork inertia that is not positive definite, or a centre of mass below the
        ground.
    """
    return Bicycle(_parameters(changes))


def _sorted(lam) -> np.ndarray:
    lam = np.asarray(lam, dtype=complex)
    return lam[np.lexsort((np.round(lam.imag, 9), np.round(lam.real, 9)))]


@dataclass(frozen=True)
class LeanSteerEquations:
    """``M q̈ + v C1 q̇ + (g K0 + v² K2) q = f`` in q = (lean φ, steer δ), f = (lean torque, steer torque).

    >>> eq = LeanSteerEquations(np.eye(2), np.zeros((2, 2)), -np.eye(2), np.zeros((2, 2)), 1.0)
    >>> eq.eigenvalues(3.0).real                        # an inverted pendulum in each coordinate
    array([-1., -1.,  1.,  1.])
    """

    M: np.ndarray
    C1: np.ndarray
    K0: np.ndarray
    K2: np.ndarray
    g: float

    def A(self, v: float) -> np.ndarray:
        """The state matrix in (φ, δ, φ̇, δ̇): ``[[0, I], [−M⁻¹(g K0 + v² K2), −v M⁻¹ C1]]``."""
        Minv = np.linalg.inv(self.M)
        return np.block([[np.zeros((2, 2)), np.eye(2)],
                         [-Minv @ (self.g * self.K0 + v * v * self.K2), -v * Minv @ self.C1]])

    def eigenvalues(self, v: float) -> np.ndarray:
        """The four eigenvalues at speed ``v``, sorted by real part, then imaginary part [1/s]."""
        return _sorted(np.linalg.eigvals(self.A(v)))

    def growth(self, v: float) -> float:
        """The largest real part of the eigenvalues at ``v``: negative where the bicycle is self-stable."""
        return float(self.eigenvalues(v).real.max())

    def modes(self, v: float) -> dict:
        """The eigenvalues by name where the bicycle has its three modes (above the speed where the weave
        pair becomes complex): ``{"weave": λ (imaginary part > 0), "capsize": λ, "castor": λ}``."""
        lam = self.eigenvalues(v)
        pair = lam[lam.imag > 1e-9]
        real = np.sort(lam[np.abs(lam.imag) <= 1e-9].real)
        if len(pair) != 1 or len(real) != 2:
            raise ModelError(f"modes: at {v:g} m/s the eigenvalues {np.round(lam, 6)} are not one complex "
                             "pair and two real ones (below the weave's bifurcation all four are real)")
        return {"weave": complex(pair[0]), "capsize": float(real[1]), "castor": float(real[0])}

    def stable_speeds(self, v_max: float = 10.0, step: float = 0.05) -> tuple:
        """``(v_weave, v_capsize)``: the speeds where the largest real part changes sign, found on a grid of
        ``step`` up to ``v_max`` and refined by Brent's method (to 1e-12 m/s): the bicycle is self-stable
        in between.  Raises :class:`~mbdlib.errors.ModelError` if there is no single stable range."""
        grid = np.arange(step, v_max + step / 2, step)
        signs = np.sign([self.growth(v) for v in grid])
        changes = np.flatnonzero(np.diff(signs))
        if len(changes) != 2 or signs[changes[0]] < 0:
            raise ModelError(f"stable_speeds: no single self-stable speed range below {v_max:g} m/s (the "
                             f"largest real part changes sign at {len(changes)} place(s))")
        return tuple(brentq(self.growth, grid[k], grid[k + 1], xtol=1e-13, rtol=1e-15) for k in changes)
