"""A second look (`moot evaluate --follow-up DEBATE_ID`): the new version judged with the earlier debate's
CRITICAL findings and MUST/SHOULD recommendations in every judge's round-1 prompt, numbered E1, E2, ...

Each judge says of each earlier item whether the new version resolved it (`earlier_findings: {E1: resolved}`).
An item is `resolved` when every judge who answered says so, `unresolved` when every one says not, and
`disputed` otherwise (or when nobody answered). New findings are the debate's own `critical_findings`, kept
apart. The result's `follow_up` names the earlier debate and its verdict, so reports can show the change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from moot.protocol import UsageError
from moot.protocols.evaluate.replies import EARLIER_ANSWERS
from moot.protocols.evaluate.schemas import Earlier, EarlierItem, EarlierStatus, FollowUp, ScoreVerdict
from moot.store.db import Store


def load_earlier(debate_id: str, store: Store | None = None) -> Earlier:
    """The earlier evaluation's findings from the store; bad input when it is not a finished evaluation."""
    db = store or Store.open_default()
    row = db.get_debate(debate_id.strip())
    if row is None:
        raise UsageError(f"--follow-up: no debate {debate_id!r} in the store (see 'moot list')")
    if row.protocol != "evaluate" or not row.result:
        raise UsageError(f"--follow-up: debate {row.id} is not a finished evaluation")
    summary = row.result.get("summary") or {}
    return Earlier(
        debate_id=row.id,
        verdict=str(summary.get("final_verdict", "")),
        score=summary.get("consensus_score"),
        items=list(_items(row.result)),
    )


def _items(result: Mapping[str, Any]) -> Iterable[EarlierItem]:
    """Its CRITICAL findings, then the MUST and SHOULD recommendations that are not one of them again."""
    n = 0
    said: set[str] = set()
    for f in result.get("critical_findings") or []:
        n += 1
        said.add(str(f.get("finding", "")))
        yield EarlierItem(id=f"E{n}", kind="CRITICAL", text=str(f.get("finding", "")), **_where(f))
    for r in result.get("recommendations") or []:
        action = str(r.get("action", ""))
        if r.get("priority") in ("MUST", "SHOULD") and action.removeprefix("Resolve: ") not in said:
            n += 1
            yield EarlierItem(id=f"E{n}", kind=str(r["priority"]), text=action, **_where(r))


def _where(item: Mapping[str, Any]) -> dict[str, Any]:
    return {"file": item.get("file"), "line": item.get("line")}


def parse_answers(raw: Any, earlier: Earlier | None) -> dict[str, str]:
    """A reply's `earlier_findings` as given (E1 -> resolved | unresolved); unknown ids and words are left out."""
    if earlier is None:
        return {}
    known = {i.id for i in earlier.items}
    if not isinstance(raw, Mapping):
        return {}
    out = {}
    for key, value in raw.items():
        word = str(value).strip().lower().replace(" ", "").replace("_", "")
        if str(key) in known and word in EARLIER_ANSWERS:
            out[str(key)] = word
    return out


def follow_up(earlier: Earlier, answers: Mapping[str, Mapping[str, str]], verdict: str, score: float) -> FollowUp:
    """Each earlier item's status from every judge's latest answers (judge -> E-id -> word)."""
    items = []
    for item in earlier.items:
        said = {judge: a[item.id] for judge, a in answers.items() if item.id in a}
        words = set(said.values())
        status: EarlierStatus = "disputed" if len(words) != 1 else "resolved" if words == {"resolved"} else "unresolved"
        items.append(item.model_copy(update={"status": status, "answers": said}))
    return FollowUp(**earlier.model_dump(exclude={"items"}), items=items, verdict_now=verdict, score_now=score)


def earlier_cap(verdict: ScoreVerdict, items: Iterable[EarlierItem]) -> tuple[ScoreVerdict, str | None]:
    """The verdict an earlier CRITICAL finding that the judges hold unresolved leaves, and the note that says
    why: it caps a PASS at CONDITIONAL exactly as a new CRITICAL finding all judges accept does (a disputed
    or resolved one caps nothing, and a cap never lifts a FAIL)."""
    held = [i.id for i in items if i.kind == "CRITICAL" and i.status == "unresolved"]
    if not held or verdict != "PASS":
        return verdict, None
    which = ", ".join(held)
    return "CONDITIONAL", (
        f"verdict capped at CONDITIONAL: earlier CRITICAL finding(s) {which} still unresolved, as every judge says"
    )


def change_line(f: Mapping[str, Any]) -> str:
    """`after 3f2a: CONDITIONAL 3.2 -> PASS 4.1; 2 resolved, 1 unresolved`: the change of verdict in words."""
    counts: dict[str, int] = {}
    for item in f.get("items") or []:
        counts[str(item.get("status"))] = counts.get(str(item.get("status")), 0) + 1
    was = f"{f.get('verdict')} {_num(f.get('score'))}".strip()
    now = f"{f.get('verdict_now')} {_num(f.get('score_now'))}".strip()
    fates = ", ".join(f"{counts[k]} {k}" for k in ("resolved", "unresolved", "disputed") if counts.get(k))
    return f"follow-up of {f.get('debate_id')}: {was} -> {now}" + (f"; earlier findings: {fates}" if fates else "")


def _num(x: Any) -> str:
    return f"{x:g}" if isinstance(x, int | float) else ""
