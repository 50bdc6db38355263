"""The provider layer: names -> vendors, credentials, missing extras, and each vendor adapter against a real
local server speaking its wire protocol (OpenAI chat completions, Anthropic messages, Gemini
generateContent) with usage, 429/500 and timeouts."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

from moot.cli.app import main
from moot.engine import Engine, RetryPolicy
from moot.engine.limits import Limits, ProviderLimit
from moot.errors import JudgeTimeout, TransientJudgeError, UsageError
from moot.judges.base import Judge, Seat
from moot.judges.factory import build_judges, require_credentials
from moot.judges.providers import resolve
from moot.panel_file import load_panel_file
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Message, Prompt
from moot.store.db import Store
from moot.testing import FakeLLMServer, Reply

T = TypeVar("T")
NO_RPM = Limits(default=ProviderLimit(concurrency=4))  # vendors' per-minute spacing is tested on its own
SYSTEM = "You are a judge. Rubric and artifact follow. " * 20

# ---------------------------------------------------------------- names -> vendors


@pytest.mark.parametrize(
    ("model", "provider", "wire", "sent"),
    [
        ("gpt-5.2", "openai", "openai", "gpt-5.2"),
        ("openai/gpt-5.2", "openai", "openai", "gpt-5.2"),
        ("grok-4", "xai", "openai", "grok-4"),
        ("gemini-3-pro-preview", "gemini", "gemini", "gemini-3-pro-preview"),
        ("haiku", "anthropic", "anthropic", "claude-haiku-4-5"),
        ("sonnet", "anthropic", "anthropic", "claude-sonnet-4-6"),
        ("opus", "anthropic", "anthropic", "claude-opus-4-6"),
        ("anthropic/claude-haiku-4-5", "anthropic", "anthropic", "claude-haiku-4-5"),
        ("claude-sonnet-4-6", "anthropic", "anthropic", "claude-sonnet-4-6"),
        ("openrouter/qwen/qwen3-coder", "openrouter", "openai", "qwen/qwen3-coder"),
        ("ollama/llama3.3", "ollama", "openai", "llama3.3"),
        ("vllm/meta-llama/Llama-3.3-70B", "vllm", "openai", "meta-llama/Llama-3.3-70B"),
    ],
)
def test_model_names_resolve_to_their_vendor(model: str, provider: str, wire: str, sent: str) -> None:
    r = resolve(JudgeSpec(model=model))
    assert (r.provider.name, r.provider.wire, r.model) == (provider, wire, sent)


def test_local_servers_need_no_key_and_have_a_local_address() -> None:
    r = resolve(JudgeSpec(model="ollama/llama3.3"))
    assert r.provider.local and r.base_url == "http://127.0.0.1:11434/v1"
    [judge] = build_judges(JudgeSpec(model="ollama/llama3.3"))
    assert judge.provider == "ollama" and judge.model == "llama3.3"


def test_api_base_without_provider_is_openai_compatible_and_sends_the_name_as_given() -> None:
    r = resolve(JudgeSpec(model="anthropic/claude-x", api_base="http://127.0.0.1:9/v1"))
    assert (r.provider.wire, r.model, r.base_url) == ("openai", "anthropic/claude-x", "http://127.0.0.1:9/v1")


def test_unknown_model_or_provider_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="cannot tell which provider serves model 'mystery-7b'"):
        resolve(JudgeSpec(model="mystery-7b"))
    with pytest.raises(UsageError, match="unknown provider 'nope'"):
        resolve(JudgeSpec(model="x", provider="nope"))


def test_aliases_from_the_judges_file_name_any_vendor(tmp_path: Path) -> None:
    path = tmp_path / "j.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "aliases": {"fast": "haiku", "local": "ollama/qwen3:8b"},
                "debate_judges": [{"model": "fast", "fallbacks": ["local"]}, "local"],
                "moderator": "fast",
            }
        )
    )
    panel = load_panel_file(path)
    assert panel.panel is not None and panel.moderator is not None
    first, second = panel.panel
    assert first.model == "anthropic/claude-haiku-4-5" and first.label == "fast"
    assert first.fallbacks == ["ollama/qwen3:8b"]
    assert resolve(second).provider.name == "ollama" and second.label == "local"
    assert resolve(panel.moderator).model == "claude-haiku-4-5"


# ---------------------------------------------------------------- credentials and extras


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    # judges without a key can be built (a dry run plans with them); a real run refuses them first
    with pytest.raises(UsageError, match="needs an API key: set OPENAI_API_KEY"):
        require_credentials(build_judges(JudgeSpec(model="gpt-5.2")))
    with pytest.raises(UsageError, match="set GEMINI_API_KEY or GOOGLE_API_KEY"):
        require_credentials(build_judges(JudgeSpec(model="gemini-3-pro-preview")))
    with pytest.raises(UsageError, match="set MY_TEAM_KEY"):
        require_credentials(build_judges(JudgeSpec(model="haiku", api_key_env="MY_TEAM_KEY")))
    # a fallback is checked too, before any call
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    judges = build_judges(JudgeSpec(model="gpt-5.2", fallbacks=["grok-4"]))
    assert [(j.provider, j.model) for j in judges] == [("openai", "gpt-5.2"), ("xai", "grok-4")]
    with pytest.raises(UsageError, match=r"\(grok-4\) needs an API key: set XAI_API_KEY"):
        require_credentials(judges)
    monkeypatch.setenv("MY_TEAM_KEY", "sk-team-secret-1234")
    [judge] = build_judges(JudgeSpec(model="haiku", api_key_env="MY_TEAM_KEY"))
    assert judge.provider == "anthropic" and "sk-team-secret-1234" not in repr(judge)


def test_missing_key_on_the_command_line_is_one_line_exit_2(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "j.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": ["gpt-5.2", "haiku"]}))
    code = main(["evaluate", "-s", str(artifact), "--judges", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines() == ["moot: error: judge 'gpt-5.2' (gpt-5.2) needs an API key: set OPENAI_API_KEY"]


@pytest.mark.parametrize(
    ("model", "module", "hint"),
    [
        ("haiku", "anthropic", "pip install 'moot[anthropic]'"),
        ("gemini-3-pro-preview", "google.genai", "pip install 'moot[gemini]'"),
        ("gpt-5.2", "openai", "pip install 'moot[openai]'"),
    ],
)
def test_missing_vendor_sdk_gives_an_install_hint(
    model: str, module: str, hint: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for env in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(env, "k")
    monkeypatch.setitem(sys.modules, module, None)  # what an absent package looks like to `import`
    judges = build_judges(JudgeSpec(model=model))  # planned (a dry run needs no SDK), refused when run
    with pytest.raises(UsageError, match=hint.replace("[", r"\[").replace("]", r"\]")):
        require_credentials(judges)
    path = Path("j.yaml")
    path.write_text(yaml.safe_dump({"debate_judges": [model, model]}))
    Path("a.py").write_text("x = 1\n")
    assert main(["evaluate", "-s", "a.py", "--judges", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and hint in err and "Traceback" not in err


# ---------------------------------------------------------------- the three wire protocols

WIRES = ["openai", "anthropic", "gemini"]
MODELS = {"openai": "gpt-5.2", "anthropic": "claude-haiku-4-5", "gemini": "gemini-3-pro-preview"}


def vendor_judge(server: FakeLLMServer, wire: str, **extra: Any) -> Judge:
    base = server.base_url if wire == "openai" else server.root_url
    [judge] = build_judges(JudgeSpec(model=MODELS[wire], provider=wire, api_base=base, **extra))
    return judge


async def closing(call: Awaitable[T], *judges: Judge) -> T:
    """Await a call, then close the judges' clients (as run_debate does)."""
    try:
        return await call
    finally:
        for j in judges:
            await j.aclose()


