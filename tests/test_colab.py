"""Tests for rnnlab.course.colab: one set of pins, a bootstrap that is inert off Colab, GPU
metadata,
and well-formed launch URLs.

The bootstrap is executed in a fresh Python process with an audit hook (PEP 578) that records every
file open, process start and socket call, and with ``subprocess.run`` replaced by a recorder, so we
see exactly what it would do on Colab and that it does nothing anywhere else.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import pytest
import yaml

from rnnlab.course import colab

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
        f"{_rel(path)}: bootstrap differs from _config.yml; "
        "run `python -m rnnlab.course.colab sync`"
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


def test_the_install_keeps_colabs_torch() -> None:
    """pip installs the clone only: no dependency is resolved, so nothing is upgraded."""
    url, ref = colab.read_pins(CONFIG)
    source = colab.bootstrap_source(url, ref)
    pip = eval(colab.PIP_INSTALL, {"sys": sys})  # noqa: S307 - our own constant
    assert pip[1:4] == ["-m", "pip", "install"] and "--no-deps" in pip, pip
    forbidden = {"-U", "--upgrade", "--force-reinstall", "--ignore-installed", "-I"}
    assert not forbidden & set(pip) and not any("torch" in arg for arg in pip), pip
    assert f'run("install", [*{colab.PIP_INSTALL}, course])' in source


# The real bootstrap: real git, a local bare repository standing in for the published one, and a
# fake ``google.colab`` module. Only the pip command is replaced (a script that records that it
# ran, or fails), so the test neither needs the network nor touches this environment's packages.

_COLAB_HARNESS = textwrap.dedent(
    """
    import json, os, sys, types

    google = types.ModuleType("google")
    google.colab = types.ModuleType("google.colab")
    sys.modules["google"], sys.modules["google.colab"] = google, google.colab
    os.environ.pop("RNNLAB_ROOT", None)
    exec(compile(sys.stdin.read(), "<bootstrap>", "exec"), {"__name__": "__main__"})
    import rnnlab
    from rnnlab.core.paths import repo_root
    print(json.dumps({"root": os.environ.get("RNNLAB_ROOT"), "rnnlab": rnnlab.__file__,
                      "repo_root": str(repo_root())}))
    """
)
_FAKE_PIP = (
    '[sys.executable, "-c", "import pathlib, sys; '
    "pathlib.Path(sys.argv[1], 'pip-ran').write_text('ok')\"]"
)
_FAILING_PIP = '[sys.executable, "-c", "import sys; sys.exit(\'ERROR: no matching wheel\')"]'


def _git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A bare clone of this repository's HEAD with a release tag: ``(url, tag)``."""
    bare = tmp_path_factory.mktemp("published") / "depth-vs-width.git"
    _git("clone", "-q", "--bare", str(ROOT), str(bare))
    _git("-C", str(bare), "tag", "-a", "v9.9.9", "-m", "test release", "HEAD")
    return str(bare), "v9.9.9"


def _colab(url: str, ref: str, course: Path, pip: str = _FAKE_PIP) -> subprocess.CompletedProcess:
    source = colab.bootstrap_source(url, ref, course=str(course), pip=pip)
    env = {k: v for k, v in os.environ.items() if k != "RNNLAB_ROOT"}
    env["GIT_TERMINAL_PROMPT"] = "0"
    return subprocess.run(
        [sys.executable, "-c", _COLAB_HARNESS],
        input=source,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
        cwd=course.parent,
    )


def _assert_ready(proc: subprocess.CompletedProcess, course: Path, url: str, ref: str) -> None:
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["root"] == str(course) and out["repo_root"] == str(course)
    assert out["rnnlab"] == str(course / "lib" / "rnnlab" / "__init__.py")  # the clone's library
    assert _git("-C", str(course), "rev-parse", "HEAD") == _git(
        "-C", url, "rev-parse", f"{ref}^{{commit}}"
    )
    assert (course / "pip-ran").read_text() == "ok"
    assert f"Colab bootstrap: rnnlab from {url} at {ref} in {course}" in proc.stdout
    assert not list(course.parent.glob("course.*")), "a temporary folder was left behind"


def _one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode != 0
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("RuntimeError: Colab bootstrap: could not "), proc.stderr
    return line


def test_real_bootstrap_clones_checks_out_installs_and_recovers(
    published: tuple[str, str], tmp_path: Path
) -> None:
    url, ref = published
    course = tmp_path / "course"

    # 1. A ref that is not in the repository: one line names repository and ref, nothing is left.
    line = _one_line_error(_colab(url, "v0.0.404", course))
    assert f"could not check out {url} at v0.0.404" in line and "v0.0.404" in line.split("(")[1]
    assert "nothing was left behind" in line and "then rerun this cell" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == []

    # 2. Fixed (the right ref): the same cell, rerun, succeeds.
    _assert_ready(_colab(url, ref, course), course, url, ref)

    # 3. Rerun once done: nothing is cloned or installed again.
    (course / "pip-ran").unlink()
    proc = _colab(url, ref, course)
    assert proc.returncode == 0 and not (course / "pip-ran").exists(), proc.stderr
    assert "Colab bootstrap:" not in proc.stdout


