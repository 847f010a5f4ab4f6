"""Spatial motions to orbit and play in the static HTML book: precomputed poses, drawn by three.js.

A motion computed in Python (one pose per body per time step) becomes a small 3-D player in the page: a
▶/❚❚ button, a time slider with the time shown, and a camera the reader turns (drag), zooms (click, then
wheel or pinch) and pans (right-drag, shift-drag or two fingers); double-click or "⟲ view" restores the
view. Nothing is computed in the browser but the drawing: the page carries the poses (compactly, see below)
and the shapes, and loads three.js from the book's own ``_static/vendor/three/`` (vendored from the npm
registry by ``tools/vendor_js.sh``), so it works offline and from ``file://``. (Moore's *Learn Multibody
Dynamics* uses pythreejs, which needs a live kernel; here the poses are precomputed instead.)

Usage
-----
Shapes are given in their body's own frame; ``body=`` attaches several shapes to one body (default: the
shape's own name is its body)::

    from mbdlib.view3d import Box, Cylinder, Sphere, Scene3D, Trace
    scene = Scene3D([Box("link1", size=(0.30, 0.05, 0.05), at=(0.15, 0, 0), color="#0072B2"),
                     Cylinder("joint1", radius=0.03, length=0.08, axis="z", body="link1"),
                     Sphere("tip", radius=0.03, body="link1", at=(0.3, 0, 0)),
                     Trace("tip path", body="link1", point=(0.3, 0, 0))],
                    up="z", ground=True)
    scene.play(t, {"link1": T})        # t: (n,) times in s; T: (n, 4, 4) homogeneous transforms

A notebook cell ending with the player shows it (``_repr_html_``). The shapes: :class:`Box`,
:class:`Cylinder` (``Cylinder.between(name, p0, p1, radius)`` for a rod), :class:`Disk` (a thin cylinder
with a stripe, so that its spin shows), :class:`Cone` (apex at the body origin), :class:`Sphere`,
:class:`Line` (a polyline fixed in the body), :class:`Axes` (a body-fixed triad, x y z in red green blue)
and :class:`Trace` (the path of a point, drawn as it is travelled: a body point, or any points given to
``play(traces=...)``, e.g. a rolling disk's contact point).

Poses (``play(t, poses)``): a dict body name -> one of

* an ``(n, 4, 4)`` array of homogeneous transforms ``[[A, r], [0, 1]]`` (``A`` maps body components to
  global ones, ``r`` is the body origin, as everywhere in mbdlib);
* a pair ``(r, A)``: positions ``(n, 3)`` and direction cosine matrices ``(n, 3, 3)``, or Euler parameters
  ``(n, 4)`` (scalar first, ``(e0, e1, e2, e3)``), or ``None`` (no rotation);
* a single ``(4, 4)`` transform (a body that does not move).

A body without an entry stays at the global origin, unrotated (e.g. a fixed base). ``n`` must equal
``len(t)``; ``t`` must increase. Rotations must be orthonormal to ``rotation_tol`` (default 1e-3: what
drawing needs; normalise drifting Euler parameters first) with determinant +1. Every mistake (a wrong
shape, a NaN, a reflection, a frame count, an unknown name) raises a :class:`~mbdlib.errors.MbdError`
(a ``ValueError``) naming the body or argument and saying what to do.

What the page stores
--------------------
Poses are quantised to 16-bit integers and base64-encoded: positions on a grid of (scene size)/65534
(30 µm for a 2 m scene), unit quaternions to 1/32767 (a few 1e-5 rad); a body whose pose never changes is
stored once. A 20-body, 2000-frame motion is ~0.75 MB of page; three.js itself (0.7 MB) is a shared file,
never inlined. :meth:`Player3D.poses_as_shown` decodes the stored poses (what the reader sees).

Where it plays
--------------
* **The HTML book** (``make book``): the player finds ``_static/`` from ``<html data-content_root>``, so it
  works on pages at any depth. Alongside require.js (widget pages): three.js is a plain script defining the
  global ``mbdTHREE`` (see ``tools/vendor_js.sh``), not an AMD or ES module.
* **JupyterLab started by ``make lab``** (server root = the repository): the player loads the same file
  through the server's ``/files/book/_assets/vendor/three/`` route, so a freshly executed cell is live too
  (run ``make vendor`` once). Elsewhere (another server root, VS Code, an untrusted notebook, GitHub's
  notebook view) scripts cannot run or cannot find three.js: the output shows its **poster**, a still of the
  first frame (with each trace's whole path) drawn by matplotlib and embedded in the HTML, with one line
  saying that the orbitable view is in the HTML book; the controls stay disabled. ``window.MBD_THREE_URL``
  (set in the page) points the player to another copy of ``three-orbit.js``.
* **No WebGL** (a browser with it disabled; headless Chromium without ``--enable-unsafe-swiftshader``):
  the poster and a message saying so, never a blank canvas. Each player holds one WebGL context and browsers
  keep about 16 per page: a page should carry a handful of 3-D players, not dozens.

The output is deterministic for given poses; as for :class:`mbdlib.frames.FramePlayer`, mark a cell that
shows one ``# NBVAL_IGNORE_OUTPUT`` (its HTML embeds the poster, a PNG).

Performance: the page draws only when something changes (a frame, the camera, a resize) and, while
playing, once per display frame; a frame switch sets one position and quaternion per body from typed
arrays. Measured in headless Chromium (software WebGL, 800 x 500 canvas, 20 bodies, 2000 frames): 0.03 ms
to switch a frame, 1.5 ms to switch and draw it, so the slider is immediate and 60 fps (16.7 ms a frame)
is far off the limit. Play runs in real time (``speed`` scales it) and loops.

Like :mod:`mbdlib.frames` and :mod:`mbdlib.plotting`, this module sits on top of the library: nothing in the
core imports it.

Examples
--------
>>> import numpy as np
>>> t = np.linspace(0.0, 1.0, 5)
>>> A = np.array([[[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]] for a in t])
>>> scene = Scene3D([Box("arm", size=(0.5, 0.05, 0.05), at=(0.25, 0, 0))])
>>> player = scene.play(t, {"arm": (np.zeros((5, 3)), A)}, poster=False)
>>> player.n_frames, sorted(player.poses_as_shown())
(5, ['arm'])
>>> html = player.to_html()
>>> "mbd-player-3d" in html and "_static/vendor/three/three-orbit.js" in html and "https://" not in html
True
>>> scene.play(t[:4], {"arm": (np.zeros((5, 3)), A)})
Traceback (most recent call last):
...
mbdlib.errors.ShapeError: poses['arm']: positions have 5 frames but t has 4; give one pose per time of t
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from .errors import ModelError, RotationError, ShapeError

__all__ = ["Axes", "Box", "Cone", "Cylinder", "Disk", "Line", "Player3D", "Scene3D", "Sphere", "Trace",
           "THREE_PATH"]

#: Where the book keeps the vendored three.js (below its content root); tools/vendor_js.sh writes it.
THREE_PATH = "_static/vendor/three/three-orbit.js"
#: The same file seen through a Jupyter server whose root is the repository (``make lab``).
JUPYTER_PATH = "files/book/_assets/vendor/three/three-orbit.js"
#: Quantisation of the stored poses (int16).
_Q = 32767
_AXES = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}


# --- small helpers --------------------------------------------------------------------------------------


def _vec(x, n: int, name: str, what: str = "") -> np.ndarray:
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"{name} must be {n} numbers{what}, got {x!r}") from exc
    if a.shape != (n,):
        raise ShapeError(f"{name} must be {n} numbers{what}, shape ({n},); got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ShapeError(f"{name} has a NaN or infinite entry: {a.tolist()}; give finite numbers")
    return a


def _positive(x, name: str) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"{name} must be a positive number (metres), got {x!r}") from exc
    if not (math.isfinite(v) and v > 0):
        raise ModelError(f"{name} must be a positive number (metres), got {x!r}")
    return v


def _color(c, name: str) -> str:
    from matplotlib.colors import to_hex
    try:
        return to_hex(c)
    except (ValueError, TypeError) as exc:
        raise ModelError(f"{name}: color {c!r} is not a colour; give a name such as 'tab:blue' or a hex "
                         "string such as '#0072B2'") from exc


def _z_to(axis) -> np.ndarray:
    """A rotation matrix taking the z axis to ``axis`` (a unit vector)."""
    z = np.array([0.0, 0.0, 1.0])
    c = float(np.dot(z, axis))
    if c > 1 - 1e-12:
        return np.eye(3)
    if c < -1 + 1e-12:
        return np.diag([1.0, -1.0, -1.0])
    k = np.cross(z, axis)
    s = np.linalg.norm(k)
    k = k / s
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + s * K + (1 - c) * K @ K


def _axis(axis, name: str) -> np.ndarray:
    if isinstance(axis, str):
        if axis.lower().lstrip("+-") not in _AXES:
            raise ModelError(f"{name}: axis {axis!r} is not 'x', 'y', 'z' (or '-x', ...) or a 3-vector")
        a = np.array(_AXES[axis.lower().lstrip("+-")]) * (-1.0 if axis.startswith("-") else 1.0)
        return a
    a = _vec(axis, 3, f"{name}: axis")
    norm = np.linalg.norm(a)
    if norm < 1e-12:
        raise ModelError(f"{name}: axis is the zero vector; give the direction of the shape's axis")
    return a / norm


def _rotation(R, name: str, tol: float = 1e-6) -> np.ndarray:
    try:
        R = np.asarray(R, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"{name} must be a 3x3 rotation matrix, got {R!r}") from exc
    if R.shape != (3, 3):
        raise ShapeError(f"{name} must be a 3x3 rotation matrix, got shape {R.shape}")
    if not np.all(np.isfinite(R)) or np.abs(R.T @ R - np.eye(3)).max() > tol or np.linalg.det(R) < 0:
        raise RotationError(f"{name} is not a rotation matrix (orthonormal, determinant +1)")
    return R


def _dark(hex_color: str, f: float = 0.55) -> str:
    rgb = np.array([int(hex_color[i:i + 2], 16) for i in (1, 3, 5)]) * f
    return "#" + "".join(f"{int(round(v)):02x}" for v in rgb)


def _r6(x) -> list:
    """Floats rounded to 6 significant digits (JSON stays short and deterministic)."""
    return [float(f"{v:.6g}") for v in np.ravel(x)]


def _b64(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")


# --- shapes ---------------------------------------------------------------------------------------------


class Part:
    """A shape fixed in a body: its name, the body it belongs to, a colour and its place in the body frame.

    Not used directly: see :class:`Box`, :class:`Cylinder`, :class:`Disk`, :class:`Cone`, :class:`Sphere`,
    :class:`Line`, :class:`Axes`. ``at`` (3 numbers) and ``rotation`` (3x3) place the shape in its body's
    frame (default: at the origin, unrotated); axial shapes also take ``axis``.
    """

    kind = ""

    def __init__(self, name: str, color="#0072B2", body: str | None = None, at=(0.0, 0.0, 0.0),
                 rotation=None, opacity: float = 1.0):
        if not isinstance(name, str) or not name:
            raise ModelError(f"{type(self).__name__}: give the shape a name (a non-empty string), "
                             f"got {name!r}")
        self.name = name
        self.label = f"{type(self).__name__} {name!r}"
        self.body = name if body is None else str(body)
        self.color = _color(color, self.label)
        if not 0 < float(opacity) <= 1:
            raise ModelError(f"{self.label}: opacity must be in (0, 1], got {opacity!r}")
        self.opacity = float(opacity)
        self.offset = np.eye(4)
        self.offset[:3, 3] = _vec(at, 3, f"{self.label}: at", " (x, y, z in the body frame)")
        if rotation is not None:
            self.offset[:3, :3] = _rotation(rotation, f"{self.label}: rotation")

    def _orient(self, axis) -> None:
        self.offset[:3, :3] = self.offset[:3, :3] @ _z_to(_axis(axis, self.label))

    # what the page needs, and what the poster and the camera framing need
    def spec(self) -> dict:
        return {"k": self.kind, "c": self.color, "o": self.opacity, "m": _r6(self.offset.T), **self._dims()}

    def _dims(self) -> dict:
        return {}

    def bounds(self) -> tuple[np.ndarray, float]:
        """Centre (body frame) and radius of a sphere holding the shape."""
        return self.offset[:3, 3].copy(), self._radius()

    def _radius(self) -> float:
        return 0.0

    def mesh(self) -> list[np.ndarray]:
        """Polygons (each (k, 3), body frame) for the poster."""
        return [p @ self.offset[:3, :3].T + self.offset[:3, 3] for p in self._local_mesh()]

    def _local_mesh(self) -> list[np.ndarray]:
        return []

    def polylines(self) -> list[tuple[np.ndarray, str]]:
        """Lines (each (k, 3), body frame) and their colours, for the poster."""
        return []

    def __repr__(self) -> str:
        return f"{self.label} on body {self.body!r}"


class Box(Part):
    """A box of edge lengths ``size = (a, b, c)`` along the body's x, y, z, centred at ``at``."""

    kind = "box"

    def __init__(self, name: str, size=(0.1, 0.1, 0.1), **kw):
        super().__init__(name, **kw)
        size = _vec(size, 3, f"{self.label}: size", " (edge lengths along x, y, z)")
        self.size = tuple(_positive(s, f"{self.label}: size[{i}]") for i, s in enumerate(size))

    def _dims(self) -> dict:
        return {"s": _r6(self.size)}

    def _radius(self) -> float:
        return 0.5 * float(np.linalg.norm(self.size))

    def _local_mesh(self):
        h = 0.5 * np.array(self.size)
        c = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * h
        faces = ((0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3))
        return [c[list(f)] for f in faces]


