"""moot: LLM judges with assigned stances debate an artifact, a decision or a position, and end in a
verdict a person can trust.

The public API is what `__all__` lists; everything else may change between versions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "ChallengeResult",
    "DecisionResult",
    "EvaluationResult",
    "challenge",
    "challenge_sync",
    "decide",
    "decide_sync",
    "estimate",
    "estimate_sync",
    "evaluate",
    "evaluate_sync",
    "resume",
    "resume_sync",
]

if TYPE_CHECKING:
    from moot.api import (
        challenge,
        challenge_sync,
        decide,
        decide_sync,
        estimate,
        estimate_sync,
        evaluate,
        evaluate_sync,
        resume,
        resume_sync,
    )
    from moot.schemas.challenge import ChallengeResult
    from moot.schemas.decide import DecisionResult
    from moot.schemas.evaluate import EvaluationResult


def __getattr__(name: str) -> Any:
    """Import lazily, so that `import moot` (and `moot --help`) stays fast."""
    if name in (
        "evaluate",
        "evaluate_sync",
        "resume",
        "resume_sync",
        "decide",
        "decide_sync",
        "challenge",
        "challenge_sync",
        "estimate",
        "estimate_sync",
    ):
        from moot import api

        return getattr(api, name)
    if name == "ChallengeResult":
        from moot.schemas.challenge import ChallengeResult

        return ChallengeResult
    if name == "DecisionResult":
        from moot.schemas.decide import DecisionResult

        return DecisionResult
    if name == "EvaluationResult":
        from moot.schemas.evaluate import EvaluationResult

        return EvaluationResult
    raise AttributeError(f"module 'moot' has no attribute {name!r}")
