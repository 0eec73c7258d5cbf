"""Budgets every depth can match: a task's example data and :func:`fit_budget`."""

from __future__ import annotations

import functools

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
