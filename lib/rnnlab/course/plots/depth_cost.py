"""What depth costs (the design chapter): the wavefront schedule's critical path, and measured
time per token against depth at equal parameters."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from rnnlab.course.plots.style import LAYER_COLORS, LAYER_STYLES, source_note


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
    source_note(fig, source)
    return fig
