"""The parameter explorer without a kernel (:func:`browser_explorer`): one HTML output whose inline
script evaluates the closed forms in the browser, so its sliders work on the static website."""

from __future__ import annotations

import html
import itertools
from importlib import resources

from rnnlab.core import params
from rnnlab.core.text import fmt_signed
from rnnlab.course.widgets.values import ExplorerValues, explorer_values

_UIDS = itertools.count(1)


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
    return _page_html(values, max_layers=max_layers, max_size=max_size, uid=uid)


def _page_html(v: ExplorerValues, *, max_layers: int, max_size: int, uid: str | None) -> str:
    """:func:`explorer_page_html` of the explorer's values ``v`` (computed once by the caller)."""
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
        raise ValueError(f"max_size must be an integer >= 1, got {max_size!r}")
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
            error = fmt_signed(match.relative_error, 3, percent=True).replace("-", "&minus;")
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
    page = _page_html(values, max_layers=max_layers, max_size=max_size, uid=None)
    return BrowserExplorer(page, values)
