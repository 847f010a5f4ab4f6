#!/usr/bin/env bash
# Vendor the JavaScript that built pages load, so the book works with the network off.
#
#   bash tools/vendor_js.sh DEST        (the Makefile passes DEST=book/_assets/vendor)
#
# Fetches, with `npm pack` from the npm registry (no global install, no node_modules):
#   mathjax@3                         -> DEST/mathjax/  (tex-chtml.js, its CHTML fonts, a few TeX extensions)
#   requirejs@2                       -> DEST/require.js
#   @jupyter-widgets/html-manager@1   -> DEST/html-manager/ (embed-amd.js + the icon fonts it references)
#   three@0.170                       -> DEST/three/ (three-orbit.js: the core and OrbitControls, + LICENSE),
#                                        for mbdlib.view3d's orbitable 3-D players
# html-manager 1.0.x is the line that ipywidgets 8.1.x embeds (ipywidgets/_version.py:
# __html_manager_version__ = '^1.0.1'); its embed-amd.js bundles @jupyter-widgets/base, controls and output,
# so the standard widgets render without fetching anything else.
#
# DEST is NOT book/_static: jupyter-book injects every .js found in _static into every page.
# The book's _config.yml adds DEST's parent (book/_assets) to html_static_path instead.
#
# Idempotent: if DEST/.stamp exists and records the same versions, nothing is done. Quiet on success;
# any failure stops the script with a message and a non-zero exit status.
set -euo pipefail

MATHJAX=mathjax@3.2.2
REQUIREJS=requirejs@2.3.8
HTML_MANAGER=@jupyter-widgets/html-manager@1.0.15
# 0.170 is the last line with ONE self-contained minified module build (0.171+ splits it into three.core
# and three.module; 0.18x later dropped the minified files). WebGL 2 only, which SwiftShader provides.
THREE=three@0.170.0

# TeX extensions copied besides the ones bundled in tex-chtml.js (base, ams, newcommand, noundefined,
# require, autoload, configmacros). These are the ones MathJax *autoloads* when a page uses one of their
# macros (\boldsymbol, \cancel, \color, \bbox, \mathtools's \coloneqq, \begin{cases}..., \text{} macros);
# if a chapter uses another one, tools/check_book.py reports the missing file it tried to load.
TEX_EXTENSIONS="boldsymbol cancel color bbox braket mathtools cases enclose extpfeil textmacros upgreek gensymb"

die() { echo "vendor_js.sh: error: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || die "usage: bash tools/vendor_js.sh DEST   (e.g. book/_assets/vendor)"
DEST=$1
case "$(basename "$(dirname "$DEST")")" in
  _static) die "DEST must not be inside a _static folder (every .js there is injected into every page)";;
esac
command -v npm >/dev/null || die "npm not found: install Node.js/npm (Debian: apt-get install npm)"

VERSIONS="$MATHJAX $REQUIREJS $HTML_MANAGER $TEX_EXTENSIONS compat-1 $THREE classic-1 assets-2"
if [[ -f "$DEST/.stamp" && "$(cat "$DEST/.stamp")" == "$VERSIONS" ]]; then
  exit 0  # already vendored with these versions
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

( cd "$WORK" && npm pack --silent --pack-destination "$WORK" "$MATHJAX" "$REQUIREJS" "$HTML_MANAGER" "$THREE" \
    >"$WORK/pack.log" 2>&1 ) || { cat "$WORK/pack.log" >&2; die "npm pack failed (is the npm registry reachable?)"; }

unpack() {  # unpack TARBALL_GLOB DIR
  local tgz
  tgz=$(compgen -G "$WORK/$1" | head -n1) || die "npm pack produced no $1"
  mkdir -p "$WORK/$2"
  tar -xzf "$tgz" -C "$WORK/$2" --strip-components=1 || die "cannot unpack $tgz"
}
unpack "mathjax-*.tgz" mathjax
unpack "requirejs-*.tgz" requirejs
unpack "jupyter-widgets-html-manager-*.tgz" html-manager
unpack "three-*.tgz" three

# Build the new tree next to DEST, then swap it in, so an interrupted run never leaves half a folder.
NEW="$WORK/vendor"
mkdir -p "$NEW/mathjax/output/chtml/fonts" "$NEW/mathjax/input/tex/extensions" "$NEW/html-manager"

MJ="$WORK/mathjax/es5"
cp "$MJ/tex-chtml.js" "$NEW/mathjax/"
cp -r "$MJ/output/chtml/fonts/woff-v2" "$NEW/mathjax/output/chtml/fonts/"
for ext in $TEX_EXTENSIONS; do
  cp "$MJ/input/tex/extensions/$ext.js" "$NEW/mathjax/input/tex/extensions/" || die "no TeX extension $ext"
done
cp "$WORK/mathjax/LICENSE" "$NEW/mathjax/LICENSE"

cp "$WORK/requirejs/require.js" "$NEW/require.js"

HM="$WORK/html-manager/dist"
cp "$HM/embed-amd.js" "$NEW/html-manager/"
# embed-amd.js sets webpack's public path to its own folder and references its fonts (Font Awesome,
# used by widget icons) by hashed name: copy exactly the ones it names (browsers pick woff2/woff).
for font in $(grep -oE '[0-9a-f]{20}\.(woff2|woff)' "$HM/embed-amd.js" | sort -u); do
  cp "$HM/$font" "$NEW/html-manager/" || die "embed-amd.js names $font but the package lacks it"
done

