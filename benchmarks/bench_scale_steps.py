"""Seconds per training step of every (budget, depth) of the scale experiment, for its plan.

    python benchmarks/bench_scale_steps.py                       # reference + smoke, ~5 min
    python benchmarks/bench_scale_steps.py --note "machine idle"  # a remark kept in the file
    python benchmarks/bench_scale_steps.py --steps 300 --out data/scale_step_seconds.json

For each distinct model of the design (:func:`rnnlab.experiments.scale.scale_experiments`: the same
task,
budget-matched width, embedding, batch and window length that
:func:`rnnlab.experiments.unit.run_unit`
trains) it times, on **one thread** of the CPU, after ``--warmup`` untimed steps:

* ``--steps`` training steps exactly as :func:`rnnlab.core.train.train_model` takes them (batch
drawn
  from real ``charlm-stdlib`` windows, forward, cross-entropy, backward, gradient clipping, AdamW,
  the schedule's step); the median, mean, 10th and 90th percentile per step are stored;
* one evaluation of ``n_val`` windows (:func:`rnnlab.core.train.evaluate`, 3 timed repeats after one
  untimed), stored per window.

The result is written to ``data/scale_step_seconds.json`` with its provenance: the CPU model,
core count, date (UTC), Python, torch and rnnlab versions, the git commit, the load average
before and after, and ``--note``. :func:`rnnlab.experiments.scale_plan.plan` reads the file; it
never
times
anything itself (timings taken during a sweep, under load, are not estimates).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

import torch  # noqa: E402

from rnnlab.core.device import seed_everything  # noqa: E402
from rnnlab.core.models import build_model, matched_config_for_task  # noqa: E402
from rnnlab.core.train import batch_loss, evaluate, lr_schedule
from rnnlab.experiments import scale  # noqa: E402
from rnnlab.experiments.experiment import data_seed_for  # noqa: E402
from rnnlab.experiments.unit import git_commit, task_data, versions


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def time_cell(e, *, steps: int, warmup: int) -> dict:
    data = task_data(e.task, e.n_train, e.n_val, e.n_test, data_seed_for(e, 0), e.task_options)
    config, match = matched_config_for_task(
        data, budget=e.budget, num_layers=e.num_layers, embedding_dim=e.embedding_dim
    )
    seed_everything(0)
    model = build_model(config)
    model.train()
    cfg = e.train.replace(lr=2e-3)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_schedule(cfg))
    gen = torch.Generator().manual_seed(0)
    n = data.x_train.shape[0]
    times = []
    for i in range(warmup + steps):
        t0 = time.perf_counter()
        idx = torch.randint(n, (cfg.batch_size,), generator=gen)
        loss = batch_loss(model(data.x_train[idx]), data.y_train[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
        opt.step()
        sched.step()
        loss.item()  # train_model reads the loss only at evaluations; this costs microseconds
        if i >= warmup:
            times.append(time.perf_counter() - t0)
    eval_times = []
    for i in range(4):
        t0 = time.perf_counter()
        evaluate(model, data.x_val, data.y_val, data.metric, batch_size=cfg.eval_batch_size)
        if i:
            eval_times.append(time.perf_counter() - t0)
    times.sort()
    q = statistics.quantiles(times, n=10)
    return {
        "task": e.task,
        "task_options": dict(e.task_options),
        "budget": e.budget,
        "budget_target": e.label("budget_target"),
        "num_layers": e.num_layers,
        "hidden_size": config.hidden_size,
        "embedding_dim": e.embedding_dim,
        "vocab_size": data.vocab_size,
        "param_count": config.param_count(),
        "param_relative_error": match.relative_error,
        "batch_size": cfg.batch_size,
        "seq_len": data.x_train.shape[1],
        "timed_steps": steps,
        "warmup_steps": warmup,
        "step_s_median": statistics.median(times),
        "step_s_mean": statistics.fmean(times),
        "step_s_p10": q[0],
        "step_s_p90": q[-1],
        "eval_windows": int(data.x_val.shape[0]),
        "eval_s_per_window": statistics.median(eval_times) / data.x_val.shape[0],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--profiles", nargs="+", default=["reference", "smoke"], help="designs to benchmark"
    )
    p.add_argument("--steps", type=int, default=200, help="timed steps per model")
    p.add_argument("--warmup", type=int, default=20, help="untimed steps first")
    p.add_argument("--out", default=None, help="default: data/scale_step_seconds.json")
    p.add_argument("--note", default="", help="a remark kept with the numbers (e.g. the load)")
    args = p.parse_args()
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    out = Path(args.out) if args.out else scale.default_timings_path()
    started = dt.datetime.now(dt.timezone.utc)
    load_before = os.getloadavg()
    cells = []
    seen = set()
    experiments = [e for prof in args.profiles for e in scale.scale_experiments(prof)]
    for e in experiments:
        key = (e.task, e.budget, e.num_layers, e.embedding_dim, e.train.batch_size)
        if key in seen:
            continue
        seen.add(key)
        row = time_cell(e, steps=args.steps, warmup=args.warmup)
        cells.append(row)
        print(
            f"B={row['budget']:>7,d} L={row['num_layers']} d={row['hidden_size']:>4d} "
            f"params={row['param_count']:>7,d}: {1000 * row['step_s_median']:7.1f} ms/step "
            f"(mean {1000 * row['step_s_mean']:.1f}, p10 {1000 * row['step_s_p10']:.1f}, "
            f"p90 {1000 * row['step_s_p90']:.1f}); eval "
            f"{1e6 * row['eval_s_per_window']:.0f} us/window",
            flush=True,
        )
    finished = dt.datetime.now(dt.timezone.utc)
    doc = {
        "what": "seconds per training step of the scale experiment's models, one thread each, "
        "by benchmarks/bench_scale_steps.py; read by rnnlab.experiments.scale_plan.plan",
        "profiles": args.profiles,
        "provenance": {
            "cpu": cpu_model(),
            "cpu_count": os.cpu_count(),
            "machine": platform.machine(),
            "platform": platform.platform(terse=True),
            "torch_threads": torch.get_num_threads(),
            "started_utc": started.isoformat(timespec="seconds"),
            "finished_utc": finished.isoformat(timespec="seconds"),
            "versions": versions(),
            "git_commit": git_commit(),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
            "note": args.note,
            "command": "python benchmarks/bench_scale_steps.py "
            f"--profiles {' '.join(args.profiles)} --steps {args.steps} --warmup {args.warmup}",
        },
        "cells": cells,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} ({(finished - started).total_seconds():.0f} s)")


if __name__ == "__main__":
    main()
