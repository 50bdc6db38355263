"""Install without a checkout (issue 29 §4): the README's one-liners that install moot from its git URL
(pip, pipx, `uv tool install`, uvx), run exactly as written with the URL replaced by a `file://` clone of
this repository's HEAD, give a working `moot`; and the plugin's MCP entry (its launcher, which finds a moot
in ~/.local/bin when the client's PATH lacks it) serves moot's tools from a pipx install and from a uv one.

HEAD is what is cloned: uncommitted changes are not tested here. pip's and uv's caches are the user's own,
so after the first run the installs take seconds (uv downloads what it misses from the index)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from .test_plugin import moot_tools, plugin_server_params

pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parent.parent
README_URL = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"] + ".git"
TOOLS = Path(sys.executable).parent  # pipx, uv and uvx come with the test extra
CLIENT_PATH = "/usr/bin:/bin"  # a client's PATH without ~/.local/bin: the launcher must look there itself
INSTALL_TIMEOUT_S = 600  # generous for a loaded machine; the happy path takes seconds from the caches


def readme_lines() -> dict[str, list[str]]:
    """The Install section's lines that install from the git URL, split as the shell splits them, by the
    tool that runs them: pip, pipx, uv (uv tool install) and uvx."""
    section = re.search(r"^## Install\n(.*?)^## ", (ROOT / "README.md").read_text(), re.M | re.S)
    assert section, "README.md has no ## Install section"
    found: dict[str, list[str]] = {}
    for line in section.group(1).splitlines():
        if README_URL not in line:
            continue
        words = shlex.split(line, comments=True)
        tool = "uv" if words[:3] == ["uv", "tool", "install"] else words[0]
        found[tool] = words
    assert set(found) == {"pip", "pipx", "uv", "uvx"}, f"README's git-URL install lines: {sorted(found)}"
    return found


def installer_env(home: Path) -> dict[str, str]:
    """The user's environment with a fresh HOME (so pipx and uv use their defaults: ~/.local/bin), the user's
    own pip and uv caches, and no setting that would send an install elsewhere."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    elsewhere = {"UV_TOOL_DIR", "UV_TOOL_BIN_DIR", "UV_PYTHON", "VIRTUAL_ENV", "XDG_BIN_HOME", "XDG_DATA_HOME"}
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIPX_") and k not in elsewhere}
    # uv may not fetch a Python build here: it uses the machine's python3 (moot needs 3.11+)
    return env | {"HOME": str(home), "XDG_CACHE_HOME": cache, "UV_PYTHON_DOWNLOADS": "never"}


def run(words: list[str], home: Path, timeout: float = INSTALL_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    home.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        words,
        cwd=home,
        env=installer_env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def with_url(words: list[str], url: str) -> list[str]:
    """A README line with its git URL replaced, and its tool taken from the test's environment."""
    words = [w.replace(README_URL, url) for w in words]
    tool = TOOLS / words[0]
    if not tool.exists():
        pytest.skip(f"{words[0]} is not installed beside this Python (pip install -e '.[test]')")
    return [str(tool), *words[1:]]


@pytest.fixture(scope="module")
def clone_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A file:// clone of this repository at HEAD, standing in for the repository on the forge."""
    target = tmp_path_factory.mktemp("forge") / "moot.git"
    r = subprocess.run(
        ["git", "clone", "--quiet", "--bare", f"file://{ROOT}", str(target)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return f"file://{target}"


@pytest.fixture(scope="module")
def installs(clone_url: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One HOME per installing line, each line run once and shared by the tests below. (The README's plain
    `pip install` line installs the same requirement as its pipx line, which runs it with pip; a venv's own
    pip would add half a minute of unpacking wheels and test nothing more.)"""
    lines = readme_lines()
    assert lines["pip"][1:] == ["install", lines["pipx"][2]], (lines["pip"], lines["pipx"])
    homes: dict[str, Path] = {}
    for tool in ("pipx", "uv"):
        home = tmp_path_factory.mktemp(f"home-{tool}")
        words = with_url(lines[tool], clone_url)
        r = run(words, home)
        assert r.returncode == 0, f"{shlex.join(words)}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
        homes[tool] = home
    return homes


@pytest.mark.parametrize("tool", ["pipx", "uv"])
def test_each_readme_line_installs_a_moot_that_runs(installs: dict[str, Path], tool: str) -> None:
    moot = installs[tool] / ".local" / "bin" / "moot"  # where both put it by default
    r = subprocess.run([str(moot), "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == f"moot {version('moot')}", (r.stdout, r.stderr)
    help_text = subprocess.run([str(moot), "--help"], capture_output=True, text=True, timeout=60).stdout
    for command in ("evaluate", "decide", "challenge", "mcp", "setup"):
        assert command in help_text, command


def test_the_uvx_line_runs_the_demo_without_installing(clone_url: str, tmp_path: Path) -> None:
    home = tmp_path / "home-uvx"
    words = with_url(readme_lines()["uvx"], clone_url)
    r = run(words, home)
    assert r.returncode == 0, f"{shlex.join(words)}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    assert "Reports (one per judge, and the consensus report)" in r.stdout
    assert sorted(p.name for p in (home / ".specs" / "reports").glob("*.consensus.md")), r.stdout
    assert not (home / ".local" / "bin" / "moot").exists()  # uvx installs nothing on the PATH


@pytest.mark.parametrize("tool", ["pipx", "uv"])
def test_the_plugins_mcp_entry_serves_moots_tools_from_the_install(installs: dict[str, Path], tool: str) -> None:
    """Claude Code's PATH lacks ~/.local/bin, where pipx and uv put moot: the plugin's launcher finds it."""
    home = installs[tool]
    assert shutil.which("moot", path=CLIENT_PATH) is None, "a moot in /usr/bin or /bin would hide the install"
    params = plugin_server_params(home)
    params.env = {**(params.env or {}), "PATH": CLIENT_PATH}

    async def listed() -> tuple[set[str], dict[str, Any]]:
        async with Client(params) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            doctor = await client.call_tool("doctor", {})
            return tools, doctor.structured_content or {}

    tools, doctor = anyio.run(listed)
    assert tools == moot_tools()
    assert {"evaluate", "decide", "challenge", "show_debate", "list_debates", "doctor"} <= tools
    assert doctor["judges"]


def test_the_plugin_and_its_launcher_name_the_lines_tested_here() -> None:
    """A user reads the install line in the plugin's README, or in the launcher's message when moot is
    missing: the same pipx and uv lines as the README's, which the tests above run."""
    lines = readme_lines()
    plugin_readme = (ROOT / "plugins" / "moot" / "README.md").read_text()
    hint = re.search(r'^install_hint="(.*)"$', (ROOT / "plugins" / "moot" / "bin" / "moot").read_text(), re.M)
    assert hint, "the launcher's install_hint"
    for tool in ("pipx", "uv"):
        line = shlex.join(lines[tool])
        assert line in plugin_readme and line in hint.group(1), line
