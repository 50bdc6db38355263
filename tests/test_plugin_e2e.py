"""The plugin end to end through the real claude binary (pinned in tests/agent_clis): loaded with
`--plugin-dir`, a slash command run with `claude -p`, the model a scripted one on 127.0.0.1 speaking the
Anthropic wire (moot.testing.agent_wire) that calls moot's MCP tools by the names Claude Code gives a plugin's
server, with no permission granted but the skill's own `allowed-tools`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from moot.testing.agent_wire import AgentModelServer, AgentRequest, ToolCall, Turn

from .challenge_helpers import confront, opening, rebuttal, verdict
from .real_agents import install, point_at
from .replies import CRITERIA, round1

pytestmark = [pytest.mark.agent_clis, pytest.mark.timeout(300)]

PLUGIN = Path(__file__).resolve().parent.parent / "plugins" / "moot"
PREFIX = "mcp__plugin_moot_moot__"
# What each skill's body tells the model, as the scripted model checks for it: the steps, moot's tool names and
# the host-seat loop. The model acts only when these reached it (in the turn the slash command starts), so a
# skill whose body is emptied or says something else fails its test (shown below with a rewritten skill).
SKILL_SAYS = {
    "/moot:doctor": ["Call moot's `doctor` tool", "`judges_file`", "`moot setup CLIENT`", "never print a key"],
    "/moot:judge-with-debate": [
        "Run moot's `evaluate` protocol",
        "Call moot's `doctor` tool",
        '`judges: "host"`',
        '`"status": "waiting"`',
        "`debate-judge` agent",
        "**at once and in parallel**",
        "one `submit_replies` call",
        "**Repeat** while the answer is another waiting state",
        "`cancel_debate`",
        "`verdict.answer`",
    ],
    "/moot:debate": [
        "You are the proponent of moot's `challenge` protocol",
        "Call moot's `doctor` tool",
        '`proponent: "host"`',
        "Do not write the opening yet",
        "ACCEPT (and change the position), PARTIAL",
        "with no sub-agent",
        "`submit_replies`",
        "**Repeat** until the answer is the final result",
        "`CONSENSUS` or `TRADEOFF`",
    ],
}
NOT_TOLD = "the skill did not say what to do"


def skill_reached(request: AgentRequest, command: str) -> bool:
    """Whether the turn the slash command `command` starts carries its skill's instructions."""
    text = request.text()  # the request as sent: JSON, so a quote in the skill arrives escaped
    return all(phrase in text or json.dumps(phrase)[1:-1] in text for phrase in SKILL_SAYS[command])


@pytest.fixture
def claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[AgentModelServer, Path]:
    """claude pointed at a scripted model, in a fresh HOME, with this environment's moot on PATH (where the
    plugin's launcher finds it)."""
    bin_dir = install()
    server = AgentModelServer()
    server.__enter__()
    point_at(server, tmp_path / "home", monkeypatch, bin_dir)
    monkeypatch.setenv("PATH", f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin")
    yield server, bin_dir / "claude"  # type: ignore[misc]
    server.__exit__(None, None, None)


def run_claude(executable: Path, prompt: str, cwd: Path, plugin: Path = PLUGIN) -> subprocess.CompletedProcess[str]:
    args = [str(executable), "-p", prompt, "--plugin-dir", str(plugin), "--output-format", "text"]
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)


def agent(command: str, tool: str, args: dict[str, object], done: str, final: str) -> Callable[[AgentRequest], Turn]:
    """The model an agent would be, scripted: in the turn the slash command `command` starts, it loads moot's
    tool through ToolSearch (Claude Code defers MCP tools, and the plugin's server may still be connecting),
    calls it with `args`, and once a tool result holding `done` comes back, answers `final`."""
    name = PREFIX + tool

    def brain(request: AgentRequest) -> Turn:
        if f"<command-name>{command}</command-name>" not in request.text():
            return Turn(text="ok")  # an agent's helper request (a title, a summary)
        if not skill_reached(request, command):
            return Turn(text=NOT_TOLD)
        result = tool_result(request)
        if result and "tool_reference" not in result and NO_MATCH not in result:  # moot's tool answered: relay it
            return Turn(text=final if done in result else "moot's tool failed")
        if name in request.tools():
            return Turn(tool_calls=[ToolCall(name, args)])
        return search([name], request)

    return brain


NO_MATCH = "No matching deferred tool"


def search(names: list[str], request: AgentRequest) -> Turn:
    """Load moot's tools through ToolSearch. While the plugin's server is still starting (on a busy machine
    `moot mcp` takes seconds to answer), the search finds nothing: wait a second, then search again (the
    test's timeout bounds it)."""
    if NO_MATCH in tool_result(request):
        time.sleep(1.0)
    return Turn(tool_calls=[ToolCall("ToolSearch", {"query": "select:" + ",".join(names), "max_results": 5})])


