r"""Exact parameter counts for PyTorch recurrent stacks, and budget matching.

Every count here is pure integer arithmetic and equals
``sum(p.numel() for p in module.parameters())`` of the matching ``torch.nn`` module; the tests
check that against torch. This module does not import torch. :mod:`sympy` is imported only
inside the symbolic helpers.

**What a recurrent layer holds.** A layer with ``G`` gates (LSTM 4, GRU 3, plain RNN 1), hidden
size :math:`d` and input size :math:`m` holds, per direction,

- ``weight_ih_l[k]`` of shape ``(G*d, m)`` for ``k = 0``, ``(G*d, D*d)`` above (``D`` = 2 when
  bidirectional, else 1),
- ``weight_hh_l[k]`` of shape ``(G*d, d)``,
- ``bias_ih_l[k]`` and ``bias_hh_l[k]``, each of shape ``(G*d,)``, when ``bias=True``,

so the first layer of a one-directional stack has :math:`G(dm + d^2 + 2d)` parameters and every
layer above it :math:`G(d^2 + d^2 + 2d)`. PyTorch keeps **two** bias vectors per layer because it
copies cuDNN's layout; for the LSTM they are redundant (only their sum matters) but both are
trainable parameters and both count. Textbooks usually write one, :math:`G(dm + d^2 + d)`; see
:func:`textbook_lstm_param_count`.

**Budget matching.** Without projections the total count of a stack plus a linear head is a
quadratic in the hidden size, :math:`P(d) = a d^2 + b d + c` with :math:`a > 0,\ b > 0`, strictly
increasing for :math:`d \ge 1`; :func:`matched_width` solves :math:`P(d) = \text{budget}` exactly.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # pragma: no cover
    import sympy

__all__ = [
    "Mode",
    "WidthMatch",
    "asymptotic_matched_width",
    "embedding_param_count",
    "gate_count",
    "gru_param_count",
    "halving_ratio",
    "linear_param_count",
    "lstm_param_count",
    "matched_width",
    "min_budget",
    "normalize_mode",
    "quadratic_coefficients",
    "recurrent_param_count",
    "rnn_param_count",
    "symbolic_layer_count",
    "symbolic_stack_count",
    "symbols",
    "textbook_lstm_param_count",
    "total_param_count",
]

Mode = Literal["LSTM", "GRU", "RNN_TANH", "RNN_RELU"]

_GATES: dict[str, int] = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_ALIASES: dict[str, str] = {"RNN": "RNN_TANH"}


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _check_int(name: str, value: object, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` as a Python int, or raise ValueError naming ``name``, value and range.

    ``bool`` is rejected (``True`` is not a size); numpy integers are accepted.
    """
    bound = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer {bound}, got {value!r}")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be an integer {bound}, got {value}")
    return value


def _check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return value


def normalize_mode(mode: str) -> str:
    """The canonical spelling of a recurrent ``mode``: one of ``LSTM, GRU, RNN_TANH, RNN_RELU``.

    Case-insensitive; ``"RNN"`` is an alias of ``"RNN_TANH"`` (``torch.nn.RNN``'s default).
    """
    if isinstance(mode, str):
        key = mode.strip().upper()
        key = _ALIASES.get(key, key)
        if key in _GATES:
            return key
    allowed = ", ".join([*_GATES, *_ALIASES])
    raise ValueError(f"mode must be one of {allowed} (case-insensitive), got {mode!r}")


def gate_count(mode: str) -> int:
    r"""How many gate blocks a cell of this ``mode`` stacks into ``weight_ih``/``weight_hh``.

    - LSTM: 4 (input :math:`i`, forget :math:`f`, cell candidate :math:`g`, output :math:`o`),
    - GRU: 3 (reset :math:`r`, update :math:`z`, new :math:`n`),
    - RNN (tanh or relu): 1, :math:`h_t = \phi(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh})`.

    Raises ValueError for an unknown mode, listing the allowed ones.
    """
    return _GATES[normalize_mode(mode)]


# --------------------------------------------------------------------------------------------
# Exact integer counts (== torch)
# --------------------------------------------------------------------------------------------


