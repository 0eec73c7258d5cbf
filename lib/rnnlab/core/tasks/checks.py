r"""Do train, validation and test follow the same distribution? A statistical check.

A split rule can keep the splits disjoint and still make them *different*: version 1 of the
course drew the ListOps test set first and the training set last, and at nesting 1 the training
set ended up with no two-argument expression at all. Disjointness tests cannot see that. This
module compares the splits on the features that define the task's difficulty:

* ``length``: the number of real (non-padding) tokens,
* ``depth``: the nesting depth (the deepest bracket level),
* ``args``: the number of arguments of the outermost operator (ListOps only).

For each feature it runs Pearson's :math:`\chi^2` test of homogeneity on the
``3 x k`` table of counts (splits x feature values, with rare values pooled so that every
expected count is at least 5). Under the hypothesis that the three splits are samples of one
distribution, the p-value is uniform; a tiny one (say below :math:`10^{-3}`) means they differ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from rnnlab.core.tasks.base import SPLITS, TaskData


def _listops_features(x: np.ndarray, pad: int) -> dict[str, np.ndarray]:
    open_, close = 13, 14
    real = x != pad
    length = real.sum(axis=1)
    step = np.where(x == open_, 1, np.where(x == close, -1, 0))
    level = np.cumsum(step, axis=1)
    depth = level.max(axis=1)
    # top-level arguments: a digit at level 1, or a "[" that opens level 2
    starts_digit = (x <= 9) & real & (level == 1)
    starts_sub = (x == open_) & (level == 2)
    args = (starts_digit | starts_sub).sum(axis=1)
    return {"length": length, "depth": depth, "args": args}


def _dyck_features(x: np.ndarray, pad: int) -> dict[str, np.ndarray]:
    k = pad // 2
    real = x != pad
    step = np.where(real & (x < k), 1, np.where(real, -1, 0))
    return {"length": real.sum(axis=1), "depth": np.cumsum(step, axis=1).max(axis=1)}


def split_features(data: TaskData) -> dict[str, dict[str, np.ndarray]]:
    """``{split: {feature: (N,) array}}`` for a ListOps or Dyck task (see the module docstring)."""
    if data.name not in ("listops", "dyck"):
        raise ValueError(f"data.name must be 'listops' or 'dyck', got {data.name!r}")
    pad = int(data.info["pad_id"])
    fn = _listops_features if data.name == "listops" else _dyck_features
    return {s: fn(getattr(data, f"x_{s}").numpy(), pad) for s in SPLITS}


@dataclass(frozen=True)
class Homogeneity:
    """One feature's :math:`\\chi^2` test of homogeneity across the splits."""

    feature: str
    chi2: float
    dof: int
    p_value: float
    shares: dict[str, dict[int, float]]  # split -> value -> share of that split


def _pooled_table(columns: list[np.ndarray]) -> tuple[np.ndarray, list[int]]:
    values = sorted(set(np.concatenate(columns).tolist()))
    table = np.array([[int((c == v).sum()) for v in values] for c in columns], dtype=float)
    # pool adjacent values until every expected count is >= 5
    while table.shape[1] > 1:
        expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
        j = int(np.argmin(expected.min(axis=0)))
        if expected[:, j].min() >= 5:
            break
        k = j + 1 if j + 1 < table.shape[1] else j - 1
        table[:, min(j, k)] += table[:, max(j, k)]
        table = np.delete(table, max(j, k), axis=1)
        values.pop(max(j, k))
    return table, values


def split_homogeneity(data: TaskData, splits: tuple[str, ...] = SPLITS) -> dict[str, Homogeneity]:
    """The :math:`\\chi^2` homogeneity test of every feature across ``splits``.

    Pass ``splits=("train", "val")`` for a task whose test set is *meant* to differ (an
    out-of-distribution test on deeper nesting). A feature that is constant across all splits
    gets ``p_value = 1``.
    """
    feats = split_features(data)
    out = {}
    for name in feats[splits[0]]:
        cols = [feats[s][name] for s in splits if len(feats[s][name])]
        table, _ = _pooled_table(cols)
        shares = {
            s: {
                int(v): float((feats[s][name] == v).mean())
                for v in sorted(set(feats[s][name].tolist()))
            }
            for s in splits
            if len(feats[s][name])
        }
        if table.shape[1] < 2:
            out[name] = Homogeneity(name, 0.0, 0, 1.0, shares)
            continue
        chi2, p, dof, _ = _st.chi2_contingency(table, correction=False)
        out[name] = Homogeneity(name, float(chi2), int(dof), float(p), shares)
    return out
