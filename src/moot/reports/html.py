"""The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched).

`render_view` is a pure function of what a debate's page shows (`html_common.View`); the view itself is
its protocol's, which `moot.api.report` looks up before it reads the record from the store and writes the
file. Everything that comes from an artifact or a judge is escaped by Jinja's autoescape, and the page's
Content-Security-Policy allows no script at all, so a judge reply holding `<script>` shows as text and
could not run even if it slipped through.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

from moot.reports.html_common import View
from moot.reports.html_markdown import render_markdown
from moot.schemas.safe_text import strip_controls

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


def render_view(view: View) -> str:
    """The report of one debate as a complete HTML document; without control characters, which HTML does
    not allow and a terminal would act on (`cat report.html`, `moot report -o -`)."""
    return strip_controls(_env().get_template("report.html.j2").render(view=view))
