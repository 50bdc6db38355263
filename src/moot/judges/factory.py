"""Judge specs (from YAML or code) -> judges and seats.

A vendor judge whose credential is missing is still built, as a `KeylessJudge`: planning a debate
(`--dry-run`, the cost estimate, `--max-cost`'s price check) sends nothing and so needs no key.
`require_credentials` refuses it before the first call of a real run, so a missing key is still bad
input (exit 2) and never a judge dropped mid-debate.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from pathlib import Path

from moot.errors import NotUsableHere, UsageError
from moot.judges.base import Judge, Seat
from moot.judges.effort import check_effort
from moot.judges.host import HostJudge
from moot.judges.providers import (
    Resolved,
    api_key_for,
    key_hint,
    needs_key,
    resolve,
    sdk_missing,
    with_output_bound,
)
from moot.judges.scripted import ScriptedJudge
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Completion, Prompt

# Judge kinds: wire name -> "module:function" building a Judge from a spec and a model name. Imported only
# when a judge of that kind is configured, so vendor SDKs stay lazy.
WIRE_BUILDERS: dict[str, str] = {
    "openai": "moot.judges.openai_compat:build",
    "anthropic": "moot.judges.anthropic_native:build",
    "gemini": "moot.judges.gemini_native:build",
    "cli": "moot.judges.agent_cli:build",
}


def _builder(wire: str) -> Callable[[JudgeSpec, str], Judge] | None:
    target = WIRE_BUILDERS.get(wire)
    if target is None:
        return None
    module, _, name = target.partition(":")
    try:
        return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]
    except (ImportError, AttributeError):
        return None


class KeylessJudge:
    """Stands in for a vendor judge whose credential (or SDK) is missing: it prices and plans like the
    real one (same provider and model), and refuses to be called."""

    def __init__(self, provider: str, model: str, problem: str, missing: str = "") -> None:
        self.provider = provider
        self.model = model
        self.problem = problem  # the one-line error a real run stops with
        self.missing = missing or problem  # what to set, for a dry run's warning

    def __repr__(self) -> str:
        return f"KeylessJudge(provider={self.provider!r}, model={self.model!r})"

    async def complete(self, prompt: Prompt, *, timeout: float) -> Completion:
        raise NotUsableHere(self.problem)

    async def aclose(self) -> None:
        return None


def require_credentials(judges: Iterable[Judge]) -> None:
    """Stop a real run before its first call when any judge (a fallback included) lacks its key."""
    for judge in judges:
        if isinstance(judge, KeylessJudge):
            raise NotUsableHere(judge.problem)


def seat_judges(seats: Iterable[Seat | None]) -> list[Judge]:
    return [j for seat in seats if seat is not None for j in seat.judges]


def _build_api_judge(spec: JudgeSpec, model: str) -> Judge:
    """One vendor judge; a `KeylessJudge` when its credential or its SDK is missing (see the module's
    docstring): a dry run plans it and names what is missing, a real run stops on it before any call."""
    resolved = resolve(spec.model_copy(update={"model": model}))
    check_effort(spec, resolved.provider.wire, resolved.provider.name, resolved.model)
    missing = [m for m in (sdk_missing(resolved.provider.wire), _key_missing(spec, resolved)) if m]
    if missing:
        sep = " " if missing[0].startswith("needs") else ": "
        problem = f"judge '{spec.label}' ({model}){sep}" + "; ".join(missing)
        return KeylessJudge(resolved.provider.name, resolved.model, problem, "; ".join(missing))
    builder = _builder(resolved.provider.wire)
    if builder is None:
        raise UsageError(f"judge '{spec.label}': no adapter for the '{resolved.provider.wire}' wire protocol")
    return builder(spec, model)


def _key_missing(spec: JudgeSpec, resolved: Resolved) -> str | None:
    if needs_key(spec, resolved) and api_key_for(spec, resolved) is None:
        return f"needs an API key: set {key_hint(spec, resolved)}"
    return None


def build_judges(spec: JudgeSpec, *, base_dir: Path | None = None) -> list[Judge]:
    """The judge for a spec, then one per fallback model, in the order they take the seat."""
    if spec.host:
        return [HostJudge(spec.label)]
    if spec.replies is not None or spec.script:
        check_effort(spec, "scripted", "a scripted judge", spec.model)
    elif spec.cli or spec.command:
        cli = spec.cli if spec.cli and not spec.command else "a command judge"
        check_effort(spec, "codex" if cli == "codex" else "cli", f"agent CLI {cli}", spec.model)
    if spec.replies is not None:
        return [ScriptedJudge(spec.replies, model=spec.model or spec.label)]
    if spec.script:
        path = Path(spec.script)
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        return [ScriptedJudge.from_file(path, model=spec.model or path.stem)]
    if spec.cli or spec.command:
        builder = _builder("cli")
        if builder is None:
            raise UsageError(f"judge '{spec.label}': agent CLI judges are not available in this build")
        return [builder(spec, spec.model)]
    return [_build_api_judge(spec, m) for m in [spec.model, *spec.fallbacks]]


def build_seat(
    spec: JudgeSpec,
    *,
    seat_id: str,
    number: int,
    default_stance_prompt: str = "",
    default_timeout: float = 120.0,
    base_dir: Path | None = None,
) -> Seat:
    spec = with_output_bound(spec)  # a local judge with no max_tokens gets the documented default
    return Seat(
        id=seat_id,
        number=number,
        label=spec.label,
        stance=spec.stance,
        stance_prompt=spec.stance_prompt or default_stance_prompt,
        judges=build_judges(spec, base_dir=base_dir),
        timeout=spec.timeout or default_timeout,
        spec=spec.public_dict(),
    )
