"""Three seats on one local model server that answers one request at a time (FakeLLMServer(slots=1), as
llama-cpp-python's server does): a judge's `timeout` is for its own reply, so the README's local judge runs
as written however many seats queue on the server. A vendor's cloud keeps its clock from the send."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer
from moot.testing.fake_llm_server import Reply

from .replies import CRITERIA, round1

REPLY_S = 2.0  # each reply takes the server this long; three queued take three times as long
TIMEOUT_S = 4.5  # more than one reply takes (with room for a busy machine), less than the queue of three


def panel(tmp_path: Path, api_base: str, **extra: object) -> Path:
    """The README's local judge, three times: model, stance, api_base and timeout, nothing else."""
    seats = [
        {"model": f"llama3.3-{i}", "stance": s, "api_base": api_base, "timeout": TIMEOUT_S, **extra}
        for i, s in enumerate(("neutral", "for", "against"))
    ]
    path = tmp_path / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": seats, "retry": {"max_retries": 0}}))
    return path


def run(tmp_path: Path, judges: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    (tmp_path / "plan.md").write_text("# Plan\nRetry failed webhooks with backoff.\n")
    args = ["evaluate", "--solution", str(tmp_path / "plan.md"), "--criteria", CRITERIA, "--judges", str(judges)]
    code = main([*args, "--no-reports", "--format", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip().startswith("{") else {}


def test_three_seats_on_a_one_slot_local_server_all_answer_within_their_own_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeLLMServer(slots=1) as server:
        for i in range(3):
            server.script(f"llama3.3-{i}", Reply(text=round1(4.0), delay=REPLY_S))
        code, result = run(tmp_path, panel(tmp_path, server.base_url), capsys)
        seen = server.requests
    assert code == 0, result
    assert len(seen) == 3 and all(r.model.startswith("llama3.3-") for r in seen)
    # all three went at once (the server queued them), each answered: no judge dropped for the queue
    assert max(r.at for r in seen) - min(r.at for r in seen) < REPLY_S
    summary = result["summary"]
    assert isinstance(summary, dict) and summary["final_verdict"] == "PASS", summary
    assert "timed out" not in json.dumps(result) and "no reply within" not in json.dumps(result)


def test_a_reply_slower_than_its_timeout_still_times_out_on_a_local_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The clock starts later for a queued call, never not at all: the first judge's own reply takes longer
    than its timeout, and moot says so (too few judges answered: exit 3)."""
    with FakeLLMServer(slots=1) as server:
        for i in range(3):
            server.script(f"llama3.3-{i}", Reply(text=round1(4.0), delay=TIMEOUT_S + 1.5))
        (tmp_path / "plan.md").write_text("# Plan\n")
        judges = panel(tmp_path, server.base_url)
        code = main(
            [
                "evaluate",
                "--solution",
                str(tmp_path / "plan.md"),
                "--criteria",
                CRITERIA,
                "--judges",
                str(judges),
                "--no-reports",
            ]
        )
    err = capsys.readouterr().err
    assert code == 3, err
    assert f"no reply within {TIMEOUT_S:g}s" in err
