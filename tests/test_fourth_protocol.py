"""A fourth protocol from the registry alone (issue 22): `vote`, a toy built in `tests/toy_protocol/moot_toy/`
from the kernel only and registered as a plugin would be (an entry point in the group `moot.protocols`),
runs through the API, the CLI, MCP and `moot batch` against the local server, with nothing in moot naming
it. It is never shipped: only these tests put it on the path."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

import moot
import moot.api
import moot.protocols
from moot.schemas.envelope import ENVELOPE_KEYS, shipped_schema
from moot.store.db import Store
from moot.testing import FakeLLMServer

TOY = Path(__file__).resolve().parent / "toy_protocol"
MODELS = ("v1", "v2", "v3")
QUESTION = "Should the release go out on Friday?"


def _forget_protocols() -> None:
    """The registry reads the entry points once per process: read them again."""
    importlib.invalidate_caches()
    moot.protocols.entries.cache_clear()
    moot.protocols.spec_for.cache_clear()


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """`vote` installed as another distribution would install it: its dist-info, with the entry point, on
    the path beside the package (for this process and for the commands it starts)."""
    site = tmp_path / "site"
    info = site / "moot_toy-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: moot-toy\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[moot.protocols]\nvote = moot_toy\n", encoding="utf-8")
    paths = [str(site), str(TOY)]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([*paths, *filter(None, [os.environ.get("PYTHONPATH")])]))
    for path in reversed(paths):
        monkeypatch.syspath_prepend(path)
    _forget_protocols()
    yield site
    monkeypatch.undo()
    _forget_protocols()


def _reply(answer: str, reason: str = "") -> str:
    return "```yaml\n" + yaml.safe_dump({"answer": answer, "reason": reason or f"{answer}, on balance"}) + "```"


def _judges(tmp_path: Path, server: FakeLLMServer) -> Path:
    path = tmp_path / "vote-judges.yaml"
    panel = {"debate_judges": [{"model": m, "api_base": server.base_url} for m in MODELS]}
    path.write_text(yaml.safe_dump(panel), encoding="utf-8")
    return path


def _split_then_agree(server: FakeLLMServer) -> None:
    """Round 1: two yes, one no; round 2: the third is convinced."""
    server.script("v1", _reply("yes"), _reply("yes"))
    server.script("v2", _reply("no", "nobody is on call"), _reply("yes", "v1 showed the on-call rota"))
    server.script("v3", _reply("yes"), _reply("yes"))


def _check_envelope(result: dict[str, Any]) -> None:
    """The envelope's keys first, and valid against the shipped schema (but for its list of protocol names,
    which names the built-in ones: see `test_the_shipped_schema_admits_a_plugin_protocol`)."""
    assert list(result)[: len(ENVELOPE_KEYS)] == list(ENVELOPE_KEYS)
    schema = shipped_schema()
    schema["properties"]["protocol"] = {"type": "string"}
    jsonschema.Draft202012Validator(schema).validate(result)
    assert result["protocol"] == "vote"


def test_the_api_runs_stores_and_resumes_a_plugin_protocol(
    plugin: Path, llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    spec = moot.api.spec_for("vote")
    assert spec.name == "vote" and "vote" in moot.protocols.names()
    assert {"vote", "vote_sync", "VoteResult"} <= set(moot.api.__all__)
    _split_then_agree(llm_server)
    result = moot.api.vote_sync(QUESTION, judges=str(_judges(tmp_path, llm_server)))
    data = result.model_dump(mode="json")
    _check_envelope(data)
    assert data["verdict"] == {"kind": "consensus", "answer": "yes", "confidence": "HIGH", "needs_human": False}
    assert data["rounds_completed"] == 2 and data["debate_effect"]["changed_judges"] == ["judge-2"]
    row = Store.open_default().get_debate(result.debate_id)
    assert row is not None and (row.protocol, row.status) == ("vote", "finished") and row.result == data


def test_an_interrupted_vote_resumes_without_paying_again(
    plugin: Path, llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    _split_then_agree(llm_server)
    judges = str(_judges(tmp_path, llm_server))

    async def interrupted() -> str:
        seen: dict[str, str] = {}

        def on_event(event: Any) -> None:
            if event.kind == "round_finished" and event.round == 1:
                task.cancel()  # Ctrl-C between the rounds

        task = asyncio.create_task(moot.api.vote(QUESTION, judges=judges, on_event=on_event))
        with pytest.raises(asyncio.CancelledError):
            await task
        (row,) = Store.open_default().list_debates()
        seen["id"] = row.id
        assert row.status == "interrupted"
        return seen["id"]

    debate_id = asyncio.run(interrupted())
    assert [len(llm_server.calls_for(m)) for m in MODELS] == [1, 1, 1]
    result = moot.resume_sync(debate_id)
    data = result.model_dump(mode="json")
    _check_envelope(data)
    assert data["debate_id"] == debate_id and data["verdict"]["answer"] == "yes"
    assert [len(llm_server.calls_for(m)) for m in MODELS] == [2, 2, 2]  # round 1 replayed, not asked again
    assert data["spend"]["judge_calls"] == 6


def test_the_shipped_schema_admits_a_plugin_protocol(plugin: Path, llm_server: FakeLLMServer, tmp_path: Path) -> None:
    _split_then_agree(llm_server)
    result = moot.api.vote_sync(QUESTION, judges=str(_judges(tmp_path, llm_server)))
    jsonschema.Draft202012Validator(shipped_schema()).validate(result.model_dump(mode="json"))


def test_moot_demo_exports_a_plugin_protocols_demo(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`moot demo` knows a protocol's demo from its SPEC alone."""
    from moot.cli.app import main

    assert main(["demo", "nothing"]) == 2
    assert "choose evaluate, decide, challenge, vote or bench" in capsys.readouterr().err
    folder = tmp_path / "out"
    assert main(["demo", "vote", "--export", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1:4] == ["  convinced.yaml", "  judges.yaml", "  steady.yaml"]
    assert "add --format github --require CONSENSUS to try a CI gate" in out
    assert (
        out.splitlines()[-1]
        == f"  cd {folder} && moot vote 'Should the release go out on Friday?' --judges judges.yaml"
    )
    assert (folder / "judges.yaml").is_file()


def test_moot_demo_runs_a_plugin_protocols_demo(plugin: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from moot.cli.app import main

    assert main(["demo", "vote", "--format", "json", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    _check_envelope(data)
    assert data["verdict"]["kind"] == "consensus" and data["debate_effect"]["changed_judges"] == ["judge-2"]


def test_the_toy_is_not_part_of_moot() -> None:
    """Only the tests' fixture registers it: the installed package neither ships nor lists it."""
    probe = "import importlib.util, moot.protocols as p; print(importlib.util.find_spec('moot_toy'), p.names())"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert found.stdout.strip() == "None ['evaluate', 'decide', 'challenge']"


def _moot(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "moot", *args], capture_output=True, text=True, timeout=60, cwd=cwd, check=False
    )


def test_the_cli_runs_a_plugin_protocol(plugin: Path, llm_server: FakeLLMServer, tmp_path: Path) -> None:
    listed = _moot("--help", cwd=tmp_path)
    assert listed.returncode == 0 and "\n  vote " in listed.stdout
    _split_then_agree(llm_server)
    done = _moot("vote", QUESTION, "--judges", str(_judges(tmp_path, llm_server)), "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    _check_envelope(data)
    assert data["verdict"]["answer"] == "yes"
    shown = _moot("show", data["debate_id"], "--format", "json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == data


def test_moot_show_and_list_read_a_plugin_protocols_debate(
    plugin: Path, llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    _split_then_agree(llm_server)
    result = moot.api.vote_sync(QUESTION, judges=str(_judges(tmp_path, llm_server)))
    shown = _moot("show", result.debate_id, "--format", "json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == result.model_dump(mode="json")
    text = _moot("show", result.debate_id, cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "YES" in text.stdout and "consensus: 3 yes, 0 no" in text.stdout and "v2" in text.stdout
    listed = _moot("list", "--format", "json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert [d["debate_id"] for d in json.loads(listed.stdout)["debates"]] == [result.debate_id]


def test_the_mcp_server_offers_a_plugin_protocol(plugin: Path, llm_server: FakeLLMServer, tmp_path: Path) -> None:
    import anyio
    from mcp import Client

    from moot.mcp import build_server

    _split_then_agree(llm_server)
    judges = str(_judges(tmp_path, llm_server))
    seen: dict[str, Any] = {}

    async def run() -> None:
        async with Client(build_server()) as client:
            seen["tools"] = [t.name for t in (await client.list_tools()).tools]
            seen["result"] = await client.call_tool("vote", {"question": QUESTION, "judges": judges})

    anyio.run(run)
    assert "vote" in seen["tools"]
    data = seen["result"].structured_content
    _check_envelope(data)
    assert data["verdict"]["answer"] == "yes"


def test_batch_runs_a_plugin_protocol(plugin: Path, llm_server: FakeLLMServer, tmp_path: Path) -> None:
    for model in MODELS:
        llm_server.script(model, *[_reply("yes")] * 2)
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"q{n}", "question": f"Ship {n}?"}) + "\n" for n in (1, 2)))
    out = tmp_path / "results.jsonl"
    judges = str(_judges(tmp_path, llm_server))
    done = _moot("batch", str(items), "--protocol", "vote", "--judges", judges, "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(line["id"] for line in lines) == ["q1", "q2"]
    for line in lines:
        assert line["status"] == "done"
        _check_envelope(line["result"])
