"""Orientation of a rigid body: DCM, Euler angles, Euler parameters, axis-angle.

Conventions (stated once, used everywhere in mbdlib):

* A direction cosine matrix (DCM) ``A`` maps body components to global ones,
  ``r_p = r_i + A @ s_p`` (Nikravesh 1988, ch. 6; Haug 1989, spatial kinematics).
* Euler sequences are named as in ``scipy.spatial.transform.Rotation``:
  ``"ZYX"`` (uppercase) is intrinsic, ``A = R_z(a1) R_y(a2) R_x(a3)``;
  ``"zyx"`` (lowercase) is extrinsic, ``A = R_x(a3) R_y(a2) R_z(a1)``.
* Quaternions (Euler parameters) are scalar-first ``e = (e0, e1, e2, e3)``.
* The skew matrix of ``a`` is ``skew(a)``, with ``skew(a) @ b == a x b``.

The functions that only build formulas (``skew``, ``rot_x``, ``dcm_from_euler``,
``dcm_from_quat``, ``euler_rate_matrix``, ``quat_rates``, ...) accept sympy
symbols and then return sympy matrices; the ones that invert a rotation
(``euler_from_dcm``, ``quat_from_dcm``, ``axis_angle_from_dcm``,
``check_rotation``) work on numbers only.

References: P. E. Nikravesh, *Computer-Aided Analysis of Mechanical Systems*, 1988,
ch. 6; E. J. Haug, *Computer Aided Kinematics and Dynamics of Mechanical Systems*,
1989; S. W. Shepperd, "Quaternion from rotation matrix", J. Guidance and
Control 1(3), 1978; M. D. Shuster, "A survey of attitude representations",
J. Astronautical Sciences 41(4), 1993.
"""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp

from ._backend import column_stack, cos, dot, is_scalar, is_symbolic, matrix, sin, sqrt, stack, unit, vector
from .errors import RotationError, ShapeError, SingularityError

__all__ = [
    "skew", "unskew", "rot_x", "rot_y", "rot_z", "check_rotation",
    "dcm_from_euler", "euler_from_dcm", "dcm_from_quat", "quat_from_dcm", "normalize_quat",
    "quat_multiply", "quat_conjugate", "dcm_from_axis_angle", "axis_angle_from_dcm",
    "euler_rate_matrix", "omega_from_euler_rates", "euler_rates_from_omega",
    "quat_rates", "omega_from_quat_rates", "dcm_rate", "omega_from_dcm_rate",
]

_AXES = {"x": 0, "y": 1, "z": 2}


# --------------------------------------------------------------------------- helpers
def _numeric(func: str, name: str, value):
    """``value`` as numbers for a numeric-only function; sympy input without free symbols
    (e.g. ``rot_z(sp.pi / 2)``) is evaluated, input with symbols raises a clear error."""
    if not is_symbolic(value):
        return value
    m = sp.Matrix(value)
    if m.free_symbols:
        raise ShapeError(
            f"{func} works on numbers only, but {name} contains the sympy symbols "
            f"{sorted(map(str, m.free_symbols))}; substitute numbers first (e.g. {name}.subs(...))"
        )
    return np.array(m.evalf(), dtype=float)


def _finite(a, name: str):
    if not is_symbolic(a) and not np.all(np.isfinite(a)):
        raise ShapeError(f"{name} must contain finite numbers, got {a}")
    return a


def _scalar(x, name: str):
    if not is_scalar(x):
        raise ShapeError(f"{name} must be a single number or sympy expression, got {x!r}")
    return _finite(x, name)


# --------------------------------------------------------------------------- skew
def skew(v):
    """Skew-symmetric matrix ``ṽ`` of a 3-vector, so that ``skew(a) @ b == a x b``.

    Parameters
    ----------
    v : array_like, shape (3,), or sympy Matrix (3, 1)

    Returns
    -------
    ndarray, shape (3, 3), or sympy Matrix (3, 3)

    >>> skew([1, 2, 3])
    array([[ 0., -3.,  2.],
           [ 3.,  0., -1.],
           [-2.,  1.,  0.]])
    """
    v = _finite(vector(v, 3, "v"), "v")
    x, y, z = v[0], v[1], v[2]
    return stack([[0, -z, y], [z, 0, -x], [-y, x, 0]], is_symbolic(v))


