"""The ``colab`` profile: on a Colab GPU, "Run it yourself" defaults to a bounded plan (the cpu
design at its committed tuned rates, 3 seeds), prints it with an estimate and its derivation
before starting, and the longer ``gpu`` profile is one explicit argument away."""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from rnnlab.experiments import labs
from rnnlab.experiments.experiment import TUNE_SEEDS
from rnnlab.experiments.lab import at_reference_rates
from rnnlab.experiments.store import eval_records
from rnnlab.experiments.sweep import SweepRecords
from rnnlab.experiments.tuning import tuning_report

ROOT = Path(__file__).resolve().parents[1]
LAB_NAMES = [name for name in labs.LABS if "cpu" in labs.get_lab(name).profiles]


@pytest.fixture
def colab_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.delenv("RNNLAB_PROFILE", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))


def test_a_colab_gpu_defaults_to_the_bounded_profile(colab_gpu, monkeypatch) -> None:
    assert labs.resolve_profile().name == "colab"
    assert labs.resolve_profile("gpu").name == "gpu"  # the longer plan: one argument away
    monkeypatch.setenv("RNNLAB_PROFILE", "gpu")
    assert labs.resolve_profile().name == "gpu"


def test_a_gpu_elsewhere_keeps_the_gpu_profile(monkeypatch) -> None:
    import torch

    monkeypatch.delenv("RNNLAB_PROFILE", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    assert labs.resolve_profile().name == "gpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert labs.resolve_profile().name == "cpu"


@pytest.mark.parametrize("name", LAB_NAMES)
def test_colab_is_the_cpu_design_at_the_reference_rates_without_tuning(name: str) -> None:
    lab = labs.get_lab(name)
    cpu, colab = lab.sweep("cpu"), lab.sweep("colab")
    assert colab.seeds == labs.PROFILES["colab"].seeds
    assert len(colab.experiments) == len(cpu.experiments)
    tuned = {
        row["experiment_key"]: row["chosen"]
        for row in tuning_report(cpu.experiments, labs.load_reference(name, "cpu"))
    }
    for c, e in zip(cpu.experiments, colab.experiments, strict=True):
        assert e.lr_grid == (tuned[c.key],)
        assert (e.task, e.budget, e.num_layers, e.train, e.labels) == (
            c.task, c.budget, c.num_layers, c.train, c.labels
        )  # fmt: skip
    assert colab.n_runs() == len(colab.experiments) * len(colab.seeds)  # no tuning runs


@pytest.mark.parametrize("name", LAB_NAMES)
def test_the_estimate_is_computed_from_the_measured_cpu_wall_times(name: str) -> None:
    est = labs.colab_estimate(name)
    lab = labs.get_lab(name)
    keys = {e.key for e in lab.experiments("cpu")}
    seeds = set(labs.PROFILES["colab"].seeds)
    path = ROOT / "data" / "results" / f"{name}-cpu.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    wall = [r["wall_time_s"] for r in eval_records(records)
            if r["experiment_key"] in keys and r["seed"] in seeds]  # fmt: skip
    assert est.runs == len(keys) * len(seeds) == est.matched_runs == len(wall)
    assert est.minutes == pytest.approx(sum(wall) / labs.COLAB_T4_SPEEDUP / 60)
    assert not any(r["seed"] in TUNE_SEEDS for r in eval_records(records))
    # bounded: about 15 minutes on a free T4, at the stated speed-up
    assert est.minutes <= labs.COLAB_TARGET_MINUTES, est.describe()
    text = est.describe()
    needed_parts = (
        f"{est.runs} runs",
        f"about {est.minutes:.0f} min",
        "not measured",
        "RNNLAB_PROFILE=gpu",
        f"data/results/{name}-cpu.jsonl",
        "Estimated",
    )
    for needed in needed_parts:
        assert needed in text, (needed, text)


def test_estimate_arguments_and_missing_tuning_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="speedup must be > 0"):
        labs.colab_estimate("lab-a", speedup=0)
    experiments = labs.get_lab("lab-a").experiments("cpu")
    with pytest.raises(ValueError, match="no complete tuning"):
        at_reference_rates("lab-a", experiments, records=[])
    slower = labs.colab_estimate("lab-a", speedup=1.0)
    assert slower.minutes == pytest.approx(2 * labs.colab_estimate("lab-a").minutes)


def test_run_lab_prints_the_plan_and_estimate_before_it_starts(
    colab_gpu, monkeypatch, tmp_path, capsys
) -> None:
    seen = []

    def fake_run_sweep(spec, out, **kwargs):
        seen.append(capsys.readouterr().out)  # what was printed before any run started
        return SweepRecords()

    import rnnlab.experiments.sweep

    monkeypatch.setattr(
        rnnlab.experiments.sweep, "run_sweep", fake_run_sweep
    )  # run_console's sweep
    labs.run_lab("lab-d", profile=None, out=tmp_path / "d.jsonl")
    (before,) = seen
    assert "profile colab" in before and labs.colab_estimate("lab-d").describe() in before
