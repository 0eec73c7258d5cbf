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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from scipy import stats as _st

VERDICTS = ("supported", "contradicted", "inconclusive")
NOT_INFORMATIVE = "not informative"
"""The fifth label: the cell cannot show what its claim asks (the reason is stored beside it)."""
VERDICTS_V2 = ("supported", "contradicted", "equivalent", "inconclusive", NOT_INFORMATIVE)
"""Every cell and claim verdict of version 2, :data:`NOT_INFORMATIVE` included."""
DIRECTIONS = ("depth", "width")


@dataclass(frozen=True)
class Summary:
    """Mean, sample standard deviation, count and 95% t-interval of one group of seeds."""

    mean: float
    std: float
    n: int
    ci_low: float
    ci_high: float


def summarize(values: Sequence[float], confidence: float = 0.95) -> Summary:
    """Mean, standard deviation (ddof=1) and a Student-t confidence interval of ``values``."""
    xs = [float(v) for v in values]
    if not xs:
        raise ValueError("values must hold at least one number, got an empty sequence")
    if not (0 < confidence < 1):
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return Summary(mean, math.nan, n, math.nan, math.nan)
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = _st.t.ppf(0.5 + confidence / 2, n - 1) * std / math.sqrt(n)
    return Summary(mean, std, n, mean - half, mean + half)


@dataclass(frozen=True)
class Comparison:
    """Depth-minus-width effect (positive = depth better) with its Welch interval and verdict."""

    claim: str  # "depth" or "width": which side the claim says is better
    effect: float
    ci_low: float
    ci_high: float
    dof: float
    wide: Summary
    deep: Summary
    verdict: str

    def to_dict(self) -> dict:
        return asdict(self)


def welch_interval(
    a: Sequence[float], b: Sequence[float], confidence: float = 0.95
) -> tuple[float, float, float, float]:
    """``mean(b) - mean(a)`` and its Welch ``confidence`` interval: ``(diff, low, high, dof)``.

    Needs at least two values per side; otherwise the interval is ``(nan, nan)``.
    """
    sa, sb = summarize(a), summarize(b)
    diff = sb.mean - sa.mean
    if sa.n < 2 or sb.n < 2:
        return diff, math.nan, math.nan, math.nan
    va, vb = sa.std**2 / sa.n, sb.std**2 / sb.n
    se = math.sqrt(va + vb)
    if se == 0:
        return diff, diff, diff, math.inf
    dof = (va + vb) ** 2 / (va**2 / (sa.n - 1) + vb**2 / (sb.n - 1))
    half = _st.t.ppf(0.5 + confidence / 2, dof) * se
    return diff, diff - half, diff + half, dof


def verdict_from_interval(low: float, high: float, claim: str) -> str:
    """The pre-declared rule: does the interval of (depth − width) exclude 0, and which way?"""
    if claim not in DIRECTIONS:
        raise ValueError(f"claim must be one of {DIRECTIONS}, got {claim!r}")
    if math.isnan(low) or math.isnan(high):
        return "inconclusive"
    if low > 0:
        return "supported" if claim == "depth" else "contradicted"
    if high < 0:
        return "supported" if claim == "width" else "contradicted"
    return "inconclusive"


def compare(
    wide: Sequence[float],
    deep: Sequence[float],
    *,
    higher_is_better: bool,
    claim: str,
    confidence: float = 0.95,
) -> Comparison:
    """Compare per-seed scores of the wide and the deep model under the pre-declared rule."""
    sign = 1.0 if higher_is_better else -1.0
    diff, low, high, dof = welch_interval(wide, deep, confidence)
    effect, lo, hi = sign * diff, *sorted((sign * low, sign * high))
    return Comparison(
        claim=claim,
        effect=effect,
        ci_low=lo,
        ci_high=hi,
        dof=dof,
        wide=summarize(wide, confidence),
        deep=summarize(deep, confidence),
        verdict=verdict_from_interval(lo, hi, claim),
    )


