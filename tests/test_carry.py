"""rnnlab.experiments.carry: the checkpoints of runs in flight travel from a lent machine in one
tar within the size limit, runs in flight first, and only checkpoint files are unpacked."""

from __future__ import annotations

import io
import os
import tarfile
import time

import pytest
import torch

from rnnlab.__main__ import main
from rnnlab.experiments import carry

RUN_A, RUN_B = "0f1def126f59406ad3d8", "9108b51ab68f3c06e91e"
FORK = "0589fc45736aadc7d768.lr0.016.fork"


def _checkpoint(path, step: int, elapsed_s: float, size: int, mtime: float) -> None:
    torch.save({"step": step, "elapsed_s": elapsed_s, "pad": torch.zeros(size // 4)}, path)
    os.utime(path, (mtime, mtime))


def _folder(tmp_path):
    folder = tmp_path / "sweep.jsonl.ckpt"
    folder.mkdir()
    now = time.time()
    _checkpoint(folder / f"{RUN_A}.pt", 4000, 100.0, 40_000, now - 60)
    _checkpoint(folder / f"{RUN_B}.pt", 900, 30.0, 40_000, now - 10)  # the newest
    _checkpoint(folder / f"{FORK}.pt", 8000, 200.0, 40_000, now)  # newer still, but a fork
    (folder / "notes.txt").write_text("not a checkpoint")
    (folder / f".{RUN_A}.pt.123.tmp").write_bytes(b"a save cut off")
    return folder


def test_runs_in_flight_come_first_then_forks_newest_first(tmp_path):
    folder = _folder(tmp_path)
    names = [p.name for p in carry.checkpoints(folder)]
    assert names == [f"{RUN_B}.pt", f"{RUN_A}.pt", f"{FORK}.pt"]
    (folder / "abcdef0123456789abcd.pt").write_bytes(b"PK a save cut off by a full disk")
    os.utime(folder / "abcdef0123456789abcd.pt", (0, 0))  # the oldest
    runs = carry.in_flight(folder)  # the unreadable one is not reported, and does not stop it
    assert [(r.name, r.step) for r in runs] == [(f"{RUN_B}.pt", 900), (f"{RUN_A}.pt", 4000)]
    (folder / "abcdef0123456789abcd.pt").unlink()
    assert runs[1].steps_per_s == pytest.approx(40.0)
    assert carry.checkpoints(tmp_path / "absent") == []


def test_pack_keeps_within_the_limit_and_unpack_restores_the_files(tmp_path):
    folder = _folder(tmp_path)
    size = (folder / f"{RUN_A}.pt").stat().st_size
    tar = tmp_path / "out" / "checkpoints.tar"
    # room for two of the three: the fork, last in order, is left out
    packed, left = carry.pack(folder, tar, 2 * size + 20_000)
    assert packed == [f"{RUN_B}.pt", f"{RUN_A}.pt"] and left == [f"{FORK}.pt"]
    assert tar.stat().st_size <= 2 * size + 20_000
    into = tmp_path / "next" / "sweep.jsonl.ckpt"
    assert sorted(carry.unpack(tar, into)) == sorted(packed)
    for name in packed:
        assert (into / name).read_bytes() == (folder / name).read_bytes()
    # a file already there is this machine's own: kept, not overwritten
    (into / f"{RUN_A}.pt").write_bytes(b"newer here")
    assert carry.unpack(tar, into) == []
    assert (into / f"{RUN_A}.pt").read_bytes() == b"newer here"
    # nothing to pack: no file
    empty = tmp_path / "empty"
    empty.mkdir()
    assert carry.pack(empty, tmp_path / "none.tar", 10**6) == ([], [])
    assert not (tmp_path / "none.tar").exists()
    with pytest.raises(ValueError, match="limit_bytes must be >= 1"):
        carry.pack(folder, tar, 0)


@pytest.mark.parametrize("name", ["../escape.pt", "sub/a0b1c2d3e4.pt", "notes.txt"])
def test_unpack_refuses_anything_but_checkpoint_files(tmp_path, name):
    tar = tmp_path / "bad.tar"
    with tarfile.open(tar, "w") as t:
        info = tarfile.TarInfo(name)
        info.size = 3
        t.addfile(info, io.BytesIO(b"abc"))
    with pytest.raises(ValueError, match="only checkpoint files"):
        carry.unpack(tar, tmp_path / "into")
    assert not (tmp_path / "into").exists()


def test_the_carry_command_prints_the_runs_in_flight_and_names_missing_options(tmp_path, capsys):
    folder = _folder(tmp_path)
    tar = tmp_path / "checkpoints.tar"
    assert main(["carry", "pack", str(folder), "--to", str(tar)]) == 0
    out = capsys.readouterr().out
    assert f"in flight: {RUN_A}.pt at step 4,000 after 100 s (40.0 steps/s)" in out
    assert "packed 3 checkpoint(s)" in out
    assert main(["carry", "unpack", str(tar), "--into", str(tmp_path / "n")]) == 0
    assert "unpacked 3 checkpoint(s)" in capsys.readouterr().out
    assert main(["carry", "pack", str(folder)]) == 2
    assert "needs --to" in capsys.readouterr().err
    assert main(["carry", "unpack", str(tar)]) == 2
    assert "needs --into" in capsys.readouterr().err
