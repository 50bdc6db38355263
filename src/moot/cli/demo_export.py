"""`moot demo [PROTOCOL] --export DIR`: a demo's scripted panel and its inputs as files a user can run and
edit.

The copy is self-contained: the judges file names its scripts by relative paths, which resolve against
the file's own folder, so the exported panel runs from any working folder (a CI job, a fresh checkout).
What a protocol's demo holds, and the command that runs it, is its `SPEC.demo` (`moot.protocol.demo`).
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path
from typing import Any

from moot.errors import UsageError
from moot.protocol.demo import DemoSpec


def demos() -> dict[str, DemoSpec]:
    """Every registered protocol that ships a demo, in the registry's order (the first is `moot demo`'s)."""
    from moot.protocols import specs

    return {spec.name: spec.demo for spec in specs() if spec.demo is not None}


def demo_of(which: str) -> DemoSpec:
    """The demo of the protocol named `which`."""
    found = demos().get(which)
    if found is None:
        raise UsageError(f"no demo named {which!r}")
    return found


def run_command(folder: Path, which: str) -> str:
    """The command that runs the exported debate, as a user would type it."""
    return f"cd {shlex.quote(str(folder))} && {shlex.join(['moot', *demo_of(which).argv])}"


def export_demo(folder: Path, which: str) -> dict[str, Any]:
    """Write a demo's panel into `folder` (never over an existing file); say what was written and how to run it."""
    sources = demo_of(which).sources()
    clash = [name for name in sources if (folder / name).exists()]
    if clash:
        raise UsageError(f"{folder / clash[0]} already exists: export into a new or empty folder")
    try:
        for name, source in sources.items():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    except OSError as e:
        raise UsageError(f"cannot write the demo into {folder}: {e.strerror or e}") from None
    return {"demo": which, "exported": str(folder), "files": list(sources), "command": run_command(folder, which)}


def export_text(data: dict[str, Any]) -> str:
    lines = [f"Wrote the demo's scripted panel (no API key needed) to {data['exported']}:"]
    lines += [f"  {name}" for name in data["files"]]
    lines += [f"Run the same debate from there (add --format github {demo_of(data['demo']).gate} to try a CI gate):"]
    lines += [f"  {data['command']}"]
    return "\n".join(lines) + "\n"
