"""What the HTML report shows, as plain data: a `View` built from a debate's stored record.

One builder per protocol (`VIEW_BUILDERS`), each a pure function of the record, each tolerant of missing
keys (a debate that failed halfway, or a result written by an older version). Text here is raw: the
template escapes every string, so nothing from an artifact or a judge can become markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from moot.reports.html_chart import Chart, build_chart
from moot.store.db import CallRecord


@dataclass(frozen=True)
class DebateRecord:
    """Everything the store holds about one debate: the input of every report builder."""

    debate_id: str
    protocol: str
    title: str
    status: str
    created_at: str
    request: dict[str, Any]
    result: dict[str, Any] | None
    error: str | None
    calls: list[CallRecord]
    rounds: dict[int, dict[str, Any]] = field(default_factory=dict)


@dataclass
class Table:
    columns: list[str]
    rows: list[list[str]]


@dataclass
class Section:
    title: str
    table: Table | None = None
    items: list[str] = field(default_factory=list)
    text: str = ""
    open: bool = True  # shown expanded


@dataclass
class Verdict:
    headline: str
    tone: str  # "pass" | "fail" | "conditional" | "neutral"
    facts: list[tuple[str, str]] = field(default_factory=list)
    summary: str = ""


@dataclass
class TranscriptEntry:
    seat: str
    who: str
    kind: str
    status: str
    text: str


@dataclass
class View:
    title: str
    protocol: str
    debate_id: str
    created_at: str
    status: str
    verdict: Verdict
    chart: Chart | None = None
    chart_title: str = "Scores per round"
    chart_caption: str = ""
    sections: list[Section] = field(default_factory=list)
    cost: list[Section] = field(default_factory=list)
    transcripts: dict[int, list[TranscriptEntry]] = field(default_factory=dict)


# small helpers over untyped result dicts


def _num(value: Any, digits: int = 2) -> str:
    if isinstance(value, bool) or value is None:
        return "-" if value is None else ("yes" if value else "no")
    if isinstance(value, int | float):
        return f"{round(float(value), digits):g}"
    return str(value)


def _text(value: Any) -> str:
    """Any JSON value as readable text (lists joined, mappings as `key: value` lines)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return _num(value)
    if isinstance(value, Mapping):
        return "\n".join(f"{k}: {_text(v)}" for k, v in value.items())
    if isinstance(value, Sequence):
        return "; ".join(_text(v) for v in value)
    return json.dumps(value, default=str)


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


Cell = str | Callable[[dict[str, Any]], str]


def records_section(title: str, rows: Any, columns: Sequence[tuple[str, Cell]]) -> Section | None:
    """A table with one row per record (a dict) and one column per (header, key or cell function); every
    cell is escaped text. None when there are no records, so that empty sections are left out."""
    records = [_dict(x) for x in _list(rows)]
    if not records:
        return None
    return Section(
        title,
        table=Table(
            [header for header, _ in columns],
            [[cell(rec) if callable(cell) else _text(rec.get(cell)) for _, cell in columns] for rec in records],
        ),
    )


JUDGE_COLUMNS: list[tuple[str, Cell]] = [
    ("Seat", "judge"),
    ("Model", "model"),
    ("Answered by", "answered_by"),
    ("Stance", "stance"),
    ("Status", "status"),
]


def _round_no(name: str) -> int | None:
    tail = name.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else None


TONES = {"PASS": "pass", "FAIL": "fail", "CONDITIONAL": "conditional"}


def tone_of(word: str) -> str:
    return TONES.get(word.upper(), "neutral")


# pieces every protocol shares


def transcripts(calls: Sequence[CallRecord]) -> dict[int, list[TranscriptEntry]]:
    """Every reply (or failure) per round, in call order: the full text behind the report."""
    out: dict[int, list[TranscriptEntry]] = {}
    for c in calls:
        who = c.answered_by or c.model
        text = c.reply if c.reply is not None else f"({c.status}) {c.error or 'no reply'}"
        out.setdefault(c.round, []).append(TranscriptEntry(c.seat, who, c.kind, c.status, text))
    return dict(sorted(out.items()))


