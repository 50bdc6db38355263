"""The four model APIs the agent CLIs speak, streamed as each CLI asks, on 127.0.0.1: a scripted model behind
the real `claude`, `gemini`, `qwen` and `codex` binaries (tests/test_agent_cli_real.py).

    wire          path                                        used by
    anthropic     POST /v1/messages (SSE when stream=true)    claude (ANTHROPIC_BASE_URL)
    chat          POST /v1/chat/completions (SSE)             qwen (OPENAI_BASE_URL)
    responses     POST /v1/responses (SSE)                    codex (a provider with wire_api = "responses")
    gemini        POST /v1beta/models/M:generateContent,      gemini (GOOGLE_GEMINI_BASE_URL)
                  :streamGenerateContent?alt=sse

What the model does on each request is a `Brain`: a function from the request to a `Turn` (a text, tool
calls in the wire's native form, a delay, an HTTP error). `hostile()` is the model a prompt injection would
make: it asks the agent to read a file outside its workspace, run `cat` on it and write a file, then
answers. Every request is kept whole (`requests`, raw bytes included), so a test can assert that a planted
secret never reached the model.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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


@dataclass
class AgentRequest:
    wire: str  # "anthropic" | "chat" | "responses" | "gemini"
    method: str
    path: str
    model: str
    body: dict[str, Any]
    raw: bytes
    headers: dict[str, str]
    stream: bool = False

    def tools(self) -> dict[str, set[str]]:
        """The tools the agent offered the model: name -> its parameters' names."""
        offered: dict[str, set[str]] = {}
        for tool in self.body.get("tools") or []:
            if not isinstance(tool, dict):
                continue
            for decl in tool.get("functionDeclarations") or tool.get("function_declarations") or []:
                offered[str(decl.get("name"))] = _param_names(
                    decl.get("parameters") or decl.get("parametersJsonSchema")
                )
            fn: dict[str, Any] = tool["function"] if isinstance(tool.get("function"), dict) else tool
            if fn.get("name"):
                schema = fn.get("parameters") or fn.get("input_schema") or {}
                offered[str(fn["name"])] = _param_names(schema)
        return offered

    def answers_a_tool(self) -> bool:
        """Whether the last message is a tool's result (the agent ran, or refused, the model's call)."""
        turns = self.body.get("messages") or self.body.get("contents") or self.body.get("input") or []
        last = json.dumps(turns[-1] if isinstance(turns, list) and turns else turns)
        return any(mark in last for mark in _RESULT_MARKS)

    def text(self) -> str:
        return self.raw.decode("utf-8", errors="replace")


_RESULT_MARKS = ('"tool_result"', '"role": "tool"', '"functionResponse"', '"function_call_output"')


def _param_names(schema: Any) -> set[str]:
    props = schema.get("properties") if isinstance(schema, dict) else None
    return set(props) if isinstance(props, dict) else set()


Brain = Callable[[AgentRequest], Turn]


def answer(text: str) -> Brain:
    """A model that always answers `text`."""
    return lambda request: Turn(text=text)


# the tool names each agent's own model is taught, and the argument names they take
_READ = {"anthropic": "Read", "gemini": "read_file", "chat": "read_file", "responses": "exec_command"}
_WRITE = {"anthropic": "Write", "gemini": "write_file", "chat": "write_file", "responses": "exec_command"}
_SHELL = {"anthropic": "Bash", "gemini": "run_shell_command", "chat": "run_shell_command", "responses": "exec_command"}
_PATH_ARGS = ("file_path", "absolute_path", "path")
_SHELL_ARGS = ("command", "cmd")


def _arg(offered: set[str] | None, choices: tuple[str, ...]) -> str:
    for name in choices:
        if offered and name in offered:
            return name
    return choices[0]


def _shell_call(request: AgentRequest, command: str) -> ToolCall:
    offered = request.tools()
    name = _SHELL[request.wire]
    if request.wire == "responses" and "exec_command" not in offered and "shell" in offered:
        return ToolCall("shell", {"command": ["bash", "-lc", command]})
    return ToolCall(name, {_arg(offered.get(name), _SHELL_ARGS): command})


def hostile(read_path: str, write_path: str, final_text: str) -> Brain:
    """The model a planted instruction makes: first ask to read `read_path` (a file tool and `cat`) and to write
    `write_path`, in the wire's native tool-call form, whenever it is asked (helper agents included); once
    the agent sends back the tools' results (or refusals), answer."""

    def brain(request: AgentRequest) -> Turn:
        if request.answers_a_tool():
            return Turn(text=final_text)
        offered = request.tools()
        calls = [_shell_call(request, f"cat {read_path}; echo pwned > {write_path}")]
        if request.wire != "responses":
            read, write = _READ[request.wire], _WRITE[request.wire]
            calls.insert(0, ToolCall(read, {_arg(offered.get(read), _PATH_ARGS): read_path}))
            calls.append(ToolCall(write, {_arg(offered.get(write), _PATH_ARGS): write_path, "content": "pwned"}))
        return Turn(tool_calls=calls)

    return brain


class _Server(ThreadingHTTPServer):
    request_queue_size = 64
    daemon_threads = True


