"""The judge interface and the seat a judge takes on a panel."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from moot.schemas.messages import Completion, Prompt


@runtime_checkable
class Judge(Protocol):
    """Anything that answers a prompt.

    Implementations raise `moot.errors.JudgeError` (or its subclasses `TransientJudgeError` and
    `JudgeTimeout`) on failure and do no retrying of their own: retries, timeouts, rate limits and
    accounting wrap every judge once, in the engine.
    """

    provider: str  # groups judges for rate limits and prices ("openai", "xai", "scripted", ...)
    model: str  # the model name as sent to the provider

    async def complete(self, prompt: Prompt, *, timeout: float) -> Completion: ...

    async def aclose(self) -> None: ...


@dataclass
class Seat:
    """A place on a panel: who sits there (a judge, then its fallbacks), with which stance.

    `id` is stable for the whole debate ("judge-1", "risk", "challenger-2") and is what results,
    reports and the store use to name the participant.
    """

    id: str
    number: int
    label: str  # the configured model, or a name
    stance: str
    stance_prompt: str
    judges: list[Judge]
    timeout: float = 120.0
    spec: dict[str, object] = field(default_factory=dict)  # public (secret-free) configuration

    @property
    def judge(self) -> Judge:
        return self.judges[0]

    @property
    def title(self) -> str:
        return f"{self.id} ({self.label}, {self.stance})"
