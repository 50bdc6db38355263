"""Reading what the user points at: artifact files, judges files, rubric files. The edge where bad input
becomes a one-line `UsageError`, before any judge is built or called."""

from __future__ import annotations

import glob
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import ValidationError

from moot.access import check_read
from moot.errors import UsageError
from moot.schemas.config import Artifact

MAX_ARTIFACT_BYTES = 2_000_000
# the most files one input may name (its globs and folders together), checked before any is read; the
# tokens they hold are capped after reading (`moot.protocol.prepared.DEFAULT_MAX_INPUT_TOKENS`)
MAX_INPUT_FILES = 5_000
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".ruff_cache", ".specs"}
T = TypeVar("T")


def file_kind(path: Path) -> str | None:
    """What a path that exists but is no regular file is, in words ("a folder", "a FIFO"...); None for a file.
    Reading a FIFO would wait forever for a writer, so it is named and refused instead."""
    if path.is_file():
        return None
    if path.is_dir():
        return "a folder"
    if path.is_fifo():
        return "a FIFO (named pipe)"
    if path.is_socket():
        return "a socket"
    if path.is_char_device() or path.is_block_device():
        return "a device"
    return "not a regular file"


def encoding_problem(data: bytes) -> str | None:
    """Why these bytes are not UTF-8 text a person meant: UTF-16 or UTF-32 (a Windows editor's "Unicode"),
    or binary; None when they may be UTF-8."""
    head = data[:8192]
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32 text, not UTF-8: save it as UTF-8"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16 text, not UTF-8: save it as UTF-8"
    if b"\0" in head:
        pairs = head[: len(head) - len(head) % 2]
        if pairs and (pairs[1::2].count(0) > len(pairs) * 0.4 or pairs[0::2].count(0) > len(pairs) * 0.4):
            return "UTF-16 text (no byte-order mark), not UTF-8: save it as UTF-8"
        return "a binary file, not text"
    return None


def read_text_file(path: Path, what: str) -> str:
    """A UTF-8 text file the user named as `what` ("items file", "gold file"), with one-line errors that say
    what the path is when it is not that: missing, a folder, a FIFO, UTF-16, unreadable."""
    check_read(path)
    if not path.exists():
        raise UsageError(f"no such {what}: {path}")
    kind = file_kind(path)
    if kind:
        raise UsageError(f"{what} {path} is {kind}, not a file")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {what} {path}: {e.strerror or e}") from None
    problem = encoding_problem(data)
    if problem:
        raise UsageError(f"{what} {path} is {problem}")
    try:
        return data.decode("utf-8-sig")  # a byte-order mark is not part of line 1
    except UnicodeDecodeError as e:
        raise UsageError(f"{what} {path} is not UTF-8 text (byte {e.start + 1} is invalid)") from None


def _read_text(path: Path) -> str:
    check_read(path)
    kind = file_kind(path)
    if kind:
        raise UsageError(f"{path} is {kind}, not a file")
    try:
        data = path.read_bytes()
    except PermissionError:
        raise UsageError(f"cannot read {path}: permission denied") from None
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror}") from None
    problem = encoding_problem(data)
    if problem:
        raise UsageError(f"{path} is {problem}")
    if len(data) > MAX_ARTIFACT_BYTES:
        raise UsageError(f"{path} is larger than {MAX_ARTIFACT_BYTES // 1_000_000} MB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text") from None


def _files_under(folder: Path) -> list[Path]:
    """A folder's files, without tool folders (`.git`, `node_modules`, ...) and dot-files, except a dot-file
    that holds credentials (`.env`, `.netrc`, `.aws/credentials`, `.npmrc` with a token): that one is listed,
    so that the screen for secrets refuses the debate (or, with `--redact-secrets`, withholds it) instead of
    the folder's secrets passing unremarked."""
    out = []
    for p in sorted(folder.rglob("*")):
        parts = p.relative_to(folder).parts
        if any(part in _SKIP_DIRS for part in parts) or not p.is_file():
            continue
        if any(part.startswith(".") for part in parts) and not _credential_file(p, parts):
            continue
        out.append(p)
    return out


