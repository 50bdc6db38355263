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
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from moot.testing.agent_wire_formats import STREAMS, WHOLE, ToolCall, Turn, sse
from moot.testing.loopback import LoopbackServer, json_body, read_body

__all__ = ["STREAMS", "WHOLE", "AgentModelServer", "AgentRequest", "Brain", "ToolCall", "Turn", "answer", "hostile"]


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
    choices = _SHELL_ARGS[::-1] if request.wire == "responses" else _SHELL_ARGS  # codex's exec_command: cmd
    return ToolCall(name, {_arg(offered.get(name), choices): command})


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


class AgentModelServer(LoopbackServer):
    """A scripted model behind the four wire protocols. `brain` answers; `requests` keeps every request."""

    def __init__(self, brain: Brain | None = None) -> None:
        super().__init__()
        self.brain: Brain = brain or answer("ok")
        self.requests: list[AgentRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    def saw(self, needle: str) -> bool:
        """Whether any request that reached the server carried `needle` (a planted secret)."""
        with self._lock:
            return any(needle.encode() in r.raw for r in self.requests)

    def model_requests(self, wire: str | None = None) -> list[AgentRequest]:
        with self._lock:
            return [r for r in self.requests if r.wire != "other" and (wire is None or r.wire == wire)]

    def stop(self) -> None:
        self._stopping.set()
        super().stop()

    # serving

    def serve(self, h: BaseHTTPRequestHandler) -> None:
        raw = read_body(h)
        body = json_body(raw)
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
            _send(h, 200, "text/event-stream", "".join(sse(e) for e in events).encode())
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
