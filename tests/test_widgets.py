"""Tests for rnnlab.course.widgets: the explorer builds without a frontend, shows the library's
numbers,
and updates them when a control moves."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rnnlab.core import params
from rnnlab.course.widgets import (
    ParameterExplorer,
    explorer_html,
    explorer_values,
    parameter_explorer,
)


@settings(max_examples=40, deadline=None)
@given(
    m=st.integers(1, 512),
    d=st.integers(1, 512),
    n=st.integers(1, 4),
    budget=st.none() | st.integers(1, 2_000_000),
)
def test_values_equal_the_params_functions(m: int, d: int, n: int, budget: int | None) -> None:
    values = explorer_values(m, d, n, budget)
    assert values.torch_count == params.lstm_param_count(m, d, n)
    assert values.textbook_count == params.textbook_lstm_param_count(m, d, n)
    assert values.bias_difference == 4 * d * n
    target = params.lstm_param_count(m, d, 1) if budget is None else budget
    assert values.budget == target
    for layers, match in enumerate(values.matches, start=1):
        if target < params.min_budget(m, layers):
            assert match is None
        else:
            assert match == params.matched_width(target, m, layers)


def test_tied_budget_makes_one_layer_match_the_width_itself() -> None:
    values = explorer_values(32, 256, 2)
    assert values.budget_is_single_layer
    assert values.matched_widths == (256, 151, 118, 100)


def test_html_shows_counts_and_unreachable_budgets() -> None:
    page = explorer_html(explorer_values(32, 256, 2))
    for number in (
        params.lstm_param_count(32, 256, 2),
        params.textbook_lstm_param_count(32, 256, 2),
    ):
        assert f"{number:,}" in page
    tiny = explorer_html(explorer_values(8, 4, 1, budget=params.min_budget(8, 2)))
    assert "below the minimum" in tiny  # three and four layers cannot reach this budget


def test_explorer_updates_when_sliders_move() -> None:
    explorer = ParameterExplorer(input_size=32, hidden_size=256, num_layers=2, show_figure=False)
    before = explorer.table.value
    assert explorer.values.matched_widths == (256, 151, 118, 100)

    explorer.hidden_size.value = 128
    assert explorer.values.torch_count == params.lstm_param_count(32, 128, 2)
    assert explorer.budget.value == params.lstm_param_count(32, 128, 1)  # tied budget follows d
    assert explorer.values.matched_widths[0] == 128
    assert explorer.table.value != before
    assert f"{params.lstm_param_count(32, 128, 2):,}" in explorer.table.value

    explorer.num_layers.value = 4
    assert explorer.values.torch_count == params.lstm_param_count(32, 128, 4)
    explorer.input_size.value = 1
    assert explorer.values.textbook_count == params.textbook_lstm_param_count(1, 128, 4)


def test_untied_budget_drives_the_matched_widths() -> None:
    explorer = ParameterExplorer(show_figure=False)
    assert explorer.budget.disabled
    explorer.tie_budget.value = False
    assert not explorer.budget.disabled
    explorer.budget.value = 50_000
    expected = tuple(params.matched_width(50_000, 32, n).hidden_size for n in range(1, 5))
    assert explorer.values.matched_widths == expected
    explorer.hidden_size.value = 64  # does not move an untied budget
    assert explorer.values.budget == 50_000


def test_figure_is_redrawn_on_change() -> None:
    explorer = ParameterExplorer(input_size=16, hidden_size=64, num_layers=1)
    png = explorer.png
    assert png.startswith(b"\x89PNG")
    explorer.hidden_size.value = 96
    redrawn = explorer.png
    assert redrawn.startswith(b"\x89PNG") and redrawn != png


def test_parameter_explorer_displays_a_static_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[object] = []
    monkeypatch.setattr("IPython.display.display", lambda *objs, **kw: shown.extend(objs))
    explorer = parameter_explorer(input_size=8, hidden_size=32, num_layers=2)
    kinds = [type(obj).__name__ for obj in shown]
    assert kinds == ["HTML", "HTML"]
    assert '<img alt="Line plot of LSTM parameters' in shown[1].data
    assert f"{params.lstm_param_count(8, 32, 2):,}" in shown[0].data
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "Jupyter or Colab" in bundle["text/plain"]


def test_bad_input_raises_value_error_naming_the_parameter() -> None:
    with pytest.raises(ValueError, match="hidden_size"):
        explorer_values(8, 0, 1)
    with pytest.raises(ValueError, match="max_layers"):
        explorer_values(8, 8, 1, max_layers=0)


# --------------------------------------------------------------------------------------------
# The browser-side explorer (Chapter 1): HTML + JavaScript, no kernel.

import json  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

from rnnlab.course.widgets import (  # noqa: E402
    BROWSER_EXPLORER_CLASS,
    EXPLORER_MATH_JS,
    browser_explorer,
    explorer_page_html,
)


def test_browser_explorer_is_one_html_output_with_the_initial_numbers() -> None:
    explorer = browser_explorer(input_size=32, hidden_size=256, num_layers=2)
    page = explorer._repr_html_()
    assert page.count(f"class='{BROWSER_EXPLORER_CLASS}'") == 1
    assert page.count("<script>") == 1
    assert f"{params.lstm_param_count(32, 256, 2):,}" in page
    assert f"{params.textbook_lstm_param_count(32, 256, 2):,}" in page
    for n, width in enumerate((256, 151, 118, 100), start=1):
        assert f"data-layers='{n}' data-width='{width}'" in page
    assert explorer.values.matched_widths == (256, 151, 118, 100)
    # dark mode: the block inherits the page's text colour and sets no light background
    assert "color:inherit" in page and "background:#fff" not in page.replace(" ", "")
    # every control has a label
    for key in ("m", "d", "L", "tie", "budget"):
        ident = re.search(rf"id='([^']+)' data-k='{key}'", page).group(1)
        assert f"<label for='{ident}'>" in page


def test_each_explorer_has_its_own_ids() -> None:
    first, second = explorer_page_html(8, 16, 1), explorer_page_html(8, 16, 1)
    ids = lambda page: set(re.findall(r"id='([^']+)'", page))  # noqa: E731
    assert not ids(first) & ids(second)


def test_untied_budget_hides_the_large_d_rule() -> None:
    page = explorer_page_html(8, 16, 2, budget=50_000)
    assert "data-k='rule-head' hidden" in page
    assert f"{params.matched_width(50_000, 8, 4).hidden_size}" in page


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_javascript_closed_forms_equal_the_params_functions() -> None:
    """The explorer's JavaScript, run in Node.js, against rnnlab.core.params on many
    configurations."""
    cases = [
        (m, d, n, b)
        for m in (1, 3, 32, 300, 1024)
        for d in (1, 2, 17, 256, 1024)
        for n in (1, 2, 3, 4)
        for b in (1, 25, 4_000, 296_960, 1_000_003, 9_999_999_999)
    ]
    script = (
        EXPLORER_MATH_JS
        + "const cases = JSON.parse(process.argv[1]);\n"
        + "console.log(JSON.stringify(cases.map(([m, d, L, B]) => {\n"
        + "  const mt = matched(B, m, L);\n"
        + "  return [lstm(m, d, L), textbook(m, d, L), mt && mt.width, mt && mt.count];\n"
        + "})));\n"
    )
    out = subprocess.run(
        ["node", "-e", script, json.dumps(cases)], capture_output=True, text=True, check=True
    )
    results = json.loads(out.stdout)
    for (m, d, n, b), (torch_count, textbook, width, count) in zip(cases, results, strict=True):
        assert torch_count == params.lstm_param_count(m, d, n)
        assert textbook == params.textbook_lstm_param_count(m, d, n)
        if b < params.min_budget(m, n):
            assert width is None
        else:
            match = params.matched_width(b, m, n)
            assert (width, count) == (match.hidden_size, match.param_count), (m, n, b)
