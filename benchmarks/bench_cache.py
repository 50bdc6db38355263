"""Benchmark: how much of a debate's input a vendor's prompt cache can serve (the cached-token share).

Runs a full three-round `moot evaluate` debate against the local server (replies that never converge, so
all rounds run), then measures, for every call, the longest prefix it shares with an earlier call to the
same model: that is what OpenAI's, Anthropic's and Gemini's prompt caches can serve. Prefixes shorter than
the vendors' minimum (1,024 tokens) count as uncached. Tokens are characters / 4.

    python benchmarks/bench_cache.py [--artifact FILE] [--judges 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

CRITERIA = "correctness:30,design:25,security:20,performance:15,docs:10"
KEYS = ["correctness", "design", "security", "performance", "docs"]
MIN_CACHEABLE_TOKENS = 1024


def _reply(model: str, body: dict[str, Any]) -> Any:
    from moot.testing import Reply

    score = [1.5, 3.0, 4.5][int(model.rsplit("-", 1)[1]) % 3]
    user = body["messages"][-1]["content"]
    round_no = 1 if "Round 1 of" in user else (3 if "FINAL POSITIONS" in user else 2)
    key = {1: "overall_score", 2: "new_score", 3: "final_score"}[round_no]
    data = {
        "round": round_no,
        key: score,
        "dimension_scores": {k: round(score) for k in KEYS},
        "position_statement": "Assessment with evidence. " * 40,
        "key_claims": [{"claim": "c", "evidence": "e", "confidence": "HIGH"}],
        "critical_findings": [],
    }
    return Reply(text=yaml.safe_dump(data))


def _flat(body: dict[str, Any]) -> str:
    return "\x00".join(f"{m['role']}:{m['content']}" for m in body["messages"])


def _common(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def measure(requests: list[Any], same_model: bool) -> dict[str, tuple[int, int]]:
    """Per round: (cacheable tokens, input tokens)."""
    seen: list[tuple[str, str]] = []
    out: dict[str, tuple[int, int]] = {}
    for r in requests:
        text = _flat(r.body)
        user = r.body["messages"][-1]["content"]
        rnd = "round 1" if "Round 1 of" in user else ("round 3" if "FINAL POSITIONS" in user else "round 2")
        group = "all" if same_model else r.model
        best = max((_common(text, t) for g, t in seen if g == group), default=0)
        cached = best // 4 if best // 4 >= MIN_CACHEABLE_TOKENS else 0
        c, t = out.get(rnd, (0, 0))
        out[rnd] = (c + cached, t + len(text) // 4)
        seen.append((group, text))
    return out


async def _debate(base_url: str, n: int, artifact: Path, home: Path) -> Any:
    from moot import api
    from moot.store import Store

    judges = [
        {"model": f"bench-{i}", "stance": ["neutral", "for", "against"][i % 3], "api_base": base_url} for i in range(n)
    ]
    store = Store(home / "moot.db")
    try:
        return await api.evaluate(str(artifact), criteria=CRITERIA, judges=judges, reports_dir=None, store=store)
    finally:
        store.close()


def main() -> None:
    from moot.testing import FakeLLMServer

    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--artifact", default=str(Path(__file__).resolve().parent.parent / "src/moot/demo/users-api/users.ts")
    )
    ap.add_argument("--judges", type=int, default=3)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="moot-cache-"))
    os.environ["MOOT_HOME"] = str(tmp)
    with FakeLLMServer() as server:
        server.responder = _reply
        result = asyncio.run(_debate(server.base_url, args.judges, Path(args.artifact), tmp))
        requests = list(server.requests)
    art_tokens = len(Path(args.artifact).read_text()) // 4
    print(
        f"{args.judges} judges, {result.rounds_completed} rounds, {len(requests)} calls, artifact ~{art_tokens} tokens"
    )
    for label, same in (("every judge on one model", True), ("each judge on its own model", False)):
        rows = measure(requests, same)
        total_c = sum(c for c, _ in rows.values())
        total_t = sum(t for _, t in rows.values())
        parts = ", ".join(f"{k} {100 * c / t:.0f}%" for k, (c, t) in rows.items())
        print(f"  cacheable share, {label}: {100 * total_c / total_t:.0f}% of {total_t:,} input tokens ({parts})")


if __name__ == "__main__":
    main()
