"""From result records to tables, effects and verdicts.

Everything the lab chapters and the Findings page say about the experiments is computed here,
from the records in a results file (see :mod:`rnnlab.experiments.sweep`). A **cell** is one point
of a lab's
design with every depth in it: the experiment's labels (task, budget, nesting, training-set
size, ...) without the number of layers. Only reporting runs (role ``eval``) are used; the
test-set score of each seed is one observation.

The analysis follows :data:`rnnlab.evidence.stats.PLAN_V2`, declared before the version-2 runs: the
two
depths are compared seed by seed (paired), each cell gets one of four verdicts against the
metric's smallest effect of interest, with Holm's correction across the cells of a claim, and a
claim's verdict always comes with the *scale* it was measured at (:func:`scale_of`). A cell that
cannot show anything (a model failed to train, the cell sits at floor or ceiling, a model is far
from convergence) gets a fifth label instead, *not informative* (:func:`informative`), and the
chance and ceiling of its metric are computed from the task itself (:func:`baseline_of`).
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from rnnlab.evidence import stats
from rnnlab.experiments.labs import Claim, DesignClaim, Lab
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
        keys = [set(_base_cell(c.cell)) for c in chosen]
        scale = scale_of(
            [r for r in eval_records(lab_records) if any(k <= set(cell_of(r)) for k in keys)]
        )
        out.append(ClaimVerdict(claim, tuple(chosen), verdict, scale, plan.version))
    return out


# ----------------------------------------------------------------------------- what a cell can show


@dataclass(frozen=True)
class Baseline:
    """What a model scores on a test set without looking at its input, and the best score the
    metric allows.

    Attributes:
        chance: the best input-blind test score: the majority class's share of the test set
            (accuracy), the share of test sequences that the majority tag gets wholly right
            (sequence accuracy), or the cross-entropy of the test characters under the training
            set's character frequencies, add-one smoothed (bits per character). NaN: unknown.
        ceiling: 1 for accuracies, ``None`` for bits per character (no known ceiling).
        name: what ``chance`` is, in words.
    """

    chance: float
    ceiling: float | None
    name: str


@functools.lru_cache(maxsize=64)
def _task_baseline(
    task: str, options: str, n_train: int, n_val: int, n_test: int, seed: int
) -> tuple[float, str]:
    import json

    import torch

    from rnnlab.core.tasks import make_task

    data = make_task(
        task, n_train=n_train, n_val=n_val, n_test=n_test, seed=seed, **json.loads(options)
    )
    if data.kind == "lm":
        counts = torch.bincount(data.y_train.flatten(), minlength=data.num_classes).double() + 1
        p = counts / counts.sum()
        return float(-torch.log2(p[data.y_test.flatten()]).mean()), "unigram model"
    if data.kind == "classify":
        freq = torch.bincount(data.y_test, minlength=data.num_classes).double()
        return float(freq.max() / freq.sum()), "majority class"
    scored = data.y_test != -100
    tag = int(torch.bincount(data.y_test[scored]).argmax())
    whole = ((data.y_test == tag) | ~scored).all(dim=1).double().mean()
    return float(whole), "majority tag"


def baseline_of(record: dict) -> Baseline:
    """The :class:`Baseline` of a record's test set, computed from the task itself: the task is
    regenerated (offline, deterministically) from the record's experiment and data seed. For
    generators whose splits partition the example space the test split depends only on its own
    size, so only the test split is drawn. A record without its experiment's task options (e.g.
    a synthetic one) falls back to one over the number of classes, or to an unknown chance."""
    import json

    metric = record["metrics"]["metric"]
    ceiling = None if metric == "bits_per_char" else 1.0
    e = record.get("experiment", {})
    if "task_options" in e and "data_seed" in e:
        partition = record.get("task_info", {}).get("split_rule") == "partition"
        lm = metric == "bits_per_char"
        chance, name = _task_baseline(
            e.get("task", record.get("task")),
            json.dumps(e["task_options"], sort_keys=True),
            e["n_train"] if lm or not partition else 1,
            e["n_val"] if lm or not partition else 0,
            e["n_test"],
            e["data_seed"] + record["seed"],
        )
        return Baseline(chance, ceiling, name)
    classes = record.get("task_info", {}).get("num_classes")
    if metric == "accuracy" and classes:
        return Baseline(1.0 / classes, ceiling, "chance")
    return Baseline(math.nan, ceiling, "chance")


def _median(values: list[float]) -> float:
    vs = sorted(v for v in values if v == v)
    if not vs:
        return math.nan
    mid = len(vs) // 2
    return vs[mid] if len(vs) % 2 else (vs[mid - 1] + vs[mid]) / 2


def last_quarter_share(record: dict) -> float:
    """The share of a run's validation improvement (first evaluation to last, oriented so that
    > 0 is better) made in the last quarter of its training steps, the value at 3/4 of the
    steps interpolated linearly between evaluations. A curve still going straight gives at
    least a quarter (exactly a quarter if it started at step 0), one that has flattened gives
    less; 0 when the curve did not improve; NaN when the record holds fewer than four
    evaluations."""
    points = [(p["step"], p["val"]) for p in record.get("curves", []) if p["val"] == p["val"]]
    if len(points) < 4:
        return math.nan
    sign = 1.0 if record["metrics"]["higher_is_better"] else -1.0
    at = 0.75 * points[-1][0]
    q = points[0][1]
    for (s0, v0), (s1, v1) in zip(points, points[1:], strict=False):
        if s0 <= at <= s1:
            q = v0 + (v1 - v0) * (at - s0) / (s1 - s0) if s1 > s0 else v1
            break
    total = sign * (points[-1][1] - points[0][1])
    last = sign * (points[-1][1] - q)
    return last / total if total > 0 else 0.0


def model_fit(label: str, runs: Sequence[dict]) -> stats.ModelFit:
    """A :class:`rnnlab.evidence.stats.ModelFit` from the eval runs of one model (one per seed)."""
    best = [
        r["metrics"]["best_step"] / r["metrics"]["steps"]
        for r in runs
        if r["metrics"].get("best_step") is not None and r["metrics"].get("steps")
    ]
    return stats.ModelFit(
        label,
        sum(float(r["metrics"]["test"]) for r in runs) / len(runs),
        _median(best),
        _median([last_quarter_share(r) for r in runs]),
    )


def _models_of(
    claim: Claim, cell: CellComparison, records: Sequence[dict]
) -> tuple[dict[str, list[dict]], list[dict]]:
    """The eval runs of each model a cell's comparison uses, and of its whole family (every
    depth and stack of the same task, budget and data)."""
    evals = eval_records(records)
    base = set(_base_cell(cell.cell))
    test = getattr(claim, "test", None)
    if test == "gap_closure":
        label = claim.label

        def key(r: dict) -> set:
            return {(k, v) for k, v in cell_of(r) if k != label}

        family = [r for r in evals if key(r) == base]
        wanted = [(s, L) for s in (claim.base, claim.fix) for L in (cell.wide, cell.deep)]
        models = {
            f"{s} L={L}": [
                r for r in family
                if dict(cell_of(r)).get(label) == s and r["num_layers"] == L
            ]
            for s, L in wanted
        }  # fmt: skip
    else:
        family = [r for r in evals if set(cell_of(r)) == base]
        models = {
            f"L={L}": [r for r in family if r["num_layers"] == L] for L in (cell.wide, cell.deep)
        }
    return {k: v for k, v in models.items() if v}, family


def informative(
    claim: Claim,
    cell: CellComparison,
    records: Sequence[dict],
    plan: stats.AnalysisPlan = stats.PLAN_V2,
) -> CellComparison:
    """``cell`` with its :class:`rnnlab.evidence.stats.CellFit`, and labelled
    :data:`rnnlab.evidence.stats.NOT_INFORMATIVE` (with the reason) when
    :func:`rnnlab.evidence.stats.not_informative_reason` finds one, or, for a claim with a declared
    ``floor`` (in the compared metric's units), when both compared means lie below it. The
    baseline is that of the cell's first seed's test sample (:func:`baseline_of`); other seeds'
    samples differ from it by sampling noise only."""
    from dataclasses import replace

    models, family = _models_of(claim, cell, records)
    if not models:
        return cell
    first = family[0]
    metric, hib = first["metrics"]["metric"], first["metrics"]["higher_is_better"]
    base = baseline_of(min(family, key=lambda r: r["seed"]))
    means = {}
    for r in family:
        means.setdefault((cell_of(r), r["num_layers"]), []).append(float(r["metrics"]["test"]))
    avg = [sum(v) / len(v) for v in means.values()]
    fit = stats.CellFit(
        models=tuple(model_fit(k, v) for k, v in models.items()),
        higher_is_better=hib,
        chance=base.chance,
        ceiling=base.ceiling,
        best=max(avg) if hib else min(avg),
        margin=plan.margin(metric),
        baseline=base.name,
    )
    reason = stats.not_informative_reason(fit)
    floor = getattr(claim, "floor", None)
    comp = cell.comparison
    if floor is not None and max(comp.wide.mean, comp.deep.mean) < floor:
        unit = cell.metric.replace("_per_", "/").replace("_", " ")
        below = f"at floor (both depths under the declared floor of {floor:g} {unit})"
        reason = "; ".join(x for x in (below, reason) if x)
    if reason:
        comp = replace(
            comp,
            verdict=stats.NOT_INFORMATIVE,
            reason=reason,
            p_diff_adjusted=math.nan,
            p_equiv_adjusted=math.nan,
            seeds_for_power=None,
        )
    return replace(cell, comparison=comp, fit=fit)


def closes_gap(
    cells: Sequence[CellComparison], plan: stats.AnalysisPlan = stats.PLAN_V2
) -> list[CellComparison]:
    """Whether a gap-closure cell's fix **closes** the gap, not only narrows it: the fixed stack
    at depth L must be *equivalent* to its own one-layer model (two one-sided tests against the
    metric's margin, Holm-adjusted across the claim's informative cells: the 95% interval of
    its L-minus-L=1 difference lies inside plus or minus the margin). A supported cell whose
    fixed stack is not equivalent to one layer only *narrows* the gap."""
    from dataclasses import replace

    idx = [
        i for i, c in enumerate(cells)
        if c.fix_gap is not None and c.comparison.verdict != stats.NOT_INFORMATIVE
    ]  # fmt: skip
    adjusted = stats.holm([cells[i].fix_gap.p_equiv for i in idx])
    out = list(cells)
    for i, pe in zip(idx, adjusted, strict=True):
        equivalent = bool(pe == pe and pe < plan.alpha / 2)
        fix_gap = replace(cells[i].fix_gap, p_equiv_adjusted=pe)
        out[i] = replace(cells[i], fix_gap=fix_gap, closes=equivalent)
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
        steps = _span(cv.scale.get("steps", []))
        return {
            "contradicted": f"deeper plain stacks memorise less in {steps} steps",
            "supported": f"the depths memorise alike in {steps} steps",
        }.get(v, "")
    lean = {
        "supported": cv.claim.direction,
        "contradicted": "depth" if cv.claim.direction == "width" else "width",
    }.get(v)
    return f"{lean} ahead" if lean else ""


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
    """Bits stored per parameter by one memorize run: :func:`rnnlab.core.tasks.capacity.
    bits_per_parameter` of its test accuracy (the test set is the training set) over its
    ``n_test`` examples."""
    from rnnlab.core.tasks.capacity import bits_per_parameter

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
    (:func:`equivalence_cell_verdict`): the one combining rule,
    :func:`rnnlab.evidence.stats.combine_cells` with ``equivalence=True`` (an *equivalent* cell
    backs the
    claim, a *contradicted* one goes against it; not-informative cells are set aside)."""
    return stats.combine_cells(cell_verdicts, equivalence=True)


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
      gaps, ``deep`` the fixed ones; the margin is the metric's. ``fix_gap`` holds the fixed
      stack's own comparison of depth :math:`L` with one layer, which decides whether the fix
      *closes* the gap or only narrows it (:func:`closes_gap`).
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
                fix_gap = stats.paired_compare(
                    [fix[1][s]["metrics"]["test"] for s in seeds],
                    [fix[depth][s]["metrics"]["test"] for s in seeds],
                    higher_is_better=hib,
                    claim="depth",
                    margin=plan.margin(metric),
                    plan=plan,
                )
                cell = (*base_cell, ("layers", depth), ("stacks", f"{claim.fix} vs {claim.base}"))
                n_test = int(base[1][seeds[0]]["experiment"].get("n_test", 0))
                name = f"{cell_name(base_cell)}, L={depth} vs L=1"
                out.append(
                    CellComparison(
                        cell, name, metric, 1, depth, comp, n_test, tuple(seeds), fix_gap=fix_gap
                    )
                )
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


def cell_scores_text(claim: Claim, cell: CellComparison, records: Sequence[dict]) -> str:
    """The mean test score of every model a cell compares, with the baseline (chance) and the
    ceiling beside them, e.g. ``L=1 0.174, L=2 0.190 (majority class 0.142, ceiling 1)``. For the
    memorisation probe, also the bits per parameter of each depth and the probe's ceiling (the
    bits per parameter of a perfect memoriser)."""
    if cell.fit is None:
        return "n/a"
    f = cell.fit
    scores = ", ".join(f"{m.label} {m.mean:.3f}" for m in f.models)
    beside = f"{f.baseline} {f.chance:.3f}" if f.chance == f.chance else "chance unknown"
    if f.ceiling is not None:
        beside += f", ceiling {f.ceiling:g}"
    text = f"{scores} ({beside})"
    if getattr(claim, "test", None) == "equivalence":
        from rnnlab.core.tasks.capacity import bits_per_parameter

        models, _ = _models_of(claim, cell, records)
        ceilings = [
            bits_per_parameter(
                1.0,
                int(r["experiment"]["n_test"]),
                int(r["task_info"]["num_classes"]),
                int(r["param_count"]),
            )
            for runs in models.values()
            for r in runs
        ]
        c = cell.comparison
        text += (
            f"; bits/parameter L={cell.wide} {c.wide.mean:.2f}, L={cell.deep} {c.deep.mean:.2f} "
            f"(ceiling {_span(ceilings, '{:.2f}')})"
        )
    return text
