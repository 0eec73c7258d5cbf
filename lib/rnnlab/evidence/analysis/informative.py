"""What a cell can show: its baseline, whether its models fit, whether it is informative, whether
a fix closes the gap, and the scores behind a cell in words."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from rnnlab.evidence import stats
from rnnlab.evidence.analysis.cells import CellComparison, base_cell, cell_of, span
from rnnlab.experiments.lab import Claim
from rnnlab.experiments.store import eval_records

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


def models_of(
    claim: Claim, cell: CellComparison, records: Sequence[dict]
) -> tuple[dict[str, list[dict]], list[dict]]:
    """The eval runs of each model a cell's comparison uses, and of its whole family (every
    depth and stack of the same task, budget and data)."""
    evals = eval_records(records)
    base = set(base_cell(cell.cell))
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

    models, family = models_of(claim, cell, records)
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

        models, _ = models_of(claim, cell, records)
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
            f"(ceiling {span(ceilings, '{:.2f}')})"
        )
    return text
