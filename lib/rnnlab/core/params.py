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

**Design options for deep stacks** (the design chapter):

- *projections* (LSTMP, ``proj_size`` :math:`p`, :math:`1 \le p \le h-1`): each layer adds
  ``weight_hr_l[k]`` ``(p, h)``, its recurrent and output width becomes :math:`p`, so the
  :math:`(2L-1)d^2` term becomes :math:`(9L-4)\,hp` for an LSTM (:func:`symbolic_stack_count`);
- *residual connections* between layers 2..L add the layer input to its output: equal widths,
  no parameters (:func:`residual_param_count`);
- *LayerNorm* on each layer's output: :math:`2r` per layer (:func:`layer_norm_param_count`).

:func:`stack_param_count` and :func:`total_param_count` count them; :func:`matched_width` matches
a budget with them (``proj_size`` fixed, or a ``proj_ratio`` :math:`p/h`).
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
    "layer_norm_param_count",
    "linear_param_count",
    "lstm_param_count",
    "matched_width",
    "min_budget",
    "normalize_mode",
    "proj_size_for_ratio",
    "proj_symbol",
    "quadratic_coefficients",
    "recurrent_param_count",
    "residual_param_count",
    "rnn_param_count",
    "stack_output_size",
    "stack_param_count",
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


def check_int(name: str, value: object, minimum: int, maximum: int | None = None) -> int:
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


def check_bool(name: str, value: object) -> bool:
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
    m = check_int("input_size", input_size, 1)
    h = check_int("hidden_size", hidden_size, 1)
    layers = check_int("num_layers", num_layers, 1)
    has_bias = check_bool("bias", bias)
    bidi = check_bool("bidirectional", bidirectional)
    p = check_int("proj_size", proj_size, 0, h - 1)
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
    m = check_int("input_size", input_size, 1)
    d = check_int("hidden_size", hidden_size, 1)
    layers = check_int("num_layers", num_layers, 1)
    return 4 * (d * m + (2 * layers - 1) * d * d + layers * d)


def embedding_param_count(num_embeddings: int, embedding_dim: int) -> int:
    r"""Parameters of ``torch.nn.Embedding(num_embeddings, embedding_dim)``: ``weight`` of shape
    ``(num_embeddings, embedding_dim)``, i.e. :math:`V e`."""
    v = check_int("num_embeddings", num_embeddings, 1)
    e = check_int("embedding_dim", embedding_dim, 1)
    return v * e


def linear_param_count(in_features: int, out_features: int, *, bias: bool = True) -> int:
    r"""Parameters of ``torch.nn.Linear(in_features, out_features, bias)``: ``weight``
    ``(out_features, in_features)`` and ``bias`` ``(out_features,)``, i.e. :math:`n_\text{out}
    (n_\text{in} + 1)` (or :math:`n_\text{out} n_\text{in}` without bias)."""
    n_in = check_int("in_features", in_features, 1)
    n_out = check_int("out_features", out_features, 1)
    return n_out * (n_in + (1 if check_bool("bias", bias) else 0))


def layer_norm_param_count(
    normalized_size: int, *, elementwise_affine: bool = True, bias: bool = True
) -> int:
    r"""Parameters of ``torch.nn.LayerNorm(normalized_size)``: a gain and a shift per feature.

    LayerNorm normalises each time step's vector :math:`y \in \mathbb{R}^n` over its features,

    .. math:: \operatorname{LN}(y) = \gamma \odot \frac{y - \mu(y)}{\sqrt{\sigma^2(y) + \epsilon}}
              + \beta,

    with ``weight`` :math:`\gamma` and ``bias`` :math:`\beta`, each of shape ``(n,)``: :math:`2n`
    parameters (``elementwise_affine=True``, torch's default), :math:`n` with ``bias=False`` and
    none with ``elementwise_affine=False``. The statistics :math:`\mu, \sigma^2` are computed,
    not learnt, so they are not parameters.
    """
    n = check_int("normalized_size", normalized_size, 1)
    if not check_bool("elementwise_affine", elementwise_affine):
        return 0
    return n * (2 if check_bool("bias", bias) else 1)


