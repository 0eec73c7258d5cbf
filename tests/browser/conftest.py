"""Fixtures of the browser suite: the built site, a local server, Debian's Chromium, page reports.

Skip policy: outside ``make test`` the suite *skips* (with the reason) when the site is not built
or no browser is available. ``make browser`` (and so ``make test`` and CI) sets
``RNNLAB_REQUIRE_BROWSER=1``, which turns those skips into failures.

Two sites: the instructor site (``_build/html``, ``make book``) and the student edition
(``_build/student-html``, ``make student-book``). Every per-page test runs over the pages of both;
the student site's pages are *skipped* when it was not built (``make test`` builds it).

Environment: ``RNNLAB_SITE_DIR`` (default ``_build/html``), ``RNNLAB_STUDENT_SITE_DIR`` (default
``_build/student-html``), ``RNNLAB_CHROMIUM`` (default ``/usr/bin/chromium``),
``RNNLAB_SCREENSHOT_DIR`` (default ``_build/browser``).
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
STUDENT_SITE_DIR = Path(os.environ.get("RNNLAB_STUDENT_SITE_DIR", ROOT / "_build" / "student-html"))
#: site name -> (built site, book source folder holding its _config.yml and notebooks)
SITES = {"instructor": (SITE_DIR, ROOT), "student": (STUDENT_SITE_DIR, ROOT / "student")}
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


def site_is_built(site: str) -> bool:
    return (SITES[site][0] / "intro.html").is_file()


def _site_params() -> tuple[list[tuple[str, str | None]], list[str]]:
    params, ids = [], []
    for site, (folder, _source) in SITES.items():
        pages = site_pages(folder) if folder.is_dir() else []
        if pages:
            params += [(site, page) for page in pages]
            ids += [f"{site}:{page}" for page in pages]
        else:
            params.append((site, None))
            ids.append(f"{site}:site-not-built")
    return params, ids


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize ``page_path`` with ``(site, page)`` for every HTML page of both sites."""
    if "page_path" in metafunc.fixturenames:
        params, ids = _site_params()
        metafunc.parametrize("page_path", params, ids=ids)


@pytest.fixture(scope="session")
def site_dir() -> Path:
    if not (SITE_DIR / "intro.html").is_file():
        unavailable(f"the website is not built in {SITE_DIR}: run `make book` first")
    return SITE_DIR


@pytest.fixture(scope="session")
def allowlist() -> dict:
    """``allowlist.yml``: console messages and axe violations accepted, each with a reason."""
    data = yaml.safe_load(ALLOWLIST_FILE.read_text()) or {}
    sections = ("console", "axe", "layout")
    for section in sections:
        for entry in data.get(section) or []:
            if not str(entry.get("reason", "")).strip():
                raise ValueError(f"{ALLOWLIST_FILE.name}: entry {entry} needs a reason")
    return {section: data.get(section) or [] for section in sections}


@pytest.fixture(scope="session")
def layout_findings() -> list[tuple[str, list[str]]]:
    """``(page, problems)`` from every layout check of this run (the allow-list test reads it)."""
    return []


@pytest.fixture(scope="session")
def book_config() -> dict:
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def site_config(site: str) -> dict:
    """The ``_config.yml`` a site was built from (the student one is generated)."""
    return yaml.safe_load((SITES[site][1] / "_config.yml").read_text())


class Servers:
    """One local HTTP server per site, started on first use."""

    def __init__(self) -> None:
        self.running: dict[str, SiteServer] = {}

    def url(self, site: str) -> str:
        if site not in self.running:
            self.running[site] = SiteServer(SITES[site][0]).__enter__()
        return self.running[site].base_url

    def close(self) -> None:
        for server in self.running.values():
            server.__exit__(None, None, None)


@pytest.fixture(scope="session")
def servers():
    running = Servers()
    yield running
    running.close()


@pytest.fixture(scope="session")
def server(site_dir: Path, servers):
    servers.url("instructor")
    return servers.running["instructor"]


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
    """Loads each page once: all per-page tests share its report. Keys: ``(site, page)``."""

    def __init__(self, context, servers: Servers) -> None:
        self.context, self.servers = context, servers
        self.reports: dict[tuple[str, str], object] = {}

    def get(self, path: str, site: str = "instructor"):
        key = (site, path)
        if key not in self.reports:
            folder = SITES[site][0]
            static = (folder / path).read_text(encoding="utf-8", errors="replace")
            shot_dir = SCREENSHOT_DIR if site == "instructor" else SCREENSHOT_DIR / site
            shot = shot_dir / Path(path).with_suffix(".png")
            report = probe_page(
                self.context,
                self.servers.url(site),
                path,
                shot,
                redirect_to=redirect_target(static),
            )
            report.site = site
            self.reports[key] = report
        return self.reports[key]

    def site_reports(self, site: str) -> dict[str, object]:
        return {path: r for (s, path), r in self.reports.items() if s == site}


@pytest.fixture(scope="session")
def report_cache(browser_context, servers) -> ReportCache:
    return ReportCache(browser_context, servers)


def require_site(site: str, page: str | None) -> None:
    """Skip a student page when that site was not built; fail/skip a missing instructor site."""
    if site == "student" and (page is None or not site_is_built(site)):
        pytest.skip(f"the student site is not built in {STUDENT_SITE_DIR}: run make student-book")
    if page is None:
        unavailable(f"the website is not built in {SITE_DIR}: run `make book` first")


@pytest.fixture
def page_report(page_path, report_cache):
    site, page = page_path
    require_site(site, page)
    return report_cache.get(page, site)


@pytest.fixture(params=list(SITES))
def any_site_dir(request) -> Path:
    """Each built site in turn (the student site is skipped when it was not built)."""
    site = request.param
    if not site_is_built(site):
        require_site(site, None)
    return SITES[site][0]
