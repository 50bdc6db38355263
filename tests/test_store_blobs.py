"""Content stored once: a debate's artifact and system prompt are kept once in the store, not in every call
row, and every reader gets back exactly the text that was written."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest

import moot
from moot.schemas.messages import Message, Prompt
from moot.store import CallRecord, Store
from moot.store.blobs import LONG, MAX_CHUNK, MIN_CHUNK, PACKED_PREFIX, chunk, long_spans
from moot.testing import FakeLLMServer

from .replies import CRITERIA, round1, round2, round3

MODERATOR = (
    "majority_opinion: Mixed.\nrecommendations:\n  - priority: SHOULD\n    action: Add tests\n"
    "self_critique: {questions_passed: 5/5, synthesis_quality: HIGH, potential_bias: none}\nconsensus_score: 0.5\n"
)


def code_like(size: int, seed: int = 7) -> str:
    """Source-like text: lines of varied length, quotes, backslashes, tabs and some non-ASCII."""
    rng = random.Random(seed)
    words = ["user", "order", "return", "const", "await", "if", '"id"', "value", "naïve", "\\n", "→", "\tname"]
    lines: list[str] = []
    total = 0
    while total < size:
        line = f"  const v{len(lines)} = " + " ".join(rng.choice(words) for _ in range(rng.randint(0, 14))) + ";"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


def call(
    key: str, prompt_json: str, *, debate: str = "d", status: str = "ok", reply: str = "r", **extra: object
) -> CallRecord:
    return CallRecord(debate, key, 1, key, "judge", "m", prompt_json, status, reply=reply, **extra)  # type: ignore[arg-type]


def file_bytes(path: Path, store: Store) -> int:
    store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


# ---------------------------------------------------------------- chunking, a pure function


@pytest.mark.parametrize(
    "text",
    ["", "x", "\n", "\n\n\n", "a" * (3 * MAX_CHUNK + 5), code_like(200_000), "é→" * 70_000 + "\n" + "z" * 10],
)
def test_chunks_concatenate_to_the_text_and_stay_within_bounds(text: str) -> None:
    pieces = chunk(text)
    assert "".join(pieces) == text
    assert all(0 < len(p) <= MAX_CHUNK for p in pieces)
    assert all(len(p) >= MIN_CHUNK for p in pieces[:-1])


def test_an_artifact_gets_the_same_chunks_alone_and_inside_a_longer_text() -> None:
    art = code_like(400_000)
    alone = chunk(art)
    inside = set(chunk("You are a judge. Rules...\n<artifact>\n" + art + "\n</artifact>\nReply in YAML.\n"))
    shared = sum(len(p) for p in alone if p in inside)
    assert shared >= 0.85 * len(art)
    assert 8 <= len(alone) <= 80  # about AVG_CHUNK each, not one per line nor one for everything


def test_long_spans_finds_long_string_contents_and_recognises_known_ones() -> None:
    long = 'a\\"b\\n' * LONG
    text = json.dumps({"short": "x" * 10, "k": "y"}) + f'["{long}", "z", "{long}"]'
    spans = long_spans(text)
    assert [text[a:b] for a, b, _ in spans] == [long, long]
    assert [i for _, _, i in long_spans(text, ["nope", long])] == [1, 1]
    assert long_spans('{"a": "' + "b" * (LONG - 1) + '"}') == []


# ---------------------------------------------------------------- the store reads back what was written


def test_prompts_and_requests_read_back_byte_for_byte(tmp_path: Path) -> None:
    art = code_like(300_000)
    store = Store(tmp_path / "m.db")
    request = {"artifacts": [{"path": "a.ts", "text": art}], "task": "t", "note": "\ud800 lone"}
    store.create_debate("d", "evaluate", request)
    prompts = {
        # pydantic's JSON (text as text), the stdlib's (ASCII only), one with escapes neither writes ("\/")
        "r1/judge-1": Prompt(system="rules\n" + art, messages=[Message(role="user", content="go é")]).model_dump_json(),
        "r1/judge-2": json.dumps({"system": "rules\n" + art, "messages": [], "meta": {"seat": 2}}),
        "r1/judge-3": '{"system": "' + ("a\\/b " * LONG) + '", "messages": []}',
    }
    for key, prompt in prompts.items():
        store.record_call(call(key, prompt))
    # kept once: the artifact is in the request and in two prompts (its non-ASCII text is 2-3 bytes a char)
    assert file_bytes(tmp_path / "m.db", store) < 1.2 * len(art.encode()) + 24_000 + 60_000
    odd = {"r1/judge-4": PACKED_PREFIX + '"parts": ["not really packed"]}', "r1/judge-5": "not JSON " + art}
    for key, prompt in odd.items():
        store.record_call(call(key, prompt))
    prompts |= odd
    for reader in (store, Store(tmp_path / "m.db")):  # the writer's memory, and a fresh one reading the file
        assert {c.call_key: c.prompt_json for c in reader.calls("d")} == prompts
        assert [c.prompt_json for c in reader.attempts("d")] == list(prompts.values())
        found = reader.find_call("d", "r1/judge-1")
        assert found is not None and found.prompt_json == prompts["r1/judge-1"]
        row = reader.get_debate("d")
        assert row is not None and row.request == request
        assert [r.request for r in reader.list_debates()] == [request]
    store.update_request("d", {**request, "task": "new"})
    row = Store(tmp_path / "m.db").get_debate("d")
    assert row is not None and row.request["task"] == "new" and row.request["artifacts"][0]["text"] == art


def test_rows_written_before_packing_still_read(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    Store(path).close()  # the schema as it is today; rows as older versions wrote them, unpacked
    big = Prompt(system="rules\n" + code_like(50_000), messages=[Message(role="user", content="hi")])
    request = {"artifacts": [{"text": code_like(50_000)}], "judges": ["a"]}
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO debates (id, protocol, status, request_json, created_at, updated_at)"
            " VALUES ('old', 'evaluate', 'interrupted', ?, 't', 't')",
            (json.dumps(request),),
        )
        db.execute(
            "INSERT INTO calls (debate_id, call_key, round, seat, kind, model, prompt_json, status,"
            " started_at, finished_at) VALUES ('old', 'r1/judge-1', 1, 'judge-1', 'judge', 'm', ?, 'ok', 't', 't')",
            (big.model_dump_json(),),
        )
    store = Store(path)
    row = store.get_debate("old")
    assert row is not None and row.request == request
    found = store.find_call("old", "r1/judge-1")
    assert found is not None and found.prompt_json == big.model_dump_json()
    store.record_call(call("r1/judge-2", big.model_dump_json(), debate="old"))  # a new row beside the old
    assert [c.prompt_json for c in store.calls("old")] == [big.model_dump_json()] * 2


def test_spend_can_be_read_without_unpacking_any_prompt(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.db")
    prompt = Prompt(system=code_like(100_000), messages=[]).model_dump_json()
    store.record_call(call("r1/judge-1", prompt, cost_usd=0.25, input_tokens=10))
    store.record_call(call("r1/judge-2", prompt, status="error"))
    bare = store.calls("d", prompts=False)
    assert [c.prompt_json for c in bare] == ["", ""]
    full = store.calls("d")
    assert [(c.call_key, c.cost_usd, c.input_tokens, c.attempt) for c in bare] == [
        (c.call_key, c.cost_usd, c.input_tokens, c.attempt) for c in full
    ]
    assert [c.prompt_json for c in store.attempts("d", prompts=False)] == ["", ""]


def test_a_call_that_fails_to_write_leaves_no_blobs_and_is_not_remembered_as_stored(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.db")
    prompt = Prompt(system=code_like(100_000), messages=[]).model_dump_json()
    with pytest.raises(sqlite3.IntegrityError):
        store.record_call(call("r1/judge-1", prompt, answered_by=None))  # NOT NULL: the row is refused
    assert store.execute("SELECT COUNT(*) FROM blobs")[0][0] == 0
    store.record_call(call("r1/judge-1", prompt))
    assert Store(tmp_path / "m.db").calls("d")[0].prompt_json == prompt


# ---------------------------------------------------------------- a real debate with a 1 MB artifact


def test_a_1mb_artifact_debate_is_stored_once_and_resumes_from_packed_rows(
    llm_server: FakeLLMServer, judges_file, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    art = code_like(1_000_000)
    solution = tmp_path / "big.ts"
    solution.write_text(art, encoding="utf-8")
    llm_server.script("judge-a", round1(3.6, 4), round2(3.5), round3(3.5))
    llm_server.script("judge-b", round1(4.3, 4), round2(3.9), round3(3.8))
    llm_server.script("judge-c", round1(2.8, 3), round2(3.0), round3(2.9))
    llm_server.script("mod", MODERATOR, MODERATOR)
    judges = judges_file(moderator={"model": "mod", "api_base": llm_server.base_url})
    path = tmp_path / "batch.db"
    store = Store(path)
    first = moot.evaluate_sync(str(solution), criteria=CRITERIA, judges=judges, store=store, reports_dir=None)
    assert first.rounds_completed == 3 and first.spend.calls == 10

    size = file_bytes(path, store)
    assert size <= 1.2 * len(art.encode()) + 100_000, size  # it was 11.3 MB when every row held the artifact

    # what each call sent is what the store gives back (the server saw the same system and messages)
    stored = [json.loads(c.prompt_json) for c in Store(path).calls(first.debate_id)]
    sent = [r.body["messages"] for r in llm_server.requests]
    as_sent = [[{"role": "system", "content": p["system"]}, *p["messages"]] for p in stored]
    assert sorted(map(json.dumps, as_sent)) == sorted(map(json.dumps, sent))
    assert sum(art in p["system"] for p in stored) == 9  # every judge's call sends it; the moderator's does not

    # killed while judge-c answered round 3: a resume in a fresh process replays all nine others
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM calls WHERE call_key IN ('r3/judge-3', 'moderator')")
        db.execute("UPDATE debates SET status = 'interrupted', result_json = NULL")
    llm_server.script("judge-c", round3(2.9))
    before = len(llm_server.requests)
    resumed = moot.resume_sync(first.debate_id, store=Store(path))
    assert [r.model for r in llm_server.requests[before:]] == ["judge-c", "mod"]
    assert resumed.model_dump()["summary"] == first.model_dump()["summary"]
