"""What every vendor-SDK judge shares: its settings, a key that is never shown, and its SDK client, shared
with every other judge of the process that reaches the same endpoint (`moot.judges.clients`)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Self

from moot.judges.clients import Lease, abandon, endpoint, lease, release
from moot.schemas.messages import Completion, Prompt, Usage


def sampled(prompt: Prompt, takes: frozenset[str] | None = None) -> dict[str, Any]:
    """The debate's sampling options (`Prompt.sampling`) that a vendor's request takes (None: all), which
    stand over the judge's own."""
    return {k: v for k, v in prompt.sampling.items() if takes is None or k in takes}


class VendorJudge:
    """Base of the OpenAI-compatible, Anthropic and Gemini judges (each makes its own kind of SDK client)."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        provider: str,
        temperature: float | None = None,
        max_tokens: int | None = None,
        reasoning_effort: str | None = None,
        extra_body: dict[str, Any] | None = None,
        prompt_cache: bool = True,
    ) -> None:
        self.model = model
        self.provider = provider
        self.base_url = base_url
        self._api_key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.reasoning_effort = reasoning_effort  # each adapter sends it in its provider's field (judges.effort)
        self.extra_body = extra_body  # passed through the SDK's own extra-body parameter
        self.prompt_cache = prompt_cache  # send the route's cache directive (moot.judges.cache_hints)
        self._lease: Lease | None = None

    def cache_domain(self) -> str | None:
        """The prompt cache this judge's calls share with every judge that names the same domain, on a route
        where a call written first pays off for the calls after it (`moot.engine.priming`); None elsewhere."""
        return None

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    def make_client(self) -> Any:
        """A new SDK client for this judge's endpoint (called once per endpoint, then shared)."""
        raise NotImplementedError

    def client_options(self) -> tuple[Hashable, ...]:
        """Whatever besides its kind, address and key makes this judge's client differ from another's."""
        return ()

    def shared_client(self) -> Any:
        """The SDK client of this judge's endpoint, shared with every judge that reaches it in this event loop."""
        if self._lease is not None and self._lease.stale():  # used again under another event loop
            abandon(self._lease)
            self._lease = None
        if self._lease is None:
            key = endpoint(type(self).__name__, self.base_url, self._api_key, *self.client_options())
            self._lease = lease(key, self.make_client, self.close_client)
        return self._lease.client

    def ready(self) -> Self:
        """Loads the CA bundle now, before the debate's event loop runs: that is tens of milliseconds of
        blocking work that would otherwise stall every other judge's call. The client itself is made, or
        shared, at the first call, in the event loop whose connections it will hold."""
        from moot.judges.tls import tls_context

        tls_context()
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
        """Done with the client: it closes when no other judge uses it any more."""
        if self._lease is not None:
            held, self._lease = self._lease, None
            await release(held)

    @staticmethod
    async def close_client(client: Any) -> None:
        """Close a client of this kind (a static method: the pool keeps it, not the judge that made the client)."""
        await client.close()
