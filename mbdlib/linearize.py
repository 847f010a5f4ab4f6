"""Linearization about an equilibrium or a steady motion, in the coordinates and speeds the user names.

For a system in its (redundant) coordinates q, the user names ``p`` coordinates ``c(q)`` and ``s``
speeds ``u = U(q) q̇`` (the rates of :class:`~mbdlib.model.Coordinate` objects: joint angles, slides,
body angles).  The state ``x = (c, u)`` moves by ``ẋ = F(x, τ)``:

* a state x is turned into ``(q, q̇)``: positions by Newton on ``Φ(q) = 0``, ``c(q) = c`` with the
  directions that no named coordinate describes held at the reference (the null space ``N`` of
  ``[Φ_q; c_q]`` there, ``Nᵀ (q − q_ref) = 0``); velocities by solving ``[Φ_q; B; U] q̇ = [−Φ_t; 0; u]``
  with the unnamed velocity directions ``N_v`` held at their reference values;
* ``ċ = c_q q̇`` and ``u̇ = U q̈ + (U̇ q̇)`` with q̈ from the KKT system (:func:`mbdlib.dae.accelerations`),
  and the velocity-product term of each coordinate in closed form (:meth:`Coordinate.bias`).

``A = ∂F/∂x`` by central differences with two Richardson extrapolations (sixth order; the difference
of the last two extrapolations is reported as :attr:`Linearization.accuracy`); ``B = ∂F/∂τ`` is exact:
the accelerations are linear in a generalized force, so one KKT solve per input gives its column.

The linearization is about an equilibrium of ``x`` (a state at rest, or a steady motion such as a wheel
rolling straight at constant speed: its position changes, its named coordinates and speeds do not).
It is meaningful only if the motion of ``x`` does not depend on the unnamed directions (ignorable
coordinates such as a vehicle's position and heading on flat ground): that is checked, and a named
set that misses a coordinate the dynamics depends on is refused.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ._kkt import _solve, accelerations
from .errors import MbdError, ModelError
from .linalg import newton_solve, null_space, numerical_rank
from .model import Coordinate, linear_coordinate
from .system import Assembly, as_system

__all__ = ["linearize", "Linearization"]


@dataclass
class Linearization:
    """``ẋ ≈ rate0 + A (x − x0) + B τ`` about ``x0`` (see :func:`linearize`).

    Attributes
    ----------
    A : ndarray, shape (p + s, p + s)
    B : ndarray, shape (p + s, r)
    states : list of str
        The coordinates, then the speeds (``"d/dt name"``).
    inputs : list of str
    x0 : ndarray, shape (p + s,)
        The reference state.
    rate0 : ndarray, shape (p + s,)
        ``ẋ`` at the reference (zero at an equilibrium of the named variables).
    accuracy : float
        Estimated largest error of an entry of ``A`` (from the Richardson extrapolation).
    coupling : float
        Largest change of ``ẋ`` per unit move along the directions no name describes (zero, to the
        accuracy, when those coordinates are ignorable).
    """

    A: np.ndarray
    B: np.ndarray
    states: list
    inputs: list
    x0: np.ndarray
    rate0: np.ndarray
    accuracy: float
    coupling: float

    @property
    def is_equilibrium(self) -> bool:
        """True when the named variables are at rest at the reference (``rate0`` ≈ 0)."""
        scale = 1.0 + float(np.max(np.abs(self.A), initial=0.0)) * float(np.max(np.abs(self.x0), initial=1.0))
        return bool(np.max(np.abs(self.rate0), initial=0.0) <= 1e-8 * scale)

    @property
    def eigenvalues(self) -> np.ndarray:
        """Eigenvalues of ``A``, sorted by real part then imaginary part [1/s]."""
        return self.modes()[0]

    def modes(self):
        """``(eigenvalues, vectors)``: the eigenvalues sorted as :attr:`eigenvalues`, each column of
        ``vectors`` the mode shape in the order of :attr:`states`, scaled to a largest entry of 1 (real
        and positive).

        Each vector of an eigenvalue apart from the others is refined by one step of inverse iteration:
        LAPACK's vectors can be wrong in the ninth digit when ``A`` has a defective eigenvalue elsewhere
        (a free coordinate's double zero), while the refined ones are exact to round-off."""
        lam, V = np.linalg.eig(self.A)
        V = _refine_vectors(self.A, lam, V)
        order = np.lexsort((np.round(lam.imag, 9), np.round(lam.real, 9)))
        lam, V = lam[order], V[:, order]
        for k in range(V.shape[1]):
            big = V[np.argmax(np.abs(V[:, k])), k]
            V[:, k] = V[:, k] / big if big != 0 else V[:, k]
        return lam, V

    def stable(self, tol: float = 1e-9) -> bool:
        """All eigenvalues with real part below ``tol`` (marginal ones count as stable)."""
        return bool(np.all(self.eigenvalues.real < tol))

    def __str__(self) -> str:
        lam = ", ".join(f"{z.real:.6g}{z.imag:+.6g}j" if abs(z.imag) > 1e-12 else f"{z.real:.6g}"
                        for z in self.eigenvalues)
        note = "" if self.is_equilibrium else f"; not an equilibrium (|ẋ0| = {np.abs(self.rate0).max():.3g})"
        return (f"linearization in {self.states} (inputs {self.inputs}): eigenvalues {lam}; "
                f"accuracy ≈ {self.accuracy:.1e}{note}")


def _refine_vectors(A: np.ndarray, lam: np.ndarray, V: np.ndarray) -> np.ndarray:
    """One step of inverse iteration, ``(A - σI) w = v`` with σ a hair from λ, for each simple eigenvalue
    (a repeated one's vectors are left: the step would turn them all into one)."""
    V = V.copy()
    scale = max(1.0, float(np.max(np.abs(lam), initial=0.0)))
    eye = np.eye(A.shape[0])
    for k, z in enumerate(lam):
        if np.min(np.abs(np.delete(lam, k) - z), initial=np.inf) < 1e-6 * scale:
            continue
        try:
            w = np.linalg.solve(A - (z + 1e-10 * scale) * eye, V[:, k])
        except np.linalg.LinAlgError:
            continue
        if np.all(np.isfinite(w)):
            V[:, k] = w / np.linalg.norm(w)
    return V


def _coordinates(system, items, what):
    out = []
    for c in items:
        if isinstance(c, Coordinate):
            out.append(c)
        elif isinstance(c, str) and c in system.coordinate_names:
            k = system.coordinate_names.index(c)
            out.append(linear_coordinate(c, "m", {k: 1.0}))
        elif isinstance(c, int | np.integer) and not isinstance(c, bool) and 0 <= c < system.n:
            out.append(linear_coordinate(system.coordinate_names[int(c)], "m", {int(c): 1.0}))
        elif callable(getattr(c, "coordinate", None)):
            out.append(c.coordinate())
        else:
            raise ModelError(f"linearize: {what} must be Coordinates (joint.angle, model.coordinate(...)), "
                             f"names of the system's coordinates or their indices; got {c!r}")
    return out


class _Reduced:
    """The map x = (c, u) → (q, q̇) → ẋ of the module notes, at one reference state."""

    def __init__(self, system, coords, speeds, q, qd, t):
        self.s, self.c, self.u, self.t = system, coords, speeds, t
        self.q_ref, self.qd_ref = q, qd
        C = np.array([c.gradient(q) for c in coords]).reshape(-1, system.n)
        self.N = null_space(np.vstack([system.phi_q(q, t), C]))
        U = np.array([u.gradient(q) for u in speeds]).reshape(-1, system.n)
        self.Nv = null_space(np.vstack([system.phi_q(q, t), system.B(q, t), U]))
        self.nv_ref = self.Nv.T @ qd
        self.x0 = np.array([c(q) for c in coords] + [u.rate(q, qd) for u in speeds])
        self.scale = 1.0 + float(np.max(np.abs(q)))

    def positions(self, cvals, shift=None):
        s, t = self.s, self.t
        offset = np.zeros(self.N.shape[1]) if shift is None else shift

        def residual(x):
            held = [c.residual(x, v) for c, v in zip(self.c, cvals, strict=True)]
            return np.concatenate([s.phi(x, t), held, self.N.T @ (x - self.q_ref) - offset])

        def jacobian(x):
            return np.vstack([s.phi_q(x, t)] + [c.gradient(x)[None, :] for c in self.c] + [self.N.T])

        q, _, res, ok = newton_solve(residual, jacobian, self.q_ref + self.N @ offset, 1e-13 * self.scale,
                                     30)
        if not ok and res > 1e-9 * self.scale:
            raise MbdError(f"linearize: the state near the reference cannot be reconstructed (|residual| = "
                           f"{res:.3g}); the named coordinates may be singular here")
        return q

    def velocities(self, q, uvals, shift=None):
        s, t = self.s, self.t
        U = np.array([u.gradient(q) for u in self.u]).reshape(-1, s.n)
        A = np.vstack([s.phi_q(q, t), s.B(q, t), U, self.Nv.T])
        rhs = np.concatenate([-s.phi_t(q, t), np.zeros(s.k), uvals,
                              self.nv_ref + (0.0 if shift is None else shift)])
        return np.linalg.lstsq(A, rhs, rcond=None)[0]

    def rate(self, x, qshift=None, vshift=None):
        p = len(self.c)
        q = self.positions(x[:p], qshift)
        qd = self.velocities(q, x[p:], vshift)
        qdd, _ = accelerations(self.s, self.t, q, qd)
        return self.measure(q, qd, qdd)

    def measure(self, q, qd, qdd, with_bias=True):
        cdot = [c.gradient(q) @ qd for c in self.c]
        udot = [u.gradient(q) @ qdd + (u.bias(q, qd) if with_bias else 0.0) for u in self.u]
        return np.array(cdot + udot)


def _derivative(f, x0, k, h):
    """∂f/∂x_k at x0: central differences with steps h, h/2, h/4 and two Richardson extrapolations."""
    e = np.zeros_like(x0)
    e[k] = 1.0
    D = [(f(x0 + hh * e) - f(x0 - hh * e)) / (2 * hh) for hh in (h, h / 2, h / 4)]
    R1, R2 = (4 * D[1] - D[0]) / 3, (4 * D[2] - D[1]) / 3
    return (16 * R2 - R1) / 15, float(np.max(np.abs(R2 - R1), initial=0.0)) / 15


def linearize(system, coordinates, speeds=None, at=None, inputs=(), step: float = 1e-3) -> Linearization:
    """Linearize a system's motion about a state, in the coordinates and speeds you name.

    Parameters
    ----------
    system : ConstrainedSystem
    coordinates : sequence of Coordinate
        ``joint.angle``, ``joint.slide``, ``model.coordinate(...)`` (or names / indices of the system's
        own coordinates).  Name every coordinate the motion depends on; ignorable ones (a vehicle's
        position and heading on level ground, a wheel's rotation angle) may be left out.
    speeds : sequence of Coordinate, optional
        The speeds are the rates of these (default: the rates of ``coordinates``).  Name as many as
        the system has velocity degrees of freedom.
    at : Assembly, optional
        The reference state (from ``model.state(...)``); default the system's start state.
    inputs : sequence of str
        Names of ``system.inputs`` (joint torques and forces) for the columns of ``B``.
    step : float
        The largest finite-difference step, relative to ``max(1, |x_k|)``.

    Returns
    -------
    Linearization

    Raises
    ------
    ModelError
        When the named speeds are fewer than the velocity degrees of freedom, or the motion of the named
        variables depends on a direction no name describes (a coordinate is missing).

    Examples
    --------
    A pendulum (uniform rod, length 1 m) hanging at rest: ``λ = ±i √(3g / 2L)``.

    >>> from mbdlib import Chain, ChainModel
    >>> model = ChainModel(Chain.planar([1.0]), gravity=(0, -9.81, 0), q0=[-np.pi / 2])
    >>> lin = linearize(model.system(), [0])
    >>> bool(np.allclose(lin.eigenvalues, [-1j * np.sqrt(1.5 * 9.81), 1j * np.sqrt(1.5 * 9.81)]))
    True
    """
    system = as_system(system, "linearize")
    coords = _coordinates(system, coordinates, "coordinates")
    speeds = coords if speeds is None else _coordinates(system, speeds, "speeds")
    if at is None:
        q, qd, t = system.q0, system.qd0, system.t0
    elif isinstance(at, Assembly):
        q, qd, t = system.state(at.q0, "at.q0"), system.state(at.qd0, "at.qd0"), at.t0
    else:
        raise ModelError(f"linearize: at must be an Assembly (model.state(...)), got {type(at).__name__}")
    for name in inputs:
        if name not in system.inputs:
            have = list(system.inputs) or "none"
            raise ModelError(f"linearize: {name!r} is not an input of the system; its inputs are {have} "
                             "(add_joint_torque / add_joint_force make them)")
    J = np.vstack([system.phi_q(q, t), system.B(q, t)])
    velocity_dof = system.n - (numerical_rank(J) if J.shape[0] else 0)
    if len(speeds) != velocity_dof:
        raise ModelError(f"linearize: the system has {velocity_dof} velocity degrees of freedom; name that "
                         f"many speeds (got {len(speeds)}: {[u.name for u in speeds]})")
    red = _Reduced(system, coords, speeds, q, qd, t)
    x0 = red.x0
    rate0 = red.rate(x0)
    n_x = x0.size
    A, err = np.zeros((n_x, n_x)), 0.0
    for k in range(n_x):
        h = step * max(1.0, abs(x0[k]))
        A[:, k], e = _derivative(red.rate, x0, k, h)
        err = max(err, e)
    coupling = 0.0
    for k in range(red.N.shape[1]):                        # the unnamed directions must not matter
        h = step * red.scale
        e = np.zeros(red.N.shape[1])
        e[k] = 1.0
        d = (red.rate(x0, qshift=h * e) - red.rate(x0, qshift=-h * e)) / (2 * h)
        coupling = max(coupling, float(np.max(np.abs(d))))
    for k in range(red.Nv.shape[1]):
        h = step * (1.0 + float(np.max(np.abs(qd))))
        e = np.zeros(red.Nv.shape[1])
        e[k] = 1.0
        d = (red.rate(x0, vshift=h * e) - red.rate(x0, vshift=-h * e)) / (2 * h)
        coupling = max(coupling, float(np.max(np.abs(d))))
    limit = 1e-6 * (1.0 + float(np.max(np.abs(A))))
    config_dof = system.n - (numerical_rank(system.phi_q(q, t)) if system.m else 0)
    if coupling > limit:
        raise ModelError(f"linearize: the motion of {[c.name for c in coords]} and the speeds depends on a "
                         f"direction that none of them describes (change of ẋ {coupling:.3g} per unit move, "
                         f"limit {limit:.1g}); name more coordinates (the system has {config_dof} "
                         f"configuration degrees of freedom, {len(coords)} named)")
    Bm = np.zeros((n_x, len(inputs)))
    if inputs:
        p = len(coords)
        for j, name in enumerate(inputs):
            unit = system.inputs[name]
            forced = dataclasses.replace(system, Q=lambda t_, q_, qd_, unit=unit: unit(t_, q_, qd_),
                                         gamma=lambda q_, qd_, t_=0.0: np.zeros(system.m),
                                         b_gamma=lambda q_, qd_, t_=0.0: np.zeros(system.k), inputs={})
            dqdd, _ = _solve(forced, t, q, qd)
            Bm[p:, j] = red.measure(q, qd, dqdd, with_bias=False)[p:]
    states = [c.name for c in coords] + [f"d/dt {u.name}" for u in speeds]
    return Linearization(A, Bm, states, list(inputs), x0, rate0, err, coupling)

