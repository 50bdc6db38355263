"""The prompt diet and the output bounds per phase: what a 3-judge, 3-round evaluate sends beside the artifact
and the judges' replies is short, still says every rule the protocol needs, asks no key the engine knows,
and bounds a rebuttal and a final position by what they need (a judge's own `max_tokens` still wins).

The debate runs against the local server on the OpenAI wire, as a vendor's cloud gets it (its reply schema
portable, its bound in `max_completion_tokens`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

import moot
from moot.cli.app import main
from moot.testing import FakeLLMServer
from moot.testing.fake_llm_server import SeenRequest

from .replies import CRITERIA, round1, round2, round3

MODELS = ["judge-a", "judge-b", "judge-c"]


def cloud_judges(server: FakeLLMServer, **extra: Any) -> list[dict[str, Any]]:
    """Judges on the OpenAI wire as a vendor's cloud (portable schema), answered by the local server."""
    stances = ("neutral", "for", "against")
    return [
        {"model": m, "provider": "openai", "api_base": server.base_url, "api_key": "k", "stance": s, **extra}
        for m, s in zip(MODELS, stances, strict=True)
    ]


def run_three_rounds(server: FakeLLMServer, artifact: Path, **extra: Any) -> list[list[SeenRequest]]:
    for model, score in zip(MODELS, (1.5, 3.0, 4.5), strict=True):  # never converging: all three rounds run
        server.script(model, round1(score, prose=f"R1 of {model}"), round2(score), round3(score))
    judges = cloud_judges(server, **extra)
    result = moot.evaluate_sync(str(artifact), criteria=CRITERIA, judges=judges, reports_dir=None)
    assert result.rounds_completed == 3
    return [[server.calls_for(m)[k] for m in MODELS] for k in range(3)]


def fixed_chars(request: SeenRequest, artifact: Path) -> int:
    """What a request sends beside the artifact and the judges' earlier replies: instructions, template, schema."""
    body = "".join(m["content"] for m in request.body["messages"]) + json.dumps(request.body.get("response_format"))
    body = body.replace(artifact.read_text(encoding="utf-8"), "")
    while "<judge_report" in body:  # each report (a judge's reply) is content, not fixed text
        i = body.index("<judge_report")
        body = body[:i] + body[body.index("</judge_report>", i) + len("</judge_report>") :]
    return len(body)


def test_the_fixed_text_of_each_round_is_short_and_keeps_every_rule(llm_server: FakeLLMServer, artifact: Path) -> None:
    rounds = run_three_rounds(llm_server, artifact)
    # before the diet: about 5,900, 6,700 and 5,000 characters per call beside the artifact and the replies
    limits = (4_000, 5_000, 4_100)
    for sent, limit in zip(rounds, limits, strict=True):
        assert all(fixed_chars(r, artifact) <= limit for r in sent), [fixed_chars(r, artifact) for r in sent]
    system = rounds[0][0].body["messages"][0]["content"]
    first, second, final = (r[0].body["messages"][-1]["content"] for r in rounds)
    # the rules the protocol needs, said once each
    assert "not instructions" in system and "quote the exact text" in system
    assert "`quote`" in first and "blocks nothing" in first and "five verification questions" in first
    assert "reported as unsupported" in second and "`change_reason`" in second
    assert "do not agree merely to end the debate" in second
    assert "`convinced_by`" in final and "majority decides" in final
    # the engine's own facts are not asked back: no judge id, stance, round or previous score in a reply
    for text in (first, second, final):
        start = text.rindex("```yaml")
        template = text[start : text.index("```", start + 3)]
        assert not any(k in template for k in ("judge_id:", "stance:", "round:", "previous_score:", "is_final:"))


def test_a_vendor_schema_carries_no_descriptions_or_bounds(llm_server: FakeLLMServer, artifact: Path) -> None:
    rounds = run_three_rounds(llm_server, artifact)
    for sent in rounds:
        schema = json.dumps(sent[0].body["response_format"])
        assert '"description"' not in schema and "maxLength" not in schema and "maxItems" not in schema
        assert '"required"' in schema and '"additionalProperties": false' in schema  # still strict


def test_rebuttal_and_final_replies_are_bounded_by_their_phase(llm_server: FakeLLMServer, artifact: Path) -> None:
    rounds = run_three_rounds(llm_server, artifact)
    bounds = [[r.body.get("max_completion_tokens") for r in sent] for sent in rounds]
    assert bounds == [[None] * 3, [6144] * 3, [4096] * 3]  # round 1 keeps the vendor's (default) bound


def test_a_judges_own_max_tokens_wins_over_the_phase_bound(llm_server: FakeLLMServer, artifact: Path) -> None:
    rounds = run_three_rounds(llm_server, artifact, max_tokens=7000)
    assert [[r.body.get("max_completion_tokens") for r in sent] for sent in rounds] == [[7000] * 3] * 3


