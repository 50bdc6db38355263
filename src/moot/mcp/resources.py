"""MCP resources: a stored debate a user can cite, and the judges moot can use here.

- `moot://debates/{debate_id}`: the debate's result JSON (what `show_debate` returns: the result, the
  waiting state, or where it stopped); an id prefix works as in `moot show`;
- `moot://debates/{debate_id}/report.html`: its HTML report (the URI a tool's `html: "-"` result names);
- `moot://judges`: the judges file in effect and the judges of it that are usable now (`doctor`'s rows).

They read moot's store and its configuration only: nothing is sent to any judge. A debate is read as the
store tools read it: only one started inside the server's roots (its `--root` folders, else the folder it
was started in), any other answered as a debate that does not exist.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from moot.errors import MootError
from moot.mcp.confine import tool_call, visible_debate
from moot.render.serialize import to_json


async def debate_json(debate_id: str, ctx: Context) -> str:
    """A stored debate's JSON, as `show_debate` gives it."""
    from moot.api.history import debate_view
    from moot.store.shared import shared_store

    try:
        async with tool_call(ctx, None) as folders:
            store = shared_store()
            return to_json(debate_view(store, visible_debate(store, debate_id, folders)))
    except MootError as e:
        raise ResourceError(str(e)) from None


async def debate_report(debate_id: str, ctx: Context) -> str:
    """A stored debate's HTML report."""
    from moot.api.report import load_record, render_html
    from moot.store.shared import shared_store

    try:
        async with tool_call(ctx, None) as folders:
            store = shared_store()
            return render_html(load_record(store, visible_debate(store, debate_id, folders).id))
    except MootError as e:
        raise ResourceError(str(e)) from None


async def usable_judges() -> str:
    """The judges file in effect (and why), and its judges that can run here now."""
    from moot.api.doctor import doctor_report

    try:
        report = await doctor_report(None)
    except MootError as e:
        raise ResourceError(str(e)) from None
    usable = [row for row in report["judges"] if row.get("usable")]
    return to_json({"judges_file": report["judges_file"], "judges": usable})


# (uri, name, title, description, MIME type) of each resource, beside the function that reads it
RESOURCES: tuple[tuple[str, str, str, str, str, Callable[..., Awaitable[str]]], ...] = (
    ("moot://debates/{debate_id}", "debate", "A stored debate",
     "A debate's result JSON by id (or a unique prefix): its verdict, judges and spend.", "application/json",
     debate_json),
    ("moot://debates/{debate_id}/report.html", "debate-report", "A stored debate's report",
     "A debate's HTML report by id (or a unique prefix).", "text/html", debate_report),
    ("moot://judges", "judges", "Usable judges",
     "The judges file in effect and the judges of it that can run here now.", "application/json", usable_judges),
)  # fmt: skip


def add_resources(server: MCPServer) -> None:
    for uri, name, title, description, mime_type, read in RESOURCES:
        server.resource(uri, name=name, title=title, description=description, mime_type=mime_type)(read)
