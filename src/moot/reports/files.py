"""Writing report files safely: atomic replace, so a kill never leaves a half-written report."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_append(path: Path, text: str) -> None:
    """Append `text`: earlier content stays byte for byte; the file is swapped in whole."""
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    atomic_write(path, before + text)


def fence(text: str, lang: str = "") -> str:
    """A Markdown code fence long enough that nothing inside `text` can close it."""
    longest = 2
    run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    ticks = "`" * (longest + 1)
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"
