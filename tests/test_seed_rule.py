"""The convergence experiment's seed rule: the tuning seeds' spread, measured per setting and
pooled, fixes each budget's number of reporting seeds before any reporting run
(rnnlab.experiments.resolution.tuning_spread, rnnlab.experiments.converge.seeding)."""

from __future__ import annotations

import numpy as np
import pytest

from rnnlab.experiments import converge
from rnnlab.experiments.converge import seeding
from rnnlab.experiments.experiment import TUNE_SEEDS, run_id
from rnnlab.experiments.resolution import resolution, tuning_spread

WINDOWS = [40, 60, 100, 200]


def _record(seed: int, bits, rid: str = "") -> dict:
    return {
        "run_id": rid or f"r{seed}",
        "seed": seed,
        "task_info": {"test_files": [[f"f{k}.py", n] for k, n in enumerate(WINDOWS)]},
        "metrics": {"test_by_group": {str(k): float(b) for k, b in enumerate(bits)}},
    }


def _setting(rng, effect: float, sd: float, seeds: int, level: float) -> tuple[dict, dict]:
    """One tuning setting: per-seed paired effects ``effect + N(0, sd)`` on every file alike."""
    base = np.array([2.0, 1.8, 1.6, 1.9]) + level
    wide = {s: _record(s, base) for s in range(seeds)}
    deep = {s: _record(s, base - effect - rng.normal(0, sd)) for s in range(seeds)}
    return wide, deep


def test_the_spread_pools_seed_noise_within_settings_and_ignores_their_differences():
    rng = np.random.default_rng(1)
    # 400 settings of two seeds each, with effects from -0.2 to +0.2 between settings: the
    # known seed sd of the paired effect is 0.015, whatever the settings' own effects
    settings = [_setting(rng, e, 0.015, 2, e) for e in np.linspace(-0.2, 0.2, 400)]
    s = tuning_spread(settings)
    assert s.settings == 400 and s.df == 400
    assert s.sd_seed == pytest.approx(0.015, rel=0.1)
    # the same effect on every file: the files add (almost) nothing
    assert s.se_file < 0.1 * s.sd_seed
    # pooled within settings: the spread of all per-seed effects together is far larger
    pairs = [(w[k], d[k]) for w, d in settings for k in (0, 1)]
    everything = tuning_spread([(dict(enumerate(w for w, _ in pairs)),
                                 dict(enumerate(d for _, d in pairs)))])  # fmt: skip
    assert everything.sd_seed > 5 * s.sd_seed


def test_files_that_disagree_enter_the_spread_as_the_file_share():
    rng = np.random.default_rng(2)
    gains = np.array([0.10, -0.05, 0.08, -0.02])  # depth's gain differs from file to file
    settings = []
    for _ in range(20):
        base = np.array([2.0, 1.8, 1.6, 1.9])
        wide = {s: _record(s, base) for s in (0, 1)}
        deep = {s: _record(s, base - gains - rng.normal(0, 0.001)) for s in (0, 1)}
        settings.append((wide, deep))
    s = tuning_spread(settings)
    assert s.se_file > 0.02 and s.sd_seed < 0.005


def test_the_file_share_splits_into_what_seeds_average_away_and_what_they_do_not():
    rng = np.random.default_rng(5)
    base = np.array([2.0, 1.8, 1.6, 1.9])

    def settings(gains, noise):
        out = []
        for _ in range(200):
            wide = {s: _record(s, base) for s in (0, 1)}
            deep = {s: _record(s, base - gains - rng.normal(0, noise, 4)) for s in (0, 1)}
            out.append((wide, deep))
        return out

    # seed noise on each file, no file-to-file difference in the effect: it averages away
    noisy = tuning_spread(settings(np.zeros(4), 0.02))
    assert noisy.file_fixed < 0.5 * noisy.file_noise
    assert noisy.se_file_at(2) == pytest.approx(noisy.se_file, rel=0.1)
    assert noisy.se_file_at(32) < 0.5 * noisy.se_file  # 1.0 if nothing averaged away
    # files that differ, no noise: more seeds do not help
    fixed = tuning_spread(settings(np.array([0.10, -0.05, 0.08, -0.02]), 0.0))
    assert fixed.file_noise < 1e-9 and fixed.se_file_at(32) == pytest.approx(fixed.se_file)


def test_the_spread_needs_two_paired_seeds_somewhere():
    with pytest.raises(ValueError, match="at least two paired seeds"):
        tuning_spread([({0: _record(0, [2, 2, 2, 2])}, {0: _record(0, [2, 2, 2, 2])})])
    with pytest.raises(ValueError, match="at least two paired seeds"):
        tuning_spread([])


