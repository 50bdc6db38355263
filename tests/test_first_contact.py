"""Issue 33, "first contact, round 3": what a new user met that the docs did not say. One test per row
that is not better tested next to its code (the servers' stop, the view's pages, the live view and the
docs' shown output have theirs)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply

from .test_cost_protocols import _interrupted_decision, priced_decide_judges
from .test_decide_support import r1


def test_show_of_an_interrupted_debate_says_how_to_continue_once(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for model, option in (("risk-m", "A"), ("value-m", "B")):
        llm_server.script(model, Reply(text=r1(option)))
    llm_server.script("effort-m", Reply(text=r1("C"), delay=30))
    isolated_home.mkdir(parents=True, exist_ok=True)
    debate_id = asyncio.run(
        _interrupted_decision(priced_decide_judges(tmp_path, llm_server), isolated_home / "moot.db")
    )
    assert main(["show", debate_id]) == 0
    out = capsys.readouterr().out
    assert f"Debate {debate_id} (decide): interrupted" in out
    assert out.count(f"moot resume {debate_id}") == 1, out


LONG = "openrouter/meta-llama/llama-3.3-70b-instruct-with-a-long-name"  # 61 characters


def _long_lineup(tmp_path: Path) -> Path:
    judges = tmp_path / "long.yaml"
    lineup = [(LONG, "neutral"), ("gpt-5.2", "for"), ("grok-4", "against")]
    judges.write_text(
        "debate_judges:\n" + "".join(f"  - {{model: {m}, stance: {s}}}\n" for m, s in lineup), encoding="utf-8"
    )
    return judges


def _column_starts(lines: list[str], *words: str) -> set[tuple[int, ...]]:
    """Where each of `words` starts on each line: one tuple for all lines when the columns are in line."""
    return {tuple(line.index(w) for w in words) for line in lines}


def test_doctor_keeps_its_columns_in_line_with_a_long_judge_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", "--judges", str(_long_lineup(tmp_path))]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("NO ")]
    assert len(rows) == 3 and LONG in rows[0]
    assert len(_column_starts(rows, " api ", "credential missing")) == 1, rows


def test_dry_run_keeps_its_columns_in_line_with_a_long_model_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.md").write_text("# A plan\n", encoding="utf-8")
    argv = ["evaluate", "-s", str(tmp_path / "a.md"), "--judges", str(_long_lineup(tmp_path)), "--dry-run"]
    assert main(argv) == 0
    calls = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  round 1 ")]
    assert len(calls) == 3 and LONG in calls[0]
    assert len(_column_starts(calls, "judge-", " ~", " tok ")) == 1, calls


def test_doctor_says_how_to_log_in_to_an_agent_cli_in_words_that_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no agent CLI here
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "login: not checked (to log in: run gemini and sign in, or set GEMINI_API_KEY)" in out
    assert "run: run" not in out and "(run: " not in out


def test_no_usable_judge_is_one_exit_code_whichever_the_protocol(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default lineups with no key and no agent CLI here: one cause, so one exit code (2, before any
    call), the one the README's table of exit codes gives for it."""
    monkeypatch.setenv("PATH", str(tmp_path))  # no agent CLI (challenge's default proponent is one)
    (tmp_path / "a.md").write_text("# A plan\n", encoding="utf-8")
    runs = {
        "evaluate": ["evaluate", "-s", str(tmp_path / "a.md")],
        "decide": ["decide", "--question", "A or B?", "--option", "A=a", "--option", "B=b", "--no-input"],
        "challenge": ["challenge", "Should we shard the orders table?"],
    }
    for name, argv in runs.items():
        assert main([*argv, "--no-progress"]) == 2, name
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and ("not usable here" in err or "needs an API key" in err), (name, err)
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    (row,) = [line for line in readme.splitlines() if line.startswith("| 2 |")]
    assert "not usable here" in row and "missing key" in row


def test_view_on_every_address_prints_urls_another_machine_can_open(tmp_path: Path) -> None:
    """`--host 0.0.0.0` names no machine: the URLs printed are this machine's own reachable addresses
    (each one an address a socket here can bind, none loopback), each with the token. Nothing is sent to them."""
    import ipaddress
    import os
    import signal
    import socket
    import subprocess
    import sys
    import time
    from urllib.parse import parse_qs, urlsplit

    from .test_servers_stop import free_port

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "moot", "view", "--host", "0.0.0.0", "--port", str(port), "--no-open"],
        env={**os.environ, "MOOT_HOME": str(tmp_path / "home")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # serving (asked on loopback only, which a wildcard bind answers too)
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    urls = [u.strip() for u in rest.splitlines() if u.startswith("  http")]
    assert urls and "0.0.0.0" not in rest
    tokens = set()
    for url in urls:
        parts = urlsplit(url)
        assert parts.port == port and parts.path == "/debates"
        tokens.update(parse_qs(parts.query)["token"])
        if parts.hostname == socket.gethostname():
            continue  # a machine with no address but loopback: its name is the best there is
        ip = ipaddress.ip_address(parts.hostname or "")
        assert not (ip.is_loopback or ip.is_unspecified or ip.is_link_local), url
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((str(ip), 0))  # an address of this machine's own (binding sends nothing)
    assert len(tokens) == 1


def test_a_named_address_is_printed_as_given() -> None:
    import socket

    from moot.cli.addresses import reachable_hosts

    assert reachable_hosts("127.0.0.1") == ["127.0.0.1"]
    assert reachable_hosts("10.1.2.3") == ["10.1.2.3"] and reachable_hosts("localhost") == ["localhost"]
    wildcard6 = reachable_hosts("::")  # the IPv6 wildcard: this machine's IPv6 addresses (or its name)
    assert all(":" in h for h in wildcard6) or wildcard6 == [socket.gethostname()]


def test_a_batch_items_title_names_its_file_as_a_command_would(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    """An item's `solution` is resolved against the items file's folder, but its debate's title (what the
    viewer's list shows) keeps the path relative to the working folder, as `moot evaluate -s src/a.py` does."""
    from moot.batch import run_batch
    from moot.store import Store

    from .replies import CRITERIA
    from .test_batch_support import judges_for, serve, write_items

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
    serve(llm_server)
    items = write_items(
        tmp_path / "items.jsonl", [{"id": "a", "solution": "src/a.py", "task": "add one", "criteria": CRITERIA}]
    )
    summary = asyncio.run(run_batch(items, "evaluate", judges=judges_for("evaluate", tmp_path, llm_server)))
    assert summary.done == 1, summary
    assert [d.title for d in Store.open_default().list_debates()] == ["evaluate src/a.py: add one"]
