"""ipywidgets front ends that also run headless.

A chapter's interactive figure is a drawing function plus a few controls.
:func:`interactive_figure` wires them so that

* the drawing function runs **once, at once, with the default values** – so a
  notebook executed headless (``jupyter-book build``, nbval, nbclient) still
  produces the figure, and a broken callback fails the build instead of
  failing silently in a reader's browser;
* in a live kernel every change of a control redraws the figure.

This is the "running as notebook" idea of Tedrake's course notebooks, made
unnecessary to check by hand: the callback always runs once.

**Answering fast.** A reader waits for the callback after each move of a control; the course's target
is 0.1 s. Two ways to draw:

* ``draw(**values)`` opens a new figure each time (simple; building the axes, laying them out and
  drawing every tick label each time costs 0.1–0.5 s for a column-wide figure);
* ``interactive_figure(update, controls, figure=fig)``: ``fig`` is built once, and ``update(**values)``
  changes its artists in place and returns the ones it changed. Those are drawn over a picture of the
  rest kept from the first drawing (blitting), which costs a few milliseconds: the axes, ticks and
  legend are drawn once. ``update`` may return ``None`` to have the whole figure redrawn (when it
  changes the axes' limits, say).

Either way the picture is shown as a PNG made from the canvas's pixels (one drawing, fast zlib level)
rather than through the inline backend, which draws the figure twice (once to find a tight bounding box).
And the positions the static counterpart stores are drawn already: after the first drawing, a reader
who moves the controls to one of them gets its frame (picture and printed text) without a new call.

**The static counterpart.** The HTML book has no kernel, so a live slider there
could not redraw anything. :func:`interactive_figure` therefore also draws the
figure over a small grid of values of its main control(s) (``static=``) and
displays the live widget and this :class:`~mbdlib.frames.FramePlayer` as *one*
output with two representations: JupyterLab and VS Code show the live widget
(the widget view ranks first there); the book is configured to prefer the HTML
one (``nb_mime_priority_overrides`` in ``book/_config.yml``), whose slider
switches between the precomputed pictures with no Python behind it.

Nothing in the core of mbdlib imports this module (it sits on top, with
plotting).
"""

from __future__ import annotations

import contextlib
import io
import os
import weakref
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as w
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Image, display
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg

from .frames import Frame, FramePlayer, encode_png, frame_grid

__all__ = ["interactive_figure", "running_in_kernel", "slider", "dropdown", "static_grid", "LiveAndStatic",
           "LiveFigure"]

#: Positions of a slider in an automatic static grid.
STATIC_POINTS = 9


def running_in_kernel() -> bool:
    """True inside an IPython kernel with a front end that can show widgets.

    Set the environment variable ``MBDLIB_HEADLESS=1`` to force ``False``
    (scripts and tests do this).

    >>> running_in_kernel()
    False
    """
    if os.environ.get("MBDLIB_HEADLESS", "") not in ("", "0"):
        return False
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def slider(value: float, lo: float, hi: float, step: float | None = None, description: str = "",
           readout_format: str = ".2f") -> w.FloatSlider:
    """A float slider with a continuous-update-off default (one redraw per release).

    >>> s = slider(0.5, 0.0, 1.0, description="x")
    >>> (s.value, s.min, s.max)
    (0.5, 0.0, 1.0)
    """
    if not lo <= value <= hi:
        raise ValueError(f"slider {description!r}: default {value} is outside [{lo}, {hi}]")
    step = (hi - lo) / 100 if step is None else step
    return w.FloatSlider(value=value, min=lo, max=hi, step=step, description=description,
                         continuous_update=False, readout_format=readout_format,
                         style={"description_width": "initial"})


