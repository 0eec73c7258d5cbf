"""The convergence experiment in words: what Lab B and Findings print from its results.

Every line is computed from the results file (:func:`rnnlab.experiments.converge.default_out`) with
the
design and analysis declared in :mod:`rnnlab.experiments.converge` and
:mod:`rnnlab.evidence.convergence_stats`.
Until every reporting run of the design is in, the text says it is provisional and how far the
runs have got; a comparison is printed only where both sides have at least two paired seeds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rnnlab.core.config import own_wall_time_s
from rnnlab.evidence.analysis import fmt_ci
from rnnlab.evidence.convergence_stats import (
    FileEffect,
    failed_to_train,
    judge_budgets,
    paired_file_effect,
)
from rnnlab.evidence.stats import NOT_INFORMATIVE
from rnnlab.experiments import converge
from rnnlab.experiments.experiment import TUNE_SEEDS

LITERATURE = (
    'Karpathy, Johnson & Fei-Fei (2015), character LMs at about 50K-1.3M parameters: "depth '
    'of at least two is beneficial"'
)
"""The anchor, quoted as :mod:`rnnlab.course.findings` quotes it (claim b)."""

LITERATURE_BUDGETS = (50_000, 1_300_000)
"""The parameter range of :data:`LITERATURE`'s models, as it states them."""

#: What a verdict on depth minus one layer says of :data:`LITERATURE`'s finding. Words follow the
#: test: only a decided lead agrees or disagrees; equivalence is no benefit at the margin.
AGAINST_LITERATURE = {
    "supported": "agrees with it",
    "contradicted": "runs against it (one layer is better)",
    "equivalent": "finds no benefit larger than the margin, where they found one",
    "inconclusive": "can say neither",
}


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
    interim look, 3 of 9 seeds: a verdict is declared at the full seed count only)."""
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
                planned = converge.report_seeds(d, budget, names, records) or ()
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
    return _reporting_runs(d, records, budget)


def _reporting_runs(
    d: converge.Design, records: Sequence[dict], budget: int
) -> dict[str, dict[int, list[dict]]]:
    """:func:`reporting_runs` for a design already built."""
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


def _state(converged: dict, margin: float) -> str:
    """The convergence rule's reading of a comparison's models (name -> True / False / None)
    in words, with what the rule compares, so the answer page's reader need not look it up."""
    flags = set(converged.values())
    rule = f"doubling the training {{}} {margin:g} bits/char"
    if flags == {True}:
        return f"both converged: {rule.format('gains less than')}"
    if False in flags:
        names = [k for k, v in converged.items() if v is False]
        both = len(names) == len(converged) > 1
        who = "neither converged" if both else f"{names[0]} not converged"
        return f"{who}: {rule.format('still gains at least')}"
    return "convergence not yet checked"


def answers_budget(d: converge.Design, c: CellResult, records: Sequence[dict]) -> bool:
    """Whether ``c`` answers its budget: a deeper stack against one layer, made at the length
    the convergence rule asks of the budget (:func:`rnnlab.experiments.converge.longest_length`),
    with every seed the design gives it and both models trained (:attr:`CellResult.judged`)."""
    return c.wide == "L1" and c.judged and c.steps >= converge.longest_length(d, c.budget, records)


def answer_clause(profile: str, records: Sequence[dict], decided: bool = False) -> str | None:
    """The converged verdicts in one clause for the answer page, or ``None`` before any
    comparison has two paired seeds: per budget and deeper variant, depth minus one layer at the
    longest length measured, its interval, verdict, seeds and convergence (:func:`results`).
    ``decided=True`` keeps only the comparisons that answer their budget
    (:func:`answers_budget`); ``None`` while there is none."""
    d = converge.design_for(profile, records)
    longest: dict[tuple[int, str], CellResult] = {}
    for c in results(profile, records):
        if c.wide == "L1" and c.steps >= getattr(longest.get((c.budget, c.deep)), "steps", 0):
            longest[c.budget, c.deep] = c
    if decided:
        longest = {k: c for k, c in longest.items() if answers_budget(d, c, records)}
    if not longest:
        return None
    return "; ".join(
        f"{c.deep} - L1 at {c.budget:,} parameters and {c.steps:,} steps: "
        f"{fmt_ci(c.effect.effect, c.effect.ci_low, c.effect.ci_high)} bits/char, "
        f"**{c.effect.verdict}** ({c.reason + '; ' if c.reason else ''}{c.effect.n_seeds} "
        f"{f'of {c.planned} ' if c.interim else ''}seeds; {_state(c.converged, d.margin)}"
        f"{_not_the_answer(d, c, records)})"
        for c in sorted(longest.values(), key=lambda c: (c.budget, c.deep))
    )


