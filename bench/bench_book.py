"""How long a reader waits in the book: every widget's callback and every constrained simulation (issue 14).

Each chapter notebook runs in a Jupyter kernel (``python -m mbdlib.exercises execute`` on a copy beside it)
with one cell put in front that wraps two functions before the chapter imports them:

* ``mbdlib.widgets.interactive_figure``: the ``draw`` it is given is timed at each call, drawing
  included (the figure rasterized by Agg, as the inline backend does when it shows it).  Those calls are
  the live widget's first drawing and every frame of its static counterpart, i.e. the callback at each
  slider position the book stores.  Target: 100 ms.
* ``mbdlib.dae.simulate``: the CPU time of each call (``result.cpu_time``), its method and step count;
  chapter 6's press runs are among them.

Nothing is asserted; the numbers are printed.  Run alone: ``.venv/bin/python bench/bench_book.py
[ch03 ch06 ...]`` (default: every chapter; about 5 minutes).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import numpy as np
from _timing import machine

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book" / "chapters").glob("ch*.ipynb"))
TARGET_MS = 100.0

SETUP = '''
import json as _json
import time as _time

import matplotlib.pyplot as _plt

import mbdlib.dae as _dae
import mbdlib.widgets as _widgets

_BENCH = {"widgets": [], "simulations": []}
_interactive = _widgets.interactive_figure
_simulate = _dae.simulate

def _timed_figure(draw, controls, *args, **kwargs):
    name = getattr(draw, "__name__", "draw")

    def timed(**values):
        t0 = _time.perf_counter()
        out = draw(**values)
        for num in _plt.get_fignums():
            _plt.figure(num).canvas.draw()
        _BENCH["widgets"].append([name, _time.perf_counter() - t0])
        return out

    return _interactive(timed, controls, *args, **kwargs)

def _timed_simulate(system, t_end, *args, **kwargs):
    res = _simulate(system, t_end, *args, **kwargs)
    _BENCH["simulations"].append([type(system).__name__, kwargs.get("method", "projection"),
                                  float(res.t[-1] - res.t[0]), res.n_steps, res.cpu_time])
    return res

_widgets.interactive_figure = _timed_figure
_dae.simulate = _timed_simulate
'''


def run_chapter(path: Path) -> dict:
    """Execute one chapter with the timing wrappers; return its widget and simulation timings."""
    nb = nbformat.read(path, as_version=4)
    out = Path(tempfile.mkdtemp()) / "timings.json"
    nb.cells.insert(0, nbformat.v4.new_code_cell(SETUP))
    nb.cells.append(nbformat.v4.new_code_cell(f"_json.dump(_BENCH, open({str(out)!r}, 'w'))"))
    copy = path.parent / f".bench_{path.name}"          # beside the chapter: its relative paths hold
    nbformat.write(nb, copy)
    t0 = time.perf_counter()
    try:                                                  # the course's own notebook runner
        proc = subprocess.run([sys.executable, "-m", "mbdlib.exercises", "execute", str(copy), "--timeout",
                               "1800"], capture_output=True, text=True, check=False)
    finally:
        copy.unlink(missing_ok=True)
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"{path.name} did not run: {proc.stderr[-2000:]}")
    data = json.loads(out.read_text(encoding="utf-8"))
    data["wall"] = time.perf_counter() - t0
    return data


def report(results: dict[str, dict]) -> str:
    lines = [f"the book's waits, each chapter executed in a kernel; {machine()}",
             f"widget callbacks: draw + rasterize at every stored slider position (target {TARGET_MS:g} ms)",
             f"{'chapter':<22} {'widget (draw function)':<28} {'calls':>5} {'median ms':>9} {'max ms':>8}"]
    worst = 0.0
    for chapter, data in results.items():
        by_name: dict[str, list[float]] = {}
        for name, dt in data["widgets"]:
            by_name.setdefault(name, []).append(dt * 1e3)
        for name, ms in by_name.items():
            worst = max(worst, max(ms))
            flag = "" if max(ms) <= TARGET_MS else " ✗"
            lines.append(f"{chapter:<22} {name:<28} {len(ms):>5} {np.median(ms):>9.0f} {max(ms):>8.0f}{flag}")
    verdict = "within" if worst <= TARGET_MS else "over"
    lines.append(f"slowest callback: {worst:.0f} ms ({verdict} the target)")
    lines.append("")
    lines.append("constrained simulations (dae.simulate): CPU per call")
    lines.append(f"{'chapter':<22} {'system':<18} {'method':<22} {'t [s]':>6} {'steps':>7} {'CPU [s]':>8}")
    for chapter, data in results.items():
        for system, method, span, steps, cpu in data["simulations"]:
            lines.append(f"{chapter:<22} {system:<18} {method:<22} {span:>6.2f} {steps:>7} {cpu:>8.3f}")
    lines.append("chapter wall times: " + ", ".join(f"{c} {d['wall']:.0f} s" for c, d in results.items()))
    return "\n".join(lines)


def main(names=()) -> str:
    chosen = [p for p in CHAPTERS if not names or any(p.stem.startswith(n) for n in names)]
    return report({p.stem: run_chapter(p) for p in chosen})


if __name__ == "__main__":
    print(main(tuple(sys.argv[1:])))
