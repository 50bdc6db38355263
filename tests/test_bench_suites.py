"""Bench suites (issue 11): JSONL gold files checked line by line, JudgeBench's pinned file (from a local copy,
or downloaded from a local server, checked by sha256 and cached), and seeded samples.

The JudgeBench tests run on tests/data/judgebench-sample.jsonl, pinned in place of the real file
(tests/judgebench_sample.py); the real file is checked against the real pin when a copy is beside the clone."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import moot.bench.judgebench as judgebench
from moot.bench.judgebench import CACHE_NAME, judgebench_items
from moot.bench.suites import load_suite
from moot.errors import UsageError
from moot.schemas.bench import PairwiseItem, ScoredItem

from .judgebench_sample import REAL, SAMPLE, SAMPLE_SHA256, pin_sample

PAIR = {"id": "p1", "question": "2+2?", "response_A": "4", "response_B": "5", "label": "A>B"}
SCORED = {"id": "s1", "task": "add two numbers", "artifact": "def add(a, b): return a - b", "gold": "fail"}


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def sample(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The sample, pinned as JudgeBench's file."""
    return pin_sample(monkeypatch)


def test_the_pin_names_one_commit_and_one_sha256() -> None:
    assert judgebench.COMMIT in judgebench.URL and judgebench.URL.startswith("https://raw.githubusercontent.com/")
    assert len(judgebench.SHA256) == 64 and int(judgebench.SHA256, 16) >= 0
    assert judgebench.COMMIT[:12] in judgebench.ABOUT and "2410.12784" in judgebench.ABOUT


@pytest.mark.skipif(not REAL.is_file(), reason=f"no copy of JudgeBench's real file at {REAL} (a fresh clone has none)")
def test_the_real_file_when_beside_the_clone_matches_the_real_pin() -> None:
    suite = load_suite("judgebench", data=REAL)
    assert len(suite.items) == 350
    assert Counter(i.gold for i in suite.items) == {"A>B": 193, "B>A": 157}
    assert Counter(i.source for i in suite.items) == {"livebench": 154, "mmlu": 154, "livecodebench": 42}


def test_judgebench_from_a_local_copy_maps_every_field(sample: Path, tmp_path: Path) -> None:
    suite = load_suite("judgebench", data=sample)
    assert (suite.name, suite.kind, len(suite.items)) == ("judgebench", "pairwise", 24)
    assert "2410.12784" in suite.about
    first = json.loads(sample.read_text(encoding="utf-8").splitlines()[0])
    item = suite.items[0]
    assert isinstance(item, PairwiseItem)
    assert (item.id, item.question, item.response_A, item.response_B, item.label) == (
        first["pair_id"],
        first["question"],
        first["response_A"],
        first["response_B"],
        first["label"],
    )
    assert Counter(i.gold for i in suite.items) == {"A>B": 14, "B>A": 10}
    assert Counter(i.source for i in suite.items) == {"livebench": 12, "mmlu": 8, "livecodebench": 4}
    assert not (tmp_path / "moot-home" / "bench").exists()  # a local copy is used, not cached


def test_a_local_copy_that_is_not_the_pinned_file_is_refused(sample: Path, tmp_path: Path) -> None:
    changed = tmp_path / "judgebench.jsonl"
    changed.write_bytes(sample.read_bytes().replace(b'"A>B"', b'"B>A"', 1))
    with pytest.raises(UsageError, match="is not the pinned file"):
        load_suite("judgebench", data=changed)
    with pytest.raises(UsageError, match="cannot read"):
        load_suite("judgebench", data=tmp_path / "missing.jsonl")


