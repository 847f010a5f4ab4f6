"""The widget helpers run their callback headless, once, with the defaults, and on every change."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from mbdlib import widgets  # noqa: E402


def test_callback_runs_once_with_defaults_then_on_change():
    seen = []

    def draw(x, kind):
        seen.append((x, kind))
        plt.plot([0, x], [0, 1])

    x = widgets.slider(0.25, 0.0, 1.0, description="x")
    kind = widgets.dropdown(["a", "b"], description="kind")
    box = widgets.interactive_figure(draw, {"x": x, "kind": kind}, static=False)
    assert seen == [(0.25, "a")]
    kind.value = "b"
    x.value = 0.75
    assert seen == [(0.25, "a"), (0.25, "b"), (0.75, "b")]
    assert box.children[-1].__class__.__name__ == "Output"
    plt.close("all")


def test_error_in_callback_is_not_swallowed():
    def draw(x):
        raise RuntimeError("broken figure")

    with pytest.raises(RuntimeError, match="broken figure"):
        widgets.interactive_figure(draw, {"x": widgets.slider(0.0, 0.0, 1.0)})


def test_slider_default_outside_range_is_rejected():
    with pytest.raises(ValueError, match="outside"):
        widgets.slider(2.0, 0.0, 1.0, description="alpha")


def test_headless_flag(monkeypatch):
    monkeypatch.setenv("MBDLIB_HEADLESS", "1")
    assert widgets.running_in_kernel() is False


def test_figure_is_reused_and_only_the_returned_artists_are_redrawn():
    fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
    (line,) = ax.plot([0, 1], [0, 1])
    title = ax.set_title("")
    seen = []

    def update(a):
        seen.append(a)
        line.set_ydata([0, a])
        title.set_text(f"a = {a:.1f}")
        return [line, title]

    a = widgets.slider(1.0, 0.0, 2.0, 0.5, description="a")
    n_before = len(plt.get_fignums())
    box = widgets.interactive_figure(update, {"a": a}, static={"a": [0.0, 1.0, 2.0]}, figure=fig)
    assert len(plt.get_fignums()) == n_before - 1   # detached from pyplot: not shown again as a still
    assert seen == [0.0, 1.0, 2.0, 1.0]           # the three static frames, then the live default
    live_renders = []
    real = widgets.LiveFigure.render

    def spy(self, artists=None):
        live_renders.append((self.fig, artists))
        return real(self, artists)

    widgets.LiveFigure.render = spy
    try:
        a.value = 1.5
        a.value = 0.5
    finally:
        widgets.LiveFigure.render = real
    assert [f for f, _ in live_renders] == [fig, fig]   # the same figure, no new one
    assert all(list(arts) == [line, title] for _, arts in live_renders)
    assert list(line.get_ydata()) == [0, 0.5] and title.get_text() == "a = 0.5"
    assert line.get_animated() and title.get_animated()
    assert len(plt.get_fignums()) == n_before - 1 and isinstance(box.children[-1], widgets.w.Output)


def test_blitted_frames_equal_full_redraws_and_the_static_grid_is_still_made():
    def build():
        fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
        ax.set(xlim=(-1, 2), ylim=(-1, 3))   # the line stays off the spines (drawn above it otherwise)
        (line,) = ax.plot([0, 1], [0, 1])
        return fig, line

    fig_b, line_b = build()
    live = widgets.LiveFigure(fig_b)
    fig_f, line_f = build()
    full = widgets.LiveFigure(fig_f)
    for y in (0.5, 1.5, 2.0, 0.5):
        line_b.set_ydata([0, y])
        line_f.set_ydata([0, y])
        blitted = np.array(live.render([line_b]))
        line_f.set_animated(False)
        redrawn = np.array(full.render(None))
        assert (blitted == redrawn).all()
    assert live.full_draws == 1 and full.full_draws == 4
    live.invalidate()
    live.render([line_b])
    assert live.full_draws == 2

    fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
    (line,) = ax.plot([0, 1], [0, 1])

    def update(a, b):
        print(f"a = {a}")
        line.set_ydata([0, a + b])
        return [line]

    grid = widgets._counterpart(update, {"a": widgets.slider(1.0, 0.0, 2.0, 1.0),
                                         "b": widgets.slider(0.0, 0.0, 1.0)}, None, 3,
                                widgets.LiveFigure(fig))   # what interactive_figure(figure=fig) displays
    assert grid.shape == (3,) and grid.n_unique == 3
    assert [f.text for f in grid.frames] == ["a = 0.0\n", "a = 1.0\n", "a = 2.0\n"]
    assert all(f.png.startswith(b"\x89PNG") for f in grid.frames)


def test_a_full_redraw_when_update_returns_none():
    fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
    (line,) = ax.plot([0, 1], [0, 1])
    calls = []

    def update(a):
        calls.append(a)
        line.set_ydata([0, a])
        ax.set_ylim(0, max(a, 1.0))   # the axes change: the whole figure must be drawn

    a = widgets.slider(1.0, 0.0, 3.0, description="a")
    widgets.interactive_figure(update, {"a": a}, static=False, figure=fig)
    a.value = 3.0
    assert calls == [1.0, 3.0] and ax.get_ylim() == (0.0, 3.0) and not line.get_animated()


def test_new_figures_of_a_plain_draw_are_closed_after_each_call():
    n_before = len(plt.get_fignums())

    def draw(x):
        plt.subplots(figsize=(1, 1))
        plt.plot([0, x])

    x = widgets.slider(0.5, 0.0, 1.0, description="x")
    widgets.interactive_figure(draw, {"x": x})
    x.value = 0.75
    assert len(plt.get_fignums()) == n_before


def test_artists_drawn_anew_each_time_keep_the_background():
    fig, ax = plt.subplots(figsize=(2, 1.5), dpi=50)
    ax.set(xlim=(-1, 2), ylim=(-1, 3))
    fixed = ax.plot([0, 1], [2, 2])[0]
    live = widgets.LiveFigure(fig)
    moving = []
    for y in (0.5, 1.0, 1.5):
        for a in moving:
            a.remove()
        moving[:] = ax.plot([0, 1], [0, y])
        live.render(moving)
    assert live.full_draws == 1 and not fixed.get_animated()
    live.render([*moving, fixed])            # an artist of the background is now animated: redraw it
    assert live.full_draws == 2
    live.render(moving)                      # and back: it is still in the figure, so redraw again
    assert live.full_draws == 3 and not fixed.get_animated()


def test_an_axes_layer_is_drawn_again_only_when_its_limits_change():
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(3, 1.5), dpi=50)
    (line,) = ax1.plot([0, 1], [0, 1])
    (other,) = ax2.plot([0, 1], [0, 1])
    live = widgets.LiveFigure(fig)
    pictures = []
    for top in (1.0, 1.0, 2.0, 2.0):
        line.set_ydata([0, top * 0.9])
        ax1.set_ylim(0, top)
        pictures.append(np.array(live.render([ax1, line])))
    assert live.full_draws == 1 and live.layer_draws == 2   # the ticks of ax1 drawn for 1 and for 2
    assert not (pictures[1] == pictures[2]).all()
    ax1.set_ylim(0, 1.0)
    line.set_ydata([0, 0.9])
    again = np.array(live.render([ax1, line]))
    assert (again == pictures[0]).all() and live.layer_draws == 3


def test_a_stored_position_shows_its_frame_without_calling_draw_again():
    seen = []

    def draw(a, b):
        seen.append((a, b))
        print(f"a + b = {a + b}")
        plt.subplots(figsize=(1, 1))

    a = widgets.slider(1.0, 0.0, 2.0, 1.0, description="a")
    b = widgets.slider(0.0, 0.0, 1.0, 0.5, description="b")
    box = widgets.interactive_figure(draw, {"a": a, "b": b}, static={"a": [0.0, 1.0, 2.0]})
    assert seen == [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (1.0, 0.0)]   # the grid, then the live default
    a.value = 2.0                     # stored: no new call
    assert seen[-1] == (1.0, 0.0) and len(seen) == 4
    b.value = 0.5                     # not stored (b is held at 0 in the grid): drawn
    assert seen[-1] == (2.0, 0.5)
    b.value = 0.0
    assert len(seen) == 5 and isinstance(box.children[-1], widgets.w.Output)


def test_objects_alive_when_a_widget_is_built_are_frozen_out_of_later_collections():
    """A full collection scans every object of the kernel (70-140 ms in a chapter's kernel, measured by
    bench/bench_book.py): what exists once the widget is built is frozen, so a slider's wait never includes
    one; what the callbacks allocate afterwards is still collected."""
    import gc

    gc.unfreeze()
    keep = [[k] for k in range(1000)]
    assert gc.get_freeze_count() == 0
    widgets.interactive_figure(lambda a: None, {"a": widgets.slider(1.0, 0.0, 2.0)}, static=False)
    assert gc.get_freeze_count() >= len(keep)
    import weakref

    class Node:
        pass

    node = Node()
    node.self = node                       # a cycle made after the widget: garbage collected as before
    ref = weakref.ref(node)
    del node
    gc.collect()
    assert ref() is None
    gc.unfreeze()