def _spend_table(lines: Mapping[str, Any], first: str) -> Table:
    rows = []
    for name, line in lines.items():
        d = _dict(line)
        rows.append(
            [
                name.replace("_", " ") if first == "Round" else name,
                _num(d.get("calls", 0)),
                _num(d.get("input_tokens", 0)),
                _num(d.get("output_tokens", 0)),
                f"{float(d.get('cost_usd') or 0):.4f}",
                _num(d.get("seconds", 0), 1),
            ]
        )
    return Table([first, "Calls", "Input tokens", "Output tokens", "Cost $", "Seconds"], rows)


def cost_sections(result: Mapping[str, Any], calls: Sequence[CallRecord]) -> list[Section]:
    """Cost per judge and per round: from the result's `spend`, else from the call records."""
    spend = _dict(result.get("spend"))
    if not spend.get("per_judge") and calls:
        from moot.engine.spend import spend_from_calls

        spend = spend_from_calls(calls).model_dump(mode="json")
    if not spend:
        return []
    total = (
        f"{_num(spend.get('calls', 0))} calls, {_num(spend.get('input_tokens', 0))} input / "
        f"{_num(spend.get('output_tokens', 0))} output tokens, ${float(spend.get('cost_usd') or 0):.4f}"
        + (f", {_num(spend.get('wall_seconds'), 1)}s" if spend.get("wall_seconds") else "")
        + (f"; no price known for {', '.join(spend['unpriced_models'])}" if spend.get("unpriced_models") else "")
    )
    out = [Section("Cost", text=total)]
    if spend.get("per_judge"):
        out.append(Section("Cost per judge", table=_spend_table(_dict(spend["per_judge"]), "Judge")))
    if spend.get("per_round"):
        out.append(Section("Cost per round", table=_spend_table(_dict(spend["per_round"]), "Round")))
    return out


def generic_sections(result: Mapping[str, Any], skip: set[str]) -> list[Section]:
    """Any other keys of a result, shown plainly: lists of mappings as tables, the rest as text."""
    out = []
    for key, value in result.items():
        if key in skip or value in (None, "", [], {}):
            continue
        title = key.replace("_", " ").capitalize()
        if isinstance(value, list) and all(isinstance(v, Mapping) for v in value):
            columns = list(dict.fromkeys(k for v in value for k in v))
            rows = [[_text(v.get(c)) for c in columns] for v in value]
            out.append(Section(title, table=Table([c.replace("_", " ") for c in columns], rows)))
        elif isinstance(value, list):
            out.append(Section(title, items=[_text(v) for v in value]))
        elif isinstance(value, Mapping) and all(not isinstance(v, Mapping | list) for v in value.values()):
            out.append(Section(title, table=Table(["", ""], [[str(k), _text(v)] for k, v in value.items()])))
        else:
            out.append(Section(title, text=_text(value)))
    return out


def _header(record: DebateRecord, verdict: Verdict) -> View:
    return View(
        title=record.title or f"{record.protocol} {record.debate_id}",
        protocol=record.protocol,
        debate_id=record.debate_id,
        created_at=record.created_at,
        status=record.status,
        verdict=verdict,
        transcripts=transcripts(record.calls),
    )


# evaluate (seeds 000, 001, 003)


