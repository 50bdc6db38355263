"""Which project files (`moot.yaml`) the user has trusted with `moot trust`, by content hash.

A project file is found, not given: cloning a repository puts one in the user's path. One that can run a
program (a `command:` or `cli:` judge) or send a key to a server it names (an `api_base` that is not the
vendor's own endpoint, with an `api_key_env` or with `provider:`, whose vendor's variables would go there) is
used only once the user has trusted that very content: the file's real path, the SHA-256 of its bytes and
the SHA-256 of each program its `command:` judges name are kept in `$MOOT_HOME/trusted.json` (mode 0600);
any edit, of the file or of such a program, needs trusting again. The file is read once: the bytes hashed
are the bytes parsed. An agent CLI (`cli:`) is the user's own installed tool: its binary is not hashed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
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


def read_once(path: Path) -> tuple[Path, bytes]:
    """The file's real path (symlinks resolved: what its relative paths mean) and its bytes, read once."""
    real = Path(os.path.realpath(path))
    try:
        return real, real.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"{path} does not exist") from None
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_hash(path: Path) -> str:
    return digest_of(read_once(path)[1])


def _program_paths(spec: JudgeSpec) -> list[str]:
    """The files a `command:` judge runs: its program (a bare name as PATH finds it), then every argument that
    is an absolute path to an existing file (`python3 /opt/judge.py`: the script is what runs)."""
    argv = shlex.split(spec.command) if isinstance(spec.command, str) else [str(a) for a in spec.command or []]
    if not argv:
        return []
    first = argv[0] if os.sep in argv[0] else (shutil.which(argv[0]) or argv[0])
    return [first, *(a for a in argv[1:] if Path(a).is_absolute() and Path(a).is_file())]


def program_hashes(specs: list[JudgeSpec]) -> dict[str, str]:
    """Real path -> SHA-256 of each program the `command:` judges name ("missing" when it is not there)."""
    found: dict[str, str] = {}
    for spec in specs:
        if not spec.command:
            continue
        for name in _program_paths(spec):
            real = os.path.realpath(name)
            found[real] = _hash_or_missing(real)
    return found


def _hash_or_missing(path: str) -> str:
    try:
        return digest_of(Path(path).read_bytes())
    except OSError:
        return "missing"


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


def trust(real: Path, data: bytes, programs: dict[str, str] | None = None) -> str:
    """Record these bytes of the file at `real` (and the programs its `command:` judges name) as trusted;
    returns the file's hash."""
    digest = digest_of(data)
    entries = load_trusted()
    entries[str(real)] = {
        "sha256": digest,
        "programs": programs or {},
        "trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    _save(entries)
    return digest


def trust_state(path: Path, data: bytes | None = None, programs: dict[str, str] | None = None) -> str:
    """The file's state: trusted, changed (trusted once; it, or a program it names, edited since) or
    untrusted. `data`: the bytes that will be used (read here when not given)."""
    real = Path(os.path.realpath(path))
    entry = load_trusted().get(str(real))
    if entry is None:
        return "untrusted"
    digest = digest_of(data if data is not None else read_once(real)[1])
    stored = entry.get("programs") or {}
    if programs is None:  # the programs trusted, hashed again as they are now
        programs = {name: _hash_or_missing(name) for name in stored}
    same_programs = stored == programs
    return "trusted" if entry["sha256"] == digest and same_programs else "changed"


def needs_trust(specs: list[JudgeSpec]) -> str | None:
    """Why a file holding these judges may be used only once trusted, or None when it needs no trust."""
    from moot.judges.providers import away_route

    for spec in specs:
        if spec.command or spec.cli:
            return f"judge '{spec.label}' runs a program ({'command' if spec.command else 'cli'}:)"
        route = away_route(spec)
        if route is not None:
            return f"judge '{spec.label}' sends {route.variable} to {route.url}"
    return None
