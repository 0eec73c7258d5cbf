"""The convergence experiment's tuning at a glance (:func:`converge_tuning_figure`): validation
bits per character against the learning rate, per variant and dropout, so a reader can see that
each chosen rate is an interior optimum of its own grid."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from rnnlab.course.plots.style import LAYER_COLORS, source_note

#: Line style per dropout setting of the regularisation control.
DROPOUT_STYLES = {0.0: "-", 0.2: "--"}


def seed_scores(row: dict, records: Sequence[dict]) -> dict[float, list[float]]:
    """Each tuning seed's validation bits/char of ``row``'s experiment, by rate."""
    out: dict[float, list[float]] = {}
    for r in records:
        if r.get("role") == "tune" and r.get("experiment_key") == row.get("experiment_key"):
            out.setdefault(float(r["lr"]), []).append(float(r["metrics"]["val"]))
    return out


def converge_tuning_figure(
    rows: Sequence[dict], *, title: str, source: str = "", records: Sequence[dict] = ()
) -> Figure:
    """Mean validation bits/char over the tuning seeds against the peak learning rate (log
    scale), one panel per variant and one line per dropout, each seed's score beside it as a
    small cross (from ``records``, the runs behind ``rows``); the chosen rate of a finished grid
    is circled.

    ``rows`` are :func:`rnnlab.experiments.tuning.tuning_report`'s for one budget and length of
    the convergence experiment (:func:`rnnlab.experiments.converge.tuning_experiments`); rows
    with no run yet are left out. Raises ValueError when none has a run."""
    from matplotlib.lines import Line2D
    from matplotlib.ticker import NullLocator

    have = [r for r in rows if any(v is not None for v in r["mean_val"].values())]
    if not have:
        raise ValueError("rows must hold at least one tuning run")
    variants = list(dict.fromkeys(r["labels"]["variant"] for r in have))
    fig = Figure(figsize=(3.4 * len(variants) + 0.6, 3.6), layout="constrained")
    axes = fig.subplots(1, len(variants), sharey=True, squeeze=False)[0]
    for k, (ax, name) in enumerate(zip(axes, variants, strict=True)):
        color = LAYER_COLORS[k % len(LAYER_COLORS)]
        for r in (r for r in have if r["labels"]["variant"] == name):
            drop = float(r.get("dropout", 0.0))
            pts = sorted((float(lr), -v) for lr, v in r["mean_val"].items() if v is not None)
            xs, ys = zip(*pts, strict=True)
            ax.plot(xs, ys, "o", ls=DROPOUT_STYLES.get(drop, ":"), color=color)
            for lr, vals in seed_scores(r, records).items():
                ax.plot([lr] * len(vals), vals, "x", ms=5, ls="", color=color, alpha=0.8)
            if r.get("chosen") is not None:
                y = dict(pts)[float(r["chosen"])]
                ax.plot([r["chosen"]], [y], "o", ms=13, mfc="none", mec="0.1", mew=1.8)
        rates = sorted({float(lr) for r in have if r["labels"]["variant"] == name
                        for lr, v in r["mean_val"].items() if v is not None})  # fmt: skip
        ax.set_xscale("log")
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticks(rates, [f"{x:g}" for x in rates], fontsize=8)
        ax.set_xlim(min(rates) / 1.4, max(rates) * 1.4)
        ax.set_xlabel("peak learning rate (log scale)")
        ax.set_title(name, fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("validation bits per character\n(lower is better)")
    handles = [Line2D([], [], color="0.3", ls=s, marker="o", label=f"dropout {d:g}")
               for d, s in DROPOUT_STYLES.items()]  # fmt: skip
    if records:
        handles.append(Line2D([], [], ls="", marker="x", color="0.3", label="each tuning seed"))
    handles.append(Line2D([], [], ls="", marker="o", ms=11, mfc="none", mec="0.1",
                          label="chosen rate (grid finished)"))  # fmt: skip
    axes[-1].legend(handles=handles, fontsize=7, handlelength=3.5)  # long enough to show dashes
    fig.suptitle(title + "\n(mean over the two tuning seeds)", fontsize=10)
    source_note(fig, source)
    return fig
