"""The "What the debate changed" section of every protocol's HTML view, from the stored `debate_effect`.

Read through its schema so that the page and the text report word it alike (`effect_text`); a result
without the record (stored by an older version) or with one this version cannot read gets no section.
Every cell is raw text: the template escapes it, as it does the rest of the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from moot.render.effect_text import TITLE, answer, summary
from moot.render.html_common import Section, Table
from moot.schemas.effect import DebateEffect, JudgeEffect

COLUMNS = ["Judge", "Model", "Round 1", "Final", "Changed", "Why it changed"]


def _row(j: JudgeEffect) -> list[str]:
    changed = "yes" if j.changed else "no"
    return [j.judge, j.model, answer(j.round1, j.round1_score), answer(j.final, j.final_score), changed, j.reason]


def effect_section(result: Mapping[str, Any]) -> Section | None:
    raw = result.get("debate_effect")
    if not isinstance(raw, Mapping):
        return None
    try:
        effect = DebateEffect.model_validate(raw)
    except ValidationError:
        return None
    table = Table(COLUMNS, [_row(j) for j in effect.judges]) if effect.judges else None
    text = summary(effect)
    return Section(TITLE, table=table, text=text[:1].upper() + text[1:] + ".")
