"""`--max-cost` for a whole batch: what every debate of the batch may spend together, earlier runs included.

The rule: a debate starts only when its worst case (every round at every judge's output bound, priced
as `--dry-run` prices it) fits under the cap beside what the batch has spent and what the debates
already running have reserved. That worst case becomes the debate's own cap, so its round gates stop
it before it could take more. A debate that does not fit waits for running ones to end and free their
reservations (they usually spend far less than their worst case); when nothing is running and it still
does not fit, it is not started and its item fails saying so. So the batch never crosses the cap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping


def fits(settled: float, reserved: float, worst: float, cap: float) -> bool:
    return settled + reserved + worst <= cap + 1e-12


class CostCap:
    def __init__(self, cap: float, spent: Mapping[str, float] | None = None) -> None:
        """`spent`: what each debate of the batch spent before this run."""
        self.cap = cap
        self._prior = dict(spent or {})
        self.settled = sum(self._prior.values())  # spent by the batch's debates that are not running
        self.reserved: dict[str, float] = {}  # debate id -> its own cap while it runs
        self._changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def reserve(self, debate_id: str, worst: float) -> float | None:
        """Wait until the debate fits; returns its own cap (its earlier spend plus `worst`), or None when
        it cannot fit even with no other debate running."""
        prior = self._prior.pop(debate_id, 0.0)
        self.settled -= prior  # a resumed debate's earlier spend moves into its reservation
        need = prior + worst
        async with self._condition():
            while not fits(self.settled, sum(self.reserved.values()), need, self.cap):
                if not self.reserved:
                    self.settled += prior
                    self._prior[debate_id] = prior
                    return None
                await self._condition().wait()
            self.reserved[debate_id] = need
        return need

    async def release(self, debate_id: str, spent: float) -> None:
        """The debate ended (or stopped): what it actually spent replaces its reservation."""
        async with self._condition():
            if self.reserved.pop(debate_id, None) is not None:
                self.settled += spent
            self._condition().notify_all()

    def remaining(self) -> float:
        return max(0.0, self.cap - self.settled - sum(self.reserved.values()))
