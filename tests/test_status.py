"""Tests for rnnlab.course.status: the execution-status tables from data/results provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnlab.course import status

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
    assert cpu["commits"] == "0123456, fedcba9" and cpu["n_commits"] == 2
    assert cpu["versions"] == "python 3.11.7, torch 2.13.0"
    assert rows[1]["wall_time"] == "1 h 06 min"
    assert rows[2]["dates"] == "2026-12-01"

    text = status.results_table_markdown(tmp_path)
    lines = text.splitlines()
    assert lines[0].startswith("| File | Lab | Profile | Device | Runs |")
    assert "*python 3.11.7, torch 2.13.0*" in text  # versions below the table, not in a column
    assert "0123456" not in text  # the page counts commits; the files list them
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
    assert "Measured 2026-12-02 on 2 CPU cores" in text
    assert "idle" not in text and "+dirty" not in text  # no internal notes on the page
    slow = status.lab_walltime_markdown(_walltime_file(tmp_path, 31.0))
    assert "| lab-a | 31.0 min | **no** |" in slow


def test_lab_walltime_unmeasured_says_so(tmp_path: Path) -> None:
    assert "has not been measured" in status.lab_walltime_markdown(tmp_path / "missing.json")


def test_scale_results_are_listed_and_archives_are_not(tmp_path: Path) -> None:
    """The scale map's files (``scale/*.jsonl``) are results the book reads; ``v1/`` is not."""
    (tmp_path / "scale").mkdir()
    (tmp_path / "v1").mkdir()
    _write(tmp_path / "lab-a-cpu.jsonl", [_run()])
    _write(tmp_path / "scale" / "reference.jsonl", [_run(lab="scale", profile="reference")])
    _write(tmp_path / "v1" / "lab-a-cpu.jsonl", [_run(seed=9)])
    files = [r["file"] for r in status.load_runs(tmp_path)]
    assert files == ["lab-a-cpu.jsonl", "scale/reference.jsonl"]


def _reporting(spec, seeds=None) -> list[dict]:
    """Minimal reporting records for ``spec``: what ``reporting_progress`` counts."""
    return [
        _run(experiment_key=e.key, seed=s, role="eval", run_id=f"{e.key}|{s}", experiment={})
        for e in spec.experiments
        for s in (spec.seeds if seeds is None else seeds)
    ]


def test_design_progress_counts_reporting_runs_only(tmp_path: Path) -> None:
    from rnnlab.experiments.labs import LABS
    from rnnlab.experiments.scale import sweep_spec

    a, b = LABS["lab-a"].sweep("cpu"), LABS["lab-b"].sweep("cpu")
    tuning = [
        _run(experiment_key=a.experiments[0].key, seed=100, role="tune", run_id="t", experiment={})
    ]
    _write(tmp_path / "lab-a-cpu.jsonl", _reporting(a) + tuning)
    # lab-b: all but the last reporting seed, a duplicate, and a run outside the design
    partial = _reporting(b, b.seeds[:-1])
    _write(
        tmp_path / "lab-b-cpu.jsonl",
        partial
        + partial[:1]
        + [_run(experiment_key="elsewhere", seed=0, role="eval", run_id="x", experiment={})],
    )
    (tmp_path / "scale").mkdir()
    ref = sweep_spec("reference")
    _write(tmp_path / "scale" / "reference.jsonl", _reporting(ref, ref.seeds[:1]))
    rows = {(r["design"], r["profile"]): r for r in status.design_progress(tmp_path)}

    la = rows["lab-a", "cpu"]
    full = len(a.experiments) * len(a.seeds)
    assert (la["state"], la["reporting"], la["expected"]) == ("complete", full, full)
    assert la["runs"] == full + 1 and la["file"] == "lab-a-cpu.jsonl"
    lb = rows["lab-b", "cpu"]
    assert lb["state"] == "provisional"
    assert (lb["reporting"], lb["expected"]) == (
        len(b.experiments) * (len(b.seeds) - 1),
        len(b.experiments) * len(b.seeds),
    )
    sr = rows["scale", "reference"]
    assert sr["state"] == "provisional" and sr["reporting"] == len(ref.experiments)
    assert sr["file"] == "scale/reference.jsonl"
    assert "run-scale --profile reference" in sr["command"]
    # designs without a file are listed as not run, with the command that starts them
    for key in (("lab-c", "cpu"), ("lab-d", "reference"), ("scale", "gpu")):
        assert rows[key]["state"] == "not run" and rows[key]["file"] is None
        assert rows[key]["reporting"] == 0 and rows[key]["expected"] > 0
    assert rows["lab-d", "reference"]["command"] == (
        "python -m rnnlab reproduce --profile reference --labs lab-d"
    )
    assert not any(profile == "smoke" for _, profile in rows)
    assert ("scale-transfer", "reference") not in rows  # the map's transfer check has not run
    # the convergence experiment: not run, its seeds undecided, so its count is a floor
    cr = rows["converge", "reference"]
    assert (cr["state"], cr["file"], cr["reporting"], cr["at_least"]) == ("not run", None, 0, True)
    assert cr["expected"] > 0 and cr["command"].startswith("python -m rnnlab run-converge")
    assert not any(r["at_least"] for key, r in rows.items() if key[0] != "converge")

    text = status.design_progress_text(tmp_path)
    assert "lab-b cpu" in text and "provisional" in text
    assert f"0 of at least {cr['expected']} reporting runs" in text
    assert "python -m rnnlab run-converge --profile reference --jobs 2" in text
    assert "python -m rnnlab reproduce --profile cpu --labs lab-b" in text
    assert "python -m rnnlab reproduce --profile cpu --labs lab-a" not in text  # complete
    table = status.design_progress_markdown(tmp_path)
    assert table.count("\n") == len(rows) + 1 and "**provisional**" in table


