"""Where moot may read and write files for the caller at hand: everywhere (the CLI, the Python API), or only
inside a few folders (a tool call of the MCP server, which an LLM reading untrusted text drives).

The rule is a context variable, set for the length of one tool call (`confined`), and consulted where moot
opens a file it was pointed at (`moot.inputs`, scripted judges) and where it writes one
(`moot.render.serialize.atomic_write`). Outside a call nothing is checked: a person typing a path is
trusted. Paths are compared by their real path (`os.path.realpath`: symlinks and `..` resolved), so a link
inside a root that points outside it is outside.

Writes are held to more: never through a symlink, and never over a file moot did not write (one it wrote
in this process, or an HTML report carrying moot's generator tag), so a tool call can neither plant a file
where code is loaded from nor change another file's mode.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from moot.errors import UsageError

# what every HTML report moot renders carries in its head (reports/templates/*.html.j2)
GENERATOR_TAG = b'<meta name="generator" content="moot">'


def real(path: str | Path) -> Path:
    """The path with every symlink and `..` resolved, as far as it exists (the rest appended as written)."""
    return Path(os.path.realpath(Path(path).expanduser()))


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


class WriteRecord(Protocol):
    """The files moot wrote for a caller, which it may write again (a set of real paths will do)."""

    def __contains__(self, path: object) -> bool: ...

    def add(self, path: Path) -> None: ...


@dataclass
class Folders:
    """The folders a caller may read and write in (each a real path), and the files written for it."""

    roots: tuple[Path, ...]
    written: WriteRecord = field(default_factory=lambda: set[Path]())  # the files moot wrote: it may replace them
    allow_commands: bool = False  # a judges file the caller names may hold `command:` and `cli:` judges
    # ... and may send a key to a server it names, or a variable that is not a vendor's key moot knows
    allow_key_servers: bool = False

    @classmethod
    def of(
        cls,
        roots: Sequence[str | Path],
        written: WriteRecord | None = None,
        *,
        allow_commands: bool = False,
        allow_key_servers: bool = False,
    ) -> Folders:
        unique = tuple(dict.fromkeys(real(r) for r in roots))
        return cls(unique, written if written is not None else set[Path](), allow_commands, allow_key_servers)

    def inside(self, path: str | Path) -> bool:
        target = real(path)
        return any(_within(target, root) for root in self.roots)

    def _refuse(self, path: str | Path, doing: str) -> UsageError:
        shown = ", ".join(str(r) for r in self.roots) or "none"
        return UsageError(
            f"refused to {doing} {path}: outside the MCP server's roots ({shown}); "
            "a client's roots or `moot mcp --root DIR` add one"
        )

    def check_read(self, path: str | Path) -> None:
        if not self.inside(path):
            raise self._refuse(path, "read")

    def check_folder(self, path: str | Path) -> None:
        """A folder files will be written into must be inside a root (a link out of one is outside)."""
        if not self.inside(path):
            raise self._refuse(path, "write in")

    def check_write(self, path: str | Path) -> None:
        """A file may be written where its folder is inside a root, not through a link, and not over a file
        moot did not write."""
        p = Path(path)
        if not self.inside(p.parent) or not self.inside(p):
            raise self._refuse(path, "write")
        if p.is_symlink():
            raise UsageError(f"refused to write {path}: it is a symbolic link")
        if p.exists() and real(p) not in self.written and not _moot_report(p):
            raise UsageError(f"refused to write {path}: the file exists and moot did not write it")

    def wrote(self, path: str | Path) -> None:
        self.written.add(real(path))


def _moot_report(path: Path) -> bool:
    """An HTML report moot rendered (its generator tag in the head), which it may render again."""
    if not path.is_file() or path.suffix.lower() not in (".html", ".htm"):
        return False
    try:
        with path.open("rb") as f:
            head = f.read(2048)
    except OSError:
        return False
    start = head.lstrip().lower()
    return start.startswith((b"<!doctype html", b"<html")) and GENERATOR_TAG in head.split(b"</head>", 1)[0]


_CURRENT: ContextVar[Folders | None] = ContextVar("moot_folders", default=None)


@contextmanager
def confined(folders: Folders) -> Iterator[Folders]:
    """Hold every read and write in this context (and the tasks it starts) to `folders`."""
    token = _CURRENT.set(folders)
    try:
        yield folders
    finally:
        _CURRENT.reset(token)


@contextmanager
def unconfined() -> Iterator[None]:
    """Lift the rule for reading the user's own configuration (MOOT_JUDGES, a project's moot.yaml), which is
    no argument of the call even when the folder it sits in is no root."""
    token = _CURRENT.set(None)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current() -> Folders | None:
    return _CURRENT.get()


def check_read(path: str | Path) -> None:
    """Raise UsageError if the caller at hand may not read `path` (never outside a confined call)."""
    folders = _CURRENT.get()
    if folders is not None:
        folders.check_read(path)


def check_write(path: str | Path) -> None:
    """Raise UsageError if the caller at hand may not write `path` (never outside a confined call)."""
    folders = _CURRENT.get()
    if folders is not None:
        folders.check_write(path)


def wrote(path: str | Path) -> None:
    """Note that moot wrote `path` for the caller at hand, so that it may write it again."""
    folders = _CURRENT.get()
    if folders is not None:
        folders.wrote(path)
