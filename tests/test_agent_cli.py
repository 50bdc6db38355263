"""Agent CLI judges on their own: command lines per profile, prompt delivery, failures, the timeout kill,
and the preflight probe with its cache."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from moot.errors import JudgeError, JudgeTimeout, UsageError
from moot.judges.agent_cli import AgentCliJudge, build, command_template
from moot.judges.factory import build_judges
from moot.judges.preflight import cache_path, check
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Message, Prompt

from .fake_agents import FakeAgents, alive

PROMPT = Prompt(system="SYSTEM: be a judge", messages=[Message(role="user", content="Is 2+2=4? Reply with JSON.")])


def ask(judge: AgentCliJudge, timeout: float = 5.0) -> str:
    return asyncio.run(judge.complete(PROMPT, timeout=timeout)).text


@pytest.mark.parametrize(
    ("cli", "safe", "tools"),
    [
        ("gemini", ["--approval-mode", "default"], ["--approval-mode", "yolo"]),
        ("qwen", ["--approval-mode", "default"], ["--approval-mode", "yolo"]),
        ("codex", ["--sandbox", "read-only"], ["--full-auto"]),
        ("claude", ["--permission-mode", "plan"], ["--permission-mode", "bypassPermissions"]),
    ],
)
def test_profiles_are_read_only_unless_tools_are_allowed(cli: str, safe: list[str], tools: list[str]) -> None:
    argv = command_template(JudgeSpec(cli=cli))
    assert argv[0] == cli
    assert " ".join(safe) in " ".join(argv) and " ".join(tools) not in " ".join(argv)
    powered = command_template(JudgeSpec(cli=cli, allow_tools=True))
    assert powered[-len(tools) :] == tools
    assert "yolo" not in " ".join(command_template(JudgeSpec(cli=cli, model="m1")))
    assert "m1" in command_template(JudgeSpec(cli=cli, model="m1"))


def test_unknown_cli_and_empty_command_are_bad_input() -> None:
    with pytest.raises(UsageError, match="unknown agent CLI 'nope'"):
        command_template(JudgeSpec(cli="nope"))
    with pytest.raises(UsageError, match="'command' is empty"):
        command_template(JudgeSpec(command="  "))


def test_factory_builds_cli_judges_without_requiring_the_tool(agents: FakeAgents) -> None:
    (judge,) = build_judges(JudgeSpec(cli="gemini"))
    assert isinstance(judge, AgentCliJudge) and judge.provider == "cli" and judge.model == "gemini"
    with pytest.raises(JudgeError, match="agent CLI 'gemini': 'gemini' not found on PATH"):
        ask(judge)  # missing: a failure of this judge, raised only when it is asked


def test_prompt_goes_on_stdin_and_stdout_is_the_reply(agents: FakeAgents) -> None:
    agents.add("claude", '\x1b[1m{"verdict": "agree"}\x1b[0m\n')
    assert ask(build(JudgeSpec(cli="claude", model="opus"), "opus")) == '{"verdict": "agree"}'
    (call,) = agents.calls("claude")
    assert call["argv"][:2] == ["--model", "opus"] and "-p" in call["argv"]
    assert call["stdin"].startswith("SYSTEM: be a judge") and "Is 2+2=4?" in call["stdin"]


def test_command_templates_take_the_prompt_as_argument_or_file(agents: FakeAgents, tmp_path: Path) -> None:
    tool = agents.add("my-agent", "from argv", "from file")
    judge = build(JudgeSpec(command="my-agent --ask {prompt} --model {model}", model="m7"), "m7")
    assert ask(judge) == "from argv"
    call = agents.calls("my-agent")[0]
    assert call["argv"][0] == "--ask" and "Is 2+2=4?" in call["argv"][1] and call["argv"][-1] == "m7"
    assert call["stdin"] == ""
    judge = build(JudgeSpec(command=[str(tool), "--file", "{prompt_file}"]), "")
    assert ask(judge) == "from file" and judge.model == "my-agent"
    assert agents.calls("my-agent")[1]["argv"][1].endswith("prompt.txt")


def test_failures_are_named_judge_errors(agents: FakeAgents) -> None:
    agents.add("codex", {"mode": "fail", "code": 2, "stderr": "401 Unauthorized: run codex login"}, {"mode": "empty"})
    judge = build(JudgeSpec(cli="codex"), "")
    with pytest.raises(
        JudgeError, match=r"agent CLI 'codex' exited with code 2: 401 Unauthorized.*not logged in\? run: codex login"
    ):
        ask(judge)
    with pytest.raises(JudgeError, match="agent CLI 'codex' printed nothing"):
        ask(judge)


def test_timeout_kills_the_whole_process_group(agents: FakeAgents) -> None:
    agents.add("gemini", {"mode": "hang", "seconds": 30})
    judge = build(JudgeSpec(cli="gemini"), "")
    t0 = time.monotonic()
    with pytest.raises(JudgeTimeout, match="process group was killed"):
        ask(judge, timeout=0.8)
    assert time.monotonic() - t0 < 4
    child = agents.child_pid("gemini")
    assert child is not None
    deadline = time.monotonic() + 3
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)


def test_preflight_probe_is_cached_briefly(agents: FakeAgents) -> None:
    agents.add("gemini", version="gemini 0.9.1")
    first = asyncio.run(check(JudgeSpec(cli="gemini")))
    assert first.usable and first.version == "gemini 0.9.1" and not first.cached
    second = asyncio.run(check(JudgeSpec(cli="gemini")))
    assert second.usable and second.cached and agents.probes("gemini") == 1
    assert cache_path().exists()
    agents.add("gemini", version=None)  # reinstalled (a new file): probed again, now broken
    third = asyncio.run(check(JudgeSpec(cli="gemini")))
    assert not third.usable and "exited with code 3" in third.detail and agents.probes("gemini") == 2


def test_login_evidence_reports_presence_only(agents: FakeAgents, monkeypatch: pytest.MonkeyPatch) -> None:
    agents.add("codex")
    a = asyncio.run(check(JudgeSpec(cli="codex")))
    assert a.login == "no credential found (run: codex login, or set OPENAI_API_KEY)"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    a = asyncio.run(check(JudgeSpec(cli="codex")))
    assert a.login == "OPENAI_API_KEY is set" and "sk-secret" not in repr(a)
