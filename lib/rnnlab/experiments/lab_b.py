"""Lab B: generation and transduction (Dyck languages in and out of distribution, character LMs)."""

from __future__ import annotations

from rnnlab.core.config import TrainConfig
from rnnlab.experiments.experiment import Experiment
from rnnlab.experiments.lab import (
    LM_LR_GRID,
    LR_GRID,
    SMOKE_TRAIN,
    Claim,
    Lab,
    charlm_windows,
    lab_grid,
)

# Lab B: generation and transduction -------------------------------------------------------------


DYCK_IN = (("seq_len", 96), ("max_depth", 12), ("depth_sampling", "uniform"))
"""Dyck in distribution (gpu): strings of 96 brackets, nesting depth uniform in 1..12 (version 1's
64 and 1..8 left both depths at 0.99+ sequence accuracy, where nothing can be told apart)."""
DYCK_OOD = (
    ("seq_len", 96),
    ("max_depth", 12),
    ("depth_sampling", "uniform"),
    ("depth_range", (1, 8)),
    ("test_depth_range", (9, 12)),
)
"""Dyck out of distribution (gpu): trained on nesting 1..8, tested on 9..12 (same string length)."""
DYCK_IN_CPU = (("seq_len", 64), ("max_depth", 12), ("depth_sampling", "uniform"))
"""Dyck in distribution (cpu): the same nesting 1..12 in strings of 64 brackets."""
DYCK_OOD_CPU = (
    ("seq_len", 64),
    ("max_depth", 12),
    ("depth_sampling", "uniform"),
    ("depth_range", (1, 8)),
    ("test_depth_range", (9, 12)),
)
"""Dyck out of distribution (cpu): strings of 64, trained on nesting 1..8, tested on 9..12."""


def _lab_b(profile: str) -> tuple[Experiment, ...]:
    corpora = ("charlm-english", "charlm-python")
    if profile == "smoke":
        common = dict(depths=(1, 2), train=SMOKE_TRAIN, lr_grid=(3e-3,), n_val=16, n_test=16)
        out = []
        for task in corpora:
            out += lab_grid(
                task=task,
                budgets=(12_000,),
                n_train=64,
                options=(("seq_len", 32),),
                labels=(("corpus", task.split("-")[1]),),
                **common,
            )
        out += lab_grid(
            task="dyck",
            budgets=(3000,),
            n_train=128,
            options=(("seq_len", 32), ("max_depth", 8), ("depth_sampling", "uniform")),
            labels=(("split", "in-distribution"),),
            **common,
        )
        out += lab_grid(
            task="dyck",
            budgets=(3000,),
            n_train=128,
            options=(
                ("seq_len", 32),
                ("max_depth", 8),
                ("depth_sampling", "uniform"),
                ("depth_range", (1, 4)),
                ("test_depth_range", (5, 8)),
            ),
            labels=(("split", "deeper test"),),
            **common,
        )
        return tuple(out)
    big = profile == "gpu"
    depths = (1, 2, 4)
    seq_len = 128 if big else 64
    lm_train = TrainConfig(
        max_steps=10_000 if big else 1_500,
        batch_size=64 if big else 32,
        eval_every=250 if big else 100,
        warmup_steps=100,
    )
    # cpu: sized to about 30 min on 2 cores (measured on one core: 23-28 ms per step at 25K
    # parameters, 60-82 ms at 100K), so one corpus at one budget; the budget x length map of
    # the scale experiment covers the rest.
    lm_budgets = {
        "charlm-english": (100_000, 400_000, 1_000_000) if big else (25_000,),
        "charlm-python": (100_000, 400_000, 1_000_000) if big else (),
    }
    out = []
    for task in corpora:
        if not lm_budgets[task]:
            continue
        windows = charlm_windows(task, seq_len)
        out += lab_grid(
            task=task,
            budgets=lm_budgets[task],
            depths=depths,
            n_train=windows["train"],  # every training window
            n_val=windows["val"] // 2,  # each seed scores a different random half
            n_test=windows["test"] // 2,
            options=(("seq_len", seq_len),),
            embedding_dim=32,
            train=lm_train,
            lr_grid=LM_LR_GRID,
            labels=(("corpus", task.split("-")[1]),),
        )
    # cpu: depths 1 and 2 only on Dyck (measured 36-63 ms per step at length 96 on one core).
    dyck_train = TrainConfig(max_steps=6_000 if big else 1_500, batch_size=64, eval_every=100)
    dyck = (
        ((DYCK_IN, "in-distribution"), (DYCK_OOD, "deeper test"))
        if big
        else (
            (DYCK_IN_CPU, "in-distribution"),
            (DYCK_OOD_CPU, "deeper test"),
        )
    )
    for options, split in dyck:
        out += lab_grid(
            task="dyck",
            budgets=(10_000, 40_000) if big else (10_000,),
            depths=depths if big else (1, 2),
            n_train=20_000,
            n_val=1_000,
            n_test=2_000,
            options=options,
            train=dyck_train,
            lr_grid=LR_GRID,
            labels=(("split", split),),
        )
    return tuple(out)


LAB_B = Lab(
    name="lab-b",
    title="Lab B: generation and transduction (depth?)",
    description="Character-level LMs on English and Python source, and Dyck-2 transduction "
    "by nesting depth: do 2-4 layer stacks beat one wide layer at equal parameters?",
    claims=(
        Claim(
            "b",
            "Deep-narrow LSTMs (2-4 layers) work better on generation and transduction tasks "
            "with multi-level structure.",
            "depth",
        ),
    ),
    experiments=_lab_b,
)
