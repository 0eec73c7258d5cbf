"""Tests for rnnlab.colab: one set of pins, a bootstrap that is inert off Colab, GPU metadata,
and well-formed launch URLs.

The bootstrap is executed in a fresh Python process with an audit hook (PEP 578) that records every
file open, process start and socket call, and with ``subprocess.run`` replaced by a recorder, so we
see exactly what it would do on Colab and that it does nothing anywhere else.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest
import yaml

from rnnlab import colab

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "_config.yml"
NOTEBOOKS = sorted(
    p for p in (ROOT / "chapters").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
)
NB_IDS = [str(p.relative_to(ROOT)) for p in NOTEBOOKS]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# --------------------------------------------------------------------------------------------
# One place for the pins: every notebook starts with exactly the generated bootstrap.


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_notebook_starts_with_the_pinned_bootstrap(path: Path) -> None:
    url, ref = colab.read_pins(CONFIG)
    nb = json.loads(path.read_text())
    assert nb["cells"], f"{_rel(path)} has no cells"
    first = nb["cells"][0]
    expected = colab.bootstrap_cell(url, ref)
    assert first["cell_type"] == "code"
    assert "".join(first["source"]) == colab.bootstrap_source(url, ref), (
        f"{_rel(path)}: bootstrap differs from _config.yml; run `python -m rnnlab.colab sync`"
    )
    assert first["metadata"].get("tags") == expected["metadata"]["tags"]
    tagged = [
        i
        for i, c in enumerate(nb["cells"])
        if colab.BOOTSTRAP_TAG in c.get("metadata", {}).get("tags", [])
    ]
    assert tagged == [0], f"{_rel(path)}: bootstrap-tagged cells at {tagged}, expected only [0]"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_notebook_gpu_metadata_matches_trains_flag(path: Path) -> None:
    meta = json.loads(path.read_text())["metadata"]
    if colab.trains(meta):
        assert meta.get("accelerator") == "GPU"
        assert meta.get("colab", {}).get("gpuType") == "T4"
    else:
        assert "accelerator" not in meta, f"{_rel(path)} asks for a GPU but does not train"
        assert "gpuType" not in meta.get("colab", {})


def test_pins_are_read_from_config() -> None:
    config = yaml.safe_load(CONFIG.read_text())
    url, ref = colab.read_pins(CONFIG)
    assert url == config["repository"]["url"]
    assert ref == config["rnnlab"]["pinned_ref"]
    source = colab.bootstrap_source(url, ref)
    assert f'RNNLAB_REPO = "{url}"' in source
    assert f'RNNLAB_REF = "{ref}"' in source


def test_read_pins_names_the_missing_key(tmp_path: Path) -> None:
    bad = tmp_path / "_config.yml"
    bad.write_text("repository:\n  url: https://github.com/a/b\n")
    with pytest.raises(ValueError, match="pinned_ref"):
        colab.read_pins(bad)


# --------------------------------------------------------------------------------------------
# sync: inserts or replaces the bootstrap, sets GPU metadata, is idempotent.


def _make_root(tmp_path: Path, ref: str = "v9.9.9") -> Path:
    (tmp_path / "chapters" / "labs").mkdir(parents=True)
    (tmp_path / "_config.yml").write_text(
        "repository:\n  url: https://github.com/fork-org/fork-repo\n  branch: main\n"
        f"launch_buttons:\n  colab_url: https://colab.research.google.com\n"
        f"rnnlab:\n  pinned_ref: {ref}\n"
    )
    plain = nbformat.v4.new_notebook()
    plain.cells = [nbformat.v4.new_markdown_cell("# Plain"), nbformat.v4.new_code_cell("1 + 1")]
    plain.metadata["accelerator"] = "GPU"  # stale: this notebook does not train
    plain.metadata["colab"] = {"gpuType": "T4", "provenance": []}
    nbformat.write(plain, tmp_path / "chapters" / "plain.ipynb")
    lab = nbformat.v4.new_notebook()
    lab.cells = [nbformat.v4.new_code_cell("train()")]
    lab.metadata["rnnlab"] = {"trains": True}
    nbformat.write(lab, tmp_path / "chapters" / "labs" / "lab.ipynb")
    return tmp_path


def test_sync_inserts_bootstrap_and_gpu_metadata(tmp_path: Path) -> None:
    root = _make_root(tmp_path)
    assert colab.main(["sync", str(root)]) == 0
    plain = json.loads((root / "chapters" / "plain.ipynb").read_text())
    lab = json.loads((root / "chapters" / "labs" / "lab.ipynb").read_text())
    expected = colab.bootstrap_source("https://github.com/fork-org/fork-repo", "v9.9.9")
    for nb, n_cells in ((plain, 3), (lab, 2)):
        assert "".join(nb["cells"][0]["source"]) == expected
        assert len(nb["cells"]) == n_cells
    assert lab["metadata"]["accelerator"] == "GPU"
    assert lab["metadata"]["colab"] == {"gpuType": "T4"}
    assert "accelerator" not in plain["metadata"]
    assert plain["metadata"]["colab"] == {"provenance": []}  # other Colab keys survive
    nbformat.validate(nbformat.reads(json.dumps(lab), as_version=4))


def test_sync_replaces_a_stale_pin_and_is_idempotent(tmp_path: Path) -> None:
    root = _make_root(tmp_path, ref="v0.0.1")
    colab.main(["sync", str(root)])
    (root / "_config.yml").write_text(
        (root / "_config.yml").read_text().replace("v0.0.1", "v0.0.2")
    )
    url, ref = colab.read_pins(root / "_config.yml")
    paths = sorted((root / "chapters").rglob("*.ipynb"))
    assert [colab.sync_notebook(p, url, ref) for p in paths] == [True, True]
    assert [colab.sync_notebook(p, url, ref) for p in paths] == [False, False]
    for p in paths:
        cells = json.loads(p.read_text())["cells"]
        assert 'RNNLAB_REF = "v0.0.2"' in "".join(cells[0]["source"])
        assert sum("RNNLAB_REF" in "".join(c["source"]) for c in cells) == 1


def test_gpu_metadata_follows_the_flag_both_ways() -> None:
    on = colab.apply_gpu_metadata({"rnnlab": {"trains": True}, "colab": {"name": "x"}})
    assert on["accelerator"] == "GPU" and on["colab"] == {"name": "x", "gpuType": "T4"}
    off = colab.apply_gpu_metadata({**on, "rnnlab": {"trains": False}})
    assert "accelerator" not in off and off["colab"] == {"name": "x"}
    assert colab.apply_gpu_metadata({}) == {}
    with pytest.raises(ValueError, match="rnnlab.trains"):
        colab.apply_gpu_metadata({"rnnlab": {"trains": "yes"}})


# --------------------------------------------------------------------------------------------
# The bootstrap: inert off Colab, and on Colab a pinned clone + install that keeps Colab's torch.

_HARNESS = textwrap.dedent(
    """
    import json, os, subprocess, sys, types

    source = sys.stdin.read()
    fake_colab = sys.argv[1] == "colab"
    clone_exists = sys.argv[2] == "exists"
    events, runs = [], []
    watching = False
    WATCH = ("open", "subprocess.", "socket.", "os.", "shutil.", "urllib.", "http.", "ftplib.")

    def hook(event, args):
        if watching and event.startswith(WATCH):
            events.append([event, repr(args)[:200]])

    def fake_run(cmd, *a, **k):
        runs.append(list(cmd))
        return subprocess.CompletedProcess(cmd, 0)

    subprocess.run = fake_run
    if fake_colab:
        google = types.ModuleType("google")
        google.colab = types.ModuleType("google.colab")
        sys.modules["google"], sys.modules["google.colab"] = google, google.colab
        real_isdir = os.path.isdir
        os.path.isdir = lambda p: clone_exists if p == "/content/course" else real_isdir(p)
    os.environ.pop("RNNLAB_ROOT", None)
    code = compile(source, "<bootstrap>", "exec")
    sys.addaudithook(hook)
    watching = True
    exec(code, {"__name__": "__main__"})
    watching = False
    print(json.dumps({"events": events, "runs": runs, "root": os.environ.get("RNNLAB_ROOT")}))
    """
)


def _run_bootstrap(mode: str, clone: str = "missing") -> dict:
    url, ref = colab.read_pins(CONFIG)
    env = {k: v for k, v in os.environ.items() if k != "RNNLAB_ROOT"}
    proc = subprocess.run(
        [sys.executable, "-c", _HARNESS, mode, clone],
        input=colab.bootstrap_source(url, ref),
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_bootstrap_is_a_no_op_off_colab() -> None:
    out = _run_bootstrap("local")
    assert out["runs"] == []
    assert out["events"] == [], "bootstrap touched files, processes or the network off Colab"
    assert out["root"] is None


def test_bootstrap_on_colab_clones_the_pinned_ref_and_keeps_torch() -> None:
    url, ref = colab.read_pins(CONFIG)
    out = _run_bootstrap("colab")
    runs = out["runs"]
    assert runs[0] == ["git", "clone", "-q", url, "/content/course"]
    assert runs[1] == ["git", "-C", "/content/course", "checkout", "-q", ref]
    assert len(runs) == 3
    pip = runs[2]
    assert pip[1:4] == ["-m", "pip", "install"], pip
    assert pip[-1] == "/content/course"
    forbidden = {"-U", "--upgrade", "--force-reinstall", "--ignore-installed", "-I"}
    assert not forbidden & set(pip), f"pip would reinstall packages: {pip}"
    assert not any("torch" in arg for arg in pip), f"pip names torch: {pip}"
    assert out["root"] == "/content/course"
    assert ["os.putenv"] == [e[0] for e in out["events"] if e[0] == "os.putenv"]  # hook is live
    # Every process start went through the (fake) subprocess.run: nothing real was spawned.
    spawned = ("subprocess.", "socket.", "os.system", "os.exec", "os.posix_spawn")
    assert not [e for e in out["events"] if e[0].startswith(spawned)]


def test_bootstrap_rerun_on_colab_does_not_clone_again() -> None:
    out = _run_bootstrap("colab", clone="exists")
    assert out["runs"] == []
    assert out["root"] == "/content/course"


# --------------------------------------------------------------------------------------------
# Launch URLs: well formed for every notebook, and equal to what sphinx-book-theme builds.


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_launch_url_is_well_formed(path: Path) -> None:
    config = yaml.safe_load(CONFIG.read_text())
    url = colab.launch_url(CONFIG, _rel(path))
    parts = urlsplit(url)
    colab_parts = urlsplit(config["launch_buttons"]["colab_url"])
    assert parts.scheme == "https" and parts.netloc == colab_parts.netloc
    assert not parts.query and not parts.fragment
    assert " " not in url and "//" not in parts.path
    repo = urlsplit(config["repository"]["url"])
    assert repo.netloc == "github.com", "Colab opens notebooks from GitHub only"
    org, name = repo.path.strip("/").split("/")
    book = config["repository"].get("path_to_book", "").strip("/")
    branch = config["repository"]["branch"]
    rel = f"{book}/{_rel(path)}" if book else _rel(path)
    assert parts.path == f"/github/{org}/{name}/blob/{branch}/{rel}"
    assert (ROOT / rel).is_file()  # the URL names a file that is in the repository


class _Config(dict):
    """Sphinx's config answers both ``config["x"]`` and ``config.x``."""

    __getattr__ = dict.__getitem__


