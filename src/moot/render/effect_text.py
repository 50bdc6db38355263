"""What the debate changed (`debate_effect`), worded once for the text report and the HTML page: one line
for the verdict against round 1, then each judge that changed, with the reason it gave.

A result stored before the record existed has none, and shows nothing here.
"""

from __future__ import annotations

from moot.render.terminal import Block, TextSection
from moot.schemas.effect import DebateEffect, JudgeEffect

TITLE = "What the debate changed"
REASON_CHARS = 300  # the text report quotes a reason this long at most; the JSON and HTML have all of it


def answer(word: str | None, score: float | None = None) -> str:
    """`PASS 4.07/5`, `C`, or `no answer`."""
    text = word if word is not None else "no answer"
    return f"{text} {score:g}/5" if score is not None else text


def summary(effect: DebateEffect) -> str:
    """The verdict against round 1, and how many judges moved, in one sentence."""
    first = answer(effect.round1_verdict, effect.round1_score)
    final = answer(effect.final_verdict, effect.final_score)
    if effect.rounds <= 1 and not effect.changed_judges:
        return f"nothing, the debate ended in round 1 ({final})"
    verdict = (
        f"round 1 {first} -> final {final}" if effect.differs else f"the verdict held (round 1 {first}, final {final})"
    )
    moved = len(effect.changed_judges)
    if effect.aggregation_changed:
        return (
            f"{verdict}; no judge changed its answer: the answers combine differently (scores moving within "
            "their bands, or a judge leaving), which is not a judge's change of mind"
        )
    return f"{verdict}; " + (f"{moved} of {len(effect.judges)} changed" if moved else "no judge changed")


def judge_line(j: JudgeEffect) -> str:
    """`judge-3: FAIL 2/5 -> PASS 3.9/5: convinced by the tests`, the reason cut short for a terminal."""
    line = f"{j.judge}: {answer(j.round1, j.round1_score)} -> {answer(j.final, j.final_score)}"
    reason = " ".join(j.reason.split())
    if len(reason) > REASON_CHARS:
        reason = reason[: REASON_CHARS - 3].rstrip() + "..."
    return f"{line}: {reason}" if reason else line


def effect_blocks(effect: DebateEffect | None) -> list[Block]:
    """One line, then one per judge that changed; nothing for a result stored before the record existed."""
    if effect is None:
        return []
    line = f"{TITLE}: {summary(effect)}"
    changed = [judge_line(j) for j in effect.judges if j.changed]
    return [TextSection(line + ":", changed)] if changed else [line]
