"""Course-facing helpers for the lab chapters: tables, provenance lines and generated prose.

The science lives in :mod:`rnnlab.evidence.analysis` and :mod:`rnnlab.evidence.stats`; this module
only *shows*
it, so that a lab notebook reads as a course (text, one call, a figure) instead of a wall of
plumbing. Every function takes result records (or a lab) and returns an HTML table, a Markdown
string or a figure; nothing here computes a verdict of its own.

A table is an :class:`IPython.display.HTML` wrapped in a horizontally scrolling container, so a
wide table scrolls on a narrow screen instead of being clipped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

from rnnlab.core.text import fmt_signed
from rnnlab.evidence import analysis, stats
from rnnlab.experiments.lab import Lab
from rnnlab.experiments.labs import load_reference
from rnnlab.experiments.profiles import resolve_profile
from rnnlab.experiments.store import eval_records
from rnnlab.experiments.tuning import tuning_report

__all__ = [
    "compute_table",
    "convergence_table",
    "design_table",
    "html_table",
    "minutes",
    "not_evidence_banner",
    "results_table",
    "source_line",
    "tuning_check",
    "tuning_table",
    "v1_verdicts",
    "verdict_sentence",
    "verdict_table",
]


def html_table(header: Sequence[str], rows: Sequence[Sequence[object]], caption: str = ""):
    """A small HTML table in a horizontally scrolling box (the site renders it as is)."""
    from IPython.display import HTML

    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>" for row in rows
    )
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return HTML(
        f'<div class="rnnlab-table" tabindex="0" role="region" aria-label="table" '
        f'style="overflow-x:auto;max-width:100%">'
        f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def minutes(seconds: float) -> str:
    """``95`` -> ``2 min``, ``40`` -> ``40 s``."""
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def source_line(records: Sequence[dict]) -> str:
    """Where a figure's numbers come from: profile, hardware, seeds, runs, dates, commit."""
    return analysis.format_provenance(analysis.provenance(records))


def not_evidence_banner(profile: str) -> str:
    """A Markdown admonition for outputs of the smoke profile (or an empty string)."""
    if resolve_profile(profile).evidence:
        return ""
    return (
        "> **Code-path check only (smoke profile):** tiny models trained for a few steps. "
        "These numbers are not evidence about depth or width."
    )


# ----------------------------------------------------------------------------- design


def compute_table(lab: Lab):
    """Each profile's runs and the *measured* time of its committed reference results (or
    "not measured"): nothing about compute is stated without a measurement."""
    rows = []
    for name in lab.profiles:
        prof = resolve_profile(name)
        spec = lab.sweep(name)
        recs = load_reference(lab.name, name) if prof.evidence else []
        if recs:
            from rnnlab.course.status import lab_time

            devices = sorted({r["device_name"] for r in recs})
            time = f"{lab_time(lab.name, name).text()}; on {', '.join(devices)}"
        elif prof.evidence:
            time = "not measured yet (no committed results)"
        else:
            time = "seconds (a code-path check)"
        rows.append([name, prof.description, spec.n_runs(), time])
    return html_table(["profile", "what it is for", "runs in the design", "time"], rows)


def design_table(lab: Lab, profile: str):
    """One row per experiment: cell, depth, width, exact whole-model count and its distance to
    the budget, data sizes (test examples per seed), training length and initial rate grid."""
    from rnnlab.core.models import matched_config_for_task
    from rnnlab.experiments.budgets import task_example

    rows = []
    for e in lab.experiments(profile):
        example = task_example(e.task, e.task_options)
        cfg, match = matched_config_for_task(
            example,
            budget=e.budget,
            num_layers=e.num_layers,
            embedding_dim=e.embedding_dim,
            **e.model_options,
        )
        labels = dict(e.labels)
        cell = analysis.cell_name(tuple(sorted({**labels, "budget": e.budget}.items())))
        rows.append(
            [
                cell,
                e.num_layers,
                cfg.hidden_size,
                f"{cfg.param_count():,}",
                fmt_signed(match.relative_error, 2, percent=True),
                f"{e.n_train:,} / {e.n_val:,} / {e.n_test:,}",
                f"{e.train.max_steps:,} x {e.train.batch_size}",
                ", ".join(f"{g:g}" for g in e.lr_grid),
            ]
        )
    return html_table(
        [
            "cell",
            "layers L",
            "width d",
            "parameters (whole model)",
            "vs budget",
            "train / val / test examples per seed",
            "steps x batch",
            "initial learning-rate grid",
        ],
        rows,
    )


# ----------------------------------------------------------------------------- tuning