def combine_verdicts(verdicts: Sequence[str]) -> str:
    """A claim's overall verdict from its pre-declared cells.

    ``supported`` if at least half the cells support it and none contradicts it;
    ``contradicted`` if at least half contradict it and none supports it; otherwise
    ``inconclusive`` (mixed or weak evidence).
    """
    vs = list(verdicts)
    if not vs:
        return "inconclusive"
    for v in vs:
        if v not in VERDICTS:
            raise ValueError(f"verdicts must be among {VERDICTS}, got {v!r}")
    sup, con = vs.count("supported"), vs.count("contradicted")
    if sup * 2 >= len(vs) and con == 0:
        return "supported"
    if con * 2 >= len(vs) and sup == 0:
        return "contradicted"
    return "inconclusive"


# ----------------------------------------------------------------------------- version 2


@dataclass(frozen=True)
class AnalysisPlan:
    """The analysis of every version-2 lab, fixed before the runs (see the module docstring).

    Attributes:
        version: the plan's name, stored beside every verdict.
        paired: compare depths seed by seed (both depths share each seed's data and batch order).
        confidence: of every interval shown.
        alpha: the family-wise error rate of each claim's tests (Holm).
        margins: the smallest effect of interest per metric, in the metric's units.
        power: the target power of :func:`seeds_for_power`.
    """

    version: str = "v2"
    paired: bool = True
    confidence: float = 0.95
    alpha: float = 0.05
    margins: tuple[tuple[str, float], ...] = (
        ("accuracy", 0.01),
        ("sequence_accuracy", 0.02),
        ("bits_per_char", 0.01),
    )
    power: float = 0.8

    def margin(self, metric: str) -> float:
        m = dict(self.margins)
        if metric not in m:
            raise ValueError(f"metric must be one of {sorted(m)}, got {metric!r}")
        return m[metric]

    def to_dict(self) -> dict:
        d = asdict(self)
        d["margins"] = dict(self.margins)
        return d


PLAN_V2 = AnalysisPlan()


@dataclass(frozen=True)
class PairedComparison:
    """A paired depth-vs-width comparison (positive effect = depth better).

    ``p_diff`` is the two-sided p-value of "the mean difference is 0"; ``p_equiv`` the larger
    one-sided p-value of the two tests "difference <= -margin" and ">= +margin" (TOST). Both are
    unadjusted; :func:`judge_cells` applies Holm's correction across a claim's cells and sets
    ``seeds_for_power`` at the level ``power_alpha`` the cell is tested at. A cell labelled
    :data:`NOT_INFORMATIVE` keeps its interval but no p-values, and says why in ``reason``.
    """

    claim: str
    effect: float
    ci_low: float
    ci_high: float
    sd: float
    n: int
    margin: float
    p_diff: float
    p_equiv: float
    wide: Summary
    deep: Summary
    differences: tuple[float, ...]
    seeds_for_power: int | None
    verdict: str = "inconclusive"  # after the claim's correction (set by judge_cells)
    p_diff_adjusted: float = math.nan
    p_equiv_adjusted: float = math.nan
    power_alpha: float = math.nan  # the (Holm) level seeds_for_power is computed at
    reason: str = ""  # why the cell is NOT_INFORMATIVE (empty when it is informative)

    def to_dict(self) -> dict:
        return asdict(self)


def seeds_for_power(
    effect: float, sd: float, *, alpha: float = 0.05, power: float = 0.8, most: int = 1000
) -> int | None:
    """The smallest number of seeds ``n >= 2`` at which a two-sided paired t-test at level
    ``alpha`` has at least ``power`` to detect a true mean difference ``effect`` when the
    per-seed differences have standard deviation ``sd``; ``None`` when more than ``most`` (or the
    effect is 0, or ``sd`` is not positive)."""
    if not (sd > 0) or effect == 0 or not math.isfinite(effect):
        return None
    for n in range(2, most + 1):
        df = n - 1
        crit = _st.t.ppf(1 - alpha / 2, df)
        nc = abs(effect) / sd * math.sqrt(n)
        achieved = _st.nct.sf(crit, df, nc) + _st.nct.cdf(-crit, df, nc)
        if achieved >= power:
            return n
    return None


