"""The reply machinery's plain examples (issue 32, the rubric writer's reply): an example that reads as a
reply one could send (bare texts, descriptions as placeholders, comments in one column), list entries
described where they are declared, and the parser's own length checks sent as the schema's bounds."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field

from moot.parsing.extract import ReplyError
from moot.parsing.replies import ReplyModel, Text, items, read_reply, reply_example, reply_field, reply_schema


class Step(ReplyModel):
    plain_example = True

    title: Annotated[str, Field(min_length=1, max_length=40)] = reply_field("a short title", example="deploy")
    detail: str = reply_field("what to do, concretely", default="")


class Plan(ReplyModel):
    plain_example = True
    comment_column = 16

    steps: Annotated[list[Step], Field(min_length=2, max_length=5)] = reply_field("the steps", comment="2 to 5 steps")
    risks: list[Annotated[Text, reply_field("one risk")]] = reply_field("the risks", comment="any")
    owner: Text = reply_field("who owns it", comment="one name")


class Quoted(ReplyModel):
    note: Text = reply_field("a note", comment="free text")
    tags: Annotated[list[Annotated[str, Field(max_length=9)]], items(4)] = reply_field("tags")


def test_a_plain_example_reads_as_a_reply_with_its_comments_in_one_column() -> None:
    assert reply_example(Plan) == (
        "steps:          # 2 to 5 steps\n"
        "  - title: deploy\n"
        "    detail: what to do, concretely\n"
        "risks:          # any\n"
        "  - one risk\n"
        "owner: who owns it  # one name"  # a line past the column: two spaces before its comment
    )
    # the default style is unchanged: quoted placeholders in braces, the comment two spaces after the value
    assert reply_example(Quoted) == 'note: "{a note}"  # free text\ntags:\n  - "{tags}"'


def test_the_parsers_length_checks_are_the_schemas_bounds_and_a_list_entry_carries_its_description() -> None:
    props = reply_schema(Plan)["properties"]
    assert (props["steps"]["minItems"], props["steps"]["maxItems"]) == (2, 5)
    title = props["steps"]["items"]["properties"]["title"]
    assert title == {"type": "string", "description": "a short title", "maxLength": 40}  # no minLength: the parser's
    assert props["risks"]["items"] == {"type": "string", "description": "one risk", "maxLength": 300}
    # a Bound (items(4)) says what the schema asks even where pydantic checks something else; a list entry's
    # own Field(max_length=...) bounds the entry
    tags = reply_schema(Quoted)["properties"]["tags"]
    assert tags["maxItems"] == 4 and tags["items"]["maxLength"] == 9


def test_the_parser_checks_what_the_schema_asks() -> None:
    good = "steps:\n  - title: build\n  - title: ship\nrisks: []\nowner: ana\n"
    assert [s.title for s in read_reply(Plan, good).steps] == ["build", "ship"]
    with pytest.raises(ReplyError, match=r"steps.*at least 2"):
        read_reply(Plan, "steps:\n  - title: build\nowner: ana\n")
    with pytest.raises(ReplyError, match=r"title.*at most 40"):
        read_reply(Plan, "steps:\n  - title: " + "x" * 41 + "\n  - title: ship\nowner: ana\n")
