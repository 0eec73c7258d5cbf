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
