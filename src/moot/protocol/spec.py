"""What a protocol tells the rest of moot about itself: one `ProtocolSpec`, the `SPEC` of its package
(`moot/protocols/<name>/`), found through the registry (`moot.protocols`). It says how the protocol's
arguments become a prepared debate, how a stored one is prepared again for resume, its result type and its
renderings; the CLI, the Python API, the MCP server, `moot batch` and `moot bench` read only this.
Estimating (the dry run), running and resuming are then the same for every protocol.

The protocol's function, CLI command and MCP tool are built from the spec too: its arguments declared once
(`args`, a `moot.protocol.args.ProtocolArgs` model), the words of its command and tool (`cli`, a `CliSpec`)
its verdict words (`verdict`, a `VerdictSpec`); nothing is written for a protocol in `moot.cli` or
`moot.mcp` (`moot.cli.protocol_cmd`, `moot.mcp.server.protocol_tool`). The spec's fields are grouped by
the face that reads them: `cli`, `batch`, `bench`, `views`, `verdict`, `demo`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TextIO, TypedDict, Unpack, cast

from pydantic import BaseModel
from typing_extensions import TypeVar

from moot.panel_file import PanelFile
from moot.protocol.args import (
    REDACTING,
    Build,
    FlatArgs,
    ProtocolArgs,
    RunArgs,
    adapt_to,
    api_signature,
    args_from,
    declaration,
    offer_of,
    params_of,
    prepare,
)
from moot.protocol.args import REQUIRED as REQUIRED
from moot.protocol.args import SAME as SAME
from moot.protocol.args import Param as Param
from moot.protocol.demo import DemoSpec
from moot.protocol.prepared import Prepared, RunOptions
from moot.protocol.verdict import VerdictSpec
from moot.render.html_common import DebateRecord, View
from moot.render.terminal import TextReport
from moot.schemas.config import JudgeSpec

# Where a protocol's command lists `--format` among its own parameters (`params=(..., FORMAT, ...)`); without
# it, `--format` comes after them. The CLI words it from the spec's `formats`; the MCP tools answer JSON.
FORMAT = Param("fmt", str, "text", flags=("--format", "-f"), mcp=False)
# every protocol's: a secret in what would be sent refuses the run unless it may be redacted (`moot.secrets`)
REDACT_SECRETS = Param("redact_secrets", bool, False, **offer_of(REDACTING))


class Terminal(Protocol):
    """What the CLI lends a protocol's `show` hook: its own output, so that the hook prints as every command
    does (inert text; drawn by rich at a terminal) without importing the CLI."""

    def emit(self, text: str) -> None:
        """Write a result on stdout."""

    def say(self, text: str) -> None:
        """Write one message line on stderr."""

    def render(self, result: Any, fmt: str, *, stream: TextIO | None = None) -> str:
        """The result in one of the CLI's formats (`text` drawn for `stream`, stdout by default)."""

    def text(self, report: TextReport | str, *, stream: TextIO | None = None) -> str:
        """A text report as it should appear on `stream` (stdout by default)."""


@dataclass(frozen=True)
class BatchSpec:
    """How `moot batch` reads an item of the protocol beyond what its function's signature says. A protocol
    that gives none (a plugin) batches with these defaults: its function's own arguments, no paths resolved,
    and each argument without a default required."""

    # arguments naming files that must exist (a path, a glob or a list of them), resolved against the items
    # file's folder so that they mean the same wherever the batch runs from
    input_paths: tuple[str, ...] = ()
    inline_inputs: bool = False  # an input path given as a JSON object is the content itself, not a path
    output_paths: tuple[str, ...] = ()  # folders written to, resolved the same way
    defaults: Mapping[str, Any] = field(default_factory=dict)  # what a batch sets unless the item does
    extra_fields: frozenset[str] = frozenset()  # item keys beyond the function's (`arguments` turns them into it)
    # the item's must-haves, checked on load: (the item as written, where) -> None, raising UsageError
    required: Callable[[Mapping[str, Any], str], None] | None = None
    # the item's arguments as the function takes them: (arguments, item id, items file folder, where)
    arguments: Callable[[dict[str, Any], str, Path, str], dict[str, Any]] | None = None
    rounds: tuple[int, str] | None = None  # (MAX_ROUNDS, ROUNDS) an item's `max_rounds` is checked against


