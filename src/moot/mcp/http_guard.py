"""`moot mcp --http`: a bearer token and a Host/Origin check, as `moot view` has.

The server reads the files a tool call names, sends them to the judges, writes reports and runs the judges
of the judges file it is given (a `command:` judge included). On loopback a Host that is not a loopback name
is refused (DNS rebinding); and anyone who can reach the port could do all of that (another account on the
same machine reaches 127.0.0.1 too), so:

- every request needs `Authorization: Bearer TOKEN` (401 without it). The token is `MOOT_MCP_TOKEN` when
  that is set, else a new one printed once at start. `--no-token` leaves it out on loopback only (a
  single-user machine);
- the Host header must name an allowed host (loopback names, the bound address, and every
  `--allowed-hosts` name, any port; else 421), and an Origin header, when a browser sends one, an http(s)
  origin on one of them (else 403): the SDK's `TransportSecuritySettings` does both checks.
"""

from __future__ import annotations

import hmac
import os
import secrets
from dataclasses import dataclass

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_ENV = "MOOT_MCP_TOKEN"  # noqa: S105 - the variable's name, not a secret
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


@dataclass(frozen=True)
class HttpAccess:
    """Who may talk to the HTTP server: the token it requires (None: none) and the hosts it answers to."""

    token: str | None
    token_from_env: bool
    hosts: tuple[str, ...]

    def security(self) -> TransportSecuritySettings:
        """The SDK's Host and Origin check for these hosts, any port."""
        hosts = [h for name in self.hosts for h in (name, f"{name}:*")]
        origins = [
            o
            for name in self.hosts
            for scheme in ("http", "https")
            for o in (f"{scheme}://{name}", f"{scheme}://{name}:*")
        ]
        return TransportSecuritySettings(allowed_hosts=hosts, allowed_origins=origins)


def http_access(host: str, allowed_hosts: list[str], *, loopback: bool, no_token: bool = False) -> HttpAccess:
    """The access rules for a server bound to `host`: a token (MOOT_MCP_TOKEN, else a new one), on loopback
    too unless `no_token` (loopback only: the caller refuses it elsewhere) and MOOT_MCP_TOKEN is unset."""
    given = os.environ.get(TOKEN_ENV, "").strip()
    token = given or (None if loopback and no_token else secrets.token_urlsafe(24))
    bound = [] if host in ("0.0.0.0", "::") else [f"[{host}]" if ":" in host else host]  # noqa: S104 - a name compared, not bound
    named = [f"[{h}]" if ":" in h and not h.startswith("[") else h for h in allowed_hosts]
    hosts = tuple(dict.fromkeys([*LOOPBACK_NAMES, *bound, *named]))
    return HttpAccess(token=token, token_from_env=bool(given), hosts=hosts)


class BearerToken:
    """ASGI middleware: every HTTP request without the token is answered 401, before the MCP app sees it."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            auth = headers.get("authorization", "")
            given = auth[7:].strip() if auth[:7].lower() == "bearer " else ""
            if not (given and hmac.compare_digest(given.encode(), self.token.encode())):
                body = b"moot mcp: this server needs 'Authorization: Bearer TOKEN' (printed when it started)\n"
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()),
                            (b"www-authenticate", b'Bearer realm="moot"'),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


WARNING = (
    "moot mcp: warning: this server is reachable from other machines. A client with the token can make it read "
    "any file inside its roots and send it to LLM vendors, write report files there, and (with --allow-commands) "
    "run the commands of a judges file it names. Use --allowed-hosts for the names clients reach it by."
)


def banner(host: str, port: int, access: HttpAccess, *, loopback: bool) -> list[str]:
    """What the server says on stderr as it starts: where it listens, the token (unless it came from the
    environment), and off loopback the hosts it answers to and what a client can make it do."""
    shown = f"[{host}]" if ":" in host else host
    where = "this machine only" if loopback else "reachable from other machines"
    lines = [f"moot mcp: serving streamable HTTP at http://{shown}:{port}/mcp ({where}); Ctrl-C stops it"]
    if access.token is not None:
        told = "from MOOT_MCP_TOKEN" if access.token_from_env else access.token
        lines.append(f"moot mcp: token {told}: clients send 'Authorization: Bearer TOKEN'")
    if not loopback:
        lines += [f"moot mcp: answers to hosts {', '.join(access.hosts)} (any port)", WARNING]
    return lines


def serve_http(server: MCPServer, host: str, port: int, access: HttpAccess) -> None:
    """Serve streamable HTTP at /mcp with these access rules (until stopped): the Host and Origin check always
    (on loopback too, whatever loopback address is bound), the token when there is one."""
    import uvicorn

    app: ASGIApp = server.streamable_http_app(host=host, transport_security=access.security())
    if access.token is not None:
        app = BearerToken(app, access.token)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()
