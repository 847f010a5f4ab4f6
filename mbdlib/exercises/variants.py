"""Per-student variants: numbers drawn from the course secret, and whether a notebook's variant is trusted.

A released notebook carries its student's *parameters* in a token (:func:`.core.encode_variant`) with a
fingerprint of the secret it was released with (``key_id``) and an HMAC of the rest (``mac``). The grader
recomputes every student's parameters from the secret and the student's id, never from the notebook; it
reads the token only to check it (:func:`check_variant`):

* ``ok``: the notebook is this student's, released with this secret, unedited;
* ``unverifiable``: the notebook has a variant but the grader has no secret, or another secret (the
  fingerprints differ), or the token was edited or does not match the numbers the course code draws now:
  the variant exercises are not graded (``variant-unverifiable`` rows, no points, a non-zero exit), never
  judged against numbers that may not be the student's;
* ``borrowed``: a valid token of **another** student: graded against the owner's own numbers (so the
  copied answers are wrong) and reported;
* ``no-variant``: a class graded with a secret, but the notebook has no variant (the public exercise
  notebook was handed in): graded against the student's numbers and reported.
"""

from __future__ import annotations

import hashlib
import hmac
import re

import numpy as np

from .core import Exercise, _jsonable, decode_variant, key_id, variant_mac

__all__ = ["variant_rng", "read_secret", "problem_of", "student_params", "student_cases", "token_in",
           "check_variant", "PUBLIC_SALT"]

PUBLIC_SALT = b"mbdlib public grading cases"
_TOKEN = re.compile(r"""use_variant\(\s*["']([A-Za-z0-9_=-]{8,})["']\s*\)""")


def variant_rng(secret: bytes | None, student: str, exercise: str, purpose: str) -> np.random.Generator:
    """The random generator of one student's variant of one exercise (``purpose``: "params" or "cases").

    Seeded by HMAC-SHA256(secret, student | exercise | purpose): without the secret the seed cannot be
    guessed. Without a secret a fixed public salt is used (self-study grading).
    """
    key = secret if secret else PUBLIC_SALT
    digest = hmac.new(key, f"{student}|{exercise}|{purpose}".encode(), hashlib.sha256).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def read_secret(path) -> bytes:
    """The course secret (the file's bytes, surrounding white space removed; at least 16 bytes)."""
    from pathlib import Path

    data = Path(path).read_bytes().strip()
    if len(data) < 16:
        raise ValueError(f"secret file {path}: at least 16 bytes please (e.g. `python -c \"import secrets; "
                         f"print(secrets.token_hex(32))\" > {path}`)")
    return data


def problem_of(exercise_id: str) -> str:
    """The problem an exercise belongs to: the parts "5.8a", "5.8b" of a multi-part problem share "5.8".

    >>> problem_of("5.8b"), problem_of("1.10")
    ('5.8', '1.10')
    """
    return re.sub(r"[a-z]$", "", exercise_id)


def student_params(exercise: Exercise, student: str, secret: bytes | None) -> dict:
    """The parameters of ``student``'s variant (the public ones without a secret or without variants).

    The parts of a multi-part problem draw from the same seed (the problem's id): parts that describe their
    mechanism with the same ``variant`` function get the same mechanism.
    """
    if secret is None or exercise.variant is None:
        return dict(exercise.params)
    return exercise.params_for(variant_rng(secret, student, problem_of(exercise.id), "params"))


def student_cases(exercise: Exercise, student: str, secret: bytes | None, params: dict) -> list[tuple]:
    """The cases ``student``'s function is graded on (hidden ones if the exercise generates them)."""
    return exercise.grading_cases(variant_rng(secret, student, exercise.id, "cases"), params)


def token_in(nb) -> str | None:
    """The variant token of a notebook's ``use_variant("...")`` cell (read as text, never run), if any."""
    for cell in nb.cells:
        if cell.get("cell_type") == "code":
            m = _TOKEN.search(str(cell.get("source", "")))
            if m:
                return m.group(1)
    return None


def check_variant(nb, student: str, secret: bytes | None, exercises: list[Exercise]) -> tuple[str, str]:
    """``(status, detail)`` of a notebook's variant for ``student`` (see the module docstring)."""
    varied = [e for e in exercises if e.variant is not None]
    token = token_in(nb)
    released_for = (nb.metadata.get("mbdlib") or {}).get("released_for") if isinstance(
        nb.metadata.get("mbdlib"), dict) else None
    if token is None:
        if released_for is not None and secret is None:
            return "unverifiable", ("the notebook was released with its own numbers but its variant cell is "
                                    "gone, and there is no --secret-file to recompute them")
        if secret is not None and varied:
            return "no-variant", ("the notebook has no variant cell (not the copy released to this "
                                  "student?): graded against the student's own numbers")
        return "ok", ""
    if not varied:
        return "ok", ""
    try:
        payload = decode_variant(token)
    except ValueError:
        return "unverifiable", "the variant cell was edited: its token cannot be read"
    if secret is None:
        return "unverifiable", ("the notebook was released with per-student numbers: grade it with "
                                "--secret-file (the secret it was released with)")
    if "key_id" in payload and payload["key_id"] != key_id(secret):
        return "unverifiable", (f"released with another secret (fingerprint {payload['key_id']}) than the "
                                f"one given (fingerprint {key_id(secret)}): give the secret of the release")
    if "mac" in payload and not hmac.compare_digest(str(payload["mac"]), variant_mac(secret, payload)):
        return "unverifiable", "the variant cell was edited (its signature does not match)"
    owner = str(payload.get("student", ""))
    if owner != student:
        return "borrowed", (f"this notebook was released for {owner!r}, not for this student: graded against "
                            "the student's own numbers")
    expected = {e.id: _jsonable(student_params(e, student, secret)) for e in varied}
    carried = payload.get("params", {})
    changed = [i for i, p in expected.items() if i in carried and _jsonable(carried[i]) != p]
    if changed:
        why = ("this secret draws other numbers for this student" if "key_id" not in payload else
               "the course code now draws other numbers than at the release (was mbdlib updated in between?)")
        return "unverifiable", f"{why}: exercises {', '.join(changed)}"
    return "ok", ""
