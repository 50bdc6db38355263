"""The `moot` command: the table of sub-commands, and the one place where errors become exit codes.

A sub-command's module is imported only when it runs or shows its help (`moot.cli.group`); a protocol's
command is built from its spec then, importing that protocol alone. `moot`, `moot --help` and
`moot --version` import neither typer nor any command nor any protocol: they are answered from the table
in `moot.cli.commands` (the protocols' lines from the registry), in click's own layout (a test holds the
two to the same text), because typer's import alone takes most of a 150 ms budget.

Exit codes (the README's table): 0 done (a server stopped); 1 a gate failed (`--fail-under`, `--require`); 2
bad input (one line on stderr, no LLM call made; a judge not usable here too); 3 the debate could not reach a
trustworthy end; 130 interrupted (resumable).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from moot.cli.commands import DESCRIPTION, commands, top_help, version_line
from moot.errors import ContextOverflow, DebateAborted, Interrupted, MootError, UsageError

__all__ = ["DESCRIPTION", "commands", "main", "run", "top_help", "version_line"]


def _quick(args: list[str]) -> bool:
    """Answer `moot`, `moot --help` and `moot --version` without typer; False for anything else."""
    if args in ([], ["--help"]):
        sys.stdout.write(top_help())
    elif args == ["--version"]:
        sys.stdout.write(version_line() + "\n")
    else:
        return False
    return True


def _fail(message: str, code: int) -> int:
    """One line on stderr; inert, as a message may quote a server's or a judge's text, and with any secret
    it quotes redacted (a path or an argument the user gave may hold one: `moot.secrets.quoted_safely`)."""
    from moot.schemas.safe_text import safe_text
    from moot.secrets import quoted_safely

    sys.stderr.write(f"moot: error: {safe_text(quoted_safely(message))}\n")
    return code


def _run_group(argv: list[str] | None) -> Any:
    import typer

    from moot.cli.group import app

    try:
        return typer.main.get_command(app).main(args=argv, prog_name="moot", standalone_mode=False)
    except typer.Abort:
        return 130


# what an interruption before a command has started its work says, by command (a debate's own says its id)
_INTERRUPTED = {
    "batch": "interrupted; nothing that completed is lost: run the same command again to continue the batch",
    "bench": "interrupted; nothing that completed is lost: run the same moot bench command again",
}


def _sigterm(signum: int, frame: object) -> None:
    """SIGTERM as Ctrl-C, from the first moment: whatever is loading or planning stops the same way."""
    raise KeyboardInterrupt


def stopped_inside(e: BaseException) -> bool:
    """Whether `e` wraps a stop: Python 3.11 turns a KeyboardInterrupt raised while a class is being built
    (a SIGTERM landing in `__set_name__`, as the stdlib's `ipaddress` runs on import) into a RuntimeError
    whose cause is the interrupt."""
    seen = 0
    inner: BaseException | None = e
    while inner is not None and seen < 20:
        if isinstance(inner, KeyboardInterrupt):
            return True
        inner, seen = inner.__cause__ or inner.__context__, seen + 1
    return False


def main(argv: list[str] | None = None) -> int:
    """The command's exit code. SIGTERM is Ctrl-C from here on (before typer or any command is imported),
    so that a stop in the first moments is exit 130 with the command's own message, not a silent -15."""
    import decimal  # noqa: F401 - `_decimal` cannot be set up twice: loaded before a stop can land in it
    import signal

    if argv is None:  # the `moot` command itself (not a caller's main([...])): every file it creates is 0600
        os.umask(0o077)
    previous = signal.signal(signal.SIGTERM, _sigterm)
    try:
        return _main(sys.argv[1:] if argv is None else list(argv), argv)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main(args: list[str], argv: list[str] | None) -> int:
    if _quick(args):
        return 0
    try:
        rv = _run_group(argv)
    except KeyboardInterrupt:
        default = "interrupted: the debate can be continued with 'moot resume DEBATE_ID' (see 'moot list')"
        return _fail(_INTERRUPTED.get(args[0] if args else "", default), 130)
    except UsageError as e:
        return _fail(str(e), 2)
    except Interrupted as e:
        return _fail(str(e), 130)
    except ContextOverflow as e:
        return _fail(str(e), 4)
    except DebateAborted as e:
        return _fail(str(e), 3)
    except MootError as e:
        return _fail(str(e), 3)
    except BrokenPipeError:
        return 0
    except Exception as e:
        if stopped_inside(e):
            default = "interrupted: the debate can be continued with 'moot resume DEBATE_ID' (see 'moot list')"
            return _fail(_INTERRUPTED.get(args[0] if args else "", default), 130)
        # click's usage errors (typer vendors its own copy of click, so match by shape, not by class)
        if type(e).__name__ == "NoArgsIsHelpError":  # the help text has been printed already
            return 0
        if hasattr(e, "format_message") and getattr(e, "exit_code", None) == 2:
            return _fail(e.format_message().replace("\n", " "), 2)
        raise
    if rv == 130:  # typer turns a KeyboardInterrupt outside a debate into a silent exit 130
        return _fail(_INTERRUPTED.get(args[0] if args else "", "interrupted"), 130)
    return rv if isinstance(rv, int) else 0


def run() -> None:
    sys.exit(main())
