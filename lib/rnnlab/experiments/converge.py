"""The convergence experiment: claim (b) where the literature measured it.

The scale map (:mod:`rnnlab.experiments.scale`) stops at 6,000 steps, where no cell has converged,
tunes its
rates at 1,500 steps, and tests on a fixed tail of a few files. Karpathy et al. (2015) compared
depths trained to convergence. This experiment asks the map's question there, with a design
declared here before any of its runs:

* **Task**: ``charlm-stdlib-files`` (:mod:`rnnlab.core.tasks.heldout`): whole standard-library files
  held out, about 10% for validation and 10% for test; every window of every test file scored,
  its loss stored per file so the test sample's variance enters the interval. Windows of 128
  characters, batch 32, embedding 32.
* **Models** (:data:`VARIANTS`): one layer (``L1``), two (``L2``), four with residual
  connections and LayerNorm (``L4-res-LN``, the trainable deep stack of the design chapter) and
  four plain layers beside it (``L4-plain``, the map's failing stack, as a trainability
  reference). The whole model matched within 2% of the budget.
* **Regularisation control**: dropout on every non-recurrent connection (embedding -> first
  layer, between layers, last layer -> head; :data:`rnnlab.core.models.DROPOUT_MODES` ``"all"``),
  the
  same placement for every depth, its rate tuned per variant from ``dropouts`` (0 among them;
  the plain L=4 reference runs at 0 only). If depth's advantage shrinks once every depth may
  regularise, part of it was regularisation.
* **Schedule**: warmup-stable-decay (``schedule="wsd"``, a linear cooldown over the last 20% of
  the steps; Hägele et al. 2024). Runs that differ only in length share their state until the
  first cooldown starts, so each run leaves a fork from which the other lengths of its family
  start (:func:`rnnlab.experiments.experiment.family_forks`): a shorter length costs its cooldown
  only,
  a longer
  one skips the shared stable phase. A run started from a fork equals the run trained alone,
  bit for bit on the CPU (tested), so this saves compute without changing a number.
* **Lengths**: ``lengths`` (8,000 and 16,000 steps in the reference profile). **Convergence
  rule**, declared: a variant is *converged at N steps* when doubling the training from N/2 to N
  improves its mean validation bits/char (over the reporting seeds, each length at its own tuned
  setting) by less than the margin, 0.01 bits/char. Where it does not, the next length of
  ``extension`` (32,000) is added for that budget and variant, tuned and run the same way. A
  verdict is made at the longest length run and says whether that length met the rule.
* **Tuning at its own length**: every (budget, variant, length) is tuned itself: the rate on one
  log-spaced grid (:func:`rnnlab.experiments.tuning.cell_grid`: extended at an edge), at each
  dropout, on two
  tuning seeds (never reported); the dropout with the best tuned validation score wins.
* **Seeds**: 5 reporting seeds per cell; the depths of one seed share its data order (paired).
* **Analysis** (:mod:`rnnlab.evidence.convergence_stats`): per budget and length, depth minus width
in
  test bits/char, paired by seed; the interval adds the test files' sampling variance (a
  bootstrap over held-out files) to the seeds' (t with n - 1 degrees of freedom); verdicts as in
  :func:`rnnlab.evidence.stats.verdict_v2_from_interval` at the 0.01 margin, Holm across the
  budgets.

Run order: budget by budget (smallest first); within one, the tuning runs of the longest length
(their forks seed the shorter), the shorter length's tuning, then the reporting runs, longest
first. Each stage is a :class:`~rnnlab.experiments.sweep.SweepSpec` run by
:func:`rnnlab.experiments.sweep.run_sweep`,
so a killed sweep resumes (run ids are stable) and checkpoints every few minutes.

Command line::

    python -m rnnlab plan converge --profile reference      # design, resolution, core-hours
    python -m rnnlab run-converge --profile reference --jobs 2 --nice 19   # run or resume
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rnnlab.core.config import TrainConfig
from rnnlab.experiments.experiment import FAMILY_LABEL, TUNE_SEEDS, Experiment, run_id
from rnnlab.experiments.profiles import SMOKE_CHARLM
from rnnlab.experiments.sweep import SweepSpec, run_sweep
from rnnlab.experiments.tuning import cell_grid, cells_of, choose_lr

TASK = "charlm-stdlib-files"
LAB = "converge"
PROFILES = ("reference", "gpu", "smoke")


@dataclass(frozen=True)
class Variant:
    """One model family of the design: its name, depth, stack options and dropout grid."""

    name: str
    num_layers: int
    residual: bool = False
    layer_norm: bool = False
    dropouts: tuple[float, ...] = (0.0, 0.2)


VARIANTS: tuple[Variant, ...] = (
    Variant("L1", 1),
    Variant("L2", 2),
    Variant("L4-res-LN", 4, residual=True, layer_norm=True),
    Variant("L4-plain", 4, dropouts=(0.0,)),
)


@dataclass(frozen=True)
class Design:
    """The declared design of one profile (see the module docstring)."""

    profile: str
    budgets: tuple[int, ...]
    lengths: tuple[int, ...]
    extension: tuple[int, ...]
    variants: tuple[Variant, ...] = VARIANTS
    groups: tuple[tuple[str, ...], ...] = (("L1", "L2"), ("L4-res-LN", "L4-plain"))
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    seq_len: int = 128
    batch_size: int = 32
    embedding_dim: int = 32
    n_val: int = 1024
    n_train: int | None = None  # None: every training window
    n_test: int | None = None  # None: every held-out test window
    warmup_steps: int = 200
    eval_every: int = 400
    decay_fraction: float = 0.2
    lr_grid: tuple[float, ...] = (2e-3, 4e-3, 8e-3)
    lr_limits: tuple[float, float] = (2.5e-4, 6.4e-2)
    margin: float = 0.01
    min_count: int = 20
    notes: tuple[str, ...] = field(default=())

    @property
    def family(self) -> tuple[int, ...]:
        """Every length a run of this design may be trained for (the WSD family)."""
        return tuple(sorted({*self.lengths, *self.extension}))


def design(profile: str = "reference") -> Design:
    """The design of ``profile``: ``reference`` (CPU, 160K and 400K parameters), ``gpu`` (the
    same plus 1M) or ``smoke`` (a code-path check in seconds; its numbers are not evidence)."""
    if profile == "reference":
        return Design(profile, budgets=(160_000, 400_000), lengths=(8_000, 16_000),
                      extension=(32_000,))  # fmt: skip
    if profile == "gpu":
        return Design(profile, budgets=(160_000, 400_000, 1_000_000), lengths=(8_000, 16_000),
                      extension=(32_000,))  # fmt: skip
    if profile == "smoke":
        return Design(
            profile,
            budgets=(12_000,),
            lengths=(20, 40),
            extension=(80,),
            variants=(Variant("L1", 1, dropouts=(0.0, 0.2)), Variant("L2", 2, dropouts=(0.0, 0.2))),
            groups=(("L1", "L2"),),
            seeds=(0, 1),
            n_test=64,
            eval_every=5,
            **SMOKE_CHARLM,
        )
    raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")


def _sizes(d: Design) -> tuple[int, int]:
    from rnnlab.core.tasks.heldout import heldout_sizes

    have = heldout_sizes(seq_len=d.seq_len, min_count=d.min_count)
    return d.n_train or have["train"], d.n_test or have["test"]


def experiment(d: Design, budget: int, variant: Variant, dropout: float, steps: int) -> Experiment:
    """The experiment of one (budget, variant, dropout, length) of design ``d``."""
    n_train, n_test = _sizes(d)
    return Experiment(
        task=TASK,
        budget=budget,
        num_layers=variant.num_layers,
        n_train=n_train,
        n_val=d.n_val,
        n_test=n_test,
        task_options=(("seq_len", d.seq_len), ("min_count", d.min_count)),
        embedding_dim=d.embedding_dim,
        dropout=dropout,
        dropout_mode="all",
        residual=variant.residual,
        layer_norm=variant.layer_norm,
        train=TrainConfig(
            max_steps=steps,
            batch_size=d.batch_size,
            eval_every=d.eval_every,
            warmup_steps=d.warmup_steps,
            schedule="wsd",
            decay_fraction=d.decay_fraction,
            patience=None,
        ),
        lr_grid=d.lr_grid,
        lr_limits=d.lr_limits,
        labels=(
            ("experiment", LAB),
            ("budget_target", budget),
            ("variant", variant.name),
            ("steps", steps),
            (FAMILY_LABEL, d.family),
        ),
    )


def candidates(d: Design, budget: int, variant: Variant, steps: int) -> list[Experiment]:
    """The experiments tuned for one (budget, variant, length): one per dropout."""
    return [experiment(d, budget, variant, p, steps) for p in variant.dropouts]


def _tuned_score(e: Experiment, records: Sequence[dict], cell: Sequence[Experiment]) -> float:
    """Mean validation bits/char over the tuning seeds at ``e``'s chosen rate (lower is better);
    ``nan`` while its tuning is incomplete."""
    lr = choose_lr(e, records, cell)
    if lr is None:
        return math.nan
    vals = [r["metrics"]["val"] for s in TUNE_SEEDS for r in records
            if r["run_id"] == run_id(e, "tune", s, lr)]  # fmt: skip
    return sum(vals) / len(vals) if len(vals) == len(TUNE_SEEDS) else math.nan


def chosen(d: Design, budget: int, variant: Variant, steps: int,
           records: Sequence[dict]) -> Experiment | None:  # fmt: skip
    """The tuned experiment of (budget, variant, length): the dropout whose tuned validation is
    best (ties: the smaller dropout), at its tuned rate; ``None`` while tuning is incomplete."""
    group = next(g for g in d.groups if variant.name in g)
    cells = cells_of(tuning_experiments(d, budget, steps, group))
    best, best_score = None, math.inf
    for e in candidates(d, budget, variant, steps):
        score = _tuned_score(e, records, cells[e.cell_key])
        if math.isnan(score):
            return None
        if score < best_score:
            best, best_score = e, score
    return best


def tuning_experiments(d: Design, budget: int, steps: int, names=None) -> list[Experiment]:
    """Every candidate of one (budget, length), for the variants ``names`` (default all)."""
    return [e for v in d.variants if names is None or v.name in names
            for e in candidates(d, budget, v, steps)]  # fmt: skip


# ----------------------------------------------------------------------------- the stages


@dataclass(frozen=True)
class Stage:
    """One step of the run order: a sweep of ``kind`` (``"tune"`` or ``"report"``) at one
    budget and length, for some variants."""

    kind: str
    budget: int
    steps: int
    variants: tuple[str, ...]
    spec: SweepSpec


def converged(d: Design, budget: int, variant: Variant, steps: int,
              records: Sequence[dict]) -> bool | None:  # fmt: skip
    """The declared convergence rule at ``steps``: the mean validation gain from ``steps / 2``
    to ``steps`` over the reporting seeds is below the margin. ``None`` until both lengths'
    reporting runs are in (or when ``steps / 2`` is not a length of the design)."""
    half = steps // 2
    if half not in d.family:
        return None
    gains = []
    a, b = chosen(d, budget, variant, half, records), chosen(d, budget, variant, steps, records)
    if a is None or b is None:
        return None
    val = {(r["experiment_key"], r["seed"]): r["metrics"]["val"]
           for r in records if r.get("role") == "eval"}  # fmt: skip
    for s in d.seeds:
        if (a.key, s) not in val or (b.key, s) not in val:
            return None
        gains.append(val[(a.key, s)] - val[(b.key, s)])
    return sum(gains) / len(gains) < d.margin


def lengths_needed(d: Design, budget: int, variant: Variant, records: Sequence[dict]) -> list[int]:
    """The lengths that (budget, variant) runs: ``d.lengths``, then each ``extension`` length
    while the longest so far fails the convergence rule."""
    out = list(d.lengths)
    for ext in d.extension:
        if converged(d, budget, variant, out[-1], records) is not False:
            break
        out.append(ext)
    return out


def stages(d: Design, records: Sequence[dict]) -> list[Stage]:
    """The whole run order as far as ``records`` decide it (see the module docstring): per
    budget and group of variants (``d.groups``: L1 and L2 first, so the main comparison is
    answered first), for each length (longest first) its tuning stage, then its reporting
    stage."""
    out = []
    for budget, group in ((b, g) for b in d.budgets for g in d.groups):
        need = {v.name: lengths_needed(d, budget, v, records)
                for v in d.variants if v.name in group}  # fmt: skip
        lengths = sorted({n for ns in need.values() for n in ns}, reverse=True)
        for kind in ("tune", "report"):
            for steps in lengths:
                names = tuple(v for v, ns in need.items() if steps in ns)
                if kind == "tune":
                    exps = tuning_experiments(d, budget, steps, names)
                    seeds: tuple[int, ...] = ()
                else:
                    picked = [chosen(d, budget, v, steps, records)
                              for v in d.variants if v.name in names]  # fmt: skip
                    exps = [e for e in picked if e is not None]
                    seeds = d.seeds
                spec = SweepSpec(LAB, d.profile, tuple(exps), seeds)
                out.append(Stage(kind, budget, steps, names, spec))
    return out


def stage_done(stage: Stage, records: Sequence[dict]) -> bool:
    """Whether every run of ``stage`` is in ``records`` (a report stage whose choices are not
    made yet is not done)."""
    if stage.kind == "report":
        return len(stage.spec.experiments) == len(stage.variants) and stage.spec.is_complete(
            records
        )
    return all(cell_grid(c, records)[1] for c in cells_of(stage.spec.experiments).values())


def planned_runs(d: Design, records: Sequence[dict]) -> int:
    """Runs of the stages decided so far (tuning grids as extended so far)."""
    n = 0
    for st in stages(d, records):
        if st.kind == "tune":
            for cell in cells_of(st.spec.experiments).values():
                n += len(cell_grid(cell, records)[0]) * len(TUNE_SEEDS) * len(cell)
        else:
            n += len(st.variants) * len(d.seeds)
    return n


def default_out(profile: str) -> Path:
    """``data/results/converge/<profile>.jsonl`` (reference, gpu) or ``runs/converge-smoke``."""
    from rnnlab.core.paths import repo_root, runs_dir

    design(profile)
    if profile == "smoke":
        return runs_dir() / "converge-smoke.jsonl"
    return repo_root() / "data" / "results" / "converge" / f"{profile}.jsonl"


def run_converge(
    profile: str,
    out: str | Path,
    *,
    jobs: int = 2,
    checkpoint_dir: str | Path | None = None,
    device: str | None = None,
    threads: int | None = None,
    max_runs: int | None = None,
    stop_file: str | Path | None = None,
    on_record: Callable[[dict], None] | None = None,
    on_failure: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Run (or resume) ``profile``'s design into ``out``, stage after stage, until done, a run
    fails, ``max_runs`` new runs have finished or ``stop_file`` exists. Returns the records;
    ``.failures`` of the last sweep are on the returned list."""
    from rnnlab.experiments.store import load_results

    d = design(profile)
    out = Path(out)
    ckpt = Path(checkpoint_dir) if checkpoint_dir else out.with_name(out.name + ".ckpt")
    left = max_runs
    records = load_results(out) if out.exists() else []
    while True:
        todo = [s for s in stages(d, records) if not stage_done(s, records)]
        if not todo or (stop_file is not None and Path(stop_file).exists()):
            return records
        stage = todo[0]
        if not stage.spec.experiments:  # a report stage waiting for tuning elsewhere
            return records
        before = len(records)
        records = run_sweep(
            stage.spec,
            out,
            jobs=jobs,
            device=device,
            threads=threads,
            max_runs=left,
            checkpoint_dir=ckpt,
            stop_file=stop_file,
            on_record=on_record,
            on_failure=on_failure,
        )
        if records.failures:
            return records
        if left is not None:
            left -= len(records) - before
            if left <= 0:
                return records
        if len(records) == before:  # nothing could run: do not spin
            return records


