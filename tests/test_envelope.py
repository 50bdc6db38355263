"""The result envelope (issue 22): every protocol's result starts with the same keys, in the same order, and
validates against the JSON Schema shipped in the package, wherever it is read: `--format json` and `yaml`,
the API's `model_dump()`, a `moot batch` RESULTS.jsonl line, an MCP tool result, and `moot show` of a
result stored before the envelope existed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
import yaml
from mcp import Client

from moot.cli.app import main
from moot.mcp import build_server
from moot.protocols.evaluate.schemas import EvaluationResult
from moot.schemas.envelope import ENVELOPE_KEYS, envelope_schema, shipped_schema
from moot.store import Store
from moot.testing import FakeLLMServer

from .replies import CRITERIA
from .scripted_panels import (
    artifact,
    challenge_args,
    challenge_panel,
    contested_decide_panel,
    converging_panel,
    decide_args,
    decide_panel,
    evaluate_args,
)
from .test_batch_support import item, judges_for, read_results, serve, write_items
from .test_decide_support import OPTIONS, QUESTION

VALIDATOR = jsonschema.Draft202012Validator(shipped_schema())


def check(result: dict[str, Any], protocol: str) -> dict[str, Any]:
    """`result` validates against the shipped schema and starts with the envelope's keys, in order."""
    VALIDATOR.validate(result)
    assert tuple(result)[: len(ENVELOPE_KEYS)] == ENVELOPE_KEYS
    assert result["protocol"] == protocol
    return result


def run_json(capsys: pytest.CaptureFixture[str], args: list[str], fmt: str = "json") -> dict[str, Any]:
    main([*args, "--format", fmt])
    out = capsys.readouterr().out
    data: dict[str, Any] = json.loads(out) if fmt == "json" else yaml.safe_load(out)
    return data


def test_the_shipped_schema_is_the_one_the_model_generates() -> None:
    """Regenerate with: python -c "from moot.schemas.envelope import *; import json;
    SCHEMA_PATH.write_text(json.dumps(envelope_schema(), indent=2) + '\\n')"."""
    assert shipped_schema() == envelope_schema()
    assert shipped_schema()["required"] == list(ENVELOPE_KEYS)


def test_the_schema_rejects_a_result_without_an_envelope() -> None:
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate({"debate_id": "x", "protocol": "evaluate", "summary": {"final_verdict": "PASS"}})
    bad_status = {"seat": "j", "model": "m", "stance": "s", "status": "dropped: timeout"}
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate({**dict.fromkeys(ENVELOPE_KEYS), "judges": [bad_status]})


def test_cli_json_and_yaml_of_every_protocol_carry_the_envelope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ev = check(run_json(capsys, evaluate_args(tmp_path, converging_panel(tmp_path))), "evaluate")
    assert ev["status"] == "finished" and ev["rounds_completed"] == 2
    assert ev["verdict"]["answer"] == ev["summary"]["final_verdict"] == "PASS"
    assert ev["verdict"]["confidence"] == ev["summary"]["confidence"] and ev["verdict"]["needs_human"] is False
    assert [(j["seat"], j["status"]) for j in ev["judges"]] == [(f"judge-{n}", "ok") for n in (1, 2, 3)]

    de = check(run_json(capsys, decide_args(decide_panel(tmp_path))), "decide")
    assert de["verdict"] == {"kind": "majority", "answer": "C", "confidence": "HIGH", "needs_human": False}
    assert de["rounds"]["round_2"]["share"] < 1  # the threshold met, not every judge on C: a majority
    assert isinstance(de["rounds"], dict) and de["rounds_completed"] == 2  # decide keeps its own `rounds`

    contested = check(run_json(capsys, decide_args(contested_decide_panel(tmp_path))), "decide")
    assert contested["verdict"] == {
        "kind": "contested",
        "answer": None,
        "confidence": "REQUIRES_INPUT",
        "needs_human": True,
    }

    ch = check(run_json(capsys, challenge_args(challenge_panel(tmp_path))), "challenge")
    assert ch["verdict"]["kind"] == "tradeoff" and ch["verdict"]["needs_human"] is True
    assert ch["verdict"]["answer"] == ch["final_position"].splitlines()[0].strip()
    assert ch["rounds_completed"] == ch["rounds"]  # challenge keeps its own `rounds` (an int)
    assert [j["stance"] for j in ch["judges"]] == ["proponent", "challenger", "challenger"]
    assert [j["seat"] for j in ch["judges"][1:]] == [c["seat"] for c in ch["challengers"]]

    as_yaml = check(run_json(capsys, decide_args(decide_panel(tmp_path, name="p2.yaml")), "yaml"), "decide")
    assert as_yaml["verdict"] == de["verdict"]