def tuning_table(lab: Lab, records: Sequence[dict], profile: str = "cpu"):
    """Per experiment: the cell's final grid, the chosen rate, and whether the grid grew or the
    choice sits at the declared cap."""
    rows = []
    for r in tuning_report(lab.experiments(profile), records):
        if not r["complete"] or r["chosen"] is None:
            continue
        labels = dict(r["labels"])
        cell = analysis.cell_name(tuple(sorted({**labels, "budget": r["budget"]}.items())))
        where = "at the cap" if r["at_cap"] else "edge" if r["at_edge"] else "interior"
        rows.append(
            [
                cell,
                r["num_layers"],
                ", ".join(f"{g:g}" for g in r["grid"]),
                f"{r['chosen']:g}",
                where,
                "yes" if r["extended"] else "no",
                r["tune_seeds"],
            ]
        )
    return html_table(
        [
            "cell",
            "layers",
            "final grid",
            "chosen rate",
            "position",
            "grid extended",
            "tuning seeds",
        ],
        rows,
    )


def tuning_check(lab: Lab, records: Sequence[dict], profile: str = "cpu") -> dict:
    """Counts a lab asserts on: tuned experiments, chosen rates at an edge that is not the cap
    (must be 0), at the cap, extended grids, and the fewest tuning seeds used."""
    report = [
        r for r in tuning_report(lab.experiments(profile), records) if r["chosen"] is not None
    ]
    tuned = [r for r in report if len(r["grid"]) > 1]
    return {
        "tuned": len(tuned),
        "edge_not_cap": sum(r["at_edge"] and not r["at_cap"] for r in tuned),
        "at_cap": sum(r["at_cap"] for r in tuned),
        "extended": sum(r["extended"] for r in tuned),
        "min_tune_seeds": min((r["tune_seeds"] for r in tuned), default=0),
    }


# ----------------------------------------------------------------------------- results


def results_table(records: Sequence[dict]):
    """Per cell and depth: width, parameters, mean and spread over seeds, test examples per
    seed, seeds, chosen rate and where the best checkpoint was."""
    rows = []
    for row in analysis.summary_rows(records):
        evals = [
            r
            for r in eval_records(records)
            if analysis.cell_name(analysis.cell_of(r)) == row["cell"]
            and r["num_layers"] == row["layers"]
        ]
        n_test = evals[0]["experiment"].get("n_test", 0) if evals else 0
        best = sum(r["metrics"]["best_step"] for r in evals) / max(1, len(evals))
        ci = "n/a" if math.isnan(row["ci_low"]) else f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
        rows.append(
            [
                row["cell"],
                analysis.metric_words(row["metric"]),
                row["layers"],
                row["hidden_size"],
                f"{row['params']:,}",
                f"{row['mean']:.3f} +/- {row['std']:.3f}",
                ci,
                f"{n_test:,}",
                row["seeds"],
                ", ".join(f"{lr:g}" for lr in row["lr"]),
                f"{best:,.0f} of {row['mean_steps']:,.0f}",
            ]
        )
    return html_table(
        [
            "cell",
            "metric",
            "layers",
            "width",
            "parameters",
            "mean +/- sd over seeds",
            "95% CI of the mean",
            "test examples per seed",
            "seeds",
            "learning rate",
            "best checkpoint (mean step)",
        ],
        rows,
    )


