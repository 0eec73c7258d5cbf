"""A sweep that ends by a given time (--until): which runs fit, what a run has left, and the
sweep that passes over the runs that would not end in time for the ones that would."""

from __future__ import annotations

import datetime as dt
import os

import pytest
from tests.test_converge import _tiny
from tests.test_sweep import small_spec

from rnnlab.__main__ import main
from rnnlab.core.config import own_wall_time_s
from rnnlab.experiments import converge
from rnnlab.experiments.converge.timing import seconds_left
from rnnlab.experiments.deadline import fits, parse_until, saved_step
from rnnlab.experiments.experiment import fork_path, run_id
from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.store import load_results
from rnnlab.experiments.sweep import pending_units, run_sweep
from rnnlab.experiments.unit import run_unit

UTC = dt.timezone.utc
NOW = dt.datetime(2026, 12, 5, 6, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("90m", NOW + dt.timedelta(minutes=90)),
        ("2h30m", NOW + dt.timedelta(hours=2, minutes=30)),
        ("45s", NOW + dt.timedelta(seconds=45)),
        ("08:30", NOW.replace(hour=8, minute=30)),
        ("6:00", NOW.replace(hour=6, minute=0) + dt.timedelta(days=1)),  # passed: tomorrow's
        ("2026-12-05T09:10:00+00:00", NOW.replace(hour=9, minute=10)),
        ("2026-12-05 09:10", NOW.replace(hour=9, minute=10)),  # no zone: the clock's own
    ],
)
def test_until_reads_a_clock_time_a_date_and_time_or_a_duration(text, expected):
    assert parse_until(text, NOW) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("soon", "--until must be a clock time such as 08:30"),
        ("25:00", "--until must be a clock time such as 08:30"),
        ("", "--until must be a clock time such as 08:30"),
        ("h", "--until must be a clock time such as 08:30"),
        ("2026-12-05T06:00+00:00", "--until must be in the future"),
    ],
)
def test_a_bad_until_is_a_value_error_naming_the_option(text, message):
    with pytest.raises(ValueError, match=message) as err:
        parse_until(text, NOW)
    assert repr(text) in str(err.value)


def test_the_options_take_only_an_aware_datetime():
    with pytest.raises(ValueError, match="--until must be a date and time with a time zone"):
        RunOptions(until=dt.datetime(2026, 12, 5, 8, 0))
    with pytest.raises(ValueError, match="--until must be"):
        RunOptions(until="08:00")
    assert RunOptions(until=NOW).until == NOW


def test_a_run_fits_with_the_margin_and_an_unknown_one_never_does():
    assert fits(100, now=0, until=120, margin=1.2)
    assert not fits(100, now=0, until=119, margin=1.2)
    for unknown in (None, float("nan"), float("inf"), -1.0):
        assert not fits(unknown, now=0, until=1e12)


def test_a_deadline_without_an_estimate_is_refused(tmp_path):
    opts = RunOptions(until=dt.datetime.now(UTC) + dt.timedelta(hours=1))
    with pytest.raises(ValueError, match="--until needs a sweep that estimates"):
        run_sweep(small_spec(), tmp_path / "r.jsonl", options=opts)
    assert not (tmp_path / "r.jsonl").exists()


def test_the_sweep_passes_over_runs_that_would_not_end_in_time_for_ones_that_would(tmp_path):
    """Experiment 0's runs are estimated at a day, experiment 1's at nothing: with an hour left
    every run of experiment 1 is made, none of experiment 0,
    the sweep returns with nothing in flight and lists what it held back; without the deadline
    the same command makes the rest."""
    spec = small_spec(n_exp=2, seeds=(0, 1))
    long_key = spec.experiments[0].key
    asked: list[str] = []

    def estimate(unit, records):
        asked.append(unit[0].key)
        return 86_400.0 if unit[0].key == long_key else 0.0

    out = tmp_path / "r.jsonl"
    until = dt.datetime.now(UTC) + dt.timedelta(hours=1)
    recs = run_sweep(spec, out, options=RunOptions(until=until), estimate=estimate)
    assert recs and {r["experiment_key"] for r in recs} == {spec.experiments[1].key}
    assert sorted(r["seed"] for r in recs if r["role"] == "eval") == [0, 1]  # all of them
    assert long_key in asked
    held = [run_id(*u) for u in pending_units(spec, recs)]
    assert held and sorted(recs.held_back) == sorted(held)  # all of experiment 0, nothing more
    before = out.read_text()
    rest = run_sweep(spec, out)
    assert spec.is_complete(rest) and rest.held_back == []
    assert out.read_text().startswith(before)  # nothing made twice or rewritten


def test_a_deadline_already_too_close_starts_nothing(tmp_path):
    spec = small_spec(n_exp=1, seeds=(0,))
    out = tmp_path / "r.jsonl"
    until = dt.datetime.now(UTC) + dt.timedelta(seconds=10)
    recs = run_sweep(spec, out, options=RunOptions(until=until), estimate=lambda u, r: 60.0)
    assert list(recs) == [] and recs.held_back and not load_results(out)


