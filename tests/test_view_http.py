"""`moot view` over real HTTP (uvicorn on 127.0.0.1) on a store made by running moot: every page, the list's
filters, sorting, search and paging, escaping of judge text, 404s (unknown ids, traversal), the token,
the Host check, read-only access, and the `moot view` command's bad input."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from moot.store.connection import StoreError
from moot.testing import FakeLLMServer
from moot.view import debates as debates_module
from moot.view.reader import ReadOnlyStore

from .view_store import Made, populate, serving

TOKEN = "s3cret-token-for-tests"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Made]]:
    """One store for the module: four CLI debates, a batch and a bench, under its own MOOT_HOME."""
    work = tmp_path_factory.mktemp("view")
    home = work / "moot-home"
    with pytest.MonkeyPatch.context() as mp, FakeLLMServer() as server:
        mp.setenv("MOOT_HOME", str(home))
        mp.chdir(work)
        yield home, populate(work, server)


@pytest.fixture(scope="module")
def base(made: tuple[Path, Made]) -> Iterator[str]:
    with serving(made[0]) as url:
        yield url


def get(
    url: str, path: str, headers: dict[str, str] | None = None, method: str = "GET"
) -> tuple[int, dict[str, str], str]:
    """One request, the path sent exactly as given (no client-side normalisation of `..` or `%2F`)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        conn.request(method, path, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode()
    finally:
        conn.close()


def test_a_page_past_the_end_is_the_last_page(base: str) -> None:
    """`?page=99` of a shorter list shows its last page and says so (it read "page 99 of 1", empty)."""
    count = re.compile(r"· page (\d+) of (\d+)</p>")
    found = count.search(ok(base, "/debates"))
    assert found is not None
    last = found.group(2)
    page = ok(base, "/debates?page=99")
    assert count.search(page).groups() == (last, last)  # type: ignore[union-attr]
    assert row_ids(page) and 'rel="next"' not in page


def ok(url: str, path: str) -> str:
    status, _, body = get(url, path)
    assert status == 200, (path, status, body[:300])
    return body


def row_ids(page: str) -> list[str]:
    return re.findall(r'<tr data-id="([^"]+)">', page)


def cells(page: str, n: int) -> list[str]:
    """The `n`th cell of every row of the debates table."""
    rows = re.findall(r'<tr data-id="[^"]+">(.*?)</tr>', page, re.DOTALL)
    return [re.sub(r"<[^>]+>", "", re.findall(r"<td[^>]*>(.*?)</td>", r, re.DOTALL)[n]).strip() for r in rows]


def test_every_page_answers_over_a_store_of_three_protocols_a_batch_and_a_bench(
    base: str, made: tuple[Path, Made]
) -> None:
    _, m = made
    listing = ok(base, "/debates")
    assert {"evaluate", "decide", "challenge"} <= set(cells(listing, 0))
    assert all(ok(base, f"/debates/{i}") for i in m.debates.values())
    assert m.batch_id in ok(base, "/batches")
    batch = ok(base, f"/batches/{m.batch_id}")
    assert 'id="count-done">6<' in batch and 'id="count-total">7<' in batch and 'id="count-failed">1<' in batch
    assert "<h2>Failures (1)</h2>" in batch and "HTTP 400" in batch  # the failure with its reason
    assert "broken-&lt;b&gt;item&lt;/b&gt;" in batch and "<b>item</b>" not in batch
    assert m.bench_key in ok(base, "/benches")
    bench = ok(base, f"/benches/{m.bench_key}")
    assert "Figures per strategy" in bench  # the bench report's own renderer
    linked = re.findall(r'class="debate-link" href="/debates/([^"]+)"', bench)
    assert len(linked) == 6 and all(ok(base, f"/debates/{i}") for i in linked)
    both = ok(base, f"/compare?a={m.debates['evaluate']}&b={m.debates['decide']}")
    assert m.debates["evaluate"] in both and m.debates["decide"] in both
    status, headers, _ = get(base, "/")
    assert status == 302 and headers["location"] == "/debates"


def test_a_debate_page_shows_what_the_report_shows_and_every_call_on_demand(base: str, made: tuple[Path, Made]) -> None:
    debate_id = made[1].debates["decide"]
    page = ok(base, f"/debates/{debate_id}")
    for heading in ("Recommendations per round", "What the debate changed", "Full text of every reply", "Cost"):
        assert heading in page
    assert "risk-judge" in page and "RECOMMENDED" in page
    calls = re.findall(rf'data-src="/debates/{debate_id}/calls/(\d+)\?part=1"', page)
    assert calls == [str(n) for n in range(1, len(calls) + 1)] and len(calls) == 6  # 3 judges x 2 rounds
    part = ok(base, f"/debates/{debate_id}/calls/1?part=1")
    assert part.startswith('<div class="call-body">') and "<h3>Prompt</h3>" in part and "<h3>Reply</h3>" in part
    assert "Should the mobile app support offline mode?" in part  # the prompt itself, unpacked from the store
    assert get(base, f"/debates/{debate_id}/calls/7")[0] == 404
    assert get(base, f"/debates/{debate_id}/calls/0")[0] == 404


def test_the_list_filters_sorts_searches_and_pages_and_its_url_keeps_them(
    base: str, made: tuple[Path, Made], monkeypatch: pytest.MonkeyPatch
) -> None:
    m = made[1]
    contested = ok(base, "/debates?verdict=CONTESTED")
    assert m.debates["contested"] in row_ids(contested)
    assert set(cells(contested, 2)) == {"CONTESTED"}
    assert set(cells(ok(base, "/debates?protocol=challenge"), 0)) == {"challenge"}
    in_batch = row_ids(ok(base, f"/debates?batch={m.batch_id}"))
    assert len(in_batch) == 7 and m.debates["evaluate"] not in in_batch  # the failed item's debate too
    assert set(cells(ok(base, f"/debates?batch={m.batch_id}&verdict=FAIL"), 2)) == {"FAIL"}
    assert set(row_ids(ok(base, "/debates?q=offline+mode"))) == {m.debates["decide"], m.debates["contested"]}  # title
    assert row_ids(ok(base, "/debates?q=whale")) == [m.debates["challenge"]]  # in the judges' text
    assert row_ids(ok(base, "/debates?since=2999-01-01")) == []
    assert len(row_ids(ok(base, "/debates?until=2999-01-01"))) == len(row_ids(ok(base, "/debates")))
    verdicts = cells(ok(base, "/debates?sort=verdict&dir=asc"), 2)
    words = [v for v in verdicts if v != "-"]  # the failed item's debate has none: last, either way
    assert verdicts == [*sorted(words), "-"] and len(set(words)) > 2
    assert cells(ok(base, "/debates?sort=verdict&dir=desc"), 2) == [*sorted(words, reverse=True), "-"]
    # links keep the filters: a sort header and the next page carry verdict= along
    page = ok(base, "/debates?verdict=CONTESTED&sort=time")
    assert re.search(r'href="/debates\?verdict=CONTESTED&amp;sort=protocol&amp;dir=desc&amp;page=1"', page)
    monkeypatch.setattr(debates_module, "PAGE_SIZE", 5)  # the server runs in this process
    first, second = ok(base, "/debates?page=1"), ok(base, "/debates?page=2")
    assert len(row_ids(first)) == 5 and not set(row_ids(first)) & set(row_ids(second))
    assert 'rel="next" href="/debates?sort=time&amp;dir=desc&amp;page=2"' in first


def test_judge_and_artifact_text_is_escaped_everywhere(base: str, made: tuple[Path, Made]) -> None:
    m = made[1]
    for name in ("evaluate", "decide", "challenge"):
        page = ok(base, f"/debates/{m.debates[name]}")
        assert "<script>document.title" not in page and 'id="injected"' not in page
        assert "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;" in page
    listing = ok(base, "/debates?protocol=evaluate")
    assert "&lt;i&gt;x&lt;/i&gt;" in listing and "<i>x</i>" not in listing  # the task in the title
    prompt = ok(base, f"/debates/{m.debates['evaluate']}/calls/1")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in prompt and "<script>alert(1)" not in prompt  # the artifact
    assert "<script>" not in ok(base, "/debates?q=%3Cscript%3E")  # a search echoed back


@pytest.mark.parametrize(
    "path",
    [
        "/debates/no-such-debate",
        "/debates/../../../etc/passwd",
        "/debates/..%2F..%2Fetc%2Fpasswd",
        "/batches/batch-000000000000",
        "/batches/no-such/progress.json",
        "/benches/no-such-run",
        "/benches/..",
        "/benches/..%2F..%2Fmoot.db",
        "/static/..%2Fapp.py",
        "/static/../app.py",
        "/static/%2e%2e%2fapp.py",
        "/static/moot.db",
        "/compare?a=nope",
        "/nowhere",
    ],
)
def test_unknown_ids_and_traversal_answer_404(base: str, path: str) -> None:
    status, _, body = get(base, path)
    assert status == 404, (path, status)
    assert "root:" not in body and "import " not in body


def test_an_id_prefix_is_not_a_page(base: str, made: tuple[Path, Made]) -> None:
    """`moot show` takes a prefix; a page's URL names exactly one debate."""
    assert get(base, f"/debates/{made[1].debates['decide'][:8]}")[0] == 404


def test_the_batch_progress_poll_answers_json(base: str, made: tuple[Path, Made]) -> None:
    status, headers, body = get(base, f"/batches/{made[1].batch_id}/progress.json")
    data = json.loads(body)
    assert status == 200 and headers["content-type"].startswith("application/json")
    assert data["total"] == 7 and data["counts"]["done"] == 6 and data["counts"]["failed"] == 1
    assert data["distribution"] == {"PASS": 4, "FAIL": 2}


def test_every_response_carries_a_strict_content_security_policy(base: str) -> None:
    for path in ("/debates", "/static/view.js", "/nowhere"):
        headers = get(base, path)[1]
        csp = headers["content-security-policy"]
        assert "script-src 'self';" in csp and "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
        assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"
    page = ok(base, "/debates")
    assert re.findall(r"<script[^>]*>", page) == ['<script src="/static/view.js" defer>']  # no inline script
    assert "http://" not in page.split("<main>")[0] and "https://" not in page  # nothing from elsewhere


def test_it_only_reads(base: str, made: tuple[Path, Made]) -> None:
    home = made[0]
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in home.glob("moot.db*")}
    for path in ("/debates", f"/debates/{made[1].debates['decide']}", f"/batches/{made[1].batch_id}", "/benches"):
        ok(base, path)
    assert get(base, "/debates", method="POST")[0] == 405
    assert get(base, "/debates", method="DELETE")[0] == 405
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in home.glob("moot.db*")}
    assert after == before
    store = ReadOnlyStore(home / "moot.db")
    with pytest.raises(StoreError, match="readonly database"):  # the store's one-line error, as a write on it
        store.execute("DELETE FROM debates")
    store.close()


