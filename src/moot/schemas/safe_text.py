"""Untrusted text made inert where it leaves moot: a terminal, a CI log, a Markdown file.

Judge replies are steered by the artifact under review, so whatever a judge writes is data. Every output
edge (the text and GitHub formats, the live view and progress lines, `moot show`, error messages, the
report files) passes text through `safe_text` here, the one definition of "inert":

- C0 and C1 control characters and DEL are removed, newline and tab excepted (a CRLF becomes a newline).
  That removes every escape sequence a terminal would act on (`ESC]52;...BEL` writes the clipboard,
  `ESC[2J` clears the screen, colours), because each starts with ESC or a C1 introducer.
- Bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) are removed too: a
  right-to-left override shows a reader a finding, a path or a verdict in another order than it has.
- A line whose first non-blank characters are `::` gets a zero-width space in front, and `##[` gets one
  inside, so GitHub's runner never reads a workflow command (`::error::`, `::add-mask::`,
  `::stop-commands::`) from judge text. The runner trims leading white space before looking, and U+200B
  is not white space to it.
- A lone surrogate (which no encoder writes) becomes U+FFFD.
- The value of any API key moot knows of is replaced by `[redacted]`.

Stored data is left as it was received; only what is shown or written for a person is cleaned.

It also keeps what must never leave moot out of an error: the API keys moot has read (`remember_secret`,
`redact_known`) and anything shaped like a key (`redact`).
"""

from __future__ import annotations

import os
import re
from typing import Any

from moot.schemas.key_shapes import redact_shapes

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
    """`text` (a vendor's error, a message) with known keys and anything shaped like a credential removed (the
    shapes are the secret screen's own table, `moot.schemas.key_shapes`, with a few looser ones)."""
    return redact_shapes(redact_known(text), REDACTED)


ZWSP = "\u200b"
# C0 and C1 controls and DEL (newline and tab kept), and the bidirectional controls: embeddings and overrides
# (U+202A-U+202E), isolates (U+2066-U+2069), the marks U+200E, U+200F and U+061C, which can show a reader
# text in another order than it has (`Trojan Source`, CVE-2021-42574)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SURROGATES = re.compile("[\ud800-\udfff]")
_COMMAND_START = re.compile(r"^([^\S\n]*)::", re.MULTILINE)
_DRAWN_COMMAND_START = re.compile(r"^((?:[^\S\n]|\x1b\[[0-9;]*m)*)::", re.MULTILINE)  # after colours too


def strip_controls(text: str) -> str:
    """`text` without control characters other than newline and tab, without bidirectional controls, and
    without lone surrogates."""
    if text.isprintable():  # the common case, and fast: no control, no surrogate
        return text
    text = _CONTROLS.sub("", text.replace("\r\n", "\n"))
    return _SURROGATES.sub("\ufffd", text)


def defuse_commands(text: str) -> str:
    """No line of `text` can be read as a GitHub workflow command (`::name::`, or the older `##[name]`)."""
    if "::" not in text and "##[" not in text:
        return text
    return _COMMAND_START.sub(lambda m: m.group(1) + ZWSP + "::", text).replace("##[", "##" + ZWSP + "[")


def defuse_drawn(text: str) -> str:
    """`defuse_commands` for text a terminal library drew from inert text: its wrapping can start a line
    anywhere in a judge's words, and its colour codes may come first on the line."""
    if "::" not in text and "##[" not in text:
        return text
    return _DRAWN_COMMAND_START.sub(lambda m: m.group(1) + ZWSP + "::", text).replace("##[", "##" + ZWSP + "[")


def safe_text(text: object) -> str:
    """Untrusted text, inert at a terminal and in a CI log (see the module's docstring), and without the
    value of any API key moot knows of (`moot.schemas.safe_text`)."""
    return redact_known(defuse_commands(strip_controls(str(text))))


def safe_data(value: Any) -> Any:
    """`value` with `safe_text` applied to every string in it (keys too), for renderers of plain data."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {safe_data(k): safe_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [safe_data(v) for v in value]
    return value


def lone_surrogate_at(value: Any, where: str = "") -> str | None:
    """Where in `value` (a dotted path) a string holds a lone surrogate, or None. Such a string is not text:
    an undecodable byte in an argument (Python keeps it as U+DC80-U+DCFF) or an unpaired `\\ud800` escape in
    JSON; no encoder can write it, so it is refused as input before anything is stored or sent."""
    if isinstance(value, str):
        return (where or "a value") if _SURROGATES.search(value) else None
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list | tuple):
        items = list(enumerate(value))
    else:
        return None
    for key, item in items:
        found = lone_surrogate_at(key, where) or lone_surrogate_at(item, f"{where}.{key}" if where else str(key))
        if found:
            return found
    return None


def inert_markdown(text: object) -> str:
    """Markdown prose holding untrusted text: inert (as `safe_text`), and no raw HTML. Every HTML tag,
    comment or autolink opens with `<`, so `&lt;` in its place is shown as the character and never parsed;
    `>` stays, so a quote block still quotes. Code fences are not for this: inside one, `&lt;` would show
    as written, and a fence is inert already."""
    return safe_text(text).replace("<", "&lt;")
