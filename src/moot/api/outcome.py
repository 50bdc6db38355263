"""What a debate's end owes its caller, stored with the debate when it starts: its gate (`--require`,
`--fail-under`, the MCP tools' `require` and `fail_under`), its HTML report (`--html`, `html`) and the
format its result is printed in (`--format`, with the command's own flags for the protocol's `show`).

A debate with host seats ends in another process than the one that started it (the last `moot reply`,
the last `submit_replies`). What was asked at the start is kept beside its request (`run_finish`, as the
budget is: request models ignore the extra key), and the door that receives the final reply applies it, so
the debate ends with the same outputs and the same exit code as the one-shot run. Until then a gated run
is not a pass: the CLI exits `WAITING_EXIT`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from moot.store.db import Store

FINISH_KEY = "run_finish"
# the CLI's exit code for a gated command whose debate waits on a host seat: the gate is not applied yet (never
# 0, which a script reads as a pass; not 1, which says the verdict fell short; not 2 or 3, which say it failed)
WAITING_EXIT = 5


@dataclass(frozen=True)
class Finish:
    """A debate's gate and outputs, as given when it started."""

    require: str | None = None
    fail_under: float | None = None
    html: str | None = None
    fmt: str | None = None  # the CLI's --format (None: the door's default)
    show: dict[str, bool] = field(default_factory=dict)  # the command's own flags, for the protocol's show

    @property
    def gated(self) -> bool:
        return self.require is not None or self.fail_under is not None

    def stored(self) -> dict[str, Any]:
        """What to keep beside the request: nothing when nothing was asked."""
        data = {k: v for k, v in asdict(self).items() if v not in (None, {})}
        return {FINISH_KEY: data} if data else {}


def show_options(values: Mapping[str, Any]) -> dict[str, bool]:
    """A command's own flags (`--no-input`), what its `show` hook may read. Only flags: a text option (a
    task, a topic) may hold a secret that `--redact-secrets` withheld from the stored request."""
    return {k: v for k, v in values.items() if isinstance(v, bool)}


def stored_finish(request: Mapping[str, Any]) -> Finish:
    """The gate and outputs a stored request was started with (none for a debate without, or an older one)."""
    data = request.get(FINISH_KEY)
    if not isinstance(data, Mapping):
        return Finish()
    fail_under = data.get("fail_under")
    show = data.get("show")
    return Finish(
        require=str(data["require"]) if isinstance(data.get("require"), str) else None,
        fail_under=float(fail_under)
        if isinstance(fail_under, int | float) and not isinstance(fail_under, bool)
        else None,
        html=str(data["html"]) if isinstance(data.get("html"), str) else None,
        fmt=str(data["fmt"]) if isinstance(data.get("fmt"), str) else None,
        show={str(k): v for k, v in show.items() if isinstance(v, bool)} if isinstance(show, Mapping) else {},
    )


def debate_finish(debate_id: str, store: Store | None = None) -> Finish:
    """The gate and outputs the stored debate was started with."""
    return stored_finish((store or Store.open_default()).require_debate(debate_id).request)


__all__ = ["FINISH_KEY", "WAITING_EXIT", "Finish", "debate_finish", "show_options", "stored_finish"]
