"""Gemini's context caching for a large artifact, through google-genai against the local server's Gemini wire:
the system text (rules and artifact) is stored once with `cachedContents`, later calls name the cache instead
of sending it, and the cached tokens Gemini reports reach the spend; a small prompt, `prompt_cache: false`, a
refusal or an expired cache all fall back to the whole request."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.judges import gemini_cache
from moot.judges.factory import build_judges
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Message, Prompt
from moot.testing import FakeLLMServer

from .replies import CRITERIA, KEYS, round1, round2

MODEL = "gemini-2.5-pro"
LARGE = "Rules.\n<artifact>\n" + "def f(x):\n    return x * 2  # a line of the artifact under review\n" * 400


@pytest.fixture(autouse=True)
def no_caches_known() -> Iterator[None]:
    gemini_cache.clear()
    yield
    gemini_cache.clear()


def complete(server: FakeLLMServer, system: str, times: int, **extra: Any) -> list[Any]:
    [judge] = build_judges(JudgeSpec(model=MODEL, provider="gemini", api_base=server.root_url, api_key="k", **extra))
    prompt = Prompt(system=system, messages=[Message(role="user", content="Round 1 of 3.")])

    async def calls() -> list[Any]:
        try:
            return [await judge.complete(prompt, timeout=10) for _ in range(times)]
        finally:
            await judge.aclose()

    server.script(MODEL, *["overall_score: 4"] * times)
    return asyncio.run(calls())


def test_a_large_system_text_is_cached_once_and_named_by_every_call(llm_server: FakeLLMServer) -> None:
    done = complete(llm_server, LARGE, 3)
    [(name, created)] = llm_server.cached_contents.items()
    assert created["systemInstruction"]["parts"][0]["text"] == LARGE and created["ttl"] == "900s"
    assert created["model"].endswith(MODEL)
    sent = [r.body for r in llm_server.calls_for(MODEL)]
    assert [b.get("cachedContent") for b in sent] == [name] * 3
    assert all("systemInstruction" not in b for b in sent)  # the prefix is not sent again
    assert all(c.usage.cached_tokens == len(LARGE) // 4 for c in done)  # as Gemini reports it
    assert all(c.usage.input_tokens > c.usage.cached_tokens for c in done)


def test_a_small_prompt_or_prompt_cache_false_makes_no_cache(llm_server: FakeLLMServer) -> None:
    complete(llm_server, "Rules, and a short artifact.", 2)
    complete(llm_server, LARGE, 2, prompt_cache=False)
    assert llm_server.cached_contents == {}
    assert all("cachedContent" not in r.body and r.body["systemInstruction"] for r in llm_server.requests)


def test_an_expired_cache_sends_the_call_whole_and_is_made_again(llm_server: FakeLLMServer) -> None:
    complete(llm_server, LARGE, 1)
    [first] = llm_server.cached_contents
    llm_server.drop_cache(first)  # expired at the vendor
    done = complete(llm_server, LARGE, 2)
    sent = [r.body for r in llm_server.calls_for(MODEL)][1:]
    assert sent[0]["cachedContent"] == first and "systemInstruction" in sent[1]  # 404, then whole
    assert done[0].text == "overall_score: 4" and done[0].usage.cached_tokens == 0
    assert list(llm_server.cached_contents) != [] and sent[2]["cachedContent"] in llm_server.cached_contents


def test_a_server_that_refuses_caches_is_not_asked_again(llm_server: FakeLLMServer) -> None:
    refused: list[str] = []

    def refuse(server: FakeLLMServer, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
        refused.append(path)
        error = {"error": {"code": 400, "message": "too small", "status": "INVALID_ARGUMENT"}}
        return 400, {}, json.dumps(error).encode()

    llm_server.routes["/cachedContents"] = refuse
    done = complete(llm_server, LARGE, 3)
    assert len(refused) == 1 and all(c.text == "overall_score: 4" for c in done)
    assert all("cachedContent" not in r.body for r in llm_server.calls_for(MODEL))


def test_a_debate_on_gemini_judges_reads_its_large_artifact_from_the_cache(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    artifact = tmp_path / "engine.py"
    artifact.write_text(LARGE, encoding="utf-8")
    fours = dict.fromkeys(KEYS, 4.0)
    models = ["gemini-2.5-pro", "gemini-2.5-flash"]
    for model, score in zip(models, (4.6, 2.8), strict=True):  # apart: a second round
        llm_server.script(model, round1(score, 4), round2(4.0, fours))
    seats = [{"model": m, "provider": "gemini", "api_base": llm_server.root_url, "api_key": "k"} for m in models]
    judges = tmp_path / "judges.yaml"
    judges.write_text(yaml.safe_dump({"debate_judges": seats}), encoding="utf-8")
    argv = ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--format", "json"]
    assert main([*argv, "--no-reports"]) == 0
    spend = json.loads(capsys.readouterr().out)["spend"]
    assert len(llm_server.cached_contents) == 2  # one per model, each made once for both rounds
    assert all(r.body.get("cachedContent") for r in llm_server.requests)
    assert [r["cache_hits"] for r in spend["per_round"].values()] == [2, 2]
    assert spend["cached_tokens"] > 0.9 * spend["input_tokens"]  # the artifact, read from the cache by every call
