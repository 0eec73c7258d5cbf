"""Budget matching: the hidden size at which a stack (plus embedding and head) holds a budget,
exactly (:func:`matched_width`), and the quantities around it."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    pass

from rnnlab.core.params.counts import (
    check_bool,
    check_int,
    gate_count,
    normalize_mode,
    total_param_count,
)

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
