"""The convergence experiment's plan (:func:`plan`, :func:`plan_lines`): runs and core-hours per
stage from the measured step times, what is done and what the extension would cost."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rnnlab.core.config import own_wall_time_s
from rnnlab.core.text import fmt_signed
from rnnlab.experiments.converge.grid import (
    Design,
    design_for,
    experiment,
    pilot_design,
)
from rnnlab.experiments.converge.run_cost import left_cost, run_cost, sharing_lengths
from rnnlab.experiments.converge.seeding import (
    decision_text,
    report_seeds,
    seed_spread,
    seeds_from_spread,
)
from rnnlab.experiments.converge.staging import (
    lengths_needed,
    longest_length,
    rule_gain,
    stages,
)
from rnnlab.experiments.converge.timing import (
    gpu_step_seconds,
    measured_step_seconds,
    run_step_seconds,
)
from rnnlab.experiments.experiment import TUNE_SEEDS, run_id
from rnnlab.experiments.resolution import (
    Spread,
    effective_files,
    map_paired_sd,
    resolution,
    seeds_for_resolution,
)
from rnnlab.experiments.tuning import cell_grid, cells_of


@dataclass(frozen=True)
class StagePlan:
    """What one stage costs and how far it is: runs, and core-hours from measured step times."""

    kind: str
    budget: int
    steps: int
    variants: tuple[str, ...]
    runs: int
    done: int
    core_hours: float  # nan where no step time is measured (e.g. 1M on a CPU)
    # the core-hours of the runs not done, each from the step it would start at
    # (:func:`~rnnlab.experiments.converge.run_cost.left_cost`); None: the stage's share by
    # runs (plan without a checkpoint folder)
    left_core_hours: float | None = None
    forks_gone: int = 0  # runs not done whose fork a run of an earlier sitting left, now gone

    @property
    def left(self) -> float:
        """Core-hours left: :attr:`left_core_hours`, else the not-done share of the stage."""
        if self.left_core_hours is not None:
            return self.left_core_hours
        return self.core_hours * (self.runs - self.done) / self.runs if self.runs else 0.0


@dataclass(frozen=True)
class PilotProjection:
    """What design version 1's tuning runs measured at one budget, and what it projects for
    this design's test files (:func:`pilot_projection`)."""

    budget: int
    runs: int
    spread: Spread  # measured on version 1's 19 test files, the settings both depths ran
    files: tuple[int, float]  # version 1's test files: count, effective count
    new_files: tuple[int, float]  # this design's
    projected: Spread  # ``spread`` with the file share scaled by sqrt(old / new effective)
    seeds: int  # what the seed rule would give at ``projected``
    half_width: float  # the resolution at ``seeds``
    old_half_width: float  # version 1's at d.max_seeds


def _foreign_info(d: Design, records: Sequence[dict]) -> dict | None:
    """The ``task_info`` of ``records`` when they were made on another corpus than this Python's
    (a lent GPU's standard library), else ``None``: their partition is the one to print."""
    from rnnlab.core.tasks.heldout import corpus_digest

    infos = [r["task_info"] for r in records
             if r.get("task") == d.task and r.get("task_info", {}).get("files_sha256")]  # fmt: skip
    if not infos or infos[0]["files_sha256"] == corpus_digest(d.task, min_count=d.min_count):
        return None
    return infos[0]


def _partition(d: Design, records: Sequence[dict]) -> dict:
    """Files, characters and windows of each part of the corpus ``records`` were made on (this
    Python's, :func:`rnnlab.core.tasks.heldout.describe_partition`, unless they come from
    another)."""
    from rnnlab.core.tasks.heldout import describe_partition

    info = _foreign_info(d, records)
    if info is None:
        return describe_partition(seq_len=d.seq_len, min_count=d.min_count, task=d.task)
    test, val = len(info["test_files"]), len(info["val_files"])
    return {
        "files": {"train": info["num_files"] - test - val, "val": val, "test": test},
        "chars": dict(info["chars"]),
        "windows": dict(info["available"]),
        "vocab_size": len(info["vocab"]),
    }