def criterion_scores(record: DebateRecord) -> list[tuple[int, str, dict[str, float], float]]:
    """(round, judge, per-criterion scores, overall) for every judge still on the panel in each round.

    Read from the round records; for debates recorded before those carried the scores, the stored replies
    are parsed again with the protocol's own parser (including scores carried over between rounds).
    """
    stored = [
        (round_no, judge, {k: float(v) for k, v in dims.items()}, float(data["by_judge"][judge]))
        for round_no, data in sorted(record.rounds.items())
        for judge, dims in _dict(data.get("dimension_scores")).items()
        if judge in _dict(data.get("by_judge"))
    ]
    if stored:  # debates recorded since rounds carry every judge's criterion scores
        return stored
    from moot.parsing.evaluate import parse_scored_reply
    from moot.parsing.extract import ReplyError
    from moot.schemas.criteria import Criterion
    from moot.schemas.evaluate import ScoredPosition

    try:
        criteria = [Criterion.model_validate(c) for c in _list(record.request.get("criteria"))]
    except ValueError:
        return []
    if not criteria:
        return []
    accepted: dict[tuple[int, str], str] = {}
    for c in record.calls:
        if c.status != "ok" or c.reply is None or c.kind not in ("judge", "clarify") or c.seat == "moderator":
            continue
        accepted[(c.round, c.seat)] = c.reply  # a clarification's reply replaces the first one
    previous: dict[str, ScoredPosition] = {}
    rows = []
    for (round_no, seat), text in sorted(accepted.items()):
        try:
            pos = parse_scored_reply(
                text, judge=seat, round_no=round_no, criteria=criteria, previous=previous.get(seat)
            )
        except ReplyError:
            continue
        previous[seat] = pos
        rows.append((round_no, seat, pos.dimension_scores, pos.overall_score))
    return rows


def evaluate_view(record: DebateRecord) -> View:
    r = record.result or {}
    s = _dict(r.get("summary"))
    word = str(s.get("final_verdict") or record.status.upper())
    facts = [
        ("Score", f"{_num(s.get('consensus_score'))}/5" if s.get("consensus_score") is not None else "-"),
        ("Method", _text(s.get("consensus_method")) or "-"),
        ("Confidence", _text(s.get("confidence")) or "-"),
        (
            "Rounds",
            _num(r.get("rounds_completed"))
            + (f" (consensus in round {r['consensus_reached_at']})" if r.get("consensus_reached_at") else ""),
        ),
        ("Artifact", _text(r.get("artifact_evaluated"))),
    ]
    if r.get("task"):
        facts.append(("Task", _text(r.get("task"))))
    view = _header(record, Verdict(word, tone_of(word), facts, _text(r.get("majority_opinion"))))
    if record.error:
        view.verdict.summary = record.error
    view.chart, view.chart_caption = _evaluate_chart(record)
    view.sections = _evaluate_sections(record)
    view.cost = cost_sections(r, record.calls)
    return view


def _evaluate_chart(record: DebateRecord) -> tuple[Chart | None, str]:
    r = record.result or {}
    per_judge: dict[str, dict[int, float]] = {}
    progression = _dict(r.get("round_progression")) or {f"round_{k}": v for k, v in record.rounds.items()}
    for name, summary in progression.items():
        round_no = _round_no(name)
        if round_no is None:
            continue
        for judge, score in _dict(_dict(summary).get("by_judge")).items():
            if isinstance(score, int | float):
                per_judge.setdefault(judge, {})[round_no] = float(score)
    width = _dict(_dict(record.request.get("consensus"))).get("overall_score_range")
    final = _dict(r.get("summary")).get("consensus_score")
    band = None
    if r.get("consensus_reached") and isinstance(width, int | float) and isinstance(final, int | float):
        band = (final - width / 2, final + width / 2)
    chart = build_chart(per_judge, band=band, y_label="overall score")
    caption = "Each judge's overall score per round" + (
        f"; the shaded band is the consensus range ({_num(width)}) around the final score" if band else ""
    )
    return chart, caption


