"""A judge's vote, declared once: the JSON schema sent, the template the prompt shows and the parser's
validation all come from `VoteReply` (see `moot.parsing.replies`)."""

from __future__ import annotations

from typing import Any

from pydantic import field_validator

from moot.parsing.extract import ReplyError, as_bool
from moot.parsing.replies import ReplyModel, Text, reply_field
from moot_toy.schemas import Answer


class VoteReply(ReplyModel):
    """`answer: yes|no` (true/false accepted) and a reason."""

    quote_words = False  # the template shows `answer: yes or no`, bare as a judge would write it

    answer: Answer = reply_field(example="yes or no", default=None, validate_default=True)
    reason: Text = reply_field(example="why", default="")

    @field_validator("answer", mode="before")
    @classmethod
    def _yes_or_no(cls, value: Any) -> str:
        """YAML reads a bare yes as true: either way, the answer is the word."""
        said = as_bool(value)
        if said is None:
            raise ReplyError("`answer` must be yes or no")
        return "yes" if said else "no"
