"""Plan a lab's compute: measured time per training step of each distinct model in a profile.

    python benchmarks/bench_lab_steps.py lab-d --profile cpu            # print the plan
    python benchmarks/bench_lab_steps.py lab-d --profile cpu --json data/bench/lab-d-cpu-steps.json

For every distinct (task, options, stack, depth) of the lab's design it builds the budget-matched
model (:func:`rnnlab.core.models.matched_config_for_task`, with the experiment's model options),
draws
one batch of the real task and times ``--steps`` training steps (forward, loss, backward, gradient
clipping, AdamW) on one thread, after one warm-up step; the median is kept. The plan is then

    core-seconds = sum over experiments of runs x (steps x t_step + evaluations x t_eval),

with ``runs`` the experiment's tuning runs (grid x tuning seeds) plus one per reporting seed,
and one evaluation pass over the validation set estimated as ``ceil(n_val / batch)`` forward
passes at a third of a training step each. Grid extensions (decided by the data) are not in it.
The load average is recorded: on a shared machine the times are upper bounds for a quiet one.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import statistics
import time
from pathlib import Path

import torch

from rnnlab.core.models import build_model, matched_config_for_task
from rnnlab.core.tasks import make_task
from rnnlab.core.train import batch_loss
from rnnlab.experiments.experiment import TUNE_SEEDS
from rnnlab.experiments.labs import get_lab
from rnnlab.experiments.unit import git_commit


def time_steps(experiment, steps: int) -> tuple[float, dict]:
    """Median seconds of one training step of ``experiment``'s model on a batch of its task."""
    e = experiment
    batch = e.train.batch_size
    data = make_task(
        e.task, n_train=batch, n_val=min(e.n_val, batch), n_test=1, seed=e.data_seed,
        **dict(e.task_options),
    )  # fmt: skip
    config, _ = matched_config_for_task(
        data, budget=e.budget, num_layers=e.num_layers, embedding_dim=e.embedding_dim,
        **e.model_options,
    )  # fmt: skip
    torch.manual_seed(0)
    model = build_model(config).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x, y = data.x_train[:batch], data.y_train[:batch]
    times = []
    for i in range(steps + 1):
        t0 = time.perf_counter()
        loss = batch_loss(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if i:
            times.append(time.perf_counter() - t0)
    model_info = {"hidden_size": config.hidden_size, "params": config.param_count()}
    return statistics.median(times), model_info


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("lab")
    p.add_argument("--profile", default="cpu")
    p.add_argument("--steps", type=int, default=5, help="timed steps per model (median kept)")
    p.add_argument("--json", type=Path, default=None, help="also write the plan, with provenance")
    args = p.parse_args()
    torch.set_num_threads(1)
    load_before = list(os.getloadavg())
    lab = get_lab(args.lab)
    spec = lab.sweep(args.profile)
    rows, cache, total = [], {}, 0.0
    for e in spec.experiments:
        options = tuple(sorted(e.model_options.items()))
        key = (e.task, e.task_options, e.budget, e.num_layers, options, e.train.batch_size)
        if key not in cache:
            cache[key] = time_steps(e, args.steps)
        t_step, model = cache[key]
        tune = len(e.lr_grid) * len(TUNE_SEEDS) if len(e.lr_grid) > 1 else 0
        runs = tune + len(spec.seeds)
        evals = e.train.max_steps // e.train.eval_every + 1
        t_eval = math.ceil(e.n_val / e.train.batch_size) * t_step / 3
        run_s = e.train.max_steps * t_step + evals * t_eval
        total += runs * run_s
        labels = dict(e.labels)
        rows.append({
            "task": e.task, "stack": labels.get("stack", "plain"), "num_layers": e.num_layers,
            "budget": e.budget, **model, "batch": e.train.batch_size, "steps": e.train.max_steps,
            "runs": runs, "step_s": t_step, "run_s": run_s, "core_s": runs * run_s,
        })  # fmt: skip
        print(f"{e.task:15s} {labels.get('stack', 'plain'):12s} L={e.num_layers} "
              f"d={model['hidden_size']:3d} P={model['params']:7,d} batch={e.train.batch_size:3d} "
              f"{t_step * 1e3:7.1f} ms/step x {e.train.max_steps:5d} steps x {runs:2d} runs = "
              f"{runs * run_s / 60:5.1f} core-min", flush=True)  # fmt: skip
    print(
        f"{lab.name} {args.profile}: {total / 60:.1f} core-minutes, "
        f"{total / 120:.1f} min on 2 cores (two jobs); load average before {load_before}"
    )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        doc = {
            "provenance": {
                "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                "machine": platform.node(), "platform": platform.platform(terse=True),
                "cpu_count": os.cpu_count(), "threads": 1,
                "load_average_before": load_before, "load_average_after": list(os.getloadavg()),
                "torch": torch.__version__, "git_commit": git_commit(),
                "timed_steps": args.steps, "lab": lab.name, "profile": args.profile,
            },
            "rows": rows,
            "core_minutes": total / 60,
            "minutes_on_2_cores": total / 120,
        }  # fmt: skip
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
