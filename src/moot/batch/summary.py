"""What a batch came to: counts, the distribution of verdicts (or outcomes), spend and pace. Pure
functions on plain data; the runner feeds them what ended, the store what was spent."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from moot.store.batches import SpendTotals


@dataclass(frozen=True)
class Ended:
    """How one item ended: `verdict` is its result's one word (PASS, RECOMMENDED, CONSENSUS...)."""

    status: str  # "done" | "failed"
    verdict: str = ""
    error: str | None = None
    degraded: bool = False  # done, but a judge was dropped after a failed call (`moot.batch.dropped`)


@dataclass
class BatchSummary:
    """The summary `moot batch` prints and `moot show BATCH_ID` shows (`to_dict` is its JSON)."""

    batch_id: str
    protocol: str
    status: str  # "running" | "finished" | "interrupted"
    items: int
    done: int
    failed: int
    distribution: dict[str, int]
    spend: SpendTotals
    wall_seconds: float
    debates_per_minute: float
    results: str  # the RESULTS.jsonl path
    failures: list[dict[str, Any]] = field(default_factory=list)
    degraded: int = 0  # items with a verdict on fewer judges than asked: not counted in `done`
    degraded_items: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["spend"] = asdict(self.spend)
        return data


def summary_from_dict(data: Mapping[str, Any]) -> BatchSummary:
    """A stored summary (`summary_json`) as the dataclass again."""
    names = set(BatchSummary.__dataclass_fields__)
    fields = {k: v for k, v in data.items() if k in names}
    fields["spend"] = SpendTotals(**dict(data.get("spend") or {}))
    return BatchSummary(**fields)


def summarize(
    head: Mapping[str, str],
    order: Iterable[str],
    ended: Mapping[str, Ended],
    spend: SpendTotals,
    wall_seconds: float,
) -> BatchSummary:
    """`head` holds batch_id, protocol, status and results; `order` the items' ids as the file lists them."""
    ids = list(order)
    outcomes = [ended[i] for i in ids if i in ended]
    answered = [e for e in outcomes if e.status == "done"]
    done = [e for e in answered if not e.degraded]
    degraded = [i for i in ids if i in ended and ended[i].status == "done" and ended[i].degraded]
    failures = [{"id": i, "error": ended[i].error or ""} for i in ids if i in ended and ended[i].status == "failed"]
    wall = round(wall_seconds, 3)
    return BatchSummary(
        batch_id=head["batch_id"],
        protocol=head["protocol"],
        status=head["status"],
        items=len(ids),
        done=len(done),
        failed=len(failures),
        distribution=dict(Counter(e.verdict or "(none)" for e in answered).most_common()),
        spend=spend,
        wall_seconds=wall,
        debates_per_minute=round(len(answered) * 60 / wall, 2) if wall > 0 else 0.0,
        results=head["results"],
        failures=failures,
        degraded=len(degraded),
        degraded_items=degraded,
    )


def summary_text(s: BatchSummary, *, most_failures: int = 10) -> str:
    """The summary for a person: one line of counts, the distribution, spend and pace, then the failures."""
    pending = s.items - s.done - s.degraded - s.failed
    counts = f"{s.done} done, " + (f"{s.degraded} degraded, " if s.degraded else "") + f"{s.failed} failed"
    counts += f", {pending} not ended" if pending else ""
    lines = [f"Batch {s.batch_id} ({s.protocol}): {s.status}; {s.items} items: {counts}"]
    if s.distribution:
        lines.append("  " + ", ".join(f"{word} {n}" for word, n in s.distribution.items()))
    failed_attempts = f" (+{s.spend.failed_attempts} failed attempts, not paid)" if s.spend.failed_attempts else ""
    lines.append(
        f"  spend: {s.spend.calls} calls{failed_attempts}, {s.spend.tokens:,} tokens, ${s.spend.cost:.4f}; "
        f"{s.wall_seconds:.1f} s, {s.debates_per_minute:g} debates/min"
    )
    lines.append(f"  results: {s.results}")
    for f in s.failures[:most_failures]:
        lines.append(f"  failed {f['id']}: {f['error']}")
    if len(s.failures) > most_failures:
        lines.append(f"  ... and {len(s.failures) - most_failures} more failures (see the results file)")
    if s.degraded:
        shown = ", ".join(str(i) for i in s.degraded_items[:most_failures])
        more = f" and {s.degraded - most_failures} more" if s.degraded > most_failures else ""
        lines.append(f"  degraded (a judge dropped after a failed call): {shown}{more}")
    if pending:
        lines.append("  run the same command again to continue the batch")
    elif s.degraded:
        lines.append("  run the same command again to ask the judges dropped by an outage again")
    return "\n".join(lines) + "\n"
