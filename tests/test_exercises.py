"""Tests for rnnlab.course.exercises: each self-check passes a right answer, fails a stub and a
wrong one.

A check that cannot fail teaches nothing, so every check is also fed an unfinished stub (raises
NotImplementedError) and a plausible wrong answer, and must raise AssertionError for both.
"""

from __future__ import annotations

import math

import pytest
import sympy

from rnnlab.core import params
from rnnlab.course import exercises

# --------------------------------------------------------------------------------------------
# Answers: right, unfinished, plausibly wrong


def gru_right(input_size: int, hidden_size: int, num_layers: int) -> int:
    d, m, n = hidden_size, input_size, num_layers
    return 3 * (d * m + d * d + 2 * d) + (n - 1) * 3 * (2 * d * d + 2 * d)


def gru_single_bias(input_size: int, hidden_size: int, num_layers: int) -> int:
    d, m, n = hidden_size, input_size, num_layers
    return 3 * (d * m + d * d + d) + (n - 1) * 3 * (2 * d * d + d)


def gru_seed_style(input_size: int, hidden_size: int, num_layers: int) -> int:
    """Forgets the upper layers' input matrices (the seed's dropped d^2 term)."""
    d, m, n = hidden_size, input_size, num_layers
    return 3 * (d * m + d * d + 2 * d) + (n - 1) * 3 * (d * d + 2 * d)


def stub(*args: object, **kwargs: object) -> int:
    raise NotImplementedError("Exercise: write this function")


def width_right(budget: int, input_size: int, num_layers: int) -> int:
    a, b = 4 * (2 * num_layers - 1), 4 * (input_size + 2 * num_layers)
    root = (-b + math.sqrt(b * b + 4 * a * budget)) / (2 * a)
    options = [w for w in (math.floor(root), math.ceil(root)) if w >= 1]
    return min(options, key=lambda w: (abs(a * w * w + b * w - budget), w))


def width_floor(budget: int, input_size: int, num_layers: int) -> int:
    a, b = 4 * (2 * num_layers - 1), 4 * (input_size + 2 * num_layers)
    return math.floor((-b + math.sqrt(b * b + 4 * a * budget)) / (2 * a))


