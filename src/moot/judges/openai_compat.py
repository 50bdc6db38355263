"""Judges behind any OpenAI-compatible chat-completions endpoint (OpenAI, xAI, OpenRouter, vLLM,
llama.cpp, Ollama, LM Studio), through the official `openai` SDK's async client.

Structured replies: vendors' clouds are sent the portable reply schema in OpenAI's form; any other server
in the form its judge's `structured:` key names, or the one `auto` finds (`moot.judges.structured`), with
the schema bounded so that a grammar can enforce it.

The SDK's own retries are switched off (`max_retries=0`): the engine retries every judge by one policy.
Every client gets the same TLS context: making one loads the CA bundle (~50 ms of blocking work), which a
nine-judge panel would otherwise pay nine times before its first round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from moot.errors import JudgeError, MissingExtra
from moot.judges import structured
from moot.judges.cache_hints import prompt_cache_key, shares_cache, system_message
from moot.judges.providers import VENDOR_CLOUDS, api_key_for, resolve
from moot.judges.vendor import VendorJudge, sampled
from moot.judges.wire_errors import map_stainless_error
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Completion, Prompt, Usage

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai._types import RequestOptions
    from openai.types.chat import ChatCompletion


class OpenAICompatJudge(VendorJudge):
    def __init__(
        self,
        *,
        provider: str = "openai",
        structured_setting: str = "off",
        preferred_form: str = "json_schema",
        enforced: bool = False,
        max_tokens_param: str = "max_completion_tokens",
        **settings: Any,
    ) -> None:
        super().__init__(provider=provider, **settings)
        self.structured = structured_setting  # auto | json_schema | json_object | off
        self.preferred_form = preferred_form  # what auto tries first
        self.enforced = enforced  # a local grammar: send the bounded schema, not the portable one
        self.max_tokens_param = max_tokens_param

    def cache_domain(self) -> str | None:
        """OpenAI's own API (its `prompt_cache_key` keeps a prefix on one cache) and a gateway that passes
        `cache_control` on for Claude or Gemini; no other server: a local one reuses a prefix on its own."""
        if not shares_cache(self.provider, self.model, self.base_url, enabled=self.prompt_cache):
            return None
        return f"{self.provider} {self.base_url or ''} {self.model}"

    def make_client(self) -> AsyncOpenAI:
        try:
            import openai
        except ImportError:
            raise MissingExtra("openai", "openai") from None
        return cast("AsyncOpenAI", self.stainless_client(openai, openai.AsyncOpenAI))

    def client(self) -> AsyncOpenAI:
        return cast("AsyncOpenAI", self.shared_client())

    def forms(self, prompt: Prompt) -> list[str]:
        """The structured forms to try for `prompt`, in order (just `off` when it has no schema)."""
        if not prompt.json_schema or self.structured == "off":
            return ["off"]
        return structured.attempt_order(self.structured, self.preferred_form, self.base_url)

    def request(self, prompt: Prompt, form: str | None = None) -> dict[str, Any]:
        """The chat-completions body for a prompt in a structured `form` (default: the first to try).
        Pure, so that tests can read what would be sent."""
        form = form or self.forms(prompt)[0]
        messages = [system_message(prompt.system, provider=self.provider, model=self.model, enabled=self.prompt_cache)]
        messages += [{"role": m.role, "content": m.content} for m in prompt.messages]
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        key = prompt_cache_key(prompt.system, provider=self.provider, base_url=self.base_url, enabled=self.prompt_cache)
        if key is not None:
            body["prompt_cache_key"] = key
        if self.temperature is not None:
            body["temperature"] = self.temperature
        body.update(sampled(prompt))
        if self.reasoning_effort is not None:
            body["reasoning_effort"] = self.reasoning_effort
        max_tokens = self.max_tokens or prompt.max_tokens
        if max_tokens:
            body[self.max_tokens_param] = max_tokens
        if prompt.json_schema and form != "off":
            body["response_format"] = structured.response_format(
                form, prompt.json_schema, enforced=self.enforced, max_tokens=max_tokens
            )
        return body

    async def complete(self, prompt: Prompt, *, timeout: float) -> Completion:
        import openai

        forms = self.forms(prompt)
        for i, form in enumerate(forms):
            try:
                response = await self._post(prompt, form, timeout)
            except openai.APIStatusError as e:
                if form != "off" and structured.names_response_format(e.status_code, _body_text(e)):
                    if i + 1 < len(forms):
                        continue  # the server refused the form, not the question: the next form, at once
                    raise JudgeError(  # a fixed form the server does not take: asking again cannot help
                        f"the server refuses `structured: {form}` (HTTP {e.status_code}); "
                        "set structured: auto, or the form it takes"
                    ) from None
                raise map_stainless_error(openai, e, timeout) from None
            except openai.OpenAIError as e:
                raise map_stainless_error(openai, e, timeout) from None
            if self.structured == "auto" and prompt.json_schema:
                structured.remember(self.base_url, form)
            return self._completion(response, form if prompt.json_schema else "")
        raise JudgeError("no structured form left to ask in")  # pragma: no cover - `off` is always last

    async def _post(self, prompt: Prompt, form: str, timeout: float) -> ChatCompletion:
        from openai.types.chat import ChatCompletion

        # What `chat.completions.create` sends (same body, headers and response type), posted through the
        # client directly: `create` first walks the body against its TypedDict parameter types, about 0.7 ms
        # of CPU a call that changes nothing in a body of plain strings and numbers.
        return await self.client().post(
            "/chat/completions", body=self.request(prompt, form), cast_to=ChatCompletion, options=self._options(timeout)
        )

    def _options(self, timeout: float) -> RequestOptions:
        """The request options: the timeout, and `extra_body:` as the SDK's own extra body (`create`'s
        `extra_body=` puts it in the same `extra_json`, merged into the request's JSON)."""
        options: RequestOptions = {"timeout": timeout}
        if self.extra_body:
            options["extra_json"] = dict(self.extra_body)
        return options

    def _completion(self, response: ChatCompletion, form: str) -> Completion:
        if not response.choices:
            raise JudgeError("the reply had no choices")
        choice = response.choices[0]
        text = choice.message.content or ""
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
        done = self.completion(text, usage, response.model)
        return done.model_copy(update={"structured": form, "finish_reason": str(choice.finish_reason)})


