"""One outcome, whatever the path: a debate with host seats ends as the one-shot run of the same replies does.

For each protocol, a panel of one host seat and scripted judges with lists of replies (which keep their place
across processes) is run twice: one-shot, with the host seat's replies scripted too, and turn by turn, the
host seat answered with `moot reply`, MCP `submit_replies` or `moot.submit_replies`. The final verdict falls
below `--require` (`require` over MCP): both paths end the same, with the same exit code (1), while the
host-seat run exits 5 (waiting) until its last reply, and the outputs asked at the start (`--html`) are
written at the end.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client

import moot
from moot.api.gate import gate_failure
from moot.cli.app import main
from moot.mcp import build_server

from .challenge_helpers import assumptions, confront, opening, rebuttal, verdict
from .host_helpers import comparable
from .replies import CRITERIA, dims, round1, round2
from .test_decide_support import OPTIONS, QUESTION, r1, r2

WAITING = 5


@dataclass
class Case:
    """One protocol's debate: its CLI arguments, its MCP and API arguments, the host seat and every seat's
    replies, the gate that the verdict falls short of, and the judges file's shape."""

    protocol: str
    argv: list[str]
    api: dict[str, Any]
    host: str
    replies: dict[str, list[str]]
    require: str
    why: str

    def judges(self, tmp_path: Path, *, with_host: bool) -> Path:
        """The judges file: every seat scripted (one-shot), or the host seat the caller's."""
        path = tmp_path / f"{self.protocol}-{'host' if with_host else 'scripted'}.yaml"
        data = PANELS[self.protocol](self.replies, self.host if with_host else None)
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return path


