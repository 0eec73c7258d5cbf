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

Every finished run is one JSON line (a :class:`dict`, see :func:`make_record`) appended to a JSON
Lines file by :class:`rnnlab.store.ResultsStore`: one ``fsync``-ed line per run under an exclusive
lock (``<out>.lock``), so several processes may share one file and a killed sweep loses at most
the runs in progress; rerunning the same command skips every run whose ``run_id`` is already in
the file. A torn last line (a writer killed mid-write) is skipped with a warning and repaired by
the next write; a corrupt line elsewhere raises :class:`ResultsFileError` naming the file and
line, and nothing is overwritten. :func:`load_results` and :func:`write_results_atomic` live in
:mod:`rnnlab.store` and are re-exported here.

A run that raises does not end the sweep: it is recorded in ``<out>.failed`` (never read as a
result), the other runs go on, and a rerun retries it. Runs execute in this process
(``jobs=1``), in a pool of ``jobs`` processes, or as tasks on a Dask cluster
(``scheduler="tcp://host:8786"``, see :mod:`rnnlab.distributed`); in every case only the
submitting process writes the results file.
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
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from rnnlab.store import (  # noqa: F401  (re-exported: notebooks import them from here)
    ResultsFileError,
    ResultsStore,
    TornLineWarning,
    failed_path,
    failure_record,
    load_results,
    write_results_atomic,
)
from rnnlab.train import TrainConfig

TUNE_SEEDS = (10_000, 10_001)
TUNE_SEED = TUNE_SEEDS[0]  # version 1 tuned on this one seed only
SCHEMA_VERSION = 2
_LATER_TRAIN_DEFAULTS = {"schedule": "cosine", "decay_fraction": 0.2}
_LATER_MODEL_DEFAULTS = {
    "cell": "lstm",
    "proj_size": 0,
    "proj_ratio": None,
    "residual": False,
    "layer_norm": False,
    "dropout_mode": "between",
}
"""Model options added for the design chapter; left out of :meth:`Experiment.to_dict` at these
defaults, so every experiment written before them keeps its key."""


