"""Version 2 splits: a partition of the example space, so train, val and test share a
distribution. The statistical check must fail on version 1's first-come rule."""

import numpy as np
import pytest

from rnnlab.core.tasks import make_task
from rnnlab.core.tasks.base import SPLIT_FRACTIONS, split_of_rows
from rnnlab.core.tasks.checks import split_features, split_homogeneity

V1_NESTING_1 = dict(min_depth=1, max_depth=1, max_args=3)
V2_LISTOPS = dict(max_args=4, arg_count="by_expressions")


def _rows(data, split):
    return {row.tobytes() for row in getattr(data, f"x_{split}").numpy()}


def test_v1_listops_split_fails_the_distribution_test():
    v1 = make_task(
        "listops",
        n_train=4000,
        n_val=500,
        n_test=1000,
        seed=1234,
        split_rule="first_come",
        **V1_NESTING_1,
    )
    h = split_homogeneity(v1)
    assert h["args"].p_value < 1e-6  # two-argument expressions: ~7% of train, ~50% of test
    assert h["args"].shares["train"].get(2, 0.0) < 0.1 < 0.4 < h["args"].shares["test"][2]


@pytest.mark.parametrize("nesting", [1, 2, 3])
def test_v2_listops_splits_share_a_distribution(nesting):
    opts = dict(min_depth=nesting, max_depth=nesting, **V2_LISTOPS)
    if nesting == 3:
        opts["seq_len"] = 64
    data = make_task("listops", n_train=4000, n_val=500, n_test=1000, seed=7, **opts)
    for name, h in split_homogeneity(data).items():
        assert h.p_value > 1e-3, (name, h.p_value, h.shares)


def test_v2_dyck_splits_share_a_distribution():
    data = make_task(
        "dyck",
        n_train=3000,
        n_val=500,
        n_test=1000,
        seed=3,
        seq_len=48,
        max_depth=10,
        depth_sampling="uniform",
    )
    for name, h in split_homogeneity(data).items():
        assert h.p_value > 1e-3, (name, h.p_value)


def test_the_check_has_power_against_a_real_difference():
    # a deeper test distribution on purpose: the depth feature must be flagged
    data = make_task(
        "listops",
        n_train=2000,
        n_val=300,
        n_test=600,
        seed=1,
        min_depth=1,
        max_depth=2,
        test_depth_range=(2, 2),
        **V2_LISTOPS,
    )
    assert split_homogeneity(data)["depth"].p_value < 1e-6
    assert split_homogeneity(data, ("train", "val"))["depth"].p_value > 1e-3


@pytest.mark.parametrize(
    "task,opts",
    [
        ("listops", dict(min_depth=1, max_depth=1, **V2_LISTOPS)),
        ("dyck", dict(seq_len=16, max_depth=4)),
        ("majority", dict(seq_len=8)),
    ],
)
def test_splits_are_disjoint_distinct_nested_and_in_their_share(task, opts):
    big = make_task(task, n_train=2000, n_val=300, n_test=300, seed=5, **opts)
    small = make_task(task, n_train=500, n_val=300, n_test=300, seed=5, **opts)
    for split in ("train", "val", "test"):
        x = getattr(big, f"x_{split}").numpy()
        assert len(_rows(big, split)) == len(x)  # n distinct examples
        code = {"train": 0, "val": 1, "test": 2}[split]
        assert (split_of_rows(x, 5, task) == code).all()
    assert not (_rows(big, "train") & _rows(big, "test"))
    assert not (_rows(big, "train") & _rows(big, "val"))
    assert not (_rows(big, "val") & _rows(big, "test"))
    assert np.array_equal(big.x_train[:500].numpy(), small.x_train.numpy())  # nested
    assert np.array_equal(big.x_test.numpy(), small.x_test.numpy())  # n_train never moves test


def test_partition_shares_match_the_declared_fractions():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 1000, size=(20_000, 4))
    codes = split_of_rows(x, 11, "any")
    for split, code in (("train", 0), ("val", 1), ("test", 2)):
        assert (codes == code).mean() == pytest.approx(SPLIT_FRACTIONS[split], abs=0.01)
    assert not np.array_equal(codes, split_of_rows(x, 12, "any"))  # the data seed moves it


def test_too_small_a_space_is_a_clear_error():
    with pytest.raises(ValueError, match="n_train=8000 distinct examples"):
        make_task("listops", n_train=8000, n_val=10, n_test=10, seed=0, **V1_NESTING_1)


def test_features_are_read_from_tokens():
    data = make_task("listops", n_train=50, n_val=10, n_test=10, seed=0, min_depth=2, max_depth=2)
    f = split_features(data)["test"]
    assert (f["depth"] == data.test_groups.numpy()).all()
    assert (f["args"] >= 2).all() and (f["args"] <= 4).all()