def prompt(schema: dict[str, Any] | None = None) -> Prompt:
    return Prompt(
        system=SYSTEM,
        messages=[
            Message(role="user", content="Round 1: evaluate."),
            Message(role="assistant", content="overall_score: four"),
            Message(role="user", content="Please fix the score."),
        ],
        json_schema=schema,
    )


@pytest.mark.parametrize("wire", WIRES)
def test_adapter_reports_text_and_usage(llm_server: FakeLLMServer, wire: str) -> None:
    judge = vendor_judge(llm_server, wire)
    llm_server.script(
        MODELS[wire],
        Reply(text="overall_score: 4", input_tokens=900, output_tokens=120, cached_tokens=600, reasoning_tokens=40),
    )

    async def go() -> Any:
        try:
            return await judge.complete(prompt(), timeout=5)
        finally:
            await judge.aclose()

    c = asyncio.run(go())
    assert c.text == "overall_score: 4" and c.model == MODELS[wire] and c.provider == wire
    assert (c.usage.input_tokens, c.usage.output_tokens, c.usage.cached_tokens) == (900, 120, 600)
    if wire != "anthropic":  # Anthropic does not report thinking apart from output
        assert c.usage.reasoning_tokens == 40
    [seen] = llm_server.requests
    assert seen.wire == wire
    # the conversation arrives in the vendor's own shape, the stable prefix apart from the turns
    if wire == "anthropic":
        assert seen.body["system"][0] == {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}
        assert [m["role"] for m in seen.body["messages"]] == ["user", "assistant", "user"]
        assert seen.body["max_tokens"] == 8192
    elif wire == "gemini":
        assert seen.body["systemInstruction"]["parts"][0]["text"] == SYSTEM
        assert [c["role"] for c in seen.body["contents"]] == ["user", "model", "user"]
    else:
        assert seen.body["messages"][0] == {"role": "system", "content": SYSTEM}


