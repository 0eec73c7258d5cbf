"""Tests for rnnlab.core.tasks: determinism, shapes, labels checked by independent references."""

from __future__ import annotations

import ast
import hashlib
import re
import sysconfig
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnlab.core.tasks import (
    PYTHON_CORPUS_FILES,
    TaskData,
    charlm_window_starts,
    describe,
    dyck_targets,
    listops_eval,
    listops_max_len,
    make_task,
    task_doc,
    task_names,
    task_options,
)

SMALL = {"n_train": 64, "n_val": 16, "n_test": 32}
ALL_TASKS = [
    "majority",
    "digits",
    "dyck",
    "listops",
    "charlm-english",
    "charlm-python",
]


def small(name: str, seed: int = 0, **options) -> TaskData:
    return make_task(name, seed=seed, **SMALL, **options)


def splits(task: TaskData) -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    return [
        ("train", task.x_train, task.y_train),
        ("val", task.x_val, task.y_val),
        ("test", task.x_test, task.y_test),
    ]


# ------------------------------------------------------------------------------------------
# Independent references (deliberately not sharing code with rnnlab.core.tasks)
# ------------------------------------------------------------------------------------------


def ref_dyck(tokens: list[int], k: int) -> tuple[bool, int, list[int]]:
    """Regex-reduction Dyck checker: (balanced, max depth, targets of every prefix).

    Brackets become letters: open type c -> chr(ord('a') + c), close -> upper case. Matched pairs
    "aA", "bB", ... are removed until nothing changes; a valid prefix reduces to opens only.
    """
    letters = "".join(chr(97 + t) if t < k else chr(65 + t - k) for t in tokens)
    pair = re.compile("|".join(chr(97 + c) + chr(65 + c) for c in range(k)))

    def reduce(s: str) -> str:
        while True:
            shorter = pair.sub("", s)
            if shorter == s:
                return s
            s = shorter

    targets = []
    for t in range(1, len(letters) + 1):
        rest = reduce(letters[:t])
        assert rest == rest.lower(), f"prefix {letters[:t]!r} is not a valid Dyck prefix"
        targets.append(ord(rest[-1]) - 97 if rest else k)
    depth = np.cumsum([1 if t < k else -1 for t in tokens])
    return reduce(letters) == "", int(depth.max()), targets


_OP_NAMES = {10: "MAX", 11: "MIN", 12: "SM"}


def ref_listops(tokens: list[int]) -> tuple[int, int]:
    """(value, nesting depth) via Python's own parser: tokens -> a tuple literal -> fold."""
    parts = []
    for t in tokens:
        if t == 15:
            continue
        if t <= 9:
            parts.append(f"{t},")
        elif t in _OP_NAMES:
            parts.append(f"'{_OP_NAMES[t]}',")
        elif t == 13:
            parts.append("(")
        elif t == 14:
            parts.append("),")
        else:
            raise AssertionError(f"unexpected token {t}")
    (tree,) = ast.literal_eval("(" + "".join(parts) + ")")

    def fold(node) -> tuple[int, int]:
        if isinstance(node, int):
            return node, 0
        op, *args = node
        results = [fold(a) for a in args]
        values = [v for v, _ in results]
        value = {"MAX": max(values), "MIN": min(values), "SM": sum(values) % 10}[op]
        return value, 1 + max(d for _, d in results)

    return fold(tree)


# ------------------------------------------------------------------------------------------
# Every task
# ------------------------------------------------------------------------------------------


def test_task_names() -> None:
    assert task_names() == ALL_TASKS + [
        "charlm-stdlib",
        "charlm-stdlib-files",
        "charlm-stdlib-tree",
        "charlm-text",
        "memorize",
    ]


def test_task_options_and_docs() -> None:
    assert task_options("majority") == {"seq_len": 48, "num_tokens": 10, "split_rule": "partition"}
    assert task_options("digits") == {}
    assert task_options("dyck")["num_pairs"] == 2 and task_options("dyck")["max_depth"] == 8
    assert task_options("listops")["max_args"] == 4
    assert task_options("charlm-python") == {"seq_len": 64, "min_count": 20}
    for name in ALL_TASKS:
        task = small(name)
        doc = task_doc(name)
        assert f"``{task.metric}``" in doc and f"``{task.kind}``" in doc
        assert "Options" in doc or name == "digits"
    with pytest.raises(ValueError, match="name must be one of"):
        task_options("nope")


