"""The run options bundle (rnnlab.experiments.options.RunOptions), the command line's one place
that builds it, and run-converge on the shared console runner (--scheduler, its exit status)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

import rnnlab.experiments.sweep as sweep
from rnnlab.__main__ import build_parser, main, run_options
from rnnlab.experiments import scale
from rnnlab.experiments.options import RunOptions

CONVERGE = ["run-converge", "--profile", "smoke", "--jobs", "1"]


@pytest.mark.parametrize(
    "fields, message",
    [
        (dict(jobs=0), "--jobs must be an integer >= 1, got 0"),
        (dict(jobs=-2), "--jobs must be an integer >= 1, got -2"),
        (dict(jobs=True), "--jobs must be an integer >= 1, got True"),
        (dict(jobs=1.5), "--jobs must be an integer >= 1, got 1.5"),
        (dict(threads=0), "--threads must be an integer >= 1, got 0"),
        (dict(max_runs=0), "--max-runs must be an integer >= 1, got 0"),
        (dict(device="bogus"), "--device must be 'auto', 'cpu', 'cuda[:i]' or 'mps', got 'bogus'"),
        (dict(device=3), "--device must be 'auto', 'cpu', 'cuda[:i]' or 'mps', got 3"),
        (dict(scheduler=""), "--scheduler must be a Dask scheduler's address"),
        (dict(checkpoint_dir=3), "--checkpoint-dir must be a path, got 3"),
        (dict(stop_file=""), "stop_file must be a path, got ''"),
    ],
)
def test_bad_options_are_a_value_error_naming_the_option(fields, message):
    with pytest.raises(ValueError) as info:
        RunOptions(**fields)
    assert message in str(info.value)


def test_options_default_to_one_run_here_and_replace_checks_again(tmp_path):
    default = RunOptions()
    assert (default.jobs, default.device, default.threads, default.scheduler) == (
        1,
        None,
        None,
        None,
    )
    assert default.checkpoint_dir is default.max_runs is default.stop_file is None
    given = RunOptions(jobs=2, device="cpu", checkpoint_dir=str(tmp_path), stop_file="x.drain")
    assert given.checkpoint_dir == tmp_path and given.stop_file == Path("x.drain")  # paths
    with pytest.raises(dataclasses.FrozenInstanceError):
        given.jobs = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="--jobs must be an integer >= 1, got 0"):
        dataclasses.replace(given, jobs=0)


def test_the_command_line_builds_the_options_once_from_its_arguments(monkeypatch, tmp_path):
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://head:8786")
    parser = build_parser()
    args = parser.parse_args(["run", "lab-c", "--jobs", "3", "--threads", "2", "--device", "cpu"])
    assert run_options(args) == RunOptions(
        jobs=3, threads=2, device="cpu", scheduler="tcp://head:8786"
    )  # --scheduler unset: $DASK_SCHEDULER_ADDRESS
    args = parser.parse_args(["run-scale", "--max-runs", "4", "--checkpoint-dir", str(tmp_path)])
    assert run_options(args) == RunOptions(
        jobs=2, max_runs=4, checkpoint_dir=tmp_path, scheduler="tcp://head:8786"
    )
    args = parser.parse_args(["run-converge", "--scheduler", "tcp://other:1"])
    assert run_options(args, stop_file=tmp_path / "d").scheduler == "tcp://other:1"
    args = parser.parse_args(["reproduce", "--jobs", "0"])
    with pytest.raises(ValueError, match="--jobs must be an integer >= 1, got 0"):
        run_options(args)


def test_the_scale_command_line_shows_its_options():
    assert scale.run_command("smoke", "s.jsonl") == (
        "python -m rnnlab run-scale --profile smoke --jobs 2 --out s.jsonl"
    )
    assert scale.run_command("smoke", "s.jsonl", RunOptions(jobs=4, device="cpu", threads=1)) == (
        "python -m rnnlab run-scale --profile smoke --jobs 4 --device cpu --threads 1 --out s.jsonl"
    )


# ----------------------------------------------------------------------------- run-converge


def test_run_converge_refuses_bad_options_in_one_line_before_any_run(tmp_path, capsys):
    out = tmp_path / "c.jsonl"
    for flag, value in [
        ("--jobs", "0"),
        ("--threads", "0"),
        ("--max-runs", "0"),
        ("--device", "x"),
    ]:
        assert main([*CONVERGE, "--out", str(out), flag, value]) == 2
        captured = capsys.readouterr()
        (line,) = captured.err.strip().splitlines()
        assert line.startswith(f"error: {flag} must be ")
        assert line.endswith((f"got {value}", f"got '{value}'"))
        assert captured.out == "" and not out.exists()


def test_run_converge_with_an_unreachable_scheduler_is_one_line_and_exit_2(
    tmp_path, capsys, monkeypatch
):
    pytest.importorskip("distributed")
    monkeypatch.setenv("RNNLAB_DASK_TIMEOUT", "1")
    addr = "tcp://127.0.0.1:9"  # nothing listens on the discard port
    out = tmp_path / "c.jsonl"
    assert main([*CONVERGE, "--out", str(out), "--scheduler", addr]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("error: ") and f"cannot reach the Dask scheduler at {addr}" in line
    assert not any(row.startswith("[") for row in captured.out.splitlines())  # no run recorded
    assert not out.exists() and not Path(f"{out}.drain").exists()  # no run, no empty file, no drain


@pytest.mark.parametrize(
    "command",
    [
        ["run", "lab-c", "--profile", "smoke"],
        ["run-scale", "--profile", "smoke"],
        ["run-scale", "--profile", "smoke", "--transfer-control"],
        CONVERGE,
        ["reproduce", "--profile", "smoke", "--labs", "lab-c"],
    ],
)
def test_every_training_command_honours_scheduler(command, monkeypatch):
    """Every command that trains offers --scheduler (else $DASK_SCHEDULER_ADDRESS), through the
    same parser helper, into the one options bundle."""
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    args = build_parser().parse_args([*command, "--scheduler", "tcp://h:1"])
    assert run_options(args).scheduler == "tcp://h:1"
    assert run_options(build_parser().parse_args(command)).scheduler is None


def test_run_scale_with_an_unreachable_scheduler_is_one_line_and_exit_2(
    tmp_path, capsys, monkeypatch
):
    pytest.importorskip("distributed")
    monkeypatch.setenv("RNNLAB_DASK_TIMEOUT", "1")
    addr = "tcp://127.0.0.1:9"
    out = tmp_path / "s.jsonl"
    assert main(["run-scale", "--profile", "smoke", "--out", str(out), "--scheduler", addr]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: ") and f"cannot reach the Dask scheduler at {addr}" in line
    assert not out.exists()  # no run recorded, no empty file left behind


def test_run_converge_exits_nonzero_when_a_run_fails(tmp_path, capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("simulated crash")

    monkeypatch.setattr(sweep, "run_unit", broken)
    out = tmp_path / "c.jsonl"
    assert main([*CONVERGE, "--out", str(out)]) == 1
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[:4] == [  # the header
        f"converge smoke: 0 runs already in {out}",
        f"to stop after the runs in progress (nothing lost): touch {out}.drain",
        f"to stop now (each run in flight saves its step): kill {os.getpid()}",
        "note: the smoke profile checks code paths only; its numbers are not evidence.",
    ]
    failed = [line for line in lines if line.startswith("FAILED")]
    assert failed and all("simulated crash" in line for line in failed)
    assert f"error: {len(failed)} run(s) failed" in captured.err
    assert Path(f"{out}.failed").exists() and not Path(f"{out}.drain").exists()


def test_the_progress_count_follows_a_plan_that_grows_as_stages_are_decided(capsys):
    """A staged design plans more runs once a stage is decided: the log never says [63/40]."""
    from rnnlab.experiments.console import console_log

    rec = {"task": "t", "budget": 1, "num_layers": 1, "model": {"hidden_size": 2}, "role": "tune",
           "seed": 0, "lr": 0.1, "metrics": {"val": 1.0, "test": 1.0, "steps": 3},
           "wall_time_s": 0.1}  # fmt: skip
    plans = iter([5, 5])
    on_record, _ = console_log(2, already=1, recount=lambda: next(plans))
    for _ in range(4):
        on_record(rec)
    counts = [line.split("]")[0] for line in capsys.readouterr().out.splitlines()]
    assert counts == ["[2/2", "[3/5", "[4/5", "[5/5"]
