"""The typer side of the `moot` command: a group whose sub-commands are imported only when one runs or
shows its help (the table and its one-line helps live in `moot.cli.commands`). A protocol's command is
built from its spec on first use (`moot.cli.protocol_cmd`), importing that protocol alone."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from moot.cli.commands import DESCRIPTION, OWN, command_target, commands, protocol_commands, version_line

# The group and each sub-command it loads are typer apps alike: plain help text, errors left to `moot.cli.app`.
_PLAIN: dict[str, Any] = {"add_completion": False, "pretty_exceptions_enable": False, "rich_markup_mode": None}


def load_command(name: str) -> Any:
    """The click command for one table entry, built from its typer function (imports its module, or the
    protocol whose command it is)."""
    if name in OWN:
        module, _, function = command_target(name).partition(":")
        callback = getattr(importlib.import_module(module), function)
    else:
        from moot.cli.protocol_cmd import protocol_command

        callback = protocol_command(name)
    sub = typer.Typer(**_PLAIN)
    sub.command(name, short_help=commands()[name])(callback)
    return typer.main.get_command(sub)


def _known(name: str) -> bool:
    """A sub-command's name (the registry is read only for a name that is not one of moot's own)."""
    return name in OWN or name in protocol_commands()


class LazyCommands(MutableMapping[str, Any]):
    """The group's commands: every name is known up front, a command is built on first access."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if not _known(name):
                raise KeyError(name)
            self._built[name] = load_command(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*commands(), *self._built]))

    def __len__(self) -> int:
        return len(set(commands()) | set(self._built))


class LazyGroup(TyperGroup):
    """A typer group whose commands load on use; its help lists them from the table, loading none."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.commands = LazyCommands()

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl(list(commands().items()))


def _version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit()


app = typer.Typer(name="moot", cls=LazyGroup, help=DESCRIPTION, no_args_is_help=True, **_PLAIN)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_version, help="Print moot's version and exit.")
    ] = False,
) -> None:
    """The group's own options: only `--version`."""
