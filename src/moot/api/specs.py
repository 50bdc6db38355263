"""One description per protocol, read by the CLI, the Python API and the MCP server alike: how its
arguments become a prepared debate, how a stored one is prepared again for resume, its result type and
its text rendering. Estimating (the dry run), running and resuming are then the same for every protocol.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from moot.api.prepared import Prepared, estimate_prepared
from moot.errors import UsageError
from moot.panel_file import PanelFile
from moot.reports.terminal import TextReport
from moot.runs import RunOptions
from moot.store.db import Store


@dataclass(frozen=True)
class ProtocolSpec:
    name: str
    reprepare: Callable[[dict[str, Any], PanelFile | None], Awaitable[Prepared]]  # a stored request, for resume
    result_type: type[BaseModel]
    text: Callable[[Any], TextReport]  # the terminal rendering of a result (plain or drawn by rich)
    # the protocol function's own arguments validated and the judges built (the judges file in
    # `Prepared.panel`); `planning=True` for a dry run (no key needed)
    build: Callable[..., Coroutine[Any, Any, Prepared]]
    # the CLI command's and MCP tool's parameters (`option`, `context`, `no_files`, ...) in the API's names,
    # so that the two adapters cannot map them differently
    adapt: Callable[[Mapping[str, Any]], dict[str, Any]]

    async def prepare(
        self,
        *args: Any,
        store: Store | None = None,
        on_event: Callable[..., None] | None = None,
        max_cost: float | None = None,
        **kwargs: Any,
    ) -> tuple[Prepared, RunOptions]:
        """`build`, with the run options the judges file sets and the API's cost cap checked: one place,
        so that the protocols cannot differ in how they apply a cap."""
        from moot.api.common import apply_max_cost, options_from_panel

        prepared = await self.build(*args, **kwargs)
        options = options_from_panel(prepared.panel, store=store, on_event=on_event)
        apply_max_cost(options, prepared.seats, max_cost, "max_cost")
        return prepared, options


SPECS: dict[str, ProtocolSpec] = {}


def spec_for(protocol: str) -> ProtocolSpec:
    _load()
    spec = SPECS.get(protocol)
    if spec is None:
        raise UsageError(f"unknown protocol {protocol!r}: use one of {', '.join(sorted(SPECS))}")
    return spec


def text_report(protocol: str, data: Mapping[str, Any]) -> TextReport | None:
    """A stored or fresh result, as its protocol renders it for a terminal (None for an unknown protocol)."""
    _load()
    spec = SPECS.get(protocol)
    return spec.text(spec.result_type.model_validate(data)) if spec is not None else None


def _load() -> None:
    """Each protocol's API module registers its spec when imported."""
    for name in ("evaluate", "decide", "challenge"):
        importlib.import_module(f"moot.api.{name}")


async def run_spec(spec: ProtocolSpec, arguments: dict[str, Any]) -> Any:
    """Run a protocol from its public function's arguments (as that function received them)."""
    from moot.api.prepared import run_prepared

    prepared, options = await spec.prepare(**arguments)
    return await run_prepared(prepared, options)


async def estimate(protocol: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """What a debate would cost, sending nothing: `estimate("evaluate", "src/", task=...)` takes the same
    arguments as `evaluate(...)` (likewise `decide`, `challenge`) and returns what `--dry-run --format json`
    prints: every planned call with its input tokens and typical and worst-case cost, and the cost table."""
    prepared, options = await spec_for(protocol).prepare(*args, **kwargs, planning=True)
    return estimate_prepared(prepared, options.pricing)


def estimate_sync(protocol: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """`estimate`, for code that is not async."""
    return asyncio.run(estimate(protocol, *args, **kwargs))
