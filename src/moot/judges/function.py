"""A judge backed by a Python function: for people's own tests and for plugging in anything else."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable

from moot.schemas.messages import SCRIPTED_JUDGE, Completion, Prompt

ReplyFunction = Callable[[Prompt], str | Awaitable[str]]


class FunctionJudge:
    provider = "function"

    def __init__(self, fn: ReplyFunction, *, model: str | None = None) -> None:
        self.fn = fn
        self.model = model or getattr(fn, "__name__", "function")
        self.asked: list[Prompt] = []

    async def complete(self, prompt: Prompt, *, timeout: float) -> Completion:
        self.asked.append(prompt)
        result = self.fn(prompt)
        if inspect.isawaitable(result):
            result = await result
        return Completion(text=str(result), model=SCRIPTED_JUDGE, provider=self.provider)

    async def aclose(self) -> None:
        return None
