"""The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched).

`render_html` is a pure function of a debate's record; `load_record` reads that record from the store and
`write_html_report` puts the two together at the edge. Everything that comes from an artifact or a judge
is escaped by Jinja's autoescape, and the page's Content-Security-Policy allows no script at all, so a
judge reply holding `<script>` shows as text and could not run even if it slipped through.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

from moot.errors import UsageError
from moot.reports.html_common import DebateRecord
from moot.reports.html_markdown import render_markdown
from moot.reports.html_views import build_view
from moot.schemas.safe_text import strip_controls
from moot.store.db import Store

TEMPLATES = Path(__file__).parent / "templates"


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["markdown"] = render_markdown
    return env


def load_record(store: Store, debate_id: str) -> DebateRecord:
    """A debate and all its calls, by id or unique id prefix. Raises UsageError when there is none."""
    row = store.require_debate(debate_id)
    return DebateRecord(
        debate_id=row.id,
        protocol=row.protocol,
        title=row.title,
        status=row.status,
        created_at=row.created_at,
        request=row.request,
        result=row.result,
        error=row.error,
        calls=store.calls(row.id, prompts=False),
        rounds=store.rounds(row.id),
    )


def render_html(record: DebateRecord) -> str:
    """The report of one debate as a complete HTML document; without control characters, which HTML does
    not allow and a terminal would act on (`cat report.html`, `moot report -o -`)."""
    return strip_controls(_env().get_template("report.html.j2").render(view=build_view(record)))


def write_html_report(store: Store, debate_id: str, path: str | Path) -> Path:
    """Render a stored debate to `path` (written atomically). Returns the path written."""
    from moot.reports.files import atomic_write

    html = render_html(load_record(store, debate_id))
    target = Path(path)
    try:
        atomic_write(target, html)
    except OSError as e:
        raise UsageError(f"cannot write {target}: {e.strerror or e}") from None
    return target


# the names the docs send users to (tests/test_public_surface.py pins them)
__all__ = ["load_record", "render_html", "write_html_report"]
