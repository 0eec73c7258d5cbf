"""The scale map itself, read from the scale experiment's records: its cells and verdicts, where
depth's advantage is supported, the crossovers with their confidence sets, the gap along
training, how complete the map is, and the summary bullets for the book."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import stats as _st

from rnnlab.evidence import analysis, stats

WIDE = 1
DEEP_DEPTHS = (2, 4)
BUDGET_KEY = "budget_target"
LENGTH_KEY = "steps"


def grid_key(c: analysis.CellComparison) -> tuple[int, int]:
    d = dict(c.cell)
    return int(d[BUDGET_KEY]), int(d[LENGTH_KEY])


def map_cells(
    records: Sequence[dict],
    *,
    deep: int,
    plan: stats.AnalysisPlan = stats.PLAN_V2,
    min_seeds: int | None = None,
) -> list[analysis.CellComparison]:
    """Every budget x length cell with all its seeds: L=``deep`` against L=1, positive = depth
    better (lower bits per character), with the four verdicts of ``plan`` and Holm's correction
    across the cells returned (the map is one family per ``deep``). A cell enters once it has
    ``min_seeds`` paired seeds (default: every reporting seed of the reference design); a
    partial cell is counted by :func:`status`, never judged."""
    if deep <= WIDE:
        raise ValueError(f"deep must be a depth greater than {WIDE}, got {deep!r}")
    if min_seeds is None:
        from rnnlab.experiments.scale import scale_seeds

        min_seeds = len(scale_seeds("reference"))
    if isinstance(min_seeds, bool) or not isinstance(min_seeds, int) or min_seeds < 2:
        raise ValueError(f"min_seeds must be an integer >= 2, got {min_seeds!r}")
    cells = [
        c
        for c in analysis.compare_cells(records, wide=WIDE, deep=deep, claim="depth", plan=plan)
        if c.comparison.n >= min_seeds
    ]
    judged = stats.judge_cells([c.comparison for c in cells], plan)
    return sorted(
        (replace(c, comparison=k) for c, k in zip(cells, judged, strict=True)), key=grid_key
    )


def supported_frontier(cells: Sequence[analysis.CellComparison]) -> list[tuple[int, int]]:
    """The ``(budget, steps)`` of the supported cells that no other supported cell is at most
    as large as in both budget and length: where depth's advantage starts to be supported.
    Empty when no cell is supported."""
    won = sorted(grid_key(c) for c in cells if c.comparison.verdict == "supported")
    return [k for k in won if not any(o != k and o[0] <= k[0] and o[1] <= k[1] for o in won)]


def crossing(lengths: Sequence[float], advantages: Sequence[float]) -> float:
    """The length at which ``advantages`` (ordered by ``lengths``) first turn from <= 0 to > 0,
    interpolated linearly in log length; ``-inf`` if depth is already ahead at the shortest length,
    ``+inf`` if it is never ahead."""
    if advantages[0] > 0:
        return -math.inf
    for k in range(1, len(lengths)):
        a0, a1 = advantages[k - 1], advantages[k]
        if a0 <= 0 < a1:
            x0, x1 = math.log(lengths[k - 1]), math.log(lengths[k])
            return math.exp(x0 + (0 - a0) / (a1 - a0) * (x1 - x0))
    return math.inf


GRID = 1001  # points per interval between two measured lengths at which the t test is inverted


def confidence_set(
    lengths: Sequence[float], differences: np.ndarray, *, confidence: float = 0.95
) -> tuple[float, float]:
    r"""The hull ``(low, high)`` of the confidence set for the crossover: every length at which
    the paired t test does not reject "the mean advantage is 0".

    ``differences`` is one row per seed and one column per length (ascending ``lengths``):
    seed :math:`i`'s advantage :math:`d_i(\ell)` of depth over width. Between two measured
    lengths each seed's advantage is interpolated linearly in :math:`\log \ell`, *per seed*,
    so the spread at an intermediate length counts how the seeds' errors move together across
    lengths (one seed fixes the data and the test sample at every length). A length :math:`x`
    is in the set when :math:`|\bar d(x)| \le t_{n-1}\, s(x) / \sqrt{n}`, with
    :math:`s(x)` the standard deviation over seeds of :math:`d_i(x)`, checked at ``GRID`` points
    of each interval in log length and at every crossing of the mean itself. At the true
    crossing the mean is 0, so the set covers it with probability ``confidence`` when the seeds'
    errors are normal and the mean advantage is linear in log length between measured lengths.

    The crossover is read as one change of sign, from width to depth. So the set is open below
    (``low = -inf``) when depth is not significantly behind at the shortest length, and open
    above (``high = inf``) when depth is not significantly ahead at the longest: the map cannot
    rule out a crossover outside it. ``low`` and ``high`` are finer than the lengths measured
    can resolve; :func:`bracket` turns them into the measured lengths around them.

    >>> d = np.array([[-0.04, 0.00, 0.04], [-0.05, 0.01, 0.05], [-0.03, -0.01, 0.03]])
    >>> low, high = confidence_set([1500, 3000, 6000], d)
    >>> 1500 < low < 3000 < high < 6000
    True
    """
    d = np.asarray(differences, dtype=float)
    n_len = len(lengths)
    if d.ndim != 2 or d.shape[1] != n_len or n_len < 2:
        raise ValueError(
            f"differences must be a (seeds, lengths) array with at least 2 lengths matching "
            f"lengths ({n_len}), got shape {d.shape}"
        )
    n = d.shape[0]
    if n < 2:
        raise ValueError(f"differences must hold at least 2 seeds (rows), got {n}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    if any(not 0 < a < b for a, b in zip(lengths[:-1], lengths[1:], strict=True)):
        raise ValueError(f"lengths must be positive and strictly increasing, got {lengths!r}")
    tq = float(_st.t.ppf(0.5 + confidence / 2, n - 1))

    def half(v: np.ndarray) -> np.ndarray:  # the t interval's half width, over axis 0 (seeds)
        return tq * v.std(axis=0, ddof=1) / math.sqrt(n)

    ends = d[:, [0, -1]]
    h = half(ends)
    below = ends[:, 0].mean() + h[0] >= 0  # depth not significantly behind at the shortest
    beyond = ends[:, 1].mean() - h[1] <= 0  # depth not significantly ahead at the longest
    accepted: list[float] = []
    for k in range(n_len - 1):
        a, b = d[:, k], d[:, k + 1]
        w = np.linspace(0.0, 1.0, GRID)
        ma, mb = a.mean(), b.mean()
        if (ma <= 0 <= mb or mb <= 0 <= ma) and ma != mb:
            w = np.sort(np.append(w, ma / (ma - mb)))  # the mean's own crossing
        per_seed = np.outer(a, 1 - w) + np.outer(b, w)  # (seeds, points): each seed's own line
        ok = np.abs(per_seed.mean(axis=0)) <= half(per_seed) + 1e-12  # 1e-12: rounding at 0
        x = np.exp(math.log(lengths[k]) + w * (math.log(lengths[k + 1]) - math.log(lengths[k])))
        x[0], x[-1] = lengths[k], lengths[k + 1]
        accepted += x[ok].tolist()
    # with no length of the map in the set, it lies strictly outside it: just past an end
    low = -math.inf if below else min(accepted, default=math.nextafter(lengths[-1], math.inf))
    high = math.inf if beyond else max(accepted, default=math.nextafter(lengths[0], -math.inf))
    return float(low), float(high)


def bracket(lengths: Sequence[float], low: float, high: float) -> tuple[float, float]:
    """The measured lengths around ``(low, high)``: the longest length at or below ``low`` and
    the shortest at or above ``high`` (infinities stay). The crossover is reported at this
    resolution: the design measured nothing in between.

    The bracket does not lean on the interpolation of :func:`confidence_set`. Between two
    measured lengths at which the t test rejects with the same sign, it rejects at every length
    in between too: the interpolated mean is the same average of the two means, and the
    standard deviation of a seed-wise average is at most that average of the two standard
    deviations. So the bracket is fixed by the tests at the measured lengths alone.

    >>> bracket([1500, 3000, 6000], 2108.0, 4405.0)
    (1500, 6000)
    >>> bracket([1500, 3000, 6000], 3000.0, math.inf)
    (3000, inf)
    """
    tol = 1e-9
    lo = low if low == -math.inf else max(s for s in lengths if s <= low * (1 + tol))
    hi = high if high == math.inf else min(s for s in lengths if s >= high * (1 - tol))
    return lo, hi


@dataclass(frozen=True)
class Crossover:
    """Where depth's mean advantage turns positive along training length, at one budget (a
    sign change of the mean, not a verdict: whether that lead is *supported* is the map's
    cell verdict, :func:`supported_frontier`).

    ``estimate`` is the interpolated crossing (steps) of the mean advantages, ``-inf`` / ``inf``
    when it is at or below the shortest / beyond the longest length measured: a point estimate
    that leans on linearity in log steps. ``set_low`` and ``set_high`` are the hull of the
    ``confidence`` set of :func:`confidence_set` (interpolated, so finer than the design
    resolves: for checks, not for prose); ``low`` and ``high`` are the measured lengths that
    bracket it (:func:`bracket`), with ``-inf`` / ``inf`` where the set is open. ``n_seeds`` is
    the number of seeds measured at every length of the budget, the ones the set is built on."""

    budget: int
    deep: int
    lengths: tuple[int, ...]
    advantages: tuple[float, ...]
    n_seeds: int
    estimate: float
    set_low: float
    set_high: float
    low: float
    high: float
    confidence: float = 0.95

    def text(self) -> str:
        """The crossover in words: the measured lengths that bracket it, and the point estimate
        labelled as an interpolation."""
        shortest, longest = f"{self.lengths[0]:,}", f"{self.lengths[-1]:,}"
        where = f"at {self.budget:,} parameters, L={self.deep} against L=1"
        if len(self.lengths) < 2:
            return f"{where}: only {shortest} steps measured so far, no crossover can be located"
        if self.estimate == math.inf:
            point = f"width's mean leads at every length measured ({shortest}-{longest} steps)"
        elif self.estimate == -math.inf:
            point = f"depth's mean already leads at {shortest} steps, the shortest length"
        else:
            point = (
                f"the mean advantage changes sign near {self.estimate:,.0f} steps (interpolated "
                "in log steps)"
            )
        at = f"at {self.confidence:.0%} confidence the crossover"
        lo, hi = f"{self.low:,.0f}", f"{self.high:,.0f}"
        # "at or": the measured length is itself in the set; without it, the set lies past it
        or_low = "at or " if self.set_low == self.low else ""
        or_high = "at or " if self.set_high == self.high else ""
        if self.low == -math.inf and self.high == math.inf:
            where_set = (
                f"the data do not locate the crossover: at {self.confidence:.0%} confidence it "
                f"may lie anywhere from at or below {shortest} steps to beyond {longest}"
            )
        elif self.high == math.inf and self.low == self.lengths[-1]:
            where_set = f"{at}, if any, is {or_low}beyond {longest} steps, the longest measured"
        elif self.high == math.inf:
            where_set = (
                f"{at} is {or_low}after {lo} steps, with no upper bound inside the map (it may "
                f"lie beyond {longest} steps)"
            )
        elif self.low == -math.inf and self.high == self.lengths[0]:
            where_set = f"{at} is {or_high}below {shortest} steps, the shortest measured"
        elif self.low == -math.inf:
            where_set = (
                f"{at} is {or_high}before {hi} steps, with no lower bound inside the map (it may "
                f"lie below {shortest} steps)"
            )
        else:
            where_set = f"{at} is between {lo} and {hi} steps, the measured lengths around it"
        return (
            f"{where}: {point}; {where_set} (paired t over {self.n_seeds} seeds, each seed's "
            "differences kept together across lengths)"
        )


def crossovers(
    records: Sequence[dict], *, deep: int = 2, plan: stats.AnalysisPlan = stats.PLAN_V2
) -> list[Crossover]:
    """One :class:`Crossover` per budget that has at least one cell, from the paired per-seed
    differences of :func:`map_cells`, joined by seed across the budget's lengths (the seeds
    measured at every length), at ``plan``'s confidence level. Deterministic: no resampling."""
    by_budget: dict[int, list[analysis.CellComparison]] = {}
    for c in map_cells(records, deep=deep, plan=plan):
        by_budget.setdefault(grid_key(c)[0], []).append(c)
    out = []
    for budget, cells in sorted(by_budget.items()):
        cells = sorted(cells, key=grid_key)
        lengths = tuple(grid_key(c)[1] for c in cells)
        by_seed = [dict(zip(c.seeds, c.comparison.differences, strict=True)) for c in cells]
        seeds = sorted(set.intersection(*(set(s) for s in by_seed)))
        diffs = np.array([[s[seed] for s in by_seed] for seed in seeds], dtype=float)
        diffs = diffs.reshape(len(seeds), len(lengths))
        means = tuple(float(m) for m in diffs.mean(axis=0)) if seeds else ()
        if len(lengths) < 2 or len(seeds) < 2:
            set_low, set_high = -math.inf, math.inf
        else:
            set_low, set_high = confidence_set(lengths, diffs, confidence=plan.confidence)
        low, high = bracket(lengths, set_low, set_high)
        out.append(
            Crossover(
                budget=budget,
                deep=deep,
                lengths=lengths,
                advantages=means,
                n_seeds=len(seeds),
                estimate=crossing(lengths, means) if means else math.nan,
                set_low=set_low,
                set_high=set_high,
                low=low,
                high=high,
                confidence=plan.confidence,
            )
        )
    return out


