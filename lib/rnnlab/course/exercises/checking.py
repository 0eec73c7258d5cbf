"""The machinery every self-check shares: cases compared with a reference and reported in one
line (:func:`compare_cases`, :func:`report`), predictions (:func:`prediction_value`,
:func:`report_prediction`),
multiple-choice questions (:class:`MultipleChoice`), and the student edition's
:data:`NOT_ANSWERED`."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rnnlab.core.text import fmt_signed

#: The student edition's stub of a value exercise (``my_effect = ...``): not answered yet.
NOT_ANSWERED = Ellipsis


class NotAnswered(AssertionError):
    """A self-check was given :data:`NOT_ANSWERED`: the exercise is not answered yet."""


def require_answer(check: str, value: Any, what: str) -> None:
    """Raise :class:`NotAnswered` naming ``check`` and ``what`` to write if ``value`` is ``...``."""
    if value is NOT_ANSWERED:
        raise NotAnswered(
            f"{check}: not answered yet. Replace the ... in the cell above with {what}, run that "
            "cell, then run this check again."
        )


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
        return f"{args} -> expected {fmt(self.expected)}, got {fmt(self.got)}"


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
            if is_number(r.expected) and r.expected != 0 and math.isfinite(r.abs_diff)
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
            head += f" | max abs diff {fmt(diff)}"
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


def is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def fmt(value: Any) -> str:
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return f"{float(value):,.6g}"
    return repr(value)


def abs_diff(expected: Any, got: Any) -> float:
    if is_number(expected) and is_number(got):
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
        diff = abs_diff(expected, got)
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


@dataclass(frozen=True)
class PredictionReport:
    """What a prediction check found (:func:`report_prediction`): the prediction, the measured
    value and whether the prediction was within ``tolerance`` of it."""

    prediction: float
    actual: float
    tolerance: float

    @property
    def error(self) -> float:
        return self.prediction - self.actual

    @property
    def close(self) -> bool:
        return abs(self.error) <= self.tolerance


def prediction_value(
    check: str, prediction: Any, what: str, unit: str, low: float = 0.0, high: float = 10.0
) -> float:
    """``prediction`` as a float, or :class:`AssertionError` naming ``check`` unless it is a
    number in ``(low, high]`` (``what`` and ``unit`` say what kind of number is expected)."""
    require_answer(check, prediction, f"your prediction ({what}, a number)")
    if isinstance(prediction, bool) or not is_number(prediction):
        raise AssertionError(f"{check}: write your prediction as a number, got {prediction!r}")
    value = float(prediction)
    if not (low < value <= high and math.isfinite(value)):
        raise AssertionError(
            f"{check}: {what} is a number in ({low:g}, {high:g}] ({unit}), got {value!r}"
        )
    return value


def report_prediction(
    check: str,
    prediction: float,
    actual: float,
    *,
    tolerance: float,
    measured: str,
    hint: str,
    note: str = "",
) -> PredictionReport:
    """Print how a predicted share compares with the measured one, in one line, and return the
    :class:`PredictionReport`.

    The line reads ``<check>: <measured> | share 0.989, your prediction 1.000 (difference
    +0.011) | close: well predicted``; a prediction more than ``tolerance`` off reads ``off by
    more than 0.10: <hint>`` instead, where ``hint`` says what to compare it with. ``note``
    (when not empty) follows after ``; ``. A prediction is never wrong to make: this does not
    raise (:func:`prediction_value` refuses what is not a prediction at all).
    """
    result = PredictionReport(prediction=prediction, actual=actual, tolerance=float(tolerance))
    verdict = (
        "close: well predicted"
        if result.close
        else f"off by more than {result.tolerance:.2f}: {hint}"
    )
    print(
        f"{check}: {measured} | share {actual:.3f}, your prediction {prediction:.3f} "
        f"(difference {fmt_signed(result.error)}) | {verdict}" + (f"; {note}" if note else "")
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
        require_answer(self.check, answer, f"one of {', '.join(map(repr, self.options))}")
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
