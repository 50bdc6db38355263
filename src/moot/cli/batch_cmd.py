"""`moot batch`: a debate for every line of an items file, resumable by running the same command again."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

import typer

from moot.cli.batch_progress import bar_wanted, progress_display, run_with_bar
from moot.cli.output import check_format, emit
from moot.errors import Interrupted
from moot.protocols import names


class BatchInterrupted(Interrupted):
    """Ctrl-C or SIGTERM: the batch is marked interrupted and continues when the command is run again."""

    def __init__(self, batch_id: str) -> None:
        Exception.__init__(
            self, f"interrupted; nothing that completed is lost: run the same command again to continue {batch_id}"
        )
        self.debate_id = None


ItemsArg = Annotated[str, typer.Argument(help="ITEMS.jsonl: one JSON object per line, an id and the arguments.")]


def _protocols_help() -> str:
    """The registry's protocols, as a sentence: "evaluate, decide or challenge." (plugins included)."""
    listed = names()
    return (", ".join(listed[:-1]) + " or " + listed[-1] if len(listed) > 1 else "".join(listed)) + "."


ProtocolOption = Annotated[str, typer.Option("--protocol", help=_protocols_help())]
JudgesOption = Annotated[
    str | None, typer.Option(help="Judges file for items without their own; its limits: apply to the batch.")
]
ConcurrencyOption = Annotated[int, typer.Option(help="Most debates in flight at once.")]
OutOption = Annotated[
    str | None, typer.Option("--out", help="RESULTS.jsonl (default: ITEMS.results.jsonl beside the items).")
]
BatchCostOption = Annotated[
    float | None,
    typer.Option(
        "--max-cost",
        help="USD cap for the whole batch, earlier runs of it included: no debate starts whose worst case "
        "could cross it.",
    ),
]
SummaryFormat = Annotated[str, typer.Option("--format", "-f", help="text or json (the summary on stdout).")]
BackendOption = Annotated[str, typer.Option(help="local (this process) or ray (Ray tasks: pip install 'moot[ray]').")]
RayAddressOption = Annotated[
    str | None, typer.Option("--ray-address", help="An existing Ray cluster (default: RAY_ADDRESS or a local one).")
]
BarOption = Annotated[
    bool | None,
    typer.Option("--progress/--no-progress", help="Progress bar on stderr (default: on, off with --format json)."),
]

RetryDroppedOption = Annotated[
    bool,
    typer.Option(
        "--retry-dropped/--keep-dropped",
        help="Run again the done items whose debate dropped a judge after an outage (5xx, refused connection, "
        "timeout), replaying every answered call (default), or keep their verdicts on fewer judges.",
    ),
]

# the options that are `run_batch`'s own keywords, with its names and meaning: passed on as given
RUN_BATCH_OPTIONS = ("judges", "concurrency", "out", "max_cost", "backend", "ray_address", "retry_dropped")


def batch(
    items: ItemsArg,
    protocol: ProtocolOption,
    judges: JudgesOption = None,
    concurrency: ConcurrencyOption = 8,
    out: OutOption = None,
    max_cost: BatchCostOption = None,
    fmt: SummaryFormat = "text",
    backend: BackendOption = "local",
    ray_address: RayAddressOption = None,
    progress: BarOption = None,
    retry_dropped: RetryDroppedOption = True,
) -> int:
    """Debate every item of ITEMS.jsonl; each item's line goes to RESULTS.jsonl as soon as it ends.

    An item holds an `id` and the protocol's own arguments by their Python API names: for evaluate,
    `solution` (paths, relative to the items file) or `artifact` (text), `task`, `criteria`; for decide,
    `question` and `options`; for challenge, `topic`; any item may name its own `judges` file.

    Running the same command again continues the batch: done items are kept, interrupted debates resume
    without paying again for completed calls, failed items are tried again, and so are degraded ones (done
    with a judge dropped by an outage: `--keep-dropped` keeps them as they are). The batch is named after the
    protocol and the items file's path (see `moot list`, `moot show BATCH_ID`): to start afresh, run a
    copy of the items file under another name.

    One run per batch: a second run while one is under way exits 2 ("batch ... is already running").

    Exit codes: 0 every item done, 1 some item failed or degraded, 2 bad input or a store or results file
    to fix (nothing more sent), 130 interrupted.
    """
    try:
        return _batch(locals())
    except KeyboardInterrupt:  # while loading or planning, before the run's own handling
        from moot.batch.runner import batch_id_for

        raise BatchInterrupted(batch_id_for(protocol, items)) from None


def _batch(given: dict[str, Any]) -> int:
    from moot.batch import run_batch, summary_text
    from moot.batch.runner import batch_id_for
    from moot.render.serialize import to_json

    items, protocol, fmt, progress = given["items"], given["protocol"], given["fmt"], given["progress"]
    check_format(fmt, ("text", "json"))
    passed = {name: value for name, value in given.items() if name in RUN_BATCH_OPTIONS}
    summary = run_with_bar(
        lambda bar: run_batch(items, protocol, **passed, progress=None if bar is None else partial(bar, "batch")),
        bar=progress_display("batch") if bar_wanted(progress, fmt) else None,
        interrupted=lambda: BatchInterrupted(batch_id_for(protocol, items)),
    )
    emit(to_json(summary.to_dict()) if fmt == "json" else summary_text(summary))
    return 1 if summary.failed or summary.degraded else 0