@dataclass(frozen=True)
class MapStatus:
    """How much of the map's design is in a results file."""

    runs: int
    eval_runs: int
    eval_expected: int
    runs_expected: int

    @property
    def complete(self) -> bool:
        return self.eval_runs == self.eval_expected

    def text(self) -> str:
        state = "complete" if self.complete else "**provisional**"
        return (
            f"{state}: {self.eval_runs} of {self.eval_expected} reporting runs, and {self.runs} of "
            f"the design's {self.runs_expected} runs in all (tuning included, with the grid "
            "extensions its results have called for so far)"
        )


def status(records: Sequence[dict], profile: str = "reference") -> MapStatus:
    """Count the runs of ``records`` against the design of the scale profile ``profile``."""
    from rnnlab.experiments.scale import sweep_spec

    spec = sweep_spec(profile)
    present, expected = spec.reporting_progress(records)
    return MapStatus(
        runs=len(records),
        eval_runs=present,
        eval_expected=expected,
        runs_expected=spec.planned_runs(records),
    )


def gap_along_training(records: Sequence[dict], *, deep: int) -> dict[int, list[dict]]:
    """Per budget (ascending), the advantage of L=``deep`` over L=1 along training in the
    longest training length of the map (:func:`map_cells`) at that budget: the rows of
    :func:`rnnlab.evidence.analysis.curve_gap`, one per evaluation step, on the validation sample
    with a
    95% interval over seeds (positive = depth better). Budgets without a map cell are left out.

    Every row also carries ``"schedule"``, the length of the schedule it was read from."""
    longest: dict[int, analysis.CellComparison] = {}
    for c in map_cells(records, deep=deep):
        budget, steps = grid_key(c)
        if budget not in longest or steps > grid_key(longest[budget])[1]:
            longest[budget] = c
    out = {}
    for budget in sorted(longest):
        c = longest[budget]
        rows = analysis.curve_gap(records, c.cell, wide=WIDE, deep=deep)
        out[budget] = [{**r, "schedule": grid_key(c)[1]} for r in rows]
    return out


