"""Labs as data: every profile's design is fair and matched, and the analysis is right."""

import dataclasses
import math

import pytest

from rnnlab.core.models import matched_config_for_task
from rnnlab.evidence.analysis import (
    claim_verdicts,
    compare_cells,
    curve_gap,
    design_cells,
    equivalence_verdict,
    summary_rows,
)
from rnnlab.experiments.budgets import fit_budget, task_example
from rnnlab.experiments.experiment import LATER_MODEL_DEFAULTS, Experiment
from rnnlab.experiments.lab_d import STACKS
from rnnlab.experiments.labs import LABS, get_lab


@pytest.mark.parametrize(
    ("lab", "profile"), [(n, p) for n, lab in LABS.items() for p in lab.profiles]
)
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
                **e.model_options,
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


# ----------------------------------------------------------------------------- Lab D


@pytest.mark.parametrize("lab", ["lab-a", "lab-b", "lab-c"])
@pytest.mark.parametrize("profile", ["smoke", "cpu", "gpu"])
def test_model_options_leave_earlier_keys_unchanged(lab, profile):
    """Labs A-C set no design option, so their experiments' dicts (and keys) are as before."""
    for e in get_lab(lab).sweep(profile).experiments:
        d = e.to_dict()
        assert not set(LATER_MODEL_DEFAULTS) & set(d), e
        assert d["dropout"] == 0.0


def test_a_design_option_changes_the_key_and_is_recorded():
    base = Experiment(
        task="majority", budget=3000, num_layers=2, n_train=10, n_val=5, n_test=5, lr_grid=(1e-3,)
    )
    fixed = dataclasses.replace(base, residual=True, layer_norm=True)
    assert fixed.key != base.key and fixed.cell_key != base.cell_key
    assert fixed.to_dict()["residual"] is True and "proj_size" not in fixed.to_dict()
    assert fixed.model_options["layer_norm"] is True
    with pytest.raises(ValueError, match="cell"):
        dataclasses.replace(base, cell="rnn")
    with pytest.raises(ValueError, match="proj_size and proj_ratio"):
        dataclasses.replace(base, proj_size=2, proj_ratio=0.5)


@pytest.mark.parametrize("profile", LABS["lab-d"].profiles)
def test_lab_d_design(profile):
    spec = get_lab("lab-d").sweep(profile)
    exps = spec.experiments
    by_task = {}
    for e in exps:
        by_task.setdefault(e.task, set()).add((e.label("stack"), e.num_layers, e.budget))
    assert set(by_task) == {"charlm-english", "listops", "memorize"}
    for task in ("charlm-english", "listops"):
        stacks = {s for s, _, _ in by_task[task]}
        assert {"plain", "residual-ln"} <= stacks
        assert len({b for _, _, b in by_task[task]}) == 1  # every stack at one fitted budget
        depths = {L for _, L, _ in by_task[task]}
        assert {1, 2} <= depths and (profile == "smoke" or {1, 2, 4} <= depths)
    assert {L for _, L, _ in by_task["memorize"]} == ({1, 2} if profile == "smoke" else {1, 2, 4})
    for e in exps:
        assert dict(e.model_options) | dict(STACKS[e.label("stack")]) == dict(e.model_options)
        if e.task == "memorize":
            assert e.n_test == e.n_train  # bits are counted on the whole training set
    if profile in ("reference", "gpu"):  # what the cpu profile leaves out
        assert {8} <= {e.num_layers for e in exps}
        assert set(STACKS) <= {e.label("stack") for e in exps}
    if profile == "reference":  # the cpu budgets, trained longer
        cpu_exps = get_lab("lab-d").sweep("cpu").experiments
        cpu = {(e.task, e.label("budget_target"), e.train.max_steps) for e in cpu_exps}
        ref = {(e.task, e.label("budget_target"), e.train.max_steps) for e in exps}
        assert {(t, b) for t, b, _ in cpu} == {(t, b) for t, b, _ in ref}
        assert min(s for *_, s in ref) >= 2 * min(s for *_, s in cpu)


