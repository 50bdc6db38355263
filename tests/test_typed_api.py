"""A caller's type checker sees each protocol function's parameters: `moot.evaluate` and its siblings are
generated from the protocols' `Args` at import time, and the stubs derived from the same declarations
(`moot.api.stubs`) tell mypy what they take and return. These tests keep the committed stubs equal to what
the declarations give, and run mypy on a caller's code as a user would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from moot.api import stubs
from moot.protocol.args import Arg, api_builder, api_function, arg
from moot.protocol.panel import blocking

TOY = Path(__file__).resolve().parent / "toy_protocol"


@pytest.mark.parametrize("name", ["exports.pyi", "public.pyi"])
def test_the_committed_stubs_are_what_the_declarations_give(name: str) -> None:
    committed = (stubs.FOLDER / name).read_text(encoding="utf-8")
    assert committed == stubs.stub_files()[name], f"run `python -m moot.api.stubs`: {name} is out of date"


def test_the_package_says_it_is_typed() -> None:
    assert (stubs.FOLDER.parent / "py.typed").is_file()


CALLER = """\
import moot
from moot.api import build_evaluation_request

result = moot.evaluate_sync("src/", task="review", max_rounds=2)
reveal_type(result)
reveal_type(moot.decide_sync("Offline?", ["A=No", "B=Yes"]).verdict)
pending = moot.evaluate(123, max_rounds="two")
moot.challenge_sync("Use SQLite", rounds=3)
build_evaluation_request("src/", mode="fast")
"""


def test_a_callers_mistakes_are_found_by_mypy(tmp_path: Path) -> None:
    (tmp_path / "caller.py").write_text(CALLER, encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), "caller.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = checked.stdout.splitlines()
    assert 'caller.py:5: note: Revealed type is "moot.protocols.evaluate.schemas.EvaluationResult"' in lines
    assert 'caller.py:6: note: Revealed type is "moot.schemas.envelope.Verdict"' in lines
    errors = [line for line in lines if ": error: " in line]
    assert errors == [
        'caller.py:7: error: Argument 1 to "evaluate" has incompatible type "int"; '
        'expected "str | Sequence[str] | None"  [arg-type]',
        'caller.py:7: error: Argument "max_rounds" to "evaluate" has incompatible type "str"; '
        'expected "int | None"  [arg-type]',
        'caller.py:8: error: Unexpected keyword argument "rounds"  [call-arg]',  # a sync twin: `blocking(challenge)`
        'caller.py:9: error: Argument "mode" to "build_evaluation_request" has incompatible type '
        "\"Literal['fast']\"; expected \"Literal['complete', 'quick']\"  [arg-type]",
    ], checked.stdout + checked.stderr


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(TOY))
    import moot_toy.api

    return moot_toy.api


async def _build(args: Any, planning: bool) -> Any:
    raise AssertionError("never called: only the stub is written")


def _request(args: Any) -> int:
    return 0


def test_a_field_added_to_the_args_is_in_the_stub(toy: ModuleType) -> None:
    class Extended(toy.VoteArgs):  # type: ignore[name-defined,misc]  # a module found at run time
        quorum: int | None = arg(None, Arg(help="Fewest yes votes for a consensus."))

    vote = api_function("vote", Extended, _build, toy.VoteResult, doc="", run_options=("store",))
    builder = api_builder("build_vote", Extended, _request)
    exported = {"vote": vote, "vote_sync": blocking(vote), "build_vote": builder, "VoteResult": toy.VoteResult}
    text = stubs.exports_stub(exported)
    assert "\nvote_sync = blocking(vote)\n" in text
    assert "async def vote(\n    question: str,\n    *,\n" in text
    assert "    max_rounds: int | None = ...,\n    quorum: int | None = ...,\n    store: Store | None = ...,\n" in text
    assert ") -> VoteResult: ..." in text and "def build_vote(" in text and ") -> int: ..." in text
    assert "from moot.store.db import Store\n" in text
    assert f"from {toy.VoteResult.__module__} import VoteResult as VoteResult\n" in text
    assert '"quorum"' not in text  # a parameter, not an export
