"""The files an MCP server wrote, remembered across restarts, so that it may write them again.

Over MCP moot never replaces a file it did not write (`moot.access`). A decision's files, rewritten when
the same question is decided again, were written by an earlier server: each file moot writes is recorded
in `$MOOT_HOME/mcp-written.json` (mode 0600) with the SHA-256 of what it wrote, and counts as moot's only
while its content is still exactly that. A file someone edited since is theirs again.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from moot.store.connection import moot_home

RECORD = "mcp-written.json"
MOST = 5000  # the newest entries kept: an old report is rarely written again


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class WrittenFiles:
    """Real path -> the hash of what moot wrote there; a `moot.access.WriteRecord`."""

    def __init__(self, record: Path | None = None) -> None:
        self.record = record or moot_home() / RECORD

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, Path):
            return False
        recorded = self._load().get(str(path))
        return recorded is not None and recorded == _digest(path)

    def add(self, path: Path) -> None:
        digest = _digest(path)
        if digest is None:
            return
        entries = self._load()
        entries.pop(str(path), None)
        entries[str(path)] = digest  # newest last
        kept = dict(list(entries.items())[-MOST:])
        self.record.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=self.record.parent, prefix=".mcp-written.", suffix=".tmp")  # 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(kept, f, indent=0)
            Path(tmp).replace(self.record)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
