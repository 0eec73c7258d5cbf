"""scripts/gpu_session.sh, the one command a GPU session runs, checked here on the CPU with the
smoke profile: it writes every file it promises, a results file with provenance (the scale map's
and the convergence experiment's), sizes its processes from the benchmark, and resumes from a
committed file instead of rerunning it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import torch

from rnnlab.experiments import converge, scale
from rnnlab.experiments.runner import jobs_from_packing
from rnnlab.experiments.store import load_results

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gpu_session.sh"


def _run(out: Path, **env: str) -> subprocess.CompletedProcess:
    full = {
        **os.environ,
        "OUT": str(out),
        "DEVICE": "cpu",
        "PROFILE": "smoke",
        "JOBS": "1",
        "EXPERIMENT": "scale",
        "BENCH_ARGS": "--budgets 20000 --depths 1,2",
        "SECONDS_BUDGET": "400",
        "PYTHON": sys.executable,
        "RNNLAB_RUNS_DIR": str(out.parent / "runs"),
        "SCRATCH": str(out.parent / f"{out.name}-machine"),  # each session its own machine
        **env,
    }
    return subprocess.run(["bash", str(SCRIPT)], env=full, capture_output=True, text=True,
                          timeout=600)  # fmt: skip


@pytest.mark.slow
def test_gpu_session_script_writes_what_it_promises(tmp_path):
    out = tmp_path / "out"
    done = _run(out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {p.name for p in out.iterdir()} == {
        "env.txt", "cuda-tests.log", "depth-cost-cpu.json", "depth-cost.log", "scale-smoke.jsonl",
        "scale.log",  # checkpoints stay outside OUT: what comes back from a lent GPU is limited
    }  # fmt: skip
    assert "torch" in (out / "env.txt").read_text()
    # the CUDA checks are collected (and skipped where there is no GPU), never missing
    log = (out / "cuda-tests.log").read_text()
    assert ("9 skipped" if not torch.cuda.is_available() else "9 passed") in log, log
    bench = json.loads((out / "depth-cost-cpu.json").read_text())
    assert {r["num_layers"] for r in bench["rows"]} == {1, 2}
    records = load_results(out / "scale-smoke.jsonl")
    spec = scale.sweep_spec("smoke")
    assert len(records) == spec.n_runs() and spec.is_complete(records)
    assert all(r["device"] == "cpu" and r["git_commit"] and r["versions"] for r in records)
    assert f"{len(records)} runs in {out / 'scale-smoke.jsonl'}" in done.stdout

    # a second session resumes from the committed file: nothing is rerun
    again = _run(tmp_path / "again", RESUME=str(out / "scale-smoke.jsonl"))
    assert again.returncode == 0, again.stdout + again.stderr
    assert load_results(tmp_path / "again" / "scale-smoke.jsonl") == records


def test_gpu_session_script_needs_out_and_stops_without_time():
    done = subprocess.run(["bash", str(SCRIPT)], env={**os.environ, "OUT": ""},
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode != 0 and "set OUT" in done.stderr


@pytest.mark.slow
def test_gpu_session_script_leaves_the_map_alone_when_no_time_is_left(tmp_path):
    done = _run(tmp_path / "out", SECONDS_BUDGET="20")
    assert done.returncode == 0 and "no time left for training runs" in done.stdout
    assert not (tmp_path / "out" / "scale-smoke.jsonl").exists()


@pytest.mark.slow
def test_gpu_session_runs_the_convergence_experiment_by_default_and_sizes_its_jobs(tmp_path):
    """The default experiment is the convergence design's gpu profile (smoke here); JOBS=auto
    reads the benchmark; stopped at its time budget, the runs it finished are whole records, and a
    second session resumes from them."""
    env = dict(JOBS="auto", MAX_JOBS="2", EXPERIMENT="")  # empty: the default
    out = tmp_path / "out"
    done = _run(out, **env, SECONDS_BUDGET="75")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 processes fit" in done.stdout + done.stderr and "== 3. converge" in done.stdout
    assert len(list(out.iterdir())) <= 8  # what a lent machine sends back: 8 files at most
    assert {p.name for p in out.iterdir()} >= {"converge-smoke.jsonl", "converge.log"}
    assert not any(p.suffix == ".ckpt" or p.is_dir() for p in out.iterdir())
    records = load_results(out / "converge-smoke.jsonl")
    assert records and {r["experiment"]["task"] for r in records} == {converge.TASK}
    assert all(r["device"] == "cpu" and r["git_commit"] and r["versions"] for r in records)
    # what was left in the checkpoint folder (runs in flight, forks) comes back as one tar
    assert "checkpoint(s) into" in done.stdout, done.stdout
    tar = out / "checkpoints.tar"
    carried = tarfile.open(tar).getnames() if tar.exists() else []
    again = _run(tmp_path / "again", **env, SECONDS_BUDGET="40",
                 RESUME=str(out / "converge-smoke.jsonl"),
                 RESUME_CKPT=str(tar) if carried else "")  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    if carried:  # and the next session puts them back where its sweep looks for them
        assert f"unpacked {len(carried)} checkpoint(s)" in again.stdout + again.stderr
    resumed = load_results(tmp_path / "again" / "converge-smoke.jsonl")
    assert resumed[: len(records)] == records  # nothing finished is rerun or lost


def test_gpu_session_refuses_an_unknown_experiment(tmp_path):
    env = {**os.environ, "OUT": str(tmp_path), "EXPERIMENT": "bogus"}
    done = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, env=env)
    assert done.returncode == 2 and "EXPERIMENT must be converge or scale" in done.stderr


def test_jobs_that_fit_reads_the_devices_own_rows_of_the_gpu_benchmark():
    """The H200 benchmark of 2026-12-04 holds CPU and CUDA rows: the GPU's processes are sized
    from the CUDA rows (the first GPU session read the CPU rows and ran one process)."""
    from rnnlab.experiments.runner import jobs_that_fit

    bench = json.loads((ROOT / "data" / "bench" / "depth-cost-cuda.json").read_text())
    size = bench["provenance"]["sizes"]
    step = {
        dev: max(r["train_s_per_token"] for r in bench["rows"]
                 if r["device"].startswith(dev) and r["num_layers"] <= 2)
        * size["batch"] * size["seq_len"]
        for dev in ("cuda", "cpu")
    }  # fmt: skip
    assert step["cuda"] < step["cpu"] / 5
    for dev in ("cuda", "cpu"):
        window = 1.5 * 16_000 * step[dev] * 3.5  # three runs fit one after another, four do not
        assert jobs_that_fit(bench, dev, 16_000, window, most=12) == 3
        assert jobs_that_fit(bench, dev, 16_000, window, most=2) == 2
        assert jobs_that_fit(bench, dev, 16_000, 1.0, most=12) == 1  # never fewer than one
    with pytest.raises(ValueError, match="no one- or two-layer row measured on 'mps'"):
        jobs_that_fit(bench, "mps", 16_000, 100.0, most=12)
    with pytest.raises(ValueError, match="steps and most must be >= 1"):
        jobs_that_fit(bench, "cuda", 0, 100.0, most=12)


@pytest.mark.slow
def test_gpu_session_measures_packing_and_sizes_its_jobs_by_it(tmp_path):
    """PACKING="1 2" runs benchmarks/bench_packing.py first and JOBS=auto follows its
    measurement; MPS=1 where there is no MPS (a CPU) says so and goes on without it."""
    out = tmp_path / "out"
    # a session too short for any run: the measurement and the choice are what is checked here
    done = _run(out, JOBS="auto", MAX_JOBS="2", EXPERIMENT="", MPS="1", PACKING="1 2",
                PACKING_SECONDS="1", SECONDS_BUDGET="40")  # fmt: skip
    text = done.stdout + done.stderr
    assert done.returncode == 0, text
    assert "MPS: not on this machine" in text
    rows = json.loads((out / "packing-cpu.json").read_text())["rows"]
    assert [r["jobs"] for r in rows] == [1, 2]
    assert all(r["steps_per_s_total"] > 0 and r["device"] == "cpu" for r in rows)
    assert "(measured: jobs_from_packing)" in text
    assert "no time left for training runs" in text
    assert "steps/s in all" in (out / "depth-cost.log").read_text()
    assert len(list(out.iterdir())) <= 8


def test_jobs_from_packing_takes_the_most_steps_in_all_among_runs_that_finish():
    def row(jobs, slowest, total):
        return {"jobs": jobs, "steps_per_s_slowest": slowest, "steps_per_s_total": total}

    # the H200 without MPS, roughly: one process 190 steps/s, two 145 each, eight under 63
    packing = {"rows": [row(1, 190, 190), row(2, 145, 290), row(8, 60, 480)]}
    # 16,000 steps in 350 s: 8 processes would need 267 s each (x1.5 = 400 s): they do not fit
    assert jobs_from_packing(packing, 16_000, 350, 12) == 2
    assert jobs_from_packing(packing, 16_000, 650, 12) == 8  # now they do, and train the most
    assert jobs_from_packing(packing, 16_000, 650, 4) == 2  # at most MAX_JOBS
    # nothing finishes in 60 s: the fastest processes, so that the most is carried on
    assert jobs_from_packing(packing, 16_000, 60, 12) == 1
    with pytest.raises(ValueError, match="no row of 1 to 12"):
        jobs_from_packing({"rows": []}, 16_000, 500, 12)
    with pytest.raises(ValueError, match="steps and most must be >= 1"):
        jobs_from_packing(packing, 0, 500, 12)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_the_packing_benchmark_stops_at_once_when_its_processes_fail():
    """A process that cannot train (here: no CUDA) ends the measurement with a non-zero exit,
    not a wait of minutes for results that will never come; gpu_session.sh then sizes JOBS
    without it and stops MPS."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "lib")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_packing.py"), "--device", "cuda",
         "--jobs", "2", "--seconds", "1"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0 and "a process failed" in done.stderr, done.stderr