# ipywidgets' @jupyter-widgets/base typesets widget labels with the MathJax 2 API (MathJax.Hub.Queue);
# the book loads MathJax 3, which has no Hub. This shim (loaded before require.js on widget pages, see
# book/_config.yml nb_ipywidgets_js) maps that one call onto MathJax 3's typesetPromise.
cat >"$NEW/mathjax2-compat.js" <<'JS'
/* Written by tools/vendor_js.sh: MathJax 2 "Hub.Queue(['Typeset', Hub, el])" -> MathJax 3 typesetPromise. */
(function () {
  function install() {
    var mj = window.MathJax;
    if (!mj || mj.Hub || !mj.startup) { return; }
    mj.Hub = {
      Queue: function (cmd) {
        var el = cmd && cmd[2];
        return mj.startup.promise.then(function () { return mj.typesetPromise(el ? [el] : undefined); });
      }
    };
  }
  install();  // MathJax may already be loaded
  document.addEventListener("DOMContentLoaded", install);  // MathJax is loaded with "defer"
})();
JS

# embed-amd.js loads its icon fonts (Font Awesome: a widget's play and pause buttons) from the folder of
# the AMD module "@jupyter-widgets/html-manager/dist/embed-amd" as require.js resolves it: next to the PAGE
# by default, where they are not. This shim (loaded after require.js and before embed-amd.js, see
# book/_config.yml nb_ipywidgets_js) maps that module folder onto html-manager/ beside itself.
cat >"$NEW/widgets-assets.js" <<'JS'
/* Written by tools/vendor_js.sh: embed-amd.js's module folder (where its icon fonts are) is html-manager/. */
(function () {
  var here = document.currentScript && document.currentScript.src;
  if (!here || !window.require || !window.require.config) { return; }
  var folder = new URL("html-manager", here).href;
  window.require.config({paths: {"@jupyter-widgets/html-manager/dist": folder}});
  window.__jupyter_widgets_assets_path__ = folder + "/";
})();
JS

# three.js ships ES modules only, and a page opened from disk (file://) may not load a module script
# (Chromium: "blocked by CORS policy", origin 'null'); its old UMD build registers itself with require.js
# (loaded on widget pages) instead of defining a global. So the module build and OrbitControls are made into
# ONE classic script: each file's body is wrapped in a function, `import {...} from 'three'` becomes a
# destructuring of the namespace and the final `export {...}` assignments onto it: globalThis.mbdTHREE
# (THREE.WebGLRenderer -> mbdTHREE.WebGLRenderer, mbdTHREE.OrbitControls). Nothing else is changed.
mkdir -p "$NEW/three"
cat >"$WORK/classic.js" <<'JS'
"use strict";
const fs = require("fs");
const [out, header, ...inputs] = process.argv.slice(2);
const NS = "globalThis.mbdTHREE";
function names(list) {  // "a, b as c" -> [["a", "a"], ["b", "c"]]
  return list.split(",").map((s) => s.trim()).filter(Boolean).map((s) => {
    const m = s.match(/^([\w$]+)(?:\s+as\s+([\w$]+))?$/);
    if (!m) { throw new Error("cannot read the name list item " + JSON.stringify(s)); }
    return [m[1], m[2] || m[1]];
  });
}
let code = header + "\n" + NS + " = " + NS + " || {};\n";
for (const file of inputs) {
  let src = fs.readFileSync(file, "utf8"), exports = 0;
  src = src.replace(/^import\s*\{([^}]*)\}\s*from\s*['"]three['"];?/gm, (_, list) =>
    "const { " + names(list).map(([a, b]) => (a === b ? a : a + ": " + b)).join(", ") + " } = __mbd_ns__;");
  src = src.replace(/export\s*\{([^}]*)\}\s*;?\s*$/, (_, list) => {
    exports += 1;
    return "Object.assign(__mbd_ns__, { " + names(list).map(([a, b]) => b + ": " + a).join(", ") + " });\n";
  });
  if (exports !== 1) { throw new Error(file + " does not end with one export { ... } statement"); }
  code += "(function (__mbd_ns__) {\n\"use strict\";\n" + src + "\n})(" + NS + ");\n";
}
new Function(code);  // a leftover import/export (module-only syntax) is a syntax error in a script
fs.writeFileSync(out, code);
JS
TH="$WORK/three"
THREE_HEADER="/* three.js r$(node -p "require('$TH/package.json').version.split('.')[1]") (MIT License, see LICENSE): \
build/three.module.min.js and examples/jsm/controls/OrbitControls.js made one classic script by tools/vendor_js.sh. */"
node "$WORK/classic.js" "$NEW/three/three-orbit.js" "$THREE_HEADER" "$TH/build/three.module.min.js" \
  "$TH/examples/jsm/controls/OrbitControls.js" || die "could not make three.js a classic script"
cp "$TH/LICENSE" "$NEW/three/LICENSE"
node -e 'require(process.argv[1]); const T = globalThis.mbdTHREE;
  if (!T || typeof T.WebGLRenderer !== "function" || typeof T.OrbitControls !== "function") { process.exit(1); }' \
  "$NEW/three/three-orbit.js" || die "three-orbit.js does not define mbdTHREE.WebGLRenderer and .OrbitControls"

# Sanity checks: the files pages load must be there and non-empty.
for f in mathjax/tex-chtml.js mathjax/output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff require.js \
         html-manager/embed-amd.js mathjax2-compat.js widgets-assets.js three/three-orbit.js three/LICENSE; do
  [[ -s "$NEW/$f" ]] || die "vendored file $f is missing or empty"
done

echo "$VERSIONS" >"$NEW/.stamp"
mkdir -p "$(dirname "$DEST")"
rm -rf "$DEST"
mv "$NEW" "$DEST"
