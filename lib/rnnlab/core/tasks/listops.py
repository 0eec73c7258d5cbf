"""Generated task: ListOps expressions (nested MAX/MIN/SM over digits), their evaluation and
their generator."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from rnnlab.core.tasks.base import (
    Sampler,
    TaskData,
    check_int,
    check_range,
    split_sizes,
    to_tensors,
)
from rnnlab.core.tasks.synthetic import split_rule_function

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
    max_depth = check_int("max_depth", max_depth, 0)
    max_args = check_int("max_args", max_args, 2)
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


def listops_generator(
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
    arg_count: str = "uniform",
    split_rule: str = "partition",
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
    ``test_depth_range`` (a pair within [1, 10]), ``arg_count`` (``"uniform"`` or
    ``"by_expressions"``, below), ``split_rule`` (see :func:`split_rule_function`).

    ``arg_count="by_expressions"`` changes one thing: a node whose arguments are all digits (a
    depth-1 node) draws its number of arguments :math:`n` with probability proportional to the
    number of such expressions, :math:`10^n`, so flat expressions are *uniform* over their space
    (with 4 arguments at most: 2-argument ones are 0.9%, not a third). Sampling without
    replacement from a uniform distribution keeps it uniform, so at nesting 1, where the whole
    space holds only :math:`3 (10^2 + 10^3 + 10^4) = 33{,}300` expressions, the splits stay
    identically distributed even when they take a large part of the space. With ``"uniform"``
    the two-argument kind (300 expressions) runs out long before a training set of thousands is
    complete, which the split rule reports as an error.
    """
    max_depth = check_int("max_depth", max_depth, 1, 10)
    min_depth = check_int("min_depth", min_depth, 1, max_depth)
    max_args = check_int("max_args", max_args, 2, 10)
    if arg_count not in ("uniform", "by_expressions"):
        raise ValueError(f"arg_count must be 'uniform' or 'by_expressions', got {arg_count!r}")
    flat_weights = np.array([10.0**k for k in range(2, max_args + 1)])
    flat_cdf = (np.cumsum(flat_weights) / flat_weights.sum()).tolist()
    train_range = (min_depth, max_depth)
    test_range = check_range(
        "test_depth_range", train_range if test_depth_range is None else test_depth_range, 1, 10
    )
    deepest = max(max_depth, test_range[1])
    if seq_len is None:
        seq_len = listops_max_len(deepest, max_args)
    seq_len = check_int("seq_len", seq_len, 4 * deepest + 1)
    sizes = split_sizes(n_train, n_val, n_test)
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
                if depth == 1 and arg_count == "by_expressions":
                    u = draw(1_000_000) / 1_000_000
                    n_args = 2 + next(
                        i for i, c in enumerate(flat_cdf) if u < c or i == len(flat_cdf) - 1
                    )
                else:
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
    splits = split_rule_function(split_rule)("listops", seed, sizes, samplers)
    return TaskData(
        name="listops",
        kind="classify",
        **to_tensors(splits),
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
            "arg_count": arg_count,
            "split_rule": split_rule,
            "tokens": list(_LISTOPS_TOKENS),
            "pad_id": _LISTOPS_PAD,
            "sizes": sizes,
        },
    )
