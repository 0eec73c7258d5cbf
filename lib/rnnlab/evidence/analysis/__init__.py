"""From result records to tables, effects and verdicts.

Everything the lab chapters and the Findings page say about the experiments is computed here,
from the records in a results file (see :mod:`rnnlab.experiments.sweep`). A **cell** is one point
of a lab's
design with every depth in it: the experiment's labels (task, budget, nesting, training-set
size, ...) without the number of layers. Only reporting runs (role ``eval``) are used; the
test-set score of each seed is one observation.

The analysis follows :data:`rnnlab.evidence.stats.PLAN_V2`, declared before the version-2 runs: the
two
depths are compared seed by seed (paired), each cell gets one of four verdicts against the
metric's smallest effect of interest, with Holm's correction across the cells of a claim, and a
claim's verdict always comes with the *scale* it was measured at (:func:`scale_of`). A cell that
cannot show anything (a model failed to train, the cell sits at floor or ceiling, a model is far
from convergence) gets a fifth label instead, *not informative* (:func:`informative`), and the
chance and ceiling of its metric are computed from the task itself (:func:`baseline_of`).

The parts: :mod:`~rnnlab.evidence.analysis.cells` (cells and paired comparisons),
:mod:`~rnnlab.evidence.analysis.informative` (what a cell can show),
:mod:`~rnnlab.evidence.analysis.design` (Lab D), :mod:`~rnnlab.evidence.analysis.report`
(tables, convergence, provenance) and :mod:`~rnnlab.evidence.analysis.verdicts` (the claims'
verdicts); this package exports all of them.
"""

from __future__ import annotations

from rnnlab.evidence.analysis.cells import (
    METRIC_NAMES,
    CellComparison,
    base_cell,
    cell_name,
    cell_of,
    cell_sort_key,
    compare_cells,
    fmt_ci,
    fmt_signed,
    metric_of,
    metric_words,
    paired_scores,
    scores_by_cell,
    span,
)
from rnnlab.evidence.analysis.design import (
    bits_per_parameter_of,
    design_cells,
    equivalence_cell_verdict,
    equivalence_verdict,
)
from rnnlab.evidence.analysis.informative import (
    Baseline,
    baseline_of,
    cell_scores_text,
    closes_gap,
    informative,
    last_quarter_share,
    model_fit,
    models_of,
)
from rnnlab.evidence.analysis.report import (
    convergence,
    curve_gap,
    format_provenance,
    group_scores,
    provenance,
    scale_of,
    summary_rows,
)
from rnnlab.evidence.analysis.verdicts import (
    ClaimVerdict,
    cell_label,
    claim_verdicts,
    judged_in,
    verdict_words,
)

__all__ = [
    "base_cell",
    "Baseline",
    "baseline_of",
    "bits_per_parameter_of",
    "cell_label",
    "cell_name",
    "cell_of",
    "cell_scores_text",
    "cell_sort_key",
    "CellComparison",
    "claim_verdicts",
    "ClaimVerdict",
    "closes_gap",
    "compare_cells",
    "convergence",
    "curve_gap",
    "design_cells",
    "equivalence_cell_verdict",
    "equivalence_verdict",
    "fmt_ci",
    "fmt_signed",
    "format_provenance",
    "group_scores",
    "informative",
    "judged_in",
    "last_quarter_share",
    "METRIC_NAMES",
    "metric_of",
    "metric_words",
    "model_fit",
    "models_of",
    "paired_scores",
    "provenance",
    "scale_of",
    "scores_by_cell",
    "span",
    "summary_rows",
    "verdict_words",
]
