"""What a cell can show: not-informative cells, closing vs narrowing a gap, one combining rule
and power at the Holm level, on synthetic records."""

import math

import pytest

from rnnlab.evidence import stats
from rnnlab.evidence.analysis import (
    baseline_of,
    cell_label,
    claim_verdicts,
    last_quarter_share,
    verdict_words,
)
from rnnlab.experiments.labs import get_lab


def record(lab, labels, layers, seed, test, *, hib=True, classes=10, steps=1000, best=None,
           curve=None, stack=None, params=1000, n_test=2000, task="listops"):  # fmt: skip
    """One synthetic eval record: what the analysis reads, nothing more."""
    labels = dict(labels) | ({"stack": stack} if stack else {})
    return {
        "lab": lab,
        "role": "eval",
        "task": task,
        "experiment": {"labels": labels, "n_test": n_test},
        "budget": 1000,
        "num_layers": layers,
        "seed": seed,
        "lr": 0.003,
        "param_count": params,
        "model": {"hidden_size": 10},
        "task_info": {"num_classes": classes},
        "metrics": {
            "test": test,
            "metric": "accuracy" if hib else "bits_per_char",
            "higher_is_better": hib,
            "steps": steps,
            "best_step": steps if best is None else best,
            "test_by_group": {},
        },
        "curves": curve or [],
    }


def curve(end: float, *, linear: bool, steps: int = 1000) -> list[dict]:
    """A validation curve from 0.1 to ``end``: a straight line, or one that flattens early."""
    n = 10
    points = []
    for i in range(1, n + 1):
        t = i / n
        frac = t if linear else 1 - (1 - t) ** 6
        points.append({"step": int(t * steps), "val": 0.1 + (end - 0.1) * frac})
    return points


LISTOPS = {"task": "listops", "nesting": 3, "n_train": 500}


def lab_c_records(wide, deep, **kw):
    """Lab C records in one cell (the deepest nesting and the smallest data: both claims)."""
    out = []
    for s in range(5):
        out.append(record("lab-c", LISTOPS, 1, s, wide + 0.002 * s, **kw))
        out.append(record("lab-c", LISTOPS, 2, s, deep + 0.003 * s, **kw))
    return out


def verdicts(lab, recs):
    return {cv.claim.id: cv for cv in claim_verdicts(get_lab(lab), recs)}


# ----------------------------------------------------------------------------- the three reasons


def test_a_floor_cell_is_not_informative():
    # chance 0.1 (ten classes); both depths barely above it: depth "wins" by 0.02, significantly
    v = verdicts("lab-c", lab_c_records(0.12, 0.14))
    (cell,) = v["c1"].cells
    assert cell.comparison.verdict == stats.NOT_INFORMATIVE
    assert "at floor" in cell.comparison.reason
    assert cell_label(cell).startswith("not informative: at floor")
    assert v["c1"].verdict == stats.NOT_INFORMATIVE  # it counts neither for nor against
    # the same difference well above chance is informative, and supports the claim
    v = verdicts("lab-c", lab_c_records(0.60, 0.62))
    assert v["c1"].cells[0].comparison.verdict == "supported" and v["c1"].verdict == "supported"


def test_a_ceiling_cell_is_not_informative():
    v = verdicts("lab-c", lab_c_records(0.993, 0.995))
    reason = v["c1"].cells[0].comparison.reason
    assert "at ceiling" in reason


def test_a_failed_to_train_baseline_is_not_informative():
    """(d1): the plain deep stack is near chance, so any fix would look good."""
    recs = []
    for s in range(5):
        for L, plain, fixed in ((1, 0.80, 0.80), (2, 0.12, 0.79)):  # plain L=2 failed
            recs.append(record("lab-d", {"task": "listops"}, L, s, plain + 0.001 * s,
                               stack="plain"))  # fmt: skip
            recs.append(record("lab-d", {"task": "listops"}, L, s, fixed + 0.002 * s,
                               stack="residual-ln"))  # fmt: skip
    d1 = verdicts("lab-d", recs)["d1"]
    (cell,) = d1.cells
    assert cell.comparison.verdict == stats.NOT_INFORMATIVE
    assert "plain L=2 failed to train" in cell.comparison.reason
    assert d1.verdict == stats.NOT_INFORMATIVE


def test_failed_to_train_by_distance_from_the_unigram_baseline():
    """Bits per character: 4.30 against a unigram model's 4.60 when the best model reaches 1.95
    is 11% of the best model's gain: failed. 2.50 is 79%: trained."""

    def fit(deep):
        return stats.CellFit(
            models=(stats.ModelFit("L=1", 2.0), stats.ModelFit("L=8", deep)),
            higher_is_better=False, chance=4.60, ceiling=None, best=1.95, margin=0.01,
            baseline="unigram model",
        )  # fmt: skip

    assert "L=8 failed to train" in stats.not_informative_reason(fit(4.30))
    assert stats.not_informative_reason(fit(2.50)) == ""
    # a threshold exactly at the declared share is not a failure, just under it is
    gain = 4.60 - 1.95
    edge = 4.60 - stats.FAILED_TO_TRAIN_SHARE * gain
    assert stats.not_informative_reason(fit(edge - 1e-9)) == ""
    assert "failed" in stats.not_informative_reason(fit(edge + 1e-6))


