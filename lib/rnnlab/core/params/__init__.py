r"""Exact parameter counts for PyTorch recurrent stacks, and budget matching.

Every count here is pure integer arithmetic and equals
``sum(p.numel() for p in module.parameters())`` of the matching ``torch.nn`` module; the tests
check that against torch. This module does not import torch. :mod:`sympy` is imported only
inside the symbolic helpers.

**What a recurrent layer holds.** A layer with ``G`` gates (LSTM 4, GRU 3, plain RNN 1), hidden
size :math:`d` and input size :math:`m` holds, per direction,

- ``weight_ih_l[k]`` of shape ``(G*d, m)`` for ``k = 0``, ``(G*d, D*d)`` above (``D`` = 2 when
  bidirectional, else 1),
- ``weight_hh_l[k]`` of shape ``(G*d, d)``,
- ``bias_ih_l[k]`` and ``bias_hh_l[k]``, each of shape ``(G*d,)``, when ``bias=True``,

so the first layer of a one-directional stack has :math:`G(dm + d^2 + 2d)` parameters and every
layer above it :math:`G(d^2 + d^2 + 2d)`. PyTorch keeps **two** bias vectors per layer because it
copies cuDNN's layout; for the LSTM they are redundant (only their sum matters) but both are
trainable parameters and both count. Textbooks usually write one, :math:`G(dm + d^2 + d)`; see
:func:`textbook_lstm_param_count`.

**Budget matching.** Without projections the total count of a stack plus a linear head is a
quadratic in the hidden size, :math:`P(d) = a d^2 + b d + c` with :math:`a > 0,\ b > 0`, strictly
increasing for :math:`d \ge 1`; :func:`matched_width` solves :math:`P(d) = \text{budget}` exactly.

**Design options for deep stacks** (the design chapter):

- *projections* (LSTMP, ``proj_size`` :math:`p`, :math:`1 \le p \le h-1`): each layer adds
  ``weight_hr_l[k]`` ``(p, h)``, its recurrent and output width becomes :math:`p`, so the
  :math:`(2L-1)d^2` term becomes :math:`(9L-4)\,hp` for an LSTM (:func:`symbolic_stack_count`);
- *residual connections* between layers 2..L add the layer input to its output: equal widths,
  no parameters (:func:`residual_param_count`);
- *LayerNorm* on each layer's output: :math:`2r` per layer (:func:`layer_norm_param_count`).

:func:`stack_param_count` and :func:`total_param_count` count them; :func:`matched_width` matches
a budget with them (``proj_size`` fixed, or a ``proj_ratio`` :math:`p/h`).

The counts are in :mod:`~rnnlab.core.params.counts`, budget matching in
:mod:`~rnnlab.core.params.matching`, the symbolic forms in :mod:`~rnnlab.core.params.symbolic`;
this package exports all of them.
"""

from __future__ import annotations

from rnnlab.core.params.counts import (
    Mode,
    embedding_param_count,
    gate_count,
    gru_param_count,
    layer_norm_param_count,
    linear_param_count,
    lstm_param_count,
    normalize_mode,
    recurrent_param_count,
    residual_param_count,
    rnn_param_count,
    stack_output_size,
    stack_param_count,
    textbook_lstm_param_count,
    total_param_count,
)
from rnnlab.core.params.matching import (
    WidthMatch,
    asymptotic_matched_width,
    halving_ratio,
    matched_width,
    min_budget,
    proj_size_for_ratio,
    quadratic_coefficients,
)
from rnnlab.core.params.symbolic import (
    proj_symbol,
    symbolic_layer_count,
    symbolic_stack_count,
    symbols,
)

__all__ = [
    "asymptotic_matched_width",
    "embedding_param_count",
    "gate_count",
    "gru_param_count",
    "halving_ratio",
    "layer_norm_param_count",
    "linear_param_count",
    "lstm_param_count",
    "matched_width",
    "min_budget",
    "Mode",
    "normalize_mode",
    "proj_size_for_ratio",
    "proj_symbol",
    "quadratic_coefficients",
    "recurrent_param_count",
    "residual_param_count",
    "rnn_param_count",
    "stack_output_size",
    "stack_param_count",
    "symbolic_layer_count",
    "symbolic_stack_count",
    "symbols",
    "textbook_lstm_param_count",
    "total_param_count",
    "WidthMatch",
]
