"""Tests of the spatial joints (mbdlib.spatial_joints, through mbdlib.spatial): Φ_q against finite
differences, γ in closed form against exact stencils, DOF counts of spatial mechanisms (free body,
spherical pendulum, universal joint, prismatic, the 6R arm of the source text: 42 Cartesian coordinates
and 36 constraints, 49 / 43 with Euler parameters), and the coordinates a user chooses (joint angles and
slides, a body's x, y, z and Tait–Bryan angles) against geometry, rotations.euler_from_dcm and drivers."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import first_derivative_along, second_derivative_along
from scipy.spatial.transform import Rotation

from mbdlib.errors import MbdError, ModelError, ShapeError
from mbdlib.model import Coordinate
from mbdlib.rotations import dcm_from_axis_angle, euler_from_dcm, quat_from_dcm, quat_multiply
from mbdlib.spatial import SpatialMechanism, SpatialModel, point_jacobian

SETTINGS = settings(max_examples=15, deadline=None)
num = st.floats(-1.5, 1.5, allow_nan=False)
quats = st.lists(num, min_size=4, max_size=4).filter(lambda p: np.linalg.norm(p) > 0.3).map(np.array)
vec3 = st.lists(num, min_size=3, max_size=3).map(np.array)


def fd_jacobian(f, q, h=1e-6):
    return np.column_stack([(f(q + h * e) - f(q - h * e)) / (2 * h) for e in np.eye(len(q))])


def A_of(p):
    """A(p) = (2 e0² − 1) I + 2 (e eᵀ + e0 ẽ), written out here (also off the unit sphere)."""
    e0, e = p[0], np.asarray(p[1:])
    et = np.array([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])
    return (2 * e0**2 - 1) * np.eye(3) + 2 * (np.outer(e, e) + e0 * et)


@SETTINGS
@given(quats, vec3)
def test_point_jacobian_equals_central_differences(p, s):
    np.testing.assert_allclose(point_jacobian(p, s), fd_jacobian(lambda x: A_of(x) @ s, p), atol=1e-7)


def test_unit_euler_parameters_give_scipys_rotation():
    p = np.array([0.8, 0.2, -0.4, 0.4]) / np.linalg.norm([0.8, 0.2, -0.4, 0.4])
    np.testing.assert_allclose(A_of(p), Rotation.from_quat([*p[1:], p[0]]).as_matrix(), atol=1e-12)


def two_bodies():
    m = SpatialModel()
    rng = np.random.default_rng(7)
    for name in "ab":
        m.add_body(name, position=rng.normal(size=3), orientation=rng.normal(size=4))
    return m


JOINTS = {
    "fix": lambda m: m.fix("a"),
    "spherical": lambda m: m.add_spherical("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1)),
    "revolute": lambda m: m.add_revolute("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1), (0.3, -0.5, 0.8)),
    "universal": lambda m: m.add_universal("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1), (1, 0, 0), (0, 1, 1)),
    "prismatic": lambda m: m.add_prismatic("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1), (0.3, -0.5, 0.8)),
    "cylindrical": lambda m: m.add_cylindrical("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1), (0.3, -0.5, 0.8)),
    "distance": lambda m: m.add_distance("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1), length=1.3),
    "rotational driver": lambda m: m.add_rotational_driver("a", "b", (0.3, -0.5, 0.8), speed=0.7),
    "distance driver": lambda m: m.add_distance_driver("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1),
                                                       speed=0.4),
}


@pytest.mark.parametrize("kind", sorted(JOINTS))
@SETTINGS
@given(st.lists(num, min_size=14, max_size=14).map(np.array))
def test_joint_jacobians_equal_central_differences(kind, q):
    m = two_bodies()
    joint = JOINTS[kind](m)
    local = q[: 7 * len(joint.bodies)]
    J = joint.jacobian(local)
    assert J.shape == (joint.n_eq, 7 * len(joint.bodies))
    np.testing.assert_allclose(J, fd_jacobian(joint.phi, local), atol=1e-6)
    np.testing.assert_allclose(m.phi_q(q), fd_jacobian(m.phi, q), atol=1e-6)


def test_joints_hold_at_the_initial_configuration():
    """Joint defaults (axis_j, twist vector) come from the initial poses, so the guess satisfies Φ."""
    for kind in ("revolute", "prismatic"):
        m = SpatialModel()
        m.add_body("a", orientation=[0.9, 0.1, 0.3, -0.2])
        m.add_body("b", position=(0.1, 0.2, 0.3), orientation=[0.2, 0.7, -0.1, 0.4])
        point_b = A_of(m.bodies[1].orientation).T @ (m.bodies[0].position + A_of(
            m.bodies[0].orientation) @ [0.0, 0.0, 0.5] - m.bodies[1].position)
        add = m.add_revolute if kind == "revolute" else m.add_prismatic
        add("a", "b", (0.0, 0.0, 0.5), point_b, (0.3, -0.5, 0.8))
        np.testing.assert_allclose(m.phi(m.q_guess()), 0.0, atol=1e-12)


# ----------------------------------------------------------------------------- DOF counts
def test_free_body_has_six_dof():
    m = SpatialModel()
    m.add_body("free", orientation=(0.5, 0.5, 0.5, 0.5))
    r = m.dof_report()
    assert (r.coordinates, r.constraints, r.rank, r.dof, r.grubler) == (7, 1, 1, 6, 6)
    assert (r.coordinates_6, r.constraints_6) == (6, 0)


def six_r_arm():
    """Ground + six links stacked along z; axes z, y, y, z, y, z (an anthropomorphic arm)."""
    m = SpatialModel()
    m.add_body("ground")
    m.fix("ground")
    axes = [(0, 0, 1), (0, 1, 0), (0, 1, 0), (0, 0, 1), (0, 1, 0), (0, 0, 1)]
    for k, axis in enumerate(axes, start=1):
        m.add_body(f"link{k}", position=(0.0, 0.0, 0.5 * (k - 1) + 0.25))
        top = (0.0, 0.0, 0.0) if k == 1 else (0.0, 0.0, 0.25)
        m.add_revolute("ground" if k == 1 else f"link{k - 1}", f"link{k}", top, (0.0, 0.0, -0.25), axis)
    return m


def test_six_r_arm_counts_of_the_source_text():
    r = six_r_arm().dof_report()
    assert (r.coordinates_6, r.constraints_6) == (42, 36)  # 7 bodies x 6; fixed base 6 + six revolutes x 5
    assert (r.coordinates, r.constraints, r.rank) == (49, 43, 43)  # with Euler parameters
    assert r.dof == 6 == r.grubler and not r.redundant and not r.singular
    assert "42 coordinates (6 per body), 36 constraints" in r.text


@pytest.mark.parametrize("joint, dof",
                         [("spherical", 3), ("universal", 2), ("revolute", 1), ("prismatic", 1)])
def test_one_joint_to_a_fixed_base(joint, dof):
    m = SpatialModel()
    m.add_body("base", orientation=(0.9, 0.1, -0.3, 0.2))
    m.fix("base")
    m.add_body("bob", position=(0.0, 0.0, -1.0))
    add = {"spherical": m.add_spherical, "universal": m.add_universal, "revolute": m.add_revolute,
           "prismatic": m.add_prismatic}[joint]
    kwargs = {} if joint == "spherical" else {"axis_i": (1.0, 0.0, 0.0)}
    if joint == "universal":
        kwargs["axis_j"] = (0.0, 1.0, 0.0)
    # the joint point of the base, in base components, that sits where the bob's (0, 0, 1) is: the origin
    add("base", "bob", point_i=(0.0, 0.0, 0.0), point_j=(0.0, 0.0, 1.0), **kwargs)
    r = m.dof_report()
    assert (r.dof, r.grubler, r.redundant, r.singular) == (dof, dof, [], False)


def test_repeated_revolute_is_reported_redundant():
    m = SpatialModel()
    m.add_body("base")
    m.fix("base")
    m.add_body("door", position=(0.5, 0.0, 0.0))
    m.add_revolute("base", "door", (0, 0, 0), (-0.5, 0, 0), (0, 0, 1), name="hinge1")
    m.add_revolute("base", "door", (0, 0, 1), (-0.5, 0, 1), (0, 0, 1), name="hinge2")
    r = m.dof_report()
    assert r.grubler == -4 and r.dof == 1 and len(r.redundant) == 5 and not r.singular
    assert {"hinge1", "hinge2"} <= set(r.involved)


# ----------------------------------------------------------------------------- bad input
def test_bad_input_raises_clear_errors():
    m = SpatialModel()
    m.add_body("a")
    with pytest.raises(ModelError, match="unknown body 'b'; the bodies are: a"):
        m.add_spherical("a", "b")
    m.add_body("b", position=(1.0, 0.0, 0.0))
    with pytest.raises(ModelError, match="two different bodies, got 'a' twice"):
        m.add_revolute("a", "a")
    with pytest.raises(ShapeError, match="point_i must have 3 components"):
        m.add_spherical("a", "b", point_i=(0, 0))
    with pytest.raises(ShapeError, match="axis_i is the zero vector"):
        m.add_revolute("a", "b", axis_i=(0, 0, 0))
    with pytest.raises(ModelError, match="mass must be positive"):
        m.add_body("c", mass=-2.0)
    m.fix("a")
    m.fix("b")
    m.add_spherical("a", "b", (0, 0, 0), (0, 0, 0), name="ball")  # 1 m apart, both fixed
    with pytest.raises(ModelError, match="cannot assemble: joint '.*' cannot close"):
        m.assemble()


# ----------------------------------------------------------------------------- γ in closed form
RTOL_EXACT = 1e-10


def close(actual, expected, rtol=RTOL_EXACT):
    """``|actual − expected| ≤ rtol · max(1, |expected|∞)`` entry by entry."""
    scale = max(1.0, float(np.max(np.abs(expected))))
    np.testing.assert_allclose(actual, expected, rtol=0, atol=rtol * scale)


@pytest.mark.parametrize("kind", sorted(k for k in JOINTS if "driver" not in k))
@SETTINGS
@given(st.lists(num, min_size=14, max_size=14).map(np.array),
       st.lists(num, min_size=14, max_size=14).map(np.array))
def test_gamma_of_every_joint_equals_the_exact_stencil(kind, q, qd):
    """γ = −(Φ_q q̇)_q q̇ = −d²/ds² Φ(q + s q̇): every joint equation (and pᵀp − 1) is a polynomial of degree
    ≤ 4 in q, so the five-point stencil is exact; the closed form from the jets agrees to round-off, at
    any state (also off the unit sphere and the constraint manifold), for the model and the joint alone."""
    m = two_bodies()
    joint = JOINTS[kind](m)
    close(m.gamma(q, qd), -second_derivative_along(m.phi, q, qd))
    local, local_d = q[: 7 * len(joint.bodies)], qd[: 7 * len(joint.bodies)]
    close(joint.gamma(local, local_d), -second_derivative_along(joint.phi, local, local_d))


@pytest.mark.parametrize("kind", ["rotational driver", "distance driver"])
@pytest.mark.parametrize("t", [0.0, 0.8, 2.1])
def test_gamma_and_phi_t_of_the_drivers_equal_exact_derivatives(kind, t):
    """For Φ(q, t): γ = −(Φ_qq(q̇, q̇) + 2 Φ_qt q̇ + Φ_tt).  The q-parts are polynomials along q + s q̇ (exact
    stencils); Φ_tt is a derivative in t of Φ_t, by the eighth-order nine-point stencil; Φ_t itself is the
    same stencil of Φ in t.  Drivers with non-polynomial motions (sines)."""
    m = two_bodies()
    if kind == "rotational driver":
        m.add_rotational_driver("a", "b", (0.3, -0.5, 0.8), f=lambda t: 0.3 * np.sin(2 * t) + 0.7 * t,
                                df=lambda t: 0.6 * np.cos(2 * t) + 0.7, ddf=lambda t: -1.2 * np.sin(2 * t))
    else:
        m.add_distance_driver("a", "b", (0.1, 0.2, 0.3), (-0.2, 0.0, 0.1),
                              f=lambda t: 2.0 + 0.2 * np.sin(3 * t), df=lambda t: 0.6 * np.cos(3 * t),
                              ddf=lambda t: -1.8 * np.sin(3 * t))
    rng = np.random.default_rng(5)
    for _ in range(3):
        q, qd = rng.normal(size=(2, m.n))
        one = np.ones(1)
        phi_t = first_derivative_along(lambda tt, q=q: m.phi(q, tt[0]), np.array([t]), one, scale=0.01)
        phi_tt = first_derivative_along(lambda tt, q=q: m.phi_t(q, tt[0]), np.array([t]), one, scale=0.01)
        qq = second_derivative_along(lambda x: m.phi(x, t), q, qd)
        qt = first_derivative_along(lambda x: m.phi_t(x, t), q, qd)
        close(m.phi_t(q, t), phi_t, 1e-9)
        close(m.gamma(q, qd, t), -(qq + 2 * qt + phi_tt), 1e-9)


# ----------------------------------------------------------------------------- joint coordinates
def turned(p, axis, angle):
    """Euler parameters of the body turned by ``angle`` about the global ``axis`` from ``p``."""
    return quat_multiply(quat_from_dcm(dcm_from_axis_angle(axis, angle)), p)


def hinge_pair(kind="revolute", axis=(0.3, -0.5, 0.8)):
    """Body a at a random pose, body b joined at a's point (0.1, 0.2, 0.3) by ``kind`` about ``axis``."""
    m = SpatialModel()
    pa = np.array([0.9, 0.1, 0.3, -0.2])
    a = m.add_body("a", position=(0.2, -0.1, 0.4), orientation=pa)
    pb = np.array([0.2, 0.7, -0.1, 0.4]) / np.linalg.norm([0.2, 0.7, -0.1, 0.4])
    b = m.add_body("b", position=a.position + A_of(a.orientation) @ [0.1, 0.2, 0.3], orientation=pb)
    add = {"revolute": m.add_revolute, "cylindrical": m.add_cylindrical, "prismatic": m.add_prismatic}[kind]
    joint = add(a, b, (0.1, 0.2, 0.3), (0.0, 0.0, 0.0), axis_i=axis, name="j")
    return m, joint