# ----------------------------------------------------------------------------- the plan


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


def measured_step_seconds(timings: dict) -> dict[tuple[int, int], float]:
    """Seconds per training step of each (budget, depth) at batch 32 x 128 characters and
    embedding 32, from the scale benchmark (``data/scale_step_seconds.json``, one thread, on this
    kind of machine): the cost model of :func:`plan`. The residual + LayerNorm stack is priced
    as the plain stack of its depth, and evaluation is left out (under 5% of a run here)."""
    return {
        (c["budget"], c["num_layers"]): c["step_s_median"]
        for c in timings.get("cells", [])
        if c.get("batch_size") == 32 and c.get("seq_len") == 128 and c.get("embedding_dim") == 32
    }


def _run_cost(d: Design, steps: int, kind: str, t_step: float) -> float:
    """Core-seconds of one run: the longest length runs whole; a shorter one starts from the
    longest run's fork and pays its cooldown only (a reporting run whose tuned setting differs
    from the longest length's pays in full: the plan's lower estimate assumes a fork)."""
    longest = max(d.lengths)
    paid = steps if steps == longest else round(d.decay_fraction * steps)
    return paid * t_step


def plan(profile: str, records: Sequence[dict], map_records: Sequence[dict], timings: dict) -> Plan:
    """The design of ``profile``, what it costs and how far ``records`` have taken it."""
    from rnnlab.core.tasks.heldout import describe_partition
    from rnnlab.experiments.resolution import map_paired_sd, resolution, seeds_for_resolution

    d = design(profile)
    t = measured_step_seconds(timings)

    def t_step(budget: int, depth: int) -> float:
        return t.get((budget, depth), math.nan)

    done_ids = {r["run_id"] for r in records}
    out = []
    for st in stages(d, records):
        units = []
        if st.kind == "tune":
            for cell in cells_of(st.spec.experiments).values():
                grid, _ = cell_grid(cell, records)
                units += [(e, run_id(e, "tune", s, lr)) for e in cell for lr in grid
                          for s in TUNE_SEEDS]  # fmt: skip
        else:
            names = set(st.variants)
            exps = list(st.spec.experiments) or [
                experiment(d, st.budget, v, v.dropouts[0], st.steps)
                for v in d.variants if v.name in names
            ]  # fmt: skip
            units += [(e, run_id(e, "eval", s, None)) for e in exps for s in d.seeds]
        cost = sum(_run_cost(d, st.steps, st.kind, t_step(st.budget, e.num_layers))
                   for e, _ in units)  # fmt: skip
        done = sum(rid in done_ids for _, rid in units)
        out.append(
            StagePlan(st.kind, st.budget, st.steps, st.variants, len(units), done, cost / 3600)
        )
    spent = sum(
        float(r.get("wall_time_s", 0.0))
        - float((r["metrics"].get("forked_from") or {}).get("elapsed_s", 0.0))
        for r in records
    )
    ext = 0.0
    for b in d.budgets:
        for v in d.variants:
            for m in d.extension:
                n_tune = len(v.dropouts) * len(d.lr_grid) * len(TUNE_SEEDS)
                paid = m - (1 - d.decay_fraction) * max(d.lengths)  # from the 16K run's fork
                ext += (n_tune + len(d.seeds)) * paid * t_step(b, v.num_layers)
    try:
        sd = map_paired_sd(map_records, d.budgets)
    except ValueError:
        sd = None
    return Plan(
        design=d,
        partition=describe_partition(seq_len=d.seq_len, min_count=d.min_count),
        stages=tuple(out),
        step_seconds={k: v for k, v in t.items() if k[0] in d.budgets},
        spent_core_hours=spent / 3600,
        extension_core_hours=ext / 3600,
        prior_sd=sd,
        resolution=resolution(sd, len(d.seeds)) if sd is not None else None,
        seeds_needed=seeds_for_resolution(sd, d.margin) if sd is not None else None,
    )


