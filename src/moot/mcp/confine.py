"""What a tool call may touch: the server's roots, and whether a judges file it names may run programs.

An MCP server is driven by an LLM that reads untrusted text, so a tool call is untrusted input (a person
typing a path at the CLI is not held to this). Each tool call runs confined (`moot.access`) to its roots:

- the roots the client declares (the MCP `roots` capability, asked for on every call, since a client may
  change them: `ClientRoots`, a hidden parameter of each tool that reads or writes), else the server's
  working folder;
- plus every `--root DIR` given to `moot mcp`.

Reads (`solution`, `context`, judges and rubric files, globs, folders, a judge's `script:`) are checked
where moot opens them, by real path; writes (`html`, a protocol's output folders such as `reports_dir`)
are checked before the debate starts, so a refused call sends nothing to any judge, and again when the
file is written. A judges file named in a call may hold `command:` or `cli:` judges only when the server was
started with `--allow-commands` (`moot.panel_file.check_named_file`).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlparse
from urllib.request import url2pathname
from weakref import WeakKeyDictionary

from mcp.server.mcpserver import Context, ListRoots, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, EmbeddedResource, ListRootsResult, TextResourceContents

from moot.access import Folders, WriteRecord, confined
from moot.errors import MootError, UsageError, shown_path
from moot.mcp.written import WrittenFiles

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from moot.protocol.spec import ProtocolSpec
    from moot.store.db import DebateRow, Store

# the `html` argument's value that returns the report in the tool result instead of writing a file
HTML_IN_RESULT = "-"


@dataclass
class ServerTrust:
    """What `moot mcp` was started with: roots beyond the client's, and whether named judges files may run
    programs; plus the files moot wrote over MCP (those it may write again: `moot.mcp.written`)."""

    roots: tuple[Path, ...] = ()
    allow_commands: bool = False
    written: WriteRecord = field(default_factory=WrittenFiles)
    allow_key_servers: bool = False  # named judges files may send keys to servers they name


_SERVERS: WeakKeyDictionary[MCPServer, ServerTrust] = WeakKeyDictionary()


def configure(
    server: MCPServer,
    roots: Sequence[str | Path] = (),
    *,
    allow_commands: bool = False,
    allow_key_servers: bool = False,
) -> None:
    _SERVERS[server] = ServerTrust(tuple(Path(r) for r in roots), allow_commands, allow_key_servers=allow_key_servers)


def trust_of(ctx: Context) -> ServerTrust:
    try:
        server = ctx.mcp_server
    except ValueError:
        return ServerTrust()
    return _SERVERS.setdefault(server, ServerTrust())


def root_path(uri: str) -> Path | None:
    """A `file://` root's folder (None for any other scheme, which names no folder here)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(url2pathname(parsed.path))


def wants_roots(ctx: Context) -> ListRoots | None:
    """Ask the client for its roots when it declares the capability (the SDK asks in the way the protocol
    version in use has: a request mid-call, or an input request the client answers by calling again)."""
    capabilities = ctx.client_capabilities
    return ListRoots() if capabilities is not None and capabilities.roots is not None else None


# a tool's hidden parameter: the client's roots, filled by the SDK (None when it declares none)
ROOTS_ARG = "client_roots"
ClientRoots = Annotated[ListRootsResult | None, Resolve(wants_roots)]


def folders_for(ctx: Context, declared: ListRootsResult | None) -> Folders:
    """The client's `file://` roots, else the working folder (unless it is `/` or the home folder); plus the
    server's `--root` folders."""
    trust = trust_of(ctx)
    listed = [root_path(str(r.uri)) for r in declared.roots] if declared is not None else []
    client = [p for p in listed if p is not None]
    fallback = [] if too_wide(Path.cwd()) else [Path.cwd()]
    roots = [*(client or fallback), *trust.roots]
    return Folders.of(
        roots,
        trust.written,
        allow_commands=trust.allow_commands,
        allow_key_servers=trust.allow_key_servers,
        no_roots=NO_ROOTS.format(Path.cwd()),
    )


NO_ROOTS = (
    "the MCP server has no roots: it was started in {}, which is no root, and the client declares none; "
    "start it with `moot mcp --root DIR` (or from the project's folder), or use a client that declares its roots"
)


