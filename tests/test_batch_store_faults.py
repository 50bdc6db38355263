"""A store that cannot be used: damaged, foreign, emptied or full. Each is one line naming the file, exit 2,
and no call; a full disk mid-batch stops the batch at once and keeps what was answered, so that the next
run, once there is space, pays for no call twice. The full disk is real: SQLite's own SQLITE_FULL
("database or disk is full"), from a page limit in-process and from a small tmpfs with a real process."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from moot.batch import run_batch
from moot.cli.app import main
from moot.errors import shown_path
from moot.store.db import Store, StoreError, StoreFull
from moot.testing import FakeLLMServer

from .test_batch_resume import _item_of
from .test_batch_support import EVALUATE_MODELS, item, judges_for, read_results, serve, write_items

N = 16


def _batch_cli(items: Path, judges: Path, home: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "moot", "batch", str(items), "--protocol", "evaluate", "--judges", str(judges)]
    env = {**os.environ, "MOOT_HOME": str(home)}
    return subprocess.run([*cmd, "--format", "json"], env=env, capture_output=True, text=True, timeout=180)


def _spilled(results: Path) -> list[dict[str, object]]:
    spill = results.with_name(results.name + ".unsaved.jsonl")
    return [json.loads(line) for line in spill.read_text().splitlines()] if spill.exists() else []


def _assert_paid_once(server: FakeLLMServer, db: Path, kept: list[dict[str, object]], in_flight: int) -> None:
    """Every call ended answered once; the calls kept beside the results were stored and never asked again."""
    sent = Counter((_item_of(r.body), r.model) for r in server.requests)
    assert all(sent[(n, m)] >= 1 for n in range(N) for m in EVALUATE_MODELS)
    assert sum(count - 1 for count in sent.values()) <= in_flight
    with sqlite3.connect(db) as con:
        for call in kept:  # stored by the rerun, once, and replayed: never asked again
            rows = con.execute(
                "SELECT status FROM calls WHERE debate_id = ? AND call_key = ?", (call["debate_id"], call["call_key"])
            ).fetchall()
            assert rows == [("ok",)]
            n = _item_of({"t": json.loads(str(call["prompt_json"]))})
            assert sent[(n, str(call["answered_by"]))] == 1, call["call_key"]


def test_a_full_store_mid_batch_stops_it_and_keeps_the_answered_calls(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server, delays={"ev-against": 0.05})
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(N)])
    results = tmp_path / "items.results.jsonl"
    db = isolated_home / "moot.db"
    store = Store(db)
    pages = store.execute("PRAGMA page_count")[0][0]
    store.execute(f"PRAGMA max_page_count = {pages + 40}")  # SQLite's own SQLITE_FULL once it is reached

    with pytest.raises(StoreFull) as stopped:
        asyncio.run(run_batch(items, "evaluate", judges=judges, store=store, concurrency=4))
    message = str(stopped.value)
    assert message.startswith(
        f"the store {shown_path(db)} cannot be written (database or disk is full): the batch stopped;"
    )
    sent_at_stop = len(llm_server.requests)
    assert sent_at_stop < N * 3  # stopped at once: not every item went on to fail in turn
    kept = _spilled(results)
    # which write hits the limit first varies: a call's row (its answer kept beside the results, or stored
    # once rows were rolled back), or an item's or a debate's row (no answer held)
    assert (
        f"{len(kept)} answered calls were kept in {results}.unsaved.jsonl" in message
        if kept
        else ("no answered call was lost" in message or "answered calls it held were stored after all" in message)
    ), message
    store.close()

    code = main(["batch", str(items), "--protocol", "evaluate", "--judges", str(judges), "--format", "json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["done"] == N
    assert not _spilled(results)
    assert sorted(line["id"] for line in read_results(results)) == sorted(f"e{n}" for n in range(N))
    _assert_paid_once(llm_server, db, kept, in_flight=4 * 3)


@pytest.fixture
def small_disk(tmp_path: Path) -> object:
    """A 320 KB tmpfs (root only): a real full disk, ENOSPC from the kernel."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=320k", "tmpfs", str(folder)], check=False).returncode:
        pytest.skip("cannot mount a tmpfs here")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_real_full_disk_stops_a_batch_process_and_the_rerun_pays_nothing_twice(
    llm_server: FakeLLMServer, tmp_path: Path, small_disk: Path
) -> None:
    serve(llm_server, delays={"ev-against": 0.05})
    judges = judges_for("evaluate", tmp_path, llm_server)
    big = [{**item("evaluate", n), "task": f"add {n} " + "x" * 24_000 + str(n)} for n in range(N)]
    items = write_items(tmp_path / "items.jsonl", big)
    results = tmp_path / "items.results.jsonl"
    home = small_disk / "home"

    first = _batch_cli(items, judges, home)
    assert first.returncode == 2, first.stderr
    (line,) = first.stderr.strip().splitlines()
    assert line.startswith(
        f"moot: error: the store {shown_path(home / 'moot.db')} cannot be written (database or disk is full)"
    )
    assert "the batch stopped" in line and "Traceback" not in first.stderr
    kept = _spilled(results)

    subprocess.run(["mount", "-o", "remount,size=32m", str(small_disk)], check=True)  # space freed
    again = _batch_cli(items, judges, home)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["done"] == N
    assert len(read_results(results)) == N
    _assert_paid_once(llm_server, home / "moot.db", kept, in_flight=8 * 3)


