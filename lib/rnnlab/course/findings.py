"""The Findings page: the seed's claims against our verdicts, generated from ``data/results/``.

``chapters/05_findings.md`` holds a block between two markers that is written by
``python -m rnnlab findings --write`` from the committed results and checked by
``python -m rnnlab findings`` without ``--write`` (and by ``tests/test_findings.py``): if the
page and the data disagree, the check fails. Nothing in the block is typed by hand.
"""

from __future__ import annotations

import math
from pathlib import Path

from rnnlab.evidence import analysis, stats
from rnnlab.experiments.labs import LABS
from rnnlab.experiments.store import load_results

BEGIN = "<!-- BEGIN GENERATED: python -m rnnlab findings --write -->"
END = "<!-- END GENERATED -->"
PROFILE_ORDER = ("cpu", "reference", "gpu", "smoke")

#: What the literature reports for each claim (quoted, not computed here).
LITERATURE: dict[str, str] = {
    "a": "Not tested at equal parameters in the works we cite; Melis et al. (2018) find that "
    "after careful tuning, differences between LSTM variants shrink.",
    "b": "Karpathy, Johnson & Fei-Fei (2015), character LMs at about 50K-1.3M parameters: "
    '"depth of at least two is beneficial". Graves, Mohamed & Hinton (2013), TIMIT phoneme '
    "recognition: error fell as LSTM layers were added (1 to 5). Melis et al. (2018): small "
    "depth effects after tuning.",
    "c1": "Not tested for LSTMs at equal parameters in the works we cite.",
    "c2": "Not tested for LSTMs at equal parameters in the works we cite.",
    "d1": "Wu et al. (2016), GNMT: residual connections between LSTM layers were needed to train "
    "their deep (8-layer) encoder and decoder stacks; not measured at equal parameters there.",
    "d3": "Zaremba, Sutskever & Vinyals (2014): dropout on the connections between LSTM layers "
    "(not the recurrent ones) regularises large stacks; a regulariser, so expected to help "
    "only where a model overfits.",
    "d4": "Sak, Senior & Beaufays (2014), LSTMP: a projection after each layer gave better "
    "speech-recognition accuracy per parameter than plain LSTM stacks.",
    "d2": "Collins, Sohl-Dickstein & Sussillo (2017): after extensive tuning, common RNN cells "
    "store about 5 bits per parameter, nearly independent of architecture.",
}


def result_files(results_dir: str | Path) -> list[tuple[str, str, Path]]:
    """``(lab, profile, path)`` for every committed results file, in lab and profile order."""
    out = []
    for lab in LABS:
        for profile in PROFILE_ORDER:
            path = Path(results_dir) / f"{lab}-{profile}.jsonl"
            if path.exists():
                out.append((lab, profile, path))
    return out


def verdict_rows(results_dir: str | Path) -> list[dict]:
    """One row per (claim, profile): the verdict, its scale, each cell's effect and CI."""
    rows = []
    for lab_name, profile, path in result_files(results_dir):
        lab = LABS[lab_name]
        records = load_results(path)
        spec = lab.sweep(profile)
        expected = spec.planned_runs(records)
        complete = spec.is_complete(records)
        for cv in analysis.claim_verdicts(lab, records):
            if not analysis.judged_in(lab, profile, cv.claim):
                continue  # this profile's design cannot judge the claim
            cells = [
                {
                    "cell": c.name,
                    "effect": c.comparison.effect,
                    "ci_low": c.comparison.ci_low,
                    "ci_high": c.comparison.ci_high,
                    "p_adjusted": c.comparison.p_diff_adjusted,
                    "verdict": c.comparison.verdict,
                    "label": analysis.cell_label(c),
                    "reason": c.comparison.reason,
                    "scores": analysis.cell_scores_text(cv.claim, c, records),
                    "power_alpha": c.comparison.power_alpha,
                    "metric": c.metric,
                    "margin": c.comparison.margin,
                    "seeds": c.comparison.n,
                    "n_test": c.n_test,
                    "seeds_for_power": c.comparison.seeds_for_power,
                }
                for c in cv.cells
            ]
            rows.append(
                {
                    "claim": cv.claim.id,
                    "statement": cv.claim.statement,
                    "direction": cv.claim.direction,
                    "lab": lab_name,
                    "profile": profile,
                    "verdict": cv.verdict,
                    "words": analysis.verdict_words(cv),
                    "scale": cv.scale,
                    "plan": cv.plan,
                    "cells": cells,
                    "runs": len(records),
                    "runs_expected": expected,
                    "complete": complete,
                    "test": getattr(cv.claim, "test", None),
                    "evidence": profile != "smoke",
                    "comparison": comparison_words(lab, cv.claim),
                }
            )
    return rows


