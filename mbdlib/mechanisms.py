"""Ready-made mechanisms the book reuses.

:func:`fourbar_arm` is the course's reconstruction of the worked example of Ma,
Xu & Li (1988): a 2-DOF arm in a vertical plane whose forearm is driven through
a four-bar linkage, both actuators on the base.

Geometry (base frame 0: origin at the shoulder axis O, x0 horizontal, y0 up,
gravity g along −y0; absolute link angles θ_i from +x0, counter-clockwise)::

    link 1  upper arm   O -> E   length L1   θ1 = q1 (actuator 1 on the base)
    link 2  forearm     E -> P   length L2   θ2 passive; pin B at b2 (frame 2)
    link 3  crank       O -> A   length L3   θ3 = q2 (actuator 2 on the base)
    link 4  coupler     A -> B   length L4   θ4 passive
    loop:   A + L4 x4 = E + A2 b2,   branch: B to the left of the line A -> E

Each link frame has its origin at the proximal joint and x along the link;
C_i = J_i + A_i d_i; I_i is the central moment of inertia about z.  With the
defaults the linkage is a parallelogram (L3 = |b2|, b2 along −x2, L4 = L1), so
θ2 = q2 + π and θ4 = q1.

The dynamics is the closed-chain Kane algorithm of :mod:`mbdlib.kane_closed`
(spanning tree upper arm -> forearm, crank -> coupler; cut joint at B).  For
comparison the model also gives the equations in all four absolute angles with
Lagrange multipliers for the loop (:meth:`FourBarArm.lagrange_inverse_dynamics`,
:meth:`FourBarArm.lagrange_forward_dynamics`), written out independently.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from functools import cache

import numpy as np
import sympy as sp

from . import _validate as check
from .bodies import RigidBody
from .chain import Chain, Joint
from .codegen import lambdify_matrix
from .errors import ModelError, ShapeError, SingularityError
from .kane_closed import (
    ClosedChain,
    ClosedKaneEquations,
    LoopJoint,
    closed_kane_equations,
    closed_kane_inverse_dynamics,
    closed_mass_matrix,
    closed_rates,
    trig_canonical,
)
from .model import Coordinate, UnconstrainedModel, linear_coordinate
from .system import Assembly, ConstrainedSystem

__all__ = ["fourbar_arm", "FourBarArm", "FourBarEquations", "FOURBAR_DEFAULTS"]

#: Default parameters of :func:`fourbar_arm` (SI units): a parallelogram.
FOURBAR_DEFAULTS = dict(g=9.81, L1=0.60, L2=0.50, L3=0.15, L4=0.60, b2=(-0.15, 0.0), m1=8.0, m2=4.0, m3=1.0,
                        m4=1.5, d1=(0.30, 0.0), d2=(0.20, 0.0), d3=(0.075, 0.0), d4=(0.30, 0.0), I1=0.24,
                        I2=0.12, I3=0.002, I4=0.045, F_tip=(0.0, 0.0))
_VECTORS = ("b2", "d1", "d2", "d3", "d4", "F_tip")
_POSITIVE = ("L1", "L2", "L3", "L4", "m1", "m2", "m3", "m4", "I1", "I2", "I3", "I4")
_LINKS = ("upper_arm", "forearm", "crank", "coupler")


def _e(t):
    """Unit vector (cos t, sin t)."""
    return np.array([np.cos(t), np.sin(t)])


def _rot(t, s):
    """R(t) s for a 2-vector s."""
    c, sn = np.cos(t), np.sin(t)
    return np.array([c * s[0] - sn * s[1], sn * s[0] + c * s[1]])


def _perp(v):
    """z × v for a planar vector."""
    return np.array([-v[1], v[0]])


def _cross2(a, b) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def _exact(x):
    """A float as the rational its decimal repr shows (0.6 -> 3/5)."""
    return sp.Rational(repr(float(x)))


def _state(x, name: str) -> np.ndarray:
    return check.vector(x, 2, name, " (q1 upper arm, q2 crank)")


def _validate(params: dict) -> dict:
    unknown = sorted(set(params) - set(FOURBAR_DEFAULTS))
    if unknown:
        raise ModelError(f"fourbar_arm: unknown parameter(s) {unknown}; the parameters are "
                         f"{sorted(FOURBAR_DEFAULTS)}")
    p = {**FOURBAR_DEFAULTS, **params}
    out = {}
    for key, value in p.items():
        if key in _VECTORS:
            try:
                v = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                v = np.array([np.nan])
            if v.shape != (2,) or not np.all(np.isfinite(v)):
                raise ShapeError(f"fourbar_arm: {key} must be 2 finite numbers (x, y), got {value!r}")
            out[key] = v
            continue
        if not isinstance(value, numbers.Real) or not np.isfinite(value):
            raise ModelError(f"fourbar_arm: {key} must be a finite number, got {value!r}")
        if key in _POSITIVE and not value > 0:
            kind = "a length" if key[0] == "L" else ("a mass" if key[0] == "m" else "a moment of inertia")
            raise ModelError(f"fourbar_arm: {key} is {kind} and must be positive, got {value!r}")
        out[key] = float(value)
    c = float(np.hypot(*out["b2"]))
    if c == 0:
        raise ModelError("fourbar_arm: b2 (the pin B on the forearm) must not sit at the elbow E; "
                         "give b2 != (0, 0)")
    # |AE| sweeps [|L1 - L3|, L1 + L3]; the coupler and the pin reach [|L4 - |b2||, L4 + |b2|]
    lo, hi = abs(out["L1"] - out["L3"]), out["L1"] + out["L3"]
    reach_lo, reach_hi = abs(out["L4"] - c), out["L4"] + c
    if reach_hi < lo or reach_lo > hi:
        raise ModelError(
            f"fourbar_arm: the loop can never close: the distance |AE| between crank pin A and elbow E "
            f"ranges over [{lo:.4g}, {hi:.4g}] m but L4 = {out['L4']:.4g} m with |b2| = {c:.4g} m reaches "
            f"only [{reach_lo:.4g}, {reach_hi:.4g}] m; change L4 (or b2, L1, L3)")
    return out


def fourbar_arm(**params) -> FourBarArm:
    """The four-bar arm of Ma, Xu & Li (1988), as reconstructed by the course.

    Parameters
    ----------
    **params
        Any of ``g, L1, L2, L3, L4, b2, m1, m2, m3, m4, d1, d2, d3, d4, I1, I2,
        I3, I4, F_tip`` (see :data:`FOURBAR_DEFAULTS`; vectors are (x, y) pairs
        in the link frame, ``F_tip`` in global components).

    Returns
    -------
    FourBarArm

    Examples
    --------
    >>> arm = fourbar_arm()
    >>> np.mod(arm.passive_angles([0.3, 1.2]), 2 * np.pi).round(12)   # parallelogram: θ2 = q2 + π, θ4 = q1
    array([4.34159265, 0.3       ])
    >>> arm.inverse_dynamics([0.0, np.pi / 2], [0.0, 0.0], [0.0, 0.0]).round(4) + 0.0   # holding still
    array([51.5025,  0.    ])
    >>> 9.81 * (8.0 * 0.30 + 4.0 * 0.60 + 1.5 * 0.30)    # g (m1 d1x + m2 L1 + m4 d4x): the coupler ∥ link 1
    51.5025
    """
    return FourBarArm(**params)


@dataclass
class FourBarEquations(ClosedKaneEquations):
    """Symbolic equations of the four-bar arm (from :meth:`FourBarArm.equations`).

    ``τ = M q̈ + h + G``: ``M`` (2, 2), ``h`` (2, 1) the velocity terms, ``G``
    (2, 1) gravity and the tip force.  ``passive`` are the symbols of the
    passive angles θ2, θ4 (absolute) the formulas contain, or ``()`` when
    they were replaced by the parallelogram's closed form; ``params`` maps
    parameter names to their symbols (empty for numeric parameters).
    """

    passive: tuple = ()
    params: dict | None = None


class FourBarArm(UnconstrainedModel):
    """The four-bar arm (see the module notes); build it with :func:`fourbar_arm`.

    As a model its coordinates are the actuated angles ``q = (q1, q2)`` (no constraints: the loop is
    closed inside the equations); :meth:`system` gives the system :func:`mbdlib.simulate` integrates.

    Attributes
    ----------
    params : dict
        Validated parameters (vectors as (2,) arrays).
    chain : Chain
        The spanning tree: upper_arm -> forearm, crank -> coupler (lamina bodies).
    closed : ClosedChain
        Active joints upper_arm and crank, cut joint at B.
    """

    n = 2
    coordinate_names = ["q1", "q2"]

    def __init__(self, **params):
        self.params = p = _validate(params)
        self.chain = self._tree(p)
        self.closed = self._closed(self.chain, p)
        self._compiled = None
        self._assembly = None
        self._parallelogram = None

    # ------------------------------------------------------------------ construction
    @staticmethod
    def _tree(p) -> Chain:
        tree = Chain(name="four-bar arm")
        parents = ("base", "upper_arm", "base", "crank")
        origins = (0, p["L1"], 0, p["L3"])
        for k, (name, parent, x0) in enumerate(zip(_LINKS, parents, origins, strict=True)):
            d, m, I = p[f"d{k + 1}"], p[f"m{k + 1}"], p[f"I{k + 1}"]
            body = RigidBody(m, com=(d[0], d[1], 0), inertia=(I / 2, I / 2, I), name=name)  # a lamina in xy
            tree.add_link(name, Joint(f"joint_{name}", origin=(x0, 0, 0)), body, parent)
        return tree

    @staticmethod
    def _closed(tree, p) -> ClosedChain:
        b2 = p["b2"]
        cut = LoopJoint("forearm", (b2[0], b2[1], 0), "coupler", (p["L4"], 0, 0), rows=(0, 1), name="pin B")
        return ClosedChain(tree, active=("upper_arm", "crank"), loops=[cut], name="four-bar arm")

    @property
    def is_parallelogram(self) -> bool:
        """True if L3 = |b2|, b2 along −x2 and L4 = L1 (then θ2 = q2 + π, θ4 = q1)."""
        if self._parallelogram is None:               # the parameters never change: decided once
            p = self.params
            pin_on_axis = np.allclose(p["b2"], (-p["L3"], 0.0), rtol=0, atol=1e-12)
            self._parallelogram = bool(pin_on_axis and abs(p["L4"] - p["L1"]) < 1e-12)
        return self._parallelogram

    # ------------------------------------------------------------------ kinematics
    def passive_angles(self, q) -> np.ndarray:
        """Absolute angles (θ2, θ4) of forearm and coupler, closed form, shape (2,).

        B is the intersection of the circle of radius L4 about A with the circle
        of radius |b2| about E, on the left of the directed line A -> E; for a
        parallelogram (:attr:`is_parallelogram`) the parallelogram's own branch
        θ2 = q2 + π, θ4 = q1 (wrapped to (−π, π]) everywhere, which is the left
        intersection for 0 < q2 − q1 < π and continues it smoothly through the
        change points (where the equations of motion of the parallelogram are regular).

        Raises
        ------
        ModelError
            If the loop cannot close at ``q`` (|AE| out of reach of L4 and |b2|).
        """
        q = _state(q, "q")
        p = self.params
        if self.is_parallelogram:
            return (np.array([q[1] + np.pi, q[0]]) + np.pi) % (2 * np.pi) - np.pi
        # scalars (math, not small numpy arrays: this runs at every evaluation of the equations)
        ax, ay = p["L3"] * math.cos(q[1]), p["L3"] * math.sin(q[1])            # crank pin A
        ex, ey = p["L1"] * math.cos(q[0]), p["L1"] * math.sin(q[0])            # elbow E
        L4, c = p["L4"], math.hypot(*p["b2"])
        dist = math.hypot(ex - ax, ey - ay)
        a = (L4**2 - c**2 + dist**2) / (2 * dist) if dist > 0 else math.nan
        h2 = L4**2 - a**2
        if not math.isfinite(h2) or h2 < -1e-12 * L4**2:
            raise ModelError(f"four-bar arm: the loop cannot close at q = {q.tolist()}: |AE| = {dist:.6g} m "
                             f"is outside [{abs(L4 - c):.6g}, {L4 + c:.6g}] m reachable with "
                             f"L4 = {L4:.6g} m and |b2| = {c:.6g} m")
        ux, uy = (ex - ax) / dist, (ey - ay) / dist
        h = math.sqrt(max(h2, 0.0))
        bx, by = ax + a * ux - h * uy, ay + a * uy + h * ux                    # left of A -> E
        theta4 = math.atan2(by - ay, bx - ax)
        theta2 = math.atan2(by - ey, bx - ex) - math.atan2(p["b2"][1], p["b2"][0])   # B − E = R(θ2) b2
        return np.array([theta2, theta4])

    def angles(self, q) -> np.ndarray:
        """All absolute angles (θ1, θ2, θ3, θ4), shape (4,)."""
        q = _state(q, "q")
        th2, th4 = self.passive_angles(q)
        return np.array([q[0], th2, q[1], th4])

    def _theta_p(self, q):
        """Passive TREE coordinates: relative angles θ2 − θ1 (elbow) and θ4 − θ3 (crank pin)."""
        th = self.angles(q)
        return [th[1] - th[0], th[3] - th[2]]

    def points(self, q) -> dict:
        """Global positions of O, E, P, A, B, each shape (2,)."""
        th = self.angles(q)
        p = self.params
        O, E, A = np.zeros(2), p["L1"] * _e(th[0]), p["L3"] * _e(th[2])
        return {"O": O, "E": E, "P": E + p["L2"] * _e(th[1]), "A": A, "B": A + p["L4"] * _e(th[3])}

    def tip_position(self, q) -> np.ndarray:
        """Global position of the tip P, shape (2,)."""
        return self.points(q)["P"]

    def loop_jacobian(self, q) -> np.ndarray:
        """``Φ_θ`` of the loop ``Φ = A + L4 e(θ4) − E − R(θ2) b2`` in the absolute angles, shape (2, 4).

        Columns θ1 ... θ4: ``−L1 e⊥(θ1)``, ``−z × R(θ2) b2``, ``L3 e⊥(θ3)``, ``L4 e⊥(θ4)``; the
        passive block ``J_p`` (columns θ2, θ4) is singular at the change points, where A, E and B
        line up (for the parallelogram q2 − q1 = 0 or π).
        """
        th = self.angles(q)
        p = self.params
        return np.column_stack([-p["L1"] * _perp(_e(th[0])), -_perp(_rot(th[1], p["b2"])),
                                p["L3"] * _perp(_e(th[2])), p["L4"] * _perp(_e(th[3]))])

    def _singular(self, q, exc) -> SingularityError:
        hint = " (parallelogram: change points at q2 − q1 = 0 or π)" if self.is_parallelogram else ""
        return SingularityError(
            f"four-bar arm at q = {np.round(q, 6).tolist()} (q2 − q1 = {q[1] - q[0]:.6g} rad): A, E and B "
            f"line up, a change point of the four-bar{hint}; the loop's velocity constraint does not fix the "
            f"passive rates θ̇2, θ̇4 here, so the dynamics is undefined. Move away from it. [{exc}]")

    def passive_rates(self, q) -> np.ndarray:
        """``B`` with (θ̇2, θ̇4) = B q̇ (absolute rates), shape (2, 2); SingularityError at change points."""
        q = _state(q, "q")
        try:
            S = closed_rates(self.closed, q, [0.0, 0.0], None, self._theta_p(q)).S
        except SingularityError as exc:
            raise self._singular(q, exc) from None
        return np.vstack([S[0] + S[1], S[2] + S[3]])             # θ2 = φ1 + φ2,  θ4 = φ3 + φ4

    # ------------------------------------------------------------------ dynamics (closed-chain Kane)
    def _f_ext(self, q, theta2=None):
        """F_tip at P reduced to C2: the force and the moment (P − C2) × F, global components."""
        p = self.params
        F = p["F_tip"]
        if not np.any(F):
            return None
        th2 = self.passive_angles(q)[0] if theta2 is None else theta2
        r = _rot(th2, np.array([p["L2"], 0.0]) - p["d2"])
        return {"forearm": ((F[0], F[1], 0.0), (0.0, 0.0, _cross2(r, F)))}

    def inverse_dynamics(self, q, qd, qdd) -> np.ndarray:
        """Actuator torques (τ1, τ2) by the closed-chain Kane algorithm, shape (2,)."""
        q, qd, qdd = _state(q, "q"), _state(qd, "qd"), _state(qdd, "qdd")
        try:
            return closed_kane_inverse_dynamics(self.closed, q, qd, qdd, self._theta_p(q),
                                                (0.0, -self.params["g"], 0.0), self._f_ext(q))
        except SingularityError as exc:
            raise self._singular(q, exc) from None

    def mass_matrix(self, q) -> np.ndarray:
        """Generalized mass matrix M(q), shape (2, 2)."""
        q = _state(q, "q")
        try:
            return closed_mass_matrix(self.closed, q, self._theta_p(q))
        except SingularityError as exc:
            raise self._singular(q, exc) from None

    def forward_dynamics(self, q, qd, tau) -> np.ndarray:
        """q̈ = M⁻¹ (τ − h − G), shape (2,)."""
        tau = _state(tau, "tau")
        return np.linalg.solve(self.mass_matrix(q), tau - self.inverse_dynamics(q, qd, [0.0, 0.0]))

    def compiled(self):
        """Fast numeric ``M(q)`` and ``h + G`` from :meth:`equations` (:mod:`mbdlib.codegen`), cached.

        Returns
        -------
        (M_f, hG_f) : callables ``M_f(q) -> (2, 2)`` and ``hG_f(q, qd) -> (2,)``

        The passive angles of the general arm come from :meth:`passive_angles` (the last ``q`` is
        remembered, so ``M_f`` and ``hG_f`` at one state solve the loop once); at a change point of the
        general arm the formulas divide by zero and :class:`SingularityError` is raised.  The
        parallelogram's formulas have no passive angles and hold through its change points.
        """
        if self._compiled is None:
            eq = self.equations()
            passive = list(eq.passive)
            M = lambdify_matrix(eq.M, [eq.q, passive], matrix=True)
            hG = lambdify_matrix(eq.h + eq.G, [eq.q, eq.qd, passive])
            last = [None, None]

            def angles(q):
                q = np.asarray(q, dtype=float)
                if not passive:
                    return np.zeros(0)
                if last[0] is None or not np.array_equal(q, last[0]):
                    last[0], last[1] = q.copy(), self._passive_checked(q)
                return last[1]

            def M_f(q):
                return M(q, angles(q))

            def hG_f(q, qd):
                return hG(q, qd, angles(q))

            self._compiled = (M_f, hG_f)
        return self._compiled

    def _passive_checked(self, q):
        """Passive angles, refusing the change points (where the general arm's formulas divide by zero):
        there the loop's passive columns ``z × R(θ2) b2`` and ``L4 e⊥(θ4)`` are parallel."""
        th2, th4 = self.passive_angles(q)
        b = _rot(th2, self.params["b2"])
        sine = (b[0] * np.cos(th4) + b[1] * np.sin(th4)) / np.hypot(*b)       # (z × b) × e⊥(θ4) / |b|
        if abs(sine) <= 1e-9:
            raise self._singular(np.asarray(q, dtype=float), f"sin of the angle between the columns of J_p "
                                                              f"{sine:.2g}")
        return np.array([th2, th4])

    # ------------------------------------------------------------------ the arm as a model
    def q_guess(self):
        """Start guess of :meth:`system`: the upper arm horizontal, the crank up, at rest."""
        return np.array([0.0, np.pi / 2])

    def qd_guess(self, q=None):
        return np.zeros(2)

    def coordinate(self, key) -> Coordinate:
        """``"q1"`` (the upper arm) or ``"q2"`` (the crank), or a :class:`~mbdlib.model.Coordinate`."""
        if key in ("q1", "q2"):
            return linear_coordinate(key, "rad", {int(key[1]) - 1: 1.0})
        return super().coordinate(key)

    def _describe(self) -> str:
        return "four-bar arm"

    def M(self, q):
        """``M(q)`` by the recursion (:meth:`mass_matrix`)."""
        return self.mass_matrix(q)

    def Q(self, t, q, qd):
        """``−(h + G)`` by the recursion: no actuator torques (those are :meth:`system`'s ``tau``)."""
        return -self.inverse_dynamics(q, qd, [0.0, 0.0])

    def system(self, state: Assembly | None = None, tau=None, compiled: bool = True) -> ConstrainedSystem:
        """The arm's :class:`~mbdlib.system.ConstrainedSystem`: ``M(q) q̈ = τ − h − G`` in ``q = (q1, q2)``.

        Parameters
        ----------
        state : Assembly, optional
            Start state (default :meth:`q_guess` at rest; ``simulate(..., q0=, qd0=)`` starts elsewhere).
        tau : None, array_like (2,) or callable ``tau(t, q, qd)``
            Actuator torques (τ1 on the upper arm, τ2 on the crank); each is also an input ``"tau1"``,
            ``"tau2"`` of :func:`mbdlib.linearize`.
        compiled : bool
            The symbolic Kane equations compiled (:meth:`compiled`: derived once, a second or two; then
            a few µs per call), or the numeric recursion at every call (readable, slow).
        """
        state = self._start(state)
        if tau is None:
            def torque(t, q, qd):
                return np.zeros(2)
        elif callable(tau):
            def torque(t, q, qd):
                return _state(tau(t, q, qd), "tau(t, q, qd)")
        else:
            const = _state(tau, "tau")

            def torque(t, q, qd):
                return const
        if compiled:
            M_f, hG_f = self.compiled()
        else:
            M_f, hG_f = self.mass_matrix, (lambda q, qd: self.inverse_dynamics(q, qd, [0.0, 0.0]))

        def Q(t, q, qd):
            return torque(t, q, qd) - hG_f(q, qd)

        e = np.eye(2)
        return ConstrainedSystem(
            n=2, M=M_f, Q=Q, energy=self.energy, q0=state.q0, qd0=state.qd0, t0=state.t0,
            coordinate_names=self.coordinate_names, name="four-bar arm" + (" (compiled)" if compiled else ""),
            inputs={"tau1": lambda t, q, qd: e[0], "tau2": lambda t, q, qd: e[1]})

    def energy(self, q, qd) -> float:
        """Kinetic + potential energy [J]; the constant tip force counts as potential ``−F_tip · P``.

        Computed from the absolute angles and rates (the explicit loop Jacobian), not from the Kane code.
        """
        q, qd = _state(q, "q"), _state(qd, "qd")
        th, w, _ = self._lagrange_state(q, qd)                    # absolute angles and angular velocities
        T = V = 0.0
        for k, (r, v) in enumerate(self._centres(th, w)):
            m, I = self.params[f"m{k + 1}"], self.params[f"I{k + 1}"]
            T += 0.5 * (m * v @ v + I * w[k] ** 2)
            V += m * self.params["g"] * r[1]
        return float(T + V - self.params["F_tip"] @ self.points(q)["P"])

    def _centres(self, th, w):
        """Position and velocity of each centre of mass from absolute angles and rates."""
        p = self.params
        E, A = p["L1"] * _e(th[0]), p["L3"] * _e(th[2])
        vE, vA = w[0] * _perp(E), w[2] * _perp(A)
        out = []
        for k, (J, vJ) in enumerate(((0, 0), (E, vE), (0, 0), (A, vA))):
            s = _rot(th[k], p[f"d{k + 1}"])
            out.append((J + s, vJ + w[k] * _perp(s)))
        return out

    # ------------------------------------------------------------------ Lagrange multipliers (cross-check)
    def _lagrange_terms(self, th, thd):
        """M_θ (4, 4), c (4,) and the applied Q_θ (4,) of the free links in absolute angles.

        C_i = Σ_k R(θ_k) s_ik over the links on its path, so ∂C_i/∂θ_k = z × R(θ_k) s_ik and
        J̇θ̇ = −Σ_k θ̇_k² R(θ_k) s_ik;  M_θ = Σ m_i J_iᵀJ_i + diag(I_i),  c = Σ m_i J_iᵀ J̇_i θ̇.
        """
        p = self.params
        x1, x3 = np.array([p["L1"], 0.0]), np.array([p["L3"], 0.0])
        paths = [{0: p["d1"]}, {0: x1, 1: p["d2"]}, {2: p["d3"]}, {2: x3, 3: p["d4"]}]
        M, c, Q = np.diag([p["I1"], p["I2"], p["I3"], p["I4"]]), np.zeros(4), np.zeros(4)
        for i, path in enumerate(paths):
            m = p[f"m{i + 1}"]
            J, Jdqd = np.zeros((2, 4)), np.zeros(2)
            for k, s in path.items():
                J[:, k] = _perp(_rot(th[k], s))
                Jdqd -= thd[k] ** 2 * _rot(th[k], s)
            M += m * J.T @ J
            c += m * J.T @ Jdqd
            Q += J.T @ (m * np.array([0.0, -p["g"]]))
        JP = np.zeros((2, 4))                                  # tip P = L1 e(θ1) + L2 e(θ2)
        JP[:, 0], JP[:, 1] = _perp(p["L1"] * _e(th[0])), _perp(p["L2"] * _e(th[1]))
        Q += JP.T @ p["F_tip"]
        return M, c, Q

    def _loop_gamma(self, th, thd):
        """γ of Φ_θ θ̈ = γ (minus Φ̈ at θ̈ = 0):  L3 θ̇3² e3 + L4 θ̇4² e4 − L1 θ̇1² e1 − θ̇2² R(θ2) b2."""
        p = self.params
        return (p["L3"] * thd[2] ** 2 * _e(th[2]) + p["L4"] * thd[3] ** 2 * _e(th[3])
                - p["L1"] * thd[0] ** 2 * _e(th[0]) - thd[1] ** 2 * _rot(th[1], p["b2"]))

    def _lagrange_state(self, q, qd):
        th = self.angles(q)
        Phi = self.loop_jacobian(q)
        Jp = Phi[:, [1, 3]]
        if np.linalg.cond(Jp) > 1e9:
            raise self._singular(q, "Lagrange formulation: Φ_θ passive block singular")
        thd = np.zeros(4)
        thd[[0, 2]] = qd
        thd[[1, 3]] = np.linalg.solve(Jp, -Phi[:, [0, 2]] @ qd)   # Φ_θ θ̇ = 0
        return th, thd, Phi

    def lagrange_inverse_dynamics(self, q, qd, qdd):
        """Torques and loop multipliers from the equations in all four angles (an independent check).

        ``M_θ θ̈ + c − Q = E τ − Φ_θᵀ λ``, ``Φ_θ θ̈ = γ`` with θ̈ = (q̈1, θ̈2, q̈2, θ̈4); E picks
        rows θ1 and θ3 (Haug 1989, §6.3).

        Returns
        -------
        tau : ndarray (2,)
        lam : ndarray (2,)
            Multipliers of the loop: ``−Φ_θᵀ λ`` are the generalized forces of pin B.
        """
        q, qd, qdd = _state(q, "q"), _state(qd, "qd"), _state(qdd, "qdd")
        th, thd, Phi = self._lagrange_state(q, qd)
        thdd = np.zeros(4)
        thdd[[0, 2]] = qdd
        thdd[[1, 3]] = np.linalg.solve(Phi[:, [1, 3]], self._loop_gamma(th, thd) - Phi[:, [0, 2]] @ qdd)
        M, c, Q = self._lagrange_terms(th, thd)
        E = np.zeros((4, 2))
        E[0, 0] = E[2, 1] = 1.0
        x = np.linalg.solve(np.hstack([E, -Phi.T]), M @ thdd + c - Q)
        return x[:2], x[2:]

    def lagrange_forward_dynamics(self, q, qd, tau):
        """q̈ from the KKT system ``[[M_θ, Φ_θᵀ], [Φ_θ, 0]] [θ̈; λ] = [Q + E τ − c; γ]``, shape (2,)."""
        q, qd, tau = _state(q, "q"), _state(qd, "qd"), _state(tau, "tau")
        th, thd, Phi = self._lagrange_state(q, qd)
        M, c, Q = self._lagrange_terms(th, thd)
        Q = Q.copy()
        Q[[0, 2]] += tau
        K = np.block([[M, Phi.T], [Phi, np.zeros((2, 2))]])
        x = np.linalg.solve(K, np.concatenate([Q - c, self._loop_gamma(th, thd)]))
        return x[[0, 2]]

    # ------------------------------------------------------------------ symbolic equations
    def equations(self, symbolic_params: bool = False, parallelogram: bool | None = None) -> FourBarEquations:
        """``τ = M(q) q̈ + h(q, q̇) + G(q)`` as formulas, by the closed-chain Kane algorithm.

        Parameters
        ----------
        symbolic_params : bool
            Keep every parameter as a symbol (``L1 ... I4, b2x, b2y, d1x, d1y, ..., g, Fx, Fy``).
        parallelogram : bool, optional
            Replace the passive angles by the parallelogram's θ2 = q2 + π, θ4 = q1 (with
            ``symbolic_params`` the geometry is then L4 = L1, b2 = (−L3, 0)) and trig-simplify.
            Default: True if the model is a parallelogram.  Otherwise the formulas contain
            the symbols ``th2, th4`` of the absolute passive angles, given by :meth:`passive_angles`.

        Returns
        -------
        FourBarEquations
        """
        parallelogram = self.is_parallelogram if parallelogram is None else bool(parallelogram)
        if parallelogram and not (symbolic_params or self.is_parallelogram):
            raise ModelError("equations(parallelogram=True): this arm is not a parallelogram (needs "
                             "L3 = |b2|, b2 along −x2, L4 = L1); use parallelogram=False")
        q = sp.symbols("q1 q2")
        p, symbols = dict(self.params), {}
        if symbolic_params:
            for key in FOURBAR_DEFAULTS:
                if key in _VECTORS:
                    pair = sp.symbols(f"{key}x {key}y" if key != "F_tip" else "Fx Fy", real=True)
                    symbols[key], p[key] = pair, list(pair)
                else:
                    symbols[key] = p[key] = sp.Symbol(key, positive=True)
            if parallelogram:
                p["L4"], p["b2"] = p["L1"], [-p["L3"], 0]
        else:   # exact rationals (0.6 -> 3/5): the loop's cancellations are then exact, no round-off debris
            p = {k: [_exact(x) for x in v] if k in _VECTORS else _exact(v) for k, v in p.items()}
        cc = self._closed(self._tree(p), p)
        if parallelogram:
            th2, th4, passive = q[1] + sp.pi, q[0], ()
        else:
            th2, th4 = passive = sp.symbols("th2 th4")
        F = p["F_tip"]
        r = [sp.cos(th2) * (p["L2"] - p["d2"][0]) + sp.sin(th2) * p["d2"][1],
             sp.sin(th2) * (p["L2"] - p["d2"][0]) - sp.cos(th2) * p["d2"][1]]   # R(θ2) (L2 x2 − d2)
        f_ext = {"forearm": ((F[0], F[1], 0), (0, 0, r[0] * F[1] - r[1] * F[0]))}
        final = (lambda e: sp.trigsimp(trig_canonical(e))) if parallelogram else None
        eq = closed_kane_equations(cc, [th2 - q[0], th4 - q[1]], gravity=(0, -p["g"], 0), f_ext=f_ext, q=q,
                                   final=final)
        if not symbolic_params:                               # numbers as floats again, for reading
            eq.M, eq.h, eq.G = (x.evalf() for x in (eq.M, eq.h, eq.G))
        return FourBarEquations(eq.M, eq.h, eq.G, eq.q, eq.qd, eq.qdd, eq.theta_p, passive, symbols)

    def decoupling_coefficients(self) -> dict:
        """M12 of the parallelogram, ``M12 = c_cos cos(q2 − q1) + c_sin sin(q2 − q1)``, as formulas.

        Derived once (cached) from the symbolic Kane equations with symbolic parameters; the
        arm is dynamically decoupled (M12 ≡ 0) when both vanish.  By hand:
        ``c_cos = m4 L3 d4x − m2 L1 d2x``, ``c_sin = m2 L1 d2y + m4 L3 d4y``.

        Returns
        -------
        dict
            ``{"cos": c_cos, "sin": c_sin, "M12": the full formula, "symbols": parameter symbols}``.
        """
        return _parallelogram_coefficients()

    def decoupled(self, tol: float = 1e-12) -> bool:
        """True if this (parallelogram) arm has M12 ≡ 0 (both decoupling coefficients vanish)."""
        if not self.is_parallelogram:
            raise ModelError("decoupled(): the decoupling condition is derived for the parallelogram; this "
                             "arm is not one (L3 = |b2|, b2 along −x2, L4 = L1)")
        coeffs = self.decoupling_coefficients()
        values = {}
        for key, sym in coeffs["symbols"].items():
            pairs = zip(sym, self.params[key], strict=True) if key in _VECTORS else [(sym, self.params[key])]
            values.update(pairs)
        return all(abs(float(coeffs[k].subs(values))) <= tol for k in ("cos", "sin"))


@cache
def _parallelogram_coefficients() -> dict:
    eq = FourBarArm().equations(symbolic_params=True, parallelogram=True)
    M12 = sp.simplify(eq.M[0, 1])
    q1, q2 = eq.q
    c_cos = sp.simplify(M12.subs({q1: 0, q2: 0}))
    c_sin = sp.simplify(M12.subs({q1: 0, q2: sp.pi / 2}))
    return {"cos": c_cos, "sin": c_sin, "M12": M12, "symbols": eq.params}
