"""A primer writes a round's shared prefix to the vendor's cache before the round's judges send it together.

Through the real Anthropic SDK against the local server, which answers as a vendor's cache does: a request
reads the system block only if a request that sent it had been answered before this one arrived, and writes
it otherwise. Three judges on one Claude model and a large artifact: one primer goes first and alone, the
three round-1 judges then read the block (not write it three times), round 2 sends no primer, and the primer
is a call of the debate (stored, priced, listed, in the dry run, replayed on resume). Where a primer cannot
pay (judges on different models, a small artifact, `prompt_cache: false`, a local server), none is sent.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.engine.priming import PRIMER_ASK, PRIMER_TOKENS
from moot.store import Store
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, KEYS, round1, round2

KEY = "sk-test-PRIME-0001"
DELAY = 0.3  # every reply takes this long, so that "answered before" is a matter of order, not luck
SCORES = {"neutral": 4.0, "for": 4.6, "against": 3.2}  # apart in round 1: a second round


class CachingVendor:
    """Replies by round and stance, with the usage a vendor's prompt cache reports."""

    def __init__(self, *, fail_judges: bool = False) -> None:
        self.answered: list[tuple[str, float]] = []  # (system text, when its reply was complete)
        self.lock = threading.Lock()
        self.fail_judges = fail_judges

    def __call__(self, model: str, body: dict[str, Any]) -> Reply:
        system = system_of(body)
        user = str(body["messages"][-1]["content"])
        arrived = time.monotonic()
        with self.lock:
            read = any(s == system and done <= arrived for s, done in self.answered)
            self.answered.append((system, arrived + DELAY))
        tokens = len(system) // 4
        usage = {"cached_tokens": tokens} if read else {"cache_write_tokens": tokens}
        if user == PRIMER_ASK:
            return Reply(text="ready", delay=DELAY, **usage)
        if self.fail_judges:
            return Reply(status=503, delay=DELAY)
        stance = next(s for s in SCORES if f"Your stance: {s}" in user)
        text = round1(SCORES[stance], 4) if "Round 1 of" in user else round2(4.0, {k: 4.0 for k in KEYS})
        return Reply(text=text, delay=DELAY, **usage)


def system_of(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, list):
        return "".join(str(b.get("text", "")) for b in system)
    first = body["messages"][0]
    return str(first["content"]) if first.get("role") == "system" else ""


def big_artifact(tmp_path: Path, kb: int = 8) -> Path:
    path = tmp_path / "src" / "orders.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    line = "def total(order):\n    return sum(item.price * item.quantity for item in order.items)\n"
    path.write_text(line * (kb * 1000 // len(line) + 1), encoding="utf-8")
    return path


def write_panel(path: Path, server: FakeLLMServer, models: list[str], **extra: Any) -> Path:
    judges = [
        {"model": m, "provider": "anthropic", "api_base": server.root_url, "api_key_env": "PRIME_TEST_KEY",
         "stance": s, **extra}
        for m, s in zip(models, SCORES, strict=True)
    ]  # fmt: skip
    path.write_text(yaml.safe_dump({"debate_judges": judges, "retry": {"max_retries": 0}}), encoding="utf-8")
    return path


def evaluate(judges: Path, artifact: Path, *more: str) -> list[str]:
    return ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), *more]


def primers(server: FakeLLMServer) -> list[Any]:
    return [r for r in server.requests if r.body["messages"][-1]["content"] == PRIMER_ASK]


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRIME_TEST_KEY", KEY)


