"""Only a finding that quotes what the judges were shown can block, and rounds resist herding: each rule through
the real local HTTP server (scripted judges), the host seat's through `moot reply`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import moot
from moot.cli.app import main
from moot.testing import FakeLLMServer

from .replies import CRITERIA, QUOTE, round1, round2
from .test_decide_support import MODELS, decide_judges, last_user_message, question_args, r1, r2

INVENTED = "db.execute('DELETE FROM users')"  # no such text in the artifact


def _panel(tmp_path: Path, server: FakeLLMServer, models: list[str], **consensus: object) -> Path:
    stances = ["neutral", "for", "against"]
    judges: list[dict[str, Any]] = [
        {"model": m, "stance": stances[i], "api_base": server.base_url} for i, m in enumerate(models)
    ]
    data: dict[str, Any] = {"debate_judges": judges}
    if consensus:
        data["consensus"] = consensus
    path = tmp_path / "judges.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _evaluate(artifact: Path, panel: Path, **options: Any) -> dict[str, Any]:
    result = moot.evaluate_sync(str(artifact), criteria=CRITERIA, judges=str(panel), reports_dir=None, **options)
    data: dict[str, Any] = result.model_dump(mode="json")
    return data


def test_an_invented_quote_never_caps_the_verdict_and_is_asked_once(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path
) -> None:
    invented = round1(4.4, 5, critical=["DELETE has no auth"], quote=INVENTED)
    llm_server.script("judge-a", round1(4.5, 5))
    llm_server.script("judge-b", round1(4.5, 5))
    llm_server.script("judge-c", invented, invented)  # asked once for a verbatim quote, it repeats itself
    out = _evaluate(artifact, _panel(tmp_path, llm_server, ["judge-a", "judge-b", "judge-c"]))
    [finding] = out["critical_findings"]
    assert (finding["grounded"], finding["ungrounded_reason"]) == (False, "quote not found")
    assert out["summary"]["final_verdict"] == "PASS" and out["consensus_reached_at"] == 1  # it blocked nothing
    clarify = llm_server.calls_for("judge-c")[1].body["messages"][-1]["content"]
    assert "verbatim quote" in clarify and "quote not found" in clarify
    assert out["spend"]["clarifications"] == 1 and len(llm_server.requests) == 4


def test_the_same_invented_quote_caps_when_grounding_is_switched_off(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path
) -> None:
    """The judges-file switch the bench compares with: without grounding the invented finding blocks."""
    invented = round1(4.4, 5, critical=["DELETE has no auth"], quote=INVENTED)
    llm_server.script("judge-a", round1(4.5, 5), round2(4.5, responses={"C1": "accept"}))
    llm_server.script("judge-b", round1(4.5, 5), round2(4.5, responses={"C1": "accept"}))
    llm_server.script("judge-c", invented, round2(4.4))
    out = _evaluate(artifact, _panel(tmp_path, llm_server, ["judge-a", "judge-b", "judge-c"], grounding=False))
    assert out["critical_findings"][0]["grounded"] is False  # still checked and shown
    assert out["summary"]["final_verdict"] == "CONDITIONAL" and out["spend"]["clarifications"] == 0


def test_a_real_quote_caps_the_verdict(llm_server: FakeLLMServer, artifact: Path, tmp_path: Path) -> None:
    llm_server.script("judge-a", round1(4.5, 5), round2(4.5, responses={"C1": "accept"}))
    llm_server.script("judge-b", round1(4.5, 5), round2(4.5, responses={"C1": "accept"}))
    llm_server.script("judge-c", round1(4.4, 5, critical=["no validation of name"], quote=QUOTE), round2(4.4))
    out = _evaluate(artifact, _panel(tmp_path, llm_server, ["judge-a", "judge-b", "judge-c"]))
    [finding] = out["critical_findings"]
    assert finding["grounded"] is True and "ungrounded_reason" not in finding and finding["quote"] == QUOTE
    assert finding["state"] == "agreed" and out["summary"]["final_verdict"] == "CONDITIONAL"  # 4.47 capped
    assert out["spend"]["clarifications"] == 0


def test_a_finding_another_judge_confirms_with_its_own_quote_counts(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path
) -> None:
    words = "createUser accepts any name"
    invented = round1(4.4, 5, critical=[words], quote=INVENTED)
    llm_server.script("judge-a", invented, invented, round2(4.4))
    llm_server.script("judge-b", round1(4.5, 5, critical=[words], quote=QUOTE), round2(4.5))
    llm_server.script("judge-c", round1(4.5, 5), round2(4.5, responses={"C1": "accept"}))
    out = _evaluate(artifact, _panel(tmp_path, llm_server, ["judge-a", "judge-b", "judge-c"]))
    [finding] = out["critical_findings"]
    assert finding["raised_by"] == "judge-1" and finding["quote"] == INVENTED
    assert finding["grounded"] is True and finding["grounded_by"] == "judge-2"
    assert finding["state"] == "agreed" and out["summary"]["final_verdict"] == "CONDITIONAL"


def test_a_host_seats_invented_quote_is_treated_the_same(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The host seat's reply goes through the same parser: its invented quote caps nothing (a host seat gets no
    clarification, so the reply is taken as it stands), and the vendors are never asked about it."""
    llm_server.script("m2", round1(4.5, 5))
    llm_server.script("m3", round1(4.5, 5))
    judges = [{"host": True, "stance": "neutral"}] + [
        {"model": m, "stance": s, "api_base": llm_server.base_url} for m, s in (("m2", "for"), ("m3", "against"))
    ]
    panel = tmp_path / "mixed.yaml"
    panel.write_text(json.dumps({"debate_judges": judges}), encoding="utf-8")
    args = ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(panel), "--no-reports"]
    assert main([*args, "--format", "json"]) == 0
    state = json.loads(capsys.readouterr().out)
    reply = tmp_path / "r.md"
    reply.write_text(round1(4.4, 5, critical=["DELETE has no auth"], quote=INVENTED), encoding="utf-8")
    assert main(["reply", state["debate_id"], "--seat", "judge-1", "--file", str(reply), "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    [finding] = out["critical_findings"]
    assert (finding["raised_by"], finding["grounded"]) == ("judge-1", False)
    assert out["summary"]["final_verdict"] == "PASS" and out["rounds_completed"] == 1
    assert len(llm_server.requests) == 2


def test_a_host_seats_real_quote_caps(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("m2", round1(4.5, 5), round2(4.5, responses={"C1": "accept"}))
    llm_server.script("m3", round1(4.5, 5), round2(4.5, responses={"C1": "accept"}))
    judges = [{"host": True, "stance": "neutral"}] + [
        {"model": m, "stance": s, "api_base": llm_server.base_url} for m, s in (("m2", "for"), ("m3", "against"))
    ]
    panel = tmp_path / "mixed.yaml"
    panel.write_text(json.dumps({"debate_judges": judges}), encoding="utf-8")
    args = ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(panel), "--no-reports"]
    assert main([*args, "--format", "json"]) == 0
    debate = json.loads(capsys.readouterr().out)["debate_id"]
    reply = tmp_path / "r.md"
    for text in (round1(4.4, 5, critical=["no validation of name"], quote=QUOTE), round2(4.4)):
        reply.write_text(text, encoding="utf-8")
        assert main(["reply", debate, "--seat", "judge-1", "--file", str(reply), "-f", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
    assert out["critical_findings"][0]["grounded"] is True
    assert out["summary"]["final_verdict"] == "CONDITIONAL"


def _rebuttal_prompts(server: FakeLLMServer, models: list[str]) -> dict[str, str]:
    return {m: server.calls_for(m)[1].body["messages"][-1]["content"] for m in models}


def test_rebuttals_read_anonymised_reports_in_a_recorded_shuffled_order(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path
) -> None:
    models = ["alpha-model-9", "beta-model-7", "gamma-model-5", "delta-model-3"]
    stances = ["neutral", "for", "against", "neutral"]

    def run() -> tuple[dict[str, Any], dict[str, str]]:
        llm_server.requests.clear()
        for n, m in enumerate(models):
            llm_server.script(m, round1(2.0 + n, 2 + n), round2(2.0 + n, reason="Judge A is right"))
        judges = [{"model": m, "stance": stances[i], "api_base": llm_server.base_url} for i, m in enumerate(models)]
        panel = tmp_path / "four.yaml"
        panel.write_text(yaml.safe_dump({"debate_judges": judges}), encoding="utf-8")
        result = moot.evaluate_sync(str(artifact), criteria=CRITERIA, judges=str(panel), reports_dir=None, max_rounds=2)
        return result.model_dump(mode="json"), _rebuttal_prompts(llm_server, models)

    out, prompts = run()
    orders = out["report_orders"]
    for n, model in enumerate(models, 1):
        prompt = prompts[model]
        assert not [other for other in models if other != model and other in prompt]  # never another's model
        shown = [prompt.index(f'<judge_report judge="{letter}"') for letter in orders[f"r2/judge-{n}"]]
        own = "ABCD"[n - 1]
        assert shown == sorted(shown) and sorted(orders[f"r2/judge-{n}"]) == [x for x in "ABCD" if x != own]
        assert f'<judge_report judge="{own}"' not in prompt and f'judge "{own}" to the others' in prompt
    assert len({tuple(orders[f"r2/judge-{n}"]) for n in range(1, 5)}) > 1  # drawn per judge
    again, prompts_again = run()
    assert again["report_orders"] == orders and prompts_again == prompts  # a rerun reads the same


def test_switched_off_reports_are_in_seat_order_under_seat_ids(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path
) -> None:
    for n, m in enumerate(["judge-a", "judge-b", "judge-c"]):
        llm_server.script(m, round1(2.0 + n, 2 + n), round2(2.0 + n))
    panel = _panel(
        tmp_path, llm_server, ["judge-a", "judge-b", "judge-c"], anonymous_reports=False, shuffled_reports=False
    )
    result = moot.evaluate_sync(str(artifact), criteria=CRITERIA, judges=str(panel), reports_dir=None, max_rounds=2)
    assert result.report_orders == {}
    prompt = llm_server.calls_for("judge-b")[1].body["messages"][-1]["content"]
    starts = [prompt.index(f'<judge_report judge="judge-{n}"') for n in (1, 3)]  # judge-b (judge-2) reads the others
    assert starts == sorted(starts) and '<judge_report judge="judge-2"' not in prompt
    assert "You are Judge 2 (judge-2). Your stance" in prompt and "to the others" not in prompt  # no letters


def test_a_score_change_that_names_no_cause_is_listed(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path
) -> None:
    llm_server.script("judge-a", round1(3.0, 3), round2(3.2, reason="Judge C convinced me"))
    llm_server.script("judge-b", round1(4.8, 5), round2(3.6, reason="on reflection it is weaker"))
    llm_server.script("judge-c", round1(3.4, 3), round2(3.4))
    out = _evaluate(artifact, _panel(tmp_path, llm_server, ["judge-a", "judge-b", "judge-c"]), max_rounds=2)
    assert out["unsupported_changes"] == [{"judge": "judge-2", "round": 2, "from": 4.8, "to": 3.6}]
    assert any("judge-2 changed its score in round 2 from 4.8 to 3.6" in n for n in out["notes"])
    text = moot.EvaluationResult.model_validate(out)
    assert text.unsupported_changes == out["unsupported_changes"]


def test_unsupported_changes_are_not_listed_when_switched_off(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path
) -> None:
    llm_server.script("judge-a", round1(3.0, 3), round2(3.2))
    llm_server.script("judge-b", round1(4.8, 5), round2(3.6))
    llm_server.script("judge-c", round1(3.4, 3), round2(3.4))
    panel = _panel(tmp_path, llm_server, ["judge-a", "judge-b", "judge-c"], changes_need_support=False)
    assert _evaluate(artifact, panel, max_rounds=2)["unsupported_changes"] == []


def _option_order(system: str) -> list[str]:
    return re.findall(r'<option id="([^"]+)">', system)


def test_each_decide_judge_reads_the_options_in_its_own_recorded_order(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(**config: object) -> tuple[dict[str, Any], dict[str, list[str]]]:
        llm_server.requests.clear()
        for model in MODELS.values():
            llm_server.script(model, r1("C", "limited offline keeps sync risk small"))
        judges = decide_judges(tmp_path, llm_server, debate_config=dict(config) or None)
        assert main([*question_args(judges), "--format", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
        return out, {seat: _option_order(last_user_message(llm_server, m, 0)) for seat, m in MODELS.items()}

    out, seen = run()
    assert out["option_orders"] == seen  # what each judge read is what the result records
    assert all(sorted(order) == ["A", "B", "C"] for order in seen.values()) and len({*map(tuple, seen.values())}) > 1
    again, seen_again = run()
    assert again["option_orders"] == out["option_orders"] and seen_again == seen  # a rerun reads the same
    plain, seen_plain = run(shuffled_options=False)
    assert "option_orders" not in plain or plain["option_orders"] == {}
    assert all(order == ["A", "B", "C"] for order in seen_plain.values())


def test_a_challengers_objections_are_checked_against_what_it_was_shown(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One objection quotes the opening's assumption (found), the other quotes words nobody wrote (not found):
    the result marks each, and the outcome lists the ungrounded one apart."""
    from .challenge_helpers import confront, opening, rebuttal, verdict, write_judges

    objections = ["one customer may dominate the load", "the sharding library is abandoned"]
    reply = json.loads(verdict("disagree", objections=objections).split("```json\n")[1].split("\n```")[0])
    reply["quotes"] = ["no single customer dominates the load", "the library is unmaintained since 2019"]
    llm_server.script(
        "prop", opening(), confront({"O1": "ACCEPT", "O2": "REJECT"}, "Shard by customer id, hot ones apart")
    )
    said = "```json\n" + json.dumps(reply) + "\n```"
    llm_server.script("ch-a", said, said, rebuttal("ACCEPT"))  # asked once for a verbatim quote, it repeats itself
    llm_server.script("ch-b", verdict("agree", "minor"), rebuttal("ACCEPT"))
    seats = [{"model": m, "api_base": llm_server.base_url} for m in ("prop", "ch-a", "ch-b")]
    judges = write_judges(tmp_path / "j.yaml", seats[0], seats[1:])
    topic = "Should we shard the orders table by customer id?"
    assert main(["challenge", topic, "--judges", str(judges), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    marks = [(o["id"], o["grounded"], o["ungrounded_reason"]) for o in out["objections"]]
    assert marks == [("O1", True, None), ("O2", False, "quote not found")]
    asked = llm_server.calls_for("ch-a")[1].body["messages"][-1]["content"]
    assert "verbatim quote" in asked and "'the sharding library is abandoned' (quote not found)" in asked
    assert "one customer may dominate" not in asked and out["spend"]["clarifications"] == 1
    assert main(["show", out["debate_id"]]) == 0
    text = capsys.readouterr().out
    assert "Objections not grounded" in text and "O2 the sharding library is abandoned (quote not found)" in text


def test_a_challenger_asked_for_a_quote_that_gives_one_grounds_its_objection(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An objection with no quote is sent back once; the verbatim quote the challenger then gives is found, and
    the objection counts as grounded. An agreement's objections are not asked about."""
    from .challenge_helpers import confront, opening, rebuttal, verdict, write_judges

    bare = json.loads(verdict("disagree", objections=["hot customers overload one shard"]).split("```json\n")[1][:-4])
    bare["quotes"] = []
    quoted = {**bare, "quotes": ["Orders are always read per customer"]}
    llm_server.script("prop", opening(), confront({"O1": "PARTIAL"}, "Shard by customer id, hot ones apart"))
    llm_server.script("ch-a", json.dumps(bare), json.dumps(quoted), rebuttal("ACCEPT"))
    agree = json.loads(verdict("agree", "minor", objections=["naming"]).split("```json\n")[1][:-4])
    llm_server.script("ch-b", json.dumps({**agree, "quotes": []}))
    seats = [{"model": m, "api_base": llm_server.base_url} for m in ("prop", "ch-a", "ch-b")]
    judges = write_judges(tmp_path / "j.yaml", seats[0], seats[1:])
    assert main(["challenge", "Shard the orders table?", "--judges", str(judges), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    [objection] = [o for o in out["objections"] if o["raised_by"] == "challenger-1"]
    assert (objection["grounded"], objection["quote"]) == (True, "Orders are always read per customer")
    asked = llm_server.calls_for("ch-a")[1].body["messages"][-1]["content"]
    assert "'hot customers overload one shard' (no quote)" in asked
    assert len(llm_server.calls_for("ch-b")) == 1 and out["spend"]["clarifications"] == 1


def test_key_claims_with_a_location_carry_file_line_and_its_check(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path
) -> None:
    claims = [
        {"claim": "the user is built in one place", "confidence": "HIGH", "quote": QUOTE, "location": "users.ts:1"},
        {"claim": "a line it never saw", "confidence": "LOW", "quote": QUOTE, "location": "users.ts:9"},
    ]
    first = yaml.safe_load(round1(4.2, 4).strip("`\nyaml"))
    first["key_claims"] = claims
    llm_server.script("judge-a", yaml.safe_dump(first, sort_keys=False))
    llm_server.script("judge-b", round1(4.2, 4))
    llm_server.script("judge-c", round1(4.2, 4))
    out = _evaluate(artifact, _panel(tmp_path, llm_server, ["judge-a", "judge-b", "judge-c"]))
    mine = [c for c in out["key_claims"] if c["judge"] == "judge-1"]
    assert [(c["file"], c["line"], c["location_valid"], c["grounded"]) for c in mine] == [
        ("users.ts", 1, False, False),  # the artifact is src/api/users.ts: no such file was shown
        ("users.ts", 9, False, False),
    ]
    assert all(c["ungrounded_reason"] == "location does not hold the quote" for c in mine)


def test_the_demos_sarif_log_holds_its_located_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/review.md's example: the demo's panel locates its CRITICAL finding, so the log has one result."""
    assert main(["demo", "--export", str(tmp_path / "d")]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path / "d")
    args = ["evaluate", "-s", "src/api/users.ts", "--judges", "judges.yaml"]
    args += ["--criteria", "correctness:30,design:25,security:20,performance:15,docs:10", "--no-reports", "--quiet"]
    assert main([*args, "--format", "sarif"]) == 0
    [result] = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["level"] == "error" and result["locations"][0]["physicalLocation"]["region"]["startLine"] == 38


def test_a_decide_judges_risks_are_checked_against_the_question_options_and_context(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reply = yaml.safe_load(r1("C", "limited offline keeps sync risk small").strip("`\nyaml"))
    reply["risks"] = [
        {"option": "B", "risk": "sync conflicts", "quote": "everything works offline and syncs later"},
        {"option": "A", "risk": "regulators forbid it", "quote": "the 2021 offline-data regulation"},
    ]
    said = yaml.safe_dump(reply, sort_keys=False)
    llm_server.script("risk-m", said, said)  # asked once for a verbatim quote, it repeats itself
    llm_server.script("value-m", r1("C"))
    llm_server.script("effort-m", r1("C"))
    assert main([*question_args(decide_judges(tmp_path, llm_server)), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(r["judge"], r["option"], r["grounded"], r.get("ungrounded_reason")) for r in out["risks"]] == [
        ("risk", "B", True, None),
        ("risk", "A", False, "quote not found"),
    ]
    asked = llm_server.calls_for("risk-m")[1].body["messages"][-1]["content"]
    assert "verbatim quote" in asked and "A: 'regulators forbid it' (quote not found)" in asked
    assert "sync conflicts" not in asked and out["spend"]["clarifications"] == 1
    assert main(["show", out["debate_id"]]) == 0
    text = capsys.readouterr().out
    assert "Risks named, quoted:" in text and "risk on A: regulators forbid it (quote not found)" in text


def test_a_decide_risk_left_ungrounded_counts_for_nothing_in_the_others_next_round(
    llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    """A risk whose quote is not found, asked again and still not quoted, is flagged beside its judge's report in
    every other judge's round-2 prompt; a risk given a verbatim quote on the second ask is not."""
    bare = yaml.safe_load(r1("A", "offline only adds risk").strip("`\nyaml"))
    bare["risks"] = [{"option": "B", "risk": "sync corrupts orders", "quote": "a sync engine ships in 2019"}]
    fixed = {**bare, "risks": [{**bare["risks"][0], "quote": "everything works offline and syncs later"}]}
    invented = yaml.safe_load(r1("C").strip("`\nyaml"))
    invented["risks"] = [{"option": "A", "risk": "the app store bans it", "quote": "store policy 4.2 forbids it"}]
    invented_text = yaml.safe_dump(invented, sort_keys=False)
    llm_server.script("risk-m", yaml.safe_dump(bare), yaml.safe_dump(fixed), r2("A", challenge={"value": "no"}))
    llm_server.script("value-m", invented_text, invented_text, r2("C", challenge={"risk": "no"}))
    llm_server.script("effort-m", r1("B"), r2("B", challenge={"risk": "no"}))
    judges = decide_judges(tmp_path, llm_server, debate_config={"max_rounds": 2})
    result = moot.decide_sync(
        "Should the mobile app support offline mode?",
        options=["A=online only", "B=full offline: everything works offline and syncs later", "C=read-only cache"],
        judges=str(judges),
        write_files=False,
    )
    round2 = llm_server.calls_for("effort-m")[1].body["messages"][-1]["content"]
    flagged = "these risks quote nothing the judges were shown, so they count for nothing: A: the app store bans it"
    assert flagged in round2 and round2.count("count for nothing") == 1  # the risk judge's, quoted on asking
    assert result.spend.clarifications == 2
