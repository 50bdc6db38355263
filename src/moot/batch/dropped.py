"""Items whose debate went on without a judge: `degraded`, reported apart from `done`, and asked again.

A judge is dropped when its call fails for good. When the failure was the vendor's transport (a 5xx, a
429 past its retries, a refused or reset connection, a timeout), the vendor may be back by the next run:
`moot batch` then resumes the item's finished debate (`--retry-dropped`, the default), which replays
every answered call from the store and asks the failed ones again, so the verdict can rest on the whole
panel. A judge dropped for a failure of its own (a 400, bad credentials) stays dropped: asking again would
fail the same way. Either way the item is `degraded` until no call of its debate has failed.
"""

from __future__ import annotations

from collections.abc import Sequence

from moot.store.batches import FailedCall

# the engine's words for transport failures (moot.judges.wire_errors, the engine's own timeout)
_TRANSPORT = ("server error (", "rate limited (", "connection failed", "no reply within", "transient error")


def from_outage(call: FailedCall) -> bool:
    """Whether the call failed on the way to or from the vendor, not for a reason of the request's own."""
    return call.status == "timeout" or any(mark in call.error for mark in _TRANSPORT)


def retry_worthy(calls: Sequence[FailedCall]) -> bool:
    return any(from_outage(c) for c in calls)
