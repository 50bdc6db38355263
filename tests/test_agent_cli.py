"""Agent CLI judges on their own: command lines per profile, prompt delivery, failures, the timeout kill,
and the preflight probe with its cache."""

from __future__ import annotations

import asyncio
import os
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
        ("gemini", ["--skip-trust", "--approval-mode", "default"], ["--skip-trust", "--approval-mode", "yolo"]),
        ("qwen", ["--approval-mode", "default", "--exclude-tools="], ["--approval-mode", "yolo"]),
        (
            "codex",
            ["--sandbox", "read-only", "--skip-git-repo-check", "--disable", "shell_tool"],
            ["--sandbox", "workspace-write", "--skip-git-repo-check"],
        ),
        (
            "claude",
            ["--permission-mode", "plan", "--tools", ""],
            ["--permission-mode", "acceptEdits", "--allowedTools"],
        ),
    ],
)
def test_allow_tools_replaces_the_safe_flags(cli: str, safe: list[str], tools: list[str]) -> None:
    def has(argv: list[str], part: list[str]) -> bool:
        return any(argv[i : i + len(part)] == part for i in range(len(argv))) or (
            part[-1].endswith("=") and any(a.startswith(part[-1]) for a in argv)
        )

    argv = command_template(JudgeSpec(cli=cli))
    assert argv[0] == cli and has(argv, safe) and not has(argv, tools)
    powered = command_template(JudgeSpec(cli=cli, allow_tools=True))
    assert has(powered, tools) and not has(powered, safe)
    assert sum(a == "--approval-mode" for a in powered) <= 1 and sum(a == "--permission-mode" for a in powered) <= 1
    assert "yolo" not in " ".join(command_template(JudgeSpec(cli=cli, model="m1")))
    assert "m1" in command_template(JudgeSpec(cli=cli, model="m1"))


def test_qwen_takes_the_positional_prompt_and_codex_reads_stdin() -> None:
    qwen = command_template(JudgeSpec(cli="qwen"))
    assert "-p" not in qwen and not qwen[-1].startswith("-")
    assert command_template(JudgeSpec(cli="codex", model="m"))[:4] == ["codex", "exec", "-m", "m"]
    assert command_template(JudgeSpec(cli="codex"))[-1] == "-"


@pytest.mark.parametrize(
    ("stderr", "line"),
    [
        # clap: the usage text follows the error
        ("error: unexpected argument '--full-auto' found\n\n  tip: use '-- --full-auto'\n\nUsage: codex exec [OPTIONS]"
         "\n\nFor more information, try '--help'.", "error: unexpected argument '--full-auto' found"),
        # a Node crash: the stack trace follows the error
        ("file:///x/cli.js:12\n    throw e;\n    ^\n\nTypeError: value.trim is not a function\n    at a (x.js:1:2)\n"
         "    at b (x.js:3:4)\n    at c (x.js:5:6)\n\nNode.js v20.20.2", "TypeError: value.trim is not a function"),
        ("Warning: 256-color support not detected.\nInvalid approval mode: default,yolo\nUsage: gemini [options]",
         "Invalid approval mode: default,yolo"),
        ("something odd happened\nsecond line\nthird", "something odd happened"),
        ("WARNING: proceeding, even though we could not create PATH aliases: Refusing to create helper binaries\n"
         "error: unexpected argument '--full-auto' found", "error: unexpected argument '--full-auto' found"),
        ("An unexpected critical error occurred:\nTypeError: value.trim is not a function\n    at parse (x.js:1:2)",
         "An unexpected critical error occurred: TypeError: value.trim is not a function"),
    ],
)  # fmt: skip
def test_the_error_line_names_the_cause(agents: FakeAgents, stderr: str, line: str) -> None:
    agents.add("codex", {"mode": "fail", "code": 2, "stderr": stderr})
    with pytest.raises(JudgeError) as e:
        ask(build(JudgeSpec(cli="codex"), ""))
    assert str(e.value) == f"agent CLI 'codex' exited with code 2: {line}"


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
    assert call["argv"][:2] == ["--model", "opus"] and "-p" in call["argv"] and call["argv"][-2:] == ["--tools", ""]
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
        JudgeError,
        match=r"agent CLI 'codex' exited with code 2: 401 Unauthorized.*not logged in\? log in with: codex login",
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


def test_login_rules_follow_each_cli(agents: FakeAgents, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Presence only, never a value; a variable a CLI does not read is no evidence (D6)."""
    home = Path(os.environ["HOME"])
    (home / ".gemini" / "oauth_creds.json").unlink()
    (home / ".qwen" / "settings.json").unlink()
    (home / ".claude.json").write_text("{}")  # written by any run, logged in or not
    for name in ("gemini", "qwen"):
        agents.add(name)
    agents.add("codex", logged_in=False)
    agents.add("claude", logged_in=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "g-secret-value")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    found = {cli: asyncio.run(check(JudgeSpec(cli=cli))) for cli in ("gemini", "qwen", "codex", "claude")}
    assert not any(a.usable for a in found.values())
    assert found["codex"].detail.startswith("not usable: log in with: codex login")
    assert found["claude"].detail == "not usable: log in with: claude auth login, or set ANTHROPIC_API_KEY"
    assert "OPENAI_BASE_URL, OPENAI_MODEL not (qwen needs all three)" in found["qwen"].login
    assert "sk-secret" not in repr(found) and "g-secret" not in repr(found)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_MODEL", "m")
    monkeypatch.setenv("GEMINI_API_KEY", "g")
    monkeypatch.setenv("CODEX_API_KEY", "c")
    again = {cli: asyncio.run(check(JudgeSpec(cli=cli))) for cli in ("gemini", "qwen", "codex")}
    assert all(a.usable for a in again.values()), again
    assert again["codex"].login == "CODEX_API_KEY is set"


def test_no_login_fails_fast_without_starting_the_cli(agents: FakeAgents) -> None:
    agents.add("codex", {"mode": "hang", "seconds": 30}, logged_in=False)
    t0 = time.monotonic()
    with pytest.raises(JudgeError, match="agent CLI 'codex' is not usable: codex login status: not logged in"):
        ask(build(JudgeSpec(cli="codex"), ""), timeout=20)
    assert time.monotonic() - t0 < 1.0 and agents.calls("codex") == []