def overtakes_at(rows: Sequence[dict]) -> int | None:
    """The first evaluation step from which depth's mean advantage stays above 0 to the end of
    the schedule (the pilot's "overtakes after N steps"), or ``None`` when it is not above 0 at
    the last step. ``rows`` are :func:`gap_along_training` (or ``curve_gap``) rows.

    >>> overtakes_at([{"step": 100, "gap": -0.1}, {"step": 200, "gap": 0.01},
    ...               {"step": 300, "gap": -0.01}, {"step": 400, "gap": 0.02}])
    400
    >>> overtakes_at([{"step": 100, "gap": 0.1}, {"step": 200, "gap": 0.0}]) is None
    True
    """
    step = None
    for r in sorted(rows, key=lambda r: r["step"]):
        if r["gap"] > 0:
            step = r["step"] if step is None else step
        else:
            step = None
    return step


def design_grid(profile: str = "reference") -> tuple[list[int], list[int]]:
    """The budgets (targets) and training lengths of the scale profile's design, ascending."""
    from rnnlab.experiments.scale import design

    d = design(profile)
    return sorted(int(b) for b in d["budgets"]), sorted(int(s) for s in d["steps"])


CROSSOVER_METHOD = (
    "*How the crossover is read* (an analysis chosen after seeing the data, so a new design, "
    "not the declared one): the length where depth's mean advantage changes sign, interpolated "
    "in log steps between two measured lengths, is a point estimate; the 95% confidence set "
    "holds every length at which a paired t test over the seeds does not reject a zero mean "
    "advantage, with each seed's differences kept together across lengths, and is given as the "
    "measured lengths around it. It replaces the declared percentile bootstrap over cells "
    "resampled independently, which ignored that one seed fixes the data and the test sample "
    "at every length and was too narrow for 5 seeds."
)


