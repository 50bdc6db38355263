"""The reply schemas (moot.schemas.reply_schemas): the portable subset of JSON Schema, and every reply
they allow is accepted by the parsers. Also a tiny validator and instance builder, used by the e2e tests."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
import yaml

from moot.parsing.extract import ReplyError, extract_mapping
from moot.protocols.challenge.calls import challenge_reply_schema
from moot.protocols.challenge.parsing import (
    parse_assumptions,
    parse_challenge,
    parse_confrontation,
    parse_opening,
    parse_rebuttal,
)
from moot.protocols.challenge.replies import assumptions_schema
from moot.protocols.decide.replies import ReplyRules, decide_reply_schema, parse_stance_reply
from moot.protocols.decide.schemas import DecisionOption
from moot.protocols.evaluate.criteria import Criterion
from moot.protocols.evaluate.moderator import parse_moderator as _parse_moderator
from moot.protocols.evaluate.parsing import parse_scored_reply
from moot.protocols.evaluate.replies import evaluate_reply_schema, moderator_reply_schema
from moot.protocols.evaluate.schemas import CriticalFinding, ScoredPosition
from moot.schemas.reply_bounds import GRAMMAR_MAX_LENGTH, capped, fit, portable, worst_tokens
from moot.schemas.reply_schemas import SCORE_STEPS

from . import challenge_helpers
from .replies import KEYS, round1

Path = tuple[str, ...]

FORBIDDEN = {"$ref", "oneOf", "anyOf", "allOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
TYPES = {"object", "array", "string", "number", "integer", "boolean"}


def errors(value: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Why `value` does not follow `schema` (empty when it does)."""
    t = schema["type"]
    ok = {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "string": isinstance(value, str),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
    }[t]
    if not ok:
        return [f"{path}: expected {t}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {value!r} not in {schema['enum']}"]
    out: list[str] = []
    if t == "object":
        props = schema["properties"]
        out += [f"{path}: missing {k}" for k in schema.get("required", []) if k not in value]
        if schema.get("additionalProperties") is False:
            out += [f"{path}: unexpected {k}" for k in value if k not in props]
        for k, v in value.items():
            if k in props:
                out += errors(v, props[k], f"{path}.{k}")
    if t == "array":
        for i, item in enumerate(value):
            out += errors(item, schema["items"], f"{path}[{i}]")
    return out


