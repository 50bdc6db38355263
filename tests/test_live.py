"""Live vendor checks: one real, short debate per vendor. Skipped unless MOOT_LIVE=1 and the vendor's key
is set; they spend a few cents each (capped with --max-cost).

    MOOT_LIVE=1 OPENAI_API_KEY=... ANTHROPIC_API_KEY=... GEMINI_API_KEY=... XAI_API_KEY=... \
        python -m pytest tests/test_live.py -m live -v
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from moot.cli.app import main

pytestmark = pytest.mark.live

VENDORS = [
    ("openai", "OPENAI_API_KEY", "openai/gpt-5-mini"),
    ("anthropic", "ANTHROPIC_API_KEY", "haiku"),
    ("gemini", "GEMINI_API_KEY", "gemini/gemini-2.5-flash"),
    ("xai", "XAI_API_KEY", "grok-4"),
]


@pytest.mark.parametrize(("vendor", "env", "model"), VENDORS, ids=[v[0] for v in VENDORS])
def test_one_short_real_debate_per_vendor(
    vendor: str, env: str, model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if os.environ.get("MOOT_LIVE") != "1" or not os.environ.get(env):
        pytest.skip(f"live test: set MOOT_LIVE=1 and {env}")
    artifact = tmp_path / "add.py"
    artifact.write_text("def add(a: int, b: int) -> int:\n    return a + b\n", encoding="utf-8")
    judges = tmp_path / "judges.yaml"
    entries = [{"model": model, "stance": s, "max_tokens": 3000, "timeout": 180} for s in ("for", "against")]
    judges.write_text(yaml.safe_dump({"debate_judges": entries}), encoding="utf-8")
    code = main(
        [
            *("evaluate", "-s", str(artifact), "--task", "Add two integers", "--judges", str(judges)),
            *("--mode", "quick", "--max-cost", "0.50", "--format", "json", "--no-reports"),
        ]
    )
    cap = capsys.readouterr()
    assert code == 0, cap.err
    out = json.loads(cap.out)
    assert out["rounds_completed"] == 1
    assert all(j["answered_by"] for j in out["judges"] if j["status"] == "ok")
    assert out["spend"]["input_tokens"] > 0 and out["spend"]["cost_usd"] > 0
    assert os.environ[env] not in cap.out + cap.err
