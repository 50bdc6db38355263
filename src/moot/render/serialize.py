"""JSON and YAML forms of any result model (what `--format json|yaml` prints).

Writing report files safely: atomic replace, so a kill never leaves a half-written report.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import IO, Any

import yaml
from pydantic import BaseModel

from moot.access import check_write, wrote


def atomic_write(path: Path, text: str) -> None:
    """Write `text` to `path` whole (a kill never leaves half a file), where the caller may write
    (`moot.access`: inside the MCP server's roots, and over no file moot did not write)."""
    check_write(path)
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
    wrote(path)


def open_private(path: Path, mode: str = "w") -> IO[str]:
    """`path` opened for text ("w" truncates, "a" appends), created 0600 when new: readable by its owner only,
    as the store and the reports are (`mkstemp` makes those of `atomic_write` so), since what moot writes
    holds what the judges were sent and said."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else os.O_TRUNC)
    return os.fdopen(os.open(path, flags, 0o600), mode, encoding="utf-8")


def atomic_append(path: Path, text: str) -> None:
    """Append `text`: earlier content stays byte for byte; the file is swapped in whole."""
    check_write(path)  # before reading what is there
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


def to_data(result: BaseModel | dict[str, Any]) -> dict[str, Any]:
    return result.model_dump(mode="json") if isinstance(result, BaseModel) else result


# json.dumps escapes C0 controls but writes DEL, C1 controls and lone surrogates as they are
_RAW = re.compile("[\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")  # and bidi controls


def json_inert(text: str) -> str:
    """JSON text that is inert at a terminal and in a CI log, with the same value: DEL, C1 controls, lone
    surrogates and bidirectional controls written as `\\uXXXX`, and `##[` (an old-style GitHub workflow
    command anywhere in a line) as `\\u0023#[`. JSON has `#` only inside strings, so this never touches its
    structure."""
    text = _RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.replace("##[", "\\u0023#[")


def to_json(result: BaseModel | dict[str, Any]) -> str:
    return json_inert(json.dumps(to_data(result), indent=2, ensure_ascii=False)) + "\n"


class _Dumper(yaml.SafeDumper):
    pass


def _str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_presenter)


def to_yaml(result: BaseModel | dict[str, Any]) -> str:
    return yaml.dump(to_data(result), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
