"""No secret leaves the machine (issue 31, section 5): a solution, a context or an API argument holding a
credential is refused before any call, naming the file, the line and the detector but never the value;
with --redact-secrets the scripted server never sees the value, and the result lists what was withheld."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import moot
from moot.cli.app import main
from moot.errors import UsageError
from moot.schemas.config import Artifact
from moot.secrets import credential_file_kind, scan_text
from moot.testing import FakeLLMServer

from .replies import CRITERIA, round1

# values assembled at run time, so that this file holds none a scanner would flag
AWS = "AKIA" + "Z7QW3RTY5UIO9PLK"
GITHUB = "ghp_" + "k3J9xQ2mV8bN5cR7tY1uI4oP6aS0dF2gH8jL"
SLACK = "xoxb-" + "2718281828-3141592653-Zx9Yw8Vu7Ts6Rq5Po4Nm"
PASSWORD = "Tr0ub4dor" + "-9vKq2ZmW"
KEY_BODY = "MIIEowIBAAKCAQEA7" + "xq3Lk9Zp2Wv8Rt"
PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----\n" + KEY_BODY + "\nQmF6\n-----END RSA PRIVATE KEY-----\n"
CONTENT = {  # file -> (text, line of the secret, detector named)
    "aws.py": (f'import os\nREGION = "eu"\nKEY_ID = "{AWS}"\n', 3, "AWS Access Key"),
    "gh.sh": (f"export GH={GITHUB}\n", 1, "GitHub Token"),
    "slack.js": (f'const a = 1;\nconst hook = "{SLACK}";\n', 2, "Slack Token"),
    "db.py": (f'HOST = "db"\npassword = "{PASSWORD}"\n', 2, "Secret Keyword"),
    "deploy.txt": ("notes\n" + PRIVATE_KEY, 2, "Private Key"),
}
VALUES = (AWS, GITHUB, SLACK, PASSWORD, KEY_BODY)
FILES = {  # credential files by name (dot-files are named on the command line: a folder walk skips them)
    "id_rsa": "opaque\n",
    "server.pem": "opaque\n",
    "tls.key": "opaque\n",
    "bundle.p12": "opaque\n",
    "credentials.json": '{"type": "x"}\n',
    ".netrc": "machine example.com\n",
    ".npmrc": "//registry.npmjs.org/:_authToken=${T}\n",
    ".pypirc": "[pypi]\npassword = ${P}\n",
    "kubeconfig": "apiVersion: v1\n",
    ".aws/credentials": "[default]\n",
    ".env": "DEBUG=1\n",
    ".env.production": "DEBUG=0\n",
}


def _judges(tmp_path: Path, server: FakeLLMServer) -> Path:
    path = tmp_path / "judges.yaml"
    judges = [{"model": m, "stance": s, "api_base": server.base_url} for m, s in (("a", "neutral"), ("b", "for"))]
    path.write_text(json.dumps({"debate_judges": judges}), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(CONTENT))
def test_a_secret_in_a_solution_folder_is_refused_before_any_call(
    name: str, tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    text, line, detector = CONTENT[name]
    (tmp_path / "sol").mkdir()
    (tmp_path / "sol" / "ok.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "sol" / name).write_text(text, encoding="utf-8")
    code = main(["evaluate", "-s", "sol", "--judges", str(_judges(tmp_path, llm_server)), "--no-reports"])
    err = capsys.readouterr().err
    assert code == 2
    assert llm_server.requests == []
    assert f"sol/{name}:{line} holds a secret ({detector})" in err and "--redact-secrets" in err
    assert len(err.strip().splitlines()) == 1
    assert not any(v in err for v in VALUES)
    assert not list((tmp_path / "moot-home").rglob("*.db")) or all(
        not any(v.encode() in db.read_bytes() for v in VALUES) for db in (tmp_path / "moot-home").rglob("*.db*")
    )


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_credential_file_is_refused_by_its_name(
    name: str, tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FILES[name], encoding="utf-8")
    code = main(["evaluate", "-s", name, "--judges", str(_judges(tmp_path, llm_server))])
    err = capsys.readouterr().err
    assert code == 2, err
    assert llm_server.requests == []
    assert f"{name} holds a secret (credential file" in err


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_credential_file_in_a_solution_folder_is_refused_even_a_dot_file(
    name: str, tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder walk leaves dot-files out, but not one that holds credentials (`.env`, `.netrc`, ...): the run
    is refused, naming it, with no call; `--redact-secrets` withholds it whole and the debate goes on."""
    folder = tmp_path / "sol"
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / "ok.py").write_text("x = 1\n", encoding="utf-8")
    (folder / name).write_text(FILES[name] + "MARKER-NEVER-SENT\n", encoding="utf-8")
    judges = str(_judges(tmp_path, llm_server))
    assert main(["evaluate", "-s", "sol", "--judges", judges, "--no-reports", "--no-progress"]) == 2
    assert f"sol/{name} holds a secret (credential file" in capsys.readouterr().err
    assert llm_server.requests == []
    for model in ("a", "b"):
        llm_server.script(model, round1(4.0))
    args = ["evaluate", "-s", "sol", "--criteria", CRITERIA, "--judges", judges, "--no-reports", "--no-progress"]
    args += ["--max-rounds", "1"]
    assert main([*args, "--redact-secrets", "--format", "json"]) == 0
    assert "MARKER-NEVER-SENT" not in json.dumps([r.body for r in llm_server.requests])
    assert json.loads(capsys.readouterr().out)["redactions"][0]["source"] == f"sol/{name}"


