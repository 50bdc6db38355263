"""`moot demo decide` and `moot demo challenge`: each protocol's whole debate on bundled inputs with scripted
judges (no API key, no agent CLI on PATH), and `--export DIR` writing a panel that runs from any folder."""

from __future__ import annotations

import json
import shlex
import sqlite3
from pathlib import Path

import pytest

from moot.cli.app import main


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No key and no agent CLI: what a new user's machine has."""
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "XAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.chdir(tmp_path)


def test_demo_decide_splits_then_one_judge_documents_its_change(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "decide"]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith("RECOMMENDED: C  (confidence HIGH)")
    assert "| risk | sonnet (scripted risk) | A | C | ok |" in cap.out
    assert "risk: A -> C: Effort showed the failures I feared" in cap.out
    assert "round 1: no option reached 67% of 3 judges" in cap.err and "round 2: consensus (67% on C)" in cap.err
    assert sorted(p.name for p in Path(".specs/sadd").iterdir())[0] == "debate-offline-mode-decision.md"


def test_demo_challenge_answers_two_objections_and_reaches_consensus(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "challenge", "--format", "json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outcome"] == "CONSENSUS" and out["rounds"] == 1
    assert [o["decision"] for o in out["objections"]] == ["ACCEPT", "PARTIAL"]
    assert out["final_position"].startswith("Shard the orders table by customer id behind a routing table")
    assert out["spend"]["calls"] == 7  # opening, three challenges, one confrontation, two rebuttals


def test_demo_challenge_shows_its_context_by_name_not_where_moot_is_installed(
    capsys: pytest.CaptureFixture[str], isolated_home: Path
) -> None:
    """The install path names the user's home; a `--judges` panel of real models would be sent it."""
    import moot

    assert main(["demo", "challenge", "--format", "json", "--no-progress"]) == 0
    capsys.readouterr()
    installed = str(Path(moot.__file__).resolve().parent)
    with sqlite3.connect(isolated_home / "moot.db") as db:
        prompts = [row[0] for row in db.execute("SELECT prompt_json FROM calls")]
    assert len(prompts) == 7
    assert not [p for p in prompts if installed in p or "/protocols/challenge/demo/" in p]
    assert all("context.md" in p for p in prompts[:1])  # the opening reads the context, under its own name


@pytest.mark.parametrize(
    ("which", "files", "outcome"),
    [
        ("decide", ["effort.yaml", "judges.yaml", "question.yaml", "risk.yaml", "value.yaml"], "RECOMMENDED"),
        (
            "challenge",
            [
                "challenger-1.yaml",
                "challenger-2.yaml",
                "challenger-3.yaml",
                "context.md",
                "judges.yaml",
                "proponent.yaml",
            ],
            "CONSENSUS",
        ),
    ],
)
def test_export_writes_a_panel_whose_printed_command_runs_it(
    which: str,
    files: list[str],
    outcome: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = tmp_path / "out" / which
    assert main(["demo", which, "--export", str(folder), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["demo"] == which and sorted(data["files"]) == files
    assert all((folder / name).is_file() for name in files)
    cd, _, command = data["command"].partition(" && ")
    assert cd == f"cd {folder}"
    argv = shlex.split(command)
    assert argv[0] == "moot"
    monkeypatch.chdir(folder)  # the printed command, run where it says
    code = main([*argv[1:], "--format", "json", "--no-progress"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["outcome"] == outcome


def test_a_demo_that_does_not_exist_or_live_with_decide_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "vote"]) == 2
    assert (
        capsys.readouterr().err.strip()
        == "moot: error: no demo named 'vote': choose evaluate, decide, challenge or bench"
    )
    assert main(["demo", "challenge", "--live"]) == 2
    assert "--live is for the evaluate demo" in capsys.readouterr().err


def test_demo_bench_runs_every_strategy_on_the_bundled_gold_and_leaves_the_store_alone(
    capsys: pytest.CaptureFixture[str], isolated_home: Path
) -> None:
    assert main(["demo", "bench", "--format", "json", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    # its costs are at prices the demo made up, and it says so (on stderr: stdout is the JSON alone)
    assert err.startswith("moot demo bench: scripted judges on 127.0.0.1; the costs below are at made-up demo prices")
    assert (data["kind"], data["items"], data["swap_consistency"]) == ("pairwise", 12, 1.0)
    accuracy = {name: round(s["accuracy"], 3) for name, s in data["strategies"].items()}
    # the scripted temperaments: careful 9 in 10, hasty 6 in 10 (right after the debate), stubborn 7 in 10
    assert accuracy == {"single": 0.75, "vote": 0.833, "vote@equal": 0.833, "debate": 0.917}
    assert data["strategies"]["debate"]["helpful_flips"] == 1 and data["strategies"]["debate"]["harmful_flips"] == 0
    assert all(s["cost_per_item"] > 0 for s in data["strategies"].values())  # the panel's made-up prices
    assert not isolated_home.exists()  # the run lived in a temporary store


def test_demo_bench_takes_no_panel_of_its_own(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["demo", "bench", "--export", str(tmp_path / "x")]) == 2
    assert "takes no --judges, --live or --export" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
