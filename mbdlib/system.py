"""The one contract between a model and everything that integrates, linearizes or checks it.

A *model* describes a mechanism and changes while it is built (``add_body``, ``add_revolute``, ...):
:class:`~mbdlib.planar.PlanarModel`, :class:`~mbdlib.coordinates.RelativeModel` (relative and mixed
coordinates), :class:`~mbdlib.spatial.SpatialModel`, :class:`~mbdlib.dynamics.ChainModel` (an open
chain in joint coordinates) and :class:`~mbdlib.mechanisms.FourBarArm`.  Each one *builds* a system,
``model.system()``: an immutable :class:`ConstrainedSystem`, the equations

    M(q) q̈ = Q(t, q, q̇) − Φ_qᵀ λ − Bᵀ μ,     Φ(q, t) = 0  (m rows),     B(q, t) q̇ = 0  (k rows),

with a start state ``(q0, qd0)`` at ``t0``, one name per constraint row and per coordinate, and an
optional :class:`Structure` (band or diagonal storage that a solver may use).  Building a system
takes a snapshot: a model changed afterwards does not change a system built before.  Everything
downstream takes a system: :func:`mbdlib.simulate`, :func:`mbdlib.linearize`, the KKT functions of
:mod:`mbdlib.dae`, :func:`mbdlib.check_model`.  (Pinocchio keeps its immutable ``Model`` apart from the
per-evaluation ``Data`` for the same reason.)

Shapes: ``n`` coordinates; ``M (n, n)``, ``Q (n,)``, ``phi (m,)``, ``phi_q (m, n)``, ``phi_t (m,)``,
``gamma (m,)`` = ``Φ_q q̈ − Φ̈`` (the part of the second derivative without q̈, negated), ``B (k, n)``,
``b_gamma (k,)`` likewise for ``B q̇``.  A system written by hand needs only ``n``, ``M`` and ``Q``
(and ``q0``); absent constraints are empty (:func:`mbdlib.dae.cartesian_pendulum` is a complete
example).

>>> import numpy as np
>>> s = ConstrainedSystem(n=1, M=lambda q: np.eye(1), Q=lambda t, q, qd: -q, q0=[1.0],
...                       energy=lambda q, qd: 0.5 * (qd @ qd + q @ q))
>>> s.m, s.k, s.Q(0.0, s.q0, s.qd0)
(0, 0, array([-1.]))
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from . import _validate
from .errors import MbdError, ModelError, ShapeError

__all__ = ["ConstrainedSystem", "Structure", "Assembly", "ModelWarning", "as_system"]


class ModelWarning(UserWarning):
    """A model did something the user did not ask for (e.g. changed given velocities to satisfy the
    velocity constraints); the message says how large the change is and how to avoid it."""


@dataclass(frozen=True)
class Structure:
    """Storage a solver may use instead of dense matrices (an explicit hint, never guessed).

    Attributes
    ----------
    mass_diagonal : callable or None
        ``mass_diagonal()`` → ``(n,)``: M is diagonal and constant (Cartesian planar coordinates).
    band : BandedSchur or None
        The fixed sparsity pattern of Φ_q, for ``S = Φ_q M⁻¹ Φ_qᵀ`` in band storage
        (:class:`mbdlib._banded.BandedSchur`; needs ``mass_diagonal`` and no nonholonomic rows).
    jacobian_values : callable or None
        ``jacobian_values(q, t)`` → the non-zeros of Φ_q in the order of ``band``'s pattern.
    """

    mass_diagonal: Callable | None = None
    band: object | None = None
    jacobian_values: Callable | None = None


@dataclass(frozen=True)
class Assembly:
    """A consistent state of a model: the result of ``model.assemble()`` and ``model.state(...)``.

    Attributes
    ----------
    q0, qd0 : ndarray, shape (n,)
        Coordinates on ``Φ(q, t0) = 0``; rates on ``Φ_q q̇ + Φ_t = 0`` and ``B q̇ = 0``.
    t0 : float
    iterations : int
        Newton iterations of the position solve.
    residual : float
        Largest ``|Φ|`` left.
    velocity_change : float
        Largest change the velocity solve made to the rates the model was given (0 when they were
        consistent, or when ``state(speeds=...)`` chose them).
    """

    q0: np.ndarray
    qd0: np.ndarray
    t0: float = 0.0
    iterations: int = 0
    residual: float = 0.0
    velocity_change: float = 0.0

    def __post_init__(self):
        for name in ("q0", "qd0"):
            a = np.array(getattr(self, name), dtype=float)
            a.flags.writeable = False
            object.__setattr__(self, name, a)


def _empty_rows(n):
    def rows(q, t=0.0):
        return np.zeros((0, n))
    return rows


def _empty(*_args):
    return np.zeros(0)


def _frozen(x, n, name):
    a = _validate.state(x, n, name, "the system")
    a = a.copy()
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class ConstrainedSystem:
    """The equations of motion of a model with its start state; immutable (see the module notes).

    Parameters
    ----------
    n : int
        Number of coordinates.
    M : callable
        ``M(q)`` → ``(n, n)``, symmetric positive definite.
    Q : callable
        ``Q(t, q, qd)`` → ``(n,)``: applied and velocity-product forces.
    phi, phi_q, phi_t, gamma : callable, optional
        ``phi(q, t)`` → ``(m,)``, ``phi_q(q, t)`` → ``(m, n)``, ``phi_t(q, t)`` → ``(m,)``,
        ``gamma(q, qd, t)`` → ``(m,)``.  Default: no holonomic constraints.
    B, b_gamma : callable, optional
        ``B(q, t)`` → ``(k, n)``, ``b_gamma(q, qd, t)`` → ``(k,)``.  Default: no velocity constraints.
    energy : callable, optional
        ``energy(q, qd)`` → float (kinetic + potential; the monitors of a simulation).
    q0, qd0 : array_like, shape (n,)
        Start state (default zeros); ``t0`` its time.
    labels : sequence of str
        One name per constraint row, the m holonomic rows first (default ``"row i"``).
    coordinate_names : sequence of str
        One name per coordinate (default ``"q[i]"``).
    structure : Structure, optional
    inputs : mapping, optional
        ``{name: unit(t, q, qd) → (n,)}``: the generalized force of a unit value of each named input
        (a joint torque or force), for :func:`mbdlib.linearize`'s ``inputs=``.
    name : str
        What the system describes, for messages.
    contacts : sequence of Contact, optional
        Unilateral contacts (:class:`mbdlib.contact.Contact`: gap, normal and tangent rows), which the
        contact schemes of :func:`mbdlib.simulate` (``EventDriven``, ``TimeStepping``) take into account;
        empty by default (then nothing changes).

    The shapes are checked once, at ``q0``, when the system is built: a wrong shape is reported
    here, with the function that returned it, not deep inside an integrator.
    """

    n: int
    M: Callable
    Q: Callable
    phi: Callable | None = None
    phi_q: Callable | None = None
    phi_t: Callable | None = None
    gamma: Callable | None = None
    B: Callable | None = None
    b_gamma: Callable | None = None
    energy: Callable | None = None
    q0: np.ndarray | None = None
    qd0: np.ndarray | None = None
    t0: float = 0.0
    labels: tuple = ()
    coordinate_names: tuple = ()
    structure: Structure | None = None
    inputs: Mapping = field(default_factory=dict)
    name: str = "system"
    contacts: tuple = ()
    m: int = field(init=False)
    k: int = field(init=False)

    def __post_init__(self):
        n = self.n
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
            raise ModelError(f"ConstrainedSystem: n must be a whole number ≥ 0, got {n!r}")
        n = int(n)
        set_ = object.__setattr__
        set_(self, "n", n)
        for name in ("M", "Q"):
            if not callable(getattr(self, name)):
                raise ModelError(f"ConstrainedSystem: {name} must be a function, got {getattr(self, name)!r}")
        holonomic = {"phi": self.phi, "phi_q": self.phi_q, "gamma": self.gamma}
        given = [a for a, f in holonomic.items() if f is not None]
        if given and len(given) < 3:
            missing = [a for a, f in holonomic.items() if f is None]
            raise ModelError(f"ConstrainedSystem: give phi, phi_q and gamma together (missing {missing})")
        if not given:
            if self.phi_t is not None:
                raise ModelError("ConstrainedSystem: phi_t without phi, phi_q and gamma")
            set_(self, "phi", _empty)
            set_(self, "phi_q", _empty_rows(n))
            set_(self, "phi_t", _empty)
            set_(self, "gamma", _empty)
        elif self.phi_t is None:                               # scleronomic constraints: Φ_t = 0
            phi = self.phi
            set_(self, "phi_t", lambda q, t=0.0: np.zeros(np.shape(phi(q, t))))
        if (self.B is None) != (self.b_gamma is None):
            raise ModelError("ConstrainedSystem: give B and b_gamma together")
        if self.B is None:
            set_(self, "B", _empty_rows(n))
            set_(self, "b_gamma", _empty)
        set_(self, "q0", _frozen(np.zeros(n) if self.q0 is None else self.q0, n, "q0"))
        set_(self, "qd0", _frozen(np.zeros(n) if self.qd0 is None else self.qd0, n, "qd0"))
        set_(self, "t0", _validate.number(self.t0, "t0"))
        set_(self, "inputs", MappingProxyType(dict(self.inputs)))
        m, k = self._check_shapes()
        set_(self, "m", m)
        set_(self, "k", k)
        labels = tuple(str(x) for x in self.labels)
        if len(labels) > m + k:
            raise ShapeError(f"{self.name}: {len(labels)} labels for {m + k} constraint rows")
        labels += tuple(f"row {i}" for i in range(len(labels), m + k))
        set_(self, "labels", labels)
        names = tuple(str(x) for x in self.coordinate_names) or tuple(f"q[{i}]" for i in range(n))
        if len(names) != n:
            raise ShapeError(f"{self.name}: {len(names)} coordinate names for n = {n} coordinates")
        set_(self, "coordinate_names", names)
        set_(self, "contacts", self._check_contacts())

    def _check_contacts(self) -> tuple:
        contacts = tuple(self.contacts)
        names = [getattr(c, "name", None) for c in contacts]
        for c in contacts:
            if not callable(getattr(c, "kinematics", None)):
                raise ModelError(f"{self.name}: contacts must be mbdlib.contact.Contact objects (declared on "
                                 f"the model: add_point_line, add_circle_line, ...), got {c!r}")
            Wn = np.shape(c.kinematics(self.q0).Wn)
            if Wn != (self.n,):
                raise ShapeError(f"{self.name}: contact {c.name!r} has a normal row of shape {Wn}, expected "
                                 f"({self.n},)")
        if len(set(names)) != len(names):
            raise ModelError(f"{self.name}: two contacts share a name ({names}); give each a unique name=")
        return contacts

    def _check_shapes(self):
        n, q, qd, t = self.n, self.q0, self.qd0, self.t0
        phi, B = np.asarray(self.phi(q, t)), np.asarray(self.B(q, t))
        if phi.ndim != 1 or B.ndim != 2:
            raise ShapeError(f"{self.name}: phi(q, t) must be 1-D and B(q, t) 2-D, got shapes {phi.shape} "
                             f"and {B.shape}")
        m, k = phi.shape[0], B.shape[0]
        for what, value, shape in [("M(q)", self.M(q), (n, n)), ("Q(t, q, qd)", self.Q(t, q, qd), (n,)),
                                   ("phi_q(q, t)", self.phi_q(q, t), (m, n)),
                                   ("phi_t(q, t)", self.phi_t(q, t), (m,)),
                                   ("gamma(q, qd, t)", self.gamma(q, qd, t), (m,)), ("B(q, t)", B, (k, n)),
                                   ("b_gamma(q, qd, t)", self.b_gamma(q, qd, t), (k,))]:
            if np.shape(value) != shape:
                raise ShapeError(f"{self.name}: {what} has shape {np.shape(value)}, expected {shape} "
                                 f"(n = {n} coordinates, m = {m} constraint rows, k = {k} velocity rows)")
        for key, unit in self.inputs.items():
            if np.shape(unit(t, q, qd)) != (n,):
                raise ShapeError(f"{self.name}: input {key!r} has a generalized force of shape "
                                 f"{np.shape(unit(t, q, qd))}, expected ({n},)")
        return m, k

    @property
    def rows(self) -> int:
        """Constraint rows, ``m + k``."""
        return self.m + self.k

    def state(self, q, name="q") -> np.ndarray:
        """``q`` checked: shape ``(n,)`` and finite (the message names the entry at fault)."""
        return _validate.state(q, self.n, name, self.name)

    def __repr__(self) -> str:
        return (f"ConstrainedSystem({self.name!r}: n = {self.n} coordinates, m = {self.m} constraint rows"
                + (f", k = {self.k} velocity rows" if self.k else "")
                + (f", inputs {list(self.inputs)}" if self.inputs else "")
                + (f", {len(self.contacts)} contacts" if self.contacts else "") + ")")


def as_system(obj, who: str) -> ConstrainedSystem:
    """``obj`` if it is a :class:`ConstrainedSystem`; a model or anything else is refused with what to do."""
    if isinstance(obj, ConstrainedSystem):
        return obj
    if callable(getattr(type(obj), "system", None)):
        raise MbdError(f"{who} takes a ConstrainedSystem, got a {type(obj).__name__} (a model): build the "
                       f"system once, system = model.system(), and pass that")
    raise MbdError(f"{who} takes a ConstrainedSystem (mbdlib.ConstrainedSystem: build one from a model with "
                   f"model.system(), or from functions M, Q, phi, ...), got {type(obj).__name__}")


def warn_velocity_change(name: str, given, consistent, coordinate_names, tol: float = 1e-9) -> float:
    """Warn (:class:`ModelWarning`) when the velocity solve changed the rates the user gave; return the
    change.

    Rates all left at zero (the default) are not a choice: the velocity constraints (drivers) set them,
    without a warning."""
    given, consistent = np.asarray(given, dtype=float), np.asarray(consistent, dtype=float)
    if given.size == 0 or not np.any(given):
        return 0.0
    diff = np.abs(consistent - given)
    change = float(diff.max())
    if change > tol * max(1.0, float(np.max(np.abs(given)))):
        i = int(np.argmax(diff))
        warnings.warn(
            f"{name}: the given velocities violate the velocity constraints, so they were changed (least "
            f"mass-weighted change) by up to {change:.3g}: {coordinate_names[i]} from {given[i]:.6g} to "
            f"{consistent[i]:.6g}. To set the speeds you want, give them to model.state(speeds={{...}})",
            ModelWarning, stacklevel=3)
    return change