def _evaluate_sections(record: DebateRecord) -> list[Section]:
    r = record.result or {}
    out: list[Section] = []
    rows = criterion_scores(record)
    if rows:
        keys = list(dict.fromkeys(k for _, _, dims, _ in rows for k in dims))
        out.append(
            Section(
                "Scores per criterion, judge and round",
                table=Table(
                    ["Round", "Judge", *keys, "Overall"],
                    [[str(n), j, *[_num(d.get(k)) for k in keys], _num(o)] for n, j, d, o in rows],
                ),
            )
        )
    progression = _dict(r.get("round_progression"))
    if progression:
        out.append(
            Section(
                "Round progression",
                table=Table(
                    ["Round", "Scores", "Range", "Consensus", "Why not"],
                    [
                        [
                            name.replace("_", " "),
                            ", ".join(_num(x) for x in _list(_dict(p).get("scores"))),
                            _num(_dict(p).get("range")),
                            _num(_dict(p).get("consensus")),
                            "; ".join(_list(_dict(p).get("reasons"))),
                        ]
                        for name, p in progression.items()
                    ],
                ),
            )
        )
    judges = records_section(
        "Judges", r.get("judges"), [*JUDGE_COLUMNS, ("Final score", lambda j: _num(j.get("final_score")))]
    )
    if judges is not None:
        out.append(judges)
    critical = [_dict(c) for c in _list(r.get("critical_findings"))]
    if critical:
        columns = list(dict.fromkeys(k for c in critical for k in c))
        out.append(
            Section(
                "Critical findings",
                table=Table(
                    [c.replace("_", " ") for c in columns], [[_text(c.get(k)) for k in columns] for c in critical]
                ),
            )
        )
    convergent = [_dict(f) for f in _list(r.get("convergent_findings"))]
    if convergent:
        out.append(
            Section(
                "Convergent findings",
                items=[
                    f"[{_text(f.get('priority')) or '-'}] {_text(f.get('finding'))}"
                    + (f" ({', '.join(map(str, _list(f.get('source_judges'))))})" if f.get("source_judges") else "")
                    for f in convergent
                ],
            )
        )
    divergent = [_dict(f) for f in _list(r.get("divergent_findings"))]
    if divergent:
        out.append(
            Section(
                "Divergent findings",
                table=Table(
                    ["Finding", "Positions", "Needs your decision"],
                    [
                        [_text(d.get("finding")), _text(_dict(d.get("positions"))), _num(d.get("user_decision_needed"))]
                        for d in divergent
                    ],
                ),
            )
        )
    if r.get("majority_judges") and not r.get("consensus_reached"):
        out.append(
            Section(
                "Majority and minority",
                text=f"Majority ({', '.join(map(str, _list(r.get('majority_judges'))))}): "
                f"{_num(r.get('majority_score'))}; minority ({', '.join(map(str, _list(r.get('minority_judges'))))}): "
                f"{_num(r.get('minority_score'))}",
            )
        )
    if r.get("minority_opinion"):
        out.append(Section("Minority opinion", text=_text(r.get("minority_opinion"))))
    recs = records_section(
        "Recommendations",
        r.get("recommendations"),
        [("Priority", "priority"), ("Action", "action"), ("Rationale", "rationale")],
    )
    if recs is not None:
        out.append(recs)
    attention = [_dict(a) for a in _list(r.get("user_attention_needed"))]
    if attention:
        out.append(
            Section(
                "Needs human review",
                items=[
                    _text(a.get("issue")) + (f": {_text(a.get('recommendation'))}" if a.get("recommendation") else "")
                    for a in attention
                ],
            )
        )
    if r.get("notes"):
        out.append(Section("Notes", items=[_text(n) for n in _list(r.get("notes"))]))
    return out


# any protocol without a builder of its own (and a debate that never finished)


def generic_view(record: DebateRecord) -> View:
    r = record.result or {}
    word = ""
    for key in ("final_verdict", "outcome", "recommended_option", "chosen_option", "decision", "final_position"):
        value = r.get(key) or _dict(r.get("summary")).get(key)
        if value:
            word = _text(value)
            break
    facts = [(k.replace("_", " ").capitalize(), _text(r[k])) for k in ("confidence", "method", "consensus") if k in r]
    view = _header(record, Verdict(word or record.status.upper(), tone_of(word), facts, record.error or ""))
    view.sections = generic_sections(r, {"debate_id", "protocol", "spend", "confidence", "method", "consensus"})
    view.cost = cost_sections(r, record.calls)
    return view


