"""Every reply parser, fed garbage: the only exception that may leave it is ReplyError (issue 12).

A judge's reply is untrusted text. ReplyError costs that judge one clarification; any other exception
(RecursionError from 5,000 `[`, ValueError from a 5,000-digit number, ...) ended the whole debate with a
traceback, and libyaml's composer even killed the process on 100,000 nested brackets.

Each parser gets 10,000 replies a run. Hypothesis's own strategies cost about 4 ms a reply on a shared
2-core machine, too slow for that volume, so hypothesis draws seeds and the generator below turns each
seed into a batch (a failure names the seed and the reply). A second, smaller test lets hypothesis build
structured replies itself, so that a failure there shrinks to a minimal reply.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moot.cli.app import main
from moot.parsing.extract import ReplyError, as_score, extract_mapping, reply_parser
from moot.protocols.challenge.parsing import (
    parse_assumptions,
    parse_challenge,
    parse_confrontation,
    parse_opening,
    parse_rebuttal,
)
from moot.protocols.decide.replies import ReplyRules, parse_stance_reply
from moot.protocols.decide.schemas import DecisionOption
from moot.protocols.evaluate.criteria import parse_criteria_string
from moot.protocols.evaluate.moderator import parse_moderator
from moot.protocols.evaluate.parsing import parse_scored_reply
from moot.protocols.evaluate.schemas import CriticalFinding
from moot.testing import FakeLLMServer

from .replies import CRITERIA, KEYS, round1

CRIT = parse_criteria_string(CRITERIA)
PREVIOUS = parse_scored_reply(round1(3.0, 3, fenced=False), judge="judge-2", round_no=1, criteria=CRIT)
OPEN_FINDINGS = [
    CriticalFinding(id="C1", finding="no auth", raised_by="judge-1", round=1),
    CriticalFinding(id="C2", finding="no tests", raised_by="judge-2", round=1),
]
RULES = ReplyRules(
    judge="risk",
    round_no=2,
    options=[DecisionOption(id="A", label="Online only"), DecisionOption(id="B"), DecisionOption(id="C")],
    previous="A",
    others=("value", "effort"),
    require_challenge=True,
)

# Round 2 of the scored debate and of the decision: the rounds whose replies reach the most code.
PARSERS: dict[str, Callable[[str], object]] = {
    "extract_mapping": lambda text: extract_mapping(text, required_any=("position",)),
    "scored": lambda text: parse_scored_reply(
        text, judge="judge-2", round_no=2, criteria=CRIT, previous=PREVIOUS, must_answer=OPEN_FINDINGS
    ),
    "moderator": parse_moderator,
    "stance": lambda text: parse_stance_reply(text, RULES),
    "opening": parse_opening,
    "challenge": parse_challenge,
    "confrontation": lambda text: parse_confrontation(text, objection_ids=["O1", "O2"]),
    "rebuttal": parse_rebuttal,
    "assumptions": parse_assumptions,
}

# One reply each parser accepts: mutating it reaches the checks behind `extract_mapping`.
VALID: dict[str, dict[str, Any]] = {
    "scored": {
        "new_score": 3.5,
        "dimension_scores": dict.fromkeys(KEYS, 4),
        "critical_responses": {"C1": "accept", "C2": "withdraw"},
        "key_claims": [{"claim": "it works", "evidence": "line 1", "confidence": "high"}],
        "critical_findings": [{"finding": "DELETE has no auth", "severity": "CRITICAL", "evidence": "l. 9"}],
        "verification": [{"question": "q", "answer": "a"}],
        "agreements": [{"with_judge": "judge-1", "on_point": "tests"}],
        "unresolved_disputes": [{"topic": "severity", "my_view": "high", "opposing_view": "low"}],
        "score_changed": True,
        "change_reason": "convinced",
        "accepts_consensus": "yes",
    },
    "moderator": {
        "majority_opinion": "Solid.",
        "recommendations": [{"priority": "MUST", "action": "Add auth", "rationale": "C1"}],
        "convergent_findings": [{"finding": "thin tests", "priority": "HIGH", "action_required": True}],
        "divergent_findings": [{"finding": "scale", "positions": {"judge-1": "fine"}}],
        "self_critique": {"questions_passed": "5/5", "synthesis_quality": "HIGH", "potential_bias": "none"},
    },
    "stance": {
        "recommendation": "Option B",
        "change_reason": "the effort judge's numbers",
        "challenges": [{"judge": "value", "argument": "ROI is a guess"}],
        "assessment": {"A": "risky", "B": "safe"},
        "rationale": "Safer. Cheaper.",
        "confidence": "high",
    },
    "opening": {
        "position": "Shard by customer",
        "reasoning": "reads are local",
        "confidence": "MED",
        "weaknesses": ["reports"],
        "assumptions": [{"assumption": "no whales"}],
    },
    "challenge": {"verdict": "disagree", "objection_strength": "strong", "objections": ["skew"], "reasoning": "r"},
    "confrontation": {
        "responses": [{"objection": "O1", "decision": "ACCEPT", "reason": "r"}, {"id": "[O2]", "decision": "reject"}],
        "position": "Shard by region",
        "confidence": "low",
    },
    "rebuttal": {"response": "MAINTAIN", "reasoning": "still skewed", "objections": ["whales"]},
    "assumptions": {
        "why_disagree": "skew",
        "what_would_change_my_mind": "data",
        "assumptions": ["growth"],
        "core_disagreement": "load shape",
    },
}
VALID["extract_mapping"] = VALID["opening"]
VALID_JSON = {k: json.dumps(v) for k, v in VALID.items()}  # a fresh copy to mutate is one json.loads away
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()


FIELDS = sorted(
    set().union(*(_keys(v) for v in VALID.values()))
    | {"overall_score", "final_score", "score", "criteria_scores", "criterion", "name", "value", "severity"}
    | {"recommended_option", "counter_arguments", "to", "id", "option", "objection_id", "finding_id", "text"}
    | {"critical_finding_responses", "concessions_made", "key_points_maintained", "verification_questions"}
)
WORDS = [
    *("agree", "Disagree", "partially agree", "ACCEPT", "rejected", "MAINTAIN", "escalate", "HIGH", "med"),
    *("minor", "major", "A", "option c", "B) Full offline", "Online only", "value", "the effort judge's point"),
    *("judge-1", "O1", "[O2]", "o3", "C1", "c2", "withdraw", "4/5", "4.5", "6", "0", "-1", "yes", "n", "", " "),
]
NOISE = "{}[]:,-&*!|>'\"#%@`~?\n\n\t    abcxyzO1C019.eE+_\\<"
FENCES = ("```yaml\n{}\n```", "```json\n{}\n```", "~~~\n{}\n~~~", "Here you go:\n```\n{}\n```\nThanks.", "```yaml\n{}")
NUMBERS = (
    *("1e400", "-1e400", ".inf", "-.Inf", ".NaN", "NaN", "Infinity", "-0.0", "0x1F", "0o17", "0b101", "1_000"),
    *("4.5e-400", "1:30:00", "190:20:30.15", "2024-13-45", "2024-02-30 25:61:61", "+.5", "5.", "0.0000001"),
)
TAGS = (
    *("!!binary aGVsbG8=", "!!binary ~~~", "!!set {a, b}", "!!omap [{a: 1}, {b: 2}]", "!!omap [1]", "!!pairs [a]"),
    *("!!python/object/apply:os.system ['echo hi']", "!!python/name:os.system", "!!float abc", "!!int 1.5"),
    *("!!bool maybe", "!!timestamp soon", "!!str [1]", "!!map [1]", "!!seq {a: 1}", "!custom x", "!!null 1"),
    *("!<tag:yaml.org,2002:int> 0x1g", "!!merge x", "!!value x", "!!yaml x", "&a !!str *a"),
)
ODD_KEYS = (
    "? [a, b]\n: v",
    "? {a: 1}\n: v",
    "{[1, 2]: x}",
    "{.nan: 1, 1: 2, null: 3}",
    "2024-01-01: x",
    "? !!binary aGk=\n: v",
)


def _noise(rng: random.Random, size: int = 120) -> str:
    return "".join(rng.choices(NOISE, k=rng.randrange(size)))


def _unicode(rng: random.Random) -> str:
    ranges = ((0, 0x80), (0x80, 0x800), (0xD800, 0xE000), (0xE000, 0x110000))
    return "".join(chr(rng.randrange(*rng.choice(ranges))) for _ in range(rng.randrange(60)))


def _scalar(rng: random.Random) -> Any:
    makers: list[Callable[[], Any]] = [
        lambda: None,
        lambda: rng.random() < 0.5,
        lambda: rng.randint(-10, 10),
        lambda: rng.uniform(-1e6, 1e6),
        lambda: rng.choice([float("nan"), float("inf"), -float("inf"), 1e308, 5e-324]),
        lambda: rng.choice([1, -1]) * 10 ** rng.randrange(18, 1300),  # past a float, within str()
        lambda: rng.choice(WORDS),
        lambda: rng.choice(FIELDS),
        lambda: _noise(rng, 20),
    ]
    return rng.choice(makers)()


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth >= 3 or roll < 0.5:
        return _scalar(rng)
    if roll < 0.75:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = [rng.choice(FIELDS) if rng.random() < 0.8 else _noise(rng, 8) for _ in range(rng.randrange(4))]
    return {k: _value(rng, depth + 1) for k in keys}


def _mutated(rng: random.Random, data: Any) -> Any:
    """`data` with one value somewhere inside replaced, removed, or joined by a stray key."""
    if isinstance(data, dict) and data and rng.random() < 0.7:
        key = rng.choice(list(data))
        roll = rng.random()
        if roll < 0.3:
            del data[key]
        elif roll < 0.5:
            data[rng.choice(FIELDS)] = _value(rng)
        else:
            data[key] = _mutated(rng, data[key])
        return data
    if isinstance(data, list) and data and rng.random() < 0.7:
        index = rng.randrange(len(data))
        data[index] = _mutated(rng, data[index])
        return data
    return _value(rng)


def _render(rng: random.Random, data: Any) -> str:
    roll = rng.random()
    if roll < 0.6:
        return json.dumps(data, indent=2 if roll < 0.1 else None)
    flow = roll < 0.7
    return yaml.dump(data, Dumper=DUMPER, sort_keys=False, default_flow_style=flow, allow_unicode=True)


def _wrap(rng: random.Random, body: str) -> str:
    roll = rng.random()
    if roll < 0.4:
        return body
    if roll < 0.8:
        return rng.choice(FENCES).replace("{}", body)
    if roll < 0.9:
        return _noise(rng, 40) + "\n" + body + "\n" + _noise(rng, 40)
    return "```\n" + _noise(rng, 40) + "\n```\n" + body  # a decoy fence first


def _field(rng: random.Random, text: str) -> str:
    """`text` as the value of a field a parser reads, in YAML or JSON."""
    key = rng.choice(FIELDS)
    return f'{{"{key}": {text}}}' if rng.random() < 0.3 else f"{key}: {text}"


def _nested(rng: random.Random) -> str:
    opener = rng.choice(["[", "{", '{"a": ', "[{", '{"position": [', "- ", "? ", "!!seq [", "&x [", "{a: "])
    n = rng.randrange(25, 80) if rng.random() < 0.8 else rng.randrange(80, 5001)
    closer = {"[": "]", "{": "}", "[{": "}]", "!!seq [": "]", "&x [": "]", "{a: ": "}"}.get(opener, "")
    text = opener * n + (rng.choice(["x", "1", ""]) + closer * n if rng.random() < 0.5 else "")
    return _field(rng, text) if rng.random() < 0.3 else text


def _indented(rng: random.Random) -> str:
    return "".join(" " * i + rng.choice(["a:\n", "- a:\n", "-\n"]) for i in range(rng.randrange(20, 200)))


def _laughs(rng: random.Random) -> str:
    width, depth = rng.randrange(2, 10), rng.randrange(2, 12)
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, depth)]
    lines.append(f"{rng.choice(FIELDS)}: *l{depth - 1}")
    return "\n".join(lines)


def _merge(rng: random.Random) -> str:
    keys = ", ".join(f"k{i}: {i}" for i in range(rng.randrange(1, 60)))
    merges = ", ".join(["*b"] * rng.randrange(1, 60))
    return f"base: &b {{{keys}}}\n{rng.choice(FIELDS)}: {{<<: [{merges}]}}"


def _cyclic(rng: random.Random) -> str:
    return rng.choice(
        [
            "position: &a [*a]",
            "position: &a {position: *a}",
            "&a {position: *a, verdict: *a}",
            "position: &a {<<: *a}",
            "? &a [*a]\n: x",
            "position: *nope",
            "position: &a x\nreasoning: *a\nconfidence: *a",
        ]
    )


def _number(rng: random.Random) -> str:
    digits = "9" * rng.randrange(300, 6000)
    sexagesimal = "1" + ":59" * rng.randrange(1, 3000)
    return _field(
        rng, rng.choice([digits, "-" + digits, digits + ".5", "0b" + "1" * len(digits), sexagesimal, *NUMBERS])
    )


def _tagged(rng: random.Random) -> str:
    return _field(rng, rng.choice(TAGS)) if rng.random() < 0.7 else rng.choice(ODD_KEYS)


def _fence_runs(rng: random.Random) -> str:
    run = rng.choice(["```", "~~~", "````", "```yaml", "~~~~json"])
    repeats = rng.randrange(1, 100) if rng.random() < 0.9 else rng.randrange(100, 3000)
    return (run + rng.choice(["\n", "a", " ", "\nposition: x\n"])) * repeats


def _documents(rng: random.Random) -> str:
    return rng.choice(
        [
            "%YAML 1.1\n---\nposition: x\n...\n---\nposition: y",
            "%TAG ! tag:example.com,2000:\n---\nposition: !x y",
            "%YAML 9.9\n---\na: 1",
            "---\n---\n",
            "\ufeffposition: x\nreasoning: y",
            "position: |\n  text\n bad indent",
            "position: 'unterminated",
            'position: "\\ud800 \\x00 \\uZZZZ"',
            "position:\t\tx",
        ]
    )


def reply(rng: random.Random, target: str) -> str:
    """One garbage reply for the parser named `target`."""
    roll = rng.random()
    if roll < 0.10:
        return _noise(rng)
    if roll < 0.14:
        return _unicode(rng)
    if roll < 0.32:
        data = {rng.choice(FIELDS): _value(rng) for _ in range(rng.randrange(1, 6))}
        return _wrap(rng, _render(rng, data))
    if roll < 0.62:
        data = _mutated(rng, json.loads(VALID_JSON[target]))
        return _wrap(rng, _render(rng, data))
    if roll < 0.66:
        text = _render(rng, VALID[target])
        return _wrap(rng, text[: rng.randrange(len(text) + 1)])
    makers = (_nested, _indented, _laughs, _merge, _cyclic, _number, _tagged, _fence_runs, _documents)
    weights = (4, 1, 3, 1, 3, 5, 6, 2, 3)
    text = rng.choices(makers, weights)[0](rng)
    return _wrap(rng, text) if rng.random() < 0.3 else text


def check(target: str, text: str) -> None:
    """Parse `text`; only a ReplyError with a short one-line message (it is sent to the judge) may leave."""
    try:
        PARSERS[target](text)
    except ReplyError as e:
        message = str(e)
        assert message and "\n" not in message and len(message) <= 300, f"{message[:500]!r} for {text[:300]!r}"
    except Exception as e:
        raise AssertionError(f"{type(e).__name__} escaped {target} for the reply {text[:300]!r}") from e


BATCH = 100
# conftest's autouse MOOT_HOME fixture is function-scoped; nothing here touches it between examples
AUTOUSE = [HealthCheck.function_scoped_fixture]
FUZZ = settings(max_examples=10_000 // BATCH, deadline=None, database=None, suppress_health_check=AUTOUSE)


@pytest.mark.parametrize("target", list(PARSERS))
@FUZZ
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_10_000_garbage_replies_raise_nothing_but_reply_error(target: str, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(BATCH):
        check(target, reply(rng, target))


_leaf = st.none() | st.booleans() | st.integers() | st.floats() | st.sampled_from(WORDS) | st.text(max_size=12)
_tree = st.recursive(
    _leaf,
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), kids, max_size=3)
    ),
    max_leaves=8,
)
_mappings = st.dictionaries(st.sampled_from(FIELDS), _tree, min_size=1, max_size=5)
_replies = (
    _mappings.map(json.dumps)
    | _mappings.map(lambda d: yaml.safe_dump(d, allow_unicode=True))
    | st.text(alphabet=NOISE, max_size=80)
    | st.text(max_size=40)
)


@settings(max_examples=200, deadline=None, database=None, suppress_health_check=AUTOUSE)
@given(text=_replies)
def test_hypothesis_built_replies_raise_nothing_but_reply_error_in_any_parser(text: str) -> None:
    for target in PARSERS:
        check(target, text)


@pytest.mark.parametrize("target", list(PARSERS))
def test_the_valid_replies_parse(target: str) -> None:
    """Without this, mutating them would only ever test extract_mapping's error path."""
    PARSERS[target](json.dumps(VALID[target]))
    PARSERS[target](yaml.safe_dump(VALID[target]))


