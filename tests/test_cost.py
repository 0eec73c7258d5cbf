"""rnnlab.core.cost: FLOP counts and critical paths."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnlab.core import cost, params


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 64), h=st.integers(2, 64), data=st.data())
def test_lstm_matmul_flops_are_twice_the_weights(n, h, data):
    p = data.draw(st.one_of(st.just(0), st.integers(1, h - 1)))
    layer = cost.recurrent_layer_flops(n, h, proj_size=p)
    weights = params.lstm_param_count(n, h, proj_size=p, bias=False)
    assert layer.macs == weights  # each weight is used once per token
    if p == 0:
        assert 2 * layer.macs == 8 * (n + h) * h
    assert layer.flops == 2 * weights + 16 * h and layer.transcendentals == 5 * h
    gru = cost.recurrent_layer_flops(n, h, mode="GRU")
    assert gru.macs == params.gru_param_count(n, h, bias=False)


def test_lstm_layer_hand_count():
    # n = 3, h = 2: W_ih 8x3 and W_hh 8x2 -> 40 MACs; 12h + 4h = 32 elementwise; 10 nonlinear
    assert cost.recurrent_layer_flops(3, 2) == cost.LayerFlops(40, 32, 10)
    assert cost.recurrent_layer_flops(3, 2).flops == 112


def test_model_forward_flops_is_about_two_p_without_the_embedding():
    vocab, e, h, layers = 96, 32, 128, 2
    fwd = cost.model_forward_flops(e, h, layers, vocab)
    p_no_embedding = params.total_param_count(h, e, layers, output_size=vocab)
    assert 2 * p_no_embedding * 0.95 < fwd < 2 * p_no_embedding * 1.1
    assert cost.train_flops_per_token(fwd) == 3 * fwd
    design = cost.model_forward_flops(e, h, 4, vocab, residual=True, layer_norm=True)
    plain = cost.model_forward_flops(e, h, 4, vocab)
    assert design - plain == 3 * h + 4 * 8 * h


@settings(max_examples=60, deadline=None)
@given(layers=st.integers(1, 16), t=st.integers(1, 512))
def test_critical_paths(layers, t):
    assert cost.critical_path(layers, t) == layers * t == cost.generation_critical_path(layers, t)
    wave = cost.critical_path(layers, t, schedule="wavefront")
    assert wave == layers + t - 1 <= layers * t
    if layers == 1 or t == 1:
        assert wave == layers * t


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: cost.critical_path(2, 8, schedule="magic"), r"schedule must be one of"),
        (lambda: cost.critical_path(0, 8), r"num_layers must be an integer >= 1, got 0"),
        (lambda: cost.recurrent_layer_flops(3, 4, mode="RNN"), r"mode must be one of LSTM, GRU"),
        (lambda: cost.recurrent_layer_flops(3, 4, proj_size=4), r"proj_size must be .*\[0, 3\]"),
        (lambda: cost.recurrent_layer_flops(3, 4, mode="GRU", proj_size=2), r"proj_size must be 0"),
        (lambda: cost.generation_critical_path(2, 0), r"num_tokens must be an integer >= 1"),
    ],
)
def test_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()
