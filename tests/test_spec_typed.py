"""A protocol's spec is generic in its `Args`, so that the type checker ties the builder to the arguments
it is given: a builder written for another protocol's `Args` is a `mypy --strict` error, not a debate that
fails at run time. The check runs mypy on one small planted file (its cache in a temporary folder)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

PLANTED = """
from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from moot.protocol import PanelFile, Prepared, ProtocolArgs, ProtocolSpec, TextReport, ViewSpec


class VoteArgs(ProtocolArgs):
    question: str


class OtherArgs(ProtocolArgs):
    topic: str


async def build_vote(args: VoteArgs, planning: bool) -> Prepared:
    raise NotImplementedError


async def build_other(args: OtherArgs, planning: bool) -> Prepared:
    raise NotImplementedError


async def reprepare(data: dict[str, Any], panel: PanelFile | None) -> Prepared:
    raise NotImplementedError


def text(result: Any) -> TextReport:
    return TextReport(headline="")


MATCHED = ProtocolSpec("vote", reprepare, BaseModel, build_vote, ViewSpec(text), args=VoteArgs)
MISMATCHED = ProtocolSpec("vote", reprepare, BaseModel, build_other, ViewSpec(text), args=VoteArgs)
"""


def test_mypy_refuses_a_builder_written_for_other_args(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(PLANTED, encoding="utf-8")
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n", encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(SRC)}  # this checkout's moot, not an installed one
    command = [sys.executable, "-m", "mypy", "--strict", "--config-file", str(config)]
    command += ["--cache-dir", str(tmp_path / "cache"), "--no-error-summary", str(planted)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    mismatched = PLANTED.splitlines().index(next(x for x in PLANTED.splitlines() if x.startswith("MISMATCHED")))
    assert len(errors) == 1, done.stdout + done.stderr
    assert f"planted.py:{mismatched + 1}:" in errors[0] and "ProtocolSpec" in errors[0]
    assert "OtherArgs" in errors[0] and "VoteArgs" in errors[0]
