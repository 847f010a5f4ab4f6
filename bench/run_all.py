"""Run every benchmark of the course and print their tables (``make bench``).

Benchmarks time mbdlib side by side with its peers in one process and report
ratios; they are never part of the test suite.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_a02  # noqa: E402
import bench_book  # noqa: E402
import bench_constraints  # noqa: E402
import bench_contact  # noqa: E402
import bench_dynamics  # noqa: E402
import bench_fourbar  # noqa: E402
import bench_grading  # noqa: E402
import bench_rotations  # noqa: E402
import bench_scaling  # noqa: E402
import bench_spatial  # noqa: E402
import bench_symbolic  # noqa: E402
import bench_vehicle  # noqa: E402

# bench_scaling fits exponents to the results of bench_symbolic, so it runs after it
BENCHMARKS = [bench_rotations, bench_dynamics, bench_symbolic, bench_scaling, bench_constraints]
BENCHMARKS.append(bench_fourbar)  # issue 7: the four-bar arm
BENCHMARKS.append(bench_grading)  # issue 13: grading throughput
BENCHMARKS.append(bench_a02)  # issue 14: IFToMM A02 N-four-bar, with Exudyn
BENCHMARKS.append(bench_book)  # issue 14: widget callbacks and simulations as the book runs them
BENCHMARKS.append(bench_spatial)  # issue 15: the 6R arm in joint vs Cartesian (Euler-parameter) coordinates
BENCHMARKS.append(bench_vehicle)  # issue 26: a car towing a trailer in three coordinate sets
BENCHMARKS.append(bench_contact)  # issue 25: contact and impact against closed forms, with MuJoCo

if __name__ == "__main__":
    start = time.perf_counter()
    for module in BENCHMARKS:
        t0 = time.perf_counter()
        print(module.main())
        print(f"({module.__name__}: {time.perf_counter() - t0:.0f} s)\n", flush=True)
    print(f"all benchmarks: {time.perf_counter() - start:.0f} s")