def width_seed_halving(budget: int, input_size: int, num_layers: int) -> int:
    """The seed's rule: the one-layer width over the number of layers."""
    return max(1, params.matched_width(budget, input_size, 1).hidden_size // num_layers)


def width_textbook(budget: int, input_size: int, num_layers: int) -> int:
    """Solves the quadratic with one bias per gate."""
    a, b = 4 * (2 * num_layers - 1), 4 * (input_size + num_layers)
    return round((-b + math.sqrt(b * b + 4 * a * budget)) / (2 * a))


# --------------------------------------------------------------------------------------------
# check_gru_count


def test_gru_check_passes_a_right_answer(capsys: pytest.CaptureFixture[str]) -> None:
    check = exercises.check_gru_count(gru_right)
    assert check.passed and check.n_passed == check.n_cases == len(exercises.COUNT_CASES)
    assert check.max_abs_diff == 0
    assert "OK" in capsys.readouterr().out


def test_gru_check_accepts_the_library_function() -> None:
    assert exercises.check_gru_count(params.gru_param_count).passed


@pytest.mark.parametrize("wrong", [gru_single_bias, gru_seed_style])
def test_gru_check_fails_a_wrong_answer_and_says_how_close(wrong, capsys) -> None:
    with pytest.raises(AssertionError, match="first failing case"):
        exercises.check_gru_count(wrong)
    out = capsys.readouterr().out
    assert "max abs diff" in out and "expected" in out


def test_gru_check_fails_a_stub_and_says_it_is_unfinished() -> None:
    with pytest.raises(AssertionError, match="not implemented"):
        exercises.check_gru_count(stub)


def test_gru_check_reports_a_crash_as_a_failed_case() -> None:
    def crashes(input_size: int, hidden_size: int, num_layers: int) -> int:
        if num_layers > 2:
            raise ZeroDivisionError("boom")
        return gru_right(input_size, hidden_size, num_layers)

    with pytest.raises(AssertionError, match="ZeroDivisionError: boom"):
        exercises.check_gru_count(crashes)


def test_single_bias_gru_differs_by_exactly_one_bias_vector_per_layer() -> None:
    check = exercises.compare_cases(
        "gru", gru_single_bias, params.gru_param_count, exercises.COUNT_CASES
    )
    for result in check.results:
        assert (
            result.expected - result.got
            == 3 * result.case["hidden_size"] * (result.case["num_layers"])
        )
    largest = max(3 * c["hidden_size"] * c["num_layers"] for c in exercises.COUNT_CASES)
    assert check.max_abs_diff == largest


# --------------------------------------------------------------------------------------------
# check_matched_width


def test_matched_width_check_passes_a_right_answer() -> None:
    assert exercises.check_matched_width(width_right).passed


def test_matched_width_check_passes_the_library() -> None:
    def library(budget: int, input_size: int, num_layers: int) -> int:
        return params.matched_width(budget, input_size, num_layers).hidden_size

    assert exercises.check_matched_width(library).passed


@pytest.mark.parametrize("wrong", [width_floor, width_seed_halving, width_textbook])
def test_matched_width_check_fails_plausible_wrong_answers(wrong) -> None:
    with pytest.raises(AssertionError, match="check_matched_width"):
        exercises.check_matched_width(wrong)


def test_matched_width_check_fails_a_stub_and_non_integers() -> None:
    with pytest.raises(AssertionError, match="not implemented"):
        exercises.check_matched_width(stub)
    with pytest.raises(AssertionError):
        exercises.check_matched_width(lambda budget, input_size, num_layers: 10.5)


def test_matched_width_check_accepts_either_side_of_an_exact_tie() -> None:
    # P(d) = 4((2L-1)d^2 + (m+2L)d); with L=1, m=2: P(d) = 4d^2 + 16d. P(3) = 84, P(4) = 128, so
    # a budget of 106 is exactly between them.
    tie_case = {"budget": 106, "input_size": 2, "num_layers": 1}
    for width in (3, 4):
        check = exercises.compare_cases(
            "tie",
            lambda budget, input_size, num_layers, w=width: w,
            lambda budget, input_size, num_layers: 3,
            [tie_case],
            accept=lambda case, expected, got: (
                abs(params.lstm_param_count(2, got, 1) - 106)
                == abs(params.lstm_param_count(2, expected, 1) - 106)
            ),
        )
        assert check.passed


# --------------------------------------------------------------------------------------------
# check_stack_formula


def test_stack_formula_check_passes_the_library_expression() -> None:
    _, _, L = params.symbols()
    assert exercises.check_stack_formula(lambda: params.symbolic_stack_count(L)).passed


def test_stack_formula_check_bidirectional() -> None:
    d, m, L = params.symbols()
    right = 8 * (d * m + (3 * L - 2) * d**2 + 2 * L * d)
    assert exercises.check_stack_formula(lambda: right, bidirectional=True).passed
    with pytest.raises(AssertionError):  # the one-directional count, doubled: misses 2d inputs
        exercises.check_stack_formula(
            lambda: 2 * params.symbolic_stack_count(L), bidirectional=True
        )


def test_stack_formula_check_fails_the_seed_and_textbook_forms() -> None:
    d, m, L = params.symbols()
    seed_like = 4 * (d * m + L * d**2 + 2 * L * d)  # d^2 coefficient L instead of 2L-1
    with pytest.raises(AssertionError, match="first failing case"):
        exercises.check_stack_formula(lambda: seed_like)
    with pytest.raises(AssertionError):
        exercises.check_stack_formula(lambda: params.symbolic_stack_count(L, biases=1))


def test_stack_formula_check_rejects_foreign_symbols_and_stubs() -> None:
    d, m, L = params.symbols()
    k = sympy.Symbol("k")
    with pytest.raises(AssertionError, match="symbols"):
        exercises.check_stack_formula(lambda: params.symbolic_stack_count(L) + k)
    with pytest.raises(AssertionError, match="not implemented"):
        exercises.check_stack_formula(stub)


# --------------------------------------------------------------------------------------------
# The generic machinery


def test_report_summary_counts_and_relative_difference() -> None:
    check = exercises.compare_cases(
        "halve", lambda x: x // 2, lambda x: x / 2, [{"x": 4}, {"x": 5}, {"x": 100}]
    )
    assert (check.n_cases, check.n_passed) == (3, 2)
    assert check.max_abs_diff == pytest.approx(0.5)
    assert check.max_rel_diff == pytest.approx(0.2)
    assert check.first_failure is not None and check.first_failure.case == {"x": 5}
    assert "2/3 cases exact" in check.summary() and "x=5" in check.summary()
    assert not exercises.report(check, raise_on_failure=False).passed


def test_atol_accepts_near_answers_only() -> None:
    cases = [{"x": 1.0}, {"x": 2.0}]
    near = exercises.compare_cases("near", lambda x: x + 1e-9, lambda x: x, cases, atol=1e-6)
    far = exercises.compare_cases("far", lambda x: x + 1e-3, lambda x: x, cases, atol=1e-6)
    assert near.passed and not far.passed


def test_compare_cases_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="cases"):
        exercises.compare_cases("empty", abs, abs, [])
    with pytest.raises(ValueError, match="atol"):
        exercises.compare_cases("neg", abs, abs, [{"x": 1}], atol=-1.0)
    with pytest.raises(ValueError, match="bidirectional"):
        exercises.check_stack_formula(lambda: 0, bidirectional="yes")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ lab checks