def _circle(r: float, z: float, n: int) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([r * np.cos(a), r * np.sin(a), np.full(n, z)])


class Cylinder(Part):
    """A cylinder of ``radius`` and ``length`` along ``axis`` ("x", "y", "z" or a 3-vector of the body
    frame), centred at ``at``. ``marker=True`` adds a dark stripe across its ends, so that a spin about its
    own axis shows."""

    kind = "cyl"

    def __init__(self, name: str, radius: float = 0.02, length: float = 0.1, axis="z", marker: bool = False,
                 **kw):
        super().__init__(name, **kw)
        self.radius = _positive(radius, f"{self.label}: radius")
        self.length = _positive(length, f"{self.label}: length")
        self._orient(axis)
        self.marker = bool(marker)

    @classmethod
    def between(cls, name: str, start, end, radius: float = 0.02, **kw) -> Cylinder:
        """A rod from point ``start`` to point ``end`` of the body frame."""
        p0 = _vec(start, 3, f"Cylinder {name!r}: start")
        p1 = _vec(end, 3, f"Cylinder {name!r}: end")
        if np.linalg.norm(p1 - p0) < 1e-12:
            raise ModelError(f"Cylinder {name!r}: start and end are the same point; give two points")
        return cls(name, radius=radius, length=float(np.linalg.norm(p1 - p0)), axis=p1 - p0,
                   at=0.5 * (p0 + p1), **kw)

    def spec(self) -> dict:
        spec = super().spec()
        if self.marker:
            spec["mk"] = _dark(self.color, 0.45)
        return spec

    def _dims(self) -> dict:
        return {"r": float(f"{self.radius:.6g}"), "l": float(f"{self.length:.6g}")}

    def _radius(self) -> float:
        return math.hypot(self.radius, 0.5 * self.length)

    def _local_mesh(self):
        n = 28
        bottom, top = _circle(self.radius, -0.5 * self.length, n), _circle(self.radius, 0.5 * self.length, n)
        sides = [np.array([bottom[i], bottom[(i + 1) % n], top[(i + 1) % n], top[i]]) for i in range(n)]
        return [*sides, bottom[::-1], top]

    def polylines(self):
        if not self.marker:
            return []
        r, h = 0.92 * self.radius, 0.5 * self.length * 1.01
        lines = [np.array([[-r, 0, z], [r, 0, z]]) for z in (-h, h)]
        return [(p @ self.offset[:3, :3].T + self.offset[:3, 3], _dark(self.color, 0.45)) for p in lines]


class Disk(Cylinder):
    """A thin cylinder (``thickness`` default radius/8) with a stripe across its faces: a wheel, a rolling
    disk, a rotor (its spin shows). ``axis`` is its axis of symmetry."""

    def __init__(self, name: str, radius: float = 0.1, thickness: float | None = None, axis="z",
                 marker: bool = True, **kw):
        radius = _positive(radius, f"Disk {name!r}: radius")
        thickness = radius / 8 if thickness is None else thickness
        super().__init__(name, radius=radius, length=thickness, axis=axis, marker=marker, **kw)
        self.label = f"Disk {name!r}"


