"""Running a debate from a command: asyncio at the top, Ctrl-C turned into a resumable `Interrupted`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from moot.cli.live import progress_sink, showing
from moot.errors import Interrupted
from moot.runs import RunOptions

if TYPE_CHECKING:
    from moot.api.prepared import Prepared
    from moot.engine.events import EventSink

T = TypeVar("T")


def run_cli(start: Callable[[], Coroutine[Any, Any, T]], options: RunOptions) -> T:
    """Run `start()` to completion. On Ctrl-C the debate has already been marked interrupted in the
    store by `run_debate`; the user is told how to continue it."""
    try:
        return asyncio.run(start())
    except KeyboardInterrupt:
        raise Interrupted(options.debate_id) from None


def prepare_cli(
    protocol: str, parameters: Mapping[str, Any], progress: bool | None, fmt: str, *, planning: bool
) -> tuple[Prepared, RunOptions, EventSink | None]:
    """A command's parameters, put in the API's names and validated by the protocol's own `build` (as the
    MCP tools do), with the progress the command should show on stderr. `planning` (a dry run) lets a judge
    whose only problem is a missing key be planned. The cap is not applied here: a dry run never checks
    it, and a run checks it in the command's words (`--max-cost`)."""
    from moot.api.common import options_from_panel
    from moot.api.specs import spec_for

    spec = spec_for(protocol)
    prepared: Prepared = asyncio.run(spec.build(**spec.adapt(parameters), planning=planning))
    sink = progress_sink(progress, fmt)
    options = options_from_panel(prepared.panel, on_event=sink)
    return prepared, options, sink


def run_prepared_cli(prepared: Prepared, options: RunOptions, sink: EventSink | None, max_cost: float | None) -> Any:
    """Run a prepared debate under `--max-cost`, the live progress ending however the debate does."""
    from moot.api import apply_max_cost, run_prepared

    apply_max_cost(options, prepared.seats, max_cost)
    with showing(sink):
        return run_cli(lambda: run_prepared(prepared, options), options)
