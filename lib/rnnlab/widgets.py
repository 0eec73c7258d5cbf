r"""Interactive explorers for the notebooks, built on :mod:`ipywidgets`.

:func:`parameter_explorer` lets a reader move the input size :math:`m`, the width :math:`d`, the
depth :math:`L` and the budget :math:`B`, and shows, live,

- the parameters of an :math:`L`-layer LSTM at width :math:`d`, textbook (one bias per gate,
  :math:`4(dm + (2L-1)d^2 + Ld)`) and PyTorch (two, :math:`4(dm + (2L-1)d^2 + 2Ld)`);
- the width matched to the budget for :math:`L = 1..4` layers (:func:`rnnlab.params.matched_width`),
  next to the large-:math:`d` rule :math:`d/\sqrt{2L-1}`;
- the figure :func:`rnnlab.plots.param_count_vs_width`.

A static website has no kernel, so sliders cannot move there. The explorer therefore also displays
its initial table and figure as ordinary outputs, which the website shows; in a live notebook
(Jupyter, Colab) the sliders appear below them and update their own copy.

Everything here is import-safe without a frontend: the widgets can be built and driven in a plain
Python process (the tests do), and :func:`explorer_values` / :func:`explorer_html` are pure
functions.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass
from typing import Any

from rnnlab import params

__all__ = [
    "ExplorerValues",
    "ParameterExplorer",
    "explorer_html",
    "explorer_values",
    "parameter_explorer",
]

_WIDGET_NOTE = (
    "Parameter explorer (interactive): run this notebook in Jupyter or Colab to move the sliders. "
    "The table and figure above show its initial state."
)


@dataclass(frozen=True)
class ExplorerValues:
    r"""Everything the explorer shows for one setting of its controls.

    Attributes:
        input_size, hidden_size, num_layers: :math:`m`, :math:`d`, :math:`L`.
        budget: :math:`B`, the budget the widths are matched to.
        budget_is_single_layer: True when :math:`B` is the PyTorch count of one layer at width
            :math:`d` (then :math:`d/\sqrt{2L-1}` is the large-:math:`d` prediction).
        textbook_count: :func:`rnnlab.params.textbook_lstm_param_count` ``(m, d, L)``.
        torch_count: :func:`rnnlab.params.lstm_param_count` ``(m, d, L)``.
        matches: :func:`rnnlab.params.matched_width` ``(B, m, L')`` for ``L' = 1..max_layers``;
            ``None`` where :math:`B` is below :func:`rnnlab.params.min_budget`.
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

    Raises ValueError (from :mod:`rnnlab.params`) for sizes below 1.
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
                f"<td style='text-align:right'>{match.relative_error:+.3%}</td>"
            )
        if v.budget_is_single_layer:
            cells += (
                f"<td style='text-align:right'>"
                f"{params.asymptotic_matched_width(d, layers):.1f}</td>"
            )
        parts.append(f"<tr><td>{layers}</td>{cells}</tr>")
    parts.append("</tbody></table></div>")
    return "\n".join(parts)


def _figure_png(values: ExplorerValues, max_layers: int) -> bytes:
    from rnnlab import plots

    reachable = [mt for mt in values.matches if mt is not None]
    layers = len(reachable)
    if layers == 0:
        return b""
    fig = plots.param_count_vs_width(
        values.input_size,
        values.budget,
        max_layers=min(layers, max_layers),
        halving_from=values.hidden_size if values.budget_is_single_layer else None,
        figsize=(7.0, 4.2),
    )
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    return buffer.getvalue()


def _figure_alt(values: ExplorerValues, max_layers: int) -> str:
    widths = ", ".join(
        f"L={i + 1}: d={w}" for i, w in enumerate(values.matched_widths[:max_layers]) if w
    )
    return (
        f"Line plot of LSTM parameters (count) against hidden size d (units) for 1 to "
        f"{max_layers} layers at input size m={values.input_size}, with a horizontal line at the "
        f"budget of {values.budget:,} parameters and the budget-matched widths marked ({widths})."
    )


def _figure_img_html(values: ExplorerValues, png: bytes, max_layers: int) -> str:
    """The figure as an ``<img>`` with alt text (``ipywidgets.Image`` cannot carry alt text)."""
    import base64
    import html

    if not png:
        return "<p>No width reaches this budget.</p>"
    alt = html.escape(_figure_alt(values, max_layers), quote=True)
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{alt}" src="data:image/png;base64,{data}" style="max-width:100%">'


