"""The look every course figure shares: layer colours and line styles, count tick labels, metric
axis labels, the source note under a figure, the depth-advantage axes, and the smoke-profile
style (:func:`smoke_figure_style`) that marks a code-path check as not evidence."""

from __future__ import annotations

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

#: Colours (Okabe-Ito, colour-blind safe) and line styles for L = 1, 2, 3, 4, ... layers.
LAYER_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
LAYER_STYLES = ("-", "--", "-.", ":", "-", "--")


def count_formatter() -> FuncFormatter:
    """Tick labels like ``250k`` or ``1.2M`` for parameter counts."""

    def fmt(value: float, _pos: int) -> str:
        if abs(value) >= 1e6:
            return f"{value / 1e6:.3g}M"
        if abs(value) >= 1e3:
            return f"{value / 1e3:.4g}k"
        return f"{value:.0f}"

    return FuncFormatter(fmt)


METRIC_LABELS = {
    "accuracy": "test accuracy (fraction correct)",
    "sequence_accuracy": "test sequence accuracy (fraction)",
    "bits_per_char": "test bits per character (lower is better)",
}


def source_note(fig: Figure, source: str) -> None:
    """Print where the numbers come from under the figure (space reserved by the layout)."""
    if source:
        import textwrap

        width = int(fig.get_figwidth() * 17)
        fig.supxlabel(textwrap.fill("Source: " + source, width), fontsize=7, color="0.3")


def finish_gap_axes(ax, ylabel: str, title: str) -> None:
    """The zero line, labels, legend and grid shared by the depth-advantage figures."""
    ax.axhline(0, color="0.2", lw=1)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)


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
