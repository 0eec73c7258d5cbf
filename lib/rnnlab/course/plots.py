r"""Figures for the course. Every function builds and returns a :class:`matplotlib.figure.Figure`.

The figures are made with the object-oriented API (``Figure()``, not ``pyplot``), so calling a
function neither opens a window nor leaks global state; a notebook displays the returned figure,
a script saves it with ``fig.savefig(...)``. Every figure has labelled axes with units, a title and
a legend, and uses line styles as well as colours so it reads in greyscale.

Parameter-count figures (chapter 1):

- :func:`param_count_vs_width`: :math:`P_L(d)` for :math:`L = 1..4` layers, one budget line and the
  budget-matched widths marked.
- :func:`halving_ratio_figure`: how much of a one-layer budget a two-layer stack at half the width
  uses, over input sizes :math:`m` and widths :math:`d`, with its :math:`3/4` asymptote.

Lab figures (drawn from result records; every one takes a ``source`` string naming the profile,
hardware, seeds and date of the results, printed under the figure):

- :func:`depth_comparison_figure`: per cell, the test score of every seed (points) and the mean
  with its 95% interval (bars), by number of layers.
- :func:`gap_vs_budget_figure`: the depth-minus-width effect with its 95% interval against the
  parameter budget (does the verdict change with scale?).
- :func:`curve_gap_figure`: the same effect along training (does it change with compute?).
- :func:`gap_heatmap`: the effect over a two-way grid (nesting depth x training-set size).
- :func:`group_score_figure`: the test score per group (e.g. nesting depth) by number of layers.
- :func:`scale_map_overview`: the scale map at a glance: where each side leads, and how sure we are.

What depth costs (the design chapter):

- :func:`critical_path_figure`: the :math:`L \times T` grid of cell updates with the wavefront
  schedule's time steps, and the critical path against depth for both schedules.
- :func:`depth_cost_figure`: measured training and generation time per token against depth at
  equal parameters, beside the FLOPs per token (rows of ``benchmarks/bench_depth_cost.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from rnnlab.core import params

__all__ = [
    "critical_path_figure",
    "curve_gap_figure",
    "depth_cost_figure",
    "depth_comparison_figure",
    "gap_heatmap",
    "gap_vs_budget_figure",
    "group_score_figure",
    "halving_ratio_figure",
    "param_count_vs_width",
    "scale_map_overview",
    "tuning_figure",
    "smoke_figure_style",
]

#: Colours (Okabe-Ito, colour-blind safe) and line styles for L = 1, 2, 3, 4, ... layers.
LAYER_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
LAYER_STYLES = ("-", "--", "-.", ":", "-", "--")


def _count_formatter() -> FuncFormatter:
    """Tick labels like ``250k`` or ``1.2M`` for parameter counts."""

    def fmt(value: float, _pos: int) -> str:
        if abs(value) >= 1e6:
            return f"{value / 1e6:.3g}M"
        if abs(value) >= 1e3:
            return f"{value / 1e3:.4g}k"
        return f"{value:.0f}"

    return FuncFormatter(fmt)


def param_count_vs_width(
    input_size: int,
    budget: int,
    *,
    max_layers: int = 4,
    max_width: int | None = None,
    mode: str = "LSTM",
    halving_from: int | None = None,
    figsize: tuple[float, float] = (8.0, 5.0),
) -> Figure:
    r"""Parameters of an :math:`L`-layer stack against its hidden size, for ``L = 1..max_layers``.

    Each curve is the exact count :func:`rnnlab.core.params.counts.total_param_count` (PyTorch
    layout, two
    biases, no head), a parabola :math:`P_L(d) = G\bigl((2L-1)d^2 + (m + 2L)d\bigr)`. The horizontal
    line is ``budget``; a dot on each curve marks
    :func:`rnnlab.core.params.matching.matched_width`, the integer
    width whose count is nearest the budget.

    Args:
        input_size: :math:`m`, features per time step.
        budget: the parameter budget :math:`B`; must be reachable by every depth (at least
            :func:`rnnlab.core.params.matching.min_budget` for ``max_layers``).
        max_layers: the deepest stack drawn (1 to 6).
        max_width: the right end of the width axis; default 15% past the one-layer matched width.
        mode: ``"LSTM"``, ``"GRU"`` or ``"RNN"``.
        halving_from: if given, a one-layer width :math:`d`; marks the seed's rule "two layers of
            :math:`d/2`" on the two-layer curve with a cross, to show it falls short of the budget.
        figsize: figure size in inches.

    Returns:
        The figure (one axes).
    """
    layers_max = int(max_layers)
    if not 1 <= layers_max <= len(LAYER_COLORS):
        raise ValueError(
            f"max_layers must be an integer in [1, {len(LAYER_COLORS)}], got {max_layers!r}"
        )
    matches = [
        params.matched_width(budget, input_size, n, mode=mode) for n in range(1, layers_max + 1)
    ]
    right = int(max_width) if max_width is not None else int(matches[0].hidden_size * 1.15) + 2
    if right < 2:
        raise ValueError(f"max_width must be an integer >= 2, got {max_width!r}")
    widths = np.arange(1, right + 1)

    fig = Figure(figsize=figsize, layout="constrained")
    ax = fig.add_subplot()
    for n, match in enumerate(matches, start=1):
        counts = [params.total_param_count(int(w), input_size, n, mode=mode) for w in widths]
        color, style = LAYER_COLORS[n - 1], LAYER_STYLES[n - 1]
        ax.plot(widths, counts, color=color, linestyle=style, linewidth=2, label=f"L = {n}")
        ax.plot(
            match.hidden_size,
            match.param_count,
            "o",
            color=color,
            markersize=8,
            markeredgecolor="black",
        )
        above = n % 2 == 1  # alternate above/below the budget line so neighbours do not collide
        ax.annotate(
            f"d = {match.hidden_size}",
            (match.hidden_size, match.param_count),
            xytext=(4, 9) if above else (4, -17),
            textcoords="offset points",
            ha="left",
            fontsize=10,
            color=color,
            fontweight="bold",
            bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none"},
        )
    ax.axhline(budget, color="black", linewidth=1, linestyle=(0, (1, 1)))
    ax.annotate(
        f"budget B = {budget:,}",
        (widths[0], budget),
        xytext=(4, 5),
        textcoords="offset points",
        fontsize=10,
    )
    if halving_from is not None and layers_max >= 2:
        half = halving_from / 2
        count = float(np.polyval(params.quadratic_coefficients(input_size, 2, mode=mode), half))
        ax.plot(half, count, "X", color="black", markersize=10, label="seed: 2 layers of d/2")
    ax.set_xlim(0, right)
    ax.set_ylim(0, 2.2 * budget)
    ax.yaxis.set_major_formatter(_count_formatter())
    ax.set_xlabel("hidden size d (units)")
    ax.set_ylabel("parameters (count)")
    ax.set_title(f"{params.normalize_mode(mode)} parameters vs width, input size m = {input_size}")
    ax.grid(True, alpha=0.3)
    ax.legend(title="layers", loc="upper left", bbox_to_anchor=(0.0, 0.93))
    return fig


def halving_ratio_figure(
    input_sizes: Sequence[int] = (1, 8, 32, 128, 512),
    *,
    num_layers: int = 2,
    max_width: int = 4096,
    figsize: tuple[float, float] = (11.0, 4.5),
) -> Figure:
    r"""The seed's "halve the width" rule: the share of a one-layer budget it keeps.

    Plots :func:`rnnlab.core.params.matching.halving_ratio`,
    :math:`\rho(m, d) = P_L(d/2) / P_1(d)` (PyTorch counts, two biases).

    - Left: :math:`\rho` against :math:`d` (log scale) for each input size in ``input_sizes``, with
      the limit :math:`(2L-1)/4` for :math:`d \gg m` (3/4 for two layers) dashed and the seed's
      claim :math:`\rho \approx 1` dotted.
    - Right: :math:`\rho` as a heat map over :math:`m` and :math:`d` (log scales), with contours.

    Args:
        input_sizes: the input sizes :math:`m` of the line family (each >= 1).
        num_layers: :math:`L`, the depth of the half-width stack.
        max_width: the largest one-layer width :math:`d` drawn (>= 4).
        figsize: figure size in inches.
    """
    if int(max_width) < 4:
        raise ValueError(f"max_width must be an integer >= 4, got {max_width!r}")
    if not input_sizes:
        raise ValueError("input_sizes must hold at least one input size, got an empty sequence")
    n = int(num_layers)
    limit = (2 * n - 1) / 4
    widths = np.unique(np.geomspace(2, max_width, 200).astype(int))

    fig = Figure(figsize=figsize, layout="constrained")
    ax_lines, ax_map = fig.subplots(1, 2, width_ratios=[1.1, 1])

    for i, m in enumerate(input_sizes):
        ratios = [params.halving_ratio(int(m), int(d), n) for d in widths]
        ax_lines.plot(
            widths,
            ratios,
            color=LAYER_COLORS[i % len(LAYER_COLORS)],
            linestyle=LAYER_STYLES[i % len(LAYER_STYLES)],
            linewidth=2,
            label=f"m = {m}",
        )
    ax_lines.axhline(limit, color="black", linestyle="--", linewidth=1.2)
    ax_lines.annotate(
        f"limit (2L-1)/4 = {limit:g} for d >> m",
        (widths[0], limit),
        xytext=(2, -12),
        textcoords="offset points",
        fontsize=9,
        bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none"},
    )
    ax_lines.axhline(1.0, color="grey", linestyle=":", linewidth=1.2)
    ax_lines.annotate(
        "seed's claim: about 1",
        (widths[0], 1.0),
        xytext=(2, -12),
        textcoords="offset points",
        fontsize=9,
        color="dimgrey",
    )
    ax_lines.set_xscale("log", base=2)
    ax_lines.set_ylim(0.4, 1.05)
    ax_lines.set_xlabel("one-layer hidden size d (units, log scale)")
    ax_lines.set_ylabel(f"P_{n}(d/2) / P_1(d) (ratio)")
    ax_lines.set_title(f"{n} layers at width d/2 vs 1 layer at width d")
    ax_lines.grid(True, which="both", alpha=0.3)
    ax_lines.legend(title="input size", loc="lower right", fontsize=9)

    ms = np.unique(np.geomspace(1, 1024, 60).astype(int))
    ds = np.unique(np.geomspace(2, max_width, 60).astype(int))
    grid = np.array([[params.halving_ratio(int(m), int(d), n) for d in ds] for m in ms])
    levels = np.round(np.linspace(grid.min(), grid.max(), 6)[1:-1], 2)
    mesh = ax_map.pcolormesh(ds, ms, grid, shading="nearest", cmap="viridis")
    contours = ax_map.contour(ds, ms, grid, levels=levels, colors="white")
    ax_map.clabel(contours, fontsize=8, fmt="%.2f")
    ax_map.set_xscale("log", base=2)
    ax_map.set_yscale("log", base=2)
    ax_map.set_xlabel("one-layer hidden size d (units, log scale)")
    ax_map.set_ylabel("input size m (features, log scale)")
    ax_map.set_title("share of the one-layer budget kept")
    fig.colorbar(mesh, ax=ax_map, label=f"P_{n}(d/2) / P_1(d) (ratio)")
    return fig


# ----------------------------------------------------------------------------- lab figures

METRIC_LABELS = {
    "accuracy": "test accuracy (fraction correct)",
    "sequence_accuracy": "test sequence accuracy (fraction)",
    "bits_per_char": "test bits per character (lower is better)",
}


def _source_note(fig: Figure, source: str) -> None:
    """Print where the numbers come from under the figure (space reserved by the layout)."""
    if source:
        import textwrap

        width = int(fig.get_figwidth() * 17)
        fig.supxlabel(textwrap.fill("Source: " + source, width), fontsize=7, color="0.3")


def _finish_gap_axes(ax, ylabel: str, title: str) -> None:
    """The zero line, labels, legend and grid shared by the depth-advantage figures."""
    ax.axhline(0, color="0.2", lw=1)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)


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
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig = Figure(figsize=(panel_size[0] * ncols, panel_size[1] * nrows + 0.9), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
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
    for ax in axes[n:]:
        ax.set_visible(False)
    fig.suptitle(title + "\n(points: seeds; squares and bars: mean and 95% CI)", fontsize=10)
    _source_note(fig, source)
    return fig


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
    ax.xaxis.set_major_formatter(_count_formatter())
    ax.xaxis.set_minor_formatter(_count_formatter())
    ax.set_xlabel("parameter budget (count, log scale)")
    metric = comparisons[0].metric
    unit = "bits/char" if metric == "bits_per_char" else "accuracy points (fraction)"
    _finish_gap_axes(ax, f"depth advantage ({unit})\n> 0: deep better, < 0: wide better", title)
    _source_note(fig, source)
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
    _finish_gap_axes(ax, f"depth advantage on validation ({unit})\n> 0: deep better", title)
    _source_note(fig, source)
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
        notes[i, j] = f"{k.effect:+.3f}\n[{k.ci_low:+.3f}, {k.ci_high:+.3f}]\n{verdict}"
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
    _source_note(fig, source)
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
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig = Figure(figsize=(4.6 * ncols, 3.3 * nrows + 0.9), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
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
    for ax in axes[n:]:
        ax.set_visible(False)
    fig.suptitle(title + "\n(mean over the tuning seeds; circles: the chosen rate)", fontsize=10)
    _source_note(fig, source)
    return fig


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
    _source_note(fig, source)
    return fig


# ----------------------------------------------------------------------------- smoke style

#: The watermark every code-path-check figure carries (see :func:`smoke_figure_style`).
SMOKE_WATERMARK = "CODE-PATH CHECK \N{EM DASH} NOT EVIDENCE"
#: The background of a smoke figure: light grey with diagonal hatching.
SMOKE_FACECOLOR = "#e6e6e6"
SMOKE_HATCH = "//"


def smoke_figure_style(fig: Figure, profile: str | None = None) -> Figure:
    """Make a figure drawn from ``smoke``-profile results impossible to mistake for evidence.

    With ``profile == "smoke"`` (``None`` reads ``RNNLAB_PROFILE``; unset counts as not smoke)
    the figure gets a grey, diagonally hatched background behind every axes, a large diagonal
    watermark :data:`SMOKE_WATERMARK` across the whole figure, and ``[smoke]`` in front of its
    suptitle or first axes title. Any other profile leaves the figure unchanged. Idempotent;
    returns ``fig`` so it can wrap a figure function::

        fig = smoke_figure_style(plots.depth_comparison_figure(...), profile)

    The figure records what was done in ``fig._rnnlab_smoke`` (``True`` once styled).
    """
    import os

    from matplotlib.patches import Rectangle

    if profile is None:
        profile = os.environ.get("RNNLAB_PROFILE", "")
    if str(profile).strip().lower() != "smoke" or getattr(fig, "_rnnlab_smoke", False):
        return fig
    fig.patch.set_facecolor(SMOKE_FACECOLOR)
    for ax in fig.axes:
        ax.add_patch(
            Rectangle(
                (0, 0),
                1,
                1,
                transform=ax.transAxes,
                facecolor=SMOKE_FACECOLOR,
                edgecolor="#b0b0b0",
                hatch=SMOKE_HATCH,
                linewidth=0,
                zorder=-10,
                gid="rnnlab-smoke-background",
            )
        )
        ax.set_facecolor("none")
    fig.text(
        0.5,
        0.5,
        SMOKE_WATERMARK,
        transform=fig.transFigure,
        ha="center",
        va="center",
        rotation=20,
        fontsize=26,
        fontweight="bold",
        color="#7a0000",
        alpha=0.35,
        zorder=100,
        gid="rnnlab-smoke-watermark",
    )
    suptitle = fig._suptitle  # matplotlib keeps the suptitle Text here (None if unset)
    if suptitle is not None and suptitle.get_text():
        suptitle.set_text(f"[smoke] {suptitle.get_text()}")
    elif fig.axes:
        ax = fig.axes[0]
        ax.set_title(f"[smoke] {ax.get_title()}".rstrip())
    fig._rnnlab_smoke = True
    return fig


# ----------------------------------------------------------------------------- what depth costs


def critical_path_figure(
    *, grid_layers: int = 4, grid_steps: int = 8, depths: Sequence[int] = (1, 2, 4, 8),
    seq_len: int = 64,
) -> Figure:  # fmt: skip
    r"""Left: the :math:`L \times T` grid of cell updates of a small stack, each cell labelled
    with the step at which a wavefront schedule runs it (:math:`k + t - 1`, 1-based), so cells on
    one anti-diagonal run together. Right: the critical path (sequential cell updates) against
    depth for ``seq_len`` steps: :math:`LT` layer by layer (and for generation), :math:`L + T - 1`
    for the wavefront (:func:`rnnlab.core.cost.critical_path`)."""
    from rnnlab.core import cost

    fig = Figure(figsize=(10.0, 3.9), layout="constrained")
    ax, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1]})
    step = np.add.outer(np.arange(1, grid_layers + 1), np.arange(1, grid_steps + 1)) - 1
    ax.imshow(step, cmap="Blues", origin="lower", aspect="auto", alpha=0.8,
              extent=(0.5, grid_steps + 0.5, 0.5, grid_layers + 0.5))  # fmt: skip
    for k in range(grid_layers):
        for t in range(grid_steps):
            ax.text(t + 1, k + 1, str(step[k, t]), ha="center", va="center", fontsize=8)
    ax.set_xticks(range(1, grid_steps + 1))
    ax.set_yticks(range(1, grid_layers + 1))
    ax.set_xlabel("time step t (tokens)")
    ax.set_ylabel("layer k")
    ax.set_title(
        f"Wavefront schedule, L={grid_layers}, T={grid_steps}: cell (k, t) runs at step k+t-1\n"
        f"({cost.critical_path(grid_layers, grid_steps, schedule='wavefront')} steps; "
        f"layer by layer: {cost.critical_path(grid_layers, grid_steps)})",
        fontsize=9,
    )
    ls = list(depths)
    ax2.plot(ls, [cost.critical_path(L, seq_len) for L in ls], "o-", color=LAYER_COLORS[1],
             label=f"layer by layer and generation: L x T (T={seq_len})")  # fmt: skip
    ax2.plot(ls, [cost.critical_path(L, seq_len, schedule="wavefront") for L in ls], "s--",
             color=LAYER_COLORS[0], label=f"wavefront: L + T - 1 (T={seq_len})")  # fmt: skip
    ax2.set_xscale("log", base=2)
    ax2.set_xticks(ls, [str(L) for L in ls])
    ax2.set_xlabel("layers L (log scale)")
    ax2.set_ylabel("critical path (sequential cell updates)")
    ax2.set_ylim(bottom=0)
    ax2.set_title("Sequential steps for one sequence", fontsize=9)
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3)
    return fig


def depth_cost_figure(rows: Sequence[dict], *, title: str, source: str = "") -> Figure:
    """Three panels against depth at equal parameters, one line per budget: forward FLOPs per
    token (with the :math:`2P` estimate dashed), measured training time per token and measured
    generation time per token (microseconds). ``rows`` are the rows written by
    ``benchmarks/bench_depth_cost.py --json`` (one device)."""
    if not rows:
        raise ValueError("rows must hold at least one benchmark row, got none")
    fig = Figure(figsize=(11.0, 3.8), layout="constrained")
    axes = fig.subplots(1, 3)
    budgets = sorted({r["budget"] for r in rows})
    panels = (
        ("forward_flops", 1e-3, "forward FLOPs per token (thousands)", "FLOPs (counted)"),
        ("train_s_per_token", 1e6, "training step time per token (us)", "training (measured)"),
        ("gen_s_per_token", 1e6, "generation time per token (us)", "generation (measured)"),
    )
    for ax, (key, scale, ylabel, name) in zip(axes, panels, strict=True):
        for i, budget in enumerate(budgets):
            part = sorted((r for r in rows if r["budget"] == budget), key=lambda r: r["num_layers"])
            ls = [r["num_layers"] for r in part]
            ax.plot(ls, [r[key] * scale for r in part], LAYER_STYLES[i] + "o",
                    color=LAYER_COLORS[i], label=f"{budget:,} parameters")  # fmt: skip
            if key == "forward_flops":
                ax.plot(ls, [2 * r["params"] * scale for r in part], ":", color=LAYER_COLORS[i],
                        label=f"2P at {budget:,}")  # fmt: skip
        ax.set_xscale("log", base=2)
        ticks = sorted({r["num_layers"] for r in rows})
        ax.set_xticks(ticks, [str(L) for L in ticks])
        ax.set_xlabel("layers L (log scale)")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        ax.set_title(name, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    _source_note(fig, source)
    return fig


def scale_map_overview(
    maps: dict[int, Sequence],
    *,
    rows: Sequence[int],
    cols: Sequence[int],
    title: str,
    source: str = "",
    row_label: str = "budget (parameters)",
    col_label: str = "training length (steps)",
) -> Figure:
    """Where each side leads on the scale map, and how sure we are: one panel per deep depth
    (``maps[deep]``: the map's :class:`~rnnlab.evidence.analysis.cells.CellComparison` cells of
    L=``deep``
    against L=1), each cell coloured by the side whose mean is ahead (vermillion: depth, blue:
    width), solid where the cell's verdict decides a side (*supported* or *contradicted*: its
    Holm-corrected test excludes 0) and pale and hatched where it does not (any other verdict,
    *equivalent* and *inconclusive* included), and labelled with the mean depth advantage and
    the cell's verdict. A grid cell with no comparison says "not run".

    The compact companion of :func:`gap_heatmap` (which prints every interval), made for the
    "What we found" summary: the answer at a glance, the numbers one click away."""
    from matplotlib.colors import to_rgb
    from matplotlib.patches import Patch, Rectangle

    if not maps:
        raise ValueError("maps must hold at least one deep depth's cells")
    rows, cols = list(rows), list(cols)
    side = {"depth": LAYER_COLORS[1], "width": LAYER_COLORS[0]}

    def pale(colour: str) -> tuple[float, ...]:
        return tuple(0.78 + 0.22 * v for v in to_rgb(colour))

    def patch(colour: str, decided: bool, **kw) -> dict:
        if decided:
            return {"facecolor": colour, "edgecolor": "white", **kw}
        return {"facecolor": pale(colour), "edgecolor": colour, "hatch": "//", **kw}

    fig = Figure(figsize=(3.3 * len(maps) + 0.9, 0.62 * len(rows) + 2.1), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(maps), sharey=True))
    for ax, (deep, cells) in zip(axes, sorted(maps.items()), strict=True):
        seen = set()
        for c in cells:
            cell = dict(c.cell)
            i, j = rows.index(cell["budget_target"]), cols.index(cell["steps"])
            seen.add((i, j))
            k = c.comparison
            decided = k.verdict in ("supported", "contradicted")
            colour = side["depth" if k.effect > 0 else "width"]
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, **patch(colour, decided, lw=0)))
            ax.text(
                j, i, f"{k.effect:+.3f}\n{k.verdict}", ha="center", va="center", fontsize=7.5,
                color="white" if decided else "black",
                bbox=None if decided else {"facecolor": "white", "edgecolor": "none", "pad": 1},
            )  # fmt: skip
        for i in range(len(rows)):
            for j in range(len(cols)):
                if (i, j) not in seen:
                    ax.text(j, i, "not run", ha="center", va="center", fontsize=7.5, color="0.4")
        for x in range(len(cols) + 1):
            ax.axvline(x - 0.5, color="white", lw=2)
        for y in range(len(rows) + 1):
            ax.axhline(y - 0.5, color="white", lw=2)
        ax.set_xlim(-0.5, len(cols) - 0.5)
        ax.set_ylim(-0.5, len(rows) - 0.5)
        ax.set_xticks(range(len(cols)), [f"{c:,}" for c in cols])
        ax.set_yticks(range(len(rows)), [f"{r:,}" for r in rows])
        ax.set_xlabel(col_label)
        ax.set_title(f"L={deep} against L=1", fontsize=10)
    axes[0].set_ylabel(row_label)
    fig.legend(
        handles=[
            Patch(**patch(side["depth"], True), label="depth ahead, decided"),
            Patch(**patch(side["depth"], False), label="depth's mean ahead, undecided"),
            Patch(**patch(side["width"], False), label="width's mean ahead, undecided"),
            Patch(**patch(side["width"], True), label="width ahead, decided"),
        ],
        loc="outside upper center", ncols=2, fontsize=7.5, frameon=False, title=title,
        title_fontsize=10,
    )  # fmt: skip
    _source_note(fig, source)
    return fig
