"""A protocol's demo as `moot demo NAME` sees it: its bundled inputs and scripted panel, the command that runs
them, the gate a CI job would add. Each protocol package that ships a demo describes it with one `DemoSpec`
(its `SPEC.demo`), so that `moot demo` runs and exports any protocol's demo without naming one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXPORTED_SUFFIXES = (".yaml", ".md")  # what of a demo's own folder is exported: the panel, scripts and inputs


@dataclass(frozen=True)
class DemoSpec:
    """One protocol's demo.

    By default the demo runs in-process as its exported command (`argv`) with the bundled files in place
    of the exported ones, so that what is watched is what a user would run from the exported folder.
    A demo that must show its inputs under other names than where the package keeps them (the artifact's
    path the scripted judges quote) gives `arguments` instead: its protocol's `build` is called with them.
    """

    folder: Path  # the bundled inputs, inside the protocol's package
    argv: tuple[str, ...]  # the command (after `moot`) that runs the exported panel from its folder
    gate: str  # the CI gate's options for the exported command (`--require PASS`)
    # files exported under another name than their own: exported name -> path relative to `folder`
    extra: Mapping[str, str] = field(default_factory=dict)
    judges_file: str = "judges.yaml"  # the scripted panel; `--judges` replaces it
    run_argv: tuple[str, ...] = ()  # options the in-process run adds to `argv` (e.g. never ask a question)
    # the real lineup `moot demo --live` uses (empty: the demo takes no --live)
    live_judges: tuple[Mapping[str, Any], ...] = ()
    # (judges, reports_dir) -> the keyword arguments of the protocol's `build`, for a demo run its own way
    arguments: Callable[[Any, str], dict[str, Any]] | None = None
    announce: str = ""  # that run's first progress line; `{judges}` is the number of judges

    def sources(self) -> dict[str, Path]:
        """What goes where in an export: the folder's own panel, scripts and inputs, then `extra`."""
        files = {p.name: p for p in sorted(self.folder.iterdir()) if p.is_file() and p.suffix in EXPORTED_SUFFIXES}
        return files | {name: self.folder / path for name, path in self.extra.items()}

    def bundled_argv(self, judges: str | None) -> list[str]:
        """`argv` for an in-process run: each exported file by its bundled path, the judges file by `judges`
        when one is given, then `run_argv`."""
        sources = {name: str(path) for name, path in self.sources().items()}
        if judges:
            sources[self.judges_file] = judges
        return [sources.get(a, a) for a in self.argv] + list(self.run_argv)
