"""What a lab is (:class:`Lab`, its :class:`Claim` s) and the helpers the labs are declared with:
the grid of experiments, learning-rate grids, the smoke training, character-LM windows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from rnnlab.core.config import TrainConfig
from rnnlab.experiments.budgets import fit_budget
from rnnlab.experiments.experiment import Experiment
from rnnlab.experiments.profiles import resolve_profile
from rnnlab.experiments.store import load_results
from rnnlab.experiments.sweep import SweepSpec

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


def lab_grid(
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


def at_reference_rates(
    lab: str, experiments: tuple[Experiment, ...], records: list[dict] | None = None
) -> tuple[Experiment, ...]:
    """``experiments`` (the ``cpu`` design of ``lab``) each with a one-rate grid: the rate the
    committed ``cpu`` reference results tuned for it, so nothing is tuned again.

    ``records`` replaces the committed results (for tests). Raises ValueError naming the first
    experiment whose tuning is not complete in them.
    """
    from rnnlab.experiments.tuning import tuning_report

    if records is None:
        from rnnlab.core.paths import results_dir

        records = load_results(results_dir() / f"{lab}-cpu.jsonl")
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
