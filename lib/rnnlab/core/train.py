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
checkpoint is deleted when the run finishes. An interrupt (``SIGINT``: Ctrl-C, ``timeout -s INT``)
does not lose the steps since the last save: the loop finishes the step it is in, saves, and only
then raises ``KeyboardInterrupt`` (:func:`_interrupt_saves`).
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from rnnlab.core.checkpoint import (
    load_checkpoint,
    run_fingerprint,
    save_checkpoint,
)
from rnnlab.core.config import IGNORE_INDEX, LN2, TrainConfig, TrainResult
from rnnlab.core.device import amp_dtype, seed_everything, select_device
from rnnlab.core.tasks import TaskData

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


@contextlib.contextmanager
def _interrupt_saves(enabled: bool):
    """While the block runs, ``SIGINT`` only raises a flag (``flag[0]``) that the training loop
    reads after each step, so an interrupted run saves a checkpoint of a *completed* step (not
    one torn between the backward pass and the optimiser) before it raises KeyboardInterrupt.
    A Python handler can only be installed from the main thread: elsewhere (a Dask worker's
    thread), or when ``enabled`` is false, the flag never rises and Ctrl-C works as usual. A
    process that ignores ``SIGINT`` (one started in the background by a shell, as ``cmd &``
    is) keeps ignoring it, as Python itself does."""
    flag = [False]
    if (
        not enabled
        or threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    ):
        yield flag
        return

    def raise_flag(signum, frame) -> None:
        flag[0] = True

    previous = signal.signal(signal.SIGINT, raise_flag)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


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
    schedules still agree (:func:`rnnlab.experiments.experiment.fork_step`); the run resumed
    from the fork reports it in :attr:`TrainResult.forked_from`.
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
    with _interrupt_saves(checkpoint is not None) as interrupted:
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
                    model,
                    x_val,
                    y_val,
                    metric,
                    batch_size=cfg.eval_batch_size,
                    autocast_dtype=dtype,
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
            if interrupted[0]:  # SIGINT in this step: keep it, then stop (even after the last
                save_checkpoint(checkpoint, snapshot(step))  # step: its record is not written yet)
                bar.close()
                raise KeyboardInterrupt
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
