"""Chapter 1 (counting parameters): the GRU count, the matched width, the stack formula, the
halving prediction and the depth-coefficient question."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from typing import Any

from rnnlab.core import params
from rnnlab.course.exercises.checking import (
    CheckReport,
    MultipleChoice,
    PredictionReport,
    compare_cases,
    prediction_value,
    report,
    report_prediction,
)

#: (input_size, hidden_size, num_layers) configurations tried by the counting checks: tiny and
#: larger sizes, m < d, m = d, m > d, and one to four layers.
COUNT_CASES: tuple[dict[str, int], ...] = tuple(
    {"input_size": m, "hidden_size": d, "num_layers": n}
    for m, d, n in [
        (1, 1, 1),
        (3, 5, 1),
        (3, 16, 2),
        (10, 10, 2),
        (64, 8, 1),
        (7, 32, 3),
        (32, 128, 4),
        (100, 33, 2),
    ]
)


def _torch_gru_count(input_size: int, hidden_size: int, num_layers: int) -> int:
    import torch

    module = torch.nn.GRU(input_size, hidden_size, num_layers)
    return sum(p.numel() for p in module.parameters())


def check_gru_count(answer: Callable[[int, int, int], int]) -> CheckReport:
    r"""Check ``answer(input_size, hidden_size, num_layers)`` against ``torch.nn.GRU``.

    The reference is ``sum(p.numel() for p in torch.nn.GRU(m, d, L).parameters())`` (which
    :func:`rnnlab.core.params.gru_param_count` also equals): :math:`3(dm + (2L-1)d^2 + 2Ld)`.
    Prints the report; raises :class:`AssertionError` unless every case is exact.
    """
    return report(compare_cases("check_gru_count", answer, _torch_gru_count, COUNT_CASES))


#: (budget, input_size, num_layers) configurations tried by :func:`check_matched_width`.
WIDTH_CASES: tuple[dict[str, int], ...] = tuple(
    {"budget": b, "input_size": m, "num_layers": n}
    for b, m, n in [
        (10_000, 10, 1),
        (10_000, 10, 2),
        (20_000, 8, 4),
        (50_000, 32, 3),
        (100_000, 1, 2),
        (400_000, 64, 2),
        (1_000_000, 128, 4),
        (263_168, 256, 1),
    ]
)


def check_matched_width(answer: Callable[[int, int, int], int]) -> CheckReport:
    r"""Check ``answer(budget, input_size, num_layers)``: the width of a ``torch.nn.LSTM`` stack
    whose parameter count is nearest the budget.

    The reference is :func:`rnnlab.core.params.matched_width` (LSTM, two biases, no head). An
    answer is
    accepted when it is the same width, or another width whose count is exactly as near the budget
    (a tie). The report's differences are in units of hidden size.
    """

    def reference(budget: int, input_size: int, num_layers: int) -> int:
        return params.matched_width(budget, input_size, num_layers).hidden_size

    def accept(case: Mapping[str, Any], expected: Any, got: Any) -> bool:
        if isinstance(got, bool) or not isinstance(got, numbers.Integral) or got < 1:
            return False
        m, n, budget = case["input_size"], case["num_layers"], case["budget"]
        best = abs(params.lstm_param_count(m, expected, n) - budget)
        return abs(params.lstm_param_count(m, int(got), n) - budget) == best

    return report(
        compare_cases("check_matched_width", answer, reference, WIDTH_CASES, accept=accept)
    )


def check_stack_formula(answer: Callable[[], Any], *, bidirectional: bool = False) -> CheckReport:
    r"""Check ``answer()``: a sympy expression in ``d, m, L`` (from
    :func:`rnnlab.core.params.symbols`)
    for the parameters of an :math:`L`-layer ``torch.nn.LSTM`` (``bidirectional`` or not).

    The expression is evaluated at every configuration of :data:`COUNT_CASES` and compared with
    ``sum(p.numel())`` of ``torch.nn.LSTM(m, d, L, bidirectional=bidirectional)``; an expression
    that uses other symbols fails. (The one-directional answer is
    :func:`rnnlab.core.params.symbolic_stack_count`.)
    """
    import sympy
    import torch

    if not isinstance(bidirectional, bool):
        raise ValueError(f"bidirectional must be True or False, got {bidirectional!r}")
    d, m, L = params.symbols()

    def evaluate(input_size: int, hidden_size: int, num_layers: int) -> Any:
        expr = sympy.sympify(answer())
        value = expr.subs({d: hidden_size, m: input_size, L: num_layers})
        if value.free_symbols:
            names = sorted(str(s) for s in value.free_symbols)
            raise ValueError(
                f"the expression must use only the symbols d, m, L of "
                f"rnnlab.core.params.symbols(), "
                f"found {names} left after substituting them"
            )
        value = sympy.nsimplify(value)
        return int(value) if value.is_integer else float(value)

    def reference(input_size: int, hidden_size: int, num_layers: int) -> int:
        module = torch.nn.LSTM(input_size, hidden_size, num_layers, bidirectional=bidirectional)
        return sum(p.numel() for p in module.parameters())

    name = "check_stack_formula" + ("(bidirectional)" if bidirectional else "")
    return report(compare_cases(name, evaluate, reference, COUNT_CASES))


def check_halving_prediction(
    prediction: Any,
    *,
    input_size: int = 32,
    hidden_size: int = 512,
    num_layers: int = 3,
    tolerance: float = 0.05,
) -> PredictionReport:
    r"""Compare a prediction, written down *before* counting, with the count of real modules.

    Builds ``torch.nn.LSTM(input_size, hidden_size // 2, num_layers)`` and
    ``torch.nn.LSTM(input_size, hidden_size)``, counts their parameters and prints the share the
    half-width stack holds of the one-layer budget, the prediction, and how far apart they are.
    A prediction may be wrong (that is the point of making one): any number in ``(0, 10]`` passes.
    Anything else (``None``, text, a negative number) raises :class:`AssertionError`.

    For :math:`d \gg m` the share tends to :math:`(2L-1)/4`, so three layers at half width hold
    *more* than one layer at full width.
    """
    value = prediction_value(
        "check_halving_prediction", prediction, "a share of a budget", "1.0 = the whole budget"
    )
    import torch

    half = max(1, hidden_size // 2)
    stack = sum(p.numel() for p in torch.nn.LSTM(input_size, half, num_layers).parameters())
    single = sum(p.numel() for p in torch.nn.LSTM(input_size, hidden_size).parameters())
    return report_prediction(
        "check_halving_prediction",
        value,
        stack / single,
        tolerance=tolerance,
        measured=f"{num_layers} layers at d={half}: {stack:,} parameters; "
        f"1 layer at d={hidden_size}: {single:,}",
        hint="compare with the limit (2L-1)/4",
        note=f"(2L-1)/4 = {(2 * num_layers - 1) / 4:g}",
    )


#: Chapter 1: why is the d^2 coefficient of an L-layer stack 4(2L-1)?
DEPTH_COEFFICIENT = MultipleChoice(
    "check_depth_coefficient_answer",
    {
        "A": "No: each layer has ONE recurrent matrix per gate (W_h*, d x d).",
        "B": (
            "Right: layers 2..L read the d-dimensional hidden state below them, so each has a "
            "d x d input matrix besides its d x d recurrent matrix: 1 + 2(L-1) = 2L-1 blocks of "
            "d^2 per gate."
        ),
        "C": "No: biases are vectors of length d; they add 4d per bias and layer, never d^2.",
        "D": "No: every layer of torch.nn.LSTM has its own matrices; nothing is shared.",
    },
    "B",
)


def check_depth_coefficient_answer(answer: Any) -> str:
    """Chapter 1: "why is the d^2 coefficient 4(2L-1)?" (options A-D; see
    :data:`DEPTH_COEFFICIENT`)."""
    return DEPTH_COEFFICIENT(answer)
