"""MCP prompts and resources, through the SDK's own client: the four slash commands are the plugin's skills
(one source: their copies beside `moot.mcp.prompts` are generated from them and kept equal here), with the
user's arguments where the skill reads them; `moot://debates/{id}` gives a stored verdict and its report,
`moot://judges` the lineup moot can use."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client
from mcp.types import TextContent, TextResourceContents

from moot.mcp import build_server
from moot.mcp.prompts import COMMANDS

from .replies import CRITERIA
from .scripted_panels import artifact, converging_panel
from .test_plugin import NO_SUBAGENTS, PLUGIN, frontmatter

SHIPPED = Path(__file__).resolve().parent.parent / "src" / "moot" / "mcp" / "skills"
# the plugin's words -> the server's (no plugin agent and no plugin command outside Claude Code's plugin)
MCP_WORDS = {
    "start one sub-agent (the `debate-judge` agent) and hand it": "start one sub-agent and hand it",
    "start one `debate-judge` sub-agent with exactly": "start one sub-agent with exactly",
    "(see `/moot:doctor`)": "(see the `doctor` tool)",
}
# judge-with-debate as a prompt: the judges are always host seats
HOST_JUDGES = {
    "2. **Choose the judges.** Call moot's `doctor` tool. If at least two judges of the evaluate lineup are\n"
    "   usable, call `evaluate` without `judges` (moot uses the user's keys, agent CLIs or `moot.yaml`).\n"
    '   Otherwise call `evaluate` with `judges: "host"`: three host seats': "2. **The judges are host seats.** "
    'Call `evaluate` with `judges: "host"`: three host seats',
}
SOURCES = {"evaluate": ("judge-with-debate", {}), "judge-with-debate": ("judge-with-debate", HOST_JUDGES)}


def prompt_skill(name: str) -> str:
    """The file `moot.mcp.prompts` ships for prompt NAME, made from the plugin's skill."""
    skill, extra = SOURCES.get(name, (name, {}))
    meta, body = frontmatter(PLUGIN / "skills" / skill / "SKILL.md")
    for plugin, server in {**MCP_WORDS, **extra}.items():
        assert plugin in body or plugin in MCP_WORDS, f"{skill}'s skill no longer says {plugin!r}"
        body = body.replace(plugin, server)
    tail = "\n" + NO_SUBAGENTS if "sub-agent" in body else ""
    front = yaml.safe_dump(
        {"name": name, "description": meta["description"], "argument-hint": meta["argument-hint"]},
        width=1000,
        sort_keys=False,
    )
    return f"---\n{front}---\n{body.rstrip()}\n{tail}"


def test_the_prompts_are_the_plugins_skills_in_the_servers_words() -> None:
    for command in COMMANDS:
        path = SHIPPED / f"{command.name}.md"
        assert path.read_text() == prompt_skill(command.name), f"{path} is stale: python -m tests.test_mcp_prompts"
        assert "$ARGUMENTS" in path.read_text() and "debate-judge" not in path.read_text()
    assert '`judges: "host"`' in (SHIPPED / "judge-with-debate.md").read_text()
    assert "If at least two judges" not in (SHIPPED / "judge-with-debate.md").read_text()
    assert '`proponent: "host"`' in (SHIPPED / "debate.md").read_text()


def test_each_prompt_is_listed_with_its_arguments_and_renders_them() -> None:
    seen: dict[str, Any] = {}

    async def body() -> None:
        async with Client(build_server()) as client:
            seen["list"] = {p.name: p for p in (await client.list_prompts()).prompts}
            seen["evaluate"] = await client.get_prompt(
                "evaluate", {"solution": "src/a.py 'my docs/b.md'", "task": "parse dates", "criteria": "code"}
            )
            seen["decide"] = await client.get_prompt(
                "decide", {"question": "Which queue?", "options": "A=SQS: managed\nB=Kafka"}
            )
            seen["debate"] = await client.get_prompt("debate", {"topic": "Adopt a monorepo?", "max_rounds": "2"})
            seen["commas"] = await client.get_prompt("decide", {"question": "Queue?", "options": "A=SQS,B=Kafka"})

    anyio.run(body)
    listed = seen["list"]
    assert set(listed) == {"evaluate", "judge-with-debate", "decide", "debate"}
    assert {(a.name, a.required) for a in listed["decide"].arguments} >= {("question", True), ("options", True)}
    assert listed["evaluate"].description and "PASS, CONDITIONAL or FAIL" in listed["evaluate"].description

    def text(name: str) -> str:
        content = seen[name].messages[0].content
        assert isinstance(content, TextContent)
        return content.text

    assert "--solution src/a.py --solution 'my docs/b.md' --task 'parse dates' --criteria code" in text("evaluate")
    assert "Run moot's `evaluate` protocol" in text("evaluate") and "$ARGUMENTS" not in text("evaluate")
    assert "'Which queue?' 'A=SQS: managed' B=Kafka" in text("decide")
    assert "'Adopt a monorepo?' --max-rounds 2" in text("debate") and '`proponent: "host"`' in text("debate")
    assert "'Queue?' A=SQS B=Kafka" in text("commas")  # as a client that splits arguments at spaces sends them


def test_a_past_verdict_and_the_lineup_are_resources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOOT_JUDGES", str(converging_panel(tmp_path)))
    seen: dict[str, Any] = {}
    args = {
        "solution": [str(artifact(tmp_path))],
        "criteria": CRITERIA,
        "judges": str(converging_panel(tmp_path)),
        "no_reports": True,
    }

    async def body() -> None:
        async with Client(build_server()) as client:
            r = await client.call_tool("evaluate", args)
            debate_id = r.structured_content["debate_id"]  # type: ignore[index]
            seen["result"] = r.structured_content
            seen["templates"] = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
            seen["static"] = [str(x.uri) for x in (await client.list_resources()).resources]
            seen["json"] = await client.read_resource(f"moot://debates/{debate_id}")
            seen["prefix"] = await client.read_resource(f"moot://debates/{debate_id[:8]}")
            seen["html"] = await client.read_resource(f"moot://debates/{debate_id}/report.html")
            seen["judges"] = await client.read_resource("moot://judges")
            try:
                await client.read_resource("moot://debates/no-such-debate")
            except Exception as e:
                seen["missing"] = str(e)

    anyio.run(body)
    assert {"moot://debates/{debate_id}", "moot://debates/{debate_id}/report.html"} <= set(seen["templates"])
    assert "moot://judges" in seen["static"]
    for key in ("json", "prefix"):
        item = seen[key].contents[0]
        assert isinstance(item, TextResourceContents) and item.mime_type == "application/json"
        assert json.loads(item.text) == seen["result"]
    page = seen["html"].contents[0]
    assert isinstance(page, TextResourceContents) and page.mime_type == "text/html" and "<html" in page.text
    lineup = json.loads(seen["judges"].contents[0].text)
    assert lineup["judges"] and all(j["usable"] for j in lineup["judges"])
    assert "judges_file" in lineup
    assert "no-such-debate" in seen["missing"]


if __name__ == "__main__":  # python -m tests.test_mcp_prompts: write the prompts' skills from the plugin's
    for c in COMMANDS:
        (SHIPPED / f"{c.name}.md").write_text(prompt_skill(c.name))