def dropdown(options, value=None, description: str = "") -> w.Dropdown:
    """A drop-down list; ``value`` defaults to the first option.

    >>> dropdown(["a", "b"], description="pick").value
    'a'
    >>> dropdown([("four-bar", "fourbar"), ("slider-crank", "slider_crank")]).value
    'fourbar'
    """
    options = list(options)
    if value is None:  # the first option's value ((label, value) pairs or plain values)
        value = options[0][1] if isinstance(options[0], tuple) else options[0]
    return w.Dropdown(options=options, value=value, description=description,
                      style={"description_width": "initial"})


_CHOICES = (w.Dropdown, w.ToggleButtons, w.RadioButtons)


def _readout(control, value) -> str:
    """The text a control shows for ``value``: a choice's label, or the value in the slider's readout format.

    >>> _readout(dropdown([("four-bar", "fourbar")]), "fourbar")
    'four-bar'
    >>> _readout(slider(1.0, 0.0, 2.0, readout_format=".1f"), 1.0)
    '1.0'
    """
    if isinstance(control, _CHOICES):
        labels = dict(zip(control._options_values, control._options_labels, strict=True))
        return str(labels.get(value, value))
    fmt = getattr(control, "readout_format", None)
    try:
        return format(value, fmt) if fmt else str(value)
    except (TypeError, ValueError):
        return str(value)


def static_grid(control, points: int = STATIC_POINTS) -> list:
    """Values of ``control`` for a static counterpart: a drop-down's options, or ``points`` slider values.

    A slider's values are evenly spaced over its range (on its step), and always include its default, so
    that the counterpart opens on the same picture as the live widget.

    >>> static_grid(slider(30.0, -90.0, 90.0, 1.0), points=7)
    [-90.0, -60.0, -30.0, 0.0, 30.0, 60.0, 90.0]
    >>> static_grid(slider(0.25, 0.0, 1.0, 0.05), points=3)
    [0.0, 0.25, 0.5, 1.0]
    >>> static_grid(dropdown(["a", "b"]))
    ['a', 'b']
    >>> static_grid(w.FloatLogSlider(value=1e-5, base=10, min=-8, max=-3, step=1), points=5)
    [1e-08, 1e-07, 1e-06, 1e-05, 0.0001, 0.001]
    """
    if isinstance(control, _CHOICES):
        return list(control._options_values)
    if isinstance(control, w.FloatLogSlider):
        exps = np.linspace(control.min, control.max, points)
        if control.step:  # positions the slider can take
            exps = control.min + np.round((exps - control.min) / control.step) * control.step
        values = sorted({float(control.base ** e) for e in exps} | {float(control.value)})
        return values
    if isinstance(control, (w.FloatSlider, w.IntSlider)):
        lo, hi, step = control.min, control.max, control.step or (control.max - control.min) / (points - 1)
        raw = np.linspace(lo, hi, points)
        snapped = np.clip(lo + np.round((raw - lo) / step) * step, lo, hi)
        cast = int if isinstance(control, w.IntSlider) else float
        values = {cast(round(v, 12)) for v in snapped} | {cast(control.value)}
        return sorted(values)
    if isinstance(control, w.Checkbox):
        return [False, True]
    raise TypeError(f"static_grid: give the values of a {type(control).__name__} explicitly "
                    "(static={name: [values]})")


class LiveAndStatic:
    """One output, two representations: the live widget (JupyterLab, VS Code) and its static counterpart
    (the HTML book, which prefers ``text/html``)."""

    def __init__(self, widget: w.Widget, player: FramePlayer | None):
        self.widget, self.player = widget, player

    def __repr__(self) -> str:
        return f"LiveAndStatic({type(self.widget).__name__}, {self.player!r})"

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data = dict(data or {})
        if self.player is not None:
            data["text/html"] = self.player.to_html()
        return data


#: zlib level of the live widget's PNG (fast; the static frames use the default level, for small pages).
LIVE_COMPRESS_LEVEL = 1


