"""The instructor guide's exercise table names exactly the self-checks the chapters call."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "chapters" / "instructor_guide.md"
CHECK_CALL = re.compile(r"\b(check_\w+)\(")


def _called_in_chapters() -> set[str]:
    called = set()
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                called |= set(CHECK_CALL.findall(cell.source))
    return called


def test_exercise_table_lists_the_self_checks_the_chapters_call() -> None:
    rows = [line for line in GUIDE.read_text().splitlines() if line.lstrip().startswith("|")]
    in_table = {name for row in rows for name in re.findall(r"`(check_\w+)`", row)}
    called = _called_in_chapters()
    assert called, "no chapter calls a self-check"
    assert in_table == called, (
        f"instructor_guide.md table, missing: {sorted(called - in_table)}, "
        f"stale: {sorted(in_table - called)}"
    )


def test_goals_table_is_the_chapters_own_goals() -> None:
    from rnnlab.course import guide

    assert not guide.check(ROOT), "run `python -m rnnlab findings --write`"
    table = guide.goals_table(ROOT)
    for name in guide.CHAPTERS:  # every chapter, the design chapter (Lab D) included
        goals = guide.chapter_goals(ROOT / "chapters" / name)
        assert f"<{goals.doc}>`" in table
        assert all(g in table for g in goals.goals), name
    assert "05_design_depth" in table


def test_goals_follow_a_changed_chapter(tmp_path: Path) -> None:
    import shutil

    from rnnlab.course import guide

    (tmp_path / "chapters").mkdir()
    for name in [*guide.CHAPTERS, "instructor_guide.md"]:
        shutil.copy(ROOT / "chapters" / name, tmp_path / "chapters" / name)
    findings = tmp_path / "chapters" / "05_findings.md"
    findings.write_text(findings.read_text().replace("name the experiment", "NAME THE EXPERIMENT"))
    assert guide.check(tmp_path)  # the guide disagrees now
    guide.write(tmp_path)
    assert not guide.check(tmp_path) and "NAME THE EXPERIMENT" in guide.goals_table(tmp_path)


def test_lab_d_is_in_the_syllabus_and_the_time_table() -> None:
    text = GUIDE.read_text()
    syllabus = text.split("## Syllabus", 1)[1].split("##", 1)[0]
    assert "Lab D" in syllabus
    times = text.split("**Student working time.**", 1)[1].split("##", 1)[0]
    assert "Lab D" in times
    assert "student edition" in text and "/instructor/" in text