def random_states(m, rng, k=3):
    for _ in range(k):
        q = m.q_guess() + 0.2 * rng.normal(size=m.n)
        yield q, rng.normal(size=m.n)


def check_derivatives(c: Coordinate, q, qd, h=1e-4):
    """Gradient against fourth-order central differences; bias = d²/ds² c(q + s q̇) (a straight line:
    q̈ = 0) by the five-point stencil.  Angles are differenced across ±π by wrapping."""
    c0 = c(q)

    def f(x):                                             # c(x) − c(q), an angle wrapped to (−π, π]
        d = c(x) - c0
        return (d + np.pi) % (2 * np.pi) - np.pi if c.unit == "rad" else d

    grad = np.array([(-f(q + 2 * h * e) + 8 * f(q + h * e) - 8 * f(q - h * e) + f(q - 2 * h * e)) / (12 * h)
                     for e in np.eye(q.size)])
    np.testing.assert_allclose(c.gradient(q), grad, atol=1e-7 * max(1.0, np.abs(grad).max()))
    assert c.rate(q, qd) == pytest.approx(c.gradient(q) @ qd, abs=1e-12)
    v = qd * (2e-4 / np.abs(qd).max())                  # a step of 2e-4 along q̇, then scaled back
    bias = (-f(q + 2 * v) + 16 * f(q + v) - 30 * f(q) + 16 * f(q - v) - f(q - 2 * v)) / 12
    bias *= (np.abs(qd).max() / 2e-4) ** 2
    assert c.bias(q, qd) == pytest.approx(bias, abs=1e-6 * max(1.0, abs(bias)))


