"""A word added to a reply model of a copy of `challenge` (its verdict `abstain`, with its meaning: status
`abstained`, level 2 on the chart), and nothing else written for it, is in the reply schema sent and the
prompt's example, is read by the parser, and is shown in the text and the HTML renderings; the same word
added without its meaning is refused where it is declared."""

from __future__ import annotations

import asyncio
import importlib
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from moot.render.terminal import plain_text
from moot.testing import FakeLLMServer

from .challenge_helpers import confront, opening, rebuttal, verdict

SOURCE = Path(__file__).resolve().parent.parent / "src" / "moot" / "protocols" / "challenge"
WORDS = 'ChallengeVerdict = Literal["agree", "partial", "disagree"]'
MEANINGS = '"disagree": Meaning("disagreed", 1)}'


def _copy(tmp_path: Path, name: str, *, meaning: bool) -> ModuleType:
    """The protocol's package copied under `name`, its imports of itself renamed, one word added."""
    folder = tmp_path / name
    shutil.copytree(SOURCE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for path in folder.glob("*.py"):
        text = path.read_text(encoding="utf-8").replace("moot.protocols.challenge", name)
        if path.name == "replies.py":
            assert WORDS in text and MEANINGS in text
            text = text.replace(WORDS, WORDS.replace('"disagree"]', '"disagree", "abstain"]'))
            if meaning:
                text = text.replace(MEANINGS, MEANINGS[:-1] + ', "abstain": Meaning("abstained", 2)}')
        path.write_text(text, encoding="utf-8")
    return importlib.import_module(f"{name}.api")


@pytest.fixture
def copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for module in [m for m in sys.modules if m.startswith("challenge_copy")]:
        del sys.modules[module]


def test_the_word_without_its_meaning_is_refused(copies: Path) -> None:
    with pytest.raises(ValueError, match="abstain"):
        _copy(copies, "challenge_copy_bare", meaning=False)


def test_the_added_word_reaches_the_schema_the_prompt_the_parser_and_the_renderings(
    copies: Path, llm_server: FakeLLMServer
) -> None:
    api = _copy(copies, "challenge_copy", meaning=True)
    position = "Shard orders by customer id, with a reporting replica"
    llm_server.script("prop", opening(), confront({"O1": "ACCEPT"}, position))
    llm_server.script(
        "ch-a",
        verdict("abstain", "minor", ["hot customers skew the shards"]),
        rebuttal("ACCEPT", "the replica answers it"),
    )
    llm_server.script("ch-b", verdict("agree", "minor"))
    judges = copies / "judges.yaml"
    seat = {"api_base": llm_server.base_url}
    panel = {"proponent": {"model": "prop", **seat}, "challengers": [{"model": m, **seat} for m in ("ch-a", "ch-b")]}
    judges.write_text(yaml.safe_dump(panel), encoding="utf-8")
    result = asyncio.run(api.challenge("Should we shard the orders table by customer id?", judges=str(judges)))

    first = llm_server.calls_for("ch-a")[0].body
    sent: Any = first.get("response_format", {})
    assert "abstain" in json.dumps(sent)  # the schema's enum
    prompt = "\n".join(str(m.get("content")) for m in first["messages"])
    assert "abstain" in prompt  # the example the prompt shows
    data = result.model_dump(mode="json")
    said = [r for r in data["round_log"][0]["replies"] if r["seat"] == "challenger-1"]
    assert said[0]["verdict"] == "abstain"  # the parser read it
    text = plain_text(importlib.import_module("challenge_copy.text").challenge_report(result))
    assert "challenger-1: abstain -> agree" in text  # what the debate changed, in its words
    html = importlib.import_module("challenge_copy.html")
    assert "challenger-1 challenge: abstain" in html._replies(data["round_log"][0])
    # its meaning: the status it gives, and its level on the chart (its rebuttal failing: it stays there)
    replies = importlib.import_module("challenge_copy.replies")
    assert replies.VERDICT_WORDS.status("abstain") == "abstained"
    said[1]["status"] = "failed"
    chart = html._chart(data)
    assert chart is not None and _series(chart)["challenger-1"][0] == 2.0


def _series(chart: Any) -> dict[str, list[float]]:
    return {s.name: [p.score for p in s.points] for s in chart.series}
