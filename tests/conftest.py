"""Shared fixtures: an isolated MOOT_HOME per test, a real local OpenAI-compatible server, and helpers to
write judges files that point at it. No test reaches a real vendor unless it opts in (MOOT_LIVE=1)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from moot.judges import structured
from moot.schemas.safe_text import VENDOR_KEY_VARIABLES
from moot.testing import FakeLLMServer

VENDOR_KEYS = VENDOR_KEY_VARIABLES  # every key moot itself knows to keep out of sight, none from a test


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "moot-home"
    monkeypatch.setenv("MOOT_HOME", str(home))
    monkeypatch.delenv("MOOT_JUDGES", raising=False)  # a developer's project judges file is not the tests'
    if os.environ.get("MOOT_LIVE") != "1":
        for key in VENDOR_KEYS:
            monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    structured.forget()  # the structured form a server took is remembered per address for a run, not across tests
    return home


@pytest.fixture
def llm_server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def judges_file(tmp_path: Path, llm_server: FakeLLMServer):  # type: ignore[no-untyped-def]
    """Write a judges file whose judges talk to the local server: judges_file(["a", "b", "c"], **extra)."""

    def write(
        models: list[str] | None = None,
        *,
        stances: list[str] | None = None,
        timeout: float | None = None,
        name: str = "judges.yaml",
        **extra: object,
    ) -> Path:
        models = models or ["judge-a", "judge-b", "judge-c"]
        stances = stances or ["neutral", "for", "against"]
        judges = []
        for i, m in enumerate(models):
            entry: dict[str, object] = {
                "model": m,
                "stance": stances[i % len(stances)],
                "api_base": llm_server.base_url,
            }
            if timeout is not None:
                entry["timeout"] = timeout
            judges.append(entry)
        data: dict[str, object] = {"debate_judges": judges, **extra}
        path = tmp_path / name
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return path

    return write


@pytest.fixture
def artifact(tmp_path: Path) -> Path:
    path = tmp_path / "src" / "api" / "users.ts"
    path.parent.mkdir(parents=True)
    path.write_text("export function createUser(name: string) { return { id: 1, name }; }\n", encoding="utf-8")
    return path


@pytest.fixture
def agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Fake agent CLIs (tests/fake_agents.py); PATH holds only them and HOME is a fresh folder, so no real
    CLI or login on this machine leaks into a test. HOME holds the sign-in files gemini and qwen read (codex's
    and claude's fakes answer their login checks), so the fakes count as logged in."""
    from .fake_agents import FakeAgents

    fake = FakeAgents(tmp_path / "agents")
    monkeypatch.setenv("PATH", str(fake.bin_dir))
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "oauth_creds.json").write_text("{}")
    (home / ".qwen").mkdir()
    (home / ".qwen" / "settings.json").write_text('{"security": {"auth": {"selectedType": "openai"}}}')
    monkeypatch.setenv("HOME", str(home))
    return fake
