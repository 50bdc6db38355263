"""The Debates page's query: every debate, filtered, searched, sorted and paginated.

Over the index of `moot.view.index` (every debate's fields read once from its result through the envelope
adapter), so a 10,000-debate store is filtered and sorted in memory. The text search reaches SQL with the
typed text as a bound parameter; sort columns are chosen from a fixed list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from moot.view.index import DebateIndex, DebateListRow
from moot.view.reader import ReadOnlyStore

PAGE_SIZE = 50
STATUSES = ("running", "waiting", "finished", "failed", "interrupted", "cancelled")
SORTS = ("protocol", "title", "verdict", "confidence", "judges", "rounds", "spend", "time", "status", "batch")
_SORT_FIELD = {"time": "created_at"}  # a column's name in the URL -> its field of `DebateListRow`, where they differ
FILTERS = ("protocol", "verdict", "status", "batch", "since", "until", "q")


@dataclass
class Query:
    """The Debates page's state, read from (and written back to) its URL."""

    filters: dict[str, str] = field(default_factory=dict)
    sort: str = "time"
    desc: bool = True
    page: int = 1

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> Query:
        filters = {k: params[k].strip() for k in FILTERS if params.get(k, "").strip()}
        sort = params.get("sort", "time")
        page = params.get("page", "1")
        return cls(
            filters=filters,
            sort=sort if sort in SORTS else "time",
            desc=params.get("dir", "desc") != "asc",
            page=max(1, int(page)) if page.isdigit() else 1,
        )

    def params(self, **changes: Any) -> dict[str, str]:
        """The URL parameters of this query with some changed (for sort and page links)."""
        out: dict[str, Any] = {**self.filters, "sort": self.sort, "dir": "desc" if self.desc else "asc"}
        out["page"] = self.page
        out.update(changes)
        return {k: str(v) for k, v in out.items() if v not in ("", None)}


@dataclass(frozen=True)
class Listing:
    rows: list[DebateListRow]
    total: int
    pages: int


def _keep(row: DebateListRow, f: Mapping[str, str], found: set[str] | None) -> bool:
    return (
        ("protocol" not in f or row.protocol == f["protocol"])
        and ("verdict" not in f or row.verdict == f["verdict"])
        and ("status" not in f or row.status == f["status"])
        and ("batch" not in f or row.batch == f["batch"])
        and ("since" not in f or row.created_at >= f["since"])
        and ("until" not in f or row.created_at < f["until"] + "\uffff")  # a date: the whole of that day
        and (found is None or row.id in found)
    )


def _found(store: ReadOnlyStore, rows: list[DebateListRow], text: str) -> set[str]:
    """The debates whose id, title, judges' text (the result) or error holds `text`, case-insensitively."""
    needle = text.casefold()
    hits = {r.id for r in rows if needle in r.id.casefold() or needle in r.title.casefold()}
    like = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    hits.update(
        r[0]
        for r in store.execute(
            "SELECT id FROM debates WHERE result_json LIKE ? ESCAPE '\\' OR error LIKE ? ESCAPE '\\'", (like, like)
        )
    )
    return hits


def _ordered(rows: list[DebateListRow], sort: str, desc: bool) -> list[DebateListRow]:
    """`rows` (newest first) sorted on one column; rows without a value go last whichever the direction,
    and rows with equal values stay newest first (the sort is stable)."""
    if sort == "time":
        return rows if desc else rows[::-1]
    attr = _SORT_FIELD.get(sort, sort)
    present: list[tuple[Any, DebateListRow]] = []
    missing: list[DebateListRow] = []
    for row in rows:
        value = getattr(row, attr)
        if value is None or value == "":
            missing.append(row)
        else:
            present.append((value.casefold() if isinstance(value, str) else value, row))
    present.sort(key=itemgetter(0), reverse=desc)
    return [row for _, row in present] + missing


def list_debates(store: ReadOnlyStore, index: DebateIndex, query: Query, *, batches: bool = True) -> Listing:
    """One page of debates, filtered and sorted over the index (see `moot.view.index`): the text search
    alone reads the store again (the judges' text is not kept in memory)."""
    every = index.current(store, batches=batches).newest
    f = query.filters
    found = _found(store, every, f["q"]) if "q" in f else None
    kept = [r for r in every if _keep(r, f, found)] if f else every
    ordered = _ordered(kept, query.sort, query.desc)
    pages = max(1, -(-len(ordered) // PAGE_SIZE))
    query.page = min(query.page, pages)  # past the end (`?page=99` of 1): the last page, and it says so
    start = (query.page - 1) * PAGE_SIZE
    return Listing(ordered[start : start + PAGE_SIZE], len(ordered), pages)


def choices(store: ReadOnlyStore, index: DebateIndex, *, batches: bool = True) -> dict[str, list[str]]:
    """What the filters offer: the protocols, verdicts and batches the store holds."""
    rows = index.current(store, batches=batches).rows.values()
    out = {
        "protocol": sorted({r.protocol for r in rows}),
        "verdict": sorted({r.verdict for r in rows if r.verdict}),
        "status": list(STATUSES),
        "batch": [],
    }
    if batches:
        out["batch"] = [r[0] for r in store.execute("SELECT id FROM batches ORDER BY created_at DESC")]
    return out