def _test_files(d: Design, records: Sequence[dict] = ()) -> tuple[int, float]:
    """The scored test files of ``d``'s task (of the corpus ``records`` were made on, when it is
    another Python's): their count and effective count."""
    from rnnlab.core.tasks.heldout import held_out_file_windows

    info = _foreign_info(d, records)
    if info is None:
        w = held_out_file_windows(d.task, seq_len=d.seq_len, min_count=d.min_count)
    else:
        w = [n for _, n in info["test_files"]]
    return len([x for x in w if x > 0]), effective_files(w)


def pilot_projection(
    d: Design,
    pilot_records: Sequence[dict],
    budget: int | None = None,
    records: Sequence[dict] = (),
) -> PilotProjection | None:
    """The pilot's measured spread at ``budget`` (default: the smallest) and what it means for
    ``d``: the test files' share scales as one over the square root of the effective number of
    files (:func:`rnnlab.experiments.resolution.effective_files`), assuming the new files
    differ in depth's effect as much as the pilot's (``d``'s files are those of the corpus
    ``records`` were made on, when it is another Python's). ``None`` without paired pilot
    runs."""
    budget = min(d.budgets) if budget is None else budget
    old = pilot_design(d.profile)
    spread = seed_spread(old, budget, pilot_records, complete=False)
    if spread is None:
        return None
    files, new_files = _test_files(old), _test_files(d, records)
    projected = spread.with_files(math.sqrt(files[1] / new_files[1]))
    n = seeds_from_spread(d, projected)
    return PilotProjection(
        budget=budget,
        runs=sum(1 for r in pilot_records if r.get("experiment", {}).get("task") == old.task),
        spread=spread,
        files=files,
        new_files=new_files,
        projected=projected,
        seeds=n,
        half_width=resolution(projected.sd_seed, n, projected.se_file_at(n)),
        old_half_width=resolution(spread.sd_seed, d.max_seeds, spread.se_file_at(d.max_seeds)),
    )


@dataclass(frozen=True)
class Plan:
    """The computed plan of a design (printed by :func:`plan_lines`)."""

    design: Design
    partition: dict
    stages: tuple[StagePlan, ...]
    step_seconds: dict  # (budget, num_layers) -> seconds per step, measured by the scale map
    spent_core_hours: float
    extension_core_hours: float
    prior_sd: float | None
    resolution: float | None
    seeds_needed: int | None
    run_step_seconds: dict  # (budget, num_layers) -> own wall seconds per step of each run
    # budget -> (the tuning seeds' spread, the reporting seeds it gives); (None, None) until
    # the seed rule's tuning is complete (rnnlab.experiments.converge.seeding)
    seed_rule: dict = field(default_factory=dict)
    pilot: PilotProjection | None = None  # design version 1's measurement (pilot_projection)
    declared: str = ""  # the budgets that run the extension from the start (declared_text)
    # (budget, depth) -> (steps, wall seconds) of the longest run each budget needs so far, as
    # this machine runs it now (converge.timing.step_seconds_now): what a deadline must fit
    longest_runs: dict = field(default_factory=dict)
    # where step_seconds comes from, and the unit of every cost (plan_lines prints both)
    cost_source: str = "the scale benchmark, data/scale_step_seconds.json"
    unit: str = "core-h"


GPU_COSTS = {
    "cost_source": "on the GPU: the median of this profile's own runs of that cell (wall time, "
    "evaluation and the other processes sharing the GPU included); a cell without runs: the GPU "
    "depth-cost benchmark (data/bench/depth-cost-cuda.json) at the nearest budget, times the "
    "measured cells' median ratio to it",
    "unit": "process-h on the GPU",
}
"""The gpu profile's cost model: the CPU benchmark does not price GPU runs."""