def too_wide(folder: Path) -> bool:
    """The working folder is no root when it is `/` or the home folder: a server an agent started there would
    let a tool call read every file of the machine or of the user (`~/.ssh`, `~/.aws`)."""
    here = Path(os.path.realpath(folder))
    return here == Path(here.anchor) or here == Path(os.path.realpath(Path.home()))


def roots_banner(extra: Sequence[Path]) -> str:
    """The line `moot mcp` writes on stderr at start: the roots its tools read and write in."""
    more = "".join(f", {r}" for r in extra)
    if too_wide(Path.cwd()):
        fallback = f"none (started in {Path.cwd()}, which is no root: a client without roots gets only --root)"
    else:
        fallback = str(Path.cwd())
    return f"moot mcp: roots: the client's roots, else {fallback}{'; plus ' + more[2:] if more else ''}"


def visible_debate(store: Store, debate_id: str, folders: Folders) -> DebateRow:
    """A stored debate the call may see and act on: one started inside its roots. Any other is answered as
    a debate that does not exist, so that a call learns nothing of another project's debates."""
    row = store.get_debate(debate_id)
    if row is None:
        return store.require_debate(debate_id)  # raises, saying why (too short a prefix, none)
    if not folders.sees(row.started_in):
        raise UsageError(f"no debate {debate_id} in {shown_path(store.path)} (see 'moot list')")
    return row


@asynccontextmanager
async def tool_call(ctx: Context, declared: ListRootsResult | None) -> AsyncIterator[Folders]:
    """Run the body confined to the call's roots (the tasks it starts inherit it)."""
    with confined(folders_for(ctx, declared)) as folders:
        yield folders


def check_outputs(spec: ProtocolSpec, arguments: Mapping[str, Any], html: str | None, folders: Folders) -> None:
    """Before any call: every place the debate would write must be inside a root (the protocol's output
    folders, as its batch spec names them among the API's arguments, and the HTML report's file)."""
    for name in spec.batch.output_paths:
        value = arguments.get(name)
        if isinstance(value, str) and value:
            folders.check_folder(value)
    if html and html != HTML_IN_RESULT:
        check_report_name(html)
        folders.check_write(html)


HTML_SUFFIXES = (".html", ".htm")
# folders Python, git or a package manager load code from: a report has no business there, and a file
# written there (a `.pth` in site-packages, a git hook) would run the text of a tool call
CODE_FOLDERS = frozenset({".git", "site-packages", "dist-packages", "__pycache__"})


def check_report_name(html: str) -> None:
    """A tool call's `html` is an HTML file outside the folders code is loaded from: the report holds text
    the call chose (its task, the judges' replies), so under any other name (a `.pth` file, `sitecustomize.py`,
    a git hook) it could be run by the next program that starts."""
    path = Path(html)
    if path.suffix.lower() not in HTML_SUFFIXES:
        raise UsageError(f"refused to write {html}: an HTML report's file name ends in .html or .htm")
    if any(part.lower() in CODE_FOLDERS for part in Path(os.path.realpath(path)).parts[:-1]):
        raise UsageError(f"refused to write {html}: it is inside a folder code is loaded from")


def with_html(result: CallToolResult, debate_id: str) -> CallToolResult:
    """The result with the debate's HTML report as a second content item (`html: "-"`): the report reaches
    the client without a file being written anywhere."""
    from moot.api.report import load_record, render_html
    from moot.store import Store

    page = render_html(load_record(Store.open_default(), debate_id))
    report = TextResourceContents(uri=f"moot://debates/{debate_id}/report.html", mime_type="text/html", text=page)
    result.content.append(EmbeddedResource(type="resource", resource=report))
    return result


@asynccontextmanager
async def confined_debate(
    ctx: Context,
    declared: ListRootsResult | None,
    spec: ProtocolSpec,
    values: Mapping[str, Any],
    *,
    html: str | None,
    dry_run: bool,
) -> AsyncIterator[Folders]:
    """A protocol tool's call, confined to its roots; a place it would write outside them is a tool error
    before anything is read or any judge called (a dry run writes nothing, so it is not checked)."""
    async with tool_call(ctx, declared) as folders:
        if not dry_run:
            try:
                check_outputs(spec, spec.adapt(values), html, folders)
            except MootError as e:
                raise ToolError(str(e)) from None
        yield folders