class Cone(Part):
    """A cone with its apex at ``at`` (default the body origin) and its base, of ``radius``, at ``length``
    along ``axis``: a spinning top about its fixed point."""

    kind = "cone"

    def __init__(self, name: str, radius: float = 0.05, length: float = 0.1, axis="z", **kw):
        super().__init__(name, **kw)
        self.radius = _positive(radius, f"{self.label}: radius")
        self.length = _positive(length, f"{self.label}: length")
        self._orient(axis)

    def _dims(self) -> dict:
        return {"r": float(f"{self.radius:.6g}"), "l": float(f"{self.length:.6g}")}

    def bounds(self):
        centre = self.offset[:3, 3] + self.offset[:3, 2] * 0.5 * self.length
        return centre, math.hypot(self.radius, 0.5 * self.length)

    def _local_mesh(self):
        n = 28
        base = _circle(self.radius, self.length, n)
        apex = np.zeros(3)
        return [np.array([apex, base[(i + 1) % n], base[i]]) for i in range(n)] + [base]


class Sphere(Part):
    """A sphere of ``radius`` centred at ``at``."""

    kind = "sph"

    def __init__(self, name: str, radius: float = 0.03, **kw):
        super().__init__(name, **kw)
        self.radius = _positive(radius, f"{self.label}: radius")

    def _dims(self) -> dict:
        return {"r": float(f"{self.radius:.6g}")}

    def _radius(self) -> float:
        return self.radius

    def _local_mesh(self):
        nu, nv = 20, 10
        u = np.linspace(0, 2 * np.pi, nu + 1)
        v = np.linspace(0, np.pi, nv + 1)
        p = self.radius * np.stack([np.outer(np.sin(v), np.cos(u)), np.outer(np.sin(v), np.sin(u)),
                                    np.outer(np.cos(v), np.ones_like(u))], axis=-1)
        return [np.array([p[i, j], p[i + 1, j], p[i + 1, j + 1], p[i, j + 1]])
                for i in range(nv) for j in range(nu)]


class Line(Part):
    """A polyline through ``points`` (shape (k, 3), body frame), e.g. a link's centre line. Drawn one pixel
    wide (WebGL draws no wider lines)."""

    kind = "line"

    def __init__(self, name: str, points=((0, 0, 0), (0.1, 0, 0)), color="#000000", **kw):
        super().__init__(name, color=color, **kw)
        try:
            p = np.asarray(points, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ShapeError(f"{self.label}: points must be an array of shape (k, 3), "
                             f"got {points!r}") from exc
        if p.ndim != 2 or p.shape[1] != 3 or len(p) < 2:
            raise ShapeError(f"{self.label}: points must have shape (k, 3) with k >= 2, got shape {p.shape}")
        if not np.all(np.isfinite(p)):
            raise ShapeError(f"{self.label}: points have a NaN or infinite entry; give finite numbers")
        self.points = p

    def _dims(self) -> dict:
        return {"p": _r6(self.points)}

    def bounds(self):
        p = self.points @ self.offset[:3, :3].T + self.offset[:3, 3]
        lo, hi = p.min(axis=0), p.max(axis=0)
        return 0.5 * (lo + hi), 0.5 * float(np.linalg.norm(hi - lo))

    def polylines(self):
        return [(self.points @ self.offset[:3, :3].T + self.offset[:3, 3], self.color)]


class Axes(Part):
    """A body-fixed triad of ``length``: the body's x, y, z axes as red, green and blue arrows."""

    kind = "axes"
    COLORS = ("#D55E00", "#009E73", "#0072B2")

    def __init__(self, name: str, length: float = 0.1, **kw):
        super().__init__(name, **kw)
        self.length = _positive(length, f"{self.label}: length")

    def _dims(self) -> dict:
        return {"l": float(f"{self.length:.6g}")}

    def _radius(self) -> float:
        return self.length

    def polylines(self):
        o = self.offset[:3, 3]
        return [(np.array([o, o + self.length * self.offset[:3, i]]), c) for i, c in enumerate(self.COLORS)]


class Trace:
    """The path of a point, drawn as it is travelled (the part already travelled, or the last ``tail``
    seconds of it).

    Either a point fixed in a body (``body=`` and ``point=``, body frame: e.g. a top's apex), computed from
    the body's poses, or any points given to ``Scene3D.play(traces={name: (n, 3) array})`` (e.g. a rolling
    disk's contact point, which is not fixed in the disk).
    """

    def __init__(self, name: str, color="#D55E00", body: str | None = None, point=None,
                 tail: float | None = None):
        if not isinstance(name, str) or not name:
            raise ModelError(f"Trace: give the trace a name (a non-empty string), got {name!r}")
        self.name, self.label = name, f"Trace {name!r}"
        self.color = _color(color, self.label)
        if (body is None) != (point is None):
            raise ModelError(f"{self.label}: give both body= and point= (a point fixed in a body), or "
                             "neither (and pass the points to play(traces=...))")
        self.body = body
        self.point = None if point is None else _vec(point, 3, f"{self.label}: point", " (body frame)")
        if tail is not None and not float(tail) > 0:
            raise ModelError(f"{self.label}: tail must be a positive duration in seconds, or None")
        self.tail = None if tail is None else float(tail)

    def __repr__(self) -> str:
        where = f" (point {self.point.tolist()} of body {self.body!r})" if self.body else ""
        return f"{self.label}{where}"


# --- poses ----------------------------------------------------------------------------------------------


def _quaternions(A: np.ndarray) -> np.ndarray:
    """Unit quaternions (x, y, z, w) of rotation matrices ``A`` (m, 3, 3): Shepperd's method, batched."""
    m = len(A)
    tr = np.trace(A, axis1=1, axis2=2)
    d = np.stack([tr, A[:, 0, 0], A[:, 1, 1], A[:, 2, 2]], axis=1)
    which = np.argmax(d, axis=1)
    q = np.empty((m, 4))  # w, x, y, z
    for c in range(4):
        s = which == c
        if not s.any():
            continue
        R = A[s]
        if c == 0:
            w = 0.5 * np.sqrt(1 + tr[s])
            q[s] = np.stack([w, (R[:, 2, 1] - R[:, 1, 2]) / (4 * w), (R[:, 0, 2] - R[:, 2, 0]) / (4 * w),
                             (R[:, 1, 0] - R[:, 0, 1]) / (4 * w)], axis=1)
        else:
            i = c - 1
            j, k = (i + 1) % 3, (i + 2) % 3
            v = 0.5 * np.sqrt(1 + R[:, i, i] - R[:, j, j] - R[:, k, k])
            out = np.empty((s.sum(), 4))
            out[:, 0] = (R[:, k, j] - R[:, j, k]) / (4 * v)
            out[:, 1 + i] = v
            out[:, 1 + j] = (R[:, j, i] + R[:, i, j]) / (4 * v)
            out[:, 1 + k] = (R[:, k, i] + R[:, i, k]) / (4 * v)
            q[s] = out
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q[:, [1, 2, 3, 0]]


def _rotations_from_quaternions(q: np.ndarray) -> np.ndarray:
    """Rotation matrices of quaternions (x, y, z, w), (m, 4)."""
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    x, y, z, w = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], axis=-1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], axis=-1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], axis=-1)], axis=1)


def _array(x, name: str) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ShapeError(f"{name} must be an array of numbers, got {type(x).__name__}") from exc
    return a


def _finite(a: np.ndarray, name: str) -> None:
    if not np.all(np.isfinite(a)):
        k = int(np.flatnonzero((~np.isfinite(a.reshape(len(a), -1))).any(axis=1))[0]) if a.ndim else 0
        raise ShapeError(f"{name} has a NaN or infinite entry at frame {k}; the motion must be finite "
                         "(did the simulation fail?)")


def _frames(a: np.ndarray, n: int, what: str, name: str) -> np.ndarray:
    if len(a) != n:
        raise ShapeError(f"{name}: {what} have {len(a)} frames but t has {n}; give one pose per time of t")
    return a


