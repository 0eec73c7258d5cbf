"""The labs and the profiles, as data.

A **profile** says how much compute a run of a lab may use:

* ``smoke``: CI and the book build. Every lab in seconds on 2 CPU cores. It checks that the code
  paths work and is **never** shown as evidence.
* ``cpu``: a student without a GPU. Each lab in at most about 30 minutes on 2 CPU cores, with at
  least 5 seeds; the reference results committed in ``data/results/`` come from this profile.
* ``colab``: the default on a Colab GPU, bounded to about 15 minutes per lab on a free T4: the
  ``cpu`` design at the learning rates the committed reference results tuned (no tuning runs),
  with 3 reporting seeds. :func:`colab_estimate` says how long it should take, and from what.
* ``gpu``: a Colab-class GPU. Larger budgets (up to about 1M parameters for the character LM)
  and longer training; one explicit argument away (``RNNLAB_PROFILE=gpu``).

``RNNLAB_PROFILE`` picks the profile; when unset, ``colab`` on Colab with a GPU, ``gpu`` with CUDA
elsewhere, else ``cpu``.

A **lab** is a claim of the seed text turned into a pre-declared test: the experiments (tasks ×
budgets × depths), the reporting seeds, and the claims, each with the side it says wins and the
cells of the design it is judged on. :mod:`rnnlab.evidence.analysis` computes the verdicts.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from rnnlab.core.paths import shown_path
from rnnlab.core.train import TrainConfig
from rnnlab.experiments.console import parse_seeds, run_console
from rnnlab.experiments.experiment import Experiment
from rnnlab.experiments.store import eval_records, load_results
from rnnlab.experiments.sweep import SweepRecords, SweepSpec, shard

# ----------------------------------------------------------------------------- profiles


@dataclass(frozen=True)
class Profile:
    """How much compute a lab run may use (see the module docstring)."""

    name: str
    description: str
    evidence: bool  # may its results be shown as evidence?
    seeds: tuple[int, ...]
    target: str  # the time each lab is designed to take


#: The cpu profile's design target: every lab within this many minutes on 2 CPU cores. The one
#: place the number lives (the profile's ``target``, ``benchmarks/time_labs.py`` and the README's
#: profile table use it; ``tests/test_status.py`` checks the README).
CPU_TARGET_MINUTES = 30

PROFILES: dict[str, Profile] = {
    "smoke": Profile(
        "smoke",
        "CI and book-build check of the code paths; tiny models, a few steps. Never evidence.",
        evidence=False,
        seeds=(0, 1),
        target="<= 20 s per lab on 2 CPU cores",
    ),
    "cpu": Profile(
        "cpu",
        "A student without a GPU: small budgets, 5 seeds, fixed-length schedules.",
        evidence=True,
        seeds=(0, 1, 2, 3, 4),
        target=f"<= {CPU_TARGET_MINUTES} min per lab on 2 CPU cores (make results runs two jobs)",
    ),
    "reference": Profile(
        "reference",
        "Hours of CPU compute, run in the background and resumable, committed so that nobody "
        "has to rerun it: what the cpu profile cannot reach on 2 cores in "
        f"{CPU_TARGET_MINUTES} min (Lab D only).",
        evidence=True,
        seeds=(0, 1, 2, 3, 4),
        target="a few core-hours on a CPU (measured wall time in the results)",
    ),
    "colab": Profile(
        "colab",
        "A free Colab GPU, about 15 minutes per lab: the cpu design at the reference results' "
        "tuned learning rates (no tuning), 3 seeds. A replication; the committed cpu results "
        "stay the evidence. Longer: RNNLAB_PROFILE=gpu.",
        evidence=True,
        seeds=(0, 1, 2),
        target="about 15 min per lab on a free Colab T4 (an estimate: see colab_estimate)",
    ),
    "gpu": Profile(
        "gpu",
        "A Colab-class GPU: budgets up to about 1M parameters, longer training, 5 seeds.",
        evidence=True,
        seeds=(0, 1, 2, 3, 4),
        target="budgets up to about 1M parameters on one GPU (GPU time not yet measured)",
    ),
}


#: How many times as fast as one CPU core a free Colab T4 is assumed to train the cpu design's
#: small LSTMs (batch 32, at most a few hundred thousand parameters: launch-bound on a GPU).
#: An ASSUMPTION, not a measurement: :func:`colab_estimate` prints it with every estimate.
COLAB_T4_SPEEDUP = 2.0
#: The time the ``colab`` profile is sized for, per lab.
COLAB_TARGET_MINUTES = 15.0


def _on_colab() -> bool:
    import sys

    return "google.colab" in sys.modules


def resolve_profile(name: str | None = None) -> Profile:
    """The profile called ``name``, else ``$RNNLAB_PROFILE``, else ``colab`` on Colab with a GPU,
    ``gpu`` with CUDA elsewhere, else ``cpu``."""
    choice = name or os.environ.get("RNNLAB_PROFILE")
    if not choice:
        import torch

        if torch.cuda.is_available():
            choice = "colab" if _on_colab() else "gpu"
        else:
            choice = "cpu"
    if choice not in PROFILES:
        raise ValueError(f"profile must be one of {sorted(PROFILES)}, got {choice!r}")
    return PROFILES[choice]


# ----------------------------------------------------------------------------- budgets


@functools.lru_cache(maxsize=32)
def task_example(task: str, options: tuple):
    """A one-example instance of a task: its kind, vocabulary and classes, cheaply."""
    from rnnlab.core.tasks import make_task

    return make_task(task, n_train=1, n_val=1, n_test=1, seed=0, **dict(options))


def fit_budget(
    target: int,
    depths: tuple[int, ...],
    *,
    task: str,
    options: tuple = (),
    embedding_dim: int | None = 16,
    tolerance: float = 0.02,
    variants: tuple[tuple[tuple[str, object], ...], ...] = ((),),
) -> int:
    """The budget nearest ``target`` that every depth in ``depths`` can match within
    ``tolerance`` (with each of ``variants``: model options as ``(name, value)`` pairs for
    :func:`rnnlab.core.models.matched_config_for_task`, default the plain stack).

    Widths are integers, so at small budgets one unit of width can move the count by several
    per cent; this searches budgets ``target``, ``target ± 0.5%``, ... (up to ±15%) and returns the
    first one every depth reaches within ``tolerance``.
    """
    from rnnlab.core.models import matched_config_for_task

    example = task_example(task, options)
    for k in range(0, 31):
        for sign in (1, -1) if k else (1,):
            budget = round(target * (1 + sign * 0.005 * k))
            try:
                for variant in variants:
                    for depth in depths:
                        matched_config_for_task(
                            example,
                            budget=budget,
                            num_layers=depth,
                            embedding_dim=embedding_dim,
                            tolerance=tolerance,
                            **dict(variant),
                        )
            except ValueError:
                continue
            return budget
    raise ValueError(
        f"no budget within 15% of target={target} matches depths {depths} within {tolerance:.0%} "
        f"for task {task!r}; choose a larger budget"
    )


# ----------------------------------------------------------------------------- labs


@dataclass(frozen=True)
class Claim:
    """A claim of the seed text as a pre-declared test.

    ``direction`` is the side the claim says wins (``"width"``: the one-layer model;
    ``"depth"``: the deep one). ``where`` picks the cells it is judged on: pairs of a label and a
    value, where the value ``"max"`` or ``"min"`` means the largest or smallest value of that label
    in the design.
    """

    id: str
    statement: str
    direction: str
    where: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class DesignClaim(Claim):
    """A claim of the design chapter (Lab D), judged by a test other than "L=1 against L=2".

    ``test`` names the pre-declared comparison (:func:`rnnlab.evidence.analysis.design_cells`):

    * ``"gap_closure"``: per seed, the gap of the ``fix`` stack to its own one-layer model minus
      the gap of the ``base`` stack to its own (a difference of paired differences, oriented so
      that > 0 means the fix narrows the gap), at every depth > 1 of every cell holding both
      stacks; the margin is the task metric's (:data:`rnnlab.evidence.stats.PLAN_V2`);
    * ``"equivalence"``: ``metric`` (``"bits_per_parameter"``, from the memorize probe) of every
      depth > 1 against one layer, paired by seed, with the declared ``margin`` in the metric's
      units; the claim says *equivalent*. A cell where both depths stay below ``floor`` is
      *not informative*: models that stored that little were not filled, and equal small
      numbers would say nothing.

    A gap-closure cell that supports the claim *narrows* the gap; it *closes* it only when the
    fixed stack is also equivalent to its own one-layer model
    (:func:`rnnlab.evidence.analysis.closes_gap`).

    ``label`` is the experiment label that names the stack (``"stack"``).
    """

    test: str = "gap_closure"
    label: str = "stack"
    base: str = "plain"
    fix: str = "residual-ln"
    metric: str | None = None
    margin: float | None = None
    floor: float | None = None


@dataclass(frozen=True)
class Lab:
    """A lab: its claims and, per profile, its experiments."""

    name: str
    title: str
    description: str
    claims: tuple[Claim, ...]
    experiments: Callable[[str], tuple[Experiment, ...]]
    wide: int = 1  # the width side of the primary comparison
    deep: int = 2  # the depth side of the primary comparison (others are reported too)
    profiles: tuple[str, ...] = ("smoke", "cpu", "gpu")  # the profiles this lab defines

    def sweep(self, profile: str, seeds: tuple[int, ...] | None = None) -> SweepSpec:
        prof = resolve_profile(profile)
        allowed = [*self.profiles, *(["colab"] if "cpu" in self.profiles else [])]
        if prof.name not in allowed:
            raise ValueError(f"profile must be one of {allowed} for {self.name}, got {prof.name!r}")
        if prof.name == "colab":  # the cpu design at the reference's tuned rates
            experiments = at_reference_rates(self.name, self.experiments("cpu"))
        else:
            experiments = self.experiments(prof.name)
        return SweepSpec(
            lab=self.name,
            profile=prof.name,
            experiments=experiments,
            seeds=tuple(seeds) if seeds is not None else prof.seeds,
        )


def _grid(
    *,
    task: str,
    budgets: tuple[int, ...],
    depths: tuple[int, ...],
    n_train: int,
    n_val: int,
    n_test: int,
    train: TrainConfig,
    lr_grid: tuple[float, ...],
    options: tuple = (),
    embedding_dim: int | None = 16,
    labels: tuple = (),
) -> list[Experiment]:
    out = []
    for target in budgets:
        budget = fit_budget(target, depths, task=task, options=options, embedding_dim=embedding_dim)
        for depth in depths:
            out.append(
                Experiment(
                    task=task,
                    budget=budget,
                    num_layers=depth,
                    n_train=n_train,
                    n_val=n_val,
                    n_test=n_test,
                    task_options=options,
                    embedding_dim=embedding_dim,
                    train=train,
                    lr_grid=lr_grid,
                    labels=(("task", task), ("budget_target", target), *labels),
                )
            )
    return out


SMOKE_TRAIN = TrainConfig(max_steps=12, batch_size=16, eval_every=6, patience=None)


def log_grid(centre: float, points: int = 3, step: float = 10**0.5) -> tuple[float, ...]:
    """A log-spaced learning-rate grid of ``points`` rates around ``centre`` (ratio ``step``)."""
    half = (points - 1) / 2
    return tuple(float(f"{centre * step ** (i - half):.6g}") for i in range(points))


LR_GRID = log_grid(1e-2)  # 3.16e-3, 1e-2, 3.16e-2: version 1 chose its top (1e-2) most often
LM_LR_GRID = log_grid(1e-2, step=2.0)  # 5e-3, 1e-2, 2e-2: version 1 chose its top (5e-3) always


def charlm_windows(task: str, seq_len: int) -> dict[str, int]:
    """How many windows of ``seq_len`` characters each split of a corpus holds."""
    from rnnlab.core.tasks.text import load_corpus, split_bounds

    chars = load_corpus(task, 20)
    return {s: (hi - lo - 1) // seq_len for s, (lo, hi) in split_bounds(len(chars.ids)).items()}


# Lab A: classification without hierarchy -------------------------------------------------------


def _lab_a(profile: str) -> tuple[Experiment, ...]:
    if profile == "smoke":
        common = dict(depths=(1, 2), train=SMOKE_TRAIN, lr_grid=(3e-3,), n_val=64, n_test=64)
        return tuple(
            _grid(task="majority", budgets=(3000,), n_train=256, **common)
            + _grid(task="digits", budgets=(3000,), n_train=256, embedding_dim=None, **common)
        )
    big = profile == "gpu"
    depths = (1, 2, 4)
    # cpu: sized to about 30 min on 2 cores (measured on the reference machine: 6-18 ms per
    # step of majority on one core, depth 4 the slowest), so majority has one budget and digits
    # two. Majority trains for 3,000 steps: at 1,500 (the first cpu run, kept in
    # data/results/superseded/) the two- and four-layer models were still improving.
    majority_budgets = (20_000, 80_000, 320_000) if big else (8_000,)
    digits_budgets = (20_000, 80_000, 320_000) if big else (8_000, 32_000)
    majority_train = TrainConfig(
        max_steps=6000 if big else 3000, batch_size=128 if big else 64, eval_every=100
    )
    digits_train = TrainConfig(max_steps=4000 if big else 1500, batch_size=64, eval_every=100)
    return tuple(
        _grid(
            task="majority",
            budgets=majority_budgets,
            depths=depths,
            n_train=20_000,
            n_val=2_000,
            n_test=4_000,
            train=majority_train,
            lr_grid=LR_GRID,
        )
        + _grid(
            task="digits",
            budgets=digits_budgets,
            depths=depths,
            n_train=1_000,
            n_val=300,
            n_test=497,
            embedding_dim=None,
            train=digits_train,
            lr_grid=LR_GRID,
        )
    )


LAB_A = Lab(
    name="lab-a",
    title="Lab A: classification (width?)",
    description="Classification without hierarchy (majority token, sklearn digits): "
    "does one wide layer beat deeper stacks at equal parameters?",
    claims=(
        Claim(
            "a",
            "Shallow-wide LSTMs work better on classification that needs rich per-timestep "
            "representations but no hierarchy.",
            "width",
        ),
    ),
    experiments=_lab_a,
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
            out += _grid(
                task=task,
                budgets=(12_000,),
                n_train=64,
                options=(("seq_len", 32),),
                labels=(("corpus", task.split("-")[1]),),
                **common,
            )
        out += _grid(
            task="dyck",
            budgets=(3000,),
            n_train=128,
            options=(("seq_len", 32), ("max_depth", 8), ("depth_sampling", "uniform")),
            labels=(("split", "in-distribution"),),
            **common,
        )
        out += _grid(
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
        out += _grid(
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
        out += _grid(
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


# Lab C: compositional structure x data size -----------------------------------------------------


LISTOPS_COMMON = (("max_args", 4), ("arg_count", "by_expressions"))
"""Version 2's ListOps: at most 4 arguments, flat expressions uniform over their space, so at
nesting 1 (33,300 expressions) the splits are identically distributed (see the task's doc)."""


def _listops_options(train_nesting: tuple[int, int], test_nesting: int, cap: int = 64) -> tuple:
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
            out += _grid(
                task="listops",
                budgets=budgets,
                depths=(1, 2),
                n_train=n_train,
                n_val=n_val,
                n_test=n_test,
                options=_listops_options((nesting, nesting), nesting, cap),
                train=train_for(nesting),
                lr_grid=lr_grid,
                labels=(("nesting", nesting), ("n_train", n_train), ("split", "in-distribution")),
            )
    for n_train in ood_sizes:  # trained on nesting 1..deepest-1, tested on the deepest
        out += _grid(
            task="listops",
            budgets=budgets,
            depths=(1, 2),
            n_train=n_train,
            n_val=n_val,
            n_test=n_test,
            options=_listops_options((1, deepest - 1), deepest, cap),
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


# Lab D: making deep stacks trainable, and what depth costs --------------------------------------


STACKS: dict[str, tuple[tuple[str, object], ...]] = {
    "plain": (),
    "residual-ln": (("residual", True), ("layer_norm", True)),
    "residual-ln-dropout": (("residual", True), ("layer_norm", True), ("dropout", 0.1)),
    "projected": (("proj_ratio", 0.5),),
}
"""The stack variants of Lab D as model options (see :class:`rnnlab.core.models.ModelConfig`):
plain LSTM layers; residual connections between layers 2..L with a LayerNorm on every layer's
output; the same with dropout 0.1 between layers; and LSTMP with projections of half the hidden
size (the wide-readout control: a wide cell behind a narrow output)."""

CAPACITY_MARGIN = 0.1
"""Claim (d2)'s smallest effect of interest: 0.1 bits per parameter (2% of the ~5 bits/parameter
Collins et al. 2017 report at capacity), declared before any run."""

CAPACITY_FLOOR = 1.0
"""Claim (d2)'s floor: a cell where both depths store under 1 bit per parameter (a fifth of the
~5 at capacity) is inconclusive, since equally under-filled models say nothing about capacity.
Declared before any run. Since the review of issue 27 such a cell is labelled *not informative*
(:data:`rnnlab.evidence.stats.NOT_INFORMATIVE`) rather than inconclusive: the same cells, a clearer
name."""

MEMORIZE = (("seq_len", 12), ("num_tokens", 8), ("num_classes", 2))
"""The capacity probe: random binary labels of random 12-token sequences over 8 tokens."""


def _stacks_grid(*, stacks: tuple[str, ...], budgets: tuple[int, ...], depths, **kw) -> list:
    """:func:`_grid` once per stack variant, every variant at the same fitted budget."""
    variants = tuple(STACKS[s] for s in stacks)
    out = []
    for target in budgets:
        budget = fit_budget(
            target,
            depths,
            task=kw["task"],
            options=kw.get("options", ()),
            embedding_dim=kw.get("embedding_dim", 16),
            variants=variants,
        )
        for stack in stacks:
            for e in _grid(budgets=(budget,), depths=depths, **kw):
                labels = (
                    *(lv for lv in e.labels if lv[0] != "budget_target"),
                    ("budget_target", target),
                    ("stack", stack),
                )
                out.append(replace(e, labels=labels, **dict(STACKS[stack])))
    return out


def _lab_d(profile: str) -> tuple[Experiment, ...]:
    if profile == "smoke":
        common = dict(train=SMOKE_TRAIN, lr_grid=(3e-3,), n_val=16, n_test=16)
        stacks = ("plain", "residual-ln")
        return tuple(
            _stacks_grid(
                task="charlm-english", stacks=stacks, budgets=(12_000,), depths=(1, 2),
                n_train=64, options=(("seq_len", 32),), embedding_dim=32, **common,
            )
            + _stacks_grid(
                task="listops", stacks=stacks, budgets=(3000,), depths=(1, 2), n_train=128,
                options=_listops_options((2, 2), 2, 48), **common,
            )
            + _stacks_grid(
                task="memorize", stacks=("plain",), budgets=(1000,), depths=(1, 2), n_train=256,
                options=MEMORIZE, embedding_dim=8, train=SMOKE_TRAIN, lr_grid=(3e-3,),
                n_val=64, n_test=256,
            )
        )  # fmt: skip
    big = profile == "gpu"
    # cpu: sized to about 30 min on 2 cores from per-step timings measured on one core of the
    # reference machine while it was loaded by other training (load average ~5 on 2 cores:
    # `python benchmarks/bench_lab_steps.py lab-d --profile cpu`, kept in
    # data/bench/lab-d-cpu-steps.json: 12-30 ms per step for the LM and ListOps, 8-12 ms for
    # memorize; about 59 core-minutes in all). One budget per task, depths 1, 2 and 4, the plain
    # and the residual + LayerNorm stacks.
    # reference: the cpu budgets and data, with everything the cpu profile leaves out (depth 8,
    # dropout between layers, the projection control) and twice the training (four times for
    # the memorisation probe, which the cpu profile leaves far from capacity). Planned from the
    # measured wall times of the cpu runs (5-26 s per 1,000 steps by depth): about 3.5
    # core-hours, run in the background (`make results-reference`).
    # gpu: a larger LM budget, longer training.
    ref = profile == "reference"
    depths = (1, 2, 4, 8) if big or ref else (1, 2, 4)
    stacks = tuple(STACKS) if big or ref else ("plain", "residual-ln")
    steps = LAB_D_STEPS["gpu" if big else "reference" if ref else "cpu"]
    seq_len = 128 if big else 64
    windows = charlm_windows("charlm-english", seq_len)
    lm = _stacks_grid(
        task="charlm-english",
        stacks=stacks,
        budgets=(400_000,) if big else (25_000,),
        depths=depths,
        n_train=windows["train"],
        n_val=windows["val"] // 2,
        n_test=windows["test"] // 2,
        options=(("seq_len", seq_len),),
        embedding_dim=32,
        train=TrainConfig(
            max_steps=steps["charlm"],
            batch_size=64 if big else 16,
            eval_every=250 if big else 100,
            warmup_steps=100,
        ),
        lr_grid=LM_LR_GRID,
        labels=(("corpus", "english"),),
    )
    nested = _stacks_grid(
        task="listops",
        stacks=stacks,
        budgets=(40_000,) if big else (20_000,),
        depths=depths,
        n_train=32_000 if big else 8_000,
        n_val=1_000,
        n_test=2_000,
        options=_listops_options((2, 2), 2, 64 if big else 48),
        train=TrainConfig(max_steps=steps["listops"], batch_size=64, eval_every=100),
        lr_grid=LR_GRID,
        labels=(("nesting", 2),),
    )
    n_memorize = 32_000 if big else 8_000
    capacity = _stacks_grid(
        task="memorize",
        stacks=("plain",),
        budgets=(5_000,) if big else (1_500,),
        depths=(1, 2, 4),
        n_train=n_memorize,
        n_val=1_000,
        n_test=n_memorize,  # the bits are counted on the whole training set
        options=MEMORIZE,
        embedding_dim=8,
        train=TrainConfig(
            max_steps=steps["memorize"], batch_size=128, eval_every=200 if big or not ref else 500
        ),
        lr_grid=LR_GRID,
    )
    if ref:  # hours of runs: the cheap probe first, so that a run cut short still holds it
        return tuple(capacity + lm + nested)
    return tuple(lm + nested + capacity)


LAB_D_STEPS = {
    "cpu": {"charlm": 1_000, "listops": 1_000, "memorize": 3_000},
    "reference": {"charlm": 2_000, "listops": 2_000, "memorize": 12_000},
    "gpu": {"charlm": 10_000, "listops": 5_000, "memorize": 20_000},
}
"""Training steps per profile and task (the cpu ones sized from data/bench/lab-d-cpu-steps.json)."""

LAB_D = Lab(
    name="lab-d",
    title="Lab D: making deep stacks trainable, and what depth costs",
    description="Plain vs residual + LayerNorm stacks at L = 1, 2, 4 (and 8, with dropout and "
    "a projection control, in the reference profile) on the English character LM and ListOps, "
    "and a memorisation probe of bits stored per parameter: is the depth penalty at equal "
    "parameters a lack of capacity or a failure to train?",
    claims=(
        DesignClaim(
            "d1",
            "At equal parameters, residual connections with LayerNorm narrow the gap to one "
            "layer that plain deep stacks show; they close it only where the fixed stack is "
            "equivalent to one layer (judged at every depth > 1, on the character LM and "
            "ListOps).",
            "depth",
            test="gap_closure",
        ),
        DesignClaim(
            "d2",
            "At equal parameters and the profile's training length, plain stacks of 1, 2 and 4 "
            "layers memorise random labels equally fast: the same bits per parameter after "
            f"the same steps (equivalent within {CAPACITY_MARGIN} bits/parameter). A "
            "trainability claim, not a capacity one: the probe's models stay far below both "
            "its ceiling and the ~5 bits/parameter measured at capacity.",
            "equal",
            where=(("task", "memorize"),),
            test="equivalence",
            metric="bits_per_parameter",
            margin=CAPACITY_MARGIN,
            floor=CAPACITY_FLOOR,
        ),
        DesignClaim(
            "d3",
            "At equal parameters, dropout (0.1) between layers, added to the residual + "
            "LayerNorm stack, narrows the gap to one layer further (judged at every depth > 1, "
            "on the character LM and ListOps; reference and gpu profiles).",
            "depth",
            test="gap_closure",
            base="residual-ln",
            fix="residual-ln-dropout",
        ),
        DesignClaim(
            "d4",
            "At equal parameters, projecting each layer's output to half its cell width "
            "(LSTMP, the wide-readout control) narrows the gap to one layer that plain deep "
            "stacks show (judged at every depth > 1, on the character LM and ListOps; reference "
            "and gpu profiles).",
            "depth",
            test="gap_closure",
            base="plain",
            fix="projected",
        ),
    ),
    experiments=_lab_d,
    profiles=("smoke", "cpu", "reference", "gpu"),
)


LABS: dict[str, Lab] = {lab.name: lab for lab in (LAB_A, LAB_B, LAB_C, LAB_D)}


def get_lab(name: str) -> Lab:
    """The lab called ``name`` (see ``python -m rnnlab labs``)."""
    if name not in LABS:
        raise ValueError(f"lab must be one of {sorted(LABS)}, got {name!r}")
    return LABS[name]


# ----------------------------------------------------------------------------- running


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``"2/3"`` is the second of three shards (1-based on the command line)."""
    if text is None:
        return None
    try:
        i, n = (int(p) for p in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard must look like i/n (e.g. 1/2), got {text!r}") from None
    if not (n >= 1 and 1 <= i <= n):
        raise ValueError(f"--shard i/n needs 1 <= i <= n, got {text!r}")
    return i - 1, n


def run_lab(
    name: str,
    *,
    profile: str | None,
    out: Path,
    seeds: str | None = None,
    shard_text: str | None = None,
    jobs: int = 1,
    device: str | None = None,
    threads: int | None = None,
    progress: bool | None = None,
    scheduler: str | None = None,
) -> SweepRecords:
    """Run (or resume) lab ``name`` in ``profile``, writing every finished run to ``out``.

    ``seeds`` is a count (``"5"``: seeds 0..4) or a list (``"0,3"``); ``shard_text`` is
    ``"i/n"`` to run the i-th of n slices of the experiments (merge the files afterwards with
    ``python -m rnnlab merge``, or point every shard at the same ``out``: writes are locked).
    ``scheduler`` (``"tcp://host:8786"``) runs the runs on a Dask cluster instead of ``jobs``
    local processes (see :mod:`rnnlab.experiments.distributed`). Prints one line per finished run
    and one
    per failed run; returns every record in ``out`` (a list) whose ``.failures`` lists the runs
    that raised (also in ``<out>.failed``; a rerun retries them).
    """
    lab = get_lab(name)
    prof = resolve_profile(profile)
    spec = lab.sweep(prof.name, parse_seeds(seeds, prof.seeds))
    part = parse_shard(shard_text)
    if part is not None:
        spec = SweepSpec(spec.lab, spec.profile, tuple(shard(spec.experiments, *part)), spec.seeds)

    def header(total: int, already: int) -> str:
        text = (
            f"{lab.name}: profile {prof.name} ({prof.target}); {len(spec.experiments)} "
            f"experiments, {len(spec.seeds)} seeds, {total} runs; {already} already in "
            f"{shown_path(out)}"
        )
        if not prof.evidence:
            text += "\nnote: the smoke profile checks code paths only; its numbers are not evidence"
        if prof.name == "colab":
            text += "\n" + colab_estimate(lab.name).describe()
        return text

    return run_console(
        spec,
        out,
        name=lab.name,
        header=header,
        jobs=jobs,
        device=device,
        threads=threads,
        progress=progress,
        scheduler=scheduler,
    )


def at_reference_rates(
    lab: str, experiments: tuple[Experiment, ...], records: list[dict] | None = None
) -> tuple[Experiment, ...]:
    """``experiments`` (the ``cpu`` design of ``lab``) each with a one-rate grid: the rate the
    committed ``cpu`` reference results tuned for it, so nothing is tuned again.

    ``records`` replaces the committed results (for tests). Raises ValueError naming the first
    experiment whose tuning is not complete in them.
    """
    from rnnlab.experiments.tuning import tuning_report

    records = load_reference(lab, "cpu") if records is None else records
    chosen = {row["experiment_key"]: row["chosen"] for row in tuning_report(experiments, records)}
    out = []
    for e in experiments:
        if chosen.get(e.key) is None:
            raise ValueError(
                f"profile 'colab' reuses the tuned rates of data/results/{lab}-cpu.jsonl, but "
                f"experiment {e.key} ({dict(e.labels)}, L={e.num_layers}) has no complete tuning "
                "there; use profile cpu or gpu"
            )
        out.append(replace(e, lr_grid=(chosen[e.key],)))
    return tuple(out)


@dataclass(frozen=True)
class ColabEstimate:
    """How long the ``colab`` profile of one lab should take on a free Colab T4, and from what.

    ``cpu_seconds`` is measured: the summed ``wall_time_s`` of the same runs (same experiments,
    same seeds, one thread each) in the committed ``cpu`` reference results. ``speedup`` is the
    assumed T4 speed-up over one CPU core (:data:`COLAB_T4_SPEEDUP`); ``minutes`` is
    ``cpu_seconds / speedup / 60``: an estimate, never a measurement.
    """

    lab: str
    runs: int
    matched_runs: int  # runs whose CPU wall time the reference results hold
    cpu_seconds: float
    speedup: float
    source: str

    @property
    def minutes(self) -> float:
        """The estimated minutes on a T4 (scaled up for runs without a measured time)."""
        per_run = self.cpu_seconds / max(self.matched_runs, 1)
        return per_run * self.runs / self.speedup / 60

    def describe(self) -> str:
        """The plan, the estimate and its derivation, in two sentences."""
        return (
            f"{self.lab}, profile colab: {self.runs} runs (the cpu design at its tuned rates, "
            f"seeds {', '.join(map(str, PROFILES['colab'].seeds))}), no tuning. Estimated time "
            f"on a free Colab T4: about {self.minutes:.0f} min = {self.cpu_seconds / 60:.1f} "
            f"CPU core-minutes measured for {self.matched_runs} of these runs ({self.source}) / "
            f"{self.speedup:g}, the speed-up assumed for a T4 over one core (not measured). "
            "Longer: RNNLAB_PROFILE=gpu."
        )


def colab_estimate(
    lab: str, *, speedup: float = COLAB_T4_SPEEDUP, records: list[dict] | None = None
) -> ColabEstimate:
    """The :class:`ColabEstimate` of ``lab``'s ``colab`` profile (``records`` replaces the
    committed ``cpu`` results, for tests). ``speedup`` must be a number > 0."""
    if not speedup > 0:
        raise ValueError(f"speedup must be > 0 (T4 steps per CPU-core step), got {speedup!r}")
    spec = get_lab(lab)
    records = load_reference(lab, "cpu") if records is None else records
    keys = {e.key for e in spec.experiments("cpu")}
    seeds = set(PROFILES["colab"].seeds)
    timed = [
        r["wall_time_s"]
        for r in eval_records(records)
        if r.get("experiment_key") in keys and r.get("seed") in seeds and "wall_time_s" in r
    ]
    return ColabEstimate(
        lab=lab,
        runs=len(keys) * len(seeds),
        matched_runs=len(timed),
        cpu_seconds=float(sum(timed)),
        speedup=float(speedup),
        source=f"wall_time_s in data/results/{lab}-cpu.jsonl",
    )


def load_reference(lab: str, profile: str = "cpu") -> list[dict]:
    """The committed reference results of ``lab`` in ``profile`` (``data/results/``), or ``[]``."""
    from rnnlab.core.paths import results_dir

    return load_results(results_dir() / f"{get_lab(lab).name}-{profile}.jsonl")