def paired_compare(
    wide: Sequence[float],
    deep: Sequence[float],
    *,
    higher_is_better: bool,
    claim: str,
    margin: float,
    plan: AnalysisPlan = PLAN_V2,
) -> PairedComparison:
    """Compare per-seed scores, paired by position (``wide[i]`` and ``deep[i]`` share seed i)."""
    if claim not in DIRECTIONS:
        raise ValueError(f"claim must be one of {DIRECTIONS}, got {claim!r}")
    if len(wide) != len(deep):
        raise ValueError(
            f"wide and deep must hold one score per seed each, got {len(wide)} and {len(deep)}"
        )
    if not margin > 0:
        raise ValueError(f"margin must be > 0, got {margin!r}")
    sign = 1.0 if higher_is_better else -1.0
    d = [sign * (float(b) - float(a)) for a, b in zip(wide, deep, strict=True)]
    n = len(d)
    mean = sum(d) / n if n else math.nan
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1)) if n >= 2 else math.nan
    lo = hi = p_diff = p_equiv = math.nan
    if n >= 2 and sd > 0:
        se = sd / math.sqrt(n)
        half = _st.t.ppf(0.5 + plan.confidence / 2, n - 1) * se
        lo, hi = mean - half, mean + half
        t0 = mean / se
        p_diff = float(2 * _st.t.sf(abs(t0), n - 1))
        p_low = float(_st.t.sf((mean + margin) / se, n - 1))  # H0: d <= -margin
        p_high = float(_st.t.cdf((mean - margin) / se, n - 1))  # H0: d >= +margin
        p_equiv = max(p_low, p_high)
    elif n >= 2:  # zero variance: a point, never a decisive interval
        lo = hi = mean
    return PairedComparison(
        claim=claim,
        effect=mean,
        ci_low=lo,
        ci_high=hi,
        sd=sd,
        n=n,
        margin=margin,
        p_diff=p_diff,
        p_equiv=p_equiv,
        wide=summarize(wide, plan.confidence),
        deep=summarize(deep, plan.confidence),
        differences=tuple(d),
        seeds_for_power=seeds_for_power(mean, sd, alpha=1 - plan.confidence, power=plan.power)
        if n >= 2
        else None,
    )


def holm(p_values: Sequence[float]) -> list[float]:
    r"""Holm's step-down adjusted p-values (NaN stays NaN and is left out of the family).

    With :math:`m` p-values sorted ascending, :math:`p_{(i)}` becomes
    :math:`\max_{j \le i} \min(1, (m - j + 1)\,p_{(j)})`. Rejecting where the adjusted value
    is below :math:`\alpha` keeps the family-wise error rate at :math:`\alpha`.
    """
    idx = [i for i, p in enumerate(p_values) if not math.isnan(p)]
    m = len(idx)
    out = [math.nan] * len(p_values)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def holm_levels(p_values: Sequence[float], alpha: float) -> list[float]:
    r"""The level each test of a Holm family is compared with: the :math:`i`-th smallest of
    :math:`m` p-values (counting from 0) against :math:`\alpha / (m - i)`. A NaN p-value is
    outside the family and gets NaN. This is the level a cell's power is planned at."""
    idx = sorted(
        (i for i, p in enumerate(p_values) if not math.isnan(p)), key=lambda i: p_values[i]
    )
    out = [math.nan] * len(p_values)
    for rank, i in enumerate(idx):
        out[i] = alpha / (len(idx) - rank)
    return out


