"""Structured replies end to end: every protocol asks vendor-cloud judges (OpenAI, Anthropic, Gemini wires,
through their SDKs against the local server) for a JSON reply of the right schema, never asks a user's own
server for one, parses the JSON replies with the same parsers as YAML ones, and resumes unchanged."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.protocols.challenge.calls import challenge_reply_schema
from moot.protocols.decide.replies import decide_reply_schema
from moot.protocols.evaluate.replies import evaluate_reply_schema, moderator_reply_schema
from moot.schemas.reply_bounds import portable, worst_tokens
from moot.schemas.reply_schemas import SCORE_STEPS
from moot.testing import FakeLLMServer
from moot.testing.fake_llm_server import SeenRequest

from .replies import CRITERIA, KEYS, round1, round2
from .test_reply_schemas import errors, instance

MODELS = {"openai": "gpt-5.2", "anthropic": "claude-haiku-4-5", "gemini": "gemini-3-pro-preview"}


def cloud(server: FakeLLMServer, wire: str, model: str | None = None, **extra: Any) -> dict[str, Any]:
    """A judge of a vendor's cloud, whose endpoint is the local server."""
    base = server.base_url if wire == "openai" else server.root_url
    return {"model": model or MODELS[wire], "provider": wire, "api_base": base, **extra}


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def sent_schema(req: SeenRequest) -> dict[str, Any] | None:
    """The reply schema a request asked for, in its vendor's own field (None: none asked)."""
    body = req.body
    if req.wire == "anthropic":
        return body["output_config"]["format"]["schema"] if "output_config" in body else None
    if req.wire == "gemini":
        config = body.get("generationConfig", {})
        if "responseJsonSchema" in config:
            assert config["responseMimeType"] == "application/json"
        return config.get("responseJsonSchema")
    fmt = body.get("response_format")
    if fmt is None:
        return None
    assert fmt["type"] == "json_schema"
    return dict(fmt["json_schema"]["schema"])


def last_user_text(req: SeenRequest) -> str:
    if req.wire == "gemini":
        return "".join(p.get("text", "") for p in req.body["contents"][-1]["parts"])
    content = req.body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def template_keys(prompt_text: str) -> list[str]:
    """The top-level keys of the reply template a prompt shows (its last fenced block)."""
    blocks = re.findall(r"```(?:yaml|json)\n(.*?)```", prompt_text, re.DOTALL)
    assert blocks, "the prompt shows no reply template"
    return list(yaml.safe_load(blocks[-1]))


def assert_template_matches_schema(req: SeenRequest) -> dict[str, Any]:
    """The schema sent with a request asks for exactly the keys its prompt's template shows."""
    schema = sent_schema(req)
    assert schema is not None, f"{req.model}: no schema sent"
    assert template_keys(last_user_text(req)) == list(schema["properties"])
    return schema


def reply(schema: dict[str, Any], **values: Any) -> str:
    """A JSON reply that follows `schema` as vendors' clouds are sent it, with the given top-level values."""
    data = instance(schema, {(k,): v for k, v in values.items()})
    assert errors(data, portable(schema)) == []
    return json.dumps(data)


# ---------------------------------------------------------------- evaluate


