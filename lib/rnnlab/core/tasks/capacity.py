r"""A capacity probe: memorise random labels of random sequences, and count the bits stored.

In the spirit of the per-parameter capacity experiments of Collins, Sohl-Dickstein and Sussillo,
*Capacity and Trainability in Recurrent Neural Networks*, ICLR 2017 (arXiv:1611.09913): a
network is trained on inputs and labels that are independent random draws, so nothing can be
learnt except the training set itself, and the information its predictions carry about the
labels is information stored in its parameters. Collins et al. report that, with careful
tuning, every common RNN cell stores about 5 bits per parameter (abstract), a bound that grows
linearly with the number of parameters and is nearly the same for all the cells they compared.

The estimator used here is the mutual information between the true label :math:`Y` and the
prediction :math:`\hat Y` over the training examples, computed from the accuracy alone under a
*symmetric-error* assumption (a wrong prediction is equally likely to be any wrong class; the
:math:`C`-ary symmetric channel of Cover & Thomas, *Elements of Information Theory*, 2nd ed.,
2006, Sec. 7.1.5 and Fano's inequality, Sec. 2.10):

.. math::

    I(Y; \hat Y) = \log_2 C - H_2(\varepsilon) - \varepsilon \log_2 (C - 1)
    \quad\text{bits per example},\qquad \varepsilon = 1 - \text{accuracy},

with :math:`H_2` the binary entropy. For uniform labels this is the *least* information any
predictor with error rate :math:`\varepsilon` can carry (Fano), so the bits it reports are a
conservative count. Perfect memorisation gives :math:`\log_2 C` bits per example, chance
(:math:`\varepsilon = 1 - 1/C`) gives 0. For :math:`C = 2`,
:math:`I = 1 - H_2(\varepsilon)`. :func:`empirical_information_bits` gives the plug-in estimate
from the confusion matrix instead (no symmetry assumption; biased upwards for small samples).

We could not check, from here, the exact estimator and input format Collins et al. used for
their capacity task; the bits computed here are a mutual-information count of the kind they
report, not a reproduction of their numbers.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np
import torch

from rnnlab.core.tasks.base import TaskData, check_int, split_rng, split_sizes

_BATCH = 1024

__all__ = [
    "binary_entropy",
    "bits_per_parameter",
    "empirical_information_bits",
    "memorized_bits",
    "symmetric_information_bits",
]


# --------------------------------------------------------------------------------------------
# The task
# --------------------------------------------------------------------------------------------


def memorize_generator(
    *,
    n_train: int,
    n_val: int,
    n_test: int,
    seed: int,
    seq_len: int = 16,
    num_tokens: int = 8,
    num_classes: int = 2,
) -> TaskData:
    r"""Memorise: give each of ``n_train`` fixed random sequences its own random label.

    Input ``x`` is ``(N, seq_len)`` int64, tokens drawn independently and uniformly from
    ``{0, ..., num_tokens - 1}`` (vocabulary = ``num_tokens``); every training sequence is
    distinct (repeats are redrawn, so no two copies of one input carry different labels). Each
    sequence gets a label drawn uniformly from ``{0, ..., num_classes - 1}``, independently of
    the input. Kind ``classify``, metric ``accuracy``. The labels hold
    :math:`n \log_2 C` bits, and since input and label are independent, no rule generalises: a
    model can only *memorise* them, so accuracy on the training set measures storage, not
    learning (see :func:`memorized_bits`).

    **Validation and test are the training set.** ``x_val, y_val`` are the first ``n_val``
    training examples and ``x_test, y_test`` the first ``n_test`` (so ``n_val`` and ``n_test``
    must be at most ``n_train``; pass ``n_test = n_train`` to score the whole set the bits are
    counted on). This deliberately breaks the rule of the other tasks that evaluation examples
    never occur in training: here there is nothing else to evaluate. As for every task the
    training sets are nested (the first ``n`` examples of a larger ``n_train`` are those of
    ``n_train = n``), and randomness comes from a private generator seeded by ``seed``.

    Options: ``seq_len=16`` (>= 1), ``num_tokens=8`` (in [2, 1000]), ``num_classes=2`` (in
    [2, 1000]); ``num_tokens ** seq_len`` must be at least ``2 * n_train``.
    """
    seq_len = check_int("seq_len", seq_len, 1)
    num_tokens = check_int("num_tokens", num_tokens, 2, 1000)
    num_classes = check_int("num_classes", num_classes, 2, 1000)
    sizes = split_sizes(n_train, n_val, n_test)
    n = sizes["train"]
    for split in ("val", "test"):
        if sizes[split] > n:
            raise ValueError(
                f"n_{split} must be an integer in [0, n_train={n}] for memorize (its "
                f"{split} set is a prefix of the training set), got {sizes[split]}"
            )
    if num_tokens**seq_len < 2 * n:
        raise ValueError(
            f"n_train must be at most num_tokens ** seq_len / 2 = {num_tokens**seq_len // 2} "
            f"distinct sequences for num_tokens={num_tokens}, seq_len={seq_len}, got {n}"
        )
    rng = split_rng(seed, "memorize", "train")
    seen: set[bytes] = set()
    xs, ys, have = [], [], 0
    while have < n:  # fixed-size batches: the first n rows never depend on n (nested sets)
        x = rng.integers(0, num_tokens, size=(_BATCH, seq_len), dtype=np.int64)
        y = rng.integers(0, num_classes, size=_BATCH, dtype=np.int64)
        keep = np.zeros(_BATCH, dtype=bool)
        for i, row in enumerate(x):
            key = row.tobytes()
            if key not in seen:
                seen.add(key)
                keep[i] = True
        xs.append(x[keep])
        ys.append(y[keep])
        have += int(keep.sum())
    x_train = torch.from_numpy(np.concatenate(xs)[:n])
    y_train = torch.from_numpy(np.concatenate(ys)[:n])
    return TaskData(
        name="memorize",
        kind="classify",
        x_train=x_train,
        y_train=y_train,
        x_val=x_train[: sizes["val"]].clone(),
        y_val=y_train[: sizes["val"]].clone(),
        x_test=x_train[: sizes["test"]].clone(),
        y_test=y_train[: sizes["test"]].clone(),
        vocab_size=num_tokens,
        input_features=None,
        num_classes=num_classes,
        metric="accuracy",
        info={
            "seed": seed,
            "seq_len": seq_len,
            "num_tokens": num_tokens,
            "num_classes": num_classes,
            "tokens": [str(v) for v in range(num_tokens)],
            "sizes": sizes,
            "eval_is_train_prefix": True,
            "label_bits": n * math.log2(num_classes),
        },
    )


# --------------------------------------------------------------------------------------------
# Bits stored
# --------------------------------------------------------------------------------------------


def _check_fraction(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    return v


def binary_entropy(p: float) -> float:
    r""":math:`H_2(p) = -p \log_2 p - (1 - p) \log_2 (1 - p)` in bits, with :math:`0 \log 0 = 0`."""
    p = _check_fraction("p", p)
    return -sum(q * math.log2(q) for q in (p, 1.0 - p) if q > 0.0)


def symmetric_information_bits(accuracy: float, num_classes: int) -> float:
    r"""Mutual information :math:`I(Y; \hat Y)` per example, in bits, from the accuracy alone.

    .. math::

        I = \log_2 C - H_2(\varepsilon) - \varepsilon \log_2 (C - 1),
        \qquad \varepsilon = 1 - \text{accuracy},

    assuming uniform labels and errors spread evenly over the :math:`C - 1` wrong classes (the
    :math:`C`-ary symmetric channel). It is :math:`\log_2 C` at accuracy 1, 0 at chance
    (accuracy :math:`1/C`), and rises again below chance, where predictions that avoid the true
    class also carry information. Clipped at 0 against rounding.
    """
    acc = _check_fraction("accuracy", accuracy)
    c = check_int("num_classes", num_classes, 2)
    eps = 1.0 - acc
    value = math.log2(c) - binary_entropy(eps) - (eps * math.log2(c - 1) if eps > 0 else 0.0)
    return max(0.0, value)


def memorized_bits(accuracy: float, n: int, num_classes: int) -> float:
    r"""Bits stored about ``n`` random labels, from the accuracy on those ``n`` examples:

    .. math:: B = n \left(\log_2 C - H_2(\varepsilon) - \varepsilon \log_2 (C-1)\right),

    (:func:`symmetric_information_bits`). Perfect memorisation stores :math:`n \log_2 C`, all the
    labels hold; chance stores 0. Use the accuracy on the *whole* training set (``n_test =
    n_train`` for the ``memorize`` task), or on a prefix of it as an estimate.
    """
    count = check_int("n", n, 0)
    return count * symmetric_information_bits(accuracy, num_classes)


def bits_per_parameter(accuracy: float, n: int, num_classes: int, param_count: int) -> float:
    r""":func:`memorized_bits` divided by the model's parameter count: the quantity Collins et
    al. (2017) find to be about 5 for every common RNN cell at capacity. Only a model trained
    past the point where it can store all the labels measures its capacity; below that, the bits
    are bounded by :math:`n \log_2 C`, not by the model."""
    params = check_int("param_count", param_count, 1)
    return memorized_bits(accuracy, n, num_classes) / params


def empirical_information_bits(
    y_true: Sequence[int] | np.ndarray | torch.Tensor,
    y_pred: Sequence[int] | np.ndarray | torch.Tensor,
    num_classes: int,
) -> float:
    r"""Total bits :math:`n\,\hat I(Y; \hat Y)` from the plug-in (empirical) joint distribution.

    .. math::

        \hat I = \sum_{a, b} \hat p(a, b) \log_2 \frac{\hat p(a, b)}{\hat p(a)\,\hat p(b)},

    with :math:`\hat p` the normalised confusion matrix. It needs no symmetry assumption, but is
    biased upwards by about :math:`(C - 1)^2 / (2 n \ln 2)` bits per example when :math:`Y` and
    :math:`\hat Y` are independent (Miller-Madow), which matters for small :math:`n`.
    """
    c = check_int("num_classes", num_classes, 2)
    t = np.asarray(torch.as_tensor(y_true).cpu(), dtype=np.int64).reshape(-1)
    p = np.asarray(torch.as_tensor(y_pred).cpu(), dtype=np.int64).reshape(-1)
    if t.shape != p.shape:
        raise ValueError(f"y_pred must have the shape of y_true {t.shape}, got {p.shape}")
    for name, v in (("y_true", t), ("y_pred", p)):
        if v.size and (v.min() < 0 or v.max() >= c):
            raise ValueError(
                f"{name} must hold class ids in [0, {c - 1}], got {v.min()}..{v.max()}"
            )
    n = t.size
    if n == 0:
        return 0.0
    joint = np.zeros((c, c))
    np.add.at(joint, (t, p), 1.0)
    joint /= n
    outer = joint.sum(1, keepdims=True) * joint.sum(0, keepdims=True)
    nz = joint > 0
    return float(n * np.sum(joint[nz] * np.log2(joint[nz] / outer[nz])))
