"""`moot demo`: the whole protocol on the bundled artifact, with no API key."""

from __future__ import annotations

import json
from pathlib import Path

from moot.cli.app import main


def test_demo_runs_three_rounds_and_writes_reports(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(["demo", "--reports-dir", str(tmp_path / "r")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Verdict: CONDITIONAL" in captured.out
    assert "majority judge-1, judge-2 at 3.65; minority judge-3 at 2.9" in captured.out
    for n in (1, 2, 3):
        assert f"round {n}: asking judge-1, judge-2, judge-3" in captured.err
    reports = sorted(p.name for p in (tmp_path / "r").iterdir())
    assert reports == [f"users-api-{reports[0][10:20]}.{s}.md" for s in ("1", "2", "3", "consensus")]
    judge3 = (tmp_path / "r" / reports[2]).read_text()
    assert judge3.startswith("Done by Judge 3") and "## Debate Round 2" in judge3 and "## Debate Round 3" in judge3


def test_demo_json_is_one_object_on_stdout(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["demo", "--reports-dir", str(tmp_path / "r"), "--format", "json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert captured.err == ""
    assert out["artifact_evaluated"] == "src/api/users.ts"
    assert out["critical_findings"][0]["state"] == "agreed"
    assert out["synthesis_by"].startswith("moderator:")
    assert out["spend"]["calls"] == 10  # 3 judges x 3 rounds + the moderator


def test_second_demo_the_same_day_does_not_append_to_the_first(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["demo", "--reports-dir", str(tmp_path / "r"), "--format", "json"]) == 0
    assert main(["demo", "--reports-dir", str(tmp_path / "r"), "--format", "json"]) == 0
    capsys.readouterr()
    names = sorted(p.name for p in (tmp_path / "r").iterdir())
    assert len(names) == 8 and any("-2.1.md" in n for n in names)
    for name in names:
        if name.endswith(".1.md"):
            assert (tmp_path / "r" / name).read_text().count("Done by Judge 1") == 1


def test_live_demo_without_keys_names_the_missing_key(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["demo", "--live"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("moot: error: judge 'gemini-3-pro-preview'") and "GEMINI_API_KEY" in err


def test_export_writes_a_panel_that_runs_from_any_folder(tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "out" / "demo"
    assert main(["demo", "--export", str(folder), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(data["files"]) == sorted(
        ["judges.yaml", "judge-1.yaml", "judge-2.yaml", "judge-3.yaml", "moderator.yaml", "src/api/users.ts"]
    )
    assert all((folder / name).is_file() for name in data["files"])
    assert data["command"].startswith(f"cd {folder} && moot evaluate -s src/api/users.ts --judges judges.yaml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the judges file names its scripts relative to itself, not to the working folder
    argv = ["evaluate", "-s", str(folder / "src/api/users.ts"), "--judges", str(folder / "judges.yaml")]
    criteria = "correctness:30,design:25,security:20,performance:15,docs:10"
    assert main([*argv, "--criteria", criteria, "--no-reports", "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["summary"]["final_verdict"] == "CONDITIONAL" and result["rounds_completed"] == 3


def test_export_never_overwrites_and_runs_nothing(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "judges.yaml").write_text("mine\n")
    assert main(["demo", "--export", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert (
        err.strip()
        == f"moot: error: {tmp_path / 'd' / 'judges.yaml'} already exists: export into a new or empty folder"
    )
    assert (tmp_path / "d" / "judges.yaml").read_text() == "mine\n"
    assert main(["demo", "--export", str(tmp_path / "e"), "--live"]) == 2
    assert "cannot be combined" in capsys.readouterr().err and not (tmp_path / "e").exists()
