"""Where a profile's results, checkpoints and drain file go, and the command that runs it."""

from __future__ import annotations

import shlex
from pathlib import Path

from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.scale.grid import design

#: The options of :func:`rnnlab.experiments.scale.run_scale` and
#: :func:`rnnlab.experiments.scale.run_transfer_control` when none are given, and of the command
#: :func:`run_command` prints: two processes (``run-scale``'s ``--jobs`` default); checkpoints in
#: ``<out>.ckpt`` (:func:`default_checkpoint_dir`).
DEFAULT_OPTIONS = RunOptions(jobs=2)


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


def run_command(profile: str, out: str | Path, options: RunOptions = DEFAULT_OPTIONS) -> str:
    """The command that runs (or resumes) ``profile`` into ``out`` with ``options`` (its
    ``--jobs``, and its ``--device`` and ``--threads`` when set)."""
    flags = [f"--jobs {options.jobs}"]
    if options.device is not None:
        flags.append(f"--device {shlex.quote(options.device)}")
    if options.threads is not None:
        flags.append(f"--threads {options.threads}")
    return (
        f"python -m rnnlab run-scale --profile {shlex.quote(profile)} {' '.join(flags)} "
        f"--out {shlex.quote(str(out))}"
    )