@dataclass(frozen=True)
class Experiment:
    """One cell of a lab's design: a task, a parameter budget and a depth.

    ``task_options`` and ``labels`` are tuples of ``(name, value)`` pairs so the experiment is
    hashable; ``labels`` are free-form tags used by the analysis (e.g. ``("corpus", "english")``).

    The model options ``dropout``, ``cell``, ``proj_size``, ``proj_ratio``, ``residual`` and
    ``layer_norm`` are those of :func:`rnnlab.models.matched_config` (the defaults build the plain
    LSTM stack of Labs A-C).
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
    cell: str = "lstm"
    proj_size: int = 0
    proj_ratio: float | None = None
    residual: bool = False
    layer_norm: bool = False
    dropout_mode: str = "between"

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
        if self.cell not in ("lstm", "gru"):
            raise ValueError(f"cell must be one of ('lstm', 'gru'), got {self.cell!r}")
        for name in ("residual", "layer_norm"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.proj_size and self.proj_ratio is not None:
            raise ValueError(
                f"at most one of proj_size and proj_ratio may be set, got proj_size="
                f"{self.proj_size!r} and proj_ratio={self.proj_ratio!r}"
            )

    def to_dict(self) -> dict:
        d = asdict(self)
        # Training options added after results were committed are left out at their defaults,
        # so every existing experiment keeps its key (and its runs stay found on resume).
        for name, default in _LATER_TRAIN_DEFAULTS.items():
            if d["train"].get(name) == default:
                d["train"].pop(name)
        for name, default in _LATER_MODEL_DEFAULTS.items():
            if d[name] == default:
                d.pop(name)
        d["task_options"] = dict(self.task_options)
        d["labels"] = dict(self.labels)
        d["lr_grid"] = list(self.lr_grid)
        d["lr_limits"] = list(self.lr_limits)
        return d

    @functools.cached_property
    def key(self) -> str:
        """A stable identifier of the experiment (a hash of its full configuration). Computed
        once per (immutable) experiment: analyses look it up for every record."""
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
    def model_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`rnnlab.models.matched_config_for_task` that this
        experiment sets (dropout and the design options)."""
        return {
            "dropout": self.dropout,
            "cell": self.cell,
            "proj_size": self.proj_size,
            "proj_ratio": self.proj_ratio,
            "residual": self.residual,
            "layer_norm": self.layer_norm,
            "dropout_mode": self.dropout_mode,
        }

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
    """A lab's sweep in one profile: its experiments and its reporting seeds.

    ``lr_from`` (optional) transfers tuned learning rates: pairs ``(key, source_key)`` of
    experiment keys, both in ``experiments``. Experiment ``key`` is then not tuned; its reporting
    runs use the rate chosen for ``source_key`` (by its own cell's tuning) and start once that
    tuning is complete. A cell (the experiment without its depth) is transferred whole: all of
    its depths, each from a source in one tuned cell. Used by :mod:`rnnlab.scale`, which tunes at
    the shortest training length and reuses the rate at the longer ones.
    """

    lab: str
    profile: str
    experiments: tuple[Experiment, ...]
    seeds: tuple[int, ...]
    lr_from: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not self.lr_from:
            return
        by_key = {e.key: e for e in self.experiments}
        sources = dict(self.lr_from)
        if len(sources) != len(self.lr_from):
            raise ValueError("lr_from names an experiment twice")
        for key, src in self.lr_from:
            if key not in by_key or src not in by_key:
                missing = key if key not in by_key else src
                raise ValueError(f"lr_from names experiment {missing!r}, which is not in the sweep")
            if src in sources:
                raise ValueError(f"lr_from: source {src!r} takes its own rate from another one")
            if len(by_key[src].lr_grid) < 2:
                raise ValueError(f"lr_from: source {src!r} has a one-rate grid (nothing is tuned)")
        for cell in cells_of(self.experiments).values():
            moved = [e.key in sources for e in cell]
            if any(moved) and not all(moved):
                raise ValueError(
                    "lr_from must transfer a whole cell (every depth of it) or none of it; "
                    f"cell of {cell[0].key!r} is partly transferred"
                )
            if all(moved) and len({by_key[sources[e.key]].cell_key for e in cell}) != 1:
                raise ValueError(
                    f"lr_from: the depths of cell of {cell[0].key!r} take their rates from "
                    "different cells"
                )

    def source(self, experiment: Experiment) -> Experiment | None:
        """The experiment whose tuned rate ``experiment`` uses (``None``: it is tuned itself)."""
        src = dict(self.lr_from).get(experiment.key)
        if src is None:
            return None
        return next(e for e in self.experiments if e.key == src)

    def n_runs(self) -> int:
        """Runs of the initial design (grid extensions, decided by the data, add more)."""
        moved = dict(self.lr_from)
        tune = sum(
            len(e.lr_grid) * len(TUNE_SEEDS)
            for e in self.experiments
            if len(e.lr_grid) > 1 and e.key not in moved
        )
        return tune + len(self.experiments) * len(self.seeds)

    def planned_runs(self, records: Sequence[dict]) -> int:
        """Runs of the design as the data has grown it so far: every tuned cell's current grid
        (with the extensions that the finished tuning runs in ``records`` have triggered) at
        each tuning seed, and every experiment at each reporting seed. With no records this is
        :meth:`n_runs`; later extensions, decided by the data, may still add runs."""
        tune = 0
        for cell in cells_of(self.experiments).values():
            if self.source(cell[0]) is not None:
                continue
            grid, _ = cell_grid(cell, records)
            if len(grid) > 1:
                tune += len(grid) * len(TUNE_SEEDS) * len(cell)
        return tune + len(self.experiments) * len(self.seeds)

    def reporting_progress(self, records: Iterable[dict]) -> tuple[int, int]:
        """``(present, expected)``: how many of the design's reporting runs (every experiment
        at every reporting seed) ``records`` holds. Tuning runs and grid extensions do not
        count, and neither do runs of experiments outside the design."""
        wanted = {(e.key, s) for e in self.experiments for s in self.seeds}
        have = {(r.get("experiment_key"), r.get("seed")) for r in eval_records(records)}
        return len(wanted & have), len(wanted)

    def is_complete(self, records: Iterable[dict]) -> bool:
        """Whether ``records`` holds every reporting run of the design: the rule that decides
        whether a lab's verdicts are final or provisional."""
        present, expected = self.reporting_progress(records)
        return present == expected


def run_id(experiment: Experiment, role: str, seed: int, lr: float | None) -> str:
    """The identity of one run: the experiment, its role, its seed (and rate, when tuning)."""
    parts = [experiment.key, role, str(seed)] + ([repr(float(lr))] if role == "tune" else [])
    return hashlib.sha1("|".join(parts).encode()).hexdigest()[:20]


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
    checkpoint_dir: str | Path | None = None,
) -> dict:
    """Train one model and return its result record (see :func:`make_record`).

    With ``checkpoint_dir``, the run saves its state to ``<checkpoint_dir>/<run_id>.pt`` every
    few minutes and resumes from it when started again (see :func:`rnnlab.train.train_model`).
    """
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
        wall_time_s=time.perf_counter() - t0,
        task_info={k: v for k, v in data.info.items() if _small_jsonable(v)},
    )