def recurrent_param_count(
    mode: str,
    input_size: int,
    hidden_size: int,
    num_layers: int = 1,
    *,
    bias: bool = True,
    bidirectional: bool = False,
    proj_size: int = 0,
) -> int:
    r"""Number of parameters of ``torch.nn.LSTM/GRU/RNN(input_size, hidden_size, num_layers, ...)``.

    With :math:`G` = :func:`gate_count`, hidden size :math:`h`, recurrent width :math:`r`
    (:math:`r = p` = ``proj_size`` if :math:`p > 0`, else :math:`r = h`), :math:`D` directions and
    :math:`\beta = 2` bias vectors (0 when ``bias=False``), layer :math:`k` holds, per direction,

    .. math::

        G h \cdot n_k \;+\; G h \cdot r \;+\; \beta G h \;+\; [p > 0]\, p h,
        \qquad n_0 = m, \quad n_{k>0} = D r,

    i.e. ``weight_ih_l[k]`` ``(G*h, n_k)``, ``weight_hh_l[k]`` ``(G*h, r)``, ``bias_ih_l[k]`` and
    ``bias_hh_l[k]`` ``(G*h,)``, and for an LSTM with projections ``weight_hr_l[k]`` ``(p, h)``.

    Args:
        mode: ``"LSTM"``, ``"GRU"``, ``"RNN_TANH"``/``"RNN"`` or ``"RNN_RELU"``.
        input_size: features per time step :math:`m \ge 1`.
        hidden_size: :math:`h \ge 1`.
        num_layers: :math:`L \ge 1`.
        bias: whether each layer has ``b_ih`` and ``b_hh``.
        bidirectional: two directions per layer; layers above the first then read :math:`2r` inputs.
        proj_size: LSTM only, :math:`0 \le p < h` (torch's rule).
    """
    key = normalize_mode(mode)
    gates = _GATES[key]
    m = _check_int("input_size", input_size, 1)
    h = _check_int("hidden_size", hidden_size, 1)
    layers = _check_int("num_layers", num_layers, 1)
    has_bias = _check_bool("bias", bias)
    bidi = _check_bool("bidirectional", bidirectional)
    p = _check_int("proj_size", proj_size, 0, h - 1)
    if p > 0 and key != "LSTM":
        raise ValueError(f"proj_size must be 0 for mode {key} (only LSTM supports it), got {p}")
    directions = 2 if bidi else 1
    r = p if p > 0 else h
    total = 0
    for k in range(layers):
        n_in = m if k == 0 else directions * r
        per_direction = gates * h * (n_in + r) + (2 * gates * h if has_bias else 0)
        if p > 0:
            per_direction += p * h
        total += directions * per_direction
    return total


def lstm_param_count(
    input_size: int,
    hidden_size: int,
    num_layers: int = 1,
    *,
    bias: bool = True,
    bidirectional: bool = False,
    proj_size: int = 0,
) -> int:
    r"""Parameters of ``torch.nn.LSTM``: four gates, two bias vectors per layer and direction.

    The cell computes

    .. math::

        \begin{pmatrix} i_t \\ f_t \\ g_t \\ o_t \end{pmatrix}
        = \begin{pmatrix} \sigma \\ \sigma \\ \tanh \\ \sigma \end{pmatrix}
          \!\left(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh}\right),\quad
        c_t = f_t \odot c_{t-1} + i_t \odot g_t,\quad h_t = o_t \odot \tanh(c_t),

    with :math:`W_{ih}` ``(4*hidden_size, input_size)`` in the first layer, :math:`W_{hh}`
    ``(4*hidden_size, hidden_size)`` and :math:`b_{ih}, b_{hh}` ``(4*hidden_size,)``. One
    one-directional layer without projection therefore holds :math:`4(dm + d^2 + 2d)` parameters,
    and an :math:`L`-layer stack :math:`4\,(dm + (2L-1)d^2 + 2Ld)`. See
    :func:`recurrent_param_count` for bidirectional stacks and ``proj_size``.
    """
    return recurrent_param_count(
        "LSTM",
        input_size,
        hidden_size,
        num_layers,
        bias=bias,
        bidirectional=bidirectional,
        proj_size=proj_size,
    )


def gru_param_count(
    input_size: int,
    hidden_size: int,
    num_layers: int = 1,
    *,
    bias: bool = True,
    bidirectional: bool = False,
) -> int:
    r"""Parameters of ``torch.nn.GRU``: three gates (reset, update, new), two bias vectors.

    One one-directional layer holds :math:`3(dm + d^2 + 2d)`: ``weight_ih_l0`` ``(3*d, m)``,
    ``weight_hh_l0`` ``(3*d, d)``, ``bias_ih_l0`` and ``bias_hh_l0`` ``(3*d,)``. Here the two biases
    are *not* redundant for the new gate :math:`n_t = \tanh(W_{in}x_t + b_{in} + r_t \odot (W_{hn}
    h_{t-1} + b_{hn}))`, because :math:`b_{hn}` is multiplied by the reset gate.
    """
    return recurrent_param_count(
        "GRU", input_size, hidden_size, num_layers, bias=bias, bidirectional=bidirectional
    )