def unskew(S, name: str = "S", tol: float = 1e-9):
    """The vector ``v`` of a skew-symmetric matrix ``S = skew(v)``.

    Parameters
    ----------
    S : array_like, shape (3, 3), or sympy Matrix
    name : str
        Name of the argument, used in error messages.
    tol : float
        Numeric ``S`` is accepted if ``max|S + S^T| <= tol * max(1, max|S|)``; the
        returned vector is taken from the skew part ``(S - S^T) / 2``. A symbolic ``S``
        must have ``S + S^T`` simplify to zero.

    Returns
    -------
    ndarray, shape (3,), or sympy Matrix (3, 1)

    >>> unskew(skew([1.0, 2.0, 3.0]))
    array([1., 2., 3.])
    >>> unskew(np.eye(3), name="W")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mbdlib.errors.ShapeError: W is not skew-symmetric: max|W + W^T| = 2 ...
    """
    S = matrix(S, (3, 3), name)
    if is_symbolic(S):
        sym = (S + S.T).applyfunc(sp.simplify)
        if not sym.is_zero_matrix:
            raise ShapeError(f"{name} is not skew-symmetric: {name} + {name}^T simplifies to {sym.tolist()}")
        return sp.Matrix([S[2, 1], S[0, 2], S[1, 0]])
    _finite(S, name)
    asym = float(np.max(np.abs(S + S.T)))
    if asym > tol * max(1.0, float(np.max(np.abs(S)))):
        raise ShapeError(
            f"{name} is not skew-symmetric: max|{name} + {name}^T| = {asym:.3g} (tolerance {tol:g}); "
            f"a skew matrix has zero diagonal and S[i, j] = -S[j, i]"
        )
    W = 0.5 * (S - S.T)
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


# --------------------------------------------------------------------------- elementary rotations
def rot_x(angle):
    """DCM of a frame rotated by ``angle`` about x (maps body to global components).

    >>> np.round(rot_x(np.pi / 2), 12) + 0.0
    array([[ 1.,  0.,  0.],
           [ 0.,  0., -1.],
           [ 0.,  1.,  0.]])
    """
    c, s = cos(_scalar(angle, "angle")), sin(angle)
    return stack([[1, 0, 0], [0, c, -s], [0, s, c]], is_symbolic(angle))


def rot_y(angle):
    """DCM of a frame rotated by ``angle`` about y: ``[[c, 0, s], [0, 1, 0], [-s, 0, c]]``.

    >>> rot_y(sp.Symbol("b"))
    Matrix([
    [ cos(b), 0, sin(b)],
    [      0, 1,      0],
    [-sin(b), 0, cos(b)]])
    """
    c, s = cos(_scalar(angle, "angle")), sin(angle)
    return stack([[c, 0, s], [0, 1, 0], [-s, 0, c]], is_symbolic(angle))


def rot_z(angle):
    """DCM of a frame rotated by ``angle`` about z: ``[[c, -s, 0], [s, c, 0], [0, 0, 1]]``.

    >>> rot_z(0.0)
    array([[ 1., -0.,  0.],
           [ 0.,  1.,  0.],
           [ 0.,  0.,  1.]])
    """
    c, s = cos(_scalar(angle, "angle")), sin(angle)
    return stack([[c, -s, 0], [s, c, 0], [0, 0, 1]], is_symbolic(angle))


_ROT = (rot_x, rot_y, rot_z)


def check_rotation(A, name: str = "A", tol: float = 1e-9):
    """Return ``A`` as a float array after checking it is a rotation matrix.

    Raises :class:`RotationError` if ``A`` is not 3x3, not orthonormal
    (``||A^T A - I||_F > tol``) or a reflection (``det A = -1``).

    >>> check_rotation(np.diag([1.0, 1.0, -1.0]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mbdlib.errors.RotationError: A has det = -1: a reflection, not a rotation ...
    """
    A = _numeric("check_rotation", name, A)
    try:
        A = matrix(A, (3, 3), name)
    except ShapeError as exc:
        raise RotationError(f"{exc}; a rotation (DCM) is a 3x3 matrix") from None
    if not np.all(np.isfinite(A)):
        raise RotationError(f"{name} contains NaN or inf: {A.tolist()}")
    err = float(np.linalg.norm(A.T @ A - np.eye(3)))
    if err > tol:
        raise RotationError(
            f"{name} is not orthonormal: ||{name}^T {name} - I|| = {err:.3g} > {tol:g}; "
            "its columns must be orthogonal unit vectors (re-orthonormalise, e.g. via a quaternion)"
        )
    if np.linalg.det(A) < 0:
        raise RotationError(f"{name} has det = -1: a reflection, not a rotation (swap two axes or flip one)")
    return A


