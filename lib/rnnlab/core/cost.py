r"""What depth costs: floating-point operations per token and the sequential critical path.

Pure functions, no torch. Conventions: a multiply-add (MAC) is **2 FLOPs**; an elementwise add
or multiply is 1 FLOP; a nonlinearity (:math:`\sigma`, :math:`\tanh`) is counted apart as one
*transcendental* per element, since its real cost depends on the library.

**One LSTM layer, one token, forward.** With input width :math:`n`, hidden size :math:`h` and
recurrent width :math:`r` (:math:`r = p` with projections, else :math:`h`):

- gate pre-activations :math:`W_{ih} x_t + W_{hh} h_{t-1}`: :math:`4h(n + r)` MACs, i.e.
  :math:`8h(n + r)` FLOPs (for :math:`r = h`: :math:`8(n + h)h`);
- the two bias vectors and the sum of the two products: :math:`3 \cdot 4h` adds;
- :math:`c_t = f \odot c_{t-1} + i \odot g`: :math:`3h`; :math:`h_t = o \odot \tanh c_t`:
  :math:`h`; projection :math:`W_{hr}`: :math:`ph` MACs;
- nonlinearities: 3 sigmoids and 2 tanh per unit, :math:`5h`.

A GRU layer has :math:`3h(n + r)` MACs, biases and sums :math:`3 \cdot 3h`, gating
:math:`r \odot (\cdot)`, :math:`(1-z)\odot n + z \odot h`: :math:`4h`, and :math:`3h`
nonlinearities.

The matmul term is twice the number of weights, which is why "forward FLOPs :math:`\approx 2P`"
holds for the recurrent stack and the head. It does *not* hold for the embedding: a lookup
costs no FLOPs although its :math:`Ve` weights count in :math:`P`. Training (forward, then
backward through activations and weights) costs about three forwards, :math:`\approx 6P` per
token.

**Critical path.** In an :math:`L`-layer stack over :math:`T` steps, cell :math:`(k, t)` needs
:math:`(k-1, t)` and :math:`(k, t-1)`. Run layer by layer (cuDNN and torch's fused LSTM), the
chain of dependent cell updates is :math:`LT` long; a *wavefront* schedule runs every cell with
:math:`k + t` fixed at once, and the path is :math:`L + T - 1`. Autoregressive generation cannot
use the wavefront: token :math:`t+1` is the sample drawn from the top layer's output at
:math:`t`, so every token waits for all :math:`L` layers, :math:`LT` steps in all.
"""

from __future__ import annotations

from dataclasses import dataclass

from rnnlab.core import params
from rnnlab.core.params.counts import check_bool, check_int

__all__ = [
    "LayerFlops",
    "critical_path",
    "generation_critical_path",
    "model_forward_flops",
    "recurrent_layer_flops",
    "train_flops_per_token",
]


@dataclass(frozen=True)
class LayerFlops:
    """Forward FLOPs of one recurrent layer for one token (see the module docstring).

    Attributes:
        macs: multiply-adds in the matrix products (weights used once each).
        elementwise: adds and multiplies outside the products (biases, gating, cell update).
        transcendentals: sigmoid and tanh evaluations.
    """

    macs: int
    elementwise: int
    transcendentals: int

    @property
    def flops(self) -> int:
        """``2 * macs + elementwise`` (transcendentals not included)."""
        return 2 * self.macs + self.elementwise


def recurrent_layer_flops(
    input_size: int, hidden_size: int, *, mode: str = "LSTM", proj_size: int = 0
) -> LayerFlops:
    r"""Forward cost of one one-directional LSTM or GRU layer for one token.

    LSTM: :math:`4h(n + r) + ph` MACs, :math:`12h + 4h` elementwise, :math:`5h` nonlinearities;
    GRU: :math:`3h(n + h)` MACs, :math:`9h + 4h` elementwise, :math:`3h` nonlinearities.
    """
    key = params.normalize_mode(mode)
    if key not in ("LSTM", "GRU"):
        raise ValueError(f"mode must be one of LSTM, GRU, got {mode!r}")
    n = check_int("input_size", input_size, 1)
    h = check_int("hidden_size", hidden_size, 1)
    p = check_int("proj_size", proj_size, 0, h - 1)
    if p and key != "LSTM":
        raise ValueError(f"proj_size must be 0 for mode {key} (only LSTM supports it), got {p}")
    r = p or h
    if key == "LSTM":
        return LayerFlops(macs=4 * h * (n + r) + p * h, elementwise=16 * h, transcendentals=5 * h)
    return LayerFlops(macs=3 * h * (n + r), elementwise=13 * h, transcendentals=3 * h)


def model_forward_flops(
    input_size: int,
    hidden_size: int,
    num_layers: int,
    output_size: int,
    *,
    mode: str = "LSTM",
    proj_size: int = 0,
    residual: bool = False,
    layer_norm: bool = False,
) -> int:
    r"""Forward FLOPs per token of embedding + stack + head (the embedding is a free lookup).

    Adds, per layer, :math:`r` for a residual addition (layers 2..L) and about :math:`8r` for a
    LayerNorm (mean, variance, normalise, gain, shift; its square root is ignored), and
    :math:`2rC + C` for the head.
    """
    layers = check_int("num_layers", num_layers, 1)
    o = check_int("output_size", output_size, 1)
    r = params.stack_output_size(hidden_size, proj_size=proj_size)
    total = 0
    for k in range(layers):
        n = input_size if k == 0 else r
        total += recurrent_layer_flops(n, hidden_size, mode=mode, proj_size=proj_size).flops
        if check_bool("residual", residual) and k > 0:
            total += r
        if check_bool("layer_norm", layer_norm):
            total += 8 * r
    return total + 2 * r * o + o


def train_flops_per_token(forward_flops: int) -> int:
    """Training FLOPs per token: forward plus a backward of about twice the forward, ``3x``."""
    return 3 * check_int("forward_flops", forward_flops, 0)


def critical_path(num_layers: int, seq_len: int, *, schedule: str = "layerwise") -> int:
    r"""Length of the longest chain of dependent cell updates over an :math:`L \times T` grid.

    ``"layerwise"`` (each layer over the whole sequence, then the next): :math:`LT`.
    ``"wavefront"`` (all cells on an anti-diagonal :math:`k + t` at once): :math:`L + T - 1`,
    the minimum the dependencies allow.
    """
    layers = check_int("num_layers", num_layers, 1)
    t = check_int("seq_len", seq_len, 1)
    if schedule == "layerwise":
        return layers * t
    if schedule == "wavefront":
        return layers + t - 1
    raise ValueError(f"schedule must be one of 'layerwise', 'wavefront', got {schedule!r}")


def generation_critical_path(num_layers: int, num_tokens: int) -> int:
    r"""Sequential steps to sample ``num_tokens`` tokens autoregressively: :math:`LT` whatever
    the schedule, since each token's input is the previous token's output."""
    layers = check_int("num_layers", num_layers, 1)
    return layers * check_int("num_tokens", num_tokens, 1)