def summary_lines(records: Sequence[dict], *, deeps: Sequence[int] = DEEP_DEPTHS) -> list[str]:
    """Markdown bullets for the book and the Findings page: per deep depth, where depth's
    advantage is supported (or that it is nowhere yet, with the cells measured and their
    verdicts), the crossover of every budget measured, and how the crossover is read
    (:data:`CROSSOVER_METHOD`)."""
    lines = []
    for deep in deeps:
        cells = map_cells(records, deep=deep)
        if not cells:
            lines.append(f"- L={deep} against L=1: no cell of the map has results yet.")
            continue
        counts = {v: sum(c.comparison.verdict == v for c in cells) for v in stats.VERDICTS_V2}
        tally = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        frontier = supported_frontier(cells)
        where = (
            "depth's advantage is supported from "
            + " and from ".join(f"{b:,} parameters at {s:,} steps" for b, s in frontier)
            if frontier
            else "depth's advantage is supported in none of them"
        )
        lines.append(
            f"- L={deep} against L=1, {len(cells)} of the map's cells measured ({tally}): {where}."
        )
        lines += [f"  - {x.text()}." for x in crossovers(records, deep=deep)]
    if any(line.startswith("  - ") for line in lines):
        lines.append(f"- {CROSSOVER_METHOD}")
    return lines
