"""The convergence experiment in words: what Lab B and Findings print from its results.

Every line is computed from the results file (:func:`rnnlab.experiments.converge.default_out`) with
the design and analysis declared in :mod:`rnnlab.experiments.converge` and
:mod:`rnnlab.evidence.convergence_stats`. The comparisons and progress the words state are
:mod:`rnnlab.evidence.converge_results`' (re-exported here, so notebooks keep writing
``converge_report.results``); the scale map and the literature beside them are
:mod:`rnnlab.evidence.converge_context`'s.
Until every reporting run of the design is in, the text says it is provisional and how far the
runs have got; a comparison is printed only where both sides have at least two paired seeds.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from rnnlab.core.config import own_wall_time_s
from rnnlab.evidence.analysis import fmt_ci, fmt_signed
from rnnlab.evidence.converge_context import literature_line, map_lines
from rnnlab.evidence.converge_results import (
    INTERIM,
    PLAIN,
    TRAINABLE,
    CellResult,
    Progress,
    answers,
    answers_budget,
    checked_for_training,
    comparisons,
    design_reporting_runs,
    doubling_gains,
    progress,
    reporting_runs,
    results,
)
from rnnlab.experiments import converge
from rnnlab.experiments.experiment import TUNE_SEEDS

__all__ = [
    "INTERIM",
    "PLAIN",
    "TRAINABLE",
    "CellResult",
    "Progress",
    "answer_clause",
    "answers",
    "answers_budget",
    "checked_for_training",
    "comparisons",
    "control_lines",
    "convergence_lines",
    "doubling_gains",
    "progress",
    "report_lines",
    "reporting_runs",
    "results",
    "rule_reading",
    "tuning_lines",
]


def rule_reading(converged: dict, margin: float, why: bool = True) -> str:
    """The convergence rule's reading of a comparison's models (name -> True / False / None)
    in words: "both converged", "neither converged", "L1 not converged" or "convergence not
    yet checked", and with ``why`` what the rule compares, so the answer page's reader need
    not look it up."""
    flags = set(converged.values())
    rule = f"doubling the training {{}} {margin:g} bits/char"
    if flags == {True}:
        who, how = "both converged", "gains less than"
    elif False in flags:
        names = [k for k, v in converged.items() if v is False]
        both = len(names) == len(converged) > 1
        who = "neither converged" if both else f"{names[0]} not converged"
        how = "still gains at least"
    else:
        return "convergence not yet checked"
    return f"{who}: {rule.format(how)}" if why else who


def answer_clause(profile: str, records: Sequence[dict], decided: bool = False) -> str | None:
    """The converged verdicts in one clause for the answer page, or ``None`` before any
    comparison has two paired seeds: per budget and deeper variant, depth minus one layer at the
    longest length measured, its interval, verdict, seeds and convergence (:func:`results`).
    ``decided=True`` keeps only the comparisons that answer their budget
    (:func:`answers_budget`); ``None`` while there is none."""
    d = converge.design_for(profile, records)
    longest: dict[tuple[int, str], CellResult] = {}
    for c in answers(profile, records) if decided else results(profile, records):
        if c.wide == "L1" and c.steps >= getattr(longest.get((c.budget, c.deep)), "steps", 0):
            longest[c.budget, c.deep] = c
    if not longest:
        return None
    return "; ".join(
        f"{c.deep} - L1 at {c.budget:,} parameters and {c.steps:,} steps: "
        f"{fmt_ci(c.effect.effect, c.effect.ci_low, c.effect.ci_high)} bits/char, "
        f"**{c.effect.verdict}** ({c.reason + '; ' if c.reason else ''}{c.effect.n_seeds} "
        f"{f'of {c.planned} ' if c.interim else ''}seeds; {rule_reading(c.converged, d.margin)}"
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


def reading_line(cells: Sequence[CellResult]) -> str:
    """How to read the cells that follow it: each interval is a cell's own 95% interval, while
    its verdict comes from the p-value after Holm's correction across its family (the budgets
    at the same comparison and length), so an interval that excludes 0 can sit beside
    *inconclusive*. The cells where it does now are named, from ``cells``."""
    both = [
        f"{c.budget:,} parameters, {c.steps:,} steps, {c.deep} - {c.wide}"
        for c in cells
        if c.judged
        and c.effect.verdict == "inconclusive"
        and (c.effect.ci_low > 0 or c.effect.ci_high < 0)
    ]
    return (
        "- *Reading the cells*: each gives the mean paired difference between the two named "
        "stacks in test bits/char (> 0: the first is better) with its 95% interval, unadjusted; "
        "the verdict follows the p-value after Holm's correction "
        "across the budgets at the same comparison and length, so an interval that excludes 0 "
        "can still be inconclusive" + (f" (now: {'; '.join(both)})" if both else "") + "."
    )


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


ROSE_AFTER_BEST = 0.1
"""Bits/char by which a run's last validation score may exceed its best checkpoint's before
the tuning lines say so. A run's score is its best checkpoint's (the declared selection), so a
rate that blows up late still shows the score it had before; a rise this large (ten times the
design's margin) means the number is an early checkpoint's, not what the full length reached."""


def _rose_after_best(run: dict) -> tuple[int, float, int] | None:
    """``(best step, last validation, last step)`` when ``run``'s validation ended more than
    :data:`ROSE_AFTER_BEST` above its best checkpoint's; ``None`` otherwise (or without
    curves)."""
    curves = run.get("curves") or []
    if not curves or "best_step" not in run["metrics"]:
        return None
    last = float(curves[-1]["val"])
    if last - float(run["metrics"]["val"]) <= ROSE_AFTER_BEST:  # False for a NaN: it counts
        return None
    return int(run["metrics"]["best_step"]), last, int(curves[-1]["step"])


def _mean_val(runs: Sequence[dict]) -> float:
    """The mean validation bits/char of a setting's runs (one per tuning seed)."""
    return statistics.fmean(float(r["metrics"]["val"]) for r in runs)


