"""`--dry-run` sends nothing, so it needs no API key; a real run without one is still bad input (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from moot.cli.app import main
from moot.store.db import Store


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.endswith("_API_KEY"):
            monkeypatch.delenv(name)


def test_evaluate_dry_run_with_the_default_lineup_needs_no_key(
    artifact: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evaluate", "-s", str(artifact), "--dry-run", "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    runs_on = [r for j in plan["judges"] for r in j["runs_on"]]
    assert runs_on == ["gemini/gemini-3-pro-preview", "openai/gpt-5.2", "xai/grok-4"]
    assert plan["dry_run"] is True and len(plan["calls"]) == 9
    assert main(["evaluate", "-s", str(artifact), "--dry-run"]) == 0
    assert capsys.readouterr().out.startswith("Dry run: nothing was sent. 3 judges")


def test_decide_dry_run_needs_no_key(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["decide", "--question", "Offline mode?", "--option", "A=No", "--option", "B=Yes", "--dry-run"]
    assert main([*argv, "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["judges"]) == 3


def test_fallbacks_without_keys_are_planned_too(
    artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judges = tmp_path / "j.yaml"
    judges.write_text(yaml.safe_dump({"debate_judges": [{"model": "haiku", "fallbacks": ["gpt-5.2"]}, "grok-4"]}))
    assert main(["evaluate", "-s", str(artifact), "--judges", str(judges), "--dry-run", "--format", "json"]) == 0
    runs_on = [j["runs_on"] for j in json.loads(capsys.readouterr().out)["judges"]]
    assert runs_on == [["anthropic/claude-haiku-4-5", "openai/gpt-5.2"], ["xai/grok-4"]]


def test_a_real_run_without_a_key_is_exit_2_and_stores_nothing(
    artifact: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evaluate", "-s", str(artifact)]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "moot: error: judge 'gemini-3-pro-preview' (gemini-3-pro-preview) needs an API key: "
        "set GEMINI_API_KEY or GOOGLE_API_KEY"
    ]
    store = Store.open_default()
    assert store.list_debates() == []
    store.close()


def test_dry_run_in_a_fresh_process_with_no_key_in_the_environment(artifact: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    r = subprocess.run(
        [sys.executable, "-m", "moot", "evaluate", "-s", str(artifact), "--dry-run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert "Dry run: nothing was sent" in r.stdout and "| Scenario |" in r.stdout


def test_every_dry_run_names_each_missing_key_as_a_warning(artifact: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "-s", str(artifact), "--dry-run", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["warnings"] == [
        "judge-1 (gemini-3-pro-preview): needs an API key: set GEMINI_API_KEY or GOOGLE_API_KEY",
        "judge-2 (gpt-5.2): needs an API key: set OPENAI_API_KEY",
        "judge-3 (grok-4): needs an API key: set XAI_API_KEY",
    ]
    argv = ["decide", "--question", "Offline mode?", "--option", "A=No", "--option", "B=Yes", "--dry-run"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("Warning: ") == 3 and "needs an API key: set" in out and "a real run does" in out


def test_a_fallback_whose_sdk_is_missing_is_named(
    artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # the SDK cannot be imported here
    monkeypatch.setenv("XAI_API_KEY", "x")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    judges = tmp_path / "j.yaml"
    judges.write_text(yaml.safe_dump({"debate_judges": [{"model": "grok-4", "fallbacks": ["haiku"]}, "grok-4"]}))
    assert main(["evaluate", "-s", str(artifact), "--judges", str(judges), "--dry-run", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["warnings"] == [
        "judge-1's fallback claude-haiku-4-5: SDK 'anthropic' not installed: pip install 'moot[anthropic]'"
    ]


def test_challenge_dry_run_with_no_agent_cli_on_path_plans_and_names_every_seat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no claude, gemini, codex or qwen here
    assert main(["challenge", "Use tabs", "--dry-run", "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert [j["seat"] for j in plan["judges"]] == ["proponent", "challenger-1", "challenger-2", "challenger-3"]
    assert plan["warnings"][0].startswith("a run here would stop before its first call: the proponent 'claude'")
    assert plan["warnings"][1:] == [
        f"{seat} ({cli}): agent CLI '{cli}' not found on PATH"
        for seat, cli in [
            ("proponent", "claude"),
            ("challenger-1", "gemini"),
            ("challenger-2", "codex"),
            ("challenger-3", "qwen"),
        ]
    ]
    assert (
        main(["challenge", "Use tabs"]) == 2
    )  # a real run still refuses, before any call (bad input, as a missing key)
    assert "not usable here" in capsys.readouterr().err


def test_the_bench_dry_run_follows_the_same_rule(capsys: pytest.CaptureFixture[str]) -> None:
    gold = Path(__file__).resolve().parents[1] / "src" / "moot" / "demo" / "bench" / "gold.jsonl"
    assert main(["bench", str(gold), "--dry-run", "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["warnings"] == [
        f"{seat} (sonnet): needs an API key: set ANTHROPIC_API_KEY"
        for seat in ("correctness", "correctness-2", "correctness-3")
    ]
    assert main(["bench", str(gold), "--dry-run"]) == 0
    assert "warning: correctness (sonnet): needs an API key: set ANTHROPIC_API_KEY" in capsys.readouterr().out


def test_a_dry_run_counts_no_clarifications_for_host_seats(
    artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A host seat's reply that moot cannot read is refused and asked again by its caller, never clarified:
    the cost table counts clarifications for the other seats only."""
    assert main(["evaluate", "-s", str(artifact), "--judges", "host", "--dry-run"]) == 0
    text = capsys.readouterr().out
    assert "| Round 1 consensus | 1 | 3 |" in text and "clarification" not in text, text
    mixed = tmp_path / "mixed.yaml"
    seats = [{"host": True}, {"host": True}, {"model": "gpt-5.2", "stance": "against"}]
    mixed.write_text(yaml.safe_dump({"debate_judges": seats}))
    assert main(["evaluate", "-s", str(artifact), "--judges", str(mixed), "--dry-run", "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    first = plan["scenarios"][0]
    assert first["calls"] == 3 and first["max_clarifications"] == 1, first
    assert [c["host"] for c in plan["calls"] if c["round"] == 1] == [True, True, False]
