"""The context window a local server says it runs with, for `moot doctor`: read where the server tells it,
never guessed.

- llama.cpp's `llama-server`: `GET /props` (`default_generation_settings.n_ctx`, or `n_ctx`);
- vLLM: `GET /v1/models` (`max_model_len` of the model);
- LM Studio: `GET /api/v0/models/MODEL` (`loaded_context_length`, else `max_context_length`).

llama-cpp-python's server and Ollama's OpenAI endpoint do not say: nothing is reported for them (start
them with the context size docs/providers.md gives). A window is flagged when it is smaller than the
judge's `context_tokens`, or than `SMALLEST_USEFUL` (what a three-round `evaluate` of a small file takes
at the local default output bound, measured on SmolLM2).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

TIMEOUT_S = 3.0
# a three-round evaluate of a 5-line file: round 3's prompt (~2,100 tokens on SmolLM2) plus the 768-token default
# output bound, with room for a longer file; llama-cpp-python's default (2,048) fails every such debate in round 2
SMALLEST_USEFUL = 4096


def _get(url: str) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as r:  # noqa: S310 - the user's own local server
            return json.loads(r.read(1_000_000))
    except (urllib.error.URLError, OSError, ValueError):
        return None


def _root(endpoint: str) -> str:
    parts = urlsplit(endpoint.rstrip("/"))
    path = parts.path[: -len("/v1")] if parts.path.endswith("/v1") else parts.path
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def server_context(endpoint: str, model: str) -> tuple[int, str] | None:
    """(the window in tokens, where the server said it), or None where the server does not say."""
    props = _get(_root(endpoint) + "/props")
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        n = _int(settings.get("n_ctx")) if isinstance(settings, dict) else None
        if n := n or _int(props.get("n_ctx")):
            return n, "/props"
    models = _get(endpoint.rstrip("/") + "/models")
    if isinstance(models, dict) and isinstance(models.get("data"), list):
        for m in models["data"]:
            if isinstance(m, dict) and m.get("id") == model and (n := _int(m.get("max_model_len"))):
                return n, "/v1/models"
    studio = _get(_root(endpoint) + "/api/v0/models/" + quote(model, safe=""))
    if isinstance(studio, dict):
        n = _int(studio.get("loaded_context_length")) or _int(studio.get("max_context_length"))
        if n:
            return n, "/api/v0/models"
    return None


def context_note(endpoint: str, spec: Any) -> str:
    """What `moot doctor` says of the server's window: its size and source, flagged when too small; "" if unknown."""
    found = server_context(endpoint, str(spec.model).split("/", 1)[-1])
    if found is None:
        return ""
    n, source = found
    note = f"{n} tokens (the server's {source})"
    wanted = max(SMALLEST_USEFUL, spec.context_tokens or 0)
    if n < wanted:
        why = (
            f"its context_tokens {spec.context_tokens}"
            if (spec.context_tokens or 0) > SMALLEST_USEFUL
            else (f"{SMALLEST_USEFUL}, what a three-round evaluate of a small file takes")
        )
        note += f"; too small: less than {why} (restart the server with a larger context)"
    return note
