"""scripts/publish_site.py and the GitHub Pages workflow: student edition at the root,
instructor edition at /instructor/, checked before anything is written."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"


def _load():
    spec = importlib.util.spec_from_file_location("publish_site", ROOT / "scripts/publish_site.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("publish_site", module)
    spec.loader.exec_module(module)
    return module


publish = _load()


def _fake_builds(tmp_path: Path) -> tuple[Path, Path]:
    instructor, student = tmp_path / "html", tmp_path / "student-html"
    for folder, title in ((instructor, "instructor"), (student, "student")):
        (folder / "chapters").mkdir(parents=True)
        (folder / "index.html").write_text(f"<title>{title}</title>")
        (folder / "chapters" / "01_counting_parameters.html").write_text(title)
    for page in publish.INSTRUCTOR_PAGES:
        (instructor / page).write_text("for instructors")
    return instructor, student


def test_dry_run_checks_and_writes_nothing(tmp_path: Path, capsys) -> None:
    instructor, student = _fake_builds(tmp_path)
    out = tmp_path / "site"
    assert publish.main(["--instructor", str(instructor), "--student", str(student),
                         "--out", str(out), "--dry-run"]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert "would write" in printed and f"{out}/instructor/" in printed
    assert not out.exists()


def test_the_site_has_students_at_the_root_and_instructors_at_their_path(tmp_path: Path) -> None:
    instructor, student = _fake_builds(tmp_path)
    out = tmp_path / "site"
    (out / "stale").mkdir(parents=True)  # a previous run's leftovers are replaced
    assert publish.main(["--instructor", str(instructor), "--student", str(student),
                         "--out", str(out)]) == 0  # fmt: skip
    assert (out / "index.html").read_text() == "<title>student</title>"
    assert (out / "instructor" / "index.html").read_text() == "<title>instructor</title>"
    assert (out / "instructor" / "chapters" / "instructor_guide.html").is_file()
    assert not (out / "chapters" / "instructor_guide.html").exists()
    assert (out / ".nojekyll").is_file() and not (out / "stale").exists()


def test_missing_or_mixed_up_builds_are_refused(tmp_path: Path, capsys) -> None:
    instructor, student = _fake_builds(tmp_path)
    out = tmp_path / "site"
    args = ["--instructor", str(instructor), "--student", str(tmp_path / "none"), "--out", str(out)]
    assert publish.main(args) == 1
    assert "make student-book" in capsys.readouterr().err and not out.exists()
    # the instructor edition deployed where students land: its guide would be public at /
    args = ["--instructor", str(instructor), "--student", str(instructor), "--out", str(out)]
    assert publish.main(args) == 1
    assert "instructor-only page" in capsys.readouterr().err and not out.exists()


def test_the_workflow_builds_both_editions_and_deploys_what_the_script_assembles() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    steps = workflow["jobs"]["build"]["steps"]
    runs = "\n".join(step.get("run", "") for step in steps)
    assert "book-build" in runs and "student-book" in runs
    assemble = [s for s in steps if "scripts/publish_site.py" in s.get("run", "")]
    assert len(assemble) == 1 and "--dry-run" not in assemble[0]["run"]
    out = assemble[0]["run"].split("--out")[1].split()[0]
    upload = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-pages")]
    assert upload and upload[0]["with"]["path"] == out
    checkout = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout")]
    assert checkout[0]["with"]["fetch-depth"] == 0  # tags too
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert any(str(s.get("uses", "")).startswith("actions/deploy-pages") for s in deploy["steps"])
    make = (ROOT / "Makefile").read_text()
    assert "\nbook-build:" in make and "\nstudent-book:" in make and "\nsetup:" in make