# --------------------------------------------------------------------------- Euler angles
def _parse_seq(seq) -> tuple[tuple[int, int, int], bool]:
    """Axes (0, 1, 2 for x, y, z) and ``intrinsic`` flag of a scipy-style sequence."""
    ok = isinstance(seq, str) and len(seq) == 3 and (seq.isupper() or seq.islower())
    ok = ok and all(c in "xyz" for c in seq.lower())
    if not ok:
        raise ShapeError(
            f"seq must be 3 letters from x, y, z, all uppercase (intrinsic, e.g. 'ZYX') or all "
            f"lowercase (extrinsic, e.g. 'zyx'), got {seq!r}"
        )
    if seq[0] == seq[1] or seq[1] == seq[2]:
        raise ShapeError(f"seq {seq!r} repeats an axis in two consecutive rotations; use e.g. 'ZXZ' or 'ZYX'")
    return tuple(_AXES[c] for c in seq.lower()), seq.isupper()


def _intrinsic_form(seq):
    """Write any sequence as ``A = R_b1(phi1) R_b2(phi2) R_b3(phi3)``.

    Returns the axes ``b`` and ``order``, the positions of ``phi1, phi2, phi3`` in the
    user's angle vector. An extrinsic sequence ``abc`` is the intrinsic ``CBA`` with the
    angles reversed: ``R_c(a3) R_b(a2) R_a(a1)`` (Shuster 1993).
    """
    axes, intrinsic = _parse_seq(seq)
    return (axes, (0, 1, 2)) if intrinsic else (axes[::-1], (2, 1, 0))


def _parity(i: int, j: int, k: int) -> int:
    """+1 if (i, j, k) is a cyclic permutation of (0, 1, 2), else -1."""
    return 1 if (j - i) % 3 == 1 else -1


def dcm_from_euler(seq: str, angles):
    """DCM of an Euler-angle sequence (scipy naming), body to global.

    Parameters
    ----------
    seq : str
        e.g. ``"ZYX"`` (intrinsic) or ``"zyx"`` (extrinsic); any of the 12 sequences.
    angles : array_like, shape (3,), in radians (numbers or sympy expressions)

    Returns
    -------
    ndarray, shape (3, 3), or sympy Matrix

    >>> A = dcm_from_euler("ZYX", [0.3, 0.2, 0.1])
    >>> np.allclose(A, rot_z(0.3) @ rot_y(0.2) @ rot_x(0.1))
    True
    >>> np.allclose(dcm_from_euler("xyz", [0.1, 0.2, 0.3]), A)
    True
    """
    axes, order = _intrinsic_form(seq)
    angles = _finite(vector(angles, 3, "angles"), "angles")
    R = [_ROT[b](angles[i]) for b, i in zip(axes, order, strict=True)]
    return R[0] @ R[1] @ R[2]


