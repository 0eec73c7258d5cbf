"""The Colab bootstrap: the first code cell of every notebook, generated from ``_config.yml``.

The repository URL and the pinned git ref live in one place, ``_config.yml``
(``repository.url`` and ``rnnlab.pinned_ref``). :func:`bootstrap_source` renders the cell from
them and ``python -m rnnlab.course.colab sync`` writes it into every notebook under ``chapters/``;
``tests/test_colab.py`` fails if any notebook's first cell differs.

On Colab the cell clones the course at the pinned ref (the lab chapters read the committed
reference results in ``data/results/``), installs ``rnnlab`` from that clone with
``pip install --no-deps -e`` (:data:`PIP_INSTALL`: nothing installed is changed, Colab's CUDA
build of torch above all), puts the clone's ``lib/`` on ``sys.path`` (so no restart is needed) and
points :func:`rnnlab.core.paths.repo_root` at the clone. Anywhere else (locally, in CI, in the book
build) it does nothing.

**Recovery.** The clone and checkout happen in ``/content/course.partial``, which replaces
``/content/course`` only when both succeeded; a marker file (``.rnnlab-bootstrap``, holding the
repository and ref) is written only after the install succeeded. A failed step removes what it
made and raises one line naming the step, the repository and the ref, and what to do; rerunning
the cell starts again, replacing a copy without the marker (or with another ref) and keeping its
``runs/``. The pinned ref is a release tag made by ``make release VERSION=x.y.z``
(``scripts/release.py``); ``tests/test_release.py`` fails while it does not resolve.
``tests/test_colab_notebooks.py`` runs every notebook, this cell first, in a simulated Colab
runtime: real git against a local bare repository released from the working tree, and the real
``pip install`` into a throwaway environment.

**GPU runtime for training notebooks.** A notebook whose metadata holds
``"rnnlab": {"trains": true}`` trains models; ``sync`` then also sets the two notebook-level
metadata keys Colab reads to open a new session on a GPU runtime: ``"accelerator": "GPU"`` and
``"colab": {"gpuType": "T4"}`` (T4 is the free tier's GPU). For every other notebook ``sync``
removes those two keys, so flipping the flag and re-running ``sync`` is all it takes. Set the flag
by editing the notebook's metadata (Jupyter: *Edit > Notebook metadata*) or with nbformat::

    nb.metadata.setdefault("rnnlab", {})["trains"] = True

**Launch buttons.** sphinx-book-theme builds each page's Colab button as
``{launch_buttons.colab_url}/github/{org}/{repo}/blob/{repository.branch}/{path}`` with
``org/repo`` the last two parts of ``repository.url`` and ``path`` the notebook's path inside the
repository (``repository.path_to_book`` + page + ``.ipynb``); :func:`launch_url` computes the
same string so the tests can check it without building the book.

**Forking the course.** To point the buttons and the bootstrap at a fork:

1. In ``_config.yml`` set ``repository.url`` to the fork (a ``https://github.com/ORG/REPO`` URL;
   Colab opens notebooks from GitHub only), ``repository.branch`` to the branch the website is
   built from, and ``rnnlab.pinned_ref`` to a tag or commit that exists in the fork.
2. Run ``python -m rnnlab.course.colab sync`` and ``make student``, and commit the changed notebooks
   (or run ``make release VERSION=x.y.z``, which does both, commits and tags).
3. ``pytest tests/test_colab.py`` checks that every notebook carries the new pins and that every
   launch URL is well formed.

The button opens the notebook from ``repository.branch`` while the bootstrap installs the
library at ``rnnlab.pinned_ref``: move the pin forward (tag a release, sync) whenever the
notebooks on that branch start using library changes made after the pinned ref.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BOOTSTRAP_TAG = "bootstrap"
#: Notebook metadata ``{"rnnlab": {"trains": true}}`` marks a notebook that trains models.
TRAINS_KEY = "trains"
#: What Colab reads from a notebook's top-level metadata to start a GPU runtime.
GPU_ACCELERATOR = "GPU"
GPU_TYPE = "T4"

#: Where the bootstrap puts the course on Colab.
COURSE_DIR = "/content/course"
#: How the bootstrap installs rnnlab from the clone. ``--no-deps``: nothing already installed
#: changes, above all Colab's CUDA build of torch (and numpy, which torch was built against);
#: every dependency of rnnlab is preinstalled on Colab. ``-e``: the clone is the package.
PIP_INSTALL = '[sys.executable, "-m", "pip", "install", "-q", "--no-deps", "-e"]'

_TEMPLATE = """\
# Colab bootstrap (pinned). Outside Google Colab this cell does nothing.
# On Colab it clones the course at RNNLAB_REF into RNNLAB_COURSE and installs rnnlab from it,
# keeping Colab's torch. A failed step leaves nothing half-made and says what to do: do it, then
# rerun this cell.
import os
import subprocess
import sys

