"""Sweeps on a real Dask cluster: same runs and numbers as local processes; resume after the
scheduler dies."""

import dataclasses
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from rnnlab.__main__ import main  # noqa: E402
from rnnlab.experiments.labs import get_lab  # noqa: E402
from rnnlab.experiments.options import RunOptions  # noqa: E402
from rnnlab.experiments.store import load_results  # noqa: E402
from rnnlab.experiments.sweep import SweepSpec, run_sweep  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two single-threaded worker processes on this machine."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c:
        yield c


def tuned_spec() -> SweepSpec:
    """Two lab-c smoke experiments with a two-rate grid: tuning runs, then evaluation runs."""
    spec = get_lab("lab-c").sweep("smoke", (0, 1))
    exps = tuple(dataclasses.replace(e, lr_grid=(1e-3, 3e-2)) for e in spec.experiments[:2])
    return SweepSpec(spec.lab, spec.profile, exps, spec.seeds)


def test_dask_gives_the_same_runs_and_numbers_as_local_processes(tmp_path, cluster):
    spec = tuned_spec()
    local = run_sweep(spec, tmp_path / "local.jsonl", options=RunOptions(jobs=2))
    dask = run_sweep(
        spec, tmp_path / "dask.jsonl", options=RunOptions(scheduler=cluster.scheduler_address)
    )
    assert len(dask) == spec.n_runs() == 12 and not dask.failures  # 2 x (2 rates x 2 seeds + 2)
    by_id = {r["run_id"]: r for r in local}
    assert set(by_id) == {r["run_id"] for r in dask}
    for r in dask:
        same = {k: v for k, v in r["metrics"].items() if k != "wall_time_s"}
        assert same == {k: by_id[r["run_id"]]["metrics"][k] for k in same}, r["run_id"]
        assert r["threads"] == 1
    roles = [r["role"] for r in load_results(tmp_path / "dask.jsonl")]
    first_eval = roles.index("eval")
    assert roles[:first_eval].count("tune") >= 2  # an experiment's tuning came before its eval


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_sweep_resumes_after_the_scheduler_is_killed(tmp_path, cluster, monkeypatch):
    dask_bin = Path(sys.executable).parent / "dask"
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "TQDM_DISABLE": "1", "RNNLAB_DASK_TIMEOUT": "10"}
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    sched = subprocess.Popen(
        [dask_bin, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        **quiet,
    )
    worker = subprocess.Popen(
        [dask_bin, "worker", addr, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"], **quiet
    )
    out = tmp_path / "lab-c.jsonl"
    args = ["run", "lab-c", "--profile", "smoke", "--seeds", "6", "--out", str(out)]
    cli = subprocess.Popen(
        [sys.executable, "-m", "rnnlab", *args, "--scheduler", addr],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.time() + 150
        while time.time() < deadline and (
            not out.exists() or len(out.read_text().splitlines()) < 2
        ):
            time.sleep(0.05)
        sched.send_signal(signal.SIGKILL)
        sched.wait()
        _, err = cli.communicate(timeout=60)
    finally:
        for p in (cli, sched, worker):
            if p.poll() is None:
                p.kill()
                p.wait()
    before = out.read_text().splitlines()
    expected = get_lab("lab-c").sweep("smoke", tuple(range(6))).n_runs()
    assert 2 <= len(before) < expected, "the kill came too late to test resume"
    assert cli.returncode == 1 and "lost the Dask scheduler" in err, err[-3000:]
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 2, err[-3000:]  # one line
    # a new scheduler (the module's cluster), found through $DASK_SCHEDULER_ADDRESS
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", cluster.scheduler_address)
    again: list[str] = []
    monkeypatch.setattr(
        "rnnlab.experiments.console.progress_line", lambda rec, d, t: again.append(rec["run_id"])
    )
    assert main(args) == 0
    after = out.read_text().splitlines()
    assert after[: len(before)] == before  # finished runs kept as they were
    ids = [r["run_id"] for r in load_results(out)]
    assert len(after) == len(ids) == len(set(ids)) == expected
    assert len(again) == expected - len(before)  # only the missing runs ran


def test_unreachable_scheduler_is_one_clear_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RNNLAB_DASK_TIMEOUT", "1")
    addr = f"tcp://127.0.0.1:{_free_port()}"
    args = ["run", "lab-c", "--profile", "smoke", "--out", str(tmp_path / "x.jsonl")]
    assert main([*args, "--scheduler", addr]) == 2
    assert f"cannot reach the Dask scheduler at {addr}" in capsys.readouterr().err
