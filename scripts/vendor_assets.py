"""Vendor the website's JavaScript so the built book works with no network at all.

The course website needs three pieces of third-party JavaScript that Sphinx, myst-nb and
sphinx-book-theme would otherwise load from public CDNs:

* **MathJax 3** (``mathjax`` on npm): typesets every formula. Sphinx loads it from
  ``mathjax_path`` (set in ``_config.yml``); a relative path is resolved against ``_static/``.
* **RequireJS** (``requirejs``) and the **Jupyter widgets HTML manager**
  (``@jupyter-widgets/html-manager``, its ``embed-amd.js`` bundle): render the saved state of
  ipywidgets on notebook pages. myst-nb adds them to pages that hold widget state, from the
  ``nb_ipywidgets_js`` mapping in ``_config.yml``.

The exact versions are pinned by ``package.json`` and ``package-lock.json`` at the repository
root. This script

1. runs ``npm ci`` (install exactly what the lock file says, no install scripts) into
   ``node_modules/`` unless the lock file is unchanged since the last install;
2. copies the files the site needs into ``_vendored/`` (the folder ``_config.yml`` lists in
   ``html_static_path``; Sphinx copies its contents to ``_build/html/_static/``).

``axe-core`` (also pinned) stays in ``node_modules/``: only the browser tests inject it, it is
not part of the site. Neither folder is committed (see ``.gitignore``).

Usage::

    python scripts/vendor_assets.py          # install if needed, then vendor
    python scripts/vendor_assets.py --check  # only verify that _vendored/ is complete

Why not a folder named ``_static``: jupyter-book adds *every* ``.js``/``.css`` file under a
top-level ``_static/`` to every page, which would load all of MathJax's components everywhere.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "node_modules"
VENDOR_DIR = ROOT / "_vendored"
LOCK_FILE = ROOT / "package-lock.json"
INSTALL_STAMP = NODE_MODULES / ".rnnlab-install-stamp"
VENDOR_STAMP = VENDOR_DIR / ".rnnlab-vendor-stamp"

# MathJax: the combined TeX->CommonHTML component plus what it may load on demand (TeX
# extensions through `autoload`, the menu's accessibility tools and the speech rule engine, the
# CHTML web fonts). The other combined bundles (SVG output, MathML input, "full") are not needed.
MATHJAX_SKIP = (
    "node-main.js",
    "mml-chtml.js",
    "mml-svg.js",
    "tex-chtml-full.js",
    "tex-chtml-full-speech.js",
    "tex-mml-chtml.js",
    "tex-mml-svg.js",
    "tex-svg.js",
    "tex-svg-full.js",
    "output/svg",
    "output/svg.js",
)

# Loaded (from `nb_ipywidgets_js`) before RequireJS and embed-amd.js on pages with widgets.
WIDGETS_OFFLINE_JS = """\
// Written by scripts/vendor_assets.py: lets the vendored Jupyter widgets bundle work offline.
(function () {
  "use strict";
  // 1. embed-amd.js loads its Font Awesome files from the folder of its AMD module
  //    "@jupyter-widgets/html-manager/dist/libembed-amd", which RequireJS would resolve relative
  //    to the page (a folder that does not exist). Map it to the vendored copy: a global
  //    `require` object defined before require.js loads is RequireJS's configuration.
  var here = document.currentScript && document.currentScript.src;
  if (here && window.require === undefined) {
    var dist = new URL("jupyter-widgets", here).href;
    window.require = { paths: { "@jupyter-widgets/html-manager/dist": dist } };
    window.__jupyter_widgets_assets_path__ = dist + "/";
  }
  // 2. The widgets typeset their labels with the MathJax 2 call
  //    MathJax.Hub.Queue(["Typeset", MathJax.Hub, element]); the site uses MathJax 3, which has
  //    no Hub. Bridge that call to MathJax 3's typesetPromise once MathJax has started.
  if (window.MathJax === undefined) {
    return; // a page without maths: the widgets skip typesetting when MathJax is undefined
  }
  function installHub(mathjax) {
    if (mathjax.Hub) {
      return;
    }
    mathjax.Hub = {
      Queue: function () {
        var elements = [];
        for (var i = 0; i < arguments.length; i++) {
          var job = arguments[i];
          if (Array.isArray(job) && job[0] === "Typeset" && job[2]) {
            elements.push(job[2]);
          }
        }
        var ready = mathjax.startup && mathjax.startup.promise;
        return Promise.resolve(ready).then(function () {
          return elements.length ? mathjax.typesetPromise(elements) : undefined;
        });
      },
    };
  }
  if (window.MathJax.version) {
    installHub(window.MathJax); // MathJax 3 already loaded
    return;
  }
  // MathJax 3 not loaded yet: window.MathJax is its configuration; hook its startup.
  var startup = (window.MathJax.startup = window.MathJax.startup || {});
  var previousReady = startup.ready;
  startup.ready = function () {
    if (previousReady) {
      previousReady();
    } else {
      window.MathJax.startup.defaultReady();
    }
    installHub(window.MathJax);
  };
})();
"""

# Files the site links to, relative to _vendored/ (checked after copying and by --check).
REQUIRED = (
    "widgets-offline.js",
    "mathjax/tex-chtml.js",
    "mathjax/output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff",
    "mathjax/input/tex/extensions/boldsymbol.js",
    "requirejs/require.js",
    "jupyter-widgets/embed-amd.js",
)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def npm_install() -> None:
    """Run ``npm ci`` unless ``node_modules/`` already matches ``package-lock.json``."""
    if not LOCK_FILE.is_file():
        raise SystemExit(f"vendor_assets: {LOCK_FILE} is missing; it pins the site's JavaScript")
    digest = _sha256(LOCK_FILE)
    if INSTALL_STAMP.is_file() and INSTALL_STAMP.read_text().strip() == digest:
        return
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(
            "vendor_assets: `npm` was not found. Install Node.js (with npm) to build the website; "
            "it vendors MathJax and the Jupyter widgets JavaScript from the npm registry."
        )
    cmd = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
    print("vendor_assets:", " ".join(cmd[1:]), flush=True)
    subprocess.run(cmd, cwd=ROOT, check=True)
    INSTALL_STAMP.write_text(digest + "\n")


def _package_version(name: str) -> str:
    return json.loads((NODE_MODULES / name / "package.json").read_text())["version"]


def _copytree(src: Path, dst: Path, skip: tuple[str, ...] = ()) -> None:
    def ignore(directory: str, names: list[str]) -> set[str]:
        rel = Path(directory).relative_to(src)
        ignored = set()
        for name in names:
            rel_name = (rel / name).as_posix()
            if rel_name in skip or name.endswith(".map") or name.endswith(".d.ts"):
                ignored.add(name)
        return ignored

    shutil.copytree(src, dst, ignore=ignore)


def vendor() -> None:
    """Copy MathJax, RequireJS and the widget bundle from ``node_modules/`` into ``_vendored/``."""
    mathjax_version = _package_version("mathjax")
    if not mathjax_version.startswith("3."):
        raise SystemExit(f"vendor_assets: the site needs MathJax 3, got {mathjax_version}")
    stamp = json.dumps(
        {"lock": _sha256(LOCK_FILE), "required": REQUIRED, "shim": WIDGETS_OFFLINE_JS},
        sort_keys=True,
    )
    if VENDOR_STAMP.is_file() and VENDOR_STAMP.read_text() == stamp and not missing_files():
        return
    if VENDOR_DIR.exists():
        shutil.rmtree(VENDOR_DIR)
    VENDOR_DIR.mkdir()
    _copytree(NODE_MODULES / "mathjax" / "es5", VENDOR_DIR / "mathjax", skip=MATHJAX_SKIP)
    (VENDOR_DIR / "requirejs").mkdir()
    shutil.copy2(NODE_MODULES / "requirejs" / "require.js", VENDOR_DIR / "requirejs")
    # embed-amd.js finds its Font Awesome files next to itself (webpack public path = script dir).
    _copytree(
        NODE_MODULES / "@jupyter-widgets" / "html-manager" / "dist",
        VENDOR_DIR / "jupyter-widgets",
        skip=("embed.js", "embed.js.LICENSE.txt", "libembed-amd.js"),
    )
    (VENDOR_DIR / "widgets-offline.js").write_text(WIDGETS_OFFLINE_JS)
    for name in ("mathjax", "requirejs", "@jupyter-widgets/html-manager"):
        licence = NODE_MODULES / name / "LICENSE"
        if licence.is_file():
            shutil.copy2(licence, VENDOR_DIR / f"LICENSE.{name.replace('/', '_')}")
    missing = missing_files()
    if missing:
        raise SystemExit(f"vendor_assets: files missing after copying: {missing}")
    VENDOR_STAMP.write_text(stamp)
    print(f"vendor_assets: MathJax {mathjax_version} and Jupyter widgets into {VENDOR_DIR.name}/")


def missing_files() -> list[str]:
    """The entries of :data:`REQUIRED` that are not in ``_vendored/``."""
    return [rel for rel in REQUIRED if not (VENDOR_DIR / rel).is_file()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only verify _vendored/")
    args = parser.parse_args(argv)
    if args.check:
        missing = missing_files()
        if missing:
            print(
                f"vendor_assets: missing {missing}; run scripts/vendor_assets.py", file=sys.stderr
            )
            return 1
        return 0
    npm_install()
    vendor()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
