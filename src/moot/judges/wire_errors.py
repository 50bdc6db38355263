"""Vendor SDK failures -> moot's error tree, in one place for every adapter.

Which failures are worth retrying is decided here (429, 408, 409, 5xx, 529, connection resets); how often
and how long to wait is decided once, by the engine's retry policy. A Retry-After header is carried along.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from typing import Any

from moot.errors import JudgeError, JudgeTimeout, TransientJudgeError
from moot.schemas.safe_text import redact

TRANSIENT_STATUSES = frozenset({408, 409, 425, 429})

# How servers say a prompt does not fit the model's context window (OpenAI, vLLM and llama-cpp-python:
# "maximum context length"; llama.cpp's llama-server: "exceeds the available context size"; others "context
# window"/"context_length_exceeded"). Asking again cannot help, whatever the status.
_CONTEXT_WORDS = ("context_length_exceeded", "maximum context length", "context window", "available context size")
# How a server that decodes under a grammar says it cannot build one from the reply schema (llama.cpp's
# "failed to parse grammar", llama-server's "JSON schema conversion failed"). Not a server fault to retry.
_GRAMMAR_WORDS = ("grammar", "json schema conversion", "json_schema conversion")
GRAMMAR_REFUSED = "the server cannot turn the reply schema into a grammar"


def retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date), if present."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        from datetime import UTC, datetime

        return max(0.0, (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError):
        return None


def status_error(status: int, message: str, headers: Any = None) -> JudgeError:
    """The error for an HTTP status a vendor answered with."""
    short = " ".join(redact(str(message)).split())[:200]  # redacted before the cut: no key prefix is left
    if any(w in short.lower() for w in _CONTEXT_WORDS):
        return JudgeError(f"the prompt does not fit the model's context window ({status}): {short}")
    if any(w in short.lower() for w in _GRAMMAR_WORDS):
        return JudgeError(f"{GRAMMAR_REFUSED} (HTTP {status}: {short}); set structured: off for this judge")
    if status == 429:
        return TransientJudgeError("rate limited (429)", retry_after=retry_after(headers), status=status)
    if status >= 500 or status in TRANSIENT_STATUSES:
        return TransientJudgeError(f"server error ({status})", retry_after=retry_after(headers), status=status)
    if status in (401, 403):
        return JudgeError(f"authentication failed ({status}): check the API key")
    return JudgeError(f"HTTP {status}: {short}")


def map_stainless_error(sdk: Any, e: Exception, timeout: float) -> JudgeError:
    """Errors of the `openai` and `anthropic` SDKs (same generator, same shapes); any other error of theirs
    is a plain JudgeError, not retried."""
    if isinstance(e, sdk.APITimeoutError):
        return JudgeTimeout(f"no reply within {timeout:g}s")
    if isinstance(e, sdk.APIStatusError):
        return status_error(e.status_code, getattr(e, "message", str(e)), e.response.headers)
    if isinstance(e, sdk.APIConnectionError):
        return TransientJudgeError(f"connection failed: {type(e).__name__}")
    if isinstance(e, sdk.APIError):
        return JudgeError(f"{type(e).__name__}: {redact(str(e))[:200]}")
    return JudgeError(redact(str(e))[:200])
