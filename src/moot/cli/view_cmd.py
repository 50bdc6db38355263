"""`moot view`: serve every debate, batch and bench of the store ($MOOT_HOME) as a read-only web app."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from moot.cli.addresses import reachable_hosts, url_host
from moot.cli.mcp_cmd import check_host, loopback_host
from moot.cli.serving import until_stopped
from moot.errors import MissingExtra, UsageError


def view(
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 7777,
    host: Annotated[
        str,
        typer.Option(
            help="Address to bind (default 127.0.0.1: this machine only); the printed token is asked on every one."
        ),
    ] = "127.0.0.1",
    open_browser: Annotated[
        bool | None, typer.Option("--open/--no-open", help="Open a browser (default: when run at a terminal).")
    ] = None,
    no_token: Annotated[
        bool,
        typer.Option(
            "--no-token",
            help="On a loopback address, serve without a token (a single-user machine: any local account can read).",
        ),
    ] = False,
) -> None:
    """Browse every debate, batch and bench of the store in a web browser, live while they run (read-only).

    It runs until stopped: Ctrl-C or SIGTERM ends it with `moot view: stopped` and exit 0."""
    check_host(host)
    check_no_token(host, no_token)
    until_stopped("moot view", lambda: _serve(host, port, open_browser, no_token))


def check_no_token(host: str, no_token: bool) -> None:
    """`--no-token` is for this machine only: off loopback anyone who reaches the port would read the store."""
    if no_token and not loopback_host(host):
        raise UsageError(f"--no-token is allowed only on a loopback address (got --host {host})")


def _serve(host: str, port: int, open_browser: bool | None, no_token: bool = False) -> None:
    try:  # the app first: a core install lacks both, and view.md says it names starlette
        from moot.view.app import create_app
    except ImportError as e:
        raise _missing(e) from None
    try:
        import uvicorn
    except ImportError as e:
        raise _missing(e) from None
    from moot.store.db import default_db_path
    from moot.view.security import is_loopback

    home = default_db_path().parent
    url, token = address(host, port, no_token=no_token)
    app = create_app(home, token=token, loopback_only=is_loopback(host))
    # bound to every address (0.0.0.0, ::), the URL is printed once per address another machine can reach
    urls = [url.replace(f"//{url_host(host)}:", f"//{url_host(h)}:", 1) for h in reachable_hosts(host)]
    url = urls[0]
    sys.stdout.write(f"moot view: {home / 'moot.db'} (read-only)\n" + "".join(f"  {u}\n" for u in urls))
    sys.stdout.flush()
    if open_browser if open_browser is not None else sys.stdout.isatty():
        import webbrowser

        webbrowser.open(url)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    uvicorn.Server(config).run()


def _missing(e: ImportError) -> Exception:
    """The view extra's package that is missing, or the error itself when it is something else."""
    for name in ("starlette", "uvicorn"):
        if name in str(e):
            return MissingExtra(name, "view")
    return e


def address(host: str, port: int, *, no_token: bool = False) -> tuple[str, str | None]:
    """The URL to print and the token it carries: a new one every start, on loopback too, unless `no_token`
    (loopback only: checked by `check_no_token`)."""
    from moot.view.security import new_token

    token = None if no_token else new_token()
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/debates" + (f"?token={token}" if token else ""), token
