"""ListOps accuracy per operator: replay committed Lab C runs and score them by root operator.

The committed records store each run's test accuracy per nesting depth, not per operator. This
script retrains chosen reporting runs of Lab C's **cpu** profile exactly as they were run (the
same experiment, seed, learning rate, data seed, one thread, on the CPU: the steps of
:func:`rnnlab.experiments.unit.run_unit`), checks that the replay reproduces the recorded test
accuracy, and
scores the replayed model on the same test set grouped by the expression's root operator (MAX,
MIN, SM = sum modulo 10), beside each group's majority-class rate. The output is a JSON file with
its provenance; :func:`rnnlab.course.findings.operator_lines` reads it into the Findings page.

Usage (minutes on one core; the default cells are the two the review of issue 27 named)::

    python scripts/listops_by_operator.py --cells 1:500 3:500 \
        --out data/results/lab-c-cpu-by-operator.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from pathlib import Path

import torch

from rnnlab.core.device import seed_everything
from rnnlab.core.models import build_model, matched_config_for_task
from rnnlab.core.tasks import make_task
from rnnlab.core.train import evaluate, train_model
from rnnlab.experiments.experiment import data_seed_for
from rnnlab.experiments.labs import get_lab, load_reference
from rnnlab.experiments.store import eval_records
from rnnlab.experiments.unit import git_commit, versions

OPERATORS = {10: "MAX", 11: "MIN", 12: "SM"}
"""ListOps operator token ids (see :func:`rnnlab.core.tasks.listops_eval`)."""


def root_operator(x: torch.Tensor) -> torch.Tensor:
    """The root operator's token id of each (left-padded) expression: the token after its first
    ``[``. Shape ``(N,)``."""
    first_open = (x == 13).int().argmax(dim=1)
    return x[torch.arange(len(x)), first_open + 1]


def replay(record: dict, experiment) -> dict:
    """Retrain one recorded run as :func:`rnnlab.experiments.unit.run_unit` did and score it per
    root
    operator."""
    torch.set_num_threads(int(record.get("threads") or 1))
    data = make_task(
        experiment.task,
        n_train=experiment.n_train,
        n_val=experiment.n_val,
        n_test=experiment.n_test,
        seed=data_seed_for(experiment, record["seed"]),
        **dict(experiment.task_options),
    )
    config, _ = matched_config_for_task(
        data,
        budget=experiment.budget,
        num_layers=experiment.num_layers,
        embedding_dim=experiment.embedding_dim,
        **experiment.model_options,
    )
    seed_everything(record["seed"])
    model = build_model(config)
    t0 = time.perf_counter()
    result = train_model(
        model,
        data,
        experiment.train.replace(lr=float(record["lr"])),
        seed=record["seed"],
        device="cpu",
        progress=False,
    )
    ops = root_operator(data.x_test)
    _, by_op = evaluate(model, data.x_test, data.y_test, data.metric, groups=ops)
    chance = {}
    for op in OPERATORS:
        ys = data.y_test[ops == op]
        chance[OPERATORS[op]] = float(torch.bincount(ys, minlength=10).max() / len(ys))
    return {
        "nesting": experiment.label("nesting"),
        "n_train": experiment.n_train,
        "layers": experiment.num_layers,
        "seed": record["seed"],
        "run_id": record["run_id"],
        "recorded_test": record["metrics"]["test"],
        "replayed_test": result.test,
        "by_operator": {OPERATORS[int(k)]: v for k, v in by_op.items()},
        "examples_by_operator": {OPERATORS[o]: int((ops == o).sum()) for o in OPERATORS},
        "majority_by_operator": chance,
        "wall_time_s": time.perf_counter() - t0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", nargs="+", default=["1:500", "3:500"], help="nesting:n_train")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    wanted = []
    for c in args.cells:
        nesting, n_train = (int(v) for v in c.split(":"))
        wanted.append((nesting, n_train))
    lab = get_lab("lab-c")
    by_key = {e.key: e for e in lab.experiments("cpu")}
    records = load_reference("lab-c", "cpu")
    rows = []
    for r in sorted(eval_records(records), key=lambda r: (r["seed"], r["num_layers"])):
        e = by_key.get(r["experiment_key"])
        if e is None or e.label("split") != "in-distribution":
            continue
        if (e.label("nesting"), e.n_train) not in wanted:
            continue
        row = replay(r, e)
        rows.append(row)
        print(json.dumps(row), flush=True)
    out = {
        "what": "Lab C (cpu profile) reporting runs replayed and scored per root operator",
        "command": "python scripts/listops_by_operator.py --cells " + " ".join(args.cells),
        "git_commit": git_commit(),
        "versions": versions(),
        "run_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "rows": rows,
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({len(rows)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
