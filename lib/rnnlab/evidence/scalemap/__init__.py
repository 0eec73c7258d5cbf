r"""The scale map: claim (b) over budget x training length, read from the scale experiment.

:mod:`rnnlab.experiments.scale` designs and runs the experiment (character LMs on Python's standard
library,
depths 1, 2 and 4 at every budget and training length, 5 seeds per cell). This module turns its
results into what the book shows:

* **the map** (:func:`map_cells`): in every budget x length cell, the paired depth advantage of
  L=2 (or L=4) over L=1 with its 95% interval and one of the four verdicts, Holm-corrected across
  the cells of the map (one family per deep depth), exactly as the labs judge a claim;
* **where depth starts to win** (:func:`supported_frontier`): the smallest budgets and lengths at
  which depth's advantage is *supported*, i.e. the cells with a supported verdict that no other
  supported cell is smaller than in both budget and length;
* **the crossover** (:func:`crossovers`): per budget, the training length at which the mean
  advantage changes sign from width to depth. The point estimate interpolates the mean
  advantages linearly in :math:`\log(\text{steps})` between the two lengths around the change
  and is labelled as an interpolation. The interval is a confidence set that inverts the paired
  t test (:func:`confidence_set`): every length at which "the mean advantage is 0" is not
  rejected at 95%, with each seed's differences kept together across the budget's lengths (one
  seed fixes the data and the test sample at every length, so its errors at different lengths
  move together) and Student's t with n - 1 degrees of freedom (calibrated for 5 seeds). It is
  reported only at the resolution the design has: the measured lengths that bracket it
  (:func:`bracket`), e.g. "between 1,500 and 6,000 steps". Where the map cannot rule out a
  crossover outside it (depth not significantly behind at the shortest length, or not
  significantly ahead at the longest), the bracket is open on that side; nothing is
  extrapolated.

  *A change after seeing the data* (issue 26, item 4). The map's crossover was first declared
  with a percentile bootstrap that resampled each (budget, length) cell independently. The
  complete map showed that design unfit for this experiment: L=2's per-seed differences
  correlate across lengths (r = 0.86-0.96 at 25K, 63K and 400K parameters), which independent
  cells ignore; a percentile bootstrap over n seeds has a spread of sqrt((n - 1) / n) standard
  errors, so at n = 5 its 95% interval spans about 1.75 standard errors each way where the t
  interval spans 2.78; and its interpolated limits were finer than three lengths can resolve.
  The method above replaced it after the map was complete: a new analysis of the same runs,
  reported as such.

* **the gap along training** (:func:`gap_along_training`, :func:`overtakes_at`): per budget, the
  paired advantage on the validation sample at every evaluation step of the longest schedule in
  the map. This is how the CPU pilot measured (the step at which L=2 overtakes L=1 within one
  run; the pilot's notes are not in the repository, so its figures are not quoted); it is a
  view *inside* one schedule, whose rate has not yet decayed at intermediate steps, so it is
  shown beside the map and never judged.

The map is read in :mod:`.cells`, the rate-transfer check in :mod:`.transfer`; this
package re-exports their public names.

A partial results file gives a partial map: a cell enters only with every reporting seed of both
depths, and :func:`status` counts the runs present against the design, so that the book can mark
the map *provisional* with that count. Nothing here fills in a missing cell.

>>> crossing([1500, 3000, 6000], [-0.02, -0.01, 0.01])  # doctest: +ELLIPSIS
4242.6...
>>> crossing([1500, 3000, 6000], [-0.02, -0.01, -0.005]) == math.inf
True
"""

from __future__ import annotations

import math  # noqa: F401  (the doctests above use it)

from rnnlab.evidence.scalemap.cells import (
    BUDGET_KEY,
    CROSSOVER_METHOD,
    DEEP_DEPTHS,
    GRID,
    LENGTH_KEY,
    WIDE,
    Crossover,
    MapStatus,
    bracket,
    confidence_set,
    crossing,
    crossovers,
    design_grid,
    gap_along_training,
    grid_key,
    map_cells,
    overtakes_at,
    status,
    summary_lines,
    supported_frontier,
)
from rnnlab.evidence.scalemap.transfer import transfer_effect, transfer_lines

__all__ = [
    "BUDGET_KEY",
    "CROSSOVER_METHOD",
    "DEEP_DEPTHS",
    "GRID",
    "LENGTH_KEY",
    "WIDE",
    "Crossover",
    "MapStatus",
    "bracket",
    "confidence_set",
    "crossing",
    "crossovers",
    "design_grid",
    "gap_along_training",
    "grid_key",
    "map_cells",
    "overtakes_at",
    "status",
    "summary_lines",
    "supported_frontier",
    "transfer_effect",
    "transfer_lines",
]
