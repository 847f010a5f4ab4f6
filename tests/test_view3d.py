"""mbdlib.view3d: shapes, pose packing, input validation and the player's HTML (the browser side is checked by
tools/check_book.py, tested on fixture pages in tests/test_book.py)."""

from __future__ import annotations

import base64
import io
import json
import re

import numpy as np
import pytest
from PIL import Image

from mbdlib.errors import ModelError, RotationError, ShapeError
from mbdlib.view3d import (
    THREE_PATH,
    Axes,
    Box,
    Cone,
    Cylinder,
    Disk,
    Line,
    Scene3D,
    Sphere,
    Trace,
    _quaternions,
    _rotations_from_quaternions,
)

RNG = np.random.default_rng(7)


def random_rotations(n: int) -> np.ndarray:
    q = RNG.normal(size=(n, 4))
    return _rotations_from_quaternions(q)  # normalised inside


def spin(t: np.ndarray, axis: int = 2) -> np.ndarray:
    """Rotations by angle t about a coordinate axis, (n, 3, 3)."""
    c, s = np.cos(t), np.sin(t)
    i, j = [k for k in range(3) if k != axis]
    A = np.zeros((len(t), 3, 3))
    A[:, axis, axis] = 1
    A[:, i, i], A[:, i, j], A[:, j, i], A[:, j, j] = c, -s, s, c
    return A


def transforms(r: np.ndarray, A: np.ndarray) -> np.ndarray:
    T = np.zeros((len(r), 4, 4))
    T[:, :3, :3], T[:, :3, 3], T[:, 3, 3] = A, r, 1.0
    return T


@pytest.fixture
def arm() -> Scene3D:
    return Scene3D([Box("link1", size=(0.3, 0.05, 0.05), at=(0.15, 0, 0)),
                    Cylinder("joint1", radius=0.03, length=0.08, body="link1"),
                    Sphere("tip", radius=0.02, body="link2", at=(0.2, 0, 0)),
                    Trace("tip path", body="link2", point=(0.2, 0, 0)),
                    Trace("free path")])


# --- shapes ---------------------------------------------------------------------------------------------


def test_the_primitive_set_and_its_page_specs():
    parts = [Box("b", size=(1, 2, 3), color="tab:red"), Cylinder("c", radius=0.1, length=0.5, axis="x"),
             Disk("d", radius=0.2), Cone("k", radius=0.1, length=0.3, axis="-y"), Sphere("s", radius=0.4),
             Line("l", points=[(0, 0, 0), (1, 0, 0), (1, 1, 0)]), Axes("a", length=0.2)]
    specs = {p.name: p.spec() for p in parts}
    assert [specs[n]["k"] for n in "bcdksla"] == ["box", "cyl", "cyl", "cone", "sph", "line", "axes"]
    assert specs["b"]["s"] == [1, 2, 3] and specs["b"]["c"] == "#d62728"
    assert specs["s"]["r"] == 0.4 and specs["a"]["l"] == 0.2 and len(specs["l"]["p"]) == 9
    # every shape is placed by a column-major 4x4 (three.js Matrix4.fromArray)
    assert all(len(s["m"]) == 16 and s["m"][15] == 1 for s in specs.values())
    # axial shapes are along the local z of their offset: "x" turns z onto x
    c = parts[1]
    assert np.allclose(c.offset[:3, :3] @ [0, 0, 1], [1, 0, 0])
    assert np.allclose(parts[3].offset[:3, :3] @ [0, 0, 1], [0, -1, 0])
    # a disk is a thin cylinder with a stripe (its spin shows); a plain cylinder has none
    d = parts[2]
    assert d.length == pytest.approx(0.2 / 8) and "mk" in specs["d"] and "mk" not in specs["c"]
    # bounding spheres (body frame): a cone's centre is half-way along its axis
    centre, radius = parts[3].bounds()
    assert np.allclose(centre, [0, -0.15, 0]) and radius == pytest.approx(np.hypot(0.1, 0.15))
    assert parts[0].bounds()[1] == pytest.approx(0.5 * np.sqrt(14))


