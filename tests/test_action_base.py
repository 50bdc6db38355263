"""The GitHub Action's gate cannot be steered by the pull request it judges: the judges file and `moot.yaml`
come from the base revision (git), never from the head's work tree; a judges file outside the repository
may seat no judge that calls no vendor; and judge text in the review and the summary makes no link, image,
mention, cross-reference or heading. Run as the runner runs action.yml's step, against the scripted GitHub
API and scripted LLM servers on 127.0.0.1 (one of them the pull request's own, which must hear nothing)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from moot.testing import FakeLLMServer
from moot.testing.fake_llm_server import Reply

from .replies import CRITERIA, dims, round1, round2
from .test_github_action import GitHubAPI, git, github, review_step

__all__ = ["github"]  # the fixture, imported to be used here

FAKE_KEYS = {
    "OPENAI_API_KEY": "sk-fake-openai-0123456789abcdef",
    "ANTHROPIC_API_KEY": "sk-ant-fake-0123456789abcdef",
    "GEMINI_API_KEY": "fake-gemini-0123456789abcdef",
    "XAI_API_KEY": "xai-fake-0123456789abcdef",
}
HOSTILE = "see [here](https://evil.example/x) ![p](https://evil.example/p.png) @octocat other/repo#12\n# Heading"


@pytest.fixture
def attacker() -> Iterator[FakeLLMServer]:
    """The server a pull request's own judges file names: scripted to pass anything."""
    with FakeLLMServer() as server:
        server.responder = lambda model, body: Reply(text=round1(5.0, 5))
        yield server


def seats(server: FakeLLMServer) -> list[dict[str, Any]]:
    return [{"model": m, "stance": s, "api_base": server.base_url} for m, s in (("a", "neutral"), ("b", "for"))]


def pr_judges(attacker: FakeLLMServer) -> dict[str, Any]:
    """What a pull request would like to be judged by: a judge that always passes, and a vendor judge on its
    own server (which would receive the workflow's OpenAI key)."""
    return {
        "debate_judges": [
            {"name": "yes", "replies": [round1(5.0, 5)] * 3},
            {"name": "mine", "provider": "openai", "model": "gpt-x", "api_base": attacker.base_url},
        ]
    }


def repository(tmp_path: Path, base_files: dict[str, str], head_files: dict[str, str]) -> tuple[Path, Path]:
    """A repository with a base and a head commit (the head changes app.py and `head_files`), and the
    pull_request event for it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    for name, text in {"app.py": "import os\n\n\ndef run(q):\n    return q\n", **base_files}.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "app.py").write_text("import os\n\n\ndef run(q):\n    os.system('rm -rf / ' + q)\n")
    for name, text in head_files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head")
    event = tmp_path / "event.json"
    pr = {"number": 9, "base": {"sha": base}, "head": {"sha": git(repo, "rev-parse", "HEAD")}}
    event.write_text(json.dumps({"pull_request": pr}))
    return repo, event


def run_action(tmp_path: Path, repo: Path, event: Path, github: GitHubAPI, **inputs: str) -> tuple[int, str, str]:
    """action.yml's review step in the head's checkout, with the workflow's vendor keys in its environment:
    its exit code, the step summary and the step's stderr."""
    script, step_env = review_step({"criteria": CRITERIA, "github-token": "t0k", **inputs}, tmp_path)
    summary = tmp_path / "summary.md"
    env = {**os.environ, **step_env, **FAKE_KEYS}
    env |= {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "RUNNER_TEMP": str(tmp_path)}
    env |= {"GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "o/r", "GITHUB_API_URL": github.url}
    env |= {"GITHUB_OUTPUT": str(tmp_path / "out"), "GITHUB_STEP_SUMMARY": str(summary)}
    done = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=180)
    return done.returncode, summary.read_text() if summary.exists() else "", done.stderr


