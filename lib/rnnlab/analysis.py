"""From result records to tables, effects and verdicts.

Everything the lab chapters and the Findings page say about the experiments is computed here,
from the records in a results file (see :mod:`rnnlab.sweep`). A **cell** is one point of a lab's
design with every depth in it: the experiment's labels (task, budget, nesting, training-set
size, ...) without the number of layers. Only reporting runs (role ``eval``) are used; the
test-set score of each seed is one observation.

The analysis follows :data:`rnnlab.stats.PLAN_V2`, declared before the version-2 runs: the two
depths are compared seed by seed (paired), each cell gets one of four verdicts against the
metric's smallest effect of interest, with Holm's correction across the cells of a claim, and a
claim's verdict always comes with the *scale* it was measured at (:func:`scale_of`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from rnnlab import stats
from rnnlab.labs import Claim, DesignClaim, Lab
from rnnlab.sweep import eval_records

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
    """One cell's paired depth-vs-width comparison (see :class:`rnnlab.stats.PairedComparison`)."""

    cell: tuple
    name: str
    metric: str
    wide: int
    deep: int
    comparison: stats.PairedComparison
    n_test: int
    seeds: tuple[int, ...]

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
    per cell (:func:`rnnlab.stats.paired_compare`), Holm's correction across the claim's cells
    (:func:`rnnlab.stats.judge_cells`), and :func:`rnnlab.stats.combine_verdicts_v2`."""
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
        chosen = _select(cells, claim.where, design)
        judged = stats.judge_cells([c.comparison for c in chosen], plan)
        chosen = tuple(replace(c, comparison=j) for c, j in zip(chosen, judged, strict=True))
        verdict = stats.combine_verdicts_v2([c.comparison.verdict for c in chosen])
        if isinstance(claim, DesignClaim) and claim.test == "equivalence":
            chosen = tuple(
                replace(c, comparison=replace(c.comparison, verdict=equivalence_cell_verdict(
                    c.comparison, plan, floor=claim.floor)))
                for c in chosen
            )  # fmt: skip
            verdict = equivalence_verdict([c.comparison.verdict for c in chosen])
        keys = [set(_base_cell(c.cell)) for c in chosen]
        scale = scale_of(
            [r for r in eval_records(lab_records) if any(k <= set(cell_of(r)) for k in keys)]
        )
        out.append(ClaimVerdict(claim, chosen, verdict, scale, plan.version))
    return out


def _span(values: Iterable[float], fmt: str = "{:,}") -> str:
    vs = sorted(set(values))
    if not vs:
        return "n/a"
    return fmt.format(vs[0]) if len(vs) == 1 else f"{fmt.format(vs[0])}-{fmt.format(vs[-1])}"


def scale_of(records: Sequence[dict]) -> dict:
    """The scale a set of runs was measured at: parameter budgets, training steps, training-set
    sizes (examples, or characters for the language models), seeds, and a one-line summary."""
    if not records:
        return {"text": "no runs"}
    budgets = [r["budget"] for r in records]
    steps = [
        r["experiment"].get("train", {}).get("max_steps", r["metrics"]["steps"]) for r in records
    ]
    lm = [r for r in records if r["metrics"]["metric"] == "bits_per_char"]
    other = [r for r in records if r["metrics"]["metric"] != "bits_per_char"]
    data = []
    if other:
        sizes = (r["experiment"].get("n_train", 0) for r in other)
        data.append(f"{_span(sizes)} training examples")
    if lm:
        chars = [
            r["experiment"].get("n_train", 0) * r.get("task_info", {}).get("seq_len", 1) for r in lm
        ]
        data.append(f"{_span(round(c / 1e3) for c in chars)}K training characters")
    seeds = sorted({r["seed"] for r in records})
    text = (
        f"{_span(budgets)} parameters, {_span(steps)} steps, {' and '.join(data)}, "
        f"{len(seeds)} seeds"
    )
    return {
        "budgets": sorted(set(budgets)),
        "steps": sorted(set(steps)),
        "data": data,
        "seeds": seeds,
        "text": text,
    }


def convergence(records: Sequence[dict], plan: stats.AnalysisPlan = stats.PLAN_V2) -> list[dict]:
    """Did the reporting runs converge? Per (cell, depth): the mean change of the validation
    metric over the last quarter of training (oriented: positive = still improving), compared
    with the metric's smallest effect of interest.

    ``converged`` is true when the mean last-quarter improvement is below the margin: more
    training at the same schedule would not be expected to move the score by an effect the lab
    cares about. It is a heuristic a reader can check, not a proof.
    """
    rows = []
    evals = eval_records(records)
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in evals:
        groups[(cell_of(r), r["num_layers"])].append(r)
    for (cell, depth), rs in sorted(
        groups.items(), key=lambda kv: (cell_sort_key(kv[0][0]), kv[0][1])
    ):
        hib = rs[0]["metrics"]["higher_is_better"]
        metric = rs[0]["metrics"]["metric"]
        gains = []
        for r in rs:
            curve = [p for p in r["curves"] if p["val"] == p["val"]]
            if len(curve) < 4:
                continue
            q = curve[int(len(curve) * 0.75) - 1]["val"]
            end = curve[-1]["val"]
            gains.append((end - q) if hib else (q - end))
        gain = sum(gains) / len(gains) if gains else math.nan
        margin = plan.margin(metric)
        rows.append(
            {
                "cell": cell_name(cell),
                "layers": depth,
                "metric": metric,
                "last_quarter_gain": gain,
                "margin": margin,
                "converged": bool(gain == gain and gain < margin),
                "runs": len(rs),
                "best_at_end": sum(r["metrics"]["best_step"] == r["metrics"]["steps"] for r in rs),
            }
        )
    return rows


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

    Uses the learning curves of the eval runs: at each step that every paired seed reached, the
    paired mean difference of the validation metric with its 95% interval (seeds only: the
    validation sample is fixed within a seed)."""
    evals = [r for r in eval_records(records) if cell_of(r) == cell]
    if not evals:
        return []
    hib = evals[0]["metrics"]["higher_is_better"]
    metric = evals[0]["metrics"]["metric"]
    curves: dict[int, dict[int, dict[int, float]]] = defaultdict(dict)
    for r in evals:
        curves[r["num_layers"]][r["seed"]] = {p["step"]: p[key] for p in r["curves"]}
    seeds = sorted(set(curves.get(wide, {})) & set(curves.get(deep, {})))
    if not seeds:
        return []
    all_curves = [curves[L][s] for L in (wide, deep) for s in seeds]
    common = set.intersection(*(set(c) for c in all_curves))
    out = []
    for step in sorted(common):
        a = [curves[wide][s][step] for s in seeds]
        b = [curves[deep][s][step] for s in seeds]
        comp = stats.paired_compare(
            a, b, higher_is_better=hib, claim="depth", margin=stats.PLAN_V2.margin(metric)
        )
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
    commits = dict.fromkeys(  # shortened, keeping the mark of uncommitted changes
        c[:10] + ("+dirty" if c.endswith("+dirty") else "") for c in prov["git_commit"]
    )
    minutes = prov["total_wall_time_s"] / 60
    compute = f"{minutes:.1f} min" if minutes < 120 else f"{minutes / 60:.1f} h"
    return (
        f"{'/'.join(prov['lab'])}, profile {'/'.join(prov['profile'])}, "
        f"{len(prov['seeds'])} seeds {prov['seeds']}, {prov['eval_runs']} reported runs "
        f"(+{prov['runs'] - prov['eval_runs']} tuning), on {'; '.join(prov['devices'])}, "
        f"torch {'/'.join(prov['torch'])}, "
        f"run {prov['first_run'][:10]} to {prov['last_run'][:10]}, "
        f"{compute} of compute, commit {', '.join(commits)}"
    )


