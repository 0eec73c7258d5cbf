"""Tests for rnnlab.status: the execution-status tables from data/results provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnlab import status

ROOT = Path(__file__).resolve().parents[1]


def _run(**overrides) -> dict:
    run = {
        "lab": "A",
        "profile": "cpu",
        "seed": 0,
        "device": "cpu",
        "versions": {"torch": "2.13.0", "python": "3.11.7"},
        "wall_time_s": 30.0,
        "git_commit": "0123456789abcdef",
        "started_at": "2026-11-30T10:00:00+00:00",
        "metrics": {"accuracy": 0.9},
    }
    run.update(overrides)
    return run


def _write(path: Path, runs: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in runs))


def test_no_results_says_so(tmp_path: Path) -> None:
    for folder in (tmp_path / "missing", tmp_path):
        text = status.results_table_markdown(folder)
        assert text.startswith("No reference results are committed yet")
        assert "|" not in text


def test_summary_groups_and_totals(tmp_path: Path) -> None:
    _write(
        tmp_path / "lab_a-cpu.jsonl",
        [
            _run(seed=0),
            _run(seed=1, wall_time_s=45.5, started_at="2026-12-02T23:30:00Z"),
            _run(seed=1, git_commit="fedcba9876543210"),  # a rerun of seed 1
            _run(device="cuda", device_name="Tesla T4", wall_time_s=4000.0),
        ],
    )
    _write(tmp_path / "lab_b-cpu.jsonl", [_run(lab="B", started_at="2026-12-01T08:00:00")])
    (tmp_path / "notes.txt").write_text("not a results file")
    rows = status.summarize_runs(status.load_runs(tmp_path))
    assert [(r["file"], r["device"], r["runs"]) for r in rows] == [
        ("lab_a-cpu.jsonl", "cpu", 3),
        ("lab_a-cpu.jsonl", "cuda (Tesla T4)", 1),
        ("lab_b-cpu.jsonl", "cpu", 1),
    ]
    cpu = rows[0]
    assert cpu["seeds"] == 2
    assert cpu["wall_time_s"] == pytest.approx(105.5)
    assert cpu["wall_time"] == "1 min 46 s"
    assert cpu["dates"] == "2026-11-30 to 2026-12-02"
    assert cpu["commits"] == "0123456, fedcba9"
    assert cpu["versions"] == "python 3.11.7, torch 2.13.0"
    assert rows[1]["wall_time"] == "1 h 06 min"
    assert rows[2]["dates"] == "2026-12-01"

    text = status.results_table_markdown(tmp_path)
    lines = text.splitlines()
    assert lines[0].startswith("| File | Lab | Profile | Device | Versions | Runs |")
    assert len(lines[2].split(" | ")) == len(status.COLUMNS)
    assert "5 runs in 2 files" in text


def test_dates_are_utc() -> None:
    late = _run(started_at="2026-11-30T23:30:00-05:00")  # 04:30 UTC on Dec 1
    assert status.summarize_runs([late])[0]["dates"] == "2026-12-01"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", r"x\.jsonl line 2: not valid JSON"),
        ("[1, 2]", r"x\.jsonl line 2: expected a JSON object"),
        (json.dumps({"lab": "A"}), r"x\.jsonl line 2: missing keys \['profile'"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    (tmp_path / "x.jsonl").write_text(json.dumps(_run()) + "\n" + line + "\n\n")
    with pytest.raises(ValueError, match=message):
        status.load_runs(tmp_path)


def test_pipes_are_escaped() -> None:
    table = status.markdown_table([{"a": "x|y"}], [("a", "A")])
    assert table.splitlines()[2] == "| x\\|y |"


@settings(max_examples=50, deadline=None)
@given(st.floats(min_value=0, max_value=1e6, allow_nan=False))
def test_format_duration_round_trips_to_the_minute(seconds: float) -> None:
    text = status.format_duration(seconds)
    parts = text.split()
    if parts[1] == "s":
        assert float(parts[0]) == pytest.approx(
            seconds, abs=0.05 + 1e-9
        )  # to 0.1 s; 1.25 may print as 1.2
    elif parts[1] == "min":
        assert int(parts[0]) * 60 + int(parts[2]) == round(seconds)
    else:
        assert abs(int(parts[0]) * 3600 + int(parts[2]) * 60 - seconds) <= 60


def test_format_duration_rejects_negative() -> None:
    with pytest.raises(ValueError, match="seconds must be a number >= 0, got -1"):
        status.format_duration(-1)


def test_committed_results_are_readable() -> None:
    """Whatever is committed in data/results parses and renders (also when there is nothing)."""
    text = status.results_table_markdown(ROOT / "data" / "results")
    assert text


def test_build_environment_names_the_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RNNLAB_PROFILE", "smoke")
    assert "`RNNLAB_PROFILE=smoke`" in status.build_environment_markdown()


def _walltime_file(tmp_path: Path, minutes: float) -> Path:
    row = {
        "lab": "lab-a", "profile": "cpu", "jobs": 2, "wall_seconds": minutes * 60,
        "wall_minutes": minutes, "load_average_before": [0.5, 0.4, 0.3],
        "load_average_after": [2.0, 1.8, 1.1],
        "reproduces_committed": {"runs_new": 117, "runs_committed": 117, "common": 117,
                                 "identical": 117, "max_abs_test_difference": 0.0},
    }  # fmt: skip
    prov = {"date": "2026-12-02T00:19:11+00:00", "cpu_count": 2, "processor": "x86_64",
            "torch": "2.13.0+cpu", "git_commit": "c7ac2024a1b2", "command": "python x",
            "note": "idle"}  # fmt: skip
    path = tmp_path / "lab-walltime-cpu.json"
    path.write_text(json.dumps({"provenance": prov, "target_minutes": 30, "rows": [row]}))
    return path


def test_lab_walltime_table_checks_the_target(tmp_path: Path) -> None:
    text = status.lab_walltime_markdown(_walltime_file(tmp_path, 12.4))
    assert "| lab-a | 12.4 min | yes | 2 | 117 of 117 runs identical" in text
    assert "Measured 2026-12-02 on 2 CPU cores" in text and "; idle." in text
    slow = status.lab_walltime_markdown(_walltime_file(tmp_path, 31.0))
    assert "| lab-a | 31.0 min | **no** |" in slow


def test_lab_walltime_unmeasured_says_so(tmp_path: Path) -> None:
    assert "has not been measured" in status.lab_walltime_markdown(tmp_path / "missing.json")
