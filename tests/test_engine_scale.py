"""The engine at batch scale, against the real local server: spend kept as calls complete (the same figures
as reading every call back from the store, for fresh, failed and resumed debates), price lookups made once
per model, SDK clients shared by the judges of an endpoint and closed by the last one, and replies loaded by
libyaml exactly as by the Python composer."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot import api
from moot.engine import Engine, RetryPolicy
from moot.engine.pricing import PriceOverride, Pricing, _table_entry, spend_from_calls
from moot.judges import clients
from moot.judges.base import Judge, Seat
from moot.judges.factory import build_judges
from moot.judges.openai_compat import OpenAICompatJudge
from moot.parsing.extract import ReplyError
from moot.parsing.yaml_safe import _ReplyLoader, compose_and_construct, loaded
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Message, Prompt, Usage
from moot.store.db import Store
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, round1, round2, round3
from .test_parsing_fuzz import PARSERS
from .test_parsing_fuzz import reply as garbage_reply

PROMPT = Prompt(system="rubric and artifact", messages=[Message(role="user", content="evaluate")])


def seat(n: int, judge: Judge) -> Seat:
    return Seat(id=f"judge-{n}", number=n, label=judge.model, stance="neutral", stance_prompt="", judges=[judge])


def judge_on(server: FakeLLMServer, model: str, **spec: Any) -> OpenAICompatJudge:
    [judge] = build_judges(JudgeSpec(model=model, api_base=server.base_url, **spec))
    assert isinstance(judge, OpenAICompatJudge)
    return judge


def stored_spend(engine: Engine, wall: float, final_name: str = "synthesis") -> Any:
    return spend_from_calls(engine.store.calls(engine.debate_id), wall_seconds=wall, final_name=final_name)


# ---------------------------------------------------------------- spend kept as calls complete


def test_a_debates_spend_is_what_its_stored_calls_say(
    llm_server: FakeLLMServer, judges_file: Any, artifact: Path, tmp_path: Path
) -> None:
    llm_server.script("judge-a", round1(4.0, 4), round2(4.0), round3(4.0))
    llm_server.script("judge-b", round1(2.0, 2), round2(3.0), round3(4.0))
    llm_server.script("judge-c", "not yaml at all", round1(3.0, 3), round2(4.0), round3(4.0))  # one clarification
    judges = judges_file(
        pricing={m: {"input_per_mtok": 3, "output_per_mtok": 15} for m in ("judge-a", "judge-b", "judge-c")}
    )
    store = Store(tmp_path / "moot.db")
    result = asyncio.run(
        api.evaluate(str(artifact), criteria=CRITERIA, judges=str(judges), store=store, reports_dir=None)
    )
    spend = result.spend
    expected = spend_from_calls(store.calls(result.debate_id), wall_seconds=spend.wall_seconds)
    assert spend == expected
    assert spend.calls == len(llm_server.requests) == 10 and spend.clarifications == 1 and spend.cost_usd > 0


def test_failed_then_resumed_calls_are_counted_once(llm_server: FakeLLMServer) -> None:
    llm_server.script("a", Reply(text="first", input_tokens=100, output_tokens=10))
    llm_server.script("b", Reply(status=503), Reply(text="back", input_tokens=200, output_tokens=20))
    llm_server.script("c", Reply(text="later", input_tokens=300, output_tokens=30))
    store = Store(":memory:")
    pricing = Pricing(overrides={m: PriceOverride(1.0, 2.0) for m in ("a", "b", "c")})
    policy = RetryPolicy(max_retries=0)
    a, b, c = (judge_on(llm_server, m) for m in ("a", "b", "c"))

    async def first_run() -> Engine:
        engine = Engine(store, "d", policy=policy, pricing=pricing)
        assert (await engine.call(seat(1, a), PROMPT, key="r1/judge-1", round_no=1, kind="judge")).ok
        assert not (await engine.call(seat(2, b), PROMPT, key="r1/judge-2", round_no=1, kind="judge")).ok
        assert engine.spend(wall_seconds=1.0) == stored_spend(engine, 1.0)
        return engine

    async def resumed() -> Engine:
        engine = Engine(store, "d", policy=policy, pricing=pricing)
        assert engine.spent() == pytest.approx(100e-6 + 10 * 2e-6)  # the first run's call counts
        replay = await engine.call(seat(1, a), PROMPT, key="r1/judge-1", round_no=1, kind="judge")
        assert replay.replayed
        assert (await engine.call(seat(2, b), PROMPT, key="r1/judge-2", round_no=1, kind="judge")).ok
        assert (await engine.call(seat(3, c), PROMPT, key="r2/judge-3", round_no=2, kind="judge")).ok
        for judge in (a, b, c):
            await judge.aclose()
        return engine

    first = asyncio.run(first_run())
    assert first.spend(wall_seconds=1.0).calls == 2  # the failure counts while it is the latest of its key
    engine = asyncio.run(resumed())
    spend = engine.spend(wall_seconds=2.5)
    assert spend == stored_spend(engine, 2.5)
    assert spend.calls == 3 and spend.input_tokens == 600  # b's failure, asked again, is not counted
    assert engine.spent() == round(sum(c.cost_usd or 0.0 for c in store.calls("d")), 8) == spend.cost_usd
    assert [r.model for r in llm_server.requests] == ["a", "b", "b", "c"]  # a replayed, not asked again


def test_a_key_asked_again_in_the_same_run_counts_once(llm_server: FakeLLMServer) -> None:
    llm_server.script("m", Reply(status=500), Reply(text="ok", input_tokens=50, output_tokens=5))
    engine = Engine(Store(":memory:"), "d", policy=RetryPolicy(max_retries=0))
    judge = judge_on(llm_server, "m")

    async def twice() -> None:
        for _ in range(2):
            await engine.call(seat(1, judge), PROMPT, key="r1/judge-1", round_no=1, kind="judge")
        await judge.aclose()

    asyncio.run(twice())
    spend = engine.spend(wall_seconds=0.5)
    assert spend == stored_spend(engine, 0.5) and spend.calls == 1 and spend.input_tokens == 50


# ---------------------------------------------------------------- prices looked up once


def test_prices_are_looked_up_once_per_model_misses_included() -> None:
    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price

    pricing = Pricing()
    before = _table_entry.cache_info()
    for n in range(50):
        assert pricing.cost("openai", "scale-test-unknown-model", Usage(input_tokens=n, output_tokens=n)) is None
    after = _table_entry.cache_info()
    assert after.misses - before.misses == 1 and after.hits - before.hits == 49
    for provider, price_id, model in (("openai", "openai", "gpt-5"), ("anthropic", "anthropic", "claude-sonnet-4-6")):
        for usage in (
            Usage(input_tokens=1000, output_tokens=500),
            Usage(input_tokens=300_000, output_tokens=9000, cached_tokens=120_000),
        ):
            table = calc_price(
                PriceUsage(
                    input_tokens=usage.input_tokens,
                    output_tokens=usage.output_tokens,
                    cache_read_tokens=min(usage.cached_tokens, usage.input_tokens) or None,
                ),
                model,
                provider_id=price_id,
            )
            assert pricing.cost(provider, model, usage) == round(float(table.total_price), 8) > 0


# ---------------------------------------------------------------- one client per endpoint, shared


def test_judges_of_one_endpoint_share_a_client_that_the_last_one_closes(llm_server: FakeLLMServer) -> None:
    llm_server.responder = lambda model, body: Reply(text=f"from {model}")

    async def go() -> None:
        judges = [judge_on(llm_server, f"m{n}") for n in range(40)]
        made = {id(j.client()) for j in judges}
        assert len(made) == 2  # 32 judges to a client
        other_key = judge_on(llm_server, "m0", api_key="sk-other-secret")
        assert id(other_key.client()) not in made
        assert "sk-other-secret" not in repr(clients._POOL)  # the pool holds a digest of the key
        first, rest = judges[0], judges[1:]
        shared = first.client()
        await first.aclose()  # others still use its client
        assert not shared.is_closed()
        partner = next(j for j in rest if j.client() is shared)
        assert (await partner.complete(PROMPT, timeout=5)).text == "from " + partner.model
        for judge in rest:
            await judge.aclose()
        assert shared.is_closed()  # the last judge using it closed it
        await other_key.aclose()
        assert clients.shared_count() == 0

    asyncio.run(go())


def test_close_shared_clients_ends_a_batch_and_a_new_event_loop_gets_new_clients(llm_server: FakeLLMServer) -> None:
    llm_server.responder = lambda model, body: Reply(text="ok")

    async def batch(judges: list[OpenAICompatJudge]) -> Any:
        answers = await asyncio.gather(*(j.complete(PROMPT, timeout=5) for j in judges))
        assert [a.text for a in answers] == ["ok"] * len(judges)
        client = judges[0].client()
        await clients.close_shared_clients()
        assert client.is_closed() and clients.shared_count() == 0
        for judge in judges:
            await judge.aclose()  # nothing left to close
        return client

    first = asyncio.run(batch([judge_on(llm_server, "a"), judge_on(llm_server, "b")]))
    again = [judge_on(llm_server, "a")]
    second = asyncio.run(batch(again))
    assert second is not first and len(llm_server.requests) == 3


def test_debates_through_the_api_share_clients_and_close_them(
    llm_server: FakeLLMServer, judges_file: Any, artifact: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.responder = lambda model, body: Reply(text=round1(4.0, 4), delay=0.05)
    made: list[Any] = []
    real = OpenAICompatJudge.make_client

    def counted(self: OpenAICompatJudge) -> Any:
        made.append(self.model)
        return real(self)

    monkeypatch.setattr(OpenAICompatJudge, "make_client", counted)
    judges = judges_file()
    store = Store(tmp_path / "moot.db")

    async def twenty() -> list[Any]:
        runs = [
            api.evaluate(str(artifact), criteria=CRITERIA, judges=str(judges), store=store, reports_dir=None)
            for _ in range(20)
        ]
        results = await asyncio.gather(*runs)
        assert clients.shared_count() == 0  # every debate closed its judges: the last closed the clients
        return results

    results = asyncio.run(twenty())
    assert [r.summary.final_verdict for r in results] == ["PASS"] * 20
    assert len(llm_server.requests) == 60 and len(made) == 2  # 60 judges, 2 clients (32 judges each at most)


# ---------------------------------------------------------------- replies composed in C, the same


def _outcome(load: Any, block: str) -> tuple[str, Any]:
    try:
        return "value", _graph(load(block))
    except (ReplyError, yaml.YAMLError) as e:
        return type(e).__name__, str(e) if isinstance(e, ReplyError) else ""
    except (ValueError, TypeError, LookupError, AttributeError, ArithmeticError, RecursionError) as e:
        return type(e).__name__, ""


def _graph(value: Any) -> tuple[Any, list[Any]]:
    """A loaded value as a graph, each list and dict once: aliases make values shared (a billion laughs
    in a few lines) and even cyclic, which neither `==` nor `repr` can walk."""
    index: dict[int, int] = {}
    nodes: list[Any] = []

    def visit(v: Any) -> Any:
        if not isinstance(v, dict | list):
            return ("scalar", type(v).__name__, repr(v))
        if id(v) in index:
            return ("ref", index[id(v)])
        at = index[id(v)] = len(nodes)
        nodes.append(None)
        items = [(visit(k), visit(x)) for k, x in v.items()] if isinstance(v, dict) else [visit(x) for x in v]
        nodes[at] = (type(v).__name__, items)
        return ("ref", at)

    return visit(value), nodes


def _python_composed(block: str) -> Any:
    return loaded(_ReplyLoader(block))


def _nested(depth: int, leaf: str = "x") -> str:
    return "[" * depth + leaf + "]" * depth


CRAFTED = [
    round1(4.0, 4, fenced=False),
    round2(3.5),
    _nested(31),
    _nested(32),
    _nested(33),
    _nested(40),
    _nested(33, ""),
    _nested(40) + "\n: : bad",  # too deep, then a syntax error: the depth is what fails first
    _nested(40, "*undefined"),
    "a: &x " + _nested(20) + "\nb: " + _nested(20, "*x"),  # an alias at depth 21 is a leaf there
    "a: &x " + _nested(20) + "\nb: " + _nested(33, "*x"),
    "base: &b {k: 1}\nm:\n  <<: [*b, *b, *b]\n  j: 2",
    "a: &a [*a]",
    "- - - - - - - - x\n" * 3,
    "key: value: other",
    "",
    "{",
]


@pytest.mark.parametrize("block", CRAFTED)
def test_crafted_replies_load_alike_in_c_and_in_python(block: str) -> None:
    assert _outcome(compose_and_construct, block) == _outcome(_python_composed, block)


def test_garbage_replies_load_alike_in_c_and_in_python() -> None:
    rng = random.Random(20260101)
    targets = list(PARSERS)
    for n in range(1000):
        text = garbage_reply(rng, targets[n % len(targets)])
        for block in (text, text.strip(), text[text.find("\n") + 1 :]):
            assert _outcome(compose_and_construct, block) == _outcome(_python_composed, block), block[:300]


def test_an_openai_compatible_judge_sends_what_chat_completions_create_sends(llm_server: FakeLLMServer) -> None:
    llm_server.responder = lambda model, body: Reply(text="same")
    schema = {"type": "object", "properties": {"score": {"type": "number"}}}
    prompts = [
        PROMPT,
        PROMPT.followed_by("earlier reply", "fix it").model_copy(update={"max_tokens": 300, "json_schema": schema}),
    ]

    async def both(judge: OpenAICompatJudge) -> None:
        for prompt in prompts:
            mine = await judge.complete(prompt, timeout=5)
            theirs = await judge.client().chat.completions.create(**judge.request(prompt), timeout=5)
            assert mine.text == theirs.choices[0].message.content == "same"
        await judge.aclose()

    plain = judge_on(llm_server, "m", temperature=0.3)
    [vendor] = build_judges(JudgeSpec(model="gpt-5", provider="openai", api_base=llm_server.base_url, api_key="k"))
    assert isinstance(vendor, OpenAICompatJudge) and vendor.structured == "json_schema"
    for judge in (plain, vendor):
        asyncio.run(both(judge))
    sent = llm_server.requests
    assert len(sent) == 8 and sent[0].body["temperature"] == 0.3 and "response_format" in sent[6].body
    for mine, theirs in zip(sent[::2], sent[1::2], strict=True):
        assert (mine.path, mine.body) == (theirs.path, theirs.body)
        assert {k: v for k, v in mine.headers.items() if k not in ("content-length",)} == {
            k: v for k, v in theirs.headers.items() if k not in ("content-length",)
        }