def residual_param_count(input_width: int, output_width: int, *, projection: bool = False) -> int:
    r"""Parameters of a residual (shortcut) connection :math:`y = f(x) + S x` around one layer.

    When the widths match, :math:`S = I` (the identity shortcut of He et al. 2016, used between
    recurrent layers by Wu et al. 2016, GNMT): the connection is a plain addition and holds
    **no parameters**, so adding residual connections between equally wide layers leaves a budget
    unchanged. When they differ, a shortcut needs a projection :math:`S` of shape
    ``(output_width, input_width)`` without bias (``projection=True``), i.e.
    :math:`n_\text{out} n_\text{in}` parameters; without ``projection`` unequal widths are an
    error. In :class:`rnnlab.core.models.StackedLSTM` residual connections join layers 2..L only,
    whose input and output widths are equal, so they always count 0.
    """
    n_in = check_int("input_width", input_width, 1)
    n_out = check_int("output_width", output_width, 1)
    if n_in == n_out:
        return 0
    if check_bool("projection", projection):
        return n_in * n_out
    raise ValueError(
        f"output_width must equal input_width={n_in} for an identity (parameter-free) "
        f"residual connection, got {n_out}; pass projection=True to count a projection shortcut"
    )


def stack_output_size(hidden_size: int, *, proj_size: int = 0, bidirectional: bool = False) -> int:
    r"""Width of what each layer of a stack emits: :math:`D r`, with :math:`r = p` (``proj_size``)
    when projecting, else :math:`r = h`, and :math:`D = 2` when bidirectional. This is the input
    width of every layer above the first and of the head."""
    h = check_int("hidden_size", hidden_size, 1)
    p = check_int("proj_size", proj_size, 0, h - 1)
    return (2 if check_bool("bidirectional", bidirectional) else 1) * (p if p > 0 else h)


def stack_param_count(
    input_size: int,
    hidden_size: int,
    num_layers: int = 1,
    *,
    mode: str = "LSTM",
    bias: bool = True,
    bidirectional: bool = False,
    proj_size: int = 0,
    residual: bool = False,
    layer_norm: bool = False,
) -> int:
    r"""A recurrent stack as the design chapter builds it: recurrent layers, optional residual
    connections between layers 2..L and an optional LayerNorm on every layer's output.

    .. math::

        P_\text{stack} = P_\text{rec}(m, h, L, p) \;+\; 0 \cdot [\text{residual}]
                         \;+\; [\text{layer\_norm}]\, L \cdot 2 D r,

    where :math:`P_\text{rec}` is :func:`recurrent_param_count` (the same whether the layers are
    one ``nn.LSTM(num_layers=L)`` or ``L`` one-layer modules), :math:`r` the recurrent width
    (:func:`stack_output_size`). A residual connection adds a layer's input (width :math:`Dr`
    for layers 2..L) to its output (width :math:`Dr`): equal widths, so it is parameter-free
    (:func:`residual_param_count`). Each ``nn.LayerNorm(D*r)`` holds a gain and a shift,
    :math:`2Dr` (:func:`layer_norm_param_count`).

    For a one-directional LSTM with projections the closed form is
    :math:`4hm + (9L - 4)\,hp + 8Lh\ [+\,2Lp]` (:func:`symbolic_stack_count` with
    ``proj=True``).
    """
    rec = recurrent_param_count(
        mode,
        input_size,
        hidden_size,
        num_layers,
        bias=bias,
        bidirectional=bidirectional,
        proj_size=proj_size,
    )
    check_bool("residual", residual)
    width = stack_output_size(hidden_size, proj_size=proj_size, bidirectional=bidirectional)
    norms = (
        int(num_layers) * layer_norm_param_count(width)
        if check_bool("layer_norm", layer_norm)
        else 0
    )
    return rec + norms


