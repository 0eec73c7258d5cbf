"""The convergence experiment's analysis and plan, declared before its runs.

**The comparison** (:func:`paired_file_effect`): at one budget and length, depth minus width in
test bits per character (positive = depth better), paired by reporting seed. Each run scores
every window of every held-out test file and stores the bits/char per file
(``metrics.test_by_group``; the files and their window counts are in
``task_info.test_files``). With ``D[s, f]`` the difference of seed ``s`` on file ``f`` and
``w_f`` the file's share of the windows:

* the effect is :math:`\\bar D = \\frac1n \\sum_s \\sum_f w_f D[s, f]` (the difference of the
  two test scores, averaged over seeds);
* its standard error adds two sources a reader generalises over: the seeds',
  :math:`s_D / \\sqrt n` (the spread of the per-seed effects), and the test files',
  the standard deviation of :math:`\\bar D` over a bootstrap of the held-out files (files drawn
  with replacement, the seeds kept); ``se = sqrt(se_seed^2 + se_file^2)``;
* the 95% interval is :math:`\\bar D \\pm t_{0.975, n-1} \\cdot se` (t-calibrated for few seeds),
  the verdict :func:`rnnlab.evidence.stats.verdict_v2_from_interval` at the margin (0.01
  bits/char), with
  Holm's correction across the budgets of one depth comparison (:func:`judge_budgets`).

**What a comparison can show** (:func:`failed_to_train`, added on 2026-12-05, before any
comparison had two paired reporting seeds): a comparison with a model that *failed to train*,
by the thresholds the whole course declared (:mod:`rnnlab.evidence.stats.fit`: under a quarter
of the best variant's gain over the unigram model, or its best validation checkpoint in the
first tenth of training on the median seed), counts neither way: it is labelled *not
informative*, with the reason, and left out of Holm's correction. In the trainable deep stack
against the plain one, the plain stack failing to train is the effect measured, so only the
trainable stack is checked there. The scale map's third check,
*far from convergence*, is not applied: this experiment's declared convergence rule replaces it
(and a warmup-stable-decay run makes much of its gain in the cool-down at the end, by design).

**The resolution** (:func:`rnnlab.experiments.resolution.resolution`): the half-width of that
interval, i.e. the smallest
effect the design can declare non-zero; the plan prints it before the runs from the spread
measured so far (or, before any run, from the scale map's paired differences, an upper estimate
since each map seed drew its own test sample), and the seeds it would take to bring it to the
margin.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scipy import stats as _st

from rnnlab.evidence import stats
from rnnlab.experiments.resolution import (
    BOOT_SEED,
    N_BOOT,
    file_bootstrap_se,
    file_losses,
    paired_file_differences,
)

__all__ = [
    "N_BOOT",
    "BOOT_SEED",
    "file_losses",
    "FileEffect",
    "paired_file_effect",
    "judge_budgets",
    "failed_to_train",
]


@dataclass(frozen=True)
class FileEffect:
    """One paired comparison with seeds and test files as sources of variance."""

    effect: float
    ci_low: float
    ci_high: float
    se_seed: float
    se_file: float
    n_seeds: int
    n_files: int
    test_windows: int
    per_seed: tuple[float, ...]
    p_diff: float
    p_equiv: float
    margin: float
    verdict: str = "inconclusive"
    p_diff_adjusted: float = math.nan

    @property
    def half_width(self) -> float:
        return (self.ci_high - self.ci_low) / 2


def paired_file_effect(
    wide: Mapping[int, dict],
    deep: Mapping[int, dict],
    *,
    margin: float = 0.01,
    n_boot: int = N_BOOT,
    confidence: float = 0.95,
) -> FileEffect:
    """Depth minus width (``wide`` and ``deep``: records by seed; the seeds both have are
    paired), as in the module docstring. Raises ValueError with fewer than 2 paired seeds."""
    seeds, diff, weights = paired_file_differences(wide, deep)
    if len(seeds) < 2:
        raise ValueError(f"wide and deep must share at least 2 seeds, got {seeds}")
    w = weights / weights.sum()
    per_seed = diff @ w
    n = len(seeds)
    effect = float(per_seed.mean())
    se_seed = float(per_seed.std(ddof=1) / math.sqrt(n))
    se_file = file_bootstrap_se(diff, weights, n_boot)
    se = math.hypot(se_seed, se_file)
    tcrit = float(_st.t.ppf(0.5 + confidence / 2, n - 1))
    lo, hi = effect - tcrit * se, effect + tcrit * se
    if se > 0:
        p_diff = float(2 * _st.t.sf(abs(effect) / se, n - 1))
        p_equiv = max(
            float(_st.t.sf((effect + margin) / se, n - 1)),
            float(_st.t.cdf((effect - margin) / se, n - 1)),
        )
    else:
        p_diff = p_equiv = math.nan
    return FileEffect(
        effect=effect,
        ci_low=lo,
        ci_high=hi,
        se_seed=se_seed,
        se_file=se_file,
        n_seeds=n,
        n_files=len(w),
        test_windows=int(weights.sum()),
        per_seed=tuple(float(x) for x in per_seed),
        p_diff=p_diff,
        p_equiv=p_equiv,
        margin=margin,
        verdict=stats.verdict_v2_from_interval(lo, hi, margin, "depth"),
    )


def judge_budgets(effects: Sequence[FileEffect], alpha: float = 0.05) -> list[FileEffect]:
    """Holm's correction across one depth comparison's budgets: *supported* / *contradicted*
    need an adjusted ``p_diff < alpha``; *equivalent* the adjusted TOST ``p < alpha / 2``."""
    from dataclasses import replace

    adj = stats.holm([e.p_diff for e in effects])
    adj_eq = stats.holm([e.p_equiv for e in effects])
    out = []
    for e, pd, pe in zip(effects, adj, adj_eq, strict=True):
        verdict = "inconclusive"
        if not math.isnan(pd) and pd < alpha:
            verdict = "supported" if e.effect > 0 else "contradicted"
        elif not math.isnan(pe) and pe < alpha / 2:
            verdict = "equivalent"
        out.append(replace(e, verdict=verdict, p_diff_adjusted=pd))
    return out


def failed_to_train(
    models: Mapping[str, Sequence[dict]], family: Sequence[Sequence[dict]], margin: float
) -> str:
    """Why a comparison of ``models`` (name -> reporting runs, one per seed) counts neither way,
    or ``""`` when it can: each model that *failed to train*
    (:func:`rnnlab.evidence.stats.not_informative_reason`'s first check), against the unigram
    model of the test files (:func:`rnnlab.evidence.analysis.baseline_of`) and the best mean
    test score of any model in ``family`` (every variant's reporting runs at the same budget
    and length; ``models`` count as part of it). The far-from-convergence check is skipped
    (see the module docstring)."""
    from dataclasses import replace

    from rnnlab.evidence.analysis import baseline_of, model_fit

    groups = [list(rs) for rs in (*models.values(), *family) if rs]
    if not models or not all(models.values()):
        raise ValueError("models must give every model at least one reporting run")
    first = min(next(iter(models.values())), key=lambda r: r["seed"])
    base = baseline_of(first)
    best = min(sum(float(r["metrics"]["test"]) for r in rs) / len(rs) for rs in groups)
    fit = stats.CellFit(
        models=tuple(
            replace(model_fit(name, rs), last_quarter_share=math.nan) for name, rs in models.items()
        ),
        higher_is_better=False,
        chance=base.chance,
        ceiling=base.ceiling,
        best=best,
        margin=margin,
        baseline=base.name,
    )
    return stats.not_informative_reason(fit)
