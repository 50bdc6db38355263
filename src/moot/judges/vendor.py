"""What every vendor-SDK judge shares: its settings, a key that is never shown, and one lazily built
client that is closed once."""

from __future__ import annotations

from typing import Any


class VendorJudge:
    """Base of the OpenAI-compatible, Anthropic and Gemini judges (each builds its own SDK client)."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        provider: str,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> None:
        self.model = model
        self.provider = provider
        self.base_url = base_url
        self._api_key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._client: Any = None

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"