def test_the_apis_model_dump_starts_with_the_envelope(tmp_path: Path) -> None:
    import moot
    from moot.api import Panelist
    from moot.judges import ScriptedJudge

    scripted = [f"overall_score: {s}\ndimension_scores: {{correctness: {s}}}\n" for s in (4.0, 4.0)]
    judges = [Panelist(ScriptedJudge(list(scripted))) for _ in range(3)]
    (tmp_path / "plan.md").write_text("# Plan\n", encoding="utf-8")
    result = moot.evaluate_sync(str(tmp_path / "plan.md"), criteria="correctness:100", judges=judges, reports_dir=None)
    assert isinstance(result, EvaluationResult)
    check(result.model_dump(mode="json"), "evaluate")
    assert tuple(result.model_dump())[: len(ENVELOPE_KEYS)] == ENVELOPE_KEYS
    assert tuple(json.loads(result.model_dump_json()))[: len(ENVELOPE_KEYS)] == ENVELOPE_KEYS
    assert result.verdict.kind == "consensus" and result.verdict.answer == "PASS"


@pytest.mark.parametrize("protocol", ["evaluate", "decide", "challenge"])
def test_a_batch_result_line_carries_the_envelope(
    protocol: str, llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server)
    judges = judges_for(protocol, tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item(protocol, n, other=n == 1) for n in range(2)])
    assert main(["batch", str(items), "--protocol", protocol, "--judges", str(judges), "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    lines = read_results(tmp_path / "items.results.jsonl")
    assert len(lines) == 2
    for line in lines:
        check(line["result"], protocol)
        assert all(j["status"] == "ok" for j in line["result"]["judges"])
    # the summary's distribution is counted from the envelope's verdicts
    words = {"evaluate": {"PASS": 1, "FAIL": 1}, "decide": {"RECOMMENDED": 2}, "challenge": {"CONSENSUS": 2}}
    assert summary["distribution"] == words[protocol]


def test_mcp_tool_results_carry_the_envelope(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}
    evaluate = {
        "solution": [str(artifact(tmp_path))],
        "criteria": CRITERIA,
        "judges": str(converging_panel(tmp_path)),
        "no_reports": True,
    }
    decide = {"question": QUESTION, "option": OPTIONS, "judges": str(decide_panel(tmp_path)), "no_files": True}
    challenge = {"topic": "How should we shard the orders table?", "judges": str(challenge_panel(tmp_path))}

    async def run() -> None:
        async with Client(build_server()) as client:
            for name, args in (("evaluate", evaluate), ("decide", decide), ("challenge", challenge)):
                r = await client.call_tool(name, args)
                assert not r.is_error, r.content
                seen[name] = r.structured_content
                shown = await client.call_tool("show_debate", {"debate_id": seen[name]["debate_id"]})
                seen[f"show {name}"] = shown.structured_content

    anyio.run(run)
    for name in ("evaluate", "decide", "challenge"):
        check(seen[name], name)
        assert seen[f"show {name}"] == seen[name]


def _as_before_the_envelope(result: dict[str, Any]) -> dict[str, Any]:
    """A result as a version before issue 22 stored it: no envelope keys, free-text judge statuses."""
    old = {k: v for k, v in result.items() if k not in ("status", "verdict")}
    if old["protocol"] == "challenge":
        for key in ("protocol", "rounds_completed", "judges"):
            old.pop(key)
    for j in old.get("judges", []):
        j.pop("seat")
        reason = j.pop("reason")
        j["status"] = f"dropped: {reason}" if reason else j["status"]
    return old


def test_a_result_stored_before_the_envelope_is_shown_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store.open_default()
    for protocol, args in (
        ("evaluate", evaluate_args(tmp_path, converging_panel(tmp_path))),
        ("challenge", challenge_args(challenge_panel(tmp_path))),
    ):
        new = run_json(capsys, args)
        old = _as_before_the_envelope(json.loads(json.dumps(new)))
        if protocol == "evaluate":  # a judge dropped, in the words results used then
            old["judges"][2]["status"] = "dropped: timeout after 120 s"
        store.set_status(new["debate_id"], "finished", result=old)
        shown = run_json(capsys, ["show", new["debate_id"]])
        check(shown, protocol)
        assert shown["verdict"] == new["verdict"] and shown["rounds_completed"] == new["rounds_completed"]
        if protocol == "evaluate":
            assert shown["judges"][2]["status"] == "dropped"
            assert shown["judges"][2]["reason"] == "timeout after 120 s"
        else:
            assert shown["judges"] == new["judges"]


def test_the_docs_publish_the_shipped_schema() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "envelope.md").read_text(encoding="utf-8")
    published = doc.split("```json\n", 1)[1].split("\n```", 1)[0]
    assert json.loads(published) == shipped_schema()


def test_envelope_of_reads_a_results_envelope_and_nothing_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from moot.schemas.envelope import envelope_of

    data = run_json(capsys, challenge_args(challenge_panel(tmp_path)))
    env = envelope_of(data)
    assert env is not None and env.verdict.kind == "tradeoff" and env.judges[0].stance == "proponent"
    assert envelope_of({"outcome": "CONSENSUS"}) is None