def _not_the_answer(
    d: converge.Design, c: CellResult, records: Sequence[dict], cells: Sequence[CellResult] = ()
) -> str:
    """The clause that says a comparison is shorter than its budget's answer
    (:func:`rnnlab.experiments.converge.longest_length`), whether the convergence rule added
    that length, and whether the same comparison is among ``cells`` there yet; empty at the
    answer's length."""
    longest = converge.longest_length(d, c.budget, records)
    if c.steps >= longest:
        return ""
    added = (
        ""
        if longest in d.lengths
        else " (declared from the start)"
        if longest in d.lengths_at(c.budget)
        else " (added by the convergence rule)"
    )
    made = any((x.budget, x.wide, x.deep, x.steps) == (c.budget, c.wide, c.deep, longest)
               for x in cells)  # fmt: skip
    later = "" if made else ", not yet compared there"
    return f"; not the budget's answer, which is made at {longest:,} steps{added}{later}"


def _holm(d: converge.Design, c: CellResult, cells: Sequence[CellResult]) -> str:
    """``c``'s Holm-adjusted p, and, while fewer budgets than the design's are judged in its
    family (same comparison and length), how many: the adjustment, and so the verdict, can
    still change when the other budgets' verdicts come in."""
    judged = sum((x.wide, x.deep, x.steps) == (c.wide, c.deep, c.steps) and x.judged
                 for x in cells)  # fmt: skip
    so_far = f" over {judged} of {len(d.budgets)} budgets so far" if judged < len(d.budgets) else ""
    return f"Holm p {c.effect.p_diff_adjusted:.2g}{so_far}"


def _conv(flag: bool | None, steps: int, d: converge.Design) -> str:
    """The convergence rule's reading at ``steps`` in words. The rule compares a length with
    half of it, so at the design's shortest length it cannot be applied at all: that is said,
    not "not yet checked" (which waits for runs)."""
    if flag is None and steps // 2 not in d.family:
        return (
            f"convergence not testable at {steps:,} steps (the rule compares with half the "
            "length, which is not run)"
        )
    if flag is None:
        return "convergence not yet checked"
    return f"converged at {steps:,}" if flag else f"not converged at {steps:,} steps"


def tuning_lines(records: Sequence[dict]) -> list[str]:
    """The tuning runs so far, one Markdown bullet per (budget, variant, length): the mean
    validation bits/char over the tuning seeds at each (dropout, rate) tried, and the setting
    that leads. These runs choose each cell's setting; they are not a result (validation files,
    two tuning seeds), so the text says so."""
    groups: dict[tuple, dict[tuple[float, float], list[float]]] = {}
    for r in records:
        if r.get("role") != "tune":
            continue
        e = r["experiment"]
        labels = e.get("labels") or {}
        key = (int(r["budget"]), str(labels.get("variant")), int(labels.get("steps", 0)))
        cell = groups.setdefault(key, {})
        cell.setdefault((float(e.get("dropout", 0.0)), float(r["lr"])), []).append(
            float(r["metrics"]["val"])
        )
    if not groups:
        return []
    lines = [
        "- *Tuning so far* (mean validation bits/char over the tuning seeds; these runs choose "
        "each cell's rate and dropout and are not a result):"
    ]
    for (budget, variant, steps), cell in sorted(groups.items()):
        by_drop: dict[float, list[str]] = {}
        for (drop, lr), vals in sorted(cell.items()):
            by_drop.setdefault(drop, []).append(
                f"{lr:g} {sum(vals) / len(vals):.3f}" + ("" if len(vals) > 1 else " (1 seed)")
            )
        (best_drop, best_lr), best = min(
            ((k, sum(v) / len(v)) for k, v in cell.items() if len(v) > 1),
            key=lambda kv: kv[1],
            default=((None, None), None),
        )
        lead = (
            f"; leading so far: dropout {best_drop:g}, rate {best_lr:g}" if best is not None else ""
        )
        lines.append(
            f"  - {budget:,} parameters, {variant}, {steps:,} steps: "
            + "; ".join(f"dropout {d:g}: rate {', '.join(xs)}" for d, xs in by_drop.items())
            + lead
        )
    return lines