def plan(
    profile: str,
    records: Sequence[dict],
    map_records: Sequence[dict],
    timings: dict,
    pilot_records: Sequence[dict] = (),
    checkpoint_dir: str | Path | None = None,
) -> Plan:
    """The design of ``profile``, what it costs and how far ``records`` have taken it; with
    ``pilot_records`` (design version 1's runs, :func:`~rnnlab.experiments.converge.pilot_out`)
    also what they measured (:func:`pilot_projection`). With ``checkpoint_dir`` (the sweep's
    ``<out>.ckpt``) what is left is priced run by run from the forks and checkpoints there
    (:func:`~rnnlab.experiments.converge.run_cost.left_cost`); without it, each stage's left is
    its share by runs, which assumes every fork is there."""
    d = design_for(profile, records)
    on_gpu = d.profile == "gpu"
    t = gpu_step_seconds(records, d.budgets) if on_gpu else measured_step_seconds(timings)

    def t_step(budget: int, depth: int) -> float:
        return t.get((budget, depth), math.nan)

    done_ids = {r["run_id"] for r in records}
    out = []
    for st in stages(d, records):
        units = []
        if st.kind == "tune":
            for cell in cells_of(st.spec.experiments).values():
                grid, _ = cell_grid(cell, records)
                units += [(e, "tune", s, lr) for e in cell for lr in grid
                          for s in TUNE_SEEDS]  # fmt: skip
        else:  # each variant's chosen experiment, or a stand-in while its tuning is not done
            picked = {e.label("variant"): e for e in st.spec.experiments}
            exps = [picked.get(v.name) or experiment(d, st.budget, v, v.dropouts[0], st.steps)
                    for v in d.variants if v.name in st.variants]  # fmt: skip
            units += [(e, "eval", s, None) for e in exps for s in st.spec.seeds]
        sharing = {run_id(*u): sharing_lengths(d, u[0], records) if st.kind == "report"
                   else None for u in units}  # fmt: skip
        cost = sum(run_cost(d, st.budget, st.steps, t_step(st.budget, u[0].num_layers),
                             sharing[run_id(*u)]) for u in units)  # fmt: skip
        todo = [u for u in units if run_id(*u) not in done_ids]
        left, gone = None, 0
        if checkpoint_dir is not None:
            priced = [left_cost(d, u, st.steps, t_step(st.budget, u[0].num_layers),
                                 done_ids, checkpoint_dir, sharing[run_id(*u)])
                      for u in todo]  # fmt: skip
            left, gone = sum(c for c, _ in priced) / 3600, sum(g for _, g in priced)
        out.append(StagePlan(st.kind, st.budget, st.steps, st.variants, len(units),
                             len(units) - len(todo), cost / 3600, left, gone))  # fmt: skip
    spent = sum(own_wall_time_s(r) for r in records)
    ext = 0.0  # the extensions the rule has not added yet (an added one is a stage above)
    for b in d.budgets:
        for v in d.variants:
            for m in set(d.extension) - set(lengths_needed(d, b, v, records)):
                n_tune = len(v.dropouts) * len(d.lr_grid) * len(TUNE_SEEDS)
                seeds = report_seeds(d, b, (v.name,), records) or d.seeds
                ext += (n_tune + len(seeds)) * run_cost(d, b, m, t_step(b, v.num_layers))
    try:
        sd = map_paired_sd(map_records, d.budgets)
    except ValueError:
        sd = None
    return Plan(
        design=d,
        partition=_partition(d, records),
        stages=tuple(out),
        step_seconds={k: v for k, v in t.items() if k[0] in d.budgets},
        spent_core_hours=spent / 3600,
        extension_core_hours=ext / 3600,
        prior_sd=sd,
        resolution=resolution(sd, len(d.seeds)) if sd is not None else None,
        seeds_needed=seeds_for_resolution(sd, d.margin) if sd is not None else None,
        run_step_seconds=run_step_seconds(records),
        seed_rule={b: _seed_rule(d, b, records) for b in d.budgets},
        pilot=pilot_projection(d, pilot_records, records=records) if pilot_records else None,
        declared=declared_text(d, records),
        longest_runs=_longest_runs(d, records, timings),
        **(GPU_COSTS if on_gpu else {}),
    )


