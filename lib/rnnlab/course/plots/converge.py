"""The convergence experiment at a glance.

- :func:`converge_tuning_figure`: validation bits per character against the learning rate, per
  variant and dropout, so a reader can see that each chosen rate is an interior optimum of its
  own grid.
- :func:`converge_curves_figure`: the reporting runs' validation along training, per variant and
  length, with what doubling the training gained (the convergence rule's reading).
- :func:`converge_lead_figure`: two layers' lead over one along training, the scale map's cells
  beside the convergence experiment's, with their intervals and verdicts."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence

from matplotlib.figure import Figure

from rnnlab.core.text import fmt_signed
from rnnlab.course.plots.style import LAYER_COLORS, count_formatter, source_note

#: Line style per dropout setting of the regularisation control.
DROPOUT_STYLES = {0.0: "-", 0.2: "--"}

#: At most this many variant panels side by side. At 1280 px the book shows a notebook figure
#: about 690 px wide: three panels of 3.4 inches were shown at 63% of their size (the browser
#: tests' floor is 80%), and the four variants would be smaller still.
PANELS_PER_ROW = 2


def _panels(n: int, height: float) -> tuple[Figure, list, list]:
    """A figure of ``n`` panels of 3.4 x ``height`` inches sharing the y axis, at most
    :data:`PANELS_PER_ROW` to a row: the panels in order, and the unused slots of the last row
    (axes turned off; a legend may go there)."""
    cols = min(n, PANELS_PER_ROW)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(3.4 * cols + 0.6, height * rows + (0.4 if rows > 1 else 0.0)),
                 layout="constrained")  # fmt: skip
    slots = list(fig.subplots(rows, cols, sharey=True, squeeze=False).flat)
    for ax in slots[n:]:
        ax.set_axis_off()
    return fig, slots[:n], slots[n:]


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
    fig, axes, spare = _panels(len(variants), 3.6)
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
    for ax in axes[::PANELS_PER_ROW]:
        ax.set_ylabel("validation bits per character\n(lower is better)")
    handles = [Line2D([], [], color="0.3", ls=s, marker="o", label=f"dropout {d:g}")
               for d, s in DROPOUT_STYLES.items()]  # fmt: skip
    if records:
        handles.append(Line2D([], [], ls="", marker="x", color="0.3", label="each tuning seed"))
    handles.append(Line2D([], [], ls="", marker="o", ms=11, mfc="none", mec="0.1",
                          label="chosen rate (grid finished)"))  # fmt: skip
    where = spare[0] if spare else axes[-1]
    where.legend(handles=handles, fontsize=7, handlelength=3.5,  # long enough to show dashes
                 loc="center" if spare else "best")  # fmt: skip
    fig.suptitle(title + "\n(mean over the two tuning seeds)", fontsize=10)
    source_note(fig, source)
    return fig


def _mean_curve(runs: Sequence[dict]) -> tuple[list[int], list[float], list[float], list[float]]:
    """Steps every run evaluated at, and the mean, minimum and maximum validation there."""
    curves = [{int(c["step"]): float(c["val"]) for c in r.get("curves", ()) if "val" in c}
              for r in runs]  # fmt: skip
    steps = sorted(set.intersection(*(set(c) for c in curves))) if curves else []
    vals = [[c[s] for c in curves] for s in steps]
    return steps, [sum(v) / len(v) for v in vals], [min(v) for v in vals], [max(v) for v in vals]


def converge_curves_figure(
    runs: dict[str, dict[int, list[dict]]], *, title: str, source: str = "", margin: float = 0.01
) -> Figure:
    """Validation bits/char along training for the convergence experiment's reporting runs at
    one budget: one panel per variant (shared y axis, so depths compare across panels), one line
    style per training length. Each line is the mean over the reporting seeds, the band their
    range, and the dot at the end the mean final score with its 95% t interval. The schedule is
    warmup-stable-decay, so a shorter length leaves the longer run at the start of its cool-down
    and drops there. Each panel prints what doubling the training gained (the quantity the
    declared convergence rule compares with ``margin``), over the seeds at both lengths.

    ``runs`` is :func:`rnnlab.evidence.converge_report.reporting_runs`'s mapping (variant ->
    length -> records). The y axis starts below the best score and ends at the highest mean
    after a quarter of the longest training: the first steps lie above it. Raises ValueError
    when ``runs`` holds no run."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    from rnnlab.evidence.converge_report import doubling_gains
    from rnnlab.evidence.stats import summarize

    have = {v: {n: rs for n, rs in by.items() if rs} for v, by in runs.items()}
    have = {v: by for v, by in have.items() if by}
    if not have:
        raise ValueError("runs must hold at least one reporting run")
    lengths = sorted({n for by in have.values() for n in by}, reverse=True)
    styles = dict(zip(lengths, ("-", "--", ":", "-."), strict=False))
    fig, axes, spare = _panels(len(have), 3.8)
    low, high = math.inf, -math.inf
    for k, (ax, (name, by)) in enumerate(zip(axes, have.items(), strict=True)):
        color = LAYER_COLORS[k % len(LAYER_COLORS)]
        for steps, rs in sorted(by.items(), reverse=True):
            xs, mean, lo, hi = _mean_curve(rs)
            if xs:
                ax.plot(xs, mean, ls=styles[steps], color=color, lw=1.6)
                if len(rs) > 1:
                    ax.fill_between(xs, lo, hi, color=color, alpha=0.15, lw=0)
                late = [m for x, m in zip(xs, mean, strict=True) if x >= lengths[0] / 4]
                high = max([high, *late])
                low = min([low, *lo])
            final = summarize([float(r["metrics"]["val"]) for r in rs])
            if final.n > 1:
                ax.errorbar([steps], [final.mean], yerr=[[final.mean - final.ci_low],
                            [final.ci_high - final.mean]], fmt="o", color=color, ms=5,
                            capsize=3)  # fmt: skip
                low = min(low, final.ci_low)
            else:
                ax.plot([steps], [final.mean], "o", color=color, ms=5)
                low = min(low, final.mean)
            high = max(high, final.mean)
        notes = [f"{h:,} \N{RIGHTWARDS ARROW} {n:,}: gain {fmt_signed(g)} ({s} seed{'s' * (s > 1)})"
                 for h, n, g, s in doubling_gains(by)]  # fmt: skip
        if notes:
            notes.append(f"(converged: gain < {margin:g})")
            ax.text(0.97, 0.96, "\n".join(notes), transform=ax.transAxes, ha="right", va="top",
                    fontsize=7, bbox={"fc": "white", "ec": "0.8", "alpha": 0.9})  # fmt: skip
        seeds = sorted({len(rs) for rs in by.values()})
        ax.set_title(f"{name} ({'-'.join(map(str, seeds))} seed{'s' * (max(seeds) > 1)})",
                     fontsize=10)  # fmt: skip
        ax.set_xlabel("training step")
        ax.xaxis.set_major_formatter(count_formatter())
        ax.grid(alpha=0.3)
    if high > low:
        pad = 0.06 * (high - low)
        axes[0].set_ylim(low - pad, high + pad)
    for ax in axes[::PANELS_PER_ROW]:
        ax.set_ylabel("validation bits per character\n(lower is better)")
    handles = [Line2D([], [], color="0.3", ls=styles[n], label=f"{n:,} steps") for n in lengths]
    handles += [
        Patch(color="0.3", alpha=0.15, label="range over seeds"),
        Line2D([], [], color="0.3", marker="o", ls="", label="final, 95% interval"),
    ]
    where = spare[0] if spare else axes[-1]
    where.legend(handles=handles, fontsize=7, handlelength=3.5,
                 loc="center" if spare else "lower left")  # fmt: skip
    fig.suptitle(title + "\n(reporting runs: mean over seeds)", fontsize=10)
    source_note(fig, source)
    return fig