def control_lines(d: converge.Design, records: Sequence[dict]) -> list[str]:
    """What the regularisation control changed, per (budget, length, deeper variant with a
    dropout grid) whose tuning is complete: depth's lead in validation bits/char (one layer
    minus the deeper variant, > 0: depth better), once with dropout 0 for both and once with
    each one's tuned dropout, each at its tuned rate, averaged over the tuning seeds
    (:func:`rnnlab.experiments.converge.tuned_scores`). These runs choose the settings; the
    lines say so and carry no interval."""
    wide = d.variants[0]
    parts = []
    for budget in d.budgets:
        for steps in sorted(d.family):
            s1 = converge.tuned_scores(d, budget, wide, steps, records)
            if 0.0 not in s1 or any(math.isnan(x) for x in s1.values()):
                continue
            for v in d.variants[1:]:
                s2 = converge.tuned_scores(d, budget, v, steps, records)
                if len(s2) < 2 or 0.0 not in s2 or any(math.isnan(x) for x in s2.values()):
                    continue
                p1, p2 = converge.best_dropout(s1), converge.best_dropout(s2)
                at0, tuned = s1[0.0] - s2[0.0], s1[p1] - s2[p2]
                parts.append(
                    f"{budget:,} parameters, {steps:,} steps, {v.name} - {wide.name}: "
                    f"{at0:+.3f} with dropout 0 for both, {tuned:+.3f} with each one's tuned "
                    f"dropout ({wide.name} {p1:g}, {v.name} {p2:g}), a change of "
                    f"{tuned - at0:+.3f}"
                )
    if not parts:
        return []
    return [
        "- *What the regularisation control changed* (depth's lead in validation bits/char, "
        f"> 0: depth better; the mean over the {len(TUNE_SEEDS)} tuning seeds, each setting at "
        "its tuned rate; these runs choose the settings, so no interval and no verdict; the "
        "reporting runs use the tuned dropouts): " + "; ".join(parts) + "."
    ]


def convergence_lines(d: converge.Design, records: Sequence[dict]) -> list[str]:
    """The convergence rule's reading so far, one clause per (budget, variant, length) whose
    half length has reporting runs of the same seeds: the mean validation gain from doubling
    the training over those seeds (:func:`doubling_gains`, the
    quantity :func:`rnnlab.experiments.converge.converged` compares with the margin). Until
    every reporting seed is in, the clause says how many are and decides nothing; then it says
    what the rule decided."""
    parts = []
    for budget in d.budgets:
        runs = _reporting_runs(d, records, budget)
        for v in d.variants:
            seeds = converge.report_seeds(d, budget, (v.name,), records)
            for half, steps, gain, n in doubling_gains(runs.get(v.name, {})):
                flag = converge.converged(d, budget, v, steps, records)
                if flag is None:
                    want = f" of {len(seeds)}" if seeds else ""
                    state = f"{n}{want} seeds so far; the rule reads them all"
                else:
                    state = f"{n} seeds: {'converged' if flag else 'not converged'} at {steps:,}"
                parts.append(
                    f"{budget:,} parameters, {v.name}, {half:,} to {steps:,} steps: "
                    f"{gain:+.3f} ({state})"
                )
    if not parts:
        return []
    return [
        f"- *Convergence so far* (mean validation gain from doubling the training, > 0: the "
        f"longer run is better; the rule calls a length converged when the mean gain over all "
        f"its reporting seeds is under {d.margin:g} bits/char): " + "; ".join(parts) + "."
    ]


@dataclass(frozen=True)
class Lead:
    """Two layers' lead over one at one training length, as
    :func:`rnnlab.course.plots.converge_lead_figure` draws it: L2 - L1 in test bits/char (> 0:
    two layers better), its 95% interval, its verdict and paired seeds."""

    steps: int
    effect: float
    low: float
    high: float
    verdict: str
    seeds: int


