"""Issue 30 §3: an honest panel. Seats of one model, of one family, or of the model that wrote the artifact
are named in the envelope's `panel`, printed once before round 1 and by `--dry-run`, and a one-family
panel never reports HIGH confidence; all against the scripted OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from moot.cli.app import main
from moot.judges.families import family_of
from moot.judges.providers import alias_target
from moot.schemas.envelope import shipped_schema
from moot.testing import FakeLLMServer

from .replies import CRITERIA, round1


@pytest.mark.parametrize(
    ("model", "provider", "family"),
    [
        ("gpt-5.2", "openai", "openai"),
        ("gpt-5-mini", "openai", "openai"),
        ("openai/gpt-5.2", "", "openai"),
        ("haiku", "", "anthropic"),
        ("claude-sonnet-4-6", "anthropic", "anthropic"),
        ("openrouter/anthropic/claude-sonnet-4-6", "", "anthropic"),
        ("gemini-2.5-flash", "gemini", "gemini"),
        ("grok-4", "xai", "xai"),
        ("llama3.3:70b", "ollama", "llama3.3"),
        ("smollm2", "custom", "smollm2"),
        ("codex", "cli", "openai"),
        ("gpt-5.2", "scripted", "openai"),
        ("scripted", "scripted", ""),
        ("alpha", "function", ""),
    ],
)
def test_a_models_family_comes_from_the_provider_table(model: str, provider: str, family: str) -> None:
    assert family_of(model, provider) == family


def _args(artifact: Path, judges: Path, *extra: str) -> list[str]:
    return ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--no-reports", *extra]


def _agreeing(server: FakeLLMServer, models: list[str]) -> None:
    """Known names reach the server as the provider table writes them (`openai/gpt-5.2`)."""
    for model in models:
        server.script(alias_target(model), round1(4.3, 4))


def test_a_one_family_panel_warns_by_key_and_never_reports_high(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    models = ["gpt-5.2", "gpt-5.2", "gpt-5-mini"]
    _agreeing(llm_server, models)
    judges = judges_file(models)
    code = main(_args(artifact, judges, "--author-model", "gpt-5-mini", "--format", "json", "--progress"))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    out = json.loads(captured.out)
    jsonschema.Draft202012Validator(shipped_schema()).validate(out)
    panel = out["panel"]
    assert [s["family"] for s in panel["seats"]] == ["openai"] * 3
    assert panel["models"] == ["gpt-5.2", "gpt-5-mini"] and panel["families"] == ["openai"]
    assert [w["key"] for w in panel["warnings"]] == ["same_model", "same_family", "author_on_panel"]
    assert "judge-1, judge-2" in panel["warnings"][0]["message"]
    assert "judge-3" in panel["warnings"][2]["message"]
    # the panel agreed in round 1 (consensus), which would be HIGH: one family makes it MEDIUM, saying why
    assert out["consensus_reached"] is True
    assert out["verdict"]["confidence"] == "MEDIUM" and out["summary"]["confidence"] == "MEDIUM"
    assert any("same_family" in n for n in out["notes"])
    # each warning once, naming its key, before round 1 starts
    err = captured.err
    for key in ("same_model", "same_family", "author_on_panel"):
        assert err.count(f"panel warning ({key})") == 1
    assert err.index("panel warning (same_model)") < err.index("round 1")


def test_a_mixed_panel_keeps_high_and_the_dry_run_names_the_warnings(
    llm_server: FakeLLMServer, judges_file, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    models = ["gpt-5.2", "claude-sonnet-4-6", "gemini-2.5-pro"]
    _agreeing(llm_server, models)
    code = main(_args(artifact, judges_file(models), "--format", "json"))
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["panel"]["warnings"] == [] and out["verdict"]["confidence"] == "HIGH"
    assert out["panel"]["families"] == ["openai", "anthropic", "gemini"]

    # the judges file's `author_model:` names the author; the dry run prints every warning, sends nothing
    judges = judges_file(["gpt-5.2", "gpt-5-mini"], name="same.yaml", author_model="gpt-5.2")
    sent = len(llm_server.requests)
    assert main(_args(artifact, judges, "--dry-run")) == 0
    text = capsys.readouterr().out
    for key in ("same_family", "author_on_panel"):
        assert text.count(f"panel warning ({key})") == 1
    assert "panel warning (same_model)" not in text
    assert main(_args(artifact, judges, "--dry-run", "--format", "json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert [w["key"] for w in data["panel"]["warnings"]] == ["same_family", "author_on_panel"]
    assert len(llm_server.requests) == sent


def test_a_blank_author_model_is_bad_input(judges_file, artifact: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    assert main(_args(artifact, judges_file(), "--author-model", " ")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--author-model" in err


def test_decide_and_the_api_take_the_author_model(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    import moot
    from moot.judges.scripted import ScriptedJudge
    from moot.protocol.panel import Panelist

    from .test_decide_support import r1

    judges = [
        Panelist(ScriptedJudge([r1("A")], model="gpt-5.2"), stance=stance, name=stance)
        for stance in ("risk", "value", "effort")
    ]
    result = moot.decide_sync(
        question="Which?", options=["A=one", "B=two"], judges=judges, author_model="openai/gpt-5.2", store=None
    )
    assert result.consensus and result.confidence == "MEDIUM" and result.verdict.confidence == "MEDIUM"
    assert result.panel is not None
    assert [w.key for w in result.panel.warnings] == ["same_model", "same_family", "author_on_panel"]


def test_a_resumed_debate_keeps_its_author_model(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    from moot.store import Store
    from moot.testing import Reply

    judges = judges_file(retry={"max_retries": 0})
    llm_server.script("judge-a", round1(4.0, 4))
    llm_server.script("judge-b", Reply(status=503))
    llm_server.script("judge-c", Reply(status=503))
    assert main(_args(artifact, judges, "--author-model", "judge-b")) == 3  # the vendor is down: resumable
    capsys.readouterr()
    (row,) = Store.open_default().list_debates()
    llm_server.script("judge-b", round1(4.2, 4))
    llm_server.script("judge-c", round1(4.1, 4))
    assert main(["resume", row.id, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["panel"]["author_model"] == "judge-b"
    assert [w["key"] for w in out["panel"]["warnings"]] == ["author_on_panel"]
