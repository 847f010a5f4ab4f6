"""Tests of mbdlib.rotations against independent references.

References used: scipy.spatial.transform.Rotation (scalar-LAST quaternions), central
finite differences, closed forms (det of the Euler-rate matrix, the quaternion kinematic
equation e' = 1/2 (0, w) * e), and sympy (symbolic = numeric at random points).
"""

import itertools
import warnings

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from mbdlib import rotations as rot
from mbdlib.errors import RotationError, ShapeError, SingularityError

LOWER = ["".join(p) for p in itertools.product("xyz", repeat=3) if p[0] != p[1] and p[1] != p[2]]
SEQS = LOWER + [s.upper() for s in LOWER]  # 12 extrinsic + 12 intrinsic
assert len(SEQS) == 24

FAST = settings(max_examples=25, deadline=None)
PER_SEQ = settings(max_examples=12, deadline=None)  # x 24 sequences
MEDIUM = settings(max_examples=60, deadline=None)

angle = st.floats(-np.pi, np.pi, allow_nan=False)
angles3 = st.tuples(angle, angle, angle).map(np.array)
vec3 = st.tuples(*[st.floats(-5, 5, allow_nan=False)] * 3).map(np.array)


@st.composite
def unit_quats(draw):
    q = np.array(draw(st.tuples(*[st.floats(-1, 1, allow_nan=False)] * 4)))
    n = np.linalg.norm(q)
    if n < 0.1:
        q, n = np.array([1.0, 0.2, -0.3, 0.4]), np.linalg.norm([1.0, 0.2, -0.3, 0.4])
    return q / n


def scipy_quat(e):
    """Our scalar-first quaternion -> scipy's scalar-last."""
    return np.array([e[1], e[2], e[3], e[0]])


def is_tait_bryan(seq):
    return seq[0].lower() != seq[2].lower()


def assert_angles_close(a, b, atol):
    """Equal angles modulo 2 pi (pi and -pi are the same angle)."""
    d = (np.asarray(a) - np.asarray(b) + np.pi) % (2 * np.pi) - np.pi
    np.testing.assert_allclose(d, 0.0, atol=atol)


def assert_rotation(A):
    assert A.shape == (3, 3)
    np.testing.assert_allclose(A.T @ A, np.eye(3), atol=1e-12)
    assert np.linalg.det(A) == pytest.approx(1.0, abs=1e-12)


# ----------------------------------------------------------------------------- skew, elementary
@FAST
@given(vec3, vec3)
def test_skew_is_cross_product_and_unskew_inverts(a, b):
    np.testing.assert_allclose(rot.skew(a) @ b, np.cross(a, b), atol=1e-12)
    np.testing.assert_allclose(rot.skew(a), -rot.skew(a).T)
    np.testing.assert_allclose(rot.unskew(rot.skew(a)), a)


def test_unskew_rejects_non_skew_matrix():
    S = rot.skew([1.0, 2.0, 3.0])
    S[0, 1] += 0.1
    with pytest.raises(ShapeError, match="Omega is not skew-symmetric"):
        rot.unskew(S, name="Omega")
    with pytest.raises(ShapeError, match="S must be a 3x3"):
        rot.unskew(np.zeros((2, 2)))
    x = sp.Symbol("x")
    with pytest.raises(ShapeError, match="not skew-symmetric"):
        rot.unskew(sp.Matrix([[x, 0, 0], [0, 0, 0], [0, 0, 0]]))


@FAST
@given(angle)
def test_elementary_rotations_match_scipy(t):
    for k, R in enumerate((rot.rot_x, rot.rot_y, rot.rot_z)):
        rotvec = np.zeros(3)
        rotvec[k] = t
        np.testing.assert_allclose(R(t), Rotation.from_rotvec(rotvec).as_matrix(), atol=1e-12)
        assert_rotation(R(t))


