"""Tiny timing helpers shared by the benchmarks: medians of repeats, side by side, in one process."""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable


def median_time(func: Callable[[], object], repeats: int = 7, min_time: float = 0.05) -> float:
    """Median over ``repeats`` of the mean time of one call (seconds); each repeat loops >= min_time."""
    func()  # warm up (imports, caches)
    loops = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(loops):
            func()
        dt = time.perf_counter() - t0
        if dt >= min_time:
            break
        loops *= 2
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(loops):
            func()
        samples.append((time.perf_counter() - t0) / loops)
    return statistics.median(samples)


def machine() -> str:
    """One line describing where the numbers were measured."""
    import numpy
    import scipy
    import sympy

    return (f"{platform.python_implementation()} {platform.python_version()}, numpy {numpy.__version__}, "
            f"scipy {scipy.__version__}, sympy {sympy.__version__}, {platform.machine()}, "
            f"{time.strftime('%Y-%m-%d')}")


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain-text (markdown) table."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) + " |"  # noqa: E731
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), sep, *(line(r) for r in rows)])
