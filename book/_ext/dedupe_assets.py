"""Sphinx extension: drop duplicate ``<script>`` entries from every HTML page.

Why: with Sphinx 7.4, an inline script added by an extension after the builder started (sphinx-thebe's
``const THEBE_JS_URL = ...``, sphinx-togglebutton's selector) is registered twice, once with filename
``None`` and once with ``''``; Sphinx's own de-duplication compares filenames and keeps both. The page
then declares the same ``const`` twice and the browser logs "Identifier 'THEBE_JS_URL' has already been
declared". This hook keeps the first of any scripts equal up to that ``None``/``''`` difference.
"""

from typing import Any


def _dedupe_scripts(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set = set()
    unique = []
    for js in scripts:
        key = (js.filename or "", tuple(sorted((k, str(v)) for k, v in js.attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(js)
    scripts[:] = unique  # in place: the builder restores its own list after the page is written


def setup(app: Any) -> dict:
    app.connect("html-page-context", _dedupe_scripts, priority=900)  # after myst-nb adds widget scripts
    return {"parallel_read_safe": True, "parallel_write_safe": True}
