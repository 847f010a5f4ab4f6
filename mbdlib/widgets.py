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

import os
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as w
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display

from .frames import FramePlayer, frame_grid

__all__ = ["interactive_figure", "running_in_kernel", "slider", "dropdown", "static_grid", "LiveAndStatic"]

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
    """
    if isinstance(control, _CHOICES):
        return list(control._options_values)
    if isinstance(control, w.FloatLogSlider):
        exps = np.linspace(control.min, control.max, points)
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


def _counterpart(draw, controls: dict, static, points: int) -> FramePlayer | None:
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
    return frame_grid(draw, grid, labels, fixed=fixed, start=start, note=note, choices=choices).mark_widget()


def interactive_figure(draw: Callable[..., object], controls: Mapping[str, w.ValueWidget],
                       columns: int = 3, static: Sequence[str] | Mapping[str, Sequence] | bool | None = None,
                       points: int = STATIC_POINTS) -> w.VBox:
    """Show ``controls`` above an output area in which ``draw(**values)`` draws.

    Parameters
    ----------
    draw : callable
        Called as ``draw(**{name: control.value})``; it draws with matplotlib
        (a new figure each time) and may also print text.
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
    """
    controls = dict(controls)
    out = w.Output()

    def refresh(_change=None):
        values = {name: c.value for name, c in controls.items()}
        with out:
            if running_in_kernel():  # outside a kernel there is nothing to clear
                out.clear_output(wait=True)
            draw(**values)
            plt.show()

    for c in controls.values():
        c.observe(refresh, names="value")
    items = list(controls.values())
    rows = [w.HBox(items[i:i + columns]) for i in range(0, len(items), columns)]
    box = w.VBox([*rows, out])
    player = _counterpart(draw, controls, static, points)
    display(LiveAndStatic(box, player))
    refresh()  # once, with the default values: this is what runs headless
    return box