@pytest.mark.parametrize("name", ALL_TASKS)
def test_shapes_dtypes_and_metadata(name: str) -> None:
    task = small(name)
    assert task.name == name
    assert task.n_train == SMALL["n_train"]
    assert len(task.x_val) == SMALL["n_val"] and len(task.x_test) == SMALL["n_test"]
    for _, x, y in splits(task):
        assert x.device.type == "cpu" and y.device.type == "cpu"
        assert y.dtype == torch.int64
        assert x.shape[1] == task.seq_len
        if task.vocab_size is None:
            assert x.dtype == torch.float32 and x.shape[2] == task.input_features
            assert task.input_size == task.input_features
        else:
            assert x.dtype == torch.int64 and x.ndim == 2 and task.input_features is None
            assert 0 <= int(x.min()) and int(x.max()) < task.vocab_size
            assert task.input_size == task.vocab_size
        if task.kind == "classify":
            assert y.shape == (len(x),)
        else:
            assert y.shape == x.shape[:2]
        scored = y[y != -100]
        assert 0 <= int(scored.min()) and int(scored.max()) < task.num_classes
    expected_metric = {"classify": "accuracy", "tag": "sequence_accuracy", "lm": "bits_per_char"}
    assert task.metric == expected_metric[task.kind]
    if task.test_groups is not None:
        assert task.test_groups.shape == (SMALL["n_test"],)
        assert task.test_groups.dtype == torch.int64 and task.group_name
    text = describe(task)
    assert name in text and task.metric.replace("_", " ") in text.replace("_", " ")


@pytest.mark.parametrize("name", ALL_TASKS)
def test_same_seed_same_tensors_different_seed_different(name: str) -> None:
    a, b, c = small(name, seed=3), small(name, seed=3), small(name, seed=4)
    for (_, xa, ya), (_, xb, yb), (_, xc, _) in zip(splits(a), splits(b), splits(c), strict=True):
        assert torch.equal(xa, xb) and torch.equal(ya, yb)
        assert not torch.equal(xa, xc)


def test_does_not_touch_global_rng() -> None:
    torch.manual_seed(123)
    np.random.seed(123)
    expected_torch, expected_np = torch.rand(3), np.random.rand(3)
    torch.manual_seed(123)
    np.random.seed(123)
    for name in ALL_TASKS:
        small(name)
    assert torch.equal(torch.rand(3), expected_torch)
    assert np.array_equal(np.random.rand(3), expected_np)


@pytest.mark.parametrize("name", ALL_TASKS)
def test_training_sets_nested_and_eval_sets_independent_of_n_train(name: str) -> None:
    """n_train is the data-size knob: more data extends the training set, eval data stay put."""
    few = make_task(name, n_train=20, n_val=16, n_test=32, seed=1)
    many = make_task(name, n_train=200, n_val=16, n_test=32, seed=1)
    assert few.n_train == 20 and many.n_train == 200
    assert torch.equal(few.x_train, many.x_train[:20])
    assert torch.equal(few.y_train, many.y_train[:20])
    assert torch.equal(few.x_val, many.x_val) and torch.equal(few.x_test, many.x_test)
    assert torch.equal(few.y_test, many.y_test)


@pytest.mark.parametrize("name", ["majority", "dyck", "listops"])
def test_generated_eval_rows_never_in_training(name: str) -> None:
    task = make_task(name, n_train=3000, n_val=300, n_test=300, seed=0)
    train = {tuple(r) for r in task.x_train.tolist()}
    val = {tuple(r) for r in task.x_val.tolist()}
    assert not any(tuple(r) in train or tuple(r) in val for r in task.x_test.tolist())
    assert not any(tuple(r) in train for r in task.x_val.tolist())


# ------------------------------------------------------------------------------------------
# majority and digits
# ------------------------------------------------------------------------------------------


def test_majority_labels_are_the_unique_most_frequent_token() -> None:
    task = make_task("majority", n_train=300, n_val=10, n_test=10, seed=0, seq_len=12, num_tokens=5)
    assert task.x_train.shape == (300, 12) and task.vocab_size == task.num_classes == 5
    for row, label in zip(task.x_train.tolist(), task.y_train.tolist(), strict=True):
        counts = Counter(row).most_common()
        assert counts[0][0] == label
        assert len(counts) == 1 or counts[1][1] < counts[0][1], "tied maximum kept"


def test_majority_defaults_match_the_pilot() -> None:
    task = small("majority")
    assert task.seq_len == 48 and task.vocab_size == 10 and task.num_classes == 10


