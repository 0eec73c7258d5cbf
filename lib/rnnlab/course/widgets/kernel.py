"""The parameter explorer for a live kernel (:func:`parameter_explorer`): ipywidgets sliders over
the table and figure, with a static copy of its initial state for pages without a kernel."""

from __future__ import annotations

import html
import io
from typing import Any

from rnnlab.course.widgets.values import ExplorerValues, explorer_html, explorer_values

_WIDGET_NOTE = (
    "Parameter explorer (interactive): run this notebook in Jupyter or Colab to move the sliders. "
    "The table and figure above show its initial state."
)


def _figure_png(values: ExplorerValues, max_layers: int) -> bytes:
    from rnnlab.course import plots

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

        def slider(description: str, value: int, top: int) -> Any:
            """A slider from 1 to ``top`` that updates when released, not while dragged."""
            return w.IntSlider(
                value=value,
                min=1,
                max=top,
                description=description,
                continuous_update=False,
                style=style,
                layout=layout,
            )

        self.input_size = slider("input size m", input_size, max(1024, input_size))
        self.hidden_size = slider("width d", hidden_size, max(1024, hidden_size))
        self.num_layers = slider("layers L", num_layers, max_layers)
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

        from rnnlab.course.widgets import parameter_explorer
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