def test_revolute_angle_is_the_turn_about_the_axis():
    """Body b turned rigidly about the hinge axis (global, through the joint point) by θ: joint.angle = θ
    (counted from the initial poses), its gradient and bias against finite differences."""
    m, joint = hinge_pair()
    q0 = m.q_guess()
    assert joint.angle(q0) == pytest.approx(0.0, abs=1e-12)
    a, b = m.bodies
    axis = A_of(a.orientation) @ (np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8]))
    pivot = a.position + A_of(a.orientation) @ [0.1, 0.2, 0.3]
    for theta in (0.4, -1.3, 2.9):
        q = q0.copy()
        q[7:10] = pivot + dcm_from_axis_angle(axis, theta) @ (b.position - pivot)
        q[10:14] = turned(b.orientation, axis, theta)
        assert np.abs(m.phi(q)).max() < 1e-12
        assert joint.angle(q) == pytest.approx(theta, abs=1e-12)
        assert joint.coordinate() is not None and joint.coordinate()(q) == pytest.approx(theta, abs=1e-12)
    rng = np.random.default_rng(2)
    for q, qd in random_states(m, rng):
        check_derivatives(joint.angle, q, qd)


def test_revolute_angle_rate_and_bias_follow_a_rotational_driver():
    """A bar on a hinge to a fixed base driven at θ(t) = 0.3 + 0.5 t + 0.2 sin 3t: at several times, the
    consistent state (positions, velocities, accelerations by the drivers' rows alone) has joint.angle = θ,
    its rate = θ̇, and c_q q̈ + bias = θ̈."""
    m = SpatialModel()
    base = m.add_body("base", orientation=(0.9, 0.1, 0.3, -0.2))
    m.fix(base)
    bar = m.add_body("bar", position=base.position + A_of(base.orientation) @ [0.5, 0.0, 0.0],
                     orientation=base.orientation)
    hinge = m.add_revolute(base, bar, (0, 0, 0), (-0.5, 0, 0), axis_i=(0, 1, 0), name="hinge")
    th = (lambda t: 0.3 + 0.5 * t + 0.2 * np.sin(3 * t), lambda t: 0.5 + 0.6 * np.cos(3 * t),
          lambda t: -1.8 * np.sin(3 * t))
    m.add_rotational_driver(base, bar, axis_i=(0, 1, 0), f=th[0], df=th[1], ddf=th[2])
    assert m.dof_report().dof == 0
    for t in (0.0, 0.7, 1.9):
        s = m.state(t=t)
        q, qd = s.q0, s.qd0
        qdd = np.linalg.lstsq(m.phi_q(q, t), m.gamma(q, qd, t), rcond=None)[0]
        assert hinge.angle(q) == pytest.approx(th[0](t), abs=1e-9)
        assert hinge.rate(q, qd) == pytest.approx(th[1](t), abs=1e-9)
        assert hinge.angle.gradient(q) @ qdd + hinge.angle.bias(q, qd) == pytest.approx(th[2](t), abs=1e-8)