@dataclass(frozen=True)
class BenchRole:
    """The part a protocol plays in `moot bench`: `kind` is the suite kind it judges (`"pairwise"`: which of
    two responses is correct; `"scored"`: a score for one artifact)."""

    kind: str
    default_model: str = ""  # each judge's model when no judges file lists the judges (pairwise)
    # checks the debate settings (`config`) the bench gives every pairwise item, before any call;
    # raises pydantic's ValidationError
    check_config: Callable[[Mapping[str, Any]], None] | None = None


@dataclass(frozen=True)
class HumanChoice:
    """A question a result leaves to a person: one of `options` (id, label) to choose."""

    message: str
    options: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class CliSpec:
    """The protocol's command (`moot NAME`) and MCP tool beyond its `Args`: their words, the `--format`s its
    `show` hook prints, and what `moot doctor` checks for it. Nothing is written for a protocol in `moot.cli`
    or `moot.mcp` (`moot.cli.protocol_cmd`, `moot.mcp.server.protocol_tool`); the options every protocol
    command takes (--format, --progress, --html, --require, --dry-run, --max-cost) are theirs, worded from
    these."""

    help: str = ""  # one line: `moot --help` (the registry's line wins for a built-in protocol)
    description: str = ""  # the command's help, and the MCP tool's description unless `mcp_description` is given
    mcp_description: str = ""
    mcp_summary: str = ""  # what the MCP server's instructions say of the tool: one sentence naming it in backticks
    format_after: str | None = None  # the `Args` field `--format` is listed after (default: after them all)
    formats: tuple[str, ...] = ()  # `--format`s its `show` prints besides text, json, yaml and github
    dry_run_help: str = ""  # the CLI's `--dry-run` / `--max-cost` help, when the generic words do not fit
    max_cost_help: str = ""
    # prints a finished debate's result for the CLI in `--format` (default: the protocol's rendering), given
    # the command's own parameters; returns the result the gate and `--html` read (a person may have added
    # to it: decide's choice)
    show: Callable[[Any, str, Mapping[str, Any], Terminal], BaseModel] | None = None
    # the MCP progress notifications' total, from the prepared debate and the tool's own arguments (default:
    # the rounds planned)
    progress_total: Callable[[Prepared, Mapping[str, Any]], int | None] | None = None
    # the judges `moot doctor` checks when no judges file is in effect, each with the role it names
    default_judges: tuple[tuple[str, JudgeSpec], ...] = ()
    # a finished result a person must settle (decide's CONTESTED): the question and the options, asked by the
    # MCP server where its client can ask its user (elicitation); `record_choice(debate_id, option id)`
    # records the answer beside the panel's verdict and returns the result with it
    human_choice: Callable[[Any], HumanChoice | None] | None = None
    record_choice: Callable[[str, str], BaseModel] | None = None
    # the smallest `max_tokens` its replies need with a default request (`moot doctor` flags a judge below it;
    # a run checks its own request's schemas before round 1)
    reply_minimum: Callable[[], int] | None = None
    # a protocol without `Args` (written against the flat spec, `moot.protocol.flat`): its parameters as the
    # adapters take them, and their values in the API's names
    params: tuple[Param, ...] = ()
    adapt: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None


