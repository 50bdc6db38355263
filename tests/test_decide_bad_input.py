"""`moot decide` with bad input: one line naming the problem, exit code 2, no traceback, no LLM call."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer

from .test_decide_support import QUESTION, decide_judges


def check_bad(capsys: pytest.CaptureFixture[str], server: FakeLLMServer, argv: list[str], expected: str) -> None:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("moot: error: ")
    assert expected in lines[0], lines[0]
    assert "Traceback" not in captured.err and captured.out == ""
    assert server.requests == []


@pytest.fixture
def judges(tmp_path: Path, llm_server: FakeLLMServer) -> str:
    return str(decide_judges(tmp_path, llm_server))


def test_fewer_than_two_options(capsys, llm_server, judges) -> None:  # type: ignore[no-untyped-def]
    argv = ["decide", "--question", QUESTION, "--option", "A=Online only", "--judges", judges]
    check_bad(capsys, llm_server, argv, "a decision needs at least two options (got 1)")


def test_no_option_at_all(capsys, llm_server, judges) -> None:  # type: ignore[no-untyped-def]
    check_bad(
        capsys, llm_server, ["decide", "--question", QUESTION, "--judges", judges], "at least two options (got 0)"
    )


def test_duplicate_option_ids(capsys, llm_server, judges) -> None:  # type: ignore[no-untyped-def]
    argv = ["decide", "-q", QUESTION, "-o", "A=Online only", "-o", "a=Full offline", "--judges", judges]
    check_bad(capsys, llm_server, argv, "duplicate option id 'a'")


def test_option_without_text(capsys, llm_server, judges) -> None:  # type: ignore[no-untyped-def]
    argv = ["decide", "-q", QUESTION, "-o", "A=", "-o", "B=Full offline", "--judges", judges]
    check_bad(capsys, llm_server, argv, "the option has no text")


def test_no_question(capsys, llm_server, judges) -> None:  # type: ignore[no-untyped-def]
    argv = ["decide", "-o", "A=Online", "-o", "B=Offline", "--judges", judges]
    check_bad(capsys, llm_server, argv, "no question given")


@pytest.mark.parametrize("value", ["0", "1.5", "-0.2"])
def test_threshold_flag_outside_zero_one(capsys, llm_server, judges, value: str) -> None:  # type: ignore[no-untyped-def]
    argv = ["decide", "-q", QUESTION, "-o", "A=Online", "-o", "B=Offline", "--judges", judges, "--threshold", value]
    check_bad(capsys, llm_server, argv, f"--threshold must be in (0, 1] (got {float(value):g})")


def test_threshold_in_judges_file_outside_zero_one(capsys, llm_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    judges = decide_judges(tmp_path, llm_server, debate_config={"consensus_threshold": 1.2})
    argv = ["decide", "-q", QUESTION, "-o", "A=Online", "-o", "B=Offline", "--judges", str(judges)]
    check_bad(
        capsys,
        llm_server,
        argv,
        f"judges file {judges}: debate_config: consensus_threshold: must be in (0, 1] (got 1.2)",
    )


def test_unknown_debate_config_key(capsys, llm_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    judges = decide_judges(tmp_path, llm_server, debate_config={"max_round": 2})
    argv = ["decide", "-q", QUESTION, "-o", "A=Online", "-o", "B=Offline", "--judges", str(judges)]
    check_bad(capsys, llm_server, argv, "debate_config: max_round: unknown key")


def test_debate_context_with_duplicate_ids(capsys, llm_server, judges, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "q.yaml"
    context = {"question_text": "Q?", "options": [{"id": "A", "label": "x"}, {"id": "A", "label": "y"}]}
    path.write_text(yaml.safe_dump({"debate_context": context}), encoding="utf-8")
    check_bad(
        capsys, llm_server, ["decide", "--debate-context", str(path), "--judges", judges], "duplicate option id 'A'"
    )


def test_debate_context_and_question_together(capsys, llm_server, judges, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "q.yaml"
    path.write_text("debate_context: {question_text: Q?, options: [{id: A}, {id: B}]}\n", encoding="utf-8")
    argv = ["decide", "--debate-context", str(path), "-q", "Other?", "--judges", judges]
    check_bad(capsys, llm_server, argv, "give either --debate-context or --question")


def test_missing_debate_context_file(capsys, llm_server, judges) -> None:  # type: ignore[no-untyped-def]
    argv = ["decide", "--debate-context", "nope.yaml", "--judges", judges]
    check_bad(capsys, llm_server, argv, "debate context file nope.yaml does not exist")


def test_missing_context_file(capsys, llm_server, judges) -> None:  # type: ignore[no-untyped-def]
    argv = ["decide", "-q", QUESTION, "-o", "A=x", "-o", "B=y", "--context", "spec.md", "--judges", judges]
    check_bad(capsys, llm_server, argv, "no such file: spec.md")


def test_bad_question_id(capsys, llm_server, judges) -> None:  # type: ignore[no-untyped-def]
    argv = ["decide", "-q", QUESTION, "-o", "A=x", "-o", "B=y", "--question-id", "../etc", "--judges", judges]
    check_bad(capsys, llm_server, argv, "question_id '../etc' may hold only letters")


def test_default_judges_without_key_name_the_variable(capsys, llm_server) -> None:  # type: ignore[no-untyped-def]
    argv = ["decide", "-q", QUESTION, "-o", "A=Online", "-o", "B=Offline"]
    check_bad(capsys, llm_server, argv, "ANTHROPIC_API_KEY")
    assert not Path(".specs").exists()


def test_bad_format(capsys, llm_server, judges) -> None:  # type: ignore[no-untyped-def]
    argv = ["decide", "-q", QUESTION, "-o", "A=x", "-o", "B=y", "--judges", judges, "--format", "xml"]
    check_bad(capsys, llm_server, argv, "--format must be one of text, json, yaml")


@pytest.mark.parametrize("option", ["a/b=slash", 'x">=quote', "<option>=tag"])
def test_option_ids_are_plain_names(capsys, llm_server, judges, option: str) -> None:  # type: ignore[no-untyped-def]
    argv = ["decide", "-q", QUESTION, "-o", option, "-o", "B=y", "--judges", judges]
    check_bad(capsys, llm_server, argv, "--option")
