r"""One training loop for every task: device, seeds, schedule, early stopping, progress.

The loop is deliberately plain (a nanoGPT-style single screen in :func:`train_model`). What makes
it suitable for a *fair* depth-vs-width comparison:

* **Early stopping on validation** with ``patience`` evaluations, up to ``max_steps``; the weights
  of the best evaluation are restored before testing. Deep stacks train more slowly, so a short
  fixed step budget would compare an unfinished deep model with a finished wide one. Setting
  ``patience=None`` gives a fixed compute budget instead (every model gets ``max_steps``), which
  answers the other question, "who wins at equal compute".
* **The same learning-rate grid for every depth** (:func:`fit`): each candidate rate trains a model
  and the best on validation is kept. Deep stacks are more sensitive to the rate, so one rate for
  all depths would favour whichever depth it happens to suit.

Speed: the data sit on the device as tensors (no ``DataLoader``); a batch is
``x[idx]`` with ``idx`` drawn by a device-side generator; the running loss is accumulated on the
device and read back only at evaluation steps, so there is no host synchronisation per step. On
CUDA, mixed precision is used (bf16 where supported, otherwise fp16 with a gradient scaler).

Determinism: with the same seed, on the same CPU model, the same code gives bit-identical
metrics (the seed fixes the initial weights, dropout and the batch order). On another CPU model
torch's kernels may use other vector instructions and block sizes, so floating-point sums are
taken in another order and the numbers differ slightly (every run records its CPU model and
instruction set: :func:`device_name`).

Checkpoints: ``train_model(..., checkpoint=path)`` saves everything the loop's future depends on
(weights, optimiser, schedule, gradient scaler, the batch-index generator and torch's global
generator, the running loss, the curves, the best-so-far weights and the step) every
``checkpoint_every_s`` seconds, atomically. Started again with the same arguments after a crash,
it resumes from that step and, on the CPU, ends bit-identical to a run never interrupted. The
checkpoint is deleted when the run finishes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import random
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from rnnlab.core.tasks import TaskData

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


# ----------------------------------------------------------------------------- device and seeds


def select_device(preference: str | None = None) -> torch.device:
    """The device to train on: ``preference`` or ``$RNNLAB_DEVICE`` if given, else CUDA, then
    Apple's MPS, then the CPU."""
    choice = preference or os.environ.get("RNNLAB_DEVICE") or "auto"
    if choice != "auto":
        try:
            device = torch.device(choice)
        except RuntimeError as exc:
            raise ValueError(
                f"device must be 'auto', 'cpu', 'cuda[:i]' or 'mps', got {choice!r}"
            ) from exc
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"device={choice!r} was asked for but CUDA is not available")
        return device
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def device_name(device: torch.device) -> str:
    """A human-readable name of the hardware: the GPU model, or for the CPU its architecture,
    model and the vector instructions torch's kernels use, e.g.
    ``"x86_64: Intel(R) Xeon(R) Processor (AVX512)"``.

    The CPU's model is part of a run's provenance because it can change the numbers: on
    another CPU model torch's and oneDNN's kernels may use other instructions and block sizes,
    so sums are taken in another order and the same seed gives slightly different results. The
    same seed on the same CPU model gives the same numbers, to the last bit."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    if device.type == "mps":
        return "Apple MPS"
    import platform

    arch = platform.machine() or "cpu"
    return f"{arch}: {cpu_model()} ({torch.backends.cpu.get_cpu_capability()})"


def cpu_model() -> str:
    """The CPU's model name (``model name`` in ``/proc/cpuinfo`` on Linux), else what
    :func:`platform.processor` says, else ``"unknown CPU"``."""
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def seed_everything(seed: int) -> None:
    """Seed Python's, NumPy's and torch's global generators (initial weights, dropout)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def amp_dtype(device: torch.device, amp: str) -> torch.dtype | None:
    """The autocast dtype for ``amp`` on ``device`` (``None``: full precision)."""
    if amp == "off" or device.type != "cuda":
        return None
    if amp == "bf16" or (amp == "auto" and torch.cuda.is_bf16_supported()):
        return torch.bfloat16
    return torch.float16


# ----------------------------------------------------------------------------- metrics


def higher_is_better(metric: str) -> bool:
    """Accuracies go up, bits per character go down."""
    return metric != "bits_per_char"