@pytest.mark.parametrize("damage", ["garbage", "half", "directory"])
def test_a_damaged_store_is_one_line_exit_2_and_no_call(
    damage: str,
    llm_server: FakeLLMServer,
    tmp_path: Path,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(4)])
    db = isolated_home / "moot.db"
    store = Store(db)
    for n in range(300):
        store.create_debate(f"d{n}", "evaluate", {"text": f"{n} " * 2000})
    store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    whole = db.read_bytes()
    if damage == "garbage":
        db.write_bytes(os.urandom(len(whole)))
    elif damage == "half":
        db.write_bytes(whole[: len(whole) // 2])
    else:
        db.unlink()
        db.mkdir()
    sent = len(llm_server.requests)

    code = main(["batch", str(items), "--protocol", "evaluate", "--judges", str(judges)])
    err = capsys.readouterr().err
    assert code == 2
    (line,) = err.strip().splitlines()
    assert line.startswith(f"moot: error: the store {shown_path(db)} ")
    assert line.endswith("restore it or point MOOT_HOME elsewhere")
    assert len(llm_server.requests) == sent
    for command in (["list"], ["show", "d1"]):
        assert main(command) == 2
        assert capsys.readouterr().err.strip().endswith("restore it or point MOOT_HOME elsewhere")


def test_an_emptied_store_is_refused_for_a_batch_it_should_hold(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(4)])
    argv = ["batch", str(items), "--protocol", "evaluate", "--judges", str(judges), "--format", "json"]
    assert main(argv) == 0
    capsys.readouterr()
    sent = len(llm_server.requests)
    db = isolated_home / "moot.db"
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    db.write_bytes(b"")  # zero length: SQLite would open it as a new, empty store

    assert main(argv) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == (
        f"moot: error: the store {shown_path(db)} lacks 4 of the 4 finished debates that {tmp_path / 'items.results.jsonl'} "
        "names: restore it or point MOOT_HOME elsewhere, or move items.results.jsonl aside to start the batch afresh"
    )
    assert len(llm_server.requests) == sent  # nothing paid again
    assert len(read_results(tmp_path / "items.results.jsonl")) == 4  # the results are untouched


def test_store_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "moot.db"
    path.write_bytes(b"SQLite format 3\0" + b"\xff" * 200)
    with pytest.raises(StoreError, match=f"the store {shown_path(path)} .*restore it or point MOOT_HOME elsewhere"):
        Store(path)


def test_a_read_only_store_is_one_line_and_no_call(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(2)])
    home = tmp_path / "ro-home"
    home.mkdir()
    Store(home / "moot.db").close()
    if os.geteuid() == 0:  # root ignores modes: a read-only mount
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(home)], check=False).returncode:
            pytest.skip("cannot mount a tmpfs here")
        Store(home / "moot.db").close()
        subprocess.run(["mount", "-o", "remount,ro", str(home)], check=True)
    else:
        (home / "moot.db").chmod(0o444)
        home.chmod(0o555)
    try:
        done = _batch_cli(items, judges, home)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", "-l", str(home)], check=False)
        else:
            home.chmod(0o755)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"moot: error: the store {shown_path(home / 'moot.db')} is read-only (on a read-only file system, or without write "
        "permission): make it and its folder writable, or point MOOT_HOME elsewhere"  # healthy: nothing to restore
    ]
    assert llm_server.requests == []


def test_an_answered_call_a_full_store_refused_is_spilled_and_stored_by_the_next_run(tmp_path: Path) -> None:
    from moot.batch.spill import keep_unsaved, restore_unsaved
    from moot.store.db import CallRecord

    def call(n: int) -> CallRecord:
        prompt = json.dumps({"x": f"{n} " * 3000})  # distinct text: its own pages
        return CallRecord("d1", f"r1/judge-{n}", 1, f"judge-{n}", "position", "m", prompt, "ok", reply=f"answer {n}")

    db = tmp_path / "moot.db"
    store = Store(db)
    store.create_debate("d1", "evaluate", {})
    pages = store.execute("PRAGMA page_count")[0][0]
    store.execute(f"PRAGMA max_page_count = {pages + 2}")
    with pytest.raises(StoreFull, match="database or disk is full"):
        for n in range(50):
            store.record_call(call(n))
    assert len(store.unsaved) == 1
    refused = store.unsaved[0]
    assert store.find_call("d1", refused.call_key) is None
    results = tmp_path / "r.jsonl"
    assert keep_unsaved(store, results).startswith(f"1 answered calls were kept in {results}.unsaved.jsonl")
    store.close()

    again = Store(db)  # room again (the limit was that connection's)
    assert restore_unsaved(again, results) == 1
    stored = again.find_call("d1", refused.call_key)
    assert stored is not None and stored.reply == refused.reply and stored.attempt == 1
    assert not (tmp_path / "r.jsonl.unsaved.jsonl").exists()
    assert restore_unsaved(again, results) == 0
