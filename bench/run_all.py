"""Run every benchmark of the course and print their tables (``make bench``).

Benchmarks time mbdlib side by side with its peers in one process and report
ratios; they are never part of the test suite.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import bench_rotations  # noqa: E402

BENCHMARKS = [bench_rotations]

if __name__ == "__main__":
    for module in BENCHMARKS:
        print(module.main())
        print()
