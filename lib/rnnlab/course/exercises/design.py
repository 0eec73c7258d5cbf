"""The design chapter (chapter 5): projections (LSTMP counts), what depth costs (FLOPs and the
critical path)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rnnlab.course.exercises.checking import (
    CheckReport,
    MultipleChoice,
    PredictionReport,
    compare_cases,
    prediction_value,
    report,
    report_prediction,
)

#: The design chapter: why can a deeper stack be slower at the same FLOPs per token?
CRITICAL_PATH = MultipleChoice(
    "check_critical_path_answer",
    {
        "A": "No: a multiply-add costs the same in any layer.",
        "B": (
            "Right: layer l at time t must wait for layer l at t-1 and for layer l-1 at t. A naive "
            "stack runs L*T dependent steps (L+T-1 with a wavefront), each a matrix product about "
            "1/sqrt(2L-1) as wide, which keeps less of the hardware busy. Same FLOPs, longer "
            "sequential path."
        ),
        "C": "No: the models are matched to the same number of parameters (within 2%).",
        "D": (
            "No: torch.nn.LSTM (and cuDNN) run multi-layer stacks natively; the cost is in the "
            "dependencies between steps, not in missing support."
        ),
    },
    "B",
)


def check_critical_path_answer(answer: Any) -> str:
    """Design chapter: "why can a deeper stack be slower at equal FLOPs per token?" (options
    A-D; see :data:`CRITICAL_PATH`)."""
    return CRITICAL_PATH(answer)


#: (input_size, hidden_size, proj_size, num_layers) configurations tried by
#: :func:`check_lstmp_count`: tiny and larger, p = 1 and p = h - 1, one to four layers.
LSTMP_CASES: tuple[dict[str, int], ...] = tuple(
    {"input_size": m, "hidden_size": h, "proj_size": p, "num_layers": n}
    for m, h, p, n in [
        (1, 2, 1, 1),
        (3, 5, 4, 1),
        (3, 16, 8, 2),
        (10, 10, 3, 2),
        (64, 8, 2, 1),
        (7, 32, 16, 3),
        (32, 128, 32, 4),
        (100, 33, 1, 2),
    ]
)


def _torch_lstmp_count(input_size: int, hidden_size: int, proj_size: int, num_layers: int) -> int:
    import torch

    module = torch.nn.LSTM(input_size, hidden_size, num_layers, proj_size=proj_size)
    return sum(p.numel() for p in module.parameters())


def check_lstmp_count(answer: Callable[[int, int, int, int], int]) -> CheckReport:
    """Check ``answer(input_size, hidden_size, proj_size, num_layers)`` against
    ``torch.nn.LSTM(..., proj_size=proj_size)``, counted by ``sum(p.numel())``, on
    :data:`LSTMP_CASES`. Exact integers only."""
    return report(compare_cases("check_lstmp_count", answer, _torch_lstmp_count, LSTMP_CASES))


def check_flops_prediction(
    prediction: Any,
    *,
    budget: int = 100_000,
    num_layers: int = 4,
    vocab: int = 96,
    embedding_dim: int = 32,
    tolerance: float = 0.1,
) -> PredictionReport:
    r"""Compare a prediction, written down *before* computing, with the forward FLOPs per token
    of a ``num_layers``-layer character LM as a share of the one-layer model's, both matched to
    ``budget`` parameters (:func:`rnnlab.core.models.matched_config`,
    :func:`rnnlab.core.cost.model_forward_flops`).

    Any positive number up to 10 passes (a prediction may be wrong: that is the point of making
    one); anything else raises :class:`AssertionError`. Since the forward FLOPs are about
    twice the weights that are used per token, and the budget holds the weights nearly fixed, the
    share is close to 1; the embedding (a lookup, no FLOPs) and the head's width move it a little.
    """
    value = prediction_value(
        "check_flops_prediction", prediction, "a share of FLOPs", "1.0 = as many as one layer"
    )
    from rnnlab.core import cost
    from rnnlab.core.models import matched_config

    flops = {}
    for layers in (1, num_layers):
        config, _ = matched_config(
            kind="lm", budget=budget, num_layers=layers, num_classes=vocab, vocab_size=vocab,
            embedding_dim=embedding_dim,
        )  # fmt: skip
        flops[layers] = cost.model_forward_flops(embedding_dim, config.hidden_size, layers, vocab)
    return report_prediction(
        "check_flops_prediction",
        value,
        flops[num_layers] / flops[1],
        tolerance=tolerance,
        measured=f"{budget:,} parameters, L={num_layers}: {flops[num_layers]:,} forward FLOPs "
        f"per token; L=1: {flops[1]:,}",
        hint="FLOPs follow the weights, not the layers",
    )
