"""Lab C: compositional structure x data size (ListOps)."""

from __future__ import annotations

from rnnlab.core.config import TrainConfig
from rnnlab.experiments.experiment import Experiment
from rnnlab.experiments.lab import (
    LR_GRID,
    SMOKE_TRAIN,
    Claim,
    Lab,
    lab_grid,
)

# Lab C: compositional structure x data size -----------------------------------------------------


LISTOPS_COMMON = (("max_args", 4), ("arg_count", "by_expressions"))
"""Version 2's ListOps: at most 4 arguments, flat expressions uniform over their space, so at
nesting 1 (33,300 expressions) the splits are identically distributed (see the task's doc)."""


def listops_options(train_nesting: tuple[int, int], test_nesting: int, cap: int = 64) -> tuple:
    lo, hi = train_nesting
    opts = (("min_depth", lo), ("max_depth", hi), *LISTOPS_COMMON)
    if test_nesting != hi:
        opts += (("test_depth_range", (test_nesting, test_nesting)),)
    if max(hi, test_nesting) >= 3:
        opts += (("seq_len", cap),)  # caps the longest nesting-3 expressions (rejected, all splits)
    return opts


def _lab_c(profile: str) -> tuple[Experiment, ...]:
    if profile == "smoke":
        nestings, sizes, ood_sizes = (1, 2), (64, 128), (128,)
        lr_grid, n_val, n_test, budgets = (3e-3,), 32, 32, (3000,)
        cap = 64

        def train_for(nesting: int) -> TrainConfig:
            return SMOKE_TRAIN
    else:
        big = profile == "gpu"
        # cpu: sized to about 30 min on 2 cores (measured on one core of the reference machine:
        # about 4, 9 and 13 ms per step at nesting 1, 2 and 3, nesting 3 capped at 48 tokens):
        # longer training where the expressions are deeper, and the deeper-test cell at the
        # largest training set only.
        nestings = (1, 2, 3)
        sizes = (500, 4_000, 32_000) if big else (500, 2_000, 8_000)
        ood_sizes = sizes[1:] if big else sizes[-1:]
        lr_grid, n_val, n_test = LR_GRID, 1_000, 2_000
        budgets = (40_000,) if big else (20_000,)
        steps = {1: 3_000, 2: 5_000, 3: 8_000} if big else {1: 1_000, 2: 1_500, 3: 2_000}
        cap = 64 if big else 48

        def train_for(nesting: int) -> TrainConfig:
            return TrainConfig(max_steps=steps[nesting], batch_size=64, eval_every=100)

    out = []
    deepest = max(nestings)
    for nesting in nestings:
        for n_train in sizes:
            out += lab_grid(
                task="listops",
                budgets=budgets,
                depths=(1, 2),
                n_train=n_train,
                n_val=n_val,
                n_test=n_test,
                options=listops_options((nesting, nesting), nesting, cap),
                train=train_for(nesting),
                lr_grid=lr_grid,
                labels=(("nesting", nesting), ("n_train", n_train), ("split", "in-distribution")),
            )
    for n_train in ood_sizes:  # trained on nesting 1..deepest-1, tested on the deepest
        out += lab_grid(
            task="listops",
            budgets=budgets,
            depths=(1, 2),
            n_train=n_train,
            n_val=n_val,
            n_test=n_test,
            options=listops_options((1, deepest - 1), deepest, cap),
            train=train_for(deepest - 1),  # as long as its training nestings get
            lr_grid=lr_grid,
            labels=(("nesting", deepest), ("n_train", n_train), ("split", "deeper test")),
        )
    return tuple(out)


LAB_C = Lab(
    name="lab-c",
    title="Lab C: compositional structure x data size",
    description="ListOps (MAX/MIN/sum-mod-10) over nesting depth x training-set size: "
    "does depth win with strong composition and width with little data?",
    claims=(
        Claim(
            "c1",
            "At equal parameters, depth wins when compositional structure is strong "
            "(judged at the deepest nesting, every data size).",
            "depth",
            where=(("nesting", "max"),),
        ),
        Claim(
            "c2",
            "At equal parameters, width wins when data is limited "
            "(judged at the smallest training set, every nesting depth).",
            "width",
            where=(("n_train", "min"),),
        ),
    ),
    experiments=_lab_c,
)
