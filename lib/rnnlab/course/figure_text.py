"""Alt texts for the course's figures, computed from the data each figure plots.

Every figure of :mod:`rnnlab.course.plots` has a describing function here that takes the same
arguments
(the same records, comparisons or benchmark rows) and returns its alt text: what the figure shows
and the numbers a sighted reader takes from it. So the text changes when the data change, and
no alt text is typed in a notebook.

:func:`described` pairs a figure with its text. Displayed in a notebook it is a PNG whose
``Description`` text chunk (the PNG keyword for a description of the image) holds the alt text,
with the alt text as its plain-text form; :mod:`rnnlab.course.sphinxext` reads the chunk back and
makes it the ``alt`` of the image on the website (myst-nb 1.x takes an image's alt text only from
cell metadata, which is typed; see :func:`png_alt_text`).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from rnnlab.core.text import fmt_signed
from rnnlab.evidence.analysis import fmt_ci

DESCRIPTION_KEY = "Description"
"""The PNG text keyword that carries the alt text (a registered keyword of the PNG standard)."""


@dataclass(frozen=True)
class DescribedFigure:
    """A figure with its alt text; Jupyter displays it as a PNG that carries the text."""

    figure: Figure
    alt: str

    def png(self) -> bytes:
        """The figure as PNG bytes (as IPython's inline backend draws it: the figure's dpi and
        face colour, a tight bounding box) with ``alt`` in the ``Description`` text chunk."""
        buf = io.BytesIO()
        self.figure.savefig(
            buf,
            format="png",
            dpi=self.figure.dpi,
            facecolor=self.figure.get_facecolor(),
            edgecolor=self.figure.get_edgecolor(),
            bbox_inches="tight",
            metadata={DESCRIPTION_KEY: self.alt},
        )
        return buf.getvalue()

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = {"image/png": base64.b64encode(self.png()).decode("ascii"), "text/plain": self.alt}
        return data, {"image/png": {"alt": self.alt}}


def described(figure: Figure, alt: str) -> DescribedFigure:
    """``figure`` with its alt text ``alt`` (non-empty, and not a file name)."""
    if not alt.strip() or alt.strip().lower().endswith((".png", ".svg", ".jpg")):
        raise ValueError(f"alt must describe the figure, got {alt!r}")
    return DescribedFigure(figure, " ".join(alt.split()))


def png_alt_text(path: str | Path) -> str | None:
    """The alt text stored in a PNG by :meth:`DescribedFigure.png`, or None (no such chunk, or
    not a PNG)."""
    from PIL import Image

    try:
        with Image.open(path) as im:
            text = getattr(im, "text", {}) or {}
    except (OSError, ValueError):
        return None
    alt = text.get(DESCRIPTION_KEY)
    return str(alt) if alt else None


def _num(x: float) -> str:
    return f"{x:,.3f}"


def _join(parts: Sequence[str]) -> str:
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


# --- chapter 1: counting -------------------------------------------------------------------------


def param_count_vs_width_alt(
    input_size: int, budget: int, *, max_layers: int = 4, halving_from: int | None = None
) -> str:
    """Alt text of :func:`rnnlab.course.plots.param_count_vs_width` with the same arguments."""
    from rnnlab.core import params

    widths = [
        params.matched_width(budget, input_size, L).hidden_size for L in range(1, max_layers + 1)
    ]
    text = (
        f"Line plot of LSTM parameter count against hidden size d, for input size "
        f"m = {input_size}, one rising parabola per depth L = "
        f"{', '.join(str(L) for L in range(1, max_layers + 1))}; deeper stacks rise faster. "
        f"A horizontal dotted line marks the budget B = {budget:,}. Dots mark where each curve "
        f"meets the budget: d = "
        + _join([f"{w} for L={L}" for L, w in enumerate(widths, start=1)])
        + "."
    )
    if halving_from is not None:
        half = params.lstm_param_count(input_size, halving_from // 2, 2)
        text += (
            f" A black cross marks two layers at d = {halving_from // 2} (half of {halving_from}):"
            f" {half:,} parameters, {half / budget:.0%} of the budget."
        )
    return text


def halving_ratio_alt(
    input_sizes: Sequence[int], *, num_layers: int = 2, max_width: int = 4096
) -> str:
    """Alt text of :func:`rnnlab.course.plots.halving_ratio_figure` with the same arguments."""
    from rnnlab.core import params

    limit = (2 * num_layers - 1) / 4
    at_max = [params.halving_ratio(m, max_width, num_layers) for m in input_sizes]
    at_min = [params.halving_ratio(m, 2, num_layers) for m in input_sizes]
    return (
        f"Left: line plot of the ratio of a {num_layers}-layer LSTM at half width to a one-layer "
        f"LSTM at full width, against the one-layer width d from 2 to {max_width:,} on a log "
        f"scale, one line per input size m = {', '.join(str(m) for m in input_sizes)}. At "
        f"d = {max_width:,} the ratios are {_join([f'{r:.2f}' for r in at_max])}, near the dashed "
        f"limit {limit:.2f}; at d = 2 they are {_join([f'{r:.2f}' for r in at_min])}. A dotted "
        f"line at 1.0 marks the seed's claim; the highest ratio is "
        f"{max(at_max + at_min):.2f}. Right: heat map of the same ratio over input size m and "
        "width d, both log scale, with contour lines."
    )


# --- the labs: records and comparisons ------------------------------------------------------------


def depth_comparison_alt(records: Sequence[dict], *, note: str = "") -> str:
    """Alt text of :func:`rnnlab.course.plots.depth_comparison_figure` for the same ``records``: per
    panel (cell), the mean test score of each depth and the number of seeds."""
    from rnnlab.evidence import analysis
    from rnnlab.experiments import store

    by_cell = analysis.scores_by_cell(records)
    cells = sorted(by_cell, key=analysis.cell_sort_key)
    if not cells:
        raise ValueError("records must hold at least one eval run, got none")
    metrics = {r["metrics"]["metric"] for r in store.eval_records(records)}
    parts = []
    for cell in cells:
        by_l = by_cell[cell]
        means = ", ".join(f"L={L} {_num(float(np.mean(v)))}" for L, v in sorted(by_l.items()))
        seeds = sorted({len(v) for v in by_l.values()})
        n = f"{seeds[0]} seeds each" if len(seeds) == 1 else f"{seeds[0]}-{seeds[-1]} seeds"
        parts.append(f"{analysis.cell_name(cell)}: {means} ({n})")
    text = (
        f"{len(cells)} panel{'s' if len(cells) > 1 else ''}, one per cell, each with every "
        f"seed's score as points and the mean with its 95% interval by number of layers; "
        f"{' and '.join(sorted(analysis.metric_words(m) for m in metrics))}, mean per depth: "
        + "; ".join(parts)
        + "."
    )
    return f"{text} {note}".strip()


def gap_heatmap_alt(
    comparisons: Sequence,
    *,
    row_key: str,
    col_key: str,
    row_label: str,
    col_label: str,
    rows: Sequence | None = None,
    cols: Sequence | None = None,
    effect: str = "depth advantage",
    note: str = "",
) -> str:
    """Alt text of :func:`rnnlab.course.plots.gap_heatmap` for the same comparisons and grid: the
    grid,
    how many cells have results, the largest and smallest advantage and the verdicts' counts."""
    rows = sorted({dict(c.cell)[row_key] for c in comparisons}) if rows is None else list(rows)
    cols = sorted({dict(c.cell)[col_key] for c in comparisons}) if cols is None else list(cols)

    def at(c) -> str:
        d = dict(c.cell)
        return f"{row_label} {d[row_key]:,}, {col_label} {d[col_key]:,}"

    text = (
        f"Heat map of the {effect} with {row_label} ({_join([f'{r:,}' for r in rows])}) on the "
        f"vertical axis and {col_label} ({_join([f'{c:,}' for c in cols])}) on the horizontal "
        f"axis; {len(comparisons)} of {len(rows) * len(cols)} cells have results"
    )
    if comparisons:
        hi = max(comparisons, key=lambda c: c.comparison.effect)
        lo = min(comparisons, key=lambda c: c.comparison.effect)
        verdicts: dict[str, int] = {}
        for c in comparisons:
            v = getattr(c.comparison, "verdict", "") or "no verdict"
            verdicts[v] = verdicts.get(v, 0) + 1
        uncertain = sum(
            not (c.comparison.ci_low > 0 or c.comparison.ci_high < 0) for c in comparisons
        )
        text += (
            f". Largest {fmt_signed(hi.comparison.effect)} at {at(hi)}; smallest "
            f"{fmt_signed(lo.comparison.effect)} at {at(lo)}. Verdicts: "
            + _join([f"{n} {v}" for v, n in sorted(verdicts.items())])
            + f"; {uncertain} cell{'s' if uncertain != 1 else ''} with an interval containing 0 "
            "drawn faded and hatched"
        )
    return f"{text}. {note}".strip()


