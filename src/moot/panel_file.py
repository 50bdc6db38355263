"""The judges file (`--judges FILE`): one YAML file that may hold the blocks of every protocol.

The kernel reads the protocol-neutral keys: the judges (`debate_judges:`, or `judges:`), `max_rounds`, the
provider layer (`aliases:`, `pricing:`, `limits:`, `retry:`, `budget:`) and `author_model:`. Every other
top-level key belongs to a protocol and is kept raw (`PanelFile.blocks`) until the pydantic model that
protocol declares (its spec's `settings`) validates it (`PanelFile.settings`). When a file is loaded every
declared model validates its keys (see `moot.file_blocks`), so a file is checked whole before any call, and a
key no protocol declares is an error: a misspelt block is never silently ignored. The seeds' own blocks load
unchanged.

Paths inside a judges file (a judge's `script:`, and the program of a `command:` when written as a path,
e.g. `./agent.sh`) mean the same wherever moot runs from: relative ones resolve against the file's own
folder, when the file is loaded. A file copied to another folder together with what it names keeps working.
A protocol's judges get the same treatment (and the file's `aliases:`) when its model validates them.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, cast

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from moot.access import current
from moot.errors import UsageError
from moot.file_blocks import declared
from moot.inputs import load_yaml_file, parse_yaml, validation_message
from moot.schemas.config import JudgeSpec

SPEC_LISTS = ("debate_judges", "judges")

M = TypeVar("M", bound=BaseModel)


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
    """A judge may be written as a bare model name, or `host`: a seat the caller answers."""
    if isinstance(value, str):
        return {"host": True} if value == "host" else {"model": value}
    return value


# a judge as a judges file may write it (a mapping, a model name, or `host`): what a protocol's block model
# types its judges with, so that they read as the panel's do
JudgeEntry = Annotated[JudgeSpec, BeforeValidator(_judge_entry)]


def _judges_in(block: BaseModel) -> Iterator[tuple[str, JudgeSpec | list[JudgeSpec]]]:
    """The judges a validated block holds at its top level, by key: a judge, or a list of judges."""
    for key in type(block).model_fields:
        value = getattr(block, key)
        if isinstance(value, JudgeSpec) or (
            isinstance(value, list) and value and all(isinstance(v, JudgeSpec) for v in value)
        ):
            yield key, value


class PanelFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    debate_judges: list[JudgeEntry] | None = None
    judges: list[JudgeEntry] | None = None  # same as debate_judges
    max_rounds: int | None = None
    # provider layer: aliases, prices, limits, retries
    aliases: dict[str, str] = Field(default_factory=dict)
    pricing: dict[str, Any] = Field(default_factory=dict)
    limits: dict[str, Any] = Field(default_factory=dict)
    retry: dict[str, Any] = Field(default_factory=dict)
    budget: dict[str, Any] = Field(default_factory=dict)
    # the model that wrote what the panel judges: a seat on it is flagged `author_on_panel` (issue 30)
    author_model: str | None = None
    # every other top-level key, as written: the protocols' blocks, each validated by its protocol's model
    blocks: dict[str, Any] = Field(default_factory=dict)

    path: str | None = Field(default=None, exclude=True)
    # why a file nobody named is in effect (MOOT_JUDGES, a moot.yaml: see moot.project); None when given
    _found_by: str | None = PrivateAttr(default=None)
    _folder: Path | None = PrivateAttr(default=None)  # what a loaded file's relative paths mean
    _settings: dict[type[BaseModel], BaseModel] = PrivateAttr(default_factory=dict)

    @property
    def found_by(self) -> str | None:
        return self._found_by

    @found_by.setter
    def found_by(self, why: str | None) -> None:
        self._found_by = why

    @model_validator(mode="before")
    @classmethod
    def _split(cls, data: Any) -> Any:
        """The kernel's keys as they are; every other one into `blocks`, raw, for the protocol it belongs to."""
        if not isinstance(data, dict):
            return data
        own = set(cls.model_fields) - {"blocks"}
        blocks = {k: v for k, v in data.items() if k not in own}
        return {**{k: v for k, v in data.items() if k in own}, "blocks": blocks}

    @model_validator(mode="after")
    def _apply_aliases(self) -> PanelFile:
        """The file's `aliases:` name models for every judge in it (the alias stays the display name)."""
        if not self.aliases:
            return self
        self.map_specs(self._aliased)
        return self

    def _aliased(self, spec: JudgeSpec) -> JudgeSpec:
        from moot.judges.providers import expand_aliases

        return expand_aliases(spec, self.aliases) if self.aliases else spec

    def map_specs(self, change: Callable[[JudgeSpec], JudgeSpec]) -> None:
        """Apply `change` to every judge of the kernel's keys (a protocol's get theirs in `settings`)."""
        for key in SPEC_LISTS:
            specs = getattr(self, key)
            if specs is not None:
                setattr(self, key, [change(s) for s in specs])

    def anchor(self, folder: Path) -> None:
        """Resolve the judges' relative paths against `folder` (the loaded file's): the kernel's now, a
        protocol's when its model validates them."""
        self._folder = folder
        self.map_specs(lambda s: anchored(s, folder))

    def settings(self, model: type[M]) -> M:
        """The keys of this file that `model` (a protocol's `settings`) declares, validated by it: bad input
        is one line naming the file and the key, as for the kernel's own keys. Its judges get the file's
        `aliases:` and, in a loaded file, paths resolved against the file's folder. Validated once."""
        found = self._settings.get(model)
        if found is None:
            data = {k: self.blocks[k] for k in model.model_fields if k in self.blocks}
            try:
                found = model.model_validate(data)
            except ValidationError as e:
                where = f"judges file {self.path}" if self.path else "judges file"
                raise UsageError(validation_message(e, where)) from None
            found = self._settled(found)
            self._settings[model] = found
        return cast(M, found)

    def _settled(self, block: M) -> M:
        def change(spec: JudgeSpec) -> JudgeSpec:
            spec = self._aliased(spec)
            return anchored(spec, self._folder) if self._folder is not None else spec

        update: dict[str, Any] = {}
        for key, value in _judges_in(block):
            update[key] = [change(s) for s in value] if isinstance(value, list) else change(value)
        return block.model_copy(update=update) if update else block

    def setting(self, key: str) -> Any:
        """A protocol's key by name (None when the file has none), for code that reads one key of a block
        it does not own: validated when a declared model holds it, else as written."""
        for block in self._settings.values():
            if key in type(block).model_fields:
                return getattr(block, key)
        return self.blocks.get(key)

    def validated(self) -> list[BaseModel]:
        """The protocols' blocks validated so far (every declared one, in a loaded file)."""
        return list(self._settings.values())

    def settings_dump(self, exclude: set[str]) -> dict[str, Any]:
        """The file's settings as one JSON-ready mapping, every declared protocol's keys in it as the kernel's
        are (what a bench run's folder name is a digest of)."""
        data = self.model_dump(mode="json", exclude={*exclude, "blocks"})
        for model in declared():
            data.update(self.settings(model).model_dump(mode="json"))
        return data

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            """A protocol's key read as an attribute (`panel.<key>`) once its model validated it."""
            try:
                return super().__getattr__(name)
            except AttributeError:
                if name.startswith("_") or not any(name in type(b).model_fields for b in self.validated()):
                    raise
                return self.setting(name)

    @property
    def panel(self) -> list[JudgeSpec] | None:
        return self.debate_judges if self.debate_judges is not None else self.judges

    @property
    def base_dir(self) -> Path | None:
        """The file's folder, absolute: what its relative paths mean, whatever the working folder."""
        return Path(self.path).absolute().parent if self.path else None


