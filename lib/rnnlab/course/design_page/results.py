"""The design chapter's results: cell means, claim lines, verdict tables and the findings
paragraphs of the CPU and reference runs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rnnlab.core.tasks.capacity import bits_per_parameter
from rnnlab.core.text import fmt_signed
from rnnlab.course import book
from rnnlab.evidence import analysis, stats
from rnnlab.experiments import store
from rnnlab.experiments.lab_d import CAPACITY_FLOOR, STACKS
from rnnlab.experiments.sweep import SweepSpec
from rnnlab.experiments.tuning import tuning_report

# --- results -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CellMean:
    """The test scores of one (task, stack, depth) over seeds: mean, sample sd and count (NaN
    for a missing mean or a single seed's sd)."""

    mean: float
    sd: float
    n: int


def cell_mean(evals: Sequence[dict], task: str, stack: str, layers: int) -> CellMean:
    """:class:`CellMean` of the reporting runs of ``task`` with stack ``stack`` at ``layers``."""
    vals = [
        r["metrics"]["test"]
        for r in evals
        if r["task"] == task
        and r["experiment"]["labels"].get("stack") == stack
        and r["num_layers"] == layers
    ]
    if not vals:
        return CellMean(math.nan, math.nan, 0)
    sd = float(np.std(vals, ddof=1)) if len(vals) > 1 else math.nan
    return CellMean(float(np.mean(vals)), sd, len(vals))


def claim_line(cv: analysis.ClaimVerdict, *, profile: str = "", provisional: str = "") -> str:
    """``**Claim (d1): supported** (words) (provisional: ...) at <scale>.``; ``profile`` names
    the profile after the claim, ``provisional`` (when not empty) says why it is provisional."""
    words = analysis.verdict_words(cv)
    where = f", {profile}" if profile else ""
    return (
        f"**Claim ({cv.claim.id}){where}: {cv.verdict}**"
        + (f" ({words})" if words else "")
        + (f" (provisional: {provisional})" if provisional else "")
        + f" at {cv.scale['text']}."
    )


def verdict_tables(cv: analysis.ClaimVerdict, records: Sequence[dict]):
    """Two tables for a Lab D claim's cells, like :func:`rnnlab.course.book.verdict_table`: what
    each
    cell found (each side's mean, the paired effect with its interval, the margin, the Holm
    p-value the claim's test uses and the verdict), then what stands behind it (seeds, test
    examples, and the scores of every model compared beside the metric's chance and ceiling).

    For a gap-closure claim the sides are each stack's L minus L=1 (signed); for an equivalence
    claim, the scores at L=1 and at L."""
    claim = cv.claim
    closure = claim.test == "gap_closure"
    if closure:
        sides = [f"{claim.base}: L minus L=1", f"{claim.fix}: L minus L=1"]
        effect, p_name = "gap narrowed [95% CI] (> 0: the fix helps)", "p (Holm)"
    else:
        sides = ["L=1", "L"]
        effect, p_name = "difference [95% CI] (> 0: deeper stores more)", "p equivalence (Holm)"
    side = fmt_signed if closure else "{:.3f}".format
    found, behind = [], []
    for c in cv.cells:
        k = c.comparison
        p = k.p_diff_adjusted if closure else k.p_equiv_adjusted
        found.append(
            [
                c.name,
                analysis.metric_words(c.metric).replace("_", " "),
                side(k.wide.mean),
                side(k.deep.mean),
                analysis.fmt_ci(k.effect, k.ci_low, k.ci_high),
                f"{k.margin:g}",
                "n/a" if p != p else f"{p:.3g}",
                analysis.cell_label(c),
            ]
        )
        behind.append([c.name, k.n, f"{c.n_test:,}", analysis.cell_scores_text(claim, c, records)])
    first = book.html_table(["cell", "metric", *sides, effect, "margin", p_name, "verdict"], found)
    second = book.html_table(
        ["cell", "seeds", "test examples per seed", "scores (chance, ceiling)"],
        behind,
        caption="What stands behind each verdict",
    )
    return first, second


def _memorize_bits(evals: Sequence[dict]) -> dict[int, float]:
    """Mean bits per parameter of the memorisation probe, by depth."""
    depths = sorted({r["num_layers"] for r in evals if r["task"] == "memorize"})
    return {
        L: float(
            np.mean(
                [
                    analysis.bits_per_parameter_of(r)
                    for r in evals
                    if r["task"] == "memorize" and r["num_layers"] == L
                ]
            )
        )
        for L in depths
    }


def cpu_findings(evals: Sequence[dict], deepest: int) -> str:
    """What the cpu reference results show, as Markdown bullets: each task's change from 1 to
    ``deepest`` layers per stack, and the memorisation probe against its floor."""

    def mean(task: str, stack: str, layers: int) -> float:
        return cell_mean(evals, task, stack, layers).mean

    stacks = ("plain", "residual-ln")
    lm = {(s, L): mean("charlm-english", s, L) for s in stacks for L in (1, deepest)}
    lo = {(s, L): mean("listops", s, L) for s in stacks for L in (1, deepest)}
    bpp = _memorize_bits(evals)
    lm_plain, lm_fixed = (lm[s, deepest] - lm[s, 1] for s in ("plain", "residual-ln"))
    lo_plain, lo_fixed = (lo[s, deepest] - lo[s, 1] for s in ("plain", "residual-ln"))
    return "\n".join(
        [
            f"- **Character LM** (test bits per character, lower is better): going from 1 to "
            f"{deepest} layers changes the plain stack's score by {fmt_signed(lm_plain)}, the "
            f"residual + LayerNorm stack's by {fmt_signed(lm_fixed)}. The "
            f"fixed {deepest}-layer stack scores {lm['residual-ln', deepest]:.3f} against "
            f"{lm['plain', 1]:.3f} for the plain one-layer model: "
            + ("better" if lm["residual-ln", deepest] < lm["plain", 1] else "not better")
            + f", but the LayerNorm helps one layer too ({lm['residual-ln', 1]:.3f}), so the "
            "fair comparison is within a stack, which is what (d1) measures.",
            f"- **ListOps** (test accuracy, higher is better): going from 1 to {deepest} layers "
            f"changes the plain stack's score by {fmt_signed(lo_plain)}, "
            f"the fixed stack's by {fmt_signed(lo_fixed)}.",
            "- **Memorisation probe** (bits per parameter, mean over seeds): "
            + ", ".join(f"L={L}: {v:.2f}" for L, v in bpp.items())
            + f". The floor is {CAPACITY_FLOOR:g}: "
            + (
                "every depth stays below it, so in this many steps the probe measures how fast "
                "each depth fills itself, not its capacity, and (d2)'s cells are *not "
                "informative* by the floor declared before the runs. That the deeper stacks "
                "filled *less* in the same steps points the same way as (d1): a training problem."
                if max(bpp.values()) < CAPACITY_FLOOR
                else "at least one depth reaches it."
            ),
        ]
    )


def committed_sentence(
    records: Sequence[dict], reported: int, expected: int, complete: bool
) -> str:
    """How many runs of a profile are committed, how many of its reporting runs, the measured
    compute and the devices, with the results' source line."""
    devices = sorted({r["device_name"] for r in records})
    return (
        f"{len(records)} runs committed ({reported} of {expected} reporting runs"
        + ("" if complete else ": **incomplete, so every verdict below is provisional**")
        + f"), {book.minutes(sum(r['wall_time_s'] for r in records))} of measured compute "
        f"on {', '.join(devices)}. {book.source_line(records)}."
    )


def reference_table(evals: Sequence[dict], spec: SweepSpec):
    """Mean ± sd (seeds) of every task (character LM, ListOps) and stack at every depth of the
    reference design (depths 1, 2, 4, 8: six columns)."""
    depths = sorted({e.num_layers for e in spec.experiments if e.task != "memorize"})
    rows = []
    for task in ("charlm-english", "listops"):
        for stack in STACKS:
            means = [cell_mean(evals, task, stack, L) for L in depths]
            rows.append(
                [
                    task,
                    stack,
                    *(f"{m.mean:.3f} ± {m.sd:.3f} ({m.n})" if m.n else "–" for m in means),
                ]
            )
    return book.html_table(["task", "stack", *(f"L={L}: mean ± sd (seeds)" for L in depths)], rows)


def _flat_tuning(spec: SweepSpec, records: Sequence[dict]) -> list[str]:
    """Tuned groups where no rate of the grid did better than any other (within the smallest
    effect of interest of the metric)."""
    flat = []
    for row in tuning_report(spec.experiments, records):
        vals = [abs(v) for v in row["mean_val"].values() if v is not None]  # sign-oriented
        if len(vals) > 1 and max(vals) - min(vals) < stats.PLAN_V2.margin(row["metric"]):
            flat.append(
                f"{row['labels'].get('task')}, {row['labels'].get('stack')} stack, "
                f"L={row['num_layers']} (validation {min(vals):.3f}-{max(vals):.3f} over "
                f"{len(vals)} rates)"
            )
    return flat


def reference_findings(
    records: Sequence[dict], spec: SweepSpec, verdicts: Sequence[analysis.ClaimVerdict]
) -> str:
    """What the reference profile's results show, as Markdown bullets: the best stack per task,
    the memorisation probe, tuning groups where no rate trained, and a reading of each claim's
    verdict (d1-d4)."""
    evals = store.eval_records(records)
    depths = sorted({e.num_layers for e in spec.experiments if e.task != "memorize"})
    bullets = []
    for task, better, unit in (
        ("charlm-english", min, "bits per character, lower is better"),
        ("listops", max, "accuracy, higher is better"),
    ):
        means = {(s, L): cell_mean(evals, task, s, L).mean for s in STACKS for L in depths}
        means = {k: v for k, v in means.items() if v == v}
        if not means:
            continue
        best = better(means, key=means.get)
        base = means.get(("plain", 1), math.nan)
        deepest = max(L for _, L in means)
        spread = ", ".join(
            f"{s} {fmt_signed(means[s, deepest] - means[s, 1])}"
            for s in STACKS
            if (s, deepest) in means and (s, 1) in means
        )
        bullets.append(
            f"- **{task}** ({unit}): the best mean is {best[0]} at L={best[1]} "
            f"({means[best]:.3f}, against {base:.3f} for one plain layer). From L=1 to "
            f"L={deepest} each stack changes by: {spread}."
        )
    mem_bpp = _memorize_bits(evals)
    steps_mem = next(e.train.max_steps for e in spec.experiments if e.task == "memorize")
    if mem_bpp:
        bullets.append(
            f"- **Memorisation probe** after {steps_mem:,} steps (bits per parameter, mean over "
            "seeds): "
            + ", ".join(f"L={L}: {v:.2f}" for L, v in mem_bpp.items())
            + f". The declared floor is {CAPACITY_FLOOR:g}: "
            + (
                "every depth is still below it, so (d2)'s cells stay not informative at this "
                "length too."
                if max(mem_bpp.values()) < CAPACITY_FLOOR
                else "at least one depth is above it, so (d2) counts every comparison where one "
                "of the two depths reaches it."
            )
        )
    flat = _flat_tuning(spec, records)
    if flat:
        bullets.append(
            "- **No learning rate trained these models**: " + "; ".join(flat) + ". Every rate "
            "of the grid gave the same validation score within the smallest effect of interest, "
            "so the rate marked *chosen* in the tuning table is a tie, not an optimum: at this "
            "budget and length these stacks do not train at all, whatever the rate."
        )
    verdict_of = {cv.claim.id: cv.verdict for cv in verdicts if cv.cells}
    conv = analysis.convergence([r for r in records if r["task"] != "memorize"])
    still = sum(not r["converged"] for r in conv)
    if "d2" in verdict_of and mem_bpp:
        shallow, deepest_mem = min(mem_bpp), max(mem_bpp)
        mem_runs = [r for r in evals if r["task"] == "memorize"]
        ceiling = min(
            bits_per_parameter(
                1.0, r["experiment"]["n_test"], r["task_info"]["num_classes"], r["param_count"]
            )
            for r in mem_runs
        )
        bullets.append(
            f"- **Memorisation in {steps_mem:,} steps** ((d2) {verdict_of['d2']}): the "
            f"{deepest_mem}-layer probe stores {mem_bpp[deepest_mem]:.2f} bits per parameter "
            f"against {mem_bpp[shallow]:.2f} for one layer, with the same parameters; the "
            f"probe's ceiling (every label stored) is about {ceiling:.1f}. All are far below it "
            "and below the ~5 bits per parameter Collins et al. reach after long, tuned "
            "training, so this is a trainability finding, not a capacity one: deep plain stacks "
            "memorise more slowly at this budget and training length. It fits (d1), a stack "
            "that is harder to train; only a memorisation curve trained to a plateau could tell "
            "it apart from less room."
        )
    d1 = next((cv for cv in verdicts if cv.claim.id == "d1" and cv.cells), None)
    if d1 is not None:
        left_out = [c for c in d1.cells if c.comparison.verdict == stats.NOT_INFORMATIVE]
        bullets.append(
            f"- **Residual + LayerNorm** ((d1) {d1.verdict}: {analysis.verdict_words(d1)}). "
            + " ".join(f"{c.name} is not informative: {c.comparison.reason}." for c in left_out)
            + " Where the fix helps, the fixed stack still differs from its own one-layer model "
            "unless the cell says *closes*: residual connections make deep stacks trainable "
            "here, they do not make depth free."
        )
    if verdict_of.get("d3") == "contradicted":
        bullets.append(
            "- **Dropout** widened the gap to one layer instead of narrowing it ((d3) "
            "contradicted). Dropout is a regulariser: it pays off where a model fits its "
            f"training data better than new data. Here {still} of {len(conv)} task groups were "
            "still improving when training ended: these small models had not finished fitting "
            "their data, and the likely reading (not tested here) is that dropout's noise only "
            "slowed them down. Whether it helps a model large enough to overfit is what the gpu "
            "profile's 400K-parameter language model would test."
        )
    elif "d3" in verdict_of:
        bullets.append(
            f"- **Dropout** between layers: (d3) is **{verdict_of['d3']}** at this scale."
        )
    if "d4" in verdict_of:
        d4 = next(cv for cv in verdicts if cv.claim.id == "d4").cells
        closed = [c.comparison.effect for c in d4]  # > 0: the projection narrows the gap
        firm = [c for c in d4 if c.comparison.verdict in ("supported", "contradicted")]
        bullets.append(
            f"- **Projection** ((d4) {verdict_of['d4']}): the LSTMP stack keeps a wider cell "
            "than the plain stack at the same parameters. In "
            f"{sum(e < 0 for e in closed)} of {len(closed)} cells its gap to one layer came out "
            f"wider than the plain stack's (gap narrowed: {fmt_signed(min(closed))} to "
            f"{fmt_signed(max(closed))}, each in its cell's own metric), "
            + (
                f"and {len(firm)} cell(s) reach a verdict of their own after the Holm correction."
                if firm
                else "but no cell's difference is firm after the Holm correction across the "
                "claim's cells: with 5 seeds, this profile cannot tell the projection from the "
                "plain stack."
            )
            + " Compare it with the residual + LayerNorm stack, which changes the path between "
            f"layers instead of their shape ((d1) {verdict_of.get('d1', 'not judged')})."
        )
    return "\n".join(bullets)
