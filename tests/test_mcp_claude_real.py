"""moot's MCP server registered with the real claude binary (pinned in tests/agent_clis) by `--mcp-config`, no
plugin: its prompts are slash commands (`/mcp__moot__evaluate`), and what that claude does with a moot tool
call under the tasks extension. The model is a scripted one on 127.0.0.1 (moot.testing.agent_wire)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from moot.testing.agent_wire import AgentModelServer, AgentRequest, ToolCall, Turn

from .real_agents import install, point_at
from .replies import CRITERIA, round1
from .test_plugin_e2e import tool_result

pytestmark = [pytest.mark.agent_clis, pytest.mark.timeout(300)]

SRC = Path(__file__).resolve().parent.parent / "src"
TOOL = "mcp__moot__evaluate"
TASKS = "io.modelcontextprotocol/tasks"


@pytest.fixture
def claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[AgentModelServer, Path, Path]:
    """claude pointed at a scripted model, in a fresh HOME, with moot's server in an --mcp-config file."""
    bin_dir = install()
    server = AgentModelServer()
    server.__enter__()
    point_at(server, tmp_path / "home", monkeypatch, bin_dir)
    moot_home = tmp_path / "moot-home"
    env = {"MOOT_HOME": str(moot_home), "PYTHONPATH": os.environ.get("PYTHONPATH", str(SRC))}
    wire = tmp_path / "client-to-moot.jsonl"  # what claude sends moot's server, kept to read its handshake
    serve = f"tee '{wire}' | '{sys.executable}' -m moot mcp"
    config = {"mcpServers": {"moot": {"command": "sh", "args": ["-c", serve], "env": env}}}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    yield server, bin_dir / "claude", path  # type: ignore[misc]
    server.__exit__(None, None, None)


def run(executable: Path, prompt: str, config: Path, cwd: Path, tool: str = TOOL) -> subprocess.CompletedProcess[str]:
    args = [str(executable), "-p", prompt, "--mcp-config", str(config), "--strict-mcp-config"]
    args += ["--allowedTools", tool, "--output-format", "text"]
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)


def test_the_evaluate_prompt_is_a_slash_command_and_its_tool_call_runs(
    claude: tuple[AgentModelServer, Path, Path], tmp_path: Path
) -> None:
    server, executable, config = claude
    work = tmp_path / "work"
    work.mkdir()
    (work / "plan.md").write_text("# Plan\nRetry failed webhooks with backoff.\n")
    panel = {"debate_judges": [{"model": "scripted", "replies": [round1(s)]} for s in (4.0, 4.2, 4.1)]}
    (work / "judges.yaml").write_text(yaml.safe_dump(panel))
    args = {"solution": ["plan.md"], "criteria": CRITERIA, "judges": "judges.yaml", "no_reports": True}

    def brain(request: AgentRequest) -> Turn:
        if "Run moot's `evaluate` protocol" not in request.text():
            return Turn(text="ok")  # a helper request (a title, a summary)
        result = tool_result(request)
        if result and "tool_reference" not in result:
            return Turn(text="relayed" if "consensus_reached" in result else "moot's tool failed: " + result[:300])
        if TOOL in request.tools():
            return Turn(tool_calls=[ToolCall(TOOL, args)])
        return Turn(tool_calls=[ToolCall("ToolSearch", {"query": f"select:{TOOL}", "max_results": 5})])

    server.brain = brain
    r = run(executable, "/mcp__moot__evaluate plan.md", config, work)
    asked = [q for q in server.model_requests("anthropic") if "Run moot's `evaluate` protocol" in q.text()]
    assert asked, (r.stdout + r.stderr)[-3000:]  # the prompt's text (the plugin skill's) reached the model
    assert "--solution plan.md" in asked[0].text() or "plan.md" in asked[0].text()
    assert r.returncode == 0 and "relayed" in r.stdout, (r.stdout + r.stderr)[-3000:]
    sent = [json.loads(line) for line in (tmp_path / "client-to-moot.jsonl").read_text().splitlines() if line]
    calls = [m for m in sent if m.get("method") == "tools/call"]
    # the first call is answered `input_required` (moot asks for the client's roots), the second carries them
    assert [c["params"]["name"] for c in calls] == ["evaluate", "evaluate"]
    assert "inputResponses" in calls[1]["params"] and "requestState" in calls[1]["params"]
    meta = calls[0]["params"].get("_meta") or {}
    assert meta.get("io.modelcontextprotocol/protocolVersion") == "2026-07-28"  # the new revision, over stdio
    declared = meta.get("io.modelcontextprotocol/clientCapabilities") or {}
    assert {"roots", "elicitation"} <= set(declared)
    tasked = TASKS in (declared.get("extensions") or {})
    leases = list((tmp_path / "moot-home" / "mcp-tasks").glob("*.json"))
    # this claude (2.1.330, `-p`, offline) does not declare the tasks extension: its MCP tasks sit behind a
    # feature flag it does not turn on here, so the call runs as a plain one; a claude that declares it gets a task
    assert bool(leases) == tasked


def test_a_contested_decide_through_claude_is_asked_of_its_user(
    claude: tuple[AgentModelServer, Path, Path], tmp_path: Path
) -> None:
    """claude declares elicitation, so moot asks it to choose for a CONTESTED decide; `claude -p` (nobody at a
    terminal) cancels the question, and the decision comes back contested, as the panel left it."""
    from .scripted_panels import contested_decide_panel
    from .test_decide_support import OPTIONS, QUESTION

    server, executable, config = claude
    work = tmp_path / "work"
    work.mkdir()
    args = {"question": QUESTION, "option": OPTIONS, "judges": str(contested_decide_panel(work))}
    tool = "mcp__moot__decide"

    def brain(request: AgentRequest) -> Turn:
        if "Run moot's `decide` protocol" not in request.text():
            return Turn(text="ok")
        result = tool_result(request)
        if result and "tool_reference" not in result:
            return Turn(text="relayed" if "CONTESTED" in result else "moot's tool failed: " + result[:300])
        if tool in request.tools():
            return Turn(tool_calls=[ToolCall(tool, args)])
        return Turn(tool_calls=[ToolCall("ToolSearch", {"query": f"select:{tool}", "max_results": 5})])

    server.brain = brain
    # claude splits a command's arguments at spaces (quotes are kept as characters): options as A=x,B=y
    r = run(executable, "/mcp__moot__decide offline? A=online,B=offline,C=later", config, work, tool)
    assert r.returncode == 0 and "relayed" in r.stdout, (r.stdout + r.stderr)[-3000:]
    sent = [json.loads(line) for line in (tmp_path / "client-to-moot.jsonl").read_text().splitlines() if line]
    answers = [
        m["params"]["inputResponses"]["moot/human-choice"]
        for m in sent
        if m.get("method") == "tools/call" and "moot/human-choice" in (m["params"].get("inputResponses") or {})
    ]
    assert answers == [{"action": "cancel"}]  # asked once; `claude -p` has nobody to ask, and says so
    asked = [q for q in server.model_requests("anthropic") if "Run moot's `decide` protocol" in q.text()]
    text = asked[0].text()
    assert "'offline?' A=online B=offline C=later" in text  # the prompt's arguments, in the skill
