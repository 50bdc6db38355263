"""A key leaves the machine only for its vendor's own endpoint, or for an address the user trusted: a found
`moot.yaml` whose `provider:` judge names its own `api_base` needs `moot trust` (the vendor's variable would
go there), a judges file named over MCP may send only a vendor's own key to that vendor unless the server
opts in, `moot doctor` and `--dry-run` say which variable goes to which host, and a judge that runs a
program gets none of the other vendors' keys nor a CI token. Through the scripted vendor server on
127.0.0.1, with fake keys in the environment that must never reach it."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer
from moot.testing.fake_llm_server import Reply

from .replies import CRITERIA, round1
from .test_mcp_confine import call_all, error_of, evaluate

FAKE_KEYS = {
    "OPENAI_API_KEY": "sk-fake-openai-0123456789abcdef",
    "ANTHROPIC_API_KEY": "sk-ant-fake-0123456789abcdef",
    "GEMINI_API_KEY": "fake-gemini-0123456789abcdef",
    "XAI_API_KEY": "xai-fake-0123456789abcdef",
    "STRIPE_API_KEY": "sk_live_fake0123456789abcdef",
}


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)
    return FAKE_KEYS


def heard(server: FakeLLMServer) -> str:
    return json.dumps([r.headers for r in server.requests])


def provider_judges(server: FakeLLMServer) -> list[dict[str, Any]]:
    """A judge of each vendor moot calls, each on the given server instead of its vendor's endpoint."""
    base = {"openai": server.base_url, "anthropic": server.root_url, "gemini": server.root_url, "xai": server.base_url}
    return [{"name": p, "provider": p, "model": f"{p}-model", "api_base": url} for p, url in base.items()]


