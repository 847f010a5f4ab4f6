"""The widget helpers run their callback headless, once, with the defaults, and on every change."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
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
