"""Sweeps: experiments as data, results on disk with provenance, and resume.

A lab's sweep is a list of :class:`Experiment` (task × options × budget × depth) run over seeds.
Each experiment is run in two phases, both recorded:

1. **tune**: one run per learning rate in the experiment's grid, on a dedicated tuning seed
   (``TUNE_SEED``, never reported as a result); the rate with the best *validation* score wins.
2. **eval**: one run per reporting seed at the chosen rate. Only these enter the lab's tables.

Every finished run is one JSON line (a :class:`dict`, see :func:`make_record`) in a JSON Lines
file. The file is rewritten atomically (write to a temporary file, ``fsync``, ``os.replace``) after
each run, so a killed sweep loses at most the run in progress; rerunning the same command skips
every run whose ``run_id`` is already in the file. A truncated or corrupt line raises
:class:`ResultsFileError` naming the file and line, and nothing is overwritten.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rnnlab.train import TrainConfig

TUNE_SEED = 10_000
SCHEMA_VERSION = 1


class ResultsFileError(ValueError):
    """A results file holds a line that is not a valid run record."""


@dataclass(frozen=True)
class Experiment:
    """One cell of a lab's design: a task, a parameter budget and a depth.

    ``task_options`` and ``labels`` are tuples of ``(name, value)`` pairs so the experiment is
    hashable; ``labels`` are free-form tags used by the analysis (e.g. ``("corpus", "english")``).
    """

    task: str
    budget: int
    num_layers: int
    n_train: int
    n_val: int
    n_test: int
    task_options: tuple[tuple[str, Any], ...] = ()
    embedding_dim: int | None = 16
    dropout: float = 0.0
    train: TrainConfig = field(default_factory=TrainConfig)
    lr_grid: tuple[float, ...] = (1e-3, 3e-3, 1e-2)
    data_seed: int = 1234
    labels: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if not self.lr_grid:
            raise ValueError("lr_grid must hold at least one learning rate, got ()")
        for name in ("budget", "num_layers", "n_train", "n_val", "n_test"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["task_options"] = dict(self.task_options)
        d["labels"] = dict(self.labels)
        d["lr_grid"] = list(self.lr_grid)
        return d

    @property
    def key(self) -> str:
        """A stable identifier of the experiment (a hash of its full configuration)."""
        blob = json.dumps(self.to_dict(), sort_keys=True, default=str)
        return hashlib.sha1(blob.encode()).hexdigest()[:16]

    def label(self, name: str, default: Any = None) -> Any:
        return dict(self.labels).get(name, default)


@dataclass(frozen=True)
class SweepSpec:
    """A lab's sweep in one profile: its experiments and its reporting seeds."""

    lab: str
    profile: str
    experiments: tuple[Experiment, ...]
    seeds: tuple[int, ...]

    def n_runs(self) -> int:
        tune = sum(len(e.lr_grid) for e in self.experiments if len(e.lr_grid) > 1)
        return tune + len(self.experiments) * len(self.seeds)


def run_id(experiment: Experiment, role: str, seed: int, lr: float | None) -> str:
    """The identity of one run: the experiment, its role, its seed (and rate, when tuning)."""
    parts = [experiment.key, role, str(seed)] + ([repr(float(lr))] if role == "tune" else [])
    return hashlib.sha1("|".join(parts).encode()).hexdigest()[:20]


# ----------------------------------------------------------------------------- provenance


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    """The course repository's commit (``+dirty`` when tracked files have changed), or
    ``"unknown"`` outside a git checkout."""
    try:
        from rnnlab.paths import repo_root

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


# ----------------------------------------------------------------------------- results files


def load_results(path: str | Path) -> list[dict]:
    """Read a JSON Lines results file; a missing file is an empty list.

    Raises :class:`ResultsFileError` naming the file and line for a line that is not a JSON
    object with the required keys (e.g. a line truncated by a crash or a bad merge).
    """
    path = Path(path)
    if not path.exists():
        return []
    records = []
    required = ("run_id", "lab", "profile", "role", "seed", "metrics", "experiment")
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ResultsFileError(
                    f"{path}:{lineno}: not valid JSON ({exc.msg}); the file is corrupt or "
                    "truncated. Fix or delete that line; nothing was overwritten."
                ) from None
            if not isinstance(rec, dict) or any(k not in rec for k in required):
                missing = [k for k in required if not isinstance(rec, dict) or k not in rec]
                raise ResultsFileError(
                    f"{path}:{lineno}: not a run record (missing {missing}); nothing was "
                    "overwritten."
                )
            records.append(rec)
    return records


def write_results_atomic(path: str | Path, records: Sequence[dict]) -> None:
    """Write all ``records`` to ``path`` as JSON Lines, atomically (temp file + rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for rec in records:
                fh.write(json.dumps(rec, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes the file private; results are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def eval_records(records: Iterable[dict]) -> list[dict]:
    """Only the reporting runs (role ``eval``), the ones a lab's tables use."""
    return [r for r in records if r.get("role") == "eval"]


# ----------------------------------------------------------------------------- running one run


