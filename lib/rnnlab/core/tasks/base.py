"""The shared pieces of every task: :class:`TaskData`, argument checks, private RNGs, splits."""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import torch

TaskKind = Literal["classify", "tag", "lm"]

IGNORE_INDEX = -100
"""Target value of unscored positions (the default ``ignore_index`` of ``nn.CrossEntropyLoss``)."""

SPLITS = ("train", "val", "test")


@dataclass(frozen=True)
class TaskData:
    """One task's three splits and what a model needs to know about them.

    Attributes:
        name: task name, one of :func:`task_names`.
        kind: ``"classify"`` (``y`` is ``(N,)`` class ids), ``"tag"`` (``y`` is ``(N, T)`` with
            ``-100`` at unscored positions) or ``"lm"`` (``y`` is ``(N, T)``, ``x`` shifted by one).
        x_train, y_train, x_val, y_val, x_test, y_test: CPU tensors. ``x`` is ``(N, T)`` int64
            token ids, or ``(N, T, F)`` float32 features when :attr:`vocab_size` is ``None``.
        vocab_size: number of input token ids, or ``None`` for float features.
        input_features: ``F`` for float features, else ``None``.
        num_classes: number of output classes (for ``lm``: the vocabulary size).
        metric: ``"accuracy"``, ``"sequence_accuracy"`` (a sequence counts only if every scored
            position is right) or ``"bits_per_char"`` (mean cross-entropy in bits; lower is
            better).
        test_groups: ``(N_test,)`` int64 group id per test example (e.g. nesting depth), or
            ``None``.
        group_name: what :attr:`test_groups` means, e.g. ``"nesting depth"``.
        info: JSON-friendly provenance: generator parameters, token strings (``info["tokens"]``),
            corpus files and their sha256, the Python version for corpora.
    """

    name: str
    kind: TaskKind
    x_train: torch.Tensor
    y_train: torch.Tensor
    x_val: torch.Tensor
    y_val: torch.Tensor
    x_test: torch.Tensor
    y_test: torch.Tensor
    vocab_size: int | None
    input_features: int | None
    num_classes: int
    metric: str
    test_groups: torch.Tensor | None = None
    group_name: str | None = None
    info: dict = field(default_factory=dict)

    @property
    def seq_len(self) -> int:
        """Number of time steps :math:`T` of every split."""
        return int(self.x_train.shape[1])

    @property
    def n_train(self) -> int:
        """Number of training examples."""
        return int(self.x_train.shape[0])

    @property
    def input_size(self) -> int:
        """``vocab_size`` for token inputs, ``input_features`` for float inputs."""
        size = self.vocab_size if self.vocab_size is not None else self.input_features
        assert size is not None
        return size


# --------------------------------------------------------------------------------------------
# Validation and seeding helpers
# --------------------------------------------------------------------------------------------


