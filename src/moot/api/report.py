"""A stored debate as its protocol shows it: the HTML report (`moot report`, the viewer's debate page) and
`--format github`.

The rendering itself is shared (`moot.reports`); which protocol's view or Markdown renderer applies is
looked up here, above the protocols, in the registry (`ProtocolSpec.html_view`, `.github_markdown`), so
the reports never import a protocol. A protocol without one, or a name the registry does not know, is
shown plainly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from moot.api.results import with_envelope
from moot.errors import UsageError
from moot.protocols import entry, spec_for
from moot.render.github import render_github
from moot.render.html_common import DebateRecord, View
from moot.render.html_page import generic_view
from moot.render.serialize import atomic_write
from moot.reports.html import render_view
from moot.store.db import Store


def load_record(store: Store, debate_id: str) -> DebateRecord:
    """A debate and all its calls, by id or unique id prefix, its result brought up to the envelope.
    Raises UsageError when there is none."""
    row = store.require_debate(debate_id)
    return DebateRecord(
        debate_id=row.id,
        protocol=row.protocol,
        title=row.title,
        status=row.status,
        created_at=row.created_at,
        request=row.request,
        result=with_envelope(row.protocol, row.result) if row.result is not None else None,
        error=row.error,
        calls=store.calls(row.id, prompts=False),
        rounds=store.rounds(row.id),
    )


def build_view(record: DebateRecord) -> View:
    """What the report shows of a debate: its protocol's view, round 0 named as the protocol names it."""
    if entry(record.protocol) is None:
        return generic_view(record)
    spec = spec_for(record.protocol)
    named = replace(record, final_name=spec.views.final_name)
    return spec.views.html_view(named) if spec.views.html_view is not None else generic_view(named, spec.verdict.words)


def render_html(record: DebateRecord) -> str:
    """The report of one debate as a complete, self-contained HTML document."""
    return render_view(build_view(record))


def write_html_report(store: Store, debate_id: str, path: str | Path) -> Path:
    """Render a stored debate to `path` (written atomically). Returns the path written."""
    html = render_html(load_record(store, debate_id))
    target = Path(path)
    try:
        atomic_write(target, html)
    except OSError as e:
        raise UsageError(f"cannot write {target}: {e.strerror or e}") from None
    return target


def github_markdown(result: Mapping[str, Any]) -> str:
    """`--format github`: a result as inert GitHub Markdown, through its protocol's own renderer."""
    name = str(result.get("protocol", ""))
    renderer = spec_for(name).views.github_markdown if entry(name) is not None else None
    return render_github(result, renderer)


# the names the docs send users to (tests/test_public_surface.py pins them)
__all__ = ["build_view", "github_markdown", "load_record", "render_html", "write_html_report"]