def total_param_count(
    hidden_size: int,
    input_size: int,
    num_layers: int,
    *,
    mode: str = "LSTM",
    bias: bool = True,
    output_size: int = 0,
    extra_params: int = 0,
    proj_size: int = 0,
    residual: bool = False,
    layer_norm: bool = False,
) -> int:
    r"""A whole model: recurrent stack + linear head + anything else.

    .. math::

        P(h) = P_\text{stack}(h) + [o > 0]\,(r\,o + o) + E,

    where :math:`P_\text{stack}` is :func:`stack_param_count` (one-directional; with
    ``proj_size``, ``residual`` and ``layer_norm`` as there), the head is
    ``nn.Linear(r, output_size)`` with bias on the stack's output width :math:`r` (``proj_size``
    when projecting, else ``hidden_size``; omitted when ``output_size == 0``) and :math:`E` =
    ``extra_params`` counts parts that do not depend on the width, e.g. an embedding table
    (:func:`embedding_param_count`).
    """
    h = check_int("hidden_size", hidden_size, 1)
    o = check_int("output_size", output_size, 0)
    extra = check_int("extra_params", extra_params, 0)
    stack = stack_param_count(
        input_size,
        h,
        num_layers,
        mode=mode,
        bias=bias,
        proj_size=proj_size,
        residual=residual,
        layer_norm=layer_norm,
    )
    head = o * (stack_output_size(h, proj_size=proj_size) + 1)
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
    residual: bool = False,
    layer_norm: bool = False,
) -> tuple[int, int, int]:
    r"""Integer coefficients :math:`(a, b, c)` of the count as a quadratic in the hidden size:
    :func:`total_param_count` :math:`= a d^2 + b d + c` (no projection).

    .. math::

        a = G(2L - 1), \qquad b = G(m + \beta L) + 2L\,[\text{layer\_norm}] + o,
        \qquad c = o + E,

    with :math:`G` gates, :math:`\beta \in \{0, 2\}` bias vectors, head width :math:`o` and
    extra parameters :math:`E`; residual connections add nothing. Because :math:`a, b > 0` the
    count is strictly increasing in :math:`d \ge 1`.
    """
    gates = gate_count(mode)
    m = check_int("input_size", input_size, 1)
    layers = check_int("num_layers", num_layers, 1)
    beta = 2 if check_bool("bias", bias) else 0
    o = check_int("output_size", output_size, 0)
    extra = check_int("extra_params", extra_params, 0)
    check_bool("residual", residual)
    norms = 2 * layers if check_bool("layer_norm", layer_norm) else 0
    return gates * (2 * layers - 1), gates * (m + beta * layers) + norms + o, o + extra


