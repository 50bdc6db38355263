"""Cache hits per round: the calls whose input a vendor's prompt cache served, as the vendor reported it on its
own wire (the local server answers OpenAI's `prompt_tokens_details.cached_tokens`), counted per round and per
judge in the result's spend (JSON), in the spend table (`moot show`) and in the view's report and calls."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply
from moot.view.pages import debate_page
from moot.view.reader import ReadOnlyStore
from moot.view.render import render

from .replies import CRITERIA, KEYS, round1, round2

MODELS = ["judge-a", "judge-b", "judge-c"]


def run(server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    fours = dict.fromkeys(KEYS, 4.0)
    for model, score, cached in zip(MODELS, (4.6, 2.8, 4.0), (2000, 0, 1500), strict=True):  # apart: round 2
        server.script(
            model,
            Reply(text=round1(score, 4), input_tokens=4000),
            Reply(text=round2(4.0, fours), input_tokens=6000, cached_tokens=cached),  # judge-b: a miss
        )
    judges = tmp_path / "judges.yaml"
    seats = [{"model": m, "api_base": server.base_url, "stance": s} for m, s in zip(MODELS, ("neutral", "for", "against"), strict=True)]  # fmt: skip
    judges.write_text(yaml.safe_dump({"debate_judges": seats}), encoding="utf-8")
    argv = ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--format", "json"]
    assert main([*argv, "--no-reports"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_cache_hits_per_round_reach_the_json_the_table_and_the_view(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run(llm_server, artifact, tmp_path, capsys)
    rounds = out["spend"]["per_round"]
    assert [(r["cache_hits"], r["calls"], r["cached_tokens"]) for r in rounds.values()] == [(0, 3, 0), (2, 3, 3500)]
    assert [out["spend"]["per_judge"][j]["cache_hits"] for j in ("judge-1", "judge-2", "judge-3")] == [1, 0, 1]
    assert out["spend"]["cache_hits"] == 2

    assert main(["show", out["debate_id"]]) == 0
    table = capsys.readouterr().out
    assert "| round 1 | 3 | 12,000 | 0% | " in table  # no hit: the share alone, as before
    assert "| round 2 | 3 | 18,000 | 19%, 2/3 calls | " in table
    assert "| **Total** | 6 | 30,000 | 12%, 2/6 calls | " in table

    store = ReadOnlyStore(Path(os.environ["MOOT_HOME"]) / "moot.db")
    page = debate_page(store, out["debate_id"], batches=False)
    assert page is not None
    html = render("debate.html.j2", path=f"/debates/{page.id}", page=page)
    assert "<th>Cached</th>" in page.report and "<td>19%, 2/3 calls</td>" in page.report  # the cost per round
    assert html.count("(2000 cached)") == 1 and html.count("(1500 cached)") == 1  # the calls a cache served