def test_cylinder_between_two_points():
    rod = Cylinder.between("rod", (0, 0, 0), (0, 0.3, 0.4), radius=0.01)
    assert rod.length == pytest.approx(0.5)
    assert np.allclose(rod.offset[:3, 3], [0, 0.15, 0.2])
    assert np.allclose(rod.offset[:3, :3] @ [0, 0, 1], [0, 0.6, 0.8])
    assert np.allclose(rod.offset[:3, :3].T @ rod.offset[:3, :3], np.eye(3))
    with pytest.raises(ModelError, match="start and end are the same point"):
        Cylinder.between("rod", (1, 2, 3), (1, 2, 3))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Box("b", size=(1, -2, 3)), r"Box 'b': size\[1\] must be a positive number"),
    (lambda: Box("b", size=(1, 2)), r"Box 'b': size must be 3 numbers"),
    (lambda: Sphere("s", radius=0), "Sphere 's': radius must be a positive number"),
    (lambda: Cylinder("c", axis="w"), "Cylinder 'c': axis 'w' is not 'x', 'y', 'z'"),
    (lambda: Cylinder("c", axis=(0, 0, 0)), "Cylinder 'c': axis is the zero vector"),
    (lambda: Box("b", color="blu"), "Box 'b': color 'blu' is not a colour"),
    (lambda: Box("b", opacity=0), r"Box 'b': opacity must be in \(0, 1\]"),
    (lambda: Box("b", at=(0, np.nan, 0)), "Box 'b': at has a NaN"),
    (lambda: Box("b", rotation=np.diag([1, 1, -1])), "Box 'b': rotation is not a rotation matrix"),
    (lambda: Box(""), "give the shape a name"),
    (lambda: Line("l", points=[(0, 0, 0)]), r"Line 'l': points must have shape \(k, 3\) with k >= 2"),
    (lambda: Trace("p", body="b"), "Trace 'p': give both body= and point="),
    (lambda: Trace("p", tail=-1), "Trace 'p': tail must be a positive duration"),
])
def test_a_bad_shape_is_named_in_its_error(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_bad_scene_is_named_in_its_error():
    with pytest.raises(ModelError, match="two items are named 'a'"):
        Scene3D([Box("a"), Sphere("a")])
    with pytest.raises(ModelError, match="body 'nowhere' has no shape in this scene"):
        Scene3D([Box("a"), Trace("p", body="nowhere", point=(0, 0, 0))])
    with pytest.raises(ModelError, match="up must be 'z' or 'y'"):
        Scene3D([Box("a")], up="x")
    with pytest.raises(ModelError, match="at least one shape"):
        Scene3D([])
    with pytest.raises(ModelError, match="not a shape or a Trace"):
        Scene3D([Box("a"), "b"])
    with pytest.raises(ModelError, match="ground must be True, False or a height"):
        Scene3D([Box("a")], ground="floor")


# --- poses: the forms accepted, the packing round trip ----------------------------------------------------


def test_quaternions_of_rotations_round_trip_including_half_turns():
    half_turns = np.array([np.diag(d) for d in ([1, -1, -1], [-1, 1, -1], [-1, -1, 1])])
    A = np.concatenate([random_rotations(200), half_turns, np.eye(3)[None]])
    q = _quaternions(A)
    assert np.allclose(np.linalg.norm(q, axis=1), 1)
    assert np.allclose(_rotations_from_quaternions(q), A, atol=1e-12)


def test_pose_packing_round_trip(arm):
    n = 50
    t = np.linspace(0, 2, n)
    r1 = RNG.normal(scale=0.5, size=(n, 3))
    A1, A2 = random_rotations(n), random_rotations(n)
    r2 = r1 + np.einsum("kij,j->ki", A1, [0.3, 0, 0])
    free = RNG.normal(size=(n, 3))
    player = arm.play(t, {"link1": transforms(r1, A1), "link2": (r2, A2)}, traces={"free path": free},
                      poster=False)
    shown = player.poses_as_shown()
    extent = np.abs(np.concatenate([r1, r2, free]) - player.origin).max()
    assert player.scale == pytest.approx(extent / 32767)
    for name, (r, A) in {"link1": (r1, A1), "link2": (r2, A2)}.items():
        T = shown[name]
        assert T.shape == (n, 4, 4)
        assert np.abs(T[:, :3, 3] - r).max() <= 0.5 * player.scale * (1 + 1e-9)  # half a grid step
        assert np.abs(T[:, :3, :3] - A).max() < 2e-4  # int16 quaternions: a few 1e-5 rad
    traces = player.traces_as_shown()
    assert np.abs(traces["free path"] - free).max() <= 0.5 * player.scale * (1 + 1e-9)
    tip = r2 + np.einsum("kij,j->ki", A2, [0.2, 0, 0])  # a body point's trace comes from its poses
    assert np.abs(traces["tip path"] - tip).max() <= 0.5 * player.scale * (1 + 1e-9)


def test_every_pose_form_gives_the_same_player():
    n = 20
    t = np.linspace(0, 1, n)
    r = np.column_stack([np.cos(t), np.sin(t), t])
    A = spin(2 * t)
    half = np.column_stack([np.cos(t), np.zeros(n), np.zeros(n), np.sin(t)])  # Euler parameters e0..e3
    scene = Scene3D([Box("b")])
    html = {form: scene.play(t, {"b": poses}, poster=False).to_html() for form, poses in {
        "transforms": transforms(r, A), "pair": (r, A), "euler parameters": (r, half),
        "list of transforms": list(transforms(r, A))}.items()}
    assert len(set(html.values())) == 1, "the same motion in another form must give the same page"
    still = scene.play(t, {"b": (r, None)}, poster=False).poses_as_shown()["b"]
    assert np.allclose(still[:, :3, :3], np.eye(3))


def test_a_body_that_does_not_move_is_stored_once(arm):
    n = 30
    t = np.linspace(0, 1, n)
    T = np.eye(4)
    T[:3, 3] = (0.1, 0.2, 0.3)
    moving = transforms(np.zeros((n, 3)), spin(t))
    player = arm.play(t, {"link1": np.repeat(T[None], n, axis=0), "link2": moving},
                      traces={"free path": np.zeros((n, 3))}, poster=False)
    shown = player.poses_as_shown()
    assert shown["link1"].shape == (1, 4, 4) and np.allclose(shown["link1"][0][:3, 3], T[:3, 3], atol=1e-5)
    assert shown["link2"].shape == (n, 4, 4)
    one = arm.play(t, {"link1": T, "link2": moving}, traces={"free path": np.zeros((n, 3))}, poster=False)
    assert one.poses_as_shown()["link1"].shape == (1, 4, 4)
    # a body without poses stays at the origin
    rest = arm.play(t, {"link2": moving}, traces={"free path": np.zeros((n, 3))}, poster=False)
    assert np.allclose(rest.poses_as_shown()["link1"], np.eye(4), atol=1e-5)


# --- validation of play() -------------------------------------------------------------------------------

N = 10
T_OK = np.linspace(0, 1, N)
FREE = {"free path": np.zeros((N, 3))}


def _still(n: int = N) -> np.ndarray:
    return np.repeat(np.eye(4)[None], n, axis=0)


def _with(k: int, i: tuple, value) -> np.ndarray:
    T = _still()
    T[(k, *i)] = value
    return T


@pytest.mark.parametrize(("poses", "traces", "error", "message"), [
    ({"link1": np.zeros((N, 3, 4))}, FREE, ShapeError,
     r"poses\['link1'\] must be homogeneous transforms of shape \(n, 4, 4\)"),
    ({"link1": _still(N + 1)}, FREE, ShapeError,
     r"poses\['link1'\]: transforms have 11 frames but t has 10; give one pose per time of t"),
    ({"link1": (np.zeros((N - 1, 3)), None)}, FREE, ShapeError, r"positions have 9 frames but t has 10"),
    ({"link1": (np.zeros((N, 2)), None)}, FREE, ShapeError, r"positions must have shape \(n, 3\)"),
    ({"link1": (np.zeros((N, 3)), np.zeros((N, 3)))}, FREE, ShapeError,
     r"rotations must have shape \(n, 3, 3\) .* or \(n, 4\) \(Euler parameters"),
    ({"link1": _with(4, (0, 3), np.nan)}, FREE, ShapeError,
     r"poses\['link1'\] has a NaN or infinite entry at frame 4; .*did the simulation fail"),
    ({"link1": _with(6, (0, 0), 1.01)}, FREE, RotationError,
     r"poses\['link1'\]: the rotation at frame 6 is not orthonormal .*re-orthonormalise"),
    ({"link1": _with(2, (2, 2), -1.0)}, FREE, RotationError,
     r"poses\['link1'\]: the rotation at frame 2 has determinant -1: a reflection"),
    ({"link1": _with(3, (3, 0), 0.5)}, FREE, ShapeError, r"frame 3 has last row .* not \[0, 0, 0, 1\]"),
    ({"link1": (np.zeros((N, 3)), np.tile([1.0, 0.1, 0, 0], (N, 1)))}, FREE, RotationError,
     r"Euler parameters at frame 0 have norm 1.00499, not 1 .* normalise them"),
    ({"elbow": _still()}, FREE, ModelError,
     r"poses\['elbow'\]: no shape is on a body 'elbow'; the scene's bodies are \['link1', 'link2'\]"),
    ({"link1": "ten poses"}, FREE, ShapeError, r"poses\['link1'\] must be an array of numbers"),
    ({}, {}, ModelError, r"Trace 'free path': give its points, play\(..., traces="),
    ({}, {**FREE, "apex": np.zeros((N, 3))}, ModelError, r"traces\['apex'\]: the scene has no Trace named"),
    ({}, {**FREE, "tip path": np.zeros((N, 3))}, ModelError, r"is a point of body 'link2', computed from"),
    ({}, {"free path": np.zeros((N, 2))}, ShapeError, r"traces\['free path'\] must have shape \(n, 3\)"),
    ({}, {"free path": np.full((N, 3), np.inf)}, ShapeError, r"traces\['free path'\] has a NaN or infinite"),
])
def test_play_rejects_bad_poses_naming_the_body_and_the_remedy(arm, poses, traces, error, message):
    with pytest.raises(error, match=message):
        arm.play(T_OK, poses, traces=traces, poster=False)


@pytest.mark.parametrize(("t", "message"), [
    (np.array([0.0, 0.1, 0.1]), r"t must increase: t\[2\] = 0.1 is not after t\[1\] = 0.1"),
    (np.array([0.0, np.nan]), "t has a NaN or infinite entry"),
    (np.zeros((2, 2)), r"t must be a 1-D array of times \(n,\)"),
])
def test_play_rejects_bad_times(arm, t, message):
    with pytest.raises(ShapeError, match=message):
        arm.play(t, {}, traces={"free path": np.zeros((len(t), 3))}, poster=False)


def test_play_rejects_bad_options(arm):
    with pytest.raises(ModelError, match="speed must be positive"):
        arm.play(T_OK, {}, traces=FREE, speed=0)
    with pytest.raises(ShapeError, match=r"start must be a frame number 0..9"):
        arm.play(T_OK, {}, traces=FREE, start=10)
    with pytest.raises(ShapeError, match="poses must be a dict"):
        arm.play(T_OK, [_still()], traces=FREE)


def test_a_small_drift_of_the_rotations_is_accepted_and_rotation_tol_tightens_it(arm):
    T = _with(5, (0, 0), 1 + 2e-4)  # a simulation's drift, far below what drawing can show
    arm.play(T_OK, {"link1": T}, traces=FREE, poster=False)
    with pytest.raises(RotationError, match="not orthonormal"):
        arm.play(T_OK, {"link1": T}, traces=FREE, poster=False, rotation_tol=1e-6)


# --- the page -------------------------------------------------------------------------------------------


def _payload(html: str) -> dict:
    found = re.search(r'<script type="application/json" class="mbd-view3d-data">(.*?)</script>', html)
    return json.loads(found.group(1).replace("<\\/", "</"))


def test_the_html_is_a_player_that_loads_the_vendored_three_js_and_nothing_remote(arm):
    n = 40
    t = np.linspace(0, 2, n)
    player = arm.play(t, {"link1": transforms(np.zeros((n, 3)), spin(t))},
                      traces={"free path": np.zeros((n, 3))}, title="A </script> title")
    html = player.to_html()
    assert html == player._repr_html_() == player.to_html()  # also: deterministic
    # the markup the page tests recognise: a motion (mbd-player) in 3-D
    assert re.match(r'<div class="mbd-player mbd-player-3d" id="mbd-view3d-[0-9a-f]{12}" '
                    r'data-mbd-kind="animation3d" data-mbd-state="loading"', html)
    assert 'type="range"' in html and f'max="{n - 1}"' in html and "mbd-player-play" in html
    # three.js is a shared vendored file under the content root, never inlined; no URL of the network
    data = _payload(html)
    assert data["three"] == THREE_PATH == "_static/vendor/three/three-orbit.js"
    assert data["jupyter"] == "files/book/_assets/vendor/three/three-orbit.js"
    assert "data-content_root" in html and "jupyter-config-data" in html
    assert not re.search(r"https?://", html), re.search(r".{40}https?://.{40}", html)
    assert "Three.js Authors" not in html and player.nbytes < 60_000
    # the title is escaped, and no "</script>" closes the data early
    assert "A &lt;/script&gt; title" in html and html.count("</script>") == 2
    assert data["n"] == n and len(base64.b64decode(data["t"])) == 4 * n
    assert [b["name"] for b in data["bodies"]] == ["link1", "link2"]
    assert [tr["name"] for tr in data["traces"]] == ["tip path", "free path"]
    # the poster: a still of the first frame, shown where the 3-D view cannot run
    poster = Image.open(io.BytesIO(player.poster_png()))
    assert poster.size == (640, 400) and len(poster.getcolors(4096)) > 8
    assert 'class="mbd-view3d-poster"' in html and "mbd-view3d-message" in html
    bare = arm.play(t, {}, traces={"free path": np.zeros((n, 3))}, poster=False)
    assert 'class="mbd-view3d-poster"' not in bare.to_html() and bare.poster_png() is None


def test_the_default_camera_frames_the_whole_motion():
    n = 60
    t = np.linspace(0, 1, n)
    r = np.column_stack([2 * np.cos(2 * np.pi * t), 2 * np.sin(2 * np.pi * t), np.ones(n)])
    player = Scene3D([Sphere("ball", radius=0.1)], axes=False).play(t, {"ball": (r, None)}, poster=False)
    cam = player.camera
    assert np.allclose(cam["target"], [0, 0, 1], atol=0.02)
    assert cam["radius"] == pytest.approx(0.5 * np.linalg.norm([4.2, 4.2, 0.2]), rel=0.01)
    d = cam["position"] - cam["target"]
    az, el = np.degrees(np.arctan2(d[1], d[0])), np.degrees(np.arcsin(d[2] / np.linalg.norm(d)))
    assert az == pytest.approx(-60) and el == pytest.approx(30)  # matplotlib's default view, as the poster
    # every body point is inside the view cone
    fov = np.radians(35) / 2
    for p in r:
        v = p - cam["position"]
        assert np.arccos(v @ -d / np.linalg.norm(v) / np.linalg.norm(d)) < fov
    assert player.ground_height == 0.0
    y_up = Scene3D([Sphere("ball", radius=0.1)], up="y").play(t, {"ball": (r, None)}, poster=False)
    assert y_up.camera["position"][1] > y_up.camera["target"][1]  # looking down on the y-up ground


def test_the_time_readout_matches_javascripts_tofixed():
    player = Scene3D([Box("b")]).play(np.arange(0, 0.2, 0.025), {}, poster=False)
    assert player.decimals == 2
    assert player.time_label(5) == "0.13 s"  # 0.125 exactly: toFixed rounds a half up (Python's format: 0.12)
    assert Scene3D([Box("b")]).play(np.linspace(0, 1, 1001), {}, poster=False).decimals == 3


def test_a_long_motion_of_many_bodies_stays_within_a_page():
    n, nb = 2000, 20
    t = np.linspace(0, 20, n)
    parts = [Box(f"b{k}", size=(0.2, 0.05, 0.05)) for k in range(nb)]
    poses = {f"b{k}": (RNG.normal(size=(n, 3)), spin(t + k)) for k in range(nb)}
    player = Scene3D(parts).play(t, poses, poster=False)
    # 14 bytes a body a frame, base64: ~0.75 MB (the check_book page limit is 5 MB)
    assert 0.7e6 < player.nbytes < 0.8e6


def test_one_frame_is_a_still_to_turn_without_play_or_slider():
    scene = Scene3D([Box("base"), Cylinder.between("rod", (0, 0, 0), (0.2, 0.1, 0.4), body="base")])
    html = scene.play([0.0], {}, poster=False).to_html()
    assert 'data-mbd-kind="view3d"' in html and "mbd-view3d-reset" in html
    assert 'class="mbd-player-play"' not in html and 'type="range"' not in html


def test_the_poster_draws_quietly_under_the_course_style():
    """The course style turns on matplotlib's constrained layout; the poster's full-figure axes must not make
    it warn (a warning would print into the book next to the player)."""
    import warnings

    import matplotlib.pyplot as plt

    from mbdlib import plotting

    with plt.rc_context():
        plotting.use_course_style()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            player = Scene3D([Box("b")], ground=True).play(np.linspace(0.0, 1.0, 3), {})
    assert player.poster_png()[:4] == b"\x89PNG"
