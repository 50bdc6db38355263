"""`evaluate` as its users start it: the command's and MCP tool's parameters (written once), a batch item's
fields, the bench's scored role and the demo's inputs.

`evaluate`'s arguments (`EvaluateArgs`), declared once for `moot.evaluate`, `moot evaluate` and the MCP
tool `evaluate`.

How `moot batch` and `moot bench` read an evaluate item: the artifact paths to resolve, the inline
`artifact` a line may hold instead, and the scored suites the bench runs with it.

`moot demo` (evaluate, the default): three scripted judges and a moderator evaluate a small users API
over three rounds, with a critical finding, a majority and a minority; `--live` runs the seeds' lineup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from moot.protocol import (
    Arg,
    BatchSpec,
    BenchRole,
    DemoSpec,
    JudgeLike,
    JudgeSpec,
    PanelFile,
    ProtocolArgs,
    UsageError,
    arg,
)
from moot.protocol.args import REDACTING
from moot.protocol.spec import CommandWords
from moot.protocols.evaluate.criteria import Criterion
from moot.protocols.evaluate.protocol import DEFAULT_JUDGES
from moot.protocols.evaluate.schemas import MAX_ROUNDS, ROUNDS
from moot.protocols.evaluate.settings import ConsensusSettings, EvaluateSettings, VerdictThresholds
from moot.schemas.config import Artifact

FOLDER = Path(__file__).resolve().parent / "demo"
TASK = "Implement REST API for user management"
CRITERIA = "correctness:30,design:25,security:20,performance:15,docs:10"
ARTIFACT = "src/api/users.ts"  # where the seed's judges expect it, so their replies read true
BUNDLED = "users-api/users.ts"  # where the package keeps it


def demo_arguments(judges: Any, reports_dir: str) -> dict[str, Any]:
    """The bundled artifact under the path the scripted judges quote, not where the package is installed
    (its reports are then named `users-api-DATE`, after the seed's solution)."""
    artifact = Artifact(path=ARTIFACT, text=(FOLDER / BUNDLED).read_text(encoding="utf-8"))
    return {"artifacts": [artifact], "task": TASK, "criteria": CRITERIA, "judges": judges, "reports_dir": reports_dir}


DEMO = DemoSpec(
    folder=FOLDER,
    argv=("evaluate", "-s", ARTIFACT, "--judges", "judges.yaml", "--task", TASK, "--criteria", CRITERIA),
    gate="--require PASS",
    extra={ARTIFACT: BUNDLED},
    live_judges=tuple(DEFAULT_JUDGES),
    arguments=demo_arguments,
    announce=f"moot demo: evaluating {ARTIFACT} with {{judges}} judges",
)


def _required(data: Mapping[str, Any], where: str) -> None:
    given = [k for k in ("solution", "artifact", "artifacts", "diff", "patch") if data.get(k) not in (None, "", [])]
    if not given:
        raise UsageError(
            f"{where}: an evaluate item needs 'solution' (paths), 'artifact' (inline text), 'diff' or 'patch'"
        )
    if len(given) > 1:
        raise UsageError(f"{where}: give one of {' or '.join(repr(k) for k in given)}, not both")


def _arguments(arguments: dict[str, Any], item_id: str, base: Path, where: str) -> dict[str, Any]:
    """`artifact` (inline text) and `artifacts` (a list of {path, text}) become the API's artifacts; a
    criteria rubric file beside the items file is found there."""
    from pydantic import ValidationError

    from moot.inputs import validation_message
    from moot.schemas.config import Artifact

    out = dict(arguments)
    inline = out.pop("artifact", None)
    if inline is not None:
        if not isinstance(inline, str):
            raise UsageError(f"{where}: 'artifact' must be the artifact's text")
        out["artifacts"] = [Artifact(path=item_id, text=inline)]
    elif "artifacts" in out:
        try:
            out["artifacts"] = [Artifact.model_validate(a) for a in out["artifacts"]]
        except (ValidationError, TypeError) as e:
            message = validation_message(e, "artifacts") if isinstance(e, ValidationError) else str(e)
            raise UsageError(f"{where}: {message}") from None
    criteria = out.get("criteria")
    if isinstance(criteria, str) and (base / criteria).is_file():
        out["criteria"] = str(base / criteria)
    return out


BATCH = BatchSpec(
    input_paths=("solution", "patch"),
    output_paths=("reports_dir",),
    # thousands of debates writing report files into the working folder would surprise: the store keeps
    # everything (`moot show`, `moot report`), and an item may still ask for files
    defaults={"reports_dir": None},
    extra_fields=frozenset({"artifact"}),
    required=_required,
    arguments=_arguments,
    rounds=(MAX_ROUNDS, ROUNDS),
)
BENCH = BenchRole("scored")


# what its command and tool say of themselves (`moot.protocol.spec.CommandWords`)
WORDS = CommandWords(
    description="Evaluate an artifact by a debate between judges with assigned stances.",
    mcp_description="Evaluate an artifact by a debate between judges with assigned stances; returns the verdict JSON.",
    mcp_summary=(
        "`evaluate` scores an artifact (files) against criteria and returns a verdict (PASS, CONDITIONAL or FAIL) "
        "with findings and recommendations."
    ),
)


def _reports_dir(reports_dir: str | None, values: Mapping[str, Any]) -> str | None:
    return None if values["no_reports"] else reports_dir


class EvaluateArgs(ProtocolArgs):
    """What an evaluation takes, declared once: `moot.evaluate`, `moot evaluate` and the MCP tool `evaluate`
    are built from it (`moot.protocol.args`). `artifacts`, `consensus` and `thresholds` are the API's alone;
    `no_reports` the adapters' (the API says `reports_dir=None`)."""

    settings = EvaluateSettings  # its keys in a judges file

    solution: str | Sequence[str] | None = arg(
        None,
        Arg(
            type=list[str] | None,
            flags=("--solution", "-s"),
            positional=True,
            help="File, folder or glob; repeatable (or judge a change with --diff or --patch).",
            mcp_type=list[str] | str | None,
            mcp_help="Files, folders or globs to evaluate.",
        ),
    )
    diff: str | None = arg(
        None,
        Arg(
            help="Judge a change: a git range in the current work tree (HEAD~1, main...HEAD, a commit).",
            mcp_help="Judge a change instead of files: a git range in the first root's repository (HEAD~1, "
            "main...HEAD).",
        ),
    )
    patch: str | None = arg(
        None,
        Arg(
            help="Judge a change: a unified diff file ('-' reads standard input).",
            mcp_help="Judge a change instead of files: a unified diff file.",
        ),
    )
    follow_up: str | None = arg(
        None,
        Arg(
            help="A second look: re-check an earlier evaluation's findings (its debate id) on this version.",
        ),
    )
    task: str = arg("", Arg(help="What the solution was supposed to accomplish."))
    criteria: str | Sequence[Criterion] = arg(
        "code",
        Arg(
            type=str,
            help="name:weight,... or a rubric YAML file or a built-in rubric (code, design, documentation, plan), "
            "or auto (one call writes a rubric for the task first).",
            mcp_help="name:weight,... or a rubric YAML file or code, design, documentation, plan; or auto (a "
            "rubric written for the task by one call before round 1).",
        ),
    )
    judges: str | Path | PanelFile | Sequence[JudgeLike] | None = arg(
        None,
        Arg(
            type=str | None,
            help="Judges file (YAML with a debate_judges list), or 'host': every judge's reply is yours.",
            mcp_help="Judges file (YAML). Default: gemini-3-pro-preview, gpt-5.2 and grok-4. 'host': you give "
            "every judge's reply, e.g. from sub-agents (the tool returns a waiting state; submit_replies "
            "continues it).",
        ),
    )
    artifacts: Sequence[Artifact] | None = arg(None, Arg(cli=False, mcp=False))
    consensus: ConsensusSettings | dict[str, Any] | None = arg(None, Arg(cli=False, mcp=False))
    thresholds: VerdictThresholds | dict[str, Any] | None = arg(None, Arg(cli=False, mcp=False))
    max_rounds: int | None = arg(None, Arg(help="Most rounds (default 3)."))
    mode: Literal["complete", "quick"] = arg(
        "complete", Arg(type=str, help="complete (up to max rounds) or quick (one round).")
    )
    reports_dir: str | Path | None = arg(
        ".specs/reports",
        Arg(type=str, help="Where per-judge reports are written.", mcp_type=str | None, convert=_reports_dir),
    )
    no_reports: bool = arg(False, Arg(flags=("--no-reports",), help="Write no report files.", api=False))
    moderator: str | JudgeSpec | dict[str, Any] | None = arg(
        None, Arg(type=str | None, help="Who writes the synthesis: 'host' (you), or a model.")
    )
    redact_secrets: bool = arg(False, REDACTING)


def reply_minimum() -> int:
    """The smallest output bound evaluate's replies need with five criteria, open findings and acceptance asked."""
    from moot.protocols.evaluate.replies import evaluate_reply_schema
    from moot.schemas.reply_bounds import reply_minimum as minimum

    keys = [f"criterion-{n}" for n in range(5)]
    found = [("C1", False), ("C2", True)]
    return minimum(
        *(
            evaluate_reply_schema(keys, phase=p, open_findings=found, require_acceptance=True)
            for p in ("round_1", "rebuttal", "final")
        )
    )
