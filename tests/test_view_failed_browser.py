"""A failed debate's page in `moot view`, in a real browser (Debian's chromium, as `test_view_browser`): its
header names the judges and the spend its body lists (it said `-` above six calls and a cost table), and
its FAILED headline has the status's red (it was the neutral blue)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from moot.testing import FakeLLMServer

from .view_store import batch, serving

with contextlib.suppress(ImportError):
    from .test_html_browser import chromium  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]
sync_api = pytest.importorskip("playwright.sync_api", reason="the test extra installs playwright")


@pytest.fixture
def browser(chromium: str) -> Iterator[object]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def failed(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    """One batch item whose judges all answer HTTP 400: a failed debate (made before the browser's loop runs)."""
    batch(tmp_path, llm_server, n=0)


def test_a_failed_debates_header_matches_its_body(failed: None, browser: object, isolated_home: Path) -> None:
    with serving(isolated_home) as base:
        page = browser.new_page()  # type: ignore[attr-defined]
        page.goto(base + "/debates?status=failed")
        page.locator("#debates tbody td.title a").first.click()
        page.wait_for_selector("#verdict")
        assert page.locator("#outcome dd.status").inner_text() == "failed"
        calls = page.locator("details.call")
        seats = {calls.nth(i).locator("summary .meta").inner_text().split(" · ")[0] for i in range(calls.count())}
        judges = page.locator("#judges").inner_text()
        assert len(seats) == 3 and all(seat in judges for seat in seats), (judges, seats)
        spend = page.locator("#outcome div", has_text="Spend").locator("dd").inner_text()
        assert spend.startswith("$"), spend  # the calls' cost (none was priced: $0), as the cost table says
        assert "Cost" in page.locator("#report").inner_text()

        def colour(selector: str) -> str:
            return str(page.eval_on_selector(selector, "e => getComputedStyle(e).color"))

        assert page.locator("#verdict .word").inner_text().strip() == "FAILED"
        assert colour("#verdict .word") == colour("#outcome dd.status") == "rgb(207, 34, 46)"
