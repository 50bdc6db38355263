"""A scripted judge's place in its list of replies, kept with the debate (`moot.store.scripts`).

The judges of a debate are built again in every process that continues it (each host seat's reply, a
resume), and a scripted judge built again would start its list over: each would replay its first reply in
every round. Before a judge with a place is asked, the place stored for it in this debate is given back;
after, the place it reached is stored. A judge asked for the first time in a debate keeps its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from moot.store.db import Store
from moot.store.scripts import save_script_position, script_position


@contextmanager
def script_place(store: Store, debate_id: str, seat: str, index: int, judge: Any) -> Iterator[None]:
    """Around one call of the seat's `index`-th judge: its place restored before, stored after (a judge
    without a place, `position` None or absent, is left alone)."""
    if getattr(judge, "position", None) is None:
        yield
        return
    stored = script_position(store, debate_id, seat, index)
    if stored is not None:
        judge.position = stored
    try:
        yield
    finally:
        save_script_position(store, debate_id, seat, index, judge.position)
