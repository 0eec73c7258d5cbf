"""The task registry: :func:`make_task`, the names, options and documentation of every task."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import torch

from rnnlab.core.tasks.base import (
    TaskData,
    check_int,
)
from rnnlab.core.tasks.capacity import memorize_generator
from rnnlab.core.tasks.digits import digits_generator
from rnnlab.core.tasks.heldout import (
    charlm_stdlib_files_generator,
    charlm_stdlib_tree_generator,
)
from rnnlab.core.tasks.listops import listops_generator
from rnnlab.core.tasks.synthetic import dyck_generator, majority_generator
from rnnlab.core.tasks.text import (
    charlm_english_generator,
    charlm_generator,
    charlm_python_generator,
    charlm_stdlib_generator,
    charlm_text_generator,
)

# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

_TASKS: dict[str, Callable[..., TaskData]] = {
    "majority": majority_generator,
    "digits": digits_generator,
    "dyck": dyck_generator,
    "listops": listops_generator,
    "charlm-english": charlm_english_generator,
    "charlm-python": charlm_python_generator,
    "charlm-stdlib": charlm_stdlib_generator,
    "charlm-stdlib-files": charlm_stdlib_files_generator,
    "charlm-stdlib-tree": charlm_stdlib_tree_generator,
    "charlm-text": charlm_text_generator,
    "memorize": memorize_generator,
}

_SIZE_ARGS = ("n_train", "n_val", "n_test", "seed")


def task_options(name: str) -> dict[str, Any]:
    """The options ``make_task(name, ...)`` accepts, with their defaults.

    >>> task_options("majority")
    {'seq_len': 48, 'num_tokens': 10}
    """
    if name not in _TASKS:
        raise ValueError(f"name must be one of {task_names()}, got {name!r}")
    generator = _TASKS[name]
    if any(
        p.kind is inspect.Parameter.VAR_KEYWORD
        for p in inspect.signature(generator).parameters.values()
    ):
        generator = charlm_generator  # the corpus tasks that forward **kwargs to it
    return {
        key: parameter.default
        for key, parameter in inspect.signature(generator).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and key not in _SIZE_ARGS
    }


def task_doc(name: str) -> str:
    """The full documentation of one task: vocabulary, lengths, targets, metric, options."""
    if name not in _TASKS:
        raise ValueError(f"name must be one of {task_names()}, got {name!r}")
    return inspect.cleandoc(_TASKS[name].__doc__ or "")


def task_names() -> list[str]:
    """The names :func:`make_task` accepts, in the order the course introduces them."""
    return list(_TASKS)


def make_task(
    name: str, *, n_train: int, n_val: int, n_test: int, seed: int, **options: Any
) -> TaskData:
    """Build one task's train, validation and test splits.

    Args:
        name: one of :func:`task_names`. :func:`task_doc` documents each task (vocabulary,
            lengths, targets, metric) and :func:`task_options` lists its options and defaults.
        n_train: training-set size (>= 1), the variable of the data-size experiments.
        n_val: validation-set size (>= 0).
        n_test: test-set size (>= 0).
        seed: integer >= 0; the same arguments always give identical tensors.
        **options: task options, e.g. ``seq_len=32`` or ``depth_range=(1, 4)``.

    Returns:
        A :class:`TaskData` of CPU tensors.

    Raises:
        ValueError: unknown ``name`` or option, or an option, size or seed out of range; the
            message names the parameter, the value and what is allowed.
    """
    if name not in _TASKS:
        raise ValueError(f"name must be one of {task_names()}, got {name!r}")
    seed = check_int("seed", seed, 0, 2**63 - 1)
    allowed = list(task_options(name))
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown option {unknown[0]!r} for task {name!r}; allowed options: {allowed or 'none'}"
        )
    return _TASKS[name](n_train=n_train, n_val=n_val, n_test=n_test, seed=seed, **options)


def describe(task: TaskData) -> str:
    """A one-paragraph plain-text summary of a task, for notebooks."""
    if task.vocab_size is not None:
        inputs = f"token ids over a vocabulary of {task.vocab_size}"
    else:
        inputs = f"{task.input_features} float features per step"
    outputs = {
        "classify": f"one of {task.num_classes} classes per sequence",
        "tag": f"one of {task.num_classes} classes at every scored position",
        "lm": f"the next token (one of {task.num_classes}) at every position",
    }[task.kind]
    metric = {
        "accuracy": "accuracy (fraction of test examples right; higher is better)",
        "sequence_accuracy": "sequence accuracy (fraction of test sequences with every scored "
        "position right; higher is better)",
        "bits_per_char": "bits per character (mean cross-entropy in bits; lower is better)",
    }.get(task.metric, task.metric)
    text = (
        f"Task '{task.name}' ({task.kind}): {task.n_train} training, {len(task.x_val)} validation "
        f"and {len(task.x_test)} test sequences of {task.seq_len} steps; inputs are {inputs}; "
        f"the model predicts {outputs}. Metric: {metric}."
    )
    if task.test_groups is not None:
        values, counts = torch.unique(task.test_groups, return_counts=True)
        spread = ", ".join(f"{int(v)}: {int(c)}" for v, c in zip(values, counts, strict=True))
        text += f" Test examples by {task.group_name}: {spread}."
    if task.kind == "lm":
        text += (
            f" Corpus: {task.info['num_chars']:,} characters (Python "
            f"{task.info['python_version']}), {task.vocab_size - 1} characters seen at least "
            f"{task.info['min_count']} times plus one rare-symbol id."
        )
    return text