def _body_text(e: Any) -> str:
    """An error response's body as text (the message the SDK kept, else the raw body)."""
    try:
        raw = e.response.text
    except Exception:  # a streamed or closed body
        raw = ""
    return f"{getattr(e, 'message', '')} {raw}"


def build(spec: JudgeSpec, model: str) -> OpenAICompatJudge:
    """An OpenAI-compatible judge for `spec`, asking for `model` (the primary or a fallback)."""
    resolved = resolve(spec.model_copy(update={"model": model}))
    try:
        import openai  # noqa: F401  (fail now, with the install hint, rather than at the first call)
    except ImportError:
        raise MissingExtra("openai", "openai") from None
    vendor_cloud = resolved.provider.name in VENDOR_CLOUDS
    judge = OpenAICompatJudge(
        model=resolved.model,
        base_url=resolved.base_url,
        api_key=api_key_for(spec, resolved),
        provider=resolved.provider.name,
        temperature=spec.temperature,
        max_tokens=spec.max_tokens,
        reasoning_effort=spec.reasoning_effort,
        extra_body=spec.extra_body,
        prompt_cache=spec.prompt_cache,
        # vendors' clouds: OpenAI's form with the portable schema, as always; any other server: what the judge
        # says, else auto, starting from the form its preset names
        structured_setting=spec.structured or ("json_schema" if vendor_cloud else "auto"),
        preferred_form=resolved.provider.structured,
        enforced=not vendor_cloud,
        # OpenAI's reasoning models refuse `max_tokens`; Ollama, llama.cpp and LM Studio know only it
        max_tokens_param="max_completion_tokens" if vendor_cloud else "max_tokens",
    )
    return judge.ready()
