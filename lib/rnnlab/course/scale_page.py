"""Lab B's scale map on the page: the heat map of one depth against one layer, and the table of
every cell of the map, from the scale experiment's records (:mod:`rnnlab.evidence.scalemap`).

The chapter calls these and asserts what its text says; the figure carries an alt text computed
from the same cells (:mod:`rnnlab.course.figure_text`).
"""

from __future__ import annotations

from collections.abc import Sequence

from rnnlab.course import book, figure_text, plots
from rnnlab.evidence import analysis, scalemap


def cell_order(c: analysis.CellComparison) -> tuple[int, int]:
    """Sort key of a map cell: (budget target, training length in steps)."""
    d = dict(c.cell)
    return int(d[scalemap.BUDGET_KEY]), int(d[scalemap.LENGTH_KEY])


def map_heatmap(
    records: Sequence[dict],
    *,
    deep: int,
    profile: str = "reference",
    corpus: str = "Python source",
    batch_size: int,
    seq_len: int,
) -> figure_text.DescribedFigure | None:
    """The scale map of L=``deep`` against one layer as a heat map over the design's budgets
    (rows) and training lengths (columns), with its alt text; None when no cell has results.

    ``batch_size`` and ``seq_len`` name what one training step reads (the design's values)."""
    cells = scalemap.map_cells(records, deep=deep)
    if not cells:
        return None
    budgets, lengths = scalemap.design_grid(profile)
    state = "complete" if scalemap.status(records, profile).complete else "provisional"
    grid = dict(
        row_key=scalemap.BUDGET_KEY,
        col_key=scalemap.LENGTH_KEY,
        rows=budgets,
        cols=lengths,
    )
    fig = plots.gap_heatmap(
        cells,
        **grid,
        title=f"Scale map ({state}): L={deep} minus L=1, {corpus}",
        source=book.source_line(records),
        row_label="budget (parameters)",
        col_label=f"training length (steps of {batch_size} x {seq_len} characters)",
        effect_label=f"depth advantage (bits per character)\n> 0: L={deep} better, < 0: L=1 better",
    )
    alt = figure_text.gap_heatmap_alt(
        cells,
        **grid,
        row_label="budget",
        col_label="training length in steps",
        effect=f"advantage of L={deep} over one layer in test bits per character ({state} map)",
    )
    return figure_text.described(fig, alt)


MAP_TABLE_HEADER = (
    "depth vs L=1",
    "budget (parameters)",
    "training length (steps)",
    "seeds",
    "depth advantage, bits per character [95% CI]",
    "p (Holm, per depth)",
    "verdict",
    "seeds for 80% power",
)


def map_table_rows(records: Sequence[dict], *, depths: Sequence[int] = (2, 4)) -> list[list]:
    """One row per cell of the map and depth, in :data:`MAP_TABLE_HEADER`'s columns, ordered by
    depth, budget and training length."""
    rows = []
    for deep in depths:
        for c in sorted(scalemap.map_cells(records, deep=deep), key=cell_order):
            cm = c.comparison
            d = dict(c.cell)
            rows.append(
                [
                    f"L={deep}",
                    f"{d[scalemap.BUDGET_KEY]:,}",
                    f"{d[scalemap.LENGTH_KEY]:,}",
                    cm.n,
                    analysis.fmt_ci(cm.effect, cm.ci_low, cm.ci_high),
                    f"{cm.p_diff_adjusted:.3f}",
                    cm.verdict,
                    cm.seeds_for_power if cm.seeds_for_power is not None else "> 1000 or n/a",
                ]
            )
    return rows


def map_table(records: Sequence[dict], *, depths: Sequence[int] = (2, 4)):
    """Every cell of the scale map as an HTML table (None when no cell has results)."""
    rows = map_table_rows(records, depths=depths)
    if not rows:
        return None
    return book.html_table(
        list(MAP_TABLE_HEADER), rows, caption="Every cell of the scale map (> 0: depth better)"
    )


def design_sentence(records: Sequence[dict], profile: str = "reference") -> str:
    """**The design.** of the scale map: budgets, training lengths, depths, seeds, runs and the
    benchmark's core-hours (done, and what remains once calibrated by the finished runs)."""
    from rnnlab.experiments import scale, scale_plan

    budgets, lengths = scalemap.design_grid(profile)
    sd = scale.design(profile)
    totals = scale_plan.compute_plan(scale.sweep_spec(profile), records).totals()
    text = (
        f"**The design.** Budgets {', '.join(f'{b:,}' for b in budgets)} parameters; training "
        f"lengths {', '.join(f'{n:,}' for n in lengths)} steps of {sd['batch_size']} x "
        f"{sd['seq_len']} characters; depths {', '.join(map(str, sd['depths']))}; "
        f"{len(sd['seeds'])} reporting seeds per cell; {totals['runs']} runs, about "
        f"{totals['core_hours']:.0f} core-hours by the benchmark, "
        f"{totals['done_core_hours']:.1f} of them done"
    )
    if not totals["calibration"]:
        return text + "."
    return text + (
        f"; the finished runs took {totals['calibration']:.2f} times the benchmark's estimate "
        f"(median over runs), which puts what remains at about "
        f"{totals['remaining_core_hours_calibrated']:.0f} core-hours."
    )


def along_training_sentences(along: dict[int, list[dict]], *, deep: int = 2) -> str:
    """Per budget of :func:`rnnlab.evidence.scalemap.gap_along_training`: the advantage at the last
    step
    with its interval, and from which step its mean stays above 0."""
    parts = []
    for b, rows in along.items():
        last = rows[-1]
        after = scalemap.overtakes_at(rows)
        parts.append(
            f"At {b:,} parameters ({last['schedule']:,}-step schedule) L={deep}'s advantage at "
            f"the last step is {analysis.fmt_ci(last['gap'], last['ci_low'], last['ci_high'])} "
            "bits per character on the validation sample; "
            + (
                f"its mean stays above 0 from step {after:,} to the end."
                if after is not None
                else "its mean is not above 0 at the end."
            )
        )
    return " ".join(parts)
