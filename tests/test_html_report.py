"""The HTML report without a browser: what it shows, that it escapes, and `moot report` / `--html`."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import moot
from moot.api.report import build_view, load_record, render_html
from moot.cli.app import main
from moot.protocols.challenge.protocol import PositionChallenge
from moot.render.html_chart import build_chart
from moot.render.html_common import DebateRecord
from moot.store import Store
from moot.store.db import CallRecord
from moot.testing import FakeLLMServer, Reply

from .challenge_helpers import assumptions, confront, opening, rebuttal, verdict, write_judges
from .scripted_panels import (
    INJECTED,
    challenge_args,
    challenge_panel,
    converging_panel,
    decide_args,
    decide_panel,
    evaluate_args,
)


def run_debate(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str, **panel: bool) -> dict:  # type: ignore[type-arg]
    code = main(evaluate_args(tmp_path, converging_panel(tmp_path, **panel), "--format", "json", *extra))
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)  # type: ignore[no-any-return]


def test_chart_has_one_series_per_judge_and_higher_scores_higher() -> None:
    chart = build_chart({"a": {1: 4.0, 2: 4.0}, "b": {1: 4.8, 2: 4.3}, "c": {1: 3.0, 2: 3.9}}, band=(3.8, 4.3))
    assert chart is not None
    assert [s.name for s in chart.series] == ["a", "b", "c"]
    b, c = chart.series[1], chart.series[2]
    assert b.points[0].y < c.points[0].y  # SVG y grows downwards: 4.8 is drawn above 3.0
    assert b.points[0].x < b.points[1].x
    assert len(b.polyline.split()) == 2
    assert chart.band is not None and chart.band[0] < chart.band[1]
    assert [t.label for t in chart.x_ticks] == ["round 1", "round 2"]


def test_chart_of_nothing_is_none_and_one_round_is_centred() -> None:
    assert build_chart({}) is None
    one = build_chart({"a": {1: 3.0}, "b": {1: 5.0}})
    assert one is not None and one.series[0].points[0].x == one.series[1].points[0].x


def test_report_shows_verdict_first_chart_tables_findings_cost_and_every_reply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_debate(tmp_path, capsys)
    html = render_html(load_record(Store.open_default(), result["debate_id"]))
    assert html.startswith("<!DOCTYPE html>")
    verdict_at = html.index('class="word">PASS<')
    assert verdict_at < html.index("<svg") < html.index("Scores per criterion")
    assert "4.07/5" in html and "unanimous" in html
    assert len(re.findall(r'<polyline class="series"', html)) == 3
    # per-criterion table: one row per judge and round (3 judges x 2 rounds), carried-over scores included
    table = html[html.index("Scores per criterion") : html.index("Round progression")]
    assert table.count("<tr>") == 1 + 6
    assert "Cost per judge" in html and "Cost per round" in html
    assert "<h2>Judges</h2>" in html and "<th>Final score</th>" in html
    # every reply is there, collapsed
    assert html.count('<details class="reply">') == 6
    assert "<details open" not in html


def test_everything_from_judges_and_artifacts_is_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = run_debate(tmp_path, capsys, "--task", "<i>ship it</i>", inject=True)
    html = render_html(load_record(Store.open_default(), result["debate_id"]))
    assert "<script" not in html.lower()
    assert "<img" not in html.lower()
    assert "<i>ship it</i>" not in html and "&lt;i&gt;ship it&lt;/i&gt;" in html
    assert "&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;" in html
    assert "<b id=injected>" not in html and "&lt;/pre&gt;&lt;/details&gt;&lt;b id=injected&gt;" in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert INJECTED not in html


def test_report_is_self_contained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = run_debate(tmp_path, capsys)
    html = render_html(load_record(Store.open_default(), result["debate_id"]))
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "<link" not in html


def test_moot_report_writes_the_file_and_html_on_evaluate_writes_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = run_debate(tmp_path, capsys, "--html", str(tmp_path / "eval.html"))
    assert (tmp_path / "eval.html").exists()
    assert main(["report", result["debate_id"][:8], "--html", str(tmp_path / "out" / "report.html")]) == 0
    err = capsys.readouterr().err
    assert "report.html" in err
    written = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert written == (tmp_path / "eval.html").read_text(encoding="utf-8")
    assert main(["report", result["debate_id"], "--html", "-"]) == 0
    assert capsys.readouterr().out == written


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "no-such-debate", "--html", "x.html"], "no debate no-such-debate"),
        (["report", "no-such-debate"], "needs --html"),
    ],
)
def test_moot_report_bad_input_is_one_line_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("moot: error: ") and message in err and err.count("\n") == 1
    assert not Path("x.html").exists()


def test_unfinished_and_unknown_protocol_debates_still_render() -> None:
    record = DebateRecord(
        debate_id="d1",
        protocol="someday",
        title="a <b>title</b>",
        status="failed",
        created_at="2026-11-22T00:00:00",
        request={},
        result={  # another protocol's result: its envelope's verdict is what the page heads with
            "verdict": {
                "kind": "contested",
                "answer": "CONTESTED",
                "confidence": "REQUIRES_INPUT",
                "needs_human": True,
            },
            "distribution": {"A": ["risk"]},
        },
        error="fewer than two judges left",
        calls=[],
    )
    view = build_view(record)
    assert view.verdict.headline == "CONTESTED"
    html = render_html(record)
    assert "CONTESTED" in html and "REQUIRES_INPUT" in html and "fewer than two judges left" in html
    assert "a &lt;b&gt;title&lt;/b&gt;" in html
    bare = render_html(DebateRecord("d2", "evaluate", "", "running", "2026-11-22T00:00:00", {}, None, None, []))
    assert "RUNNING" in bare


def test_decide_report_shows_the_option_the_lines_of_recommendations_and_the_change_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(decide_args(decide_panel(tmp_path, inject=True), "--format", "json")) == 0
    result = json.loads(capsys.readouterr().out)
    html = render_html(load_record(Store.open_default(), result["debate_id"]))
    assert 'class="word">Option C: Limited offline<' in html
    assert html.index('class="word">') < html.index("<svg")
    assert len(re.findall(r'<polyline class="series"', html)) == 3
    assert "Recommendations per round" in html and "Change log" in html
    assert "Convinced by the ROI analysis" in html
    assert "<h2>Judges</h2>" in html and "<th>Answered by</th>" in html
    assert "<script" not in html.lower() and "&lt;script&gt;" in html
    assert html.count('<details class="reply">') == 6


def test_html_on_decide_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "decision.html"
    assert main(decide_args(decide_panel(tmp_path), "--format", "json", "--html", str(out))) == 0
    result = json.loads(capsys.readouterr().out)
    html = out.read_text(encoding="utf-8")
    assert result["debate_id"] in html and "Option C: Limited offline" in html


def test_challenge_report_shows_the_outcome_position_history_and_assumptions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "challenge.html"
    assert main(challenge_args(challenge_panel(tmp_path, inject=True), "--format", "json", "--html", str(out))) == 0
    result = json.loads(capsys.readouterr().out)
    html = out.read_text(encoding="utf-8")
    assert result["debate_id"] in html
    assert 'class="word">TRADEOFF<' in html and "Shard orders by customer id, revisit at 10x load" in html
    assert len(re.findall(r'<polyline class="series"', html)) == 2  # one line per challenger
    for heading in (
        "Position history",
        "Core disagreement",
        "Assumptions exposed",
        "Objections",
        "Cost per judge",
        "Challengers",
    ):
        assert f"<h2>{heading}</h2>" in html
    assert "the largest customer keeps growing" in html
    assert "<script" not in html.lower() and "&lt;script&gt;" in html


def call(seat: str, round_no: int, cost: float | None, status: str = "ok") -> CallRecord:
    return CallRecord(
        "d1",
        f"{seat}-{round_no}",
        round_no,
        seat,
        "judge",
        "m",
        "{}",
        status,
        reply="ok",
        input_tokens=100,
        output_tokens=50,
        latency_s=1.0,
        cost_usd=cost,
    )


def test_reports_import_neither_protocols_nor_engine_nor_parsers() -> None:
    """A report is a function of the stored record: the shared renderer draws a debate of any protocol,
    a failed one and an unknown one included, whatever the protocol code looks like today, so none of it
    (nor the registry that finds it) may be imported on the way. Which protocol's view applies is chosen
    above the protocols (`moot.api.report`)."""
    code = (
        "import sys\n"
        "from moot.reports.html import render_view\n"
        "from moot.render.html_common import DebateRecord\n"
        "from moot.render.html_page import generic_view\n"
        "from moot.render.github import render_github\n"
        "from moot.store.db import CallRecord\n"
        "calls = [CallRecord('d', 'k', 1, 'judge-1', 'judge', 'm', '{}', 'ok', reply='x', cost_usd=0.01)]\n"
        "for p in ('evaluate', 'decide', 'challenge', 'other'):\n"
        "    render_view(generic_view(DebateRecord('d', p, '', 'failed', '2026-11-22T00:00:00', {}, None, 'x', calls)))\n"
        "    render_github({'protocol': p, 'verdict': {'answer': 'PASS'}})\n"
        "print(sorted(m for m in sys.modules if m.split('.')[:2] in (['moot', 'protocols'], ['moot', 'parsing'],"
        " ['moot', 'engine'], ['moot', 'api'])))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_a_failed_debate_of_every_protocol_renders_through_its_own_view() -> None:
    """What the shared renderer drew above, now through each protocol's view, as `moot report` does."""
    calls = [CallRecord("d", "k", 1, "judge-1", "judge", "m", "{}", "ok", reply="x", cost_usd=0.01)]
    for p in ("evaluate", "decide", "challenge", "other"):
        html = render_html(DebateRecord("d", p, "", "failed", "2026-11-22T00:00:00", {}, None, "x", calls))
        assert html.startswith("<!DOCTYPE html>") and "judge-1" in html


