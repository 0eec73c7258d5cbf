"""Faults caused for real: a full disk, a merge racing a sweep, a text too short, a notes file as
--out, a killed parent of a --jobs pool. Each ends in a non-zero exit with one line naming the
cause, or in a complete results file; every run reported as recorded is in the file."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
import torch

import rnnlab.experiments.sweep as sweep
from rnnlab.__main__ import main
from rnnlab.experiments.labs import get_lab
from rnnlab.experiments.owntext import RARE_WARNING_SHARE, check_text
from rnnlab.experiments.store import (
    MergeConflict,
    ResultsStore,
    ResultsWriteFailed,
    TornLineWarning,
    load_results,
    merge_results,
)

LIB = str(Path(__file__).resolve().parents[1] / "lib")
LAB_C = ["run", "lab-c", "--profile", "smoke", "--seeds", "1"]


def fake_record(run_id: str, test: float = 0.5) -> dict:
    return {
        "run_id": run_id, "lab": "lab-c", "profile": "smoke", "role": "eval", "seed": 0,
        "metrics": {"test": test}, "experiment": {},
    }  # fmt: skip


def acknowledged(stdout: str) -> int:
    """How many runs a sweep's console reported as recorded (its ``[k/N]`` lines)."""
    return sum(1 for line in stdout.splitlines() if line.startswith("["))


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


# ----------------------------------------------------------------------------- a full disk


def small_disk(monkeypatch, out: Path, capacity: int | None) -> None:
    """Make ``out`` live on a disk that holds ``capacity`` bytes (``None``: 2.5 records, sized
    at the first write): a write past it is short, the next one raises ENOSPC, as on a full
    tmpfs."""
    real = os.pwrite
    cap = [capacity]

    def pwrite(fd, data, offset):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}") == str(out)
        except OSError:
            target = False
        if target:
            if cap[0] is None:
                cap[0] = int(len(data) * 2.5)
            room = cap[0] - offset
            if room <= 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            data = bytes(data)[:room]
        return real(fd, data, offset)

    monkeypatch.setattr(os, "pwrite", pwrite)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to find the fd")
def test_a_disk_that_fills_up_stops_the_sweep_and_keeps_every_acknowledged_run(
    tmp_path, capsys, monkeypatch
):
    out = tmp_path / "full.jsonl"
    small_disk(monkeypatch, out, None)
    assert main([*LAB_C, "--out", str(out)]) == 1
    captured = capsys.readouterr()
    (line,) = error_lines(captured.err)
    assert "No space left on device" in line and str(out) in line
    assert "Traceback" not in captured.err
    with warnings.catch_warnings():
        warnings.simplefilter("error", TornLineWarning)  # the partial line was cut off again
        records = load_results(out)
    assert len(records) == acknowledged(captured.out) == 2
    # space freed: the same command resumes and completes, the two runs kept as they were
    monkeypatch.undo()
    kept = out.read_bytes()
    assert main([*LAB_C, "--out", str(out)]) == 0
    assert out.read_bytes().startswith(kept)
    assert len(load_results(out)) == get_lab("lab-c").sweep("smoke", (0,)).n_runs()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to find the fd")
