"""A planar model with its constraint equations compiled to numpy code.

:class:`mbdlib.PlanarModel` evaluates ``Φ``, ``Φ_q`` and ``γ`` joint by joint in Python, which
is clear but costs about a millisecond per call for a small mechanism. Every joint of
:mod:`mbdlib.constraints` also runs on sympy symbols ("one recursion, two number systems"), and
a holonomic joint has the form ``Φ = S(q) − g(t)`` with ``g`` known only for drivers. So the whole
``S(q)``, its Jacobian and its quadratic velocity term can be derived once with sympy and turned
into numpy functions with ``sympy.lambdify(..., cse=True)``; the time part ``g(t)`` of the
drivers is added numerically at each call:

    Φ = S(q) − g(t),    Φ_q = S_q(q),    Φ_t = −ġ(t),    γ = −(S_q q̇)_q q̇ + g̈(t).

:meth:`mbdlib.PlanarModel.compiled` returns a :class:`CompiledPlanarModel`; it offers the same
SYSTEM PROTOCOL as the model (:mod:`mbdlib.dae`), so ``dae.simulate`` accepts it, and it gives
the same numbers (tests/test_compiled.py checks them at random states).

>>> from mbdlib.catalogue import mechanism
>>> model = mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -9.81))
>>> fast = model.compiled()
>>> bool(np.allclose(fast.phi_q(model.q0), model.phi_q(model.q0), atol=1e-13))
True
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from . import dae

__all__ = ["CompiledPlanarModel"]


class CompiledPlanarModel:
    """The SYSTEM PROTOCOL of a :class:`~mbdlib.PlanarModel`, with ``Φ``, ``Φ_q``, ``γ`` compiled.

    Parameters
    ----------
    model : PlanarModel
        A complete model: joints added later are not seen (compile again).

    Everything except ``phi``, ``phi_q``, ``phi_t``, ``gamma`` and ``simulate`` is the model's own
    (``M``, ``Q``, ``energy``, ``B``, ``b_gamma``, ``q0``, ``labels``, ...).
    """

    def __init__(self, model):
        self.model = model
        n = model.n
        q, qd = sp.symbols(f"q:{n}"), sp.symbols(f"qd:{n}")
        S, quad, self._drivers, row = [], [], [], 0
        for k, joint in model._holonomic():
            local_q = [0 if i < 0 else q[i] for i in model._index[k]]          # ground: i < 0
            local_qd = [0 if i < 0 else qd[i] for i in model._index[k]]
            equations = joint._equations(np.array(local_q, dtype=object), np.array(local_qd, dtype=object),
                                         True)
            S.extend(e.val for e in equations)
            quad.extend(e.quad for e in equations)
            if joint._g(0.0) is not None:                  # a driver: g(t) added at each call
                self._drivers.append((slice(row, row + joint.n_eq), joint))
            row += joint.n_eq
        self.m = row
        S = sp.Matrix(S) if S else sp.zeros(0, 1)
        self._S = sp.lambdify([q], S, cse=True)
        self._S_q = sp.lambdify([q], S.jacobian(q) if row else sp.zeros(0, n), cse=True)
        self._quad = sp.lambdify([q, qd], sp.Matrix(quad) if quad else sp.zeros(0, 1), cse=True)

    def __getattr__(self, name):
        # only called for attributes not defined here: the model's own
        return getattr(self.model, name)

    def _time_part(self, t, order: int) -> np.ndarray:
        g = np.zeros(self.m)
        for rows, joint in self._drivers:
            g[rows] = joint._g(t)[order]
        return g

    def phi(self, q, t=0.0) -> np.ndarray:
        """``Φ(q, t)``, shape ``(m,)``."""
        S = np.asarray(self._S(np.asarray(q, dtype=float)), dtype=float).reshape(-1)
        return S - self._time_part(t, 0)

    def phi_q(self, q, t=0.0) -> np.ndarray:
        """``Φ_q``, shape ``(m, n)``."""
        return np.asarray(self._S_q(np.asarray(q, dtype=float)), dtype=float).reshape(self.m, self.model.n)

    def phi_t(self, q, t=0.0) -> np.ndarray:
        """``Φ_t = −ġ(t)``, shape ``(m,)``."""
        return -self._time_part(t, 1)

    def gamma(self, q, qd, t=0.0) -> np.ndarray:
        """``γ = −(S_q q̇)_q q̇ + g̈(t)``, shape ``(m,)``."""
        quad = self._quad(np.asarray(q, dtype=float), np.asarray(qd, dtype=float))
        return -np.asarray(quad, dtype=float).reshape(-1) + self._time_part(t, 2)

    def simulate(self, t_end, method="projection", rtol=1e-9, atol=1e-9, t_eval=None, **options):
        """As :meth:`mbdlib.PlanarModel.simulate`, with the compiled equations."""
        self.model.system(t0=float(options.get("t0", 0.0)))
        return dae.simulate(self, t_end, method=method, rtol=rtol, atol=atol, t_eval=t_eval, **options)

    def __repr__(self) -> str:
        return f"CompiledPlanarModel({self.model.n} coordinates, {self.m} constraint equations)"
