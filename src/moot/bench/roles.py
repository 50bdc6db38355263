"""Which protocol runs a suite: the one whose SPEC says it judges that kind of item (`bench.kind`), found
through the registry, so that the bench names no protocol and a protocol package can take a role."""

from __future__ import annotations

from moot.errors import UsageError
from moot.protocol.spec import BenchRole, ProtocolSpec
from moot.protocols import specs


def bench_spec(kind: str) -> ProtocolSpec:
    """The first protocol (in the registry's order) that judges `kind` items ("pairwise" or "scored").
    Multiple-choice items ("choice") go to the protocol that judges pairs: it chooses among N options."""
    kind = "pairwise" if kind == "choice" else kind
    for spec in specs():
        if spec.bench is not None and spec.bench.kind == kind:
            return spec
    raise UsageError(f"no protocol judges {kind} items (none says so in its SPEC's bench role)")


def bench_role(kind: str) -> BenchRole:
    role = bench_spec(kind).bench
    assert role is not None  # bench_spec returns only a spec with a role
    return role
