"""The engine's call policy, measured against the real local server: per-provider request spacing and
concurrency, the provider table's defaults and the user's overrides, one retry policy honouring
Retry-After, and the per-debate wall-clock budget."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from typing import Any

import pytest

from moot.engine import Engine, RetryPolicy
from moot.engine.budget import Budget
from moot.engine.limits import Limits, ProviderLimit, _Pace, _send_time
from moot.engine.settings import limits as limits_from
from moot.errors import UsageError
from moot.judges.base import Judge, Seat
from moot.judges.factory import build_judges
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Message, Prompt
from moot.store.db import Store
from moot.testing import FakeLLMServer, Reply

PROMPT = Prompt(system="rubric and artifact", messages=[Message(role="user", content="evaluate")])


def seat(n: int, judge: Judge) -> Seat:
    return Seat(id=f"judge-{n}", number=n, label=judge.model, stance="neutral", stance_prompt="", judges=[judge])


def judges_on(server: FakeLLMServer, models: list[str], provider: str = "openai") -> list[Judge]:
    return [build_judges(JudgeSpec(model=m, provider=provider, api_base=server.base_url))[0] for m in models]


async def one_round(engine: Engine, judges: list[Judge]) -> list[bool]:
    async with asyncio.TaskGroup() as tg:
        tasks = [
            tg.create_task(engine.call(seat(i, j), PROMPT, key=f"r1/judge-{i}", round_no=1, kind="judge"))
            for i, j in enumerate(judges, 1)
        ]
    for j in judges:
        await j.aclose()
    return [t.result().ok for t in tasks]


def test_requests_per_minute_are_spaced_evenly(llm_server: FakeLLMServer) -> None:
    models = [f"m{i}" for i in range(5)]
    for m in models:
        llm_server.script(m, "ok")
    limits = Limits(per_provider={"openai": ProviderLimit(concurrency=5, rpm=300, burst=1)})  # one every 0.2 s
    engine = Engine(Store(":memory:"), "d", limits=limits)
    judges = judges_on(llm_server, models)
    t0 = time.monotonic()
    assert asyncio.run(one_round(engine, judges)) == [True] * 5
    times = sorted(r.at for r in llm_server.requests)
    # the k-th request reaches the vendor no earlier than k slots after the round began (same clock)
    offsets = [round(t - t0, 3) for t in times]
    assert len(times) == 5 and all(o >= 0.2 * k - 0.01 for k, o in enumerate(offsets)), offsets
    assert times[-1] - times[0] < 1.5


def test_a_round_goes_at_once_within_the_burst_then_rpm_spacing_applies(llm_server: FakeLLMServer) -> None:
    models = [f"m{i}" for i in range(5)]
    for m in models:
        llm_server.script(m, "ok")
    limits = Limits(per_provider={"openai": ProviderLimit(concurrency=8, rpm=300, burst=3)})  # 3 at once, then 0.2 s
    engine = Engine(Store(":memory:"), "d", limits=limits)
    judges = judges_on(llm_server, models)
    t0 = time.monotonic()
    assert asyncio.run(one_round(engine, judges)) == [True] * 5
    offsets = sorted(round(r.at - t0, 3) for r in llm_server.requests)
    assert offsets[2] < 0.15, offsets  # the first three were not held back
    assert offsets[3] >= 0.19 and offsets[4] >= 0.39, offsets
    assert ProviderLimit(rpm=60).bucket == 6 and ProviderLimit(concurrency=2, rpm=600).bucket == 2


def test_concurrency_limit_keeps_calls_from_overlapping(llm_server: FakeLLMServer) -> None:
    models = ["a", "b", "c"]
    for m in models:
        llm_server.script(m, Reply(text="ok", delay=0.15))
    engine = Engine(Store(":memory:"), "d", limits=Limits(per_provider={"openai": ProviderLimit(concurrency=1)}))
    t0 = time.monotonic()
    assert asyncio.run(one_round(engine, judges_on(llm_server, models))) == [True] * 3
    times = sorted(r.at for r in llm_server.requests)
    assert all(b - a >= 0.14 for a, b in itertools.pairwise(times))
    assert time.monotonic() - t0 >= 0.45
    # other providers are not held up by this one's limit
    for m in models:
        llm_server.script(m, Reply(text="ok", delay=0.15))
    t1 = time.monotonic()
    asyncio.run(one_round(engine, judges_on(llm_server, models, provider="vllm")))
    assert time.monotonic() - t1 < 0.4


def test_provider_table_defaults_and_user_overrides() -> None:
    table = Limits()
    assert table.limit_for("anthropic") == ProviderLimit(concurrency=8, rpm=50)
    assert table.limit_for("ollama").concurrency == 2 and table.limit_for("ollama").rpm is None
    assert table.limit_for("custom") == ProviderLimit()
    mine = limits_from({"default": {"concurrency": 3}, "anthropic": {"concurrency": 1, "rpm": 10}})
    assert mine is not None
    assert mine.limit_for("anthropic") == ProviderLimit(concurrency=1, rpm=10)
    assert mine.limit_for("gemini") == ProviderLimit(concurrency=3)
    with pytest.raises(UsageError, match=r"limits.openai: concurrency must be at least 1"):
        limits_from({"openai": {"concurrency": 0}})
    with pytest.raises(UsageError, match=r"limits.openai: .*unexpected keyword argument 'rmp'"):
        limits_from({"openai": {"rmp": 10}})


def test_retry_policy_never_waits_less_than_retry_after_and_caps_backoff() -> None:
    p = RetryPolicy(max_retries=3, base_delay=0.5, max_delay=4.0)
    waits = [p.delay(0, 2.0) for _ in range(200)]
    assert min(waits) >= 2.0 and max(waits) <= 2.2 and len(set(waits)) > 1  # jittered, never early
    assert p.delay(0, 60.0) == 4.0
    backoff = [p.delay(5, None) for _ in range(200)]
    assert max(backoff) <= 4.0 and min(backoff) >= 0


def test_retries_are_bounded_then_the_call_fails_as_an_outcome(llm_server: FakeLLMServer) -> None:
    llm_server.script("m", *[Reply(status=500)] * 5)
    engine = Engine(Store(":memory:"), "d", policy=RetryPolicy(max_retries=2, base_delay=0.01))
    [ok] = asyncio.run(one_round(engine, judges_on(llm_server, ["m"])))
    assert ok is False and len(llm_server.requests) == 3
    [call] = engine.store.calls("d")
    assert call.status == "error" and call.retries == 2 and "server error (500)" in (call.error or "")


def test_wall_clock_budget_stops_the_next_round_and_bounds_calls(llm_server: FakeLLMServer) -> None:
    engine = Engine(Store(":memory:"), "d", budget=Budget(wall_seconds=0.3))
    [judge] = judges_on(llm_server, ["slow"])
    assert engine.round_gate(1, [(seat(1, judge), PROMPT, "r1/judge-1")]) is None
    llm_server.script("slow", Reply(text="late", delay=1.0))
    t0 = time.monotonic()
    [ok] = asyncio.run(one_round(engine, [judge]))
    assert ok is False and time.monotonic() - t0 < 0.8  # the call was cut at the deadline
    reason = engine.round_gate(2, [(seat(1, judge), PROMPT, "r2/judge-1")])
    assert reason is not None and "wall-clock budget" in reason


# ---------------------------------------------------------------- at batch scale: one limiter, many debates


def counting_server(server: FakeLLMServer, seconds: float) -> dict[str, int]:
    """The server counts calls in flight at once; each takes `seconds`."""
    lock = threading.Lock()
    seen = {"now": 0, "most": 0}

    def reply(model: str, body: dict[str, Any]) -> Reply:
        with lock:
            seen["now"] += 1
            seen["most"] = max(seen["most"], seen["now"])
        time.sleep(seconds)
        with lock:
            seen["now"] -= 1
        return Reply(text="ok")

    server.responder = reply
    return seen


def test_twenty_debates_sharing_one_limits_stay_within_its_concurrency(llm_server: FakeLLMServer) -> None:
    seen = counting_server(llm_server, 0.03)
    limits = Limits(per_provider={"openai": ProviderLimit(concurrency=2)})
    store = Store(":memory:")

    async def debates() -> list[list[bool]]:
        engines = [Engine(store, f"debate-{n}", limits=limits) for n in range(20)]
        return await asyncio.gather(*(one_round(e, judges_on(llm_server, ["a", "b", "c"])) for e in engines))

    assert asyncio.run(debates()) == [[True] * 3] * 20
    assert len(llm_server.requests) == 60 and seen["most"] == 2  # 60 calls at once asked for, 2 in flight


def test_one_limits_serves_one_event_loop_after_another() -> None:
    limits = Limits(per_provider={"p": ProviderLimit(concurrency=1)})

    async def contended() -> None:
        async def hold() -> None:
            async with limits.slot("p"):
                await asyncio.sleep(0.01)

        await asyncio.gather(hold(), hold(), hold())

    asyncio.run(contended())
    asyncio.run(contended())  # a semaphore bound to the first loop would raise here


def test_a_retry_after_holds_back_every_call_to_that_provider(llm_server: FakeLLMServer) -> None:
    llm_server.script("limited", Reply(status=429, headers={"Retry-After": "0.6"}), "ok")
    for m in ("m1", "m2", "m3"):
        llm_server.script(m, "ok")
    limits = Limits(per_provider={"openai": ProviderLimit(concurrency=8)})
    policy = RetryPolicy(max_retries=1, base_delay=0.01)
    store = Store(":memory:")

    async def go() -> list[bool]:
        first = Engine(store, "debate-1", limits=limits, policy=policy)
        others = Engine(store, "debate-2", limits=limits, policy=policy)
        [limited] = judges_on(llm_server, ["limited"])
        hit = asyncio.create_task(first.call(seat(1, limited), PROMPT, key="r1/judge-1", round_no=1, kind="judge"))
        await asyncio.sleep(0.2)  # the 429 has come back by now
        rest = await one_round(others, judges_on(llm_server, ["m1", "m2", "m3"]))
        outcome = await hit
        await limited.aclose()
        return [outcome.ok, *rest]

    assert asyncio.run(go()) == [True] * 4
    [refused, *later] = sorted(llm_server.requests, key=lambda r: r.at)
    assert refused.model == "limited"
    # the other debate's calls waited out the vendor's 0.6 s instead of being sent at 0.2 s
    assert all(r.at - refused.at >= 0.59 for r in later), [(r.model, round(r.at - refused.at, 3)) for r in later]


def test_tokens_per_minute_hold_a_call_until_the_bucket_has_room(llm_server: FakeLLMServer) -> None:
    llm_server.script("big", "ok")
    llm_server.script("small", "ok")
    limits = Limits(per_provider={"openai": ProviderLimit(concurrency=8, tpm=60_000)})  # 1,000 tokens a second
    engine = Engine(Store(":memory:"), "d", limits=limits)
    big = Prompt(system="s", messages=[Message(role="user", content="x" * 996)], max_tokens=59_000)  # ~59,250
    small = Prompt(system="s", messages=[Message(role="user", content="y" * 996)], max_tokens=1_000)  # ~1,250

    async def go() -> None:
        [b, s] = judges_on(llm_server, ["big", "small"])
        assert (await engine.call(seat(1, b), big, key="k1", round_no=1, kind="judge")).ok
        assert (await engine.call(seat(2, s), small, key="k2", round_no=1, kind="judge")).ok
        await b.aclose()
        await s.aclose()

    asyncio.run(go())
    first, second = sorted(llm_server.requests, key=lambda r: r.at)
    # 59,250 + 1,250 tokens is 500 more than a minute's 60,000: the second call waited half a second for them
    assert 0.45 <= second.at - first.at < 1.0, second.at - first.at


def test_the_buckets_at_their_boundaries() -> None:
    limit = ProviderLimit(concurrency=8, tpm=6000)  # 100 tokens a second, 6,000 deep
    pace = _Pace()
    assert [_send_time(limit, pace, 2000, 0.0) for _ in range(4)] == [0.0, 0.0, 0.0, 20.0]
    assert _send_time(limit, pace, 99_999, 0.0) == 80.0  # a call over a minute's worth waits for a full bucket
    both = ProviderLimit(concurrency=8, rpm=60, burst=1, tpm=6000)  # one a second, and 100 tokens a second
    pace = _Pace()
    assert [_send_time(both, pace, 10, 0.0) for _ in range(3)] == [0.0, 1.0, 2.0]  # requests bind
    pace = _Pace()
    assert [_send_time(both, pace, 3000, 0.0) for _ in range(3)] == [0.0, 1.0, 30.0]  # then tokens
    pace = _Pace(paused_until=5.0)
    assert _send_time(limit, pace, 10, 1.0) == 5.0  # a Retry-After comes first


def test_a_judges_file_limits_block_is_one_limiter_per_process() -> None:
    block = {"default": {"concurrency": 3}, "anthropic": {"concurrency": 2, "rpm": 50, "tpm": 30_000}}
    first, again = limits_from(block), limits_from(dict(block))
    assert first is not None and first is again  # every debate of a batch started from this file shares it
    assert first.limit_for("anthropic") == ProviderLimit(concurrency=2, rpm=50, tpm=30_000)
    assert limits_from({"default": {"concurrency": 4}}) is not first
    with pytest.raises(UsageError, match=r"limits.openai: tpm must be a positive number of tokens per minute"):
        limits_from({"openai": {"tpm": 0}})
