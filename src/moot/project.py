"""Which judges file is in effect when none is given: the project's configuration.

Precedence, highest first: an explicit judges file (`--judges`, `judges=`), the `MOOT_JUDGES` environment
variable, the nearest `moot.yaml` found by searching upward from the working folder, the built-in default
lineup. A `moot.yaml` is an ordinary judges file. Every command and API function reaches a judges file
through `moot.engine.panel.load_panel`, which asks this module, so the rule lives in one place.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from moot.errors import UsageError
from moot.panel_file import PanelFile, load_panel_file

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


def find_project_file(start: Path) -> Path | None:
    """The nearest `moot.yaml` in `start` or a folder above it."""
    for folder in (start, *start.parents):
        candidate = folder / PROJECT_FILE
        if candidate.is_file():
            return candidate
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


def load_source(source: JudgesSource) -> PanelFile | None:
    """The judges file a source names (None for the built-in lineup); errors say why it was read."""
    if source.path is None:
        return None
    if not source.implicit:
        return load_panel_file(source.path)
    try:
        panel = load_panel_file(source.path)
    except UsageError as e:  # the user may not know this file is read at all
        raise UsageError(f"{e} ({source.why})") from None
    panel.found_by = source.why
    return panel


def project_panel() -> PanelFile | None:
    """The judges file that applies when none was given, or None for the built-in lineup."""
    return load_source(judges_source())
