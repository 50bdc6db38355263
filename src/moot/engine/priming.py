"""A primer: one short call that writes a step's shared prefix to a vendor's cache before the step's judges
send it together.

The judges of a step go out at once, and a vendor's cache serves a prefix only once the call that wrote it
has been processed: three judges on one model in round 1 each pay the artifact's block in full (Anthropic
even at its write rate), and only later rounds read it. So where two or more of a step's calls would send
the same system text (the rules, the rubric, the artifact) to the same cache for the first time, one call
with that system text and a one-word question goes first; the step's calls then read the block at the
cache rate. On a 40 KB artifact this takes a 3-judge evaluate on one Anthropic model from about 4.6 to 3.1
times one judge's single call (`benchmarks/bench_cost.py`).

Only where it pays: a route that shares a cache between calls (the judge's `cache_domain`: Anthropic's
API with its cache directive, OpenAI's API, a gateway passing `cache_control` on), a system text of at
least the 1,024 tokens vendors cache, never for host seats, and never twice for the same prefix in a run.
The primer is an ordinary call to the engine: stored under its own key (`r1/primer/judge-1`), priced in
the spend, counted by the budget gate, replayed on resume; its failure changes nothing but the price.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from moot.engine.prefix_share import CHARS_PER_TOKEN, MIN_CACHED_TOKENS
from moot.judges.base import Seat
from moot.judges.host import is_host
from moot.schemas.messages import Message, Prompt

PRIMER_ASK = "Reply with one word: ready."
PRIMER_TOKENS = 16  # the primer's output bound: its reply is never read
PRIMER_KIND = "primer"

Written = set[tuple[str, str]]  # (cache domain, system text) a call of an earlier step has sent


def cache_of(seat: Seat, prompt: Prompt) -> tuple[str, str] | None:
    """The cache a call's system text lands in, where a primer could write it: None for a host seat, a
    route without a shared cache, or a system text shorter than any vendor caches."""
    domain = getattr(seat.judge, "cache_domain", lambda: None)()
    if not isinstance(domain, str) or is_host(seat) or len(prompt.system) // CHARS_PER_TOKEN < MIN_CACHED_TOKENS:
        return None
    return domain, prompt.system


def primers(calls: Sequence[tuple[Seat, Prompt]], written: Written) -> list[tuple[Seat, Prompt]]:
    """One (seat, primer prompt) per cache that two or more of a step's `calls` would write together, for a
    system text no earlier step has sent there. The seat is the first of its group, with its judge alone
    (a fallback is another model, with another cache)."""
    groups: dict[tuple[str, str], list[Seat]] = {}
    for seat, prompt in calls:
        cache = cache_of(seat, prompt)
        if cache is not None and cache not in written:
            groups.setdefault(cache, []).append(seat)
    return [
        (replace(seats[0], judges=[seats[0].judge]), primer_prompt(system))
        for (_, system), seats in groups.items()
        if len(seats) >= 2
    ]


def primer_prompt(system: str) -> Prompt:
    """The system text every judge of the step shares, and a question whose answer nobody reads."""
    return Prompt(
        system=system,
        messages=[Message(role="user", content=PRIMER_ASK)],
        max_tokens=PRIMER_TOKENS,
        meta={"kind": PRIMER_KIND},
    )


def primer_key(round_no: int, seat: Seat) -> str:
    return f"r{round_no}/{PRIMER_KIND}/{seat.id}"


def written_by(calls: Iterable[tuple[Seat, Prompt]]) -> Written:
    """The caches a step's calls have written, for the steps after it."""
    return {cache for seat, prompt in calls if (cache := cache_of(seat, prompt)) is not None}
