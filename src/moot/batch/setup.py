"""What a batch settles once, before any call: its options checked, every judges file it names loaded
(a missing or malformed one is bad input), and the one limiter and price table all its debates share.

Rate limits are the batch's: the `limits:` of `--judges` (or of the project's judges file), shared by
every debate, since a vendor counts requests per key, not per debate. Prices are merged from every judges
file the batch names (`--judges` wins over an item's file), so that each model has one price.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from moot.batch.cap import CostCap
from moot.batch.debates import Shared
from moot.batch.items import BatchItem
from moot.engine.limits import Limits
from moot.engine.pricing import PriceOverride, Pricing
from moot.errors import UsageError
from moot.inputs import validation_message
from moot.panel_file import PanelFile, load_panel_file
from moot.protocol.panel import load_panel, options_from_panel
from moot.protocols import spec_for
from moot.schemas.events import EventSink
from moot.store.db import Store

BACKENDS = ("local", "ray")


def check_options(concurrency: int, max_cost: float | None, backend: str) -> None:
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise UsageError(f"--concurrency must be a whole number of debates, at least 1 (got {concurrency!r})")
    if max_cost is not None and (isinstance(max_cost, bool) or not isinstance(max_cost, int | float) or max_cost <= 0):
        raise UsageError(f"--max-cost must be a positive number of dollars (got {max_cost!r})")
    if backend not in BACKENDS:
        raise UsageError(f"--backend must be one of {', '.join(BACKENDS)} (got {backend!r})")


@dataclass
class BatchSetup:
    protocol: str
    items: list[BatchItem]
    judges_path: str | None
    panel: PanelFile | None  # for items without judges of their own
    panels: dict[str, PanelFile]  # the items' own judges files
    limits: Limits
    pricing: Pricing
    max_cost: float | None
    items_path: str = "ITEMS.jsonl"  # for messages naming an item's line

    @classmethod
    def load(
        cls,
        protocol: str,
        judges: str | Path | None,
        items: Sequence[BatchItem],
        max_cost: float | None,
        items_path: str = "ITEMS.jsonl",
    ) -> BatchSetup:
        spec_for(protocol)  # an unknown protocol is bad input
        if judges is not None and not Path(judges).is_file():
            raise UsageError(f"no such judges file: {judges}")
        panel, _ = load_panel(str(judges) if judges is not None else None)
        panels = {p: load_panel_file(p) for p in dict.fromkeys(i.judges for i in items if isinstance(i.judges, str))}
        base = options_from_panel(panel)  # validates the file's limits and pricing
        for own in panels.values():
            options_from_panel(own)  # an item's judges file is checked before any call too
        return cls(
            protocol=protocol,
            items=list(items),
            judges_path=str(Path(judges).resolve()) if judges is not None else None,
            panel=panel,
            panels=panels,
            limits=base.limits or Limits(),
            pricing=merged_pricing([panel, *panels.values()]),
            max_cost=float(max_cost) if max_cost is not None else None,
            items_path=items_path,
        )


def merged_pricing(panels: Sequence[PanelFile | None]) -> Pricing:
    """One price table from every judges file, the first to price a model winning."""
    overrides: dict[str, PriceOverride] = {}
    for panel in panels:
        if panel is None:
            continue
        table = options_from_panel(panel).pricing
        for model, price in (table.overrides if table else {}).items():
            overrides.setdefault(model, price)
    return Pricing(overrides=overrides)


def shared_for(
    setup: BatchSetup, batch_id: str, store: Store, cap: CostCap | None, on_event: EventSink | None
) -> Shared:
    return Shared(
        batch_id=batch_id,
        store=store,
        spec=spec_for(setup.protocol),
        limits=setup.limits,
        pricing=setup.pricing,
        panel=setup.panel,
        panels=setup.panels,
        cap=cap,
        on_event=on_event,
    )


async def check_keys(setup: BatchSetup) -> None:
    """Every panel the batch will run has its API keys: a missing one is bad input before any call, not
    a failure of every item. One item per distinct panel is prepared as a dry run would prepare it."""
    from moot.batch.debates import close_judges
    from moot.judges.factory import require_credentials, seat_judges

    firsts: dict[str, BatchItem] = {}
    for item in setup.items:
        key = item.judges if isinstance(item.judges, str) else repr(item.judges)
        firsts.setdefault(key, item)
    spec = spec_for(setup.protocol)
    for item in firsts.values():
        judges = item.judges if isinstance(item.judges, list) else setup.panels.get(str(item.judges), setup.panel)
        try:
            prepared, _ = await spec.prepare(**item.arguments, judges=judges, planning=True)
        except UsageError as e:  # bad input here is this item's: its line is named
            raise UsageError(f"{setup.items_path} line {item.line}: {e}") from None
        except ValidationError as e:
            raise UsageError(validation_message(e, f"{setup.items_path} line {item.line}")) from None
        try:
            require_credentials(seat_judges(prepared.seats))
        finally:
            await close_judges(prepared)