class AgentModelServer:
    """A scripted model behind the four wire protocols. `brain` answers; `requests` keeps every request."""

    def __init__(self, brain: Brain | None = None) -> None:
        self.brain: Brain = brain or answer("ok")
        self.requests: list[AgentRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: _Server | None = None

    @property
    def root_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        return self.root_url + "/v1"

    def saw(self, needle: str) -> bool:
        """Whether any request that reached the server carried `needle` (a planted secret)."""
        with self._lock:
            return any(needle.encode() in r.raw for r in self.requests)

    def model_requests(self, wire: str | None = None) -> list[AgentRequest]:
        with self._lock:
            return [r for r in self.requests if r.wire != "other" and (wire is None or r.wire == wire)]

    def start(self) -> AgentModelServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                server._serve(self)

            def do_GET(self) -> None:
                server._serve(self)

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> AgentModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # serving

    def _serve(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("content-length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        body = body if isinstance(body, dict) else {}
        path = h.path.split("?")[0]
        wire, model = _wire_of(path, body)
        stream = bool(body.get("stream")) or "streamGenerateContent" in path
        request = AgentRequest(wire, h.command, h.path, model, body, raw, dict(h.headers.items()), stream)
        with self._lock:
            self.requests.append(request)
        if wire == "other":
            _send(h, *_other(path))
            return
        schema = _wanted_schema(body)
        turn = Turn(text=json.dumps(_fill(schema))) if schema is not None else self.brain(request)
        if turn.delay and self._stopping.wait(turn.delay):
            return
        if turn.status != 200:
            error = {"error": {"message": turn.error or f"scripted error {turn.status}", "code": turn.status}}
            _send(h, turn.status, "application/json", json.dumps(error).encode())
            return
        if request.stream:
            events = STREAMS[wire](model, turn)
            _send(h, 200, "text/event-stream", "".join(_sse(e) for e in events).encode())
        else:
            _send(h, 200, "application/json", json.dumps(WHOLE[wire](model, turn)).encode())


def _wanted_schema(body: dict[str, Any]) -> Any:
    """The JSON schema of an agent's own helper call (gemini's router, its next-speaker check), or None."""
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") == "application/json":
        return config.get("responseJsonSchema") or config.get("responseSchema") or {}
    return None


def _fill(schema: Any) -> Any:
    """The plainest value a schema admits: an enum's first choice, 1, false, "ok", objects filled in."""
    if not isinstance(schema, dict):
        return "ok"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        return {k: _fill(v) for k, v in (schema.get("properties") or {}).items()}
    return {"array": [], "integer": 1, "number": 1, "boolean": False}.get(kind, "ok")


def _send(h: BaseHTTPRequestHandler, status: int, content_type: str, payload: bytes) -> None:
    try:
        h.send_response(status)
        h.send_header("content-type", content_type)
        h.send_header("content-length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the agent was killed (a timeout test)


def _wire_of(path: str, body: dict[str, Any]) -> tuple[str, str]:
    if path.endswith("/messages"):
        return "anthropic", str(body.get("model", ""))
    if path.endswith("/chat/completions"):
        return "chat", str(body.get("model", ""))
    if path.endswith("/responses"):
        return "responses", str(body.get("model", ""))
    if ":generateContent" in path or ":streamGenerateContent" in path:
        return "gemini", path.rsplit("/", 1)[-1].split(":", 1)[0]
    return "other", ""


def _other(path: str) -> tuple[int, str, bytes]:
    """What is not a model call: model lists answer empty, token counts a small figure, the rest 404."""
    if path.endswith("/models"):
        return 200, "application/json", json.dumps({"object": "list", "data": [], "models": []}).encode()
    if path.endswith(":countTokens") or path.endswith("/count_tokens"):
        return 200, "application/json", json.dumps({"totalTokens": 10, "input_tokens": 10}).encode()
    return 404, "application/json", b'{"error": {"message": "not found", "code": 404}}'


def _sse(event: tuple[str | None, dict[str, Any] | str]) -> str:
    name, data = event
    line = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {name}\n" if name else "") + f"data: {line}\n\n"


Event = tuple[str | None, dict[str, Any] | str]
_USAGE_IN, _USAGE_OUT = 100, 20


# Anthropic Messages


def _anthropic_blocks(turn: Turn) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text or not turn.tool_calls else []
    for i, call in enumerate(turn.tool_calls):
        blocks.append({"type": "tool_use", "id": f"toolu_{i:04d}", "name": call.name, "input": call.args})
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


def _anthropic_stream(model: str, turn: Turn) -> Iterator[Event]:
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
    return [
        {
            "index": i,
            "id": f"call_{i:04d}",
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
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": _CHAT_USAGE,
    }


def _chat_stream(model: str, turn: Turn) -> Iterator[Event]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

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
    for i, c in enumerate(turn.tool_calls):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_{i:04d}",
                "call_id": f"call_{i:04d}",
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


def _responses_stream(model: str, turn: Turn) -> Iterator[Event]:
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


def _gemini_stream(model: str, turn: Turn) -> Iterator[Event]:
    yield None, _gemini_whole(model, turn)


STREAMS: dict[str, Callable[[str, Turn], Iterator[Event]]] = {
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