def test_prismatic_slide_and_cylindrical_coordinates():
    """The slide is the travel of P_j along the axis of body i; a cylindrical joint has a slide and an
    angle (so coordinate() refuses to choose); gradients and biases against finite differences."""
    for kind in ("prismatic", "cylindrical"):
        m, joint = hinge_pair(kind)
        q0 = m.q_guess()
        a = m.bodies[0]
        axis = A_of(a.orientation) @ (np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8]))
        q = q0.copy()
        q[7:10] += 0.37 * axis
        assert np.abs(m.phi(q)).max() < 1e-12
        assert joint.slide(q) == pytest.approx(0.37, abs=1e-12)
        rng = np.random.default_rng(4)
        for qq, qd in random_states(m, rng, 2):
            check_derivatives(joint.slide, qq, qd)
            if kind == "cylindrical":
                check_derivatives(joint.angle, qq, qd)
    assert joint.coordinates == ("slide", "angle")
    with pytest.raises(ModelError, match="has 2 coordinates .*joint.slide, joint.angle.*name the one"):
        joint.coordinate()
    m, prismatic = hinge_pair("prismatic")
    assert prismatic.coordinate().name == "j slide"
    with pytest.raises(ModelError, match="joint 'j' \\(prismatic\\) has no angle coordinate; its coordinates "
                                         "are slide"):
        prismatic.angle  # noqa: B018


