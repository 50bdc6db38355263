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
import stat
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


# the kernel's own files and the devices: never an artifact, whoever names them (a link to /proc/self/environ
# would send the process's environment, every key in it)
KERNEL_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))


def never_read(path: str | Path) -> str | None:
    """Why `path` is never read as an artifact, in words: its real path is in /proc, /sys or /dev, or it is a
    device; None for any other file."""
    target = real(path)
    if any(_within(target, folder) for folder in KERNEL_FOLDERS):
        return f"a kernel or device file ({target})"
    try:
        mode = target.stat().st_mode
    except OSError:
        return None
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else None


def link_out_of(path: str | Path, folder: str | Path) -> str | None:
    """The target, as the link names it, of the symbolic link through which `path` (found by reading `folder`)
    leads out of `folder`; None when its real path stays inside. Such a link is not followed: a cloned
    repository may hold a link to anywhere, `/proc/self/environ` or `~/.ssh` included."""
    if _within(real(path), real(folder)):
        return None
    p, top = Path(path), Path(folder)
    steps = [q for q in [p, *p.parents] if q == top or top in q.parents]
    for step in reversed(steps):  # the link nearest the folder is the one that leaves it
        if step.is_symlink() and not _within(real(step), real(folder)):
            return str(step.readlink())
    return str(real(path))


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
    no_roots: str = ""  # why there is no root at all (a server started in / or the home folder): the refusal
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
        no_roots: str = "",
    ) -> Folders:
        unique = tuple(dict.fromkeys(real(r) for r in roots))
        written = written if written is not None else set[Path]()
        return cls(unique, written, allow_commands, no_roots, allow_key_servers)

    def inside(self, path: str | Path) -> bool:
        target = real(path)
        return any(_within(target, root) for root in self.roots)

    def refusal(self, path: str | Path, doing: str, subject: str = "") -> UsageError:
        """The one refusal for a path outside the roots: the same whether or not it exists (no oracle)."""
        if not self.roots and self.no_roots:
            return UsageError(f"refused to {doing} {path}: {self.no_roots}")
        shown = ", ".join(str(r) for r in self.roots) or "none"
        return UsageError(
            f"refused to {doing} {path}: {subject + ' ' if subject else ''}outside the MCP server's roots ({shown}); "
            "a client's roots or `moot mcp --root DIR` add one"
        )

    def sees(self, started_in: Sequence[str] | None) -> bool:
        """Whether a debate started in these folders is the caller's: every one inside a root (a debate stored
        before its folders were kept is no caller's)."""
        return bool(started_in) and all(self.inside(f) for f in started_in or ())

    def check_read(self, path: str | Path) -> None:
        if not self.inside(path):
            raise self.refusal(path, "read")

    def check_folder(self, path: str | Path) -> None:
        """A folder files will be written into must be inside a root (a link out of one is outside)."""
        if not self.inside(path):
            raise self.refusal(path, "write in")

    def check_write(self, path: str | Path) -> None:
        """A file may be written where its folder is inside a root, not through a link, and not over a file
        moot did not write."""
        p = Path(path)
        if not self.inside(p.parent) or not self.inside(p):
            raise self.refusal(path, "write")
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
