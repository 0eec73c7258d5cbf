"""Experiments as data: what one experiment is, the identity of a run, and the families of
runs that differ only in length (warmup-stable-decay forks).

An :class:`Experiment` is one task x options x budget x depth; a run is one experiment at one
role (``tune`` or ``eval``), seed and (when tuning) learning rate, named by :func:`run_id`.
Run ids and :meth:`Experiment.to_dict` are part of the results files' format: they never change.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from rnnlab.core.config import TrainConfig

TUNE_SEEDS = (10_000, 10_001)
TUNE_SEED = TUNE_SEEDS[0]  # version 1 tuned on this one seed only
SCHEMA_VERSION = 2
LATER_TRAIN_DEFAULTS = {"schedule": "cosine", "decay_fraction": 0.2}
LATER_MODEL_DEFAULTS = {
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
    ``layer_norm`` are those of :func:`rnnlab.core.models.matched_config` (the defaults build the
    plain
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
        for name, default in LATER_TRAIN_DEFAULTS.items():
            if d["train"].get(name) == default:
                d["train"].pop(name)
        for name, default in LATER_MODEL_DEFAULTS.items():
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
        """The keyword arguments of :func:`rnnlab.core.models.matched_config_for_task` that this
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


def run_id(experiment: Experiment, role: str, seed: int, lr: float | None) -> str:
    """The identity of one run: the experiment, its role, its seed (and rate, when tuning)."""
    parts = [experiment.key, role, str(seed)] + ([repr(float(lr))] if role == "tune" else [])
    return hashlib.sha1("|".join(parts).encode()).hexdigest()[:20]


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
