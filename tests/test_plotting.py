"""mbdlib.plotting draws what it is asked to, where it is asked to, and rejects bad input.

Positions are checked against independent constructions (scipy rotations, closed-form planar
arm geometry), not against the drawing code's own formulas.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from matplotlib.text import Annotation  # noqa: E402
from scipy.spatial.transform import Rotation  # noqa: E402

from mbdlib import kinematics, plotting  # noqa: E402
from mbdlib.errors import RotationError, ShapeError  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def ax3d():
    return plt.figure().add_subplot(projection="3d")


def ax2d():
    return plt.figure().add_subplot()


angles = st.lists(st.floats(-np.pi, np.pi, allow_nan=False), min_size=3, max_size=3)


# ------------------------------------------------------------------ style
def test_course_style_sets_the_book_defaults():
    with matplotlib.rc_context():
        plotting.use_course_style()
        rc = matplotlib.rcParams
        # drawn at the width of the book's text column (690 px at a 1280 px window): shown at 1:1 scale
        assert tuple(rc["figure.figsize"]) == (plotting.COLUMN_WIDTH, 4.3)
        assert rc["figure.dpi"] == 100 and round(plotting.COLUMN_WIDTH * rc["figure.dpi"]) == 690
        assert rc["axes.grid"] is True
        colours = [c["color"] for c in rc["axes.prop_cycle"]]
        assert colours[:3] == list(plotting.COURSE_COLORS[:3])
        # a new figure picks the style up
        fig, ax = plt.subplots()
        (line,) = ax.plot([0, 1], [0, 1])
        assert matplotlib.colors.same_color(line.get_color(), plotting.COURSE_COLORS[0])
        assert tuple(fig.get_size_inches()) == (plotting.COLUMN_WIDTH, 4.3)


# ------------------------------------------------------------------ 3-D frames and boxes
@settings(max_examples=25, deadline=None)
@given(angles)
def test_frame_axes_point_along_the_rotated_axes(euler):
    A = Rotation.from_euler("ZYX", euler).as_matrix()
    origin = np.array([0.3, -0.2, 0.5])
    ax = ax3d()
    art = plotting.draw_frame(ax, A, origin=origin, length=2.0)
    assert len(art["axes"]) == 3 and len(art["labels"]) == 3
    for k, text in enumerate(art["labels"]):
        # body axis k in global components, from scipy: the image of the unit vector e_k
        axis_k = Rotation.from_euler("ZYX", euler).apply(np.eye(3)[k])
        pos = np.array(text.get_position_3d())
        direction = (pos - origin) / np.linalg.norm(pos - origin)
        np.testing.assert_allclose(direction, axis_k, atol=1e-12)
    plt.close("all")


def test_frame_draws_three_arrows_and_optional_labels():
    ax = ax3d()
    before = len(ax.collections)
    art = plotting.draw_frame(ax, labels=None)
    assert len(ax.collections) - before == 3
    assert art["labels"] == [] and len(ax.texts) == 0


@pytest.mark.parametrize(
    ("A", "error", "match"),
    [
        (np.diag([1.0, 1.0, -1.0]), RotationError, "reflection"),
        (np.array([[1.0, 0.5, 0], [0, 1, 0], [0, 0, 1]]), RotationError, "not orthonormal"),
        (np.eye(2), RotationError, "3x3"),
    ],
)
def test_frame_rejects_a_matrix_that_is_not_a_rotation(A, error, match):
    with pytest.raises(error, match=match):
        plotting.draw_frame(ax3d(), A)


def test_frame_rejects_2d_axes_and_bad_arguments():
    with pytest.raises(TypeError, match="3-D axes"):
        plotting.draw_frame(ax2d(), np.eye(3))
    with pytest.raises(ValueError, match="length must be a positive"):
        plotting.draw_frame(ax3d(), np.eye(3), length=0.0)
    with pytest.raises(ShapeError, match="origin must have 3 components"):
        plotting.draw_frame(ax3d(), np.eye(3), origin=(0, 0))
    with pytest.raises(ValueError, match="labels must be 3"):
        plotting.draw_frame(ax3d(), np.eye(3), labels=("x", "y"))


@settings(max_examples=25, deadline=None)
@given(angles, st.tuples(*[st.floats(0.1, 3.0)] * 3))
def test_box_corners_are_the_rotated_corners_of_the_box(euler, size):
    rot = Rotation.from_euler("xyz", euler)
    centre = np.array([1.0, 2.0, -0.5])
    corners = plotting.box_vertices(rot.as_matrix(), centre, size)
    # independent construction: all sign combinations of the half sizes, rotated by scipy
    half = np.array(size) / 2
    expected = np.array([centre + rot.apply(np.array(s) * half)
                         for s in np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).reshape(3, -1).T])
    # same set of points (order-free comparison)
    d = np.linalg.norm(corners[:, None, :] - expected[None, :, :], axis=2)
    assert np.all(d.min(axis=1) < 1e-9) and np.all(d.min(axis=0) < 1e-9)


def test_box_is_one_collection_of_six_faces_with_a_coloured_nose():
    ax = ax3d()
    poly = plotting.draw_box(ax, size=(2.0, 1.0, 0.3))
    assert poly in ax.collections
    faces = poly.get_facecolor()
    assert len(faces) == 6
    # faces are depth-sorted for drawing, so count colours: one nose (+x), one top (+z), four sides
    def count(colour):
        return sum(matplotlib.colors.same_color(f[:3], matplotlib.colors.to_rgb(colour)) for f in faces)

    assert count(plotting.COURSE_COLORS[1]) == 1
    assert count(plotting.COURSE_COLORS[5]) == 1
    assert count(plotting.COURSE_COLORS[0]) == 4


def test_box_rejects_bad_size_and_2d_axes():
    with pytest.raises(ValueError, match="positive lengths"):
        plotting.draw_box(ax3d(), size=(1.0, 0.0, 1.0))
    with pytest.raises(ShapeError, match="size must have 3"):
        plotting.draw_box(ax3d(), size=(1.0, 1.0))
    with pytest.raises(TypeError, match="3-D axes"):
        plotting.draw_box(ax2d())


def test_set_axes_equal_gives_equal_ranges_around_the_data():
    ax = ax3d()
    ax.plot([0, 4], [1, 2], [-1, 0])
    plotting.set_axes_equal(ax)
    lims = np.array([ax.get_xlim3d(), ax.get_ylim3d(), ax.get_zlim3d()])
    spans = lims[:, 1] - lims[:, 0]
    np.testing.assert_allclose(spans, spans[0])
    assert lims[0, 0] <= 0 and lims[0, 1] >= 4          # the data are still inside
    with pytest.raises(TypeError, match="3-D axes"):
        plotting.set_axes_equal(ax2d())
    with pytest.raises(ValueError, match="zoom must be a positive"):
        plotting.set_axes_equal(ax3d(), zoom=0.0)


# ------------------------------------------------------------------ 2-D arrows and arms
def test_arrows_one_artist_per_nonzero_vector_pointing_the_right_way():
    ax = ax2d()
    arrows = plotting.draw_arrows(ax, [[0, 0], [1, 1], [2, 0]], [[1, 0], [0, 0], [0, -2]], scale=0.5)
    assert len(arrows) == 2 and all(isinstance(a, Annotation) for a in arrows)
    assert len(ax.get_legend_handles_labels()[1]) == 0          # no label: no legend entry
    np.testing.assert_allclose(arrows[1].xy, [2.0, -1.0])       # head = tail + scale * vector
    np.testing.assert_allclose(arrows[1].xyann, [2.0, 0.0])     # tail


def test_arrows_label_gives_one_legend_entry_for_all_arrows():
    ax = ax2d()
    plotting.draw_arrows(ax, [[0, 0], [1, 1]], [[1, 0], [0, 1]], label="velocity", linestyle="--")
    assert ax.get_legend_handles_labels()[1] == ["velocity"]


def test_arrows_reject_bad_shapes_and_nan():
    with pytest.raises(ShapeError, match=r"tails must have shape \(m, 2\)"):
        plotting.draw_arrows(ax2d(), [[0, 0, 0]], [[1, 0, 0]])
    with pytest.raises(ShapeError, match="vectors must have the shape of tails"):
        plotting.draw_arrows(ax2d(), [[0, 0], [1, 1]], [[1, 0]])
    with pytest.raises(ValueError, match="finite"):
        plotting.draw_arrows(ax2d(), [[0, 0]], [[np.nan, 0]])


def test_planar_chain_from_points_counts_artists():
    ax = ax2d()
    pts = [[0, 0], [1, 0], [1, 1], [0.5, 1.5]]
    art = plotting.draw_planar_chain(ax, pts, velocities=[[0, 0], [0, 1], [-1, 1], [-1.5, 0.5]],
                                     coms=[[0.5, 0], [1, 0.5], [0.75, 1.25]],
                                     com_velocities=[[0, 0.5], [-0.5, 1], [-1.2, 0.8]])
    np.testing.assert_allclose(art["links"].get_xydata(), pts)
    assert len(art["joints"].get_xdata()) == 3           # joints O1..O3, the tip is not a joint
    assert len(art["velocity_arrows"]) == 3              # O1 is fixed: no arrow
    assert len(art["com_velocity_arrows"]) == 3
    assert [t.get_text() for t in art["labels"]] == ["$O_1$", "$O_2$", "$O_3$", "$C_1$", "$C_2$", "$C_3$"]


def test_planar_chain_rejects_bad_input():
    with pytest.raises(ShapeError, match="at least 2 points"):
        plotting.draw_planar_chain(ax2d(), [[0, 0]])
    with pytest.raises(ValueError, match="not planar"):
        plotting.draw_planar_chain(ax2d(), [[0, 0, 0], [1, 0, 0.5]])
    with pytest.raises(ShapeError, match="one row per point"):
        plotting.draw_planar_chain(ax2d(), [[0, 0], [1, 0]], velocities=[[0, 1]])
    with pytest.raises(ValueError, match="without coms"):
        plotting.draw_planar_chain(ax2d(), [[0, 0], [1, 0]], com_velocities=[[0, 1]])
    with pytest.raises(ShapeError, match=r"\(m, 2\) or \(m, 3\)"):
        plotting.draw_planar_chain(ax2d(), [[0, 0, 0, 0], [1, 0, 0, 0]])
    with pytest.raises(ValueError, match="finite"):
        plotting.draw_planar_chain(ax2d(), [[0, 0], [np.inf, 0]])


def _planar_closed_form(lengths, q, qd):
    """Joint/tip positions and velocities of a planar arm, by hand: x_k = sum L_i cos(q_1+..+q_i)."""
    phi, phid = np.cumsum(q), np.cumsum(qd)
    pts, vel = [np.zeros(2)], [np.zeros(2)]
    for L, p, pd in zip(lengths, phi, phid, strict=True):
        pts.append(pts[-1] + L * np.array([np.cos(p), np.sin(p)]))
        vel.append(vel[-1] + L * pd * np.array([-np.sin(p), np.cos(p)]))
    return np.array(pts), np.array(vel)


def test_planar_chain_from_kinematics_matches_the_closed_form():
    from mbdlib.chain import Chain

    lengths, q, qd = [1.0, 0.8, 0.5], np.array([0.4, -0.9, 1.2]), np.array([0.5, -0.3, 0.8])
    kin = kinematics.forward_kinematics(Chain.planar(lengths), q, qd)
    ax = ax2d()
    art = plotting.draw_planar_chain(ax, kin, scale=1.0)
    pts, vel = _planar_closed_form(lengths, q, qd)
    np.testing.assert_allclose(art["links"].get_xydata(), pts, atol=1e-12)
    heads = np.array([a.xy for a in art["velocity_arrows"]])
    np.testing.assert_allclose(heads, (pts + vel)[1:], atol=1e-12)   # the base does not move
    assert len(art["com_velocity_arrows"]) == 3
    # without velocities: the arm and its centres only
    art = plotting.draw_planar_chain(ax2d(), kinematics.forward_kinematics(Chain.planar(lengths), q))
    assert art["velocity_arrows"] == [] and len(art["coms"].get_xdata()) == 3


def test_planar_chain_rejects_tip_with_points_and_symbolic_kinematics():
    import sympy as sp

    from mbdlib.chain import Chain

    with pytest.raises(ValueError, match="tip is only used with a ChainKinematics"):
        plotting.draw_planar_chain(ax2d(), [[0, 0], [1, 0]], tip=(1, 0, 0))
    q = sp.symbols("q1 q2")
    kin = kinematics.forward_kinematics(Chain.planar([1.0, 1.0]), q)
    with pytest.raises(TypeError, match="symbolic"):
        plotting.draw_planar_chain(ax2d(), kin)