ViewBuilder = Callable[[DebateRecord], View]
VIEW_BUILDERS: dict[str, ViewBuilder] = {"evaluate": evaluate_view}


def build_view(record: DebateRecord) -> View:
    builder = VIEW_BUILDERS.get(record.protocol, generic_view)
    return builder(record)


# decide (seed 002)


def decide_view(record: DebateRecord) -> View:
    r = record.result or {}
    options = [_dict(o) for o in _list(r.get("options"))]
    labels = {str(o.get("id")): _text(o.get("label")) for o in options}
    chosen = r.get("decision") or r.get("recommended_option") or r.get("user_choice")
    if chosen:
        headline = f"Option {chosen}" + (f": {labels[str(chosen)]}" if labels.get(str(chosen)) else "")
        tone = "pass" if r.get("consensus") else "conditional"
    else:
        headline = _text(r.get("outcome")) or record.status.upper()
        tone = "conditional" if r.get("outcome") == "CONTESTED" else "neutral"
    facts = [
        ("Outcome", _text(r.get("outcome")) or "-"),
        ("Confidence", _text(r.get("confidence")) or "-"),
        (
            "Rounds",
            _num(r.get("rounds_completed"))
            + (f" (consensus in round {r['consensus_reached_at']})" if r.get("consensus_reached_at") else ""),
        ),
        ("Threshold", _num(r.get("consensus_threshold"))),
    ]
    if r.get("decided_by"):
        facts.append(("Decided by", _text(r.get("decided_by"))))
    summary = _text(r.get("question"))
    if r.get("message"):
        summary += "\n\n" + _text(r.get("message"))
    view = _header(record, Verdict(headline, tone, facts, record.error or summary))
    view.chart, view.chart_caption = _decide_chart(r, [str(o.get("id")) for o in options])
    view.chart_title = "Recommendations per round"
    view.sections = _decide_sections(r, options)
    view.cost = cost_sections(r, record.calls)
    return view


def _decide_chart(r: Mapping[str, Any], option_ids: list[str]) -> tuple[Chart | None, str]:
    if not option_ids:
        return None, ""
    index = {o: k for k, o in enumerate(option_ids, 1)}
    per_judge: dict[str, dict[int, float]] = {}
    for name, tally in _dict(r.get("rounds")).items():
        round_no = _round_no(name)
        if round_no is None:
            continue
        for judge, option in _dict(_dict(tally).get("recommendations")).items():
            if option in index:
                per_judge.setdefault(judge, {})[round_no] = float(index[option])
    chart = build_chart(per_judge, y_labels=option_ids, y_label="recommended option")
    return chart, "The option each judge recommends per round; lines that meet are judges that agree"


