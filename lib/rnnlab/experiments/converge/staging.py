"""The convergence rule and the stages it unfolds into: which lengths each budget and variant
needs, which runs are due next (:func:`pending_runs`), and :func:`run_converge`, which runs
them."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rnnlab.experiments.converge.grid import (
    LAB,
    Design,
    Variant,
    chosen,
    design,
    tuning_experiments,
)
from rnnlab.experiments.converge.seeding import report_seeds
from rnnlab.experiments.experiment import TUNE_SEEDS
from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.sweep import SweepRecords, SweepSpec, run_sweep
from rnnlab.experiments.tuning import cell_grid, cells_of

#: The options of :func:`run_converge` when none are given: two processes (``run-converge``'s
#: ``--jobs`` default), checkpoints and forks in ``<out>.ckpt``.
DEFAULT_OPTIONS = RunOptions(jobs=2)


@dataclass(frozen=True)
class Stage:
    """One step of the run order: a sweep of ``kind`` (``"tune"`` or ``"report"``) at one
    budget and length, for some variants."""

    kind: str
    budget: int
    steps: int
    variants: tuple[str, ...]
    spec: SweepSpec


def doubling_gain(val_half: Mapping[int, float], val_full: Mapping[int, float],
                  seeds: Collection[int]) -> float | None:  # fmt: skip
    """The quantity the convergence rule compares with the margin: the mean over ``seeds`` of
    validation bits/char at half the length minus validation at the full length, each keyed by
    seed (> 0: the longer training is better). Pairing by seed matters: a seed fixes the data
    order, so its two lengths share most of their noise. ``None`` when ``seeds`` is empty or a
    seed lacks either run.

    >>> round(doubling_gain({0: 1.80, 1: 1.82}, {0: 1.78, 1: 1.81}, [0, 1]), 6)
    0.015
    """
    if not seeds or any(s not in val_half or s not in val_full for s in seeds):
        return None
    return sum(val_half[s] - val_full[s] for s in seeds) / len(seeds)


def converged(d: Design, budget: int, variant: Variant, steps: int,
              records: Sequence[dict]) -> bool | None:  # fmt: skip
    """The declared convergence rule at ``steps``: the mean validation gain from ``steps / 2``
    to ``steps`` over the reporting seeds (:func:`rule_gain`) is below the margin. ``None``
    until both lengths' reporting runs are in (or when ``steps / 2`` is not a length of the
    design)."""
    gain = rule_gain(d, budget, variant, steps, records)
    return None if gain is None else gain < d.margin


def rule_gain(d: Design, budget: int, variant: Variant, steps: int,
              records: Sequence[dict]) -> float | None:  # fmt: skip
    """What the convergence rule reads at ``steps``: :func:`doubling_gain` from ``steps / 2``
    to ``steps``, each length at its tuned setting, over the reporting seeds. ``None`` as
    :func:`converged`."""
    half = steps // 2
    seeds = report_seeds(d, budget, (variant.name,), records)
    if half not in d.family or seeds is None:
        return None
    a, b = chosen(d, budget, variant, half, records), chosen(d, budget, variant, steps, records)
    if a is None or b is None:
        return None
    val: dict[str, dict[int, float]] = {a.key: {}, b.key: {}}
    for r in records:
        if r.get("role") == "eval" and r["experiment_key"] in val:
            val[r["experiment_key"]][r["seed"]] = float(r["metrics"]["val"])
    return doubling_gain(val[a.key], val[b.key], seeds)


def _budget_lengths(d: Design, budget: int, records: Sequence[dict]) -> list[int]:
    """The lengths every variant at ``budget`` runs, shortest first (:func:`lengths_needed`)."""
    out = list(d.lengths_at(budget))
    for ext in (n for n in d.extension if n not in out):
        if not any(converged(d, budget, v, out[-1], records) is False for v in d.variants):
            break
        out.append(ext)
    return out


def lengths_needed(d: Design, budget: int, variant: Variant, records: Sequence[dict]) -> list[int]:
    """The lengths that (budget, variant) runs: ``d.lengths_at(budget)`` (the extension too
    where the design runs it from the start), then each other ``extension`` length while the
    longest so far fails the convergence rule for *any* variant at ``budget``.

    A budget's variants are extended together, so that every comparison at the budget can be
    made at one length, each side tuned there (a variant that had converged gains a longer
    run that its rule reads too). Before, each variant was extended alone, and a comparison of
    one that needed the extension with one that did not had no common longest length. Changed
    on 2026-12-05, when one layer at 160K had 8 of its 9 reporting seeds at both lengths and
    before the rule had decided for any variant; it favours neither side (``variant`` is kept
    for the callers: every variant at a budget gets the same lengths)."""
    return _budget_lengths(d, budget, records)


def longest_length(d: Design, budget: int, records: Sequence[dict]) -> int:
    """The longest length :func:`lengths_needed` asks of ``budget`` so far: where its
    comparisons are answered, and the longest run a sitting there must leave room for. The
    rule is read once per variant, not once per variant for each variant."""
    return max(_budget_lengths(d, budget, records))


def stages(d: Design, records: Sequence[dict]) -> list[Stage]:
    """The whole run order as far as ``records`` decide it (see the module docstring): per
    budget and group of variants (``d.groups``: L1 and L2 first, so the main comparison is
    answered first), the tuning stages of the budget's declared lengths
    (:meth:`~rnnlab.experiments.converge.grid.Design.lengths_at`, longest first), then their
    reporting stages; then, for each extension length the rule added, its tuning stage and its
    reporting stage. So the verdict at the design's lengths comes before an extension's
    tuning (a process left idle takes that tuning early: :func:`pending_runs`). A report
    stage's seeds are :func:`rnnlab.experiments.converge.seeding.report_seeds`'s (``d.seeds``
    as a lower bound, and no experiment, while they are not decided)."""
    out = []
    for budget, group in ((b, g) for b in d.budgets for g in d.groups):
        need = {v.name: lengths_needed(d, budget, v, records)
                for v in d.variants if v.name in group}  # fmt: skip
        lengths = sorted({n for ns in need.values() for n in ns}, reverse=True)
        declared = d.lengths_at(budget)
        blocks = [[n for n in lengths if n in declared]]
        blocks += [[n] for n in sorted(set(lengths) - set(declared))]
        for block, kind in ((b, k) for b in blocks for k in ("tune", "report")):
            for steps in block:
                names = tuple(v for v, ns in need.items() if steps in ns)
                if kind == "tune":
                    exps = tuning_experiments(d, budget, steps, names)
                    seeds: tuple[int, ...] = ()
                else:
                    picked = [chosen(d, budget, v, steps, records)
                              for v in d.variants if v.name in names]  # fmt: skip
                    exps = [e for e in picked if e is not None]
                    decided = report_seeds(d, budget, names, records)
                    if decided is None:  # the seed rule's tuning is not complete: wait
                        exps, decided = [], d.seeds
                    seeds = decided
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
            n += len(st.variants) * len(st.spec.seeds)
    return n


def pending_runs(d: Design, records: Sequence[dict]) -> list[tuple]:
    """Every run of the design that can start now, in run order: the runs of the first stage
    not done, then those of each later stage that can already start (a stage's tuning needs no
    other stage; a report stage waits for its tuning and its seeds, a longer length for the
    convergence rule, and :func:`stages` decides neither before the data do). A process that
    the first stage leaves idle, at its tail or while a grid extension waits for the runs that
    decide it, takes the next stage's run instead of waiting. Which runs are made, and every
    number, stay those of the stages; only when each starts changes. Units as
    :func:`rnnlab.experiments.sweep.pending_units`."""
    from rnnlab.experiments.experiment import run_id
    from rnnlab.experiments.sweep import pending_units

    out, seen = [], set()
    for st in stages(d, records):
        for unit in pending_units(st.spec, records):
            rid = run_id(*unit)
            if rid not in seen:
                seen.add(rid)
                out.append(unit)
    return out


def default_out(profile: str) -> Path:
    """``data/results/converge/<profile>.jsonl`` (reference, gpu) or ``runs/converge-smoke``."""
    from rnnlab.core.paths import repo_root, runs_dir

    design(profile)
    if profile == "smoke":
        return runs_dir() / "converge-smoke.jsonl"
    return repo_root() / "data" / "results" / "converge" / f"{profile}.jsonl"


def pilot_out() -> Path:
    """``data/results/converge/pilot-v1.jsonl``: design version 1's 27 tuning runs (reference
    profile, ``charlm-stdlib-files``), kept as the pilot that measured why version 2 holds out
    more files. Never reported; :func:`rnnlab.experiments.converge.plan` reads their spread."""
    from rnnlab.core.paths import repo_root

    return repo_root() / "data" / "results" / "converge" / "pilot-v1.jsonl"


def check_same_corpus(d: Design, records: Sequence[dict], out: str | Path = "the results") -> None:
    """Refuse to add runs to ``records`` made on another corpus. The task reads the standard
    library of the Python that runs it, which differs between versions and distributions (the
    GPU machine's Python 3.12 of 2026-12-04 held 388 of the files where CPython 3.11 here holds
    605), and run ids do not name the corpus: a sweep resumed elsewhere would skip runs made on
    other files and pair runs that scored different test files. Raises ValueError naming both
    corpora's ``files_sha256``."""
    from rnnlab.core.tasks.heldout import corpus_digest

    theirs = {
        r.get("task_info", {}).get("files_sha256")
        for r in records
        if r.get("task") == d.task and r.get("task_info", {}).get("files_sha256")
    }
    if not theirs:
        return
    here = corpus_digest(d.task, min_count=d.min_count)
    if theirs != {here}:
        raise ValueError(
            f"{out} holds runs of {d.task} on another corpus (files_sha256 "
            f"{', '.join(sorted(x[:12] for x in theirs))}) than this Python's standard library "
            f"({here[:12]}, {sys.version.split()[0]}): resume it with the Python that made "
            "them, or write to another --out"
        )


