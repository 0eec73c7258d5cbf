"""What a design can resolve before it runs: the half-width of the convergence experiment's
interval for a given spread and number of seeds, the seeds a target needs, and the spread those
rest on: the scale map's (a prior before any run) or the tuning seeds' (:func:`tuning_spread`,
from which the convergence experiment fixes its number of reporting seeds before any reporting
run). The plan (:func:`rnnlab.experiments.converge.plan`) prints them; the interval itself is
:func:`rnnlab.evidence.convergence_stats.paired_file_effect`'s, which shares this module's
per-file losses (:func:`file_losses`) and file bootstrap (:func:`file_bootstrap_se`)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

N_BOOT = 2000
BOOT_SEED = 20261203  # the bootstrap's own generator: the same records give the same interval


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


def file_losses(record: dict) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(file names, bits/char per file, windows per file)`` of one run's test set."""
    files = record.get("task_info", {}).get("test_files")
    by_group = record["metrics"].get("test_by_group") or {}
    scored = [(k, name, n) for k, (name, n) in enumerate(files or []) if n > 0]
    if not scored or any(str(k) not in by_group for k, _, _ in scored):
        raise ValueError(
            f"record {record.get('run_id')} has no per-file test losses (task_info.test_files "
            "and metrics.test_by_group): it is not a run of a held-out-files task"
        )
    names = [name for _, name, _ in scored]
    bits = np.array([by_group[str(k)] for k, _, _ in scored], dtype=float)
    windows = np.array([n for _, _, n in scored], dtype=float)
    return names, bits, windows


def paired_file_differences(
    wide: Mapping[int, dict], deep: Mapping[int, dict]
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """``(seeds, D, windows)``: the seeds both sides ran, ``D[s, f]`` = wide minus deep
    bits/char of seed ``s`` on test file ``f`` (positive: depth better), and each file's
    windows. Raises ValueError when a seed's two runs scored different files."""
    seeds = sorted(set(wide) & set(deep))
    rows, windows = [], np.zeros(0)
    for s in seeds:
        names_w, bits_w, win = file_losses(wide[s])
        names_d, bits_d, win_d = file_losses(deep[s])
        if names_w != names_d or not np.array_equal(win, win_d):
            raise ValueError(f"seed {s}: the two runs scored different test files")
        rows.append(bits_w - bits_d)
        windows = win
    return seeds, np.array(rows), windows


def file_bootstrap_se(diff: np.ndarray, windows: np.ndarray, n_boot: int = N_BOOT) -> float:
    """The test files' share of the standard error of the window-weighted mean of ``diff``
    (seeds x files): the standard deviation of that mean over ``n_boot`` resamples of the
    files with replacement, the seeds kept (a fixed generator, :data:`BOOT_SEED`)."""
    rng = np.random.default_rng(BOOT_SEED)
    mean_by_file = diff.mean(axis=0)
    idx = rng.integers(0, len(windows), size=(n_boot, len(windows)))
    boot = (mean_by_file[idx] * windows[idx]).sum(axis=1) / windows[idx].sum(axis=1)
    return float(boot.std(ddof=1))


@dataclass(frozen=True)
class Spread:
    """The spread of a paired comparison measured on tuning runs (:func:`tuning_spread`).

    The test files' share of the standard error has two parts: how much depth's effect differs
    from file to file (``file_fixed``: it stays however many seeds run) and the seeds' noise on
    each file (``file_noise``, for one seed: it shrinks as seeds are averaged)."""

    sd_seed: float  # standard deviation of one seed's paired effect, pooled over settings
    se_file: float  # the test files' share as measured with the tuning seeds
    file_fixed: float
    file_noise: float
    settings: int  # settings that gave both (at least two seeds on each side)
    df: int  # degrees of freedom of sd_seed

    def se_file_at(self, n_seeds: int) -> float:
        """The test files' share expected over ``n_seeds`` reporting seeds."""
        return math.hypot(self.file_fixed, self.file_noise / math.sqrt(n_seeds))

    def with_files(self, factor: float) -> Spread:
        """This spread with the test files' share multiplied by ``factor`` (e.g.
        ``sqrt(effective_files(old) / effective_files(new))`` for a test set whose files differ
        as much as these): the seeds' share is unchanged."""
        if not factor >= 0:
            raise ValueError(f"factor must be >= 0, got {factor!r}")
        return Spread(self.sd_seed, self.se_file * factor, self.file_fixed * factor,
                      self.file_noise * factor, self.settings, self.df)  # fmt: skip


def effective_files(windows: Sequence[float]) -> float:
    """The effective number of test files of a window-weighted mean: ``(sum w)^2 / sum w^2``
    for files of ``w`` windows. It equals the count when the files are equal; one large file
    among small ones brings it down. The file share of a mean's standard error shrinks as one
    over its square root."""
    w = np.asarray(windows, dtype=float)
    w = w[w > 0]
    if w.size == 0:
        raise ValueError("windows must hold at least one positive count")
    return float(w.sum() ** 2 / (w**2).sum())


def tuning_spread(settings: Sequence[tuple[Mapping[int, dict], Mapping[int, dict]]]) -> Spread:
    """How much a paired comparison varies from seed to seed, measured on tuning runs.

    Each item of ``settings`` is one (dropout, rate) setting that both sides were tuned at:
    ``(wide, deep)``, records by tuning seed. The per-seed paired effect (window-weighted test
    bits/char, wide minus deep) is computed per setting; its variance is pooled over settings
    (each contributes ``k - 1`` degrees of freedom for ``k`` seeds), so differences between
    settings do not count as seed noise.

    The file component is :func:`file_bootstrap_se` of the setting's seeds, split in two: the
    same bootstrap of each seed's deviation from the seeds' mean measures the seeds' noise on
    the files (its variance over ``k - 1`` is the noise left in a mean of ``k`` seeds), and the
    rest is how much the effect differs between files. Both are pooled over settings as mean
    variances. Raises ValueError when no setting has two paired seeds."""
    ss, df, total, fixed, noise = 0.0, 0, [], [], []
    for wide, deep in settings:
        seeds, diff, windows = paired_file_differences(wide, deep)
        k = len(seeds)
        if k < 2:
            continue
        per_seed = diff @ (windows / windows.sum())
        ss += float(((per_seed - per_seed.mean()) ** 2).sum())
        df += k - 1
        measured = file_bootstrap_se(diff, windows) ** 2
        resid = diff - diff.mean(axis=0)
        left = sum(file_bootstrap_se(resid[i : i + 1], windows) ** 2 for i in range(k))
        left /= k * (k - 1)  # the seeds' noise left in the mean of k seeds
        total.append(measured)
        fixed.append(measured - left)
        noise.append(left * k)  # the same for one seed
    if df == 0:
        raise ValueError("tuning_spread needs a setting with at least two paired seeds")
    return Spread(
        sd_seed=math.sqrt(ss / df),
        se_file=math.sqrt(statistics.fmean(total)),
        file_fixed=math.sqrt(max(0.0, statistics.fmean(fixed))),
        file_noise=math.sqrt(statistics.fmean(noise)),
        settings=len(total),
        df=df,
    )
