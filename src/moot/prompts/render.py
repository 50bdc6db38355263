"""Render prompt templates with Jinja2. A missing variable is an error, never an empty string.

Artifacts and judge replies are untrusted: `untrusted` strips the prompt's own delimiter tags from them
so that a text cannot close its block early and pose as instructions.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).parent / "templates"
DELIMITER_TAGS = (
    "artifact",
    "artifacts",
    "task",
    "context",
    "judge_report",
    "your_previous_report",
    "other_judges_reports",
    "position",
    "reply",
    "objection",
    "question",
    "option",
)
_TAG = re.compile(r"<\s*/?\s*(?:" + "|".join(DELIMITER_TAGS) + r")\b[^>]*>", re.IGNORECASE)


def untrusted(text: str) -> str:
    """Untrusted text with any of our delimiter tags neutralised."""
    return _TAG.sub(lambda m: m.group(0).replace("<", "&lt;").replace(">", "&gt;"), text)


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # noqa: S701 - prompts are plain text for a model, not HTML
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["untrusted"] = untrusted
    env.filters["pct"] = lambda w: f"{round(w * 100):d}%"
    return env


def render(name: str, **variables: Any) -> str:
    """Render `templates/{name}` (e.g. "evaluate/round_1.j2")."""
    return _env().get_template(name).render(**variables).strip() + "\n"
