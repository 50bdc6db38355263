"""API keys kept out of everything moot stores or prints.

A vendor's error text can carry the key: proxies and self-hosted servers echo the request's headers or
body in a 400. `redact` removes, from any text, the values of every key moot knows of (the vendors' usual
variables, each judge's `api_key_env` and inline `api_key`, as `remember_secret` was told them) and
anything shaped like a credential (`Bearer ...`, `sk-...`, a Google `AIza...` key, a `key=` query
parameter). Every `MootError` message passes through it (`moot.errors`), and so does the vendor's text in
`moot.judges.wire_errors` before it is cut short, so that no prefix of a key survives the cut. The output
edges (`moot.schemas.safe_text`) remove the known values once more.
"""

from __future__ import annotations

import os
import re

REDACTED = "[redacted]"
VENDOR_KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "XAI_API_KEY",
    "OPENROUTER_API_KEY",
)
MIN_SECRET = 8  # a shorter value is no credential, and removing it would garble ordinary text
_remembered: set[str] = set()
_variables: set[str] = set()
_SHAPES = (
    (re.compile(r"(?i)\b(bearer|basic)\s+[^\s\"',;}\]]+"), r"\1 " + REDACTED),
    (re.compile(r"\b(sk|xai)-[A-Za-z0-9_\-]{8,}"), r"\1-" + REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"), REDACTED),
    (re.compile(r"(?i)([?&](?:key|api_key|api-key|access_token)=)[^&\s\"']+"), r"\1" + REDACTED),
    (
        re.compile(
            r"(?i)((?:x-api-key|x-goog-api-key|api-key|api_key|authorization)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"
        ),
        r"\1" + REDACTED,
    ),
)


def remember_secret(value: str | None, variable: str | None = None) -> None:
    """A key in use (an inline `api_key`, or the value of `variable`), to be redacted wherever it shows."""
    if value and len(value) >= MIN_SECRET:
        _remembered.add(value)
    if variable:
        _variables.add(variable)


def known_secrets() -> list[str]:
    """Every key value moot knows of now, longest first (so a key is never left half redacted)."""
    values = set(_remembered)
    for name in (*VENDOR_KEY_VARIABLES, *_variables):
        value = os.environ.get(name, "")
        if len(value) >= MIN_SECRET:
            values.add(value)
    return sorted(values, key=len, reverse=True)


def redact_known(text: str) -> str:
    """`text` with the value of every known key replaced (cheap: a substring test per key)."""
    for value in known_secrets():
        if value in text:
            text = text.replace(value, REDACTED)
    return text


def redact(text: str) -> str:
    """`text` (a vendor's error, a message) with known keys and anything shaped like a credential removed."""
    text = redact_known(text)
    for pattern, replacement in _SHAPES:
        text = pattern.sub(replacement, text)
    return text
