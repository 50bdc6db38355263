"""Each protocol's public function writes out its parameters for users (help(), IDEs, type checkers), and
its builder writes them out again to validate them: these tests keep the two lists from drifting apart,
and the `_sync` twins showing the very same signature."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

import moot
from moot.protocols.challenge.api import plan_challenge
from moot.protocols.decide.inputs import build_decision_request
from moot.protocols.evaluate.api import build_evaluation_request

# how to run, not what to debate: the builders never see them (the screen for secrets is the prepared debate's)
RUN_OPTIONS = {"store", "on_event", "max_cost", "max_input_tokens", "author_model", "redact_secrets"}


def _parameters(function: Callable[..., Any]) -> dict[str, tuple[Any, Any, Any]]:
    return {n: (p.kind, p.default, p.annotation) for n, p in inspect.signature(function).parameters.items()}


@pytest.mark.parametrize(
    ("public", "builder", "builder_only"),
    [
        (moot.evaluate, build_evaluation_request, set()),
        (moot.decide, build_decision_request, set()),
        (moot.challenge, plan_challenge, set()),
    ],
)
def test_a_protocol_function_takes_what_its_builder_validates(
    public: Callable[..., Any], builder: Callable[..., Any], builder_only: set[str]
) -> None:
    given = _parameters(public)
    assert set(given) >= RUN_OPTIONS
    validated = _parameters(builder)
    assert {n: v for n, v in given.items() if n not in RUN_OPTIONS} == {
        n: v for n, v in validated.items() if n not in builder_only
    }


@pytest.mark.parametrize("name", ["evaluate", "decide", "challenge"])
def test_a_sync_twin_shows_the_async_signature(name: str) -> None:
    sync = getattr(moot, f"{name}_sync")
    assert sync.__name__ == f"{name}_sync"
    assert not inspect.iscoroutinefunction(sync)
    assert inspect.signature(sync) == inspect.signature(getattr(moot, name))


@pytest.mark.parametrize("name", ["evaluate", "decide", "challenge"])
def test_the_function_and_the_command_list_the_shared_parameters_in_one_order(name: str) -> None:
    """The function's own parameters and the command's and tool's stand in the same order (the `Args`
    fields'), so that `help(moot.evaluate)` and `moot evaluate --help` read alike."""
    from moot.protocols import spec_for

    spec = spec_for(name)
    assert spec.args is not None
    function = inspect.signature(getattr(moot, name)).parameters
    offered = [n for n in spec.args.model_fields if n in function and n not in RUN_OPTIONS]
    command = [n for n in offered if n in {p.name for p in spec.params}]
    in_function = [n for n in function if n in command]
    assert in_function == command
    assert [p.name for p in spec.params if p.name in command] == command