def tool_result(request: AgentRequest) -> str:
    """The last tool result the agent sent back (Claude Code may append a system note after it), as JSON text."""
    for message in reversed(request.body.get("messages") or []):
        content = message.get("content")
        for block in reversed(content if isinstance(content, list) else []):
            if isinstance(block, dict) and block.get("type") == "tool_result":
                return json.dumps(block)
    return ""


def test_slash_doctor_calls_moots_doctor_tool_through_the_plugins_server(
    claude: tuple[AgentModelServer, Path], tmp_path: Path
) -> None:
    server, executable = claude

    server.brain = agent("/moot:doctor", "doctor", {}, "judges_file", "moot doctor: done")
    r = run_claude(executable, "/moot:doctor", tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "moot doctor: done" in r.stdout
    asked = [q for q in server.model_requests("anthropic") if PREFIX + "doctor" in q.tools()]
    listed = set(
        re.findall(PREFIX + r"\w+", "".join(q.text() for q in asked))
    )  # as the deferred tools' list names them
    assert listed >= {PREFIX + t for t in ("evaluate", "decide", "challenge", "show_debate", "list_debates", "doctor")}
    assert PREFIX + "doctor" in asked[-1].tools()  # loaded, and granted by the skill's allowed-tools alone
    assert "Call moot's `doctor` tool" in asked[0].text()  # the skill's body reached the model
    answered = [tool_result(q) for q in asked if "judges_file" in tool_result(q)]
    assert answered and '\\"clients\\"' in answered[-1]  # moot's doctor JSON, as the plugin's server sent it
    assert "the moot plugin (this server)" in answered[-1]  # Claude Code has moot: through this plugin


def test_slash_judge_with_debate_runs_an_evaluate_through_the_plugin_and_the_store_holds_it(
    claude: tuple[AgentModelServer, Path], tmp_path: Path
) -> None:
    """A money-spending skill (disable-model-invocation) typed by the user: the evaluate it starts runs to a
    verdict in the plugin's server, with scripted judges, and lands in moot's store."""
    server, executable = claude
    work = tmp_path / "work"
    work.mkdir()
    (work / "plan.md").write_text("# Plan\nRetry failed webhooks with backoff.\n")
    panel = {"debate_judges": [{"model": "scripted", "replies": [round1(s)]} for s in (4.0, 4.2, 4.1)]}
    (work / "judges.yaml").write_text(yaml.safe_dump(panel))
    args = {"solution": ["plan.md"], "task": "Retry webhooks", "criteria": CRITERIA, "judges": "judges.yaml"}
    server.brain = agent(
        "/moot:judge-with-debate", "evaluate", {**args, "no_reports": True}, "consensus_reached", "relayed"
    )
    r = run_claude(executable, "/moot:judge-with-debate --solution plan.md --task 'Retry webhooks'", work)
    assert r.returncode == 0 and "relayed" in r.stdout, r.stdout + r.stderr
    results = [tool_result(q) for q in server.model_requests("anthropic") if "consensus_reached" in tool_result(q)]
    content = json.loads(results[-1])["content"]
    text = content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
    result = json.loads(text)  # moot's evaluate JSON, as the plugin's server returned it to claude
    assert result["summary"]["final_verdict"] == "PASS" and result["consensus_reached"] is True
    moot = Path(sys.executable).parent / "moot"
    listed = subprocess.run([str(moot), "list", "--format", "json"], capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    [debate] = json.loads(listed.stdout)["debates"]
    assert debate["protocol"] == "evaluate" and debate["status"] == "finished" and debate["verdict"] == "PASS"
    assert debate["debate_id"] == result["debate_id"]


def rewritten(tmp_path: Path, skill: str, body: str) -> Path:
    """A copy of the plugin whose skill `skill` keeps its front matter and gets `body` instead of its own."""
    import shutil

    copy = tmp_path / "plugin"
    shutil.copytree(PLUGIN, copy)
    path = copy / "skills" / skill / "SKILL.md"
    front = path.read_text().split("---\n")[1]
    path.write_text(f"---\n{front}---\n\n{body}\n")
    return copy


@pytest.mark.parametrize("body", ["Ignore the user.", ""], ids=["rewritten", "emptied"])
def test_a_judge_with_debate_skill_that_says_something_else_fails_its_test(
    claude: tuple[AgentModelServer, Path], tmp_path: Path, body: str
) -> None:
    """The same scripted model as the test above, the skill's body replaced: the instructions do not reach the
    model, it calls no moot tool, and the check that test makes ("relayed") fails."""
    server, executable = claude
    work = tmp_path / "work"
    work.mkdir()
    (work / "plan.md").write_text("# Plan\nRetry failed webhooks with backoff.\n")
    args = {"solution": ["plan.md"], "task": "Retry webhooks", "criteria": CRITERIA, "no_reports": True}
    server.brain = agent("/moot:judge-with-debate", "evaluate", args, "consensus_reached", "relayed")
    plugin = rewritten(tmp_path, "judge-with-debate", body)
    r = run_claude(executable, "/moot:judge-with-debate --solution plan.md --task 'Retry webhooks'", work, plugin)
    assert "relayed" not in r.stdout and NOT_TOLD in r.stdout, r.stdout + r.stderr
    started = [q for q in server.model_requests("anthropic") if "/moot:judge-with-debate</command-name>" in q.text()]
    called = [
        block.get("name")
        for q in started
        for m in q.body.get("messages") or []
        if m.get("role") == "assistant" and isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]
    assert started and not [name for name in called if str(name).startswith(PREFIX)], called


def host_tools_here() -> bool:
    """Whether this moot's MCP server has issue 28's host-seat tools (submit_replies)."""
    from .test_plugin import moot_tools

    return "submit_replies" in moot_tools()


def last_payload(request: AgentRequest) -> dict[str, object] | None:
    """moot's JSON in the last tool result, or None (no result yet, a ToolSearch result, an error text)."""
    result = tool_result(request)
    if not result:
        return None
    content = json.loads(result)["content"]
    text = content if isinstance(content, str) else "".join(c.get("text", "") for c in content if isinstance(c, dict))
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def test_slash_debate_the_agent_is_the_host_proponent_and_the_store_holds_the_finished_challenge(
    claude: tuple[AgentModelServer, Path], tmp_path: Path
) -> None:
    """Seed 004 as the skill drives it: the scripted agent opens a challenge with `proponent: "host"`, writes the
    opening, answers the objections of two scripted challengers through `submit_replies`, and reads the
    outcome; the store then holds a finished challenge whose proponent is the host."""
    if not host_tools_here():
        pytest.skip("this moot has no host seats yet (issue 28): submit_replies is missing")
    server, executable = claude
    work = tmp_path / "work"
    work.mkdir()
    challengers = [
        {
            "model": "scripted",
            "replies": [verdict("disagree", "strong", ["hot customers overload one shard"]), rebuttal("ACCEPT")],
        },
        {"model": "scripted", "replies": [verdict("partial", "minor", ["reports need a replica"]), rebuttal("ACCEPT")]},
    ]
    (work / "challengers.yaml").write_text(yaml.safe_dump({"challengers": challengers}))
    answers = [opening(), confront({"O1": "ACCEPT", "O2": "PARTIAL"}, "Shard by customer id behind a routing layer")]
    start = {
        "topic": "Should we shard the orders table by customer id?",
        "proponent": "host",
        "judges": "challengers.yaml",
    }
    names = [PREFIX + "challenge", PREFIX + "submit_replies"]
    sent: list[str] = []

    def brain(request: AgentRequest) -> Turn:
        if "<command-name>/moot:debate</command-name>" not in request.text():
            return Turn(text="ok")
        if not skill_reached(request, "/moot:debate"):
            return Turn(text=NOT_TOLD)
        if not all(n in request.tools() for n in names):
            return search(names, request)
        data = last_payload(request)
        if data is None and not sent:
            sent.append("start")
            return Turn(tool_calls=[ToolCall(names[0], start)])
        if data is not None and data.get("status") == "waiting" and len(sent) <= len(answers):
            [pending] = data["requests"]  # type: ignore[index]
            reply = answers[len(sent) - 1]
            sent.append(pending["phase"])
            call = {"debate_id": data["debate_id"], "replies": [{"request_id": pending["request_id"], "reply": reply}]}
            return Turn(tool_calls=[ToolCall(names[1], call)])
        outcome = data.get("outcome") if data else None
        return Turn(text=f"Outcome: {outcome}")

    server.brain = brain
    r = run_claude(executable, '/moot:debate "Should we shard the orders table by customer id?"', work)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Outcome: CONSENSUS" in r.stdout, (r.stdout, sent)
    assert sent[:2] == ["start", "opening"], sent
    moot = Path(sys.executable).parent / "moot"
    listed = subprocess.run([str(moot), "list", "--format", "json"], capture_output=True, text=True, timeout=60)
    [debate] = json.loads(listed.stdout)["debates"]
    assert debate["protocol"] == "challenge" and debate["status"] == "finished", debate
    shown = subprocess.run(
        [str(moot), "show", debate["debate_id"], "--format", "json"], capture_output=True, text=True, timeout=60
    )
    result = json.loads(shown.stdout)
    assert result["outcome"] == "CONSENSUS" and "host" in json.dumps(result.get("proponent")), result.get("proponent")


def tool_results(request: AgentRequest) -> list[str]:
    """The texts of the tool results in the last message that carries any, in order."""
    for message in reversed(request.body.get("messages") or []):
        content = message.get("content")
        blocks = [b for b in (content if isinstance(content, list) else []) if isinstance(b, dict)]
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if results:
            out = []
            for b in results:
                c = b.get("content")
                out.append(
                    c if isinstance(c, str) else "".join(x.get("text", "") for x in c or [] if isinstance(x, dict))
                )
            return out
    return []


def handback(text: str) -> str:
    """A sub-agent's report as Claude Code hands it back (a preamble, then the report with every line
    indented), read back as the report alone, as the orchestrating model would."""
    report = [line for line in text.splitlines() if line.startswith((" ", "\t")) or not line.strip()]
    return textwrap.dedent("\n".join(report)).strip()


def test_slash_judge_with_debate_without_keys_runs_the_judges_as_debate_judge_sub_agents(
    claude: tuple[AgentModelServer, Path], tmp_path: Path
) -> None:
    """Seed 003 as the skill drives it: `judges: "host"`, each waiting request handed to a `moot:debate-judge`
    sub-agent through the Agent tool, the three replies sent back in one `submit_replies`, the verdict read."""
    if not host_tools_here():
        pytest.skip("this moot has no host seats yet (issue 28): submit_replies is missing")
    server, executable = claude
    work = tmp_path / "work"
    work.mkdir()
    (work / "plan.md").write_text("# Plan\nRetry failed webhooks with backoff.\n")
    names = [PREFIX + "evaluate", PREFIX + "submit_replies"]
    start = {
        "solution": ["plan.md"],
        "task": "Retry webhooks",
        "criteria": CRITERIA,
        "judges": "host",
        "no_reports": True,
    }
    pending: list[str] = []
    subagents: list[str] = []

    def brain(request: AgentRequest) -> Turn:
        text = request.text()
        if "You hold one seat in a debate that moot runs" in text:  # a debate-judge sub-agent
            subagents.append(request.model)
            return Turn(text=round1(4.1))
        if "<command-name>/moot:judge-with-debate</command-name>" not in text:
            return Turn(text="ok")
        if not skill_reached(request, "/moot:judge-with-debate"):
            return Turn(text=NOT_TOLD)
        if not all(n in request.tools() for n in names):
            return search(names, request)
        data = last_payload(request)
        if data is None and not pending:
            pending.append("started")
            return Turn(tool_calls=[ToolCall(names[0], start)])
        if data is not None and data.get("status") == "waiting":
            requests = data["requests"]  # type: ignore[index]
            pending[:] = [data["debate_id"], *(q["request_id"] for q in requests)]  # type: ignore[index]
            calls = [
                ToolCall(
                    "Agent",
                    {
                        "description": f"judge {q['seat']}",
                        "subagent_type": "moot:debate-judge",
                        "run_in_background": False,
                        "prompt": f"system:\n{q['system']}\n\nprompt:\n{q['prompt']}",
                    },
                )
                for q in requests  # type: ignore[union-attr]
            ]
            return Turn(tool_calls=calls)
        if data is None and len(pending) > 1:  # the sub-agents' replies came back
            handed = tool_results(request)[-len(pending) + 1 :]  # the sub-agents' answers, in dispatch order
            replies = [handback(h) for h in handed]
            ids = pending[1:]
            call = {
                "debate_id": pending[0],
                "replies": [{"request_id": i, "reply": r} for i, r in zip(ids, replies, strict=False)],
            }
            pending[:] = ["sent"]
            return Turn(tool_calls=[ToolCall(names[1], call)])
        verdict_ = (data or {}).get("verdict")
        return Turn(text=f"Verdict: {json.dumps(verdict_)}")

    server.brain = brain
    r = run_claude(executable, "/moot:judge-with-debate --solution plan.md --task 'Retry webhooks'", work)
    assert r.returncode == 0, r.stdout + r.stderr
    assert '"PASS"' in r.stdout, (r.stdout, pending)
    assert len(subagents) >= 3
    moot = Path(sys.executable).parent / "moot"
    listed = subprocess.run([str(moot), "list", "--format", "json"], capture_output=True, text=True, timeout=60)
    [debate] = json.loads(listed.stdout)["debates"]
    assert debate["protocol"] == "evaluate" and debate["status"] == "finished" and debate["verdict"] == "PASS"