FAMILY_LABEL = "wsd_family"
"""An experiment labelled ``(FAMILY_LABEL, (S1, S2, ...))`` with a ``"wsd"`` schedule belongs to
a family of experiments that differ only in ``max_steps`` (one per ``S``; the ``"steps"`` label
says which). Their learning rates agree until the first cooldown starts, so each run of the
family saves forks from which the others start (:func:`family_forks`)."""


def with_length(experiment: Experiment, steps: int) -> Experiment:
    """The member of ``experiment``'s family trained for ``steps``: the same experiment with
    ``train.max_steps`` and the ``"steps"`` label set to ``steps``."""
    labels = tuple((k, steps if k == "steps" else v) for k, v in experiment.labels)
    return replace(experiment, train=experiment.train.replace(max_steps=steps), labels=labels)


def fork_step(cfg: TrainConfig, other: TrainConfig) -> int | None:
    """The last step at which two warmup-stable-decay schedules that differ only in
    ``max_steps`` still give the same state: the end of the earlier stable phase (``None`` when
    they are not such a pair, or that step lies inside the warm-up)."""
    if cfg.schedule != "wsd" or cfg.replace(max_steps=other.max_steps) != other:
        return None
    step = min(c.max_steps - c.decay_steps for c in (cfg, other))
    return step if cfg.warmup_steps <= step < cfg.max_steps else None


def family_forks(experiment: Experiment) -> list[tuple[int, Experiment]]:
    """``(step, other)`` for every other member of ``experiment``'s family that a run of
    ``experiment`` can fork: after ``step`` its state is the state of a run of ``other``."""
    family = experiment.label(FAMILY_LABEL)
    if not family or experiment.train.schedule != "wsd":
        return []
    out = []
    for steps in family:
        if steps == experiment.train.max_steps:
            continue
        other = with_length(experiment, steps)
        step = fork_step(experiment.train, other.train)
        if step is not None:
            out.append((step, other))
    return out