def rnn_param_count(
    input_size: int,
    hidden_size: int,
    num_layers: int = 1,
    *,
    bias: bool = True,
    bidirectional: bool = False,
    nonlinearity: str = "tanh",
) -> int:
    r"""Parameters of ``torch.nn.RNN``, whose cell is
    :math:`h_t = \phi(W_{ih}x_t + b_{ih} + W_{hh}h_{t-1} + b_{hh})`.

    One one-directional layer holds :math:`dm + d^2 + 2d`. The nonlinearity :math:`\phi`
    (``"tanh"`` or ``"relu"``) has no parameters; it is validated only.
    """
    if nonlinearity not in ("tanh", "relu"):
        raise ValueError(f"nonlinearity must be one of 'tanh', 'relu', got {nonlinearity!r}")
    mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
    return recurrent_param_count(
        mode, input_size, hidden_size, num_layers, bias=bias, bidirectional=bidirectional
    )


def textbook_lstm_param_count(input_size: int, hidden_size: int, num_layers: int = 1) -> int:
    r"""The textbook LSTM count with **one** bias vector per gate (the seed text's formula).

    .. math::

        P_\text{textbook} = 4(d^2 + dm + d) + (L-1)\cdot 4(d^2 + d^2 + d)
                          = 4\,\bigl(dm + (2L-1)d^2 + Ld\bigr).

    PyTorch (and cuDNN) keep two bias vectors, ``b_ih`` and ``b_hh``, so a torch layer holds
    :math:`4(d^2 + dm + 2d)` and
    :math:`P_\text{torch} - P_\text{textbook} = 4dL` for a one-directional stack
    (:math:`4dL` per direction when bidirectional). For two layers the correct textbook count is
    :math:`4(dm + 3d^2 + 2d)`, not the seed's :math:`4(dm + 2d^2 + 2d)`: the second layer's input
    weights :math:`W_{ih}^{(2)}` add :math:`4d^2` on top of its recurrent :math:`4d^2`.
    """
    m = _check_int("input_size", input_size, 1)
    d = _check_int("hidden_size", hidden_size, 1)
    layers = _check_int("num_layers", num_layers, 1)
    return 4 * (d * m + (2 * layers - 1) * d * d + layers * d)


def embedding_param_count(num_embeddings: int, embedding_dim: int) -> int:
    r"""Parameters of ``torch.nn.Embedding(num_embeddings, embedding_dim)``: ``weight`` of shape
    ``(num_embeddings, embedding_dim)``, i.e. :math:`V e`."""
    v = _check_int("num_embeddings", num_embeddings, 1)
    e = _check_int("embedding_dim", embedding_dim, 1)
    return v * e


def linear_param_count(in_features: int, out_features: int, *, bias: bool = True) -> int:
    r"""Parameters of ``torch.nn.Linear(in_features, out_features, bias)``: ``weight``
    ``(out_features, in_features)`` and ``bias`` ``(out_features,)``, i.e. :math:`n_\text{out}
    (n_\text{in} + 1)` (or :math:`n_\text{out} n_\text{in}` without bias)."""
    n_in = _check_int("in_features", in_features, 1)
    n_out = _check_int("out_features", out_features, 1)
    return n_out * (n_in + (1 if _check_bool("bias", bias) else 0))


def total_param_count(
    hidden_size: int,
    input_size: int,
    num_layers: int,
    *,
    mode: str = "LSTM",
    bias: bool = True,
    output_size: int = 0,
    extra_params: int = 0,
) -> int:
    r"""A whole model: recurrent stack + linear head + anything else.

    .. math::

        P(d) = P_\text{stack}(d) + [o > 0]\,(d\,o + o) + E,

    where the head is ``nn.Linear(hidden_size, output_size)`` with bias (omitted when
    ``output_size == 0``) and :math:`E` = ``extra_params`` counts parts that do not depend on the
    width, e.g. an embedding table (:func:`embedding_param_count`). One-directional, no projection.
    """
    h = _check_int("hidden_size", hidden_size, 1)
    o = _check_int("output_size", output_size, 0)
    extra = _check_int("extra_params", extra_params, 0)
    stack = recurrent_param_count(mode, input_size, h, num_layers, bias=bias)
    head = o * (h + 1)
    return stack + head + extra


# --------------------------------------------------------------------------------------------
# Budget matching
# --------------------------------------------------------------------------------------------


