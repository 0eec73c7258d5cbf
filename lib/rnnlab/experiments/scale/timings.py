"""What the design's runs cost: the benchmarked seconds per step (the timings file) and the
seconds of one run."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from rnnlab.experiments.experiment import Experiment
from rnnlab.experiments.scale.grid import TIMINGS_FILE


def default_timings_path() -> Path:
    """``data/scale_step_seconds.json`` of the course repository."""
    from rnnlab.core.paths import repo_root

    return repo_root() / "data" / TIMINGS_FILE


def load_timings(path: str | Path | None = None) -> dict:
    """The benchmark file (see ``benchmarks/bench_scale_steps.py``) as a dict."""
    path = Path(path) if path is not None else default_timings_path()
    if not path.is_file():
        raise ValueError(
            f"timings file {str(path)!r} does not exist: run "
            "python benchmarks/bench_scale_steps.py to benchmark the design's models"
        )
    doc = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise ValueError(f"timings file {str(path)!r} has no 'cells' list")
    return doc


def _cell_of(e: Experiment) -> tuple:
    return (e.task, e.budget, e.num_layers, e.embedding_dim, e.train.batch_size,
            dict(e.task_options).get("seq_len"))  # fmt: skip


def step_seconds(experiments: Sequence[Experiment], timings: Mapping) -> dict:
    """``{(budget, depth): (seconds per training step, seconds per evaluated window)}`` for every
    experiment, from the benchmark ``timings`` (:func:`load_timings`): the row of the same task,
    budget, depth, embedding, batch and window length. Raises ValueError naming a missing one."""
    rows = {
        (c["task"], c["budget"], c["num_layers"], c["embedding_dim"], c["batch_size"],
         c["seq_len"]): c
        for c in timings["cells"]
    }  # fmt: skip
    out = {}
    for e in experiments:
        row = rows.get(_cell_of(e))
        if row is None:
            raise ValueError(
                f"timings has no benchmark of budget={e.budget} num_layers={e.num_layers} "
                f"(task {e.task}, batch {e.train.batch_size}, embedding {e.embedding_dim}): rerun "
                "python benchmarks/bench_scale_steps.py"
            )
        out[(e.budget, e.num_layers)] = (row["step_s_median"], row["eval_s_per_window"])
    return out


def run_seconds(e: Experiment, seconds_per_step: float, seconds_per_window: float) -> float:
    """The cost model of the module docstring: one run of ``e`` in seconds on one core."""
    if not (seconds_per_step > 0 and seconds_per_window >= 0):
        raise ValueError(
            f"seconds_per_step must be > 0 and seconds_per_window >= 0, got {seconds_per_step!r} "
            f"and {seconds_per_window!r}"
        )
    t = e.train
    evaluations = t.max_steps // t.eval_every + (t.max_steps % t.eval_every != 0)
    windows = evaluations * e.n_val + e.n_val + e.n_test
    return t.max_steps * seconds_per_step + windows * seconds_per_window