def _h(x: float) -> str:
    return "not estimated (no measured step time)" if math.isnan(x) else f"{x:,.1f} core-h"


def plan_lines(p: Plan) -> list[str]:
    """:func:`plan` in words, one line each."""
    d, part = p.design, p.partition
    names = ", ".join(v.name for v in d.variants)
    drops = "; ".join(f"{v.name} {{{', '.join(f'{x:g}' for x in v.dropouts)}}}" for v in d.variants)
    lines = [
        f"converge plan ({d.profile}): claim (b) trained to convergence, tuned at each length",
        f"  task {TASK}: {part['files']['train']} training files ({part['chars']['train']:,} "
        f"characters), {part['files']['val']} validation files ({d.n_val:,} windows per seed), "
        f"{part['files']['test']} held-out test files ({part['chars']['test']:,} characters, "
        f"{part['windows']['test']:,} windows of {d.seq_len}, every one scored)",
        f"  variants {names}; budgets {', '.join(f'{b:,}' for b in d.budgets)} (whole model "
        f"within 2%); dropout on every non-recurrent connection, tuned from: {drops}",
        f"  lengths {', '.join(f'{n:,}' for n in d.lengths)} steps of {d.batch_size} x "
        f"{d.seq_len} characters, warmup-stable-decay ({d.decay_fraction:.0%} cooldown), "
        f"one run's forks start the other lengths; "
        f"{', '.join(f'{n:,}' for n in d.extension)} added where the rule fails",
        f"  convergence rule: doubling the training (N/2 -> N) improves mean validation "
        f"bits/char by less than {d.margin} (each length tuned itself)",
        f"  tuning: rates {', '.join(f'{x:g}' for x in d.lr_grid)} (extended at an edge, "
        f"limits {d.lr_limits[0]:g}-{d.lr_limits[1]:g}) x dropouts, {len(TUNE_SEEDS)} tuning "
        f"seeds; {len(d.seeds)} reporting seeds",
    ]
    if p.prior_sd is not None:
        lines.append(
            f"  resolution before any run: per-seed paired differences of the scale map "
            f"(160K/400K x 6,000 steps, an upper estimate) have sd {p.prior_sd:.3f} bits/char, "
            f"so {len(d.seeds)} seeds resolve +/-{p.resolution:.3f} (the margin is {d.margin}); "
            f"{p.seeds_needed or 'more than 200'} seeds would resolve the margin at that sd, "
            "before the test files' share is added (measured from the first runs)"
        )
    for (b, depth), s in sorted(p.step_seconds.items()):
        lines.append(f"  cost model: {b:,} parameters, L={depth}: {s:.3f} s per step (the scale "
                     "benchmark, data/scale_step_seconds.json)")  # fmt: skip
    total = sum(s.core_hours for s in p.stages)
    runs = sum(s.runs for s in p.stages)
    done = sum(s.done for s in p.stages)
    lines.append(
        f"  runs: {runs} in the stages decided so far, {done} done; estimated {_h(total)} "
        f"(a shorter length counted at its cooldown only), {p.spent_core_hours:.1f} core-h "
        f"spent; extensions to {', '.join(f'{n:,}' for n in d.extension)} steps if every cell "
        f"needed them: {_h(p.extension_core_hours)} more"
    )
    for s in p.stages:
        who = "+".join(s.variants)
        lines.append(f"    {s.kind:6s} {s.budget:>9,} x {s.steps:>6,} steps {who:18s}"
                     f" {s.done:>3}/{s.runs:<3} runs, {_h(s.core_hours)}")  # fmt: skip
    return lines
