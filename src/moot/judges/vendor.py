"""What every vendor-SDK judge shares: its settings, a key that is never shown, and one lazily built
client that is made before the debate starts and closed once."""

from __future__ import annotations

from typing import Any, Self

from moot.schemas.messages import Completion, Usage


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

    def client(self) -> Any:
        raise NotImplementedError

    def ready(self) -> Self:
        """Makes the SDK client now, before the debate's event loop runs: making one loads CA certificates
        (tens of milliseconds of blocking work) that would otherwise stall every other judge's call."""
        self.client()
        return self

    def stainless_client(self, sdk: Any, client_class: Any) -> Any:
        """A client of the `openai` or `anthropic` SDK (same generator, same arguments), with the SDK's own
        retries off (the engine retries every judge by one policy) and the one shared TLS context."""
        from moot.judges.tls import tls_context  # one CA bundle load for every client

        return client_class(
            api_key=self._api_key or "not-needed",
            base_url=self.base_url,
            max_retries=0,
            http_client=sdk.DefaultAsyncHttpxClient(verify=tls_context()),
        )

    def completion(self, text: str, usage: Usage, answered_by: str | None) -> Completion:
        """The reply, credited to the model the vendor says answered (a dated snapshot of an alias, say),
        else to the one that was asked for."""
        return Completion(text=text, usage=usage, model=answered_by or self.model, provider=self.provider)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._close(self._client)
            self._client = None

    async def _close(self, client: Any) -> None:
        await client.close()
