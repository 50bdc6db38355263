"""Issue 27 §5, the small leaks: an id prefix is no LIKE wildcard, every file the `moot` command creates is
0600, and a store path in an error is shown relative to the working folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from moot.batch.runner import run_batch_sync
from moot.cli.app import main
from moot.mcp import build_server
from moot.store import Store
from moot.testing import FakeLLMServer

from .replies import CRITERIA
from .test_batch_support import item, judges_for, serve, write_items


def test_an_id_prefix_is_taken_literally_not_as_a_like_wildcard(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(isolated_home / "moot.db")
    store.create_debate("0123abcd-secret", "evaluate", {"task": "someone's debate"})
    store.close()
    for wildcard in ("%", "____", "0%", "01_3"):
        assert main(["show", wildcard]) == 2, wildcard
        err = capsys.readouterr().err
        assert f"no debate {wildcard} in " in err and "someone" not in err, err
    assert main(["show", "0123"]) == 0  # a real prefix still finds it
    capsys.readouterr()
    errors: list[str] = []

    async def body() -> None:
        async with Client(build_server()) as client:
            for wildcard in ("%", "____"):
                result = await client.call_tool("show_debate", {"debate_id": wildcard})
                assert result.is_error
                errors.append(result.content[0].text)  # type: ignore[union-attr]

    anyio.run(body)
    assert all("no debate " in e and "someone" not in e for e in errors), errors


def test_a_store_path_in_an_error_is_relative_to_the_working_folder(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Store(isolated_home / "moot.db").close()
    assert main(["show", "nope"]) == 2
    err = capsys.readouterr().err
    assert err == f"moot: error: no debate nope in {isolated_home.relative_to(tmp_path)}/moot.db (see 'moot list')\n"
    assert str(tmp_path) not in err


def test_every_file_the_command_creates_is_private(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(2)])
    code = tmp_path / "code.py"
    code.write_text("def f(x):\n    return x\n", encoding="utf-8")
    env = {**os.environ, "MOOT_HOME": str(isolated_home)}
    commands = [
        ["batch", str(items), "--protocol", "evaluate", "--judges", str(judges), "--out", str(tmp_path / "out.jsonl")],
        ["evaluate", "-s", str(code), "--criteria", CRITERIA, "--judges", str(judges), "--html",
         str(tmp_path / "report.html"), "--reports-dir", str(tmp_path / "reports"), "--no-progress"],
    ]  # fmt: skip
    for args in commands:
        done = subprocess.run([sys.executable, "-m", "moot", *args], env=env, cwd=tmp_path, capture_output=True)
        assert done.returncode == 0, done.stderr
    made = [tmp_path / "out.jsonl", tmp_path / "report.html", *(tmp_path / "reports").iterdir()]
    made += [p for p in isolated_home.rglob("*") if p.is_file()]
    modes = {str(p.relative_to(tmp_path)): oct(p.stat().st_mode & 0o777) for p in made}
    assert len(modes) >= 5 and set(modes.values()) == {"0o600"}, modes


def test_a_batch_run_from_python_writes_its_results_private(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", 0)])
    run_batch_sync(items, "evaluate", judges=judges)
    assert oct((tmp_path / "items.results.jsonl").stat().st_mode & 0o777) == "0o600"


def test_moot_view_pages_carry_no_bidirectional_control(isolated_home: Path) -> None:
    """A debate's title (from an artifact's name or a task) with a right-to-left override is shown without it."""
    import urllib.request

    from .view_store import serving

    store = Store(isolated_home / "moot.db")
    store.create_debate(
        "d-bidi-1", "evaluate", {"task": "x"}, title="evaluate invoice\u202egpj.exe\u202c \u2066a\u2069"
    )
    store.close()
    with serving(isolated_home) as url, urllib.request.urlopen(f"{url}/debates", timeout=30) as response:
        page = response.read().decode()
    assert "invoicegpj.exe" in page
    assert not any(c in page for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
