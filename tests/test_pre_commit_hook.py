"""The `moot-review` hook run by pre-commit itself, as docs/ci.md configures it: pre-commit clones this
repository (a git copy of this tree, so uncommitted changes count), builds the hook's own environment (moot
installed from that clone, the hook's additional_dependencies from the package index), and runs the hook on
a scratch repository's staged change. The judges are one of each wire moot speaks (an OpenAI-compatible
server, Anthropic, Gemini), scripted on 127.0.0.1: a good change passes, a bad one stops the commit.

The hook's environment is built once per run of this module (a minute or two, most of it pip)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from moot.testing import FakeLLMServer

from .replies import round1

pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parent.parent
INSTALL_TIMEOUT_S = 800
SEATS = [  # (model, what the judges file says besides it)
    ("local-judge", {"stance": "neutral"}),  # api_base: an OpenAI-compatible server
    ("claude-haiku-4-5", {"provider": "anthropic", "stance": "for"}),
    ("gemini-3-pro-preview", {"provider": "gemini", "stance": "against"}),
]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


def documented_config() -> dict[str, object]:
    """The `.pre-commit-config.yaml` docs/ci.md shows, as written."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```yaml\n")[1:]]
    [config] = [yaml.safe_load(b) for b in blocks if "id: moot-review" in b]
    return config  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This tree's moot as a git repository pre-commit can clone: what `pip install .` needs, and the hooks."""
    repo = tmp_path_factory.mktemp("moot-repo")
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, repo / name)
    shutil.copytree(ROOT / "src", repo / "src", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "moot")
    return repo, git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def pre_commit(repo: Path, env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "pre_commit", *args]
    return subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def scratch(
    tmp_path: Path, hook_repo: tuple[Path, str], pre_commit_home: Path, llm_server: FakeLLMServer
) -> tuple[Path, dict[str, str]]:
    """A project with the documented hook config (pointing at the clone), its judges and their keys, and the
    hook's environment installed."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "billing.py").write_text("def charge(cents):\n    return cents\n")
    config = documented_config()
    [entry] = config["repos"]  # type: ignore[index]
    entry["repo"], entry["rev"] = str(hook_repo[0]), hook_repo[1]
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    seats = [{"model": m, **extra} for m, extra in SEATS]
    seats[0]["api_base"] = llm_server.base_url
    seats[1]["api_base"] = seats[2]["api_base"] = llm_server.root_url
    judges = tmp_path / "judges.yaml"
    judges.write_text(yaml.safe_dump({"debate_judges": seats}))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("MOOT_")}
    env |= {"ANTHROPIC_API_KEY": "sk-ant-test", "GEMINI_API_KEY": "gm-test", "MOOT_JUDGES": str(judges)}
    env |= {"MOOT_HOME": str(tmp_path / "moot-home"), "PRE_COMMIT_HOME": str(pre_commit_home)}
    installed = pre_commit(repo, env, "install-hooks", timeout=INSTALL_TIMEOUT_S)
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    return repo, env


def rubric() -> dict[str, float]:
    """The criteria the documented `args:` give moot."""
    args = documented_config()["repos"][0]["hooks"][0]["args"]  # type: ignore[index]
    spec = args[args.index("--criteria") + 1]
    return {part.split(":")[0]: 1.0 for part in spec.split(",")}


def test_the_documented_hook_passes_a_good_change_with_judges_of_every_wire(
    scratch: tuple[Path, dict[str, str]], llm_server: FakeLLMServer
) -> None:
    repo, env = scratch
    for model, _ in SEATS:
        llm_server.script(model, round1(4.5, {k: 4.5 for k in rubric()}))
    (repo / "billing.py").write_text("def charge(cents: int) -> int:\n    return cents\n")
    git(repo, "add", "billing.py")
    ran = pre_commit(repo, env, "run", "moot-review")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "moot review (staged diff)" in ran.stdout and "Passed" in ran.stdout
    wires = {r.wire for r in llm_server.requests}
    assert wires == {"openai", "anthropic", "gemini"}, wires  # each SDK ran in the hook's environment
    sent = json.dumps([r.body for r in llm_server.requests])
    task = documented_config()["repos"][0]["hooks"][0]["args"]  # type: ignore[index]
    assert task[task.index("--task") + 1] in sent  # the hook's args reached moot: its task, and its rubric
    assert all(key in sent for key in rubric())


def test_the_documented_hook_blocks_a_bad_change(
    scratch: tuple[Path, dict[str, str]], llm_server: FakeLLMServer
) -> None:
    repo, env = scratch
    for model, _ in SEATS:
        llm_server.script(model, round1(1.5, {k: 1.5 for k in rubric()}, located=[("eval of input", "billing.py", 2)]))
    (repo / "billing.py").write_text("def charge(cents):\n    return eval(input())\n")
    git(repo, "add", "billing.py")
    ran = pre_commit(repo, env, "run", "moot-review")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "Failed" in ran.stdout and "gate failed" in ran.stdout, ran.stdout
    assert len({r.wire for r in llm_server.requests}) == 3
