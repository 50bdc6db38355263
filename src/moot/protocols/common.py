"""Pieces every protocol shares: running a round's calls concurrently, ids, stored requests."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

T = TypeVar("T")


async def concurrently(calls: Sequence[Awaitable[T]]) -> list[T]:
    """Await all calls of a round at once (structured: if one raises, the others are cancelled).

    Judge failures do not raise (the engine returns them as outcomes), so in practice every call ends.
    """
    async with asyncio.TaskGroup() as tg:
        tasks = [tg.create_task(_wrap(c)) for c in calls]
    return [t.result() for t in tasks]


async def _wrap(c: Awaitable[T]) -> T:
    return await c


def new_debate_id() -> str:
    return str(uuid.uuid4())


def storable(request: BaseModel) -> dict[str, Any]:
    """A request as it may be written to the store: every literal API key removed."""
    data = request.model_dump(mode="json")

    def scrub(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: (None if k == "api_key" else scrub(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [scrub(v) for v in node]
        return node

    return scrub(data)  # type: ignore[no-any-return]