@pytest.mark.parametrize("wire", WIRES)
def test_adapter_asks_for_the_json_schema_where_the_vendor_supports_it(llm_server: FakeLLMServer, wire: str) -> None:
    schema = {"type": "object", "properties": {"overall_score": {"type": "number"}}, "required": ["overall_score"]}
    judge = vendor_judge(llm_server, wire)
    if wire == "openai":  # the vendors' own endpoints; a user's local server is not asked
        judge.json_schema_support = True  # type: ignore[attr-defined]
    llm_server.script(MODELS[wire], '{"overall_score": 4}')
    asyncio.run(closing(judge.complete(prompt(schema), timeout=5), judge))
    body = llm_server.requests[0].body
    if wire == "anthropic":
        assert body["output_config"] == {"format": {"type": "json_schema", "schema": schema}}
    elif wire == "gemini":
        assert body["generationConfig"]["responseMimeType"] == "application/json"
        assert body["generationConfig"]["responseJsonSchema"] == schema
    else:
        assert body["response_format"]["json_schema"]["schema"] == schema


def test_a_local_server_preset_is_sent_the_schema_in_openais_form_first(llm_server: FakeLLMServer) -> None:
    [judge] = build_judges(JudgeSpec(model="llama", provider="ollama", api_base=llm_server.base_url))
    llm_server.script("llama", "x")
    asyncio.run(closing(judge.complete(prompt({"type": "object"}), timeout=5), judge))
    assert llm_server.requests[0].body["response_format"]["type"] == "json_schema"


@pytest.mark.parametrize("wire", WIRES)
def test_adapter_errors_map_to_retryable_or_not(llm_server: FakeLLMServer, wire: str) -> None:
    judge = vendor_judge(llm_server, wire)
    llm_server.script(
        MODELS[wire],
        Reply(status=429, headers={"retry-after": "0.25"}),
        Reply(status=500),
        Reply(status=503),
        Reply(text="late", delay=0.6),
        Reply(status=400),
    )

    async def attempt() -> Exception:
        try:
            await judge.complete(prompt(), timeout=0.3)
        except Exception as e:
            return e
        raise AssertionError("expected a failure")

    async def go() -> list[Exception]:
        try:
            return [await attempt() for _ in range(5)]
        finally:
            await judge.aclose()

    e429, e500, e503, slow, bad = asyncio.run(go())
    assert isinstance(e429, TransientJudgeError) and e429.status == 429 and e429.retry_after == 0.25
    assert isinstance(e500, TransientJudgeError) and e500.status == 500
    assert isinstance(e503, TransientJudgeError) and e503.status == 503
    assert isinstance(slow, JudgeTimeout)
    assert type(bad).__name__ == "JudgeError" and "400" in str(bad)
    # each failure was one request: the SDK's own retries are off, the engine's policy is the only one
    assert len(llm_server.requests) == 5