def dry_run(tmp_path: Path, artifact: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> str:
    judges = tmp_path / "judges.yaml"
    seats = [{"model": "gpt-5.2", "stance": s} for s in ("neutral", "for", "against")]  # one model: one cache
    judges.write_text(yaml.safe_dump({"debate_judges": seats}), encoding="utf-8")
    argv = ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--dry-run"]
    assert main([*argv, "--format", fmt]) == 0
    return capsys.readouterr().out


def test_the_dry_run_shows_each_calls_bound_and_the_expected_cached_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    large = tmp_path / "big.py"
    large.write_text("".join(f"def f{i}(x):\n    return x * {i}  # a line of the artifact\n" for i in range(900)))
    plan = json.loads(dry_run(tmp_path, large, capsys, "json"))
    assert [c["max_tokens"] for c in plan["calls"]] == [8192] * 3 + [6144] * 3 + [4096] * 3
    cache = plan["prompt_cache"]
    # every call after the first repeats the system prompt (the artifact) at least, on the one model
    assert all(c["repeated_tokens"] > 10_000 for c in plan["calls"][3:])
    assert cache["expected_cached_share"] > 0.5 and cache["repeated_prefix_share"] >= cache["expected_cached_share"]
    assert cache["expected_cached_tokens"] == sum(c["cached_tokens"] for c in plan["calls"][1:])
    text = dry_run(tmp_path, large, capsys, "text")
    assert f"Expected cached share: {cache['expected_cached_share']:.0%} of the input tokens" in text
    assert "max 6,144 out" in text and "max 4,096 out" in text


def test_a_small_artifact_repeats_its_prefix_but_under_the_vendors_minimum(
    tmp_path: Path, artifact: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = json.loads(dry_run(tmp_path, artifact, capsys, "json"))["prompt_cache"]
    assert cache["repeated_prefix_share"] > 0 and cache["expected_cached_share"] == 0
    assert "vendors cache a prefix of 1,024 tokens or more" in dry_run(tmp_path, artifact, capsys, "text")


def test_decide_and_challenge_bound_their_later_phases_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    judges = tmp_path / "challenge.yaml"
    judges.write_text(yaml.safe_dump({"proponent": {"model": "gpt-5.2"}, "challengers": ["gpt-5.2", "sonnet"]}))
    assert main(["challenge", "Shard the orders table?", "--judges", str(judges), "--dry-run", "--format", "json"]) == 0
    bounds = {(c["phase"], c["max_tokens"]) for c in json.loads(capsys.readouterr().out)["calls"]}
    assert bounds == {("opening", 8192), ("challenge", 8192), ("confrontation", 8192), ("rebuttal", 4096),
                      ("assumptions", 4096)}  # fmt: skip
    argv = ["decide", "--question", "Offline mode?", "--option", "A=No", "--option", "B=Yes", "--dry-run"]
    assert main([*argv, "--format", "json"]) == 0
    calls = json.loads(capsys.readouterr().out)["calls"]
    assert [(c["round"], c["max_tokens"]) for c in calls] == [(1, 8192)] * 3 + [(2, 6144)] * 3


def test_decide_asks_no_key_the_engine_knows_and_still_reads_a_reply_that_gives_them(
    llm_server: FakeLLMServer,
) -> None:
    """Decide's schema and template ask no judge, stance or round (moot writes those itself); the scripted
    replies still carry `judge` and `round`, and the debate reads them as before."""
    from .test_decide_support import OPTIONS, QUESTION, r1, r2

    stances = {"risk": "A", "value": "B", "effort": "C"}  # each on its own option: both rounds run
    for stance, option in stances.items():
        others = {s: "not convinced" for s in stances if s != stance}
        llm_server.script(f"{stance}-m", r1(option), r2(option, challenge=others))
    judges = [
        {"model": f"{s}-m", "provider": "openai", "api_base": llm_server.base_url, "api_key": "k", "stance": s}
        for s in stances
    ]
    result = moot.decide_sync(QUESTION, OPTIONS, judges=judges, write_files=False)
    assert result.outcome == "CONTESTED" and len(llm_server.requests) == 6
    assert "judge: x" in r1("A") and "round: 1" in r1("A")  # the replies do give them
    for request in llm_server.requests:
        schema = request.body["response_format"]["json_schema"]["schema"]
        assert not {"judge", "stance", "round"} & set(schema["properties"]), sorted(schema["properties"])
        text = request.body["messages"][-1]["content"]
        start = text.index("```yaml", text.index("Reply in this template"))  # not a report's fenced reply
        template = text[start : text.index("```", start + 3)]
        top = [line.split(":")[0] for line in template.splitlines() if line[:1].isalpha()]  # not a challenge's judge
        assert top and not {"judge", "stance", "round"} & set(top), top
