"""Version 2 tuning: two tuning seeds, one grid per cell, extended at an edge up to a cap."""

import pytest

from rnnlab.core.config import TrainConfig
from rnnlab.experiments.experiment import TUNE_SEEDS, Experiment, data_seed_for, run_id
from rnnlab.experiments.lab import log_grid
from rnnlab.experiments.sweep import SweepSpec, pending_units
from rnnlab.experiments.tuning import cell_grid, choose_lr, tuning_report


def _exp(depth: int, grid=(1e-3, 1e-2 / 10**0.5, 1e-2), limits=(1e-4, 0.1)) -> Experiment:
    return Experiment(
        task="majority",
        budget=3000,
        num_layers=depth,
        n_train=64,
        n_val=16,
        n_test=16,
        train=TrainConfig(max_steps=5),
        lr_grid=tuple(float(f"{g:.6g}") for g in grid),
        lr_limits=limits,
    )


def _rec(exp: Experiment, lr: float, seed: int, val: float) -> dict:
    return {
        "run_id": run_id(exp, "tune", seed, lr),
        "experiment_key": exp.key,
        "role": "tune",
        "lr": lr,
        "seed": seed,
        "metrics": {"val": val, "metric": "accuracy", "higher_is_better": True},
    }


def _tune_all(cell, grid, score):
    return [_rec(e, lr, s, score(e, lr, s)) for e in cell for lr in grid for s in TUNE_SEEDS]


def test_grid_is_log_spaced_and_validated():
    assert log_grid(1e-2) == pytest.approx((10**-2.5, 1e-2, 10**-1.5), rel=1e-5)
    with pytest.raises(ValueError, match="log-spaced"):
        _exp(1, grid=(1e-3, 2e-3, 1e-2))
    with pytest.raises(ValueError, match="lr_limits"):
        _exp(1, limits=(1e-2, 0.1))


def test_interior_optimum_needs_no_extension():
    cell = [_exp(1), _exp(2)]
    grid = cell[0].lr_grid
    recs = _tune_all(cell, grid, lambda e, lr, s: -abs(lr - grid[1]))
    g, complete = cell_grid(cell, recs)
    assert complete and g == grid
    assert choose_lr(cell[0], recs, cell) == grid[1]


def test_edge_optimum_extends_the_whole_cell_until_interior():
    cell = [_exp(1), _exp(2)]
    best = 0.1  # beyond the grid for depth 2; depth 1 likes the middle
    score = lambda e, lr, s: -abs(lr - (best if e.num_layers == 2 else 10**-2.5))  # noqa: E731
    recs = _tune_all(cell, cell[0].lr_grid, score)
    g, complete = cell_grid(cell, recs)
    assert not complete and len(g) == 4 and g[-1] == pytest.approx(10**-1.5)
    spec = SweepSpec("x", "cpu", tuple(cell), (0, 1))
    # the planned count grows with the extension: 4 rates x 2 tuning seeds x 2 depths + 2 x 2
    assert spec.n_runs() == 3 * 2 * 2 + 4 and spec.planned_runs(recs) == 4 * 2 * 2 + 4
    todo = pending_units(spec, recs)
    # both depths get the new rate, on both tuning seeds: equal trials per depth
    assert {(e.num_layers, s) for e, role, s, lr in todo} == {(1, t) for t in TUNE_SEEDS} | {
        (2, t) for t in TUNE_SEEDS
    }
    recs += _tune_all(cell, [g[-1]], score)
    g, complete = cell_grid(cell, recs)
    assert not complete and g[-1] == pytest.approx(0.1)  # one more step, reaching the cap
    recs += _tune_all(cell, [g[-1]], score)
    g, complete = cell_grid(cell, recs)
    assert complete and g[-1] == pytest.approx(0.1)
    report = {r["num_layers"]: r for r in tuning_report(cell, recs)}
    assert report[2]["chosen"] == pytest.approx(0.1) and report[2]["at_cap"]
    assert report[1]["extended"] and not report[1]["at_edge"]
    assert report[1]["tune_seeds"] == 2
    assert report[1]["metric"] == "accuracy"  # what mean_val measures, read from the runs
    assert tuning_report(cell, [])[0]["metric"] is None


def test_mean_over_tuning_seeds_decides():
    cell = [_exp(1)]
    grid = cell[0].lr_grid
    # seed 10000 prefers the top, seed 10001 strongly prefers the middle: the mean picks middle
    table = {
        (grid[0], TUNE_SEEDS[0]): 0.1,
        (grid[1], TUNE_SEEDS[0]): 0.5,
        (grid[2], TUNE_SEEDS[0]): 0.6,
        (grid[0], TUNE_SEEDS[1]): 0.1,
        (grid[1], TUNE_SEEDS[1]): 0.9,
        (grid[2], TUNE_SEEDS[1]): 0.2,
    }
    recs = _tune_all(cell, grid, lambda e, lr, s: table[(lr, s)])
    assert choose_lr(cell[0], recs, cell) == grid[1]


def test_each_seed_draws_its_own_data():
    e = _exp(1)
    assert data_seed_for(e, 0) != data_seed_for(e, 1)
    assert data_seed_for(_exp(2), 3) == data_seed_for(e, 3)  # depths of a cell share it
