"""The convergence experiment's comparisons and progress, computed from its results file.

Each comparison (:class:`CellResult`, from :func:`results`) is a deeper variant minus a wider one
at one budget and training length, on the files the design holds out for the test, with the
verdict :mod:`rnnlab.evidence.convergence_stats` gives it (Holm across the design's budgets once
every seed is in; "no verdict yet" before). :func:`progress` counts the reporting runs the
verdicts wait for, :func:`doubling_gains` reads the convergence rule's quantity so far, and
:func:`answers_budget` says which comparison is the answer at its budget. The words are
:mod:`rnnlab.evidence.converge_report`'s, which re-exports these names.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rnnlab.evidence.convergence_stats import (
    FileEffect,
    failed_to_train,
    judge_budgets,
    paired_file_effect,
)
from rnnlab.evidence.stats import NOT_INFORMATIVE
from rnnlab.experiments import converge


@dataclass(frozen=True)
class CellResult:
    """One comparison of the design at a budget and length: ``deep`` minus ``wide`` (a deeper
    variant against one layer, or the trainable deep stack against the plain one)."""

    budget: int
    steps: int
    deep: str
    effect: FileEffect
    converged: dict  # variant name -> True / False / None (the rule at this length)
    dropout: dict  # variant name -> chosen dropout
    wide: str = "L1"
    reason: str = ""  # why it counts neither way (a model failed to train), or ""
    planned: int = 0  # the reporting seeds the design gives this comparison (0: not decided)

    @property
    def interim(self) -> bool:
        """Fewer paired seeds than the design gives the comparison: an interim look, which
        carries no verdict (the design declared its verdict at its full seed count)."""
        return self.effect.n_seeds < self.planned

    @property
    def judged(self) -> bool:
        """In Holm's family: neither a model that failed to train nor an interim look."""
        return not self.reason and not self.interim


INTERIM = "no verdict yet"
"""The label of an interim comparison (:attr:`CellResult.interim`), in place of a verdict."""


TRAINABLE, PLAIN = "L4-res-LN", "L4-plain"
"""The trainable deep stack and the plain one of equal depth (:data:`converge.VARIANTS`)."""


def comparisons(d: converge.Design) -> list[tuple[str, str]]:
    """The ``(wide, deep)`` pairs the report states, each a family of its own for Holm: every
    deeper variant against one layer (claim b), then, where the design has both, the trainable
    deep stack against the plain one at equal depth (does the plain stack fail for want of
    trainability?)."""
    names = [v.name for v in d.variants]
    out = [(names[0], n) for n in names[1:]]
    if {TRAINABLE, PLAIN} <= set(names):
        out.append((PLAIN, TRAINABLE))
    return out


def checked_for_training(pair: tuple[str, str]) -> tuple[str, ...]:
    """The models of a ``(wide, deep)`` comparison whose failure to train makes it count
    neither way: both, except in the plain deep stack against the trainable one, where the
    plain stack failing to train is the effect measured (only the trainable stack is checked)."""
    return tuple(n for n in pair if pair != (PLAIN, TRAINABLE) or n == TRAINABLE)


def _evals(records: Sequence[dict], key: str) -> dict[int, dict]:
    return {r["seed"]: r for r in records if r.get("role") == "eval" and r["experiment_key"] == key}


def results(profile: str, records: Sequence[dict]) -> list[CellResult]:
    """Every comparison of :func:`comparisons` with at least two paired reporting seeds,
    Holm-corrected across the budgets of each (comparison, length). A comparison with a model
    that failed to train (:func:`rnnlab.evidence.convergence_stats.failed_to_train`) is
    labelled *not informative*, with its ``reason``, and left out of the correction; except the
    plain deep stack against the trainable one, where the plain stack failing to train is the
    effect measured (only the trainable stack is checked there). A comparison with fewer paired
    seeds than the design gives it is an interim look: its interval is shown, its verdict is
    :data:`INTERIM`, and it is left out of the correction too (added 2026-12-05, at the first
    interim look, 3 of 9 seeds: a verdict is declared at the full seed count only). The full
    count is the seeds both models run (:func:`rnnlab.experiments.converge.paired_seeds`): until
    2026-12-06 it was one layer's, so a four-layer stack against one layer, 5 seeds against 9,
    would have stayed interim with every run in."""
    from dataclasses import replace

    d = converge.design_for(profile, records)
    by_variant = {v.name: v for v in d.variants}
    raw: list[CellResult] = []
    for budget in d.budgets:
        for steps in sorted({n for v in d.variants
                             for n in converge.lengths_needed(d, budget, v, records)}):  # fmt: skip
            tuned = {v.name: converge.chosen(d, budget, v, steps, records) for v in d.variants}
            for wide_name, deep_name in comparisons(d):
                wide, deep = tuned[wide_name], tuned[deep_name]
                if wide is None or deep is None:
                    continue
                a, b = _evals(records, wide.key), _evals(records, deep.key)
                if len(set(a) & set(b)) < 2:
                    continue
                names = (wide_name, deep_name)
                family = [list(_evals(records, e.key).values()) for e in tuned.values() if e]
                runs = {wide_name: list(a.values()), deep_name: list(b.values())}
                checked = {n: runs[n] for n in checked_for_training((wide_name, deep_name))}
                reason = failed_to_train(checked, family, d.margin)
                planned = converge.paired_seeds(d, budget, names, records) or ()
                raw.append(
                    CellResult(
                        budget,
                        steps,
                        deep_name,
                        paired_file_effect(a, b, margin=d.margin),
                        {
                            n: converge.converged(d, budget, by_variant[n], steps, records)
                            for n in names
                        },  # fmt: skip
                        {wide_name: wide.dropout, deep_name: deep.dropout},
                        wide_name,
                        reason,
                        len(planned),
                    )
                )
    out = [
        replace(c, effect=replace(c.effect, verdict=NOT_INFORMATIVE, p_diff_adjusted=math.nan))
        for c in raw
        if c.reason
    ]
    out += [
        replace(c, effect=replace(c.effect, verdict=INTERIM, p_diff_adjusted=math.nan))
        for c in raw
        if c.interim and not c.reason
    ]
    for family in {(c.wide, c.deep, c.steps) for c in raw}:
        group = [c for c in raw if (c.wide, c.deep, c.steps) == family and c.judged]
        judged = judge_budgets([c.effect for c in group])
        out += [replace(c, effect=e) for c, e in zip(group, judged, strict=True)]
    return sorted(out, key=lambda c: (c.budget, c.steps, c.wide != "L1", c.deep))


