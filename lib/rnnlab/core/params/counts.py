"""Exact integer parameter counts of PyTorch recurrent stacks (each equals the matching
``torch.nn`` module's ``numel`` sum), and the argument checks every count shares."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # pragma: no cover
    pass

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
