r"""Self-checks for the exercises: say *how close* an answer is, not just pass or fail.

Every exercise in the course asks for a function. Its self-check calls that function on a fixed set
of configurations (*cases*), compares each answer with a reference (the library, or ``torch``
itself) and prints one line in the spirit of Karpathy's ``cmp()`` in *makemore*::

    check_gru_count: 7/8 cases exact | max abs diff 96 (rel 1.2%) | first failing case:
        input_size=3, hidden_size=16, num_layers=2 -> expected 3,936, got 3,840

A wrong answer raises :class:`AssertionError` (so a notebook cell fails and nbval notices); an
unfinished exercise (a stub that raises :class:`NotImplementedError`) fails the same way, with a
message that says so. A value exercise (a prediction, a multiple-choice answer) left at the
student edition's stub ``my_effect = ...`` raises :class:`NotAnswered`, whose message starts
"not answered yet" and says what to write.

Other chapters add checks by calling :func:`compare_cases` and :func:`report`:

>>> def double(x):
...     return 2 * x
>>> check = report(compare_cases("double", double, lambda x: x + x, [{"x": 1}, {"x": 5}]))
double: 2/2 cases exact | max abs diff 0 | OK
>>> check.passed
True
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rnnlab import params

#: The student edition's stub of a value exercise (``my_effect = ...``): not answered yet.
NOT_ANSWERED = Ellipsis


class NotAnswered(AssertionError):
    """A self-check was given :data:`NOT_ANSWERED`: the exercise is not answered yet."""


def _require_answer(check: str, value: Any, what: str) -> None:
    """Raise :class:`NotAnswered` naming ``check`` and ``what`` to write if ``value`` is ``...``."""
    if value is NOT_ANSWERED:
        raise NotAnswered(
            f"{check}: not answered yet. Replace the ... in the cell above with {what}, run that "
            "cell, then run this check again."
        )


__all__ = [
    "NOT_ANSWERED",
    "NotAnswered",
    "CaseResult",
    "CheckReport",
    "MultipleChoice",
    "PredictionReport",
    "check_bits_per_char",
    "check_critical_path_answer",
    "check_depth_coefficient_answer",
    "check_effect_prediction",
    "check_halving_prediction",
    "check_narrow_state_answer",
    "check_scale_reading_answer",
    "check_split_answer",
    "check_depth_advantage",
    "check_gru_count",
    "check_matched_width",
    "check_own_text_record",
    "check_model_width",
    "check_flops_prediction",
    "check_four_verdicts",
    "check_lstmp_count",
    "check_paired_interval",
    "check_verdict_rule",
    "check_welch_interval",
    "check_stack_formula",
    "compare_cases",
    "report",
]


@dataclass(frozen=True)
class CaseResult:
    """One configuration of a check: what was expected, what came back, and whether it passed.

    Attributes:
        case: the keyword arguments the student's function was called with.
        expected: the reference answer.
        got: the student's answer (``None`` when the call raised).
        passed: whether ``got`` is accepted.
        abs_diff: :math:`|got - expected|` for numbers (``math.inf`` when not comparable).
        error: the exception text when the call raised, else ``""``.
    """

    case: Mapping[str, Any]
    expected: Any
    got: Any
    passed: bool
    abs_diff: float
    error: str = ""

    def describe(self) -> str:
        """``input_size=3, hidden_size=16 -> expected 3,936, got 3,840`` (or the error)."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.case.items())
        if self.error:
            return f"{args} -> raised {self.error}"
        return f"{args} -> expected {_fmt(self.expected)}, got {_fmt(self.got)}"


