"""Judges' prose as HTML: they write Markdown, and the report shows it formatted, never as raw markup.

markdown-it-py (already installed with rich) renders CommonMark with raw HTML switched off, so a `<script>`
or `<img onerror>` in a reply comes out as escaped text. Links are kept only for http(s) and mailto:
`javascript:`, `data:` and relative links (which would point into the reader's own disk) stay as text.
Images are off: the page fetches nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup

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
