"""The book builds offline with warnings as errors, and its pages render in headless Chromium.

The book is built once per session, with the command of ``make book`` (plus ``--path-output`` to a
temporary folder, so ``book/_build`` is left alone), then checked by ``tools/check_book.py``.

One difference: ``make book`` executes every notebook (``tools/build_book.py``), while this build
renders the outputs stored in the notebooks (a copy of ``_config.yml`` with ``execute_notebooks: "off"``).
The two give the same pages because ``make test`` also runs nbval in strict mode on every chapter: a
stored output that a fresh execution does not reproduce fails there. Executing every chapter twice
(once here, once in nbval) would cost minutes for no extra evidence. The browser
tests fail, saying what to install, when no Chromium is found (``bash tools/ensure_chromium.sh``).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tooling import tool

pytestmark = pytest.mark.book

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"
VENV_BIN = Path(sys.executable).parent
BUILD_TIMEOUT_S = 1800



check_book = tool("check_book")
build_stored = tool("build_stored")
build_book = tool("build_book")


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> Path:
    """Build the book like `make book` does; return the HTML folder."""
    # One build per test run, also under pytest-xdist (`make test` runs -n 2): workers share the run's
    # base folder and take turns through a lock; the first one builds, the others reuse its output.
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    out = shared / "book-build"
    html = out / "_build" / "html"
    with open(shared / "book-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (html / "index.html").is_file():
            vendor = BOOK / "_assets" / "vendor"  # what `make vendor` does (a no-op when up to date)
            vendored = subprocess.run(["bash", str(REPO / "tools" / "vendor_js.sh"), str(vendor)], cwd=REPO,
                                      capture_output=True, text=True, timeout=600, check=False)
            assert vendored.returncode == 0, f"tools/vendor_js.sh failed:\n{vendored.stderr[-3000:]}"
            _build(out)
    return html


def _build(out: Path) -> None:
    proc, seconds = build_stored.build(out, timeout=BUILD_TIMEOUT_S)
    tail = (proc.stdout + proc.stderr)[-6000:]
    assert proc.returncode == 0, (f"`{' '.join(proc.args)}` failed (exit {proc.returncode}) after "
                                  f"{seconds:.0f} s; warnings count as errors. End of the log:\n{tail}")
    print(f"book built in {seconds:.1f} s")


def _toc_files() -> list[str]:
    """Files named in book/_toc.yml (root and every `file:` entry), as ``make book`` reads them."""
    return build_book.toc_entries(BOOK)


def test_every_toc_entry_exists_and_is_built(built_book):
    names = _toc_files()
    assert names[0] == "index" and "references" in names and "glossary" in names
    for name in names:
        sources = [BOOK / f"{name}{ext}" for ext in (".md", ".ipynb")]
        assert any(p.is_file() for p in sources), f"_toc.yml lists {name!r} but no .md/.ipynb exists"
        assert (built_book / f"{name}.html").is_file(), f"{name}.html was not built"


def test_built_pages_have_working_links_and_download_buttons(built_book):
    """Static check of every page (no browser needed): no remote <script src>/<link href>, every local
    file referenced there, local links and #fragments resolve, download buttons work, figures numbered
    and cited by number (the browser test below leaves these to this one: --no-links)."""
    ids: dict = {}
    failures = []
    pages = check_book.list_pages(built_book)
    assert len(pages) >= len(_toc_files())
    for page in pages:
        report = check_book.PageReport(str(page.relative_to(built_book)))
        check_book.check_source(page, page.read_text(encoding="utf-8"), report, build=built_book, ids=ids)
        failures += [f"{report.page}: {msg}" for msg in report.failures]
    assert not failures, "\n".join(failures)
    assert len(ids) >= 5  # the link targets' anchors were read: the fragment check ran
    for name in _toc_files():  # every notebook page offers its notebook for download
        if (BOOK / f"{name}.ipynb").is_file():
            html = (built_book / f"{name}.html").read_text(encoding="utf-8")
            href = f"_sources/{name}.ipynb"
            assert href in html, f"{name}.html has no download link to {href}"
            assert (built_book / href).is_file()


def test_vendored_javascript_is_used(built_book):
    chapter = (built_book / "chapters" / "ch01_kinematics.html").read_text(encoding="utf-8")
    assert "_static/vendor/mathjax/tex-chtml.js" in chapter
    for asset in ("vendor/mathjax/tex-chtml.js", "vendor/require.js", "vendor/html-manager/embed-amd.js",
                  "vendor/mathjax2-compat.js", "vendor/mathjax/output/chtml/fonts/woff-v2"):
        assert (built_book / "_static" / asset).exists(), f"_static/{asset} missing from the build"
    if "application/vnd.jupyter.widget-view+json" in chapter:
        assert "_static/vendor/html-manager/embed-amd.js" in chapter
    # Only the scripts of the page: the vendored TeX extensions must not be injected into every page.
    assert "input/tex/extensions" not in (built_book / "index.html").read_text(encoding="utf-8")


def test_bibliography_lists_every_reference(built_book):
    bib = (BOOK / "references.bib").read_text(encoding="utf-8")
    keys = [line.split("{", 1)[1].rstrip(",").strip() for line in bib.splitlines() if line.startswith("@")]
    assert len(keys) >= 9
    refs = (built_book / "references.html").read_text(encoding="utf-8")
    assert refs.count('role="doc-biblioentry"') == len(keys), "references.html should list every entry"
    for doi in re.findall(r"doi\s*=\s*\{([^}]+)\}", bib):  # the DOIs, the source paper's among them
        assert doi in refs, f"references.html lacks the DOI {doi}"
    assert "10.13374/j.issn1001-053x.1988.02.030" in refs


# --- the glossary ---------------------------------------------------------------------------------

# The key terms each page introduces (bold terms, section titles, symbols of its equations): each must
# have a glossary entry whose first use is that page, and the page's text must name it.
KEY_TERMS = {
    "intro/modelling_chain": [
        "modelling chain", "multibody system", "kinematics", "dynamics", "solver", "topology",
        "modelling checklist", "inertial frame", "generalized coordinates", "mass matrix", "constraint force",
        "holonomic constraint", "nonholonomic constraint", "degree of freedom", "Lagrange multiplier",
        "differential-algebraic equation", "constraint violation", "Baumgarte stabilization",
        "augmented Lagrangian", "Kane's equations", "spherical joint", "universal joint", "gear pair",
        "contact constraint",
    ],
    "conventions": [
        "direction cosine matrix", "global frame", "body frame", "Euler angles", "intrinsic rotation",
        "extrinsic rotation", "Euler parameters", "skew-symmetric matrix", "angular velocity",
    ],
    "chapters/ch01_kinematics": [
        "rigid body", "pose", "centre of mass", "Tait–Bryan angles", "proper Euler angles", "gimbal lock",
        "axis–angle", "angular acceleration", "tangential acceleration", "centripetal acceleration",
        "Coriolis acceleration", "transport theorem", "angular velocity addition theorem",
        "kinematic chain", "open chain", "revolute joint",
        "prismatic joint", "recursive algorithm", "partial velocity", "partial angular velocity", "Jacobian",
    ],
    "chapters/ch02_dynamics": [
        "Newton–Euler equations", "Euler's equations", "inertia tensor", "principal axes of inertia",
        "gyroscopic moment", "intermediate axis", "kinetic energy", "potential energy",
        "Lagrange's equations", "generalized momentum", "ignorable coordinate",
        "generalized speeds", "generalized active force", "generalized inertia force",
        "Coriolis and centrifugal terms",
        "gravity vector", "inverse dynamics", "forward dynamics", "recursive Newton–Euler algorithm",
        "joint torque", "ideal constraint", "generalized force", "parallel-axis theorem", "free-body diagram",
        "inertia dyadic", "moments of inertia", "products of inertia", "composite body", "load", "couple",
        "resultant", "dry friction", "spring-damper", "kinematic differential equations",
        "noncontributing forces", "auxiliary speeds",
    ],
    "chapters/ch03_constraints": [
        "constraint", "constraint Jacobian", "velocity constraint", "acceleration constraint",
        "acceleration right-hand side", "driver", "knife edge", "Grübler count", "redundant constraint",
        "singular configuration", "slider-crank", "four-bar linkage", "parallelogram linkage",
        "constraint drift", "coordinate projection", "KKT matrix", "kinematic analysis",
    ],
    "chapters/ch04_coordinates": [
        "Cartesian coordinates", "relative coordinates", "mixed coordinates", "closed chain", "cut joint",
        "spanning tree", "velocity transformation", "transmission angle", "system assembly", "sparsity",
        "mass-matrix sparsity", "index-3 DAE", "index reduction",
    ],
    "chapters/ch05_fourbar_arm": [
        "local closed chain", "active joint", "passive joint", "loop closure", "end link", "change point",
        "gravity compensation", "decoupling", "counterweight", "cutting the loop",
    ],
    "chapters/ch06_simulation": [
        "static equilibrium", "small-displacement test", "explicit method",
        "implicit method", "step size", "tolerance", "stiffness", "energy drift", "DAE index",
        "solver effort",
    ],
    "chapters/ch07_spatial": [
        "normalization row", "basic constraints", "overconstrained mechanism", "Bricard linkage",
        "state of self-stress",
        "rolling without slipping", "Chaplygin sleigh", "dependent speeds", "nonholonomic partial velocity",
        "heavy symmetric top", "precession", "nutation", "spin", "critical speed",
    ],
    "chapters/ch08_linearization": [
        "equilibrium", "linearization", "eigenvalue", "mode", "asymptotic stability",
        "Lyapunov's indirect method", "complex-step derivative", "steady motion",
        "sleeping top", "gyroscopic stabilization", "Whipple bicycle model", "self-stability", "weave mode",
        "capsize mode", "castor mode", "Lyapunov function", "pitchfork bifurcation", "modal mass",
        "modal coordinate", "Lagrange–Dirichlet theorem", "Hessian", "effective potential",
    ],
    "chapters/ch09_contact": [
        "unilateral constraint", "complementarity condition", "impact", "impulse", "restitution coefficient",
        "Zeno behaviour", "Coulomb friction", "friction cone", "stick–slip", "Painlevé's paradox",
        "impact without collision", "clearance joint", "penalty method",
    ],
}
# How a page names a term when not by the term itself (or its plural).
ALIASES = {
    "multibody system": ["multibody"],
    "degree of freedom": ["degrees of freedom"],
    "spherical joint": ["spherical"],
    "universal joint": ["universal"],
    "gear pair": ["gears"],
    "contact constraint": ["contacts"],
    "global frame": ["global (inertial) frame"],
    "Tait–Bryan angles": ["tait–bryan"],
    "proper Euler angles": ["proper euler"],
    "recursive algorithm": ["recursive kinematics"],
    "velocity constraint": ["velocity and acceleration equations"],
    "acceleration constraint": ["velocity and acceleration equations"],
    "Grübler count": ["grübler's count"],
    "overconstrained mechanism": ["overconstrained loop"],
    "rolling without slipping": ["rolls without slipping"],
    "angular velocity addition theorem": ["addition theorem"],
}
# Terms with an entry that their page does not name in its text (with the reason).
NOT_NAMED: dict[str, str] = {}
CJK = re.compile(r"[\u4e00-\u9fff]")


def glossary_entries(text: str) -> dict[str, dict]:
    """Parse the ``{glossary}`` block of glossary.md: term -> {chinese, dagger, doc, definition}."""
    block = text.split("```{glossary}", 1)[1].split("\n```", 1)[0]
    entries = {}
    entry = re.compile(r"^(?P<term>[^\s:][^\n]*)\n  (?P<head>[^\n]*)\n\n  (?P<definition>[^\n]*)", re.M)
    for m in entry.finditer(block):
        head = m["head"]
        chinese = re.match(r"\*\*([^*]+)\*\*", head)
        doc = re.search(r"introduced in \{doc\}`([^`]+)`", head)
        entries[m["term"].strip()] = {
            "chinese": chinese.group(1) if chinese else "", "dagger": "†" in head,
            "doc": doc.group(1) if doc else None, "definition": m["definition"].strip(), "head": head,
        }
    return entries


def _page_text(name: str) -> str:
    """Markdown text of a book page (.md, or the markdown cells of an .ipynb), normalised for search."""
    md = BOOK / f"{name}.md"
    if md.is_file():
        text = md.read_text(encoding="utf-8")
    else:
        nb = json.loads((BOOK / f"{name}.ipynb").read_text(encoding="utf-8"))
        text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    return re.sub(r"\s+", " ", text.replace("*", "")).lower()


@pytest.fixture(scope="module")
def glossary() -> dict[str, dict]:
    return glossary_entries((BOOK / "glossary.md").read_text(encoding="utf-8"))


def test_glossary_parser_reads_entries_and_finds_faults():
    text = """```{glossary}
:sorted:

rigid body
  **刚体** · introduced in {doc}`chapters/ch01_kinematics`

  A body whose points keep their mutual distances.

pose
  · introduced in chapters/ch01_kinematics

  Position and orientation.
```"""
    entries = glossary_entries(text)
    assert set(entries) == {"rigid body", "pose"}
    assert entries["rigid body"]["chinese"] == "刚体"
    assert entries["rigid body"]["doc"] == "chapters/ch01_kinematics"
    assert entries["pose"]["chinese"] == "" and entries["pose"]["doc"] is None  # what the test below rejects


def test_every_glossary_entry_has_chinese_first_use_and_definition(glossary):
    pages = set(_toc_files())
    assert len(glossary) >= 110
    bad = []
    for term, e in glossary.items():
        if not CJK.search(e["chinese"]):
            bad.append(f"{term!r}: no Chinese term in bold (write **中文**, † if not from the source texts)")
        if e["doc"] is None:
            bad.append(f"{term!r}: no first use ('introduced in {{doc}}`page`')")
        elif e["doc"] not in pages or not any((BOOK / f"{e['doc']}{x}").is_file() for x in (".md", ".ipynb")):
            bad.append(f"{term!r}: first use {e['doc']!r} is not a page of the book (_toc.yml)")
        if not e["definition"].endswith((".", ")")) or len(e["definition"]) < 20:
            bad.append(f"{term!r}: the definition should be one sentence ending with a full stop")
    assert not bad, "\n".join(bad)


def _same_chapter(doc: str, page: str) -> bool:
    """``doc`` is ``page``, or a page of the chapter ``page`` (chapters/ch03_constraints: chapters/ch03_*)."""
    m = re.match(r"chapters/(ch\d\d)_", page)
    return doc == page or bool(m and doc.startswith(f"chapters/{m.group(1)}_"))


def test_every_key_term_has_an_entry_introduced_on_its_page(glossary):
    """KEY_TERMS lists a chapter's terms under its overview page; the glossary points to the page of the
    chapter that introduces each one, and that page names it."""
    bad = []
    for page, terms in KEY_TERMS.items():
        for term in terms:
            entry = glossary.get(term)
            if entry is None:
                bad.append(f"{page}: key term {term!r} has no glossary entry")
                continue
            if entry["doc"] is None or not _same_chapter(entry["doc"], page):
                bad.append(f"{term!r}: first use {entry['doc']!r} in the glossary, {page!r} in KEY_TERMS")
                continue
            text = _page_text(entry["doc"])
            low = term.lower()
            forms = {low, low.removesuffix("s"), low.replace("-", " "), low.removesuffix("y") + "ies"}
            forms |= {a.lower() for a in ALIASES.get(term, [])}
            if term not in NOT_NAMED and not any(f in text for f in forms):
                bad.append(f"{page}: does not name {term!r} (nor {sorted(forms)})")
    assert not bad, "\n".join(bad)


# --- the checker itself can fail ------------------------------------------------------------------


def test_list_pages_leaves_out_assets_and_a_checkers_copy_of_a_page(tmp_path):
    # another test worker's check keeps a copy of the page it loads beside it (render_measured)
    for rel in ("index.html", "chapters/a.html", "_static/x.html",
                f"chapters/{check_book.MEASURE_COPY}12-34-a.html"):
        _write(tmp_path / rel, "<html></html>")
    assert [p.relative_to(tmp_path).as_posix() for p in check_book.list_pages(tmp_path)] == \
        ["chapters/a.html", "index.html"]


def test_check_source_flags_remote_assets_and_missing_files(tmp_path):
    page = tmp_path / "index.html"
    html = ('<html><head><script src="https://cdn.example.org/x.js"></script>'
            '<link rel="stylesheet" href="//fonts.example.org/f.css"><script src="missing.js"></script>'
            '</head><body><img src="gone.png"></body></html>')
    report = check_book.PageReport("index.html")
    check_book.check_source(page, html, report)
    text = "\n".join(report.failures)
    assert "https://cdn.example.org/x.js" in text and "//fonts.example.org/f.css" in text
    assert "missing.js" in text and "gone.png" in text


def test_check_dom_flags_untypeset_maths_and_missing_widgets(tmp_path):
    expect = {"maths": 2, "widget_views": 1, "sliders": 1, "images": 0}
    dom = ('<html><body><span class="math">\\(x\\)</span><div class="math">\\[y\\]</div>'
           '<p>Error displaying widget</p></body></html>')
    report = check_book.PageReport("p.html")
    check_book.check_dom(tmp_path / "p.html", dom, expect, report)
    text = "\n".join(report.failures)
    assert "MathJax did not run" in text
    assert "no .jupyter-widgets" in text and "no .widget-slider" in text and "Error displaying" in text


def _write(path: Path, html: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    return path


def test_check_links_flags_broken_links_and_missing_fragments(tmp_path):
    _write(tmp_path / "other.html", '<html><body><h1 id="yes">Other</h1><a name="old"></a></body></html>')
    _write(tmp_path / "sub" / "index.html", "<html></html>")
    page = _write(tmp_path / "index.html", (
        '<html><head><link rel="next" href="gone-next.html"></head><body><p id="here">x</p>'
        '<a href="other.html#yes">ok</a> <a href="other.html#old">ok</a> <a href="#here">ok</a>'
        '<a href="sub/">ok</a> <a href="https://doi.org/10.1/x">remote</a> <a href="mailto:a@b.c">mail</a>'
        '<a href="#">top</a> <a href="missing.html">bad</a> <a href="other.html#nope">bad</a>'
        '<a href="#gone">bad</a></body></html>'))
    report = check_book.PageReport("index.html")
    soup = check_book.BeautifulSoup(page.read_text(), "html.parser")
    check_book.check_links(tmp_path, page, soup, report, {})
    text = "\n".join(report.failures)
    assert len(report.failures) == 4, text
    assert "missing.html" in text and "gone-next.html" in text
    assert "no id 'nope' in other.html" in text and "no id 'gone' in index.html" in text


def _download_page(href: str | None) -> str:
    button = ("" if href is None else
              f'<div class="dropdown dropdown-download-buttons"><ul class="dropdown-menu"><li>'
              f'<a href="{href}" class="btn btn-sm btn-download-source-button dropdown-item">.ipynb</a>'
              f'</li></ul></div>')
    return f"<html><body>{button}<p>text</p></body></html>"


OWN = "../_sources/chapters/ch01.ipynb"


@pytest.mark.parametrize(("href", "sources", "message"), [
    (None, [], "no download button"),
    (OWN, [], "download link target missing or empty"),
    (OWN, [("chapters/ch01.ipynb", "")], "download link target missing or empty"),
    ("../_sources/chapters/ch02.ipynb", [("chapters/ch02.ipynb", "{}")], "no download link to the page"),
    ("https://example.org/ch01.ipynb", [], "not a local file"),
    (OWN, [("chapters/ch01.ipynb", "{}")], None),  # a working button
])
def test_check_downloads_flags_missing_buttons_and_targets(tmp_path, href, sources, message):
    for rel, content in sources:
        _write(tmp_path / "_sources" / rel, content)
    page = _write(tmp_path / "chapters" / "ch01.html", _download_page(href))
    report = check_book.PageReport("chapters/ch01.html")
    soup = check_book.BeautifulSoup(page.read_text(), "html.parser")
    check_book.check_downloads(tmp_path, page, soup, report)
    if message is None:
        assert report.failures == []
    else:
        assert len(report.failures) == 1 and message in report.failures[0], report.failures
    generated = _write(tmp_path / "search.html", _download_page(None))  # Sphinx's own pages have none
    report = check_book.PageReport("search.html")
    soup = check_book.BeautifulSoup(generated.read_text(), "html.parser")
    check_book.check_downloads(tmp_path, generated, soup, report)
    assert report.failures == []


def test_saved_controls_and_check_dom_flag_missing_widget_controls(tmp_path):
    state = json.dumps({"state": {
        "a": {"model_name": "FloatSliderModel", "state": {"_view_name": "FloatSliderView"}},
        "b": {"model_name": "FloatLogSliderModel", "state": {"_view_name": "FloatLogSliderView"}},
        "c": {"model_name": "DropdownModel", "state": {"_view_name": "DropdownView"}},
        "d": {"model_name": "VBoxModel", "state": {"_view_name": "VBoxView"}},
    }}, indent=1)
    controls = check_book.saved_controls(state)
    assert controls == {".widget-slider": 2, ".widget-dropdown": 1}
    expect = {"maths": 0, "widget_views": 1, "sliders": 2, "controls": controls, "images": 0}
    dom = ('<html><body><div class="jupyter-widgets widget-vbox">'
           '<div class="jupyter-widgets widget-slider widget-hslider"></div></div></body></html>')
    report = check_book.PageReport("p.html")
    check_book.check_dom(tmp_path / "p.html", dom, expect, report)
    text = "\n".join(report.failures)
    assert "2 .widget-slider control(s), 1 rendered" in text
    assert "1 .widget-dropdown control(s), 0 rendered" in text


def test_console_failures_keeps_errors_only():
    messages = ["Uncaught TypeError: boom (source: file:///a/embed.js)",
                "console.error: Got invalid theme mode: . Resetting to auto.",
                "Failed to load resource: net::ERR_FILE_NOT_FOUND (source: file:///a/x.woff2)"]
    assert check_book.console_failures(messages) == [messages[0], messages[2]]


# --- the browser check ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium() -> str:
    path = check_book.find_chromium()
    if path is None:
        pytest.fail("Chromium is not installed: run `bash tools/ensure_chromium.sh` as root "
                    "(make test does), or set CHROMIUM to its path")
    return path


def test_checker_fails_a_page_without_mathjax(chromium, tmp_path):
    (tmp_path / "index.html").write_text('<html><body><span class="math">\\(x^2\\)</span></body></html>')
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "check_book.py"), str(tmp_path),
                           "--no-screenshots"], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "MathJax did not run" in proc.stdout


def test_checker_says_when_chromium_stops(tmp_path):
    """A browser that exits at once (here /bin/false): the page fails with what happened, not a hang."""
    _write(tmp_path / "index.html", "<html><body><p>index</p></body></html>")
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "check_book.py"), str(tmp_path),
                           "--no-screenshots", "--chromium", "false"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1 and "Chromium: Chromium stopped (exit 1)" in proc.stdout, proc.stdout


def test_checker_reports_what_a_page_script_breaks(chromium, tmp_path):
    """What only shows when the page runs: a request to the network, an uncaught error, a file that is
    not there (each added by a script, so the source check cannot see them); the screenshot is taken all
    the same, and the next page, checked by the same browser, passes."""
    _write(tmp_path / "index.html", "<html><body><p>index</p></body></html>")
    broken = _write(tmp_path / "broken.html", """<html><body><p>broken</p><script>
        fetch("https://example.org/data.json").catch(function () {});
        var img = document.createElement("img"); img.src = "missing.png"; document.body.appendChild(img);
        setTimeout(function () { throw new Error("boom"); }, 50);
        </script></body></html>""")
    shots = tmp_path / "shots"
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "check_book.py"), str(tmp_path),
                           str(broken), str(tmp_path / "index.html"), "--screenshots", str(shots)],
                          capture_output=True, text=True, timeout=300, check=False)
    out = proc.stdout
    section = out.split("broken.html", 1)[1].split("index.html", 1)[0]
    assert "the page requested a non-file URL: https://example.org/data.json" in section, out
    assert "console: Uncaught Error: boom" in section, out
    assert "ERR_FILE_NOT_FOUND" in section and "missing.png" in section, out
    assert _png_size(shots / "broken.png")[0] == 1280
    index_section = out.split("index.html", 1)[1].splitlines()[1:]
    assert [ln for ln in index_section if ln.startswith("       -")] == [
        "       - no download button (expected a link to the page's source in _sources/)"], out
    assert proc.returncode == 1


def test_checker_fails_a_table_wider_than_the_box_it_scrolls_in(chromium, tmp_path):
    """The theme puts each table in a scrolling wrapper narrower than the text column: a table that fits the
    column but not the wrapper is cut off at the wrapper's edge, so it fails; one that fits passes."""
    def page(name, table_px):
        return _write(tmp_path / name, f"""<html><body><article class="bd-article" style="width: 700px">
            <div style="width: 600px; overflow-x: auto"><table style="width: {table_px}px"><tr><td>cell</td>
            </tr></table></div></article></body></html>""")
    wide, fits = page("wide.html", 650), page("fits.html", 550)
    _write(tmp_path / "index.html", "<html><body><p>index</p></body></html>")
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "check_book.py"), str(tmp_path), str(wide),
                           str(fits), "--no-screenshots", "--no-links"],
                          capture_output=True, text=True, timeout=300, check=False)
    wide_part, fits_part = proc.stdout.split("fits.html", 1)[0], proc.stdout.split("fits.html", 1)[1]
    assert "a table wider than its column (650 px > 600 px)" in wide_part, proc.stdout
    assert "wider than its column" not in fits_part, proc.stdout