@dataclass(frozen=True)
class CheckReport:
    """The outcome of one self-check over several cases.

    Attributes:
        name: the check's name, e.g. ``"check_gru_count"``.
        results: one :class:`CaseResult` per case, in order.
        not_implemented: True when the answer raised :class:`NotImplementedError` (an unfinished
            exercise).
    """

    name: str
    results: tuple[CaseResult, ...] = field(default_factory=tuple)
    not_implemented: bool = False

    @property
    def n_cases(self) -> int:
        """How many cases were tried."""
        return len(self.results)

    @property
    def n_passed(self) -> int:
        """How many cases were accepted."""
        return sum(r.passed for r in self.results)

    @property
    def passed(self) -> bool:
        """True when every case was accepted (and there was at least one)."""
        return not self.not_implemented and self.n_cases > 0 and self.n_passed == self.n_cases

    @property
    def max_abs_diff(self) -> float:
        """The largest :math:`|got - expected|` over all cases (``inf`` if any is not numeric)."""
        return max((r.abs_diff for r in self.results), default=math.inf)

    @property
    def max_rel_diff(self) -> float:
        """The largest :math:`|got - expected| / |expected|` over the numeric cases."""
        rels = [
            r.abs_diff / abs(r.expected)
            for r in self.results
            if _is_number(r.expected) and r.expected != 0 and math.isfinite(r.abs_diff)
        ]
        return max(rels, default=math.inf if self.results else 0.0)

    @property
    def first_failure(self) -> CaseResult | None:
        """The first case that was not accepted, or ``None``."""
        return next((r for r in self.results if not r.passed), None)

    def summary(self) -> str:
        """One line: cases accepted, the largest difference, and the first failing case."""
        if self.not_implemented:
            return (
                f"{self.name}: not answered yet, not implemented (the function still raises "
                "NotImplementedError: write its body, run its cell, then this check)"
            )
        head = f"{self.name}: {self.n_passed}/{self.n_cases} cases exact"
        diff = self.max_abs_diff
        if math.isfinite(diff):
            head += f" | max abs diff {_fmt(diff)}"
            if diff and math.isfinite(self.max_rel_diff):
                head += f" (rel {self.max_rel_diff:.2%})"
        else:
            head += " | some answers are not comparable numbers"
        failure = self.first_failure
        if failure is None:
            return head + " | OK"
        return head + f" | first failing case: {failure.describe()}"

    def __str__(self) -> str:
        return self.summary()


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _fmt(value: Any) -> str:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return f"{float(value):,.6g}"
    return repr(value)


def _abs_diff(expected: Any, got: Any) -> float:
    if _is_number(expected) and _is_number(got):
        return abs(float(got) - float(expected))
    return 0.0 if expected == got else math.inf


def compare_cases(
    name: str,
    answer: Callable[..., Any],
    reference: Callable[..., Any],
    cases: Sequence[Mapping[str, Any]],
    *,
    atol: float = 0.0,
    accept: Callable[[Mapping[str, Any], Any, Any], bool] | None = None,
) -> CheckReport:
    """Call ``answer(**case)`` and ``reference(**case)`` for every case and compare them.

    Args:
        name: the check's name, shown in the report.
        answer: the student's function.
        reference: the correct function (the library or torch).
        cases: keyword-argument dicts, at least one.
        atol: numbers within ``atol`` of the reference are accepted (0: exact).
        accept: optional ``accept(case, expected, got) -> bool`` that overrides the comparison,
            for answers with more than one right value (e.g. ties).

    Returns:
        A :class:`CheckReport`. It does not raise for a wrong answer; :func:`report` does.
        A :class:`NotImplementedError` from ``answer`` stops the check and marks the report
        ``not_implemented``; any other exception fails that case and is shown in the report.
    """
    if not cases:
        raise ValueError("cases must be a non-empty sequence of keyword dicts, got 0 cases")
    if atol < 0 or not math.isfinite(atol):
        raise ValueError(f"atol must be a finite number >= 0, got {atol!r}")
    results: list[CaseResult] = []
    for case in cases:
        expected = reference(**case)
        try:
            got = answer(**case)
        except NotImplementedError:
            return CheckReport(name=name, results=tuple(results), not_implemented=True)
        except Exception as exc:  # noqa: BLE001 - any error in student code is a failed case
            results.append(
                CaseResult(case, expected, None, False, math.inf, f"{type(exc).__name__}: {exc}")
            )
            continue
        diff = _abs_diff(expected, got)
        if accept is not None:
            ok = bool(accept(case, expected, got))
        else:
            ok = diff <= atol
        results.append(CaseResult(case, expected, got, ok, diff))
    return CheckReport(name=name, results=tuple(results))


def report(check: CheckReport, *, raise_on_failure: bool = True) -> CheckReport:
    """Print ``check.summary()`` and raise :class:`AssertionError` if it did not pass.

    Returns the report unchanged, so a notebook cell can keep it for a closer look
    (``check.results``).
    """
    print(check.summary())
    if raise_on_failure and not check.passed:
        raise AssertionError(check.summary())
    return check