def _decide_sections(r: Mapping[str, Any], options: list[dict[str, Any]]) -> list[Section]:
    out: list[Section] = []
    distribution = _dict(r.get("distribution"))
    if options:
        out.append(
            Section(
                "Options",
                table=Table(
                    ["Option", "Label", "Description", "Recommended by (last round)"],
                    [
                        [
                            _text(o.get("id")),
                            _text(o.get("label")),
                            _text(o.get("description")),
                            ", ".join(map(str, _list(distribution.get(str(o.get("id")))))),
                        ]
                        for o in options
                    ],
                ),
            )
        )
    perspectives = _dict(r.get("perspectives"))
    if perspectives:
        out.append(
            Section(
                "Perspectives", table=Table(["Judge", "Perspective"], [[k, _text(v)] for k, v in perspectives.items()])
            )
        )
    rounds = _dict(r.get("rounds"))
    if rounds:
        judges = list(dict.fromkeys(j for t in rounds.values() for j in _dict(_dict(t).get("recommendations"))))
        out.append(
            Section(
                "Recommendations per round",
                table=Table(
                    ["Round", *judges, "Consensus"],
                    [
                        [
                            name.replace("_", " "),
                            *[_text(_dict(_dict(t).get("recommendations")).get(j)) or "-" for j in judges],
                            (f"yes: {_text(_dict(t).get('option'))}" if _dict(t).get("consensus") else "no")
                            + (f" ({_dict(t)['share']:.0%})" if isinstance(_dict(t).get("share"), int | float) else ""),
                        ]
                        for name, t in rounds.items()
                    ],
                ),
            )
        )
    change_columns: list[tuple[str, Cell]] = [
        ("Judge", "judge"),
        ("Round", lambda c: _num(c.get("round"))),
        ("From", "from"),
        ("To", "to"),
        ("What convinced it", "reason"),
    ]
    for section in (
        records_section("Change log", r.get("change_log"), change_columns),
        records_section("Judges", r.get("judges"), JUDGE_COLUMNS),
    ):
        if section is not None:
            out.append(section)
    if r.get("no_recommendation"):
        out.append(Section("No usable recommendation", items=[_text(x) for x in _list(r.get("no_recommendation"))]))
    if r.get("user_prompt"):
        out.append(Section("For you to decide", text=_text(r.get("user_prompt"))))
    if r.get("notes"):
        out.append(Section("Notes", items=[_text(n) for n in _list(r.get("notes"))]))
    return out


VIEW_BUILDERS["decide"] = decide_view


# challenge (seed 004)

STANCE_LEVELS = ["objects", "partly agrees", "agrees"]  # y axis of the challenge chart, low to high
_LEVEL = {"agree": 3, "accept": 3, "partial": 2, "disagree": 1, "maintain": 1, "escalate": 1}


def challenge_view(record: DebateRecord) -> View:
    r = record.result or {}
    outcome = _text(r.get("outcome")) or record.status.upper()
    tone = {"CONSENSUS": "pass", "TRADEOFF": "conditional"}.get(outcome, "neutral")
    facts = [
        ("Confidence", _text(r.get("confidence")) or "-"),
        ("Rounds", _num(r.get("rounds")) + (" (fast exit)" if r.get("fast_exit") else "")),
        ("Proponent", _text(r.get("proponent")) or "-"),
        ("Topic", _text(r.get("topic"))),
    ]
    summary = _text(r.get("final_position"))
    view = _header(record, Verdict(outcome, tone, facts, record.error or summary))
    view.chart = _challenge_chart(r)
    view.chart_title = "Challengers per round"
    view.chart_caption = "Where each challenger stands at the end of each round (its last verdict or rebuttal)"
    view.sections = _challenge_sections(r)
    view.cost = cost_sections(r, record.calls)
    return view


def _challenge_chart(r: Mapping[str, Any]) -> Chart | None:
    per_seat: dict[str, dict[int, float]] = {}
    rounds = 0
    for rec in (_dict(x) for x in _list(r.get("round_log"))):
        round_no = rec.get("round")
        if not isinstance(round_no, int) or round_no < 1:
            continue
        rounds = max(rounds, round_no)
        for reply in (_dict(x) for x in _list(rec.get("replies"))):
            word = str(reply.get("treated_as") or reply.get("verdict") or "").lower()
            if reply.get("status", "ok") == "ok" and word in _LEVEL:
                per_seat.setdefault(str(reply.get("seat")), {})[round_no] = float(_LEVEL[word])
    for per in per_seat.values():  # a challenger not asked again keeps where it stood
        last = None
        for n in range(1, rounds + 1):
            if n in per:
                last = per[n]
            elif last is not None:
                per[n] = last
    return build_chart(per_seat, y_labels=STANCE_LEVELS, y_label="challenger stance")


