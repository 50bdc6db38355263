"""A store for the `moot view` tests, made by running moot for real (no tests here): debates of the three
protocols through the CLI with scripted judges (judge text carrying markup and a script), a contested
decision, a batch and a bench against the local server, and a viewer served on 127.0.0.1 by uvicorn."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path

import uvicorn

from moot.batch import run_batch
from moot.bench.runner import run_bench
from moot.bench.suites import load_suite
from moot.cli.app import main
from moot.testing import FakeLLMServer
from moot.view.app import create_app

from .bench_judges import always_a, always_right, judges_file, pairs, right_with, write_jsonl
from .bench_judges import serve as serve_bench
from .scripted_panels import (
    challenge_args,
    challenge_panel,
    contested_decide_panel,
    converging_panel,
    decide_args,
    decide_panel,
    evaluate_args,
)
from .test_batch_support import item, judges_for, serve, write_items


@dataclass
class Made:
    """What `populate` made: debate ids by name, the batch's id, the bench run's key."""

    debates: dict[str, str] = field(default_factory=dict)
    batch_id: str = ""
    bench_key: str = ""


def _cli(args: list[str]) -> str:
    out = StringIO()
    with redirect_stdout(out):
        code = main([*args, "--format", "json"])
    assert code == 0, out.getvalue()[-500:]
    return str(json.loads(out.getvalue())["debate_id"])


def debates(tmp_path: Path) -> dict[str, str]:
    """One debate of each protocol (its judge text carrying `<script>`), and a contested decision."""
    return {
        "evaluate": _cli(evaluate_args(tmp_path, converging_panel(tmp_path, inject=True), "--task", "<i>x</i>")),
        "decide": _cli(decide_args(decide_panel(tmp_path, inject=True))),
        "challenge": _cli(challenge_args(challenge_panel(tmp_path, inject=True))),
        "contested": _cli(decide_args(contested_decide_panel(tmp_path))),
    }


def batch(tmp_path: Path, server: FakeLLMServer, n: int = 6) -> str:
    """A finished batch of `n` evaluate items, one in three failing the evaluation, and one more item whose
    judges all answer HTTP 400 (a failed item, with its reason)."""
    serve(server)
    judges = judges_for("evaluate", tmp_path, server)
    broken = judges_for("evaluate", tmp_path, server, broken=True)
    rows = [item("evaluate", i, other=i % 3 == 0) for i in range(n)]
    rows.append({**item("evaluate", n), "id": "broken-<b>item</b>", "judges": broken.name})
    items = write_items(tmp_path / "batch-items.jsonl", rows)
    summary = asyncio.run(run_batch(items, "evaluate", judges=judges))
    assert (summary.done, summary.failed) == (n, 1), summary
    return summary.batch_id


def bench(tmp_path: Path, server: FakeLLMServer) -> str:
    """A pairwise bench of 6 items judged in both orders; returns its run folder's name."""
    rows = pairs(6, lambda i: i % 2 == 0)
    serve_bench(server, rows, {"judge-a": always_right, "judge-b": always_a, "judge-c": right_with(0.7, 1)})
    suite = load_suite(str(write_jsonl(tmp_path / "gold.jsonl", rows)))
    run = asyncio.run(run_bench(suite, judges=judges_file(tmp_path, server, ("judge-a", "judge-b", "judge-c"))))
    assert run.result is not None
    return run.plan.folder.name


def populate(tmp_path: Path, server: FakeLLMServer) -> Made:
    made = Made(debates=debates(tmp_path))
    made.batch_id = batch(tmp_path, server)
    made.bench_key = bench(tmp_path, server)
    return made


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(home: Path, *, token: str | None = None) -> Iterator[str]:
    """The viewer over `home` on a free loopback port, in a thread; yields its base URL."""
    port = free_port()
    app = create_app(home, token=token, loopback_only=token is None)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the viewer did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