def run_converge(
    profile: str,
    out: str | Path,
    *,
    options: RunOptions | None = None,
    on_record: Callable[[dict], None] | None = None,
    on_failure: Callable[[dict], None] | None = None,
) -> SweepRecords:
    """Run (or resume) ``profile``'s design into ``out``: one
    :func:`rnnlab.experiments.sweep.run_sweep` with ``options`` (default
    :data:`DEFAULT_OPTIONS`; a Dask ``options.scheduler`` included) over :func:`pending_runs`,
    which it asks again after every finished run, so each stage starts as soon as the data
    decide it. It returns when no run is left that can start, ``options.max_runs`` new runs
    have finished or ``options.stop_file`` exists. With ``options.until`` a run starts only if
    it is expected to end by then (:func:`~rnnlab.experiments.converge.timing.seconds_left`),
    so a sitting can end with no run in flight (``.held_back`` lists the runs left). A failed
    run is not retried in the same sweep (nor is a stage that waits for it started); the other
    runs go on. Checkpoints and forks go to ``options.checkpoint_dir`` (default
    ``<out>.ckpt``; on a Dask cluster the workers write them there, so they must share that
    folder for the forks to be used). Returns the records; ``.failures`` lists the failed
    runs."""
    from rnnlab.experiments.store import load_results

    d = design(profile)
    out = Path(out)
    options = options if options is not None else DEFAULT_OPTIONS
    if options.checkpoint_dir is None:
        options = dataclasses.replace(options, checkpoint_dir=out.with_name(out.name + ".ckpt"))
    check_same_corpus(d, load_results(out) if out.exists() else [], out)
    estimate = None
    if options.until is not None:  # only a deadline needs the estimate (and its benchmark)
        from rnnlab.experiments.converge.timing import seconds_left

        estimate = seconds_left(d, options.checkpoint_dir)
    return run_sweep(
        SweepSpec(LAB, d.profile, (), ()),
        out,
        options=options,
        on_record=on_record,
        on_failure=on_failure,
        pending=lambda recs: pending_runs(d, recs),
        estimate=estimate,
    )
