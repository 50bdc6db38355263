"""Settings a user writes that every protocol shares: a judge as a judges file names it, and a file
a debate reads. (Each protocol's own settings are its own: its package declares them.)

The shapes follow the seeds so that their YAML blocks (`debate_judges:`) load unchanged. Unknown keys are
rejected so that a typo is an error rather than a silently ignored setting.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class JudgeSpec(BaseModel):
    """One judge as a user configures it. Secrets never leave this object (see `public_dict`)."""

    model_config = ConfigDict(extra="forbid")

    model: str = ""
    name: str | None = None  # display name; defaults to the model
    stance: str = "neutral"
    stance_prompt: str | None = None
    # API judges
    provider: str | None = None
    api_base: str | None = None
    api_key: str | None = Field(default=None, repr=False)
    api_key_env: str | None = None
    timeout: float | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    fallbacks: list[str] = Field(default_factory=list)
    # OpenAI-compatible servers: the form the reply schema is sent in (moot.judges.structured); default auto
    structured: Literal["auto", "json_schema", "json_object", "off"] | None = None
    # how hard a reasoning model thinks, in the vendors' words (minimal, low, medium, high, xhigh); each provider
    # gets it in its own field, and a level it does not take is refused before any call (moot.judges.effort)
    reasoning_effort: Literal["minimal", "low", "medium", "high", "xhigh"] | None = None
    # request fields moot does not name, passed through the vendor SDK's own extra-body parameter
    extra_body: dict[str, Any] | None = None
    # ask the vendor to cache the prompt's shared prefix (rules, rubric, artifact): Anthropic's and gateways'
    # `cache_control`, OpenAI's `prompt_cache_key`; false sends none of them (moot.judges.cache_hints)
    prompt_cache: bool = True
    # the model's context window in tokens: a step whose prompt and output bound cannot fit is refused
    context_tokens: int | None = Field(default=None, gt=0)
    # scripted judges (tests, demo): a YAML file of replies, or the replies inline
    script: str | None = None
    replies: list[Any] | None = None
    # agent CLI judges
    cli: str | None = None
    command: list[str] | str | None = None
    allow_tools: bool = False  # the agent may run tools / change files (the seeds' --yolo); opt-in only
    # a host seat: its replies come from the caller (`submit_replies`, `moot reply`), never from a vendor
    host: bool = False

    @model_validator(mode="after")
    def _has_identity(self) -> JudgeSpec:
        if not (self.model or self.cli or self.command or self.script or self.replies is not None or self.host):
            raise ValueError("a judge needs a 'model' (or 'cli', 'command', 'script', 'host: true')")
        return self

    @field_validator("timeout")
    @classmethod
    def _positive_timeout(cls, v: float | None) -> float | None:
        if v is not None and v <= 0:
            raise ValueError("timeout must be a positive number of seconds")
        return v

    @property
    def label(self) -> str:
        return self.name or self.model or self.cli or ("host" if self.host else "judge")

    def public_dict(self) -> dict[str, Any]:
        """The spec as it may be written to the store or a report: never the key itself."""
        data = self.model_dump(exclude_none=True, exclude_defaults=True)
        if data.pop("api_key", None) is not None:
            data["api_key_redacted"] = True
        return data


class Artifact(BaseModel):
    """One file of what a debate reads (the artifact under evaluation, a challenge's context), with the path
    judges see."""

    path: str
    text: str