def euler_from_dcm(seq: str, A, tol: float = 1e-7):
    """Euler angles of a DCM, matching ``Rotation.from_matrix(A).as_euler(seq)``.

    First and third angles are in ``[-pi, pi]``; the second in ``[-pi/2, pi/2]`` for
    Tait-Bryan sequences (three different axes) and in ``[0, pi]`` for proper Euler
    sequences (first axis = third axis). At gimbal lock (second angle ``+-pi/2``, resp.
    ``0`` or ``pi``, within ``tol`` in its cosine/sine) only the sum or difference of
    the first and third angles is defined: like scipy, the third angle is set to 0
    and a warning is issued.

    Parameters
    ----------
    seq : str
    A : array_like, shape (3, 3), a rotation matrix (numbers only)
    tol : float

    Returns
    -------
    ndarray, shape (3,)

    >>> euler_from_dcm("ZYX", dcm_from_euler("ZYX", [0.3, -0.2, 0.1]))
    array([ 0.3, -0.2,  0.1])
    """
    A = _numeric("euler_from_dcm", "A", A)
    A = check_rotation(A)
    axes, order = _intrinsic_form(seq)
    i, j, k = axes
    # A = R_i(a) R_j(b) R_k(g): closed forms obtained by expanding the product (cf. Shuster 1993)
    if i != k:  # Tait-Bryan
        eps = _parity(i, j, k)
        cb = np.hypot(A[i, i], A[i, j])
        b = np.arctan2(eps * A[i, k], cb)                        # A[i,k] = eps sin b
        a = np.arctan2(-eps * A[j, k], A[k, k])                  # A[j,k] = -eps sin a cos b
        g = np.arctan2(-eps * A[i, j], A[i, i])                  # A[i,j] = -eps cos b sin g
        locked = cb < tol
    else:  # proper Euler: k is the remaining axis
        k = 3 - i - j
        eps = _parity(i, j, k)
        sb = np.hypot(A[i, j], A[i, k])
        b = np.arctan2(sb, A[i, i])                              # A[i,i] = cos b
        a = np.arctan2(A[j, i], -eps * A[k, i])                  # A[j,i] = sin a sin b
        g = np.arctan2(A[i, j], eps * A[i, k])                   # A[i,j] = sin b sin g
        locked = sb < tol
    phi = [a, b, g]
    if locked:
        warnings.warn(
            f"euler_from_dcm: gimbal lock in sequence {seq!r} (second angle = {b:.6g} rad): the first "
            "and third angles are not unique, the third is set to 0 (as scipy does)",
            stacklevel=2,
        )
        # the user's third angle is phi[order[2]]; set it to 0 and solve for the other one
        if order[2] == 2:  # A = R_i(a) R_j(b): column j is R_i(a) e_j
            v = A[:, j]
            phi = [np.arctan2(np.cross(unit(j), v)[i], v[j]), b, 0.0]
        else:  # A = R_j(b) R_k(g): row j is (R_k(-g) e_j)^T
            w = A[j, :]
            phi = [0.0, b, -np.arctan2(np.cross(unit(j), w)[axes[2]], w[j])]
    return np.array([phi[p] for p in order], dtype=float)


# --------------------------------------------------------------------------- Euler parameters
def normalize_quat(e):
    """Return ``e / ||e||`` (shape (4,)); a zero quaternion raises :class:`RotationError`.

    >>> normalize_quat([2.0, 0.0, 0.0, 0.0])
    array([1., 0., 0., 0.])
    """
    e = _finite(vector(e, 4, "e"), "e")
    n = sqrt(dot(e, e))
    if n == 0:
        raise RotationError("e is the zero quaternion, which describes no rotation; (1, 0, 0, 0) is 'none'")
    return e / n


def _quat(e, name: str = "e", tol: float = 1e-6):
    """Validate a quaternion: 4 components, non-zero, unit norm (numeric)."""
    e = _finite(vector(e, 4, name), name)
    if is_symbolic(e):
        return e
    n = float(np.linalg.norm(e))
    if n == 0:
        raise RotationError(f"{name} is the zero quaternion, which describes no rotation")
    if abs(n - 1.0) > tol:
        raise RotationError(
            f"{name} has norm {n:.6g}, but Euler parameters must have unit norm; "
            f"call normalize_quat({name}) first"
        )
    return e


def dcm_from_quat(e, tol: float = 1e-6):
    """DCM of unit Euler parameters ``e = (e0, e1, e2, e3)`` (scalar first).

    ``A = (2 e0^2 - 1) I + 2 (e e^T + e0 ẽ)`` with ``e = (e1, e2, e3)``
    (Nikravesh 1988, ch. 6). Raises :class:`RotationError` for a zero quaternion or
    one whose norm differs from 1 by more than ``tol`` (see :func:`normalize_quat`).

    >>> dcm_from_quat([np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)]).round(12) + 0.0
    array([[ 0., -1.,  0.],
           [ 1.,  0.,  0.],
           [ 0.,  0.,  1.]])
    """
    p = _quat(e, tol=tol)
    symbolic = is_symbolic(p)
    e0, ev = p[0], vector([p[1], p[2], p[3]])
    outer = ev * ev.T if symbolic else np.outer(ev, ev)
    eye = sp.eye(3) if symbolic else np.eye(3)
    return (2 * e0**2 - 1) * eye + 2 * (outer + e0 * skew(ev))


