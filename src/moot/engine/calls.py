"""What one call is to the engine: the retry policy every judge shares, the outcome a call ends in, and a
stored call read back as the outcome it was (a replay), when it answers the same question."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from moot.schemas.messages import Prompt, Usage
from moot.store.db import CallRecord


@dataclass(frozen=True)
class RetryPolicy:
    """One policy for every judge: exponential backoff with full jitter, honouring Retry-After."""

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0
    retry_timeouts: bool = False

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None and retry_after >= 0:
            # never earlier than the vendor asked; a little later at random, so judges do not return in a herd
            return min(retry_after * random.uniform(1.0, 1.1), self.max_delay)
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


@dataclass
class CallOutcome:
    ok: bool
    text: str = ""
    status: str = "ok"  # "ok" | "timeout" | "error"
    error: str = ""
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0
    latency_s: float = 0.0
    retries: int = 0
    answered_by: str = ""
    replayed: bool = False
    structured: str = ""  # the form the reply schema went in (json_schema, json_object, off)
    finish_reason: str = ""


def same_question(r: CallRecord, prompt: Prompt) -> bool:
    """The conversation is compared, not the request around it: an output bound or reply schema set
    differently on resume (`--max-cost`) does not change what the judge was asked."""
    try:
        asked = json.loads(r.prompt_json)
    except ValueError:
        return False
    return (
        isinstance(asked, dict)
        and asked.get("system") == prompt.system
        and asked.get("messages") == [m.model_dump(mode="json") for m in prompt.messages]
    )


def outcome_from_record(r: CallRecord) -> CallOutcome:
    """A stored call as the outcome it was: replayed, not paid for again."""
    return CallOutcome(
        ok=r.status == "ok",
        text=r.reply or "",
        status=r.status,
        error=r.error or "",
        usage=Usage.model_validate(r, from_attributes=True),
        cost_usd=r.cost_usd,
        latency_s=r.latency_s,
        retries=r.retries,
        answered_by=r.answered_by,
        replayed=True,
        structured=r.structured,
        finish_reason=r.finish_reason,
    )
