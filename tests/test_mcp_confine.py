"""Issue 27 §2 and §3: a tool call reads and writes only inside the server's roots, and a judges file it names
runs no program unless the server allows it; driven by the SDK's own client, in-process and over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client, StdioServerParameters
from mcp.types import ListRootsResult, Root

from moot.mcp import build_server
from moot.testing.fake_llm_server import FakeLLMServer

from .replies import CRITERIA, round1

Calls = list[tuple[str, dict[str, Any]]]


def call_all(calls: Calls, *, roots: list[Path] | None = None, **server: Any) -> list[Any]:
    """Each (tool, arguments) called in turn on one fresh in-process server; the results in order."""
    out: list[Any] = []

    async def list_roots(_context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=r.as_uri()) for r in roots or []])  # type: ignore[arg-type]

    async def run() -> None:
        callback = list_roots if roots is not None else None
        async with Client(build_server(**server), list_roots_callback=callback) as client:
            for tool, arguments in calls:
                out.append(await client.call_tool(tool, arguments))

    anyio.run(run)
    return out


def error_of(result: Any) -> str:
    assert result.is_error, result.content
    text: str = result.content[0].text
    assert "\n" not in text.strip()  # one line
    return text.partition(": ")[2] if text.startswith("Error executing tool") else text  # the SDK's prefix


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The server's working folder (its root when the client declares none), with one artifact in it; a
    secret beside it, outside."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "plan.md").write_text("# Plan\nShip it.\n", encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.md").write_text("SECRET-TOKEN-123\n", encoding="utf-8")
    monkeypatch.chdir(folder)
    return folder


def api_judges(folder: Path, server: FakeLLMServer, **extra: Any) -> Path:
    """Three judges on the local scripted server (none scripted: a call that reached it would fail loudly)."""
    judges = [{"model": f"judge-{n}", "api_base": server.base_url, **extra} for n in "abc"]
    path = folder / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": judges}), encoding="utf-8")
    return path


def evaluate(judges: Path, *solution: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return "evaluate", {"solution": list(solution), "criteria": CRITERIA, "judges": str(judges), **more}


def test_reads_and_writes_outside_the_roots_are_refused_before_any_call(
    work: Path, tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    judges = api_judges(work, llm_server)
    outside_html = tmp_path / "outside" / "x.html"
    mine = work / "notes.html"  # a file inside the root that moot did not write
    mine.write_text("my notes\n", encoding="utf-8")
    mine.chmod(0o644)
    results = call_all(
        [
            evaluate(judges, "/etc/hostname"),
            evaluate(judges, str(tmp_path / "outside" / "secret.md")),
            evaluate(judges, "../outside/*.md"),
            evaluate(judges, "plan.md", html=str(outside_html)),
            evaluate(judges, "plan.md", reports_dir=str(tmp_path / "outside" / "reports")),
            evaluate(judges, "plan.md", html=str(mine)),
            ("evaluate", {"solution": ["plan.md"], "judges": str(tmp_path / "outside" / "judges.yaml")}),
            (
                "decide",
                {"question": "Ship?", "option": ["A=yes", "B=no"], "judges": str(judges), "context": ["/etc/hostname"]},
            ),
            ("challenge", {"topic": "Ship?", "judges": str(judges), "context": ["../outside/secret.md"]}),
            ("doctor", {"judges": "/etc/hostname"}),
            ("list_debates", {}),
        ]
    )
    errors = [error_of(r) for r in results[:-1]]
    assert errors[0].startswith("refused to read /etc/hostname: outside the MCP server's roots")
    assert "refused to read" in errors[1] and "secret.md" in errors[1]
    assert "refused to read" in errors[2]
    assert errors[3].startswith(f"refused to write {outside_html}: outside the MCP server's roots")
    assert "refused to write in" in errors[4]
    assert errors[5] == f"refused to write {mine}: the file exists and moot did not write it"
    assert all("refused to read" in e for e in errors[6:])
    # nothing read was sent: no judge was called, no debate stored, nothing written
    assert llm_server.requests == []
    assert results[-1].structured_content == {"debates": []}
    assert not outside_html.exists() and not (tmp_path / "outside" / "reports").exists()
    assert mine.read_text(encoding="utf-8") == "my notes\n" and mine.stat().st_mode & 0o777 == 0o644
    assert not (work / ".specs").exists()


def test_a_link_inside_a_root_that_points_outside_is_refused(work: Path, tmp_path: Path) -> None:
    (work / "link.md").symlink_to(tmp_path / "outside" / "secret.md")
    (work / "docs").mkdir()
    (work / "docs" / "readme.md").write_text("fine\n", encoding="utf-8")
    (work / "docs" / "more.md").symlink_to(tmp_path / "outside" / "secret.md")
    (work / "out").symlink_to(tmp_path / "outside", target_is_directory=True)
    panel = work / "panel.yaml"
    panel.write_text(yaml.safe_dump({"debate_judges": [{"model": "s", "replies": []}] * 3}), encoding="utf-8")
    results = call_all(
        [
            evaluate(panel, "link.md", dry_run=True),
            evaluate(panel, "docs", dry_run=True),
            evaluate(panel, "plan.md", html="out/x.html"),
            evaluate(panel, "plan.md", dry_run=True),
        ]
    )
    assert error_of(results[0]).startswith("refused to read link.md: outside the MCP server's roots")
    assert "refused to read docs/more.md" in error_of(results[1])
    assert error_of(results[2]).startswith("refused to write out/x.html")
    assert not (tmp_path / "outside" / "x.html").exists()
    assert not results[3].is_error, results[3].content  # the same call on a file inside the root is planned


def command_panel(folder: Path, marker: Path) -> Path:
    """Two scripted judges and a `command:` judge that leaves a marker file when it runs (one round)."""
    reply = folder / "reply.yaml"
    reply.write_text(round1(4.0, 4), encoding="utf-8")
    judges: list[dict[str, Any]] = [
        {"model": "scripted", "name": n, "replies": [round1(4.0, 4)]} for n in ("alpha", "beta")
    ]
    judges.append({"name": "gamma", "command": ["sh", "-c", f"touch '{marker}'; cat '{reply}'"]})
    path = folder / "commands.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": judges}), encoding="utf-8")
    return path


def test_a_command_judge_in_a_named_file_needs_allow_commands(work: Path) -> None:
    marker = work / "ran"
    panel = command_panel(work, marker)
    call = evaluate(panel, "plan.md", mode="quick", no_reports=True)
    refused = call_all([call, ("doctor", {"judges": str(panel)})])
    assert error_of(refused[0]) == (
        f"judges file {panel}: judge 'gamma' is a 'command:' judge, which runs a program: refused over MCP "
        "unless the server was started with `moot mcp --allow-commands`"
    )
    assert "'command:' judge" in error_of(refused[1])
    assert not marker.exists()  # the command never ran
    agent = work / "agent.yaml"
    agent.write_text(yaml.safe_dump({"debate_judges": [{"cli": "claude", "allow_tools": True}] * 2}), encoding="utf-8")
    [refused_cli] = call_all([evaluate(agent, "plan.md", dry_run=True)])
    assert "judge 'claude' is a 'cli:' judge, which runs a program" in error_of(refused_cli)
    allowed = call_all([call], allow_commands=True)
    assert not allowed[0].is_error, allowed[0].content
    assert marker.exists()
    assert allowed[0].structured_content["summary"]["final_verdict"] == "PASS"


def test_a_named_file_may_send_no_variable_but_an_api_key(
    work: Path, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-value")
    judges = api_judges(work, llm_server, api_key_env="AWS_SECRET_ACCESS_KEY")
    results = call_all([evaluate(judges, "plan.md")], allow_commands=True)
    assert error_of(results[0]) == (
        f"judges file {judges}: judge 'judge-a' would send AWS_SECRET_ACCESS_KEY to 127.0.0.1; over MCP a named "
        "file may send only a vendor's own key to that vendor's endpoint, unless the server was started with "
        "`moot mcp --allow-key-servers`"
    )
    assert llm_server.requests == []


def test_the_client_roots_replace_the_working_folder(work: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.md").write_text("# A\n", encoding="utf-8")
    panel = other / "panel.yaml"
    panel.write_text(yaml.safe_dump({"debate_judges": [{"model": "s", "replies": []}] * 3}), encoding="utf-8")
    results = call_all(
        [evaluate(panel, str(other / "a.md"), dry_run=True), evaluate(panel, str(work / "plan.md"), dry_run=True)],
        roots=[other],
    )
    assert not results[0].is_error, results[0].content
    assert "refused to read" in error_of(results[1])  # the working folder is no root once the client names its own


def test_html_dash_returns_the_report_and_decide_writes_no_files_unless_asked(work: Path, tmp_path: Path) -> None:
    from .scripted_panels import converging_panel, decide_panel
    from .test_decide_support import OPTIONS, QUESTION

    panel = converging_panel(work)
    decide = {"question": QUESTION, "option": OPTIONS, "judges": str(decide_panel(work))}
    results = call_all(
        [
            evaluate(panel, "plan.md", no_reports=True, html="-"),
            ("decide", decide),
            ("decide", {**decide, "feature_dir": "feature"}),
        ]
    )
    assert not results[0].is_error, results[0].content
    page = results[0].content[1].resource
    assert page.mime_type == "text/html" and '<meta name="generator" content="moot">' in page.text
    assert not list(work.glob("*.html"))
    assert not results[1].is_error and not (work / ".specs").exists()  # over MCP: no files unless asked
    assert not results[2].is_error and list((work / "feature" / "sadd").iterdir())


def test_stdio_server_takes_root_and_allow_commands(work: Path, tmp_path: Path, isolated_home: Path) -> None:
    marker = tmp_path / "extra" / "ran"
    (tmp_path / "extra").mkdir()
    panel = command_panel(tmp_path / "extra", marker)
    env = {"MOOT_HOME": str(isolated_home), "PATH": os.environ.get("PATH", "")}
    seen: list[Any] = []

    async def run(*flags: str) -> None:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "moot", "mcp", *flags], env=env, cwd=str(work)
        )
        async with Client(params, read_timeout_seconds=60) as client:
            seen.append(await client.call_tool(*evaluate(panel, "plan.md", mode="quick", no_reports=True)))

    anyio.run(run)
    assert "refused to read" in error_of(seen[0])  # the panel is outside the working folder
    anyio.run(run, "--root", str(tmp_path / "extra"))
    assert "'command:' judge" in error_of(seen[1]) and not marker.exists()
    anyio.run(run, "--root", str(tmp_path / "extra"), "--allow-commands")
    assert not seen[2].is_error, seen[2].content
    assert marker.exists()


def test_the_project_file_above_the_working_folder_is_read_as_configuration(work: Path, tmp_path: Path) -> None:
    judges = [{"model": "scripted", "name": n, "replies": [round1(4.0, 4)]} for n in ("alpha", "beta", "gamma")]
    (tmp_path / "moot.yaml").write_text(yaml.safe_dump({"debate_judges": judges}), encoding="utf-8")
    [result] = call_all([("evaluate", {"solution": ["plan.md"], "criteria": CRITERIA, "dry_run": True})])
    assert not result.is_error, result.content
    assert [j["model"] for j in result.structured_content["judges"]] == ["alpha", "beta", "gamma"]


def test_moot_rewrites_its_own_files_across_servers_but_not_one_edited_since(work: Path) -> None:
    from .scripted_panels import decide_panel
    from .test_decide_support import OPTIONS, QUESTION

    decide = (
        "decide",
        {"question": QUESTION, "option": OPTIONS, "judges": str(decide_panel(work)), "feature_dir": "f"},
    )
    [first] = call_all([decide])
    assert not first.is_error, first.content
    [again] = call_all([decide])  # a new server: the files are still exactly what moot wrote
    assert not again.is_error, again.content
    record = next((work / "f" / "sadd").glob("*decision*"), None) or sorted((work / "f" / "sadd").iterdir())[-1]
    record.write_text("my own edits\n", encoding="utf-8")
    [refused] = call_all([decide])
    assert error_of(refused) == f"refused to write f/sadd/{record.name}: the file exists and moot did not write it"
    assert record.read_text(encoding="utf-8") == "my own edits\n"


def test_a_root_that_is_no_folder_stops_the_server_at_start(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from moot.cli.app import main

    assert main(["mcp", "--root", "nope"]) == 2
    assert capsys.readouterr().err == "moot: error: --root nope is not a folder\n"


def test_reports_inside_a_root_are_written_and_appended_round_by_round(work: Path) -> None:
    from .scripted_panels import converging_panel

    [result] = call_all([evaluate(converging_panel(work), "plan.md", reports_dir="reports")])
    assert not result.is_error, result.content
    reports = result.structured_content["reports"]
    assert len(reports) == 4 and all(Path(r).is_file() for r in reports)
    judge_report = Path(reports[0]).read_text(encoding="utf-8")
    assert "## Debate Round 2" in judge_report  # round 2 appended to the file round 1 wrote


def test_html_is_an_html_file_outside_the_folders_code_is_loaded_from(work: Path, llm_server: FakeLLMServer) -> None:
    """A report holds text the call chose (its task): written as a `.pth` file in a virtualenv inside the
    root, the next Python to start would run it; a file that merely quotes moot's generator tag is no report."""
    judges = api_judges(work, llm_server)
    site = work / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    mimic = work / "important.txt"
    mimic.write_text('<meta name="generator" content="moot">\nimport os\n', encoding="utf-8")
    mimic.chmod(0o640)
    page = work / "page.html"
    page.write_text('<p><meta name="generator" content="moot"></p>\n', encoding="utf-8")
    results = call_all(
        [
            evaluate(judges, "plan.md", task="x\nimport os;os.system('touch PWNED') #", html=str(site / "_r.pth")),
            evaluate(judges, "plan.md", html=str(site / "report.html")),
            evaluate(judges, "plan.md", html=str(mimic)),
            evaluate(judges, "plan.md", html=str(page)),
            evaluate(judges, "plan.md", html=str(work / ".git" / "hooks" / "pre-commit")),
        ]
    )
    errors = [error_of(r) for r in results]
    assert errors[0].endswith("an HTML report's file name ends in .html or .htm")
    assert errors[1].endswith("it is inside a folder code is loaded from")
    assert errors[2].endswith("an HTML report's file name ends in .html or .htm")
    assert errors[3].endswith("the file exists and moot did not write it")
    assert "ends in .html" in errors[4]
    assert llm_server.requests == [] and list(site.iterdir()) == []
    assert mimic.stat().st_mode & 0o777 == 0o640 and "import os" in mimic.read_text(encoding="utf-8")