def _longest_runs(d: Design, records: Sequence[dict], timings: dict) -> dict:
    """``{(budget, depth): (steps, seconds)}``: each budget's longest length so far
    (:func:`longest_length`) at each depth, timed by
    :func:`~rnnlab.experiments.converge.timing.step_seconds_now` (the newest runs here, else
    the benchmark scaled), a whole run from step 0. Cells without a step time are left out."""
    from rnnlab.experiments.converge.timing import step_seconds_now

    now = step_seconds_now(d, records, timings)
    out = {}
    for b in d.budgets:
        steps = longest_length(d, b, records)
        for depth in sorted({v.num_layers for v in d.variants}):
            t = now.get((b, depth), math.nan)
            if not math.isnan(t):
                out[(b, depth)] = (steps, steps * t)
    return out


def _longest_lines(p: Plan) -> list[str]:
    """One line: the longest runs of :attr:`Plan.longest_runs` in minutes, and with the
    deadline's margin (:data:`rnnlab.experiments.deadline.MARGIN`): what ``--until`` must leave
    room for."""
    from rnnlab.experiments.deadline import MARGIN

    if not p.longest_runs:
        return []
    parts = [
        f"{b:,} L={depth} {steps:,} steps {s / 60:.0f} min ({MARGIN * s / 60:.0f})"
        for (b, depth), (steps, s) in sorted(p.longest_runs.items())
    ]
    where = "this machine runs" if p.unit == "core-h" else "the GPU ran"
    return [
        f"  longest runs as {where} them lately, from step 0 (with the {MARGIN}x margin a "
        f"deadline adds): {'; '.join(parts)}"
    ]


def _seed_rule(d: Design, budget: int, records: Sequence[dict]) -> tuple[Spread | None, int | None]:
    spread = seed_spread(d, budget, records)
    return spread, (seeds_from_spread(d, spread) if spread is not None else None)


def _h(x: float, unit: str = "core-h") -> str:
    return "not estimated (no measured step time)" if math.isnan(x) else f"{x:,.1f} {unit}"


def pilot_text(d: Design, q: PilotProjection) -> str:
    """:class:`PilotProjection` in words (a line of the plan and of the report)."""
    s = q.spread
    return (
        f"the pilot (design version 1, {q.runs} tuning runs, never reported; "
        f"data/results/converge/pilot-v1.jsonl) measured at {q.budget:,} parameters, over "
        f"{s.settings} settings both depths ran ({s.df} df): a seed's paired effect varies by "
        f"sd {s.sd_seed:.4f} bits/char and its {q.files[0]} scored test files (effective "
        f"{q.files[1]:.1f}) add se {s.file_fixed:.4f} that no number of seeds removes, so even "
        f"{d.max_seeds} seeds would resolve only +/-{q.old_half_width:.4f}. This design's "
        f"{q.new_files[0]} scored test files (effective {q.new_files[1]:.1f}) bring that share "
        f"to about "
        f"{q.projected.file_fixed:.4f} if they differ as much, and {q.seeds} seeds to "
        f"+/-{q.half_width:.4f} (a projection; the seed rule decides on this design's own "
        "tuning runs)"
    )


