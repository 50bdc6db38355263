"""The HTML report's polish (issue 12, item 12): threshold lines and stances in the score chart, judges'
Markdown rendered safely, decide's dots apart, an honest position history, unknown prices said as such,
and a contested decision stated rather than asked."""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.api.report import build_view, load_record, render_html
from moot.cli.app import main
from moot.render.html_chart import MARKER_R, build_chart
from moot.render.html_common import DebateRecord, View
from moot.schemas.spend import Spend, SpendLine
from moot.store import Store
from moot.store.db import CallRecord

from .replies import round1
from .scripted_panels import challenge_args, challenge_panel, contested_decide_panel, decide_args, evaluate_args

HOSTILE = (
    "**Ship it.** The *design* is sound.\n\n"
    "<script>document.title='pwned'</script>\n\n"
    "[details](javascript:alert(1)) <img src=x onerror=alert(2)> "
    "[docs](https://example.com/docs) [home](file:///etc/passwd)"
)


def record(
    protocol: str, result: dict[str, Any] | None, *, request: dict[str, Any] | None = None, **kw: Any
) -> DebateRecord:
    return DebateRecord(
        "d1", protocol, "", "finished", "2026-11-22T00:00:00", request or {}, result, None, kw.pop("calls", []), **kw
    )


def stored_html(debate_id: str) -> str:
    return render_html(load_record(Store.open_default(), debate_id))


def verdict_box(html: str) -> str:
    return html[html.index('id="verdict"') : html.index("</section>", html.index('id="verdict"'))]


def section(view: View, title: str) -> list[list[str]]:
    table = next(s.table for s in view.sections + view.cost if s.title == title)
    assert table is not None
    return table.rows


# the score chart: threshold lines, stances in the legend


EVALUATION = {
    "summary": {"final_verdict": "PASS", "consensus_score": 4.1},
    "round_progression": {"round_1": {"by_judge": {"judge-1": 4.0, "judge-2": 4.4, "judge-3": 3.2}}},
    "judges": [
        {"judge": "judge-1", "stance": "neutral"},
        {"judge": "judge-2", "stance": "for"},
        {"judge": "judge-3", "stance": "against"},
    ],
}


def test_score_chart_draws_the_debates_thresholds_and_names_each_judges_stance() -> None:
    view = build_view(record("evaluate", EVALUATION, request={"thresholds": {"pass_at": 4.5, "conditional_at": 2.5}}))
    chart = view.chart
    assert chart is not None
    assert [(r.label, r.value) for r in chart.rules] == [("PASS ≥ 4.5", 4.5), ("CONDITIONAL ≥ 2.5", 2.5)]
    pass_line, conditional_line = chart.rules
    judge_3 = chart.series[2].points[0]  # 3.2: between the two lines
    assert pass_line.y < judge_3.y < conditional_line.y  # SVG y grows downwards
    assert [(e.name, e.note) for e in chart.legend] == [
        ("judge-1", "neutral"),
        ("judge-2", "for"),
        ("judge-3", "against"),
        ("PASS ≥ 4.5", ""),
        ("CONDITIONAL ≥ 2.5", ""),
    ]
    html = render_html(record("evaluate", EVALUATION))  # no thresholds stored: the defaults
    assert html.count('<line class="rule"') == 2 and "PASS ≥ 4<" in html and "CONDITIONAL ≥ 3<" in html
    assert '<tspan class="note"> · against</tspan>' in html


def test_a_real_evaluation_chart_has_both_threshold_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from .scripted_panels import converging_panel

    assert main(evaluate_args(tmp_path, converging_panel(tmp_path), "--format", "json")) == 0
    html = stored_html(json.loads(capsys.readouterr().out)["debate_id"])
    assert html.count('<line class="rule"') == 2
    assert re.search(r'<tspan class="note"> · (neutral|for|against)</tspan>', html)


# judges' Markdown in the verdict box


def hostile_panel(tmp_path: Path) -> Path:
    """Three judges that agree at once (4/5), one of whose statements is hostile Markdown."""

    def reply(statement: str) -> str:
        data = yaml.safe_load(round1(4.0, 4, fenced=False))
        data["position_statement"] = statement
        return "```yaml\n" + yaml.safe_dump(data, sort_keys=False) + "```"

    judges = [
        {"model": "scripted", "name": f"j{i}", "stance": "neutral", "replies": [reply(HOSTILE if i == 1 else "Fine.")]}
        for i in range(1, 4)
    ]
    path = tmp_path / "hostile.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": judges}), encoding="utf-8")
    return path


def test_judges_markdown_is_formatted_in_the_verdict_and_stays_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(evaluate_args(tmp_path, hostile_panel(tmp_path), "--format", "json")) == 0
    result = json.loads(capsys.readouterr().out)
    assert "**Ship it.**" in result["majority_opinion"]  # the hostile reply is what the verdict shows
    html = stored_html(result["debate_id"])
    box = verdict_box(html)
    assert "<strong>Ship it.</strong>" in box and "<em>design</em>" in box and "**" not in box
    assert '<a href="https://example.com/docs" rel="nofollow noopener noreferrer">docs</a>' in box
    assert "&lt;script&gt;document.title=" in box and "&lt;img src=x onerror=alert(2)&gt;" in box
    assert "[details](javascript:alert(1))" in box and "[home](file:///etc/passwd)" in box  # left as text
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert not re.search(r"""href\s*=\s*["']?\s*(javascript|file|data|vbscript):""", html, re.IGNORECASE)


