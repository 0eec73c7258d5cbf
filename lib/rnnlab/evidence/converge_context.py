"""The convergence experiment beside the other evidence: the scale map and the literature.

:mod:`rnnlab.evidence.converge_report` states the experiment's own comparisons; this module sets
them beside what else measures the same thing. The scale map (:mod:`rnnlab.evidence.scalemap`)
measured two layers against one at the same budgets with shorter training and a fixed test tail
(:func:`two_layer_leads`, :func:`map_lines`); Karpathy, Johnson & Fei-Fei (2015) trained to
convergence within a stated range of budgets (:func:`literature_line`). The words follow the
tests: only a decided verdict agrees or disagrees with the literature, and a model that has not
converged by the declared rule is said to have not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rnnlab.evidence.analysis import fmt_ci
from rnnlab.evidence.converge_results import CellResult, answers_budget, results
from rnnlab.experiments import converge

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
