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

Nothing in the core of mbdlib imports this module (it sits on top, with
plotting).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

import ipywidgets as w
import matplotlib.pyplot as plt
from IPython.display import display

__all__ = ["interactive_figure", "running_in_kernel", "slider", "dropdown"]


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
    """
    options = list(options)
    value = options[0] if value is None else value
    return w.Dropdown(options=options, value=value, description=description,
                      style={"description_width": "initial"})


def interactive_figure(draw: Callable[..., object], controls: Mapping[str, w.ValueWidget],
                       columns: int = 3) -> w.VBox:
    """Show ``controls`` above an output area in which ``draw(**values)`` draws.

    Parameters
    ----------
    draw : callable
        Called as ``draw(**{name: control.value})``; it draws with matplotlib
        (a new figure each time) and may also print or display text.
    controls : mapping of str to ipywidgets value widget
        Keyword name of ``draw`` -> control.
    columns : int
        Controls per row.

    Returns
    -------
    ipywidgets.VBox
        The displayed box (already displayed; returned for tests).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> calls = []
    >>> a = slider(1.0, 0.0, 2.0, description="a")
    >>> box = interactive_figure(lambda a: calls.append(a), {"a": a})  # doctest: +ELLIPSIS
    VBox(children=...
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
    display(box)
    refresh()  # once, with the default values: this is what runs headless
    return box
