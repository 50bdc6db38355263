"""A mixed panel (one judge per vendor wire plus a local model) runs a full `moot evaluate` debate through
the real SDKs against the local server; credentials reach the vendors and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, KEYS, round1, round2

SECRETS = {
    "OPENAI_API_KEY": "sk-openai-SECRET-0001",
    "ANTHROPIC_API_KEY": "sk-ant-SECRET-0002",
    "GEMINI_API_KEY": "gm-SECRET-0003",
}


def mixed_panel(server: FakeLLMServer, path: Path) -> Path:
    judges = [
        {"model": "gpt-5.2", "provider": "openai", "api_base": server.base_url, "stance": "neutral"},
        {
            "model": "claude-haiku-4-5",
            "provider": "anthropic",
            "api_base": server.root_url,
            "stance": "for",
            "fallbacks": ["claude-sonnet-4-6"],
        },
        {"model": "gemini-3-pro-preview", "provider": "gemini", "api_base": server.root_url, "stance": "against"},
        {"model": "llama3.3", "provider": "ollama", "api_base": server.base_url, "stance": "neutral"},
    ]
    data = {
        "debate_judges": judges,
        "retry": {"max_retries": 1, "base_delay": 0.01},
        "limits": {"default": {"concurrency": 4}},  # no per-minute spacing in a test
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_mixed_vendor_panel_runs_a_full_debate_and_keys_stay_out_of_everything_written(
    llm_server: FakeLLMServer,
    artifact: Path,
    tmp_path: Path,
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for env, value in SECRETS.items():
        monkeypatch.setenv(env, value)
    fours = {k: 4.0 for k in KEYS}
    llm_server.script("gpt-5.2", round1(4.0, 4), round2(4.0))
    # the Anthropic primary is down for the whole debate: its fallback takes the seat in both rounds
    llm_server.script("claude-haiku-4-5", *[Reply(status=529)] * 4)
    llm_server.script("claude-sonnet-4-6", round1(4.6, 5), round2(4.2, fours))
    llm_server.script(
        "gemini-3-pro-preview",
        Reply(status=429, headers={"retry-after": "0.05"}),
        Reply(text=round1(3.0, 3), input_tokens=3000, cached_tokens=0),
        Reply(text=round2(3.9, fours), input_tokens=5000, cached_tokens=2500),
    )
    llm_server.script("llama3.3", round1(4.0, 4), round2(4.0))

    judges = mixed_panel(llm_server, tmp_path / "judges.yaml")
    reports = tmp_path / "reports"
    code = main(
        [
            *("evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges)),
            *("--format", "json", "--progress", "--reports-dir", str(reports)),
        ]
    )
    cap = capsys.readouterr()
    assert code == 0, cap.err
    out = json.loads(cap.out)

    assert out["rounds_completed"] == 2 and out["consensus_reached_at"] == 2
    assert {r.wire for r in llm_server.requests} == {"openai", "anthropic", "gemini"}
    by_seat = {j["judge"]: j for j in out["judges"]}
    assert by_seat["judge-2"]["model"] == "claude-haiku-4-5"
    assert by_seat["judge-2"]["answered_by"] == "claude-sonnet-4-6"
    assert by_seat["judge-3"]["answered_by"] == "gemini-3-pro-preview"
    assert [j["status"] for j in out["judges"]] == ["ok"] * 4

    sp = out["spend"]
    assert sp["calls"] == 8 and sp["retries"] == 1 + 2 * 1  # gemini's 429; haiku retried once per round
    assert sp["per_judge"]["judge-4"]["cost_usd"] == 0.0  # local model
    assert all(sp["per_judge"][s]["cost_usd"] > 0 for s in ("judge-1", "judge-2", "judge-3"))
    assert sp["per_judge"]["judge-3"]["cached_tokens"] == 2500
    assert sp["cost_usd"] == pytest.approx(sum(v["cost_usd"] for v in sp["per_round"].values()))
    assert sp["unpriced_models"] == []

    # credentials went to their vendors, in the vendors' own headers ...
    headers = {r.wire: r.headers for r in llm_server.requests if r.model != "llama3.3"}
    assert headers["openai"]["authorization"] == f"Bearer {SECRETS['OPENAI_API_KEY']}"
    assert f"Bearer {SECRETS['ANTHROPIC_API_KEY']}" in headers["anthropic"].values() or (
        headers["anthropic"].get("x-api-key") == SECRETS["ANTHROPIC_API_KEY"]
    )
    assert headers["gemini"]["x-goog-api-key"] == SECRETS["GEMINI_API_KEY"]
    # ... and nowhere else: not the store, reports, logs, stdout or stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.suffix in (".db", ".sqlite", ".sqlite3") or "db" in p.name for p in written)
    assert len([p for p in written if p.parent == reports]) >= 5
    for secret in SECRETS.values():
        assert secret not in cap.out and secret not in cap.err
        for p in written:
            assert secret.encode() not in p.read_bytes(), f"{secret} written to {p}"

    # moot show reads the debate back from the store with the same spend
    assert main(["show", out["debate_id"], "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["spend"]["per_judge"] == sp["per_judge"]
    assert main(["show", out["debate_id"], "--calls"]) == 0
    calls_text = capsys.readouterr().out
    assert "claude-sonnet-4-6" in calls_text and "gemini-3-pro-preview" in calls_text