def test_with_a_token_every_route_answers_401_without_it(made: tuple[Path, Made]) -> None:
    debate = made[1].debates["decide"]
    with serving(made[0], token=TOKEN) as url:
        for path in ("/", "/debates", f"/debates/{debate}", "/batches", "/benches", "/static/view.js", "/nowhere"):
            assert get(url, path)[0] == 401, path
        assert get(url, "/debates?token=wrong")[0] == 401
        assert get(url, "/debates", {"Cookie": "moot_view_token=wrong"})[0] == 401
        status, headers, _ = get(url, f"/debates?token={TOKEN}")
        assert status == 200
        cookie = headers["set-cookie"]
        assert cookie.startswith(f"moot_view_token={TOKEN};") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert get(url, f"/debates/{debate}", {"Cookie": f"moot_view_token={TOKEN}"})[0] == 200
        assert get(url, "/batches", {"Authorization": f"token {TOKEN}"})[0] == 200


def test_on_loopback_another_host_name_is_refused(base: str) -> None:
    """A site that rebinds its own name to 127.0.0.1 cannot read the store through the browser."""
    assert get(base, "/debates", {"Host": "evil.example:7777"})[0] == 403
    assert get(base, "/debates", {"Host": "localhost:7777"})[0] == 200


def test_an_empty_home_shows_empty_pages(tmp_path: Path) -> None:
    with serving(tmp_path / "nothing-here") as url:
        assert "No store yet" in ok(url, "/debates")
        assert "No batch yet" in ok(url, "/batches")
        assert "No bench run yet" in ok(url, "/benches")
        assert get(url, "/debates/abc")[0] == 404
    assert not (tmp_path / "nothing-here").exists()  # a viewer creates nothing


