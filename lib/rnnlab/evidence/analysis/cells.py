"""Cells and their paired comparisons: what a record's cell is, its scores by seed, depth
against width in one cell (:func:`compare_cells`), and how effects are written."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from rnnlab.core.text import fmt_signed
from rnnlab.evidence import stats
from rnnlab.experiments.store import eval_records

METRIC_NAMES = {
    "accuracy": "test accuracy",
    "sequence_accuracy": "test sequence accuracy",
    "bits_per_char": "test bits per character",
}
"""Metric names in words, for tables and prose."""


def metric_words(metric: str) -> str:
    """``bits_per_char`` -> ``test bits per character`` (unknown names are returned as is)."""
    return METRIC_NAMES.get(metric, metric)


def cell_of(record: dict) -> tuple[tuple[str, object], ...]:
    """The cell a record belongs to: its experiment's labels plus the matched budget."""
    labels = dict(record["experiment"]["labels"])
    labels["budget"] = record["budget"]
    return tuple(sorted(labels.items()))


def cell_sort_key(cell: Sequence[tuple[str, object]]) -> tuple:
    """Order cells by task, then numerically by budget, nesting and training-set size."""
    d = dict(cell)
    return (
        str(d.get("task", "")),
        str(d.get("corpus", "")),
        str(d.get("split", "")),
        *(float(d.get(k, -1) or -1) for k in ("budget", "nesting", "n_train")),
    )


def cell_name(cell: Sequence[tuple[str, object]]) -> str:
    """A short human-readable name of a cell, e.g. ``majority, budget 8,000``."""
    d = dict(cell)
    parts = [str(d.get("task", "?"))]
    for key, fmt in (
        ("budget", "budget {:,}"),
        ("steps", "{:,} steps"),  # the scale map: one cell per training length
        ("nesting", "nesting {}"),
        ("n_train", "n_train {:,}"),
    ):
        if key in d:
            parts.append(fmt.format(d[key]))
    if d.get("split") == "deeper test":
        parts.append("tested deeper")
    if "stack" in d:  # Lab D: the stack variant
        parts.append(f"{d['stack']} stack")
    return ", ".join(parts)


def scores_by_cell(records: Iterable[dict]) -> dict[tuple, dict[int, list[float]]]:
    """``{cell: {num_layers: [test score per seed, in seed order]}}`` from the eval runs."""
    out: dict[tuple, dict[int, list[tuple[int, float]]]] = defaultdict(lambda: defaultdict(list))
    for r in eval_records(records):
        out[cell_of(r)][r["num_layers"]].append((r["seed"], r["metrics"]["test"]))
    return {
        c: {L: [v for _, v in sorted(vals)] for L, vals in sorted(by_l.items())}
        for c, by_l in out.items()
    }


def paired_scores(
    records: Iterable[dict], cell: tuple, wide: int, deep: int
) -> tuple[list[int], list[float], list[float]]:
    """The seeds that ran both depths in ``cell``, with each depth's test score per seed."""
    by: dict[int, dict[int, float]] = defaultdict(dict)
    for r in eval_records(records):
        if cell_of(r) == cell and r["num_layers"] in (wide, deep):
            by[r["num_layers"]][r["seed"]] = r["metrics"]["test"]
    seeds = sorted(set(by[wide]) & set(by[deep]))
    return seeds, [by[wide][s] for s in seeds], [by[deep][s] for s in seeds]


def metric_of(records: Iterable[dict]) -> tuple[str, bool]:
    """The (metric, higher_is_better) of a set of records of one task."""
    for r in records:
        return r["metrics"]["metric"], r["metrics"]["higher_is_better"]
    raise ValueError("records must not be empty")


@dataclass(frozen=True)
class CellComparison:
    """One cell's paired depth-vs-width comparison (see
    :class:`rnnlab.evidence.stats.PairedComparison`)."""

    cell: tuple
    name: str
    metric: str
    wide: int
    deep: int
    comparison: stats.PairedComparison
    n_test: int
    seeds: tuple[int, ...]
    fit: stats.CellFit | None = None  # what the cell's models reached (set by claim_verdicts)
    fix_gap: stats.PairedComparison | None = None  # gap closure: the fixed stack, L vs L=1
    closes: bool | None = None  # gap closure: the fixed stack is equivalent to one layer

    def to_dict(self) -> dict:
        d = asdict(self)
        d["cell"] = dict(self.cell)
        return d


def compare_cells(
    records: Sequence[dict],
    *,
    wide: int,
    deep: int,
    claim: str,
    plan: stats.AnalysisPlan = stats.PLAN_V2,
) -> list[CellComparison]:
    """Compare ``wide`` vs ``deep`` layers, paired by seed, in every cell that has both.

    The verdicts here are *per cell, uncorrected*; :func:`claim_verdicts` applies Holm's
    correction across a claim's cells."""
    evals = eval_records(records)
    out = []
    for cell in sorted({cell_of(r) for r in evals}, key=cell_sort_key):
        seeds, a, b = paired_scores(evals, cell, wide, deep)
        if not seeds:
            continue
        in_cell = [r for r in evals if cell_of(r) == cell]
        metric, hib = metric_of(in_cell)
        comp = stats.paired_compare(
            a, b, higher_is_better=hib, claim=claim, margin=plan.margin(metric), plan=plan
        )
        comp = stats.judge_cells([comp], plan)[0]
        n_test = int(in_cell[0]["experiment"].get("n_test", 0))
        out.append(
            CellComparison(cell, cell_name(cell), metric, wide, deep, comp, n_test, tuple(seeds))
        )
    return out


def span(values: Iterable[float], fmt: str = "{:,}") -> str:
    vs = sorted(set(values))
    if not vs:
        return "n/a"
    return fmt.format(vs[0]) if len(vs) == 1 else f"{fmt.format(vs[0])}-{fmt.format(vs[-1])}"


def fmt_ci(effect: float, low: float, high: float, digits: int = 3) -> str:
    """``+0.012 [−0.004, +0.028]``; each value printed by :func:`fmt_signed`.

    >>> fmt_ci(-0.0001, -0.04, 0.04)
    '+0.000 [-0.040, +0.040]'
    """
    if any(math.isnan(v) for v in (low, high)):
        return f"{fmt_signed(effect, digits)} [n/a]"
    e, lo, hi = (fmt_signed(v, digits) for v in (effect, low, high))
    return f"{e} [{lo}, {hi}]"


def base_cell(cell: tuple) -> tuple:
    """A design cell without the keys :func:`design_cells` adds (``layers``, the stack label):
    the :func:`cell_of` of its records, or close to it."""
    return tuple((k, v) for k, v in cell if k not in ("layers", "stacks"))
