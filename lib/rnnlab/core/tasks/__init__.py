"""Deterministic, offline data generators and corpus loaders for the labs.

Every lab asks for its data through one function::

    task = make_task("dyck", n_train=20_000, n_val=1_000, n_test=2_000, seed=0)

and gets a frozen :class:`TaskData`: CPU tensors for the three splits plus everything a model
needs to know about them (vocabulary size, number of classes, the metric to report).

Six tasks, three kinds of output:

==================  ========  =================  ===========================================
name                kind      metric             what the model must do
==================  ========  =================  ===========================================
``majority``        classify  accuracy           name the most frequent token of a sequence
``digits``          classify  accuracy           read an 8x8 digit image row by row
``dyck``            tag       sequence_accuracy  at every position, name the bracket to close
``listops``         classify  accuracy           evaluate a nested MAX/MIN/SM expression
``charlm-english``  lm        bits_per_char      predict the next character of English prose
``charlm-python``   lm        bits_per_char      predict the next character of Python source
==================  ========  =================  ===========================================

Shapes, with :math:`N` examples of :math:`T` steps:

* ``classify``: ``x`` is ``(N, T)`` int64 token ids (or ``(N, T, F)`` float32 features for
  ``digits``), ``y`` is ``(N,)`` int64 class ids.
* ``tag``: ``x`` is ``(N, T)``, ``y`` is ``(N, T)`` int64 with ``-100`` (PyTorch's
  ``ignore_index``) at positions that are not scored.
* ``lm``: ``x`` is ``(N, T)`` and ``y`` is ``(N, T)``, the same character stream shifted by one:
  ``y[n, t] == x[n, t + 1]``.

Reproducibility rules, kept by every generator:

* Randomness comes only from a private :class:`numpy.random.Generator` per split, seeded from
  ``(seed, task, split)``; global RNG state is never read or changed.
* The same arguments give identical tensors.
* The test set depends only on ``(seed, n_test, options)`` and the validation set only on
  ``(seed, n_val, n_test, options)``: changing ``n_train`` (the data-size experiments) never
  changes what a model is evaluated on.
* Training sets are *nested*: the first ``n`` training examples for ``n_train=n`` equal the
  first ``n`` for any larger ``n_train``.
* Generated validation and test examples never occur in the training set (and test examples not
  in validation); rows are compared exactly.
"""

from rnnlab.core.tasks.base import IGNORE_INDEX, TaskData, TaskKind
from rnnlab.core.tasks.listops import listops_eval, listops_max_len
from rnnlab.core.tasks.registry import describe, make_task, task_doc, task_names, task_options
from rnnlab.core.tasks.synthetic import dyck_targets
from rnnlab.core.tasks.text import PYTHON_CORPUS_FILES, charlm_window_starts

__all__ = [
    "TaskKind",
    "TaskData",
    "make_task",
    "task_names",
    "task_options",
    "task_doc",
    "describe",
    "dyck_targets",
    "listops_eval",
    "listops_max_len",
    "charlm_window_starts",
    "PYTHON_CORPUS_FILES",
    "IGNORE_INDEX",
]