def specs_of(panel: PanelFile) -> list[JudgeSpec]:
    """Every judge the file names, in every block: the lists of judges first, then the single ones."""
    found: list[JudgeSpec] = []
    for key in SPEC_LISTS:
        found += getattr(panel, key) or []
    held = [value for block in panel.validated() for _, value in _judges_in(block)]
    found += [s for value in held if isinstance(value, list) for s in value]
    found += [value for value in held if isinstance(value, JudgeSpec)]
    return found


def check_named_file(panel: PanelFile, *, allow_commands: bool, allow_key_servers: bool = False) -> None:
    """A judges file a tool call names is untrusted input: it may start no program (`command:`, `cli:`)
    unless the server allows it, and may send only a vendor's own key moot knows (OPENAI_API_KEY, ...) to
    that vendor's own endpoint unless the server allows more, lest a file written by anyone turn the server
    into a way to run code or to mail a secret to a server of its choosing."""
    from moot.judges.providers import key_routes
    from moot.schemas.safe_text import VENDOR_KEY_VARIABLES

    for spec in specs_of(panel):
        if (spec.command or spec.cli) and not allow_commands:
            kind = "command" if spec.command else "cli"
            raise UsageError(
                f"judges file {panel.path}: judge '{spec.label}' is a '{kind}:' judge, which runs a program: "
                "refused over MCP unless the server was started with `moot mcp --allow-commands`"
            )
        if allow_key_servers:
            continue
        for route in key_routes(spec):
            if route.variable == "api_key" or (route.own and route.variable in VENDOR_KEY_VARIABLES):
                continue
            raise UsageError(
                f"judges file {panel.path}: judge '{spec.label}' would send {route.variable} to {route.host}; "
                "over MCP a named file may send only a vendor's own key to that vendor's endpoint, unless the "
                "server was started with `moot mcp --allow-key-servers`"
            )


def load_panel_file(path: str | Path, *, trusted: bool = False, content: bytes | None = None) -> PanelFile:
    """A judges file. One named by a confined caller (an MCP tool call, see `moot.access`) is checked by
    `check_named_file`, unless `trusted` (the project's own file, which has rules of its own: `moot.project`).
    `content`: the file's bytes, already read (so that what was hashed is what is parsed)."""
    data = load_yaml_file(path, "judges file") if content is None else _parse(content, path)
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
    panel.anchor(folder)
    check_blocks(panel)
    caller = current()
    if caller is not None and not trusted:
        check_named_file(panel, allow_commands=caller.allow_commands, allow_key_servers=caller.allow_key_servers)
    return panel


def _parse(content: bytes, path: str | Path) -> Any:
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as e:
        raise UsageError(f"cannot read judges file {path}: {e}") from None
    return parse_yaml(text, path, "judges file")


def check_blocks(panel: PanelFile) -> None:
    """Every block a protocol declares validated by its model, and a key none declares refused, as pydantic
    would word it for the kernel's own keys. With no protocol declared (the kernel alone) blocks stay raw.
    When the protocols imported so far declare every key of the file, theirs are all that need checking."""
    models = declared(imported_only=True)
    if not set(panel.blocks) <= {key for model in models for key in model.model_fields}:
        models = declared()  # a key the protocols imported so far do not declare: every protocol's, then
    if not models:
        return
    for model in models:
        panel.settings(model)
    known = {key for model in models for key in model.model_fields}
    for key in panel.blocks:
        if key not in known:
            raise UsageError(f"judges file {panel.path}: {key}: unknown key")
