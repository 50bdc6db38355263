"""Completed calls outlive the Ray worker that made them: each call a worker stores is sent at once to the
batch's journal, a Ray actor on the head node, from which the driver takes it into the batch's store.

- Worker side, `JournaledStore`: a worker's store that sends every call it records to the journal, as a
  piece of the debate's export (`moot.store.transfer.export_since`: the call's row, and the blobs the
  journal has not had yet for that debate, so a 1 MB artifact travels once per debate).
- The journal, `CallJournal`: pieces in the order they came, until the driver has stored them (`take`,
  `ack`); and every piece of each running debate until the driver has that debate's end (`forget`), so
  that a task Ray retries on another worker (its worker died, its node was removed) imports them first
  and replays those calls instead of sending them (`pieces`).
- Driver side, `Drain`: takes new pieces, imports them into the batch's store in one transaction, and
  acknowledges them. The journal is detached and named after the batch, so a driver killed with kill -9
  leaves it standing; the rerun's driver finds it by name and stores what it holds before anything runs.

A call counts as paid once the journal has it: the window in which a worker can die between a vendor's
reply and the journal's copy is one actor message, as the local backend's is one SQLite commit.

The journal and the limiter are plain Python; the backend makes them actors, so nothing here imports Ray.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from moot.store.db import CallRecord, Store
from moot.store.transfer import export_since, import_intact

NAMESPACE = "moot"  # Ray namespace of the journal, so a later driver (another Ray job) finds it by name


def journal_name(batch_id: str) -> str:
    return f"moot-journal-{batch_id}"


class CallJournal:
    """The calls of a batch's running debates, between the workers and the driver's store (a Ray actor)."""

    def __init__(self) -> None:
        self.seq = 0
        self.waiting: list[tuple[int, dict[str, Any]]] = []  # not yet stored by the driver
        self.debates: dict[str, list[dict[str, Any]]] = {}  # every piece of each debate not yet landed

    async def put(self, debate_id: str, piece: dict[str, Any]) -> int:
        self.seq += 1
        self.waiting.append((self.seq, piece))
        self.debates.setdefault(debate_id, []).append(piece)
        return self.seq

    async def take(self, after: int, most: int = 2000) -> list[tuple[int, dict[str, Any]]]:
        """Pieces after number `after`, oldest first (at most `most`)."""
        return [(n, p) for n, p in self.waiting if n > after][:most]

    async def ack(self, upto: int) -> None:
        """The driver has stored every piece up to number `upto`."""
        self.waiting = [(n, p) for n, p in self.waiting if n > upto]

    async def pieces(self, debate_id: str) -> list[dict[str, Any]]:
        """Every piece of a debate, oldest first: what a retried task imports before resuming it."""
        return list(self.debates.get(debate_id, ()))

    async def forget(self, debate_ids: list[str]) -> None:
        """These debates' ends are in the driver's store: their pieces are no longer needed."""
        for debate_id in debate_ids:
            self.debates.pop(debate_id, None)

    async def size(self) -> dict[str, int]:
        return {"waiting": len(self.waiting), "debates": len(self.debates), "seq": self.seq}


class JournaledStore(Store):
    """A Ray worker's store: every call recorded here is sent to the journal too, as it completes."""

    def __init__(self, path: Path | str, journal: Any) -> None:
        super().__init__(path)
        self.journal = journal
        self.sent: dict[str, tuple[int, set[str]]] = {}  # debate -> (last call row sent, blobs sent)
        self.pending: list[Any] = []  # the journal's replies not yet awaited

    def record_call(self, call: CallRecord) -> None:
        super().record_call(call)
        self.send(call.debate_id)

    def adopt(self, debate_id: str) -> None:
        """Everything this store holds of the debate now is known outside the worker (imported from the
        driver or the journal): only what comes after it is sent."""
        rows = self.execute("SELECT MAX(id) AS last FROM calls WHERE debate_id = ?", (debate_id,))
        blobs = {r["hash"] for r in self.execute("SELECT hash FROM blobs")}
        self.sent[debate_id] = (int(rows[0]["last"] or 0), blobs)

    def send(self, debate_id: str) -> None:
        last, known = self.sent.get(debate_id, (0, set()))
        piece, last = export_since(self, debate_id, last, known, rounds=False)
        known |= set(piece["blobs"])
        self.sent[debate_id] = (last, known)
        self.pending.append(self.journal.put.remote(debate_id, piece))

    def final(self, debate_id: str) -> dict[str, Any]:
        """The debate's end for the driver: its row, its rounds, and what the journal has not had."""
        last, known = self.sent.get(debate_id, (0, set()))
        return export_since(self, debate_id, last, known)[0]

    async def settle(self) -> None:
        """Wait until the journal has every call sent (before the task returns)."""
        pending, self.pending = self.pending, []
        if pending:
            await asyncio.gather(*pending)


class Drain:
    """The driver's side: the journal's pieces into the batch's store, oldest first."""

    def __init__(self, ray: Any, journal: Any, store: Store) -> None:
        self.ray, self.journal, self.store = ray, journal, store
        self.after = 0
        self.stored = 0  # pieces stored by this driver
        self.seconds = 0.0  # time spent storing them (the benchmark's merge time)

    async def run(self) -> int:
        """Store every piece the journal holds now; how many there were."""
        total = 0
        while True:
            batch: Sequence[tuple[int, dict[str, Any]]] = await asyncio.to_thread(
                self.ray.get, self.journal.take.remote(self.after)
            )
            if not batch:
                return total
            t0 = time.perf_counter()
            import_intact(self.store, [piece for _, piece in batch])
            self.seconds += time.perf_counter() - t0
            self.after = batch[-1][0]
            self.journal.ack.remote(self.after)
            total += len(batch)
            self.stored += len(batch)
