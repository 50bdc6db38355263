"""ITEMS.jsonl read into the protocol functions' arguments: paths beside the items file, the batch's
defaults, options as an object, ids as written; and the batch-wide cost cap's rule, to its boundary."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from moot.batch.cap import CostCap, fits
from moot.batch.items import load_items
from moot.errors import UsageError


def _items(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "set" / "items.jsonl"
    path.parent.mkdir(exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_decide_and_challenge_items_become_api_arguments(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "q.yaml").write_text("debate_context: {}\n", encoding="utf-8")
    (folder / "design.md").write_text("# design\n", encoding="utf-8")
    decide = _items(
        tmp_path,
        {"id": 7, "question": "Which?", "options": {"A": "Redis", "B": {"label": "Memcached", "description": "d"}}},
        {"id": "q", "debate_context": "q.yaml", "feature_dir": "out"},
    )
    first, second = load_items(decide, "decide")
    assert (first.id, first.given_id, first.line) == ("7", 7, 1)
    assert first.arguments == {
        "write_files": False,  # a batch writes no decision files unless an item asks
        "question": "Which?",
        "options": [{"id": "A", "label": "Redis"}, {"id": "B", "label": "Memcached", "description": "d"}],
    }
    assert second.arguments["debate_context"] == str(folder / "q.yaml")
    assert second.arguments["feature_dir"] == str(folder / "out")

    challenge = _items(tmp_path, {"id": "c", "topic": "Shard?", "context": ["design.md"], "judges": [{"model": "m"}]})
    (only,) = load_items(challenge, "challenge")
    assert only.arguments == {"topic": "Shard?", "context": [str(folder / "design.md")]}
    assert only.judges == [{"model": "m"}]  # inline judges pass through


def test_evaluate_inline_artifact_and_defaults(tmp_path: Path) -> None:
    (only,) = load_items(_items(tmp_path, {"id": "a", "artifact": "x = 1", "task": "t"}), "evaluate")
    assert only.arguments["reports_dir"] is None  # no report files by default
    (art,) = only.arguments["artifacts"]
    assert (art.path, art.text) == ("a", "x = 1")
    with pytest.raises(UsageError, match="line 1: give one of 'solution' or 'artifact', not both"):
        load_items(_items(tmp_path, {"id": "a", "artifact": "x", "solution": "y"}), "evaluate")
    with pytest.raises(UsageError, match="line 2: a challenge item needs 'topic'"):
        load_items(_items(tmp_path, {"id": "a", "topic": "x"}, {"id": "b", "topic": " "}), "challenge")
    with pytest.raises(UsageError, match="holds no items"):
        load_items(_items(tmp_path), "challenge")


def test_the_cap_admits_a_debate_only_while_its_worst_case_fits() -> None:
    assert fits(1.0, 2.0, 7.0, 10.0) and not fits(1.0, 2.0, 7.01, 10.0)

    async def scenario() -> tuple[float | None, float | None, float | None, float]:
        cap = CostCap(10.0, {"old": 3.0})  # $3 spent by an earlier run
        first = await cap.reserve("a", 5.0)  # 3 + 5 <= 10
        refused_alone = await CostCap(1.0).reserve("x", 2.0)  # never fits: refused at once
        waiting = asyncio.ensure_future(cap.reserve("b", 5.0))  # 3 + 5 + 5 > 10: waits for "a"
        await asyncio.sleep(0)
        assert not waiting.done()
        await cap.release("a", 0.5)  # "a" spent 0.5 of its 5
        second = await waiting
        resumed = await cap.reserve("old", 1.0)  # its $3 move into its own cap: 3 + 1
        return first, refused_alone, second, resumed or 0.0

    first, refused, second, resumed = asyncio.run(scenario())
    assert (first, refused, second, resumed) == (5.0, None, 5.0, 4.0)
