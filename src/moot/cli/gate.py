"""The CI gate in the CLI: `--fail-under SCORE` and `--require WORD` turn a verdict into exit code 1 or 0,
and `--html PATH` leaves the HTML report beside the job's other artifacts.

The rule itself (`gate_failure`, `check_gate_options`) lives in `moot.api.gate`, its public home; it is
re-exported here for scripts that imported it from this module before. The protocol commands
(`moot.cli.protocol_cmd`) only add the options and call `finish`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from moot.api.gate import check_gate_options, gate_failure
from moot.cli.output import FORMATS

if TYPE_CHECKING:
    from moot.protocol.spec import ProtocolSpec

__all__ = [
    "GATE_EXIT",
    "check_gate_options",
    "finish",
    "gate_failure",
    "protocol_formats",
    "render",
]

GATE_EXIT = 1


def finish(
    result: Mapping[str, Any],
    *,
    fail_under: float | None = None,
    require: str | None = None,
    html: str | None = None,
) -> int:
    """After the result is printed: write the HTML report if asked, then apply the gate. Returns the exit code."""
    if html:
        from moot.api.report import write_html_report
        from moot.store import Store

        path = write_html_report(Store.open_default(), str(result["debate_id"]), html)
        sys.stderr.write(f"moot: HTML report written to {path}\n")
    why = gate_failure(result, fail_under=fail_under, require=require)
    if why is None:
        return 0
    from moot.cli.output import say

    say(f"moot: gate failed: {why}")
    return GATE_EXIT


def protocol_formats(spec: ProtocolSpec) -> tuple[str, ...]:
    """The `--format`s of a protocol's command: text, json and yaml, those its `show` prints itself
    (`markdown`), and github."""
    return (*FORMATS, *spec.cli.formats, "github")


def render(protocol: str, result: Any, fmt: str) -> str:
    """`render_result` plus `--format github` (Markdown for a job summary or a pull-request comment)."""
    from pydantic import BaseModel

    from moot.cli.output import render_result

    if fmt != "github":
        return render_result(protocol, result, fmt)
    from moot.api.report import github_markdown

    data = result.model_dump(mode="json") if isinstance(result, BaseModel) else dict(result)
    return github_markdown({"protocol": protocol, **data})