def check_int(name: str, value: Any, lo: int, hi: int | None = None) -> int:
    """Return ``value`` if it is an integer in ``[lo, hi]``, else raise a ValueError naming it."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if ok and value >= lo and (hi is None or value <= hi):
        return int(value)
    allowed = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
    raise ValueError(f"{name} must be an integer {allowed}, got {value!r}")


def check_range(name: str, value: Any, lo: int, hi: int) -> tuple[int, int]:
    """Return ``value`` as ``(a, b)`` if it is a pair of integers with ``lo <= a <= b <= hi``."""
    if (
        isinstance(value, (tuple, list))
        and len(value) == 2
        and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)
        and lo <= value[0] <= value[1] <= hi
    ):
        return int(value[0]), int(value[1])
    raise ValueError(
        f"{name} must be a pair (lo, hi) of integers with {lo} <= lo <= hi <= {hi}, got {value!r}"
    )


def split_rng(seed: int, task: str, split: str) -> np.random.Generator:
    """A private generator for one split of one task, independent of every other split."""
    return np.random.default_rng([seed, zlib.crc32(task.encode()), SPLITS.index(split)])


Sampler = Callable[[np.random.Generator], tuple[np.ndarray, ...]]


def _rows_as_bytes(x: np.ndarray) -> list[bytes]:
    return [row.tobytes() for row in x]


SPLIT_FRACTIONS: dict[str, float] = {"train": 0.8, "val": 0.1, "test": 0.1}
"""How the space of distinct examples is partitioned: the share of it that belongs to each split."""


def split_of_rows(x: np.ndarray, seed: int, task: str) -> np.ndarray:
    """Which split each row of ``x`` belongs to: ``0`` train, ``1`` val, ``2`` test.

    The answer is a function of the row's *content* only (and of ``seed`` and ``task``): a keyed
    BLAKE2b hash of the row's bytes, read as a number in ``[0, 1)``, falls into the train, val or
    test share of :data:`SPLIT_FRACTIONS`. So the space of distinct examples is partitioned
    *before* anything is drawn, every example has exactly one split, and because the hash knows
    nothing about an example's length, depth or label, each split is the same distribution seen
    through a random sieve. (Version 1 drew the test set first and rejected later rows already
    taken; when the space is small, whole kinds of example ran out before the training set was
    drawn. See :func:`first_come_splits`.)
    """
    key = f"{task}|{seed}".encode()
    cut_val = SPLIT_FRACTIONS["train"]
    cut_test = cut_val + SPLIT_FRACTIONS["val"]
    out = np.empty(len(x), dtype=np.int64)
    for i, row in enumerate(_rows_as_bytes(x)):
        digest = hashlib.blake2b(row, digest_size=8, key=key[:64]).digest()
        u = int.from_bytes(digest, "little") / 2**64
        out[i] = 0 if u < cut_val else 1 if u < cut_test else 2
    return out


def sample_splits(
    task: str,
    seed: int,
    sizes: dict[str, int],
    sample: Sampler | dict[str, Sampler],
) -> dict[str, tuple[np.ndarray, ...]]:
    """Draw the three splits from ``sample``: each split keeps the rows that belong to it.

    ``sample`` is one sampler for all splits or a dict with one per split (e.g. a deeper test
    distribution). A sampler's call ``sample(rng)`` returns a tuple of arrays sharing the first
    dimension, the first being the input ``x``. Each split draws its own stream of batches and
    keeps, in stream order, the rows that :func:`split_of_rows` assigns to it and that it does not
    already hold, until it has ``n``. Hence:

    * no example occurs in two splits (each has one split by its content),
    * no example occurs twice in a split (``n_train`` distinct examples are ``n_train``),
    * train, val and test follow the same distribution (the partition ignores every feature),
    * each split is a prefix of the same split for a larger ``n`` (nested training sets), and a
      split depends only on its own ``n`` (changing ``n_train`` never changes val or test).

    ``info["draws"]`` (see the task's info) records, per split, how many rows were drawn and how
    many were repeats; a high repeat rate means the space is nearly exhausted.
    """
    out: dict[str, tuple[np.ndarray, ...]] = {}
    for index, split in enumerate(SPLITS):
        n, rng = sizes[split], split_rng(seed, task, split)
        draw = sample[split] if isinstance(sample, dict) else sample
        parts: list[tuple[np.ndarray, ...]] = []
        seen: set[bytes] = set()
        have, batches = 0, 0
        while have < n:
            batch = draw(rng)
            mine = split_of_rows(batch[0], seed, task) == index
            keep = np.zeros(len(mine), dtype=bool)
            for i, key in enumerate(_rows_as_bytes(batch[0])):
                if mine[i] and key not in seen:
                    seen.add(key)
                    keep[i] = True
            parts.append(tuple(a[keep] for a in batch))
            have += int(keep.sum())
            batches += 1
            if have < n and batches >= 40 + 20 * (n // max(1, len(keep))):
                raise ValueError(
                    f"{task}: could draw only {have} of n_{split}={n} distinct examples in the "
                    f"{split} share ({SPLIT_FRACTIONS[split]:.0%}) of the example space after "
                    f"{batches} batches; these options allow too few distinct examples: ask for "
                    f"fewer examples or widen the options"
                )
        if parts:
            arrays = tuple(np.concatenate([p[i] for p in parts])[:n] for i in range(len(parts[0])))
        else:  # n == 0: an empty split with the sampler's shapes
            probe = draw(split_rng(seed, task, split))
            arrays = tuple(a[:0] for a in probe)
        out[split] = arrays
    return out


def first_come_splits(
    task: str,
    seed: int,
    sizes: dict[str, int],
    sample: Sampler | dict[str, Sampler],
) -> dict[str, tuple[np.ndarray, ...]]:
    """Version 1's split rule, kept to show why it was replaced (do not use it for labs).

    Test was drawn first, then val, then train, each rejecting rows already taken by an earlier
    split. When the space of distinct examples is small (ListOps at nesting 1 has about 3,300),
    the earlier splits use up whole kinds of example: every two-argument expression ended in val
    or test and the training set held none. :func:`sample_splits` partitions the space instead.
    """
    taken: set[bytes] = set()
    out: dict[str, tuple[np.ndarray, ...]] = {}
    for split in ("test", "val", "train"):
        n, rng = sizes[split], split_rng(seed, task, split)
        draw = sample[split] if isinstance(sample, dict) else sample
        parts: list[tuple[np.ndarray, ...]] = []
        have = 0
        while have < n:
            batch = draw(rng)
            keep = np.array([key not in taken for key in _rows_as_bytes(batch[0])], dtype=bool)
            parts.append(tuple(a[keep] for a in batch))
            have += int(keep.sum())
        arrays = tuple(np.concatenate([p[i] for p in parts])[:n] for i in range(len(parts[0])))
        out[split] = arrays
        if split != "train":
            taken.update(_rows_as_bytes(arrays[0]))
    return out


def split_sizes(n_train: int, n_val: int, n_test: int) -> dict[str, int]:
    return {
        "train": check_int("n_train", n_train, 1),
        "val": check_int("n_val", n_val, 0),
        "test": check_int("n_test", n_test, 0),
    }


def to_tensors(splits: dict[str, tuple[np.ndarray, ...]]) -> dict[str, Any]:
    return {
        f"{part}_{split}": torch.from_numpy(np.ascontiguousarray(splits[split][i]))
        for split in SPLITS
        for i, part in enumerate(("x", "y"))
    }
