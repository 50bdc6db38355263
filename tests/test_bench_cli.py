"""`moot bench` through the CLI on the local server: the JSON keys of the contract, the text tables and the
verdict, `--html`, `--dry-run`, running again, a failed item (exit 1) and bad input (exit 2, nothing sent).
Judges of known behaviour come from tests/bench_judges.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from moot.cli.app import main
from moot.testing import FakeLLMServer

from .bench_judges import (
    Behaviour,
    always_a,
    always_right,
    always_wrong,
    broken_on,
    judges_file,
    pairs,
    serve,
    write_jsonl,
)
from .judgebench_sample import pin_sample

MODELS = ("judge-a", "judge-b", "judge-c")
PRICES = {m: {"input_per_mtok": 1.0, "output_per_mtok": 2.0} for m in MODELS}
TOP = {"suite", "kind", "items", "seed", "swap_consistency", "verdict", "strategies", "per_item", "by_source", "notes"}
TOP |= {"differences", "margin", "both_orders"}  # issue 21
TOP |= {"effective_judges", "aggregates"}  # issue 30
ISSUE_21 = {"ties", "accuracy_given_order", "position", "calibration", "ece"}
COMMON = {"accuracy", "ci95", "kappa", "calls_per_item", "tokens_per_item", "cost_per_item", "swap_consistency"}
COMMON |= ISSUE_21
EXTRA = {
    "single": {
        "judges",
        "best",
        "best_accuracy",
        "mean_accuracy",
        "chosen",
        "chosen_on",
        "held_out",
        "chosen_accuracy",
    },
    "vote": set(),
    "vote@equal": {"samples"},
    "debate": {"round1_share", "helpful_flips", "harmful_flips", "collapse", "mcnemar", "threshold", "note"}
    | {"talked_out", "not_rescued", "aggregator_changes", "round1_vs_final"},
}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["bench", *args, "--no-progress"])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def setup(
    tmp_path: Path,
    server: FakeLLMServer,
    rows: list[dict[str, Any]],
    behaviours: list[Behaviour],
    **extra: Any,
) -> tuple[str, str]:
    serve(server, rows, dict(zip(MODELS, behaviours, strict=True)), usage=(1000, 100))
    gold = write_jsonl(tmp_path / "gold.jsonl", rows)
    return str(gold), str(judges_file(tmp_path, server, MODELS, **extra))


def test_json_has_exactly_the_contract_keys_and_costs_worked_out_by_hand(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, judges = setup(
        tmp_path, llm_server, pairs(4, lambda i: i < 2), [always_right] * 2 + [always_wrong], pricing=PRICES
    )
    code, out, _ = run(capsys, gold, "--judges", judges, "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == TOP
    assert list(data["strategies"]) == ["single", "vote", "vote@equal", "debate"]
    for name, figures in data["strategies"].items():
        assert set(figures) == COMMON | EXTRA[name], name
    assert set(data["strategies"]["debate"]["mcnemar"]) == {"versus", "debate_only", "versus_only", "p_value", "test"}
    assert set(data["strategies"]["single"]["judges"]["correctness"]) == {
        "accuracy",
        "ci95",
        "kappa",
        "model",
        "swap_consistency",
        *ISSUE_21,
    }
    assert set(data["differences"]) == {"debate-vote", "debate-vote@equal", "vote-single", "vote@equal-vote"}
    assert all(set(d) == {"estimate", "ci95", "p_value", "test", "n"} for d in data["differences"].values())
    assert set(data["per_item"][0]) == {"id", "gold", "source", "answers", "judges", "swapped", "debate_ids"}
    # every reply reports 1,000 tokens in and 100 out, at $1 and $2 per million: $0.0012 a call
    vote, single, debate = (data["strategies"][n] for n in ("vote", "single", "debate"))
    assert vote["cost_per_item"] == pytest.approx(3 * 0.0012) and vote["tokens_per_item"] == 3 * 1100
    assert single["cost_per_item"] == pytest.approx(0.0012) and single["calls_per_item"] == 1
    assert debate["cost_per_item"] == pytest.approx(6 * 0.0012) and debate["calls_per_item"] == 6
    assert data["strategies"]["vote"]["accuracy"] == 1.0 and data["strategies"]["single"]["mean_accuracy"] == 2 / 3
    # four items (two held out for the single judge) cannot tell the strategies apart; no TOST, no "equivalent"
    assert "inconclusive at n = 2" in data["verdict"] and "equivalent" not in data["verdict"]  # single: held out


def test_text_output_is_the_tables_then_the_verdict(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, judges = setup(tmp_path, llm_server, pairs(5, lambda i: i < 3), [always_a] * 3)
    code, out, _ = run(capsys, gold, "--judges", judges, "--strategies", "single,vote,debate")
    assert code == 0
    # JudgeBench's protocol: always A is never right in both orders; 60% in the given order
    assert "| single (mean judge) | 0.0% |" in out and "| vote | 0.0% |" in out and "| debate | 0.0% |" in out
    assert "| vote | 0.0% | 0.0% to 43.4% | 60.0% |" in out  # Wilson's interval, then the given order
    assert "| **correctness** (best) | judge-a | 0.0% |" in out
    assert "Decided in round 1 | 100.0%" in out
    assert "vote@equal" not in out.split("Notes")[0]
    assert "unanimity" in out and "three judges" not in out and "3 judges" in out  # the threshold note
    assert "| debate-vote | +0.0 |" in out and "Position bias" in out
    assert out.rstrip().split("\n\n")[-1].startswith("Verdict: ")
    assert out.index("| Strategy |") < out.index("Verdict:")


def test_html_writes_one_page_with_the_chart_the_flips_and_each_source_escaped(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = pairs(4, lambda i: i % 2 == 0, source="<script>alert(1)</script>")
    gold, judges = setup(tmp_path, llm_server, rows, [always_right, always_right, always_wrong])
    # a vendor's models behind the server (a provider named): unpriced, unlike a server of one's own on this machine
    Path(judges).write_text(Path(judges).read_text().replace("api_base:", "provider: remote-vendor\n  api_base:"))
    page = tmp_path / "bench.html"
    code, _, _ = run(capsys, gold, "--judges", judges, "--html", str(page), "--strategies", "vote,debate")
    assert code == 0
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html and html.count('class="strategy"') == 2
    for title in ("Accuracy against cost", "What the debate changed", "Position consistency", "Accuracy per source"):
        assert f"<h2>{title}</h2>" in html
    assert "Helpful flips" in html and "calls per item (a price is unknown)" in html
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script" not in html.replace("&lt;script", "")


def test_judgebench_from_a_local_copy_broken_down_by_source(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = pin_sample(monkeypatch)  # tests/data's JudgeBench-format file, pinned in place of the real one
    rows = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines()]
    serve(llm_server, rows, dict.fromkeys(MODELS, always_a))
    judges = judges_file(tmp_path, llm_server, MODELS)
    args = ["judgebench", "--data", str(sample), "--limit", "8", "--judges", str(judges)]
    code, out, _ = run(capsys, *args, "--format", "json", "--strategies", "vote")
    assert code == 0
    data = json.loads(out)
    # the seed-0 sample of 8: three mmlu pairs (all A>B), three livebench (two A>B), two livecodebench (one A>B)
    # under JudgeBench's protocol (right in both orders) always-A is never right; in the given order, 6 of 8
    assert {s: f["accuracy"]["vote"] for s, f in data["by_source"].items()} == {
        "mmlu": 0.0,
        "livebench": 0.0,
        "livecodebench": 0.0,
    }
    assert data["strategies"]["vote"]["accuracy"] == 0.0 and data["swap_consistency"] == 0.0
    assert data["strategies"]["vote"]["accuracy_given_order"] == 0.75
    assert len(llm_server.requests) == 8 * 2 * 3


def test_running_again_continues_without_a_single_new_call(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, judges = setup(tmp_path, llm_server, pairs(3, lambda i: i == 0), [always_right, always_right, always_wrong])
    code, first, _ = run(capsys, gold, "--judges", judges, "--format", "json")
    sent = len(llm_server.requests)
    code_again, again, _ = run(capsys, gold, "--judges", judges, "--format", "json")
    assert (code, code_again) == (0, 0)
    assert len(llm_server.requests) == sent and json.loads(again) == json.loads(first)


def test_a_failed_debate_exits_1_says_how_many_and_leaves_its_item_out(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = broken_on("Item 1:", always_right)
    gold, judges = setup(tmp_path, llm_server, pairs(3, lambda i: True), [always_right, broken, broken])
    code, out, err = run(capsys, gold, "--judges", judges, "--format", "json", "--no-swap", "--strategies", "vote")
    assert code == 1
    assert "1 of the bench's debates failed (1 item left out of the figures)" in err
    data = json.loads(out)
    assert data["items"] == 2 and [p["id"] for p in data["per_item"]] == ["q0", "q2"]
    assert any("left out" in note for note in data["notes"])


def test_the_dry_run_prices_the_bench_and_sends_nothing(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gold, judges = setup(tmp_path, llm_server, pairs(4, lambda i: True), [always_a] * 3, pricing=PRICES)
    code, out, _ = run(capsys, gold, "--judges", judges, "--dry-run", "--format", "json")
    assert code == 0 and llm_server.requests == []
    data = json.loads(out)
    assert data["dry_run"] is True and data["items"] == 4 and data["swap"] is True
    # 4 items in 2 orders: 3 calls each if round 1 settles it, 6 if not; then vote@equal's k is 7 (odd), so
    # two extra round-1 debates per item and order
    assert data["calls"] == {"low": 4 * 2 * 3, "high": 4 * 2 * 6 + 4 * 2 * 2 * 3}
    assert 0 < data["typical_usd"]["low"] < data["typical_usd"]["high"] < data["worst_usd"]
    code, text, _ = run(capsys, gold, "--judges", judges, "--dry-run")
    assert code == 0 and "typical cost: $" in text and "worst case $" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-suite"], "no suite named 'no-such-suite'"),
        (["{gold}", "--strategies", "single,debait"], "unknown strategy 'debait'"),
        (["{scored}", "--swap"], "--swap judges a pair in both orders"),
        (["{bad}"], "bad.jsonl:2"),
        (["{gold}", "--format", "yaml"], "--format must be one of text, json"),
        (["{gold}", "--limit", "0"], "--limit must be at least 1"),
        (["{same}"], "same.jsonl:2 (pairwise item): response_A and response_B are identical"),
        (["{gold}", "--margin", "0"], "--margin is in accuracy points"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_sent(
    args: list[str],
    message: str,
    tmp_path: Path,
    llm_server: FakeLLMServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    gold, judges = setup(tmp_path, llm_server, pairs(2, lambda i: True), [always_a] * 3)
    scored = write_jsonl(tmp_path / "scored.jsonl", [{"id": 1, "task": "t", "artifact": "x = 1", "gold": "pass"}])
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(pairs(1, lambda i: True)[0]) + '\n{"id": "q9", "question": "?", "label": "A>B"}\n')
    same = tmp_path / "same.jsonl"
    twin = {**pairs(2, lambda i: True)[1], "response_B": pairs(2, lambda i: True)[1]["response_A"]}
    same.write_text(json.dumps(pairs(1, lambda i: True)[0]) + "\n" + json.dumps(twin) + "\n")
    paths = {"gold": gold, "scored": str(scored), "bad": str(bad), "same": str(same)}
    code, out, err = run(capsys, *(a.format(**paths) for a in args), "--judges", judges)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
    assert llm_server.requests == []


def test_sigterm_stops_the_bench_with_130_and_the_same_command_continues_it(
    tmp_path: Path, llm_server: FakeLLMServer, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    n = 12
    gold, judges = setup(tmp_path, llm_server, pairs(n, lambda i: True), [always_a] * 3)
    slow = llm_server.responder
    assert slow is not None

    def delayed(model: str, body: dict[str, Any]) -> Any:
        reply = slow(model, body)
        reply.delay = 0.3 if model == "judge-c" else 0.0
        return reply

    llm_server.responder = delayed
    args = [gold, "--judges", judges, "--format", "json", "--concurrency", "4"]
    env = {**os.environ, "MOOT_HOME": str(isolated_home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "moot", "bench", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    results = lambda: list(isolated_home.glob("bench/runs/*/items.results.jsonl"))  # noqa: E731
    while not (results() and len(results()[0].read_text().splitlines()) >= 6) and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert out == "" and "run the same moot bench command again" in err

    llm_server.responder = slow
    code, again, _ = run(capsys, *args)
    assert code == 0 and json.loads(again)["items"] == n
    # a call completed before the signal (18 at least) is not paid again: only the debates in flight are asked again
    assert len(llm_server.requests) <= n * 2 * 3 + 4 * 3
