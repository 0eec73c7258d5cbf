"""The scale experiment: does depth overtake width as budget and training length grow?

The pilot (``shared/notes/pilot.md``) saw one claim flip with scale: on Python source at 400K
parameters, width led early and a 2-layer stack led after about 4000 steps. This module plans the
experiment that would test that properly, as data:

* :func:`scale_experiments` returns the design of a profile. ``reference``: character LMs on
  ``charlm-stdlib`` (the whole single-file standard library), depths 1, 2, 4, budgets log-spaced
  25K-400K (matched within 2% for every depth by :func:`rnnlab.labs.fit_budget`), training
  lengths 1.5K, 6K and 24K steps, each its own cosine schedule, batch 32 x 128 characters,
  5 reporting seeds. ``smoke`` is a seconds-long code-path check.
* :func:`plan` prints what the design costs before anything runs: runs, core-hours from
  *measured* seconds per step (:func:`step_seconds`, cached), what is done and what remains.

Command line: ``python -m rnnlab plan scale --profile reference [--out FILE]``.

Cost model (documented, so the estimate can be checked): a run of ``S`` steps costs
``S * t_step + E * t_step / 3 * ceil(n_eval / batch)``, where ``t_step`` is the measured time of one
training step (forward, backward, clip, Adam) of that (budget, depth) on one core, and the second
term counts evaluation: ``E`` windows are evaluated (``n_val`` at every evaluation, plus the final
``n_val + n_test``), a forward pass costing about a third of a training step.
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from rnnlab.sweep import Experiment, SweepSpec
from rnnlab.train import TrainConfig

TASK = "charlm-stdlib"
SCALE_PROFILES = ("reference", "smoke")
ISSUE_CALIBRATION = {"params": 400_000, "steps": 8_000, "minutes": 37.0}
"""The issue's measurement: 400K parameters, 8000 steps of 32 x 128 characters, about 37 minutes
on one core (0.28 s per step). :func:`plan` prints it beside the measured times."""


def _design(profile: str) -> dict:
    if profile == "reference":
        return dict(
            depths=(1, 2, 4),
            budgets=(25_000, 50_000, 100_000, 200_000, 400_000),
            steps=(1_500, 6_000, 24_000),
            eval_every={1_500: 100, 6_000: 250, 24_000: 500},
            batch_size=32,
            seq_len=128,
            n_train=30_000,  # of about 33,000 training windows of 128 (CPython 3.11)
            n_val=512,
            n_test=1_024,
            embedding_dim=32,
            warmup_steps=100,
            lr_grid=(1e-3, 2e-3, 4e-3),
            seeds=(0, 1, 2, 3, 4),
        )
    if profile == "smoke":
        return dict(
            depths=(1, 2),
            budgets=(12_000,),
            steps=(12, 24),
            eval_every={12: 6, 24: 12},
            batch_size=8,
            seq_len=32,
            n_train=64,
            n_val=16,
            n_test=16,
            embedding_dim=16,
            warmup_steps=2,
            lr_grid=(3e-3,),
            seeds=(0, 1),
        )
    raise ValueError(f"profile must be one of {SCALE_PROFILES}, got {profile!r}")


def scale_experiments(profile: str = "reference") -> tuple[Experiment, ...]:
    """The scale experiment's design in ``profile`` (see the module docstring), ordered by
    training length, then budget, then depth. Labels: ``task``, ``budget_target``, ``steps``,
    ``corpus``."""
    from rnnlab.labs import fit_budget

    d = _design(profile)
    options = (("seq_len", d["seq_len"]),)
    out = []
    for steps in d["steps"]:
        train = TrainConfig(
            max_steps=steps,
            batch_size=d["batch_size"],
            eval_every=d["eval_every"][steps],
            patience=None,  # the schedule ends where training ends
            warmup_steps=d["warmup_steps"],
            schedule="cosine",
        )
        for target in d["budgets"]:
            budget = fit_budget(
                target, d["depths"], task=TASK, options=options, embedding_dim=d["embedding_dim"]
            )
            for depth in d["depths"]:
                out.append(
                    Experiment(
                        task=TASK,
                        budget=budget,
                        num_layers=depth,
                        n_train=d["n_train"],
                        n_val=d["n_val"],
                        n_test=d["n_test"],
                        task_options=options,
                        embedding_dim=d["embedding_dim"],
                        train=train,
                        lr_grid=d["lr_grid"],
                        labels=(
                            ("task", TASK),
                            ("budget_target", target),
                            ("steps", steps),
                            ("corpus", "stdlib"),
                        ),
                    )
                )
    return tuple(out)


def scale_seeds(profile: str = "reference") -> tuple[int, ...]:
    """The reporting seeds of ``profile``."""
    return _design(profile)["seeds"]


def sweep_spec(profile: str = "reference", seeds: Sequence[int] | None = None) -> SweepSpec:
    """The design as a :class:`~rnnlab.sweep.SweepSpec` (lab ``"scale"``) for
    :func:`rnnlab.sweep.run_sweep` (with ``checkpoint_dir``: runs are long)."""
    return SweepSpec(
        "scale",
        profile,
        scale_experiments(profile),
        tuple(seeds) if seeds is not None else scale_seeds(profile),
    )


# ----------------------------------------------------------------------------- timing


def default_cache() -> Path:
    """``$RNNLAB_CACHE/step_seconds.json``, else ``~/.cache/rnnlab/step_seconds.json``."""
    root = os.environ.get("RNNLAB_CACHE") or Path.home() / ".cache" / "rnnlab"
    return Path(root) / "step_seconds.json"


def _timing_key(e: Experiment, threads: int) -> str:
    import torch

    t = e.train
    return (
        f"{e.task}|{dict(e.task_options)}|B={e.budget}|L={e.num_layers}|emb={e.embedding_dim}"
        f"|batch={t.batch_size}|threads={threads}|torch={torch.__version__}"
        f"|cpu={platform.processor() or platform.machine()}"
    )


def measure_step_seconds(e: Experiment, *, steps: int = 4, warmup: int = 2) -> float:
    """Seconds per training step of ``e``'s model (median of ``steps`` timed steps after
    ``warmup``), on the CPU with the current number of torch threads, on random windows."""
    import torch

    from rnnlab.labs import task_example
    from rnnlab.models import build_model, matched_config_for_task

    example = task_example(e.task, e.task_options)
    config, _ = matched_config_for_task(
        example, budget=e.budget, num_layers=e.num_layers, embedding_dim=e.embedding_dim
    )
    g = torch.Generator().manual_seed(0)
    model = build_model(config)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
    shape = (e.train.batch_size, example.seq_len)
    times = []
    for i in range(warmup + steps):
        x = torch.randint(example.vocab_size, shape, generator=g)
        y = torch.randint(example.num_classes, shape, generator=g)
        t0 = time.perf_counter()
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.ravel())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if i >= warmup:
            times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def step_seconds(
    experiments: Sequence[Experiment],
    *,
    cache: str | Path | None = None,
    measure: Callable[[Experiment], float] = measure_step_seconds,
) -> dict[tuple[int, int], float]:
    """Measured seconds per step for every (budget, depth) of ``experiments`` (the training
    length does not change a step's cost), read from ``cache`` when already measured there with
    the same model, batch, thread count, torch and CPU; new measurements are added to it."""
    import torch

    path = Path(cache) if cache is not None else default_cache()
    try:
        known = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError):
        known = {}
    threads = torch.get_num_threads()
    out: dict[tuple[int, int], float] = {}
    changed = False
    for e in experiments:
        cell = (e.budget, e.num_layers)
        if cell in out:
            continue
        key = _timing_key(e, threads)
        if key not in known:
            known[key] = measure(e)
            changed = True
        out[cell] = float(known[key])
    if changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(known, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    return out


def run_seconds(e: Experiment, seconds_per_step: float) -> float:
    """The cost model of the module docstring: one run of ``e`` in seconds on one core."""
    t = e.train
    evaluations = t.max_steps // t.eval_every + (t.max_steps % t.eval_every != 0)
    windows = evaluations * e.n_val + e.n_val + e.n_test
    eval_steps = math.ceil(windows / t.batch_size) / 3
    return (t.max_steps + eval_steps) * seconds_per_step


# ----------------------------------------------------------------------------- the plan


def plan(
    experiments: Sequence[Experiment],
    seeds: Sequence[int],
    records: Sequence[dict],
    *,
    seconds: Mapping[tuple[int, int], float] | None = None,
    cache: str | Path | None = None,
    file: TextIO | None = None,
) -> dict:
    """Print the compute plan of ``experiments`` x ``seeds`` given the finished ``records``:
    runs, estimated core-hours (steps x measured seconds per step, :func:`run_seconds`), what is
    done, what remains. ``seconds`` maps (budget, depth) to seconds per step; by default they are
    measured and cached (:func:`step_seconds`). Returns the totals as a dict."""
    file = file or sys.stdout
    seconds = dict(seconds) if seconds is not None else step_seconds(experiments, cache=cache)
    by_key: dict[str, int] = {}
    for r in records:
        by_key[r.get("experiment_key", "")] = by_key.get(r.get("experiment_key", ""), 0) + 1
    rows = []
    for e in experiments:
        n_runs = SweepSpec("scale", "plan", (e,), tuple(seeds)).n_runs()
        done = min(by_key.get(e.key, 0), n_runs)
        cost = run_seconds(e, seconds[(e.budget, e.num_layers)])
        rows.append((e, n_runs, done, cost))
    total_runs = sum(r[1] for r in rows)
    done_runs = sum(r[2] for r in rows)
    total_h = sum(r[1] * r[3] for r in rows) / 3600
    done_h = sum(r[2] * r[3] for r in rows) / 3600
    left_h = total_h - done_h
    n_tune = total_runs - len(experiments) * len(seeds)
    depths = sorted({e.num_layers for e in experiments})
    budgets = sorted({e.budget for e in experiments})
    lengths = sorted({e.train.max_steps for e in experiments})
    p = print
    p(
        f"scale plan: {len(experiments)} experiments = {len(budgets)} budgets x {len(depths)} "
        f"depths x {len(lengths)} training lengths, {len(seeds)} reporting seeds",
        file=file,
    )
    p(f"  task {experiments[0].task}, options {dict(experiments[0].task_options)}", file=file)
    p(
        f"runs: {total_runs} ({n_tune} tuning + {total_runs - n_tune} reporting); "
        f"done {done_runs}; remaining {total_runs - done_runs}",
        file=file,
    )
    p(
        f"core-hours (estimated): total {total_h:.1f}; done {done_h:.1f}; remaining "
        f"{left_h:.1f} (about {left_h / 2:.1f} h on 2 cores, one run per core)",
        file=file,
    )
    p("seconds per training step, one core (measured; rows budget, columns depth):", file=file)
    p("  budget  " + "".join(f"{'L=' + str(d):>9s}" for d in depths), file=file)
    for b in budgets:
        cells = "".join(
            f"{seconds[(b, d)]:9.4f}" if (b, d) in seconds else f"{'-':>9s}" for d in depths
        )
        p(f"  {b:7,d} {cells}", file=file)
    cal = ISSUE_CALIBRATION
    p(
        f"  (issue's measurement: {cal['params']:,} params, {cal['steps']:,} steps in about "
        f"{cal['minutes']:.0f} min = {cal['minutes'] * 60 / cal['steps']:.3f} s/step)",
        file=file,
    )
    p("remaining core-hours by training length and budget:", file=file)
    for steps in lengths:
        parts = []
        for b in budgets:
            h = sum(
                (r[1] - r[2]) * r[3]
                for r in rows
                if r[0].train.max_steps == steps and r[0].budget == b
            )
            parts.append(f"{b // 1000}K {h / 3600:.1f}")
        p(f"  {steps:>6,d} steps: " + ", ".join(parts), file=file)
    return {
        "experiments": len(experiments),
        "runs": total_runs,
        "tune_runs": n_tune,
        "done_runs": done_runs,
        "remaining_runs": total_runs - done_runs,
        "core_hours": total_h,
        "done_core_hours": done_h,
        "remaining_core_hours": left_h,
        "seconds_per_step": {f"{b}|{d}": s for (b, d), s in seconds.items()},
    }


def plan_command(profile: str, out: str | Path | None = None) -> dict:
    """``python -m rnnlab plan scale --profile PROFILE [--out FILE]``: the plan, counting the
    runs already in ``out``."""
    from rnnlab.sweep import load_results

    records = load_results(out) if out else []
    result = plan(scale_experiments(profile), scale_seeds(profile), records)
    target = out or f"runs/scale-{profile}.jsonl"
    print(
        'to run (resumable, checkpoints every 3 min): python -c "from rnnlab import scale, '
        f"sweep; sweep.run_sweep(scale.sweep_spec('{profile}'), '{target}', jobs=2, "
        f"checkpoint_dir='{target}.ckpt')\""
    )
    return result
