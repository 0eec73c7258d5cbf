"""Generated tasks: majority token and Dyck-k bracket tagging (ListOps is in
:mod:`rnnlab.core.tasks.listops`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from rnnlab.core.tasks.base import (
    IGNORE_INDEX,
    Sampler,
    TaskData,
    check_int,
    check_range,
    first_come_splits,
    sample_splits,
    split_sizes,
    to_tensors,
)

# --------------------------------------------------------------------------------------------
# 1. majority
# --------------------------------------------------------------------------------------------

_BATCH = 4096

SPLIT_RULES = ("partition", "first_come")


def split_rule_function(split_rule: str):
    """The function that draws a generated task's splits.

    ``"partition"`` (the default, version 2): the space of distinct examples is partitioned by a
    hash of each example's content, so the splits share one distribution and never overlap
    (:func:`rnnlab.core.tasks.base.sample_splits`). ``"first_come"``: version 1's rule, kept only
    so
    the course can show what was wrong with it (:func:`rnnlab.core.tasks.base.first_come_splits`).
    """
    if split_rule not in SPLIT_RULES:
        raise ValueError(f"split_rule must be one of {SPLIT_RULES}, got {split_rule!r}")
    return sample_splits if split_rule == "partition" else first_come_splits


def majority_generator(
    *,
    n_train: int,
    n_val: int,
    n_test: int,
    seed: int,
    seq_len: int = 48,
    num_tokens: int = 10,
    split_rule: str = "partition",
) -> TaskData:
    r"""Majority token: name the token that occurs most often in a sequence.

    Input ``x`` is ``(N, seq_len)`` int64 with tokens drawn independently and uniformly from
    ``{0, ..., num_tokens - 1}`` (vocabulary = ``num_tokens``, no padding). The label is

    .. math:: y = \arg\max_v \sum_t [x_t = v],

    and sequences whose maximum count is tied are rejected and redrawn, so the label is unique.
    Kind ``classify``, ``num_classes = num_tokens``, metric ``accuracy``. A model must keep one
    running count per token over the whole sequence.

    Options: ``seq_len=48`` (>= 1), ``num_tokens=10`` (in [2, 1000]), ``split_rule`` (see
    :func:`split_rule_function`).
    """
    seq_len = check_int("seq_len", seq_len, 1)
    num_tokens = check_int("num_tokens", num_tokens, 2, 1000)
    sizes = split_sizes(n_train, n_val, n_test)

    def sample(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
        x = rng.integers(0, num_tokens, size=(_BATCH, seq_len), dtype=np.int64)
        counts = np.zeros((_BATCH, num_tokens), dtype=np.int64)
        np.add.at(counts, (np.arange(_BATCH)[:, None], x), 1)
        top = counts.max(axis=1, keepdims=True)
        unique = (counts == top).sum(axis=1) == 1
        return x[unique], counts[unique].argmax(axis=1)

    splits = split_rule_function(split_rule)("majority", seed, sizes, sample)
    return TaskData(
        name="majority",
        kind="classify",
        **to_tensors(splits),
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
    k = check_int("num_pairs", num_pairs, 1)
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


def dyck_generator(
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
    split_rule: str = "partition",
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
    ``depth_sampling`` (``"natural"`` or ``"uniform"``), ``split_rule`` (see
    :func:`split_rule_function`).
    """
    k = check_int("num_pairs", num_pairs, 1, 50)
    seq_len = check_int("seq_len", seq_len, 2)
    longest = seq_len - seq_len % 2
    max_depth = check_int("max_depth", max_depth, 1, longest // 2)
    if min_len is None:
        min_len = longest
    min_len = check_int("min_len", min_len, 2, seq_len)
    if min_len % 2:
        raise ValueError(f"min_len must be an even integer in [2, {seq_len}], got {min_len}")
    depth_cap = min(max_depth, min_len // 2)
    depth_range = check_range(
        "depth_range", (1, depth_cap) if depth_range is None else depth_range, 1, depth_cap
    )
    test_depth_range = check_range(
        "test_depth_range",
        depth_range if test_depth_range is None else test_depth_range,
        1,
        depth_cap,
    )
    if depth_sampling not in ("natural", "uniform"):
        raise ValueError(f"depth_sampling must be 'natural' or 'uniform', got {depth_sampling!r}")
    sizes = split_sizes(n_train, n_val, n_test)
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
    splits = split_rule_function(split_rule)("dyck", seed, sizes, samplers)
    tokens = _dyck_token_strings(k)
    return TaskData(
        name="dyck",
        kind="tag",
        **to_tensors(splits),
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
            "split_rule": split_rule,
            "tokens": tokens,
            "classes": [f"close {tokens[k + c]}" for c in range(k)] + ["empty stack"],
            "pad_id": pad,
            "sizes": sizes,
        },
    )