def test_digits_splits_are_disjoint_and_match_sklearn() -> None:
    from sklearn.datasets import load_digits

    task = make_task("digits", n_train=1297, n_val=250, n_test=250, seed=0)
    assert (task.n_train, len(task.x_val), len(task.x_test)) == (1297, 250, 250)
    assert task.x_train.shape == (1297, 8, 8) and task.input_features == 8
    index = task.info["indices"]
    together = index["train"] + index["val"] + index["test"]
    assert sorted(together) == list(range(1797))
    digits = load_digits()
    for split, x, y in splits(task):
        i = index[split]
        assert np.allclose(x.numpy(), digits.images[i] / 16.0)
        assert np.array_equal(y.numpy(), digits.target[i])
    assert 0.0 <= float(task.x_train.min()) and float(task.x_train.max()) <= 1.0
    assert float(task.x_train.max()) == 1.0


def test_digits_rejects_more_than_1797_images() -> None:
    with pytest.raises(ValueError, match="1797"):
        make_task("digits", n_train=1500, n_val=200, n_test=200, seed=0)


# ------------------------------------------------------------------------------------------
# Dyck
# ------------------------------------------------------------------------------------------


def test_dyck_targets_helper_matches_reference_on_an_example() -> None:
    # "( [ ] ( ) )" with k = 2: tops are ( [ ( ( ( then empty
    tokens = [0, 1, 3, 0, 2, 2]
    assert dyck_targets(tokens, 2) == [0, 1, 0, 0, 0, 2]
    assert dyck_targets(tokens, 2) == ref_dyck(tokens, 2)[2]
    with pytest.raises(ValueError, match="not open"):
        dyck_targets([0, 3], 2)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    num_pairs=st.integers(1, 3),
    max_depth=st.integers(2, 6),
    sampling=st.sampled_from(["natural", "uniform"]),
)
def test_dyck_strings_balanced_bounded_and_targets_match_reference(
    seed: int, num_pairs: int, max_depth: int, sampling: str
) -> None:
    task = make_task(
        "dyck",
        n_train=10,
        n_val=5,
        n_test=10,
        seed=seed,
        num_pairs=num_pairs,
        seq_len=24,
        max_depth=max_depth,
        min_len=16,
        depth_sampling=sampling,
    )
    k, pad = num_pairs, 2 * num_pairs
    assert task.vocab_size == 2 * k + 1 and task.num_classes == k + 1
    for split, x, y in splits(task):
        for n, (row, target) in enumerate(zip(x.tolist(), y.tolist(), strict=True)):
            length = sum(t != pad for t in row)
            assert length % 2 == 0 and 16 <= length <= 24
            assert all(t == pad for t in row[length:]), "padding must be on the right"
            balanced, depth, ref_targets = ref_dyck(row[:length], k)
            assert balanced and 1 <= depth <= max_depth
            assert target[:length] == ref_targets
            assert target[length:] == [-100] * (24 - length)
            if split == "test":
                assert int(task.test_groups[n]) == depth


def test_dyck_defaults_and_depth_ranges() -> None:
    task = small("dyck")
    assert task.seq_len == 64 and task.vocab_size == 5 and task.num_classes == 3
    assert bool((task.x_train != 4).all()), "default strings fill all 64 positions"
    assert task.group_name == "nesting depth"
    assert 1 <= int(task.test_groups.min()) and int(task.test_groups.max()) <= 8
    shallow_deep = make_task(
        "dyck",
        n_train=200,
        n_val=20,
        n_test=200,
        seed=0,
        depth_range=(1, 4),
        test_depth_range=(5, 8),
        depth_sampling="uniform",
    )
    train_depths = [ref_dyck(r, 2)[1] for r in shallow_deep.x_train.tolist()]
    assert set(train_depths) == {1, 2, 3, 4}
    assert set(shallow_deep.test_groups.tolist()) == {5, 6, 7, 8}
    counts = Counter(shallow_deep.test_groups.tolist())
    assert min(counts.values()) > 25, f"uniform depth sampling should balance depths: {counts}"


# ------------------------------------------------------------------------------------------
# ListOps
# ------------------------------------------------------------------------------------------


