"""The protocol spec as it was written before its fields were grouped (`cli=`, `views=`, ...): one call with
every field flat, as a protocol package written against it (a plugin, a test's made-up protocol) still
builds its `SPEC`. The parameters are then given as `Param`s with an `adapt` function, not as an `Args`
model (`moot.protocol.args`), which a new protocol should declare instead."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any

from pydantic import BaseModel

from moot.panel_file import PanelFile
from moot.protocol.args import Build, FlatArgs
from moot.protocol.demo import DemoSpec
from moot.protocol.prepared import Prepared
from moot.protocol.spec import BatchSpec, BenchRole, CliSpec, Param, ProtocolSpec, Terminal, ViewSpec
from moot.protocol.verdict import VerdictSpec
from moot.render.html_common import DebateRecord, View
from moot.render.terminal import TextReport
from moot.schemas.config import JudgeSpec


def flat_spec(
    name: str,
    reprepare: Callable[[dict[str, Any], PanelFile | None], Awaitable[Prepared]],
    result_type: type[BaseModel],
    text: Callable[[Any], TextReport],
    build: Callable[..., Coroutine[Any, Any, Prepared]],
    adapt: Callable[[Mapping[str, Any]], dict[str, Any]],
    *,
    help: str = "",
    exports: Mapping[str, Any] | None = None,
    params: tuple[Param, ...] = (),
    description: str = "",
    mcp_description: str = "",
    mcp_summary: str = "",
    formats: tuple[str, ...] = (),
    dry_run_help: str = "",
    max_cost_help: str = "",
    show: Callable[[Any, str, Mapping[str, Any], Terminal], BaseModel] | None = None,
    progress_total: Callable[[Prepared, Mapping[str, Any]], int | None] | None = None,
    batch: BatchSpec | None = None,
    bench: BenchRole | None = None,
    final_name: str = "synthesis",
    legacy_result: Callable[[Mapping[str, Any]], bool] | None = None,
    github_markdown: Callable[[Mapping[str, Any]], str] | None = None,
    html_view: Callable[[DebateRecord], View] | None = None,
    default_judges: tuple[tuple[str, JudgeSpec], ...] = (),
    reply_minimum: Callable[[], int] | None = None,
    demo: DemoSpec | None = None,
    verdict: VerdictSpec | None = None,
) -> ProtocolSpec[FlatArgs]:
    """A `ProtocolSpec` from the flat fields, each put in its group (the builder given what a call gave)."""
    cli = CliSpec(
        help=help,
        description=description,
        mcp_description=mcp_description,
        mcp_summary=mcp_summary,
        formats=formats,
        dry_run_help=dry_run_help,
        max_cost_help=max_cost_help,
        show=show,
        progress_total=progress_total,
        default_judges=default_judges,
        reply_minimum=reply_minimum,
        params=params,
        adapt=adapt,
    )
    views = ViewSpec(text, final_name, legacy_result, github_markdown, html_view)
    return ProtocolSpec(
        name,
        reprepare,
        result_type,
        _as_given(build),
        views,
        exports=exports or {},
        cli=cli,
        batch=batch or BatchSpec(),
        bench=bench,
        demo=demo,
        verdict=verdict or VerdictSpec(),
    )


def _as_given(build: Callable[..., Coroutine[Any, Any, Prepared]]) -> Build[FlatArgs]:
    """A flat spec's builder, which takes the function's own arguments, as a spec's builder takes them."""

    async def built(args: FlatArgs, planning: bool) -> Prepared:
        return await build(*args.given, **args.named(), planning=planning)

    return built