MAP_SERIES, CONVERGE_SERIES = "scale map", "convergence experiment"
"""The two series of :func:`two_layer_leads`."""


def two_layer_leads(
    profile: str, records: Sequence[dict], scale_records: Sequence[dict]
) -> dict[int, dict[str, list[Lead]]]:
    """Two plain layers against one along training, from both experiments, at each budget of
    ``profile``'s design where the convergence experiment has an L2 - L1 comparison: budget ->
    {:data:`MAP_SERIES`: the map's cells at that budget (rates tuned at its shortest length, a
    fixed test tail, 5 seeds; unadjusted intervals, verdicts after Holm across the map),
    :data:`CONVERGE_SERIES`: the comparisons of :func:`results` (each length tuned, held-out
    files; interim looks keep their interval and say "no verdict yet")}, each by length. The
    two measure the same comparison on different test sets, so the figure sets their
    direction and precision side by side, not their levels."""
    from rnnlab.evidence import scalemap

    out: dict[int, dict[str, list[Lead]]] = {}
    for c in results(profile, records):
        if (c.wide, c.deep) == ("L1", "L2"):
            e = c.effect
            lead = Lead(c.steps, e.effect, e.ci_low, e.ci_high, e.verdict, e.n_seeds)
            out.setdefault(c.budget, {MAP_SERIES: [], CONVERGE_SERIES: []})
            out[c.budget][CONVERGE_SERIES].append(lead)
    for c in scalemap.map_cells(scale_records, deep=2) if out else ():
        budget, steps = scalemap.grid_key(c)
        if budget in out:
            k = c.comparison
            lead = Lead(steps, float(k.effect), float(k.ci_low), float(k.ci_high), k.verdict, k.n)
            out[budget][MAP_SERIES].append(lead)
    for series in out.values():
        for leads in series.values():
            leads.sort(key=lambda x: x.steps)
    return out


def map_lines(d: converge.Design, scale_records: Sequence[dict]) -> list[str]:
    """The scale map beside the convergence experiment: at each of the design's budgets the
    map measured, its verdicts at its longest training length for two layers and for plain
    four layers against one (:func:`rnnlab.evidence.scalemap.map_cells`, Holm across the map's
    cells)."""
    from rnnlab.evidence import scalemap

    cells = {deep: scalemap.map_cells(scale_records, deep=deep) for deep in scalemap.DEEP_DEPTHS}
    parts = []
    for budget in d.budgets:
        for deep in scalemap.DEEP_DEPTHS:
            at = [c for c in cells[deep] if scalemap.grid_key(c)[0] == budget]
            if not at:
                continue
            c = max(at, key=scalemap.grid_key)
            k = c.comparison
            parts.append(
                f"{budget:,} parameters, L{deep} - L1 at {scalemap.grid_key(c)[1]:,} "
                f"steps: {fmt_ci(k.effect, k.ci_low, k.ci_high)} (**{k.verdict}**, {k.n} seeds)"
            )
    if not parts:
        return []
    return [
        "- *The scale map at the same budgets* (bits/char, > 0: depth better; plain stacks at "
        "its longest training, with the rates and test sample the map declared; unadjusted "
        "intervals, verdicts after Holm across the map's cells): " + "; ".join(parts) + "."
    ]