def _stub(*args, **kwargs):
    raise NotImplementedError


LAB_CHECKS = [
    (
        exercises.check_welch_interval,
        lambda wide, deep: __import__("rnnlab.evidence.stats").evidence.stats.welch_interval(
            wide, deep
        )[:3],
        lambda wide, deep: (0.0, -1.0, 1.0),
    ),
    (
        exercises.check_verdict_rule,
        lambda low, high, claim: __import__(
            "rnnlab.evidence.stats"
        ).evidence.stats.verdict_from_interval(low, high, claim),
        # a plausible mistake: an interval touching 0 counted as excluding it
        lambda low, high, claim: (
            ("supported" if claim == "depth" else "contradicted")
            if low >= 0
            else ("supported" if claim == "width" else "contradicted")
            if high <= 0
            else "inconclusive"
        ),
    ),
    (
        exercises.check_bits_per_char,
        lambda nats_per_char: nats_per_char / math.log(2),
        lambda nats_per_char: nats_per_char / math.log(10),
    ),
    (
        exercises.check_depth_advantage,
        lambda wide_mean, deep_mean, higher_is_better: (
            (deep_mean - wide_mean) * (1 if higher_is_better else -1)
        ),
        lambda wide_mean, deep_mean, higher_is_better: deep_mean - wide_mean,  # forgets the flip
    ),
    (
        exercises.check_convergence_rule,
        lambda val_half, val_full, margin: (
            sum(val_half[s] - val_full[s] for s in set(val_half) & set(val_full))
            / len(set(val_half) & set(val_full))
            < margin
        ),
        # a plausible mistake: a change either way counts, so a run that got worse with longer
        # training would "not converge"
        lambda val_half, val_full, margin: (
            abs(sum(val_half[s] - val_full[s] for s in val_full) / len(val_full)) < margin
        ),
    ),
    (
        exercises.check_model_width,
        lambda budget, vocab_size, embedding_dim, num_classes, num_layers: (
            params.matched_width(
                budget,
                embedding_dim,
                num_layers,
                output_size=num_classes,
                extra_params=vocab_size * embedding_dim,
            ).hidden_size
        ),
        # a plausible mistake: forgets the embedding and the head
        lambda budget, vocab_size, embedding_dim, num_classes, num_layers: (
            params.matched_width(budget, embedding_dim, num_layers).hidden_size
        ),
    ),
]


def test_the_convergence_check_wants_paired_seeds_and_a_bool(capsys):
    def every_seed(val_half, val_full, margin):  # averages each length over all its seeds
        half = sum(val_half.values()) / len(val_half)
        return half - sum(val_full.values()) / len(val_full) < margin

    with pytest.raises(AssertionError, match="check_convergence_rule: 4/5"):
        exercises.check_convergence_rule(every_seed)
    with pytest.raises(AssertionError):  # a number is not an answer to "converged?"
        exercises.check_convergence_rule(lambda val_half, val_full, margin: 1)


@pytest.mark.parametrize("check,right,wrong", LAB_CHECKS, ids=lambda f: getattr(f, "__name__", ""))
def test_lab_checks_pass_right_fail_wrong_and_stub(check, right, wrong, capsys):
    assert check(right).passed
    with pytest.raises(AssertionError):
        check(wrong)
    with pytest.raises(AssertionError, match="not implemented"):
        check(_stub)


# --------------------------------------------------------------------------------------------
# The design chapter: check_lstmp_count and check_flops_prediction


