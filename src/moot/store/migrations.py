"""Schema migrations: small, ordered, append-only. Never edit one that has shipped; add the next.

The database's `PRAGMA user_version` is the number of migrations applied.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator


def _calls_table(name: str, *, attempts: bool) -> str:
    """The calls table as migration 1 made it, or (with `attempts`) as migration 2 copies it into: written
    once, so that the copy cannot drift from the original in any column but `attempt`."""
    attempt = "        attempt INTEGER NOT NULL DEFAULT 1,\n" if attempts else ""
    key = "debate_id, call_key, attempt" if attempts else "debate_id, call_key"
    return f"""CREATE TABLE {name} (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        debate_id TEXT NOT NULL REFERENCES debates(id),
        call_key TEXT NOT NULL,
{attempt}        round INTEGER NOT NULL,
        seat TEXT NOT NULL,
        kind TEXT NOT NULL,
        model TEXT NOT NULL,
        answered_by TEXT NOT NULL DEFAULT '',
        provider TEXT NOT NULL DEFAULT '',
        prompt_json TEXT NOT NULL,
        reply TEXT,
        status TEXT NOT NULL,
        error TEXT,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cached_tokens INTEGER NOT NULL DEFAULT 0,
        reasoning_tokens INTEGER NOT NULL DEFAULT 0,
        latency_s REAL NOT NULL DEFAULT 0,
        cost_usd REAL,
        retries INTEGER NOT NULL DEFAULT 0,
        started_at TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        UNIQUE ({key})
    );
"""


MIGRATIONS: list[str] = [
    # 1: debates, their calls and their rounds
    """
    CREATE TABLE debates (
        id TEXT PRIMARY KEY,
        protocol TEXT NOT NULL,
        title TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL,
        request_json TEXT NOT NULL,
        result_json TEXT,
        error TEXT,
        format_version INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    """
    + _calls_table("calls", attempts=False)
    + """    CREATE INDEX calls_by_debate ON calls (debate_id, id);
    CREATE TABLE rounds (
        debate_id TEXT NOT NULL REFERENCES debates(id),
        round INTEGER NOT NULL,
        data_json TEXT NOT NULL,
        PRIMARY KEY (debate_id, round)
    );
    CREATE TABLE report_sections (
        debate_id TEXT NOT NULL REFERENCES debates(id),
        path TEXT NOT NULL,
        section TEXT NOT NULL,
        PRIMARY KEY (debate_id, path, section)
    );
    """,
    # 2: every attempt at a call is kept. A call that failed is asked again when its debate is resumed (the
    # vendor may be back), so a call key may have several rows, numbered by `attempt`; SQLite cannot drop
    # the old UNIQUE (debate_id, call_key), hence the copy.
    "\n    "
    + _calls_table("calls_v2", attempts=True)
    + """    INSERT INTO calls_v2 (
        id, debate_id, call_key, attempt, round, seat, kind, model, answered_by, provider, prompt_json, reply,
        status, error, input_tokens, output_tokens, cached_tokens, reasoning_tokens, latency_s, cost_usd,
        retries, started_at, finished_at
    )
    SELECT
        id, debate_id, call_key, 1, round, seat, kind, model, answered_by, provider, prompt_json, reply,
        status, error, input_tokens, output_tokens, cached_tokens, reasoning_tokens, latency_s, cost_usd,
        retries, started_at, finished_at
    FROM calls;
    DROP TABLE calls;
    ALTER TABLE calls_v2 RENAME TO calls;
    CREATE INDEX calls_by_debate ON calls (debate_id, id);
    """,
    # 3: content stored once (a debate's artifact and system prompt are chunks referenced by every call
    # that sends them, not copies in every row) and batches of debates with one row per item.
    """
    CREATE TABLE blobs (
        hash TEXT PRIMARY KEY,
        text TEXT NOT NULL
    );
    CREATE TABLE batches (
        id TEXT PRIMARY KEY,
        protocol TEXT NOT NULL,
        items_path TEXT NOT NULL,
        out_path TEXT NOT NULL DEFAULT '',
        options_json TEXT NOT NULL DEFAULT '{}',
        status TEXT NOT NULL,
        summary_json TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE batch_items (
        batch_id TEXT NOT NULL REFERENCES batches(id),
        item_id TEXT NOT NULL,
        line INTEGER NOT NULL,
        debate_id TEXT,
        status TEXT NOT NULL,
        error TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (batch_id, item_id)
    );
    """,
    # 4: how a call asked for its reply's shape (the structured form a server took) and why the reply ended
    # (a reply cut off at its output bound shows as "length")
    """
    ALTER TABLE calls ADD COLUMN structured TEXT NOT NULL DEFAULT '';
    ALTER TABLE calls ADD COLUMN finish_reason TEXT NOT NULL DEFAULT '';
    """,
    # 5: what a debate waiting for its host seats' replies has pending (moot.store.host), so that a waiting
    # debate is shown, listed and continued from any process
    """
    CREATE TABLE host_requests (
        debate_id TEXT NOT NULL REFERENCES debates(id),
        request_id TEXT NOT NULL,
        seat TEXT NOT NULL,
        data_json TEXT NOT NULL,
        PRIMARY KEY (debate_id, request_id)
    );
    """,
    # 6: where each scripted judge with a list of replies stands in a debate (moot.store.scripts), so that a
    # debate continued by another process (a host seat's reply, a resume) replays the list on from there
    """
    CREATE TABLE script_positions (
        debate_id TEXT NOT NULL REFERENCES debates(id),
        seat TEXT NOT NULL,
        judge INTEGER NOT NULL,
        next INTEGER NOT NULL,
        PRIMARY KEY (debate_id, seat, judge)
    );
    """,
    # 7: the folders a debate was started in (a JSON list: the working folder, or a tool call's roots), so
    # that an MCP client sees and acts on the debates started inside its own roots only
    """
    ALTER TABLE debates ADD COLUMN started_in TEXT;
    """,
]


def statements(script: str) -> Iterator[str]:
    """A migration script's statements one by one (`executescript` would COMMIT the caller's transaction),
    split where SQLite itself says a statement is complete, so a `;` inside a string or trigger stays put."""
    buffer = ""
    for part in script.split(";"):
        buffer += part + ";"
        if sqlite3.complete_statement(buffer):
            if buffer.strip(" \n\t;"):
                yield buffer
            buffer = ""
    if buffer.strip(" \n\t;"):
        yield buffer