def test_listops_eval_example_and_errors() -> None:
    tokens = [13, 10, 2, 13, 12, 7, 5, 14, 3, 14]  # [MAX 2 [SM 7 5] 3] = 3
    assert listops_eval(tokens) == ref_listops(tokens)[0] == 3
    assert listops_eval([15, 15, 13, 11, 4, 8, 14]) == 4
    for bad in ([13, 10, 14], [13, 10, 1, 2], [1, 2], [14]):
        with pytest.raises(ValueError):
            listops_eval(bad)


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    depths=st.tuples(st.integers(1, 4), st.integers(1, 4)).map(sorted),
    max_args=st.integers(2, 5),
)
def test_listops_labels_match_independent_evaluator(seed: int, depths, max_args: int) -> None:
    lo, hi = depths
    task = make_task(
        "listops",
        n_train=20,
        n_val=3,
        n_test=10,  # at nesting 1 with 2 arguments the test share holds only about 30
        seed=seed,
        min_depth=lo,
        max_depth=hi,
        max_args=max_args,
    )
    assert task.seq_len == listops_max_len(hi, max_args)
    for split, x, y in splits(task):
        for n, (row, label) in enumerate(zip(x.tolist(), y.tolist(), strict=True)):
            value, depth = ref_listops(row)
            assert value == label == listops_eval(row)
            assert lo <= depth <= hi
            first = next(i for i, t in enumerate(row) if t != 15)
            assert all(t != 15 for t in row[first:]), "padding must be on the left"
            if split == "test":
                assert int(task.test_groups[n]) == depth


def test_listops_defaults_balance_depths() -> None:
    task = make_task("listops", n_train=10, n_val=10, n_test=900, seed=0)
    assert task.seq_len == listops_max_len(3, 4) == 127
    assert task.vocab_size == 16 and task.num_classes == 10
    counts = Counter(task.test_groups.tolist())
    # uniform depths, thinned where the small nesting-1 space repeats itself (drawn once each)
    assert set(counts) == {1, 2, 3} and min(counts.values()) > 200
    assert task.info["tokens"][10:15] == ["MAX", "MIN", "SM", "[", "]"]


def test_listops_short_seq_len_rejects_long_expressions() -> None:
    task = make_task("listops", n_train=50, n_val=0, n_test=50, seed=0, seq_len=20)
    assert task.seq_len == 20
    assert all(
        ref_listops(r)[0] == y
        for r, y in zip(task.x_train.tolist(), task.y_train.tolist(), strict=True)
    )


# ------------------------------------------------------------------------------------------
# Character language models
# ------------------------------------------------------------------------------------------


def english_text() -> str:
    from pydoc_data.topics import topics

    return "".join(topics[key] for key in sorted(topics))


@pytest.mark.parametrize("name", ["charlm-english", "charlm-python"])
def test_charlm_windows_are_shifted_slices_of_their_own_part(name: str) -> None:
    task = make_task(name, n_train=300, n_val=40, n_test=40, seed=5, seq_len=32)
    info = task.info
    assert task.kind == "lm" and task.metric == "bits_per_char"
    assert task.vocab_size == task.num_classes == len(info["vocab"])
    assert info["vocab"][-1] == "<rare>" and info["rare_id"] == len(info["vocab"]) - 1
    if name == "charlm-english":
        text = english_text()
    else:
        stdlib = Path(sysconfig.get_paths()["stdlib"])
        text = "".join((stdlib / f).read_text(encoding="utf-8") for f in PYTHON_CORPUS_FILES)
    n_chars = len(text)
    assert info["num_chars"] == n_chars
    char_id = {c: i for i, c in enumerate(info["vocab"][:-1])}
    counts = Counter(text)
    assert all(counts[c] >= 20 for c in char_id)
    assert all(counts[c] < 20 for c in info["rare_chars"])
    starts = charlm_window_starts(
        name, n_chars, n_train=300, n_val=40, n_test=40, seed=5, seq_len=32
    )
    bounds = {"train": (0, int(0.9 * n_chars)), "val": (int(0.9 * n_chars), int(0.95 * n_chars))}
    bounds["test"] = (int(0.95 * n_chars), n_chars)
    assert info["split_bounds"] == {s: list(b) for s, b in bounds.items()}
    used: dict[str, set[int]] = {}
    for split, x, y in splits(task):
        assert torch.equal(x[:, 1:], y[:, :-1]), "y must be x shifted by one"
        lo, hi = bounds[split]
        used[split] = set()
        for row_x, row_y, start in zip(x.tolist(), y.tolist(), starts[split], strict=True):
            assert lo <= start and start + 33 <= hi
            chunk = [char_id.get(c, info["rare_id"]) for c in text[start : start + 33]]
            assert row_x == chunk[:-1] and row_y == chunk[1:]
            targets = set(range(start + 1, start + 33))
            assert not targets & used[split], "windows of a split share a target position"
            used[split] |= targets
    assert not used["train"] & used["val"] and not used["val"] & used["test"]
    assert not used["train"] & used["test"]


