"""Project configuration: with no --judges, MOOT_JUDGES names the judges file, else the nearest moot.yaml
found upward from the working folder, else the built-in lineup applies; for every command and the API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.api import build_evaluation_request
from moot.cli.app import main
from moot.protocols.challenge.api import plan_challenge
from moot.protocols.decide.api import build_decision_request

CRITERIA = "correctness:30,design:25,security:20,performance:15,docs:10"


def panel(path: Path, *models: str, **extra: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {"debate_judges": list(models)} if models else {}
    path.write_text(yaml.safe_dump({**data, **extra}), encoding="utf-8")
    return path


def planned(capsys: pytest.CaptureFixture[str], artifact: Path, *args: str) -> list[str]:
    """Who `moot evaluate --dry-run` would ask (needs no key, sends nothing)."""
    assert main(["evaluate", "-s", str(artifact), "--dry-run", "--format", "json", *args]) == 0
    return [r for j in json.loads(capsys.readouterr().out)["judges"] for r in j["runs_on"]]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with a moot.yaml at its root; the working folder is two levels below it."""
    root = tmp_path / "project"
    panel(root / "moot.yaml", "ollama/from-moot-yaml-1", "ollama/from-moot-yaml-2")
    below = root / "pkg" / "sub"
    below.mkdir(parents=True)
    monkeypatch.chdir(below)
    return root


def test_precedence_flag_then_env_then_moot_yaml_then_builtin(
    project: Path, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert planned(capsys, artifact) == ["ollama/from-moot-yaml-1", "ollama/from-moot-yaml-2"]
    env_file = panel(tmp_path / "env.yaml", "ollama/from-env-1", "ollama/from-env-2")
    monkeypatch.setenv("MOOT_JUDGES", str(env_file))
    assert planned(capsys, artifact) == ["ollama/from-env-1", "ollama/from-env-2"]
    flag_file = panel(tmp_path / "flag.yaml", "ollama/from-flag-1", "ollama/from-flag-2")
    assert planned(capsys, artifact, "--judges", str(flag_file)) == ["ollama/from-flag-1", "ollama/from-flag-2"]
    monkeypatch.delenv("MOOT_JUDGES")
    (project / "moot.yaml").unlink()
    assert planned(capsys, artifact) == ["gemini/gemini-3-pro-preview", "openai/gpt-5.2", "xai/grok-4"]


def test_the_nearest_moot_yaml_wins(project: Path, artifact: Path, capsys: pytest.CaptureFixture[str]) -> None:
    panel(project / "pkg" / "moot.yaml", "ollama/nearer-1", "ollama/nearer-2")
    assert planned(capsys, artifact) == ["ollama/nearer-1", "ollama/nearer-2"]


def test_the_python_api_uses_it_for_every_protocol(project: Path, artifact: Path) -> None:
    panel(
        project / "moot.yaml",
        "ollama/e1",
        "ollama/e2",
        "ollama/e3",
        proponent="ollama/prop",
        challengers=["ollama/c1"],
    )
    _, seats, _, found = build_evaluation_request(str(artifact))
    assert [s.label for s in seats] == ["ollama/e1", "ollama/e2", "ollama/e3"]
    assert found is not None and found.found_by is not None and "moot.yaml" in found.found_by
    _, seats, _ = build_decision_request("Offline?", ["A=No", "B=Yes"])
    assert [s.label for s in seats] == ["ollama/e1", "ollama/e2", "ollama/e3"]
    plan = plan_challenge("Shard the table?")
    assert plan.proponent.label == "ollama/prop"  # type: ignore[union-attr]
    assert [c.label for c in plan.challengers] == ["ollama/c1"]  # type: ignore[union-attr]


def test_a_moot_yaml_without_a_judge_list_keeps_the_lineup_and_its_settings(
    project: Path, artifact: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = {"retry": {"max_retries": 7}, "challengers": ["ollama/c1"]}
    panel(project / "moot.yaml", **settings)
    assert planned(capsys, artifact) == ["gemini/gemini-3-pro-preview", "openai/gpt-5.2", "xai/grok-4"]
    _, _, _, found = build_evaluation_request(str(artifact))
    assert found is not None and found.retry == {"max_retries": 7}
    # given explicitly, the same file is still an error: the user asked for its judges
    assert main(["evaluate", "-s", str(artifact), "--judges", str(project / "moot.yaml"), "--dry-run"]) == 2
    assert "no 'debate_judges:' list" in capsys.readouterr().err


def test_a_broken_project_file_is_one_line_saying_why_it_was_read(
    project: Path, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "moot.yaml").write_text("debate_judges:\n  - {model: a, stanse: for}\n")
    assert main(["evaluate", "-s", str(artifact), "--dry-run"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "stanse" in line and f"(the nearest moot.yaml above {Path.cwd()})" in line
    monkeypatch.setenv("MOOT_JUDGES", str(tmp_path / "missing.yaml"))
    assert main(["decide", "--question", "Q?", "--option", "A=a", "--option", "B=b", "--dry-run"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.endswith("missing.yaml does not exist (named by MOOT_JUDGES)")


def test_doctor_says_which_judges_file_is_in_effect_and_why(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["doctor", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["judges_file"] == {
        "path": str(project / "moot.yaml"),
        "why": f"the nearest moot.yaml above {Path.cwd()}",
        "trust": "not needed",  # its judges run no program and send no key to a server of its own
        "trust_why": "it runs no program and sends no key to a server it names",
    }
    assert [r["judge"] for r in report["judges"]] == ["ollama/from-moot-yaml-1", "ollama/from-moot-yaml-2"]
    monkeypatch.setenv("MOOT_JUDGES", str(panel(tmp_path / "env.yaml", "ollama/x", "ollama/y")))
    assert main(["doctor"]) == 0
    assert capsys.readouterr().out.startswith(f"judges file: {tmp_path / 'env.yaml'} (named by MOOT_JUDGES)\n")
    monkeypatch.delenv("MOOT_JUDGES")
    (project / "moot.yaml").unlink()
    assert main(["doctor"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "judges: the built-in lineups and agent CLIs (no --judges, MOOT_JUDGES or moot.yaml found)"


def test_a_project_panel_of_scripted_judges_runs_from_a_subfolder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    assert main(["demo", "--export", str(root)]) == 0
    (root / "judges.yaml").rename(root / "moot.yaml")  # its scripts stay relative to it
    monkeypatch.chdir(root / "src")
    capsys.readouterr()
    argv = ["evaluate", "-s", "api/users.ts", "--criteria", CRITERIA, "--no-reports", "--format", "json"]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["summary"]["final_verdict"] == "CONDITIONAL"
    # with progress, the first line says which judges file is in effect, and why
    assert main([*argv[:-2], "--progress"]) == 0
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith(f"judges file: {root / 'moot.yaml'} (the nearest moot.yaml above {root / 'src'})")


def test_demo_live_keeps_the_seeds_lineup_whatever_the_project_says(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--live"]) == 2  # the seeds' lineup, which needs keys; not the moot.yaml's
    assert "gemini-3-pro-preview" in capsys.readouterr().err