def run_panel(server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], **extra: Any) -> Any:
    name = "off" if extra else "primed"
    judges = write_panel(tmp_path / f"{name}.yaml", server, ["claude-sonnet-4-6"] * 3, **extra)
    artifact = big_artifact(tmp_path / name)
    assert main(evaluate(judges, artifact, "--format", "json")) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_one_primer_goes_first_and_round_1_reads_what_it_wrote(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.responder = CachingVendor()
    out = run_panel(llm_server, tmp_path, capsys)
    [primer] = primers(llm_server)
    judged = [r for r in llm_server.requests if r is not primer]
    assert len(judged) == 6 and out["rounds_completed"] == 2
    assert primer is llm_server.requests[0] and primer.body["max_tokens"] == PRIMER_TOKENS
    assert "output_config" in judged[0].body and "output_config" not in primer.body  # no reply schema
    assert primer.body["system"] == judged[0].body["system"]  # the very block the judges send
    assert min(r.at for r in judged) >= primer.at + DELAY  # the judges went once the primer was answered

    # round 1: the primer and three judges, who read the block it wrote; round 2 reads it too, unprimed
    rounds = out["spend"]["per_round"]
    assert (rounds["round_1"]["calls"], rounds["round_1"]["cache_hits"]) == (4, 3)
    assert (rounds["round_2"]["calls"], rounds["round_2"]["cache_hits"]) == (3, 3)
    calls = Store.open_default().attempts(out["debate_id"])
    assert [(c.call_key, c.kind, c.status) for c in calls if c.kind == "primer"] == [
        ("r1/primer/judge-1", "primer", "ok")
    ]
    assert out["spend"]["calls"] == 7

    # the same panel with `prompt_cache: false`: no directive, no primer, round 1's judges read nothing
    llm_server.requests.clear()
    llm_server.responder = CachingVendor()
    off = run_panel(llm_server, tmp_path, capsys, prompt_cache=False)
    assert not primers(llm_server) and len(llm_server.requests) == 6
    assert off["spend"]["per_round"]["round_1"]["cache_hits"] == 0
    assert off["verdict"] == out["verdict"] and off["summary"] == out["summary"]
    assert out["spend"]["cost_usd"] < 0.8 * off["spend"]["cost_usd"]  # the primer pays for itself and more


@pytest.mark.parametrize(
    "case",
    ["three models", "small artifact", "local server"],
)
def test_no_primer_where_it_cannot_pay(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    llm_server.responder = CachingVendor()
    artifact = big_artifact(tmp_path, kb=2 if case == "small artifact" else 8)
    models = ["claude-sonnet-4-6", "claude-sonnet-4-5", "claude-haiku-4-5"] if case == "three models" else ["c"] * 3
    judges = write_panel(tmp_path / "judges.yaml", llm_server, models)
    if case == "local server":  # an OpenAI-compatible server of the user's: it reuses a prefix on its own
        data = yaml.safe_load(judges.read_text())
        for j in data["debate_judges"]:
            j.update(provider="openai", api_base=llm_server.base_url)
        judges.write_text(yaml.safe_dump(data))
    assert main(evaluate(judges, artifact, "--format", "json")) == 0, capsys.readouterr().err
    assert not primers(llm_server) and len(llm_server.requests) == 6


def test_the_dry_run_lists_the_primer_and_expects_round_1_to_read_it(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    artifact = big_artifact(tmp_path)
    shares = {}
    for name, extra in (("primed", {}), ("off", {"prompt_cache": False})):
        judges = write_panel(tmp_path / f"{name}.yaml", llm_server, ["claude-sonnet-4-6"] * 3, **extra)
        assert main(evaluate(judges, artifact, "--dry-run", "--format", "json")) == 0
        plan = json.loads(capsys.readouterr().out)
        phases = [c.get("phase") for c in plan["calls"]]
        assert phases.count("primer") == (1 if name == "primed" else 0), phases
        shares[name] = plan["prompt_cache"]["expected_cached_share"]
    assert shares["primed"] > shares["off"]
    assert not llm_server.requests  # a dry run sends nothing


def test_a_resumed_round_does_not_send_its_primer_again(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.responder = CachingVendor(fail_judges=True)
    judges = write_panel(tmp_path / "judges.yaml", llm_server, ["claude-sonnet-4-6"] * 3)
    assert main(evaluate(judges, big_artifact(tmp_path), "--format", "json")) == 3
    capsys.readouterr()
    assert len(primers(llm_server)) == 1
    (row,) = Store.open_default().list_debates()
    llm_server.responder = CachingVendor()
    assert main(["resume", row.id, "--format", "json"]) == 0, capsys.readouterr().err
    assert len(primers(llm_server)) == 1  # replayed from the store, not sent or paid again


class Cached:
    """A judge on a route whose calls share a cache named `domain` (None: a route that shares none)."""

    provider = "anthropic"

    def __init__(self, model: str = "claude-sonnet-4-6", domain: str | None = "anthropic  claude-sonnet-4-6") -> None:
        self.model = model
        self.domain = domain

    def cache_domain(self) -> str | None:
        return self.domain

    async def complete(self, prompt: Any, *, timeout: float) -> Any:
        raise AssertionError("never called")

    async def aclose(self) -> None:
        return None


def seat(n: int, judge: Any | None = None) -> Any:
    from moot.judges.base import Seat

    return Seat(f"judge-{n}", n, "claude", "neutral", "", [judge or Cached(), Cached(model="fallback")])


def asked(system_tokens: int) -> Any:
    from moot.schemas.messages import Message, Prompt

    return Prompt(system="x" * 4 * system_tokens, messages=[Message(role="user", content="Round 1 of 3")])


@pytest.mark.parametrize(
    ("tokens", "seats", "expected"),
    [(1024, 2, 1), (1023, 2, 0), (1024, 1, 0), (40_000, 3, 1)],
)
def test_a_primer_takes_two_seats_on_one_cache_and_a_prefix_vendors_cache(
    tokens: int, seats: int, expected: int
) -> None:
    from moot.engine.priming import primers, written_by

    calls = [(seat(n), asked(tokens)) for n in range(1, seats + 1)]
    made = primers(calls, set())
    assert len(made) == expected
    for primed, prompt in made:
        assert [j.model for j in primed.judges] == ["claude-sonnet-4-6"]  # the seat's judge alone, no fallback
        assert prompt.system == calls[0][1].system and prompt.max_tokens == PRIMER_TOKENS and not prompt.json_schema
    assert not primers(calls, written_by(calls))  # written by an earlier step: never twice


def test_no_primer_across_caches_or_for_a_host_seat() -> None:
    from moot.engine.priming import primers
    from moot.judges.host import HostJudge

    two_caches = [(seat(1), asked(2000)), (seat(2, Cached(domain="anthropic  claude-haiku-4-5")), asked(2000))]
    assert not primers(two_caches, set())
    no_cache = [(seat(n, Cached(domain=None)), asked(2000)) for n in (1, 2)]
    assert not primers(no_cache, set())
    other_system = [(seat(1), asked(2000)), (seat(2), asked(2001))]
    assert not primers(other_system, set())
    host = [(seat(1), asked(2000)), (seat(2, HostJudge()), asked(2000))]
    assert not primers(host, set())
