"""The real agent CLIs as judges: claude, gemini, qwen and codex, installed from npm at pinned versions
(tests/real_agents.py), each talking to a scripted model on 127.0.0.1 in its own vendor's streamed wire
format (moot.testing.agent_wire). What tests/test_agent_cli.py's fake executables cannot prove is proved
here: the flags each real binary accepts, what safe mode really blocks, the login checks, the kill.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from moot.cli.app import main
from moot.errors import JudgeError, JudgeTimeout
from moot.judges import agent_cli_login
from moot.judges.agent_cli import AgentCliJudge, build
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Message, Prompt
from moot.testing.agent_wire import AgentModelServer, AgentRequest, Turn, hostile

from .challenge_helpers import opening, verdict, write_judges
from .real_agents import CLIS, install, no_credentials, point_at
from .replies import CRITERIA, round1

pytestmark = [pytest.mark.agent_clis, pytest.mark.timeout(900)]

PROMPT = Prompt(system="You are a judge.", messages=[Message(role="user", content="Is 2+2=4? Answer briefly.")])
WIRES = {"claude": "anthropic", "gemini": "gemini", "qwen": "chat", "codex": "responses"}


@pytest.fixture(scope="session")
def cli_bin() -> Path:
    return install()


@pytest.fixture
def server() -> Iterator[AgentModelServer]:
    with AgentModelServer() as s:
        yield s


@pytest.fixture
def real(cli_bin: Path, server: AgentModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AgentModelServer:
    """The four CLIs on PATH, configured for the local server, in a fresh HOME; the cwd is a fresh folder
    no CLI was ever told to trust (conftest's isolated_home)."""
    point_at(server, tmp_path / "home", monkeypatch, cli_bin)
    return server


def ask_all(specs: dict[str, JudgeSpec], timeout: float = 120) -> dict[str, str | BaseException]:
    """Every judge asked the same prompt at once: its reply, or what it raised."""

    async def one(spec: JudgeSpec) -> str:
        return (await build(spec, spec.model).complete(PROMPT, timeout=timeout)).text

    async def every() -> list[str | BaseException]:
        return await asyncio.gather(*(one(s) for s in specs.values()), return_exceptions=True)

    return dict(zip(specs, asyncio.run(every()), strict=True))


def debate_brain(request: AgentRequest) -> Turn:
    """A model that answers moot's challenge prompts in shape (anything else, such as an agent's own
    helper requests, gets a plain "ok")."""
    text = request.text()
    if "Phase 1: OPENING" in text:
        return Turn(text=opening())
    if "PARALLEL CHALLENGE" in text:
        return Turn(text=verdict("agree", "minor"))
    return Turn(text="ok")


def test_a_challenge_through_all_four_real_clis_in_a_fresh_untrusted_folder(
    real: AgentModelServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real.brain = debate_brain
    models = {cli: f"{cli}-model-7" for cli in CLIS}  # each judge names its model: the flag must carry it
    challengers = [{"cli": cli, "model": models[cli]} for cli in ("gemini", "codex", "qwen")]
    judges = write_judges(tmp_path / "judges.yaml", {"cli": "claude", "model": models["claude"]}, challengers)
    t0 = time.monotonic()
    code = main(["challenge", "Shard orders by customer id?", "--judges", str(judges), "--format", "json"])
    out = capsys.readouterr()
    wall = time.monotonic() - t0
    assert code == 0, out.err
    result = json.loads(out.out)
    assert result["outcome"] == "CONSENSUS" and result["final_position"] == "Shard orders by customer id"
    assert [c["status"] for c in result["challengers"]] == ["agreed"] * 3
    for cli, wire in WIRES.items():  # each CLI reached the model in its own wire format, streamed
        asked = [r for r in real.model_requests(wire) if "Shard orders by customer id" in r.text()]
        assert asked and any(r.stream for r in asked), cli
        assert {r.model for r in asked} == {models[cli]}, cli
    print(f"challenge through claude, gemini, codex, qwen: {wall:.1f}s")


def test_an_evaluate_through_all_four_real_clis(
    real: AgentModelServer, tmp_path: Path, artifact: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real.brain = lambda r: Turn(text=round1(4.0) if "INDEPENDENT ANALYSIS" in r.text() else "ok")
    stances = ["neutral", "for", "against", "neutral"]
    panel = {"debate_judges": [{"cli": cli, "stance": st} for cli, st in zip(CLIS, stances, strict=True)]}
    judges = tmp_path / "panel.yaml"
    judges.write_text(yaml.safe_dump(panel))
    args = ["--solution", str(artifact), "--task", "Implement REST API", "--criteria", CRITERIA]
    code = main(["evaluate", *args, "--judges", str(judges), "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    result = json.loads(out.out)
    assert result["consensus_reached"] is True and result["rounds_completed"] == 1, result
    assert result["summary"]["final_verdict"] == "PASS" and result["spend"]["judge_calls"] == 4
    for cli, wire in WIRES.items():
        assert any("INDEPENDENT ANALYSIS" in r.text() for r in real.model_requests(wire)), cli


def test_allow_tools_judges_answer_and_their_tools_really_run(real: AgentModelServer, tmp_path: Path) -> None:
    """allow_tools replaces the safe flags (two approval modes were an argument error or a crash): every CLI
    answers (claude too, as root in CI: its tools mode does not use bypassPermissions, which Claude Code
    refuses as root), and the hostile model's tool calls now run, which shows the safe-mode test below can
    fail."""
    secret, written = plant(tmp_path)
    real.brain = hostile(str(secret), str(written), "four")
    replies = ask_all({cli: JudgeSpec(cli=cli, allow_tools=True) for cli in CLIS})
    assert replies == dict.fromkeys(CLIS, "four"), replies
    assert real.saw(SECRET) and written.exists()
    for cli, wire in WIRES.items():  # each CLI ran a tool that read the file, and sent it to the model
        assert any(SECRET.encode() in r.raw for r in real.model_requests(wire)), cli


SECRET = "moot-planted-secret-7f3a9c"


def plant(root: Path) -> tuple[Path, Path]:
    """A secret in a folder outside any agent's workspace, and the path a hostile model tries to write."""
    outside = root / "outside"
    outside.mkdir(exist_ok=True)
    secret = outside / "id_ed25519"
    secret.write_text(SECRET + "\n")
    return secret, outside / "written-by-agent.txt"


def test_safe_mode_keeps_a_hostile_model_from_reading_or_writing_outside(
    real: AgentModelServer, tmp_path: Path
) -> None:
    secret, written = plant(tmp_path)
    real.brain = hostile(str(secret), str(written), "four")
    replies = ask_all({cli: JudgeSpec(cli=cli) for cli in CLIS})
    assert replies == dict.fromkeys(CLIS, "four"), replies
    for cli, wire in WIRES.items():  # the model did ask for the tools, and got an answer back from each CLI
        assert any(r.answers_a_tool() for r in real.model_requests(wire)), cli
    assert not real.saw(SECRET), "a planted read outside the workspace reached the model"
    assert not written.exists()


def test_with_no_credentials_none_is_usable_and_codex_fails_fast(
    cli_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    no_credentials(tmp_path / "home", monkeypatch, cli_bin)
    assert main(["doctor", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    rows = rows["judges"] if isinstance(rows, dict) else rows
    clis = {r["vendor"]: r for r in rows if r["kind"] == "agent-cli"}
    assert sorted(clis) == sorted(CLIS)
    for cli, row in clis.items():
        assert row["usable"] is False and row["detail"].startswith("not usable: log in with: "), (cli, row)
        assert row["version"]  # found and answering: the login is what is missing
    agent_cli_login._cache.clear()  # the judge runs its own check: `codex login status`, no doctor's result
    t0 = time.monotonic()
    with pytest.raises(JudgeError, match="agent CLI 'codex' is not usable: codex login status: not logged in"):
        asyncio.run(build(JudgeSpec(cli="codex"), "").complete(PROMPT, timeout=120))
    assert time.monotonic() - t0 < 1.0


def test_a_hung_cli_is_killed_with_its_whole_process_group(real: AgentModelServer) -> None:
    real.brain = lambda request: Turn(text="late", delay=60)
    mark = f"moot-hang-{uuid.uuid4().hex}"
    os.environ["LC_MOOT_TEST_MARK"] = (
        mark  # inherited by every process the CLIs start (LC_*: kept in a judge's environment)
    )
    try:
        t0 = time.monotonic()
        results = ask_all({cli: JudgeSpec(cli=cli) for cli in CLIS}, timeout=4)
        elapsed = time.monotonic() - t0
    finally:
        del os.environ["LC_MOOT_TEST_MARK"]
    assert all(isinstance(r, JudgeTimeout) for r in results.values()), results
    # the model would answer after 60 s: ending well before that is the timeout's kill (a busy machine
    # adds seconds to the CLIs' start, so the bound is not the 4-s timeout itself)
    assert elapsed < 30
    time.sleep(0.3)
    assert processes_marked(mark) == []


def test_a_cancelled_call_kills_the_cli_too(real: AgentModelServer) -> None:
    """Ctrl-C cancels the debate's tasks: each CLI's whole group goes with its call."""
    real.brain = lambda request: Turn(text="late", delay=60)
    mark = f"moot-cancel-{uuid.uuid4().hex}"

    async def cancel_midway() -> None:
        tasks = [asyncio.create_task(build(JudgeSpec(cli=c), "").complete(PROMPT, timeout=120)) for c in CLIS]
        await asyncio.sleep(3)
        assert processes_marked(mark), "the CLIs should be running by now"
        for task in tasks:
            task.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert all(isinstance(r, asyncio.CancelledError) for r in results), results

    os.environ["LC_MOOT_TEST_MARK"] = mark
    try:
        asyncio.run(cancel_midway())
    finally:
        del os.environ["LC_MOOT_TEST_MARK"]
    time.sleep(0.3)
    assert processes_marked(mark) == []


def processes_marked(mark: str) -> list[int]:
    """Live processes (zombies aside) whose environment holds `mark`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if mark.encode() in (proc / "environ").read_bytes() and " Z " not in (proc / "stat").read_text():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.parametrize(
    ("command", "line"),
    [
        ("codex exec --full-auto -", "error: unexpected argument '--full-auto' found"),
        (
            "gemini --skip-trust --approval-mode default --approval-mode yolo -p x",
            "An unexpected critical error occurred:Error: Invalid approval mode: default,yolo. "
            "Valid values are: yolo, auto_edit, plan, default",
        ),
        (
            "qwen --approval-mode default --approval-mode yolo x",
            "An unexpected critical error occurred: TypeError: value.trim is not a function",
        ),
    ],
)
def test_an_argument_error_shows_the_real_error_line(real: AgentModelServer, command: str, line: str) -> None:
    judge = AgentCliJudge(JudgeSpec(command=command))
    with pytest.raises(JudgeError) as e:
        asyncio.run(judge.complete(PROMPT, timeout=60))
    assert str(e.value).endswith(f": {line}"), str(e.value)
    assert real.model_requests() == []


def test_gemini_without_skip_trust_is_refused_in_an_untrusted_folder(real: AgentModelServer) -> None:
    """Why the profile passes --skip-trust: the same command without it exits 55 in a fresh folder. (A
    `command:` judge gets only the key its `api_key_env` names: without it gemini stops at its login first.)"""
    judge = AgentCliJudge(JudgeSpec(command="gemini --approval-mode default -p x", api_key_env="GEMINI_API_KEY"))
    with pytest.raises(JudgeError, match="exited with code 55: Gemini CLI is not running in a trusted directory"):
        asyncio.run(judge.complete(PROMPT, timeout=60))
