"""System assembly made visible, and a side-by-side report of coordinate choices.

Document 001 (§4) of the course: with Cartesian coordinates the equations of motion are the
index-3 DAE whose acceleration form is the KKT system (Haug 1989, §6.3; Nikravesh 1988, §13.2)::

    [ M    Φ_qᵀ ] [ q̈ ]   [ Q ]
    [ Φ_q   0   ] [ λ  ] = [ γ ]

:func:`assemble_system` builds it for any system (a :class:`~mbdlib.system.ConstrainedSystem`, or a
model, whose system it builds: ``PlanarModel``, ``RelativeModel``, ``ChainModel``, ...), with sizes,
non-zeros and the sparsity patterns (boolean arrays, for ``plt.spy``-like plots).  :func:`model_report`
measures what a coordinate choice costs: coordinates, constraints, their rank, DOF, non-zeros of ``M``
and ``Φ_q``, the time of one right-hand-side evaluation (assemble + KKT solve) and the
leading-order operation count of the dense solve; :func:`compare_models` puts several side by
side (§6: "few dense equations vs many sparse ones").

>>> from mbdlib.catalogue import mechanism
>>> s = assemble_system(mechanism("fourbar", coordinates="cartesian", gravity=(0.0, -9.81)))
>>> s.n, s.m, s.nnz["M"], s.K.shape
(9, 8, 9, (17, 17))
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass, field

import numpy as np

from .dae import accelerations, kkt_matrix
from .errors import ModelError, ShapeError
from .linalg import rank_analysis
from .spatial import SpatialModel
from .system import ConstrainedSystem

__all__ = ["AssembledSystem", "assemble_system", "ModelReport", "model_report", "ModelComparison",
           "compare_models", "dense_flops"]


@dataclass
class AssembledSystem:
    """The assembled KKT system of a model at one state (see :func:`assemble_system`).

    Attributes
    ----------
    q, qd : ndarray, shape (n,)
    t : float
    M : ndarray, shape (n, n)
    Phi_q : ndarray, shape (m, n)
        Holonomic constraint Jacobian; ``B`` (shape (k, n)) holds the nonholonomic rows.
    B : ndarray, shape (k, n)
    Q : ndarray, shape (n,)
    gamma : ndarray, shape (m + k,)
        ``[γ; b_γ]``.
    K : ndarray, shape (n + m + k, n + m + k)
        ``[[M, Jᵀ], [J, 0]]`` with ``J = [Φ_q; B]``.
    rhs : ndarray, shape (n + m + k,)
        ``[Q; γ; b_γ]``.
    labels : list of str
        One name per constraint row.
    """

    q: np.ndarray
    qd: np.ndarray
    t: float
    M: np.ndarray
    Phi_q: np.ndarray
    B: np.ndarray
    Q: np.ndarray
    gamma: np.ndarray
    K: np.ndarray
    rhs: np.ndarray
    labels: list = field(default_factory=list)

    @property
    def n(self) -> int:
        """Number of coordinates."""
        return self.M.shape[0]

    @property
    def m(self) -> int:
        """Number of holonomic constraint equations."""
        return self.Phi_q.shape[0]

    @property
    def k(self) -> int:
        """Number of nonholonomic rows."""
        return self.B.shape[0]

    @property
    def patterns(self) -> dict:
        """Sparsity patterns (boolean arrays) of ``M``, ``Phi_q`` and ``K``.

        An entry counts as non-zero when it exceeds ``1e-12`` times the largest entry of its matrix:
        an entry that is zero in exact arithmetic (``cos(π/2)``, a difference of equal products) may
        come out as round-off of either sign or as an exact 0, depending on the machine's kernels.
        """
        return {key: nonzero_pattern(A) for key, A in (("M", self.M), ("Phi_q", self.Phi_q), ("K", self.K))}

    @property
    def nnz(self) -> dict:
        """Non-zeros of ``M``, ``Phi_q`` and ``K``."""
        return {key: int(np.count_nonzero(p)) for key, p in self.patterns.items()}

    def solve(self):
        """``(q̈, λ)`` from the KKT system: a plain dense solve of ``K [q̈; λ] = rhs``."""
        x = np.linalg.solve(self.K, self.rhs)
        return x[:self.n], x[self.n:]

    def __str__(self) -> str:
        nnz, size = self.nnz, self.K.shape[0]
        return (f"KKT system: n = {self.n} coordinates, m = {self.m} constraints"
                + (f" + {self.k} nonholonomic rows" if self.k else "")
                + f"; K is {size}×{size} with {nnz['K']} non-zeros ({nnz['K'] / size**2:.0%}); "
                  f"nnz(M) = {nnz['M']}, nnz(Φ_q) = {nnz['Phi_q']}")


def nonzero_pattern(A) -> np.ndarray:
    """Boolean pattern of the entries of ``A`` above ``1e-12 ×`` its largest entry (round-off is zero).

    >>> nonzero_pattern(np.array([[1.0, 6e-17], [0.0, -2.0]]))
    array([[ True, False],
           [False,  True]])
    """
    A = np.asarray(A, dtype=float)
    scale = np.abs(A).max() if A.size else 0.0
    return np.abs(A) > 1e-12 * scale


def system_of(model) -> ConstrainedSystem:
    """A system as it is; a model's system, built once (``model.system()``)."""
    if isinstance(model, ConstrainedSystem):
        return model
    if callable(getattr(type(model), "system", None)):
        return model.system()
    raise ModelError(f"expected a model or a ConstrainedSystem, got {type(model).__name__}")


