"""scikit-learn's bundled handwritten digits, read one pixel row per time step."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from rnnlab.core.tasks.base import (
    TaskData,
    split_rng,
    split_sizes,
    to_tensors,
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


def digits_generator(*, n_train: int, n_val: int, n_test: int, seed: int) -> TaskData:
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
    sizes = split_sizes(n_train, n_val, n_test)
    if sum(sizes.values()) > _DIGITS_TOTAL:
        raise ValueError(
            f"n_train + n_val + n_test must be <= {_DIGITS_TOTAL} for digits, got "
            f"{n_train} + {n_val} + {n_test} = {sum(sizes.values())}"
        )
    images, labels = _load_digits()
    order = split_rng(seed, "digits", "train").permutation(len(labels))
    index = {
        "train": order[: sizes["train"]],
        "val": order[len(order) - sizes["test"] - sizes["val"] : len(order) - sizes["test"]],
        "test": order[len(order) - sizes["test"] :],
    }
    splits = {s: (images[i], labels[i]) for s, i in index.items()}
    return TaskData(
        name="digits",
        kind="classify",
        **to_tensors(splits),
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
