"""Frame players: the frames they store, the HTML they write, and widget counterparts over a grid."""

import io
import json
import re

import ipywidgets
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from mbdlib import frames, widgets  # noqa: E402


def _data(html: str) -> dict:
    payload = re.search(r'<script type="application/json" class="mbd-player-data">(.*?)</script>', html, re.S)
    return json.loads(payload.group(1).replace("<\\/", "</"))


def test_figure_png_is_the_figure_size_in_a_palette_and_deterministic():
    fig, ax = plt.subplots(figsize=(2.0, 1.5), dpi=100)
    ax.plot([0, 1], [0, 1])
    a, b = frames.figure_png(fig), frames.figure_png(fig)
    plt.close(fig)
    image = Image.open(io.BytesIO(a))
    assert image.size == (200, 150) and image.mode == "P"
    assert a == b


def test_render_frame_keeps_new_figures_and_text_and_closes_them():
    keep = plt.figure()
    def draw():
        print("hello")
        plt.figure(figsize=(1, 1))
        plt.figure(figsize=(1, 2))

    frame = frames.render_frame(draw)
    assert frame.text == "hello\n"
    assert Image.open(io.BytesIO(frame.png)).size == (100, 300)   # two figures stacked
    assert plt.get_fignums() == [keep.number]
    plt.close("all")
    assert frames.render_frame(lambda: print("text only")).png is None


def test_render_frame_closes_figures_when_draw_fails():
    def draw():
        plt.figure()
        raise RuntimeError("broken")

    with pytest.raises(RuntimeError, match="broken"):
        frames.render_frame(draw)
    assert plt.get_fignums() == []


def test_animation_frames_follow_update_and_duplicates_are_stored_once():
    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.set(xlim=(0, 3), ylim=(0, 1))
    (line,) = ax.plot([0, 0], [0, 1])
    positions = [0, 1, 2, 1, 0]
    player = frames.animate(fig, lambda k: line.set_xdata([positions[k]] * 2), len(positions), fps=5)
    assert player.shape == (5,) and player.n_unique == 3 and player.index == [0, 1, 2, 1, 0]
    html = player.to_html()
    data = _data(html)
    assert data["interval"] == 200 and len(data["frames"]) == 3
    assert 'data-mbd-kind="animation"' in html and "mbd-player-play" in html
    assert not plt.get_fignums()  # closed: the notebook shows the player, not a still


def test_grid_player_c_order_labels_start_and_choices():
    def draw(a, b):
        fig, ax = plt.subplots(figsize=(1, 1))
        ax.plot([0, a], [0, b])
        print(a, b)

    p = frames.frame_grid(draw, {"a": [1, 2], "b": ["x", "y", "z"]},
                          {"a": ["one", "two"], "b": ["x", "y", "z"], "__names__": {"a": "A"}},
                          start={"a": 1, "b": 2}, choices=["b"])
    data = _data(p.to_html())
    assert data["shape"] == [2, 3] and data["labels"] == [["one", "two"], ["x", "y", "z"]]
    assert [data["texts"][data["index"][k]] for k in (0, 2, 3)] == ["1 x\n", "1 z\n", "2 x\n"]
    html = p.to_html()
    slider = r'<input class="mbd-player-control" type="range" min="0" max="1" step="1" value="1"'
    assert re.search(slider, html)
    assert '<option value="2" selected>z</option>' in html
    assert p.to_html() == html  # deterministic (same id, same bytes)


def test_player_rejects_inconsistent_shapes():
    f = frames.Frame(None, "x")
    with pytest.raises(ValueError, match="3 frames for a grid of shape"):
        frames.FramePlayer([f, f, f], [frames.Axis("a", ("1", "2"))])
    with pytest.raises(ValueError, match="start 5"):
        frames.Axis("a", ("1", "2"), start=5)
    with pytest.raises(ValueError, match="one axis"):
        two = [frames.Axis("a", ("1", "2")), frames.Axis("b", ("1", "2"))]
        frames.FramePlayer([f] * 4, two, interval=100)


def test_script_cannot_be_closed_by_frame_text():
    p = frames.FramePlayer([frames.Frame(None, "</script><b>x</b>")], [frames.Axis("a", ("1",))])
    html = p.to_html()
    assert html.count("</script>") == 2  # the JSON payload and the viewer; the text's one is escaped


# ------------------------------------------------------------------ widget counterparts
def test_static_grid_values_include_the_default_and_stay_on_the_step():
    s = widgets.slider(0.3, 0.0, 1.0, 0.1)
    values = widgets.static_grid(s, points=5)
    assert 0.3 in values and values[0] == 0.0 and values[-1] == 1.0
    assert np.allclose(np.round(np.array(values) / 0.1), np.array(values) / 0.1)
    log = ipywidgets.FloatLogSlider(value=1e-6, base=10, min=-8, max=-3, step=1)
    assert widgets.static_grid(log, points=6) == pytest.approx([1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3])


def test_interactive_figure_bundle_has_the_live_widget_and_a_counterpart(monkeypatch):
    shown = []
    monkeypatch.setattr(widgets, "display", shown.append)
    calls = []

    def draw(x, kind):
        calls.append((x, kind))
        fig, ax = plt.subplots(figsize=(1, 1))
        ax.plot([0, x], [0, 1 if kind == "up" else -1])

    x = widgets.slider(0.5, 0.0, 1.0, 0.25, "x")
    kind = widgets.dropdown(["up", "down"], description="kind")
    widgets.interactive_figure(draw, {"x": x, "kind": kind}, static=["x", "kind"])
    bundle = shown[0]._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and "text/html" in bundle
    data = _data(bundle["text/html"])
    assert data["shape"] == [5, 2] and len(data["frames"]) == 10      # every grid point is a distinct picture
    assert 'data-mbd-widget="1"' in bundle["text/html"] and "<select" in bundle["text/html"]
    assert calls[-1] == (0.5, "up")              # then the live callback, once, with the defaults
    assert len(calls) == 10 + 1
    plt.close("all")


def test_interactive_figure_static_errors_name_the_control(monkeypatch):
    monkeypatch.setattr(widgets, "display", lambda obj: None)
    x = widgets.slider(0.5, 0.0, 1.0, 0.25, "x")
    with pytest.raises(ValueError, match=r"\['y'\] are not controls"):
        widgets.interactive_figure(lambda x: None, {"x": x}, static=["y"])
    with pytest.raises(ValueError, match="must include its default"):
        widgets.interactive_figure(lambda x: None, {"x": x}, static={"x": [0.0, 1.0]})


def test_no_counterpart_when_static_is_false(monkeypatch):
    shown = []
    monkeypatch.setattr(widgets, "display", shown.append)
    widgets.interactive_figure(lambda x: None, {"x": widgets.slider(0.5, 0.0, 1.0)}, static=False)
    assert "text/html" not in shown[0]._repr_mimebundle_()
