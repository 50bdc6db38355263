"""moot: LLM judges with assigned stances debate an artifact, a decision or a position, and end in a
verdict a person can trust.

The public API is what `__all__` lists: each protocol's function, its sync twin and its result type (from
the registry, `moot.protocols`), and `estimate` and `resume`; everything else may change between versions.
Names are imported lazily, so that `import moot` (and `moot --help`) stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see of the lazy names: the protocols' ones typed by a generated stub
    from moot.api import cancel_debate as cancel_debate
    from moot.api import estimate as estimate
    from moot.api import estimate_sync as estimate_sync
    from moot.api import resume as resume
    from moot.api import resume_sync as resume_sync
    from moot.api import submit_replies as submit_replies
    from moot.api import submit_replies_sync as submit_replies_sync
    from moot.protocols.public import *  # noqa: F403 - evaluate, evaluate_sync, EvaluationResult, ...

_SHARED = (
    "cancel_debate",
    "estimate",
    "estimate_sync",
    "resume",
    "resume_sync",
    "submit_replies",
    "submit_replies_sync",
)


def _public() -> dict[str, Any]:
    """Each protocol's function, sync twin and result type (what `moot.__all__` lists besides `_SHARED`)."""
    from moot.protocols import specs

    out: dict[str, Any] = {}
    for spec in specs():
        for name in (spec.name, f"{spec.name}_sync", spec.result_type.__name__):
            if name in spec.exports:
                out[name] = spec.exports[name]
    return out


def _named(name: str) -> Any:
    """`name` when it is a protocol's function or sync twin (`evaluate`, `evaluate_sync`): that protocol
    alone is imported, not every one, so that `moot.evaluate_sync(...)` starts its debate sooner."""
    from moot.protocols import entry, spec_for

    found = entry(name.removesuffix("_sync"))
    if found is None:
        return None
    return spec_for(found.name).exports.get(name)


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return sorted([*_SHARED, *_public()])
    if name in _SHARED:
        from moot import api

        return getattr(api, name)
    named = _named(name)
    if named is not None:
        return named
    public = _public()
    if name in public:
        return public[name]
    raise AttributeError(f"module 'moot' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_SHARED, *_public()])