class LiveFigure:
    """A figure drawn once and then updated in place: only the artists that changed are redrawn.

    ``render(artists)`` returns the figure's pixels (an RGBA buffer). With ``artists=None`` the whole
    figure is drawn (its layout engine included). With a sequence of artists, those are marked animated,
    the rest of the figure is drawn once and kept as a background, and each later call restores that
    background and draws just them, above everything else, in the order of their ``zorder`` as their
    axes would (matplotlib's blitting): give also what must stay above them (a legend).

    An axes among the artists is a layer: it is left out of the background and drawn whole (ticks,
    labels, legend; not those of its children that are given too) when its limits change, and kept as
    drawn while they do not. An axes whose limits follow the values thus costs a drawing only when they
    move.

    The artists may be new ones each time (drawn by a helper after removing the previous ones); the
    background is drawn again only when it is stale: an artist it shows is now given, or an artist given
    before is still in the figure but no longer given; or after :meth:`invalidate` (call it when anything
    else changes).

    The figure is detached from pyplot (``plt.close``), so that a notebook does not also show it as a
    still at the end of the cell; it keeps an Agg canvas to be drawn on.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
    >>> line, = ax.plot([0, 1], [0, 1])
    >>> live = LiveFigure(fig)
    >>> a = np.array(live.render([line]))
    >>> line.set_ydata([1, 0]); b = np.array(live.render([line]))
    >>> line.set_ydata([0, 1]); c = np.array(live.render([line]))
    >>> a.shape, bool((a == c).all()), bool((a != b).any()), live.full_draws
    ((75, 100, 4), True, True, 1)
    """

    def __init__(self, fig):
        self.fig = fig
        self.animated: tuple = ()
        self.background = None
        self.full_draws = 0  # how many times the whole figure was drawn (for tests)
        self.layer_draws = 0  # how many times the axes layers were drawn
        self._in_background = weakref.WeakSet()  # the artists the background shows
        self._layers, self._layer_keys = None, None  # the background with the layers drawn; their limits
        plt.close(fig)
        if not isinstance(fig.canvas, FigureCanvasAgg):  # closing leaves a canvas that cannot draw
            FigureCanvasAgg(fig)

    def invalidate(self) -> None:
        """Forget the background: the next :meth:`render` draws the whole figure."""
        self.background = None

    def _set_animated(self, artists: tuple) -> None:
        for a in self.animated:
            a.set_animated(False)
        for a in artists:
            a.set_animated(True)
        self.animated = artists

    def _stale(self, artists: tuple) -> bool:
        if self.background is None:
            return True
        new = {id(a) for a in artists}
        if any(id(a) not in new and a.get_figure(root=False) is not None for a in self.animated):
            return True  # was left out of the background, and would now be missing from the picture
        old = {id(a) for a in self.animated}
        return any(id(a) not in old and a in self._in_background for a in artists)

    def render(self, artists=None):
        canvas = self.fig.canvas
        if artists is None:
            self._set_animated(())
            self.background = None
            canvas.draw()
            self.full_draws += 1
            return canvas.buffer_rgba()
        artists = tuple(artists)
        if self._stale(artists):
            self._set_animated(artists)
            canvas.draw()  # everything but the animated artists
            self.full_draws += 1
            self.background = canvas.copy_from_bbox(self.fig.bbox)
            self._in_background = weakref.WeakSet(a for a in self.fig.findobj() if not a.get_animated())
            self._layer_keys = None
        else:
            self._set_animated(artists)
        layers = [a for a in artists if isinstance(a, Axes)]
        keys = [(id(ax), tuple(ax.viewLim.bounds)) for ax in layers]
        if not layers:
            canvas.restore_region(self.background)
        elif keys == self._layer_keys:
            canvas.restore_region(self._layers)
        else:  # draw the layers over the background, and keep that
            canvas.restore_region(self.background)
            for ax in layers:
                self.fig.draw_artist(ax)
            self.layer_draws += 1
            self._layers, self._layer_keys = canvas.copy_from_bbox(self.fig.bbox), keys
        for a in sorted((a for a in artists if not isinstance(a, Axes)), key=lambda a: a.get_zorder()):
            if hasattr(a, "do_3d_projection"):  # 3-D collections project when their axes draw
                a.do_3d_projection()
            self.fig.draw_artist(a)  # sorted is stable: equal zorders keep their order
        return canvas.buffer_rgba()