def _batch_stats(logits: torch.Tensor, y: torch.Tensor, metric: str) -> torch.Tensor:
    """Per-example score, shape ``(B,)``: correct (0/1) for accuracy and sequence accuracy,
    the summed cross-entropy in nats for bits per character."""
    if metric == "accuracy":
        return (logits.argmax(-1) == y).float()
    if metric == "sequence_accuracy":
        scored = y != IGNORE_INDEX
        right = (logits.argmax(-1) == y) | ~scored
        return right.all(dim=1).float()
    if metric == "bits_per_char":
        ce = F.cross_entropy(logits.float().transpose(1, 2), y, reduction="none")  # (B, T)
        return ce.sum(dim=1)
    raise ValueError(f"metric must be accuracy, sequence_accuracy or bits_per_char, got {metric!r}")


def batch_loss(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    if logits.dim() == 3:
        return F.cross_entropy(
            logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=IGNORE_INDEX
        )
    return F.cross_entropy(logits.float(), y)


@torch.no_grad()
def evaluate(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    metric: str,
    *,
    batch_size: int = 512,
    groups: torch.Tensor | None = None,
    autocast_dtype: torch.dtype | None = None,
) -> tuple[float, dict[str, float]]:
    """The metric over ``(x, y)``, and per group when ``groups`` (shape ``(N,)``) is given.

    Bits per character are total cross-entropy over all characters divided by ``ln 2`` and by the
    number of characters. One host synchronisation per call.
    """
    was_training = model.training
    model.eval()
    scores = []
    ctx = (
        torch.autocast(x.device.type, dtype=autocast_dtype)
        if autocast_dtype
        else contextlib.nullcontext()
    )
    with ctx:
        for i in range(0, x.shape[0], batch_size):
            scores.append(_batch_stats(model(x[i : i + batch_size]), y[i : i + batch_size], metric))
    model.train(was_training)
    per_example = torch.cat(scores)
    if metric == "bits_per_char":
        chars = torch.full_like(per_example, float(y.shape[1]))
        total = (per_example.sum() / chars.sum() / LN2).item()
    else:
        total = per_example.mean().item()
    by_group: dict[str, float] = {}
    if groups is not None:
        g = groups.to(per_example.device)
        for value in torch.unique(g).tolist():
            mask = g == value
            s = per_example[mask]
            by_group[str(value)] = (
                (s.sum() / (mask.sum() * y.shape[1]) / LN2).item()
                if metric == "bits_per_char"
                else s.mean().item()
            )
    return total, by_group


# ----------------------------------------------------------------------------- the loop


def lr_schedule(cfg: TrainConfig) -> Callable[[int], float]:
    """The factor ``f(step)`` of :class:`TrainConfig`'s docstring."""
    if cfg.schedule == "wsd":
        decay = cfg.decay_steps
        start = cfg.max_steps - decay

        def wsd(step: int) -> float:
            if step < cfg.warmup_steps:
                return (step + 1) / cfg.warmup_steps
            if step < start:
                return 1.0
            return 1.0 - (1.0 - cfg.min_lr_ratio) * min(1.0, (step - start) / decay)

        return wsd

    def factor(step: int) -> float:
        if step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        progress = (step - cfg.warmup_steps) / max(1, cfg.max_steps - cfg.warmup_steps)
        cosine = 0.5 * (1.0 + math.cos(math.pi * min(progress, 1.0)))
        return cfg.min_lr_ratio + (1.0 - cfg.min_lr_ratio) * cosine

    return factor


def _generator(device: torch.device, seed: int) -> torch.Generator:
    """A generator on ``device`` for the batch indices (so drawing them never syncs the host)."""
    try:
        gen = torch.Generator(device=device)
    except RuntimeError:  # a backend without device generators: draw on the CPU instead
        gen = torch.Generator()
    gen.manual_seed(seed)
    return gen


def _progress(total: int, desc: str | None, enabled: bool | None):
    """A tqdm bar (notebook-aware); ``enabled=None`` leaves the choice to tqdm, which honours the
    ``TQDM_DISABLE`` environment variable (set by the Makefile for builds and tests)."""
    from tqdm.auto import tqdm

    explicit = {} if enabled is None else {"disable": not enabled}
    return tqdm(total=total, desc=desc, leave=False, mininterval=0.5, **explicit)


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


def train_model(
    model: nn.Module,
    data: TaskData,
    cfg: TrainConfig,
    *,
    seed: int,
    device: torch.device | str | None = None,
    progress: bool | None = None,
    desc: str | None = None,
    checkpoint: str | Path | None = None,
    checkpoint_every_s: float = 180.0,
    forks: dict[int, list[tuple[str | Path, TrainConfig]]] | None = None,
) -> TrainResult:
    """Train ``model`` on ``data`` with ``cfg``; restore the best validation weights; test.

    ``seed`` fixes the batch order (the caller seeds the initial weights with
    :func:`seed_everything` before building the model). ``progress=None`` shows a tqdm bar unless
    the environment variable ``TQDM_DISABLE`` is set.

    ``checkpoint``: a file to save the loop's state to every ``checkpoint_every_s`` seconds
    (0: after every step). If the file exists when the run starts, the run resumes from it; a
    checkpoint of another run (config, seed, model shape or task differ, see
    :func:`run_fingerprint`) raises ValueError. The file is deleted when the run finishes.
    ``wall_time_s`` and ``elapsed_s`` count the time of the interrupted attempts too.

    ``forks``: ``{step: [(path, other_cfg), ...]}``: after optimiser step ``step``, save the
    loop's state as a checkpoint *of the run with* ``other_cfg`` (its fingerprint) at ``path``,
    unless that file exists. This is how one warmup-stable-decay run gives several lengths
    (Hägele et al. 2024): runs that differ only in ``max_steps`` have the same learning rate
    (and so the same state, bit for bit on the CPU) until the first of their cooldowns starts,
    so a run of another length started from the fork ends exactly as if it had been trained
    alone, at the cost of its remaining steps only. The caller chooses steps where the two
    schedules still agree (:func:`rnnlab.experiments.converge.fork_step`); the run resumed from the
    fork
    reports it in :attr:`TrainResult.forked_from`.
    """
    if checkpoint_every_s < 0:
        raise ValueError(f"checkpoint_every_s must be >= 0, got {checkpoint_every_s!r}")
    device = select_device(device) if not isinstance(device, torch.device) else device
    model.to(device)
    model.train()
    metric = data.metric
    better = higher_is_better(metric)
    x_train, y_train = data.x_train.to(device), data.y_train.to(device)
    x_val, y_val = data.x_val.to(device), data.y_val.to(device)
    n = x_train.shape[0]
    gen = _generator(device, seed)

    fused = device.type == "cuda"
    opt = torch.optim.AdamW(
        model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay, fused=fused or None
    )
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_schedule(cfg))
    dtype = amp_dtype(device, cfg.amp)
    scaler = torch.amp.GradScaler("cuda") if dtype == torch.float16 else None

    def autocast():
        return torch.autocast(device.type, dtype=dtype) if dtype else contextlib.nullcontext()

    best_score = -math.inf
    best_state: dict[str, torch.Tensor] | None = None
    best_step, bad_evals, step = 0, 0, 0
    curves: list[dict] = []
    running = torch.zeros((), device=device)
    running_count = 0
    tokens_per_step = cfg.batch_size * x_train.shape[1]
    t0 = time.perf_counter()
    first_step = 1
    fingerprint = run_fingerprint(model, data, cfg, seed) if checkpoint is not None else ""
    saved = load_checkpoint(checkpoint, fingerprint) if checkpoint is not None else None
    forked_from = saved.get("forked_from") if saved is not None else None
    if saved is not None:
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["optimizer"])
        sched.load_state_dict(saved["scheduler"])
        if scaler is not None and saved["scaler"] is not None:
            scaler.load_state_dict(saved["scaler"])
        gen.set_state(saved["generator"].to(gen.get_state().device))
        torch.set_rng_state(saved["torch_rng"])
        if device.type == "cuda" and saved.get("cuda_rng") is not None:
            torch.cuda.set_rng_state(saved["cuda_rng"], device)
        running = saved["running"].to(device)
        running_count = saved["running_count"]
        curves = saved["curves"]
        best_score, best_step, bad_evals = saved["best_score"], saved["best_step"], saved["bad"]
        if saved["best_state"] is not None:
            best_state = {k: v.to(device) for k, v in saved["best_state"].items()}
        first_step = saved["step"] + 1
        t0 -= saved["elapsed_s"]
    last_save = time.perf_counter()

    def snapshot(done: int) -> dict:
        return {
            "fingerprint": fingerprint,
            "step": done,
            "model": model.state_dict(),
            "optimizer": opt.state_dict(),
            "scheduler": sched.state_dict(),
            "scaler": scaler.state_dict() if scaler is not None else None,
            "generator": gen.get_state(),
            "torch_rng": torch.get_rng_state(),
            "cuda_rng": torch.cuda.get_rng_state(device) if device.type == "cuda" else None,
            "running": running.detach().cpu(),
            "running_count": running_count,
            "curves": curves,
            "best_score": best_score,
            "best_step": best_step,
            "bad": bad_evals,
            "best_state": best_state,
            "elapsed_s": time.perf_counter() - t0,
            "forked_from": forked_from,
        }

    bar = _progress(cfg.max_steps, desc, progress)
    bar.update(first_step - 1)
    stopped_early = False
    step = first_step - 1
    for step in range(first_step, cfg.max_steps + 1):
        idx = torch.randint(n, (cfg.batch_size,), generator=gen, device=gen.device).to(device)
        with autocast():
            logits = model(x_train[idx])
        loss = batch_loss(logits, y_train[idx])
        opt.zero_grad(set_to_none=True)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
        else:
            loss.backward()
        if cfg.clip > 0:
            nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
        if scaler is not None:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()
        sched.step()
        running += loss.detach()
        running_count += 1
        bar.update(1)
        if step % cfg.eval_every == 0 or step == cfg.max_steps:
            val, _ = evaluate(
                model, x_val, y_val, metric, batch_size=cfg.eval_batch_size, autocast_dtype=dtype
            )
            train_loss = (running / running_count).item()
            running.zero_()
            running_count = 0
            score = val if better else -val
            curves.append(
                {
                    "step": step,
                    "tokens": step * tokens_per_step,
                    "train_loss": train_loss,
                    "val": val,
                    "lr": sched.get_last_lr()[0],
                    "elapsed_s": time.perf_counter() - t0,
                }
            )
            bar.set_postfix(loss=f"{train_loss:.3f}", val=f"{val:.4f}")
            if not math.isfinite(train_loss):
                stopped_early = True
                break
            if score > best_score:
                best_score, best_step, bad_evals = score, step, 0
                best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            else:
                bad_evals += 1
                if cfg.patience is not None and bad_evals >= cfg.patience:
                    stopped_early = True
                    break
        if (
            checkpoint is not None
            and step < cfg.max_steps
            and time.perf_counter() - last_save >= checkpoint_every_s
        ):
            save_checkpoint(checkpoint, snapshot(step))
            last_save = time.perf_counter()
        for path, other in (forks or {}).get(step, ()):
            if not Path(path).exists():
                state = snapshot(step)
                state["fingerprint"] = run_fingerprint(model, data, other, seed)
                state["forked_from"] = {
                    "max_steps": cfg.max_steps,
                    "step": step,
                    "elapsed_s": state["elapsed_s"],
                }
                save_checkpoint(path, state)
    bar.close()
    if best_state is not None:
        model.load_state_dict(best_state)
    val, _ = evaluate(
        model, x_val, y_val, metric, batch_size=cfg.eval_batch_size, autocast_dtype=dtype
    )
    test, by_group = evaluate(
        model,
        data.x_test.to(device),
        data.y_test.to(device),
        metric,
        batch_size=cfg.eval_batch_size,
        groups=data.test_groups,
        autocast_dtype=dtype,
    )
    if checkpoint is not None:
        Path(checkpoint).unlink(missing_ok=True)
    return TrainResult(
        metric=metric,
        higher_is_better=better,
        val=val if math.isfinite(val) else (-math.inf if better else math.inf),
        test=test,
        test_by_group=by_group,
        best_step=best_step,
        steps=step,
        stopped_early=stopped_early,
        wall_time_s=time.perf_counter() - t0,
        tokens_seen=step * tokens_per_step,
        curves=curves,
        forked_from=forked_from,
    )


