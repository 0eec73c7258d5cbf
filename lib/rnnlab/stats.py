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
effect and spread (:func:`seeds_for_power`): a planning figure, not a promise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from scipy import stats as _st

VERDICTS = ("supported", "contradicted", "inconclusive")
VERDICTS_V2 = ("supported", "contradicted", "equivalent", "inconclusive")
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
    unadjusted; :func:`judge_cells` applies Holm's correction across a claim's cells.
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


def judge_cells(
    comparisons: Sequence[PairedComparison], plan: AnalysisPlan = PLAN_V2
) -> list[PairedComparison]:
    r"""Each cell's verdict, with Holm's correction across ``comparisons`` (one claim's cells).

    * *supported* / *contradicted*: adjusted ``p_diff < alpha``, the sign of the effect agrees /
      disagrees with the claim;
    * *equivalent*: otherwise, adjusted ``p_equiv < alpha / 2`` (the 95% interval inside
      :math:`\pm` margin);
    * *inconclusive*: otherwise, and always when the differences have no variance.
    """
    from dataclasses import replace

    adj_diff = holm([c.p_diff for c in comparisons])
    adj_equiv = holm([c.p_equiv for c in comparisons])
    out = []
    for c, pd, pe in zip(comparisons, adj_diff, adj_equiv, strict=True):
        verdict = "inconclusive"
        if not math.isnan(pd) and pd < plan.alpha:
            depth_better = c.effect > 0
            agrees = depth_better == (c.claim == "depth")
            verdict = "supported" if agrees else "contradicted"
        elif not math.isnan(pe) and pe < plan.alpha / 2:
            verdict = "equivalent"
        out.append(replace(c, verdict=verdict, p_diff_adjusted=pd, p_equiv_adjusted=pe))
    return out


def combine_verdicts_v2(verdicts: Sequence[str]) -> str:
    """A claim's overall verdict from its cells' (Holm-corrected) verdicts.

    ``supported`` if at least half the cells support it and none contradicts it; likewise
    ``contradicted``; ``equivalent`` if at least half are equivalent and none is decisive either
    way; otherwise ``inconclusive`` (mixed, or too wide to say).
    """
    vs = list(verdicts)
    for v in vs:
        if v not in VERDICTS_V2:
            raise ValueError(f"verdicts must be among {VERDICTS_V2}, got {v!r}")
    if not vs:
        return "inconclusive"
    sup, con, eq = (vs.count(k) for k in ("supported", "contradicted", "equivalent"))
    if sup * 2 >= len(vs) and con == 0:
        return "supported"
    if con * 2 >= len(vs) and sup == 0:
        return "contradicted"
    if eq * 2 >= len(vs) and sup == 0 and con == 0:
        return "equivalent"
    return "inconclusive"


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
