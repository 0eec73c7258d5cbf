"""Carry the checkpoints of runs in flight between machines that share no disk.

A lent GPU is given back at a fixed time, with its disk: ``scripts/gpu_session.sh`` stops its
sweep at the time budget, and every run still in flight has saved the step it was in
(:func:`rnnlab.core.train.train_model` saves on ``SIGINT``). Those checkpoints, and the forks
that shorter runs would start from, live in the sweep's ``<out>.ckpt`` folder, which would be
lost with the machine. :func:`pack` puts them in one tar file that fits what comes back from a
lent machine (one file of at most 16 MiB); :func:`unpack` puts them into the next session's
folder, where the sweep resumes each run from its step. A checkpoint is only ever resumed by the
run it belongs to (:func:`rnnlab.core.checkpoint.run_fingerprint`), so a stale one costs nothing.

    python -m rnnlab carry pack FOLDER --to checkpoints.tar --limit-mib 15
    python -m rnnlab carry unpack checkpoints.tar --into FOLDER
"""

from __future__ import annotations

import re
import tarfile
from dataclasses import dataclass
from pathlib import Path

# a run's checkpoint "<run_id>.pt" or a fork "<run_id>.lr<rate>.fork.pt" (experiment.fork_path)
_NAME = re.compile(r"^[0-9a-f]{8,64}(\.lr[0-9.e+-]+\.fork)?\.pt$")


@dataclass(frozen=True)
class InFlight:
    """Where one run stood when its sweep stopped: the last step it saved, and the seconds of
    training behind that step (all its attempts, :func:`rnnlab.core.train.train_model`)."""

    name: str
    step: int
    elapsed_s: float

    @property
    def steps_per_s(self) -> float:
        return self.step / self.elapsed_s if self.elapsed_s > 0 else float("nan")


def _is_fork(path: Path) -> bool:
    return path.name.endswith(".fork.pt")


def checkpoints(folder: str | Path) -> list[Path]:
    """The checkpoints and forks in ``folder``: runs in flight first, then forks; the newest
    first within each (the most training behind them). Empty if there is no such folder."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if p.is_file() and _NAME.match(p.name)]
    return sorted(found, key=lambda p: (_is_fork(p), -p.stat().st_mtime, p.name))


def in_flight(folder: str | Path) -> list[InFlight]:
    """The runs in flight in ``folder`` (not the forks): each one's saved step and time. A file
    that cannot be read as a checkpoint is left out here (the run that owns it moves it aside
    and starts afresh: :func:`rnnlab.core.checkpoint.load_checkpoint`)."""
    from rnnlab.core.checkpoint import saved_progress

    out = []
    for path in checkpoints(folder):
        if not _is_fork(path) and (saved := saved_progress(path)) is not None:
            out.append(InFlight(path.name, *saved))
    return out


def pack(folder: str | Path, tar_path: str | Path, limit_bytes: int) -> tuple[list[str], list[str]]:
    """Write the checkpoints of ``folder`` (:func:`checkpoints`, in that order) into the tar
    file ``tar_path``, uncompressed, each while the tar stays within ``limit_bytes``; returns
    the names packed and the names left out. Writes no file when there is nothing to pack."""
    if limit_bytes < 1:
        raise ValueError(f"limit_bytes must be >= 1, got {limit_bytes!r}")
    packed: list[str] = []
    left: list[str] = []
    size = 1024  # a tar ends with two 512-byte blocks, and is padded to whole records
    chosen = []
    for path in checkpoints(folder):
        member = 512 + -(-path.stat().st_size // 512) * 512  # header, data padded to blocks
        if -(-(size + member) // tarfile.RECORDSIZE) * tarfile.RECORDSIZE <= limit_bytes:
            chosen.append(path)
            packed.append(path.name)
            size += member
        else:
            left.append(path.name)
    if chosen:
        tar_path = Path(tar_path)
        tar_path.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tar_path, "w", format=tarfile.USTAR_FORMAT) as tar:
            for path in chosen:
                tar.add(path, arcname=path.name, recursive=False)
    return packed, left


def unpack(tar_path: str | Path, folder: str | Path) -> list[str]:
    """Put the checkpoints of the tar ``tar_path`` into ``folder``; returns their names. A
    member that is not a plain checkpoint name (a path, a link, another file) raises
    ValueError before anything is written; a file already in ``folder`` is kept (it is this
    machine's own, at least as recent)."""
    folder = Path(folder)
    with tarfile.open(tar_path, "r:") as tar:
        members = tar.getmembers()
        bad = [m.name for m in members if not (m.isfile() and _NAME.match(m.name))]
        if bad:
            raise ValueError(
                f"tar_path {str(tar_path)!r} holds {bad[:3]}: only checkpoint files "
                "('<run_id>.pt', '<run_id>.lr<rate>.fork.pt') can be unpacked"
            )
        folder.mkdir(parents=True, exist_ok=True)
        names = []
        for m in members:
            if (folder / m.name).exists():
                continue
            tar.extract(m, folder, filter="data")
            names.append(m.name)
    return names