def test_a_run_is_estimated_from_the_step_its_fork_or_checkpoint_saved(tmp_path):
    """The 40-step run leaves a fork at step 15 for its 20-step sibling, which then has 5 steps
    left; moved to the sibling's own checkpoint (as the run does when it starts) it counts the
    same; a damaged file counts as step 0 (the run would start again)."""
    ckpt = tmp_path / "ckpt"
    kw = dict(lab=converge.LAB, profile="smoke", role="eval", seed=1, lr=4e-3)
    long = run_unit(_tiny(40), **kw, checkpoint_dir=ckpt)
    unit = (_tiny(20), "eval", 1, 4e-3)
    fork = fork_path(ckpt, *unit)
    assert fork.exists() and saved_step(ckpt, run_id(*unit), fork) == 15
    per_step = own_wall_time_s(long) / 40
    estimate = seconds_left(converge.design("smoke"), ckpt, timings={})
    assert estimate(unit, [long]) == pytest.approx(5 * per_step)
    assert estimate((_tiny(40), "eval", 2, 4e-3), [long]) == pytest.approx(40 * per_step)
    own = ckpt / f"{run_id(*unit)}.pt"
    os.replace(fork, own)
    assert saved_step(ckpt, run_id(*unit)) == 15
    assert estimate(unit, [long]) == pytest.approx(5 * per_step)
    own.write_bytes(b"not a checkpoint")
    assert saved_step(ckpt, run_id(*unit)) == 0
    assert saved_step(None, run_id(*unit)) == 0
    # no run of that budget and depth, and no benchmark: unknown, so it would not start
    assert estimate(unit, []) is None


def test_a_cell_without_runs_is_estimated_from_the_benchmark_scaled_by_the_measured_ratio():
    d = converge.design("smoke")
    (budget,) = d.budgets
    timings = {"cells": [
        {"budget": budget, "num_layers": k, "batch_size": 32, "seq_len": 128,
         "embedding_dim": 32, "step_s_median": s} for k, s in [(1, 0.01), (2, 0.02)]
    ]}  # fmt: skip
    measured = {
        "budget": budget,
        "num_layers": 1,
        "wall_time_s": 3.0,
        "metrics": {"steps": 100, "wall_time_s": 3.0},
    }  # fmt: skip: 0.03 s/step, 3x
    exp = _tiny(40)
    assert exp.budget == budget and exp.num_layers == 2
    estimate = seconds_left(d, None, timings=timings)
    assert estimate((exp, "eval", 0, 4e-3), [measured]) == pytest.approx(40 * 3 * 0.02)
    assert estimate((exp, "eval", 0, 4e-3), []) == pytest.approx(40 * 0.02)  # ratio 1


def test_run_converge_until_prints_the_deadline_and_what_it_held_back(
    tmp_path, capsys, monkeypatch
):
    """The command prints its deadline, and what it held back when it returns. The estimator
    is replaced by one that says every run takes a day, so that no smoke run (each under a
    second) can fit by chance; the real estimator is tested above."""
    from rnnlab.experiments.converge import timing

    out = tmp_path / "c.jsonl"
    cmd = ["run-converge", "--profile", "smoke", "--jobs", "1", "--out", str(out)]
    monkeypatch.setattr(timing, "seconds_left", lambda *a, **k: lambda unit, recs: 86_400.0)
    assert main([*cmd, "--until", "2h"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("until ") and "expected to end by then" in line for line in lines)
    (held,) = [line for line in lines if "could start but none was expected to end by" in line]
    assert held.startswith("converge smoke: ") and held.endswith("; rerun to go on")
    assert not out.exists() or not load_results(out)
    monkeypatch.undo()
    # with a real estimate and time enough, runs are made and nothing is reported held back
    assert main([*cmd, "--until", "2h", "--max-runs", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(load_results(out)) == 2
    assert not any("could start but none" in line for line in lines)
    assert main([*cmd, "--until", "later"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: --until must be a clock time") and line.endswith("'later'")


def test_a_deadline_prices_a_run_by_the_newest_runs_of_its_cell():
    """A sitting's machine may differ from the last one's: the newest RECENT_RUNS runs of the
    cell set the step time, not every run since the start."""
    from rnnlab.experiments.converge.timing import RECENT_RUNS

    exp = _tiny(40)

    def run(seconds_per_step: float) -> dict:
        return {"budget": exp.budget, "num_layers": exp.num_layers, "wall_time_s":
                100 * seconds_per_step, "metrics": {"steps": 100}}  # fmt: skip

    old, new = [run(0.09)] * 20, [run(0.05)] * RECENT_RUNS
    estimate = seconds_left(converge.design("smoke"), None, timings={})
    assert estimate((exp, "eval", 0, 4e-3), old + new) == pytest.approx(40 * 0.05)
    assert estimate((exp, "eval", 0, 4e-3), old) == pytest.approx(40 * 0.09)


def doctest_ok(module) -> bool:
    import doctest

    return doctest.testmod(module).failed == 0


def test_the_module_examples_hold():
    import doctest

    from rnnlab.experiments import deadline

    assert doctest.testmod(deadline).failed == 0


def test_the_estimate_benchmark_replays_every_committed_run():
    """benchmarks/bench_deadline_estimate.py (which measured MARGIN) prices each committed run
    from the runs written before it: one ratio per run that paid steps itself."""
    import importlib.util

    from rnnlab.core.paths import repo_root

    path = repo_root() / "benchmarks" / "bench_deadline_estimate.py"
    spec = importlib.util.spec_from_file_location("bench_deadline_estimate", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    records = load_results(converge.default_out("reference"))
    from rnnlab.experiments.converge import timing

    assert doctest_ok(timing)
    paid = [r for r in records if timing.paid_steps(r) > 0]
    ratios = bench.replay("reference")
    assert len(ratios["all"]["recent"]) == len(paid) > 0
    assert all(x > 0 for x in ratios["all"]["recent"])
