"""What a judge is asked and what it answers, independent of vendor."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Role = Literal["user", "assistant"]


class Message(BaseModel):
    role: Role
    content: str


class Prompt(BaseModel):
    """One request to a judge.

    `system` is the stable prefix (instructions, rubric, artifact) shared by every judge and round of a
    debate, so that vendors' prompt caching applies; what differs per judge and round goes in `messages`.
    """

    system: str
    messages: list[Message]
    json_schema: dict[str, Any] | None = None
    max_tokens: int | None = None
    # Where this prompt sits in a debate ("round": 2, "kind": "clarify", ...). Never sent to a model;
    # scripted judges use it to pick their reply, so that a resumed debate gets the same replies.
    meta: dict[str, Any] = Field(default_factory=dict)
    # the debate's sampling options (`seed`, `temperature`, ...), over the judge's own: sent in the request
    # in the vendor's form, never stored with the call
    sampling: dict[str, Any] = Field(default_factory=dict)

    def followed_by(self, assistant_reply: str, user_text: str) -> Prompt:
        """The same conversation, continued: used to ask a judge to fix a reply it just gave."""
        return self.model_copy(
            update={
                "messages": [
                    *self.messages,
                    Message(role="assistant", content=assistant_reply),
                    Message(role="user", content=user_text),
                ]
            }
        )

    def as_text(self) -> str:
        """The whole prompt as one text, for judges that take a single string (agent CLIs)."""
        parts = [self.system]
        for m in self.messages:
            parts.append(m.content if m.role == "user" else f"[your previous reply]\n{m.content}")
        return "\n\n".join(parts)


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0  # input read from the vendor's prompt cache (part of input_tokens)
    reasoning_tokens: int = 0
    # input written to the prompt cache (part of input_tokens): Anthropic bills it above the input rate
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


# What a scripted or function judge reports as the model that answered: no model did, and a result must not
# claim that the model such a judge stands in for (the demo's gemini-3-pro-preview, ...) gave its replies.
SCRIPTED_JUDGE = "scripted judge"


class Completion(BaseModel):
    """A judge's answer to one prompt."""

    text: str
    usage: Usage = Field(default_factory=Usage)
    model: str = ""  # the model that actually answered, as the vendor reports it
    provider: str = ""
    structured: str = ""  # the form the reply schema was sent in (json_schema, json_object, off); "" if none
    finish_reason: str = ""  # as the vendor reports it: "length" is a reply cut off at its output bound


# the names the docs send users to (tests/test_public_surface.py pins them)
__all__ = ["Completion", "Message", "Prompt", "Usage"]
