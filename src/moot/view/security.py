"""What every response of `moot view` goes through, before any page is looked at:

- the token (Jupyter's way: printed in the URL once, then kept in an HTTP-only cookie); without it every
  route answers 401. On loopback too: another account on the same machine can reach 127.0.0.1, and the
  store holds every prompt sent. `moot view --no-token` leaves it out on loopback (a single-user machine);
  tokens are compared as bytes, so any text given is a wrong token, never an error;
- the Host header, when it listens on loopback only: a page of another site that rebinds its name to
  127.0.0.1 (DNS rebinding) is refused;
- GET and HEAD only: the viewer changes nothing;
- headers that keep the pages inert: a Content-Security-Policy that runs only moot's own script file,
  no framing, no sniffing, no Referer (the token never leaves in one).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import time
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
]
COOKIE = "moot_view_token"


def new_token() -> str:
    return secrets.token_urlsafe(24)


def is_loopback(host: str) -> bool:
    """Exactly `localhost`, or an IP literal (`[::1]` bracketed or not) that `ipaddress` calls loopback: a name
    such as `127.0.0.1.attacker.example` is not one, whatever it starts with."""
    if host == "localhost":
        return True
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def _host_name(header: str) -> str:
    """`127.0.0.1:7777` -> `127.0.0.1`; `[::1]:7777` -> `[::1]`."""
    if header.startswith("["):
        return header.split("]", 1)[0] + "]"
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class Guard:
    """The ASGI middleware doing all of the above around the viewer's app."""

    def __init__(self, app: ASGIApp, *, token: str | None, loopback_only: bool) -> None:
        self.app, self.token, self.loopback_only = app, token, loopback_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if self.loopback_only and not is_loopback(_host_name(headers.get("host", "127.0.0.1"))):
            await _plain(send, 403, "moot view answers only to its loopback address")
            return
        given = self._given_token(scope, headers)
        if self.token is not None and not (given and hmac.compare_digest(given.encode(), self.token.encode())):
            await _plain(send, 401, "moot view: this page needs the token printed when `moot view` started")
            return
        if scope["method"] not in ("GET", "HEAD"):
            await _plain(send, 405, "moot view is read-only")
            return
        from_query = self.token is not None and given == _query_token(scope)
        started = time.perf_counter()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                spent = (time.perf_counter() - started) * 1000  # the page built: what benchmarks/bench_view.py reads
                extra = [*HEADERS, (b"server-timing", f"app;dur={spent:.2f}".encode())]
                if from_query:
                    extra.append((b"set-cookie", f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/".encode()))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _given_token(self, scope: Scope, headers: dict[str, str]) -> str:
        if self.token is None:
            return ""
        auth = headers.get("authorization", "")
        if auth.lower().startswith("token "):
            return auth[6:].strip()
        in_query = _query_token(scope)
        if in_query:
            return in_query
        cookie: SimpleCookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # a malformed cookie header is no token
            return ""
        morsel = cookie.get(COOKIE)
        return morsel.value if morsel is not None else ""


def _query_token(scope: Scope) -> str:
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [])
    return values[0] if values else ""


async def _plain(send: Send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + HEADERS})
    await send({"type": "http.response.body", "body": body})
