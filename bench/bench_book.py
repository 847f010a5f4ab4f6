"""How long a reader waits in the book: every widget's callback and every constrained simulation (issue 14).

Each chapter notebook runs in a Jupyter kernel (``python -m mbdlib.exercises execute`` on a copy beside it)
with one cell put in front that wraps two functions before the chapter imports them, and one cell at the
end that moves the widgets' controls:

* ``mbdlib.widgets.interactive_figure``: after the chapter has run, each widget's controls are moved one
  at a time from the defaults, as a reader would: to every value of the static counterpart (the stored
  slider positions) and, for the other controls, to 5 evenly spaced values (every option of a list).
  Each move is timed from the change of the control to the picture shown in the widget's output: the
  callback's own computation and drawing (``draw``, timed apart) plus rasterizing, PNG encoding and
  display, i.e. what the reader waits for in a live kernel (the browser's part excepted). Target:
  100 ms, median and max; a position the static counterpart stores may have been computed (and
  memoized) while the page was built, the others are computed when the reader moves there.
* ``mbdlib.simulate``: the CPU time of each call (``result.cpu_time``), its scheme and step count;
  chapter 6's press runs are among them.

Nothing is asserted; the numbers are printed, with a pass/fail per widget. Run alone:
``.venv/bin/python bench/bench_book.py [ch03 ch06 ...]`` (default: every chapter; about 6 minutes).
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

import mbdlib as _mbdlib
import mbdlib.dae as _dae
import mbdlib.widgets as _widgets

_BENCH = {"widgets": [], "moves": [], "simulations": []}
_interactive = _widgets.interactive_figure
_simulate = _dae.simulate
_DRAW = []

def _timed_figure(draw, controls, *args, **kwargs):
    name = getattr(draw, "__name__", "draw")

    def timed(**values):
        t0 = _time.perf_counter()
        out = draw(**values)
        _DRAW.append(_time.perf_counter() - t0)
        return out

    box = _interactive(timed, controls, *args, **kwargs)
    static = kwargs.get("static", args[1] if len(args) > 1 else None)
    _BENCH["widgets"].append((name, dict(controls), static))
    return box

def _timed_simulate(system, t_end, *args, **kwargs):
    res = _simulate(system, t_end, *args, **kwargs)
    _BENCH["simulations"].append([system.name, res.scheme.name, float(res.t[-1] - res.t[0]), res.n_steps,
                                  res.cpu_time])
    return res

def _move_controls():
    for name, controls, static in _BENCH.pop("widgets"):
        if static is None:
            static = [next(iter(controls))]
        stored = {n: (None if not isinstance(static, dict) else static[n]) for n in (static or ())}
        for key, c in controls.items():
            default = c.value
            try:
                values = stored[key] if stored.get(key) is not None else _widgets.static_grid(
                    c, _widgets.STATIC_POINTS if key in stored else 5)
            except TypeError:
                continue
            for v in values:
                if v == default:
                    continue
                del _DRAW[:]
                t0 = _time.perf_counter()
                c.value = v                      # the observer redraws, as when a reader moves it
                dt = _time.perf_counter() - t0
                _BENCH["moves"].append([name, key, repr(v), key in stored, dt, sum(_DRAW)])
                c.value = default
                _time.sleep(0.1)  # let the client read the widget messages: a flooded iopub drops some

_widgets.interactive_figure = _timed_figure
_dae.simulate = _mbdlib.simulate = _timed_simulate      # the one simulate, by either name
'''


def run_chapter(path: Path) -> dict:
    """Execute one chapter with the timing wrappers; return its widget and simulation timings."""
    nb = nbformat.read(path, as_version=4)
    out = Path(tempfile.mkdtemp()) / "timings.json"
    nb.cells.insert(0, nbformat.v4.new_code_cell(SETUP))
    dump = f"_move_controls()\n_json.dump(_BENCH, open({str(out)!r}, 'w'))"
    nb.cells.append(nbformat.v4.new_code_cell(dump))
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
             "widget callbacks: one control moved at a time, change -> picture shown "
             f"(target {TARGET_MS:g} ms);",
             "stored: positions the static counterpart stores (drawn while the page was built); others: the",
             "rest, where draw = the callback's computation and artists, show = rasterize + PNG + display",
             f"{'chapter':<18} {'widget':<18} {'moves':>5} {'median':>6} {'max':>6} {'stored: max':>11} "
             f"{'others: median':>14} {'max':>6} {'draw':>5} {'show':>5}  verdict"]
    worst, failed = 0.0, 0
    for chapter, data in results.items():
        by_name: dict[str, list] = {}
        for name, _key, _value, stored, dt, draw in data["moves"]:
            by_name.setdefault(name, []).append((dt * 1e3, draw * 1e3, stored))
        for name, rows in by_name.items():
            ms = np.array([r[0] for r in rows])
            stored = [r[0] for r in rows if r[2]]
            other = np.array([r[:2] for r in rows if not r[2]]).reshape(-1, 2)
            ok = np.median(ms) <= TARGET_MS and ms.max() <= TARGET_MS
            failed += not ok
            worst = max(worst, ms.max())
            if len(other):
                others = (f"{np.median(other[:, 0]):>14.0f} {other[:, 0].max():>6.0f} "
                          f"{np.median(other[:, 1]):>5.0f} {np.median(other[:, 0] - other[:, 1]):>5.0f}")
            else:
                others = f"{'-':>14} {'-':>6} {'-':>5} {'-':>5}"
            top = f"{max(stored):.0f}" if stored else "-"
            lines.append(f"{chapter[:18]:<18} {name[:18]:<18} {len(ms):>5} {np.median(ms):>6.0f} "
                         f"{ms.max():>6.0f} {top:>11} {others}  {'pass' if ok else 'FAIL'}")
    n = sum(len({m[0] for m in d["moves"]}) for d in results.values())
    lines.append(f"{n - failed} of {n} widgets answer within {TARGET_MS:g} ms (median and max); "
                 f"slowest move: {worst:.0f} ms")
    lines.append("")
    lines.append("simulations (mbdlib.simulate): CPU per call")
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
