"""Tests for rnnlab.evidence.scalemap: the map's cells, where depth starts to win, and the
crossover."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest

from rnnlab.course import plots
from rnnlab.evidence import scalemap

LENGTHS = (1_500, 3_000, 6_000)


def _record(budget: int, steps: int, depth: int, seed: int, bpc: float) -> dict:
    labels = {"task": "charlm-stdlib", "budget_target": budget, "steps": steps}
    return {
        "run_id": f"{budget}-{steps}-{depth}-{seed}",
        "role": "eval",
        "experiment": {"labels": labels, "n_test": 1_024},
        "budget": budget,
        "num_layers": depth,
        "seed": seed,
        "metrics": {"test": bpc, "metric": "bits_per_char", "higher_is_better": False},
    }


def _map(advantage: dict[tuple[int, int], float], *, seeds: int = 5, noise: float = 0.002):
    """Records whose L=2 bits per character are L=1's minus ``advantage[(budget, steps)]``
    (so a positive advantage means depth is better), with a little paired noise per seed."""
    rng = np.random.default_rng(7)
    out = []
    for (budget, steps), adv in advantage.items():
        for seed in range(seeds):
            base = 2.0 + 0.1 * rng.standard_normal()
            out.append(_record(budget, steps, 1, seed, base))
            out.append(_record(budget, steps, 2, seed, base - adv + noise * rng.standard_normal()))
    return out


def test_doctests() -> None:
    assert doctest.testmod(scalemap).failed == 0


def test_crossing_interpolates_in_log_steps_and_bounds_outside_the_map() -> None:
    x = scalemap.crossing(LENGTHS, [-0.02, -0.01, 0.01])
    assert x == pytest.approx(math.exp((math.log(3_000) + math.log(6_000)) / 2))
    assert scalemap.crossing(LENGTHS, [-0.02, -0.01, -0.001]) == math.inf
    assert scalemap.crossing(LENGTHS, [0.01, 0.02, 0.03]) == -math.inf
    # an advantage of exactly 0 is not yet a lead: the crossing is where it leaves 0
    assert scalemap.crossing(LENGTHS, [-0.03, 0.0, 0.02]) == pytest.approx(3_000)


def test_map_cells_judge_each_cell_with_the_right_sign() -> None:
    records = _map({(25_000, 1_500): -0.05, (25_000, 6_000): 0.05, (63_000, 1_500): 0.0})
    cells = {scalemap.grid_key(c): c for c in scalemap.map_cells(records, deep=2)}
    assert set(cells) == {(25_000, 1_500), (25_000, 6_000), (63_000, 1_500)}
    assert cells[25_000, 1_500].comparison.verdict == "contradicted"
    assert cells[25_000, 6_000].comparison.verdict == "supported"
    assert cells[25_000, 6_000].comparison.effect == pytest.approx(0.05, abs=0.005)
    assert cells[63_000, 1_500].comparison.verdict == "equivalent"  # within the 0.01 margin
    assert not math.isnan(cells[25_000, 1_500].comparison.p_diff_adjusted)  # Holm applied


def test_a_cell_with_one_seed_stays_out_of_the_map() -> None:
    records = _map({(25_000, 1_500): 0.05}) + _map({(63_000, 1_500): 0.05}, seeds=1)
    assert [scalemap.grid_key(c) for c in scalemap.map_cells(records, deep=2)] == [(25_000, 1_500)]
    with pytest.raises(ValueError, match="deep must be a depth greater than 1"):
        scalemap.map_cells(records, deep=1)


def test_supported_frontier_keeps_only_the_smallest_supported_cells() -> None:
    advantage = {
        (25_000, 1_500): -0.05,
        (25_000, 6_000): 0.05,
        (63_000, 3_000): 0.05,
        (63_000, 6_000): 0.05,
        (160_000, 1_500): 0.05,
    }
    cells = scalemap.map_cells(_map(advantage), deep=2)
    assert scalemap.supported_frontier(cells) == [
        (25_000, 6_000),
        (63_000, 3_000),
        (160_000, 1_500),
    ]
    none = scalemap.map_cells(_map({(25_000, 1_500): -0.05}), deep=2)
    assert scalemap.supported_frontier(none) == []


def test_crossover_inside_the_map_is_bracketed_by_the_measured_lengths() -> None:
    records = _map({(25_000, s): a for s, a in zip(LENGTHS, (-0.02, -0.01, 0.01), strict=True)})
    (x,) = scalemap.crossovers(records, deep=2)
    assert x.budget == 25_000 and x.lengths == LENGTHS and x.n_seeds == 5
    assert 3_000 < x.estimate < 6_000
    # little noise: depth is significantly behind at 3,000 steps and ahead at 6,000
    assert 3_000 < x.set_low <= x.estimate <= x.set_high < 6_000
    assert (x.low, x.high) == (3_000, 6_000)
    text = x.text()
    assert f"the mean advantage changes sign near {x.estimate:,.0f} steps (interpolated" in text
    assert "at 95% confidence the crossover is between 3,000 and 6,000 steps" in text
    # the interpolated limits are finer than the design resolves: they stay out of the words
    assert f"{x.set_low:,.0f}" not in text and f"{x.set_high:,.0f}" not in text
    # another budget's runs leave this one's crossover unchanged
    other = _map({(10_000, s): a for s, a in zip(LENGTHS, (-0.03, 0.0, 0.02), strict=True)})
    both = {c.budget: c for c in scalemap.crossovers(other + records, deep=2)}
    assert both[25_000] == x
    # seeds are joined by their id across lengths: a seed measured at one length only stays out
    extra = _map({(25_000, 1_500): -0.02}, seeds=6)[-2:]
    assert extra[0]["seed"] == 5
    assert scalemap.crossovers(records + extra, deep=2)[0].n_seeds == 5


def test_the_bracket_names_the_measured_lengths_around_the_set_not_its_interpolated_limits() -> (
    None
):
    """The issue's case: a confidence set from about 2,100 to 4,400 steps, measured at 1,500,
    3,000 and 6,000, is reported as "between 1,500 and 6,000 steps"."""
    assert scalemap.bracket(LENGTHS, 2_108.0, 4_405.0) == (1_500, 6_000)
    assert scalemap.bracket(LENGTHS, 3_000.0, 3_000.0) == (3_000, 3_000)
    assert scalemap.bracket(LENGTHS, 3_178.0, math.inf) == (3_000, math.inf)
    assert scalemap.bracket(LENGTHS, -math.inf, 1_499.0) == (-math.inf, 1_500)
    # depth behind at 1,500, within noise at 3,000, ahead at 6,000 (each seed's own curve)
    d = np.array([[-0.04, 0.02, 0.05], [-0.05, -0.01, 0.03], [-0.03, 0.01, 0.04],
                  [-0.05, -0.02, 0.02], [-0.06, 0.00, 0.05]])  # fmt: skip
    records = [
        r
        for seed, row in enumerate(d)
        for steps, diff in zip(LENGTHS, row, strict=True)
        for r in (
            _record(160_000, steps, 1, seed, 2.0),
            _record(160_000, steps, 2, seed, 2.0 - diff),
        )
    ]
    (x,) = scalemap.crossovers(records, deep=2)
    assert 1_500 < x.set_low < 3_000 < x.set_high < 6_000
    assert (x.low, x.high) == (1_500, 6_000)
    assert "at 95% confidence the crossover is between 1,500 and 6,000 steps, the measured " in (
        x.text()
    )
    assert "paired t over 5 seeds, each seed's differences kept together across lengths" in (
        x.text()
    )


def test_crossover_outside_the_map_is_a_bound_not_an_extrapolation() -> None:
    behind = _map({(25_000, s): a for s, a in zip(LENGTHS, (-0.05, -0.04, -0.03), strict=True)})
    (x,) = scalemap.crossovers(behind, deep=2)
    assert x.estimate == math.inf and (x.low, x.high) == (6_000, math.inf)
    assert "width's mean leads at every length measured (1,500-6,000 steps)" in x.text()
    assert "the crossover, if any, is beyond 6,000 steps, the longest measured" in x.text()
    ahead = _map({(25_000, s): 0.05 for s in LENGTHS})
    (y,) = scalemap.crossovers(ahead, deep=2)
    assert y.estimate == -math.inf and "already leads at 1,500 steps" in y.text()
    assert (y.low, y.high) == (-math.inf, 1_500)
    assert "the crossover is below 1,500 steps, the shortest measured" in y.text()
    (z,) = scalemap.crossovers(_map({(25_000, 1_500): -0.05}), deep=2)
    assert "no crossover can be located" in z.text()


def test_confidence_set_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="differences must be a \\(seeds, lengths\\) array"):
        scalemap.confidence_set(LENGTHS, np.zeros((5, 2)))
    with pytest.raises(ValueError, match="at least 2 seeds"):
        scalemap.confidence_set(LENGTHS, np.zeros((1, 3)))
    with pytest.raises(ValueError, match="confidence must be in \\(0, 1\\)"):
        scalemap.confidence_set(LENGTHS, np.zeros((5, 3)), confidence=95)
    with pytest.raises(ValueError, match="lengths must be positive and strictly increasing"):
        scalemap.confidence_set((3_000, 1_500, 6_000), np.zeros((5, 3)))
    # no spread at all: the set is the mean's own crossing, found exactly
    exact = np.tile([-0.02, 0.02, 0.04], (5, 1))
    low, high = scalemap.confidence_set(LENGTHS, exact)
    assert low == pytest.approx(high) == pytest.approx(math.sqrt(1_500 * 3_000))


def test_a_cell_enters_the_map_only_with_all_its_seeds() -> None:
    records = _map({(25_000, 1_500): -0.05}) + _map({(25_000, 3_000): -0.05}, seeds=3)
    assert [scalemap.grid_key(c) for c in scalemap.map_cells(records, deep=2)] == [(25_000, 1_500)]
    both = scalemap.map_cells(records, deep=2, min_seeds=3)
    assert [scalemap.grid_key(c) for c in both] == [(25_000, 1_500), (25_000, 3_000)]
    with pytest.raises(ValueError, match="min_seeds must be an integer >= 2"):
        scalemap.map_cells(records, deep=2, min_seeds=1)


def test_status_counts_against_the_design() -> None:
    from rnnlab.experiments.scale import sweep_spec

    design = {
        (e.label("budget_target"), e.label("steps"), e.num_layers): e.key
        for e in sweep_spec("reference").experiments
    }
    records = _map({(25_000, 1_500): 0.0})
    for r in records:
        labels = r["experiment"]["labels"]
        r["experiment_key"] = design[labels["budget_target"], labels["steps"], r["num_layers"]]
    st = scalemap.status(records, "reference")
    assert st.eval_runs == 10 and st.eval_expected == 4 * 3 * 3 * 5
    # a run of an experiment outside the design does not count towards it
    assert (
        scalemap.status(
            records + [{**records[0], "experiment_key": "other", "seed": 9}], "reference"
        ).eval_runs
        == 10
    )
    assert not st.complete and "provisional" in st.text() and "10 of 180" in st.text()
    # no tuning run yet: the design's runs are its initial grid plus the reporting runs
    assert (
        st.runs_expected == sweep_spec("reference").n_runs()
        and "10 of the design's 270" in st.text()
    )


def test_heatmap_marks_cells_not_run_yet() -> None:
    cells = scalemap.map_cells(_map({(25_000, 1_500): 0.05}), deep=2)
    budgets, lengths = scalemap.design_grid("reference")
    fig = plots.gap_heatmap(
        cells, row_key="budget_target", col_key="steps", rows=budgets, cols=lengths,
        title="t", effect_label="bits per character",
    )  # fmt: skip
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts.count("not run yet") == len(budgets) * len(lengths) - 1
    p = cells[0].comparison.p_diff_adjusted
    assert any(t.endswith(f"supported (Holm p {p:.3f})") or t.endswith("(Holm p < 0.001)")
               for t in texts)  # fmt: skip


def test_heatmap_shows_the_adjusted_p_that_made_a_cell_inconclusive() -> None:
    """Holm across the map can leave a cell inconclusive although its own interval excludes 0:
    the annotation gives the adjusted p-value, so the reader sees why."""
    diffs = (0.02, 0.005, 0.015, 0.001, 0.019)  # mean 0.012, one-cell p about 0.03
    records = [
        r
        for b in (25_000, 63_000, 160_000, 400_000)
        for seed, d in enumerate(diffs)
        for r in (_record(b, 1_500, 1, seed, 2.0), _record(b, 1_500, 2, seed, 2.0 - d))
    ]
    cells = scalemap.map_cells(records, deep=2)
    fig = plots.gap_heatmap(cells, row_key="budget_target", col_key="steps", title="t")
    texts = [t.get_text() for t in fig.axes[0].texts]
    for c, t in zip(cells, texts, strict=True):
        k = c.comparison
        assert t.splitlines()[-1] == f"{k.verdict} (Holm p {k.p_diff_adjusted:.3f})"
    assert any(c.comparison.verdict == "inconclusive" and c.comparison.ci_low > 0 for c in cells), (
        "the example needs a cell whose own interval excludes 0 but whose adjusted p does not"
    )


def test_summary_lines_say_where_depth_is_supported_and_where_not() -> None:
    advantage = {(25_000, s): a for s, a in zip(LENGTHS, (-0.05, -0.02, 0.05), strict=True)}
    text = "\n".join(scalemap.summary_lines(_map(advantage), deeps=(2, 4)))
    assert "L=2 against L=1, 3 of the map's cells measured (1 supported, 2 contradicted)" in text
    assert "supported from 25,000 parameters at 6,000 steps" in text
    assert "the mean advantage changes sign near" in text
    assert text.endswith(scalemap.CROSSOVER_METHOD) and "after seeing the data" in text
    assert "L=4 against L=1: no cell of the map has results yet." in text
    assert not any("How the crossover is read" in x for x in scalemap.summary_lines([]))


def _with_curves(records: list[dict], gap_at) -> list[dict]:
    """Give each record a validation curve every 100 steps: L=1 at 2.0 bits per character, the
    deep model at 2.0 - gap_at(step / steps) (so a positive gap means depth is better)."""
    out = []
    for r in records:
        steps = r["experiment"]["labels"]["steps"]
        points = range(100, steps + 1, 100)
        deep = r["num_layers"] > 1
        curve = [
            {"step": s, "val": 2.0 - (gap_at(s / steps) + 0.001 * r["seed"] if deep else 0.0)}
            for s in points
        ]
        out.append({**r, "curves": curve})
    return out


def test_gap_along_training_reads_the_longest_length_in_the_map_at_each_budget() -> None:
    advantage = {(25_000, 1_500): -0.05, (25_000, 3_000): 0.01, (63_000, 1_500): -0.05}
    # depth behind for the first half of every schedule, ahead by 0.02 from 60% on
    records = _with_curves(_map(advantage), lambda f: 0.02 if f >= 0.6 else -0.1)
    # a 6,000-step cell with too few seeds stays out of the map, and so out of this view
    records += _with_curves(_map({(25_000, 6_000): 0.05}, seeds=2), lambda f: 0.5)
    along = scalemap.gap_along_training(records, deep=2)
    assert list(along) == [25_000, 63_000]
    assert {r["schedule"] for r in along[25_000]} == {3_000}
    assert {r["schedule"] for r in along[63_000]} == {1_500}
    assert [r["step"] for r in along[25_000]] == list(range(100, 3_001, 100))
    assert along[25_000][-1]["gap"] == pytest.approx(0.02 + 0.002)  # + the mean seed offset
    assert along[25_000][0]["ci_low"] <= along[25_000][0]["gap"] <= along[25_000][0]["ci_high"]
    assert scalemap.overtakes_at(along[25_000]) == 1_800  # 60% of 3,000 steps
    assert scalemap.overtakes_at(along[63_000]) == 900
    behind = _with_curves(_map({(25_000, 1_500): -0.05}), lambda f: -0.01)
    assert scalemap.overtakes_at(scalemap.gap_along_training(behind, deep=2)[25_000]) is None
    assert scalemap.gap_along_training([], deep=2) == {}


def test_a_barely_positive_mean_gives_a_crossing_whose_interval_reaches_beyond_the_map() -> None:
    """The mean turns positive at the longest length, but within noise: the text names the
    interpolated crossing of the mean and a bracket open beyond the map."""
    records = _map({(160_000, 1_500): -0.04, (160_000, 3_000): 0.003}, noise=0.02)
    (x,) = scalemap.crossovers(records, deep=2)
    assert 1_500 < x.estimate <= 3_000 and x.high == math.inf and x.low >= 1_500
    text = x.text()
    assert "the mean advantage changes sign near" in text
    assert "with no upper bound inside the map (it may lie beyond 3,000 steps)" in text


def test_transfer_lines_state_the_declared_rule_and_read_the_control(monkeypatch) -> None:
    def row(depth: int, short: float, apart: int) -> dict:
        return {"experiment_key": f"k{depth}", "budget_target": 63_000, "num_layers": depth,
                "short_steps": 1_500, "steps": 6_000, "short_rate": short,
                "own_rate": 0.008, "grid_steps_apart": apart}  # fmt: skip

    rows = [row(1, 0.032, 2), row(2, 0.016, 1)]
    monkeypatch.setattr("rnnlab.experiments.scale.transfer_check", lambda spec, records: rows)
    rng = np.random.default_rng(3)
    base = {s: 2.0 + 0.1 * rng.standard_normal() for s in range(5)}

    def runs(l1_extra: float, l2_extra: float, lr: float) -> list[dict]:
        out = []
        for s, b in base.items():
            for depth, extra in ((1, l1_extra), (2, l2_extra - 0.01)):
                r = _record(63_000, 6_000, depth, s, b + extra + 0.001 * rng.standard_normal())
                out.append(dict(r, lr=lr))
        return out

    own = runs(0.0, 0.0, 0.008)
    lines = scalemap.transfer_lines(own, [], deeps=(2,))
    assert "the declared rule fails" in lines[0]
    assert "L=1: 0.032 tuned at 1,500 steps, 0.008 at 6,000 (2 grid steps apart)" in lines[0]
    assert "not tuned for their length" in lines[0] and "no seed with all its runs yet" in lines[1]
    # the transferred rate costs L=1 0.05 and L=2 0.01: it shifts the advantage towards depth
    lines = scalemap.transfer_lines(own, runs(0.05, 0.01, 0.032), deeps=(2,))
    assert "favour depth" in lines[1] and "10 of 10 control runs" in lines[1]
    shift = float(lines[1].split("a shift of ")[1].split(" ")[0])
    assert shift == pytest.approx(0.04, abs=0.003) and "L=1 +0.05" in lines[1]
    assert "leads in none of the map's other cells longer than 1,500 steps" in lines[1]
    # two other long cells where depth leads, by 0.1 and by 0.01: only the first clears the bound
    longer = [dict(r, lr=0.016) for r in _map({(160_000, 6_000): 0.1, (400_000, 3_000): 0.01})]
    lines = scalemap.transfer_lines(own + longer, runs(0.05, 0.01, 0.032), deeps=(2,))
    assert "leads in 2 of the map's other cells longer than 1,500 steps" in lines[1]
    assert "160,000 x 6,000 (+0.10" in lines[1] and "400,000 x 3,000 (+0.01" in lines[1]
    assert "1 of them by more than the shift's upper end" in lines[1]
    assert "favour width" in scalemap.transfer_lines(own, runs(0.0, 0.04, 0.032), deeps=(2,))[1]
    same = scalemap.transfer_lines(own, runs(0.0, 0.0, 0.032), deeps=(2,))[1]
    assert "no shift is detectable" in same
    rows[0] = row(1, 0.016, 1)  # every depth within one grid step: the rule holds
    assert "the declared rule holds" in scalemap.transfer_lines(own, [], deeps=(2,))[0]
    monkeypatch.setattr("rnnlab.experiments.scale.transfer_check", lambda spec, records: [])
    assert scalemap.transfer_lines(own, [], deeps=(2,)) == []  # the check has not run


# --- the crossover's interval on simulated data with a known answer ---------------------------

TRUE_CROSSING = 3_600.0  # steps: the simulated mean advantage is 0 here


def _simulate(rng: np.random.Generator, rho: float, *, seeds: int = 5, sd: float = 0.02):
    """Per-seed advantages (seeds x LENGTHS): a mean linear in log steps through 0 at
    ``TRUE_CROSSING`` (-0.044, -0.009, +0.026 bits per character), plus seed errors with standard
    deviation ``sd`` at every length and correlation ``rho`` between any two lengths (one seed
    fixes the data and the test sample at every length)."""
    logs = np.log(np.asarray(LENGTHS, dtype=float))
    mean = 0.035 * (logs - math.log(TRUE_CROSSING)) / math.log(2)
    cov = sd**2 * ((1 - rho) * np.eye(len(LENGTHS)) + rho)
    return mean + rng.multivariate_normal(np.zeros(len(LENGTHS)), cov, size=seeds)


def _independent_cells_bootstrap(rng: np.random.Generator, d: np.ndarray, n_boot: int = 500):
    """The retired interval, kept here to test against: seeds resampled in every length
    independently, percentiles of the interpolated crossing."""
    n, k = d.shape
    idx = rng.integers(0, n, (n_boot, n, k))
    means = np.take_along_axis(np.broadcast_to(d, (n_boot, n, k)), idx, axis=1).mean(axis=1)
    boots = np.array([scalemap.crossing(LENGTHS, m) for m in means])
    return tuple(float(np.quantile(boots, q, method="inverted_cdf")) for q in (0.025, 0.975))


def _width(low: float, high: float) -> float:
    """Width in log steps of the part of an interval inside the map."""
    return math.log(min(high, LENGTHS[-1])) - math.log(max(low, LENGTHS[0]))


@pytest.mark.parametrize("rho", [0.9, 0.0])
def test_the_joint_t_set_covers_the_true_crossing_at_the_nominal_rate(rho: float) -> None:
    """Over 1,000 simulated maps of 5 seeds the 95% set covers the known crossing in 93-97.5%
    of them, whether the seeds' errors are correlated across lengths (as in the map, r about 0.9)
    or not. The retired bootstrap covers it in under 88% of correlated maps (the next test), so
    this tolerance fails a method that ignores the correlation or is not calibrated for 5 seeds;
    so does the same set at the normal quantile instead of Student's t (checked here)."""
    rng = np.random.default_rng(26)
    sets = [scalemap.confidence_set(LENGTHS, _simulate(rng, rho)) for _ in range(1_000)]
    coverage = np.mean([lo <= TRUE_CROSSING <= hi for lo, hi in sets])
    assert 0.93 <= coverage <= 0.975, coverage
    # t at 4 degrees of freedom reaches the normal's 1.96 at about 88% confidence
    rng = np.random.default_rng(26)
    z_like = [
        scalemap.confidence_set(LENGTHS, _simulate(rng, rho), confidence=0.878)
        for _ in range(1_000)
    ]
    assert np.mean([lo <= TRUE_CROSSING <= hi for lo, hi in z_like]) < 0.93


def test_correlated_seed_offsets_widen_the_joint_set_where_independent_cells_do_not() -> None:
    """The same seed errors at every length (rho = 0.9) against independent ones (rho = 0),
    with the same spread at each length. Between two measured lengths a seed's interpolated
    advantage carries its errors at both, and correlated errors do not cancel: the joint set is
    wider, as it must be to keep its coverage. The independent-cells bootstrap ignores the
    pairing, stays narrow, and misses the true crossing far more often than 5%."""
    width, boot_width, boot_coverage = {}, {}, {}
    for rho in (0.9, 0.0):
        rng = np.random.default_rng(4)
        data = [_simulate(rng, rho) for _ in range(400)]
        width[rho] = np.mean([_width(*scalemap.confidence_set(LENGTHS, d)) for d in data])
        boots = [_independent_cells_bootstrap(rng, d) for d in data]
        boot_width[rho] = np.mean([_width(*b) for b in boots])
        boot_coverage[rho] = np.mean([lo <= TRUE_CROSSING <= hi for lo, hi in boots])
    assert width[0.9] > 1.05 * width[0.0], width
    assert width[0.9] > 1.4 * boot_width[0.9], (width, boot_width)
    assert boot_coverage[0.9] < 0.88, boot_coverage