def test_evaluate_asks_every_vendor_wire_for_the_criteria_schema_and_reads_json_replies(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r1 = evaluate_reply_schema(KEYS, phase="round_1")
    r2 = evaluate_reply_schema(KEYS, phase="rebuttal")
    mod = moderator_reply_schema(["judge-1", "judge-2", "judge-3"])

    def first(score: float) -> str:
        return reply(r1, overall_score=score, dimension_scores=dict.fromkeys(KEYS, score), critical_findings=[])

    def second(score: float) -> str:
        return reply(r2, new_score=score, dimension_scores=dict.fromkeys(KEYS, score), critical_findings=[])

    llm_server.script("gpt-5.2", first(3.0), second(4.0))
    out_of_scale = json.loads(first(4.0)) | {"overall_score": 9}
    llm_server.script("claude-haiku-4-5", json.dumps(out_of_scale), first(4.0), second(4.0))
    llm_server.script("gemini-3-pro-preview", first(4.5), second(4.0))
    llm_server.script("gpt-5-mini", reply(mod, majority_opinion="Sound API; tests are thin.", divergent_findings=[]))
    judges = write(
        tmp_path / "judges.yaml",
        {
            "debate_judges": [
                cloud(llm_server, "openai", stance="neutral"),
                cloud(llm_server, "anthropic", stance="for"),
                cloud(llm_server, "gemini", stance="against"),
            ],
            "moderator": cloud(llm_server, "openai", "gpt-5-mini"),
        },
    )
    code = main(["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--format", "json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    out = json.loads(cap.out)
    # the JSON replies went through the usual parsers: scores, rounds, clarification, moderator prose
    assert out["rounds_completed"] == 2 and out["consensus_reached"] is True
    assert out["round_progression"]["round_1"]["scores"] == [3.0, 4.0, 4.5]
    assert out["summary"]["consensus_score"] == 4.0
    assert all(j["final_scores"] == dict.fromkeys(KEYS, 4.0) for j in out["judges"])
    assert out["synthesis_by"] == "moderator:gpt-5-mini"
    assert out["majority_opinion"] == "Sound API; tests are thin."
    assert len(llm_server.requests) == 8  # 3 + 1 clarification + 3 + the moderator

    for wire, model in MODELS.items():
        calls = llm_server.calls_for(model)
        assert {c.wire for c in calls} == {wire}
        asked = [c for c in calls if not last_user_text(c).startswith("Your reply could not be used")]
        first_round, second_round = asked
        s1, s2 = assert_template_matches_schema(first_round), assert_template_matches_schema(second_round)
        assert list(s1["properties"]["dimension_scores"]["properties"]) == KEYS
        assert list(s2["properties"]["dimension_scores"]["properties"]) == KEYS
        assert "overall_score" in s1["properties"] and "new_score" in s2["properties"]
    # the clarification continues the conversation with the same schema, and allows a JSON reply
    original, clarify = llm_server.calls_for("claude-haiku-4-5")[:2]
    assert sent_schema(clarify) == sent_schema(original)
    assert "overall score" in last_user_text(clarify) and "YAML or JSON" in last_user_text(clarify)
    moderator = assert_template_matches_schema(llm_server.calls_for("gpt-5-mini")[0])
    positions = moderator["properties"]["divergent_findings"]["items"]["properties"]["positions"]
    assert list(positions["properties"]) == ["judge-1", "judge-2", "judge-3"]


def test_judges_on_the_users_own_servers_are_asked_for_the_enforced_schema_and_clouds_for_the_portable_one(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("custom-a", round1(4.0, 4), round2(4.0))
    llm_server.script("llama3.3", round1(3.0, 3), round2(4.0))
    llm_server.script("gpt-5.2", round1(4.0, 4), round2(4.0))
    llm_server.script("plain", round1(4.0, 4), round2(4.0))
    judges = write(
        tmp_path / "judges.yaml",
        {
            "debate_judges": [
                {"model": "custom-a", "api_base": llm_server.base_url, "stance": "neutral", "max_tokens": 900},
                {"model": "llama3.3", "provider": "ollama", "api_base": llm_server.base_url, "stance": "for"},
                cloud(llm_server, "openai", stance="against"),
                {"model": "plain", "api_base": llm_server.base_url, "structured": "off"},
            ]
        },
    )
    code = main(["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--format", "json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    assert json.loads(cap.out)["rounds_completed"] == 2
    local = [sent_schema(r) for r in llm_server.calls_for("custom-a") + llm_server.calls_for("llama3.3")]
    assert len(local) == 4 and all(s is not None for s in local)
    for schema in local:  # a grammar can hold these: scores only on the scale, every text and list bounded
        assert schema is not None
        assert schema["properties"]["dimension_scores"]["properties"]["security"]["enum"] == list(SCORE_STEPS)
        assert all("maxLength" in v for k, v in schema["properties"].items() if v["type"] == "string")
    first = sent_schema(llm_server.calls_for("custom-a")[0])
    assert first is not None and worst_tokens(first) <= 900  # fitted to that judge's output bound
    clouds = [sent_schema(r) for r in llm_server.calls_for("gpt-5.2")]
    assert all(s is not None and s == portable(s) for s in clouds)  # what vendors have always been sent
    assert [sent_schema(r) for r in llm_server.calls_for("plain")] == [None, None]
    # the YAML a model without a schema answers in is as good as JSON; the prompts allow both
    assert "YAML or JSON" in llm_server.calls_for("plain")[0].body["messages"][0]["content"]


# ---------------------------------------------------------------- decide


def test_decide_asks_for_one_of_the_option_ids_and_for_challenges_of_the_other_judges(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = ["A", "B", "C"]
    first = decide_reply_schema(ids, round_no=1)

    def second(judge: str, rec: str, **values: Any) -> str:
        others = [j for j in ("risk", "value", "effort") if j != judge]
        schema = decide_reply_schema(ids, round_no=2, others=others)
        challenges = [{"judge": o, "counter_argument": f"{o} overrates its case"} for o in others]
        # no risks: a risk needs a verbatim quote of the question or options, or it is asked about again
        return reply(schema, recommendation=rec, challenges=challenges, risks=[], **values)

    llm_server.script("risk-m", reply(first, recommendation="A", risks=[]), second("risk", "C", changed=True))
    llm_server.script("value-m", reply(first, recommendation="B", risks=[]), second("value", "C", changed=True))
    llm_server.script("effort-m", reply(first, recommendation="C", risks=[]), second("effort", "C", change_reason=""))
    judges = write(
        tmp_path / "judges.yaml",
        {
            "debate_judges": [
                cloud(llm_server, "openai", f"{stance}-m", stance=stance) for stance in ("risk", "value", "effort")
            ]
        },
    )
    args = ["decide", "--question", "Offline mode?", "--option", "A=Online only", "--option", "B=Full offline"]
    code = main([*args, "--option", "C=Read-only cache", "--judges", str(judges), "--format", "json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    out = json.loads(cap.out)
    assert out["recommended_option"] == "C" and out["rounds_completed"] == 2
    assert [c["from"] for c in out["change_log"]] == ["A", "B"]
    assert len(llm_server.requests) == 6
    for judge in ("risk", "value", "effort"):
        r1, r2 = (assert_template_matches_schema(r) for r in llm_server.calls_for(f"{judge}-m"))
        assert r1["properties"]["recommendation"]["enum"] == ids == r2["properties"]["recommendation"]["enum"]
        challenged = r2["properties"]["challenges"]["items"]["properties"]["judge"]["enum"]
        assert challenged == [j for j in ("risk", "value", "effort") if j != judge]


# ---------------------------------------------------------------- challenge


def test_challenge_asks_for_the_seeds_verdicts_decisions_and_rebuttals(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    confront = challenge_reply_schema("confront", objection_ids=["O1"])
    llm_server.script(
        "gpt-5.2",
        reply(challenge_reply_schema("opening"), position="Shard orders by customer id", confidence="HIGH"),
        reply(
            confront,
            responses=[{"objection": "O1", "decision": "ACCEPT", "reason": "a routing layer spreads hot customers"}],
            position="Shard by customer id behind a routing layer",
            confidence="MEDIUM",
        ),
    )
    llm_server.script(
        "claude-haiku-4-5",
        reply(
            challenge_reply_schema("challenge"),
            verdict="disagree",
            objection_strength="strong",
            objections=["hot customers overload one shard"],
            quotes=["Shard orders by customer id"],  # the opening's position: an objection quotes what it answers
        ),
        reply(challenge_reply_schema("rebuttal"), response="ACCEPT", objections=[]),
    )
    substantive = "I checked the write path, the skew and the reports; each has a concrete mitigation."
    llm_server.script(
        "gemini-3-pro-preview",
        reply(
            challenge_reply_schema("challenge"),
            verdict="agree",
            objection_strength="minor",
            objections=[],
            reasoning=substantive,
        ),
    )
    judges = write(
        tmp_path / "judges.yaml",
        {
            "proponent": cloud(llm_server, "openai"),
            "challengers": [cloud(llm_server, "anthropic"), cloud(llm_server, "gemini")],
        },
    )
    code = main(["challenge", "Shard the orders table?", "--judges", str(judges), "--format", "json"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    out = json.loads(cap.out)
    assert out["outcome"] == "CONSENSUS" and out["final_position"] == "Shard by customer id behind a routing layer"
    assert [o["decision"] for o in out["objections"]] == ["ACCEPT"]
    assert len(llm_server.requests) == 5  # opening, 2 challenges, confrontation, 1 rebuttal

    opening, confrontation = (assert_template_matches_schema(r) for r in llm_server.calls_for("gpt-5.2"))
    challenge, rebuttal = (assert_template_matches_schema(r) for r in llm_server.calls_for("claude-haiku-4-5"))
    (gemini_challenge,) = (assert_template_matches_schema(r) for r in llm_server.calls_for("gemini-3-pro-preview"))
    assert opening["properties"]["confidence"]["enum"] == ["HIGH", "MEDIUM", "LOW"]
    assert challenge == gemini_challenge
    assert challenge["properties"]["verdict"]["enum"] == ["agree", "partial", "disagree"]
    assert challenge["properties"]["objection_strength"]["enum"] == ["minor", "strong"]
    answer = confrontation["properties"]["responses"]["items"]["properties"]
    assert answer["objection"]["enum"] == ["O1"] and answer["decision"]["enum"] == ["ACCEPT", "PARTIAL", "REJECT"]
    assert rebuttal["properties"]["response"]["enum"] == ["ACCEPT", "MAINTAIN", "ESCALATE"]


# ---------------------------------------------------------------- resume


def test_resume_replays_stored_calls_and_asks_the_rest_with_the_schema(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r1 = evaluate_reply_schema(KEYS, phase="round_1")
    r2 = evaluate_reply_schema(KEYS, phase="rebuttal")
    scores = {"gpt-5.2": (3.0, 4.0), "claude-haiku-4-5": (4.0, 4.0), "gemini-3-pro-preview": (4.5, 4.2)}
    for model, (a, b) in scores.items():
        llm_server.script(
            model,
            reply(r1, overall_score=a, dimension_scores=dict.fromkeys(KEYS, a), critical_findings=[]),
            reply(r2, new_score=b, dimension_scores=dict.fromkeys(KEYS, b), critical_findings=[]),
        )
    judges = write(
        tmp_path / "judges.yaml",
        {
            "debate_judges": [
                cloud(llm_server, w, stance=s) for w, s in zip(MODELS, ("neutral", "for", "against"), strict=True)
            ]
        },
    )
    args = ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--format", "json"]
    assert main(args) == 0
    finished = json.loads(capsys.readouterr().out)
    debate_id = finished["debate_id"]
    # the stored prompts leave the schema out (it is rebuilt from the request), and hold no other trace of it
    with sqlite3.connect(isolated_home / "moot.db") as db:
        stored = [json.loads(p) for (p,) in db.execute("SELECT prompt_json FROM calls")]
        assert len(stored) == 6 and all("json_schema" not in p for p in stored)
        # as if the debate had been killed while Gemini was answering round 2
        db.execute("DELETE FROM calls WHERE debate_id = ? AND call_key = 'r2/judge-3'", (debate_id,))
        db.execute("UPDATE debates SET status = 'interrupted' WHERE id = ?", (debate_id,))
    llm_server.script(
        "gemini-3-pro-preview",
        reply(r2, new_score=4.2, dimension_scores=dict.fromkeys(KEYS, 4.2), critical_findings=[]),
    )
    before = len(llm_server.requests)
    assert main(["resume", debate_id, "--format", "json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    # one call asked again, with its schema; every other call replayed from the store
    (again,) = llm_server.requests[before:]
    assert again.model == "gemini-3-pro-preview"
    assert sent_schema(again) == portable(evaluate_reply_schema(KEYS, phase="rebuttal"))
    assert resumed["summary"] == finished["summary"]
    assert resumed["round_progression"] == finished["round_progression"]