def report_lines(
    profile: str,
    records: Sequence[dict],
    pilot_records: Sequence[dict] = (),
    scale_records: Sequence[dict] = (),
) -> list[str]:
    """Claim (b) at convergence, in Markdown bullets: progress, why this is design version 2
    (from ``pilot_records``, version 1's runs, when given), one line per comparison
    (:func:`results`), the convergence rule's reading so far (:func:`convergence_lines`), what
    the regularisation control changed (:func:`control_lines`), the
    scale map at the same budgets (from ``scale_records``, when given; :func:`map_lines`), the
    tuning so far and the literature."""
    d = converge.design_for(profile, records)
    p = progress(profile, records)
    spreads = {b: converge.seed_spread(d, b, records) for b in d.budgets}
    spent = sum(own_wall_time_s(r) for r in records)
    on_gpu = any(str(r.get("device", "")).startswith("cuda") for r in records)
    unit = "process-hours on the GPU" if on_gpu else "core-hours"
    lines = [
        f"- **{'Final' if p.final else 'Provisional'}**: {p.text()} decided so far, "
        f"{len(records)} runs in all ({spent / 3600:.1f} {unit}); "
        f"`python -m rnnlab run-converge --profile {profile}` resumes it."
    ]
    pilot = converge.pilot_projection(d, pilot_records, records=records) if pilot_records else None
    if pilot is not None:
        lines.append(
            f"- *Design version 2* ({d.task}, {pilot.new_files[0]} held-out test files; "
            "declared before any of its runs): "
            + converge.pilot_text(d, pilot)
            + ". Version 2 changes the task only; every run is new."
        )
    if d.seed_rule:
        lines.append(
            "- *Reporting seeds* (the seed rule for "
            f"{' vs '.join(d.seed_rule)}, `rnnlab.experiments.converge.seeding`, added before "
            "any reporting run): "
            + "; ".join(converge.decision_text(d, b, spread) for b, spread in spreads.items())
            + "."
        )
    cells = results(profile, records)
    if not cells:
        lines.append(
            "- No comparison has two paired reporting seeds yet: nothing is measured at "
            "convergence so far. The scale map above remains the evidence for claim (b)."
        )
    for c in cells:
        e = c.effect
        drops = ", ".join(f"{k} dropout {v:g}" for k, v in c.dropout.items())
        said = {k: _conv(v, c.steps, d) for k, v in c.converged.items()}
        if len(said) > 1 and len(set(said.values())) == 1:  # one reading for both: say it once
            conv = f"{' and '.join(said)}: {next(iter(said.values()))}"
        else:
            conv = "; ".join(f"{k} {text}" for k, text in said.items())
        lines.append(
            f"- {c.budget:,} parameters, {c.steps:,} steps, {c.deep} - {c.wide}: "
            f"{fmt_ci(e.effect, e.ci_low, e.ci_high)} bits/char (> 0: {c.deep} better; "
            f"{e.n_seeds} seeds x {e.n_files} held-out files, {e.test_windows:,} windows"
            + (
                f"): **{e.verdict}**: {c.reason}; "
                if c.reason
                else f"): **{e.verdict}**: interim, {e.n_seeds} of {c.planned} seeds (the "
                f"verdict waits for all {c.planned}); "
                if c.interim
                else f"; {_holm(d, c, cells)}): **{e.verdict}**; "
            )  # fmt: skip
            + f"{drops}; {conv}"
            + _not_the_answer(d, c, records, cells)
            + "."
        )
    lines += convergence_lines(d, records)
    lines += control_lines(d, records)
    lines += map_lines(d, scale_records)
    lines += tuning_lines(records)
    lines.append(literature_line(d, records, cells))
    return lines


def literature_line(
    d: converge.Design, records: Sequence[dict], cells: Sequence[CellResult]
) -> str:
    """:data:`LITERATURE`, and beside it each comparison that answers its budget
    (:func:`answers_budget`): whether the budget lies in their range, what
    the verdict says of their finding (:data:`AGAINST_LITERATURE`), and, where a model has
    not converged by the declared rule, that the comparison is at that many steps while
    theirs trained to convergence. Interim looks and shorter lengths are left out."""
    low, high = LITERATURE_BUDGETS
    parts = []
    for c in cells:
        if not answers_budget(d, c, records):
            continue
        inside = "inside" if low <= c.budget <= high else "outside"
        flags = set(c.converged.values())
        failed = [k for k, v in c.converged.items() if v is False]
        caveat = (
            ", with both models converged by the declared rule"
            if flags == {True}
            else ", but neither model has converged there by the declared rule"
            if len(failed) == len(c.converged)
            else f", but {failed[0]} has not converged there by the declared rule"
            if failed
            else ", though the declared rule has not read both models there"
        )
        parts.append(
            f"{c.budget:,} parameters ({inside} their range), {c.deep} - L1 at {c.steps:,} "
            f"steps: **{c.effect.verdict}**, which {AGAINST_LITERATURE[c.effect.verdict]}"
            + caveat
            + ("" if flags == {True} else " (theirs trained to convergence)")
        )
    beside = (
        ". Beside it, each comparison that answers its budget: " + "; ".join(parts)
        if parts
        else ". No comparison has been made yet where its budget is answered"
    )
    return f"- The literature: {LITERATURE}{beside}."