def declared_text(d: Design, records: Sequence[dict]) -> str:
    """The budgets that run the extension from the start
    (:attr:`~rnnlab.experiments.converge.grid.Design.extended_from_start`), when that was
    declared, and what the convergence rule read at the budgets below them, from ``records``
    (the evidence the declaration rests on, recomputed). Empty where no budget does."""
    ahead = [b for b in d.budgets if b in d.extended_from_start]
    if not ahead:
        return ""
    ext = ", ".join(f"{n:,}" for n in d.extension)
    base = max(d.lengths)
    read = []
    for b in (b for b in d.budgets if b < min(ahead)):
        gains = {v.name: rule_gain(d, b, v, base, records) for v in d.variants}
        said = [f"{name} {fmt_signed(g)}" for name, g in gains.items() if g is not None]
        if said:
            read.append(f"at {b:,} parameters doubling to {base:,} steps gained {', '.join(said)}"
                        f" bits/char (the margin is {d.margin})")  # fmt: skip
    why = f"; {'; '.join(read)}" if read else ""
    return (
        f"at {', '.join(f'{b:,}' for b in ahead)} parameters {ext} steps are run from the start "
        f"(declared {d.extended_declared}, before any run there), so the longest run leaves "
        f"the shorter lengths their forks in the same sitting{why}"
    )


def _first_verdict_lines(p: Plan, h: Callable[[float], str]) -> list[str]:
    """How much of the plan is left until its first verdict: the stages up to and including
    the first reporting stage that is not done (stages run in order; a later stage's runs fill
    idle processes only). Nothing once every decided reporting stage is done."""
    left = 0.0
    for s in p.stages:
        left += s.left
        if s.kind == "report" and s.done < s.runs:
            seeds = s.runs // max(len(s.variants), 1)
            return [
                f"  to the next verdict ({s.budget:,} parameters, {' vs '.join(s.variants)} at "
                f"{s.steps:,} steps): {h(left)} left by the cost model, its reporting runs "
                f"counted at {seeds} seeds each (as the reporting seeds above say)"
            ]
    return []


