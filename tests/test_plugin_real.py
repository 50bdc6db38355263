"""The plugin, the marketplace and the Gemini extension, checked by the pinned binaries themselves
(tests/agent_clis): `claude plugin validate --strict` and `gemini extensions validate`, offline."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from moot.testing.agent_wire import AgentModelServer, Turn

from .real_agents import install

pytestmark = [pytest.mark.agent_clis, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "plugins" / "moot"


@pytest.fixture(scope="module")
def cli_bin() -> Path:
    return install()


def run(cli_bin: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A pinned CLI in an empty HOME, with no credential in its environment."""
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": f"{cli_bin}:/usr/bin:/bin", "HOME": str(home), "NO_COLOR": "1", "CI": "1"}
    return subprocess.run([str(cli_bin / args[0]), *args[1:]], env=env, capture_output=True, text=True, timeout=120)


def validated(cli_bin: Path, home: Path, target: Path) -> dict[str, Any]:
    r = run(cli_bin, home, "claude", "plugin", "validate", "--strict", "--json", str(target))
    assert r.returncode == 0, r.stdout + r.stderr
    report: dict[str, Any] = json.loads(r.stdout)
    assert report["success"] is True and report["strict"] is True
    return report


def test_claude_validates_the_marketplace_strictly(cli_bin: Path, tmp_path: Path) -> None:
    report = validated(cli_bin, tmp_path / "home", ROOT)
    assert report["target"] == str(ROOT / ".claude-plugin" / "marketplace.json")
    assert report["manifest"]["errors"] == [] and report["manifest"]["warnings"] == []


def test_claude_validates_the_plugin_strictly_and_lists_its_skills_agent_and_server(
    cli_bin: Path, tmp_path: Path
) -> None:
    report = validated(cli_bin, tmp_path / "home", PLUGIN)
    provides = report["provides"]
    skills = ["moot:debate", "moot:decide", "moot:doctor", "moot:judge-with-debate"]
    assert sorted(provides["skills"]) == skills and provides["agents"] == ["moot:debate-judge"]
    [server] = provides["mcpServers"]
    assert server == {"name": "moot", "type": "stdio", "target": "${CLAUDE_PLUGIN_ROOT}/bin/moot", "args": ["mcp"]}
    assert report["manifest"]["errors"] == [] and report["manifest"]["warnings"] == []


def test_claude_refuses_a_broken_manifest_so_the_checks_above_can_fail(cli_bin: Path, tmp_path: Path) -> None:
    broken = tmp_path / "plugin"
    (broken / ".claude-plugin").mkdir(parents=True)
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    manifest["userConfig"]["openai_api_key"]["sensitive"] = "yes"  # not a boolean
    (broken / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    r = run(cli_bin, tmp_path / "home", "claude", "plugin", "validate", "--strict", str(broken))
    assert r.returncode != 0 and "sensitive" in r.stdout + r.stderr


def test_gemini_validates_the_extension(cli_bin: Path, tmp_path: Path) -> None:
    r = run(cli_bin, tmp_path / "home", "gemini", "extensions", "validate", str(ROOT))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "successfully validated" in r.stdout + r.stderr
    assert os.access(PLUGIN / "bin" / "moot", os.X_OK)  # the command the extension starts


def test_codex_reads_the_four_moot_skills_from_the_repositorys_agents_folder(cli_bin: Path, tmp_path: Path) -> None:
    """The pinned codex, run in a repository holding .agents/skills, lists moot's skills to its model."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    shutil.copytree(ROOT / ".agents", repo / ".agents")
    codex_home = tmp_path / "home" / ".codex"
    codex_home.mkdir(parents=True)
    with AgentModelServer() as server:
        server.brain = lambda request: Turn(text="ok")
        (codex_home / "config.toml").write_text(
            'model = "gpt-test"\nmodel_provider = "local"\n\n[model_providers.local]\nname = "local"\n'
            f'base_url = "{server.base_url}"\nenv_key = "LOCAL_MODEL_KEY"\nwire_api = "responses"\n'
        )
        env = {"HOME": str(tmp_path / "home"), "CODEX_HOME": str(codex_home), "LOCAL_MODEL_KEY": "local-test"}
        r = subprocess.run(
            [str(cli_bin / "codex"), "exec", "--skip-git-repo-check", "say hi"],
            env={**env, "PATH": f"{cli_bin}:/usr/bin:/bin"},
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert r.returncode == 0, r.stderr[-2000:]
        seen = "".join(q.text() for q in server.model_requests("responses"))
    skills = {"moot-judge-with-debate", "moot-decide", "moot-debate", "moot-doctor"}
    assert set(re.findall(r"moot-[a-z-]+(?=\W)", seen)) >= skills