# --------------------------------------------------------------------------------------------
# Chapter 1: counting parameters
# --------------------------------------------------------------------------------------------

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
    :func:`rnnlab.params.gru_param_count` also equals): :math:`3(dm + (2L-1)d^2 + 2Ld)`.
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

    The reference is :func:`rnnlab.params.matched_width` (LSTM, two biases, no head). An answer is
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
    r"""Check ``answer()``: a sympy expression in ``d, m, L`` (from :func:`rnnlab.params.symbols`)
    for the parameters of an :math:`L`-layer ``torch.nn.LSTM`` (``bidirectional`` or not).

    The expression is evaluated at every configuration of :data:`COUNT_CASES` and compared with
    ``sum(p.numel())`` of ``torch.nn.LSTM(m, d, L, bidirectional=bidirectional)``; an expression
    that uses other symbols fails. (The one-directional answer is
    :func:`rnnlab.params.symbolic_stack_count`.)
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
                f"the expression must use only the symbols d, m, L of rnnlab.params.symbols(), "
                f"found {names} left after substituting them"
            )
        value = sympy.nsimplify(value)
        return int(value) if value.is_integer else float(value)

    def reference(input_size: int, hidden_size: int, num_layers: int) -> int:
        module = torch.nn.LSTM(input_size, hidden_size, num_layers, bidirectional=bidirectional)
        return sum(p.numel() for p in module.parameters())

    name = "check_stack_formula" + ("(bidirectional)" if bidirectional else "")
    return report(compare_cases(name, evaluate, reference, COUNT_CASES))


# --------------------------------------------------------------------------------------------
# Labs: statistics and fair comparisons
# --------------------------------------------------------------------------------------------

#: Pairs of per-seed scores (wide, deep) tried by the interval and verdict checks.
SCORE_CASES: tuple[dict[str, Any], ...] = (
    {"wide": (0.90, 0.92, 0.88, 0.95, 0.91), "deep": (0.80, 0.83, 0.79, 0.85, 0.81)},
    {"wide": (0.60, 0.61, 0.59, 0.62, 0.60), "deep": (0.66, 0.64, 0.65, 0.69, 0.70)},
    {"wide": (1.0, 1.2, 0.9, 1.1), "deep": (1.5, 1.7, 1.4, 1.9, 1.6)},
    {"wide": (0.5, 0.7, 0.4, 0.6, 0.55), "deep": (0.52, 0.68, 0.45, 0.61, 0.5)},
)


def _welch_reference(wide: Sequence[float], deep: Sequence[float]) -> tuple[float, float, float]:
    from rnnlab import stats

    diff, low, high, _ = stats.welch_interval(list(wide), list(deep))
    return (float(diff), float(low), float(high))


def _tuple_diff(expected: Any, got: Any) -> float:
    try:
        return max(abs(float(a) - float(b)) for a, b in zip(expected, got, strict=True))
    except (TypeError, ValueError):
        return math.inf


def _check_interval(
    name: str,
    answer: Callable[..., Any],
    reference: Callable[..., Any],
    cases: Sequence[Mapping[str, Any]],
    atol: float = 1e-6,
) -> CheckReport:
    """Check an answer that returns a ``(diff, low, high)`` tuple, accepted when every entry is
    within ``atol`` of the reference; the report shows the largest entry-wise distance."""

    def accept(case: Mapping[str, Any], expected: Any, got: Any) -> bool:
        return _tuple_diff(expected, got) <= atol

    check = compare_cases(name, answer, reference, cases, accept=accept)
    # compare_cases measures differences of numbers only; show the tuple distance instead
    results = tuple(
        CaseResult(r.case, r.expected, r.got, r.passed, _tuple_diff(r.expected, r.got), r.error)
        if not r.error
        else r
        for r in check.results
    )
    return report(CheckReport(check.name, results, check.not_implemented))


def check_welch_interval(answer: Callable[[Sequence[float], Sequence[float]], Any]) -> CheckReport:
    r"""Check ``answer(wide, deep) -> (diff, low, high)``: the difference of means
    :math:`\bar x_\text{deep} - \bar x_\text{wide}` and its 95% Welch interval.

    Reference: :func:`rnnlab.stats.welch_interval` (which equals SciPy's
    ``ttest_ind(deep, wide, equal_var=False).confidence_interval()``). Accepted within 1e-6.
    """
    return _check_interval("check_welch_interval", answer, _welch_reference, SCORE_CASES)


#: (low, high, claim) cases of the verdict rule, including the edge cases.
VERDICT_CASES: tuple[dict[str, Any], ...] = tuple(
    {"low": lo, "high": hi, "claim": c}
    for lo, hi in [(0.01, 0.2), (-0.3, -0.02), (-0.1, 0.1), (0.0, 0.3), (-0.2, 0.0)]
    for c in ("depth", "width")
)


def check_verdict_rule(answer: Callable[[float, float, str], str]) -> CheckReport:
    """Check ``answer(low, high, claim) -> "supported" | "contradicted" | "inconclusive"``: the
    course's pre-declared rule for a 95% interval of (depth − width), positive = depth better.

    Reference: :func:`rnnlab.stats.verdict_from_interval`. An interval that touches 0 does not
    exclude it.
    """
    from rnnlab import stats

    def accept(case: Mapping[str, Any], expected: Any, got: Any) -> bool:
        return got == expected

    return report(
        compare_cases(
            "check_verdict_rule", answer, stats.verdict_from_interval, VERDICT_CASES, accept=accept
        )
    )


#: Task-shaped models tried by :func:`check_model_width`.
MODEL_CASES: tuple[dict[str, Any], ...] = (
    {"budget": 8_000, "vocab_size": 10, "embedding_dim": 16, "num_classes": 10, "num_layers": 1},
    {"budget": 8_000, "vocab_size": 10, "embedding_dim": 16, "num_classes": 10, "num_layers": 4},
    {"budget": 50_000, "vocab_size": 96, "embedding_dim": 32, "num_classes": 96, "num_layers": 2},
    {"budget": 100_000, "vocab_size": 96, "embedding_dim": 32, "num_classes": 96, "num_layers": 3},
    {"budget": 20_000, "vocab_size": 16, "embedding_dim": 16, "num_classes": 10, "num_layers": 2},
)


def check_model_width(answer: Callable[..., int]) -> CheckReport:
    r"""Check ``answer(budget, vocab_size, embedding_dim, num_classes, num_layers) -> int``: the
    hidden size whose *total* count (embedding :math:`Ve` + LSTM + head :math:`dC + C`) is nearest
    the budget.

    Reference: :func:`rnnlab.models.matched_config` (ties accepted). Differences are in units.
    """
    from rnnlab.models import ModelConfig

    def total(case: Mapping[str, Any], width: int) -> int:
        return ModelConfig(
            kind="classify",
            num_layers=case["num_layers"],
            hidden_size=width,
            num_classes=case["num_classes"],
            vocab_size=case["vocab_size"],
            embedding_dim=case["embedding_dim"],
        ).param_count()

    def reference(budget, vocab_size, embedding_dim, num_classes, num_layers) -> int:
        emb = params.embedding_param_count(vocab_size, embedding_dim)
        return params.matched_width(
            budget, embedding_dim, num_layers, output_size=num_classes, extra_params=emb
        ).hidden_size

    def accept(case: Mapping[str, Any], expected: Any, got: Any) -> bool:
        if isinstance(got, bool) or not isinstance(got, numbers.Integral) or got < 1:
            return False
        best = abs(total(case, expected) - case["budget"])
        return abs(total(case, int(got)) - case["budget"]) == best

    return report(compare_cases("check_model_width", answer, reference, MODEL_CASES, accept=accept))


#: (mean cross-entropy in nats per character) cases for :func:`check_bits_per_char`.
BPC_CASES: tuple[dict[str, Any], ...] = tuple(
    {"nats_per_char": v} for v in (0.0, 0.6931471805599453, 1.2, 2.5, 4.564348191467836)
)


def check_bits_per_char(answer: Callable[[float], float]) -> CheckReport:
    r"""Check ``answer(nats_per_char) -> bits_per_char``: PyTorch's cross-entropy is in nats
    (natural log); bits per character divide it by :math:`\ln 2`. Accepted within 1e-9."""
    return report(
        compare_cases(
            "check_bits_per_char",
            answer,
            lambda nats_per_char: nats_per_char / math.log(2),
            BPC_CASES,
            atol=1e-9,
        )
    )


#: (wide mean, deep mean, higher_is_better) cases for :func:`check_depth_advantage`.
ADVANTAGE_CASES: tuple[dict[str, Any], ...] = (
    {"wide_mean": 0.9, "deep_mean": 0.8, "higher_is_better": True},
    {"wide_mean": 0.6, "deep_mean": 0.7, "higher_is_better": True},
    {"wide_mean": 2.05, "deep_mean": 1.92, "higher_is_better": False},
    {"wide_mean": 1.70, "deep_mean": 1.76, "higher_is_better": False},
)


def check_depth_advantage(answer: Callable[[float, float, bool], float]) -> CheckReport:
    """Check ``answer(wide_mean, deep_mean, higher_is_better) -> float``: the depth advantage,
    positive when the deep model is better, for accuracies (higher is better) and for bits per
    character (lower is better). Accepted within 1e-12."""
    return report(
        compare_cases(
            "check_depth_advantage",
            answer,
            lambda wide_mean, deep_mean, higher_is_better: (
                (deep_mean - wide_mean) * (1 if higher_is_better else -1)
            ),
            ADVANTAGE_CASES,
            atol=1e-12,
        )
    )


# --------------------------------------------------------------------------------------------
# Labs, version 2: paired intervals and four verdicts
# --------------------------------------------------------------------------------------------

#: Paired per-seed scores (position i of ``wide`` and ``deep`` share seed i).
PAIRED_CASES: tuple[dict[str, Any], ...] = (
    {"wide": (0.90, 0.92, 0.88, 0.95, 0.91), "deep": (0.80, 0.83, 0.79, 0.85, 0.81)},
    {"wide": (0.60, 0.61, 0.59, 0.62, 0.60), "deep": (0.66, 0.64, 0.65, 0.69, 0.70)},
    {"wide": (0.5, 0.7, 0.4, 0.6, 0.55), "deep": (0.52, 0.68, 0.45, 0.61, 0.5)},
    {"wide": (1.0, 1.2, 0.9, 1.1, 1.3, 0.8), "deep": (1.1, 1.25, 1.0, 1.1, 1.45, 0.85)},
)


def _paired_reference(wide: Sequence[float], deep: Sequence[float]) -> tuple[float, float, float]:
    from rnnlab import stats

    c = stats.paired_compare(wide, deep, higher_is_better=True, claim="depth", margin=0.01)
    return (float(c.effect), float(c.ci_low), float(c.ci_high))


def check_paired_interval(answer: Callable[[Sequence[float], Sequence[float]], Any]) -> CheckReport:
    r"""Check ``answer(wide, deep) -> (mean_diff, low, high)``: the mean of the per-seed
    differences :math:`d_s = x^\text{deep}_s - x^\text{wide}_s` and its 95% Student-t interval
    on :math:`n - 1` degrees of freedom.

    Reference: :func:`rnnlab.stats.paired_compare` (equal to SciPy's
    ``ttest_rel(deep, wide).confidence_interval()``). Accepted within 1e-6.
    """
    return _check_interval("check_paired_interval", answer, _paired_reference, PAIRED_CASES)


#: (low, high, margin, claim) cases of the four-verdict rule, with its edge cases.
FOUR_VERDICT_CASES: tuple[dict[str, Any], ...] = tuple(
    {"low": lo, "high": hi, "margin": 0.01, "claim": c}
    for lo, hi in [
        (0.002, 0.03),
        (-0.05, -0.001),
        (-0.004, 0.006),
        (-0.02, 0.005),
        (-0.01, 0.009),
        (0.0, 0.02),
        (0.02, 0.02),
    ]
    for c in ("depth", "width")
)


def check_four_verdicts(answer: Callable[[float, float, float, str], str]) -> CheckReport:
    """Check ``answer(low, high, margin, claim)``: ``"supported"``, ``"contradicted"``,
    ``"equivalent"`` or ``"inconclusive"`` for one cell's 95% interval of (depth - width).

    Reference: :func:`rnnlab.stats.verdict_v2_from_interval` (an interval that touches 0 or the
    margin does not exclude it; a zero-width interval is never decisive)."""
    from rnnlab import stats

    def accept(case: Mapping[str, Any], expected: Any, got: Any) -> bool:
        return got == expected

    return report(
        compare_cases(
            "check_four_verdicts",
            answer,
            stats.verdict_v2_from_interval,
            FOUR_VERDICT_CASES,
            accept=accept,
        )
    )


# --------------------------------------------------------------------------------------------
# Lab B: run it on your own text
# --------------------------------------------------------------------------------------------


def check_own_text_record(record: Mapping[str, Any], path: Any = None) -> CheckReport:
    """Check that a result ``record`` (one line of a results file) was trained on your own text:
    task ``charlm-text``, the file's sha256, size and path recorded, the same sha256 in the
    experiment's labels, and, when the file (``path``, else the recorded one) can be read, that its
    sha256 today is the recorded one, so the number belongs to exactly this text."""
    import hashlib
    from pathlib import Path

    info = record.get("task_info") or {}
    labels = (record.get("experiment") or {}).get("labels") or {}
    recorded = info.get("sha256")
    file = Path(path) if path is not None else Path(info.get("path") or "")
    cases: list[tuple[str, Any, Any]] = [
        ("task", "charlm-text", record.get("task")),
        ("task_info has sha256", True, isinstance(recorded, str) and len(recorded) == 64),
        ("task_info has size_bytes and path", True, "size_bytes" in info and "path" in info),
        ("labels.text_sha256 == task_info.sha256", recorded, labels.get("text_sha256")),
    ]
    if file.is_file():
        cases.append(("sha256 of " + str(file), hashlib.sha256(file.read_bytes()).hexdigest(),
                      recorded))  # fmt: skip
    elif path is not None:
        cases.append((f"file {str(path)!r} exists", True, False))
    results = tuple(
        CaseResult({"check": what}, expected, got, expected == got, _abs_diff(expected, got))
        for what, expected, got in cases
    )
    return report(CheckReport(name="check_own_text_record", results=results))


# --------------------------------------------------------------------------------------------
# Chapter 1: a prediction before running, and a conceptual question
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PredictionReport:
    """What :func:`check_halving_prediction` found: the prediction, the measured share and
    whether the prediction was within ``tolerance`` of it."""

    prediction: float
    actual: float
    tolerance: float

    @property
    def error(self) -> float:
        return self.prediction - self.actual

    @property
    def close(self) -> bool:
        return abs(self.error) <= self.tolerance


def _prediction_value(
    check: str, prediction: Any, what: str, unit: str, low: float = 0.0, high: float = 10.0
) -> float:
    """``prediction`` as a float, or :class:`AssertionError` naming ``check`` unless it is a
    number in ``(low, high]`` (``what`` and ``unit`` say what kind of number is expected)."""
    _require_answer(check, prediction, f"your prediction ({what}, a number)")
    if isinstance(prediction, bool) or not _is_number(prediction):
        raise AssertionError(f"{check}: write your prediction as a number, got {prediction!r}")
    value = float(prediction)
    if not (low < value <= high and math.isfinite(value)):
        raise AssertionError(
            f"{check}: {what} is a number in ({low:g}, {high:g}] ({unit}), got {value!r}"
        )
    return value


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
    value = _prediction_value(
        "check_halving_prediction", prediction, "a share of a budget", "1.0 = the whole budget"
    )
    import torch

    half = max(1, hidden_size // 2)
    stack = sum(p.numel() for p in torch.nn.LSTM(input_size, half, num_layers).parameters())
    single = sum(p.numel() for p in torch.nn.LSTM(input_size, hidden_size).parameters())
    actual = stack / single
    result = PredictionReport(prediction=value, actual=actual, tolerance=float(tolerance))
    verdict = (
        "close: well predicted"
        if result.close
        else f"off by more than {tolerance:.2f}: compare with the limit (2L-1)/4"
    )
    print(
        f"check_halving_prediction: {num_layers} layers at d={half}: {stack:,} parameters; "
        f"1 layer at d={hidden_size}: {single:,} | share {actual:.3f}, your prediction "
        f"{value:.3f} (difference {result.error:+.3f}) | {verdict}; "
        f"(2L-1)/4 = {(2 * num_layers - 1) / 4:g}"
    )
    return result


@dataclass(frozen=True)
class MultipleChoice:
    """A short conceptual question with options ``A``-``D``: feedback for every option (why it is
    right or wrong) and the one right answer. The question itself is in the chapter's text."""

    check: str
    options: Mapping[str, str]
    answer: str

    def __call__(self, answer: Any) -> str:
        """Print the feedback for ``answer``; raise :class:`AssertionError` unless it is right
        (or unless it is one of the options at all). Returns the feedback."""
        _require_answer(self.check, answer, f"one of {', '.join(map(repr, self.options))}")
        key = str(answer).strip().upper().rstrip(".)") if answer is not None else ""
        if key not in self.options:
            raise AssertionError(
                f"{self.check}: answer with one of {', '.join(self.options)}; got {answer!r}"
            )
        feedback = self.options[key]
        print(f"{self.check}: {key}. {feedback}")
        if key != self.answer:
            raise AssertionError(f"{self.check}: {key} is not right. {feedback}")
        return feedback


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