def _capture(func, /, **values):
    """``func(**values)`` with what it prints: (its return value, the text)."""
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        result = func(**values)
    return result, text.getvalue()


def _counterpart(draw, controls: dict, static, points: int, live: LiveFigure | None = None
                 ) -> FramePlayer | None:
    if static is False:
        return None
    if static is None:
        static = [next(iter(controls))]
    if not isinstance(static, Mapping):
        static = {name: None for name in static}
    unknown = set(static) - set(controls)
    if unknown:
        raise ValueError(f"interactive_figure: static names {sorted(unknown)} are not controls "
                         f"(controls: {list(controls)})")
    grid, labels, start = {}, {"__names__": {}}, {}
    for name, values in static.items():
        c = controls[name]
        values = static_grid(c, points) if values is None else list(values)
        if c.value not in values:
            raise ValueError(f"interactive_figure: the static values of {name!r} must include its "
                             f"default {c.value!r}")
        grid[name] = values
        labels[name] = [_readout(c, v) for v in values]
        labels["__names__"][name] = (c.description or name).strip()
        start[name] = values.index(c.value)
    fixed = {n: c.value for n, c in controls.items() if n not in grid}
    moved = " × ".join(f"{len(grid[n])} values of {labels['__names__'][n]}" for n in grid)
    held = "; ".join(f"{(controls[n].description or n).strip()} = {_readout(controls[n], v)}"
                     for n, v in fixed.items())
    note = f"Static version of the live figure, precomputed for {moved}"
    note += f" (held: {held}). " if held else ". "
    note += "Run the notebook to move every control freely."
    choices = [n for n in grid if isinstance(controls[n], _CHOICES)]
    render = None
    if live is not None:  # the same figure, updated in place, for every frame

        def render(**values):
            artists, text = _capture(draw, **values)
            return Frame(encode_png(live.render(artists)), text)

    player = frame_grid(draw, grid, labels, fixed=fixed, start=start, note=note, choices=choices,
                        render=render).mark_widget()
    # the frame of each stored position, by the values of all the controls (in their order)
    player._by_values = {}
    for k, point in enumerate(np.ndindex(*(len(v) for v in grid.values()))):
        values = {**fixed, **{n: grid[n][i] for n, i in zip(grid, point, strict=True)}}
        player._by_values[_key(controls, values)] = player.frames[player.index[k]]
    return player


def _key(controls: dict, values: dict):
    try:
        key = tuple(values[n] for n in controls)
        hash(key)
    except (TypeError, KeyError):
        return None
    return key


