"""The scripted model behind the real agent CLIs (moot.testing.agent_wire), read by the vendors' own SDKs:
each wire's stream and whole reply parse, tool calls included, and every request is kept for the
secret-never-reached assertions of tests/test_agent_cli_real.py."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from moot.testing.agent_wire import AgentModelServer, AgentRequest, ToolCall, Turn, hostile


@pytest.fixture
def server() -> Iterator[AgentModelServer]:
    with AgentModelServer(lambda r: Turn(text="hi", tool_calls=[ToolCall("read_file", {"file_path": "/x"})])) as s:
        yield s


def test_chat_completions_stream_with_a_tool_call(server: AgentModelServer) -> None:
    import openai

    client = openai.OpenAI(base_url=server.base_url, api_key="k")
    stream = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "q"}], stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    calls = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    assert text == "hi" and calls[0].function.name == "read_file"
    assert json.loads(calls[0].function.arguments or "") == {"file_path": "/x"}
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens == 120


def test_responses_stream_with_a_function_call(server: AgentModelServer) -> None:
    import openai

    client = openai.OpenAI(base_url=server.base_url, api_key="k")
    with client.responses.stream(model="m", input="q") as stream:
        final = stream.get_final_response()
    kinds = [item.type for item in final.output]
    assert kinds == ["message", "function_call"] and final.output_text == "hi"
    assert final.output[1].name == "read_file"  # type: ignore[union-attr]


def test_anthropic_messages_stream_with_tool_use(server: AgentModelServer) -> None:
    anthropic = pytest.importorskip("anthropic")
    client = anthropic.Anthropic(base_url=server.root_url, api_key="k")
    with client.messages.stream(model="m", max_tokens=10, messages=[{"role": "user", "content": "q"}]) as stream:
        message = stream.get_final_message()
    assert [b.type for b in message.content] == ["text", "tool_use"] and message.stop_reason == "tool_use"
    assert message.content[1].input == {"file_path": "/x"}


def post(url: str, body: dict[str, Any]) -> bytes:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return bytes(resp.read())


def test_gemini_stream_and_helper_calls_with_a_schema(server: AgentModelServer) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "q"}]}]}
    raw = post(server.root_url + "/v1beta/models/g:streamGenerateContent?alt=sse", body).decode()
    event = json.loads(raw.split("data: ", 1)[1])
    parts = event["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "hi"}, {"functionCall": {"name": "read_file", "args": {"file_path": "/x"}}}]
    # an agent's own helper call asks for JSON in a schema (gemini's router): it gets the plainest fit
    schema = {"type": "OBJECT", "properties": {"score": {"type": "INTEGER"}, "who": {"enum": ["user", "model"]}}}
    helper = {**body, "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": schema}}
    reply = json.loads(post(server.root_url + "/v1beta/models/g:generateContent", helper))
    assert json.loads(reply["candidates"][0]["content"]["parts"][0]["text"]) == {"score": 1, "who": "user"}
    assert [r.wire for r in server.requests] == ["gemini", "gemini"] and server.saw('"alt"') is False


def test_the_hostile_model_uses_each_wires_tools_then_answers() -> None:
    brain = hostile("/secret", "/out", "done")

    def request(wire: str, body: dict[str, Any]) -> AgentRequest:
        return AgentRequest(wire, "POST", "/", "m", body, json.dumps(body).encode(), {})

    first = brain(request("chat", {"messages": [{"role": "user", "content": "q"}], "tools": [
        {"type": "function", "function": {"name": "read_file", "parameters": {"properties": {"absolute_path": {}}}}}
    ]}))  # fmt: skip
    assert [c.name for c in first.tool_calls] == ["read_file", "run_shell_command", "write_file"]
    assert first.tool_calls[0].args == {"absolute_path": "/secret"}
    codex = brain(request("responses", {"input": [{"type": "message", "content": "q"}]}))
    assert [c.name for c in codex.tool_calls] == ["exec_command"] and "cat /secret" in codex.tool_calls[0].args["cmd"]
    answered = brain(request("anthropic", {"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]}))
    assert answered.text == "done" and answered.tool_calls == []
