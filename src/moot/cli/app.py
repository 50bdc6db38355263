"""The `moot` command: registers each command module and turns errors into exit codes.

Exit codes: 0 done; 1 a gate failed (`--fail-under`, `--require`); 2 bad input (one line on stderr, no
LLM call made); 3 the debate could not reach a trustworthy end; 130 interrupted (resumable).
"""

from __future__ import annotations

import sys

import typer

from moot.cli import challenge_cmd, decide_cmd, demo_cmd, doctor_cmd, evaluate_cmd, history_cmds, mcp_cmd, report_cmd
from moot.errors import DebateAborted, Interrupted, MootError, UsageError

app = typer.Typer(
    name="moot",
    help="LLM judges with assigned stances debate an artifact, a decision or a position, and end in a "
    "verdict you can trust.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("evaluate")(evaluate_cmd.evaluate)
app.command("decide")(decide_cmd.decide)
app.command("challenge")(challenge_cmd.challenge)
app.command("demo")(demo_cmd.demo)
app.command("doctor")(doctor_cmd.doctor)
app.command("show")(history_cmds.show)
app.command("list")(history_cmds.list_debates)
app.command("resume")(history_cmds.resume)
app.command("report")(report_cmd.report)
app.command("mcp")(mcp_cmd.mcp)


def _fail(message: str, code: int) -> int:
    sys.stderr.write(f"moot: error: {message}\n")
    return code


def main(argv: list[str] | None = None) -> int:
    command = typer.main.get_command(app)
    try:
        rv = command.main(args=argv, prog_name="moot", standalone_mode=False)
    except typer.Abort:
        return _fail("interrupted", 130)
    except KeyboardInterrupt:
        return _fail("interrupted: the debate can be continued with 'moot resume DEBATE_ID' (see 'moot list')", 130)
    except UsageError as e:
        return _fail(str(e), 2)
    except Interrupted as e:
        return _fail(str(e), 130)
    except DebateAborted as e:
        return _fail(str(e), 3)
    except MootError as e:
        return _fail(str(e), 3)
    except BrokenPipeError:
        return 0
    except Exception as e:
        # click's usage errors (typer vendors its own copy of click, so match by shape, not by class)
        if type(e).__name__ == "NoArgsIsHelpError":  # the help text has been printed already
            return 0
        if hasattr(e, "format_message") and getattr(e, "exit_code", None) == 2:
            return _fail(e.format_message().replace("\n", " "), 2)
        raise
    if rv == 130:  # typer turns a KeyboardInterrupt outside a debate into a silent exit 130
        return _fail("interrupted", 130)
    return rv if isinstance(rv, int) else 0


def run() -> None:
    sys.exit(main())
