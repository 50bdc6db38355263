"""Where each scripted judge with a list of replies stands in a debate, in the store.

A scripted judge replays its list in order. A debate with host seats runs one step per process (each
`moot reply`, each `submit_replies`), and a resumed one runs in a new process: the judges are built again
there, so the place each had reached is kept with the debate and given back to it before its next call.
"""

from __future__ import annotations

from moot.store.db import Store


def script_position(store: Store, debate_id: str, seat: str, judge: int) -> int | None:
    """The index of the next reply of the seat's `judge`-th judge in this debate (None: not asked yet)."""
    rows = store.execute(
        "SELECT next FROM script_positions WHERE debate_id = ? AND seat = ? AND judge = ?", (debate_id, seat, judge)
    )
    return int(rows[0][0]) if rows else None


def save_script_position(store: Store, debate_id: str, seat: str, judge: int, position: int) -> None:
    store.execute(
        "INSERT INTO script_positions (debate_id, seat, judge, next) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (debate_id, seat, judge) DO UPDATE SET next = excluded.next",
        (debate_id, seat, judge, position),
    )
