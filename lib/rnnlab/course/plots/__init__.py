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
- :func:`converge_tuning_figure`: the convergence experiment's tuning, validation against the
  learning rate per variant and dropout.
- :func:`converge_curves_figure`: its reporting runs' validation along training, per variant and
  length, with what doubling the training gained.
- :func:`converge_lead_figure`: two layers' lead over one along training, the scale map's cells
  beside the convergence experiment's, with intervals and verdicts.

What depth costs (the design chapter):

- :func:`critical_path_figure`: the :math:`L \times T` grid of cell updates with the wavefront
  schedule's time steps, and the critical path against depth for both schedules.
- :func:`depth_cost_figure`: measured training and generation time per token against depth at
  equal parameters, beside the FLOPs per token (rows of ``benchmarks/bench_depth_cost.py``).

The functions live in submodules by subject (:mod:`.counting`, :mod:`.results`,
:mod:`.depth_cost`, :mod:`.scale_map`, :mod:`.converge`, shared look in :mod:`.style`); this
package re-exports them, so ``from rnnlab.course import plots;
plots.depth_comparison_figure(...)`` works.
"""

from __future__ import annotations

from rnnlab.course.plots.converge import (
    converge_curves_figure,
    converge_lead_figure,
    converge_tuning_figure,
)
from rnnlab.course.plots.counting import halving_ratio_figure, param_count_vs_width
from rnnlab.course.plots.depth_cost import critical_path_figure, depth_cost_figure
from rnnlab.course.plots.results import (
    curve_gap_figure,
    depth_comparison_figure,
    gap_heatmap,
    gap_vs_budget_figure,
    group_score_figure,
    tuning_figure,
)
from rnnlab.course.plots.scale_map import scale_map_overview
from rnnlab.course.plots.style import (
    LAYER_COLORS,
    LAYER_STYLES,
    METRIC_LABELS,
    SMOKE_FACECOLOR,
    SMOKE_HATCH,
    SMOKE_WATERMARK,
    smoke_figure_style,
)

__all__ = [
    "converge_curves_figure",
    "converge_lead_figure",
    "converge_tuning_figure",
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
    "LAYER_COLORS",
    "LAYER_STYLES",
    "METRIC_LABELS",
    "SMOKE_FACECOLOR",
    "SMOKE_HATCH",
    "SMOKE_WATERMARK",
]
