"""`moot view` in a real browser: Debian's chromium (installed by `test_html_browser`'s `chromium` fixture when
missing) driven by Playwright through its executable path (Playwright's own browser download is never used).

Open the list, filter it to contested debates, open one and read its judges and verdict; watch a batch
started after the page was opened appear and count up without a reload; open a bench item's debate; open a
call's prompt on demand. No console error, no script from judge text. MOOT_UPDATE_DOCS_IMAGES=1 writes the
pages' screenshots to docs/view-*.png.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from moot.testing import FakeLLMServer

from .test_view_live import start_batch
from .view_store import Made, populate, serving

# the session fixture that installs chromium, shared with the report's browser tests (should it move to
# conftest.py, pytest finds it there by itself)
with contextlib.suppress(ImportError):
    from .test_html_browser import chromium  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]
sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra installs playwright")
UPDATE_DOCS = os.environ.get("MOOT_UPDATE_DOCS_IMAGES") == "1"
DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.fixture
def browser(chromium: str) -> Iterator[object]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def store(tmp_path: Path, llm_server: FakeLLMServer) -> Made:
    return populate(tmp_path, llm_server)


def until(check: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the page did not change in time"
        time.sleep(0.2)


class Tab:
    """A page of the browser that keeps what its console said."""

    def __init__(self, browser: object, base: str) -> None:
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
        self.base = base
        self.console: list[str] = []
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))

    def go(self, path: str) -> object:
        self.page.goto(self.base + path)
        return self.page

    def shot(self, name: str, tmp_path: Path) -> None:
        png = tmp_path / f"view-{name}.png"
        self.page.screenshot(path=str(png))
        assert png.stat().st_size > 10_000  # a drawn page
        if UPDATE_DOCS:
            shutil.copy(png, DOCS / png.name)


def test_list_filter_to_contested_open_one_and_read_judges_and_verdict(
    store: Made, browser: object, isolated_home: Path, tmp_path: Path
) -> None:
    with serving(isolated_home) as base:
        tab = Tab(browser, base)
        page = tab.go("/debates")
        rows = page.locator("#debates tbody tr")
        assert rows.count() >= 4 + 6 + 12  # the CLI debates, the batch, the bench's pairs in both orders
        tab.shot("list", tmp_path)
        with page.expect_navigation():
            page.select_option("select[name=verdict]", "CONTESTED")  # the page's script submits the filter
        assert "verdict=CONTESTED" in page.url
        verdicts = page.locator("#debates tbody td.vword").all_inner_texts()
        assert verdicts and set(verdicts) == {"CONTESTED"}
        page.locator(f'#debates tr[data-id="{store.debates["contested"]}"] td.title a').click()
        page.wait_for_url(f"**/debates/{store.debates['contested']}")
        assert page.locator("#verdict-word").inner_text() == "CONTESTED"
        assert page.locator("#verdict .word").inner_text().strip() != ""  # the report's own verdict box
        judges = page.locator("#judges").inner_text()
        assert all(stance in judges for stance in ("risk", "value", "effort"))
        assert page.locator("#chart polyline.series").count() == 3  # one trajectory per judge
        tab.shot("debate", tmp_path)
        # a call's prompt and reply, fetched when opened
        first = page.locator("details.call").first
        first.locator("summary").click()
        first.locator(".call-body").wait_for()
        assert "Prompt" in first.inner_text() and "Reply" in first.inner_text()
        assert tab.console == [], tab.console


def test_judge_script_never_runs(store: Made, browser: object, isolated_home: Path) -> None:
    with serving(isolated_home) as base:
        tab = Tab(browser, base)
        for name in ("evaluate", "decide", "challenge"):
            page = tab.go(f"/debates/{store.debates[name]}")
            assert "pwned" not in page.title()
            assert page.locator("#injected").count() == 0
            assert "document.title='pwned'" in page.content()  # shown as text
        page = tab.go(f"/compare?a={store.debates['evaluate']}&b={store.debates['decide']}")
        assert "pwned" not in page.title() and page.locator("#injected").count() == 0
        assert tab.console == [], tab.console


def test_a_batch_started_after_the_page_opened_counts_up_without_a_reload(
    browser: object, isolated_home: Path, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    with serving(isolated_home) as base:
        tab = Tab(browser, base)
        page = tab.go("/batches")
        assert "No batch yet" in page.content()
        page.evaluate("window.__sameDocument = true")
        proc, batch_id = start_batch(tmp_path, llm_server, isolated_home, 16, delay=0.4)
        try:
            row = page.locator(f'tr[data-batch="{batch_id}"]')
            row.wait_for(timeout=60_000)  # appeared on the open page
            assert page.evaluate("window.__sameDocument") is True
            row.locator("a").click()
            page.wait_for_url(f"**/batches/{batch_id}")
            page.evaluate("window.__sameDocument = 'batch page'")
            done = page.locator("#count-done")
            first = int(done.inner_text())
            until(lambda: int(done.inner_text()) > first, 60)  # the page's strict CSP allows no eval'd waits
            tab.shot("batch", tmp_path)
            until(lambda: page.locator("#batch-status").inner_text() == "finished", 120)
            assert int(done.inner_text()) == 16
            assert page.evaluate("window.__sameDocument") == "batch page"  # never reloaded
            assert page.locator("#items tbody tr").count() == 16
        finally:
            proc.communicate(timeout=120)
        assert proc.returncode == 0
        assert tab.console == [], tab.console


def test_a_bench_item_opens_its_debates(store: Made, browser: object, isolated_home: Path, tmp_path: Path) -> None:
    with serving(isolated_home) as base:
        tab = Tab(browser, base)
        page = tab.go("/benches")
        page.locator(f'a[href="/benches/{store.bench_key}"]').click()
        page.wait_for_url(f"**/benches/{store.bench_key}")
        assert page.locator("#report").inner_text().count("Figures per strategy") == 1
        tab.shot("bench", tmp_path)
        item = page.locator("#bench-items tbody tr").first
        item_id = item.get_attribute("data-item")
        item.locator("a", has_text="swapped").click()
        page.wait_for_url("**/debates/*")
        assert page.locator(".crumbs code").inner_text() == f"{item_id}~swapped"
        page.locator("a", has_text="compare with the other order").click()
        page.wait_for_url("**/compare?*")
        assert page.locator(".column article.report").count() == 2
        tab.shot("compare", tmp_path)
        assert tab.console == [], tab.console