@pytest.mark.parametrize("seq", ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "xyz", "xzy", "yxz", "yzx", "zxy",
                                 "zyx", "ZXZ", "ZYZ", "XYX", "XZX", "YXY", "YZY", "zxz", "zyz", "xyx", "xzx",
                                 "yxy", "yzy"])
def test_euler_angles_equal_euler_from_dcm_with_exact_derivatives(seq):
    """Every Tait–Bryan and proper Euler sequence (scipy naming), every angle, on random orientations: the
    value equals rotations.euler_from_dcm (and scipy's as_euler), the gradient and bias equal finite
    differences (away from gimbal lock, where the differences keep their accuracy: |β| < 70° for
    Tait–Bryan angles, 20° < β < 160° for proper ones)."""
    m = SpatialModel()
    m.add_body("b")
    rng = np.random.default_rng([ord(x) for x in seq])
    angles = [m.euler_angle("b", seq, k) for k in range(3)]
    done = 0
    while done < 6:
        p = rng.normal(size=4)
        p /= np.linalg.norm(p)
        q = np.r_[rng.normal(size=3), p]
        ref = euler_from_dcm(seq, A_of(p))
        proper = seq[0].lower() == seq[2].lower()
        if (abs(np.cos(ref[1])) > np.cos(np.radians(20))) if proper else abs(ref[1]) > np.radians(70):
            continue
        done += 1
        np.testing.assert_allclose([c(q) for c in angles], ref, atol=1e-12)
        np.testing.assert_allclose(ref, Rotation.from_quat([*p[1:], p[0]]).as_euler(seq), atol=1e-12)
        qd = rng.normal(size=7)
        for c in angles:
            check_derivatives(c, q, qd)