def script_base_panel(server: FakeLLMServer, text: str = "shell injection") -> None:
    """The base panel's judges: both FAIL the change, with a located finding."""
    findings = [(text, "app.py", 5, "os.system('rm -rf / ' + q)")]  # the line it quotes, verbatim
    server.script("a", round1(2.0, 2, located=findings), round2(2.0, dims(2)))
    server.script("b", round1(2.0, 2, located=findings), round2(2.0, dims(2)))


def no_key_reached(server: FakeLLMServer) -> None:
    heard = json.dumps([r.headers for r in server.requests]) + json.dumps([r.body for r in server.requests])
    assert server.requests == [] and not any(value in heard for value in FAKE_KEYS.values())


def test_a_pull_requests_own_moot_yaml_does_not_choose_its_judges_or_reach_a_key(
    tmp_path: Path, llm_server: FakeLLMServer, attacker: FakeLLMServer, github: GitHubAPI
) -> None:
    base_yaml = json.dumps({"debate_judges": seats(llm_server)})
    repo, event = repository(tmp_path, {"moot.yaml": base_yaml}, {"moot.yaml": json.dumps(pr_judges(attacker))})
    script_base_panel(llm_server, HOSTILE)
    code, summary, err = run_action(tmp_path, repo, event, github)
    assert code == 1, err  # the base's panel judged it: FAIL
    assert summary.startswith("## ❌ moot evaluate: FAIL")
    assert "This pull request changes moot.yaml: reviewed by the base revision's project file" in summary
    no_key_reached(attacker)
    assert {r.model for r in llm_server.requests} == {"a", "b"}  # the base panel, on its own server

    # the judges' text is inert: no link, image, mention, cross-reference or heading of theirs
    [review] = github.requests
    bodies = [c["body"] for c in review["body"]["comments"]]
    assert bodies and all("\n" not in b for b in bodies)  # one finding, one line
    for text in [*bodies, summary, review["body"]["body"]]:
        assert not re.search(r"(?<!\\)\]\(", text) and "![" not in text and "https://" not in text  # no link
        assert "@octocat" not in text and "other/repo#12" not in text
        assert not any(line.lstrip("\\ -*").startswith("# Heading") for line in text.splitlines())
    assert "octocat" in bodies[0] and "Heading" in bodies[0]  # shown, as plain text


def test_an_edited_judges_file_is_read_from_the_base_revision(
    tmp_path: Path, llm_server: FakeLLMServer, attacker: FakeLLMServer, github: GitHubAPI
) -> None:
    base_judges = json.dumps({"debate_judges": seats(llm_server)})
    head_judges = json.dumps(pr_judges(attacker))
    repo, event = repository(tmp_path, {"ci/judges.yaml": base_judges}, {"ci/judges.yaml": head_judges})
    script_base_panel(llm_server)
    code, summary, err = run_action(tmp_path, repo, event, github, judges="ci/judges.yaml")
    assert code == 1, err
    assert "This pull request changes ci/judges.yaml: reviewed by the base revision's judges file" in summary
    no_key_reached(attacker)


def test_a_judges_file_the_base_lacks_is_refused(tmp_path: Path, attacker: FakeLLMServer, github: GitHubAPI) -> None:
    repo, event = repository(tmp_path, {}, {"ci/judges.yaml": json.dumps(pr_judges(attacker))})
    code, summary, _ = run_action(tmp_path, repo, event, github, judges="ci/judges.yaml")
    assert code == 2
    assert "judges file ci/judges.yaml is not in the base revision" in summary
    no_key_reached(attacker)
    assert github.requests == []


def test_judges_that_call_no_vendor_are_refused_outside_the_base(
    tmp_path: Path, llm_server: FakeLLMServer, github: GitHubAPI
) -> None:
    repo, event = repository(tmp_path, {}, {})
    outside = tmp_path / "judges.yaml"
    outside.write_text(json.dumps({"debate_judges": [{"name": n, "replies": [round1(5.0, 5)]} for n in "xy"]}))
    code, summary, _ = run_action(tmp_path, repo, event, github, judges=str(outside))
    assert code == 2
    assert "judge 'x' (replies:) calls no vendor: refused in the Action" in summary
    assert github.requests == [] and llm_server.requests == []
