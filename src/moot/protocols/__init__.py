"""The registry of protocols: each protocol is one package here exposing one `SPEC` (a
`moot.protocol.spec.ProtocolSpec`), listed by one line of `BUILT_IN`. The CLI, the Python API, the MCP server,
`moot batch`, `moot bench`, the reports and the viewer reach a protocol only through this registry, by the
name a user typed or a result carries; none of them knows which protocols exist.

A protocol shipped in another distribution registers itself with an entry point in the group
`moot.protocols` (`name = "package.module"`), as `llm`'s plugins do; it then runs everywhere the built-in
ones run. The seeds' three:

- `evaluate`: scored multi-judge debate over an artifact (seeds 000, 001, 003);
- `decide`: adversarial debate over options between stance judges (seed 002);
- `challenge`: a position defended against parallel challengers (seed 004).

Each protocol's CLI command (`moot <name>`) and MCP tool (`<name>`) are built from its SPEC's `params`;
nothing is written for it in `moot.cli` or `moot.mcp`.

Importing this module imports no protocol: `moot --help` lists the protocols' commands from `entries()`
alone (a plugin's one line comes from its SPEC).
"""

from __future__ import annotations

import importlib
import os
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from moot.file_blocks import declare as declare_blocks

if TYPE_CHECKING:
    from pydantic import BaseModel

    from moot.protocol.spec import ProtocolSpec


class Entry(NamedTuple):
    """One protocol as the registry lists it, enough for `moot --help` without importing it."""

    name: str  # the CLI command, the MCP tool, the API function and every result's `protocol`
    module: str  # the package whose `SPEC` describes it
    help: str = ""  # the one line `moot --help` shows (a plugin's comes from its SPEC)


# one line per protocol, in the order `moot --help` lists them
BUILT_IN: tuple[Entry, ...] = (
    Entry("evaluate", "moot.protocols.evaluate", "Evaluate an artifact by a debate between judges with stances."),
    Entry("decide", "moot.protocols.decide", "Pick between options: Risk, Value and Effort judges debate them."),
    Entry("challenge", "moot.protocols.challenge", "Defend a position against challengers attacking it at once."),
)
ENTRY_POINT_GROUP = "moot.protocols"


def _any_plugin() -> bool:
    """Whether an installed distribution may register a protocol: one look at each folder on the path for an
    `entry_points.txt` naming the group. `importlib.metadata` alone costs `moot --help` 28 ms to import; it
    is imported only when this finds one."""
    marker = f"[{ENTRY_POINT_GROUP}]"
    for folder in sys.path:
        try:
            infos = [e.path for e in os.scandir(folder or ".") if e.name.endswith((".dist-info", ".egg-info"))]
        except OSError:
            continue
        for info in infos:
            try:
                if marker in Path(info, "entry_points.txt").read_text(encoding="utf-8"):
                    return True
            except (OSError, UnicodeDecodeError):
                continue
    return False


@cache
def entries() -> tuple[Entry, ...]:
    """The built-in protocols, then those other distributions register (a name taken twice keeps the first)."""
    found = list(BUILT_IN)
    if not _any_plugin():
        return tuple(found)
    from importlib.metadata import entry_points

    taken = {e.name for e in found}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name not in taken:
            found.append(Entry(point.name, point.value))
            taken.add(point.name)
    return tuple(found)


def names() -> list[str]:
    return [e.name for e in entries()]


def entry(name: str) -> Entry | None:
    return next((e for e in entries() if e.name == name), None)


@cache
def spec_for(name: str) -> ProtocolSpec:
    """The protocol's SPEC, importing its package on first use; an unknown name is bad input."""
    found = entry(name)
    if found is None:
        from moot.errors import UsageError

        raise UsageError(f"unknown protocol {name!r}: use one of {', '.join(names())}")
    spec: ProtocolSpec = importlib.import_module(found.module).SPEC
    return spec


def specs() -> list[ProtocolSpec]:
    """Every protocol's SPEC (imports them all)."""
    return [spec_for(name) for name in names()]


def one_line_help(name: str) -> str:
    found = entry(name)
    if found is not None and found.help:
        return found.help
    return spec_for(name).cli.help


def settings_models(imported_only: bool = False) -> list[type[BaseModel]]:
    """Every protocol's judges-file model (its spec's `settings`): what a judges file is checked against
    when it is loaded. That imports every protocol, unless `imported_only` (those imported already)."""
    chosen = [e.name for e in entries() if not imported_only or e.module in sys.modules]
    return [spec.settings for spec in map(spec_for, chosen) if spec.settings is not None]


declare_blocks(settings_models)
