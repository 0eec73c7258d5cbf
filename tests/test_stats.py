"""Intervals and the pre-declared verdict rule."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hst
from scipy import stats as st

from rnnlab.evidence.stats import (
    combine_verdicts,
    compare,
    summarize,
    verdict_from_interval,
    welch_interval,
)


def test_summarize_matches_scipy():
    xs = [0.9, 0.92, 0.88, 0.95, 0.91]
    s = summarize(xs)
    lo, hi = st.t.interval(0.95, len(xs) - 1, loc=np.mean(xs), scale=st.sem(xs))
    assert s.mean == pytest.approx(np.mean(xs))
    assert s.std == pytest.approx(np.std(xs, ddof=1))
    assert (s.ci_low, s.ci_high) == pytest.approx((lo, hi))


def test_welch_matches_scipy_ttest():
    a, b = [1.0, 1.2, 0.9, 1.1], [1.5, 1.7, 1.4, 1.9, 1.6]
    diff, lo, hi, dof = welch_interval(a, b)
    res = st.ttest_ind(b, a, equal_var=False)
    ci = res.confidence_interval(0.95)
    assert diff == pytest.approx(np.mean(b) - np.mean(a))
    assert (lo, hi) == pytest.approx((ci.low, ci.high))
    assert dof == pytest.approx(res.df)


@pytest.mark.parametrize(
    "low,high,claim,expected",
    [
        (0.1, 0.2, "depth", "supported"),
        (0.1, 0.2, "width", "contradicted"),
        (-0.2, -0.1, "width", "supported"),
        (-0.2, -0.1, "depth", "contradicted"),
        (-0.1, 0.1, "depth", "inconclusive"),
        (math.nan, math.nan, "width", "inconclusive"),
    ],
)
def test_verdict_rule(low, high, claim, expected):
    assert verdict_from_interval(low, high, claim) == expected


def test_compare_flips_sign_for_lower_is_better():
    wide = [2.0, 2.1, 2.05, 1.95, 2.02]  # bits per char
    deep = [1.8, 1.85, 1.82, 1.79, 1.81]  # lower: depth better
    c = compare(wide, deep, higher_is_better=False, claim="depth")
    assert c.effect > 0 and c.ci_low > 0 and c.verdict == "supported"
    c2 = compare(wide, deep, higher_is_better=True, claim="depth")
    assert c2.effect < 0 and c2.verdict == "contradicted"


def test_one_seed_is_inconclusive():
    assert compare([0.9], [0.1], higher_is_better=True, claim="width").verdict == "inconclusive"


@pytest.mark.parametrize(
    "cells,expected",
    [
        (["supported", "inconclusive"], "supported"),
        (["supported", "inconclusive", "inconclusive"], "inconclusive"),
        (["supported", "contradicted"], "inconclusive"),
        (["contradicted", "contradicted", "inconclusive"], "contradicted"),
        ([], "inconclusive"),
    ],
)
def test_combine(cells, expected):
    assert combine_verdicts(cells) == expected


def test_bad_inputs():
    with pytest.raises(ValueError, match="claim"):
        verdict_from_interval(0, 1, "both")
    with pytest.raises(ValueError, match="values"):
        summarize([])
    with pytest.raises(ValueError, match="verdicts"):
        combine_verdicts(["yes"])


def test_fmt_ci_never_prints_negative_zero() -> None:
    from rnnlab.evidence.analysis import fmt_ci

    assert fmt_ci(-0.0001, -0.04, 0.04) == "+0.000 [-0.040, +0.040]"
    assert fmt_ci(0.0123, -0.0004, 0.028) == "+0.012 [+0.000, +0.028]"
    assert fmt_ci(-0.5, float("nan"), float("nan")) == "-0.500 [n/a]"


def test_fmt_signed_never_prints_negative_zero() -> None:
    from rnnlab.evidence.analysis import fmt_signed

    assert [fmt_signed(x) for x in (-0.0001, -0.0, 0.0004, -0.0005001, 0.0123)] == [
        "+0.000", "+0.000", "+0.000", "-0.001", "+0.012",
    ]  # fmt: skip
    assert fmt_signed(-0.00001, 4) == "+0.0000" and fmt_signed(-0.00012, 4) == "-0.0001"
    # the percent form (a budget match's relative error) keeps the same rule for zero
    assert fmt_signed(-0.000004, 3, percent=True) == "+0.000%"
    assert fmt_signed(-0.0004, 1, percent=True) == "+0.0%"
    assert fmt_signed(-0.0006, 1, percent=True) == "-0.1%"


@given(hst.floats(-10, 10, allow_nan=False), hst.integers(0, 4))
def test_fmt_signed_percent_agrees_with_python_away_from_zero(value: float, digits: int) -> None:
    """Where Python's own ``:+.N%`` prints a nonzero number, the percent form prints the same."""
    from rnnlab.core.text import fmt_signed

    python = f"{value:+.{digits}%}"
    if python.strip("+-0.%"):  # not a (signed) zero
        assert fmt_signed(value, digits, percent=True) == python
    else:
        assert fmt_signed(value, digits, percent=True).startswith("+")


def test_every_signed_number_in_the_library_goes_through_fmt_signed() -> None:
    """A bare ``:+.3f`` prints ``-0.000`` for a value that rounds to zero; the library writes
    each signed number with :func:`rnnlab.core.text.fmt_signed` instead (its module states it)."""
    import re
    from pathlib import Path

    import rnnlab

    root = Path(rnnlab.__file__).parent
    # a float written with a forced sign, in any of Python's three spellings: a format spec
    # (``{x:+.3f}``, ``{x:+,.2f}``, ``{x:>+8.1%}``), ``format(x, "+.3f")`` and printf (``%+.3f``)
    bare = re.compile(
        r"""(\{[^{}]*:[^{}]*\+[0-9,_]*(\.\d+)?[eEfFgG%]\})"""
        r"""|(format\([^)]*["'][^"']*\+[0-9,_]*(\.\d+)?[eEfFgG%]["'])"""
        r"""|(%\+[0-9]*(\.\d+)?[eEfFgG])"""
    )
    for spelling in ("{d:+.3f}", "{d:+,.2f}", "{d:>+8.1%}", 'format(d, "+.3f")', "'%+.3f' % d"):
        assert bare.search(spelling), spelling
    for fine in ("{n:+d}", "{d:.3f}", "{fmt_signed(d)}", "'%.3f' % d", "{a}+{b:.2f}"):
        assert not bare.search(fine), fine
    found = [
        f"{p.relative_to(root)}:{i}"
        for p in sorted(root.rglob("*.py"))
        if p.name != "text.py" or p.parent.name != "core"
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if bare.search(line)
    ]
    assert found == []
    from rnnlab.core.text import fmt_signed
    from rnnlab.evidence.analysis import fmt_signed as exported

    assert exported is fmt_signed


def test_signed_number_doctests() -> None:
    import doctest

    from rnnlab.core import text
    from rnnlab.evidence.analysis import cells

    assert doctest.testmod(text).failed == 0
    assert doctest.testmod(cells).failed == 0
