"""Gemini judges through the official `google-genai` SDK's async client (generateContent).

The SDK's own retries are switched off explicitly (`HttpRetryOptions(attempts=1)`): by default it retries
with tenacity, and its aiohttp path even retries connection errors implicitly. The engine retries every
judge by one policy, so stacking a second one would multiply waits and calls behind the user's back.
When a prompt carries a JSON schema, the reply is asked for as JSON of that schema.
"""

from __future__ import annotations

from typing import Any

from moot.errors import JudgeError, JudgeTimeout, MissingExtra, TransientJudgeError
from moot.judges import gemini_cache
from moot.judges.effort import gemini_thinking
from moot.judges.providers import adapter_args
from moot.judges.vendor import VendorJudge, sampled
from moot.judges.wire_errors import status_error
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Completion, Prompt, Usage
from moot.schemas.reply_bounds import portable

API_VERSION = "v1beta"


def _sdk() -> tuple[Any, Any, Any]:
    try:
        from google import genai
        from google.genai import errors, types
    except ImportError:
        raise MissingExtra("google-genai", "gemini") from None
    return genai, types, errors


def _transport_error(e: Exception, timeout: float) -> JudgeError | None:
    """httpx / httpx2 / aiohttp failures under the SDK, told apart by class name (three libraries)."""
    names = {cls.__name__ for cls in type(e).__mro__}
    if names & {"TimeoutException", "ServerTimeoutError", "TimeoutError"}:
        return JudgeTimeout(f"no reply within {timeout:g}s")
    if names & {"TransportError", "NetworkError", "ClientConnectionError", "ClientOSError"}:
        return TransientJudgeError(f"connection failed: {type(e).__name__}")
    return None


class GeminiJudge(VendorJudge):
    def __init__(self, *, provider: str = "gemini", **settings: Any) -> None:
        super().__init__(provider=provider, **settings)

    def make_client(self) -> Any:
        genai, types, _ = _sdk()
        options = types.HttpOptions(
            base_url=self.base_url,
            api_version=API_VERSION,
            retry_options=types.HttpRetryOptions(attempts=1),  # the engine retries, once, by one policy
        )
        return genai.Client(api_key=self._api_key or "not-needed", http_options=options)

    def client_options(self) -> tuple[str, ...]:
        return (API_VERSION,)

    def client(self) -> Any:
        return self.shared_client()

    def request(self, prompt: Prompt, timeout: float, cached: str | None = None) -> dict[str, Any]:
        """The generateContent arguments for a prompt (pure, so that tests can read what would be sent); with
        `cached`, the name of a context cache that holds its system text, which is then not sent again."""
        _, types, _ = _sdk()
        config: dict[str, Any] = {
            **({"cached_content": cached} if cached else {"system_instruction": prompt.system}),
            "http_options": types.HttpOptions(
                timeout=max(1, int(timeout * 1000)),
                retry_options=types.HttpRetryOptions(attempts=1),
                extra_body=dict(self.extra_body) if self.extra_body else None,  # the SDK's own extra body
            ),
        }
        thinking = gemini_thinking(self.reasoning_effort, self.model)
        if thinking is not None:
            config["thinking_config"] = types.ThinkingConfig(**thinking)
        max_tokens = self.max_tokens or prompt.max_tokens
        if max_tokens:
            config["max_output_tokens"] = max_tokens
        if self.temperature is not None:
            config["temperature"] = self.temperature
        config.update(sampled(prompt, frozenset({"temperature", "seed", "top_p", "top_k"})))
        if prompt.json_schema:
            config["response_mime_type"] = "application/json"
            config["response_json_schema"] = portable(prompt.json_schema)  # as a vendor takes it (`reply_bounds`)
        contents = [
            types.Content(role="model" if m.role == "assistant" else "user", parts=[types.Part(text=m.content)])
            for m in prompt.messages
        ]
        return {"model": self.model, "contents": contents, "config": types.GenerateContentConfig(**config)}

    async def _cache(self, client: Any, prompt: Prompt) -> tuple[gemini_cache.Key | None, str | None]:
        """The context cache for this prompt's system text, where one pays (`moot.judges.gemini_cache`)."""
        if not gemini_cache.worth_caching(prompt.system, enabled=self.prompt_cache):
            return None, None
        _, types, errors = _sdk()
        key = gemini_cache.cache_key(self.base_url, self._api_key, self.model, prompt.system)
        try:
            return key, await gemini_cache.cached_content(client, (types, errors), key, self.model, prompt.system)
        except Exception as e:
            if _transport_error(e, 0) is None:
                raise
            return key, None  # the cache could not be asked for now: this call goes whole, the next asks again

    async def complete(self, prompt: Prompt, *, timeout: float) -> Completion:
        client = self.client()
        _, _, errors = _sdk()
        key, cached = await self._cache(client, prompt)
        try:
            try:
                response = await client.aio.models.generate_content(**self.request(prompt, timeout, cached))
            except errors.APIError as e:
                if key is None or cached is None or int(e.code or 0) not in (400, 403, 404):
                    raise
                gemini_cache.forget(key)  # the cache is gone (expired, deleted): this call goes whole
                response = await client.aio.models.generate_content(**self.request(prompt, timeout))
        except errors.APIError as e:
            headers = getattr(e.response, "headers", None)
            raise status_error(int(e.code or 0), e.message or str(e), headers) from None
        except Exception as e:
            mapped = _transport_error(e, timeout)
            if mapped is None:
                raise
            raise mapped from None
        text = response.text or ""
        u = response.usage_metadata
        usage = Usage()
        if u is not None:
            thoughts = u.thoughts_token_count or 0
            usage = Usage(
                input_tokens=u.prompt_token_count or 0,
                # thinking is billed as output, as OpenAI's reasoning tokens are
                output_tokens=(u.candidates_token_count or 0) + thoughts,
                cached_tokens=u.cached_content_token_count or 0,
                reasoning_tokens=thoughts,
            )
        return self.completion(text, usage, response.model_version)

    @staticmethod
    async def close_client(client: Any) -> None:
        await client.aio.aclose()


def build(spec: JudgeSpec, model: str) -> GeminiJudge:
    """A Gemini judge for `spec`, asking for `model` (the primary or a fallback)."""
    _sdk()  # fail now, with the install hint, rather than at the first call
    return GeminiJudge(**adapter_args(spec, model)).ready()