def test_an_already_full_disk_is_one_line(tmp_path, capsys, monkeypatch):
    out = tmp_path / "full.jsonl"
    small_disk(monkeypatch, out, 0)
    assert main([*LAB_C, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert len(error_lines(err)) == 1 and "Traceback" not in err
    assert out.read_bytes() == b""


def test_short_writes_are_completed_and_errors_leave_the_file_intact(tmp_path, monkeypatch):
    out = tmp_path / "r.jsonl"
    store = ResultsStore(out)
    store.append(fake_record("a"))
    before = out.read_bytes()
    real = os.pwrite
    monkeypatch.setattr(os, "pwrite", lambda fd, data, off: real(fd, bytes(data)[:7], off))
    assert store.append(fake_record("b")) is True  # 7 bytes at a time, but all of them
    assert [r["run_id"] for r in load_results(out)] == ["a", "b"]
    before = out.read_bytes()

    def half_then_fail(fd, data, off, calls=[]):  # noqa: B006 (counts calls)
        calls.append(off)
        if len(calls) > 1:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real(fd, bytes(data)[: len(data) // 2], off)

    monkeypatch.setattr(os, "pwrite", half_then_fail)
    with pytest.raises(ResultsWriteFailed, match="Input/output error"):
        store.append(fake_record("c"))
    assert out.read_bytes() == before  # the half line is gone, "a" and "b" untouched


# ----------------------------------------------------------------------------- merges

APPENDER = """
import sys
from rnnlab.experiments.store import ResultsStore
store = ResultsStore(sys.argv[1])
for i in range(int(sys.argv[2])):
    store.append({"run_id": f"live-{i}", "lab": "lab-c", "profile": "smoke", "role": "eval",
                  "seed": 0, "metrics": {"test": 0.5}, "experiment": {}})
    print(f"live-{i}", flush=True)  # only after append returned: acknowledged
"""


def test_a_merge_racing_an_appender_loses_no_acknowledged_run(tmp_path):
    out, part = tmp_path / "live.jsonl", tmp_path / "part.jsonl"
    part.write_text("".join(json.dumps(fake_record(f"part-{i}")) + "\n" for i in range(50)))
    env = {**os.environ, "PYTHONPATH": LIB}
    appender = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(out), "400"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    merges = 0
    while appender.poll() is None:
        merge_results(out, [part])
        merges += 1
    acked = [line.strip() for line in appender.stdout if line.strip()]
    assert appender.returncode == 0 and merges >= 2
    ids = [r["run_id"] for r in load_results(out)]
    assert len(ids) == len(set(ids))
    assert set(acked) <= set(ids) and len(acked) == 400
    assert {f"part-{i}" for i in range(50)} <= set(ids)


def test_conflicting_records_are_an_error_naming_both_files_unless_preferred(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(json.dumps(fake_record("r", 0.5)) + "\n")
    b.write_text(json.dumps(fake_record("r", 0.9)) + "\n" + json.dumps(fake_record("s")) + "\n")
    out = tmp_path / "m.jsonl"
    assert main(["merge", str(a), str(b), "--out", str(out)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "run r has different metrics" in line and str(a) in line and str(b) in line
    assert not out.exists()
    with pytest.raises(MergeConflict):
        merge_results(out, [b, a])
    for prefer, test in (("first", 0.5), ("last", 0.9)):
        assert main(["merge", str(a), str(b), "--out", str(out), "--prefer", prefer]) == 0
        recs = {r["run_id"]: r for r in load_results(out)}
        assert recs["r"]["metrics"]["test"] == test and set(recs) == {"r", "s"}
        out.unlink()
    # the same run with the same metrics in two files is simply kept once
    assert main(["merge", str(a), str(a), "--out", str(out)]) == 0
    assert len(load_results(out)) == 1


def test_merge_into_a_folder_is_one_line(tmp_path, capsys):
    a = tmp_path / "a.jsonl"
    a.write_text(json.dumps(fake_record("r")) + "\n")
    assert main(["merge", str(a), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1 and "is a folder" in err


# ----------------------------------------------------------------------------- not our file


@pytest.mark.parametrize(
    "notes",
    ["remember: rerun with lr 0.01", "my notes\nimportant, no final newline", "{not json\n"],
)
def test_an_out_that_is_not_a_results_file_is_refused_and_left_intact(tmp_path, capsys, notes):
    out = tmp_path / "notes.txt"
    out.write_text(notes)
    assert main([*LAB_C, "--out", str(out)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "is not a results file" in line and str(out) in line
    assert out.read_text() == notes
    assert main(["merge", str(out), "--out", str(tmp_path / "m.jsonl")]) == 2
    assert main(["merge", str(tmp_path / "none.jsonl"), "--out", str(out)]) == 2
    with pytest.raises(ValueError, match="not a results file"):
        ResultsStore(out).append(fake_record("a"))
    assert out.read_text() == notes


# ----------------------------------------------------------------------------- run options


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--seeds", "999999999999"], "--seeds as a count must be from 1 to 1000"),
        (["--seeds", "-3"], "--seeds as a count must be from 1 to 1000"),
        (["--seeds", "0,-1"], "--seeds must list seeds from 0 to"),
        (["--device", "bogus"], "device must be 'auto', 'cpu'"),
        (["--jobs", "0"], "--jobs must be an integer >= 1"),
    ],
)
def test_bad_run_options_are_one_usage_error_before_any_run(tmp_path, capsys, extra, needle):
    out = tmp_path / "c.jsonl"
    argv = ["run", "lab-c", "--profile", "smoke", "--out", str(out), *extra]
    assert main(argv) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert needle in line
    assert acknowledged(captured.out) == 0 and "FAILED" not in captured.out
    assert not Path(f"{out}.failed").exists()


def test_run_scale_seeds_use_the_same_parser(tmp_path, capsys):
    out = tmp_path / "s.jsonl"
    argv = ["run-scale", "--profile", "smoke", "--seeds", "999999999999", "--out", str(out)]
    assert main(argv) == 2
    assert "--seeds as a count must be from 1 to 1000" in capsys.readouterr().err


def own_text(tmp_path: Path, n_chars: int) -> Path:
    path = tmp_path / "own.txt"
    line = "Tyger Tyger, burning bright, in the forests of the night;\n"
    path.write_text((line * (n_chars // len(line) + 1))[:n_chars], encoding="utf-8")
    return path


def test_a_text_too_short_for_the_design_is_refused_before_any_run(tmp_path, capsys):
    path = own_text(tmp_path, 3_000)
    out = tmp_path / "t.jsonl"
    argv = ["run", "lab-b", "--profile", "smoke", "--text", str(path), "--out", str(out)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert "holds 3,000 characters; the design needs at least 10,251" in line
    assert not out.exists() and not Path(f"{out}.failed").exists()


def test_every_failed_run_on_a_text_gives_a_nonzero_exit(tmp_path, capsys, monkeypatch):
    path = own_text(tmp_path, 12_000)
    out = tmp_path / "t.jsonl"

    def broken(*args, **kwargs):
        raise RuntimeError("simulated crash")

    monkeypatch.setattr(sweep, "run_unit", broken)
    argv = ["run", "lab-b", "--profile", "smoke", "--text", str(path), "--out", str(out)]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert "text: 12,000 characters" in captured.out
    assert "error: 4 run(s) failed" in captured.err


def test_text_branch_checks_out_device_and_scheduler_up_front(tmp_path, capsys, monkeypatch):
    path = own_text(tmp_path, 12_000)
    base = ["run", "lab-b", "--profile", "smoke", "--text", str(path)]
    assert main([*base, "--out", str(tmp_path / "t.jsonl"), "--device", "bogus"]) == 2
    assert main([*base, "--out", "/proc/t.jsonl"]) == 2
    assert "cannot" in capsys.readouterr().err
    pytest.importorskip("distributed")
    monkeypatch.setenv("RNNLAB_DASK_TIMEOUT", "1")
    addr = "tcp://127.0.0.1:9"  # nothing listens on the discard port
    assert main([*base, "--out", str(tmp_path / "t.jsonl"), "--scheduler", addr]) == 2
    captured = capsys.readouterr()
    assert f"cannot reach the Dask scheduler at {addr}" in captured.err
    assert acknowledged(captured.out) == 0


def test_the_alphabet_is_reported_and_a_large_rare_share_warned(tmp_path):
    lm = [e for e in get_lab("lab-b").sweep("smoke").experiments if e.task.startswith("charlm")]
    common = own_text(tmp_path, 12_000).read_text(encoding="utf-8")
    report = check_text(common, lm, "own.txt")
    assert report.alphabet == len(set(common)) and report.rare_share == 0.0
    wide = common + "".join(chr(0x4E00 + i) for i in range(5_000))  # 5,000 characters seen once
    report = check_text(wide, lm, "own.txt")
    assert report.alphabet == len(set(common)) + 5_000 and report.kept == len(set(common))
    assert report.rare_share == pytest.approx(5_000 / len(wide))
    assert report.rare_share > RARE_WARNING_SHARE
    assert "5,000 (29.4% of the text) become <rare>" in report.describe()


# ----------------------------------------------------------------------------- reports


def test_summarize_and_status_report_failed_runs(tmp_path, capsys, monkeypatch):
    from rnnlab.course.status import design_progress_text

    out = tmp_path / "c.jsonl"
    real, calls = sweep.run_unit, []

    def flaky(exp, **kw):
        calls.append(exp.key)
        if len(calls) == 1:
            raise RuntimeError("simulated crash")
        return real(exp, **kw)

    monkeypatch.setattr(sweep, "run_unit", flaky)
    assert main([*LAB_C, "--out", str(out)]) == 1
    capsys.readouterr()
    assert main(["summarize", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"1 run(s) of {out} failed" in err and f"{out}.failed" in err
    # status: a design's committed file with a failure on record says so
    results = tmp_path / "results"
    results.mkdir()
    (results / "lab-c-cpu.jsonl").write_text("")
    Path(f"{out}.failed").rename(results / "lab-c-cpu.jsonl.failed")
    assert "1 FAILED (errors in lab-c-cpu.jsonl.failed)" in design_progress_text(results)


# ----------------------------------------------------------------------------- processes


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_parent_takes_its_jobs_pool_with_it(tmp_path):
    out = tmp_path / "c.jsonl"
    env = {**os.environ, "PYTHONPATH": LIB, "TQDM_DISABLE": "1"}
    argv = [*LAB_C[:-1], "3", "--jobs", "2", "--out", str(out)]
    parent = subprocess.Popen(
        [sys.executable, "-m", "rnnlab", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        start_new_session=True,
    )
    workers: list[int] = []
    try:
        deadline = time.time() + 120
        while time.time() < deadline and len(workers) < 2:
            workers = [
                k
                for k in _children(parent.pid)
                if "resource_tracker" not in Path(f"/proc/{k}/cmdline").read_text()
            ]
            time.sleep(0.1)
        assert len(workers) >= 2, "the pool never started"
        while time.time() < deadline and not (out.exists() and out.read_bytes()):
            time.sleep(0.05)  # a first run is recorded: the workers are up and training
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.time() + 5
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        survivors = [w for w in workers if _alive(w)]
        assert not survivors, f"orphaned pool workers: {survivors}"
        acked = acknowledged(parent.stdout.read())
        assert acked <= len(load_results(out))  # every run it reported is on disk
    finally:
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_a_scheduler_without_workers_says_so_within_seconds(tmp_path, capsys, monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv("RNNLAB_DASK_WORKER_TIMEOUT", "4")
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as cl:
        t0 = time.perf_counter()
        argv = [*LAB_C, "--out", str(tmp_path / "c.jsonl"), "--scheduler", cl.scheduler_address]
        code = main(argv)
        elapsed = time.perf_counter() - t0
    assert code == 2 and elapsed < 30
    err = capsys.readouterr().err
    assert "no Dask worker is connected" in err and "has no workers (waited 4 s)" in err


def long_run(exp, *, role, seed, lr, progress, ckpt, marker) -> dict:
    """A run far longer than the test (200,000 steps) that marks when it is under way; module
    level so that spawned pool workers can import it."""
    from test_checkpoint import CFG, lm_model, lm_task

    from rnnlab.core.train import train_model

    torch.set_num_threads(1)
    task = lm_task()
    model = lm_model(task, seed)
    calls = []

    def mark(module, args, output):
        calls.append(1)
        if len(calls) == 30:
            Path(marker).touch()

    model.register_forward_hook(mark)
    cfg = CFG.replace(max_steps=200_000, eval_every=100)
    return train_model(model, task, cfg, seed=seed, device="cpu", checkpoint=ckpt,
                       checkpoint_every_s=3600, progress=False).to_dict()  # fmt: skip


POOL_SWEEP = """
import signal, sys
sys.path.insert(0, {tests!r})
from test_faults import long_run
from rnnlab.experiments.runner import ProcessPool, terminate_as_interrupt
if {background!r}:  # as a shell starts ``cmd &``: SIGINT ignored, inherited by what it spawns
    signal.signal(signal.SIGINT, signal.SIG_IGN)
terminate_as_interrupt()  # as python -m rnnlab does
pool = ProcessPool(long_run, {{"ckpt": {ckpt!r}, "marker": {marker!r}}}, jobs=1)
with pool.started():
    fut = pool.submit((None, "tune", 5, 0.1))
    pool.wait_first([fut])
"""


def _start_and_signal(
    script: str, marker: Path, sig: int, what: str, before=None
) -> tuple[int, str, list[int]]:
    """Run ``script`` (a sweep) in its own session, wait until it touches ``marker``, call
    ``before(workers)``, send it ``sig`` (it alone, as ``kill`` does) and return its exit status,
    its stderr and the pool workers it had when signalled; it is killed with its group if it
    outlives a minute."""
    env = {**os.environ, "PYTHONPATH": LIB, "TQDM_DISABLE": "1"}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)  # fmt: skip
    try:
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None and not marker.exists():
            time.sleep(0.05)
        assert marker.exists(), f"the run never {what}"
        workers = [k for k in _children(proc.pid)
                   if "resource_tracker" not in Path(f"/proc/{k}/cmdline").read_text()]  # fmt: skip
        if before is not None:
            before(workers)
        os.kill(proc.pid, sig)
        _, err = proc.communicate(timeout=60)  # not the run's own length
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, err, workers


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(
    "background, stop", [(False, signal.SIGINT), (True, signal.SIGTERM)], ids=["int", "term"]
)
def test_an_interrupted_sweep_stops_its_workers_and_they_keep_their_step(
    tmp_path, background, stop
):
    """``kill -INT <sweep>`` reaches the sweep alone, not its pool's workers. Before, the sweep
    then waited for every run in flight to finish (hours) and threw their records away; now it
    passes the interrupt on, and each worker saves the step it is in and stops. A sweep started
    in the background ignores SIGINT; ``kill``/``pkill`` (SIGTERM) stops it the same way, where
    before it died at once and took its workers' unsaved steps with it."""
    ckpt, marker = tmp_path / "run.pt", tmp_path / "training"
    script = POOL_SWEEP.format(tests=str(Path(__file__).parent), ckpt=str(ckpt),
                               marker=str(marker), background=background)  # fmt: skip

    def no_save_yet(workers: list[int]) -> None:
        assert workers and not ckpt.exists()

    _, err, workers = _start_and_signal(script, marker, stop, "started", before=no_save_yet)
    assert "KeyboardInterrupt" in err or "Terminated: signal 15" in err, err
    state = torch.load(ckpt, weights_only=True)
    assert 25 <= state["step"] < 200_000  # the step it was in, kept for the resumed run
    assert not any(_alive(w) for w in workers)


def finishing_unit(*args, marker: str | None = None, **kwargs) -> dict:
    """The real run (``rnnlab.experiments.unit.run_unit``), then a hand-back slowed down, the
    interrupt ignored: a run that finishes just as the sweep is told to stop."""
    from rnnlab.experiments.unit import run_unit

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    rec = run_unit(*args, **kwargs)
    Path(marker).touch()
    time.sleep(3)
    return rec


FINISHING_SWEEP = """
import functools, sys
sys.path.insert(0, {tests!r})
import rnnlab.experiments.sweep as sweep
from test_faults import finishing_unit
from rnnlab.experiments import converge
from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.runner import terminate_as_interrupt
terminate_as_interrupt()
sweep.run_unit = functools.partial(finishing_unit, marker={marker!r})
converge.run_converge("smoke", {out!r}, options=RunOptions(jobs=2, max_runs=1))
"""


def test_a_run_that_finishes_as_the_sweep_stops_is_still_recorded(tmp_path):
    """Stopped while a run hands back its record, the sweep waits for it and writes it before it
    exits: a finished run is never thrown away, not even at the stop."""
    out, marker = tmp_path / "c.jsonl", tmp_path / "trained"
    script = FINISHING_SWEEP.format(tests=str(Path(__file__).parent), out=str(out),
                                    marker=str(marker))  # fmt: skip
    # SIGTERM while the record is on its way back
    _, err, _ = _start_and_signal(script, marker, signal.SIGTERM, "finished")
    assert "KeyboardInterrupt" in err or "Terminated: signal 15" in err, err
    assert len(load_results(out)) == 2, err  # both runs in flight finished, both are on disk


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["int", "term"])
def test_a_stopped_command_says_what_it_kept_and_exits_128_plus_the_signal(tmp_path, stop):
    """``python -m rnnlab run-converge`` stopped by Ctrl-C or ``kill`` once a run is recorded:
    no traceback (it is a stop, not a crash), one line naming the signal, a count of the runs
    kept that matches the file, how to resume, and the shell's status for that signal."""
    out = tmp_path / "c.jsonl"
    env = {**os.environ, "PYTHONPATH": LIB, "TQDM_DISABLE": "1"}
    cmd = [sys.executable, "-m", "rnnlab", "run-converge", "--profile", "smoke", "--out",
           str(out), "--jobs", "2"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)  # fmt: skip
    try:
        lines = []
        for line in proc.stdout:  # the header, then one line per recorded run
            lines.append(line)
            if line.startswith("[1/"):
                break
        assert f"kill {proc.pid}" in "".join(lines)  # the header says how to stop it now
        os.kill(proc.pid, stop)
        rest, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 128 + stop, err
    assert "Traceback" not in err and f"stopped by {signal.Signals(stop).name}" in err, err
    kept = len(load_results(out))
    assert kept >= 1
    assert f"converge smoke: stopped; {kept} runs in {out}; rerun the same command" in rest, rest
