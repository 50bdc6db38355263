"""The cap on a debate's input (issue 27 §5): an artifact or context over it is refused in one line, exit 2,
before anything is stored or sent; `--max-input-tokens` (`max_input_tokens` over MCP and from Python) raises
or lowers it, and the dry run warns as the input nears it. Every protocol takes it."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client

from moot.cli.app import main
from moot.errors import UsageError
from moot.mcp import build_server
from moot.protocol.prepared import DEFAULT_MAX_INPUT_TOKENS
from moot.protocols.evaluate.api import evaluate_sync
from moot.store import Store
from moot.testing import FakeLLMServer

from .test_batch_support import judges_for, serve


def big_file(tmp_path: Path, chars: int) -> Path:
    path = tmp_path / "big.md"
    path.write_text("word " * (chars // 5), encoding="utf-8")
    return path


def command(protocol: str, tmp_path: Path, server: FakeLLMServer, text: Path) -> list[str]:
    judges = str(judges_for(protocol, tmp_path, server))
    if protocol == "evaluate":
        return ["evaluate", "-s", str(text), "--criteria", "correctness:1", "--judges", judges, "--no-reports"]
    if protocol == "decide":
        return ["decide", "--question", "Which?", "--option", "A=x", "--option", "B=y", "--context", str(text),
                "--judges", judges, "--no-files"]  # fmt: skip
    return ["challenge", "Shard by customer id?", "--context", str(text), "--judges", judges]


@pytest.mark.parametrize("protocol", ["evaluate", "decide", "challenge"])
def test_an_input_over_the_cap_is_one_line_exit_2_and_nothing_sent(
    protocol: str,
    llm_server: FakeLLMServer,
    tmp_path: Path,
    isolated_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    serve(llm_server)
    argv = command(protocol, tmp_path, llm_server, big_file(tmp_path, 8_000))  # about 2,000 tokens
    assert main([*argv, "--max-input-tokens", "500", "--no-progress"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "tokens, over the cap of 500 tokens: raise the cap with --max-input-tokens" in line, line
    assert llm_server.requests == []
    assert Store(isolated_home / "moot.db").list_debates() == []
    assert main([*argv, "--max-input-tokens", "5000", "--no-progress", "--format", "json"]) == 0  # raised: it runs
    capsys.readouterr()


def test_the_dry_run_warns_near_and_over_the_cap(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = command("evaluate", tmp_path, llm_server, big_file(tmp_path, 8_000))
    for cap, words in (("2200", "% of the cap of 2,200"), ("500", "over the cap of 500: a run would be refused")):
        assert main([*argv, "--dry-run", "--format", "json", "--max-input-tokens", cap]) == 0
        warnings = json.loads(capsys.readouterr().out)["warnings"]
        assert any(words in w for w in warnings), warnings
    assert main([*argv, "--dry-run", "--format", "json", "--max-input-tokens", "100000"]) == 0
    assert not any("cap" in w for w in json.loads(capsys.readouterr().out)["warnings"])
    assert llm_server.requests == []


def test_the_default_cap_refuses_a_huge_artifact(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each file is under the 2 MB a file may hold; together they pass the default cap (a glob of a tree)."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for n in range(3):
        (tree / f"part{n}.md").write_text("word " * 300_000, encoding="utf-8")  # 1.5 MB, about 375,000 tokens
    argv = command("evaluate", tmp_path, llm_server, tree)
    assert main([*argv, "--no-progress"]) == 2
    assert f"over the cap of {DEFAULT_MAX_INPUT_TOKENS:,} tokens" in capsys.readouterr().err
    assert llm_server.requests == []


def test_mcp_and_python_take_max_input_tokens(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    text = big_file(tmp_path, 8_000)
    judges = str(judges_for("evaluate", tmp_path, llm_server))
    args = {"solution": [str(text)], "criteria": "correctness:1", "judges": judges, "no_reports": True}
    seen: dict[str, str] = {}

    async def body() -> None:
        async with Client(build_server()) as client:
            refused = await client.call_tool("evaluate", {**args, "max_input_tokens": 500})
            assert refused.is_error
            seen["tool"] = refused.content[0].text  # type: ignore[union-attr]

    anyio.run(body)
    assert "over the cap of 500 tokens" in seen["tool"]
    with pytest.raises(UsageError, match="over the cap of 500 tokens"):
        evaluate_sync(str(text), criteria="correctness:1", judges=judges, reports_dir=None, max_input_tokens=500)
    assert llm_server.requests == []


def test_too_many_files_are_refused_before_any_is_read(
    llm_server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from moot import inputs

    monkeypatch.setattr(inputs, "MAX_INPUT_FILES", 3)  # the default is 5,000: the same check, fewer files
    tree = tmp_path / "tree"
    tree.mkdir()
    for n in range(4):
        (tree / f"f{n}.py").write_text("x = 1\n", encoding="utf-8")
    argv = command("evaluate", tmp_path, llm_server, tree)
    assert main([*argv, "--no-progress"]) == 2
    assert "name more than 3 files: name fewer" in capsys.readouterr().err
    assert llm_server.requests == []