def _pose(value, n: int, name: str, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """(positions (m, 3), rotations (m, 3, 3)) of one body, m = n or 1 (a body that does not move)."""
    if isinstance(value, tuple) and len(value) == 2:
        r = _array(value[0], f"{name}: positions")
        if r.ndim != 2 or r.shape[1] != 3:
            raise ShapeError(f"{name}: positions must have shape (n, 3), got shape {r.shape}")
        _finite(r, f"{name}: positions")
        _frames(r, n, "positions", name)
        if value[1] is None:
            return r, np.broadcast_to(np.eye(3), (n, 3, 3))
        A = _array(value[1], f"{name}: rotations")
        if A.ndim == 2 and A.shape[1] == 4:  # Euler parameters, scalar first
            _finite(A, f"{name}: Euler parameters")
            _frames(A, n, "Euler parameters", name)
            norm = np.linalg.norm(A, axis=1)
            bad = np.flatnonzero(np.abs(norm - 1) > tol)
            if bad.size:
                raise RotationError(f"{name}: Euler parameters at frame {bad[0]} have norm "
                                    f"{norm[bad[0]]:.6g}, not 1 (tolerance {tol:g}); normalise them "
                                    "(e / |e|) before playing")
            return r, _rotations_from_quaternions(A[:, [1, 2, 3, 0]])
        if A.ndim != 3 or A.shape[1:] != (3, 3):
            raise ShapeError(f"{name}: rotations must have shape (n, 3, 3) (direction cosine matrices) or "
                             f"(n, 4) (Euler parameters e0..e3), got shape {A.shape}")
        _finite(A, f"{name}: rotations")
        _frames(A, n, "rotations", name)
        return r, A
    T = _array(value, name)
    if T.shape == (4, 4):
        T = T[None]
    elif T.ndim != 3 or T.shape[1:] != (4, 4):
        raise ShapeError(f"{name} must be homogeneous transforms of shape (n, 4, 4) (or one (4, 4), or a "
                         f"pair (positions (n, 3), rotations (n, 3, 3))), got shape {T.shape}")
    _finite(T, name)
    if len(T) != 1:
        _frames(T, n, "transforms", name)
    bottom = np.abs(T[:, 3, :] - np.array([0.0, 0.0, 0.0, 1.0])).max(axis=1)
    if (bottom > 1e-9).any():
        k = int(np.flatnonzero(bottom > 1e-9)[0])
        raise ShapeError(f"{name}: transform at frame {k} has last row {T[k, 3].tolist()}, not [0, 0, 0, 1]")
    return T[:, :3, 3], T[:, :3, :3]


def _check_rotations(A: np.ndarray, name: str, tol: float) -> None:
    err = np.abs(np.einsum("kji,kjl->kil", A, A) - np.eye(3)).max(axis=(1, 2))
    bad = np.flatnonzero(err > tol)
    if bad.size:
        k = int(bad[0])
        raise RotationError(f"{name}: the rotation at frame {k} is not orthonormal (||A^T A - I|| = "
                            f"{err[k]:.3g} > {tol:g}); re-orthonormalise it (e.g. from normalised Euler "
                            "parameters) or raise rotation_tol")
    det = np.linalg.det(A)
    if (det < 0).any():
        k = int(np.flatnonzero(det < 0)[0])
        raise RotationError(f"{name}: the rotation at frame {k} has determinant {det[k]:.3g}: a reflection, "
                            "not a rotation (are two axes swapped?)")


# --- the scene and its player ---------------------------------------------------------------------------


class Scene3D:
    """Shapes on bodies, and how to look at them; :meth:`play` turns poses into a :class:`Player3D`.

    Parameters
    ----------
    parts : sequence of Part and Trace
        The shapes (each on a body, see :class:`Part`) and traces.
    up : "z" or "y"
        The vertical axis of the global frame (the ground grid is normal to it, the camera keeps it up).
    ground : bool or float
        A grid on the ground: True puts it at 0 along ``up``, or below the lowest point of the motion if
        that is lower; a number puts it at that height; False, no grid.
    axes : bool
        The global x, y, z axes at the origin (red, green, blue, labelled).
    view : (azimuth, elevation) in degrees
        Direction of the default camera from the scene's centre, as matplotlib's ``view_init`` (the poster
        uses the same); its distance frames every body over the whole motion.
    fov : float
        Vertical field of view in degrees.
    background : colour
        Of the 3-D view.
    """

    def __init__(self, parts: Sequence[Part | Trace], up: str = "z", ground: bool | float = True,
                 axes: bool = True, view: tuple[float, float] = (-60.0, 30.0), fov: float = 35.0,
                 background="#ffffff"):
        parts = list(parts)
        if not parts:
            raise ModelError("Scene3D: give at least one shape (Box, Cylinder, Sphere, ...)")
        names: dict[str, str] = {}
        self.parts: list[Part] = []
        self.traces: list[Trace] = []
        for p in parts:
            if not isinstance(p, Part | Trace):
                raise ModelError(f"Scene3D: {p!r} is not a shape or a Trace (Box, Cylinder, Sphere, Disk, "
                                 "Cone, Line, Axes, Trace)")
            if p.name in names:
                raise ModelError(f"Scene3D: two items are named {p.name!r} ({names[p.name]} and {p.label}); "
                                 "give each shape and trace its own name")
            names[p.name] = p.label
            (self.traces if isinstance(p, Trace) else self.parts).append(p)
        self.bodies = list(dict.fromkeys(p.body for p in self.parts))
        for tr in self.traces:
            if tr.body is not None and tr.body not in self.bodies:
                raise ModelError(f"{tr.label}: body {tr.body!r} has no shape in this scene; the bodies are "
                                 f"{self.bodies}")
        if up not in ("z", "y"):
            raise ModelError(f"Scene3D: up must be 'z' or 'y', got {up!r}")
        self.up = up
        if not isinstance(ground, bool):
            try:
                ground = float(ground)
            except (TypeError, ValueError):
                ground = float("nan")
            if not math.isfinite(ground):
                raise ModelError(f"Scene3D: ground must be True, False or a height (a number), "
                                 f"got {ground!r}")
        self.ground, self.axes = ground, bool(axes)
        self.view = tuple(_vec(view, 2, "Scene3D: view", " (azimuth, elevation in degrees)"))
        if not 5 <= float(fov) <= 120:
            raise ModelError(f"Scene3D: fov must be between 5 and 120 degrees, got {fov!r}")
        self.fov = float(fov)
        self.background = _color(background, "Scene3D background")

    def __repr__(self) -> str:
        return (f"<Scene3D: {len(self.parts)} shapes on {len(self.bodies)} bodies, "
                f"{len(self.traces)} traces, up={self.up!r}>")

    def play(self, t, poses: Mapping[str, object], traces: Mapping[str, object] | None = None,
             speed: float = 1.0, title: str = "", note: str = "", poster: bool = True,
             start: int = 0, rotation_tol: float = 1e-3) -> Player3D:
        """A player of the motion: the bodies at ``poses[name][k]`` at time ``t[k]``.

        Parameters
        ----------
        t : array (n,)
            Times in seconds, increasing.
        poses : dict of body name to poses
            See the module docstring for the accepted forms; bodies without an entry stay at the origin.
        traces : dict of trace name to array (n, 3), optional
            The points of the traces that are not fixed in a body.
        speed : float
            Playback speed (1: real time).
        title, note : str
            A line above the controls; a line below the view (how to turn, zoom and pan the view is always
            written there once the view runs).
        poster : bool
            Embed a still of frame ``start`` (matplotlib), shown where the 3-D view cannot run.
        start : int
            The frame shown first.
        rotation_tol : float
            Largest ``||A^T A - I||`` accepted in a rotation (and ``| |e| - 1 |`` for Euler parameters).
        """
        t = _array(t, "t")
        if t.ndim != 1 or len(t) < 1:
            raise ShapeError(f"t must be a 1-D array of times (n,), got shape {t.shape}")
        if not np.all(np.isfinite(t)):
            raise ShapeError("t has a NaN or infinite entry; give finite times in seconds")
        if len(t) > 1 and not np.all(np.diff(t) > 0):
            k = int(np.flatnonzero(np.diff(t) <= 0)[0])
            raise ShapeError(f"t must increase: t[{k + 1}] = {t[k + 1]:g} is not after t[{k}] = {t[k]:g}")
        n = len(t)
        if not isinstance(poses, Mapping):
            raise ShapeError(f"poses must be a dict {{body name: poses}}, got {type(poses).__name__}")
        for name in poses:
            if name not in self.bodies:
                raise ModelError(f"poses[{name!r}]: no shape is on a body {name!r}; the scene's bodies are "
                                 f"{self.bodies} (attach shapes with body=...)")
        if not float(speed) > 0:
            raise ModelError(f"speed must be positive (1 = real time), got {speed!r}")
        if not (isinstance(start, int | np.integer) and 0 <= start < n):
            raise ShapeError(f"start must be a frame number 0..{n - 1}, got {start!r}")
        body_poses = {}
        for b in self.bodies:
            if b in poses:
                r, A = _pose(poses[b], n, f"poses[{b!r}]", rotation_tol)
                _check_rotations(np.asarray(A), f"poses[{b!r}]", rotation_tol)
            else:
                r, A = np.zeros((1, 3)), np.eye(3)[None]
            body_poses[b] = (np.asarray(r, dtype=float), np.asarray(A, dtype=float))
        traces = dict(traces or {})
        known = {tr.name: tr for tr in self.traces}
        for name in traces:
            if name not in known:
                raise ModelError(f"traces[{name!r}]: the scene has no Trace named {name!r}; its traces are "
                                 f"{list(known)} (add Trace({name!r}) to the scene)")
        paths = {}
        for tr in self.traces:
            if tr.body is not None:
                if tr.name in traces:
                    raise ModelError(f"traces[{tr.name!r}]: {tr.label} is a point of body {tr.body!r}, "
                                     "computed from its poses; do not also give its points")
                r, A = body_poses[tr.body]
                p = r + A @ tr.point
                paths[tr.name] = np.broadcast_to(p, (n, 3)) if len(p) == 1 else p
            else:
                if tr.name not in traces:
                    raise ModelError(f"{tr.label}: give its points, play(..., traces={{{tr.name!r}: (n, 3) "
                                     "array}), or make it a body point (Trace(name, body=..., point=...))")
                p = _array(traces[tr.name], f"traces[{tr.name!r}]")
                if p.ndim != 2 or p.shape[1] != 3:
                    raise ShapeError(f"traces[{tr.name!r}] must have shape (n, 3), got shape {p.shape}")
                _finite(p, f"traces[{tr.name!r}]")
                _frames(p, n, "points", f"traces[{tr.name!r}]")
                paths[tr.name] = p
        return Player3D(self, t, body_poses, paths, speed=float(speed), title=title, note=note,
                        poster=poster, start=int(start))


_HINT = ("Drag to turn the view · click, then wheel or pinch to zoom · right-drag or shift-drag to pan · "
         "double-click to reset")


class Player3D:
    """A motion ready for the page (made by :meth:`Scene3D.play`); a notebook shows it as HTML."""

    def __init__(self, scene: Scene3D, t: np.ndarray, poses: dict, paths: dict, speed: float, title: str,
                 note: str, poster: bool, start: int):
        self.scene, self.t, self.speed, self.title, self.start = scene, t, speed, title, start
        self.note = note
        self.n_frames = len(t)
        dt = np.diff(t)
        #: decimals of the time readout: enough to tell one step from the next
        self.decimals = 2 if not len(dt) else int(min(4, max(0, math.ceil(-math.log10(float(np.median(dt)))
                                                                          - 1e-9))))
        self._poses, self._paths = poses, paths
        self._frame_bounds()
        self._pack()
        self._poster = self._draw_poster() if poster else None
        self._html: str | None = None

    # -- geometry of the whole motion: framing, ground, quantisation --
    def _frame_bounds(self) -> None:
        lo, hi = np.full(3, np.inf), np.full(3, -np.inf)
        for part in self.scene.parts:
            r, A = self._poses[part.body]
            c, rad = part.bounds()
            centres = r + A @ c
            lo, hi = np.minimum(lo, centres.min(axis=0) - rad), np.maximum(hi, centres.max(axis=0) + rad)
        for p in self._paths.values():
            lo, hi = np.minimum(lo, p.min(axis=0)), np.maximum(hi, p.max(axis=0))
        if self.scene.axes:
            lo, hi = np.minimum(lo, 0.0), np.maximum(hi, 0.0)
        self.lo, self.hi = lo, hi
        up = 2 if self.scene.up == "z" else 1
        g = self.scene.ground
        self.ground_height = None if g is False else (min(0.0, float(lo[up])) if g is True else float(g))
        centre = 0.5 * (lo + hi)
        radius = max(0.5 * float(np.linalg.norm(hi - lo)), 1e-3)
        az, el = np.radians(self.scene.view)
        d = np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
        if self.scene.up == "y":  # the same view with y up: (x, y, z) of a z-up world -> (y, z, x)
            d = d[[1, 2, 0]]
        # the bounding sphere of the box fills the view's height: a little loose for most shapes, never cut
        dist = radius / np.sin(np.radians(self.scene.fov) / 2) * 0.75
        self.camera = {"target": centre, "position": centre + dist * d, "radius": radius}

    def _pack(self) -> None:
        origins = [r for r, _ in self._poses.values()] + list(self._paths.values())
        allp = np.concatenate(origins)
        self.origin = 0.5 * (allp.min(axis=0) + allp.max(axis=0))
        self.scale = max(float(np.abs(allp - self.origin).max()), 1e-9) / _Q
        self._packed = {}
        for b, (r, A) in self._poses.items():
            P = np.round((r - self.origin) / self.scale).astype("<i2")
            Q = np.round(_quaternions(np.asarray(A)) * _Q).astype("<i2")
            if len(P) > 1 and (P == P[0]).all() and (Q == Q[0]).all():
                P, Q = P[:1], Q[:1]  # a body that does not move: stored once
            self._packed[b] = (P, Q)
        self._packed_paths = {name: np.round((p - self.origin) / self.scale).astype("<i2")
                              for name, p in self._paths.items()}

    def poses_as_shown(self) -> dict[str, np.ndarray]:
        """The poses as the page stores them, decoded: body name -> (n, 4, 4) (or (1, 4, 4) if it does not
        move). Differs from the input by the quantisation only (see the module docstring)."""
        out = {}
        for b, (P, Q) in self._packed.items():
            T = np.zeros((len(P), 4, 4))
            T[:, :3, :3] = _rotations_from_quaternions(Q.astype(float) / _Q)
            T[:, :3, 3] = self.origin + self.scale * P.astype(float)
            T[:, 3, 3] = 1.0
            out[b] = T
        return out

    def traces_as_shown(self) -> dict[str, np.ndarray]:
        """The traces' points as the page stores them, decoded: name -> (n, 3)."""
        return {name: self.origin + self.scale * P.astype(float) for name, P in self._packed_paths.items()}

    # -- the page --
    def _data(self) -> dict:
        sc = self.scene
        bodies = []
        for b in sc.bodies:
            P, Q = self._packed[b]
            bodies.append({"name": b, "parts": [p.spec() for p in sc.parts if p.body == b],
                           "p": _b64(P), "q": _b64(Q), "m": len(P)})
        traces = [{"name": tr.name, "c": tr.color, "tail": tr.tail, "p": _b64(self._packed_paths[tr.name])}
                  for tr in sc.traces]
        cam = self.camera
        return {"v": 1, "n": self.n_frames, "t": _b64(self.t.astype("<f4")), "dec": self.decimals,
                "speed": self.speed, "start": self.start, "up": sc.up, "bg": sc.background,
                "origin": _r6(self.origin), "scale": float(f"{self.scale:.8g}"), "bodies": bodies,
                "traces": traces,
                "camera": {"target": _r6(cam["target"]), "position": _r6(cam["position"]), "fov": sc.fov,
                           "radius": float(f"{cam['radius']:.6g}")},
                "ground": None if self.ground_height is None else float(f"{self.ground_height:.6g}"),
                "extent": _r6(self.hi - self.lo), "centre": _r6(0.5 * (self.lo + self.hi)),
                "axes": sc.axes, "three": THREE_PATH, "jupyter": JUPYTER_PATH}

    def time_label(self, k: int) -> str:
        """The slider's readout at frame ``k``, as the page writes it (JavaScript's ``toFixed`` of the stored
        float32 time: halves round up)."""
        exact = Decimal(float(np.float32(self.t[k])))
        return f"{exact.quantize(Decimal(1).scaleb(-self.decimals), rounding=ROUND_HALF_UP)} s"

    def to_html(self) -> str:
        """The player: controls, a stage (poster until the 3-D view runs), the data, a small script."""
        if self._html is not None:
            return self._html
        payload = json.dumps(self._data(), separators=(",", ":"))
        uid = "mbd-view3d-" + hashlib.sha1(payload.encode()).hexdigest()[:12]
        n = self.n_frames
        esc = html.escape
        kind = "animation3d" if n > 1 else "view3d"  # one frame: a still to turn, no play nor slider
        parts = [f'<div class="mbd-player mbd-player-3d" id="{uid}" data-mbd-kind="{kind}" '
                 f'data-mbd-state="loading" data-frame="{self.start}">']
        if self.title:
            parts.append(f'<div class="mbd-player-title">{esc(self.title)}</div>')
        parts.append('<div class="mbd-player-controls">')
        if n > 1:
            parts.append('<button type="button" class="mbd-player-play" disabled>\u25B6 play</button>'
                         '<label class="mbd-player-axis">t <input class="mbd-player-control" type="range" '
                         f'disabled min="0" max="{n - 1}" step="1" value="{self.start}" aria-label="time">'
                         f"<output>{esc(self.time_label(self.start))}</output></label>")
        parts.append('<button type="button" class="mbd-view3d-reset" title="reset the view" disabled>'
                     "\u27F2 view</button></div>")
        parts.append('<div class="mbd-view3d-stage">')
        if self._poster is not None:
            uri = "data:image/png;base64," + base64.b64encode(self._poster).decode("ascii")
            alt = esc(self.title or "3-D motion") + f" (still of t = {esc(self.time_label(self.start))})"
            parts.append(f'<img class="mbd-view3d-poster" alt="{alt}" src="{uri}">')
        parts.append('</div><div class="mbd-view3d-message">A still of the motion: the orbitable 3-D view '
                     "plays in the HTML book (and in JupyterLab started by <code>make lab</code>).</div>")
        parts.append(f'<div class="mbd-view3d-hint">{esc(_HINT)}</div>')  # shown once the view runs
        if self.note:
            parts.append(f'<div class="mbd-player-note">{esc(self.note)}</div>')
        safe = payload.replace("</", "<\\/")
        parts.append(f'<script type="application/json" class="mbd-view3d-data">{safe}</script>')
        parts.append("<script>" + _SCRIPT.replace("__ID__", json.dumps(uid)) + "</script>")
        parts.append(f"<style>{_STYLE}</style></div>")
        self._html = "".join(parts)
        return self._html

    def _repr_html_(self) -> str:
        return self.to_html()

    @property
    def nbytes(self) -> int:
        """Size of the HTML (what the page and the notebook grow by), in bytes."""
        return len(self.to_html().encode("utf-8"))

    def poster_png(self) -> bytes | None:
        """The poster (PNG bytes), or None if made with ``poster=False``."""
        return self._poster

    def __repr__(self) -> str:
        return (f"<Player3D: {len(self.scene.bodies)} bodies, {len(self.scene.traces)} traces, "
                f"{self.n_frames} frames over {self.t[-1] - self.t[0]:.3g} s, {self.nbytes / 1e3:.0f} kB>")

    # -- the poster: frame `start` drawn by matplotlib, the same view as the 3-D camera --
    def _draw_poster(self) -> bytes:
        import matplotlib.pyplot as plt
        from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection

        from .frames import figure_png

        sc, k = self.scene, self.start
        perm = [0, 1, 2] if sc.up == "z" else [2, 0, 1]  # world -> z-up drawing coordinates

        def world(b, pts):
            r, A = self._poses[b]
            j = k if len(r) > 1 else 0
            return (pts @ A[j].T + r[j])[:, perm]

        polys, colors = [], []
        light = np.array([-0.4, -0.6, 0.9])
        light /= np.linalg.norm(light)
        lines, line_colors = [], []
        for part in sc.parts:
            rgb = np.array([int(part.color[i:i + 2], 16) for i in (1, 3, 5)]) / 255
            for poly in part.mesh():
                w = world(part.body, poly)
                nrm = np.cross(w[1] - w[0], w[2] - w[0])
                nn = np.linalg.norm(nrm)
                shade = 0.55 + 0.45 * abs(float(nrm @ light)) / nn if nn > 0 else 0.8
                polys.append(w)
                colors.append((*(rgb * shade), part.opacity))
            for pts, c in part.polylines():
                w = world(part.body, pts)
                lines += [w[i:i + 2] for i in range(len(w) - 1)]
                line_colors += [c] * (len(w) - 1)
        for tr in sc.traces:  # the whole path: a still stands for the motion
            p = self._paths[tr.name][:, perm]
            if len(p) > 1:
                lines += [p[i:i + 2] for i in range(len(p) - 1)]
                line_colors += [tr.color] * (len(p) - 1)
        lo, hi = self.lo[perm], self.hi[perm]
        centre, half = 0.5 * (lo + hi), 0.5 * max(float((hi - lo).max()), 1e-3)
        # layout="none": the axes fill the figure; a constrained layout (the course style) would warn
        fig = plt.figure(figsize=(6.4, 4.0), dpi=100, layout="none")
        ax = fig.add_axes((0, 0, 1, 1), projection="3d", computed_zorder=False)
        ax.set_proj_type("persp", focal_length=1 / np.tan(np.radians(sc.fov) / 2))
        for i, set_lim in enumerate((ax.set_xlim, ax.set_ylim, ax.set_zlim)):
            set_lim(centre[i] - half, centre[i] + half)
        if self.ground_height is not None:
            size, step = _grid(hi - lo)
            gx = np.arange(-size, size + step / 2, step)
            cx, cy = round(centre[0] / step) * step, round(centre[1] / step) * step
            gz = self.ground_height
            grid = [[(cx + g, cy - size, gz), (cx + g, cy + size, gz)] for g in gx]
            grid += [[(cx - size, cy + g, gz), (cx + size, cy + g, gz)] for g in gx]
            ax.add_collection3d(Line3DCollection(grid, colors="#d4d4d4", linewidths=0.6, zorder=0),
                                autolim=False)
        if sc.axes:
            length = 0.4 * half
            for i, c in enumerate(Axes.COLORS):
                e = np.zeros(3)
                e[perm.index(i)] = length
                ax.plot([0, e[0]], [0, e[1]], [0, e[2]], color=c, linewidth=1.5, zorder=1, scalex=False,
                        scaley=False)
                ax.text(*(1.15 * e), "xyz"[i], color=c, fontsize=9, zorder=1)
        if polys:
            ax.add_collection3d(Poly3DCollection(polys, facecolors=colors, edgecolors=(0, 0, 0, 0.12),
                                                 linewidths=0.3, zorder=2), autolim=False)
        if lines:
            ax.add_collection3d(Line3DCollection(lines, colors=line_colors, linewidths=1.2, zorder=3),
                                autolim=False)
        ax.set_box_aspect((1, 1, 1), zoom=1.25)
        ax.view_init(elev=sc.view[1], azim=sc.view[0])
        ax.set_axis_off()
        fig.text(0.01, 0.02, f"t = {self.time_label(k)}", fontsize=9, color="#444444")
        try:
            with np.errstate(over="ignore", invalid="ignore"):  # mplot3d pads polygons of unequal length
                return figure_png(fig)
        finally:
            plt.close(fig)


def _grid(extent: np.ndarray) -> tuple[float, float]:
    """Half-size and spacing of a ground grid covering a horizontal extent, in round numbers."""
    span = max(float(extent[0]), float(extent[1]), 1e-3) * 0.6 + 1e-9
    step = 10 ** math.floor(math.log10(span / 4))
    for f in (1, 2, 5):
        if span / (f * step) <= 8:
            step *= f
            break
    return math.ceil(span / step) * step, step


_STYLE = (".mbd-player-3d{border:1px solid #c9c9c9;border-radius:4px;padding:6px 8px;margin:.5em 0;"
          "text-align:left;max-width:100%;box-sizing:border-box}"
          ".mbd-player-3d .mbd-player-controls{display:flex;flex-wrap:wrap;gap:4px 18px;align-items:center}"
          ".mbd-player-3d .mbd-player-play{min-width:6em}"
          ".mbd-player-3d .mbd-player-axis{display:flex;align-items:center;gap:6px}"
          ".mbd-player-3d input[type=range]{width:14em}"
          ".mbd-player-3d output{min-width:4.5em;font-variant-numeric:tabular-nums}"
          ".mbd-view3d-stage{position:relative;width:100%;aspect-ratio:16/10;max-height:75vh;margin:4px 0;"
          "background:#fff;overflow:hidden}"
          ".mbd-view3d-stage canvas{position:absolute;inset:0;width:100%;height:100%;display:block;"
          "touch-action:none;outline:none}"
          ".mbd-view3d-poster{position:absolute;inset:0;width:100%;height:100%;object-fit:contain}"
          ".mbd-view3d-message{font-size:.85em;color:#8a4b00}"
          ".mbd-player-3d[data-mbd-state=ready] .mbd-view3d-poster,"
          ".mbd-player-3d[data-mbd-state=ready] .mbd-view3d-message{display:none}"
          ".mbd-player-3d .mbd-player-note,.mbd-view3d-hint{font-size:.85em;color:#555}"
          ".mbd-player-3d:not([data-mbd-state=ready]) .mbd-view3d-hint{display:none}")


# The page's side. One copy of the library object per page (window.mbdView3d_1), one call per player.
# Playback and drawing are scheduled by requestAnimationFrame, with a timer as a fallback (a hidden tab, or
# headless Chromium's virtual time, gives no animation frames): whichever comes first runs the frame.
_SCRIPT = r"""(function (id) {
"use strict";
var lib = window.mbdView3d_1;
if (!lib) { lib = window.mbdView3d_1 = (function () {
  var loading = null;
  function candidates(data) {
    var urls = [], root = document.documentElement.getAttribute("data-content_root");
    if (window.MBD_THREE_URL) { urls.push(window.MBD_THREE_URL); }
    if (root === null && window.DOCUMENTATION_OPTIONS && typeof DOCUMENTATION_OPTIONS.URL_ROOT === "string") {
      root = DOCUMENTATION_OPTIONS.URL_ROOT;
    }
    if (root !== null) { urls.push(root + data.three); return urls; }
    var cfg = document.getElementById("jupyter-config-data");  // JupyterLab / Notebook 7
    if (cfg) {
      try { urls.push((JSON.parse(cfg.textContent).baseUrl || "/").replace(/\/?$/, "/") + data.jupyter); }
      catch (e) { /* not a Jupyter page after all */ }
    }
    return urls;
  }
  function load(data) {
    if (window.mbdTHREE && window.mbdTHREE.OrbitControls) { return Promise.resolve(window.mbdTHREE); }
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var urls = candidates(data);
        (function attempt(i) {
          if (i >= urls.length) { reject(urls); return; }
          var s = document.createElement("script");
          s.src = urls[i];
          s.onload = function () {
            var T = window.mbdTHREE;
            if (T && T.OrbitControls) { resolve(T); } else { attempt(i + 1); }
          };
          s.onerror = function () { s.parentNode.removeChild(s); attempt(i + 1); };
          document.head.appendChild(s);
        })(0);
      });
    }
    return loading;
  }
  function buffer(b64) {
    var s = atob(b64), u = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) { u[i] = s.charCodeAt(i); }
    return u.buffer;
  }
  function nextFrame(fn) {
    var done = false, a = 0, b = 0;
    function run() { if (done) { return; } done = true; cancelAnimationFrame(a); clearTimeout(b); fn(); }
    a = requestAnimationFrame(run); b = setTimeout(run, 40);
  }
  function fail(root, state, text) {
    root.setAttribute("data-mbd-state", state);
    var m = root.querySelector(".mbd-view3d-message"), c = root.querySelector(".mbd-view3d-stage canvas");
    if (c) { c.style.display = "none"; }  // the poster shows again
    m.textContent = text;
    m.style.display = "block";
  }
  function label(T, text, color, size) {
    var c = document.createElement("canvas"); c.width = c.height = 64;
    var g = c.getContext("2d"); g.fillStyle = color; g.font = "bold 44px sans-serif";
    g.textAlign = "center"; g.textBaseline = "middle"; g.fillText(text, 32, 34);
    var tex = new T.CanvasTexture(c); tex.colorSpace = T.SRGBColorSpace;
    var s = new T.Sprite(new T.SpriteMaterial({map: tex, depthWrite: false, transparent: true}));
    s.scale.set(size, size, size);
    return s;
  }
  function mesh(T, p) {
    var g, edges = true, obj, mat;
    if (p.k === "line" || p.k === "axes") {
      obj = new T.Group();
      if (p.k === "line") {
        var pts = [];
        for (var i = 0; i < p.p.length; i += 3) { pts.push(new T.Vector3(p.p[i], p.p[i + 1], p.p[i + 2])); }
        obj.add(new T.Line(new T.BufferGeometry().setFromPoints(pts), new T.LineBasicMaterial({color: p.c})));
      } else {
        var dirs = [[1, 0, 0], [0, 1, 0], [0, 0, 1]], cols = ["#D55E00", "#009E73", "#0072B2"];
        for (var j = 0; j < 3; j++) {
          obj.add(new T.ArrowHelper(new T.Vector3().fromArray(dirs[j]), new T.Vector3(), p.l,
                                    new T.Color(cols[j]), 0.2 * p.l, 0.1 * p.l));
        }
      }
    } else {
      if (p.k === "box") { g = new T.BoxGeometry(p.s[0], p.s[1], p.s[2]); }
      else if (p.k === "cyl") { g = new T.CylinderGeometry(p.r, p.r, p.l, 40, 1).rotateX(Math.PI / 2); }
      else if (p.k === "cone") {
        g = new T.ConeGeometry(p.r, p.l, 40, 1).rotateX(-Math.PI / 2).translate(0, 0, p.l / 2);
      } else { g = new T.SphereGeometry(p.r, 32, 16); edges = false; }
      mat = new T.MeshStandardMaterial({color: p.c, roughness: 0.55, metalness: 0.05,
                                        transparent: p.o < 1, opacity: p.o});
      obj = new T.Mesh(g, mat);
      if (edges) {
        var e = new T.LineSegments(new T.EdgesGeometry(g, 25),
                                   new T.LineBasicMaterial({color: 0, transparent: true, opacity: 0.25}));
        obj.add(e);
      }
      if (p.mk) {
        var bar = new T.Mesh(new T.BoxGeometry(1.84 * p.r, 0.14 * p.r, p.l * 1.02),
                             new T.MeshStandardMaterial({color: p.mk, roughness: 0.6}));
        obj.add(bar);
      }
    }
    obj.matrixAutoUpdate = false;
    obj.matrix.fromArray(p.m);
    return obj;
  }
  function niceGrid(extent) {
    var span = Math.max(extent, 1e-3) * 0.6 + 1e-9, step = Math.pow(10, Math.floor(Math.log10(span / 4)));
    var f = [1, 2, 5];
    for (var i = 0; i < 3; i++) { if (span / (f[i] * step) <= 8) { step *= f[i]; break; } }
    return [Math.ceil(span / step) * step, step];
  }
  function build(T, root, data, ui) {
    var stage = root.querySelector(".mbd-view3d-stage"), canvas = document.createElement("canvas");
    canvas.setAttribute("aria-label", "3-D view: drag to turn, click then wheel to zoom");
    canvas.tabIndex = 0;
    var gl = canvas.getContext("webgl2", {antialias: true, alpha: false});
    if (!gl) {
      fail(root, "no-webgl", "This browser gives the page no WebGL, so the 3-D view cannot run; " +
           "above is a still of the motion (enable hardware acceleration, or use another browser).");
      return;
    }
    stage.appendChild(canvas);
    canvas.addEventListener("webglcontextlost", function () {
      fail(root, "error", "The browser took this 3-D view's WebGL context back (too many 3-D views open?); " +
           "reload the page.");
    });
    var renderer = new T.WebGLRenderer({canvas: canvas, context: gl, antialias: true});
    var scene = new T.Scene(), zUp = data.up === "z";
    scene.background = new T.Color(data.bg);
    var upv = zUp ? new T.Vector3(0, 0, 1) : new T.Vector3(0, 1, 0);
    var R = data.camera.radius, cam = new T.PerspectiveCamera(data.camera.fov, 1.6, R / 100, R * 60);
    cam.up.copy(upv);
    cam.position.fromArray(data.camera.position);
    var hemi = new T.HemisphereLight(0xffffff, 0x8a8a8a, 1.7);
    hemi.position.copy(upv);
    scene.add(hemi);
    var key = new T.DirectionalLight(0xffffff, 2.0);  // follows the camera: lit from the viewer's upper left
    key.position.set(-1, 1.5, 1.2);
    cam.add(key); cam.add(key.target); key.target.position.set(0, 0, -1);
    scene.add(cam);
    if (data.ground !== null) {
      var ext = zUp ? Math.max(data.extent[0], data.extent[1]) : Math.max(data.extent[0], data.extent[2]);
      var gs = niceGrid(ext), size = gs[0], step = gs[1];
      var grid = new T.GridHelper(2 * size, Math.round(2 * size / step), 0xd4d4d4, 0xd4d4d4);
      if (zUp) { grid.rotation.x = Math.PI / 2; }
      var c = data.centre, h = zUp ? c[1] : c[2];
      grid.position.set(Math.round(c[0] / step) * step, zUp ? Math.round(h / step) * step : data.ground,
                        zUp ? data.ground : Math.round(h / step) * step);
      scene.add(grid);
    }
    if (data.axes) {
      var L = 0.2 * Math.max(data.extent[0], data.extent[1], data.extent[2]);
      var cols = ["#D55E00", "#009E73", "#0072B2"], names = ["x", "y", "z"];
      for (var a = 0; a < 3; a++) {
        var d = new T.Vector3(); d.setComponent(a, 1);
        scene.add(new T.ArrowHelper(d, new T.Vector3(), L, new T.Color(cols[a]), 0.18 * L, 0.08 * L));
        var s = label(T, names[a], cols[a], 0.3 * L);
        s.position.copy(d).multiplyScalar(1.18 * L);
        scene.add(s);
      }
    }
    var n = data.n, times = new Float32Array(buffer(data.t)), o = data.origin, sc = data.scale;
    var bodies = data.bodies.map(function (b) {
      var g = new T.Group();
      b.parts.forEach(function (p) { g.add(mesh(T, p)); });
      scene.add(g);
      return {g: g, P: new Int16Array(buffer(b.p)), Q: new Int16Array(buffer(b.q)), m: b.m};
    });
    var traces = data.traces.map(function (tr) {
      var P = new Int16Array(buffer(tr.p)), xyz = new Float32Array(P.length);
      for (var i = 0; i < P.length; i++) { xyz[i] = o[i % 3] + sc * P[i]; }
      var geo = new T.BufferGeometry();
      geo.setAttribute("position", new T.BufferAttribute(xyz, 3));
      var line = new T.Line(geo, new T.LineBasicMaterial({color: tr.c}));
      line.frustumCulled = false;
      scene.add(line);
      return {geo: geo, tail: tr.tail};
    });
    var controls = new T.OrbitControls(cam, canvas);
    controls.target.fromArray(data.camera.target);
    controls.enableZoom = false;  // until the reader clicks the view: the wheel scrolls the page
    controls.update();
    var home = {p: cam.position.clone(), t: controls.target.clone()};
    var current = -1, playing = false, t0 = 0, k0 = 0, dirty = false;
    function draw() { dirty = false; renderer.render(scene, cam); }
    function request() { if (!dirty) { dirty = true; nextFrame(draw); } }
    function search(tt) {  // the last frame whose time is <= tt
      var lo = 0, hi = n - 1;
      while (lo < hi) {
        var mid = (lo + hi + 1) >> 1;
        if (times[mid] <= tt) { lo = mid; } else { hi = mid - 1; }
      }
      return lo;
    }
    function show(k) {
      current = k;
      bodies.forEach(function (b) {
        var j = b.m > 1 ? k : 0, P = b.P, Q = b.Q;
        b.g.position.set(o[0] + sc * P[3 * j], o[1] + sc * P[3 * j + 1], o[2] + sc * P[3 * j + 2]);
        b.g.quaternion.set(Q[4 * j], Q[4 * j + 1], Q[4 * j + 2], Q[4 * j + 3]).normalize();
      });
      traces.forEach(function (tr) {
        var first = tr.tail === null ? 0 : search(times[k] - tr.tail);
        tr.geo.setDrawRange(first, k - first + 1);
      });
      if (ui.slider) { ui.slider.value = String(k); ui.out.textContent = ui.label(k); }
      root.setAttribute("data-frame", String(k));
      request();
    }
    function tick() {
      if (!playing) { return; }
      var tt = times[k0] + data.speed * (performance.now() - t0) / 1000;
      if (tt > times[n - 1]) { k0 = 0; t0 = performance.now(); tt = times[0]; }
      var k = search(tt);
      if (k !== current) { show(k); }
      nextFrame(tick);
    }
    function play() {
      if (!ui.play) { return; }
      playing = true; ui.play.textContent = "\u275A\u275A pause";
      k0 = current >= n - 1 ? 0 : current; t0 = performance.now(); tick();
    }
    function pause() { playing = false; if (ui.play) { ui.play.textContent = "\u25B6 play"; } }
    function resize() {
      var w = stage.clientWidth, h = stage.clientHeight;
      if (!w || !h) { return; }
      renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
      renderer.setSize(w, h, false);
      cam.aspect = w / h; cam.updateProjectionMatrix();
      request();
    }
    function reset() {
      cam.position.copy(home.p); controls.target.copy(home.t); controls.update(); request();
    }
    controls.addEventListener("change", request);
    canvas.addEventListener("pointerdown", function () { controls.enableZoom = true; });
    canvas.addEventListener("pointerleave", function () { controls.enableZoom = false; });
    canvas.addEventListener("dblclick", reset);
    ui.reset.addEventListener("click", reset);
    ui.reset.disabled = false;
    if (ui.play) {
      ui.play.addEventListener("click", function () { if (playing) { pause(); } else { play(); } });
      ui.slider.addEventListener("input", function () {
        show(parseInt(ui.slider.value, 10));
        if (playing) { k0 = current; t0 = performance.now(); }
      });
      ui.play.disabled = false; ui.slider.disabled = false;
    }
    if (window.ResizeObserver) { new ResizeObserver(resize).observe(stage); }
    resize();
    show(Math.min(data.start, n - 1));
    draw();
    root.setAttribute("data-mbd-state", "ready");
    root.mbdView3d = {  // for tools/check_book.py (and the curious reader's console)
      frame: function () { return current; }, show: show, draw: draw, play: play, pause: pause, reset: reset,
      label: ui.label, camera: cam, controls: controls,
      sample: function () {  // draw now and summarise the picture: share of non-background pixels, 8x8 means
        draw();
        var w = gl.drawingBufferWidth, h = gl.drawingBufferHeight, px = new Uint8Array(w * h * 4);
        gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
        var bg = scene.background.getHex(), b0 = bg >> 16 & 255, b1 = bg >> 8 & 255, b2 = bg & 255;
        var cells = new Array(64).fill(0), counts = new Array(64).fill(0), drawn = 0;
        for (var y = 0; y < h; y += 2) {
          for (var x = 0; x < w; x += 2) {
            var i = 4 * (y * w + x), v = (px[i] + px[i + 1] + px[i + 2]) / 3;
            if (Math.abs(px[i] - b0) + Math.abs(px[i + 1] - b1) + Math.abs(px[i + 2] - b2) > 24) { drawn++; }
            var c = 8 * Math.floor(8 * y / h) + Math.floor(8 * x / w);
            cells[c] += v; counts[c]++;
          }
        }
        var means = cells.map(function (s, c) { return Math.round(10 * s / Math.max(counts[c], 1)) / 10; });
        return {drawn: drawn / Math.ceil(h / 2) / Math.ceil(w / 2), width: w, height: h, cells: means};
      }
    };
  }
  function mount(root) {
    if (!root || root.getAttribute("data-mbd-mounted")) { return; }
    root.setAttribute("data-mbd-mounted", "1");
    var data = JSON.parse(root.querySelector("script.mbd-view3d-data").textContent);
    var times = new Float32Array(buffer(data.t));
    var ui = {slider: root.querySelector("input.mbd-player-control"), out: root.querySelector("output"),
              play: root.querySelector("button.mbd-player-play"),
              reset: root.querySelector(".mbd-view3d-reset"),
              label: function (k) { return times[k].toFixed(data.dec) + " s"; }};
    load(data).then(function (T) {
      try { build(T, root, data, ui); } catch (err) {
        fail(root, "error", "The 3-D view failed: " + err + "; above is a still of the motion.");
        console.error(err);
      }
    }, function (urls) {
      fail(root, "no-three", "A still of the motion: the orbitable 3-D view needs three.js, which the " +
           "HTML book carries (" + (urls.length ? "not found at " + urls.join(", ") : "open the book, or " +
           "JupyterLab via make lab from the repository") + ").");
    });
  }
  return {mount: mount, load: load};
})(); }
// the player is this script's parent (two identical players on one page share an id)
lib.mount(document.currentScript ? document.currentScript.parentNode : document.getElementById(id));
})(__ID__);"""
