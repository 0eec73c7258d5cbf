"""Fixtures of the browser suite: the built site, a local server, Debian's Chromium, page reports.

Skip policy: outside ``make test`` the suite *skips* (with the reason) when the site is not built
or no browser is available. ``make browser`` (and so ``make test`` and CI) sets
``RNNLAB_REQUIRE_BROWSER=1``, which turns those skips into failures.

Environment: ``RNNLAB_SITE_DIR`` (default ``_build/html``), ``RNNLAB_CHROMIUM`` (default
``/usr/bin/chromium``), ``RNNLAB_SCREENSHOT_DIR`` (default ``_build/browser``).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe import AXE_JS, SiteServer, launch_chromium, probe_page  # noqa: E402
from sitecheck import redirect_target, site_pages  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SITE_DIR = Path(os.environ.get("RNNLAB_SITE_DIR", ROOT / "_build" / "html"))
SCREENSHOT_DIR = Path(os.environ.get("RNNLAB_SCREENSHOT_DIR", ROOT / "_build" / "browser"))
CHROMIUM = os.environ.get("RNNLAB_CHROMIUM", "/usr/bin/chromium")
ALLOWLIST_FILE = Path(__file__).with_name("allowlist.yml")


def browser_required() -> bool:
    return os.environ.get("RNNLAB_REQUIRE_BROWSER", "") not in ("", "0")


def unavailable(reason: str) -> None:
    """Skip (a developer's plain ``pytest``) or fail (``make test``) because of ``reason``."""
    if browser_required():
        pytest.fail(f"{reason} (RNNLAB_REQUIRE_BROWSER is set, so this is an error)")
    pytest.skip(reason)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``page_path`` with every HTML page of the built site."""
    if "page_path" in metafunc.fixturenames:
        pages = site_pages(SITE_DIR) if SITE_DIR.is_dir() else []
        metafunc.parametrize("page_path", pages or [None], ids=pages or ["site-not-built"])


@pytest.fixture(scope="session")
def site_dir() -> Path:
    if not (SITE_DIR / "intro.html").is_file():
        unavailable(f"the website is not built in {SITE_DIR}: run `make book` first")
    return SITE_DIR


@pytest.fixture(scope="session")
def allowlist() -> dict:
    """``allowlist.yml``: console messages and axe violations accepted, each with a reason."""
    data = yaml.safe_load(ALLOWLIST_FILE.read_text()) or {}
    for section in ("console", "axe"):
        for entry in data.get(section) or []:
            if not str(entry.get("reason", "")).strip():
                raise ValueError(f"{ALLOWLIST_FILE.name}: entry {entry} needs a reason")
    return {"console": data.get("console") or [], "axe": data.get("axe") or []}


@pytest.fixture(scope="session")
def book_config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())


@pytest.fixture(scope="session")
def server(site_dir: Path):
    with SiteServer(site_dir) as running:
        yield running


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright for Python is not installed (pip install -e '.[test]')")
    if not (shutil.which(CHROMIUM) or os.access(CHROMIUM, os.X_OK)):
        unavailable(f"no Chromium at {CHROMIUM}: apt-get install -y chromium")
    if not AXE_JS.is_file():
        unavailable(f"axe-core is missing ({AXE_JS}): run python scripts/vendor_assets.py")
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright, CHROMIUM)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def browser_context(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    yield context
    context.close()


class ReportCache:
    """Loads each page once: all per-page tests share its report."""

    def __init__(self, context, base_url: str, site: Path) -> None:
        self.context, self.base_url, self.site = context, base_url, site
        self.reports: dict[str, object] = {}

    def get(self, path: str):
        if path not in self.reports:
            static = (self.site / path).read_text(encoding="utf-8", errors="replace")
            shot = SCREENSHOT_DIR / Path(path).with_suffix(".png")
            self.reports[path] = probe_page(
                self.context, self.base_url, path, shot, redirect_to=redirect_target(static)
            )
        return self.reports[path]


@pytest.fixture(scope="session")
def report_cache(browser_context, server, site_dir) -> ReportCache:
    return ReportCache(browser_context, server.base_url, site_dir)


@pytest.fixture
def page_report(page_path, report_cache, site_dir):
    if page_path is None:
        unavailable(f"the website is not built in {SITE_DIR}: run `make book` first")
    return report_cache.get(page_path)
