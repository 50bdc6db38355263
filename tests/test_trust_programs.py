"""`moot trust` covers what runs, not only the YAML's bytes: the program a `command:` judge names is hashed
with the file (an edit to it needs trusting again), a symlinked `moot.yaml` means its real folder, and the
file is read once, so that the bytes hashed are the bytes used (no swap between a parse and a hash)."""

from __future__ import annotations

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


def program(path: Path, marker: Path, reply: Path) -> Path:
    path.write_text(f"#!/bin/sh\necho {path.parent.name} >> '{marker}'\ncat '{reply}'\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def panel(command: list[str]) -> dict[str, Any]:
    judges: list[Any] = [{"model": "scripted", "name": n, "replies": [round1(4.0, 4)]} for n in ("alpha", "beta")]
    return {"debate_judges": [*judges, {"name": "gamma", "command": command}]}


def evaluate(capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    argv = ["evaluate", "-s", "plan.md", "--criteria", CRITERIA, "--mode", "quick", "--no-reports"]
    code = main([*argv, "--format", "json", "--no-progress"])
    return code, capsys.readouterr().err


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "plan.md").write_text("# Plan\n", encoding="utf-8")
    (tmp_path / "reply.yaml").write_text(round1(4.0, 4), encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def test_a_program_changed_after_trust_is_not_run(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    agent = program(repo / "agent.sh", marker, tmp_path / "reply.yaml")
    project = write_yaml(repo / "moot.yaml", panel(["./agent.sh"]))
    assert main(["trust"]) == 0
    said = capsys.readouterr().out
    assert f"so does a change to {agent}" in said
    code, err = evaluate(capsys)
    assert code == 0, err
    assert marker.read_text() == "repo\n"

    agent.write_text(agent.read_text() + "echo changed >> '" + str(marker) + "'\n", encoding="utf-8")
    code, err = evaluate(capsys)
    assert code == 2 and "is not trusted (edited since it was trusted)" in err
    assert marker.read_text() == "repo\n"  # the changed program never ran
    assert main(["trust", "--list"]) == 0
    assert capsys.readouterr().out.startswith(f"changed   {project}")


def test_a_symlinked_project_file_means_its_real_folder(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    marker = tmp_path / "ran"
    program(real / "agent.sh", marker, tmp_path / "reply.yaml")
    program(repo / "agent.sh", marker, tmp_path / "reply.yaml")  # beside the link: never the one meant
    write_yaml(real / "moot.yaml", panel(["./agent.sh"]))
    (repo / "moot.yaml").symlink_to(real / "moot.yaml")
    assert main(["trust"]) == 0
    assert f"trusted {real / 'moot.yaml'}" in capsys.readouterr().out
    code, err = evaluate(capsys)
    assert code == 0, err
    assert marker.read_text() == "real\n"


def test_the_bytes_hashed_are_the_bytes_used(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file swapped right after moot first reads it: the untrusted version is what was read, so it is
    refused, however the trusted version is back by the time anything else looks."""
    marker = tmp_path / "ran"
    reply = tmp_path / "reply.yaml"
    trusted = yaml.safe_dump(panel(["sh", "-c", f"cat '{reply}'"]))
    evil = yaml.safe_dump(panel(["sh", "-c", f"touch '{marker}'; cat '{reply}'"]))
    project = repo / "moot.yaml"
    project.write_text(trusted, encoding="utf-8")
    assert main(["trust"]) == 0
    capsys.readouterr()
    project.write_text(evil, encoding="utf-8")

    real_bytes, real_text = Path.read_bytes, Path.read_text

    def swap_after(read: Any) -> Any:
        def reading(self: Path, *args: Any, **kwargs: Any) -> Any:
            data = read(self, *args, **kwargs)
            if self.name == "moot.yaml" and os.path.realpath(self) == os.path.realpath(project):
                real_text_write(trusted)  # the attacker puts the trusted bytes back
            return data

        return reading

    def real_text_write(text: str) -> None:
        with open(project, "w", encoding="utf-8") as f:
            f.write(text)

    monkeypatch.setattr(Path, "read_bytes", swap_after(real_bytes))
    monkeypatch.setattr(Path, "read_text", swap_after(real_text))
    project.write_text(evil, encoding="utf-8")
    code, err = evaluate(capsys)
    assert code == 2 and "is not trusted (edited since it was trusted)" in err
    assert not marker.exists()


def test_trust_says_an_agent_clis_binary_is_not_covered(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_yaml(repo / "moot.yaml", {"debate_judges": [{"cli": "claude"}, {"cli": "codex"}]})
    assert main(["trust"]) == 0
    assert "the agent CLI binaries (claude, codex) are not covered" in capsys.readouterr().out
