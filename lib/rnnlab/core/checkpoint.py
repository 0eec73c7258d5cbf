"""Checkpoints of a run in progress: what must match to resume (:func:`run_fingerprint`), atomic
saves and safe loads."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path

import torch
from torch import nn

from rnnlab.core.config import TrainConfig
from rnnlab.core.tasks import TaskData

# ----------------------------------------------------------------------------- checkpoints

CHECKPOINT_VERSION = 1


def run_fingerprint(model: nn.Module, data: TaskData, cfg: TrainConfig, seed: int) -> str:
    """A hash of what a checkpoint must match to be resumed: the training config, the seed,
    every parameter's name and shape, and the task's name, kind, metric and split shapes."""
    blob = {
        "version": CHECKPOINT_VERSION,
        "config": cfg.to_dict(),
        "seed": seed,
        "model": {k: list(v.shape) for k, v in model.state_dict().items()},
        "task": [data.name, data.kind, data.metric],
        "shapes": [
            list(t.shape)
            for t in (data.x_train, data.y_train, data.x_val, data.y_val, data.x_test, data.y_test)
        ],
    }
    return hashlib.sha256(json.dumps(blob, sort_keys=True).encode()).hexdigest()


def save_checkpoint(path: str | Path, state: dict) -> None:
    """Write ``state`` to ``path`` atomically: a temporary file in the same folder, then
    ``os.replace``, so a crash mid-write never leaves a half-written checkpoint."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            torch.save(state, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load_checkpoint(path: str | Path, fingerprint: str) -> dict | None:
    """The state saved at ``path`` (``None`` if there is none), loaded with
    ``weights_only=True``; raises ValueError if it belongs to a different run.

    A checkpoint that cannot be read (truncated, damaged on disk) is moved aside to
    ``<path>.corrupt`` with a warning naming it, and ``None`` is returned: the run starts again
    from scratch instead of failing on every rerun."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises RuntimeError, EOFError, pickle errors, ...
        aside = path.with_name(path.name + ".corrupt")
        os.replace(path, aside)
        warnings.warn(
            f"checkpoint {path} cannot be read ({type(exc).__name__}: "
            f"{str(exc).split('. ')[0]}); moved it to "
            f"{aside.name} and restarting this run from scratch",
            stacklevel=2,
        )
        return None
    if not isinstance(state, dict) or state.get("fingerprint") != fingerprint:
        raise ValueError(
            f"checkpoint {path} belongs to a different run (another config, seed, model shape "
            "or task); delete it or pass another checkpoint path"
        )
    return state


def saved_progress(path: str | Path) -> tuple[int, float] | None:
    """How far the checkpoint at ``path`` got: its saved step and elapsed training seconds, or
    ``None`` where there is no file or it cannot be read as a checkpoint. It only reads: an
    unreadable file is left where it is (the run that owns it moves it aside when it starts,
    :func:`load_checkpoint`). What the deadline's estimate and the sweep's report of runs in
    flight both ask of a checkpoint without resuming it."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        return int(state["step"]), float(state["elapsed_s"])
    except Exception:  # noqa: BLE001 - truncated, damaged, not a checkpoint: no progress
        return None
