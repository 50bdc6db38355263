"""Reading what the user points at: artifact files, judges files, rubric files. The edge where bad input
becomes a one-line `UsageError`, before any judge is built or called."""

from __future__ import annotations

import glob
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import ValidationError

from moot.access import check_read, current, link_out_of, never_read
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
    special = never_read(path)
    if special:
        raise UsageError(f"{path} is {special}: never read as an artifact")
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
    the folder's secrets passing unremarked. A link that leads out of the folder is listed as a link."""
    out = []
    for p in sorted(folder.rglob("*")):
        parts = p.relative_to(folder).parts
        if any(part in _SKIP_DIRS for part in parts) or not (p.is_file() or p.is_symlink()):
            continue
        leaves = link_out_of(p, folder) is not None
        if leaves and not p.is_symlink():
            continue  # reached through a linked folder: rglob does not descend into those
        hidden = any(part.startswith(".") for part in parts)
        if hidden and (leaves or not _credential_file(p, parts)):
            continue
        if leaves or p.is_file():
            out.append(p)
    return out


def _credential_file(path: Path, parts: tuple[str, ...]) -> bool:
    from moot.schemas.key_shapes import NAMES_KNOWN_BY_CONTENT, credential_file_kind

    if credential_file_kind("/".join(parts)) is not None:
        return True
    if path.name.lower() not in NAMES_KNOWN_BY_CONTENT:
        return False
    try:  # these hold credentials only with a token, a password or a registry's auth in them
        return credential_file_kind("/".join(parts), path.read_text(encoding="utf-8", errors="replace")) is not None
    except OSError:
        return False


def glob_folder(spec: str) -> Path:
    """The fixed part of a glob, before its first wildcard (`src/**/*.py` -> `src`): the folder it reads."""
    fixed: list[str] = []
    for part in Path(spec).parts:
        if any(ch in part for ch in "*?["):
            break
        fixed.append(part)
    return Path(*fixed) if fixed else Path()


def _globbed(spec: str) -> list[Path]:
    """A glob's files. Over MCP its fixed part must be inside the roots before it expands, and no match may
    lead outside them: the refusal names the glob, never a match (which would say what exists there)."""
    folders = current()
    if folders is not None and not folders.inside(glob_folder(spec)):
        raise folders.refusal(spec, "read")
    found = [Path(m) for m in sorted(glob.glob(spec, recursive=True))]  # noqa: PTH207 - user globs may use **
    top = glob_folder(spec)
    matches = [m for m in found if m.is_file() or (m.is_symlink() and link_out_of(m, top) is not None)]
    if folders is not None and not all(folders.inside(m) for m in matches):
        raise folders.refusal(spec, "read", "one of its matches is")
    if not matches:
        raise UsageError(f"no file matches {spec}")
    return matches


def _files_of(spec: str) -> tuple[list[Path], Path | None, bool]:
    """What one spec names: its files, the folder they were found by reading (None: a file named itself), and
    whether each must be readable text (a folder's binary files are skipped instead)."""
    path = Path(spec)
    if any(ch in spec for ch in "*?["):
        return _globbed(spec), glob_folder(spec), True
    check_read(path)  # a folder or file outside what the caller may read is not even listed
    if path.is_dir():
        files = _files_under(path)
        if not files:
            raise UsageError(f"folder {spec} holds no files")
        return files, path, False
    if path.exists():
        return [path], None, True
    raise UsageError(f"no such file: {spec}")


LINK_NOTE = "(a symbolic link to {target}, which leads out of {folder}: not followed, its content is not sent)"


def _link_artifact(f: Path, folder: Path | None) -> Artifact | None:
    """A file found by reading a folder (or a glob's fixed folder) that is a link out of it: shown to the
    judges as a link, with its target's name, and said on stderr; None for any other file."""
    target = link_out_of(f, folder) if folder is not None else None
    if target is None:
        return None
    shown = str(folder) if str(folder) not in ("", ".") else "the working folder"
    print(f"moot: {f} is a symbolic link to {target}, outside {shown}: not followed", file=sys.stderr)  # noqa: T201
    return Artifact(path=str(f), text=LINK_NOTE.format(target=target, folder=shown))


def load_artifacts(specs: list[str]) -> list[Artifact]:
    """Each spec is a file, a folder (its text files, recursively) or a glob. Every named file must be
    readable text; a folder's binary files are skipped. A link found in a folder or by a glob that leads out
    of it is not followed, and nothing in /proc, /sys or /dev, nor a device, is ever read (`moot.access`)."""
    if not specs:
        raise UsageError("no artifact given (use --solution PATH)")
    artifacts: list[Artifact] = []
    seen: set[Path] = set()
    named = 0
    for spec in specs:
        files, folder, strict = _files_of(spec)
        named += len(files)
        if named > MAX_INPUT_FILES:
            raise UsageError(
                f"{', '.join(specs)} name more than {MAX_INPUT_FILES:,} files: name fewer (a narrower glob or folder)"
            )
        for f in files:
            check_read(f)  # a link inside a folder may point anywhere: refused, not skipped
            link = _link_artifact(f, folder)
            if link is not None:
                artifacts.append(link)
                continue
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