def test_real_bootstrap_repairs_a_half_made_copy_and_keeps_the_runs(
    published: tuple[str, str], tmp_path: Path
) -> None:
    url, ref = published
    course = tmp_path / "course"
    (course / "runs").mkdir(parents=True)  # e.g. a runtime reset mid-clone, after a lab run
    (course / "runs" / "lab-a-gpu.jsonl").write_text("{}\n")
    (course / "junk").write_text("half a clone")
    _assert_ready(_colab(url, ref, course), course, url, ref)
    assert not (course / "junk").exists()
    assert (course / "runs" / "lab-a-gpu.jsonl").read_text() == "{}\n"


def test_real_bootstrap_failed_clone_or_install_leaves_nothing(
    published: tuple[str, str], tmp_path: Path
) -> None:
    url, ref = published
    course = tmp_path / "course"
    missing = str(tmp_path / "no-such-repository.git")
    line = _one_line_error(_colab(missing, ref, course))
    assert f"could not clone {missing} at {ref}" in line
    assert not list(tmp_path.iterdir())
    line = _one_line_error(_colab(url, ref, course, pip=_FAILING_PIP))
    assert f"could not install {url} at {ref} (ERROR: no matching wheel)" in line
    assert not list(tmp_path.iterdir())
    _assert_ready(_colab(url, ref, course), course, url, ref)  # and a rerun works


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


# --------------------------------------------------------------------------------------------
# Every Colab URL of both editions opens a file the repository tracks, on the branch it names.

COLAB_URL = re.compile(r"https://colab\.research\.google\.com/github/([^/\s]+)/([^/\s]+)/blob/"
                       r"([^/\s]+)/([^\s)\"'<>`]+\.ipynb)")  # fmt: skip


def _student_book_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("student_book", ROOT / "scripts/student_book.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("student_book", module)
    spec.loader.exec_module(module)
    return module


def _tracked() -> set[str]:
    return set(_git("-C", str(ROOT), "ls-files").splitlines())


def _edition_urls() -> dict[str, list[str]]:
    """``{edition: [the Colab URL of every notebook page]}``, from each edition's config."""
    module = _student_book_module()
    config = yaml.safe_load(CONFIG.read_text())
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    editions = {
        "instructor": (config, toc),
        "student": (module.student_config(config), module.student_toc(toc)),
    }
    out = {}
    for edition, (conf, tc) in editions.items():
        pages = [tc["root"]] + [ch["file"] for part in tc["parts"] for ch in part["chapters"]]
        notebooks = [f"{page}.ipynb" for page in pages if (ROOT / f"{page}.ipynb").is_file()]
        out[edition] = [colab.launch_url(conf, nb) for nb in notebooks]
    return out


def test_every_colab_button_of_both_editions_opens_a_tracked_notebook() -> None:
    config = yaml.safe_load(CONFIG.read_text())
    org_repo = urlsplit(config["repository"]["url"]).path.strip("/")
    branch = config["repository"]["branch"]
    tracked = _tracked()
    urls = _edition_urls()
    assert len(urls["instructor"]) >= 5 and len(urls["student"]) >= 5, urls
    for edition, edition_urls in urls.items():
        for url in edition_urls:
            owner, repo, ref, path = COLAB_URL.fullmatch(url).groups()
            assert f"{owner}/{repo}" == org_repo and ref == branch, url
            assert path in tracked, f"{edition} edition: {url} opens {path}, not in git ls-files"
            if edition == "student":
                assert path.startswith("student/"), url  # the copy without solutions
    # the branch the buttons name is a branch of this repository (here, or in the clone's origin)
    names = (f"refs/heads/{branch}", f"refs/remotes/origin/{branch}")
    known = [n for n in names if subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "-q", n], capture_output=True,
        check=False).returncode == 0]  # fmt: skip
    assert known, f"repository.branch {branch!r} is not a branch of this repository"


def test_every_colab_link_in_the_text_opens_a_tracked_notebook() -> None:
    config = yaml.safe_load(CONFIG.read_text())
    org_repo = urlsplit(config["repository"]["url"]).path.strip("/")
    tracked = _tracked()
    texts = [p for p in sorted(tracked) if p.endswith((".md", ".ipynb")) and (ROOT / p).is_file()]
    for rel in texts:
        for owner, repo, _ref, path in COLAB_URL.findall((ROOT / rel).read_text()):
            if "<" in owner or f"{owner}/{repo}" != org_repo:
                continue  # a placeholder, or another project's notebook
            assert path in tracked, f"{rel}: a Colab link opens {path}, not in the repository"


def test_colab_url_check_notices_a_missing_file() -> None:
    """The check above can fail: an untracked path is not in ``git ls-files``."""
    assert "student/chapters/no_such_chapter.ipynb" not in _tracked()
    url = colab.launch_url(
        _student_book_module().student_config(yaml.safe_load(CONFIG.read_text())),
        "chapters/01_counting_parameters.ipynb",
    )
    assert COLAB_URL.fullmatch(url).group(4) == "student/chapters/01_counting_parameters.ipynb"


# Every notebook of both editions running in a simulated Colab runtime, with the real install:
# tests/test_colab_notebooks.py.
