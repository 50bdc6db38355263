"""`decide`'s command and tool: its parameters, written once for `moot decide` and the MCP tool `decide`
(both built from them, see `moot.engine.spec.Param`), and how their values become the API's arguments
(`adapt`). `--no-input` is the command's alone: it is read by `moot.protocols.decide.terminal.show`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.engine.spec import FORMAT, Param

DESCRIPTION = "Decide between options by an adversarial debate of Risk, Value and Effort judges."
MCP_DESCRIPTION = (
    "Decide between options by an adversarial debate of Risk, Value and Effort judges.\n\n"
    "A contested result is returned as it stands (outcome CONTESTED) for the person to choose."
)
MCP_SUMMARY = (
    "`decide` debates the options of a question (Risk, Value, Effort) and recommends one or says it is contested."
)

PARAMS = (
    Param("question", str | None, None, flags=("--question", "-q"), help="The question to decide."),
    Param(
        "option",
        list[str] | None,
        None,
        flags=("--option", "-o"),
        help="ID=LABEL[: description]; repeat for each option (two or more).",
        mcp_help="Options as 'ID=LABEL[: description]', two or more.",
    ),
    Param(
        "context",
        list[str] | None,
        None,
        flags=("--context", "-c"),
        help="A file (or folder) of context, e.g. the spec.",
        mcp_help="Files (or folders) of context, e.g. the spec.",
    ),
    Param(
        "debate_context",
        str | None,
        None,
        help="A YAML file with a debate_context block (question, options; optionally debate_config).",
        mcp_help="A YAML file with a debate_context block (instead of question).",
    ),
    Param(
        "judges",
        str | None,
        None,
        help="Judges file (YAML): a judge list and/or a debate_config block.",
        mcp_help="Judges file (YAML). Default: Risk, Value and Effort judges on sonnet.",
    ),
    Param(
        "threshold",
        float | None,
        None,
        help="Consensus threshold in (0, 1] (default 0.67: two of three).",
        mcp_help="Consensus threshold in (0, 1] (default 0.67).",
    ),
    Param("question_id", str | None, None, help="Names the files (default: from the question)."),
    Param(
        "feature_dir",
        str | None,
        None,
        help="Where the decision files go: FEATURE_DIR/sadd/ gets each judge's recommendation per round and "
        "the decision record (default: the context's feature_dir, else .specs).",
        mcp_help="The decision files (each judge's recommendation per round, the decision record) go to "
        "FEATURE_DIR/sadd/.",
    ),
    Param("no_files", bool, False, flags=("--no-files",), help="Write no files (the store keeps everything)."),
    FORMAT,
    Param(
        "no_input",
        bool,
        False,
        flags=("--no-input",),
        help="Never ask; a contested result is returned as it stands.",
        mcp=False,  # a tool never asks: a contested result is returned for the person to choose
    ),
)


def adapt(values: Mapping[str, Any]) -> dict[str, Any]:
    names = ("question", "debate_context", "judges", "threshold", "question_id", "feature_dir")
    renamed = {"options": values["option"], "context_files": values["context"], "write_files": not values["no_files"]}
    return {n: values[n] for n in names} | renamed
