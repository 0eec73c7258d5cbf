r"""Means, confidence intervals and the pre-declared verdict rule.

Every lab compares a wide one-layer model with a deeper, narrower one at the same parameter
count, over several seeds. The effect is the difference of means, oriented so that **positive
means depth is better** (for bits per character, where lower is better, the sign is flipped):

.. math::

    \Delta = s\,(\bar x_\text{deep} - \bar x_\text{wide}),\qquad
    s = \begin{cases} +1 & \text{accuracy} \\ -1 & \text{bits per character} \end{cases}

with a 95% Welch confidence interval (unequal variances, Welch–Satterthwaite degrees of
freedom). A claim states a direction ("depth better" or "width better") **before** the data are
seen, and the verdict is:

* ``supported`` if the interval excludes 0 in the claimed direction,
* ``contradicted`` if it excludes 0 in the other direction,
* ``inconclusive`` otherwise (including when there are fewer than two seeds per side).

That was version 1 of the analysis (:func:`compare`). **Version 2** (:data:`PLAN_V2`, declared
here before any version-2 run, and used by every lab since) changes four things:

1. **Paired by seed.** Seed :math:`s` fixes the data sample (train, val *and* test are drawn
   afresh from ``data_seed + s``) and the batch order for *both* depths, so the unit of
   replication is the seed and the effect is the mean of the per-seed differences
   :math:`d_s = \sigma\,(x^{\text{deep}}_s - x^{\text{wide}}_s)`, with a Student-t interval on
   :math:`n - 1` degrees of freedom. Because every seed has its own test sample, the spread of
   :math:`d_s` contains the test-set sampling as well as the training noise.
2. **A smallest effect of interest** per metric (:attr:`AnalysisPlan.margins`) gives four
   verdicts: *supported* / *contradicted* (the difference from 0 is significant, in the claimed
   or the other direction), *equivalent* (the 95% interval lies inside :math:`\pm` margin: two
   one-sided tests at 2.5%), *inconclusive* (neither: the interval is too wide to say).
3. **Holm's correction** across the cells of one claim, for both families of tests, so that a
   claim judged on many cells does not find an effect by multiplicity.
4. **A comparison without variance is never decisive** (e.g. two depths that both score 1.0 on
   every seed): its verdict is *inconclusive* whatever its mean.

It also reports the number of seeds a paired t-test would need for 80% power at the observed
effect and spread (:func:`seeds_for_power`), at the Holm level the cell is tested at: a planning
figure, not a promise.

**What a cell can show** (added on review, after the version-2 runs, so a change of design and
reported as one): a cell whose models failed to train, that sits at the floor or the ceiling of
its metric, or whose models are still far from converged cannot count for or against a claim.
:func:`not_informative_reason` decides it from the thresholds declared below; such a cell gets a
fifth label, :data:`NOT_INFORMATIVE`, is left out of the claim's Holm family, and the claim is
combined from its informative cells only (:func:`combine_cells`, the one rule of every claim).

The parts: :mod:`~rnnlab.evidence.stats.intervals` (version 1),
:mod:`~rnnlab.evidence.stats.paired` (version 2), :mod:`~rnnlab.evidence.stats.fit` (what a cell
can show); this package exports all of them.
"""

from __future__ import annotations

from rnnlab.evidence.stats.fit import (
    EARLY_BEST_SHARE,
    FAILED_TO_TRAIN_SHARE,
    FLOOR_SHARE,
    UNCONVERGED_SHARE,
    CellFit,
    ModelFit,
    not_informative_reason,
)
from rnnlab.evidence.stats.intervals import (
    DIRECTIONS,
    NOT_INFORMATIVE,
    VERDICTS,
    VERDICTS_V2,
    Comparison,
    Summary,
    combine_verdicts,
    compare,
    summarize,
    verdict_from_interval,
    welch_interval,
)
from rnnlab.evidence.stats.paired import (
    PLAN_V2,
    AnalysisPlan,
    PairedComparison,
    combine_cells,
    combine_verdicts_v2,
    holm,
    holm_levels,
    judge_cells,
    paired_compare,
    seeds_for_power,
    verdict_v2_from_interval,
)

__all__ = [
    "AnalysisPlan",
    "CellFit",
    "combine_cells",
    "combine_verdicts",
    "combine_verdicts_v2",
    "compare",
    "Comparison",
    "DIRECTIONS",
    "EARLY_BEST_SHARE",
    "FAILED_TO_TRAIN_SHARE",
    "FLOOR_SHARE",
    "holm",
    "holm_levels",
    "judge_cells",
    "ModelFit",
    "NOT_INFORMATIVE",
    "not_informative_reason",
    "paired_compare",
    "PairedComparison",
    "PLAN_V2",
    "seeds_for_power",
    "summarize",
    "Summary",
    "UNCONVERGED_SHARE",
    "verdict_from_interval",
    "verdict_v2_from_interval",
    "VERDICTS",
    "VERDICTS_V2",
    "welch_interval",
]