def _tuning_records(d, budget: int, sd: float, rng, skip: int = 0) -> list[dict]:
    """Every tuning run of the seed rule's variants at the longest length (the smoke grid has two
    rates and no room to extend, so this tuning is complete), less the first ``skip``. The
    deeper model's test scores vary from seed to seed by ``sd`` around a level per setting."""
    out = []
    exps = converge.tuning_experiments(d, budget, max(d.lengths), d.seed_rule)
    for e in exps:
        for lr in e.lr_grid:
            for s in TUNE_SEEDS:
                level = 0.01 * e.num_layers + lr
                noise = rng.normal(0, sd) if e.num_layers > 1 else 0.0
                r = _record(s, np.array([2.0, 1.8, 1.6, 1.9]) + level + noise,
                            run_id(e, "tune", s, lr))  # fmt: skip
                r.update(experiment_key=e.key, role="tune", lr=lr)
                r["metrics"].update(val=2.0 + level, higher_is_better=False)
                out.append(r)
    return out[skip:]


def test_reporting_seeds_follow_the_rule_and_wait_for_the_tuning():
    d = converge.design("smoke")  # seeds (0, 1), at most 3, margin 0.01
    budget = d.budgets[0]
    rng = np.random.default_rng(3)
    quiet = _tuning_records(d, budget, 0.0005, rng)
    noisy = _tuning_records(d, budget, 0.05, rng)
    assert seeding.report_seeds(d, budget, ("L1", "L2"), quiet) == (0, 1)
    assert seeding.report_seeds(d, budget, ("L1", "L2"), noisy) == (0, 1, 2)
    # a missing tuning run: not decided, and the report stage waits with no experiment
    partial = _tuning_records(d, budget, 0.05, rng, skip=1)
    assert seeding.report_seeds(d, budget, ("L1", "L2"), partial) is None
    report = [s for s in converge.stages(d, partial) if s.kind == "report"]
    assert report and all(not s.spec.experiments for s in report)
    # the rule's number is the fewest seeds that resolve the margin, within its bounds
    spread = seeding.seed_spread(d, budget, noisy)
    assert spread is not None and spread.settings == 4
    big = converge.design("reference")
    n = seeding.seeds_from_spread(big, spread)
    assert n == big.max_seeds or resolution(spread.sd_seed, n, spread.se_file) <= big.margin
    small = seeding.seeds_from_spread(big, seeding.seed_spread(d, budget, quiet))
    assert small == len(big.seeds)
    # variants outside the rule keep the design's seeds
    assert seeding.report_seeds(big, 160_000, ("L4-res-LN", "L4-plain"), []) == big.seeds
    # and the report stage of the rule's variants carries the decided seeds
    stage = next(s for s in converge.stages(d, noisy) if s.kind == "report")
    assert stage.spec.seeds == (0, 1, 2)


def test_the_plan_prints_each_budgets_seed_decision():
    d = converge.design("smoke")
    budget = d.budgets[0]
    rng = np.random.default_rng(4)
    undecided = "\n".join(converge.plan_lines(converge.plan("smoke", [], [], {})))
    assert f"reporting seeds at {budget:,} parameters: not decided yet" in undecided
    noisy = _tuning_records(d, budget, 0.05, rng)
    p = converge.plan("smoke", noisy, [], {})
    spread, n = p.seed_rule[budget]
    assert n == 3 and spread.settings == 4
    text = "\n".join(converge.plan_lines(p))
    assert f"reporting seeds at {budget:,} parameters: 3 seeds, from the tuning" in text
    # the report stages are planned with the decided seeds
    report = [s for s in p.stages if s.kind == "report"]
    assert report and all(s.runs == len(s.variants) * 3 for s in report)


def test_a_comparison_waits_for_the_seeds_both_its_models_run_and_no_more():
    """One layer runs the seeds the rule gives it; a four-layer stack, outside the rule, runs the
    design's five. Their comparison is complete with those five paired, not one layer's count."""
    from rnnlab.evidence import converge_results
    from rnnlab.experiments.store import load_results

    d = converge.design("smoke")
    budget = d.budgets[0]
    rng = np.random.default_rng(3)
    noisy = _tuning_records(d, budget, 0.05, rng)
    assert seeding.paired_seeds(d, budget, ("L1", "L2"), noisy) == (0, 1, 2)
    assert seeding.paired_seeds(d, budget, ("L1", "L2"), noisy[1:]) is None
    records = load_results("data/results/converge/reference.jsonl")
    big = converge.design_for("reference", records)
    one = seeding.report_seeds(big, 160_000, ("L1",), records)
    assert one is not None and len(one) > len(big.seeds)  # the rule raised one layer's seeds
    for deep in ("L4-res-LN", "L4-plain"):
        assert seeding.paired_seeds(big, 160_000, ("L1", deep), records) == big.seeds
    assert seeding.paired_seeds(big, 160_000, ("L1", "L2"), records) == one
    for c in converge_results.results("reference", records):
        want = seeding.paired_seeds(big, c.budget, (c.wide, c.deep), records)
        assert want is not None and c.planned == len(want)
        assert c.interim == (c.effect.n_seeds < len(want))