def test_labs_reject_a_profile_they_do_not_define():
    with pytest.raises(ValueError, match="profile must be one of .* for lab-a"):
        get_lab("lab-a").sweep("reference")
    assert "reference" in get_lab("lab-d").profiles


def _lab_d_fake(task, stack, layers, seed, test, *, hib=True, n_test=100, params=1000):
    labels = {"task": task, "budget_target": 1000}
    if stack:
        labels["stack"] = stack
    rec = fake("lab-d", labels, layers, seed, test, hib=hib)
    rec["task"] = task
    rec["param_count"] = params
    rec["experiment"]["n_test"] = n_test
    rec["task_info"] = {"num_classes": 2}
    return rec


def test_lab_d_verdicts_from_records():
    lab = get_lab("lab-d")
    recs = []
    for s in range(5):
        noise = 0.001 * s
        for L in (1, 2, 4):
            # plain stacks lose 0.05 per doubling; residual+LN ones lose nothing
            plain = 0.8 - 0.05 * math.log2(L) + noise
            fixed = 0.8 + noise + 0.0005 * s * (L > 1)
            recs.append(_lab_d_fake("listops", "plain", L, s, plain))
            recs.append(_lab_d_fake("listops", "residual-ln", L, s, fixed))
            # memorize: 10,000 examples, 1,000 parameters; about the same accuracy at every depth
            acc = 0.9 + 0.002 * s + 0.0003 * L
            recs.append(_lab_d_fake("memorize", "plain", L, s, acc, n_test=10_000))
    v = {cv.claim.id: cv for cv in claim_verdicts(lab, recs)}
    assert v["d1"].verdict == "supported"
    assert sorted(c.deep for c in v["d1"].cells) == [2, 4]
    four = next(c for c in v["d1"].cells if c.deep == 4)
    assert four.comparison.effect == pytest.approx(0.10, abs=0.005)  # the plain gap at L=4
    assert v["d2"].verdict == "supported" and len(v["d2"].cells) == 2
    assert all(c.comparison.verdict == "equivalent" for c in v["d2"].cells)
    assert v["d1"].scale["seeds"] == list(range(5))
    # one depth that stores clearly less is not enough to contradict the claim (the one
    # combining rule: the other depth is equivalent), both depths are
    for r in recs:
        if r["task"] == "memorize" and r["num_layers"] == 4:
            r["metrics"]["test"] = 0.7 + 0.003 * r["seed"]
    v = {cv.claim.id: cv for cv in claim_verdicts(lab, recs)}
    assert sorted(c.comparison.verdict for c in v["d2"].cells) == ["contradicted", "equivalent"]
    assert v["d2"].verdict == "inconclusive"
    for r in recs:
        if r["task"] == "memorize" and r["num_layers"] == 2:
            r["metrics"]["test"] = 0.75 + 0.002 * r["seed"]
    v = {cv.claim.id: cv for cv in claim_verdicts(lab, recs)}
    assert v["d2"].verdict == "contradicted"
    cells = design_cells(lab.claims[1], recs)
    expected = {f"memorize, budget 1,000, plain stack, L={L} vs L=1" for L in (2, 4)}
    assert {c.name for c in cells} == expected


def test_equivalence_claim_has_a_floor():
    lab = get_lab("lab-d")
    recs = []
    for s in range(5):
        for L in (1, 2):  # both depths near chance: equal, but nothing stored
            acc = 0.5 + 0.001 * s + 0.0001 * L
            recs.append(_lab_d_fake("memorize", "plain", L, s, acc, n_test=10_000))
    d2 = {cv.claim.id: cv for cv in claim_verdicts(lab, recs)}["d2"]
    assert d2.cells[0].comparison.deep.mean < lab.claims[1].floor
    assert d2.verdict == "not informative"
    assert d2.cells[0].comparison.verdict == "not informative"
    assert "declared floor of 1 bits/parameter" in d2.cells[0].comparison.reason