class ParameterExplorer:
    """Sliders for :math:`m, d, L`, a budget box, and a live table and figure.

    Attributes:
        input_size, hidden_size, num_layers: :class:`ipywidgets.IntSlider` controls.
        tie_budget: :class:`ipywidgets.Checkbox`; when ticked the budget follows one layer at ``d``.
        budget: :class:`ipywidgets.BoundedIntText`, used when ``tie_budget`` is unticked.
        table: :class:`ipywidgets.HTML` holding :func:`explorer_html`.
        image: :class:`ipywidgets.HTML` holding the figure as an ``<img>`` with alt text
            (``None`` if ``show_figure=False``).
        png: the figure's PNG bytes (``b""`` without a figure).
        widget: the :class:`ipywidgets.VBox` to display.
    """

    def __init__(
        self,
        input_size: int = 32,
        hidden_size: int = 256,
        num_layers: int = 2,
        budget: int | None = None,
        *,
        max_layers: int = 4,
        show_figure: bool = True,
    ) -> None:
        import ipywidgets as w

        initial = explorer_values(
            input_size, hidden_size, num_layers, budget, max_layers=max_layers
        )
        self.max_layers = max_layers
        style = {"description_width": "initial"}
        layout = w.Layout(width="32em")
        self.input_size = w.IntSlider(
            value=input_size,
            min=1,
            max=max(1024, input_size),
            description="input size m",
            continuous_update=False,
            style=style,
            layout=layout,
        )
        self.hidden_size = w.IntSlider(
            value=hidden_size,
            min=1,
            max=max(1024, hidden_size),
            description="width d",
            continuous_update=False,
            style=style,
            layout=layout,
        )
        self.num_layers = w.IntSlider(
            value=num_layers,
            min=1,
            max=max_layers,
            description="layers L",
            continuous_update=False,
            style=style,
            layout=layout,
        )
        self.tie_budget = w.Checkbox(
            value=budget is None, description="budget = one layer of width d"
        )
        self.budget = w.BoundedIntText(
            value=initial.budget,
            min=1,
            max=10**10,
            description="budget B",
            disabled=budget is None,
            style=style,
        )
        self.table = w.HTML(value=explorer_html(initial))
        self.png = _figure_png(initial, max_layers) if show_figure else b""
        self.image = (
            w.HTML(value=_figure_img_html(initial, self.png, max_layers)) if show_figure else None
        )
        self._values = initial
        for control in (
            self.input_size,
            self.hidden_size,
            self.num_layers,
            self.tie_budget,
            self.budget,
        ):
            control.observe(self._on_change, names="value")
        children: list[Any] = [
            self.input_size,
            self.hidden_size,
            self.num_layers,
            w.HBox([self.tie_budget, self.budget]),
            self.table,
        ]
        if self.image is not None:
            children.append(self.image)
        self.widget = w.VBox(children)

    @property
    def values(self) -> ExplorerValues:
        """What the explorer shows now."""
        return self._values

    def _on_change(self, _change: Any = None) -> None:
        self.update()

    def update(self) -> ExplorerValues:
        """Recompute from the controls and refresh the table and figure; returns the new values."""
        tied = bool(self.tie_budget.value)
        self.budget.disabled = tied
        budget = None if tied else int(self.budget.value)
        values = explorer_values(
            int(self.input_size.value),
            int(self.hidden_size.value),
            int(self.num_layers.value),
            budget,
            max_layers=self.max_layers,
        )
        if tied and self.budget.value != values.budget:
            self.budget.unobserve(self._on_change, names="value")
            self.budget.value = values.budget
            self.budget.observe(self._on_change, names="value")
        self._values = values
        self.table.value = explorer_html(values)
        if self.image is not None:
            self.png = _figure_png(values, self.max_layers)
            self.image.value = _figure_img_html(values, self.png, self.max_layers)
        return values

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if isinstance(bundle, dict):
            bundle = {**bundle, "text/plain": _WIDGET_NOTE}
        return bundle


def parameter_explorer(
    input_size: int = 32,
    hidden_size: int = 256,
    num_layers: int = 2,
    budget: int | None = None,
    *,
    max_layers: int = 4,
    static: bool = True,
    show_figure: bool = True,
) -> ParameterExplorer:
    """Build a :class:`ParameterExplorer`; with ``static=True`` first display its initial table and
    figure as plain outputs (HTML and PNG), so a page without a kernel still shows them.

    Return the explorer and make it the cell's last expression to show the sliders::

        from rnnlab.widgets import parameter_explorer
        parameter_explorer(input_size=32, hidden_size=256)
    """
    explorer = ParameterExplorer(
        input_size,
        hidden_size,
        num_layers,
        budget,
        max_layers=max_layers,
        show_figure=show_figure,
    )
    if static:
        from IPython.display import HTML, display

        display(HTML(explorer_html(explorer.values)))
        if explorer.png:
            display(HTML(_figure_img_html(explorer.values, explorer.png, explorer.max_layers)))
    return explorer