def test_body_coordinates_and_the_keys_a_model_accepts():
    m, joint = hinge_pair()
    q = m.q_guess() + 0.1
    x = m.coordinate("b", "z")
    assert x.name == "z_b" and x(q) == q[9] and x.gradient(q)[9] == 1.0 and x.bias(q, q) == 0.0
    assert m.coordinate("j")(q) == joint.angle(q) == m.coordinate(joint)(q)
    c = m.euler_angle("a", "ZXY", 1)
    assert m.coordinate(c) is c
    with pytest.raises(ModelError, match="no joint named 'hinge' \\(the joints: j\\)"):
        m.coordinate("hinge")
    with pytest.raises(ModelError, match="'x', 'y' or 'z' .*euler_angle"):
        m.coordinate("a", "phi")
    with pytest.raises(ModelError, match="unknown body 'c'"):
        m.coordinate("c", "x")
    with pytest.raises(ModelError, match="index must be 0, 1 or 2"):
        m.euler_angle("a", "ZXY", 3)
    with pytest.raises(ShapeError, match="seq must be 3 letters"):
        m.euler_angle("a", "ZXy", 0)
    gimbal = m.euler_angle("a", "ZYX", 1)
    q = m.q_guess()
    q[3:7] = quat_from_dcm(dcm_from_axis_angle([0, 1, 0], np.pi / 2))
    with pytest.raises(MbdError, match="gimbal lock"):
        gimbal.gradient(q)
    spherical = m.add_spherical("a", "b", name="ball")
    with pytest.raises(ModelError, match="'ball' \\(spherical\\) has 0 coordinates"):
        m.coordinate("ball")
    free = SpatialMechanism()
    free.add_body("a")
    free.add_body("b", position=(1, 0, 0))
    loose = free.add_revolute("a", "b")
    assert loose.angle(free.q_guess()) == pytest.approx(0.0, abs=1e-12)
    assert spherical.coordinates == ()


def test_state_holds_chosen_joint_coordinates_of_a_spatial_chain():
    """model.state(fixed=..., speeds=...) on the 6R arm: the chosen joint angles and rates are met, the
    constraints hold, and an angle a fixed joint already determines is refused by name."""
    m = six_r_arm()
    joints = m.joints[1:]
    chosen = dict(zip(joints, (0.3, -0.4, 0.8, 0.1, -0.6, 1.2), strict=True))
    rates = dict(zip(joints, (0.5, 0.0, -1.0, 2.0, 0.3, 0.0), strict=True))
    s = m.state(fixed=chosen, speeds=rates)
    assert np.abs(m.phi(s.q0)).max() < 1e-10
    for j in joints:
        assert j.angle(s.q0) == pytest.approx(chosen[j], abs=1e-9)
        assert j.rate(s.q0, s.qd0) == pytest.approx(rates[j], abs=1e-9)
    np.testing.assert_allclose(m.phi_q(s.q0) @ s.qd0, 0.0, atol=1e-10)
    with pytest.raises(ModelError, match="not independent"):
        m.state(fixed={joints[0]: 0.3, m.coordinate("link1", "z"): 0.25})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.assemble()