def _png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def test_page_height_measures_a_tall_page(chromium, tmp_path):
    page = _write(tmp_path / "tall.html",
                  '<html><body style="margin:0"><div style="height:5321px">tall</div></body></html>')
    assert check_book.page_height(chromium, page, tmp_path) == 5321
    assert not list(tmp_path.glob(".check_book-measure-*")), "the measuring copy was left behind"
    short = _write(tmp_path / "short.html", '<html><body style="margin:0"><p>short</p></body></html>')
    assert check_book.page_height(chromium, short, tmp_path) <= 1000


def _pages_to_render() -> list[str]:
    """Every page of the book: one per toc entry, and the pages Sphinx generates."""
    return [f"{name}.html" for name in _toc_files()] + ["genindex.html", "search.html"]


def _figure(content: str, number: int = 1) -> str:
    """``content`` in a numbered, captioned figure, as the book's figures are built (myst-nb, Sphinx)."""
    return (f'<figure class="align-default">{content}<figcaption><p><span class="caption-number">Figure '
            f'{number} </span><span class="caption-text">A caption.</span></p></figcaption></figure>')


def _player_page(tmp_path: Path, name: str, players: list[str]) -> Path:
    figures = "".join(_figure(p, k) for k, p in enumerate(players, start=1))
    return _write(tmp_path / name, "<html><body>" + figures + "</body></html>")


