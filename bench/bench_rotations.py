"""Rotations: mbdlib (readable, per-call validation) vs scipy.spatial.transform.Rotation.

One rotation at a time, as a reader's code calls them (not vectorised batches).
Prints time per call and the ratio mbdlib / scipy (above 1: mbdlib is slower).
"""

from __future__ import annotations

import numpy as np
from _timing import machine, median_time, table
from scipy.spatial.transform import Rotation

import mbdlib.rotations as rot


def main() -> str:
    rng = np.random.default_rng(0)
    angles = rng.uniform(-1.0, 1.0, 3)
    A = rot.dcm_from_euler("ZYX", angles)
    e = rot.quat_from_dcm(A)
    cases = [
        ("DCM from ZYX angles", lambda: rot.dcm_from_euler("ZYX", angles),
         lambda: Rotation.from_euler("ZYX", angles).as_matrix()),
        ("ZYX angles from DCM", lambda: rot.euler_from_dcm("ZYX", A),
         lambda: Rotation.from_matrix(A).as_euler("ZYX")),
        ("quaternion from DCM", lambda: rot.quat_from_dcm(A),
         lambda: Rotation.from_matrix(A).as_quat()),
        ("DCM from quaternion", lambda: rot.dcm_from_quat(e),
         lambda: Rotation.from_quat(np.roll(e, -1)).as_matrix()),
    ]
    rows = []
    for name, ours, theirs in cases:
        t_ours, t_theirs = median_time(ours), median_time(theirs)
        rows.append([name, f"{t_ours * 1e6:.1f}", f"{t_theirs * 1e6:.1f}", f"{t_ours / t_theirs:.2f}"])
    return (f"Rotations, one call at a time ({machine()})\n"
            + table(rows, ["operation", "mbdlib [µs]", "scipy [µs]", "ratio mbdlib/scipy"]))


if __name__ == "__main__":
    print(main())
