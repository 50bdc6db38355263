"""`moot doctor` reports each kind of judge truthfully: API keys, endpoints, agent CLIs, tool powers."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer

from .fake_agents import FakeAgents


def dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def doctor_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    assert main(["doctor", "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)["judges"]  # type: ignore[no-any-return]


def test_doctor_reports_every_kind_of_judge(
    llm_server: FakeLLMServer,
    agents: FakeAgents,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XAI_API_KEY", "xai-secret-123")
    agents.add("gemini", version="0.9.1")
    agents.add("qwen", version=None)
    agents.add("codex", version="codex-cli 1.2")
    judges = tmp_path / "j.yaml"
    judges.write_text(
        yaml.safe_dump(
            {
                "proponent": {"model": "local-model", "api_base": llm_server.base_url},
                "challengers": [
                    "grok-4",
                    "gpt-5.2",
                    {"model": "x", "api_base": f"http://127.0.0.1:{dead_port()}/v1"},
                    {"cli": "gemini", "allow_tools": True},
                    {"cli": "codex"},
                    {"cli": "qwen"},
                    {"cli": "claude"},
                    {"replies": ["ok"], "name": "scripted-one"},
                ],
            }
        )
    )
    rows = doctor_json(capsys, "--judges", str(judges))
    by = {r["judge"]: r for r in rows}
    assert [r["role"] for r in rows] == ["proponent"] + ["challenger"] * 8
    assert by["local-model"]["usable"] is True and by["local-model"]["endpoint_state"] == "answering"
    assert by["grok-4"] == {**by["grok-4"], "usable": True, "credential": "present", "vendor": "xai"}
    assert by["gpt-5.2"]["usable"] is False and by["gpt-5.2"]["credential"] == "missing: set OPENAI_API_KEY"
    assert by["x"]["usable"] is False and by["x"]["endpoint_state"].startswith("not answering")
    assert by["gemini"] == {**by["gemini"], "usable": True, "kind": "agent-cli", "tools": "ALLOWED (allow_tools)"}
    assert by["gemini"]["version"] == "0.9.1" and by["gemini"]["executable"].endswith("/gemini")
    assert "older than 0.61.0, the oldest version moot's flags were checked on" in by["gemini"]["detail"]
    assert by["codex"]["tools"] == "read-only" and by["codex"]["login"] == "codex login status: logged in"
    assert by["codex"]["blocks"].startswith("shell") and "blocks" not in by["gemini"]
    assert by["qwen"]["usable"] is False and "exited with code 3" in by["qwen"]["detail"]
    assert by["claude"]["usable"] is False and by["claude"]["detail"] == "'claude' not found on PATH"
    assert by["scripted-one"]["usable"] is True and by["scripted-one"]["kind"] == "scripted"
    assert "xai-secret-123" not in json.dumps(rows)
    # the text form says the same, one line per judge plus details, and shows tool powers
    assert main(["doctor", "--judges", str(judges)]) == 0
    text = capsys.readouterr().out
    assert "ok  challenger gemini" in text and "tools: ALLOWED (allow_tools)" in text
    assert "NO  challenger claude" in text and text.rstrip().endswith("5 of 9 judges usable here")


def test_doctor_without_a_file_lists_the_lineups_and_agent_clis(
    agents: FakeAgents, capsys: pytest.CaptureFixture[str]
) -> None:
    agents.add("qwen", version="qwen 0.1")
    rows = doctor_json(capsys)
    clis = {r["vendor"]: r for r in rows if r["kind"] == "agent-cli"}
    assert sorted(clis) == ["claude", "codex", "gemini", "qwen"]
    assert clis["qwen"]["usable"] is True and clis["gemini"]["usable"] is False
    assert all(r["tools"] == "read-only" for r in clis.values())
    api = {r["judge"]: r["role"] for r in rows if r["kind"] == "api"}
    # evaluate's lineup, and decide's default panel (its three stances on one model)
    assert api == {"gemini-3-pro-preview": "judge", "gpt-5.2": "judge", "grok-4": "judge", "sonnet": "decide"}
    assert next(r for r in rows if r["role"] == "decide")["detail"] == "credential missing: set ANTHROPIC_API_KEY"


def test_doctor_bad_judges_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--judges", str(tmp_path / "missing.yaml")]) == 2
    assert capsys.readouterr().err.startswith("moot: error: judges file")


def test_openai_is_a_core_dependency_and_the_extra_still_installs() -> None:
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]
    assert any(d.startswith("openai") for d in project["dependencies"])
    extras = project["optional-dependencies"]
    assert "openai" in extras and {"anthropic", "gemini", "mcp"} <= set(extras)
    assert not any(d.startswith(("anthropic", "google-genai", "mcp")) for d in project["dependencies"])


def test_doctor_names_the_extra_when_a_judges_sdk_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util
    import sys

    for env in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(env, "k")
    monkeypatch.setitem(sys.modules, "anthropic", None)  # what an uninstalled package looks like to `import`
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> Any:
        if name.startswith("google"):
            raise ModuleNotFoundError("No module named 'google'")  # the parent package is absent too
        return real_find_spec(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    judges = tmp_path / "j.yaml"
    judges.write_text(yaml.safe_dump({"debate_judges": ["haiku", "gemini-2.5-flash", "gpt-5.2"]}))
    by = {r["judge"]: r for r in doctor_json(capsys, "--judges", str(judges))}
    assert by["haiku"]["usable"] is False
    assert by["haiku"]["detail"] == "SDK 'anthropic' not installed: pip install 'moot[anthropic]'"
    assert by["gemini-2.5-flash"]["usable"] is False
    assert by["gemini-2.5-flash"]["detail"] == "SDK 'google-genai' not installed: pip install 'moot[gemini]'"
    assert by["gpt-5.2"]["usable"] is True and by["gpt-5.2"]["credential"] == "present"
    assert main(["doctor", "--judges", str(judges)]) == 0
    text = capsys.readouterr().out
    assert "NO  judge      haiku" in text and "pip install 'moot[anthropic]'" in text
    assert text.rstrip().endswith("1 of 3 judges usable here")
