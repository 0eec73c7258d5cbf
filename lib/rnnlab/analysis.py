"""From result records to tables, effects and verdicts.

Everything the lab chapters and the Findings page say about the experiments is computed here,
from the records in a results file (see :mod:`rnnlab.sweep`). A **cell** is one point of a lab's
design with every depth in it: the experiment's labels (task, budget, nesting, training-set
size, ...) without the number of layers. Only reporting runs (role ``eval``) are used; the
test-set score of each seed is one observation.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from rnnlab import stats
from rnnlab.labs import Claim, Lab
from rnnlab.sweep import eval_records


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
        *(float(d.get(k, -1) or -1) for k in ("budget", "nesting", "n_train")),
    )


def cell_name(cell: Sequence[tuple[str, object]]) -> str:
    """A short human-readable name of a cell, e.g. ``majority, budget 8000``."""
    d = dict(cell)
    parts = [str(d.get("task", "?"))]
    for key, fmt in (
        ("budget", "budget {:,}"),
        ("nesting", "nesting {}"),
        ("n_train", "n_train {:,}"),
    ):
        if key in d:
            parts.append(fmt.format(d[key]))
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


def metric_of(records: Iterable[dict]) -> tuple[str, bool]:
    """The (metric, higher_is_better) of a set of records of one task."""
    for r in records:
        return r["metrics"]["metric"], r["metrics"]["higher_is_better"]
    raise ValueError("records must not be empty")


@dataclass(frozen=True)
class CellComparison:
    """One cell's depth-vs-width comparison."""

    cell: tuple
    name: str
    metric: str
    wide: int
    deep: int
    comparison: stats.Comparison

    def to_dict(self) -> dict:
        d = asdict(self)
        d["cell"] = dict(self.cell)
        return d


def compare_cells(
    records: Sequence[dict], *, wide: int, deep: int, claim: str
) -> list[CellComparison]:
    """Compare ``wide`` vs ``deep`` layers in every cell that has both, under ``claim``."""
    evals = eval_records(records)
    by_cell = scores_by_cell(evals)
    out = []
    for cell, by_l in sorted(by_cell.items(), key=lambda kv: cell_sort_key(kv[0])):
        if wide not in by_l or deep not in by_l:
            continue
        in_cell = [r for r in evals if cell_of(r) == cell]
        metric, hib = metric_of(in_cell)
        comp = stats.compare(by_l[wide], by_l[deep], higher_is_better=hib, claim=claim)
        out.append(CellComparison(cell, cell_name(cell), metric, wide, deep, comp))
    return out


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
    """A claim's verdict: its pre-declared cells, each cell's verdict, and the combined one."""

    claim: Claim
    cells: tuple[CellComparison, ...]
    verdict: str

    def to_dict(self) -> dict:
        return {
            "claim": asdict(self.claim),
            "verdict": self.verdict,
            "cells": [c.to_dict() for c in self.cells],
        }


def claim_verdicts(lab: Lab, records: Sequence[dict]) -> list[ClaimVerdict]:
    """Every claim of ``lab`` judged on ``records`` by the pre-declared rule
    (:func:`rnnlab.stats.compare` per cell, :func:`rnnlab.stats.combine_verdicts` over cells)."""
    lab_records = [r for r in records if r["lab"] == lab.name]
    profiles = {r.get("profile") for r in lab_records}
    design = None
    if len(profiles) == 1 and None not in profiles:
        design = [dict(e.labels) for e in lab.experiments(profiles.pop())]
    out = []
    for claim in lab.claims:
        cells = compare_cells(lab_records, wide=lab.wide, deep=lab.deep, claim=claim.direction)
        chosen = tuple(_select(cells, claim.where, design))
        verdict = stats.combine_verdicts([c.comparison.verdict for c in chosen])
        out.append(ClaimVerdict(claim, chosen, verdict))
    return out


def summary_rows(records: Sequence[dict]) -> list[dict]:
    """One row per (cell, depth): width, exact parameters, mean ± std, 95% CI, seeds."""
    rows = []
    evals = eval_records(records)
    for cell, by_l in sorted(scores_by_cell(evals).items(), key=lambda kv: cell_sort_key(kv[0])):
        for depth, values in by_l.items():
            rs = [r for r in evals if cell_of(r) == cell and r["num_layers"] == depth]
            s = stats.summarize(values)
            rows.append(
                {
                    "cell": cell_name(cell),
                    "layers": depth,
                    "hidden_size": rs[0]["model"]["hidden_size"],
                    "params": rs[0]["param_count"],
                    "metric": rs[0]["metrics"]["metric"],
                    "mean": s.mean,
                    "std": s.std,
                    "ci_low": s.ci_low,
                    "ci_high": s.ci_high,
                    "seeds": s.n,
                    "lr": sorted({r["lr"] for r in rs}),
                    "mean_steps": sum(r["metrics"]["steps"] for r in rs) / len(rs),
                }
            )
    return rows