def test_an_error_in_the_verdict_box_is_shown_as_written() -> None:
    failed = DebateRecord("d1", "evaluate", "", "failed", "2026-11-22T00:00:00", {}, None, "judge *1* failed: <x>", [])
    box = verdict_box(render_html(failed))
    assert "judge *1* failed: &lt;x&gt;" in box and "<em>" not in box


def test_minority_opinion_and_core_disagreement_are_markdown_too() -> None:
    html = render_html(record("evaluate", {**EVALUATION, "minority_opinion": "Too **risky**: <b>no</b>"}))
    assert "Too <strong>risky</strong>: &lt;b&gt;no&lt;/b&gt;" in html
    html = render_html(record("challenge", {"outcome": "TRADEOFF", "core_disagreement": "whether `skew` is bounded"}))
    assert "whether <code>skew</code> is bounded" in html


# decide's chart: judges on the same option stay apart


def test_judges_on_the_same_option_never_hide_each_other() -> None:
    together = {name: {1: 3.0, 2: 3.0, 3: 1.0} for name in ("risk", "value", "effort", "cost", "ops")}
    chart = build_chart(together, y_labels=["A", "B", "C"])
    assert chart is not None
    assert len({s.marker for s in chart.series[:4]}) == 4  # a shape each, not only a colour
    for a, b in itertools.combinations(chart.series, 2):
        for p, q in zip(a.points, b.points, strict=True):
            assert math.dist((p.x, p.y), (q.x, q.y)) >= 2 * 1.25 * MARKER_R + 1, (a.name, b.name, p.round)
    x0, _, x1, _ = chart.plot
    assert all(x0 <= p.x - MARKER_R and p.x + MARKER_R <= x1 for s in chart.series for p in s.points)


def test_a_real_decision_chart_draws_agreeing_judges_side_by_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from .scripted_panels import decide_panel

    assert main(decide_args(decide_panel(tmp_path), "--format", "json")) == 0
    view = build_view(load_record(Store.open_default(), json.loads(capsys.readouterr().out)["debate_id"]))
    assert view.chart is not None
    on_c = [p for s in view.chart.series for p in s.points if p.round == 2 and p.label == "C"]
    assert len(on_c) == 2  # value moved to C, effort was there
    assert math.dist((on_c[0].x, on_c[0].y), (on_c[1].x, on_c[1].y)) >= 2 * 1.25 * MARKER_R + 1


# challenge: the position history says what the JSON says


def test_position_history_says_changed_when_the_result_says_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(challenge_args(challenge_panel(tmp_path), "--format", "json")) == 0
    result = json.loads(capsys.readouterr().out)
    history = {v["version"]: v for v in result["position_history"]}
    assert history[3]["changed"] is True and history[3]["changed_because"] == []  # reworded, every objection rejected
    rows = {
        row[0]: row[-1]
        for row in section(build_view(load_record(Store.open_default(), result["debate_id"])), "Position history")
    }
    assert rows["v1"] == "opening"
    assert rows["v2"] == "unchanged"
    assert rows["v3"].startswith("changed")


# unknown prices


def call(seat: str, round_no: int, cost: float | None) -> CallRecord:
    return CallRecord("d1", f"{seat}-{round_no}", round_no, seat, "judge", "m", "{}", "ok", reply="x", cost_usd=cost)


def test_an_unknown_price_is_unknown_not_free() -> None:
    calls = [call("judge-1", 1, 0.01), call("judge-2", 1, None), call("judge-2", 2, None)]
    line = {"calls": 1, "cost_usd": 0.0}
    spend = Spend(
        calls=3,
        cost_usd=0.01,
        unpriced_models=["m"],
        per_judge={"judge-1": SpendLine(calls=1, cost_usd=0.01), "judge-2": SpendLine(**line)},
        per_round={"round_1": SpendLine(calls=2, cost_usd=0.01), "round_2": SpendLine(**line)},
    )
    for result in ({"spend": spend.model_dump(mode="json")}, None):  # from the result, and tallied from calls
        view = build_view(record("evaluate", result, calls=calls))
        judges = {row[0]: row[4] for row in section(view, "Cost per judge")}
        rounds = {row[0]: row[4] for row in section(view, "Cost per round")}
        assert judges == {"judge-1": "$0.0100", "judge-2": "unknown"}
        assert rounds == {"round 1": "$0.0100 + unknown", "round 2": "unknown"}
        total = next(s.text for s in view.cost if s.title == "Cost")
        assert "$0.0100 + unknown" in total and "no price known for m" in total
    nothing_priced = build_view(record("evaluate", None, calls=[call("judge-1", 1, None)]))
    html = render_html(record("evaluate", None, calls=[call("judge-1", 1, None)]))
    assert "unknown" in next(s.text for s in nothing_priced.cost if s.title == "Cost")
    assert "0.0000" not in html


# decide: a contested result is stated, not asked


def test_a_contested_decision_says_a_person_must_decide_and_asks_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(decide_args(contested_decide_panel(tmp_path), "--format", "json")) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["outcome"] == "CONTESTED" and "Which option would you like" in result["user_prompt"]
    html = stored_html(result["debate_id"])
    assert "Which option" not in html and "would you like" not in html
    assert "<h2>A person must decide</h2>" in html
    chosen = render_html(record("decide", {**result, "user_choice": "B"}))
    assert "<h2>Decided by a person</h2>" in chosen and "a person chose option B" in chosen
    assert "Which option" not in chosen