@pytest.mark.parametrize("target", list(PARSERS))
@pytest.mark.parametrize(
    "text",
    [
        "[" * 5000,
        "{" * 5000,
        "[" * 5000 + "]" * 5000,
        "position: " + "[" * 5000,
        "- " * 5000 + "x",
        "a: " + "[" * 100_000 + "]" * 100_000,  # libyaml's composer overflowed the C stack on this
        "position: &a [*a]",
    ],
    ids=["open", "braces", "closed", "in-field", "block", "100k", "cyclic"],
)
def test_deep_nesting_is_a_reply_error(target: str, text: str) -> None:
    with pytest.raises(ReplyError, match="nested more than 32 levels deep"):
        PARSERS[target](text)


LAUGHS_LEVELS = [f"l0: &l0 [{', '.join(['lol'] * 9)}]"] + [
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)
]
BILLION_LAUGHS = "\n".join([*LAUGHS_LEVELS, "position: *l8"])  # 9**9 strings once expanded
_KEYS_2000 = ", ".join(f"k{i}: 1" for i in range(2000))
MERGE_BOMB = f"base: &b {{{_KEYS_2000}}}\nposition: {{<<: [{', '.join(['*b'] * 2000)}]}}"  # 4 million copies


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"overall_score": ' + "9" * 5000 + "}", "number too large"),
        ("overall_score: 1" + ":59" * 2000, "number too large"),
        ("position: \ud800", "not valid Unicode"),
        ("position: 2024-13-45", "month must be in 1..12"),
        (BILLION_LAUGHS, "too large once its YAML aliases"),
        (MERGE_BOMB, "too large once"),
    ],
    ids=["digits", "sexagesimal", "surrogate", "date", "billion-laughs", "merge-keys"],
)
def test_unreadable_values_are_named(text: str, message: str) -> None:
    started = time.perf_counter()
    with pytest.raises(ReplyError, match=message):
        extract_mapping(text)
    assert time.perf_counter() - started < 2