def _seats(stances: dict[str, str], replies: dict[str, list[str]], host: str | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for seat, stance in stances.items():
        if seat == host:
            out.append({"host": True, "stance": stance})
        else:
            out.append({"model": f"scripted-{seat}", "stance": stance, "replies": replies[seat]})
    return out


def _evaluate_panel(replies: dict[str, list[str]], host: str | None) -> dict[str, Any]:
    stances = {"judge-1": "neutral", "judge-2": "for", "judge-3": "against"}
    return {"debate_judges": _seats(stances, replies, host)}


def _decide_panel(replies: dict[str, list[str]], host: str | None) -> dict[str, Any]:
    return {"debate_judges": _seats({s: s for s in ("risk", "value", "effort")}, replies, host)}


def _challenge_panel(replies: dict[str, list[str]], host: str | None) -> dict[str, Any]:
    challengers = [{"model": f"ch-{n}", "replies": replies[f"challenger-{n}"]} for n in (1, 2)]
    proponent: Any = "host" if host == "proponent" else {"model": "prop", "replies": replies["proponent"]}
    return {"proponent": proponent, "challengers": challengers}


PANELS: dict[str, Callable[[dict[str, list[str]], str | None], dict[str, Any]]] = {
    "evaluate": _evaluate_panel,
    "decide": _decide_panel,
    "challenge": _challenge_panel,
}

TOPIC = "Should we shard the orders table by customer id?"


def _cases(tmp_path: Path) -> dict[str, Case]:
    art = tmp_path / "users.ts"
    art.write_text("export function createUser(name: string) { return { id: 1, name }; }\n", encoding="utf-8")
    options = [a for o in OPTIONS for a in ("--option", o)]
    return {
        # the judges disagree in round 1 and settle on CONDITIONAL in round 2: below --require PASS
        "evaluate": Case(
            "evaluate",
            ["evaluate", "--solution", str(art), "--criteria", CRITERIA, "--no-reports"],
            {"solution": str(art), "criteria": CRITERIA, "reports_dir": None},
            "judge-1",
            {
                "judge-1": [round1(3.5, 3), round2(3.4, dims(3.5))],
                "judge-2": [round1(4.8, 5), round2(3.6, dims(3.5))],
                "judge-3": [round1(2.0, 2), round2(3.3, dims(3.5))],
            },
            "PASS",
            "verdict CONDITIONAL is below --require PASS",
        ),
        # risk and effort trade places in round 2, and the panel stays split: contested, below --require RECOMMENDED
        "decide": Case(
            "decide",
            ["decide", "--question", QUESTION, *options, "--no-files", "--no-input"],
            {"question": QUESTION, "options": OPTIONS, "write_files": False},
            "value",
            {
                "risk": [r1("A", "sync bugs appear after weeks"), r2("C", challenge={"value": "a guess"}, reason="c")],
                "value": [r1("B", "field workers need it"), r2("B", challenge={"risk": "not weeks"})],
                "effort": [r1("C", "ship now"), r2("A", challenge={"value": "B costs 3x"}, reason="a is less work")],
            },
            "RECOMMENDED",
            "outcome CONTESTED is not --require RECOMMENDED",
        ),
        # a challenger maintains its objection: a tradeoff, below --require CONSENSUS
        "challenge": Case(
            "challenge",
            ["challenge", TOPIC, "--max-rounds", "1"],
            {"topic": TOPIC, "max_rounds": 1},
            "proponent",
            {
                "proponent": [
                    opening(),
                    confront({"O1": "REJECT"}, "Shard orders by customer id"),
                    assumptions("the skew is manageable", "a customer above 5% of writes", ["no customer above 5%"]),
                ],
                "challenger-1": [verdict("agree", "minor")],
                "challenger-2": [
                    verdict("disagree", "strong", ["one whale customer saturates its shard"]),
                    rebuttal("MAINTAIN"),
                    assumptions("the skew is not bounded", "a year with no whale", ["the largest customer grows"]),
                ],
            },
            "CONSENSUS",
            "outcome TRADEOFF is not --require CONSENSUS",
        ),
    }


PROTOCOLS = ["evaluate", "decide", "challenge"]


def _reply(tmp_path: Path, debate_id: str, seat: str, text: str, *extra: str) -> int:
    path = tmp_path / "reply.txt"
    path.write_text(text, encoding="utf-8")
    return main(["reply", debate_id, "--seat", seat, "--file", str(path), *extra])


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_over_the_cli_a_gated_host_debate_exits_5_while_waiting_then_as_the_one_shot_run(
    protocol: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = _cases(tmp_path)[protocol]
    gate = ["--require", case.require]
    one_shot = [*case.argv, "--judges", str(case.judges(tmp_path, with_host=False)), *gate, "--format", "json"]
    assert main([*one_shot, "--html", "one.html"]) == 1
    out, err = capsys.readouterr()
    expected = json.loads(out)
    assert f"moot: gate failed: {case.why}" in err and (tmp_path / "one.html").is_file()

    host_run = [*case.argv, "--judges", str(case.judges(tmp_path, with_host=True)), *gate, "--html", "host.html"]
    assert main([*host_run, "--format", "json"]) == WAITING
    out, err = capsys.readouterr()
    state = json.loads(out)
    assert state["status"] == "waiting" and [r["seat"] for r in state["requests"]] == [case.host]
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"moot: gate not applied yet: debate {state['debate_id']} waits for 1 host reply")
    assert "the HTML report host.html is written when the last host reply arrives" in err
    assert not (tmp_path / "host.html").exists()

    replies = case.replies[case.host]
    for text in replies[:-1]:  # every reply but the last leaves the debate waiting: still not a pass
        assert _reply(tmp_path, state["debate_id"], case.host, text, "--format", "json") == WAITING
        assert json.loads(capsys.readouterr().out)["status"] == "waiting"
    assert _reply(tmp_path, state["debate_id"], case.host, replies[-1], "--format", "json") == 1
    out, err = capsys.readouterr()
    final = json.loads(out)
    assert f"moot: gate failed: {case.why}" in err and (tmp_path / "host.html").is_file()
    assert comparable(final, final["debate_id"]) == comparable(expected, expected["debate_id"])


def _mcp(body: Callable[[Client], Any]) -> None:
    async def run() -> None:
        async with Client(build_server()) as client:
            await body(client)

    anyio.run(run)


def _mcp_args(case: Case, judges: Path) -> dict[str, Any]:
    args = {"judges": str(judges), "require": case.require}
    if case.protocol == "evaluate":
        return {**args, "solution": [case.api["solution"]], "criteria": CRITERIA, "no_reports": True}
    if case.protocol == "decide":
        return {**args, "question": QUESTION, "option": OPTIONS, "no_files": True}
    return {**args, "topic": TOPIC, "max_rounds": 1}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_over_mcp_the_last_submit_applies_the_gate_given_at_the_start(protocol: str, tmp_path: Path) -> None:
    case = _cases(tmp_path)[protocol]
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        one = await client.call_tool(protocol, _mcp_args(case, case.judges(tmp_path, with_host=False)))
        seen["one"] = one
        r = await client.call_tool(
            protocol, {**_mcp_args(case, case.judges(tmp_path, with_host=True)), "html": "h.html"}
        )
        steps = [r]
        for text in case.replies[case.host]:
            assert not r.is_error and r.structured_content["status"] == "waiting", r.content
            debate_id = r.structured_content["debate_id"]
            r = await client.call_tool(
                "submit_replies", {"debate_id": debate_id, "replies": [{"seat": case.host, "reply": text}]}
            )
            steps.append(r)
        seen["steps"] = steps

    _mcp(body)
    one, final = seen["one"], seen["steps"][-1]
    assert one.is_error and one.content[-1].text == f"gate failed: {case.why}"
    assert final.is_error and final.content[-1].text == f"gate failed: {case.why}"
    assert final.structured_content["status"] == "finished" and (tmp_path / "h.html").is_file()
    got, want = final.structured_content, one.structured_content
    assert comparable(got, got["debate_id"]) == comparable(want, want["debate_id"])


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_over_the_api_the_host_path_reaches_the_verdict_and_gate_of_the_one_shot_run(
    protocol: str, tmp_path: Path
) -> None:
    case = _cases(tmp_path)[protocol]
    run = {"evaluate": moot.evaluate_sync, "decide": moot.decide_sync, "challenge": moot.challenge_sync}[protocol]
    expected = run(**case.api, judges=str(case.judges(tmp_path, with_host=False))).model_dump(mode="json")
    state = run(**case.api, judges=str(case.judges(tmp_path, with_host=True)))
    for text in case.replies[case.host]:
        assert state.status == "waiting"
        assert gate_failure(state.model_dump(mode="json"), require=case.require) is not None  # no verdict: no pass
        state = moot.submit_replies_sync(state.debate_id, [{"seat": case.host, "reply": text}])
    final = state.model_dump(mode="json")
    assert gate_failure(final, require=case.require) == gate_failure(expected, require=case.require) == case.why
    assert comparable(final, final["debate_id"]) == comparable(expected, expected["debate_id"])
    # every scripted judge answered each call with its next reply: no clarification was needed on either path
    assert final["spend"]["clarifications"] == expected["spend"]["clarifications"] == 0
    assert final["spend"]["calls"] == expected["spend"]["calls"]


GITHUB_TOKEN = "ghp_" + "k3J9xQ2mV8bN5cR7tY1uI4oP6aS0dF2gH8jL"


def _secret_case(tmp_path: Path) -> tuple[Case, Path]:
    case = _cases(tmp_path)["evaluate"]
    secret = tmp_path / "deploy.sh"
    secret.write_text(f"export GH={GITHUB_TOKEN}\necho deployed\n", encoding="utf-8")
    return case, secret


def test_a_report_format_and_redactions_chosen_at_the_start_are_produced_by_the_last_reply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case, secret = _secret_case(tmp_path)
    start = [*case.argv, "--solution", str(secret), "--redact-secrets"]
    assert main([*start, "--judges", str(case.judges(tmp_path, with_host=False)), "--format", "json"]) == 0
    one_shot = json.loads(capsys.readouterr().out)
    assert {r["kind"] for r in one_shot["redactions"]} == {"github-token"}

    assert main([*start, "--judges", str(case.judges(tmp_path, with_host=True)), "--format", "sarif"]) == 0
    first = capsys.readouterr().out
    assert "waiting for 1 host reply" in first  # the waiting state: text, as the start's format has no requests
    debate_id = first.split()[1]
    assert _reply(tmp_path, debate_id, "judge-1", case.replies["judge-1"][0]) == 0
    capsys.readouterr()
    assert _reply(tmp_path, debate_id, "judge-1", case.replies["judge-1"][1]) == 0
    sarif = json.loads(capsys.readouterr().out)  # no --format: the one the debate was started with
    assert sarif["version"] == "2.1.0" and sarif["runs"][0]["tool"]["driver"]["name"] == "moot"

    assert main(["show", debate_id, "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["redactions"] == one_shot["redactions"]
    assert GITHUB_TOKEN not in json.dumps(shown)
    assert main(["show", debate_id, "--format", "sarif"]) == 0
    assert json.loads(capsys.readouterr().out) == sarif
    assert main(["show", debate_id, "--format", "github", "--html", "later.html"]) == 0
    github = capsys.readouterr().out
    assert github.startswith("## ⚠️ moot evaluate: CONDITIONAL") and (tmp_path / "later.html").is_file()


def test_over_mcp_redact_secrets_is_listed_in_the_final_result(tmp_path: Path) -> None:
    case, secret = _secret_case(tmp_path)
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        args = _mcp_args(case, case.judges(tmp_path, with_host=True))
        args = {**args, "solution": [case.api["solution"], str(secret)], "redact_secrets": True}
        r = await client.call_tool("evaluate", args)
        for text in case.replies["judge-1"]:
            debate_id = r.structured_content["debate_id"]
            reply = {"debate_id": debate_id, "replies": [{"seat": "judge-1", "reply": text}]}
            r = await client.call_tool("submit_replies", reply)
        seen["final"] = r

    _mcp(body)
    final = seen["final"].structured_content
    assert final["status"] == "finished"
    assert [(r["source"], r["kind"]) for r in final["redactions"]] == [(str(secret), "github-token")]


def test_reply_and_show_refuse_a_format_the_protocol_does_not_print(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = _cases(tmp_path)["decide"]
    assert main([*case.argv, "--judges", str(case.judges(tmp_path, with_host=True)), "--format", "json"]) == 0
    debate_id = json.loads(capsys.readouterr().out)["debate_id"]
    assert _reply(tmp_path, debate_id, "value", case.replies["value"][0], "--format", "sarif") == 2
    assert "--format must be one of text, json, yaml, github (got 'sarif')" in capsys.readouterr().err
    assert main(["show", debate_id, "--format", "github"]) == 2  # waiting: no result to print as a report yet
    assert f"debate {debate_id} has no result yet (it is waiting)" in capsys.readouterr().err


def test_scripted_reply_lists_keep_their_place_across_processes(tmp_path: Path) -> None:
    """Each `moot reply` is a new process: the scripted judges beside the host seat go on down their lists."""
    import os
    import subprocess
    import sys

    case = _cases(tmp_path)["evaluate"]
    env = {**os.environ, "MOOT_HOME": str(tmp_path / "proc-home")}

    def moot_cli(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "moot", *args]
        return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)

    started = moot_cli(*case.argv, "--judges", str(case.judges(tmp_path, with_host=True)), "--format", "json")
    debate_id = json.loads(started.stdout)["debate_id"]
    for n, text in enumerate(case.replies["judge-1"]):
        (tmp_path / f"r{n}.txt").write_text(text, encoding="utf-8")
        done = moot_cli("reply", debate_id, "--seat", "judge-1", "--file", f"r{n}.txt", "--format", "json")
    final = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr
    assert final["consensus_reached_at"] == 2 and final["summary"]["consensus_score"] == 3.43
    scores = {j["judge"]: j["final_score"] for j in final["judges"]}
    assert scores == {"judge-1": 3.4, "judge-2": 3.6, "judge-3": 3.3}  # each scripted judge's second reply


def test_the_pre_commit_hook_fails_a_commit_whose_debate_waits_on_a_host_seat(tmp_path: Path) -> None:
    import os
    import shlex
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    [hook] = yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        config = ["-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
        subprocess.run(["git", *config, *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    seats = [{"host": True, "stance": "neutral"}, {"host": True, "stance": "for"}]
    (repo / "moot.yaml").write_text(json.dumps({"debate_judges": seats}))  # the project's judges: host seats
    (repo / "app.py").write_text("a = 1\n")
    git("add", "-A")
    git("commit", "-qm", "base")
    (repo / "app.py").write_text("a = 1\nb = 2\n")
    git("add", "app.py")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env |= {"MOOT_HOME": str(tmp_path / "home")}
    done = subprocess.run(shlex.split(hook["entry"]), cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == WAITING, done.stderr
    reason = [line for line in done.stderr.splitlines() if line.startswith("moot: gate not applied yet")]
    assert len(reason) == 1 and "waits for 2 host reply(ies)" in reason[0]


def _documented_shapes() -> dict[str, list[str]]:
    """docs/envelope.md's table of the shapes before a result: status -> the keys it lists (a nested list's
    keys, given in parentheses after `each`, under `<key>.`)."""
    import re

    text = (Path(__file__).resolve().parents[1] / "docs" / "envelope.md").read_text(encoding="utf-8")
    section = text.split("### Before a result: waiting, running, cancelled")[1].split("\n\n`moot show")[0]
    shapes: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != 3 or not re.fullmatch(r"`\w+`", cells[0]) or cells[1] == "when":  # not the header
            continue
        top, _, nested = cells[2].partition("(each")
        keys = re.findall(r"`(\w+)`", top)
        keys += [f"{keys[-1]}.{k}" for k in re.findall(r"`(\w+)`", nested)]
        shapes[cells[0].strip("`")] = keys
    return shapes


def _keys(data: dict[str, Any]) -> list[str]:
    keys = list(data)
    for key, value in data.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            keys += [f"{key}.{k}" for k in value[0]]
    return keys


def test_envelope_md_lists_the_waiting_running_and_cancelled_shapes_as_they_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = _cases(tmp_path)["evaluate"]
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        args = _mcp_args(case, case.judges(tmp_path, with_host=True))
        seen["waiting"] = (await client.call_tool("evaluate", args)).structured_content
        seen["running"] = (await client.call_tool("evaluate", {**args, "wait": False})).structured_content

    _mcp(body)
    assert main(["cancel", seen["waiting"]["debate_id"], "--format", "json"]) == 0
    seen["cancelled"] = json.loads(capsys.readouterr().out)
    documented = _documented_shapes()
    assert set(documented) == {"waiting", "running", "cancelled"}
    for status, shape in seen.items():
        assert shape["status"] == status and _keys(shape) == documented[status], status
    assert main(["show", seen["waiting"]["debate_id"], "--format", "json"]) == 0
    stopped = json.loads(capsys.readouterr().out)
    assert list(stopped) == ["debate_id", "protocol", "status", "error", "rounds", "calls_completed"]


def test_fail_under_is_applied_by_the_last_reply_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = _cases(tmp_path)["evaluate"]
    start = [*case.argv, "--judges", str(case.judges(tmp_path, with_host=True)), "--fail-under", "4", "--quiet"]
    assert main(start) == WAITING
    out, err = capsys.readouterr()
    debate_id = out.split()[1]
    assert "moot: gate not applied yet" in err
    assert _reply(tmp_path, debate_id, "judge-1", case.replies["judge-1"][0]) == WAITING
    capsys.readouterr()
    assert _reply(tmp_path, debate_id, "judge-1", case.replies["judge-1"][1]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("Verdict: CONDITIONAL  score 3.43/5")
    assert "moot: gate failed: score 3.43 is under --fail-under 4" in err


def test_a_report_asked_of_an_earlier_reply_is_written_by_the_last(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = _cases(tmp_path)["evaluate"]
    assert main([*case.argv, "--judges", str(case.judges(tmp_path, with_host=True)), "--quiet"]) == 0  # no gate
    debate_id = capsys.readouterr().out.split()[1]
    first, last = case.replies["judge-1"]
    assert _reply(tmp_path, debate_id, "judge-1", first, "--html", "late.html", "--format", "github") == 0
    assert "the HTML report late.html is written when the last host reply arrives" in capsys.readouterr().err
    assert not (tmp_path / "late.html").exists()
    assert _reply(tmp_path, debate_id, "judge-1", last) == 0
    assert capsys.readouterr().out.startswith("## ⚠️ moot evaluate: CONDITIONAL")
    assert (tmp_path / "late.html").is_file()