def test_design_progress_of_the_committed_results_agrees_with_the_designs() -> None:
    """Every committed file's state is the design's own completeness rule."""
    from rnnlab.experiments.labs import LABS
    from rnnlab.experiments.scale import sweep_spec, transfer_control_spec
    from rnnlab.experiments.store import load_results

    results = ROOT / "data" / "results"
    for row in status.design_progress(results):
        if row["file"] is None:
            continue
        if row["design"] == "converge":  # a staged design: its own progress rule
            from rnnlab.evidence.converge_report import progress

            records = load_results(results / row["file"])
            p = progress(row["profile"], records)
            assert (row["state"] == "complete") == p.final
            assert (row["reporting"], row["expected"], row["runs"]) == (
                p.have, p.wanted, len(records))  # fmt: skip
            continue
        if row["design"] == "scale":
            spec = sweep_spec(row["profile"])
        elif row["design"] == "scale-transfer":  # its rates come from the map's results
            spec = transfer_control_spec(
                row["profile"], load_results(results / "scale" / f"{row['profile']}.jsonl")
            )
        else:
            spec = LABS[row["design"]].sweep(row["profile"])
        records = load_results(results / row["file"])
        assert (row["state"] == "complete") == spec.is_complete(records)
        assert row["runs"] == len(records)


def test_lab_time_reads_provenance_and_the_benchmark(tmp_path: Path) -> None:
    from rnnlab.core.paths import results_dir
    from rnnlab.experiments.store import load_results

    bench = _walltime_file(tmp_path, 12.5)  # measures lab-a only
    records = load_results(results_dir() / "lab-a-cpu.jsonl")
    t = status.lab_time("lab-a", "cpu", bench=bench)
    assert t.runs == len(records) and t.wall_s == 12.5 * 60 and t.jobs == 2
    assert t.compute_s == sum(r["wall_time_s"] for r in records) and t.target_minutes == 30
    assert f"{len(records):,} runs (tuning included)" in t.text() and "12 min 30 s" in t.text()
    none = status.lab_time("lab-b", "cpu", results_dir=tmp_path, bench=bench)
    assert none.runs == 0 and "no measured time" in none.text()
    unmeasured = status.lab_time("lab-d", "cpu", bench=bench)
    assert unmeasured.runs and unmeasured.wall_s is None
    assert "has not been measured" in unmeasured.text()
    assert "| lab-d | not measured |" in status.lab_walltime_markdown(bench)


def test_the_cpu_target_has_one_source() -> None:
    """README's profile table, the profile's target and the benchmark's target are one number."""
    from rnnlab.core.paths import repo_root
    from rnnlab.experiments.profiles import CPU_TARGET_MINUTES, PROFILES

    readme = (repo_root() / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| `cpu` |"))
    assert f"<= {CPU_TARGET_MINUTES} min" in row
    assert f"<= {CPU_TARGET_MINUTES} min" in PROFILES["cpu"].target
    bench = json.loads((repo_root() / "data" / "bench" / "lab-walltime-cpu.json").read_text())
    assert bench["target_minutes"] == CPU_TARGET_MINUTES


def test_the_colab_target_has_one_source() -> None:
    """README's colab row and its sentence on the check name the declared target."""
    from rnnlab.core.paths import repo_root
    from rnnlab.experiments.labs import COLAB_TARGET_MINUTES
    from rnnlab.experiments.profiles import PROFILES

    readme = (repo_root() / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| `colab` |"))
    assert f"about {COLAB_TARGET_MINUTES:g} min" in row and "COLAB_TARGET_MINUTES" in row
    assert f"keeps every lab within {COLAB_TARGET_MINUTES:g} min" in readme
    assert f"{COLAB_TARGET_MINUTES:g} min" in PROFILES["colab"].target