def quadratic_coefficients(
    input_size: int,
    num_layers: int,
    *,
    mode: str = "LSTM",
    bias: bool = True,
    output_size: int = 0,
    extra_params: int = 0,
) -> tuple[int, int, int]:
    r"""Integer coefficients :math:`(a, b, c)` of the count as a quadratic in the hidden size:
    :func:`total_param_count` :math:`= a d^2 + b d + c`.

    .. math::

        a = G(2L - 1), \qquad b = G(m + \beta L) + o, \qquad c = o + E,

    with :math:`G` gates, :math:`\beta \in \{0, 2\}` bias vectors, head width :math:`o` and
    extra parameters :math:`E`. Because :math:`a, b > 0` the count is strictly increasing in
    :math:`d \ge 1`.
    """
    gates = gate_count(mode)
    m = _check_int("input_size", input_size, 1)
    layers = _check_int("num_layers", num_layers, 1)
    beta = 2 if _check_bool("bias", bias) else 0
    o = _check_int("output_size", output_size, 0)
    extra = _check_int("extra_params", extra_params, 0)
    return gates * (2 * layers - 1), gates * (m + beta * layers) + o, o + extra


@dataclass(frozen=True)
class WidthMatch:
    r"""The result of :func:`matched_width`.

    Attributes:
        hidden_size: the integer width whose total count is nearest the budget.
        param_count: :func:`total_param_count` at that width.
        budget: the requested budget.
        relative_error: ``(param_count - budget) / budget``, signed (negative: under budget).
        exact_root: the positive real :math:`d^*` with :math:`a d^{*2} + b d^* + c = \text{budget}`.
        num_layers, input_size, mode, output_size, extra_params: the configuration matched
            (``mode`` in canonical spelling).
    """

    hidden_size: int
    param_count: int
    budget: int
    relative_error: float
    exact_root: float
    num_layers: int
    input_size: int
    mode: str
    output_size: int
    extra_params: int


def min_budget(
    input_size: int,
    num_layers: int,
    *,
    mode: str = "LSTM",
    bias: bool = True,
    output_size: int = 0,
    extra_params: int = 0,
) -> int:
    """The smallest budget :func:`matched_width` accepts: the total count at hidden size 1."""
    return total_param_count(
        1,
        input_size,
        num_layers,
        mode=mode,
        bias=bias,
        output_size=output_size,
        extra_params=extra_params,
    )


