"""The training configuration (:class:`TrainConfig`) and what a run returns
(:class:`TrainResult`)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

IGNORE_INDEX = -100
LN2 = math.log(2.0)
AMP_MODES = ("auto", "off", "bf16", "fp16")
SCHEDULES = ("cosine", "wsd")


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters of one training run (stored with every result).

    The learning rate after ``s`` optimiser steps is ``lr * f(s)``, with ``W = warmup_steps``,
    ``S = max_steps`` and ``m = min_lr_ratio``; warm-up is ``f(s) = (s + 1) / W`` for ``s < W``;
    after it:

    * ``schedule="cosine"`` (the default):
      :math:`f(s) = m + (1 - m) \\cdot \\tfrac12 (1 + \\cos(\\pi \\min(1, (s - W) / (S - W))))`.
    * ``schedule="wsd"`` (warmup-stable-decay): with ``D = max(1, round(decay_fraction * S))``
      decay steps starting at ``S - D``, :math:`f(s) = 1` for ``W <= s < S - D`` and
      :math:`f(s) = 1 - (1 - m) \\min(1, (s - (S - D)) / D)` after: constant, then a linear
      cooldown to ``m`` at ``S``. The stable phase is shared by every run that differs only in
      ``max_steps`` up to its cooldown.

    Attributes:
        max_steps: optimiser steps at most (the step cap; also the schedule's length).
        batch_size: sequences per step.
        lr: peak learning rate (Adam).
        weight_decay: decoupled weight decay (AdamW); 0 means plain Adam.
        clip: gradient-norm clipping threshold; 0 disables clipping.
        warmup_steps: linear warm-up steps before the decay.
        min_lr_ratio: the schedule decays from ``lr`` to ``lr * min_lr_ratio`` at ``max_steps``.
        eval_every: steps between validation evaluations (also the learning-curve resolution).
        patience: stop after this many evaluations without improvement; ``None`` (the default
            since version 2 of the labs) trains for exactly ``max_steps``: early stopping cuts a
            cosine schedule that was sized to ``max_steps`` in the middle, and with noisy
            validation scores it fires on noise. The best evaluation's weights are still the
            ones tested (best-on-validation checkpointing).
        eval_batch_size: sequences per evaluation batch.
        amp: ``"auto"`` (bf16/fp16 on CUDA, off elsewhere), ``"off"``, ``"bf16"`` or ``"fp16"``.
        schedule: ``"cosine"`` or ``"wsd"`` (warmup-stable-decay), see above.
        decay_fraction: for ``"wsd"``, the fraction of ``max_steps`` spent in the cooldown, in
            ``(0, 1]``; the cooldown must fit after the warm-up.
    """

    max_steps: int = 2000
    batch_size: int = 64
    lr: float = 3e-3
    weight_decay: float = 0.0
    clip: float = 1.0
    warmup_steps: int = 0
    min_lr_ratio: float = 0.1
    eval_every: int = 100
    patience: int | None = None
    eval_batch_size: int = 512
    amp: str = "auto"
    schedule: str = "cosine"
    decay_fraction: float = 0.2

    def __post_init__(self) -> None:
        for name in ("max_steps", "batch_size", "eval_every", "eval_batch_size"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
        if not (self.lr > 0 and math.isfinite(self.lr)):
            raise ValueError(f"lr must be a finite number > 0, got {self.lr!r}")
        if self.weight_decay < 0:
            raise ValueError(f"weight_decay must be >= 0, got {self.weight_decay!r}")
        if self.clip < 0:
            raise ValueError(f"clip must be >= 0 (0 disables clipping), got {self.clip!r}")
        if not (0 <= self.warmup_steps < self.max_steps):
            raise ValueError(
                f"warmup_steps must be in [0, max_steps={self.max_steps}), got {self.warmup_steps}"
            )
        if not (0.0 <= self.min_lr_ratio <= 1.0):
            raise ValueError(f"min_lr_ratio must be in [0, 1], got {self.min_lr_ratio!r}")
        if self.patience is not None and (
            isinstance(self.patience, bool)
            or not isinstance(self.patience, int)
            or self.patience < 1
        ):
            raise ValueError(f"patience must be None or an integer >= 1, got {self.patience!r}")
        if self.amp not in AMP_MODES:
            raise ValueError(f"amp must be one of {AMP_MODES}, got {self.amp!r}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {SCHEDULES}, got {self.schedule!r}")
        if not (0.0 < self.decay_fraction <= 1.0):
            raise ValueError(f"decay_fraction must be in (0, 1], got {self.decay_fraction!r}")
        if self.schedule == "wsd" and self.decay_steps > self.max_steps - self.warmup_steps:
            raise ValueError(
                f"decay_fraction={self.decay_fraction} gives {self.decay_steps} cooldown steps, "
                f"more than the {self.max_steps - self.warmup_steps} steps after the warm-up"
            )

    @property
    def decay_steps(self) -> int:
        """The length of the ``"wsd"`` cooldown: ``max(1, round(decay_fraction * max_steps))``."""
        return max(1, round(self.decay_fraction * self.max_steps))

    def replace(self, **changes) -> TrainConfig:
        return TrainConfig(**{**asdict(self), **changes})

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class TrainResult:
    """What one run produced. ``curves`` holds one row per evaluation."""

    metric: str
    higher_is_better: bool
    val: float
    test: float
    test_by_group: dict[str, float]
    best_step: int
    steps: int
    stopped_early: bool
    wall_time_s: float
    tokens_seen: int
    curves: list[dict] = field(default_factory=list)
    forked_from: dict | None = None
    """For a run started from another run's fork (see :func:`train_model`'s ``forks``): that
    run's ``max_steps``, the ``step`` it was forked at and its ``elapsed_s`` then (counted in
    ``wall_time_s``, so a plan subtracts it to count the compute once)."""

    def to_dict(self) -> dict:
        d = asdict(self)
        if d["forked_from"] is None:  # the record format of runs that were not forked
            d.pop("forked_from")
        return d


def own_wall_time_s(record: dict) -> float:
    """The compute one stored run paid itself, in seconds: its record's ``wall_time_s`` less the
    training it inherited from a fork (``metrics.forked_from.elapsed_s``; see
    :class:`TrainResult`). A run started from another run's fork counts that run's shared steps
    in its own clock (so its curves' ``elapsed_s`` read as if it had trained alone); summing the
    records' ``wall_time_s`` over a warmup-stable-decay family would count those steps twice.
    Sum this instead wherever compute is totalled. Equal to ``wall_time_s`` for a run that was
    not forked.

    Records written before resumed runs counted every attempt kept only the last attempt in
    ``wall_time_s``; their ``metrics.wall_time_s`` has the full count, so the larger of the two
    clocks is the run's time."""
    metrics = record.get("metrics") or {}
    forked = metrics.get("forked_from") or {}
    wall = max(float(record.get("wall_time_s", 0.0)), float(metrics.get("wall_time_s", 0.0)))
    return wall - float(forked.get("elapsed_s", 0.0))
