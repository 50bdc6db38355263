"""The position challenge keeps each reply as its declared reply model: a field added to the declaration
reaches what the debate keeps, and a reply built by code obeys the rules a parsed one does."""

from __future__ import annotations

from typing import Literal

import pytest
from pydantic import ValidationError

from moot.parsing.replies import reply_field
from moot.protocols.challenge import replies
from moot.protocols.challenge.parsing import parse_challenge
from moot.protocols.challenge.schemas import Challenge


class VerdictWithSeverity(replies.VerdictReply):
    severity: Literal["cosmetic", "fatal"] = reply_field()


def test_a_field_added_to_the_reply_reaches_the_validated_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(replies.PHASES, "challenge", VerdictWithSeverity)
    kept = parse_challenge(
        '{"verdict": "disagree", "objection_strength": "major", "objections": ["x"], "severity": "fatal"}'
    )
    assert isinstance(kept, Challenge) and isinstance(kept, VerdictWithSeverity)
    assert (kept.verdict, kept.objection_strength, kept.severity) == ("disagree", "strong", "fatal")


def test_a_verdict_built_by_code_follows_the_parsers_rules() -> None:
    assert Challenge(verdict="agree").objection_strength == "minor"  # nothing to weigh
    assert Challenge(verdict="partial", objection_strength="weak", objections=["x"]).objection_strength == "minor"
    with pytest.raises(ValidationError, match="objection_strength must be one of minor \\| strong \\(got None\\)"):
        Challenge(verdict="disagree", objections=["x"])
    with pytest.raises(ValidationError, match="objection_strength must be one of minor \\| strong \\(got ''\\)"):
        Challenge(verdict="agree", objection_strength="", objections=["x"])
    with pytest.raises(ValidationError, match="a 'partial' verdict needs at least one entry in 'objections'"):
        Challenge(verdict="partial", objection_strength="strong")
