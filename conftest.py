"""pytest configuration for the whole repository (nbval runs on book/chapters and solutions/ from here).

nbval compares every stored output of a notebook with a fresh run. The exercise checks display, besides the
verdict line that nbval does compare, a record of the student's answer (mimetype
``application/vnd.mbdlib.check+json``) with full-precision floats, which the grader judges with tolerances.
Those last bits differ between floating-point kernels (``make test`` re-runs the notebooks with other kernels
than the ones that stored them), so nbval leaves the record out of its comparison, as it does for widget ids.
"""

from __future__ import annotations

CHECK_RECORD = "application/vnd.mbdlib.check+json"


def pytest_collection_modifyitems(session, config, items):  # noqa: ARG001
    for item in items:
        parent = getattr(item, "parent", None)
        skip = getattr(parent, "skip_compare", None)
        if isinstance(skip, tuple) and CHECK_RECORD not in skip:
            parent.skip_compare = (*skip, CHECK_RECORD)
