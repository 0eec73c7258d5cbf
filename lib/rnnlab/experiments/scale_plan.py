"""The scale map's compute plan: what it costs and how far the results have taken it.

:func:`compute_plan` computes (runs, core-hours from the benchmark, what is done, the
calibration by the finished runs, the next runs, the transfer check); :func:`plan_lines` says it
in words; :func:`plan` prints it and returns the totals; :func:`plan_command` is
``python -m rnnlab plan scale``.
"""

from __future__ import annotations

import math
import shlex
import statistics
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from rnnlab.experiments.experiment import TUNE_SEEDS, Experiment, run_id
from rnnlab.experiments.scale import (
    MAX_TRANSFER_GRID_STEPS,
    default_checkpoint_dir,
    default_drain_file,
    default_out,
    load_timings,
    run_command,
    run_seconds,
    step_seconds,
    sweep_spec,
    transfer_check,
    transfer_holds,
)
from rnnlab.experiments.sweep import SweepSpec
from rnnlab.experiments.tuning import cell_grid, cells_of

ISSUE_CALIBRATION = {"params": 400_000, "steps": 8_000, "minutes": 37.0}
"""The issue's measurement: 400K parameters, 8000 steps of 32 x 128 characters, about 37 minutes
on one core (0.28 s per step). :func:`plan` prints it beside the benchmark."""
#: how many of the latest finished runs :func:`plan` calibrates "this machine now" by
RECENT_RUNS = 10

#: One run of the plan: (experiment, role, seed, lr or None, done).
PlanUnit = tuple[Experiment, str, int, "float | None", bool]


def unit_name(e: Experiment, role: str, seed: int, lr: float | None) -> str:
    """One run as the plan names it: length, budget, depth, role, seed (and rate)."""
    rate = f" lr={lr:g}" if lr is not None else ""
    return (
        f"{e.label('steps'):>6,d} steps  B={e.label('budget_target') // 1000}K "
        f"L={e.num_layers} {role} seed={seed}{rate}"
    )


@dataclass(frozen=True)
class ScalePlan:
    """What :func:`compute_plan` found (hours are core-hours; ``nan`` where not estimated)."""

    spec: SweepSpec
    units: tuple[PlanUnit, ...]
    costs: tuple[float, ...]  # seconds per unit, aligned with ``units``
    seconds: dict  # (budget, depth) -> (seconds per step, seconds per window)
    no_estimate: str
    total_h: float
    done_h: float
    measured_h: float
    n_records: int
    ratio: float | None
    n_ratios: int
    ratio_recent: float | None
    remaining: tuple[PlanUnit, ...]  # in run order
    check_rows: tuple[dict, ...]
    provenance: dict

    @property
    def left_h(self) -> float:
        return self.total_h - self.done_h

    @property
    def done_runs(self) -> int:
        return sum(u[4] for u in self.units)

    @property
    def tune_runs(self) -> int:
        return sum(u[1] == "tune" for u in self.units)

    def totals(self) -> dict:
        """The totals :func:`plan` returns."""
        total_runs, done_runs, left_h, ratio = (
            len(self.units),
            self.done_runs,
            self.left_h,
            self.ratio,
        )
        return {
            "experiments": len(self.spec.experiments),
            "runs": total_runs,
            "tune_runs": self.tune_runs,
            "done_runs": done_runs,
            "remaining_runs": total_runs - done_runs,
            "core_hours": self.total_h,
            "done_core_hours": self.done_h,
            "remaining_core_hours": left_h,
            "calibration": ratio,
            "remaining_core_hours_calibrated": None if ratio is None else left_h * ratio,
            "calibration_recent": self.ratio_recent,
            "remaining": [unit_name(*u[:4]) for u in self.remaining],
            "seconds_per_step": {f"{b}|{d}": s[0] for (b, d), s in self.seconds.items()},
        }


