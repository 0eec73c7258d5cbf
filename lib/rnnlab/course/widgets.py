r"""Interactive explorers for the notebooks, built on :mod:`ipywidgets`.

:func:`parameter_explorer` lets a reader move the input size :math:`m`, the width :math:`d`, the
depth :math:`L` and the budget :math:`B`, and shows, live,

- the parameters of an :math:`L`-layer LSTM at width :math:`d`, textbook (one bias per gate,
  :math:`4(dm + (2L-1)d^2 + Ld)`) and PyTorch (two, :math:`4(dm + (2L-1)d^2 + 2Ld)`);
- the width matched to the budget for :math:`L = 1..4` layers
(:func:`rnnlab.core.params.matched_width`),
  next to the large-:math:`d` rule :math:`d/\sqrt{2L-1}`;
- the figure :func:`rnnlab.course.plots.param_count_vs_width`.

A static website has no kernel, so sliders cannot move there. The explorer therefore also displays
its initial table and figure as ordinary outputs, which the website shows; in a live notebook
(Jupyter, Colab) the sliders appear below them and update their own copy.

:func:`browser_explorer` is the same explorer for pages without a kernel (Chapter 1 uses it): one
HTML output with an inline script that evaluates the closed forms in the browser, so its sliders
work on the static website too (see :func:`explorer_page_html`).

Everything here is import-safe without a frontend: the widgets can be built and driven in a plain
Python process (the tests do), and :func:`explorer_values` / :func:`explorer_html` are pure
functions.
"""

from __future__ import annotations

import html
import io
import itertools
from dataclasses import dataclass
from importlib import resources
from typing import Any

from rnnlab.core import params

__all__ = [
    "BrowserExplorer",
    "ExplorerValues",
    "ParameterExplorer",
    "browser_explorer",
    "explorer_html",
    "explorer_page_html",
    "explorer_values",
    "parameter_explorer",
]

_UIDS = itertools.count(1)

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


# --------------------------------------------------------------------------------------------
# The explorer without a kernel: HTML + JavaScript
# --------------------------------------------------------------------------------------------


def _asset(name: str) -> str:
    """The text of ``assets/<name>`` (package data) without its leading ``//`` comment lines."""
    text = resources.files("rnnlab.course").joinpath("assets", name).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    while lines and lines[0].startswith("//"):
        lines.pop(0)
    return "".join(lines)


#: The CSS class of the browser-side explorer's root element (the browser tests look for it).
BROWSER_EXPLORER_CLASS = "rnnlab-live-explorer"

# Every count the explorer shows is closed-form, so the browser computes it. The script mirrors
# rnnlab.core.params exactly (tests/test_widgets.py and tests/browser/ compare the two):
#   lstm_param_count          4 (d m + (2L-1) d^2 + 2 L d)
#   textbook_lstm_param_count 4 (d m + (2L-1) d^2 + L d)
#   matched_width             nearest integer width of a d^2 + b d = B, a = 4(2L-1), b = 4(m+2L),
#                             a tie goes to the smaller width; None below the count at width 1.
# Counts stay far below 2**53, so JavaScript numbers are exact integers here.
#: The closed forms in JavaScript (pure functions; tests/test_widgets.py runs them in Node.js).
EXPLORER_MATH_JS = "\n" + _asset("explorer_math.js")

#: The explorer's script (``__ID__``, ``__MAX_LAYERS__`` and ``__MATH__`` filled in per page).
_EXPLORER_JS = "\n" + _asset("explorer.js")


