"""Deterministic, offline data generators and corpus loaders for the labs.

Every lab asks for its data through one function::

    task = make_task("dyck", n_train=20_000, n_val=1_000, n_test=2_000, seed=0)

and gets a frozen :class:`TaskData`: CPU tensors for the three splits plus everything a model
needs to know about them (vocabulary size, number of classes, the metric to report).

Six tasks, three kinds of output:

==================  ========  =================  ===========================================
name                kind      metric             what the model must do
==================  ========  =================  ===========================================
``majority``        classify  accuracy           name the most frequent token of a sequence
``digits``          classify  accuracy           read an 8x8 digit image row by row
``dyck``            tag       sequence_accuracy  at every position, name the bracket to close
``listops``         classify  accuracy           evaluate a nested MAX/MIN/SM expression
``charlm-english``  lm        bits_per_char      predict the next character of English prose
``charlm-python``   lm        bits_per_char      predict the next character of Python source
==================  ========  =================  ===========================================

Shapes, with :math:`N` examples of :math:`T` steps:

* ``classify``: ``x`` is ``(N, T)`` int64 token ids (or ``(N, T, F)`` float32 features for
  ``digits``), ``y`` is ``(N,)`` int64 class ids.
* ``tag``: ``x`` is ``(N, T)``, ``y`` is ``(N, T)`` int64 with ``-100`` (PyTorch's
  ``ignore_index``) at positions that are not scored.
* ``lm``: ``x`` is ``(N, T)`` and ``y`` is ``(N, T)``, the same character stream shifted by one:
  ``y[n, t] == x[n, t + 1]``.

Reproducibility rules, kept by every generator:

* Randomness comes only from a private :class:`numpy.random.Generator` per split, seeded from
  ``(seed, task, split)``; global RNG state is never read or changed.
* The same arguments give identical tensors.
* The test set depends only on ``(seed, n_test, options)`` and the validation set only on
  ``(seed, n_val, n_test, options)``: changing ``n_train`` (the data-size experiments) never
  changes what a model is evaluated on.
* Training sets are *nested*: the first ``n`` training examples for ``n_train=n`` equal the
  first ``n`` for any larger ``n_train``.
* Generated validation and test examples never occur in the training set (and test examples not
  in validation); rows are compared exactly.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import platform
import sysconfig
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch

__all__ = [
    "TaskKind",
    "TaskData",
    "make_task",
    "task_names",
    "task_options",
    "task_doc",
    "describe",
    "dyck_targets",
    "listops_eval",
    "listops_max_len",
    "charlm_window_starts",
    "PYTHON_CORPUS_FILES",
    "IGNORE_INDEX",
]

TaskKind = Literal["classify", "tag", "lm"]

IGNORE_INDEX = -100
"""Target value of unscored positions (the default ``ignore_index`` of ``nn.CrossEntropyLoss``)."""

_SPLITS = ("train", "val", "test")


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


def _check_int(name: str, value: Any, lo: int, hi: int | None = None) -> int:
    """Return ``value`` if it is an integer in ``[lo, hi]``, else raise a ValueError naming it."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if ok and value >= lo and (hi is None or value <= hi):
        return int(value)
    allowed = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
    raise ValueError(f"{name} must be an integer {allowed}, got {value!r}")


def _check_range(name: str, value: Any, lo: int, hi: int) -> tuple[int, int]:
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


def _rng(seed: int, task: str, split: str) -> np.random.Generator:
    """A private generator for one split of one task, independent of every other split."""
    return np.random.default_rng([seed, zlib.crc32(task.encode()), _SPLITS.index(split)])


Sampler = Callable[[np.random.Generator], tuple[np.ndarray, ...]]


def _rows_as_bytes(x: np.ndarray) -> list[bytes]:
    return [row.tobytes() for row in x]


