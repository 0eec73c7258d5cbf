"""The scale experiment's planning layer: the design as data, measured step times, the plan."""

from __future__ import annotations

import io
import math

import pytest

from rnnlab import scale
from rnnlab.__main__ import main
from rnnlab.sweep import run_sweep


def test_reference_design_is_the_declared_grid(monkeypatch):
    calls = []

    def fake_fit(target, depths, **kw):  # the real one loads the 4.7M-character corpus
        calls.append((target, depths, kw["task"], kw["embedding_dim"]))
        return target + 1

    monkeypatch.setattr("rnnlab.labs.fit_budget", fake_fit)
    design = scale.scale_experiments("reference")
    assert len(design) == 5 * 3 * 3
    assert {e.task for e in design} == {"charlm-stdlib"}
    assert {e.num_layers for e in design} == {1, 2, 4}
    targets = sorted({e.label("budget_target") for e in design})
    assert targets == [25_000, 50_000, 100_000, 200_000, 400_000]
    assert all(b / a == 2 for a, b in zip(targets, targets[1:], strict=False))  # log-spaced
    assert {e.budget for e in design} == {t + 1 for t in targets}  # from fit_budget
    assert all(c[1] == (1, 2, 4) and c[2] == "charlm-stdlib" for c in calls)
    assert sorted({e.label("steps") for e in design}) == [1_500, 6_000, 24_000]
    for e in design:
        t = e.train
        assert t.max_steps == e.label("steps") and t.schedule == "cosine" and t.patience is None
        assert t.batch_size == 32 and dict(e.task_options) == {"seq_len": 128}
        assert e.label("corpus") == "stdlib" and len(e.lr_grid) >= 3
    assert len({e.key for e in design}) == len(design)
    assert scale.scale_seeds("reference") == (0, 1, 2, 3, 4)
    with pytest.raises(ValueError, match="profile must be one of"):
        scale.scale_experiments("huge")


def test_run_seconds_counts_training_and_evaluation():
    e = scale.scale_experiments("smoke")[0]  # 12 steps, eval every 6, n_val 16, n_test 16
    assert e.train.max_steps == 12 and e.train.eval_every == 6 and e.train.batch_size == 8
    # 2 evaluations of 16 + final 16 val + 16 test = 64 windows = 8 batches, a third each
    assert scale.run_seconds(e, 0.5) == pytest.approx((12 + 8 / 3) * 0.5)


def test_step_seconds_measures_once_then_reads_the_cache(tmp_path):
    design = scale.scale_experiments("smoke")
    cache = tmp_path / "t.json"
    measured = scale.step_seconds(design, cache=cache)
    cells = {(e.budget, e.num_layers) for e in design}
    assert set(measured) == cells and all(0 < s < 5 for s in measured.values())

    def fail(e):
        raise AssertionError("measured again despite the cache")

    assert scale.step_seconds(design, cache=cache, measure=fail) == measured
    assert scale.step_seconds(design, cache=tmp_path / "other.json", measure=lambda e: 1.0) == {
        c: 1.0 for c in cells
    }


def test_plan_counts_runs_core_hours_done_and_remaining(tmp_path):
    design = scale.scale_experiments("smoke")  # 2 lengths x 1 budget x 2 depths, one-rate grid
    seeds = (0, 1)
    seconds = {(e.budget, e.num_layers): 0.01 * e.num_layers for e in design}
    expected = sum(2 * scale.run_seconds(e, seconds[(e.budget, e.num_layers)]) for e in design)
    buf = io.StringIO()
    empty = scale.plan(design, seeds, [], seconds=seconds, file=buf)
    assert empty["runs"] == 8 and empty["tune_runs"] == 0 and empty["done_runs"] == 0
    assert empty["core_hours"] == pytest.approx(expected / 3600)
    assert empty["remaining_core_hours"] == pytest.approx(expected / 3600)
    text = buf.getvalue()
    assert "runs: 8 (0 tuning + 8 reporting); done 0; remaining 8" in text
    assert "core-hours (estimated)" in text and "37 min" in text

    # really run two of the eight runs, then plan again with their records
    out = tmp_path / "scale.jsonl"
    records = run_sweep(scale.sweep_spec("smoke", seeds), out, max_runs=2)
    assert len(records) == 2
    first = [e for e in design if e.key == records[0]["experiment_key"]][0]
    half = scale.plan(design, seeds, records, seconds=seconds, file=io.StringIO())
    assert half["done_runs"] == 2 and half["remaining_runs"] == 6
    done = sum(
        scale.run_seconds(e, seconds[(e.budget, e.num_layers)])
        for e in design
        for r in records
        if r["experiment_key"] == e.key
    )
    assert first is not None and half["done_core_hours"] == pytest.approx(done / 3600)
    assert math.isclose(half["done_core_hours"] + half["remaining_core_hours"], expected / 3600)


def test_plan_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RNNLAB_CACHE", str(tmp_path))
    assert main(["plan", "scale", "--profile", "smoke"]) == 0
    text = capsys.readouterr().out
    assert "scale plan: 4 experiments" in text and "runs: 8" in text and "run_sweep" in text
    assert (tmp_path / "step_seconds.json").exists()
    assert main(["plan", "scale", "--profile", "huge"]) == 2