def _setting(runs: Sequence[dict]) -> str:
    """One (dropout, rate) setting's words: the mean validation bits/char over its seeds, with
    "(1 seed)" while it has one and, where a seed's validation rose after its best checkpoint,
    that checkpoint's step and the score and step the run ended on."""
    text = f"{runs[0]['lr']:g} {_mean_val(runs):.3f}" + ("" if len(runs) > 1 else " (1 seed)")
    rose = [x for x in map(_rose_after_best, runs) if x is not None]
    if rose:
        text += (
            " (validation rose after the best checkpoint: "
            + "; ".join(
                f"best at step {best:,}, {last:.2f} at step {end:,}" for best, last, end in rose
            )
            + ")"
        )
    return text


def tuning_lines(records: Sequence[dict]) -> list[str]:
    """The tuning runs so far, one Markdown bullet per (budget, variant, length): the mean
    validation bits/char over the tuning seeds at each (dropout, rate) tried, and the setting
    that leads. These runs choose each cell's setting; they are not a result (validation files,
    two tuning seeds), so the text says so. A setting whose runs blew up after their best
    checkpoint (:data:`ROSE_AFTER_BEST`) says so beside its score, so a reader does not take the
    early checkpoint's number for the full length's."""
    groups: dict[tuple, dict[tuple[float, float], list[dict]]] = {}
    for r in records:
        if r.get("role") != "tune":
            continue
        e = r["experiment"]
        labels = e.get("labels") or {}
        key = (int(r["budget"]), str(labels.get("variant")), int(labels.get("steps", 0)))
        cell = groups.setdefault(key, {})
        cell.setdefault((float(e.get("dropout", 0.0)), float(r["lr"])), []).append(r)
    if not groups:
        return []
    lines = [
        "- *Tuning so far* (mean validation bits/char over the tuning seeds; these runs choose "
        "each cell's rate and dropout and are not a result):"
    ]
    for (budget, variant, steps), cell in sorted(groups.items()):
        by_drop: dict[float, list[str]] = {}
        for (drop, _), runs in sorted(cell.items()):
            by_drop.setdefault(drop, []).append(_setting(runs))
        (best_drop, best_lr), best = min(
            ((k, _mean_val(v)) for k, v in cell.items() if len(v) > 1),
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
                    f"{fmt_signed(at0)} with dropout 0 for both, {fmt_signed(tuned)} with each "
                    f"one's tuned dropout ({wide.name} {p1:g}, {v.name} {p2:g}), a change of "
                    f"{fmt_signed(tuned - at0)}"
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
        runs = design_reporting_runs(d, records, budget)
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
                    f"{fmt_signed(gain)} ({state})"
                )
    if not parts:
        return []
    return [
        f"- *Convergence so far* (mean validation gain from doubling the training, > 0: the "
        f"longer run is better; the rule calls a length converged when the mean gain over all "
        f"its reporting seeds is under {d.margin:g} bits/char): " + "; ".join(parts) + "."
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
    scale map at the same budgets (from ``scale_records``, when given;
    :func:`rnnlab.evidence.converge_context.map_lines`), the tuning so far and the literature
    (:func:`rnnlab.evidence.converge_context.literature_line`)."""
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
    if cells:
        lines.append(reading_line(cells))
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
