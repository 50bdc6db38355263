"""Which judges file is in effect when none is given: the project's configuration.

Precedence, highest first: an explicit judges file (`--judges`, `judges=`), the `MOOT_JUDGES` environment
variable, the nearest `moot.yaml` found by searching upward from the working folder, the built-in default
lineup. A `moot.yaml` is an ordinary judges file. Every command and API function reaches a judges file
through `moot.protocol.panel.load_panel`, which asks this module, so the rule lives in one place.

A project file is found, not given, so it is held to more (git's CVE-2022-24765 is the same pattern): the
search stops at the first folder holding `.git` and at the user's home; a file owned by another user or in
a world-writable folder is ignored with a warning; and one that can run a program or send a key to a
server of its choosing is used only once the user has trusted its content (`moot trust`, `moot.trust`).
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from moot.access import unconfined
from moot.errors import UsageError
from moot.panel_file import PanelFile, load_panel_file, specs_of
from moot.trust import needs_trust, program_hashes, read_once, trust_state

PROJECT_FILE = "moot.yaml"
ENV_VAR = "MOOT_JUDGES"


@dataclass(frozen=True)
class JudgesSource:
    path: Path | None  # None: the built-in default lineup
    why: str  # in words a user can act on

    @property
    def implicit(self) -> bool:
        """Found rather than given: the user may not know this file is being read."""
        return not self.why.startswith("given")

    @property
    def found(self) -> bool:
        """Found by the upward search (a `moot.yaml`), not named by the user (`--judges`, `MOOT_JUDGES`)."""
        return self.implicit and not self.why.startswith("named")


def unsafe_place(candidate: Path) -> str | None:
    """Why a project file someone else could have written is ignored, or None when it is the user's own."""
    try:
        mine = candidate.stat().st_uid == os.geteuid()
        folder_mode = candidate.parent.stat().st_mode
    except OSError:
        return "it cannot be read"
    if not mine:
        return "it is owned by another user"
    if folder_mode & stat.S_IWOTH:
        return "its folder is world-writable"
    return None


def find_project_file(start: Path) -> Path | None:
    """The nearest `moot.yaml` in `start` or a folder above it, up to the first folder holding `.git` (the
    repository's root) or the user's home, whichever comes first. A file someone else could have written is
    skipped with a one-line warning."""
    home = Path.home()
    for folder in (start, *start.parents):
        candidate = folder / PROJECT_FILE
        if candidate.is_file():
            problem = unsafe_place(candidate)
            if problem is None:
                return candidate
            sys.stderr.write(f"moot: warning: ignoring {candidate}: {problem}\n")
        if (folder / ".git").exists() or folder == home:
            return None
    return None


def judges_source(explicit: str | Path | None = None) -> JudgesSource:
    if explicit is not None:
        return JudgesSource(Path(explicit), "given with --judges")
    named = os.environ.get(ENV_VAR, "").strip()
    if named:
        return JudgesSource(Path(named), f"named by {ENV_VAR}")
    here = Path.cwd()
    found = find_project_file(here)
    if found is not None:
        return JudgesSource(found, f"the nearest {PROJECT_FILE} above {here}")
    return JudgesSource(None, f"no --judges, {ENV_VAR} or {PROJECT_FILE} found")


def load_source(source: JudgesSource, *, enforce_trust: bool = True) -> PanelFile | None:
    """The judges file a source names (None for the built-in lineup); errors say why it was read. A project
    file that needs trust and lacks it is refused (`enforce_trust=False`: read anyway, to be shown)."""
    if source.path is None:
        return None
    if not source.implicit:
        return load_panel_file(source.path)
    try:
        with unconfined():  # the user's own configuration, even from a folder above an MCP server's roots
            real, content = read_once(source.path)  # read once: the bytes hashed are the bytes used
            # held to its own rules below; its relative paths mean the real file's folder, not a link's
            panel = load_panel_file(real, trusted=True, content=content)
    except UsageError as e:  # the user may not know this file is read at all
        raise UsageError(f"{e} ({source.why})") from None
    if source.found and enforce_trust:
        state, why = project_trust(panel, content)
        if state in ("untrusted", "changed"):
            edited = " (edited since it was trusted)" if state == "changed" else ""
            raise UsageError(
                f"{source.path} is not trusted{edited}: {why}; review it, then run `moot trust {source.path}`"
            )
    panel.found_by = source.why
    return panel


def project_trust(panel: PanelFile, content: bytes | None = None) -> tuple[str, str]:
    """A project file's trust state ("not needed", "trusted", "changed", "untrusted") and why it needs trust.
    `content`: the bytes the panel was parsed from (read again when not given)."""
    specs = specs_of(panel)
    why = needs_trust(specs)
    if why is None or panel.path is None:
        return "not needed", "it runs no program and sends no key to a server it names"
    return trust_state(Path(panel.path), content, program_hashes(specs)), why


def source_trust(source: JudgesSource) -> tuple[str, str]:
    """Whether the judges file in effect may be used, and why (what `moot doctor` shows)."""
    if source.path is None:
        return "not needed", "the built-in lineup"
    if not source.found:
        return "trusted", f"you named it ({source.why})"
    panel = load_source(source, enforce_trust=False)
    assert panel is not None
    state, why = project_trust(panel)
    if state in ("untrusted", "changed"):
        return state, f"{why}; run `moot trust {source.path}` once you have reviewed it"
    return state, why


def project_panel() -> PanelFile | None:
    """The judges file that applies when none was given, or None for the built-in lineup."""
    return load_source(judges_source())
