"""Load one page of the built site in headless Chromium, offline, and record what a reader gets.

:func:`probe_page` opens the page with every request that leaves the local server blocked,
waits until MathJax has typeset and the Jupyter widgets have rendered, saves a full-page
screenshot, runs axe-core, and returns a :class:`PageReport`. The tests decide what in the
report is a failure (see ``test_site_pages.py`` and ``allowlist.yml``).
"""

from __future__ import annotations

import functools
import http.server
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

ROOT = Path(__file__).resolve().parents[2]
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDGET_VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]'
MATHJAX_TIMEOUT_MS = 20_000
WIDGET_TIMEOUT_MS = 20_000


@dataclass
class PageReport:
    """What loading one page produced. ``path`` is relative to the site root."""

    path: str
    site: str = "instructor"
    status: int | None = None
    final_url: str = ""
    redirect_to: str | None = None
    console_errors: list[str] = field(default_factory=list)
    blocked_requests: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    has_math: bool = False
    mathjax_ready: bool | None = None
    widget_views: int = 0
    widget_areas: list[dict] = field(default_factory=list)
    widgets_timed_out: bool = False
    broken_images: list[str] = field(default_factory=list)
    dom: str = ""
    axe_violations: list[dict] = field(default_factory=list)
    screenshot: Path | None = None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


class SiteServer:
    """Serve ``directory`` on ``127.0.0.1`` (a free port) from a daemon thread."""

    def __init__(self, directory: str | Path) -> None:
        handler = functools.partial(_QuietHandler, directory=str(directory))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> SiteServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def launch_chromium(playwright, executable: str):
    """Debian's Chromium driven by Playwright (never a browser downloaded by Playwright)."""
    return playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)


def _is_local(url: str, base_url: str) -> bool:
    if url.startswith(("data:", "blob:", "about:")):
        return True
    return urlsplit(url).netloc == urlsplit(base_url).netloc


def probe_page(
    context,
    base_url: str,
    path: str,
    screenshot: Path | None,
    redirect_to: str | None = None,
) -> PageReport:
    """Open ``base_url + path`` in a new tab of ``context`` and fill a :class:`PageReport`.

    ``redirect_to``: for a ``<meta http-equiv="refresh">`` stub, the URL it must lead to; only
    loading is checked for such a page (its target is a page of its own).
    """
    report = PageReport(path=path)
    page = context.new_page()

    def route(route_) -> None:
        url = route_.request.url
        if _is_local(url, base_url):
            route_.continue_()
        else:
            report.blocked_requests.append(url)
            route_.abort("blockedbyclient")

    def on_console(message) -> None:
        if message.type == "error":
            where = message.location.get("url", "") if message.location else ""
            report.console_errors.append(f"{message.text} [{where}]" if where else message.text)

    def on_response(response) -> None:
        if response.status >= 400:
            report.failed_requests.append(f"HTTP {response.status} {response.url}")

    def on_request_failed(request) -> None:
        if _is_local(request.url, base_url):
            report.failed_requests.append(f"{request.failure} {request.url}")

    page.route("**/*", route)
    page.on("console", on_console)
    page.on("pageerror", lambda error: report.console_errors.append(f"uncaught: {error}"))
    page.on("response", on_response)
    page.on("requestfailed", on_request_failed)
    try:
        response = page.goto(urljoin(base_url, path), wait_until="load", timeout=30_000)
        report.status = response.status if response else None
        if redirect_to:
            report.redirect_to = redirect_to
            page.wait_for_url(urljoin(urljoin(base_url, path), redirect_to), timeout=10_000)
            page.wait_for_load_state("load")
            report.final_url = page.url
            return report
        report.final_url = page.url
        _wait_for_mathjax(page, report)
        _wait_for_widgets(page, report)
        report.broken_images = page.evaluate(
            """async () => {
                const imgs = Array.from(document.images);
                await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
                    i.addEventListener('load', r); i.addEventListener('error', r);
                    setTimeout(r, 5000); })));
                return imgs.filter(i => i.naturalWidth === 0)
                           .map(i => (i.currentSrc || i.src).slice(0, 200));
            }"""
        )
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
            report.screenshot = screenshot
        report.dom = page.content()
        report.axe_violations = _run_axe(page)
    finally:
        page.close()
    return report


def _wait_for_mathjax(page, report: PageReport) -> None:
    report.has_math = page.evaluate("() => document.querySelector('.math') !== null")
    if not report.has_math:
        return
    try:
        page.wait_for_function(
            "() => window.MathJax && window.MathJax.startup && window.MathJax.startup.promise",
            timeout=MATHJAX_TIMEOUT_MS,
        )
        page.evaluate("() => window.MathJax.startup.promise.then(() => true)")
        report.mathjax_ready = True
    except Exception:  # noqa: BLE001 -- a timeout is a finding, reported by the tests
        report.mathjax_ready = False


def _wait_for_widgets(page, report: PageReport) -> None:
    report.widget_views = page.evaluate(f"() => document.querySelectorAll('{WIDGET_VIEW}').length")
    if not report.widget_views:
        return
    try:
        page.wait_for_function(
            f"() => document.querySelectorAll('.widget-subarea').length >= {report.widget_views}",
            timeout=WIDGET_TIMEOUT_MS,
        )
        page.wait_for_timeout(300)  # let the views lay out their children
        if report.has_math:  # widget labels are typeset through the MathJax bridge
            page.evaluate("() => window.MathJax.startup.promise.then(() => true)")
    except Exception:  # noqa: BLE001 -- reported by the tests
        report.widgets_timed_out = True
    report.widget_areas = page.evaluate(
        """() => Array.from(document.querySelectorAll('.widget-subarea')).map(e => {
            const box = e.getBoundingClientRect();
            return {width: box.width, height: box.height,
                    elements: e.querySelectorAll('*').length,
                    visible: getComputedStyle(e).visibility !== 'hidden' && box.height > 0,
                    text: e.innerText.slice(0, 80)};
        })"""
    )


def _run_axe(page) -> list[dict]:
    """axe-core's serious and critical violations, one entry per (rule, element)."""
    page.add_script_tag(path=str(AXE_JS))
    raw = page.evaluate(
        """async () => {
            const result = await axe.run(document, {resultTypes: ['violations']});
            return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                helpUrl: v.helpUrl,
                nodes: v.nodes.map(n => ({target: n.target.join(' '),
                                          html: n.html.slice(0, 300),
                                          impact: n.impact}))}));
        }"""
    )
    found = []
    for violation in raw:
        for node in violation["nodes"]:
            impact = node.get("impact") or violation["impact"]
            if impact in ("serious", "critical"):
                found.append(
                    {
                        "rule": violation["id"],
                        "impact": impact,
                        "help": violation["help"],
                        "target": node["target"],
                        "html": node["html"],
                    }
                )
    return found