def test_a_best_checkpoint_in_the_first_tenth_means_failed_to_train():
    recs = lab_c_records(0.60, 0.62, steps=2000, best=100)  # best at 5% of training
    reason = verdicts("lab-c", recs)["c1"].cells[0].comparison.reason
    assert "failed to train (best checkpoint at 5%" in reason


def test_an_unconverged_cell_is_not_informative():
    still_climbing = lab_c_records(0.60, 0.62, curve=curve(0.6, linear=True))
    v = verdicts("lab-c", still_climbing)
    reason = v["c1"].cells[0].comparison.reason
    assert "far from convergence" in reason and v["c1"].verdict == stats.NOT_INFORMATIVE
    flattened = lab_c_records(0.60, 0.62, curve=curve(0.6, linear=False))
    assert verdicts("lab-c", flattened)["c1"].verdict == "supported"


def test_last_quarter_share():
    r = record("lab-c", LISTOPS, 1, 0, 0.6, curve=curve(0.6, linear=True))
    # a straight line from step 100 to 1,000: the last 250 of 900 steps' improvement
    assert last_quarter_share(r) == pytest.approx(250 / 900)
    assert last_quarter_share(record("lab-c", LISTOPS, 1, 0, 0.6)) != last_quarter_share(
        record("lab-c", LISTOPS, 1, 0, 0.6)
    )  # no curve: NaN
    flat = [{"step": i, "val": 0.5} for i in range(8)]
    assert last_quarter_share(record("lab-c", LISTOPS, 1, 0, 0.5, curve=flat)) == 0.0


def test_not_informative_cells_leave_the_holm_family():
    """Two cells of (c2): the one at floor is set aside, so the other is tested alone."""
    recs = lab_c_records(0.12, 0.125)  # nesting 3: at floor
    other = {"task": "listops", "nesting": 1, "n_train": 500}
    for s in range(5):
        recs.append(record("lab-c", other, 1, s, 0.70 + 0.002 * s))
        recs.append(record("lab-c", other, 2, s, 0.65 + 0.001 * s))
    c2 = verdicts("lab-c", recs)["c2"]
    judged = [c for c in c2.cells if c.comparison.verdict != stats.NOT_INFORMATIVE]
    assert len(judged) == 1 and judged[0].comparison.power_alpha == 0.05
    assert judged[0].comparison.p_diff_adjusted == judged[0].comparison.p_diff  # a family of one
    assert c2.verdict == "supported"  # width wins in every informative cell


# ----------------------------------------------------------------------------- closes vs narrows


def gap_records(fixed_deep: float):
    """(d1) on ListOps: plain L=2 loses 0.10 to its one layer; the fixed L=2 ``fixed_deep``."""
    recs = []
    for s in range(5):
        noise = 0.001 * s
        for L in (1, 2):
            plain = (0.80 if L == 1 else 0.70) + noise
            fixed = (0.80 if L == 1 else fixed_deep) + noise + 0.0005 * s * (L > 1)
            recs.append(record("lab-d", {"task": "listops"}, L, s, plain, stack="plain"))
            recs.append(record("lab-d", {"task": "listops"}, L, s, fixed, stack="residual-ln"))
    return recs


def test_closes_only_with_an_equivalence():
    closed = verdicts("lab-d", gap_records(0.800))["d1"]
    (cell,) = closed.cells
    assert closed.verdict == "supported" and cell.closes is True
    assert "closes the gap" in cell_label(cell) and "closes the gap" in verdict_words(closed)
    # the fix helps (0.10 -> 0.05) but the fixed stack still loses 0.05 to one layer: narrows
    narrowed = verdicts("lab-d", gap_records(0.750))["d1"]
    (cell,) = narrowed.cells
    assert narrowed.verdict == "supported" and cell.closes is False
    assert "narrows the gap" in cell_label(cell)
    words = verdict_words(narrowed)
    assert "narrows" in words and "closes the gap" not in words


# ----------------------------------------------------------------------------- one rule


@pytest.mark.parametrize(
    ("cells", "equivalence", "expected"),
    [
        (["supported", "inconclusive"], False, "supported"),
        (["supported", "inconclusive", "inconclusive"], False, "inconclusive"),
        (["supported", "contradicted"], False, "inconclusive"),
        (["contradicted", "inconclusive"], False, "contradicted"),
        (["equivalent", "equivalent", "inconclusive"], False, "equivalent"),
        # not-informative cells are set aside: one informative cell decides
        (["supported", stats.NOT_INFORMATIVE, stats.NOT_INFORMATIVE], False, "supported"),
        ([stats.NOT_INFORMATIVE, stats.NOT_INFORMATIVE], False, stats.NOT_INFORMATIVE),
        ([], False, "inconclusive"),
        # an equivalence claim: an equivalent cell backs it, by the same rule
        (["equivalent", "inconclusive"], True, "supported"),
        (["equivalent", "contradicted"], True, "inconclusive"),  # one cell is not enough
        (["contradicted", "inconclusive"], True, "contradicted"),
        (["contradicted", "inconclusive", "inconclusive"], True, "inconclusive"),
    ],
)
def test_one_combining_rule(cells, equivalence, expected):
    assert stats.combine_cells(cells, equivalence=equivalence) == expected