#: Verdicts that decide a comparison: drawn as filled markers, the others hollow.
DECIDED = ("supported", "contradicted", "equivalent")

#: How each series of :func:`rnnlab.evidence.converge_context.two_layer_leads` is drawn.
LEAD_STYLES = {
    "scale map": {"marker": "s", "color": "0.45"},
    "convergence experiment": {"marker": "o", "color": LAYER_COLORS[0]},
}


def converge_lead_figure(
    leads: dict[int, dict[str, Sequence]], *, title: str, source: str = "", margin: float = 0.01
) -> Figure:
    """Two layers' lead over one (L2 - L1, test bits per character, > 0: two layers better)
    against the training length, one panel per budget: each series of ``leads`` (budget ->
    series name -> points with ``steps``, ``effect``, ``low``, ``high``, ``verdict`` and
    ``seeds``, as :func:`rnnlab.evidence.converge_context.two_layer_leads` gives them) as points
    with their 95% intervals, filled where the verdict decides the comparison
    (:data:`DECIDED`), hollow where it does not, with the verdict written beside each point.
    A band marks +/- ``margin`` (the smallest effect of interest) and a line zero. The x axis
    is logarithmic: the lengths double. Raises ValueError when ``leads`` holds no point."""
    from matplotlib.lines import Line2D

    have = {b: {n: pts for n, pts in by.items() if pts} for b, by in sorted(leads.items())}
    have = {b: by for b, by in have.items() if by}
    if not have:
        raise ValueError("leads must hold at least one point")
    # the source names two experiments' runs and can fill several lines: the figure grows by
    # their height, so the panels keep theirs
    fig, axes, spare = _panels(len(have), 3.6)
    notes = textwrap.wrap("Source: " + source, int(fig.get_figwidth() * 17)) if source else []
    fig.set_figheight(fig.get_figheight() + 0.12 * len(notes))
    ends = [x for by in have.values() for pts in by.values() for p in pts for x in (p.low, p.high)]
    low, high = min([*ends, -margin]), max([*ends, margin])
    pad = 0.15 * (high - low)
    for ax, (budget, by) in zip(axes, have.items(), strict=True):
        ax.axhspan(-margin, margin, color="0.9", lw=0)
        ax.axhline(0.0, color="0.3", lw=0.8)
        for name, pts in by.items():
            style = LEAD_STYLES.get(name, {"marker": "^", "color": LAYER_COLORS[1]})
            for p in pts:
                filled = p.verdict in DECIDED
                ax.errorbar([p.steps], [p.effect], yerr=[[p.effect - p.low], [p.high - p.effect]],
                            fmt=style["marker"], color=style["color"], ms=6, capsize=3,
                            mfc=style["color"] if filled else "white")  # fmt: skip
                above = name != "scale map"  # the map's words below: the series meet at 6K-8K
                ax.annotate(p.verdict, (p.steps, p.high if above else p.low),
                            xytext=(0, 3 if above else -3), textcoords="offset points",
                            ha="center", va="bottom" if above else "top", fontsize=6,
                            color=style["color"])  # fmt: skip
        ax.set_xscale("log")
        steps = sorted({p.steps for pts in by.values() for p in pts})
        ax.set_xticks(steps)
        ax.set_xticklabels([f"{n / 1000:g}K" for n in steps], fontsize=8)
        ax.minorticks_off()
        ax.set_xlim(steps[0] / 1.5, steps[-1] * 1.5)
        ax.set_ylim(low - pad, high + pad)
        ax.set_title(f"{budget:,} parameters", fontsize=10)
        ax.set_xlabel("training steps (log scale)")
        ax.grid(alpha=0.3)
    for ax in axes[::PANELS_PER_ROW]:
        ax.set_ylabel("L2 - L1, test bits per character\n(> 0: two layers better)")
    handles = [
        Line2D([], [], ls="", marker=s["marker"], color=s["color"], label=f"{name}")
        for name, s in LEAD_STYLES.items()
        if any(name in by for by in have.values())
    ]
    handles += [
        Line2D([], [], ls="", marker="o", color="0.3", mfc="white", label="hollow: not decided"),
        Line2D([], [], color="0.9", lw=6, label=f"within +/-{margin:g} (the margin)"),
    ]
    where = spare[0] if spare else axes[-1]
    where.legend(handles=handles, fontsize=7, loc="center" if spare else "best")
    fig.suptitle(title + "\n(95% intervals; each series on its own test set)", fontsize=10)
    source_note(fig, source)
    return fig
