"""Items are checked whole at load: a wrong-typed field, NaN, text over the 2 MB limit `--solution` has, a
deeply nested line or a 5,000-digit id is exit 2 naming the file, the line and the field, and nothing is
sent. A folder, a FIFO or UTF-16 given as a file is named for what it is."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from moot.bench.suites import load_suite
from moot.cli.app import main
from moot.errors import UsageError
from moot.testing import FakeLLMServer

from .test_batch_support import item, judges_for, serve

BIG = 2_000_001


def _run(tmp_path: Path, server: FakeLLMServer, lines: list[str], protocol: str = "evaluate") -> tuple[int, str]:
    serve(server)
    judges = judges_for(protocol, tmp_path, server)
    items = tmp_path / "items.jsonl"
    items.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    code = main(["batch", str(items), "--protocol", protocol, "--judges", str(judges)])
    return code, str(items)


GOOD = json.dumps(item("evaluate", 0))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "a", "artifact": "x", "task": 5}', "line 2: field 'task': Input should be a valid string (got 5)"),
        (
            '{"id": "a", "artifact": "x", "task": null}',
            "line 2: field 'task': Input should be a valid string (got null)",
        ),
        (
            '{"id": "a", "artifact": "x", "max_rounds": NaN}',
            "line 2: field 'max_rounds': NaN (not a number JSON allows)",
        ),
        ('{"id": "a", "artifact": "x", "criteria": 5}', "line 2: field 'criteria': "),
        (
            '{"id": "a", "artifact": "x", "max_rounds": "abc"}',
            "line 2: field 'max_rounds': Input should be a valid integer",
        ),
        ('{"id": "a", "artifact": "x", "max_rounds": 0}', "line 2: field 'max_rounds' must be at least 1 (got 0)"),
        ('{"id": "a", "artifact": "x", "mode": "fast"}', "line 2: field 'mode': Input should be 'complete' or 'quick'"),
        ('{"id": "a", "artifact": 5}', "line 2: 'artifact' must be the artifact's text"),
        ('{"id": "a", "artifact": "x", "consensus": {"k": Infinity}}', "line 2: field 'consensus': Infinity"),
        ('{"id": ' + "7" * 5000 + ', "artifact": "x"}', "line 2: field 'id': a number of 5,000 digits (at most 30)"),
        ('{"id": "a", "artifact": "x", "task": ' + "[" * 5000 + "]" * 5000 + "}", "line 2: nested too deeply"),
        ('{"id": "a", "artifact": "x", "task": ' + "[" * 40 + "]" * 40 + "}", "line 2: field 'task': nested more than"),
        (json.dumps({"id": "a", "artifact": "x" * BIG}), "line 2: field 'artifact': text larger than 2 MB"),
        (
            json.dumps({"id": "a", "artifacts": [{"path": "p", "text": "é" * (BIG // 2 + 1)}]}),
            "line 2: field 'artifacts': text larger",
        ),
    ],
)
def test_a_bad_item_is_exit_2_naming_the_line_and_the_field_and_sends_nothing(
    line: str, message: str, llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, items = _run(tmp_path, llm_server, [GOOD, line])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"moot: error: {items} {message}"), err[:300]
    assert llm_server.requests == []


def test_a_bad_value_on_a_panels_first_item_names_its_line(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first item of a panel is prepared to check keys: what only the protocol can check is still named."""
    bad = {**item("evaluate", 1), "thresholds": {"pass_score": "high"}}
    code, items = _run(tmp_path, llm_server, [json.dumps(bad), GOOD])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"moot: error: {items} line 1: "), err
    assert "Traceback" not in err and llm_server.requests == []


def test_a_challenge_item_s_rounds_and_a_decide_item_s_threshold_are_typed(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, items = _run(tmp_path, llm_server, ['{"id": 1, "topic": "t", "max_rounds": true}'], "challenge")
    assert code == 2
    assert capsys.readouterr().err.startswith(f"moot: error: {items} line 1: field 'max_rounds': ")
    line = '{"id": 1, "question": "q", "options": {"A": "a", "B": "b"}, "threshold": "x"}'
    code, items = _run(tmp_path, llm_server, [line], "decide")
    assert code == 2
    assert "line 1: field 'threshold': Input should be a valid number" in capsys.readouterr().err
    assert llm_server.requests == []


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _utf16(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-16"))
    return path


def test_a_folder_a_fifo_and_utf16_are_named_for_what_they_are(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server)
    judges = str(judges_for("evaluate", tmp_path, llm_server))
    folder = tmp_path / "items-folder"
    folder.mkdir()
    cases = {
        folder: f"items file {folder} is a folder, not a file",
        _fifo(tmp_path / "items.fifo"): f"items file {tmp_path / 'items.fifo'} is a FIFO (named pipe), not a file",
        _utf16(tmp_path / "u16.jsonl", GOOD + "\n"): f"items file {tmp_path / 'u16.jsonl'} is UTF-16 text, not UTF-8",
    }
    for path, message in cases.items():
        assert main(["batch", str(path), "--protocol", "evaluate", "--judges", judges]) == 2
        assert capsys.readouterr().err.startswith(f"moot: error: {message}")

    # a FIFO or UTF-16 named as an item's solution, or as --solution
    _fifo(tmp_path / "sol.fifo")
    _utf16(tmp_path / "sol16.py", "def f(): pass\n")
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": 1, "solution": "sol.fifo"}\n')
    assert main(["batch", str(items), "--protocol", "evaluate", "--judges", judges]) == 2
    assert f"{items} line 1: solution: sol.fifo is a FIFO (named pipe), not a file" in capsys.readouterr().err
    for solution, what in (("sol.fifo", "a FIFO (named pipe), not a file"), ("sol16.py", "UTF-16 text, not UTF-8")):
        assert main(["evaluate", "--solution", str(tmp_path / solution), "--judges", judges]) == 2
        assert capsys.readouterr().err.startswith(f"moot: error: {tmp_path / solution} is {what}")
    assert llm_server.requests == []


def test_gold_files_get_the_same_messages(tmp_path: Path) -> None:
    folder = tmp_path / "gold"
    folder.mkdir()
    with pytest.raises(UsageError, match=f"gold file {folder} is a folder, not a file"):
        load_suite(str(folder))
    with pytest.raises(UsageError, match="is UTF-16 text"):
        load_suite(str(_utf16(tmp_path / "g16.jsonl", '{"id": "1"}\n')))
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"id": "1", "task": ' + "[" * 5000 + "]" * 5000 + "}\n")
    with pytest.raises(UsageError, match=r"deep.jsonl:1: nested too deeply"):
        load_suite(str(deep))
    huge = tmp_path / "huge.jsonl"
    huge.write_text('{"id": ' + "1" * 5000 + "}\n")
    with pytest.raises(UsageError, match=r"huge.jsonl:1: field 'id': a number of 5,000 digits"):
        load_suite(str(huge))
