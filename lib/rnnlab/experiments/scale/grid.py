"""The experiment's design per profile: depths, budgets matched by every depth, training
lengths, the experiments of the map with their seeds and rate sources, and its sweep spec."""

from __future__ import annotations

from collections.abc import Sequence

from rnnlab.core.config import TrainConfig
from rnnlab.experiments.experiment import Experiment
from rnnlab.experiments.profiles import SMOKE_CHARLM
from rnnlab.experiments.sweep import SweepSpec

TASK = "charlm-stdlib"
SCALE_PROFILES = ("reference", "gpu", "smoke")
TIMINGS_FILE = "scale_step_seconds.json"


def _design(profile: str) -> dict:
    if profile == "reference":
        return dict(
            depths=(1, 2, 4),
            budgets=(25_000, 63_000, 160_000, 400_000),
            steps=(1_500, 3_000, 6_000),
            eval_every={1_500: 100, 3_000: 150, 6_000: 300},
            check=(63_000, 6_000),  # tuned at its own length too: the transfer check
            batch_size=32,
            seq_len=128,
            n_train=30_000,  # of about 33,000 training windows of 128 (CPython 3.11)
            n_val=512,
            n_test=1_024,
            embedding_dim=32,
            warmup_steps=100,
            lr_grid=(1e-3, 2e-3, 4e-3),
            lr_limits=(1e-4, 0.1),
            seeds=(0, 1, 2, 3, 4),
        )
    if profile == "gpu":
        # the same map, one budget further (about 1M parameters): for one GPU, many runs packed
        # onto it at once (scripts/gpu_session.sh). Declared before any of its runs.
        return dict(_design("reference"), budgets=(25_000, 63_000, 160_000, 400_000, 1_000_000))
    if profile == "smoke":
        return dict(
            depths=(1, 2),
            budgets=(12_000,),
            steps=(12, 24, 36),
            eval_every={12: 6, 24: 12, 36: 12},
            check=(12_000, 24),
            n_test=16,
            seeds=(0, 1),
            **SMOKE_CHARLM,
        )
    raise ValueError(f"profile must be one of {SCALE_PROFILES}, got {profile!r}")


def design(profile: str = "reference") -> dict:
    """The design's parameters of ``profile`` (a copy): depths, budget targets, training
    lengths, the transfer-check cell, batch, window, data sizes, grid and reporting seeds."""
    return dict(_design(profile))


def matched_budgets(profile: str) -> dict[int, int]:
    """Budget target -> the budget every depth matches within 2%
    (:func:`rnnlab.experiments.budgets.fit_budget`)."""
    from rnnlab.experiments.budgets import fit_budget

    d = _design(profile)
    options = (("seq_len", d["seq_len"]),)
    return {
        t: fit_budget(t, d["depths"], task=TASK, options=options, embedding_dim=d["embedding_dim"])
        for t in d["budgets"]
    }


def _experiment(d: dict, budget: int, target: int, depth: int, steps: int, tuned_at: int):
    train = TrainConfig(
        max_steps=steps,
        batch_size=d["batch_size"],
        eval_every=d["eval_every"][steps],
        patience=None,  # the schedule ends where training ends
        warmup_steps=d["warmup_steps"],
        schedule="cosine",
    )
    return Experiment(
        task=TASK,
        budget=budget,
        num_layers=depth,
        n_train=d["n_train"],
        n_val=d["n_val"],
        n_test=d["n_test"],
        task_options=(("seq_len", d["seq_len"]),),
        embedding_dim=d["embedding_dim"],
        train=train,
        lr_grid=d["lr_grid"],
        lr_limits=d["lr_limits"],
        labels=(
            ("task", TASK),
            ("budget_target", target),
            ("steps", steps),
            ("corpus", "stdlib"),
            ("lr_tuned_at_steps", tuned_at),
        ),
    )


def _tuned_at(d: dict, target: int, steps: int) -> int:
    """Where the rate of (budget target, length) is tuned: at its own length for the shortest
    length and the check cell, else at the shortest length."""
    return (
        steps if steps == d["steps"][0] or (target, steps) == tuple(d["check"]) else d["steps"][0]
    )


def scale_experiments(profile: str = "reference") -> tuple[Experiment, ...]:
    """The design of ``profile`` (see the module docstring), in run order: by training length
    (shortest first), then budget (smallest first), then depth, except that the transfer-check
    cell comes last in its length. Labels: ``task``, ``budget_target``, ``steps``, ``corpus``,
    ``lr_tuned_at_steps``."""
    d = _design(profile)
    budgets = matched_budgets(profile)
    check = tuple(d["check"])

    def last_if_check(target: int, steps: int) -> bool:
        return steps != d["steps"][0] and (target, steps) == check

    return tuple(
        _experiment(d, budgets[target], target, depth, steps, _tuned_at(d, target, steps))
        for steps in d["steps"]
        for target in sorted(d["budgets"], key=lambda t: (last_if_check(t, steps), t))
        for depth in d["depths"]
    )


def scale_seeds(profile: str = "reference") -> tuple[int, ...]:
    """The reporting seeds of ``profile``."""
    return _design(profile)["seeds"]


def lr_sources(experiments: Sequence[Experiment]) -> tuple[tuple[str, str], ...]:
    """``(key, source_key)`` for every experiment tuned at another length: the source is the same
    budget and depth at the length named by its ``lr_tuned_at_steps`` label."""
    index = {
        (e.budget, e.num_layers, e.label("steps")): e
        for e in experiments
        if e.label("lr_tuned_at_steps") == e.label("steps")
    }
    out = []
    for e in experiments:
        at = e.label("lr_tuned_at_steps")
        if at != e.label("steps"):
            src = index.get((e.budget, e.num_layers, at))
            if src is None:
                raise ValueError(
                    f"experiment {e.key} (budget {e.budget}, L={e.num_layers}) takes its rate "
                    f"from length {at}, which is not tuned in the design"
                )
            out.append((e.key, src.key))
    return tuple(out)


def sweep_spec(profile: str = "reference", seeds: Sequence[int] | None = None) -> SweepSpec:
    """The design as a :class:`~rnnlab.experiments.sweep.SweepSpec` (lab ``"scale"``, rates
    transferred from
    the shortest length, :attr:`~rnnlab.experiments.sweep.SweepSpec.lr_from`) for
    :func:`rnnlab.experiments.sweep.run_sweep`."""
    experiments = scale_experiments(profile)
    if seeds is not None:
        seeds = tuple(seeds)
        if not seeds or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds):
            raise ValueError(f"seeds must be integers >= 0, at least one, got {seeds!r}")
    return SweepSpec(
        "scale",
        profile,
        experiments,
        seeds if seeds is not None else scale_seeds(profile),
        lr_from=lr_sources(experiments),
    )
