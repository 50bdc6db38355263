"""The reply machinery (moot.parsing.replies): one pydantic model gives the schema sent, the prompt's
example and the parser's validation."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest

from moot.parsing.extract import ReplyError
from moot.parsing.replies import (
    Count,
    Flag,
    LongText,
    ReplyModel,
    Required,
    Score,
    Text,
    items,
    one_of,
    read_reply,
    reply_example,
    reply_field,
    reply_schema,
    specialize,
    word,
)
from moot.schemas.reply_bounds import fit, portable
from moot.schemas.reply_schemas import LONG, SCORE_STEPS, SHORT


class Point(ReplyModel):
    claim: Text = reply_field(default="")
    strength: Literal["weak", "strong"] = reply_field(default="weak")


class Sample(ReplyModel):
    verdict: Literal["agree", "disagree"] = reply_field("your answer", aliases=("answer",))
    score: Score = reply_field(default=3)
    summary: Annotated[LongText, Required] = reply_field("what you found", block=True)
    points: Annotated[list[Point], items(2, min_items=1)] = reply_field(default_factory=list)
    notes: list[Text] = reply_field(default_factory=list, example="{a note}")
    done: bool = reply_field(default=False)


def test_the_schema_carries_the_bounds_in_the_enforced_shape_and_drops_them_in_the_portable_one() -> None:
    schema = reply_schema(Sample)
    props = schema["properties"]
    assert list(props) == ["verdict", "score", "summary", "points", "notes", "done"]
    assert schema["required"] == list(props) and schema["additionalProperties"] is False
    assert props["verdict"] == {"type": "string", "enum": ["agree", "disagree"], "description": "your answer"}
    assert props["score"]["enum"] == list(SCORE_STEPS)
    assert (
        props["summary"]["maxLength"] == LONG and props["points"]["items"]["properties"]["claim"]["maxLength"] == SHORT
    )
    assert (props["points"]["minItems"], props["points"]["maxItems"]) == (1, 2)
    assert props["notes"]["maxItems"] == 3  # the default list bound
    loose = portable(schema)["properties"]
    assert "enum" not in loose["score"] and "maxLength" not in loose["summary"] and "maxItems" not in loose["points"]
    assert loose["verdict"]["enum"] == ["agree", "disagree"]  # words stay an enum: every vendor takes a string enum
    assert fit(schema, 200)["properties"]["summary"]["maxLength"] < LONG  # the bound shrinks to fit the call


def test_the_example_shows_every_field_with_its_placeholder_or_the_value_given() -> None:
    assert reply_example(Sample) == "\n".join(
        [
            'verdict: "agree|disagree"',
            "score: {...}",
            "summary: |",
            "  {what you found}",
            "points:",
            '  - claim: "{...}"',
            '    strength: "weak|strong"',
            "notes:",
            '  - "{a note}"',
            "done: true|false",
        ]
    )
    shown = reply_example(Sample, {"points": [{"claim": "c1"}, {"claim": "c2"}], "notes": []})
    assert '  - claim: "c1"\n    strength: "weak|strong"\n  - claim: "c2"' in shown
    assert "notes:\n  []" in shown


def test_the_parser_validates_with_the_model_leniently() -> None:
    reply = read_reply(Sample, "Here:\n```yaml\nanswer: agree\nverdict: ''\nsummary: [a, b]\nscore: 4/5\n```")
    assert (reply.verdict, reply.summary, reply.score) == ("agree", "- a\n- b", 4.0)  # alias, prose, "4/5"
    with pytest.raises(ReplyError, match="the reply has no `summary`"):
        read_reply(Sample, "verdict: disagree\nsummary: ''")
    with pytest.raises(ReplyError, match="verdict is invalid"):
        read_reply(Sample, "verdict: maybe\nsummary: s")


def test_a_specialization_changes_schema_example_and_parser_together() -> None:
    pick = specialize(Sample, "Pick", verdict=(one_of(["A", "B"]), reply_field("an option")))
    assert reply_schema(pick)["properties"]["verdict"]["enum"] == ["A", "B"]
    assert reply_example(pick).startswith('verdict: "A|B"')
    assert str(read_reply(pick, "verdict: B\nsummary: s").verdict) == "B"
    with pytest.raises(ReplyError):
        read_reply(pick, "verdict: agree\nsummary: s")


def test_a_field_left_out_leaves_schema_and_example_but_keeps_its_place_elsewhere() -> None:
    short = specialize(Sample, "Short", without=["score"])
    assert "score" not in reply_schema(short)["properties"] and "score:" not in reply_example(short)
    assert "score" not in reply_schema(specialize(short, "Again"))["properties"]  # stays out
    with pytest.raises(TypeError, match="needs a default"):
        specialize(Sample, "Bad", without=["summary"])


def test_a_specialization_is_built_once_for_the_same_arguments() -> None:
    """A debate asks for the same shapes for every judge and round (a batch for every item): the model is
    built once; other options, another declaration or another field left out make a model of their own."""

    def pick(options: list[str], about: str = "an option") -> type[Sample]:
        return specialize(Sample, "Pick", verdict=(one_of(options), reply_field(about)))

    assert pick(["A", "B"]) is pick(["A", "B"])
    assert pick(["A", "C"]) is not pick(["A", "B"])
    assert reply_schema(pick(["A", "C"]))["properties"]["verdict"]["enum"] == ["A", "C"]
    chosen = pick(["A", "B"], "the option you choose")
    assert chosen is not pick(["A", "B"])
    assert reply_schema(chosen)["properties"]["verdict"]["description"] == "the option you choose"
    assert specialize(Sample, "Short", without=["score"]) is specialize(Sample, "Short", without=("score",))
    assert "score" in reply_schema(specialize(Sample, "Short"))["properties"]


def test_schema_example_and_fit_are_derived_once_and_each_caller_gets_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every judge of every round asks for the same schema, template and fitted schema: each is derived once,
    and what one caller does to its copy never reaches the next."""
    from moot.parsing import replies

    class Fresh(ReplyModel):
        pick: Literal["A", "B"] = reply_field("an option")
        why: Text = reply_field("the reason", default="")

    first = reply_schema(Fresh)
    first["properties"]["pick"]["enum"].append("C")
    fitted = fit(reply_schema(Fresh), 64)
    fitted["properties"].clear()
    example = reply_example(Fresh, {"why": "because"})
    derived: list[object] = []
    monkeypatch.setattr(replies, "_field_schema", lambda info: derived.append(info))
    monkeypatch.setattr(replies, "_yaml_fields", lambda *a: derived.append(a))
    assert reply_schema(Fresh)["properties"]["pick"]["enum"] == ["A", "B"]
    assert set(fit(reply_schema(Fresh), 64)["properties"]) == {"pick", "why"}
    assert reply_example(Fresh, {"why": "because"}) == example == 'pick: "A|B"\nwhy: "because"'
    assert derived == []  # none of it derived again


class Loose(ReplyModel):
    level: Annotated[Text, word("HIGH", "LOW")] = reply_field(default="")
    changed: Flag = reply_field(default=None)
    n: Count = reply_field(default=None)
    pick: Text = reply_field("one option", aliases=("choice",), default="")


def test_lenient_words_flags_counts_and_a_retyped_field_keeping_its_declaration() -> None:
    assert reply_schema(Loose)["properties"]["level"] == {"type": "string", "enum": ["HIGH", "LOW"]}
    assert reply_example(Loose).splitlines()[:2] == ['level: "HIGH|LOW"', "changed: true|false"]
    reply = read_reply(Loose, "level: medium\nchanged: maybe\nn: two\nchoice: B")
    assert (reply.level, reply.changed, reply.n, reply.pick) == ("medium", None, None, "B")  # never refused
    narrowed = specialize(Loose, "Narrowed", pick=one_of(["A", "B"]))
    assert reply_schema(narrowed)["properties"]["pick"] == {
        "type": "string",
        "enum": ["A", "B"],
        "description": "one option",
    }
    assert str(read_reply(narrowed, "choice: A").pick) == "A"  # the alias carried over
    with pytest.raises(ReplyError, match="pick is invalid"):
        read_reply(narrowed, "pick: C")