def curve_gap_alt(
    gaps: dict[str, list[dict]], *, effect: str, unit: str = "bits per character"
) -> str:
    """Alt text of :func:`rnnlab.course.plots.curve_gap_figure` for the same series: where each line
    ends, with its 95% interval."""
    if not gaps:
        raise ValueError("gaps must hold at least one series")
    ends = []
    for name, rows in gaps.items():
        last = rows[-1]
        ends.append(
            f"{name}: {fmt_ci(last['gap'], last['ci_low'], last['ci_high'])} at step "
            f"{last['step']:,}"
        )
    return (
        f"Line chart of the {effect} in validation {unit} against training steps, one line with "
        f"a shaded 95% band per series and a line at zero (above zero: the deeper stack is "
        "better). Where each line ends: " + "; ".join(ends) + "."
    )


def tuning_alt(rows: Sequence[dict], *, what: str = "mean validation score") -> str:
    """Alt text of :func:`rnnlab.course.plots.tuning_figure` for the same ``rows``: the chosen rate
    of
    every depth in every panel."""
    if not rows:
        raise ValueError("rows must not be empty")
    chosen = []
    for r in sorted(rows, key=lambda r: (str(sorted(dict(r["labels"]).items())), r["num_layers"])):
        labels = {k: v for k, v in dict(r["labels"]).items() if k not in ("task", "budget_target")}
        where = ", ".join(
            f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in labels.items()
        )
        chosen.append(f"{where}, L={r['num_layers']}: {r['chosen']:g}")
    grid = sorted({lr for r in rows for lr in r.get("grid", ())})
    span = f" from {grid[0]:g} to {grid[-1]:g}" if grid else ""
    return (
        f"Panels of the {what} against the peak learning rate{span} on a logarithmic axis, one "
        "line per depth, the chosen rate circled. Chosen rates: " + "; ".join(chosen) + "."
    )


