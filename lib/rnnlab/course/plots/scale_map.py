"""The scale map at a glance (:func:`scale_map_overview`): where each side leads, and how sure we
are, for the "What we found" summary."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from rnnlab.core.text import fmt_signed
from rnnlab.course.plots.style import LAYER_COLORS, source_note


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
                j, i, f"{fmt_signed(k.effect)}\n{k.verdict}", ha="center", va="center",
                fontsize=7.5,
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
    source_note(fig, source)
    return fig