def _state(system, q, qd):
    q = np.asarray(system.q0 if q is None else q, dtype=float)
    qd = np.asarray(system.qd0 if qd is None else qd, dtype=float)
    if q.shape != (system.n,) or qd.shape != (system.n,):
        raise ShapeError(f"q and qd must have shape ({system.n},) (the system's n), got {q.shape} and "
                         f"{qd.shape}")
    return q, qd


def assemble_system(model, q=None, qd=None, t: float = 0.0) -> AssembledSystem:
    """Assemble ``M``, ``Φ_q``, ``Q``, ``γ`` and the KKT matrix of a model at one state.

    Parameters
    ----------
    model : ConstrainedSystem, or a model (its ``system()`` is built)
    q, qd : array_like, shape (n,), optional
        Default: the system's start state (a model's assembled one).
    t : float

    Returns
    -------
    AssembledSystem

    >>> from mbdlib.dae import cartesian_pendulum
    >>> s = assemble_system(cartesian_pendulum(angle=0.0))
    >>> s.K
    array([[ 1.,  0.,  0.],
           [ 0.,  1., -2.],
           [ 0., -2.,  0.]])
    >>> int(s.patterns["K"].sum()), s.solve()[1]     # λ = m g / (2 L)
    (4, array([4.905]))
    """
    system = system_of(model)
    q, qd = _state(system, q, qd)
    t = float(t)
    M, Phi_q, B = system.M(q), system.phi_q(q, t), system.B(q, t)
    Q = system.Q(t, q, qd)
    g = np.concatenate([system.gamma(q, qd, t), system.b_gamma(q, qd, t)])
    labels = list(system.labels)
    K = kkt_matrix(system, q, t)
    return AssembledSystem(q, qd, t, M, Phi_q, B, Q, g, K, np.concatenate([Q, g]), labels)


def dense_flops(n: int, r: int) -> int:
    """Leading-order flop count of the dense range-space KKT solve (``mbdlib.dae``'s method).

    Cholesky of ``M`` (n³/3), ``M⁻¹Jᵀ`` by triangular solves (2n²r), ``S = J M⁻¹Jᵀ`` (2nr²),
    Cholesky of ``S`` (r³/3); ``r`` constraint rows.

    >>> dense_flops(3, 0), dense_flops(9, 8)
    (9, 2862)
    """
    return int(round(n**3 / 3 + 2 * n**2 * r + 2 * n * r**2 + r**3 / 3))


@dataclass
class ModelReport:
    """What one coordinate choice costs (see :func:`model_report`); ``None``: not available."""

    name: str
    coordinates: int
    constraints: int
    rank: int
    dof: int
    nnz_M: int | None
    nnz_Phi_q: int
    rhs_time: float | None
    flops: int | None
    coordinates_6: int | None = None
    constraints_6: int | None = None

    COLUMNS = ("model", "coordinates", "constraints", "rank", "DOF", "nnz(M)", "nnz(Φ_q)",
               "RHS time [µs]", "dense flops")

    def cells(self) -> list[str]:
        """The row's cells as text, in the order of ``COLUMNS``."""
        def fmt(x):
            return "—" if x is None else str(x)

        coords = fmt(self.coordinates) + ("" if self.coordinates_6 is None else f" ({self.coordinates_6})")
        cons = fmt(self.constraints) + ("" if self.constraints_6 is None else f" ({self.constraints_6})")
        t = "—" if self.rhs_time is None else f"{self.rhs_time * 1e6:.0f}"
        return [self.name, coords, cons, fmt(self.rank), fmt(self.dof), fmt(self.nnz_M), fmt(self.nnz_Phi_q),
                t, fmt(self.flops)]

    def __str__(self) -> str:
        text = ", ".join(f"{c} {v}" for c, v in zip(self.COLUMNS[1:], self.cells()[1:], strict=True))
        note = "" if self.coordinates_6 is None else "; in parentheses: 6 per body, without Euler parameters"
        return f"{self.name}: {text}{note}"

    def html_row(self) -> str:
        """One ``<tr>`` of the comparison table."""
        return "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in self.cells()) + "</tr>"

    def _repr_html_(self) -> str:
        return _table([self])


