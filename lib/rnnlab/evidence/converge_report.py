"""The convergence experiment in words: what Lab B and Findings print from its results.

Every line is computed from the results file (:func:`rnnlab.experiments.converge.default_out`) with
the
design and analysis declared in :mod:`rnnlab.experiments.converge` and
:mod:`rnnlab.evidence.convergence_stats`.
Until every reporting run of the design is in, the text says it is provisional and how far the
runs have got; a comparison is printed only where both sides have at least two paired seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rnnlab.core.config import own_wall_time_s
from rnnlab.evidence.analysis import fmt_ci
from rnnlab.evidence.convergence_stats import FileEffect, judge_budgets, paired_file_effect
from rnnlab.experiments import converge

LITERATURE = (
    'Karpathy, Johnson & Fei-Fei (2015), character LMs at about 50K-1.3M parameters: "depth '
    'of at least two is beneficial"'
)
"""The anchor, quoted as :mod:`rnnlab.course.findings` quotes it (claim b)."""


@dataclass(frozen=True)
class CellResult:
    """One comparison of the design: a deep variant against one layer, at a budget and length."""

    budget: int
    steps: int
    deep: str
    effect: FileEffect
    converged: dict  # variant name -> True / False / None (the rule at this length)
    dropout: dict  # variant name -> chosen dropout


def _evals(records: Sequence[dict], key: str) -> dict[int, dict]:
    return {r["seed"]: r for r in records if r.get("role") == "eval" and r["experiment_key"] == key}


def results(profile: str, records: Sequence[dict]) -> list[CellResult]:
    """Every comparison with at least two paired reporting seeds, Holm-corrected across the
    budgets of each (deep variant, length)."""
    d = converge.design_for(profile, records)
    by_variant = {v.name: v for v in d.variants}
    raw: list[CellResult] = []
    for budget in d.budgets:
        for steps in sorted({n for v in d.variants
                             for n in converge.lengths_needed(d, budget, v, records)}):  # fmt: skip
            wide = converge.chosen(d, budget, by_variant["L1"], steps, records)
            if wide is None:
                continue
            for v in d.variants[1:]:
                deep = converge.chosen(d, budget, v, steps, records)
                if deep is None:
                    continue
                a, b = _evals(records, wide.key), _evals(records, deep.key)
                if len(set(a) & set(b)) < 2:
                    continue
                names = ("L1", v.name)
                raw.append(
                    CellResult(
                        budget,
                        steps,
                        v.name,
                        paired_file_effect(a, b, margin=d.margin),
                        {
                            n: converge.converged(d, budget, by_variant[n], steps, records)
                            for n in names
                        },  # fmt: skip
                        {"L1": wide.dropout, v.name: deep.dropout},
                    )
                )
    out = []
    for deep in {c.deep for c in raw}:
        for steps in {c.steps for c in raw if c.deep == deep}:
            group = [c for c in raw if c.deep == deep and c.steps == steps]
            judged = judge_budgets([c.effect for c in group])
            out += [
                CellResult(c.budget, c.steps, c.deep, e, c.converged, c.dropout)
                for c, e in zip(group, judged, strict=True)
            ]
    return sorted(out, key=lambda c: (c.budget, c.steps, c.deep))


def _conv(flag: bool | None, steps: int) -> str:
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


def report_lines(
    profile: str, records: Sequence[dict], pilot_records: Sequence[dict] = ()
) -> list[str]:
    """Claim (b) at convergence, in Markdown bullets: progress, why this is design version 2
    (from ``pilot_records``, version 1's runs, when given), then one line per comparison."""
    d = converge.design_for(profile, records)
    stages = converge.stages(d, records)
    wanted = sum(len(s.variants) * len(s.spec.seeds) for s in stages if s.kind == "report")
    have = sum(
        len(s.spec.experiments) and sum(s.spec.reporting_progress(records)[:1])
        for s in stages
        if s.kind == "report"
    )
    spent = sum(own_wall_time_s(r) for r in records)
    # until the seed rule has decided every budget, the number of reporting runs is a floor
    spreads = {b: converge.seed_spread(d, b, records) for b in d.budgets}
    open_seeds = d.seed_rule is not None and None in spreads.values()
    done = have == wanted and wanted > 0 and not open_seeds
    lines = [
        f"- **{'Final' if done else 'Provisional'}**: {have} of {'at least ' * open_seeds}"
        f"{wanted} reporting runs of the design decided so far, {len(records)} runs in all "
        f"({spent / 3600:.1f} core-hours); "
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
        conv = "; ".join(f"{k} {_conv(v, c.steps)}" for k, v in c.converged.items())
        lines.append(
            f"- {c.budget:,} parameters, {c.steps:,} steps, {c.deep} - L1: "
            f"{fmt_ci(e.effect, e.ci_low, e.ci_high)} bits/char (> 0: depth better; "
            f"{e.n_seeds} seeds x {e.n_files} held-out files, {e.test_windows:,} windows; "
            f"Holm p {e.p_diff_adjusted:.2g}): **{e.verdict}**; {drops}; {conv}."
        )
    lines += tuning_lines(records)
    lines.append(f"- The literature: {LITERATURE}.")
    return lines