def fmt_ci(effect: float, low: float, high: float, digits: int = 3) -> str:
    """``+0.012 [−0.004, +0.028]``; a value that rounds to zero prints as ``+0.000``, never
    ``-0.000``.

    >>> fmt_ci(-0.0001, -0.04, 0.04)
    '+0.000 [-0.040, +0.040]'
    """
    effect, low, high = (round(v, digits) + 0.0 for v in (effect, low, high))
    if any(math.isnan(v) for v in (low, high)):
        return f"{effect:+.{digits}f} [n/a]"
    return f"{effect:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"


# ----------------------------------------------------------------------------- Lab D


def _base_cell(cell: tuple) -> tuple:
    """A design cell without the keys :func:`design_cells` adds (``layers``, the stack label):
    the :func:`cell_of` of its records, or close to it."""
    return tuple((k, v) for k, v in cell if k not in ("layers", "stacks"))


def bits_per_parameter_of(record: dict) -> float:
    """Bits stored per parameter by one memorize run: :func:`rnnlab.tasks.capacity.
    bits_per_parameter` of its test accuracy (the test set is the training set) over its
    ``n_test`` examples."""
    from rnnlab.tasks.capacity import bits_per_parameter

    return bits_per_parameter(
        float(record["metrics"]["test"]),
        int(record["experiment"]["n_test"]),
        int(record["task_info"]["num_classes"]),
        int(record["param_count"]),
    )