def quat_from_dcm(A):
    """Unit Euler parameters (scalar first, ``e0 >= 0``) of a DCM, by Shepperd's method.

    Shepperd (1978): from ``4 e0^2 = 1 + tr A`` and ``4 ei^2 = 1 + 2 A_ii - tr A``, take
    the largest of the four, then the others from the off-diagonal sums/differences; this
    never divides by a small number.

    Returns
    -------
    ndarray, shape (4,)

    >>> quat_from_dcm(rot_z(np.pi / 2)).round(6)
    array([0.707107, 0.      , 0.      , 0.707107])
    """
    A = _numeric("quat_from_dcm", "A", A)
    A = check_rotation(A)
    tr = np.trace(A)
    sq = np.array([1 + tr, 1 + 2 * A[0, 0] - tr, 1 + 2 * A[1, 1] - tr, 1 + 2 * A[2, 2] - tr])
    m = int(np.argmax(sq))
    em = 0.5 * np.sqrt(sq[m])
    d = 4 * em
    if m == 0:
        e = [em, (A[2, 1] - A[1, 2]) / d, (A[0, 2] - A[2, 0]) / d, (A[1, 0] - A[0, 1]) / d]
    elif m == 1:
        e = [(A[2, 1] - A[1, 2]) / d, em, (A[0, 1] + A[1, 0]) / d, (A[0, 2] + A[2, 0]) / d]
    elif m == 2:
        e = [(A[0, 2] - A[2, 0]) / d, (A[0, 1] + A[1, 0]) / d, em, (A[1, 2] + A[2, 1]) / d]
    else:
        e = [(A[1, 0] - A[0, 1]) / d, (A[0, 2] + A[2, 0]) / d, (A[1, 2] + A[2, 1]) / d, em]
    e = np.array(e)
    return (-e if e[0] < 0 else e) / np.linalg.norm(e)


def quat_multiply(p, q):
    """Quaternion product ``p ⊗ q`` (scalar first), so that ``A(p ⊗ q) = A(p) A(q)``.

    ``p ⊗ q = (p0 q0 - p·q, p0 q + q0 p + p x q)`` (Hamilton's product).

    >>> quat_multiply([0, 1, 0, 0], [0, 0, 1, 0])
    array([0., 0., 0., 1.])
    """
    p, q = vector(p, 4, "p"), vector(q, 4, "q")
    p0, pv, q0, qv = p[0], vector(p[1:4]), q[0], vector(q[1:4])
    if is_symbolic(p, q):
        pv, qv = sp.Matrix(pv), sp.Matrix(qv)
        v = p0 * qv + q0 * pv + pv.cross(qv)
        return sp.Matrix([p0 * q0 - pv.dot(qv), *v])
    return np.concatenate([[p0 * q0 - pv @ qv], p0 * qv + q0 * pv + np.cross(pv, qv)])


def quat_conjugate(e):
    """Conjugate ``(e0, -e1, -e2, -e3)``: the inverse rotation of a unit quaternion.

    >>> quat_conjugate([1.0, 2.0, 3.0, 4.0])
    array([ 1., -2., -3., -4.])
    """
    e = vector(e, 4, "e")
    return sp.Matrix([e[0], -e[1], -e[2], -e[3]]) if is_symbolic(e) else e * np.array([1, -1, -1, -1])


