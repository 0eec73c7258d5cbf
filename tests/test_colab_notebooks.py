"""Every notebook of both editions runs top to bottom in a simulated Colab runtime, against a bare
clone of this repository standing in for the published one.

What is real: git (a bare repository made from the working tree under test, released the way
``make release`` does, so the notebooks' pin names a commit holding *this* library), each
notebook's own bootstrap cell (only its repository address and ``/content/course`` are replaced by
local paths), ``pip install --no-deps -e`` of the clone, and a Jupyter kernel that has
``google.colab`` imported before the first cell, as on Colab. What stands in for Colab: a
throwaway virtual environment whose only packages are this environment's (torch included: the
install must keep it, as it keeps Colab's), with pip kept off the network (``PIP_NO_INDEX``) and
building in that environment (no build isolation, which on Colab would download setuptools). The
smoke profile keeps the "Run it yourself" sweeps short.

One environment serves every notebook of a test process; each notebook gets a fresh
``/content`` and so a fresh clone and install, as a new Colab runtime would. After the notebook,
its bootstrap runs again (nothing to do, nothing printed); in chapter 1 it first runs with a ref
the repository lacks (one line says what failed and what to do) and the notebook's own cell,
rerun in the same kernel, recovers. Failed clones and installs: ``tests/test_colab.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from rnnlab.course import colab

ROOT = Path(__file__).resolve().parents[1]
EDITIONS = ("chapters", "student/chapters")
NOTEBOOKS = [
    p.relative_to(ROOT).as_posix()
    for folder in EDITIONS
    for p in sorted((ROOT / folder).glob("*.ipynb"))
]
#: Run to the end. The other student copies differ from these only in their exercises, and the
#: student book build (``make student-book``) executes them in full; here their bootstrap and the
#: first :data:`STUDENT_PREFIX` code cells after it run (imports, the lab and its design).
FULL = {p for p in NOTEBOOKS if not p.startswith("student/")} | {
    "student/chapters/01_counting_parameters.ipynb"  # the most exercises: every check runs
}
STUDENT_PREFIX = 3
#: Here the bootstrap first runs with a ref the repository lacks, then as the notebook has it.
RECOVERS = "chapters/01_counting_parameters.ipynb"
VERSION = "9.9.9"  # the release the test makes; the kernel must import exactly this library
KERNEL = "rnnlab-colab-sim"
RAISES = "raises-exception"  # a student exercise's check, unanswered in the student edition
STUDENT_ERRORS = {"NotAnswered", "AssertionError", "NotImplementedError", "NameError"}


def _git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def _load_release_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("release", module)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class Published:
    url: str  # the bare repository, standing in for repository.url
    ref: str  # rnnlab.pinned_ref after the release: the commit every bootstrap checks out
    released: Path  # the released checkout, whose notebooks carry that pin
    jupyter: Path  # JUPYTER_PATH holding the simulated runtime's kernel
    ipython: Path  # IPYTHONDIR whose startup imports google.colab


def _snapshot_working_tree(clone: Path) -> None:
    """Commit this working tree (tracked and untracked, not ignored) on top of ``clone``."""
    listed = _git("-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for rel in filter(None, listed.split("\0")):
        src, dst = ROOT / rel, clone / rel
        if src.is_file() or src.is_symlink():
            dst.parent.mkdir(parents=True, exist_ok=True)
            if dst.is_symlink() or dst.exists():
                dst.unlink()
            shutil.copy2(src, dst, follow_symlinks=False)
        elif not src.exists():  # deleted in the working tree
            dst.unlink(missing_ok=True)
    _git("-C", str(clone), "add", "-A")
    _git("-C", str(clone), "commit", "-q", "--allow-empty", "-m", "the working tree under test")


def _colab_environment(work: Path) -> tuple[Path, Path]:
    """A throwaway venv that sees this environment's packages (torch included) but installs into
    itself, a fake ``google.colab`` in it, and a kernel spec and IPython startup file for it."""
    venv = work / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True, capture_output=True, text=True, timeout=60,
        ).stdout.strip()
    )  # fmt: skip
    # A plain path line: this environment's packages are importable, but its own .pth files
    # (the editable install of the rnnlab under test) are not run, so only the clone provides it.
    ours = dict.fromkeys(sysconfig.get_path(name) for name in ("purelib", "platlib"))
    (site / "rnnlab-colab-sim-base.pth").write_text("".join(f"{p}\n" for p in ours))
    (site / "google" / "colab").mkdir(parents=True)
    (site / "google" / "colab" / "__init__.py").write_text('"""Stands in for Colab\'s module."""\n')
    jupyter = work / "jupyter"
    spec = jupyter / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3 (simulated Colab)",
                "language": "python",
            }
        )
    )
    ipython = work / "ipython"
    startup = ipython / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-google-colab.py").write_text("import google.colab  # noqa: F401\n")
    return jupyter, ipython


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Published:
    """This working tree, committed and released (``scripts/release.py``) in a clone, then
    published as a bare repository; and the simulated runtime's environment."""
    work = tmp_path_factory.mktemp("colab-sim")
    clone = work / "release"
    _git("clone", "-q", str(ROOT), str(clone))
    _git("-C", str(clone), "config", "user.name", "Colab Test")
    _git("-C", str(clone), "config", "user.email", "colab@example.invalid")
    _snapshot_working_tree(clone)
    _load_release_script().release(clone, VERSION)
    _url, ref = colab.read_pins(clone / "_config.yml")
    assert ref == _git("-C", str(clone), "rev-parse", "HEAD~1")  # the released library
    bare = work / "published.git"
    _git("clone", "-q", "--bare", str(clone), str(bare))
    jupyter, ipython = _colab_environment(work)
    return Published(str(bare), ref, clone, jupyter, ipython)


