"""Symbolic parameter counts (sympy, imported only when called)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import sympy

from rnnlab.core.params.counts import (
    check_bool,
    check_int,
)

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
