"""scripts/gpu_session.sh, the one command a GPU session runs, checked here on the CPU with the
smoke profile: it writes every file it promises, a scale results file with provenance, and it
resumes from a committed file instead of rerunning it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from rnnlab.experiments import scale
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
        "BENCH_ARGS": "--budgets 20000 --depths 1,2",
        "SECONDS_BUDGET": "400",
        "PYTHON": sys.executable,
        "RNNLAB_RUNS_DIR": str(out.parent / "runs"),
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
        "scale.log",
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
