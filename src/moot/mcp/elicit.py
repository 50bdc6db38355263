"""Asking the client's user (MCP elicitation) what a debate leaves to a person.

A protocol whose result a person must settle says so in its spec (`CliSpec.human_choice`: decide's
CONTESTED decision, with its options). Where the client declares the elicitation capability, the tool asks
its user to choose, and records the answer beside the panel's verdict (`CliSpec.record_choice`: decide's
`user_choice`, `decided_by: "user"`); the result returned is the one with the person's decision. A user who
declines, or a client without elicitation, gets the result as the panel left it.

The question travels as the protocol version in use has it:

- before 2026-07-28, a request to the client during the call (`settle`, from the tool);
- from 2026-07-28, an `input_required` answer (`AskTheUser`, a server middleware, so that it wraps the
  tool's own input requests, the client's roots): its `requestState` (sealed by the SDK) names the debate;
  the client asks its user and calls the tool again with the answer, which is recorded without running
  anything again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, Field, ValidationError, create_model

from moot.errors import MootError
from moot.mcp.typed import json_result, readable

if TYPE_CHECKING:
    from moot.protocol.spec import HumanChoice, ProtocolSpec

KEY = "moot/human-choice"  # the input request's key
STATE = "moot-choice:"  # the request state's prefix, before the debate's id


def _can_ask(capabilities: Any) -> bool:
    return capabilities is not None and capabilities.elicitation is not None


def _form(question: HumanChoice) -> type[BaseModel]:
    """The form: one option id, from the question's options (an enum the client shows as a choice)."""
    ids = tuple(i for i, _ in question.options)
    labels = "; ".join(f"{i}: {label}" for i, label in question.options)
    choice: Any = Literal[ids]
    return create_model("HumanDecision", choice=(choice, Field(description=f"The option you choose ({labels}).")))


def question_for(spec: ProtocolSpec, result: BaseModel) -> HumanChoice | None:
    """What the protocol asks a person about a finished result; nothing while it waits on host seats or runs."""
    if spec.cli.human_choice is None or getattr(result, "status", None) != "finished":
        return None
    return spec.cli.human_choice(result)


def record(spec: ProtocolSpec, debate_id: str, choice: str | None) -> BaseModel | None:
    """The result with the person's choice recorded (None when they declined: the stored result stands)."""
    if choice is None or spec.cli.record_choice is None:
        return None
    try:
        return spec.cli.record_choice(debate_id, choice)
    except MootError:  # an answer outside the options: the panel's result stands
        return None


async def settle(ctx: Context, spec: ProtocolSpec, result: BaseModel) -> BaseModel:
    """Before 2026-07-28: ask during the call; the result with the answer, or as it was. (From 2026-07-28
    `AskTheUser` asks, around the call.)"""
    question = question_for(spec, result)
    if question is None or not _can_ask(ctx.client_capabilities):
        return result
    if ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return result
    outcome = await ctx.elicit(question.message, _form(question))
    if outcome.action != "accept":
        return result
    recorded = record(spec, str(getattr(result, "debate_id", "")), str(outcome.data.choice))  # type: ignore[attr-defined]
    return recorded or result


def answer_recorded(spec: ProtocolSpec, debate_id: str, choice: str | None) -> CallToolResult:
    """The debate's result with the person's answer recorded (or as the panel left it, declined)."""
    from moot.api.history import debate_view, find_debate
    from moot.secrets import quoted_safely
    from moot.store.shared import shared_store

    try:
        record(spec, debate_id, choice)
        store = shared_store()
        return readable(json_result(debate_view(store, find_debate(store, debate_id))))
    except MootError as e:
        raise ToolError(quoted_safely(str(e))) from None


def _choice(response: Any) -> str | None:
    """The option in an elicitation's answer (None: declined, cancelled, or no option)."""
    if not isinstance(response, Mapping) or response.get("action") != "accept":
        return None
    content = response.get("content")
    choice = content.get("choice") if isinstance(content, Mapping) else None
    return choice if isinstance(choice, str) else None


def _wire(result: CallToolResult) -> dict[str, Any]:
    return result.model_dump(by_alias=True, exclude_none=True, mode="json")


class AskTheUser:
    """Server middleware (2026-07-28): a protocol tool's result that leaves a choice to a person becomes an
    elicitation for the client to ask; the call that comes back with the answer records it."""

    def __init__(self, specs: Mapping[str, ProtocolSpec]) -> None:
        self.specs = {name: spec for name, spec in specs.items() if spec.cli.human_choice is not None}

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        params = ctx.params or {}
        spec = self.specs.get(str(params.get("name"))) if ctx.method == "tools/call" else None
        if spec is None or ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return await call_next(ctx)
        state = params.get("requestState")
        if isinstance(state, str) and state.startswith(STATE):  # the answer: recorded, nothing runs again
            responses = params.get("inputResponses")
            chosen = _choice(responses.get(KEY) if isinstance(responses, Mapping) else None)
            try:
                return _wire(answer_recorded(spec, state[len(STATE) :], chosen))
            except ToolError as e:
                return _wire(CallToolResult(content=[TextContent(type="text", text=str(e))], is_error=True))
        result = await call_next(ctx)
        return self._ask(ctx, spec, result) or result

    def _ask(self, ctx: ServerRequestContext[Any, Any], spec: ProtocolSpec, result: Any) -> dict[str, Any] | None:
        """The elicitation for a result that leaves a choice to a person, where the client can ask one."""
        data = result.get("structuredContent") if isinstance(result, Mapping) and not result.get("isError") else None
        if not isinstance(data, Mapping) or not _can_ask(ctx.session.client_capabilities):
            return None
        request = question_request(spec, data)
        if request is None:
            return None
        return {
            "resultType": "input_required",
            "inputRequests": {KEY: request},
            "requestState": STATE + str(data.get("debate_id", "")),
        }


def question_request(spec: ProtocolSpec, data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The `elicitation/create` request a result's JSON leaves to a person (None: nothing to ask)."""
    try:
        question = question_for(spec, spec.result_type.model_validate(dict(data)))
    except ValidationError:  # a dry run, a waiting state: nothing to ask
        return None
    if question is None:
        return None
    schema = _form(question).model_json_schema()
    schema.pop("title", None)
    asked = {"mode": "form", "message": question.message, "requestedSchema": schema}
    return {"method": "elicitation/create", "params": asked}


def chosen(response: Any) -> str | None:
    """The option in an elicitation's answer (None: declined, cancelled, or no option)."""
    return _choice(response)