RNNLAB_REPO = "{url}"
RNNLAB_REF = "{ref}"  # pinned: _config.yml, set by `make release`
RNNLAB_COURSE = "{course}"


def _rnnlab_bootstrap(repo, ref, course):
    import shutil

    done = os.path.join(course, ".rnnlab-bootstrap")
    if os.path.isfile(done) and open(done).read() == f"{{repo}} {{ref}}":
        return  # already cloned and installed at this ref
    fresh, old = course + ".partial", course + ".old"
    hints = {{
        "clone": "check the repository address and the runtime's internet connection",
        "check out": "set RNNLAB_REF to a tag or commit of the repository (`make release` tags)",
        "install": "read pip's message above; restart the runtime if it is stuck",
    }}

    def run(step, cmd):
        try:
            subprocess.run(cmd, check=True, capture_output=True, text=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            said = (getattr(exc, "stderr", None) or str(exc)).strip().splitlines() or ["?"]
            for path in (fresh, old, course) if step == "install" else (fresh, old):
                shutil.rmtree(path, ignore_errors=True)
            raise RuntimeError(
                f"Colab bootstrap: could not {{step}} {{repo}} at {{ref}} ({{said[-1]}}); nothing "
                f"was left behind. To do: {{hints[step]}}, then rerun this cell."
            ) from None

    for path in (fresh, old):
        shutil.rmtree(path, ignore_errors=True)
    run("clone", ["git", "clone", "-q", repo, fresh])
    run("check out", ["git", "-C", fresh, "checkout", "-q", ref])
    if os.path.isdir(course):  # an earlier, unfinished or other-ref copy: replace it
        os.rename(course, old)
        if os.path.isdir(os.path.join(old, "runs")):  # keep the student's own runs
            shutil.move(os.path.join(old, "runs"), os.path.join(fresh, "runs"))
    os.rename(fresh, course)
    shutil.rmtree(old, ignore_errors=True)
    run("install", [*{pip}, course])
    with open(done, "w") as out:
        out.write(f"{{repo}} {{ref}}")
    print(f"Colab bootstrap: rnnlab from {{repo}} at {{ref}} in {{course}}")


if "google.colab" in sys.modules:
    _rnnlab_bootstrap(RNNLAB_REPO, RNNLAB_REF, RNNLAB_COURSE)
    os.environ["RNNLAB_ROOT"] = RNNLAB_COURSE
    if os.path.join(RNNLAB_COURSE, "lib") not in sys.path:  # import it now, without a restart
        sys.path.insert(0, os.path.join(RNNLAB_COURSE, "lib"))"""


def read_pins(config_path: str | Path) -> tuple[str, str]:
    """Return ``(repository_url, pinned_ref)`` from the book's ``_config.yml``."""
    import yaml

    config = yaml.safe_load(Path(config_path).read_text())
    try:
        url = str(config["repository"]["url"])
        ref = str(config["rnnlab"]["pinned_ref"])
    except KeyError as exc:
        raise ValueError(
            f"_config.yml must define repository.url and rnnlab.pinned_ref; missing {exc}"
        ) from None
    return url, ref


def bootstrap_source(
    url: str, ref: str, *, course: str = COURSE_DIR, pip: str = PIP_INSTALL
) -> str:
    """The exact source of the bootstrap cell for repository ``url`` at git ref ``ref``.

    ``course`` (where the clone goes) and ``pip`` (a Python list expression, the install command
    without its last argument, the clone's path) are parameters for the tests only: every
    notebook carries the defaults, :data:`COURSE_DIR` and :data:`PIP_INSTALL`.
    """
    return _TEMPLATE.format(url=url, ref=ref, course=course, pip=pip)


def bootstrap_cell(url: str, ref: str) -> dict:
    """A notebook code cell (nbformat 4 dict) holding the bootstrap, hidden on the website."""
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": "colab-bootstrap",
        "metadata": {"tags": [BOOTSTRAP_TAG, "remove-cell"]},
        "outputs": [],
        "source": bootstrap_source(url, ref).splitlines(keepends=True),
    }


