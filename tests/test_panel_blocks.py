"""Issue 32: each protocol owns its judges-file block. The kernel's judges file reads only the
protocol-neutral keys and keeps every other one raw; the protocol that declares a key (its spec's `settings`)
validates it, when the file is loaded, before any call. Shown with the toy `vote` protocol, installed as a
plugin would be, which declares a `vote:` block moot itself knows nothing of."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import moot.protocols
from moot import file_blocks
from moot.cli.app import main
from moot.panel_file import load_panel_file
from moot.testing import FakeLLMServer

TOY = Path(__file__).resolve().parent / "toy_protocol"
MODELS = ("v1", "v2", "v3")
QUESTION = "Should the release go out on Friday?"


def _forget_protocols() -> None:
    importlib.invalidate_caches()
    moot.protocols.entries.cache_clear()
    moot.protocols.spec_for.cache_clear()


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`vote` installed as another distribution would install it (its dist-info and entry point on the path)."""
    info = tmp_path / "site" / "moot_toy-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: moot-toy\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[moot.protocols]\nvote = moot_toy\n", encoding="utf-8")
    for path in (str(TOY), str(tmp_path / "site")):
        monkeypatch.syspath_prepend(path)
    _forget_protocols()
    yield
    monkeypatch.undo()
    _forget_protocols()


def _file(tmp_path: Path, server: FakeLLMServer, **blocks: object) -> Path:
    path = tmp_path / "judges.yaml"
    data = {"debate_judges": [{"model": m, "api_base": server.base_url} for m in MODELS], **blocks}
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _reply(answer: str) -> str:
    return "```yaml\n" + yaml.safe_dump({"answer": answer, "reason": f"{answer}, on balance"}) + "```"


def test_the_kernel_alone_passes_a_protocols_block_on_raw(
    tmp_path: Path, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(file_blocks, "_sources", [])  # no registry: the kernel knows no protocol's keys
    path = _file(tmp_path, llm_server, vote={"rounds": 7, "whatever": [1]}, consensus={"aggregate": "mode"})
    panel = load_panel_file(path)
    assert panel.blocks == {"vote": {"rounds": 7, "whatever": [1]}, "consensus": {"aggregate": "mode"}}
    assert [s.model for s in panel.panel or []] == list(MODELS)


def test_the_protocol_that_declares_a_block_applies_it(
    plugin: None, tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("v1", _reply("yes"))
    llm_server.script("v2", _reply("no"))
    llm_server.script("v3", _reply("yes"))
    path = _file(tmp_path, llm_server, vote={"rounds": 1})
    assert load_panel_file(path).blocks == {"vote": {"rounds": 1}}  # kept as written
    assert main(["vote", QUESTION, "--judges", str(path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rounds_completed"] == 1 and (out["yes"], out["no"]) == (2, 1)  # split, yet no second round
    assert [len(llm_server.calls_for(m)) for m in MODELS] == [1, 1, 1]


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"vote": {"rounds": 3}}, "vote.rounds: Input should be less than or equal to 2"),
        ({"vote": {"round": 1}}, "vote.round: unknown key"),
        ({"votes": {"rounds": 1}}, "votes: unknown key"),  # a key no protocol declares
    ],
)
def test_a_bad_block_is_refused_by_its_protocol_before_any_call(
    plugin: None,
    tmp_path: Path,
    llm_server: FakeLLMServer,
    capsys: pytest.CaptureFixture[str],
    block: dict[str, object],
    message: str,
) -> None:
    path = _file(tmp_path, llm_server, **block)
    for argv in (
        ["vote", QUESTION],
        ["vote", QUESTION, "--dry-run"],
        ["decide", "-q", QUESTION, "-o", "A=x", "-o", "B=y"],
    ):
        assert main([*argv, "--judges", str(path)]) == 2
        err = capsys.readouterr().err
        assert err == f"moot: error: judges file {path}: {message}\n", argv
    assert llm_server.requests == []


def test_without_the_protocol_its_block_is_an_unknown_key(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "vote" not in moot.protocols.names()
    path = _file(tmp_path, llm_server, vote={"rounds": 1})
    assert main(["decide", "-q", QUESTION, "-o", "A=x", "-o", "B=y", "--judges", str(path), "--dry-run"]) == 2
    assert capsys.readouterr().err == f"moot: error: judges file {path}: vote: unknown key\n"


def test_the_kernel_names_only_the_shared_keys_and_each_protocol_its_own() -> None:
    from moot.panel_file import PanelFile

    shared = {"debate_judges", "judges", "max_rounds", "aliases", "pricing", "limits", "retry", "budget"}
    assert set(PanelFile.model_fields) == shared | {"author_model", "blocks", "path"}
    declared = {spec.name: set(spec.settings.model_fields) for spec in moot.protocols.specs() if spec.settings}
    assert declared == {
        "evaluate": {"consensus", "verdict", "moderator", "rubric_model"},
        "decide": {"debate_config"},
        "challenge": {"proponent", "challengers", "timeout_per_cli", "min_challengers"},
    }