def _table(reports) -> str:
    head = "<tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in ModelReport.COLUMNS) + "</tr>"
    return "<table>\n" + head + "\n" + "\n".join(r.html_row() for r in reports) + "\n</table>"


def _time_rhs(system, q, qd, t, repeats):
    """Median seconds of one ``accelerations`` call (assembly + KKT solve) over ``repeats`` states.

    Each call gets a slightly different q̇, so that no model can reuse a previous evaluation.
    """
    accelerations(system, t, q, qd)                   # warm-up
    times = []
    for k in range(repeats):
        qd_k = qd + (k + 1) * 1e-9
        start = time.perf_counter()
        accelerations(system, t, q, qd_k)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def model_report(model, name: str | None = None, q=None, qd=None, t: float = 0.0, repeats: int = 20,
                 timing: bool = True) -> ModelReport:
    """Sizes, rank, DOF, sparsity and cost of one model, all computed from the model.

    Parameters
    ----------
    model : a model or a ConstrainedSystem; a :class:`mbdlib.SpatialModel` is counted at its assembled
        positions (no ``M``, no timing; its counts without Euler parameters go to ``coordinates_6`` and
        ``constraints_6``).
    name : str, optional
        Row label (default: the class name).
    q, qd : array_like, shape (n,), optional
        State (default the model's assembled one).
    repeats : int
        Timed evaluations (median reported).
    timing : bool
        Measure the right-hand side (``False``: ``rhs_time`` is None).

    Returns
    -------
    ModelReport

    >>> from mbdlib.catalogue import mechanism
    >>> r = model_report(mechanism("slider_crank", coordinates="relative", gravity=(0.0, -9.81)),
    ...                  timing=False)
    >>> r.coordinates, r.constraints, r.rank, r.dof, r.nnz_M
    (3, 2, 2, 1, 9)
    """
    name = type(model).__name__ if name is None else str(name)
    if isinstance(model, SpatialModel):
        q = model.q0 if q is None else np.asarray(q, dtype=float)
        rep = model.dof_report(q)
        J = model.phi_q(q)
        nnz = int(np.count_nonzero(nonzero_pattern(J)))
        return ModelReport(name, model.n, J.shape[0], rep.rank, rep.dof, None, nnz, None, None,
                           rep.coordinates_6, rep.constraints_6)
    system = system_of(model)
    s = assemble_system(system, q, qd, t)
    J = np.vstack([s.Phi_q, s.B])
    rank = rank_analysis(s.Phi_q)[0]
    rhs_time = _time_rhs(system, s.q, s.qd, s.t, int(repeats)) if timing else None
    return ModelReport(name, s.n, s.m, rank, s.n - rank, s.nnz["M"], s.nnz["Phi_q"], rhs_time,
                       dense_flops(s.n, J.shape[0]))


@dataclass
class ModelComparison:
    """Several :class:`ModelReport` rows: ``str`` gives a text table, notebooks an HTML table."""

    rows: list

    def __str__(self) -> str:
        cells = [list(ModelReport.COLUMNS)] + [r.cells() for r in self.rows]
        widths = [max(len(row[c]) for row in cells) for c in range(len(cells[0]))]
        lines = ["  ".join(v.ljust(w) if c == 0 else v.rjust(w) for c, (v, w) in enumerate(zip(row, widths,
                                                                                              strict=True)))
                 for row in cells]
        lines.insert(1, "-" * len(lines[0]))
        if any(r.coordinates_6 is not None for r in self.rows):
            lines.append("(in parentheses: 6 coordinates per body, without Euler parameters)")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return _table(self.rows)

    def __getitem__(self, name) -> ModelReport:
        for r in self.rows:
            if r.name == name:
                return r
        raise KeyError(f"no model named {name!r}; the models are {[r.name for r in self.rows]}")


def compare_models(models, **options) -> ModelComparison:
    """Reports of several models side by side.

    Parameters
    ----------
    models : dict name -> model, or list of models
    **options
        Passed to :func:`model_report` (``repeats``, ``timing``, ...).

    >>> from mbdlib.catalogue import mechanism
    >>> table = compare_models({c: mechanism("double_pendulum", coordinates=c, gravity=(0.0, -9.81))
    ...                         for c in ("cartesian", "relative", "mixed")}, timing=False)
    >>> [(r.coordinates, r.constraints, r.dof) for r in table.rows]
    [(6, 4, 2), (2, 0, 2), (4, 2, 2)]
    """
    items = models.items() if isinstance(models, dict) else ((None, m) for m in models)
    return ModelComparison([model_report(m, name=k, **options) for k, m in items])
