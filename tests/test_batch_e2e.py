"""`moot batch` end to end through the CLI: 50 items of each protocol against the real local server,
RESULTS.jsonl, the summary, bad input, a failing item, `moot list` and `moot show BATCH_ID`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from moot.cli.app import main
from moot.testing import FakeLLMServer

from .test_batch_support import item, judges_for, read_results, serve, write_items

SUMMARY_KEYS = {
    "batch_id",
    "protocol",
    "status",
    "items",
    "done",
    "failed",
    "distribution",
    "spend",
    "wall_seconds",
    "debates_per_minute",
    "results",
    "failures",
    "degraded",
    "degraded_items",
}
# item n of 50 gets the other verdict when n % 5 == 0: 10 of them
EXPECTED = {
    "evaluate": {"PASS": 40, "FAIL": 10},
    "decide": {"RECOMMENDED": 50},
    "challenge": {"CONSENSUS": 50},
}


def batch(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any, str]:
    code = main(["batch", *args])
    cap = capsys.readouterr()
    out = json.loads(cap.out) if "--format" in args and cap.out.strip() else cap.out
    return code, out, cap.err


@pytest.mark.parametrize("protocol", ["evaluate", "decide", "challenge"])
def test_fifty_items_of_each_protocol(
    protocol: str, llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server)
    judges = judges_for(protocol, tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item(protocol, n, other=n % 5 == 0) for n in range(50)])
    code, summary, _ = batch(
        capsys, str(items), "--protocol", protocol, "--judges", str(judges), "--concurrency", "10", "--format", "json"
    )
    assert code == 0, summary
    assert set(summary) == SUMMARY_KEYS
    assert (summary["items"], summary["done"], summary["failed"], summary["status"]) == (50, 50, 0, "finished")
    assert summary["distribution"] == EXPECTED[protocol]
    assert summary["spend"]["calls"] == len(llm_server.requests) == 150  # three calls a debate, no more
    assert summary["spend"]["tokens"] > 0 and summary["spend"]["cost"] == 0.0
    assert summary["wall_seconds"] > 0 and summary["debates_per_minute"] > 0

    lines = read_results(tmp_path / "items.results.jsonl")
    assert sorted(line["id"] for line in lines) == sorted(item(protocol, n)["id"] for n in range(50))
    assert all(set(line) == {"id", "debate_id", "status", "result"} and line["status"] == "done" for line in lines)
    # each result is exactly what `--format json` prints for that debate (`moot show` prints it again)
    first = lines[0]
    assert main(["show", first["debate_id"], "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == first["result"]
    assert first["result"]["debate_id"] == first["debate_id"]
    if protocol == "decide":  # the items' own words reached the judges
        chosen = {line["id"]: line["result"]["recommended_option"] for line in lines}
        assert chosen["d5"] == "B" and chosen["d6"] == "A"


def test_running_again_continues_and_sends_nothing_when_done(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(4)])
    out = tmp_path / "out" / "results.jsonl"
    args = (str(items), "--protocol", "evaluate", "--judges", str(judges), "--out", str(out))
    assert batch(capsys, *args)[0] == 0
    first = out.read_text()
    sent = len(llm_server.requests)
    code, text, _ = batch(capsys, *args)
    assert code == 0 and "4 items: 4 done, 0 failed" in text and "PASS 4" in text
    assert len(llm_server.requests) == sent  # nothing asked again
    assert out.read_text() == first


@pytest.mark.parametrize(
    ("line3", "message"),
    [
        ('{"id": "x", "artifact": "text"', "line 3: not valid JSON"),
        ('["not", "an", "object"]', "line 3: each line must be a JSON object"),
        ('{"id": "e0", "artifact": "text"}', "line 3: id 'e0' is already used on line 1"),
        ('{"artifact": "text"}', "line 3: every item needs an 'id'"),
        ('{"id": "x", "task": "t"}', "line 3: an evaluate item needs 'solution'"),
        ('{"id": "x", "artifact": "t", "temperature": 1}', "line 3: unknown argument 'temperature'"),
        ('{"id": "x", "solution": "missing.py"}', "line 3: solution: no such file: missing.py"),
        ('{"id": "x", "artifact": "t", "judges": "nope.yaml"}', "line 3: no such judges file: nope.yaml"),
    ],
)
def test_bad_input_names_the_line_and_sends_nothing(
    line3: str, message: str, llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    good = [json.dumps(item("evaluate", n)) for n in range(2)]
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join([good[0], good[1], line3, ""]), encoding="utf-8")
    code, out, err = batch(capsys, str(items), "--protocol", "evaluate", "--judges", str(judges))
    assert code == 2 and out == ""
    assert err.startswith("moot: error: ") and message in err and len(err.splitlines()) == 1
    assert llm_server.requests == []
    assert not (tmp_path / "items.results.jsonl").exists()


def test_bad_options_are_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = write_items(tmp_path / "items.jsonl", [item("challenge", 0)])
    for args, message in [
        (["--protocol", "vote"], "--protocol must be one of evaluate, decide, challenge"),
        (["--protocol", "challenge", "--concurrency", "0"], "--concurrency must be"),
        (["--protocol", "challenge", "--max-cost", "-1"], "--max-cost must be a positive number"),
        (["--protocol", "challenge", "--backend", "spark"], "--backend must be one of local, ray"),
        (["--protocol", "challenge", "--format", "yaml"], "--format must be one of text, json"),
        (["--protocol", "challenge", "--judges", "none.yaml"], "no such judges file: none.yaml"),
    ]:
        code, _, err = batch(capsys, str(items), *args)
        assert code == 2 and message in err, (args, err)
    assert main(["batch", str(tmp_path / "nothing.jsonl"), "--protocol", "decide"]) == 2
    assert "no such items file" in capsys.readouterr().err


def test_a_failing_item_does_not_stop_the_others(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server)
    judges = judges_for("decide", tmp_path, llm_server)
    broken = judges_for("decide", tmp_path, llm_server, broken=True)
    rows = [item("decide", n) for n in range(6)]
    rows[2]["judges"] = broken.name  # relative to the items file
    items = write_items(tmp_path / "items.jsonl", rows)
    args = (str(items), "--protocol", "decide", "--judges", str(judges), "--format", "json")
    code, summary, _ = batch(capsys, *args)
    assert code == 1
    assert (summary["done"], summary["failed"], summary["distribution"]) == (5, 1, {"RECOMMENDED": 5})
    (failure,) = summary["failures"]
    assert failure["id"] == "d2" and "HTTP 400" in failure["error"]
    lines = {line["id"]: line for line in read_results(tmp_path / "items.results.jsonl")}
    assert len(lines) == 6 and lines["d2"]["status"] == "failed" and lines["d2"]["result"] is None
    assert lines["d2"]["error"] == failure["error"] and lines["d2"]["debate_id"]
    assert all(lines[f"d{n}"]["status"] == "done" for n in (0, 1, 3, 4, 5))
    broken_calls = len([r for r in llm_server.requests if r.model.startswith("broken")])
    assert broken_calls == 3

    # again: only the failed item is tried again (its judges are still broken); the results file keeps the rest
    sent = len(llm_server.requests)
    code, again, _ = batch(capsys, *args)
    assert code == 1 and (again["done"], again["failed"]) == (5, 1)
    assert len(llm_server.requests) - sent == 3 and all(
        r.model.startswith("broken") for r in llm_server.requests[sent:]
    )
    lines_again = read_results(tmp_path / "items.results.jsonl")
    assert len(lines_again) == 6 and lines_again[-1]["id"] == "d2"


def test_list_and_show_a_batch(llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    serve(llm_server)
    judges = judges_for("challenge", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("challenge", n) for n in range(3)])
    code, summary, _ = batch(capsys, str(items), "--protocol", "challenge", "--judges", str(judges), "--format", "json")
    assert code == 0
    batch_id = summary["batch_id"]

    assert main(["list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4  # three debates, then the batch
    assert out[-1].startswith(batch_id) and "challenge" in out[-1] and "3/3 done" in out[-1]
    assert main(["list", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed["debates"]) == 3 and set(listed["debates"][0]) >= {"debate_id", "verdict", "title"}
    assert [(b["batch_id"], b["done"], b["items"]) for b in listed["batches"]] == [(batch_id, 3, 3)]

    assert main(["show", batch_id, "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert {k: shown[k] for k in summary} == summary and shown["items_path"] == str(items.resolve())
    assert main(["show", batch_id[:10]]) == 0  # a unique prefix, as text
    text = capsys.readouterr().out
    assert text.startswith(f"Batch {batch_id} (challenge): finished; 3 items: 3 done, 0 failed")
    assert "CONSENSUS 3" in text


def test_text_summary_and_progress_on_stderr(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n, other=n == 1) for n in range(3)])
    code, text, err = batch(capsys, str(items), "--protocol", "evaluate", "--judges", str(judges))
    assert code == 0
    assert "3 items: 3 done, 0 failed" in text and "PASS 2, FAIL 1" in text and "9 calls" in text
    assert "3/3" in err and "0 failed" in err  # the progress bar's last state
    code, summary, err = batch(
        capsys, str(items), "--protocol", "evaluate", "--judges", str(judges), "--format", "json"
    )
    assert code == 0 and err == "" and summary["done"] == 3  # no progress beside JSON unless asked


def test_the_local_backend_never_imports_ray(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    import subprocess
    import sys

    serve(llm_server)
    judges = judges_for("challenge", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("challenge", 0)])
    script = (
        "import sys; from moot.cli.app import main; "
        f"code = main(['batch', {str(items)!r}, '--protocol', 'challenge', '--judges', {str(judges)!r}, '-f', 'json']); "
        "print(code, 'ray' in sys.modules, file=sys.stderr)"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.stderr.strip().splitlines()[-1] == "0 False", run.stderr
    assert json.loads(run.stdout)["done"] == 1


def test_a_missing_api_key_is_bad_input_before_any_call(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without this check every item would fail on its first call and the batch would exit 1."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judges = tmp_path / "vendor-judges.yaml"
    judges.write_text(
        "proponent: {model: gpt-4o}\nchallengers: [{model: gpt-4o-mini}, {model: gpt-4.1}]\n", encoding="utf-8"
    )
    items = write_items(tmp_path / "items.jsonl", [item("challenge", n) for n in range(3)])
    code, out, err = batch(capsys, str(items), "--protocol", "challenge", "--judges", str(judges))
    assert code == 2 and out == ""
    assert "OPENAI_API_KEY" in err and len(err.splitlines()) == 1, err
    assert llm_server.requests == []
    assert not (tmp_path / "items.results.jsonl").exists()


def test_in_a_pipe_progress_lines_reach_stderr_while_the_batch_runs(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    serve(llm_server, delay=0.3)  # each call takes a while: the batch runs for a few seconds
    judges = judges_for("decide", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("decide", n) for n in range(6)])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    argv = [sys.executable, "-m", "moot", "batch", str(items), "--protocol", "decide", "--judges", str(judges)]
    proc = subprocess.Popen(
        [*argv, "--concurrency", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env
    )
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:  # read as they come: a line must arrive before the batch ends
        lines.append((line.rstrip("\n"), proc.poll()))
    proc.wait(timeout=120)
    assert proc.returncode == 0, lines
    assert lines[0][0].startswith("batch: 0/6 ended, 0 failed") and lines[0][0].endswith("(started)")
    assert any(running is None and "/6 ended" in text for text, running in lines[1:-1])  # while it ran
    assert lines[-1][0].startswith("batch: 6/6 ended, 0 failed, 0 running")
    assert all("\x1b" not in text for text, _ in lines)  # plain lines, no terminal codes


def test_in_a_pipe_a_long_call_is_not_silence(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from moot.cli.batch_progress import ProgressLines

    monkeypatch.setattr(ProgressLines, "HEARTBEAT_S", 0.4)  # every 0.4 s instead of 10, for the test
    serve(llm_server, delay=1.5)  # one call takes longer than several heartbeats
    judges = judges_for("decide", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("decide", 0)])
    code, _, err = batch(capsys, str(items), "--protocol", "decide", "--judges", str(judges))
    assert code == 0
    beats = [line for line in err.splitlines() if line.endswith("(still running)")]
    assert beats and all(line.startswith("batch: 0/1 ended, 0 failed, 1 running") for line in beats)
