"""The scripts in tools/: make book's build script, the book checker's page arguments and the
grader's open-file limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from tooling import tool

REPO = Path(__file__).resolve().parent.parent
build_book = tool("build_book")


def _notebook(path: Path, *sources: str) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


def test_toc_notebooks_are_the_toc_entries_that_are_notebooks():
    entries = build_book.toc_entries()
    notebooks = build_book.toc_notebooks()
    assert entries[0] == "index" and "glossary" in entries
    assert [p.relative_to(build_book.BOOK).with_suffix("").as_posix() for p in notebooks] == [
        e for e in entries if (build_book.BOOK / f"{e}.ipynb").is_file()]
    assert len(notebooks) > 50 and all(p.suffix == ".ipynb" for p in notebooks)


def test_execute_all_caches_the_good_notebook_and_reports_the_failing_one(tmp_path):
    """A notebook runs in its own folder; one that raises is reported with its name and traceback, and is
    not cached, so jupyter-book cannot show stale outputs for it."""
    (tmp_path / "data.txt").write_text("41")
    good = _notebook(tmp_path / "good.ipynb", "x = int(open('data.txt').read()) + 1", "print(x)")
    bad = _notebook(tmp_path / "bad.ipynb", "1 / 0")
    cache = tmp_path / "cache"
    failures = build_book.execute_all([good, bad], jobs=2, timeout=60, allow_errors=False,
                                      cache_dir=cache, root=tmp_path)
    assert len(failures) == 1 and failures[0].startswith("bad.ipynb failed") and "ZeroDivisionError" in \
        failures[0], failures
    from jupyter_cache import get_cache

    cached = {Path(r.uri).name: r for r in get_cache(str(cache)).list_cache_records()}
    assert set(cached) == {"good.ipynb"}
    bundle = get_cache(str(cache)).get_cache_bundle(cached["good.ipynb"].pk)
    assert bundle.nb.cells[1].outputs[0]["text"] == "42\n"


def test_a_kernel_that_does_not_start_is_started_once_more(tmp_path, monkeypatch):
    import jupyter_cache.executors.utils as executors

    real, calls = executors.single_nb_execution, []

    def flaky(nb, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("Kernel didn't respond in 60 seconds")
        return real(nb, **kwargs)

    monkeypatch.setattr(executors, "single_nb_execution", flaky)
    notebook = str(_notebook(tmp_path / "n.ipynb", "print(6 * 7)"))
    _, text, _, error = build_book._execute(notebook, 60, False)
    assert len(calls) == 2 and error == "" and '"42\\n"' in text

    def never(nb, **kwargs):
        calls.append(1)
        raise RuntimeError("Kernel didn't respond in 60 seconds")

    monkeypatch.setattr(executors, "single_nb_execution", never)
    with pytest.raises(RuntimeError, match="didn't respond"):  # the second failure is reported
        build_book._execute(notebook, 60, False)
    assert len(calls) == 4


def test_grading_raises_the_open_file_limit_to_the_hard_limit():
    """Each graded notebook leaves ZeroMQ descriptors behind: grade() lifts the soft limit first."""
    code = """if True:
        import resource
        from mbdlib.exercises.grade import _more_open_files
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, soft), hard))
        _more_open_files()
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        print(soft == hard if hard != resource.RLIM_INFINITY else soft >= 1 << 16)
    """
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"


def test_check_book_reads_a_page_relative_to_the_build_folder(tmp_path, monkeypatch):
    check_book = tool("check_book")
    build = tmp_path / "html"
    (build / "chapters").mkdir(parents=True)
    page = build / "chapters" / "p.html"
    page.write_text("<html></html>", encoding="utf-8")
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert check_book.page_path(build, Path("chapters/p.html")) == page.resolve()
    assert check_book.page_path(build, page) == page.resolve()
    (elsewhere / "q.html").write_text("", encoding="utf-8")  # a path from the current folder wins
    assert check_book.page_path(build, Path("q.html")) == (elsewhere / "q.html").resolve()
    assert not check_book.page_path(build, Path("chapters/none.html")).is_file()
