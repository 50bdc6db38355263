"""A debate moved between stores (how the Ray backend's workers hand debates back to the driver): the
export is plain JSON, the import is idempotent and merges with a partial copy, and the moved debate
reads and resumes in its new store as in its old one."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

import moot
from moot.api.history import debate_view
from moot.errors import DebateAborted, UsageError
from moot.store import Store
from moot.store.transfer import export_debate, import_debate
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, round1, round2
from .test_store_blobs import call, code_like

DOWN = Reply(status=503)


def shipped(store: Store, debate_id: str) -> dict[str, Any]:
    """An export as it travels: through JSON, as a Ray task's return value could."""
    return json.loads(json.dumps(export_debate(store, debate_id)))


def history(store: Store, debate_id: str) -> list[tuple[str, int, str, str, str | None]]:
    return [(c.call_key, c.attempt, c.status, c.prompt_json, c.reply) for c in store.attempts(debate_id)]


def judges(path: Path, base: str) -> Path:
    seats = [
        {"model": m, "stance": s, "api_base": base} for m, s in zip("abc", ("neutral", "for", "against"), strict=True)
    ]
    path.write_text(yaml.safe_dump({"debate_judges": seats, "retry": {"max_retries": 0}}), encoding="utf-8")
    return path


def test_a_debate_moves_between_stores_resumes_there_and_comes_back_once(
    llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    solution = tmp_path / "plan.ts"
    solution.write_text(code_like(60_000), encoding="utf-8")
    panel = judges(tmp_path / "j.yaml", llm_server.base_url)
    # a worker's store: two vendors down, the debate fails after round 1's first call
    llm_server.script("a", round1(4.0, 4))
    llm_server.script("b", DOWN)
    llm_server.script("c", DOWN)
    worker = Store(tmp_path / "worker.db")
    with pytest.raises(DebateAborted):
        moot.evaluate_sync(str(solution), criteria=CRITERIA, judges=panel, store=worker, reports_dir=None)
    (row,) = worker.list_debates()
    partial = shipped(worker, row.id)
    assert len(json.dumps(partial)) < 2 * 60_000  # the artifact in the request and three prompts, once

    # the driver keeps the partial copy; another worker, with a fresh store, gets it and resumes it
    driver = Store(tmp_path / "driver.db")
    import_debate(driver, partial)
    assert history(driver, row.id) == history(worker, row.id)
    second = Store(tmp_path / "second.db")
    import_debate(second, shipped(driver, row.id))
    llm_server.script("b", round1(4.2, 4), round2(4.1))
    llm_server.script("c", round1(3.0, 3), round2(3.8))
    llm_server.script("a", round2(4.0))
    before = len(llm_server.requests)
    result = moot.resume_sync(row.id, store=second)
    assert sorted(r.model for r in llm_server.requests[before:]) == ["a", "b", "b", "c", "c"]  # a's round 1 replayed

    # back to the driver, over its partial copy: every attempt once, failures that were asked again included
    done = shipped(second, row.id)
    for _ in range(2):
        import_debate(driver, done)
    assert history(driver, row.id) == history(second, row.id)
    assert sorted((k, n, s) for k, n, s, _, _ in history(driver, row.id) if k.startswith("r1/")) == [
        ("r1/judge-1", 1, "ok"),
        ("r1/judge-2", 1, "error"),
        ("r1/judge-2", 2, "ok"),
        ("r1/judge-3", 1, "error"),
        ("r1/judge-3", 2, "ok"),
    ]
    assert debate_view(driver, driver.get_debate(row.id)) == result.model_dump(mode="json")  # type: ignore[arg-type]
    assert driver.rounds(row.id) == second.rounds(row.id)
    # the stale partial copy arriving late changes nothing
    import_debate(driver, partial)
    assert history(driver, row.id) == history(second, row.id)
    stored = driver.get_debate(row.id)
    assert stored is not None and stored.status == "finished" and stored.request == row.request


def test_an_attempt_whose_number_is_taken_goes_after_the_stores_own(tmp_path: Path) -> None:
    prompt = json.dumps({"system": code_like(20_000), "messages": []})
    here, there = Store(tmp_path / "here.db"), Store(tmp_path / "there.db")
    for store, name in ((here, "mine"), (there, "theirs")):  # the same call, asked twice in each store
        store.create_debate("d", "evaluate", {"artifact": code_like(20_000)})
        store.record_call(call("r1/judge-1", prompt, status="error", started_at=f"{name} 1"))
        store.record_call(call("r1/judge-1", prompt, started_at=f"{name} 2", reply=name))
    there.mark_section("d", "report.md", "round-1")
    import_debate(here, shipped(there, "d"))
    assert [(c.attempt, c.reply) for c in here.attempts("d")] == [(1, "r"), (2, "mine"), (3, "r"), (4, "theirs")]
    replayed = here.find_call("d", "r1/judge-1")
    assert replayed is not None and replayed.reply == "theirs" and replayed.prompt_json == prompt
    assert here.has_section("d", "report.md", "round-1")


def test_damaged_or_foreign_data_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    source = Store(tmp_path / "source.db")
    source.create_debate("d", "evaluate", {"artifact": code_like(50_000)})
    source.record_call(call("r1/judge-1", json.dumps({"system": code_like(50_000), "messages": []})))
    good = shipped(source, "d")
    tampered = copy.deepcopy(good)
    key = next(k for k in tampered["blobs"] if not k.startswith("m"))
    tampered["blobs"][key] = tampered["blobs"][key].replace("const", "CONST", 1)
    missing = copy.deepcopy(good)
    missing["blobs"].pop(key)
    stray = copy.deepcopy(good)
    stray["calls"][0]["debate_id"] = "other"
    target = Store(tmp_path / "target.db")
    for bad, why in (
        (tampered, "does not hold the text"),
        (missing, "neither exported nor stored"),
        (stray, "holds calls of other"),
        ({**good, "format": "something/2"}, "not a moot debate export"),
        ({**good, "calls": [{"call_key": "x"}]}, "validation error"),
    ):
        with pytest.raises(ValueError, match=why):
            import_debate(target, bad)
        assert target.list_debates() == [] and target.execute("SELECT COUNT(*) FROM blobs")[0][0] == 0
    with pytest.raises(UsageError, match="no debate nope"):
        export_debate(source, "nope")