def equivalence_cell_verdict(
    comp: stats.PairedComparison,
    plan: stats.AnalysisPlan = stats.PLAN_V2,
    *,
    floor: float | None = None,
) -> str:
    r"""A cell of an equivalence claim (two one-sided tests against the declared margin, Holm
    adjusted across the claim's cells): *equivalent* when the adjusted ``p_equiv < alpha / 2``
    (the interval lies inside :math:`\pm` margin), *contradicted* when the interval lies wholly
    outside it (a difference larger than the margin, either way), *inconclusive* otherwise. A
    statistically significant difference smaller than the margin is still *equivalent*: the
    claim is about the size of the difference, not its sign. With a ``floor``, a cell whose two
    means both lie below it is *inconclusive* whatever the interval (a floor effect)."""
    if floor is not None and max(comp.wide.mean, comp.deep.mean) < floor:
        return "inconclusive"
    pe = comp.p_equiv_adjusted
    if pe == pe and pe < plan.alpha / 2:
        return "equivalent"
    lo, hi, m = comp.ci_low, comp.ci_high, comp.margin
    if lo == lo and hi == hi and lo != hi and (lo > m or hi < -m):
        return "contradicted"
    return "inconclusive"


def equivalence_verdict(cell_verdicts: Sequence[str]) -> str:
    """The verdict of an equivalence claim (d2) from its cells' verdicts
    (:func:`equivalence_cell_verdict`): *supported* when at least half the cells are
    *equivalent* and none is *contradicted*, *contradicted* when any cell is (the claim is that
    no depth differs by more than the margin), and *inconclusive* otherwise."""
    vs = list(cell_verdicts)
    if not vs:
        return "inconclusive"
    if any(v == "contradicted" for v in vs):
        return "contradicted"
    if sum(v == "equivalent" for v in vs) * 2 >= len(vs):
        return "supported"
    return "inconclusive"


def _gap(runs: dict[int, dict[int, dict]], depth: int, seed: int) -> float:
    """Test score at ``depth`` minus at one layer, for one seed (not yet oriented)."""
    return runs[depth][seed]["metrics"]["test"] - runs[1][seed]["metrics"]["test"]


