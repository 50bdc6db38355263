"""Where another machine can reach a server bound to every address (`--host 0.0.0.0` or `::`): the URL
`http://0.0.0.0:PORT/` names no machine, so `moot view` prints one URL per address of this one instead.

Found with the standard library, sending nothing: the address of the default route (a UDP socket's
`connect()` only picks the source address; no packet leaves), then the addresses this machine's own name
resolves to. Loopback and link-local addresses are left out (another machine cannot use them); with
none left, the machine's name is printed."""

from __future__ import annotations

import ipaddress
import socket

# documentation addresses (RFC 5737, RFC 3849): connecting a UDP socket to one only consults the routes
_ROUTE_PROBE = {socket.AF_INET: "192.0.2.1", socket.AF_INET6: "2001:db8::1"}


def reachable_hosts(host: str) -> list[str]:
    """`host` itself, unless it is a wildcard address: then this machine's addresses that another machine
    can reach (the default route's first), or this machine's name when none is found."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return [host]
    if not ip.is_unspecified:
        return [host]
    family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    found: list[str] = []
    for address in [*_route_address(family), *_own_name_addresses(family)]:
        if _reachable(address) and address not in found:
            found.append(address)
    return found or [socket.gethostname()]  # no address found: the machine's name, which a network may resolve


def _route_address(family: socket.AddressFamily) -> list[str]:
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        try:
            s.connect((_ROUTE_PROBE[family], 9))
        except OSError:  # no route at all: an offline machine
            return []
        return [str(s.getsockname()[0])]


def _own_name_addresses(family: socket.AddressFamily) -> list[str]:
    out: list[str] = []
    for name in dict.fromkeys([socket.gethostname(), socket.getfqdn()]):
        try:
            out += [str(info[4][0]) for info in socket.getaddrinfo(name, None, family, socket.SOCK_STREAM)]
        except OSError:
            continue
    return out


def _reachable(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_unspecified)


def url_host(host: str) -> str:
    """A host as a URL writes it: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host else host