def converge_tuning_alt(rows: Sequence[dict], records: Sequence[dict] = ()) -> str:
    """Alt text of :func:`rnnlab.course.plots.converge_tuning_figure` for the same ``rows`` and
    ``records``: per variant and dropout, the rates tried and the best mean validation so far,
    with its seeds' range."""
    from rnnlab.course.plots.converge import seed_scores

    parts = []
    for r in rows:
        pts = {float(lr): -v for lr, v in r["mean_val"].items() if v is not None}
        if not pts:
            continue
        best = min(pts, key=pts.__getitem__)
        state = f"chosen {r['chosen']:g}" if r.get("chosen") is not None else "grid not finished"
        seeds = sorted(seed_scores(r, records).get(best, []))
        spread = f", seeds {seeds[0]:.3f}-{seeds[-1]:.3f}" if len(seeds) > 1 else ""
        parts.append(
            f"{r['labels']['variant']} dropout {float(r.get('dropout', 0.0)):g}: rates "
            f"{', '.join(f'{x:g}' for x in sorted(pts))}, lowest {pts[best]:.3f} at {best:g}"
            f"{spread} ({state})"
        )
    if not parts:
        raise ValueError("rows must hold at least one tuning run")
    return (
        "Panels, one per variant, of the mean validation bits per character over the tuning "
        "seeds against the peak learning rate on a logarithmic axis, a solid line for dropout 0 "
        "and a dashed one for dropout 0.2"
        + (", each seed a cross" if records else "")
        + ", the chosen rate of a finished grid circled. "
        + "; ".join(parts)
        + "."
    )


def converge_curves_alt(runs: dict[str, dict[int, list[dict]]]) -> str:
    """Alt text of :func:`rnnlab.course.plots.converge_curves_figure` for the same ``runs``: per
    variant and length, the seeds, the mean final validation and the seeds' range, and what
    doubling the training gained."""
    from rnnlab.evidence.converge_report import doubling_gains

    parts = []
    for name, by in runs.items():
        lens = []
        for steps, rs in sorted(by.items(), reverse=True):
            if not rs:
                continue
            vals = sorted(float(r["metrics"]["val"]) for r in rs)
            spread = f" (seeds {vals[0]:.3f}-{vals[-1]:.3f})" if len(vals) > 1 else ""
            lens.append(f"{steps:,} steps, {len(vals)} seed{'s' * (len(vals) > 1)}, final "
                        f"{sum(vals) / len(vals):.3f}{spread}")  # fmt: skip
        if not lens:
            continue
        gains = [f"doubling {h:,} to {n:,} steps gains {g:.3f}" for h, n, g, _ in
                 doubling_gains({n: rs for n, rs in by.items() if rs})]  # fmt: skip
        parts.append(f"{name}: " + "; ".join(lens + gains))
    if not parts:
        raise ValueError("runs must hold at least one reporting run")
    return (
        "Panels, one per variant, of validation bits per character against the training step: "
        "for each training length the mean over the reporting seeds as a line (one line style "
        "per length), their range as a band and the mean final score as a dot with its 95% "
        "interval. " + ". ".join(parts) + "."
    )


