"""`python -m moot` runs the CLI. SIGTERM is Ctrl-C before anything is imported, and a stop while the CLI
itself loads is exit 130 with one line, as a stop at any later moment is."""

import decimal  # noqa: F401 - see below
import signal
import sys

# `_decimal` (which pydantic imports) cannot be set up twice in one process: a stop landing inside its first
# import makes the next one print a C warning (mpd_setminalloc) beside moot's one line. Loaded before any
# stop is moot's to answer (about 1 ms), as the CLI's `main` does.


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _stopped(e: BaseException) -> bool:
    """A stop, or an error wrapping one (3.11 wraps an interrupt raised while a class is built)."""
    inner: BaseException | None = e
    for _ in range(20):
        if inner is None or isinstance(inner, KeyboardInterrupt):
            return inner is not None
        inner = inner.__cause__ or inner.__context__
    return False


signal.signal(signal.SIGTERM, _stop)
try:
    from moot.cli.app import main
except (KeyboardInterrupt, Exception) as e:
    if not _stopped(e):
        raise
    sys.stderr.write("moot: error: interrupted before anything started: run the same command again to continue\n")
    sys.exit(130)

code = main()
# CPython (3.11, 3.12) remembers a KeyboardInterrupt that ended any `exec` of a string (dataclasses and
# typing build methods that way while typer loads), even one moot caught and answered with exit 130;
# under `-m` it then kills the process with SIGINT instead of exiting with the code. An `exec` of a string
# that ends normally clears that memory.
exec("None")  # noqa: S102 - a constant, see above
sys.exit(code)
