"""The viewer's Jinja environment (autoescape on, undefined names an error) and its static files.

Static files are a fixed table of names: moot's own script and style sheet, and the reports' style sheets
taken from their templates. A name that is not in the table is a 404, whatever it holds (`../`, `%2F`...).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2

from moot.reports.html import render_markdown
from moot.schemas.safe_text import strip_controls
from moot.view.pages import report_css

HERE = Path(__file__).parent
STATIC = {
    "view.js": ("static/view.js", "text/javascript; charset=utf-8"),
    "view.css": ("static/view.css", "text/css; charset=utf-8"),
}
REPORT_CSS = {"report.css": "report.html.j2", "bench.css": "bench.html.j2"}


def static_file(name: str) -> tuple[str, str] | None:
    """(body, media type) of a static file by its name in the table; None for any other name."""
    if name in STATIC:
        path, media = STATIC[name]
        return _read(path), media
    if name in REPORT_CSS:
        return report_css(REPORT_CSS[name]), "text/css; charset=utf-8"
    return None


@lru_cache(maxsize=8)
def _read(relative: str) -> str:
    return (HERE / relative).read_text(encoding="utf-8")


def money(value: float | None) -> str:
    return "-" if value is None else f"${value:.4f}" if value < 1 else f"${value:,.2f}"


def when(iso: str) -> str:
    return iso[:19].replace("T", " ") if iso else ""


def query(params: Mapping[str, Any]) -> str:
    """`?a=1&b=2` for a link (values escaped for a URL; the template escapes the result for HTML)."""
    return "?" + urlencode({k: v for k, v in params.items() if v not in (None, "")})


@lru_cache(maxsize=1)
def env() -> jinja2.Environment:
    e = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(HERE / "templates")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    e.filters.update(money=money, when=when, query=query, markdown=render_markdown)
    return e


def render(template: str, **values: Any) -> str:
    """A page, without control or bidirectional control characters (judge text included), as the report
    files are (`moot.schemas.safe_text.strip_controls`)."""
    return strip_controls(env().get_template(template).render(**values))