def test_ordinary_dot_files_in_a_folder_stay_home_unremarked(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    folder = tmp_path / "sol"
    folder.mkdir()
    (folder / "ok.py").write_text("x = 1\n", encoding="utf-8")
    (folder / ".npmrc").write_text("registry=https://registry.npmjs.org/\n", encoding="utf-8")
    (folder / ".env.example").write_text("KEY=\n", encoding="utf-8")
    (folder / ".editorconfig").write_text("root = true\n", encoding="utf-8")
    for model in ("a", "b"):
        llm_server.script(model, round1(4.0))
    judges = str(_judges(tmp_path, llm_server))
    args = ["evaluate", "-s", "sol", "--criteria", CRITERIA, "--judges", judges, "--no-reports", "--no-progress"]
    args += ["--max-rounds", "1"]
    assert main(args) == 0
    sent = json.dumps([r.body for r in llm_server.requests])
    assert "ok.py" in sent and "registry.npmjs" not in sent and ".editorconfig" not in sent


def test_registry_files_without_a_token_and_env_examples_are_ordinary_files() -> None:
    assert credential_file_kind(".npmrc", "registry=https://registry.npmjs.org/\n") is None
    assert credential_file_kind(".pypirc", "[distutils]\nindex-servers = pypi\n") is None
    assert credential_file_kind(".env.example", "KEY=\n") is None
    assert credential_file_kind("src/keyboard.py") is None


def test_redacted_run_sends_no_secret_and_lists_what_was_withheld(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "sol").mkdir()
    for name, (text, _, _) in CONTENT.items():
        (tmp_path / "sol" / name).write_text(text, encoding="utf-8")
    (tmp_path / "sol" / "server.pem").write_text(PRIVATE_KEY, encoding="utf-8")
    for model in ("a", "b"):
        llm_server.script(model, round1(4.0, 4))
    args = ["evaluate", "-s", "sol", "--judges", str(_judges(tmp_path, llm_server)), "--criteria", CRITERIA]
    code = main([*args, "--redact-secrets", "--format", "json", "--task", f"check {AWS}"])
    out = capsys.readouterr().out
    assert code == 0
    sent = json.dumps([r.body for r in llm_server.requests])
    assert len(llm_server.requests) == 2
    assert not any(v in sent for v in VALUES)
    for kind in ("aws-access-key", "github-token", "slack-token", "secret-keyword", "private-key", "private-key-file"):
        assert f"[REDACTED:{kind}]" in sent, kind
    assert "REGION" in sent and "const a = 1;" in sent  # the rest of each file is still judged
    result = json.loads(out)
    withheld = {(r["source"], r["kind"]) for r in result["redactions"]}
    assert ("sol/aws.py", "aws-access-key") in withheld and ("sol/server.pem", "private-key-file") in withheld
    assert ("task", "aws-access-key") in withheld
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and "sol" not in p.parts)
    assert not any(v.encode() in written for v in VALUES)  # store, reports: nothing


def test_the_api_and_inline_artifacts_are_screened_too(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    judges = str(_judges(tmp_path, llm_server))
    with pytest.raises(UsageError, match=r"notes.md:1 holds a secret \(GitHub Token\)") as caught:
        moot.evaluate_sync(artifacts=[Artifact(path="notes.md", text=GITHUB)], judges=judges)
    assert GITHUB not in str(caught.value)
    with pytest.raises(UsageError, match=r"topic:1 holds a secret"):
        seat = {"model": "a", "api_base": llm_server.base_url}
        moot.challenge_sync(f"should we rotate {AWS}?", proponent=seat, challengers=[seat])
    assert llm_server.requests == []


def test_what_moot_ships_trips_no_detector() -> None:
    """The demos' artifacts and the docs must run as they are: no false alarm in what moot bundles."""
    root = Path(moot.__file__).parent
    for path in [*root.glob("protocols/*/demo/**/*"), *Path(__file__).parent.joinpath("data").rglob("*")]:
        if path.is_file() and path.suffix not in (".pyc", ".gz"):
            assert scan_text(path.read_text(encoding="utf-8", errors="replace"), str(path)) == [], path


def test_help_does_not_import_the_detector() -> None:
    code = "import sys; from moot.cli.app import main; main(['--help']); print('detect_secrets' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert r.stdout.strip().splitlines()[-1] == "False"


def _git(repo: Path, *args: str) -> None:
    config = ["-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", *config, *args], cwd=repo, check=True, capture_output=True)


