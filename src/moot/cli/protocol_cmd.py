"""Every protocol's command (one per protocol the registry lists), built from the protocol's spec alone:
nothing in cli/ names a protocol.

A protocol gets its command by what its SPEC declares (`moot.protocol.spec.ProtocolSpec`), nothing else:

- `params` (`moot.protocol.args.Param`s, derived from the protocol's `Args` model), in their order: typer
  options, or an argument, with the CLI's help texts; `--format` stands where the params put `FORMAT`
  (`cli.format_after`; else after them), its choices the generic ones plus the spec's `cli.formats`;
- then the options every protocol command takes, worded here and from the spec: `--progress/--quiet`,
  `--html`, `--fail-under` (a `scored` protocol's), `--require` (from its `verdict`'s `require` and
  `require_fails`), `--dry-run` (`dry_run_help` when the generic words do not fit), and the run options
  (`moot.protocol.args.RunArgs`: `--max-cost`, worded by `max_cost_help` where the protocol has it,
  `--max-input-tokens`, `--author-model`, and any the protocol's `Args` add);
- `description`: the command's help; its line in `moot --help` is the registry's (`moot.protocols`), read
  without importing the protocol.

The command runs as every protocol's does (`moot.cli.running.run_command`): the options checked, the
values put in the API's names by the spec's `adapt` and prepared by its `build`, a dry run's plan or the
debate run, the result printed by the spec's `show` hook if it has one (else in `--format`), then
`--html` and the gate. The MCP server builds the protocol's tool from the same params (`moot.mcp.server`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any

import typer

from moot.cli.gate import protocol_formats
from moot.cli.options import HtmlOption, ProgressOption
from moot.cli.running import run_command
from moot.protocol.spec import FORMAT, REQUIRED, Param, ProtocolSpec

FAIL_UNDER_HELP = "Exit 1 when the final score is under this (CI gate)."
DRY_RUN_HELP = "Print the calls and estimated cost of 1, 2, all rounds; spend nothing."
# the options every protocol command takes besides the run options (`RunArgs`), by their Python names: a
# protocol's own params cannot take these
SHARED = ("fmt", "progress", "html", "fail_under", "require", "dry_run")


def format_help(formats: tuple[str, ...]) -> str:
    """`text, json, yaml or github (Markdown).`: the formats, github explained unless a Markdown one is listed."""
    listed = ", ".join(formats[:-1]) + f" or {formats[-1]}"
    return listed + ("." if "markdown" in formats else " (Markdown).")


def require_help(spec: ProtocolSpec) -> str:
    """`--require`'s help: a verdict at least this good, or the one outcome that passes and when it fails."""
    words = " or ".join(spec.verdict.require)
    if spec.verdict.require_fails:
        return f"{words}: exit 1 when {spec.verdict.require_fails} (CI gate)."
    return f"Exit 1 unless the verdict is at least {words}."


def _parameter(name: str, annotation: Any, default: Any = REQUIRED) -> inspect.Parameter:
    given = inspect.Parameter.empty if default is REQUIRED else default
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=given, annotation=annotation)


def _own(param: Param) -> inspect.Parameter:
    info = typer.Argument(help=param.help) if param.argument else typer.Option(*param.flags, help=param.help)
    return _parameter(param.name, Annotated[param.type, info], param.default)


def command_parameters(spec: ProtocolSpec) -> list[inspect.Parameter]:
    """The command's parameters, in the order `--help` lists them: the protocol's own, then the shared ones."""
    own = [p for p in spec.params if p.cli]
    clashing = [p.name for p in own if (p.name in SHARED or p.name in spec.run.model_fields) and p != FORMAT]
    if clashing:
        raise ValueError(f"protocol {spec.name}: its params take the names of shared options: {clashing}")
    fmt_help = format_help(protocol_formats(spec))
    fmt = _parameter("fmt", Annotated[str, typer.Option("--format", "-f", help=fmt_help)], "text")
    parameters = [fmt if p == FORMAT else _own(p) for p in own]
    if FORMAT not in own:
        parameters.append(fmt)
    parameters += [_parameter("progress", ProgressOption, None), _parameter("html", HtmlOption, None)]
    if spec.verdict.scored:
        option = typer.Option("--fail-under", help=FAIL_UNDER_HELP)
        parameters.append(_parameter("fail_under", Annotated[float | None, option], None))
    if spec.verdict.require:
        option = typer.Option("--require", help=require_help(spec))
        parameters.append(_parameter("require", Annotated[str | None, option], None))
    dry_run = typer.Option("--dry-run", help=spec.cli.dry_run_help or DRY_RUN_HELP)
    parameters.append(_parameter("dry_run", Annotated[bool, dry_run], False))
    worded = {"max_cost": spec.cli.max_cost_help}  # where the protocol words its cost cap itself
    for p in spec.run_params:
        if p.cli:
            parameters.append(_own(replace(p, help=worded.get(p.name) or p.help)))
    return parameters


def protocol_command(name: str) -> Callable[..., int]:
    """The command of protocol `name`: a function whose signature typer reads (built from the spec), its
    exit code returned. From Python it may be given only some options, the others taking their defaults
    (`protocol_command(name)(judges=..., fmt="json")`), as `moot demo` runs a protocol's own command."""
    from moot.protocols import spec_for

    spec = spec_for(name)
    signature = inspect.Signature(command_parameters(spec), return_annotation=int)

    def command(**values: Any) -> int:
        bound = signature.bind(**values)
        bound.apply_defaults()
        return run_command(name, bound.arguments)

    command.__signature__ = signature  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()} | {"return": int}
    command.__name__ = command.__qualname__ = name
    command.__doc__ = spec.cli.description
    return command
