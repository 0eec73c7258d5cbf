"""Parameter-count figures (chapter 1): :math:`P_L(d)` against width with the budget-matched
widths, and the halving ratio of a two-layer stack at half the width."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from rnnlab.core import params
from rnnlab.course.plots.style import LAYER_COLORS, LAYER_STYLES, count_formatter


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
    ax.yaxis.set_major_formatter(count_formatter())
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
