"""Tests for rnnlab.course.study_time: times computed from words and exercises, never typed."""

from __future__ import annotations

import json
import re
from pathlib import Path

from rnnlab.course import study_time
from rnnlab.course.study_time import EXERCISE_MINUTES, READING_WORDS_PER_MINUTE

ROOT = Path(__file__).resolve().parents[1]


def _notebook(tmp_path: Path, markdown: list[str], code: list[str]) -> Path:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": m} for m in markdown]
    cells += [{"cell_type": "code", "metadata": {}, "source": c, "outputs": []} for c in code]
    path = tmp_path / "nb.ipynb"
    path.write_text(
        json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    return path


def test_reading_time_follows_the_words(tmp_path) -> None:
    words = " ".join(["word"] * (3 * READING_WORDS_PER_MINUTE + 1))
    t = study_time.study_time(_notebook(tmp_path, [words], []))
    assert t.words == 3 * READING_WORDS_PER_MINUTE + 1 and t.reading_minutes == 4
    assert f"{t.words:,} words at {READING_WORDS_PER_MINUTE} words per minute" in t.time_line()


def test_exercise_time_is_the_count_of_each_kind_times_its_minutes(tmp_path) -> None:
    ex = "```{exercise} X\n:label: x\n```"
    path = _notebook(
        tmp_path,
        ["intro", ex, ex, ex, ex],
        ["check_a_prediction(1)", "check_b_answer('B')", "check_count(f)"],
    )
    t = study_time.study_time(path)
    assert sorted(t.exercises) == ["discussion", "function", "multiple choice", "prediction"]
    assert t.exercise_minutes == sum(EXERCISE_MINUTES[k] for k in t.exercises)
    assert "1 prediction, 1 multiple choice, 1 function, 1 discussion" in t.time_line()


def test_every_chapter_states_its_time_through_the_library() -> None:
    """No chapter types a reading or exercise time: its **Time.** line is computed."""
    for path in sorted((ROOT / "chapters").glob("0*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        assert "**Time.**" not in markdown, path.name
        assert not re.search(r"\babout \d+ minutes\b", markdown, re.I), path.name
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        assert f'chapter_time_line("{path.name}")' in code, path.name


def test_the_guide_table_says_how_it_was_computed() -> None:
    table = study_time.guide_table(ROOT, study_time.GUIDE_ROWS)
    assert f"{READING_WORDS_PER_MINUTE} words per minute" in table and "Brysbaert" in table
    assert study_time.minutes_per_kind() in table
    assert len(table.splitlines()) == 2 + len(study_time.GUIDE_ROWS) + 2
