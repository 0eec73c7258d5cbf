"""Budget-matched models: counts, shapes, tolerance errors."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnlab.models import ModelConfig, build_model, count_parameters, matched_config


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(["classify", "tag", "lm"]),
    budget=st.integers(2_000, 200_000),
    layers=st.integers(1, 4),
    vocab=st.integers(2, 120),
    emb=st.integers(4, 48),
    classes=st.integers(2, 120),
)
def test_matched_model_count_is_exact_and_within_tolerance(
    kind, budget, layers, vocab, emb, classes
):
    try:
        config, match = matched_config(
            kind=kind,
            budget=budget,
            num_layers=layers,
            num_classes=classes,
            vocab_size=vocab,
            embedding_dim=emb,
        )
    except ValueError as exc:  # unreachable budgets must say so, naming the budget
        assert "budget" in str(exc)
        return
    model = build_model(config)
    assert count_parameters(model) == config.param_count() == match.param_count
    assert abs(count_parameters(model) - budget) <= 0.02 * budget


@pytest.mark.parametrize(
    "kind,shape", [("classify", (3, 10)), ("tag", (3, 7, 10)), ("lm", (3, 7, 10))]
)
def test_output_shapes_tokens(kind, shape):
    cfg = ModelConfig(
        kind=kind, num_layers=2, hidden_size=8, num_classes=10, vocab_size=5, embedding_dim=4
    )
    out = build_model(cfg)(torch.randint(5, (3, 7)))
    assert out.shape == shape


def test_feature_input_and_dropout():
    cfg = ModelConfig(
        kind="classify", num_layers=3, hidden_size=8, num_classes=4, input_features=6, dropout=0.3
    )
    model = build_model(cfg)
    assert model.embedding is None and model.lstm.dropout == 0.3
    assert model(torch.rand(2, 5, 6)).shape == (2, 4)


def test_unreachable_budget_names_reachable_counts():
    with pytest.raises(ValueError, match=r"budget=.*reachable counts"):
        matched_config(
            kind="classify",
            budget=700,
            num_layers=4,
            num_classes=10,
            vocab_size=10,
            embedding_dim=16,
        )


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(kind="bogus"), "kind"),
        (dict(hidden_size=0), "hidden_size"),
        (dict(num_layers=True), "num_layers"),
        (dict(dropout=1.0), "dropout"),
        (dict(vocab_size=None), "exactly one of vocab_size"),
        (dict(embedding_dim=None), "embedding_dim"),
    ],
)
def test_bad_config(kwargs, match):
    base = dict(
        kind="tag", num_layers=1, hidden_size=4, num_classes=3, vocab_size=5, embedding_dim=4
    )
    with pytest.raises(ValueError, match=match):
        ModelConfig(**{**base, **kwargs})
