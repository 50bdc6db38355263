"""A debate asks every route that takes it to cache the prompt's shared prefix, and the cached tokens the
vendors report are counted and priced: a whole `moot evaluate` through the real SDKs against the local
server, which speaks each vendor's wire and reports cache reads and writes the way each vendor does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.engine.pricing import Pricing
from moot.schemas.messages import Usage
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, KEYS, round1, round2

KEY = "sk-test-CACHE-0001"


def panel(server: FakeLLMServer, path: Path, *, cache: bool = True) -> Path:
    """Claude through a gateway (OpenRouter's wire), Claude on Anthropic's own API, and GPT on OpenAI's own
    API (reached through OPENAI_BASE_URL, the SDK's own setting, so that moot sees OpenAI's default route)."""
    switch = {} if cache else {"prompt_cache": False}
    judges = [
        {"model": "anthropic/claude-sonnet-4.5", "provider": "openrouter", "api_base": server.base_url,
         "api_key_env": "CACHE_TEST_KEY", "stance": "neutral", **switch},
        {"model": "claude-sonnet-4-6", "provider": "anthropic", "api_base": server.root_url,
         "api_key_env": "CACHE_TEST_KEY", "stance": "for", **switch},
        {"model": "gpt-5.2", "provider": "openai", "api_key_env": "CACHE_TEST_KEY", "stance": "against", **switch},
    ]  # fmt: skip
    data = {"debate_judges": judges, "retry": {"max_retries": 0}, "limits": {"default": {"concurrency": 4}}}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def run(server: FakeLLMServer, judges: Path, artifact: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    fours = {k: 4.0 for k in KEYS}
    for model, score in (("anthropic/claude-sonnet-4.5", 4.6), ("gpt-5.2", 2.8)):  # apart: a second round
        server.script(model, Reply(text=round1(score, 4), input_tokens=4000),
                      Reply(text=round2(4.0, fours), input_tokens=6000, cached_tokens=3500))  # fmt: skip
    server.script(
        "claude-sonnet-4-6",
        Reply(text=round1(4.0, 4), input_tokens=4000, cache_write_tokens=3500),
        Reply(text=round2(4.1, fours), input_tokens=6000, cached_tokens=3500),
    )
    code = main(["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return dict(json.loads(out.out))


@pytest.fixture
def openai_here(llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CACHE_TEST_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)  # OpenAI's SDK default route, served here


def bodies(server: FakeLLMServer, model: str) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if r.model == model]


@pytest.mark.usefixtures("openai_here")
def test_each_route_is_asked_to_cache_the_shared_prefix_and_the_reads_are_priced(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run(llm_server, panel(llm_server, tmp_path / "judges.yaml"), artifact, capsys)
    gateway = bodies(llm_server, "anthropic/claude-sonnet-4.5")
    assert len(gateway) == 2
    for body in gateway:  # Claude through a gateway: the system text as a part that carries cache_control
        [part] = body["messages"][0]["content"]
        assert part["cache_control"] == {"type": "ephemeral"} and part["type"] == "text" and part["text"]
    native = bodies(llm_server, "claude-sonnet-4-6")
    assert all(b["system"][0]["cache_control"] == {"type": "ephemeral"} for b in native)
    openai = bodies(llm_server, "gpt-5.2")
    keys = {b["prompt_cache_key"] for b in openai}
    assert len(keys) == 1 and next(iter(keys)).startswith("moot-")  # one prefix, one key, naming nothing
    assert all(isinstance(b["messages"][0]["content"], str) for b in openai)
    assert "prompt_cache_key" not in json.dumps(gateway) and "cache_control" not in json.dumps(openai)
    spend = out["spend"]  # the reads the vendors reported, per round and per judge, in the spend table
    assert (spend["per_round"]["round_1"]["cached_tokens"], spend["per_round"]["round_2"]["cached_tokens"]) == (
        0,
        10_500,
    )
    native = spend["per_judge"]["judge-2"]  # Claude on Anthropic's API: round 1 wrote the prefix to the cache
    no_write = Pricing().cost("anthropic", "claude-sonnet-4-6", Usage(
        input_tokens=native["input_tokens"], output_tokens=native["output_tokens"], cached_tokens=3500))  # fmt: skip
    assert no_write is not None
    assert native["cost_usd"] == pytest.approx(no_write + 3500 * (3.75 - 3.00) / 1e6)  # the write's premium


@pytest.mark.usefixtures("openai_here")
def test_prompt_cache_false_sends_no_directive_on_any_route(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(llm_server, panel(llm_server, tmp_path / "judges.yaml", cache=False), artifact, capsys)
    sent = json.dumps([r.body for r in llm_server.requests])
    assert "cache_control" not in sent and "prompt_cache_key" not in sent
    assert all(isinstance(b["messages"][0]["content"], str) for b in bodies(llm_server, "anthropic/claude-sonnet-4.5"))


def test_a_local_server_gets_no_directive(llm_server: FakeLLMServer, judges_file: Any, artifact: Path) -> None:
    from moot.judges.factory import build_judges
    from moot.schemas.config import JudgeSpec
    from moot.schemas.messages import Prompt

    [judge] = build_judges(JudgeSpec(model="claude-like", api_base=llm_server.base_url))
    body = judge.request(Prompt(system="rules", messages=[]))  # type: ignore[attr-defined]
    assert body["messages"][0] == {"role": "system", "content": "rules"} and "prompt_cache_key" not in body


def test_cache_reads_and_writes_are_priced_at_the_vendors_cache_rates() -> None:
    pricing = Pricing()
    plain = pricing.cost("anthropic", "claude-sonnet-4-5", Usage(input_tokens=10_000, output_tokens=100))
    read = pricing.cost(
        "anthropic", "claude-sonnet-4-5", Usage(input_tokens=10_000, output_tokens=100, cached_tokens=8_000)
    )
    written = pricing.cost(
        "anthropic", "claude-sonnet-4-5", Usage(input_tokens=10_000, output_tokens=100, cache_write_tokens=8_000)
    )
    assert plain is not None and read is not None and written is not None
    # $3 a million input, $0.30 read from the cache, $3.75 written to it, $15 a million output
    assert read == pytest.approx((2_000 * 3 + 8_000 * 0.3 + 100 * 15) / 1e6)
    assert written == pytest.approx((2_000 * 3 + 8_000 * 3.75 + 100 * 15) / 1e6)
    assert read < plain < written
    assert (Usage(cache_write_tokens=5) + Usage(cache_write_tokens=7)).cache_write_tokens == 12
