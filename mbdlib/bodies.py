"""Rigid bodies: mass, centre of mass, inertia tensor; parallel axes, principal axes, composite bodies.

A :class:`RigidBody` holds what the modelling checklist asks for (item 2): the mass
``m``, the centre of mass ``com`` in body-frame components, and the *central* inertia
tensor ``inertia`` (about the centre of mass, in body-frame components).

Validation of numeric data (symbolic data is only checked for symmetry):

* ``mass > 0``. A massless body (``mass == 0``) is allowed only with a zero inertia
  tensor: it is the "virtual link" of a chain (e.g. the cross of a universal joint
  modelled as two revolute joints). Negative mass is always an error.
* ``inertia`` symmetric, positive definite, and its principal moments satisfy the
  triangle inequalities ``I1 + I2 >= I3`` (and permutations): in principal axes
  ``I1 + I2 - I3 = 2 ∫ z^2 dm >= 0``, so every real mass distribution satisfies them.
* A positive *semi*-definite inertia (a zero principal moment: slender rod, point
  mass) makes ``I alpha = M`` singular for a free body. It is rejected unless
  ``allow_degenerate=True`` (:meth:`RigidBody.rod` sets it, since the slender rod is a
  textbook idealisation meant to be used in chains where its axial spin is not free).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ._backend import is_symbolic, matrix, vector
from .errors import ModelError, ShapeError
from .rotations import check_rotation

__all__ = ["RigidBody", "parallel_axis", "rotate_inertia", "principal_axes", "combine"]

_TOL = 1e-9  # relative tolerance of the inertia checks


def parallel_axis(I_c, mass, r):
    """Inertia about a point displaced by ``r`` from the centre of mass.

    ``I_P = I_c + m (r^T r 1 - r r^T)`` (Steiner's theorem; Nikravesh 1988, ch. 6).

    Parameters
    ----------
    I_c : array_like, shape (3, 3)
        Central inertia tensor.
    mass : float or sympy expression
    r : array_like, shape (3,)
        Vector from the centre of mass to the new point (its sign does not matter).

    Returns
    -------
    ndarray, shape (3, 3), or sympy Matrix

    >>> parallel_axis(np.zeros((3, 3)), 2.0, [1.0, 0.0, 0.0])
    array([[0., 0., 0.],
           [0., 2., 0.],
           [0., 0., 2.]])
    """
    symbolic = is_symbolic(I_c, mass, r)
    I_c, r = matrix(I_c, (3, 3), "I_c"), vector(r, 3, "r")
    if symbolic:
        r = sp.Matrix(r)
        return sp.Matrix(I_c) + mass * ((r.T @ r)[0, 0] * sp.eye(3) - r @ r.T)
    return I_c + mass * ((r @ r) * np.eye(3) - np.outer(r, r))


def rotate_inertia(I, A):
    """Inertia tensor in another frame, ``A I A^T`` (``A`` maps the body frame to it).

    >>> from mbdlib.rotations import rot_z
    >>> rotate_inertia(np.diag([1.0, 2.0, 3.0]), rot_z(np.pi / 2)).round(12) + 0.0
    array([[2., 0., 0.],
           [0., 1., 0.],
           [0., 0., 3.]])
    """
    if is_symbolic(I, A):
        I, A = sp.Matrix(matrix(I, (3, 3), "I")), sp.Matrix(matrix(A, (3, 3), "A"))
        return A @ I @ A.T
    return check_rotation(A) @ matrix(I, (3, 3), "I") @ check_rotation(A).T


def _inertia_matrix(inertia, name: str):
    """A 3x3 inertia from a 3x3 matrix or a 3-vector of principal moments."""
    shape = np.shape(inertia) if not isinstance(inertia, sp.MatrixBase) else inertia.shape
    if shape in ((3,), (3, 1), (1, 3)):
        d = vector(inertia, 3, f"inertia of body {name!r}")
        return sp.diag(*d) if is_symbolic(d) else np.diag(d)
    return matrix(inertia, (3, 3), f"inertia of body {name!r} (3x3 tensor or 3 principal moments)")


def _check_numeric(mass: float, I: np.ndarray, name: str, allow_degenerate: bool) -> None:
    if not (np.isfinite(mass) and np.all(np.isfinite(I))):
        raise ModelError(f"body {name!r}: mass and inertia must be finite numbers")
    scale = max(1.0, float(np.max(np.abs(I))))
    if mass < 0:
        raise ModelError(f"body {name!r} has negative mass {mass:g} kg; a mass must be > 0")
    if mass == 0 and np.any(I != 0):
        raise ModelError(
            f"body {name!r} has zero mass but a non-zero inertia; give it a mass, or zero inertia "
            "for a massless (virtual) body"
        )
    for i, j in ((0, 1), (0, 2), (1, 2)):
        if abs(I[i, j] - I[j, i]) > _TOL * scale:
            raise ModelError(
                f"inertia of body {name!r} is not symmetric: I[{i},{j}] = {I[i, j]:g} but "
                f"I[{j},{i}] = {I[j, i]:g}; an inertia tensor is symmetric"
            )
    if mass == 0:
        return
    lam = np.linalg.eigvalsh(I)
    if lam[0] < -_TOL * scale:
        raise ModelError(
            f"inertia of body {name!r} is not positive definite: eigenvalues (principal moments) "
            f"{np.array2string(lam, precision=4)}; check signs (products of inertia enter as -Ixy)"
        )
    if lam[0] <= _TOL * scale and not allow_degenerate:
        raise ModelError(
            f"inertia of body {name!r} is only positive semi-definite (principal moments "
            f"{np.array2string(lam, precision=4)}): a slender rod or point mass. Pass "
            "allow_degenerate=True if that idealisation is intended"
        )
    for a, b, c in ((0, 1, 2), (0, 2, 1), (1, 2, 0)):
        if lam[a] + lam[b] < lam[c] - _TOL * scale:
            raise ModelError(
                f"principal moments of body {name!r} break the triangle inequality: "
                f"I{a + 1} + I{b + 1} = {lam[a] + lam[b]:g} < I{c + 1} = {lam[c]:g} (moments sorted "
                "ascending); no real mass distribution has them"
            )


class RigidBody:
    """A rigid body: mass, centre of mass and central inertia tensor (body frame).

    Parameters
    ----------
    mass : float or sympy expression, kg
    com : array_like, shape (3,)
        Centre of mass in body-frame components, m.
    inertia : array_like, shape (3, 3) or (3,)
        Inertia tensor about the centre of mass in body-frame components (kg m^2), or its
        three principal moments (a diagonal tensor). Defaults to zero (a point mass, which
        then needs ``allow_degenerate=True``, or a massless body).
    name : str
    allow_degenerate : bool
        Accept a positive semi-definite inertia (see the module notes).

    Attributes are read-only; numeric ones are float arrays.

    >>> RigidBody(2.0, com=[0.5, 0, 0], inertia=[0.1, 0.2, 0.2], name="link1")
    RigidBody(name='link1', mass=2, com=[0.5, 0, 0], inertia=diag[0.1, 0.2, 0.2])
    >>> RigidBody(-1.0, inertia=[1, 1, 1], name="arm")
    Traceback (most recent call last):
    ...
    mbdlib.errors.ModelError: body 'arm' has negative mass -1 kg; a mass must be > 0
    """

    __slots__ = ("mass", "com", "inertia", "name")

    def __init__(self, mass, com=(0.0, 0.0, 0.0), inertia=None, name: str = "body",
                 allow_degenerate: bool = False):
        if not isinstance(name, str):
            raise ShapeError(f"name must be a string, got {name!r}")
        if not isinstance(mass, (int, float, np.floating, np.integer, sp.Expr)):
            raise ShapeError(f"mass of body {name!r} must be a number, got {mass!r}")
        com = vector(com, 3, f"com of body {name!r}")
        I = _inertia_matrix(np.zeros((3, 3)) if inertia is None else inertia, name)
        if is_symbolic(I):
            S = sp.Matrix(I)
            if not (S - S.T).applyfunc(sp.simplify).is_zero_matrix:
                raise ModelError(f"inertia of body {name!r} is not symmetric: I - I^T = {(S - S.T).tolist()}")
            I = S
        if not is_symbolic(mass, I):
            mass = float(mass)
            _check_numeric(mass, I, name, allow_degenerate)
        for a in (com, I):
            if isinstance(a, np.ndarray):
                a.flags.writeable = False
        for attr, value in (("mass", mass), ("com", com), ("inertia", I), ("name", name)):
            object.__setattr__(self, attr, value)

    def __setattr__(self, attr, value):
        raise AttributeError(f"RigidBody is immutable; build a new one instead of setting {attr!r}")

    def __deepcopy__(self, memo):
        return self                      # immutable: a copy of a model may share it

    def __copy__(self):
        return self

    def __repr__(self) -> str:
        def fmt(x):
            return f"{x:.6g}" if isinstance(x, (float, np.floating)) else str(x)

        com = "[" + ", ".join(fmt(c) for c in self.com) + "]"
        I = self.inertia
        if all(I[i, j] == 0 for i in range(3) for j in range(3) if i != j):
            inertia = "diag[" + ", ".join(fmt(I[i, i]) for i in range(3)) + "]"
        else:
            rows = ("[" + ", ".join(fmt(I[i, j]) for j in range(3)) + "]" for i in range(3))
            inertia = "[" + ", ".join(rows) + "]"
        return f"RigidBody(name={self.name!r}, mass={fmt(self.mass)}, com={com}, inertia={inertia})"

    # ------------------------------------------------------------------ derived inertia
    def inertia_about(self, point=(0.0, 0.0, 0.0)):
        """Inertia about ``point`` (body-frame components), by the parallel-axis theorem.

        >>> RigidBody.rod(3.0, 2.0).inertia_about([0, 0, 0]).diagonal()  # m L^2 / 3
        array([0., 4., 4.])
        """
        point = vector(point, 3, "point")
        if is_symbolic(self.com, point):
            return parallel_axis(self.inertia, self.mass, sp.Matrix(self.com) - sp.Matrix(point))
        return parallel_axis(self.inertia, self.mass, self.com - point)

    def inertia_in(self, A):
        """Central inertia in the frame that ``A`` maps body components to: ``A I A^T``."""
        return rotate_inertia(self.inertia, A)

    # ------------------------------------------------------------------ textbook bodies
    # Formulas: any table of homogeneous solids, e.g. Meriam & Kraige, Engineering Mechanics:
    # Dynamics, appendix D; checked against exact integrals in tests/test_bodies.py.
    @classmethod
    def rod(cls, mass, length, name: str = "rod", axis: str = "x"):
        """Uniform slender rod from the frame origin along ``axis``: com at ``length/2``,
        transverse moments ``m L^2 / 12``, axial moment 0 (``allow_degenerate`` is set).

        >>> RigidBody.rod(3.0, 2.0, name="link")
        RigidBody(name='link', mass=3, com=[1, 0, 0], inertia=diag[0, 1, 1])
        """
        k = _axis_index(axis)
        _positive(name, length=length)
        com = [0, 0, 0]
        com[k] = length / 2
        moments = [mass * length**2 / 12] * 3
        moments[k] = 0
        return cls(mass, com, moments, name=name, allow_degenerate=True)

    @classmethod
    def box(cls, mass, a, b, c, name: str = "box", com=(0.0, 0.0, 0.0)):
        """Uniform box with edges ``a, b, c`` along x, y, z: ``Ixx = m (b^2 + c^2) / 12``, ...

        >>> RigidBody.box(12.0, 1.0, 2.0, 3.0).inertia.diagonal()
        array([13., 10.,  5.])
        """
        _positive(name, a=a, b=b, c=c)
        return cls(mass, com, [mass * (b**2 + c**2) / 12, mass * (a**2 + c**2) / 12,
                               mass * (a**2 + b**2) / 12], name=name)

    @classmethod
    def cylinder(cls, mass, radius, height, axis: str = "z", name: str = "cylinder", com=(0.0, 0.0, 0.0)):
        """Uniform solid cylinder about its centre: axial ``m r^2 / 2``, transverse
        ``m (3 r^2 + h^2) / 12``.

        >>> RigidBody.cylinder(12.0, 1.0, 2.0).inertia.diagonal()
        array([7., 7., 6.])
        """
        k = _axis_index(axis)
        _positive(name, radius=radius, height=height)
        moments = [mass * (3 * radius**2 + height**2) / 12] * 3
        moments[k] = mass * radius**2 / 2
        return cls(mass, com, moments, name=name)

    @classmethod
    def sphere(cls, mass, radius, name: str = "sphere", com=(0.0, 0.0, 0.0)):
        """Uniform solid sphere: ``I = 2 m r^2 / 5`` about every axis through its centre.

        >>> RigidBody.sphere(5.0, 1.0).inertia.diagonal()
        array([2., 2., 2.])
        """
        _positive(name, radius=radius)
        return cls(mass, com, [2 * mass * radius**2 / 5] * 3, name=name)


def principal_axes(I, name: str = "I"):
    """Principal moments and axes of an inertia tensor: ``I = A diag(I1, I2, I3) Aᵀ``.

    The principal axes are the eigenvectors of the symmetric matrix ``I`` and the principal moments
    its eigenvalues (Kane & Levinson 1985, §3.8; Nikravesh 1988, §6.1).  In the frame of the axes the
    inertia is diagonal: no products of inertia.

    Parameters
    ----------
    I : array_like, shape (3, 3)
        Inertia tensor (kg m²) in the components of some frame F; numbers only.
    name : str
        What ``I`` is, for the error messages.

    Returns
    -------
    moments : ndarray, shape (3,)
        The principal moments, ascending: ``I1 <= I2 <= I3``.
    A : ndarray, shape (3, 3)
        A rotation (``det A = +1``) whose column k is the principal axis of ``moments[k]`` in
        F components, so that ``A.T @ I @ A == diag(moments)``.  Each of the first two columns is
        turned so that its largest component is positive, and the third is their cross product.
        Where two moments are equal (a body of revolution) every axis of their plane is principal
        and the two columns returned are one choice among many.

    Raises
    ------
    ShapeError
        ``I`` is not a 3 x 3 array of finite numbers.
    ModelError
        ``I`` is not symmetric, or is symbolic (use ``sympy.Matrix.eigenvects`` for formulas).

    Examples
    --------
    A box of 12 kg, 1 x 2 x 3 m, turned by 30° about z: the moments come back, and the first axis
    (the smallest moment, about the longest edge z) is z.

    >>> from mbdlib.rotations import rot_z
    >>> I = rotate_inertia(np.diag([13.0, 10.0, 5.0]), rot_z(np.pi / 6))
    >>> moments, A = principal_axes(I)
    >>> moments.round(12) + 0.0
    array([ 5., 10., 13.])
    >>> A[:, 0].round(12) + 0.0
    array([0., 0., 1.])
    >>> np.allclose(A.T @ I @ A, np.diag(moments))
    True
    """
    if is_symbolic(I):
        raise ModelError(f"principal_axes: {name} is symbolic; principal axes are computed for numbers "
                         "(for formulas use sympy's Matrix.eigenvects)")
    I = matrix(I, (3, 3), name)
    I = np.asarray(I, dtype=float)
    if not np.all(np.isfinite(I)):
        raise ShapeError(f"principal_axes: {name} has entries that are not finite numbers: {I.tolist()}")
    scale = max(1.0, float(np.max(np.abs(I))))
    asym = np.abs(I - I.T).max()
    if asym > _TOL * scale:
        i, j = np.unravel_index(np.argmax(np.abs(I - I.T)), I.shape)
        raise ModelError(f"principal_axes: {name} is not symmetric ({name}[{i},{j}] = {I[i, j]:g} but "
                         f"{name}[{j},{i}] = {I[j, i]:g}); an inertia tensor is symmetric")
    moments, A = np.linalg.eigh(0.5 * (I + I.T))          # ascending eigenvalues, orthonormal columns
    for k in (0, 1):                                       # a sign convention: largest component > 0
        if A[np.argmax(np.abs(A[:, k])), k] < 0:
            A[:, k] = -A[:, k]
    A[:, 2] = np.cross(A[:, 0], A[:, 1])                   # right-handed: det A = +1
    return moments, A


def combine(parts, name: str = "body", allow_degenerate: bool = False) -> RigidBody:
    """One rigid body from parts fixed together: a composite body (Kane & Levinson 1985, §3.3-3.6).

    Each part is a :class:`RigidBody` placed in a common frame F by the position ``r`` of its own frame
    origin and the rotation ``A`` of its frame (``A`` maps the part's components to F's).  Then

    ``m = Σ m_k``,  ``c = Σ m_k c_k / m``,  ``I_C = Σ [A_k I_k A_kᵀ + m_k (|d_k|² 1 − d_k d_kᵀ)]``

    with ``c_k = r_k + A_k com_k`` the part's centre of mass in F and ``d_k = c_k − c``: each part's
    central inertia turned into F (:func:`rotate_inertia`) and moved to the common centre of mass
    (:func:`parallel_axis`).

    Parameters
    ----------
    parts : sequence of RigidBody or (RigidBody, r) or (RigidBody, r, A)
        ``r`` (3,) in F components, default the origin; ``A`` (3, 3) a rotation, default identity.
    name : str
        Name of the composite body.
    allow_degenerate : bool
        As for :class:`RigidBody` (e.g. point masses on one line).

    Returns
    -------
    RigidBody
        Its frame is F: ``com`` is the composite centre of mass in F, ``inertia`` the central inertia
        in F components (in general not diagonal: see :func:`principal_axes`).

    Examples
    --------
    Two 1 kg point masses 2 m apart on the x axis: the centre is midway, the moment about y is
    ``2 · 1 · 1² = 2`` kg m².

    >>> p = RigidBody(1.0, name="p", allow_degenerate=True)
    >>> combine([(p, [0, 0, 0]), (p, [2, 0, 0])], name="dumbbell", allow_degenerate=True)
    RigidBody(name='dumbbell', mass=2, com=[1, 0, 0], inertia=diag[0, 2, 2])
    """
    if isinstance(parts, RigidBody) or not hasattr(parts, "__iter__"):
        raise ShapeError("combine: parts must be a list of RigidBody or (RigidBody, r[, A]) tuples")
    parts = list(parts)
    if not parts:
        raise ModelError(f"combine: body {name!r} has no parts; give at least one RigidBody")
    placed = []
    for k, part in enumerate(parts):
        if isinstance(part, RigidBody):
            part = (part,)
        if not (isinstance(part, (tuple, list)) and 1 <= len(part) <= 3 and isinstance(part[0], RigidBody)):
            raise ShapeError(f"combine: part {k} of {name!r} must be a RigidBody or a tuple (RigidBody, r) "
                             f"or (RigidBody, r, A), got {part!r}")
        body, r, A = [*part, *[(0.0, 0.0, 0.0), np.eye(3)][len(part) - 1:]]   # defaults: origin, identity
        r = vector(r, 3, f"position r of part {k} ({body.name!r})")
        if is_symbolic(body.mass, body.inertia, body.com, r, A):
            raise ModelError(f"combine: part {k} ({body.name!r}) is symbolic; combine works on numbers")
        A = check_rotation(np.asarray(A, dtype=float), name=f"rotation A of part {k} ({body.name!r})")
        placed.append((body.mass, np.asarray(r, dtype=float) + A @ body.com, A @ body.inertia @ A.T))
    m = sum(p[0] for p in placed)
    if m <= 0:
        raise ModelError(f"combine: the parts of {name!r} have no mass; a composite body needs mass > 0")
    c = sum(m_k * c_k for m_k, c_k, _ in placed) / m
    I = sum(parallel_axis(I_k, m_k, c_k - c) for m_k, c_k, I_k in placed)
    return RigidBody(m, com=c, inertia=0.5 * (I + I.T), name=name, allow_degenerate=allow_degenerate)


def _axis_index(axis) -> int:
    if axis not in ("x", "y", "z"):
        raise ShapeError(f"axis must be 'x', 'y' or 'z', got {axis!r}")
    return "xyz".index(axis)


def _positive(body: str, **dims) -> None:
    """Numeric dimensions of a textbook body must be positive."""
    for key, value in dims.items():
        if not is_symbolic(value) and not value > 0:
            raise ModelError(f"body {body!r}: {key} must be > 0, got {value!r}")
