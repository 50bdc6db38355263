"""`moot doctor --ping`: each API judge (and its fallbacks) gets one tiny real request, with latency;
without --ping no prompt is sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply


def panel(server: FakeLLMServer, path: Path) -> Path:
    judges = [
        {"model": "gpt-5.2", "provider": "openai", "api_base": server.base_url},
        {
            "model": "claude-haiku-4-5",
            "provider": "anthropic",
            "api_base": server.root_url,
            "fallbacks": ["claude-sonnet-4-6"],
        },
        {"model": "gemini-3-pro-preview", "provider": "gemini", "api_base": server.root_url},
    ]
    path.write_text(yaml.safe_dump({"debate_judges": judges}), encoding="utf-8")
    return path


def test_doctor_ping_reports_answers_and_latency(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = panel(llm_server, tmp_path / "j.yaml")
    llm_server.script("gpt-5.2", Reply(text="pong", delay=0.2))
    llm_server.script("claude-haiku-4-5", Reply(status=500))
    llm_server.script("claude-sonnet-4-6", "pong")
    llm_server.script("gemini-3-pro-preview", Reply(status=401))

    assert main(["doctor", "--judges", str(path), "--format", "json"]) == 0
    assert llm_server.requests == []  # the preflight sends no prompt
    capsys.readouterr()

    assert main(["doctor", "--judges", str(path), "--ping", "--format", "json"]) == 0
    rows = {r["model"]: r for r in json.loads(capsys.readouterr().out)["judges"]}
    gpt, claude, gemini = rows["gpt-5.2"], rows["claude-haiku-4-5"], rows["gemini-3-pro-preview"]
    assert gpt["usable"] is True and gpt["ping"].startswith("answers in") and gpt["ping_ms"] >= 200
    assert claude["ping"].startswith("no answer: server error (500)")
    assert claude["fallbacks_ping"]["claude-sonnet-4-6"].startswith("answers in")
    assert claude["usable"] is True  # its fallback would take the seat
    assert gemini["usable"] is False and "authentication failed (401)" in gemini["ping"]
    # one tiny request per model, no retries, the reply bound to a few tokens
    assert sorted(r.model for r in llm_server.requests) == sorted(
        ["gpt-5.2", "claude-haiku-4-5", "claude-sonnet-4-6", "gemini-3-pro-preview"]
    )
    assert next(r for r in llm_server.requests if r.wire == "anthropic").body["max_tokens"] == 16

    for model in ("gpt-5.2", "claude-sonnet-4-6", "gemini-3-pro-preview"):
        llm_server.script(model, "pong")
    llm_server.script("claude-haiku-4-5", Reply(status=500))
    assert main(["doctor", "--judges", str(path), "--ping"]) == 0
    text = capsys.readouterr().out
    assert "ping: answers in" in text and "fallback claude-sonnet-4-6: answers in" in text