class _Env:
    def __init__(self, docname: str) -> None:
        self.metadata = {docname: {"kernelspec": {"name": "python3"}}}

    @staticmethod
    def doc2path(docname: str) -> str:
        return str(ROOT / f"{docname}.ipynb")


class _App:
    def __init__(self, theme_options: dict, docname: str) -> None:
        self.config = _Config(html_theme_options=theme_options, html_context={})
        self.builder = None
        self.env = _Env(docname)
        self.outdir = "/nonexistent"


def _theme_url(docname: str) -> str:
    from jupyter_book.config import get_final_config
    from sphinx_book_theme.header_buttons import update_context_with_repository_info
    from sphinx_book_theme.header_buttons.launch import add_launch_buttons

    sphinx_config, _ = get_final_config(
        user_yaml=CONFIG, cli_config={"latex_individualpages": False}, sourcedir=ROOT
    )
    app = _App(copy.deepcopy(sphinx_config["html_theme_options"]), docname)
    update_context_with_repository_info(app)
    context = dict(app.config.html_context)
    context.update(pagename=docname, sourcename=f"{docname}.ipynb.txt", header_buttons=[])
    add_launch_buttons(app, docname, "page.html", context, None)
    buttons = [b for g in context["header_buttons"] for b in g.get("buttons", [])]
    (button,) = [b for b in buttons if b["text"] == "Colab"]
    return button["url"]


@pytest.mark.parametrize("path", NOTEBOOKS[:1] or [ROOT / "chapters" / "example.ipynb"])
def test_launch_url_matches_sphinx_book_theme(path: Path) -> None:
    docname = _rel(path).removesuffix(".ipynb")
    assert colab.launch_url(CONFIG, _rel(path)) == _theme_url(docname)