def test_gap_closure_orients_lower_is_better_metrics():
    lab = get_lab("lab-d")
    recs = []
    for s in range(4):
        for L in (1, 2):  # bits per character: plain deep stacks are 0.3 worse, fixed ones 0.1
            plain = 2.0 + 0.3 * (L - 1) + 0.01 * s
            fixed = 2.0 + 0.1 * (L - 1) + 0.012 * s * (L - 1)
            recs.append(_lab_d_fake("charlm-english", "plain", L, s, plain, hib=False))
            recs.append(_lab_d_fake("charlm-english", "residual-ln", L, s, fixed, hib=False))
    (cell,) = design_cells(lab.claims[0], recs)
    assert cell.comparison.effect == pytest.approx(0.2 - 0.012 * 1.5, abs=1e-9)
    assert cell.comparison.verdict == "supported"


def test_equivalence_verdict_rule():
    assert equivalence_verdict([]) == "inconclusive"
    assert equivalence_verdict(["equivalent", "inconclusive"]) == "supported"
    assert equivalence_verdict(["equivalent", "contradicted"]) == "inconclusive"  # one rule
    assert equivalence_verdict(["contradicted", "inconclusive"]) == "contradicted"
    assert equivalence_verdict(["not informative", "equivalent"]) == "supported"
    assert equivalence_verdict(["inconclusive", "inconclusive", "equivalent"]) == "inconclusive"


def test_convergence_sentence_names_the_groups_still_improving(monkeypatch):
    from rnnlab.course import book
    from rnnlab.evidence import analysis

    rows = [
        {"cell": "majority, budget 8,000", "layers": 1, "converged": True},
        {"cell": "majority, budget 8,000", "layers": 2, "converged": False},
    ]
    monkeypatch.setattr(analysis, "convergence", lambda records: rows)
    text = book.convergence_sentence([{}])
    assert text.startswith("1 of 2 cell-and-depth groups were still improving")
    assert "majority, budget 8,000, L=2" in text and "L=1" not in text
    rows[1]["converged"] = True
    assert book.convergence_sentence([{}]).startswith("All 2 cell-and-depth groups had converged")
    monkeypatch.setattr(analysis, "convergence", lambda records: [])
    assert book.convergence_sentence([]) == ""


def test_provenance_sentence_keeps_the_dirty_mark_and_counts_long_compute_in_hours():
    from rnnlab.evidence.analysis import format_provenance, provenance

    base = {
        "lab": "scale", "profile": "reference", "device": "cpu", "device_name": "x86_64",
        "versions": {"torch": "2.13.0", "python": "3.11.7"}, "role": "eval", "seed": 0,
        "started_at": "2026-12-02T09:00:00+00:00", "wall_time_s": 3_600.0,
    }  # fmt: skip
    runs = [
        {**base, "git_commit": "a" * 40},
        {**base, "git_commit": "a" * 40 + "+dirty"},
        {**base, "git_commit": "b" * 40 + "+dirty", "seed": 1},
    ]
    text = format_provenance(provenance(runs))
    assert f"commit {'a' * 10}, {'a' * 10}+dirty, {'b' * 10}+dirty" in text
    assert "3.0 h of compute" in text
    assert "60.0 min of compute" in format_provenance(provenance(runs[:1]))
    assert text.split(", on ")[0].endswith("2 seeds [0, 1], 3 reported runs")  # no "+0 tuning"
    mixed = format_provenance(provenance([*runs, {**runs[0], "role": "tune"}]))
    assert "2 seeds [0, 1], 3 reported runs (+1 tuning)" in mixed
    tuning = [{**r, "role": "tune"} for r in runs]  # a tuning figure: no reporting seeds
    assert "3 tuning runs (none reported)" in format_provenance(provenance(tuning))
    assert "seeds []" not in format_provenance(provenance(tuning))