def fit(
    build: Callable[[], nn.Module],
    data: TaskData,
    cfg: TrainConfig,
    lr_grid: Sequence[float],
    *,
    seed: int,
    device: torch.device | str | None = None,
    progress: bool | None = None,
) -> tuple[TrainResult, float, dict[float, float]]:
    """Train one model per learning rate in ``lr_grid``; keep the best on validation.

    ``build`` makes a fresh model; it is called after :func:`seed_everything(seed)
    <seed_everything>`, so every rate starts from the same initial weights. Returns the best
    result, its rate, and the validation score of every rate (the same tuning budget for every
    configuration, which is what makes a depth comparison fair).
    """
    if not lr_grid:
        raise ValueError("lr_grid must hold at least one learning rate, got an empty grid")
    best: tuple[TrainResult, float] | None = None
    scores: dict[float, float] = {}
    for lr in lr_grid:
        seed_everything(seed)
        result = train_model(
            build(), data, cfg.replace(lr=float(lr)), seed=seed, device=device, progress=progress
        )
        scores[float(lr)] = result.val
        key = result.val if result.higher_is_better else -result.val
        if best is None or key > (best[0].val if best[0].higher_is_better else -best[0].val):
            best = (result, float(lr))
    assert best is not None
    return best[0], best[1], scores
