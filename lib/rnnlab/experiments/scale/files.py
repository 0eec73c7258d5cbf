"""Where a profile's results, checkpoints and drain file go, and the command that runs it."""

from __future__ import annotations

import shlex
from pathlib import Path

from rnnlab.experiments.scale.grid import design


def default_out(profile: str) -> Path:
    """Where ``profile``'s results go: ``data/results/scale/<profile>.jsonl`` for the reference
    and gpu profiles (committed), ``runs/scale-<profile>.jsonl`` otherwise."""
    from rnnlab.core.paths import repo_root, runs_dir

    design(profile)  # validates the profile
    if profile in ("reference", "gpu"):
        return repo_root() / "data" / "results" / "scale" / f"{profile}.jsonl"
    return runs_dir() / f"scale-{profile}.jsonl"


def default_checkpoint_dir(out: str | Path) -> Path:
    """``<out>.ckpt``: one checkpoint file per run in progress (git-ignored)."""
    out = Path(out)
    return out.with_name(out.name + ".ckpt")


def default_drain_file(out: str | Path) -> Path:
    """``<out>.drain``: while this file exists, :func:`run_scale` starts no new run; the runs in
    progress finish, are recorded, and the sweep stops (``touch`` it to end a sitting without
    losing the runs in flight; the sweep removes it when it stops)."""
    out = Path(out)
    return out.with_name(out.name + ".drain")


def run_command(profile: str, out: str | Path, jobs: int = 2) -> str:
    """The command that runs (or resumes) ``profile`` into ``out``."""
    return (
        f"python -m rnnlab run-scale --profile {shlex.quote(profile)} --jobs {jobs} "
        f"--out {shlex.quote(str(out))}"
    )