def judge_cells(
    comparisons: Sequence[PairedComparison], plan: AnalysisPlan = PLAN_V2
) -> list[PairedComparison]:
    r"""Each cell's verdict, with Holm's correction across ``comparisons`` (one claim's cells).

    * *supported* / *contradicted*: adjusted ``p_diff < alpha``, the sign of the effect agrees /
      disagrees with the claim;
    * *equivalent*: otherwise, adjusted ``p_equiv < alpha / 2`` (the 95% interval inside
      :math:`\pm` margin);
    * *inconclusive*: otherwise, and always when the differences have no variance.

    A comparison already labelled :data:`NOT_INFORMATIVE` stays so and is left out of the family
    (it counts neither for nor against the claim, so it is not one of the claim's tests). Each
    judged cell's ``seeds_for_power`` is recomputed at its Holm level (:func:`holm_levels`), the
    level its p-value is actually held to, and that level is stored as ``power_alpha``.
    """
    from dataclasses import replace

    judged = [i for i, c in enumerate(comparisons) if c.verdict != NOT_INFORMATIVE]
    family = [comparisons[i] for i in judged]
    adj_diff = holm([c.p_diff for c in family])
    adj_equiv = holm([c.p_equiv for c in family])
    levels = holm_levels([c.p_diff for c in family], plan.alpha)
    out = list(comparisons)
    for i, c, pd, pe, level in zip(judged, family, adj_diff, adj_equiv, levels, strict=True):
        verdict = "inconclusive"
        if not math.isnan(pd) and pd < plan.alpha:
            depth_better = c.effect > 0
            agrees = depth_better == (c.claim == "depth")
            verdict = "supported" if agrees else "contradicted"
        elif not math.isnan(pe) and pe < plan.alpha / 2:
            verdict = "equivalent"
        level = plan.alpha if math.isnan(level) else level
        power = seeds_for_power(c.effect, c.sd, alpha=level, power=plan.power) if c.n >= 2 else None
        out[i] = replace(
            c,
            verdict=verdict,
            p_diff_adjusted=pd,
            p_equiv_adjusted=pe,
            seeds_for_power=power,
            power_alpha=level,
            reason="",
        )
    return out


def combine_cells(verdicts: Sequence[str], *, equivalence: bool = False) -> str:
    """**The** rule that combines a claim's cell verdicts into the claim's verdict, for every
    claim of every lab (declared once, here).

    Cells labelled :data:`NOT_INFORMATIVE` are set aside; of the ``n`` informative cells, let
    ``backs`` count those that back the claim (*supported*, or *equivalent* for an
    ``equivalence`` claim, which says the depths do not differ) and ``against`` those that
    *contradict* it. The claim is

    * *supported* when ``2 * backs >= n`` and ``against == 0``,
    * *contradicted* when ``2 * against >= n`` and ``backs == 0``,
    * *equivalent* (difference claims only) when at least half the cells are equivalent and
      none is decisive either way,
    * :data:`NOT_INFORMATIVE` when it has cells but none is informative,
    * *inconclusive* otherwise (mixed or weak evidence, or no cells at all).
    """
    vs = list(verdicts)
    for v in vs:
        if v not in VERDICTS_V2:
            raise ValueError(f"verdicts must be among {VERDICTS_V2}, got {v!r}")
    informative = [v for v in vs if v != NOT_INFORMATIVE]
    if not informative:
        return NOT_INFORMATIVE if vs else "inconclusive"
    n = len(informative)
    backs = informative.count("equivalent" if equivalence else "supported")
    against = informative.count("contradicted")
    if backs * 2 >= n and against == 0:
        return "supported"
    if against * 2 >= n and backs == 0:
        return "contradicted"
    eq = informative.count("equivalent")
    if not equivalence and eq * 2 >= n and informative.count("supported") == 0 and against == 0:
        return "equivalent"
    return "inconclusive"


def combine_verdicts_v2(verdicts: Sequence[str]) -> str:
    """A difference claim's overall verdict from its cells: :func:`combine_cells`."""
    return combine_cells(verdicts)


def verdict_v2_from_interval(low: float, high: float, margin: float, claim: str) -> str:
    """Version 2's rule for *one* cell, read off its 95% interval of (depth - width):

    * ``supported`` / ``contradicted``: the interval excludes 0 on the claimed / the other side;
    * ``equivalent``: otherwise, the interval lies strictly inside ``(-margin, +margin)``;
    * ``inconclusive``: otherwise; also for a missing (NaN) or zero-width interval, since a
      comparison without variance is never decisive.

    For a single cell this is exactly what :func:`judge_cells` decides from p-values; across
    several cells of one claim, :func:`judge_cells` also applies Holm's correction.
    """
    if claim not in DIRECTIONS:
        raise ValueError(f"claim must be one of {DIRECTIONS}, got {claim!r}")
    if not margin > 0:
        raise ValueError(f"margin must be > 0, got {margin!r}")
    if math.isnan(low) or math.isnan(high) or low == high:
        return "inconclusive"
    if low > 0:
        return "supported" if claim == "depth" else "contradicted"
    if high < 0:
        return "supported" if claim == "width" else "contradicted"
    if -margin < low and high < margin:
        return "equivalent"
    return "inconclusive"


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
