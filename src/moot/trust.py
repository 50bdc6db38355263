"""Which project files (`moot.yaml`) the user has trusted with `moot trust`, by content hash.

A project file is found, not given: cloning a repository puts one in the user's path. One that can run a
program (a `command:` or `cli:` judge) or send a key to a server it names (a custom `api_base` with an
`api_key_env`) is used only once the user has trusted that very content: the file's real path and the
SHA-256 of its bytes are kept in `$MOOT_HOME/trusted.json` (mode 0600); any edit needs trusting again.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from moot.errors import UsageError
from moot.schemas.config import JudgeSpec
from moot.store.connection import moot_home

TRUST_FILE = "trusted.json"


def trust_path() -> Path:
    return moot_home() / TRUST_FILE


def content_hash(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None


def load_trusted() -> dict[str, dict[str, Any]]:
    """Real path -> {sha256, trusted_at}; an unreadable or damaged record trusts nothing."""
    try:
        data = json.loads(trust_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict) and isinstance(v.get("sha256"), str)}


def _save(entries: dict[str, dict[str, Any]]) -> None:
    target = trust_path()
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".trusted.", suffix=".tmp")  # created 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(entries, f, indent=1, sort_keys=True)
        Path(tmp).replace(target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def trust(path: Path) -> str:
    """Record the file's present content as trusted; returns its hash."""
    real = Path(os.path.realpath(path))
    digest = content_hash(real)
    entries = load_trusted()
    entries[str(real)] = {"sha256": digest, "trusted_at": datetime.now(UTC).isoformat(timespec="seconds")}
    _save(entries)
    return digest


def trust_state(path: Path) -> str:
    """The file's state: trusted, changed (trusted once, edited since) or untrusted."""
    real = Path(os.path.realpath(path))
    entry = load_trusted().get(str(real))
    if entry is None:
        return "untrusted"
    return "trusted" if entry["sha256"] == content_hash(real) else "changed"


def needs_trust(specs: list[JudgeSpec]) -> str | None:
    """Why a file holding these judges may be used only once trusted, or None when it needs no trust."""
    for spec in specs:
        if spec.command or spec.cli:
            return f"judge '{spec.label}' runs a program ({'command' if spec.command else 'cli'}:)"
        if spec.api_base and spec.api_key_env:
            return f"judge '{spec.label}' sends {spec.api_key_env} to {spec.api_base}"
    return None
