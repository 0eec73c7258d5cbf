"""Budget-matched models: counts, shapes, tolerance errors."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnlab.core.models import ModelConfig, build_model, count_parameters, matched_config


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


# ---------------------------------------------------------------------------- design options

design = st.fixed_dictionaries(
    {
        "cell": st.sampled_from(["lstm", "gru"]),
        "residual": st.booleans(),
        "layer_norm": st.booleans(),
        "proj": st.sampled_from([None, 0.25, 0.5, 0.75]),
    }
)


def _options(d: dict) -> dict:
    proj = d["proj"] if d["cell"] == "lstm" else None
    return {"cell": d["cell"], "residual": d["residual"], "layer_norm": d["layer_norm"],
            "proj_ratio": proj}  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(["classify", "tag", "lm"]),
    budget=st.integers(5_000, 200_000),
    layers=st.integers(1, 8),
    vocab=st.integers(2, 120),
    emb=st.integers(4, 48),
    classes=st.integers(2, 120),
    opts=design,
)
def test_design_model_count_is_exact_and_within_two_percent(
    kind, budget, layers, vocab, emb, classes, opts
):
    kwargs = _options(opts)
    try:
        config, match = matched_config(
            kind=kind,
            budget=budget,
            num_layers=layers,
            num_classes=classes,
            vocab_size=vocab,
            embedding_dim=emb,
            **kwargs,
        )
    except ValueError as exc:
        assert "budget" in str(exc)
        return
    model = build_model(config)
    assert count_parameters(model) == config.param_count() == match.param_count
    assert abs(count_parameters(model) - budget) <= 0.02 * budget
    assert (config.cell, config.residual, config.layer_norm) == (
        opts["cell"],
        opts["residual"],
        opts["layer_norm"],
    )
    assert config.proj_size == match.proj_size
    assert (config.proj_size > 0) == (kwargs["proj_ratio"] is not None)
    assert ModelConfig(**config.to_dict()) == config  # the stored dict rebuilds the model


@pytest.mark.parametrize("kind", ["classify", "tag", "lm"])
@pytest.mark.parametrize(
    "opts",
    [
        dict(cell="gru"),
        dict(proj_size=3),
        dict(residual=True),
        dict(layer_norm=True),
        dict(residual=True, layer_norm=True, proj_size=5),
        dict(cell="gru", residual=True, layer_norm=True),
    ],
    ids=str,
)
def test_design_output_shapes_and_step_matches_forward(kind, opts):
    torch.manual_seed(0)
    cfg = ModelConfig(
        kind=kind, num_layers=3, hidden_size=8, num_classes=10, vocab_size=5, embedding_dim=4,
        **opts,
    )  # fmt: skip
    model = build_model(cfg).eval()
    x = torch.randint(5, (3, 7))
    out = model(x)
    assert out.shape == ((3, 10) if kind == "classify" else (3, 7, 10))
    # one token at a time with the state carried gives the same logits (generation)
    state, steps = None, []
    for t in range(7):
        logits, state = model.step(x[:, t : t + 1], state)
        steps.append(logits if kind == "classify" else logits[:, 0])
    want = out if kind == "classify" else out[:, -1]
    assert torch.allclose(steps[-1], want, atol=1e-5)
    if kind != "classify":
        assert torch.allclose(torch.stack(steps, dim=1), out, atol=1e-5)
    width = opts.get("proj_size") or 8
    assert model.head.in_features == width


def test_default_config_builds_the_plain_fused_lstm():
    cfg = ModelConfig(kind="lm", num_layers=2, hidden_size=8, num_classes=5, vocab_size=5,
                      embedding_dim=4)  # fmt: skip
    model = build_model(cfg)
    assert isinstance(model.lstm, torch.nn.LSTM) and model.recurrent is model.lstm
    assert [k for k, _ in model.named_parameters()] == [
        "embedding.weight",
        *[
            f"lstm.{n}_l{k}"
            for k in range(2)
            for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        ],
        "head.weight",
        "head.bias",
    ]
    d = cfg.to_dict()
    assert {k: d[k] for k in ("cell", "proj_size", "residual", "layer_norm")} == {
        "cell": "lstm", "proj_size": 0, "residual": False, "layer_norm": False,
    }  # fmt: skip
    old = {k: v for k, v in d.items() if k not in ("cell", "proj_size", "residual", "layer_norm")}
    assert ModelConfig(**old) == cfg  # configs stored before the options existed: same model


def test_per_layer_stack_layout():
    cfg = ModelConfig(kind="lm", num_layers=4, hidden_size=12, num_classes=5, vocab_size=5,
                      embedding_dim=4, proj_size=6, residual=True, layer_norm=True)  # fmt: skip
    model = build_model(cfg)
    assert not hasattr(model, "lstm") and len(model.layers) == 4 and len(model.norms) == 4
    assert [layer.input_size for layer in model.layers] == [4, 6, 6, 6]
    assert all(layer.proj_size == 6 and layer.num_layers == 1 for layer in model.layers)
    assert [norm.normalized_shape for norm in model.norms] == [(6,)] * 4


def test_residual_layernorm_depth4_stack_learns_to_recall_the_first_token():
    """A trivially learnable task: the label is the first of 8 tokens (kept a few seconds)."""
    g = torch.Generator().manual_seed(0)
    x = torch.randint(4, (128, 8), generator=g)
    y = x[:, 0]
    torch.manual_seed(0)
    cfg = ModelConfig(kind="classify", num_layers=4, hidden_size=24, num_classes=4, vocab_size=4,
                      embedding_dim=8, residual=True, layer_norm=True)  # fmt: skip
    model = build_model(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(60):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        accuracy = (model(x).argmax(-1) == y).float().mean().item()
    assert accuracy > 0.95, accuracy


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(cell="rnn"), r"cell must be one of \('lstm', 'gru'\), got 'rnn'"),
        (dict(proj_size=4), r"proj_size must be an integer in \[0, 3\].*got 4"),
        (dict(proj_size=-1), r"proj_size must be an integer in \[0, 3\]"),
        (dict(proj_size=True), r"proj_size must be an integer"),
        (dict(cell="gru", proj_size=2), r"proj_size must be 0 for cell='gru'"),
        (dict(residual=1), r"residual must be True or False, got 1"),
        (dict(layer_norm="yes"), r"layer_norm must be True or False"),
    ],
)
def test_bad_design_config(kwargs, match):
    base = dict(kind="tag", num_layers=2, hidden_size=4, num_classes=3, vocab_size=5,
                embedding_dim=4)  # fmt: skip
    with pytest.raises(ValueError, match=match):
        ModelConfig(**{**base, **kwargs})


def test_matched_config_design_errors():
    common = dict(kind="lm", budget=50_000, num_layers=2, num_classes=20, vocab_size=20,
                  embedding_dim=8)  # fmt: skip
    with pytest.raises(ValueError, match=r"proj_ratio must be None for cell='gru'"):
        matched_config(**common, cell="gru", proj_ratio=0.5)
    with pytest.raises(ValueError, match=r"proj_ratio must be a number in \(0, 1\)"):
        matched_config(**common, proj_ratio=1.5)
    config, match = matched_config(**common, proj_size=16)
    assert config.proj_size == 16 < config.hidden_size and abs(match.relative_error) <= 0.02