def test_a_reply_using_an_alias_once_still_parses() -> None:
    opening = parse_opening("position: &p Shard it\nreasoning: *p\nconfidence: high\nbase: &b {x: 1}\nmore: {<<: *b}")
    assert opening.reasoning == "Shard it"


def test_a_score_too_large_for_a_float_is_named_briefly() -> None:
    with pytest.raises(ReplyError, match=r"^the overall score must be a number from 1 to 5, not 1000.{0,60}$"):
        as_score(10**400, "the overall score")


def test_many_unclosed_fences_cost_linear_time() -> None:
    """The old fence regex backtracked quadratically: 0.2 s for 20 kB of this, 20 s for these 200 kB."""
    started = time.perf_counter()
    with pytest.raises(ReplyError):
        extract_mapping("```a" * 50_000)
    assert time.perf_counter() - started < 3


def test_reply_parser_turns_data_errors_into_reply_errors_and_leaves_bugs_alone() -> None:
    @reply_parser
    def overflow(text: str) -> float:
        return float(10 ** int(text))

    @reply_parser
    def buggy(text: str) -> object:
        raise NameError(text)

    with pytest.raises(ReplyError, match=r"^the reply could not be read \(OverflowError: int too large"):
        overflow("400")
    with pytest.raises(NameError):
        buggy("x")