def _p(p: float) -> str:
    if math.isnan(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def verdict_table(cells: Sequence[analysis.CellComparison]):
    """Two tables for a claim's cells (or any list of comparisons), narrow enough for the text
    column. The first says what each cell found: the means, the paired depth advantage with its
    interval, the margin, the Holm-adjusted p-value and the verdict (with the reason when the cell
    is not informative). The second says what stands behind it: the metric's chance and ceiling
    where the claim's analysis computed them, the seeds and test examples, and the seeds needed
    for 80% power at the cell's Holm level."""
    from IPython.display import HTML

    found, behind = [], []
    for c in cells:
        k = c.comparison
        f = c.fit
        beside = "n/a"
        if f is not None and f.chance == f.chance:
            ceiling = "none" if f.ceiling is None else f"{f.ceiling:g}"
            beside = f"{f.chance:.3f} ({f.baseline}), {ceiling}"
        level = "" if k.power_alpha != k.power_alpha else f" (α = {k.power_alpha:.3g})"
        found.append(
            [
                c.name,
                analysis.metric_words(c.metric),
                f"L={c.wide}: {k.wide.mean:.3f}, L={c.deep}: {k.deep.mean:.3f}",
                analysis.fmt_ci(k.effect, k.ci_low, k.ci_high),
                f"{k.margin:g}",
                _p(k.p_diff_adjusted),
                analysis.cell_label(c),
            ]
        )
        behind.append(
            [
                c.name,
                beside,
                k.n,
                f"{c.n_test:,}",
                f"{k.seeds_for_power}{level}" if k.seeds_for_power is not None else "> 1000 or n/a",
            ]
        )
    first = html_table(
        [
            "cell",
            "metric",
            "mean score",
            "depth advantage [95% CI]",
            "margin",
            "p (Holm)",
            "verdict",
        ],
        found,
    )
    second = html_table(
        [
            "cell",
            "chance, ceiling",
            "seeds",
            "test examples per seed",
            "seeds for 80% power (Holm level)",
        ],
        behind,
        caption="What stands behind each verdict",
    )
    return HTML(first.data + second.data)


def verdict_sentence(cv: analysis.ClaimVerdict, *, complete: bool = True) -> str:
    """The claim's verdict as one Markdown sentence, always with its scale."""
    counts = {v: sum(c.comparison.verdict == v for c in cv.cells) for v in stats.VERDICTS_V2}
    parts = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    provisional = "" if complete else " (provisional: the reference results are incomplete)"
    return (
        f"**Claim ({cv.claim.id}), L={cv.cells[0].deep if cv.cells else '?'} against "
        f"L={cv.cells[0].wide if cv.cells else '?'}: {cv.verdict}**{provisional} at "
        f"{cv.scale['text']}. Cells: {parts or 'none'}."
    )


def convergence_sentence(records: Sequence[dict]) -> str:
    """One sentence for a lab's summary: which (cell, depth) groups of the reporting runs were
    still improving when training ended (:func:`rnnlab.evidence.analysis.report.convergence`), and
    what that
    means for their verdicts. Empty when there are no reporting runs."""
    rows = analysis.convergence(records)
    if not rows:
        return ""
    still = [r for r in rows if not r["converged"]]
    if not still:
        return (
            f"All {len(rows)} cell-and-depth groups had converged when training ended (their "
            "validation gain over the last quarter was below the smallest effect of interest)."
        )
    names = "; ".join(f"{r['cell']}, L={r['layers']}" for r in still)
    return (
        f"{len(still)} of {len(rows)} cell-and-depth groups were still improving when training "
        f"ended ({names}): where they enter a verdict, it compares what the models reached in "
        "this many steps, not what they could reach with longer training."
    )


def convergence_table(records: Sequence[dict]):
    """Per cell and depth: the mean validation improvement over the last quarter of training,
    against the smallest effect of interest (see
    :func:`rnnlab.evidence.analysis.report.convergence`)."""
    rows = [
        [
            r["cell"],
            r["layers"],
            fmt_signed(r["last_quarter_gain"], 4),
            f"{r['margin']:g}",
            "yes" if r["converged"] else "no: still improving",
            f"{r['best_at_end']} of {r['runs']}",
        ]
        for r in analysis.convergence(records)
    ]
    return html_table(
        [
            "cell",
            "layers",
            "validation gain in the last quarter",
            "margin",
            "converged?",
            "runs whose best checkpoint is the last",
        ],
        rows,
    )


# ----------------------------------------------------------------------------- version 1


def v1_verdicts(lab: Lab) -> list[dict]:
    """Version 1's verdicts, recomputed from the archived results (``data/results/v1/``) with
    version 1's rule (unpaired Welch intervals, three verdicts, no margin, no correction)."""
    from rnnlab.core.paths import results_dir
    from rnnlab.experiments.store import load_results

    path = results_dir() / "v1" / f"{lab.name}-cpu.jsonl"
    if not path.exists():
        return []
    records = eval_records(load_results(path))
    out = []
    for claim in lab.claims:
        cells = []
        for cell, by_l in analysis.scores_by_cell(records).items():
            if lab.wide not in by_l or lab.deep not in by_l:
                continue
            if not all(dict(cell).get(k) == _resolve(records, k, v) for k, v in claim.where):
                continue
            hib = next(r for r in records if analysis.cell_of(r) == cell)["metrics"][
                "higher_is_better"
            ]
            comp = stats.compare(
                by_l[lab.wide], by_l[lab.deep], higher_is_better=hib, claim=claim.direction
            )
            cells.append({"cell": analysis.cell_name(cell), "comparison": comp})
        verdict = stats.combine_verdicts([c["comparison"].verdict for c in cells])
        out.append({"claim": claim.id, "verdict": verdict, "cells": cells})
    return out


def _resolve(records: Sequence[dict], key: str, value: object) -> object:
    values = [dict(analysis.cell_of(r)).get(key) for r in records]
    values = [v for v in values if v is not None]
    if value == "max":
        return max(values)
    if value == "min":
        return min(values)
    return value
