"""How long a student needs for a chapter, computed from the chapter itself.

Reading time is the chapter's words over one declared reading speed; exercise time is the
chapter's exercises, each counted by kind, times one declared number of minutes per kind. Both
numbers are declared here once and named on every page that shows a time (the instructor guide's
table, each chapter's **Time.** line), so a chapter that grows reads as longer and nobody types a
time.

- Words: the words of the chapter's Markdown (a notebook's Markdown cells; code, formulas and
  figures are not counted, so the reading time is a lower bound for a technical text).
- Exercises: every ``{exercise}`` directive. Each self-check called after the first exercise
  is one exercise of the check's kind (:func:`exercise_kind`); the exercises left over have no
  self-check and are discussion questions (their answers are in dropdowns). A chapter may place an
  exercise's code away from its text, so kinds are counted per chapter, not matched one by one.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

READING_WORDS_PER_MINUTE = 238
"""Silent reading of English non-fiction by adults: 238 words per minute, the mean of
:data:`READING_SOURCE`."""

READING_SOURCE = (
    "Brysbaert (2019), How many words do we read per minute? A review and meta-analysis of "
    "reading rate, Journal of Memory and Language 109"
)

EXERCISE_MINUTES = {
    "prediction": 5,
    "multiple choice": 3,
    "function": 10,
    "run": 15,
    "discussion": 8,
}
"""Minutes a student needs for one exercise of each kind: the authors' estimates, not measured in
a class (``run``: setting up and reading a run, without its training time)."""


def exercise_kind(check: str) -> str:
    """The kind of an exercise from the name of its self-check: ``*_prediction`` a prediction,
    ``*_answer`` multiple choice, ``check_own_text_record`` a run, any other a function."""
    if check.endswith("_prediction"):
        return "prediction"
    if check.endswith("_answer"):
        return "multiple choice"
    if check == "check_own_text_record":
        return "run"
    return "function"


@dataclass(frozen=True)
class StudyTime:
    """A chapter's words and exercises, and the times computed from them."""

    chapter: str
    words: int
    exercises: tuple[str, ...]  # the kind of each exercise, in order

    @property
    def reading_minutes(self) -> int:
        """``words / READING_WORDS_PER_MINUTE``, rounded up to a whole minute."""
        return math.ceil(self.words / READING_WORDS_PER_MINUTE)

    @property
    def exercise_minutes(self) -> int:
        """The sum of :data:`EXERCISE_MINUTES` over the exercises."""
        return sum(EXERCISE_MINUTES[k] for k in self.exercises)

    def exercise_counts(self) -> str:
        """``"2 function, 1 prediction"`` (kinds in :data:`EXERCISE_MINUTES`' order)."""
        n = {k: self.exercises.count(k) for k in EXERCISE_MINUTES if k in self.exercises}
        return ", ".join(f"{c} {k}" for k, c in n.items()) or "none"

    def time_line(self) -> str:
        """The chapter's **Time.** sentence, with how each number was computed."""
        exercises = (
            f"{self.exercise_minutes} for its {len(self.exercises)} exercises "
            f"({self.exercise_counts()}; {minutes_per_kind()})"
            if self.exercises
            else "no exercises"
        )
        return (
            f"**Time.** At least {self.reading_minutes} minutes of reading (estimated from "
            f"{self.words:,} words at {READING_WORDS_PER_MINUTE} words per minute) and {exercises}."
        )


def minutes_per_kind() -> str:
    """``"minutes per exercise: prediction 5, ..."``, the declared estimates."""
    return "minutes per exercise, estimated: " + ", ".join(
        f"{k} {m}" for k, m in EXERCISE_MINUTES.items()
    )


GUIDE_ROWS: dict[str, tuple[str, str | None]] = {
    "01_counting_parameters.ipynb": ("1. Counting parameters", None),
    "02_lab_a_classification.ipynb": ("Lab A", "lab-a"),
    "03_lab_b_generation.ipynb": ("Lab B", "lab-b"),
    "04_lab_c_composition.ipynb": ("Lab C", "lab-c"),
    "05_design_depth.ipynb": ("Design chapter (Lab D)", "lab-d"),
    "05_findings.md": ("Findings", None),
}
"""The rows of the instructor guide's working-time table: file, name, the lab it trains."""

_EXERCISE = re.compile(r"```\{exercise\}")
_CHECK = re.compile(r"\b(check_\w+)\(")


def study_time(path: str | Path) -> StudyTime:
    """Count the words and exercises of a chapter (a notebook or a Markdown page)."""
    path = Path(path)
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        cells = [(c["cell_type"], "".join(c["source"])) for c in cells]
    else:
        cells = [("markdown", path.read_text(encoding="utf-8"))]
    words, exercises, checks = 0, 0, []
    for kind, source in cells:
        if kind == "markdown":
            words += len(source.split())
            exercises += len(_EXERCISE.findall(source))
        elif kind == "code" and exercises:
            checks += _CHECK.findall(source)
    kinds = [exercise_kind(c) for c in checks] + ["discussion"] * max(0, exercises - len(checks))
    kinds.sort(key=list(EXERCISE_MINUTES).index)
    return StudyTime(chapter=path.stem, words=words, exercises=tuple(kinds))


def chapter_time_line(name: str, root: str | Path | None = None) -> str:
    """The **Time.** sentence of ``chapters/<name>`` (``root``: the course; default the one
    :func:`rnnlab.core.paths.repo_root` finds)."""
    if root is None:
        from rnnlab.core.paths import repo_root

        root = repo_root()
    return study_time(Path(root) / "chapters" / name).time_line()


def guide_table(root: str | Path, chapters: dict[str, tuple[str, str | None]]) -> str:
    """The instructor guide's table of student working time.

    ``chapters`` maps a chapter's file name (in ``chapters/``) to its name in the table and the
    lab whose committed cpu results it reads (None: it trains nothing)."""
    from rnnlab.course import status

    lines = [
        "| Chapter | Words | Reading (at least) | Exercises | Exercise time "
        "| Training it yourself (`cpu`, measured) |",
        "|---|---|---|---|---|---|",
    ]
    for name, (title, lab) in chapters.items():
        t = study_time(Path(root) / "chapters" / name)
        run = status.lab_time(lab, "cpu").text() if lab else "no training"
        lines.append(
            f"| {title} | {t.words:,} | {t.reading_minutes} min | {t.exercise_counts()} | "
            f"{f'{t.exercise_minutes} min' if t.exercises else 'none'} | {run} |"
        )
    lines += [
        "",
        f"Reading time is estimated from each chapter's words (its Markdown; code, formulas and "
        f"figures not counted, so a lower bound) at {READING_WORDS_PER_MINUTE} words per minute, "
        f"the mean silent reading rate of English non-fiction in {READING_SOURCE}. Exercise time "
        f"is the number of exercises of each kind times the {minutes_per_kind()}.",
    ]
    return "\n".join(lines)
