"""A debate out of one store and into another, as plain JSON-serialisable data: how a batch's Ray workers,
each running debates in a local store, hand them back to the driver's store (resume then works the same
as with the local backend).

An export holds the rows as stored (prompts and request still packed) and every blob they reference, so
a 1 MB artifact travels once, not once per call. Importing is idempotent: an attempt already in the
store is recognised and not added again, whether the store holds the whole debate or part of it.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Sequence, Set
from contextlib import suppress
from typing import Any

from pydantic import BaseModel, ConfigDict

from moot.errors import UsageError, shown_path
from moot.store.blobs import MANIFEST, MissingBlob, blob_keys, digest, fetch
from moot.store.db import CallRecord, Store

FORMAT = "moot-debate/1"


class _Debate(BaseModel):
    """The debates row, column for column."""

    model_config = ConfigDict(extra="forbid")
    id: str
    protocol: str
    title: str
    status: str
    request_json: str
    result_json: str | None
    error: str | None
    format_version: int
    created_at: str
    updated_at: str


class _TransferRound(BaseModel):
    model_config = ConfigDict(extra="forbid")
    round: int
    data_json: str


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    section: str


class _Export(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: str
    debate: _Debate
    calls: list[CallRecord]
    rounds: list[_TransferRound]
    report_sections: list[_Section]
    blobs: dict[str, str]


_DEBATE_COLS = list(_Debate.model_fields)
_CALL_COLS = list(CallRecord.__dataclass_fields__)


def export_debate(store: Store, debate_id: str) -> dict[str, Any]:
    """Everything the store holds about one debate (by its exact id): its row, every attempt at every
    call, its rounds and report sections, and the blobs those reference."""
    return export_since(store, debate_id)[0]


def export_since(
    store: Store, debate_id: str, after_call: int = 0, known: Set[str] = frozenset(), *, rounds: bool = True
) -> tuple[dict[str, Any], int]:
    """The debate as `export_debate` gives it, but only its calls stored after the row numbered
    `after_call` and only the blobs not in `known` (the receiver holds them already), with or without its
    rounds and report sections; and the number of its last call row (the next export's `after_call`).
    What a Ray worker sends as each call completes, so that a 1 MB artifact travels once per debate."""
    with store.transaction(write=False) as db:
        debate = db.execute("SELECT * FROM debates WHERE id = ?", (debate_id,)).fetchone()
        if debate is None:
            raise UsageError(f"no debate {debate_id} in {shown_path(store.path)}")
        calls = db.execute(
            "SELECT * FROM calls WHERE debate_id = ? AND id > ? ORDER BY id", (debate_id, after_call)
        ).fetchall()
        rows, sections = _rounds(db, debate_id) if rounds else ([], [])
        texts = [debate["request_json"], debate["result_json"] or "", *(c["prompt_json"] for c in calls)]
        blobs = _referenced(db, texts, known)
        export = {
            "format": FORMAT,
            "debate": {c: debate[c] for c in _DEBATE_COLS},
            "calls": [{c: r[c] for c in _CALL_COLS} for r in calls],
            "rounds": [{"round": r["round"], "data_json": r["data_json"]} for r in rows],
            "report_sections": [{"path": r["path"], "section": r["section"]} for r in sections],
            "blobs": blobs,
        }
        return export, max([after_call, *(c["id"] for c in calls)])


def _rounds(db: sqlite3.Connection, debate_id: str) -> tuple[list[sqlite3.Row], list[sqlite3.Row]]:
    rounds = db.execute("SELECT round, data_json FROM rounds WHERE debate_id = ? ORDER BY round", (debate_id,))
    sections = db.execute("SELECT path, section FROM report_sections WHERE debate_id = ?", (debate_id,))
    return rounds.fetchall(), sections.fetchall()


def import_debate(store: Store, data: dict[str, Any]) -> None:
    """Write an exported debate into `store`, merging with what it already holds of that debate: every
    attempt ends up there once, and a finished debate is never set back to unfinished by an older copy.
    Raises ValueError (and writes nothing) for data that is not an intact export."""
    import_debates(store, [data])


def import_debates(store: Store, exports: Sequence[dict[str, Any]]) -> None:
    """`import_debate` for several exports, in order, as one transaction (one commit for many calls:
    what lets a batch's driver keep up with a cluster's calls). All are written, or none."""
    parsed = [_parse(data) for data in exports]
    with store.transaction() as db:
        for export in parsed:
            _import(db, export)


def import_intact(store: Store, exports: Sequence[dict[str, Any]]) -> None:
    """`import_debates`, and should one export not be intact, the others one by one: what a batch's driver
    stores of its Ray workers' debates and calls, where one damaged piece must not cost the rest. What is
    left out is as if it had never completed: its debate stays unfinished, or its call is asked again, when
    the debate resumes."""
    try:
        import_debates(store, exports)
    except ValueError:
        for export in exports:
            with suppress(ValueError):
                import_debates(store, [export])


def _import(db: sqlite3.Connection, export: _Export) -> None:
    debate_id = export.debate.id
    _check_blobs(db, export.blobs)
    db.executemany("INSERT OR IGNORE INTO blobs (hash, text) VALUES (?, ?)", export.blobs.items())
    texts = [export.debate.request_json, export.debate.result_json or "", *(c.prompt_json for c in export.calls)]
    try:
        _referenced(db, texts)  # every reference resolves, or nothing is written
    except MissingBlob as e:
        raise ValueError(str(e)) from e
    newer = _merge_debate(db, export.debate)
    _merge_calls(db, export.calls)
    verb = "REPLACE" if newer else "IGNORE"
    db.executemany(
        f"INSERT OR {verb} INTO rounds (debate_id, round, data_json) VALUES (?, ?, ?)",  # noqa: S608 - fixed verbs
        [(debate_id, r.round, r.data_json) for r in export.rounds],
    )
    db.executemany(
        "INSERT OR IGNORE INTO report_sections (debate_id, path, section) VALUES (?, ?, ?)",
        [(debate_id, s.path, s.section) for s in export.report_sections],
    )


def _parse(data: dict[str, Any]) -> _Export:
    export = _Export.model_validate(data)
    if export.format != FORMAT:
        raise ValueError(f"not a moot debate export: format {export.format!r}, expected {FORMAT!r}")
    strays = {c.debate_id for c in export.calls} - {export.debate.id}
    if strays:
        raise ValueError(f"an export of debate {export.debate.id} holds calls of {sorted(strays)[0]}")
    return export


def _referenced(db: sqlite3.Connection, texts: list[str], known: Set[str] = frozenset()) -> dict[str, str]:
    """The blobs these stored texts reference, manifests with their chunks, leaving out those in `known`
    (a known manifest's chunks are known too); MissingBlob if one is absent."""
    keys = [k for k in dict.fromkeys(k for t in texts for k in blob_keys(t)) if k not in known]
    found = _present(db, keys)
    chunks = [c for k in keys if k.startswith(MANIFEST) for c in found[k].split() if c not in known]
    return found | _present(db, list(dict.fromkeys(chunks)))


def _present(db: sqlite3.Connection, keys: list[str]) -> dict[str, str]:
    found = fetch(db, keys)
    missing = [k for k in keys if k not in found]
    if missing:
        raise MissingBlob(f"blob {missing[0]} is referenced but neither exported nor stored")
    return found


def _check_blobs(db: sqlite3.Connection, blobs: dict[str, str]) -> None:
    """Each blob is what its key says (a chunk's sha256; a manifest's, over the chunks it lists), so that
    a damaged export cannot change the text of other debates that share its chunks."""
    for key, text in blobs.items():
        if not key.startswith(MANIFEST) and digest(text) != key:
            raise ValueError(f"blob {key[:12]}… does not hold the text its key names")
    for key, text in blobs.items():
        if key.startswith(MANIFEST):
            parts = text.split()
            stored = fetch(db, [p for p in parts if p not in blobs])
            try:
                whole = "".join(blobs[p] if p in blobs else stored[p] for p in parts)
            except KeyError as e:
                raise ValueError(f"manifest {key[:13]}… lists a chunk that is neither exported nor stored") from e
            if MANIFEST + digest(whole) != key:
                raise ValueError(f"manifest {key[:13]}… does not list the chunks of the text its key names")


def _merge_debate(db: sqlite3.Connection, debate: _Debate) -> bool:
    """Add or update the debate's row. False when the store's copy is finished and the import is not (it
    is older): the store's row, and its rounds, stay as they are."""
    row = debate.model_dump()
    have = db.execute("SELECT status FROM debates WHERE id = ?", (debate.id,)).fetchone()
    if have is None:
        cols = ", ".join(_DEBATE_COLS)
        marks = ", ".join(f":{c}" for c in _DEBATE_COLS)
        db.execute(f"INSERT INTO debates ({cols}) VALUES ({marks})", row)  # noqa: S608 - fixed column names
        return True
    if have["status"] == "finished" and debate.status != "finished":
        return False
    updates = ", ".join(f"{c} = :{c}" for c in _DEBATE_COLS if c not in ("id", "created_at"))
    db.execute(f"UPDATE debates SET {updates} WHERE id = :id", row)  # noqa: S608 - fixed column names
    return True


def _identity(call: CallRecord | sqlite3.Row) -> tuple[Any, ...]:
    """What tells two attempts at one call apart (their numbers may differ between two stores)."""
    fields = ("call_key", "started_at", "finished_at", "status", "reply", "error", "cost_usd", "answered_by")
    if isinstance(call, sqlite3.Row):
        return tuple(call[f] for f in fields)
    return tuple(getattr(call, f) for f in fields)


def _merge_calls(db: sqlite3.Connection, calls: list[CallRecord]) -> None:
    """Add the attempts the store lacks. One keeps its number unless the store already uses it for another
    attempt at that call; then it goes after the store's (a later number is what a resume replays)."""
    if not calls:
        return
    rows = db.execute("SELECT * FROM calls WHERE debate_id = ?", (calls[0].debate_id,)).fetchall()
    seen = {_identity(r) for r in rows}
    numbers: defaultdict[str, set[int]] = defaultdict(set)
    for r in rows:
        numbers[r["call_key"]].add(r["attempt"])
    cols = ", ".join(_CALL_COLS)
    marks = ", ".join(f":{c}" for c in _CALL_COLS)
    for call in calls:
        if _identity(call) in seen:
            continue
        taken = numbers[call.call_key]
        attempt = call.attempt if call.attempt not in taken else max(taken) + 1
        taken.add(attempt)
        seen.add(_identity(call))
        row = {c: getattr(call, c) for c in _CALL_COLS} | {"attempt": attempt}
        db.execute(f"INSERT INTO calls ({cols}) VALUES ({marks})", row)  # noqa: S608 - fixed column names
