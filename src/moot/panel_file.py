"""The judges file (`--judges FILE`): one YAML file that may hold the blocks of every protocol.

The seeds' own blocks load unchanged: `debate_judges:` and `consensus:` (seed 000), `debate_config:`
(seed 002), `proponent:`/`challengers:` and the CLI settings (seed 004). Unknown top-level keys are an
error, so a misspelt block is never silently ignored.

Paths inside a judges file (a judge's `script:`, and the program of a `command:` when written as a path,
e.g. `./agent.sh`) mean the same wherever moot runs from: relative ones resolve against the file's own
folder, when the file is loaded. A file copied to another folder together with what it names keeps working.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from moot.access import current
from moot.errors import UsageError
from moot.inputs import load_yaml_file, validation_message
from moot.schemas.config import ConsensusSettings, JudgeSpec, VerdictThresholds

SPEC_LISTS = ("debate_judges", "judges", "challengers")
SPEC_SINGLES = ("moderator", "proponent", "rubric_model")


def _anchor(path: str, folder: Path) -> str:
    p = Path(path).expanduser()
    return str(p if p.is_absolute() else folder / p)


def anchored(spec: JudgeSpec, folder: Path) -> JudgeSpec:
    """The spec with its relative paths resolved against `folder` (a bare program name stays a PATH lookup)."""
    update: dict[str, Any] = {}
    if spec.script:
        update["script"] = _anchor(spec.script, folder)
    if spec.command:
        argv = shlex.split(spec.command) if isinstance(spec.command, str) else [str(a) for a in spec.command]
        if argv and (os.sep in argv[0] or argv[0].startswith("~")):
            update["command"] = [_anchor(argv[0], folder), *argv[1:]]
    return spec.model_copy(update=update) if update else spec


def _judge_entry(value: Any) -> Any:
    """A judge may be written as a bare model name, or `host`: a seat the caller answers (`moderator: host`)."""
    if isinstance(value, str):
        return {"host": True} if value == "host" else {"model": value}
    return value


class PanelFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    debate_judges: list[JudgeSpec] | None = None
    judges: list[JudgeSpec] | None = None  # same as debate_judges
    consensus: ConsensusSettings | None = None
    verdict: VerdictThresholds | None = None
    moderator: JudgeSpec | None = None
    rubric_model: JudgeSpec | None = None  # `--criteria auto`: who writes the rubric (default: the moderator)
    max_rounds: int | None = None
    # seed 002 (moot decide)
    debate_config: dict[str, Any] | None = None
    # seed 004 (moot challenge)
    proponent: JudgeSpec | None = None
    challengers: list[JudgeSpec] | None = None
    timeout_per_cli: float | None = None
    min_challengers: int | None = None
    # provider layer: aliases, prices, limits, retries
    aliases: dict[str, str] = Field(default_factory=dict)
    pricing: dict[str, Any] = Field(default_factory=dict)
    limits: dict[str, Any] = Field(default_factory=dict)
    retry: dict[str, Any] = Field(default_factory=dict)
    budget: dict[str, Any] = Field(default_factory=dict)
    # the model that wrote what the panel judges: a seat on it is flagged `author_on_panel` (issue 30)
    author_model: str | None = None

    path: str | None = Field(default=None, exclude=True)
    # why a file nobody named is in effect (MOOT_JUDGES, a moot.yaml: see moot.project); None when given
    _found_by: str | None = PrivateAttr(default=None)

    @property
    def found_by(self) -> str | None:
        return self._found_by

    @found_by.setter
    def found_by(self, why: str | None) -> None:
        self._found_by = why

    @field_validator("debate_judges", "judges", "challengers", mode="before")
    @classmethod
    def _entries(cls, v: Any) -> Any:
        return [_judge_entry(x) for x in v] if isinstance(v, list) else v

    @field_validator("moderator", "proponent", "rubric_model", mode="before")
    @classmethod
    def _entry(cls, v: Any) -> Any:
        return _judge_entry(v)

    @model_validator(mode="after")
    def _apply_aliases(self) -> PanelFile:
        """The file's `aliases:` name models for every judge in it (the alias stays the display name)."""
        if not self.aliases:
            return self
        from moot.judges.providers import expand_aliases

        self.map_specs(lambda s: expand_aliases(s, self.aliases))
        return self

    def map_specs(self, change: Callable[[JudgeSpec], JudgeSpec]) -> None:
        """Apply `change` to every judge the file names, in every block."""
        for key in SPEC_LISTS:
            specs = getattr(self, key)
            if specs is not None:
                setattr(self, key, [change(s) for s in specs])
        for key in SPEC_SINGLES:
            spec = getattr(self, key)
            if spec is not None:
                setattr(self, key, change(spec))

    @property
    def panel(self) -> list[JudgeSpec] | None:
        return self.debate_judges if self.debate_judges is not None else self.judges

    @property
    def base_dir(self) -> Path | None:
        """The file's folder, absolute: what its relative paths mean, whatever the working folder."""
        return Path(self.path).absolute().parent if self.path else None


def specs_of(panel: PanelFile) -> list[JudgeSpec]:
    """Every judge the file names, in every block."""
    found: list[JudgeSpec] = []
    for key in SPEC_LISTS:
        found += getattr(panel, key) or []
    found += [s for s in (getattr(panel, key) for key in SPEC_SINGLES) if s is not None]
    return found


def check_named_file(panel: PanelFile, *, allow_commands: bool) -> None:
    """A judges file a tool call names is untrusted input: it may start no program (`command:`, `cli:`)
    unless the server allows it, and may send no variable but an API key (`api_key_env` ending `_API_KEY`),
    lest a file written by anyone turn the server into a way to run code or to mail a secret to a server."""
    for spec in specs_of(panel):
        if (spec.command or spec.cli) and not allow_commands:
            kind = "command" if spec.command else "cli"
            raise UsageError(
                f"judges file {panel.path}: judge '{spec.label}' is a '{kind}:' judge, which runs a program: "
                "refused over MCP unless the server was started with `moot mcp --allow-commands`"
            )
        if spec.api_key_env and not spec.api_key_env.endswith("_API_KEY"):
            raise UsageError(
                f"judges file {panel.path}: judge '{spec.label}' would send the variable {spec.api_key_env}; "
                "over MCP only a variable named *_API_KEY may be sent"
            )


def load_panel_file(path: str | Path, *, trusted: bool = False) -> PanelFile:
    """A judges file. One named by a confined caller (an MCP tool call, see `moot.access`) is checked by
    `check_named_file`, unless `trusted` (the project's own file, which has rules of its own: `moot.project`)."""
    data = load_yaml_file(path, "judges file")
    if data is None:
        raise UsageError(f"judges file {path} is empty")
    if not isinstance(data, dict):
        raise UsageError(f"judges file {path} must hold a YAML mapping (e.g. debate_judges: [...])")
    try:
        panel = PanelFile.model_validate(data)
    except ValidationError as e:
        raise UsageError(validation_message(e, f"judges file {path}")) from None
    panel.path = str(path)
    folder = panel.base_dir
    assert folder is not None
    panel.map_specs(lambda s: anchored(s, folder))
    caller = current()
    if caller is not None and not trusted:
        check_named_file(panel, allow_commands=caller.allow_commands)
    return panel