def _challenge_sections(r: Mapping[str, Any]) -> list[Section]:
    out: list[Section] = []
    history = [_dict(v) for v in _list(r.get("position_history"))]
    if history:
        out.append(
            Section(
                "Position history",
                table=Table(
                    ["Version", "After round", "Confidence", "Position", "Changed because"],
                    [
                        [
                            f"v{_num(v.get('version'))}",
                            _num(v.get("round")),
                            _text(v.get("confidence")),
                            _text(v.get("position")),
                            "\n".join(
                                f"{_text(c.get('decision'))} {_text(c.get('objection_id'))} "
                                f"({_text(c.get('raised_by'))}): {_text(c.get('objection'))}"
                                for c in (_dict(x) for x in _list(v.get("changed_because")))
                            )
                            or ("unchanged" if v.get("round") else "opening"),
                        ]
                        for v in history
                    ],
                ),
            )
        )
    if r.get("what_changed"):
        out.append(Section("What changed", items=[_text(x) for x in _list(r.get("what_changed"))]))
    if r.get("core_disagreement"):
        out.append(Section("Core disagreement", text=_text(r.get("core_disagreement"))))
    rows = [_dict(a) for a in _list(r.get("assumptions"))]
    if rows:
        out.append(
            Section(
                "Assumptions exposed",
                table=Table(
                    ["Assumption", "Held by", "Supports"],
                    [[_text(a.get("assumption")), _text(a.get("held_by")), _text(a.get("supports"))] for a in rows],
                ),
            )
        )
    statements = [_dict(s) for s in _list(r.get("statements"))]
    if statements:
        out.append(
            Section(
                "Why they disagree",
                table=Table(
                    ["Party", "Why", "What would change its mind"],
                    [
                        [_text(s.get("seat")), _text(s.get("why_disagree")), _text(s.get("what_would_change_my_mind"))]
                        for s in statements
                    ],
                ),
            )
        )
    objections = [_dict(o) for o in _list(r.get("objections"))]
    if objections:
        out.append(
            Section(
                "Objections",
                table=Table(
                    ["Id", "Raised by", "Round", "Strength", "Objection", "Answer", "Reason"],
                    [
                        [
                            _text(o.get("id")),
                            _text(o.get("raised_by")),
                            _num(o.get("round")),
                            _text(o.get("strength")),
                            _text(o.get("text")),
                            _text(o.get("decision")) or "-",
                            _text(o.get("reason")),
                        ]
                        for o in objections
                    ],
                ),
            )
        )
    log = [_dict(x) for x in _list(r.get("round_log"))]
    if log:
        out.append(
            Section(
                "Rounds",
                table=Table(
                    ["Round", "Replies", "Decision", "Why"],
                    [
                        [
                            _num(x.get("round")),
                            "\n".join(
                                f"{_text(y.get('seat'))} {_text(y.get('kind'))}: "
                                f"{_text(y.get('verdict')) or _text(y.get('status'))}"
                                + (f" (read as {_text(y.get('treated_as'))})" if y.get("treated_as") else "")
                                for y in (_dict(z) for z in _list(x.get("replies")))
                            ),
                            _text(x.get("decision")),
                            "; ".join(map(str, _list(x.get("reasons")))),
                        ]
                        for x in log
                    ],
                ),
            )
        )
    challengers = records_section(
        "Challengers",
        r.get("challengers"),
        [("Seat", "seat"), ("Model", "model"), ("Kind", "kind"), ("Answered by", "answered_by"), ("Status", "status")],
    )
    if challengers is not None:
        out.append(challengers)
    for key, title in (("skepticism", "Skepticism rule"), ("skipped_challengers", "Skipped"), ("notes", "Notes")):
        if r.get(key):
            out.append(Section(title, items=[_text(x) for x in _list(r.get(key))]))
    return out


VIEW_BUILDERS["challenge"] = challenge_view