def _explorer_css(uid: str) -> str:
    """Scoped styles that follow the page's colours (light or dark), in Jupyter and on the site."""
    s = f"#{uid}"
    return (
        f"{s}{{color:inherit;background:transparent;max-width:100%;overflow-x:auto;"
        "font-size:0.95em;line-height:1.4}"
        f"{s} fieldset{{border:1px solid currentColor;border-radius:6px;padding:0.5em 0.8em;"
        "margin:0 0 0.8em 0}"
        f"{s} legend{{font-weight:bold;padding:0 0.3em}}"
        f"{s} .rx-row{{display:flex;flex-wrap:wrap;align-items:center;gap:0.4em 0.8em;"
        "margin:0.25em 0}"
        f"{s} .rx-row label{{min-width:9em}}"
        f"{s} input[type=range]{{width:min(22em,60vw)}}"
        f"{s} input[type=number]{{width:10em;color:inherit;background:transparent;"
        "border:1px solid currentColor;border-radius:4px;padding:0.1em 0.3em}"
        f"{s} input[type=number]:disabled{{opacity:0.75}}"
        f"{s} table{{border-collapse:collapse;margin:0.3em 0 0.9em 0;color:inherit;"
        "background:transparent}"
        f"{s} th,{s} td{{border:1px solid rgba(128,128,128,0.6);padding:0.2em 0.6em;"
        "color:inherit;background:transparent}"
        f"{s} td.num{{text-align:right;font-variant-numeric:tabular-nums}}"
        f"{s} code{{color:inherit;background:rgba(128,128,128,0.18);padding:0 0.2em;"
        "border-radius:3px;border:none}"
        f"{s} caption{{caption-side:top;text-align:left;font-weight:bold;color:inherit;"
        "padding:0.2em 0}"
    )


def explorer_page_html(
    input_size: int = 32,
    hidden_size: int = 256,
    num_layers: int = 2,
    budget: int | None = None,
    *,
    max_layers: int = 4,
    max_size: int = 1024,
    uid: str | None = None,
) -> str:
    """The parameter explorer as one self-contained HTML block that computes in the browser.

    No kernel is needed: sliders for :math:`m, d, L` and a budget box drive a small script that
    evaluates the closed forms of :mod:`rnnlab.core.params` (the two counts and the matched widths).
    The block is rendered in Python with the initial state (so it reads without JavaScript too),
    and the script re-renders it on every change. It works on the static website, in Jupyter
    and in Colab (all run the ``<script>`` of an HTML output of a trusted notebook).

    Its elements carry ``data-k`` names the tests drive: ``m``, ``d``, ``L`` (range inputs),
    ``tie`` (checkbox), ``budget`` (number input), ``textbook``, ``torch``, ``bias``, ``B``; the
    rows of the matched-width table are ``tr[data-layers=n]`` with ``data-width``.
    """
    values = explorer_values(input_size, hidden_size, num_layers, budget, max_layers=max_layers)
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
        raise ValueError(f"max_size must be an integer >= 1, got {max_size!r}")
    v = values
    uid = uid or f"rnnlab-explorer-{next(_UIDS)}-{v.input_size}-{v.hidden_size}"
    tied = v.budget_is_single_layer
    hidden_attr = "" if tied else " hidden"

    def slider(key: str, label: str, value: int, top: int) -> str:
        return (
            f"<div class='rx-row'><label for='{uid}-{key}'>{label}</label>"
            f"<input type='range' id='{uid}-{key}' data-k='{key}' min='1' max='{top}' "
            f"step='1' value='{value}'>"
            f"<output for='{uid}-{key}' data-k='{key}-out'>{value}</output></div>"
        )

    rows_counts = [
        (
            "textbook, one bias per gate",
            "4(dm + (2L&minus;1)d&sup2; + Ld)",
            "textbook",
            v.textbook_count,
        ),
        (
            "PyTorch <code>nn.LSTM</code>, two biases",
            "4(dm + (2L&minus;1)d&sup2; + 2Ld)",
            "torch",
            v.torch_count,
        ),
        ("difference (second bias)", "4Ld", "bias", v.bias_difference),
    ]
    m, d, n = v.input_size, v.hidden_size, v.num_layers
    parts = [
        f"<div class='{BROWSER_EXPLORER_CLASS}' id='{uid}' data-torch-count='{v.torch_count}'>",
        f"<style>{_explorer_css(uid)}</style>",
        "<fieldset><legend>Parameter explorer: move a slider</legend>",
        slider("m", "input size m", m, max(max_size, m)),
        slider("d", "width d", d, max(max_size, d)),
        slider("L", "layers L", n, max(max_layers, n)),
        "<div class='rx-row'>"
        f"<input type='checkbox' id='{uid}-tie' data-k='tie'{' checked' if tied else ''}>"
        f"<label for='{uid}-tie'>budget = one layer at width d</label>"
        f"<label for='{uid}-budget'>budget B</label>"
        f"<input type='number' id='{uid}-budget' data-k='budget' min='1' step='1' "
        f"value='{v.budget}'{' disabled' if tied else ''}></div>",
        "</fieldset>",
        "<div aria-live='polite'>",
        "<table><caption>LSTM with m = <span data-k='m-head'>"
        f"{m}</span> inputs, L = <span data-k='L-head'>{n}</span> "
        f"<span data-k='layers-word'>{'layers' if n > 1 else 'layer'}</span> of width d = "
        f"<span data-k='d-head'>{d}</span></caption>",
        "<thead><tr><th scope='col'>count</th><th scope='col'>formula</th>"
        "<th scope='col'>parameters</th></tr></thead><tbody>",
    ]
    for label, formula, key, count in rows_counts:
        parts.append(
            f"<tr><td>{label}</td><td>{formula}</td>"
            f"<td class='num' data-k='{key}'>{count:,}</td></tr>"
        )
    parts.append("</tbody></table>")
    source = f"one PyTorch layer of width d = {d}" if tied else "chosen budget"
    parts.append(
        f"<table><caption>Widths matched to the budget B = <span data-k='B'>{v.budget:,}</span> "
        f"(<span data-k='source'>{html.escape(source)}</span>)</caption>"
        "<thead><tr><th scope='col'>layers L</th><th scope='col'>matched width</th>"
        "<th scope='col'>parameters</th><th scope='col'>relative error</th>"
        f"<th scope='col' data-k='rule-head'{hidden_attr}>d/&radic;(2L&minus;1)</th>"
        "</tr></thead><tbody>"
    )
    for layers, match in enumerate(v.matches, start=1):
        if match is None:
            floor = params.min_budget(m, layers)
            cells = (
                "<td class='num'>&ndash;</td><td class='num'>&ndash;</td>"
                f"<td>below the minimum {floor:,} (width 1)</td>"
            )
            width = ""
        else:
            error = f"{match.relative_error:+.3%}".replace("-", "&minus;")
            cells = (
                f"<td class='num'>{match.hidden_size}</td>"
                f"<td class='num'>{match.param_count:,}</td><td class='num'>{error}</td>"
            )
            width = str(match.hidden_size)
        rule = params.asymptotic_matched_width(d, layers)
        parts.append(
            f"<tr data-layers='{layers}' data-width='{width}'><td>{layers}</td>{cells}"
            f"<td class='num'{hidden_attr}>{rule:.1f}</td></tr>"
        )
    parts.append("</tbody></table></div>")
    script = (
        _EXPLORER_JS.replace("__MATH__", EXPLORER_MATH_JS)
        .replace("__ID__", uid)
        .replace("__MAX_LAYERS__", str(len(v.matches)))
    )
    parts.append(f"<script>{script}</script></div>")
    return "\n".join(parts)


