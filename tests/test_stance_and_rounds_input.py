"""Stances a protocol has no guidance for, and more rounds than a protocol has, are bad input: one line,
exit 2, no call. A stance of one's own with its `stance_prompt` stays valid, and so does the most rounds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

import moot
from moot.api import Panelist
from moot.cli.app import main
from moot.errors import UsageError
from moot.judges import FunctionJudge
from moot.protocols.challenge import schemas as challenge_schema
from moot.protocols.decide import schemas as decide_schema
from moot.protocols.evaluate import schemas as evaluate_schema
from moot.testing import FakeLLMServer

from .challenge_helpers import opening, verdict, write_judges
from .replies import CRITERIA, round1
from .test_decide_support import QUESTION, decide_judges, question_args, r1


def check_bad(capsys: pytest.CaptureFixture[str], server: FakeLLMServer, argv: list[str], expected: str) -> None:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("moot: error: ") and expected in lines[0], lines[0]
    assert "Traceback" not in captured.err and captured.out == ""
    assert server.requests == []


def never_called(_: Any) -> str:
    raise AssertionError("bad input must be refused before any call")


def judges_yaml(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


# ---------------------------------------------------------------- evaluate


def evaluate_argv(judges: Path, artifact: Path, *extra: str) -> list[str]:
    return ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), *extra]


def test_evaluate_stance_without_guidance_is_refused_and_with_it_runs(
    capsys: pytest.CaptureFixture[str], llm_server: FakeLLMServer, artifact: Path, tmp_path: Path
) -> None:
    base = llm_server.base_url
    security = {"model": "judge-b", "stance": "security", "api_base": base}
    panel = {"debate_judges": [{"model": "judge-a", "stance": "neutral", "api_base": base}, security]}
    judges = judges_yaml(tmp_path / "j.yaml", panel)
    check_bad(
        capsys,
        llm_server,
        evaluate_argv(judges, artifact),
        "judge 2 (judge-b): stance 'security' needs a stance_prompt (evaluate's stances are neutral, for and against)",
    )

    security["stance_prompt"] = "Hunt for injection and auth flaws"
    judges = judges_yaml(tmp_path / "j.yaml", panel)
    llm_server.script("judge-a", round1(4.0, 4))
    llm_server.script("judge-b", round1(4.1, 4))
    assert main([*evaluate_argv(judges, artifact), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["consensus_reached"]
    assert "Hunt for injection and auth flaws" in json.dumps(llm_server.calls_for("judge-b")[0].body)


def test_evaluate_stance_in_code_without_guidance_is_a_usage_error() -> None:
    judges = [Panelist(FunctionJudge(never_called)), Panelist(FunctionJudge(never_called), stance="pragmatic")]
    with pytest.raises(UsageError, match=r"judge 2 \(.*\): stance 'pragmatic' needs a stance_prompt"):
        moot.evaluate_sync(artifacts=[evaluate_schema.Artifact(path="a.py", text="x = 1")], judges=judges)


@pytest.mark.parametrize("flag", ["--max-rounds", "file"])
def test_evaluate_more_rounds_than_it_has(
    capsys: pytest.CaptureFixture[str],
    llm_server: FakeLLMServer,
    judges_file,
    artifact: Path,
    flag: str,  # type: ignore[no-untyped-def]
) -> None:
    most = evaluate_schema.MAX_ROUNDS
    assert most == 3
    if flag == "file":
        judges = judges_file(max_rounds=most + 1)
        argv, where = evaluate_argv(judges, artifact), f"judges file {judges}: max_rounds {most + 1}"
    else:
        argv, where = (
            [*evaluate_argv(judges_file(), artifact), "--max-rounds", str(most + 1)],
            f"--max-rounds {most + 1}",
        )
    check_bad(capsys, llm_server, argv, f"{where} is more than evaluate can honour: at most 3 (")
    # the most is fine (a dry run sends nothing)
    assert main([*evaluate_argv(judges_file(), artifact), "--max-rounds", str(most), "--dry-run"]) == 0
    assert "up to 3 round(s)" in capsys.readouterr().out and llm_server.requests == []


def test_evaluate_rounds_in_code_beyond_the_most_is_a_usage_error() -> None:
    judges = [Panelist(FunctionJudge(never_called)), Panelist(FunctionJudge(never_called), stance="for")]
    with pytest.raises(UsageError, match="--max-rounds 4 is more than evaluate can honour: at most 3"):
        moot.evaluate_sync(artifacts=[evaluate_schema.Artifact(path="a.py", text="x")], judges=judges, max_rounds=4)


def test_judges_file_rounds_below_one_are_not_silently_the_default(
    capsys: pytest.CaptureFixture[str],
    llm_server: FakeLLMServer,
    judges_file,
    artifact: Path,  # type: ignore[no-untyped-def]
) -> None:
    judges = judges_file(max_rounds=0)
    check_bad(
        capsys, llm_server, evaluate_argv(judges, artifact), f"judges file {judges}: max_rounds must be at least 1"
    )


# ---------------------------------------------------------------- decide


def test_decide_stance_without_guidance_is_refused_and_with_it_runs(
    capsys: pytest.CaptureFixture[str], llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    base = llm_server.base_url
    security: dict[str, Any] = {"model": "sec-m", "stance": "security", "api_base": base}
    panel = {"debate_judges": [{"model": "risk-m", "stance": "risk", "api_base": base}, security]}
    judges = judges_yaml(tmp_path / "j.yaml", panel)
    check_bad(
        capsys,
        llm_server,
        question_args(judges),
        "judge 2 (sec-m): stance 'security' needs a stance_prompt (decide's stances are risk, value and effort)",
    )

    security["stance_prompt"] = "Weigh each option's attack surface"
    judges = judges_yaml(tmp_path / "j.yaml", panel)
    llm_server.script("risk-m", r1("A"))
    llm_server.script("sec-m", r1("A"))
    assert main([*question_args(judges), "--format", "json", "--no-files"]) == 0
    assert json.loads(capsys.readouterr().out)["recommended_option"] == "A"
    assert "Weigh each option's attack surface" in json.dumps(llm_server.calls_for("sec-m")[0].body)


def test_decide_judge_left_without_a_stance_is_refused(
    capsys: pytest.CaptureFixture[str], llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    judges = [{"model": f"m{n}", "api_base": llm_server.base_url} for n in range(1, 5)]
    path = judges_yaml(tmp_path / "four.yaml", {"debate_judges": judges})
    check_bad(capsys, llm_server, question_args(path), "judge 4 (m4) has no stance left to take")


def test_decide_evaluate_stance_in_code_is_a_usage_error() -> None:
    judges = [Panelist(FunctionJudge(never_called), stance="risk"), Panelist(FunctionJudge(never_called))]
    with pytest.raises(UsageError, match=r"judge 2 \(.*\): stance 'neutral' needs a stance_prompt"):
        moot.decide_sync(QUESTION, ["A=Online", "B=Offline"], judges=judges, write_files=False)


def test_decide_more_rounds_than_it_has(
    capsys: pytest.CaptureFixture[str], llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    most = decide_schema.MAX_ROUNDS
    assert most == 2
    expected = f"max_rounds {most + 1} is more than decide can honour: at most 2 ("
    judges = decide_judges(tmp_path, llm_server, debate_config={"max_rounds": most + 1})
    check_bad(capsys, llm_server, question_args(judges), f"judges file {judges}: debate_config: {expected}")

    question = tmp_path / "q.yaml"
    context = {"question_text": QUESTION, "options": [{"id": "A", "label": "x"}, {"id": "B", "label": "y"}]}
    question.write_text(yaml.safe_dump({"debate_context": context, "debate_config": {"max_rounds": most + 1}}))
    plain = decide_judges(tmp_path, llm_server, name="plain.yaml")
    check_bad(capsys, llm_server, ["decide", "--debate-context", str(question), "--judges", str(plain)], expected)

    panel = [Panelist(FunctionJudge(never_called), stance=s) for s in ("risk", "value")]
    with pytest.raises(UsageError, match=expected.replace("(", r"\(")):
        moot.decide_sync(QUESTION, ["A=x", "B=y"], judges=panel, config={"max_rounds": most + 1}, write_files=False)

    at_most = decide_judges(tmp_path, llm_server, debate_config={"max_rounds": most}, name="ok.yaml")
    assert main([*question_args(at_most), "--dry-run"]) == 0
    assert llm_server.requests == []


# ---------------------------------------------------------------- challenge


def challenge_file(path: Path, server: FakeLLMServer, second: dict[str, Any] | None = None, **extra: Any) -> Path:
    base = server.base_url
    challengers = [{"model": "ch-a", "api_base": base}, {"model": "ch-b", "api_base": base, **(second or {})}]
    return write_judges(path, {"model": "prop", "api_base": base}, challengers, **extra)


def test_challenge_stance_other_than_the_role_is_refused_unless_guided(
    capsys: pytest.CaptureFixture[str], llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    judges = challenge_file(tmp_path / "j.yaml", llm_server, {"stance": "against"})
    check_bad(
        capsys,
        llm_server,
        ["challenge", "Shard orders?", "--judges", str(judges)],
        "challenger 2 (ch-b): stance 'against' needs a stance_prompt (in a challenge the role is the stance",
    )
    guided = challenge_file(
        tmp_path / "g.yaml", llm_server, {"stance": "against", "stance_prompt": "Argue from the DBA's side"}
    )
    llm_server.script("prop", opening())
    llm_server.script("ch-a", verdict("agree", "minor"))
    llm_server.script("ch-b", verdict("agree", "minor"))
    assert main(["challenge", "Shard orders?", "--judges", str(guided), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["outcome"] == "CONSENSUS"
    assert "Argue from the DBA's side" in json.dumps(llm_server.calls_for("ch-b")[0].body)


@pytest.mark.parametrize("flag", ["--max-rounds", "file"])
def test_challenge_more_rounds_than_it_has(
    capsys: pytest.CaptureFixture[str], llm_server: FakeLLMServer, tmp_path: Path, flag: str
) -> None:
    most = challenge_schema.MAX_ROUNDS
    assert most == 5
    if flag == "file":
        judges = challenge_file(tmp_path / "j.yaml", llm_server, max_rounds=most + 1)
        argv, where = ["challenge", "T?", "--judges", str(judges)], f"judges file {judges}: max_rounds {most + 1}"
    else:
        judges = challenge_file(tmp_path / "j.yaml", llm_server)
        argv, where = ["challenge", "T?", "--judges", str(judges), "--max-rounds", str(most + 1)], "--max-rounds 6"
    check_bad(capsys, llm_server, argv, f"{where} is more than challenge can honour: at most 5 (")
    with pytest.raises(UsageError, match="--max-rounds 6 is more than challenge can honour"):
        moot.challenge_sync("T?", judges=challenge_file(tmp_path / "k.yaml", llm_server), max_rounds=most + 1)
    assert (
        main(["challenge", "T?", "--judges", str(challenge_file(tmp_path / "ok.yaml", llm_server)), "--dry-run"]) == 0
    )
    assert llm_server.requests == []
