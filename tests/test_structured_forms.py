"""`structured:` on OpenAI-compatible servers (moot.judges.structured), `context_tokens`, and a server's
context error, over real HTTP against the scripted local server. The server refuses forms the way
llama-cpp-python's does (a 500 naming `response_format.type`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.errors import JudgeError
from moot.judges import structured
from moot.judges.factory import build_judges
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Completion, Message, Prompt
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, round1, round2

SCHEMA = {"type": "object", "properties": {"a": {"type": "string", "maxLength": 40}}, "required": ["a"]}


def ask(spec: JudgeSpec, schema: dict[str, Any] | None = SCHEMA) -> Completion:
    [judge] = build_judges(spec)

    async def go() -> Completion:
        try:
            return await judge.complete(
                Prompt(system="s", messages=[Message(role="user", content="q")], json_schema=schema), timeout=5
            )
        finally:
            await judge.aclose()

    return asyncio.run(go())


def forms(server: FakeLLMServer) -> list[str]:
    return [(r.body.get("response_format") or {}).get("type", "off") for r in server.requests]


def test_auto_tries_json_schema_then_json_object_and_remembers_the_form_that_worked(
    llm_server: FakeLLMServer,
) -> None:
    llm_server.refuse_forms = {"json_schema"}
    llm_server.script("m", '{"a": "x"}', '{"a": "y"}')
    spec = JudgeSpec(model="m", api_base=llm_server.base_url)
    first = ask(spec)
    assert first.text == '{"a": "x"}' and first.structured == "json_object" and first.finish_reason == "stop"
    body = llm_server.requests[1].body
    assert body["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert ask(spec).structured == "json_object"  # the next call goes straight to the form that worked
    assert forms(llm_server) == ["json_schema", "json_object", "json_object"]


def test_auto_ends_with_no_schema_when_the_server_takes_neither_form(llm_server: FakeLLMServer) -> None:
    llm_server.refuse_forms = {"json_schema", "json_object"}
    llm_server.script("m", "a: x")
    done = ask(JudgeSpec(model="m", api_base=llm_server.base_url))
    assert done.structured == "off" and forms(llm_server) == ["json_schema", "json_object", "off"]
    assert structured.learned_form(llm_server.base_url) == "off"


def test_a_fixed_form_is_sent_as_named_and_a_refusal_of_it_is_not_retried(llm_server: FakeLLMServer) -> None:
    llm_server.script("m", '{"a": "x"}')
    assert ask(JudgeSpec(model="m", api_base=llm_server.base_url, structured="json_object")).structured == "json_object"
    llm_server.refuse_forms = {"json_schema"}
    with pytest.raises(JudgeError, match=r"refuses `structured: json_schema`"):
        ask(JudgeSpec(model="m", api_base=llm_server.base_url, structured="json_schema"))
    llm_server.script("m", "a: x")
    assert ask(JudgeSpec(model="m", api_base=llm_server.base_url, structured="off")).structured == "off"
    assert forms(llm_server) == ["json_object", "json_schema", "off"]


def test_a_preset_for_llama_cpp_python_starts_from_its_own_form(llm_server: FakeLLMServer) -> None:
    llm_server.refuse_forms = {"json_schema"}
    llm_server.script("m", '{"a": "x"}')
    ask(JudgeSpec(model="m", provider="llama-cpp-python", api_base=llm_server.base_url))
    assert forms(llm_server) == ["json_object"]


def write_judges(tmp_path: Path, server: FakeLLMServer, **extra: Any) -> Path:
    judges = [
        {"model": m, "stance": s, "api_base": server.base_url, **extra}
        for m, s in (("judge-a", "neutral"), ("judge-b", "for"), ("judge-c", "against"))
    ]
    path = tmp_path / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": judges}), encoding="utf-8")
    return path


def test_a_debate_on_a_server_that_refuses_json_schema_is_neither_clarified_nor_dropped_and_shows_the_form(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.refuse_forms = {"json_schema"}
    for m, score in (("judge-a", 4.0), ("judge-b", 3.0), ("judge-c", 4.0)):
        llm_server.script(m, round1(score, int(score)), round2(4.0))
    judges = write_judges(tmp_path, llm_server)
    args = ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--format", "json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["rounds_completed"] == 2 and result["spend"]["calls"] == 6
    # round 1's three concurrent first calls each met the refusal once; round 2 went straight to json_object
    assert forms(llm_server).count("json_schema") <= 3 and forms(llm_server)[-3:] == ["json_object"] * 3
    assert main(["show", result["debate_id"], "--calls", "--format", "json"]) == 0
    calls = json.loads(capsys.readouterr().out)["calls"]
    assert [c["structured"] for c in calls] == ["json_object"] * 6 and {c["kind"] for c in calls} != {"clarify"}
    assert main(["show", result["debate_id"], "--calls"]) == 0
    text = capsys.readouterr().out
    assert "form" in text.splitlines()[0] and text.count("json_object") == 6


def test_context_tokens_too_small_refuses_before_any_call_and_the_dry_run_says_the_same(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judges = write_judges(tmp_path, llm_server, context_tokens=600, max_tokens=200)
    args = ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges)]
    assert main(args) == 2
    # the run's first progress line names the judges file in effect; the error itself is one line
    lines = [line for line in capsys.readouterr().err.strip().splitlines() if not line.startswith("[")]
    assert len(lines) == 1, lines
    err = lines[0]
    assert "judge-a" in err and "context_tokens 600" in err and "tokens" in err
    assert llm_server.requests == []
    assert main([*args, "--dry-run"]) == 2
    assert capsys.readouterr().err.strip() == err
    assert llm_server.requests == []


def test_a_server_context_error_drops_the_judge_with_that_reason_without_retry_or_clarification(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    too_long = json.dumps(
        {"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested 3100 "
                   "tokens (3000 in the messages, 100 in the completion).", "code": "context_length_exceeded"}}
    )  # fmt: skip
    llm_server.script("judge-a", Reply(status=400, raw_body=too_long))
    for m, score in (("judge-b", 3.0), ("judge-c", 4.0)):
        llm_server.script(m, round1(score, int(score)), round2(4.0))
    judges = write_judges(tmp_path, llm_server)
    args = ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--format", "json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    fate = {j["judge"]: (j["status"], j.get("reason", "")) for j in result["judges"]}
    assert fate["judge-1"][0] == "dropped" and "context window" in fate["judge-1"][1]
    assert "maximum context length is 2048" in fate["judge-1"][1]
    assert len(llm_server.calls_for("judge-a")) == 1  # no retry, no clarification


def test_doctor_ping_names_the_form_the_server_took(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.refuse_forms = {"json_schema"}
    llm_server.script("judge-a", '{"reply": "pong"}', "{")
    path = tmp_path / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": [{"model": "judge-a", "api_base": llm_server.base_url}]}))
    assert main(["doctor", "--judges", str(path), "--ping", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "answers in" in out and "structured: json_object" in out
    assert forms(llm_server) == ["json_schema", "json_object", "json_object"]  # the last: the grammar probe


GRAMMAR_FAILED = json.dumps({"error": {"message": "failed to parse grammar", "type": "server_error", "code": 500}})


def test_a_server_that_cannot_build_the_grammar_is_one_line_naming_it_not_retried(llm_server: FakeLLMServer) -> None:
    llm_server.script("m", Reply(status=500, raw_body=GRAMMAR_FAILED))
    with pytest.raises(JudgeError) as caught:
        ask(JudgeSpec(model="m", api_base=llm_server.base_url, structured="json_object"))
    assert str(caught.value).startswith("the server cannot turn the reply schema into a grammar (HTTP 500")
    assert "structured: off" in str(caught.value) and "\n" not in str(caught.value)
    assert type(caught.value) is JudgeError  # not transient: asking again builds the same grammar


def test_doctor_ping_tells_a_grammar_refusal_from_a_server_that_is_down_and_reports_the_output_bound(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("ok-model", '{"reply": "pong"}', "{")
    llm_server.script("refusing", '{"reply": "pong"}', Reply(status=500, raw_body=GRAMMAR_FAILED))
    path = tmp_path / "judges.yaml"
    entries = [
        {"model": "ok-model", "api_base": llm_server.base_url, "structured": "json_object"},
        {"model": "refusing", "api_base": llm_server.base_url, "structured": "json_object", "max_tokens": 600},
        {"model": "down", "api_base": "http://127.0.0.1:9/v1"},
    ]
    path.write_text(yaml.safe_dump({"debate_judges": entries}))
    main(["doctor", "--judges", str(path), "--ping", "--format", "json"])
    rows = {r["judge"]: r for r in json.loads(capsys.readouterr().out)["judges"]}
    assert rows["ok-model"]["usable"] and rows["ok-model"]["grammar"] == "parses (strings up to 500 characters)"
    assert rows["ok-model"]["output_bound"] == "768 tokens (moot's default for a judge on a local server)"
    assert not rows["refusing"]["usable"] and rows["refusing"]["output_bound"] == "600 tokens (max_tokens)"
    assert "cannot turn the reply schema into a grammar" in rows["refusing"]["grammar"]
    assert not rows["down"]["usable"] and "grammar" not in rows["down"]
    assert "not answering" in rows["down"]["detail"]
    probe = llm_server.calls_for("ok-model")[1].body
    assert probe["max_tokens"] == 1 and probe["response_format"]["schema"]["properties"]["position"]["maxLength"] == 500
    llm_server.script("ok-model", '{"reply": "pong"}', "{")
    llm_server.script("refusing", '{"reply": "pong"}', Reply(status=500, raw_body=GRAMMAR_FAILED))
    main(["doctor", "--judges", str(path), "--ping"])
    text = capsys.readouterr().out
    assert "grammar: parses" in text and "output bound: 768 tokens" in text