# through the engine: the CLI, the engine and the openai SDK against the local server


def _evaluate(artifact: Path, judges: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    args = ["--solution", str(artifact), "--task", "t", "--criteria", CRITERIA, "--judges", str(judges)]
    code = main(["evaluate", *args, "--format", "json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if captured.out.strip() else {}), captured.err


def test_a_judge_sending_5000_brackets_twice_is_dropped_and_the_debate_goes_on(
    llm_server: FakeLLMServer, judges_file: Callable[..., Path], artifact: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("judge-a", "[" * 5000, "[" * 5000)
    llm_server.script("judge-b", round1(4.0, 4))
    llm_server.script("judge-c", round1(4.2, 4))
    llm_server.script("mod", "[" * 5000, "{" * 5000)
    judges = judges_file(moderator={"model": "mod", "api_base": llm_server.base_url})
    code, out, err = _evaluate(artifact, judges, capsys)
    assert code == 0, err
    assert out["judges"][0]["status"] == "unparsed" and out["judges"][0]["reason"].startswith("unparsed")
    assert out["round_progression"]["round_1"]["scores"] == [4.0, 4.2]
    clarify = llm_server.calls_for("judge-a")[1].body["messages"][-1]["content"]
    assert "nested more than 32 levels deep" in clarify
    assert any("moderator failed" in note for note in out["notes"])


def test_two_judges_sending_5000_brackets_leave_too_few_and_exit_3(
    llm_server: FakeLLMServer, judges_file: Callable[..., Path], artifact: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("judge-a", "[" * 5000, "[" * 5000)
    llm_server.script("judge-b", "- " * 100_000, "[" * 5000)
    llm_server.script("judge-c", round1(4.2, 4))
    code, out, err = _evaluate(artifact, judges_file(), capsys)
    assert code == 3 and out == {}
    assert err.startswith("moot: error: fewer than two judges left after round 1")
    assert "Traceback" not in err