def subset_problems(schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Where `schema` leaves the subset every vendor accepts (see moot.schemas.reply_schemas)."""
    out = [f"{path}: uses {k}" for k in FORBIDDEN & set(schema)]
    t = schema.get("type")
    if t not in TYPES:
        out.append(f"{path}: type {t!r}")
    if "enum" in schema and (not schema["enum"] or t != "string"):
        out.append(f"{path}: enum must be a non-empty list of strings")
    if t == "object":
        props = schema.get("properties")
        if not props:
            out.append(f"{path}: an object without properties")
            return out
        if schema.get("additionalProperties") is not False:
            out.append(f"{path}: additionalProperties is not false")
        if schema.get("required") != list(props):
            out.append(f"{path}: not every property is required")
        for k, v in props.items():
            out += subset_problems(v, f"{path}.{k}")
    if t == "array":
        out += subset_problems(schema["items"], f"{path}[]")
    return out


def enum_paths(schema: Mapping[str, Any], path: Path = ()) -> Iterator[tuple[Path, list[str]]]:
    """Every place an enum sits, with its values ("[]" stands for an array's item)."""
    if "enum" in schema:
        yield path, list(schema["enum"])
    if schema["type"] == "object":
        for k, v in schema["properties"].items():
            yield from enum_paths(v, (*path, k))
    if schema["type"] == "array":
        yield from enum_paths(schema["items"], (*path, "[]"))


def instance(schema: Mapping[str, Any], pick: Mapping[Path, Any] | None = None, path: Path = ()) -> Any:
    """A value that follows `schema`: every property, one item per array, the first enum value, score 4.

    `pick` overrides the value at given paths (e.g. {("verdict",): "disagree"}).
    """
    pick = pick or {}
    if path in pick:
        return pick[path]
    if "enum" in schema:
        return schema["enum"][0]
    t = schema["type"]
    if t == "object":
        return {k: instance(v, pick, (*path, k)) for k, v in schema["properties"].items()}
    if t == "array":
        return [instance(schema["items"], pick, (*path, "[]"))]
    return {"string": "a specific, evidenced statement", "number": 4.0, "integer": 1, "boolean": False}[t]


def variants(schema: Mapping[str, Any]) -> Iterator[tuple[Path, str, Any]]:
    """One instance per enum value at each enum's place, the rest as in `instance`."""
    for path, values in enum_paths(schema):
        for value in values:
            yield path, value, instance(schema, {path: value})


# ---------------------------------------------------------------- the tests

CRITERIA = [Criterion(name=k, weight=w) for k, w in zip(KEYS, (0.3, 0.25, 0.2, 0.15, 0.1), strict=True)]
OPTIONS = [DecisionOption(id="A", label="Online only"), DecisionOption(id="B"), DecisionOption(id="C")]
OPEN = [CriticalFinding(id="C1", finding="no auth", raised_by="judge-2", round=1)]
MINE = [CriticalFinding(id="C2", finding="no tests", raised_by="judge-1", round=1)]
PREVIOUS = ScoredPosition(judge="judge-1", round=1, overall_score=3.0, dimension_scores={k: 3.0 for k in KEYS})


def every_schema() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("evaluate round 1", evaluate_reply_schema(KEYS, phase="round_1")),
        ("evaluate rebuttal", evaluate_reply_schema(KEYS, phase="rebuttal")),
        (
            "evaluate rebuttal, findings open, acceptance asked",
            evaluate_reply_schema(
                KEYS, phase="rebuttal", open_findings=[("C1", False), ("C2", True)], require_acceptance=True
            ),
        ),
        ("evaluate final", evaluate_reply_schema(KEYS, phase="final", open_findings=[("C1", False)])),
        ("moderator", moderator_reply_schema(["judge-1", "judge-2"])),
        ("moderator, no judges named", moderator_reply_schema([])),
        ("decide round 1", decide_reply_schema(["A", "B", "C"], round_no=1)),
        ("decide round 2", decide_reply_schema(["A", "B", "C"], round_no=2, others=["value", "effort"])),
        ("decide round 2, alone", decide_reply_schema(["A", "B"], round_no=2)),
        ("opening", challenge_reply_schema("opening")),
        ("challenge", challenge_reply_schema("challenge")),
        ("confrontation", challenge_reply_schema("confront", objection_ids=["O1", "O2"])),
        ("confrontation, nothing to answer", challenge_reply_schema("confront")),
        ("rebuttal", challenge_reply_schema("rebuttal")),
        ("assumptions, proponent", challenge_reply_schema("assumptions", proponent=True)),
        ("assumptions, challenger", challenge_reply_schema("assumptions")),
    ]


@pytest.mark.parametrize(("name", "schema"), every_schema(), ids=[n for n, _ in every_schema()])
def test_every_schema_keeps_to_the_subset_all_three_vendors_accept(name: str, schema: dict[str, Any]) -> None:
    """What vendors' clouds are sent is the portable shape of each schema."""
    assert subset_problems(portable(schema)) == []
    assert schema["type"] == "object"
    json.dumps(schema)  # plain data, ready for any SDK
    assert errors(instance(schema), schema) == []  # the builder and the validator agree


def test_the_validator_catches_what_a_vendor_would_refuse() -> None:
    schema = challenge_reply_schema("challenge")
    good = instance(schema)
    assert errors({**good, "verdict": "maybe"}, schema) == [
        "$.verdict: 'maybe' not in ['agree', 'partial', 'disagree']"
    ]
    assert errors({k: v for k, v in good.items() if k != "reasoning"}, schema) == ["$: missing reasoning"]
    assert errors({**good, "extra": 1}, schema) == ["$: unexpected extra"]
    assert errors({**good, "objections": [3]}, schema) == ["$.objections[0]: expected string, got int"]
    assert subset_problems({"type": "object", "properties": {"x": {"type": "number", "minimum": 1}}}) == [
        "$: additionalProperties is not false",
        "$: not every property is required",
        "$.x: uses minimum",
    ]


def test_evaluate_schema_scores_exactly_the_requests_criteria() -> None:
    for phase in ("round_1", "rebuttal", "final"):
        dims = evaluate_reply_schema(["clarity", "risk_mitigation"], phase=phase)["properties"]["dimension_scores"]
        assert list(dims["properties"]) == dims["required"] == ["clarity", "risk_mitigation"]
        assert all(s["type"] == "number" and "1 to 5" in s["description"] for s in dims["properties"].values())
    assert "overall_score" in evaluate_reply_schema(KEYS, phase="round_1")["properties"]
    assert "new_score" in evaluate_reply_schema(KEYS, phase="rebuttal")["properties"]
    assert "final_score" in evaluate_reply_schema(KEYS, phase="final")["properties"]
    with pytest.raises(ValueError, match="unknown evaluation phase"):
        evaluate_reply_schema(KEYS, phase="round_4")


def test_evaluate_schema_asks_for_every_open_finding_and_lets_only_its_author_withdraw_it() -> None:
    plain = evaluate_reply_schema(KEYS, phase="rebuttal")["properties"]
    assert "critical_responses" not in plain and "accepts_consensus" not in plain
    props = evaluate_reply_schema(
        KEYS, phase="final", open_findings=[("C1", False), ("C2", True)], require_acceptance=True
    )["properties"]
    responses = props["critical_responses"]
    assert responses["required"] == ["C1", "C2"]
    assert responses["properties"]["C1"]["enum"] == ["accept", "reject"]
    assert responses["properties"]["C2"]["enum"] == ["accept", "reject", "withdraw"]
    assert props["accepts_consensus"]["type"] == "boolean"


def test_decide_schema_names_the_options_and_the_judges_to_challenge() -> None:
    first = decide_reply_schema(["A", "B", "C"], round_no=1)["properties"]
    assert first["recommendation"]["enum"] == ["A", "B", "C"]
    assert list(first["assessment"]["properties"]) == ["A", "B", "C"]
    second = decide_reply_schema(["A", "B", "C"], round_no=2, others=["value", "effort"])["properties"]
    assert second["recommendation"]["enum"] == ["A", "B", "C"]
    assert second["challenges"]["items"]["properties"]["judge"]["enum"] == ["value", "effort"]
    assert "challenges" not in first


def test_challenge_schemas_carry_the_seeds_words() -> None:
    def enum(schema: dict[str, Any], *path: str) -> list[str]:
        for p in path:
            schema = schema["items"] if p == "[]" else schema["properties"][p]
        return list(schema["enum"])

    assert enum(challenge_reply_schema("challenge"), "verdict") == ["agree", "partial", "disagree"]
    assert enum(challenge_reply_schema("challenge"), "objection_strength") == ["minor", "strong"]
    confront = challenge_reply_schema("confront", objection_ids=["O1", "O3"])
    assert enum(confront, "responses", "[]", "decision") == ["ACCEPT", "PARTIAL", "REJECT"]
    assert enum(confront, "responses", "[]", "objection") == ["O1", "O3"]
    assert enum(confront, "confidence") == ["HIGH", "MEDIUM", "LOW"]
    assert enum(challenge_reply_schema("rebuttal"), "response") == ["ACCEPT", "MAINTAIN", "ESCALATE"]
    assert enum(challenge_reply_schema("opening"), "confidence") == ["HIGH", "MEDIUM", "LOW"]
    assert "core_disagreement" in assumptions_schema(proponent=True)["properties"]
    assert "core_disagreement" not in assumptions_schema(proponent=False)["properties"]
    with pytest.raises(ValueError, match="unknown challenge phase"):
        challenge_reply_schema("closing")


# every reply a schema allows (each enum value in turn) is accepted by the parser that reads it

PARSERS: list[tuple[str, dict[str, Any], Any]] = [
    (
        "evaluate round 1",
        evaluate_reply_schema(KEYS, phase="round_1"),
        lambda t: parse_scored_reply(t, judge="judge-1", round_no=1, criteria=CRITERIA),
    ),
    (
        "evaluate rebuttal",
        evaluate_reply_schema(
            KEYS, phase="rebuttal", open_findings=[("C1", False), ("C2", True)], require_acceptance=True
        ),
        lambda t: parse_scored_reply(
            t, judge="judge-1", round_no=2, criteria=CRITERIA, previous=PREVIOUS, must_answer=OPEN
        ),
    ),
    (
        "evaluate final",
        evaluate_reply_schema(KEYS, phase="final", open_findings=[("C1", False)]),
        lambda t: parse_scored_reply(
            t, judge="judge-1", round_no=3, criteria=CRITERIA, previous=PREVIOUS, must_answer=OPEN
        ),
    ),
    ("moderator", moderator_reply_schema(["judge-1", "judge-2"]), _parse_moderator),
    (
        "decide round 1",
        decide_reply_schema(["A", "B", "C"], round_no=1),
        lambda t: parse_stance_reply(t, ReplyRules(judge="risk", round_no=1, options=OPTIONS)),
    ),
    (
        "decide round 2",
        decide_reply_schema(["A", "B", "C"], round_no=2, others=["value", "effort"]),
        lambda t: parse_stance_reply(
            t,
            ReplyRules(
                judge="risk",
                round_no=2,
                options=OPTIONS,
                previous="B",
                others=["value", "effort"],
                require_challenge=True,
            ),
        ),
    ),
    ("opening", challenge_reply_schema("opening"), parse_opening),
    ("challenge", challenge_reply_schema("challenge"), parse_challenge),
    (
        "confrontation",
        challenge_reply_schema("confront", objection_ids=["O1"]),
        lambda t: parse_confrontation(t, objection_ids=["O1"]),
    ),
    ("rebuttal", challenge_reply_schema("rebuttal"), parse_rebuttal),
    ("assumptions, proponent", challenge_reply_schema("assumptions", proponent=True), parse_assumptions),
    ("assumptions, challenger", challenge_reply_schema("assumptions"), parse_assumptions),
]


@pytest.mark.parametrize(("name", "schema", "parse"), PARSERS, ids=[p[0] for p in PARSERS])
def test_every_reply_the_schema_allows_is_accepted_by_the_parser(name: str, schema: dict[str, Any], parse: Any) -> None:
    replies = [((), "", instance(schema)), *variants(schema)]
    for path, value, reply in replies:
        try:
            parsed = parse(json.dumps(reply))
        except ReplyError as e:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{name}: {'.'.join(path)}={value!r} was refused: {e}")
        if path == ("recommendation",):
            assert parsed.recommendation == value
        elif path in {("verdict",), ("response",)}:
            assert getattr(parsed, path[0]) == value
        elif path == ("responses", "[]", "decision"):
            assert parsed.responses[0].decision == value
        elif path[:1] == ("critical_responses",):
            assert parsed.critical_responses[path[1]] == value


def test_scores_and_findings_from_a_schema_shaped_json_reply_reach_the_position() -> None:
    schema = evaluate_reply_schema(KEYS, phase="rebuttal", open_findings=[("C1", False)])
    dims = {"correctness": 4.5, "design": 3.0, "security": 2.0, "performance": 4.0, "docs": 5.0}
    reply = instance(
        schema,
        {
            ("new_score",): 3.7,
            ("dimension_scores",): dims,
            ("critical_responses",): {"C1": "reject"},
            ("critical_findings",): [],
            ("score_changed",): True,
        },
    )
    assert errors(reply, portable(schema)) == []  # a vendor's cloud may give any number; the parser reads it
    p = parse_scored_reply(
        json.dumps(reply), judge="judge-1", round_no=2, criteria=CRITERIA, previous=PREVIOUS, must_answer=OPEN
    )
    assert p.overall_score == 3.7 and p.dimension_scores == dims and p.critical_responses == {"C1": "reject"}
    assert p.score_changed is True and p.raised == []


def test_the_tests_own_reply_builders_follow_the_schemas() -> None:
    """The seed-shaped replies the other tests script are what a schema-constrained vendor would send."""
    assert errors(yaml.safe_load(round1(4.0, 4, critical=["no auth"]).strip("`\nyaml")), every_schema()[0][1]) == []
    cases = [
        (challenge_helpers.opening(), challenge_reply_schema("opening")),
        (challenge_helpers.verdict("disagree"), challenge_reply_schema("challenge")),
        (challenge_helpers.confront({"O1": "ACCEPT"}, "p"), challenge_reply_schema("confront", objection_ids=["O1"])),
        (challenge_helpers.rebuttal("MAINTAIN", objections=["still"], quotes=[]), challenge_reply_schema("rebuttal")),
        (challenge_helpers.assumptions("w", "c", ["a"], core="x"), assumptions_schema(proponent=True)),
    ]
    for text, schema in cases:
        assert errors(extract_mapping(text), schema) == [], text


def enforced_problems(schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Where a grammar could let a reply out of scale or unbounded."""
    out: list[str] = []
    t = schema["type"]
    if t == "number" and schema.get("enum") != list(SCORE_STEPS):
        out.append(f"{path}: a score that is not an enum of the scale's steps")
    if t == "string" and "enum" not in schema and not schema.get("maxLength"):
        out.append(f"{path}: free text without maxLength")
    if t == "array":
        if not schema.get("maxItems"):
            out.append(f"{path}: a list without maxItems")
        out += enforced_problems(schema["items"], f"{path}[]")
    for k, v in schema.get("properties", {}).items():
        out += enforced_problems(v, f"{path}.{k}")
    return out


@pytest.mark.parametrize(("name", "schema"), every_schema(), ids=[n for n, _ in every_schema()])
def test_every_schema_sent_to_a_grammar_bounds_scores_texts_and_lists(name: str, schema: dict[str, Any]) -> None:
    assert enforced_problems(schema) == []
    for bound in (256, 512, 1024, 4096):
        assert enforced_problems(fit(schema, bound)) == []
        assert portable(fit(schema, bound)) == portable(schema)  # fitting changes bounds only


@pytest.mark.parametrize(("name", "schema"), every_schema(), ids=[n for n, _ in every_schema()])
def test_the_longest_reply_a_fitted_schema_allows_fits_the_output_bound(name: str, schema: dict[str, Any]) -> None:
    for bound in (512, 800, 1024, 2048, 8192):
        fitted = fit(schema, bound)
        assert worst_tokens(fitted) <= bound, (bound, worst_tokens(fitted))
    assert fit(schema, None) == capped(schema, GRAMMAR_MAX_LENGTH)  # no bound: only the grammar's cap


def longest_string(schema: dict[str, Any]) -> int:
    own = int(schema.get("maxLength", 0))
    subs = [
        *schema.get("properties", {}).values(),
        *([schema["items"]] if isinstance(schema.get("items"), dict) else []),
    ]
    return max([own, *(longest_string(s) for s in subs)])


@pytest.mark.parametrize(("name", "schema"), every_schema(), ids=[n for n, _ in every_schema()])
def test_no_string_of_an_enforced_schema_is_longer_than_a_grammar_parses(name: str, schema: dict[str, Any]) -> None:
    """llama-cpp-python's server dies on a maxLength above 1000 (measured; see reply_bounds): whatever the bound,
    or none, every string sent to a grammar stays at or under the cap, and the cap under that limit."""
    assert GRAMMAR_MAX_LENGTH <= 1000
    for bound in (None, 512, 8192, 100_000):
        fitted = fit(schema, bound)
        assert longest_string(fitted) <= GRAMMAR_MAX_LENGTH, bound
        assert enforced_problems(fitted) == [] and portable(fitted) == portable(schema)


def test_a_small_bound_shortens_lists_before_texts_get_too_short() -> None:
    schema = evaluate_reply_schema(["correctness", "design"], phase="round_1")
    fitted = fit(schema, 320)
    props = fitted["properties"]
    assert worst_tokens(fitted) <= 320 < worst_tokens(schema)
    assert props["verification"]["maxItems"] < 5 and props["key_claims"]["maxItems"] >= 1
    assert props["position_statement"]["maxLength"] >= 60
    confront = fit(challenge_reply_schema("confront", objection_ids=["O1", "O2"]), 256)
    assert confront["properties"]["responses"]["minItems"] == confront["properties"]["responses"]["maxItems"] == 2