#: Lab A: what does a classifier lose when the stack gets deeper at equal parameters?
NARROW_STATE = MultipleChoice(
    "check_narrow_state_answer",
    {
        "A": (
            "No: equal parameters do not mean equal representations. The parameters are spread "
            "over more layers, so each layer (and the one the head reads) is narrower."
        ),
        "B": (
            "Right: the head reads only the top layer's hidden state at the last timestep. At a "
            "fixed budget the d^2 coefficient grows as 4(2L-1), so d shrinks about as "
            "1/sqrt(2L-1) for large d: at L=4 the state the classifier reads is about "
            "1/sqrt(7), or 38%, as wide as at L=1 (the embedding and head move it a little). "
            "That is the mechanism behind 'width helps classification'."
        ),
        "C": (
            "No: the embedding (where the task has one) is the same size at every depth; only the "
            "hidden size d is matched to the budget."
        ),
        "D": "No: every depth reads the whole sequence; the number of timesteps does not change.",
    },
    "B",
)

#: Lab B: how to read a verdict measured at one scale.
SCALE_READING = MultipleChoice(
    "check_scale_reading_answer",
    {
        "A": (
            "No: that generalises beyond what was measured. The verdict holds at this lab's "
            "budgets and training length; the literature sees depth help character LMs at larger "
            "budgets trained to convergence, a regime this lab does not reach."
        ),
        "B": (
            "Right: a verdict is a statement about the scale it was measured at. Here one wide "
            "layer is ahead at these budgets and this training length, with most groups still "
            "improving; whether depth overtakes at larger budgets or longer training is a "
            "separate measurement (the scale map, in this lab and on the Findings page)."
        ),
        "C": (
            "No: a result that contradicts a claim is still a result. The design was declared "
            "before the runs, the rates were tuned per depth, and every seed is reported."
        ),
        "D": (
            "No: 'equivalent' needs the whole interval inside plus or minus the smallest effect "
            "of interest; an interval entirely on one side of it says that one design is ahead."
        ),
    },
    "B",
)

