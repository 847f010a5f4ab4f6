"""``make book``: execute the book's notebooks in parallel, then build the HTML from their outputs.

Usage::

    .venv/bin/python tools/build_book.py            # HTML in book/_build/html
    .venv/bin/python tools/build_book.py --jobs 4   # notebooks executed at the same time

Sphinx reads (and myst-nb executes) the pages one after the other, and jupyter-book's extensions do not
allow a parallel read; executing is nine tenths of a build. So this script first executes every notebook
of ``book/_toc.yml`` in a pool of processes (one more than the cores: a kernel that starts, or waits for
its files, leaves a core idle; on the 2-core machine 3 jobs took 270 s where 2 took 305 s), each in its
own folder as the current directory (as ``run_in_temp: false`` does), with the limits of
``book/_config.yml`` (``timeout`` per cell, no error allowed), and stores the executed notebooks in the
build's jupyter-cache (``book/_build/.jupyter_cache``). Then ``jupyter-book build`` runs with
``execute_notebooks: cache``: it finds every notebook executed and only renders. A notebook that fails
stops the script with its traceback, before Sphinx starts.

``make book`` removes ``book/_build`` first, so the cache never holds outputs of an older library: every
build shows what the current code prints. (``jupyter-book build book`` alone works too: it executes the
notebooks the cache does not have, one at a time, and keeps them for the next build.)
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"
CACHE = BOOK / "_build" / ".jupyter_cache"


def toc_entries(book: Path = BOOK) -> list[str]:
    """The names ``_toc.yml`` gives (root, chapters, sections: paths without suffix), in the book's order."""
    toc = yaml.safe_load((book / "_toc.yml").read_text(encoding="utf-8"))
    names: list[str] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            for key in ("root", "file"):
                if isinstance(node.get(key), str):
                    names.append(node[key])
            for value in node.values():
                if isinstance(value, list):
                    for item in value:
                        walk(item)

    walk(toc)
    return names


def toc_notebooks(book: Path = BOOK) -> list[Path]:
    """The notebooks among :func:`toc_entries` (the other pages are Markdown)."""
    return [book / f"{n}.ipynb" for n in toc_entries(book) if (book / f"{n}.ipynb").is_file()]


def execution_settings(book: Path = BOOK) -> dict:
    """``timeout`` and ``allow_errors`` of ``_config.yml``'s ``execute`` section (what myst-nb would use)."""
    config = yaml.safe_load((book / "_config.yml").read_text(encoding="utf-8"))
    execute = config.get("execute", {})
    if execute.get("execute_notebooks") != "cache":
        raise SystemExit("build_book: book/_config.yml must say execute_notebooks: cache (the build reads "
                         "the notebooks this script executes from the cache)")
    return {"timeout": int(execute.get("timeout", 30)), "allow_errors": bool(execute.get("allow_errors"))}


def _execute(path: str, timeout: int, allow_errors: bool) -> tuple[str, str | None, float, str]:
    """In a worker process: run one notebook in its folder; (path, executed JSON or None, seconds, error).

    A kernel that does not start is started once more (seen once, at 4 jobs: "Kernel didn't respond in 60
    seconds"; the likely cause: the client chooses free TCP ports and the kernel binds them a moment later,
    and with several kernels starting at once another one can take a port in between)."""
    import jupyter_cache.executors.utils as executors
    import nbformat

    for attempt in (1, 2):
        nb = nbformat.read(path, as_version=4)
        try:
            result = executors.single_nb_execution(nb, cwd=str(Path(path).parent), timeout=timeout,
                                                   allow_errors=allow_errors, meta_override=True)
            break
        except RuntimeError as exc:
            if attempt == 2 or "didn't respond" not in str(exc):
                raise
    if result.err is not None:
        return path, None, result.time, result.exc_string or repr(result.err)
    return path, nbformat.writes(nb), result.time, ""


def execute_all(notebooks: list[Path], jobs: int, timeout: int, allow_errors: bool,
                cache_dir: Path = CACHE, root: Path = BOOK) -> list[str]:
    """Execute ``notebooks`` ``jobs`` at a time into the jupyter-cache ``cache_dir``; returns the failures
    (empty: all ran), each naming its notebook (relative to ``root``) with its traceback."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(str(cache_dir))
    # the longest first (a notebook's size is a fair guess of its time), so no long one starts last
    order = sorted(notebooks, key=lambda p: p.stat().st_size, reverse=True)
    failures = []
    # "spawn": fresh worker processes. A forked one inherits the caller's ZeroMQ contexts (a test process
    # that has run kernels before), which do not survive a fork: such a worker spun at full CPU for ever.
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=spawn) as pool:
        futures = [pool.submit(_execute, str(p), timeout, allow_errors) for p in order]
        for k, future in enumerate(as_completed(futures), 1):
            path, text, seconds, error = future.result()
            rel = Path(path).relative_to(root)
            if text is None:
                failures.append(f"{rel} failed after {seconds:.1f} s:\n{error}")
                print(f"[{k}/{len(order)}] {rel}: FAILED", flush=True)
                continue
            cache.cache_notebook_bundle(CacheBundleIn(nbformat.reads(text, as_version=4), path,
                                                      data={"execution_seconds": seconds}),
                                        check_validity=False, overwrite=True)
            print(f"[{k}/{len(order)}] {rel}: {seconds:.1f} s", flush=True)
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=(os.cpu_count() or 1) + 1,
                        help="notebooks executed at the same time (default: one more than the cores)")
    args = parser.parse_args(argv)
    settings = execution_settings()
    notebooks = toc_notebooks()
    start = time.perf_counter()
    print(f"build_book: executing {len(notebooks)} notebooks, {args.jobs} at a time", flush=True)
    failures = execute_all(notebooks, args.jobs, **settings)
    executed = time.perf_counter() - start
    if failures:
        print("\n\n".join(failures), file=sys.stderr)
        print(f"build_book: {len(failures)} notebook(s) failed; the book was not built", file=sys.stderr)
        return 1
    print(f"build_book: notebooks executed in {executed:.0f} s; building the HTML", flush=True)
    jb = Path(sys.executable).parent / "jupyter-book"
    proc = subprocess.run([str(jb), "build", str(BOOK), "--warningiserror", "--nitpick", "--keep-going"],
                          cwd=REPO, check=False)
    total = time.perf_counter() - start
    print(f"build_book: {'built' if proc.returncode == 0 else 'FAILED'} in {total:.0f} s "
          f"(executing {executed:.0f} s, rendering {total - executed:.0f} s)")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