def _sample_splits(
    task: str,
    seed: int,
    sizes: dict[str, int],
    sample: Sampler | dict[str, Sampler],
) -> dict[str, tuple[np.ndarray, ...]]:
    """Draw the three splits from ``sample`` (one batch per call), test first, then val, train.

    ``sample`` is one sampler for all splits or a dict with one per split. A sampler's call
    ``sample(rng)`` returns a tuple of arrays sharing the first dimension, the first being the
    input ``x`` (its rows are compared for duplicates). Batches have a size fixed by the sampler
    (not by ``n``), so each split is a prefix of the same split for a larger ``n``. Rows already
    in a split drawn earlier (test, then val) are rejected, so no test row occurs in val or
    train and no val row in train.
    """
    taken: set[bytes] = set()
    out: dict[str, tuple[np.ndarray, ...]] = {}
    for split in ("test", "val", "train"):
        n, rng = sizes[split], _rng(seed, task, split)
        draw = sample[split] if isinstance(sample, dict) else sample
        parts: list[tuple[np.ndarray, ...]] = []
        have, batches = 0, 0
        while True:
            batch = draw(rng)
            keep = np.array([key not in taken for key in _rows_as_bytes(batch[0])], dtype=bool)
            batch = tuple(a[keep] for a in batch)
            parts.append(batch)
            have += len(batch[0])
            batches += 1
            if have >= n:
                break
            if batches >= 30 + 10 * (n // len(keep)):
                raise ValueError(
                    f"{task}: could draw only {have} of n_{split}={n} examples (after {batches} "
                    f"batches) that are new to the splits drawn before (test, then val); these "
                    f"options allow too few distinct sequences, or too few pass the filters: "
                    f"ask for fewer examples or widen the options"
                )
        arrays = tuple(np.concatenate([p[i] for p in parts])[:n] for i in range(len(parts[0])))
        out[split] = arrays
        if split != "train":
            taken.update(_rows_as_bytes(arrays[0]))
    return out


def _sizes(n_train: int, n_val: int, n_test: int) -> dict[str, int]:
    return {
        "train": _check_int("n_train", n_train, 1),
        "val": _check_int("n_val", n_val, 0),
        "test": _check_int("n_test", n_test, 0),
    }


def _tensors(splits: dict[str, tuple[np.ndarray, ...]]) -> dict[str, Any]:
    return {
        f"{part}_{split}": torch.from_numpy(np.ascontiguousarray(splits[split][i]))
        for split in _SPLITS
        for i, part in enumerate(("x", "y"))
    }


# --------------------------------------------------------------------------------------------
# 1. majority
# --------------------------------------------------------------------------------------------

_BATCH = 4096


def _majority(
    *, n_train: int, n_val: int, n_test: int, seed: int, seq_len: int = 48, num_tokens: int = 10
) -> TaskData:
    r"""Majority token: name the token that occurs most often in a sequence.

    Input ``x`` is ``(N, seq_len)`` int64 with tokens drawn independently and uniformly from
    ``{0, ..., num_tokens - 1}`` (vocabulary = ``num_tokens``, no padding). The label is

    .. math:: y = \arg\max_v \sum_t [x_t = v],

    and sequences whose maximum count is tied are rejected and redrawn, so the label is unique.
    Kind ``classify``, ``num_classes = num_tokens``, metric ``accuracy``. A model must keep one
    running count per token over the whole sequence.

    Options: ``seq_len=48`` (>= 1), ``num_tokens=10`` (in [2, 1000]).
    """
    seq_len = _check_int("seq_len", seq_len, 1)
    num_tokens = _check_int("num_tokens", num_tokens, 2, 1000)
    sizes = _sizes(n_train, n_val, n_test)

    def sample(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        x = rng.integers(0, num_tokens, size=(_BATCH, seq_len), dtype=np.int64)
        counts = np.zeros((_BATCH, num_tokens), dtype=np.int64)
        np.add.at(counts, (np.arange(_BATCH)[:, None], x), 1)
        top = counts.max(axis=1, keepdims=True)
        unique = (counts == top).sum(axis=1) == 1
        return x[unique], counts[unique].argmax(axis=1)

    splits = _sample_splits("majority", seed, sizes, sample)
    return TaskData(
        name="majority",
        kind="classify",
        **_tensors(splits),
        vocab_size=num_tokens,
        input_features=None,
        num_classes=num_tokens,
        metric="accuracy",
        info={
            "seed": seed,
            "seq_len": seq_len,
            "num_tokens": num_tokens,
            "tokens": [str(v) for v in range(num_tokens)],
            "sizes": sizes,
        },
    )


# --------------------------------------------------------------------------------------------
# 2. digits
# --------------------------------------------------------------------------------------------

_DIGITS_TOTAL = 1797


@lru_cache(maxsize=1)
def _load_digits() -> tuple[np.ndarray, np.ndarray]:
    """The 1797 images as ``(1797, 8, 8)`` float32 in [0, 1] (rows x columns) and their labels."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int64)
    images.setflags(write=False)
    labels.setflags(write=False)
    return images, labels


def _digits(*, n_train: int, n_val: int, n_test: int, seed: int) -> TaskData:
    """scikit-learn's bundled handwritten digits, read one pixel row per time step.

    ``sklearn.datasets.load_digits()`` ships inside scikit-learn (1797 images of 8x8 pixels with
    values 0-16; no download). Each image becomes a sequence of ``T = 8`` rows with ``F = 8``
    features, scaled to ``[0, 1]`` by dividing by 16: ``x`` is ``(N, 8, 8)`` float32, ``y`` is
    ``(N,)`` int64 in ``0..9`` (kind ``classify``). ``vocab_size`` is ``None`` and
    ``input_features`` is 8; metric ``accuracy``.

    The split is one permutation of the 1797 images seeded by ``seed``: train takes the first
    ``n_train``, test the last ``n_test``, val the ``n_val`` before those; so
    ``n_train + n_val + n_test <= 1797`` (a typical choice is 1297 / 250 / 250), the splits
    never share an image, and changing ``n_train`` leaves val and test unchanged.
    """
    sizes = _sizes(n_train, n_val, n_test)
    if sum(sizes.values()) > _DIGITS_TOTAL:
        raise ValueError(
            f"n_train + n_val + n_test must be <= {_DIGITS_TOTAL} for digits, got "
            f"{n_train} + {n_val} + {n_test} = {sum(sizes.values())}"
        )
    images, labels = _load_digits()
    order = _rng(seed, "digits", "train").permutation(len(labels))
    index = {
        "train": order[: sizes["train"]],
        "val": order[len(order) - sizes["test"] - sizes["val"] : len(order) - sizes["test"]],
        "test": order[len(order) - sizes["test"] :],
    }
    splits = {s: (images[i], labels[i]) for s, i in index.items()}
    return TaskData(
        name="digits",
        kind="classify",
        **_tensors(splits),
        vocab_size=None,
        input_features=8,
        num_classes=10,
        metric="accuracy",
        info={
            "seed": seed,
            "source": "sklearn.datasets.load_digits",
            "sizes": sizes,
            "indices": {s: [int(v) for v in i] for s, i in index.items()},
        },
    )


# --------------------------------------------------------------------------------------------
# 3. dyck
# --------------------------------------------------------------------------------------------

_BRACKETS = "()[]{}<>"


def _dyck_token_strings(num_pairs: int) -> list[str]:
    if num_pairs <= len(_BRACKETS) // 2:
        opens = [_BRACKETS[2 * i] for i in range(num_pairs)]
        closes = [_BRACKETS[2 * i + 1] for i in range(num_pairs)]
    else:
        opens = [f"({i}" for i in range(num_pairs)]
        closes = [f"){i}" for i in range(num_pairs)]
    return [*opens, *closes, "<pad>"]


def dyck_targets(tokens: Sequence[int] | torch.Tensor, num_pairs: int) -> list[int]:
    """The Dyck-k tagging targets of one token sequence, with an explicit stack.

    Token ids: ``0..k-1`` open brackets of types ``0..k-1``, ``k..2k-1`` the matching closing
    brackets, ``2k`` PAD. After reading ``tokens[:t+1]`` the target is the type ``c`` of the
    bracket on top of the stack (the closing bracket ``k + c`` must come next before any other
    closing bracket), or ``k`` ("empty stack") when every bracket is closed. PAD positions get
    ``-100``.

    Raises ValueError if a closing bracket does not match the top of the stack.

    >>> dyck_targets([0, 1, 3, 2], num_pairs=2)   # "( [ ] )"
    [0, 1, 0, 2]
    """
    k = _check_int("num_pairs", num_pairs, 1)
    stack: list[int] = []
    targets: list[int] = []
    for t, token in enumerate(int(v) for v in tokens):
        if token == 2 * k:
            targets.append(IGNORE_INDEX)
            continue
        if 0 <= token < k:
            stack.append(token)
        elif k <= token < 2 * k:
            if not stack or stack[-1] != token - k:
                raise ValueError(f"tokens[{t}] = {token} closes a bracket that is not open")
            stack.pop()
        else:
            raise ValueError(f"tokens[{t}] must be in [0, {2 * k}], got {token}")
        targets.append(stack[-1] if stack else k)
    return targets


def _dyck(
    *,
    n_train: int,
    n_val: int,
    n_test: int,
    seed: int,
    num_pairs: int = 2,
    seq_len: int = 64,
    max_depth: int = 8,
    min_len: int | None = None,
    depth_range: tuple[int, int] | None = None,
    test_depth_range: tuple[int, int] | None = None,
    depth_sampling: str = "natural",
) -> TaskData:
    r"""Dyck-k: at every position, name the bracket that must close next.

    A string over ``k = num_pairs`` bracket types is balanced when every opening bracket is
    closed by its own type in last-in-first-out order. Token ids: ``0..k-1`` are the opening
    brackets, ``k..2k-1`` the matching closing brackets (``k + c`` closes ``c``), ``2k`` is PAD;
    ``vocab_size = 2k + 1`` and ``info["tokens"]`` gives the strings (``( [ ) ] <pad>`` for k=2).

    Targets (kind ``tag``): after reading ``x[:t+1]`` the target is the type of the bracket on
    top of the stack, or class ``k`` ("empty stack"); ``num_classes = k + 1``. Every position
    with a real token is scored; PAD positions carry ``-100``. Metric ``sequence_accuracy``: a
    string counts only if all its scored positions are right. :func:`dyck_targets` is the
    reference definition.

    Strings are random walks on the stack depth :math:`d_t`: each step opens a uniformly chosen
    bracket type with probability 1/2 and closes the top otherwise, except that it must open at
    :math:`d = 0`, must close at the depth cap or when the remaining steps are needed to close
    everything. Lengths are even and uniform in ``[min_len, seq_len]`` (default: all strings have
    the largest even length <= ``seq_len``); shorter strings are right-padded with PAD.

    Depth control. The nesting depth of a string is :math:`\max_t d_t`. ``depth_range=(lo, hi)``
    (default ``(1, max_depth)``) keeps strings of depth in ``[lo, hi]`` for train and val,
    ``test_depth_range`` (default: ``depth_range``) for test, so a lab can train shallow and
    test deep. ``depth_sampling="natural"`` caps the walk at ``hi`` and rejects strings shallower
    than ``lo`` (the walk's own depth distribution, as in the pilot: at the defaults most strings
    touch the cap); ``"uniform"`` first draws each string's depth uniformly from ``[lo, hi]``,
    then redraws walks capped at that depth until one reaches it, so every depth is equally
    common (ValueError if a depth is practically unreachable at these lengths).
    ``test_groups`` is each test string's nesting depth (``group_name = "nesting depth"``).

    Options: ``num_pairs=2`` (in [1, 50]), ``seq_len=64`` (>= 2), ``max_depth=8``
    (in [1, seq_len // 2]), ``min_len`` (even, in [2, seq_len]), ``depth_range``,
    ``test_depth_range`` (pairs within [1, min_len // 2] and [1, max_depth]),
    ``depth_sampling`` (``"natural"`` or ``"uniform"``).
    """
    k = _check_int("num_pairs", num_pairs, 1, 50)
    seq_len = _check_int("seq_len", seq_len, 2)
    longest = seq_len - seq_len % 2
    max_depth = _check_int("max_depth", max_depth, 1, longest // 2)
    if min_len is None:
        min_len = longest
    min_len = _check_int("min_len", min_len, 2, seq_len)
    if min_len % 2:
        raise ValueError(f"min_len must be an even integer in [2, {seq_len}], got {min_len}")
    depth_cap = min(max_depth, min_len // 2)
    depth_range = _check_range(
        "depth_range", (1, depth_cap) if depth_range is None else depth_range, 1, depth_cap
    )
    test_depth_range = _check_range(
        "test_depth_range",
        depth_range if test_depth_range is None else test_depth_range,
        1,
        depth_cap,
    )
    if depth_sampling not in ("natural", "uniform"):
        raise ValueError(f"depth_sampling must be 'natural' or 'uniform', got {depth_sampling!r}")
    sizes = _sizes(n_train, n_val, n_test)
    pad = 2 * k

    def walks(rng: np.random.Generator, n: int, cap: int) -> tuple[np.ndarray, ...]:
        """``n`` random walks capped at depth ``cap``: tokens, targets and nesting depths."""
        lengths = 2 * rng.integers(min_len // 2, longest // 2 + 1, size=n)
        coins = rng.random((n, seq_len))
        kinds = rng.integers(0, k, size=(n, seq_len))
        x = np.full((n, seq_len), pad, dtype=np.int64)
        y = np.full((n, seq_len), IGNORE_INDEX, dtype=np.int64)
        stack = np.zeros((n, cap + 1), dtype=np.int64)
        depth = np.zeros(n, dtype=np.int64)
        deepest = np.zeros(n, dtype=np.int64)
        rows = np.arange(n)
        for t in range(seq_len):
            active = t < lengths
            remaining = lengths - t - 1  # steps left after this one
            can_open = (depth < cap) & (depth + 1 <= remaining)
            can_close = depth > 0
            opens = active & can_open & (~can_close | (coins[:, t] < 0.5))
            closes = active & ~opens
            top = stack[rows, np.maximum(depth - 1, 0)]
            x[:, t] = np.where(opens, kinds[:, t], np.where(closes, top + k, pad))
            stack[rows[opens], depth[opens]] = kinds[opens, t]
            depth = depth + opens - closes
            deepest = np.maximum(deepest, depth)
            after = stack[rows, np.maximum(depth - 1, 0)]
            y[:, t] = np.where(active, np.where(depth > 0, after, k), IGNORE_INDEX)
        return x, y, deepest

    def sampler(lo: int, hi: int) -> Sampler:
        def natural(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
            x, y, deepest = walks(rng, _BATCH, hi)
            keep = deepest >= lo
            return x[keep], y[keep], deepest[keep]

        def uniform(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
            # Draw each slot's depth first, then fill the slots of depth d with walks capped at d
            # that reach d, so depths are exactly uniform however rarely a depth is reached.
            depths = rng.integers(lo, hi + 1, size=_BATCH)
            x = np.empty((_BATCH, seq_len), dtype=np.int64)
            y = np.empty((_BATCH, seq_len), dtype=np.int64)
            for d in range(lo, hi + 1):
                slots = np.flatnonzero(depths == d)
                found: list[tuple[np.ndarray, np.ndarray]] = []
                have = 0
                for _ in range(200):
                    if have >= len(slots):
                        break
                    wx, wy, deepest = walks(rng, max(256, 2 * (len(slots) - have)), d)
                    found.append((wx[deepest == d], wy[deepest == d]))
                    have += int((deepest == d).sum())
                else:
                    raise ValueError(
                        f"dyck: walks of length in [{min_len}, {longest}] reach depth {d} too "
                        f"rarely to sample it uniformly; lower the depth range or raise min_len"
                    )
                if len(slots):
                    x[slots] = np.concatenate([f[0] for f in found])[: len(slots)]
                    y[slots] = np.concatenate([f[1] for f in found])[: len(slots)]
            return x, y, depths

        return uniform if depth_sampling == "uniform" else natural

    samplers = {
        "train": sampler(*depth_range),
        "val": sampler(*depth_range),
        "test": sampler(*test_depth_range),
    }
    splits = _sample_splits("dyck", seed, sizes, samplers)
    tokens = _dyck_token_strings(k)
    return TaskData(
        name="dyck",
        kind="tag",
        **_tensors(splits),
        vocab_size=2 * k + 1,
        input_features=None,
        num_classes=k + 1,
        metric="sequence_accuracy",
        test_groups=torch.from_numpy(splits["test"][2].copy()),
        group_name="nesting depth",
        info={
            "seed": seed,
            "num_pairs": k,
            "seq_len": seq_len,
            "max_depth": max_depth,
            "min_len": min_len,
            "depth_range": list(depth_range),
            "test_depth_range": list(test_depth_range),
            "depth_sampling": depth_sampling,
            "tokens": tokens,
            "classes": [f"close {tokens[k + c]}" for c in range(k)] + ["empty stack"],
            "pad_id": pad,
            "sizes": sizes,
        },
    )


# --------------------------------------------------------------------------------------------
# 4. listops
# --------------------------------------------------------------------------------------------

_LISTOPS_TOKENS = [*(str(d) for d in range(10)), "MAX", "MIN", "SM", "[", "]", "<pad>"]
_MAX, _MIN, _SM, _OPEN, _CLOSE, _LISTOPS_PAD = 10, 11, 12, 13, 14, 15


def listops_max_len(max_depth: int, max_args: int) -> int:
    r"""The longest ListOps expression of nesting depth ``max_depth``, in tokens.

    An expression of depth :math:`d \ge 1` is ``[ OP a_1 ... a_m ]`` with at most ``max_args``
    arguments of depth :math:`< d`, so its length obeys :math:`L(d) = 3 + a\,L(d-1)`,
    :math:`L(0) = 1` (a digit), with :math:`a` = ``max_args``. For depth 3 and 4 arguments:
    :math:`L = 127`.
    """
    max_depth = _check_int("max_depth", max_depth, 0)
    max_args = _check_int("max_args", max_args, 2)
    length = 1
    for _ in range(max_depth):
        length = 3 + max_args * length
    return length


def listops_eval(tokens: Sequence[int] | torch.Tensor) -> int:
    """Evaluate one ListOps token sequence (PAD ids are skipped) by recursive descent.

    Token ids: ``0..9`` digits, 10 ``MAX``, 11 ``MIN``, 12 ``SM`` (sum mod 10), 13 ``[``,
    14 ``]``, 15 PAD. Grammar: ``expr := digit | "[" OP expr+ "]"``.

    >>> listops_eval([13, 10, 2, 13, 12, 7, 5, 14, 3, 14])   # [MAX 2 [SM 7 5] 3]
    3

    Raises ValueError on a malformed sequence.
    """
    seq = [int(v) for v in tokens if int(v) != _LISTOPS_PAD]

    def parse(i: int) -> tuple[int, int]:
        if i >= len(seq):
            raise ValueError("listops expression ends early")
        if 0 <= seq[i] <= 9:
            return seq[i], i + 1
        if seq[i] != _OPEN or i + 1 >= len(seq) or seq[i + 1] not in (_MAX, _MIN, _SM):
            raise ValueError(f"listops token {i} ({seq[i]}) cannot start an expression")
        op, i = seq[i + 1], i + 2
        values: list[int] = []
        while i < len(seq) and seq[i] != _CLOSE:
            value, i = parse(i)
            values.append(value)
        if i >= len(seq) or not values:
            raise ValueError("listops operator without arguments or closing ']'")
        if op == _MAX:
            return max(values), i + 1
        if op == _MIN:
            return min(values), i + 1
        return sum(values) % 10, i + 1

    value, end = parse(0)
    if end != len(seq):
        raise ValueError(f"listops expression has {len(seq) - end} tokens after its end")
    return value


def _listops(
    *,
    n_train: int,
    n_val: int,
    n_test: int,
    seed: int,
    min_depth: int = 1,
    max_depth: int = 3,
    max_args: int = 4,
    seq_len: int | None = None,
    test_depth_range: tuple[int, int] | None = None,
) -> TaskData:
    r"""ListOps-style nested expressions: compute the value of ``[MAX 2 [SM 7 5] 3]``.

    Operators over digits 0-9: ``MAX``, ``MIN`` and ``SM`` (sum mod 10). Token ids: ``0..9``
    digits, 10 ``MAX``, 11 ``MIN``, 12 ``SM``, 13 ``[``, 14 ``]``, 15 PAD (``vocab_size = 16``,
    strings in ``info["tokens"]``). Kind ``classify``: the label is the value,
    ``num_classes = 10``; metric
    ``accuracy``. :func:`listops_eval` is the reference evaluator.

    Generation of an expression of nesting depth :math:`d \ge 1` (depth = number of nested
    operator levels, a bare digit has depth 0): a uniform operator, a uniform number of
    arguments in ``[2, max_args]``, one uniformly placed argument of depth :math:`d-1` and the
    others of depth uniform in :math:`[0, d-1]`. Each example's depth is uniform in
    ``[min_depth, max_depth]`` (train and val) or ``test_depth_range`` (test; default the same),
    so depths are balanced. ``test_groups`` is each test example's depth
    (``group_name = "nesting depth"``).

    Sequences are left-padded with PAD to ``seq_len``, so the expression ends at the last step.
    The default ``seq_len`` is the worst case :func:`listops_max_len` of the deepest depth asked
    for (127 for depth 3 with 4 arguments), so no expression is ever cut or rejected; a smaller
    ``seq_len`` rejects longer expressions (which skews deep examples towards fewer arguments).

    Options: ``min_depth=1``, ``max_depth=3`` (1 <= min_depth <= max_depth <= 10),
    ``max_args=4`` (in [2, 10]), ``seq_len`` (>= 4 * deepest + 1, the shortest expression),
    ``test_depth_range`` (a pair within [1, 10]).
    """
    max_depth = _check_int("max_depth", max_depth, 1, 10)
    min_depth = _check_int("min_depth", min_depth, 1, max_depth)
    max_args = _check_int("max_args", max_args, 2, 10)
    train_range = (min_depth, max_depth)
    test_range = _check_range(
        "test_depth_range", train_range if test_depth_range is None else test_depth_range, 1, 10
    )
    deepest = max(max_depth, test_range[1])
    if seq_len is None:
        seq_len = listops_max_len(deepest, max_args)
    seq_len = _check_int("seq_len", seq_len, 4 * deepest + 1)
    sizes = _sizes(n_train, n_val, n_test)
    batch = 1024

    def sampler(lo: int, hi: int) -> Sampler:
        def sample(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
            uniforms = rng.random(64 * batch).tolist()
            pos = 0

            def draw(n: int) -> int:
                nonlocal pos, uniforms
                if pos == len(uniforms):
                    uniforms, pos = rng.random(64 * batch).tolist(), 0
                pos += 1
                return int(uniforms[pos - 1] * n)

            def expr(depth: int, out: list[int]) -> int:
                if depth == 0:
                    digit = draw(10)
                    out.append(digit)
                    return digit
                op = _MAX + draw(3)
                n_args = 2 + draw(max_args - 1)
                spine = draw(n_args)
                out += (_OPEN, op)
                values = [
                    expr(depth - 1 if i == spine else draw(depth), out) for i in range(n_args)
                ]
                out.append(_CLOSE)
                if op == _MAX:
                    return max(values)
                if op == _MIN:
                    return min(values)
                return sum(values) % 10

            x = np.full((batch, seq_len), _LISTOPS_PAD, dtype=np.int64)
            y = np.zeros(batch, dtype=np.int64)
            depths = np.zeros(batch, dtype=np.int64)
            keep = np.zeros(batch, dtype=bool)
            for row in range(batch):
                depth = lo + draw(hi - lo + 1)
                tokens: list[int] = []
                y[row] = expr(depth, tokens)
                depths[row] = depth
                if len(tokens) <= seq_len:
                    x[row, seq_len - len(tokens) :] = tokens
                    keep[row] = True
            return x[keep], y[keep], depths[keep]

        return sample

    samplers = {"train": sampler(*train_range), "val": sampler(*train_range)}
    samplers["test"] = sampler(*test_range)
    splits = _sample_splits("listops", seed, sizes, samplers)
    return TaskData(
        name="listops",
        kind="classify",
        **_tensors(splits),
        vocab_size=len(_LISTOPS_TOKENS),
        input_features=None,
        num_classes=10,
        metric="accuracy",
        test_groups=torch.from_numpy(splits["test"][2].copy()),
        group_name="nesting depth",
        info={
            "seed": seed,
            "min_depth": min_depth,
            "max_depth": max_depth,
            "max_args": max_args,
            "seq_len": seq_len,
            "test_depth_range": list(test_range),
            "tokens": list(_LISTOPS_TOKENS),
            "pad_id": _LISTOPS_PAD,
            "sizes": sizes,
        },
    )


# --------------------------------------------------------------------------------------------
# 5-6. character language models
# --------------------------------------------------------------------------------------------

PYTHON_CORPUS_FILES: tuple[str, ...] = (
    "argparse.py",
    "bisect.py",
    "calendar.py",
    "cmd.py",
    "colorsys.py",
    "configparser.py",
    "contextlib.py",
    "copy.py",
    "csv.py",
    "dataclasses.py",
    "difflib.py",
    "fnmatch.py",
    "fractions.py",
    "functools.py",
    "gettext.py",
    "glob.py",
    "heapq.py",
    "ipaddress.py",
    "pprint.py",
    "queue.py",
    "shlex.py",
    "shutil.py",
    "statistics.py",
    "string.py",
    "tempfile.py",
    "textwrap.py",
    "threading.py",
    "timeit.py",
    "tokenize.py",
    "traceback.py",
)
"""Top-level standard-library modules that are single ``.py`` files in CPython 3.10 to 3.13."""

_SPLIT_FRACTIONS = (0.9, 0.95)  # train | val | test boundaries as fractions of the stream
_RARE = "<rare>"


@dataclass(frozen=True)
class _Corpus:
    ids: np.ndarray  # (num_chars,) int64, read-only
    vocab: list[str]  # id -> character; the last entry is the rare-symbol token
    info: dict


def _read_corpus(name: str) -> tuple[str, dict]:
    if name == "charlm-english":
        from pydoc_data.topics import topics

        text = "".join(topics[key] for key in sorted(topics))
        return text, {
            "source": "pydoc_data.topics.topics, values concatenated in sorted-key order",
            "num_topics": len(topics),
        }
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    texts, digests = [], {}
    for filename in PYTHON_CORPUS_FILES:
        data = (stdlib / filename).read_bytes()
        digests[filename] = hashlib.sha256(data).hexdigest()
        texts.append(data.decode("utf-8"))
    return "".join(texts), {
        "source": "CPython standard-library modules, concatenated in the listed order",
        "stdlib_dir": str(stdlib),
        "files": digests,
    }


@lru_cache(maxsize=8)
def _load_corpus(name: str, min_count: int) -> _Corpus:
    text, info = _read_corpus(name)
    counts = Counter(text)
    kept = sorted(char for char, count in counts.items() if count >= min_count)
    rare_id = len(kept)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    table = np.full(int(codes.max()) + 1, rare_id, dtype=np.int64)
    table[[ord(char) for char in kept]] = np.arange(rare_id)
    ids = table[codes]
    ids.setflags(write=False)
    info.update(
        python_version=platform.python_version(),
        num_chars=len(text),
        text_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        min_count=min_count,
        vocab=[*kept, _RARE],
        rare_id=rare_id,
        rare_chars="".join(sorted(char for char, count in counts.items() if count < min_count)),
    )
    return _Corpus(ids=ids, vocab=[*kept, _RARE], info=info)


def _split_bounds(num_chars: int) -> dict[str, tuple[int, int]]:
    a, b = (int(f * num_chars) for f in _SPLIT_FRACTIONS)
    return {"train": (0, a), "val": (a, b), "test": (b, num_chars)}


def charlm_window_starts(
    name: str, num_chars: int, *, n_train: int, n_val: int, n_test: int, seed: int, seq_len: int
) -> dict[str, np.ndarray]:
    """Where each character-LM window starts in the stream, per split.

    The stream of ``num_chars`` characters is cut by position: ``[0, 0.9 N)`` train,
    ``[0.9 N, 0.95 N)`` val, ``[0.95 N, N)`` test. Inside a part ``[lo, hi)`` the candidate
    windows start at ``lo, lo + T, lo + 2T, ...`` (``T = seq_len``) and need ``T + 1``
    characters inside the part (``T`` inputs plus the target of the last one), so targets never
    repeat across windows and no window crosses a split boundary. Each split takes the first
    ``n`` of a seeded permutation of its candidates.

    Returns ``{"train": (n_train,), "val": (n_val,), "test": (n_test,)}`` int64 arrays.
    Raises ValueError naming the maximum when a part has fewer than ``n`` windows.
    """
    sizes = _sizes(n_train, n_val, n_test)
    starts = {}
    for split, (lo, hi) in _split_bounds(num_chars).items():
        candidates = lo + seq_len * np.arange(max(hi - lo - 1, 0) // seq_len, dtype=np.int64)
        n = sizes[split]
        if n > len(candidates):
            raise ValueError(
                f"n_{split} must be <= {len(candidates)} for {name} with seq_len={seq_len} "
                f"(the {split} part holds that many windows), got {n}"
            )
        starts[split] = candidates[_rng(seed, name, split).permutation(len(candidates))[:n]]
    return starts


def _charlm(
    name: str,
    *,
    n_train: int,
    n_val: int,
    n_test: int,
    seed: int,
    seq_len: int = 64,
    min_count: int = 20,
) -> TaskData:
    chars = _load_corpus(name, _check_int("min_count", min_count, 1))
    seq_len = _check_int("seq_len", seq_len, 1)
    starts = charlm_window_starts(
        name,
        len(chars.ids),
        n_train=n_train,
        n_val=n_val,
        n_test=n_test,
        seed=seed,
        seq_len=seq_len,
    )
    splits = {}
    for split, first in starts.items():
        window = chars.ids[first[:, None] + np.arange(seq_len + 1)]  # (n, T + 1)
        splits[split] = (window[:, :-1], window[:, 1:])
    vocab_size = len(chars.vocab)
    return TaskData(
        name=name,
        kind="lm",
        **_tensors(splits),
        vocab_size=vocab_size,
        input_features=None,
        num_classes=vocab_size,
        metric="bits_per_char",
        info={
            **copy.deepcopy(chars.info),
            "vocab": list(chars.vocab),
            "tokens": list(chars.vocab),
            "seed": seed,
            "seq_len": seq_len,
            "split_bounds": {s: list(b) for s, b in _split_bounds(len(chars.ids)).items()},
            "sizes": {s: len(v) for s, v in starts.items()},
        },
    )


def _charlm_english(**kwargs: Any) -> TaskData:
    """Character language model on English prose: CPython's bundled pydoc topics.

    The text is ``pydoc_data.topics.topics`` (a dict of help texts that ships with every
    CPython), values concatenated in sorted-key order: about 465k characters. Each character
    seen at least ``min_count`` times gets its own id, in code-point order; all rarer characters
    share one last id, the rare symbol (``info["vocab"]`` lists id -> character,
    ``info["rare_chars"]`` the merged characters). ``vocab_size = num_classes``.

    Kind ``lm``: ``x`` and ``y`` are ``(N, seq_len)`` int64 with ``y[:, t] = x[:, t + 1]``:
    each window holds ``seq_len + 1`` consecutive characters. The stream is split by position,
    first 90% train, next 5% val, last 5% test; windows never cross a boundary nor share a
    target (:func:`charlm_window_starts`). Metric ``bits_per_char``: the mean cross-entropy in bits,
    :math:`-\\frac{1}{NT}\\sum \\log_2 p(y_{n,t} \\mid x_{n,\\le t})`; lower is better.
    ``n_train`` may not exceed the number of train windows (about 6500 at ``seq_len=64``).

    The text differs slightly between Python versions; ``info`` records the version and the
    text's sha256.

    Options: ``seq_len=64`` (>= 1), ``min_count=20`` (>= 1).
    """
    return _charlm("charlm-english", **kwargs)


def _charlm_python(**kwargs: Any) -> TaskData:
    """Character language model on Python source: a fixed list of standard-library modules.

    The text is the files :data:`PYTHON_CORPUS_FILES` (30 single-file top-level modules such as
    ``argparse.py`` and ``textwrap.py``, about 1 MB; all exist in CPython 3.10-3.13) read from
    ``sysconfig.get_paths()["stdlib"]`` and concatenated in that order. Their contents vary
    slightly between Python versions, so exact numbers are tied to the Python version, which
    ``info`` records together with every file's sha256.

    Kind ``lm``; vocabulary, windows, splits and metric as for ``charlm-english``: characters
    seen fewer than ``min_count`` times share one rare-symbol id, ``y`` is ``x`` shifted by one,
    the stream is split 90% / 5% / 5% by position, metric ``bits_per_char``.

    Options: ``seq_len=64`` (>= 1), ``min_count=20`` (>= 1).
    """
    return _charlm("charlm-python", **kwargs)


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

_TASKS: dict[str, Callable[..., TaskData]] = {
    "majority": _majority,
    "digits": _digits,
    "dyck": _dyck,
    "listops": _listops,
    "charlm-english": _charlm_english,
    "charlm-python": _charlm_python,
}

_SIZE_ARGS = ("n_train", "n_val", "n_test", "seed")


def task_options(name: str) -> dict[str, Any]:
    """The options ``make_task(name, ...)`` accepts, with their defaults.

    >>> task_options("majority")
    {'seq_len': 48, 'num_tokens': 10}
    """
    if name not in _TASKS:
        raise ValueError(f"name must be one of {task_names()}, got {name!r}")
    generator = _charlm if name.startswith("charlm-") else _TASKS[name]
    return {
        key: parameter.default
        for key, parameter in inspect.signature(generator).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and key not in _SIZE_ARGS
    }


def task_doc(name: str) -> str:
    """The full documentation of one task: vocabulary, lengths, targets, metric, options."""
    if name not in _TASKS:
        raise ValueError(f"name must be one of {task_names()}, got {name!r}")
    return inspect.cleandoc(_TASKS[name].__doc__ or "")


def task_names() -> list[str]:
    """The names :func:`make_task` accepts, in the order the course introduces them."""
    return list(_TASKS)


def make_task(
    name: str, *, n_train: int, n_val: int, n_test: int, seed: int, **options: Any
) -> TaskData:
    """Build one task's train, validation and test splits.

    Args:
        name: one of :func:`task_names`. :func:`task_doc` documents each task (vocabulary,
            lengths, targets, metric) and :func:`task_options` lists its options and defaults.
        n_train: training-set size (>= 1), the variable of the data-size experiments.
        n_val: validation-set size (>= 0).
        n_test: test-set size (>= 0).
        seed: integer >= 0; the same arguments always give identical tensors.
        **options: task options, e.g. ``seq_len=32`` or ``depth_range=(1, 4)``.

    Returns:
        A :class:`TaskData` of CPU tensors.

    Raises:
        ValueError: unknown ``name`` or option, or an option, size or seed out of range; the
            message names the parameter, the value and what is allowed.
    """
    if name not in _TASKS:
        raise ValueError(f"name must be one of {task_names()}, got {name!r}")
    seed = _check_int("seed", seed, 0, 2**63 - 1)
    allowed = list(task_options(name))
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown option {unknown[0]!r} for task {name!r}; allowed options: {allowed or 'none'}"
        )
    return _TASKS[name](n_train=n_train, n_val=n_val, n_test=n_test, seed=seed, **options)


def describe(task: TaskData) -> str:
    """A one-paragraph plain-text summary of a task, for notebooks."""
    if task.vocab_size is not None:
        inputs = f"token ids over a vocabulary of {task.vocab_size}"
    else:
        inputs = f"{task.input_features} float features per step"
    outputs = {
        "classify": f"one of {task.num_classes} classes per sequence",
        "tag": f"one of {task.num_classes} classes at every scored position",
        "lm": f"the next token (one of {task.num_classes}) at every position",
    }[task.kind]
    metric = {
        "accuracy": "accuracy (fraction of test examples right; higher is better)",
        "sequence_accuracy": "sequence accuracy (fraction of test sequences with every scored "
        "position right; higher is better)",
        "bits_per_char": "bits per character (mean cross-entropy in bits; lower is better)",
    }.get(task.metric, task.metric)
    text = (
        f"Task '{task.name}' ({task.kind}): {task.n_train} training, {len(task.x_val)} validation "
        f"and {len(task.x_test)} test sequences of {task.seq_len} steps; inputs are {inputs}; "
        f"the model predicts {outputs}. Metric: {metric}."
    )
    if task.test_groups is not None:
        values, counts = torch.unique(task.test_groups, return_counts=True)
        spread = ", ".join(f"{int(v)}: {int(c)}" for v, c in zip(values, counts, strict=True))
        text += f" Test examples by {task.group_name}: {spread}."
    if task.kind == "lm":
        text += (
            f" Corpus: {task.info['num_chars']:,} characters (Python "
            f"{task.info['python_version']}), {task.vocab_size - 1} characters seen at least "
            f"{task.info['min_count']} times plus one rare-symbol id."
        )
    return text
