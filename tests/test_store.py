"""The results store: many writers, one file, nothing lost; torn and corrupt lines."""

import json
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from rnnlab.experiments.labs import get_lab
from rnnlab.experiments.store import (
    ResultsFileError,
    ResultsStore,
    TornLineWarning,
    load_results,
    lock_path,
)


def fake_record(run_id: str, pad: int = 0) -> dict:
    """The smallest dict that reads back as a run record (``pad`` bytes of filler)."""
    return {
        "run_id": run_id, "lab": "lab-c", "profile": "smoke", "role": "eval", "seed": 0,
        "metrics": {"test": 0.5}, "experiment": {}, "pad": "x" * pad,
    }  # fmt: skip


def _append_many(path: str, prefix: str, n: int, start) -> None:
    start.wait()
    store = ResultsStore(path)
    for i in range(n):
        store.append(fake_record(f"{prefix}-{i}"))
        store.append(fake_record(f"shared-{i}"))  # every process finishes these "runs" too


def test_concurrent_writers_lose_nothing_and_write_each_run_once(tmp_path):
    out = tmp_path / "r.jsonl"
    ctx = mp.get_context("spawn")
    start = ctx.Event()
    procs = [
        ctx.Process(target=_append_many, args=(str(out), f"p{k}", 40, start)) for k in range(4)
    ]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    lines = out.read_text().splitlines()
    ids = [json.loads(line)["run_id"] for line in lines]
    expected = {f"p{k}-{i}" for k in range(4) for i in range(40)} | {
        f"shared-{i}" for i in range(40)
    }
    assert len(ids) == len(set(ids)) == len(expected) == 200  # duplicates never even reach disk
    assert set(ids) == expected
    assert lock_path(out).exists()


