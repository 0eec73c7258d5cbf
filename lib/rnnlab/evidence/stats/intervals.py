"""Summaries over seeds, Welch intervals, and version 1's verdict rule (a claim is supported
when its interval excludes 0 on its side)."""

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