def plan_lines(p: Plan) -> list[str]:
    """:func:`plan` in words, one line each."""
    d, part = p.design, p.partition
    names = ", ".join(v.name for v in d.variants)
    drops = "; ".join(f"{v.name} {{{', '.join(f'{x:g}' for x in v.dropouts)}}}" for v in d.variants)
    lines = [
        f"converge plan ({d.profile}): claim (b) trained to convergence, tuned at each length",
        f"  task {d.task}: {part['files']['train']} training files ({part['chars']['train']:,} "
        f"characters), {part['files']['val']} validation files ({d.n_val:,} windows per seed), "
        f"{part['files']['test']} held-out test files ({part['chars']['test']:,} characters, "
        f"{part['windows']['test']:,} windows of {d.seq_len}, every one scored)",
        f"  variants {names}; budgets {', '.join(f'{b:,}' for b in d.budgets)} (whole model "
        f"within 2%); dropout on every non-recurrent connection, tuned from: {drops}",
        f"  lengths {', '.join(f'{n:,}' for n in d.lengths)} steps of {d.batch_size} x "
        f"{d.seq_len} characters, warmup-stable-decay ({d.decay_fraction:.0%} cooldown), "
        f"one run's forks start the other lengths; "
        f"{', '.join(f'{n:,}' for n in d.extension)} added where the rule fails",
        *([f"  {p.declared}"] if p.declared else []),
        f"  convergence rule: doubling the training (N/2 -> N) improves mean validation "
        f"bits/char by less than {d.margin} (each length tuned itself)",
        f"  tuning: rates {', '.join(f'{x:g}' for x in d.lr_grid)} (extended at an edge, "
        f"limits {d.lr_limits[0]:g}-{d.lr_limits[1]:g}) x dropouts, {len(TUNE_SEEDS)} tuning "
        f"seeds; {len(d.seeds)} reporting seeds"
        + (
            f", raised for {' vs '.join(d.seed_rule)} at each budget to the fewest that resolve "
            f"the margin at the tuning seeds' measured spread (at most {d.max_seeds}; the rule "
            "reads only the spread, fixed before any reporting run: converge.seeding)"
            if d.seed_rule
            else ""
        ),
    ]
    if p.prior_sd is not None:
        lines.append(
            f"  resolution before any run: per-seed paired differences of the scale map "
            f"(160K/400K x 6,000 steps, an upper estimate) have sd {p.prior_sd:.3f} bits/char, "
            f"so {len(d.seeds)} seeds resolve +/-{p.resolution:.3f} (the margin is {d.margin}); "
            f"{p.seeds_needed or 'more than 200'} seeds would resolve the margin at that sd, "
            "before the test files' share is added (measured from the first runs)"
        )
    if p.pilot is not None:
        lines.append(f"  {pilot_text(d, p.pilot)}")
    if d.seed_rule:
        lines += [f"  reporting seeds at {decision_text(d, b, spread)}"
                  for b, (spread, _) in sorted(p.seed_rule.items())]  # fmt: skip
    if p.step_seconds:
        lines.append(f"  cost model ({p.cost_source}), seconds per step:")
    on_gpu = p.unit != "core-h"
    for (b, depth), s in sorted(p.step_seconds.items()):
        how = (" (measured)" if (b, depth) in p.run_step_seconds else " (benchmark)") * on_gpu
        lines.append(f"    {b:,} parameters, L={depth}: {s:.3f}{how}")
    ratios = []
    measured = {} if on_gpu else p.run_step_seconds  # on the GPU the model is the runs' own
    for (b, depth), xs in sorted(measured.items()):
        med = statistics.median(xs)
        model = p.step_seconds.get((b, depth), math.nan)
        ratios += [x / model for x in xs if not math.isnan(model)]
        lines.append(
            f"  measured by the runs so far: {b:,} parameters, L={depth}: median {med:.3f} s "
            f"per step over {len(xs)} run{'s' if len(xs) != 1 else ''} (range "
            f"{min(xs):.3f}-{max(xs):.3f}; wall time, "
            f"evaluation and other load on the machine included), {med / model:.1f}x the cost "
            "model"
        )
    priced = [s for s in p.stages if not math.isnan(s.core_hours)]
    unpriced = len(p.stages) - len(priced)
    total = sum(s.core_hours for s in priced) if priced else math.nan
    runs = sum(s.runs for s in p.stages)
    done = sum(s.done for s in p.stages)
    left = sum(s.left for s in priced)
    left = left if priced else math.nan
    gone = sum(s.forks_gone for s in priced)
    if unpriced:  # e.g. on a GPU, a depth or budget no run has measured yet
        lines.append(
            f"  {unpriced} of {len(p.stages)} stages are not priced (no step time measured for "
            "one of their cells): the totals below leave them out"
        )

    def h(x: float) -> str:
        return _h(x, p.unit)

    at_measured = (
        f", or {h(left * statistics.median(ratios))} at the runs' measured median" if ratios else ""
    )
    lines.append(
        f"  runs: {runs} in the stages decided so far, {done} done; estimated {h(total)} "
        f"(a shorter length counted at its cooldown only, a longer one the rule added from the "
        f"end of the {max(d.lengths):,}-step run's stable phase, where the two share a tuned "
        "setting; else in full), "
        f"{p.spent_core_hours:.1f} {p.unit} spent; "
        + (
            f"extensions to {', '.join(f'{n:,}' for n in d.extension)} steps not added yet, "
            f"if every cell needed them: {h(p.extension_core_hours)} more"
            if p.extension_core_hours
            else "every extension is added or declared"
        )
    )
    forks = (
        f" ({gone} of them start without the fork the estimate above assumes: the run that "
        "left it ran in an earlier sitting, and forks are not committed, so they cost their "
        "whole length)"
        if gone
        else ""
    )
    lines.append(f"  left: {runs - done} runs, {h(left)} by the cost model{at_measured}{forks}")
    lines += _first_verdict_lines(p, h)
    lines += _longest_lines(p)
    for s in p.stages:
        who = "+".join(s.variants)
        lines.append(f"    {s.kind:6s} {s.budget:>9,} x {s.steps:>6,} steps {who:18s}"
                     f" {s.done:>3}/{s.runs:<3} runs, {h(s.core_hours)}")  # fmt: skip
    return lines