def test_charlm_python_records_files_and_hashes() -> None:
    task = small("charlm-python")
    files = task.info["files"]
    assert list(files) == list(PYTHON_CORPUS_FILES) and 15 <= len(files) <= 30
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for filename, digest in files.items():
        assert hashlib.sha256((stdlib / filename).read_bytes()).hexdigest() == digest
    removed = {"asynchat.py", "asyncore.py", "imp.py", "smtpd.py", "cgi.py", "pipes.py"}
    assert not removed & set(files)
    assert task.info["python_version"]


def test_charlm_n_train_too_large_names_the_maximum() -> None:
    n_chars = make_task("charlm-english", n_train=1, n_val=1, n_test=1, seed=0).info["num_chars"]
    maximum = (int(0.9 * n_chars) - 1) // 64
    make_task("charlm-english", n_train=maximum, n_val=1, n_test=1, seed=0)
    with pytest.raises(ValueError, match=f"n_train must be <= {maximum}"):
        make_task("charlm-english", n_train=maximum + 1, n_val=1, n_test=1, seed=0)


def test_charlm_min_count_changes_vocabulary() -> None:
    rare = make_task("charlm-english", n_train=5, n_val=1, n_test=1, seed=0, min_count=1)
    common = make_task("charlm-english", n_train=5, n_val=1, n_test=1, seed=0, min_count=1000)
    assert rare.vocab_size > common.vocab_size
    assert rare.info["rare_chars"] == ""


# ------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------

BAD = [
    ("nope", {}, "name must be one of"),
    ("majority", {"depth": 3}, "unknown option 'depth'"),
    ("digits", {"seq_len": 8}, "unknown option 'seq_len'"),
    ("majority", {"seq_len": 0}, "seq_len must be an integer >= 1, got 0"),
    ("majority", {"num_tokens": 1}, r"num_tokens must be an integer in \[2, 1000\], got 1"),
    ("majority", {"num_tokens": True}, "num_tokens"),
    ("dyck", {"num_pairs": 0}, "num_pairs"),
    ("dyck", {"seq_len": 1}, "seq_len"),
    ("dyck", {"max_depth": 33}, r"max_depth must be an integer in \[1, 32\], got 33"),
    ("dyck", {"min_len": 7}, "min_len must be an even integer"),
    ("dyck", {"min_len": 80}, "min_len"),
    ("dyck", {"depth_range": (3, 2)}, "depth_range must be a pair"),
    ("dyck", {"depth_range": (1, 9)}, r"depth_range .* <= 8, got \(1, 9\)"),
    ("dyck", {"test_depth_range": 4}, "test_depth_range"),
    ("dyck", {"depth_sampling": "skewed"}, "depth_sampling must be 'natural' or 'uniform'"),
    ("listops", {"max_depth": 0}, "max_depth"),
    ("listops", {"max_depth": 11}, "max_depth"),
    ("listops", {"min_depth": 4}, r"min_depth must be an integer in \[1, 3\], got 4"),
    ("listops", {"max_args": 1}, "max_args"),
    ("listops", {"seq_len": 12}, r"seq_len must be an integer >= 13, got 12"),
    ("listops", {"test_depth_range": (0, 2)}, "test_depth_range"),
    ("charlm-english", {"seq_len": 0}, "seq_len"),
    ("charlm-python", {"min_count": 0}, "min_count"),
]


def test_dyck_unreachable_uniform_depth_raises() -> None:
    with pytest.raises(ValueError, match="reach depth 30 too rarely"):
        make_task(
            "dyck", **SMALL, seed=0, max_depth=32, depth_range=(30, 32), depth_sampling="uniform"
        )


def test_options_with_too_few_distinct_sequences_raise() -> None:
    # Dyck-1 of depth 1 and length 8 is only "()()()()": it cannot fill disjoint splits.
    with pytest.raises(ValueError, match="too few distinct"):
        make_task("dyck", **SMALL, seed=0, num_pairs=1, seq_len=8, max_depth=1)


@pytest.mark.parametrize(("name", "options", "message"), BAD)
def test_bad_options_raise_value_error_naming_them(name: str, options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_task(name, **SMALL, seed=0, **options)


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ({"n_train": 0, "n_val": 1, "n_test": 1, "seed": 0}, "n_train must be an integer >= 1"),
        ({"n_train": 1, "n_val": -1, "n_test": 1, "seed": 0}, "n_val"),
        ({"n_train": 1, "n_val": 1, "n_test": 2.5, "seed": 0}, "n_test"),
        ({"n_train": 1, "n_val": 1, "n_test": 1, "seed": -1}, "seed must be an integer"),
    ],
)
@pytest.mark.parametrize("name", ["majority", "digits", "dyck", "listops", "charlm-python"])
def test_bad_sizes_and_seed(name: str, sizes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_task(name, **sizes)
