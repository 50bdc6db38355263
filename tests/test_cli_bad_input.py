"""Bad input: one line naming the problem, exit code 2, no traceback, no LLM call."""

from __future__ import annotations

from pathlib import Path

import pytest

from moot.cli.app import main
from moot.testing import FakeLLMServer

from .replies import CRITERIA


@pytest.fixture
def good(llm_server: FakeLLMServer, judges_file, artifact: Path) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {"solution": str(artifact), "judges": str(judges_file())}


def check_bad(capsys: pytest.CaptureFixture[str], server: FakeLLMServer, argv: list[str], expected: str) -> None:
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("moot: error: ")
    assert expected in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""
    assert server.requests == []


def test_missing_solution_file(capsys, llm_server, good) -> None:  # type: ignore[no-untyped-def]
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", "nope.ts", "--judges", good["judges"]],
        "no such file: nope.ts",
    )


def test_binary_artifact(capsys, llm_server, good, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    binary = tmp_path / "logo.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", str(binary), "--judges", good["judges"]],
        "is a binary file",
    )


def test_unreadable_artifact(capsys, llm_server, good, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import os

    if os.geteuid() == 0:
        pytest.skip("root reads everything")
    locked = tmp_path / "locked.ts"
    locked.write_text("x")
    locked.chmod(0)
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", str(locked), "--judges", good["judges"]],
        "permission denied",
    )


def test_glob_matching_nothing(capsys, llm_server, good) -> None:  # type: ignore[no-untyped-def]
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", "src/**/*.rs", "--judges", good["judges"]],
        "no file matches",
    )


def test_malformed_judges_yaml(capsys, llm_server, good, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.yaml"
    bad.write_text("debate_judges:\n  - model: a\n   stance: [unclosed\n")
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", good["solution"], "--judges", str(bad)],
        "is not valid YAML (line",
    )


def test_empty_judge_list(capsys, llm_server, good, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    empty = tmp_path / "empty.yaml"
    empty.write_text("debate_judges: []\n")
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", good["solution"], "--judges", str(empty)],
        "the judge list is empty",
    )


def test_single_judge(capsys, llm_server, good, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    one = tmp_path / "one.yaml"
    one.write_text("debate_judges: [{model: a, api_base: 'http://127.0.0.1:9/v1'}]\n")
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", good["solution"], "--judges", str(one)],
        "at least two judges",
    )


def test_unknown_key_in_judges_file(capsys, llm_server, good, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    typo = tmp_path / "typo.yaml"
    typo.write_text("debate_judges:\n  - {model: a, stanse: for}\n  - {model: b}\n")
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", good["solution"], "--judges", str(typo)],
        "debate_judges.0.stanse: unknown key",
    )


def test_missing_api_key_names_the_variable(capsys, llm_server, good) -> None:  # type: ignore[no-untyped-def]
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", good["solution"]],
        "needs an API key: set GEMINI_API_KEY or GOOGLE_API_KEY",
    )


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        ("correctness:30,design", "'design' has no weight"),
        ("correctness:abc", "is not a number"),
        ("correctness:0,design:10", "must be a positive number"),
        ("correctness:-5,design:10", "must be a positive number"),
        ("a:1,a:2", "given twice"),
        ("", "--criteria is empty"),
    ],
)
def test_bad_criteria(capsys, llm_server, good, criteria: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", good["solution"], "--judges", good["judges"], "--criteria", criteria],
        expected,
    )


def test_missing_rubric_file(capsys, llm_server, good) -> None:  # type: ignore[no-untyped-def]
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", good["solution"], "--judges", good["judges"], "--criteria", "rubric.yaml"],
        "rubric file rubric.yaml does not exist",
    )


def test_max_rounds_zero(capsys, llm_server, good) -> None:  # type: ignore[no-untyped-def]
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", good["solution"], "--judges", good["judges"], "--max-rounds", "0"],
        "--max-rounds must be at least 1",
    )


def test_unknown_option(capsys, llm_server, good) -> None:  # type: ignore[no-untyped-def]
    check_bad(capsys, llm_server, ["evaluate", "--solution", good["solution"], "--bogus"], "No such option: --bogus")


def test_bad_format_and_mode(capsys, llm_server, good) -> None:  # type: ignore[no-untyped-def]
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", good["solution"], "--judges", good["judges"], "--format", "xml"],
        "--format must be one of",
    )
    check_bad(
        capsys,
        llm_server,
        ["evaluate", "--solution", good["solution"], "--judges", good["judges"], "--mode", "slow"],
        "--mode must be complete or quick",
    )


def test_show_unknown_debate(capsys, llm_server) -> None:  # type: ignore[no-untyped-def]
    check_bad(capsys, llm_server, ["show", "does-not-exist"], "no debate does-not-exist")


def test_rubric_file_is_accepted(tmp_path: Path) -> None:
    from moot.protocols.evaluate.criteria import load_criteria

    rubric = tmp_path / "rubric.yaml"
    rubric.write_text(
        "criteria:\n  - {name: Accuracy, weight: 35, description: 'Technically correct?'}\n  - {name: Clarity, weight: 65}\n"
    )
    crit = load_criteria(str(rubric))
    assert [(c.key, round(c.weight, 2)) for c in crit] == [("accuracy", 0.35), ("clarity", 0.65)]
    assert crit[0].description == "Technically correct?"
    assert [c.key for c in load_criteria("documentation")] == [
        "accuracy",
        "completeness",
        "clarity",
        "usability",
    ]
    assert len(load_criteria(CRITERIA)) == 5


def test_show_with_a_short_or_shared_prefix_asks_for_more_of_the_id(capsys) -> None:  # type: ignore[no-untyped-def]
    from moot.store.db import Store

    store = Store.open_default()
    for debate_id in ("2345aaaa-0000", "2345bbbb-0000"):
        store.create_debate(debate_id, "evaluate", {}, title="t")
    store.close()
    assert main(["show", "23"]) == 2
    assert capsys.readouterr().err.strip() == (
        "moot: error: '23' starts 2 debates' ids: give more of the id (see 'moot list')"
    )
    assert main(["show", "2345a"]) == 0  # a unique prefix of four or more characters
    capsys.readouterr()
    store = Store.open_default()
    store.create_debate("9876cccc-0000", "evaluate", {}, title="t")
    store.close()
    assert main(["show", "98"]) == 2  # only one debate starts so, but two characters are too few
    assert "'98' is too short a prefix: give at least 4 characters of the id" in capsys.readouterr().err
    assert main(["report", "234", "--html", "x.html"]) == 2
    assert "give more of the id" in capsys.readouterr().err
