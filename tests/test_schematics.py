"""Schematic helpers draw what they are asked to, where they are asked to, and reject bad input."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from mbdlib import schematics as S  # noqa: E402
from mbdlib.errors import ShapeError  # noqa: E402


@pytest.fixture
def ax():
    fig, ax = S.diagram(figsize=(3, 2))
    yield ax
    plt.close(fig)


def test_vector_runs_from_tail_to_head_with_its_label(ax):
    out = S.draw_vector(ax, (1, 2), (3, -1), r"$\mathbf{l}$")
    path = out["arrow"]._posA_posB
    np.testing.assert_allclose(path, [(1, 2), (4, 1)])
    assert out["label"].get_text() == r"$\mathbf{l}$"
    x, y = out["label"].get_position()
    # beside the middle of the arrow, on its left seen from the tail
    normal = np.array([1, 3]) / np.hypot(1, 3)
    assert np.dot(np.array([x, y]) - [2.5, 1.5], normal) > 0


def test_frame2d_axes_are_the_columns_of_the_rotation(ax):
    out = S.draw_frame2d(ax, (0.5, 0.5), angle=np.pi / 6, length=2.0)
    A = S.rot2(np.pi / 6)
    for k, arrow in enumerate(out["axes"]):
        tail, head = arrow._posA_posB
        np.testing.assert_allclose(np.subtract(head, tail), 2.0 * A[:, k], atol=1e-12)
    assert [t.get_text() for t in out["labels"]] == ["x", "y"]


def test_rot2_is_a_rotation():
    for a in np.linspace(-3, 3, 7):
        A = S.rot2(a)
        np.testing.assert_allclose(A.T @ A, np.eye(2), atol=1e-15)
        assert np.linalg.det(A) == pytest.approx(1.0)


def test_link_outline_surrounds_both_ends_at_half_width(ax):
    bar = S.draw_link(ax, (0, 0), (2, 0), width=0.2)["bar"]
    xy = bar.get_xy()
    assert xy[:, 0].min() == pytest.approx(-0.1) and xy[:, 0].max() == pytest.approx(2.1)
    assert np.abs(xy[:, 1]).max() == pytest.approx(0.1)
    with pytest.raises(ValueError, match="coincide"):
        S.draw_link(ax, (1, 1), (1, 1))


def test_joints_and_bodies_render(ax):
    pin = S.draw_revolute(ax, (0, 0), ground=True, label="O")
    assert pin["support"] is not None and pin["label"].get_text() == "O"
    np.testing.assert_allclose(pin["pin"].center, (0.0, 0.0))
    pri = S.draw_prismatic(ax, (1, 0), angle=np.pi / 2)
    corners = pri["block"].get_xy()[:4]
    np.testing.assert_allclose(corners.mean(axis=0), [1, 0], atol=1e-12)
    body = S.draw_body(ax, (2, 1), angle=0.3, size=(0.6, 0.3), label="body $i$")
    np.testing.assert_allclose(body["body"].get_xy()[:-1].mean(axis=0), [2, 1], atol=1e-2)
    com = S.draw_com(ax, (2, 1), label="$C$")
    assert len(com["quarters"]) == 2
    spring = S.draw_spring(ax, (0, 0), (1, 1))["spring"]
    np.testing.assert_allclose(spring.get_xydata()[[0, -1]], [(0, 0), (1, 1)])
    ax.figure.canvas.draw()  # everything renders


def test_damper_runs_from_end_to_end_and_a_fixed_guide_stays(ax):
    lines = S.draw_damper(ax, (0, 0), (0, 2), label="$c$")["lines"]
    ends = np.concatenate([line.get_xydata() for line in lines])
    np.testing.assert_allclose(ends[:, 1].min(), 0.0)
    np.testing.assert_allclose(ends[:, 1].max(), 2.0)
    with pytest.raises(ValueError, match="coincide"):
        S.draw_damper(ax, (1, 1), (1, 1))
    moving = S.draw_prismatic(ax, (0, 0.3), angle=np.pi / 2, length=1.0, guide_at=(0, 0))
    rail = moving["guide"][0].get_xydata()
    np.testing.assert_allclose(rail[:, 1], [-0.5, 0.5], atol=1e-12)  # the guide, centred on guide_at
    np.testing.assert_allclose(moving["block"].get_xy()[:-1].mean(axis=0), [0, 0.3], atol=1e-12)


def test_angle_and_moment_arcs(ax):
    out = S.draw_angle(ax, (0, 0), 0.0, np.pi / 2, radius=1.0, label=r"$\theta$")
    pts = out["arc"].get_xydata()
    np.testing.assert_allclose(np.hypot(*pts.T), 1.0)
    np.testing.assert_allclose(pts[[0, -1]], [(1, 0), (0, 1)], atol=1e-12)
    mom = S.draw_moment(ax, (0, 0), ccw=False, label="$n$")
    start, end = mom["arc"].get_xydata()[[0, -1]]
    assert start[0] * end[1] - start[1] * end[0] != 0 and mom["label"].get_text() == "$n$"


def test_force_can_end_on_its_point(ax):
    out = S.draw_force(ax, (1, 1), (0, -0.5), "$f$", at_head=True)
    tail, head = out["arrow"]._posA_posB
    np.testing.assert_allclose(head, (1, 1))
    np.testing.assert_allclose(tail, (1, 1.5))


def test_block_matrix_fills_the_nonzero_blocks(ax):
    out = S.draw_block_matrix(ax, [("A", 2), ("B", 2)], [("1", 3), ("2", 3)], [[True, False], ["$-I$", True]])
    assert len(out["blocks"]) == 3
    widths = sorted((r.get_width(), r.get_height()) for r in out["blocks"])
    assert widths == [(3.0, 2.0)] * 3
    assert any(t.get_text() == "$-I$" for t in out["labels"])
    with pytest.raises(ShapeError, match=r"pattern must have shape \(2, 2\)"):
        S.draw_block_matrix(ax, [("A", 2), ("B", 2)], [("1", 3), ("2", 3)], [[True, False]])


def test_flow_chart_pieces(ax):
    box = S.draw_label_box(ax, (0, 0), "kinematics")
    arrow = S.draw_flow_arrow(ax, (0.8, 0), (2, 0), "state")
    assert box["text"].get_text() == "kinematics" and arrow["label"].get_text() == "state"


def test_3d_helpers_need_3d_axes_and_draw_there():
    fig = plt.figure()
    ax3 = fig.add_subplot(projection="3d")
    v = S.draw_vector_3d(ax3, (0, 0, 0), (0, 0, 1), r"$\mathbf{k}_i$")
    a = S.draw_axis_3d(ax3, (0, 0, 0), (0, 0, 2), label="$z_i$")
    assert v["label"].get_text() == r"$\mathbf{k}_i$" and a["label"].get_text() == "$z_i$"
    with pytest.raises(ValueError, match="zero vector"):
        S.draw_axis_3d(ax3, (0, 0, 0), (0, 0, 0))
    flat = fig.add_subplot(2, 2, 1)
    with pytest.raises(TypeError, match="3-D axes"):
        S.draw_vector_3d(flat, (0, 0, 0), (1, 0, 0))
    plt.close(fig)


@pytest.mark.parametrize("bad", [(1, 2, 3), (np.nan, 0), "xy"])
def test_points_must_be_planar_and_finite(ax, bad):
    with pytest.raises((ShapeError, ValueError)):
        S.draw_point(ax, bad)


@pytest.mark.parametrize("azim, elev", [(-60.0, 20.0), (60.0, 25.0), (135.0, -10.0)])
def test_oblique_view_is_matplotlibs_orthographic_view(azim, elev):
    """The screen directions of the three global axes are those of a 3-D axes with view_init(elev, azim)."""
    from mpl_toolkits.mplot3d import proj3d

    V = S.oblique(azim, elev)
    np.testing.assert_allclose(V @ V.T, np.eye(2), atol=1e-12)       # orthonormal rows
    fig = plt.figure(figsize=(4, 4))
    ax3 = fig.add_subplot(projection="3d", proj_type="ortho")
    ax3.set(xlim=(-1, 1), ylim=(-1, 1), zlim=(-1, 1))
    ax3.set_box_aspect((1, 1, 1))
    ax3.view_init(elev=elev, azim=azim)
    fig.canvas.draw()
    M = ax3.get_proj()
    o = np.array(proj3d.proj_transform(0, 0, 0, M)[:2])
    screen = np.array([np.array(proj3d.proj_transform(*e, M)[:2]) - o for e in np.eye(3)]).T  # (2, 3)
    scale = np.linalg.norm(screen) / np.linalg.norm(V)
    np.testing.assert_allclose(screen / scale, V, atol=1e-9)
    plt.close(fig)


def test_oblique_frame_arrows_are_the_projected_columns(ax):
    V = S.oblique(30.0, 15.0)
    A = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    out = S.draw_frame_oblique(ax, V, A, origin=(1.0, 2.0, 3.0), length=0.5, labels=("x", "", "z"))
    for k, arrow in enumerate(out["axes"]):
        tail, head = arrow._posA_posB
        np.testing.assert_allclose(tail, V @ [1.0, 2.0, 3.0], atol=1e-12)
        np.testing.assert_allclose(np.subtract(head, tail), V @ (0.5 * A[:, k]), atol=1e-12)
    assert [t.get_text() for t in out["labels"]] == ["x", "z"]        # an empty label is skipped
    with pytest.raises(ShapeError, match=r"\(2, 3\)"):
        S.draw_frame_oblique(ax, np.eye(3), A)


def test_oblique_revolute_surrounds_its_point_and_draws_its_axis(ax):
    V = S.oblique(-60.0, 20.0)
    out = S.draw_revolute_oblique(ax, V, (0.5, 0.0, 0.2), (0, 1, 1), radius=0.1, length=0.3,
                                  label=r"$\mathbf{k}$")
    from matplotlib.path import Path

    centre = V @ [0.5, 0.0, 0.2]
    assert Path(out["body"].get_xy()).contains_point(centre)
    u = np.array([0, 1, 1]) / np.sqrt(2)
    p = np.array([0.5, 0.0, 0.2])
    ends = [V @ (p - 0.45 * u), V @ (p + 0.6 * u)]
    np.testing.assert_allclose(np.column_stack(out["line"].get_data()), ends, atol=1e-12)
    assert out["label"].get_text() == r"$\mathbf{k}$"
    with pytest.raises(ValueError, match="zero vector"):
        S.draw_revolute_oblique(ax, V, (0, 0, 0), (0, 0, 0))


def test_oblique_arc_turns_from_start_by_the_angle(ax):
    V = S.oblique(-90.0, 0.0)                  # looking along +y: x right, z up
    out = S.draw_arc_oblique(ax, V, (0, 0, 0), (0, -1, 0), (1, 0, 0), np.pi / 2, radius=2.0, label=r"$\psi$")
    x, y = out["arc"].get_data()
    np.testing.assert_allclose([x[0], y[0]], [2.0, 0.0], atol=1e-12)   # starts on +x
    np.testing.assert_allclose([x[-1], y[-1]], [0.0, 2.0], atol=1e-12)  # right-hand quarter turn about -y: +z
    assert out["head"] is not None and out["label"].get_text() == r"$\psi$"
    with pytest.raises(ValueError, match="parallel to the axis"):
        S.draw_arc_oblique(ax, V, (0, 0, 0), (0, 0, 1), (0, 0, 2), 1.0)


def test_rack_and_pinion_mesh_where_the_constraint_puts_them(ax):
    """The rack's pitch line touches the pitch circle on the right of the rack's axis (RackPinion's
    convention), the teeth lie between root and tip circles, and turning the pinion by one tooth moves the
    rack by one pitch 2πρ/N: the drawing at angle 2π/N is the drawing at 0 (in mesh as it rolls)."""
    c, rho, N, axis = np.array([1.0, 2.0]), 0.5, 12, np.pi / 2     # rack along +y: the pinion on its left
    out = S.draw_rack_pinion(ax, c, rho, angle=0.0, axis=axis, teeth=N)
    np.testing.assert_allclose(out["pitch_point"], c + [rho, 0.0], atol=1e-12)   # right of u = +y: +x
    m = 2 * rho / N
    r = np.hypot(*(out["pinion"].get_xy() - c).T)
    assert r.min() == pytest.approx(rho - 1.25 * m) and r.max() == pytest.approx(rho + m)
    teeth = out["rack_teeth"]
    np.testing.assert_allclose(teeth[:, 0], c[0] + rho)                          # on the pitch line
    assert np.isclose(np.abs(teeth[:, 1] - out["pitch_point"][1]), 0.0).any()    # a tooth at the pitch point
    turned = S.draw_rack_pinion(ax, c, rho, angle=2 * np.pi / N, axis=axis, teeth=N)
    pitch = 2 * np.pi * rho / N
    np.testing.assert_allclose(turned["rack_teeth"], out["rack_teeth"] + [0.0, pitch], atol=1e-12)
    a, b = (np.round(p["pinion"].get_xy(), 12) for p in (out, turned))
    assert {tuple(x) for x in a} == {tuple(x) for x in b}                         # the same teeth, one on
    with pytest.raises(ValueError, match="at least 6 teeth"):
        S.draw_rack_pinion(ax, c, rho, teeth=3)


# ---------------------------------------------------------------- spatial schematics (chapter 7)
def test_oblique_vector_is_the_projected_vector_and_end_on_is_a_dot(ax):
    V = S.oblique(-50.0, 25.0)
    out = S.draw_vector_oblique(ax, V, (0.1, 0.2, 0.3), (0.5, -0.2, 0.4), r"$\mathbf{f}_i$")
    tail, head = out["arrow"]._posA_posB
    np.testing.assert_allclose(tail, V @ [0.1, 0.2, 0.3], atol=1e-12)
    np.testing.assert_allclose(np.subtract(head, tail), V @ [0.5, -0.2, 0.4], atol=1e-12)
    assert out["label"].get_text() == r"$\mathbf{f}_i$"
    toward_viewer = np.cross(V[0], V[1])             # a vector along the line of sight: a dot, not an arrow
    dot = S.draw_vector_oblique(ax, V, (0, 0, 0), 0.3 * toward_viewer)["arrow"]
    np.testing.assert_allclose(np.ravel(dot.get_xydata()), [0.0, 0.0], atol=1e-12)


def test_oblique_circle_lies_in_its_plane_at_its_radius(ax):
    V = S.oblique(-60.0, 20.0)
    axis = np.array([0.3, -0.5, 0.8])
    out = S.draw_circle_oblique(ax, V, (1.0, 2.0, 0.5), axis, 0.4, fill="#9ecae1")
    rim = out["points"]
    np.testing.assert_allclose(np.linalg.norm(rim - [1.0, 2.0, 0.5], axis=1), 0.4, atol=1e-12)
    np.testing.assert_allclose((rim - [1.0, 2.0, 0.5]) @ axis, 0.0, atol=1e-12)
    np.testing.assert_allclose(out["rim"].get_xydata()[:-1], rim @ V.T, atol=1e-12)
    assert out["disk"] is not None
    with pytest.raises(ValueError, match="radius must be positive"):
        S.draw_circle_oblique(ax, V, (0, 0, 0), (0, 0, 1), -1.0)


def test_oblique_box_has_twelve_edges_of_the_box(ax):
    V = S.oblique(-60.0, 20.0)
    A = S.rot2(0.4)
    A3 = np.eye(3)
    A3[:2, :2] = A
    out = S.draw_box_oblique(ax, V, (0.5, 0.0, 0.2), A3, half=(0.3, 0.2, 0.1))
    assert len(out["edges"]) == 12
    lengths = sorted(np.linalg.norm(np.diff(e.get_xydata(), axis=0)) for e in out["edges"])
    # each edge is a body axis of length 2 * half, projected: compare with V @ (2 half_k A e_k)
    expected = sorted(float(np.linalg.norm(V @ (2 * h * A3[:, k]))) for k, h in enumerate((0.3, 0.2, 0.1))
                      for _ in range(4))
    np.testing.assert_allclose(lengths, expected, atol=1e-12)


def test_right_angle_mark_refuses_a_false_right_angle(ax):
    V = S.oblique()
    out = S.draw_right_angle_oblique(ax, V, (0, 0, 0), (1, 0, 0), (0, 0, 2), size=0.1)
    np.testing.assert_allclose(out["mark"].get_xydata()[1], V @ [0.1, 0.0, 0.1], atol=1e-12)
    with pytest.raises(ValueError, match="not perpendicular"):
        S.draw_right_angle_oblique(ax, V, (0, 0, 0), (1, 0, 0), (1, 1, 0))


def _joint_pair(kind, rng):
    """Two bodies joined by one joint of this kind, then moved to a random pose the joint allows: body j
    turned about the joint axis (and slid along it) relative to body i, both turned by a random rotation."""
    from mbdlib.rotations import dcm_from_axis_angle, quat_from_dcm
    from mbdlib.spatial import SpatialModel

    m = SpatialModel()
    lift = 0.25 if kind in ("cylindrical", "prismatic") else 0.0
    m.add_body("i", (-0.4, 0.0, 0.0))
    m.add_body("j", (0.4, 0.0, lift))
    if kind == "distance":
        joint = m.add_distance("i", "j", (0.25, 0, 0), (-0.25, 0, 0))
    elif kind == "universal":
        joint = m.add_universal("i", "j", (0.4, 0, 0), (-0.4, 0, 0), axis_i=(0, 1, 0), axis_j=(0, 0, 1))
    elif kind == "spherical":
        joint = m.add_spherical("i", "j", (0.4, 0, 0), (-0.4, 0, 0))
    else:
        joint = getattr(m, f"add_{kind}")("i", "j", (0.4, 0, 0), (-0.4, 0, 0), axis_i=(0, 0, 1))
    R = dcm_from_axis_angle(rng.normal(size=3), rng.uniform(0, 3))
    turn = 0.0 if kind == "prismatic" else rng.uniform(-1, 1)
    Rj = R @ dcm_from_axis_angle(np.array([0.0, 0.0, 1.0]), turn)
    if kind in ("spherical", "distance"):
        Rj = R
    si = np.array([0.25 if kind == "distance" else 0.4, 0.0, 0.0])
    slide = rng.uniform(0.1, 0.4) if kind in ("cylindrical", "prismatic") else 0.0
    gap = np.array([0.3, 0.0, 0.0]) if kind == "distance" else np.array([0.0, 0.0, slide])
    q = m.q_guess()
    q[0:3], q[3:7] = 0.0, quat_from_dcm(R)                  # body i at the origin, turned by R
    P_j = R @ si + R @ gap                                  # slid along the axis (or the rod's length away)
    q[7:10], q[10:14] = P_j - Rj @ (-si), quat_from_dcm(Rj)
    return m, joint, q


JOINT_KINDS = ["spherical", "universal", "revolute", "cylindrical", "prismatic", "distance"]


@pytest.mark.parametrize("kind", JOINT_KINDS)
def test_spatial_joint_drawn_with_the_vectors_its_equations_keep(ax, kind):
    """At a pose the joint allows (its equations hold), the drawn vectors satisfy the printed conditions:
    every pair named by a row is perpendicular, P_i = P_j where the joint has a ball, and there is one
    condition per row (the ball's three rows as one)."""
    rng = np.random.default_rng(3)
    m, joint, q = _joint_pair(kind, rng)
    np.testing.assert_allclose(joint.phi(q), 0.0, atol=1e-12)
    out = S.draw_spatial_joint(ax, S.oblique(), m, joint, q)
    vec, P = out["vectors"], out["points"]
    names = [lab.split(joint.name, 1)[1].strip() for lab in joint.labels]
    for name in names:
        if name in S.JOINT_ROW_VECTORS:
            a, b = S.JOINT_ROW_VECTORS[name]
            assert abs(vec[a] @ vec[b]) < 1e-12, (name, vec[a], vec[b])
    ball = {"x", "y", "z"} <= set(names)
    assert (np.linalg.norm(P["P_j"] - P["P_i"]) < 1e-12) == ball
    assert len(out["conditions"]) == len(names) - (2 if ball else 0)
    for sym, arrow in out["arrows"].items():
        assert arrow["label"].get_text().startswith("$"), sym
    ax.figure.canvas.draw()


def test_spatial_joint_drawing_refuses_a_joint_of_another_model(ax):
    from mbdlib.spatial import SpatialModel

    a, b = SpatialModel(), SpatialModel()
    for m in (a, b):
        m.add_body("i")
        m.add_body("j", (1.0, 0.0, 0.0))
    joint = a.add_revolute("i", "j", (0.5, 0, 0), (-0.5, 0, 0))
    with pytest.raises(ValueError, match="not a joint of this model"):
        S.draw_spatial_joint(ax, S.oblique(), b, joint)


def test_contact_frame_and_gap(ax):
    """The normal is the unit of the given direction, the tangent turned by −90° from it (t, n like x, y),
    and the gap's dimension line is parallel to n with the gap's length."""
    out = S.draw_contact(ax, (1.0, 0.5), (0.0, 2.0), gap=0.3, length=0.5)
    tail, head = out["normal"]["arrow"]._posA_posB
    np.testing.assert_allclose(np.subtract(head, tail), [0.0, 0.5], atol=1e-12)
    tail, head = out["tangent"]["arrow"]._posA_posB
    np.testing.assert_allclose(np.subtract(head, tail), [0.5, 0.0], atol=1e-12)
    xs, ys = out["gap"].get_data()
    assert xs[0] == pytest.approx(xs[1]) and ys[1] - ys[0] == pytest.approx(0.3)
    assert out["label"].get_text() == "g"
    assert S.draw_contact(ax, (0, 0), (1, 0))["gap"] is None
    with pytest.raises(ShapeError):
        S.draw_contact(ax, (0, 0), (0, 0))


@pytest.mark.parametrize("mu", [0.0, 0.3, 1.0, 2.5])
def test_friction_cone_opens_by_atan_mu_about_the_normal(ax, mu):
    normal = np.array([0.6, 0.8])
    out = S.draw_friction_cone(ax, (0.2, 0.1), normal, mu, length=0.7, label="μ")
    for line in out["edges"]:
        (x0, x1), (y0, y1) = line.get_data()
        edge = np.array([x1 - x0, y1 - y0])
        assert np.hypot(*edge) == pytest.approx(0.7)
        assert np.arccos(edge @ normal / 0.7) == pytest.approx(np.arctan(mu), abs=1e-12)
    e0, e1 = (np.subtract(*np.array(line.get_data()).T[::-1]) for line in out["edges"])
    def cross(a, b):
        return a[0] * b[1] - a[1] * b[0]

    assert cross(normal, e0) * cross(normal, e1) <= 1e-15                # one edge on each side
    assert len(out["cone"].get_xy()) >= 3 and out["label"].get_text() == "μ"
    with pytest.raises(ShapeError, match="friction coefficient"):
        S.draw_friction_cone(ax, (0, 0), (0, 1), -0.1)
