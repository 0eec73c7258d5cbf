"""What the parameter explorer shows for one setting of its controls (:class:`ExplorerValues`,
:func:`explorer_values`) and its HTML table (:func:`explorer_html`); pure functions."""

from __future__ import annotations

import html
from dataclasses import dataclass

from rnnlab.core import params
from rnnlab.core.text import fmt_signed


@dataclass(frozen=True)
class ExplorerValues:
    r"""Everything the explorer shows for one setting of its controls.

    Attributes:
        input_size, hidden_size, num_layers: :math:`m`, :math:`d`, :math:`L`.
        budget: :math:`B`, the budget the widths are matched to.
        budget_is_single_layer: True when :math:`B` is the PyTorch count of one layer at width
            :math:`d` (then :math:`d/\sqrt{2L-1}` is the large-:math:`d` prediction).
        textbook_count: :func:`rnnlab.core.params.textbook_lstm_param_count` ``(m, d, L)``.
        torch_count: :func:`rnnlab.core.params.lstm_param_count` ``(m, d, L)``.
        matches: :func:`rnnlab.core.params.matched_width` ``(B, m, L')`` for ``L' = 1..max_layers``;
            ``None`` where :math:`B` is below :func:`rnnlab.core.params.min_budget`.
    """

    input_size: int
    hidden_size: int
    num_layers: int
    budget: int
    budget_is_single_layer: bool
    textbook_count: int
    torch_count: int
    matches: tuple[params.WidthMatch | None, ...]

    @property
    def bias_difference(self) -> int:
        """PyTorch minus textbook: the second bias vector, :math:`4dL`."""
        return self.torch_count - self.textbook_count

    @property
    def matched_widths(self) -> tuple[int | None, ...]:
        """The matched hidden size for ``L' = 1..max_layers`` (``None`` if unreachable)."""
        return tuple(None if mt is None else mt.hidden_size for mt in self.matches)


def explorer_values(
    input_size: int,
    hidden_size: int,
    num_layers: int,
    budget: int | None = None,
    *,
    max_layers: int = 4,
) -> ExplorerValues:
    """Compute what the explorer shows. ``budget=None`` means one PyTorch layer at width ``d``.

    Raises ValueError (from :mod:`rnnlab.core.params`) for sizes below 1.
    """
    if isinstance(max_layers, bool) or not isinstance(max_layers, int) or max_layers < 1:
        raise ValueError(f"max_layers must be an integer >= 1, got {max_layers!r}")
    tied = budget is None
    target = params.lstm_param_count(input_size, hidden_size, 1) if budget is None else budget
    matches: list[params.WidthMatch | None] = []
    for n in range(1, max_layers + 1):
        if target < params.min_budget(input_size, n):
            matches.append(None)
        else:
            matches.append(params.matched_width(target, input_size, n))
    return ExplorerValues(
        input_size=int(input_size),
        hidden_size=int(hidden_size),
        num_layers=int(num_layers),
        budget=int(target),
        budget_is_single_layer=tied,
        textbook_count=params.textbook_lstm_param_count(input_size, hidden_size, num_layers),
        torch_count=params.lstm_param_count(input_size, hidden_size, num_layers),
        matches=tuple(matches),
    )


def explorer_html(values: ExplorerValues) -> str:
    """The explorer's two tables as an HTML fragment (counts at ``(m, d, L)``; matched widths)."""
    v = values
    m, d, n = v.input_size, v.hidden_size, v.num_layers
    rows = [
        (
            "textbook, one bias per gate",
            "4(dm + (2L&minus;1)d&sup2; + Ld)",
            v.textbook_count,
        ),
        (
            "PyTorch <code>nn.LSTM</code>, two biases",
            "4(dm + (2L&minus;1)d&sup2; + 2Ld)",
            v.torch_count,
        ),
        ("difference (second bias)", "4Ld", v.bias_difference),
    ]
    parts = [
        "<div class='rnnlab-explorer'>",
        f"<p><b>LSTM with m = {m} inputs, L = {n} layer{'s' if n > 1 else ''} of width "
        f"d = {d}</b></p>",
        "<table><thead><tr><th>count</th><th>formula</th><th>parameters</th></tr></thead><tbody>",
    ]
    for label, formula, count in rows:
        parts.append(
            f"<tr><td>{label}</td><td>{formula}</td>"
            f"<td style='text-align:right'>{count:,}</td></tr>"
        )
    parts.append("</tbody></table>")
    source = f"one PyTorch layer of width d = {d}" if v.budget_is_single_layer else "chosen budget"
    parts.append(
        f"<p><b>Widths matched to the budget B = {v.budget:,}</b> ({html.escape(source)})</p>"
    )
    head = "<th>layers L</th><th>matched width</th><th>parameters</th><th>relative error</th>"
    if v.budget_is_single_layer:
        head += "<th>d/&radic;(2L&minus;1)</th>"
    parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>")
    for layers, match in enumerate(v.matches, start=1):
        if match is None:
            floor = params.min_budget(m, layers)
            cells = f"<td colspan='3'>budget below the minimum {floor:,} (width 1)</td>"
        else:
            cells = (
                f"<td style='text-align:right'>{match.hidden_size}</td>"
                f"<td style='text-align:right'>{match.param_count:,}</td>"
                "<td style='text-align:right'>"
                f"{fmt_signed(match.relative_error, 3, percent=True)}</td>"
            )
        if v.budget_is_single_layer:
            cells += (
                f"<td style='text-align:right'>"
                f"{params.asymptotic_matched_width(d, layers):.1f}</td>"
            )
        parts.append(f"<tr><td>{layers}</td>{cells}</tr>")
    parts.append("</tbody></table></div>")
    return "\n".join(parts)