# --------------------------------------------------------------------------- axis-angle
def dcm_from_axis_angle(axis, angle):
    """Rodrigues' formula ``A = I + sin(t) ũ + (1 - cos(t)) ũ ũ`` (Nikravesh 1988, ch. 6).

    ``axis`` (shape (3,)) is normalised to the unit vector ``u``; a zero axis raises
    :class:`RotationError`. A symbolic axis is divided by its symbolic norm unless that
    norm is 1.

    >>> np.allclose(dcm_from_axis_angle([0, 0, 2], 0.4), rot_z(0.4))
    True
    """
    u = _finite(vector(axis, 3, "axis"), "axis")
    angle = _scalar(angle, "angle")
    if is_symbolic(angle) and not is_symbolic(u):  # keep whole-number axes exact: (1, 1, 0) -> sqrt(2)/2
        u = sp.Matrix([int(x) if float(x).is_integer() else x for x in u])
    n2 = dot(u, u)
    if (is_symbolic(n2) and sp.simplify(n2) == 0) or (not is_symbolic(n2) and n2 == 0):
        raise RotationError("axis is the zero vector; a rotation axis needs a direction, e.g. (0, 0, 1)")
    if not (is_symbolic(n2) and sp.simplify(n2 - 1) == 0):
        u = u / sqrt(n2)
    symbolic = is_symbolic(u, angle)
    U = skew(u)
    eye = sp.eye(3) if symbolic else np.eye(3)
    return eye + sin(angle) * U + (1 - cos(angle)) * (U @ U)


def axis_angle_from_dcm(A):
    """Unit axis (shape (3,)) and angle in ``[0, pi]`` of a DCM.

    Computed through Shepperd's quaternion, ``angle = 2 atan2(|e|, e0)``, which stays
    accurate near 0 and pi. For the identity the axis is arbitrary and ``(1, 0, 0)`` is
    returned; at ``angle = pi`` both ``u`` and ``-u`` are valid, and the one whose first
    non-zero component is positive is returned.

    >>> u, t = axis_angle_from_dcm(rot_y(0.5))
    >>> u.round(12) + 0.0, round(t, 12)
    (array([0., 1., 0.]), 0.5)
    """
    A = _numeric("axis_angle_from_dcm", "A", A)
    e = quat_from_dcm(A)
    s = float(np.linalg.norm(e[1:]))
    angle = 2.0 * np.arctan2(s, e[0])
    if s == 0.0:
        return np.array([1.0, 0.0, 0.0]), 0.0
    u = e[1:] / s
    if e[0] < 1e-12:  # angle pi: choose a canonical sign
        first = u[np.flatnonzero(np.abs(u) > 1e-12)[0]]
        u = -u if first < 0 else u
    return u, float(angle)


# --------------------------------------------------------------------------- angular velocity
def _frame(frame) -> str:
    if frame not in ("global", "body"):
        raise ShapeError(f"frame must be 'global' or 'body', got {frame!r}")
    return frame


def euler_rate_matrix(seq: str, angles, frame: str = "global"):
    """Matrix ``E`` with ``omega = E @ angle_rates`` for an Euler sequence.

    Write the sequence as ``A = R_1(phi1) R_2(phi2) R_3(phi3)`` about axes ``b1, b2, b3``
    (an extrinsic sequence is the reversed intrinsic one). Then (Shuster 1993;
    Nikravesh 1988, ch. 6)::

        omega  = b1 phi1' + R_1 b2 phi2' + R_1 R_2 b3 phi3'        (global components)
        omega' = (R_2 R_3)^T b1 phi1' + R_3^T b2 phi2' + b3 phi3'  (body components)

    The columns follow the order of the user's angles. ``det E`` is ``+-cos(phi2)`` for
    Tait-Bryan and ``+-sin(phi2)`` for proper Euler sequences: gimbal lock.

    Returns
    -------
    ndarray, shape (3, 3), or sympy Matrix

    >>> euler_rate_matrix("ZYX", [0.0, 0.0, 0.0])
    array([[0., 0., 1.],
           [0., 1., 0.],
           [1., 0., 0.]])
    """
    frame = _frame(frame)
    axes, order = _intrinsic_form(seq)
    phi = _finite(vector(angles, 3, "angles"), "angles")
    symbolic = is_symbolic(phi)
    R = [_ROT[b](phi[i]) for b, i in zip(axes, order, strict=True)]
    b = [unit(a, symbolic) for a in axes]
    if frame == "global":
        cols = [b[0], R[0] @ b[1], R[0] @ R[1] @ b[2]]
    else:
        cols = [(R[1] @ R[2]).T @ b[0], R[2].T @ b[1], b[2]]
    cols = [cols[order.index(n)] for n in range(3)]  # column n belongs to the user's angle n
    return column_stack(cols, symbolic)


