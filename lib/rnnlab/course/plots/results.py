"""Lab result figures drawn from result records: per-cell scores by depth, the depth advantage
against budget, along training and over a two-way grid, the tuning curves, and scores per group.
Every one takes a ``source`` string printed under the figure."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from rnnlab.course.plots.style import (
    LAYER_COLORS,
    LAYER_STYLES,
    METRIC_LABELS,
    count_formatter,
    finish_gap_axes,
    source_note,
)
from rnnlab.evidence.analysis import fmt_ci


def _panels(n: int, ncols: int, panel_size: tuple[float, float]) -> tuple[Figure, np.ndarray]:
    """A figure for ``n`` panels in rows of at most ``ncols``, each ``panel_size`` inches wide and
    high (plus room for a two-line title), and its axes in reading order, the spare ones of the
    last row included (:func:`_finish_panels` hides them)."""
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig = Figure(figsize=(panel_size[0] * ncols, panel_size[1] * nrows + 0.9), layout="constrained")
    return fig, fig.subplots(nrows, ncols, squeeze=False).ravel()


def _finish_panels(fig: Figure, spare: Sequence, title: str, source: str) -> Figure:
    """Hide the ``spare`` panels, put ``title`` above the figure and ``source`` under it."""
    for ax in spare:
        ax.set_visible(False)
    fig.suptitle(title, fontsize=10)
    source_note(fig, source)
    return fig


def depth_comparison_figure(
    records: Sequence[dict],
    *,
    title: str,
    source: str = "",
    ncols: int = 3,
    panel_size: tuple[float, float] = (3.6, 3.0),
) -> Figure:
    """One panel per cell: every seed's test score (points) and mean ± 95% CI (bars) by depth.

    Panels share nothing but the x axis (number of layers); each y axis is labelled with the
    cell's metric. Widths are written under the depths, so the trade-off is visible.
    """
    from rnnlab.evidence import analysis, stats

    by_cell = analysis.scores_by_cell(records)
    evals = [r for r in records if r.get("role") == "eval"]
    cells = sorted(by_cell, key=analysis.cell_sort_key)
    if not cells:
        raise ValueError("records must hold at least one eval run, got none")
    n = len(cells)
    fig, axes = _panels(n, ncols, panel_size)
    rng = np.random.default_rng(0)
    for ax, cell in zip(axes, cells, strict=False):
        by_l = by_cell[cell]
        in_cell = [r for r in evals if analysis.cell_of(r) == cell]
        metric = in_cell[0]["metrics"]["metric"]
        widths = {r["num_layers"]: r["model"]["hidden_size"] for r in in_cell}
        for i, (depth, values) in enumerate(sorted(by_l.items())):
            color = LAYER_COLORS[min(depth, len(LAYER_COLORS)) - 1]
            jitter = rng.uniform(-0.08, 0.08, len(values))
            ax.scatter(np.full(len(values), i) + jitter, values, s=14, color=color, alpha=0.6)
            s = stats.summarize(values)
            err = None if np.isnan(s.ci_low) else [[s.mean - s.ci_low], [s.ci_high - s.mean]]
            ax.errorbar([i + 0.25], [s.mean], yerr=err, fmt="s", color=color, capsize=4, ms=5)
        ax.set_xticks(range(len(by_l)))
        ax.set_xticklabels([f"L={d}\nd={widths[d]}" for d in sorted(by_l)])
        ax.set_xlabel("layers L and hidden size d (units)")
        ax.set_ylabel(METRIC_LABELS.get(metric, metric), fontsize=8)
        ax.set_title(analysis.cell_name(cell), fontsize=9)
        ax.grid(alpha=0.3)
    title += "\n(points: seeds; squares and bars: mean and 95% CI)"
    return _finish_panels(fig, axes[n:], title, source)


def gap_vs_budget_figure(
    comparisons: Sequence, *, title: str, source: str = "", group_key: str = "task"
) -> Figure:
    """The depth-minus-width effect (positive: depth better) with 95% CIs against the budget,
    one line per ``group_key`` (e.g. task or corpus). ``comparisons`` are
    :class:`rnnlab.evidence.analysis.cells.CellComparison` objects."""
    fig = Figure(figsize=(7.0, 4.4), layout="constrained")
    ax = fig.subplots()
    groups: dict[str, list] = {}
    for c in comparisons:
        groups.setdefault(str(dict(c.cell).get(group_key)), []).append(c)
    if not groups:
        raise ValueError("comparisons must not be empty")
    for i, (name, cs) in enumerate(sorted(groups.items())):
        cs = sorted(cs, key=lambda c: dict(c.cell)["budget"])
        x = [dict(c.cell)["budget"] for c in cs]
        y = [c.comparison.effect for c in cs]
        lo = [c.comparison.effect - c.comparison.ci_low for c in cs]
        hi = [c.comparison.ci_high - c.comparison.effect for c in cs]
        ax.errorbar(
            x,
            y,
            yerr=[lo, hi],
            fmt="o" + LAYER_STYLES[i % len(LAYER_STYLES)],
            color=LAYER_COLORS[i % len(LAYER_COLORS)],
            capsize=4,
            label=f"{name} (L={cs[0].deep} vs L={cs[0].wide})",
        )
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(count_formatter())
    ax.xaxis.set_minor_formatter(count_formatter())
    ax.set_xlabel("parameter budget (count, log scale)")
    metric = comparisons[0].metric
    unit = "bits/char" if metric == "bits_per_char" else "accuracy points (fraction)"
    finish_gap_axes(ax, f"depth advantage ({unit})\n> 0: deep better, < 0: wide better", title)
    source_note(fig, source)
    return fig


def curve_gap_figure(
    gaps: dict[str, list[dict]], *, title: str, source: str = "", unit: str = "bits/char"
) -> Figure:
    """The depth advantage along training: one line (mean) and band (95% CI) per named series;
    ``gaps`` maps a label to :func:`rnnlab.evidence.analysis.report.curve_gap` output."""
    fig = Figure(figsize=(7.0, 4.4), layout="constrained")
    ax = fig.subplots()
    if not gaps:
        raise ValueError("gaps must hold at least one series")
    for i, (name, rows) in enumerate(gaps.items()):
        steps = [r["step"] for r in rows]
        color = LAYER_COLORS[i % len(LAYER_COLORS)]
        ax.plot(steps, [r["gap"] for r in rows], LAYER_STYLES[i % 4], color=color, label=name)
        lo = np.array([r["ci_low"] for r in rows], dtype=float)
        hi = np.array([r["ci_high"] for r in rows], dtype=float)
        ax.fill_between(steps, lo, hi, color=color, alpha=0.15)
    ax.set_xlabel("training steps (optimizer updates)")
    finish_gap_axes(ax, f"depth advantage on validation ({unit})\n> 0: deep better", title)
    source_note(fig, source)
    return fig


def gap_heatmap(
    comparisons: Sequence,
    *,
    row_key: str,
    col_key: str,
    title: str,
    source: str = "",
    row_label: str | None = None,
    col_label: str | None = None,
    rows: Sequence | None = None,
    cols: Sequence | None = None,
    effect_label: str = "depth advantage (accuracy, fraction)\n> 0: L=2 better, < 0: L=1 better",
) -> Figure:
    """A heat map of the depth advantage over a grid, with its uncertainty visible.

    Colour encodes the estimate, but a colour alone would make the cell with the widest interval
    look the most certain; so every cell is annotated with the effect, its 95% interval and its
    verdict (with the Holm-adjusted p-value that decided it, when the comparison has one: so a
    cell whose unadjusted interval excludes 0 can still be *inconclusive*), and a cell whose
    interval contains 0 is drawn faded and hatched. ``rows`` and
    ``cols`` fix the grid (a design's values); a grid cell without a comparison is left blank and
    marked "not run yet". ``effect_label`` names the effect and its unit on the colour bar."""
    rows = sorted({dict(c.cell)[row_key] for c in comparisons}) if rows is None else list(rows)
    cols = sorted({dict(c.cell)[col_key] for c in comparisons}) if cols is None else list(cols)
    if not rows or not cols:
        raise ValueError("comparisons must not be empty (or give rows and cols)")
    grid = np.full((len(rows), len(cols)), np.nan)
    notes = {}
    uncertain = []
    for c in comparisons:
        i, j = rows.index(dict(c.cell)[row_key]), cols.index(dict(c.cell)[col_key])
        k = c.comparison
        grid[i, j] = k.effect
        verdict = getattr(k, "verdict", "")
        p_holm = getattr(k, "p_diff_adjusted", float("nan"))
        if verdict and np.isfinite(p_holm):  # the verdict is decided by the adjusted p-value
            verdict += f" (Holm p {p_holm:.3f})" if p_holm >= 0.001 else " (Holm p < 0.001)"
        effect_ci = fmt_ci(k.effect, k.ci_low, k.ci_high).replace(" [", "\n[")
        notes[i, j] = f"{effect_ci}\n{verdict}"
        if not (k.ci_low > 0 or k.ci_high < 0):
            uncertain.append((i, j))
    for i in range(len(rows)):
        for j in range(len(cols)):
            notes.setdefault((i, j), "not run yet")
    lim = (np.nanmax(np.abs(grid)) if np.isfinite(grid).any() else 0.0) or 1.0
    fig = Figure(figsize=(2.3 * len(cols) + 2.4, 1.35 * len(rows) + 1.9), layout="constrained")
    ax = fig.subplots()
    im = ax.imshow(grid, cmap="PuOr", vmin=-lim, vmax=lim, aspect="auto", origin="lower")
    from matplotlib.patches import Rectangle

    for i, j in uncertain:
        ax.add_patch(
            Rectangle(
                (j - 0.5, i - 0.5),
                1,
                1,
                facecolor="white",
                alpha=0.65,
                hatch="//",
                edgecolor="0.6",
                lw=0,
            )
        )
    for (i, j), text in notes.items():
        dark = bool(abs(grid[i, j]) > 0.6 * lim) and (i, j) not in uncertain
        ax.text(j, i, text, ha="center", va="center", fontsize=8, color="w" if dark else "k")
    ax.set_xticks(range(len(cols)), [f"{c:,}" if isinstance(c, int) else str(c) for c in cols])
    ax.set_yticks(range(len(rows)), [f"{r:,}" if isinstance(r, int) else str(r) for r in rows])
    ax.set_xlabel(col_label or col_key)
    ax.set_ylabel(row_label or row_key)
    cb = fig.colorbar(im, ax=ax)
    cb.set_label(effect_label)
    ax.set_title(title + "\n(hatched and faded: the 95% interval contains 0)", fontsize=10)
    source_note(fig, source)
    return fig


def tuning_figure(
    rows: Sequence[dict], *, title: str, source: str = "", metric: str = "accuracy", ncols: int = 2
) -> Figure:
    """Validation score against learning rate, one panel per cell and one line per depth.

    ``rows`` come from :func:`rnnlab.experiments.tuning.tuning_report` (each with ``labels``,
    ``num_layers``,
    ``mean_val`` over the tuning seeds, ``chosen`` and ``grid``). The chosen rate of each depth is
    circled; a chosen rate at the edge of its grid would mean the optimum was not found, which is
    why the grid grows there (up to a declared cap)."""
    from rnnlab.evidence import analysis

    by_cell: dict[str, list[dict]] = {}
    for r in rows:
        labels = dict(r["labels"])
        labels.pop("budget_target", None)
        name = analysis.cell_name(tuple(sorted({**labels, "budget": r.get("budget", 0)}.items())))
        if not r.get("budget"):
            name = name.replace(", budget 0", "")
        by_cell.setdefault(name, []).append(r)
    if not by_cell:
        raise ValueError("rows must not be empty")
    n = len(by_cell)
    fig, axes = _panels(n, ncols, (4.6, 3.3))
    sign = -1.0 if metric == "bits_per_char" else 1.0
    for ax, (name, rs) in zip(axes, by_cell.items(), strict=False):
        for r in sorted(rs, key=lambda r: r["num_layers"]):
            depth = r["num_layers"]
            pts = sorted((float(lr), v) for lr, v in r["mean_val"].items() if v is not None)
            if not pts:
                continue
            color = LAYER_COLORS[min(depth, len(LAYER_COLORS)) - 1]
            xs = [p[0] for p in pts]
            ys = [sign * p[1] for p in pts]  # tuning scores are stored oriented (higher better)
            ax.plot(xs, ys, "o" + LAYER_STYLES[(depth - 1) % 4], color=color, label=f"L={depth}")
            if r.get("chosen") is not None:
                y = sign * dict(pts)[float(r["chosen"])]
                ax.plot([r["chosen"]], [y], "o", ms=12, mfc="none", mec=color, mew=2)
        ax.set_xscale("log")
        ax.set_xlabel("peak learning rate (log scale)")
        ax.set_ylabel(
            "validation " + METRIC_LABELS.get(metric, metric).replace("test ", ""), fontsize=8
        )
        ax.set_title(name, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    title += "\n(mean over the tuning seeds; circles: the chosen rate)"
    return _finish_panels(fig, axes[n:], title, source)


def group_score_figure(
    group_scores: dict[int, dict[str, list[float]]],
    *,
    title: str,
    source: str = "",
    group_label: str = "nesting depth",
    metric: str = "sequence_accuracy",
) -> Figure:
    """Mean test score (± 95% CI over seeds) per group, one line per number of layers."""
    from rnnlab.evidence import stats

    fig = Figure(figsize=(7.0, 4.4), layout="constrained")
    ax = fig.subplots()
    if not group_scores:
        raise ValueError("group_scores must not be empty")
    for depth, by_group in sorted(group_scores.items()):
        keys = sorted(by_group, key=lambda g: int(g) if str(g).lstrip("-").isdigit() else g)
        summ = [stats.summarize(by_group[g]) for g in keys]
        x = [int(g) if str(g).lstrip("-").isdigit() else g for g in keys]
        mean = np.array([s.mean for s in summ])
        lo = np.array([s.mean - s.ci_low if s.n > 1 else 0.0 for s in summ])
        hi = np.array([s.ci_high - s.mean if s.n > 1 else 0.0 for s in summ])
        c = LAYER_COLORS[min(depth, len(LAYER_COLORS)) - 1]
        ax.errorbar(
            x,
            mean,
            yerr=[lo, hi],
            fmt="o" + LAYER_STYLES[(depth - 1) % 4],
            color=c,
            capsize=3,
            label=f"L={depth}",
        )
    ax.set_xlabel(group_label)
    ax.set_ylabel(METRIC_LABELS.get(metric, metric))
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    source_note(fig, source)
    return fig