def trains(metadata: dict) -> bool:
    """Whether notebook ``metadata`` carries ``"rnnlab": {"trains": true}``."""
    flag = metadata.get("rnnlab", {}).get(TRAINS_KEY, False)
    if not isinstance(flag, bool):
        raise ValueError(f"rnnlab.trains must be true or false, got {flag!r}")
    return flag


def apply_gpu_metadata(metadata: dict) -> dict:
    """Return a copy of notebook ``metadata`` asking Colab for a GPU exactly when it trains.

    Training notebooks get ``"accelerator": "GPU"`` and ``"colab": {"gpuType": "T4"}`` (other keys
    under ``"colab"`` are kept); any other notebook loses both keys (and an emptied ``"colab"``).
    """
    out = json.loads(json.dumps(metadata))
    colab = dict(out.get("colab", {}))
    if trains(out):
        out["accelerator"] = GPU_ACCELERATOR
        colab["gpuType"] = GPU_TYPE
        out["colab"] = colab
    else:
        out.pop("accelerator", None)
        colab.pop("gpuType", None)
        if colab:
            out["colab"] = colab
        else:
            out.pop("colab", None)
    return out


def sync_notebook(path: Path, url: str, ref: str) -> bool:
    """Make the first cell of notebook ``path`` the bootstrap and set its Colab GPU metadata.

    Returns True if the file changed.
    """
    text = path.read_text()
    nb = json.loads(text)
    cell = bootstrap_cell(url, ref)
    cells = nb["cells"]
    if cells and BOOTSTRAP_TAG in cells[0].get("metadata", {}).get("tags", []):
        cells[0] = cell
    else:
        cells.insert(0, cell)
    nb["metadata"] = apply_gpu_metadata(nb.get("metadata", {}))
    new_text = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    if new_text == text:
        return False
    path.write_text(new_text)
    return True


def launch_url(config_path: str | Path | dict, notebook_path: str) -> str:
    """The Colab launch URL sphinx-book-theme puts on the page of ``notebook_path``.

    ``config_path`` is a book's ``_config.yml`` (or its contents, as a dict); ``notebook_path`` is
    relative to the book's root, e.g. ``"chapters/01_counting.ipynb"``.
    Mirrors ``sphinx_book_theme.header_buttons.launch.add_launch_buttons``:
    ``{colab_url}/github/{org}/{repo}/blob/{branch}/{path_to_book}/{notebook_path}``.
    """
    import yaml

    if isinstance(config_path, dict):
        config = config_path
    else:
        config = yaml.safe_load(Path(config_path).read_text())
    colab_url = str(config.get("launch_buttons", {}).get("colab_url", "")).strip("/")
    repository = config.get("repository", {})
    repo_url = str(repository.get("url", ""))
    if not colab_url or not repo_url:
        raise ValueError(
            "_config.yml must set launch_buttons.colab_url and repository.url, "
            f"got colab_url={colab_url!r}, url={repo_url!r}"
        )
    branch = str(repository.get("branch", "")) or "master"  # jupyter-book's default
    _provider, org, repo = repo_url.strip("/").rsplit("/", 2)
    book = str(repository.get("path_to_book", "")).strip("/")
    path = f"{book}/{notebook_path}" if book else notebook_path
    return f"{colab_url}/github/{org}/{repo}/blob/{branch}/{path}"


def main(argv: list[str] | None = None) -> int:
    """``python -m rnnlab.course.colab sync [ROOT]``: write the pinned bootstrap everywhere."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "sync":
        print("usage: python -m rnnlab.course.colab sync [ROOT]", file=sys.stderr)
        return 2
    root = Path(args[1]) if len(args) > 1 else Path(".")
    url, ref = read_pins(root / "_config.yml")
    for nb in sorted((root / "chapters").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in nb.parts:
            continue
        if sync_notebook(nb, url, ref):
            print(f"updated {nb}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