def test_a_project_file_naming_its_own_api_base_for_a_vendor_needs_trust_before_any_key_leaves(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    llm_server: FakeLLMServer,
    keys: dict[str, str],
) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "plan.md").write_text("# Plan\n", encoding="utf-8")
    project = root / "moot.yaml"
    project.write_text(yaml.safe_dump({"debate_judges": provider_judges(llm_server)}), encoding="utf-8")
    llm_server.responder = lambda model, body: Reply(text=round1(4.0, 4))
    monkeypatch.chdir(root)
    argv = ["evaluate", "-s", "plan.md", "--criteria", CRITERIA, "--mode", "quick", "--no-reports", "--no-progress"]
    assert main([*argv, "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"moot: error: {project} is not trusted: judge 'openai' sends OPENAI_API_KEY to ")
    assert llm_server.requests == []

    assert main(["doctor", "--format", "json"]) == 0
    seen = json.loads(capsys.readouterr().out)
    assert seen["judges_file"]["trust"] == "untrusted"
    sends = {row["judge"]: row["sends"] for row in seen["judges"]}
    assert sends["anthropic"] == ["ANTHROPIC_API_KEY to 127.0.0.1"]
    assert sends["gemini"] == ["GEMINI_API_KEY or GOOGLE_API_KEY to 127.0.0.1"]
    assert llm_server.requests == [] and not any(v in heard(llm_server) for v in keys.values())

    assert main(["trust"]) == 0  # the user says so: now the keys may go there
    capsys.readouterr()
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err
    assert keys["ANTHROPIC_API_KEY"] in heard(llm_server)


def test_doctor_and_the_dry_run_say_which_variable_goes_to_which_host(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], keys: dict[str, str]
) -> None:
    judges = tmp_path / "judges.yaml"
    lineup = [{"model": "openai/gpt-5", "stance": "for"}, {"model": "gemini/gemini-2.5-pro"}, {"model": "haiku"}]
    judges.write_text(yaml.safe_dump({"debate_judges": lineup}), encoding="utf-8")
    (tmp_path / "plan.md").write_text("# Plan\n", encoding="utf-8")
    assert main(["doctor", "--judges", str(judges)]) == 0
    out = capsys.readouterr().out
    assert "sends OPENAI_API_KEY to api.openai.com" in out
    assert "sends GEMINI_API_KEY or GOOGLE_API_KEY to generativelanguage.googleapis.com" in out
    assert "sends ANTHROPIC_API_KEY to api.anthropic.com" in out
    argv = ["evaluate", "-s", "plan.md", "--criteria", CRITERIA, "--judges", str(judges), "--dry-run"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Keys a real run sends (variable to host):" in text
    assert "ANTHROPIC_API_KEY to api.anthropic.com" in text
    assert main([*argv, "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["judges"][0]["sends"] == ["OPENAI_API_KEY to api.openai.com"]


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "plan.md").write_text("# Plan\nShip it.\n", encoding="utf-8")
    monkeypatch.chdir(folder)
    return folder


def named_file(folder: Path, judges: list[dict[str, Any]]) -> Path:
    path = folder / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": judges}), encoding="utf-8")
    return path


def test_over_mcp_a_named_file_sends_only_a_vendor_key_to_that_vendor(
    work: Path, llm_server: FakeLLMServer, keys: dict[str, str]
) -> None:
    proxied = named_file(work, provider_judges(llm_server))
    [refused] = call_all([evaluate(proxied, "plan.md")])
    assert error_of(refused) == (
        f"judges file {proxied}: judge 'openai' would send OPENAI_API_KEY to 127.0.0.1; over MCP a named file "
        "may send only a vendor's own key to that vendor's endpoint, unless the server was started with "
        "`moot mcp --allow-key-servers`"
    )
    stripe = [{"model": f"m{n}", "api_base": llm_server.base_url, "api_key_env": "STRIPE_API_KEY"} for n in "ab"]
    [refused_any] = call_all([evaluate(named_file(work, stripe), "plan.md")], allow_commands=True)
    assert "would send STRIPE_API_KEY to 127.0.0.1" in error_of(refused_any)
    crossed = [{"model": "openai/gpt-5", "api_key_env": "ANTHROPIC_API_KEY"}] * 2  # a vendor's key to another
    [refused_cross] = call_all([evaluate(named_file(work, crossed), "plan.md", dry_run=True)])
    assert "would send ANTHROPIC_API_KEY to api.openai.com" in error_of(refused_cross)
    assert llm_server.requests == [] and not any(v in heard(llm_server) for v in keys.values())

    own = [{"model": "openai/gpt-5"}, {"model": "haiku"}]  # each vendor's own key to its own endpoint
    [planned] = call_all([evaluate(named_file(work, own), "plan.md", dry_run=True)])
    assert not planned.is_error, planned.content

    llm_server.responder = lambda model, body: Reply(text=round1(4.0, 4))
    [allowed] = call_all([evaluate(named_file(work, stripe), "plan.md", mode="quick")], allow_key_servers=True)
    assert not allowed.is_error, allowed.content
    assert keys["STRIPE_API_KEY"] in heard(llm_server)  # the server's operator opted in


def test_a_judge_that_runs_a_program_gets_only_its_own_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keys: dict[str, str]
) -> None:
    from moot.judges.agent_cli import AgentCliJudge
    from moot.schemas.config import JudgeSpec
    from moot.schemas.messages import Message, Prompt

    monkeypatch.setenv("GITHUB_TOKEN", "ghs_fake0123456789abcdef")
    monkeypatch.setenv("ACTIONS_RUNTIME_TOKEN", "fake-runtime-token-0123")
    monkeypatch.setenv("MY_JUDGE_KEY", "mine-0123456789")
    dump = tmp_path / "env.json"
    program = tmp_path / "judge.py"
    program.write_text(
        f"import json, os, sys\nsys.stdin.read()\njson.dump(dict(os.environ), open({str(dump)!r}, 'w'))\nprint('ok')\n"
    )
    spec = JudgeSpec(name="j", command=[sys.executable, str(program)], api_key_env="MY_JUDGE_KEY")
    reply = asyncio.run(
        AgentCliJudge(spec).complete(Prompt(system="s", messages=[Message(role="user", content="u")]), timeout=60)
    )
    assert reply.text == "ok"
    seen = json.loads(dump.read_text())
    assert seen["MY_JUDGE_KEY"] == "mine-0123456789" and "PATH" in seen and "HOME" in seen
    for name in [*keys, "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN"]:
        assert name not in seen

    from moot.judges.child_env import child_env

    claude = child_env(JudgeSpec(cli="claude"))
    assert claude["ANTHROPIC_API_KEY"] == keys["ANTHROPIC_API_KEY"]
    assert "OPENAI_API_KEY" not in claude and "GITHUB_TOKEN" not in claude
