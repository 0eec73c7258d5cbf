"""scripts/release.py and the pin: ``rnnlab.pinned_ref`` must be a ref of this repository, and
``make release`` makes one (run on a clone of this repository, with real git)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rnnlab.course import colab
from rnnlab.course.student import stale_student_copies

ROOT = Path(__file__).resolve().parents[1]


def _load_release():
    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("release", module)
    spec.loader.exec_module(module)
    return module


release = _load_release()


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def resolves(root: Path, ref: str) -> bool:
    """Whether ``ref`` names a commit of the repository at ``root``."""
    return (
        subprocess.run(
            ["git", "-C", str(root), "rev-parse", "-q", "--verify", f"{ref}^{{commit}}"],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )


def test_the_pinned_ref_resolves_in_this_repository() -> None:
    """Every bootstrap checks out ``rnnlab.pinned_ref``: it must exist here (a tag: a fresh
    ``git clone`` copies tags; GitHub Actions needs ``fetch-depth: 0``). If this fails, run
    ``make release VERSION=x.y.z`` and push the tag."""
    _url, ref = colab.read_pins(ROOT / "_config.yml")
    assert resolves(ROOT, ref), (
        f"rnnlab.pinned_ref {ref!r} is not a commit of this repository: every Colab bootstrap "
        "would fail; run `make release VERSION=x.y.z` (it tags and syncs the pins)"
    )
    assert not resolves(ROOT, "v0.0.404-no-such-tag")  # the check can fail
    version = _git(ROOT, "show", f"{ref}:pyproject.toml").split('version = "')[1].split('"')[0]
    if resolves(ROOT, f"v{version}"):  # where the tag travelled, it names the pinned commit
        assert _git(ROOT, "rev-parse", f"v{version}^{{commit}}") == _git(ROOT, "rev-parse", ref)


def changed_since(
    root: Path, ref: str, paths: tuple[str, ...] = ("lib", "pyproject.toml")
) -> list[str]:
    """The files under ``paths`` whose content in the working tree of ``root`` differs from
    ``ref`` (tracked files only; what ``pip install`` of a clone at ``ref`` would install)."""
    out = _git(root, "diff", "--name-only", ref, "--", *paths)
    return out.splitlines()


def test_colab_installs_the_library_the_notebooks_are_tested_with() -> None:
    """On Colab every notebook's first cell installs the library at ``rnnlab.pinned_ref``, while
    nbval, the book and every other test run the notebooks against ``lib/`` here. The two must be
    the same code, or a notebook that passes here calls a function Colab's copy lacks (the
    failure of every first cell that the pin once caused). If this fails, the library changed
    after the last release: run ``make release VERSION=x.y.z``."""
    _url, ref = colab.read_pins(ROOT / "_config.yml")
    changed = changed_since(ROOT, ref)
    assert not changed, (
        f"lib/ or pyproject.toml changed since the pinned release {ref[:12]} "
        f"({len(changed)} files, e.g. {changed[:3]}): Colab would run these notebooks against "
        "the old library; run `make release VERSION=x.y.z`"
    )


def test_the_library_check_notices_a_change(clone: Path) -> None:
    """The check above can fail: one changed line of the library in a clone is found."""
    _url, ref = colab.read_pins(clone / "_config.yml")
    assert changed_since(clone, ref) == []
    init = clone / "lib" / "rnnlab" / "__init__.py"
    init.write_text(init.read_text() + "\n# changed after the release\n")
    assert changed_since(clone, ref) == ["lib/rnnlab/__init__.py"]


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    _git(tmp_path, "clone", "-q", str(ROOT), str(repo))
    _git(repo, "config", "user.name", "Release Test")
    _git(repo, "config", "user.email", "release@example.invalid")
    return repo


def test_release_tags_a_commit_and_the_notebooks_pin_its_hash(clone: Path, capsys) -> None:
    head = _git(clone, "rev-parse", "HEAD")
    assert release.main(["9.9.9", "--root", str(clone)]) == 0
    assert "git push origin" in capsys.readouterr().out
    _url, ref = colab.read_pins(clone / "_config.yml")
    assert ref == _git(clone, "rev-parse", "v9.9.9^{commit}") == _git(clone, "rev-parse", "HEAD~1")
    assert _git(clone, "cat-file", "-t", "v9.9.9") == "tag"  # annotated
    assert _git(clone, "rev-parse", "HEAD~2") == head
    assert '__version__ = "9.9.9"' in _git(clone, "show", f"{ref}:lib/rnnlab/__init__.py")
    # a clone that did not fetch the tag still resolves the pin
    bare = clone.parent / "notags"
    _git(clone.parent, "clone", "-q", "--no-tags", str(clone), str(bare))
    assert resolves(bare, ref) and not resolves(bare, "v9.9.9")
    assert _git(clone, "status", "--porcelain", "--untracked-files=no") == ""
    assert release.check_pins(clone) == []
    assert not stale_student_copies(clone / "chapters", clone / "student" / "chapters")
    assert 'version = "9.9.9"' in (clone / "pyproject.toml").read_text()
    assert '__version__ = "9.9.9"' in (clone / "lib" / "rnnlab" / "__init__.py").read_text()
    nb = json.loads((clone / "student/chapters/02_lab_a_classification.ipynb").read_text())
    assert f'RNNLAB_REF = "{ref}"' in "".join(nb["cells"][0]["source"])


def test_release_refuses_bad_versions_existing_tags_and_dirty_trees(clone: Path, capsys) -> None:
    assert release.main(["1.2", "--root", str(clone)]) == 2
    assert "MAJOR.MINOR.PATCH" in capsys.readouterr().err
    _git(clone, "tag", "-a", "v8.8.8", "-m", "x")
    assert release.main(["8.8.8", "--root", str(clone)]) == 2
    assert "exists already" in capsys.readouterr().err
    (clone / "README.md").write_text("edited\n")
    assert release.main(["9.9.9", "--root", str(clone)]) == 2
    assert "clean" in capsys.readouterr().err
    assert not resolves(clone, "v9.9.9")


def test_check_pins_names_a_notebook_with_another_pin(clone: Path) -> None:
    path = clone / "student" / "chapters" / "01_counting_parameters.ipynb"
    nb = json.loads(path.read_text())
    nb["cells"][0]["source"] = [
        line.replace('REF = "', 'REF = "old-') for line in nb["cells"][0]["source"]
    ]
    path.write_text(json.dumps(nb))
    assert release.check_pins(clone) == [
        "student/chapters/01_counting_parameters.ipynb: its bootstrap does not check out "
        + colab.read_pins(clone / "_config.yml")[1]
    ]