def test_combining_rejects_unknown_labels():
    with pytest.raises(ValueError, match="verdicts must be among"):
        stats.combine_cells(["yes"])


# ----------------------------------------------------------------------------- power


def test_power_is_planned_at_the_holm_level():
    comps = [
        stats.paired_compare(
            [0.5 + 0.01 * s for s in range(5)],
            [0.5 + d + 0.01 * s + 0.004 * (s % 2) for s in range(5)],
            higher_is_better=True,
            claim="depth",
            margin=0.01,
        )  # fmt: skip
        for d in (0.05, 0.02, 0.01)
    ]
    judged = stats.judge_cells(comps)
    order = sorted(range(3), key=lambda i: comps[i].p_diff)
    assert [judged[i].power_alpha for i in order] == pytest.approx([0.05 / 3, 0.05 / 2, 0.05])
    for j in judged:
        assert j.seeds_for_power == stats.seeds_for_power(j.effect, j.sd, alpha=j.power_alpha)
    # a stricter level never needs fewer seeds
    smallest = judged[order[0]]
    assert smallest.seeds_for_power >= stats.seeds_for_power(smallest.effect, smallest.sd)
    assert stats.holm_levels([0.3, math.nan, 0.01], 0.05) == pytest.approx(
        [0.05, math.nan, 0.025], nan_ok=True
    )


# ----------------------------------------------------------------------------- baselines


def test_baselines_are_computed_from_the_task():
    """A majority class for ListOps (the share of the test set's most frequent answer), a
    unigram model for the character LM, from the regenerated task."""
    from rnnlab.core.tasks import make_task

    options = {"min_depth": 1, "max_depth": 1, "max_args": 4, "seq_len": 8}
    rec = record("lab-c", LISTOPS, 1, 3, 0.5)
    rec["experiment"] |= {"task": "listops", "task_options": options, "data_seed": 7,
                          "n_train": 50, "n_val": 10, "n_test": 300}  # fmt: skip
    rec["task_info"]["split_rule"] = "partition"
    data = make_task("listops", n_train=50, n_val=10, n_test=300, seed=10, **options)
    counts = [int((data.y_test == k).sum()) for k in range(data.num_classes)]
    base = baseline_of(rec)
    assert base.chance == pytest.approx(max(counts) / 300) and base.ceiling == 1.0
    assert base.name == "majority class"

    lm = record("lab-b", {"task": "charlm-english"}, 1, 0, 2.0, hib=False)
    lm["experiment"] |= {"task": "charlm-english", "task_options": {"seq_len": 16},
                         "data_seed": 1, "n_train": 200, "n_val": 20, "n_test": 20}  # fmt: skip
    base = baseline_of(lm)
    vocab = make_task("charlm-english", n_train=200, n_val=20, n_test=20, seed=1, seq_len=16)
    assert 2.0 < base.chance < math.log2(vocab.num_classes) + 0.5
    assert base.ceiling is None and base.name == "unigram model"
    # a record that cannot rebuild its task falls back to one over the number of classes
    assert baseline_of(record("lab-c", LISTOPS, 1, 0, 0.5, classes=4)).chance == 0.25


def test_operator_lines_read_the_replayed_runs(tmp_path):
    from rnnlab.course.findings import operator_lines

    assert operator_lines(tmp_path) == []  # no replay file: nothing to say
    rows = [
        {"nesting": 1, "n_train": 500, "layers": L, "seed": s, "recorded_test": 0.6,
         "replayed_test": 0.6 + 0.0001 * s, "by_operator": {"MAX": 0.9, "MIN": 0.8, "SM": 0.1},
         "majority_by_operator": {"MAX": 0.4, "MIN": 0.4, "SM": 0.1}}
        for L in (1, 2) for s in range(2)
    ]  # fmt: skip
    data = {"command": "python scripts/listops_by_operator.py --cells 1:500", "rows": rows}
    (tmp_path / "lab-c-cpu-by-operator.json").write_text(__import__("json").dumps(data))
    lines = operator_lines(tmp_path)
    assert "4 reporting runs replayed" in lines[1] and "all within 0.0001" in lines[1]
    assert "2 of them reproduce the recorded test accuracy exactly" in lines[1]
    assert (
        lines[-2] == "- nesting 1, n_train 500, L=1, 2 seeds: MAX 0.900 (0.400), MIN 0.800 "
        "(0.400), SM 0.100 (0.100)"
    )
