"""A word set is declared once (`moot.schemas.words.Words`): its words, their synonyms and what each means.
A word added without its meaning is refused where it is declared, rather than silently left out of a
status or a chart; the confidence words (HIGH, MEDIUM, LOW) are one set that the kernel and every protocol
read."""

from __future__ import annotations

from typing import Any, Literal, get_args

import pytest

from moot.protocol import ReplyError
from moot.protocol.effect import stated_level
from moot.protocols.challenge import html as challenge_html
from moot.protocols.challenge.replies import REBUTTAL_WORDS, VERDICT_WORDS, challenge_reply_schema, match_word
from moot.protocols.decide.replies import decide_reply_schema
from moot.protocols.evaluate.replies import evaluate_reply_schema
from moot.schemas import reply_schemas
from moot.schemas.envelope import VerdictConfidence
from moot.schemas.words import CONFIDENCE, Meaning, Words

Said = Literal["agree", "partial", "disagree", "abstain"]


def test_a_word_without_its_meaning_is_refused_where_it_is_declared() -> None:
    meanings = {"agree": Meaning("agreed", 3), "partial": Meaning("partial", 2), "disagree": Meaning("disagreed", 1)}
    with pytest.raises(ValueError, match="abstain"):
        Words.of(Said, meanings=meanings, upper=False)
    with pytest.raises(ValueError, match="maybe"):
        Words.of(Said, {"maybe": "unsure"}, upper=False)  # type: ignore[dict-item]
    said = Words.of(Said, {"pass": "abstain"}, {**meanings, "abstain": Meaning("abstained", 2)}, upper=False)
    assert (said.read("Pass"), said.status("abstain"), said.level("abstain")) == ("abstain", "abstained", 2)


def _enums(node: Any) -> list[list[str]]:
    """Every enum of a JSON schema whose words are confidence words."""
    found: list[list[str]] = []
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list) and "MEDIUM" in node["enum"]:
            found.append(node["enum"])
        for value in node.values():
            found += _enums(value)
    elif isinstance(node, list):
        for value in node:
            found += _enums(value)
    return found


def test_the_confidence_words_are_one_set_for_the_kernel_and_every_protocol() -> None:
    words = list(CONFIDENCE.words)
    assert words == ["HIGH", "MEDIUM", "LOW"]
    assert list(reply_schemas.CONFIDENCE) == words
    assert list(get_args(VerdictConfidence)) == [*words, "REQUIRES_INPUT"]
    assert [stated_level(f"{w.lower()} I think") for w in words] == words
    schemas = [
        evaluate_reply_schema(["c"], phase="round_1", open_findings=[], require_acceptance=False),
        decide_reply_schema(["A", "B"], round_no=1),
        challenge_reply_schema("opening"),
    ]
    for schema in schemas:
        assert _enums(schema) and all(enum == words for enum in _enums(schema)), schema
    assert match_word("med", CONFIDENCE, "confidence") == "MEDIUM"  # a synonym, declared with the set


def test_challenges_words_give_its_statuses_and_its_chart_levels() -> None:
    """Every verdict and rebuttal word has its status and its level on the chart, read from its declaration."""
    for words in (VERDICT_WORDS, REBUTTAL_WORDS):
        for word in words.words:
            meaning = words.meaning(word)
            assert meaning.status and meaning.level is not None
            assert challenge_html._level(word.upper()) == meaning.level
    assert challenge_html._level("ABSTAIN") is None


def test_evaluates_answers_to_a_finding_are_one_set_for_schema_parser_and_synthesis() -> None:
    """The words a judge answers a CRITICAL finding with: the schema's enum (withdraw for its own finding
    only), what the parser reads (synonyms included), and the moderator's words for each answer."""
    from moot.protocols.evaluate import parsing
    from moot.protocols.evaluate.replies import finding_answers
    from moot.protocols.evaluate.schemas import RESPONSES

    own = finding_answers([("C1", True), ("C2", False)]).model_json_schema()["properties"]
    assert _enums_of(own["C1"]) == list(RESPONSES.words) == ["accept", "reject", "withdraw"]
    assert _enums_of(own["C2"]) == ["accept", "reject"]
    read = parsing._responses({"critical_responses": {"c1": "Agreed", "C2": "dispute"}})
    assert read == {"C1": "accept", "C2": "reject"}
    with pytest.raises(ReplyError, match="is not one of accept, reject, withdraw"):
        parsing._responses({"critical_responses": {"C2": "maybe"}})
    assert [RESPONSES.status(w) for w in RESPONSES.words] == ["accepts it", "rejects it", "withdraws it"]


def _enums_of(node: Any) -> list[str]:
    found = [e for enum in _all_enums(node) for e in enum]
    return list(dict.fromkeys(found))


def _all_enums(node: Any) -> list[list[str]]:
    out: list[list[str]] = []
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            out.append(node["enum"])
        for value in node.values():
            out += _all_enums(value)
    elif isinstance(node, list):
        for value in node:
            out += _all_enums(value)
    return out


def test_evaluates_parser_refuses_a_field_name_its_replies_do_not_declare() -> None:
    """The parser reads a reply's fields by the names the declared replies give them: a misspelt name is an
    error where it is read, not a field silently read as empty."""
    from moot.protocols.evaluate.parsing import reading_keys

    assert reading_keys("change_reason") == ("change_reason",)
    with pytest.raises(KeyError, match="change_reasn"):
        reading_keys("change_reasn")
