"""`moot trust [PATH]`: trust a project file (`moot.yaml`) that runs programs or sends a key to a server it
names, by its content (`moot.trust`); `moot trust --list` shows what is trusted and whether it changed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from moot.cli.output import emit
from moot.errors import UsageError


def _project_file(path: Path | None) -> Path:
    """The file to trust: PATH (a folder means its moot.yaml), else the project file that applies here."""
    from moot.project import PROJECT_FILE, find_project_file

    if path is None:
        found = find_project_file(Path.cwd())
        if found is None:
            raise UsageError(f"no {PROJECT_FILE} applies here: give the file to trust (moot trust PATH)")
        return found
    target = path / PROJECT_FILE if path.is_dir() else path
    if not target.is_file():
        raise UsageError(f"no such file: {target}")
    return target


def _listing() -> str:
    from moot.trust import load_trusted, trust_path, trust_state

    entries = load_trusted()
    if not entries:
        return f"nothing is trusted yet ({trust_path()})\n"
    lines = []
    for name, entry in sorted(entries.items()):
        path = Path(name)
        state = trust_state(path) if path.is_file() else "missing"
        lines.append(f"{state:9} {name}  sha256:{entry['sha256'][:12]}  since {entry.get('trusted_at', '?')}")
    return "\n".join(lines) + "\n"


def trust(
    path: Annotated[
        Path | None, typer.Argument(help="The project file (or its folder); default: the moot.yaml that applies here.")
    ] = None,
    list_: Annotated[
        bool, typer.Option("--list", help="Show every trusted file and whether it changed since.")
    ] = False,
) -> None:
    """Trust a moot.yaml that runs programs (command:, cli:) or sends a key to its own api_base: by content,
    so that any edit needs trusting again."""
    if list_:
        if path is not None:
            raise UsageError("--list takes no PATH")
        emit(_listing())
        return
    from moot.panel_file import load_panel_file, specs_of
    from moot.trust import needs_trust, program_hashes, read_once
    from moot.trust import trust as record

    target = _project_file(path)
    real, content = read_once(target)  # one read: the bytes parsed are the bytes hashed
    panel = load_panel_file(real, trusted=True, content=content)  # a broken file is refused before it is trusted
    specs = specs_of(panel)
    programs = program_hashes(specs)
    digest = record(real, content, programs)
    why = needs_trust(specs) or "it needs no trust (it runs no program and sends no key to its own server)"
    emit(f"trusted {real} (sha256:{digest[:12]}): {why}; {_covered(programs, specs)}\n")


def _covered(programs: dict[str, str], specs: list[Any]) -> str:
    """What the trust covers besides the file: the programs its `command:` judges run, by hash; never an agent
    CLI's own binary (said plainly)."""
    parts = ["an edit needs `moot trust` again"]
    if programs:
        parts.append("so does a change to " + ", ".join(programs))
    clis = sorted({s.cli for s in specs if s.cli and not s.command})
    if clis:
        parts.append(f"the agent CLI binaries ({', '.join(clis)}) are not covered: they are your installed tools")
    return "; ".join(parts)
