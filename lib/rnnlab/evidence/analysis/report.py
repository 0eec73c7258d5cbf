"""Tables and words around the verdicts: the scale of a lab's runs, convergence, summary rows,
curves, provenance."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from rnnlab.core.config import own_wall_time_s
from rnnlab.evidence import stats
from rnnlab.evidence.analysis.cells import cell_name, cell_of, cell_sort_key, scores_by_cell, span
from rnnlab.experiments.store import eval_records


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
        data.append(f"{span(sizes)} training examples")
    if lm:
        chars = [
            r["experiment"].get("n_train", 0) * r.get("task_info", {}).get("seq_len", 1) for r in lm
        ]
        data.append(f"{span(round(c / 1e3) for c in chars)}K training characters")
    seeds = sorted({r["seed"] for r in records})
    text = (
        f"{span(budgets)} parameters, {span(steps)} steps, {' and '.join(data)}, {len(seeds)} seeds"
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
        "total_wall_time_s": sum(own_wall_time_s(r) for r in evals),
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
    if prov["eval_runs"]:
        tuning = prov["runs"] - prov["eval_runs"]
        runs = f"{len(prov['seeds'])} seeds {prov['seeds']}, {prov['eval_runs']} reported runs" + (
            f" (+{tuning} tuning)" if tuning else ""
        )
    else:  # a tuning figure: its runs choose settings and have no reporting seeds
        runs = f"{prov['runs']} tuning runs (none reported)"
    return (
        f"{'/'.join(prov['lab'])}, profile {'/'.join(prov['profile'])}, "
        f"{runs}, on {'; '.join(prov['devices'])}, "
        f"torch {'/'.join(prov['torch'])}, "
        f"run {prov['first_run'][:10]} to {prov['last_run'][:10]}, "
        f"{compute} of compute, commit {', '.join(commits)}"
    )
