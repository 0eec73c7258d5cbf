"""Sweeps: experiments as data, results on disk with provenance, and resume.

A lab's sweep is a list of :class:`Experiment` (task × options × budget × depth) run over seeds.
Each experiment is run in two phases, both recorded:

1. **tune**: one run per learning rate in the grid and tuning seed (:data:`TUNE_SEEDS`, never
   reported as results); the rate with the best *mean validation* score over the tuning seeds
   wins. The grid belongs to the *cell* (the experiment without its depth), so every depth gets
   the same trials. If any depth's best rate lies at an edge of the grid, the grid grows by one
   log-step in that direction (up to the experiment's ``lr_limits``, the declared cap) and the new
   rates are tuned too: a chosen rate is interior, or at the cap, where it is recorded as such
   (:func:`tuning_report`).
2. **eval**: one run per reporting seed at the chosen rate. Only these enter the lab's tables.

Each run's data come from ``data_seed + seed`` (:func:`data_seed_for`): every seed draws its own
train, val and test sample, and the two depths of one seed share it (a paired design).

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

TUNE_SEEDS = (10_000, 10_001)
TUNE_SEED = TUNE_SEEDS[0]  # version 1 tuned on this one seed only
SCHEMA_VERSION = 2


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
    lr_limits: tuple[float, float] = (1e-4, 0.1)

    def __post_init__(self) -> None:
        if not self.lr_grid:
            raise ValueError("lr_grid must hold at least one learning rate, got ()")
        if any(not (g > 0) for g in self.lr_grid) or list(self.lr_grid) != sorted(self.lr_grid):
            raise ValueError(f"lr_grid must be increasing rates > 0, got {self.lr_grid!r}")
        if len(self.lr_grid) > 1:
            ratios = [b / a for a, b in zip(self.lr_grid[:-1], self.lr_grid[1:], strict=True)]
            if max(ratios) / min(ratios) > 1.01 or min(ratios) <= 1.0:
                raise ValueError(
                    f"lr_grid must be log-spaced (a constant ratio > 1), got {self.lr_grid!r}"
                )
        lo, hi = self.lr_limits
        if not (0 < lo <= self.lr_grid[0] and self.lr_grid[-1] <= hi):
            raise ValueError(
                f"lr_limits must bracket lr_grid (0 < lo <= {self.lr_grid[0]} and "
                f"{self.lr_grid[-1]} <= hi), got {self.lr_limits!r}"
            )
        for name in ("budget", "num_layers", "n_train", "n_val", "n_test"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["task_options"] = dict(self.task_options)
        d["labels"] = dict(self.labels)
        d["lr_grid"] = list(self.lr_grid)
        d["lr_limits"] = list(self.lr_limits)
        return d

    @property
    def key(self) -> str:
        """A stable identifier of the experiment (a hash of its full configuration)."""
        blob = json.dumps(self.to_dict(), sort_keys=True, default=str)
        return hashlib.sha1(blob.encode()).hexdigest()[:16]

    def label(self, name: str, default: Any = None) -> Any:
        return dict(self.labels).get(name, default)

    @property
    def cell_key(self) -> str:
        """The experiment's cell: its configuration without the number of layers."""
        d = self.to_dict()
        d.pop("num_layers")
        blob = json.dumps(d, sort_keys=True, default=str)
        return hashlib.sha1(blob.encode()).hexdigest()[:16]

    @property
    def lr_step(self) -> float:
        """The grid's log-step (the ratio of neighbouring rates); 1.0 for a one-rate grid."""
        return self.lr_grid[1] / self.lr_grid[0] if len(self.lr_grid) > 1 else 1.0


def data_seed_for(experiment: Experiment, seed: int) -> int:
    """The data seed of a run: ``experiment.data_seed + seed``. Each seed (reporting or tuning)
    draws its own data sample; the depths of one cell share it, which pairs them."""
    return experiment.data_seed + seed


@dataclass(frozen=True)
class SweepSpec:
    """A lab's sweep in one profile: its experiments and its reporting seeds."""

    lab: str
    profile: str
    experiments: tuple[Experiment, ...]
    seeds: tuple[int, ...]

    def n_runs(self) -> int:
        """Runs of the initial design (grid extensions, decided by the data, add more)."""
        tune = sum(len(e.lr_grid) * len(TUNE_SEEDS) for e in self.experiments if len(e.lr_grid) > 1)
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
        data_seed_for(experiment, seed),
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


def _rate(x: float) -> float:
    """A learning rate rounded to 6 significant digits, so grown grids give stable run ids."""
    return float(f"{x:.6g}")


def _tune_scores(experiment: Experiment, records: Iterable[dict]) -> dict[float, list[float]]:
    """``{lr: [validation score per tuning seed]}``, oriented so that higher is better (a
    diverged run scores ``-inf``)."""
    out: dict[float, list[float]] = {}
    for r in records:
        if r.get("experiment_key") == experiment.key and r.get("role") == "tune":
            m = r["metrics"]
            v = m["val"]
            score = float("-inf") if v is None or v != v else (v if m["higher_is_better"] else -v)
            out.setdefault(_rate(r["lr"]), []).append(score)
    return out