#: Lab C: why split the examples by a hash of the expression?
HASH_SPLIT = MultipleChoice(
    "check_split_answer",
    {
        "A": "No: speed is not the point; both ways are fast enough for a few thousand examples.",
        "B": (
            "Right: when the space of distinct expressions is small, drawing the test set first "
            "and rejecting its expressions from training pushes whole kinds of expression out of "
            "training (version 1 had no two-argument expression at nesting 1 in any training "
            "set). A hash puts every kind of expression into train, val and test in the same "
            "proportions, so the three splits share one distribution."
        ),
        "C": (
            "No: the hash decides where an expression goes, not how many examples each split gets."
        ),
        "D": (
            "No: the hash partitions the distinct expressions, so no expression is in two splits; "
            "a test expression the model saw in training would measure memory, not composition."
        ),
    },
    "B",
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


def check_depth_coefficient_answer(answer: Any) -> str:
    """Chapter 1: "why is the d^2 coefficient 4(2L-1)?" (options A-D; see
    :data:`DEPTH_COEFFICIENT`)."""
    return DEPTH_COEFFICIENT(answer)


def check_narrow_state_answer(answer: Any) -> str:
    """Lab A: "what does the classifier lose when the stack gets deeper at equal parameters?"
    (options A-D; see :data:`NARROW_STATE`)."""
    return NARROW_STATE(answer)


def check_scale_reading_answer(answer: Any) -> str:
    """Lab B: "how do you read a verdict measured at one budget and training length?"
    (options A-D; see :data:`SCALE_READING`)."""
    return SCALE_READING(answer)


def check_split_answer(answer: Any) -> str:
    """Lab C: "why split ListOps by a hash of the expression?" (options A-D; see
    :data:`HASH_SPLIT`)."""
    return HASH_SPLIT(answer)


def check_critical_path_answer(answer: Any) -> str:
    """Design chapter: "why can a deeper stack be slower at equal FLOPs per token?" (options
    A-D; see :data:`CRITICAL_PATH`)."""
    return CRITICAL_PATH(answer)


# --------------------------------------------------------------------------------------------
# The labs: predict a measured effect, then compare with the committed reference results
# --------------------------------------------------------------------------------------------


def check_effect_prediction(
    prediction: Any,
    *,
    lab: str,
    cell: Mapping[str, object],
    deep: int | None = None,
    profile: str = "cpu",
    tolerance: float = 0.02,
    records: Sequence[dict] | None = None,
) -> PredictionReport:
    """Compare a prediction of a depth advantage, written down *before* reading the results,
    with the mean advantage measured in ``lab``'s committed reference results.

    ``cell`` picks one cell of the lab by its labels (for example ``{"task": "majority"}``); it
    must match exactly one. The advantage is the mean over seeds of the deep model's score minus
    the one-layer model's, oriented so that **positive means the deeper model is better** (for
    bits per character, lower is better). ``deep`` defaults to the lab's comparison depth.
    ``records`` replaces the committed results (for tests). Any number in ``(-1, 1]`` passes: a
    prediction may be wrong, that is the point of making one. The printout says whether its sign
    was right and how far it was from the measurement and from the interval.
    """
    from rnnlab import analysis
    from rnnlab.labs import get_lab, load_reference

    value = _prediction_value(
        "check_effect_prediction", prediction, "a depth advantage", "deep minus wide", -1.0, 1.0
    )
    spec = get_lab(lab)
    deep = spec.deep if deep is None else deep
    if records is None:
        records = load_reference(lab, profile)
    if not records:
        raise ValueError(
            f"check_effect_prediction: lab {lab!r} has no {profile} reference results to compare "
            "with (data/results/)"
        )
    cells = analysis.compare_cells(records, wide=spec.wide, deep=deep, claim="depth")
    chosen = [c for c in cells if all(dict(c.cell).get(k) == v for k, v in cell.items())]
    if len(chosen) != 1:
        raise ValueError(
            f"check_effect_prediction: cell={dict(cell)!r} must match exactly one cell of {lab}; "
            f"it matches {len(chosen)} of: {', '.join(c.name for c in cells)}"
        )
    comp = chosen[0].comparison
    result = PredictionReport(prediction=value, actual=comp.effect, tolerance=float(tolerance))
    if value == 0 or comp.effect == 0:
        sign = "no sign to compare (a difference of exactly 0)"
    else:
        sign = "sign right" if (value > 0) == (comp.effect > 0) else "sign wrong"
    inside = comp.ci_low <= value <= comp.ci_high
    print(
        f"check_effect_prediction: {chosen[0].name}, {analysis.metric_words(chosen[0].metric)}, "
        f"L={deep} minus L={spec.wide} (positive = deeper better), {comp.n} seeds: measured "
        f"{comp.effect:+.3f} [{comp.ci_low:+.3f}, {comp.ci_high:+.3f}] | your prediction "
        f"{value:+.3f} (difference {result.error:+.3f}); {sign}; "
        f"{'inside' if inside else 'outside'} the 95% interval"
    )
    return result


# --------------------------------------------------------------------------------------------
# The design chapter: projections, and what depth costs
# --------------------------------------------------------------------------------------------

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
    ``budget`` parameters (:func:`rnnlab.models.matched_config`,
    :func:`rnnlab.cost.model_forward_flops`).

    Any positive number up to 10 passes (a prediction may be wrong: that is the point of making
    one); anything else raises :class:`AssertionError`. Since the forward FLOPs are about
    twice the weights that are used per token, and the budget holds the weights nearly fixed, the
    share is close to 1; the embedding (a lookup, no FLOPs) and the head's width move it a little.
    """
    value = _prediction_value(
        "check_flops_prediction", prediction, "a share of FLOPs", "1.0 = as many as one layer"
    )
    from rnnlab import cost
    from rnnlab.models import matched_config

    flops = {}
    for layers in (1, num_layers):
        config, _ = matched_config(
            kind="lm", budget=budget, num_layers=layers, num_classes=vocab, vocab_size=vocab,
            embedding_dim=embedding_dim,
        )  # fmt: skip
        flops[layers] = cost.model_forward_flops(embedding_dim, config.hidden_size, layers, vocab)
    actual = flops[num_layers] / flops[1]
    result = PredictionReport(prediction=value, actual=actual, tolerance=float(tolerance))
    verdict = (
        "close: well predicted"
        if result.close
        else f"off by more than {tolerance:.2f}: FLOPs follow the weights, not the layers"
    )
    print(
        f"check_flops_prediction: {budget:,} parameters, L={num_layers}: {flops[num_layers]:,} "
        f"forward FLOPs per token; L=1: {flops[1]:,} | share {actual:.3f}, your prediction "
        f"{value:.3f} (difference {result.error:+.3f}) | {verdict}"
    )
    return result
