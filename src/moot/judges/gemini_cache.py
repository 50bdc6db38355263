"""Gemini's explicit context caching, for a large shared prefix: the system text (rules, rubric, artifact)
is stored once with `caches.create`, and every later call of the debate on that model names it
(`cached_content`) instead of sending it again. Gemini then bills it at its cached rate (a quarter of the
input price or less) and reports it as `cachedContentTokenCount`.

Where it pays: an explicit cache also costs storage by the hour, and Gemini's implicit cache already serves a
repeated prefix of a small prompt by itself. So only a system text of `MIN_TOKENS` or more is cached (the
largest minimum any Gemini model takes for an explicit cache), for `TTL_SECONDS`: a debate's calls on one
model reuse the prefix at least once within that time (each judge's next round), and at Gemini's prices one
reuse of a cached prefix already saves more than the storage of the prefix for that time costs.

A cache is kept per endpoint, key, model and system text for the life of the process, made again shortly
before it expires; one the server no longer knows is forgotten and the call sent whole. A model or endpoint
that refuses to make one is not asked again. `prompt_cache: false` on the judge makes none.
"""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Any

MIN_TOKENS = 4096  # Gemini 2.5 Pro's minimum for an explicit cache (Flash takes 1,024): the largest
TTL_SECONDS = 900
RENEW_BEFORE_SECONDS = 60  # a cache this close to its end is made again rather than named in a call
CHARS_PER_TOKEN = 4

Key = tuple[str, str, str, str]

_LOCK = threading.Lock()
_NAMES: dict[Key, tuple[str, float]] = {}  # key -> (cache name, when it expires, monotonic)
_REFUSED: set[tuple[str, str, str]] = set()  # (endpoint, key hash, model) that would not make a cache


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(base_url: str | None, api_key: str | None, model: str, system: str) -> Key:
    """What a cache is bound to: the endpoint, the key's project (its hash: the key itself is never kept),
    the model and the system text."""
    return (base_url or "", _digest(api_key or "")[:16], model, _digest(system))


def worth_caching(system: str, *, enabled: bool) -> bool:
    """Whether a call's system text is large enough for an explicit cache to pay."""
    return enabled and len(system) // CHARS_PER_TOKEN >= MIN_TOKENS


def known(key: Key) -> str | None:
    """The name of the live cache for `key`, or None (none yet, or close to its end)."""
    with _LOCK:
        found = _NAMES.get(key)
    if found is None or found[1] - time.monotonic() < RENEW_BEFORE_SECONDS:
        return None
    return found[0]


def forget(key: Key) -> None:
    """The server no longer has this cache (it expired or was deleted): the next call makes a new one."""
    with _LOCK:
        _NAMES.pop(key, None)


def clear() -> None:
    """Forget every cache and refusal (a test, or a new run in the same process)."""
    with _LOCK:
        _NAMES.clear()
        _REFUSED.clear()


async def cached_content(client: Any, sdk: tuple[Any, Any], key: Key, model: str, system: str) -> str | None:
    """The name of a cache holding `system` for `model`, made now if there is none; None when the server
    does not make one (the call then goes whole, as before). `sdk`: google-genai's `types` and `errors`."""
    types, errors = sdk
    name = known(key)
    if name is not None:
        return name
    with _LOCK:
        if key[:3] in _REFUSED:
            return None
    config = types.CreateCachedContentConfig(
        system_instruction=system, ttl=f"{TTL_SECONDS}s", display_name="moot-" + key[3][:16]
    )
    try:
        made = await client.aio.caches.create(model=model, config=config)
    except errors.APIError as e:  # refused (too small for this model, not offered here): never asked again
        if 400 <= int(e.code or 0) < 500 and int(e.code or 0) != 429:
            with _LOCK:
                _REFUSED.add(key[:3])
        return None
    if not made.name:
        return None
    with _LOCK:
        _NAMES[key] = (str(made.name), time.monotonic() + TTL_SECONDS)
    return str(made.name)