def _best(grid: Sequence[float], scores: dict[float, list[float]]) -> float:
    def mean(lr: float) -> float:
        vals = scores[_rate(lr)]
        return sum(vals) / len(vals)

    return max(grid, key=mean)


def cell_grid(
    cell: Sequence[Experiment], records: Sequence[dict], tune_seeds: Sequence[int] = TUNE_SEEDS
) -> tuple[tuple[float, ...], bool]:
    """The learning-rate grid of one cell so far, and whether its tuning is complete.

    Starts from the experiments' ``lr_grid``; while any depth's best rate (mean validation over
    ``tune_seeds``) is at an edge, adds one log-step beyond that edge unless it would pass
    ``lr_limits``. Incomplete while a tuning run of the current grid is missing.
    """
    first = cell[0]
    grid = [_rate(g) for g in first.lr_grid]
    if len(grid) == 1:
        return tuple(grid), True
    lo_cap, hi_cap = first.lr_limits
    step = first.lr_step
    done = {r["run_id"] for r in records}
    while True:
        for exp in cell:
            for lr in grid:
                if any(run_id(exp, "tune", s, lr) not in done for s in tune_seeds):
                    return tuple(grid), False
        bests = [_best(grid, _tune_scores(exp, records)) for exp in cell]
        up = any(b == grid[-1] for b in bests) and grid[-1] * step <= hi_cap * (1 + 1e-4)
        down = any(b == grid[0] for b in bests) and grid[0] / step >= lo_cap * (1 - 1e-4)
        if not (up or down):
            return tuple(grid), True
        if up:
            grid.append(_rate(grid[-1] * step))
        if down:
            grid.insert(0, _rate(grid[0] / step))


def cells_of(experiments: Sequence[Experiment]) -> dict[str, list[Experiment]]:
    """The experiments grouped by :attr:`Experiment.cell_key`, in design order."""
    out: dict[str, list[Experiment]] = {}
    for e in experiments:
        out.setdefault(e.cell_key, []).append(e)
    return out


def choose_lr(
    experiment: Experiment,
    records: Sequence[dict],
    cell: Sequence[Experiment] | None = None,
) -> float | None:
    """The tuned learning rate of ``experiment`` (best mean validation score over the tuning
    seeds on its cell's grid), or ``None`` while its cell's tuning is incomplete. A one-rate grid
    needs no tuning. ``cell`` defaults to the experiment alone."""
    grid, complete = cell_grid(cell or [experiment], records)
    if len(grid) == 1:
        return grid[0]
    if not complete:
        return None
    return _best(grid, _tune_scores(experiment, records))


def tuning_report(experiments: Sequence[Experiment], records: Sequence[dict]) -> list[dict]:
    """One row per experiment: its cell's final grid, the mean validation score per rate, the
    chosen rate, whether the grid was extended and whether the choice sits at a cap."""
    rows = []
    for cell in cells_of(experiments).values():
        grid, complete = cell_grid(cell, records)
        for exp in cell:
            scores = _tune_scores(exp, records)
            chosen = choose_lr(exp, records, cell) if complete else None
            lo_cap, hi_cap = exp.lr_limits
            rows.append(
                {
                    "experiment_key": exp.key,
                    "labels": dict(exp.labels),
                    "budget": exp.budget,
                    "num_layers": exp.num_layers,
                    "grid": list(grid),
                    "initial_grid": [_rate(g) for g in exp.lr_grid],
                    "extended": len(grid) > len(exp.lr_grid),
                    "complete": complete,
                    "mean_val": {
                        lr: (sum(v) / len(v) if v else None)
                        for lr, v in sorted(scores.items())
                        if lr in grid
                    },
                    "tune_seeds": len(TUNE_SEEDS) if len(grid) > 1 else 0,
                    "chosen": chosen,
                    "at_edge": chosen is not None
                    and len(grid) > 1
                    and chosen in (grid[0], grid[-1]),
                    "at_cap": chosen is not None
                    and len(grid) > 1
                    and (
                        (chosen == grid[-1] and grid[-1] * exp.lr_step > hi_cap * (1 + 1e-4))
                        or (chosen == grid[0] and grid[0] / exp.lr_step < lo_cap * (1 - 1e-4))
                    ),
                }
            )
    return rows


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
    """Runs that can start now: missing tuning runs of each cell's current grid, and evaluation
    runs of experiments whose cell is tuned."""
    done = {r["run_id"] for r in records}
    todo = []
    for cell in cells_of(spec.experiments).values():
        grid, complete = cell_grid(cell, records)
        if len(grid) > 1 and not complete:
            for exp in cell:
                for lr in grid:
                    for s in TUNE_SEEDS:
                        if run_id(exp, "tune", s, lr) not in done:
                            todo.append((exp, "tune", s, float(lr)))
            continue
        for exp in cell:
            lr = choose_lr(exp, records, cell)
            assert lr is not None
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
