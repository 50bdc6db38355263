"""Which judges the GitHub Action seats: the pull request's BASE revision's, never the head's.

The Action judges a pull request from its checkout, and the head's work tree is what the pull request wrote:
its own `moot.yaml`, or an edit to the judges file the workflow names, would pick the judges that pass it.
So the judges file (the `judges` input, else `moot.yaml` at the repository's root, else moot's built-in
lineup) and a rubric file given as `criteria` are read from the base revision with git (`git show
BASE:path`), written to a folder of the runner's own, and handed to `moot evaluate` by path: the head's copy
is never read. A pull request that changes them is reviewed by the base's panel, and the summary says so. A
file the pull request brings that the base lacks is refused. A judges file outside the repository (one a
workflow step wrote) is the workflow's; in it, judges that call no vendor (`replies:`, `script:`, `host:`,
`command:`) are refused: only the base revision's file may seat them.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from moot.errors import UsageError

PROJECT_FILE = "moot.yaml"
RUBRIC_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass
class BasePanel:
    """What `moot evaluate` is given: the judges file and criteria to pass, and what the summary says."""

    judges: str
    criteria: str
    notes: list[str] = field(default_factory=list)


def _git(top: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(top), *args], capture_output=True, check=False)


def _top(cwd: Path) -> Path:
    done = _git(cwd, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        raise UsageError("moot review: the working folder is not a git checkout of the pull request")
    return Path(done.stdout.decode().strip())


def _show(top: Path, rev: str, rel: str) -> bytes | None:
    """The file `rel` as revision `rev` holds it (None when it holds none)."""
    done = _git(top, "show", f"{rev}:{rel}")
    return done.stdout if done.returncode == 0 else None


def _in_repo(top: Path, cwd: Path, given: str) -> str | None:
    """`given` as a path relative to the repository's root when it lies inside it (by its words, never by
    following the head's symlinks), else None."""
    full = Path(os.path.normpath(Path(given) if Path(given).is_absolute() else cwd / given))
    try:
        rel = full.relative_to(top)
    except ValueError:
        return None
    return rel.as_posix()


class BaseReader:
    """Reads files from the base revision into a folder of the runner's own, and notes what the head changed."""

    def __init__(self, top: Path, base: str, head: str, into: Path) -> None:
        self.top, self.base, self.head, self.into = top, base, head, into
        self.notes: list[str] = []

    def fetch(self, rel: str, what: str) -> Path | None:
        """The base's `rel` written under the runner's folder (None when the base has none), executable when
        the base commits it so."""
        data = _show(self.top, self.base, rel)
        head = _show(self.top, self.head, rel)
        if data is None:
            if head is not None:
                self.notes.append(f"This pull request adds {rel}: not used; the base revision has no {what}.")
            return None
        if head != data:
            change = "removes" if head is None else "changes"
            self.notes.append(
                f"This pull request {change} {rel}: reviewed by the base revision's {what} ({self.base[:12]})."
            )
        target = self.into / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if _git(self.top, "ls-tree", self.base, "--", rel).stdout.startswith(b"100755"):
            target.chmod(0o755)
        return target

    def require(self, rel: str, what: str) -> Path:
        found = self.fetch(rel, what)
        if found is None:
            raise UsageError(
                f"{what} {rel} is not in the base revision ({self.base[:12]}): a pull request cannot bring its own"
            )
        return found

    def companions(self, judges: Path) -> None:
        """The files the base's judges file names by relative path (a `script:`, a `command:` program) come
        from the base too, beside it, so that it reads as committed."""
        from moot.panel_file import load_panel_file, specs_of

        for spec in specs_of(load_panel_file(judges)):
            named = [spec.script] if spec.script else []
            if isinstance(spec.command, list) and spec.command:
                named.append(str(spec.command[0]))
            for path in named:
                try:
                    rel = Path(path).relative_to(self.into)
                except ValueError:
                    continue
                self.fetch(rel.as_posix(), "judges file's program")


def no_vendor_judges(path: Path) -> str | None:
    """The first judge of a judges file that calls no vendor (`replies:`, `script:`, `host:`, `command:`)."""
    from moot.panel_file import load_panel_file, specs_of

    for spec in specs_of(load_panel_file(path)):
        kinds = {"replies": spec.replies is not None, "script": bool(spec.script), "host": spec.host}
        kinds["command"] = bool(spec.command)
        kind = next((k for k, present in kinds.items() if present), None)
        if kind is not None:
            return f"judge '{spec.label}' ({kind}:)"
    return None


def base_panel(cwd: Path, base: str, head: str, judges: str, criteria: str, into: Path) -> BasePanel:
    """The judges file and criteria the Action's `moot evaluate` is given, read from the base revision."""
    top = _top(cwd)
    reader = BaseReader(top, base, head, into / "base")
    rel = _in_repo(top, cwd, judges) if judges else PROJECT_FILE
    if judges and rel is None:  # outside the repository: the workflow's own file
        why = no_vendor_judges(Path(judges))
        if why:
            raise UsageError(
                f"judges file {judges}: {why} calls no vendor: refused in the Action unless the base revision's "
                "judges file sets it"
            )
        path = judges
    elif judges:
        assert rel is not None
        found = reader.require(rel, "judges file")
        reader.companions(found)
        path = str(found)
    else:
        found_yaml = reader.fetch(PROJECT_FILE, "project file")
        if found_yaml is not None:
            reader.companions(found_yaml)
        path = str(found_yaml) if found_yaml is not None else _builtin(into)
    return BasePanel(path, _criteria(reader, top, cwd, criteria), reader.notes)


def _criteria(reader: BaseReader, top: Path, cwd: Path, criteria: str) -> str:
    """A rubric file inside the repository comes from the base too; a built-in name or `name:weight` stays."""
    if not criteria.lower().endswith(RUBRIC_SUFFIXES):
        return criteria
    rel = _in_repo(top, cwd, criteria)
    return criteria if rel is None else str(reader.require(rel, "rubric file"))


def _builtin(into: Path) -> str:
    """moot's built-in lineup as a judges file, so that no `moot.yaml` of the head is searched for."""
    from moot.protocols.evaluate.protocol import DEFAULT_JUDGES

    path = into / "builtin-judges.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"debate_judges": DEFAULT_JUDGES}), encoding="utf-8")
    return str(path)
