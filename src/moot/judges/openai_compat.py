"""Judges behind any OpenAI-compatible chat-completions endpoint (OpenAI, xAI, OpenRouter, vLLM,
llama.cpp, Ollama, LM Studio), through the official `openai` SDK's async client.

The SDK's own retries are switched off (`max_retries=0`): the engine retries every judge by one policy.
Every client gets the same TLS context: making one loads the CA bundle (~50 ms of blocking work), which a
nine-judge panel would otherwise pay nine times before its first round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from moot.errors import JudgeError, MissingExtra
from moot.judges.providers import api_key_for, resolve
from moot.judges.vendor import VendorJudge
from moot.judges.wire_errors import map_stainless_error
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Completion, Prompt, Usage

if TYPE_CHECKING:
    from openai import AsyncOpenAI


class OpenAICompatJudge(VendorJudge):
    def __init__(
        self,
        *,
        provider: str = "openai",
        json_schema_support: bool = False,
        max_tokens_param: str = "max_completion_tokens",
        **settings: Any,
    ) -> None:
        super().__init__(provider=provider, **settings)
        self.json_schema_support = json_schema_support
        self.max_tokens_param = max_tokens_param

    def make_client(self) -> AsyncOpenAI:
        try:
            import openai
        except ImportError:
            raise MissingExtra("openai", "openai") from None
        return cast("AsyncOpenAI", self.stainless_client(openai, openai.AsyncOpenAI))

    def client(self) -> AsyncOpenAI:
        return cast("AsyncOpenAI", self.shared_client())

    def request(self, prompt: Prompt) -> dict[str, Any]:
        """The chat-completions body for a prompt (pure, so that tests can read what would be sent)."""
        messages: list[dict[str, str]] = [{"role": "system", "content": prompt.system}]
        messages += [{"role": m.role, "content": m.content} for m in prompt.messages]
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        max_tokens = self.max_tokens or prompt.max_tokens
        if max_tokens:
            body[self.max_tokens_param] = max_tokens
        if prompt.json_schema and self.json_schema_support:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": prompt.json_schema},
            }
        return body

    async def complete(self, prompt: Prompt, *, timeout: float) -> Completion:
        client = self.client()
        import openai
        from openai.types.chat import ChatCompletion

        try:
            # What `chat.completions.create` sends (same body, headers and response type), posted through
            # the client directly: `create` first walks the body against its TypedDict parameter types,
            # about 0.7 ms of CPU a call that changes nothing in a body of plain strings and numbers.
            response = await client.post(
                "/chat/completions", body=self.request(prompt), cast_to=ChatCompletion, options={"timeout": timeout}
            )
        except openai.OpenAIError as e:
            raise map_stainless_error(openai, e, timeout) from None
        if not response.choices:
            raise JudgeError("the reply had no choices")
        text = response.choices[0].message.content or ""
        usage = Usage()
        if response.usage is not None:
            u = response.usage
            cached = getattr(getattr(u, "prompt_tokens_details", None), "cached_tokens", None) or 0
            reasoning = getattr(getattr(u, "completion_tokens_details", None), "reasoning_tokens", None) or 0
            usage = Usage(
                input_tokens=u.prompt_tokens or 0,
                output_tokens=u.completion_tokens or 0,
                cached_tokens=cached,
                reasoning_tokens=reasoning,
            )
        return self.completion(text, usage, response.model)


def build(spec: JudgeSpec, model: str) -> OpenAICompatJudge:
    """An OpenAI-compatible judge for `spec`, asking for `model` (the primary or a fallback)."""
    resolved = resolve(spec.model_copy(update={"model": model}))
    try:
        import openai  # noqa: F401  (fail now, with the install hint, rather than at the first call)
    except ImportError:
        raise MissingExtra("openai", "openai") from None
    vendor_cloud = resolved.provider.name in ("openai", "xai", "openrouter")
    judge = OpenAICompatJudge(
        model=resolved.model,
        base_url=resolved.base_url,
        api_key=api_key_for(spec, resolved),
        provider=resolved.provider.name,
        temperature=spec.temperature,
        max_tokens=spec.max_tokens,
        # JSON-schema replies: the vendors' own endpoints honour them; the user's local servers may not
        json_schema_support=vendor_cloud,
        # OpenAI's reasoning models refuse `max_tokens`; Ollama, llama.cpp and LM Studio know only it
        max_tokens_param="max_completion_tokens" if vendor_cloud else "max_tokens",
    )
    return judge.ready()
