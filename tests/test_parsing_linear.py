"""Fence scanning is linear in the reply's length: a long run of backticks or tildes (a known failure of
models, which repeat) costs milliseconds, not minutes; and the linear scan finds the very fences that the
former regex search found."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time

import pytest
import yaml

from moot.engine.ask import parsed
from moot.parsing.extract import ReplyError, _fences, extract_mapping

from .replies import round1

# the former scan (quadratic on long runs), kept as the reference for what a fence is
_OLD_OPEN = re.compile(r"(`{3,}+|~{3,}+)[ \t]*+([A-Za-z0-9_+-]*+)[^\n]{0,200}+\n")


def reference_fences(text: str) -> list[tuple[int, str, str]]:
    out = []
    unclosed: dict[str, int] = {}
    pos = 0
    while m := _OLD_OPEN.search(text, pos):
        fence = m.group(1)
        end = -1 if len(fence) >= unclosed.get(fence[0], len(text)) else text.find(fence, m.end())
        if end < 0:
            unclosed[fence[0]] = min(len(fence), unclosed.get(fence[0], len(text)))
            pos = m.start() + 1
            continue
        body = text[m.end() : end]
        out.append((m.start(), m.group(2), body[:-1] if body.endswith("\n") else body))
        pos = end + len(fence)
    return out


def test_the_linear_scan_finds_the_same_fences_as_the_former_one() -> None:
    rng = random.Random(19)
    pieces = ["`", "``", "```", "````", "~~~", "~", "\n", " ", "yaml", "a: 1", "x" * 5, "{", "}"]
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        got = [(f.start, f.lang, f.body) for f in _fences(text)]
        assert got == reference_fences(text), repr(text)


def _seconds(text: str) -> float:
    t0 = time.perf_counter()
    with contextlib.suppress(ReplyError):
        extract_mapping(text)
    return time.perf_counter() - t0


@pytest.mark.parametrize("char", ["`", "~"])
def test_240_kb_of_one_fence_character_costs_under_a_second(char: str) -> None:
    assert _seconds(char * 240_000) < 1.0
    assert _seconds(char * 240_000 + "\n") < 1.0


def test_2_mb_of_backticks_is_bounded_and_a_real_answer_after_them_is_still_read() -> None:
    """The reply cap is 2 MB: the whole of it in backticks is read in bounded time, and the answer a model
    gives after a burst of repetition is found."""
    assert _seconds("`" * 2_000_000) < 5.0
    # runs growing shorter: no run's full length has a closer, and the former scan searched the rest of the
    # reply for each before trying it one shorter
    assert _seconds("".join("`" * k + "\n" for k in range(2000, 2, -1))) < 5.0
    t0 = time.perf_counter()
    burst = "`" * 1_000_000 + " that was a glitch; my answer:\n"
    data = extract_mapping(
        burst + json.dumps(yaml.safe_load(round1(4.0, 4, fenced=False))), required_any=("overall_score",)
    )
    assert time.perf_counter() - t0 < 5.0
    assert data["overall_score"] == 4.0


def test_a_long_reply_is_parsed_off_the_event_loop() -> None:
    """Other debates keep running while one 2 MB reply is read: the loop's ticks never wait long."""
    items = "".join(f"  - point {i}: a claim made at some length, then repeated\n" for i in range(36_000))
    reply = "```yaml\nnotes:\n" + items + "```"
    assert len(reply) > 1_900_000

    async def scenario() -> tuple[float, int]:
        ticks: list[float] = []

        async def ticker() -> None:
            while True:
                await asyncio.sleep(0.01)
                ticks.append(time.perf_counter())

        tick = asyncio.create_task(ticker())
        await asyncio.sleep(0.05)
        t0 = time.perf_counter()
        with contextlib.suppress(ReplyError):
            await parsed(extract_mapping, reply)
        t1 = time.perf_counter()
        await asyncio.sleep(0.05)
        tick.cancel()
        return t1 - t0, sum(t0 < t < t1 for t in ticks)

    took, served = asyncio.run(scenario())
    # parsed on the loop, no tick could run until the parse ended (0 served); off the loop, the other
    # debates' work (here the ticker) goes on throughout. The bound asks for a tenth of the ticks an idle
    # loop would serve, because two busy cores shared by many processes delay a thread that is ready to run.
    assert took > 1.0 and served >= max(5, int(took / 0.01 / 10)), (took, served)
