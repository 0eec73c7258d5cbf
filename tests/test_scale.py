"""The scale experiment: the design as data, the rate transfer, the plan, the run command."""

from __future__ import annotations

import io
import json
import math

import pytest

from rnnlab.__main__ import main
from rnnlab.evidence import scalemap
from rnnlab.experiments import scale, scale_plan
from rnnlab.experiments.experiment import TUNE_SEEDS
from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.store import load_results
from rnnlab.experiments.sweep import SweepSpec, pending_units, run_sweep
from rnnlab.experiments.tuning import cells_of, choose_lr


@pytest.fixture
def fake_budgets(monkeypatch):
    """fit_budget without the 4.7M-character corpus: the target plus one."""
    calls = []

    def fake_fit(target, depths, **kw):
        calls.append((target, depths, kw["task"], kw["embedding_dim"]))
        return target + 1

    monkeypatch.setattr("rnnlab.experiments.budgets.fit_budget", fake_fit)
    return calls


def fake_timings(experiments, step=0.01, window=0.001) -> dict:
    """A benchmark file's content for ``experiments``: ``step * depth`` seconds per step."""
    cells = {}
    for e in experiments:
        cells[(e.budget, e.num_layers)] = {
            "task": e.task,
            "budget": e.budget,
            "num_layers": e.num_layers,
            "embedding_dim": e.embedding_dim,
            "batch_size": e.train.batch_size,
            "seq_len": dict(e.task_options)["seq_len"],
            "step_s_median": step * e.num_layers,
            "eval_s_per_window": window,
        }
    return {"provenance": {"started_utc": "test", "cpu": "test"}, "cells": list(cells.values())}


# ----------------------------------------------------------------------------- the design


def test_reference_design_is_the_declared_grid(fake_budgets):
    design = scale.scale_experiments("reference")
    assert len(design) == 4 * 3 * 3  # budgets x depths x lengths
    assert {e.task for e in design} == {"charlm-stdlib"}
    assert {e.num_layers for e in design} == {1, 2, 4}
    targets = sorted({e.label("budget_target") for e in design})
    assert targets[0] == 25_000 and targets[-1] >= 400_000 and len(targets) >= 4
    ratios = [b / a for a, b in zip(targets, targets[1:], strict=False)]
    assert max(ratios) / min(ratios) < 1.03  # log-spaced
    assert {e.budget for e in design} == {t + 1 for t in targets}  # from fit_budget
    assert all(c[1] == (1, 2, 4) and c[2] == "charlm-stdlib" for c in fake_budgets)
    lengths = sorted({e.label("steps") for e in design})
    assert lengths == [1_500, 3_000, 6_000]
    for e in design:
        t = e.train
        assert t.max_steps == e.label("steps") and t.schedule == "cosine" and t.patience is None
        assert t.batch_size == 32 and dict(e.task_options) == {"seq_len": 128}
        assert e.label("corpus") == "stdlib" and len(e.lr_grid) >= 3
    assert len({e.key for e in design}) == len(design)
    assert len(scale.scale_seeds("reference")) >= 5

    # run order: shortest length first, then smallest budget, then depth; the transfer-check
    # cell (tuned at its own, longer length) last in its length
    check = scale.design("reference")["check"]

    def is_check(e):
        return (e.label("budget_target"), e.label("steps")) == tuple(check)

    order = [(e.label("steps"), is_check(e), e.budget, e.num_layers) for e in design]
    assert order == sorted(order) and all(is_check(e) for e in design[-3:])

    # tuned at the shortest length, plus the one check cell at its own length; the rest reuse
    tuned = [e for e in design if e.label("lr_tuned_at_steps") == e.label("steps")]
    check = scale.design("reference")["check"]
    assert {(e.label("budget_target"), e.label("steps")) for e in tuned} == {
        *((t, 1_500) for t in targets),
        tuple(check),
    }
    assert check[1] == lengths[-1]
    spec = scale.sweep_spec("reference")
    assert len(spec.lr_from) == len(design) - len(tuned) == 36 - 12 - 3
    by_key = {e.key: e for e in design}
    for key, src in spec.lr_from:
        a, b = by_key[key], by_key[src]
        assert (a.budget, a.num_layers) == (b.budget, b.num_layers)
        assert b.label("steps") == 1_500 < a.label("steps")
    # runs: 3 rates x 2 tuning seeds per tuned experiment, 5 reporting seeds everywhere
    assert spec.n_runs() == len(tuned) * 3 * len(TUNE_SEEDS) + len(design) * 5 == 270