def doubling_gains(by_length: dict[int, list[dict]]) -> list[tuple[int, int, float, int]]:
    """``(half, steps, mean gain, seeds)`` for each length whose half length also ran: the
    convergence rule's quantity (:func:`rnnlab.experiments.converge.doubling_gain`) over the
    seeds both lengths have so far (> 0: the longer training is better). The rule itself waits
    for every reporting seed; this reading does not, so it can say how far the rule has come."""
    out = []
    for steps, runs in sorted(by_length.items()):
        half = by_length.get(steps // 2)
        if not half:
            continue
        a = {r["seed"]: float(r["metrics"]["val"]) for r in half}
        b = {r["seed"]: float(r["metrics"]["val"]) for r in runs}
        seeds = sorted(set(a) & set(b))
        gain = converge.doubling_gain(a, b, seeds)
        if gain is not None:
            out.append((steps // 2, steps, gain, len(seeds)))
    return out


def reporting_runs(
    profile: str, records: Sequence[dict], budget: int
) -> dict[str, dict[int, list[dict]]]:
    """The reporting runs at ``budget`` as the curves figure draws them
    (:func:`rnnlab.course.plots.converge_curves_figure`): per variant, per length, the runs of
    that length's tuned setting (:func:`rnnlab.experiments.converge.chosen`), by seed.
    Variants and lengths without a reporting run are left out; a budget not in the design
    raises ValueError."""
    d = converge.design_for(profile, records)
    if budget not in d.budgets:
        raise ValueError(f"budget must be one of {list(d.budgets)}, got {budget}")
    return design_reporting_runs(d, records, budget)


def design_reporting_runs(
    d: converge.Design, records: Sequence[dict], budget: int
) -> dict[str, dict[int, list[dict]]]:
    """:func:`reporting_runs` for a design ``d`` already built (``budget`` must be one of
    ``d.budgets``; :func:`reporting_runs` checks it)."""
    out: dict[str, dict[int, list[dict]]] = {}
    for v in d.variants:
        for steps in sorted(d.family):
            e = converge.chosen(d, budget, v, steps, records)
            runs = _evals(records, e.key) if e is not None else {}
            if runs:
                out.setdefault(v.name, {})[steps] = [runs[s] for s in sorted(runs)]
    return out


@dataclass(frozen=True)
class Progress:
    """How far the design's reporting runs have come: ``have`` of ``wanted`` in the stages
    decided so far; ``open_seeds`` while the seed rule has not decided every budget (so
    ``wanted`` is a floor); ``final`` once every reporting run of the whole design is in."""

    have: int
    wanted: int
    open_seeds: bool

    @property
    def final(self) -> bool:
        return self.have == self.wanted and self.wanted > 0 and not self.open_seeds

    def text(self) -> str:
        floor = "at least " * self.open_seeds
        return f"{self.have} of {floor}{self.wanted} reporting runs of the design"


def progress(profile: str, records: Sequence[dict]) -> Progress:
    """The :class:`Progress` of ``profile``'s design over ``records``."""
    d = converge.design_for(profile, records)
    stages = [s for s in converge.stages(d, records) if s.kind == "report"]
    wanted = sum(len(s.variants) * len(s.spec.seeds) for s in stages)
    have = sum(len(s.spec.experiments) and sum(s.spec.reporting_progress(records)[:1])
               for s in stages)  # fmt: skip
    open_seeds = d.seed_rule is not None and any(
        converge.seed_spread(d, b, records) is None for b in d.budgets
    )
    return Progress(have, wanted, open_seeds)


def answers_budget(d: converge.Design, c: CellResult, records: Sequence[dict]) -> bool:
    """Whether ``c`` answers its budget: a deeper stack against one layer, made at the length
    the convergence rule asks of the budget (:func:`rnnlab.experiments.converge.longest_length`),
    with every seed the design gives it and both models trained (:attr:`CellResult.judged`)."""
    return c.wide == "L1" and c.judged and c.steps >= converge.longest_length(d, c.budget, records)


def answers(profile: str, records: Sequence[dict]) -> list[CellResult]:
    """The comparisons that answer their budget (:func:`answers_budget`), one per budget and
    deeper variant against one layer, by budget: what the answer page may state as a verdict.
    Empty until the design has made one."""
    d = converge.design_for(profile, records)
    longest: dict[tuple[int, str], CellResult] = {}
    for c in results(profile, records):
        if c.wide == "L1" and c.steps >= getattr(longest.get((c.budget, c.deep)), "steps", 0):
            longest[c.budget, c.deep] = c
    made = [c for c in longest.values() if answers_budget(d, c, records)]
    return sorted(made, key=lambda c: (c.budget, c.deep))