def compute_plan(
    spec: SweepSpec, records: Sequence[dict], *, timings: Mapping | None = None
) -> ScalePlan:
    """The compute plan of ``spec`` given the finished ``records`` (see :func:`plan`)."""
    timings = timings if timings is not None else load_timings()
    try:
        seconds = step_seconds(spec.experiments, timings)
        no_estimate = ""
    except ValueError as err:
        seconds = {}
        no_estimate = (
            "no benchmark of this profile's models: the finished runs' measured wall time is "
            "the measurement"
            if not timings.get("cells")
            else str(err)
        )
    experiments = spec.experiments

    def cost(e: Experiment) -> float:
        if not seconds:
            return math.nan
        return run_seconds(e, *seconds[(e.budget, e.num_layers)])

    done_ids = {r["run_id"] for r in records}
    evals_done: dict[str, int] = {}
    for r in records:
        if r.get("role") == "eval":
            evals_done[r.get("experiment_key", "")] = evals_done.get(r["experiment_key"], 0) + 1
    # units: (experiment, role, seed, lr or None, done)
    units: list[tuple[Experiment, str, int, float | None, bool]] = []
    for cell in cells_of(experiments).values():
        tuned = spec.source(cell[0]) is None
        grid, _ = cell_grid(cell, records) if tuned else ((), True)
        if len(grid) < 2:
            grid = ()
        for e in cell:
            for lr in grid:
                for s in TUNE_SEEDS:
                    units.append((e, "tune", s, lr, run_id(e, "tune", s, lr) in done_ids))
        for e in cell:
            n_done = min(evals_done.get(e.key, 0), len(spec.seeds))
            for i, s in enumerate(spec.seeds):
                units.append((e, "eval", s, None, i < n_done))
    total_h = sum(cost(u[0]) for u in units) / 3600
    done_h = sum(cost(u[0]) for u in units if u[4]) / 3600
    measured_h = sum(float(r.get("wall_time_s", 0.0)) for r in records) / 3600
    # the benchmark prices a step; the finished runs say what a run really took here. The
    # median of their measured/estimated ratios calibrates the rest: a median, because a run
    # that shared the cores with un-niced work (a test suite, a book build) took many times
    # its compute in wall time, and a sum would charge that to every run still to come
    cost_of = {run_id(*u[:4]): cost(u[0]) for u in units if u[4]}
    ratios = [
        float(r["wall_time_s"]) / cost_of[r["run_id"]]
        for r in records
        if r.get("run_id") in cost_of and cost_of[r["run_id"]] > 0 and r.get("wall_time_s")
    ]
    ratio = float(statistics.median(ratios)) if ratios else None
    # machines differ (the same run took twice as long on one 2-core machine as on another of
    # the same CPU model): the most recent runs say how fast the machine running the sweep is now
    by_start = sorted(
        (r for r in records if r.get("run_id") in cost_of and cost_of[r["run_id"]] > 0),
        key=lambda r: str(r.get("started_at", "")),
    )
    recent = [float(r["wall_time_s"]) / cost_of[r["run_id"]] for r in by_start[-RECENT_RUNS:]]
    ratio_recent = (
        float(statistics.median(recent)) if len(ratios) > RECENT_RUNS and recent else None
    )
    depths = sorted({e.num_layers for e in experiments})
    order = {e.key: i for i, e in enumerate(experiments)}
    remaining = [u for u in units if not u[4]]
    remaining.sort(key=lambda u: (order[u[0].key] // len(depths), u[1] != "tune", order[u[0].key]))
    return ScalePlan(
        spec=spec,
        units=tuple(units),
        costs=tuple(cost(u[0]) for u in units),
        seconds=seconds,
        no_estimate=no_estimate,
        total_h=total_h,
        done_h=done_h,
        measured_h=measured_h,
        n_records=len(records),
        ratio=ratio,
        n_ratios=len(ratios),
        ratio_recent=ratio_recent,
        remaining=tuple(remaining),
        check_rows=tuple(transfer_check(spec, records)),
        provenance=timings.get("provenance", {}),
    )


def plan_lines(sp: ScalePlan, show_next: int = 8) -> list[str]:
    """:func:`compute_plan`'s plan in words, one line each."""
    spec, experiments, units, seconds = sp.spec, sp.spec.experiments, sp.units, sp.seconds
    total_runs, done_runs, n_tune = len(units), sp.done_runs, sp.tune_runs
    total_h, done_h, left_h, measured_h = sp.total_h, sp.done_h, sp.left_h, sp.measured_h
    ratio, ratio_recent = sp.ratio, sp.ratio_recent
    depths = sorted({e.num_layers for e in experiments})
    targets = sorted({e.label("budget_target") for e in experiments})
    budget_of = {e.label("budget_target"): e.budget for e in experiments}
    lengths = sorted({e.label("steps") for e in experiments})
    out: list[str] = []

    def p(line: str) -> None:
        out.append(line)

    p(
        f"scale plan ({spec.profile}): {len(experiments)} experiments = {len(targets)} budgets x "
        f"{len(depths)} depths x {len(lengths)} training lengths; {len(spec.seeds)} reporting "
        f"seeds per experiment, {len(TUNE_SEEDS)} tuning seeds"
    )
    e0 = experiments[0]
    p(
        f"  task {e0.task} {dict(e0.task_options)}, embedding {e0.embedding_dim}, batch "
        f"{e0.train.batch_size}, {e0.train.schedule} schedule per length, depths "
        f"{', '.join(map(str, depths))}"
    )
    p(
        "  budgets (matched, every depth within 2%): "
        + ", ".join(f"{budget_of[t]:,d}" for t in targets)
    )
    p(f"  training lengths (steps): {', '.join(f'{s:,d}' for s in lengths)}")
    tuned_lengths = {}
    for e in experiments:
        tuned_lengths.setdefault(e.label("lr_tuned_at_steps"), set()).add(
            (e.label("budget_target"), e.label("steps"))
        )
    own = sorted(c for at, cs in tuned_lengths.items() for c in cs if c[1] == at)
    p(
        f"  learning rate: grid {', '.join(f'{g:g}' for g in e0.lr_grid)} (extended at an edge) "
        f"tuned at {lengths[0]:,d} steps for every budget and depth, reused at longer lengths; "
        "tuned at its own length (the transfer check) in: "
        + (", ".join(f"{t // 1000}K x {s:,d}" for t, s in own if s != lengths[0]) or "none")
    )
    p(
        f"runs: {total_runs} ({n_tune} tuning + {total_runs - n_tune} reporting); "
        f"done {done_runs}; remaining {total_runs - done_runs} (+ any grid extensions)"
    )
    if seconds:
        p(
            f"core-hours (estimated): total {total_h:.1f}; done {done_h:.1f}; remaining "
            f"{left_h:.1f} (about {left_h / 2:.1f} h on 2 cores, one run per core)"
        )
    else:
        p(f"core-hours: not estimated ({sp.no_estimate})")
    if sp.n_records:
        p(f"  measured wall time of the {sp.n_records} finished runs: {measured_h:.2f} h")
    if ratio is not None:
        p(
            f"  calibrated by the finished runs (median measured/estimated time of a run "
            f"{ratio:.2f}, over {sp.n_ratios} runs): remaining about {left_h * ratio:.1f} "
            f"core-hours (about {left_h * ratio / 2:.1f} h on 2 cores)"
        )
    if ratio_recent is not None:
        p(
            f"  calibrated by the {RECENT_RUNS} most recent runs (this machine's speed now: "
            f"median {ratio_recent:.2f}): remaining about {left_h * ratio_recent:.1f} core-hours "
            f"(about {left_h * ratio_recent / 2:.1f} h on 2 cores)"
        )
    prov = sp.provenance
    if seconds:
        p(
            f"seconds per training step, one thread (benchmark {prov.get('started_utc', '?')}, "
            f"{prov.get('cpu', '?')}, torch {prov.get('versions', {}).get('torch', '?')}"
            + (f"; {prov['note']}" if prov.get("note") else "")
            + "):"
        )
        p("  budget   " + "".join(f"{'L=' + str(d):>9s}" for d in depths))
        for t in targets:
            b = budget_of[t]
            p(f"  {b:7,d} " + "".join(f"{seconds[(b, d)][0]:9.4f}" for d in depths))
        cal = ISSUE_CALIBRATION
        p(
            f"  (the issue's measurement: {cal['params']:,} params, {cal['steps']:,} steps in "
            f"about {cal['minutes']:.0f} min = {cal['minutes'] * 60 / cal['steps']:.3f} s/step)"
        )
    p("runs done/total and remaining core-hours, by training length (run order) and budget:")
    for steps in lengths:
        parts = []
        for t in targets:
            us = [
                u
                for u in units
                if u[0].label("steps") == steps and u[0].label("budget_target") == t
            ]
            left = (
                sum(c for u, c in zip(units, sp.costs, strict=True) if not u[4] and u in us) / 3600
            )
            hours = f" {left:.1f}h" if seconds else ""
            parts.append(f"{t // 1000}K {sum(u[4] for u in us)}/{len(us)}{hours}")
        p(f"  {steps:>6,d} steps: " + ", ".join(parts))
    remaining = sp.remaining
    if remaining:
        p(f"next runs, in run order (of {len(remaining)} remaining):")
        for u in remaining[:show_next]:
            p(f"  {unit_name(u[0], u[1], u[2], u[3])}")
    else:
        p("every run of the design is done")
    check_rows = list(sp.check_rows)
    for row in check_rows:
        p(
            f"transfer check, B={row['budget_target'] // 1000}K L={row['num_layers']}: rate tuned "
            f"at {row['short_steps']:,d} steps {row['short_rate']:g}, at {row['steps']:,d} steps "
            f"{row['own_rate']:g} ({row['grid_steps_apart']} grid steps apart; mean validation "
            f"at the transferred rate {row['val_at_transferred']:.4f}, at the best "
            f"{row['best_val']:.4f})"
        )
    if transfer_holds(check_rows) is False:
        p(
            f"the declared rule (at most {MAX_TRANSFER_GRID_STEPS} grid step apart at every depth) "
            "fails: the longer lengths' rates are transferred, not tuned; what that does to "
            "depth's advantage is measured by the transfer control: "
            f"python -m rnnlab run-scale --profile {shlex.quote(spec.profile)} --transfer-control"
        )
    return out


def plan(
    spec: SweepSpec,
    records: Sequence[dict],
    *,
    timings: Mapping | None = None,
    file: TextIO | None = None,
    show_next: int = 8,
) -> dict:
    """Print the compute plan of ``spec`` given the finished ``records``: the design, runs (tuning
    and reporting), estimated core-hours (:func:`rnnlab.experiments.scale.run_seconds` with the
    benchmark ``timings``, default :func:`rnnlab.experiments.scale.load_timings`), what is done,
    what remains by training length and budget, and the next ``show_next`` runs. Returns the
    totals as a dict.

    Tuning runs are those of each tuned cell's current grid (grown by any extensions the finished
    tuning runs have already triggered); further extensions, decided by the data, add runs."""
    file = file or sys.stdout
    p = compute_plan(spec, records, timings=timings)
    for line in plan_lines(p, show_next):
        print(line, file=file)
    return p.totals()


def plan_command(
    profile: str, out: str | Path | None = None, *, timings: str | Path | None = None
) -> dict:
    """``python -m rnnlab plan scale --profile PROFILE [--out FILE]``: the plan, counting the
    runs already in ``out`` (default :func:`default_out`), and the command that runs it."""
    from rnnlab.experiments.store import load_results

    target = Path(out) if out else default_out(profile)
    spec = sweep_spec(profile)
    if profile == "gpu" and timings is None:
        # the committed benchmark times one CPU thread; it prices no GPU run
        doc = {"cells": [], "provenance": {}}
    else:
        doc = load_timings(timings)
    result = plan(spec, load_results(target), timings=doc)
    print(f"results: {target} (checkpoints in {default_checkpoint_dir(target)})")
    if profile == "gpu":
        print(
            "on a GPU machine (CUDA checks first, then these runs packed onto the GPU): "
            "OUT=/tmp/gpu SECONDS_BUDGET=500 JOBS=12 bash scripts/gpu_session.sh"
        )
    print(f"to run or resume it (one thread per process): {run_command(profile, target)}")
    print(
        "  in the background, niced: setsid nohup env OMP_NUM_THREADS=1 "
        f"{run_command(profile, target)} --nice 10 > scale-{profile}.log 2>&1 &"
    )
    print(
        f"to stop it after the runs in progress (nothing lost): touch {default_drain_file(target)}"
    )
    return result
