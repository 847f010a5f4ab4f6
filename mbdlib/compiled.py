"""A planar model's constraint equations compiled, for ``PlanarModel.system(compiled=True)``.

:class:`mbdlib.PlanarModel` evaluates ``Φ``, ``Φ_q`` and ``γ`` joint by joint in Python, which is
clear but costs tens of microseconds per joint and call.  Every joint of :mod:`mbdlib.constraints`
also runs on sympy symbols ("one recursion, two number systems"), and a holonomic joint has the form
``Φ = S(q) − g(t)`` with ``g`` known only for drivers.  So the whole ``S(q)``, its Jacobian and its
quadratic velocity term are derived once with sympy and compiled by :func:`mbdlib.codegen.lambdify_matrix`
(machine code through symengine's LLVM backend where it is installed); the time part ``g(t)`` of the
drivers is added numerically at each call:

    Φ = S(q) − g(t),    Φ_q = S_q(q),    Φ_t = −ġ(t),    γ = −(S_q q̇)_q q̇ + g̈(t).

The system built with them has the same numbers as the model's own (``tests/test_compiled.py`` checks
them at random states); its band storage, when the model has one, reads the compiled Jacobian.

>>> from mbdlib.catalogue import mechanism
>>> model = mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -9.81))
>>> fast = model.system(compiled=True)
>>> bool(np.allclose(fast.phi_q(fast.q0), model.phi_q(model.q0), atol=1e-13))
True
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .codegen import lambdify_matrix

__all__ = ["CompiledConstraints"]


class CompiledConstraints:
    """``phi``, ``phi_q``, ``phi_t`` and ``gamma`` of a planar model, derived once and compiled.

    Parameters
    ----------
    model : PlanarModel
        A complete model (joints added later are not seen: build the system again).
    """

    def __init__(self, model):
        n = self.n = model.n
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
        if row:
            self._S = lambdify_matrix(S, [q])
            self._S_q = lambdify_matrix(S.jacobian(q), [q], matrix=True)
            self._quad = lambdify_matrix(sp.Matrix(quad), [q, qd])
        self.backend = self._S.backend if row else "none"

    def _time_part(self, t, order: int) -> np.ndarray:
        g = np.zeros(self.m)
        for rows, joint in self._drivers:
            g[rows] = joint._g(t)[order]
        return g

    def phi(self, q, t=0.0) -> np.ndarray:
        """``Φ(q, t)``, shape ``(m,)``."""
        if not self.m:
            return np.zeros(0)
        return np.asarray(self._S(q), dtype=float).reshape(-1) - self._time_part(t, 0)

    def phi_q(self, q, t=0.0) -> np.ndarray:
        """``Φ_q``, shape ``(m, n)``."""
        if not self.m:
            return np.zeros((0, self.n))
        return np.asarray(self._S_q(q), dtype=float).reshape(self.m, self.n)

    def phi_t(self, q, t=0.0) -> np.ndarray:
        """``Φ_t = −ġ(t)``, shape ``(m,)``."""
        return -self._time_part(t, 1)

    def gamma(self, q, qd, t=0.0) -> np.ndarray:
        """``γ = −(S_q q̇)_q q̇ + g̈(t)``, shape ``(m,)``."""
        if not self.m:
            return np.zeros(0)
        return -np.asarray(self._quad(q, qd), dtype=float).reshape(-1) + self._time_part(t, 2)

    def __repr__(self) -> str:
        return f"CompiledConstraints({self.n} coordinates, {self.m} constraint equations, {self.backend})"
