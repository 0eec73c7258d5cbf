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

Other chapters add checks by calling :func:`compare_cases` and :func:`report` (a prediction:
:func:`prediction_value`, then :func:`report_prediction`):

>>> def double(x):
...     return 2 * x
>>> check = report(compare_cases("double", double, lambda x: x + x, [{"x": 1}, {"x": 5}]))
double: 2/2 cases exact | max abs diff 0 | OK
>>> check.passed
True

The checks live one module per chapter: :mod:`~rnnlab.course.exercises.counting` (chapter 1),
:mod:`~rnnlab.course.exercises.labs` (the labs), :mod:`~rnnlab.course.exercises.design` (the
design chapter), on the shared machinery of :mod:`~rnnlab.course.exercises.checking`; a chapter
imports its checks from this package.
"""

from rnnlab.course.exercises.checking import (
    NOT_ANSWERED,
    CaseResult,
    CheckReport,
    MultipleChoice,
    NotAnswered,
    PredictionReport,
    compare_cases,
    report,
    report_prediction,
)
from rnnlab.course.exercises.counting import (
    COUNT_CASES,
    DEPTH_COEFFICIENT,
    check_depth_coefficient_answer,
    check_gru_count,
    check_halving_prediction,
    check_matched_width,
    check_stack_formula,
)
from rnnlab.course.exercises.design import (
    CRITICAL_PATH,
    check_critical_path_answer,
    check_flops_prediction,
    check_lstmp_count,
)
from rnnlab.course.exercises.labs import (
    HASH_SPLIT,
    NARROW_STATE,
    SCALE_READING,
    check_bits_per_char,
    check_convergence_rule,
    check_depth_advantage,
    check_effect_prediction,
    check_four_verdicts,
    check_model_width,
    check_narrow_state_answer,
    check_own_text_record,
    check_paired_interval,
    check_scale_reading_answer,
    check_split_answer,
    check_verdict_rule,
    check_welch_interval,
)

__all__ = [
    "COUNT_CASES",
    "CRITICAL_PATH",
    "DEPTH_COEFFICIENT",
    "HASH_SPLIT",
    "NARROW_STATE",
    "SCALE_READING",
    "NOT_ANSWERED",
    "NotAnswered",
    "CaseResult",
    "CheckReport",
    "MultipleChoice",
    "PredictionReport",
    "check_bits_per_char",
    "check_convergence_rule",
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
    "report_prediction",
]
