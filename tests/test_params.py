"""Tests for rnnlab.core.params: every count against torch, budget matching against brute force."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import sympy
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch import nn

from rnnlab.core import params
from rnnlab.core.params import (
    WidthMatch,
    asymptotic_matched_width,
    embedding_param_count,
    gate_count,
    gru_param_count,
    halving_ratio,
    linear_param_count,
    lstm_param_count,
    matched_width,
    min_budget,
    quadratic_coefficients,
    recurrent_param_count,
    rnn_param_count,
    symbolic_layer_count,
    symbolic_stack_count,
    symbols,
    textbook_lstm_param_count,
    total_param_count,
)

FAST = settings(max_examples=60, deadline=None)
META = torch.device("meta")  # shapes without memory or initialisation cost

sizes = st.integers(1, 64)
layers_st = st.integers(1, 4)
modes = st.sampled_from(["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])


def numel(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def torch_rnn(mode: str, *args, **kwargs) -> nn.Module:
    if mode == "LSTM":
        return nn.LSTM(*args, device=META, **kwargs)
    if mode == "GRU":
        return nn.GRU(*args, device=META, **kwargs)
    nonlinearity = "tanh" if mode == "RNN_TANH" else "relu"
    return nn.RNN(*args, nonlinearity=nonlinearity, device=META, **kwargs)


# ---------------------------------------------------------------------------- counts vs torch


def test_gate_counts_and_mode_aliases():
    assert [gate_count(m) for m in ("LSTM", "gru", "RNN_TANH", "rnn_relu", "RNN", "rnn")] == [
        4,
        3,
        1,
        1,
        1,
        1,
    ]
    assert params.normalize_mode("rnn") == "RNN_TANH"


@FAST
@given(
    m=sizes,
    h=st.integers(2, 64),
    layers=layers_st,
    bias=st.booleans(),
    bidirectional=st.booleans(),
    data=st.data(),
)
def test_lstm_count_equals_torch(m, h, layers, bias, bidirectional, data):
    proj = data.draw(st.one_of(st.just(0), st.integers(1, h - 1)), label="proj_size")
    module = nn.LSTM(
        m, h, layers, bias=bias, bidirectional=bidirectional, proj_size=proj, device=META
    )
    expected = numel(module)
    kwargs = dict(bias=bias, bidirectional=bidirectional, proj_size=proj)
    assert lstm_param_count(m, h, layers, **kwargs) == expected
    assert recurrent_param_count("lstm", m, h, layers, **kwargs) == expected


@FAST
@given(m=sizes, h=sizes, layers=layers_st, bias=st.booleans(), bidirectional=st.booleans())
def test_gru_count_equals_torch(m, h, layers, bias, bidirectional):
    module = nn.GRU(m, h, layers, bias=bias, bidirectional=bidirectional, device=META)
    assert gru_param_count(m, h, layers, bias=bias, bidirectional=bidirectional) == numel(module)


@FAST
@given(
    m=sizes,
    h=sizes,
    layers=layers_st,
    bias=st.booleans(),
    bidirectional=st.booleans(),
    nonlinearity=st.sampled_from(["tanh", "relu"]),
)
def test_rnn_count_equals_torch(m, h, layers, bias, bidirectional, nonlinearity):
    module = nn.RNN(
        m,
        h,
        layers,
        nonlinearity=nonlinearity,
        bias=bias,
        bidirectional=bidirectional,
        device=META,
    )
    got = rnn_param_count(
        m, h, layers, bias=bias, bidirectional=bidirectional, nonlinearity=nonlinearity
    )
    assert got == numel(module)
    mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
    assert recurrent_param_count(mode, m, h, layers, bias=bias, bidirectional=bidirectional) == got


@FAST
@given(mode=modes, m=sizes, h=sizes, layers=layers_st, bias=st.booleans(), bidi=st.booleans())
def test_recurrent_count_equals_torch_every_mode(mode, m, h, layers, bias, bidi):
    module = torch_rnn(mode, m, h, layers, bias=bias, bidirectional=bidi)
    assert recurrent_param_count(mode, m, h, layers, bias=bias, bidirectional=bidi) == numel(module)


@FAST
@given(v=st.integers(1, 500), e=sizes, n_in=sizes, n_out=sizes, bias=st.booleans())
def test_embedding_and_linear_equal_torch(v, e, n_in, n_out, bias):
    assert embedding_param_count(v, e) == numel(nn.Embedding(v, e, device=META))
    assert linear_param_count(n_in, n_out, bias=bias) == numel(
        nn.Linear(n_in, n_out, bias=bias, device=META)
    )


class _Model(nn.Module):
    """Embedding -> recurrent stack -> linear head, as models.py builds them."""

    def __init__(self, mode, vocab, m, h, layers, bias, out):
        super().__init__()
        self.embed = nn.Embedding(vocab, m, device=META)
        self.rnn = torch_rnn(mode, m, h, layers, bias=bias, batch_first=True)
        self.head = nn.Linear(h, out, device=META) if out else None


@FAST
@given(
    mode=modes,
    vocab=st.integers(1, 100),
    m=sizes,
    h=sizes,
    layers=layers_st,
    bias=st.booleans(),
    out=st.integers(0, 30),
)
def test_total_count_equals_real_model(mode, vocab, m, h, layers, bias, out):
    model = _Model(mode, vocab, m, h, layers, bias, out)
    extra = embedding_param_count(vocab, m)
    got = total_param_count(h, m, layers, mode=mode, bias=bias, output_size=out, extra_params=extra)
    assert got == numel(model)
    a, b, c = quadratic_coefficients(
        m, layers, mode=mode, bias=bias, output_size=out, extra_params=extra
    )
    assert a * h * h + b * h + c == got


def test_numpy_integers_accepted():
    assert lstm_param_count(np.int64(3), np.int32(5), np.int16(2)) == lstm_param_count(3, 5, 2)


# ---------------------------------------------------------------------------- textbook vs torch


@FAST
@given(m=sizes, d=sizes, layers=layers_st)
def test_textbook_differs_from_torch_by_one_bias_per_layer(m, d, layers):
    textbook = textbook_lstm_param_count(m, d, layers)
    torch_count = numel(nn.LSTM(m, d, layers, device=META))
    # torch has b_ih and b_hh (4d each) per layer; the textbook one bias vector: 4dL more.
    assert torch_count - textbook == 4 * d * layers
    # per direction when bidirectional: the second direction doubles every layer's bias surplus
    bidi = numel(nn.LSTM(m, d, layers, bidirectional=True, device=META))
    bidi_no_bias = numel(nn.LSTM(m, d, layers, bidirectional=True, bias=False, device=META))
    assert bidi - bidi_no_bias == 2 * (2 * 4 * d * layers)
    # the single-layer formula in the seed text, 4(d^2 + d m + d)
    if layers == 1:
        assert textbook == 4 * (d * d + d * m + d)


@FAST
@given(m=sizes, d=sizes)
def test_seed_two_layer_expansion_is_wrong(m, d):
    seed_lhs = 4 * (d * d + d * m + d) + 4 * (d * d + d * d + d)
    seed_rhs = 4 * (d * m + 2 * d * d + 2 * d)  # the seed's expansion
    correct = 4 * (d * m + 3 * d * d + 2 * d)
    assert seed_lhs == correct == textbook_lstm_param_count(m, d, 2)
    assert correct - seed_rhs == 4 * d * d > 0


def test_seed_two_layer_expansion_is_wrong_symbolically():
    d, m, _ = symbols()
    lhs = symbolic_layer_count(biases=1) + symbolic_layer_count(biases=1, first_layer=False)
    assert sympy.expand(lhs - 4 * (d * m + 3 * d**2 + 2 * d)) == 0
    assert sympy.expand(lhs - 4 * (d * m + 2 * d**2 + 2 * d)) == 4 * d**2


# ---------------------------------------------------------------------------- symbolic forms


@FAST
@given(m=sizes, d=sizes, layers=layers_st, biases=st.sampled_from([1, 2]))
def test_symbolic_forms_agree_with_integer_counts(m, d, layers, biases):
    ds, ms, ls = symbols()
    subs = {ds: d, ms: m, ls: layers}
    first = symbolic_layer_count(biases=biases, first_layer=True).subs(subs)
    above = symbolic_layer_count(biases=biases, first_layer=False).subs(subs)
    stacked_sym = symbolic_stack_count(ls, biases=biases).subs(subs)
    stacked_int = symbolic_stack_count(layers, biases=biases).subs(subs)
    expected = (
        lstm_param_count(m, d, layers) if biases == 2 else textbook_lstm_param_count(m, d, layers)
    )
    assert first + (layers - 1) * above == stacked_sym == stacked_int == expected
    gru = symbolic_stack_count(ls, biases=2, gates=3).subs(subs)
    assert gru == gru_param_count(m, d, layers)


def test_symbolic_stack_sums_layers():
    d, m, L = symbols()
    for layers in range(1, 6):
        by_layer = symbolic_layer_count() + (layers - 1) * symbolic_layer_count(first_layer=False)
        assert sympy.expand(by_layer - symbolic_stack_count(layers)) == 0
        assert sympy.expand(symbolic_stack_count(L).subs(L, layers) - by_layer) == 0
    assert all(s.is_positive and s.is_integer for s in (d, m, L))


def test_params_imports_without_torch_or_sympy():
    code = (
        "import sys, rnnlab.core.params as p; p.lstm_param_count(3, 4); "
        "p.matched_width(10**5, 3, 2);"
        "assert 'torch' not in sys.modules and 'sympy' not in sys.modules, "
        "[k for k in sys.modules if k in ('torch', 'sympy')]"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------- matched_width

configs = st.fixed_dictionaries(
    {
        "input_size": st.integers(1, 64),
        "num_layers": layers_st,
        "mode": modes,
        "bias": st.booleans(),
        "output_size": st.integers(0, 20),
        "extra_params": st.integers(0, 1000),
    }
)


def _count(width: int, cfg: dict) -> int:
    return total_param_count(width, cfg["input_size"], cfg["num_layers"], **_kw(cfg))


def _kw(cfg: dict) -> dict:
    return {k: v for k, v in cfg.items() if k not in ("input_size", "num_layers")}


@settings(max_examples=100, deadline=None)
@given(cfg=configs, n=st.integers(1, 80), data=st.data())
def test_matched_width_is_optimal_by_brute_force(cfg, n, data):
    counts = [_count(w, cfg) for w in range(1, n + 2)]
    budget = data.draw(st.integers(counts[0], counts[n - 1]), label="budget")
    match = matched_width(budget, cfg["input_size"], cfg["num_layers"], **_kw(cfg))
    assert isinstance(match, WidthMatch)
    best = abs(match.param_count - budget)
    assert match.param_count == _count(match.hidden_size, cfg)
    for width, count in enumerate(counts, start=1):
        assert abs(count - budget) >= best, (width, count)
        if abs(count - budget) == best:  # a tie goes to the smaller width
            assert width >= match.hidden_size
    assert match.relative_error == pytest.approx((match.param_count - budget) / budget, abs=0)
    a, b, c = quadratic_coefficients(cfg["input_size"], cfg["num_layers"], **_kw(cfg))
    r = match.exact_root
    assert a * r * r + b * r + c == pytest.approx(budget, rel=1e-9)
    assert math.floor(r) <= match.hidden_size <= math.ceil(r)
    assert (match.budget, match.num_layers, match.input_size) == (
        budget,
        cfg["num_layers"],
        cfg["input_size"],
    )
    assert match.mode == params.normalize_mode(cfg["mode"])


@settings(max_examples=50, deadline=None)
@given(cfg=configs, data=st.data())
def test_matched_width_monotone_in_budget(cfg, data):
    low = min_budget(cfg["input_size"], cfg["num_layers"], **_kw(cfg))
    budgets = sorted(data.draw(st.lists(st.integers(low, low * 500), min_size=2, max_size=20)))
    widths = [
        matched_width(b, cfg["input_size"], cfg["num_layers"], **_kw(cfg)).hidden_size
        for b in budgets
    ]
    assert widths == sorted(widths)


def test_matched_width_tie_goes_to_smaller_width():
    ties = 0
    for m in range(1, 8):
        for d in range(1, 40):
            lo, hi = lstm_param_count(m, d, 2), lstm_param_count(m, d + 1, 2)
            if (lo + hi) % 2 == 0:
                assert matched_width((lo + hi) // 2, m, 2).hidden_size == d
                assert matched_width((lo + hi) // 2 + 1, m, 2).hidden_size == d + 1
                ties += 1
    assert ties > 10


def test_matched_width_exact_hits_and_large_budgets():
    for d in (1, 2, 63, 64, 1000, 123_457):
        budget = lstm_param_count(37, d, 3)
        match = matched_width(budget, 37, 3)
        assert (match.hidden_size, match.param_count, match.relative_error) == (d, budget, 0.0)
        assert match.exact_root == pytest.approx(d, rel=1e-12)
    huge = 10**40 + 12345  # beyond float precision: the integer search must still be exact
    match = matched_width(huge, 50, 2)
    w = match.hidden_size
    gaps = [abs(lstm_param_count(50, w + k, 2) - huge) for k in (-1, 0, 1)]
    assert gaps[1] == abs(match.param_count - huge) <= min(gaps)


def test_min_budget_is_width_one_and_below_raises():
    low = min_budget(10, 2, output_size=3, extra_params=7)
    assert low == total_param_count(1, 10, 2, output_size=3, extra_params=7)
    assert matched_width(low, 10, 2, output_size=3, extra_params=7).hidden_size == 1
    with pytest.raises(ValueError, match=rf"budget must be .*>= {low}.*got {low - 1}"):
        matched_width(low - 1, 10, 2, output_size=3, extra_params=7)


def test_one_layer_budget_matched_by_two_layers():
    d, m = 256, 32
    budget = lstm_param_count(m, d)
    two = matched_width(budget, m, 2)
    assert abs(two.relative_error) < 0.01
    # the seed's d/2 is far from the matched width; d/sqrt(3) is the d >> m limit
    assert two.hidden_size > d // 2 + 10
    big = 4096
    assert matched_width(lstm_param_count(8, big), 8, 2).hidden_size == pytest.approx(
        asymptotic_matched_width(big, 2), rel=0.01
    )
    assert asymptotic_matched_width(300, 5) == pytest.approx(100.0)


def test_halving_ratio():
    # exact value: (d/2 m + 3 d^2/4 + 2*2 d/2) / (d m + d^2 + 2 d)
    assert halving_ratio(10, 100) == pytest.approx((500 + 7500 + 200) / (1000 + 10000 + 200))
    assert halving_ratio(1, 10**6) == pytest.approx(0.75, abs=1e-5)
    assert halving_ratio(10**6, 2, num_layers=2, biases=1) == pytest.approx(0.5, abs=1e-5)
    for d in (2, 8, 64, 512):
        want = lstm_param_count(16, d // 2, 2) / lstm_param_count(16, d)
        assert halving_ratio(16, d) == pytest.approx(want)


# ---------------------------------------------------------------------------- bad input

BAD = [
    (lambda: gate_count("transformer"), r"mode must be one of LSTM, GRU, RNN_TANH, RNN_RELU"),
    (lambda: recurrent_param_count("LSTMX", 3, 4), r"mode .*'LSTMX'"),
    (lambda: lstm_param_count(0, 4), r"input_size must be an integer >= 1, got 0"),
    (lambda: lstm_param_count(3, 0), r"hidden_size must be an integer >= 1, got 0"),
    (lambda: lstm_param_count(3, 4, 0), r"num_layers must be an integer >= 1, got 0"),
    (lambda: lstm_param_count(True, 4), r"input_size must be an integer >= 1, got True"),
    (lambda: lstm_param_count(3, 4.0), r"hidden_size must be an integer >= 1, got 4.0"),
    (lambda: lstm_param_count(3, "4"), r"hidden_size .*got '4'"),
    (lambda: lstm_param_count(3, 4, proj_size=4), r"proj_size must be an integer in \[0, 3\]"),
    (lambda: lstm_param_count(3, 4, proj_size=-1), r"proj_size .*got -1"),
    (lambda: recurrent_param_count("GRU", 3, 4, proj_size=2), r"proj_size must be 0 .*GRU"),
    (lambda: lstm_param_count(3, 4, bias=1), r"bias must be True or False, got 1"),
    (lambda: gru_param_count(3, 4, bidirectional="yes"), r"bidirectional must be True or False"),
    (lambda: rnn_param_count(3, 4, nonlinearity="sigmoid"), r"nonlinearity .*'sigmoid'"),
    (lambda: textbook_lstm_param_count(3, 4, -1), r"num_layers .*got -1"),
    (lambda: embedding_param_count(0, 4), r"num_embeddings must be an integer >= 1, got 0"),
    (lambda: embedding_param_count(4, 0), r"embedding_dim must be an integer >= 1, got 0"),
    (lambda: linear_param_count(0, 4), r"in_features .*got 0"),
    (lambda: linear_param_count(4, 0), r"out_features .*got 0"),
    (lambda: total_param_count(4, 3, 1, output_size=-1), r"output_size .*>= 0, got -1"),
    (lambda: total_param_count(4, 3, 1, extra_params=-5), r"extra_params .*>= 0, got -5"),
    (lambda: total_param_count(4, 3, 1, mode="gruu"), r"mode .*'gruu'"),
    (lambda: matched_width(0, 3, 1), r"budget must be an integer >= 1, got 0"),
    (lambda: matched_width(1000.0, 3, 1), r"budget must be an integer >= 1, got 1000.0"),
    (lambda: matched_width(10**6, 3, 0), r"num_layers .*got 0"),
    (lambda: matched_width(10**6, 3, 1, mode="cnn"), r"mode .*'cnn'"),
    (lambda: min_budget(3, 1, output_size=-2), r"output_size .*got -2"),
    (lambda: symbolic_layer_count(gates=0), r"gates must be an integer >= 1, got 0"),
    (lambda: symbolic_layer_count(biases=-1), r"biases must be an integer >= 0, got -1"),
    (lambda: symbolic_stack_count(0), r"num_layers must be an integer >= 1, got 0"),
    (lambda: halving_ratio(3, 0), r"hidden_size .*got 0"),
    (lambda: asymptotic_matched_width(10, 0), r"num_layers .*got 0"),
]


@pytest.mark.parametrize("call, message", BAD, ids=[m for _, m in BAD])
def test_bad_input_raises_value_error_naming_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@settings(max_examples=30, deadline=None)
@given(
    h=st.integers(1, 16),
    extra=st.integers(0, 3),
)
def test_proj_size_rule_matches_torch(h, extra):
    proj = h + extra  # always >= hidden_size: torch refuses, and so do we
    with pytest.raises(ValueError):
        nn.LSTM(3, h, proj_size=proj, device=META)
    with pytest.raises(ValueError, match="proj_size"):
        lstm_param_count(3, h, proj_size=proj)
    assume(h > 1)
    assert lstm_param_count(3, h, proj_size=h - 1) == numel(
        nn.LSTM(3, h, proj_size=h - 1, device=META)
    )


# ---------------------------------------------------------------------------- design options:
# projections (LSTMP), residual connections, LayerNorm, GRU stacks


class _DesignStack(nn.Module):
    """L one-layer recurrent modules, identity shortcuts from layer 2 on, LayerNorm per layer."""

    def __init__(self, mode, m, h, layers, bias, bidi, proj, residual, layer_norm):
        super().__init__()
        d = 2 if bidi else 1
        width = d * (proj or h)
        cls = nn.LSTM if mode == "LSTM" else nn.GRU
        extra = {"proj_size": proj} if mode == "LSTM" else {}
        self.layers = nn.ModuleList(
            cls(m if k == 0 else width, h, bias=bias, bidirectional=bidi, device=META, **extra)
            for k in range(layers)
        )
        self.norms = nn.ModuleList(
            nn.LayerNorm(width, device=META) for _ in range(layers if layer_norm else 0)
        )
        self.residual = residual  # an addition: nothing to register


@FAST
@given(
    mode=st.sampled_from(["LSTM", "GRU"]),
    m=sizes,
    h=st.integers(2, 48),
    layers=layers_st,
    bias=st.booleans(),
    bidi=st.booleans(),
    residual=st.booleans(),
    layer_norm=st.booleans(),
    data=st.data(),
)
def test_design_stack_count_equals_torch(
    mode, m, h, layers, bias, bidi, residual, layer_norm, data
):
    proj = 0
    if mode == "LSTM":
        proj = data.draw(st.one_of(st.just(0), st.integers(1, h - 1)), label="proj_size")
    module = _DesignStack(mode, m, h, layers, bias, bidi, proj, residual, layer_norm)
    kwargs = dict(bias=bias, bidirectional=bidi, proj_size=proj)
    got = params.stack_param_count(
        m, h, layers, mode=mode, residual=residual, layer_norm=layer_norm, **kwargs
    )
    assert got == numel(module)
    # one fused nn.LSTM(num_layers=L) holds exactly the recurrent part of L one-layer modules
    if proj:
        fused = nn.LSTM(m, h, layers, bias=bias, bidirectional=bidi, proj_size=proj, device=META)
    else:
        fused = torch_rnn(mode, m, h, layers, bias=bias, bidirectional=bidi)
    norms = layers * 2 * params.stack_output_size(h, proj_size=proj, bidirectional=bidi)
    assert got == numel(fused) + (norms if layer_norm else 0)


@FAST
@given(n=st.integers(1, 300), affine=st.booleans(), bias=st.booleans())
def test_layer_norm_count_equals_torch(n, affine, bias):
    module = nn.LayerNorm(n, elementwise_affine=affine, bias=bias, device=META)
    assert params.layer_norm_param_count(n, elementwise_affine=affine, bias=bias) == numel(module)
    assert params.layer_norm_param_count(n) == 2 * n


@FAST
@given(n_in=sizes, n_out=sizes)
def test_residual_is_free_between_equal_widths(n_in, n_out):
    assert params.residual_param_count(n_in, n_in) == 0
    if n_in != n_out:
        with pytest.raises(ValueError, match=rf"output_width must equal input_width={n_in}"):
            params.residual_param_count(n_in, n_out)
        shortcut = nn.Linear(n_in, n_out, bias=False, device=META)
        assert params.residual_param_count(n_in, n_out, projection=True) == numel(shortcut)


class _DesignModel(nn.Module):
    def __init__(self, vocab, m, h, layers, proj, residual, layer_norm, mode, out):
        super().__init__()
        self.embed = nn.Embedding(vocab, m, device=META)
        self.stack = _DesignStack(mode, m, h, layers, True, False, proj, residual, layer_norm)
        self.head = nn.Linear(proj or h, out, device=META) if out else None


@FAST
@given(
    mode=st.sampled_from(["LSTM", "GRU"]),
    vocab=st.integers(1, 100),
    m=sizes,
    h=st.integers(2, 48),
    layers=layers_st,
    residual=st.booleans(),
    layer_norm=st.booleans(),
    out=st.integers(0, 30),
    data=st.data(),
)
def test_design_total_count_equals_real_model(
    mode, vocab, m, h, layers, residual, layer_norm, out, data
):
    proj = 0
    if mode == "LSTM":
        proj = data.draw(st.one_of(st.just(0), st.integers(1, h - 1)), label="proj_size")
    model = _DesignModel(vocab, m, h, layers, proj, residual, layer_norm, mode, out)
    got = total_param_count(
        h,
        m,
        layers,
        mode=mode,
        output_size=out,
        extra_params=embedding_param_count(vocab, m),
        proj_size=proj,
        residual=residual,
        layer_norm=layer_norm,
    )
    assert got == numel(model)
    if proj == 0:
        a, b, c = quadratic_coefficients(
            m,
            layers,
            mode=mode,
            output_size=out,
            extra_params=embedding_param_count(vocab, m),
            layer_norm=layer_norm,
        )
        assert a * h * h + b * h + c == got


@FAST
@given(
    m=sizes,
    d=st.integers(2, 64),
    layers=layers_st,
    layer_norm=st.booleans(),
    residual=st.booleans(),
    data=st.data(),
)
def test_symbolic_design_forms_agree_with_integer_counts(m, d, layers, layer_norm, residual, data):
    p_value = data.draw(st.integers(1, d - 1), label="proj_size")
    ds, ms, ls = symbols()
    ps = params.proj_symbol()
    subs = {ds: d, ms: m, ls: layers, ps: p_value}
    opts = dict(layer_norm=layer_norm, residual=residual)
    for proj, p in ((True, p_value), (False, 0)):
        want = params.stack_param_count(m, d, layers, proj_size=p, **opts)
        by_symbol = params.symbolic_stack_count(ls, proj=proj, **opts).subs(subs)
        by_int = params.symbolic_stack_count(layers, proj=proj, **opts).subs(subs)
        first = params.symbolic_layer_count(proj=proj, layer_norm=layer_norm)
        above = params.symbolic_layer_count(proj=proj, layer_norm=layer_norm, first_layer=False)
        by_layer = (first + (layers - 1) * above).subs(subs)
        assert by_symbol == by_int == by_layer == want
    gru = params.symbolic_stack_count(ls, gates=3, layer_norm=layer_norm).subs(subs)
    assert gru == params.stack_param_count(m, d, layers, mode="GRU", layer_norm=layer_norm)


def test_lstmp_closed_form_is_4dm_plus_9L_minus_4_dp_plus_8Ld():
    d, m, L = symbols()
    p = params.proj_symbol()
    lstmp = params.symbolic_stack_count(L, proj=True)
    assert sympy.expand(lstmp - (4 * d * m + (9 * L - 4) * d * p + 8 * L * d)) == 0
    with_norm = params.symbolic_stack_count(L, proj=True, layer_norm=True, residual=True)
    assert sympy.expand(with_norm - lstmp) == 2 * L * p
    plain_norm = params.symbolic_stack_count(L, layer_norm=True)
    assert sympy.expand(plain_norm - symbolic_stack_count(L)) == 2 * L * d


design_configs = st.fixed_dictionaries(
    {
        "input_size": st.integers(1, 64),
        "num_layers": layers_st,
        "output_size": st.integers(0, 20),
        "extra_params": st.integers(0, 1000),
        "layer_norm": st.booleans(),
        "residual": st.booleans(),
    }
)
projections = st.one_of(
    st.fixed_dictionaries({"proj_size": st.integers(1, 12)}),
    st.fixed_dictionaries({"proj_ratio": st.floats(0.05, 0.95)}),
    st.fixed_dictionaries({"mode": st.just("GRU")}),
    st.just({}),
)


@settings(max_examples=100, deadline=None)
@given(cfg=design_configs, proj=projections, n=st.integers(1, 60), data=st.data())
def test_design_matched_width_is_optimal_by_brute_force(cfg, proj, n, data):
    kw = {**_kw(cfg), **proj}
    start = {"proj_size": proj.get("proj_size", 0) + 1, "proj_ratio": 2}.get(
        next(iter(proj), ""), 1
    )

    def count(width: int) -> int:
        p = kw.get("proj_size", 0)
        if "proj_ratio" in kw:
            p = params.proj_size_for_ratio(width, kw["proj_ratio"])
        rest = {k: v for k, v in kw.items() if k not in ("proj_size", "proj_ratio")}
        return total_param_count(width, cfg["input_size"], cfg["num_layers"], proj_size=p, **rest)

    counts = {w: count(w) for w in range(start, start + n + 1)}
    low = min_budget(cfg["input_size"], cfg["num_layers"], **kw)
    assert low == counts[start]
    budget = data.draw(st.integers(counts[start], counts[start + n - 1]), label="budget")
    match = matched_width(budget, cfg["input_size"], cfg["num_layers"], **kw)
    assert match.param_count == count(match.hidden_size)
    best = abs(match.param_count - budget)
    for width, c in counts.items():
        assert abs(c - budget) >= best, (width, c)
        if abs(c - budget) == best:
            assert width >= match.hidden_size
    assert (match.layer_norm, match.residual) == (cfg["layer_norm"], cfg["residual"])
    want_p = kw.get("proj_size", 0)
    if "proj_ratio" in kw:
        want_p = params.proj_size_for_ratio(match.hidden_size, kw["proj_ratio"])
    assert match.proj_size == want_p < match.hidden_size
    if "proj_ratio" not in kw:  # exact polynomial: the real root brackets the integer answer
        assert math.floor(match.exact_root) <= match.hidden_size <= math.ceil(match.exact_root)
    with pytest.raises(ValueError, match="budget must be"):
        matched_width(low - 1, cfg["input_size"], cfg["num_layers"], **kw)


def test_proj_ratio_matches_a_real_lstmp_within_two_percent():
    for layers in (1, 2, 4, 8):
        match = matched_width(400_000, 32, layers, output_size=96, proj_ratio=0.5)
        assert abs(match.relative_error) < 0.01
        assert match.proj_size == math.floor(match.hidden_size / 2 + 0.5)
        lstm = nn.LSTM(32, match.hidden_size, layers, proj_size=match.proj_size, device=META)
        head = nn.Linear(match.proj_size, 96, device=META)
        assert numel(lstm) + numel(head) == match.param_count
        # the relaxed root p = rho * h lies within a unit or so of the integer width
        assert abs(match.exact_root - match.hidden_size) < 2


def test_proj_size_for_ratio_keeps_torch_rule():
    assert params.proj_size_for_ratio(100, 0.25) == 25
    assert params.proj_size_for_ratio(2, 0.01) == 1 and params.proj_size_for_ratio(2, 0.99) == 1
    for h in range(2, 50):
        for rho in (0.01, 0.3, 0.5, 0.99):
            assert 1 <= params.proj_size_for_ratio(h, rho) <= h - 1


DESIGN_BAD = [
    (lambda: params.layer_norm_param_count(0), r"normalized_size must be an integer >= 1, got 0"),
    (lambda: params.residual_param_count(4, 5), r"output_width must equal input_width=4 .*got 5"),
    (lambda: params.residual_param_count(0, 5), r"input_width .*got 0"),
    (lambda: params.stack_param_count(3, 4, 2, layer_norm=1), r"layer_norm must be True or False"),
    (lambda: params.stack_param_count(3, 4, 2, residual="y"), r"residual must be True or False"),
    (
        lambda: params.stack_param_count(3, 4, proj_size=4),
        r"proj_size must be an integer in \[0, 3",
    ),
    (lambda: params.stack_output_size(4, proj_size=5), r"proj_size must be an integer in \[0, 3"),
    (
        lambda: matched_width(10**5, 3, 2, proj_ratio=1.0),
        r"proj_ratio must be a number in \(0, 1\)",
    ),
    (lambda: matched_width(10**5, 3, 2, proj_ratio=0), r"proj_ratio must be .*got 0"),
    (lambda: matched_width(10**5, 3, 2, proj_ratio=True), r"proj_ratio must be .*got True"),
    (lambda: matched_width(10**5, 3, 2, proj_size=4, proj_ratio=0.5), r"proj_size must be 0 when"),
    (lambda: matched_width(10**5, 3, 2, proj_size=-1), r"proj_size must be an integer >= 0"),
    (lambda: matched_width(10**5, 3, 2, mode="GRU", proj_size=8), r"proj_size must be 0 .*GRU"),
    (lambda: matched_width(10**5, 3, 2, mode="GRU", proj_ratio=0.5), r"proj_size must be 0 .*GRU"),
    (lambda: params.proj_size_for_ratio(1, 0.5), r"hidden_size must be an integer >= 2, got 1"),
    (lambda: params.symbolic_stack_count(2, proj=1), r"proj must be True or False"),
]


@pytest.mark.parametrize("call, message", DESIGN_BAD, ids=[m for _, m in DESIGN_BAD])
def test_design_bad_input_raises_value_error_naming_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()
