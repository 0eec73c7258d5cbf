"""The claims' verdicts (:func:`claim_verdicts`) and how a cell and a verdict are written."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from rnnlab.evidence import stats
from rnnlab.evidence.analysis.cells import (
    CellComparison,
    base_cell,
    cell_of,
    compare_cells,
    fmt_ci,
    span,
)
from rnnlab.evidence.analysis.design import design_cells, equivalence_cell_verdict
from rnnlab.evidence.analysis.informative import closes_gap, informative
from rnnlab.evidence.analysis.report import scale_of
from rnnlab.experiments.lab import Claim, DesignClaim, Lab
from rnnlab.experiments.store import eval_records


def _select(
    cells: list[CellComparison],
    where: Sequence[tuple[str, object]],
    design: Sequence[dict] | None = None,
) -> list:
    """The cells a claim is judged on. ``"max"``/``"min"`` are resolved over ``design`` (the
    labels of the lab's experiments) when given, so a partial results file cannot move a claim
    onto other cells; otherwise over the cells present."""
    chosen = cells
    for key, value in where:
        pool = design if design is not None else [dict(c.cell) for c in chosen]
        values = [d[key] for d in pool if key in d]
        if not values:
            return []
        target = max(values) if value == "max" else min(values) if value == "min" else value
        chosen = [c for c in chosen if dict(c.cell).get(key) == target]
    return chosen


@dataclass(frozen=True)
class ClaimVerdict:
    """A claim's verdict: its pre-declared cells (Holm-corrected), the combined verdict, and the
    scale (budgets, training lengths, data sizes) it holds at."""

    claim: Claim
    cells: tuple[CellComparison, ...]
    verdict: str
    scale: dict
    plan: str = stats.PLAN_V2.version

    def to_dict(self) -> dict:
        return {
            "claim": asdict(self.claim),
            "verdict": self.verdict,
            "scale": self.scale,
            "plan": self.plan,
            "cells": [c.to_dict() for c in self.cells],
        }


def judged_in(lab: Lab, profile: str, claim: Claim) -> bool:
    """Whether ``profile``'s design of ``lab`` can judge ``claim`` at all: a gap-closure claim
    needs both of its stacks in the design (Lab D's cpu profile, for one, has no dropout or
    projected stacks, so (d3) and (d4) are not judged there; that is not an inconclusive)."""
    if not isinstance(claim, DesignClaim) or claim.test != "gap_closure":
        return True
    stacks = {e.label(claim.label) for e in lab.sweep(profile).experiments}
    return {claim.base, claim.fix} <= stacks


def claim_verdicts(
    lab: Lab, records: Sequence[dict], plan: stats.AnalysisPlan = stats.PLAN_V2
) -> list[ClaimVerdict]:
    """Every claim of ``lab`` judged on ``records`` by the pre-declared plan: paired comparisons
    per cell (:func:`rnnlab.evidence.stats.paired_compare`); cells that cannot show anything
    labelled
    :data:`rnnlab.evidence.stats.NOT_INFORMATIVE` (:func:`informative`); Holm's correction across
    the
    claim's informative cells (:func:`rnnlab.evidence.stats.judge_cells`); and the one combining
    rule,
    :func:`rnnlab.evidence.stats.combine_cells`. Gap-closure cells also say whether the fix
    *closes* the
    gap (:func:`closes_gap`)."""
    from dataclasses import replace

    lab_records = [r for r in records if r["lab"] == lab.name]
    profiles = {r.get("profile") for r in lab_records}
    design = None
    if len(profiles) == 1 and None not in profiles:
        design = [dict(e.labels) for e in lab.experiments(profiles.pop())]
    out = []
    for claim in lab.claims:
        if isinstance(claim, DesignClaim):
            cells = design_cells(claim, lab_records, plan=plan)
        else:
            cells = compare_cells(
                lab_records, wide=lab.wide, deep=lab.deep, claim=claim.direction, plan=plan
            )
        chosen = [
            informative(claim, c, lab_records, plan) for c in _select(cells, claim.where, design)
        ]
        judged = stats.judge_cells([c.comparison for c in chosen], plan)
        chosen = [replace(c, comparison=j) for c, j in zip(chosen, judged, strict=True)]
        test = getattr(claim, "test", None)
        if test == "equivalence":
            chosen = [
                c if c.comparison.verdict == stats.NOT_INFORMATIVE
                else replace(c, comparison=replace(
                    c.comparison, verdict=equivalence_cell_verdict(c.comparison, plan)))
                for c in chosen
            ]  # fmt: skip
        if test == "gap_closure":
            chosen = closes_gap(chosen, plan)
        verdict = stats.combine_cells(
            [c.comparison.verdict for c in chosen], equivalence=test == "equivalence"
        )
        keys = [set(base_cell(c.cell)) for c in chosen]
        scale = scale_of(
            [r for r in eval_records(lab_records) if any(k <= set(cell_of(r)) for k in keys)]
        )
        out.append(ClaimVerdict(claim, tuple(chosen), verdict, scale, plan.version))
    return out


def cell_label(cell: CellComparison) -> str:
    """A cell's verdict in words that follow its test: ``not informative: <reason>``; for a
    gap-closure cell that supports its claim, ``supported (closes the gap)`` only when the fixed
    stack is equivalent to one layer (:func:`closes_gap`), else ``supported (narrows the gap)``."""
    c = cell.comparison
    if c.verdict == stats.NOT_INFORMATIVE:
        return f"{c.verdict}: {c.reason}"
    if c.verdict == "supported" and cell.closes is not None and cell.fix_gap is not None:
        f = cell.fix_gap
        own = f"the fixed stack's L={cell.deep} vs L=1: {fmt_ci(f.effect, f.ci_low, f.ci_high)}"
        return f"supported ({'closes' if cell.closes else 'narrows'} the gap; {own})"
    return c.verdict


def verdict_words(cv: ClaimVerdict) -> str:
    """What a claim's verdict means, in words that follow its test (empty when the bare verdict
    says it): which side is ahead for a depth-vs-width claim; for gap closure, *closes* only
    when every supporting cell's fixed stack is equivalent to one layer, else *narrows*; for the
    memorisation probe, what it measures at its training length."""
    test = getattr(cv.claim, "test", None)
    v = cv.verdict
    if v == stats.NOT_INFORMATIVE:
        return "no cell can show it"
    if test == "gap_closure":
        if v == "contradicted":
            return "the fix widens the gap"
        if v != "supported":
            return ""
        backing = [c for c in cv.cells if c.comparison.verdict == "supported"]
        closed = sum(bool(c.closes) for c in backing)
        if closed == len(backing):
            return "the fix closes the gap: equivalent to one layer wherever it helps"
        return (
            f"the fix narrows the gap; it closes it (the fixed stack equivalent to one layer) in "
            f"{closed or 'none'} of the {len(backing)} cells where it narrows it"
        )
    if test == "equivalence":
        steps = span(cv.scale.get("steps", []))
        return {
            "contradicted": f"deeper plain stacks memorise less in {steps} steps",
            "supported": f"the depths memorise alike in {steps} steps",
        }.get(v, "")
    lean = {
        "supported": cv.claim.direction,
        "contradicted": "depth" if cv.claim.direction == "width" else "width",
    }.get(v)
    return f"{lean} ahead" if lean else ""