def test_gpu_design_is_the_reference_map_one_budget_further(capsys, tmp_path):
    ref, gpu = scale.design("reference"), scale.design("gpu")
    assert gpu["budgets"][:-1] == ref["budgets"] and gpu["budgets"][-1] >= 1_000_000
    assert {k: v for k, v in gpu.items() if k != "budgets"} == {
        k: v for k, v in ref.items() if k != "budgets"
    }
    budgets = scale.matched_budgets("gpu")
    assert all(abs(b / t - 1) <= 0.02 for t, b in budgets.items()) and len(budgets) == 5
    assert len(scale.scale_experiments("gpu")) == 5 * 3 * 3
    assert scale.default_out("gpu").parent == scale.default_out("reference").parent
    # a CPU benchmark prices no GPU run: the plan says so instead of printing CPU hours
    assert main(["plan", "scale", "--profile", "gpu", "--out", str(tmp_path / "none.jsonl")]) == 0
    text = capsys.readouterr().out
    assert "core-hours: not estimated (no benchmark of this profile's models" in text
    assert "bash scripts/gpu_session.sh" in text and "seconds per training step" not in text


def test_bad_input_names_the_parameter(fake_budgets, tmp_path):
    with pytest.raises(ValueError, match="profile must be one of"):
        scale.scale_experiments("huge")
    with pytest.raises(ValueError, match="seeds must be"):
        scale.sweep_spec("reference", seeds=(-1,))
    with pytest.raises(ValueError, match="seeds must be"):
        scale.sweep_spec("reference", seeds=())
    with pytest.raises(ValueError, match="--jobs must be an integer >= 1, got 0"):
        scale.run_scale("smoke", tmp_path / "x.jsonl", options=RunOptions(jobs=0))
    e = scale.scale_experiments("smoke")[0]
    with pytest.raises(ValueError, match="seconds_per_step"):
        scale.run_seconds(e, 0.0, 0.0)
    with pytest.raises(ValueError, match="timings file"):
        scale.load_timings(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="no benchmark of budget="):
        scale.step_seconds([e], {"cells": []})
    design = scale.scale_experiments("reference")
    with pytest.raises(ValueError, match="lr_from"):  # half a cell transferred
        SweepSpec("x", "y", design, (0,), lr_from=((design[12].key, design[0].key),))
    with pytest.raises(ValueError, match="lr_from names experiment"):
        SweepSpec("x", "y", design[:3], (0,), lr_from=(("nope", design[0].key),))


def test_run_seconds_counts_training_and_evaluation():
    e = scale.scale_experiments("smoke")[0]  # 12 steps, eval every 6, n_val 16, n_test 16
    assert e.train.max_steps == 12 and e.train.eval_every == 6
    # 2 evaluations of 16 windows, then the final 16 val + 16 test windows
    assert scale.run_seconds(e, 0.5, 0.01) == pytest.approx(12 * 0.5 + (2 * 16 + 32) * 0.01)


# ----------------------------------------------------------------------------- rate transfer


def test_transferred_cells_wait_for_their_source_and_use_its_rate(tmp_path):
    spec = scale.sweep_spec("smoke")
    design = spec.experiments
    moved = dict(spec.lr_from)
    todo = pending_units(spec, [])
    # nothing tuned yet: only tuning runs can start, none of a transferred cell, none reported
    assert todo and all(u[1] == "tune" for u in todo)
    assert not any(u[0].key in moved for u in todo)
    # finish the first cell's tuning (the shortest length); its transferred cells open up
    records = run_sweep(SweepSpec(spec.lab, spec.profile, design[:2], ()), tmp_path / "t.jsonl")
    todo = pending_units(spec, records)
    cells = cells_of(design)
    for exp, role, _seed, lr in todo:
        if exp.key in moved:
            src = next(e for e in design if e.key == moved[exp.key])
            assert role == "eval" and lr == choose_lr(src, records, cells[src.cell_key])
    assert any(u[0].key in moved for u in todo)


# ----------------------------------------------------------------------------- end to end