def test_without_the_test_pin_the_sample_is_refused_as_not_the_real_file() -> None:
    with pytest.raises(UsageError, match=rf"is not the pinned file \(sha256 {SAMPLE_SHA256[:16]}"):
        load_suite("judgebench", data=SAMPLE)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A local HTTP server over a folder: (its base URL, the folder)."""
    root = tmp_path / "www"
    root.mkdir()

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(root), **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


def test_first_use_downloads_checks_and_caches_then_reads_the_cache(
    served: tuple[str, Path], isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, root = served
    pin_sample(monkeypatch, url=f"{base}/jb.jsonl")
    (root / "jb.jsonl").write_bytes(SAMPLE.read_bytes())
    items = load_suite("judgebench").items  # no --data: the pinned URL, downloaded
    cached = isolated_home / "bench" / CACHE_NAME
    assert len(items) == 24
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == SAMPLE_SHA256
    (root / "jb.jsonl").unlink()  # the server no longer has it: the cache answers
    assert load_suite("judgebench").items == items


def test_a_corrupted_download_is_refused_and_nothing_is_cached(
    served: tuple[str, Path], isolated_home: Path, sample: Path
) -> None:
    base, root = served
    (root / "jb.jsonl").write_bytes(sample.read_bytes()[:-100])
    with pytest.raises(UsageError, match=r"is not the pinned file .*nothing was cached"):
        judgebench_items(url=f"{base}/jb.jsonl")
    assert not (isolated_home / "bench" / CACHE_NAME).exists()
    with pytest.raises(UsageError, match=r"could not download .*--data PATH"):
        judgebench_items(url=f"{base}/missing.jsonl")


def test_a_corrupted_cache_is_downloaded_again(isolated_home: Path, sample: Path) -> None:
    cached = isolated_home / "bench" / CACHE_NAME
    cached.parent.mkdir(parents=True)
    cached.write_text("not the file\n", encoding="utf-8")
    items = judgebench_items(url=sample.as_uri())  # file://, through the same download path
    assert len(items) == 24
    assert cached.read_bytes() == sample.read_bytes()


def test_a_seeded_sample_is_stable_nested_and_in_file_order(sample: Path) -> None:
    ten = [i.id for i in load_suite("judgebench", data=sample, limit=10, seed=5).items]
    assert ten == [i.id for i in load_suite("judgebench", data=sample, limit=10, seed=5).items]
    assert len(set(ten)) == 10
    assert ten != [i.id for i in load_suite("judgebench", data=sample, limit=10, seed=6).items]
    twenty = [i.id for i in load_suite("judgebench", data=sample, limit=20, seed=5).items]
    assert set(ten) <= set(twenty)
    every = [i.id for i in load_suite("judgebench", data=sample).items]
    assert ten == sorted(ten, key=every.index)
    assert len(load_suite("judgebench", data=sample, limit=1000).items) == 24
    with pytest.raises(UsageError, match="--limit must be at least 1"):
        load_suite("judgebench", data=sample, limit=0)


def test_jsonl_files_of_either_shape_load(tmp_path: Path) -> None:
    pairs = load_suite(write_jsonl(tmp_path / "p.jsonl", [PAIR, "", {**PAIR, "id": 2, "label": "B>A"}]))
    assert pairs.kind == "pairwise"
    assert [(i.id, i.gold) for i in pairs.items] == [("p1", "A>B"), ("2", "B>A")]
    scored = load_suite(write_jsonl(tmp_path / "s.jsonl", [SCORED, {**SCORED, "id": "s2", "gold": "pass"}]))
    assert scored.kind == "scored"
    assert all(isinstance(i, ScoredItem) for i in scored.items)
    assert [i.gold for i in scored.items] == ["fail", "pass"]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [PAIR, {k: v for k, v in PAIR.items() if k != "label"}],
            r"p\.jsonl:2 \(pairwise item\): label: Field required",
        ),
        ([PAIR, {**PAIR, "id": "p2", "label": "A=B"}], r":2 \(pairwise item\): label: Input should be 'A>B' or 'B>A'"),
        (
            [SCORED, {**SCORED, "id": "s2", "gold": "PASS"}],
            r":2 \(scored item\): gold: Input should be 'pass' or 'fail'",
        ),
        ([PAIR, {**PAIR, "id": "p2", "lable": "A>B"}], r":2 \(pairwise item\): lable: unknown key"),
        ([PAIR, {**PAIR, "id": " "}], r":2 \(pairwise item\): id: the id cannot be empty"),
        ([PAIR, SCORED], r":2: a scored item in a file of pairwise items"),
        ([PAIR, PAIR], r":2: id 'p1' is already used on line 1"),
        (["{not json"], r":1: not valid JSON"),
        ([[1, 2]], r":1: an item is a JSON object, not list"),
        ([{"id": "x", "text": "hello"}], r":1: neither a pairwise item .* nor a scored one"),
        ([], r"no items"),
    ],
)
def test_a_line_that_fits_neither_shape_is_bad_input_naming_the_line(
    tmp_path: Path, rows: list[object], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        load_suite(write_jsonl(tmp_path / "p.jsonl", rows))


def test_an_unknown_suite_and_data_for_another_suite_are_bad_input(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"no suite named 'judgebnch' .*judgebench, humaneval-bugs"):
        load_suite("judgebnch")
    gold = write_jsonl(tmp_path / "p.jsonl", [PAIR])
    with pytest.raises(UsageError, match=r"--data .* goes with the suite 'judgebench'"):
        load_suite(gold, data=SAMPLE)