def seat_of(*judges: Judge, timeout: float = 5.0) -> Seat:
    return Seat(
        id="judge-1",
        number=1,
        label=judges[0].model,
        stance="neutral",
        stance_prompt="",
        judges=list(judges),
        timeout=timeout,
    )


@pytest.mark.parametrize("wire", WIRES)
def test_engine_retries_429_after_retry_after_once_per_policy(llm_server: FakeLLMServer, wire: str) -> None:
    judge = vendor_judge(llm_server, wire)
    llm_server.script(MODELS[wire], Reply(status=429, headers={"retry-after": "0.3"}), Reply(status=500), "ok")
    engine = Engine(Store(":memory:"), "d", policy=RetryPolicy(max_retries=2, base_delay=0.01), limits=NO_RPM)

    out = asyncio.run(closing(engine.call(seat_of(judge), prompt(), key="r1/judge-1", round_no=1, kind="judge"), judge))
    assert out.ok and out.text == "ok" and out.retries == 2
    assert len(llm_server.requests) == 3
    gap = llm_server.requests[1].at - llm_server.requests[0].at
    assert gap >= 0.3, f"Retry-After not honoured: {gap:.3f}s"


def test_fallback_takes_the_seat_when_the_primary_is_down(llm_server: FakeLLMServer) -> None:
    spec = JudgeSpec(
        model="claude-haiku-4-5", provider="anthropic", api_base=llm_server.root_url, fallbacks=["claude-sonnet-4-6"]
    )
    judges = build_judges(spec)
    assert [j.model for j in judges] == ["claude-haiku-4-5", "claude-sonnet-4-6"]
    llm_server.script("claude-haiku-4-5", *[Reply(status=529)] * 2)
    llm_server.script("claude-sonnet-4-6", "overall_score: 4")
    events: list[Any] = []
    engine = Engine(
        Store(":memory:"),
        "d",
        policy=RetryPolicy(max_retries=1, base_delay=0.01),
        on_event=events.append,
        limits=NO_RPM,
    )
    out = asyncio.run(
        closing(engine.call(seat_of(*judges), prompt(), key="r1/judge-1", round_no=1, kind="judge"), *judges)
    )
    assert out.ok and out.answered_by == "claude-sonnet-4-6"
    assert [r.model for r in llm_server.requests] == ["claude-haiku-4-5"] * 2 + ["claude-sonnet-4-6"]
    assert [e.kind for e in events] == [
        "call_started",
        "retry",
        "fallback",
        "call_done",
    ]  # call_done: spend for live views


def test_output_bound_uses_the_parameter_each_server_knows(llm_server: FakeLLMServer) -> None:
    bounded = Prompt(system="s", messages=[Message(role="user", content="u")], max_tokens=500)
    cloud = vendor_judge(llm_server, "openai")
    [local] = build_judges(JudgeSpec(model="llama", provider="ollama", api_base=llm_server.base_url))
    llm_server.script("gpt-5.2", "x")
    llm_server.script("llama", "x")
    asyncio.run(closing(cloud.complete(bounded, timeout=5), cloud))
    asyncio.run(closing(local.complete(bounded, timeout=5), local))
    sent_cloud, sent_local = (r.body for r in llm_server.requests)
    assert sent_cloud["max_completion_tokens"] == 500 and "max_tokens" not in sent_cloud
    assert sent_local["max_tokens"] == 500 and "max_completion_tokens" not in sent_local
