"""Build moot's Claude Desktop bundle (`.mcpb`, MCPB 0.4, uv runtime) from a built wheel.

The bundle carries the wheel itself: its pyproject.toml asks for `moot[all]==VERSION` and points uv at the
wheel inside the bundle, so what Claude Desktop installs is byte for byte the wheel CI tested, with its
dependencies from PyPI. The manifest is release/mcpb/manifest.json (written by release/channels.py).

    python release/build_mcpb.py dist/moot-0.1.0-py3-none-any.whl --out dist/   # needs the mcpb CLI (npm)

It lays the bundle out in a folder, runs `mcpb validate` on its manifest and `mcpb pack` on the folder.
`--mcpb PATH` names the CLI (default: `mcpb` on PATH); `--folder-only` stops after laying it out.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent / "mcpb"


def lay_out(wheel: Path, folder: Path) -> Path:
    """The bundle's files in `folder`: manifest, entry point, pyproject.toml naming the wheel, the wheel."""
    manifest = json.loads((HERE / "manifest.json").read_text(encoding="utf-8"))
    version = manifest["version"]
    if f"-{version}-" not in wheel.name:
        raise SystemExit(f"{wheel.name} is not moot {version} (the manifest's version): build the wheel first")
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "src").mkdir(parents=True)
    (folder / "wheels").mkdir()
    shutil.copy(HERE / "manifest.json", folder / "manifest.json")
    shutil.copy(HERE / "src" / "server.py", folder / "src" / "server.py")
    shutil.copy(HERE / ".mcpbignore", folder / ".mcpbignore")
    shutil.copy(wheel, folder / "wheels" / wheel.name)
    (folder / "pyproject.toml").write_text(
        "[project]\n"
        'name = "moot-bundle"\n'
        f'version = "{version}"\n'
        'requires-python = ">=3.11"\n'
        f'dependencies = ["moot[all]=={version}"]\n\n'
        "[tool.uv]\n"
        "package = false\n\n"
        "[tool.uv.sources]\n"
        f'moot = {{ path = "wheels/{wheel.name}" }}\n',
        encoding="utf-8",
    )
    return folder


def run(mcpb: str, *args: str) -> None:
    r = subprocess.run([mcpb, *args], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise SystemExit(f"mcpb {args[0]} failed: {(r.stderr or r.stdout).strip()[-2000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--out", type=Path, default=Path("dist"))
    parser.add_argument("--mcpb", default=shutil.which("mcpb") or "mcpb")
    parser.add_argument("--folder-only", action="store_true")
    args = parser.parse_args(argv)
    folder = lay_out(args.wheel.resolve(), args.out.resolve() / "mcpb")
    if args.folder_only:
        print(folder)
        return 0
    run(args.mcpb, "validate", str(folder / "manifest.json"))
    version = json.loads((folder / "manifest.json").read_text())["version"]
    bundle = args.out.resolve() / f"moot-{version}.mcpb"
    run(args.mcpb, "pack", str(folder), str(bundle))
    print(bundle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
