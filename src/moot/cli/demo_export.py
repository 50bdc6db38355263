"""`moot demo [decide|challenge] --export DIR`: a demo's scripted panel and its inputs as files a user can run
and edit.

The copy is self-contained: the judges file names its scripts by relative paths, which resolve against
the file's own folder, so the exported panel runs from any working folder (a CI job, a fresh checkout).
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path
from typing import Any

from moot.errors import UsageError

DEMO_DIR = Path(__file__).resolve().parent.parent / "demo"
DEMO_TASK = "Implement REST API for user management"
DEMO_CRITERIA = "correctness:30,design:25,security:20,performance:15,docs:10"
ARTIFACT = "src/api/users.ts"  # where the seed's judges expect it, so their replies read true
CHALLENGE_TOPIC = "Should the orders table be sharded, and by what key?"
DEMOS = ("evaluate", "decide", "challenge")


def _sources(which: str) -> dict[str, Path]:
    """What goes where in the export: the judges file, the judges' scripts, the inputs."""
    if which != "evaluate":
        return {p.name: p for p in sorted((DEMO_DIR / which).iterdir()) if p.suffix in (".yaml", ".md")}
    files = {p.name: p for p in sorted(DEMO_DIR.glob("*.yaml"))}
    files[ARTIFACT] = DEMO_DIR / "users-api" / "users.ts"
    return files


def demo_argv(which: str) -> list[str]:
    """The command (after `moot`) that runs a demo's debate from the folder its files are in."""
    if which == "decide":
        return ["decide", "--debate-context", "question.yaml", "--judges", "judges.yaml"]
    if which == "challenge":
        return ["challenge", CHALLENGE_TOPIC, "--judges", "judges.yaml", "--context", "context.md"]
    argv = ["evaluate", "-s", ARTIFACT, "--judges", "judges.yaml", "--task", DEMO_TASK]
    return [*argv, "--criteria", DEMO_CRITERIA]


def run_command(folder: Path, which: str = "evaluate") -> str:
    """The command that runs the exported debate, as a user would type it."""
    return f"cd {shlex.quote(str(folder))} && {shlex.join(['moot', *demo_argv(which)])}"


def export_demo(folder: Path, which: str = "evaluate") -> dict[str, Any]:
    """Write a demo's panel into `folder` (never over an existing file); say what was written and how to run it."""
    sources = _sources(which)
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


_GATES = {"evaluate": "--require PASS", "decide": "--require RECOMMENDED", "challenge": "--require CONSENSUS"}


def export_text(data: dict[str, Any]) -> str:
    lines = [f"Wrote the demo's scripted panel (no API key needed) to {data['exported']}:"]
    lines += [f"  {name}" for name in data["files"]]
    gate = _GATES[data.get("demo", "evaluate")]
    lines += [f"Run the same debate from there (add --format github {gate} to try a CI gate):"]
    lines += [f"  {data['command']}"]
    return "\n".join(lines) + "\n"
