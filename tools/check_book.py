"""Check a built Jupyter Book in headless Chromium, with the network cut off.

Usage::

    .venv/bin/python tools/check_book.py book/_build/html [PAGE.html ...] [--screenshots DIR]

For every page (default: every ``*.html`` of the build, outside ``_static``/``_sources``/``_images``):

1. **HTML source**: no ``<script src>`` / ``<link href>`` (stylesheet, preload, icon) points to
   ``http(s)://`` or ``//``; every local script, stylesheet and image it references exists.
   **Links**: every local ``<a href>`` / ``<link href>`` points to a file that exists, and every
   ``#fragment`` to an ``id`` (or ``<a name>``) of its target page. **Downloads**: every page built from
   a source (all but Sphinx's ``genindex``/``search``) has a download button, each of its links points to
   a non-empty file, and one of them to the page's own source in ``_sources/`` (the ``.ipynb`` of a
   notebook page).
2. **Rendered DOM** (one headless Chromium, driven over its DevTools pipe by ``tools/cdp.py``, with
   ``--host-resolver-rules`` mapping every host to "not found", i.e. offline; each page runs 10 s of
   virtual time, then its DOM is read): maths typeset by MathJax (an ``mjx-container`` in every ``.math``
   element, no ``mjx-merror``); widget views rendered (``.jupyter-widgets`` elements, and as many
   ``.widget-slider`` / ``.widget-dropdown`` / ... controls as the saved widget state has slider /
   dropdown / ... views, no "Error displaying widget"); every ``<img>`` local and present on disk; again
   no remote ``<script src>`` / ``<link href>`` (scripts may add some). Every frame player's sliders and
   play button change the picture (:data:`PLAYER_SCRIPT`). Every 3-D player
   (:mod:`mbdlib.view3d`) started (three.js found, WebGL available: software SwiftShader here), its canvas
   not blank, and its slider, a drag, click + wheel and ▶/❚❚ all change the picture (:data:`VIEW3D_SCRIPT`).
3. **Network** (the page's ``Network.requestWillBeSent`` events): no request to a non-local URL.
4. **Console** (``Runtime.exceptionThrown``, ``console.error``, the ``Log`` domain): no uncaught
   JavaScript error and no failed resource load.
5. **Glyphs**: no character of the page's text (outside MathJax) is drawn as the box of a missing glyph
   (each distinct one drawn on a canvas in its element's font and compared with an unassigned code point);
   a page with CJK text has the web font ``MBD CJK`` of ``course.css`` declared and loaded.

Screenshots (1280 pixels wide, the whole page) of every page but ``genindex``/``search`` go to
``--screenshots`` (default ``artifacts/screenshots`` at the repository root; ``--no-screenshots`` to
skip). They are taken from the page the checks ran on (its players put back as they were found): the
page's ``scrollHeight``, recorded once MathJax and the widgets have drawn, becomes the window's height
(at most ``MAX_SHOT_HEIGHT``); ``--window-height N`` fixes the height instead.

Exit status: 0 all pages pass, 1 some check failed, 2 usage error or no Chromium (message says so).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from html import unescape as html_unescape
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tools/cdp.py, beside this file
import cdp  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
    "--disable-default-apps", "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
    # Offline: every host name resolves to "not found", so a page that needs the network shows it.
    "--host-resolver-rules=MAP * ~NOTFOUND",
    # WebGL in software (SwiftShader) for the 3-D players (mbdlib.view3d): with --disable-gpu Chromium only
    # falls back to it with a deprecation warning, and will stop doing so; this flag asks for it.
    "--enable-unsafe-swiftshader",
]
REMOTE = re.compile(r"^(https?:)?//", re.IGNORECASE)
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads"}
CONSOLE_FAILURES = ("Uncaught", "Failed to load resource", "ERR_FILE_NOT_FOUND", "net::ERR_")
TIMEOUT_S = 90
# Virtual time a page runs before it is read: timers fast-forward, so MathJax, the widget manager and the
# check's scripts (their 2 s of timers) finish; a pending file fetch pauses it.
VIRTUAL_TIME_MS = 10000
# The name of the copy of a page that the check loads (its scripts added), beside the page while it loads.
MEASURE_COPY = ".check_book-measure-"
# Pages Sphinx generates itself: no source, so no download button and no screenshot.
GENERATED_PAGES = {"genindex.html", "search.html", "py-modindex.html"}
NOT_LINKS = ("#", "data:", "blob:", "javascript:", "mailto:", "tel:")
# Widget views of the saved state (ipywidgets 8 `_view_name`, matched by suffix) -> the control the
# HTML manager draws for each. Layout views (HBox, VBox, Output) are not controls.
WIDGET_CONTROLS = {
    "SliderView": ".widget-slider",          # IntSlider, FloatSlider, FloatLogSlider, ...
    "RangeSliderView": ".widget-slider",
    "DropdownView": ".widget-dropdown",
    "CheckboxView": ".widget-checkbox",
    "ToggleButtonsView": ".widget-toggle-buttons",
    "RadioButtonsView": ".widget-radio",
    "ButtonView": ".widget-button",
    "TextView": ".widget-text",
    "PlayView": ".widget-play",
}
MAX_SHOT_HEIGHT = 40000
MAX_PAGE_MB = 5.0
MEASURE_SCRIPT = ('<script>setInterval(function () { var d = document.documentElement; '
                  'd.setAttribute("data-check-book-height", Math.max(d.scrollHeight, document.body ? '
                  'document.body.scrollHeight : 0)); }, 2000);</script>')
# Moves every slider of every frame player (mbdlib.frames: a widget's static counterpart or an animation)
# the way a reader does (a new value, then an "input" event) and records whether the picture changed; presses
# each play button and records whether the picture moved on by itself. The result goes into an attribute of
# <html>, read back from --dump-dom.
PLAYER_SCRIPT = """<script>window.addEventListener("load", function () { setTimeout(function () {
  var results = [], playing = [];
  function shown(p) {
    var img = p.querySelector("img.mbd-player-img"), pre = p.querySelector("pre.mbd-player-text");
    return (img ? img.getAttribute("src") : "") + "|" + (pre ? pre.textContent : "");
  }
  document.querySelectorAll(".mbd-player:not(.mbd-player-3d)").forEach(function (p) {
    var r = {id: p.id, kind: p.getAttribute("data-mbd-kind"), widget: p.hasAttribute("data-mbd-widget"),
             sliders: [], distinct: 0, play: null};
    var seen = {}, data = JSON.parse(p.querySelector("script.mbd-player-data").textContent), initial = [];
    r.readouts = true;
    p.querySelectorAll(".mbd-player-control").forEach(function (s, axis) {
      var v0 = s.value, before = shown(p), changed = false;
      initial.push([s, v0]);
      var n = s.tagName === "SELECT" ? s.options.length - 1 : parseInt(s.max, 10);
      var out = s.parentNode.querySelector("output");
      for (var v = 0; v <= n; v++) {
        s.value = String(v); s.dispatchEvent(new Event("input", {bubbles: true}));
        seen[shown(p)] = true;
        if (String(v) !== v0 && shown(p) !== before) { changed = true; }
        if (out && out.textContent !== data.labels[axis][v]) { r.readouts = false; }
      }
      s.value = v0; s.dispatchEvent(new Event("input", {bubbles: true}));
      r.sliders.push(changed);
    });
    r.distinct = Object.keys(seen).length;
    var button = p.querySelector("button.mbd-player-play");
    if (button) { playing.push([r, p, shown(p), initial]); button.click(); }
    results.push(r);
  });
  setTimeout(function () {
    playing.forEach(function (x) {
      x[0].play = shown(x[1]) !== x[2];
      x[1].querySelector("button.mbd-player-play").click();
      x[3].forEach(function (c) {  // back to the first picture, for the screenshot
        c[0].value = c[1]; c[0].dispatchEvent(new Event("input", {bubbles: true}));
      });
    });
    document.documentElement.setAttribute("data-check-players", JSON.stringify(results));
  }, 1500);
}, 300); });</script>"""
# The 3-D players (mbdlib.view3d, class mbd-player-3d): once each has started (or given up), check that its
# canvas shows something (the share of pixels that differ from the background), that the slider's last frame
# changes the picture and its readout, that a drag turns the view and a click + wheel zooms it, and that ▶
# moves the picture on by itself (and ❚❚ stops it). Pictures are compared by the player's own sample() (8x8
# cell means of the drawn canvas, read right after drawing). Results go into an attribute of <html>.
VIEW3D_SCRIPT = """<script>window.addEventListener("load", function () {
  var views = Array.prototype.slice.call(document.querySelectorAll(".mbd-player-3d")), t0 = Date.now();
  var results = [], playing = [];
  function moved(a, b) {
    var d = 0;
    for (var i = 0; i < a.cells.length; i++) { d = Math.max(d, Math.abs(a.cells[i] - b.cells[i])); }
    return d > 1;
  }
  function pointer(el, type, x, y, buttons) {
    var r = el.getBoundingClientRect();
    el.dispatchEvent(new PointerEvent(type, {pointerId: 1, pointerType: "mouse", isPrimary: true,
      bubbles: true, button: 0, buttons: buttons, clientX: r.left + x * r.width,
      clientY: r.top + y * r.height}));
  }
  function test(p) {
    var r = {id: p.id, state: p.getAttribute("data-mbd-state"),
             message: (p.querySelector(".mbd-view3d-message") || {}).textContent || ""};
    results.push(r);
    var api = p.mbdView3d;
    if (r.state !== "ready" || !api) { return; }
    try {
      var s = p.querySelector("input.mbd-player-control"), out = p.querySelector("output");
      var c = p.querySelector("canvas");
      var first = api.sample(), n = s ? parseInt(s.max, 10) : 0, start = api.frame();
      r.drawn = first.drawn;
      r.slider = r.readout = true;  // a still (one frame) has no slider and no play button
      if (s) {
        s.value = String(n); s.dispatchEvent(new Event("input", {bubbles: true}));
        r.slider = api.frame() === n && moved(first, api.sample());
        r.readout = out.textContent === api.label(n);
        s.value = "0"; s.dispatchEvent(new Event("input", {bubbles: true}));
      }
      var before = api.sample();
      pointer(c, "pointerdown", 0.5, 0.5, 1); pointer(c, "pointermove", 0.6, 0.52, 1);
      pointer(c, "pointermove", 0.7, 0.55, 1); pointer(c, "pointerup", 0.7, 0.55, 0);
      var turned = api.sample();
      r.drag = moved(before, turned);
      pointer(c, "pointerdown", 0.5, 0.5, 1); pointer(c, "pointerup", 0.5, 0.5, 0);
      var b = c.getBoundingClientRect();
      c.dispatchEvent(new WheelEvent("wheel", {deltaY: -300, bubbles: true, cancelable: true,
                                              clientX: b.left + b.width / 2, clientY: b.top + b.height / 2}));
      r.zoom = moved(turned, api.sample());
      api.reset();
      var button = p.querySelector("button.mbd-player-play");
      if (button) { playing.push([r, api, api.sample(), button, s, start]); button.click(); }
      else { r.play = r.paused = true; }
    } catch (err) { r.error = String(err); }
  }
  (function wait() {
    var loading = views.some(function (p) { return p.getAttribute("data-mbd-state") === "loading"; });
    if (loading && Date.now() - t0 < 8000) { setTimeout(wait, 100); return; }
    views.forEach(test);
    setTimeout(function () {
      playing.forEach(function (x) {
        x[0].play = x[1].frame() > 0 && moved(x[2], x[1].sample());
        x[3].click();
        x[0].paused = x[3].textContent.indexOf("play") >= 0;
        x[4].value = String(x[5]); x[4].dispatchEvent(new Event("input", {bubbles: true}));  // as found
      });
      document.documentElement.setAttribute("data-check-views3d", JSON.stringify(results));
    }, 1500);
  })();
});</script>"""
# A canvas whose share of non-background pixels is below this is blank (the ground grid alone is ~1-3 %).
MIN_DRAWN = 0.005
# Records what is wider than the page's text column once the page is laid out: tables, and code blocks
# whose lines are cut off at the column edge (a reader would have to scroll them sideways).
LAYOUT_SCRIPT = """<script>window.addEventListener("load", function () { setTimeout(function () {
  var column = document.querySelector("article.bd-article") || document.querySelector("main")
    || document.body;
  var width = column.clientWidth, wide = [];
  column.querySelectorAll("table").forEach(function (t) {
    // the box the table is laid out in (the theme's scrolling wrapper is narrower than the column: a
    // table wider than it is cut off at its edge, and the reader must scroll it sideways)
    var inner = t.parentElement ? t.parentElement.clientWidth : 0;  // 0: an inline parent, no box
    var box = inner > 0 ? Math.min(width, inner) : width;
    var w = Math.max(t.scrollWidth, t.getBoundingClientRect().width);
    if (w > box + 2) {
      wide.push({kind: "table", width: Math.round(w), column: box,
                 text: (t.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 60)});
    }
  });
  column.querySelectorAll("div.highlight pre").forEach(function (pre) {
    if (pre.closest(".toggle-hidden, details:not([open]), .cell_output")) { return; }
    if (pre.scrollWidth > pre.clientWidth + 2) {
      wide.push({kind: "code", width: pre.scrollWidth, column: pre.clientWidth,
                 text: (pre.textContent || "").split("\\n").reduce(function (a, b) {
                   return b.length > a.length ? b : a; }, "").slice(0, 60)});
    }
  });
  document.documentElement.setAttribute("data-check-layout", JSON.stringify(wide));
}, 1000); });</script>"""


@dataclass
class PageReport:
    page: str
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    counts: dict = field(default_factory=dict)

    def fail(self, msg: str) -> None:
        self.failures.append(msg)


def find_chromium(explicit: str | None = None) -> str | None:
    """Path of a Chromium executable: ``explicit``, ``$CHROMIUM``, or the first one on PATH."""
    for name in (explicit, os.environ.get("CHROMIUM"), *CHROMIUM_CANDIDATES):
        if name and (path := shutil.which(name)):
            return path
    return None


def list_pages(build: Path) -> list[Path]:
    """Every HTML page of the build, outside Sphinx's asset folders, sorted; not the copies that
    :func:`render_measured` keeps beside a page while another checker (a test worker) loads it."""
    return sorted(p for p in build.rglob("*.html") if not SKIP_DIRS & set(p.relative_to(build).parts[:-1])
                  and not p.name.startswith(MEASURE_COPY))


def _local_target(page: Path, ref: str) -> Path | None:
    """File a relative/file: reference of ``page`` points to, or None for data:/anchors/etc."""
    if not ref or ref.startswith(("#", "data:", "blob:", "javascript:", "mailto:")):
        return None
    parts = urlsplit(ref)
    if parts.scheme == "file":
        return Path(unquote(parts.path))
    if parts.scheme:
        return None
    return (page.parent / unquote(parts.path)).resolve()


def _remote_assets(soup: BeautifulSoup) -> list[str]:
    """Remote URLs loaded by <script src> and <link href> (stylesheets, preloads, icons, fonts)."""
    found = [s["src"] for s in soup.find_all("script", src=True) if REMOTE.match(s["src"])]
    for link in soup.find_all("link", href=True):
        rel = {r.lower() for r in link.get("rel", [])}
        if rel & {"stylesheet", "preload", "modulepreload", "icon", "shortcut", "prefetch", "manifest"}:
            if REMOTE.match(link["href"]):
                found.append(link["href"])
    return found


def check_source(page: Path, html: str, report: PageReport, build: Path | None = None,
                 ids: dict | None = None) -> dict:
    """Static checks of the built HTML; returns what the page should show once rendered.

    With ``build`` (the HTML folder) it also checks the page's links (:func:`check_links`, ``ids``
    caches the anchors of target pages) and its download button (:func:`check_downloads`).
    """
    soup = BeautifulSoup(html, "html.parser")
    for url in _remote_assets(soup):
        report.fail(f"source loads a remote asset: {url}")
    refs = [s["src"] for s in soup.find_all("script", src=True)]
    refs += [ln["href"] for ln in soup.find_all("link", href=True)
             if {"stylesheet", "preload"} & set(ln.get("rel", []))]
    refs += [img["src"] for img in soup.find_all("img", src=True)]
    for ref in refs:
        target = _local_target(page, ref)
        if target is not None and not target.exists():
            report.fail(f"source references a missing file: {ref}")
    if build is not None:
        check_links(build, page, soup, report, {} if ids is None else ids)
        check_downloads(build, page, soup, report)
        rel = page.relative_to(build).as_posix() if page.is_relative_to(build) else page.name
        if rel not in GENERATED_PAGES and not is_unsplit_chapter(build, rel):
            check_reading(soup, report)
    state = soup.find("script", type="application/vnd.jupyter.widget-state+json")
    state_text = state.string if state and state.string else ""
    return {
        "maths": len(soup.select(".math")),
        "widget_views": len(soup.find_all("script", type="application/vnd.jupyter.widget-view+json")),
        "sliders": len(re.findall(r'"_view_name": "\w*SliderView"', state_text)),
        "controls": saved_controls(state_text),
        "images": len(soup.find_all("img")),
        "players": len(soup.select(".mbd-player:not(.mbd-player-3d)")),
        "widget_players": len(soup.select(".mbd-player[data-mbd-widget]")),
        "views3d": len(soup.select(".mbd-player-3d")),
    }


# Prose that points at a figure by its place instead of its number ("the figure above"): refer to it with
# {numref}`fig-name`, which reads "Figure 3.2" and survives a move.
FIGURE_BY_PLACE = re.compile(r"\b(?:the|this)\s+(?:figure|plot|picture|animation)s?\s+(?:above|below)\b",
                             re.I)
# A chapter's pages: chapters/chNN_<name>.html (the overview) and chapters/chNN_<k>_<name>.html (its pages).
CHAPTER_PAGE = re.compile(r"^chapters/ch(\d\d)_")
SPLIT_PAGE = re.compile(r"^ch(\d\d)_\d+_")


def _content(soup: BeautifulSoup):
    """The page's own content (the article), without the theme's navigation."""
    return soup.select_one("article.bd-article") or soup.select_one("main") or soup.body or soup


def is_unsplit_chapter(build: Path | None, rel: str) -> bool:
    """True for the single page of a chapter not yet divided into pages (the figure rules wait for it)."""
    m = CHAPTER_PAGE.match(rel)
    if build is None or not m:
        return False
    return not any(SPLIT_PAGE.match(p.name) and p.name.startswith(f"ch{m.group(1)}_")
                   for p in (build / "chapters").glob("*.html"))


def check_reading(soup: BeautifulSoup, report: PageReport) -> None:
    """What a reader sees in the text: every picture a numbered, captioned figure; no maths left as raw
    TeX (a ``$`` in the text: e.g. a line of an inline formula that Markdown took for a list item);
    no figure pointed at by its place."""
    content = _content(soup)
    shown = [("image", img) for img in content.find_all("img") if not img.find_parent(class_="math")]
    shown += [("player", p) for p in content.select(".mbd-player")]
    for kind, node in shown:
        if node.find_parent(class_="mbd-player") is not None:
            continue  # a frame inside a player: the player is the figure
        fig = node.find_parent("figure")
        if fig is None or fig.select_one(".caption-number") is None:
            cap = " (in a figure without a numbered caption)" if fig is not None else ""
            where = node.get("alt") or node.get("src", "")[:60] or node.get("id", "")
            report.fail(f"{kind} not in a numbered, captioned figure{cap}: {where!r}; give its cell "
                        "the metadata mystnb.figure {caption, name}")
    for text in content.find_all(string=True):
        parent = text.parent
        if "$" not in text:  # (first: the cheap test; walking up the tree for every text is not)
            continue
        if parent is None or parent.name in ("script", "style", "pre", "code", "textarea"):
            continue
        if "math" in (parent.get("class") or []) or parent.find_parent(class_="math") is not None:
            continue
        if parent.find_parent(["pre", "code", "script"]) is not None:
            continue
        report.fail(f"maths not rendered, a '$' in the text: {text.strip()[:80]!r} (an inline formula "
                    "broken across lines? a line starting with '+' or '-' becomes a list item)")
        break
    if m := FIGURE_BY_PLACE.search(content.get_text(" ")):
        report.fail(f"a figure referred to by its place ({m.group(0)!r}): cite it by number, "
                    "{numref}`name`")


IMG_SRC = re.compile(r"""<img\b[^>]*?\ssrc=["']([^"']*)["']""", re.IGNORECASE)


def page_weight(page: Path, html: str) -> int:
    """Bytes a reader downloads for the page's own content: the HTML (with its inline frames) plus the local
    images it shows (the theme's and the vendored scripts, shared by every page and cached, not counted)."""
    total = len(html.encode("utf-8"))
    for src in set(IMG_SRC.findall(html)):
        target = _local_target(page, src)
        if target is not None and target.is_file() and "_static" not in target.parts:
            total += target.stat().st_size
    return total


def check_players(dom: str, expect: dict, report: PageReport) -> dict:
    """Every frame player responds: each slider changes the picture, each play button moves it on.

    Returns counts for the summary: {"widgets": n, "widgets_ok": n, "animations": n, "animations_ok": n}.
    A live widget view rendered without a counterpart counts as a widget that does not respond.
    """
    counts = {"widgets": 0, "widgets_ok": 0, "animations": 0, "animations_ok": 0}
    found = re.search(r'data-check-players="([^"]*)"', dom)
    if expect["players"] and not found:
        report.fail(f"{expect['players']} frame player(s) on the page, but the player check did not report")
        return counts
    results = json.loads(html_unescape(found.group(1))) if found else []
    if len(results) != expect["players"]:
        report.fail(f"{expect['players']} frame players in the source, {len(results)} in the rendered page")
    for r in results:
        ok_sliders = bool(r["sliders"]) and all(r["sliders"])
        if not r.get("readouts", True):
            report.fail(f"player {r['id']}: a slider's readout does not show the value it points at")
        if r["kind"] == "animation":
            counts["animations"] += 1
            ok = ok_sliders and r["play"] is True
            counts["animations_ok"] += ok
            if not ok:
                report.fail(f"animation {r['id']} does not play (slider moves picture: {r['sliders']}, "
                            f"play moves picture: {r['play']})")
        else:
            counts["widgets"] += 1
            counts["widgets_ok"] += ok_sliders
            if not ok_sliders:
                report.fail(f"widget counterpart {r['id']}: a slider does not change the picture "
                            f"({r['sliders']}, {r['distinct']} distinct pictures)")
    dead = expect["widget_views"]
    if dead:  # live widget views that the book renders: without a kernel they cannot respond
        counts["widgets"] += dead
        report.fail(f"{dead} live widget view(s) rendered without a static counterpart: in the HTML book "
                    "their sliders do nothing (give interactive_figure a static= grid)")
    report.notes.append(f"{counts['widgets_ok']} of {counts['widgets']} widgets respond, "
                        f"{counts['animations_ok']} of {counts['animations']} animations play")
    return counts


def check_views3d(dom: str, expect: dict, report: PageReport) -> dict:
    """Every 3-D player (mbdlib.view3d) started and responds; see :data:`VIEW3D_SCRIPT`.

    Returns counts for the summary: {"views3d": n, "views3d_ok": n}.
    """
    counts = {"views3d": expect.get("views3d", 0), "views3d_ok": 0}
    if not counts["views3d"]:
        return counts
    found = re.search(r'data-check-views3d="([^"]*)"', dom)
    if not found:
        report.fail(f"{counts['views3d']} 3-D player(s) on the page, but the 3-D check did not report")
        return counts
    results = json.loads(html_unescape(found.group(1)))
    if len(results) != counts["views3d"]:
        report.fail(f"{counts['views3d']} 3-D players in the source, {len(results)} in the rendered page")
    for r in results:
        name = f"3-D player {r['id']}"
        if r["state"] == "no-webgl":
            report.fail(f"{name}: WebGL is unavailable in this Chromium, the page shows its poster instead "
                        "(run Chromium with --enable-unsafe-swiftshader for software WebGL)")
            continue
        if r["state"] != "ready":
            report.fail(f"{name} did not start (state {r['state']!r}): {r['message'].strip()[:200]}")
            continue
        if r.get("error"):
            report.fail(f"{name}: the check itself failed: {r['error']}")
            continue
        bad = [what for what, ok in (("the canvas is blank", r["drawn"] >= MIN_DRAWN),
                                     ("the slider does not change the picture", r["slider"]),
                                     ("the readout does not show the slider's time", r["readout"]),
                                     ("a drag does not turn the view", r["drag"]),
                                     ("click + wheel does not zoom", r["zoom"]),
                                     ("play does not move the picture on", r.get("play")),
                                     ("pause does not stop it", r.get("paused"))) if not ok]
        if bad:
            report.fail(f"{name}: " + "; ".join(bad) + f" (drawn {r['drawn']:.3f} of the canvas)")
        else:
            counts["views3d_ok"] += 1
    report.notes.append(f"{counts['views3d_ok']} of {counts['views3d']} 3-D players play")
    return counts


def saved_controls(state_text: str) -> dict[str, int]:
    """Number of each kind of control in a saved widget state: {css selector: count}."""
    counts: dict[str, int] = {}
    for view in re.findall(r'"_view_name":\s*"(\w+)"', state_text):
        for suffix, selector in WIDGET_CONTROLS.items():
            if view.endswith(suffix):
                counts[selector] = counts.get(selector, 0) + 1
                break
    return counts


# an id="..." attribute, and an <a name="...">, in HTML source (quoted either way; in a <pre> or a script's
# JSON the quotes are escaped, so text that only shows such an attribute is not taken for one)
ID_ATTR = re.compile(r"""\sid\s*=\s*(?:"([^"]*)"|'([^']*)')""")
A_NAME = re.compile(r"""<a\s[^>]*?\bname\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)


def _anchors(path: Path, ids: dict) -> set[str]:
    """The ids (and <a name>s) of an HTML file, cached in ``ids`` (read by :data:`ID_ATTR`, not parsed:
    a link target is read once per page that links to it and the whole book is checked per page)."""
    if path not in ids:
        text = path.read_text(encoding="utf-8", errors="replace")
        ids[path] = {html_unescape(a or b) for regex in (ID_ATTR, A_NAME) for a, b in regex.findall(text)}
    return ids[path]


def check_links(build: Path, page: Path, soup: BeautifulSoup, report: PageReport, ids: dict) -> None:
    """Every local <a href>/<link href> exists; every #fragment is an id of its target page."""
    hrefs = [a["href"] for a in soup.find_all("a", href=True)]
    hrefs += [ln["href"] for ln in soup.find_all("link", href=True)]
    seen = set()
    for href in hrefs:
        if href in seen or REMOTE.match(href) or href.startswith(NOT_LINKS[1:]) or href == "#":
            continue
        seen.add(href)
        parts = urlsplit(href)
        if parts.scheme and parts.scheme != "file":
            continue  # another scheme (e.g. a remote link): not a file of the book
        target = page.resolve() if not parts.path else _local_target(page, href)
        if target is None:
            continue
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            report.fail(f"broken link: {href} (no file {_rel(build, target)})")
            continue
        fragment = unquote(parts.fragment)
        if fragment and target.suffix == ".html" and fragment not in _anchors(target, ids):
            report.fail(f"broken link: {href} (no id {fragment!r} in {_rel(build, target)})")


def _rel(build: Path, target: Path) -> str:
    try:
        return str(target.relative_to(build.resolve()))
    except ValueError:
        return str(target)


def check_downloads(build: Path, page: Path, soup: BeautifulSoup, report: PageReport) -> None:
    """The page's download button exists and its links point to files, one of them its own source."""
    rel = page.resolve().relative_to(build.resolve())
    if str(rel) in GENERATED_PAGES:
        return
    buttons = soup.select(".dropdown-download-buttons a[href], a.btn-download-source-button")
    links = [a["href"] for a in buttons if a.get("href")]
    if not links:
        report.fail("no download button (expected a link to the page's source in _sources/)")
        return
    targets = []
    for href in dict.fromkeys(links):
        target = _local_target(page, href)
        if target is None or REMOTE.match(href):
            report.fail(f"download link is not a local file: {href}")
        elif not target.is_file() or target.stat().st_size == 0:
            report.fail(f"download link target missing or empty: {href}")
        else:
            targets.append(target)
    sources = build.resolve() / "_sources" / rel.parent
    own = [t for t in targets if t.parent == sources and t.name.split(".")[0] == rel.stem]
    if targets and not own:
        report.fail(f"no download link to the page's own source (_sources/{rel.with_suffix('')}.*)")


def check_dom(page: Path, dom: str, expect: dict, report: PageReport) -> None:
    """Checks of the DOM after scripts ran (MathJax, widgets, images, remote assets)."""
    soup = BeautifulSoup(dom, "html.parser")
    if expect["maths"]:
        maths = soup.find_all(class_="math")
        untypeset = [m for m in maths if m.find("mjx-container") is None and m.name != "mjx-container"]
        n_mjx = len(soup.find_all("mjx-container"))
        if n_mjx == 0:
            report.fail(f"MathJax did not run: {len(maths)} maths elements, no mjx-container")
        elif untypeset:
            report.fail(f"{len(untypeset)} of {len(maths)} maths elements not typeset, first: "
                        f"{untypeset[0].get_text()[:80]!r}")
        if errors := soup.find_all("mjx-merror"):
            report.fail(f"MathJax reported {len(errors)} TeX error(s), first: {errors[0].get_text()[:80]!r}")
        report.notes.append(f"maths: {n_mjx} mjx-container")
    if expect["widget_views"]:
        widgets = soup.select(".jupyter-widgets")
        if not widgets:
            report.fail(f"{expect['widget_views']} widget view(s) saved but no .jupyter-widgets element "
                        "rendered (is the widget manager loaded?)")
        if expect.get("sliders") and not soup.select(".widget-slider"):
            report.fail("the saved widget state has a slider but no .widget-slider was rendered")
        for selector, saved in expect.get("controls", {}).items():
            drawn = len(soup.select(selector))
            if drawn < saved:
                report.fail(f"the saved widget state has {saved} {selector} control(s), {drawn} rendered")
        if "Error displaying widget" in soup.get_text():
            report.fail("the widget manager printed 'Error displaying widget'")
        drawn = {sel: len(soup.select(sel)) for sel in (".widget-slider", *expect.get("controls", {}))}
        report.notes.append(f"widgets: {len(widgets)} .jupyter-widgets, "
                            + "".join(f"{n} {sel}, " for sel, n in drawn.items())
                            + f"{len(soup.select('.widget-readout'))} .widget-readout")
    imgs = soup.find_all("img")
    for img in imgs:
        src = img.get("src", "")
        if REMOTE.match(src):
            report.fail(f"image loaded from the network: {src}")
        elif (target := _local_target(page, src)) is not None and not target.is_file():
            report.fail(f"image file missing: {src}")
    if imgs:
        report.notes.append(f"images: {len(imgs)}")
    for url in _remote_assets(soup):
        report.fail(f"DOM loads a remote asset (added by a script): {url}")


def check_layout(dom: str, report: PageReport) -> None:
    """Nothing wider than the text column (:data:`LAYOUT_SCRIPT`): no table overflows, no code line is cut."""
    found = re.search(r'data-check-layout="([^"]*)"', dom)
    if not found:
        report.fail("the layout check did not run (no data-check-layout on <html>)")
        return
    for item in json.loads(html_unescape(found.group(1))):
        what = "a table" if item["kind"] == "table" else "a code line"
        report.fail(f"{what} wider than its column ({item['width']} px > {item['column']} px): "
                    f"{item['text']!r}")


# --- glyphs: no character drawn as a box (the CJK web font, tools/subset_font.py) ----------------------
WEB_FONT_FAMILY = "MBD CJK"   # the @font-face of book/_assets/course.css
# Draws every distinct non-ASCII character (grapheme) of the page's text, in the font its element uses,
# on a canvas, and compares the pixels with those of an unassigned code point (U+0378): no font has a glyph
# for it, so it shows exactly the box that a character no usable font covers would show. A grapheme with
# a combining mark (q̇) fails when its width exceeds its base's by half a box: a mark without a glyph is a
# box of its own, one with a glyph has no advance. Fonts are loaded first (document.fonts.load), as the
# page itself would load them. Also records whether the page has CJK text and the status of the web font's
# faces. The text of MathJax containers is skipped (MathJax draws it with its own fonts), images have none.
GLYPH_SCRIPT = r"""<script>window.addEventListener("load", function () {
  var FAMILY = "@FAMILY@", SKIP = "script,style,noscript,template,title,mjx-container,mjx-assistive-mml";
  var CJK = new RegExp("[\u1100-\u11ff\u2e80-\u33ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
    + "\ufe10-\ufe1f\ufe30-\ufe4f\uff00-\uffef]|[\ud840-\ud87e][\udc00-\udfff]");  // subset_font.CJK_RANGES
  var MARK = /\p{M}/u, ASCII = /^[\x21-\x7e]+$/;
  function report(r) { document.documentElement.setAttribute("data-check-glyphs", JSON.stringify(r)); }
  function where(el) {
    var named = el.closest("[id]");
    return el.tagName.toLowerCase() + (named ? " in #" + named.id : "");
  }
  function run() {
    var seg = new Intl.Segmenter("en", {granularity: "grapheme"}), groups = {}, cjk = "";
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), node;
    while ((node = walker.nextNode())) {
      var el = node.parentElement, text = node.nodeValue;
      if (!el || !text.trim() || el.closest(SKIP)) { continue; }
      var cs = getComputedStyle(el), font = cs.fontStyle + " " + cs.fontWeight + " 32px " + cs.fontFamily;
      var g = groups[font] || (groups[font] = {});
      for (var s of seg.segment(text)) {
        var c = s.segment;
        if (!c.trim() || ASCII.test(c)) { continue; }
        if (!g[c]) { g[c] = where(el); }
        if (CJK.test(c) && cjk.length < 20 && cjk.indexOf(c) < 0) { cjk += c; }
      }
    }
    var fonts = Object.keys(groups);
    return Promise.all(fonts.map(function (f) {
      return document.fonts.load(f, Object.keys(groups[f]).join("")).catch(function () { return []; });
    })).then(function () {
      var canvas = document.createElement("canvas"), W = 120, H = 64;
      canvas.width = W; canvas.height = H;
      var ctx = canvas.getContext("2d", {willReadFrequently: true});
      function pixels(text) {
        ctx.clearRect(0, 0, W, H); ctx.fillText(text, 8, 44);
        return Array.prototype.join.call(ctx.getImageData(0, 0, W, H).data);
      }
      var missing = [], tested = 0;
      fonts.forEach(function (f) {
        ctx.font = f;
        var box = pixels("\u0378"), boxWidth = ctx.measureText("\u0378").width;
        Object.keys(groups[f]).forEach(function (c) {
          tested++;
          var base = Array.from(c).filter(function (x) { return !MARK.test(x); }).join("");
          var bad = pixels(base || c) === box;
          if (!bad && base && base !== c) {
            bad = ctx.measureText(c).width - ctx.measureText(base).width > 0.5 * boxWidth;
          }
          if (bad) { missing.push({text: c, font: f.replace(" 32px ", " "), where: groups[f][c]}); }
        });
      });
      var faces = [];
      document.fonts.forEach(function (face) {
        if (face.family.replace(/["']/g, "") === FAMILY) { faces.push(face.status); }
      });
      report({tested: tested, missing: missing, cjk: cjk, faces: faces,
              check: cjk ? document.fonts.check('16px "' + FAMILY + '"', cjk) : null});
    });
  }
  var typeset = window.MathJax && window.MathJax.startup && window.MathJax.startup.promise;
  Promise.resolve(typeset).catch(function () {}).then(function () { return document.fonts.ready; })
    .then(function () { return new Promise(function (ok) { setTimeout(ok, 300); }); })
    .then(run).catch(function (err) { report({error: String(err)}); });
});</script>""".replace("@FAMILY@", WEB_FONT_FAMILY)


def check_glyphs(dom: str, report: PageReport) -> None:
    """No character of the page's text shows as a box (:data:`GLYPH_SCRIPT`), and a page with CJK text has
    the course's web font (:data:`WEB_FONT_FAMILY`, book/_assets/course.css) declared and loaded."""
    found = re.search(r'data-check-glyphs="([^"]*)"', dom)
    if not found:
        report.fail("the glyph check did not run (no data-check-glyphs on <html>)")
        return
    result = json.loads(html_unescape(found.group(1)))
    if "error" in result:
        report.fail(f"the glyph check failed in the page: {result['error']}")
        return
    if result["cjk"]:
        faces = result["faces"]
        if not faces:
            report.fail(f"CJK text ({result['cjk'][:8]!r}...) but no @font-face for {WEB_FONT_FAMILY!r}: the "
                        "page needs book/_assets/course.css and its font (tools/subset_font.py)")
        elif "loaded" not in faces or not result["check"]:
            report.fail(f"CJK text ({result['cjk'][:8]!r}...) but the web font {WEB_FONT_FAMILY!r} did not "
                        f"load (faces: {', '.join(faces)}): is _static/fonts/mbd-cjk.woff there?")
    if missing := result["missing"]:
        shown = "; ".join(f"U+{ord(m['text'][0]):04X} {m['text']!r} ({m['where']}, font {m['font'][:40]}...)"
                          for m in missing[:8])
        more = f" and {len(missing) - 8} more" if len(missing) > 8 else ""
        report.fail(f"{len(missing)} character(s) drawn as a box, in no font the page can use: {shown}{more}"
                    " (CJK: run python tools/subset_font.py)")
    report.notes.append(f"glyphs: {result['tested']} non-ASCII checked"
                        + (f", {WEB_FONT_FAMILY} loaded" if "loaded" in result.get("faces", []) else ""))
# --- end of the glyph check ---

def console_failures(messages: list[str]) -> list[str]:
    """Console messages that mean something broke (uncaught errors, failed loads)."""
    return [m[:300] for m in messages if any(key in m for key in CONSOLE_FAILURES)]


def open_browser(chromium: str, workdir: Path, extra: list[str] = ()) -> cdp.Browser:
    """A headless Chromium with :data:`CHROMIUM_FLAGS` (plus ``extra``), driven over its DevTools pipe."""
    profile = Path(tempfile.mkdtemp(prefix="profile-", dir=workdir))
    return cdp.Browser(chromium, [*CHROMIUM_FLAGS, *extra], profile, profile.with_suffix(".log"))


def render_measured(browser: cdp.Browser, page: Path, width: int = 1280,
                    height: int = 1000) -> tuple[cdp.Tab, cdp.PageLoad, int | None]:
    """Load a copy of ``page`` with the check's scripts in a new tab; return (tab, what the page did, its
    height in px).

    The copy sits next to the page (so its relative links work) and is removed once loaded; it differs
    from the page by the scripts that measure it, move the sliders of its frame players
    (:data:`PLAYER_SCRIPT`, :data:`VIEW3D_SCRIPT`, both leave every player as they found it), and look at
    its layout and glyphs. The height is None if it could not be measured.
    """
    html = page.read_text(encoding="utf-8")
    body_end = html.rfind("</body>")
    if body_end < 0:
        html, body_end = html + "<body></body>", len(html) + len("<body>")
    copy = page.with_name(f"{MEASURE_COPY}{os.getpid()}-{threading.get_ident()}-{page.name}")
    scripts = MEASURE_SCRIPT + PLAYER_SCRIPT + VIEW3D_SCRIPT + LAYOUT_SCRIPT + GLYPH_SCRIPT
    copy.write_text(html[:body_end] + scripts + html[body_end:], encoding="utf-8")
    try:
        tab, load = browser.load(copy.as_uri(), budget_ms=VIRTUAL_TIME_MS, width=width, height=height,
                                 timeout=TIMEOUT_S)
    finally:
        copy.unlink(missing_ok=True)
    found = re.search(r'data-check-book-height="(\d+)"', load.dom)
    return tab, load, int(found.group(1)) if found else None


def page_height(chromium: str, page: Path, workdir: Path) -> int | None:
    """Height in pixels of ``page`` rendered 1280 pixels wide, or None if it could not be measured."""
    with open_browser(chromium, workdir) as browser:
        return render_measured(browser, page)[2]


def check_page(browser: cdp.Browser, build: Path, page: Path, shots: Path | None, height: int = 0,
               ids: dict | None = None, links: bool = True) -> PageReport:
    """All checks of one page; a screenshot into ``shots`` (``height`` 0: the whole page). ``links``
    False leaves out the checks of :func:`check_source` that need the whole build (links, downloads,
    reading)."""
    report = PageReport(str(page.relative_to(build)))
    html = page.read_text(encoding="utf-8")
    expect = check_source(page, html, report, build=build if links else None, ids=ids)
    weight = page_weight(page, html)
    report.notes.append(f"weight {weight / 1e6:.2f} MB")
    if weight > MAX_PAGE_MB * 1e6:
        report.fail(f"the page weighs {weight / 1e6:.1f} MB (limit {MAX_PAGE_MB:g} MB): "
                    "use fewer or smaller frames")
    # one load checks the page, moves its players' sliders, measures it, and is photographed
    tab, load, measured = render_measured(browser, page)
    try:
        if "<html" not in load.dom:
            report.fail(f"Chromium returned no DOM: {load.dom[:200]!r}")
            return report
        check_dom(page, load.dom, expect, report)
        report.counts = check_players(load.dom, expect, report)
        report.counts.update(check_views3d(load.dom, expect, report))
        check_layout(load.dom, report)
        check_glyphs(load.dom, report)
        for url in load.requests:
            report.fail(f"the page requested a non-file URL: {url}")
        for msg in console_failures(load.console):
            report.fail(f"console: {msg}")
        if shots is not None:
            shots.mkdir(parents=True, exist_ok=True)
            png = shots / (report.page.replace("/", "__").removesuffix(".html") + ".png")
            png.unlink(missing_ok=True)
            if height <= 0:
                if measured is None:
                    report.fail("could not measure the page height for the screenshot")
                height = min(measured or 2000, MAX_SHOT_HEIGHT)
            # Painting a tall page takes time (about a minute for 20000 pixels on a loaded machine).
            browser.screenshot(tab, png, 1280, height, timeout=TIMEOUT_S + height / 100)
            report.notes.append(f"screenshot 1280x{height}: {png}")
    finally:
        browser.close_tab(tab)
    return report


class PageChecker:
    """One Chromium that checks page after page (:func:`check_page`); a Chromium that failed is replaced by
    a new one for the next page. ``make test`` keeps one per test worker."""

    def __init__(self, chromium: str, workdir: Path):
        self.chromium, self.workdir, self.browser = chromium, workdir, None

    def check(self, build: Path, page: Path, shots: Path | None, height: int = 0, ids: dict | None = None,
              links: bool = True) -> PageReport:
        if self.browser is None:
            self.browser = open_browser(self.chromium, self.workdir)
        try:
            return check_page(self.browser, build, page, shots, height, ids, links=links)
        except (cdp.CdpError, OSError) as exc:
            self.close()
            return PageReport(str(page.relative_to(build)), failures=[f"Chromium: {exc}"])

    def close(self) -> None:
        if self.browser is not None:
            self.browser.close()
            self.browser = None


def report_text(report: PageReport) -> str:
    """A page's report as printed: ``ok  page  (notes)`` or ``FAIL page`` and one line per failure."""
    status = "FAIL" if report.failures else "ok  "
    lines = [f"{status} {report.page}" + (f"  ({'; '.join(report.notes)})" if report.notes else "")]
    return "\n".join(lines + [f"       - {msg}" for msg in report.failures])


def wants_screenshot(rel: str) -> bool:
    """Every page of the book: chapters, front pages and reference pages (not genindex/search)."""
    return rel not in GENERATED_PAGES


def page_path(build: Path, page: Path) -> Path:
    """A page given as a path (absolute or from the current folder) or relative to the build folder."""
    if page.is_absolute() or page.is_file():
        return page.resolve()
    return (build / page).resolve()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build", type=Path, help="the built HTML folder, e.g. book/_build/html")
    parser.add_argument("pages", nargs="*", type=Path,
                        help="pages to check (default: all), as paths or relative to the build folder, "
                             "e.g. chapters/ch01_kinematics.html")
    parser.add_argument("--screenshots", type=Path, default=REPO / "artifacts" / "screenshots",
                        help="folder for the screenshots (one PNG per page)")
    parser.add_argument("--no-screenshots", action="store_true")
    parser.add_argument("--window-height", type=int, default=0,
                        help="screenshot height in pixels (default 0: measure each page, whole page)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="pages checked at the same time (default 1: Chromium itself runs several "
                             "processes, and under `make test` the other test worker shares the cores)")
    parser.add_argument("--chromium", help="Chromium executable (default: $CHROMIUM or chromium on PATH)")
    parser.add_argument("--no-links", action="store_true",
                        help="leave out the links, download buttons and reading checks (tests/test_book.py "
                             "runs them for every page at once, then this per page in the browser)")
    args = parser.parse_args(argv)

    build = args.build.resolve()
    if not (build / "index.html").is_file():
        print(f"check_book: {build} has no index.html: build the book first (make book)", file=sys.stderr)
        return 2
    chromium = find_chromium(args.chromium)
    if chromium is None:
        print("check_book: Chromium not found (tried $CHROMIUM, " + ", ".join(CHROMIUM_CANDIDATES)
              + "); install it with `bash tools/ensure_chromium.sh` (Debian package chromium)",
              file=sys.stderr)
        return 2
    pages = [page_path(build, p) for p in args.pages] if args.pages else list_pages(build)
    missing = [str(p) for p in pages if not p.is_file()]
    if missing:
        print(f"check_book: no such page(s): {', '.join(missing)}", file=sys.stderr)
        return 2

    start = time.perf_counter()
    reports = []
    ids: dict = {}  # anchors of link targets, shared by all pages
    with tempfile.TemporaryDirectory(prefix="check_book-") as tmp:
        # One Chromium per worker thread, reused page after page
        local, checkers = threading.local(), []

        def one(page: Path) -> PageReport:
            rel = str(page.relative_to(build))
            shots = None if args.no_screenshots or not wants_screenshot(rel) else args.screenshots
            if getattr(local, "checker", None) is None:
                local.checker = PageChecker(chromium, Path(tmp))
                checkers.append(local.checker)
            return local.checker.check(build, page, shots, args.window_height, ids, links=not args.no_links)

        # --jobs pages at a time, reported in page order
        try:
            with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                reports = list(pool.map(one, pages))
        finally:
            for checker in checkers:
                checker.close()
    for r in reports:
        print(report_text(r))
    n_bad = sum(bool(r.failures) for r in reports)
    totals = {k: sum(r.counts.get(k, 0) for r in reports)
              for k in ("widgets", "widgets_ok", "animations", "animations_ok", "views3d", "views3d_ok")}
    print(f"check_book: {totals['widgets_ok']} of {totals['widgets']} widgets respond, "
          f"{totals['animations_ok']} of {totals['animations']} animations play")
    if totals["views3d"]:
        print(f"check_book: {totals['views3d_ok']} of {totals['views3d']} 3-D players play")
    print(f"check_book: {len(reports) - n_bad} passed, {n_bad} failed "
          f"({len(reports)} pages, {time.perf_counter() - start:.1f} s, {Path(chromium).name})")
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
