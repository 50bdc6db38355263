"""Render prompt templates with Jinja2. A missing variable is an error, never an empty string.

Artifacts and judge replies are untrusted: `untrusted` strips the prompt's own delimiter tags from them
so that a text cannot close its block early and pose as instructions, and `attr` escapes a value inside a
delimiter's attribute (`<artifact path="{{ a.path | attr }}">`), so that a `"` in a file name, an id or a
judge's word cannot end the value, add an attribute or open a tag of its own.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

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


_ATTR = {"&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;", "\n": "&#10;", "\r": "&#13;"}
_ATTR_CHARS = re.compile('[&"<>\r\n]')


def attr(value: object) -> str:
    """A value for a double-quoted attribute of a delimiter tag, escaped as XML escapes one: it stays one
    value on one line, whatever it holds."""
    return _ATTR_CHARS.sub(lambda m: _ATTR[m.group()], str(value))


@cache
def _env(folder: str) -> jinja2.Environment:
    """The folder's Jinja2 environment; jinja2 is imported here, when a prompt is first rendered (a server
    that has not yet been asked for a debate, `moot --help`, does not load it)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # noqa: S701 - prompts are plain text for a model, not HTML
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["untrusted"] = untrusted
    env.filters["attr"] = attr
    env.filters["pct"] = lambda w: f"{round(w * 100):d}%"
    return env


def render(folder: str | Path, name: str, **variables: Any) -> str:
    """Render the template `name` of `folder` (a protocol's own `templates/`)."""
    return _env(str(folder)).get_template(name).render(**variables).strip() + "\n"


class Templates:
    """A protocol's prompt templates, the folder beside its modules: `PROMPTS.render("round_1.j2", ...)`."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def render(self, name: str, **variables: Any) -> str:
        return render(self.folder, name, **variables)