def converge_lead_alt(leads: dict[int, dict[str, Sequence]], margin: float = 0.01) -> str:
    """Alt text of :func:`rnnlab.course.plots.converge_lead_figure` for the same ``leads`` and
    ``margin``: per budget and series, each length's lead with its 95% interval, verdict and
    seeds."""
    from rnnlab.evidence.analysis import fmt_ci

    parts = []
    for budget, by in sorted(leads.items()):
        said = [
            f"{name}: "
            + "; ".join(
                f"{p.steps:,} steps {fmt_ci(p.effect, p.low, p.high)} ({p.verdict}, "
                f"{p.seeds} seeds)"
                for p in pts
            )  # fmt: skip
            for name, pts in by.items()
            if pts
        ]
        if said:
            parts.append(f"{budget:,} parameters, " + "; ".join(said))
    if not parts:
        raise ValueError("leads must hold at least one point")
    return (
        "Two layers' lead over one (L2 - L1, test bits per character, above 0: two layers "
        "better) against the training steps on a log axis, one panel per budget, each point with "
        "its 95% interval, filled where its verdict decides the comparison; a grey band marks "
        f"the margin of {margin:g}. " + ". ".join(parts) + "."
    )


# --- the design chapter: what depth costs ---------------------------------------------------------


def critical_path_alt(
    *, grid_layers: int, grid_steps: int, depths: Sequence[int], seq_len: int
) -> str:
    """Alt text of :func:`rnnlab.course.plots.critical_path_figure` with the same arguments."""
    from rnnlab.core import cost

    wave = [cost.critical_path(L, seq_len, schedule="wavefront") for L in depths]
    serial = [cost.critical_path(L, seq_len) for L in depths]
    return (
        f"Left: a grid of {grid_layers} layers by {grid_steps} time steps, each cell labelled with "
        f"the wavefront step k+t-1 at which it runs, from 1 to "
        f"{cost.critical_path(grid_layers, grid_steps, schedule='wavefront')}: "
        f"{cost.critical_path(grid_layers, grid_steps, schedule='wavefront')} wavefront steps "
        f"against {cost.critical_path(grid_layers, grid_steps)} layer by layer. Right: the "
        f"critical path in sequential cell updates against L = {', '.join(map(str, depths))} "
        f"(log scale) for T = {seq_len}: layer by layer and generation {_join(map(str, serial))}; "
        f"wavefront {_join(map(str, wave))}."
    )


def depth_cost_alt(rows: Sequence[dict]) -> str:
    """Alt text of :func:`rnnlab.course.plots.depth_cost_figure` for the same benchmark ``rows``:
    per
    budget, each panel's value at the shallowest and the deepest stack."""
    if not rows:
        raise ValueError("rows must hold at least one benchmark row, got none")
    depths = sorted({r["num_layers"] for r in rows})
    parts = []
    for budget in sorted({r["budget"] for r in rows}):
        by_l = {r["num_layers"]: r for r in rows if r["budget"] == budget}
        lo, hi = by_l[min(by_l)], by_l[max(by_l)]
        parts.append(
            f"{budget:,} parameters, L={min(by_l)} to L={max(by_l)}: forward FLOPs per token "
            f"{lo['forward_flops'] / 1e3:,.0f}K to {hi['forward_flops'] / 1e3:,.0f}K, training "
            f"{lo['train_s_per_token'] * 1e6:,.0f} to {hi['train_s_per_token'] * 1e6:,.0f} us per "
            f"token, generation {lo['gen_s_per_token'] * 1e6:,.0f} to "
            f"{hi['gen_s_per_token'] * 1e6:,.0f} us per token"
        )
    return (
        f"Three line plots against the number of layers L = {', '.join(map(str, depths))} (log "
        "scale), one line per budget: forward FLOPs per token (counted, beside the dotted 2P "
        "line), measured training time per token and measured generation time per token. "
        + "; ".join(parts)
        + "."
    )


def profile_note(profile) -> str:
    """What a figure drawn from a profile's own run stands for: "" for a profile whose results
    are evidence, else the profile's name and its declared description (a
    :class:`rnnlab.experiments.profiles.Profile`)."""
    if profile.evidence:
        return ""
    return f"Profile {profile.name}, not evidence: {profile.description}"
