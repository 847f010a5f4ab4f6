"""The cell the grader appends to a submission: it calls the student's functions on the hidden cases.

For a function exercise the grader needs the student's function's *results* on cases the student never
saw. It appends one cell to the notebook::

    from mbdlib.exercises.collect import collect
    collect("<nonce>", "<cases as JSON>", globals())

which runs in the student's kernel, finds each function (the one handed to ``check``, else the name the
exercise gives it), calls it on each case and displays one record per exercise with the results as inert
data (:mod:`.answers`). The grader reads only the records of this cell that carry its nonce, and judges the
results in its own process against its own keys.
"""

from __future__ import annotations

import json
import time

import numpy as np

from .answers import serialize
from .core import _SUBMITTED, MIME, RECORD_SCHEMA

__all__ = ["collect", "encode_cases", "decode_cases"]

#: Wall-clock seconds a student's function may take on all the hidden cases of one exercise.
FUNCTION_BUDGET_S = 60.0


def encode_cases(cases: list[tuple]) -> list:
    """Cases as JSON-able data (each argument an array record, or a string/bool kept as is)."""
    out = []
    for case in cases:
        args = []
        for x in case:
            if isinstance(x, (str, bool)) or x is None:
                args.append({"type": "literal", "value": x})
            else:
                args.append(serialize(x))
        out.append(args)
    return out


def decode_cases(data: list) -> list[tuple]:
    """The inverse of :func:`encode_cases` (arrays come back as float arrays; a 0-d array as a float)."""
    cases = []
    for args in data:
        case = []
        for a in args:
            if a.get("type") == "literal":
                case.append(a["value"])
            elif a.get("type") == "array":
                arr = np.array([float(v) for v in a["data"]], dtype=float).reshape(a["shape"])
                case.append(float(arr) if arr.ndim == 0 else arr)
            else:
                raise ValueError(f"a grading case has an argument of type {a.get('type')!r}")
        cases.append(tuple(case))
    return cases


def collect(nonce: str, spec: str, namespace: dict) -> None:
    """Call each exercise's function on its cases and display the results (one record per exercise)."""
    from IPython.display import display

    for exercise_id, entry in json.loads(spec).items():
        record = {"schema": RECORD_SCHEMA, "grader": nonce, "exercise": exercise_id}
        fn = _SUBMITTED.get(exercise_id)
        name = entry.get("name")
        if fn is None and name and callable(namespace.get(name)):
            fn = namespace[name]
        if fn is None:
            record["missing"] = f"no function handed to check({exercise_id!r}, ...)" + \
                (f" and no function named {name!r}" if name else "")
            display({"text/plain": f"{exercise_id}: no function", MIME: record}, raw=True)
            continue
        outputs, start = [], time.monotonic()
        for case in decode_cases(entry["cases"]):
            if time.monotonic() - start > FUNCTION_BUDGET_S:
                record["error"] = f"the function took longer than {FUNCTION_BUDGET_S:g} s on the cases"
                break
            try:
                outputs.append(serialize(fn(*case)))
            except Exception as exc:  # noqa: BLE001 - the student's code may raise anything
                outputs.append({"type": "raised", "error": f"{type(exc).__name__}: {str(exc)[:160]}"})
        record["outputs"] = outputs
        seconds = time.monotonic() - start
        display({"text/plain": f"{exercise_id}: {len(outputs)} results in {seconds:.2f} s", MIME: record},
                raw=True)

