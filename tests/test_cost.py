"""Cost a user can see and cap: `--dry-run` prints the seed's table for the actual lineup and artifact
(and its call counts are the calls a debate then makes), `--max-cost` never starts a round whose worst
case could cross the cap, and prices come from the offline table or the judges file's overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moot.cli.app import main
from moot.engine.pricing import PriceOverride, Pricing
from moot.judges.factory import build_judges
from moot.judges.providers import LOCAL_MAX_OUTPUT_TOKENS
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Usage
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, round1, round2, round3

MODELS = ["judge-a", "judge-b", "judge-c"]
# output at $10 per million tokens, input free: a call's cost is its output tokens / 100,000
PRICES = {m: {"input_per_mtok": 0, "output_per_mtok": 10} for m in MODELS}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    code = main(["evaluate", *args, "--format", "json", "--no-reports"])
    cap = capsys.readouterr()
    return code, (json.loads(cap.out) if cap.out.strip() else {}), cap.err


def args(artifact: Path, judges: Path) -> list[str]:
    return ["-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges)]


def script_three_rounds(server: FakeLLMServer, output_tokens: int | None = None) -> None:
    scores = {"judge-a": (3.6, 3.5, 3.5), "judge-b": (4.3, 3.9, 3.8), "judge-c": (2.8, 3.0, 2.9)}
    for model, (s1, s2, s3) in scores.items():
        server.script(
            model,
            *[Reply(text=t, output_tokens=output_tokens) for t in (round1(s1, round(s1)), round2(s2), round3(s3))],
        )


def test_dry_run_prints_the_seed_table_and_sends_nothing(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    code = main(["evaluate", *args(artifact, judges_file(pricing=PRICES)), "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0 and llm_server.requests == []
    assert "| Scenario | Rounds | Judge Calls | Estimated Cost | Worst Case |" in out
    assert "| Round 1 consensus | 1 | 3 " in out and "| Round 2 consensus | 2 | 6 " in out
    assert "| Round 3 (max) | 3 | 9 " in out


def test_dry_run_estimate_grows_with_the_artifact_and_prices_by_the_overrides(
    llm_server: FakeLLMServer, judges_file, artifact: Path, tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    judges = judges_file(pricing={m: {"input_per_mtok": 1, "output_per_mtok": 0} for m in MODELS})
    _, small, _ = run(capsys, *args(artifact, judges), "--dry-run")
    big = tmp_path / "big.ts"
    big.write_text(artifact.read_text() * 200)
    _, large, _ = run(capsys, *args(big, judges), "--dry-run")
    grown = large["artifact_tokens"] - small["artifact_tokens"]
    assert grown > 3000
    # every call carries the artifact in its prompt: the input estimate grows by it, per call
    first_small, first_large = small["calls"][0], large["calls"][0]
    # counted at 3.5 characters a token for a judge on a local (grammar) server, the artifact's size at 4
    assert first_large["input_tokens"] - first_small["input_tokens"] == pytest.approx(grown * 4 / 3.5, rel=0.01)
    # input at $1 per million tokens: the typical cost is the input tokens priced (cached prefix cheaper)
    assert first_large["typical_usd"] == pytest.approx(first_large["input_tokens"] / 1e6, rel=1e-3)
    one_round = large["scenarios"][0]
    assert one_round["typical_usd"] == pytest.approx(sum(c["typical_usd"] for c in large["calls"][:3]), rel=1e-6)
    assert one_round["worst_usd"] > one_round["typical_usd"]


@pytest.mark.parametrize(("rounds_scripted", "expected_calls_index"), [(1, 0), (2, 1), (3, 2)])
def test_dry_run_call_counts_are_the_calls_a_debate_makes(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys, rounds_scripted: int, expected_calls_index: int
) -> None:  # type: ignore[no-untyped-def]
    judges = judges_file()
    _, estimate, _ = run(capsys, *args(artifact, judges), "--dry-run")
    if rounds_scripted == 1:
        for m in MODELS:
            llm_server.script(m, round1(4.0, 4))
    elif rounds_scripted == 2:
        llm_server.script("judge-a", round1(4.0, 4), round2(4.0))
        llm_server.script(
            "judge-b",
            round1(4.8, 5),
            round2(4.2, {k: 4 for k in ["correctness", "design", "security", "performance", "docs"]}),
        )
        llm_server.script(
            "judge-c",
            round1(3.0, 3),
            round2(3.9, {k: 4 for k in ["correctness", "design", "security", "performance", "docs"]}),
        )
    else:
        script_three_rounds(llm_server)
    code, out, _ = run(capsys, *args(artifact, judges))
    assert code == 0 and out["rounds_completed"] == rounds_scripted
    scenario = estimate["scenarios"][expected_calls_index]
    assert scenario["rounds"] == rounds_scripted
    assert scenario["calls"] == len(llm_server.requests) == out["spend"]["calls"]
    # and the per-call estimate names the same seats and rounds the debate called
    planned = sorted((c["round"], c["seat"]) for c in estimate["calls"] if c["round"] <= rounds_scripted)
    made = sorted(
        (int(k.split("_")[1]), s) for k in out["round_progression"] for s in ["judge-1", "judge-2", "judge-3"]
    )
    assert planned == made


def test_max_cost_stops_before_round_3_and_keeps_the_verdict(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    # max_tokens 1000 at $10/Mtok: a call costs at most $0.01, with its clarification $0.02; a round of
    # three judges at worst $0.06. Each reply spends $0.01 (1000 output tokens): $0.03 per round.
    # Round 1: 0 + 0.06 fits $0.10; round 2: 0.03 + 0.06 fits; round 3: 0.06 + 0.06 would not.
    script_three_rounds(llm_server, output_tokens=1000)
    judges = judges_file(pricing=PRICES)
    text = judges.read_text().replace("api_base:", "max_tokens: 1000\n  api_base:")
    judges.write_text(text)
    code, out, _ = run(capsys, *args(artifact, judges), "--max-cost", "0.10")
    assert code == 0
    assert len(llm_server.requests) == 6 and out["rounds_completed"] == 2
    assert out["spend"]["cost_usd"] == pytest.approx(0.06) and out["spend"]["cost_usd"] <= 0.10
    assert any("stopped before round 3" in n and "--max-cost $0.1" in n for n in out["notes"])
    assert out["summary"]["final_verdict"] in ("PASS", "CONDITIONAL", "FAIL")
    assert out["consensus_reached"] is False
    assert all(r.body["max_tokens"] == 1000 for r in llm_server.requests)
    # the same debate without a cap runs its third round
    assert llm_server.remaining("judge-a") == 1


def test_max_cost_bounds_every_call_when_judges_set_no_max_tokens(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    for m in MODELS:
        llm_server.script(m, round1(4.0, 4))
    code, _, _ = run(capsys, *args(artifact, judges_file(pricing=PRICES)), "--max-cost", "5")
    assert code == 0
    # judges on an api_base decode under a grammar: their default bound is the local one, not 8192
    assert [r.body.get("max_tokens") for r in llm_server.requests] == [LOCAL_MAX_OUTPUT_TOKENS] * 3


def test_max_cost_below_round_1_worst_case_makes_no_call(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, *args(artifact, judges_file(pricing=PRICES)), "--max-cost", "0.01")
    assert code == 3 and llm_server.requests == []
    assert "stopped before round 1" in err


def remote(path: Path, server: FakeLLMServer) -> Path:
    """The judges as if their server were a vendor's (`provider:` named): unpriced unless the file prices them.
    (An `api_base` on this machine with no provider is the user's own server, and costs $0.)"""
    path.write_text(path.read_text().replace("  api_base:", "  provider: remote-vendor\n  api_base:"))
    return path


def test_max_cost_needs_a_price_for_every_model(llm_server: FakeLLMServer, judges_file, artifact: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, *args(artifact, remote(judges_file(), llm_server)), "--max-cost", "1")
    assert code == 2 and llm_server.requests == []
    assert err.strip().splitlines() == [
        "moot: error: --max-cost needs a price for judge-a, judge-b, judge-c: add it under 'pricing:' in the "
        "judges file (input_per_mtok, output_per_mtok)"
    ]
    code, _, err = run(capsys, *args(artifact, judges_file(pricing=PRICES)), "--max-cost", "-1")
    assert code == 2 and "--max-cost must be a positive number" in err


def test_bad_pricing_block_is_a_usage_error(llm_server: FakeLLMServer, judges_file, artifact: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    judges = judges_file(pricing={"judge-a": {"input_per_mtok": 1}})
    code, _, err = run(capsys, *args(artifact, judges))
    assert code == 2 and "pricing.judge-a" in err and "output_per_mtok" in err and llm_server.requests == []


def test_spend_is_recorded_per_judge_and_round_with_cached_share(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    prices = {m: {"input_per_mtok": 2, "output_per_mtok": 10, "cached_input_per_mtok": 0.5} for m in MODELS}
    for m in MODELS:
        llm_server.script(m, Reply(text=round1(4.0, 4), input_tokens=2000, output_tokens=500, cached_tokens=1500))
    code, out, _ = run(capsys, *args(artifact, judges_file(pricing=prices)))
    assert code == 0
    per_call = (500 * 2 + 1500 * 0.5 + 500 * 10) / 1e6
    sp = out["spend"]
    assert sp["cost_usd"] == pytest.approx(3 * per_call)
    assert sp["cached_tokens"] == 4500 and sp["input_tokens"] == 6000
    assert sp["per_judge"]["judge-2"]["cost_usd"] == pytest.approx(per_call)
    assert sp["per_round"]["round_1"]["calls"] == 3
    assert sp["unpriced_models"] == []


@pytest.mark.parametrize(
    ("priced", "total"),
    [(["judge-a"], "$0.0100 + unknown"), ([], "unknown")],
    ids=["partly priced", "nothing priced"],
)
def test_text_says_an_unknown_price_is_unknown_as_html_does(
    priced: list[str], total: str, llm_server: FakeLLMServer, judges_file, artifact: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    for m in MODELS:
        llm_server.script(m, Reply(text=round1(4.0, 4), input_tokens=1000, output_tokens=1000))
    prices = {m: PRICES[m] for m in priced}
    judges = remote(judges_file(pricing=prices), llm_server)
    code = main(["evaluate", *args(artifact, judges), "--no-reports", "--quiet"])
    text = capsys.readouterr().out
    assert code == 0 and "+?" not in text
    (row,) = [line for line in text.splitlines() if line.startswith("| **Total** |")]
    assert row.endswith(f"| {total} |")
    assert "no price known for " in text
    debate_id = text.split("Debate ", 1)[1].split(":", 1)[0]
    assert main(["show", debate_id]) == 0
    assert f"| {total} |" in capsys.readouterr().out
    assert main(["report", debate_id, "--html", "-"]) == 0
    assert total in capsys.readouterr().out  # the HTML report's words for it


def test_pricing_table_local_free_and_unknown_unpriced() -> None:
    p = Pricing()
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    for provider, model in [
        ("openai", "gpt-5.2"),
        ("xai", "grok-4"),
        ("gemini", "gemini-3-pro-preview"),
        ("anthropic", "claude-haiku-4-5"),
    ]:
        cost = p.cost(provider, model, usage)
        assert cost is not None and cost > 1, (provider, model)
    assert p.cost("ollama", "llama3.3", usage) == 0.0
    assert p.cost("custom", "my-finetune-xyz", usage) is None


def test_a_judge_on_this_machine_costs_nothing_and_one_elsewhere_needs_a_price() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    for base, cost in [("http://127.0.0.1:8000/v1", 0.0), ("http://localhost:11434/v1", 0.0), ("http://[::1]:9/v1", 0.0),
                       ("http://gpu-box:8000/v1", None), ("http://10.0.0.5:8000/v1", None)]:  # fmt: skip
        [judge] = build_judges(JudgeSpec(model="my-model", api_base=base))
        assert Pricing().judge_cost(judge, usage) == cost, base
    [local] = build_judges(JudgeSpec(model="my-model", api_base="http://127.0.0.1:8000/v1"))
    assert Pricing({"my-model": PriceOverride(1, 2)}).judge_cost(local, usage) == 3.0  # a price given wins
    assert Pricing({"my-finetune-xyz": PriceOverride(1, 2)}).cost("custom", "my-finetune-xyz", usage) == 3.0


def test_text_result_and_show_print_the_cost_table(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    for m in MODELS:
        llm_server.script(m, Reply(text=round1(4.0, 4), input_tokens=1000, output_tokens=1000, cached_tokens=250))
    code = main(["evaluate", *args(artifact, judges_file(pricing=PRICES)), "--no-reports", "--quiet"])
    text = capsys.readouterr().out
    assert code == 0
    assert "| Spend | Calls | Input tokens | Cached | Output tokens | Seconds | Cost |" in text
    assert "| round 1 | 3 | 3,000 | 25%, 3/3 calls | 3,000 |" in text
    assert "| judge-2 | 1 | 1,000 | 25%, 1/1 calls | 1,000 |" in text and "| $0.0100 |" in text
    assert "| **Total** | 3 | 3,000 | 25%, 3/3 calls | 3,000 |" in text and "| $0.0300 |" in text
    debate_id = text.split("Debate ", 1)[1].split(":", 1)[0]
    assert main(["show", debate_id]) == 0
    assert "| **Total** | 3 | 3,000 | 25%, 3/3 calls | 3,000 |" in capsys.readouterr().out