def test_check_reading_wants_numbered_figures_rendered_maths_and_figures_cited_by_number():
    def failures(body: str) -> list[str]:
        report = check_book.PageReport("p.html")
        soup = check_book.BeautifulSoup(f'<html><body><article class="bd-article">{body}</article></body>'
                                        "</html>", "html.parser")
        check_book.check_reading(soup, report)
        return report.failures

    img = '<img src="a.png" alt="a pendulum">'
    assert failures(_figure(img) + '<p>As <span class="math">$x$</span> shows.</p>') == []
    assert "image not in a numbered, captioned figure: 'a pendulum'" in failures(img)[0]
    assert "without a numbered caption" in failures(f"<figure>{img}</figure>")[0]
    assert "a '$' in the text" in failures("<ul><li>$a\\mathbf b$ and</li></ul>")[0]
    assert "cite it by number" in failures("<p>The figure below shows it.</p>")[0]
    assert failures("<pre>cost = $5</pre><code>$x</code>") == []


def test_checker_passes_players_that_respond_and_fails_one_that_does_not(chromium, tmp_path):
    """The player check moves the sliders in Chromium: a counterpart whose frames are all the same picture
    (a slider that changes nothing) and a live widget view without a counterpart both fail."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mbdlib import frames

    def draw(a):
        fig, ax = plt.subplots(figsize=(1.5, 1))
        ax.plot([0, a], [0, 1])

    def draw2(kind, a):
        draw(a if kind == "up" else -a)

    # a drop-down before a slider: the slider's readout must still show the slider's own value
    good = frames.frame_grid(draw2, {"kind": ["up", "down"], "a": [1, 2, 3]},
                             {"kind": ["up", "down"], "a": ["1 m", "2 m", "3 m"]},
                             choices=["kind"]).mark_widget().to_html()
    dead = frames.frame_grid(lambda a: draw(1), {"a": [1, 2]}, {"a": ["1", "2"]}).mark_widget().to_html()
    fig, ax = plt.subplots(figsize=(1.5, 1))
    (line,) = ax.plot([0, 0], [0, 1])
    ax.set_xlim(0, 3)
    anim = frames.animate(fig, lambda k: line.set_xdata([k, k]), 3, fps=20).to_html()
    ok_page = _player_page(tmp_path, "ok.html", [good, anim])
    bad_page = _player_page(tmp_path, "bad.html", [dead])
    view = ('<script type="application/vnd.jupyter.widget-view+json">'
            '{"model_id": "x", "version_major": 2, "version_minor": 0}</script>')
    live = _write(tmp_path / "live.html", f"<html><body>{view}</body></html>")
    _write(tmp_path / "index.html", "<html><body>index</body></html>")
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "check_book.py"), str(tmp_path), str(ok_page),
                           str(bad_page), str(live), "--no-screenshots"],
                          capture_output=True, text=True, timeout=600, check=False)
    out = proc.stdout
    # (the synthetic pages have no download button; that is the only failure of ok.html)
    ok_section = out.split("ok.html", 1)[1].split("bad.html", 1)[0]
    assert "1 of 1 widgets respond, 1 of 1 animations play" in ok_section, out
    assert [ln for ln in ok_section.splitlines()[1:] if ln.strip().startswith("-")] == [
        "       - no download button (expected a link to the page's source in _sources/)"], out
    assert "a slider does not change the picture" in out
    assert "rendered without a static counterpart" in out
    assert "check_book: 1 of 3 widgets respond, 1 of 1 animations play" in out
    assert proc.returncode == 1


def test_every_built_page_is_rendered_in_chromium(built_book):
    # the browser test below is parametrized from _toc.yml before the build: no built page may escape it
    built = {str(p.relative_to(built_book)) for p in check_book.list_pages(built_book)}
    assert built == set(_pages_to_render()), built ^ set(_pages_to_render())


@pytest.fixture(scope="session")
def page_checker(chromium, tmp_path_factory):
    """One Chromium per test worker, for page after page (as `tools/check_book.py` keeps one per thread)."""
    checker = check_book.PageChecker(chromium, tmp_path_factory.mktemp("chromium"))
    yield checker
    checker.close()


# One test per page, so that pytest-xdist spreads the pages over its workers.
@pytest.mark.parametrize("rel", _pages_to_render())
def test_built_page_renders_offline_in_chromium(built_book, page_checker, rel):
    """Maths typeset, widgets drawn, images present, no network request, no JS error; a screenshot.
    (The links, downloads and reading checks run for all pages at once, in the static test above.)"""
    shots = REPO / "artifacts" / "screenshots"
    report = page_checker.check(built_book, built_book / rel,
                                shots if check_book.wants_screenshot(rel) else None, links=False)
    line = check_book.report_text(report)
    print(line)
    assert not report.failures, f"check_book failed:\n{line}"
    html = (built_book / rel).read_text(encoding="utf-8")
    if 'class="math' in html:
        assert "mjx-container" in line  # the page had maths, and it was typeset
    if "mbd-player" in html:  # frame players (widget counterparts, animations): every one responds
        found = re.search(r"(\d+) of (\d+) widgets respond, (\d+) of (\d+) animations play", line)
        assert found and found.group(1) == found.group(2) and found.group(3) == found.group(4), line
    if rel in check_book.GENERATED_PAGES:
        return
    # a whole-page screenshot of every page: chapters, front pages, reference pages
    png = shots / (rel.replace("/", "__").removesuffix(".html") + ".png")
    assert png.is_file(), f"no screenshot of {rel}"
    width, height = _png_size(png)
    assert width == 1280
    if rel.startswith("chapters/"):  # a chapter's page is several screens long: the whole of it was captured
        measured = re.search(r"screenshot 1280x(\d+)", line)
        assert measured and height == int(measured.group(1)) and height > 2000, \
            f"{png.name} is {height} px high: not the whole page"


# --- the glyph check: Chinese terms need the course's web font (tools/subset_font.py) ----------------


def _glyph_dom(result: dict) -> str:
    from html import escape
    return f'<html data-check-glyphs="{escape(json.dumps(result))}"><body></body></html>'


def test_check_glyphs_reports_boxes_and_a_missing_web_font():
    report = check_book.PageReport("p.html")
    check_book.check_glyphs("<html><body></body></html>", report)
    assert report.failures == ["the glyph check did not run (no data-check-glyphs on <html>)"]
    report = check_book.PageReport("p.html")
    check_book.check_glyphs(_glyph_dom({"tested": 3, "cjk": "刚体", "faces": [], "check": True, "missing": [
        {"text": "刚", "font": "normal 700 system-ui, sans-serif", "where": "strong in #term-rigid-body"}]}),
        report)
    text = "\n".join(report.failures)
    assert len(report.failures) == 2, text
    assert "no @font-face for 'MBD CJK'" in text
    assert "1 character(s) drawn as a box" in text and "U+521A '刚' (strong in #term-rigid-body" in text
    report = check_book.PageReport("p.html")
    check_book.check_glyphs(_glyph_dom({"tested": 3, "cjk": "刚体", "faces": ["error"], "check": False,
                                        "missing": []}), report)
    assert len(report.failures) == 1 and "did not load (faces: error)" in report.failures[0]
    report = check_book.PageReport("p.html")
    check_book.check_glyphs(_glyph_dom({"tested": 3, "cjk": "刚体", "faces": ["loaded"], "check": True,
                                        "missing": []}), report)
    assert report.failures == [] and "MBD CJK loaded" in report.notes[-1]


def _has_system_cjk_font() -> bool:
    import shutil
    if shutil.which("fc-list") is None:
        return False
    found = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, check=False).stdout
    return bool(found.strip())


def test_checker_passes_a_chinese_term_with_the_web_font_and_fails_it_without(chromium, tmp_path):
    """A glossary-like page with a Chinese term, styled like the theme (its font stack, then course.css):
    with course.css and the shipped font it passes; without them the page has no face for its CJK text,
    and (on a machine without a CJK system font, like the CI) the characters are drawn as boxes."""
    import shutil
    fonts = tmp_path / "_static" / "fonts"
    fonts.mkdir(parents=True)
    shutil.copy(BOOK / "_assets" / "course.css", tmp_path / "_static" / "course.css")
    shutil.copy(BOOK / "_assets" / "fonts" / "mbd-cjk.woff", fonts / "mbd-cjk.woff")
    theme = ('<meta charset="utf-8"><style>html { --pst-font-family-base-system: system-ui, sans-serif;'
             ' --pst-font-family-base: var(--pst-font-family-base-system); }'
             ' body { font-family: var(--pst-font-family-base); }</style>')
    from fontTools.ttLib import TTFont
    shipped = sorted(chr(c) for c in TTFont(fonts / "mbd-cjk.woff").getBestCmap() if c >= 0x4E00)
    assert "刚" in shipped and len(shipped) > 100  # the glossary's 刚体 (rigid body), and many more
    term = ('<dl class="glossary"><dt id="term-rigid-body">rigid body</dt>'
            f'<dd><p><strong>刚体</strong> · symbol q̇, τ · {"".join(shipped[:12])}</p></dd></dl>')
    css = '<link rel="stylesheet" href="_static/course.css">'
    ok = _write(tmp_path / "ok.html", f"<html><head>{theme}{css}</head><body>{term}</body></html>")
    bare = _write(tmp_path / "bare.html", f"<html><head>{theme}</head><body>{term}</body></html>")
    _write(tmp_path / "index.html", "<html><body>index</body></html>")
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "check_book.py"), str(tmp_path), str(ok),
                           str(bare), "--no-screenshots"], capture_output=True, text=True, timeout=300,
                          check=False)
    out = proc.stdout
    ok_section = out.split("ok.html", 1)[1].split("bare.html", 1)[0]
    assert "MBD CJK loaded" in ok_section, out
    # (the synthetic pages have no download button; that is the only failure of ok.html)
    assert [ln for ln in ok_section.splitlines()[1:] if ln.strip().startswith("-")] == [
        "       - no download button (expected a link to the page's source in _sources/)"], out
    bare_section = out.split("bare.html", 1)[1]
    assert "no @font-face for 'MBD CJK'" in bare_section, out
    if not _has_system_cjk_font():
        n_cjk = len(set("刚体" + "".join(shipped[:12])))
        assert f"{n_cjk} character(s) drawn as a box" in bare_section, out
    assert proc.returncode == 1


# --- 3-D players (mbdlib.view3d) ------------------------------------------------------------------------


def _view3d_page(path: Path, root: str, player: str) -> Path:
    """A page with ``player`` in a numbered figure, ``root`` its content root (as Sphinx writes it)."""
    figure = (f'<figure class="align-default">{player}<figcaption><p><span class="caption-number">Figure 1 '
              '</span><span class="caption-text">A motion.</span></p></figcaption></figure>')
    return _write(path, f'<!DOCTYPE html><html data-content_root="{root}"><head><meta charset="utf-8">'
                        f'</head><body>{figure}</body></html>')


@pytest.fixture(scope="module")
def three_orbit() -> Path:
    """The vendored three.js (what `make vendor` does, a no-op when up to date)."""
    vendor = BOOK / "_assets" / "vendor"
    proc = subprocess.run(["bash", str(REPO / "tools" / "vendor_js.sh"), str(vendor)], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, f"tools/vendor_js.sh failed:\n{proc.stderr[-3000:]}"
    return vendor / "three" / "three-orbit.js"


def test_checker_passes_3d_players_that_play_and_fails_one_that_does_not(chromium, tmp_path, three_orbit):
    """A 3-D player finds the vendored three.js from pages at two depths, draws (software WebGL), and its
    slider, a drag, the wheel and ▶ change the picture; a motion whose bodies never move fails; and with
    WebGL off the page keeps its poster and the check says why."""
    import shutil

    import numpy as np

    from mbdlib.view3d import Box, Cylinder, Scene3D, Sphere, Trace

    static = tmp_path / "_static" / "vendor" / "three"
    static.mkdir(parents=True)
    shutil.copy(three_orbit, static / "three-orbit.js")
    n = 60
    t = np.linspace(0, 2, n)
    c, s = np.cos(3 * t), np.sin(3 * t)
    A = np.zeros((n, 3, 3))
    A[:, 0, 0], A[:, 0, 1], A[:, 1, 0], A[:, 1, 1], A[:, 2, 2] = c, -s, s, c, 1
    scene = Scene3D([Box("arm", size=(0.4, 0.05, 0.05), at=(0.2, 0, 0), color="#0072B2"),
                     Cylinder("hub", radius=0.04, length=0.08, body="arm"),
                     Sphere("tip", radius=0.03, body="arm", at=(0.4, 0, 0.05), color="#D55E00"),
                     Trace("tip path", body="arm", point=(0.4, 0, 0.05))])
    moving = scene.play(t, {"arm": (np.zeros((n, 3)), A)}, poster=False).to_html()
    still = scene.play(t, {"arm": (np.zeros((n, 3)), np.repeat(A[:1], n, axis=0))}, poster=False).to_html()
    top = _view3d_page(tmp_path / "index.html", "./", moving)
    deep = _view3d_page(tmp_path / "appendix" / "deep.html", "../", moving)
    dead = _view3d_page(tmp_path / "still.html", "./", still)
    proc = subprocess.run([sys.executable, str(REPO / "tools" / "check_book.py"), str(tmp_path), str(top),
                           str(deep), str(dead), "--no-screenshots"],
                          capture_output=True, text=True, timeout=600, check=False)
    out = proc.stdout
    sections = {name: out.split(f" {name}", 1)[1].split("\nFAIL ", 1)[0].split("\nok ", 1)[0]
                for name in ("index.html", "appendix/deep.html", "still.html")}
    for name in ("index.html", "appendix/deep.html"):
        assert "1 of 1 3-D players play" in sections[name], out
        # (the synthetic pages have no download button; that is their only failure)
        assert [ln for ln in sections[name].splitlines()[1:] if ln.strip().startswith("-")] == [
            "       - no download button (expected a link to the page's source in _sources/)"], out
    assert "0 of 1 3-D players play" in sections["still.html"], out
    assert "play does not move the picture on" in sections["still.html"], out
    assert "the slider does not change the picture" in sections["still.html"], out
    assert "a drag does not turn the view" not in out and "console:" not in out, out
    assert "check_book: 2 of 3 3-D players play" in out
    assert proc.returncode == 1
    # WebGL unavailable: the player says so under its poster, and the check names the flag that helps
    with check_book.open_browser(chromium, tmp_path, ["--disable-webgl"]) as browser:
        dom = check_book.render_measured(browser, top)[1].dom
    report = check_book.PageReport("index.html")
    check_book.check_views3d(dom, {"views3d": 1}, report)
    assert 'data-mbd-state="no-webgl"' in dom and "gives the page no WebGL" in dom
    assert len(report.failures) == 1 and "--enable-unsafe-swiftshader" in report.failures[0], report.failures