def interactive_figure(draw: Callable[..., object], controls: Mapping[str, w.ValueWidget],
                       columns: int = 3, static: Sequence[str] | Mapping[str, Sequence] | bool | None = None,
                       points: int = STATIC_POINTS, figure=None) -> w.VBox:
    """Show ``controls`` above an output area in which ``draw(**values)`` draws.

    Parameters
    ----------
    draw : callable
        Called as ``draw(**{name: control.value})``; it draws with matplotlib
        (a new figure each time, or, with ``figure``, into that figure) and may also print text.
    controls : mapping of str to ipywidgets value widget
        Keyword name of ``draw`` -> control.
    columns : int
        Controls per row.
    static : sequence of names, mapping of name to values, or False, optional
        The control(s) that the static counterpart of the HTML book lets the reader move: names (values
        from :func:`static_grid`), or names with their values. The others stay at their defaults. Default:
        the first control. ``False``: no counterpart (the widget then does nothing in the HTML book).
    points : int
        Slider positions in an automatic grid.
    figure : matplotlib.figure.Figure, optional
        A figure built once (axes, labels, the artists ``draw`` will change). ``draw`` then updates it in
        place instead of opening a figure, and returns the artists it changed (they alone are redrawn, over
        the rest kept from the first drawing: see :class:`LiveFigure`), or ``None`` to have the whole
        figure redrawn. The static counterpart's frames are drawn the same way.

    Returns
    -------
    ipywidgets.VBox
        The live widget (already displayed, with its counterpart; returned for tests).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> calls = []
    >>> a = slider(1.0, 0.0, 2.0, description="a")
    >>> box = interactive_figure(lambda a: calls.append(a), {"a": a}, static=False)
    LiveAndStatic(VBox, None)
    >>> a.value = 1.5          # a reader moves the slider: the figure is redrawn
    >>> calls
    [1.0, 1.5]

    A figure updated in place:

    >>> fig, ax = plt.subplots(figsize=(3, 2))
    >>> line, = ax.plot([0, 1], [0, 1])
    >>> def update(a):
    ...     line.set_ydata([0, a])
    ...     return [line]
    >>> box = interactive_figure(update, {"a": slider(1.0, 0.0, 2.0)}, figure=fig)  # doctest: +ELLIPSIS
    LiveAndStatic(VBox, <FramePlayer grid: 9 positions, 9 distinct frames, ...>)
    """
    controls = dict(controls)
    out = w.Output()
    live = None if figure is None else LiveFigure(figure)

    def show(pngs, kernel):
        if kernel:  # outside a kernel there is nothing to show the picture in
            for png in pngs:
                display(Image(data=png, format="png"))

    stored = {}  # the frames of the static counterpart, by the values of the controls

    def refresh(_change=None):
        values = {name: c.value for name, c in controls.items()}
        kernel = running_in_kernel()
        with out:
            if kernel:  # outside a kernel there is nothing to clear
                out.clear_output(wait=True)
            frame = stored.get(_key(controls, values))
            if frame is not None:  # a stored position: its picture is already drawn
                print(frame.text, end="")
                show([] if frame.png is None else [frame.png], kernel)
                return
            if live is not None:
                artists = draw(**values)
                show([encode_png(live.render(artists), compress_level=LIVE_COMPRESS_LEVEL)], kernel)
                return
            before = set(plt.get_fignums())
            try:
                draw(**values)
                new = [plt.figure(n) for n in plt.get_fignums() if n not in before]
                pngs = []
                for fig in new:  # drawn once, at the figure's size (no tight-box pass), encoded fast
                    fig.canvas.draw()
                    pngs.append(encode_png(fig.canvas.buffer_rgba(), compress_level=LIVE_COMPRESS_LEVEL))
            finally:
                for n in plt.get_fignums():
                    if n not in before:
                        plt.close(n)
            show(pngs, kernel)

    for c in controls.values():
        c.observe(refresh, names="value")
    items = list(controls.values())
    rows = [w.HBox(items[i:i + columns]) for i in range(0, len(items), columns)]
    box = w.VBox([*rows, out])
    player = _counterpart(draw, controls, static, points, live)
    display(LiveAndStatic(box, player))
    refresh()  # once, with the default values: this is what runs headless
    if player is not None:  # then a reader who moves to a stored position gets its frame at once
        stored.update(player._by_values)
    _settle_garbage_collector()
    return box


def _settle_garbage_collector() -> None:
    """Keep a full garbage collection out of the reader's wait.

    A chapter's kernel holds many objects (sympy expressions, figures, frames); a full collection scans them
    all, 70-140 ms in a chapter-1 kernel (bench/bench_book.py), and one landing inside a slider's callback
    doubles its answer time. What exists once the widget is built is collected once and then frozen
    (:func:`gc.freeze`), so later collections scan only what was allocated since. The price: a reference
    cycle among those frozen objects that becomes garbage later is not freed (objects without cycles are,
    by reference counting); a page builds its models and figures once, so little of it becomes garbage.
    """
    import gc

    gc.collect()
    gc.freeze()