def _committed(tmp_path: Path, files: dict[str, str]) -> Path:
    """A repository whose last commit adds `files` to an ordinary one."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "ok.py").write_text("x = 1\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "one")
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    _git(repo, "add", "-f", "-A")
    _git(repo, "commit", "-qm", "two")
    return repo


@pytest.mark.parametrize("name", [*sorted(CONTENT), *sorted(FILES)])
def test_a_diff_holding_a_secret_is_refused_before_any_call(
    name: str, tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    text = CONTENT[name][0] if name in CONTENT else FILES[name]
    judges = str(_judges(tmp_path, llm_server))
    monkeypatch.chdir(_committed(tmp_path, {name: text}))
    assert main(["evaluate", "--diff", "HEAD~1", "--judges", judges]) == 2
    err = capsys.readouterr().err
    assert f"{name}" in err and "holds a secret" in err and not any(v in err for v in VALUES)
    assert llm_server.requests == []


def test_a_redacted_diff_sends_no_secret_value(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    files = {name: text for name, (text, _, _) in CONTENT.items()} | FILES | {".env": f"TOKEN={GITHUB}\n"}
    judges = str(_judges(tmp_path, llm_server))
    monkeypatch.chdir(_committed(tmp_path, files))
    for model in ("a", "b"):
        llm_server.script(model, round1(4.0, 4))
    args = ["evaluate", "--diff", "HEAD~1", "--judges", judges, "--criteria", CRITERIA, "--no-reports"]
    assert main([*args, "--redact-secrets", "--format", "json"]) == 0
    sent = json.dumps([r.body for r in llm_server.requests])
    assert llm_server.requests and not any(v in sent for v in VALUES)
    withheld = {r["source"] for r in json.loads(capsys.readouterr().out)["redactions"]}
    assert withheld == set(files)  # every file holding a secret, and only those


def test_mcp_arguments_and_batch_items_are_screened(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    import anyio
    from mcp import Client

    from moot.mcp import build_server

    (tmp_path / "keys.py").write_text(CONTENT["aws.py"][0], encoding="utf-8")
    judges = str(_judges(tmp_path, llm_server))
    replies: list[Any] = []

    async def body() -> None:
        async with Client(build_server()) as client:
            args = {"solution": ["keys.py"], "judges": judges, "no_reports": True}
            replies.append(await client.call_tool("evaluate", args))

    anyio.run(body)
    assert replies[0].is_error and "keys.py:3 holds a secret (AWS Access Key)" in replies[0].content[0].text
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "one", "artifact": f"token = {GITHUB}\n", "judges": judges}) + "\n")
    assert main(["batch", str(items), "--protocol", "evaluate"]) == 2  # checked with every item, before any call
    err = capsys.readouterr().err
    assert "items.jsonl line 1: one:1 holds a secret (GitHub Token)" in err and GITHUB not in err
    assert llm_server.requests == []


def test_decide_context_files_and_questions_are_screened(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    (tmp_path / "spec.md").write_text(f"# Spec\n\nThe service uses {SLACK} to post.\n", encoding="utf-8")
    seats = [{"model": m, "api_base": llm_server.base_url} for m in ("a", "b", "c")]
    options = ["A=keep: keep it", "B=drop: drop it"]
    with pytest.raises(UsageError, match=r"spec.md:3 holds a secret \(Slack Token\)"):
        moot.decide_sync("Keep the webhook?", options, context_files=["spec.md"], judges=seats, write_files=False)
    with pytest.raises(UsageError, match=r"holds a secret \(AWS Access Key\)") as caught:
        moot.decide_sync(f"Rotate {AWS}?", options, judges=seats, write_files=False)
    assert AWS not in str(caught.value)
    assert llm_server.requests == []


def test_a_key_in_a_file_name_or_an_error_is_never_echoed(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file's name is sent with its text, so a key pasted into a name refuses the run (the message names the
    file by its redacted name); an error that quotes what the user gave (a path, a diff where a path was
    expected) is one line with the key redacted."""
    judges = _judges(tmp_path, llm_server)
    folder = tmp_path / "sol"
    folder.mkdir()
    (folder / f"notes-{AWS}.txt").write_text("plain notes\n", encoding="utf-8")
    code = main(["evaluate", "-s", str(folder), "--criteria", CRITERIA, "--judges", str(judges), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and AWS not in err and "holds a secret (AWS Access Key in the file's name)" in err
    patch_text = f"--- a/k.py\n+++ b/k.py\n@@ -0,0 +1 @@\n+K = '{AWS}'\n"
    code = main(["evaluate", "-s", patch_text, "--criteria", CRITERIA, "--judges", str(judges), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and AWS not in err and err.count("\n") == 1
    assert llm_server.requests == []
    redacted = tmp_path / "redacted"
    redacted.mkdir()
    (redacted / f"notes-{AWS}.txt").write_text("plain notes\n", encoding="utf-8")
    llm_server.script("a", round1(4.0))
    llm_server.script("b", round1(4.0))
    args = ["evaluate", "-s", str(redacted), "--criteria", CRITERIA, "--judges", str(judges), "--redact-secrets"]
    assert main([*args, "--max-rounds", "1", "--no-reports", "--format", "json", "--no-progress"]) == 0
    assert AWS not in json.dumps([r.body for r in llm_server.requests]) and AWS not in capsys.readouterr().out
