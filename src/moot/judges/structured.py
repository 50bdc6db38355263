"""How an OpenAI-compatible server is asked for a reply in the schema: the `structured:` key of a judge.

Two wire forms are in use:

- `json_schema`: `response_format: {type: json_schema, json_schema: {name, schema}}`, OpenAI's form, taken
  by llama.cpp's llama-server, vLLM, Ollama, LM Studio and SGLang;
- `json_object`: `response_format: {type: json_object, schema: ...}`, llama-cpp-python's form (its
  server answers 500 naming `response_format.type` to the other).

`auto` (the default of a judge with `api_base`) tries them in turn: a server that refuses a form (any
4xx or 5xx whose body names `response_format`) is asked the same call again at once in the next form, and
last with none (`off`). The form that worked is remembered per `api_base` for the rest of the process,
so that only the first call to a server pays for the refusals, and it is recorded with every call.
A refusal is neither a clarification nor a judge failure: the engine never sees it.
"""

from __future__ import annotations

import threading
from typing import Any

from moot.schemas.reply_bounds import fit, portable

FORMS = ("json_schema", "json_object", "off")
SETTINGS = ("auto", *FORMS)

_LEARNED: dict[str, str] = {}
_LOCK = threading.Lock()


def attempt_order(setting: str, preferred: str, base_url: str | None) -> list[str]:
    """The forms to try for one call, in order: one fixed form, or (auto) the remembered one, else the
    preferred one, then the ones after it."""
    if setting != "auto":
        return [setting]
    with _LOCK:
        learned = _LEARNED.get(base_url or "")
    start = learned or preferred
    order = [start, *(f for f in FORMS if f != start)]
    return order[order.index(start) :] if learned else order


def remember(base_url: str | None, form: str) -> None:
    """The form `base_url` took, for every later call of this process to it."""
    with _LOCK:
        _LEARNED[base_url or ""] = form


def learned_form(base_url: str | None) -> str | None:
    with _LOCK:
        return _LEARNED.get(base_url or "")


def forget() -> None:
    """Forget every learned form (a new run in the same process, or a test)."""
    with _LOCK:
        _LEARNED.clear()


def response_format(form: str, schema: dict[str, Any], *, enforced: bool, max_tokens: int | None) -> dict[str, Any]:
    """The `response_format` of a request in `form` (never called with `off`).

    `enforced` servers (local grammars) get the bounded schema, fitted to the output bound; vendors' clouds
    the portable one they have always been sent.
    """
    body = fit(schema, max_tokens) if enforced else portable(schema)
    if form == "json_object":
        return {"type": "json_object", "schema": body}
    return {"type": "json_schema", "json_schema": {"name": "reply", "schema": body}}


def names_response_format(status: int, body: str) -> bool:
    """Whether an HTTP error is the server refusing the form (not the prompt, not the model)."""
    return status >= 400 and "response_format" in body