def design_cells(
    claim: DesignClaim, records: Sequence[dict], plan: stats.AnalysisPlan = stats.PLAN_V2
) -> list[CellComparison]:
    r"""The per-cell comparisons of a Lab D claim (uncorrected; :func:`claim_verdicts` applies
    Holm's correction), one per (cell, depth > 1):

    * ``"gap_closure"``: for each seed :math:`s`, with :math:`x` the test score oriented so that
      higher is better, :math:`d_s = (x^{\text{fix}}_{L,s} - x^{\text{fix}}_{1,s}) -
      (x^{\text{base}}_{L,s} - x^{\text{base}}_{1,s})`: positive when the fixed stack's gap to
      one layer is smaller than the plain stack's. ``wide`` of the comparison holds the base
      gaps, ``deep`` the fixed ones; the margin is the metric's.
    * ``"equivalence"``: bits stored per parameter (:func:`bits_per_parameter_of`) of depth
      :math:`L` against one layer, paired by seed, margin ``claim.margin``; positive when the
      deeper stack stores more.

    The cell is the records' :func:`cell_of` (without the stack label for gap closure) plus
    ``("layers", L)``.
    """
    evals = eval_records(records)
    out: list[CellComparison] = []
    if claim.test == "gap_closure":
        groups: dict[tuple, dict[str, dict[int, dict[int, float]]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(dict))
        )
        for r in evals:
            cell = dict(cell_of(r))
            stack = cell.pop(claim.label, None)
            if stack not in (claim.base, claim.fix):
                continue
            groups[tuple(sorted(cell.items()))][stack][r["num_layers"]][r["seed"]] = r
        for base_cell in sorted(groups, key=cell_sort_key):
            by = groups[base_cell]
            base, fix = by.get(claim.base, {}), by.get(claim.fix, {})
            depths = sorted(set(base) & set(fix) - {1})
            if 1 not in base or 1 not in fix:
                continue
            for depth in depths:
                seeds = sorted(set(base[1]) & set(fix[1]) & set(base[depth]) & set(fix[depth]))
                if not seeds:
                    continue
                first = base[1][seeds[0]]["metrics"]
                metric, hib = first["metric"], first["higher_is_better"]

                comp = stats.paired_compare(
                    [_gap(base, depth, s) for s in seeds],
                    [_gap(fix, depth, s) for s in seeds],
                    higher_is_better=hib,
                    claim=claim.direction,
                    margin=plan.margin(metric),
                    plan=plan,
                )
                comp = stats.judge_cells([comp], plan)[0]
                cell = (*base_cell, ("layers", depth), ("stacks", f"{claim.fix} vs {claim.base}"))
                n_test = int(base[1][seeds[0]]["experiment"].get("n_test", 0))
                name = f"{cell_name(base_cell)}, L={depth} vs L=1"
                out.append(CellComparison(cell, name, metric, 1, depth, comp, n_test, tuple(seeds)))
        return out
    if claim.test == "equivalence":
        if not (claim.margin and claim.margin > 0):
            raise ValueError(f"margin must be > 0 for an equivalence claim, got {claim.margin!r}")
        by_cell: dict[tuple, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
        for r in evals:
            if r["task"] == "memorize":
                by_cell[cell_of(r)][r["num_layers"]][r["seed"]] = bits_per_parameter_of(r)
        for cell in sorted(by_cell, key=cell_sort_key):
            by_l = by_cell[cell]
            for depth in sorted(set(by_l) - {1}):
                seeds = sorted(set(by_l.get(1, {})) & set(by_l[depth]))
                if not seeds:
                    continue
                comp = stats.paired_compare(
                    [by_l[1][s] for s in seeds],
                    [by_l[depth][s] for s in seeds],
                    higher_is_better=True,
                    claim="depth",
                    margin=claim.margin,
                    plan=plan,
                )
                comp = stats.judge_cells([comp], plan)[0]
                n_test = next(int(r["experiment"]["n_test"]) for r in evals if cell_of(r) == cell)
                out.append(
                    CellComparison(
                        (*cell, ("layers", depth)),
                        f"{cell_name(cell)}, L={depth} vs L=1",
                        claim.metric or "bits_per_parameter",
                        1,
                        depth,
                        comp,
                        n_test,
                        tuple(seeds),
                    )
                )
        return out
    raise ValueError(f"test must be one of 'gap_closure', 'equivalence', got {claim.test!r}")
