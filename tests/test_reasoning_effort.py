"""Issue 30 §6: `reasoning_effort:` and `extra_body:` on a judge entry reach each provider in its own field,
through the real SDKs against the scripted server's three wires (OpenAI-compatible, Anthropic, Gemini);
codex gets its `-c model_reasoning_effort`; a level a provider does not take is refused before any call;
and the reasoning tokens the providers report are in the spend."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.judges.agent_cli import command_template
from moot.schemas.config import JudgeSpec
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, round1


def _panel(path: Path, judges: list[dict[str, Any]]) -> Path:
    # no per-minute spacing in a test
    data = {"debate_judges": judges, "limits": {"default": {"concurrency": 4}}}
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _camel(config: dict[str, Any]) -> dict[str, Any]:
    """Gemini's JSON names, however the SDK spells them on the wire (it sends some nested keys as written)."""
    return {k.split("_")[0] + "".join(w.title() for w in k.split("_")[1:]): v for k, v in config.items()}


def _args(artifact: Path, judges: Path, *extra: str) -> list[str]:
    return ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--no-reports", *extra]


def test_each_provider_receives_its_own_reasoning_field_and_the_extra_body(
    llm_server: FakeLLMServer,
    artifact: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for env in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(env, "test-key")
    llm_server.script("gpt-5.2", Reply(text=round1(4.2, 4), reasoning_tokens=300, output_tokens=900))
    llm_server.script("claude-sonnet-4-6", round1(4.1, 4))
    llm_server.script("gemini-3-pro-preview", Reply(text=round1(4.0, 4), reasoning_tokens=200, output_tokens=700))
    llm_server.script("gemini-2.5-flash", round1(4.3, 4))
    root, base = llm_server.root_url, llm_server.base_url
    judges = _panel(
        tmp_path / "judges.yaml",
        [
            {
                "model": "gpt-5.2",
                "provider": "openai",
                "api_base": base,
                "reasoning_effort": "xhigh",
                "extra_body": {"service_tier": "flex", "verbosity": "low"},
            },
            {
                "model": "claude-sonnet-4-6",
                "provider": "anthropic",
                "api_base": root,
                "stance": "for",
                "reasoning_effort": "medium",
                "max_tokens": 2000,
                "extra_body": {"metadata": {"user_id": "u-1"}},
            },
            {
                "model": "gemini-3-pro-preview",
                "provider": "gemini",
                "api_base": root,
                "stance": "against",
                "reasoning_effort": "low",
                "extra_body": {"labels": {"team": "review"}},
            },
            {"model": "gemini-2.5-flash", "provider": "gemini", "api_base": root, "reasoning_effort": "high"},
        ],
    )
    code = main(_args(artifact, judges, "--format", "json"))
    cap = capsys.readouterr()
    assert code == 0, cap.err
    sent = {r.model: r.body for r in llm_server.requests}
    openai_body = sent["gpt-5.2"]
    assert openai_body["reasoning_effort"] == "xhigh"
    assert (openai_body["service_tier"], openai_body["verbosity"]) == ("flex", "low")
    anthropic_body = sent["claude-sonnet-4-6"]
    assert anthropic_body["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    assert anthropic_body["max_tokens"] == 2000 + 4096  # the reply keeps its own bound beside the budget
    assert anthropic_body["metadata"] == {"user_id": "u-1"}
    gemini3 = sent["gemini-3-pro-preview"]
    assert _camel(gemini3["generationConfig"]["thinkingConfig"]) == {"thinkingLevel": "LOW"}
    assert gemini3["labels"] == {"team": "review"}
    assert _camel(sent["gemini-2.5-flash"]["generationConfig"]["thinkingConfig"]) == {"thinkingBudget": 24576}
    # reasoning tokens, where the provider reports them (OpenAI's and Gemini's), are in the spend
    out = json.loads(cap.out)
    assert out["spend"]["reasoning_tokens"] == 300 + 200
    assert out["spend"]["per_judge"]["judge-1"]["reasoning_tokens"] == 300


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        (
            {"model": "claude-sonnet-4-6", "provider": "anthropic", "reasoning_effort": "minimal"},
            "anthropic takes (low",
        ),
        ({"model": "gemini-2.5-pro", "provider": "gemini", "reasoning_effort": "xhigh"}, "gemini takes (minimal"),
        ({"model": "grok-4", "provider": "xai", "reasoning_effort": "medium"}, "xai takes (low, high)"),
        ({"model": "x", "replies": ["a"], "reasoning_effort": "high"}, "a scripted judge takes no reasoning_effort"),
        ({"cli": "gemini", "reasoning_effort": "high"}, "agent CLI gemini takes no reasoning_effort"),
        ({"cli": "codex", "extra_body": {"a": 1}}, "extra_body is for API judges"),
        (
            {"model": "claude-sonnet-4-6", "provider": "anthropic", "reasoning_effort": "low", "temperature": 0.2},
            "no temperature",
        ),
        ({"model": "gpt-5.2", "reasoning_effort": "extreme"}, "reasoning_effort"),
    ],
)
def test_a_level_the_provider_does_not_take_is_refused_before_any_call(
    llm_server: FakeLLMServer,
    artifact: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    entry: dict[str, Any],
    words: str,
) -> None:
    for env in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "XAI_API_KEY"):
        monkeypatch.setenv(env, "test-key")
    other = {"model": "judge-b", "api_base": llm_server.base_url, "stance": "for"}
    judges = _panel(tmp_path / "judges.yaml", [{**entry, "stance": "neutral"}, other])
    for extra in ((), ("--dry-run",)):
        assert main(_args(artifact, judges, *extra)) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1 and "Traceback" not in err
    assert not llm_server.requests


def test_codex_gets_its_own_reasoning_setting() -> None:
    argv = command_template(JudgeSpec(cli="codex", model="gpt-5.2-codex", reasoning_effort="xhigh"))
    at = argv.index("-c")
    assert argv[at : at + 2] == ["-c", "model_reasoning_effort=xhigh"]
    assert "-c" not in command_template(JudgeSpec(cli="codex"))