def matched_width(
    budget: int,
    input_size: int,
    num_layers: int,
    *,
    mode: str = "LSTM",
    bias: bool = True,
    output_size: int = 0,
    extra_params: int = 0,
) -> WidthMatch:
    r"""The integer hidden size whose :func:`total_param_count` is nearest ``budget``.

    The count is :math:`P(d) = a d^2 + b d + c` (:func:`quadratic_coefficients`). Its positive
    root of :math:`P(d) = B` is

    .. math::

        d^* = \frac{-b + \sqrt{b^2 + 4a(B - c)}}{2a} = \frac{2(B - c)}{b + \sqrt{b^2 + 4a(B-c)}}.

    The floor :math:`\lfloor d^* \rfloor` is found in exact integer arithmetic
    (:func:`math.isqrt`, then corrected so that :math:`P(\lfloor d^*\rfloor) \le B <
    P(\lfloor d^*\rfloor + 1)`). Since :math:`P` is strictly increasing for :math:`d \ge 1`, the
    nearest count is at :math:`\lfloor d^*\rfloor` or :math:`\lfloor d^*\rfloor + 1`; the two exact
    counts are compared and a tie goes to the smaller width. Hence the result is optimal over all
    integers and non-decreasing in ``budget``.

    Raises:
        ValueError: a bad argument, or ``budget`` below :func:`min_budget` (the count at width 1).
    """
    key = normalize_mode(mode)
    target = _check_int("budget", budget, 1)
    a, b, c = quadratic_coefficients(
        input_size,
        num_layers,
        mode=key,
        bias=bias,
        output_size=output_size,
        extra_params=extra_params,
    )
    lowest = a + b + c
    if target < lowest:
        raise ValueError(
            f"budget must be an integer >= {lowest} (the count at hidden_size 1 for this "
            f"configuration), got {target}"
        )

    def count(d: int) -> int:
        return (a * d + b) * d + c

    disc = b * b + 4 * a * (target - c)
    lo = max(1, (math.isqrt(disc) - b) // (2 * a))
    while count(lo) > target:
        lo -= 1
    while count(lo + 1) <= target:
        lo += 1
    # now count(lo) <= target < count(lo + 1), lo >= 1
    below, above = count(lo), count(lo + 1)
    width, total = (lo, below) if target - below <= above - target else (lo + 1, above)
    root = 2 * (target - c) / (b + math.sqrt(disc))
    return WidthMatch(
        hidden_size=width,
        param_count=total,
        budget=target,
        relative_error=(total - target) / target,
        exact_root=root,
        num_layers=int(num_layers),
        input_size=int(input_size),
        mode=key,
        output_size=int(output_size),
        extra_params=int(extra_params),
    )


def halving_ratio(input_size: int, hidden_size: int, num_layers: int = 2, biases: int = 2) -> float:
    r"""How much of a one-layer budget an :math:`L`-layer stack at *half* the width uses.

    .. math::

        \rho = \frac{P_L(d/2)}{P_1(d)}
             = \frac{\tfrac{d}{2} m + (2L-1)\tfrac{d^2}{4} + \beta L \tfrac{d}{2}}
                    {d m + d^2 + \beta d}
        \;\xrightarrow{\,d \gg m\,}\; \frac{2L - 1}{4},

    with :math:`\beta` = ``biases`` bias vectors per gate; the gate count cancels, and :math:`d/2`
    is taken as a real number. The seed text says halving keeps the budget "similar"; for
    :math:`L = 2` and :math:`d \gg m` it keeps only about :math:`3/4` of it (and for
    :math:`d \ll m` about :math:`1/2`).
    """
    m = _check_int("input_size", input_size, 1)
    d = _check_int("hidden_size", hidden_size, 1)
    layers = _check_int("num_layers", num_layers, 1)
    beta = _check_int("biases", biases, 0)
    half = Fraction(d, 2)
    stacked = half * m + (2 * layers - 1) * half * half + beta * layers * half
    single = d * m + d * d + beta * d
    return float(stacked / single)


def asymptotic_matched_width(hidden_size: int, num_layers: int) -> float:
    r"""The limit of the matched width of an :math:`L`-layer stack for a one-layer budget at width
    :math:`d \gg m`:

    .. math::

        (2L - 1)\,d'^2 \approx d^2 \quad\Longrightarrow\quad d' \approx \frac{d}{\sqrt{2L - 1}},

    e.g. :math:`d/\sqrt 3 \approx 0.577\,d` for two layers, not the seed's :math:`d/2`.
    """
    d = _check_int("hidden_size", hidden_size, 1)
    layers = _check_int("num_layers", num_layers, 1)
    return d / math.sqrt(2 * layers - 1)


# --------------------------------------------------------------------------------------------
# Symbolic forms (sympy)
# --------------------------------------------------------------------------------------------


def symbols() -> tuple[sympy.Symbol, sympy.Symbol, sympy.Symbol]:
    """The sympy symbols ``(d, m, L)``: hidden size, input size, number of layers.

    All three are positive integers, so sympy may simplify with that knowledge. Calling this twice
    gives equal symbols.
    """
    import sympy

    return sympy.symbols("d m L", positive=True, integer=True)


def symbolic_layer_count(
    *, biases: int = 2, gates: int = 4, first_layer: bool = True
) -> sympy.Expr:
    r"""One recurrent layer's count in the symbols ``d`` (hidden) and ``m`` (input):

    .. math::

        \text{first layer: } G(dm + d^2 + \beta d), \qquad
        \text{layer above: } G(d \cdot d + d^2 + \beta d),

    with :math:`G` = ``gates`` and :math:`\beta` = ``biases`` (2 for PyTorch, 1 for textbooks).
    """
    beta = _check_int("biases", biases, 0)
    g = _check_int("gates", gates, 1)
    first = _check_bool("first_layer", first_layer)
    d, m, _ = symbols()
    layer_input = m if first else d
    return g * (d * layer_input + d * d + beta * d)


def symbolic_stack_count(
    num_layers: int | sympy.Symbol, *, biases: int = 2, gates: int = 4
) -> sympy.Expr:
    r"""Closed form of an :math:`L`-layer one-directional stack, in ``d``, ``m`` (and ``L``):

    .. math::

        \sum_{k=1}^{L} P_k = G\bigl(dm + d^2 + \beta d\bigr) + (L-1)\,G\bigl(2d^2 + \beta d\bigr)
                          = G\bigl(dm + (2L-1)d^2 + \beta L d\bigr).

    ``num_layers`` is an integer :math:`\ge 1` or a sympy symbol (e.g. ``symbols()[2]``).
    """
    import sympy

    if isinstance(num_layers, sympy.Symbol):
        layers: sympy.Expr | int = num_layers
    else:
        layers = _check_int("num_layers", num_layers, 1)
    beta = _check_int("biases", biases, 0)
    g = _check_int("gates", gates, 1)
    d, m, _ = symbols()
    return g * (d * m + (2 * layers - 1) * d**2 + beta * layers * d)
