"""Results on disk: provenance, atomic writes, resume after a kill, corrupt files."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rnnlab.experiments.experiment import TUNE_SEEDS
from rnnlab.experiments.labs import get_lab
from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.store import ResultsFileError, load_results
from rnnlab.experiments.sweep import SweepSpec, run_sweep, shard

PROVENANCE = {
    "run_id", "lab", "profile", "role", "experiment", "param_count", "seed", "lr", "metrics",
    "curves", "device", "device_name", "versions", "git_commit", "started_at", "wall_time_s",
}  # fmt: skip


def small_spec(lab="lab-c", n_exp=2, seeds=(0, 1)) -> SweepSpec:
    spec = get_lab(lab).sweep("smoke", seeds)
    return SweepSpec(spec.lab, spec.profile, spec.experiments[:n_exp], spec.seeds)


def test_records_carry_provenance_and_match_budget(tmp_path):
    spec = small_spec()
    recs = run_sweep(spec, tmp_path / "r.jsonl")
    assert len(recs) == spec.n_runs() == 4
    for r in recs:
        assert PROVENANCE <= set(r)
        assert abs(r["param_relative_error"]) <= 0.02
        assert set(r["versions"]) >= {"python", "torch", "numpy", "rnnlab"}
        assert r["metrics"]["metric"] == "accuracy" and 0 <= r["metrics"]["test"] <= 1
    assert load_results(tmp_path / "r.jsonl") == json.loads(json.dumps(recs))


def test_completeness_counts_only_the_designs_reporting_runs():
    spec = small_spec(n_exp=2, seeds=(0, 1))
    evals = [
        {"role": "eval", "experiment_key": e.key, "seed": s}
        for e in spec.experiments
        for s in spec.seeds
    ]
    assert spec.reporting_progress(evals) == (4, 4) and spec.is_complete(evals)
    last = evals[-1]
    # one reporting run missing; a duplicate, a tuning run, an extra seed and a foreign
    # experiment make up the count but none of them is the missing run
    padded = evals[:-1] + [
        evals[0],
        {"role": "tune", "experiment_key": last["experiment_key"], "seed": last["seed"]},
        {"role": "eval", "experiment_key": last["experiment_key"], "seed": 99},
        {"role": "eval", "experiment_key": "not-in-the-design", "seed": last["seed"]},
    ]
    assert len(padded) > 4
    assert spec.reporting_progress(padded) == (3, 4) and not spec.is_complete(padded)


def test_resume_after_partial_run_loses_and_repeats_nothing(tmp_path):
    spec = small_spec(n_exp=2, seeds=(0, 1, 2))
    out = tmp_path / "r.jsonl"
    first = run_sweep(spec, out, options=RunOptions(max_runs=2))
    assert len(load_results(out)) == 2
    before = out.read_text().splitlines()
    done = run_sweep(spec, out)
    ids = [r["run_id"] for r in done]
    assert len(ids) == len(set(ids)) == spec.n_runs()
    assert out.read_text().splitlines()[:2] == before
    assert [r["run_id"] for r in first] == ids[:2]


def test_tuning_phase_picks_rate_then_evaluates(tmp_path):
    spec = small_spec(n_exp=1, seeds=(0,))
    exp = spec.experiments[0]
    import dataclasses

    # two rates, the top one at the declared cap: no extension is possible
    exp = dataclasses.replace(exp, lr_grid=(3e-7, 3e-2), lr_limits=(1e-7, 3e-2))
    spec = SweepSpec(spec.lab, spec.profile, (exp,), (0,))
    recs = run_sweep(spec, tmp_path / "r.jsonl")
    roles = [r["role"] for r in recs]
    assert roles.count("tune") == 2 * len(TUNE_SEEDS) and roles.count("eval") == 1
    tune: dict[float, list[float]] = {}
    for r in recs:
        if r["role"] == "tune":
            tune.setdefault(r["lr"], []).append(r["metrics"]["val"])
    chosen = next(r["lr"] for r in recs if r["role"] == "eval")
    assert sum(tune[chosen]) == max(sum(v) for v in tune.values())


def test_killed_cli_sweep_resumes_with_the_right_number_of_lines(tmp_path):
    out = tmp_path / "lab-c.jsonl"
    cmd = [sys.executable, "-m", "rnnlab", "run", "lab-c", "--profile", "smoke", "--out", str(out)]
    env = {**os.environ, "TQDM_DISABLE": "1", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 2):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = len(load_results(out))
    expected = get_lab("lab-c").sweep("smoke").n_runs()
    assert 2 <= partial < expected, "the kill came too late to test resume"
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    recs = load_results(out)
    ids = [r["run_id"] for r in recs]
    assert len(ids) == len(set(ids)) == expected


def test_corrupt_line_names_file_and_line_and_overwrites_nothing(tmp_path):
    out = tmp_path / "r.jsonl"
    spec = small_spec(n_exp=1, seeds=(0,))
    run_sweep(spec, out)
    good = out.read_text()
    out.write_text(good + '{"run_id": "x", "lab": "lab-c", "prof\n' + good)  # a cut line, mid-file
    damaged = out.read_text()
    with pytest.raises(ResultsFileError, match=rf"{out.name}:2"):
        run_sweep(small_spec(n_exp=2, seeds=(0,)), out)
    assert out.read_text() == damaged
    out.write_text(good + '["not", "a", "record"]\n')
    with pytest.raises(ResultsFileError, match=r":2: not a run record"):
        load_results(out)


def test_torn_last_line_is_dropped_with_a_warning_and_the_sweep_goes_on(tmp_path):
    from rnnlab.experiments.store import TornLineWarning

    out = tmp_path / "r.jsonl"
    run_sweep(small_spec(n_exp=1, seeds=(0,)), out)
    out.write_text(out.read_text() + '{"run_id": "x", "lab": "lab-c", "prof')  # killed mid-write
    with pytest.warns(TornLineWarning, match=rf"{out.name}:2"):
        recs = run_sweep(small_spec(n_exp=2, seeds=(0,)), out)
    assert len(recs) == 2 and len(out.read_text().splitlines()) == 2
    assert load_results(out) == recs


def test_results_of_another_lab_are_refused(tmp_path):
    out = tmp_path / "r.jsonl"
    run_sweep(small_spec("lab-c", 1, (0,)), out)
    with pytest.raises(ResultsFileError, match="lab 'lab-c'"):
        run_sweep(small_spec("lab-a", 1, (0,)), out)


def test_two_processes_write_every_run_once(tmp_path):
    spec = small_spec(n_exp=2, seeds=(0, 1))
    recs = run_sweep(spec, tmp_path / "r.jsonl", options=RunOptions(jobs=2))
    ids = [r["run_id"] for r in recs]
    assert len(ids) == len(set(ids)) == spec.n_runs()
    assert all(r["threads"] == 1 for r in recs)


def test_worker_processes_record_the_commit_the_sweep_started_with(tmp_path, monkeypatch):
    """A worker that finishes its first run after the checkout changed still records the commit
    of the code the sweep started with (the parent's), and the sweep leaves no variable set."""
    import rnnlab.experiments.runner as runner_module

    monkeypatch.delenv("RNNLAB_GIT_COMMIT", raising=False)
    monkeypatch.setattr(runner_module, "git_commit", lambda: "commit-at-start")
    recs = run_sweep(
        small_spec(n_exp=1, seeds=(0, 1)), tmp_path / "r.jsonl", options=RunOptions(jobs=2)
    )
    assert {r["git_commit"] for r in recs} == {"commit-at-start"}
    assert "RNNLAB_GIT_COMMIT" not in os.environ


def test_shards_partition_the_experiments():
    exps = get_lab("lab-c").sweep("smoke").experiments
    parts = [shard(exps, i, 3) for i in range(3)]
    assert sorted(e.key for p in parts for e in p) == sorted(e.key for e in exps)
    with pytest.raises(ValueError, match="shard index"):
        shard(exps, 3, 3)


def test_smoke_profile_is_deterministic(tmp_path):
    spec = small_spec(n_exp=1, seeds=(0,))
    a = run_sweep(spec, tmp_path / "a.jsonl")
    b = run_sweep(spec, tmp_path / "b.jsonl")
    assert [r["metrics"]["test"] for r in a] == [r["metrics"]["test"] for r in b]
    assert [r["curves"] for r in a] == [
        [dict(p, elapsed_s=q["elapsed_s"]) for p, q in zip(r2["curves"], r["curves"], strict=True)]
        for r2, r in zip(b, a, strict=True)
    ]


def test_committed_results_load(tmp_path):
    from rnnlab.core.paths import results_dir

    for path in sorted(Path(results_dir()).glob("*.jsonl")):
        recs = load_results(path)
        assert recs, f"{path} is empty"
        assert all(PROVENANCE <= set(r) for r in recs)


def _cheapest_committed_lab_c_run() -> tuple[dict, object]:
    """The cheapest committed lab-c cpu reporting run and its experiment (checked unchanged)."""
    import dataclasses

    from rnnlab.core.config import TrainConfig
    from rnnlab.experiments.labs import load_reference

    records = [r for r in load_reference("lab-c", "cpu") if r["role"] == "eval"]
    if not records:
        pytest.skip("no committed lab-c reference results")
    rec = min(records, key=lambda r: r["wall_time_s"])
    exp = get_lab("lab-c").sweep("cpu").experiments
    (experiment,) = [e for e in exp if e.key == rec["experiment_key"]]
    assert experiment.to_dict() == dict(rec["experiment"])
    assert isinstance(experiment.train, TrainConfig) and dataclasses.is_dataclass(experiment)
    return rec, experiment


def _rerun(rec: dict, experiment) -> dict:
    from rnnlab.experiments.unit import run_unit

    return run_unit(
        experiment, lab="lab-c", profile="cpu", role="eval", seed=rec["seed"], lr=rec["lr"],
        device="cpu", threads=rec["threads"],
    )  # fmt: skip


def test_the_same_seed_on_this_cpu_gives_the_same_numbers_to_the_last_bit():
    rec, experiment = _cheapest_committed_lab_c_run()
    a, b = _rerun(rec, experiment), _rerun(rec, experiment)
    timing = ("wall_time_s",)
    assert {k: v for k, v in a["metrics"].items() if k not in timing} == {
        k: v for k, v in b["metrics"].items() if k not in timing
    }
    assert a["metrics"]["test"] == b["metrics"]["test"]
    assert [p["val"] for p in a["curves"]] == [p["val"] for p in b["curves"]]
    assert [p["train_loss"] for p in a["curves"]] == [p["train_loss"] for p in b["curves"]]


def test_a_committed_reference_run_reproduces():
    """Rerun the cheapest committed cpu run. On the CPU model it was recorded on (its
    ``device_name``), the numbers must be the same to the last bit. On another CPU model the
    kernels sum in another order, so the run may differ: then it must differ by less than the
    spread between the committed seeds of the same experiment (one standard deviation)."""
    import torch

    from rnnlab.core.device import device_name
    from rnnlab.experiments.labs import load_reference

    rec, experiment = _cheapest_committed_lab_c_run()
    again = _rerun(rec, experiment)
    assert again["device_name"] == device_name(torch.device("cpu"))
    if rec["device_name"] == again["device_name"]:
        assert again["metrics"]["test"] == rec["metrics"]["test"]
        assert again["metrics"]["val"] == rec["metrics"]["val"]
        assert [p["val"] for p in again["curves"]] == [p["val"] for p in rec["curves"]]
        return
    seeds = [
        r["metrics"]["test"]
        for r in load_reference("lab-c", "cpu")
        if r["role"] == "eval" and r["experiment_key"] == rec["experiment_key"]
    ]
    spread = float(np.std(seeds, ddof=1))
    assert len(seeds) >= 3 and spread > 0
    assert abs(again["metrics"]["test"] - rec["metrics"]["test"]) <= spread


def _with_bad_experiment(spec: SweepSpec) -> SweepSpec:
    """``spec`` plus one experiment whose task rejects an option: every run of it raises."""
    import dataclasses

    bad = dataclasses.replace(
        spec.experiments[0], task_options=spec.experiments[0].task_options + (("no_such", 1),)
    )
    return SweepSpec(spec.lab, spec.profile, (bad, *spec.experiments), spec.seeds)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_failing_run_is_recorded_and_the_others_go_on(tmp_path, jobs):
    from rnnlab.experiments.store import eval_records, failed_path

    spec = _with_bad_experiment(small_spec(n_exp=1, seeds=(0, 1)))
    out = tmp_path / "r.jsonl"
    recs = run_sweep(spec, out, options=RunOptions(jobs=jobs))
    assert len(recs) == 2 and len(load_results(out)) == len(eval_records(recs)) == 2
    assert len(recs.failures) == 2
    bad_key = spec.experiments[0].key
    assert all(r["experiment_key"] != bad_key for r in load_results(out))
    failed = [json.loads(x) for x in failed_path(out).read_text().splitlines()]
    assert {f["experiment_key"] for f in failed} == {bad_key}
    assert all("unknown option 'no_such'" in f["error"] and f["traceback"] for f in failed)


def test_a_rerun_retries_only_the_failed_runs(tmp_path, monkeypatch):
    import rnnlab.experiments.sweep as sweep
    from rnnlab.experiments.store import failed_path

    spec = small_spec(n_exp=2, seeds=(0,))
    out = tmp_path / "r.jsonl"
    real = sweep.run_unit

    def flaky(exp, **kw):
        if exp.key == spec.experiments[0].key:
            raise RuntimeError("out of memory (simulated)")
        return real(exp, **kw)

    monkeypatch.setattr(sweep, "run_unit", flaky)
    first = run_sweep(spec, out)
    assert len(first) == 1 and [f["error"] for f in first.failures] == [
        "RuntimeError: out of memory (simulated)"
    ]
    assert failed_path(out).exists()
    monkeypatch.setattr(sweep, "run_unit", real)
    again: list[dict] = []
    second = run_sweep(spec, out, on_record=again.append)
    assert [r["experiment_key"] for r in again] == [spec.experiments[0].key]  # only the failed one
    assert len(second) == 2 and not second.failures
    assert not failed_path(out).exists()  # nothing unresolved is left
