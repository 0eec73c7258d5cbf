"""Seconds per training step of the convergence experiment's runs: the benchmark it is priced
by (:func:`measured_step_seconds`, :func:`gpu_step_seconds`), what its runs really took
(:func:`run_step_seconds`), and the estimate a deadline needs (:func:`seconds_left`). The plan
(:mod:`.costing`) and the sweep's ``--until`` (:mod:`.staging`) both read them."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

from rnnlab.core.config import own_wall_time_s
from rnnlab.experiments.converge.grid import Design
from rnnlab.experiments.experiment import run_id


def measured_step_seconds(timings: dict) -> dict[tuple[int, int], float]:
    """Seconds per training step of each (budget, depth) at batch 32 x 128 characters and
    embedding 32, from the scale benchmark (``data/scale_step_seconds.json``, one thread, on this
    kind of machine): the cost model of :func:`~rnnlab.experiments.converge.costing.plan`. The
    residual + LayerNorm stack is priced as the plain stack of its depth, and evaluation is
    left out (under 5% of a run here)."""
    return {
        (c["budget"], c["num_layers"]): c["step_s_median"]
        for c in timings.get("cells", [])
        if c.get("batch_size") == 32 and c.get("seq_len") == 128 and c.get("embedding_dim") == 32
    }


def gpu_step_seconds(
    records: Sequence[dict], budgets: Sequence[int] = (), bench: dict | None = None
) -> dict[tuple[int, int], float]:
    """The gpu profile's cost model, seconds per step of each (budget, depth): the median
    :func:`run_step_seconds` of the runs made on a CUDA device; for the cells of ``budgets`` at
    depths 1, 2 and 4 without such runs, the GPU depth-cost benchmark's step (``bench``, default
    ``data/bench/depth-cost-cuda.json``; its row of that depth at the budget nearest on a log
    scale) times the median ratio of the measured cells to it (1 before any run)."""
    runs = run_step_seconds([r for r in records if r.get("device") == "cuda"])
    if bench is None:
        import json

        from rnnlab.core.paths import repo_root

        path = repo_root() / "data" / "bench" / "depth-cost-cuda.json"
        bench = json.loads(path.read_text()) if path.exists() else {}
    from rnnlab.experiments.runner import bench_step_seconds

    return _measured_else_scaled(runs, bench_step_seconds(bench, "cuda"), budgets)


def _measured_else_scaled(
    runs: dict[tuple[int, int], list[float]],
    bench: dict[tuple[int, int], float],
    budgets: Sequence[int],
) -> dict[tuple[int, int], float]:
    """Seconds per step of each (budget, depth): the median of ``runs`` where a cell has runs;
    for the cells of ``budgets`` at depths 1, 2 and 4 without, ``bench``'s step of that depth
    at the budget nearest on a log scale, times the median ratio of the measured cells to
    ``bench`` (1 before any run). A depth ``bench`` lacks is left out."""
    out = {k: statistics.median(v) for k, v in runs.items()}
    if not bench:
        return out

    def at(budget: int, depth: int) -> float:
        same = [b for b, k in bench if k == depth]
        if not same:
            return math.nan
        return bench[(min(same, key=lambda b: abs(math.log(b / budget))), depth)]

    ratios = [v / at(*k) for k, v in out.items() if not math.isnan(at(*k))]
    ratio = statistics.median(ratios) if ratios else 1.0
    for b in budgets:
        for depth in (1, 2, 4):
            if (b, depth) not in out and not math.isnan(at(b, depth)):
                out[(b, depth)] = ratio * at(b, depth)
    return out


#: How many of the newest runs of a (budget, depth) price a run for a deadline
#: (:func:`seconds_left`): the machines of 2026-12-05's sittings took 0.046 to 0.089 s per
#: step for the same 160K one-layer run.
RECENT_RUNS = 6


def _cpu_timings(timings: dict | None) -> dict:
    """``timings``, or the CPU scale benchmark (``data/scale_step_seconds.json``) when
    ``None``."""
    if timings is not None:
        return timings
    from rnnlab.experiments.scale import load_timings

    return load_timings()


def step_seconds_now(
    d: Design, records: Sequence[dict], timings: dict | None = None
) -> dict[tuple[int, int], float]:
    """Seconds per step of each (budget, depth) as the machine runs now: the median wall time
    per step of the newest :data:`RECENT_RUNS` runs there on this kind of device (evaluation
    and the sweep's own load included, :func:`run_step_seconds`; the newest, because a
    sitting's machine may be faster or slower than the last one's), else the benchmark's step
    scaled by the measured cells' ratio to it (the CPU scale benchmark ``timings``, default
    ``data/scale_step_seconds.json``; on the gpu profile the GPU benchmark,
    :func:`gpu_step_seconds`)."""
    if d.profile == "gpu":
        return gpu_step_seconds(records, d.budgets)
    timings = _cpu_timings(timings)
    runs = run_step_seconds([r for r in records if r.get("device") != "cuda"])
    own = {k: v[-RECENT_RUNS:] for k, v in runs.items()}  # in the order written
    return _measured_else_scaled(own, measured_step_seconds(timings), d.budgets)


def seconds_left(
    d: Design, checkpoint_dir: str | Path | None, timings: dict | None = None
) -> Callable[[tuple, Sequence[dict]], float | None]:
    """The wall-time estimate a deadline needs (``--until``,
    :func:`rnnlab.experiments.sweep.run_sweep`'s ``estimate``): for a run ``unit`` given the
    ``records`` so far, the steps it has left (its length less the step its checkpoint or its
    fork in ``checkpoint_dir`` saved, :func:`rnnlab.experiments.deadline.saved_step`) times
    :func:`step_seconds_now` of its (budget, depth). ``None`` where no step time is known.
    ``benchmarks/bench_deadline_estimate.py`` replays the committed runs to measure it."""
    from rnnlab.experiments.deadline import saved_step
    from rnnlab.experiments.experiment import fork_path

    if d.profile != "gpu":  # loaded once here, not at every estimate
        timings = _cpu_timings(timings)
    cache: dict[int, dict[tuple[int, int], float]] = {}

    def estimate(unit: tuple, records: Sequence[dict]) -> float | None:
        exp, role, seed, lr = unit
        if len(records) not in cache:  # records only grow within a sweep
            cache[len(records)] = step_seconds_now(d, records, timings)
        t = cache[len(records)].get((exp.budget, exp.num_layers))
        if t is None or math.isnan(t):
            return None
        fork = fork_path(checkpoint_dir, *unit) if checkpoint_dir is not None else None
        start = saved_step(checkpoint_dir, run_id(*unit), fork)
        return max(exp.train.max_steps - start, 0) * t

    return estimate


def paid_steps(record: dict) -> int:
    """The training steps a run record paid itself: its steps, less the step of the fork it
    started from (the fork's steps were paid by a sibling).

    >>> paid_steps({"metrics": {"steps": 8000, "forked_from": {"step": 6400}}})
    1600
    """
    m = record.get("metrics") or {}
    return int(m.get("steps") or 0) - int((m.get("forked_from") or {}).get("step", 0))


def run_step_seconds(records: Sequence[dict]) -> dict[tuple[int, int], list[float]]:
    """Wall seconds per training step that each committed run paid itself, per (budget,
    depth): :func:`rnnlab.core.config.own_wall_time_s` over the steps it trained (a run
    started from a fork pays only the steps after it). Wall time includes evaluation and any
    time the machine spent on other work, so this is what the sweep really took here, against
    the cost model's idle-machine benchmark."""
    out: dict[tuple[int, int], list[float]] = {}
    for r in records:
        steps = paid_steps(r)
        if steps > 0 and r.get("budget") and r.get("num_layers"):
            key = (int(r["budget"]), int(r["num_layers"]))
            out.setdefault(key, []).append(own_wall_time_s(r) / steps)
    return out
