"""Version 2: paired intervals per cell against a margin, four verdicts, Holm's correction across
a claim's cells, power, and the one rule that combines a claim's cells."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from scipy import stats as _st

from rnnlab.evidence.stats.intervals import (
    DIRECTIONS,
    NOT_INFORMATIVE,
    VERDICTS_V2,
    Summary,
    summarize,
)

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
