"""The four wire formats of `agent_wire`: one scripted `Turn` (a text, tool calls) as each API's whole reply
and as its stream of server-sent events, in the shapes the agent CLIs parse."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

# every turn's tool calls get ids of their own: an agent matches a result to its call by id, across the session
_SERIAL = itertools.count(1)


@dataclass(frozen=True)
class ToolCall:
    name: str
    args: dict[str, Any]


@dataclass
class Turn:
    """One reply of the scripted model."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    delay: float = 0.0  # seconds before the reply (a hung model: longer than the judge's timeout)
    status: int = 200
    error: str = ""


def sse(event: tuple[str | None, dict[str, Any] | str]) -> str:
    name, data = event
    line = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {name}\n" if name else "") + f"data: {line}\n\n"


StreamEvent = tuple[str | None, dict[str, Any] | str]
_USAGE_IN, _USAGE_OUT = 100, 20


# Anthropic Messages


def _anthropic_blocks(turn: Turn) -> list[dict[str, Any]]:
    tag = next(_SERIAL)
    blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text or not turn.tool_calls else []
    for i, call in enumerate(turn.tool_calls):
        blocks.append({"type": "tool_use", "id": f"toolu_{tag:06d}{i:04d}", "name": call.name, "input": call.args})
    return blocks


def _anthropic_whole(model: str, turn: Turn) -> dict[str, Any]:
    return {
        "id": "msg_0001",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _anthropic_blocks(turn),
        "stop_reason": "tool_use" if turn.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": _USAGE_IN, "output_tokens": _USAGE_OUT},
    }


def _anthropic_stream(model: str, turn: Turn) -> Iterator[StreamEvent]:
    head = {**_anthropic_whole(model, turn), "content": [], "stop_reason": None}
    yield "message_start", {"type": "message_start", "message": head}
    for i, block in enumerate(_anthropic_blocks(turn)):
        start: dict[str, Any]
        if block["type"] == "text":
            start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_start", {"type": "content_block_start", "index": i, "content_block": start}
        yield "content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": i}
    stop = "tool_use" if turn.tool_calls else "end_turn"
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": _USAGE_OUT},
        },
    )
    yield "message_stop", {"type": "message_stop"}


# OpenAI chat completions


def _chat_calls(turn: Turn) -> list[dict[str, Any]]:
    tag = next(_SERIAL)
    return [
        {
            "index": i,
            "id": f"call_{tag:06d}{i:04d}",
            "type": "function",
            "function": {"name": c.name, "arguments": json.dumps(c.args)},
        }
        for i, c in enumerate(turn.tool_calls)
    ]


_CHAT_USAGE = {"prompt_tokens": _USAGE_IN, "completion_tokens": _USAGE_OUT, "total_tokens": _USAGE_IN + _USAGE_OUT}


def _chat_whole(model: str, turn: Turn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.tool_calls:
        message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in _chat_calls(turn)]
    finish = "tool_calls" if turn.tool_calls else "stop"
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {**_chat_object("chat.completion", model, choice), "usage": _CHAT_USAGE}


def _chat_object(kind: str, model: str, choice: dict[str, Any]) -> dict[str, Any]:
    """A whole chat completion and a streamed chunk of one wear the same envelope; `kind` tells them apart."""
    return {"id": "chatcmpl-1", "object": kind, "created": int(time.time()), "model": model, "choices": [choice]}


def _chat_stream(model: str, turn: Turn) -> Iterator[StreamEvent]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return _chat_object("chat.completion.chunk", model, {"index": 0, "delta": delta, "finish_reason": finish})

    yield None, chunk({"role": "assistant", "content": ""})
    if turn.text:
        yield None, chunk({"content": turn.text})
    if turn.tool_calls:
        yield None, chunk({"tool_calls": _chat_calls(turn)})
    yield None, chunk({}, "tool_calls" if turn.tool_calls else "stop")
    yield None, {**chunk({}), "choices": [], "usage": _CHAT_USAGE}
    yield None, "[DONE]"


# OpenAI Responses


def _responses_items(turn: Turn) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if turn.text or not turn.tool_calls:
        content = [{"type": "output_text", "text": turn.text, "annotations": []}]
        items.append(
            {"type": "message", "id": "msg_0001", "role": "assistant", "status": "completed", "content": content}
        )
    tag = next(_SERIAL)
    for i, c in enumerate(turn.tool_calls):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_{tag:06d}{i:04d}",
                "call_id": f"call_{tag:06d}{i:04d}",
                "name": c.name,
                "arguments": json.dumps(c.args),
                "status": "completed",
            }
        )
    return items


def _responses_whole(model: str, turn: Turn) -> dict[str, Any]:
    return {
        "id": "resp_0001",
        "object": "response",
        "created_at": int(time.time()),
        "model": model,
        "status": "completed",
        "output": _responses_items(turn),
        "usage": {
            "input_tokens": _USAGE_IN,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": _USAGE_OUT,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": _USAGE_IN + _USAGE_OUT,
        },
    }


def _responses_stream(model: str, turn: Turn) -> Iterator[StreamEvent]:
    whole = _responses_whole(model, turn)
    yield "response.created", {"type": "response.created", "response": {**whole, "status": "in_progress", "output": []}}
    for i, item in enumerate(whole["output"]):
        yield "response.output_item.added", {"type": "response.output_item.added", "output_index": i, "item": item}
        if item["type"] == "message":
            delta = {
                "type": "response.output_text.delta",
                "item_id": item["id"],
                "output_index": i,
                "content_index": 0,
                "delta": item["content"][0]["text"],
            }
            yield "response.output_text.delta", delta
        yield "response.output_item.done", {"type": "response.output_item.done", "output_index": i, "item": item}
    yield "response.completed", {"type": "response.completed", "response": whole}


# Gemini


def _gemini_whole(model: str, turn: Turn) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": turn.text}] if turn.text or not turn.tool_calls else []
    parts += [{"functionCall": {"name": c.name, "args": c.args}} for c in turn.tool_calls]
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": _USAGE_IN,
            "candidatesTokenCount": _USAGE_OUT,
            "totalTokenCount": _USAGE_IN + _USAGE_OUT,
        },
        "modelVersion": model,
        "responseId": "resp-1",
    }


def _gemini_stream(model: str, turn: Turn) -> Iterator[StreamEvent]:
    yield None, _gemini_whole(model, turn)


STREAMS: dict[str, Callable[[str, Turn], Iterator[StreamEvent]]] = {
    "anthropic": _anthropic_stream,
    "chat": _chat_stream,
    "responses": _responses_stream,
    "gemini": _gemini_stream,
}
WHOLE: dict[str, Callable[[str, Turn], dict[str, Any]]] = {
    "anthropic": _anthropic_whole,
    "chat": _chat_whole,
    "responses": _responses_whole,
    "gemini": _gemini_whole,
}
