"""Build the book from the outputs stored in the notebooks (no execution), e.g. to look at a chapter quickly.

Usage::

    .venv/bin/python tools/build_stored.py OUT_DIR     # HTML in OUT_DIR/_build/html
    .venv/bin/python tools/build_stored.py OUT_DIR --lenient   # warnings printed, not fatal
    .venv/bin/python tools/check_book.py OUT_DIR/_build/html OUT_DIR/_build/html/chapters/ch01_kinematics.html

``make book`` executes every notebook (``tools/build_book.py``); this renders what is stored, which nbval
(in ``make test``) proves reproducible. The build uses a copy of ``book/_config.yml`` with execution off and
the same flags as ``make book`` (warnings are errors). The test suite builds the book this way too.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"


def stored_output_config(out: Path) -> Path:
    """A copy of book/_config.yml that renders the stored outputs instead of executing the notebooks."""
    text = (BOOK / "_config.yml").read_text(encoding="utf-8")
    lines, switched = [], False
    for line in text.splitlines():
        key = line.split("#", 1)[0].strip()
        if key.startswith("execute_notebooks:"):
            line, switched = '  execute_notebooks: "off"', True
        elif key.startswith("dedupe_assets:"):  # a local extension's folder, relative to the config file
            line = f"    dedupe_assets: {BOOK / key.split(':', 1)[1].strip()}"
        lines.append(line)
    if not switched:
        raise RuntimeError("book/_config.yml has no execute_notebooks setting")
    out.mkdir(parents=True, exist_ok=True)
    config = out / "_config.yml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def jupyter_book() -> str:
    exe = Path(sys.executable).parent / "jupyter-book"
    return str(exe) if exe.exists() else shutil.which("jupyter-book") or "jupyter-book"


def build(out: Path, timeout: float = 1800, strict: bool = True) -> tuple[subprocess.CompletedProcess, float]:
    """Build into ``out`` (HTML in ``out/_build/html``); returns the process and the seconds it took.

    ``strict=False`` drops ``--warningiserror`` (for a look at one page while another is being edited).
    """
    cmd = [jupyter_book(), "build", "book", *(["--warningiserror"] if strict else []), "--nitpick",
           "--keep-going", "--path-output", str(out), "--config", str(stored_output_config(out))]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout, check=False)
    return proc, time.perf_counter() - start


def main(argv: list[str]) -> int:
    strict = "--lenient" not in argv
    argv = [a for a in argv if a != "--lenient"]
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0]).resolve()
    shutil.rmtree(out / "_build", ignore_errors=True)
    proc, seconds = build(out, strict=strict)
    if not strict:
        warnings = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "WARNING" in ln or "ERROR" in ln]
        print("\n".join(warnings))
    if proc.returncode != 0:
        print((proc.stdout + proc.stderr)[-6000:], file=sys.stderr)
        print(f"build_stored: FAILED after {seconds:.0f} s (warnings count as errors)", file=sys.stderr)
        return 1
    print(f"build_stored: built in {seconds:.0f} s: {out / '_build' / 'html' / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