@functools.lru_cache(maxsize=8)
def _task_data(task: str, n_train: int, n_val: int, n_test: int, seed: int, options: tuple):
    from rnnlab.tasks import make_task

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
) -> dict:
    """Train one model and return its result record (see :func:`make_record`)."""
    import torch

    from rnnlab.models import build_model, matched_config_for_task
    from rnnlab.train import device_name, seed_everything, select_device, train_model

    if threads:
        torch.set_num_threads(threads)
    started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    data = _task_data(
        experiment.task,
        experiment.n_train,
        experiment.n_val,
        experiment.n_test,
        experiment.data_seed,
        experiment.task_options,
    )
    config, match = matched_config_for_task(
        data,
        budget=experiment.budget,
        num_layers=experiment.num_layers,
        embedding_dim=experiment.embedding_dim,
        dropout=experiment.dropout,
    )
    dev = select_device(device)
    seed_everything(seed)
    model = build_model(config)
    desc = f"{experiment.task} B={experiment.budget} L={experiment.num_layers} {role} s={seed}"
    result = train_model(
        model,
        data,
        experiment.train.replace(lr=float(lr)),
        seed=seed,
        device=dev,
        progress=progress,
        desc=desc,
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
        wall_time_s=time.perf_counter() - t0,
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


# ----------------------------------------------------------------------------- the sweep loop


def choose_lr(experiment: Experiment, records: Iterable[dict]) -> float | None:
    """The tuned learning rate of ``experiment``: the best validation score among its tuning
    runs, or ``None`` while a tuning run is missing. A one-rate grid needs no tuning."""
    if len(experiment.lr_grid) == 1:
        return float(experiment.lr_grid[0])
    by_lr = {}
    for r in records:
        if r.get("experiment_key") == experiment.key and r.get("role") == "tune":
            by_lr[float(r["lr"])] = r["metrics"]
    if any(float(lr) not in by_lr for lr in experiment.lr_grid):
        return None

    def score(lr: float) -> float:
        m = by_lr[float(lr)]
        v = m["val"]
        if v is None or v != v:  # NaN: a diverged run never wins
            return float("-inf")
        return v if m["higher_is_better"] else -v

    return float(max(experiment.lr_grid, key=score))


def shard(experiments: Sequence[Experiment], index: int, count: int) -> list[Experiment]:
    """Experiments ``index, index + count, ...`` (0-based ``index``), for ``--shard i/n``."""
    if not (isinstance(count, int) and count >= 1):
        raise ValueError(f"shard count must be an integer >= 1, got {count!r}")
    if not (isinstance(index, int) and 0 <= index < count):
        raise ValueError(f"shard index must be in [0, {count - 1}], got {index!r}")
    return [e for i, e in enumerate(experiments) if i % count == index]


def pending_units(
    spec: SweepSpec, records: Sequence[dict]
) -> list[tuple[Experiment, str, int, float]]:
    """Runs that can start now: missing tuning runs, and evaluation runs of tuned experiments."""
    done = {r["run_id"] for r in records}
    todo = []
    for exp in spec.experiments:
        if len(exp.lr_grid) > 1:
            for lr in exp.lr_grid:
                if run_id(exp, "tune", TUNE_SEED, lr) not in done:
                    todo.append((exp, "tune", TUNE_SEED, float(lr)))
        lr = choose_lr(exp, records)
        if lr is None:
            continue
        for seed in spec.seeds:
            if run_id(exp, "eval", seed, lr) not in done:
                todo.append((exp, "eval", seed, lr))
    return todo


def run_sweep(
    spec: SweepSpec,
    out: str | Path,
    *,
    jobs: int = 1,
    device: str | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    on_record: Callable[[dict], None] | None = None,
    max_runs: int | None = None,
) -> list[dict]:
    """Run every missing run of ``spec``, appending each finished one to ``out`` atomically.

    ``jobs > 1`` runs that many processes (each with ``threads`` torch threads, default 1 when
    ``jobs > 1``); records are written by this process only, as each run finishes. Rerunning after
    an interruption resumes: finished runs are skipped, none is repeated. ``max_runs`` stops after
    that many new runs (used by the tests to simulate an interruption).
    """
    out = Path(out)
    records = load_results(out)
    for i, r in enumerate(records, start=1):
        if r["lab"] != spec.lab or r["profile"] != spec.profile:
            raise ResultsFileError(
                f"{out}:{i}: holds a run of lab {r['lab']!r} profile {r['profile']!r}, "
                f"but this sweep is lab {spec.lab!r} profile {spec.profile!r}; use another --out"
            )
    if jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    threads = threads or (1 if jobs > 1 else None)
    new = 0

    def accept(rec: dict) -> None:
        nonlocal new
        records.append(rec)
        write_results_atomic(out, records)
        new += 1
        if on_record:
            on_record(rec)

    def budget_left() -> bool:
        return max_runs is None or new < max_runs

    kwargs = dict(lab=spec.lab, profile=spec.profile, device=device, threads=threads)
    if jobs == 1:
        while budget_left():
            todo = pending_units(spec, records)
            if not todo:
                break
            exp, role, seed, lr = todo[0]
            accept(run_unit(exp, role=role, seed=seed, lr=lr, progress=progress, **kwargs))
        return records

    import multiprocessing as mp

    running: dict[Future, str] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn")) as pool:
        while True:
            busy = set(running.values())
            if budget_left():
                for exp, role, seed, lr in pending_units(spec, records):
                    rid = run_id(exp, role, seed, lr)
                    if rid in busy or len(running) >= jobs:
                        continue
                    fut = pool.submit(
                        run_unit, exp, role=role, seed=seed, lr=lr, progress=False, **kwargs
                    )
                    running[fut] = rid
                    busy.add(rid)
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in finished:
                running.pop(fut)
                accept(fut.result())  # a finished run is never thrown away
    return records


def progress_line(rec: dict, done: int, total: int) -> str:
    """A one-line log of a finished run (for the CLI)."""
    m = rec["metrics"]
    return (
        f"[{done}/{total}] {rec['task']} budget={rec['budget']} L={rec['num_layers']} "
        f"d={rec['model']['hidden_size']} {rec['role']} seed={rec['seed']} lr={rec['lr']:g} "
        f"val={m['val']:.4f} test={m['test']:.4f} steps={m['steps']} "
        f"({rec['wall_time_s']:.1f}s)"
    )


def print_flush(*args: Any) -> None:
    print(*args, flush=True, file=sys.stdout)