def lstmp_right(input_size: int, hidden_size: int, proj_size: int, num_layers: int) -> int:
    m, h, p, n = input_size, hidden_size, proj_size, num_layers
    return 4 * h * m + (9 * n - 4) * h * p + 8 * n * h


def lstmp_forgets_weight_hr(input_size, hidden_size, proj_size, num_layers):
    return lstmp_right(input_size, hidden_size, proj_size, num_layers) - num_layers * (
        proj_size * hidden_size
    )


def lstmp_reads_h_above(input_size, hidden_size, proj_size, num_layers):
    """A plausible slip: layers above the first read h (not p) inputs."""
    extra = (num_layers - 1) * 4 * hidden_size * (hidden_size - proj_size)
    return lstmp_right(input_size, hidden_size, proj_size, num_layers) + extra


def test_lstmp_check_passes_a_right_answer_and_the_library(capsys) -> None:
    assert exercises.check_lstmp_count(lstmp_right).passed
    assert "8/8 cases exact" in capsys.readouterr().out
    lib = lambda input_size, hidden_size, proj_size, num_layers: params.lstm_param_count(  # noqa: E731
        input_size, hidden_size, num_layers, proj_size=proj_size
    )
    assert exercises.check_lstmp_count(lib).passed


@pytest.mark.parametrize("wrong", [lstmp_forgets_weight_hr, lstmp_reads_h_above])
def test_lstmp_check_fails_plausible_wrong_answers(wrong, capsys) -> None:
    with pytest.raises(AssertionError, match="check_lstmp_count"):
        exercises.check_lstmp_count(wrong)
    assert "first failing case" in capsys.readouterr().out


def test_lstmp_check_fails_a_stub() -> None:
    def stub(input_size, hidden_size, proj_size, num_layers):
        raise NotImplementedError

    with pytest.raises(AssertionError, match="not implemented|unfinished|NotImplemented"):
        exercises.check_lstmp_count(stub)


def test_flops_prediction_reports_the_share_and_accepts_any_number(capsys) -> None:
    rep = exercises.check_flops_prediction(1.0)
    out = capsys.readouterr().out
    assert "share" in out and 0.8 < rep.actual < 1.2 and rep.close
    far = exercises.check_flops_prediction(4.0)
    assert not far.close and far.error == pytest.approx(4.0 - far.actual)


@pytest.mark.parametrize("bad", [None, "four", -1, 0, 11, True])
def test_flops_prediction_rejects_non_predictions(bad) -> None:
    with pytest.raises(AssertionError, match="check_flops_prediction"):
        exercises.check_flops_prediction(bad)


# --------------------------------------------------------------------------------------------
# Conceptual questions (multiple choice) and predictions checked against data

CONCEPT_CHECKS = {
    "check_depth_coefficient_answer": exercises.DEPTH_COEFFICIENT,
    "check_narrow_state_answer": exercises.NARROW_STATE,
    "check_scale_reading_answer": exercises.SCALE_READING,
    "check_split_answer": exercises.HASH_SPLIT,
    "check_critical_path_answer": exercises.CRITICAL_PATH,
}


@pytest.mark.parametrize("name", sorted(CONCEPT_CHECKS))
def test_concept_question_accepts_only_its_answer(name: str, capsys) -> None:
    question, check = CONCEPT_CHECKS[name], getattr(exercises, name)
    assert sorted(question.options) == ["A", "B", "C", "D"] and question.answer in question.options
    # Every option explains itself: the right one says why it is right, the others why not.
    for key, feedback in question.options.items():
        assert feedback.startswith("Right" if key == question.answer else "No"), (key, feedback)
    assert check(f" {question.answer.lower()}) ") == question.options[question.answer]
    assert name in capsys.readouterr().out
    for wrong in sorted(set(question.options) - {question.answer}):
        with pytest.raises(AssertionError, match=f"{name}: {wrong} is not right"):
            check(wrong)


@pytest.mark.parametrize("bad", [None, "", "E", "AB", 2])
def test_concept_question_rejects_a_non_answer(bad) -> None:
    with pytest.raises(AssertionError, match="answer with one of A, B, C, D"):
        exercises.check_split_answer(bad)


