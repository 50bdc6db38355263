"""Issue 27 §3: a project file (moot.yaml) is found, not given: the search stops at the repository's root and
at home, a file others could have written is ignored, and one that runs programs is used only once trusted
(`moot trust`), by content."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main

from .replies import CRITERIA, round1


def write_yaml(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def doctor(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["doctor", "--format", "json"]) == 0
    out = capsys.readouterr()
    data: dict[str, Any] = json.loads(out.out)
    data["stderr"] = out.err
    return data


def test_a_moot_yaml_above_the_repository_root_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_yaml(tmp_path / "moot.yaml", {"debate_judges": ["ollama/planted-1", "ollama/planted-2"]})
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    monkeypatch.chdir(repo / "src")
    seen = doctor(capsys)
    assert seen["judges_file"]["path"] is None  # the built-in lineups: the file above .git is not read
    assert "planted" not in json.dumps(seen)
    write_yaml(repo / "moot.yaml", {"debate_judges": ["ollama/own-1", "ollama/own-2"]})
    seen = doctor(capsys)  # the repository's own is
    assert seen["judges_file"]["path"] == str(repo / "moot.yaml")
    assert (seen["judges_file"]["trust"], seen["judges_file"]["trust_why"]) == (
        "not needed",
        "it runs no program and sends no key to a server it names",
    )


def test_a_moot_yaml_in_a_world_writable_folder_is_ignored_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    open_folder = tmp_path / "world-writable"
    write_yaml(open_folder / "moot.yaml", {"debate_judges": ["ollama/planted-1", "ollama/planted-2"]})
    open_folder.chmod(0o777)
    monkeypatch.chdir(open_folder)
    seen = doctor(capsys)
    assert seen["judges_file"]["path"] is None
    assert seen["stderr"] == f"moot: warning: ignoring {open_folder / 'moot.yaml'}: its folder is world-writable\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_moot_yaml_owned_by_another_user_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    theirs = write_yaml(tmp_path / "p" / "moot.yaml", {"debate_judges": ["ollama/planted-1", "ollama/planted-2"]})
    os.chown(theirs, 4242, -1)
    monkeypatch.chdir(theirs.parent)
    seen = doctor(capsys)
    assert seen["judges_file"]["path"] is None
    assert "it is owned by another user" in seen["stderr"]


def project_with_command(root: Path, marker: Path) -> Path:
    """A repository whose moot.yaml seats two scripted judges and a `command:` judge that leaves a marker."""
    (root / ".git").mkdir(parents=True)
    reply = write_reply(root / "reply.yaml")
    judges: list[Any] = [{"model": "scripted", "name": n, "replies": [round1(4.0, 4)]} for n in ("alpha", "beta")]
    judges.append({"name": "gamma", "command": ["sh", "-c", f"touch '{marker}'; cat '{reply}'"]})
    (root / "plan.md").write_text("# Plan\n", encoding="utf-8")
    return write_yaml(root / "moot.yaml", {"debate_judges": judges})


def write_reply(path: Path) -> Path:
    path.write_text(round1(4.0, 4), encoding="utf-8")
    return path


def evaluate(capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(
        [
            "evaluate",
            "-s",
            "plan.md",
            "--criteria",
            CRITERIA,
            "--mode",
            "quick",
            "--no-reports",
            "--format",
            "json",
            "--no-progress",
        ]
    )
    return code, capsys.readouterr().err


def test_a_project_file_that_runs_commands_needs_moot_trust_and_again_after_an_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    marker = tmp_path / "ran"
    project = project_with_command(root, marker)
    monkeypatch.chdir(root)
    code, err = evaluate(capsys)
    assert code == 2 and not marker.exists()
    assert err == (
        f"moot: error: {project} is not trusted: judge 'gamma' runs a program (command:); "
        f"review it, then run `moot trust {project}`\n"
    )
    seen = doctor(capsys)
    assert seen["judges_file"]["trust"] == "untrusted"
    assert [r["usable"] for r in seen["judges"]] == [False, False, False]
    assert main(["trust", "--list"]) == 0
    assert capsys.readouterr().out.startswith("nothing is trusted yet")

    assert main(["trust"]) == 0  # the project file that applies here
    assert capsys.readouterr().out.startswith(f"trusted {project}")
    assert doctor(capsys)["judges_file"]["trust"] == "trusted"
    code, err = evaluate(capsys)
    assert code == 0, err
    assert marker.exists()  # used now: its command ran

    marker.unlink()
    project.write_text(project.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    code, err = evaluate(capsys)
    assert code == 2 and not marker.exists()
    assert "is not trusted (edited since it was trusted)" in err
    assert main(["trust", "--list"]) == 0
    listing = capsys.readouterr().out
    assert listing.startswith(f"changed   {project}  sha256:")
    assert main(["trust", str(root)]) == 0  # a folder means its moot.yaml
    capsys.readouterr()
    assert main(["trust", "--list"]) == 0
    assert capsys.readouterr().out.startswith(f"trusted   {project}")
    trusted = Path(os.environ["MOOT_HOME"]) / "trusted.json"
    assert trusted.stat().st_mode & 0o777 == 0o600


def test_a_custom_api_base_with_a_key_needs_trust_and_moot_judges_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    judge = {"model": "m", "api_base": "http://127.0.0.1:9/v1", "api_key_env": "OPENAI_API_KEY"}
    project = write_yaml(root / "moot.yaml", {"debate_judges": [judge, judge]})
    monkeypatch.chdir(root)
    seen = doctor(capsys)
    assert seen["judges_file"]["trust"] == "untrusted"
    assert "sends OPENAI_API_KEY to http://127.0.0.1:9/v1" in seen["judges_file"]["trust_why"]
    monkeypatch.setenv("MOOT_JUDGES", str(project))  # named by the user: trusted as given
    assert doctor(capsys)["judges_file"]["trust"] == "trusted"


def test_trust_refuses_what_is_not_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trust"]) == 2
    assert "no moot.yaml applies here" in capsys.readouterr().err
    assert main(["trust", str(tmp_path / "nope.yaml")]) == 2
    assert capsys.readouterr().err == f"moot: error: no such file: {tmp_path / 'nope.yaml'}\n"