def run_moot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "moot", *args], capture_output=True, text=True, timeout=120)


def test_moot_view_without_its_extra_says_which_to_install() -> None:
    code = (
        "import sys; sys.modules['starlette'] = None\n"
        "from moot.cli.app import main\n"
        "sys.exit(main(['view', '--no-open']))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "pip install 'moot[view]'" in r.stderr and "Traceback" not in r.stderr


def test_moot_view_bad_host_is_bad_input() -> None:
    r = run_moot("view", "--host", "not a host", "--no-open")
    assert r.returncode == 2 and "--host" in r.stderr and "Traceback" not in r.stderr


def test_the_printed_url_carries_a_new_token_on_loopback_too() -> None:
    from moot.cli.view_cmd import address

    assert address("127.0.0.1", 7777, no_token=True) == ("http://127.0.0.1:7777/debates", None)
    assert address("::1", 7777, no_token=True) == ("http://[::1]:7777/debates", None)
    url, token = address("127.0.0.1", 7777)
    assert token and url == f"http://127.0.0.1:7777/debates?token={token}"
    url, token = address("0.0.0.0", 8000)  # nothing is bound here
    assert token and len(token) >= 24 and url == f"http://0.0.0.0:8000/debates?token={token}"
    assert address("0.0.0.0", 8000)[1] != token  # a new one every start


def test_moot_view_serves_the_store_and_prints_its_url(made: tuple[Path, Made]) -> None:
    from .view_store import free_port

    port = free_port()
    env = {**os.environ, "MOOT_HOME": str(made[0])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "moot", "view", "--port", str(port), "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        first, url = proc.stdout.readline(), proc.stdout.readline().strip()
        assert str(made[0] / "moot.db") in first and "read-only" in first
        assert url.startswith(f"http://127.0.0.1:{port}/debates?token=")  # on loopback too
        deadline = time.monotonic() + 30
        while True:
            try:
                page = ok(f"http://127.0.0.1:{port}", url.split(str(port), 1)[1])
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert made[1].debates["decide"] in page
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_a_core_install_is_told_what_view_md_says() -> None:
    """A core install has neither starlette nor uvicorn: the message is the one docs/view.md quotes."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "view.md").read_text(encoding="utf-8")
    said = re.search(r"Without the extra, `moot view` says `([^`]+)`", doc)
    assert said is not None
    code = (
        "import sys; sys.modules['starlette'] = None; sys.modules['uvicorn'] = None\n"
        "from moot.cli.app import main\n"
        "sys.exit(main(['view', '--no-open']))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr == f"moot: error: {said.group(1)}\n"
