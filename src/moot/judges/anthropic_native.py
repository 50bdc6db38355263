"""Claude judges through the official `anthropic` SDK's async client, natively (the messages API).

Native rather than through Anthropic's OpenAI-compatible layer, which ignores structured output. The
stable prefix of every prompt (instructions, rubric, artifact) is the system block, marked for prompt
caching, so that the second judge and every later round read it from the cache.

The SDK's own retries are switched off (`max_retries=0`): the engine retries every judge by one policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from moot.errors import MissingExtra
from moot.judges.cache_hints import anthropic_system
from moot.judges.effort import anthropic_thinking
from moot.judges.providers import DEFAULT_MAX_OUTPUT_TOKENS, adapter_args
from moot.judges.vendor import VendorJudge, sampled
from moot.judges.wire_errors import map_stainless_error
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Completion, Prompt, Usage
from moot.schemas.reply_bounds import portable

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic


def _sdk() -> Any:
    try:
        import anthropic
    except ImportError:
        raise MissingExtra("anthropic", "anthropic") from None
    return anthropic


class AnthropicJudge(VendorJudge):
    def __init__(self, *, provider: str = "anthropic", **settings: Any) -> None:
        super().__init__(provider=provider, **settings)

    def cache_domain(self) -> str | None:
        """The model's cache at its endpoint, where moot marks the system block (not with extended thinking on,
        which would make the one-word primer think)."""
        if not self.prompt_cache or self.reasoning_effort is not None:
            return None
        return f"anthropic {self.base_url or ''} {self.model}"

    def make_client(self) -> AsyncAnthropic:
        sdk = _sdk()
        return cast("AsyncAnthropic", self.stainless_client(sdk, sdk.AsyncAnthropic))

    def client(self) -> AsyncAnthropic:
        return cast("AsyncAnthropic", self.shared_client())

    def request(self, prompt: Prompt) -> dict[str, Any]:
        """The messages-API arguments for a prompt (pure, so that tests can read what would be sent)."""
        thinking, bound = anthropic_thinking(
            self.reasoning_effort, self.max_tokens or prompt.max_tokens or DEFAULT_MAX_OUTPUT_TOKENS
        )
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": bound,
            **thinking,
            "system": anthropic_system(prompt.system, enabled=self.prompt_cache),
            "messages": [{"role": m.role, "content": m.content} for m in prompt.messages],
        }
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        kwargs.update(sampled(prompt, frozenset({"temperature", "top_p", "top_k"})))
        if prompt.json_schema:
            kwargs["output_config"] = {"format": {"type": "json_schema", "schema": portable(prompt.json_schema)}}
        if self.extra_body:
            kwargs["extra_body"] = dict(self.extra_body)  # the SDK's own extra-body parameter
        return kwargs

    async def complete(self, prompt: Prompt, *, timeout: float) -> Completion:
        client = self.client()
        sdk = _sdk()
        try:
            response = await client.messages.create(**self.request(prompt), timeout=timeout)
        except sdk.AnthropicError as e:
            raise map_stainless_error(sdk, e, timeout) from None
        text = "".join(getattr(block, "text", "") for block in response.content if block.type == "text")
        u = response.usage
        cache_read = u.cache_read_input_tokens or 0
        cache_write = u.cache_creation_input_tokens or 0
        usage = Usage(
            # Anthropic's input_tokens are the uncached ones; moot counts all input, cached as a share of it
            input_tokens=(u.input_tokens or 0) + cache_read + cache_write,
            output_tokens=u.output_tokens or 0,
            cached_tokens=cache_read,
            cache_write_tokens=cache_write,
        )
        return self.completion(text, usage, response.model)


def build(spec: JudgeSpec, model: str) -> AnthropicJudge:
    """A Claude judge for `spec`, asking for `model` (the primary or a fallback)."""
    _sdk()  # fail now, with the install hint, rather than at the first call
    return AnthropicJudge(**adapter_args(spec, model)).ready()
