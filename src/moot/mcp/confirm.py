"""Asking the client's user before a debate runs, where the client can ask (MCP elicitation).

Before a protocol tool's debate sends anything, the server plans it (the tool's own dry run: every call,
priced) and asks the user to confirm when:

- its worst case costs more than `moot mcp --confirm-over USD`; or
- its panel runs programs on this machine (`command:` judges, agent CLIs).

A user who declines gets a result that says nothing was sent; a client without elicitation, or a call under
the threshold with no program to run, runs as it always did. The question travels as the protocol version
in use has it: before 2026-07-28 a request during the call; from 2026-07-28 an `input_required` answer, the
call coming back with the answer (the confirmation is kept for that call's arguments until the debate
starts, so the client's other input rounds, its roots, do not ask again).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.types import CallToolResult, TextContent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from moot.mcp.elicit import STATE as CHOICE_STATE

KEY = "moot/confirm"
STATE = "moot-confirm:"
FORM = {
    "type": "object",
    "properties": {"run": {"type": "boolean", "description": "Run the debate."}},
    "required": ["run"],
}
RUNS_PROGRAMS = "cli/"  # the provider of `command:` judges and agent CLIs, as the plan lists them


def _key(params: Mapping[str, Any]) -> str:
    """The call, by tool and arguments: what a confirmation holds for."""
    text = json.dumps([params.get("name"), params.get("arguments") or {}], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def reasons(plan: Mapping[str, Any], over: float | None) -> list[str]:
    """Why the user is asked first, from the debate's plan (its dry run): nothing, or the cost, the programs."""
    said = []
    worst = [s.get("worst_usd") for s in plan.get("scenarios") or [] if isinstance(s, Mapping)]
    priced = [float(w) for w in worst if isinstance(w, int | float)]
    if over is not None and priced and max(priced) > over:
        said.append(f"its worst case costs ${max(priced):.2f}, over the ${over:.2f} set with --confirm-over")
    programs = [
        str(j.get("seat"))
        for j in plan.get("judges") or []
        if isinstance(j, Mapping) and any(str(r).startswith(RUNS_PROGRAMS) for r in j.get("runs_on") or [])
    ]
    if programs:
        said.append(f"it runs programs on this machine for {', '.join(programs)}")
    return said


def _declined(name: str) -> dict[str, Any]:
    text = f"moot {name}: not run: the user did not confirm it; nothing was sent to any judge"
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True).model_dump(
        by_alias=True, exclude_none=True, mode="json"
    )


def _accepted(response: Any) -> bool:
    content = getattr(response, "content", None) if not isinstance(response, Mapping) else response.get("content")
    action = getattr(response, "action", None) if not isinstance(response, Mapping) else response.get("action")
    return action == "accept" and isinstance(content, Mapping) and content.get("run") is True


class ConfirmFirst:
    """Server middleware: a protocol tool's debate confirmed by the user first, when `reasons` says so."""

    def __init__(self, tools: Collection[str], over: float | None) -> None:
        self.tools = frozenset(tools)
        self.over = over
        self.confirmed: set[str] = set()  # calls the user confirmed, until their debate starts

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = dict(ctx.params or {})
        arguments = params.get("arguments") or {}
        capabilities = ctx.session.client_capabilities
        if (
            ctx.method != "tools/call"
            or params.get("name") not in self.tools
            or capabilities is None
            or capabilities.elicitation is None
            or (isinstance(arguments, Mapping) and arguments.get("dry_run"))
        ):
            return await call_next(ctx)
        key = _key(params)
        state = params.get("requestState")
        if isinstance(state, str) and state.startswith(CHOICE_STATE):  # a finished debate's question answered
            return await call_next(ctx)
        if isinstance(state, str) and state == STATE + key:  # the answer
            if not _accepted((params.get("inputResponses") or {}).get(KEY)):
                return _declined(str(params["name"]))
            self.confirmed.add(key)
            params = {k: v for k, v in params.items() if k not in ("inputResponses", "requestState")}
            ctx = replace(ctx, params=params)
        if key in self.confirmed:
            return await self._run(ctx, call_next, key)
        return await self._plan_and_ask(ctx, call_next, params, key)

    async def _run(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext, key: str) -> HandlerResult:
        result = await call_next(ctx)
        if not (isinstance(result, Mapping) and result.get("resultType") == "input_required"):
            self.confirmed.discard(key)  # it ran (or failed): a new call asks again
        return result

    async def _plan_and_ask(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext, params: dict[str, Any], key: str
    ) -> HandlerResult:
        planning = {**params, "arguments": {**(params.get("arguments") or {}), "dry_run": True}}
        plan = await call_next(replace(ctx, params=planning))
        data = plan.get("structuredContent") if isinstance(plan, Mapping) and not plan.get("isError") else None
        if not isinstance(data, Mapping):  # bad input, or the client's roots asked first: as the tool answers
            return plan
        why = reasons(data, self.over)
        if not why:
            return await call_next(ctx)
        message = f"moot {params['name']}: {'; and '.join(why)}. Run it?"
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            answer = await ctx.session.elicit_form(message, FORM, related_request_id=ctx.request_id)
            return await call_next(ctx) if _accepted(answer) else _declined(str(params["name"]))
        asked = {"mode": "form", "message": message, "requestedSchema": FORM}
        return {
            "resultType": "input_required",
            "inputRequests": {KEY: {"method": "elicitation/create", "params": asked}},
            "requestState": STATE + key,
        }
