"""What a design can resolve before it runs: the half-width of the convergence experiment's
interval for a given spread and number of seeds, the seeds a target needs, and the prior spread
taken from the scale map. The plan (:func:`rnnlab.experiments.converge.plan`) prints them; the
interval itself is :func:`rnnlab.evidence.convergence_stats.paired_file_effect`'s."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from scipy import stats as _st


def resolution(
    sd_seed: float, n_seeds: int, se_file: float = 0.0, confidence: float = 0.95
) -> float:
    """The half-width of the interval of
    :func:`rnnlab.evidence.convergence_stats.paired_file_effect` for per-seed effects of
    standard deviation ``sd_seed`` over ``n_seeds`` seeds and a file component ``se_file``:
    the smallest effect the design can declare non-zero."""
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, int) or n_seeds < 2:
        raise ValueError(f"n_seeds must be an integer >= 2, got {n_seeds!r}")
    if not (sd_seed >= 0 and se_file >= 0):
        raise ValueError(f"sd_seed and se_file must be >= 0, got {sd_seed!r} and {se_file!r}")
    tcrit = float(_st.t.ppf(0.5 + confidence / 2, n_seeds - 1))
    return tcrit * math.hypot(sd_seed / math.sqrt(n_seeds), se_file)


def seeds_for_resolution(
    sd_seed: float, target: float, se_file: float = 0.0, most: int = 200
) -> int | None:
    """The fewest seeds whose :func:`resolution` is at or below ``target`` (``None``: more
    than ``most``, or the file component alone exceeds it)."""
    for n in range(2, most + 1):
        if resolution(sd_seed, n, se_file) <= target:
            return n
    return None


def map_paired_sd(records: Sequence[dict], budgets: Sequence[int], steps: int = 6000) -> float:
    """The scale map's standard deviation of per-seed paired differences, L2 minus L1 test
    bits/char, pooled over ``budgets`` at ``steps`` (the plan's prior before any run here)."""
    sds = []
    for b in budgets:
        by = {}
        for r in records:
            lab = r.get("experiment", {}).get("labels", {})
            if (
                r.get("role") == "eval"
                and lab.get("budget_target") == b
                and lab.get("steps") == steps
            ):
                by.setdefault(r["num_layers"], {})[r["seed"]] = r["metrics"]["test"]
        if 1 in by and 2 in by:
            common = sorted(set(by[1]) & set(by[2]))
            d = [by[1][s] - by[2][s] for s in common]
            if len(d) >= 2:
                sds.append(statistics.stdev(d))
    if not sds:
        raise ValueError(f"the map holds no paired L1/L2 cells at budgets {list(budgets)}")
    return math.sqrt(sum(x * x for x in sds) / len(sds))
