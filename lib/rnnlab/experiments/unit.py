"""One run: train one model and return its result record, with provenance (the commit, the
versions). :func:`run_unit` is a pure function of its arguments, so any executor (this
process, a process pool, a Dask worker: :mod:`rnnlab.experiments.runner`) can run it."""

from __future__ import annotations

import datetime as _dt
import functools
import json
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

from rnnlab.experiments.experiment import (
    SCHEMA_VERSION,
    Experiment,
    data_seed_for,
    family_forks,
    fork_path,
    run_id,
)

# ----------------------------------------------------------------------------- provenance


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    """The course repository's commit (``+dirty`` when tracked files in ``lib/`` have
    changed), or ``"unknown"`` outside a git checkout.

    ``$RNNLAB_GIT_COMMIT``, when set, is returned instead: :func:`run_sweep` sets it to its own
    commit before it starts worker processes, so that every run records the commit of the code
    the sweep was started with, even when the checkout changes while the sweep runs."""
    env = os.environ.get("RNNLAB_GIT_COMMIT")
    if env:
        return env
    try:
        from rnnlab.core.paths import repo_root

        root = repo_root()
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "lib"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError, FileNotFoundError):
        return "unknown"


def versions() -> dict[str, str]:
    """Versions of everything that can change a number."""
    import numpy
    import torch

    import rnnlab

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": numpy.__version__,
        "rnnlab": rnnlab.__version__,
        "platform": platform.platform(terse=True),
        "cuda": torch.version.cuda or "none",
    }


# ----------------------------------------------------------------------------- running one run


@functools.lru_cache(maxsize=8)
def task_data(task: str, n_train: int, n_val: int, n_test: int, seed: int, options: tuple):
    from rnnlab.core.tasks import make_task

    return make_task(task, n_train=n_train, n_val=n_val, n_test=n_test, seed=seed, **dict(options))


def run_unit(
    experiment: Experiment,
    *,
    lab: str,
    profile: str,
    role: str,
    seed: int,
    lr: float,
    device: str | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    checkpoint_dir: str | Path | None = None,
) -> dict:
    """Train one model and return its result record (see :func:`make_record`).

    With ``checkpoint_dir``, the run saves its state to ``<checkpoint_dir>/<run_id>.pt`` every
    few minutes and resumes from it when started again (see :func:`rnnlab.core.train.train_model`).
    """
    import torch

    from rnnlab.core.device import device_name, seed_everything, select_device
    from rnnlab.core.models import build_model, matched_config_for_task
    from rnnlab.core.train import train_model

    if threads:
        torch.set_num_threads(threads)
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    data = task_data(
        experiment.task,
        experiment.n_train,
        experiment.n_val,
        experiment.n_test,
        data_seed_for(experiment, seed),
        experiment.task_options,
    )
    config, match = matched_config_for_task(
        data,
        budget=experiment.budget,
        num_layers=experiment.num_layers,
        embedding_dim=experiment.embedding_dim,
        **experiment.model_options,
    )
    dev = select_device(device)
    seed_everything(seed)
    model = build_model(config)
    desc = f"{experiment.task} B={experiment.budget} L={experiment.num_layers} {role} s={seed}"
    checkpoint, forks = None, None
    if checkpoint_dir is not None:
        checkpoint = Path(checkpoint_dir) / f"{run_id(experiment, role, seed, lr)}.pt"
        fork = fork_path(checkpoint_dir, experiment, role, seed, lr)
        if not checkpoint.exists() and fork.exists():
            os.replace(fork, checkpoint)  # start from another length's fork (see family_forks)
        forks = {}
        for step, other in family_forks(experiment):
            path = fork_path(checkpoint_dir, other, role, seed, lr)
            forks.setdefault(step, []).append((path, other.train.replace(lr=float(lr))))
    setup_s = time.perf_counter() - t0  # data and model, this attempt
    result = train_model(
        model,
        data,
        experiment.train.replace(lr=float(lr)),
        seed=seed,
        device=dev,
        progress=progress,
        desc=desc,
        checkpoint=checkpoint,
        forks=forks,
    )
    return make_record(
        lab=lab,
        profile=profile,
        experiment=experiment,
        role=role,
        seed=seed,
        lr=lr,
        model_config=config.to_dict(),
        param_count=config.param_count(),
        relative_error=match.relative_error,
        result=result.to_dict(),
        device=str(dev),
        device_label=device_name(dev),
        threads=torch.get_num_threads(),
        started_at=started,
        # the training time counts the interrupted attempts too (train_model resumes its clock
        # from the checkpoint), so a resumed run's wall time is not just its last attempt
        wall_time_s=setup_s + result.wall_time_s,
        task_info={k: v for k, v in data.info.items() if _small_jsonable(v)},
    )


def _small_jsonable(v: Any) -> bool:
    """Keep task provenance that is JSON and short (not, e.g., the digits' 1,797 split indices)."""
    try:
        return len(json.dumps(v)) <= 4000
    except (TypeError, ValueError):
        return False


def make_record(
    *,
    lab: str,
    profile: str,
    experiment: Experiment,
    role: str,
    seed: int,
    lr: float,
    model_config: dict,
    param_count: int,
    relative_error: float,
    result: dict,
    device: str,
    device_label: str,
    threads: int,
    started_at: str,
    wall_time_s: float,
    task_info: dict | None = None,
) -> dict:
    """One run's record: what ran (config), what it gave (metrics, curves) and provenance."""
    curves = result.pop("curves", [])
    return {
        "schema": SCHEMA_VERSION,
        "run_id": run_id(experiment, role, seed, lr),
        "lab": lab,
        "profile": profile,
        "role": role,
        "experiment_key": experiment.key,
        "experiment": experiment.to_dict(),
        "task": experiment.task,
        "budget": experiment.budget,
        "num_layers": experiment.num_layers,
        "seed": seed,
        "lr": float(lr),
        "model": model_config,
        "param_count": param_count,
        "param_relative_error": relative_error,
        "metrics": result,
        "curves": curves,
        "task_info": task_info or {},
        "device": device,
        "device_name": device_label,
        "threads": threads,
        "versions": versions(),
        "git_commit": git_commit(),
        "started_at": started_at,
        "wall_time_s": wall_time_s,
    }