def omega_from_euler_rates(seq: str, angles, rates, frame: str = "global"):
    """Angular velocity (shape (3,)) from Euler angles and their rates, ``E @ rates``.

    >>> omega_from_euler_rates("XYZ", [0.0, 0.0, 0.0], [1.0, 2.0, 3.0])
    array([1., 2., 3.])
    """
    E = euler_rate_matrix(seq, angles, frame)
    rates = _finite(vector(rates, 3, "rates"), "rates")
    if is_symbolic(E, rates):
        return sp.Matrix(E) @ sp.Matrix(rates)
    return E @ rates


def euler_rates_from_omega(seq: str, angles, omega, frame: str = "global", tol: float = 1e-8):
    """Euler-angle rates (shape (3,)) giving the angular velocity ``omega``.

    Solves ``E(angles) @ rates = omega``. At gimbal lock (``|cos phi2| < tol`` for
    Tait-Bryan, ``|sin phi2| < tol`` for proper Euler sequences) ``E`` is singular and
    :class:`SingularityError` is raised: use Euler parameters (:func:`quat_rates`).
    Symbolic input gives ``adj(E) omega / det(E)``, simplified.

    >>> w = omega_from_euler_rates("ZYX", [0.1, 0.2, 0.3], [1, 2, 3])
    >>> euler_rates_from_omega("ZYX", [0.1, 0.2, 0.3], w)
    array([1., 2., 3.])
    >>> euler_rates_from_omega("ZYX", [0.1, np.pi / 2, 0.3], [1, 0, 0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mbdlib.errors.SingularityError: Euler sequence 'ZYX' is singular (gimbal lock) ...
    """
    axes, _ = _intrinsic_form(seq)
    phi = _finite(vector(angles, 3, "angles"), "angles")
    omega = _finite(vector(omega, 3, "omega"), "omega")
    E = euler_rate_matrix(seq, phi, frame)
    tait_bryan = axes[0] != axes[2]
    if is_symbolic(E, omega):
        det = sp.trigsimp(sp.Matrix(E).det())
        adj = sp.Matrix(E).adjugate().applyfunc(sp.trigsimp)
        return (adj @ sp.Matrix(omega) / det).applyfunc(sp.simplify)
    f, fname, where = (np.cos, "cos", "+-pi/2") if tait_bryan else (np.sin, "sin", "0 or pi")
    if abs(f(phi[1])) < tol:
        raise SingularityError(
            f"Euler sequence {seq!r} is singular (gimbal lock) at middle angle = {phi[1]:.6g} rad: "
            f"{fname}(middle angle) = 0 there (middle angle = {where}), so the rates of the first and "
            "third angles are not defined; use Euler parameters (quat_rates) instead, or a sequence "
            "whose singularity is away from this attitude"
        )
    return np.linalg.solve(E, omega)


def _G(e, frame: str):
    """Nikravesh's 3x4 matrices: ``G = [-e, ẽ + e0 I]`` (global), ``L = [-e, -ẽ + e0 I]`` (body).

    A float array takes a plain numpy path (no checks): :mod:`mbdlib.spatial` calls it in its inner loops.
    """
    sign = 1 if frame == "global" else -1
    if isinstance(e, np.ndarray) and e.dtype == float:
        e0, (x, y, z) = e[0], e[1:]
        return np.array([[-x, e0, -sign * z, sign * y], [-y, sign * z, e0, -sign * x],
                         [-z, -sign * y, sign * x, e0]])
    symbolic = is_symbolic(e)
    e0, ev = e[0], vector([e[1], e[2], e[3]])
    eye = sp.eye(3) if symbolic else np.eye(3)
    right = sign * skew(ev) + e0 * eye
    if symbolic:
        return sp.Matrix.hstack(-sp.Matrix(ev), right)
    return np.column_stack([-ev, right])