@dataclass(frozen=True)
class WidthMatch:
    r"""The result of :func:`matched_width`.

    Attributes:
        hidden_size: the integer width whose total count is nearest the budget.
        param_count: :func:`total_param_count` at that width.
        budget: the requested budget.
        relative_error: ``(param_count - budget) / budget``, signed (negative: under budget).
        exact_root: the positive real :math:`d^*` with :math:`P(d^*) = \text{budget}` (for a
            ``proj_ratio``, of the relaxation :math:`p = \rho d` without rounding).
        num_layers, input_size, mode, output_size, extra_params: the configuration matched
            (``mode`` in canonical spelling).
        proj_size: the projection size at ``hidden_size`` (0: none).
        residual, layer_norm: the stack options matched.
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
    proj_size: int = 0
    residual: bool = False
    layer_norm: bool = False


def proj_size_for_ratio(hidden_size: int, proj_ratio: float) -> int:
    r"""The projection size used for a projection ratio :math:`\rho`:
    :math:`p = \min(h - 1, \max(1, \lfloor \rho h + \tfrac12 \rfloor))`, so that torch's rule
    :math:`1 \le p \le h - 1` holds. ``hidden_size`` must be at least 2 (a width-1 LSTM cannot
    project) and ``proj_ratio`` in the open interval (0, 1)."""
    h = check_int("hidden_size", hidden_size, 2)
    rho = _check_ratio(proj_ratio)
    return min(h - 1, max(1, math.floor(rho * h + 0.5)))


def _check_ratio(proj_ratio: object) -> float:
    if (
        isinstance(proj_ratio, bool)
        or not isinstance(proj_ratio, numbers.Real)
        or not 0.0 < float(proj_ratio) < 1.0
    ):
        raise ValueError(f"proj_ratio must be a number in (0, 1), got {proj_ratio!r}")
    return float(proj_ratio)


def min_budget(
    input_size: int,
    num_layers: int,
    *,
    mode: str = "LSTM",
    bias: bool = True,
    output_size: int = 0,
    extra_params: int = 0,
    proj_size: int = 0,
    proj_ratio: float | None = None,
    residual: bool = False,
    layer_norm: bool = False,
) -> int:
    """The smallest budget :func:`matched_width` accepts: the total count at the smallest
    width allowed (1; ``proj_size + 1`` with a fixed projection; 2 with a ``proj_ratio``)."""
    spec = _MatchSpec.make(
        input_size,
        num_layers,
        mode=mode,
        bias=bias,
        output_size=output_size,
        extra_params=extra_params,
        proj_size=proj_size,
        proj_ratio=proj_ratio,
        residual=residual,
        layer_norm=layer_norm,
    )
    return spec.count(spec.min_width)


@dataclass(frozen=True)
class _MatchSpec:
    """One configuration to match: its count as a function of the width, and where it starts."""

    input_size: int
    num_layers: int
    mode: str
    bias: bool
    output_size: int
    extra_params: int
    proj_size: int
    proj_ratio: float | None
    residual: bool
    layer_norm: bool

    @classmethod
    def make(cls, input_size, num_layers, *, mode, bias, output_size, extra_params, proj_size,
             proj_ratio, residual, layer_norm) -> _MatchSpec:  # fmt: skip
        key = normalize_mode(mode)
        p = check_int("proj_size", proj_size, 0)
        if proj_ratio is not None:
            _check_ratio(proj_ratio)
            if p:
                raise ValueError(
                    f"proj_size must be 0 when proj_ratio is given (one or the other), got {p}"
                )
        if (p or proj_ratio is not None) and key != "LSTM":
            raise ValueError(f"proj_size must be 0 for mode {key} (only LSTM supports it)")
        quadratic_coefficients(  # validates the remaining arguments
            input_size,
            num_layers,
            mode=key,
            bias=bias,
            output_size=output_size,
            extra_params=extra_params,
            residual=residual,
            layer_norm=layer_norm,
        )
        return cls(
            int(input_size), int(num_layers), key, bias, int(output_size), int(extra_params), p,
            None if proj_ratio is None else float(proj_ratio), residual, layer_norm,
        )  # fmt: skip

    @property
    def min_width(self) -> int:
        if self.proj_ratio is not None:
            return 2
        return self.proj_size + 1

    def proj_at(self, width: int) -> int:
        if self.proj_ratio is not None:
            return proj_size_for_ratio(width, self.proj_ratio)
        return self.proj_size

    def count(self, width: int) -> int:
        return total_param_count(
            width,
            self.input_size,
            self.num_layers,
            mode=self.mode,
            bias=self.bias,
            output_size=self.output_size,
            extra_params=self.extra_params,
            proj_size=self.proj_at(width),
            residual=self.residual,
            layer_norm=self.layer_norm,
        )

    def relaxed_coefficients(self) -> tuple[float, float, float]:
        r"""Real :math:`(a, b, c)` of the count as a polynomial in the width :math:`h`.

        Exact for no projection and for a fixed ``proj_size`` (then :math:`a = 0`: the count is
        linear in :math:`h`); for a ratio, exact for the relaxation :math:`p = \rho h`.
        """
        if self.proj_size == 0 and self.proj_ratio is None:
            return tuple(  # type: ignore[return-value]
                float(v)
                for v in quadratic_coefficients(
                    self.input_size,
                    self.num_layers,
                    mode=self.mode,
                    bias=self.bias,
                    output_size=self.output_size,
                    extra_params=self.extra_params,
                    layer_norm=self.layer_norm,
                )  # fmt: skip
            )
        g, m, layers, o = 4, self.input_size, self.num_layers, self.output_size
        beta = 2 if self.bias else 0
        # count = G h m + (G(2L-1) + L) h p + beta G L h + [LN] 2 L p + o p + o + E
        k = g * (2 * layers - 1) + layers
        p_lin = (2 * layers if self.layer_norm else 0) + o  # terms linear in p alone
        base_b = g * m + beta * g * layers
        c = o + self.extra_params
        if self.proj_ratio is None:
            p = self.proj_size
            return 0.0, float(base_b + k * p), float(c + p_lin * p)
        rho = self.proj_ratio
        return k * rho, base_b + p_lin * rho, float(c)


def matched_width(
    budget: int,
    input_size: int,
    num_layers: int,
    *,
    mode: str = "LSTM",
    bias: bool = True,
    output_size: int = 0,
    extra_params: int = 0,
    proj_size: int = 0,
    proj_ratio: float | None = None,
    residual: bool = False,
    layer_norm: bool = False,
) -> WidthMatch:
    r"""The integer hidden size whose :func:`total_param_count` is nearest ``budget``.

    Without projection the count is :math:`P(d) = a d^2 + b d + c`
    (:func:`quadratic_coefficients`; LayerNorm adds :math:`2L` to :math:`b`, residual connections
    nothing). Its positive root of :math:`P(d) = B` is

    .. math::

        d^* = \frac{-b + \sqrt{b^2 + 4a(B - c)}}{2a} = \frac{2(B - c)}{b + \sqrt{b^2 + 4a(B-c)}}.

    The floor :math:`\lfloor d^* \rfloor` is found in exact integer arithmetic
    (:func:`math.isqrt`, then corrected so that :math:`P(\lfloor d^*\rfloor) \le B <
    P(\lfloor d^*\rfloor + 1)`). Since :math:`P` is strictly increasing for :math:`d \ge 1`, the
    nearest count is at :math:`\lfloor d^* \rfloor` or :math:`\lfloor d^*\rfloor + 1`; the two exact
    counts are compared and a tie goes to the smaller width. Hence the result is optimal over all
    integers and non-decreasing in ``budget``.

    **With projections** (LSTM only) there are two ways to hold the projection while the width
    moves:

    - ``proj_size=p`` fixed: the count is *linear* in :math:`h`,
      :math:`P(h) = h\,(4m + (9L-4)p + 8L) + [\text{LN}]\,2Lp + o(p + 1) + E`, for :math:`h > p`;
    - ``proj_ratio=``:math:`\rho`: :math:`p = ` :func:`proj_size_for_ratio` :math:`(h, \rho)`,
      so :math:`P` is (up to rounding of :math:`p`) quadratic with
      :math:`a = \rho(9L - 4)`.

    In both cases :math:`P` is strictly increasing in :math:`h`, and the nearest width is found by
    an exact integer bisection on the true count (a tie again goes to the smaller width).

    Raises:
        ValueError: a bad argument, or ``budget`` below :func:`min_budget` (the count at the
            smallest width).
    """
    target = check_int("budget", budget, 1)
    spec = _MatchSpec.make(
        input_size,
        num_layers,
        mode=mode,
        bias=bias,
        output_size=output_size,
        extra_params=extra_params,
        proj_size=proj_size,
        proj_ratio=proj_ratio,
        residual=residual,
        layer_norm=layer_norm,
    )
    lowest_width = spec.min_width
    lowest = spec.count(lowest_width)
    if target < lowest:
        raise ValueError(
            f"budget must be an integer >= {lowest} (the count at hidden_size {lowest_width} "
            f"for this configuration), got {target}"
        )
    a, b, c = spec.relaxed_coefficients()
    if spec.proj_size == 0 and spec.proj_ratio is None:
        ia, ib, ic = int(a), int(b), int(c)
        disc = ib * ib + 4 * ia * (target - ic)
        lo = max(1, (math.isqrt(disc) - ib) // (2 * ia))
        while spec.count(lo) > target:
            lo -= 1
        while spec.count(lo + 1) <= target:
            lo += 1
        root = 2 * (target - ic) / (ib + math.sqrt(disc))
    else:
        lo = _last_width_within(spec.count, target, lowest_width)
        root = (
            (target - c) / b
            if a == 0
            else 2 * (target - c) / (b + math.sqrt(b * b + 4 * a * (target - c)))
        )
    # now count(lo) <= target < count(lo + 1)
    below, above = spec.count(lo), spec.count(lo + 1)
    width, total = (lo, below) if target - below <= above - target else (lo + 1, above)
    return WidthMatch(
        hidden_size=width,
        param_count=total,
        budget=target,
        relative_error=(total - target) / target,
        exact_root=root,
        num_layers=spec.num_layers,
        input_size=spec.input_size,
        mode=spec.mode,
        output_size=spec.output_size,
        extra_params=spec.extra_params,
        proj_size=spec.proj_at(width),
        residual=residual,
        layer_norm=layer_norm,
    )


def _last_width_within(count, target: int, lowest: int) -> int:
    """The largest width ``w >= lowest`` with ``count(w) <= target``, for a strictly increasing
    ``count`` with ``count(lowest) <= target``: doubling, then bisection (exact integers)."""
    lo, hi = lowest, lowest + 1
    while count(hi) <= target:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # invariant: count(lo) <= target < count(hi)
        mid = (lo + hi) // 2
        if count(mid) <= target:
            lo = mid
        else:
            hi = mid
    return lo


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
    m = check_int("input_size", input_size, 1)
    d = check_int("hidden_size", hidden_size, 1)
    layers = check_int("num_layers", num_layers, 1)
    beta = check_int("biases", biases, 0)
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
    d = check_int("hidden_size", hidden_size, 1)
    layers = check_int("num_layers", num_layers, 1)
    return d / math.sqrt(2 * layers - 1)


# --------------------------------------------------------------------------------------------
# Symbolic forms (sympy)
# --------------------------------------------------------------------------------------------


def symbols() -> tuple[sympy.Symbol, sympy.Symbol, sympy.Symbol]:
    """The sympy symbols ``(d, m, L)``: hidden size, input size, number of layers.

    All three are positive integers, so sympy may simplify with that knowledge. Calling this twice
    gives equal symbols. :func:`proj_symbol` gives the projection size ``p``.
    """
    import sympy

    return sympy.symbols("d m L", positive=True, integer=True)


def proj_symbol() -> sympy.Symbol:
    """The sympy symbol ``p`` (a positive integer): the LSTMP projection size ``proj_size``."""
    import sympy

    return sympy.Symbol("p", positive=True, integer=True)


def symbolic_layer_count(
    *,
    biases: int = 2,
    gates: int = 4,
    first_layer: bool = True,
    proj: bool = False,
    layer_norm: bool = False,
) -> sympy.Expr:
    r"""One recurrent layer's count in the symbols ``d`` (hidden), ``m`` (input), ``p`` (proj):

    .. math::

        \text{first layer: } G(dm + d r + \beta d) + [\text{proj}]\,pd + [\text{LN}]\,2r, \qquad
        \text{layer above: } G(r d + d r + \beta d) + [\text{proj}]\,pd + [\text{LN}]\,2r,

    with :math:`G` = ``gates``, :math:`\beta` = ``biases`` (2 for PyTorch, 1 for textbooks) and
    the recurrent width :math:`r = p` with ``proj=True`` (``weight_hh`` is then ``(G*d, p)`` and
    ``weight_hr`` ``(p, d)`` maps the cell output down to :math:`p`), else :math:`r = d`.
    """
    beta = check_int("biases", biases, 0)
    g = check_int("gates", gates, 1)
    first = check_bool("first_layer", first_layer)
    use_proj = check_bool("proj", proj)
    norm = check_bool("layer_norm", layer_norm)
    d, m, _ = symbols()
    r = proj_symbol() if use_proj else d
    layer_input = m if first else r
    count = g * (d * layer_input + d * r + beta * d)
    if use_proj:
        count += r * d
    if norm:
        count += 2 * r
    return count


def symbolic_stack_count(
    num_layers: int | sympy.Symbol,
    *,
    biases: int = 2,
    gates: int = 4,
    proj: bool = False,
    layer_norm: bool = False,
    residual: bool = False,
) -> sympy.Expr:
    r"""Closed form of an :math:`L`-layer one-directional stack, in ``d``, ``m`` (``p``, ``L``):

    .. math::

        \sum_{k=1}^{L} P_k = G\bigl(dm + d^2 + \beta d\bigr) + (L-1)\,G\bigl(2d^2 + \beta d\bigr)
                          = G\bigl(dm + (2L-1)d^2 + \beta L d\bigr).

    With projections (``proj=True``, LSTMP; the recurrent width is :math:`p`):

    .. math::

        G\bigl(dm + dp + \beta d\bigr) + (L-1)\,G\bigl(2dp + \beta d\bigr) + L\,pd
        = G dm + \bigl(G(2L-1) + L\bigr)\,dp + \beta G L d,

    i.e. :math:`4dm + (9L-4)\,dp + 8Ld` for the PyTorch LSTM. ``layer_norm=True`` adds
    :math:`2Lr` (a gain and a shift per output feature per layer, :math:`r = p` or :math:`d`);
    ``residual=True`` adds nothing (identity shortcuts between equal widths,
    :func:`residual_param_count`) and is accepted so the call reads like the model's options.

    ``num_layers`` is an integer :math:`\ge 1` or a sympy symbol (e.g. ``symbols()[2]``).
    """
    import sympy

    if isinstance(num_layers, sympy.Symbol):
        layers: sympy.Expr | int = num_layers
    else:
        layers = check_int("num_layers", num_layers, 1)
    beta = check_int("biases", biases, 0)
    g = check_int("gates", gates, 1)
    use_proj = check_bool("proj", proj)
    norm = check_bool("layer_norm", layer_norm)
    check_bool("residual", residual)
    d, m, _ = symbols()
    if use_proj:
        p = proj_symbol()
        count = g * d * m + (g * (2 * layers - 1) + layers) * d * p + beta * g * layers * d
        r = p
    else:
        count = g * (d * m + (2 * layers - 1) * d**2 + beta * layers * d)
        r = d
    if norm:
        count += 2 * layers * r
    return count
