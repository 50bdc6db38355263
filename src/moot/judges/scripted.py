"""A judge that replays replies from a script: for the demo, for docs, and for users' own tests.

The script is a list (replies in order) or a mapping keyed by round ("1", "2", "2-clarify", ...), each
reply a string or a mapping with `text` and optionally `delay` (seconds) or `error`
("timeout" | "transient" | "error"). It records every prompt it was asked and fails loudly when its
script runs out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from moot.access import check_read
from moot.errors import JudgeError, JudgeTimeout, TransientJudgeError, UsageError
from moot.schemas.messages import SCRIPTED_JUDGE, Completion, Prompt, Usage


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class ScriptedJudge:
    provider = "scripted"

    def __init__(self, replies: Sequence[Any] | Mapping[str, Any], *, model: str = "scripted") -> None:
        self.model = model
        self.replies = replies
        self.asked: list[Prompt] = []
        self._next = 0

    @classmethod
    def from_file(cls, path: str | Path, *, model: str = "scripted") -> ScriptedJudge:
        check_read(path)
        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except OSError as e:
            raise UsageError(f"script file {path}: {e.strerror}") from None
        except yaml.YAMLError as e:
            raise UsageError(f"script file {path} is not valid YAML: {str(e).splitlines()[0]}") from None
        if isinstance(data, dict) and "replies" in data:
            data = data["replies"]
        if not isinstance(data, list | dict) or not data:
            raise UsageError(f"script file {path} holds no replies")
        return cls(data, model=model)

    @property
    def position(self) -> int | None:
        """The index of the next reply of a list (None for a mapping keyed by round, which has no place)."""
        return None if isinstance(self.replies, Mapping) else self._next

    @position.setter
    def position(self, value: int) -> None:
        self._next = value

    def _pick(self, prompt: Prompt) -> Any:
        if isinstance(self.replies, Mapping):
            round_no = prompt.meta.get("round")
            kind = prompt.meta.get("kind")
            for key in (f"{round_no}-{kind}", str(round_no), str(kind)):
                if key in self.replies:
                    return self.replies[key]
            raise JudgeError(f"scripted judge '{self.model}' has no reply for round {round_no} ({kind})")
        if self._next >= len(self.replies):
            raise JudgeError(
                f"scripted judge '{self.model}' ran out of replies after {len(self.replies)} "
                f"(asked {len(self.asked)} times)"
            )
        reply = self.replies[self._next]
        self._next += 1
        return reply

    async def complete(self, prompt: Prompt, *, timeout: float) -> Completion:
        self.asked.append(prompt)
        reply = self._pick(prompt)
        delay = 0.0
        if isinstance(reply, Mapping):
            delay = float(reply.get("delay", 0))
            error = reply.get("error")
            if delay > timeout or error == "timeout":
                await asyncio.sleep(min(delay, timeout))
                raise JudgeTimeout(f"no reply within {timeout:g}s")
            if delay:
                await asyncio.sleep(delay)
            if error == "transient":
                raise TransientJudgeError("scripted transient error", retry_after=reply.get("retry_after"))
            if error:
                raise JudgeError(str(error))
            text = str(reply.get("text", ""))
        else:
            text = str(reply)
        prompt_text = prompt.as_text()
        return Completion(
            text=text,
            usage=Usage(input_tokens=_tokens(prompt_text), output_tokens=_tokens(text)),
            model=SCRIPTED_JUDGE,
            provider=self.provider,
        )

    async def aclose(self) -> None:
        return None