def quat_rates(e, omega, frame: str = "global"):
    """Euler-parameter rates ``ė`` (shape (4,)) from the angular velocity.

    ``ė = ½ G^T omega`` (global components) or ``ė = ½ L^T omega'`` (body components),
    with ``G = [-e, ẽ + e0 I]`` and ``L = [-e, -ẽ + e0 I]`` (Nikravesh 1988, ch. 6;
    Haug 1989 calls them E and G). No singularity, unlike Euler angles.

    >>> quat_rates([1, 0, 0, 0], [0, 0, 2.0])
    array([0., 0., 0., 1.])
    """
    frame = _frame(frame)
    e = _quat(e)
    omega = _finite(vector(omega, 3, "omega"), "omega")
    G = _G(e, frame)
    if is_symbolic(G, omega):
        return sp.Matrix(G).T @ sp.Matrix(omega) / 2
    return 0.5 * G.T @ omega


def omega_from_quat_rates(e, edot, frame: str = "global"):
    """Angular velocity from Euler parameters and their rates: ``omega = 2 G ė`` / ``omega' = 2 L ė``.

    (Nikravesh 1988, ch. 6.) ``edot`` must be tangent (``e·ė = 0``) for the pair
    to describe a rotation; any component along ``e`` is ignored by ``G``.

    >>> omega_from_quat_rates([1, 0, 0, 0], [0, 0, 0, 1.0])
    array([0., 0., 2.])
    """
    frame = _frame(frame)
    e = _quat(e)
    edot = _finite(vector(edot, 4, "edot"), "edot")
    G = _G(e, frame)
    if is_symbolic(G, edot):
        return 2 * sp.Matrix(G) @ sp.Matrix(edot)
    return 2.0 * G @ edot


def quat_rate_matrix(e, frame: str = "global"):
    """Nikravesh's 3×4 matrix ``G = [-e, ẽ + e0 I]`` (``frame="global"``: ``omega = 2 G ė``) or
    ``L = [-e, -ẽ + e0 I]`` (``"body"``: ``omega' = 2 L ė``) of Euler parameters ``e``.

    Linear in ``e`` and not normalized, so it also gives the matrices of a rate, ``G(ė)`` and ``L(ė)``
    (the gyroscopic terms of the equations of motion in Euler parameters). ``G e = L e = 0``, and for a
    unit ``e`` the rows are orthonormal (Nikravesh 1988, ch. 6).

    >>> quat_rate_matrix([1.0, 0, 0, 0], "body") + 0.0           # at e = (1, 0, 0, 0): [0, I]
    array([[0., 1., 0., 0.],
           [0., 0., 1., 0.],
           [0., 0., 0., 1.]])
    """
    frame = _frame(frame)
    if is_symbolic(e):
        return _G(vector(e, 4, "e"), frame)
    return _G(_finite(np.asarray(vector(e, 4, "e"), dtype=float), "e"), frame)


def dcm_rate(A, omega):
    """Time derivative of a DCM, ``Ȧ = ω̃ A`` with ``omega`` in global components.

    (Nikravesh 1988, ch. 6.) A numeric ``A`` is checked with :func:`check_rotation`.

    >>> dcm_rate(np.eye(3), [0, 0, 1.0])
    array([[ 0., -1.,  0.],
           [ 1.,  0.,  0.],
           [ 0.,  0.,  0.]])
    """
    symbolic = is_symbolic(A, omega)
    A = matrix(A, (3, 3), "A") if symbolic else check_rotation(A)
    W = skew(omega)
    return sp.Matrix(W) @ sp.Matrix(A) if symbolic else W @ A


def omega_from_dcm_rate(A, Adot, tol: float = 1e-6):
    """Angular velocity (global components) from a DCM and its rate: ``unskew(Ȧ A^T)``.

    ``tol`` is passed to :func:`unskew`: ``Ȧ A^T`` must be skew-symmetric, which holds for
    the exact derivative of a rotation (a finite-difference ``Ȧ`` is close enough).

    >>> omega_from_dcm_rate(rot_z(0.3), dcm_rate(rot_z(0.3), [1.0, 2.0, 3.0]))
    array([1., 2., 3.])
    """
    symbolic = is_symbolic(A, Adot)
    if symbolic:
        A, Adot = sp.Matrix(matrix(A, (3, 3), "A")), sp.Matrix(matrix(Adot, (3, 3), "Adot"))
    else:
        A, Adot = check_rotation(A), _finite(matrix(Adot, (3, 3), "Adot"), "Adot")
    return unskew(Adot @ A.T, name="Adot @ A^T", tol=tol)
