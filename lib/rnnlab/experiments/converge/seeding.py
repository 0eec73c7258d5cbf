"""How many reporting seeds each budget gets, fixed before any reporting run.

Five seeds resolve about +/-0.02 bits/char at the spread the scale map showed, twice the margin,
so five could never declare two depths *equivalent*. The design therefore declares a rule that
sizes each budget's main comparison from runs that are never reported. It is a change of design,
reported as one: added on 2026-12-04, after 17 tuning runs of design version 1 and before any
reporting run (design version 2, on more test files, has it from its first run):

* at each budget, once the tuning of ``d.seed_rule`` (L1 and L2) at the longest declared length
  is complete, take every (dropout, rate) setting both were tuned at, on both tuning seeds;
* measure the spread of the paired effect, seed to seed, and the test files' share, split into
  the part that more seeds average away and the part they do not
  (:func:`rnnlab.experiments.resolution.tuning_spread`);
* the budget's reporting seeds are ``d.seeds`` and the next ones, ``n`` in all: the fewest
  seeds whose :func:`rnnlab.experiments.resolution.resolution` is at or below the margin, at
  least ``len(d.seeds)`` and at most ``d.max_seeds`` (where even that many cannot reach the
  margin, the verdict's interval will show it).

Only the spread enters the rule, never the effect, and the tuning runs it reads are never
reported. It applies to the variants of ``d.seed_rule``; the other variants keep ``d.seeds`` and
are paired with them on the seeds they share."""

from __future__ import annotations

from collections.abc import Sequence

from rnnlab.experiments.converge.grid import Design, tuning_experiments
from rnnlab.experiments.experiment import TUNE_SEEDS, run_id
from rnnlab.experiments.resolution import Spread, resolution, tuning_spread
from rnnlab.experiments.tuning import cell_grid, cells_of


def seed_spread(
    d: Design, budget: int, records: Sequence[dict], complete: bool = True
) -> Spread | None:
    """The tuning seeds' spread of ``d.seed_rule``'s comparison at ``budget`` (see the module
    docstring); ``None`` until that tuning is complete, or without a rule. With
    ``complete=False``, the spread of the settings run so far (a pilot's measurement; the rule
    itself always waits for the complete tuning)."""
    if d.seed_rule is None:
        return None
    wide_name, deep_name = d.seed_rule
    steps = max(d.lengths)
    exps = tuning_experiments(d, budget, steps, d.seed_rule)
    cells = cells_of(exps)
    grids = {}
    for cell in cells.values():
        grid, done = cell_grid(cell, records)
        if complete and not done:
            return None
        grids.update({e.key: grid for e in cell})
    by_id = {r["run_id"]: r for r in records}

    def runs(e, lr) -> dict[int, dict]:
        return {s: by_id[i] for s in TUNE_SEEDS if (i := run_id(e, "tune", s, lr)) in by_id}

    variant = {e.key: dict(e.labels)["variant"] for e in exps}
    wides = {e.dropout: e for e in exps if variant[e.key] == wide_name}
    deeps = {e.dropout: e for e in exps if variant[e.key] == deep_name}
    settings = [
        (runs(wides[p], lr), runs(deeps[p], lr))
        for p in sorted(set(wides) & set(deeps))
        for lr in sorted(set(grids[wides[p].key]) & set(grids[deeps[p].key]))
    ]
    try:
        return tuning_spread(settings)
    except ValueError:
        return None


def seeds_from_spread(d: Design, spread: Spread) -> int:
    """The rule's number of reporting seeds for a measured ``spread``: the fewest from
    ``len(d.seeds)`` to ``d.max_seeds`` whose resolution, with the test files' share expected at
    that many seeds (:meth:`~rnnlab.experiments.resolution.Spread.se_file_at`), is at or below
    the margin; ``d.max_seeds`` when none is."""
    for n in range(len(d.seeds), d.max_seeds + 1):
        if resolution(spread.sd_seed, n, spread.se_file_at(n)) <= d.margin:
            return n
    return d.max_seeds


def report_seeds(
    d: Design, budget: int, variants: Sequence[str], records: Sequence[dict]
) -> tuple[int, ...] | None:
    """The reporting seeds of ``variants`` at ``budget``: ``d.seeds`` for variants outside
    ``d.seed_rule``; for those inside it, ``d.seeds`` and the next seeds, as many as the rule
    says, or ``None`` while the rule's tuning is incomplete."""
    if d.seed_rule is None or not set(variants) & set(d.seed_rule):
        return d.seeds
    spread = seed_spread(d, budget, records)
    if spread is None:
        return None
    extra = seeds_from_spread(d, spread) - len(d.seeds)
    first = max(d.seeds) + 1
    return d.seeds + tuple(range(first, first + extra))


def paired_seeds(
    d: Design, budget: int, variants: Sequence[str], records: Sequence[dict]
) -> tuple[int, ...] | None:
    """The reporting seeds that every one of ``variants`` runs at ``budget``, so the seeds a
    comparison of them pairs: the seeds of each variant (:func:`report_seeds`) in common, or
    ``None`` while one of them is not decided. One layer against four runs the four-layer
    stack's ``d.seeds`` only, however many the seed rule gives one layer."""
    each = [report_seeds(d, budget, (v,), records) for v in variants]
    if any(s is None for s in each):
        return None
    common = set.intersection(*(set(s) for s in each if s is not None))
    return tuple(sorted(common))


def decision_text(d: Design, budget: int, spread: Spread | None) -> str:
    """The seed rule's decision at ``budget`` for the measured ``spread`` (:func:`seed_spread`;
    ``None``: not decided yet), in words: the plan and the report print it."""
    if spread is None:
        return (
            f"{budget:,} parameters: not decided yet (the {' and '.join(d.seed_rule or ())} "
            f"tuning at {max(d.lengths):,} steps is not complete); at least {len(d.seeds)}"
        )
    n = seeds_from_spread(d, spread)
    half = resolution(spread.sd_seed, n, spread.se_file_at(n))
    return (
        f"{budget:,} parameters: {n} seeds, from the tuning seeds' spread over "
        f"{spread.settings} settings ({spread.df} df): a seed's paired effect varies by sd "
        f"{spread.sd_seed:.4f} bits/char; the test files add se {spread.se_file_at(n):.4f} at "
        f"{n} seeds ({spread.file_fixed:.4f} from files that differ, which more seeds do not "
        f"remove); {n} seeds resolve +/-{half:.4f} (the margin is {d.margin}"
        + ("" if half <= d.margin else ": not reached at the most seeds the rule allows")
        + ")"
    )
