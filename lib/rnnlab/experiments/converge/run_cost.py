"""What one run of the convergence experiment costs, given the forks it can start from: a
warmup-stable-decay family's longest run trains whole and leaves its siblings a fork
(:func:`rnnlab.experiments.experiment.family_forks`), but only siblings that share its tuned
setting (:func:`sharing_lengths`) can use it. :mod:`rnnlab.experiments.converge.costing` sums
these into the plan."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rnnlab.experiments.converge.grid import Design
from rnnlab.experiments.experiment import Experiment, run_id
from rnnlab.experiments.tuning import cells_of


def run_cost(
    d: Design, budget: int, steps: int, t_step: float, sharing: frozenset[int] | None = None
) -> float:
    """Core-seconds of one run at ``budget``: the longest length the budget declares
    (:meth:`~rnnlab.experiments.converge.grid.Design.lengths_at`) runs whole; a shorter one
    starts from that run's fork and pays its cooldown only; an extension the rule added
    (longer) starts from the same run's fork at the end of its stable phase and pays the rest.
    A fork carries one run's state, so it serves only lengths whose runs share one setting:
    ``sharing`` is the lengths that share this run's (:func:`sharing_lengths`; ``None``: every
    declared length, the plan's assumption while the choices wait for their tuning). A shorter
    run forks from the longest declared length above it in ``sharing``, an extension from the
    longest declared one in it; with none, it pays in full."""
    declared = d.lengths_at(budget)
    sharing = frozenset(declared) if sharing is None else sharing
    source = fork_source(declared, steps, sharing)
    if source is None:
        paid = steps
    elif steps > source:
        paid = steps - round((1 - d.decay_fraction) * source)
    else:
        paid = round(d.decay_fraction * steps)
    return paid * t_step


def fork_source(declared: Sequence[int], steps: int, sharing: frozenset[int]) -> int | None:
    """The length whose run leaves a run of ``steps`` its fork (see :func:`run_cost`), or
    ``None`` where it trains from step 0.

    >>> fork_source((8000, 16000), 8000, frozenset({8000, 16000}))
    16000
    >>> fork_source((8000, 16000), 16000, frozenset({8000, 16000})) is None  # runs whole
    True
    >>> fork_source((8000, 16000, 32000), 16000, frozenset({8000, 16000}))  # the 32K differs
    >>> fork_source((8000, 16000), 32000, frozenset({16000, 32000}))  # an extension
    16000
    """
    longest = max(declared)
    if steps > longest:
        above = [n for n in declared if n in sharing]
    else:
        above = [n for n in declared if n in sharing and steps < n]
    return max(above) if above else None


def sharing_lengths(d: Design, exp: Experiment, records: Sequence[dict]) -> frozenset[int]:
    """The lengths of ``exp``'s budget (its declared ones and the extension) whose reporting
    runs share ``exp``'s setting, so that one run's fork serves the other: where that length's
    tuned experiment (:func:`~rnnlab.experiments.converge.grid.chosen`) is ``exp`` at that
    length, at the same tuned rate (:func:`~rnnlab.experiments.tuning.choose_lr`). A length
    whose choice waits for its tuning counts as sharing (the plan's lower estimate). At
    400,000 parameters L2 tuned dropout 0.2 at 32,000 steps and 0 at 16,000 and 8,000, so its
    16,000-step runs train whole and leave the 8,000-step runs their forks."""
    from rnnlab.experiments.converge.grid import chosen, tuning_experiments
    from rnnlab.experiments.experiment import with_length
    from rnnlab.experiments.tuning import choose_lr

    variant = next(v for v in d.variants if v.name == exp.label("variant"))

    def rate(e: Experiment) -> float | None:
        cells = cells_of(tuning_experiments(d, e.budget, e.train.max_steps, (variant.name,)))
        return choose_lr(e, records, cells[e.cell_key])

    own = rate(exp)
    out = set()
    for n in d.family:
        pick = chosen(d, exp.budget, variant, n, records)
        if pick is None:
            out.add(n)
        elif pick == with_length(exp, n):
            theirs = rate(pick)
            if own is None or theirs is None or own == theirs:
                out.add(n)
    return frozenset(out)


def left_cost(
    d: Design,
    unit: tuple,
    steps: int,
    t_step: float,
    done_ids: set[str],
    checkpoint_dir: str | Path,
    sharing: frozenset[int] | None = None,
) -> tuple[float, bool]:
    """Core-seconds a run not done will still cost, and whether the fork :func:`run_cost`
    assumes is gone: from the step its own checkpoint or fork in ``checkpoint_dir`` saved
    (:func:`rnnlab.experiments.deadline.saved_step`); else its whole length if it has no fork
    source (:func:`fork_source` of ``sharing``) or if the run that would have left its fork
    (that source length, same seed and rate) is done, since forks are not committed and that
    run left it in an earlier sitting, or on another machine; else :func:`run_cost` (the fork
    is yet to be written)."""
    from rnnlab.experiments.deadline import saved_step
    from rnnlab.experiments.experiment import fork_path, with_length

    exp, role, seed, lr = unit
    rid = run_id(exp, role, seed, lr)
    if lr is not None:
        fork = fork_path(checkpoint_dir, exp, role, seed, lr)
    else:  # a reporting run whose rate is not chosen yet, or not passed: any fork of it
        fork = next(iter(sorted(Path(checkpoint_dir).glob(f"{rid}.lr*.fork.pt"))), None)
    saved = saved_step(checkpoint_dir, rid, fork)
    declared = d.lengths_at(exp.budget)
    source = fork_source(declared, steps, frozenset(declared) if sharing is None else sharing)
    if saved or source is None:
        return (steps - saved) * t_step, False
    if run_id(with_length(exp, source), role, seed, lr) in done_ids:
        return steps * t_step, True
    return run_cost(d, exp.budget, steps, t_step, sharing), False
