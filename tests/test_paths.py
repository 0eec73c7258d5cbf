"""rnnlab.core.paths.shown_path: notebook output names run files without a machine's build
folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from rnnlab.core.paths import repo_root, shown_path


def test_runs_dir_from_the_environment_is_named_by_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RNNLAB_RUNS_DIR", str(tmp_path / "_build" / "runs"))
    shown = shown_path(tmp_path / "_build" / "runs" / "lab-a-smoke.jsonl")
    assert shown == "$RNNLAB_RUNS_DIR/lab-a-smoke.jsonl"
    assert str(tmp_path) not in shown


def test_default_runs_dir_and_repository_files_are_relative(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RNNLAB_RUNS_DIR", raising=False)
    root = repo_root()
    assert shown_path(root / "runs" / "lab-c-cpu.jsonl") == "runs/lab-c-cpu.jsonl"
    assert shown_path(root / "data" / "results" / "x.jsonl") == "data/results/x.jsonl"


def test_other_paths_are_printed_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RNNLAB_RUNS_DIR", raising=False)
    assert shown_path(tmp_path / "mine.jsonl") == str(tmp_path / "mine.jsonl")