def comparison_words(lab, claim) -> str:
    """What a claim compares: ``L=2 vs L=1`` for the labs' depth claims; for the design
    chapter's, the stacks or the metric, at every depth against one layer."""
    test = getattr(claim, "test", None)
    if test == "gap_closure":
        return f"{claim.fix} vs {claim.base}: gap to L=1, every L > 1 vs L=1"
    if test == "equivalence":
        return f"{claim.metric or 'bits_per_parameter'}, every L > 1 vs L=1".replace("_", " ")
    return f"L={lab.deep} vs L={lab.wide}"


def _ci(c: dict) -> str:
    return analysis.fmt_ci(c["effect"], c["ci_low"], c["ci_high"])


def _p(p: float) -> str:
    if math.isnan(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def verdict_sentence(row: dict) -> str:
    """A verdict *at its scale*, e.g. ``contradicted (width ahead) at 25,000-100,000
    parameters, 1,500 steps, ...``: a verdict never stands without the scale it was measured at,
    and its words follow its test (:func:`rnnlab.evidence.analysis.verdict_words`)."""
    ahead = f" ({row['words']})" if row.get("words") else ""
    if not row["cells"]:
        return "**not judged yet**: none of its cells has reference results"
    return f"**{row['verdict']}**{ahead} at {row['scale']['text']}"


def scale_map_lines(results_dir: str | Path) -> list[str]:
    """Claim (b) over budget x training length (:mod:`rnnlab.evidence.scalemap`), from
    ``<results_dir>/scale/reference.jsonl``: how much of the map is done (a partial map is
    marked provisional), where depth's advantage is supported, each budget's crossover, and the
    rate transfer (with its control, ``reference-transfer.jsonl``, once that has runs)."""
    from rnnlab.evidence import scalemap

    path = Path(results_dir) / "scale" / "reference.jsonl"
    records = load_results(path) if path.exists() else []
    head = "**Claim (b) over scale: the map** (character LMs on Python source, reference profile, "
    if not records:
        return ["", head + "cpu): no results yet."]
    control_path = path.with_name("reference-transfer.jsonl")
    control = load_results(control_path) if control_path.exists() else []
    return [
        "",
        head + f"cpu, {scalemap.status(records).text()}; Lab B shows the map):",
        "",
        *scalemap.summary_lines(records),
        *scalemap.transfer_lines(records, control),
    ]


def convergence_lines(results_dir: str | Path) -> list[str]:
    """Claim (b) trained to convergence (:mod:`rnnlab.experiments.converge`), from
    ``<results_dir>/converge/reference.jsonl`` and, once it has runs, the gpu profile's
    ``gpu.jsonl`` (the same design on a lent GPU and that machine's standard library, so
    beside the reference profile, never mixed with it): provisional until every reporting run of
    a design is in (:func:`rnnlab.evidence.converge_report.report_lines`)."""
    from rnnlab.evidence import converge_report

    def load(name: str) -> list[dict]:
        path = Path(results_dir) / name
        return load_results(path) if path.exists() else []

    pilot = load("converge/pilot-v1.jsonl")
    lines = [
        "",
        "**Claim (b) at convergence** (held-out files, each length tuned itself, dropout as a "
        "regularisation control; reference profile, cpu; Lab B shows the design and its plan):",
        "",
        *converge_report.report_lines(
            "reference", load("converge/reference.jsonl"), pilot, load("scale/reference.jsonl")
        ),
    ]
    gpu = load("converge/gpu.jsonl")
    if gpu:
        lines += [
            "",
            "**The same design on a GPU** (gpu profile, cuda; its corpus is the GPU machine's "
            "standard library, so these numbers are compared with each other, not with the "
            "reference profile's above):",
            "",
            *converge_report.report_lines("gpu", gpu, pilot),
        ]
    return lines


def operator_lines(results_dir: str | Path) -> list[str]:
    """ListOps accuracy per root operator, from ``<results_dir>/lab-c-cpu-by-operator.json``
    (written by ``scripts/listops_by_operator.py``, which replays committed Lab C runs): per
    cell and depth, the mean over seeds of each operator's test accuracy beside its
    majority-class rate, and whether the replays reproduced the recorded test accuracies."""
    import json

    path = Path(results_dir) / "lab-c-cpu-by-operator.json"
    if not path.exists():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = data["rows"]
    if not rows:
        return []
    gaps = [abs(r["replayed_test"] - r["recorded_test"]) for r in rows]
    lines = [
        "",
        f"**ListOps by operator** (Lab C, cpu profile; {len(rows)} reporting runs replayed by "
        f"`{data['command']}`; {sum(g < 1e-9 for g in gaps)} of them reproduce the recorded "
        f"test accuracy exactly, all within {max(gaps):.4f}: the same seed gives the same "
        "numbers to the last bit only on the same CPU model, and these runs were recorded before "
        "records named it). Mean test accuracy over seeds per root operator, with the "
        "operator's majority-class rate in brackets:",
        "",
    ]
    cells: dict[tuple, list[dict]] = {}
    for r in rows:
        cells.setdefault((r["nesting"], r["n_train"], r["layers"]), []).append(r)
    for (nesting, n_train, layers), rs in sorted(cells.items()):
        ops = sorted(rs[0]["by_operator"])
        parts = []
        for op in ops:
            acc = sum(r["by_operator"][op] for r in rs) / len(rs)
            chance = sum(r["majority_by_operator"][op] for r in rs) / len(rs)
            parts.append(f"{op} {acc:.3f} ({chance:.3f})")
        lines.append(
            f"- nesting {nesting}, n_train {n_train:,}, L={layers}, {len(rs)} seeds: "
            + ", ".join(parts)
        )
    return lines


def findings_markdown(results_dir: str | Path) -> str:
    """The generated block: a claims x verdicts table with the scale of every verdict, then
    each claim's cells with paired intervals, Holm-adjusted p-values and test-set sizes."""
    rows = [r for r in verdict_rows(results_dir) if r["evidence"]]
    lines = [
        BEGIN,
        "",
        "| claim | side it says wins | profile | comparison | our verdict, at the scale it was "
        "measured | cells: supported / contradicted / equivalent / inconclusive / not "
        "informative | runs (tuning included) of the design |",
        "|---|---|---|---|---|---|---|",
    ]
    if not rows:
        lines.append("| – | no committed reference results yet | | | | | |")
    for r in rows:
        counts = [sum(c["verdict"] == v for c in r["cells"]) for v in stats.VERDICTS_V2]
        complete = "" if r["complete"] else " (incomplete: provisional)"
        lines.append(
            f"| ({r['claim']}) | {r['direction']} | {r['profile']} | {r['comparison']} | "
            f"{verdict_sentence(r)} | {' / '.join(map(str, counts))} | "
            f"{r['runs']} of {r['runs_expected']}{complete} |"
        )
    lines += scale_map_lines(results_dir)
    lines += convergence_lines(results_dir)
    lines += operator_lines(results_dir)
    lines += ["", "The claims, as the seed states them, and what the literature reports:", ""]
    seen = set()
    for r in rows:
        if r["claim"] in seen:
            continue
        seen.add(r["claim"])
        lines.append(
            f"- **({r['claim']})** {r['statement']} *Literature:* {LITERATURE.get(r['claim'], '–')}"
        )
    lines += [
        "",
        "Effect sizes: depth advantage, the mean over seeds of the paired difference (deep minus",
        "wide on the same seed's data, sign flipped for bits per character so that > 0 always",
        "means depth is better), with its 95% t-interval over seeds. Each seed draws its own",
        "training, validation and test sample, so the interval counts test-set sampling as well",
        "as training noise. p: two-sided, Holm-adjusted across the claim's informative cells.",
        "Margin: the smallest effect of interest (*equivalent* = the interval lies inside plus or",
        "minus it). Scores: each compared model's mean test score, with the input-blind baseline",
        "(chance) and the ceiling beside it. A cell whose models failed to train, that sits at",
        "floor or ceiling, or whose models are far from convergence is *not informative* and",
        "counts neither way (thresholds:",
        "`rnnlab.evidence.stats.fit.not_informative_reason`). A gap-closure",
        "cell that supports its claim *narrows* the gap, and *closes* it only when the fixed stack",
        "is equivalent to one layer. A claim is supported when at least half its informative",
        "cells back it and none contradicts it, contradicted in the mirror case",
        "(`rnnlab.evidence.stats.paired.combine_cells`, the one rule of every claim).",
        "Seeds for 80% power: at the",
        "observed effect and spread, for a test at the Holm level the cell is held to (bracketed).",
        "",
    ]
    for r in (r for r in rows if r["cells"]):
        lines.append(f"**({r['claim']}), {r['profile']} profile, {r['comparison']}:**")
        lines.append("")
        lines.append(
            "| cell | metric | scores (chance, ceiling) | depth advantage [95% CI] | margin | "
            "p (Holm) | cell verdict |"
        )
        lines.append("|---|---|---|---|---|---|---|")
        for c in r["cells"]:
            lines.append(
                f"| {c['cell']} | {analysis.metric_words(c['metric'])} | {c['scores']} | "
                f"{_ci(c)} | {c['margin']:g} | {_p(c['p_adjusted'])} | {c['label']} |"
            )
        lines.append("")
        lines.append("| cell | seeds | test examples per seed | seeds for 80% power (Holm level) |")
        lines.append("|---|---|---|---|")
        for c in r["cells"]:
            power = c["seeds_for_power"]
            level = "" if math.isnan(c["power_alpha"]) else f" (α = {c['power_alpha']:.3g})"
            lines.append(
                f"| {c['cell']} | {c['seeds']} | {c['n_test']:,} | "
                f"{f'{power}{level}' if power is not None else '> 1000 or n/a'} |"
            )
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def splice_between(page: str, block: str, begin: str, end: str, what: str = "the page") -> str:
    """Replace the text of ``page`` from the marker ``begin`` to the marker ``end`` (both
    included) with ``block``, which carries its own markers. ``what`` names the page in the
    error raised when a marker is missing. Every generated block of the book (Findings, the
    answer, the guide) is written back this way."""
    if begin not in page or end not in page:
        raise ValueError(f"{what} must contain the markers {begin!r} and {end!r}")
    head, rest = page.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + block + tail


def splice(page: str, block: str) -> str:
    """Replace the generated block of ``page`` with ``block``."""
    return splice_between(page, block, BEGIN, END, "the findings page")


def check_page(page_path: str | Path, results_dir: str | Path) -> list[str]:
    """Differences between the page's generated block and the data (empty list: in sync)."""
    page = Path(page_path).read_text(encoding="utf-8")
    expected = splice(page, findings_markdown(results_dir))
    if expected == page:
        return []
    import difflib

    return list(
        difflib.unified_diff(
            page.splitlines(), expected.splitlines(), "page", "from data", lineterm="", n=0
        )
    )
