"""Figures that move in a static page: precomputed frames behind a slider (and a play button).

The HTML book has no Python kernel and no WebAssembly numpy in the reader's browser, so a figure that
should respond to a slider, or a motion that should play, carries its own frames: every picture is
drawn here, in advance, and a few lines of JavaScript (no library, no network) show the one the
slider points at. Two uses:

* :func:`animate` – a motion: one frame per time step, a play/pause button and a time slider;
* :func:`frame_grid` – the counterpart of a live widget (:func:`mbdlib.widgets.interactive_figure`
  builds it): the figure drawn for every point of a small grid of slider values, one slider per
  grid axis.

Both return a :class:`FramePlayer`, which a notebook displays as HTML (``_repr_html_``).  Frames are
PNG images reduced to a 256-colour palette (line art loses nothing visible and the file shrinks
3–5×); identical frames are stored once.  ``FramePlayer.nbytes`` is the size the page grows by.

Like :mod:`mbdlib.plotting` and :mod:`mbdlib.widgets`, this module sits on top of the library:
nothing in the core imports it.

Examples
--------
>>> import matplotlib; matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> fig, ax = plt.subplots(figsize=(2, 1.5))
>>> line, = ax.plot([0, 1], [0, 0])
>>> player = animate(fig, lambda k: line.set_ydata([0, k]), 3, labels=["0 s", "1 s", "2 s"])
>>> player.shape, player.n_unique
((3,), 3)
>>> "mbd-player" in player.to_html() and 'type="range"' in player.to_html()
True
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from PIL import Image

__all__ = ["Axis", "Frame", "FramePlayer", "animate", "encode_png", "figure_png", "frame_grid",
           "render_frame"]

#: Colours kept in a frame's palette (PNG "P" mode).
PALETTE_COLORS = 256


def figure_png(fig, palette: bool = True) -> bytes:
    """The figure as PNG bytes at its own size and dpi, reduced to a 256-colour palette by default.

    The canvas is drawn once and its pixels encoded here (Pillow, no text chunks), which is faster than
    ``savefig`` and gives the same bytes for the same drawing.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig = plt.figure(figsize=(1, 1), dpi=100); png = figure_png(fig); plt.close(fig)
    >>> png[:4] == b"\\x89PNG", Image.open(io.BytesIO(png)).size
    (True, (100, 100))
    """
    fig.canvas.draw()
    return encode_png(fig.canvas.buffer_rgba(), palette=palette)


def encode_png(rgba, palette: bool = True, compress_level: int = -1) -> bytes:
    """PNG bytes of an opaque RGBA pixel buffer (e.g. ``fig.canvas.buffer_rgba()``), alpha dropped.

    ``palette`` reduces it to 256 colours (line art loses nothing visible); ``compress_level`` is zlib's:
    1 (fast, for a live widget) to 9 (small), -1 its default (6). The same pixels give the same bytes.

    >>> png = encode_png(np.full((2, 3, 4), 255, dtype=np.uint8), compress_level=1)
    >>> png[:4] == b"\\x89PNG", Image.open(io.BytesIO(png)).size
    (True, (3, 2))
    """
    rgba = np.asarray(rgba)
    image = Image.fromarray(np.ascontiguousarray(rgba[..., :3]))  # the background is opaque: RGB
    if palette:
        image = image.quantize(colors=PALETTE_COLORS, method=Image.Quantize.FASTOCTREE,
                               dither=Image.Dither.NONE)
    out = io.BytesIO()
    image.save(out, format="png", compress_level=compress_level)
    return out.getvalue()


@dataclass(frozen=True)
class Frame:
    """One picture of a player: PNG bytes (or None for a text-only frame) and the text printed with it."""

    png: bytes | None
    text: str = ""

    def data_uri(self) -> str:
        """The PNG as a ``data:`` URI (empty string for a text-only frame)."""
        if self.png is None:
            return ""
        return "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")


def _stack_vertically(pngs: list[bytes]) -> bytes:
    images = [Image.open(io.BytesIO(p)).convert("RGB") for p in pngs]
    width = max(im.width for im in images)
    canvas = Image.new("RGB", (width, sum(im.height for im in images)), "white")
    y = 0
    for im in images:
        canvas.paste(im, (0, y))
        y += im.height
    out = io.BytesIO()
    canvas.quantize(colors=PALETTE_COLORS, method=Image.Quantize.FASTOCTREE,
                    dither=Image.Dither.NONE).save(out, format="png")
    return out.getvalue()


def render_frame(draw: Callable[..., object], /, *args, **kwargs) -> Frame:
    """Call ``draw(*args, **kwargs)`` and keep what it shows: the figures it opened and the text it printed.

    The figures that ``draw`` creates are saved (one PNG; several figures are stacked top to bottom) and
    closed; figures that were open before are left alone.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> def draw(a):
    ...     print(f"a = {a}")
    ...     plt.subplots(figsize=(1, 1))
    >>> f = render_frame(draw, 2)
    >>> f.text, f.png is not None
    ('a = 2\\n', True)
    """
    before = set(plt.get_fignums())
    text = io.StringIO()
    try:
        with contextlib.redirect_stdout(text):
            draw(*args, **kwargs)
        new = [n for n in plt.get_fignums() if n not in before]
        pngs = [figure_png(plt.figure(n)) for n in new]
    finally:
        for n in plt.get_fignums():
            if n not in before:
                plt.close(n)
    png = None if not pngs else pngs[0] if len(pngs) == 1 else _stack_vertically(pngs)
    return Frame(png, text.getvalue())


@dataclass(frozen=True)
class Axis:
    """One control of a player: its name, the label of each of its positions, where it starts, and whether it
    is a slider (ordered values) or a choice (a drop-down list, for options that have no order)."""

    name: str
    labels: tuple[str, ...]
    start: int = 0
    choice: bool = False

    def __post_init__(self):
        if not self.labels:
            raise ValueError(f"player axis {self.name!r}: it needs at least one position")
        if not 0 <= self.start < len(self.labels):
            raise ValueError(f"player axis {self.name!r}: start {self.start} is not one of its "
                             f"{len(self.labels)} positions")


_SCRIPT = """(function () {
  var root = document.getElementById(%(id)s);
  var data = JSON.parse(root.querySelector("script.mbd-player-data").textContent);
  var img = root.querySelector("img.mbd-player-img"), pre = root.querySelector("pre.mbd-player-text");
  var inputs = root.querySelectorAll(".mbd-player-control");
  var play = root.querySelector("button.mbd-player-play"), timer = null;
  function show() {
    var k = 0;
    for (var i = 0; i < inputs.length; i++) {
      var v = parseInt(inputs[i].value, 10);
      k = k * data.shape[i] + v;
      var out = inputs[i].parentNode.querySelector("output");  // a slider's readout (a list has none)
      if (out) { out.textContent = data.labels[i][v]; }
    }
    var f = data.index[k];
    if (img) { img.src = data.frames[f]; }
    if (pre) { pre.textContent = data.texts[f]; }
    root.setAttribute("data-frame", String(f));
  }
  for (var i = 0; i < inputs.length; i++) {
    inputs[i].addEventListener("input", show);
    inputs[i].addEventListener("change", show);
  }
  if (play) {
    play.addEventListener("click", function () {
      if (timer) { clearInterval(timer); timer = null; play.textContent = "\\u25B6 play"; return; }
      play.textContent = "\\u275A\\u275A pause";
      timer = setInterval(function () {
        var s = inputs[0], n = data.shape[0];
        s.value = String((parseInt(s.value, 10) + 1) %% n);
        show();
      }, data.interval);
    });
  }
  show();
})();"""

_STYLE = ("border:1px solid #c9c9c9;border-radius:4px;padding:6px 8px;margin:0.5em 0;max-width:100%;"
          "box-sizing:border-box")


class FramePlayer:
    """Frames on a grid of slider positions, shown as HTML with one slider per axis (and, for motion, a play
    button).

    Parameters
    ----------
    frames : sequence of Frame
        One per grid point, in C order (the last axis varies fastest).
    axes : sequence of Axis
        The sliders; the product of their lengths is ``len(frames)``.
    title : str
        A line above the controls.
    note : str
        A line below the picture (e.g. which controls are fixed).
    interval : int or None
        Milliseconds between frames when playing; None for no play button (a grid of a widget).
    alt : str
        Text alternative of the picture.
    """

    def __init__(self, frames: Sequence[Frame], axes: Sequence[Axis], title: str = "", note: str = "",
                 interval: int | None = None, alt: str = "figure"):
        axes = tuple(axes)
        if not axes:
            raise ValueError("FramePlayer: give at least one axis (slider)")
        shape = tuple(len(a.labels) for a in axes)
        frames = list(frames)
        if len(frames) != int(np.prod(shape)):
            raise ValueError(f"FramePlayer: {len(frames)} frames for a grid of shape {shape} "
                             f"({int(np.prod(shape))} points)")
        if interval is not None and (interval <= 0 or len(axes) != 1):
            raise ValueError("FramePlayer: a playing player has one axis (time) and a positive interval")
        unique: dict[Frame, int] = {}
        self.index = [unique.setdefault(f, len(unique)) for f in frames]
        self.frames = list(unique)
        self.axes, self.shape = axes, shape
        self.title, self.note, self.interval, self.alt = title, note, interval, alt
        self._extra_attrs = ""

    def mark_widget(self) -> FramePlayer:
        """Mark this player as the counterpart of a live widget (the book check counts them)."""
        self._extra_attrs = ' data-mbd-widget="1"'
        return self

    @property
    def n_unique(self) -> int:
        """Number of distinct pictures stored."""
        return len(self.frames)

    @property
    def nbytes(self) -> int:
        """Size of the HTML (what the page grows by), in bytes."""
        return len(self.to_html().encode("utf-8"))

    def _start(self) -> int:
        k = 0
        for a, n in zip(self.axes, self.shape, strict=True):
            k = k * n + a.start
        return self.index[k]

    def to_html(self) -> str:
        """Self-contained HTML: the picture, the sliders, the frames as data URIs and a small script."""
        data = {"shape": self.shape, "labels": [list(a.labels) for a in self.axes], "index": self.index,
                "frames": [f.data_uri() for f in self.frames], "texts": [f.text for f in self.frames],
                "interval": self.interval or 0}
        payload = json.dumps(data, separators=(",", ":"))
        # a deterministic id (same content -> same page), unique per player on a page
        uid = "mbd-player-" + hashlib.sha1(payload.encode()).hexdigest()[:12]
        start = self.frames[self._start()]
        kind = "animation" if self.interval is not None else "grid"
        parts = [f'<div class="mbd-player" id="{uid}" data-mbd-kind="{kind}"{self._extra_attrs} '
                 f'style="{_STYLE}">']
        if self.title:
            parts.append(f'<div class="mbd-player-title" style="font-weight:600;margin-bottom:4px">'
                         f"{html.escape(self.title)}</div>")
        parts.append('<div class="mbd-player-controls" style="display:flex;flex-wrap:wrap;gap:4px 18px;'
                     'align-items:center">')
        if self.interval is not None:
            parts.append('<button type="button" class="mbd-player-play" style="min-width:6em">'
                         "\u25B6 play</button>")
        for a, n in zip(self.axes, self.shape, strict=True):
            label = ('<label class="mbd-player-axis" style="display:flex;align-items:center;gap:6px">'
                     f"{html.escape(a.name)} ")
            if a.choice:
                options = "".join(f'<option value="{k}"{" selected" if k == a.start else ""}>'
                                  f"{html.escape(text)}</option>" for k, text in enumerate(a.labels))
                parts.append(label + f'<select class="mbd-player-control" aria-label="{html.escape(a.name)}">'
                             f"{options}</select></label>")
            else:
                parts.append(label + f'<input class="mbd-player-control" type="range" min="0" '
                             f'max="{n - 1}" step="1" value="{a.start}" aria-label="{html.escape(a.name)}" '
                             'style="width:11em">'
                             f'<output style="min-width:4em;font-variant-numeric:tabular-nums">'
                             f"{html.escape(a.labels[a.start])}</output></label>")
        parts.append("</div>")
        if any(f.png is not None for f in self.frames):
            parts.append(f'<img class="mbd-player-img" alt="{html.escape(self.alt)}" '
                         f'src="{start.data_uri()}" '
                         'style="display:block;max-width:100%;height:auto;margin:4px auto">')
        if any(f.text for f in self.frames):
            parts.append('<pre class="mbd-player-text" style="margin:4px 0;white-space:pre-wrap">'
                         f"{html.escape(start.text)}</pre>")
        if self.note:
            parts.append(f'<div class="mbd-player-note" style="font-size:0.85em;color:#555">'
                         f"{html.escape(self.note)}</div>")
        safe = payload.replace("</", "<\\/")  # a JSON string may not close the script element
        parts.append(f'<script type="application/json" class="mbd-player-data">{safe}</script>')
        parts.append("<script>" + _SCRIPT % {"id": json.dumps(uid)} + "</script></div>")
        return "".join(parts)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        kind = "animation" if self.interval is not None else "grid"
        grid = " × ".join(map(str, self.shape))
        size = f"{self.nbytes / 1e6:.2f} MB"
        return f"<FramePlayer {kind}: {grid} positions, {self.n_unique} distinct frames, {size}>"


def animate(fig, update: Callable[[int], object], n_frames: int, labels: Sequence[str] | None = None,
            fps: float = 12.0, title: str = "", note: str = "", axis_name: str = "t",
            close: bool = True) -> FramePlayer:
    """A motion for a static page: call ``update(k)`` for ``k = 0 … n_frames − 1`` and keep each picture.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure whose artists ``update`` moves (as for ``matplotlib.animation.FuncAnimation``).
    update : callable
        ``update(k)`` sets the artists for frame ``k``.
    n_frames : int
        Number of frames (keep a page under a few MB: a column-wide frame is ~10–40 kB).
    labels : sequence of str, optional
        The slider's readout per frame (e.g. ``"t = 0.40 s"``); frame numbers if omitted.
    fps : float
        Frames per second when playing.
    title, note : str
        Lines above the controls and below the picture.
    axis_name : str
        Name of the slider.
    close : bool
        Close ``fig`` afterwards (so the notebook does not also show it as a still).

    Returns
    -------
    FramePlayer
    """
    if n_frames < 1:
        raise ValueError(f"animate: n_frames must be at least 1, got {n_frames}")
    labels = [str(k) for k in range(n_frames)] if labels is None else [str(x) for x in labels]
    if len(labels) != n_frames:
        raise ValueError(f"animate: {len(labels)} labels for {n_frames} frames")
    if not fps > 0:
        raise ValueError(f"animate: fps must be positive, got {fps!r}")
    frames = []
    try:
        for k in range(n_frames):
            update(k)
            frames.append(Frame(figure_png(fig)))
            if k == 0:
                # freeze the layout of the first frame: the axes stay put while the artists move, and
                # constrained layout is not recomputed for every frame (it is most of the drawing time)
                fig.set_layout_engine("none")
    finally:
        if close:
            plt.close(fig)
    return FramePlayer(frames, [Axis(axis_name, tuple(labels), 0)], title=title, note=note,
                       interval=max(1, int(round(1000 / fps))), alt=title or "animation")


def frame_grid(draw: Callable[..., object], grid: dict[str, Sequence], labels: dict[str, Sequence[str]],
               fixed: dict | None = None, start: dict | None = None, title: str = "",
               note: str = "", choices: Sequence[str] = (),
               render: Callable[..., Frame] | None = None) -> FramePlayer:
    """Draw ``draw(**values)`` at every point of a grid of values: the frames of a widget's counterpart.

    Parameters
    ----------
    draw : callable
        The widget's drawing function (opens its own figure, may print).
    grid : dict of str to sequence
        Keyword -> the values it takes (one slider each, in this order).
    labels : dict of str to sequence of str
        Keyword -> the readout shown for each value, and the slider's name is the keyword's entry in
        ``labels["__names__"]`` if present (else the keyword).
    fixed : dict, optional
        Keywords held at one value in every frame.
    start : dict of str to int, optional
        Keyword -> index of the value shown first (default 0).
    choices : sequence of str
        Keywords shown as a drop-down list instead of a slider (options without an order).
    title, note : str
        Lines above the controls and below the picture.
    render : callable, optional
        ``render(**values)`` returns the :class:`Frame` of one grid point, for a drawing that does not
        open a new figure (a figure updated in place, see :func:`mbdlib.widgets.interactive_figure`).
        Default: :func:`render_frame` of ``draw``.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> def draw(a, b):
    ...     fig, ax = plt.subplots(figsize=(1, 1)); ax.plot([0, a], [0, b])
    >>> p = frame_grid(draw, {"a": [1, 2], "b": [0, 1, 2]}, {"a": ["1", "2"], "b": ["0", "1", "2"]})
    >>> p.shape, len(p.index)
    ((2, 3), 6)
    """
    fixed = dict(fixed or {})
    start = dict(start or {})
    names = dict(labels.get("__names__", {}))
    keys = list(grid)
    if not keys:
        raise ValueError("frame_grid: the grid needs at least one keyword")
    axes = []
    for key in keys:
        if len(labels.get(key, ())) != len(grid[key]):
            raise ValueError(f"frame_grid: {key!r} has {len(grid[key])} values and "
                             f"{len(labels.get(key, ()))} labels")
        axes.append(Axis(names.get(key, key), tuple(labels[key]), int(start.get(key, 0)), key in choices))
    frames = []
    for point in np.ndindex(*(len(grid[k]) for k in keys)):
        values = {k: grid[k][i] for k, i in zip(keys, point, strict=True)}
        frames.append(render_frame(draw, **fixed, **values) if render is None else render(**fixed, **values))
    return FramePlayer(frames, axes, title=title, note=note, alt=title or "figure")