@dataclass(frozen=True)
class ViewSpec:
    """How a result of the protocol is shown: on the terminal, as GitHub Markdown, in the HTML report."""

    text: Callable[[Any], TextReport]  # the terminal rendering of a result (plain or drawn by rich)
    # what round 0, the step after the last round, is called in spend and in the reports
    final_name: str = "synthesis"
    # whether a stored result without a `protocol` key (written before the envelope) is this protocol's
    legacy_result: Callable[[Mapping[str, Any]], bool] | None = None
    # `--format github`: a result's JSON as GitHub Markdown (None: the generic rendering)
    github_markdown: Callable[[Mapping[str, Any]], str] | None = None
    # the HTML report's view of a stored debate (None: the generic view)
    html_view: Callable[[DebateRecord], View] | None = None


class SpecGroups(TypedDict, total=False):
    """The groups of a `ProtocolSpec` beside what its function declares (`ProtocolSpec.of`)."""

    exports: Mapping[str, Any]
    cli: CliSpec
    batch: BatchSpec
    bench: BenchRole | None
    demo: DemoSpec | None
    verdict: VerdictSpec


# the protocol's `Args`: a spec is generic in it, so that mypy ties the builder to the arguments it is given
ArgsT = TypeVar("ArgsT", bound=ProtocolArgs, default=Any)


