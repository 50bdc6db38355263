"""`moot bench --dry-run` on a large suite prices a stratified sample of the items, not every one: calls stay
exact, dollars are an estimate (and say so), within a percent of pricing every item."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from moot.bench import dry_run
from moot.bench.suites import load_suite
from moot.cli.app import main
from moot.testing import FakeLLMServer

from .bench_judges import judges_file
from .test_bench_cli import MODELS, PRICES


def _gold(path: Path, n: int) -> Path:
    rng = random.Random(7)
    rows = []
    for i in range(n):
        words = " ".join(rng.choice(["alpha", "beta", "gamma"]) for _ in range(rng.randint(5, 300)))
        a, b = "A " * rng.randint(10, 600), "B " * rng.randint(10, 600)
        rows.append(
            {"id": f"q{i}", "question": f"Item {i}: {words}?", "response_A": a, "response_B": b, "label": "A>B"}
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_large_suite_is_priced_from_a_sample_within_a_percent_of_every_item(
    tmp_path: Path, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    gold = _gold(tmp_path / "gold.jsonl", 300)
    judges = judges_file(tmp_path, llm_server, MODELS, pricing=PRICES)
    suite = load_suite(str(gold))

    sampled = asyncio.run(dry_run.estimate_bench(suite, judges=judges))
    monkeypatch.setattr(dry_run, "SAMPLE", 10_000)
    exact = asyncio.run(dry_run.estimate_bench(suite, judges=judges))

    assert sampled["priced"] == {"items": 64, "of": 300, "estimated": True}
    assert exact["priced"] == {"items": 300, "of": 300, "estimated": False}
    assert sampled["items"] == exact["items"] == 300
    assert sampled["calls"] == exact["calls"]  # the same for every item: exact either way
    for key in ("low", "high"):
        assert sampled["typical_usd"][key] == pytest.approx(exact["typical_usd"][key], rel=0.01)
    assert sampled["worst_usd"] == pytest.approx(exact["worst_usd"], rel=0.01)
    assert llm_server.requests == []


def test_the_text_says_the_dollars_are_an_estimate(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = _gold(tmp_path / "gold.jsonl", 100)
    judges = judges_file(tmp_path, llm_server, MODELS, pricing=PRICES)
    assert main(["bench", str(gold), "--judges", str(judges), "--dry-run", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "100 items" in out and "dollars estimated from 64 of the 100 items" in out
    assert llm_server.requests == []