def _point_at(source: str, url: str, course: Path) -> str:
    """The bootstrap cell as the notebook carries it, with the repository address and
    ``/content/course`` replaced (each exactly once) by the bare repository and a local folder."""
    real_url, _ref = colab.read_pins(ROOT / "_config.yml")
    out = source
    for old, new in (
        (f'RNNLAB_REPO = "{real_url}"', f'RNNLAB_REPO = "{url}"'),
        (f'RNNLAB_COURSE = "{colab.COURSE_DIR}"', f'RNNLAB_COURSE = "{course}"'),
    ):
        assert out.count(old) == 1, f"the bootstrap no longer reads {old!r}"
        out = out.replace(old, new)
    return out


_PROBE = """\
import json, os, sys
import rnnlab
print("PROBE " + json.dumps({
    "version": rnnlab.__version__, "root": os.environ.get("RNNLAB_ROOT"),
    "modules": sorted({getattr(m, "__file__", None) or "" for n, m in list(sys.modules.items())
                       if n == "rnnlab" or n.startswith("rnnlab.")}),
}))"""


def _seconds(cell) -> float:
    """How long ``cell`` took to run, from the timestamps nbclient records."""
    from datetime import datetime

    when = cell.metadata.get("execution", {})
    start, end = when.get("iopub.execute_input"), when.get("shell.execute_reply")
    if not (start and end):
        return float("nan")
    start, end = (datetime.fromisoformat(t.replace("Z", "+00:00")) for t in (start, end))
    return (end - start).total_seconds()


def _text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []))


@pytest.mark.slow
@pytest.mark.parametrize("rel", NOTEBOOKS)
def test_notebook_runs_top_to_bottom_in_a_simulated_colab(
    rel: str, published: Published, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nbclient import NotebookClient

    student = rel.startswith("student/")
    content = tmp_path / "content"  # Colab's working directory
    content.mkdir()
    course = content / "course"
    nb = nbformat.read(published.released / rel, as_version=4)
    first = nb.cells[0]
    assert colab.BOOTSTRAP_TAG in first.metadata.get("tags", [])
    assert f'RNNLAB_REF = "{published.ref}"' in first.source, "the release did not pin it"
    first.source = _point_at(first.source, published.url, course)
    if rel not in FULL:
        code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
        nb.cells = nb.cells[: code[STUDENT_PREFIX] + 1]
    cells = list(nb.cells)  # the notebook's own cells
    rerun = nbformat.v4.new_code_cell(first.source)  # a second run of the cell: nothing to do
    before = []
    if rel == RECOVERS:  # the same cell with a ref the repository lacks, in the same kernel
        bad = first.source.replace(f'RNNLAB_REF = "{published.ref}"', 'RNNLAB_REF = "v0.0.404"')
        before = [nbformat.v4.new_code_cell(bad, metadata={"tags": [RAISES]})]
    nb.cells = [*before, *cells, rerun, nbformat.v4.new_code_cell(_PROBE)]

    for name in ("RNNLAB_ROOT", "RNNLAB_RUNS_DIR", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RNNLAB_PROFILE", "smoke")
    monkeypatch.setenv("JUPYTER_PATH", str(published.jupyter))
    monkeypatch.setenv("IPYTHONDIR", str(published.ipython))
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # nothing may be downloaded: --no-deps, no isolation
    monkeypatch.setenv("PIP_NO_BUILD_ISOLATION", "0")  # i.e. --no-build-isolation
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    started = time.monotonic()
    resources = {"metadata": {"path": str(content)}}
    NotebookClient(nb, timeout=600, kernel_name=KERNEL, resources=resources).execute()
    print(
        f"{rel}: {time.monotonic() - started:.1f} s in the simulated Colab runtime, of which "
        f"{_seconds(first):.1f} s the bootstrap (clone and install)"
    )

    # The bootstrap cloned the bare repository at the pin and installed from that clone.
    assert f"Colab bootstrap: rnnlab from {published.url} at {published.ref} in {course}" in (
        _text(first)
    )
    assert _git("-C", str(course), "rev-parse", "HEAD") == published.ref
    for cell in before:  # failed first: one line saying what and what to do; the rerun recovered
        (err,) = [o for o in cell.outputs if o.output_type == "error"]
        assert err.ename == "RuntimeError" and "\n" not in err.evalue, err
        assert err.evalue.startswith(
            f"Colab bootstrap: could not check out {published.url} at v0.0.404 ("
        ) and err.evalue.endswith("then rerun this cell."), err.evalue
    assert not list(content.glob("course.*")), "a temporary folder was left behind"
    assert _text(rerun) == "" and not [o for o in rerun.outputs if o.output_type == "error"]
    probe = json.loads(_text(nb.cells[-1]).split("PROBE ", 1)[1])
    assert probe["version"] == VERSION and probe["root"] == str(course)
    lib = str(course / "lib" / "rnnlab") + os.sep
    assert probe["modules"] and all(f.startswith(lib) for f in probe["modules"]), probe
    # Every cell ran; only the student edition's unanswered exercises may raise.
    assert all(c.execution_count for c in cells if c.cell_type == "code"), "a cell did not run"
    errors = {i: o for i, c in enumerate(cells) for o in c.get("outputs", [])
              if o.output_type == "error"}  # fmt: skip
    for i, err in errors.items():
        assert student and RAISES in cells[i].metadata.get("tags", []), (
            f"{rel}, cell {i}: {err.ename}: {err.evalue}"
        )
        assert err.ename in STUDENT_ERRORS, f"{rel}, cell {i}: {err.ename}: {err.evalue}"
    if student and any(RAISES in c.metadata.get("tags", []) for c in cells):
        assert any("not answered yet" in e.evalue for e in errors.values()), rel
