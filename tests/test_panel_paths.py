"""Paths inside a judges file resolve against the file's folder, whatever folder moot runs from."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import moot.protocols  # noqa: F401  (the registry declares the protocols' judges-file blocks)
from moot.judges.agent_cli import command_template
from moot.judges.factory import build_judges
from moot.judges.scripted import ScriptedJudge
from moot.panel_file import load_panel_file
from moot.protocol.panel import load_panel


def write_panel(folder: Path, data: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "judges.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_script_paths_resolve_against_the_file_not_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel_dir = tmp_path / "project" / "panel"
    (panel_dir / "scripts").mkdir(parents=True)
    (panel_dir / "scripts" / "a.yaml").write_text("replies: [one]\n")
    (panel_dir / "b.yaml").write_text("replies: [two]\n")
    write_panel(
        panel_dir,
        {
            "debate_judges": [{"model": "a", "script": "scripts/a.yaml"}, {"model": "b", "script": "b.yaml"}],
            "moderator": {"model": "m", "script": "b.yaml"},
            "challengers": [{"model": "c", "script": "./scripts/a.yaml"}],
        },
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    panel = load_panel_file("../project/panel/judges.yaml")  # a relative path to the file itself
    assert panel.base_dir == (elsewhere / "../project/panel").absolute()
    specs = [*(panel.panel or []), panel.moderator, *(panel.challengers or [])]
    scripts = [Path(s.script).resolve() for s in specs if s and s.script]
    assert scripts == [
        panel_dir / "scripts" / "a.yaml",
        panel_dir / "b.yaml",
        panel_dir / "b.yaml",
        panel_dir / "scripts" / "a.yaml",
    ]
    [judge] = build_judges(specs[0])  # no base_dir needed any more: the spec carries the resolved path
    assert isinstance(judge, ScriptedJudge) and judge.replies == ["one"]


def test_absolute_and_home_paths_are_kept(tmp_path: Path) -> None:
    absolute = tmp_path / "abs.yaml"
    path = write_panel(
        tmp_path / "p",
        {"debate_judges": [{"model": "a", "script": str(absolute)}, {"model": "b", "script": "~/s.yaml"}]},
    )
    first, second = load_panel_file(path).panel or []
    assert first.script == str(absolute)
    assert second.script == str(Path.home() / "s.yaml")


def test_a_command_program_written_as_a_path_resolves_but_a_bare_name_stays_on_path(tmp_path: Path) -> None:
    path = write_panel(
        tmp_path / "p",
        {
            "challengers": [
                {"command": "./agents/review.sh --json {prompt_file}"},
                {"command": ["bin/agent", "--model", "x"]},
                {"command": "python3 ./agent.py"},
            ]
        },
    )
    first, second, third = load_panel_file(path).challengers or []
    assert command_template(first) == [str(tmp_path / "p" / "./agents/review.sh"), "--json", "{prompt_file}"]
    assert command_template(second) == [str(tmp_path / "p" / "bin/agent"), "--model", "x"]
    assert command_template(third) == ["python3", "./agent.py"]  # only the program can be known to be a path


def test_a_panel_built_in_code_keeps_paths_as_given(tmp_path: Path) -> None:
    from moot.panel_file import PanelFile

    panel, listed = load_panel(PanelFile.model_validate({"debate_judges": [{"model": "a", "script": "x.yaml"}]}))
    assert panel is not None and panel.base_dir is None
    assert listed is not None and listed[0].script == "x.yaml"  # type: ignore[union-attr]
