"""Chapter 1's parameter explorer works on the static site: moving a slider (or typing a budget)
updates the numbers in the browser, and they equal :mod:`rnnlab.core.params` computed here in
Python.
Runs on the instructor site and, when built, on the student site."""

from __future__ import annotations

import pytest
from conftest import SITES, require_site, site_is_built

from rnnlab.core import params

pytestmark = pytest.mark.browser

CHAPTER1 = "chapters/01_counting_parameters.html"


def _number(text: str) -> int:
    return int(text.replace(",", "").strip())


@pytest.fixture(params=list(SITES))
def explorer_page(request, browser, servers):
    site = request.param
    require_site(site, CHAPTER1 if site_is_built(site) else None)
    if not (SITES[site][0] / CHAPTER1).is_file():
        pytest.fail(f"{CHAPTER1} is missing from the {site} site")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(servers.url(site) + CHAPTER1, wait_until="load")
    page.wait_for_selector(".rnnlab-live-explorer[data-ready='1']", timeout=10_000)
    yield page, errors
    context.close()


def _read(root) -> dict:
    widths = {}
    for n in range(1, 5):
        value = root.locator(f"tr[data-layers='{n}']").get_attribute("data-width")
        widths[n] = int(value) if value else None
    return {
        "torch": _number(root.locator("[data-k='torch']").inner_text()),
        "textbook": _number(root.locator("[data-k='textbook']").inner_text()),
        "bias": _number(root.locator("[data-k='bias']").inner_text()),
        "budget": _number(root.locator("[data-k='B']").inner_text()),
        "widths": widths,
    }


def _expected(m: int, d: int, n: int, budget: int | None = None) -> dict:
    target = params.lstm_param_count(m, d, 1) if budget is None else budget
    return {
        "torch": params.lstm_param_count(m, d, n),
        "textbook": params.textbook_lstm_param_count(m, d, n),
        "bias": 4 * d * n,
        "budget": target,
        "widths": {
            k: (
                params.matched_width(target, m, k).hidden_size
                if target >= params.min_budget(m, k)
                else None
            )
            for k in range(1, 5)
        },
    }


def test_sliders_recompute_the_counts_in_the_browser(explorer_page) -> None:
    page, errors = explorer_page
    root = page.locator(".rnnlab-live-explorer")
    assert root.count() == 1
    assert _read(root) == _expected(32, 256, 2)  # the initial state, as rendered

    for m, d, n in [(32, 128, 2), (7, 300, 3), (512, 64, 4), (1, 1, 1)]:
        root.locator("[data-k='m']").fill(str(m))
        root.locator("[data-k='d']").fill(str(d))
        root.locator("[data-k='L']").fill(str(n))
        assert _read(root) == _expected(m, d, n), (m, d, n)
        assert root.locator("[data-k='d-out']").inner_text() == str(d)
    assert not errors, errors


def test_typed_budget_drives_the_matched_widths(explorer_page) -> None:
    page, errors = explorer_page
    root = page.locator(".rnnlab-live-explorer")
    root.locator("[data-k='tie']").uncheck()
    budget_box = root.locator("[data-k='budget']")
    assert budget_box.is_enabled()
    for budget in (50_000, 200, 3_000_000):
        budget_box.fill(str(budget))
        got = _read(root)
        assert got == _expected(32, 256, 2, budget), budget
    # a budget below the count at width 1 says so instead of a width: at m = 32 one layer of
    # width 1 has 140 parameters and four have 188 (params.min_budget), so 150 reaches L = 1 only
    budget_box.fill("150")
    assert _read(root) == _expected(32, 256, 2, 150)
    assert "below the minimum" not in root.locator("tr[data-layers='1']").inner_text()
    for n in (2, 3, 4):
        floor = f"below the minimum {params.min_budget(32, n):,} (width 1)"
        assert floor in root.locator(f"tr[data-layers='{n}']").inner_text(), n
    root.locator("[data-k='tie']").check()
    assert _read(root) == _expected(32, 256, 2)
    assert not errors, errors
