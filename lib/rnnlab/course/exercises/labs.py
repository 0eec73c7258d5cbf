"""The labs (chapters 2-4): intervals, verdict rules, widths of task-shaped models, bits per
character, depth's advantage, paired intervals and the four verdicts, a run on your own text,
the labs' conceptual questions, and effect predictions against the reference results."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rnnlab.core import params
from rnnlab.core.text import fmt_signed
from rnnlab.course.exercises.checking import (
    CaseResult,
    CheckReport,
    MultipleChoice,
    PredictionReport,
    abs_diff,
    compare_cases,
    prediction_value,
    report,
)

#: Pairs of per-seed scores (wide, deep) tried by the interval and verdict checks.
SCORE_CASES: tuple[dict[str, Any], ...] = (
    {"wide": (0.90, 0.92, 0.88, 0.95, 0.91), "deep": (0.80, 0.83, 0.79, 0.85, 0.81)},
    {"wide": (0.60, 0.61, 0.59, 0.62, 0.60), "deep": (0.66, 0.64, 0.65, 0.69, 0.70)},
    {"wide": (1.0, 1.2, 0.9, 1.1), "deep": (1.5, 1.7, 1.4, 1.9, 1.6)},
    {"wide": (0.5, 0.7, 0.4, 0.6, 0.55), "deep": (0.52, 0.68, 0.45, 0.61, 0.5)},
)


def _welch_reference(wide: Sequence[float], deep: Sequence[float]) -> tuple[float, float, float]:
    from rnnlab.evidence import stats

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

    Reference: :func:`rnnlab.evidence.stats.welch_interval` (which equals SciPy's
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

    Reference: :func:`rnnlab.evidence.stats.verdict_from_interval`. An interval that touches 0 does
    not
    exclude it.
    """
    from rnnlab.evidence import stats

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

    Reference: :func:`rnnlab.core.models.matched_config` (ties accepted). Differences are in units.
    """
    from rnnlab.core.models import ModelConfig

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


#: Per-seed validation bits/char after N/2 and N steps, for :func:`check_convergence_rule`.
CONVERGENCE_CASES: tuple[dict[str, Any], ...] = (
    # still improving: a mean gain of 0.0225 over two seeds (like one layer at 160K so far)
    {"val_half": {0: 1.7224, 1: 1.7020}, "val_full": {0: 1.6953, 1: 1.6838}, "margin": 0.01},
    # flattening: gains of 0.010 and 0.004, mean 0.007
    {
        "val_half": {0: 1.700, 1: 1.690, 2: 1.710},
        "val_full": {0: 1.690, 1: 1.686, 2: 1.703},
        "margin": 0.01,
    },  # fmt: skip
    # longer training is worse (overfitting): doubling does not help, so it has converged
    {"val_half": {0: 1.650, 1: 1.660}, "val_full": {0: 1.670, 1: 1.685}, "margin": 0.01},
    # a seed at one length only does not count: over seeds 0 and 1 the gain is 0.003
    {
        "val_half": {0: 1.700, 1: 1.700, 2: 1.900},
        "val_full": {0: 1.697, 1: 1.697},
        "margin": 0.01,
    },  # fmt: skip
    # a wider margin accepts a larger gain
    {"val_half": {0: 1.8, 1: 1.82}, "val_full": {0: 1.78, 1: 1.79}, "margin": 0.05},
)


def _convergence_reference(val_half: Mapping[int, float], val_full: Mapping[int, float],
                           margin: float) -> bool:  # fmt: skip
    """The library's reading: :func:`rnnlab.evidence.converge_report.doubling_gains` over the
    runs as records, compared with the margin as
    :func:`rnnlab.experiments.converge.converged` compares it."""
    from rnnlab.evidence.converge_report import doubling_gains

    def runs(vals: Mapping[int, float]) -> list[dict]:
        return [{"seed": s, "metrics": {"val": v}} for s, v in vals.items()]

    ((_, _, gain, _),) = doubling_gains({1: runs(val_half), 2: runs(val_full)})
    return gain < margin


def check_convergence_rule(
    answer: Callable[[Mapping[int, float], Mapping[int, float], float], bool],
) -> CheckReport:
    """Check ``answer(val_half, val_full, margin) -> bool``: the convergence experiment's rule.
    ``val_half`` and ``val_full`` map each reporting seed to its validation bits/char after
    N/2 and N steps; converged when doubling the training improves the mean, over the seeds
    both have, by less than ``margin``."""
    return report(
        compare_cases(
            "check_convergence_rule",
            answer,
            _convergence_reference,
            CONVERGENCE_CASES,
            # True or False (numpy's bool too), not a truthy number or string
            accept=lambda case, expected, got: (
                type(got).__name__ in ("bool", "bool_") and bool(got) == expected
            ),
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
    from rnnlab.evidence import stats

    c = stats.paired_compare(wide, deep, higher_is_better=True, claim="depth", margin=0.01)
    return (float(c.effect), float(c.ci_low), float(c.ci_high))


def check_paired_interval(answer: Callable[[Sequence[float], Sequence[float]], Any]) -> CheckReport:
    r"""Check ``answer(wide, deep) -> (mean_diff, low, high)``: the mean of the per-seed
    differences :math:`d_s = x^\text{deep}_s - x^\text{wide}_s` and its 95% Student-t interval
    on :math:`n - 1` degrees of freedom.

    Reference: :func:`rnnlab.evidence.stats.paired_compare` (equal to SciPy's
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

    Reference: :func:`rnnlab.evidence.stats.verdict_v2_from_interval` (an interval that touches 0
    or the
    margin does not exclude it; a zero-width interval is never decisive)."""
    from rnnlab.evidence import stats

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
        CaseResult({"check": what}, expected, got, expected == got, abs_diff(expected, got))
        for what, expected, got in cases
    )
    return report(CheckReport(name="check_own_text_record", results=results))


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
    from rnnlab.evidence import analysis
    from rnnlab.experiments.labs import get_lab, load_reference

    value = prediction_value(
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
        f"{analysis.fmt_ci(comp.effect, comp.ci_low, comp.ci_high)} | your prediction "
        f"{fmt_signed(value)} (difference {fmt_signed(result.error)}); {sign}; "
        f"{'inside' if inside else 'outside'} the 95% interval"
    )
    return result
