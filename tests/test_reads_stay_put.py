"""Reads stay where the user pointed: a link out of the folder or repository being read is not followed (the
judges see it as a link, with its target's name), /proc and devices are never artifacts, and over MCP a
`patch`, a `diff` and a glob pass the roots as `solution` does; a server started in / or the home folder
has no root unless given one; an MCP client sees only the debates started inside its roots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer

from .replies import CRITERIA, round1
from .test_mcp_confine import call_all, error_of

CANARY = "moot-canary-" + "environ-7f3e9a"  # in the process's environment: /proc/self/environ would show it


def git(repo: Path, *args: str) -> str:
    env_args = ["-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    return subprocess.run(["git", *env_args, *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def panel(folder: Path, server: FakeLLMServer) -> Path:
    """Two judges on the scripted server, one round each."""
    for model in ("a", "b"):
        server.script(model, round1(4.0, 4))
    judges = [{"model": m, "stance": s, "api_base": server.base_url} for m, s in (("a", "neutral"), ("b", "for"))]
    path = folder / "judges.yaml"
    path.write_text(json.dumps({"debate_judges": judges}), encoding="utf-8")
    return path


def sent(server: FakeLLMServer) -> str:
    return json.dumps([r.body for r in server.requests])


@pytest.fixture
def canary(monkeypatch: pytest.MonkeyPatch) -> str:
    if not Path("/proc/self/environ").exists():
        pytest.skip("no /proc on this system")
    monkeypatch.setenv("MOOT_TEST_CANARY", CANARY)
    return CANARY


def test_a_folders_link_to_proc_or_outside_is_shown_as_a_link_and_never_followed(
    tmp_path: Path, canary: str, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    (tmp_path / "outside.md").write_text("OUTSIDE-FILE-NEVER-SENT\n", encoding="utf-8")
    clone = tmp_path / "clone"
    (clone / "src").mkdir(parents=True)
    (clone / "src" / "app.py").write_text("print('hi')\n", encoding="utf-8")
    (clone / "src" / "env.txt").symlink_to("/proc/self/environ")
    (clone / "notes.md").symlink_to("../outside.md")
    (clone / "inside.md").symlink_to("src/app.py")  # a link that stays inside is read as usual
    monkeypatch.chdir(tmp_path)
    judges = panel(tmp_path, llm_server)
    args = ["evaluate", "-s", "clone/", "--criteria", CRITERIA, "--judges", str(judges), "--max-rounds", "1"]
    code = main([*args, "--no-reports", "--no-progress", "--format", "json"])
    err = capsys.readouterr().err
    assert code == 0, err
    body = sent(llm_server)
    assert canary not in body and "OUTSIDE-FILE-NEVER-SENT" not in body
    assert "a symbolic link to /proc/self/environ" in body and "a symbolic link to ../outside.md" in body
    assert body.count("print('hi')") >= 2  # src/app.py, and inside.md which links to it
    assert "clone/src/env.txt is a symbolic link to /proc/self/environ, outside clone: not followed" in err
    assert "clone/notes.md is a symbolic link to ../outside.md" in err


def test_a_glob_match_linking_out_of_its_folder_is_not_followed(
    tmp_path: Path, canary: str, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "docs" / "b.md").symlink_to("/proc/self/environ")
    monkeypatch.chdir(tmp_path)
    judges = panel(tmp_path, llm_server)
    args = ["evaluate", "-s", "docs/*.md", "--criteria", CRITERIA, "--judges", str(judges), "--max-rounds", "1"]
    assert main([*args, "--no-reports", "--no-progress", "--format", "json"]) == 0
    assert canary not in sent(llm_server) and "a symbolic link to /proc/self/environ" in sent(llm_server)


def test_proc_and_devices_are_never_read_even_when_named(
    tmp_path: Path, canary: str, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    (tmp_path / "env.txt").symlink_to("/proc/self/environ")
    monkeypatch.chdir(tmp_path)
    judges = str(panel(tmp_path, llm_server))
    for named in ("/proc/self/environ", "env.txt", "/dev/zero"):
        assert main(["evaluate", "-s", named, "--judges", judges, "--no-reports"]) == 2
        err = capsys.readouterr().err
        assert "never read as an artifact" in err or "is a device" in err, err
        assert len(err.strip().splitlines()) == 1
    assert llm_server.requests == []


@pytest.fixture
def linked_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cloned repository: a first commit, then one that changes app.py and commits a link to
    /proc/self/environ and one to a file outside the repository."""
    (tmp_path / "outside.txt").write_text("OUTSIDE-FILE-NEVER-SENT\n", encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("x = 1\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    (repo / "app.py").write_text("x = 2\n", encoding="utf-8")
    (repo / "leak").symlink_to("/proc/self/environ")
    (repo / "peek.txt").symlink_to("../outside.txt")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two")
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.parametrize("rev_range", ["HEAD~1", "HEAD~1..HEAD"])
def test_a_diffs_committed_links_are_not_followed(
    rev_range: str, linked_repo: Path, canary: str, llm_server: FakeLLMServer, capsys: Any
) -> None:
    judges = panel(linked_repo.parent, llm_server)
    args = ["evaluate", "--diff", rev_range, "--criteria", CRITERIA, "--judges", str(judges), "--max-rounds", "1"]
    code = main([*args, "--no-reports", "--no-progress", "--format", "json"])
    err = capsys.readouterr().err
    assert code == 0, err
    body = sent(llm_server)
    assert canary not in body and "OUTSIDE-FILE-NEVER-SENT" not in body
    assert "x = 2" in body and "/proc/self/environ" in body  # the link is shown by its target's name
    assert "moot: leak: a symbolic link, sent as its target's name; the target is not read" in err


# over MCP


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "plan.md").write_text("# Plan\n", encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.md").write_text("SECRET-TOKEN-123\n", encoding="utf-8")
    monkeypatch.chdir(folder)
    return folder


def scripted_panel(folder: Path) -> Path:
    path = folder / "panel.yaml"
    judges = [{"model": "scripted", "name": n, "replies": [round1(4.0, 4)]} for n in ("alpha", "beta", "gamma")]
    path.write_text(yaml.safe_dump({"debate_judges": judges}), encoding="utf-8")
    return path


def test_mcp_patch_outside_the_roots_is_refused_alike_whether_or_not_it_exists(work: Path, tmp_path: Path) -> None:
    judges = str(scripted_panel(work))
    outside_patch = tmp_path / "outside" / "change.patch"
    outside_patch.write_text("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+SECRET-IN-PATCH\n", encoding="utf-8")
    missing = tmp_path / "outside" / "nope.patch"
    calls = [("evaluate", {"patch": p, "criteria": CRITERIA, "judges": judges}) for p in ("/etc/shadow", str(missing))]
    calls.append(("evaluate", {"patch": str(outside_patch), "criteria": CRITERIA, "judges": judges}))
    calls.append(("evaluate", {"patch": "-", "criteria": CRITERIA, "judges": judges}))
    shadow, nothing, real, stdin = (error_of(r) for r in call_all(calls))
    assert shadow.replace("/etc/shadow", "PATH") == nothing.replace(str(missing), "PATH")
    assert shadow.startswith("refused to read /etc/shadow: outside the MCP server's roots")
    assert real.startswith(f"refused to read {outside_patch}: outside the MCP server's roots")
    assert "only the command line has" in stdin
    [listed] = call_all([("list_debates", {})])
    assert listed.structured_content == {"debates": []}


def test_mcp_diff_runs_git_inside_the_roots_never_in_the_servers_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server runs in a repository with changes; the client's root is another folder: the diff is of the
    root's repository (none here), and a root inside a repository whose top is outside it is refused."""
    server_repo = tmp_path / "server"
    server_repo.mkdir()
    git(server_repo, "init", "-q", "-b", "main")
    (server_repo / "app.py").write_text("SERVER-FOLDER-CODE = 1\n", encoding="utf-8")
    git(server_repo, "add", "-A")
    git(server_repo, "commit", "-q", "-m", "one")
    (server_repo / "app.py").write_text("SERVER-FOLDER-CODE = 2\n", encoding="utf-8")
    monkeypatch.chdir(server_repo)
    client = tmp_path / "client"
    client.mkdir()
    judges = str(scripted_panel(client))
    sub = server_repo / "sub"
    sub.mkdir()
    (sub / "panel.yaml").write_text((client / "panel.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    call = {"diff": "HEAD", "criteria": CRITERIA, "dry_run": True}
    [elsewhere] = call_all([("evaluate", {**call, "judges": judges})], roots=[client])
    [inside] = call_all([("evaluate", {**call, "judges": str(sub / "panel.yaml")})], roots=[sub])
    assert "not a git repository" in error_of(elsewhere) or "refused" in error_of(elsewhere)
    assert error_of(inside).startswith(f"refused to read {server_repo}: outside the MCP server's roots")


def test_mcp_glob_is_refused_by_its_fixed_folder_without_naming_a_match(work: Path, tmp_path: Path) -> None:
    (work / "lnk").symlink_to(tmp_path / "outside", target_is_directory=True)
    (work / "docs").mkdir()
    (work / "docs" / "x.md").symlink_to(tmp_path / "outside" / "secret.md")
    judges = str(scripted_panel(work))
    results = call_all(
        [
            ("evaluate", {"solution": [s], "criteria": CRITERIA, "judges": judges, "dry_run": True})
            for s in ("lnk/*.md", "docs/*.md", str(tmp_path / "outside" / "*.md"))
        ]
    )
    errors = [error_of(r) for r in results]
    assert errors[0].startswith("refused to read lnk/*.md: outside the MCP server's roots")
    assert errors[1].startswith("refused to read docs/*.md: one of its matches is outside the MCP server's roots")
    assert errors[2].startswith(f"refused to read {tmp_path / 'outside' / '*.md'}: outside")
    assert not any("secret.md" in e for e in errors)


def test_a_server_started_in_the_home_folder_has_no_root_unless_given_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "plan.md").write_text("# Plan\n", encoding="utf-8")
    judges = str(scripted_panel(home))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    call = ("evaluate", {"solution": ["plan.md"], "criteria": CRITERIA, "judges": judges, "dry_run": True})
    [refused] = call_all([call])
    assert error_of(refused).startswith(
        f"refused to read plan.md: the MCP server has no roots: it was started in {home}, which is no root"
    )
    assert "moot mcp --root DIR" in error_of(refused)
    [given] = call_all([call], roots=[home])  # a client that declares its roots is served
    assert not given.is_error, given.content
    [rooted] = call_with_root([call], home)  # and so is any client of a server given `--root`
    assert not rooted.is_error, rooted.content


def call_with_root(calls: list[tuple[str, dict[str, Any]]], root: Path) -> list[Any]:
    """`call_all` on a server started with `--root ROOT` (its client declares no roots)."""
    import anyio
    from mcp import Client

    from moot.mcp import build_server

    out: list[Any] = []

    async def run() -> None:
        async with Client(build_server(roots=[root])) as client:
            for tool, arguments in calls:
                out.append(await client.call_tool(tool, arguments))

    anyio.run(run)
    return out


def test_moot_mcp_says_its_roots_at_start(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "moot", "mcp", "--root", str(tmp_path)],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
        check=False,
    )
    first = done.stderr.splitlines()[0]
    assert first == (
        f"moot mcp: roots: the client's roots, else none (started in {tmp_path}, which is no root: "
        f"a client without roots gets only --root); plus {tmp_path}"
    )


def test_an_mcp_client_sees_and_acts_on_the_debates_started_inside_its_roots_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import moot

    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    for folder in (mine, theirs):
        folder.mkdir()
        (folder / "plan.md").write_text("# Plan\n", encoding="utf-8")
    monkeypatch.chdir(theirs)
    waiting = moot.evaluate_sync("plan.md", criteria=CRITERIA, judges="host", reports_dir=None)
    assert waiting.status == "waiting"
    other = waiting.debate_id
    reply = [{"seat": "judge-1", "reply": round1(4.0, 4)}]
    results = call_all(
        [
            ("list_debates", {}),
            ("show_debate", {"debate_id": other}),
            ("submit_replies", {"debate_id": other, "replies": reply}),
            ("cancel_debate", {"debate_id": other}),
            ("show_debate", {"debate_id": "0000-no-such-debate"}),
        ],
        roots=[mine],
    )
    assert results[0].structured_content == {"debates": []}
    refusals = [error_of(r) for r in results[1:]]
    assert all(e.startswith(f"no debate {other} in ") for e in refusals[:3]), refusals
    assert refusals[0].replace(other, "ID") == refusals[3].replace("0000-no-such-debate", "ID")
    seen = call_all([("list_debates", {}), ("cancel_debate", {"debate_id": other})], roots=[theirs])
    assert [d["debate_id"] for d in seen[0].structured_content["debates"]] == [other]
    assert seen[1].structured_content["status"] == "cancelled"
