"""Where the course's files are: the repository root and the committed results."""

from __future__ import annotations

import os
from pathlib import Path


def repo_root() -> Path:
    """The course repository's root folder.

    Order: the ``RNNLAB_ROOT`` environment variable (set by the Colab bootstrap); the nearest
    folder at or above the current directory holding ``_config.yml`` and ``lib/rnnlab``; the
    folder above ``lib/`` when the package is installed in editable mode.
    """
    env = os.environ.get("RNNLAB_ROOT")
    if env:
        return Path(env)
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "_config.yml").is_file() and (folder / "lib" / "rnnlab").is_dir():
            return folder
    package_parent = Path(__file__).resolve().parents[2]
    if (package_parent / "_config.yml").is_file():
        return package_parent
    raise FileNotFoundError(
        "cannot find the course repository: set RNNLAB_ROOT to the folder holding _config.yml"
    )


def results_dir() -> Path:
    """``data/results/``: committed reference results, one JSON Lines file per lab and profile."""
    return repo_root() / "data" / "results"


def runs_dir() -> Path:
    """Where "run it yourself" sweeps write: ``$RNNLAB_RUNS_DIR`` if set, else ``runs/``.

    On Colab, point it at Google Drive so a long sweep survives a disconnect::

        from google.colab import drive; drive.mount("/content/drive")
        os.environ["RNNLAB_RUNS_DIR"] = "/content/drive/MyDrive/rnnlab-runs"

    Rerunning the same cell then resumes: finished runs are read back and skipped.
    """
    env = os.environ.get("RNNLAB_RUNS_DIR")
    return Path(env) if env else repo_root() / "runs"


def shown_path(path: str | Path) -> str:
    """``path`` as printed in a notebook's output: never a machine's absolute build folder.

    Inside :func:`runs_dir` it reads ``$RNNLAB_RUNS_DIR/<name>`` when that variable chose the
    folder (the website build, Google Drive on Colab), else ``runs/<name>``; inside the
    repository it is relative to its root (``data/results/lab-a-cpu.jsonl``); anything else is
    printed as given.
    """
    given = Path(path)
    full = given.resolve()
    try:
        runs = runs_dir().resolve()
        root = repo_root().resolve()
    except FileNotFoundError:  # the package used outside the course repository
        return str(given)
    if full.is_relative_to(runs):
        prefix = "$RNNLAB_RUNS_DIR" if os.environ.get("RNNLAB_RUNS_DIR") else "runs"
        return f"{prefix}/{full.relative_to(runs).as_posix()}"
    if full.is_relative_to(root):
        return full.relative_to(root).as_posix()
    return str(given)
