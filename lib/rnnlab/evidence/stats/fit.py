"""What a cell can show: the thresholds, and :func:`not_informative_reason`."""

from __future__ import annotations

import math
from dataclasses import dataclass

# ----------------------------------------------------------------------------- what a cell can show

FAILED_TO_TRAIN_SHARE = 0.25
"""A model has **failed to train** when it gained less than a quarter of what the best model of
its cell (every depth and stack of that task, budget and data) gained over the input-blind
baseline: :math:`(x - b) / (x_\\text{best} - b) < 0.25`, scores oriented so that higher is
better, :math:`b` the baseline (the majority class for accuracies, the unigram model for bits per
character). A model that far behind its own cell is a failed run, and comparing it says how
badly it failed, not what depth does."""

EARLY_BEST_SHARE = 0.1
"""A model has also **failed to train** when, on its median seed, the best validation checkpoint
lies in the first tenth of training: whatever it learned, it learned before the schedule had
started, and the rest of training did not help."""

FLOOR_SHARE = 0.1
"""A cell is **at floor** when every model it compares got less than a tenth of the way from
the baseline to the metric's ceiling: :math:`(x - b) / (c - b) < 0.1` for all of them. Such
models have learned almost nothing, so their difference says nothing about depth."""

UNCONVERGED_SHARE = 0.25
"""A model is **far from convergence** when, on its median seed, the last quarter of its
validation curve (by steps) gave at least a quarter of the curve's whole improvement (first
evaluation to last). A straight line from step 0 gives exactly a quarter; a curve that has
started to flatten gives less.
At or above it, more training would still move the score at the rate it moved on average, and
the comparison could change with the training length. Judged only where records hold curves."""


@dataclass(frozen=True)
class ModelFit:
    """What one model of a cell (one stack at one depth, over its seeds) reached.

    Attributes:
        label: the model in words, e.g. ``L=2`` or ``plain L=8``.
        mean: the mean test score over seeds, in the metric's units.
        best_step_share: the median over seeds of (best checkpoint's step) / (training steps);
            NaN where the records do not say.
        last_quarter_share: the median over seeds of the share of the validation improvement
            made in the last quarter of the curve; NaN where the records hold no curve.
    """

    label: str
    mean: float
    best_step_share: float = math.nan
    last_quarter_share: float = math.nan


@dataclass(frozen=True)
class CellFit:
    """Everything :func:`not_informative_reason` needs to know about one cell.

    Attributes:
        models: the models the cell's comparison uses.
        higher_is_better: the metric's direction.
        chance: the input-blind baseline's test score (NaN: unknown).
        ceiling: the best score the metric allows (``None``: no known ceiling, e.g. bits per
            character).
        best: the best mean test score of any model in the cell's family (every depth and stack
            of the same task, budget and data).
        margin: the metric's smallest effect of interest.
        baseline: what ``chance`` is, in words (``majority class``, ``unigram model``).
    """

    models: tuple[ModelFit, ...]
    higher_is_better: bool
    chance: float
    ceiling: float | None
    best: float
    margin: float
    baseline: str = "chance"


def not_informative_reason(fit: CellFit) -> str:
    """Why a cell cannot count for or against a claim, or ``""`` when it can.

    Checked in this order, every reason that applies is given (joined by ``; ``):

    1. a model **failed to train** (:data:`FAILED_TO_TRAIN_SHARE`, :data:`EARLY_BEST_SHARE`);
    2. the cell is **at floor** (:data:`FLOOR_SHARE`) or **at ceiling**: every model within the
       metric's margin of the ceiling, so no difference as large as the margin can show;
    3. a model is **far from convergence** (:data:`UNCONVERGED_SHARE`).

    A check whose inputs are unknown (NaN chance, no ceiling, no curves) is skipped.
    """
    sign = 1.0 if fit.higher_is_better else -1.0
    reasons = []
    known = not math.isnan(fit.chance)
    if known:
        best_gain = sign * (fit.best - fit.chance)
        for m in fit.models:
            share = sign * (m.mean - fit.chance) / best_gain if best_gain > 0 else 0.0
            if share < FAILED_TO_TRAIN_SHARE:
                reasons.append(
                    f"{m.label} failed to train ({m.mean:.3f}: {max(share, 0):.0%} of the best "
                    f"model's gain over the {fit.baseline}, {fit.chance:.3f})"
                )
    for m in fit.models:
        if m.best_step_share <= EARLY_BEST_SHARE:
            reasons.append(
                f"{m.label} failed to train (best checkpoint at {m.best_step_share:.0%} of "
                "training on the median seed)"
            )
    if known and fit.ceiling is not None:
        room = sign * (fit.ceiling - fit.chance)
        shares = [sign * (m.mean - fit.chance) / room for m in fit.models] if room > 0 else []
        if shares and max(shares) < FLOOR_SHARE:
            reasons.append(
                f"at floor (best {max(m.mean for m in fit.models):.3f} against "
                f"{fit.baseline} {fit.chance:.3f}: {max(max(shares), 0):.0%} of the way to the "
                f"ceiling {fit.ceiling:g})"
            )
    if fit.ceiling is not None and all(
        sign * (fit.ceiling - m.mean) < fit.margin for m in fit.models
    ):
        reasons.append(f"at ceiling (every model within {fit.margin:g} of {fit.ceiling:g})")
    for m in fit.models:
        if m.last_quarter_share >= UNCONVERGED_SHARE:
            reasons.append(
                f"{m.label} far from convergence ({m.last_quarter_share:.0%} of its improvement "
                "in the last quarter of training)"
            )
    return "; ".join(reasons)
