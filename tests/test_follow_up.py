"""A second look (issue 31, section 3): `moot evaluate --follow-up DEBATE_ID` re-judges the new version with
the earlier debate's findings; a finding the next commit fixed comes back resolved, one still there
unresolved, judges who differ make it disputed, and the reports show the change of verdict."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer

from .replies import CRITERIA, round1

SQL = "query = 'SELECT * FROM users WHERE id=' + user_id\n"


def git(repo: Path, *args: str) -> None:
    config = ["-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", *config, *args], cwd=repo, check=True, capture_output=True)


def with_answers(reply: str, answers: dict[str, str]) -> str:
    data = yaml.safe_load(reply.strip("`\nyaml"))
    return yaml.safe_dump({**data, "earlier_findings": answers}, sort_keys=False)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 21)))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    text = (
        (root / "app.py").read_text().replace("line 12\n", "line 12\n" + SQL).replace("line 3\n", "line 3\nprint(x)\n")
    )
    (root / "app.py").write_text(text)
    git(root, "commit", "-qam", "two")
    monkeypatch.chdir(root)
    return root


def test_a_follow_up_marks_the_fixed_finding_resolved_and_the_other_unresolved(
    repo: Path, tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    judges = tmp_path / "judges.yaml"
    seats = [{"model": m, "stance": s, "api_base": llm_server.base_url} for m, s in (("a", "neutral"), ("b", "for"))]
    judges.write_text(json.dumps({"debate_judges": seats}))
    args = ["evaluate", "--diff", "HEAD~1", "--judges", str(judges), "--criteria", CRITERIA, "--no-reports"]
    found = [("SQL built by concatenation", "app.py", 14), ("debug print left in", "app.py", 4)]
    llm_server.script("a", round1(2.0, 2, located=found))
    llm_server.script("b", round1(2.0, 2, located=found))
    assert main([*args, "--format", "json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["summary"]["final_verdict"] == "FAIL" and len(first["critical_findings"]) == 2

    (repo / "app.py").write_text((repo / "app.py").read_text().replace(SQL, "query = db.bind(user_id)\n"))
    git(repo, "commit", "-qam", "three: parameterised query")
    llm_server.requests.clear()
    llm_server.script("a", with_answers(round1(4.2, 4), {"E1": "resolved", "E2": "unresolved"}))
    llm_server.script("b", with_answers(round1(4.4, 4), {"E1": "resolved", "E2": "unresolved"}))
    # every judge holds the earlier CRITICAL E2 unresolved: it caps the verdict as a new one would
    assert main([*args, "--follow-up", first["debate_id"], "--format", "json", "--require", "PASS"]) == 1
    out, err = capsys.readouterr()
    second = json.loads(out)
    assert "moot: gate failed: verdict CONDITIONAL is below --require PASS" in err
    prompt = "\n".join(str(m["content"]) for m in llm_server.requests[0].body["messages"])
    assert "E1 (CRITICAL, app.py:14): SQL built by concatenation" in prompt
    assert "earlier_findings" in json.dumps(llm_server.requests[0].body["response_format"])
    f = second["follow_up"]
    assert f["debate_id"] == first["debate_id"] and (f["verdict"], f["verdict_now"]) == ("FAIL", "CONDITIONAL")
    assert second["summary"]["final_verdict"] == second["verdict"]["answer"] == "CONDITIONAL"
    assert second["debate_effect"]["final_verdict"] == "CONDITIONAL"
    capped = "verdict capped at CONDITIONAL: earlier CRITICAL finding(s) E2 still unresolved, as every judge says"
    assert capped in second["notes"]
    assert [(i["id"], i["status"], i["file"], i["line"]) for i in f["items"][:2]] == [
        ("E1", "resolved", "app.py", 14),
        ("E2", "unresolved", "app.py", 4),
    ]
    assert second["critical_findings"] == []  # new findings stay apart: none here

    assert main(["show", second["debate_id"]]) == 0
    text = capsys.readouterr().out
    assert (
        f"follow-up of {first['debate_id']}: FAIL 2 -> CONDITIONAL 4.3; earlier findings: 1 resolved, 1 unresolved"
        in text
    )
    assert text.startswith("Verdict: CONDITIONAL  score 4.3/5") and capped in text
    assert [i["kind"] for i in f["items"][2:]] == ["MUST"] * (len(f["items"]) - 2)  # its recommendations too
    assert "E2 [unresolved] debug print left in" in text
    assert main(["report", second["debate_id"], "--html", str(tmp_path / "r.html")]) == 0
    assert "FAIL 2 -&gt; CONDITIONAL 4.3" in (tmp_path / "r.html").read_text()


def test_judges_who_differ_leave_a_finding_disputed_and_a_bad_id_is_bad_input(
    repo: Path, tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from moot.protocols.evaluate.follow_up import follow_up
    from moot.protocols.evaluate.schemas import Earlier, EarlierItem

    earlier = Earlier(debate_id="d", verdict="CONDITIONAL", items=[EarlierItem(id="E1", kind="MUST", text="t")])
    mixed = follow_up(earlier, {"j1": {"E1": "resolved"}, "j2": {"E1": "unresolved"}}, "PASS", 4.0)
    assert mixed.items[0].status == "disputed"
    assert main(["evaluate", "--diff", "HEAD~1", "--follow-up", "nosuchdebate"]) == 2
    assert "--follow-up: no debate 'nosuchdebate' in the store" in capsys.readouterr().err
    assert llm_server.requests == []


def test_an_earlier_critical_caps_a_pass_only_when_every_judge_holds_it_unresolved() -> None:
    from moot.protocols.evaluate.follow_up import earlier_cap
    from moot.protocols.evaluate.schemas import EarlierItem

    def item(kind: str, status: str, n: int = 1) -> EarlierItem:
        return EarlierItem(id=f"E{n}", kind=kind, text="t", status=status)  # type: ignore[arg-type]

    verdict, note = earlier_cap("PASS", [item("CRITICAL", "resolved"), item("CRITICAL", "unresolved", 2)])
    assert verdict == "CONDITIONAL" and note is not None and "E2 still unresolved" in note
    assert earlier_cap("PASS", [item("CRITICAL", "disputed")]) == ("PASS", None)  # judges differ: no cap
    assert earlier_cap("PASS", [item("CRITICAL", "resolved")]) == ("PASS", None)
    assert earlier_cap("PASS", [item("MUST", "unresolved")]) == ("PASS", None)  # a recommendation caps nothing
    assert earlier_cap("CONDITIONAL", [item("CRITICAL", "unresolved")]) == ("CONDITIONAL", None)
    assert earlier_cap("FAIL", [item("CRITICAL", "unresolved")]) == ("FAIL", None)  # a cap never lifts a FAIL
    assert earlier_cap("PASS", []) == ("PASS", None)