def fork_path(
    checkpoint_dir: str | Path, experiment: Experiment, role: str, seed: int, lr: float
) -> Path:
    """Where a fork for the run ``(experiment, role, seed, lr)`` waits: named by the run and
    its rate (a reporting run's id does not include its rate, and a fork fits one rate only)."""
    return Path(checkpoint_dir) / f"{run_id(experiment, role, seed, lr)}.lr{float(lr)!r}.fork.pt"


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
    chosen rate, whether the grid was extended and whether the choice sits at a cap.
    ``metric`` names what ``mean_val`` measures (read from the experiment's runs; ``None``
    before any has run)."""
    metric_of = {
        r.get("experiment_key"): r["metrics"].get("metric")
        for r in records
        if isinstance(r.get("metrics"), dict)
    }
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
                    "metric": metric_of.get(exp.key),
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
    """Runs that can start now, in design order: missing tuning runs of each cell's current grid,
    and evaluation runs of experiments whose cell is tuned (or, for a transferred cell, whose
    source cell is tuned; see :attr:`SweepSpec.lr_from`)."""
    done = {r["run_id"] for r in records}
    todo = []
    cells = cells_of(spec.experiments)
    for cell in cells.values():
        if spec.lr_from and spec.source(cell[0]) is not None:  # a transferred rate
            for exp in cell:
                src = spec.source(exp)
                lr = choose_lr(src, records, cells[src.cell_key])
                if lr is None:  # the source's tuning is not complete yet
                    continue
                for seed in spec.seeds:
                    if run_id(exp, "eval", seed, lr) not in done:
                        todo.append((exp, "eval", seed, lr))
            continue
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


class SweepRecords(list):
    """What :func:`run_sweep` returns: a plain ``list`` of every run record in the results file
    (each ``run_id`` once), plus ``failures``: the runs that raised in this sweep, as
    :func:`rnnlab.store.failure_record` dicts (also written to ``<out>.failed``)."""

    failures: list[dict]

    def __init__(self, records: Iterable[dict] = (), failures: Iterable[dict] = ()) -> None:
        super().__init__(records)
        self.failures = list(failures)


def run_sweep(
    spec: SweepSpec,
    out: str | Path,
    *,
    jobs: int = 1,
    device: str | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    on_record: Callable[[dict], None] | None = None,
    on_failure: Callable[[dict], None] | None = None,
    max_runs: int | None = None,
    scheduler: str | None = None,
    checkpoint_dir: str | Path | None = None,
    stop_file: str | Path | None = None,
) -> SweepRecords:
    """Run every missing run of ``spec``, appending each finished one to ``out``.

    Where the runs execute:

    * ``jobs == 1`` (and no ``scheduler``): one after the other in this process;
    * ``jobs > 1``: a pool of that many processes (each with ``threads`` torch threads, default
      1);
    * ``scheduler="tcp://host:port"``: as Dask tasks on that cluster (``jobs`` is then ignored;
      ``threads`` defaults to 1 per task). See :mod:`rnnlab.distributed`.

    In every case records are written by this process only, as each run finishes, through
    :class:`rnnlab.store.ResultsStore` (locked, fsynced appends: other processes may write the
    same file). Pending runs are recomputed after each finished run, so evaluation runs start
    as soon as their experiment's tuning runs are in. Rerunning after an interruption resumes:
    finished runs are skipped, none is repeated.

    A run that raises is recorded in ``<out>.failed`` with its error and traceback (never as a
    result), reported through ``on_failure``, not retried within this sweep, and retried by the
    next one. The returned :class:`SweepRecords` lists every record of ``out`` and, in
    ``.failures``, this sweep's failures. ``max_runs`` stops after that many new runs (used by
    the tests to simulate an interruption). ``checkpoint_dir`` (e.g. ``f"{out}.ckpt"``) makes each
    run save checkpoints there every few minutes, so a killed sweep also resumes *inside* the run
    in progress.

    ``stop_file`` drains the sweep: once that file exists, no new run starts, the runs in
    progress finish and are recorded, and the sweep returns (the file is left for the caller to
    remove). Use it to end a sitting without throwing away the compute of the runs in flight.
    """
    store = ResultsStore(out)
    out = store.path
    records = store.read()
    for i, r in enumerate(records, start=1):
        if r["lab"] != spec.lab or r["profile"] != spec.profile:
            raise ResultsFileError(
                f"{out}:{i}: holds a run of lab {r['lab']!r} profile {r['profile']!r}, "
                f"but this sweep is lab {spec.lab!r} profile {spec.profile!r}; use another --out"
            )
    if jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    threads = threads or (1 if jobs > 1 or scheduler else None)
    new = 0
    failed: dict[str, dict] = {}

    def accept(rec: dict) -> None:
        nonlocal new, records
        if store.append(rec):
            records.append(rec)
        else:  # another process wrote this run first: its copy is the one on disk
            records = store.read()
        new += 1
        if on_record:
            on_record(rec)

    def fail(unit: tuple, exc: BaseException) -> None:
        exp, role, seed, lr = unit
        rec = failure_record(
            run_id=run_id(exp, role, seed, lr),
            lab=spec.lab,
            profile=spec.profile,
            role=role,
            seed=seed,
            lr=lr,
            experiment_key=exp.key,
            error=exc,
            traceback_text="".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
        )
        store.record_failure(rec)
        failed[rec["run_id"]] = rec
        if on_failure:
            on_failure(rec)

    def budget_left() -> bool:
        if stop_file is not None and Path(stop_file).exists():
            return False
        return max_runs is None or new < max_runs

    def todo() -> list[tuple[Experiment, str, int, float]]:
        return [u for u in pending_units(spec, records) if run_id(*u) not in failed]

    def finish() -> SweepRecords:
        store.prune_failures()
        return SweepRecords(records, failed.values())

    kwargs = dict(
        lab=spec.lab,
        profile=spec.profile,
        device=device,
        threads=threads,
        checkpoint_dir=checkpoint_dir,
    )
    if scheduler is None and jobs == 1:
        while budget_left():
            units = todo()
            if not units:
                break
            exp, role, seed, lr = units[0]
            try:
                rec = run_unit(exp, role=role, seed=seed, lr=lr, progress=progress, **kwargs)
            except Exception as exc:  # any error of one run is that run's failure
                fail(units[0], exc)
            else:
                accept(rec)
        return finish()

    def drive(submit: Callable, wait_first: Callable, slots: int | None) -> None:
        """Keep up to ``slots`` runs in flight (``None``: every pending run); record each as
        it completes, then look again for runs that can start (tuning -> evaluation)."""
        running: dict[Any, tuple] = {}
        while True:
            if budget_left():
                busy = {run_id(*u) for u in running.values()}
                for unit in todo():
                    if slots is not None and len(running) >= slots:
                        break
                    if run_id(*unit) not in busy:
                        running[submit(unit)] = unit
            if not running:
                return
            finished = wait_first(list(running))
            for fut in finished:
                unit = running.pop(fut)
                try:
                    rec = fut.result()
                except Exception as exc:
                    if scheduler is not None:
                        from rnnlab.distributed import raise_if_lost

                        raise_if_lost(exc, scheduler, out)
                    fail(unit, exc)
                else:
                    accept(rec)  # a finished run is never thrown away

    if scheduler is not None:
        from rnnlab.distributed import dask_client, submit_run, wait_first_dask

        with dask_client(scheduler) as client:
            drive(
                lambda u: submit_run(client, u, kwargs),
                lambda f: wait_first_dask(client, f, scheduler, out),
                None,
            )
        return finish()

    import multiprocessing as mp

    # the workers start later, maybe after the checkout has changed: they record this commit
    saved_commit = os.environ.get("RNNLAB_GIT_COMMIT")
    os.environ["RNNLAB_GIT_COMMIT"] = git_commit()
    pools: list[ProcessPoolExecutor] = []

    def new_pool() -> ProcessPoolExecutor:
        pools.append(
            ProcessPoolExecutor(
                max_workers=jobs,
                mp_context=mp.get_context("spawn"),
                initializer=die_with_parent,
                initargs=(os.getpid(),),
            )
        )
        return pools[-1]

    def submit(unit: tuple) -> Any:
        exp, role, seed, lr = unit
        try:
            return pools[-1].submit(
                run_unit, exp, role=role, seed=seed, lr=lr, progress=False, **kwargs
            )
        except BrokenProcessPool:  # a worker died (its runs are recorded as failed): start afresh
            pools[-1].shutdown(wait=False, cancel_futures=True)
            return new_pool().submit(
                run_unit, exp, role=role, seed=seed, lr=lr, progress=False, **kwargs
            )

    def wait_first(futures: list) -> set:
        return wait(futures, return_when=FIRST_COMPLETED).done

    new_pool()
    try:
        drive(submit, wait_first, jobs)
    finally:
        for pool in pools:
            pool.shutdown(wait=True, cancel_futures=True)
        if saved_commit is None:
            os.environ.pop("RNNLAB_GIT_COMMIT", None)
        else:
            os.environ["RNNLAB_GIT_COMMIT"] = saved_commit
    return finish()


def die_with_parent(parent_pid: int, poll_s: float = 1.0) -> None:
    """Make this pool worker exit when ``parent_pid`` (the sweep) dies, even by ``SIGKILL``.

    A ``ProcessPoolExecutor`` worker whose parent is killed would otherwise train on, orphaned
    (hundreds of MB each). On Linux the kernel sends the worker ``SIGKILL`` when its parent dies
    (``prctl(PR_SET_PDEATHSIG)``); everywhere, a daemon thread checks every ``poll_s`` seconds
    that the parent is still ours and ends the process if not."""
    import signal
    import threading

    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass  # the watchdog below still applies
    if os.getppid() != parent_pid:  # the parent died before the line above
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(poll_s)
        os._exit(1)

    threading.Thread(target=watch, name="rnnlab-parent-watchdog", daemon=True).start()


def progress_line(rec: dict, done: int, total: int) -> str:
    """A one-line log of a finished run (for the CLI)."""
    m = rec["metrics"]
    return (
        f"[{done}/{total}] {rec['task']} budget={rec['budget']} L={rec['num_layers']} "
        f"d={rec['model']['hidden_size']} {rec['role']} seed={rec['seed']} lr={rec['lr']:g} "
        f"val={m['val']:.4f} test={m['test']:.4f} steps={m['steps']} "
        f"({rec['wall_time_s']:.1f}s)"
    )


def console_log(
    total: int, already: int = 0
) -> tuple[Callable[[dict], None], Callable[[dict], None]]:
    """``(on_record, on_failure)`` callbacks for a sweep run from the command line: a
    :func:`progress_line` per finished run, counted on from ``already``, and one ``FAILED`` line
    per failed run."""
    done = [already]

    def on_record(rec: dict) -> None:
        done[0] += 1
        print(progress_line(rec, done[0], total), flush=True)

    def on_failure(failure: dict) -> None:
        print(
            f"FAILED {failure['role']} seed={failure['seed']} lr={failure['lr']:g} "
            f"(run {failure['run_id']}): {failure['error']}",
            flush=True,
        )

    return on_record, on_failure


#: The largest seed ``--seeds`` accepts, and the most seeds a count may ask for.
MAX_SEED = 2**31 - 1
MAX_SEED_COUNT = 1000


def parse_seeds(text: str | None, default: tuple[int, ...]) -> tuple[int, ...]:
    """``--seeds``: ``"5"`` means seeds 0..4, ``"0,3,7"`` exactly those; ``None`` gives ``default``.

    A count must be in 1..:data:`MAX_SEED_COUNT` and every listed seed in 0..:data:`MAX_SEED`;
    anything else is a ValueError naming ``--seeds`` and the allowed range."""
    if text is None:
        return default
    try:
        if "," in text:
            seeds = tuple(int(s) for s in text.split(","))
        else:
            count = int(text)
            if not 1 <= count <= MAX_SEED_COUNT:
                raise ValueError(
                    f"--seeds as a count must be from 1 to {MAX_SEED_COUNT}, got {text!r}"
                )
            seeds = tuple(range(count))
    except ValueError as exc:
        if "--seeds" in str(exc):
            raise
        raise ValueError(
            f"--seeds must be a count like 5 or a list like 0,1,2, got {text!r}"
        ) from None
    if not seeds or any(not 0 <= s <= MAX_SEED for s in seeds):
        raise ValueError(f"--seeds must list seeds from 0 to {MAX_SEED}, got {text!r}")
    return seeds


def check_run_options(
    out: str | Path,
    *,
    device: str | None = None,
    jobs: int = 1,
    threads: int | None = None,
    scheduler: str | None = None,
) -> None:
    """Refuse, before any training, what would make every run of a sweep fail: an ``out`` that
    is a folder, not writable, or not a results file (:meth:`ResultsStore.check_writable`); a
    ``device`` (or ``$RNNLAB_DEVICE``) that is not a device here; ``jobs`` or ``threads`` below
    1. With a Dask ``scheduler`` the device is only parsed: the workers may have a GPU that this
    machine lacks. Raises ValueError or :class:`rnnlab.store.ResultsFileUnwritable`."""
    import torch

    from rnnlab.train import select_device

    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"--jobs must be an integer >= 1, got {jobs!r}")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ValueError(f"--threads must be an integer >= 1, got {threads!r}")
    if scheduler is None:
        select_device(device)
    else:
        choice = device or os.environ.get("RNNLAB_DEVICE") or "auto"
        try:
            if choice != "auto":
                torch.device(choice)
        except RuntimeError:
            raise ValueError(
                f"device must be 'auto', 'cpu', 'cuda[:i]' or 'mps', got {choice!r}"
            ) from None
    ResultsStore(out).check_writable()


def run_console(
    spec: SweepSpec,
    out: str | Path,
    *,
    name: str,
    header: Callable[[int, int], str],
    **sweep_options: Any,
) -> SweepRecords:
    """The console runner every command shares (``run``, ``run --text``): check the options
    (:func:`check_run_options`) before any training, print ``header(total_runs, already_done)``,
    run :func:`run_sweep` with a :func:`progress_line` per finished run and a ``FAILED`` line per
    failed run, then one summary line, and one more naming ``<out>.failed`` if runs failed.

    ``sweep_options`` go to :func:`run_sweep`. The caller turns ``.failures`` into its exit
    status (non-zero when any run failed)."""
    from rnnlab.paths import shown_path

    check_run_options(
        out,
        device=sweep_options.get("device"),
        jobs=sweep_options.get("jobs", 1),
        threads=sweep_options.get("threads"),
        scheduler=sweep_options.get("scheduler"),
    )
    done = load_results(out)
    total = spec.planned_runs(done)
    print(header(total, len(done)), flush=True)
    log, log_failure = console_log(total, already=len(done))
    t0 = time.perf_counter()
    records = run_sweep(spec, out, on_record=log, on_failure=log_failure, **sweep_options)
    print(
        f"{name}: {len(records)} runs in {shown_path(out)} ({time.perf_counter() - t0:.0f} s)",
        flush=True,
    )
    if records.failures:
        print(
            f"{name}: {len(records.failures)} of {total} runs failed; their errors are in "
            f"{shown_path(failed_path(out))}; rerun the same command to retry them",
            flush=True,
        )
    return records


def print_flush(*args: Any) -> None:
    print(*args, flush=True, file=sys.stdout)