def test_two_cli_shards_writing_one_file_keep_every_run(tmp_path):
    """`run --shard 1/2` and `--shard 2/2` with the same --out, started together."""
    out = tmp_path / "same.jsonl"
    env = {**os.environ, "TQDM_DISABLE": "1"}
    cmds = [
        [sys.executable, "-m", "rnnlab", "run", "lab-c", "--profile", "smoke", "--out", str(out),
         "--shard", f"{i}/2", "--threads", "1"]
        for i in (1, 2)
    ]  # fmt: skip
    procs = [
        subprocess.Popen(c, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for c in cmds
    ]
    for p in procs:
        _, err = p.communicate(timeout=240)
        assert p.returncode == 0, err.decode()[-2000:]
    expected = _all_run_ids(get_lab("lab-c").sweep("smoke"))  # every run of the whole sweep
    lines = out.read_text().splitlines()
    ids = [json.loads(line)["run_id"] for line in lines]
    assert len(lines) == len(expected) > 8  # more runs than either shard holds
    assert set(ids) == expected


def _all_run_ids(spec) -> set[str]:
    from rnnlab.experiments.experiment import run_id

    ids = set()
    for e in spec.experiments:
        assert len(e.lr_grid) == 1  # smoke: no tuning phase, so the ids are known up front
        ids |= {run_id(e, "eval", s, e.lr_grid[0]) for s in spec.seeds}
    return ids


def test_torn_last_line_is_reported_then_repaired_by_the_next_write(tmp_path):
    out = tmp_path / "r.jsonl"
    store = ResultsStore(out)
    store.append(fake_record("a"))
    with out.open("a") as fh:
        fh.write('{"run_id": "b", "lab": "lab-c", "prof')  # a writer killed mid-line
    with pytest.warns(TornLineWarning, match=r"r\.jsonl:2: the last line is cut short"):
        assert [r["run_id"] for r in load_results(out)] == ["a"]
    assert store.append(fake_record("c")) is True
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning any more: the fragment is gone
        assert [r["run_id"] for r in load_results(out)] == ["a", "c"]
    assert len(out.read_text().splitlines()) == 2


def test_complete_last_line_without_newline_is_kept(tmp_path):
    out = tmp_path / "r.jsonl"
    out.write_text(json.dumps(fake_record("a")))  # valid, but the newline never made it
    store = ResultsStore(out)
    store.append(fake_record("b"))
    assert [r["run_id"] for r in load_results(out)] == ["a", "b"]


def test_corrupt_line_that_is_not_last_raises_and_nothing_is_written(tmp_path):
    out = tmp_path / "r.jsonl"
    good = json.dumps(fake_record("a")) + "\n"
    out.write_text(good + '{"run_id": "b", "la\n' + json.dumps(fake_record("c")) + "\n")
    damaged = out.read_text()
    with pytest.raises(ResultsFileError, match=r"r\.jsonl:2: not valid JSON"):
        load_results(out)
    with pytest.raises(ResultsFileError, match=r"r\.jsonl:2"):
        ResultsStore(out).append(fake_record("d"))
    assert out.read_text() == damaged
    # a complete (newline-terminated) bad last line is corruption too, not a torn write
    out.write_text(good + "{not json}\n")
    with pytest.raises(ResultsFileError, match=r":2: not valid JSON"):
        load_results(out)


def test_duplicated_run_ids_are_read_once(tmp_path):
    out = tmp_path / "r.jsonl"
    first, again = fake_record("a"), dict(fake_record("a"), seed=99)
    out.write_text("".join(json.dumps(r) + "\n" for r in (first, fake_record("b"), again)))
    recs = load_results(out)
    assert [r["run_id"] for r in recs] == ["a", "b"] and recs[0]["seed"] == 0
    assert ResultsStore(out).append(fake_record("a")) is False
    assert len(out.read_text().splitlines()) == 3


WRITER = """
import sys
from rnnlab.experiments.store import ResultsStore
store = ResultsStore(sys.argv[1])
i = 0
while True:
    store.append({"run_id": f"r{i}", "lab": "lab-c", "profile": "smoke", "role": "eval",
                  "seed": 0, "metrics": {}, "experiment": {}, "pad": "x" * 3_000_000})
    print(f"r{i}", flush=True)  # only after append returned: this run is on disk
    i += 1
"""


def test_writer_killed_mid_write_loses_at_most_its_run_in_progress(tmp_path):
    out = tmp_path / "r.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(out)], stdout=subprocess.PIPE, text=True
    )
    confirmed = [proc.stdout.readline().strip() for _ in range(3)]
    time.sleep(0.01)  # land the kill inside a later (3 MB) write if we can
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    confirmed += [line.strip() for line in proc.stdout if line.strip()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TornLineWarning)
        ids = [r["run_id"] for r in load_results(out)]
    assert set(confirmed) <= set(ids)  # every run the writer reported finished is there
    assert len(ids) - len(confirmed) <= 1  # at most the run being written when killed
    ResultsStore(out).append(fake_record("after"))  # the next writer repairs any torn tail
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [r["run_id"] for r in load_results(out)][-1] == "after"


def test_lock_path_and_unwritable_locations(tmp_path):
    from rnnlab.experiments.store import ResultsFileUnwritable

    assert lock_path(Path("runs/x.jsonl")) == Path("runs/x.jsonl.lock")
    (tmp_path / "file").write_text("")
    for bad in (Path("/proc/x.jsonl"), tmp_path / "file" / "x.jsonl"):
        with pytest.raises(ResultsFileUnwritable, match="cannot"):
            ResultsStore(bad).check_writable()


def test_checking_a_new_out_leaves_no_file_and_an_old_one_unchanged(tmp_path):
    """The up-front check creates nothing a later refusal would leave behind, and does not
    touch an existing results file."""
    new = tmp_path / "sub" / "new.jsonl"
    ResultsStore(new).check_writable()
    assert not new.exists()
    old = tmp_path / "old.jsonl"
    ResultsStore(old).append(fake_record("a"))
    before = old.read_bytes()
    ResultsStore(old).check_writable()
    assert old.read_bytes() == before