def group_scores(records: Sequence[dict], cell: tuple) -> dict[int, dict[str, list[float]]]:
    """Per-group test scores (e.g. by nesting depth) of a cell.

    Returns ``{layers: {group: [score per seed]}}``.
    """
    out: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in sorted(eval_records(records), key=lambda r: r["seed"]):
        if cell_of(r) == cell:
            for g, v in r["metrics"]["test_by_group"].items():
                out[r["num_layers"]][g].append(v)
    return {k: dict(v) for k, v in out.items()}


def curve_gap(
    records: Sequence[dict], cell: tuple, *, wide: int, deep: int, key: str = "val"
) -> list[dict]:
    """The depth-minus-width gap along training (positive = depth better), per evaluation step.

    Uses the learning curves of the eval runs: at each step that every seed of both depths
    reached, the Welch difference of the validation metric with its 95% interval.
    """
    evals = [r for r in eval_records(records) if cell_of(r) == cell]
    if not evals:
        return []
    hib = evals[0]["metrics"]["higher_is_better"]
    curves: dict[int, list[dict[int, float]]] = defaultdict(list)
    for r in evals:
        curves[r["num_layers"]].append({p["step"]: p[key] for p in r["curves"]})
    if wide not in curves or deep not in curves:
        return []
    common = set.intersection(*(set(c) for c in curves[wide] + curves[deep]))
    out = []
    for step in sorted(common):
        a = [c[step] for c in curves[wide]]
        b = [c[step] for c in curves[deep]]
        comp = stats.compare(a, b, higher_is_better=hib, claim="depth")
        out.append(
            {
                "step": step,
                "gap": comp.effect,
                "ci_low": comp.ci_low,
                "ci_high": comp.ci_high,
                "wide_mean": comp.wide.mean,
                "deep_mean": comp.deep.mean,
            }
        )
    return out


def provenance(records: Sequence[dict]) -> dict:
    """What produced a results file: profile, devices, versions, commits, dates, wall time."""
    evals = list(records)
    if not evals:
        return {}
    return {
        "lab": sorted({r["lab"] for r in evals}),
        "profile": sorted({r["profile"] for r in evals}),
        "devices": sorted({f"{r['device']} ({r['device_name']})" for r in evals}),
        "torch": sorted({r["versions"]["torch"] for r in evals}),
        "python": sorted({r["versions"]["python"] for r in evals}),
        "git_commit": sorted({r["git_commit"] for r in evals}),
        "first_run": min(r["started_at"] for r in evals),
        "last_run": max(r["started_at"] for r in evals),
        "runs": len(evals),
        "eval_runs": len(eval_records(evals)),
        "seeds": sorted({r["seed"] for r in eval_records(evals)}),
        "total_wall_time_s": sum(r["wall_time_s"] for r in evals),
    }


def format_provenance(prov: dict) -> str:
    """One sentence naming where a figure's numbers come from."""
    if not prov:
        return "no results"
    return (
        f"{'/'.join(prov['lab'])}, profile {'/'.join(prov['profile'])}, "
        f"{len(prov['seeds'])} seeds {prov['seeds']}, {prov['eval_runs']} reported runs "
        f"(+{prov['runs'] - prov['eval_runs']} tuning), on {'; '.join(prov['devices'])}, "
        f"torch {'/'.join(prov['torch'])}, "
        f"run {prov['first_run'][:10]} to {prov['last_run'][:10]}, "
        f"{prov['total_wall_time_s'] / 60:.1f} min of compute, "
        f"commit {', '.join(c[:10] for c in prov['git_commit'])}"
    )


def fmt_ci(effect: float, low: float, high: float, digits: int = 3) -> str:
    """``+0.012 [−0.004, +0.028]``."""
    if any(math.isnan(v) for v in (low, high)):
        return f"{effect:+.{digits}f} [n/a]"
    return f"{effect:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"
