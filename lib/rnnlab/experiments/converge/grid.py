"""The convergence experiment's design per profile (:func:`design`): its variants, budgets,
lengths and seeds, the experiments of a cell with their candidate rates, and the rate chosen."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from rnnlab.core.config import TrainConfig
from rnnlab.experiments.experiment import FAMILY_LABEL, TUNE_SEEDS, Experiment, run_id
from rnnlab.experiments.profiles import SMOKE_CHARLM
from rnnlab.experiments.tuning import cells_of, choose_lr

TASK = "charlm-stdlib-tree"
PILOT_TASK = "charlm-stdlib-files"  # design version 1 (see the package docstring)
LAB = "converge"
PROFILES = ("reference", "gpu", "smoke")


@dataclass(frozen=True)
class Variant:
    """One model family of the design: its name, depth, stack options and dropout grid."""

    name: str
    num_layers: int
    residual: bool = False
    layer_norm: bool = False
    dropouts: tuple[float, ...] = (0.0, 0.2)


VARIANTS: tuple[Variant, ...] = (
    Variant("L1", 1),
    Variant("L2", 2),
    Variant("L4-res-LN", 4, residual=True, layer_norm=True),
    Variant("L4-plain", 4, dropouts=(0.0,)),
)


@dataclass(frozen=True)
class Design:
    """The declared design of one profile (see the module docstring)."""

    profile: str
    budgets: tuple[int, ...]
    lengths: tuple[int, ...]
    extension: tuple[int, ...]
    variants: tuple[Variant, ...] = VARIANTS
    groups: tuple[tuple[str, ...], ...] = (("L1", "L2"), ("L4-res-LN", "L4-plain"))
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    # the reporting seeds of seed_rule's variants grow to at most max_seeds (converge.seeding)
    seed_rule: tuple[str, str] | None = ("L1", "L2")
    max_seeds: int = 16
    seq_len: int = 128
    batch_size: int = 32
    embedding_dim: int = 32
    n_val: int = 1024
    n_train: int | None = None  # None: every training window
    n_test: int | None = None  # None: every held-out test window
    warmup_steps: int = 200
    eval_every: int = 400
    decay_fraction: float = 0.2
    lr_grid: tuple[float, ...] = (2e-3, 4e-3, 8e-3)
    lr_limits: tuple[float, float] = (2.5e-4, 6.4e-2)
    margin: float = 0.01
    min_count: int = 20
    notes: tuple[str, ...] = field(default=())
    task: str = TASK
    # budgets that run the extension lengths from the start instead of when the convergence
    # rule adds them (:meth:`lengths_at`), and when that was declared (ISO 8601): every run at
    # those budgets must have started after it (tests/test_converge.py checks the results)
    extended_from_start: tuple[int, ...] = ()
    extended_declared: str | None = None

    @property
    def family(self) -> tuple[int, ...]:
        """Every length a run of this design may be trained for (the WSD family)."""
        return tuple(sorted({*self.lengths, *self.extension}))

    def lengths_at(self, budget: int) -> tuple[int, ...]:
        """The lengths ``budget`` runs whatever the convergence rule says: :attr:`lengths`,
        and :attr:`extension` too where ``budget`` is in :attr:`extended_from_start`. Its
        longest is the run that leaves the others their forks.

        >>> d = design("reference")
        >>> d.lengths_at(160_000), d.lengths_at(400_000)
        ((8000, 16000), (8000, 16000, 32000))
        """
        if budget in self.extended_from_start:
            return tuple(sorted({*self.lengths, *self.extension}))
        return self.lengths

    def longest_at(self, budget: int) -> int:
        """The longest length ``budget`` declares (:meth:`lengths_at`): the run that is trained
        whole and leaves the shorter ones their forks.

        >>> design("reference").longest_at(160_000), design("reference").longest_at(400_000)
        (16000, 32000)
        """
        return max(self.lengths_at(budget))


#: When the budgets above 160K were declared to run 32,000 steps from the start (the package
#: docstring says why): before any run at them, in the reference and the gpu results alike.
EXTENDED_DECLARED = "2026-12-05T09:20:00+00:00"


def design(profile: str = "reference") -> Design:
    """The design of ``profile``: ``reference`` (CPU, 160K and 400K parameters), ``gpu`` (the
    same plus 1M) or ``smoke`` (a code-path check in seconds; its numbers are not evidence)."""
    if profile == "reference":
        return Design(profile, budgets=(160_000, 400_000), lengths=(8_000, 16_000),
                      extension=(32_000,), extended_from_start=(400_000,),
                      extended_declared=EXTENDED_DECLARED)  # fmt: skip
    if profile == "gpu":
        return Design(profile, budgets=(160_000, 400_000, 1_000_000), lengths=(8_000, 16_000),
                      extension=(32_000,), extended_from_start=(400_000, 1_000_000),
                      extended_declared=EXTENDED_DECLARED)  # fmt: skip
    if profile == "smoke":
        return Design(
            profile,
            budgets=(12_000,),
            lengths=(20, 40),
            extension=(80,),
            variants=(Variant("L1", 1, dropouts=(0.0, 0.2)), Variant("L2", 2, dropouts=(0.0, 0.2))),
            groups=(("L1", "L2"),),
            seeds=(0, 1),
            max_seeds=3,
            n_test=64,
            eval_every=5,
            **SMOKE_CHARLM,
        )
    raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")


def design_for(profile: str, records: Sequence[dict]) -> Design:
    """:func:`design` of ``profile`` as ``records`` ran it. The design trains on every training
    window and tests on every held-out window of the corpus, and the corpus is the standard
    library of the Python that runs it: records made on another Python (a lent GPU's) hold other
    counts, and so other run ids. Where ``records`` come from one corpus, its counts (each
    record's ``task_info["available"]``) fill the design's open ``n_train`` and ``n_test``, so
    the analysis finds the runs on any machine; otherwise the design is :func:`design`'s."""
    d = design(profile)
    seen = {
        tuple(sorted(a.items()))
        for r in records
        if r.get("task") == d.task and (a := r.get("task_info", {}).get("available"))
    }
    if len(seen) != 1:
        return d
    have = dict(next(iter(seen)))
    from dataclasses import replace

    return replace(
        d,
        n_train=d.n_train if d.n_train is not None else have["train"],
        n_test=d.n_test if d.n_test is not None else have["test"],
    )


def pilot_design(profile: str = "reference") -> Design:
    """Design version 1 of ``profile``: :func:`design` on the pilot's task,
    ``charlm-stdlib-files`` (19 test files). Its runs (``data/results/converge/pilot-v1.jsonl``)
    are tuning runs only, never reported; the plan reads the spread they measured."""
    from dataclasses import replace

    return replace(design(profile), task=PILOT_TASK)


def _sizes(d: Design) -> tuple[int, int]:
    from rnnlab.core.tasks.heldout import heldout_sizes

    have = heldout_sizes(seq_len=d.seq_len, min_count=d.min_count, task=d.task)
    return d.n_train or have["train"], d.n_test or have["test"]


def experiment(d: Design, budget: int, variant: Variant, dropout: float, steps: int) -> Experiment:
    """The experiment of one (budget, variant, dropout, length) of design ``d``."""
    n_train, n_test = _sizes(d)
    return Experiment(
        task=d.task,
        budget=budget,
        num_layers=variant.num_layers,
        n_train=n_train,
        n_val=d.n_val,
        n_test=n_test,
        task_options=(("seq_len", d.seq_len), ("min_count", d.min_count)),
        embedding_dim=d.embedding_dim,
        dropout=dropout,
        dropout_mode="all",
        residual=variant.residual,
        layer_norm=variant.layer_norm,
        train=TrainConfig(
            max_steps=steps,
            batch_size=d.batch_size,
            eval_every=d.eval_every,
            warmup_steps=d.warmup_steps,
            schedule="wsd",
            decay_fraction=d.decay_fraction,
            patience=None,
        ),
        lr_grid=d.lr_grid,
        lr_limits=d.lr_limits,
        labels=(
            ("experiment", LAB),
            ("budget_target", budget),
            ("variant", variant.name),
            ("steps", steps),
            (FAMILY_LABEL, d.family),
        ),
    )


def candidates(d: Design, budget: int, variant: Variant, steps: int) -> list[Experiment]:
    """The experiments tuned for one (budget, variant, length): one per dropout."""
    return [experiment(d, budget, variant, p, steps) for p in variant.dropouts]


def _tuned_score(e: Experiment, records: Sequence[dict], cell: Sequence[Experiment]) -> float:
    """Mean validation bits/char over the tuning seeds at ``e``'s chosen rate (lower is better);
    ``nan`` while its tuning is incomplete."""
    lr = choose_lr(e, records, cell)
    if lr is None:
        return math.nan
    vals = [r["metrics"]["val"] for s in TUNE_SEEDS for r in records
            if r["run_id"] == run_id(e, "tune", s, lr)]  # fmt: skip
    return sum(vals) / len(vals) if len(vals) == len(TUNE_SEEDS) else math.nan


def tuned_scores(d: Design, budget: int, variant: Variant, steps: int,
                 records: Sequence[dict]) -> dict[float, float]:  # fmt: skip
    """``{dropout: mean validation bits/char over the tuning seeds at that dropout's tuned
    rate}`` for one (budget, variant, length), in the variant's dropout order; ``nan`` where that
    dropout's tuning is incomplete. What :func:`chosen` decides on, and what the regularisation
    control's report reads (validation, tuning seeds: a choice, not a result)."""
    group = next(g for g in d.groups if variant.name in g)
    cells = cells_of(tuning_experiments(d, budget, steps, group))
    return {
        e.dropout: _tuned_score(e, records, cells[e.cell_key])
        for e in candidates(d, budget, variant, steps)
    }


def chosen(d: Design, budget: int, variant: Variant, steps: int,
           records: Sequence[dict]) -> Experiment | None:  # fmt: skip
    """The tuned experiment of (budget, variant, length): the dropout whose tuned validation is
    best (ties: the smaller dropout), at its tuned rate; ``None`` while tuning is incomplete."""
    scores = tuned_scores(d, budget, variant, steps, records)
    if any(math.isnan(s) for s in scores.values()):
        return None
    best = best_dropout(scores)
    return next(e for e in candidates(d, budget, variant, steps) if e.dropout == best)


def best_dropout(scores: dict[float, float]) -> float:
    """The dropout of :func:`tuned_scores` that :func:`chosen` picks: the lowest validation
    score, ties to the smaller dropout."""
    return min(scores, key=lambda p: (scores[p], p))


def tuning_experiments(d: Design, budget: int, steps: int, names=None) -> list[Experiment]:
    """Every candidate of one (budget, length), for the variants ``names`` (default all)."""
    return [e for v in d.variants if names is None or v.name in names
            for e in candidates(d, budget, v, steps)]  # fmt: skip
