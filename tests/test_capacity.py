"""The capacity probe: the ``memorize`` task and the bits-stored formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnlab.core.tasks import make_task, task_doc, task_names, task_options
from rnnlab.core.tasks.capacity import (
    binary_entropy,
    bits_per_parameter,
    empirical_information_bits,
    memorized_bits,
    symmetric_information_bits,
)


def memorize(**kwargs):
    sizes = {"n_train": 300, "n_val": 50, "n_test": 300, "seed": 0}
    return make_task("memorize", **{**sizes, **kwargs})


# ---------------------------------------------------------------------------- the task


def test_registered_with_options_and_doc():
    assert "memorize" in task_names()
    assert task_options("memorize") == {"seq_len": 16, "num_tokens": 8, "num_classes": 2}
    doc = task_doc("memorize")
    assert "``classify``" in doc and "``accuracy``" in doc and "Options" in doc


def test_shapes_dtypes_and_ranges():
    task = memorize(seq_len=12, num_tokens=5, num_classes=7)
    assert task.kind == "classify" and task.metric == "accuracy" and task.name == "memorize"
    assert task.x_train.shape == (300, 12) and task.x_train.dtype == torch.int64
    assert task.y_train.shape == (300,) and task.y_train.dtype == torch.int64
    assert task.vocab_size == 5 and task.num_classes == 7 and task.input_features is None
    assert 0 <= int(task.x_train.min()) and int(task.x_train.max()) < 5
    assert set(task.y_train.tolist()) == set(range(7))  # 300 draws hit every class
    assert len({tuple(r) for r in task.x_train.tolist()}) == 300  # every input distinct
    assert task.info["label_bits"] == pytest.approx(300 * math.log2(7))


def test_val_and_test_are_prefixes_of_the_training_set():
    task = memorize(n_val=50, n_test=300)
    assert torch.equal(task.x_val, task.x_train[:50]) and torch.equal(task.y_val, task.y_train[:50])
    assert torch.equal(task.x_test, task.x_train) and torch.equal(task.y_test, task.y_train)
    assert task.info["eval_is_train_prefix"] is True


def test_deterministic_private_rng_and_nested():
    torch.manual_seed(1)
    np.random.seed(1)
    expected = torch.rand(2), np.random.rand(2)
    torch.manual_seed(1)
    np.random.seed(1)
    a, b, c = memorize(seed=3), memorize(seed=3), memorize(seed=4)
    assert torch.equal(torch.rand(2), expected[0]) and np.array_equal(
        np.random.rand(2), expected[1]
    )
    assert torch.equal(a.x_train, b.x_train) and torch.equal(a.y_train, b.y_train)
    assert not torch.equal(a.x_train, c.x_train)
    big = memorize(seed=3, n_train=2500, n_test=10)  # crosses a generator batch boundary
    assert torch.equal(big.x_train[:300], a.x_train) and torch.equal(big.y_train[:300], a.y_train)


def test_duplicates_are_redrawn_when_sequences_are_few():
    # 3 ** 5 = 243 possible sequences, 120 of them asked for: many draws repeat, none is kept
    task = make_task("memorize", n_train=120, n_val=0, n_test=0, seed=0, seq_len=5, num_tokens=3)
    assert len({tuple(r) for r in task.x_train.tolist()}) == 120


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n_test=301), r"n_test must be an integer in \[0, n_train=300\].*got 301"),
        (dict(n_val=400), r"n_val must be an integer in \[0, n_train=300\]"),
        (dict(seq_len=2, num_tokens=4), r"n_train must be at most .* = 8 .*got 300"),
        (dict(num_classes=1), r"num_classes must be an integer in \[2, 1000\], got 1"),
        (dict(num_tokens=1), r"num_tokens must be an integer in \[2, 1000\], got 1"),
        (dict(seq_len=0), r"seq_len must be an integer >= 1, got 0"),
    ],
)
def test_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        memorize(**kwargs)


# ---------------------------------------------------------------------------- bits stored


def test_binary_entropy_hand_values():
    assert binary_entropy(0.0) == binary_entropy(1.0) == 0.0
    assert binary_entropy(0.5) == 1.0
    # H(0.11) = 0.11 * 3.184425 + 0.89 * 0.168123 = 0.499916 bits
    assert binary_entropy(0.11) == pytest.approx(0.499916, abs=1e-6)


@pytest.mark.parametrize("c", [2, 3, 4, 10, 256])
def test_perfect_memorisation_stores_n_log2_c_and_chance_stores_nothing(c):
    assert memorized_bits(1.0, 1000, c) == pytest.approx(1000 * math.log2(c))
    assert memorized_bits(1.0 / c, 1000, c) == pytest.approx(0.0, abs=1e-9)


def test_bits_hand_computed_cases():
    # C = 2: 1 - H(eps). eps = 0.11 gives 1 - 0.499916 = 0.500084 bits per example
    assert memorized_bits(0.89, 1000, 2) == pytest.approx(500.084, abs=1e-3)
    # C = 4, accuracy 1/2: 2 - H(1/2) - (1/2) log2 3 = 1 - 0.792481 = 0.207519 bits per example
    assert symmetric_information_bits(0.5, 4) == pytest.approx(0.207519, abs=1e-6)
    # C = 2, always wrong: the predictions are the labels flipped, 1 bit each
    assert symmetric_information_bits(0.0, 2) == pytest.approx(1.0)
    # 1000 binary labels memorised perfectly by 200 parameters: 5 bits per parameter
    assert bits_per_parameter(1.0, 1000, 2, 200) == pytest.approx(5.0)
    assert memorized_bits(0.7, 0, 3) == 0.0


@settings(max_examples=50, deadline=None)
@given(c=st.integers(2, 50), acc=st.floats(0.0, 1.0))
def test_bits_between_zero_and_log2_c_and_rising_above_chance(c, acc):
    bits = symmetric_information_bits(acc, c)
    assert 0.0 <= bits <= math.log2(c) + 1e-12
    if acc >= 1.0 / c:
        higher = min(1.0, acc + 0.01)
        assert symmetric_information_bits(higher, c) >= bits - 1e-12


def test_empirical_information_matches_symmetric_formula_on_a_symmetric_confusion():
    # C = 3, six examples per class: four right, one of each wrong class
    y_true, y_pred = [], []
    for a in range(3):
        y_true += [a] * 6
        y_pred += [a] * 4 + [b for b in range(3) if b != a]
    got = empirical_information_bits(y_true, y_pred, 3)
    assert got == pytest.approx(memorized_bits(4 / 6, 18, 3), abs=1e-9)
    perfect = torch.arange(4).repeat(25)
    assert empirical_information_bits(perfect, perfect, 4) == pytest.approx(200.0)
    assert empirical_information_bits([0, 0, 1, 1], [0, 1, 0, 1], 2) == pytest.approx(0.0)


def test_random_guessing_stores_about_nothing():
    rng = np.random.default_rng(0)
    n, c = 20_000, 4
    y, guess = rng.integers(0, c, n), rng.integers(0, c, n)
    accuracy = float(np.mean(y == guess))
    assert memorized_bits(accuracy, n, c) / n < 1e-3
    bias = (c - 1) ** 2 / (2 * n * math.log(2))  # the plug-in estimate's expected excess
    assert empirical_information_bits(y, guess, c) / n < 5 * bias


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: memorized_bits(1.2, 10, 2), r"accuracy must be a number in \[0, 1\], got 1.2"),
        (lambda: memorized_bits(True, 10, 2), r"accuracy must be a number .*got True"),
        (lambda: memorized_bits(0.5, -1, 2), r"n must be an integer >= 0, got -1"),
        (lambda: memorized_bits(0.5, 10, 1), r"num_classes must be an integer >= 2, got 1"),
        (lambda: bits_per_parameter(0.5, 10, 2, 0), r"param_count must be an integer >= 1"),
        (lambda: binary_entropy(-0.1), r"p must be a number in \[0, 1\]"),
        (lambda: empirical_information_bits([0, 1], [0], 2), r"y_pred must have the shape"),
        (lambda: empirical_information_bits([0, 2], [0, 1], 2), r"y_true must hold class ids"),
    ],
)
def test_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()
