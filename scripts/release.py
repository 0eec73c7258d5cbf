"""Make a release: the commit every Colab bootstrap checks out, tagged ``v<VERSION>``.

``make release VERSION=0.2.0`` runs this. In a clean working tree on the branch the website is
built from, it

1. writes the version into ``pyproject.toml`` and ``lib/rnnlab/__init__.py``, commits them
   ("Release v<VERSION>": the released library) and creates the annotated tag ``v<VERSION>`` on
   that commit;
2. writes that commit's full hash into ``_config.yml`` (``rnnlab.pinned_ref``, the one place
   the pin lives), rewrites every notebook's bootstrap cell from it (``python -m rnnlab.course.colab
   sync``) and the committed student copies (``student/chapters/``, :mod:`rnnlab.course.student`);
3. checks that every notebook, instructor and student, now checks out exactly that commit, and
   commits those files.

The pin is a commit hash, not the tag name: a hash resolves in every full clone of the branch
(tags travel only when they are pushed), and it cannot be moved. The tag names the same commit
for people. Publish both: ``git push origin <branch> v<VERSION>``. ``tests/test_release.py``
fails while ``rnnlab.pinned_ref`` does not resolve in the repository
(``git rev-parse REF^{commit}``), and when the tag, where present, names another commit.

Usage::

    python scripts/release.py 0.2.0            # or: make release VERSION=0.2.0
    python scripts/release.py 0.2.0 --root DIR # another checkout (the tests use a clone)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERSION_RE = re.compile(r"\d+\.\d+\.\d+")
_PIN_LINE = re.compile(r"^(\s*pinned_ref:\s*)\S+(.*)$", re.MULTILINE)
_PYPROJECT_VERSION = re.compile(r'^version = "[^"]*"$', re.MULTILINE)
_INIT_VERSION = re.compile(r'^__version__ = "[^"]*"$', re.MULTILINE)


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def _replace_once(pattern: re.Pattern, repl: str, text: str, where: str) -> str:
    new, count = pattern.subn(repl, text)
    if count != 1:
        raise ValueError(f"{where}: expected exactly one line matching {pattern.pattern!r}")
    return new


def set_pin(root: Path, ref: str) -> None:
    """Write ``ref`` into ``_config.yml`` as ``rnnlab.pinned_ref``."""
    config = root / "_config.yml"
    config.write_text(_replace_once(_PIN_LINE, rf"\g<1>{ref}\g<2>", config.read_text(), "_config"))


def set_version(root: Path, version: str) -> str:
    """Write ``version`` into ``pyproject.toml`` and ``__init__.py``; return the tag name."""
    tag = f"v{version}"
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        _replace_once(_PYPROJECT_VERSION, f'version = "{version}"', pyproject.read_text(), "pyp")
    )
    init = root / "lib" / "rnnlab" / "__init__.py"
    init.write_text(
        _replace_once(_INIT_VERSION, f'__version__ = "{version}"', init.read_text(), "init")
    )
    return tag


def notebooks(root: Path) -> list[Path]:
    """Every notebook with a bootstrap cell: ``chapters/`` and the student copies."""
    return sorted(
        p
        for folder in (root / "chapters", root / "student" / "chapters")
        for p in folder.rglob("*.ipynb")
        if ".ipynb_checkpoints" not in p.parts
    )


def check_pins(root: Path) -> list[str]:
    """One line per notebook whose first cell is not the bootstrap of ``_config.yml``'s pins."""
    import json

    from rnnlab.course import colab

    url, ref = colab.read_pins(root / "_config.yml")
    expected = colab.bootstrap_source(url, ref)
    problems = []
    for path in notebooks(root):
        cells = json.loads(path.read_text())["cells"]
        if not cells or "".join(cells[0]["source"]) != expected:
            problems.append(f"{path.relative_to(root)}: its bootstrap does not check out {ref}")
    return problems


def release(root: Path, version: str) -> str:
    """Set, sync, check, commit and tag; return the tag. Raises ValueError before changing
    anything if ``version`` is malformed, the tag exists or the working tree is not clean."""
    if not VERSION_RE.fullmatch(version):
        raise ValueError(f"VERSION must look like MAJOR.MINOR.PATCH (e.g. 0.2.0), got {version!r}")
    tag = f"v{version}"
    if (
        subprocess.run(
            ["git", "-C", str(root), "rev-parse", "-q", "--verify", f"refs/tags/{tag}"],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    ):
        raise ValueError(f"VERSION {version}: the tag {tag} exists already; choose a new version")
    dirty = _git(root, "status", "--porcelain", "--untracked-files=no")
    if dirty:
        raise ValueError(f"the working tree must be clean to release; commit or stash:\n{dirty}")

    from rnnlab.course import colab
    from rnnlab.course.student import write_student_copies

    set_version(root, version)
    _git(root, "add", "--", "pyproject.toml", "lib/rnnlab/__init__.py")
    _git(root, "commit", "-q", "-m", f"Release {tag}")
    _git(root, "tag", "-a", tag, "-m", f"Release {tag}")
    commit = _git(root, "rev-parse", "HEAD")
    set_pin(root, commit)
    colab.main(["sync", str(root)])
    write_student_copies(root / "chapters", root / "student" / "chapters")
    problems = check_pins(root)
    if problems:
        raise ValueError("pins out of sync after the release:\n" + "\n".join(problems))
    files = ["_config.yml"] + [p.relative_to(root).as_posix() for p in notebooks(root)]
    _git(root, "add", "--", *files)
    _git(root, "commit", "-q", "-m", f"Colab bootstraps pin {tag} ({commit[:12]})")
    return tag


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", help="MAJOR.MINOR.PATCH, e.g. 0.2.0 (the tag is v0.2.0)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout (default: this one)")
    args = parser.parse_args(argv)
    try:
        tag = release(args.root.resolve(), args.version)
    except ValueError as exc:
        print(f"release: {exc}", file=sys.stderr)
        return 2
    branch = _git(args.root, "rev-parse", "--abbrev-ref", "HEAD")
    print(f"release: committed and tagged {tag}. Publish with: git push origin {branch} {tag}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