def _credential_file(path: Path, parts: tuple[str, ...]) -> bool:
    from moot.secrets import credential_file_kind

    if credential_file_kind("/".join(parts)) is not None:
        return True
    if path.name.lower() not in (".npmrc", ".pypirc"):
        return False
    try:  # these two hold credentials only with a token or password in them
        return credential_file_kind("/".join(parts), path.read_text(encoding="utf-8", errors="replace")) is not None
    except OSError:
        return False


def load_artifacts(specs: list[str]) -> list[Artifact]:
    """Each spec is a file, a folder (its text files, recursively) or a glob. Every named file must be
    readable text; a folder's binary files are skipped."""
    if not specs:
        raise UsageError("no artifact given (use --solution PATH)")
    artifacts: list[Artifact] = []
    seen: set[Path] = set()
    named = 0
    for spec in specs:
        path = Path(spec)
        if not any(ch in spec for ch in "*?["):
            check_read(path)  # a folder or file outside what the caller may read is not even listed
        if any(ch in spec for ch in "*?["):
            found = glob.glob(spec, recursive=True)  # noqa: PTH207 - user globs may be absolute or use **
            matches = [Path(m) for m in sorted(found) if Path(m).is_file()]
            if not matches:
                raise UsageError(f"no file matches {spec}")
            files, strict = matches, True
        elif path.is_dir():
            files, strict = _files_under(path), False
            if not files:
                raise UsageError(f"folder {spec} holds no files")
        elif path.exists():
            files, strict = [path], True
        else:
            raise UsageError(f"no such file: {spec}")
        named += len(files)
        if named > MAX_INPUT_FILES:
            raise UsageError(
                f"{', '.join(specs)} name more than {MAX_INPUT_FILES:,} files: name fewer (a narrower glob or folder)"
            )
        for f in files:
            check_read(f)  # a link inside a folder may point anywhere: refused, not skipped
            resolved = f.resolve()
            if resolved in seen:
                continue
            try:
                text = _read_text(f)
            except UsageError:
                if strict:
                    raise
                continue
            seen.add(resolved)
            artifacts.append(Artifact(path=str(f), text=text))
    if not artifacts:
        raise UsageError("no readable text files among " + ", ".join(specs))
    return artifacts


def load_yaml_file(path: str | Path, what: str) -> Any:
    p = Path(path)
    check_read(p)
    if not p.exists():
        raise UsageError(f"{what} {path} does not exist")
    if p.is_dir():
        raise UsageError(f"{what} {path} is a folder, not a file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read {what} {path}: {e}") from None
    return parse_yaml(text, path, what)


def parse_yaml(text: str, path: str | Path, what: str) -> Any:
    """YAML text read from `path` (named in the error): one line naming the problem when it is not YAML."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise UsageError(f"{what} {path} is not valid YAML{where}: {problem}") from None


def validation_message(e: ValidationError, where: str) -> str:
    """One line naming the first problem pydantic found."""
    err = e.errors()[0]
    loc = ".".join(str(x) for x in err["loc"] if x != "__root__")
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = "unknown key"
    return f"{where}: {loc + ': ' if loc else ''}{msg}"


def numbered_items(
    lines: Iterable[str],
    parse: Callable[[str, int], T],
    *,
    id_of: Callable[[T], str | int],
    where: Callable[[int], str],
    empty: str,
) -> list[T]:
    """The items of a JSONL file (batch items, bench gold items), each non-blank line read by
    `parse(line, n)`, n counting from 1. An id used twice is bad input naming both lines (`where(n)` names
    line n as its file's messages do); so is a file of no items (`empty` says so)."""
    items: list[T] = []
    first_line: dict[str, int] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        item = parse(line, n)
        given = id_of(item)
        if str(given) in first_line:
            raise UsageError(f"{where(n)}: id {given!r} is already used on line {first_line[str(given)]}")
        first_line[str(given)] = n
        items.append(item)
    if not items:
        raise UsageError(empty)
    return items
