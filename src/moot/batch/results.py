"""RESULTS.jsonl: one line per item as soon as it ends, flushed, so that a batch killed at any moment
leaves every ended item's line on disk (at worst a torn last line, which the next run drops).

    {"id", "debate_id", "status": "done"|"failed", "error"?, "result": <the protocol's --format json object>}

A rerun keeps the lines of the items that are done, writes a done item's line again from the store when
it is missing (the batch was killed between the store and the file), and appends the rest as they end.

Only the run holding the batch's lock (`moot.batch.lock`) writes the file. A writer that finds the file
replaced or removed under it (by hand, or by something that ignores the lock) stops the batch with
`ResultsReplaced` rather than go on appending to a file nobody can read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from moot.errors import UsageError
from moot.render.serialize import json_inert, open_private
from moot.schemas.safe_text import redact_known


class ResultsReplaced(UsageError):
    """The results file is no longer the one this run writes to: the batch stops (exit 2)."""


class ResultsUnwritable(UsageError):
    """The results file (or its folder) cannot be written: bad input, before any call."""


def result_line(
    given_id: str | int, debate_id: str | None, status: str, result: Mapping[str, Any] | None, error: str | None
) -> dict[str, Any]:
    """One item's line: `result` is exactly what `--format json` prints for its debate (null when failed)."""
    line: dict[str, Any] = {"id": given_id, "debate_id": debate_id, "status": status}
    if error:
        line["error"] = error
    line["result"] = dict(result) if result is not None else None
    return line


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """The file's lines that are JSON objects, in order (none when there is no file yet); a line torn by a
    kill is skipped."""
    if not path.is_file():
        return
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            data = json.loads(raw)
        except ValueError:
            continue
        if isinstance(data, dict):
            yield data


def read_done_lines(path: Path, done: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """The existing file's well-formed lines of the done items (`done`: item id -> its debate id), the
    first one of each, in the file's order."""
    kept: dict[str, dict[str, Any]] = {}
    for data in read_lines(path):
        key = str(data.get("id"))
        if data.get("status") == "done" and done.get(key) == data.get("debate_id") and key not in kept:
            kept[key] = data
    return kept


class ResultsFile:
    """The results file of one run of a batch: rewritten with the lines to keep, then appended to."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._out: IO[str] | None = None

    def start(self, lines: Iterable[Mapping[str, Any]]) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open_private(tmp) as f:  # 0600, as the store: the lines hold the verdicts and their reasons
                f.writelines(_dumps(line) for line in lines)
            tmp.replace(self.path)
            self._out = open_private(self.path, "a")
        except OSError as e:
            raise ResultsUnwritable(f"cannot write the results file {self.path}: {e.strerror or e}") from None

    def probe(self) -> None:
        """Raises ResultsUnwritable when the results file could not be written (a read-only folder)."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            open_private(tmp).close()
            tmp.unlink()
            if self.path.exists():
                self.path.open("a", encoding="utf-8").close()
        except OSError as e:
            raise ResultsUnwritable(f"cannot write the results file {self.path}: {e.strerror or e}") from None

    def write(self, line: Mapping[str, Any]) -> None:
        assert self._out is not None, "start() first"
        self.check()
        self._out.write(_dumps(line))
        self._out.flush()

    def check(self) -> None:
        """Raises ResultsReplaced when the path no longer names the file this run appends to."""
        assert self._out is not None
        mine = os.fstat(self._out.fileno())
        try:
            now = self.path.stat()
        except FileNotFoundError:
            now = None
        if now is None or (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
            how = "removed" if now is None else "replaced"
            raise ResultsReplaced(
                f"the results file {self.path} was {how} while the batch ran: stopped; nothing that completed "
                "is lost (it is in the store): run the same command again to write the file afresh"
            )

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None


def _dumps(line: Mapping[str, Any]) -> str:
    """One JSON line, inert at a terminal (`json_inert`: `cat RESULTS.jsonl` runs no judge's escape code),
    with no API key in it."""
    return redact_known(json_inert(json.dumps(line, ensure_ascii=False))) + "\n"