def test_rot_z_is_the_documented_matrix():
    c, s = np.cos(0.7), np.sin(0.7)
    np.testing.assert_allclose(rot.rot_z(0.7), [[c, -s, 0], [s, c, 0], [0, 0, 1]])


def test_elementary_rotation_rejects_vector_angle():
    with pytest.raises(ShapeError, match="angle must be a single number"):
        rot.rot_x([0.1, 0.2])


# ----------------------------------------------------------------------------- check_rotation
def test_check_rotation_accepts_rotation_and_returns_float_array():
    A = rot.check_rotation([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    assert A.dtype == float


@pytest.mark.parametrize(
    "A, match",
    [
        (np.eye(2), "R must be a 3x3 matrix"),
        (2 * np.eye(3), r"R is not orthonormal: \|\|R\^T R - I\|\| = 5.2"),
        (np.diag([1.0, -1.0, 1.0]), "R has det = -1: a reflection, not a rotation"),
        (np.full((3, 3), np.nan), "R contains NaN"),
        ("abc", "R must be a 3x3 matrix"),
    ],
)
def test_check_rotation_rejects(A, match):
    with pytest.raises(RotationError, match=match):
        rot.check_rotation(A, name="R")


@pytest.mark.parametrize("func", [rot.euler_from_dcm, rot.quat_from_dcm, rot.axis_angle_from_dcm,
                                  rot.check_rotation, rot.dcm_rate, rot.omega_from_dcm_rate])
def test_dcm_consumers_reject_bad_matrices(func):
    args = {rot.euler_from_dcm: ("ZYX",), rot.dcm_rate: (), rot.omega_from_dcm_rate: ()}.get(func, ())
    extra = {rot.dcm_rate: ([0, 0, 1],), rot.omega_from_dcm_rate: (np.zeros((3, 3)),)}.get(func, ())
    with pytest.raises(RotationError, match="reflection"):
        func(*args, np.diag([-1.0, 1.0, 1.0]), *extra)
    with pytest.raises(RotationError, match="not orthonormal"):
        func(*args, [[1, 0.1, 0], [0, 1, 0], [0, 0, 1]], *extra)


@pytest.mark.parametrize("func", [rot.quat_from_dcm, rot.axis_angle_from_dcm, rot.check_rotation])
def test_numeric_only_functions_reject_symbols(func):
    with pytest.raises(ShapeError, match="numbers only"):
        func(rot.rot_z(sp.Symbol("t")))
    with pytest.raises(ShapeError, match=r"euler_from_dcm works on numbers only, but A contains .*\['t'\]"):
        rot.euler_from_dcm("ZYX", rot.rot_z(sp.Symbol("t")))
    # exact sympy numbers are fine: they are evaluated
    exact, floats = func(rot.rot_z(sp.pi / 3)), func(rot.rot_z(np.pi / 3))
    np.testing.assert_allclose(np.hstack(exact), np.hstack(floats), atol=1e-15)


# ----------------------------------------------------------------------------- Euler sequences
@pytest.mark.parametrize("seq", SEQS)
@PER_SEQ
@given(a=angles3)
def test_dcm_from_euler_matches_scipy(seq, a):
    A = rot.dcm_from_euler(seq, a)
    np.testing.assert_allclose(A, Rotation.from_euler(seq, a).as_matrix(), atol=1e-12)
    assert_rotation(A)


@pytest.mark.parametrize("seq", SEQS)
@PER_SEQ
@given(a=angles3, u=st.floats(0.01, 0.99))
def test_euler_from_dcm_recovers_angles_and_matches_scipy(seq, a, u):
    # angles in scipy's ranges, middle angle kept away from gimbal lock: the answer is unique
    mid = (-np.pi / 2 + np.pi * u) if is_tait_bryan(seq) else np.pi * u
    a = np.array([a[0], mid, a[2]])
    A = rot.dcm_from_euler(seq, a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no gimbal-lock warning here
        got = rot.euler_from_dcm(seq, A)
    assert_angles_close(got, a, atol=1e-7)
    assert_angles_close(got, Rotation.from_matrix(A).as_euler(seq), atol=1e-7)


@pytest.mark.parametrize("seq", SEQS)
@PER_SEQ
@given(a=angles3)
def test_euler_from_dcm_round_trips_any_rotation(seq, a):
    A = Rotation.from_euler(seq, a).as_matrix()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rot.euler_from_dcm(seq, A)
    # within tol = 1e-7 of gimbal lock the third angle is set to 0 (as scipy does), which
    # is exact only at the lock itself: the rotation is then reproduced to about tol
    near_lock = abs(np.cos(a[1]) if is_tait_bryan(seq) else np.sin(a[1])) < 1e-6
    np.testing.assert_allclose(rot.dcm_from_euler(seq, got), A, atol=3e-7 if near_lock else 1e-9)
    assert np.all(np.abs(got) <= np.pi + 1e-12)
    lo, hi = (-np.pi / 2, np.pi / 2) if is_tait_bryan(seq) else (0, np.pi)
    assert lo - 1e-12 <= got[1] <= hi + 1e-12


@pytest.mark.parametrize("seq", SEQS)
def test_gimbal_lock_warns_sets_third_angle_to_zero_like_scipy(seq):
    mids = [np.pi / 2, -np.pi / 2] if is_tait_bryan(seq) else [0.0, np.pi]
    for mid in mids:
        A = Rotation.from_euler(seq, [0.3, mid, 0.5]).as_matrix()
        with pytest.warns(UserWarning, match=f"gimbal lock in sequence '{seq}'"):
            got = rot.euler_from_dcm(seq, A)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = Rotation.from_matrix(A).as_euler(seq)
        assert got[2] == 0.0
        np.testing.assert_allclose(got, expected, atol=1e-7)
        np.testing.assert_allclose(rot.dcm_from_euler(seq, got), A, atol=1e-12)


@pytest.mark.parametrize("seq", ["XYZW", "XY", "XyZ", "XXY", "XYY", "abc", 123, "xYz"])
def test_bad_sequence_is_rejected(seq):
    with pytest.raises(ShapeError, match="seq"):
        rot.dcm_from_euler(seq, [0.1, 0.2, 0.3])
    with pytest.raises(ShapeError, match="seq"):
        rot.euler_rate_matrix(seq, [0.1, 0.2, 0.3])


def test_bad_angles_are_rejected():
    with pytest.raises(ShapeError, match="angles must have 3 components"):
        rot.dcm_from_euler("ZYX", [0.1, 0.2])
    with pytest.raises(ShapeError, match="angles must contain finite numbers"):
        rot.dcm_from_euler("ZYX", [0.1, np.nan, 0.2])


# ----------------------------------------------------------------------------- Euler parameters
@MEDIUM
@given(unit_quats())
def test_dcm_from_quat_matches_scipy(e):
    A = rot.dcm_from_quat(e)
    np.testing.assert_allclose(A, Rotation.from_quat(scipy_quat(e)).as_matrix(), atol=1e-12)
    assert_rotation(A)


@MEDIUM
@given(unit_quats())
def test_quat_from_dcm_matches_scipy_and_round_trips(e):
    A = Rotation.from_quat(scipy_quat(e)).as_matrix()
    got = rot.quat_from_dcm(A)
    assert got[0] >= 0
    assert np.linalg.norm(got) == pytest.approx(1.0)
    ref = np.roll(Rotation.from_matrix(A).as_quat(), 1)  # scalar-last -> scalar-first
    sign = 1.0 if abs(ref[0]) < 1e-12 else np.sign(ref[0])
    # at e0 = 0, e and -e are the same rotation: compare up to sign
    same = np.allclose(got, sign * ref, atol=1e-9)
    assert same or (abs(got[0]) < 1e-9 and np.allclose(got, -ref, atol=1e-9))
    np.testing.assert_allclose(rot.dcm_from_quat(got), A, atol=1e-12)


@FAST
@given(vec3.filter(lambda v: np.linalg.norm(v) > 0.1))
def test_quat_from_dcm_is_accurate_for_half_turns(axis):
    u = axis / np.linalg.norm(axis)
    A = Rotation.from_rotvec(np.pi * u).as_matrix()
    e = rot.quat_from_dcm(A)
    assert abs(e[0]) < 1e-12
    np.testing.assert_allclose(np.abs(e[1:] @ u), 1.0, atol=1e-12)


@MEDIUM
@given(unit_quats(), unit_quats())
def test_quaternion_product_composes_rotations(p, q):
    pq = rot.quat_multiply(p, q)
    np.testing.assert_allclose(rot.dcm_from_quat(pq), rot.dcm_from_quat(p) @ rot.dcm_from_quat(q), atol=1e-12)
    np.testing.assert_allclose(rot.dcm_from_quat(rot.quat_conjugate(p)), rot.dcm_from_quat(p).T, atol=1e-12)
    np.testing.assert_allclose(rot.quat_multiply(p, rot.quat_conjugate(p)), [1, 0, 0, 0], atol=1e-12)


def test_zero_and_non_unit_quaternions_are_rejected():
    with pytest.raises(RotationError, match="e is the zero quaternion"):
        rot.dcm_from_quat([0, 0, 0, 0])
    with pytest.raises(RotationError, match=r"norm 2.*normalize_quat\(e\)"):
        rot.dcm_from_quat([2, 0, 0, 0])
    with pytest.raises(RotationError, match="zero quaternion"):
        rot.normalize_quat([0, 0, 0, 0])
    with pytest.raises(ShapeError, match="e must have 4 components"):
        rot.dcm_from_quat([1, 0, 0])
    np.testing.assert_allclose(rot.normalize_quat([0, 3, 0, 4]), [0, 0.6, 0, 0.8])


# ----------------------------------------------------------------------------- axis-angle
@MEDIUM
@given(vec3.filter(lambda v: np.linalg.norm(v) > 1e-3), st.floats(0, np.pi))
def test_axis_angle_matches_scipy_and_round_trips(axis, t):
    A = rot.dcm_from_axis_angle(axis, t)  # non-unit axis: normalised
    u = axis / np.linalg.norm(axis)
    np.testing.assert_allclose(A, Rotation.from_rotvec(t * u).as_matrix(), atol=1e-12)
    assert_rotation(A)
    u2, t2 = rot.axis_angle_from_dcm(A)
    assert 0 <= t2 <= np.pi
    assert np.linalg.norm(u2) == pytest.approx(1.0)
    np.testing.assert_allclose(rot.dcm_from_axis_angle(u2, t2), A, atol=1e-12)
    assert t2 == pytest.approx(t, abs=1e-7)


@pytest.mark.parametrize("t", [0.0, 1e-12, 1e-7, np.pi - 1e-7, np.pi - 1e-12, np.pi])
def test_axis_angle_is_robust_near_zero_and_pi(t):
    u = np.array([-2.0, -3.0, 6.0]) / 7.0
    A = Rotation.from_rotvec(t * u).as_matrix()
    u2, t2 = rot.axis_angle_from_dcm(A)
    assert t2 == pytest.approx(t, abs=1e-9)
    if t > 1e-9:
        np.testing.assert_allclose(abs(u2 @ u), 1.0, atol=1e-9)
    if t == np.pi:
        assert u2[0] > 0  # canonical sign at a half turn
    np.testing.assert_allclose(rot.dcm_from_axis_angle(u2, t2), A, atol=1e-12)


def test_zero_axis_is_rejected():
    with pytest.raises(RotationError, match="axis is the zero vector"):
        rot.dcm_from_axis_angle([0, 0, 0], 1.0)
    with pytest.raises(ShapeError, match="axis must have 3 components"):
        rot.dcm_from_axis_angle([0, 1], 1.0)


# ----------------------------------------------------------------------------- angular velocity
def central_difference(f, x, xdot, h=1e-6):
    return (f(x + h * xdot) - f(x - h * xdot)) / (2 * h)


@pytest.mark.parametrize("seq", SEQS)
@PER_SEQ
@given(a=angles3, rates=vec3)
def test_euler_rates_give_omega_of_finite_difference(seq, a, rates):
    A = rot.dcm_from_euler(seq, a)
    Adot = central_difference(lambda x: rot.dcm_from_euler(seq, x), a, rates)
    omega = rot.unskew(Adot @ A.T, tol=1e-6)  # reference: w~ = A' A^T
    np.testing.assert_allclose(rot.omega_from_euler_rates(seq, a, rates), omega, atol=1e-7)
    omega_body = rot.omega_from_euler_rates(seq, a, rates, frame="body")
    np.testing.assert_allclose(omega_body, A.T @ omega, atol=1e-7)
    np.testing.assert_allclose(rot.omega_from_dcm_rate(A, Adot), omega, atol=1e-7)
    np.testing.assert_allclose(rot.dcm_rate(A, omega), Adot, atol=1e-7)


@pytest.mark.parametrize("seq", SEQS)
@PER_SEQ
@given(a=angles3, omega=vec3)
def test_euler_rates_from_omega_inverts_and_det_is_closed_form(seq, a, omega):
    E = rot.euler_rate_matrix(seq, a)
    closed = abs(np.cos(a[1])) if is_tait_bryan(seq) else abs(np.sin(a[1]))
    assert abs(np.linalg.det(E)) == pytest.approx(closed, abs=1e-12)
    assert abs(np.linalg.det(rot.euler_rate_matrix(seq, a, "body"))) == pytest.approx(closed, abs=1e-12)
    if closed < 1e-3:
        return
    for frame in ("global", "body"):
        rates = rot.euler_rates_from_omega(seq, a, omega, frame=frame)
        np.testing.assert_allclose(rot.omega_from_euler_rates(seq, a, rates, frame=frame), omega, atol=1e-8)


@pytest.mark.parametrize("seq", SEQS)
def test_euler_rates_from_omega_raises_at_gimbal_lock(seq):
    mids = [np.pi / 2, -np.pi / 2] if is_tait_bryan(seq) else [0.0, np.pi]
    for mid in mids:
        with pytest.raises(SingularityError, match=f"'{seq}' is singular.*middle angle.*quat_rates"):
            rot.euler_rates_from_omega(seq, [0.2, mid, -0.4], [0.1, 0.2, 0.3])


def test_bad_frame_is_rejected():
    with pytest.raises(ShapeError, match="frame must be 'global' or 'body'"):
        rot.euler_rate_matrix("ZYX", [0, 0, 0], frame="local")
    with pytest.raises(ShapeError, match="frame"):
        rot.quat_rates([1, 0, 0, 0], [0, 0, 1], frame="inertial")


@MEDIUM
@given(unit_quats(), vec3)
def test_quat_rates_against_finite_differences_and_kinematic_equation(e, omega):
    A = rot.dcm_from_quat(e)
    edot = rot.quat_rates(e, omega)
    assert abs(e @ edot) < 1e-12  # stays on the unit sphere
    # independent closed form: e' = 1/2 (0, w) * e (global) = 1/2 e * (0, w') (body)
    np.testing.assert_allclose(edot, 0.5 * rot.quat_multiply(np.r_[0.0, omega], e), atol=1e-12)
    omega_b = A.T @ omega
    np.testing.assert_allclose(rot.quat_rates(e, omega_b, frame="body"), edot, atol=1e-12)
    # finite difference of A along e': w~ = A' A^T
    Adot = central_difference(lambda x: rot.dcm_from_quat(rot.normalize_quat(x)), e, edot)
    np.testing.assert_allclose(rot.unskew(Adot @ A.T, tol=1e-6), omega, atol=1e-6)
    np.testing.assert_allclose(rot.omega_from_quat_rates(e, edot), omega, atol=1e-12)
    np.testing.assert_allclose(rot.omega_from_quat_rates(e, edot, frame="body"), omega_b, atol=1e-12)


@MEDIUM
@given(unit_quats(), vec3)
def test_quat_rate_matrix_gives_omega_from_rates_and_the_quaternion_product(e, omega):
    """ω = 2 G ė and ω' = 2 L ė; G e = L e = 0 and G Gᵀ = L Lᵀ = I for a unit e; and, independently of
    the library's rates, G(p) q and L(p) q are the vector parts of q ⊗ p* and p* ⊗ q (the Hamilton product
    written out here): linear in each argument, so the same holds for a rate that is not a unit quaternion."""
    edot = rot.quat_rates(e, omega)
    G, L = rot.quat_rate_matrix(e), rot.quat_rate_matrix(e, "body")
    np.testing.assert_allclose(2 * G @ edot, omega, atol=1e-12)
    np.testing.assert_allclose(2 * L @ edot, rot.dcm_from_quat(e).T @ omega, atol=1e-12)
    for X in (G, L):
        np.testing.assert_allclose(X @ e, 0.0, atol=1e-12)
        np.testing.assert_allclose(X @ X.T, np.eye(3), atol=1e-12)

    def product(a, b):
        return np.r_[a[0] * b[0] - a[1:] @ b[1:], a[0] * b[1:] + b[0] * a[1:] + np.cross(a[1:], b[1:])]

    conj = e * [1, -1, -1, -1]
    np.testing.assert_allclose(rot.quat_rate_matrix(edot) @ e, product(e, edot * [1, -1, -1, -1])[1:],
                               atol=1e-12)
    np.testing.assert_allclose(G @ edot, product(edot, conj)[1:], atol=1e-12)
    np.testing.assert_allclose(L @ edot, product(conj, edot)[1:], atol=1e-12)
    with pytest.raises(ShapeError, match="frame"):
        rot.quat_rate_matrix(e, "inertial")


def test_omega_from_dcm_rate_rejects_inconsistent_rate():
    with pytest.raises(ShapeError, match="Adot @ A\\^T is not skew-symmetric"):
        rot.omega_from_dcm_rate(np.eye(3), np.eye(3))


# ----------------------------------------------------------------------------- symbolic = numeric
t1, t2, t3, w1, w2, w3 = sp.symbols("t1 t2 t3 w1 w2 w3", real=True)
e0, e1, e2, e3, ed0, ed1, ed2, ed3 = sp.symbols("e0:4 ed0:4", real=True)


def evalf(expr, subs):
    return np.array(sp.Matrix(expr).subs(subs).evalf(), dtype=float).squeeze()


def test_symbolic_equals_numeric_elementary_and_skew():
    rng = np.random.default_rng(1)
    v = rng.normal(size=3)
    subs = {t1: v[0], w1: v[0], w2: v[1], w3: v[2]}
    for R in (rot.rot_x, rot.rot_y, rot.rot_z):
        assert isinstance(R(t1), sp.MatrixBase)
        np.testing.assert_allclose(evalf(R(t1), subs), R(v[0]), atol=1e-12)
    S = rot.skew([w1, w2, w3])
    np.testing.assert_allclose(evalf(S, subs), rot.skew(v), atol=1e-12)
    assert rot.unskew(S) == sp.Matrix([w1, w2, w3])


@pytest.mark.parametrize("seq", SEQS)
def test_symbolic_equals_numeric_euler(seq):
    rng = np.random.default_rng(abs(hash(seq)) % 2**32)
    a, r = rng.uniform(-1.2, 1.2, 3), rng.normal(size=3)
    subs = dict(zip((t1, t2, t3, w1, w2, w3), (*a, *r), strict=True))
    sym = [t1, t2, t3]
    A = rot.dcm_from_euler(seq, sym)
    np.testing.assert_allclose(evalf(A, subs), rot.dcm_from_euler(seq, a), atol=1e-12)
    for frame in ("global", "body"):
        E = rot.euler_rate_matrix(seq, sym, frame)
        assert isinstance(E, sp.MatrixBase)
        np.testing.assert_allclose(evalf(E, subs), rot.euler_rate_matrix(seq, a, frame), atol=1e-12)
        w = rot.omega_from_euler_rates(seq, sym, [w1, w2, w3], frame)
        np.testing.assert_allclose(evalf(w, subs), rot.omega_from_euler_rates(seq, a, r, frame), atol=1e-12)


@pytest.mark.parametrize("seq", ["ZYX", "zxz"])
def test_symbolic_euler_rates_from_omega(seq):
    a, r = np.array([0.3, 0.7, -0.2]), np.array([0.5, -1.0, 2.0])
    subs = dict(zip((t1, t2, t3, w1, w2, w3), (*a, *r), strict=True))
    rates = rot.euler_rates_from_omega(seq, [t1, t2, t3], [w1, w2, w3])
    np.testing.assert_allclose(evalf(rates, subs), rot.euler_rates_from_omega(seq, a, r), atol=1e-12)


def test_symbolic_equals_numeric_quaternions_axis_angle_and_rates():
    e = rot.normalize_quat([0.9, -0.2, 0.3, 0.25])
    ed = rot.quat_rates(e, [0.4, -0.5, 0.6])
    u, t, w = np.array([1.0, 2.0, -2.0]), 0.8, np.array([0.4, -0.5, 0.6])
    subs = {**dict(zip((e0, e1, e2, e3), e, strict=True)), **dict(zip((ed0, ed1, ed2, ed3), ed, strict=True)),
            t1: t, w1: w[0], w2: w[1], w3: w[2]}
    E, W = [e0, e1, e2, e3], [w1, w2, w3]
    np.testing.assert_allclose(evalf(rot.dcm_from_quat(E), subs), rot.dcm_from_quat(e), atol=1e-12)
    np.testing.assert_allclose(evalf(rot.quat_multiply(E, E), subs), rot.quat_multiply(e, e), atol=1e-12)
    np.testing.assert_allclose(evalf(rot.quat_conjugate(E), subs), rot.quat_conjugate(e), atol=1e-12)
    for frame in ("global", "body"):
        np.testing.assert_allclose(evalf(rot.quat_rates(E, W, frame), subs), rot.quat_rates(e, w, frame),
                                   atol=1e-12)
        np.testing.assert_allclose(evalf(rot.omega_from_quat_rates(E, [ed0, ed1, ed2, ed3], frame), subs),
                                   rot.omega_from_quat_rates(e, ed, frame), atol=1e-12)
    np.testing.assert_allclose(evalf(rot.dcm_from_axis_angle(u, t1), subs), rot.dcm_from_axis_angle(u, t),
                               atol=1e-12)
    # a whole-number axis stays exact in symbolic mode (no floats in the printed formula)
    exact = rot.dcm_from_axis_angle([1, 1, 0], t1)
    assert not exact.atoms(sp.Float) and exact[0, 2] == sp.sqrt(2) * sp.sin(t1) / 2
    # symbolic axis: normalised symbolically
    np.testing.assert_allclose(evalf(rot.dcm_from_axis_angle(W, t1), subs), rot.dcm_from_axis_angle(w, t),
                               atol=1e-12)
    A = rot.rot_z(t1)
    np.testing.assert_allclose(evalf(rot.dcm_rate(A, W), subs), rot.dcm_rate(rot.rot_z(t), w), atol=1e-12)
    # the exact symbolic derivative gives back omega through unskew(A' A^T)
    assert sp.simplify(rot.omega_from_dcm_rate(A, A.diff(t1)) - sp.Matrix([0, 0, 1])) == sp.zeros(3, 1)
