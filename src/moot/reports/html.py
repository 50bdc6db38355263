"""The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched).

`render_view` is a pure function of what a debate's page shows (`html_common.View`); the view itself is
its protocol's, which `moot.api.report` looks up before it reads the record from the store and writes the
file. Everything that comes from an artifact or a judge is escaped by Jinja's autoescape, and the page's
Content-Security-Policy allows no script at all, so a judge reply holding `<script>` shows as text and
could not run even if it slipped through.

Judges' prose as HTML: they write Markdown, and the report shows it formatted, never as raw markup.

markdown-it-py (already installed with rich) renders CommonMark with raw HTML switched off, so a `<script>`
or `<img onerror>` in a reply comes out as escaped text. Links are kept only for http(s) and mailto:
`javascript:`, `data:` and relative links (which would point into the reader's own disk) stay as text.
Images are off: the page fetches nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import jinja2
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup

from moot.render.html_common import View
from moot.schemas.safe_text import strip_controls

SAFE_SCHEMES = ("http://", "https://", "mailto:")


class _Prose(MarkdownIt):
    def validateLink(self, url: str) -> bool:
        return url.strip().lower().startswith(SAFE_SCHEMES)


def _link_open(self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """A judge's link leaves the report without telling the target where the reader came from."""
    tokens[idx].attrSet("rel", "nofollow noopener noreferrer")
    return self.renderToken(tokens, idx, options, env)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = _Prose("commonmark", {"html": False, "breaks": True, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"]).disable("image")
    md.add_render_rule("link_open", _link_open)
    return md


def render_markdown(text: str) -> Markup:
    """HTML for the template to insert as is: everything in it was escaped by the parser."""
    return Markup(_parser().render(text))  # noqa: S704 (html=False: the parser escaped all of `text`)


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