def test_report_prediction_says_how_far_the_prediction_is_in_one_line(capsys) -> None:
    close = exercises.report_prediction(
        "check_x", 1.0, 0.989, tolerance=0.1, measured="what was measured", hint="look again"
    )
    assert close == exercises.PredictionReport(prediction=1.0, actual=0.989, tolerance=0.1)
    assert capsys.readouterr().out == (
        "check_x: what was measured | share 0.989, your prediction 1.000 (difference +0.011) | "
        "close: well predicted\n"
    )
    far = exercises.report_prediction(
        "check_x", 2.0, 1.25, tolerance=0.5, measured="m", hint="look again", note="limit 1.25"
    )
    assert not far.close and far.error == pytest.approx(0.75)
    assert capsys.readouterr().out.endswith(
        "(difference +0.750) | off by more than 0.50: look again; limit 1.25\n"
    )


def test_halving_prediction_counts_real_modules(capsys) -> None:
    import torch

    stack = sum(p.numel() for p in torch.nn.LSTM(32, 256, 3).parameters())
    single = sum(p.numel() for p in torch.nn.LSTM(32, 512).parameters())
    rep = exercises.check_halving_prediction(1.25)
    assert rep.actual == pytest.approx(stack / single) and rep.close
    assert not exercises.check_halving_prediction(0.5).close
    assert "(2L-1)/4 = 1.25" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="check_halving_prediction"):
        exercises.check_halving_prediction("half")


def _majority_effect_by_hand() -> float:
    """L=2 minus L=1 test accuracy on Lab A's majority task, mean over paired seeds, computed
    from the committed records without the analysis module."""
    from rnnlab.experiments.labs import load_reference

    scores: dict[int, dict[int, float]] = {1: {}, 2: {}}
    for r in load_reference("lab-a", "cpu"):
        if r.get("role") == "eval" and r["experiment"]["labels"].get("task") == "majority":
            if r["num_layers"] in scores:
                scores[r["num_layers"]][r["seed"]] = r["metrics"]["test"]
    seeds = sorted(set(scores[1]) & set(scores[2]))
    assert len(seeds) >= 5
    return sum(scores[2][s] - scores[1][s] for s in seeds) / len(seeds)


def test_effect_prediction_compares_with_the_committed_results(capsys) -> None:
    expected = _majority_effect_by_hand()
    rep = exercises.check_effect_prediction(0.1, lab="lab-a", cell={"task": "majority"})
    assert rep.actual == pytest.approx(expected)
    assert rep.error == pytest.approx(0.1 - expected)
    out = capsys.readouterr().out
    assert "majority" in out and "95% interval" in out
    assert ("sign right" in out) == (expected > 0)


def test_effect_prediction_rejects_bad_input() -> None:
    with pytest.raises(AssertionError, match="check_effect_prediction"):
        exercises.check_effect_prediction(2.0, lab="lab-a", cell={"task": "majority"})
    with pytest.raises(AssertionError, match="write your prediction as a number"):
        exercises.check_effect_prediction(None, lab="lab-a", cell={"task": "majority"})
    with pytest.raises(ValueError, match="must match exactly one cell"):
        exercises.check_effect_prediction(0.0, lab="lab-a", cell={"task": "digits"})  # two
    with pytest.raises(ValueError, match="must match exactly one cell"):
        exercises.check_effect_prediction(0.0, lab="lab-a", cell={"task": "no such task"})
    with pytest.raises(ValueError, match="no cpu reference results"):
        exercises.check_effect_prediction(0.0, lab="lab-a", cell={}, records=[])


def test_effect_prediction_reads_lab_d_reference_results(capsys) -> None:
    """The design chapter's dropout prediction: L=8 against L=1 of one stack, in the reference
    profile, bits per character sign-flipped so that positive means deeper is better."""
    from rnnlab.experiments.labs import load_reference

    scores: dict[int, dict[int, float]] = {1: {}, 8: {}}
    for r in load_reference("lab-d", "reference"):
        labels = r["experiment"]["labels"]
        if r.get("role") == "eval" and labels.get("task") == "charlm-english":
            if labels.get("stack") == "residual-ln-dropout" and r["num_layers"] in scores:
                scores[r["num_layers"]][r["seed"]] = r["metrics"]["test"]
    seeds = sorted(set(scores[1]) & set(scores[8]))
    assert len(seeds) >= 5
    expected = -sum(scores[8][s] - scores[1][s] for s in seeds) / len(seeds)
    rep = exercises.check_effect_prediction(
        -0.1,
        lab="lab-d",
        profile="reference",
        deep=8,
        cell={"task": "charlm-english", "stack": "residual-ln-dropout"},
    )
    assert rep.actual == pytest.approx(expected)
    assert "L=8 minus L=1" in capsys.readouterr().out
