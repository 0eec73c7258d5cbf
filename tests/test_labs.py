"""Labs as data: every profile's design is fair and matched, and the analysis is right."""

import pytest

from rnnlab.analysis import claim_verdicts, compare_cells, curve_gap, summary_rows
from rnnlab.labs import LABS, PROFILES, fit_budget, get_lab, task_example
from rnnlab.models import matched_config_for_task


@pytest.mark.parametrize("lab", list(LABS))
@pytest.mark.parametrize("profile", list(PROFILES))
def test_designs_are_budget_matched_and_fair(lab, profile):
    spec = get_lab(lab).sweep(profile)
    if profile != "smoke":
        assert len(spec.seeds) >= 5
    cells = {}
    for e in spec.experiments:
        cell = tuple(sorted(dict(e.labels).items())) + (("budget", e.budget),)
        cells.setdefault(cell, []).append(e)
    for cell, exps in cells.items():
        depths = [e.num_layers for e in exps]
        assert 1 in depths and len(set(depths)) >= 2, cell
        # the same tuning budget and training rule for every depth in a cell
        assert len({(e.lr_grid, e.train, e.n_train, e.task_options) for e in exps}) == 1, cell
    if profile == "cpu":  # the cpu designs read the task metadata: build a few configs for real
        for e in spec.experiments[:3]:
            _, match = matched_config_for_task(
                task_example(e.task, e.task_options),
                budget=e.budget,
                num_layers=e.num_layers,
                embedding_dim=e.embedding_dim,
            )
            assert abs(match.relative_error) <= 0.02


def test_lab_c_is_at_least_three_by_three():
    spec = get_lab("lab-c").sweep("cpu")
    nest = {e.label("nesting") for e in spec.experiments}
    sizes = {e.label("n_train") for e in spec.experiments}
    assert len(nest) >= 3 and len(sizes) >= 3


def test_fit_budget_errors_and_matches():
    b = fit_budget(8000, (1, 2, 4), task="majority")
    assert abs(b - 8000) <= 0.15 * 8000
    with pytest.raises(ValueError, match="budget"):
        fit_budget(300, (1, 4), task="majority")


def fake(lab, cell_labels, layers, seed, test, curve=None, hib=True):
    return {
        "lab": lab,
        "role": "eval",
        "experiment": {"labels": cell_labels},
        "budget": 1000,
        "num_layers": layers,
        "seed": seed,
        "lr": 0.003,
        "param_count": 1000,
        "model": {"hidden_size": 10},
        "metrics": {
            "test": test,
            "metric": "accuracy" if hib else "bits_per_char",
            "higher_is_better": hib,
            "steps": 100,
            "test_by_group": {},
        },
        "curves": curve or [],
    }


def test_verdicts_computed_from_records():
    lab = get_lab("lab-c")
    recs = []
    for nesting in (1, 3):
        for n in (100, 1000):
            labels = {"task": "listops", "nesting": nesting, "n_train": n}
            for s in range(5):
                # depth clearly better at nesting 3; width clearly better at n=100 & nesting 1
                wide = 0.5 + 0.001 * s
                deep = wide + (0.1 if nesting == 3 else -0.1 if n == 100 else 0.0) + 0.002 * s
                recs += [fake("lab-c", labels, 1, s, wide), fake("lab-c", labels, 2, s, deep)]
    v = {cv.claim.id: cv for cv in claim_verdicts(lab, recs)}
    assert v["c1"].verdict == "supported" and len(v["c1"].cells) == 2
    # c2 cells: n=100 at nesting 1 (width wins) and nesting 3 (depth wins): mixed
    assert v["c2"].verdict == "inconclusive" and len(v["c2"].cells) == 2
    rows = summary_rows(recs)
    assert len(rows) == 8 and all(r["seeds"] == 5 for r in rows)


def test_lower_is_better_and_curve_gap():
    labels = {"task": "charlm-english", "corpus": "english"}
    recs = []
    for s in range(3):
        cw = [{"step": 10, "val": 3.0 + 0.01 * s}, {"step": 20, "val": 2.0 + 0.01 * s}]
        cd = [{"step": 10, "val": 3.5 + 0.01 * s}, {"step": 20, "val": 1.8 + 0.02 * s}]
        recs.append(fake("lab-b", labels, 1, s, 2.0 + 0.01 * s, cw, hib=False))
        recs.append(fake("lab-b", labels, 2, s, 1.8 + 0.02 * s, cd, hib=False))
    (cell,) = compare_cells(recs, wide=1, deep=2, claim="depth")
    assert (
        cell.comparison.effect == pytest.approx(0.2 - 0.01)
        and cell.comparison.verdict == "supported"
    )
    gap = curve_gap(recs, cell.cell, wide=1, deep=2)
    assert [g["step"] for g in gap] == [10, 20]
    assert gap[0]["gap"] < 0 < gap[1]["gap"]  # width leads early, depth later: a crossover