def test_a_debate_without_criterion_scores_per_round_shows_each_judges_final_scores() -> None:
    result = {
        "rounds_completed": 2,
        "judges": [
            {"judge": "judge-1", "final_score": 3.5, "final_scores": {"design": 4, "docs": 3}},
            {"judge": "judge-2", "final_score": 2.0, "final_scores": {"design": 2}, "dropped_in_round": 2},
            {"judge": "judge-3", "status": "dropped: timeout"},
        ],
    }
    record = DebateRecord("d1", "evaluate", "", "finished", "2026-11-22T00:00:00", {}, result, None, [])
    table = next(s.table for s in build_view(record).sections if s.title.startswith("Scores per criterion"))
    assert table is not None
    assert table.columns == ["Round", "Judge", "design", "docs", "Overall"]
    assert table.rows == [["2", "judge-1", "4", "3", "3.5"], ["1", "judge-2", "2", "-", "2"]]


def test_a_debate_that_wrote_no_result_shows_what_its_calls_spent() -> None:
    calls = [call("judge-10", 1, 0.02), call("judge-9", 1, 0.01), call("judge-9", 2, 0.01), call("judge-9", 0, 0.0)]
    record = DebateRecord("d1", "evaluate", "", "failed", "2026-11-22T00:00:00", {}, None, "boom", calls)
    cost = {s.title: s for s in build_view(record).cost}
    assert cost["Cost"].text == "4 calls, 400 input / 200 output tokens, $0.0400"
    per_judge, per_round = cost["Cost per judge"].table, cost["Cost per round"].table
    assert per_judge is not None and per_round is not None
    assert [row[:2] for row in per_judge.rows] == [["judge-9", "3"], ["judge-10", "1"]]
    assert [row[0] for row in per_round.rows] == ["round 1", "round 2", "synthesis"]