class BrowserExplorer:
    """What :func:`browser_explorer` returns: one HTML output (``_repr_html_``) that computes in
    the browser, plus the Python-side :class:`ExplorerValues` of its initial state."""

    def __init__(self, page: str, values: ExplorerValues) -> None:
        self.html = page
        self.values = values

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        v = self.values
        return (
            f"Parameter explorer (m={v.input_size}, d={v.hidden_size}, L={v.num_layers}, "
            f"PyTorch count {v.torch_count:,}); shown as HTML with sliders."
        )


def browser_explorer(
    input_size: int = 32,
    hidden_size: int = 256,
    num_layers: int = 2,
    budget: int | None = None,
    *,
    max_layers: int = 4,
    max_size: int = 1024,
) -> BrowserExplorer:
    """The parameter explorer for pages without a kernel: make it a cell's last expression.

    One output (HTML with an inline script, see :func:`explorer_page_html`); the sliders work on
    the static website as well as in Jupyter and Colab::

        from rnnlab.course.widgets import browser_explorer
        browser_explorer(input_size=32, hidden_size=256, num_layers=2)
    """
    values = explorer_values(input_size, hidden_size, num_layers, budget, max_layers=max_layers)
    page = explorer_page_html(
        input_size, hidden_size, num_layers, budget, max_layers=max_layers, max_size=max_size
    )
    return BrowserExplorer(page, values)
