"""The gate of a protocol tool (`require`, `fail_under`: the CLI's `--require` and `--fail-under`), and what a
debate's end owes the client whichever tool receives it (the protocol's own, or the last `submit_replies`).

A gate is checked before anything runs, stored with the debate (`moot.api.outcome`) and applied to the final
result, whichever way the client reads it (the tool's reply, the last `submit_replies`, a task's result,
`show_debate` after `wait: false`): one that falls short is returned with `isError: true` and a last text
item `gate failed: <why>` (the result itself stays the first item, unchanged). A waiting state is returned
as it is: no verdict yet, so nothing that reads as a pass. The HTML report given at the start (`html`) is
written at the end too (by the tool that ran the debate, or the last `submit_replies`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from moot.api.gate import check_gate_options, gate_failure
from moot.api.outcome import Finish
from moot.mcp.confine import HTML_IN_RESULT, with_html
from moot.mcp.typed import json_result, readable

if TYPE_CHECKING:
    from moot.protocol.spec import ProtocolSpec
    from moot.store.db import DebateRow, Store

REQUIRE_HELP = (
    "CI gate: the verdict must be at least this ({words}); a result that falls short comes back with "
    "isError true and a last item 'gate failed: ...'. With host seats it is applied by the last submit_replies."
)
FAIL_UNDER_HELP = "CI gate: the final score (1-5) must be at least this; as require, applied at the debate's end."


def gate_params(spec: ProtocolSpec) -> list[tuple[str, Any, Any]]:
    """The gate's parameters a protocol tool takes: `require` where its verdict has words to require,
    `fail_under` where it is scored."""
    params: list[tuple[str, Any, Any]] = []
    if spec.verdict.require:
        words = " or ".join(spec.verdict.require)
        params.append(("require", Annotated[str | None, Field(description=REQUIRE_HELP.format(words=words))], None))
    if spec.verdict.scored:
        params.append(("fail_under", Annotated[float | None, Field(description=FAIL_UNDER_HELP)], None))
    return params


def checked_finish(protocol: str, values: dict[str, Any], html: str | None) -> Finish:
    """The tool's gate, taken out of its values and checked (bad input: a tool error before any call)."""
    fail_under, require = values.pop("fail_under", None), values.pop("require", None)
    if html and html != HTML_IN_RESULT:  # the same file whichever server process receives the last reply
        html = str(Path(html).absolute())
    return Finish(require=check_gate_options(fail_under, require, protocol), fail_under=fail_under, html=html)


def ended(
    result: BaseModel, ending: Finish, reply: Callable[[BaseModel, str | None], CallToolResult]
) -> CallToolResult:
    """The tool's reply for a run's or a submit's result: `reply` (the result, its HTML report written) and,
    for a final result below the gate, `isError` with the reason."""
    if getattr(result, "status", None) == "waiting":
        return reply(result, None)
    return gated(reply(result, ending.html), result.model_dump(mode="json"), ending)


def gated(answer: CallToolResult, result: Mapping[str, Any], ending: Finish) -> CallToolResult:
    """`answer` for the final `result`, with `isError` and a last item giving the reason when the result
    falls short of the gate the debate was started with. Every door that returns a final result goes
    through here: the tool that ran it, the last `submit_replies`, a task's result, `show_debate`."""
    why = gate_failure(result, fail_under=ending.fail_under, require=ending.require)
    if why is None:
        return answer
    content = [*answer.content, TextContent(type="text", text=f"gate failed: {why}")]
    return CallToolResult(content=content, structured_content=answer.structured_content, is_error=True)


def stored_result(store: Store, row: DebateRow, *, inline_html: bool) -> CallToolResult:
    """A finished debate's result read back from the store (a task's result, `show_debate`), held to the gate
    it was started with; `inline_html`: with its report as a content item when it was started with
    `html: "-"`, as the tool that ran it gives it."""
    from moot.api.history import debate_view
    from moot.api.outcome import stored_finish

    data = debate_view(store, row)
    answer, ending = json_result(data), stored_finish(row.request)
    if inline_html and ending.html == HTML_IN_RESULT:
        answer = with_html(answer, row.id)
    return gated(readable(answer), data, ending)