def test_a_challenge_stopped_in_its_final_step_names_that_step_as_the_protocol_does(
    llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    """No result was written, so the report tallies the calls itself; the assumption statements (round 0)
    are "final" there, as in a finished challenge's spend, not the evaluate moderator's "synthesis"."""
    llm_server.script(
        "prop", opening(), confront({"O1": "REJECT"}, "Shard orders by customer id"), assumptions("a", "b", ["c"])
    )
    llm_server.script("ch-a", verdict("agree", "minor"))
    llm_server.script(
        "ch-b",
        verdict("disagree", "strong", ["one whale saturates its shard"]),
        rebuttal("MAINTAIN"),
        Reply(text=assumptions("d", "e", ["f"]), delay=60),  # still out when the debate is stopped
    )
    api = [{"model": m, "api_base": llm_server.base_url} for m in ("prop", "ch-a", "ch-b")]
    judges = write_judges(tmp_path / "j.yaml", api[0], api[1:])
    store = Store.open_default()

    async def stop_in_the_final_step() -> None:
        debate = asyncio.create_task(moot.challenge("Shard orders?", judges=judges, max_rounds=1, store=store))
        for _ in range(600):
            (row,) = store.list_debates() or [None]
            if row is not None and any(c.round == 0 and c.status == "ok" for c in store.calls(row.id)):
                break
            await asyncio.sleep(0.05)
        debate.cancel()
        with pytest.raises(asyncio.CancelledError):
            await debate

    asyncio.run(stop_in_the_final_step())
    (row,) = store.list_debates()
    record = load_record(store, row.id)
    assert record.result is None and record.protocol == "challenge"
    per_round = {s.title: s for s in build_view(record).cost}["Cost per round"].table
    assert per_round is not None and [r[0] for r in per_round.rows] == ["round 1", "final"]
    assert [r[1] for r in per_round.rows] == ["5", "1"]  # opening, 2 challenges, confrontation, rebuttal; prop's
    assert PositionChallenge.final_name == "final"  # what a finished challenge's spend calls it


def test_a_finished_challenge_says_its_final_steps_unknown_price() -> None:
    """The result's spend names round 0 "final"; an unpriced call there makes that row "unknown", not $0."""
    calls = [call("proponent", 1, 0.01), call("proponent", 0, None)]
    line = {"calls": 1, "cost_usd": 0.0}
    spend = {"calls": 2, "cost_usd": 0.01, "unpriced_models": ["m"], "per_judge": {"proponent": {"calls": 2}}}
    spend["per_round"] = {"round_1": {"calls": 1, "cost_usd": 0.01}, "final": line}
    record = DebateRecord("d1", "challenge", "", "finished", "2026-11-22T00:00:00", {}, {"spend": spend}, None, calls)
    per_round = {s.title: s for s in build_view(record).cost}["Cost per round"].table
    assert per_round is not None and {r[0]: r[4] for r in per_round.rows} == {"round 1": "$0.0100", "final": "unknown"}