@dataclass(frozen=True)
class ProtocolSpec(Generic[ArgsT]):
    """A protocol, as the rest of moot knows it: its arguments (`args`), how they become a prepared debate
    (`build`) and how a stored one is prepared again (`reprepare`), its result type, and one group per
    face: the command and tool (`cli`), `moot batch`, `moot bench`, the renderings (`views`), the demo."""

    name: str
    reprepare: Callable[[dict[str, Any], PanelFile | None], Awaitable[Prepared]]  # a stored request, for resume
    result_type: type[BaseModel]
    # the `Args` validated and the judges built (the judges file in `Prepared.panel`): `build(args, planning)`,
    # `planning=True` for a dry run (no key needed); a flat spec's (no `args`) takes a `FlatArgs`
    build: Build[ArgsT]
    views: ViewSpec
    # the protocol's arguments, declared once (`moot.protocol.args`): its function, command and tool come from it
    args: type[ArgsT] | None = None
    # the public Python names the protocol adds to `moot` and `moot.api` (its function, the sync twin, its
    # result type), so that neither names a protocol
    exports: Mapping[str, Any] = field(default_factory=dict)
    cli: CliSpec = field(default_factory=CliSpec)
    batch: BatchSpec = field(default_factory=BatchSpec)  # how `moot batch` reads its items
    bench: BenchRole | None = None  # the suites `moot bench` runs with it (None: none)
    demo: DemoSpec | None = None  # what `moot demo NAME` runs and exports (none: the protocol has no demo)
    verdict: VerdictSpec = field(default_factory=VerdictSpec)  # its verdict words, ranking and tones

    @classmethod
    def of(
        cls,
        function: Callable[..., Any],
        reprepare: Callable[[dict[str, Any], PanelFile | None], Awaitable[Prepared]],
        views: ViewSpec,
        **groups: Unpack[SpecGroups],
    ) -> ProtocolSpec[Any]:
        """The spec of the protocol whose public function `function` is (made by `api_function`): its name,
        `Args`, builder and result type are read from the function, not stated again."""
        made = declaration(function)
        return ProtocolSpec(made.name, reprepare, made.result, made.build, views, args=made.model, **groups)

    @property
    def settings(self) -> type[BaseModel] | None:
        """The protocol's keys of a judges file, as one pydantic model (its `Args`' `settings`): the kernel
        keeps them raw and has this validate them when a file is loaded (`moot.file_blocks`)."""
        return self.args.settings if self.args is not None else None

    @property
    def params(self) -> tuple[Param, ...]:
        """The command's and tool's parameters, in the order the CLI lists them (from `args`, `--format`
        where `cli.format_after` puts it)."""
        if self.args is None:
            return self.cli.params
        after = {self.cli.format_after: FORMAT} if self.cli.format_after else None
        return params_of(self.args, after=after)

    def adapt(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The command's or tool's values (by their names) in the API's names, so that the two adapters
        cannot map them differently."""
        if self.args is not None:
            return adapt_to(self.args, values)
        return self.cli.adapt(values) if self.cli.adapt else dict(values)

    @property
    def description(self) -> str:
        return self.cli.description

    @property
    def mcp_description(self) -> str:
        return self.cli.mcp_description

    @property
    def run(self) -> type[RunArgs]:
        """The run options its function, command and tool take (its `Args`' `run`)."""
        return self.args.run if self.args is not None else RunArgs

    @property
    def run_params(self) -> tuple[Param, ...]:
        """The run options as the command and the tool offer them, in their order."""
        return params_of(self.run)

    def run_args(self, values: Mapping[str, Any], **given: Any) -> RunArgs:
        """The run options from the command's or the tool's values (by their names; those it does not offer
        keep their defaults), with what the adapter adds itself (`given`: the command's progress)."""
        return args_from(self.run, {n: values[n] for n in self.run.model_fields if n in values} | given)

    async def prepare(self, *args: Any, planning: bool = False, **kwargs: Any) -> tuple[Prepared, RunOptions]:
        """`prepare` from the function's arguments, as a call gives them (the run options among them)."""
        run = {k: kwargs.pop(k) for k in list(kwargs) if k in self.run.model_fields}
        return await prepare(self, self.bound(*args, **kwargs), args_from(self.run, run), planning=planning)

    def bound(self, *args: Any, **kwargs: Any) -> ArgsT:
        """The protocol's `Args` from its function's arguments (given as a call gives them)."""
        if self.args is None:  # a flat spec: its builder is made for `FlatArgs` (`moot.protocol.flat`)
            return cast(ArgsT, FlatArgs.model_construct(given=args, **kwargs))
        signature = api_signature(self.args, None, ())
        return args_from(self.args, signature.bind(*args, **kwargs).arguments)

    def made(self, arguments: Mapping[str, Any]) -> ArgsT:
        """The protocol's `Args` from arguments in the API's names (the adapters' values after `adapt`)."""
        return self.bound(**arguments) if self.args is None else args_from(self.args, arguments)

    async def plan(self, arguments: Mapping[str, Any], *, planning: bool) -> Prepared:
        """`build` from arguments in the API's names (the adapters' values after `adapt`)."""
        return await self.build(self.made(arguments), planning)


@dataclass(frozen=True, kw_only=True)
class CommandWords:
    """What a protocol's command and tool say of themselves, declared once in its params module (`WORDS`)
    and given to `cli_from`: typed fields, so that a misspelt one is an error, never a word silently lost."""

    description: str  # the command's help, and the MCP tool's description unless `mcp_description` is given
    mcp_summary: str  # its sentence in the MCP server's instructions, naming the tool in backticks
    mcp_description: str = ""
    dry_run_help: str = ""  # the CLI's `--dry-run` / `--max-cost` help, when the generic words do not fit
    max_cost_help: str = ""


class CommandModule(Protocol):
    """What a built-in protocol's params module declares for its command and tool (mypy checks the module
    against it): its words, and the smallest output bound its replies need."""

    WORDS: CommandWords

    def reply_minimum(self) -> int: ...


def cli_from(params: CommandModule, **fields: Any) -> CliSpec:
    """The protocol's `CliSpec`: what its params module declares (`WORDS`, `reply_minimum`), with `fields`
    for the rest."""
    said = {f.name: getattr(params.WORDS, f.name) for f in dataclasses.fields(params.WORDS)}
    return CliSpec(**said | {"reply_minimum": params.reply_minimum} | fields)


def named(*objects: Any) -> dict[str, Any]:
    """Public names (a spec's `exports`), each under its own `__name__`, so that a name cannot drift from
    what it names."""
    return {o.__name__: o for o in objects}
