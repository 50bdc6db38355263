"""The Debates page's query: every debate, filtered, searched, sorted and paginated inside SQLite.

The result fields come from `envelope.sql_columns`, so a 10,000-debate store is filtered and sorted without
a result being parsed in Python; only the page's rows are read. Every value a person types reaches SQL as
a bound parameter; sort columns are chosen from a fixed table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from moot.view.envelope import sql_columns
from moot.view.reader import ReadOnlyStore

PAGE_SIZE = 50
STATUSES = ("running", "finished", "failed", "interrupted")
_FIELDS = sql_columns()
# a sortable column's name in the URL -> its SQL
SORTS: dict[str, str] = {
    "protocol": "d.protocol",
    "title": "d.title",
    "verdict": _FIELDS["verdict"],
    "confidence": _FIELDS["confidence"],
    "judges": _FIELDS["judges"],
    "rounds": _FIELDS["rounds"],
    "spend": _FIELDS["spend"],
    "time": "d.created_at",
    "status": "d.status",
    "batch": "bi.batch_id",
}
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
class Row:
    id: str
    protocol: str
    title: str
    status: str
    created_at: str
    verdict: str
    confidence: str
    judges: int | None
    rounds: int | None
    spend: float | None
    batch: str
    error: str


@dataclass(frozen=True)
class Listing:
    rows: list[Row]
    total: int
    pages: int


_FROM = " FROM debates AS d LEFT JOIN batch_items AS bi ON bi.debate_id = d.id"
_FROM_NO_BATCHES = " FROM debates AS d LEFT JOIN (SELECT NULL AS debate_id, NULL AS batch_id) AS bi ON 0"


def _where(filters: Mapping[str, str]) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    args: list[Any] = []
    simple = {"protocol": "d.protocol", "status": "d.status", "batch": "bi.batch_id", "verdict": _FIELDS["verdict"]}
    for key, column in simple.items():
        if key in filters:
            clauses.append(f"{column} = ?")
            args.append(filters[key])
    if "since" in filters:
        clauses.append("d.created_at >= ?")
        args.append(filters["since"])
    if "until" in filters:  # a date: the whole of that day
        clauses.append("d.created_at < ?")
        args.append(filters["until"] + "\uffff")
    if "q" in filters:
        like = "%" + filters["q"].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        clauses.append(
            "(d.id LIKE ? ESCAPE '\\' OR d.title LIKE ? ESCAPE '\\' OR d.result_json LIKE ? ESCAPE '\\'"
            " OR d.error LIKE ? ESCAPE '\\')"
        )
        args += [like] * 4
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", args


def list_debates(store: ReadOnlyStore, query: Query, *, batches: bool = True) -> Listing:
    """One page of debates. `batches` False for a store made before batches existed (no batch tables).

    Two steps, so that a result's fields are read from JSON for the page's rows only: the ids of the page
    (computing just the filter and the sort column for every debate), then those rows' columns."""
    source = _FROM if batches else _FROM_NO_BATCHES
    where, args = _where(query.filters)
    total = int(store.execute("SELECT COUNT(*)" + source + where, args)[0][0])  # noqa: S608 - fixed SQL pieces
    key = SORTS[query.sort]
    order = f"{key} IS NULL, {key} {'DESC' if query.desc else 'ASC'}, d.created_at DESC"
    ids = [
        r[0]
        for r in store.execute(
            "SELECT d.id" + source + where + f" ORDER BY {order} LIMIT ? OFFSET ?",  # noqa: S608 - fixed SQL pieces
            [*args, PAGE_SIZE, (query.page - 1) * PAGE_SIZE],
        )
    ]
    if not ids:
        return Listing([], total, max(1, -(-total // PAGE_SIZE)))
    cols = ", ".join(f"{sql} AS {name}" for name, sql in _FIELDS.items() if name in SORTS)
    marks = ", ".join("?" for _ in ids)
    rows = store.execute(
        f"SELECT d.id, d.protocol, d.title, d.status, d.created_at, d.error, bi.batch_id, {cols}"  # noqa: S608
        + source
        + f" WHERE d.id IN ({marks})",
        ids,
    )
    by_id = {r["id"]: _row(r) for r in rows}
    return Listing([by_id[i] for i in ids if i in by_id], total, max(1, -(-total // PAGE_SIZE)))


def _row(r: Any) -> Row:
    spend = r["spend"]
    return Row(
        id=r["id"],
        protocol=r["protocol"],
        title=r["title"],
        status=r["status"],
        created_at=r["created_at"],
        verdict=str(r["verdict"] or ""),
        confidence=str(r["confidence"] or ""),
        judges=r["judges"],
        rounds=r["rounds"],
        spend=float(spend) if spend is not None else None,
        batch=r["batch_id"] or "",
        error=r["error"] or "",
    )


def choices(store: ReadOnlyStore, *, batches: bool = True) -> dict[str, list[str]]:
    """What the filters offer: the protocols, verdicts and batches the store holds."""
    out = {
        "protocol": [r[0] for r in store.execute("SELECT DISTINCT protocol FROM debates ORDER BY 1")],
        "verdict": [
            r[0]
            for r in store.execute(
                f"SELECT DISTINCT {_FIELDS['verdict']} AS v FROM debates AS d WHERE v IS NOT NULL ORDER BY 1"  # noqa: S608
            )
        ],
        "status": list(STATUSES),
        "batch": [],
    }
    if batches:
        out["batch"] = [r[0] for r in store.execute("SELECT id FROM batches ORDER BY created_at DESC")]
    return out
