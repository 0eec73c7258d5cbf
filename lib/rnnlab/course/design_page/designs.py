"""The design chapter's design tables: the profiles of a lab and the cells of a sweep."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rnnlab.course import book
from rnnlab.experiments.sweep import SweepSpec

# --- designs -------------------------------------------------------------------------------------

TASKS = ("charlm-english", "listops", "memorize")
"""Lab D's tasks, in the order of its tables."""


def profiles_table(lab: Any, profiles: Sequence[str] = ("cpu", "reference", "gpu")):
    """Per profile and task of ``lab``: budget, stacks, depths and training steps."""
    rows = []
    for name in profiles:
        spec = lab.sweep(name)
        for task in TASKS:
            exps = [e for e in spec.experiments if e.task == task]
            rows.append(
                [
                    name,
                    task,
                    f"{exps[0].budget:,}",
                    ", ".join(sorted({e.label("stack") for e in exps})),
                    ", ".join(str(x) for x in sorted({e.num_layers for e in exps})),
                    f"{exps[0].train.max_steps:,}",
                ]
            )
    return book.html_table(["profile", "task", "budget", "stacks", "depths L", "steps"], rows)


def design_table(spec: SweepSpec):
    """Per task of one design: budget, stacks, depths, steps and reporting runs."""
    rows = []
    for task in TASKS:
        exps = [e for e in spec.experiments if e.task == task]
        rows.append(
            [
                task,
                f"{exps[0].budget:,}",
                ", ".join(sorted({e.label("stack") for e in exps})),
                ", ".join(str(x) for x in sorted({e.num_layers for e in exps})),
                f"{exps[0].train.max_steps:,}",
                len(exps) * len(spec.seeds),
            ]
        )
    return book.html_table(
        ["task", "budget (parameters)", "stacks", "depths L", "steps", "reporting runs"], rows
    )
