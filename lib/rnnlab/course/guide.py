"""The instructor guide's goals table, read from the chapters: one source for every goal.

Each chapter states its goals at its top, under **Learning goals.**, and what it needs under
**Prerequisites.** The guide's table of goals and prerequisites is generated from those lines
(between :data:`BEGIN` and :data:`END` in ``chapters/instructor_guide.md``) by ``python -m rnnlab
findings --write`` and checked by ``python -m rnnlab findings`` and
``tests/test_instructor_guide.py``: a goal changed in a chapter changes the guide, and a guide
that disagrees fails the check. The guide's table of student working time is generated the same
way (between :data:`TIME_BEGIN` and :data:`TIME_END`), from :mod:`rnnlab.course.study_time`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from rnnlab.course.findings import splice_between

BEGIN = "<!-- BEGIN GENERATED: chapter goals, python -m rnnlab findings --write -->"
END = "<!-- END GENERATED: chapter goals -->"
TIME_BEGIN = "<!-- BEGIN GENERATED: student working time, python -m rnnlab findings --write -->"
TIME_END = "<!-- END GENERATED: student working time -->"
GUIDE = Path("chapters") / "instructor_guide.md"
#: The chapters of the goals table, in the book's order (names inside ``chapters/``).
CHAPTERS = (
    "01_counting_parameters.ipynb",
    "02_lab_a_classification.ipynb",
    "03_lab_b_generation.ipynb",
    "04_lab_c_composition.ipynb",
    "05_design_depth.ipynb",
    "05_findings.md",
)


@dataclass(frozen=True)
class ChapterGoals:
    """A chapter's title, its learning goals (one Markdown string each) and prerequisites."""

    doc: str
    title: str
    goals: tuple[str, ...]
    prerequisites: str


def _markdown(path: Path) -> str:
    """The Markdown of a chapter: a ``.md`` file's text, a notebook's Markdown cells joined."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return path.read_text(encoding="utf-8")


def _paragraph_after(text: str, label: str) -> str:
    """The text after ``**label**`` up to the next blank line, on one line."""
    start = text.find(f"**{label}**")
    if start < 0:
        return ""
    block = text[start + len(label) + 4 :].split("\n\n", 1)[0]
    return " ".join(block.split())


def chapter_goals(path: str | Path) -> ChapterGoals:
    """Read a chapter's title, **Learning goals.** bullets and **Prerequisites.** paragraph."""
    path = Path(path)
    text = _markdown(path)
    title = re.search(r"^# (.+)$", text, re.M)
    start = text.find("**Learning goals.**")
    if title is None or start < 0:
        raise ValueError(f"{path}: needs a '# ' title and a '**Learning goals.**' list")
    goals, current = [], None
    for line in text[start:].splitlines()[1:]:
        if line.startswith("- "):
            current = [line[2:].strip()]
            goals.append(current)
        elif line.startswith("  ") and current is not None:
            current.append(line.strip())
        elif line.strip() == "" and not goals:
            continue
        else:
            break
    if not goals:
        raise ValueError(f"{path}: the '**Learning goals.**' list has no '- ' items")
    return ChapterGoals(
        doc=path.stem,
        title=title.group(1).strip(),
        goals=tuple(" ".join(g).rstrip(";.") for g in goals),
        prerequisites=_paragraph_after(text, "Prerequisites.").rstrip("."),
    )


def goals_table(root: str | Path) -> str:
    """The guide's goals table (between the markers), from the chapters under ``root``."""
    rows = [chapter_goals(Path(root) / "chapters" / name) for name in CHAPTERS]
    lines = [
        BEGIN,
        "",
        "| Chapter | Students will be able to (the chapter's own learning goals) | Needs first |",
        "|---|---|---|",
    ]
    for r in rows:
        cell = "; ".join(g.replace("|", "\\|") for g in r.goals)
        needs = r.prerequisites.replace("|", "\\|") or "the chapters before it"
        lines.append(f"| {{doc}}`{r.title} <{r.doc}>` | {cell} | {needs} |")
    lines += ["", END]
    return "\n".join(lines)


def time_table(root: str | Path) -> str:
    """The guide's student-working-time block (between the markers), computed from the chapters."""
    from rnnlab.course.study_time import GUIDE_ROWS, guide_table

    return "\n".join([TIME_BEGIN, "", guide_table(root, GUIDE_ROWS), "", TIME_END])


def splice(page: str, block: str, begin: str = BEGIN, end: str = END) -> str:
    """Replace ``page``'s block from ``begin`` to ``end`` (markers included) with ``block``."""
    return splice_between(page, block, begin, end, "the guide")


def generated(root: str | Path, page: str) -> str:
    """``page`` with its goals table and its working-time table regenerated."""
    page = splice(page, goals_table(root))
    return splice(page, time_table(root), TIME_BEGIN, TIME_END)


def write(root: str | Path) -> Path:
    """Regenerate the guide's goals table from the chapters."""
    path = Path(root) / GUIDE
    path.write_text(generated(root, path.read_text(encoding="utf-8")))
    return path


def check(root: str | Path) -> list[str]:
    """Problems (empty: the guide's goals equal the chapters')."""
    text = (Path(root) / GUIDE).read_text(encoding="utf-8")
    if generated(root, text) != text:
        return [f"{GUIDE}: the goals or working-time table differs from the chapters"]
    return []