def test_smoke_sweep_runs_end_to_end_and_resumes(tmp_path, capsys):
    out = tmp_path / "scale.jsonl"
    # interrupted after 3 runs, then resumed by the same command: nothing is repeated
    assert main(["run-scale", "--profile", "smoke", "--jobs", "1", "--out", str(out),
                 "--max-runs", "3"]) == 0  # fmt: skip
    assert len(load_results(out)) == 3
    assert main(["run-scale", "--profile", "smoke", "--jobs", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "not evidence" in text and "3 already in" in text
    records = load_results(out)
    ids = [r["run_id"] for r in records]
    assert len(ids) == len(set(ids))
    spec = scale.sweep_spec("smoke")
    design = spec.experiments
    evals = [r for r in records if r["role"] == "eval"]
    assert len(evals) == len(design) * len(spec.seeds)  # every cell has every reporting seed
    cells = cells_of(design)
    tuned = [e for e in design if e.key not in dict(spec.lr_from)]
    assert {r["experiment_key"] for r in records if r["role"] == "tune"} == {e.key for e in tuned}
    by_key = {e.key: e for e in design}
    for r in evals:
        e = by_key[r["experiment_key"]]
        src = spec.source(e) or e
        assert r["lr"] == choose_lr(src, records, cells[src.cell_key])
        assert r["metrics"]["steps"] == e.train.max_steps == r["experiment"]["train"]["max_steps"]
    for r in records:  # provenance
        assert r["lab"] == "scale" and r["profile"] == "smoke" and r["device"] == "cpu"
        assert r["versions"]["torch"] and r["git_commit"] and r["wall_time_s"] > 0
        assert r["task_info"]["files_sha256"] and r["experiment"]["labels"]["lr_tuned_at_steps"]
    ckpt = scale.default_checkpoint_dir(out)
    assert ckpt.name == "scale.jsonl.ckpt" and not list(ckpt.glob("*.pt"))  # deleted when done

    # the plan of the finished file: all done, nothing named as remaining
    timings = tmp_path / "timings.json"
    timings.write_text(json.dumps(fake_timings(design)))
    assert main(["plan", "scale", "--profile", "smoke", "--out", str(out),
                 "--timings", str(timings)]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "remaining 0" in text and "every run of the design is done" in text
    check = scale.transfer_check(spec, records)  # the smoke check cell: 12K x 24 steps
    assert [(r["budget_target"], r["steps"], r["num_layers"]) for r in check] == [
        (12_000, 24, 1),
        (12_000, 24, 2),
    ]
    for row in check:
        assert row["short_steps"] == 12 and row["short_rate"] in (0.002, 0.004)
        assert row["grid_steps_apart"] in (0, 1) and row["best_val"] <= row["val_at_transferred"]
    assert "transfer check, B=12K L=1: rate tuned at 12 steps" in text
    assert f"run-scale --profile smoke --jobs 2 --out {out}" in text


def test_plan_counts_runs_core_hours_done_and_names_remaining(tmp_path, monkeypatch):
    spec = scale.sweep_spec("smoke")
    design = spec.experiments
    timings = fake_timings(design)
    moved = dict(spec.lr_from)
    tuned = [e for e in design if e.key not in moved]
    n_tune = len(tuned) * len(design[0].lr_grid) * len(TUNE_SEEDS)

    def cost(e):
        return scale.run_seconds(e, 0.01 * e.num_layers, 0.001)

    expected = sum(cost(e) for e in tuned) * len(design[0].lr_grid) * len(TUNE_SEEDS) + sum(
        cost(e) for e in design
    ) * len(spec.seeds)
    buf = io.StringIO()
    empty = scale_plan.plan(spec, [], timings=timings, file=buf)
    assert empty["runs"] == spec.n_runs() == n_tune + len(design) * len(spec.seeds)
    assert empty["tune_runs"] == n_tune and empty["done_runs"] == 0
    assert empty["core_hours"] == pytest.approx(expected / 3600)
    text = buf.getvalue()
    assert f"runs: {empty['runs']} ({n_tune} tuning" in text and "core-hours (estimated)" in text
    # the next runs are named, in run order: the first cell's tuning
    assert "next runs" in text and "12 steps  B=12K L=1 tune seed=10000 lr=0.002" in text
    assert empty["remaining"][0] == "    12 steps  B=12K L=1 tune seed=10000 lr=0.002"

    # really run four runs, then plan again with their records
    out = tmp_path / "scale.jsonl"
    records = run_sweep(spec, out, options=RunOptions(max_runs=4))
    half = scale_plan.plan(spec, records, timings=timings, file=io.StringIO())
    assert half["done_runs"] == 4 and half["remaining_runs"] == empty["runs"] - 4
    assert spec.planned_runs(records) == half["runs"]  # the count the CLI's progress lines use
    assert half["done_core_hours"] == pytest.approx(
        sum(cost(next(e for e in design if e.key == r["experiment_key"])) for r in records) / 3600
    )
    assert math.isclose(half["done_core_hours"] + half["remaining_core_hours"], expected / 3600)
    # the finished runs calibrate the estimate: the median of measured over estimated run time
    ratios_by_index = [
        r["wall_time_s"] / cost(next(e for e in design if e.key == r["experiment_key"]))
        for r in records
    ]
    ratios = sorted(ratios_by_index)
    assert half["calibration"] == pytest.approx((ratios[1] + ratios[2]) / 2)
    assert half["remaining_core_hours_calibrated"] == pytest.approx(
        half["remaining_core_hours"] * half["calibration"]
    )
    assert empty["calibration"] is None and "calibrated" not in text
    assert half["calibration_recent"] is None  # no more runs than the recent window
    # the latest runs calibrate "this machine now": the 2 latest run three times as slow
    monkeypatch.setattr(scale_plan, "RECENT_RUNS", 2)
    slow = [
        {**r, "started_at": f"2026-12-0{i + 1}T00:00:00+00:00",
         "wall_time_s": r["wall_time_s"] * (3 if i >= 2 else 1)}
        for i, r in enumerate(records)
    ]  # fmt: skip
    buf = io.StringIO()
    later = scale_plan.plan(spec, slow, timings=timings, file=buf)
    assert later["calibration_recent"] == pytest.approx(
        3 * (ratios_by_index[2] + ratios_by_index[3]) / 2
    )
    assert "calibrated by the 2 most recent runs" in buf.getvalue()
    names = set(half["remaining"])
    assert not names & {
        scale_plan.unit_name(next(e for e in design if e.key == r["experiment_key"]), r["role"],
                         r["seed"], r["lr"] if r["role"] == "tune" else None)
        for r in records
    }  # fmt: skip


def test_plan_command_line_reference_uses_the_committed_benchmark(capsys, tmp_path):
    out = tmp_path / "none.jsonl"
    assert main(["plan", "scale", "--profile", "reference", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "scale plan (reference): 36 experiments = 4 budgets x 3 depths x 3" in text
    assert "runs: 270 (90 tuning + 180 reporting); done 0; remaining 270" in text
    assert f"run-scale --profile reference --jobs 2 --out {out}" in text
    assert main(["plan", "scale", "--profile", "huge"]) == 2


def test_committed_benchmark_covers_the_reference_design_with_provenance():
    doc = scale.load_timings()
    prov = doc["provenance"]
    assert prov["torch_threads"] == 1 and prov["cpu"] and prov["started_utc"]
    assert prov["versions"]["torch"] and prov["git_commit"]
    seconds = scale.step_seconds(scale.scale_experiments("reference"), doc)
    assert len(seconds) == 12
    for (budget, depth), (step, window) in seconds.items():
        assert 0 < step < 5 and 0 < window < 0.1, (budget, depth)
    assert {c["timed_steps"] for c in doc["cells"]} >= {200}


def test_scale_results_are_not_read_as_lab_results(tmp_path):
    """The labs and the Findings table read data/results/LAB-PROFILE.jsonl; the scale map lives
    in data/results/scale/, where the Execution status page lists it under its own path."""
    import json

    from rnnlab.course import findings, status

    (tmp_path / "scale").mkdir()
    run = {
        "lab": "scale", "profile": "reference", "seed": 0, "device": "cpu", "versions": {},
        "wall_time_s": 1.0, "git_commit": "abc", "started_at": "2026-12-01T00:00:00+00:00",
    }  # fmt: skip
    (tmp_path / "scale" / "reference.jsonl").write_text(json.dumps(run) + "\n")
    assert findings.result_files(tmp_path) == []
    assert [r["file"] for r in status.load_runs(tmp_path)] == ["scale/reference.jsonl"]
    assert scale.default_out("reference").parent.name == "scale"
    assert scale.default_out("reference").parent.parent.name == "results"


def test_a_killed_scale_run_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    """run_scale checkpoints into <out>.ckpt; a run that dies after step 8 resumes there and ends
    as the uninterrupted run did (the same metrics and curves, on the CPU)."""
    import rnnlab.core.train as train_mod

    reference = scale.run_scale("smoke", tmp_path / "ref.jsonl", options=RunOptions(max_runs=1))[0]
    out = tmp_path / "out.jsonl"
    ckdir = scale.default_checkpoint_dir(out)
    real_train, real_save = train_mod.train_model, train_mod.save_checkpoint

    def every_step(*args, **kwargs):
        return real_train(*args, **{**kwargs, "checkpoint_every_s": 0})

    def save_then_die(path, state):
        real_save(path, state)
        if state["step"] == 8:
            raise RuntimeError("killed")

    monkeypatch.setattr(train_mod, "train_model", every_step)
    monkeypatch.setattr(train_mod, "save_checkpoint", save_then_die)
    one = RunOptions()  # one run at a time, in this process
    died = scale.run_scale("smoke", out, options=one)  # every run that can start dies at step 8
    assert len(died) == 0 and len(died.failures) >= 1
    saved = {p.stem: p for p in ckdir.iterdir() if p.suffix == ".pt"}
    assert set(saved) == {f["run_id"] for f in died.failures} and reference["run_id"] in saved
    monkeypatch.setattr(train_mod, "save_checkpoint", real_save)
    loaded = []
    real_load = train_mod.load_checkpoint

    def load_and_note(path, fingerprint):
        state = real_load(path, fingerprint)
        loaded.append(None if state is None else state["step"])
        return state

    monkeypatch.setattr(train_mod, "load_checkpoint", load_and_note)
    resumed = scale.run_scale("smoke", out, options=RunOptions(max_runs=1))[0]
    assert loaded == [8]  # it went on from step 8, it did not start over
    assert resumed["run_id"] == reference["run_id"] and not saved[resumed["run_id"]].exists()
    for key in ("val", "test", "best_step", "steps"):
        assert resumed["metrics"][key] == reference["metrics"][key]
    strip = [[{k: v for k, v in r.items() if k != "elapsed_s"} for r in rec["curves"]]
             for rec in (resumed, reference)]  # fmt: skip
    assert strip[0] == strip[1]


def test_a_drain_file_stops_new_runs_and_keeps_the_runs_in_flight(tmp_path):
    """``touch <out>.drain``: no new run starts, the runs in progress are recorded, the sweep
    returns and removes the file; a drain file left from before does not stop a new sweep."""
    out = tmp_path / "s.jsonl"
    drain = scale.default_drain_file(out)
    assert drain.name == "s.jsonl.drain"
    drain.write_text("")  # left from an earlier sitting

    def drain_now(rec: dict) -> None:
        drain.touch()

    recs = scale.run_scale("smoke", out, options=RunOptions(), on_record=drain_now)
    assert len(recs) == 1 and not drain.exists()
    recs = scale.run_scale("smoke", out, options=RunOptions(jobs=2), on_record=drain_now)
    assert len(recs) == 1 + 2  # both runs in flight when the file appeared were kept
    assert not drain.exists()
    assert len({r["run_id"] for r in recs}) == 3
    remaining = scale.sweep_spec("smoke").n_runs() - 3
    assert remaining > 0  # the drain, not the end of the design, stopped it


# ----------------------------------------------------------------------------- transfer control


def test_transfer_rule_is_the_declared_one():
    assert scale.transfer_holds([]) is None  # the check has not run
    assert scale.transfer_holds([{"grid_steps_apart": 0}, {"grid_steps_apart": 1}]) is True
    assert scale.transfer_holds([{"grid_steps_apart": 1}, {"grid_steps_apart": 2}]) is False


def test_transfer_control_runs_the_check_cell_at_the_transferred_rates(tmp_path, capsys):
    out, ctrl_out = tmp_path / "scale.jsonl", tmp_path / "control.jsonl"
    with pytest.raises(ValueError, match="transfer check"):  # nothing to transfer yet
        scale.transfer_control_spec("smoke", [])
    assert main(["run-scale", "--profile", "smoke", "--results", str(out)]) == 2
    assert "--results is read only with --transfer-control" in capsys.readouterr().err
    assert main(["run-scale", "--profile", "smoke", "--jobs", "1", "--out", str(out)]) == 0
    records = load_results(out)
    check = scale.transfer_check(scale.sweep_spec("smoke"), records)
    spec = scale.transfer_control_spec("smoke", records)
    assert spec.lab == "scale-transfer" and spec.seeds == scale.scale_seeds("smoke")
    assert [(e.num_layers, e.lr_grid) for e in spec.experiments] == [
        (r["num_layers"], (r["short_rate"],)) for r in check
    ]
    for e in spec.experiments:  # the check cell's experiment but for its rate and two labels
        assert e.label("lr_tuned_at_steps") == 12 and e.label("rate") == "transferred"
        assert (e.label("budget_target"), e.label("steps")) == (12_000, 24)
    assert not {e.key for e in spec.experiments} & {e.key for e in scale.scale_experiments("smoke")}
    # the results file names its --transfer-control runs apart: the map's file refuses them
    with pytest.raises(Exception, match="scale-transfer"):
        scale.run_transfer_control("smoke", out, results=out, options=RunOptions())
    assert main(["run-scale", "--profile", "smoke", "--transfer-control", "--jobs", "1",
                 "--results", str(out), "--out", str(ctrl_out)]) == 0  # fmt: skip
    assert "scale-transfer smoke" in capsys.readouterr().out
    control = load_results(ctrl_out)
    assert len(control) == len(spec.experiments) * len(spec.seeds)  # no tuning: one rate
    assert {r["role"] for r in control} == {"eval"} and {r["lab"] for r in control} == {
        "scale-transfer"
    }
    by_depth = {r["num_layers"]: r["short_rate"] for r in check}
    assert all(r["lr"] == by_depth[r["num_layers"]] for r in control)
    assert all(r["git_commit"] and r["versions"]["torch"] and r["wall_time_s"] > 0 for r in control)
    effect = scalemap.transfer_effect(records, control, deep=2)
    assert effect["seeds"] == list(spec.seeds) and effect["steps"] == 24
    # the smoke profile's rates transfer exactly (by a wide margin in validation loss), so the
    # control trains with the same rate, data and initialisation: it reproduces the map's runs
    assert all(r["grid_steps_apart"] == 0 for r in check)
    assert effect["shift"].mean == 0.0 and effect["cost"][1].mean == 0.0
    assert effect["own"].mean == effect["transferred"].mean


def fake_eval(layers: int, seed: int, test: float, lr: float) -> dict:
    return {
        "role": "eval",
        "num_layers": layers,
        "seed": seed,
        "lr": lr,
        "experiment": {"labels": {"budget_target": 63_000, "steps": 6_000}},
        "metrics": {"test": test, "higher_is_better": False, "metric": "bits_per_char"},
    }


def test_transfer_effect_pairs_by_seed_and_orients_depths_advantage():
    # own rates: L=2 better than L=1 by 0.01 at every seed; transferred: L=1 loses 0.05
    # (seed 0) and 0.07 (seed 1) more, L=2 0.02 more; seed 2 has no control runs
    own = [fake_eval(1, s, 2.00 + s, 0.008) for s in (0, 1, 2)]
    own += [fake_eval(2, s, 1.99 + s, 0.008) for s in (0, 1, 2)]
    ctrl = [fake_eval(1, 0, 2.05, 0.032), fake_eval(1, 1, 3.07, 0.032)]
    ctrl += [fake_eval(2, 0, 2.01, 0.016), fake_eval(2, 1, 3.01, 0.016)]
    e = scalemap.transfer_effect(own, ctrl, deep=2)
    assert e["seeds"] == [0, 1] and e["rates"] == {1: (0.008, 0.032), 2: (0.008, 0.016)}
    assert e["own"].mean == pytest.approx(0.01)
    assert e["transferred"].mean == pytest.approx((0.04 + 0.06) / 2)
    assert e["shift"].mean == pytest.approx(0.04) and e["shift"].n == 2
    assert e["cost"][1].mean == pytest.approx(0.06) and e["cost"][2].mean == pytest.approx(0.02)
    assert scalemap.transfer_effect(own, [], deep=2) is None
    assert scalemap.transfer_effect(own, ctrl[:1], deep=2) is None  # no seed with all four runs
    other = dict(
        fake_eval(1, 0, 2.0, 0.032), experiment={"labels": {"budget_target": 1, "steps": 1}}
    )
    with pytest.raises(ValueError, match="control must hold runs of one cell"):
        scalemap.transfer_effect(own, ctrl + [other], deep=2)
